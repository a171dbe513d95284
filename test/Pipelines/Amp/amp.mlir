// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=f16" | FileCheck %s --check-prefix=F16
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp | FileCheck %s --check-prefix=F16
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=bf16" | FileCheck %s --check-prefix=BF16 --implicit-check-not=mixprec.all_finite --implicit-check-not=loss_scale --implicit-check-not=mixprec.select --implicit-check-not=skipped --implicit-check-not=xf16
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=bf16 loss-scaling=dynamic" | FileCheck %s --check-prefix=BF16DYN --implicit-check-not=xf16
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=f16 init-scale=1024 growth-interval=10 hysteresis=2 max-grad-norm=1.0" | FileCheck %s --check-prefix=OPTS
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=f16 loss-scaling=static init-scale=1024" | FileCheck %s --check-prefix=STATIC
// RUN: mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=f16 loss-scaling=none" | FileCheck %s --check-prefix=NOSCALE --implicit-check-not=mixprec.all_finite --implicit-check-not=loss_scale --implicit-check-not=mixprec.select
// RUN: not mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=f8" 2>&1 | FileCheck %s --check-prefix=ERR-PRECISION
// RUN: not mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="loss-scaling=weird" 2>&1 | FileCheck %s --check-prefix=ERR-SCALING
// RUN: not mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="master-weights=half" 2>&1 | FileCheck %s --check-prefix=ERR-MASTER
// RUN: not mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=bf16 hysteresis=0" 2>&1 | FileCheck %s --check-prefix=ERR-HYST
// RUN: not mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="bogus=1" 2>&1 | FileCheck %s --check-prefix=ERR-NAME
// RUN: not mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="mode=static" 2>&1 | FileCheck %s --check-prefix=ERR-MODE
// RUN: not mixprec-opt %mixprec_src_root/examples/mlp.mlir --mixprec-amp="precision=f16 max-grad-norm=x" 2>&1 | FileCheck %s --check-prefix=ERR-FORWARDED

// --mixprec-amp on the digits MLP: autocast, autodiff, FP32 master weights,
// loss scaling, CSE and canonicalization in one option string.

