//===- SourceNames.cpp - ABI names from the model's source ----------------===//

#include "mixprec/ModelABI/SourceNames.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace mixprec {

namespace {

/// The names the model ABI gives its state: "rng_state", each parameter and
/// buffer, and, as prefixes ("<symbol>."), the declarations and train steps
/// whose derived buffers the training passes name "<symbol>.<what>".
struct StateNames {
  llvm::StringSet<> exact{"rng_state"};
  llvm::StringSet<> prefixes;

  explicit StateNames(ModuleOp module) {
    for (Operation &op : module.getOps()) {
      if (!isa<ParameterOp, BufferOp, TrainStepOp>(op))
        continue;
      StringRef name = SymbolTable::getSymbolName(&op).getValue();
      prefixes.insert(name);
      if (!isa<TrainStepOp>(op))
        exact.insert(name);
    }
  }

  /// The state `name` is (or is derived from), or "".
  StringRef clash(StringRef name) const {
    if (exact.contains(name))
      return name;
    StringRef prefix = name.split('.').first;
    return name.contains('.') && prefixes.contains(prefix) ? prefix
                                                           : StringRef();
  }
};

/// The SSA name an argument has in the source, without its '%'; "" for a
/// number (`%0`), which names nothing.
StringRef sourceName(const AsmParserState::SMDefinition &definition) {
  const char *start = definition.loc.Start.getPointer();
  const char *end = definition.loc.End.getPointer();
  if (!start || !end || end <= start)
    return "";
  StringRef text(start, size_t(end - start));
  text.consume_front("%");
  if (text.empty() ||
      llvm::all_of(text, [](char c) { return llvm::isDigit(c); }))
    return "";
  return text;
}

} // namespace

OwningOpRef<ModuleOp>
parseModelWithSourceNames(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                          MLIRContext *context) {
  AsmParserState asmState;
  Block block;
  ParserConfig config(context);
  if (failed(parseAsmSourceFile(*sourceMgr, &block, config, &asmState)))
    return nullptr;
  StringRef bufferName = sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID())
                             ->getBufferIdentifier();
  OwningOpRef<ModuleOp> module =
      mlir::detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &block, context, FileLineColLoc::get(context, bufferName, 0, 0));
  if (!module)
    return nullptr;

  StateNames stateNames(*module);
  bool clashes = false;
  for (auto function : module->getOps<func::FuncOp>()) {
    if (!function.isPublic() || function.isExternal())
      continue;
    const AsmParserState::BlockDefinition *entry =
        asmState.getBlockDef(&function.getBody().front());
    if (!entry)
      continue;
    for (auto [index, definition] : llvm::enumerate(entry->arguments)) {
      StringRef name = sourceName(definition);
      if (name.empty() || function.getArgAttr(index, kABINameAttr))
        continue;
      if (StringRef state = stateNames.clash(name); !state.empty()) {
        emitError(function.getArgument(index).getLoc())
            << "argument %" << name << " of @" << function.getSymName()
            << " is named like the model's state '" << state
            << "'; the model ABI tells inputs apart by name: rename the "
               "argument";
        clashes = true;
        continue;
      }
      function.setArgAttr(index, kABINameAttr, StringAttr::get(context, name));
    }
  }
  if (clashes)
    return nullptr;
  return module;
}

} // namespace mixprec
