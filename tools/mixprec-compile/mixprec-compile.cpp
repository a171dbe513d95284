//===- mixprec-compile.cpp - a mixprec model to a native library ----------===//
//
//   mixprec-compile model.mlir --target=cpu -o libmodel.so
//   mixprec-compile model.mlir --target=cuda --arch=sm_80,sm_90 -o libmodel.so
//
// lowers every public function of the model, emits an optimized object file,
// generates the C ABI over it (mixprec/Runtime/mixprec.h) and links a shared
// library that needs only libc, libm and libgcc (and, for CUDA, libdl: the
// driver is opened at run time). For CUDA the kernels are PTX from MLIR's
// NVVM path, assembled by ptxas for each --arch and bundled by fatbinary
// into the library. A header describing the model's functions is written
// next to the library.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/ModelABI/ModelABI.h"
#include "mixprec/ModelABI/SourceNames.h"
#include "mixprec/Pipelines/AmpPipeline.h"
#include "mixprec/Pipelines/Pipelines.h"
#include "mixprec/Target/CPU/ObjectEmitter.h"
#include "mixprec/Target/CUDA/KernelAssembler.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

// --help lists these; LLVM's and MLIR's own options are hidden.
static cl::OptionCategory compileCategory("mixprec-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::init("-"), cl::cat(compileCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("path"),
                                       cl::init("libmodel.so"),
                                       cl::cat(compileCategory));
static cl::opt<std::string> target("target", cl::desc("Backend: cpu or cuda"),
                                   cl::init("cpu"), cl::cat(compileCategory));
static cl::list<std::string>
    archs("arch",
          cl::desc("GPU architectures for --target=cuda: sm_80, sm_90, sm_90a "
                   "(several, comma-separated, make a fatbin)"),
          cl::CommaSeparated, cl::cat(compileCategory));
static cl::opt<int64_t> blockSize(
    "block-size",
    cl::desc("For --target=cuda: threads per block of the kernels other "
             "than GEMMs, 1 to 1024 (default 256; results do not depend on "
             "it)"),
    cl::init(256), cl::cat(compileCategory));
static cl::opt<std::string> cudaPath(
    "cuda-path", cl::desc("CUDA toolkit (ptxas, fatbinary, libdevice)"),
    cl::init(getenv("CUDA_PATH") ? getenv("CUDA_PATH") : "/usr/local/cuda"),
    cl::cat(compileCategory));
enum class Emit { Library, Object, LLVMIR, MLIR, PTX };
static cl::opt<Emit, false, mixprec::EnumOptionParser<Emit>> emit(
    "emit", cl::desc("What to write"), cl::init(Emit::Library),
    cl::values(clEnumValN(Emit::Library, "library", "a shared library"),
               clEnumValN(Emit::Object, "object", "the model's object file"),
               clEnumValN(Emit::LLVMIR, "llvm", "optimized LLVM IR"),
               clEnumValN(Emit::MLIR, "mlir", "the lowered LLVM dialect"),
               clEnumValN(Emit::PTX, "ptx",
                          "the kernels' PTX (--target=cuda, one --arch)")),
    cl::cat(compileCategory));
static cl::opt<std::string>
    cpu("cpu", cl::desc("CPU to generate code for (native: this machine)"),
        cl::init("native"), cl::cat(compileCategory));
