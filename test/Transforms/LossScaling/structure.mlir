// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling | FileCheck %s
// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling="init-scale=1024 growth-factor=4 backoff-factor=0.25 growth-interval=10 hysteresis=2 min-scale=2 max-scale=4096" | FileCheck %s --check-prefix=OPTS
// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling="mode=static init-scale=128" | FileCheck %s --check-prefix=STATIC
// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=mode=none | FileCheck %s --check-prefix=NONE --implicit-check-not=mixprec.all_finite --implicit-check-not=mixprec.select --implicit-check-not=loss_scale --implicit-check-not=skipped --implicit-check-not=finite_gradients
// RUN: mixprec-opt %s -split-input-file --mixprec-autodiff --mixprec-loss-scaling=max-grad-norm=1.0 | FileCheck %s --check-prefix=CLIP

// SGD with momentum on a weight and a bias. Dynamic scaling (the default):
// the scaler's state is read at the top, the seed of the backward sweep is
// the scale, both gradients are unscaled by the FP32 reciprocal of the scale
// before one all_finite, every optimizer write (step count, parameters,
// momentum buffers) is selected against the old value, the scaler's state is
// updated and stored, and the step's report is written.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.linear %x, %w, %b : tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>

// The gradient function keeps its unscaled seed: only optimizer steps change.
// CHECK-LABEL: func.func @train_gradients(
// CHECK-NOT:     mixprec.read @train.loss_scale
// CHECK:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    mixprec.reshape [[SEED]] : tensor<f32> -> tensor<1x1xf32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         return

