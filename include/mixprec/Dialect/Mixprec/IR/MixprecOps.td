//===- MixprecOps.td - ops of the mixprec dialect -----------*- tablegen -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPS_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mixprec/Dialect/Mixprec/IR/MixprecDialect.td"
include "mixprec/Dialect/Mixprec/IR/MixprecEnums.td"
include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.td"
include "mixprec/Dialect/Mixprec/IR/MixprecInterfaces.td"
include "mixprec/Dialect/Mixprec/IR/MixprecAdjointInterface.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Mixprec_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16]>;
def Mixprec_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Mixprec_Tensor : StaticShapeTensorOf<[F32, F16, BF16, I1, I32, I64]>;
def Mixprec_F32Tensor : StaticShapeTensorOf<[F32]>;
def Mixprec_I1Tensor : StaticShapeTensorOf<[I1]>;
// What a buffer can hold: float tensors, integer counters such as the
// optimizer's step count, and flags such as the loss scaler's.
def Mixprec_StateTensor : StaticShapeTensorOf<[F32, F16, BF16, I1, I32, I64]>;

class Mixprec_ScalarOf<Type elementType, string elementBuilder>
    : Type<And<[IsRankedTensorTypePred,
                CPred<"::llvm::cast<::mlir::RankedTensorType>($_self)"
                      ".getRank() == 0">,
                SubstLeaves<"$_self",
                            "::llvm::cast<::mlir::ShapedType>($_self)"
                            ".getElementType()",
                            elementType.predicate>]>,
           "0-d tensor of " # elementType.summary, "::mlir::RankedTensorType">,
      BuildableType<"::mlir::RankedTensorType::get({}, " # elementBuilder # ")">;

def Mixprec_F32Scalar : Mixprec_ScalarOf<F32, "$_builder.getF32Type()">;
def Mixprec_I32Scalar : Mixprec_ScalarOf<I32, "$_builder.getI32Type()">;
def Mixprec_I64Scalar : Mixprec_ScalarOf<I64, "$_builder.getI64Type()">;
def Mixprec_I1Scalar : Mixprec_ScalarOf<I1, "$_builder.getI1Type()">;

def Mixprec_RngState
    : Type<And<[IsRankedTensorTypePred,
                CPred<"::llvm::cast<::mlir::RankedTensorType>($_self)"
                      ".getShape() == ::llvm::ArrayRef<int64_t>{2}">,
                SubstLeaves<"$_self",
                            "::llvm::cast<::mlir::ShapedType>($_self)"
                            ".getElementType()",
                            I64.predicate>]>,
           "tensor<2xi64> RNG state (seed, offset)",
           "::mlir::RankedTensorType">,
      BuildableType<"::mlir::RankedTensorType::get({2}, "
                    "$_builder.getI64Type())">;

// What --mixprec-check-indices returns to the caller: [check, position,
// value], check < 0 when every index was in range.
def Mixprec_IndexReport
    : Type<And<[IsRankedTensorTypePred,
                CPred<"::llvm::cast<::mlir::RankedTensorType>($_self)"
                      ".getShape() == ::llvm::ArrayRef<int64_t>{3}">,
                SubstLeaves<"$_self",
                            "::llvm::cast<::mlir::ShapedType>($_self)"
                            ".getElementType()",
                            I64.predicate>]>,
           "tensor<3xi64> index report (check, position, value)",
           "::mlir::RankedTensorType">,
      BuildableType<"::mlir::RankedTensorType::get({3}, "
                    "$_builder.getI64Type())">;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

def Mixprec_StateResource : Resource<"::mixprec::ModelStateResource">;

def Mixprec_TensorCoreCategory : NativeOpTrait<"TensorCoreCategory"> {
  let cppNamespace = "::mixprec";
}
def Mixprec_FP32Category : NativeOpTrait<"FP32Category"> {
  let cppNamespace = "::mixprec";
}
def Mixprec_PromoteCategory : NativeOpTrait<"PromoteCategory"> {
  let cppNamespace = "::mixprec";
}
def Mixprec_FollowCategory : NativeOpTrait<"FollowCategory"> {
  let cppNamespace = "::mixprec";
}
// Autocast never changes the types of this op (model state, casts, training
// ops); it cannot be pinned or moved to another category.
def Mixprec_KeepsTypes : NativeOpTrait<"KeepsTypes"> {
  let cppNamespace = "::mixprec";
}

