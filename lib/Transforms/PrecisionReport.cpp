//===- PrecisionReport.cpp - what autocast chose, and why -----------------===//
//
// --mixprec-precision-report: a table of the ops decided by
// --mixprec-autocast (their `mixprec.autocast` rule) with FLOP and
// activation-byte totals, as text on stderr and optionally as JSON.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mixprec/Transforms/ReportSupport.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECPRECISIONREPORT
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

RankedTensorType tensorTypeOf(Value value) {
  return dyn_cast<RankedTensorType>(value.getType());
}

int64_t numElements(Value value) {
  RankedTensorType type = tensorTypeOf(value);
  return type ? type.getNumElements() : 0;
}

bool isFloatTensor(Value value) {
  RankedTensorType type = tensorTypeOf(value);
  return type && isa<FloatType>(type.getElementType());
}

bool isSixteenBit(Value value) {
  return isFloatTensor(value) &&
         tensorTypeOf(value).getElementType().getIntOrFloatBitWidth() == 16;
}

/// 2 * result elements * reduction length for contractions; no arithmetic
/// for data movement; one FLOP per element of the largest tensor otherwise.
int64_t estimateFlops(Operation *op) {
  auto reductionLength = [](Value lhs, bool transposed) {
    ArrayRef<int64_t> shape = tensorTypeOf(lhs).getShape();
    return shape[shape.size() - (transposed ? 2 : 1)];
  };
  int64_t contraction =
      llvm::TypeSwitch<Operation *, int64_t>(op)
          .Case([&](MatmulOp op) {
            return reductionLength(op.getLhs(), op.getTransposeLhs());
          })
          .Case([&](BatchMatmulOp op) {
            return reductionLength(op.getLhs(), op.getTransposeLhs());
          })
          .Case([&](LinearOp op) {
            return reductionLength(op.getInput(), false);
          })
          .Case([&](Conv2DOp op) {
            ArrayRef<int64_t> weight = tensorTypeOf(op.getWeight()).getShape();
            return weight[1] * weight[2] * weight[3];
          })
          .Default([](Operation *) { return 0; });
  if (contraction)
    return 2 * numElements(op->getResult(0)) * contraction;
  if (isa<ReshapeOp, TransposeOp, BroadcastOp, SliceOp, ConcatOp, EmbeddingOp,
          ConstantOp>(op))
    return 0;
  int64_t largest = 0;
  for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
    largest = std::max(largest, numElements(value));
  return largest;
}

std::string precisionOf(Operation *op) {
  auto typeName = [](Value value) {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << tensorTypeOf(value).getElementType();
    return name;
  };
  SmallVector<Value> floats;
  for (Value operand : op->getOperands())
    if (isFloatTensor(operand))
      floats.push_back(operand);
  Value result;
  for (Value value : op->getResults())
    if (isFloatTensor(value)) {
      result = value;
      break;
    }
  if (floats.empty())
    return result ? typeName(result) : "-";
  std::string input = typeName(floats.front());
  if (!result || typeName(result) == input)
    return input;
  return input + " -> " + typeName(result);
}

struct Row {
  std::string location, op, precision, rule;
};

struct Totals {
  int64_t castsToSixteenBit = 0, castsToFP32 = 0;
  int64_t flops = 0, sixteenBitTensorCoreFlops = 0;
  int64_t fp32Bytes = 0, bytes = 0, workingCopyBytes = 0;
};

