//===- IrFuzzer.cpp - libFuzzer target: IR text through --mixprec-amp -----===//
//
// Any bytes are parsed as a module of the input language (mixprec, func,
// arith, tensor, math), verified and run through the --mixprec-amp
// pipeline. Bad input must be reported, never crash: a rejected parse or a
// failed pipeline has emitted an error, and every pass that succeeds leaves
// IR that verifies. Each input gets a fresh context, so a finding replays
// from its file alone.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Pipelines/AmpPipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

namespace {

/// Keeps the diagnostics of one input: they are printed only when an
/// invariant fails.
struct DiagnosticLog {
  std::string text;
  int errors = 0;
};

[[noreturn]] void fail(const DiagnosticLog &log, const llvm::Twine &what) {
  llvm::errs() << "ir fuzzer: " << what << "\ndiagnostics:\n"
               << log.text << "\n";
  llvm::errs().flush();
  std::abort();
}

/// Verifies the IR after every pass that succeeded.
struct VerifyAfterEachPass : public PassInstrumentation {
  explicit VerifyAfterEachPass(DiagnosticLog &log) : log(log) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (failed(verify(op)))
      fail(log, "'" + pass->getArgument() +
                    "' succeeded and left IR that does not verify");
  }
  DiagnosticLog &log;
};

const DialectRegistry &inputLanguage() {
  static DialectRegistry *registry = [] {
    auto *registry = new DialectRegistry;
    registry->insert<mixprec::MixprecDialect, func::FuncDialect,
                     arith::ArithDialect, tensor::TensorDialect,
                     math::MathDialect>();
    return registry;
  }();
  return *registry;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(inputLanguage(), MLIRContext::Threading::DISABLED);
  DiagnosticLog log;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      ++log.errors;
    llvm::raw_string_ostream os(log.text);
    os << diagnostic.getLocation() << ": " << diagnostic << "\n";
    return success();
  });

  // MLIR's lexer reads up to the NUL that ends every file it is given.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context));
  if (!module) {
    if (log.errors == 0)
      fail(log, "the parser rejected the input without an error");
    return 0;
  }

  PassManager pm(&context);
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(log));
  mixprec::buildAmpPipeline(pm, mixprec::AmpOptions());
  int errorsBefore = log.errors;
  if (failed(pm.run(*module)) && log.errors == errorsBefore)
    fail(log, "--mixprec-amp failed without an error");
  return 0;
}