// Element i of the result is computed from element i of each operand alone
// (the operands have the result's shape): the backends fuse such ops into
// their readers (docs/design.md §12). A marker: shapes are verified by each
// op, with its own message.
def Mixprec_ComputesElementwise : NativeOpTrait<"ComputesElementwise"> {
  let cppNamespace = "::mixprec";
}

// InferTypeOpAdaptor, except that the adaptor also sees the attributes of an
// op being parsed: the custom parser infers result types while the parsed
// attributes are still a dictionary, before they are stored as properties.
def Mixprec_InferTypeOpAdaptor : TraitList<[
  DeclareOpInterfaceMethods<InferTypeOpInterface>,
  NativeOpTrait<"InferTypeOpAdaptor", [], [{
    static ::llvm::LogicalResult
    inferReturnTypes(::mlir::MLIRContext *context,
                     std::optional<::mlir::Location> location, Adaptor adaptor,
                     ::llvm::SmallVectorImpl<::mlir::Type> &types);
  }], [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      Properties props;
      if (properties) {
        props = *properties.as<Properties *>();
      } else if (attributes) {
        auto emitError = [&] {
          return ::mlir::emitError(
              location ? *location : ::mlir::UnknownLoc::get(context));
        };
        if (::mlir::failed(setPropertiesFromAttr(props, attributes,
                                                 emitError)))
          return ::mlir::failure();
        populateDefaultProperties(
            ::mlir::OperationName(getOperationName(), context), props);
      }
      return inferReturnTypes(context, location,
                              Adaptor(operands, attributes, props, regions),
                              types);
    }
  }]>
]>;

// An attribute must be the op's own or carry a dialect prefix
// (docs/design.md §6).
def Mixprec_KnownAttributesOnly : NativeOpTrait<"KnownAttributesOnly"> {
  let cppNamespace = "::mixprec";
}

// The op builds its adjoint (AdjointOpInterface) in its group's
// *Adjoints.cpp file.
defvar Mixprec_HasAdjoint =
    DeclareOpInterfaceMethods<Mixprec_AdjointOpInterface>;

// Every op names its autocast category: the table of docs/design.md §1.
class Mixprec_Op<string mnemonic, Trait category, list<Trait> traits = []>
    : Op<Mixprec_Dialect, mnemonic,
         !listconcat([category, Mixprec_AutocastOpInterface,
                      Mixprec_KnownAttributesOnly], traits)>;

//===----------------------------------------------------------------------===//
// Model state
//===----------------------------------------------------------------------===//

class Mixprec_StateDeclOp<string mnemonic>
    : Mixprec_Op<mnemonic, Mixprec_FP32Category,
                 [Symbol, HasParent<"::mlir::ModuleOp">,
                  Mixprec_KeepsTypes]> {
  let hasVerifier = 1;
}

def Mixprec_ParameterOp : Mixprec_StateDeclOp<"parameter"> {
  let summary = "a trainable tensor of the model";
  let description = [{
    Declares a trainable parameter: its name, type and initializer. The
    optimizer updates it; functions read it with `mixprec.read`. Weight decay
    applies to parameters of rank >= 2 unless the optimizer says
    `decay_norm_and_bias = true`; `weight_decay = true|false` overrides that
    for one parameter.

    ```mlir
    mixprec.parameter @fc1_w : tensor<128x64xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 1>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<Mixprec_FloatTensor>:$type,
                       Mixprec_InitializerAttrInterface:$initializer,
                       OptionalAttr<BoolAttr>:$weight_decay);
  let assemblyFormat = "$sym_name `:` $type `=` $initializer attr-dict";
}

def Mixprec_BufferOp : Mixprec_StateDeclOp<"buffer"> {
  let summary = "non-trainable model state, such as batch-norm statistics";
  let description = [{
    Declares state that the optimizer does not touch; functions update it
    with `mixprec.assign`. Integer buffers (counters such as the optimizer's
    step count) start from `zeros`, `ones` or an integral `constant`.

    A buffer that a train step owns (its step count, optimizer moments,
    loss-scale state and skip reports) carries its `role`, which fixes its
    type: passes find such state by role, not by name.

    ```mlir
    mixprec.buffer @bn1_mean : tensor<8xf32> = #mixprec.zeros
    mixprec.buffer @train.step_count : tensor<i64> = #mixprec.zeros role step_count
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<Mixprec_StateTensor>:$type,
                       Mixprec_InitializerAttrInterface:$initializer,
                       OptionalAttr<Mixprec_StateRoleAttr>:$role);
  let assemblyFormat = [{
    $sym_name `:` $type `=` $initializer (`role` $role^)? attr-dict
  }];
}

def Mixprec_ReadOp : Mixprec_Op<"read", Mixprec_FollowCategory, [
    Mixprec_KeepsTypes, DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemRead<Mixprec_StateResource>]>, Mixprec_HasAdjoint]> {
  let summary = "reads the current value of a parameter or buffer";
  let arguments = (ins FlatSymbolRefAttr:$state);
  let results = (outs Mixprec_StateTensor:$result);
  let assemblyFormat = "$state attr-dict `:` type($result)";
}

