//===- GpusimInstructionTest.cpp - PTX instructions on the simulator ------===//
//
// Hand-written PTX kernels, one or a few instructions each, loaded and
// launched through the CUDA driver API that libmixprec_gpusim.so exports:
// integer arithmetic, f32 arithmetic in every rounding mode with .ftz and
// .sat, f16 and bf16 arithmetic, NaN and signed zeros in min/max and setp,
// conversions, immediates, special registers, vector moves, divergence and
// reconvergence (bra and brx.idx), barriers and shared memory, calls,
// fences, shuffles and cp.async. Every expected value is a literal worked
// out by hand from the PTX ISA (or, for data movement, the input it must
// move). A test that shows a simulator bug is kept, skipped with "gpusim
// bug: ...".
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

// The driver entry points, as libmixprec_gpusim.so exports them.
extern "C" {
using CUresult = int;
using CUdeviceptr = unsigned long long;
CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(int *device, int ordinal);
CUresult cuCtxCreate_v2(void **context, unsigned flags, int device);
CUresult cuCtxDestroy_v2(void *context);
CUresult cuCtxSynchronize();
CUresult cuModuleLoadData(void **module, const void *image);
CUresult cuModuleUnload(void *module);
CUresult cuModuleGetFunction(void **function, void *module, const char *name);
CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedBytes, void *stream,
                        void **parameters, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr pointer);
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source,
                         size_t bytes);
CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t bytes);
CUresult cuStreamSynchronize(void *stream);
CUresult cuGetErrorName(CUresult status, const char **name);
CUresult cuGetErrorString(CUresult status, const char **text);
}

namespace {

std::string errorText(CUresult status) {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(status, &name);
  cuGetErrorString(status, &text);
  return std::string(name ? name : "an unknown error") + " (" +
         (text ? text : "no text") + ")";
}

#define ASSERT_CU(call)                                                        \
  do {                                                                         \
    CUresult status = (call);                                                  \
    ASSERT_EQ(status, 0) << #call << " failed: " << errorText(status);         \
  } while (false)

std::string hex(uint64_t bits) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)bits);
  return text;
}

std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

constexpr const char *kHeader = ".version 8.0\n"
                                ".target sm_90\n"
                                ".address_size 64\n\n";

struct Dims {
  unsigned x = 1, y = 1, z = 1;
};

//===----------------------------------------------------------------------===//
// Elementwise kernels: thread t reads its operands from in[3t .. 3t+3) (64
// bits each: %a, %b, %c are their low 32 bits, %ha, %hb, %hc the low 16
// and %la, %lb, %lc all 64; %pc is c != 0), runs the body and writes %d,
// %h and %ld (all zero unless the body sets them) to out[t].
//===----------------------------------------------------------------------===//

struct Case {
  uint64_t a, b, c, expected;
  Case(uint64_t a, uint64_t expected) : a(a), b(0), c(0), expected(expected) {}
  Case(uint64_t a, uint64_t b, uint64_t expected)
      : a(a), b(b), c(0), expected(expected) {}
  Case(uint64_t a, uint64_t b, uint64_t c, uint64_t expected)
      : a(a), b(b), c(c), expected(expected) {}
};

/// Operands and the result in .rn, .rz, .rm and .rp.
struct RoundedCase {
  uint64_t a, b, c, expected[4];
  RoundedCase(uint64_t a, uint64_t rn, uint64_t rz, uint64_t rm, uint64_t rp)
      : a(a), b(0), c(0), expected{rn, rz, rm, rp} {}
  RoundedCase(uint64_t a, uint64_t b, uint64_t rn, uint64_t rz, uint64_t rm,
              uint64_t rp)
      : a(a), b(b), c(0), expected{rn, rz, rm, rp} {}
  RoundedCase(uint64_t a, uint64_t b, uint64_t c, uint64_t rn, uint64_t rz,
              uint64_t rm, uint64_t rp)
      : a(a), b(b), c(c), expected{rn, rz, rm, rp} {}
};

/// Which result of an elementwise kernel a test checks.
enum class Out { D, H, LD };

struct Result {
  uint32_t d;
  uint16_t h, unused;
  uint64_t ld;
};
static_assert(sizeof(Result) == 16, "the layout the kernel writes");

std::string elementwiseKernel(const std::string &body) {
  return std::string(kHeader) +
         R"(.visible .entry test(.param .u64 out, .param .u64 in)
{
  .reg .pred %p, %q, %pc;
  .reg .b16 %h, %ha, %hb, %hc;
  .reg .b32 %a, %b, %c, %d, %t, %u, %i;
  .reg .b64 %la, %lb, %lc, %ld, %lt, %out, %in, %off;

  ld.param.u64 %out, [out];
  ld.param.u64 %in, [in];
  cvta.to.global.u64 %out, %out;
  cvta.to.global.u64 %in, %in;
  mov.u32 %i, %tid.x;
  mul.wide.u32 %off, %i, 24;
  add.s64 %in, %in, %off;
  mul.wide.u32 %off, %i, 16;
  add.s64 %out, %out, %off;
  ld.global.u32 %a, [%in];
  ld.global.u32 %b, [%in+8];
  ld.global.u32 %c, [%in+16];
  ld.global.u64 %la, [%in];
  ld.global.u64 %lb, [%in+8];
  ld.global.u64 %lc, [%in+16];
  ld.global.b16 %ha, [%in];
  ld.global.b16 %hb, [%in+8];
  ld.global.b16 %hc, [%in+16];
  setp.ne.u32 %pc, %c, 0;
  mov.b32 %d, 0;
  mov.b16 %h, 0;
  mov.b64 %ld, 0;
)" + body +
         R"(
  st.global.u32 [%out], %d;
  st.global.b16 [%out+4], %h;
  st.global.u64 [%out+8], %ld;
  ret;
}
)";
}

class GpusimInstructionTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_CU(cuInit(0));
    int device = -1;
    ASSERT_CU(cuDeviceGet(&device, 0));
    // A context per test: a fault is sticky for its context only.
    ASSERT_CU(cuCtxCreate_v2(&context, 0, device));
  }

  void TearDown() override {
    if (context)
      cuCtxDestroy_v2(context);
  }

  /// Loads `ptx` (text, as cuModuleLoadData takes it), runs its kernel
  /// `name`(.param .u64 out, .param .u64 in) on `grid` x `block` with `in`
  /// holding a copy of `input`, and copies `outputBytes` of `out` (filled
  /// with 0xcd bytes before the launch) back into `output`.
  void launch(const std::string &ptx, const char *name, Dims grid, Dims block,
              const void *input, size_t inputBytes, void *output,
              size_t outputBytes) {
    void *module = nullptr, *function = nullptr;
    ASSERT_CU(cuModuleLoadData(&module, ptx.c_str()));
    ASSERT_CU(cuModuleGetFunction(&function, module, name));
    CUdeviceptr in = 0, out = 0;
    ASSERT_CU(cuMemAlloc_v2(&in, inputBytes ? inputBytes : 8));
    ASSERT_CU(cuMemAlloc_v2(&out, outputBytes));
    if (inputBytes)
      ASSERT_CU(cuMemcpyHtoD_v2(in, input, inputBytes));
    std::vector<uint8_t> sentinel(outputBytes, 0xcd);
    ASSERT_CU(cuMemcpyHtoD_v2(out, sentinel.data(), outputBytes));
    void *parameters[] = {&out, &in};
    ASSERT_CU(cuLaunchKernel(function, grid.x, grid.y, grid.z, block.x, block.y,
                             block.z, 0, nullptr, parameters, nullptr));
    ASSERT_CU(cuStreamSynchronize(nullptr));
    ASSERT_CU(cuCtxSynchronize());
    ASSERT_CU(cuMemcpyDtoH_v2(output, out, outputBytes));
    ASSERT_CU(cuMemFree_v2(in));
    ASSERT_CU(cuMemFree_v2(out));
    ASSERT_CU(cuModuleUnload(module));
  }

  template <typename In, typename Output>
  void launch(const std::string &ptx, const char *name, Dims grid, Dims block,
              const std::vector<In> &input, std::vector<Output> &output) {
    launch(ptx, name, grid, block, input.data(), input.size() * sizeof(In),
           output.data(), output.size() * sizeof(Output));
  }

  /// Runs `body` in an elementwise kernel, one thread per operand triple.
  void evaluate(const std::string &body, const std::vector<uint64_t> &operands,
                std::vector<Result> &results) {
    unsigned threads = unsigned(operands.size() / 3);
    results.assign(threads, Result());
    launch(elementwiseKernel(body), "test", Dims{}, Dims{threads}, operands,
           results);
  }

  static uint64_t field(const Result &result, Out which) {
    return which == Out::D ? result.d : which == Out::H ? result.h : result.ld;
  }

  /// Expects `body` to give each case's expected value in `which`.
  void check(const std::string &body, Out which,
             const std::vector<Case> &cases) {
    std::vector<uint64_t> operands;
    for (const Case &each : cases)
      operands.insert(operands.end(), {each.a, each.b, each.c});
    std::vector<Result> results;
    ASSERT_NO_FATAL_FAILURE(evaluate(body, operands, results)) << body;
    for (size_t i = 0; i < cases.size(); ++i)
      EXPECT_EQ(hex(field(results[i], which)), hex(cases[i].expected))
          << "`" << body << "` with a = " << hex(cases[i].a)
          << ", b = " << hex(cases[i].b) << ", c = " << hex(cases[i].c);
  }

  /// Runs `body` with RND replaced by each rounding modifier.
  void checkModes(const std::string &body, Out which,
                  const std::vector<RoundedCase> &cases) {
    static const char *modes[4] = {"rn", "rz", "rm", "rp"};
    for (int mode = 0; mode < 4; ++mode) {
      std::vector<Case> modeCases;
      for (const RoundedCase &each : cases)
        modeCases.push_back(Case(each.a, each.b, each.c, each.expected[mode]));
      check(replaceAll(body, "RND", modes[mode]), which, modeCases);
    }
  }

  void *context = nullptr;
};

//===----------------------------------------------------------------------===//
// Integer arithmetic
//===----------------------------------------------------------------------===//

