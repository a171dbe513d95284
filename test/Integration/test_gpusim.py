"""The GPU simulator (runtime/gpusim) driven directly through its CUDA driver
API with hand-written PTX, no compiler in between.

* mma.sync m16n8k16 (f16 and bf16 inputs, f32 accumulators) and
  ldmatrix.m8n8 (.x1/.x2/.x4, with and without .trans) are checked against
  the fragment layouts of the PTX ISA, with the fragments packed and
  unpacked here in numpy so the kernels only move words;
* every fault the simulator detects is provoked once: its driver error code,
  that the error is sticky, and that cuGetErrorString names the kernel, the
  PTX line, the block, the thread and the address;
* the counters of MIXPREC_GPUSIM_REPORT are compared with counts worked out
  by hand, shared-memory bank conflicts included.
"""
import ctypes
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from subprocess_env import python_env

LIBRARY = os.path.join(os.environ.get("MIXPREC_BUILD", "build"), "lib",
                       "libmixprec_gpusim.so")
if not os.path.exists(LIBRARY):
    pytest.skip("the GPU simulator is not built (%s)" % LIBRARY,
                allow_module_level=True)

CUDA_SUCCESS = 0
CUDA_ERROR_ILLEGAL_ADDRESS = 700
CUDA_ERROR_MISALIGNED_ADDRESS = 716
CUDA_ERROR_LAUNCH_FAILED = 719
CUDA_ERROR_NOT_SUPPORTED = 801

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n\n"

# ---------------------------------------------------------------------------
# The driver through ctypes
# ---------------------------------------------------------------------------

_lib = None


def driver():
    """The simulator's libcuda, loaded and initialized once per process."""
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(os.path.abspath(LIBRARY))
        u64, u32, vp = ctypes.c_uint64, ctypes.c_uint, ctypes.c_void_p
        pvp, pchar = ctypes.POINTER(vp), ctypes.POINTER(ctypes.c_char_p)
        signatures = {
            "cuInit": [u32],
            "cuDeviceGet": [ctypes.POINTER(ctypes.c_int), ctypes.c_int],
            "cuDeviceGetName": [ctypes.c_char_p, ctypes.c_int, ctypes.c_int],
            "cuCtxCreate_v2": [pvp, u32, ctypes.c_int],
            "cuCtxDestroy_v2": [vp],
            "cuCtxGetCurrent": [pvp],
            "cuCtxSetCurrent": [vp],
            "cuCtxSynchronize": [],
            "cuStreamSynchronize": [vp],
            "cuModuleLoadData": [pvp, ctypes.c_char_p],
            "cuModuleGetFunction": [pvp, vp, ctypes.c_char_p],
            "cuLaunchKernel": [vp, u32, u32, u32, u32, u32, u32, u32, vp,
                               pvp, pvp],
            "cuMemAlloc_v2": [ctypes.POINTER(u64), ctypes.c_size_t],
            "cuMemFree_v2": [u64],
            "cuMemcpyHtoD_v2": [u64, vp, ctypes.c_size_t],
            "cuMemcpyDtoH_v2": [vp, u64, ctypes.c_size_t],
            "cuGetErrorName": [ctypes.c_int, pchar],
            "cuGetErrorString": [ctypes.c_int, pchar],
        }
        for name, arguments in signatures.items():
            function = getattr(lib, name)
            function.argtypes = arguments
            function.restype = ctypes.c_int
        assert lib.cuInit(0) == CUDA_SUCCESS
        _lib = lib
    return _lib


def check(code, what="a driver call"):
    assert code == CUDA_SUCCESS, "%s failed: %d %s" % (what, code,
                                                         error_string(code))


def error_name(code):
    name = ctypes.c_char_p()
    driver().cuGetErrorName(code, ctypes.byref(name))
    return name.value.decode() if name.value else None


def error_string(code):
    """The standard text, then the simulator's ' [gpusim: ...]' detail."""
    text = ctypes.c_char_p()
    driver().cuGetErrorString(code, ctypes.byref(text))
    return text.value.decode() if text.value else ""