def Mixprec_AssignOp : Mixprec_Op<"assign", Mixprec_FP32Category, [
    Mixprec_KeepsTypes, DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemWrite<Mixprec_StateResource>]>]> {
  let summary = "sets a buffer's value for the next step";
  let arguments = (ins FlatSymbolRefAttr:$buffer, Mixprec_StateTensor:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($value)";
}

def Mixprec_RngStateOp : Mixprec_Op<"rng_state", Mixprec_FollowCategory, [
    Mixprec_KeepsTypes, MemoryEffects<[MemRead<Mixprec_StateResource>]>,
    Mixprec_HasAdjoint]> {
  let summary = "the train step's counter-based RNG state";
  let description = [{
    Yields the (seed, offset) pair of the Philox generator that the train
    step threads through its state; the step advances the offset once per
    step. Random ops take it as an operand.
  }];
  let results = (outs Mixprec_RngState:$result);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Contractions (tensor-core category)
//===----------------------------------------------------------------------===//

class Mixprec_ContractionOp<string mnemonic, list<Trait> traits = []>
    : Mixprec_Op<mnemonic, Mixprec_TensorCoreCategory,
                 !listconcat([Pure, DeclareOpInterfaceMethods<
                     Mixprec_AdjointOpInterface, ["getRecomputeFlops"]>],
                     traits)> {
  let hasVerifier = 1;
  code typeRuleDoc = [{
    Both inputs (and the bias) share one element type. The result has that
    type or f32: 16-bit inputs with an f32 result keep the FP32 accumulator.
  }];
}

def Mixprec_MatmulOp : Mixprec_ContractionOp<"matmul"> {
  let summary = "matrix product of two rank-2 tensors";
  let description = typeRuleDoc # [{
    `transpose_lhs` / `transpose_rhs` use the transposed operand.

    ```mlir
    %c = mixprec.matmul %a, %b {transpose_rhs} : tensor<4x8xf16>, tensor<16x8xf16> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$lhs, Mixprec_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Mixprec_BatchMatmulOp : Mixprec_ContractionOp<"batch_matmul"> {
  let summary = "batched matrix product over equal leading dims";
  let description = typeRuleDoc # [{
    Operands have rank >= 3; all dims but the last two are batch dims and
    must be equal. The transpose flags swap the last two dims.

    ```mlir
    %s = mixprec.batch_matmul %q, %k {transpose_rhs} : tensor<8x4x16x16xf16>, tensor<8x4x16x16xf16> -> tensor<8x4x16x16xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$lhs, Mixprec_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Mixprec_LinearOp : Mixprec_ContractionOp<"linear"> {
  let summary = "x * W^T + b over the last dim of x";
  let description = typeRuleDoc # [{
    `input` is `[..., in]`, `weight` is `[out, in]`, `bias` is `[out]`; the
    result is `[..., out]`.

    ```mlir
    %y = mixprec.linear %x, %w, %b : tensor<64x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input, Mixprec_FloatTensor:$weight,
                       Optional<Mixprec_FloatTensor>:$bias);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,`
    type($weight) (`,` type($bias)^)? `->` type($result)
  }];
}

def Mixprec_Conv2DOp : Mixprec_ContractionOp<"conv2d"> {
  let summary = "2-D convolution, NCHW input, OIHW weight";
  let description = typeRuleDoc # [{
    `weight` is `[out, in / groups, kh, kw]`; `bias` is `[out]`. Output
    size per spatial dim: `(in + 2 * pad - dilation * (k - 1) - 1) / stride + 1`.

    ```mlir
    %y = mixprec.conv2d %x, %w, %b {padding = array<i64: 1, 1>} : tensor<32x1x8x8xf32>, tensor<8x1x3x3xf32>, tensor<8xf32> -> tensor<32x8x8x8xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input, Mixprec_FloatTensor:$weight,
                       Optional<Mixprec_FloatTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` type($input) `,`
    type($weight) (`,` type($bias)^)? `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Mixprec_BinaryOp<string mnemonic, Trait category, string what>
    : Mixprec_Op<mnemonic, category, [Pure, Mixprec_ComputesElementwise,
                                      Mixprec_InferTypeOpAdaptor,
                                      Mixprec_HasAdjoint]> {
  let summary = what # " of two tensors of one shape";
  let description = [{
    Operands must have the same shape (broadcast with `mixprec.broadcast`).
    Their float types may differ: the result has the wider type, and f32
    when one is f16 and the other bf16.

    ```mlir
    %z = mixprec.}] # mnemonic # [{ %x, %y : tensor<4x8xf32>, tensor<4x8xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$lhs, Mixprec_FloatTensor:$rhs);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      if (::mlir::failed(::mixprec::verifyForInference(context, location,
                                                       adaptor)))
        return ::mlir::failure();
      return ::mixprec::inferElementwiseType(location, adaptor.getOperands(),
                                             types);
    }
  }];
}