// CHECK-LABEL: func.func @train(
// CHECK-SAME:    %{{[^:]+}}: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
// CHECK-NEXT:    [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// CHECK-NEXT:    [[T:%.+]] = mixprec.read @train.loss_scale_tracker : tensor<i32>
// CHECK-NEXT:    [[H:%.+]] = mixprec.read @train.loss_scale_hysteresis : tensor<i32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[SCALED:%.+]] = mixprec.mul [[SEED]], [[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    mixprec.reshape [[SCALED]] : tensor<f32> -> tensor<1x1xf32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         [[GW:%.+]] = mixprec.matmul {{%[^,]+}}, %{{[^ ]+}} {transpose_lhs} : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[GB:%.+]] = mixprec.reduce_sum {{%[^ ]+}} {dims = array<i64: 0>} : tensor<2x4xf32>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[INV:%.+]] = mixprec.div [[ONE]], [[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[INVW:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[UW:%.+]] = mixprec.mul [[GW]], [[INVW]] : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK-NEXT:    [[INVB:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<4xf32>
// CHECK-NEXT:    [[UB:%.+]] = mixprec.mul [[GB]], [[INVB]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    [[OK:%[^,]+]], [[EACH:%.+]] = mixprec.all_finite [[UW]], [[UB]] : tensor<4x3xf32>, tensor<4xf32>
// CHECK-NEXT:    [[COUNT:%.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    [[NEXT:%.+]] = mixprec.increment [[COUNT]] : tensor<i64>
// CHECK-NEXT:    [[OLDC:%.+]] = mixprec.read @train.step_count : tensor<i64>
// CHECK-NEXT:    [[KEPTC:%.+]] = mixprec.select [[OK]], [[NEXT]], [[OLDC]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.step_count, [[KEPTC]] : tensor<i64>
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[MW:%.+]] = mixprec.read @train.w.momentum_buffer : tensor<4x3xf32>
// CHECK-NEXT:    [[NW:%[^,]+]], [[NMW:%.+]] = mixprec.sgd_update [[W]], [[UW]], [[LR]], [[MW]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01>} : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK-NEXT:    [[OLDW:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[KW:%.+]] = mixprec.select [[OK]], [[NW]], [[OLDW]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @w, [[KW]] : tensor<4x3xf32>
// CHECK-NEXT:    [[OLDMW:%.+]] = mixprec.read @train.w.momentum_buffer : tensor<4x3xf32>
// CHECK-NEXT:    [[KMW:%.+]] = mixprec.select [[OK]], [[NMW]], [[OLDMW]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @train.w.momentum_buffer, [[KMW]] : tensor<4x3xf32>
// CHECK-NEXT:    [[B:%.+]] = mixprec.read @b : tensor<4xf32>
// CHECK-NEXT:    [[MB:%.+]] = mixprec.read @train.b.momentum_buffer : tensor<4xf32>
// CHECK-NEXT:    [[NB:%[^,]+]], [[NMB:%.+]] = mixprec.sgd_update [[B]], [[UB]], [[LR]], [[MB]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    [[OLDB:%.+]] = mixprec.read @b : tensor<4xf32>
// CHECK-NEXT:    [[KB:%.+]] = mixprec.select [[OK]], [[NB]], [[OLDB]] : tensor<4xf32>
// CHECK-NEXT:    mixprec.assign @b, [[KB]] : tensor<4xf32>
// CHECK-NEXT:    [[OLDMB:%.+]] = mixprec.read @train.b.momentum_buffer : tensor<4xf32>
// CHECK-NEXT:    [[KMB:%.+]] = mixprec.select [[OK]], [[NMB]], [[OLDMB]] : tensor<4xf32>
// CHECK-NEXT:    mixprec.assign @train.b.momentum_buffer, [[KMB]] : tensor<4xf32>
// The defaults (growth 2, backoff 0.5, interval 2000, hysteresis 1, min 1,
// max 2^24) are the op's defaults, so no attribute is printed.
// CHECK-NEXT:    [[S2:%[^,]+]], [[T2:%[^,]+]], [[H2:%[^ ]+]] = mixprec.loss_scale_update [[S]], [[T]], [[H]], [[OK]]{{$}}
// CHECK-NEXT:    mixprec.assign @train.loss_scale, [[S2]] : tensor<f32>
// CHECK-NEXT:    mixprec.assign @train.loss_scale_tracker, [[T2]] : tensor<i32>
// CHECK-NEXT:    mixprec.assign @train.loss_scale_hysteresis, [[H2]] : tensor<i32>
// CHECK-NEXT:    [[TRUE:%.+]] = mixprec.constant dense<true> : tensor<i1>
// CHECK-NEXT:    [[FALSE:%.+]] = mixprec.constant dense<false> : tensor<i1>
// CHECK-NEXT:    [[SKIP:%.+]] = mixprec.select [[OK]], [[FALSE]], [[TRUE]] : tensor<i1>
// CHECK-NEXT:    mixprec.assign @train.skipped, [[SKIP]] : tensor<i1>
// CHECK-NEXT:    [[NSKIP:%.+]] = mixprec.read @train.skipped_steps : tensor<i64>
// CHECK-NEXT:    [[NSKIP1:%.+]] = mixprec.increment [[NSKIP]] : tensor<i64>
// CHECK-NEXT:    [[NSKIP2:%.+]] = mixprec.select [[OK]], [[NSKIP]], [[NSKIP1]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.skipped_steps, [[NSKIP2]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @train.finite_gradients, [[EACH]] : tensor<2xi1>
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// The scaler's buffers follow autodiff's, with their initializers: the
// scale 2^16, the tracker 0, the hysteresis counter at `hysteresis`; no
// step skipped yet, every gradient finite.
// CHECK-NEXT:  mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role step_count{{$}}
// CHECK-NEXT:  mixprec.buffer @train.w.momentum_buffer : tensor<4x3xf32> = #mixprec.zeros role moment{{$}}
// CHECK-NEXT:  mixprec.buffer @train.b.momentum_buffer : tensor<4xf32> = #mixprec.zeros role moment{{$}}
// CHECK-NEXT:  mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.constant<6.553600e+04> role loss_scale{{$}}
// CHECK-NEXT:  mixprec.buffer @train.loss_scale_tracker : tensor<i32> = #mixprec.zeros role loss_scale_tracker{{$}}
// CHECK-NEXT:  mixprec.buffer @train.loss_scale_hysteresis : tensor<i32> = #mixprec.constant<1.000000e+00> role loss_scale_hysteresis{{$}}
// CHECK-NEXT:  mixprec.buffer @train.skipped : tensor<i1> = #mixprec.zeros role skipped{{$}}
// CHECK-NEXT:  mixprec.buffer @train.skipped_steps : tensor<i64> = #mixprec.zeros role skipped_steps{{$}}
// CHECK-NEXT:  mixprec.buffer @train.finite_gradients : tensor<2xi1> = #mixprec.ones role finite_gradients{{$}}
// CHECK-NEXT:  }

