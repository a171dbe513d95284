//===- MixprecInterfaces.h - interfaces of mixprec --------------*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECINTERFACES_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECINTERFACES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecEnums.h"

namespace mixprec {

// One trait per autocast category. `AutocastOpInterface` reads the category
// from the op class, so an op with no category trait, or with two, does not
// compile.
#define MIXPREC_CATEGORY_TRAIT(NAME, VALUE)                                    \
  template <typename ConcreteType>                                             \
  class NAME : public mlir::OpTrait::TraitBase<ConcreteType, NAME> {           \
  public:                                                                      \
    static AutocastCategory getDefaultAutocastCategory() {                     \
      return AutocastCategory::VALUE;                                          \
    }                                                                          \
  };
MIXPREC_CATEGORY_TRAIT(TensorCoreCategory, TensorCore)
MIXPREC_CATEGORY_TRAIT(FP32Category, FP32)
MIXPREC_CATEGORY_TRAIT(PromoteCategory, Promote)
MIXPREC_CATEGORY_TRAIT(FollowCategory, Follow)
#undef MIXPREC_CATEGORY_TRAIT

/// Autocast never changes the types of an op with this trait.
template <typename ConcreteType>
class KeepsTypes : public mlir::OpTrait::TraitBase<ConcreteType, KeepsTypes> {};

/// Element i of the result comes from element i of each operand alone.
template <typename ConcreteType>
class ComputesElementwise
    : public mlir::OpTrait::TraitBase<ConcreteType, ComputesElementwise> {};

} // namespace mixprec

// Op interfaces first: an optimizer attribute builds its update op.
#include "mixprec/Dialect/Mixprec/IR/MixprecOpInterfaces.h.inc"

#include "mixprec/Dialect/Mixprec/IR/MixprecAttrInterfaces.h.inc"

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECINTERFACES_H
