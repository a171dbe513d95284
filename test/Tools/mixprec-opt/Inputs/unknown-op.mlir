// An op the mixprec dialect does not define, in custom form.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mixprec.frobnicate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
