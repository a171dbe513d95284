//===- MixprecDialect.cpp - the mixprec dialect ---------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mixprec;

#include "mixprec/Dialect/Mixprec/IR/MixprecAttrInterfaces.cpp.inc"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.cpp.inc"
#include "mixprec/Dialect/Mixprec/IR/MixprecEnums.cpp.inc"
#include "mixprec/Dialect/Mixprec/IR/MixprecOpInterfaces.cpp.inc"

void MixprecDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.cpp.inc"
      >();
  attachIndexedAccessModels(*getContext());
}

/// Whether autocast may choose the precision of `op`: a mixprec compute op.
static bool hasChoosablePrecision(Operation *op) {
  return isa<AutocastOpInterface>(op) && !op->hasTrait<KeepsTypes>();
}

LogicalResult MixprecDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  if (attr.getName() == kPrecisionAttr) {
    auto type = dyn_cast<TypeAttr>(attr.getValue());
    if (!type || !isa<Float32Type, Float16Type, BFloat16Type>(type.getValue()))
      return op->emitError()
             << "'" << kPrecisionAttr << "' must be f16, bf16 or f32, got "
             << attr.getValue();
    if (!hasChoosablePrecision(op))
      return op->emitError() << "'" << kPrecisionAttr
                             << "' pins compute ops of the mixprec dialect; '"
                             << op->getName() << "' is not one";
    return success();
  }
  if (attr.getName() == kAutocastRuleAttr) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << kAutocastRuleAttr
                             << "' must be a string, got " << attr.getValue();
    return success();
  }
  if (attr.getName() == kLossSeedAttr) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<ConstantOp>(op))
      return op->emitError() << "'" << kLossSeedAttr
                             << "' is a unit attribute of mixprec.constant";
    return success();
  }
  if (attr.getName() == kRecomputedAttr) {
    if (!isa<IntegerAttr>(attr.getValue()) || !isa<AdjointOpInterface>(op))
      return op->emitError() << "'" << kRecomputedAttr
                             << "' is an integer attribute of a forward op";
    return success();
  }
  if (attr.getName() == kOptimizerStepAttr) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<func::FuncOp>(op))
      return op->emitError() << "'" << kOptimizerStepAttr
                             << "' is a unit attribute of func.func";
    return success();
  }
  if (attr.getName() == kIndexChecksAttr) {
    auto checks = dyn_cast<ArrayAttr>(attr.getValue());
    if (!checks || !isa<FunctionOpInterface>(op) ||
        !llvm::all_of(checks, llvm::IsaPred<DictionaryAttr>))
      return op->emitError() << "'" << kIndexChecksAttr
                             << "' is an array of dictionaries on a function";
    return success();
  }
  if (attr.getName() == kResultsInArgumentsAttr) {
    if (!isa<DenseI64ArrayAttr>(attr.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kResultsInArgumentsAttr
                             << "' is an array<i64> on a function";
    return success();
  }
  if (attr.getName() == kWorkspaceBytesAttr ||
      attr.getName() == kLiveBytesAttr) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!bytes || !bytes.getType().isInteger(64) || bytes.getInt() < 0 ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' is an i64 >= 0 on a function";
    return success();
  }
  if (attr.getName() == kParallelExtentAttr ||
      attr.getName() == kParallelChunkAttr) {
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    if (!count || !count.getType().isInteger(64) || count.getInt() < 1 ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' is an i64 >= 1 on a function";
    return success();
  }
  if (attr.getName() == kWorkspaceAttr) {
    if (!isa<UnitAttr>(attr.getValue()) || op->getNumResults() != 1)
      return op->emitError() << "'" << kWorkspaceAttr
                             << "' is a unit attribute of an allocation";
    return success();
  }
  if (attr.getName() == kABINameAttr)
    return op->emitError() << "'" << kABINameAttr
                           << "' names function arguments and results, not "
                              "ops";
  InFlightDiagnostic diag = op->emitError() << "unknown mixprec attribute '"
                                            << attr.getName().getValue() << "'";
  if (std::optional<StringRef> nearest = nearestName(
          attr.getName().getValue(),
          {kPrecisionAttr, kAutocastRuleAttr, kLossSeedAttr, kRecomputedAttr,
           kOptimizerStepAttr, kIndexChecksAttr, kResultsInArgumentsAttr,
           kWorkspaceAttr, kWorkspaceBytesAttr, kLiveBytesAttr,
           kParallelExtentAttr, kParallelChunkAttr}))
    diag << "; did you mean '" << *nearest << "'?";
  return diag;
}
