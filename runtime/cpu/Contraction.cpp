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
// C library only (docs/design.md §8): no libstdc++ containers or guards.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Runtime/mixprec.h"
#include "mixprec/Runtime/mixprec_cpu_contract.h"

#include "Contraction.h"
#include "ModelEntries.h"
#include "OneDnn.h"
#include "ThreadCount.h"
#include "ThreadPool.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

namespace mixprec::cpu {
namespace {

/// A loop of the contraction: its extent and each operand's stride.
struct Loop {
  int64_t extent;
  int64_t lhs, rhs, result;
};

/// Loops of one kind, or the loops left over.
struct Loops {
  Loop loops[MIXPREC_CONTRACT_MAX_LOOPS];
  int count = 0;

  void add(const Loop &loop) { loops[count++] = loop; }
  int64_t product() const {
    int64_t result = 1;
    for (int i = 0; i < count; ++i)
      result *= loops[i].extent;
    return result;
  }
};

/// Merges `loops` into as few as their strides allow (the outer one's
/// stride is the inner one's times its extent, in every operand), outermost
/// first.
Loops merge(Loops loops, int64_t Loop::*primary) {
  // By the primary operand's stride, largest first; stable.
  for (int i = 1; i < loops.count; ++i)
    for (int j = i;
         j > 0 && loops.loops[j - 1].*primary < loops.loops[j].*primary; --j) {
      Loop swapped = loops.loops[j - 1];
      loops.loops[j - 1] = loops.loops[j];
      loops.loops[j] = swapped;
    }
  Loops merged;
  for (int i = 0; i < loops.count; ++i) {
    const Loop &loop = loops.loops[i];
    if (merged.count > 0) {
      Loop &inner = merged.loops[merged.count - 1];
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
    merged.add(loop);
  }
  return merged;
}

int64_t elementBytes(int64_t type) { return type == MIXPREC_BF16 ? 2 : 4; }

/// Rows of a task: about 2^22 multiply-adds, in multiples of 64 rows and
/// at least 256 (below that oneDNN's per-call packing of the RHS costs
/// more than the split gains), from the shape alone.
int64_t rowsPerTask(const Gemm &gemm) {
  int64_t perRow = gemm.n * gemm.k > 1 ? gemm.n * gemm.k : 1;
  int64_t rows = ((int64_t(1) << 22) / perRow + 63) / 64 * 64;
  if (rows < 256)
    rows = 256;
  return rows < gemm.m ? rows : (gemm.m > 1 ? gemm.m : 1);
}

/// A oneDNN matmul for one block shape and input type, kept for the
/// process.
struct Matmul {
  int64_t key[12];
  dnnl_primitive_t primitive;
  dnnl_memory_desc_t lhs, rhs, result, scratchpad;
  size_t scratchpadBytes;
  // Run once by prepareTable (identical layers share a matmul).
  mutable bool warmed;
  Matmul *next;
};

pthread_mutex_t cacheMutex = PTHREAD_MUTEX_INITIALIZER;
Matmul *cache = nullptr;

/// A 2-D memory descriptor; an extent-1 dim gets a dense stride (oneDNN
/// rejects some strides of dims that are never stepped).
bool matrix(const OneDnn &library, dnnl_memory_desc_t &desc, int64_t rows,
            int64_t columns, int64_t rowStride, int64_t columnStride,
            dnnl_data_type_t type) {
  if (columns == 1)
    columnStride = 1;
  if (rows == 1)
    rowStride = columns * columnStride;
  dnnl_dims_t dims = {rows, columns}, strides = {rowStride, columnStride};
  return library.memoryDescInitByStrides(&desc, 2, dims, type, strides) ==
         dnnl_success;
}

/// Which of oneDNN's implementations a matmul may take. Planned: its
/// kernels that need no memory but the scratchpad, which the trainer's
/// memory plan counts. Packing: also `gemm:jit`, which oneDNN picks where
/// those refuse an operand that is not dense, and which allocates packed
/// copies of its operands on every call, outside any plan (up to 2.8 MB at
/// once in a GPT decoder's step). Reference: also its reference loops,
/// slower than copying the operands densely for its own kernels (a 7-row
/// f32 block whose LHS is read down its columns ran at 0.1 GFLOP/s in
/// maxvit's step).
enum Kernels : int64_t { Planned, Packing, Reference };

/// Whether oneDNN's choice for `primitiveDesc` is one of `kernels`.
bool takes(const OneDnn &library, const_dnnl_primitive_desc_t desc,
           Kernels kernels) {
  const char *name = nullptr;
  if (library.primitiveDescQuery(desc, dnnl_query_impl_info_str, 0, &name) !=
          dnnl_success ||
      !name)
    return kernels == Reference;
  if (std::strncmp(name, "ref", 3) == 0)
    return kernels == Reference;
  return kernels != Planned || std::strncmp(name, "gemm:", 5) != 0;
}

/// Makes `matmul`'s primitive with inputs of `inputType` and an f32 result;
/// false when oneDNN has none for it among `kernels`.
bool make(const OneDnn &library, Matmul &matmul, const Gemm &gemm, int64_t rows,
          bool accumulate, dnnl_data_type_t inputType, Kernels kernels) {
  if (!matrix(library, matmul.lhs, rows, gemm.k, gemm.lhsM, gemm.lhsK,
              inputType) ||
      !matrix(library, matmul.rhs, gemm.k, gemm.n, gemm.rhsK, gemm.rhsN,
              inputType) ||
      !matrix(library, matmul.result, rows, gemm.n, gemm.resultM, gemm.resultN,
              dnnl_f32))
    return false;
  dnnl_matmul_desc_t desc;
  if (library.matmulDescInit(&desc, &matmul.lhs, &matmul.rhs, nullptr,
                             &matmul.result) != dnnl_success)
    return false;
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t postOps = nullptr;
  dnnl_primitive_desc_t primitiveDesc = nullptr;
  bool ok = library.attrCreate(&attr) == dnnl_success &&
            library.attrSetScratchpadMode(attr, dnnl_scratchpad_mode_user) ==
                dnnl_success;
  if (ok && accumulate)
    ok = library.postOpsCreate(&postOps) == dnnl_success &&
         library.postOpsAppendSum(postOps, 1.0f) == dnnl_success &&
         library.attrSetPostOps(attr, postOps) == dnnl_success;
  if (ok)
    ok = library.primitiveDescCreate(&primitiveDesc, &desc, attr,
                                     library.engine, nullptr) == dnnl_success;
  if (ok)
    ok = takes(library, primitiveDesc, kernels);
  if (ok) {
    matmul.scratchpad = *library.primitiveDescQueryMd(
        primitiveDesc, dnnl_query_scratchpad_md, 0);
    matmul.scratchpadBytes = library.memoryDescGetSize(&matmul.scratchpad);
    ok = library.primitiveCreate(&matmul.primitive, primitiveDesc) ==
         dnnl_success;
  }
  if (primitiveDesc)
    library.primitiveDescDestroy(primitiveDesc);
  if (postOps)
    library.postOpsDestroy(postOps);
  if (attr)
    library.attrDestroy(attr);
  return ok;
}

/// The matmul of `gemm` on `rows` rows of `inputType`, made once per shape;
/// null when oneDNN is missing or has none among `kernels`.
const Matmul *matmulFor(const Gemm &gemm, int64_t rows, bool accumulate,
                        dnnl_data_type_t inputType, Kernels kernels) {
  const OneDnn *library = oneDnn();
  if (!library)
    return nullptr;
  int64_t key[12] = {rows,         gemm.n,     gemm.k,    gemm.lhsM,
                     gemm.lhsK,    gemm.rhsK,  gemm.rhsN, gemm.resultM,
                     gemm.resultN, accumulate, inputType, kernels};
  pthread_mutex_lock(&cacheMutex);
  Matmul *found = cache;
  while (found && std::memcmp(found->key, key, sizeof(key)) != 0)
    found = found->next;
  if (!found) {
    // Never freed: reachable from `cache` for the process.
    found = static_cast<Matmul *>(std::calloc(1, sizeof(Matmul)));
    if (found) {
      std::memcpy(found->key, key, sizeof(key));
      if (!make(*library, *found, gemm, rows, accumulate, inputType, kernels))
        found->primitive = nullptr;
      found->next = cache;
      cache = found;
    }
  }
  pthread_mutex_unlock(&cacheMutex);
  return found && found->primitive ? found : nullptr;
}

/// What a thread holds for the contractions it runs: the largest of each
/// buffer any of their tasks grows it to (run, copyOperands, runTask). Set once
/// the model's contractions are prepared; each buffer grows to its size at
/// once, leaving no smaller ones behind in the heap.
struct ThreadBuffers {
  int64_t scratchpadBytes = 0;
  int64_t sums = 0, lhs = 0, rhs = 0; // f32 elements

  int64_t bytes() const {
    return scratchpadBytes + int64_t(sizeof(float)) * (sums + lhs + rhs);
  }
};
// Written once, by prepareTable, while steps on other threads may read
// it: each field is stored and loaded atomically.
ThreadBuffers prepared;

int64_t preparedValue(const int64_t &field) {
  return __atomic_load_n(&field, __ATOMIC_RELAXED);
}

/// Replaces `buffer` of `bytes` bytes, scratch whose values are not kept,
/// by one of `grown` bytes in pages of its own; false, with `buffer` null
/// and `bytes` 0, when there is no memory.
bool regrow(void *&buffer, size_t &bytes, size_t grown) {
  mixprec_pages_free(buffer, bytes);
  buffer = mixprec_pages_allocate(grown);
  bytes = buffer ? grown : 0;
  return buffer != nullptr;
}

// Each thread's stream and scratchpad (plain data: no destructors).
__thread dnnl_stream_t threadStream = nullptr;
__thread void *threadScratchpad = nullptr;
__thread size_t threadScratchpadBytes = 0;
__thread bool threadAlone = false;

/// A thread's oneDNN memory objects for a matmul's operands, made once and
/// pointed at each call's buffers: oneDNN allocates every object (aligned),
/// and a call that made and freed its own would scatter them over the heap.
struct Bound {
  const Matmul *matmul;
  dnnl_memory_t memories[4]; // lhs, rhs, result, scratchpad
};
__thread Bound *threadBound = nullptr;
__thread int64_t threadBoundCount = 0, threadBoundCapacity = 0;

/// This thread's memory objects for `matmul`; null when oneDNN fails.
const Bound *bind(const OneDnn &library, const Matmul &matmul) {
  for (int64_t i = 0; i < threadBoundCount; ++i)
    if (threadBound[i].matmul == &matmul)
      return &threadBound[i];
  if (threadBoundCount == threadBoundCapacity) {
    int64_t capacity = threadBoundCapacity ? 2 * threadBoundCapacity : 16;
    void *grown = std::realloc(threadBound, size_t(capacity) * sizeof(Bound));
    if (!grown)
      return nullptr;
    threadBound = static_cast<Bound *>(grown);
    threadBoundCapacity = capacity;
  }
  Bound bound = {&matmul, {}};
  const dnnl_memory_desc_t *descs[4] = {&matmul.lhs, &matmul.rhs,
                                        &matmul.result, &matmul.scratchpad};
  for (int i = 0; i < 4; ++i)
    if (library.memoryCreate(&bound.memories[i], descs[i], library.engine,
                             DNNL_MEMORY_NONE) != dnnl_success) {
      for (dnnl_memory_t memory : bound.memories)
        if (memory)
          library.memoryDestroy(memory);
      return nullptr;
    }
  threadBound[threadBoundCount] = bound;
  return &threadBound[threadBoundCount++];
}

/// Runs `matmul` on this thread's stream with these buffers; false when
/// oneDNN fails.
bool execute(const OneDnn &library, const Matmul &matmul, const void *lhs,
             const void *rhs, float *result, void *scratchpad) {
  if (!threadStream &&
      library.streamCreate(&threadStream, library.engine,
                           dnnl_stream_default_flags) != dnnl_success)
    return false;
  const Bound *bound = bind(library, matmul);
  if (!bound)
    return false;
  void *buffers[4] = {const_cast<void *>(lhs), const_cast<void *>(rhs), result,
                      scratchpad};
  for (int i = 0; i < 4; ++i)
    if (library.memorySetDataHandle(bound->memories[i], buffers[i]) !=
        dnnl_success)
      return false;
  dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, bound->memories[0]},
                            {DNNL_ARG_WEIGHTS, bound->memories[1]},
                            {DNNL_ARG_DST, bound->memories[2]},
                            {DNNL_ARG_SCRATCHPAD, bound->memories[3]}};
  return library.primitiveExecute(matmul.primitive, threadStream, 4, args) ==
             dnnl_success &&
         library.streamWait(threadStream) == dnnl_success;
}

/// Runs `matmul` on this thread; false when oneDNN fails (the caller
/// computes the block itself).
bool run(const Matmul &matmul, const void *lhs, const void *rhs,
         float *result) {
  const OneDnn &library = *oneDnn();
  // A worker runs oneDNN on itself alone, from its first matmul on (the
  // calling thread does for the call's scope: OneOpenMPThread).
  if (onWorker() && !threadAlone) {
    library.ompSetNumThreads(1);
    threadAlone = true;
  }
  if (threadScratchpadBytes < matmul.scratchpadBytes) {
    size_t planned = size_t(preparedValue(prepared.scratchpadBytes));
    size_t bytes =
        planned > matmul.scratchpadBytes ? planned : matmul.scratchpadBytes;
    if (!regrow(threadScratchpad, threadScratchpadBytes, bytes))
      return false;
  }
  return execute(library, matmul, lhs, rhs, result, threadScratchpad);
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

/// What a task needs: the GEMM, its blocks and the loops around it.
struct Work {
  Gemm gemm;
  // Operands copied, a block at a time, into this thread's dense copies of
  // element `copyType`, which the GEMM `copied` reads: those oneDNN's
  // planned kernels refuse as they are (not dense), in their own type; or,
  // where it has only its reference loops (bf16 without AVX512-BF16, or
  // without bf16 dot products), both, widened to f32.
  Gemm copied;
  int64_t type, copyType;
  bool copyLhs, copyRhs;
  bool accumulate;
  int64_t rows, blocks, tasks;
  Loops outer, kSteps;
  const char *lhs, *rhs;
  float *result;
  // A bf16 result (rounds), or one oneDNN's planned kernels refuse as it
  // is (scatters): each task sums its block into a dense f32 copy (the
  // GEMM's result strides), then rounds it once into `rounded`, or writes
  // it into `result`, whose strides along m and n these are.
  bool rounds, scatters;
  uint16_t *rounded;
  int64_t ownM, ownN;
  // [full block, last block][first k step, the rest]
  const Matmul *matmuls[2][2];
};

// Each thread's dense copies of a block of operands, and its f32 sums of a
// block of a result written after (plain data).
__thread float *threadLhs = nullptr, *threadRhs = nullptr;
__thread float *threadSums = nullptr;
__thread int64_t threadLhsElements = 0, threadRhsElements = 0;
__thread int64_t threadSumsElements = 0;

bool reserve(float *&buffer, int64_t &elements, int64_t needed,
             int64_t planned) {
  if (elements >= needed)
    return true;
  needed = planned > needed ? planned : needed;
  void *pages = buffer;
  size_t bytes = size_t(elements) * sizeof(float);
  bool ok = regrow(pages, bytes, size_t(needed) * sizeof(float));
  buffer = static_cast<float *>(pages);
  elements = int64_t(bytes / sizeof(float));
  return ok;
}

/// Floats that hold `count` elements of `type`.
int64_t floatsFor(int64_t count, int64_t type) {
  return type == MIXPREC_BF16 ? (count + 1) / 2 : count;
}

/// Copies a `rows` x `columns` matrix of element `type` at `from` into a
/// dense one of `copyType` at `to`, row major or `columnMajor`: the same
/// bits, or bf16 widened to f32 (exact). Runs contiguous in both are
/// copied whole.
void copyMatrix(const void *from, int64_t rows, int64_t columns,
                int64_t rowStride, int64_t columnStride, int64_t type, void *to,
                int64_t copyType, bool columnMajor) {
  auto *source = static_cast<const char *>(from);
  int64_t targetRow = columnMajor ? 1 : columns;
  int64_t targetColumn = columnMajor ? rows : 1;
  if (copyType != type) {
    auto *target = static_cast<float *>(to);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < columns; ++j)
        target[i * targetRow + j * targetColumn] =
            load(source, i * rowStride + j * columnStride, type);
    return;
  }
  auto *target = static_cast<char *>(to);
  int64_t bytes = elementBytes(type);
  if (!columnMajor && columnStride == 1) {
    for (int64_t i = 0; i < rows; ++i)
      std::memcpy(target + i * columns * bytes, source + i * rowStride * bytes,
                  size_t(columns * bytes));
    return;
  }
  if (columnMajor && rowStride == 1) {
    for (int64_t j = 0; j < columns; ++j)
      std::memcpy(target + j * rows * bytes, source + j * columnStride * bytes,
                  size_t(rows * bytes));
    return;
  }
  // Transposed: in 32 x 32 tiles, so that neither side strides through
  // memory a line per element.
  for (int64_t i0 = 0; i0 < rows; i0 += 32)
    for (int64_t j0 = 0; j0 < columns; j0 += 32) {
      int64_t iEnd = i0 + 32 < rows ? i0 + 32 : rows;
      int64_t jEnd = j0 + 32 < columns ? j0 + 32 : columns;
      for (int64_t i = i0; i < iEnd; ++i)
        for (int64_t j = j0; j < jEnd; ++j) {
          int64_t to = i * targetRow + j * targetColumn;
          int64_t at = i * rowStride + j * columnStride;
          if (bytes == 2)
            reinterpret_cast<uint16_t *>(target)[to] =
                reinterpret_cast<const uint16_t *>(source)[at];
          else
            reinterpret_cast<float *>(target)[to] =
                reinterpret_cast<const float *>(source)[at];
        }
    }
}

/// Copies `rows` rows of `work`'s LHS and its RHS, those it copies, into
/// this thread's dense copies; false when they cannot be allocated.
bool copyOperands(const Work &work, int64_t rows, const void *lhs,
                  const void *rhs) {
  const Gemm &gemm = work.gemm;
  if ((work.copyLhs && !reserve(threadLhs, threadLhsElements,
                                floatsFor(rows * gemm.k, work.copyType),
                                preparedValue(prepared.lhs))) ||
      (work.copyRhs && !reserve(threadRhs, threadRhsElements,
                                floatsFor(gemm.k * gemm.n, work.copyType),
                                preparedValue(prepared.rhs))))
    return false;
  if (work.copyLhs)
    copyMatrix(lhs, rows, gemm.k, gemm.lhsM, gemm.lhsK, work.type, threadLhs,
               work.copyType, false);
  if (work.copyRhs)
    copyMatrix(rhs, gemm.k, gemm.n, gemm.rhsK, gemm.rhsN, work.type, threadRhs,
               work.copyType, work.copied.rhsN != 1);
  return true;
}

/// Adds to `lhs`, `rhs` and `result` the offsets of iteration `position`
/// of `loops` (row-major, the last loop fastest).
void addOffsets(const Loops &loops, int64_t position, int64_t &lhs,
                int64_t &rhs, int64_t &result) {
  for (int i = loops.count - 1; i >= 0; --i) {
    const Loop &loop = loops.loops[i];
    int64_t index = position % loop.extent;
    position /= loop.extent;
    lhs += index * loop.lhs;
    rhs += index * loop.rhs;
    result += index * loop.result;
  }
}

/// `count` f32 values rounded to bf16 as arith.truncf rounds: to nearest
/// even, NaN as 0x7fc0; without branches, so that the loop vectorizes.
void roundToBF16(const float *values, int64_t count, uint16_t *rounded) {
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, 4);
    uint32_t nearest = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
    bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
    rounded[i] = uint16_t(nan ? 0x7fc0u : nearest);
  }
}

