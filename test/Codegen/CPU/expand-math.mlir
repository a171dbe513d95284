// RUN: mixprec-opt %s -split-input-file --mixprec-expand-math | FileCheck %s

// exp: n = round(x / ln 2) by adding and subtracting 1.5 * 2^23, the
// reduced argument in two FMAs, a polynomial, 2^n in two factors, and the
// overflow, underflow and NaN lanes selected last; those lanes compute
// e^0 meanwhile (no subnormal products). No call is left.
// CHECK-LABEL: func.func @exp(
// CHECK-SAME:    [[X:%[^:]+]]: f32)
// CHECK-NOT:     math.exp
// CHECK:         [[NAN:%.+]] = arith.cmpf uno, [[X]], [[X]] : f32
// CHECK:         [[ABOVE:%.+]] = arith.cmpf ogt, [[X]], {{%.+}} : f32
// CHECK-NEXT:    [[BELOW:%.+]] = arith.cmpf olt, [[X]], {{%.+}} : f32
// CHECK-NEXT:    [[ZERO:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[OUTSIDE:%.+]] = arith.ori [[BELOW]], [[ABOVE]] : i1
// CHECK-NEXT:    [[UNDEFINED:%.+]] = arith.ori [[OUTSIDE]], [[NAN]] : i1
// CHECK-NEXT:    [[CLAMPED:%.+]] = arith.select [[UNDEFINED]], [[ZERO]], [[X]] : f32
// CHECK-NEXT:    [[SHIFTER:%.+]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT:    [[LOG2E:%.+]] = arith.constant 1.44269502 : f32
// CHECK-NEXT:    [[SHIFTED:%.+]] = llvm.intr.fma([[CLAMPED]], [[LOG2E]], [[SHIFTER]])
// CHECK-NEXT:    [[N:%.+]] = arith.subf [[SHIFTED]], [[SHIFTER]] : f32
// CHECK:         [[R1:%.+]] = llvm.intr.fma([[N]], {{%.+}}, [[CLAMPED]])
// CHECK-NEXT:    [[R:%.+]] = llvm.intr.fma([[N]], {{%.+}}, [[R1]])
// CHECK-COUNT-5: llvm.intr.fma({{%.+}}, [[R]], {{%.+}})
// CHECK:         [[K:%.+]] = arith.fptosi [[N]] : f32 to i32
// CHECK:         [[HALF:%.+]] = arith.shrsi [[K]], {{%.+}} : i32
// CHECK-NEXT:    [[REST:%.+]] = arith.subi [[K]], [[HALF]] : i32
// CHECK:         [[SCALED:%.+]] = arith.mulf {{%.+}}, {{%.+}} : f32
// CHECK-NEXT:    [[RESULT:%.+]] = arith.mulf [[SCALED]], {{%.+}} : f32
// CHECK-NEXT:    [[INF:%.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT:    [[SAT:%.+]] = arith.select [[ABOVE]], [[INF]], [[RESULT]] : f32
// CHECK-NEXT:    [[LOW:%.+]] = arith.select [[BELOW]], [[ZERO]], [[SAT]] : f32
// CHECK-NEXT:    [[QUIET:%.+]] = arith.addf [[X]], [[X]] : f32
// CHECK-NEXT:    [[EXP:%.+]] = arith.select [[NAN]], [[QUIET]], [[LOW]] : f32
// CHECK-NEXT:    return [[EXP]] : f32
func.func @exp(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

// -----

// erf on vectors: the small-argument polynomial, 1 - exp(...) (expanded
// too) with the sign of x, +-1 beyond 3.921875, NaN last.
// CHECK-LABEL: func.func @erf(
// CHECK-SAME:    [[X:%[^:]+]]: vector<16xf32>)
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.exp
// CHECK:         [[SMALL:%.+]] = llvm.intr.fma({{%.+}}, [[X]], [[X]]) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         [[IS_SMALL:%.+]] = arith.cmpf ole, {{%.+}}, {{%.+}} : vector<16xf32>
// CHECK-NEXT:    [[PICKED:%.+]] = arith.select [[IS_SMALL]], [[SMALL]], {{%.+}} : vector<16xi1>, vector<16xf32>
// CHECK:         [[SATURATES:%.+]] = arith.cmpf uge, {{%.+}}, {{%.+}} : vector<16xf32>
// CHECK:         [[ONES:%.+]] = arith.select [[SATURATES]], {{%.+}}, [[PICKED]] : vector<16xi1>, vector<16xf32>
// CHECK-NEXT:    [[NAN:%.+]] = arith.cmpf uno, [[X]], [[X]] : vector<16xf32>
// CHECK-NEXT:    [[QUIET:%.+]] = arith.addf [[X]], [[X]] : vector<16xf32>
// CHECK-NEXT:    [[ERF:%.+]] = arith.select [[NAN]], [[QUIET]], [[ONES]] : vector<16xi1>, vector<16xf32>
// CHECK-NEXT:    return [[ERF]]
func.func @erf(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.erf %x : vector<16xf32>
  return %e : vector<16xf32>
}

// -----

// Other types keep libm's functions.
// CHECK-LABEL: func.func @other_types(
// CHECK:         math.exp {{%.+}} : f64
// CHECK:         math.erf {{%.+}} : f16
// CHECK:         math.tanh {{%.+}} : f32
func.func @other_types(%x: f64, %y: f16, %z: f32) -> (f64, f16, f32) {
  %a = math.exp %x : f64
  %b = math.erf %y : f16
  %c = math.tanh %z : f32
  return %a, %b, %c : f64, f16, f32
}

// -----

// f32 maximum and minimum, scalars and 1-D vectors, become LLVM's
// intrinsics (arith-expand-ops would make them compares and selects, which
// LLVM does not vectorize as a reduction); other types, n-D vectors and
// tensors stay.
// CHECK-LABEL: func.func @maximum_minimum(
// CHECK-SAME:    [[X:%[^:]+]]: f32, [[Y:%[^:]+]]: f32, [[V:%[^:]+]]: vector<16xf32>, [[W:%[^:]+]]: vector<16xf32>,
// CHECK:         [[MAX:%.+]] = llvm.intr.maximum([[X]], [[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    [[MIN:%.+]] = llvm.intr.minimum([[X]], [[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    [[VMAX:%.+]] = llvm.intr.maximum([[V]], [[W]]) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-NEXT:    arith.maximumf {{%.+}}, {{%.+}} : bf16
// CHECK-NEXT:    arith.maximumf {{%.+}}, {{%.+}} : vector<2x16xf32>
// CHECK-NEXT:    arith.maximumf {{%.+}}, {{%.+}} : tensor<16xf32>
// CHECK-NEXT:    return [[MAX]], [[MIN]], [[VMAX]],
func.func @maximum_minimum(%x: f32, %y: f32, %v: vector<16xf32>, %w: vector<16xf32>, %h: bf16, %m: vector<2x16xf32>, %t: tensor<16xf32>) -> (f32, f32, vector<16xf32>, bf16, vector<2x16xf32>, tensor<16xf32>) {
  %a = arith.maximumf %x, %y : f32
  %b = arith.minimumf %x, %y : f32
  %c = arith.maximumf %v, %w : vector<16xf32>
  %d = arith.maximumf %h, %h : bf16
  %e = arith.maximumf %m, %m : vector<2x16xf32>
  %f = arith.maximumf %t, %t : tensor<16xf32>
  return %a, %b, %c, %d, %e, %f : f32, f32, vector<16xf32>, bf16, vector<2x16xf32>, tensor<16xf32>
}
