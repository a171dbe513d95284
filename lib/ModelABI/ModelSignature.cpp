//===- ModelSignature.cpp - the ABI signatures of a model's functions -----===//

#include "mixprec/ModelABI/ModelABI.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;

namespace mixprec {

static std::optional<mixprec_dtype> dtypeOf(Type type) {
  if (type.isF32())
    return MIXPREC_F32;
  if (type.isF16())
    return MIXPREC_F16;
  if (type.isBF16())
    return MIXPREC_BF16;
  if (type.isInteger(32))
    return MIXPREC_I32;
  if (type.isInteger(64))
    return MIXPREC_I64;
  if (type.isInteger(1))
    return MIXPREC_BOOL;
  return std::nullopt;
}

static FailureOr<TensorSpec> specOf(func::FuncOp function, Type type,
                                    DictionaryAttr attrs, StringRef role,
                                    unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<mixprec_dtype> dtype =
      tensor ? dtypeOf(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !dtype)
    return function.emitError()
           << "@" << function.getSymName() << ": " << role << " " << index
           << " has type " << type
           << "; the model ABI carries statically shaped tensors of f32, "
              "f16, bf16, i32, i64 or i1";
  TensorSpec spec;
  auto name = attrs ? attrs.getAs<StringAttr>(kABINameAttr) : StringAttr();
  spec.name = name ? name.str() : (role + Twine(index)).str();
  spec.dtype = *dtype;
  spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return spec;
}

/// The checks of `function`'s index report, from the attribute that
/// --mixprec-check-indices sets.
static FailureOr<std::vector<IndexCheckSpec>>
indexChecksOf(func::FuncOp function) {
  auto checks = function->getAttrOfType<ArrayAttr>(kIndexChecksAttr);
  if (!checks || checks.empty())
    return function.emitError()
           << "@" << function.getSymName() << " has an index report but no '"
           << kIndexChecksAttr << "'";
  std::vector<IndexCheckSpec> specs;
  for (Attribute attr : checks) {
    auto check = cast<DictionaryAttr>(attr);
    auto op = check.getAs<StringAttr>("op");
    auto location = check.getAs<StringAttr>("location");
    auto noun = check.getAs<StringAttr>("noun");
    auto bound = check.getAs<IntegerAttr>("bound");
    auto shape = check.getAs<DenseI64ArrayAttr>("shape");
    if (!op || !location || !noun || !bound || !shape)
      return function.emitError() << "@" << function.getSymName()
                                  << ": malformed index check " << check;
    specs.push_back({op.str(), location.str(), noun.str(), bound.getInt(),
                     llvm::SmallVector<int64_t>(shape.asArrayRef())});
  }
  return specs;
}

FailureOr<std::vector<FunctionSignature>> collectSignatures(ModuleOp module) {
  std::vector<FunctionSignature> signatures;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!function.isPublic() || function.isExternal())
      continue;
    // The name becomes part of C symbols (`_mlir_ciface_<name>`).
    StringRef name = function.getSymName();
    if (name.empty() || llvm::isDigit(name.front()) ||
        !llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; }))
      return function.emitError()
             << "@" << name
             << ": the model ABI needs function names that are C identifiers";
    FunctionSignature signature;
    signature.name = name.str();
    FunctionType type = function.getFunctionType();
    for (auto [index, input] : llvm::enumerate(type.getInputs())) {
      FailureOr<TensorSpec> spec =
          specOf(function, input, function.getArgAttrDict(index), "arg", index);
      if (failed(spec))
        return failure();
      signature.inputs.push_back(*spec);
    }
    ArrayRef<Type> outputs = type.getResults();
    if (!outputs.empty() &&
        function.getResultAttr(outputs.size() - 1, kIndexReportAttr)) {
      FailureOr<std::vector<IndexCheckSpec>> checks = indexChecksOf(function);
      if (failed(checks))
        return failure();
      signature.indexChecks = std::move(*checks);
      outputs = outputs.drop_back();
    }
    for (auto [index, output] : llvm::enumerate(outputs)) {
      FailureOr<TensorSpec> spec = specOf(
          function, output, function.getResultAttrDict(index), "result", index);
      if (failed(spec))
        return failure();
      signature.outputs.push_back(*spec);
    }
    signatures.push_back(std::move(signature));
  }
  if (signatures.empty())
    return module.emitError("the module has no public function to compile");
  return signatures;
}

