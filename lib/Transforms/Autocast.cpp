//===- Autocast.cpp - per-op precision with the fewest casts --------------===//
//
// --mixprec-autocast. Every float value of a function is labelled 16-bit or
// FP32 (or keeps a fixed type); the labels are the two sides of a minimum
// cut in a graph where
//   - the source is "16-bit" and the sink "FP32": values whose precision is
//     fixed (arguments, model state, results of fp32 and pinned ops) are the
//     source or the sink themselves;
//   - every undecided value (follow/promote ops, contraction results,
//     constants) is a node; a promote op may be 16-bit only if its inputs
//     are (infinite edges);
//   - a value whose users want a precision it may not have costs one cast
//     per (value, type): an auxiliary node with a unit edge models "v is
//     16-bit and some user wants FP32" and another "v is FP32 and some user
//     wants 16 bits".
// The cut with the largest source side is taken, so ties go to 16 bits.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/MinCut.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECAUTOCAST
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// The precision of a value or a use: a MinCut node (the source is 16-bit,
/// the sink FP32, any other node undecided) or a fixed element type that is
/// neither (e.g. bf16 when autocasting to f16).
struct Term {
  int node = -1;
  Type fixed;

  static Term ofNode(int node) { return {node, {}}; }
  bool isNode() const { return node >= 0; }
  bool operator==(const Term &other) const {
    return node == other.node && fixed == other.fixed;
  }
};

enum class Role { Keep, TensorCore, FP32, Pinned, Free };

/// How one op is treated, and the rule reported for it.
struct OpPlan {
  Role role = Role::Keep;
  Term precision; // TensorCore, FP32, Pinned, Free: what its inputs get
  StringAttr rule;
};

using Overrides = llvm::DenseMap<OperationName, AutocastCategory>;

/// A use whose value must have a precision.
struct Requirement {
  OpOperand *use;
  Term term;
};

Type elementTypeOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType()) ? type.getElementType()
                                                       : Type();
}

/// Batch-norm running statistics are FP32 state, not activations: they keep
/// their type whatever the op's precision.
bool isStatistic(Operation *op, Value value) {
  auto batchNorm = dyn_cast<BatchNormOp>(op);
  return batchNorm &&
         llvm::is_contained(ValueRange{batchNorm.getRunningMean(),
                                       batchNorm.getRunningVar(),
                                       batchNorm.getRunningMeanOut(),
                                       batchNorm.getRunningVarOut()},
                            value);
}

/// Operands and results that run at the op's precision.
bool atOpPrecision(Operation *op, Value value) {
  return elementTypeOf(value) && !isStatistic(op, value);
}

std::string categoryName(AutocastCategory category) {
  return stringifyAutocastCategory(category).str();
}

class AutocastPass : public mixprec::impl::MixprecAutocastBase<AutocastPass> {
public:
  using MixprecAutocastBase::MixprecAutocastBase;

  void runOnOperation() override;

private:
  LogicalResult parseOptions();
  LogicalResult addOverrides(ArrayRef<std::string> names,
                             AutocastCategory category, StringRef option);
  Type lowType;
  bool tensorCoreOnly = false;
  Overrides overrides;
};

/// Builds the cut problem of one function, solves it and rewrites the IR.
class PrecisionAssignment {
public:
  PrecisionAssignment(Type lowType, bool tensorCoreOnly,
                      const Overrides &overrides,
                      const llvm::DenseSet<Attribute> &parameters)
      : lowType(lowType), f32Type(Float32Type::get(lowType.getContext())),
        tensorCoreOnly(tensorCoreOnly), overrides(overrides),
        parameters(parameters) {}

  LogicalResult run(FunctionOpInterface function);

private:
  Term termFor(Type elementType) const {
    if (elementType == lowType)
      return Term::ofNode(MinCut::kSource);
    if (elementType == f32Type)
      return Term::ofNode(MinCut::kSink);
    return {-1, elementType};
  }
  Type typeOf(const Term &term) const {
    if (!term.isNode())
      return term.fixed;
    return cut.onSourceSide(term.node) ? lowType : f32Type;
  }

  /// The rule attribute with `text`, made once per distinct rule.
  StringAttr ruleAttr(StringRef text) {
    StringAttr &attr = rules[text];
    if (!attr)
      attr = StringAttr::get(lowType.getContext(), text);
    return attr;
  }

