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
    is a runtime input of the step, not one of them) and the FP32 state it
    keeps per parameter.
  }];
  let methods = [
    InterfaceMethod<"number of FP32 moment tensors kept per parameter",
      "unsigned", "getNumMoments">,
    InterfaceMethod<"weight decay factor", "::llvm::APFloat", "getWeightDecay">,
    InterfaceMethod<"whether rank <= 1 parameters (biases, norm parameters) "
                    "are decayed too", "bool", "getDecayNormAndBias">
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
