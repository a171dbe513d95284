// RUN: mixprec-opt %s -split-input-file --convert-mixprec-to-linalg | FileCheck %s

// The loss-scale rule of docs/design.md §1 as scalar code on 0-d tensors:
// both branches computed, selected on `finite`.
// CHECK-LABEL: func.func @loss_scale(
// CHECK-SAME:    [[S:%[^:]+]]: tensor<f32>, [[T:%[^:]+]]: tensor<i32>, [[H:%[^:]+]]: tensor<i32>, [[OK:%[^:]+]]: tensor<i1>)
// CHECK:         [[SCALE:%.+]] = tensor.extract [[S]][] : tensor<f32>
// CHECK:         [[TRACKER:%.+]] = tensor.extract [[T]][] : tensor<i32>
// CHECK:         [[HYST:%.+]] = tensor.extract [[H]][] : tensor<i32>
// CHECK:         [[FINITE:%.+]] = tensor.extract [[OK]][] : tensor<i1>
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant 0 : i32
// CHECK-DAG:     [[ONE:%.+]] = arith.constant 1 : i32
// Overflow: hyst > 1 ? hyst - 1 : scale = max(scale * backoff, min_scale).
// CHECK:         [[HGT1:%.+]] = arith.cmpi sgt, [[HYST]], [[ONE]] : i32
// CHECK-DAG:     [[MIN:%.+]] = arith.constant 1.250000e-01 : f32
// CHECK-DAG:     [[BACKOFF:%.+]] = arith.constant 2.500000e-01 : f32
// CHECK:         [[BACKED:%.+]] = arith.mulf [[SCALE]], [[BACKOFF]] : f32
// CHECK:         [[FLOORED:%.+]] = arith.maximumf [[BACKED]], [[MIN]] : f32
// CHECK:         [[OVF_S:%.+]] = arith.select [[HGT1]], [[SCALE]], [[FLOORED]] : f32
// CHECK:         [[HDEC:%.+]] = arith.subi [[HYST]], [[ONE]] : i32
// CHECK:         [[OVF_H:%.+]] = arith.select [[HGT1]], [[HDEC]], [[HYST]] : i32
// Clean: tracker + 1; at the interval grow (if finite, capped), reset.
// CHECK:         [[COUNTED:%.+]] = arith.addi [[TRACKER]], [[ONE]] : i32
// CHECK:         [[INTERVAL:%.+]] = arith.constant 100 : i32
// CHECK:         [[AT:%.+]] = arith.cmpi eq, [[COUNTED]], [[INTERVAL]] : i32
// CHECK:         [[GROWTH:%.+]] = arith.constant 3.000000e+00 : f32
// CHECK:         [[G:%.+]] = arith.mulf [[SCALE]], [[GROWTH]] : f32
// CHECK:         [[INF:%.+]] = arith.constant 0x7F800000 : f32
// CHECK:         [[ABS:%.+]] = math.absf [[G]] : f32
// CHECK:         [[GFIN:%.+]] = arith.cmpf olt, [[ABS]], [[INF]] : f32
// CHECK:         [[MAX:%.+]] = arith.constant 6.553600e+04 : f32
// CHECK:         [[CAPPED:%.+]] = arith.minimumf [[G]], [[MAX]] : f32
// CHECK:         [[GROW_S:%.+]] = arith.select [[GFIN]], [[CAPPED]], [[SCALE]] : f32
// CHECK:         [[CLEAN_S:%.+]] = arith.select [[AT]], [[GROW_S]], [[SCALE]] : f32
// CHECK:         [[CLEAN_T:%.+]] = arith.select [[AT]], [[ZERO]], [[COUNTED]] : i32
// CHECK:         [[HYSTERESIS:%.+]] = arith.constant 2 : i32
// CHECK:         [[CLEAN_H:%.+]] = arith.select [[AT]], [[HYSTERESIS]], [[HYST]] : i32
// CHECK:         [[NEW_S:%.+]] = arith.select [[FINITE]], [[CLEAN_S]], [[OVF_S]] : f32
// CHECK:         [[NEW_T:%.+]] = arith.select [[FINITE]], [[CLEAN_T]], [[ZERO]] : i32
// CHECK:         [[NEW_H:%.+]] = arith.select [[FINITE]], [[CLEAN_H]], [[OVF_H]] : i32
// CHECK:         [[RS:%.+]] = tensor.from_elements [[NEW_S]] : tensor<f32>
// CHECK:         [[RT:%.+]] = tensor.from_elements [[NEW_T]] : tensor<i32>
// CHECK:         [[RH:%.+]] = tensor.from_elements [[NEW_H]] : tensor<i32>
// CHECK:         return [[RS]], [[RT]], [[RH]]
func.func @loss_scale(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<i32>) {
  %s2, %t2, %h2 = mixprec.loss_scale_update %s, %t, %h, %ok {growth_factor = 3.0 : f64, backoff_factor = 0.25 : f64, growth_interval = 100 : i64, hysteresis = 2 : i64, min_scale = 0.125 : f64, max_scale = 65536.0 : f64}
  return %s2, %t2, %h2 : tensor<f32>, tensor<i32>, tensor<i32>
}

