//===- MemoryReport.cpp - the memory a compiled train step needs ----------===//
//
// --mixprec-memory-report: for each optimizer-step function, the bytes of
// parameters, working copies, gradients, optimizer state, buffers and saved
// activations, and the peak of a liveness simulation of the step, as text
// on stderr and optionally as JSON.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "ReportSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECMEMORYREPORT
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// Elements times element size; i1 takes a byte, as the CPU backend
/// stores it.
int64_t bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isIntOrFloat())
    return 0;
  return tensor.getNumElements() *
         llvm::divideCeil(tensor.getElementType().getIntOrFloatBitWidth(), 8);
}

struct Tally {
  int64_t tensors = 0, bytes = 0;
  void add(Type type) {
    ++tensors;
    bytes += bytesOf(type);
  }
};

/// The storage type of every parameter and buffer, by name, and the
/// buffers that hold a train step's own state (they carry a role).
struct ModelState {
  llvm::StringMap<RankedTensorType> parameters, buffers;
  llvm::StringSet<> stepStateBuffers;

  /// Whether `value` is a `mixprec.read` of a parameter.
  bool isParameterRead(Value value) const {
    auto read = value.getDefiningOp<ReadOp>();
    return read && parameters.contains(read.getState());
  }
};

struct StepReport {
  std::string function;
  Tally parameters, workingCopies, gradients, optimizerState, buffers,
      activations;
  int64_t peakLiveBytes = 0;
  std::string peakLocation, peakOp;

  int64_t persistentBytes() const {
    return parameters.bytes + optimizerState.bytes + buffers.bytes;
  }
};

