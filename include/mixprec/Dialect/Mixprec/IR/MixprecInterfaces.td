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

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECINTERFACES_TD
