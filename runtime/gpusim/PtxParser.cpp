//===- PtxParser.cpp - PTX text to the decoded form -----------------------===//
//
// A tokenizer and a recursive-descent parser for the PTX that compilers
// emit: module directives, .entry/.func with parameters, register, shared,
// local and parameter declarations, labels, and instructions. Anything it
// does not understand is an error naming the line, never skipped.
//
//===----------------------------------------------------------------------===//

#include "Float.h"
#include "Ptx.h"
#include "Reconvergence.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace gpusim {

namespace {

struct Token {
  enum Kind { Ident, Number, Punct, String, End } kind;
  std::string text;
  uint32_t line;
};

bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%' || c == '.';
}
bool identChar(char c) {
  return identStart(c) || std::isdigit(static_cast<unsigned char>(c));
}

bool tokenize(const std::string &text, std::vector<Token> &tokens,
              std::string &error) {
  uint32_t line = 1;
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(text[i] == '*' && text[i + 1] == '/'))
        line += text[i++] == '\n';
      i += 2;
    } else if (c == '"') {
      size_t start = ++i;
      while (i < n && text[i] != '"' && text[i] != '\n')
        ++i;
      tokens.push_back({Token::String, text.substr(start, i - start), line});
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = i;
      while (i < n && (identChar(text[i])))
        ++i;
      tokens.push_back({Token::Number, text.substr(start, i - start), line});
    } else if (identStart(c)) {
      size_t start = i;
      while (i < n && identChar(text[i]))
        ++i;
      tokens.push_back({Token::Ident, text.substr(start, i - start), line});
    } else if (std::strchr("{}()[],;:+-@!<>|=", c)) {
      tokens.push_back({Token::Punct, std::string(1, c), line});
      ++i;
    } else {
      char message[96];
      std::snprintf(message, sizeof(message),
                    "line %u: unexpected character '%c' in the PTX", line, c);
      error = message;
      return false;
    }
  }
  tokens.push_back({Token::End, "", line});
  return true;
}

/// Sets `value` to `name`'s entry of `table`; false when it has none.
template <typename T>
bool lookup(const std::unordered_map<std::string, T> &table,
            const std::string &name, T &value) {
  auto found = table.find(name);
  if (found == table.end())
    return false;
  value = found->second;
  return true;
}

Type typeNamed(const std::string &name) {
  static const std::unordered_map<std::string, Type> types = {
      {"pred", Type::Pred}, {"b8", Type::B8},   {"b16", Type::B16},
      {"b32", Type::B32},   {"b64", Type::B64}, {"u8", Type::U8},
      {"u16", Type::U16},   {"u32", Type::U32}, {"u64", Type::U64},
      {"s8", Type::S8},     {"s16", Type::S16}, {"s32", Type::S32},
      {"s64", Type::S64},   {"f16", Type::F16}, {"bf16", Type::BF16},
      {"f32", Type::F32},   {"f64", Type::F64},
  };
  auto found = types.find(name);
  return found == types.end() ? Type::None : found->second;
}

bool specialNamed(const std::string &name, Special &special) {
  static const std::unordered_map<std::string, Special> specials = {
      {"%tid.x", Special::TidX},       {"%tid.y", Special::TidY},
      {"%tid.z", Special::TidZ},       {"%ntid.x", Special::NtidX},
      {"%ntid.y", Special::NtidY},     {"%ntid.z", Special::NtidZ},
      {"%ctaid.x", Special::CtaidX},   {"%ctaid.y", Special::CtaidY},
      {"%ctaid.z", Special::CtaidZ},   {"%nctaid.x", Special::NctaidX},
      {"%nctaid.y", Special::NctaidY}, {"%nctaid.z", Special::NctaidZ},
      {"%laneid", Special::LaneId},    {"%warpid", Special::WarpId},
      {"%nwarpid", Special::NwarpId},  {"%clock", Special::Clock},
      {"%clock64", Special::Clock64},
  };
  return lookup(specials, name, special);
}

bool opNamed(const std::string &name, Op &op) {
  static const std::unordered_map<std::string, Op> ops = [] {
    std::unordered_map<std::string, Op> named;
#define OPCODE(name, text, handler, reach)                                     \
  if (*text)                                                                   \
    named.emplace(text, Op::name);
#define OPCODE_ALIAS(text, name) named.emplace(text, Op::name);
#include "Opcodes.def"
    return named;
  }();
  return lookup(ops, name, op);
}

bool compareNamed(const std::string &name, Compare &compare) {
  static const std::unordered_map<std::string, Compare> compares = {
      {"eq", Compare::Eq},   {"ne", Compare::Ne},   {"lt", Compare::Lt},
      {"le", Compare::Le},   {"gt", Compare::Gt},   {"ge", Compare::Ge},
      {"lo", Compare::Lo},   {"ls", Compare::Ls},   {"hi", Compare::Hi},
      {"hs", Compare::Hs},   {"equ", Compare::Equ}, {"neu", Compare::Neu},
      {"ltu", Compare::Ltu}, {"leu", Compare::Leu}, {"gtu", Compare::Gtu},
      {"geu", Compare::Geu}, {"num", Compare::Num}, {"nan", Compare::Nan},
  };
  return lookup(compares, name, compare);
}

// Bounds a module must keep: each register takes 32 lanes x 8 bytes per
// warp; local memory is 512 KiB a thread on the hardware.
constexpr uint32_t kMaxRegisters = 1u << 16;
constexpr uint64_t kMaxLocalBytes = 512u << 10, kMaxFrameBytes = 64u << 10;
constexpr uint32_t kMaxParameterBytes = 32764;

struct Variable {
  Space space;
  uint64_t address; // shared/local offset, param offset, or global address
};

class Parser {
public:
  Parser(std::vector<Token> tokens, Module &module, std::string &error)
      : tokens(std::move(tokens)), module(module), error(error) {}

  bool parseModule();

private:
  std::vector<Token> tokens;
  size_t position = 0;
  Module &module;
  std::string &error;

