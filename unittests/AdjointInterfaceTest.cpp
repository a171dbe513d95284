//===- AdjointInterfaceTest.cpp - every float compute op has an adjoint ---===//
//
// --mixprec-autodiff differentiates an op through its AdjointOpInterface, so
// an op without one fails every model whose loss depends on it. Every op of
// the dialect must implement it, except the ops listed here by hand with the
// reason they have none; an op added without an adjoint, or one of these
// that gains one, fails this test.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include <gtest/gtest.h>
#include <map>
#include <string>

/// The ops without an adjoint, with the reason.
static const std::map<std::string, std::string> &opsWithoutAdjoint() {
  static const std::string noResults =
      "model state and train-step declarations: no results";
  static const std::string backward =
      "a backward op, built by an adjoint: no second-order gradients";
  static const std::string training =
      "a training op, inserted after the gradients: not on the loss's path";
  static const std::string mask =
      "a mask in and out: no float to differentiate";
  static const std::map<std::string, std::string> table = {
      {"mixprec.parameter", noResults},
      {"mixprec.buffer", noResults},
      {"mixprec.assign", noResults},
      {"mixprec.train_step", noResults},
      {"mixprec.relu_grad", backward},
      {"mixprec.gelu_grad", backward},
      {"mixprec.maximum_grad", backward},
      {"mixprec.minimum_grad", backward},
      {"mixprec.reduce_max_grad", backward},
      {"mixprec.softmax_grad", backward},
      {"mixprec.log_softmax_grad", backward},
      {"mixprec.layer_norm_grad", backward},
      {"mixprec.softmax_cross_entropy_grad", backward},
      {"mixprec.batch_norm_grad", backward},
      {"mixprec.embedding_grad", backward},
      {"mixprec.conv2d_grad_input", backward},
      {"mixprec.conv2d_grad_weight", backward},
      {"mixprec.max_pool2d_grad", backward},
      {"mixprec.avg_pool2d_grad", backward},
      {"mixprec.all_finite", training},
      {"mixprec.index_check", training},
      {"mixprec.indices_valid", training},
      {"mixprec.select", training},
      {"mixprec.loss_scale_update", training},
      {"mixprec.sgd_update", training},
      {"mixprec.adam_update", training},
      {"mixprec.increment", training},
      {"mixprec.logical_not", mask},
  };
  return table;
}

TEST(AdjointInterface, EveryComputeOpHasAnAdjoint) {
  mlir::MLIRContext context;
  context.loadDialect<mixprec::MixprecDialect>();
  size_t exempt = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "mixprec")
      continue;
    std::string opName = name.getStringRef().str();
    bool hasAdjoint = name.hasInterface<mixprec::AdjointOpInterface>();
    auto reason = opsWithoutAdjoint().find(opName);
    if (reason == opsWithoutAdjoint().end()) {
      EXPECT_TRUE(hasAdjoint) << opName << " lacks AdjointOpInterface";
      continue;
    }
    EXPECT_FALSE(hasAdjoint)
        << opName << " has an adjoint but is listed without one ("
        << reason->second << ")";
    ++exempt;
  }
  EXPECT_EQ(exempt, opsWithoutAdjoint().size())
      << "an op listed without an adjoint is not registered";
}