class Gpu:
    """One context of the simulated device, with the few calls tests need."""

    def __init__(self):
        lib = driver()
        self.lib = lib
        self.saved = ctypes.c_void_p()
        # Another test's model library may hold a context of its own on this
        # thread: it is made current again when this one is destroyed.
        lib.cuCtxGetCurrent(ctypes.byref(self.saved))
        device = ctypes.c_int()
        check(lib.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        self.context = ctypes.c_void_p()
        check(lib.cuCtxCreate_v2(ctypes.byref(self.context), 0, device.value),
              "cuCtxCreate_v2")

    def destroy(self):
        check(self.lib.cuCtxDestroy_v2(self.context), "cuCtxDestroy_v2")
        if self.saved.value:
            self.lib.cuCtxSetCurrent(self.saved)

    def load(self, ptx):
        """(status, module handle) of cuModuleLoadData."""
        module = ctypes.c_void_p()
        status = self.lib.cuModuleLoadData(ctypes.byref(module),
                                           ptx.encode())
        return status, module

    def kernel(self, ptx, name):
        status, module = self.load(ptx)
        check(status, "cuModuleLoadData")
        function = ctypes.c_void_p()
        check(self.lib.cuModuleGetFunction(ctypes.byref(function), module,
                                           name.encode()),
              "cuModuleGetFunction(%s)" % name)
        return function

    def alloc(self, nbytes):
        pointer = ctypes.c_uint64()
        check(self.lib.cuMemAlloc_v2(ctypes.byref(pointer), nbytes),
              "cuMemAlloc_v2")
        return pointer.value

    def free(self, pointer):
        check(self.lib.cuMemFree_v2(pointer), "cuMemFree_v2")

    def upload(self, array):
        array = np.ascontiguousarray(array)
        pointer = self.alloc(array.nbytes)
        check(self.lib.cuMemcpyHtoD_v2(pointer, array.ctypes.data,
                                       array.nbytes), "cuMemcpyHtoD_v2")
        return pointer

    def download_status(self, pointer, array):
        return self.lib.cuMemcpyDtoH_v2(array.ctypes.data, pointer,
                                        array.nbytes)

    def download(self, pointer, shape, dtype):
        array = np.empty(shape, dtype)
        check(self.download_status(pointer, array), "cuMemcpyDtoH_v2")
        return array

    def launch(self, function, grid, block, *arguments):
        """Launches with 64-bit arguments (pointers); returns the status."""
        values = [ctypes.c_uint64(a) for a in arguments]
        parameters = (ctypes.c_void_p * max(1, len(values)))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        return self.lib.cuLaunchKernel(function, *grid, *block, 0, None,
                                       parameters if values else None, None)

    def synchronize(self):
        return self.lib.cuCtxSynchronize()


@pytest.fixture
def gpu():
    """A fresh context per test: a fault is sticky and ends the context."""
    context = Gpu()
    context.scratch = context.alloc(4)  # a good buffer for assert_fault
    yield context
    context.destroy()


def line_of(ptx, marker):
    """The 1-based line of the PTX text that holds `marker` (a comment)."""
    lines = [n for n, text in enumerate(ptx.split("\n"), 1) if marker in text]
    assert len(lines) == 1, marker
    return lines[0]


# ---------------------------------------------------------------------------
# mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
# ---------------------------------------------------------------------------

def mma_kernel(name, ab):
    """Lane l loads its A (4 words), B (2 words) and C (4 floats) fragments
    from per-lane arrays, runs one mma and stores its 4 words of D."""
    return HEADER + """\
.visible .entry %(name)s(.param .u64 pa, .param .u64 pb, .param .u64 pc,
                         .param .u64 pd)
{
    .reg .b32 %%a<4>;
    .reg .b32 %%b<2>;
    .reg .f32 %%c<4>;
    .reg .f32 %%d<4>;
    .reg .b32 %%r<2>;
    .reg .b64 %%rd<11>;
    ld.param.u64 %%rd1, [pa];
    ld.param.u64 %%rd2, [pb];
    ld.param.u64 %%rd3, [pc];
    ld.param.u64 %%rd4, [pd];
    mov.u32 %%r1, %%tid.x;
    mul.wide.u32 %%rd5, %%r1, 16;
    mul.wide.u32 %%rd6, %%r1, 8;
    add.s64 %%rd7, %%rd1, %%rd5;
    ld.global.v4.b32 {%%a0, %%a1, %%a2, %%a3}, [%%rd7];
    add.s64 %%rd8, %%rd2, %%rd6;
    ld.global.v2.b32 {%%b0, %%b1}, [%%rd8];
    add.s64 %%rd9, %%rd3, %%rd5;
    ld.global.v4.f32 {%%c0, %%c1, %%c2, %%c3}, [%%rd9];
    mma.sync.aligned.m16n8k16.row.col.f32.%(ab)s.%(ab)s.f32
        {%%d0, %%d1, %%d2, %%d3}, {%%a0, %%a1, %%a2, %%a3}, {%%b0, %%b1},
        {%%c0, %%c1, %%c2, %%c3};
    add.s64 %%rd10, %%rd4, %%rd5;
    st.global.v4.f32 [%%rd10], {%%d0, %%d1, %%d2, %%d3};
    ret;
}
""" % {"name": name, "ab": ab}


# Issued per warp by mma_kernel: 4 ld.param, mov, 2 mul, 3 (add, ld),
# mma, add, st, ret.
MMA_KERNEL_INSTRUCTIONS = 17


def a_positions(lane):
    """(register, half, row, col) of A's 8 elements held by `lane`."""
    group, in_group = lane >> 2, lane % 4
    for i in range(8):
        row = group + (8 if (i >> 1) & 1 else 0)
        col = in_group * 2 + (i & 1) + (8 if i >= 4 else 0)
        yield i // 2, i & 1, row, col


def b_positions(lane):
    """(register, half, k, n) of B's 4 elements held by `lane`."""
    group, in_group = lane >> 2, lane % 4
    for i in range(4):
        yield i // 2, i & 1, in_group * 2 + (i & 1) + (8 if i >= 2 else 0), \
            group


def cd_positions(lane):
    """(register, row, col) of C's and D's 4 elements held by `lane`."""
    group, in_group = lane >> 2, lane % 4
    for i in range(4):
        yield i, group + (8 if i >= 2 else 0), in_group * 2 + (i & 1)


def pack_a(bits):
    words = np.zeros((32, 4), np.uint32)
    for lane in range(32):
        for reg, half, row, col in a_positions(lane):
            words[lane, reg] |= int(bits[row, col]) << (16 * half)
    return words


def pack_b(bits):
    words = np.zeros((32, 2), np.uint32)
    for lane in range(32):
        for reg, half, k, n in b_positions(lane):
            words[lane, reg] |= int(bits[k, n]) << (16 * half)
    return words


def pack_c(matrix):
    values = np.zeros((32, 4), np.float32)
    for lane in range(32):
        for reg, row, col in cd_positions(lane):
            values[lane, reg] = matrix[row, col]
    return values


def unpack_d(values):
    matrix = np.full((16, 8), np.nan, np.float32)
    for lane in range(32):
        for reg, row, col in cd_positions(lane):
            matrix[row, col] = values[lane, reg]
    return matrix


def bf16_bits(values):
    """float32 -> bfloat16 bits, rounded to nearest even."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def run_mma(gpu, ab, a_bits, b_bits, c):
    """D of one mma on the simulator, for A (16x16) and B (16x8) given as
    16-bit patterns and C (16x8) as float32."""
    function = gpu.kernel(mma_kernel("mma_" + ab, ab), "mma_" + ab)
    pa = gpu.upload(pack_a(a_bits))
    pb = gpu.upload(pack_b(b_bits))
    pc = gpu.upload(pack_c(c))
    pd = gpu.alloc(32 * 4 * 4)
    check(gpu.launch(function, (1, 1, 1), (32, 1, 1), pa, pb, pc, pd),
          "cuLaunchKernel")
    check(gpu.synchronize(), "cuCtxSynchronize")
    return unpack_d(gpu.download(pd, (32, 4), np.float32))


def assert_mma_close(d, a, b, c):
    """D agrees with A @ B + C (in float64) to within the f32 roundings of a
    16-step fma chain."""
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    reference = a @ b + c
    scale = np.abs(a) @ np.abs(b) + np.abs(c)
    error = np.abs(d.astype(np.float64) - reference)
    assert np.all(error <= 1e-6 * scale), (error / scale).max()


def test_device_name(gpu):
    name = ctypes.create_string_buffer(128)
    check(driver().cuDeviceGetName(name, 128, 0), "cuDeviceGetName")
    assert b"gpusim" in name.value


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mma_f16(gpu, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 8)).astype(np.float16)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = run_mma(gpu, "f16", a.view(np.uint16), b.view(np.uint16), c)
    assert_mma_close(d, a, b, c)


def test_mma_f16_subnormal_inputs(gpu):
    # f16 subnormals (below 2^-14) are values, not zeros, in an mma: A is
    # scaled into the subnormal range, B into large normals.
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((16, 16)) * 2.0 ** -17).astype(np.float16)
    b = (rng.standard_normal((16, 8)) * 2.0 ** 10).astype(np.float16)
    assert np.count_nonzero(np.abs(a) < 2.0 ** -14) > 200
    c = np.zeros((16, 8), np.float32)
    d = run_mma(gpu, "f16", a.view(np.uint16), b.view(np.uint16), c)
    assert_mma_close(d, a, b, c)
    assert np.count_nonzero(d) == d.size


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mma_bf16(gpu, seed):
    rng = np.random.default_rng(100 + seed)
    # A wider range than f16 could hold, to exercise bf16's exponent.
    a_bits = bf16_bits(rng.standard_normal((16, 16)) * 1e6)
    b_bits = bf16_bits(rng.standard_normal((16, 8)) * 1e-3)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = run_mma(gpu, "bf16", a_bits, b_bits, c)
    assert_mma_close(d, bf16_values(a_bits), bf16_values(b_bits), c)


@pytest.mark.parametrize("ab", ["f16", "bf16"])
def test_mma_small_integers_exact(gpu, ab):
    # Every product and partial sum is a small integer: no rounding at all,
    # so a single misplaced fragment element shows as a wrong integer.
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float32)
    b = rng.integers(-4, 5, (16, 8)).astype(np.float32)
    c = rng.integers(-50, 51, (16, 8)).astype(np.float32)
    if ab == "f16":
        a_bits = a.astype(np.float16).view(np.uint16)
        b_bits = b.astype(np.float16).view(np.uint16)
    else:
        a_bits, b_bits = bf16_bits(a), bf16_bits(b)
    d = run_mma(gpu, ab, a_bits, b_bits, c)
    np.testing.assert_array_equal(d, a.astype(np.float64) @ b + c)


def test_mma_fragment_positions(gpu):
    # A = one-hot at (m, k), B = one-hot rows: D[m, n] picks B's row k. Run
    # for a few (m, k) so every register/half of A maps to the right place.
    rng = np.random.default_rng(3)
    b = rng.integers(1, 100, (16, 8)).astype(np.float16)
    c = np.zeros((16, 8), np.float32)
    for m, k in [(0, 0), (3, 9), (8, 1), (15, 15), (9, 12), (6, 7)]:
        a = np.zeros((16, 16), np.float16)
        a[m, k] = 1
        d = run_mma(gpu, "f16", a.view(np.uint16), b.view(np.uint16), c)
        expected = np.zeros((16, 8), np.float32)
        expected[m] = b[k]
        np.testing.assert_array_equal(d, expected, "A[%d, %d]" % (m, k))


# ---------------------------------------------------------------------------
# ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16
# ---------------------------------------------------------------------------

def ldmatrix_kernel(name, count, trans):
    """Thread t copies row t (16 bytes) of a 512-byte tile into shared
    memory; after the barrier lane l gives the address of row l%8 of matrix
    l/8, which lies at tile row (l%8)*4 + l/8 (the matrices interleaved, so
    every lane's address matters); each thread stores its `count` words."""
    registers = ", ".join("%%m%d" % i for i in range(count))
    store = ("st.global.b32 [%%rd10], %s;" % registers if count == 1 else
             "st.global.v%d.b32 [%%rd10], {%s};" % (count, registers))
    return HEADER + """\
.visible .entry %(name)s(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %%r<8>;
    .reg .b32 %%m<4>;
    .reg .b64 %%rd<11>;
    .shared .align 16 .b8 tile[512];
    ld.param.u64 %%rd1, [pin];
    ld.param.u64 %%rd2, [pout];
    mov.u32 %%r1, %%tid.x;
    mul.wide.u32 %%rd3, %%r1, 16;
    add.s64 %%rd4, %%rd1, %%rd3;
    ld.global.v4.b32 {%%r2, %%r3, %%r4, %%r5}, [%%rd4];
    mov.u64 %%rd5, tile;
    add.s64 %%rd6, %%rd5, %%rd3;
    st.shared.v4.b32 [%%rd6], {%%r2, %%r3, %%r4, %%r5};
    bar.sync 0;
    and.b32 %%r6, %%r1, 7;
    shr.u32 %%r7, %%r1, 3;
    shl.b32 %%r6, %%r6, 2;
    add.u32 %%r6, %%r6, %%r7;
    mul.wide.u32 %%rd7, %%r6, 16;
    add.s64 %%rd8, %%rd5, %%rd7;
    ldmatrix.sync.aligned.m8n8.x%(count)d%(trans)s.shared.b16 {%(registers)s}, [%%rd8];
    mul.wide.u32 %%rd9, %%r1, %(stride)d;
    add.s64 %%rd10, %%rd2, %%rd9;
    %(store)s
    ret;
}
""" % {"name": name, "count": count, "trans": ".trans" if trans else "",
       "registers": registers, "store": store, "stride": 4 * count}


@pytest.mark.parametrize("trans", [False, True], ids=["plain", "trans"])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix(gpu, count, trans):
    rng = np.random.default_rng(count + 10 * trans)
    tile = rng.permutation(1 << 16)[:256].astype(np.uint16)  # all distinct
    name = "ldmatrix_x%d%s" % (count, "_trans" if trans else "")
    function = gpu.kernel(ldmatrix_kernel(name, count, trans), name)
    pin = gpu.upload(tile)
    pout = gpu.alloc(32 * 4 * count)
    check(gpu.launch(function, (1, 1, 1), (32, 1, 1), pin, pout),
          "cuLaunchKernel")
    check(gpu.synchronize(), "cuCtxSynchronize")
    out = gpu.download(pout, (32, count), np.uint32)
    rows = tile.reshape(32, 8)
    expected = np.zeros((32, count), np.uint32)
    for i in range(count):
        matrix = np.stack([rows[r * 4 + i] for r in range(8)])  # 8x8
        if trans:
            matrix = matrix.T
        for t in range(32):
            # Row t/4, columns 2(t%4) (low half) and 2(t%4)+1 (high half).
            low = int(matrix[t // 4, 2 * (t % 4)])
            high = int(matrix[t // 4, 2 * (t % 4) + 1])
            expected[t, i] = low | high << 16
    np.testing.assert_array_equal(out, expected)


def test_ldmatrix_x1_ignores_lanes_8_to_31(gpu):
    # .x1 takes row addresses from threads 0-7 only: the others may hold
    # anything, even an address far outside shared memory.
    ptx = HEADER + """\
.visible .entry ldmatrix_x1_lanes(.param .u64 pout)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<7>;
    .shared .align 16 .b8 tile[512];
    ld.param.u64 %rd4, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 16;
    mov.u64 %rd2, tile;
    add.s64 %rd3, %rd2, %rd1;
    st.shared.v4.u32 [%rd3], {%r1, %r1, %r1, %r1};
    bar.sync 0;
    setp.ge.u32 %p1, %r1, 8;
    @%p1 add.s64 %rd3, %rd3, 100000;
    ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%rd3];
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r2;
    ret;
}
"""
    function = gpu.kernel(ptx, "ldmatrix_x1_lanes")
    out = gpu.alloc(128)
    check(gpu.launch(function, (1, 1, 1), (32, 1, 1), out))
    check(gpu.synchronize())
    # Row r of the matrix is thread r's 16 bytes, four words of value r:
    # halves r, 0, r, 0, ...; thread t gets row t/4's pair (r, 0).
    t = np.arange(32, dtype=np.uint32)
    np.testing.assert_array_equal(gpu.download(out, 32, np.uint32), t // 4)


def test_ldmatrix_misaligned_row(gpu, capfd):
    ptx = HEADER + """\
.visible .entry ldmatrix_misaligned()
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    .shared .align 16 .b8 tile[512];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 16;
    mov.u64 %rd2, tile;
    add.s64 %rd3, %rd2, %rd1;
    st.shared.v4.u32 [%rd3], {%r1, %r1, %r1, %r1};
    bar.sync 0;
    setp.eq.u32 %p1, %r1, 3;
    @%p1 add.s64 %rd3, %rd3, 8;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r1, %r2}, [%rd3];  // the ldmatrix
    ret;
}
"""
    function = gpu.kernel(ptx, "ldmatrix_misaligned")
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1)) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_MISALIGNED_ADDRESS,
                 "ldmatrix_misaligned", ptx, "the ldmatrix",
                 thread=(3, 0, 0), address=3 * 16 + 8,
                 words=["16-byte aligned"])


# ---------------------------------------------------------------------------
# Faults
# ---------------------------------------------------------------------------

def assert_fault(gpu, capfd, code, kernel, ptx, marker, thread, address=None,
                 block=(0, 0, 0), words=()):
    """The launch went in; `code` is sticky and its message says where."""
    assert gpu.synchronize() == code, error_string(gpu.synchronize())
    # Sticky: later calls fail the same way, a copy from a good buffer too.
    assert gpu.download_status(gpu.scratch, np.zeros(1, np.uint32)) == code
    assert gpu.lib.cuStreamSynchronize(None) == code
    message = error_string(code)
    name = error_name(code)
    assert name is not None
    line = line_of(ptx, marker)
    assert "kernel '%s'" % kernel in message, message
    assert "PTX line %d " % line in message, message
    assert "block (%d,%d,%d)" % block in message, message
    assert "thread (%d,%d,%d)" % thread in message, message
    if address is not None:
        assert "0x%x" % address in message, message
    for word in words:
        assert word in message, message
    # The same account went to stderr when the fault happened.
    detail = message[message.index(" [") + 2:-1]
    assert detail in capfd.readouterr().err
    return message


def copy_kernel(name):
    """dst[tid] = src[tid] for 32-bit words."""
    return HEADER + """\
.visible .entry %s(.param .u64 psrc, .param .u64 pdst)
{
    .reg .b32 %%r<3>;
    .reg .b64 %%rd<6>;
    ld.param.u64 %%rd1, [psrc];
    ld.param.u64 %%rd2, [pdst];
    mov.u32 %%r1, %%tid.x;
    mul.wide.u32 %%rd3, %%r1, 4;
    add.s64 %%rd4, %%rd1, %%rd3;
    ld.global.u32 %%r2, [%%rd4];       // the load
    add.s64 %%rd5, %%rd2, %%rd3;
    st.global.u32 [%%rd5], %%r2;       // the store
    ret;
}
""" % name


def test_copy_kernel_works(gpu):
    # The kernel the address faults below misuse, used correctly.
    ptx = copy_kernel("copy_ok")
    function = gpu.kernel(ptx, "copy_ok")
    data = np.arange(32, dtype=np.uint32) * 7
    src, dst = gpu.upload(data), gpu.alloc(128)
    check(gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst))
    check(gpu.synchronize())
    np.testing.assert_array_equal(gpu.download(dst, 32, np.uint32), data)


def test_read_past_the_end(gpu, capfd):
    ptx = copy_kernel("read_past_end")
    function = gpu.kernel(ptx, "read_past_end")
    src = gpu.upload(np.arange(31, dtype=np.uint32))  # one word short
    dst = gpu.alloc(32 * 4)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_ILLEGAL_ADDRESS, "read_past_end",
                 ptx, "the load", thread=(31, 0, 0), address=src + 124,
                 words=["4-byte global read"])


def test_read_past_the_end_says_past_the_end(gpu, capfd):
    ptx = copy_kernel("read_past_end")
    function = gpu.kernel(ptx, "read_past_end")
    src = gpu.upload(np.arange(31, dtype=np.uint32))
    dst = gpu.alloc(32 * 4)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_ILLEGAL_ADDRESS, "read_past_end",
                 ptx, "the load", thread=(31, 0, 0), address=src + 124,
                 words=["past the end", "[0x%x, 0x%x)" % (src, src + 124)])


def test_write_through_host_pointer(gpu, capfd):
    ptx = copy_kernel("host_write")
    function = gpu.kernel(ptx, "host_write")
    src = gpu.upload(np.arange(32, dtype=np.uint32))
    host = np.full(32, 0xdead, np.uint32)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src,
                      host.ctypes.data) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_ILLEGAL_ADDRESS, "host_write", ptx,
                 "the store", thread=(0, 0, 0), address=host.ctypes.data,
                 words=["global write", "host pointer"])
    assert np.all(host == 0xdead)  # nothing was written