  // The function being parsed.
  Function *function = nullptr;
  std::vector<std::unordered_map<std::string, uint32_t>> registerScopes;
  std::vector<std::unordered_map<std::string, Variable>> variableScopes;
  std::unordered_map<std::string, uint32_t> labels;
  struct Fixup {
    uint32_t instruction, operand;
    std::string name;
    uint32_t line;
  };
  std::vector<Fixup> labelFixups;
  // .branchtargets lists by name, and brx.idx operands naming them.
  std::unordered_map<std::string, uint32_t> targetLists;
  std::vector<Fixup> listFixups;
  // Each list entry's label: list, entry, name, line.
  struct TargetFixup {
    uint32_t list, entry;
    std::string name;
    uint32_t line;
  };
  std::vector<TargetFixup> targetFixups;
  struct CallFixup {
    Function *caller;
    uint32_t instruction;
    std::string callee;
    uint32_t line;
  };
  std::vector<CallFixup> callFixups;
  std::unordered_map<std::string, Variable> moduleVariables;
  bool functionSeen = false;
  // While an instruction is validated, its line (errors name it).
  uint32_t instructionLine = 0;

  const Token &peek(size_t ahead = 0) const {
    size_t at = position + ahead;
    return tokens[at < tokens.size() ? at : tokens.size() - 1];
  }
  const Token &next() {
    const Token &token = peek();
    if (position < tokens.size() - 1)
      ++position;
    return token;
  }
  bool is(const char *text) const { return peek().text == text; }
  bool accept(const char *text) {
    if (!is(text))
      return false;
    next();
    return true;
  }

  bool fail(const char *format, ...) __attribute__((format(printf, 2, 3))) {
    char message[512];
    va_list arguments;
    va_start(arguments, format);
    std::vsnprintf(message, sizeof(message), format, arguments);
    va_end(arguments);
    char located[600];
    std::snprintf(located, sizeof(located), "line %u: %s",
                  instructionLine ? instructionLine : peek().line, message);
    error = located;
    return false;
  }

  bool expect(const char *text) {
    if (accept(text))
      return true;
    return fail("expected '%s', found '%s'", text, peek().text.c_str());
  }

  bool parseNumber(const std::string &text, uint64_t &value, bool &isDouble);
  bool parseInteger(uint64_t &value);
  bool parseFunction(bool isKernel);
  bool parseParams(std::vector<Function::Param> &params, uint32_t &bytes);
  bool parseParamDecl(Function::Param &param, uint32_t &bytes);
  bool parseBody();
  /// The list of labels after `name: .branchtargets`, to its `;`.
  bool parseBranchTargets(const std::string &name);
  bool parseVariable(Space space, bool atModuleScope, bool isExtern);
  bool parseRegisters();
  bool parseInstruction();
  bool validate(const Instruction &instruction, const std::string &opcode);
  bool check(const Instruction &instruction, const std::string &opcode);
  bool parseOpcode(const std::string &text, Instruction &instruction);
  bool parseOperand(Instruction &instruction, Operand &operand);
  bool parseAddress(Instruction &instruction, Operand &operand);
  bool parseCall(Instruction &instruction);
  bool lookupRegister(const std::string &name, uint32_t &index);
  const Variable *lookupVariable(const std::string &name);
  uint32_t addRegister(const std::string &name, Type type);
  void skipLine(uint32_t line) {
    while (peek().kind != Token::End && peek().line == line)
      next();
  }
  bool finishFunction();
  void placeShared(uint32_t align, uint32_t bytes, uint64_t &offset,
                   bool atModuleScope);
};

bool Parser::parseNumber(const std::string &text, uint64_t &value,
                         bool &isDouble) {
  isDouble = false;
  const char *start = text.c_str();
  char *end = nullptr;
  if ((text[0] == '0') && text.size() > 2 &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
    value = std::strtoull(start + 2, &end, 16);
    isDouble = text[1] == 'd' || text[1] == 'D';
    if (*end || text.size() != (isDouble ? 18u : 10u))
      return fail("bad floating-point literal '%s'", start);
    return true;
  }
  if (text.find('.') != std::string::npos) {
    double parsed = std::strtod(start, &end);
    if (*end)
      return fail("bad number '%s'", start);
    __builtin_memcpy(&value, &parsed, 8);
    isDouble = true;
    return true;
  }
  bool isHex = text.size() > 2 && (text[1] == 'x' || text[1] == 'X');
  bool isBinary = text.size() > 2 && (text[1] == 'b' || text[1] == 'B');
  // PTX reads a leading 0 as octal.
  bool isOctal = !isHex && !isBinary && text.size() > 1 && text[0] == '0';
  if (isBinary)
    value = std::strtoull(start + 2, &end, 2);
  else
    value = std::strtoull(start, &end, isHex ? 16 : isOctal ? 8 : 10);
  // An unsigned suffix is allowed.
  if (*end == 'U' || *end == 'u')
    ++end;
  if (*end)
    return fail("bad integer '%s'", start);
  return true;
}

bool Parser::parseInteger(uint64_t &value) {
  bool negative = accept("-");
  if (peek().kind != Token::Number)
    return fail("expected a number, found '%s'", peek().text.c_str());
  bool isDouble;
  if (!parseNumber(next().text, value, isDouble))
    return false;
  if (isDouble)
    return fail("expected an integer");
  if (negative)
    value = 0 - value;
  return true;
}

bool Parser::parseModule() {
  while (peek().kind != Token::End) {
    const std::string &text = peek().text;
    if (text == ".version") {
      next();
      module.version = next().text;
    } else if (text == ".target") {
      next();
      module.target = next().text;
      while (accept(","))
        next();
    } else if (text == ".address_size") {
      next();
      uint64_t size;
      if (!parseInteger(size))
        return false;
      if (size != 64)
        return fail("only .address_size 64 is supported");
    } else if (text == ".visible" || text == ".weak" || text == ".common") {
      next();
    } else if (text == ".extern") {
      next();
      if (is(".shared")) {
        next();
        if (!parseVariable(Space::Shared, true, true))
          return false;
      }
    } else if (text == ".entry" || text == ".func") {
      next();
      if (!parseFunction(text == ".entry"))
        return false;
    } else if (text == ".shared") {
      next();
      if (functionSeen)
        return fail("a module-scope .shared variable after a function is "
                    "not supported");
      if (!parseVariable(Space::Shared, true, false))
        return false;
    } else if (text == ".global" || text == ".const") {
      return fail("module-scope %s variables are not supported", text.c_str());
    } else if (text == ".file" || text == ".section" || text == ".loc") {
      skipLine(peek().line);
    } else if (text == ".pragma") {
      next();
      next();
      if (!expect(";"))
        return false;
    } else {
      return fail("unexpected '%s' at module scope", text.c_str());
    }
  }
  for (const CallFixup &fixup : callFixups) {
    auto found = module.byName.find(fixup.callee);
    if (found == module.byName.end() ||
        module.functions[found->second]->code.empty()) {
      char message[300];
      std::snprintf(message, sizeof(message),
                    "line %u: call to '%s', which this module does not "
                    "define",
                    fixup.line, fixup.callee.c_str());
      error = message;
      return false;
    }
    const Function &callee = *module.functions[found->second];
    const Instruction &call = fixup.caller->code[fixup.instruction];
    if (callee.isKernel || call.operands[1].count != callee.params.size() ||
        call.operands[0].count != callee.returns.size()) {
      char message[300];
      std::snprintf(message, sizeof(message), "line %u: call to '%s' %s",
                    fixup.line, fixup.callee.c_str(),
                    callee.isKernel ? "(an .entry cannot be called)"
                                    : "with the wrong number of arguments "
                                      "or results");
      error = message;
      return false;
    }
    fixup.caller->code[fixup.instruction].callee = found->second;
  }
  return true;
}

