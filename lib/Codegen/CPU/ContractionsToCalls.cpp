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
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECCONTRACTIONSTOCALLS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

constexpr StringLiteral kContractFunction = "mixprec_cpu_contract";
constexpr StringLiteral kContractionTable = "mixprec_cpu_contractions";

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

/// The address of `buffer`'s first element, as an index, from its
/// metadata's `offset` (in elements).
Value firstElementAddress(OpBuilder &builder, Location loc, Value buffer,
                          Value offset) {
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
  int64_t bytes =
      getElementTypeOrSelf(buffer.getType()).getIntOrFloatBitWidth() / 8;
  Value offsetBytes = arith::MulIOp::create(
      builder, loc, offset,
      arith::ConstantIndexOp::create(builder, loc, bytes));
  return arith::AddIOp::create(builder, loc, aligned, offsetBytes);
}

/// Whether `op` is a linalg.generic that rounds an f32 buffer to a bf16 one
/// of the same shape, element by element in order.
bool roundsToBF16(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = op.getRegion().front();
  auto truncate = dyn_cast<arith::TruncFOp>(body.front());
  return truncate && truncate.getIn() == body.getArgument(0) &&
         truncate.getType().isBF16() && body.getArgument(0).getType().isF32() &&
         body.getTerminator()->getOperand(0) == truncate.getResult() &&
         body.getOperations().size() == 2;
}

/// `buffer` without the reshapes it is made by.
Value withoutReshapes(Value buffer) {
  while (Operation *reshape = buffer.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(reshape))
      break;
    buffer = reshape->getOperand(0);
  }
  return buffer;
}

/// `root` and the reshapes made of it, of them, and so on.
SmallVector<Value> withReshapes(Value root) {
  SmallVector<Value> aliases = {root};
  for (size_t i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers())
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user))
        aliases.push_back(user->getResult(0));
  return aliases;
}

/// The op right after `op` (but for ops that touch no memory: views,
/// reshapes, constants, allocations) that rounds `op`'s f32 result to bf16,
/// when it is the only reader of the result's buffer (through reshapes of it)
/// and both buffers are contiguous, static and row-major: the runtime rounds
/// the sums itself and writes the bf16 buffer, a pass and the f32 buffer
/// less. Nothing in between may run, and the bf16 buffer may not be an
/// input's: it is written while the inputs are read.
linalg::GenericOp roundingReader(linalg::LinalgOp op) {
  Value result = op.getDpsInitOperand(0)->get();
  Value root = withoutReshapes(result);
  // A buffer of the function's own: an argument (a result the caller
  // reads) must be written.
  if (!root.getDefiningOp<memref::AllocOp>() &&
      !root.getDefiningOp<memref::AllocaOp>() &&
      !root.getDefiningOp<memref::ViewOp>())
    return nullptr;
  linalg::GenericOp reader;
  for (Value alias : withReshapes(root))
    for (Operation *user : alias.getUsers()) {
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp,
              memref::DeallocOp>(user) ||
          user == op.getOperation())
        continue;
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (reader || !generic || !roundsToBF16(generic) ||
          generic.getDpsInputOperand(0)->get() != alias)
        return nullptr;
      reader = generic;
    }
  if (!reader || reader->getBlock() != op->getBlock())
    return nullptr;
  for (Operation *between = op->getNextNode(); between != reader;
       between = between->getNextNode())
    if (!between ||
        !(isMemoryEffectFree(between) || isa<memref::AllocOp>(between)))
      return nullptr;
  Value rounded = reader.getDpsInitOperand(0)->get();
  for (Value buffer : {result, rounded})
    if (!memref::isStaticShapeAndContiguousRowMajor(
            cast<MemRefType>(buffer.getType())))
      return nullptr;
  for (OpOperand *input : op.getDpsInputOperands())
    if (withoutReshapes(input->get()) == withoutReshapes(rounded))
      return nullptr;
  return reader;
}

