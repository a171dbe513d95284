//===- ObjectEmitter.cpp - LLVM dialect to an optimized object file -------===//

#include "mixprec/Target/CPU/ObjectEmitter.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <thread>

using namespace mlir;

namespace mixprec {

namespace {
/// An optimized LLVM module and the machine it targets.
struct LoweredModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
};
} // namespace

/// LLVM's O3 pipeline, less CalledValuePropagation: it annotates indirect
/// calls, of which a model has none, and its cost grows with the square of
/// the host function's size (4.7 of 5.4 s of O3 for a 12-layer train step).
/// Functions marked optnone (the host code) are left as they are.
static void optimizeO3(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(module.getContext(),
                                                  /*DebugLogging=*/false);
  instrumentations.registerCallbacks(callbacks, &modules);
  callbacks.registerShouldRunOptionalPassCallback(
      [](StringRef pass, llvm::Any) {
        return pass != "CalledValuePropagationPass";
      });
  // As clang's -O3 (and MLIR's makeOptimizingTransformer) tune it.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = tuning.LoopInterleaving = tuning.LoopVectorization =
      tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, modules);
}

/// A target machine for `cpu` ("native": this one) generating code at
/// `level`.
static FailureOr<std::unique_ptr<llvm::TargetMachine>>
createMachine(ModuleOp anchor, StringRef cpu, llvm::CodeGenOptLevel level) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return anchor.emitError("no LLVM target for the host: ") << error;
  std::string cpuName =
      cpu == "native" ? llvm::sys::getHostCPUName().str() : cpu.str();
  std::string features;
  if (cpu == "native")
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (feature.second ? "+" : "-") + feature.first().str() + ",";
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, level));
  if (!machine)
    return anchor.emitError("cannot create a target machine for cpu '")
           << cpuName << "'";
  return machine;
}

/// `module` translated to LLVM IR, with a machine for `cpu`.
static FailureOr<LoweredModule> translate(ModuleOp module, StringRef cpu,
                                          TimingScope &timing) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());

  LoweredModule lowered;
  lowered.context = std::make_unique<llvm::LLVMContext>();
  TimingScope translation = timing.nest("Translate to LLVM IR");
  lowered.module = translateModuleToLLVMIR(module, *lowered.context);
  translation.stop();
  if (!lowered.module)
    return module.emitError("cannot translate to LLVM IR");

  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createMachine(module, cpu, llvm::CodeGenOptLevel::Aggressive);
  if (failed(machine))
    return failure();
  lowered.machine = std::move(*machine);
  lowered.module->setDataLayout(lowered.machine->createDataLayout());
  lowered.module->setTargetTriple(lowered.machine->getTargetTriple());
  return lowered;
}

FailureOr<std::string> emitLLVMIR(ModuleOp module, StringRef cpu,
                                  TimingScope &timing) {
  FailureOr<LoweredModule> lowered = translate(module, cpu, timing);
  if (failed(lowered))
    return failure();
  TimingScope optimization = timing.nest("LLVM optimization (O3)");
  optimizeO3(*lowered->module, *lowered->machine);
  optimization.stop();
  std::string text;
  llvm::raw_string_ostream os(text);
  lowered->module->print(os, nullptr);
  return text;
}

/// Moves the definitions of `module`'s optnone functions (the host code)
/// into a module of their own, which declares what they call; the loop
/// nests, no longer called from `module`, become hidden. Constants are
/// defined in both; other globals in `module` only.
static std::unique_ptr<llvm::Module> splitHostCode(llvm::Module &module) {
  auto isHost = [](const llvm::Function &f) {
    return !f.isDeclaration() && f.hasOptNone();
  };
  if (llvm::none_of(module, isHost))
    return nullptr;
  for (llvm::GlobalVariable &global : module.globals())
    if (!global.isConstant() && global.hasLocalLinkage()) {
      global.setLinkage(llvm::GlobalValue::ExternalLinkage);
      global.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> host =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
        if (auto *f = dyn_cast<llvm::Function>(value))
          return isHost(*f);
        auto *global = dyn_cast<llvm::GlobalVariable>(value);
        return global && global->isConstant() && global->hasLocalLinkage();
      });
  for (llvm::Function &f : module) {
    if (isHost(f)) {
      f.deleteBody();
    } else if (!f.isDeclaration()) {
      f.setLinkage(llvm::GlobalValue::ExternalLinkage);
      f.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  }
  return host;
}

/// Generates `module`'s code with `machine` into the object file `path`;
/// what went wrong, or nothing. (No diagnostics: it runs on other threads.)
static std::string generateObject(llvm::Module &module,
                                  llvm::TargetMachine &machine,
                                  StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return "cannot write " + path.str() + ": " + ec.message();
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return "the target cannot emit object files";
  passes.run(module);
  os.flush();
  if (os.has_error())
    return "cannot write " + path.str();
  return "";
}