TEST_F(GpusimInstructionTest, IntegerAddSub) {
  check("add.u32 %d, %a, %b;", Out::D,
        {{0xffffffff, 1, 0}, {0x7fffffff, 1, 0x80000000}, {3, 4, 7}});
  check("add.s32 %d, %a, %b;", Out::D,
        {{0x7fffffff, 1, 0x80000000}, {0xfffffffd, 5, 2}});
  check("sub.u32 %d, %a, %b;", Out::D,
        {{0, 1, 0xffffffff}, {5, 7, 0xfffffffe}, {0x80000000, 1, 0x7fffffff}});
  check("sub.s32 %d, %a, %b;", Out::D, {{0xfffffffd, 0xfffffffb, 2}});
  check("add.u64 %ld, %la, %lb;", Out::LD,
        {{0xffffffffffffffff, 1, 0}, {0xffffffff, 1, 0x100000000}});
  check("sub.s64 %ld, %la, %lb;", Out::LD, {{0, 1, 0xffffffffffffffff}});
}

TEST_F(GpusimInstructionTest, IntegerMultiply) {
  check("mul.lo.u32 %d, %a, %b;", Out::D,
        {{0x10000, 0x10001, 0x10000}, {0xffffffff, 0xffffffff, 1}});
  check("mul.lo.s32 %d, %a, %b;", Out::D, {{0xfffffffd, 5, 0xfffffff1}});
  // 0xfffffffd * 5 is 0x4_fffffff1 unsigned, -15 signed.
  check("mul.hi.u32 %d, %a, %b;", Out::D,
        {{0xffffffff, 0xffffffff, 0xfffffffe},
         {0xfffffffd, 5, 4},
         {0x10000, 0x10001, 1}});
  check("mul.hi.s32 %d, %a, %b;", Out::D,
        {{0xfffffffd, 5, 0xffffffff},
         {0x80000000, 2, 0xffffffff},
         {0x80000000, 0x80000000, 0x40000000},
         {0x7fffffff, 0x7fffffff, 0x3fffffff}});
  check("mul.wide.u32 %ld, %a, %b;", Out::LD,
        {{0xffffffff, 0xffffffff, 0xfffffffe00000001},
         {0xfffffffd, 5, 0x4fffffff1}});
  check("mul.wide.s32 %ld, %a, %b;", Out::LD,
        {{0xffffffff, 0xffffffff, 1},
         {0xfffffffd, 5, 0xfffffffffffffff1},
         {0x80000000, 0x80000000, 0x4000000000000000}});
  check("mul.lo.u64 %ld, %la, %lb;", Out::LD,
        {{0x100000001, 0x100000001, 0x200000001}});
  check("mul.hi.u64 %ld, %la, %lb;", Out::LD,
        {{0xffffffffffffffff, 0xffffffffffffffff, 0xfffffffffffffffe},
         {0x8000000000000000, 2, 1},
         {0x100000000, 0x100000000, 1}});
  check("mul.hi.s64 %ld, %la, %lb;", Out::LD,
        {{0xffffffffffffffff, 0xffffffffffffffff, 0},
         {0x8000000000000000, 2, 0xffffffffffffffff},
         {0x4000000000000000, 4, 1},
         {0xfffffffffffffffd, 5, 0xffffffffffffffff}});
}

TEST_F(GpusimInstructionTest, IntegerMultiplyAdd) {
  check("mad.lo.u32 %d, %a, %b, %c;", Out::D,
        {{0x10000, 0x10001, 5, 0x10005}, {0xffffffff, 2, 3, 1}});
  check("mad.lo.s32 %d, %a, %b, %c;", Out::D, {{0xfffffffd, 5, 20, 5}});
  check("mad.hi.u32 %d, %a, %b, %c;", Out::D,
        {{0xffffffff, 0xffffffff, 1, 0xffffffff}});
  check("mad.wide.u32 %ld, %a, %b, %lc;", Out::LD,
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff00000000},
         {2, 3, 0xffffffffffffffff, 5}});
  check("mad.wide.s32 %ld, %a, %b, %lc;", Out::LD,
        {{0xffffffff, 5, 0xfffffffffffffff6, 0xfffffffffffffff1},
         {0x80000000, 0x80000000, 1, 0x4000000000000001}});
}

TEST_F(GpusimInstructionTest, IntegerDivideAndRemainder) {
  check("div.u32 %d, %a, %b;", Out::D,
        {{7, 2, 3}, {0xfffffff9, 2, 0x7ffffffc}, {0xffffffff, 0xffffffff, 1}});
  // Signed division truncates toward zero; the remainder takes the
  // dividend's sign.
  check("div.s32 %d, %a, %b;", Out::D,
        {{0xfffffff9, 2, 0xfffffffd},
         {7, 0xfffffffe, 0xfffffffd},
         {0xfffffff9, 0xfffffffe, 3},
         {0xffffffff, 0xffffffff, 1}});
  check("rem.u32 %d, %a, %b;", Out::D,
        {{7, 2, 1}, {0xfffffff9, 16, 9}, {0xfffffff9, 2, 1}});
  check("rem.s32 %d, %a, %b;", Out::D,
        {{0xfffffff9, 2, 0xffffffff},
         {7, 0xfffffffe, 1},
         {0xfffffff9, 0xfffffffe, 0xffffffff},
         {0xfffffff8, 3, 0xfffffffe}});
  check("div.s64 %ld, %la, %lb;", Out::LD,
        {{0xfffffffffffffff9, 2, 0xfffffffffffffffd}});
  check("rem.s64 %ld, %la, %lb;", Out::LD,
        {{0xfffffffffffffff9, 2, 0xffffffffffffffff}});
  check("div.u64 %ld, %la, %lb;", Out::LD,
        {{0xffffffffffffffff, 2, 0x7fffffffffffffff}});
}

TEST_F(GpusimInstructionTest, IntegerMinMaxSignedVersusUnsigned) {
  check("min.s32 %d, %a, %b;", Out::D,
        {{0xffffffff, 1, 0xffffffff}, {0x80000000, 0x7fffffff, 0x80000000}});
  check("min.u32 %d, %a, %b;", Out::D,
        {{0xffffffff, 1, 1}, {0x80000000, 0x7fffffff, 0x7fffffff}});
  check("max.s32 %d, %a, %b;", Out::D,
        {{0xffffffff, 1, 1}, {0x80000000, 0x7fffffff, 0x7fffffff}});
  check("max.u32 %d, %a, %b;", Out::D,
        {{0xffffffff, 1, 0xffffffff}, {0x80000000, 0x7fffffff, 0x80000000}});
  check("min.s64 %ld, %la, %lb;", Out::LD,
        {{0xffffffffffffffff, 1, 0xffffffffffffffff}});
  check("max.u64 %ld, %la, %lb;", Out::LD,
        {{0xffffffffffffffff, 1, 0xffffffffffffffff}});
}

TEST_F(GpusimInstructionTest, Shifts) {
  // Shift amounts past the width give 0, or all sign bits for shr.s.
  check("shl.b32 %d, %a, %b;", Out::D,
        {{1, 31, 0x80000000},
         {1, 32, 0},
         {0xffffffff, 0xffffffff, 0},
         {0x12345678, 4, 0x23456780},
         {0x12345678, 0, 0x12345678}});
  check("shr.u32 %d, %a, %b;", Out::D,
        {{0x80000000, 31, 1}, {0x80000000, 32, 0}, {0xffffffff, 100, 0}});
  check("shr.b32 %d, %a, %b;", Out::D, {{0x80000000, 4, 0x08000000}});
  check("shr.s32 %d, %a, %b;", Out::D,
        {{0x80000000, 31, 0xffffffff},
         {0x80000000, 32, 0xffffffff},
         {0xfffffff8, 1, 0xfffffffc},
         {0xfffffff8, 0xffffffff, 0xffffffff},
         {0x40000000, 40, 0}});
  check("shl.b64 %ld, %la, %b;", Out::LD,
        {{1, 63, 0x8000000000000000}, {1, 64, 0}, {1, 32, 0x100000000}});
  check("shr.s64 %ld, %la, %b;", Out::LD,
        {{0x8000000000000000, 63, 0xffffffffffffffff},
         {0x8000000000000000, 64, 0xffffffffffffffff}});
  check("shr.u64 %ld, %la, %b;", Out::LD,
        {{0x8000000000000000, 63, 1}, {0x8000000000000000, 64, 0}});
}

TEST_F(GpusimInstructionTest, Logic) {
  check("and.b32 %d, %a, %b;", Out::D, {{0xf0f0f0f0, 0xff00ff00, 0xf000f000}});
  check("or.b32 %d, %a, %b;", Out::D, {{0xf0f0f0f0, 0xff00ff00, 0xfff0fff0}});
  check("xor.b32 %d, %a, %b;", Out::D, {{0xf0f0f0f0, 0xff00ff00, 0x0ff00ff0}});
  check("not.b32 %d, %a;", Out::D, {{0xf0f0f0f0, 0x0f0f0f0f}, {0, 0xffffffff}});
  check("and.b64 %ld, %la, %lb;", Out::LD,
        {{0xffffffff00000000, 0x0000ffffffff0000, 0x0000ffff00000000}});
  check("not.b64 %ld, %la;", Out::LD, {{0, 0xffffffffffffffff}});
  // On predicates: bit 0 and, bit 1 or, bit 2 xor, bit 3 not of a.
  check(R"(
  setp.ne.u32 %p, %a, 0;
  setp.ne.u32 %q, %b, 0;
  and.pred %pc, %p, %q;
  selp.u32 %t, 1, 0, %pc;
  or.b32 %d, %d, %t;
  or.pred %pc, %p, %q;
  selp.u32 %t, 2, 0, %pc;
  or.b32 %d, %d, %t;
  xor.pred %pc, %p, %q;
  selp.u32 %t, 4, 0, %pc;
  or.b32 %d, %d, %t;
  not.pred %pc, %p;
  selp.u32 %t, 8, 0, %pc;
  or.b32 %d, %d, %t;)",
        Out::D, {{0, 0, 0x8}, {1, 0, 0x6}, {0, 1, 0xe}, {1, 1, 0x3}});
}