bool Parser::parseParamDecl(Function::Param &param, uint32_t &bytes) {
  if (!expect(".param"))
    return false;
  Type type = Type::None;
  uint32_t align = 0;
  uint64_t count = 1;
  bool pointer = false;
  while (peek().kind == Token::Ident && peek().text[0] == '.') {
    std::string modifier = next().text;
    if (modifier == ".align") {
      uint64_t value;
      if (!parseInteger(value))
        return false;
      // After .ptr, .align is the pointee's alignment, not the parameter's.
      if (!pointer)
        align = uint32_t(value);
    } else if (modifier == ".ptr") {
      pointer = true;
    } else if (modifier == ".global" || modifier == ".shared" ||
               modifier == ".local" || modifier == ".const") {
    } else {
      type = typeNamed(modifier.substr(1));
      if (type == Type::None)
        return fail("unknown parameter type '%s'", modifier.c_str());
    }
  }
  if (peek().kind != Token::Ident)
    return fail("expected a parameter name");
  param.name = next().text;
  if (accept("[")) {
    if (!parseInteger(count) || !expect("]"))
      return false;
  }
  uint32_t size = typeBytes(type) * uint32_t(count);
  if (!align)
    align = typeBytes(type);
  if (align == 0 || size == 0)
    return fail("parameter '%s' has no size", param.name.c_str());
  bytes = (bytes + align - 1) / align * align;
  param.offset = bytes;
  param.bytes = size;
  bytes += size;
  return true;
}

bool Parser::parseParams(std::vector<Function::Param> &params,
                         uint32_t &bytes) {
  if (!expect("("))
    return false;
  if (accept(")"))
    return true;
  do {
    Function::Param param;
    if (!parseParamDecl(param, bytes))
      return false;
    params.push_back(param);
  } while (accept(","));
  return expect(")");
}

bool Parser::parseFunction(bool isKernel) {
  std::vector<Function::Param> returns, params;
  uint32_t frameBytes = 0, paramBytes = 0, maxThreads = 0;
  if (!isKernel && is("(")) {
    if (!parseParams(returns, frameBytes))
      return false;
  }
  if (peek().kind != Token::Ident)
    return fail("expected a function name");
  std::string name = next().text;
  if (is("(")) {
    if (!parseParams(params, isKernel ? paramBytes : frameBytes))
      return false;
  }
  // Performance directives.
  while (peek().kind == Token::Ident && peek().text[0] == '.' &&
         peek().text != ".reg") {
    std::string directive = next().text;
    if (directive != ".maxntid" && directive != ".reqntid" &&
        directive != ".minnctapersm" && directive != ".maxnreg" &&
        directive != ".maxnctapersm" && directive != ".noreturn" &&
        directive != ".explicitcluster" && directive != ".reqnctapercluster" &&
        directive != ".maxclusterrank")
      return fail("unsupported function directive '%s'", directive.c_str());
    if (directive == ".noreturn" || directive == ".explicitcluster")
      continue;
    uint64_t value, product = 1;
    do {
      if (!parseInteger(value))
        return false;
      product *= value;
    } while (accept(","));
    if (directive == ".maxntid" || directive == ".reqntid")
      maxThreads = uint32_t(product);
  }
  Function *target;
  auto found = module.byName.find(name);
  if (found == module.byName.end()) {
    module.byName[name] = uint32_t(module.functions.size());
    module.functions.push_back(std::make_unique<Function>());
    target = module.functions.back().get();
  } else {
    target = module.functions[found->second].get();
    if (!target->code.empty())
      return fail("function '%s' is defined twice", name.c_str());
  }
  if (paramBytes > kMaxParameterBytes || frameBytes > kMaxFrameBytes)
    return fail("the parameters of '%s' take %u bytes, more than a launch "
                "may pass",
                name.c_str(), paramBytes + frameBytes);
  target->name = name;
  target->isKernel = isKernel;
  target->params = params;
  target->returns = returns;
  target->paramBytes = paramBytes;
  target->frameBytes = frameBytes;
  target->maxThreads = maxThreads;
  if (accept(";"))
    return true;
  functionSeen = true;
  function = target;
  registerScopes.assign(1, {});
  variableScopes.assign(1, {});
  labels.clear();
  labelFixups.clear();
  targetLists.clear();
  listFixups.clear();
  targetFixups.clear();
  for (const Function::Param &param : params)
    variableScopes[0][param.name] = {isKernel ? Space::Param : Space::Frame,
                                     param.offset};
  for (const Function::Param &param : returns)
    variableScopes[0][param.name] = {Space::Frame, param.offset};
  function->sharedBytes = module.sharedBytes;
  if (!expect("{") || !parseBody())
    return false;
  return finishFunction();
}