def Mixprec_AddOp : Mixprec_BinaryOp<"add", Mixprec_PromoteCategory, "sum">;
def Mixprec_SubOp : Mixprec_BinaryOp<"sub", Mixprec_PromoteCategory,
                                     "difference">;
def Mixprec_MulOp : Mixprec_BinaryOp<"mul", Mixprec_PromoteCategory, "product">;
def Mixprec_DivOp : Mixprec_BinaryOp<"div", Mixprec_PromoteCategory,
                                     "quotient">;
def Mixprec_MaximumOp : Mixprec_BinaryOp<"maximum", Mixprec_PromoteCategory,
                                         "elementwise maximum (NaN wins)">;
def Mixprec_MinimumOp : Mixprec_BinaryOp<"minimum", Mixprec_PromoteCategory,
                                         "elementwise minimum (NaN wins)">;
def Mixprec_PowOp : Mixprec_BinaryOp<"pow", Mixprec_FP32Category,
                                     "lhs raised to the power rhs">;

def Mixprec_WhereOp : Mixprec_Op<"where", Mixprec_PromoteCategory, [
    Pure, Mixprec_ComputesElementwise, Mixprec_InferTypeOpAdaptor,
    AllShapesMatch<["condition", "result"]>, Mixprec_HasAdjoint]> {
  let summary = "elementwise choice of two tensors by a mask";
  let description = [{
    `true_value` where `condition` holds, else `false_value`, element by
    element (PyTorch's `torch.where`): the element not chosen never enters
    the result, so its inf or NaN does not either. `condition` is an i1
    tensor of the result's shape. The values follow the binary ops' rule:
    one shape, and the result has the wider float type (f32 when one is f16
    and the other bf16). The gradient goes to the chosen value, 0 to the
    other; the condition has none.

    ```mlir
    %z = mixprec.where %mask, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf16>
    ```
  }];
  let arguments = (ins Mixprec_I1Tensor:$condition,
                       Mixprec_FloatTensor:$true_value,
                       Mixprec_FloatTensor:$false_value);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      if (::mlir::failed(::mixprec::verifyForInference(context, location,
                                                       adaptor)))
        return ::mlir::failure();
      return ::mixprec::inferElementwiseType(
          location, {adaptor.getTrueValue(), adaptor.getFalseValue()}, types);
    }
  }];
}

