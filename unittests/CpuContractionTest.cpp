//===- CpuContractionTest.cpp - mixprec_cpu_contract ----------------------===//
//
// The runtime's contractions against sums in double, for the layouts the
// compiler describes (batches, transposed operands, m dims that merge and
// dims that do not, k split in two, bf16), and the same bits for 1, 2 and
// 3 threads.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Runtime/mixprec.h"
#include "mixprec/Runtime/mixprec_cpu_contract.h"

#include "Contraction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

/// A loop of a contraction with the strides of (lhs, rhs, result).
struct TestLoop {
  mixprec_contract_loop kind;
  int64_t extent, lhs, rhs, result;
};

uint16_t toBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return uint16_t(bits >> 16); // values below are bf16 already: exact
}

struct Contraction {
  std::vector<TestLoop> loops;
  mixprec_dtype type = MIXPREC_F32;
  bool accumulate = false;
  bool bf16DotProducts = true;
  bool bf16Result = false;
  std::vector<float> lhs, rhs, result;
  std::vector<uint16_t> lhs16, rhs16, result16;

  int64_t span(int64_t TestLoop::*stride) const {
    int64_t last = 0;
    for (const TestLoop &loop : loops)
      last += (loop.extent - 1) * loop.*stride;
    return last + 1;
  }

  /// Operands of random values (bf16-exact, so both types sum the same
  /// products) and a result of `initial`.
  void fill(unsigned seed, float initial) {
    std::mt19937 engine(seed);
    std::uniform_int_distribution<int> small(-64, 64);
    auto value = [&] { return std::ldexp(float(small(engine)), -5); };
    lhs.resize(span(&TestLoop::lhs));
    rhs.resize(span(&TestLoop::rhs));
    for (float &x : lhs)
      x = value();
    for (float &x : rhs)
      x = value();
    lhs16.clear(), rhs16.clear();
    for (float x : lhs)
      lhs16.push_back(toBf16(x));
    for (float x : rhs)
      rhs16.push_back(toBf16(x));
    result.assign(span(&TestLoop::result), initial);
    result16.assign(result.size(), 0xffff);
  }

  void run() {
    std::vector<int64_t> words(MIXPREC_CONTRACT_HEADER_WORDS);
    words[MIXPREC_CONTRACT_NUM_LOOPS] = int64_t(loops.size());
    words[MIXPREC_CONTRACT_LHS_TYPE] = type;
    words[MIXPREC_CONTRACT_RHS_TYPE] = type;
    words[MIXPREC_CONTRACT_ACCUMULATE] = accumulate;
    words[MIXPREC_CONTRACT_BF16_DOT] = bf16DotProducts;
    bool bf16 = type == MIXPREC_BF16;
    words[MIXPREC_CONTRACT_LHS] =
        int64_t(bf16 ? uintptr_t(lhs16.data()) : uintptr_t(lhs.data()));
    words[MIXPREC_CONTRACT_RHS] =
        int64_t(bf16 ? uintptr_t(rhs16.data()) : uintptr_t(rhs.data()));
    words[MIXPREC_CONTRACT_RESULT] = int64_t(
        bf16Result ? uintptr_t(result16.data()) : uintptr_t(result.data()));
    words[MIXPREC_CONTRACT_RESULT_TYPE] =
        bf16Result ? MIXPREC_BF16 : MIXPREC_F32;
    for (const TestLoop &loop : loops)
      words.insert(words.end(),
                   {loop.kind, loop.extent, loop.lhs, loop.rhs, loop.result});
    mixprec_cpu_contract(words.data());
  }

  /// The sums in double (exact here: few products of short values).
  std::vector<double> expected(float initial) const {
    std::vector<double> sums(result.size(), accumulate ? initial : 0.0);
    std::vector<int64_t> index(loops.size(), 0);
    while (true) {
      int64_t l = 0, r = 0, c = 0;
      for (size_t i = 0; i < loops.size(); ++i) {
        l += index[i] * loops[i].lhs;
        r += index[i] * loops[i].rhs;
        c += index[i] * loops[i].result;
      }
      sums[c] += double(lhs[l]) * double(rhs[r]);
      size_t i = loops.size();
      while (i > 0 && ++index[i - 1] == loops[i - 1].extent)
        index[--i] = 0;
      if (i == 0)
        return sums;
    }
  }
};