  /// "<category>[ (override)]", as "propagated (...)" for follow and
  /// promote ops, whose precision the cut decides.
  StringAttr categoryRule(AutocastCategory category, bool overridden) {
    StringAttr &attr =
        categoryRules[static_cast<unsigned>(category)][overridden];
    if (attr)
      return attr;
    std::string rule = categoryName(category);
    if (overridden)
      rule += " (override)";
    if (category == AutocastCategory::Promote ||
        category == AutocastCategory::Follow)
      rule = "propagated (" + rule + ")";
    return attr = ruleAttr(rule);
  }

  OpPlan planOp(Operation *op);
  void defineResults(Operation *op, const OpPlan &plan);
  void addRequirements(Operation *op, const OpPlan &plan);
  void addCastCosts(Term term, ArrayRef<Requirement> wanted);
  void retype(Value value, Type elementType);
  Value castTo(Value value, Type elementType, const Requirement &reason);

  Type lowType, f32Type;
  bool tensorCoreOnly;
  const Overrides &overrides;
  const llvm::DenseSet<Attribute> &parameters; // their symbol references

  MinCut cut;
  /// Every float value of the function, in definition order, with its
  /// precision and the uses that want another.
  struct ValueInfo {
    Value value;
    Term term;
    SmallVector<Requirement, 1> wanted;
  };
  SmallVector<ValueInfo> values;
  llvm::DenseMap<Value, unsigned> valueIndex;

  void define(Value value, Term term) {
    valueIndex.try_emplace(value, values.size());
    values.push_back({value, term, {}});
  }
  ValueInfo &infoOf(Value value) { return values[valueIndex.at(value)]; }
  llvm::StringMap<StringAttr> rules;
  StringAttr categoryRules[4][2];
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  llvm::DenseMap<Block *, Operation *> lastCastAtStart;
  llvm::DenseMap<Operation *, Operation *> lastCastAfter;
};

} // namespace

OpPlan PrecisionAssignment::planOp(Operation *op) {
  OpPlan plan;
  auto iface = dyn_cast<AutocastOpInterface>(op);
  if (!iface || op->hasTrait<KeepsTypes>())
    return plan;
  // Only dense constants can be rounded to another type.
  if (auto constant = dyn_cast<ConstantOp>(op);
      constant && !isa<DenseFPElementsAttr>(constant.getValue()))
    return plan;
  AutocastCategory category = iface.getDefaultAutocastCategory();
  bool overridden = false;
  if (auto it = overrides.find(op->getName()); it != overrides.end()) {
    category = it->second;
    overridden = true;
  }
  if (auto pinned = op->getAttrOfType<TypeAttr>(kPrecisionAttr)) {
    plan.role = Role::Pinned;
    plan.precision = termFor(pinned.getValue());
    plan.rule = ruleAttr("pinned");
    return plan;
  }
  if (tensorCoreOnly && category != AutocastCategory::TensorCore) {
    plan.rule = ruleAttr("kept (level=tensor-core-only)");
    return plan;
  }
  plan.rule = categoryRule(category, overridden);
  switch (category) {
  case AutocastCategory::TensorCore:
    plan.role = Role::TensorCore;
    plan.precision = Term::ofNode(MinCut::kSource);
    return plan;
  case AutocastCategory::FP32:
    plan.role = Role::FP32;
    plan.precision = Term::ofNode(MinCut::kSink);
    return plan;
  case AutocastCategory::Promote:
  case AutocastCategory::Follow:
    break;
  }
  plan.role = Role::Free;
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (atOpPrecision(op, operand))
      inputs.push_back(operand);
  // An op whose inputs all have one third type (bf16 when autocasting to
  // f16, say) keeps that type.
  if (!inputs.empty()) {
    Term first = infoOf(inputs.front()).term;
    if (!first.isNode() && llvm::all_of(inputs, [&](Value input) {
          return infoOf(input).term == first;
        })) {
      plan.precision = first;
      return plan;
    }
  }
  plan.precision = Term::ofNode(cut.addNode());
  // A follow op runs at its input's precision unless a cast on either side
  // of it is cheaper: the cut's cost terms decide.
  if (category == AutocastCategory::Follow && inputs.size() == 1)
    return plan;
  // A promote op (or a follow op with several inputs) is 16-bit only if
  // every input is: no input is cast down for it.
  for (Value input : inputs) {
    Term term = infoOf(input).term;
    cut.addEdge(plan.precision.node, term.isNode() ? term.node : MinCut::kSink,
                MinCut::kInfinite);
  }
  return plan;
}