bool Parser::finishFunction() {
  Function &fn = *function;
  // The value `name` has in `names`, into `slot`; false, with the error
  // set, when it has none.
  auto resolve = [&](const std::unordered_map<std::string, uint32_t> &names,
                     const std::string &name, uint32_t line, const char *what,
                     auto &slot) {
    auto found = names.find(name);
    if (found == names.end()) {
      char message[300];
      std::snprintf(message, sizeof(message), "line %u: %s '%s'", line, what,
                    name.c_str());
      error = message;
      return false;
    }
    slot = found->second;
    return true;
  };
  for (const Fixup &fixup : labelFixups)
    if (!resolve(labels, fixup.name, fixup.line, "branch to unknown label",
                 fn.code[fixup.instruction].operands[fixup.operand].imm))
      return false;
  for (const Fixup &fixup : listFixups)
    if (!resolve(targetLists, fixup.name, fixup.line,
                 "brx.idx names no .branchtargets list",
                 fn.code[fixup.instruction].operands[fixup.operand].imm))
      return false;
  for (const TargetFixup &fixup : targetFixups)
    if (!resolve(labels, fixup.name, fixup.line,
                 ".branchtargets names unknown label",
                 fn.branchTargets[fixup.list][fixup.entry]))
      return false;
  // Falling off the end (or branching to it) returns.
  bool labelAtEnd = false;
  for (const auto &label : labels)
    labelAtEnd |= label.second == fn.code.size();
  if (fn.code.empty() || labelAtEnd ||
      (fn.code.back().op != Op::Ret && fn.code.back().op != Op::Exit &&
       fn.code.back().op != Op::Bra && fn.code.back().op != Op::BrxIdx)) {
    Instruction ret{};
    ret.op = Op::Ret;
    ret.line = fn.code.empty() ? peek().line : fn.code.back().line;
    fn.code.push_back(ret);
  }
  computeReconvergence(fn);
  function = nullptr;
  return true;
}

void Parser::placeShared(uint32_t align, uint32_t bytes, uint64_t &offset,
                         bool atModuleScope) {
  uint32_t &size = atModuleScope ? module.sharedBytes : function->sharedBytes;
  size = (size + align - 1) / align * align;
  offset = size;
  size += bytes;
}

bool Parser::parseVariable(Space space, bool atModuleScope, bool isExtern) {
  // Errors name the declaration's line, not the next token's.
  struct Located {
    uint32_t &line;
    ~Located() { line = 0; }
  } located{instructionLine = peek().line};
  uint32_t align = 0;
  Type type = Type::None;
  while (peek().kind == Token::Ident && peek().text[0] == '.') {
    std::string modifier = next().text;
    if (modifier == ".align") {
      uint64_t value;
      if (!parseInteger(value))
        return false;
      align = uint32_t(value);
      continue;
    }
    type = typeNamed(modifier.substr(1));
    if (type == Type::None)
      return fail("unknown variable type '%s'", modifier.c_str());
  }
  if (peek().kind != Token::Ident || type == Type::None)
    return fail("expected a typed variable name");
  std::string name = next().text;
  uint64_t count = 1;
  bool unsized = false;
  if (accept("[")) {
    if (accept("]"))
      unsized = true;
    else if (!parseInteger(count) || !expect("]"))
      return false;
  }
  if (is("="))
    return fail("initialized variables are not supported ('%s')", name.c_str());
  if (!expect(";"))
    return false;
  if (!align)
    align = typeBytes(type);
  if (align & (align - 1) || align > 4096)
    return fail("bad alignment %u of '%s'", align, name.c_str());
  if (count > (1ull << 32))
    return fail("'%s' is too large", name.c_str());
  uint64_t size = unsized ? 0 : count * typeBytes(type);
  Variable variable{space, 0};
  if (space == Space::Shared && !atModuleScope && !function->isKernel)
    return fail("a .shared variable inside a .func is not supported ('%s')",
                name.c_str());
  // A thread's .local memory and call frame have the hardware's bounds.
  if ((space == Space::Local && size > kMaxLocalBytes) ||
      (space == Space::Param && size > kMaxFrameBytes))
    return fail("'%s' (%llu bytes) exceeds what a thread may have",
                name.c_str(), (unsigned long long)size);
  if (space == Space::Shared) {
    if (isExtern || unsized) {
      return fail("dynamic (.extern) shared memory is not supported");
    }
    if (size > (1u << 20))
      return fail(".shared variable '%s' is too large", name.c_str());
    placeShared(align, uint32_t(size), variable.address, atModuleScope);
    if ((atModuleScope ? module.sharedBytes : function->sharedBytes) >
        (1u << 24))
      return fail("the .shared variables take more than 16 MiB");
    module.sharedNames[uint32_t(variable.address)] = name;
  } else if (space == Space::Local) {
    function->localBytes = (function->localBytes + align - 1) / align * align;
    variable.address = function->localBytes;
    function->localBytes += uint32_t(size);
  } else if (space == Space::Param) {
    // A call's argument or result, in the thread's frame.
    function->frameBytes = (function->frameBytes + align - 1) / align * align;
    variable.address = function->frameBytes;
    variable.space = Space::Frame;
    function->frameBytes += uint32_t(size);
  }
  if (atModuleScope)
    moduleVariables[name] = variable;
  else
    variableScopes.back()[name] = variable;
  return true;
}

uint32_t Parser::addRegister(const std::string &name, Type type) {
  uint32_t index = function->numRegs++;
  registerScopes.back()[name] = index;
  function->regTypes.push_back(type);
  return index;
}

bool Parser::parseRegisters() {
  // .reg .type name<count>; or .reg .type a, b, c;
  Type type = peek().kind == Token::Ident ? typeNamed(peek().text.substr(1))
                                          : Type::None;
  if (type == Type::None)
    return fail("expected a register type, found '%s'", peek().text.c_str());
  next();
  do {
    if (peek().kind != Token::Ident)
      return fail("expected a register name");
    std::string name = next().text;
    if (accept("<")) {
      uint64_t count;
      if (!parseInteger(count) || !expect(">"))
        return false;
      if (count > kMaxRegisters || function->numRegs + count > kMaxRegisters)
        return fail("too many registers (more than %u in one function)",
                    kMaxRegisters);
      for (uint64_t i = 0; i < count; ++i)
        addRegister(name + std::to_string(i), type);
    } else {
      if (function->numRegs >= kMaxRegisters)
        return fail("too many registers (more than %u in one function)",
                    kMaxRegisters);
      addRegister(name, type);
    }
  } while (accept(","));
  return expect(";");
}

bool Parser::lookupRegister(const std::string &name, uint32_t &index) {
  for (auto scope = registerScopes.rbegin(); scope != registerScopes.rend();
       ++scope) {
    auto found = scope->find(name);
    if (found != scope->end()) {
      index = found->second;
      return true;
    }
  }
  return false;
}