// -----

// Defaults: PyTorch's GradScaler (growth 2, backoff 0.5, interval 2000,
// hysteresis 1), min_scale 1, max_scale 2^24.
// CHECK-LABEL: func.func @loss_scale_defaults(
// CHECK-DAG:     arith.constant 1.000000e+00 : f32
// CHECK-DAG:     arith.constant 5.000000e-01 : f32
// CHECK-DAG:     arith.constant 2000 : i32
// CHECK-DAG:     arith.constant 2.000000e+00 : f32
// CHECK-DAG:     arith.constant 0x4B800000 : f32
func.func @loss_scale_defaults(%s: tensor<f32>, %t: tensor<i32>, %h: tensor<i32>, %ok: tensor<i1>) -> (tensor<f32>, tensor<i32>, tensor<i32>) {
  %s2, %t2, %h2 = mixprec.loss_scale_update %s, %t, %h, %ok
  return %s2, %t2, %h2 : tensor<f32>, tensor<i32>, tensor<i32>
}

// -----

// SGD with momentum, nesterov and weight decay, in one f32 generic with two
// results (the parameter and the f32 momentum buffer).
// CHECK-LABEL: func.func @sgd_nesterov(
// CHECK-SAME:    [[W:%[^:]+]]: tensor<4x8xf32>, [[G:%[^:]+]]: tensor<4x8xf32>, [[LR:%[^:]+]]: tensor<f32>, [[BUF:%[^:]+]]: tensor<4x8xf32>)
// CHECK:         [[RATE:%.+]] = tensor.extract [[LR]][] : tensor<f32>
// CHECK:         [[R:%.+]]:2 = linalg.generic {{.+}} ins([[W]], [[G]], [[BUF]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0([[P:%.+]]: f32, [[GR:%.+]]: f32, [[B:%.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[WD:%.+]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT:      [[DECAY:%.+]] = arith.mulf [[WD]], [[P]] : f32
// CHECK-NEXT:      [[GD:%.+]] = arith.addf [[GR]], [[DECAY]] : f32
// CHECK-NEXT:      [[MOM:%.+]] = arith.constant 0.899999976 : f32
// CHECK-NEXT:      [[MB:%.+]] = arith.mulf [[MOM]], [[B]] : f32
// CHECK-NEXT:      [[NB:%.+]] = arith.addf [[MB]], [[GD]] : f32
// CHECK-NEXT:      [[MNB:%.+]] = arith.mulf [[MOM]], [[NB]] : f32
// CHECK-NEXT:      [[STEP:%.+]] = arith.addf [[GD]], [[MNB]] : f32
// CHECK-NEXT:      [[UPD:%.+]] = arith.mulf [[RATE]], [[STEP]] : f32
// CHECK-NEXT:      [[NP:%.+]] = arith.subf [[P]], [[UPD]] : f32
// CHECK-NEXT:      linalg.yield [[NP]], [[NB]] : f32, f32
// CHECK:         return [[R]]#0, [[R]]#1
func.func @sgd_nesterov(%w: tensor<4x8xf32>, %g: tensor<4x8xf32>, %lr: tensor<f32>, %buf: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w2, %b2 = mixprec.sgd_update %w, %g, %lr, %buf {optimizer = #mixprec.sgd<momentum = 9.0e-01, nesterov = true, weight_decay = 1.0e-02>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %w2, %b2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Dampening scales the gradient into the buffer, except on the first step
// (step count 1), which sets the buffer to the undamped gradient, as
// PyTorch does; the step is the buffer.
// CHECK-LABEL: func.func @sgd_dampening(
// CHECK-SAME:    [[STEPT:%[^:]+]]: tensor<i64>)
// CHECK:         [[STEP:%.+]] = tensor.extract [[STEPT]][] : tensor<i64>
// CHECK-NEXT:    [[ONE:%.+]] = arith.constant 1 : i64
// CHECK-NEXT:    [[FIRST:%.+]] = arith.cmpi eq, [[STEP]], [[ONE]] : i64
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0([[P:%.+]]: f32, [[GR:%.+]]: f32, [[B:%.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[MOM:%.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      [[DAMP:%.+]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT:      [[DG:%.+]] = arith.mulf [[DAMP]], [[GR]] : f32
// CHECK-NEXT:      [[MB:%.+]] = arith.mulf [[MOM]], [[B]] : f32
// CHECK-NEXT:      [[DB:%.+]] = arith.addf [[MB]], [[DG]] : f32
// CHECK-NEXT:      [[NB:%.+]] = arith.select [[FIRST]], [[GR]], [[DB]] : f32
// CHECK-NEXT:      [[UPD:%.+]] = arith.mulf %{{.+}}, [[NB]] : f32
// CHECK-NEXT:      [[NP:%.+]] = arith.subf [[P]], [[UPD]] : f32
// CHECK-NEXT:      linalg.yield [[NP]], [[NB]] : f32, f32
func.func @sgd_dampening(%w: tensor<7xf32>, %g: tensor<7xf32>, %lr: tensor<f32>, %buf: tensor<7xf32>, %step: tensor<i64>) -> (tensor<7xf32>, tensor<7xf32>) {
  %w2, %b2 = mixprec.sgd_update %w, %g, %lr, %buf step %step {optimizer = #mixprec.sgd<momentum = 5.0e-01, dampening = 2.5e-01>} : (tensor<7xf32>, tensor<7xf32>, tensor<f32>, tensor<7xf32>, tensor<i64>) -> (tensor<7xf32>, tensor<7xf32>)
  return %w2, %b2 : tensor<7xf32>, tensor<7xf32>
}

// -----

// With weight decay, the first step's buffer is the decayed gradient g'.
// CHECK-LABEL: func.func @sgd_dampening_weight_decay(
// CHECK:         [[FIRST:%.+]] = arith.cmpi eq, {{%.+}}, {{%.+}} : i64
// CHECK:         ^bb0([[P:%.+]]: f32, [[GR:%.+]]: f32, [[B:%.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[WD:%.+]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT:      [[DECAY:%.+]] = arith.mulf [[WD]], [[P]] : f32
// CHECK-NEXT:      [[GD:%.+]] = arith.addf [[GR]], [[DECAY]] : f32
// CHECK:           [[DB:%.+]] = arith.addf {{%.+}}, {{%.+}} : f32
// CHECK-NEXT:      [[NB:%.+]] = arith.select [[FIRST]], [[GD]], [[DB]] : f32
// CHECK:           linalg.yield {{%.+}}, [[NB]] : f32, f32
func.func @sgd_dampening_weight_decay(%w: tensor<7xf32>, %g: tensor<7xf32>, %lr: tensor<f32>, %buf: tensor<7xf32>, %step: tensor<i64>) -> (tensor<7xf32>, tensor<7xf32>) {
  %w2, %b2 = mixprec.sgd_update %w, %g, %lr, %buf step %step {optimizer = #mixprec.sgd<momentum = 9.0e-01, dampening = 5.0e-01, weight_decay = 1.0e-02>} : (tensor<7xf32>, tensor<7xf32>, tensor<f32>, tensor<7xf32>, tensor<i64>) -> (tensor<7xf32>, tensor<7xf32>)
  return %w2, %b2 : tensor<7xf32>, tensor<7xf32>
}

// -----

// Plain SGD on a 16-bit parameter: widen, update in f32, round once.
// CHECK-LABEL: func.func @sgd_plain_f16(
// CHECK-SAME:    [[W:%[^:]+]]: tensor<16xf16>, [[G:%[^:]+]]: tensor<16xf16>, [[LR:%[^:]+]]: tensor<f32>)
// CHECK:         [[RATE:%.+]] = tensor.extract [[LR]][] : tensor<f32>
// CHECK:         [[R:%.+]] = linalg.generic {{.+}} ins([[W]], [[G]] : tensor<16xf16>, tensor<16xf16>) outs(%{{.+}} : tensor<16xf16>)
// CHECK-NEXT:    ^bb0([[P:%.+]]: f16, [[GR:%.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      [[PW:%.+]] = arith.extf [[P]] : f16 to f32
// CHECK-NEXT:      [[GW:%.+]] = arith.extf [[GR]] : f16 to f32
// CHECK-NEXT:      [[UPD:%.+]] = arith.mulf [[RATE]], [[GW]] : f32
// CHECK-NEXT:      [[NP:%.+]] = arith.subf [[PW]], [[UPD]] : f32
// CHECK-NEXT:      [[NPH:%.+]] = arith.truncf [[NP]] : f32 to f16
// CHECK-NEXT:      linalg.yield [[NPH]] : f16
// CHECK:         return [[R]]
func.func @sgd_plain_f16(%w: tensor<16xf16>, %g: tensor<16xf16>, %lr: tensor<f32>) -> tensor<16xf16> {
  %w2 = mixprec.sgd_update %w, %g, %lr {optimizer = #mixprec.sgd<>} : (tensor<16xf16>, tensor<16xf16>, tensor<f32>) -> tensor<16xf16>
  return %w2 : tensor<16xf16>
}

// -----

// AdamW on a bf16 parameter: the per-step scalars -(lr / (1 - b1^step)),
// sqrt(1 - b2^step) and 1 - lr * wd in f64, rounded once to f32; the
// moments in f32; the parameter rounded once to bf16.
// CHECK-LABEL: func.func @adamw_bf16(
// CHECK-SAME:    [[W:%[^:]+]]: tensor<4x8xbf16>, [[G:%[^:]+]]: tensor<4x8xbf16>, [[M:%[^:]+]]: tensor<4x8xf32>, [[V:%[^:]+]]: tensor<4x8xf32>, [[LR:%[^:]+]]: tensor<f32>, [[STEPT:%[^:]+]]: tensor<i64>)
// CHECK:         [[RATE:%.+]] = tensor.extract [[LR]][] : tensor<f32>
// CHECK:         [[RATE64:%.+]] = arith.extf [[RATE]] : f32 to f64
// CHECK:         [[STEPI:%.+]] = tensor.extract [[STEPT]][] : tensor<i64>
// CHECK:         [[STEP:%.+]] = arith.sitofp [[STEPI]] : i64 to f64
// CHECK:         [[ONE:%.+]] = arith.constant 1.000000e+00 : f64
// CHECK:         [[B1:%.+]] = arith.constant 9.000000e-01 : f64
// CHECK:         [[B1P:%.+]] = math.powf [[B1]], [[STEP]] : f64
// CHECK:         [[BC1:%.+]] = arith.subf [[ONE]], [[B1P]] : f64
// CHECK:         [[SS:%.+]] = arith.divf [[RATE64]], [[BC1]] : f64
// CHECK:         [[NSS:%.+]] = arith.negf [[SS]] : f64
// CHECK:         [[NSS32:%.+]] = arith.truncf [[NSS]] : f64 to f32
// CHECK:         [[B2:%.+]] = arith.constant 0.99899999999999999 : f64
// CHECK:         [[B2P:%.+]] = math.powf [[B2]], [[STEP]] : f64
// CHECK:         [[BC2:%.+]] = arith.subf [[ONE]], [[B2P]] : f64
// CHECK:         [[BC2S:%.+]] = math.sqrt [[BC2]] : f64
// CHECK:         [[BC2S32:%.+]] = arith.truncf [[BC2S]] : f64 to f32
// CHECK:         [[WD:%.+]] = arith.constant 1.000000e-02 : f64
// CHECK:         [[LRWD:%.+]] = arith.mulf [[RATE64]], [[WD]] : f64
// CHECK:         [[KEEP:%.+]] = arith.subf [[ONE]], [[LRWD]] : f64
// CHECK:         [[KEEP32:%.+]] = arith.truncf [[KEEP]] : f64 to f32
// CHECK:         [[R:%.+]]:3 = linalg.generic {{.+}} ins([[W]], [[G]], [[M]], [[V]] : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0([[P:%.+]]: bf16, [[GR:%.+]]: bf16, [[MI:%.+]]: f32, [[VI:%.+]]: f32, %{{.+}}: bf16, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[PW:%.+]] = arith.extf [[P]] : bf16 to f32
// CHECK-NEXT:      [[GW:%.+]] = arith.extf [[GR]] : bf16 to f32
// CHECK-NEXT:      [[PD:%.+]] = arith.mulf [[PW]], [[KEEP32]] : f32
// CHECK-NEXT:      [[OMB1:%.+]] = arith.constant 1.000000e-01 : f32
// CHECK-NEXT:      [[T1:%.+]] = arith.mulf [[OMB1]], [[GW]] : f32
// CHECK-NEXT:      [[B1F:%.+]] = arith.constant 0.899999976 : f32
// CHECK-NEXT:      [[T2:%.+]] = arith.mulf [[B1F]], [[MI]] : f32
// CHECK-NEXT:      [[NM:%.+]] = arith.addf [[T2]], [[T1]] : f32
// CHECK-NEXT:      [[OMB2:%.+]] = arith.constant 1.000000e-03 : f32
// CHECK-NEXT:      [[T3:%.+]] = arith.mulf [[OMB2]], [[GW]] : f32
// CHECK-NEXT:      [[T4:%.+]] = arith.mulf [[T3]], [[GW]] : f32
// CHECK-NEXT:      [[B2F:%.+]] = arith.constant 9.990000e-01 : f32
// CHECK-NEXT:      [[T5:%.+]] = arith.mulf [[B2F]], [[VI]] : f32
// CHECK-NEXT:      [[NV:%.+]] = arith.addf [[T5]], [[T4]] : f32
// CHECK-NEXT:      [[EPS:%.+]] = arith.constant 9.99999993E-9 : f32
// CHECK-NEXT:      [[SQ:%.+]] = math.sqrt [[NV]] : f32
// CHECK-NEXT:      [[SQC:%.+]] = arith.divf [[SQ]], [[BC2S32]] : f32
// CHECK-NEXT:      [[DEN:%.+]] = arith.addf [[SQC]], [[EPS]] : f32
// CHECK-NEXT:      [[NUM:%.+]] = arith.mulf [[NSS32]], [[NM]] : f32
// CHECK-NEXT:      [[UPD:%.+]] = arith.divf [[NUM]], [[DEN]] : f32
// CHECK-NEXT:      [[NP:%.+]] = arith.addf [[PD]], [[UPD]] : f32
// CHECK-NEXT:      [[NPB:%.+]] = arith.truncf [[NP]] : f32 to bf16
// CHECK-NEXT:      linalg.yield [[NPB]], [[NM]], [[NV]] : bf16, f32, f32
// CHECK:         return [[R]]#0, [[R]]#1, [[R]]#2
func.func @adamw_bf16(%w: tensor<4x8xbf16>, %g: tensor<4x8xbf16>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w2, %m2, %v2 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adamw<weight_decay = 1.0e-02>} : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>
  return %w2, %m2, %v2 : tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Adam with L2 weight decay: added to the gradient, no parameter decay.
// CHECK-LABEL: func.func @adam_l2(
// CHECK-NOT:     arith.constant 1.000000e-02 : f64
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0([[P:%.+]]: f32, [[GR:%.+]]: f32, [[MI:%.+]]: f32, [[VI:%.+]]: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[WD:%.+]] = arith.constant 0.00999999977 : f32
// CHECK-NEXT:      [[DECAY:%.+]] = arith.mulf [[WD]], [[P]] : f32
// CHECK-NEXT:      [[GD:%.+]] = arith.addf [[GR]], [[DECAY]] : f32
// CHECK:           arith.mulf %{{.+}}, [[GD]] : f32
// CHECK:           [[NP:%.+]] = arith.addf [[P]], %{{.+}} : f32
// CHECK-NEXT:      linalg.yield [[NP]], %{{.+}}, %{{.+}} : f32, f32, f32
func.func @adam_l2(%w: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>, %lr: tensor<f32>, %step: tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w2, %m2, %v2 = mixprec.adam_update %w, %g, %m, %v, %lr, %step {optimizer = #mixprec.adam<weight_decay = 1.0e-02>} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %w2, %m2, %v2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// select: one elementwise arith.select on the extracted condition;
// increment: a scalar addi.
// CHECK-LABEL: func.func @select_and_increment(
// CHECK-SAME:    [[C:%[^:]+]]: tensor<i1>, [[A:%[^:]+]]: tensor<4x3xf32>, [[B:%[^:]+]]: tensor<4x3xf32>, [[N:%[^:]+]]: tensor<i64>)
// CHECK:         [[COND:%.+]] = tensor.extract [[C]][] : tensor<i1>
// CHECK:         linalg.generic {{.*}} ins([[A]], [[B]] : tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:           [[PICK:%.+]] = arith.select [[COND]], %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      linalg.yield [[PICK]]
// CHECK:         [[COUNT:%.+]] = tensor.extract [[N]][] : tensor<i64>
// CHECK:         [[NEXT:%.+]] = arith.addi [[COUNT]], %c1_i64 : i64
// CHECK:         tensor.from_elements [[NEXT]] : tensor<i64>
func.func @select_and_increment(%c: tensor<i1>, %a: tensor<4x3xf32>, %b: tensor<4x3xf32>, %n: tensor<i64>) -> (tensor<4x3xf32>, tensor<i64>) {
  %r = mixprec.select %c, %a, %b : tensor<4x3xf32>
  %m = mixprec.increment %n : tensor<i64>
  return %r, %m : tensor<4x3xf32>, tensor<i64>
}
