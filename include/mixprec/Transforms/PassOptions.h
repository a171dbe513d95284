//===- PassOptions.h - the value sets of the passes' options ----*- C++ -*-===//
//
// The enums behind the passes' typed options (Passes.td names their values
// with cl::values, so a bad value is refused by the option parser) and the
// --mixprec-amp pipeline, which takes the same values.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TRANSFORMS_PASSOPTIONS_H
#define MIXPREC_TRANSFORMS_PASSOPTIONS_H

namespace mixprec {

/// The 16-bit type autocast gives tensor-core ops (precision=f16|bf16).
enum class AutocastPrecision { F16, BF16 };

/// Which ops autocast may change (level=all|tensor-core-only).
enum class AutocastLevel { All, TensorCoreOnly };

/// How parameters are stored (--mixprec-master-weights mode=fp32|none).
enum class MasterWeightsMode { FP32, None };

/// How the loss scale evolves (--mixprec-loss-scaling
/// mode=dynamic|static|none).
enum class LossScalingMode { Dynamic, Static, None };

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_PASSOPTIONS_H
