//===- mixprec-opt.cpp - the mixprec optimizer driver ---------------------===//
//
// mlir-opt with the mixprec dialect: every upstream dialect, extension and
// pass is registered too, so any pipeline of the compiler can be run and
// inspected step by step.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Pipelines/AmpPipeline.h"
#include "mixprec/Pipelines/Pipelines.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mixprec::registerMixprecConversionPasses();
  mixprec::registerMixprecCodegenPasses();
  mixprec::registerCPUPipeline();
  mixprec::registerCUDAPipeline();
  mixprec::registerMixprecTransformsPasses();
  mixprec::registerAmpPipeline();

  mlir::DialectRegistry registry;
  registry.insert<mixprec::MixprecDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR and PTX.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mixprec optimizer driver\n", registry));
}
