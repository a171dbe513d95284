//===- OptimizerInterfaceTest.cpp - optimizers build their own updates ----===//
//
// --mixprec-autodiff builds a train step through OptimizerAttrInterface
// alone: an optimizer names its moments and builds a valid update op that
// takes and returns one moment per name, whose attribute is the optimizer
// with its parameter's weight decay. Each optimizer attribute of the dialect
// has its cases here; a new optimizer adds its own.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace mlir;
using namespace mixprec;

namespace {

struct UpdateCase {
  std::string optimizer;
  bool decayed;
  std::string updateName;
  std::vector<std::string> momentNames;
  std::string updateOptimizer;
};

} // namespace

static const std::vector<UpdateCase> &updateCases() {
  static const std::vector<UpdateCase> cases = {
      {"#mixprec.sgd<>", true, "mixprec.sgd_update", {}, "#mixprec.sgd<>"},
      // A parameter the optimizer does not decay: decay 0; the rule that
      // chose it stays with the train step.
      {"#mixprec.sgd<momentum = 0.9, weight_decay = 0.01, "
       "decay_norm_and_bias = true>",
       false,
       "mixprec.sgd_update",
       {"momentum_buffer"},
       "#mixprec.sgd<momentum = 0.9>"},
      {"#mixprec.sgd<momentum = 0.9, nesterov = true, weight_decay = 0.01>",
       true,
       "mixprec.sgd_update",
       {"momentum_buffer"},
       "#mixprec.sgd<momentum = 0.9, nesterov = true, weight_decay = 0.01>"},
      // Dampening: the update also takes the step count, which is not a
      // moment.
      {"#mixprec.sgd<momentum = 0.9, dampening = 0.5>",
       true,
       "mixprec.sgd_update",
       {"momentum_buffer"},
       "#mixprec.sgd<momentum = 0.9, dampening = 0.5>"},
      {"#mixprec.adam<beta1 = 0.8, weight_decay = 0.1>",
       true,
       "mixprec.adam_update",
       {"exp_avg", "exp_avg_sq"},
       "#mixprec.adam<beta1 = 0.8, weight_decay = 0.1>"},
      {"#mixprec.adamw<>",
       false,
       "mixprec.adam_update",
       {"exp_avg", "exp_avg_sq"},
       "#mixprec.adamw<weight_decay = 0.0>"},
  };
  return cases;
}

TEST(OptimizerInterface, EveryOptimizerBuildsItsUpdate) {
  MLIRContext context;
  context.loadDialect<MixprecDialect, func::FuncDialect>();
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto param = RankedTensorType::get({4, 3}, b.getF16Type());
  auto moment = RankedTensorType::get({4, 3}, b.getF32Type());
  auto lr = RankedTensorType::get({}, b.getF32Type());
  auto step = RankedTensorType::get({}, b.getI64Type());
  auto function = func::FuncOp::create(
      b, loc, "step",
      b.getFunctionType({param, param, moment, moment, lr, step}, {}));
  OwningOpRef<func::FuncOp> owner(function);
  Block *body = function.addEntryBlock();
  b.setInsertionPointToStart(body);

  for (const UpdateCase &test : updateCases()) {
    SCOPED_TRACE(test.optimizer + (test.decayed ? ", decayed" : ""));
    auto optimizer = dyn_cast_if_present<OptimizerAttrInterface>(
        parseAttribute(test.optimizer, &context));
    ASSERT_TRUE(optimizer);
    SmallVector<StringRef> names = optimizer.getMomentNames();
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.end()),
              test.momentNames);
    ValueRange moments = body->getArguments().slice(2, names.size());
    OptimizerUpdateOpInterface update = optimizer.buildUpdate(
        b, loc, body->getArgument(0), body->getArgument(1), moments,
        body->getArgument(4), body->getArgument(5), test.decayed);
    ASSERT_TRUE(update);
    EXPECT_TRUE(succeeded(verify(update)));
    EXPECT_EQ(update->getName().getStringRef(), test.updateName);
    EXPECT_EQ(update.getParam(), body->getArgument(0));
    EXPECT_EQ(update.getGrad(), body->getArgument(1));
    EXPECT_EQ(update.getParamOut().getType(), param);
    EXPECT_TRUE(llvm::equal(update.getMoments(), moments));
    EXPECT_EQ(update.getMomentsOut().size(), names.size());
    EXPECT_EQ(update->getAttr("optimizer"),
              parseAttribute(test.updateOptimizer, &context));
  }
}