const Variable *Parser::lookupVariable(const std::string &name) {
  for (auto scope = variableScopes.rbegin(); scope != variableScopes.rend();
       ++scope) {
    auto found = scope->find(name);
    if (found != scope->end())
      return &found->second;
  }
  auto found = moduleVariables.find(name);
  return found == moduleVariables.end() ? nullptr : &found->second;
}

bool Parser::parseBody() {
  while (true) {
    const Token &token = peek();
    if (token.kind == Token::End)
      return fail("unexpected end of the PTX in function '%s'",
                  function->name.c_str());
    if (token.text == "}" && token.kind == Token::Punct) {
      next();
      if (registerScopes.size() == 1)
        return true;
      registerScopes.pop_back();
      variableScopes.pop_back();
      continue;
    }
    if (token.text == "{" && token.kind == Token::Punct) {
      next();
      registerScopes.emplace_back();
      variableScopes.emplace_back();
      continue;
    }
    if (token.text == ".reg") {
      next();
      if (!parseRegisters())
        return false;
      continue;
    }
    if (token.text == ".shared" || token.text == ".local" ||
        token.text == ".param") {
      Space space = token.text == ".shared"  ? Space::Shared
                    : token.text == ".local" ? Space::Local
                                             : Space::Param;
      next();
      if (!parseVariable(space, false, false))
        return false;
      continue;
    }
    if (token.text == ".pragma") {
      next();
      next();
      if (!expect(";"))
        return false;
      continue;
    }
    if (token.text == ".loc" || token.text == ".file") {
      skipLine(token.line);
      continue;
    }
    if (token.kind == Token::Ident && peek(1).text == ":") {
      std::string label = next().text;
      next();
      if (peek().text == ".branchtargets") {
        if (!parseBranchTargets(label))
          return false;
        continue;
      }
      labels[label] = uint32_t(function->code.size());
      continue;
    }
    if (!parseInstruction())
      return false;
  }
}

bool Parser::parseBranchTargets(const std::string &name) {
  uint32_t line = next().line;
  if (targetLists.count(name))
    return fail(".branchtargets list '%s' is declared twice", name.c_str());
  uint32_t list = uint32_t(function->branchTargets.size());
  targetLists[name] = list;
  std::vector<uint32_t> &targets = function->branchTargets.emplace_back();
  do {
    if (peek().kind != Token::Ident)
      return fail("expected a label in .branchtargets '%s'", name.c_str());
    targetFixups.push_back({list, uint32_t(targets.size()), next().text, line});
    targets.push_back(0);
  } while (accept(","));
  return expect(";");
}

bool Parser::parseOpcode(const std::string &text, Instruction &instruction) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    parts.push_back(text.substr(start, dot - start));
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  auto unsupported = [&](const std::string &part) {
    return fail("unsupported PTX instruction '%s'%s%s", text.c_str(),
                part.empty() ? "" : ": unknown modifier .", part.c_str());
  };
  if (!opNamed(parts[0], instruction.op))
    return unsupported("");
  std::vector<Type> types;
  bool sawCompare = false;
  Op op = instruction.op;
  if (op == Op::BrxIdx && (parts.size() < 2 || parts[1] != "idx"))
    return unsupported("");
  if (op == Op::CpAsync) {
    // cp.async.{ca,cg}.shared.global, cp.async.commit_group,
    // cp.async.wait_group, cp.async.wait_all.
    if (parts.size() < 2 || parts[1] != "async")
      return unsupported("");
    if (parts.size() == 3 && parts[2] == "commit_group") {
      instruction.op = Op::CpAsyncCommit;
      return true;
    }
    if (parts.size() == 3 &&
        (parts[2] == "wait_group" || parts[2] == "wait_all")) {
      instruction.op = Op::CpAsyncWait;
      instruction.uni = parts[2] == "wait_all";
      return true;
    }
    if (parts.size() != 5 || (parts[2] != "ca" && parts[2] != "cg") ||
        parts[3] != "shared" || parts[4] != "global")
      return unsupported("");
    instruction.space = Space::Shared;
    instruction.trans = parts[2] == "cg"; // cache-global: 16 bytes only
    return true;
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string &part = parts[i];
    Type type = typeNamed(part);
    Compare compare;
    if (type != Type::None) {
      types.push_back(type);
    } else if (part == "global") {
      instruction.space = Space::Global;
    } else if (part == "shared" || part == "shared::cta") {
      instruction.space = Space::Shared;
    } else if (part == "local") {
      instruction.space = Space::Local;
    } else if (part == "param") {
      instruction.space = Space::Param;
    } else if (part == "const") {
      instruction.space = Space::Const;
    } else if (part == "to" && op == Op::Cvta) {
      instruction.op = Op::CvtaTo;
    } else if (part == "rn" || part == "rz" || part == "rm" || part == "rp" ||
               part == "rni" || part == "rzi" || part == "rmi" ||
               part == "rpi") {
      static const char *names[] = {"rn",  "rz",  "rm",  "rp",
                                    "rni", "rzi", "rmi", "rpi"};
      for (int r = 0; r < 8; ++r)
        if (part == names[r])
          instruction.round = Round(r + 1);
    } else if (part == "ftz") {
      instruction.ftz = true;
    } else if (part == "sat") {
      instruction.sat = true;
    } else if (part == "satfinite") {
      instruction.satfinite = true;
    } else if (part == "approx") {
      instruction.approx = true;
    } else if (part == "full") {
      instruction.approx = true;
    } else if (part == "NaN") {
      instruction.nanMode = true;
    } else if (part == "relu") {
      instruction.relu = true;
    } else if (op == Op::Setp && !sawCompare && compareNamed(part, compare)) {
      instruction.compare = compare;
      sawCompare = true;
    } else if (op == Op::Setp && sawCompare &&
               (part == "and" || part == "or" || part == "xor")) {
      instruction.boolOp = part == "and"  ? BoolOp::And
                           : part == "or" ? BoolOp::Or
                                          : BoolOp::Xor;
    } else if ((op == Op::Mul || op == Op::Mad) &&
               (part == "lo" || part == "hi" || part == "wide")) {
      instruction.mulMode = part == "lo"   ? MulMode::Lo
                            : part == "hi" ? MulMode::Hi
                                           : MulMode::Wide;
    } else if ((op == Op::Ld || op == Op::St) &&
               (part == "v2" || part == "v4")) {
      instruction.vectorWidth = part == "v2" ? 2 : 4;
    } else if ((op == Op::Ld || op == Op::St) &&
               (part == "nc" || part == "ca" || part == "cg" || part == "cs" ||
                part == "lu" || part == "cv" || part == "wb" || part == "wt" ||
                part == "volatile" || part == "weak" || part == "relaxed" ||
                part == "cta" || part == "gpu" || part == "sys")) {
    } else if ((op == Op::Bra || op == Op::BrxIdx || op == Op::Call ||
                op == Op::Ret) &&
               part == "uni") {
      instruction.uni = true;
    } else if (op == Op::BrxIdx && i == 1 && part == "idx") {
    } else if (op == Op::BarSync && (part == "sync" || part == "aligned")) {
    } else if (op == Op::Ldmatrix &&
               (part == "sync" || part == "aligned" || part == "m8n8")) {
    } else if (op == Op::Ldmatrix &&
               (part == "x1" || part == "x2" || part == "x4")) {
      instruction.vectorWidth = uint8_t(part[1] - '0');
    } else if (op == Op::Ldmatrix && part == "trans") {
      instruction.trans = true;
    } else if (op == Op::Mma &&
               (part == "sync" || part == "aligned" || part == "m16n8k16" ||
                part == "row" || part == "col")) {
    } else if (op == Op::Shfl && part == "sync") {
    } else if (op == Op::Shfl && (part == "up" || part == "down" ||
                                  part == "bfly" || part == "idx")) {
      instruction.shflMode = part == "up"     ? ShflMode::Up
                             : part == "down" ? ShflMode::Down
                             : part == "bfly" ? ShflMode::Bfly
                                              : ShflMode::Idx;
    } else if (op == Op::Membar &&
               (part == "gl" || part == "cta" || part == "sys" ||
                part == "gpu" || part == "cluster" || part == "sc" ||
                part == "acq_rel")) {
    } else {
      return unsupported(part);
    }
  }
  // Shapes the simulator implements exactly and nothing else.
  if (op == Op::Mma) {
    if (text.find(".m16n8k16.row.col.") == std::string::npos ||
        types.size() != 4 || types[0] != Type::F32 || types[3] != Type::F32 ||
        types[1] != types[2] ||
        (types[1] != Type::F16 && types[1] != Type::BF16))
      return unsupported("");
    instruction.type = Type::F32;
    instruction.type2 = types[1];
    return true;
  }
  if (op == Op::Ldmatrix) {
    if (text.find(".m8n8.") == std::string::npos ||
        instruction.space != Space::Shared || types.size() != 1 ||
        types[0] != Type::B16)
      return unsupported("");
    instruction.type = Type::B16;
    return true;
  }
  if (op == Op::BarSync && (parts.size() < 2 || parts[1] != "sync"))
    return unsupported("");
  if (op == Op::Cvt ? types.size() != 2 : types.size() > 1)
    return unsupported("");
  if (!types.empty())
    instruction.type = types[0];
  if (types.size() == 2)
    instruction.type2 = types[1];
  if ((op == Op::Setp || op == Op::Selp) && types.size() != 1)
    return unsupported("");
  // prmt in its default mode only: a mode (.f4e, .b4e, .rc8, ...) is an
  // unknown modifier above.
  if (op == Op::Prmt && (types.size() != 1 || types[0] != Type::B32))
    return unsupported("");
  return true;
}

