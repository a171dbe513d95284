//===- Contraction.cpp - a CPU model's contractions on oneDNN -------------===//
//
// mixprec_cpu_contract (mixprec_cpu_contract.h) reduces a contraction to
// 2-D GEMMs, result[m][n] (+)= sum_k lhs[m][k] * rhs[k][n], and runs them
// as tasks on the model's threads (ThreadPool.h), each on one oneDNN
// matmul running on its task's thread alone.
//
// The same bits for every thread count: the tasks (row blocks of each
// GEMM) are chosen from the shapes alone and every sum is computed inside
// one task, so which thread runs a task, and how many threads there are,
// changes nothing.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Runtime/mixprec.h"
#include "mixprec/Runtime/mixprec_cpu_contract.h"

#include "Contraction.h"
#include "ThreadCount.h"
#include "ThreadPool.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace mixprec::cpu {
namespace {

/// A loop of the contraction: its extent and each operand's stride.
struct Loop {
  int64_t extent;
  int64_t lhs, rhs, result;
};

/// Merges the loops of one kind into as few as their strides allow (the
/// outer one's stride is the inner one's times its extent, in every
/// operand) and returns them outermost first.
std::vector<Loop> merge(std::vector<Loop> loops, int64_t Loop::*primary) {
  // Insertion sort, stable (a dozen loops at most; std::stable_sort's
  // buffer is deprecated in clang's view of libstdc++ 12).
  for (size_t i = 1; i < loops.size(); ++i)
    for (size_t j = i; j > 0 && loops[j - 1].*primary < loops[j].*primary; --j)
      std::swap(loops[j - 1], loops[j]);
  std::vector<Loop> merged;
  for (const Loop &loop : loops) {
    if (!merged.empty()) {
      Loop &inner = merged.back();
      // `loop` is inside `inner` in the sort; merge when it is the inner
      // part of one dense loop.
      if (inner.lhs == loop.lhs * loop.extent &&
          inner.rhs == loop.rhs * loop.extent &&
          inner.result == loop.result * loop.extent) {
        inner.extent *= loop.extent;
        inner.lhs = loop.lhs;
        inner.rhs = loop.rhs;
        inner.result = loop.result;
        continue;
      }
    }
    merged.push_back(loop);
  }
  return merged;
}

size_t elementBytes(int64_t type) { return type == MIXPREC_BF16 ? 2 : 4; }

/// Rows of a task: about 2^22 multiply-adds each, in multiples of 64 rows
/// (a block shape the GEMM runs at full speed), from the shape alone.
int64_t rowsPerTask(const Gemm &gemm) {
  int64_t perRow = std::max<int64_t>(gemm.n * gemm.k, 1);
  int64_t rows = ((int64_t(1) << 22) / perRow + 63) / 64 * 64;
  return std::min(std::max<int64_t>(rows, 256), std::max<int64_t>(gemm.m, 1));
}

/// A oneDNN matmul for one block shape.
struct Matmul {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_desc_t lhs, rhs, result, scratchpad;
  size_t scratchpadBytes = 0;
};

dnnl_engine_t engine() {
  static dnnl_engine_t cpu = [] {
    dnnl_engine_t created = nullptr;
    if (dnnl_engine_create(&created, dnnl_cpu, 0) != dnnl_success)
      return static_cast<dnnl_engine_t>(nullptr);
    return created;
  }();
  return cpu;
}

/// A 2-D memory descriptor; an extent-1 dim gets a dense stride (oneDNN
/// rejects some strides of dims that are never stepped).
dnnl_memory_desc_t matrix(int64_t rows, int64_t columns, int64_t rowStride,
                          int64_t columnStride, dnnl_data_type_t type) {
  if (columns == 1)
    columnStride = 1;
  if (rows == 1)
    rowStride = columns * columnStride;
  dnnl_dims_t dims = {rows, columns}, strides = {rowStride, columnStride};
  dnnl_memory_desc_t desc;
  if (dnnl_memory_desc_init_by_strides(&desc, 2, dims, type, strides) !=
      dnnl_success)
    std::memset(&desc, 0, sizeof(desc));
  return desc;
}

/// The matmul of `gemm` on `rows` rows, made once per shape and kept for
/// the process; null when oneDNN has none (the reference loop runs).
const Matmul *matmulFor(const Gemm &gemm, int64_t rows, int64_t type,
                        bool accumulate) {
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, bool>;
  static std::mutex mutex;
  static std::map<Key, Matmul> made;
  Key key(type, rows, gemm.n, gemm.k, gemm.lhsM, gemm.lhsK, gemm.rhsK,
          gemm.rhsN, gemm.resultM, gemm.resultN, accumulate);
  std::lock_guard<std::mutex> lock(mutex);
  auto found = made.find(key);
  if (found != made.end())
    return found->second.primitive ? &found->second : nullptr;
  Matmul &matmul = made[key];
  if (!engine())
    return nullptr;
  dnnl_data_type_t inputType = type == MIXPREC_BF16 ? dnnl_bf16 : dnnl_f32;
  matmul.lhs = matrix(rows, gemm.k, gemm.lhsM, gemm.lhsK, inputType);
  matmul.rhs = matrix(gemm.k, gemm.n, gemm.rhsK, gemm.rhsN, inputType);
  matmul.result = matrix(rows, gemm.n, gemm.resultM, gemm.resultN, dnnl_f32);
  dnnl_matmul_desc_t desc;
  if (dnnl_matmul_desc_init(&desc, &matmul.lhs, &matmul.rhs, nullptr,
                            &matmul.result) != dnnl_success)
    return nullptr;
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t postOps = nullptr;
  dnnl_primitive_desc_t primitiveDesc = nullptr;
  bool ok = dnnl_primitive_attr_create(&attr) == dnnl_success &&
            dnnl_primitive_attr_set_scratchpad_mode(
                attr, dnnl_scratchpad_mode_user) == dnnl_success;
  if (ok && accumulate)
    ok = dnnl_post_ops_create(&postOps) == dnnl_success &&
         dnnl_post_ops_append_sum(postOps, 1.0f) == dnnl_success &&
         dnnl_primitive_attr_set_post_ops(attr, postOps) == dnnl_success;
  if (ok)
    ok = dnnl_primitive_desc_create(&primitiveDesc, &desc, attr, engine(),
                                    nullptr) == dnnl_success;
  if (ok) {
    matmul.scratchpad = *dnnl_primitive_desc_query_md(
        primitiveDesc, dnnl_query_scratchpad_md, 0);
    matmul.scratchpadBytes = dnnl_memory_desc_get_size(&matmul.scratchpad);
    if (dnnl_primitive_create(&matmul.primitive, primitiveDesc) != dnnl_success)
      matmul.primitive = nullptr;
  }
  if (primitiveDesc)
    dnnl_primitive_desc_destroy(primitiveDesc);
  if (postOps)
    dnnl_post_ops_destroy(postOps);
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  return matmul.primitive ? &matmul : nullptr;
}

/// Runs `matmul` on this thread, on its own stream and scratchpad; false
/// when oneDNN fails (the caller computes the block itself).
bool run(const Matmul &matmul, const void *lhs, const void *rhs,
         float *result) {
  thread_local dnnl_stream_t stream = nullptr;
  thread_local std::vector<char> scratchpad;
  if (!stream && dnnl_stream_create(&stream, engine(),
                                    dnnl_stream_default_flags) != dnnl_success)
    return false;
  if (scratchpad.size() < matmul.scratchpadBytes)
    scratchpad.resize(matmul.scratchpadBytes);
  dnnl_memory_t memories[4] = {};
  bool ok = dnnl_memory_create(&memories[0], &matmul.lhs, engine(),
                               const_cast<void *>(lhs)) == dnnl_success &&
            dnnl_memory_create(&memories[1], &matmul.rhs, engine(),
                               const_cast<void *>(rhs)) == dnnl_success &&
            dnnl_memory_create(&memories[2], &matmul.result, engine(),
                               result) == dnnl_success &&
            dnnl_memory_create(&memories[3], &matmul.scratchpad, engine(),
                               scratchpad.data()) == dnnl_success;
  if (ok) {
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, memories[0]},
                              {DNNL_ARG_WEIGHTS, memories[1]},
                              {DNNL_ARG_DST, memories[2]},
                              {DNNL_ARG_SCRATCHPAD, memories[3]}};
    ok = dnnl_primitive_execute(matmul.primitive, stream, 4, args) ==
             dnnl_success &&
         dnnl_stream_wait(stream) == dnnl_success;
  }
  for (dnnl_memory_t memory : memories)
    if (memory)
      dnnl_memory_destroy(memory);
  return ok;
}

