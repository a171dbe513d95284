//===- MixprecTraits.h - verifier traits of mixprec ops ---------*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECTRAITS_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mixprec {
/// The name in `known` nearest to `name` by edit distance, if it is near
/// enough to be what a misspelled `name` meant.
std::optional<llvm::StringRef>
nearestName(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> known);

namespace detail {
/// Fails, naming the attribute, if `op` carries an attribute that is neither
/// one of its own nor prefixed by a dialect (docs/design.md §6).
llvm::LogicalResult verifyKnownAttributesOnly(mlir::Operation *op);
} // namespace detail

/// Every mixprec op has this trait: a misspelled attribute (`approximat`)
/// would otherwise be kept as a discardable attribute and silently ignored.
template <typename ConcreteType>
class KnownAttributesOnly
    : public mlir::OpTrait::TraitBase<ConcreteType, KnownAttributesOnly> {
public:
  static llvm::LogicalResult verifyTrait(mlir::Operation *op) {
    return detail::verifyKnownAttributesOnly(op);
  }
};
} // namespace mixprec

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECTRAITS_H