void runTask(void *context, int64_t task) {
  const Work &work = *static_cast<const Work *>(context);
  const Gemm &gemm = work.gemm;
  int64_t block = task % work.blocks;
  int64_t position = task / work.blocks;
  int64_t lhsOffset = block * work.rows * gemm.lhsM;
  int64_t rhsOffset = 0;
  bool ownStrides = work.rounds || work.scatters;
  int64_t resultOffset =
      block * work.rows * (ownStrides ? work.ownM : gemm.resultM);
  addOffsets(work.outer, position, lhsOffset, rhsOffset, resultOffset);
  int64_t height = gemm.m - block * work.rows;
  if (height > work.rows)
    height = work.rows;
  const Matmul *const *shape = work.matmuls[height == work.rows ? 0 : 1];
  float *result;
  if (ownStrides) {
    if (!reserve(threadSums, threadSumsElements, height * gemm.n,
                 preparedValue(prepared.sums))) {
      std::fprintf(stderr, "mixprec: out of memory for a contraction's "
                           "sums\n");
      std::abort();
    }
    result = threadSums;
    if (work.scatters && work.accumulate)
      for (int64_t i = 0; i < height; ++i)
        for (int64_t j = 0; j < gemm.n; ++j)
          result[i * gemm.n + j] =
              work.result[resultOffset + i * work.ownM + j * work.ownN];
  } else {
    result = work.result + resultOffset;
  }
  int64_t bytes = elementBytes(work.type);
  int64_t steps = work.kSteps.product();
  for (int64_t step = 0; step < steps; ++step) {
    // k loops index no result element (their result strides are 0).
    int64_t lhsStep = lhsOffset, rhsStep = rhsOffset, unused = 0;
    addOffsets(work.kSteps, step, lhsStep, rhsStep, unused);
    const void *lhs = work.lhs + lhsStep * bytes;
    const void *rhs = work.rhs + rhsStep * bytes;
    bool add = work.accumulate || step > 0;
    const Gemm *actual = &gemm;
    int64_t type = work.type;
    const Matmul *matmul = shape[step > 0 ? 1 : 0];
    if (work.copyLhs || work.copyRhs) {
      if (copyOperands(work, height, lhs, rhs)) {
        lhs = work.copyLhs ? threadLhs : lhs;
        rhs = work.copyRhs ? threadRhs : rhs;
        actual = &work.copied;
        type = work.copyType;
      } else {
        // No memory for the copies: the reference loop reads the operands
        // as they are.
        matmul = nullptr;
      }
    }
    if (!matmul || !run(*matmul, lhs, rhs, result))
      referenceGemm(*actual, height, type, add, lhs, rhs, result);
  }
  if (work.scatters) {
    float *out = work.result + resultOffset;
    for (int64_t i = 0; i < height; ++i)
      for (int64_t j = 0; j < gemm.n; ++j)
        out[i * work.ownM + j * work.ownN] = result[i * gemm.n + j];
    return;
  }
  if (!work.rounds)
    return;
  uint16_t *rounded = work.rounded + resultOffset;
  for (int64_t i = 0; i < height; ++i) {
    const float *row = result + i * gemm.n;
    uint16_t *out = rounded + i * work.ownM;
    if (work.ownN == 1) {
      roundToBF16(row, gemm.n, out);
      continue;
    }
    for (int64_t j = 0; j < gemm.n; ++j)
      roundToBF16(row + j, 1, out + j * work.ownN);
  }
}