// Options given on the command line reach the scaler's op and buffers.
// OPTS-LABEL: func.func @train(
// OPTS:         [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// OPTS:         mixprec.loss_scale_update [[S]], {{.*}} {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 10 : i64, hysteresis = 2 : i64, max_scale = 4.096000e+03 : f64, min_scale = 2.000000e+00 : f64}
// OPTS:         mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.constant<1.024000e+03> role loss_scale{{$}}
// OPTS-NEXT:    mixprec.buffer @train.loss_scale_tracker : tensor<i32> = #mixprec.zeros role loss_scale_tracker{{$}}
// OPTS-NEXT:    mixprec.buffer @train.loss_scale_hysteresis : tensor<i32> = #mixprec.constant<2.000000e+00> role loss_scale_hysteresis{{$}}

// mode=static: the scale is a constant; no scaler state and no
// loss_scale_update, but still the unscaling, the finite check, the guarded
// writes and the report.
// STATIC-LABEL: func.func @train(
// STATIC-NEXT:    [[S:%.+]] = mixprec.constant dense<1.280000e+02> : tensor<f32>
// STATIC-NOT:     mixprec.read @train.loss_scale
// STATIC:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// STATIC-NEXT:    mixprec.mul [[SEED]], [[S]] : tensor<f32>, tensor<f32>
// STATIC:         [[INV:%.+]] = mixprec.div {{%.+}}, [[S]] : tensor<f32>, tensor<f32>
// STATIC:         [[OK:%[^,]+]], [[EACH:%.+]] = mixprec.all_finite {{%[^,]+}}, {{%[^ ]+}} : tensor<4x3xf32>, tensor<4xf32>
// STATIC:         mixprec.select [[OK]], {{%[^,]+}}, {{%[^ ]+}} : tensor<i64>
// STATIC-NEXT:    mixprec.assign @train.step_count
// STATIC:         [[NW:%[^,]+]], [[NMW:%.+]] = mixprec.sgd_update
// STATIC-NEXT:    [[OLDW:%.+]] = mixprec.read @w : tensor<4x3xf32>
// STATIC-NEXT:    [[KW:%.+]] = mixprec.select [[OK]], [[NW]], [[OLDW]] : tensor<4x3xf32>
// STATIC-NEXT:    mixprec.assign @w, [[KW]] : tensor<4x3xf32>
// STATIC-NOT:     mixprec.loss_scale_update
// STATIC:         mixprec.assign @train.skipped
// STATIC:         mixprec.assign @train.skipped_steps
// STATIC-NEXT:    mixprec.assign @train.finite_gradients, [[EACH]] : tensor<2xi1>
// STATIC-NEXT:    return
// STATIC-NEXT:  }
// STATIC-NEXT:  mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role step_count{{$}}
// STATIC-NEXT:  mixprec.buffer @train.w.momentum_buffer : tensor<4x3xf32> = #mixprec.zeros role moment{{$}}
// STATIC-NEXT:  mixprec.buffer @train.b.momentum_buffer : tensor<4xf32> = #mixprec.zeros role moment{{$}}
// STATIC-NEXT:  mixprec.buffer @train.skipped : tensor<i1> = #mixprec.zeros role skipped{{$}}
// STATIC-NEXT:  mixprec.buffer @train.skipped_steps : tensor<i64> = #mixprec.zeros role skipped_steps{{$}}
// STATIC-NEXT:  mixprec.buffer @train.finite_gradients : tensor<2xi1> = #mixprec.ones role finite_gradients{{$}}
// STATIC-NEXT:  }

