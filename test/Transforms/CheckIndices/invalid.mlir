// RUN: mixprec-opt %s -split-input-file -verify-diagnostics --mixprec-check-indices

func.func private @helper(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{'mixprec.softmax_cross_entropy' op indexes with data in a private function, whose indices no caller would check}}
  %l = mixprec.softmax_cross_entropy %logits, %labels : tensor<4x10xf32>, tensor<4xi32>
  return %l : tensor<f32>
}