size_t bytesOf(const TensorSpec &spec) {
  size_t bytes = spec.dtype == MIXPREC_F32 || spec.dtype == MIXPREC_I32 ? 4
                 : spec.dtype == MIXPREC_I64                            ? 8
                 : spec.dtype == MIXPREC_BOOL                           ? 1
                                                                        : 2;
  for (int64_t size : spec.shape)
    bytes *= size_t(size);
  return bytes;
}

int64_t plannedPeakBytes(const FunctionSignature &function, bool cuda) {
  auto held = [&](size_t bytes) {
    return int64_t(cuda ? llvm::alignTo(bytes, 256) : bytes);
  };
  int64_t peak = held(size_t(function.workspaceBytes));
  for (const TensorSpec &input : function.inputs)
    peak += held(bytesOf(input));
  for (size_t output = 0; output < function.outputs.size(); ++output)
    if (function.outputHome(output) < 0)
      peak += held(bytesOf(function.outputs[output]));
  if (!function.indexChecks.empty())
    peak += held(3 * sizeof(int64_t));
  return peak;
}

LogicalResult readLoweredLayout(ModuleOp lowered,
                                std::vector<FunctionSignature> &signatures) {
  for (FunctionSignature &signature : signatures) {
    Operation *function = SymbolTable::lookupSymbolIn(lowered, signature.name);
    if (!function)
      return lowered.emitError("the lowered module lost @") << signature.name;
    auto homes =
        function->getAttrOfType<DenseI64ArrayAttr>(kResultsInArgumentsAttr);
    // Every original result, the index report included.
    size_t results =
        signature.outputs.size() + (signature.indexChecks.empty() ? 0 : 1);
    if (!homes || homes.size() != int64_t(results))
      return function->emitError("@")
             << signature.name << ": no '" << kResultsInArgumentsAttr
             << "' for its " << results << " results";
    signature.outputHomes.clear();
    for (size_t output = 0; output < signature.outputs.size(); ++output) {
      int64_t home = homes[output];
      if (home < -1 || home >= int64_t(signature.inputs.size()))
        return function->emitError("@")
               << signature.name << ": result " << output
               << " lives in no argument " << home;
      signature.outputHomes.push_back(int32_t(home));
    }
    if (!signature.indexChecks.empty() && homes.asArrayRef().back() != -1)
      return function->emitError("@")
             << signature.name << ": the index report lives in an argument";
    auto workspace = function->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr);
    signature.workspaceBytes = workspace ? workspace.getInt() : 0;
  }
  return success();
}

/// PyTorch's fans: dims 0 (out) and 1 (in) times the receptive field.
static std::pair<double, double> fansOf(RankedTensorType type) {
  double receptive = 1.0;
  for (int64_t size : type.getShape().drop_front(2))
    receptive *= double(size);
  return {double(type.getDimSize(1)) * receptive,
          double(type.getDimSize(0)) * receptive};
}

/// `initializer` for a tensor of `type` as a constant, uniform or normal
/// draw, with torch.nn.init's formulas for the fan-based ones.
static std::optional<StateInit> initOf(InitializerAttrInterface initializer,
                                       RankedTensorType type) {
  auto constant = [](double value) {
    return StateInit{StateInit::Constant, value, 0.0, 0};
  };
  auto uniform = [](double low, double high, uint64_t seed) {
    return StateInit{StateInit::Uniform, low, high, seed};
  };
  auto normal = [](double mean, double std, uint64_t seed) {
    return StateInit{StateInit::Normal, mean, std, seed};
  };
  auto kaimingGain = [](double a) { return std::sqrt(2.0 / (1.0 + a * a)); };
  return TypeSwitch<Attribute, std::optional<StateInit>>(initializer)
      .Case([&](ZerosInitAttr) { return constant(0.0); })
      .Case([&](OnesInitAttr) { return constant(1.0); })
      .Case([&](ConstantInitAttr init) {
        return constant(init.getValue().convertToDouble());
      })
      .Case([&](UniformInitAttr init) {
        return uniform(init.getLow().convertToDouble(),
                       init.getHigh().convertToDouble(), init.getSeed());
      })
      .Case([&](NormalInitAttr init) {
        return normal(init.getMean().convertToDouble(),
                      init.getStd().convertToDouble(), init.getSeed());
      })
      .Case([&](XavierUniformInitAttr init) {
        auto [fanIn, fanOut] = fansOf(type);
        double bound = init.getGain().convertToDouble() *
                       std::sqrt(6.0 / (fanIn + fanOut));
        return uniform(-bound, bound, init.getSeed());
      })
      .Case([&](XavierNormalInitAttr init) {
        auto [fanIn, fanOut] = fansOf(type);
        return normal(0.0,
                      init.getGain().convertToDouble() *
                          std::sqrt(2.0 / (fanIn + fanOut)),
                      init.getSeed());
      })
      .Case([&](KaimingUniformInitAttr init) {
        double bound = kaimingGain(init.getA().convertToDouble()) *
                       std::sqrt(3.0 / fansOf(type).first);
        return uniform(-bound, bound, init.getSeed());
      })
      .Case([&](KaimingNormalInitAttr init) {
        return normal(0.0,
                      kaimingGain(init.getA().convertToDouble()) /
                          std::sqrt(fansOf(type).first),
                      init.getSeed());
      })
      .Default([](Attribute) { return std::nullopt; });
}

