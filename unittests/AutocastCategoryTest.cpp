//===- AutocastCategoryTest.cpp - the category table of docs/design.md §1 -===//
//
// Every op of the dialect must declare exactly the category that the
// architecture's table gives it. The expected table is written out here by
// hand, so moving an op to another category (or adding an op without one)
// fails this test.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include <gtest/gtest.h>
#include <map>
#include <string>

using mixprec::AutocastCategory;

static const std::map<std::string, AutocastCategory> &expectedCategories() {
  static const std::map<std::string, AutocastCategory> table = {
      // tensor-core: 16-bit inputs, FP32 accumulation.
      {"mixprec.matmul", AutocastCategory::TensorCore},
      {"mixprec.batch_matmul", AutocastCategory::TensorCore},
      {"mixprec.linear", AutocastCategory::TensorCore},
      {"mixprec.conv2d", AutocastCategory::TensorCore},
      // fp32: |f(x)| >> |x|, long reductions, losses, training ops.
      {"mixprec.exp", AutocastCategory::FP32},
      {"mixprec.log", AutocastCategory::FP32},
      {"mixprec.pow", AutocastCategory::FP32},
      {"mixprec.rsqrt", AutocastCategory::FP32},
      {"mixprec.softmax", AutocastCategory::FP32},
      {"mixprec.log_softmax", AutocastCategory::FP32},
      {"mixprec.layer_norm", AutocastCategory::FP32},
      {"mixprec.batch_norm", AutocastCategory::FP32},
      {"mixprec.reduce_sum", AutocastCategory::FP32},
      {"mixprec.reduce_mean", AutocastCategory::FP32},
      {"mixprec.softmax_cross_entropy", AutocastCategory::FP32},
      {"mixprec.mse", AutocastCategory::FP32},
      {"mixprec.all_finite", AutocastCategory::FP32},
      {"mixprec.index_check", AutocastCategory::FP32},
      {"mixprec.indices_valid", AutocastCategory::FP32},
      {"mixprec.loss_scale_update", AutocastCategory::FP32},
      {"mixprec.sgd_update", AutocastCategory::FP32},
      {"mixprec.increment", AutocastCategory::FP32},
      {"mixprec.select", AutocastCategory::FP32},
      {"mixprec.adam_update", AutocastCategory::FP32},
      // Backward ops have their forward op's category.
      {"mixprec.softmax_grad", AutocastCategory::FP32},
      {"mixprec.log_softmax_grad", AutocastCategory::FP32},
      {"mixprec.layer_norm_grad", AutocastCategory::FP32},
      {"mixprec.softmax_cross_entropy_grad", AutocastCategory::FP32},
      {"mixprec.batch_norm_grad", AutocastCategory::FP32},
      // State is stored in FP32 (docs/design.md §4).
      {"mixprec.parameter", AutocastCategory::FP32},
      {"mixprec.buffer", AutocastCategory::FP32},
      {"mixprec.assign", AutocastCategory::FP32},
      {"mixprec.train_step", AutocastCategory::FP32},
      // promote: the widest input type.
      {"mixprec.add", AutocastCategory::Promote},
      {"mixprec.sub", AutocastCategory::Promote},
      {"mixprec.mul", AutocastCategory::Promote},
      {"mixprec.div", AutocastCategory::Promote},
      {"mixprec.maximum", AutocastCategory::Promote},
      {"mixprec.minimum", AutocastCategory::Promote},
      {"mixprec.concat", AutocastCategory::Promote},
      {"mixprec.where", AutocastCategory::Promote},
      {"mixprec.maximum_grad", AutocastCategory::Promote},
      {"mixprec.minimum_grad", AutocastCategory::Promote},
      // follow: whatever the input is.
      {"mixprec.relu", AutocastCategory::Follow},
      {"mixprec.gelu", AutocastCategory::Follow},
      {"mixprec.silu", AutocastCategory::Follow},
      {"mixprec.tanh", AutocastCategory::Follow},
      {"mixprec.sigmoid", AutocastCategory::Follow},
      {"mixprec.neg", AutocastCategory::Follow},
      {"mixprec.abs", AutocastCategory::Follow},
      {"mixprec.clamp", AutocastCategory::Follow},
      {"mixprec.sqrt", AutocastCategory::Follow},
      {"mixprec.logical_not", AutocastCategory::Follow},
      {"mixprec.reduce_max", AutocastCategory::Follow},
      {"mixprec.reshape", AutocastCategory::Follow},
      {"mixprec.transpose", AutocastCategory::Follow},
      {"mixprec.broadcast", AutocastCategory::Follow},
      {"mixprec.slice", AutocastCategory::Follow},
      {"mixprec.embedding", AutocastCategory::Follow},
      {"mixprec.dropout", AutocastCategory::Follow},
      {"mixprec.max_pool2d", AutocastCategory::Follow},
      {"mixprec.avg_pool2d", AutocastCategory::Follow},
      {"mixprec.constant", AutocastCategory::Follow},
      {"mixprec.cast", AutocastCategory::Follow},
      {"mixprec.read", AutocastCategory::Follow},
      {"mixprec.rng_state", AutocastCategory::Follow},
      {"mixprec.relu_grad", AutocastCategory::Follow},
      {"mixprec.reduce_max_grad", AutocastCategory::Follow},
      {"mixprec.gelu_grad", AutocastCategory::Follow},
      {"mixprec.embedding_grad", AutocastCategory::Follow},
      {"mixprec.conv2d_grad_input", AutocastCategory::Follow},
      {"mixprec.conv2d_grad_weight", AutocastCategory::Follow},
      {"mixprec.max_pool2d_grad", AutocastCategory::Follow},
      {"mixprec.avg_pool2d_grad", AutocastCategory::Follow},
  };
  return table;
}

TEST(AutocastCategory, EveryOpHasTheTableCategory) {
  mlir::MLIRContext context;
  context.loadDialect<mixprec::MixprecDialect>();
  size_t seen = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "mixprec")
      continue;
    ++seen;
    std::string opName = name.getStringRef().str();
    auto expected = expectedCategories().find(opName);
    ASSERT_NE(expected, expectedCategories().end())
        << opName << " is missing from the category table";
    auto *concept_ = name.getInterface<mixprec::AutocastOpInterface>();
    ASSERT_NE(concept_, nullptr) << opName << " lacks AutocastOpInterface";
    EXPECT_EQ(concept_->getDefaultAutocastCategory(), expected->second)
        << opName << " has category "
        << mixprec::stringifyAutocastCategory(
               concept_->getDefaultAutocastCategory())
               .str();
  }
  EXPECT_EQ(seen, expectedCategories().size())
      << "an op of the table is not registered";
}