def test_use_after_free(gpu, capfd):
    ptx = copy_kernel("after_free")
    function = gpu.kernel(ptx, "after_free")
    src = gpu.upload(np.arange(32, dtype=np.uint32))
    dst = gpu.alloc(32 * 4)
    gpu.free(src)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_ILLEGAL_ADDRESS, "after_free", ptx,
                 "the load", thread=(0, 0, 0), address=src,
                 words=["global read", "freed"])


def test_misaligned_load(gpu, capfd):
    ptx = copy_kernel("misaligned")
    function = gpu.kernel(ptx, "misaligned")
    src = gpu.upload(np.arange(40, dtype=np.uint32))
    dst = gpu.alloc(32 * 4)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src + 2, dst) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned",
                 ptx, "the load", thread=(0, 0, 0), address=src + 2,
                 words=["misaligned 4-byte global read"])


@pytest.mark.parametrize("load, offset, nbytes", [
    ("ld.global.u64 %rd5, [%rd4];", 4, 8),
    ("ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd4];", 8, 16),
    ("ld.global.v2.u32 {%r2, %r3}, [%rd4];", 4, 8),
], ids=["u64", "v4.f32", "v2.u32"])
def test_misaligned_wide_load(gpu, capfd, load, offset, nbytes):
    ptx = HEADER + """\
.visible .entry misaligned_wide(.param .u64 psrc)
{
    .reg .b32 %%r<4>;
    .reg .f32 %%f<4>;
    .reg .b64 %%rd<6>;
    ld.param.u64 %%rd1, [psrc];
    mov.u32 %%r1, %%tid.x;
    mul.wide.u32 %%rd3, %%r1, 16;
    add.s64 %%rd4, %%rd1, %%rd3;
    %s      // the load
    ret;
}
""" % load
    function = gpu.kernel(ptx, "misaligned_wide")
    src = gpu.upload(np.zeros(32 * 4 + 4, np.uint32))
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src + offset) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_MISALIGNED_ADDRESS,
                 "misaligned_wide", ptx, "the load", thread=(0, 0, 0),
                 address=src + offset,
                 words=["misaligned %d-byte global read" % nbytes])


