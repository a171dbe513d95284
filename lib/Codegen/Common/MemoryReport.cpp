//===- MemoryReport.cpp - what a call holds, from its memory plan ---------===//
//
// --mixprec-memory-report: for each public function, its inputs, outputs
// and planned workspace, the peak of a call, and the buffers live where the
// workspace holds the most, as text on stderr and optionally as JSON.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/BufferLiveness.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Transforms/ReportSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECMEMORYREPORT
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

struct Tensors {
  int64_t count = 0, bytes = 0;
};

/// A buffer of the workspace.
struct Buffer {
  Operation *view;
  MemRefType type;
  int64_t bytes;
  LiveRange live;
};

struct FunctionReport {
  std::string name;
  Tensors inputs, outputs;
  int64_t updatedInPlace = 0, workspaceBytes = 0, liveBytes = 0, buffers = 0;
  // The buffers live where the workspace holds the most, largest first, and
  // the op whose buffer reaches that point.
  SmallVector<Buffer> atPeak;
  Operation *reached = nullptr;

  int64_t peakBytes() const {
    return inputs.bytes + outputs.bytes + workspaceBytes;
  }
};

/// "1,234,567".
std::string withCommas(int64_t value) {
  std::string digits = std::to_string(value);
  std::string text;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0 && digits[i - 1] != '-')
      text += ',';
    text += digits[i];
  }
  return text;
}

/// "f32[8, 6, 256, 256]".
std::string typeText(MemRefType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type.getElementType() << "[";
  llvm::interleaveComma(type.getShape(), os);
  os << "]";
  return text;
}

class MemoryReportPass
    : public mixprec::impl::MixprecMemoryReportBase<MemoryReportPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (tensorAlignment < 1 ||
        !llvm::isPowerOf2_64(uint64_t(tensorAlignment))) {
      module.emitError("mixprec-memory-report: tensor-alignment must be a "
                       "power of two, got ")
          << int64_t(tensorAlignment);
      return signalPassFailure();
    }
    std::vector<FunctionReport> reports;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPublic() && !function.isExternal())
        reports.push_back(report(function));
    for (FunctionReport &function : reports)
      printText(function);
    if (!jsonFile.empty() &&
        failed(writeJsonReport(module, "mixprec-memory-report", jsonFile,
                               json(reports))))
      signalPassFailure();
    markAllAnalysesPreserved();
  }

private:
  int64_t aligned(int64_t bytes) const {
    return int64_t(llvm::alignTo(uint64_t(bytes), uint64_t(tensorAlignment)));
  }
  FunctionReport report(func::FuncOp function) const;
  void printText(const FunctionReport &function) const;
  llvm::json::Value json(std::vector<FunctionReport> &reports) const;
};

FunctionReport MemoryReportPass::report(func::FuncOp function) const {
  FunctionReport report;
  report.name = function.getSymName().str();
  // Arguments: the inputs, the out-parameters of the results that live in
  // no input (buffer-results-to-out-params appended them), the workspace.
  auto homes =
      function->getAttrOfType<DenseI64ArrayAttr>(kResultsInArgumentsAttr);
  int64_t outParameters = 0;
  if (homes)
    for (int64_t home : homes.asArrayRef()) {
      outParameters += home < 0;
      report.updatedInPlace += home >= 0;
    }
  Value workspace = plannedWorkspace(function);
  unsigned arguments = function.getNumArguments();
  if (workspace && isa<BlockArgument>(workspace))
    --arguments;
  unsigned firstOutput = arguments - unsigned(outParameters);
  for (unsigned i = 0; i < arguments; ++i) {
    Tensors &tensors = i < firstOutput ? report.inputs : report.outputs;
    ++tensors.count;
    tensors.bytes += aligned(
        staticBytes(function.getArgumentTypes()[i]).value_or(int64_t(0)));
  }
  if (!workspace)
    return report;
  if (auto bytes = function->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr))
    report.workspaceBytes = aligned(bytes.getInt());
  if (auto bytes = function->getAttrOfType<IntegerAttr>(kLiveBytesAttr))
    report.liveBytes = bytes.getInt();

  ProgramOrder order(function);
  SmallVector<Buffer> buffers;
  for (Operation *user : workspace.getUsers())
    if (auto view = dyn_cast<memref::ViewOp>(user))
      if (std::optional<LiveRange> live = liveRange(view, order))
        buffers.push_back({view, view.getType(),
                           staticBytes(view.getType()).value_or(int64_t(0)),
                           *live});
  report.buffers = int64_t(buffers.size());
  // The point where the most bytes are live: starts sort before ends at
  // one position, and the buffer starting there reaches it.
  SmallVector<std::pair<int64_t, size_t>> events;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    events.push_back({2 * buffer.live.begin, index});
    events.push_back({2 * buffer.live.end + 1, index});
  }
  llvm::sort(events,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  int64_t live = 0, most = -1, mostPosition = 0;
  for (auto [position, index] : events) {
    live += position % 2 == 0 ? buffers[index].bytes : -buffers[index].bytes;
    if (live > most) {
      most = live;
      mostPosition = position / 2;
      report.reached = buffers[index].view;
    }
  }
  for (Buffer &buffer : buffers)
    if (buffer.live.begin <= mostPosition && mostPosition <= buffer.live.end)
      report.atPeak.push_back(buffer);
  // Largest first; ties in program order (each buffer begins at its own
  // allocation), so the report is deterministic.
  llvm::sort(report.atPeak, [](const Buffer &a, const Buffer &b) {
    if (a.bytes != b.bytes)
      return a.bytes > b.bytes;
    return a.live.begin < b.live.begin;
  });
  return report;
}

