//===- Pipelines.h - mixprec's lowering pipelines ---------------*- C++ -*-===//

#ifndef MIXPREC_CONVERSION_PIPELINES_H
#define MIXPREC_CONVERSION_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mixprec {

struct CPUPipelineOptions
    : public mlir::PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize contractions (off: plain loops)"),
      llvm::cl::init(true)};
};

/// mixprec (with state already exposed as arguments) to the LLVM dialect:
/// linalg on tensors, tiled and vectorized contractions, bufferization with
/// caller-allocated results, loops, and LLVM. Public functions get C
/// interfaces (`_mlir_ciface_<name>`) taking inputs then outputs when they
/// carry `llvm.emit_c_interface`. Upstream passes must be registered.
void buildCPUPipeline(mlir::OpPassManager &pm,
                      const CPUPipelineOptions &options);

/// Registers --mixprec-cpu-pipeline.
void registerCPUPipeline();

} // namespace mixprec

#endif // MIXPREC_CONVERSION_PIPELINES_H
