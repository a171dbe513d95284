"""Contractions (matmul, batch_matmul, linear, conv2d) and pooling on the CPU
backend against PyTorch.

16-bit inputs are widened and accumulated in f32; the result is rounded once
to the op's type (docs/design.md §4). The references compute in float64 on
the same (16-bit) input values, and assert_close rounds them once to the
result type, so only the backend's own f32 rounding is measured.

Every contraction runs on two data sets (harness.random_positive and
harness.random_exact): positive values with full mantissas, whose sums meet
the FP32 tolerance in any summation order, and signed values whose products
and sums are exact, so cancellation cannot hide behind the tolerance.
"""
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import harness
import mixprec
from harness import (TORCH_DTYPES, assert_close, module, op_function,
                     precompile, random, random_exact, random_positive, run,
                     tensor_type)

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

DATA = [random_positive, random_exact]

# Sizes larger than the vectorizer's tiles (m, n, k about 8, 32, 16) and
# divisible by none of them, so that every loop has full and partial tiles.
M, K, N = 19, 23, 37

# (input type, result type): f32, 16-bit inputs with the f32 accumulator as
# result, and 16-bit results rounded once.
TYPE_RULES = [("f32", "f32"), ("f16", "f32"), ("bf16", "f32"),
              ("f16", "f16"), ("bf16", "bf16")]
TRANSPOSES = [(False, False), (True, False), (False, True), (True, True)]


def transpose_attrs(transpose_lhs, transpose_rhs):
    flags = [name for name, flag in (("transpose_lhs", transpose_lhs),
                                     ("transpose_rhs", transpose_rhs)) if flag]
    return "{%s} " % ", ".join(flags) if flags else ""


def transpose_name(transpose_lhs, transpose_rhs):
    return ("t" if transpose_lhs else "n") + ("t" if transpose_rhs else "n")


def types_name(types):
    return "%s_%s" % types


def matrix_operand_shapes(batch, transpose_lhs, transpose_rhs):
    lhs = batch + ((K, M) if transpose_lhs else (M, K))
    rhs = batch + ((N, K) if transpose_rhs else (K, N))
    return lhs, rhs


def swap_last(tensor, flag):
    return tensor.transpose(-1, -2) if flag else tensor


# ---------------------------------------------------------------------------
# matmul and batch_matmul
# ---------------------------------------------------------------------------

def matmul_name(batch, types, transposes):
    return "%s_%s_%s" % ("batch_matmul%d" % (len(batch) + 2) if batch
                         else "matmul", types_name(types),
                         transpose_name(*transposes))


def matmul_function(batch, types, transposes):
    source, result = types
    lhs, rhs = matrix_operand_shapes(batch, *transposes)
    a, b = tensor_type(lhs, source), tensor_type(rhs, source)
    r = tensor_type(batch + (M, N), result)
    return op_function(matmul_name(batch, types, transposes), [a, b], [r],
                       "mixprec.%s %%a0, %%a1 %s: %s, %s -> %s" % (
                           "batch_matmul" if batch else "matmul",
                           transpose_attrs(*transposes), a, b, r))


MATMUL = module([matmul_function((), types, transposes)
                 for types in TYPE_RULES for transposes in TRANSPOSES])

BATCH_SHAPES = {3: (3,), 4: (2, 3)}
# matmul covers every type rule; batch_matmul (one more lowering path and
# the reshapes of rank 4) takes f32, a widened 16-bit input with the f32
# accumulator and 16-bit results of either type.
BATCH_MATMUL_CASES = (
    [(3, types, t) for types in [("f32", "f32"), ("f16", "f32"),
                                 ("bf16", "bf16")] for t in TRANSPOSES] +
    [(4, types, t) for types in [("f32", "f32"), ("f16", "f16")]
     for t in TRANSPOSES])
BATCH_MATMUL = module([matmul_function(BATCH_SHAPES[rank], types, t)
                       for rank, types, t in BATCH_MATMUL_CASES])


def check_matmul(text, batch, types, transposes, seed):
    source, result = types
    lhs_shape, rhs_shape = matrix_operand_shapes(batch, *transposes)
    name = matmul_name(batch, types, transposes)
    for data in DATA:
        lhs = data(lhs_shape, source, seed)
        rhs = data(rhs_shape, source, seed + 1)
        (out,) = run(text, name, [lhs, rhs])
        expected = torch.matmul(swap_last(lhs.double(), transposes[0]),
                                swap_last(rhs.double(), transposes[1]))
        assert out.shape == expected.shape
        assert_close(out, expected, result)