bool Parser::parseAddress(Instruction &instruction, Operand &operand) {
  operand.kind = Operand::Address;
  operand.reg = kNoReg;
  operand.imm = 0;
  const Token &token = peek();
  if (token.kind == Token::Ident) {
    std::string name = next().text;
    uint32_t index;
    if (name[0] == '%' && lookupRegister(name, index)) {
      operand.reg = index;
    } else if (const Variable *variable = lookupVariable(name)) {
      operand.imm = variable->address;
      operand.frameRelative = variable->space == Space::Local;
      // A device function's parameters and a call's arguments live in the
      // thread's frame, a kernel's parameters in the launch's buffer.
      if (variable->space == Space::Frame && instruction.space == Space::Param)
        instruction.space = Space::Frame;
    } else {
      return fail("unknown register or variable '%s'", name.c_str());
    }
  } else if (token.kind == Token::Number) {
    if (!parseInteger(operand.imm))
      return false;
  } else {
    return fail("bad address");
  }
  if (accept("+")) {
    uint64_t offset;
    if (!parseInteger(offset))
      return false;
    operand.imm += offset;
  } else if (is("-")) {
    uint64_t offset;
    if (!parseInteger(offset))
      return false;
    operand.imm += offset;
  }
  return expect("]");
}

bool Parser::parseOperand(Instruction &instruction, Operand &operand) {
  if (accept("[")) {
    return parseAddress(instruction, operand);
  }
  if (accept("{")) {
    operand.kind = Operand::Vector;
    operand.first = uint32_t(function->vectorRegs.size());
    do {
      if (accept("_")) {
        function->vectorRegs.push_back(kNoReg);
      } else {
        uint32_t index;
        if (peek().kind != Token::Ident || !lookupRegister(peek().text, index))
          return fail("expected a register in a vector, found '%s'",
                      peek().text.c_str());
        next();
        function->vectorRegs.push_back(index);
      }
      ++operand.count;
    } while (accept(","));
    return expect("}");
  }
  if (peek().kind == Token::Number || is("-")) {
    bool negative = accept("-");
    if (peek().kind != Token::Number)
      return fail("expected a number");
    bool isDouble;
    if (!parseNumber(next().text, operand.imm, isDouble))
      return false;
    operand.kind = Operand::Imm;
    if (isDouble && instruction.type == Type::F32 &&
        tokens[position - 1].text.size() > 2 &&
        tokens[position - 1].text[1] != 'f') {
      // A decimal literal in an f32 instruction.
      operand.imm = floatToBits(float(bitsToDouble(operand.imm)));
    }
    if (negative) {
      if (isDouble)
        operand.imm ^= instruction.type == Type::F32 ? 0x80000000ull
                                                     : 0x8000000000000000ull;
      else
        operand.imm = 0 - operand.imm;
    }
    return true;
  }
  if (accept("_")) {
    operand.kind = Operand::Sink;
    return true;
  }
  if (accept("!")) {
    // {!}c: the complement of a predicate source.
    uint32_t index;
    if (peek().kind != Token::Ident || !lookupRegister(peek().text, index) ||
        function->regTypes[index] != Type::Pred)
      return fail("'!' applies to a predicate register, not '%s'",
                  peek().text.c_str());
    next();
    operand.kind = Operand::Reg;
    operand.reg = index;
    operand.negated = true;
    return true;
  }
  if (peek().kind != Token::Ident)
    return fail("unexpected '%s' in an operand", peek().text.c_str());
  std::string name = next().text;
  uint32_t index;
  if (name[0] == '%') {
    if (lookupRegister(name, index)) {
      operand.kind = Operand::Reg;
      operand.reg = index;
      return true;
    }
    if (specialNamed(name, operand.special)) {
      operand.kind = Operand::Special;
      return true;
    }
    static const char *const otherSpecials[] = {"%smid",
                                                "%nsmid",
                                                "%gridid",
                                                "%lanemask",
                                                "%globaltimer",
                                                "%envreg",
                                                "%dynamic_smem_size",
                                                "%total_smem_size",
                                                "%aggr_smem_size",
                                                "%pm",
                                                "%cluster",
                                                "%nclusterid",
                                                "%is_explicit_cluster",
                                                "%reserved_smem"};
    for (const char *other : otherSpecials)
      if (name.compare(0, std::strlen(other), other) == 0)
        return fail("unsupported special register '%s'", name.c_str());
    return fail("unknown register '%s'", name.c_str());
  }
  if (instruction.op == Op::BrxIdx && instruction.numOperands == 1) {
    operand.kind = Operand::Targets;
    listFixups.push_back({uint32_t(function->code.size()),
                          uint32_t(instruction.numOperands), name,
                          peek().line});
    return true;
  }
  if (instruction.op == Op::Bra) {
    operand.kind = Operand::Label;
    labelFixups.push_back({uint32_t(function->code.size()),
                           uint32_t(instruction.numOperands), name,
                           peek().line});
    return true;
  }
  if (const Variable *variable = lookupVariable(name)) {
    operand.kind = Operand::Imm;
    operand.imm = variable->address;
    operand.frameRelative = variable->space == Space::Local;
    return true;
  }
  return fail("unknown symbol '%s'", name.c_str());
}

