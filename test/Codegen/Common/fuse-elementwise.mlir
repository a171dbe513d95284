// RUN: mixprec-opt %s --mixprec-fuse-elementwise -split-input-file | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>

// A chain of elementwise ops becomes one op; the f16 rounding of the first
// link stays inside the fused body.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[E:.*]] = math.exp %[[A]] : f32
// CHECK: %[[H:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK: %[[W:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[M:.*]] = arith.mulf %[[W]], %[[B]] : f32
// CHECK: linalg.yield %[[M]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = math.exp %a : f32
    %r = arith.truncf %t : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x8xf16>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %y : tensor<4x8xf16>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f16, %b: f32, %o: f32):
    %w = arith.extf %a : f16 to f32
    %r = arith.mulf %w, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#lhs = affine_map<(i, j, k) -> (i, k)>
#rhs = affine_map<(i, j, k) -> (k, j)>
#out = affine_map<(i, j, k) -> (i, j)>

// A producer with two elementwise users is computed once, in one op with
// both; a contraction keeps its multiply-accumulate body (the tensor-core
// kernels match it).
// CHECK-LABEL: func.func @two_users_and_a_contraction
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x8xf32>,
// CHECK: %[[P:.*]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: f32,
// CHECK-NEXT: %[[E:.*]] = math.exp %[[A]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[E]], %[[E]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[E]]
// CHECK-NEXT: linalg.yield %[[S]], %[[M]]
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %{{.*}} : tensor<4x8xf16>, tensor<8x8xf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: return %[[P]]#0, %[[P]]#1,
func.func @two_users_and_a_contraction(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>, %w: tensor<8x8xf16>, %acc: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.mulf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %eh = tensor.empty() : tensor<4x8xf16>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x8xf16>) outs(%eh : tensor<4x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %t = arith.negf %a : f16
    linalg.yield %t : f16
  } -> tensor<4x8xf16>
  %c = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %w : tensor<4x8xf16>, tensor<8x8xf16>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %wa = arith.extf %a : f16 to f32
    %wb = arith.extf %b : f16 to f32
    %t = arith.mulf %wa, %wb : f32
    %u = arith.addf %o, %t : f32
    linalg.yield %u : f32
  } -> tensor<4x8xf32>
  return %s, %s2, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#rowsum = affine_map<(i, j) -> (i)>

// A broadcast (its body yields its input) with two elementwise users is
// fused into both, each reading the bias through the broadcast's map, and
// is gone; the row sums (reductions) take no producer.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_two_users
// CHECK-SAME: (%[[BIAS:[^:]+]]: tensor<8xf32>, %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>,
// CHECK-NOT: linalg.yield %{{[^ ]+}} : f32
// CHECK: %[[S:[^ ]+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]]{{.*}} ins(%[[X]], %[[BIAS]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: arith.addf
// CHECK: %[[M:[^ ]+]] = linalg.generic {indexing_maps = [#[[$ROW]], #[[$ID]], #[[$ID]]]{{.*}} ins(%[[BIAS]], %[[Y]] : tensor<8xf32>, tensor<4x8xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<4x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<4x8xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @broadcast_two_users(%bias: tensor<8xf32>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %acc: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%c: f32, %a: f32, %o: f32):
    %t = arith.mulf %c, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #rowsum], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %o, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #rowsum], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %o, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %r1, %r2 : tensor<4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// The new value of %w (returned) is computed between exp(%w) and its only