@pytest.mark.parametrize("transposes", TRANSPOSES,
                         ids=[transpose_name(*t) for t in TRANSPOSES])
@pytest.mark.parametrize("types", TYPE_RULES, ids=types_name)
def test_matmul(types, transposes):
    check_matmul(MATMUL, (), types, transposes, 10)


@pytest.mark.parametrize(
    "rank,types,transposes", BATCH_MATMUL_CASES,
    ids=["rank%d-%s-%s" % (rank, types_name(types), transpose_name(*t))
         for rank, types, t in BATCH_MATMUL_CASES])
def test_batch_matmul(rank, types, transposes):
    check_matmul(BATCH_MATMUL, BATCH_SHAPES[rank], types, transposes, 20)


def test_matmul_f16_accumulates_in_f32():
    # Each product is exact in f32 and the sum 2048 + (K - 1) * 0.5 is exact
    # too; an f16 accumulator would stall at 2048 (its ulp there is 2).
    lhs = torch.cat([torch.full((M, 1), 2048.0),
                     torch.full((M, K - 1), 0.5)], 1).half()
    rhs = torch.ones((K, N)).half()
    (out,) = run(MATMUL, "matmul_f16_f32_nn", [lhs, rhs])
    assert torch.equal(out, torch.full((M, N), 2048.0 + 0.5 * (K - 1)))


@pytest.mark.parametrize("m,k,n", [(0, 5, 8), (4, 0, 8), (4, 5, 0)])
def test_matmul_with_an_empty_dimension(m, k, n):
    # Nothing to multiply, or nothing to sum: an empty result, or zeros.
    text = op_function(
        "empty", ["tensor<%dx%dxf32>" % (m, k), "tensor<%dx%dxf32>" % (k, n)],
        ["tensor<%dx%dxf32>" % (m, n)],
        "mixprec.matmul %%a0, %%a1 : tensor<%dx%dxf32>, tensor<%dx%dxf32> "
        "-> tensor<%dx%dxf32>" % (m, k, k, n, m, n))
    (out,) = run(text, "empty", [torch.ones(m, k), torch.ones(k, n)])
    assert torch.equal(out, torch.zeros(m, n))


# ---------------------------------------------------------------------------
# linear
# ---------------------------------------------------------------------------

LINEAR_INPUTS = {1: (K,), 2: (M, K), 3: (3, 7, K)}
# Every type rule on rank 2; ranks 1 and 3 (the reshapes around the
# product) with f32 and a 16-bit result.
LINEAR_CASES = [(rank, bias, types) for rank in (1, 2, 3)
                for bias in (True, False) for types in TYPE_RULES
                if rank == 2 or types in [("f32", "f32"), ("f16", "f32"),
                                          ("bf16", "bf16")]]


def linear_name(rank, bias, types):
    return "linear%d_%s_%s" % (rank, "bias" if bias else "nobias",
                               types_name(types))


def linear_function(rank, bias, types):
    source, result = types
    x = tensor_type(LINEAR_INPUTS[rank], source)
    w = tensor_type((N, K), source)
    b = tensor_type((N,), source)
    r = tensor_type(LINEAR_INPUTS[rank][:-1] + (N,), result)
    if bias:
        return op_function(linear_name(rank, bias, types), [x, w, b], [r],
                           "mixprec.linear %%a0, %%a1, %%a2 : %s, %s, %s -> %s"
                           % (x, w, b, r))
    return op_function(linear_name(rank, bias, types), [x, w], [r],
                       "mixprec.linear %%a0, %%a1 : %s, %s -> %s" % (x, w, r))


LINEAR = module([linear_function(*case) for case in LINEAR_CASES])


@pytest.mark.parametrize(
    "rank,bias,types", LINEAR_CASES,
    ids=["rank%d-%s-%s" % (rank, "bias" if bias else "nobias",
                           types_name(types))
         for rank, bias, types in LINEAR_CASES])
def test_linear(rank, bias, types):
    source, result = types
    for data in DATA:
        x = data(LINEAR_INPUTS[rank], source, 30)
        w = data((N, K), source, 31)
        b = data((N,), source, 32) if bias else None
        inputs = [x, w] + ([b] if bias else [])
        (out,) = run(LINEAR, linear_name(rank, bias, types), inputs)
        expected = F.linear(x.double(), w.double(),
                            b.double() if bias else None)
        assert out.shape == expected.shape
        assert_close(out, expected, result)


# ---------------------------------------------------------------------------
# conv2d
# ---------------------------------------------------------------------------

