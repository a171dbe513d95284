//===- KernelAssembler.h - PTX to a fatbin with the CUDA toolkit -*- C++
//-*-===//

#ifndef MIXPREC_TARGET_CUDA_KERNELASSEMBLER_H
#define MIXPREC_TARGET_CUDA_KERNELASSEMBLER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mixprec {

/// The PTX of one architecture, as the CUDA pipeline leaves it in a
/// `gpu.binary`.
struct KernelImage {
  std::string chip; // sm_80, sm_90, ...
  std::string ptx;
};

/// Every PTX object of every gpu.binary in `module`.
std::vector<KernelImage> collectKernelImages(mlir::ModuleOp module);

/// Assembles each PTX object with `ptxas -arch=<chip>` and bundles the
/// cubins (and the newest architecture's PTX, for GPUs newer than all of
/// them) into one fatbin with `fatbinary`, which replaces the objects of the
/// gpu.binary: the host code loads it with cuModuleLoadData, and the driver
/// picks the cubin of the GPU it runs on. Tools come from `cudaPath`/bin;
/// temporary files go to `workDir`. Errors name the failing tool and show
/// its output.
mlir::LogicalResult assembleKernels(mlir::ModuleOp module,
                                    llvm::StringRef cudaPath,
                                    llvm::StringRef workDir);

} // namespace mixprec

#endif // MIXPREC_TARGET_CUDA_KERNELASSEMBLER_H