def test_read_straddling_the_end(gpu, capfd):
    # An 8-byte load whose second half lies past a 36-byte allocation.
    ptx = HEADER + """\
.visible .entry straddle(.param .u64 psrc)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [psrc];
    ld.global.u64 %rd2, [%rd1+32];      // the load
    ret;
}
"""
    function = gpu.kernel(ptx, "straddle")
    src = gpu.upload(np.zeros(9, np.uint32))
    assert gpu.launch(function, (1, 1, 1), (1, 1, 1), src) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_ILLEGAL_ADDRESS, "straddle", ptx,
                 "the load", thread=(0, 0, 0), address=src + 32,
                 words=["8-byte global read", "past the end",
                        "[0x%x, 0x%x)" % (src, src + 36)])


def test_fault_in_a_later_block(gpu, capfd):
    # A 2-D grid of 2-D blocks, run in order; block (1,1,0), thread (5,1,0)
    # is the first to leave the buffer: the message names both.
    ptx = HEADER + """\
.visible .entry late_block(.param .u64 psrc)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [psrc];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ctaid.y;
    mad.lo.u32 %r5, %r4, 4, %r3;
    mad.lo.u32 %r6, %r2, 16, %r1;
    mad.lo.u32 %r7, %r5, 32, %r6;
    mul.wide.u32 %rd2, %r7, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r1, [%rd3];      // the load
    ret;
}
"""
    function = gpu.kernel(ptx, "late_block")
    first_outside = (1 * 4 + 1) * 32 + 1 * 16 + 5
    src = gpu.upload(np.zeros(first_outside, np.uint32))
    assert gpu.launch(function, (4, 2, 1), (16, 2, 1), src) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_ILLEGAL_ADDRESS, "late_block", ptx,
                 "the load", block=(1, 1, 0), thread=(5, 1, 0),
                 address=src + 4 * first_outside)


@pytest.mark.parametrize("offset, code, words", [
    (0, CUDA_ERROR_ILLEGAL_ADDRESS,
     ["out-of-bounds 4-byte shared write", "32 bytes of shared memory"]),
    (2, CUDA_ERROR_MISALIGNED_ADDRESS, ["misaligned 4-byte shared write"]),
], ids=["out-of-bounds", "misaligned"])
def test_bad_shared_store(gpu, capfd, offset, code, words):
    # 32 bytes of shared memory; lane t stores at 4t + offset: lane 8 is the
    # first outside, lane 0 already misaligned with offset 2.
    ptx = HEADER + """\
.visible .entry bad_shared()
{
    .reg .b32 %%r<2>;
    .reg .b64 %%rd<4>;
    .shared .align 4 .b32 words[8];
    mov.u32 %%r1, %%tid.x;
    mul.wide.u32 %%rd1, %%r1, 4;
    mov.u64 %%rd2, words;
    add.s64 %%rd3, %%rd2, %%rd1;
    st.shared.u32 [%%rd3+%d], %%r1;      // the store
    ret;
}
""" % offset
    function = gpu.kernel(ptx, "bad_shared")
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1)) == 0
    thread = 0 if offset else 8
    assert_fault(gpu, capfd, code, "bad_shared", ptx, "the store",
                 thread=(thread, 0, 0), address=4 * thread + offset,
                 words=words)


def test_shared_race_write_then_read(gpu, capfd):
    # Thread 0 (warp 0) writes a shared word that thread 32 (warp 1) reads
    # with no barrier between.
    ptx = HEADER + """\
.visible .entry race_read()
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .shared .align 4 .b32 flag[4];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.u32 [flag+8], %r1;
    setp.eq.u32 %p2, %r1, 32;
    @%p2 ld.shared.u32 %r2, [flag+8];    // the racing read
    ret;
}
"""
    function = gpu.kernel(ptx, "race_read")
    assert gpu.launch(function, (1, 1, 1), (64, 1, 1)) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "race_read", ptx,
                 "the racing read", thread=(32, 0, 0), address=0x8,
                 words=["race", "thread 0"])


