//===- MixprecEnums.td - enums of the mixprec dialect -------*- tablegen -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_TD

include "mlir/IR/EnumAttr.td"
include "mixprec/Dialect/Mixprec/IR/MixprecDialect.td"

def Mixprec_AutocastCategory : I32EnumAttr<"AutocastCategory",
    "the precision policy of an op kind (docs/design.md §1)", [
      I32EnumAttrCase<"TensorCore", 0, "tensor_core">,
      I32EnumAttrCase<"FP32", 1, "fp32">,
      I32EnumAttrCase<"Promote", 2, "promote">,
      I32EnumAttrCase<"Follow", 3, "follow">
    ]> {
  let cppNamespace = "::mixprec";
  let genSpecializedAttr = 0;
}

def Mixprec_Reduction : I32EnumAttr<"Reduction",
    "how a loss reduces over the batch", [
      I32EnumAttrCase<"Mean", 0, "mean">,
      I32EnumAttrCase<"Sum", 1, "sum">
    ]> {
  let cppNamespace = "::mixprec";
  let genSpecializedAttr = 0;
}
def Mixprec_ReductionAttr : EnumAttr<Mixprec_Dialect, Mixprec_Reduction,
                                     "reduction">;

def Mixprec_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "which form of GELU to compute", [
      I32EnumAttrCase<"Erf", 0, "erf">,
      I32EnumAttrCase<"Tanh", 1, "tanh">
    ]> {
  let cppNamespace = "::mixprec";
  let genSpecializedAttr = 0;
}
def Mixprec_GeluApproximationAttr : EnumAttr<Mixprec_Dialect,
    Mixprec_GeluApproximation, "gelu_approximation">;

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_TD