bool Parser::parseCall(Instruction &instruction) {
  // call{.uni} (ret, ...), name, (arg, ...);  -- each a frame variable.
  auto offsets = [&](Operand &operand) {
    operand.kind = Operand::Vector;
    operand.first = uint32_t(function->vectorRegs.size());
    if (!expect("("))
      return false;
    if (accept(")"))
      return true;
    do {
      const Variable *variable =
          peek().kind == Token::Ident ? lookupVariable(peek().text) : nullptr;
      if (!variable || variable->space != Space::Frame)
        return fail("expected a .param variable in a call, found '%s'",
                    peek().text.c_str());
      next();
      function->vectorRegs.push_back(uint32_t(variable->address));
      ++operand.count;
    } while (accept(","));
    return expect(")");
  };
  Operand &returns = instruction.operands[0];
  Operand &arguments = instruction.operands[1];
  returns.kind = arguments.kind = Operand::Vector;
  returns.first = arguments.first = uint32_t(function->vectorRegs.size());
  if (is("(")) {
    if (!offsets(returns) || !expect(","))
      return false;
  }
  if (peek().kind != Token::Ident)
    return fail("expected the called function's name");
  std::string callee = next().text;
  if (accept(",")) {
    if (!offsets(arguments))
      return false;
  } else {
    arguments.first = uint32_t(function->vectorRegs.size());
  }
  instruction.numOperands = 2;
  callFixups.push_back(
      {function, uint32_t(function->code.size()), callee, peek().line});
  function->usesCalls = true;
  return expect(";");
}

bool Parser::parseInstruction() {
  Instruction instruction{};
  instruction.line = peek().line;
  if (accept("@")) {
    instruction.guardNegated = accept("!");
    if (peek().kind != Token::Ident ||
        !lookupRegister(peek().text, instruction.guard))
      return fail("expected a predicate register after '@'");
    next();
  }
  if (peek().kind != Token::Ident)
    return fail("expected an instruction, found '%s'", peek().text.c_str());
  std::string opcode = next().text;
  if (!parseOpcode(opcode, instruction))
    return false;
  if (instruction.op == Op::Call) {
    if (!parseCall(instruction))
      return false;
    function->code.push_back(instruction);
    return true;
  }
  if (!is(";")) {
    do {
      if (instruction.numOperands == 6)
        return fail("too many operands for '%s'", opcode.c_str());
      Operand &operand = instruction.operands[instruction.numOperands];
      if (!parseOperand(instruction, operand))
        return false;
      ++instruction.numOperands;
      // setp's and shfl's optional second predicate: d|p.
      if (accept("|")) {
        if (instruction.numOperands == 6)
          return fail("too many operands");
        Operand &second = instruction.operands[instruction.numOperands];
        if (!parseOperand(instruction, second))
          return false;
        instruction.pairedDestination = true;
        ++instruction.numOperands;
      }
    } while (accept(","));
  }
  if (!expect(";") || !validate(instruction, opcode))
    return false;
  function->code.push_back(instruction);
  return true;
}

bool Parser::validate(const Instruction &in, const std::string &opcode) {
  instructionLine = in.line;
  bool valid = check(in, opcode);
  instructionLine = 0;
  return valid;
}