void MemoryReportPass::printText(const FunctionReport &function) const {
  llvm::raw_ostream &os = llvm::errs();
  auto line = [&](StringRef what, int64_t bytes) -> llvm::raw_ostream & {
    return os << "  " << llvm::left_justify(what, 10)
              << llvm::right_justify(withCommas(bytes), 16) << " bytes";
  };
  os << "memory report for @" << function.name << "\n";
  line("inputs", function.inputs.bytes)
      << " in " << function.inputs.count << " tensors, "
      << function.updatedInPlace << " updated in place\n";
  line("outputs", function.outputs.bytes)
      << " in " << function.outputs.count << " tensors\n";
  line("workspace", function.workspaceBytes)
      << " for " << withCommas(function.buffers) << " buffers ("
      << withCommas(function.liveBytes) << " live at most)\n";
  line("peak", function.peakBytes()) << " (inputs + outputs + workspace)\n";
  if (function.atPeak.empty())
    return;
  os << "  live at the peak, when " << locationOf(function.reached)
     << " is computed:\n";
  int64_t shown = 0, restBytes = 0;
  for (const Buffer &buffer : function.atPeak) {
    if (shown++ < top) {
      os << "    " << llvm::right_justify(withCommas(buffer.bytes), 14) << "  "
         << typeText(buffer.type) << "  " << locationOf(buffer.view) << "\n";
      continue;
    }
    restBytes += buffer.bytes;
  }
  if (shown > top)
    os << "    " << llvm::right_justify(withCommas(restBytes), 14) << "  in "
       << (shown - top) << " more buffers\n";
}

llvm::json::Value
MemoryReportPass::json(std::vector<FunctionReport> &reports) const {
  llvm::json::Array functions;
  for (FunctionReport &function : reports) {
    llvm::json::Array atPeak;
    for (const Buffer &buffer : function.atPeak)
      atPeak.push_back(
          llvm::json::Object{{"bytes", buffer.bytes},
                             {"type", typeText(buffer.type)},
                             {"location", locationOf(buffer.view)}});
    functions.push_back(llvm::json::Object{
        {"function", function.name},
        {"inputs",
         llvm::json::Object{{"tensors", function.inputs.count},
                            {"bytes", function.inputs.bytes},
                            {"updated_in_place", function.updatedInPlace}}},
        {"outputs", llvm::json::Object{{"tensors", function.outputs.count},
                                       {"bytes", function.outputs.bytes}}},
        {"workspace_bytes", function.workspaceBytes},
        {"live_bytes", function.liveBytes},
        {"buffers", function.buffers},
        {"peak_bytes", function.peakBytes()},
        {"peak_location", function.reached ? locationOf(function.reached) : ""},
        {"live_at_peak", std::move(atPeak)}});
  }
  return llvm::json::Object{{"functions", std::move(functions)}};
}

} // namespace