TEST_F(GpusimInstructionTest, BitFieldExtract) {
  // bfe d, a, position, length.
  check("bfe.u32 %d, %a, %b, %c;", Out::D,
        {{0xf0f0f0f0, 4, 8, 0x0f},
         {0x12345678, 8, 8, 0x56},
         {0xf0000000, 28, 8, 0xf},
         {0xffffffff, 0, 0, 0},
         {0x80000000, 31, 1, 1},
         {0x12345678, 0, 32, 0x12345678},
         {0x12345678, 40, 8, 0}});
  // Signed: the field's top bit (or bit 31 when the field runs past it)
  // fills the rest; a zero length gives 0.
  check("bfe.s32 %d, %a, %b, %c;", Out::D,
        {{0x000000f0, 4, 4, 0xffffffff},
         {0x00000070, 4, 4, 7},
         {0xf0000000, 28, 8, 0xffffffff},
         {0x70000000, 28, 8, 7},
         {0x12345678, 8, 8, 0x56},
         {0x0000ab00, 8, 8, 0xffffffab},
         {0xffffffff, 0, 0, 0},
         {0x80000000, 40, 8, 0xffffffff}});
  check("bfe.u64 %ld, %la, %b, %c;", Out::LD,
        {{0xf000000000000000, 60, 8, 0xf}});
  check("bfe.s64 %ld, %la, %b, %c;", Out::LD,
        {{0xf000000000000000, 60, 8, 0xffffffffffffffff},
         {0x0000000080000000, 28, 4, 0xfffffffffffffff8}});
}

TEST_F(GpusimInstructionTest, BytePermute) {
  // prmt.b32 d, a, b, c: result byte i is byte c[4i+2:4i] of {b, a} (a's
  // bytes 0-3, b's 4-7); with c[4i+3] set, that byte's sign bit in all 8.
  check("prmt.b32 %d, %a, %b, %c;", Out::D,
        {{0x44332211, 0x88776655, 0x3210, 0x44332211},
         {0x44332211, 0x88776655, 0x7654, 0x88776655},
         {0x44332211, 0x88776655, 0x0123, 0x11223344},
         // The byte swap LLVM emits for 16-bit values.
         {0x44332211, 0x88776655, 0x7701, 0x88881122},
         {0x44332211, 0x00000000, 0x7701, 0x00001122},
         // Sign replication: 0x11 is positive, 0x88 negative.
         {0x44332211, 0x88776655, 0x888f, 0x000000ff},
         // Selector bits above the low 16 are ignored.
         {0x44332211, 0x88776655, 0xffff3210, 0x44332211}});
}

TEST_F(GpusimInstructionTest, BitCounts) {
  check("popc.b32 %d, %a;", Out::D,
        {{0xf0f0f0f0, 16}, {0, 0}, {0xffffffff, 32}});
  check("popc.b64 %d, %la;", Out::D,
        {{0xffffffffffffffff, 64}, {0x8000000000000001, 2}});
  check("clz.b32 %d, %a;", Out::D,
        {{0, 32}, {1, 31}, {0x80000000, 0}, {0x00010000, 15}});
  check("clz.b64 %d, %la;", Out::D, {{1, 63}, {0, 64}, {0x100000000, 31}});
  check("brev.b32 %d, %a;", Out::D,
        {{1, 0x80000000}, {6, 0x60000000}, {0x12345678, 0x1e6a2c48}});
  check("brev.b64 %ld, %la;", Out::LD,
        {{1, 0x8000000000000000}, {0xf, 0xf000000000000000}});
}

TEST_F(GpusimInstructionTest, NegateAndAbsolute) {
  check("neg.s32 %d, %a;", Out::D,
        {{5, 0xfffffffb}, {0x80000000, 0x80000000}, {0, 0}});
  check("neg.s64 %ld, %la;", Out::LD, {{1, 0xffffffffffffffff}});
  check("abs.s32 %d, %a;", Out::D,
        {{0xfffffffb, 5}, {0x80000000, 0x80000000}, {7, 7}});
  check("abs.s64 %ld, %la;", Out::LD, {{0xfffffffffffffffb, 5}});
}

TEST_F(GpusimInstructionTest, IntegerCompare) {
  // Bits: lt.s32, lt.u32, lo, ls, hi, hs, ge.s32, le.s32, eq, ne.
  std::string body;
  const char *compares[] = {"lt.s32", "lt.u32", "lo.u32", "ls.u32", "hi.u32",
                            "hs.u32", "ge.s32", "le.s32", "eq.b32", "ne.b32"};
  for (int bit = 0; bit < 10; ++bit)
    body += std::string("\n  setp.") + compares[bit] +
            " %p, %a, %b;\n  selp.b32 %t, " + std::to_string(1 << bit) +
            ", 0, %p;\n  or.b32 %d, %d, %t;";
  check(body, Out::D,
        {{0xffffffff, 1, 0x2b1}, {1, 1, 0x1e8}, {1, 0xffffffff, 0x24e}});
}

TEST_F(GpusimInstructionTest, AddSaturate) {
  // .sat clamps the exact result to [INT_MIN, INT_MAX].
  check("add.sat.s32 %d, %a, %b;", Out::D,
        {{0x7fffffff, 1, 0x7fffffff},
         {0x80000000, 0xffffffff, 0x80000000},
         {5, 0xfffffffd, 2}});
}

TEST_F(GpusimInstructionTest, SubtractAndMultiplyAddSaturate) {
  check("sub.sat.s32 %d, %a, %b;", Out::D,
        {{0x80000000, 1, 0x80000000},
         {0x7fffffff, 0xffffffff, 0x7fffffff},
         {5, 7, 0xfffffffe}});
  // mad.hi.sat.s32: the high half of a * b, plus c, clamped.
  check("mad.hi.sat.s32 %d, %a, %b, %c;", Out::D,
        {{0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff},
         {0x80000000, 0x7fffffff, 0x80000000, 0x80000000},
         {2, 3, 4, 4}});
}

//===----------------------------------------------------------------------===//
// f32 arithmetic
//===----------------------------------------------------------------------===//

TEST_F(GpusimInstructionTest, FloatAddInEveryMode) {
  checkModes("add.RND.f32 %d, %a, %b;", Out::D,
             {
                 // 1 + 2^-24: halfway, even below.
                 {0x3f800000, 0x33800000, 0x3f800000, 0x3f800000, 0x3f800000,
                  0x3f800001},
                 // 1 + 3 * 2^-24: halfway, even above.
                 {0x3f800000, 0x34400000, 0x3f800002, 0x3f800001, 0x3f800001,
                  0x3f800002},
                 {0xbf800000, 0xb3800000, 0xbf800000, 0xbf800000, 0xbf800001,
                  0xbf800000},
                 // 1 + 2^-25: below halfway.
                 {0x3f800000, 0x33000000, 0x3f800000, 0x3f800000, 0x3f800000,
                  0x3f800001},
                 // x + -x is +0, except -0 rounding down.
                 {0x3f800000, 0xbf800000, 0x00000000, 0x00000000, 0x80000000,
                  0x00000000},
                 // Overflow.
                 {0x7f7fffff, 0x7f7fffff, 0x7f800000, 0x7f7fffff, 0x7f7fffff,
                  0x7f800000},
             });
}

TEST_F(GpusimInstructionTest, FloatSubInEveryMode) {
  checkModes("sub.RND.f32 %d, %a, %b;", Out::D,
             {
                 // 1 - 2^-25: halfway between 1 - 2^-24 and 1.
                 {0x3f800000, 0x33000000, 0x3f800000, 0x3f7fffff, 0x3f7fffff,
                  0x3f800000},
                 {0x3f800000, 0x3f800000, 0x00000000, 0x00000000, 0x80000000,
                  0x00000000},
                 {0xff7fffff, 0x7f7fffff, 0xff800000, 0xff7fffff, 0xff800000,
                  0xff7fffff},
             });
}

TEST_F(GpusimInstructionTest, FloatMulInEveryMode) {
  checkModes("mul.RND.f32 %d, %a, %b;", Out::D,
             {
                 // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: halfway, even below.
                 {0x3f800800, 0x3f800800, 0x3f801000, 0x3f801000, 0x3f801000,
                  0x3f801001},
                 {0x3f800800, 0xbf800800, 0xbf801000, 0xbf801000, 0xbf801001,
                  0xbf801000},
                 // 2^-126 * 0.5: an exact subnormal.
                 {0x00800000, 0x3f000000, 0x00400000, 0x00400000, 0x00400000,
                  0x00400000},
                 // 2^-126 * 2^-24 = 2^-150: halfway between 0 and 2^-149.
                 {0x00800000, 0x33800000, 0x00000000, 0x00000000, 0x00000000,
                  0x00000001},
             });
}

TEST_F(GpusimInstructionTest, FloatFmaInEveryModeIsFused) {
  checkModes("fma.RND.f32 %d, %a, %b, %c;", Out::D,
             {
                 // (1 + 2^-12)^2 + 2^-30: just above halfway.
                 {0x3f800800, 0x3f800800, 0x30800000, 0x3f801001, 0x3f801000,
                  0x3f801000, 0x3f801001},
                 // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; a rounded
                 // product would give 2^-11.
                 {0x3f800800, 0x3f800800, 0xbf800000, 0x3a000400, 0x3a000400,
                  0x3a000400, 0x3a000400},
                 {0x3f800800, 0x3f800800, 0x00000000, 0x3f801000, 0x3f801000,
                  0x3f801000, 0x3f801001},
             });
}

TEST_F(GpusimInstructionTest, FloatDivInEveryMode) {
  checkModes("div.RND.f32 %d, %a, %b;", Out::D,
             {
                 {0x3f800000, 0x40400000, 0x3eaaaaab, 0x3eaaaaaa, 0x3eaaaaaa,
                  0x3eaaaaab}, // 1/3
                 {0xbf800000, 0x40400000, 0xbeaaaaab, 0xbeaaaaaa, 0xbeaaaaab,
                  0xbeaaaaaa}, // -1/3
                 {0x40000000, 0x40400000, 0x3f2aaaab, 0x3f2aaaaa, 0x3f2aaaaa,
                  0x3f2aaaab}, // 2/3
                 {0x3f800000, 0x40000000, 0x3f000000, 0x3f000000, 0x3f000000,
                  0x3f000000}, // 1/2
                 {0x3f800000, 0x00000000, 0x7f800000, 0x7f800000, 0x7f800000,
                  0x7f800000}, // 1/0
             });
}