// f16 (the default): f16 working copies of the FP32 parameters, the seed
// times the scale, FP32 gradients unscaled and checked once, guarded writes,
// the scaler's update and state.
// F16:       mixprec.parameter @fc1_weight : tensor<128x64xf32>
// F16-LABEL: func.func @train(
// F16-SAME:    [[X:%[^:]+]]: tensor<64x64xf32>, {{%[^:]+}}: tensor<64xi32>, [[LR:%[^:]+]]: tensor<f32>) -> tensor<f32> attributes {mixprec.optimizer_step}
// F16-DAG:     [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// F16-DAG:     [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// F16-DAG:     [[T:%.+]] = mixprec.read @train.loss_scale_tracker : tensor<i32>
// F16-DAG:     [[H:%.+]] = mixprec.read @train.loss_scale_hysteresis : tensor<i32>
// F16:         [[X16:%.+]] = mixprec.cast [[X]] {mixprec.autocast = "cast: for mixprec.linear (tensor_core)"} : tensor<64x64xf32> to tensor<64x64xf16>
// F16-NEXT:    [[W1:%.+]] = mixprec.read @fc1_weight : tensor<128x64xf32>
// F16-NEXT:    [[W1_16:%.+]] = mixprec.cast [[W1]] {mixprec.autocast = "cast: for mixprec.linear (tensor_core)"} : tensor<128x64xf32> to tensor<128x64xf16>
// F16:         mixprec.linear [[X16]], [[W1_16]], {{%[^ ]+}} {mixprec.autocast = "tensor_core"} : tensor<64x64xf16>, tensor<128x64xf16>, tensor<128xf16> -> tensor<64x128xf16>
// F16:         [[LOGITS:%.+]] = mixprec.linear {{.*}} -> tensor<64x10xf32>
// F16-NEXT:    [[LOSS:%.+]] = mixprec.softmax_cross_entropy [[LOGITS]]
// F16-NEXT:    [[SCALED:%.+]] = mixprec.mul [[SEED]], [[S]] : tensor<f32>, tensor<f32>
// F16-NEXT:    mixprec.softmax_cross_entropy_grad [[SCALED]], [[LOGITS]]
// F16-NOT:     mixprec.all_finite
// F16:         [[DW1:%.+]] = mixprec.matmul {{.*}} {transpose_lhs} : tensor<64x128xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
// F16:         [[DB1:%.+]] = mixprec.cast {{%[^ ]+}} : tensor<128xf16> to tensor<128xf32>
// F16:         [[INV:%.+]] = mixprec.div {{%[^,]+}}, [[S]] : tensor<f32>, tensor<f32>
// F16-NEXT:    [[INVW1:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<128x64xf32>
// F16-NEXT:    [[UW1:%.+]] = mixprec.mul [[DW1]], [[INVW1]] : tensor<128x64xf32>, tensor<128x64xf32>
// F16-NEXT:    [[INVB1:%.+]] = mixprec.broadcast [[INV]] : tensor<f32> -> tensor<128xf32>
// F16-NEXT:    [[UB1:%.+]] = mixprec.mul [[DB1]], [[INVB1]] : tensor<128xf32>, tensor<128xf32>
// F16:         [[OK:%[^,]+]], [[EACH:%.+]] = mixprec.all_finite [[UW1]], [[UB1]], {{%[^,]+}}, {{%[^ ]+}} : tensor<128x64xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>
// F16-NOT:     mixprec.all_finite
// F16:         [[NEXT:%.+]] = mixprec.increment
// F16-NEXT:    [[KC:%.+]] = mixprec.select [[OK]], [[NEXT]], {{%[^ ]+}} : tensor<i64>
// F16-NEXT:    mixprec.assign @train.step_count, [[KC]] : tensor<i64>
// F16-NEXT:    [[W:%.+]] = mixprec.read @fc1_weight : tensor<128x64xf32>
// F16-NEXT:    [[M:%.+]] = mixprec.read @train.fc1_weight.momentum_buffer : tensor<128x64xf32>
// F16-NEXT:    [[NW:%[^,]+]], [[NM:%.+]] = mixprec.sgd_update [[W]], [[UW1]], [[LR]], [[M]] {optimizer = #mixprec.sgd<momentum = 9.000000e-01>} : (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128x64xf32>)
// F16-NEXT:    [[KW:%.+]] = mixprec.select [[OK]], [[NW]], [[W]] : tensor<128x64xf32>
// F16-NEXT:    mixprec.assign @fc1_weight, [[KW]] : tensor<128x64xf32>
// F16-NEXT:    [[OLDM:%.+]] = mixprec.read @train.fc1_weight.momentum_buffer : tensor<128x64xf32>
// F16-NEXT:    [[KM:%.+]] = mixprec.select [[OK]], [[NM]], [[OLDM]] : tensor<128x64xf32>
// F16-NEXT:    mixprec.assign @train.fc1_weight.momentum_buffer, [[KM]] : tensor<128x64xf32>
// F16:         mixprec.assign @fc2_bias, {{%[^ ]+}} : tensor<10xf32>
// F16:         [[S2:%[^,]+]], [[T2:%[^,]+]], [[H2:%[^ ]+]] = mixprec.loss_scale_update [[S]], [[T]], [[H]], [[OK]]{{$}}
// F16-NEXT:    mixprec.assign @train.loss_scale, [[S2]] : tensor<f32>
// F16-NEXT:    mixprec.assign @train.loss_scale_tracker, [[T2]] : tensor<i32>
// F16-NEXT:    mixprec.assign @train.loss_scale_hysteresis, [[H2]] : tensor<i32>
// F16:         mixprec.assign @train.skipped, {{%[^ ]+}} : tensor<i1>
// F16:         mixprec.assign @train.skipped_steps, {{%[^ ]+}} : tensor<i64>
// F16-NEXT:    mixprec.assign @train.finite_gradients, [[EACH]] : tensor<4xi1>
// F16-NEXT:    return [[LOSS]] : tensor<f32>
// F16:         mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.constant<6.553600e+04>
// F16-NEXT:    mixprec.buffer @train.loss_scale_tracker : tensor<i32> = #mixprec.zeros
// F16-NEXT:    mixprec.buffer @train.loss_scale_hysteresis : tensor<i32> = #mixprec.constant<1.000000e+00>
// F16-NEXT:    mixprec.buffer @train.skipped : tensor<i1> = #mixprec.zeros
// F16-NEXT:    mixprec.buffer @train.skipped_steps : tensor<i64> = #mixprec.zeros
// F16-NEXT:    mixprec.buffer @train.finite_gradients : tensor<4xi1> = #mixprec.ones

// bf16: bf16 working copies and no loss scaling by default (no scaled seed,
// no check, no select, no scaler state: see the implicit CHECK-NOTs).
// BF16-LABEL: func.func @train(
// BF16:         [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// BF16:         mixprec.cast %{{[^ ]+}} {mixprec.autocast = "cast: for mixprec.linear (tensor_core)"} : tensor<64x64xf32> to tensor<64x64xbf16>
// BF16:         mixprec.cast %{{[^ ]+}} {mixprec.autocast = "cast: for mixprec.linear (tensor_core)"} : tensor<128x64xf32> to tensor<128x64xbf16>
// BF16:         mixprec.linear {{.*}} : tensor<64x64xbf16>, tensor<128x64xbf16>, tensor<128xbf16> -> tensor<64x128xbf16>
// BF16:         mixprec.softmax_cross_entropy_grad [[SEED]],
// BF16:         [[NEXT:%.+]] = mixprec.increment
// BF16-NEXT:    mixprec.assign @train.step_count, [[NEXT]] : tensor<i64>
// BF16:         [[NW:%[^,]+]], [[NM:%.+]] = mixprec.sgd_update {{.*}} -> (tensor<128x64xf32>, tensor<128x64xf32>)
// BF16-NEXT:    mixprec.assign @fc1_weight, [[NW]] : tensor<128x64xf32>
// BF16-NEXT:    mixprec.assign @train.fc1_weight.momentum_buffer, [[NM]] : tensor<128x64xf32>
// BF16:         return

