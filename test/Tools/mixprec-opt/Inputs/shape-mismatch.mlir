// mixprec.add needs operands of one shape; it does not broadcast.
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %0 = mixprec.add %a, %b : tensor<4x8xf32>, tensor<8x4xf32>
  return %0 : tensor<4x8xf32>
}