void PrecisionAssignment::defineResults(Operation *op, const OpPlan &plan) {
  bool contraction = isContraction(op);
  for (Value result : op->getResults()) {
    Type type = elementTypeOf(result);
    if (!type)
      continue;
    Term term = termFor(type);
    if (plan.role != Role::Keep && atOpPrecision(op, result)) {
      // A contraction yields its input type or its FP32 accumulator, so its
      // result is undecided while its inputs are the working precision.
      bool yieldsEither =
          contraction && plan.precision == Term::ofNode(MinCut::kSource);
      term = yieldsEither ? Term::ofNode(cut.addNode()) : plan.precision;
    }
    define(result, term);
  }
}

void PrecisionAssignment::addRequirements(Operation *op, const OpPlan &plan) {
  // A cast converts whatever it gets.
  if (isa<CastOp>(op))
    return;
  for (OpOperand &use : op->getOpOperands()) {
    Type type = elementTypeOf(use.get());
    if (!type)
      continue;
    Term wanted = plan.role != Role::Keep && atOpPrecision(op, use.get())
                      ? plan.precision
                      : termFor(type);
    ValueInfo &info = infoOf(use.get());
    if (!(wanted == info.term))
      info.wanted.push_back({&use, wanted});
  }
}

void PrecisionAssignment::addCastCosts(Term term,
                                       ArrayRef<Requirement> wanted) {
  // A value of a fixed third type needs a cast to 16 bits if any user
  // wants 16 bits, and one to FP32 if any wants FP32.
  int asLow = term.isNode() ? term.node : MinCut::kSource;
  int asHigh = term.isNode() ? term.node : MinCut::kSink;
  int someUserHigh = -1, someUserLow = -1;
  for (const Requirement &requirement : wanted) {
    if (!requirement.term.isNode())
      continue;
    int node = requirement.term.node;
    if (node != MinCut::kSource) {
      if (someUserHigh < 0) {
        someUserHigh = cut.addNode();
        cut.addEdge(asLow, someUserHigh, 1);
      }
      cut.addEdge(someUserHigh, node, MinCut::kInfinite);
    }
    if (node != MinCut::kSink) {
      if (someUserLow < 0) {
        someUserLow = cut.addNode();
        cut.addEdge(someUserLow, asHigh, 1);
      }
      cut.addEdge(node, someUserLow, MinCut::kInfinite);
    }
  }
}

void PrecisionAssignment::retype(Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (elementType == type.getElementType())
    return;
  value.setType(type.clone(elementType));
  // Constants are materialized in their new type: rounded once, now.
  if (auto constant = value.getDefiningOp<ConstantOp>()) {
    auto semantics = &cast<FloatType>(elementType).getFloatSemantics();
    auto values = cast<DenseFPElementsAttr>(constant.getValue());
    constant.setValueAttr(
        values.mapValues(elementType, [&](const APFloat &element) {
          APFloat converted = element;
          bool losesInfo;
          converted.convert(*semantics, APFloat::rmNearestTiesToEven,
                            &losesInfo);
          return converted.bitcastToAPInt();
        }));
  }
}

Value PrecisionAssignment::castTo(Value value, Type elementType,
                                  const Requirement &reason) {
  auto [it, inserted] = casts.try_emplace({value, elementType});
  if (!inserted)
    return it->second;
  // Casts follow the definition (block arguments: the block's start) in
  // the order they are made.
  OpBuilder builder(value.getContext());
  Operation *&previous =
      isa<BlockArgument>(value)
          ? lastCastAtStart[cast<BlockArgument>(value).getOwner()]
          : lastCastAfter[value.getDefiningOp()];
  if (previous)
    builder.setInsertionPointAfter(previous);
  else
    builder.setInsertionPointAfterValue(value);
  auto type = cast<RankedTensorType>(value.getType());
  auto castOp =
      CastOp::create(builder, value.getLoc(), type.clone(elementType), value);
  Operation *user = reason.use->getOwner();
  std::string rule = "cast: for " + user->getName().getStringRef().str();
  if (auto userRule = user->getAttrOfType<StringAttr>(kAutocastRuleAttr))
    rule += " (" + userRule.getValue().str() + ")";
  castOp->setAttr(kAutocastRuleAttr, ruleAttr(rule));
  it->second = castOp;
  previous = castOp;
  return castOp;
}