TEST_F(GpusimInstructionTest, FloatSqrtInEveryMode) {
  checkModes("sqrt.RND.f32 %d, %a;", Out::D,
             {
                 {0x40000000, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f4},
                 {0x40400000, 0x3fddb3d7, 0x3fddb3d7, 0x3fddb3d7, 0x3fddb3d8},
                 {0x40800000, 0x40000000, 0x40000000, 0x40000000, 0x40000000},
                 {0x80000000, 0x80000000, 0x80000000, 0x80000000, 0x80000000},
                 {0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000},
                 // The square root of -1 is the canonical NaN.
                 {0xbf800000, 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff},
             });
}

TEST_F(GpusimInstructionTest, FloatFlushToZero) {
  // Subnormal inputs: .ftz reads them as zeros of the same sign.
  check("add.ftz.f32 %d, %a, %b;", Out::D,
        {{0x00000001, 0x00000000, 0x00000000},
         {0x00000001, 0x00800000, 0x00800000},
         {0x80000001, 0x00000000, 0x00000000},
         {0x807fffff, 0x80000000, 0x80000000}});
  check("add.f32 %d, %a, %b;", Out::D,
        {{0x00000001, 0x00000000, 0x00000001},
         {0x00000001, 0x00800000, 0x00800001},
         {0x80000001, 0x00000000, 0x80000001}});
  // Subnormal results: flushed to zeros of the same sign.
  check("mul.ftz.f32 %d, %a, %b;", Out::D,
        {{0x00800000, 0x3f000000, 0x00000000},
         {0x80800000, 0x3f000000, 0x80000000},
         {0x00000001, 0x4b000000, 0x00000000}});
  check("mul.rn.f32 %d, %a, %b;", Out::D,
        {{0x00800000, 0x3f000000, 0x00400000},
         {0x80800000, 0x3f000000, 0x80400000},
         {0x00000001, 0x4b000000, 0x00800000}});
  check("fma.rn.ftz.f32 %d, %a, %b, %c;", Out::D,
        {{0x00000001, 0x3f800000, 0x00000000, 0x00000000}});
  check("setp.gt.ftz.f32 %p, %a, %b;\n  selp.u32 %d, 1, 0, %p;", Out::D,
        {{0x00000001, 0x00000000, 0}});
  check("setp.gt.f32 %p, %a, %b;\n  selp.u32 %d, 1, 0, %p;", Out::D,
        {{0x00000001, 0x00000000, 1}});
  check("min.ftz.f32 %d, %a, %b;", Out::D, {{0x00000001, 0x00000002, 0}});
  check("min.f32 %d, %a, %b;", Out::D, {{0x00000001, 0x00000002, 1}});
}

TEST_F(GpusimInstructionTest, FloatSaturate) {
  // .sat clamps to [0, 1]; NaN becomes +0.
  check("add.sat.f32 %d, %a, %b;", Out::D,
        {{0x3f400000, 0x3f000000, 0x3f800000},
         {0xbf800000, 0x3f000000, 0x00000000},
         {0x3e800000, 0x3e800000, 0x3f000000},
         {0x7fc00000, 0x3f800000, 0x00000000},
         {0x7f800000, 0x00000000, 0x3f800000}});
  check("mul.sat.f32 %d, %a, %b;", Out::D,
        {{0x40000000, 0x40000000, 0x3f800000},
         {0xff800000, 0x3f800000, 0x00000000}});
  check("fma.rn.sat.f32 %d, %a, %b, %c;", Out::D,
        {{0x3f000000, 0x3f000000, 0x3f000000, 0x3f400000},
         {0x40000000, 0x40000000, 0x00000000, 0x3f800000}});
}

TEST_F(GpusimInstructionTest, FloatMinMaxNaNAndSignedZeros) {
  // One NaN: the other operand; both: the canonical NaN; -0 < +0.
  check("min.f32 %d, %a, %b;", Out::D,
        {{0x3f800000, 0x7fc00000, 0x3f800000},
         {0x7fc00000, 0x3f800000, 0x3f800000},
         {0x7fc00000, 0x7fc00000, 0x7fffffff},
         {0x7f800001, 0xffc00000, 0x7fffffff},
         {0x80000000, 0x00000000, 0x80000000},
         {0x00000000, 0x80000000, 0x80000000},
         {0xbf800000, 0x3f800000, 0xbf800000},
         {0xff800000, 0x7fc00000, 0xff800000}});
  check("max.f32 %d, %a, %b;", Out::D,
        {{0x3f800000, 0x7fc00000, 0x3f800000},
         {0x7fc00000, 0x3f800000, 0x3f800000},
         {0x7fc00000, 0x7fc00000, 0x7fffffff},
         {0x80000000, 0x00000000, 0x00000000},
         {0x00000000, 0x80000000, 0x00000000},
         {0xbf800000, 0x3f800000, 0x3f800000},
         {0x7fc00000, 0xff800000, 0xff800000}});
  // .NaN: any NaN operand gives the canonical NaN.
  check("min.NaN.f32 %d, %a, %b;", Out::D,
        {{0x3f800000, 0x7fc00000, 0x7fffffff},
         {0x7fc00000, 0x3f800000, 0x7fffffff},
         {0xbf800000, 0x3f800000, 0xbf800000},
         {0x80000000, 0x00000000, 0x80000000}});
  check("max.NaN.f32 %d, %a, %b;", Out::D,
        {{0x3f800000, 0x7fc00000, 0x7fffffff},
         {0x40000000, 0x3f800000, 0x40000000},
         {0x00000000, 0x80000000, 0x00000000}});
}

TEST_F(GpusimInstructionTest, FloatSignOperations) {
  check("neg.f32 %d, %a;", Out::D,
        {{0x3f800000, 0xbf800000},
         {0x00000000, 0x80000000},
         {0x80000000, 0x00000000},
         {0xff800000, 0x7f800000},
         {0x00000001, 0x80000001}});
  check("neg.ftz.f32 %d, %a;", Out::D,
        {{0x00000001, 0x80000000}, {0x80000001, 0x00000000}});
  check("abs.f32 %d, %a;", Out::D,
        {{0xbf800000, 0x3f800000},
         {0x80000000, 0x00000000},
         {0xff800000, 0x7f800000},
         {0x80000001, 0x00000001}});
  check("abs.ftz.f32 %d, %a;", Out::D, {{0x80000001, 0x00000000}});
  // copysign d, a, b: the magnitude of b with the sign of a.
  check("copysign.f32 %d, %a, %b;", Out::D,
        {{0xbf800000, 0x40000000, 0xc0000000},
         {0x3f800000, 0xc0000000, 0x40000000},
         {0x80000000, 0x40400000, 0xc0400000},
         {0x00000000, 0xff800000, 0x7f800000}});
  check("copysign.f64 %ld, %la, %lb;", Out::LD,
        {{0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000}});
}

TEST_F(GpusimInstructionTest, FloatCompareOrderedAndUnordered) {
  // Bit i of d is comparison i, in this order.
  const char *compares[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                            "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  std::string body;
  for (int bit = 0; bit < 14; ++bit)
    body += std::string("\n  setp.") + compares[bit] +
            ".f32 %p, %a, %b;\n  selp.b32 %t, " + std::to_string(1 << bit) +
            ", 0, %p;\n  or.b32 %d, %d, %t;";
  const uint64_t unordered = 0x2fc0, less = 0x138e, greater = 0x1cb2,
                 equal = 0x1a69;
  check(body, Out::D,
        {{0x3f800000, 0x7fc00000, unordered}, // 1, NaN
         {0x7fc00000, 0x3f800000, unordered}, // NaN, 1
         {0x7fc00000, 0x7fc00000, unordered}, // NaN, NaN
         {0x7f800000, 0xffc00000, unordered}, // inf, -NaN
         {0x3f800000, 0x40000000, less},      // 1, 2
         {0x40000000, 0x3f800000, greater},   // 2, 1
         {0x3f800000, 0x3f800000, equal},     // 1, 1
         {0x80000000, 0x00000000, equal},     // -0, +0
         {0xff800000, 0x7f800000, less}});    // -inf, inf
  check(replaceAll(body, ".f32 %p, %a, %b", ".f64 %p, %la, %lb"), Out::D,
        {{0x3ff0000000000000, 0x7ff8000000000000, unordered},
         {0x3ff0000000000000, 0x4000000000000000, less}});
}

TEST_F(GpusimInstructionTest, CompareWithPredicateCombination) {
  // p = (a < b) op c and q = !(a < b) op c: bit 0 of d is p, bit 1 q.
  const char *tail = R"(
  selp.u32 %d, 1, 0, %p;
  selp.u32 %t, 2, 0, %q;
  or.b32 %d, %d, %t;)";
  check(std::string("setp.lt.and.s32 %p|%q, %a, %b, %pc;") + tail, Out::D,
        {{1, 2, 1, 1}, {1, 2, 0, 0}, {3, 2, 1, 2}, {3, 2, 0, 0}});
  check(std::string("setp.lt.or.s32 %p|%q, %a, %b, %pc;") + tail, Out::D,
        {{1, 2, 1, 3}, {1, 2, 0, 1}, {3, 2, 1, 3}, {3, 2, 0, 2}});
  check(std::string("setp.lt.xor.s32 %p|%q, %a, %b, %pc;") + tail, Out::D,
        {{1, 2, 1, 2}, {1, 2, 0, 1}, {3, 2, 1, 1}, {3, 2, 0, 2}});
  // With a NaN the comparison is false and its complement true.
  check(std::string("setp.eq.and.f32 %p|%q, %a, %b, %pc;") + tail, Out::D,
        {{0x7fc00000, 0x7fc00000, 1, 2}, {0x3f800000, 0x3f800000, 1, 1}});
}

TEST_F(GpusimInstructionTest, CompareWithNegatedPredicate) {
  // setp.CmpOp.BoolOp p, a, b, {!}c: c may be negated.
  check("setp.lt.and.s32 %p, %a, %b, !%pc;\n  selp.u32 %d, 1, 0, %p;", Out::D,
        {{1, 2, 0, 1}, {1, 2, 1, 0}, {3, 2, 0, 0}});
}

TEST_F(GpusimInstructionTest, Select) {
  check("selp.b32 %d, %a, %b, %pc;", Out::D, {{5, 7, 1, 5}, {5, 7, 0, 7}});
  check("selp.b64 %ld, %la, %lb, %pc;", Out::LD,
        {{0x100000000, 2, 1, 0x100000000}, {0x100000000, 2, 0, 2}});
  check("selp.f32 %d, %a, %b, %pc;", Out::D,
        {{0x3f800000, 0x7fc00000, 0, 0x7fc00000}});
}