class CpuContraction : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(mixprec_num_threads(&saved), MIXPREC_OK); }
  void TearDown() override { mixprec_set_num_threads(saved); }

  /// Runs `contraction` at 1, 2 and 3 threads: each result equals the sums
  /// and has the bits of the one-thread result.
  void check(Contraction contraction) {
    std::vector<float> first;
    for (int threads : {1, 2, 3}) {
      ASSERT_EQ(mixprec_set_num_threads(threads), MIXPREC_OK);
      contraction.fill(7, 0.5f);
      contraction.run();
      std::vector<double> sums = contraction.expected(0.5f);
      for (size_t i = 0; i < sums.size(); ++i)
        ASSERT_EQ(double(contraction.result[i]), sums[i])
            << "element " << i << " at " << threads << " threads";
      if (first.empty())
        first = contraction.result;
      else
        ASSERT_EQ(std::memcmp(first.data(), contraction.result.data(),
                              first.size() * 4),
                  0)
            << threads << " threads";
    }
  }

  int32_t saved = 1;
};

TEST_F(CpuContraction, MatmulOfRowMajorOperands) {
  Contraction c;
  // 600 rows: three row blocks of the runtime, the last a partial one.
  c.loops = {{MIXPREC_CONTRACT_M, 600, 96, 0, 80},
             {MIXPREC_CONTRACT_N, 80, 0, 1, 1},
             {MIXPREC_CONTRACT_K, 96, 1, 80, 0}};
  check(c);
  c.accumulate = true;
  check(c);
}

TEST_F(CpuContraction, TransposedRhsAsLinearReadsItsWeight) {
  Contraction c;
  c.loops = {{MIXPREC_CONTRACT_M, 300, 64, 0, 48},
             {MIXPREC_CONTRACT_N, 48, 0, 64, 1},
             {MIXPREC_CONTRACT_K, 64, 1, 1, 0}};
  check(c);
}

TEST_F(CpuContraction, BatchesAndMDimsThatMerge) {
  Contraction c;
  // A 3-D input times a weight: (b, l) merge into one m of 4 * 50 rows.
  c.loops = {{MIXPREC_CONTRACT_M, 4, 50 * 32, 0, 50 * 24},
             {MIXPREC_CONTRACT_M, 50, 32, 0, 24},
             {MIXPREC_CONTRACT_N, 24, 0, 1, 1},
             {MIXPREC_CONTRACT_K, 32, 1, 24, 0}};
  check(c);
  // Heads of attention: batch loops over (batch, head) with the head
  // inside the row (strides that do not merge with the rows).
  Contraction heads;
  heads.loops = {{MIXPREC_CONTRACT_BATCH, 2, 40 * 48, 40 * 48, 40 * 40 * 3},
                 {MIXPREC_CONTRACT_BATCH, 3, 16, 16, 40 * 40},
                 {MIXPREC_CONTRACT_M, 40, 48, 0, 40},
                 {MIXPREC_CONTRACT_N, 40, 0, 48, 1},
                 {MIXPREC_CONTRACT_K, 16, 1, 1, 0}};
  check(heads);
}

TEST_F(CpuContraction, KDimsThatDoNotMergeAreSummedInTurn) {
  Contraction c;
  // The weight gradient of a 3-D input: k over (b, l), the lhs transposed
  // and padded so the two k dims cannot merge.
  c.loops = {{MIXPREC_CONTRACT_M, 24, 1, 0, 32},
             {MIXPREC_CONTRACT_N, 32, 0, 1, 1},
             {MIXPREC_CONTRACT_K, 3, 30 * 32, 20 * 32, 0},
             {MIXPREC_CONTRACT_K, 20, 32, 32, 0}};
  check(c);
  c.accumulate = true;
  check(c);
}

TEST_F(CpuContraction, OperandsAndResultsNotDenseAreCopiedDensely) {
  // oneDNN's planned kernels take dense operands only: an LHS whose rows
  // are read out of wider ones, an RHS read down columns farther apart
  // than k (attention's heads out of their projection), a result written
  // column-major (so summed into a dense block, then written) or into
  // every other column (adding to it). Each is copied densely; for f32
  // and bf16 inputs, at 1, 2 and 3 threads.
  for (mixprec_dtype type : {MIXPREC_F32, MIXPREC_BF16}) {
    Contraction c;
    c.type = type;
    c.loops = {{MIXPREC_CONTRACT_M, 300, 96, 0, 1},
               {MIXPREC_CONTRACT_N, 40, 0, 80, 300},
               {MIXPREC_CONTRACT_K, 64, 1, 1, 0}};
    check(c);
    c.accumulate = true;
    check(c);
    Contraction gaps;
    gaps.type = type;
    gaps.accumulate = true;
    gaps.loops = {{MIXPREC_CONTRACT_M, 300, 64, 0, 80},
                  {MIXPREC_CONTRACT_N, 40, 0, 1, 1},
                  {MIXPREC_CONTRACT_K, 64, 1, 40, 0}};
    check(gaps);
  }
}