/// Makes `work`'s matmuls for `gemm` with inputs of `type`; false when
/// oneDNN lacks one among `kernels`.
bool makeMatmuls(Work &work, const Gemm &gemm, dnnl_data_type_t type,
                 Kernels kernels) {
  bool all = true;
  for (int last = 0; last < 2; ++last) {
    int64_t height = last ? gemm.m - (work.blocks - 1) * work.rows : work.rows;
    work.matmuls[last][0] =
        matmulFor(gemm, height, work.accumulate, type, kernels);
    all &= work.matmuls[last][0] != nullptr;
    if (work.kSteps.count > 0) {
      work.matmuls[last][1] = matmulFor(gemm, height, true, type, kernels);
      all &= work.matmuls[last][1] != nullptr;
    }
  }
  return all;
}

/// Whether a `rows` x `columns` matrix with these strides is dense, row
/// or column major: what oneDNN's planned kernels take.
bool isDense(int64_t rows, int64_t columns, int64_t rowStride,
             int64_t columnStride) {
  return (columnStride == 1 && (rowStride == columns || rows == 1)) ||
         (rowStride == 1 && (columnStride == rows || columns == 1));
}

/// Makes `work`'s matmuls on dense copies, in their own `type`, of the
/// operands oneDNN's planned kernels refuse (not dense), the result summed
/// into a dense block and written after when it is not dense itself; false,
/// leaving `work` for other kernels, when they refuse those too.
bool makeOnDenseCopies(Work &work, dnnl_data_type_t type) {
  Gemm &gemm = work.gemm;
  int64_t last = gemm.m - (work.blocks - 1) * work.rows;
  bool lhs = !isDense(work.rows, gemm.k, gemm.lhsM, gemm.lhsK) ||
             !isDense(last, gemm.k, gemm.lhsM, gemm.lhsK);
  bool rhs = !isDense(gemm.k, gemm.n, gemm.rhsK, gemm.rhsN);
  bool result = gemm.resultN != 1 || (gemm.resultM != gemm.n && gemm.m > 1);
  if (!lhs && !rhs && !result)
    return false;
  Gemm copied = gemm;
  if (lhs)
    copied.lhsM = gemm.k, copied.lhsK = 1;
  // A weight read down its columns is copied column major (oneDNN takes
  // it so), whole columns at a time.
  if (rhs && gemm.rhsK == 1)
    copied.rhsK = 1, copied.rhsN = gemm.k;
  else if (rhs)
    copied.rhsK = gemm.n, copied.rhsN = 1;
  if (result)
    copied.resultM = gemm.n, copied.resultN = 1;
  if (!makeMatmuls(work, copied, type, Planned))
    return false;
  work.copied = copied;
  work.copyType = work.type;
  work.copyLhs = lhs, work.copyRhs = rhs;
  if (result) {
    work.scatters = true;
    work.ownM = gemm.resultM, work.ownN = gemm.resultN;
    gemm.resultM = gemm.n, gemm.resultN = 1;
  }
  return true;
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

namespace {

/// Fills `work` from `description` but for its operands' addresses, with
/// its matmuls made; false, with `error` saying why, for a description no
/// compiler writes.
bool plan(const int64_t *description, Work &work, char *error,
          size_t errorSize) {
  int64_t numLoops = description[MIXPREC_CONTRACT_NUM_LOOPS];
  int64_t type = description[MIXPREC_CONTRACT_LHS_TYPE];
  if (numLoops < 0 || numLoops > MIXPREC_CONTRACT_MAX_LOOPS) {
    std::snprintf(error, errorSize, "a contraction of %lld loops",
                  static_cast<long long>(numLoops));
    return false;
  }
  if ((type != MIXPREC_F32 && type != MIXPREC_BF16) ||
      description[MIXPREC_CONTRACT_RHS_TYPE] != type) {
    std::snprintf(
        error, errorSize, "a contraction of element types %lld and %lld",
        static_cast<long long>(type),
        static_cast<long long>(description[MIXPREC_CONTRACT_RHS_TYPE]));
    return false;
  }
  Loops byKind[4];
  for (int64_t i = 0; i < numLoops; ++i) {
    const int64_t *word = description + MIXPREC_CONTRACT_HEADER_WORDS +
                          i * MIXPREC_CONTRACT_LOOP_WORDS;
    int64_t kind = word[MIXPREC_CONTRACT_LOOP_KIND];
    int64_t extent = word[MIXPREC_CONTRACT_LOOP_EXTENT];
    if (kind < MIXPREC_CONTRACT_BATCH || kind > MIXPREC_CONTRACT_K ||
        extent < 0) {
      std::snprintf(
          error, errorSize, "a contraction loop of kind %lld and extent %lld",
          static_cast<long long>(kind), static_cast<long long>(extent));
      return false;
    }
    byKind[kind].add({extent, word[MIXPREC_CONTRACT_LOOP_LHS_STRIDE],
                      word[MIXPREC_CONTRACT_LOOP_RHS_STRIDE],
                      word[MIXPREC_CONTRACT_LOOP_RESULT_STRIDE]});
  }

  // The GEMM's m, n and k are the innermost merged loop of each kind; the
  // other loops of m and n, and the batch loops, make separate GEMMs
  // (outer); those of k are summed one after another into the same result.
  work.gemm = Gemm{1, 1, 1, 1, 1, 1, 1, 1, 1};
  work.type = type;
  work.accumulate = description[MIXPREC_CONTRACT_ACCUMULATE] != 0;
  work.outer = byKind[MIXPREC_CONTRACT_BATCH];
  Gemm &gemm = work.gemm;
  Loops m = merge(byKind[MIXPREC_CONTRACT_M], &Loop::result);
  Loops n = merge(byKind[MIXPREC_CONTRACT_N], &Loop::result);
  Loops k = merge(byKind[MIXPREC_CONTRACT_K], &Loop::lhs);
  if (m.count > 0) {
    const Loop &inner = m.loops[m.count - 1];
    gemm.m = inner.extent, gemm.lhsM = inner.lhs, gemm.resultM = inner.result;
    for (int i = 0; i + 1 < m.count; ++i)
      work.outer.add(m.loops[i]);
  }
  if (n.count > 0) {
    const Loop &inner = n.loops[n.count - 1];
    gemm.n = inner.extent, gemm.rhsN = inner.rhs, gemm.resultN = inner.result;
    for (int i = 0; i + 1 < n.count; ++i)
      work.outer.add(n.loops[i]);
  }
  if (k.count > 0) {
    const Loop &inner = k.loops[k.count - 1];
    gemm.k = inner.extent, gemm.lhsK = inner.lhs, gemm.rhsK = inner.rhs;
    for (int i = 0; i + 1 < k.count; ++i)
      work.kSteps.add(k.loops[i]);
  }
  work.rounds = work.scatters = false;
  int64_t resultType = description[MIXPREC_CONTRACT_RESULT_TYPE];
  if (resultType == MIXPREC_BF16) {
    if (work.accumulate) {
      std::snprintf(error, errorSize, "a bf16 contraction result added to");
      return false;
    }
    // The sums go to each task's dense block (m stride n, n stride 1).
    work.rounds = true;
    work.ownM = gemm.resultM, work.ownN = gemm.resultN;
    gemm.resultM = gemm.n, gemm.resultN = 1;
  } else if (resultType != MIXPREC_F32) {
    std::snprintf(error, errorSize, "a contraction result of element type %lld",
                  static_cast<long long>(resultType));
    return false;
  }
  work.rows = work.blocks = work.tasks = 0;
  work.copyLhs = work.copyRhs = false;
  work.copyType = type;
  std::memset(work.matmuls, 0, sizeof(work.matmuls));
  int64_t outerCount = work.outer.product();
  if (outerCount == 0 || gemm.m == 0 || gemm.n == 0)
    return true;
  // Nothing to sum: the result is 0 (or stays).
  if (gemm.k == 0 || work.kSteps.product() == 0) {
    gemm.k = 0;
    work.kSteps.count = 0;
  }

  work.rows = rowsPerTask(gemm);
  work.blocks = (gemm.m + work.rows - 1) / work.rows;
  work.tasks = outerCount * work.blocks;
  OneOpenMPThread alone(oneDnn());
  // Made here, before the threads start: one matmul per block height, for
  // the first k step and (accumulating) the rest.
  bool dotProducts = description[MIXPREC_CONTRACT_BF16_DOT] != 0;
  if (gemm.k > 0) {
    // oneDNN's planned kernels on the operands as they are; else on dense
    // copies of those they refuse; else its gemm:jit on them as they are.
    // Bf16 with no kernel of its own (or no dot products): its kernels on
    // dense f32 copies (widened); else its reference loops, on the f32
    // operands as they are or on the widened copies of bf16 ones.
    dnnl_data_type_t own = type == MIXPREC_F32 ? dnnl_f32 : dnnl_bf16;
    bool native = type == MIXPREC_F32 || dotProducts;
    bool made = native && (makeMatmuls(work, gemm, own, Planned) ||
                           makeOnDenseCopies(work, own) ||
                           makeMatmuls(work, gemm, own, Packing));
    if (!made) {
      work.copied = gemm;
      work.copied.lhsM = gemm.k, work.copied.lhsK = 1;
      work.copied.rhsK = gemm.n, work.copied.rhsN = 1;
      work.copyType = MIXPREC_F32;
      work.copyLhs = work.copyRhs = true;
      if (!makeMatmuls(work, work.copied, dnnl_f32, Packing)) {
        work.copyLhs = work.copyRhs = type != MIXPREC_F32;
        makeMatmuls(work, work.copyLhs ? work.copied : gemm, dnnl_f32,
                    Reference);
      }
    }
  }
  return true;
}

/// Grows `buffers` to what `work`'s tasks need.
void include(ThreadBuffers &buffers, const Work &work) {
  for (const auto &shape : work.matmuls)
    for (const Matmul *matmul : shape)
      if (matmul && int64_t(matmul->scratchpadBytes) > buffers.scratchpadBytes)
        buffers.scratchpadBytes = int64_t(matmul->scratchpadBytes);
  const Gemm &gemm = work.gemm;
  auto grow = [](int64_t &elements, int64_t needed) {
    elements = needed > elements ? needed : elements;
  };
  if (work.rounds || work.scatters)
    grow(buffers.sums, work.rows * gemm.n);
  if (work.copyLhs)
    grow(buffers.lhs, floatsFor(work.rows * gemm.k, work.copyType));
  if (work.copyRhs)
    grow(buffers.rhs, floatsFor(gemm.k * gemm.n, work.copyType));
}

pthread_once_t preparedOnce = PTHREAD_ONCE_INIT;

/// Runs `matmul` once on zeros in buffers of its own, freed after: oneDNN
/// generates some of its kernels on a primitive's first run (and this
/// thread's memory objects for it are made).
void warm(const Matmul &matmul) {
  const OneDnn &library = *oneDnn();
  const dnnl_memory_desc_t *descs[4] = {&matmul.lhs, &matmul.rhs,
                                        &matmul.result, &matmul.scratchpad};
  void *buffers[4] = {};
  bool ok = true;
  for (int i = 0; i < 4 && ok; ++i)
    ok = (buffers[i] = std::calloc(library.memoryDescGetSize(descs[i]) + 1,
                                   1)) != nullptr;
  if (ok)
    execute(library, matmul, buffers[0], buffers[1],
            static_cast<float *>(buffers[2]), buffers[3]);
  for (void *buffer : buffers)
    std::free(buffer);
}

void prepareTable() {
  const int64_t *table = mixprec_cpu_contractions;
  if (!table)
    return;
  const int64_t *description = table + 1;
  ThreadBuffers all;
  for (int64_t i = 0; i < table[0]; ++i) {
    Work work;
    char error[160];
    if (!plan(description, work, error, sizeof(error))) {
      std::fprintf(stderr, "mixprec: internal error: %s\n", error);
      std::abort();
    }
    include(all, work);
    OneOpenMPThread alone(oneDnn());
    for (const auto &shape : work.matmuls)
      for (const Matmul *matmul : shape)
        if (matmul && !matmul->warmed) {
          warm(*matmul);
          matmul->warmed = true;
        }
    description +=
        MIXPREC_CONTRACT_HEADER_WORDS +
        MIXPREC_CONTRACT_LOOP_WORDS * description[MIXPREC_CONTRACT_NUM_LOOPS];
  }
  int64_t ThreadBuffers::*fields[] = {&ThreadBuffers::scratchpadBytes,
                                      &ThreadBuffers::sums, &ThreadBuffers::lhs,
                                      &ThreadBuffers::rhs};
  for (int64_t ThreadBuffers::*field : fields)
    __atomic_store_n(&(prepared.*field), all.*field, __ATOMIC_RELAXED);
}

} // namespace

bool contract(const int64_t *description, char *error, size_t errorSize) {
  Work work;
  if (!plan(description, work, error, errorSize))
    return false;
  if (work.tasks == 0)
    return true;
  work.lhs = reinterpret_cast<const char *>(
      uintptr_t(description[MIXPREC_CONTRACT_LHS]));
  work.rhs = reinterpret_cast<const char *>(
      uintptr_t(description[MIXPREC_CONTRACT_RHS]));
  void *result =
      reinterpret_cast<void *>(uintptr_t(description[MIXPREC_CONTRACT_RESULT]));
  work.result = work.rounds ? nullptr : static_cast<float *>(result);
  work.rounded = work.rounds ? static_cast<uint16_t *>(result) : nullptr;
  int64_t threads = numThreads();
  OneOpenMPThread alone(oneDnn());
  parallelFor(work.tasks, int(threads < work.tasks ? threads : work.tasks),
              runTask, &work);
  return true;
}

} // namespace mixprec::cpu

extern "C" int64_t mixprec_cpu_prepare_contractions(void) {
  pthread_once(&mixprec::cpu::preparedOnce, mixprec::cpu::prepareTable);
  return mixprec::cpu::prepared.bytes();
}

// The description comes from the compiler: one it cannot have written is a
// bug, stopped before it reads memory it does not name.
extern "C" void mixprec_cpu_contract(const int64_t *description) {
  char error[160];
  if (mixprec::cpu::contract(description, error, sizeof(error)))
    return;
  std::fprintf(stderr, "mixprec: internal error: %s\n", error);
  std::abort();
}
