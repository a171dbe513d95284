//===- IndexedAccessModels.cpp - the ops that index with integer data -----===//
//
// IndexedAccessOpInterface for the gathers: a forward op and its gradient
// index the same way, so each kind of index is one model attached to both.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

namespace {

/// Class labels into [N, C] logits; `ignore_index` is skipped.
template <typename Op>
struct ClassLabelAccess
    : IndexedAccessOpInterface::ExternalModel<ClassLabelAccess<Op>, Op> {
  TypedValue<RankedTensorType> getAccessIndices(Operation *op) const {
    return cast<Op>(op).getLabels();
  }
  int64_t getIndexBound(Operation *op) const {
    return cast<Op>(op).getLogits().getType().getDimSize(1);
  }
  StringRef getIndexNoun(Operation *) const { return "label"; }
  std::optional<int64_t> getSkippedIndex(Operation *op) const {
    return cast<Op>(op).getIgnoreIndex();
  }
};

} // namespace

static int64_t vocabularyOf(EmbeddingOp op) {
  return op.getTable().getType().getDimSize(0);
}

static int64_t vocabularyOf(EmbeddingGradOp op) {
  return op.getNumEmbeddings();
}

namespace {

/// Token ids into the rows of an embedding table.
template <typename Op>
struct TokenIdAccess
    : IndexedAccessOpInterface::ExternalModel<TokenIdAccess<Op>, Op> {
  TypedValue<RankedTensorType> getAccessIndices(Operation *op) const {
    return cast<Op>(op).getIndices();
  }
  int64_t getIndexBound(Operation *op) const {
    return vocabularyOf(cast<Op>(op));
  }
  StringRef getIndexNoun(Operation *) const { return "index"; }
};

} // namespace

void mixprec::attachIndexedAccessModels(MLIRContext &context) {
  SoftmaxCrossEntropyOp::attachInterface<
      ClassLabelAccess<SoftmaxCrossEntropyOp>>(context);
  SoftmaxCrossEntropyGradOp::attachInterface<
      ClassLabelAccess<SoftmaxCrossEntropyGradOp>>(context);
  EmbeddingOp::attachInterface<TokenIdAccess<EmbeddingOp>>(context);
  EmbeddingGradOp::attachInterface<TokenIdAccess<EmbeddingGradOp>>(context);
}
