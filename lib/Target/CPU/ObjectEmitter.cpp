//===- ObjectEmitter.cpp - LLVM dialect to an optimized object file -------===//

#include "mixprec/Target/CPU/ObjectEmitter.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

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

static FailureOr<LoweredModule>
translateAndOptimize(ModuleOp module, StringRef cpu, TimingScope &timing) {
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

  TimingScope optimization = timing.nest("LLVM optimization (O3)");
  optimizeO3(*lowered.module, *lowered.machine);
  return lowered;
}

FailureOr<std::string> emitLLVMIR(ModuleOp module, StringRef cpu,
                                  TimingScope &timing) {
  FailureOr<LoweredModule> lowered = translateAndOptimize(module, cpu, timing);
  if (failed(lowered))
    return failure();
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

/// Generates `module`'s code with `machine` into the object file `path`.
static LogicalResult generateObject(ModuleOp anchor, llvm::Module &module,
                                    llvm::TargetMachine &machine,
                                    StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return anchor.emitError("cannot write ") << path << ": " << ec.message();
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return anchor.emitError("the target cannot emit object files");
  passes.run(module);
  os.flush();
  if (os.has_error())
    return anchor.emitError("cannot write ") << path;
  return success();
}

FailureOr<std::vector<std::string>> emitObjectFiles(ModuleOp module,
                                                    StringRef cpu,
                                                    StringRef directory,
                                                    TimingScope &timing) {
  FailureOr<LoweredModule> lowered = translateAndOptimize(module, cpu, timing);
  if (failed(lowered))
    return failure();
  std::vector<std::string> paths;
  auto pathOf = [&](StringRef name) {
    SmallString<128> path(directory);
    llvm::sys::path::append(path, name);
    paths.push_back(path.str().str());
    return paths.back();
  };
  TimingScope hostTiming = timing.nest("LLVM code generation (host, O0)");
  std::unique_ptr<llvm::Module> host = splitHostCode(*lowered->module);
  if (host) {
    FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
        createMachine(module, cpu, llvm::CodeGenOptLevel::None);
    if (failed(machine) ||
        failed(generateObject(module, *host, **machine, pathOf("host.o"))))
      return failure();
  }
  hostTiming.stop();
  TimingScope codegen = timing.nest("LLVM code generation (O3)");
  if (failed(generateObject(module, *lowered->module, *lowered->machine,
                            pathOf("model.o"))))
    return failure();
  return paths;
}

} // namespace mixprec