class MemoryReportPass
    : public mixprec::impl::MixprecMemoryReportBase<MemoryReportPass> {
public:
  using MixprecMemoryReportBase::MixprecMemoryReportBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ModelState state;
    for (Operation &op : *module.getBody()) {
      if (auto parameter = dyn_cast<ParameterOp>(op))
        state.parameters[parameter.getSymName()] = parameter.getType();
      else if (auto buffer = dyn_cast<BufferOp>(op)) {
        state.buffers[buffer.getSymName()] = buffer.getType();
        if (buffer.getRole())
          state.stepStateBuffers.insert(buffer.getSymName());
      }
    }
    SmallVector<StepReport> reports;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (!function->hasAttr(kOptimizerStepAttr))
        continue;
      if (!function.getBody().hasOneBlock()) {
        function.emitError("mixprec-memory-report: the optimizer step must "
                           "have a single block");
        return signalPassFailure();
      }
      reports.push_back(report(function, state));
    }
    if (reports.empty()) {
      module.emitError("mixprec-memory-report: no optimizer-step function "
                       "(func.func marked mixprec.optimizer_step); run it "
                       "after --mixprec-autodiff and before "
                       "--mixprec-expose-state");
      return signalPassFailure();
    }
    for (const StepReport &step : reports)
      printText(step);
    if (!jsonFile.empty() && failed(writeJson(reports)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }

private:
  static StepReport report(func::FuncOp function, const ModelState &state) {
    StepReport step;
    step.function = function.getSymName().str();
    Block &body = function.getBody().front();

    for (const auto &parameter : state.parameters)
      step.parameters.add(parameter.second);

    // Moments are found through the updates' operands, the step count and
    // loss-scale state by their roles among the buffers this step reads or
    // assigns (another step's are model buffers to this one); everything
    // else (batch-norm statistics) is a model buffer.
    llvm::SetVector<Value> gradients;
    llvm::StringSet<> optimizerState;
    auto addStepState = [&](StringRef buffer) {
      if (state.stepStateBuffers.contains(buffer))
        optimizerState.insert(buffer);
    };
    for (Operation &op : body) {
      if (auto update = dyn_cast<OptimizerUpdateOpInterface>(op)) {
        gradients.insert(update.getGrad());
        for (Value moment : update.getMoments())
          if (auto read = moment.getDefiningOp<ReadOp>())
            optimizerState.insert(read.getState());
      } else if (auto read = dyn_cast<ReadOp>(op)) {
        addStepState(read.getState());
      } else if (auto assign = dyn_cast<AssignOp>(op)) {
        addStepState(assign.getBuffer());
      }
    }
    for (Value gradient : gradients)
      step.gradients.add(gradient.getType());
    for (const auto &buffer : state.buffers) {
      bool owned = optimizerState.contains(buffer.first());
      (owned ? step.optimizerState : step.buffers).add(buffer.second);
    }

    for (Operation &op : body)
      if (auto cast = dyn_cast<CastOp>(op);
          cast && state.isParameterRead(cast.getInput()))
        step.workingCopies.add(cast.getType());

    countSavedActivations(body, state, step);
    simulateLiveness(body, step);
    return step;
  }

  /// Values the forward computes and the backward uses. Program order
  /// cannot split the two (canonicalization hoists the loss seed to the
  /// top, and micro-batches interleave them), so the forward is everything
  /// the returned loss depends on, and the backward everything that depends
  /// on a loss seed or feeds such an op without being forward (reshapes of
  /// saved values, the step count's increment).
  static void countSavedActivations(Block &body, const ModelState &state,
                                    StepReport &step) {
    llvm::DenseSet<Operation *> backward;
    SmallVector<Operation *> worklist;
    for (Operation &op : body)
      if (op.hasAttr(kLossSeedAttr))
        worklist.push_back(&op);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!backward.insert(op).second)
        continue;
      for (Operation *user : op->getUsers())
        if (Operation *inBody = body.findAncestorOpInBlock(*user))
          worklist.push_back(inBody);
    }

    llvm::DenseSet<Operation *> forward;
    for (Value returned : body.getTerminator()->getOperands())
      if (Operation *producer = returned.getDefiningOp())
        worklist.push_back(producer);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (backward.contains(op) || !forward.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          worklist.push_back(producer);
    }
    worklist.assign(backward.begin(), backward.end());
    while (!worklist.empty())
      for (Value operand : worklist.pop_back_val()->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && !forward.contains(producer) &&
            backward.insert(producer).second)
          worklist.push_back(producer);

    for (Operation &op : body) {
      // State and its working copies are counted above.
      if (!forward.contains(&op) || isa<ReadOp, RngStateOp>(op))
        continue;
      if (auto cast = dyn_cast<CastOp>(op);
          cast && state.isParameterRead(cast.getInput()))
        continue;
      for (Value result : op.getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return backward.contains(body.findAncestorOpInBlock(*user));
            }))
          step.activations.add(result.getType());
    }
  }

  /// A straight-line schedule in program order without in-place reuse: a
  /// value lives from its definition to its last use; arguments and the RNG
  /// state (arguments after --mixprec-expose-state) from the start; values
  /// returned or assigned to state (results after expose-state) to the end.
  /// Reads of parameters and buffers alias the persistent state, which is
  /// added once.
  static void simulateLiveness(Block &body, StepReport &step) {
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t end = -1;
    for (Operation &op : body)
      position[&op] = ++end;
    // Bytes that become live at a point, and that die after it.
    SmallVector<int64_t> born(end + 1, 0), died(end + 1, 0);
    auto addInterval = [&](Value value, int64_t start) {
      int64_t last = start;
      for (Operation *user : value.getUsers()) {
        Operation *inBody = body.findAncestorOpInBlock(*user);
        bool output = isa<AssignOp>(inBody) || inBody == body.getTerminator();
        last = std::max(last, output ? end : position.lookup(inBody));
      }
      born[start] += bytesOf(value.getType());
      died[last] += bytesOf(value.getType());
    };
    for (BlockArgument argument : body.getArguments())
      addInterval(argument, 0);
    for (Operation &op : body) {
      if (isa<ReadOp>(op))
        continue;
      for (Value result : op.getResults())
        addInterval(result, isa<RngStateOp>(op) ? 0 : position[&op]);
    }
    int64_t live = 0;
    for (Operation &op : body) {
      int64_t index = position[&op];
      live += born[index];
      if (live > step.peakLiveBytes) {
        step.peakLiveBytes = live;
        step.peakLocation = locationOf(&op);
        step.peakOp = op.getName().getStringRef().str();
      }
      live -= died[index];
    }
  }

  static void printText(const StepReport &step) {
    llvm::raw_ostream &os = llvm::errs();
    auto printRow = [&](StringRef category, const Tally &tally) {
      os << llvm::left_justify(category, 18)
         << llvm::right_justify(std::to_string(tally.tensors), 8)
         << llvm::right_justify(std::to_string(tally.bytes), 14) << "\n";
    };
    os << "memory report for @" << step.function << "\n";
    os << llvm::left_justify("category", 18)
       << llvm::right_justify("tensors", 8) << llvm::right_justify("bytes", 14)
       << "\n";
    printRow("parameters", step.parameters);
    printRow("working copies", step.workingCopies);
    printRow("gradients", step.gradients);
    printRow("optimizer state", step.optimizerState);
    printRow("buffers", step.buffers);
    printRow("saved activations", step.activations);
    os << "persistent state: " << step.persistentBytes() << " bytes\n";
    os << "peak: " << step.persistentBytes() + step.peakLiveBytes
       << " bytes (persistent state + " << step.peakLiveBytes << " live at "
       << step.peakLocation << " " << step.peakOp << ")\n";
  }

  LogicalResult writeJson(ArrayRef<StepReport> reports) {
    auto tally = [](const Tally &tally) {
      return llvm::json::Object{{"bytes", tally.bytes},
                                {"tensors", tally.tensors}};
    };
    llvm::json::Array steps;
    for (const StepReport &step : reports)
      steps.push_back(llvm::json::Object{
          {"function", step.function},
          {"parameters", tally(step.parameters)},
          {"working_copies", tally(step.workingCopies)},
          {"gradients", tally(step.gradients)},
          {"optimizer_state", tally(step.optimizerState)},
          {"buffers", tally(step.buffers)},
          {"saved_activations", tally(step.activations)},
          {"persistent_bytes", step.persistentBytes()},
          {"peak_bytes", step.persistentBytes() + step.peakLiveBytes},
          {"peak_live_bytes", step.peakLiveBytes},
          {"peak_location", step.peakLocation},
          {"peak_op", step.peakOp}});
    llvm::json::Value report = llvm::json::Object{{"steps", std::move(steps)}};
    return writeJsonReport(getOperation(), "mixprec-memory-report", jsonFile,
                           std::move(report));
  }
};

} // namespace