def test_shared_race_write_write(gpu, capfd):
    # Lanes t and t+4 store to the same word (t%4) in one instruction.
    ptx = HEADER + """\
.visible .entry race_write()
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 words[4];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    mul.wide.u32 %rd1, %r2, 4;
    mov.u64 %rd2, words;
    add.s64 %rd3, %rd2, %rd1;
    st.shared.u32 [%rd3], %r1;           // the racing write
    ret;
}
"""
    function = gpu.kernel(ptx, "race_write")
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1)) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "race_write", ptx,
                 "the racing write", thread=(4, 0, 0), address=0x0,
                 words=["race", "write", "thread 0"])


def war_kernel(name, readers):
    """Every thread writes its own word; after the barrier `readers` read
    word 0, then thread 0 overwrites it with no barrier between."""
    return HEADER + """\
.visible .entry %s()
{
    .reg .pred %%p<3>;
    .reg .b32 %%r<3>;
    .reg .b64 %%rd<4>;
    .shared .align 4 .b32 words[32];
    mov.u32 %%r1, %%tid.x;
    mul.wide.u32 %%rd1, %%r1, 4;
    mov.u64 %%rd2, words;
    add.s64 %%rd3, %%rd2, %%rd1;
    st.shared.u32 [%%rd3], %%r1;
    bar.sync 0;
    setp.lt.u32 %%p1, %%r1, %d;
    setp.gt.u32 %%p2, %%r1, 0;
    and.pred %%p1, %%p1, %%p2;
    @%%p1 ld.shared.u32 %%r2, [words];
    setp.eq.u32 %%p2, %%r1, 0;
    @%%p2 st.shared.u32 [words], %%r1;   // the racing write
    ret;
}
""" % (name, readers)


def test_shared_race_read_then_write(gpu, capfd):
    # Thread 1 reads word 0, then thread 0 writes it.
    ptx = war_kernel("race_war", 2)
    function = gpu.kernel(ptx, "race_war")
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1)) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "race_war", ptx,
                 "the racing write", thread=(0, 0, 0), address=0x0,
                 words=["race", "after a read by thread 1"])


def test_shared_race_reads_then_write_names_a_reader(gpu, capfd):
    # Threads 1-31 read word 0, then thread 0 writes it.
    ptx = war_kernel("race_war_many", 32)
    function = gpu.kernel(ptx, "race_war_many")
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1)) == 0
    message = assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED,
                           "race_war_many", ptx, "the racing write",
                           thread=(0, 0, 0), address=0x0, words=["race"])
    reader = re.search(r"after a read by several threads, e\.g\. thread "
                       r"(-?\d+)", message)
    assert reader and 1 <= int(reader.group(1)) <= 31, message


def test_uninitialized_shared_in_a_later_block(gpu, capfd):
    # Shared memory starts afresh in every block: block 0 writes the word
    # before reading it, block 1 only reads it.
    ptx = HEADER + """\
.visible .entry per_block()
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .shared .align 4 .b32 word[1];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 st.shared.u32 [word], %r1;
    ld.shared.u32 %r3, [word];           // the read
    ret;
}
"""
    function = gpu.kernel(ptx, "per_block")
    assert gpu.launch(function, (2, 1, 1), (1, 1, 1)) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "per_block", ptx,
                 "the read", block=(1, 0, 0), thread=(0, 0, 0), address=0x0,
                 words=["uninitialized shared memory"])


def test_shared_with_barrier_is_not_a_race(gpu):
    # The same exchange as test_shared_race_write_then_read, with the
    # barrier: no fault, and the value arrives.
    ptx = HEADER + """\
.visible .entry exchange(.param .u64 pout)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    .shared .align 4 .b32 flag[4];
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    mov.u32 %r2, 1234;
    @%p1 st.shared.u32 [flag+8], %r2;
    bar.sync 0;
    setp.eq.u32 %p2, %r1, 32;
    @%p2 ld.shared.u32 %r2, [flag+8];
    @%p2 st.global.u32 [%rd1], %r2;
    ret;
}
"""
    function = gpu.kernel(ptx, "exchange")
    out = gpu.upload(np.zeros(1, np.uint32))
    check(gpu.launch(function, (1, 1, 1), (64, 1, 1), out))
    check(gpu.synchronize())
    assert gpu.download(out, 1, np.uint32)[0] == 1234


def test_barrier_reached_by_part_of_a_warp(gpu, capfd):
    # Lanes 0-15 branch around the bar.sync that lanes 16-31 execute and go
    # on to a store without exiting.
    ptx = HEADER + """\
.visible .entry split_barrier(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra SKIP;
    bar.sync 0;                          // the barrier
SKIP:
    st.global.u32 [%rd1], %r1;
    ret;
}
"""
    function = gpu.kernel(ptx, "split_barrier")
    out = gpu.upload(np.zeros(1, np.uint32))
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), out) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "split_barrier", ptx,
                 "the barrier", thread=(16, 0, 0),
                 words=["bar.sync", "part of warp 0", "0xffff0000",
                        "without exiting"])


@pytest.mark.parametrize("layout", ["return-first", "barrier-first"])
def test_threads_that_return_before_a_barrier_are_not_waited_for(gpu,
                                                                 layout):
    # if (tid < 8) return; __syncthreads(); out[tid] = shared word of
    # another thread -- in both layouts compilers emit.
    branch = {"return-first": """\
    @%p1 bra BODY;
    ret;
BODY:""", "barrier-first": """\
    @!%p1 bra DONE;"""}[layout]
    tail = {"return-first": "", "barrier-first": "DONE:\n    ret;\n"}[layout]
    ptx = HEADER + """\
.visible .entry early_return(.param .u64 out)
{
    .reg .pred %%p<2>;
    .reg .b32 %%r<6>;
    .reg .b64 %%rd<6>;
    .shared .align 4 .b8 words[256];
    ld.param.u64 %%rd1, [out];
    mov.u32 %%r1, %%tid.x;
    setp.ge.u32 %%p1, %%r1, 8;
%s
    mul.wide.u32 %%rd2, %%r1, 4;
    mov.u64 %%rd3, words;
    add.s64 %%rd4, %%rd3, %%rd2;
    st.shared.u32 [%%rd4], %%r1;
    bar.sync 0;
    xor.b32 %%r2, %%r1, 1;
    mul.wide.u32 %%rd2, %%r2, 4;
    add.s64 %%rd4, %%rd3, %%rd2;
    ld.shared.u32 %%r3, [%%rd4];
    mul.wide.u32 %%rd2, %%r1, 4;
    add.s64 %%rd5, %%rd1, %%rd2;
    st.global.u32 [%%rd5], %%r3;
%s    ret;
}
""" % (branch, tail)
    function = gpu.kernel(ptx, "early_return")
    out = gpu.upload(np.zeros(64, np.uint32))
    assert gpu.launch(function, (1, 1, 1), (64, 1, 1), out) == 0
    assert gpu.synchronize() == 0
    expected = np.zeros(64, np.uint32)
    expected[8:] = np.arange(8, 64) ^ 1
    np.testing.assert_array_equal(gpu.download(out, 64, np.uint32), expected)


def test_mma_reached_by_part_of_a_warp(gpu, capfd):
    # Lanes 16-31 branch around the mma that lanes 0-15 execute.
    ptx = HEADER + """\
.visible .entry split_mma()
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<8>;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra SKIP;
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%f4, %f5, %f6, %f7};  // the mma
SKIP:
    ret;
}
"""
    function = gpu.kernel(ptx, "split_mma")
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1)) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "split_mma", ptx,
                 "the mma", thread=(0, 0, 0),
                 words=["mma.sync", "part of warp 0", "0x0000ffff"])


