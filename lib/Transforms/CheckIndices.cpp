//===- CheckIndices.cpp - data-dependent indices checked at run time ------===//
//
// Labels and token ids come from the caller's data, so only the compiled
// code can check them. The report travels as a hidden result: on the GPU it
// is downloaded with the other results, and a correct call pays no extra
// synchronization.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <tuple>

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECCHECKINDICES
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// `file:line:col` of the first file location inside `loc`, or the printed
/// location when it has none.
std::string describeLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  bool found = false;
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColLoc>(inner);
    if (!file)
      return WalkResult::advance();
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    found = true;
    return WalkResult::interrupt();
  });
  if (!found)
    loc.print(os);
  return text;
}

LogicalResult checkIndices(func::FuncOp function) {
  SmallVector<IndexedAccessOpInterface> accesses;
  WalkResult nested = function.walk([&](IndexedAccessOpInterface access) {
    if (access->getParentOp() != function) {
      access->emitOpError("indexes with data inside a region, where "
                          "--mixprec-check-indices cannot check it");
      return WalkResult::interrupt();
    }
    accesses.push_back(access);
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return failure();
  // Checked already (mixprec-compile runs this pass before its pipeline).
  if (accesses.empty() || !function.getOps<IndexCheckOp>().empty())
    return success();

  MLIRContext *context = function.getContext();
  Operation *terminator = function.getBody().front().getTerminator();
  OpBuilder b(terminator);
  Value report;
  SmallVector<Attribute> checks;
  // A forward op and its gradient index with the same tensor: one check.
  SmallVector<std::tuple<Value, int64_t, std::optional<int64_t>>> seen;
  for (IndexedAccessOpInterface access : accesses) {
    auto key =
        std::make_tuple(Value(access.getAccessIndices()),
                        access.getIndexBound(), access.getSkippedIndex());
    if (llvm::is_contained(seen, key))
      continue;
    seen.push_back(key);
    std::optional<int64_t> skipped = access.getSkippedIndex();
    report = IndexCheckOp::create(b, access.getLoc(), access.getAccessIndices(),
                                  report, access.getIndexBound(), checks.size(),
                                  skipped ? b.getI64IntegerAttr(*skipped)
                                          : IntegerAttr());
    checks.push_back(b.getDictionaryAttr({
        b.getNamedAttr("op", b.getStringAttr(access->getName().stripDialect())),
        b.getNamedAttr("location",
                       b.getStringAttr(describeLocation(access.getLoc()))),
        b.getNamedAttr("noun", b.getStringAttr(access.getIndexNoun())),
        b.getNamedAttr("bound", b.getI64IntegerAttr(access.getIndexBound())),
        b.getNamedAttr("shape",
                       b.getDenseI64ArrayAttr(
                           access.getAccessIndices().getType().getShape())),
    }));
  }

  terminator->insertOperands(terminator->getNumOperands(), report);
  SmallVector<Type> results(function.getResultTypes());
  results.push_back(report.getType());
  function.setType(
      FunctionType::get(context, function.getArgumentTypes(), results));
  function.setResultAttr(results.size() - 1, kIndexReportAttr,
                         UnitAttr::get(context));
  function->setAttr(kIndexChecksAttr, b.getArrayAttr(checks));
  return success();
}

struct MixprecCheckIndicesPass
    : public mixprec::impl::MixprecCheckIndicesBase<MixprecCheckIndicesPass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      if (!function.isPublic()) {
        // Nothing would return its report to a caller.
        WalkResult found = function.walk([](IndexedAccessOpInterface access) {
          access->emitOpError("indexes with data in a private function, "
                              "whose indices no caller would check");
          return WalkResult::interrupt();
        });
        if (found.wasInterrupted())
          return signalPassFailure();
        continue;
      }
      if (failed(checkIndices(function)))
        return signalPassFailure();
    }
  }
};

} // namespace