TEST_F(CpuContraction, Bf16InputsSumInF32) {
  Contraction c;
  c.type = MIXPREC_BF16;
  c.loops = {{MIXPREC_CONTRACT_M, 520, 128, 0, 64},
             {MIXPREC_CONTRACT_N, 64, 0, 1, 1},
             {MIXPREC_CONTRACT_K, 128, 1, 64, 0}};
  check(c);
  c.bf16DotProducts = false;
  check(c);
}

TEST_F(CpuContraction, Bf16InKOrderHasTheBitsOfInOrderSums) {
  // Values whose sums round: without dot products the bf16 GEMM widens
  // them and sums each output in k order with fused multiply-adds, as the
  // reference loop (and the tensor cores) do, to the bit.
  Contraction c;
  c.type = MIXPREC_BF16;
  c.bf16DotProducts = false;
  c.loops = {{MIXPREC_CONTRACT_M, 300, 200, 0, 72},
             {MIXPREC_CONTRACT_N, 72, 0, 1, 1},
             {MIXPREC_CONTRACT_K, 200, 1, 72, 0}};
  c.fill(3, 0.0f);
  std::mt19937 engine(5);
  std::normal_distribution<float> normal;
  for (size_t i = 0; i < c.lhs16.size(); ++i)
    c.lhs16[i] = toBf16(normal(engine));
  for (size_t i = 0; i < c.rhs16.size(); ++i)
    c.rhs16[i] = toBf16(normal(engine));
  for (int threads : {1, 3}) {
    ASSERT_EQ(mixprec_set_num_threads(threads), MIXPREC_OK);
    c.run();
    std::vector<float> inOrder(c.result.size());
    mixprec::cpu::Gemm gemm{300, 72, 200, 200, 1, 72, 1, 72, 1};
    mixprec::cpu::referenceGemm(gemm, 300, MIXPREC_BF16, false, c.lhs16.data(),
                                c.rhs16.data(), inOrder.data());
    ASSERT_EQ(std::memcmp(inOrder.data(), c.result.data(), inOrder.size() * 4),
              0)
        << threads << " threads";
  }
}

