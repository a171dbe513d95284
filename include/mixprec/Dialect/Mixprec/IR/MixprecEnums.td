//===- MixprecEnums.td - enums of the mixprec dialect -------*- tablegen -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_TD

include "mlir/IR/EnumAttr.td"
include "mixprec/Dialect/Mixprec/IR/MixprecDialect.td"

// An enum of the dialect. A bad value is an error that lists the valid ones,
// whether it is written `#mixprec<reduction avg>` (the parser below) or as
// another attribute kind, `reduction = "avg"` (the constraint's summary, which
// ODS quotes in "failed to satisfy constraint: ...").
class Mixprec_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mixprec";
  let genSpecializedAttr = 0;
  string validValues = !interleave(!foreach(case, cases, case.str), ", ");
  let parameterParser = [{[&]() -> ::mlir::FailureOr<}] # cppType # [{> {
    auto loc = $_parser.getCurrentLocation();
    std::string keyword;
    if (::mlir::failed($_parser.parseKeywordOrString(&keyword)))
      return ::mlir::failure();
    if (auto value = }] # cppNamespace # "::" # stringToSymbolFnName #
                         [{(keyword))
      return *value;
    return {(::llvm::LogicalResult)($_parser.emitError(loc)
        << "expected one of: }] # validValues # [{; got '" << keyword
        << "'")};
  }()}];
}

class Mixprec_EnumAttr<Mixprec_I32Enum enumInfo, string attrMnemonic>
    : EnumAttr<Mixprec_Dialect, enumInfo, attrMnemonic> {
  let summary = enumInfo.summary # "; expected one of: " #
      !interleave(!foreach(case, enumInfo.enumerants,
                           "#mixprec<" # attrMnemonic # " " # case.str # ">"),
                  ", ");
}

def Mixprec_AutocastCategory : Mixprec_I32Enum<"AutocastCategory",
    "the precision policy of an op kind (docs/design.md §1)", [
      I32EnumAttrCase<"TensorCore", 0, "tensor_core">,
      I32EnumAttrCase<"FP32", 1, "fp32">,
      I32EnumAttrCase<"Promote", 2, "promote">,
      I32EnumAttrCase<"Follow", 3, "follow">
    ]>;

def Mixprec_Reduction : Mixprec_I32Enum<"Reduction",
    "how a loss reduces over the batch", [
      I32EnumAttrCase<"Mean", 0, "mean">,
      I32EnumAttrCase<"Sum", 1, "sum">
    ]>;
def Mixprec_ReductionAttr : Mixprec_EnumAttr<Mixprec_Reduction, "reduction">;

def Mixprec_GeluApproximation : Mixprec_I32Enum<"GeluApproximation",
    "which form of GELU to compute", [
      I32EnumAttrCase<"Erf", 0, "erf">,
      I32EnumAttrCase<"Tanh", 1, "tanh">
    ]>;
def Mixprec_GeluApproximationAttr : Mixprec_EnumAttr<Mixprec_GeluApproximation,
                                                     "gelu_approximation">;

// Names stay what the runtime and checkpoints look up (`<step>.step_count`);
// the role says what a buffer holds without parsing its name.
def Mixprec_StateRole : Mixprec_I32Enum<"StateRole",
    "what a buffer that a train step owns holds", [
      I32EnumAttrCase<"StepCount", 0, "step_count">,
      I32EnumAttrCase<"Moment", 1, "moment">,
      I32EnumAttrCase<"LossScale", 2, "loss_scale">,
      I32EnumAttrCase<"LossScaleTracker", 3, "loss_scale_tracker">,
      I32EnumAttrCase<"LossScaleHysteresis", 4, "loss_scale_hysteresis">,
      I32EnumAttrCase<"Skipped", 5, "skipped">,
      I32EnumAttrCase<"SkippedSteps", 6, "skipped_steps">,
      I32EnumAttrCase<"FiniteGradients", 7, "finite_gradients">
    ]>;
def Mixprec_StateRoleAttr : Mixprec_EnumAttr<Mixprec_StateRole, "state_role">;

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_TD