# name: (input NCHW, out channels, kernel (kh, kw), stride, padding,
#        dilation, groups)
CONV_CONFIGS = {
    "basic": ((2, 3, 19, 23), 5, (3, 3), (1, 1), (0, 0), (1, 1), 1),
    "strided_padded": ((2, 3, 19, 23), 6, (3, 5), (2, 3), (1, 2), (1, 1), 1),
    "dilated": ((2, 4, 19, 23), 5, (3, 3), (1, 2), (2, 1), (2, 3), 1),
    "groups": ((2, 6, 17, 21), 9, (3, 3), (1, 1), (1, 1), (1, 1), 3),
    "depthwise": ((2, 7, 17, 21), 7, (3, 3), (2, 2), (1, 1), (1, 1), 7),
    "depthwise_multiplier": ((2, 5, 17, 21), 10, (5, 3), (1, 1), (2, 1),
                             (1, 1), 5),
    "pointwise": ((2, 17, 13, 11), 33, (1, 1), (1, 1), (0, 0), (1, 1), 1),
    # At least 8 output channels per group and 8 window elements: the
    # CPU's im2col GEMMs (a stem's 3 input channels times a 7x7 kernel too).
    "stem": ((2, 3, 19, 23), 16, (7, 7), (2, 2), (3, 3), (1, 1), 1),
    "wide_strided_dilated": ((2, 16, 15, 13), 24, (3, 3), (2, 1), (1, 2),
                             (1, 2), 1),
    "wide_groups": ((2, 16, 11, 13), 24, (3, 3), (1, 1), (1, 1), (1, 1), 2),
}
CONV_CASES = (
    [(config, bias, ("f32", "f32")) for config in sorted(CONV_CONFIGS)
     for bias in (True, False)] +
    [(config, True, types)
     for config in ("strided_padded", "groups", "wide_groups")
     for types in TYPE_RULES[1:]] +
    [("basic", False, ("f16", "f16")), ("depthwise", True, ("bf16", "bf16"))])


def conv_name(config, bias, types):
    return "conv_%s_%s_%s" % (config, "bias" if bias else "nobias",
                              types_name(types))


