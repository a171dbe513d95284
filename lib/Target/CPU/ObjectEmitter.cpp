//===- ObjectEmitter.cpp - LLVM dialect to an optimized object file -------===//

#include "mixprec/Target/CPU/ModelABI.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

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

static FailureOr<LoweredModule> translateAndOptimize(ModuleOp module,
                                                     StringRef cpu) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());

  LoweredModule lowered;
  lowered.context = std::make_unique<llvm::LLVMContext>();
  lowered.module = translateModuleToLLVMIR(module, *lowered.context);
  if (!lowered.module)
    return module.emitError("cannot translate to LLVM IR");

  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("no LLVM target for the host: ") << error;
  std::string cpuName = cpu == "native" ? llvm::sys::getHostCPUName().str()
                                        : cpu.str();
  std::string features;
  if (cpu == "native")
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (feature.second ? "+" : "-") + feature.first().str() + ",";
  lowered.machine.reset(target->createTargetMachine(
      triple, cpuName, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!lowered.machine)
    return module.emitError("cannot create a target machine for cpu '")
           << cpuName << "'";
  lowered.module->setDataLayout(lowered.machine->createDataLayout());
  lowered.module->setTargetTriple(triple);

  auto optimize = makeOptimizingTransformer(3, 0, lowered.machine.get());
  if (llvm::Error err = optimize(lowered.module.get()))
    return module.emitError("LLVM optimization failed: ")
           << llvm::toString(std::move(err));
  return lowered;
}

FailureOr<std::string> emitLLVMIR(ModuleOp module, StringRef cpu) {
  FailureOr<LoweredModule> lowered = translateAndOptimize(module, cpu);
  if (failed(lowered))
    return failure();
  std::string text;
  llvm::raw_string_ostream os(text);
  lowered->module->print(os, nullptr);
  return text;
}

LogicalResult emitObjectFile(ModuleOp module, StringRef cpu, StringRef path) {
  FailureOr<LoweredModule> lowered = translateAndOptimize(module, cpu);
  if (failed(lowered))
    return failure();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return module.emitError("cannot write ") << path << ": " << ec.message();
  llvm::legacy::PassManager passes;
  if (lowered->machine->addPassesToEmitFile(passes, os, nullptr,
                                            llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the target cannot emit object files");
  passes.run(*lowered->module);
  os.flush();
  if (os.has_error())
    return module.emitError("cannot write ") << path;
  return success();
}

} // namespace mixprec