// bf16 with loss-scaling=dynamic asked for.
// BF16DYN-LABEL: func.func @train(
// BF16DYN-DAG:     [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// BF16DYN-DAG:     [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// BF16DYN:         mixprec.cast %{{[^ ]+}} {mixprec.autocast = "cast: for mixprec.linear (tensor_core)"} : tensor<128x64xf32> to tensor<128x64xbf16>
// BF16DYN:         [[SCALED:%.+]] = mixprec.mul [[SEED]], [[S]] : tensor<f32>, tensor<f32>
// BF16DYN-NEXT:    mixprec.softmax_cross_entropy_grad [[SCALED]],
// BF16DYN:         mixprec.matmul {{.*}} : tensor<64x128xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
// BF16DYN:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite {{.*}} : tensor<128x64xf32>, tensor<128xf32>, tensor<10x128xf32>, tensor<10xf32>
// BF16DYN:         mixprec.select [[OK]]
// BF16DYN:         mixprec.loss_scale_update [[S]], {{%[^,]+}}, {{%[^,]+}}, [[OK]]
// BF16DYN:         mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.constant<6.553600e+04>

// The scaler's options flow through to the pass.
// OPTS-LABEL: func.func @train(
// OPTS:         [[S:%.+]] = mixprec.read @train.loss_scale : tensor<f32>
// OPTS:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite
// OPTS:         mixprec.sqrt
// OPTS:         mixprec.minimum
// OPTS:         mixprec.loss_scale_update [[S]], {{%[^,]+}}, {{%[^,]+}}, [[OK]] {growth_interval = 10 : i64, hysteresis = 2 : i64}
// OPTS:         mixprec.buffer @train.loss_scale : tensor<f32> = #mixprec.constant<1.024000e+03>
// OPTS-NEXT:    mixprec.buffer @train.loss_scale_tracker : tensor<i32> = #mixprec.zeros
// OPTS-NEXT:    mixprec.buffer @train.loss_scale_hysteresis : tensor<i32> = #mixprec.constant<2.000000e+00>

// STATIC-LABEL: func.func @train(
// STATIC-DAG:     [[SEED:%.+]] = mixprec.constant {mixprec.loss_seed} dense<1.000000e+00> : tensor<f32>
// STATIC-DAG:     [[S:%.+]] = mixprec.constant dense<1.024000e+03> : tensor<f32>
// STATIC:         mixprec.mul [[SEED]], [[S]] : tensor<f32>, tensor<f32>
// STATIC:         [[OK:%[^,]+]], {{%.+}} = mixprec.all_finite
// STATIC-NOT:     mixprec.loss_scale_update
// STATIC:         mixprec.assign @train.skipped
// STATIC-NOT:     mixprec.buffer @train.loss_scale

// f16 without loss scaling: autocast and autodiff only.
// NOSCALE-LABEL: func.func @train(
// NOSCALE:         mixprec.cast {{.*}} to tensor<128x64xf16>
// NOSCALE:         [[NW:%[^,]+]], {{%.+}} = mixprec.sgd_update {{.*}} -> (tensor<128x64xf32>, tensor<128x64xf32>)
// NOSCALE-NEXT:    mixprec.assign @fc1_weight, [[NW]] : tensor<128x64xf32>

// A value outside an enum option's values is refused by the option parser;
// the loss-scaling pass reports its own bad option, at the module's location.
// ERR-PRECISION: mixprec-opt: for the --precision option: 'f8' is not one of f16, bf16{{$}}
// ERR-SCALING:   mixprec-opt: for the --loss-scaling option: 'weird' is not one of default, dynamic, static, none{{$}}
// ERR-MASTER:    mixprec-opt: for the --master-weights option: 'half' is not one of fp32, none{{$}}
// ERR-HYST:      examples/mlp.mlir:{{[0-9]+}}:{{[0-9]+}}: error: mixprec-loss-scaling: hysteresis must be in [1, 2^31), got 0{{$}}
// ERR-NAME:      no such option bogus
// ERR-MODE:      no such option mode (the loss-scaling mode is loss-scaling=)
// ERR-FORWARDED: mixprec-opt: for the --max-grad-norm option: 'x' value invalid for floating point argument!
