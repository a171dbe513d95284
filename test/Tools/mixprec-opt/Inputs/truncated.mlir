// A module cut off in the middle of an op: after its operand, before the
// type; no closing braces and no final newline.
module {
  func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = mixprec.relu %x