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
      llvm::cl::desc("Tile and vectorize contractions (off: plain loop "
                     "nests, the baseline of bench/bench_cpu.py)"),
      llvm::cl::init(true)};
  Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("CPU the code is for (native: this machine); picks the "
                     "register tile sizes unless they are given"),
      llvm::cl::init("native")};
  Option<int64_t> tileM{
      *this, "tile-m",
      llvm::cl::desc("Register tile rows of contractions (0: by the CPU's "
                     "vector registers)"),
      llvm::cl::init(0)};
  Option<int64_t> tileN{
      *this, "tile-n",
      llvm::cl::desc("Register tile columns of contractions (0: by the "
                     "CPU's vector registers)"),
      llvm::cl::init(0)};
  Option<int64_t> tileK{
      *this, "tile-k",
      llvm::cl::desc("Reduction steps per register tile (0: 1)"),
      llvm::cl::init(0)};
};

/// The register tile (m, n, k) of contractions for `cpu` ("native": this
/// machine): as many accumulator registers as leave room for the operands.
/// 512-bit vectors (AVX-512 without a 256-bit preference): 8x32 f32 (16
/// zmm); 256-bit (AVX, AVX2): 6x16 (12 ymm); otherwise 6x8 (12 xmm).
struct RegisterTile {
  int64_t m, n, k;
};
RegisterTile chooseRegisterTile(llvm::StringRef cpu);

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