float load(const char *base, int64_t index, int64_t type) {
  if (type != MIXPREC_BF16) {
    float value;
    std::memcpy(&value, base + index * 4, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, base + index * 2, 2);
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

} // namespace

void referenceGemm(const Gemm &gemm, int64_t rows, int64_t type,
                   bool accumulate, const void *lhs, const void *rhs,
                   float *result) {
  auto *a = static_cast<const char *>(lhs);
  auto *b = static_cast<const char *>(rhs);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < gemm.n; ++j) {
      float &out = result[i * gemm.resultM + j * gemm.resultN];
      float sum = accumulate ? out : 0.0f;
      for (int64_t l = 0; l < gemm.k; ++l)
        sum = std::fma(load(a, i * gemm.lhsM + l * gemm.lhsK, type),
                       load(b, l * gemm.rhsK + j * gemm.rhsN, type), sum);
      out = sum;
    }
}

bool contract(const int64_t *description, std::string &error) {
  int64_t numLoops = description[MIXPREC_CONTRACT_NUM_LOOPS];
  int64_t type = description[MIXPREC_CONTRACT_LHS_TYPE];
  if (numLoops < 0 || numLoops > MIXPREC_CONTRACT_MAX_LOOPS) {
    error = "a contraction of " + std::to_string(numLoops) + " loops";
    return false;
  }
  if ((type != MIXPREC_F32 && type != MIXPREC_BF16) ||
      description[MIXPREC_CONTRACT_RHS_TYPE] != type) {
    error = "a contraction of element types " + std::to_string(type) + " and " +
            std::to_string(description[MIXPREC_CONTRACT_RHS_TYPE]);
    return false;
  }
  bool accumulate = description[MIXPREC_CONTRACT_ACCUMULATE] != 0;
  std::vector<Loop> byKind[4];
  for (int64_t i = 0; i < numLoops; ++i) {
    const int64_t *word = description + MIXPREC_CONTRACT_HEADER_WORDS +
                          i * MIXPREC_CONTRACT_LOOP_WORDS;
    int64_t kind = word[MIXPREC_CONTRACT_LOOP_KIND];
    if (kind < MIXPREC_CONTRACT_BATCH || kind > MIXPREC_CONTRACT_K ||
        word[MIXPREC_CONTRACT_LOOP_EXTENT] < 0) {
      error = "a contraction loop of kind " + std::to_string(kind) +
              " and extent " +
              std::to_string(word[MIXPREC_CONTRACT_LOOP_EXTENT]);
      return false;
    }
    byKind[kind].push_back({word[MIXPREC_CONTRACT_LOOP_EXTENT],
                            word[MIXPREC_CONTRACT_LOOP_LHS_STRIDE],
                            word[MIXPREC_CONTRACT_LOOP_RHS_STRIDE],
                            word[MIXPREC_CONTRACT_LOOP_RESULT_STRIDE]});
  }

  // The GEMM's m, n and k are the innermost merged loop of each kind; the
  // other loops of m and n, and the batch loops, make separate GEMMs
  // (outer); those of k are summed one after another into the same result.
  std::vector<Loop> outer = byKind[MIXPREC_CONTRACT_BATCH];
  Gemm gemm{1, 1, 1, 1, 1, 1, 1, 1, 1};
  std::vector<Loop> m = merge(byKind[MIXPREC_CONTRACT_M], &Loop::result);
  std::vector<Loop> n = merge(byKind[MIXPREC_CONTRACT_N], &Loop::result);
  std::vector<Loop> k = merge(byKind[MIXPREC_CONTRACT_K], &Loop::lhs);
  if (!m.empty()) {
    gemm.m = m.back().extent, gemm.lhsM = m.back().lhs;
    gemm.resultM = m.back().result;
    outer.insert(outer.end(), m.begin(), m.end() - 1);
  }
  if (!n.empty()) {
    gemm.n = n.back().extent, gemm.rhsN = n.back().rhs;
    gemm.resultN = n.back().result;
    outer.insert(outer.end(), n.begin(), n.end() - 1);
  }
  std::vector<Loop> kSteps;
  if (!k.empty()) {
    gemm.k = k.back().extent, gemm.lhsK = k.back().lhs;
    gemm.rhsK = k.back().rhs;
    kSteps.assign(k.begin(), k.end() - 1);
  }

  int64_t outerCount = 1, kStepCount = 1;
  for (const Loop &loop : outer)
    outerCount *= loop.extent;
  for (const Loop &loop : kSteps)
    kStepCount *= loop.extent;
  auto *lhsBase = reinterpret_cast<const char *>(
      uintptr_t(description[MIXPREC_CONTRACT_LHS]));
  auto *rhsBase = reinterpret_cast<const char *>(
      uintptr_t(description[MIXPREC_CONTRACT_RHS]));
  auto *resultBase = reinterpret_cast<float *>(
      uintptr_t(description[MIXPREC_CONTRACT_RESULT]));
  size_t bytes = elementBytes(type);
  if (outerCount == 0 || gemm.m == 0 || gemm.n == 0)
    return true;
  // Nothing to sum: the result is 0 (or stays).
  if (gemm.k == 0 || kStepCount == 0) {
    gemm.k = 0;
    kStepCount = 1;
  }

  int64_t rows = rowsPerTask(gemm);
  int64_t blocks = (gemm.m + rows - 1) / rows;
  int64_t tasks = outerCount * blocks;
  OneOpenMPThread alone;
  // Made here, before the threads start: one matmul per block height, for
  // the first k step and (accumulating) the rest.
  const Matmul *matmuls[2][2] = {};
  if (gemm.k > 0)
    for (int last = 0; last < 2; ++last) {
      int64_t height = last ? gemm.m - (blocks - 1) * rows : rows;
      matmuls[last][0] = matmulFor(gemm, height, type, accumulate);
      if (kStepCount > 1)
        matmuls[last][1] = matmulFor(gemm, height, type, true);
    }

  auto runTask = [&](int64_t task) {
    int64_t block = task % blocks;
    int64_t position = task / blocks;
    int64_t lhsOffset = block * rows * gemm.lhsM;
    int64_t rhsOffset = 0;
    int64_t resultOffset = block * rows * gemm.resultM;
    for (auto loop = outer.rbegin(); loop != outer.rend(); ++loop) {
      int64_t index = position % loop->extent;
      position /= loop->extent;
      lhsOffset += index * loop->lhs;
      rhsOffset += index * loop->rhs;
      resultOffset += index * loop->result;
    }
    int64_t height = std::min(rows, gemm.m - block * rows);
    const Matmul *const *shape = matmuls[height == rows ? 0 : 1];
    float *result = resultBase + resultOffset;
    for (int64_t step = 0; step < kStepCount; ++step) {
      int64_t lhsStep = 0, rhsStep = 0, rest = step;
      for (auto loop = kSteps.rbegin(); loop != kSteps.rend(); ++loop) {
        int64_t index = rest % loop->extent;
        rest /= loop->extent;
        lhsStep += index * loop->lhs;
        rhsStep += index * loop->rhs;
      }
      const void *lhs = lhsBase + (lhsOffset + lhsStep) * int64_t(bytes);
      const void *rhs = rhsBase + (rhsOffset + rhsStep) * int64_t(bytes);
      bool add = accumulate || step > 0;
      const Matmul *matmul = shape[step > 0 ? 1 : 0];
      if (!matmul || !run(*matmul, lhs, rhs, result))
        referenceGemm(gemm, height, type, add, lhs, rhs, result);
    }
  };

  parallelFor(tasks, int(std::min<int64_t>(numThreads(), tasks)), runTask);
  return true;
}

} // namespace mixprec::cpu

// The description comes from the compiler: one it cannot have written is a
// bug, stopped before it reads memory it does not name.
extern "C" void mixprec_cpu_contract(const int64_t *description) {
  std::string error;
  if (mixprec::cpu::contract(description, error))
    return;
  std::fprintf(stderr, "mixprec: internal error: %s\n", error.c_str());
  std::abort();
}
