// The model the trainer and call fuzzers run (test/Fuzz): small, so a call
// takes microseconds, with f32 and i32 inputs, a 0-d output, a train step
// compiled with --amp (f16 working copies, dynamic loss-scaling state) and
// an inference function for mixprec_trainer_evaluate.
module {
  mixprec.parameter @weight : tensor<4x3xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 1>
  mixprec.parameter @bias : tensor<4xf32> = #mixprec.uniform<low = -0.5, high = 0.5, seed = 2>

  func.func @loss(%x: tensor<2x3xf32>, %labels: tensor<2xi32>) -> tensor<f32> {
    %w = mixprec.read @weight : tensor<4x3xf32>
    %b = mixprec.read @bias : tensor<4xf32>
    %logits = mixprec.linear %x, %w, %b : tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
    %loss = mixprec.softmax_cross_entropy %logits, %labels : tensor<2x4xf32>, tensor<2xi32>
    return %loss : tensor<f32>
  }

  func.func @predict(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %w = mixprec.read @weight : tensor<4x3xf32>
    %b = mixprec.read @bias : tensor<4xf32>
    %logits = mixprec.linear %x, %w, %b : tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
    return %logits : tensor<2x4xf32>
  }

  mixprec.train_step @train forward @loss optimizer #mixprec.adam<>
}