def conv_output_shape(config):
    shape, out, kernel, stride, padding, dilation, _ = CONV_CONFIGS[config]
    spatial = [(shape[2 + i] + 2 * padding[i] - dilation[i] *
                (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(2)]
    return (shape[0], out) + tuple(spatial)


def conv_function(config, bias, types):
    shape, out, kernel, stride, padding, dilation, groups = \
        CONV_CONFIGS[config]
    source, result = types
    x = tensor_type(shape, source)
    w = tensor_type((out, shape[1] // groups) + kernel, source)
    b = tensor_type((out,), source)
    r = tensor_type(conv_output_shape(config), result)
    attrs = ("{stride = array<i64: %d, %d>, padding = array<i64: %d, %d>, "
             "dilation = array<i64: %d, %d>, groups = %d : i64}" %
             (stride + padding + dilation + (groups,)))
    if bias:
        return op_function(conv_name(config, bias, types), [x, w, b], [r],
                           "mixprec.conv2d %%a0, %%a1, %%a2 %s : %s, %s, %s "
                           "-> %s" % (attrs, x, w, b, r))
    return op_function(conv_name(config, bias, types), [x, w], [r],
                       "mixprec.conv2d %%a0, %%a1 %s : %s, %s -> %s" %
                       (attrs, x, w, r))


CONV = module([conv_function(*case) for case in CONV_CASES])


@pytest.mark.parametrize(
    "config,bias,types", CONV_CASES,
    ids=["%s-%s-%s" % (config, "bias" if bias else "nobias",
                       types_name(types))
         for config, bias, types in CONV_CASES])
def test_conv2d(config, bias, types):
    shape, out, kernel, stride, padding, dilation, groups = \
        CONV_CONFIGS[config]
    source, result = types
    for data in DATA:
        x = data(shape, source, 40)
        w = data((out, shape[1] // groups) + kernel, source, 41)
        b = data((out,), source, 42) if bias else None
        inputs = [x, w] + ([b] if bias else [])
        (y,) = run(CONV, conv_name(config, bias, types), inputs)
        expected = F.conv2d(x.double(), w.double(),
                            b.double() if bias else None, stride=stride,
                            padding=padding, dilation=dilation, groups=groups)
        assert y.shape == expected.shape
        assert_close(y, expected, result)


# ---------------------------------------------------------------------------
# max_pool2d and avg_pool2d
# ---------------------------------------------------------------------------

POOL_INPUT = (2, 5, 19, 23)
# name: (kernel, stride, padding)
POOL_CONFIGS = {
    "k3s2p1": ((3, 3), (2, 2), (1, 1)),
    "k2x3s1x2p1x0": ((2, 3), (1, 2), (1, 0)),
    "k3x2s3x2": ((3, 2), (3, 2), (0, 0)),
    "k4x5s2x3p2x2": ((4, 5), (2, 3), (2, 2)),
}
POOL_CASES = [(op, config, dtype) for op in ("max_pool2d", "avg_pool2d")
              for config in sorted(POOL_CONFIGS)
              for dtype in ("f32", "f16", "bf16")]


def pool_name(op, config, dtype):
    return "%s_%s_%s" % (op, config, dtype)


def pool_output_shape(config):
    kernel, stride, padding = POOL_CONFIGS[config]
    return POOL_INPUT[:2] + tuple(
        (POOL_INPUT[2 + i] + 2 * padding[i] - kernel[i]) // stride[i] + 1
        for i in range(2))


def pool_function(op, config, dtype):
    kernel, stride, padding = POOL_CONFIGS[config]
    x = tensor_type(POOL_INPUT, dtype)
    r = tensor_type(pool_output_shape(config), dtype)
    return op_function(
        pool_name(op, config, dtype), [x], [r],
        "mixprec.%s %%a0 {kernel = array<i64: %d, %d>, stride = array<i64: "
        "%d, %d>, padding = array<i64: %d, %d>} : %s"
        % ((op,) + kernel + stride + padding + (x,)))


POOL = module([pool_function(*case) for case in POOL_CASES])


def torch_pool(op, x, config):
    kernel, stride, padding = POOL_CONFIGS[config]
    if op == "max_pool2d":
        return F.max_pool2d(x, kernel, stride, padding)
    return F.avg_pool2d(x, kernel, stride, padding)  # count_include_pad


@pytest.mark.parametrize("op,config,dtype", POOL_CASES,
                         ids=["-".join(case) for case in POOL_CASES])
def test_pool2d(op, config, dtype):
    # Negative values: a padded element that counted as 0 in the maximum
    # (instead of -inf) would show.
    for x in (-random_positive(POOL_INPUT, dtype, 50),
              random_exact(POOL_INPUT, dtype, 51),
              random_positive(POOL_INPUT, dtype, 52)):
        (y,) = run(POOL, pool_name(op, config, dtype), [x])
        expected = torch_pool(op, x.double(), config)
        assert y.shape == expected.shape
        assert_close(y, expected, dtype)


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("config", ["k3s2p1", "k3x2s3x2"])
def test_max_pool2d_propagates_nan(config, dtype):
    x = random(POOL_INPUT, "f32", 53)
    x[0, 0, 0, 0] = float("nan")       # a corner, next to the padding
    x[0, 1, 7, 9] = float("nan")
    x[1, 4, 18, 22] = float("nan")
    x[1, 2, 5, 5] = float("inf")
    x[1, 3, 10, 10] = -float("inf")
    x = x.to(TORCH_DTYPES[dtype])
    (y,) = run(POOL, pool_name("max_pool2d", config, dtype), [x])
    expected = F.max_pool2d(x.double(), *POOL_CONFIGS[config])
    assert expected.isnan().any()
    assert torch.equal(y.float().isnan(), expected.isnan())
    assert_close(y, expected, dtype)


@pytest.fixture(scope="module", autouse=True)
def _precompiled():
    """Compiles every module of this file concurrently before its tests."""
    precompile([MATMUL, BATCH_MATMUL, LINEAR, CONV, POOL])


STRIDED_LHS = r"""
import os, sys
import numpy as np
import mixprec
text = '''
func.func @f(%x: tensor<64x7x7xf32>, %w: tensor<64x96xf32>) -> tensor<7x7x96xf32> {
  %t = mixprec.transpose %x {permutation = array<i64: 2, 1, 0>} : tensor<64x7x7xf32>
  %wb = mixprec.broadcast %w : tensor<64x96xf32> -> tensor<7x64x96xf32>
  %y = mixprec.batch_matmul %t, %wb : tensor<7x7x64xf32>, tensor<7x64x96xf32> -> tensor<7x7x96xf32>
  return %y : tensor<7x7x96xf32>
}
'''
library = mixprec.compile_source(text)
generator = np.random.default_rng(0)
x = generator.integers(-8, 8, (64, 7, 7)).astype(np.float32)
w = generator.integers(-8, 8, (64, 96)).astype(np.float32)
out = [np.empty((7, 7, 96), np.float32)]
sys.stdout.write("-- calling\n")
sys.stdout.flush()
library.call("f", [x, w], out)
assert np.array_equal(out[0], x.transpose(2, 1, 0) @ w)
"""


def onednn_calls(script):
    """oneDNN's verbose lines of the primitives `script` runs after it
    prints "-- calling"; it must exit 0."""
    run = subprocess.run(
        [sys.executable, "-c", script],
        env=dict(os.environ, DNNL_VERBOSE="1",
                 PYTHONPATH=os.path.dirname(os.path.dirname(
                     os.path.abspath(mixprec.__file__)))),
        capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    return [line for line in run.stdout.partition("-- calling")[2].split("\n")
            if line.startswith("onednn_verbose,exec,")]


def test_operands_onednn_has_only_reference_loops_for_are_copied():
    # The transposed windows of a batch read each LHS block down columns 49
    # elements apart (maxvit's projections): oneDNN has only its reference
    # loops for that (0.1 GFLOP/s), so the block is copied densely for its
    # own kernels. The products are exact (small integers).
    if harness.BACKEND == "cuda":
        pytest.skip("oneDNN runs the CPU's contractions")
    calls = onednn_calls(STRIDED_LHS)
    assert calls and not [c for c in calls if ",ref:" in c], calls


HEADS_IN_PLACE = r"""
import os, sys
import numpy as np
import mixprec
text = '''
func.func @f(%x: tensor<8x256x192xf32>) -> (tensor<8x256x256xf32>, tensor<8x256x256xf32>) {
  %q = mixprec.slice %x {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 8, 256, 64>} : tensor<8x256x192xf32>
  %k = mixprec.slice %x {offsets = array<i64: 0, 0, 64>, sizes = array<i64: 8, 256, 64>} : tensor<8x256x192xf32>
  %kt = mixprec.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<8x256x64xf32>
  %s = mixprec.batch_matmul %q, %kt : tensor<8x256x64xf32>, tensor<8x64x256xf32> -> tensor<8x256x256xf32>
  %xb = mixprec.cast %x : tensor<8x256x192xf32> to tensor<8x256x192xbf16>
  %qb = mixprec.slice %xb {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 8, 256, 64>} : tensor<8x256x192xbf16>
  %kb = mixprec.slice %xb {offsets = array<i64: 0, 0, 64>, sizes = array<i64: 8, 256, 64>} : tensor<8x256x192xbf16>
  %ktb = mixprec.transpose %kb {permutation = array<i64: 0, 2, 1>} : tensor<8x256x64xbf16>
  %sb = mixprec.batch_matmul %qb, %ktb : tensor<8x256x64xbf16>, tensor<8x64x256xbf16> -> tensor<8x256x256xbf16>
  %sf = mixprec.cast %sb : tensor<8x256x256xbf16> to tensor<8x256x256xf32>
  return %s, %sf : tensor<8x256x256xf32>, tensor<8x256x256xf32>
}
'''
library = mixprec.compile_source(text)
generator = np.random.default_rng(0)
x = generator.integers(-8, 8, (8, 256, 192)).astype(np.float32)
out = [np.empty((8, 256, 256), np.float32), np.empty((8, 256, 256), np.float32)]
sys.stdout.write("-- calling\n")
sys.stdout.flush()
library.call("f", [x], out)
exact = x[..., :64] @ x[..., 64:128].transpose(0, 2, 1)
bits = exact.view(np.uint32)
rounded = ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
assert np.array_equal(out[0], exact)
assert np.array_equal(out[1], rounded)
"""


def test_operands_onednn_would_pack_on_every_call_are_copied():
    # Attention's heads read in place out of their projection (rows 192
    # apart for a head of 64), f32 and bf16: oneDNN's brgemm kernels, whose
    # memory the trainer's plan counts (the scratchpad), refuse operands
    # that are not dense, and its gemm:jit takes them but allocates packed
    # copies on every call, outside any plan. They are copied densely for
    # the brgemm kernels. The products are exact (small integers; the bf16
    # one is the f32 sums rounded once).
    if harness.BACKEND == "cuda":
        pytest.skip("oneDNN runs the CPU's contractions")
    flags = set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[1].split())
    if not {"avx512f", "avx512bw", "avx512vl", "avx512_bf16"} <= flags:
        pytest.skip("oneDNN 2's brgemm kernels need AVX-512 (bf16 ones "
                    "AVX512-BF16); without them gemm:jit is all it has")
    calls = onednn_calls(HEADS_IN_PLACE)
    assert calls and all(",brg:" in c for c in calls), calls