// mode=none: autodiff's step as it was (and, through --implicit-check-not,
// no scaling, check, select or scaler state anywhere in this file).
// NONE-LABEL: func.func @train(
// NONE:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// NONE-NEXT:    mixprec.reshape [[SEED]]
// NONE:         [[NEXT:%.+]] = mixprec.increment
// NONE-NEXT:    mixprec.assign @train.step_count, [[NEXT]] : tensor<i64>
// NONE:         [[NW:%[^,]+]], [[NMW:%.+]] = mixprec.sgd_update
// NONE-NEXT:    mixprec.assign @w, [[NW]] : tensor<4x3xf32>
// NONE-NEXT:    mixprec.assign @train.w.momentum_buffer, [[NMW]] : tensor<4x3xf32>

// max-grad-norm: after the finite check, PyTorch's clip_grad_norm_ on the
// unscaled gradients: the global L2 norm (sum of the squares of every
// gradient, sqrt), the coefficient min(1, max / (norm + 1e-6)), and the
// clipped gradients feed the updates.
// CLIP-LABEL: func.func @train(
// CLIP:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite [[UW:%[^,]+]], [[UB:%[^ ]+]] : tensor<4x3xf32>, tensor<4xf32>
// CLIP-NEXT:    [[SQW:%.+]] = mixprec.mul [[UW]], [[UW]] : tensor<4x3xf32>, tensor<4x3xf32>
// CLIP-NEXT:    [[SUMW:%.+]] = mixprec.reduce_sum [[SQW]] {dims = array<i64: 0, 1>} : tensor<4x3xf32>
// CLIP-NEXT:    [[SQB:%.+]] = mixprec.mul [[UB]], [[UB]] : tensor<4xf32>, tensor<4xf32>
// CLIP-NEXT:    [[SUMB:%.+]] = mixprec.reduce_sum [[SQB]] {dims = array<i64: 0>} : tensor<4xf32>
// CLIP-NEXT:    [[SUM:%.+]] = mixprec.add [[SUMW]], [[SUMB]] : tensor<f32>, tensor<f32>
// CLIP-NEXT:    [[NORM:%.+]] = mixprec.sqrt [[SUM]] : tensor<f32>
// CLIP-NEXT:    [[EPS:%.+]] = mixprec.constant dense<9.99999997E-7> : tensor<f32>
// CLIP-NEXT:    [[DEN:%.+]] = mixprec.add [[NORM]], [[EPS]] : tensor<f32>, tensor<f32>
// CLIP-NEXT:    [[MAX:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<f32>
// CLIP-NEXT:    [[RATIO:%.+]] = mixprec.div [[MAX]], [[DEN]] : tensor<f32>, tensor<f32>
// CLIP-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<f32>
// CLIP-NEXT:    [[COEF:%.+]] = mixprec.minimum [[ONE]], [[RATIO]] : tensor<f32>, tensor<f32>
// CLIP-NEXT:    [[COEFW:%.+]] = mixprec.broadcast [[COEF]] : tensor<f32> -> tensor<4x3xf32>
// CLIP-NEXT:    [[CW:%.+]] = mixprec.mul [[UW]], [[COEFW]] : tensor<4x3xf32>, tensor<4x3xf32>
// CLIP-NEXT:    [[COEFB:%.+]] = mixprec.broadcast [[COEF]] : tensor<f32> -> tensor<4xf32>
// CLIP-NEXT:    [[CB:%.+]] = mixprec.mul [[UB]], [[COEFB]] : tensor<4xf32>, tensor<4xf32>
// CLIP-NEXT:    mixprec.read @train.step_count
// CLIP-NEXT:    mixprec.increment
// CLIP:         mixprec.sgd_update {{%[^,]+}}, [[CW]], {{.*}} -> (tensor<4x3xf32>, tensor<4x3xf32>)
// CLIP:         mixprec.sgd_update {{%[^,]+}}, [[CB]], {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// CLIP:         mixprec.loss_scale_update