def Mixprec_LogicalNotOp : Mixprec_Op<"logical_not", Mixprec_FollowCategory, [
    Pure, Mixprec_ComputesElementwise, SameOperandsAndResultType]> {
  let summary = "elementwise negation of a mask";
  let description = [{
    True where `input` is false, element by element (PyTorch's
    `torch.logical_not`, `~mask` on a bool tensor): a padding mask turned
    into the mask of the tokens kept. A mask has no gradient, so the op has
    no adjoint.

    ```mlir
    %keep = mixprec.logical_not %padding : tensor<8x16xi1>
    ```
  }];
  let arguments = (ins Mixprec_I1Tensor:$input);
  let results = (outs Mixprec_I1Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

class Mixprec_UnaryOp<string mnemonic, Trait category, string what,
                      list<Trait> traits = []>
    : Mixprec_Op<mnemonic, category,
                 !listconcat([Pure, Mixprec_ComputesElementwise,
                              SameOperandsAndResultType,
                              Mixprec_HasAdjoint], traits)> {
  let summary = what # ", elementwise";
  let arguments = (ins Mixprec_FloatTensor:$input);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Mixprec_NegOp : Mixprec_UnaryOp<"neg", Mixprec_FollowCategory, "-x">;
def Mixprec_AbsOp : Mixprec_UnaryOp<"abs", Mixprec_FollowCategory,
                                    "absolute value"> {
  let description = [{
    `|x|` (PyTorch's `torch.abs`); its gradient is `grad * sign(x)`, 0 at
    `x = 0`.

    ```mlir
    %y = mixprec.abs %x : tensor<4x8xf16>
    ```
  }];
}
def Mixprec_ClampOp : Mixprec_UnaryOp<"clamp", Mixprec_FollowCategory,
                                      "limits x to [min, max]"> {
  let description = [{
    `min(max(x, min), max)` (PyTorch's `torch.clamp` with number bounds);
    either bound may be left out, not both, and `min <= max`. The bounds are
    finite and applied in the computation type; a NaN `x` stays NaN. The
    gradient is `grad` where `min <= x <= max`, a tie on a bound included,
    and 0 elsewhere (for a NaN `x` too), as PyTorch's. With `strict` it is
    `grad` where `min < x < max`, 0 elsewhere (for a NaN `x` too): PyTorch's
    `hardtanh` (and `relu6`, `hardsigmoid`), whose gradient stops at a tie.

    ```mlir
    %y = mixprec.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf16>
    %z = mixprec.clamp %x {min = 0.0 : f64, max = 6.0 : f64, strict} : tensor<4x8xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max, UnitAttr:$strict);
  let hasVerifier = 1;
}
def Mixprec_ExpOp : Mixprec_UnaryOp<"exp", Mixprec_FP32Category, "e^x">;
def Mixprec_LogOp : Mixprec_UnaryOp<"log", Mixprec_FP32Category,
                                    "natural logarithm">;
def Mixprec_SqrtOp : Mixprec_UnaryOp<"sqrt", Mixprec_FollowCategory,
                                     "square root">;
def Mixprec_RsqrtOp : Mixprec_UnaryOp<"rsqrt", Mixprec_FP32Category,
                                      "1 / sqrt(x)">;
def Mixprec_TanhOp : Mixprec_UnaryOp<"tanh", Mixprec_FollowCategory,
                                     "hyperbolic tangent">;
def Mixprec_SigmoidOp : Mixprec_UnaryOp<"sigmoid", Mixprec_FollowCategory,
                                        "1 / (1 + e^-x)">;
def Mixprec_ReluOp : Mixprec_UnaryOp<"relu", Mixprec_FollowCategory,
                                     "max(x, 0)">;

def Mixprec_SiluOp : Mixprec_UnaryOp<"silu", Mixprec_FollowCategory,
                                     "sigmoid linear unit"> {
  let description = [{
    `x * sigmoid(x)` (PyTorch's `F.silu`, also called swish), computed as
    `x / (1 + e^-x)`.

    ```mlir
    %y = mixprec.silu %x : tensor<16x256xbf16>
    ```
  }];
}

def Mixprec_GeluOp : Mixprec_UnaryOp<"gelu", Mixprec_FollowCategory,
                                     "Gaussian error linear unit"> {
  let description = [{
    `approximate = erf` (default): `x * (1 + erf(x / sqrt(2))) / 2`;
    `approximate = tanh`: `x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2`.

    ```mlir
    %y = mixprec.gelu %x {approximate = #mixprec<gelu_approximation tanh>} : tensor<16x256xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input,
      DefaultValuedAttr<Mixprec_GeluApproximationAttr,
                        "::mixprec::GeluApproximation::Erf">:$approximate);
}

//===----------------------------------------------------------------------===//
// Normalizations and softmax
//===----------------------------------------------------------------------===//

class Mixprec_SoftmaxLikeOp<string mnemonic, string what>
    : Mixprec_Op<mnemonic, Mixprec_FP32Category,
                 [Pure, SameOperandsAndResultType, Mixprec_HasAdjoint]> {
  let summary = what # " along one axis";
  let arguments = (ins Mixprec_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Mixprec_SoftmaxOp : Mixprec_SoftmaxLikeOp<"softmax", "softmax">;
def Mixprec_LogSoftmaxOp : Mixprec_SoftmaxLikeOp<"log_softmax",
                                                 "log of softmax">;

def Mixprec_LayerNormOp : Mixprec_Op<"layer_norm", Mixprec_FP32Category, [
    Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>,
    Mixprec_HasAdjoint]> {
  let summary = "normalizes over the dims from `axis` to the last";
  let description = [{
    `(x - mean) / sqrt(var + eps)` over dims `[axis, rank)`, then
    `* scale + bias` when both are given (`affine`); `scale` and `bias` have
    the shape of those dims.

    ```mlir
    %y = mixprec.layer_norm %x scale %g bias %b {axis = 2 : i64} : tensor<8x16x64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input,
                       Optional<Mixprec_FloatTensor>:$scale,
                       Optional<Mixprec_FloatTensor>:$bias,
                       I64Attr:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^ `bias` $bias)? attr-dict `:` type($input)
    (`,` type($scale)^ `,` type($bias))?
  }];
  let hasVerifier = 1;
}

def Mixprec_BatchNormOp : Mixprec_Op<"batch_norm", Mixprec_FP32Category, [
    Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>,
    AllTypesMatch<["running_mean", "running_var", "running_mean_out",
                   "running_var_out"]>, Mixprec_HasAdjoint]> {
  let summary = "batch normalization over N (and H, W) per channel";
  let description = [{
    `input` is `[N, C]` or `[N, C, H, W]`; the running statistics are f32
    `[C]`. With `training = true` (default) it normalizes with the batch
    statistics and returns the running statistics updated with `momentum`
    (PyTorch's rule: unbiased batch variance in the running estimate); with
    `training = false` it normalizes with the running statistics and returns
    them unchanged. Store them back with `mixprec.assign`.

    ```mlir
    %y, %m, %v = mixprec.batch_norm %x, %mean, %var scale %g bias %b : tensor<32x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input,
                       Mixprec_F32Tensor:$running_mean,
                       Mixprec_F32Tensor:$running_var,
                       Optional<Mixprec_FloatTensor>:$scale,
                       Optional<Mixprec_FloatTensor>:$bias,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum,
                       DefaultValuedAttr<BoolAttr, "true">:$training);
  let results = (outs Mixprec_FloatTensor:$result,
                      Mixprec_F32Tensor:$running_mean_out,
                      Mixprec_F32Tensor:$running_var_out);
  let assemblyFormat = [{
    $input `,` $running_mean `,` $running_var (`scale` $scale^ `bias` $bias)?
    attr-dict `:` type($input) `,` type($running_mean)
    (`,` type($scale)^ `,` type($bias))?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Mixprec_ReduceOp<string mnemonic, Trait category, string what>
    : Mixprec_Op<mnemonic, category, [Pure, Mixprec_InferTypeOpAdaptor,
                                      Mixprec_HasAdjoint]> {
  let summary = what # " over `dims`";
  let description = [{
    `dims` are strictly increasing and in range; with `keepdim` the reduced
    dims stay with size 1.

    ```mlir
    %s = mixprec.}] # mnemonic # [{ %x {dims = array<i64: 1>, keepdim} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      if (::mlir::failed(::mixprec::verifyForInference(context, location,
                                                       adaptor)))
        return ::mlir::failure();
      return ::mixprec::inferReductionType(location, adaptor.getInput(),
                                           adaptor.getDims(),
                                           adaptor.getKeepdim(), types);
    }
  }];
}

def Mixprec_ReduceSumOp : Mixprec_ReduceOp<"reduce_sum", Mixprec_FP32Category,
                                           "sum">;
def Mixprec_ReduceMeanOp : Mixprec_ReduceOp<"reduce_mean",
                                            Mixprec_FP32Category, "mean">;
def Mixprec_ReduceMaxOp : Mixprec_ReduceOp<"reduce_max",
                                           Mixprec_FollowCategory, "maximum">;

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Mixprec_TransposeOp : Mixprec_Op<"transpose", Mixprec_FollowCategory, [
    Pure, Mixprec_InferTypeOpAdaptor, Mixprec_HasAdjoint]> {
  let summary = "permutes dims: result dim i is input dim permutation[i]";
  let description = [{
    ```mlir
    %t = mixprec.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<8x16x4x16xf16>
    ```
  }];
  let arguments = (ins Mixprec_Tensor:$input,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs Mixprec_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Mixprec_ReshapeOp : Mixprec_Op<"reshape", Mixprec_FollowCategory, [
    Pure, Mixprec_HasAdjoint]> {
  let summary = "same elements, new shape (row-major)";
  let arguments = (ins Mixprec_Tensor:$input);
  let results = (outs Mixprec_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Mixprec_BroadcastOp : Mixprec_Op<"broadcast", Mixprec_FollowCategory, [
    Pure, Mixprec_HasAdjoint]> {
  let summary = "numpy broadcast to the result shape";
  let description = [{
    Dims align from the right; each input dim is 1 or equal to the result's.

    ```mlir
    %b = mixprec.broadcast %bias : tensor<128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Mixprec_Tensor:$input);
  let results = (outs Mixprec_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Mixprec_SliceOp : Mixprec_Op<"slice", Mixprec_FollowCategory, [
    Pure, Mixprec_InferTypeOpAdaptor, Mixprec_HasAdjoint]> {
  let summary = "static strided slice";
  let description = [{
    Result dim i has `sizes[i]` elements taken from `offsets[i]` every
    `strides[i]` (default 1).

    ```mlir
    %s = mixprec.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 1>} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Mixprec_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Mixprec_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Mixprec_ConcatOp : Mixprec_Op<"concat", Mixprec_PromoteCategory, [
    Pure, Mixprec_InferTypeOpAdaptor, Mixprec_HasAdjoint]> {
  let summary = "joins tensors along `axis`";
  let description = [{
    All other dims must be equal. Float inputs may differ in type: the
    result has the widest (f32 when f16 meets bf16).

    ```mlir
    %c = mixprec.concat %a, %b {axis = 1 : i64} : tensor<4x8xf16>, tensor<4x2xf16>
    ```
  }];
  let arguments = (ins Variadic<Mixprec_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Mixprec_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
}

def Mixprec_EmbeddingOp : Mixprec_Op<"embedding", Mixprec_FollowCategory, [
    Pure, Mixprec_InferTypeOpAdaptor,
    Mixprec_HasAdjoint]> {
  let summary = "gathers rows of a [vocab, dim] table";
  let description = [{
    The result is `indices.shape + [dim]`. An index outside `[0, vocab)`
    fails the compiled call (`--mixprec-check-indices`); the lowering alone
    clamps it, so nothing is read out of bounds.

    ```mlir
    %e = mixprec.embedding %table, %tokens : tensor<100x64xf32>, tensor<8x16xi32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$table,
                       Mixprec_IndexTensor:$indices);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $indices attr-dict `:` type($table) `,` type($indices)
  }];
}

def Mixprec_DropoutOp : Mixprec_Op<"dropout", Mixprec_FollowCategory, [
    Pure, AllTypesMatch<["input", "result"]>, Mixprec_HasAdjoint]> {
  let summary = "zeroes elements with probability p, scales the rest by 1/(1-p)";
  let description = [{
    The mask comes from the Philox generator keyed by `rng` (seed, offset)
    and `stream`, so it is the same on every backend; give each dropout of a
    step its own `stream`. With `training = false` it is the identity.

    ```mlir
    %y = mixprec.dropout %x, %rng {p = 1.0e-01 : f64, stream = 1 : i64} : tensor<8x16x64xf16>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input, Mixprec_RngState:$rng,
                       F64Attr:$p,
                       DefaultValuedAttr<I64Attr, "0">:$stream,
                       DefaultValuedAttr<BoolAttr, "true">:$training);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$input `,` $rng attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class Mixprec_Pool2DOp<string mnemonic, string what>
    : Mixprec_Op<mnemonic, Mixprec_FollowCategory,
                 [Pure, Mixprec_InferTypeOpAdaptor, Mixprec_HasAdjoint]> {
  let summary = what # " pooling over the H and W dims of NCHW";
  let description = [{
    Output size per spatial dim: `(in + 2 * pad - kernel) / stride + 1`;
    padding is at most half the kernel. Average pooling counts padded
    elements in the divisor (PyTorch's default).

    ```mlir
    %p = mixprec.}] # mnemonic # [{ %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : tensor<32x8x8x8xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      if (::mlir::failed(::mixprec::verifyForInference(context, location,
                                                       adaptor)))
        return ::mlir::failure();
      return ::mixprec::inferPool2DType(location, adaptor.getInput(),
                                        adaptor.getKernel(), adaptor.getStride(),
                                        adaptor.getPadding(), types);
    }
  }];
}

def Mixprec_MaxPool2DOp : Mixprec_Pool2DOp<"max_pool2d", "max">;
def Mixprec_AvgPool2DOp : Mixprec_Pool2DOp<"avg_pool2d", "average">;

def Mixprec_ConstantOp : Mixprec_Op<"constant", Mixprec_FollowCategory, [
    ConstantLike, Pure, AllTypesMatch<["value", "result"]>,
    Mixprec_HasAdjoint]> {
  let summary = "a tensor constant";
  let description = [{
    ```mlir
    %c = mixprec.constant dense<1.0> : tensor<4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Mixprec_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Mixprec_CastOp : Mixprec_Op<"cast", Mixprec_FollowCategory, [
    Mixprec_KeepsTypes, Pure, Mixprec_ComputesElementwise,
    SameOperandsAndResultShape,
    Mixprec_HasAdjoint]> {
  let summary = "converts the element type";
  let description = [{
    Float to float rounds to nearest even (overflow to FP16 gives Inf, NaN
    stays NaN); integer to float rounds likewise. Autocast owns every cast of
    activations and working copies.

    ```mlir
    %h = mixprec.cast %x : tensor<64x64xf32> to tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Mixprec_Tensor:$input);
  let results = (outs Mixprec_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Mixprec_SoftmaxCrossEntropyOp : Mixprec_Op<"softmax_cross_entropy",
    Mixprec_FP32Category, [Pure, Mixprec_InferTypeOpAdaptor,
                           Mixprec_HasAdjoint]> {
  let summary = "cross entropy of [N, C] logits against [N] integer labels";
  let description = [{
    `-log_softmax(logits)[n, labels[n]]`, averaged (`mean`, default) or
    summed over the batch. The result is a 0-d tensor of the logits' type.

    A row whose label is `ignore_index` (when given) adds nothing, and `mean`
    averages over the other rows, as in PyTorch (all rows ignored: NaN). Any
    other label outside `[0, C)` fails the compiled call
    (`--mixprec-check-indices`); the lowering alone clamps it, so nothing is
    read out of bounds.

    ```mlir
    %l = mixprec.softmax_cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi32>
    %m = mixprec.softmax_cross_entropy %logits, %labels {ignore_index = -100 : i64} : tensor<64x10xf32>, tensor<64xi32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$logits,
                       Mixprec_IndexTensor:$labels,
                       DefaultValuedAttr<Mixprec_ReductionAttr,
                                         "::mixprec::Reduction::Mean">:$reduction,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels)
  }];
}

def Mixprec_MseOp : Mixprec_Op<"mse", Mixprec_FP32Category, [
    Pure, Mixprec_InferTypeOpAdaptor, Mixprec_HasAdjoint]> {
  let summary = "mean (or sum) of squared differences";
  let description = [{
    ```mlir
    %l = mixprec.mse %pred, %target : tensor<64x1xf32>, tensor<64x1xf32>
    ```
  }];
  let arguments = (ins Mixprec_FloatTensor:$input, Mixprec_FloatTensor:$target,
                       DefaultValuedAttr<Mixprec_ReductionAttr,
                                         "::mixprec::Reduction::Mean">:$reduction);
  let results = (outs Mixprec_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $target attr-dict `:` type($input) `,` type($target)
  }];
}

include "mixprec/Dialect/Mixprec/IR/MixprecTrainingOps.td"
include "mixprec/Dialect/Mixprec/IR/MixprecGradientOps.td"

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPS_TD
