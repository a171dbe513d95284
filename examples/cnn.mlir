// A LeNet-style convolutional network with batch normalization for the 8x8
// digits set (sklearn's load_digits, one channel, 10 classes), trained with
// SGD + momentum and L2 weight decay.
//
//   PyTorch equivalent:
//     model = nn.Sequential(
//         nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
//         nn.ReLU(), nn.MaxPool2d(2),
//         nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
//         nn.ReLU(), nn.MaxPool2d(2),
//         nn.Flatten(), nn.Linear(64, 10))
//     loss  = F.cross_entropy(model(x), y)
//     opt   = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
//                             weight_decay=5e-4)
//   The convolutions have no bias: the batch norm right after each one
//   subtracts the per-channel mean, which would cancel it.
//
//   batch (B = 32, NCHW):
//     %x       tensor<32x1x8x8xf32>
//     %labels  tensor<32xi32>          class indices in [0, 10)
//
//   parameters:
//     @conv1_weight  tensor<8x1x3x3xf32>   kaiming_uniform(a = sqrt(5))
//     @bn1_weight    tensor<8xf32>         ones
//     @bn1_bias      tensor<8xf32>         zeros
//     @conv2_weight  tensor<16x8x3x3xf32>  kaiming_uniform(a = sqrt(5))
//     @bn2_weight    tensor<16xf32>        ones
//     @bn2_bias      tensor<16xf32>        zeros
//     @fc_weight     tensor<10x64xf32>     kaiming_uniform(a = sqrt(5))
//     @fc_bias       tensor<10xf32>        U(-1/sqrt(64), 1/sqrt(64))
//   buffers (batch-norm running statistics, FP32, updated every step with
//   momentum 0.1 through mixprec.assign):
//     @bn1_running_mean, @bn1_running_var  tensor<8xf32>   zeros, ones
//     @bn2_running_mean, @bn2_running_var  tensor<16xf32>  zeros, ones
//
//   forward:
//     [32, 1, 8, 8]  --conv2d 3x3 pad 1-->  [32, 8, 8, 8]
//                    --batch_norm, relu-->  [32, 8, 8, 8]
//                    --max_pool2d 2x2-->    [32, 8, 4, 4]
//                    --conv2d 3x3 pad 1-->  [32, 16, 4, 4]
//                    --batch_norm, relu-->  [32, 16, 4, 4]
//                    --max_pool2d 2x2-->    [32, 16, 2, 2]
//                    --reshape-->           [32, 64]
//                    --linear-->            [32, 10]
//                    --softmax_cross_entropy (mean)--> scalar loss
//
//   train step: SGD, momentum 0.9, weight decay 5e-4 (applied to the conv
//   and linear weights only: rank <= 1 parameters, i.e. the batch-norm
//   parameters and the linear bias, are not decayed by default).

module {
  mixprec.parameter @conv1_weight : tensor<8x1x3x3xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 1>
  mixprec.parameter @bn1_weight : tensor<8xf32> = #mixprec.ones
  mixprec.parameter @bn1_bias : tensor<8xf32> = #mixprec.zeros
  mixprec.buffer @bn1_running_mean : tensor<8xf32> = #mixprec.zeros
  mixprec.buffer @bn1_running_var : tensor<8xf32> = #mixprec.ones

  mixprec.parameter @conv2_weight : tensor<16x8x3x3xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 2>
  mixprec.parameter @bn2_weight : tensor<16xf32> = #mixprec.ones
  mixprec.parameter @bn2_bias : tensor<16xf32> = #mixprec.zeros
  mixprec.buffer @bn2_running_mean : tensor<16xf32> = #mixprec.zeros
  mixprec.buffer @bn2_running_var : tensor<16xf32> = #mixprec.ones

  mixprec.parameter @fc_weight : tensor<10x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 3>
  mixprec.parameter @fc_bias : tensor<10xf32> = #mixprec.uniform<low = -0.125, high = 0.125, seed = 4>

  func.func @loss(%x: tensor<32x1x8x8xf32>, %labels: tensor<32xi32>) -> tensor<f32> {
    // Block 1: conv -> batch norm (training) -> relu -> 2x2 max pool.
    %w1 = mixprec.read @conv1_weight : tensor<8x1x3x3xf32>
    %g1 = mixprec.read @bn1_weight : tensor<8xf32>
    %be1 = mixprec.read @bn1_bias : tensor<8xf32>
    %rm1 = mixprec.read @bn1_running_mean : tensor<8xf32>
    %rv1 = mixprec.read @bn1_running_var : tensor<8xf32>
    %c1 = mixprec.conv2d %x, %w1 {padding = array<i64: 1, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<32x8x8x8xf32>
    %n1, %rm1_new, %rv1_new = mixprec.batch_norm %c1, %rm1, %rv1 scale %g1 bias %be1 {momentum = 0.1 : f64, training = true} : tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    mixprec.assign @bn1_running_mean, %rm1_new : tensor<8xf32>
    mixprec.assign @bn1_running_var, %rv1_new : tensor<8xf32>
    %a1 = mixprec.relu %n1 : tensor<32x8x8x8xf32>
    %p1 = mixprec.max_pool2d %a1 {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x8x8xf32>

    // Block 2.
    %w2 = mixprec.read @conv2_weight : tensor<16x8x3x3xf32>
    %g2 = mixprec.read @bn2_weight : tensor<16xf32>
    %be2 = mixprec.read @bn2_bias : tensor<16xf32>
    %rm2 = mixprec.read @bn2_running_mean : tensor<16xf32>
    %rv2 = mixprec.read @bn2_running_var : tensor<16xf32>
    %c2 = mixprec.conv2d %p1, %w2 {padding = array<i64: 1, 1>} : tensor<32x8x4x4xf32>, tensor<16x8x3x3xf32> -> tensor<32x16x4x4xf32>
    %n2, %rm2_new, %rv2_new = mixprec.batch_norm %c2, %rm2, %rv2 scale %g2 bias %be2 {momentum = 0.1 : f64, training = true} : tensor<32x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
    mixprec.assign @bn2_running_mean, %rm2_new : tensor<16xf32>
    mixprec.assign @bn2_running_var, %rv2_new : tensor<16xf32>
    %a2 = mixprec.relu %n2 : tensor<32x16x4x4xf32>
    %p2 = mixprec.max_pool2d %a2 {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x16x4x4xf32>

    // Classifier.
    %flat = mixprec.reshape %p2 : tensor<32x16x2x2xf32> -> tensor<32x64xf32>
    %wf = mixprec.read @fc_weight : tensor<10x64xf32>
    %bf = mixprec.read @fc_bias : tensor<10xf32>
    %logits = mixprec.linear %flat, %wf, %bf : tensor<32x64xf32>, tensor<10x64xf32>, tensor<10xf32> -> tensor<32x10xf32>
    %loss = mixprec.softmax_cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi32>
    return %loss : tensor<f32>
  }

  mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9, weight_decay = 5.0e-4>
}