// user: fusing would move the read of %w after the op that, once state is
// updated in place, writes over it. Nothing is fused.
// CHECK-LABEL: func.func @returned_between
// CHECK-SAME: (%[[W:[^:]+]]: tensor<4x8xf32>, %[[G:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK: %[[P:[^ ]+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK: %[[N:[^ ]+]] = linalg.generic {{.*}} ins(%[[W]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.subf
// CHECK: %[[C:[^ ]+]] = linalg.generic {{.*}} ins(%[[P]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf
// CHECK: return %[[C]], %[[N]]
func.func @returned_between(%w: tensor<4x8xf32>, %g: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %c, %n : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// The same ops with the new value computed after the user: exp(%w) is fused
// into it (still before the returned op).
// CHECK-LABEL: func.func @returned_after
// CHECK-SAME: (%[[W:[^:]+]]: tensor<4x8xf32>, %[[G:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK: %[[C:[^ ]+]] = linalg.generic {{.*}} ins(%[[W]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: %[[N:[^ ]+]] = linalg.generic {{.*}} ins(%[[W]], %[[G]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
// CHECK: return %[[C]], %[[N]]
func.func @returned_after(%w: tensor<4x8xf32>, %g: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %c, %n : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

// The rule holds for broadcasts too, user by user: the broadcast is fused
// into its first user, but not into the second, which comes after the first
// user's returned result; the broadcast stays for it.
// CHECK-LABEL: func.func @broadcast_across_return
// CHECK-SAME: (%[[BIAS:[^:]+]]: tensor<8xf32>, %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK: %[[B:[^ ]+]] = linalg.generic {{.*}} ins(%[[BIAS]] : tensor<8xf32>)
// CHECK: %[[S:[^ ]+]] = linalg.generic {{.*}} ins(%[[X]], %[[BIAS]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: %[[M:[^ ]+]] = linalg.generic {{.*}} ins(%[[B]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: return %[[S]], %[[M]]
func.func @broadcast_across_return(%bias: tensor<8xf32>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%c: f32, %a: f32, %o: f32):
    %t = arith.mulf %c, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %s, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// An SGD update with momentum and the guards of its two new values
// (--mixprec-guard-state-updates): each guard reads one result, and both
// are fused with the update into one op that reads each state element once
// and writes both new values.
// CHECK-LABEL: func.func @guarded_update
// CHECK-SAME: (%[[W:[^:]+]]: tensor<4x8xf32>, %[[G:[^:]+]]: tensor<4x8xf32>, %[[V:[^:]+]]: tensor<4x8xf32>, %[[OK:[^:]+]]: i1)
// CHECK: %[[U:[^ ]+]]:2 = linalg.generic {{.*}} ins(%[[W]], %[[G]], %[[V]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[WI:[^:]+]]: f32, %[[GI:[^:]+]]: f32, %[[VI:[^:]+]]: f32,
// CHECK: %[[NV:[^ ]+]] = arith.addf
// CHECK: %[[NW:[^ ]+]] = arith.subf %[[WI]],
// CHECK: %[[KV:[^ ]+]] = arith.select %[[OK]], %[[NV]], %[[VI]] : f32
// CHECK: %[[KW:[^ ]+]] = arith.select %[[OK]], %[[NW]], %[[WI]] : f32
// CHECK: linalg.yield %[[KV]], %[[KW]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[U]]#1, %[[U]]#0
func.func @guarded_update(%w: tensor<4x8xf32>, %g: tensor<4x8xf32>, %v: tensor<4x8xf32>, %ok: i1) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %lr = arith.constant 0.1 : f32
  %mu = arith.constant 0.9 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %u:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %v : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e, %e : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o0: f32, %o1: f32):
    %m = arith.mulf %c, %mu : f32
    %nv = arith.addf %m, %b : f32
    %s = arith.mulf %lr, %nv : f32
    %nw = arith.subf %a, %s : f32
    linalg.yield %nw, %nv : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %kv = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u#1, %v : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.select %ok, %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %kw = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%u#0, %w : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.select %ok, %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %kw, %kv : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#rowsum = affine_map<(i, j) -> (i)>

// A producer whose first user is a reduction is left as it is: the
// reduction takes no producer, and the later elementwise user is not first.
// CHECK-LABEL: func.func @first_user_reduces
// CHECK: %[[P:[^ ]+]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: arith.negf
func.func @first_user_reduces(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #rowsum], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %o, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.negf %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %r, %n : tensor<4xf32>, tensor<4x8xf32>
}

// -----

#vec = affine_map<(i) -> (i)>
#first = affine_map<() -> (0)>
#scalar = affine_map<() -> ()>

// A report of three elements, returned, whose first element a 0-d op
// reads: fused, the report would be computed at element 0 only. The user
// must visit every element it reads (a permutation); nothing is fused.
// CHECK-LABEL: func.func @user_reads_one_element
// CHECK: %[[R:[^ ]+]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: %[[V:[^ ]+]] = linalg.generic {{.*}} iterator_types = []} ins(%[[R]] : tensor<3xi64>)
// CHECK: return %[[R]], %[[V]]
func.func @user_reads_one_element(%x: tensor<3xi64>) -> (tensor<3xi64>, tensor<i1>) {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<3xi64>
  %r = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%x : tensor<3xi64>) outs(%e : tensor<3xi64>) {
  ^bb0(%a: i64, %o: i64):
    %t = arith.addi %a, %a : i64
    linalg.yield %t : i64
  } -> tensor<3xi64>
  %eb = tensor.empty() : tensor<i1>
  %v = linalg.generic {indexing_maps = [#first, #scalar], iterator_types = []}
      ins(%r : tensor<3xi64>) outs(%eb : tensor<i1>) {
  ^bb0(%a: i64, %o: i1):
    %t = arith.cmpi slt, %a, %c0 : i64
    linalg.yield %t : i1
  } -> tensor<i1>
  return %r, %v : tensor<3xi64>, tensor<i1>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>

// The first user reads the producer transposed: fused, the producer's
// other result would be written in the user's order, not contiguously
// (uncoalesced on the GPU). Nothing is fused.
// CHECK-LABEL: func.func @first_user_transposes
// CHECK: %[[P:[^ ]+]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<8x8xf32>)
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<8x8xf32>)
// CHECK: arith.addf
func.func @first_user_transposes(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  %n = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.negf %a : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %n, %d : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// With narrow-apart, a rounding to bf16 stays apart from the f32 op that
// computes its operand when that op can write over an input that dies there
// (the product %d, read by no later op): the f32 result takes %d's buffer,
// and the op's other inputs die before the bf16 result is allocated. The
// f32 chain before it still fuses. Where the product is read later (by the
// return), the rounding is fused as before: apart, its f32 operand would
// need a buffer of its own.
// RUN: mixprec-opt %s --mixprec-fuse-elementwise=narrow-apart -split-input-file | FileCheck %s --check-prefix=APART

// CHECK-LABEL: func.func @narrowed(
// CHECK:         linalg.matmul
// CHECK:         linalg.generic
// CHECK:           arith.truncf
// CHECK-NOT:     linalg.generic
// CHECK-LABEL: func.func @product_live(
// APART-LABEL: func.func @narrowed(
// APART-SAME:      %[[P:[^:]+]]: tensor<4x8xf32>
// APART:         %[[D:.+]] = linalg.matmul
// APART:         %[[WIDE:.+]] = linalg.generic {{.*}} ins(%[[P]], %[[D]] : tensor<4x8xf32>, tensor<4x8xf32>)
// APART:           arith.subf
// APART:           arith.mulf
// APART-NOT:       arith.truncf
// APART:         linalg.generic {{.*}} ins(%[[WIDE]] : tensor<4x8xf32>)
// APART-NEXT:    ^bb0
// APART-NEXT:      arith.truncf
// APART-LABEL: func.func @product_live(
// APART:         linalg.matmul
// APART:         linalg.generic
// APART:           arith.mulf
// APART:           arith.truncf
// APART-NOT:     linalg.generic
#id = affine_map<(i, j) -> (i, j)>
func.func @narrowed(%p: tensor<4x8xf32>, %x: tensor<4x2xf32>, %y: tensor<2x8xf32>) -> tensor<4x8xbf16> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x8xf32>
  %sums = linalg.fill ins(%zero : f32) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = linalg.matmul ins(%x, %y : tensor<4x2xf32>, tensor<2x8xf32>) outs(%sums : tensor<4x8xf32>) -> tensor<4x8xf32>
  %diff = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %d : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %b, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %wide = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %diff : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %empty = tensor.empty() : tensor<4x8xbf16>
  %narrow = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%wide : tensor<4x8xf32>) outs(%empty : tensor<4x8xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  return %narrow : tensor<4x8xbf16>
}
func.func @product_live(%p: tensor<4x8xf32>, %x: tensor<4x2xf32>, %y: tensor<2x8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x8xf32>
  %sums = linalg.fill ins(%zero : f32) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = linalg.matmul ins(%x, %y : tensor<4x2xf32>, tensor<2x8xf32>) outs(%sums : tensor<4x8xf32>) -> tensor<4x8xf32>
  %wide = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %d : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %empty = tensor.empty() : tensor<4x8xbf16>
  %narrow = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%wide : tensor<4x8xf32>) outs(%empty : tensor<4x8xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  return %narrow, %d : tensor<4x8xbf16>, tensor<4x8xf32>
}