/// The ABI's role of a parameter or buffer declaration.
static mixprec_state_role abiRoleOf(Operation &op) {
  auto buffer = dyn_cast<BufferOp>(op);
  if (!buffer)
    return MIXPREC_STATE_PARAMETER;
  std::optional<StateRole> role = buffer.getRole();
  if (!role)
    return MIXPREC_STATE_BUFFER;
  switch (*role) {
  case StateRole::StepCount:
    return MIXPREC_STATE_STEP_COUNT;
  case StateRole::Moment:
    return MIXPREC_STATE_MOMENT;
  case StateRole::LossScale:
    return MIXPREC_STATE_LOSS_SCALE;
  case StateRole::LossScaleTracker:
    return MIXPREC_STATE_LOSS_SCALE_TRACKER;
  case StateRole::LossScaleHysteresis:
    return MIXPREC_STATE_LOSS_SCALE_HYSTERESIS;
  case StateRole::Skipped:
    return MIXPREC_STATE_SKIPPED;
  case StateRole::SkippedSteps:
    return MIXPREC_STATE_SKIPPED_STEPS;
  case StateRole::FiniteGradients:
    return MIXPREC_STATE_FINITE_GRADIENTS;
  }
  llvm_unreachable("every StateRole has an ABI role");
}

/// The step of `steps` whose state `name` is (`<step>.<rest>`); empty if
/// none. A step's name is a C identifier, so it ends at the first dot.
static std::string owningStep(StringRef name, ArrayRef<std::string> steps) {
  auto [step, rest] = name.split('.');
  if (rest.empty() || !llvm::is_contained(steps, step))
    return "";
  return step.str();
}

FailureOr<std::vector<StateSpec>> collectState(ModuleOp module) {
  std::vector<StateSpec> state;
  std::vector<std::string> steps = trainStepNames(module);
  for (Operation &op : module.getOps()) {
    if (!isa<ParameterOp, BufferOp>(op))
      continue;
    auto type =
        cast<RankedTensorType>(cast<TypeAttr>(op.getAttr("type")).getValue());
    auto initializer =
        cast<InitializerAttrInterface>(op.getAttr("initializer"));
    std::optional<StateInit> init = initOf(initializer, type);
    if (!init)
      return op.emitError("the model runtime cannot initialize ")
             << initializer;
    // A fan of 0 (an empty dim) gives an infinite bound.
    if (!std::isfinite(init->a) || !std::isfinite(init->b))
      return op.emitError()
             << initializer << " has no finite bounds for " << type;
    StateSpec spec;
    spec.tensor.name = SymbolTable::getSymbolName(&op).str();
    spec.tensor.dtype = *dtypeOf(type.getElementType());
    spec.tensor.shape.assign(type.getShape().begin(), type.getShape().end());
    spec.role = abiRoleOf(op);
    if (spec.role != MIXPREC_STATE_PARAMETER &&
        spec.role != MIXPREC_STATE_BUFFER)
      spec.step = owningStep(spec.tensor.name, steps);
    spec.init = *init;
    state.push_back(std::move(spec));
  }
  return state;
}

std::vector<std::string> trainStepNames(ModuleOp module) {
  std::vector<std::string> names;
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr(kOptimizerStepAttr))
      names.push_back(function.getSymName().str());
  return names;
}

} // namespace mixprec