static cl::opt<bool>
    vectorize("vectorize",
              cl::desc("Tile and vectorize contractions (=false: plain loop "
                       "nests)"),
              cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> convGemms(
    "conv-gemms",
    cl::desc("Convolutions as im2col copies and GEMMs on the CPU (=false: "
             "loop nests over the windows, which sum as the GPU does)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> bf16DotProducts(
    "bf16-dot-products",
    cl::desc("bf16 contractions on the CPU's bf16 dot-product instructions "
             "where it has them (=false: widened to f32 and summed in k "
             "order, the order of the GPU's tensor cores)"),
    cl::init(true), cl::cat(compileCategory));
enum class Autocast { None, F16, BF16 };
static cl::opt<Autocast, false, mixprec::EnumOptionParser<Autocast>> autocast(
    "autocast", cl::desc("Run --mixprec-autocast first"),
    cl::init(Autocast::None),
    cl::values(clEnumValN(Autocast::None, "none", "no autocast (default)"),
               clEnumValN(Autocast::F16, "f16", "precision=f16"),
               clEnumValN(Autocast::BF16, "bf16", "precision=bf16")),
    cl::cat(compileCategory));
static cl::opt<bool>
    autodiff("autodiff",
             cl::desc("Add @<step>_gradients for each train step "
                      "(--mixprec-autodiff) after autocast"),
             cl::init(false), cl::cat(compileCategory));
static cl::opt<std::string>
    amp("amp",
        cl::desc("Mixed-precision training: the --mixprec-amp pipeline with "
                 "these options (\"precision=f16 loss-scaling=dynamic ...\"; "
                 "\"\" for its defaults); replaces --autocast and --autodiff"),
        cl::ValueOptional, cl::init("none"), cl::cat(compileCategory));
static cl::opt<bool> memoryReport(
    "memory-report",
    cl::desc("Print what each function's calls hold, from the memory plan "
             "the code uses (--mixprec-memory-report), and the model's "
             "state, on stderr"),
    cl::init(false), cl::cat(compileCategory));
static cl::opt<std::string> memoryReportJson(
    "memory-report-json",
    cl::desc("Also write the memory report as JSON to this file (prints it "
             "as --memory-report does)"),
    cl::value_desc("path"), cl::init(""), cl::cat(compileCategory));
static cl::opt<int64_t> memoryBudget(
    "memory-budget",
    cl::desc("The most bytes a call of a train step may hold, as its memory "
             "plan counts them (inputs, outputs, workspace): forward values "
             "are recomputed in the backward until the plan fits, or the "
             "compile fails with the least it can reach (0: no budget)"),
    cl::value_desc("bytes"), cl::init(0), cl::cat(compileCategory));
static cl::opt<bool> planMemory(
    "plan-memory",
    cl::desc("Plan memory: recompute in the backward what AMP would save "
             "twice, schedule state updates and values where they are "
             "read, reuse dead buffers (=false: each buffer its own, in "
             "program order, to compare results against)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<std::string>
    headerFile("header", cl::desc("Header to write (default: beside -o)"),
               cl::init(""), cl::cat(compileCategory));
static cl::opt<std::string>
    cCompiler("cc", cl::desc("C compiler that links the library"),
              cl::init("cc"), cl::cat(compileCategory));

static int fail(const Twine &message) {
  llvm::errs() << "mixprec-compile: error: " << message << "\n";
  return 1;
}

/// Runs the C compiler `cCompiler` with `args` (after its own name).
static int runCompiler(ArrayRef<StringRef> args, const Twine &what) {
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName(cCompiler);
  if (!cc)
    return fail("cannot find the C compiler '" + cCompiler + "'");
  SmallVector<StringRef> argv = {*cc};
  argv.append(args.begin(), args.end());
  std::string error;
  int status =
      llvm::sys::ExecuteAndWait(*cc, argv, std::nullopt, {}, 0, 0, &error);
  if (status != 0)
    return fail(what + " failed" + (error.empty() ? "" : ": " + error));
  return 0;
}

/// Compiles the generated ABI source and links it with the model's objects
/// and the model runtime (and the CUDA runtime) into `output`.
static int linkLibrary(ArrayRef<std::string> objects, StringRef abiSource,
                       StringRef output, StringRef workDir, bool cuda) {
  SmallString<128> abiPath(workDir);
  llvm::sys::path::append(abiPath, "model_abi.c");
  std::string error;
  auto abiFile = openOutputFile(abiPath, &error);
  if (!abiFile)
    return fail(error);
  abiFile->os() << abiSource;
  abiFile->keep();
  abiFile.reset();

  // The generated source is tables and straight-line glue that runs once
  // per call; -O2's cost grows faster than its size (20 s for a 12-layer
  // train step's 1,800 tensors) and buys nothing measurable.
  SmallVector<StringRef> args = {"-shared",
                                 "-fPIC",
                                 "-O0",
                                 "-I" MIXPREC_INCLUDE_DIR,
                                 "-I" MIXPREC_RUNTIME_SOURCE_DIR,
                                 "-I" MIXPREC_RUNTIME_SOURCE_DIR "/cuda",
                                 "-o",
                                 output,
                                 abiPath};
  args.append(objects.begin(), objects.end());
  // The runtimes define the exported ABI and the host code's GPU calls.
  args.append({"-Wl,--whole-archive", MIXPREC_MODEL_RUNTIME_LIBRARY});
  if (cuda)
    args.append(
        {MIXPREC_CUDA_RUNTIME_LIBRARY, "-Wl,--no-whole-archive", "-ldl"});
  else
    args.append({"-Wl,--no-whole-archive", MIXPREC_CPU_RUNTIME_LIBRARY});
  args.push_back("-lm");
  return runCompiler(args, "linking " + output);
}

/// Joins `objects` into the one relocatable object `output`.
static int joinObjects(ArrayRef<std::string> objects, StringRef output) {
  SmallVector<StringRef> args = {"-r", "-nostdlib", "-o", output};
  args.append(objects.begin(), objects.end());
  return runCompiler(args, "writing " + output);
}

/// The model's state by what it holds: what a trainer allocates once.
static void printStateMemory(ArrayRef<mixprec::StateSpec> state) {
  int64_t parameters = 0, optimizer = 0, buffers = 0;
  for (const mixprec::StateSpec &spec : state) {
    int64_t bytes = int64_t(mixprec::bytesOf(spec.tensor));
    if (spec.role == MIXPREC_STATE_PARAMETER)
      parameters += bytes;
    else if (spec.role == MIXPREC_STATE_BUFFER)
      buffers += bytes;
    else
      optimizer += bytes;
  }
  llvm::errs() << "model state, held once by a trainer: "
               << parameters + optimizer + buffers << " bytes (parameters "
               << parameters << ", optimizer and loss-scale state " << optimizer
               << ", buffers " << buffers << ")\n";
}

/// Applies the command line's pass-manager options (timing under `stage`,
/// --mlir-print-ir-*, ...) to a pass manager.
using Configure =
    llvm::function_ref<LogicalResult(PassManager &, TimingScope &)>;

/// `module`, after the training passes, with its state exposed and lowered
/// for the target, with the memory report --memory-report and
/// --memory-report-json ask for when `report`: the ABI signatures of its
/// public functions, their lowered layout read back.
static FailureOr<std::vector<mixprec::FunctionSignature>>
lowerModel(ModuleOp module, ArrayRef<std::string> trainSteps, bool report,
           TimingScope &timing, Configure configure) {
  MLIRContext *context = module.getContext();
  TimingScope exposeTiming = timing.nest("Expose state");
  PassManager expose(context);
  if (failed(configure(expose, exposeTiming)))
    return failure();
  expose.addPass(mixprec::createMixprecExposeState());
  expose.addPass(mixprec::createMixprecCheckIndices());
  // As the pipelines: the state is updated in place, the caller's on the
  // CPU and the device's on CUDA.
  expose.addNestedPass<func::FuncOp>(mixprec::createMixprecGuardStateUpdates());
  if (failed(expose.run(module)))
    return failure();
  FailureOr<std::vector<mixprec::FunctionSignature>> signatures =
      mixprec::collectSignatures(module);
  if (failed(signatures))
    return failure();
  for (mixprec::FunctionSignature &signature : *signatures)
    signature.trainStep = llvm::is_contained(trainSteps, signature.name);
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!function.isPublic() || function.isExternal())
      continue;
    function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(context));
    // A public function is host code (allocations, calls of the loop nests
    // or kernel launches, scalars), as large as the model: LLVM leaves it
    // unoptimized and generates it at O0 (see emitObjectFiles), and does not
    // inline it into its C wrapper.
    function->setAttr(
        "passthrough",
        ArrayAttr::get(context, {StringAttr::get(context, "noinline"),
                                 StringAttr::get(context, "optnone")}));
    // The names now live in the ABI tables; LLVM has no use for them.
    // (The lowering reads the state's names to update it in place, and
    // drops them itself.)
    function->removeAttr(mixprec::kIndexChecksAttr);
    for (unsigned i = 0, e = function.getNumResults(); i < e; ++i) {
      function.removeResultAttr(
          i, StringAttr::get(context, mixprec::kIndexReportAttr));
      function.removeResultAttr(
          i, StringAttr::get(context, mixprec::kGradientOfAttr));
    }
  }
  exposeTiming.stop();

  TimingScope loweringTiming = timing.nest("Lowering passes");
  PassManager pm(context);
  if (failed(configure(pm, loweringTiming)))
    return failure();
  if (target == "cuda") {
    mixprec::CUDAPipelineOptions options;
    options.chips = archs;
    options.blockSize = blockSize;
    options.toolkit = cudaPath;
    options.planMemory = planMemory;
    options.narrowApart = memoryBudget > 0;
    options.memoryReport = report && memoryReport;
    options.memoryReportJson = report ? memoryReportJson.getValue() : "";
    mixprec::buildCUDAPipeline(pm, options);
  } else {
    mixprec::CPUPipelineOptions options;
    options.vectorize = vectorize;
    options.cpu = cpu;
    options.bf16DotProducts = bf16DotProducts;
    options.convGemms = convGemms;
    options.planMemory = planMemory;
    options.narrowApart = memoryBudget > 0;
    options.memoryReport = report && memoryReport;
    options.memoryReportJson = report ? memoryReportJson.getValue() : "";
    mixprec::buildCPUPipeline(pm, options);
  }
  if (failed(pm.run(module)) ||
      failed(mixprec::readLoweredLayout(module, *signatures)))
    return failure();
  return signatures;
}

/// Runs --mixprec-rematerialize on `module` with `budget`, printing what it
/// recomputes when `report`.
static LogicalResult rematerialize(ModuleOp module, int64_t budget, bool report,
                                   TimingScope &timing, Configure configure) {
  TimingScope stage = timing.nest("Rematerialize");
  PassManager pm(module.getContext());
  if (failed(configure(pm, stage)))
    return failure();
  mixprec::MixprecRematerializeOptions options;
  options.budget = budget;
  options.report = report;
  pm.addPass(mixprec::createMixprecScheduleStateUpdates());
  pm.addPass(mixprec::createMixprecSinkToFirstUse());
  pm.addPass(mixprec::createMixprecRematerialize(options));
  pm.addPass(mixprec::createMixprecSinkToFirstUse());
  return pm.run(module);
}

/// The most bytes a call of a train step holds in the plan of `module`,
/// lowered from a copy; and through `estimate`, what
/// --mixprec-rematerialize with `budget` estimates its temporaries take.
static FailureOr<int64_t> plannedStepPeak(ModuleOp module,
                                          ArrayRef<std::string> trainSteps,
                                          int64_t budget, int64_t &estimate,
                                          TimingScope &timing,
                                          Configure configure) {
  OwningOpRef<ModuleOp> trial = module.clone();
  if (failed(rematerialize(*trial, budget, false, timing, configure)))
    return failure();
  estimate = 0;
  for (auto step : trial->getOps<func::FuncOp>())
    if (step->hasAttr(mixprec::kOptimizerStepAttr))
      estimate = std::max(estimate, mixprec::estimateTemporaryBytes(step));
  FailureOr<std::vector<mixprec::FunctionSignature>> signatures =
      lowerModel(*trial, trainSteps, false, timing, configure);
  if (failed(signatures))
    return failure();
  int64_t peak = 0;
  for (const mixprec::FunctionSignature &signature : *signatures)
    if (signature.trainStep)
      peak = std::max(peak,
                      mixprec::plannedPeakBytes(signature, target == "cuda"));
  return peak;
}

/// The budget of --mixprec-rematerialize under which every train step's
/// planned peak is within --memory-budget, recomputing as little as it can:
/// none when the plan fits as it is, else the estimate lowered by each
/// plan's overshoot until it fits. Fails, saying the least peak reachable,
/// when nothing more can be recomputed.
static FailureOr<int64_t>
chooseRematerialization(ModuleOp module, ArrayRef<std::string> trainSteps,
                        TimingScope &timing, Configure configure) {
  TimingScope stage = timing.nest("Memory budget");
  int64_t estimate = 0;
  FailureOr<int64_t> peak =
      plannedStepPeak(module, trainSteps, 0, estimate, stage, configure);
  if (failed(peak) || *peak <= memoryBudget)
    return failed(peak) ? FailureOr<int64_t>(failure()) : 0;
  int64_t budget = estimate;
  // Each round recomputes more; a few rounds close the gap between the
  // estimate and the plan.
  for (int round = 0; round < 12; ++round) {
    budget = std::max<int64_t>(1, budget - (*peak - memoryBudget));
    int64_t reached = 0;
    peak =
        plannedStepPeak(module, trainSteps, budget, reached, stage, configure);
    if (failed(peak))
      return failure();
    if (*peak <= memoryBudget)
      return budget;
    // Nothing left that would lower the estimate: this is the least.
    if (reached > budget)
      break;
  }
  fail("a train step needs " + Twine(*peak) +
       " bytes at its peak with the forward values recomputed in the "
       "backward that lower it, more than --memory-budget=" +
       Twine(memoryBudget) +
       "; give a budget of at least that, or train on smaller batches");
  return failure();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // --mlir-timing reports every stage: passes, LLVM, ptxas, linking.
  registerDefaultTimingManagerCLOptions();
  // Named by the pass-manager options (--mlir-print-ir-before=<pass>).
  mixprec::registerMixprecConversionPasses();
  mixprec::registerMixprecCodegenPasses();
  mixprec::registerMixprecTransformsPasses();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  // Hidden, not removed: LLVM's and MLIR's options still work.
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mixprec-compile: a model to a native library\n\n"
      "MLIR's --mlir-timing (every stage: passes, LLVM, ptxas, linking) and "
      "pass-manager\noptions (--mlir-print-ir-after-all, ...) are taken "
      "too.\n");

  // Options are checked before any work is done.
  bool cuda = target == "cuda";
  if (target != "cpu" && !cuda)
    return fail("unknown --target '" + target + "' (expected cpu or cuda)");
  if (!cuda && !archs.empty())
    return fail("--arch applies to --target=cuda only");
  if (cuda && archs.empty())
    return fail("--target=cuda needs --arch: sm_80, sm_90 or sm_90a "
                "(several, comma-separated, make a fatbin)");
  for (const std::string &chip : archs)
    if (!mixprec::ptxFeaturesFor(chip))
      return fail("unknown --arch '" + chip +
                  "' (expected sm_80, sm_90 or sm_90a)");
  if (blockSize.getNumOccurrences() && !cuda)
    return fail("--block-size applies to --target=cuda only");
  if (blockSize < 1 || blockSize > 1024)
    return fail("--block-size=" + Twine(int64_t(blockSize)) +
                " is out of range; a block has 1 to 1024 threads");
  if (emit == Emit::PTX && (!cuda || archs.size() != 1))
    return fail("--emit=ptx needs --target=cuda and one --arch");
  if (memoryBudget < 0)
    return fail("--memory-budget=" + Twine(int64_t(memoryBudget)) +
                " is negative; give the bytes a train step may hold (0: no "
                "budget)");
  if (memoryBudget > 0 && !planMemory)
    return fail("--memory-budget is met by planning memory; drop "
                "--plan-memory=false");
  // The host side of a CUDA model only launches kernels: portable code.
  std::string hostCpu =
      cuda && cpu.getNumOccurrences() == 0 ? "x86-64" : cpu.getValue();
  std::unique_ptr<mixprec::AmpOptions> ampOptions;
  if (amp != "none") {
    if (autocast != Autocast::None || autodiff)
      return fail("--amp runs autocast and autodiff itself; drop --autocast "
                  "and --autodiff");
    ampOptions = mixprec::AmpOptions::createFromString(amp);
    if (!ampOptions)
      return fail("bad --amp options '" + amp + "'");
  }

  DialectRegistry registry;
  registry.insert<mixprec::MixprecDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  MLIRContext context(registry);
  // Diagnostics point at the source; the op's generic form is noise.
  context.printOpOnDiagnostic(false);
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  // Each pass manager reports under a stage of its own, with the pass
  // manager options.
  auto configure = [&](PassManager &pm, TimingScope &stage) {
    pm.enableTiming(stage);
    return applyPassManagerCLOptions(pm);
  };

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(*sourceMgr, &context);
  TimingScope parsing = timing.nest("Parse");
  // Inputs keep their source names (%images is "images") in the ABI.
  OwningOpRef<ModuleOp> module =
      mixprec::parseModelWithSourceNames(sourceMgr, &context);
  parsing.stop();
  if (!module)
    return 1;

  // Autocast and autodiff; the ABI is the signature once state is
  // arguments and results (below).
  TimingScope trainingTiming = timing.nest("Training passes");
  PassManager training(&context);
  if (failed(configure(training, trainingTiming)))
    return 1;
  if (ampOptions)
    mixprec::buildAmpPipeline(training, *ampOptions);
  if (autocast != Autocast::None) {
    mixprec::MixprecAutocastOptions autocastOptions;
    autocastOptions.precision = autocast == Autocast::F16
                                    ? mixprec::AutocastPrecision::F16
                                    : mixprec::AutocastPrecision::BF16;
    training.addPass(mixprec::createMixprecAutocast(autocastOptions));
  }
  if (autodiff)
    training.addPass(mixprec::createMixprecAutodiff());
  if (failed(training.run(*module)))
    return 1;
  // The state table and the train steps, before their declarations and
  // marks go.
  FailureOr<std::vector<mixprec::StateSpec>> state =
      mixprec::collectState(*module);
  if (failed(state))
    return 1;
  std::vector<std::string> trainSteps = mixprec::trainStepNames(*module);
  trainingTiming.stop();
  // Recomputation in the backward: the casts AMP saves twice, and under
  // --memory-budget whatever it takes for the plan to fit.
  int64_t rematerializeBudget = 0;
  if (memoryBudget > 0) {
    FailureOr<int64_t> chosen =
        chooseRematerialization(*module, trainSteps, timing, configure);
    if (failed(chosen))
      return 1;
    rematerializeBudget = *chosen;
  }
  if (planMemory && failed(rematerialize(*module, rematerializeBudget,
                                         memoryReport, timing, configure)))
    return 1;
  FailureOr<std::vector<mixprec::FunctionSignature>> signatures =
      lowerModel(*module, trainSteps, /*report=*/true, timing, configure);
  if (failed(signatures))
    return 1;
  if (memoryReport || !memoryReportJson.empty())
    printStateMemory(*state);

  if (emit == Emit::PTX) {
    std::vector<mixprec::KernelImage> images =
        mixprec::collectKernelImages(*module);
    if (images.empty())
      llvm::errs() << "mixprec-compile: note: the model needs no GPU kernel "
                      "(nothing to compute); the PTX file is empty\n";
    auto output = openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    for (const mixprec::KernelImage &image : images)
      output->os() << image.ptx;
    output->keep();
    return 0;
  }

  if (emit == Emit::MLIR) {
    auto output = openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    module->print(output->os());
    output->keep();
    return 0;
  }
  if (emit == Emit::LLVMIR) {
    FailureOr<std::string> ir = mixprec::emitLLVMIR(*module, hostCpu, timing);
    if (failed(ir))
      return 1;
    auto output = openOutputFile(outputFile, &error);
    if (!output)
      return fail(error);
    output->os() << *ir;
    output->keep();
    return 0;
  }
  SmallString<128> workDir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("mixprec-compile", workDir))
    return fail("cannot create a temporary directory: " + ec.message());
  int status = 1;
  TimingScope assembly = timing.nest("ptxas and fatbinary");
  bool assembled =
      !cuda || succeeded(mixprec::assembleKernels(*module, cudaPath, workDir));
  assembly.stop();
  FailureOr<std::vector<std::string>> objects = failure();
  if (assembled)
    objects = mixprec::emitObjectFiles(*module, hostCpu, workDir, timing);
  if (succeeded(objects)) {
    TimingScope linking = timing.nest("Link");
    status =
        emit == Emit::Object
            ? joinObjects(*objects, outputFile)
            : linkLibrary(*objects,
                          mixprec::emitABISource(*signatures, *state, cuda),
                          outputFile, workDir, cuda);
  }
  llvm::sys::fs::remove_directories(workDir);
  if (status != 0 || emit == Emit::Object)
    return status;

  SmallString<128> header(headerFile);
  if (header.empty()) {
    header = outputFile;
    llvm::sys::path::replace_extension(header, ".h");
  }
  auto headerOutput = openOutputFile(header, &error);
  if (!headerOutput)
    return fail(error);
  headerOutput->os() << mixprec::emitABIHeader(
      *signatures, llvm::sys::path::stem(outputFile));
  headerOutput->keep();
  return 0;
}