// -----

// AdamW, and a batch-norm-like buffer the forward assigns: that assign stays
// a plain assign (the forward ran, whatever the gradients are), while the
// parameter, both moments and the step count (which feeds adam_update) are
// guarded.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
mixprec.buffer @running : tensor<3xf32> = #mixprec.zeros
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %s = mixprec.read @running : tensor<3xf32>
  %r = mixprec.reduce_mean %x {dims = array<i64: 0>} : tensor<2x3xf32>
  %n = mixprec.add %s, %r : tensor<3xf32>, tensor<3xf32>
  mixprec.assign @running, %n : tensor<3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @step forward @loss optimizer #mixprec.adamw<>

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %{{[^:]+}}: tensor<2x3xf32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step} {
// CHECK-NEXT:    [[S:%.+]] = mixprec.read @step.loss_scale : tensor<f32>
// CHECK-NEXT:    [[T:%.+]] = mixprec.read @step.loss_scale_tracker : tensor<i32>
// CHECK-NEXT:    [[H:%.+]] = mixprec.read @step.loss_scale_hysteresis : tensor<i32>
// CHECK-NEXT:    mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[R:%.+]] = mixprec.read @running : tensor<3xf32>
// CHECK-NEXT:    [[MEAN:%.+]] = mixprec.reduce_mean
// CHECK-NEXT:    [[NR:%.+]] = mixprec.add [[R]], [[MEAN]] : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT:    mixprec.assign @running, [[NR]] : tensor<3xf32>
// CHECK-NOT:     mixprec.select
// CHECK:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    mixprec.mul [[SEED]], [[S]] : tensor<f32>, tensor<f32>
// CHECK:         [[G:%.+]] = mixprec.matmul {{.*}} -> tensor<4x3xf32>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[INV:%.+]] = mixprec.div [[ONE]], [[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[INVW:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[U:%.+]] = mixprec.mul [[G]], [[INVW]] : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK-NEXT:    [[OK:%[^,]+]], [[EACH:%.+]] = mixprec.all_finite [[U]] : tensor<4x3xf32>
// CHECK-NEXT:    [[COUNT:%.+]] = mixprec.read @step.step_count : tensor<i64>
// CHECK-NEXT:    [[NEXT:%.+]] = mixprec.increment [[COUNT]] : tensor<i64>
// CHECK-NEXT:    [[OLDC:%.+]] = mixprec.read @step.step_count : tensor<i64>
// CHECK-NEXT:    [[KEPTC:%.+]] = mixprec.select [[OK]], [[NEXT]], [[OLDC]] : tensor<i64>
// CHECK-NEXT:    mixprec.assign @step.step_count, [[KEPTC]] : tensor<i64>
// CHECK-NEXT:    [[W:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[M:%.+]] = mixprec.read @step.w.exp_avg : tensor<4x3xf32>
// CHECK-NEXT:    [[V:%.+]] = mixprec.read @step.w.exp_avg_sq : tensor<4x3xf32>
// CHECK-NEXT:    [[NW:%[^,]+]], [[NM:%[^,]+]], [[NV:%[^ ]+]] = mixprec.adam_update [[W]], [[U]], [[M]], [[V]], [[LR]], [[NEXT]] {optimizer = #mixprec.adamw<>} : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
// CHECK-NEXT:    [[OLDW:%.+]] = mixprec.read @w : tensor<4x3xf32>
// CHECK-NEXT:    [[KW:%.+]] = mixprec.select [[OK]], [[NW]], [[OLDW]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @w, [[KW]] : tensor<4x3xf32>
// CHECK-NEXT:    [[OLDM:%.+]] = mixprec.read @step.w.exp_avg : tensor<4x3xf32>
// CHECK-NEXT:    [[KM:%.+]] = mixprec.select [[OK]], [[NM]], [[OLDM]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @step.w.exp_avg, [[KM]] : tensor<4x3xf32>
// CHECK-NEXT:    [[OLDV:%.+]] = mixprec.read @step.w.exp_avg_sq : tensor<4x3xf32>
// CHECK-NEXT:    [[KV:%.+]] = mixprec.select [[OK]], [[NV]], [[OLDV]] : tensor<4x3xf32>
// CHECK-NEXT:    mixprec.assign @step.w.exp_avg_sq, [[KV]] : tensor<4x3xf32>
// CHECK-NEXT:    [[S2:%[^,]+]], [[T2:%[^,]+]], [[H2:%[^ ]+]] = mixprec.loss_scale_update [[S]], [[T]], [[H]], [[OK]]{{$}}
// CHECK-NEXT:    mixprec.assign @step.loss_scale, [[S2]] : tensor<f32>
// CHECK-NEXT:    mixprec.assign @step.loss_scale_tracker, [[T2]] : tensor<i32>
// CHECK-NEXT:    mixprec.assign @step.loss_scale_hysteresis, [[H2]] : tensor<i32>
// CHECK-NOT:     mixprec.assign @running
// CHECK:         mixprec.assign @step.skipped, {{%.+}} : tensor<i1>
// CHECK:         mixprec.assign @step.skipped_steps, {{%.+}} : tensor<i64>
// CHECK-NEXT:    mixprec.assign @step.finite_gradients, [[EACH]] : tensor<1xi1>
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-NEXT:  mixprec.buffer @step.step_count : tensor<i64> = #mixprec.zeros role step_count{{$}}
// CHECK-NEXT:  mixprec.buffer @step.w.exp_avg : tensor<4x3xf32> = #mixprec.zeros role moment{{$}}
// CHECK-NEXT:  mixprec.buffer @step.w.exp_avg_sq : tensor<4x3xf32> = #mixprec.zeros role moment{{$}}
// CHECK-NEXT:  mixprec.buffer @step.loss_scale : tensor<f32> = #mixprec.constant<6.553600e+04> role loss_scale{{$}}
// CHECK-NEXT:  mixprec.buffer @step.loss_scale_tracker : tensor<i32> = #mixprec.zeros role loss_scale_tracker{{$}}
// CHECK-NEXT:  mixprec.buffer @step.loss_scale_hysteresis : tensor<i32> = #mixprec.constant<1.000000e+00> role loss_scale_hysteresis{{$}}
// CHECK-NEXT:  mixprec.buffer @step.skipped : tensor<i1> = #mixprec.zeros role skipped{{$}}
// CHECK-NEXT:  mixprec.buffer @step.skipped_steps : tensor<i64> = #mixprec.zeros role skipped_steps{{$}}
// CHECK-NEXT:  mixprec.buffer @step.finite_gradients : tensor<1xi1> = #mixprec.ones role finite_gradients{{$}}

// STATIC-LABEL: func.func @step(
// STATIC:         mixprec.assign @running, {{%[^ ]+}} : tensor<3xf32>
// STATIC:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite
// STATIC:         mixprec.select [[OK]]
// STATIC-NEXT:    mixprec.assign @step.step_count
// STATIC-NOT:     mixprec.assign @running

// NONE-LABEL: func.func @step(
// NONE:         mixprec.assign @running
// NONE:         [[NW:%[^,]+]], [[NM:%[^,]+]], [[NV:%[^ ]+]] = mixprec.adam_update
// NONE-NEXT:    mixprec.assign @w, [[NW]]
// NONE-NEXT:    mixprec.assign @step.w.exp_avg, [[NM]]
// NONE-NEXT:    mixprec.assign @step.w.exp_avg_sq, [[NV]]

// -----

// A scalar parameter and plain SGD: the reciprocal multiplies the gradient
// without a broadcast, the one update result is guarded; clipping takes the
// square itself as the sum.

mixprec.parameter @t : tensor<f32> = #mixprec.ones
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %t = mixprec.read @t : tensor<f32>
  %s = mixprec.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32>
  %y = mixprec.mul %s, %t : tensor<f32>, tensor<f32>
  return %y : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>

// CHECK-LABEL: func.func @train(
// CHECK:         [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// CHECK:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed}
// CHECK-NEXT:    [[SCALED:%.+]] = mixprec.mul [[SEED]], [[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[G:%.+]] = mixprec.mul [[SCALED]], {{%[^ ]+}} : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[ONE:%.+]] = mixprec.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[INV:%.+]] = mixprec.div [[ONE]], [[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[U:%.+]] = mixprec.mul [[G]], [[INV]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[OK:%[^,]+]], [[EACH:%.+]] = mixprec.all_finite [[U]] : tensor<f32>
// CHECK:         [[T:%.+]] = mixprec.read @t : tensor<f32>
// CHECK-NEXT:    [[NT:%.+]] = mixprec.sgd_update [[T]], [[U]], {{%[^ ]+}} {optimizer = #mixprec.sgd<>} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    [[OLDT:%.+]] = mixprec.read @t : tensor<f32>
// CHECK-NEXT:    [[KT:%.+]] = mixprec.select [[OK]], [[NT]], [[OLDT]] : tensor<f32>
// CHECK-NEXT:    mixprec.assign @t, [[KT]] : tensor<f32>
// CHECK-NEXT:    mixprec.loss_scale_update
// CHECK:         mixprec.assign @train.finite_gradients, [[EACH]] : tensor<1xi1>

// CLIP-LABEL: func.func @train(
// CLIP:         {{%.+}}, {{%.+}} = mixprec.all_finite [[U:%[^ ]+]] : tensor<f32>
// CLIP-NEXT:    [[SQ:%.+]] = mixprec.mul [[U]], [[U]] : tensor<f32>, tensor<f32>
// CLIP-NEXT:    [[NORM:%.+]] = mixprec.sqrt [[SQ]] : tensor<f32>
// CLIP:         [[COEF:%.+]] = mixprec.minimum
// CLIP-NEXT:    [[C:%.+]] = mixprec.mul [[U]], [[COEF]] : tensor<f32>, tensor<f32>
// CLIP:         mixprec.sgd_update {{%[^,]+}}, [[C]], {{%[^ ]+}} {optimizer = #mixprec.sgd<>} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>

// -----

// Gradient accumulation: every micro-batch's seed is scaled, and the
// averaged gradient is unscaled and checked once.

mixprec.parameter @w : tensor<4x3xf32> = #mixprec.kaiming_uniform<seed = 1>
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %y = mixprec.matmul %x, %w {transpose_rhs} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %l = mixprec.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<> {accumulation_steps = 2}

// CHECK-LABEL: func.func @train(
// CHECK:         [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         [[SEED0:%.+]] = mixprec.constant {mixprec.loss_seed}
// CHECK-NEXT:    mixprec.mul [[SEED0]], [[S]] : tensor<f32>, tensor<f32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         [[SEED1:%.+]] = mixprec.constant {mixprec.loss_seed}
// CHECK-NEXT:    mixprec.mul [[SEED1]], [[S]] : tensor<f32>, tensor<f32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         [[SUM:%.+]] = mixprec.add {{%[^,]+}}, {{%[^ ]+}} : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK:         [[AVG:%.+]] = mixprec.mul [[SUM]], {{%[^ ]+}} : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK:         [[INV:%.+]] = mixprec.div {{%[^,]+}}, [[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:    [[INVW:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[U:%.+]] = mixprec.mul [[AVG]], [[INVW]] : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK-NEXT:    {{%[^,]+}}, {{%.+}} = mixprec.all_finite [[U]] : tensor<4x3xf32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         mixprec.sgd_update {{%[^,]+}}, [[U]], {{.*}} -> tensor<4x3xf32>
// CHECK-NOT:     mixprec.all_finite
// CHECK:         return
