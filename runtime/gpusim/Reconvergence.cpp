//===- Reconvergence.cpp - immediate post-dominators of branches ----------===//

#include "Reconvergence.h"

#include <cstdint>
#include <vector>

namespace gpusim {

namespace {

/// A set of blocks.
class BlockSet {
public:
  BlockSet(size_t size, bool full) : words((size + 63) / 64, full ? ~0ull : 0) {
    if (full && size % 64)
      words.back() = (1ull << (size % 64)) - 1;
  }
  void insert(size_t block) { words[block / 64] |= 1ull << (block % 64); }
  bool contains(size_t block) const {
    return words[block / 64] >> (block % 64) & 1;
  }
  void intersect(const BlockSet &other) {
    for (size_t i = 0; i < words.size(); ++i)
      words[i] &= other.words[i];
  }
  size_t count() const {
    size_t total = 0;
    for (uint64_t word : words)
      total += __builtin_popcountll(word);
    return total;
  }
  bool operator!=(const BlockSet &other) const { return words != other.words; }

private:
  std::vector<uint64_t> words;
};

bool endsBlock(const Instruction &instruction) {
  return instruction.op == Op::Bra || instruction.op == Op::BrxIdx ||
         instruction.op == Op::Ret || instruction.op == Op::Exit;
}

bool isBranch(const Instruction &instruction) {
  return instruction.op == Op::Bra || instruction.op == Op::BrxIdx;
}

/// Where a branch may go: its label, or each of brx.idx's targets.
std::vector<uint32_t> targetsOf(const Function &function,
                                const Instruction &branch) {
  if (branch.op == Op::Bra)
    return {uint32_t(branch.operands[0].imm)};
  return function.branchTargets[branch.operands[1].imm];
}

} // namespace

void computeReconvergence(Function &function) {
  std::vector<Instruction> &code = function.code;
  const uint32_t size = uint32_t(code.size());
  // Block leaders: the entry, branch targets, and what follows a block end.
  std::vector<bool> leader(size + 1, false);
  leader[0] = true;
  for (uint32_t i = 0; i < size; ++i) {
    if (isBranch(code[i]))
      for (uint32_t target : targetsOf(function, code[i]))
        leader[target] = true;
    if (endsBlock(code[i]))
      leader[i + 1] = true;
  }
  std::vector<uint32_t> blockOf(size), start;
  for (uint32_t i = 0; i < size; ++i) {
    if (leader[i])
      start.push_back(i);
    blockOf[i] = uint32_t(start.size() - 1);
  }
  const size_t blocks = start.size();
  const size_t exit = blocks; // the virtual exit block
  std::vector<std::vector<size_t>> successors(blocks);
  for (size_t b = 0; b < blocks; ++b) {
    uint32_t last = (b + 1 < blocks ? start[b + 1] : size) - 1;
    const Instruction &end = code[last];
    bool fallsThrough = true;
    if (isBranch(end)) {
      for (uint32_t target : targetsOf(function, end))
        successors[b].push_back(target < size ? blockOf[target] : exit);
      fallsThrough = end.guard != kNoReg;
    } else if (end.op == Op::Ret || end.op == Op::Exit) {
      successors[b].push_back(exit);
      fallsThrough = end.guard != kNoReg;
    }
    if (fallsThrough)
      successors[b].push_back(last + 1 < size ? blockOf[last + 1] : exit);
  }
  // Post-dominator sets by iteration to a fixed point.
  std::vector<BlockSet> postDominators(blocks + 1, BlockSet(blocks + 1, true));
  postDominators[exit] = BlockSet(blocks + 1, false);
  postDominators[exit].insert(exit);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = blocks; b-- > 0;) {
      BlockSet next(blocks + 1, true);
      for (size_t successor : successors[b])
        next.intersect(postDominators[successor]);
      next.insert(b);
      if (next != postDominators[b]) {
        postDominators[b] = next;
        changed = true;
      }
    }
  }
  // The immediate post-dominator is the strict one with the most
  // post-dominators of its own.
  std::vector<size_t> counts(blocks + 1);
  for (size_t b = 0; b <= blocks; ++b)
    counts[b] = postDominators[b].count();
  for (size_t b = 0; b < blocks; ++b) {
    uint32_t last = (b + 1 < blocks ? start[b + 1] : size) - 1;
    if (!isBranch(code[last]))
      continue;
    size_t best = exit, bestCount = 0;
    for (size_t candidate = 0; candidate <= blocks; ++candidate) {
      if (candidate == b || !postDominators[b].contains(candidate))
        continue;
      if (counts[candidate] > bestCount) {
        best = candidate;
        bestCount = counts[candidate];
      }
    }
    code[last].reconverge = best == exit ? size : start[best];
  }
}

} // namespace gpusim