TEST_F(GpusimInstructionTest, ExpTwo) {
  check("ex2.approx.ftz.f32 %d, %a;", Out::D,
        {{0x00000000, 0x3f800000},   // 0 -> 1
         {0x80000000, 0x3f800000},   // -0 -> 1
         {0x3f800000, 0x40000000},   // 1 -> 2
         {0xbf800000, 0x3f000000},   // -1 -> 0.5
         {0x41200000, 0x44800000},   // 10 -> 1024
         {0xff800000, 0x00000000},   // -inf -> +0
         {0x7f800000, 0x7f800000},   // inf -> inf
         {0xc2fe0000, 0x00000000},   // -127 -> 2^-127, flushed
         {0x7fc00000, 0x7fffffff}}); // NaN
}

TEST_F(GpusimInstructionTest, HalfAndBFloatArithmetic) {
  check("add.rn.f16 %h, %ha, %hb;", Out::H,
        {{0x3c00, 0x1000, 0x3c00}, // 1 + 2^-11: halfway, even below
         {0x3c00, 0x1600, 0x3c02}, // 1 + 3 * 2^-11: halfway, even above
         {0x7bff, 0x7bff, 0x7c00}, // overflow
         {0x0001, 0x0001, 0x0002}, // subnormals are kept
         {0x0001, 0x0400, 0x0401},
         {0x3c00, 0xbc00, 0x0000}});
  check("mul.rn.f16 %h, %ha, %hb;", Out::H,
        {{0x3c01, 0x3c01, 0x3c02}, {0x0400, 0x3800, 0x0200}});
  check("fma.rn.f16 %h, %ha, %hb, %hc;", Out::H,
        {{0x0001, 0x3c00, 0x0000, 0x0001}});
  check("add.rn.sat.f16 %h, %ha, %hb;", Out::H,
        {{0x3c00, 0x3c00, 0x3c00}, {0xbc00, 0x3800, 0x0000}});
  check("min.f16 %h, %ha, %hb;", Out::H, {{0x0001, 0x0002, 0x0001}});
  check("neg.f16 %h, %ha;", Out::H, {{0x0001, 0x8001}});
  check("setp.gt.f16 %p, %ha, %hb;\n  selp.u32 %d, 1, 0, %p;", Out::D,
        {{0x0001, 0x0000, 1}});
  // bf16: 1 + 2^-8 and 1 + 3 * 2^-8 are ties; (1 + 2^-7)^2 = 1 + 2^-6 +
  // 2^-14.
  check("add.rn.bf16 %h, %ha, %hb;", Out::H,
        {{0x3f80, 0x3b80, 0x3f80}, {0x3f80, 0x3c40, 0x3f82}});
  check("mul.rn.bf16 %h, %ha, %hb;", Out::H, {{0x3f81, 0x3f81, 0x3f82}});
  check("fma.rn.bf16 %h, %ha, %hb, %hc;", Out::H,
        {{0x3f81, 0x3f81, 0x3f80, 0x4001}});
}

