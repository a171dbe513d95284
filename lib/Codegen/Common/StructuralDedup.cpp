//===- StructuralDedup.cpp - functions that compute the same thing --------===//

#include "mixprec/Codegen/StructuralDedup.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

/// `function`'s attributes but its name (a kernel's known block and grid
/// sizes, a function's linkage): functions that differ there differ.
static SmallVector<NamedAttribute> attributesButName(Operation *function) {
  SmallVector<NamedAttribute> attributes;
  for (NamedAttribute attribute : function->getAttrs())
    if (attribute.getName() != SymbolTable::getSymbolAttrName())
      attributes.push_back(attribute);
  return attributes;
}

/// A hash of `function`'s `attributes` and every op of its body, in order;
/// equal for structurally equal functions.
static size_t structuralHash(FunctionOpInterface function,
                             ArrayRef<NamedAttribute> attributes) {
  llvm::hash_code hash =
      llvm::hash_combine_range(attributes.begin(), attributes.end());
  function.getFunctionBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(hash,
                              OperationEquivalence::computeHash(
                                  op, OperationEquivalence::ignoreHashValue,
                                  OperationEquivalence::ignoreHashValue,
                                  OperationEquivalence::IgnoreLocations),
                              op->getNumOperands(), op->getNumRegions());
  });
  return hash;
}

FunctionOpInterface
mixprec::StructuralFunctionSet::findOrInsert(FunctionOpInterface function) {
  SmallVector<NamedAttribute> attributes = attributesButName(function);
  SmallVector<FunctionOpInterface, 1> &candidates =
      byHash[structuralHash(function, attributes)];
  for (FunctionOpInterface candidate : candidates)
    if (ArrayRef(attributesButName(candidate)) == ArrayRef(attributes) &&
        OperationEquivalence::isRegionEquivalentTo(
            &candidate.getFunctionBody(), &function.getFunctionBody(),
            OperationEquivalence::IgnoreLocations))
      return candidate;
  candidates.push_back(function);
  return function;
}
