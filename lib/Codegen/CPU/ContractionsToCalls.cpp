//===- ContractionsToCalls.cpp - contractions on the runtime's GEMMs ------===//
//
// --mixprec-contractions-to-calls: each static f32 or bf16 contraction on
// buffers becomes one call of mixprec_cpu_contract with a description of
// its loops and operands (mixprec_cpu_contract.h), which the runtime runs
// as GEMMs on the model's threads.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Runtime/mixprec.h"
#include "mixprec/Runtime/mixprec_cpu_contract.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECCONTRACTIONSTOCALLS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

constexpr StringLiteral kContractFunction = "mixprec_cpu_contract";

/// The mixprec_dtype of a contraction input the runtime takes, or none.
std::optional<int64_t> inputTypeCode(Type type) {
  if (type.isF32())
    return MIXPREC_F32;
  if (type.isBF16())
    return MIXPREC_BF16;
  return std::nullopt;
}

/// The kinds of `op`'s loops, or none when the runtime cannot run it.
std::optional<SmallVector<int64_t>> loopKinds(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      !mixprec::computesContract(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.size() > MIXPREC_CONTRACT_MAX_LOOPS ||
      llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  Type lhs = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type rhs = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  Type result = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  if (lhs != rhs || !inputTypeCode(lhs) || !result.isF32())
    return std::nullopt;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return std::nullopt;
  SmallVector<int64_t> kinds(ranges.size(), -1);
  for (unsigned d : dims->batch)
    kinds[d] = MIXPREC_CONTRACT_BATCH;
  for (unsigned d : dims->m)
    kinds[d] = MIXPREC_CONTRACT_M;
  for (unsigned d : dims->n)
    kinds[d] = MIXPREC_CONTRACT_N;
  for (unsigned d : dims->k)
    kinds[d] = MIXPREC_CONTRACT_K;
  if (llvm::is_contained(kinds, -1))
    return std::nullopt;
  return kinds;
}

/// The zero fill of `output` right before `op`, if there is one.
linalg::FillOp zeroFillBefore(Operation *op, Value output) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || fill.getOutputs().front() != output)
    return nullptr;
  return matchPattern(fill.getInputs().front(), m_AnyZeroFloat()) ? fill
                                                                  : nullptr;
}

func::FuncOp contractFunction(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kContractFunction))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto type = builder.getFunctionType(
      {LLVM::LLVMPointerType::get(module.getContext())}, {});
  auto function =
      func::FuncOp::create(builder, module.getLoc(), kContractFunction, type);
  function.setPrivate();
  return function;
}

struct ContractionsToCallsPass
    : public mixprec::impl::MixprecContractionsToCallsBase<
          ContractionsToCallsPass> {
  using MixprecContractionsToCallsBase::MixprecContractionsToCallsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> found;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<SmallVector<int64_t>> kinds = loopKinds(op))
        found.emplace_back(op, std::move(*kinds));
    });
    if (found.empty())
      return;
    func::FuncOp callee = contractFunction(module);
    for (auto &[op, kinds] : found)
      replaceWithCall(op, kinds, callee);
  }

  void replaceWithCall(linalg::LinalgOp op, ArrayRef<int64_t> kinds,
                       func::FuncOp callee) {
    OpBuilder builder(op);
    Location loc = op.getLoc();
    Value output = op.getDpsInitOperand(0)->get();
    bool accumulate = true;
    if (linalg::FillOp fill = zeroFillBefore(op, output)) {
      fill.erase();
      accumulate = false;
    }
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t words = MIXPREC_CONTRACT_HEADER_WORDS +
                    MIXPREC_CONTRACT_LOOP_WORDS * int64_t(ranges.size());
    Type i64 = builder.getI64Type();
    // On the stack at the function's entry, so a contraction in a loop
    // does not grow it.
    Value description;
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(
          &op->getParentOfType<func::FuncOp>().getBody().front());
      description =
          memref::AllocaOp::create(builder, loc, MemRefType::get({words}, i64));
    }
    auto store = [&](int64_t position, Value value) {
      if (value.getType() != i64)
        value = arith::IndexCastOp::create(builder, loc, i64, value);
      Value index = arith::ConstantIndexOp::create(builder, loc, position);
      memref::StoreOp::create(builder, loc, value, description, index);
    };
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(builder, loc, i64, value);
    };

    Type elementType =
        getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
    int64_t typeCode = *inputTypeCode(elementType);
    store(MIXPREC_CONTRACT_NUM_LOOPS, constant(int64_t(ranges.size())));
    store(MIXPREC_CONTRACT_LHS_TYPE, constant(typeCode));
    store(MIXPREC_CONTRACT_RHS_TYPE, constant(typeCode));
    store(MIXPREC_CONTRACT_ACCUMULATE, constant(accumulate ? 1 : 0));
    store(MIXPREC_CONTRACT_BF16_DOT, constant(bf16DotProducts ? 1 : 0));

    // Strides of each loop in each operand, 0 where it indexes none.
    SmallVector<SmallVector<Value>> strides(
        3, SmallVector<Value>(ranges.size(), constant(0)));
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned position = operand.getOperandNumber();
      Value buffer = operand.get();
      auto metadata =
          memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
      Value aligned =
          memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
      int64_t bytes =
          getElementTypeOrSelf(buffer.getType()).getIntOrFloatBitWidth() / 8;
      Value offsetBytes = arith::MulIOp::create(
          builder, loc, metadata.getOffset(),
          arith::ConstantIndexOp::create(builder, loc, bytes));
      Value address = arith::AddIOp::create(builder, loc, aligned, offsetBytes);
      store(MIXPREC_CONTRACT_LHS + position, address);
      for (auto [result, expr] : llvm::enumerate(maps[position].getResults())) {
        unsigned loop = cast<AffineDimExpr>(expr).getPosition();
        strides[position][loop] = metadata.getStrides()[result];
      }
    }
    for (auto [loop, kind] : llvm::enumerate(kinds)) {
      int64_t base =
          MIXPREC_CONTRACT_HEADER_WORDS + MIXPREC_CONTRACT_LOOP_WORDS * loop;
      store(base + MIXPREC_CONTRACT_LOOP_KIND, constant(kind));
      store(base + MIXPREC_CONTRACT_LOOP_EXTENT, constant(ranges[loop]));
      store(base + MIXPREC_CONTRACT_LOOP_LHS_STRIDE, strides[0][loop]);
      store(base + MIXPREC_CONTRACT_LOOP_RHS_STRIDE, strides[1][loop]);
      store(base + MIXPREC_CONTRACT_LOOP_RESULT_STRIDE, strides[2][loop]);
    }

    Value descriptionAddress = memref::ExtractAlignedPointerAsIndexOp::create(
        builder, loc, description);
    Value addressWord =
        arith::IndexCastOp::create(builder, loc, i64, descriptionAddress);
    Value pointer = LLVM::IntToPtrOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
        addressWord);
    func::CallOp::create(builder, loc, callee, ValueRange{pointer});
    op->erase();
  }
};

} // namespace