LogicalResult PrecisionAssignment::run(FunctionOpInterface function) {
  SmallVector<Operation *> ops;
  SmallVector<CastOp> userCasts;
  // Parameters do not change within a step, so every read of one in a block
  // shares the first: its working copy is then made once.
  llvm::DenseMap<std::pair<Block *, Attribute>, ReadOp> firstReads;
  SmallVector<ReadOp> mergedReads;
  size_t numResults = 0;
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto read = dyn_cast<ReadOp>(op);
        read && parameters.contains(read.getStateAttr())) {
      auto [first, inserted] =
          firstReads.try_emplace({read->getBlock(), read.getStateAttr()}, read);
      if (!inserted && first->second.getType() == read.getType()) {
        read.replaceAllUsesWith(first->second.getResult());
        mergedReads.push_back(read);
        return;
      }
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (Type type = elementTypeOf(argument))
            define(argument, termFor(type));
    if (op == function.getOperation())
      return;
    ops.push_back(op);
    numResults += op->getNumResults();
    if (auto castOp = dyn_cast<CastOp>(op))
      userCasts.push_back(castOp);
  });

  for (ReadOp read : mergedReads)
    read.erase();

  values.reserve(values.size() + numResults);
  valueIndex.reserve(values.size() + numResults);
  SmallVector<OpPlan> plans;
  plans.reserve(ops.size());
  for (Operation *op : ops) {
    plans.push_back(planOp(op));
    defineResults(op, plans.back());
    addRequirements(op, plans.back());
  }
  for (const ValueInfo &info : values)
    if (!info.wanted.empty())
      addCastCosts(info.term, info.wanted);
  if (cut.solve() >= MinCut::kInfinite)
    return function->emitError("autocast found no precision assignment that "
                               "obeys the categories");

  for (auto [op, plan] : llvm::zip_equal(ops, plans))
    if (plan.rule && op->getAttr(kAutocastRuleAttr) != plan.rule)
      op->setAttr(kAutocastRuleAttr, plan.rule);
  for (const ValueInfo &info : values)
    retype(info.value, typeOf(info.term));
  for (const ValueInfo &info : values) {
    for (const Requirement &requirement : info.wanted) {
      Type type = typeOf(requirement.term);
      if (type != elementTypeOf(info.value))
        requirement.use->set(castTo(info.value, type, requirement));
    }
  }
  // Casts whose input now has their result type convert nothing.
  for (CastOp castOp : userCasts) {
    if (castOp.getInput().getType() == castOp.getType()) {
      castOp.replaceAllUsesWith(castOp.getInput());
      castOp.erase();
    }
  }
  return success();
}

LogicalResult AutocastPass::addOverrides(ArrayRef<std::string> names,
                                         AutocastCategory category,
                                         StringRef option) {
  MLIRContext *context = &getContext();
  for (StringRef name : names) {
    std::string full =
        name.starts_with("mixprec.") ? name.str() : "mixprec." + name.str();
    std::optional<RegisteredOperationName> opName =
        RegisteredOperationName::lookup(full, context);
    if (!opName || !opName->hasInterface<AutocastOpInterface>())
      return getOperation().emitError()
             << "mixprec-autocast: unknown op '" << name << "' in " << option
             << " (expected a compute op of the mixprec dialect, e.g. "
                "softmax)";
    if (opName->hasTrait<KeepsTypes>())
      return getOperation().emitError()
             << "mixprec-autocast: '" << full
             << "' keeps its types; it cannot be moved to another category";
    auto [it, inserted] = overrides.try_emplace(*opName, category);
    if (!inserted && it->second != category)
      return getOperation().emitError()
             << "mixprec-autocast: '" << full << "' is moved to both "
             << categoryName(it->second) << " and " << categoryName(category);
  }
  return success();
}

LogicalResult AutocastPass::parseOptions() {
  MLIRContext *context = &getContext();
  if (precision == AutocastPrecision::F16)
    lowType = Float16Type::get(context);
  else
    lowType = BFloat16Type::get(context);
  tensorCoreOnly = level == AutocastLevel::TensorCoreOnly;
  overrides.clear();
  if (failed(addOverrides(tensorCoreOps, AutocastCategory::TensorCore,
                          "tensor-core-ops")) ||
      failed(addOverrides(fp32Ops, AutocastCategory::FP32, "fp32-ops")) ||
      failed(
          addOverrides(promoteOps, AutocastCategory::Promote, "promote-ops")) ||
      failed(addOverrides(followOps, AutocastCategory::Follow, "follow-ops")))
    return failure();
  return success();
}

void AutocastPass::runOnOperation() {
  if (failed(parseOptions()))
    return signalPassFailure();
  llvm::DenseSet<Attribute> parameters;
  for (auto parameter : getOperation().getOps<ParameterOp>())
    parameters.insert(FlatSymbolRefAttr::get(parameter.getSymNameAttr()));
  for (auto function : getOperation().getOps<FunctionOpInterface>()) {
    if (function.isExternal())
      continue;
    PrecisionAssignment assignment(lowType, tensorCoreOnly, overrides,
                                   parameters);
    if (failed(assignment.run(function)))
      return signalPassFailure();
  }
}