class PrecisionReportPass
    : public mixprec::impl::MixprecPrecisionReportBase<PrecisionReportPass> {
public:
  using MixprecPrecisionReportBase::MixprecPrecisionReportBase;

  void runOnOperation() override {
    SmallVector<Row> rows;
    Totals totals;
    getOperation()->walk([&](Operation *op) { visit(op, rows, totals); });
    printText(rows, totals);
    if (!jsonFile.empty() && failed(writeJson(rows, totals)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }

private:
  static void visit(Operation *op, SmallVectorImpl<Row> &rows, Totals &totals) {
    auto rule = op->getAttrOfType<StringAttr>(kAutocastRuleAttr);
    bool inserted = rule && rule.getValue().starts_with("cast:");
    bool compute = isa<AutocastOpInterface>(op) && !op->hasTrait<KeepsTypes>();
    if (!compute && !inserted)
      return;
    int64_t flops = estimateFlops(op);
    totals.flops += flops;
    if (isContraction(op) && isSixteenBit(op->getOperand(0)))
      totals.sixteenBitTensorCoreFlops += flops;
    // A cast of an argument or of model state is a working copy, not an
    // activation.
    bool workingCopy = inserted && !isActivation(op->getOperand(0));
    for (Value result : op->getResults()) {
      if (!isFloatTensor(result))
        continue;
      int64_t bytes = numElements(result) *
                      tensorTypeOf(result).getElementTypeBitWidth() / 8;
      (workingCopy ? totals.workingCopyBytes : totals.bytes) += bytes;
      if (!inserted)
        totals.fp32Bytes += numElements(result) * 4;
    }
    if (inserted) {
      bool toSixteen = isSixteenBit(op->getResult(0));
      (toSixteen ? totals.castsToSixteenBit : totals.castsToFP32) += 1;
    }
    if (rule)
      rows.push_back({locationOf(op), op->getName().getStringRef().str(),
                      precisionOf(op), rule.getValue().str()});
  }

  /// Results of compute ops, and casts of them.
  static bool isActivation(Value value) {
    Operation *producer = value.getDefiningOp();
    if (!producer)
      return false;
    if (isa<CastOp>(producer))
      return isActivation(producer->getOperand(0));
    return isa<AutocastOpInterface>(producer) &&
           !producer->hasTrait<KeepsTypes>();
  }

  static double share(int64_t part, int64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / whole : 0.0;
  }

  static void printText(ArrayRef<Row> rows, const Totals &totals) {
    llvm::raw_ostream &os = llvm::errs();
    size_t widths[3] = {8, 2, 9};
    for (const Row &row : rows) {
      widths[0] = std::max(widths[0], row.location.size());
      widths[1] = std::max(widths[1], row.op.size());
      widths[2] = std::max(widths[2], row.precision.size());
    }
    auto printRow = [&](StringRef location, StringRef op, StringRef precision,
                        StringRef rule) {
      os << llvm::left_justify(location, widths[0]) << "  "
         << llvm::left_justify(op, widths[1]) << "  "
         << llvm::left_justify(precision, widths[2]) << "  " << rule << "\n";
    };
    os << "precision report\n";
    printRow("location", "op", "precision", "rule");
    for (const Row &row : rows)
      printRow(row.location, row.op, row.precision, row.rule);
    os << "casts inserted: " << totals.castsToSixteenBit + totals.castsToFP32
       << " (" << totals.castsToSixteenBit << " to 16-bit, "
       << totals.castsToFP32 << " to f32)\n";
    os << llvm::format("FLOPs in 16-bit tensor-core ops: %lld of %lld "
                       "(%.1f%%)\n",
                       static_cast<long long>(totals.sixteenBitTensorCoreFlops),
                       static_cast<long long>(totals.flops),
                       share(totals.sixteenBitTensorCoreFlops, totals.flops));
    os << llvm::format("activation bytes: %lld all f32, %lld after autocast "
                       "(%.1f%%)\n",
                       static_cast<long long>(totals.fp32Bytes),
                       static_cast<long long>(totals.bytes),
                       share(totals.bytes, totals.fp32Bytes));
    os << "casts of arguments and parameters (working copies): "
       << totals.workingCopyBytes << " bytes\n";
  }

  LogicalResult writeJson(ArrayRef<Row> rows, const Totals &totals) {
    llvm::json::Array ops;
    for (const Row &row : rows)
      ops.push_back(llvm::json::Object{{"location", row.location},
                                       {"op", row.op},
                                       {"precision", row.precision},
                                       {"rule", row.rule}});
    llvm::json::Value report = llvm::json::Object{
        {"ops", std::move(ops)},
        {"casts_to_16bit", totals.castsToSixteenBit},
        {"casts_to_f32", totals.castsToFP32},
        {"flops", totals.flops},
        {"flops_16bit_tensor_core", totals.sixteenBitTensorCoreFlops},
        {"activation_bytes_f32", totals.fp32Bytes},
        {"activation_bytes", totals.bytes},
        {"working_copy_bytes", totals.workingCopyBytes}};
    return writeJsonReport(getOperation(), "mixprec-precision-report", jsonFile,
                           std::move(report));
  }
};

} // namespace