TEST_F(GpusimInstructionTest, HalfFlushToZero) {
  // .ftz on f16 instructions flushes subnormal inputs and results to zeros
  // of the same sign, as on f32.
  check("add.ftz.f16 %h, %ha, %hb;", Out::H,
        {{0x0001, 0x0000, 0x0000},
         {0x0001, 0x0400, 0x0400},
         {0x8001, 0x0000, 0x0000}});
  check("mul.ftz.f16 %h, %ha, %hb;", Out::H,
        {{0x0400, 0x3800, 0x0000}, {0x8400, 0x3800, 0x8000}});
  check("fma.rn.ftz.f16 %h, %ha, %hb, %hc;", Out::H,
        {{0x0001, 0x3c00, 0x0000, 0x0000}});
  check("min.ftz.f16 %h, %ha, %hb;", Out::H, {{0x0001, 0x0002, 0x0000}});
  check("neg.ftz.f16 %h, %ha;", Out::H, {{0x0001, 0x8000}});
  check("abs.ftz.f16 %h, %ha;", Out::H, {{0x8001, 0x0000}});
  check("setp.gt.ftz.f16 %p, %ha, %hb;\n  selp.u32 %d, 1, 0, %p;", Out::D,
        {{0x0001, 0x0000, 0}});
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

TEST_F(GpusimInstructionTest, ConvertIntegerWidths) {
  // Narrow sources are truncated, then extended by the source's sign.
  check("cvt.s32.s8 %d, %a;", Out::D,
        {{0xff, 0xffffffff}, {0x7f, 0x7f}, {0x180, 0xffffff80}});
  check("cvt.u32.u8 %d, %a;", Out::D, {{0x1ff, 0xff}, {0x80, 0x80}});
  check("cvt.s32.s16 %d, %a;", Out::D,
        {{0x00018000, 0xffff8000}, {0x7fff, 0x7fff}});
  check("cvt.u16.u32 %h, %a;", Out::H, {{0x12345678, 0x5678}});
  // A narrow signed result in a wider register is sign-extended.
  check("cvt.s16.s32 %d, %a;", Out::D, {{0x00018000, 0xffff8000}});
  check("cvt.s64.s32 %ld, %a;", Out::LD,
        {{0x80000000, 0xffffffff80000000}, {0x7fffffff, 0x7fffffff}});
  check("cvt.u64.u32 %ld, %a;", Out::LD, {{0x80000000, 0x80000000}});
  check("cvt.u64.s32 %ld, %a;", Out::LD, {{0xffffffff, 0xffffffffffffffff}});
  check("cvt.u32.u64 %d, %la;", Out::D, {{0x123456789, 0x23456789}});
  check("cvt.s32.s64 %d, %la;", Out::D, {{0xffffffff00000005, 5}});
}

TEST_F(GpusimInstructionTest, ConvertIntegerSaturate) {
  check("cvt.sat.s8.s32 %d, %a;", Out::D,
        {{300, 0x7f},
         {0xfffffed4, 0xffffff80}, // -300
         {5, 5},
         {0xffffff80, 0xffffff80}});
  check("cvt.sat.u8.s32 %d, %a;", Out::D,
        {{0xfffffffb, 0}, {300, 0xff}, {200, 200}});
  check("cvt.sat.s32.u32 %d, %a;", Out::D, {{0x80000000, 0x7fffffff}, {5, 5}});
  check("cvt.sat.u32.s32 %d, %a;", Out::D,
        {{0xffffffff, 0}, {0x7fffffff, 0x7fffffff}});
  check("cvt.sat.u16.u32 %d, %a;", Out::D,
        {{0x10000, 0xffff}, {0xfffe, 0xfffe}});
  check("cvt.sat.s32.s64 %d, %la;", Out::D,
        {{0x100000000, 0x7fffffff},
         {0xffffff0000000000, 0x80000000},
         {0xfffffffffffffffb, 0xfffffffb}});
  check("cvt.sat.u64.s64 %ld, %la;", Out::LD, {{0xffffffffffffffff, 0}});
  check("cvt.sat.s64.u64 %ld, %la;", Out::LD,
        {{0x8000000000000000, 0x7fffffffffffffff}});
}

TEST_F(GpusimInstructionTest, ConvertFloatToInteger) {
  check("cvt.rni.s32.f32 %d, %a;", Out::D,
        {{0x40200000, 2},          // 2.5
         {0x40600000, 4},          // 3.5
         {0xc0200000, 0xfffffffe}, // -2.5
         {0x3f000000, 0},          // 0.5
         {0xbf000000, 0},          // -0.5
         {0x402ccccd, 3}});        // 2.7
  check("cvt.rzi.s32.f32 %d, %a;", Out::D,
        {{0x402ccccd, 2}, {0xc02ccccd, 0xfffffffe}});
  check("cvt.rmi.s32.f32 %d, %a;", Out::D,
        {{0xc0133333, 0xfffffffd}, {0x402ccccd, 2}}); // -2.3, 2.7
  check("cvt.rpi.s32.f32 %d, %a;", Out::D,
        {{0x40133333, 3}, {0xc02ccccd, 0xfffffffe}}); // 2.3, -2.7
  // Out of range saturates; NaN gives 0.
  for (const char *mode : {"rni", "rzi", "rmi", "rpi"})
    check(std::string("cvt.") + mode + ".s32.f32 %d, %a;", Out::D,
          {{0x4f32d05e, 0x7fffffff}, // 3e9
           {0xcf32d05e, 0x80000000}, // -3e9
           {0x7fc00000, 0},
           {0x7f800000, 0x7fffffff},
           {0xff800000, 0x80000000},
           {0x4effffff, 0x7fffff80}, // 2^31 - 128
           {0x4f000000, 0x7fffffff}, // 2^31
           {0xcf000000, 0x80000000}});
  check("cvt.rzi.u32.f32 %d, %a;", Out::D,
        {{0xbf800000, 0},
         {0x4f9502f9, 0xffffffff}, // 5e9
         {0x7fc00000, 0},
         {0x4f7fffff, 0xffffff00},
         {0x4079999a, 3}}); // 3.9
  check("cvt.rzi.s64.f32 %ld, %a;", Out::LD,
        {{0x5f0ac723, 0x7fffffffffffffff}, // 1e19
         {0xdf0ac723, 0x8000000000000000},
         {0x7fc00000, 0},
         {0x5effffff, 0x7fffff8000000000}});
  check("cvt.rzi.u64.f32 %ld, %a;", Out::LD,
        {{0xbf800000, 0}, {0x5f800000, 0xffffffffffffffff}});
  check("cvt.rni.s32.f64 %d, %la;", Out::D,
        {{0x4004000000000000, 2}, {0x4202a05f20000000, 0x7fffffff}});
}

TEST_F(GpusimInstructionTest, ConvertFloatToFloatInteger) {
  check("cvt.rni.f32.f32 %d, %a;", Out::D,
        {{0x40200000, 0x40000000},
         {0x40600000, 0x40800000},
         {0xbf000000, 0x80000000}});
  check("cvt.rmi.f32.f32 %d, %a;", Out::D, {{0xbf000000, 0xbf800000}});
  check("cvt.rpi.f32.f32 %d, %a;", Out::D,
        {{0xbf000000, 0x80000000}, {0x3f000000, 0x3f800000}});
  check("cvt.rzi.f32.f32 %d, %a;", Out::D, {{0xc02ccccd, 0xc0000000}});
}

TEST_F(GpusimInstructionTest, ConvertSingleToHalfInEveryMode) {
  checkModes("cvt.RND.f16.f32 %h, %a;", Out::H,
             {
                 {0x3f801000, 0x3c00, 0x3c00, 0x3c00, 0x3c01}, // 1 + 2^-11
                 {0x3f803000, 0x3c02, 0x3c01, 0x3c01, 0x3c02}, // 1 + 3*2^-11
                 {0xbf801000, 0xbc00, 0xbc00, 0xbc01, 0xbc00},
                 {0x47c35000, 0x7c00, 0x7bff, 0x7bff, 0x7c00}, // 1e5
                 {0xc7c35000, 0xfc00, 0xfbff, 0xfc00, 0xfbff},
                 {0x33000000, 0x0000, 0x0000, 0x0000, 0x0001}, // 2^-25
                 {0x33400000, 0x0001, 0x0000, 0x0000, 0x0001}, // 0.75*2^-24
                 {0x33c00000, 0x0002, 0x0001, 0x0001, 0x0002}, // 1.5*2^-24
                 {0x7fc00000, 0x7fff, 0x7fff, 0x7fff, 0x7fff},
                 {0x80000000, 0x8000, 0x8000, 0x8000, 0x8000},
                 {0x7f800000, 0x7c00, 0x7c00, 0x7c00, 0x7c00},
             });
}

TEST_F(GpusimInstructionTest, ConvertSingleToBFloatInEveryMode) {
  checkModes("cvt.RND.bf16.f32 %h, %a;", Out::H,
             {
                 {0x3f808000, 0x3f80, 0x3f80, 0x3f80, 0x3f81}, // 1 + 2^-8
                 {0x3f818000, 0x3f82, 0x3f81, 0x3f81, 0x3f82}, // 1 + 3*2^-8
                 {0xbf808000, 0xbf80, 0xbf80, 0xbf81, 0xbf80},
                 {0x7f7fffff, 0x7f80, 0x7f7f, 0x7f7f, 0x7f80},
                 {0x00000001, 0x0000, 0x0000, 0x0000, 0x0001},
                 {0x007fffff, 0x0080, 0x007f, 0x007f, 0x0080},
                 {0x7fc00000, 0x7fff, 0x7fff, 0x7fff, 0x7fff},
             });
}

TEST_F(GpusimInstructionTest, ConvertRelu) {
  check("cvt.rn.relu.f16.f32 %h, %a;", Out::H,
        {{0xbf800000, 0x0000}, {0x40000000, 0x4000}, {0x7fc00000, 0x7fff}});
  check("cvt.rn.relu.bf16.f32 %h, %a;", Out::H,
        {{0xbf800000, 0x0000}, {0x3f800000, 0x3f80}});
}

TEST_F(GpusimInstructionTest, ConvertHalfAndBFloatToSingle) {
  check("cvt.f32.f16 %d, %ha;", Out::D,
        {{0x0001, 0x33800000}, // 2^-24
         {0x03ff, 0x387fc000}, // 1023 * 2^-24
         {0x8001, 0xb3800000},
         {0x7bff, 0x477fe000}, // 65504
         {0x3c00, 0x3f800000},
         {0x8000, 0x80000000},
         {0x7c00, 0x7f800000},
         {0xfc00, 0xff800000},
         {0x7e00, 0x7fffffff}});
  check("cvt.f32.bf16 %d, %ha;", Out::D,
        {{0x0001, 0x00010000}, // 2^-133
         {0x8001, 0x80010000},
         {0x3f80, 0x3f800000},
         {0x7f80, 0x7f800000},
         {0xff80, 0xff800000},
         {0x7fc1, 0x7fffffff}});
}

TEST_F(GpusimInstructionTest, ConvertIntegerToFloatInEveryMode) {
  checkModes("cvt.RND.f32.s32 %d, %a;", Out::D,
             {
                 {0x01000001, 0x4b800000, 0x4b800000, 0x4b800000,
                  0x4b800001}, // 2^24 + 1
                 {0xfeffffff, 0xcb800000, 0xcb800000, 0xcb800001,
                  0xcb800000}, // -(2^24 + 1)
                 {0x01000003, 0x4b800002, 0x4b800001, 0x4b800001,
                  0x4b800002}, // 2^24 + 3
                 {0x7fffffff, 0x4f000000, 0x4effffff, 0x4effffff, 0x4f000000},
                 {0x80000000, 0xcf000000, 0xcf000000, 0xcf000000, 0xcf000000},
                 {0xffffffff, 0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000},
             });
  checkModes("cvt.RND.f32.u32 %d, %a;", Out::D,
             {
                 {0xffffffff, 0x4f800000, 0x4f7fffff, 0x4f7fffff, 0x4f800000},
                 {0x80000001, 0x4f000000, 0x4f000000, 0x4f000000, 0x4f000001},
             });
  check("cvt.rn.f32.s64 %d, %la;", Out::D, {{0x8000000000000000, 0xdf000000}});
  check("cvt.rn.f64.s64 %ld, %la;", Out::LD,
        {{0x20000000000001, 0x4340000000000000}});
  check("cvt.rp.f64.u64 %ld, %la;", Out::LD,
        {{0x20000000000001, 0x4340000000000001}});
  check("cvt.rn.f16.s32 %h, %a;", Out::H,
        {{2049, 0x6800}, {0xfffffffd, 0xc200}});
}

TEST_F(GpusimInstructionTest, ConvertBetweenSingleAndDouble) {
  checkModes("cvt.RND.f32.f64 %d, %la;", Out::D,
             {
                 {0x3ff0000010000000, 0x3f800000, 0x3f800000, 0x3f800000,
                  0x3f800001}, // 1 + 2^-24
                 {0x3fb999999999999a, 0x3dcccccd, 0x3dcccccc, 0x3dcccccc,
                  0x3dcccccd}, // 0.1
                 {0x47f0000000000000, 0x7f800000, 0x7f7fffff, 0x7f7fffff,
                  0x7f800000}, // 2^128
             });
  check("cvt.f64.f32 %ld, %a;", Out::LD,
        {{0x3f800000, 0x3ff0000000000000}, {0x00000001, 0x36a0000000000000}});
}

TEST_F(GpusimInstructionTest, ConvertSaturateSingle) {
  check("cvt.sat.f32.f32 %d, %a;", Out::D,
        {{0x3fc00000, 0x3f800000}, // 1.5
         {0xbf000000, 0x00000000}, // -0.5
         {0x3e800000, 0x3e800000}, // 0.25
         {0x7fc00000, 0x00000000},
         {0x7f800000, 0x3f800000},
         {0xff800000, 0x00000000}});
}

//===----------------------------------------------------------------------===//
// Moves
//===----------------------------------------------------------------------===//

TEST_F(GpusimInstructionTest, MoveVectorPackAndUnpack) {
  // The first register of {lo, hi} is the low half.
  check("mov.b64 %ld, {%a, %b};", Out::LD,
        {{0x11223344, 0xaabbccdd, 0xaabbccdd11223344}});
  check("mov.b64 {%t, %d}, %la;", Out::D, {{0xaabbccdd11223344, 0xaabbccdd}});
  check("mov.b64 {%d, %t}, %la;", Out::D, {{0xaabbccdd11223344, 0x11223344}});
  check("mov.b64 {%t, %u}, %la;\n  mov.b64 %ld, {%u, %t};", Out::LD,
        {{0xaabbccdd11223344, 0x11223344aabbccdd}});
  check("mov.b32 {%h, %hb}, %a;\n  mov.b32 %d, {%hb, %h};", Out::D,
        {{0x12345678, 0x56781234}});
}

TEST_F(GpusimInstructionTest, ImmediateOperands) {
  check("mov.u32 %d, 0x10;", Out::D, {{0, 16}});
  check("mov.u32 %d, 0b101;", Out::D, {{0, 5}});
  check("mov.u32 %d, 10U;", Out::D, {{0, 10}});
  check("add.s32 %d, %a, -5;", Out::D, {{10, 5}});
  check("add.f32 %d, %a, 0f3FC00000;", Out::D, {{0x3f800000, 0x40200000}});
  // A decimal literal is a double, rounded to the instruction's f32.
  check("add.f32 %d, %a, 1.5;", Out::D, {{0x3f800000, 0x40200000}});
  check("add.f32 %d, %a, -1.5;", Out::D, {{0x3f800000, 0xbf000000}});
  check("add.f64 %ld, %la, 0d3FF8000000000000;", Out::LD,
        {{0x3ff0000000000000, 0x4004000000000000}});
  check("add.f64 %ld, %la, 1.5;", Out::LD,
        {{0x3ff0000000000000, 0x4004000000000000}});
}

TEST_F(GpusimInstructionTest, OctalImmediate) {
  // PTX integer literals with a leading 0 are octal: 017 is 15.
  check("mov.u32 %d, 017;", Out::D, {{0, 15}});
}

TEST_F(GpusimInstructionTest, MemoryFences) {
  // Fences order memory and change no register; each must load and run.
  for (const char *fence :
       {"membar.cta;", "membar.gl;", "membar.sys;", "fence.sc.cta;",
        "fence.acq_rel.cta;", "fence.sc.sys;", "fence.acq_rel.sys;"})
    check(std::string(fence) + "\n  add.u32 %d, %a, 1;", Out::D, {{41, 42}});
}

TEST_F(GpusimInstructionTest, GpuAndClusterScopeFences) {
  for (const char *fence : {"fence.sc.gpu;", "fence.acq_rel.gpu;",
                            "fence.sc.cluster;", "fence.acq_rel.cluster;"})
    check(std::string(fence) + "\n  add.u32 %d, %a, 1;", Out::D, {{41, 42}});
}

TEST_F(GpusimInstructionTest, SpecialRegistersOnTwoDimensionalLaunch) {
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry sregs(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %ctaid.y;
  mov.u32 %r7, %nctaid.x;
  mov.u32 %r8, %nctaid.y;
  mov.u32 %r9, %laneid;
  mad.lo.u32 %r10, %r6, %r7, %r5;
  mad.lo.u32 %r11, %r2, %r3, %r1;
  mul.lo.u32 %r12, %r3, %r4;
  mad.lo.u32 %r13, %r10, %r12, %r11;
  mul.wide.u32 %rd2, %r13, 36;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  st.global.u32 [%rd3+4], %r2;
  st.global.u32 [%rd3+8], %r3;
  st.global.u32 [%rd3+12], %r4;
  st.global.u32 [%rd3+16], %r5;
  st.global.u32 [%rd3+20], %r6;
  st.global.u32 [%rd3+24], %r7;
  st.global.u32 [%rd3+28], %r8;
  st.global.u32 [%rd3+32], %r9;
  ret;
}
)";
  // A 3 x 2 grid of 8 x 5 blocks: 40 threads, two warps, per block.
  const unsigned gridX = 3, gridY = 2, blockX = 8, blockY = 5;
  std::vector<uint32_t> out(gridX * gridY * blockX * blockY * 9);
  ASSERT_NO_FATAL_FAILURE(launch(ptx, "sregs", Dims{gridX, gridY},
                                 Dims{blockX, blockY}, std::vector<uint8_t>(),
                                 out));
  for (unsigned by = 0; by < gridY; ++by)
    for (unsigned bx = 0; bx < gridX; ++bx)
      for (unsigned ty = 0; ty < blockY; ++ty)
        for (unsigned tx = 0; tx < blockX; ++tx) {
          unsigned thread = ty * blockX + tx;
          unsigned index = (by * gridX + bx) * blockX * blockY + thread;
          const uint32_t expected[9] = {tx, ty,    blockX, blockY,     bx,
                                        by, gridX, gridY,  thread % 32};
          for (int i = 0; i < 9; ++i)
            EXPECT_EQ(out[index * 9 + i], expected[i])
                << "value " << i << " of thread (" << tx << "," << ty
                << ") of block (" << bx << "," << by << ")";
        }
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

TEST_F(GpusimInstructionTest, DivergentIfElseReconverges) {
  // Odd lanes compute 3 * lane, even ones lane + 100; after the join every
  // lane adds 1000 and a full-warp shuffle needs all 32 lanes together.
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry branches(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $L_even;
  mul.lo.u32 %r3, %r1, 3;
  bra $L_join;
$L_even:
  add.u32 %r3, %r1, 100;
$L_join:
  add.u32 %r3, %r3, 1000;
  shfl.sync.bfly.b32 %r4, %r3, 1, 31, 0xffffffff;
  // Nested: lanes below 16 pick 1 (odd) or 2 (even), the others 3.
  setp.lt.u32 %p2, %r1, 16;
  @!%p2 bra $L_high;
  @%p1 bra $L_low_even;
  mov.u32 %r5, 1;
  bra $L_low_join;
$L_low_even:
  mov.u32 %r5, 2;
$L_low_join:
  bra $L_nested_join;
$L_high:
  mov.u32 %r5, 3;
$L_nested_join:
  shfl.sync.idx.b32 %r6, %r5, 0, 31, 0xffffffff;
  add.u32 %r5, %r5, %r6;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
  ret;
}
)";
  std::vector<uint32_t> out(32 * 3);
  ASSERT_NO_FATAL_FAILURE(
      launch(ptx, "branches", Dims{}, Dims{32}, std::vector<uint8_t>(), out));
  auto joined = [](unsigned lane) {
    return lane % 2 ? 3 * lane + 1000 : lane + 1100;
  };
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[3 * lane], joined(lane)) << "lane " << lane;
    EXPECT_EQ(out[3 * lane + 1], joined(lane ^ 1)) << "lane " << lane;
    // Lane 0 picked 2; every lane adds that.
    unsigned nested = lane < 16 ? (lane % 2 ? 1 : 2) : 3;
    EXPECT_EQ(out[3 * lane + 2], nested + 2) << "lane " << lane;
  }
}

