//===- KnownAttributesTest.cpp - strict attributes (docs/design.md §6) ----===//
//
// Every op of the dialect rejects unknown unprefixed attributes: the
// KnownAttributesOnly trait comes from the ODS base class, so an op defined
// without it fails here. nearestName decides the "did you mean".
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include <gtest/gtest.h>

TEST(KnownAttributes, EveryOpHasTheTrait) {
  mlir::MLIRContext context;
  context.loadDialect<mixprec::MixprecDialect>();
  size_t seen = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "mixprec")
      continue;
    ++seen;
    EXPECT_TRUE(name.hasTrait<mixprec::KnownAttributesOnly>())
        << name.getStringRef().str() << " accepts any attribute";
  }
  EXPECT_GT(seen, 0u);
}

TEST(KnownAttributes, NearestNameIsATypoAway) {
  llvm::SmallVector<llvm::StringRef> known = {"reduction", "ignore_index"};
  EXPECT_EQ(mixprec::nearestName("reductoin", known),
            std::optional<llvm::StringRef>("reduction"));
  EXPECT_EQ(mixprec::nearestName("ignore_idx", known),
            std::optional<llvm::StringRef>("ignore_index"));
  // Two edits are always close enough; a third of a long name too.
  EXPECT_EQ(mixprec::nearestName("reducton_", known),
            std::optional<llvm::StringRef>("reduction"));
  EXPECT_EQ(mixprec::nearestName("axis", known), std::nullopt);
  EXPECT_EQ(mixprec::nearestName("dims", {}), std::nullopt);
}

TEST(KnownAttributes, NearestNameIsTheClosest) {
  llvm::SmallVector<llvm::StringRef> known = {"stride", "strides", "padding"};
  EXPECT_EQ(mixprec::nearestName("strides_", known),
            std::optional<llvm::StringRef>("strides"));
  EXPECT_EQ(mixprec::nearestName("strid", known),
            std::optional<llvm::StringRef>("stride"));
}
