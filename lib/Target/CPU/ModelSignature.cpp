//===- ModelSignature.cpp - the ABI signatures of a model's functions -----===//

#include "mixprec/Target/CPU/ModelABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace mixprec {

static std::optional<mixprec_dtype> dtypeOf(Type type) {
  if (type.isF32())
    return MIXPREC_F32;
  if (type.isF16())
    return MIXPREC_F16;
  if (type.isBF16())
    return MIXPREC_BF16;
  if (type.isInteger(32))
    return MIXPREC_I32;
  if (type.isInteger(64))
    return MIXPREC_I64;
  if (type.isInteger(1))
    return MIXPREC_BOOL;
  return std::nullopt;
}

static FailureOr<TensorSpec> specOf(func::FuncOp function, Type type,
                                    DictionaryAttr attrs, StringRef role,
                                    unsigned index) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<mixprec_dtype> dtype =
      tensor ? dtypeOf(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !dtype)
    return function.emitError()
           << "@" << function.getSymName() << ": " << role << " " << index
           << " has type " << type
           << "; the model ABI carries statically shaped tensors of f32, "
              "f16, bf16, i32, i64 or i1";
  TensorSpec spec;
  auto name = attrs ? attrs.getAs<StringAttr>(kABINameAttr) : StringAttr();
  spec.name = name ? name.str() : (role + Twine(index)).str();
  spec.dtype = *dtype;
  spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return spec;
}

FailureOr<std::vector<FunctionSignature>> collectSignatures(ModuleOp module) {
  std::vector<FunctionSignature> signatures;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!function.isPublic() || function.isExternal())
      continue;
    // The name becomes part of C symbols (`_mlir_ciface_<name>`).
    StringRef name = function.getSymName();
    if (name.empty() || llvm::isDigit(name.front()) ||
        !llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
      return function.emitError()
             << "@" << name
             << ": the model ABI needs function names that are C identifiers";
    FunctionSignature signature;
    signature.name = name.str();
    FunctionType type = function.getFunctionType();
    for (auto [index, input] : llvm::enumerate(type.getInputs())) {
      FailureOr<TensorSpec> spec = specOf(
          function, input, function.getArgAttrDict(index), "arg", index);
      if (failed(spec))
        return failure();
      signature.inputs.push_back(*spec);
    }
    for (auto [index, output] : llvm::enumerate(type.getResults())) {
      FailureOr<TensorSpec> spec = specOf(
          function, output, function.getResultAttrDict(index), "result", index);
      if (failed(spec))
        return failure();
      signature.outputs.push_back(*spec);
    }
    signatures.push_back(std::move(signature));
  }
  if (signatures.empty())
    return module.emitError("the module has no public function to compile");
  return signatures;
}

} // namespace mixprec