/// brx.idx over four targets by %r2 = in[lane]; lanes whose in[lane] is
/// 100 skip it (the guard) and keep 7. Each target sets %r3; after the
/// join every lane adds 1000 and a full-warp shuffle needs all 32 lanes.
const char *kIndexedBranch = R"(
.visible .entry indexed(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd4, [in];
  cvta.to.global.u64 %rd4, %rd4;
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd5, %rd4, %rd2;
  ld.global.u32 %r2, [%rd5];
  mov.u32 %r3, 7;
  setp.ne.u32 %p1, %r2, 100;
  $L_table: .branchtargets $L_zero, $L_one, $L_two, $L_one;
  @%p1 brx.idx %r2, $L_table;
  bra $L_join;
$L_zero:
  mov.u32 %r3, 10;
  bra $L_join;
$L_one:
  mov.u32 %r3, 11;
  bra $L_join;
$L_two:
  mov.u32 %r3, 12;
$L_join:
  add.u32 %r3, %r3, 1000;
  shfl.sync.bfly.b32 %r4, %r3, 1, 31, 0xffffffff;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  ret;
}
)";

TEST_F(GpusimInstructionTest, IndexedBranchDivergesAndReconverges) {
  // Lane L takes target L % 4 (3 goes where 1 does), every fifth lane
  // none.
  std::vector<uint32_t> in(32), out(32 * 2);
  for (unsigned lane = 0; lane < 32; ++lane)
    in[lane] = lane % 5 == 4 ? 100 : lane % 4;
  ASSERT_NO_FATAL_FAILURE(launch(std::string(kHeader) + kIndexedBranch,
                                 "indexed", Dims{}, Dims{32}, in, out));
  auto value = [&](unsigned lane) -> uint32_t {
    if (in[lane] == 100)
      return 1007;
    return in[lane] == 0 ? 1010 : in[lane] == 2 ? 1012 : 1011;
  };
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[2 * lane], value(lane)) << "lane " << lane;
    EXPECT_EQ(out[2 * lane + 1], value(lane ^ 1)) << "lane " << lane;
  }
}

TEST_F(GpusimInstructionTest, IndexedBranchOfOneTargetStaysConverged) {
  std::vector<uint32_t> in(32, 2), out(32 * 2);
  ASSERT_NO_FATAL_FAILURE(launch(std::string(kHeader) + kIndexedBranch,
                                 "indexed", Dims{}, Dims{32}, in, out));
  for (unsigned lane = 0; lane < 32; ++lane)
    EXPECT_EQ(out[2 * lane], 1012u) << "lane " << lane;
}

TEST_F(GpusimInstructionTest, IndexedBranchPastItsTargetsFaults) {
  void *module = nullptr, *function = nullptr;
  std::string ptx = std::string(kHeader) + kIndexedBranch;
  ASSERT_CU(cuModuleLoadData(&module, ptx.c_str()));
  ASSERT_CU(cuModuleGetFunction(&function, module, "indexed"));
  std::vector<uint32_t> in(32, 1);
  in[9] = 4; // the list has 4 targets
  CUdeviceptr input = 0, output = 0;
  ASSERT_CU(cuMemAlloc_v2(&input, in.size() * 4));
  ASSERT_CU(cuMemAlloc_v2(&output, 32 * 8));
  ASSERT_CU(cuMemcpyHtoD_v2(input, in.data(), in.size() * 4));
  void *parameters[] = {&output, &input};
  CUresult launched = cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr,
                                     parameters, nullptr);
  CUresult status = launched ? launched : cuCtxSynchronize();
  EXPECT_EQ(status, 715) << errorText(status); // CUDA_ERROR_ILLEGAL_INSTRUCTION
}

TEST_F(GpusimInstructionTest, LoopWithLaneDependentTripCount) {
  // Lane L runs the loop L times, summing 1 + 2 + ... + L; after the exit
  // a full-warp shuffle reads lane 31's sum.
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry loop(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %laneid;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
$L_loop:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $L_done;
  add.u32 %r2, %r2, 1;
  add.u32 %r3, %r3, %r2;
  bra $L_loop;
$L_done:
  shfl.sync.idx.b32 %r4, %r3, 31, 31, 0xffffffff;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  st.global.u32 [%rd3+8], %r4;
  ret;
}
)";
  std::vector<uint32_t> out(32 * 3);
  ASSERT_NO_FATAL_FAILURE(
      launch(ptx, "loop", Dims{}, Dims{32}, std::vector<uint8_t>(), out));
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[3 * lane], lane) << "trip count of lane " << lane;
    EXPECT_EQ(out[3 * lane + 1], lane * (lane + 1) / 2) << "lane " << lane;
    EXPECT_EQ(out[3 * lane + 2], 496u) << "lane " << lane;
  }
}

TEST_F(GpusimInstructionTest, DoWhileLoopAndEarlyExit) {
  // The loop form LLVM emits (the backward branch is the conditional one):
  // lane L runs the body L % 5 + 1 times. Lanes 20 and up then leave
  // through a branch to the final ret; the 20 left shuffle down with the
  // membermask of exactly those lanes and lane 19 as the clamp.
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry dowhile(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %laneid;
  rem.u32 %r2, %r1, 5;
  mov.u32 %r3, 0;
$L_body:
  add.u32 %r3, %r3, 1;
  setp.le.u32 %p1, %r3, %r2;
  @%p1 bra $L_body;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  setp.ge.u32 %p2, %r1, 20;
  @%p2 bra $L_end;
  shfl.sync.down.b32 %r4, %r3, 1, 19, 0x000fffff;
  st.global.u32 [%rd3+4], %r4;
$L_end:
  ret;
}
)";
  std::vector<uint32_t> out(32 * 2);
  ASSERT_NO_FATAL_FAILURE(
      launch(ptx, "dowhile", Dims{}, Dims{32}, std::vector<uint8_t>(), out));
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[2 * lane], lane % 5 + 1) << "trip count of lane " << lane;
    // The clamp of 19 keeps lane 19 on its own value.
    if (lane < 20) {
      unsigned source = lane < 19 ? lane + 1 : lane;
      EXPECT_EQ(out[2 * lane + 1], source % 5 + 1) << "lane " << lane;
    } else {
      EXPECT_EQ(out[2 * lane + 1], 0xcdcdcdcdu)
          << "lane " << lane << " left before the shuffle";
    }
  }
}

