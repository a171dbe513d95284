// Inputs keep their SSA names from the source in the model ABI (the header,
// mixprec-run --list); a name the ABI gives the model's state is an error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mixprec-compile %s -o %t/libnamed.so
// RUN: FileCheck %s --input-file %t/libnamed.h
// RUN: mixprec-run %t/libnamed.so --list | FileCheck %s --check-prefix=LIST
// RUN: sed 's/%%images/%%w/g' %s > %t/clash.mlir
// RUN: not mixprec-compile %t/clash.mlir -o %t/libclash.so 2>&1 | FileCheck %s --check-prefix=CLASH
// RUN: sed 's/%%images/%%w.exp_avg/g' %s > %t/derived.mlir
// RUN: not mixprec-compile %t/derived.mlir -o %t/libderived.so 2>&1 | FileCheck %s --check-prefix=DERIVED

mixprec.parameter @w : tensor<3xf32> = #mixprec.ones

// A number (%0) names nothing; an explicit mixprec.abi_name wins.
// CHECK-LABEL: /* scale(
// CHECK-SAME: w: f32[3], images: f32[2, 3], arg1: f32[2, 3], gain: f32[])
// LIST: scale(w: f32[3], images: f32[2, 3], arg1: f32[2, 3], gain: f32[])
// CLASH: clash.mlir:[[@LINE+2]]:18: error: argument %w of @scale is named like the model's state 'w'; the model ABI tells inputs apart by name: rename the argument
// DERIVED: derived.mlir:[[@LINE+1]]:18: error: argument %w.exp_avg of @scale is named like the model's state 'w'
func.func @scale(%images: tensor<2x3xf32>, %0: tensor<2x3xf32>,
                 %factor: tensor<f32> {mixprec.abi_name = "gain"}) -> tensor<2x3xf32> {
  %weight = mixprec.read @w : tensor<3xf32>
  %b = mixprec.broadcast %weight : tensor<3xf32> -> tensor<2x3xf32>
  %s = mixprec.mul %images, %b : tensor<2x3xf32>, tensor<2x3xf32>
  %t = mixprec.add %s, %0 : tensor<2x3xf32>, tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}