bool Parser::check(const Instruction &in, const std::string &opcode) {
  auto kindOf = [&](unsigned i) {
    return i < in.numOperands ? in.operands[i].kind : Operand::None;
  };
  auto count = [&](unsigned low, unsigned high) {
    if (in.numOperands >= low && in.numOperands <= high)
      return true;
    return fail("'%s' takes %u%s operands, not %u", opcode.c_str(), low,
                high > low ? " or more" : "", in.numOperands);
  };
  auto isValue = [&](unsigned i) {
    Operand::Kind kind = kindOf(i);
    return kind == Operand::Reg || kind == Operand::Imm ||
           kind == Operand::Special;
  };
  auto isDestination = [&](unsigned i) {
    return kindOf(i) == Operand::Reg || kindOf(i) == Operand::Sink;
  };
  auto vectorOf = [&](unsigned i, unsigned size) {
    return kindOf(i) == Operand::Vector && in.operands[i].count == size;
  };
  auto bad = [&](const char *what) {
    return fail("'%s': %s", opcode.c_str(), what);
  };
  bool needsType = true;
  switch (in.op) {
  case Op::Bra:
    needsType = false;
    if (!count(1, 1))
      return false;
    if (kindOf(0) != Operand::Label)
      return bad("the target must be a label");
    break;
  case Op::BrxIdx:
    needsType = false;
    if (!count(2, 2))
      return false;
    if (kindOf(0) != Operand::Reg ||
        typeBytes(function->regTypes[in.operands[0].reg]) != 4)
      return bad("the index must be a 32-bit register");
    if (kindOf(1) != Operand::Targets)
      return bad("the targets must be a .branchtargets list");
    break;
  case Op::Ret:
  case Op::Exit:
  case Op::Membar:
  case Op::CpAsyncCommit:
    needsType = false;
    if (!count(0, 0))
      return false;
    break;
  case Op::CpAsyncWait:
    needsType = false;
    if (!count(in.uni ? 0 : 1, in.uni ? 0 : 1) || (!in.uni && !isValue(0)))
      return false;
    break;
  case Op::BarSync:
    needsType = false;
    if (!count(1, 2) || !isValue(0) || (in.numOperands == 2 && !isValue(1)))
      return bad("takes a barrier number and an optional thread count");
    break;
  case Op::CpAsync:
    needsType = false;
    if (!count(3, 4) || kindOf(0) != Operand::Address ||
        kindOf(1) != Operand::Address || kindOf(2) != Operand::Imm ||
        (in.numOperands == 4 && !isValue(3)))
      return bad("takes [shared], [global], a constant size[, source size]");
    break;
  case Op::Ldmatrix:
    if (!count(2, 2) || !vectorOf(0, in.vectorWidth) ||
        kindOf(1) != Operand::Address)
      return bad("takes one register per matrix and a shared address");
    break;
  case Op::Mma:
    if (!count(4, 4) || !vectorOf(0, 4) || !vectorOf(1, 4) || !vectorOf(2, 2) ||
        !vectorOf(3, 4))
      return bad("m16n8k16 takes 4 D, 4 A, 2 B and 4 C registers");
    break;
  case Op::Ld:
  case Op::St: {
    unsigned data = in.op == Op::Ld ? 0 : 1, where = 1 - data;
    if (!count(2, 2) || kindOf(where) != Operand::Address)
      return bad("needs a value and an [address]");
    bool ok = in.vectorWidth == 1
                  ? (in.op == Op::Ld ? isDestination(data) : isValue(data))
                  : vectorOf(data, in.vectorWidth);
    if (!ok)
      return bad("the value does not match the vector width");
    break;
  }
  case Op::Mov:
    if (!count(2, 2) || !(isDestination(0) || kindOf(0) == Operand::Vector) ||
        !(isValue(1) || kindOf(1) == Operand::Vector))
      return bad("bad operands");
    break;
  case Op::Shfl: {
    unsigned base = in.pairedDestination ? 2 : 1;
    if (!count(base + 4, base + 4) || !isDestination(0))
      return bad("takes d[|p], a, b, c, membermask");
    break;
  }
  case Op::Setp: {
    unsigned base = in.pairedDestination ? 2 : 1;
    unsigned sources = in.boolOp == BoolOp::None ? 2 : 3;
    if (!count(base + sources, base + sources) || !isDestination(0))
      return bad("bad operands");
    if (!isFloat(in.type) && in.compare >= Compare::Equ)
      return bad("unordered comparisons are for floating-point types");
    break;
  }
  case Op::Selp:
  case Op::Mad:
  case Op::Fma:
  case Op::Bfe:
  case Op::Prmt:
    if (!count(4, 4) || !isDestination(0) || !isValue(1) || !isValue(2) ||
        !isValue(3))
      return bad("takes a destination and three sources");
    break;
  case Op::Neg:
  case Op::Abs:
  case Op::Not:
  case Op::Rcp:
  case Op::Sqrt:
  case Op::Rsqrt:
  case Op::Ex2:
  case Op::Lg2:
  case Op::Sin:
  case Op::Cos:
  case Op::Tanh:
  case Op::Popc:
  case Op::Clz:
  case Op::Brev:
  case Op::Cvt:
  case Op::Cvta:
  case Op::CvtaTo:
    if (!count(2, 2) || !isDestination(0) || !isValue(1))
      return bad("takes a destination and one source");
    break;
  default: // binary operations
    if (!count(3, 3) || !isDestination(0) || !isValue(1) || !isValue(2))
      return bad("takes a destination and two sources");
    break;
  }
  if (needsType && in.type == Type::None)
    return bad("the instruction has no type");
  // Forms the executor has no rule for fail here, at load, not at run time.
  bool half = in.type == Type::F16 || in.type == Type::BF16;
  if (half && in.op != Op::Ld && in.op != Op::St && in.op != Op::Mov &&
      in.op != Op::Cvt && in.op != Op::Setp && in.op != Op::Selp &&
      in.op != Op::Add && in.op != Op::Sub && in.op != Op::Mul &&
      in.op != Op::Fma && in.op != Op::Mad && in.op != Op::Neg &&
      in.op != Op::Abs && in.op != Op::Min && in.op != Op::Max &&
      in.op != Op::Copysign && in.op != Op::Mma && in.op != Op::Ldmatrix)
    return fail("unsupported PTX instruction '%s' (no 16-bit form)",
                opcode.c_str());
  if (in.type == Type::F64 &&
      (in.op == Op::Ex2 || in.op == Op::Lg2 || in.op == Op::Sin ||
       in.op == Op::Cos || in.op == Op::Tanh))
    return fail("unsupported PTX instruction '%s' (no f64 form)",
                opcode.c_str());
  return true;
}

} // namespace

std::unique_ptr<Module> parsePtx(const std::string &text, std::string &error) {
  std::vector<Token> tokens;
  if (!tokenize(text, tokens, error))
    return nullptr;
  auto module = std::make_unique<Module>();
  module->source = text;
  Parser parser(std::move(tokens), *module, error);
  if (!parser.parseModule())
    return nullptr;
  return module;
}

} // namespace gpusim
