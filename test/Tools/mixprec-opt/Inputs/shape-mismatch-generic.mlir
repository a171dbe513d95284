// mixprec.add needs operands of one shape (generic form: the result type is
// given, and the verifier re-infers it).
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %0 = "mixprec.add"(%a, %b) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
