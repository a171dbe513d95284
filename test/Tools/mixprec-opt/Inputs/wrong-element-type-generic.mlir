// mixprec.relu takes f32, f16 or bf16 tensors, not f64 (generic form).
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "mixprec.relu"(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