def test_uninitialized_shared_read(gpu, capfd):
    # Threads write words 0-31 of `buf`; thread 3 then reads word 35, which
    # nobody wrote.
    ptx = HEADER + """\
.visible .entry uninitialized()
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 buf[256];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 4;
    mov.u64 %rd2, buf;
    add.s64 %rd3, %rd2, %rd1;
    st.shared.u32 [%rd3], %r1;
    ld.shared.u32 %r2, [%rd3];
    setp.eq.u32 %p1, %r1, 3;
    @%p1 ld.shared.u32 %r3, [%rd3+128];    // the uninitialized read
    ret;
}
"""
    function = gpu.kernel(ptx, "uninitialized")
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1)) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "uninitialized", ptx,
                 "the uninitialized read", thread=(3, 0, 0), address=0x8c,
                 words=["uninitialized shared memory"])


def cp_async_kernel(name, wait_first, write_first):
    """Each thread cp.asyncs word tid of src into shared memory, then reads
    it back and stores it to dst; `wait_first` puts cp.async.wait_group
    before the read, `write_first` has the thread write the word itself
    before the cp.async."""
    wait = "cp.async.wait_group 0;"
    return HEADER + """\
.visible .entry %(name)s(.param .u64 psrc, .param .u64 pdst)
{
    .reg .b32 %%r<3>;
    .reg .b64 %%rd<8>;
    .shared .align 16 .b8 buf[128];
    ld.param.u64 %%rd1, [psrc];
    ld.param.u64 %%rd2, [pdst];
    mov.u32 %%r1, %%tid.x;
    mul.wide.u32 %%rd3, %%r1, 4;
    add.s64 %%rd4, %%rd1, %%rd3;
    mov.u64 %%rd5, buf;
    add.s64 %%rd6, %%rd5, %%rd3;
    %(write)s
    cp.async.ca.shared.global [%%rd6], [%%rd4], 4;
    cp.async.commit_group;
    %(before)s
    ld.shared.u32 %%r2, [%%rd6];          // the read
    %(after)s
    add.s64 %%rd7, %%rd2, %%rd3;
    st.global.u32 [%%rd7], %%r2;
    ret;
}
""" % {"name": name, "before": wait if wait_first else "",
       "after": "" if wait_first else wait,
       "write": "st.shared.u32 [%rd6], %r1;" if write_first else ""}


def test_cp_async_after_wait(gpu):
    ptx = cp_async_kernel("cp_async_ok", wait_first=True, write_first=False)
    function = gpu.kernel(ptx, "cp_async_ok")
    data = np.arange(100, 132, dtype=np.uint32)
    src, dst = gpu.upload(data), gpu.alloc(128)
    check(gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst))
    check(gpu.synchronize())
    np.testing.assert_array_equal(gpu.download(dst, 32, np.uint32), data)


def test_cp_async_read_before_wait(gpu, capfd):
    # The thread wrote the word itself first, so only the copy in flight is
    # wrong with the read.
    ptx = cp_async_kernel("cp_async_early", wait_first=False,
                          write_first=True)
    function = gpu.kernel(ptx, "cp_async_early")
    src, dst = gpu.upload(np.arange(32, dtype=np.uint32)), gpu.alloc(128)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "cp_async_early", ptx,
                 "the read", thread=(0, 0, 0), address=0x0,
                 words=["cp.async", "in flight", "cp.async.wait_group"])


def test_cp_async_read_before_wait_fresh_destination(gpu, capfd):
    # The usual case: shared memory filled only by cp.async.
    ptx = cp_async_kernel("cp_async_fresh", wait_first=False,
                          write_first=False)
    function = gpu.kernel(ptx, "cp_async_fresh")
    src, dst = gpu.upload(np.arange(32, dtype=np.uint32)), gpu.alloc(128)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "cp_async_fresh", ptx,
                 "the read", thread=(0, 0, 0), address=0x0,
                 words=["cp.async", "in flight"])


def test_cp_async_twice_to_bytes_in_flight(gpu, capfd):
    # A second copy to the same bytes before the first one's wait: which
    # lands last is undefined.
    ptx = cp_async_kernel("cp_async_twice", wait_first=True,
                          write_first=False)
    copy = "cp.async.ca.shared.global [%rd6], [%rd4], 4;"
    ptx = ptx.replace(copy, copy + "\n    " + copy + "   // the second copy")
    function = gpu.kernel(ptx, "cp_async_twice")
    src, dst = gpu.upload(np.arange(32, dtype=np.uint32)), gpu.alloc(128)
    assert gpu.launch(function, (1, 1, 1), (32, 1, 1), src, dst) == 0
    assert_fault(gpu, capfd, CUDA_ERROR_LAUNCH_FAILED, "cp_async_twice", ptx,
                 "the second copy", thread=(0, 0, 0), address=0x0,
                 words=["shared write", "cp.async", "in flight"])


@pytest.mark.parametrize("instruction, words", [
    # Not an opcode at all.
    ("foo.bar.b32 %r1, %r2;", ["'foo.bar.b32'"]),
    # A real opcode with a modifier the simulator does not implement.
    ("add.cc.u32 %r1, %r2, %r1;", ["'add.cc.u32'", "modifier .cc"]),
    # A real mma with a shape it does not implement.
    ("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3},"
     " {%r1, %r2}, {%r3}, {%f0, %f1, %f2, %f3};",
     ["'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32'"]),
    # prmt in a mode other than the default one.
    ("prmt.b32.f4e %r1, %r2, %r1, %r2;", ["'prmt.b32.f4e'", "modifier .f4e"]),
], ids=["unknown-opcode", "unknown-modifier", "unknown-mma-shape",
        "unknown-prmt-mode"])
def test_unsupported_instruction(gpu, capfd, instruction, words):
    ptx = HEADER + """\
.visible .entry unsupported()
{
    .reg .b32 %%r<4>;
    .reg .f32 %%f<4>;
    mov.u32 %%r1, 1;
    mov.u32 %%r2, 2;
    %s        // the instruction
    ret;
}
""" % instruction
    status, _ = gpu.load(ptx)
    assert status == CUDA_ERROR_NOT_SUPPORTED
    message = error_string(status)
    assert "line %d:" % line_of(ptx, "the instruction") in message, message
    for word in words:
        assert word in message, message
    assert message[message.index(" [") + 2:-1] in capfd.readouterr().err
    # A failed load is no fault of the context: it stays usable.
    assert gpu.synchronize() == CUDA_SUCCESS
    gpu.kernel(copy_kernel("still_fine"), "still_fine")


# ---------------------------------------------------------------------------
# Counters (MIXPREC_GPUSIM_REPORT)
# ---------------------------------------------------------------------------

COUNTED_KERNEL = HEADER + """\
.visible .entry counted(.param .u64 pin, .param .u64 pout)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    setp.eq.u32 %p2, %r1, 1000;
    @%p2 st.global.u32 [%rd2], %r1;     // off in every lane, still issued
    setp.ge.u32 %p1, %r1, 8;
    @%p1 bra DONE;                      // only lanes 0-7 of warp 0 stay
    add.u32 %r2, %r2, 1;
    add.u32 %r2, %r2, 1;
DONE:
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r2;
    ret;
}
"""
# Issued by each warp: the 13 instructions outside the if; warp 0 also
# issues the 2 adds for its lanes 0-7, which execute 13 + 2 in all.
COUNTED_WARP = 13


def shared_store_kernel(name, width, stride):
    """32 lanes store `width` bytes each at shared offset lane*stride."""
    kind = {2: "st.shared.u16 [%rd3], %rs1;",
            4: "st.shared.u32 [%rd3], %r1;",
            8: "st.shared.v2.u32 [%rd3], {%r1, %r1};",
            16: "st.shared.v4.u32 [%rd3], {%r1, %r1, %r1, %r1};"}[width]
    return HEADER + """\
.visible .entry %s()
{
    .reg .b16 %%rs<2>;
    .reg .b32 %%r<2>;
    .reg .b64 %%rd<4>;
    .shared .align 16 .b8 buf[4096];
    mov.u32 %%r1, %%tid.x;
    cvt.u16.u32 %%rs1, %%r1;
    mul.wide.u32 %%rd1, %%r1, %d;
    mov.u64 %%rd2, buf;
    add.s64 %%rd3, %%rd2, %%rd1;
    %s
    ret;
}
""" % (name, stride, kind)


