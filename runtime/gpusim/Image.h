//===- Image.h - the PTX inside a module image ------------------*- C++ -*-===//

#ifndef MIXPREC_GPUSIM_IMAGE_H
#define MIXPREC_GPUSIM_IMAGE_H

#include <string>

namespace gpusim {

/// What cuModuleLoadData was given: a fatbin (its newest PTX entry is
/// taken), PTX text, or something the simulator cannot run.
enum class ImageKind { Ptx, CompressedPtx, CubinOnly, Unknown };

/// Finds the PTX of `image`: a fatbin (magic 0xba55ed50) or a NUL-terminated
/// PTX text. Fatbins must hold their PTX uncompressed (mixprec-compile runs
/// fatbinary with --compress=false).
ImageKind extractPtx(const void *image, std::string &ptx);

} // namespace gpusim

#endif // MIXPREC_GPUSIM_IMAGE_H
