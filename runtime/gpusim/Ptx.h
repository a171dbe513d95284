//===- Ptx.h - a PTX module, decoded once for the simulator -----*- C++ -*-===//
//
// The parser turns PTX text into this form: every instruction's opcode,
// type, modifiers and operands are resolved (registers to indices, labels to
// instruction numbers, variables to addresses), so executing an instruction
// does no string work.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_GPUSIM_PTX_H
#define MIXPREC_GPUSIM_PTX_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpusim {

/// Every instruction the simulator runs (Opcodes.def).
enum class Op : uint8_t {
#define OPCODE(name, text, handler, reach) name,
#include "Opcodes.def"
};

enum class Type : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  BF16,
  F32,
  F64,
};

/// Bytes of one value of `type` (a predicate counts as one).
inline unsigned typeBytes(Type type) {
  switch (type) {
  case Type::None:
    return 0;
  case Type::Pred:
  case Type::B8:
  case Type::U8:
  case Type::S8:
    return 1;
  case Type::B16:
  case Type::U16:
  case Type::S16:
  case Type::F16:
  case Type::BF16:
    return 2;
  case Type::B32:
  case Type::U32:
  case Type::S32:
  case Type::F32:
    return 4;
  case Type::B64:
  case Type::U64:
  case Type::S64:
  case Type::F64:
    return 8;
  }
  return 0;
}

inline bool isFloat(Type type) {
  return type == Type::F16 || type == Type::BF16 || type == Type::F32 ||
         type == Type::F64;
}

inline bool isSigned(Type type) {
  return type == Type::S8 || type == Type::S16 || type == Type::S32 ||
         type == Type::S64;
}

/// Frame: a thread's call frame (a device function's parameters and
/// results, a call's arguments); Param: a kernel's parameter buffer.
enum class Space : uint8_t {
  Generic,
  Global,
  Shared,
  Local,
  Param,
  Const,
  Frame
};

/// Rounding modifiers: .rn .rz .rm .rp and the integer ones .rni ...
enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };

enum class Compare : uint8_t {
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Lo,
  Ls,
  Hi,
  Hs,
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,
  Num,
  Nan,
};

enum class BoolOp : uint8_t { None, And, Or, Xor };

/// mul/mad: .lo, .hi or .wide.
enum class MulMode : uint8_t { None, Lo, Hi, Wide };

enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };

enum class Special : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NwarpId,
  Clock,
  Clock64,
};

constexpr uint32_t kNoReg = ~0u;

struct Operand {
  enum Kind : uint8_t {
    None,
    Reg,     // reg
    Imm,     // imm (the value's bits)
    Special, // special
    Address, // [reg + imm] or [imm]: reg is kNoReg for an absolute address
    Vector,  // regs[first .. first+count) of Instruction::vectorRegs
    Label,   // imm: the target instruction's index
    Targets, // imm: the index of a list in Function::branchTargets
    Sink,    // "_": the value is dropped
  };
  Kind kind = None;
  gpusim::Special special = gpusim::Special::TidX;
  uint32_t reg = kNoReg;
  uint64_t imm = 0;
  uint32_t first = 0, count = 0;
  // imm is an offset in the current frame's .local area.
  bool frameRelative = false;
  bool negated = false; // !%p: a predicate's complement
};

struct Instruction {
  Op op;
  Type type = Type::None;  // the instruction type (destination for cvt)
  Type type2 = Type::None; // the second type: cvt's source, mma's A/B
  Space space = Space::Generic;
  Round round = Round::None;
  Compare compare = Compare::Eq;
  BoolOp boolOp = BoolOp::None;
  MulMode mulMode = MulMode::None;
  ShflMode shflMode = ShflMode::Idx;
  bool ftz = false, sat = false, satfinite = false, approx = false,
       nanMode = false, trans = false, uni = false, relu = false,
       pairedDestination = false; // setp/shfl: d|p
  uint8_t vectorWidth = 1;        // ld/st .v2/.v4; ldmatrix .x1/.x2/.x4
  uint8_t numOperands = 0;
  uint32_t guard = kNoReg; // @%p: the predicate register
  bool guardNegated = false;
  uint32_t line = 0;       // in the PTX text
  uint32_t reconverge = 0; // for a branch: where divergent lanes meet
  uint32_t callee = 0;     // for call: the function's index
  Operand operands[6];
};

/// A kernel or device function.
struct Function {
  std::string name;
  bool isKernel = false;
  uint32_t numRegs = 0;
  // Parameters: each name's offset in the parameter buffer (a kernel's) or
  // in the per-thread frame (a device function's), and its size.
  struct Param {
    std::string name;
    uint32_t offset, bytes;
  };
  std::vector<Param> params;
  std::vector<Param> returns; // device functions
  uint32_t paramBytes = 0;    // a kernel's parameter buffer
  uint32_t frameBytes = 0;    // per thread: parameters, returns, call args
  uint32_t localBytes = 0;    // per thread: .local variables
  uint32_t sharedBytes = 0;   // static .shared variables it can see
  uint32_t maxThreads = 0;    // .maxntid or .reqntid, 0 when not given
  std::vector<Instruction> code;
  // brx.idx's lists of target instructions (.branchtargets).
  std::vector<std::vector<uint32_t>> branchTargets;
  std::vector<uint32_t> vectorRegs; // Operand::Vector's registers
  std::vector<Type> regTypes;
  bool usesCalls = false;
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
  std::map<std::string, uint32_t> byName;
  uint32_t sharedBytes = 0; // every static .shared variable
  std::string version, target;
  std::string source; // the PTX text, for messages
  // Each .shared variable's offset, for messages.
  std::map<uint32_t, std::string> sharedNames;
};

/// Parses `text`; on failure returns null and sets `error` to a message
/// naming the line and the construct.
std::unique_ptr<Module> parsePtx(const std::string &text, std::string &error);

} // namespace gpusim

#endif // MIXPREC_GPUSIM_PTX_H