/// Erases the allocation `buffer` when nothing but its reshapes and its
/// deallocation is left of its uses.
void eraseUnread(Value buffer) {
  auto allocation = buffer.getDefiningOp<memref::AllocOp>();
  if (!allocation)
    return;
  SmallVector<Value> aliases = withReshapes(buffer);
  SmallVector<Operation *> deallocations;
  for (Value alias : aliases)
    for (Operation *user : alias.getUsers()) {
      if (isa<memref::DeallocOp>(user))
        deallocations.push_back(user);
      else if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user))
        return;
    }
  for (Operation *deallocation : deallocations)
    deallocation->erase();
  // Each reshape after those made of it.
  for (Value alias : llvm::reverse(aliases))
    alias.getDefiningOp()->erase();
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
    // The table's first word counts its descriptions.
    SmallVector<int64_t> table = {0};
    for (auto &[op, kinds] : found)
      replaceWithCall(op, kinds, callee, table);
    emitTable(module, table);
  }

  /// The module's static descriptions, addresses 0, for the runtime to make
  /// their GEMMs and size their buffers before the first call
  /// (mixprec_cpu_contract.h).
  void emitTable(ModuleOp module, ArrayRef<int64_t> table) {
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto type = LLVM::LLVMArrayType::get(builder.getI64Type(), table.size());
    auto value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(table.size())}, builder.getI64Type()),
        table);
    auto global = LLVM::GlobalOp::create(
        builder, module.getLoc(), type,
        /*isConstant=*/true, LLVM::Linkage::External, kContractionTable, value);
    global.setVisibility_(LLVM::Visibility::Hidden);
  }

  void replaceWithCall(linalg::LinalgOp op, ArrayRef<int64_t> kinds,
                       func::FuncOp callee, SmallVector<int64_t> &table) {
    Location loc = op.getLoc();
    Value output = op.getDpsInitOperand(0)->get();
    bool accumulate = true;
    if (linalg::FillOp fill = zeroFillBefore(op, output)) {
      fill.erase();
      accumulate = false;
    }
    // Without a sum to add to, a rounding to bf16 right after can be the
    // runtime's: it writes the bf16 buffer in the f32 result's order. The
    // call goes where the rounding was (the bf16 buffer's view is made
    // there; nothing in between touches memory).
    linalg::GenericOp rounding = accumulate ? nullptr : roundingReader(op);
    // The call and the reads of its buffers' addresses are one op, so the
    // memory plan sees every buffer used where the call runs.
    OpBuilder outside(rounding ? rounding.getOperation() : op.getOperation());
    auto call = scf::ExecuteRegionOp::create(outside, op.getLoc(), TypeRange());
    OpBuilder builder =
        OpBuilder::atBlockBegin(&call.getRegion().emplaceBlock());
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t size = MIXPREC_CONTRACT_HEADER_WORDS +
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
          memref::AllocaOp::create(builder, loc, MemRefType::get({size}, i64));
    }
    // The same words for the table, addresses 0; none when a stride is
    // known only at run time.
    SmallVector<int64_t> words(size, 0);
    bool isStatic = true;
    auto store = [&](int64_t position, Value value,
                     std::optional<int64_t> known) {
      if (known)
        words[position] = *known;
      else
        isStatic = false;
      if (value.getType() != i64)
        value = arith::IndexCastOp::create(builder, loc, i64, value);
      Value index = arith::ConstantIndexOp::create(builder, loc, position);
      memref::StoreOp::create(builder, loc, value, description, index);
    };
    auto storeConstant = [&](int64_t position, int64_t value) {
      store(position, arith::ConstantIntOp::create(builder, loc, i64, value),
            value);
    };

    Type elementType =
        getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
    int64_t typeCode = *inputTypeCode(elementType);
    storeConstant(MIXPREC_CONTRACT_NUM_LOOPS, int64_t(ranges.size()));
    storeConstant(MIXPREC_CONTRACT_LHS_TYPE, typeCode);
    storeConstant(MIXPREC_CONTRACT_RHS_TYPE, typeCode);
    storeConstant(MIXPREC_CONTRACT_ACCUMULATE, accumulate ? 1 : 0);
    storeConstant(MIXPREC_CONTRACT_BF16_DOT, bf16DotProducts ? 1 : 0);
    storeConstant(MIXPREC_CONTRACT_RESULT_TYPE,
                  rounding ? MIXPREC_BF16 : MIXPREC_F32);

    // Strides of each loop in each operand, 0 where it indexes none; the
    // buffer type's where it has them.
    Value zero = arith::ConstantIntOp::create(builder, loc, i64, 0);
    SmallVector<SmallVector<std::pair<Value, std::optional<int64_t>>>> strides(
        3, SmallVector<std::pair<Value, std::optional<int64_t>>>(ranges.size(),
                                                                 {zero, 0}));
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned position = operand.getOperandNumber();
      Value buffer = operand.get();
      SmallVector<int64_t> staticStrides;
      int64_t staticOffset;
      auto bufferType = cast<MemRefType>(buffer.getType());
      if (failed(bufferType.getStridesAndOffset(staticStrides, staticOffset)))
        staticStrides.assign(bufferType.getRank(), ShapedType::kDynamic);
      // A rounded result goes to the bf16 buffer, with the f32 one's
      // strides (both contiguous and static, the same shape but for
      // reshapes): the f32 buffer is never touched, and goes.
      bool rounded = rounding && op.isDpsInit(&operand);
      Value written = rounded ? rounding.getDpsInitOperand(0)->get() : buffer;
      auto metadata =
          memref::ExtractStridedMetadataOp::create(builder, loc, written);
      store(MIXPREC_CONTRACT_LHS + position,
            firstElementAddress(builder, loc, written, metadata.getOffset()),
            0);
      for (auto [result, expr] : llvm::enumerate(maps[position].getResults())) {
        unsigned loop = cast<AffineDimExpr>(expr).getPosition();
        std::optional<int64_t> known;
        if (!ShapedType::isDynamic(staticStrides[result]))
          known = staticStrides[result];
        Value stride = rounded ? arith::ConstantIntOp::create(
                                     builder, loc, i64, staticStrides[result])
                                     .getResult()
                               : metadata.getStrides()[result];
        strides[position][loop] = {stride, known};
      }
    }
    for (auto [loop, kind] : llvm::enumerate(kinds)) {
      int64_t base =
          MIXPREC_CONTRACT_HEADER_WORDS + MIXPREC_CONTRACT_LOOP_WORDS * loop;
      storeConstant(base + MIXPREC_CONTRACT_LOOP_KIND, kind);
      storeConstant(base + MIXPREC_CONTRACT_LOOP_EXTENT, ranges[loop]);
      for (int operand = 0; operand < 3; ++operand)
        store(base + MIXPREC_CONTRACT_LOOP_LHS_STRIDE + operand,
              strides[operand][loop].first, strides[operand][loop].second);
    }

    Value descriptionAddress = memref::ExtractAlignedPointerAsIndexOp::create(
        builder, loc, description);
    Value addressWord =
        arith::IndexCastOp::create(builder, loc, i64, descriptionAddress);
    Value pointer = LLVM::IntToPtrOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
        addressWord);
    func::CallOp::create(builder, loc, callee, ValueRange{pointer});
    scf::YieldOp::create(builder, loc);
    if (isStatic) {
      table.append(words);
      ++table.front();
    }
    Value result = withoutReshapes(output);
    op->erase();
    if (rounding) {
      rounding->erase();
      eraseUnread(result);
    }
  }
};

} // namespace
