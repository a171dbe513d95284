//===- MixprecAdjointInterface.td - reverse-mode rules -------*- tablegen -*-===//
//
// The adjoint of an op lives with the op: `--mixprec-autodiff` visits a
// function body last op to first and asks each op, through this interface,
// to turn the gradients of its results into gradients of its operands.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECADJOINTINTERFACE_TD
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECADJOINTINTERFACE_TD

include "mlir/IR/OpBase.td"

def Mixprec_AdjointOpInterface : OpInterface<"AdjointOpInterface"> {
  let cppNamespace = "::mixprec";
  let description = [{
    A differentiable op: it builds its adjoint, the gradients of its operands
    from the gradients of its results (reverse mode, as Enzyme-MLIR's
    `ReverseAutoDiffOpInterface`).

    The reverse sweep calls `buildAdjoint` once per op, last to first, with
    the builder of the `AdjointContext` placed where the ops go and the
    gradient of each result: cast to that result's element type, so the
    adjoint runs in the forward op's precision, and null for a result the
    loss does not depend on (at least one is not null). The adjoint hands
    each operand's gradient to `context.accumulate`, which sums the
    gradients of a value used several times in FP32. An op whose dependence
    ends here (a state read, a constant) builds nothing. An op that cannot
    differentiate the results it is given fails with a located error.

    An op without this interface has no adjoint: the sweep rejects it when
    the loss depends on one of its results.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the gradients of this op's operands from `resultGradients`
        (one per result, null where the loss does not depend on it) and
        passes them to `context.accumulate`.
      }],
      "::llvm::LogicalResult", "buildAdjoint",
      (ins "::mixprec::AdjointContext &":$context,
           "::llvm::ArrayRef<::mlir::Value>":$resultGradients)>,
    InterfaceMethod<[{
        The arithmetic operations of this op (a multiply-add counts two):
        what recomputing its results in the backward costs
        (`--mixprec-rematerialize`). One per element of its results unless
        the op says otherwise (contractions do).
      }],
      "int64_t", "getRecomputeFlops", (ins), "", [{
        int64_t flops = 0;
        for (::mlir::Type type : $_op->getResultTypes())
          if (auto tensor = ::llvm::dyn_cast<::mlir::RankedTensorType>(type))
            flops += tensor.getNumElements();
        return flops;
      }]>
  ];
}

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECADJOINTINTERFACE_TD