/// arith.truncf's f32 -> bf16: to nearest even, NaN as 0x7fc0.
uint16_t roundedBf16(float value) {
  if (std::isnan(value))
    return 0x7fc0;
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

TEST_F(CpuContraction, Bf16ResultsAreTheF32SumsRoundedOnce) {
  // Normal values (sums that round both ways), dense results: the bf16
  // result is the f32 one rounded to nearest even, at 1 and 3 threads, for
  // row blocks with a partial last one, attention's heads, k split in two,
  // and bf16 inputs on dot products or widened.
  std::vector<Contraction> cases(5);
  cases[0].loops = {{MIXPREC_CONTRACT_M, 600, 96, 0, 80},
                    {MIXPREC_CONTRACT_N, 80, 0, 1, 1},
                    {MIXPREC_CONTRACT_K, 96, 1, 80, 0}};
  cases[1].loops = {{MIXPREC_CONTRACT_BATCH, 2, 40 * 48, 40 * 48, 40 * 40 * 3},
                    {MIXPREC_CONTRACT_BATCH, 3, 16, 16, 40 * 40},
                    {MIXPREC_CONTRACT_M, 40, 48, 0, 40},
                    {MIXPREC_CONTRACT_N, 40, 0, 48, 1},
                    {MIXPREC_CONTRACT_K, 16, 1, 1, 0}};
  cases[2].loops = {{MIXPREC_CONTRACT_M, 24, 1, 0, 32},
                    {MIXPREC_CONTRACT_N, 32, 0, 1, 1},
                    {MIXPREC_CONTRACT_K, 3, 30 * 32, 20 * 32, 0},
                    {MIXPREC_CONTRACT_K, 20, 32, 32, 0}};
  cases[3] = cases[0];
  cases[3].type = MIXPREC_BF16;
  cases[4] = cases[3];
  cases[4].bf16DotProducts = false;
  std::mt19937 engine(11);
  std::normal_distribution<float> normal;
  for (Contraction &c : cases) {
    c.fill(9, 0.0f);
    for (float &x : c.lhs)
      x = normal(engine);
    for (float &x : c.rhs)
      x = normal(engine);
    if (c.type == MIXPREC_BF16) {
      for (size_t i = 0; i < c.lhs.size(); ++i)
        c.lhs16[i] = roundedBf16(c.lhs[i]);
      for (size_t i = 0; i < c.rhs.size(); ++i)
        c.rhs16[i] = roundedBf16(c.rhs[i]);
    }
    for (int threads : {1, 3}) {
      ASSERT_EQ(mixprec_set_num_threads(threads), MIXPREC_OK);
      c.bf16Result = false;
      c.run();
      c.bf16Result = true;
      c.run();
      for (size_t i = 0; i < c.result.size(); ++i)
        ASSERT_EQ(c.result16[i], roundedBf16(c.result[i]))
            << "element " << i << " of " << c.result[i] << " at " << threads
            << " threads";
    }
  }
}

TEST_F(CpuContraction, DotProductAndOuterProduct) {
  Contraction dot;
  dot.loops = {{MIXPREC_CONTRACT_K, 333, 1, 1, 0}};
  check(dot);
  Contraction outer;
  outer.loops = {{MIXPREC_CONTRACT_M, 17, 1, 0, 9},
                 {MIXPREC_CONTRACT_N, 9, 0, 1, 1}};
  check(outer);
}

TEST(CpuReferenceGemm, SumsKInOrderWithFusedMultiplyAdds) {
  // In order, 2^24 + 1 rounds back to 2^24 and the sum ends at 0; any
  // other order ends at 1.
  float lhs[3] = {std::ldexp(1.0f, 24), 1.0f, -std::ldexp(1.0f, 24)};
  float rhs[3] = {1.0f, 1.0f, 1.0f};
  float result = 5.0f;
  mixprec::cpu::Gemm gemm{1, 1, 3, 3, 1, 1, 1, 1, 1};
  mixprec::cpu::referenceGemm(gemm, 1, MIXPREC_F32, false, lhs, rhs, &result);
  EXPECT_EQ(result, 0.0f);
  gemm.k = 2;
  uint16_t lhs16[2] = {toBf16(3.0f), toBf16(-0.5f)};
  uint16_t rhs16[2] = {toBf16(2.0f), toBf16(4.0f)};
  result = 1.0f;
  mixprec::cpu::referenceGemm(gemm, 1, MIXPREC_BF16, true, lhs16, rhs16,
                              &result);
  EXPECT_EQ(result, 1.0f + 6.0f - 2.0f);
}

TEST(CpuContract, RejectsADescriptionNoCompilerWrites) {
  char error[160];
  int64_t tooMany[MIXPREC_CONTRACT_HEADER_WORDS] = {
      MIXPREC_CONTRACT_MAX_LOOPS + 1, MIXPREC_F32, MIXPREC_F32};
  EXPECT_FALSE(mixprec::cpu::contract(tooMany, error, sizeof(error)));
  EXPECT_NE(std::strstr(error, "13 loops"), nullptr) << error;
  int64_t f16[MIXPREC_CONTRACT_HEADER_WORDS] = {0, MIXPREC_F16, MIXPREC_F16};
  EXPECT_FALSE(mixprec::cpu::contract(f16, error, sizeof(error)));
  EXPECT_NE(std::strstr(error, "element types 1 and 1"), nullptr) << error;
  int64_t f16Result[MIXPREC_CONTRACT_HEADER_WORDS] = {0, MIXPREC_F32,
                                                      MIXPREC_F32};
  f16Result[MIXPREC_CONTRACT_RESULT_TYPE] = MIXPREC_F16;
  EXPECT_FALSE(mixprec::cpu::contract(f16Result, error, sizeof(error)));
  EXPECT_NE(std::strstr(error, "result of element type 1"), nullptr) << error;
  int64_t addedTo[MIXPREC_CONTRACT_HEADER_WORDS] = {0, MIXPREC_F32, MIXPREC_F32,
                                                    1};
  addedTo[MIXPREC_CONTRACT_RESULT_TYPE] = MIXPREC_BF16;
  EXPECT_FALSE(mixprec::cpu::contract(addedTo, error, sizeof(error)));
  EXPECT_NE(std::strstr(error, "bf16 contraction result added to"), nullptr)
      << error;
}

} // namespace