# (name, bytes per lane, stride in bytes, bank conflicts), each worked out
# from 32 banks of 4-byte words and the phases of 32/16/8 lanes.
SHARED_PATTERNS = [
    # Every lane in bank 0, 32 distinct words: 32 wavefronts.
    ("bank_stride32_words", 4, 128, 31),
    ("bank_stride1_word", 4, 4, 0),
    # Words 0, 2, ..., 62: each even bank holds two of them.
    ("bank_stride2_words", 4, 8, 1),
    # Halves 64 bytes apart: words 0, 16, ..., 496, in banks 0 and 16 only.
    ("bank_u16_stride64", 2, 64, 15),
    # Two consecutive lanes share a word: 16 words, one per bank.
    ("bank_u16_packed", 2, 2, 0),
    # 8 bytes, 2 phases of 16 lanes over words 4l, 4l+1: 2-way in each.
    ("bank_v2_stride16", 8, 16, 2),
    ("bank_v2_packed", 8, 8, 0),
    # 16 bytes, 4 phases of 8 lanes: contiguous, then 2-way (stride 32 B).
    ("bank_v4_packed", 16, 16, 0),
    ("bank_v4_stride32", 16, 32, 4),
]

BROADCAST_KERNEL = HEADER + """\
.visible .entry bank_broadcast()
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    .shared .align 4 .b8 buf[128];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, buf;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.u32 [%rd1+64], %r1;
    bar.sync 0;
    ld.shared.u32 %r2, [%rd1+64];
    ret;
}
"""

# Fills 1024 bytes conflict-free (two 16-byte stores per lane), then an
# ldmatrix.x4 whose rows are 128 bytes apart (matrix i at column 16*i: all
# 8 rows of a matrix in the same 4 banks, 7 conflicts each) and an
# ldmatrix.x1 over 8 contiguous rows (no conflict).
LDMATRIX_CONFLICT_KERNEL = HEADER + """\
.visible .entry ldmatrix_conflicts()
{
    .reg .b32 %r<6>;
    .reg .b32 %m<5>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 tile[1024];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 16;
    mov.u64 %rd2, tile;
    add.s64 %rd3, %rd2, %rd1;
    st.shared.v4.u32 [%rd3], {%r1, %r1, %r1, %r1};
    st.shared.v4.u32 [%rd3+512], {%r1, %r1, %r1, %r1};
    bar.sync 0;
    and.b32 %r2, %r1, 7;
    shr.u32 %r3, %r1, 3;
    shl.b32 %r4, %r2, 7;
    shl.b32 %r5, %r3, 4;
    add.u32 %r4, %r4, %r5;
    cvt.u64.u32 %rd4, %r4;
    add.s64 %rd5, %rd2, %rd4;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%m0, %m1, %m2, %m3}, [%rd5];
    mul.wide.u32 %rd6, %r2, 16;
    add.s64 %rd7, %rd2, %rd6;
    ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%m4}, [%rd7];
    ret;
}
"""


def _run_counted_kernels():
    """Run in a child process under MIXPREC_GPUSIM_REPORT (the report is
    written when a context is destroyed and at exit)."""
    gpu = Gpu()
    counted = gpu.kernel(COUNTED_KERNEL, "counted")
    data = np.arange(64, dtype=np.uint32) * 3
    pin, pout = gpu.upload(data), gpu.alloc(64 * 4)           # 256 + 256 B
    for _ in range(2):
        check(gpu.launch(counted, (2, 1, 1), (64, 1, 1), pin, pout))
    check(gpu.synchronize())
    out = gpu.download(pout, 64, np.uint32)                   # 256 B back
    expected = data + np.where(np.arange(64) < 8, 2, 0).astype(np.uint32)
    assert np.array_equal(out, expected), out

    zeros16 = np.zeros((16, 16), np.uint16)
    run_mma(gpu, "f16", zeros16, zeros16[:, :8], np.ones((16, 8), np.float32))

    # cp.async: 4 bytes per lane from global into shared memory, read back.
    cp_async = gpu.kernel(cp_async_kernel("cp_async_counted", True, False),
                          "cp_async_counted")
    src, dst = gpu.upload(data[:32]), gpu.alloc(128)         # 128 B in
    check(gpu.launch(cp_async, (1, 1, 1), (32, 1, 1), src, dst))
    check(gpu.synchronize())
    assert np.array_equal(gpu.download(dst, 32, np.uint32), data[:32])

    for name, width, stride, _ in SHARED_PATTERNS:
        check(gpu.launch(gpu.kernel(shared_store_kernel(name, width, stride),
                                    name), (1, 1, 1), (32, 1, 1)))
    for ptx, name in [(BROADCAST_KERNEL, "bank_broadcast"),
                      (LDMATRIX_CONFLICT_KERNEL, "ldmatrix_conflicts")]:
        check(gpu.launch(gpu.kernel(ptx, name), (1, 1, 1), (32, 1, 1)))
    check(gpu.synchronize())
    gpu.destroy()


