//===- MixprecTraits.cpp - verifier traits of mixprec ops -----------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecTraits.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

/// The most edits at which a known name is offered as what was meant: one
/// typo in a short name, about one in three characters in a long one.
static unsigned maxSuggestionDistance(StringRef name) {
  return std::max<unsigned>(2, name.size() / 3);
}

std::optional<StringRef> mixprec::nearestName(StringRef name,
                                              ArrayRef<StringRef> known) {
  std::optional<StringRef> nearest;
  unsigned bestDistance = maxSuggestionDistance(name) + 1;
  for (StringRef candidate : known) {
    unsigned distance =
        name.edit_distance(candidate, /*AllowReplacements=*/true,
                           /*MaxEditDistance=*/bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      nearest = candidate;
    }
  }
  return nearest;
}

LogicalResult mixprec::detail::verifyKnownAttributesOnly(Operation *op) {
  // Inherent attributes live in the op's properties; whatever is left in the
  // attribute dictionary is discardable, and only a dialect may attach those.
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    StringRef name = attr.getName().getValue();
    if (name.contains('.'))
      continue;
    SmallVector<StringRef> known =
        llvm::map_to_vector(op->getName().getAttributeNames(),
                            [](StringAttr known) { return known.getValue(); });
    InFlightDiagnostic diag = op->emitOpError()
                              << "has no attribute '" << name << "'";
    if (std::optional<StringRef> nearest = nearestName(name, known))
      return diag << "; did you mean '" << *nearest << "'?";
    if (known.empty()) {
      diag << "; it takes none";
    } else {
      diag << "; its attributes are: ";
      llvm::interleaveComma(known, diag);
    }
    return diag << " (an attribute that another dialect attaches is named "
                   "'<dialect>."
                << name << "')";
  }
  return success();
}