TEST_F(GpusimInstructionTest, BarrierExchangesThroughSharedMemory) {
  // Each of 64 threads (two warps) stores 7 * tid + 1, and after bar.sync
  // reads the value of thread (tid + 32) % 64, in the other warp.
  const std::string ptx = std::string(kHeader) + R"(
.shared .align 4 .b32 exchange[64];

.visible .entry barrier(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mad.lo.u32 %r2, %r1, 7, 1;
  mov.u64 %rd2, exchange;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.shared.u32 [%rd4], %r2;
  bar.sync 0;
  add.u32 %r3, %r1, 32;
  and.b32 %r3, %r3, 63;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.shared.u32 %r4, [%rd6];
  add.s64 %rd7, %rd1, %rd3;
  st.global.u32 [%rd7], %r4;
  ret;
}
)";
  std::vector<uint32_t> out(64);
  ASSERT_NO_FATAL_FAILURE(
      launch(ptx, "barrier", Dims{}, Dims{64}, std::vector<uint8_t>(), out));
  for (unsigned tid = 0; tid < 64; ++tid)
    EXPECT_EQ(out[tid], 7 * ((tid + 32) % 64) + 1) << "thread " << tid;
}

TEST_F(GpusimInstructionTest, CallWithParamArgumentsAndResult) {
  // The calling sequence LLVM emits; the second call runs on odd lanes only.
  const std::string ptx = std::string(kHeader) + R"(
.func (.param .b64 func_retval0) scale_add(
	.param .b64 scale_add_param_0,
	.param .b64 scale_add_param_1
)
{
  .reg .b64 %rd<5>;
  ld.param.b64 %rd1, [scale_add_param_0];
  ld.param.b64 %rd2, [scale_add_param_1];
  mul.lo.s64 %rd3, %rd1, %rd2;
  add.s64 %rd4, %rd3, %rd1;
  st.param.b64 [func_retval0], %rd4;
  ret;
}

.visible .entry calls(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd2, %r1;
  mov.u64 %rd3, 1000;
  { // callseq 0, 0
  .param .b64 param0;
  st.param.b64 [param0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1], %rd3;
  .param .b64 retval0;
  call.uni (retval0), scale_add, (param0, param1);
  ld.param.b64 %rd4, [retval0];
  } // callseq 0
  mov.u64 %rd5, 0;
  mov.u64 %rd6, 7;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $L_skip;
  { // callseq 1, 0
  .param .b64 param0;
  st.param.b64 [param0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1], %rd6;
  .param .b64 retval0;
  call (retval0), scale_add, (param0, param1);
  ld.param.b64 %rd5, [retval0];
  } // callseq 1
$L_skip:
  mul.wide.u32 %rd7, %r1, 16;
  add.s64 %rd8, %rd1, %rd7;
  st.global.u64 [%rd8], %rd4;
  st.global.u64 [%rd8+8], %rd5;
  ret;
}
)";
  std::vector<uint64_t> out(32 * 2);
  ASSERT_NO_FATAL_FAILURE(
      launch(ptx, "calls", Dims{}, Dims{32}, std::vector<uint8_t>(), out));
  for (uint64_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[2 * lane], 1001 * lane) << "lane " << lane;
    EXPECT_EQ(out[2 * lane + 1], lane % 2 ? 8 * lane : 0) << "lane " << lane;
  }
}

//===----------------------------------------------------------------------===//
// Warp shuffles and asynchronous copies
//===----------------------------------------------------------------------===//

TEST_F(GpusimInstructionTest, ShuffleModes) {
  // Lane L holds 10 * L + 1.
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry shuffles(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %laneid;
  mad.lo.u32 %r2, %r1, 10, 1;
  shfl.sync.up.b32 %r3|%p1, %r2, 3, 0, 0xffffffff;
  shfl.sync.down.b32 %r4|%p2, %r2, 5, 31, 0xffffffff;
  shfl.sync.bfly.b32 %r5, %r2, 6, 31, 0xffffffff;
  shfl.sync.idx.b32 %r6, %r2, 7, 31, 0xffffffff;
  sub.u32 %r7, 31, %r1;
  shfl.sync.idx.b32 %r8, %r2, %r7, 31, 0xffffffff;
  // Segments of 8 lanes: c = (32 - 8) << 8 | 31.
  shfl.sync.idx.b32 %r9, %r2, 0, 0x181f, 0xffffffff;
  shfl.sync.down.b32 %r10|%p3, %r2, 2, 0x181f, 0xffffffff;
  selp.u32 %r11, 1, 0, %p1;
  selp.u32 %r12, 1, 0, %p2;
  selp.u32 %r13, 1, 0, %p3;
  mul.wide.u32 %rd2, %r1, 40;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
  st.global.u32 [%rd3+12], %r6;
  st.global.u32 [%rd3+16], %r8;
  st.global.u32 [%rd3+20], %r9;
  st.global.u32 [%rd3+24], %r10;
  st.global.u32 [%rd3+28], %r11;
  st.global.u32 [%rd3+32], %r12;
  st.global.u32 [%rd3+36], %r13;
  ret;
}
)";
  std::vector<uint32_t> out(32 * 10);
  ASSERT_NO_FATAL_FAILURE(
      launch(ptx, "shuffles", Dims{}, Dims{32}, std::vector<uint8_t>(), out));
  auto value = [](unsigned lane) { return 10 * lane + 1; };
  for (unsigned lane = 0; lane < 32; ++lane) {
    const uint32_t *got = &out[10 * lane];
    bool upValid = lane >= 3, downValid = lane + 5 <= 31,
         segmentValid = lane % 8 <= 5;
    EXPECT_EQ(got[0], value(upValid ? lane - 3 : lane)) << "up, lane " << lane;
    EXPECT_EQ(got[1], value(downValid ? lane + 5 : lane))
        << "down, lane " << lane;
    EXPECT_EQ(got[2], value(lane ^ 6)) << "bfly, lane " << lane;
    EXPECT_EQ(got[3], value(7)) << "idx 7, lane " << lane;
    EXPECT_EQ(got[4], value(31 - lane)) << "idx 31 - lane, lane " << lane;
    EXPECT_EQ(got[5], value(lane & ~7u)) << "idx in segment, lane " << lane;
    EXPECT_EQ(got[6], value(segmentValid ? lane + 2 : lane))
        << "down in segment, lane " << lane;
    EXPECT_EQ(got[7], upValid ? 1u : 0u) << "up predicate, lane " << lane;
    EXPECT_EQ(got[8], downValid ? 1u : 0u) << "down predicate, lane " << lane;
    EXPECT_EQ(got[9], segmentValid ? 1u : 0u)
        << "segment predicate, lane " << lane;
  }
}

TEST_F(GpusimInstructionTest, AsyncCopiesToSharedMemory) {
  // 64 threads each copy 4, 8 and 16 bytes from global into shared memory
  // (regions of 256, 512 and 1024 bytes), wait, synchronize, and write the
  // elements of thread (tid + 32) % 64 to their own slots of out.
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry copies(.param .u64 out, .param .u64 in)
{
  .shared .align 16 .b8 staging[1792];
  .reg .b32 %r<8>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u64 %rd3, staging;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  cp.async.ca.shared.global [%rd5], [%rd6], 4;
  mul.wide.u32 %rd7, %r1, 8;
  add.s64 %rd8, %rd3, %rd7;
  add.s64 %rd9, %rd2, %rd7;
  cp.async.ca.shared.global [%rd8+256], [%rd9+256], 8;
  mul.wide.u32 %rd10, %r1, 16;
  add.s64 %rd11, %rd3, %rd10;
  add.s64 %rd12, %rd2, %rd10;
  cp.async.ca.shared.global [%rd11+768], [%rd12+768], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  add.u32 %r2, %r1, 32;
  and.b32 %r2, %r2, 63;
  mul.wide.u32 %rd13, %r2, 4;
  add.s64 %rd14, %rd3, %rd13;
  ld.shared.u32 %r3, [%rd14];
  mul.wide.u32 %rd15, %r2, 8;
  add.s64 %rd16, %rd3, %rd15;
  ld.shared.u64 %rd17, [%rd16+256];
  mul.wide.u32 %rd18, %r2, 16;
  add.s64 %rd19, %rd3, %rd18;
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%rd19+768];
  add.s64 %rd20, %rd1, %rd4;
  st.global.u32 [%rd20], %r3;
  add.s64 %rd21, %rd1, %rd7;
  st.global.u64 [%rd21+256], %rd17;
  add.s64 %rd22, %rd1, %rd10;
  st.global.v4.u32 [%rd22+768], {%r4, %r5, %r6, %r7};
  ret;
}
)";
  std::vector<uint8_t> in(1792), out(1792);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7 + 3);
  ASSERT_NO_FATAL_FAILURE(launch(ptx, "copies", Dims{}, Dims{64}, in, out));
  struct Region {
    unsigned offset, elementBytes;
  };
  for (Region region : {Region{0, 4}, Region{256, 8}, Region{768, 16}})
    for (unsigned tid = 0; tid < 64; ++tid) {
      unsigned partner = (tid + 32) % 64;
      for (unsigned byte = 0; byte < region.elementBytes; ++byte)
        EXPECT_EQ(out[region.offset + tid * region.elementBytes + byte],
                  in[region.offset + partner * region.elementBytes + byte])
            << region.elementBytes << "-byte copy, thread " << tid << ", byte "
            << byte;
    }
}

TEST_F(GpusimInstructionTest, AsyncCopyZeroFillsPastTheSourceSize) {
  // cp.async with src-size: thread t copies t % 17 bytes of its 16 and
  // fills the rest with zeros; cp.async.wait_all commits and waits.
  const std::string ptx = std::string(kHeader) + R"(
.visible .entry zerofill(.param .u64 out, .param .u64 in)
{
  .shared .align 16 .b8 staging[512];
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 17;
  mov.u64 %rd3, staging;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd3, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  cp.async.ca.shared.global [%rd5], [%rd6], 16, %r2;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [%rd5];
  add.s64 %rd7, %rd1, %rd4;
  st.global.v4.u32 [%rd7], {%r3, %r4, %r5, %r6};
  ret;
}
)";
  std::vector<uint8_t> in(512), out(512);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 13 + 1) | 1; // never 0
  ASSERT_NO_FATAL_FAILURE(launch(ptx, "zerofill", Dims{}, Dims{32}, in, out));
  for (unsigned tid = 0; tid < 32; ++tid)
    for (unsigned byte = 0; byte < 16; ++byte)
      EXPECT_EQ(out[16 * tid + byte], byte < tid % 17 ? in[16 * tid + byte] : 0)
          << "thread " << tid << ", byte " << byte;
}

} // namespace
