//===- MixprecInterfaces.td - interfaces of mixprec ---------*- tablegen -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECINTERFACES_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECINTERFACES_TD

include "mlir/IR/OpBase.td"

def Mixprec_AutocastOpInterface : OpInterface<"AutocastOpInterface"> {
  let cppNamespace = "::mixprec";
  let description = [{
    Every op of the dialect declares the autocast category of its kind
    (docs/design.md §1): `tensor_core` ops take 16-bit inputs and accumulate
    in FP32, `fp32` ops take FP32 inputs, `promote` ops run in their widest
    input type and `follow` ops run in whatever their input is. An op gets its
    category from exactly one of the traits `TensorCoreCategory`,
    `FP32Category`, `PromoteCategory` or `FollowCategory`; none or two fail to
    compile.
  }];
  let methods = [
    StaticInterfaceMethod<"the default category of this op kind",
      "::mixprec::AutocastCategory", "getDefaultAutocastCategory">
  ];
}

def Mixprec_InitializerAttrInterface
    : AttrInterface<"InitializerAttrInterface"> {
  let cppNamespace = "::mixprec";
  let description = [{
    How a parameter or buffer gets its initial value. Random initializers
    carry a seed, so initialization is deterministic.
  }];
  let methods = [
    InterfaceMethod<[{
        Checks that this initializer can fill a tensor of `type`; reports why
        not through `emitError`.
      }],
      "::llvm::LogicalResult", "verifyFor",
      (ins "::mlir::RankedTensorType":$type,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError),
      [{}], [{ return ::mlir::success(); }]>
  ];
}

def Mixprec_OptimizerAttrInterface : AttrInterface<"OptimizerAttrInterface"> {
  let cppNamespace = "::mixprec";
  let description = [{
    An optimizer of the train-step op: its hyper-parameters (the learning rate
    is a runtime input of the step, not one of them), the FP32 state it
    keeps per parameter, and its update op, which carries the optimizer as
    its attribute. `--mixprec-autodiff` builds a step through this interface
    alone, so an optimizer is one attribute, its update op and its lowering.
  }];
  let methods = [
    InterfaceMethod<[{
        Names of the FP32 moment tensors kept per parameter (the last part
        of their buffers' names, `@<step>.<parameter>.<moment>`), in the
        order the update op takes them.
      }],
      "::llvm::SmallVector<::llvm::StringRef>", "getMomentNames">,
    InterfaceMethod<"weight decay factor", "::llvm::APFloat", "getWeightDecay">,
    InterfaceMethod<"whether rank <= 1 parameters (biases, norm parameters) "
                    "are decayed too", "bool", "getDecayNormAndBias">,
    InterfaceMethod<[{
        Creates the update of one parameter `param` from its gradient `grad`
        (in the parameter's type), its current `moments` (in
        `getMomentNames()` order), the learning rate `lr` and `stepCount`,
        the count of steps taken with this one. The update's attribute is
        this optimizer with the weight decay of this parameter: its own when
        `decayed`, else 0.
      }],
      "::mixprec::OptimizerUpdateOpInterface", "buildUpdate",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::Value":$param, "::mlir::Value":$grad,
           "::mlir::ValueRange":$moments, "::mlir::Value":$lr,
           "::mlir::Value":$stepCount, "bool":$decayed)>
  ];
}

def Mixprec_AdamFamilyAttrInterface : AttrInterface<"AdamFamilyAttrInterface"> {
  let cppNamespace = "::mixprec";
  let description = [{
    Adam and AdamW: the hyper-parameters `mixprec.adam_update` computes with.
    They differ only in how the weight decay applies.
  }];
  let methods = [
    InterfaceMethod<"decay of the first moment", "::llvm::APFloat", "getBeta1">,
    InterfaceMethod<"decay of the second moment", "::llvm::APFloat",
                    "getBeta2">,
    InterfaceMethod<"denominator epsilon", "::llvm::APFloat", "getEps">,
    InterfaceMethod<"weight decay factor", "::llvm::APFloat", "getWeightDecay">,
    InterfaceMethod<[{
        AdamW: the parameter shrinks by `1 - lr * weight_decay`; Adam adds
        `weight_decay * param` to the gradient.
      }],
      "bool", "isDecoupled">
  ];
}

def Mixprec_OptimizerUpdateOpInterface
    : OpInterface<"OptimizerUpdateOpInterface"> {
  let cppNamespace = "::mixprec";
  let description = [{
    One optimizer step on one parameter: what passes that move gradients
    (loss scaling, master weights) and count state (the memory report) need
    to know of any update op, whatever its optimizer.
  }];
  let methods = [
    InterfaceMethod<"the parameter's current value",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getParam">,
    InterfaceMethod<"the parameter operand", "::mlir::OpOperand &",
      "getParamMutable">,
    InterfaceMethod<"the gradient, in the parameter's type",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getGrad">,
    InterfaceMethod<"the gradient operand", "::mlir::OpOperand &",
      "getGradMutable">,
    InterfaceMethod<"the optimizer's FP32 moments of the parameter, in the "
                    "optimizer's `getMomentNames()` order",
      "::mlir::OperandRange", "getMoments">,
    InterfaceMethod<"the parameter's new value",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getParamOut">,
    InterfaceMethod<"the new moments, one per moment operand",
      "::mlir::ResultRange", "getMomentsOut">
  ];
}

def Mixprec_IndexedAccessOpInterface
    : OpInterface<"IndexedAccessOpInterface"> {
  let cppNamespace = "::mixprec";
  let description = [{
    An op that addresses a tensor with integer data: class labels, token ids.
    `--mixprec-check-indices` checks each such op's indices at run time, so
    that a bad one fails the call with its position and value instead of
    reading out of bounds (docs/design.md §5).
  }];
  let methods = [
    InterfaceMethod<"the integer tensor whose elements address the data",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getAccessIndices">,
    InterfaceMethod<"indices must lie in [0, bound)", "int64_t",
      "getIndexBound">,
    InterfaceMethod<"what an index is called in messages (\"label\")",
      "::llvm::StringRef", "getIndexNoun">,
    InterfaceMethod<"an index value that is skipped instead of checked",
      "std::optional<int64_t>", "getSkippedIndex", (ins), [{}],
      [{ return std::nullopt; }]>
  ];
}

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECINTERFACES_TD
