// A two-layer perceptron for the 8x8 digits set (sklearn's load_digits:
// 1797 images, pixels 0..16, 10 classes), trained with SGD + momentum.
//
//   PyTorch equivalent:
//     model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
//     loss  = F.cross_entropy(model(x), y)
//     opt   = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
//
//   batch (B = 64):
//     %x       tensor<64x64xf32>   flattened 8x8 images
//     %labels  tensor<64xi32>      class indices in [0, 10)
//
//   parameters (nn.Linear's default initialization):
//     @fc1_weight  tensor<128x64xf32>  kaiming_uniform(a = sqrt(5))
//     @fc1_bias    tensor<128xf32>     U(-1/sqrt(64), 1/sqrt(64))
//     @fc2_weight  tensor<10x128xf32>  kaiming_uniform(a = sqrt(5))
//     @fc2_bias    tensor<10xf32>      U(-1/sqrt(128), 1/sqrt(128))
//
//   forward:
//     [64, 64] --linear--> [64, 128] --relu--> [64, 128] --linear--> [64, 10]
//              --softmax_cross_entropy (mean over the batch)--> scalar loss
//
//   train step: SGD, momentum 0.9, no weight decay; the learning rate is a
//   runtime input of the generated step function.
//
//   @predict: the logits of a batch, for evaluation (mixprec_trainer_evaluate
//   runs it on any number of images).

module {
  mixprec.parameter @fc1_weight : tensor<128x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 1>
  mixprec.parameter @fc1_bias : tensor<128xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 2>
  mixprec.parameter @fc2_weight : tensor<10x128xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 3>
  mixprec.parameter @fc2_bias : tensor<10xf32> = #mixprec.uniform<low = -0.08838834764831845, high = 0.08838834764831845, seed = 4>

  func.func @loss(%x: tensor<64x64xf32>, %labels: tensor<64xi32>) -> tensor<f32> {
    %w1 = mixprec.read @fc1_weight : tensor<128x64xf32>
    %b1 = mixprec.read @fc1_bias : tensor<128xf32>
    %w2 = mixprec.read @fc2_weight : tensor<10x128xf32>
    %b2 = mixprec.read @fc2_bias : tensor<10xf32>
    %h = mixprec.linear %x, %w1, %b1 : tensor<64x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<64x128xf32>
    %a = mixprec.relu %h : tensor<64x128xf32>
    %logits = mixprec.linear %a, %w2, %b2 : tensor<64x128xf32>, tensor<10x128xf32>, tensor<10xf32> -> tensor<64x10xf32>
    %loss = mixprec.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32>
    return %loss : tensor<f32>
  }

  func.func @predict(%x: tensor<64x64xf32>) -> tensor<64x10xf32> {
    %w1 = mixprec.read @fc1_weight : tensor<128x64xf32>
    %b1 = mixprec.read @fc1_bias : tensor<128xf32>
    %w2 = mixprec.read @fc2_weight : tensor<10x128xf32>
    %b2 = mixprec.read @fc2_bias : tensor<10xf32>
    %h = mixprec.linear %x, %w1, %b1 : tensor<64x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<64x128xf32>
    %a = mixprec.relu %h : tensor<64x128xf32>
    %logits = mixprec.linear %a, %w2, %b2 : tensor<64x128xf32>, tensor<10x128xf32>, tensor<10xf32> -> tensor<64x10xf32>
    return %logits : tensor<64x10xf32>
  }

  mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>
}
