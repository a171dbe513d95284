"""Every GEMM shape of bench/gpu/gemm_shapes.mlir through the tensor-core
kernel on the GPU simulator, against the CPU backend; and the simulator's
counters of those kernels against figures computed by hand from the
kernel's design (a block of 4 warps computes a 64x64 tile, 32-deep K steps,
two m16n8k16 mma.sync per warp and 16-column slice, tiles copied in 16-byte
pieces where the operand is contiguous along K or its rows in multiples of
8, the epilogue writes each sum to its f32 output element once over the
zeros a fill would have written)."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import mixprec
from mixprec import dtypes
from subprocess_env import python_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("MIXPREC_BUILD", os.path.join(ROOT, "build"))
GPUSIM = os.path.abspath(os.path.join(BUILD, "lib", "libmixprec_gpusim.so"))
SHAPES = os.path.join(ROOT, "bench", "gpu", "gemm_shapes.mlir")

pytestmark = pytest.mark.skipif(
    not (os.path.exists(GPUSIM) and
         os.path.exists("/usr/local/cuda/bin/ptxas")),
    reason="needs the GPU simulator and the CUDA toolkit")


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gemm")
    paths = {}
    # Imported here: CALL_ALL's process imports this module and needs none of
    # the harness (torch, its cache directory).
    from harness import build_library

    for target in ("cpu", "cuda"):
        paths[target] = build_library(
            SHAPES, str(directory / ("libgemm_%s.so" % target)), target=target)
    return paths


def random_inputs(function, seed):
    rng = np.random.default_rng(seed)
    inputs = []
    for spec in function.inputs:
        values = rng.standard_normal(spec.shape).astype(np.float32)
        name = dtypes.NAMES[spec.dtype]
        inputs.append(dtypes.bf16_bits(values) if name == "bf16"
                      else values.astype(np.float16))
    return inputs


def test_every_gemm_shape_matches_the_cpu(libraries, monkeypatch):
    monkeypatch.setenv("MIXPREC_LIBCUDA", GPUSIM)
    cpu = mixprec.Model(libraries["cpu"])
    cuda = mixprec.Model(libraries["cuda"])
    assert len(cpu.functions) == 17
    for seed, name in enumerate(sorted(cpu.functions)):
        inputs = random_inputs(cpu.functions[name], seed)
        (expected,) = cpu.call(name, inputs)
        (actual,) = cuda.call(name, inputs)
        # model_check's bound: the sums' order may differ (it does not here:
        # both accumulate along k in f32 with one rounding per product).
        ratio = np.abs(actual - expected).max() / np.abs(expected).max()
        assert ratio <= 1e-5, (name, ratio)


# The caller: one call of every function, in a process of its own so that
# the simulator writes its report when it exits.
CALL_ALL = """
import sys
import numpy as np
import mixprec
from test_gpusim_gemm import random_inputs
model = mixprec.Model(sys.argv[1])
for seed, name in enumerate(sorted(model.functions)):
    model.call(name, random_inputs(model.functions[name], seed))
"""


def expected_gemm_counters(m, n, k, element_bytes, pieces):
    """The GEMM kernel's figures for C[m,n] = A[m,k] B[k,n] (row-major A
    and B): one block per 64x64 tile of C; each block loads its A rows and
    B columns once per K step (elements past an edge are zeros, not loads),
    in 16-byte pieces when `pieces` (A along K, B along N), else element by
    element, and writes each of its C elements once."""
    blocks_m, blocks_n = math.ceil(m / 64), math.ceil(n / 64)
    blocks, k_steps = blocks_m * blocks_n, math.ceil(k / 32)
    # A warp's 32x32 tile is 2x4 m16n8 tiles; LLVM deletes the mma of a
    # tile whose sums no warp of any block stores (rows from 16 on when
    # m <= 16, columns from 8j on when n <= 8j): mma has no side effect.
    live_tiles = min(2, math.ceil(m / 16)) * min(4, math.ceil(n / 8))
    mma = blocks * 4 * k_steps * 2 * live_tiles
    return {
        "launches": 1,
        "threads": blocks * 128,
        "mma_sync": mma,
        "tensor_core_flops": mma * 2 * 16 * 8 * 16,
        "global_load_bytes": (m * k * blocks_n + k * n * blocks_m) *
                             element_bytes,
        "global_loads": (m * k * blocks_n + k * n * blocks_m) //
                        (8 if pieces else 1),
        "global_loads_16_bytes": (m * k * blocks_n + k * n * blocks_m) // 8
                                 if pieces else 0,
        "global_store_bytes": m * n * 4,
        # Each K step stores a 64x32 A tile and a 32x64 B tile in shared
        # memory; each warp reads them with ldmatrix (x4 for A twice, x2 for
        # B four times per 16-deep slice), without bank conflicts (the 16-byte
        # pieces of a row are permuted by the row).
        "shared_store_bytes": blocks * k_steps * 2 * 64 * 32 * 2,
        "shared_load_bytes": blocks * k_steps * 4 * 2 * (2 * 512 + 4 * 256),
        "shared_bank_conflicts": 0,
    }


def test_gemm_counters_match_the_kernel_design(libraries, tmp_path):
    report = tmp_path / "report.json"
    environment = python_env(MIXPREC_LIBCUDA=GPUSIM,
                             MIXPREC_GPUSIM_REPORT=str(report))
    subprocess.run([sys.executable, "-c", CALL_ALL, libraries["cuda"]],
                   check=True, env=environment)
    kernels = json.loads(report.read_text())["kernels"]
    # Every function's contraction ran on tensor cores.
    cpu = mixprec.Model(libraries["cpu"])
    for name in cpu.functions:
        assert kernels[name + "_gemm_0"]["mma_sync"] > 0, name
    for name, (m, n, k, element_bytes, pieces) in {
            "matmul_f16_64x64x64": (64, 64, 64, 2, True),
            "matmul_bf16_37x53x29": (37, 29, 53, 2, False),
            "matmul_f16_128x96x160": (128, 160, 96, 2, True),
            "matmul_bf16_257x129x65": (257, 65, 129, 2, False),
            "matmul_f16_1x17x1": (1, 1, 17, 2, False)}.items():
        counted = kernels[name + "_gemm_0"]
        for key, value in expected_gemm_counters(m, n, k, element_bytes,
                                                 pieces).items():
            assert counted[key] == value, (name, key, counted[key], value)