/// Generates the module in `bitcode` (optimized at O3 first when
/// `optimize`) into `path`, in a context of its own; what went wrong, or
/// nothing.
static std::string generateFromBitcode(StringRef bitcode,
                                       llvm::TargetMachine &machine,
                                       StringRef path, bool optimize) {
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, path), context);
  if (!module)
    return llvm::toString(module.takeError());
  if (optimize)
    optimizeO3(**module, machine);
  return generateObject(**module, machine, path);
}

/// Optimizes (O3) and generates the loop nests of `module` into `paths`,
/// one object file each, in parallel: `module` is split into that many
/// parts (llvm::SplitModule), each carried as bitcode into a context of its
/// own and compiled on a thread of its own with a machine from `machines`.
/// LLVM's O3 and code generation are most of a large model's compile
/// (densenet121: 56 of 90 s), and the loop nests are independent functions
/// (noinline, called only from the host code): each is optimized as before
/// on its own. What O3 could do across them in one module (drop an argument
/// no nest reads, propagate a constant the host passes) is not done; no
/// computed bit depends on it.
static std::string
compileInParts(llvm::Module &module,
               MutableArrayRef<std::unique_ptr<llvm::TargetMachine>> machines,
               ArrayRef<std::string> paths) {
  if (paths.size() == 1) {
    optimizeO3(module, *machines[0]);
    return generateObject(module, *machines[0], paths[0]);
  }
  SmallVector<SmallString<0>> bitcode;
  llvm::SplitModule(
      module, paths.size(),
      [&](std::unique_ptr<llvm::Module> part) {
        llvm::raw_svector_ostream os(bitcode.emplace_back());
        llvm::WriteBitcodeToFile(*part, os);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  std::vector<std::string> errors(bitcode.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < bitcode.size(); ++i)
    threads.emplace_back([&, i] {
      errors[i] = generateFromBitcode(bitcode[i], *machines[i], paths[i],
                                      /*optimize=*/true);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &error : errors)
    if (!error.empty())
      return error;
  return "";
}

FailureOr<std::vector<std::string>> emitObjectFiles(ModuleOp module,
                                                    StringRef cpu,
                                                    StringRef directory,
                                                    TimingScope &timing) {
  FailureOr<LoweredModule> lowered = translate(module, cpu, timing);
  if (failed(lowered))
    return failure();
  std::vector<std::string> paths;
  auto pathOf = [&](const Twine &name) {
    SmallString<128> path(directory);
    llvm::sys::path::append(path, name);
    return path.str().str();
  };
  std::unique_ptr<llvm::Module> host = splitHostCode(*lowered->module);
  std::unique_ptr<llvm::TargetMachine> hostMachine;
  if (host) {
    FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
        createMachine(module, cpu, llvm::CodeGenOptLevel::None);
    if (failed(machine))
      return failure();
    hostMachine = std::move(*machine);
    paths.push_back(pathOf("host.o"));
  }
  // One part per hardware thread (at most kMaxParts: each holds a context
  // and a machine), and no part without a function of its own to compile.
  constexpr size_t kMaxParts = 16;
  size_t functions = llvm::count_if(
      *lowered->module, [](llvm::Function &f) { return !f.isDeclaration(); });
  size_t parts = std::max<size_t>(
      1, std::min({size_t(llvm::hardware_concurrency().compute_thread_count()),
                   functions, kMaxParts}));
  SmallVector<std::unique_ptr<llvm::TargetMachine>> machines;
  machines.push_back(std::move(lowered->machine));
  while (machines.size() < parts) {
    FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
        createMachine(module, cpu, llvm::CodeGenOptLevel::Aggressive);
    if (failed(machine))
      return failure();
    machines.push_back(std::move(*machine));
  }
  std::vector<std::string> modelPaths;
  for (size_t i = 0; i < parts; ++i)
    modelPaths.push_back(pathOf("model" + Twine(i) + ".o"));
  // The host code (O0) is generated beside the parts, in a context of its
  // own.
  TimingScope compiling =
      timing.nest("LLVM code generation (host at O0, loop nests at O3 in " +
                  std::to_string(parts) + " parts)");
  SmallString<0> hostBitcode;
  if (host) {
    llvm::raw_svector_ostream os(hostBitcode);
    llvm::WriteBitcodeToFile(*host, os);
  }
  std::string hostError;
  std::thread hostThread([&] {
    if (host)
      hostError = generateFromBitcode(hostBitcode, *hostMachine, paths.front(),
                                      /*optimize=*/false);
  });
  std::string error = compileInParts(*lowered->module, machines, modelPaths);
  hostThread.join();
  if (error.empty())
    error = hostError;
  if (!error.empty())
    return module.emitError(error);
  llvm::append_range(paths, modelPaths);
  return paths;
}

} // namespace mixprec
