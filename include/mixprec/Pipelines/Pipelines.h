//===- Pipelines.h - mixprec's lowering pipelines ---------------*- C++ -*-===//

#ifndef MIXPREC_PIPELINES_PIPELINES_H
#define MIXPREC_PIPELINES_PIPELINES_H

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
  Option<bool> libraryContractions{
      *this, "library-contractions",
      llvm::cl::desc("Compute f32 and bf16 contractions with the CPU "
                     "runtime's GEMMs (oneDNN, on the model's threads) instead "
                     "of register tiles of generated code"),
      llvm::cl::init(true)};
  Option<bool> convGemms{
      *this, "conv-gemms",
      llvm::cl::desc("Lower convolutions with 8 or more output channels per "
                     "group and window elements to im2col copies and GEMMs "
                     "(false: one loop nest over the windows, summed as the "
                     "CUDA backend sums them)"),
      llvm::cl::init(true)};
  Option<bool> bf16DotProducts{
      *this, "bf16-dot-products",
      llvm::cl::desc("Run the runtime's bf16 GEMMs on the CPU's bf16 "
                     "dot-product instructions where it has them (false: "
                     "widened to f32, summed in k order as on the GPU)"),
      llvm::cl::init(true)};
  Option<bool> expandMath{
      *this, "expand-math",
      llvm::cl::desc("Compute f32 exp and erf with arithmetic that "
                     "vectorizes (--mixprec-expand-math; false: libm's expf "
                     "and erff)"),
      llvm::cl::init(true)};
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
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Reuse buffers: dead inputs' for elementwise results, "
                     "dead temporaries' bytes in the workspace (off: each "
                     "buffer its own, to compare results against)"),
      llvm::cl::init(true)};
  Option<bool> narrowApart{
      *this, "narrow-apart",
      llvm::cl::desc("Leave a narrowing cast apart from the elementwise op "
                     "computing its operand when that op can write over a "
                     "dead input (--mixprec-fuse-elementwise; memory over "
                     "speed, for a memory budget)"),
      llvm::cl::init(false)};
  Option<bool> memoryReport{
      *this, "memory-report",
      llvm::cl::desc("Print what each function's calls hold, from the "
                     "memory plan (--mixprec-memory-report)"),
      llvm::cl::init(false)};
  Option<std::string> memoryReportJson{
      *this, "memory-report-json",
      llvm::cl::desc("Write the memory report as JSON to this file"),
      llvm::cl::init("")};
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

struct CUDAPipelineOptions
    : public mlir::PassPipelineOptions<CUDAPipelineOptions> {
  ListOption<std::string> chips{
      *this, "chips",
      llvm::cl::desc("GPU architectures to build kernels for (sm_80, sm_90, "
                     "sm_90a); one PTX object each")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose libdevice the kernels link"),
      llvm::cl::init("/usr/local/cuda")};
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of elementwise and reduction kernels"),
      llvm::cl::init(256)};
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Reuse buffers: dead inputs' for elementwise results, "
                     "dead temporaries' bytes in the workspace (off: each "
                     "buffer its own, to compare results against)"),
      llvm::cl::init(true)};
  Option<bool> narrowApart{
      *this, "narrow-apart",
      llvm::cl::desc("Leave a narrowing cast apart from the elementwise op "
                     "computing its operand when that op can write over a "
                     "dead input (--mixprec-fuse-elementwise; memory over "
                     "speed, for a memory budget)"),
      llvm::cl::init(false)};
  Option<bool> memoryReport{
      *this, "memory-report",
      llvm::cl::desc("Print what each function's calls hold, from the "
                     "memory plan (--mixprec-memory-report)"),
      llvm::cl::init(false)};
  Option<std::string> memoryReportJson{
      *this, "memory-report-json",
      llvm::cl::desc("Write the memory report as JSON to this file"),
      llvm::cl::init("")};
};

/// The architectures --target=cuda builds for, with the PTX version each
/// needs (mma.sync m16n8k16 bf16 wants sm_80 and PTX 7.0; sm_90a's
/// features PTX 8.0). Null when `chip` is not one of them.
const char *ptxFeaturesFor(llvm::StringRef chip);

/// mixprec (state exposed as arguments) to host code in the LLVM dialect
/// plus one `gpu.binary @kernels` holding a PTX object per chip: 16-bit
/// contractions as tensor-core kernels, everything else as elementwise or
/// single-thread kernels, buffers on the device, launches on one stream.
/// The chips must have been checked with ptxFeaturesFor.
void buildCUDAPipeline(mlir::OpPassManager &pm,
                       const CUDAPipelineOptions &options);

/// Registers --mixprec-cuda-pipeline.
void registerCUDAPipeline();

} // namespace mixprec

#endif // MIXPREC_PIPELINES_PIPELINES_H