def test_counters(tmp_path):
    report = tmp_path / "report.json"
    env = python_env(MIXPREC_GPUSIM_REPORT=str(report),
                     MIXPREC_BUILD=os.path.dirname(os.path.dirname(
                         os.path.abspath(LIBRARY))))
    child = subprocess.run(
        [sys.executable, "-c",
         "import test_gpusim; test_gpusim._run_counted_kernels()"],
        env=env, capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    counters = json.loads(report.read_text())
    kernels = counters["kernels"]

    # 2 launches of 2 blocks of 2 warps; see COUNTED_WARP.
    assert kernels["counted"] == {
        "launches": 2, "threads": 2 * 2 * 64,
        "warp_instructions": 2 * 2 * (2 * COUNTED_WARP + 2),
        "mma_sync": 0, "tensor_core_flops": 0,
        "global_load_bytes": 2 * 2 * 64 * 4,
        "global_store_bytes": 2 * 2 * 64 * 4,  # not the predicated-off one
        "shared_load_bytes": 0, "shared_store_bytes": 0,
        "shared_bank_conflicts": 0,
        "max_thread_instructions": COUNTED_WARP + 2,
        "global_loads": 2 * 2 * 64, "global_loads_16_bytes": 0}

    # One warp: A (16 B), B (8 B) and C (16 B) in per lane, D (16 B) out.
    assert kernels["mma_f16"] == {
        "launches": 1, "threads": 32,
        "warp_instructions": MMA_KERNEL_INSTRUCTIONS,
        "mma_sync": 1, "tensor_core_flops": 2 * 16 * 8 * 16,
        "global_load_bytes": 32 * (16 + 8 + 16),
        "global_store_bytes": 32 * 16,
        "shared_load_bytes": 0, "shared_store_bytes": 0,
        "shared_bank_conflicts": 0,
        "max_thread_instructions": MMA_KERNEL_INSTRUCTIONS,
        # A and C in one 16-byte load each, B in an 8-byte one.
        "global_loads": 32 * 3, "global_loads_16_bytes": 32 * 2}

    # 2 ld.param, mov, mul, 2 add, mov, cp.async, commit_group, wait_group,
    # ld.shared, add, st, ret; the copy counts as a global load and, when
    # it lands, as a shared store.
    assert kernels["cp_async_counted"] == {
        "launches": 1, "threads": 32, "warp_instructions": 14,
        "mma_sync": 0, "tensor_core_flops": 0,
        "global_load_bytes": 128, "global_store_bytes": 128,
        "shared_load_bytes": 128, "shared_store_bytes": 128,
        "shared_bank_conflicts": 0, "max_thread_instructions": 14,
        "global_loads": 32, "global_loads_16_bytes": 0}

    for name, width, stride, conflicts in SHARED_PATTERNS:
        stats = kernels[name]
        assert stats["shared_bank_conflicts"] == conflicts, (name, stats)
        assert stats["shared_store_bytes"] == 32 * width, (name, stats)
        assert stats["shared_load_bytes"] == 0, (name, stats)
        assert stats["warp_instructions"] == 7, (name, stats)
        assert stats["max_thread_instructions"] == 7, (name, stats)

    # Lane 0 stores a word; after the barrier all 32 lanes read it: one
    # broadcast, no conflict.
    broadcast = kernels["bank_broadcast"]
    assert broadcast["shared_bank_conflicts"] == 0, broadcast
    assert broadcast["shared_store_bytes"] == 4, broadcast
    assert broadcast["shared_load_bytes"] == 32 * 4, broadcast
    assert broadcast["warp_instructions"] == 7, broadcast

    ldmatrix = kernels["ldmatrix_conflicts"]
    assert ldmatrix["shared_bank_conflicts"] == 4 * 7 + 0, ldmatrix
    assert ldmatrix["shared_store_bytes"] == 1024, ldmatrix
    assert ldmatrix["shared_load_bytes"] == (4 + 1) * 8 * 16, ldmatrix
    assert ldmatrix["warp_instructions"] == 19, ldmatrix

    # The total sums the kernels (the maximum for max_thread_instructions).
    for key in counters["total"]:
        values = [stats[key] for stats in kernels.values()]
        expected = max(values) if key == "max_thread_instructions" else \
            sum(values)
        assert counters["total"][key] == expected, key

    # Host copies: counted's input, the mma fragments (A 512 B, B 256 B,
    # C 512 B) and cp.async's source in; counted's output, D (512 B) and
    # cp.async's result back.
    assert counters["host_to_device_bytes"] == 256 + (512 + 256 + 512) + 128
    assert counters["device_to_host_bytes"] == 256 + 512 + 128
    # Nothing was freed before the context ended: every allocation at once.
    assert counters["peak_device_bytes"] == \
        (256 + 256) + (512 + 256 + 512 + 512) + (128 + 128)
    assert counters["device_allocations"] == 2 + 4 + 2


# Malformed or hostile PTX: each is refused when the module loads, with the
# error code and the line, never a crash of the simulator.
CUDA_ERROR_INVALID_PTX = 218
MALFORMED = {
    "barrier without a kind": ("bar;", CUDA_ERROR_NOT_SUPPORTED),
    "branch to a number": ("bra 100000000;", CUDA_ERROR_INVALID_PTX),
    "branch without a target": ("bra;", CUDA_ERROR_INVALID_PTX),
    "store without operands": ("st.global.u32;", CUDA_ERROR_INVALID_PTX),
    "load without a type": ("ld.global %r1, [%rd1];", CUDA_ERROR_INVALID_PTX),
    "vector of the wrong size": ("ld.global.v4.u32 {%r1, %r2}, [%rd1];",
                                 CUDA_ERROR_INVALID_PTX),
    "mma with scalars": ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "%r1, %r1, %r1, %r1;", CUDA_ERROR_INVALID_PTX),
    "huge local array": (".local .b8 buf[3000000000];",
                         CUDA_ERROR_INVALID_PTX),
    "unimplemented special register": ("mov.u32 %r1, %smid;",
                                       CUDA_ERROR_NOT_SUPPORTED),
    "f16 form with no rule": ("ex2.approx.f16 %h1, %h1;",
                              CUDA_ERROR_NOT_SUPPORTED),
    "integer unordered compare": ("setp.ltu.s32 %p1, %r1, %r1;",
                                  CUDA_ERROR_INVALID_PTX),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_ptx_is_refused_at_load(gpu, capfd, case):
    body, code = MALFORMED[case]
    ptx = HEADER + (".visible .entry k()\n{\n    .reg .pred %p<2>;\n"
                    "    .reg .b16 %h<2>;\n    .reg .b32 %r<3>;\n"
                    "    .reg .b64 %rd<2>;\n    " + body + "\n    ret;\n}\n")
    status, _ = gpu.load(ptx)
    assert status == code, (status, capfd.readouterr().err)
    line = HEADER.count("\n") + 7  # the body's line
    assert "line %d" % line in capfd.readouterr().err


def test_a_branch_to_the_end_of_a_function_returns(gpu):
    ptx = HEADER + """\
.visible .entry to_end()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra END;
    ret;
END:
}
"""
    assert gpu.launch(gpu.kernel(ptx, "to_end"), (1, 1, 1), (32, 1, 1)) == 0
    assert gpu.synchronize() == 0


def test_an_endless_loop_times_out(gpu, capfd, monkeypatch):
    monkeypatch.setenv("MIXPREC_GPUSIM_MAX_WARP_INSTRUCTIONS", "100000")
    ptx = HEADER + ".visible .entry spin()\n{\nLOOP:\n    bra LOOP;\n}\n"
    assert gpu.launch(gpu.kernel(ptx, "spin"), (1, 1, 1), (32, 1, 1)) == 0
    assert gpu.synchronize() == 702  # CUDA_ERROR_LAUNCH_TIMEOUT
    assert "more than 100000 warp instructions" in capfd.readouterr().err


@pytest.mark.parametrize("space", ["shared", "global", "param"])
def test_addresses_that_wrap_around_fault(gpu, capfd, space):
    # An address 4 bytes below zero: addr + 4 wraps to 0. For global memory
    # lane 0 first touches a good address (it fills the range cache) and
    # lane 1 faults; elsewhere every lane takes the bad address.
    where = {"shared": "ld.shared.u32 %r2, [%rd2];",
             "global": "ld.global.u32 %r2, [%rd2];",
             "param": "ld.param.u32 %r2, [%rd2];"}[space]
    ptx = HEADER + """\
.visible .entry wrap(.param .u64 good)
{
    .reg .pred %%p<2>;
    .reg .b32 %%r<3>;
    .reg .b64 %%rd<3>;
    .shared .align 4 .b8 words[64];
    ld.param.u64 %%rd1, [good];
    mov.u32 %%r1, %%tid.x;
    setp.eq.u32 %%p1, %%r1, 0;
    selp.b64 %%rd2, %%rd1, -4, %%p1;
    %s
    ret;
}
""" % where
    good = gpu.upload(np.zeros(16, np.uint32))
    argument = good if space == "global" else 2 ** 64 - 4
    assert gpu.launch(gpu.kernel(ptx, "wrap"), (1, 1, 1), (32, 1, 1),
                      argument) == 0
    assert gpu.synchronize() == CUDA_ERROR_ILLEGAL_ADDRESS
    lane = 1 if space == "global" else 0
    assert "thread (%d,0,0)" % lane in capfd.readouterr().err


def test_launches_are_checked_as_a_driver_checks_them(gpu):
    ptx = HEADER + """\
.visible .entry small()
.maxntid 32, 1, 1
{
    ret;
}
"""
    function = gpu.kernel(ptx, "small")
    CUDA_ERROR_INVALID_VALUE = 1
    # More threads than .maxntid allows.
    assert gpu.launch(function, (1, 1, 1), (64, 1, 1)) == \
        CUDA_ERROR_INVALID_VALUE
    # More dynamic shared memory than 48 KiB without cuFuncSetAttribute.
    assert gpu.lib.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 49 * 1024,
                                  None, None, None) == \
        CUDA_ERROR_INVALID_VALUE
    assert gpu.lib.cuFuncSetAttribute(function, 8, 49 * 1024) == 0
    assert gpu.lib.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 49 * 1024,
                                  None, None, None) == 0
    assert gpu.synchronize() == 0
