"""Compiled code grows with a model's distinct layers, not with its depth.

A stack of transformer blocks (bench/transformer_stack.py) has one block's
worth of distinct code: deeper stacks may add calls and launches (the
per-layer glue) but no loop-nest function (CPU) or kernel (CUDA). And a
12-block GPT-sized train step compiles and trains on the CPU."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from mixprec import compile_file
from mixprec.compiler import tool_path
from transformer_stack import Sizes, train_step_module

TINY = Sizes(batch=2, seq=8, width=32, heads=4, hidden=64)


def emitted(tmp_path, blocks, options):
    """The lowered LLVM dialect (`--emit=mlir`) of a `blocks`-deep stack."""
    source = tmp_path / ("stack%d.mlir" % blocks)
    source.write_text(train_step_module(blocks, TINY))
    output = tmp_path / ("stack%d.lowered.mlir" % blocks)
    env = dict(os.environ, PATH=os.environ.get("PATH", "") +
               ":/usr/local/cuda/bin")
    proc = subprocess.run([tool_path("mixprec-compile"), str(source),
                           "--emit=mlir", "-o", str(output), *options],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return output.read_text()


def loop_nest_functions(lowered):
    return set(re.findall(r"llvm\.func @(\w+_loops_\d+)\(", lowered))


def calls_of(lowered, functions):
    return sum(lowered.count("llvm.call @%s(" % f) for f in functions)


@pytest.mark.parametrize("options", [["--autodiff"],
                                     ["--amp=precision=bf16"]],
                         ids=["fp32", "bf16-amp"])
def test_cpu_loop_nests_do_not_grow_with_depth(tmp_path, options):
    one, two, four = (emitted(tmp_path, n, options) for n in (1, 2, 4))
    nests = [loop_nest_functions(text) for text in (one, two, four)]
    assert len(nests[0]) > 20
    # The second block differs from the first only in what feeds it (the
    # model's input, not a block's output); from then on, nothing new.
    assert len(nests[1]) <= len(nests[0]) + 4
    assert len(nests[2]) == len(nests[1])
    # The glue does grow: each block's nests are called once more.
    assert calls_of(four, nests[2]) > 3 * calls_of(one, nests[0])


def test_cuda_kernels_do_not_grow_with_depth(tmp_path):
    if not shutil.which("ptxas") and not os.path.exists(
            "/usr/local/cuda/bin/ptxas"):
        pytest.skip("needs the CUDA toolkit")
    options = ["--target=cuda", "--arch=sm_90", "--amp=precision=bf16"]
    one, two, four = (emitted(tmp_path, n, options) for n in (1, 2, 4))

    def kernels(text):
        return set(re.findall(r"gpu\.launch_func .*@kernels::@(\w+)", text))

    def launches(text):
        return len(re.findall(r"gpu\.launch_func ", text))

    assert len(kernels(one)) > 20
    # A second block adds the kernels where blocks meet (the first block's
    # input, the launches merged across the boundary), a few; more blocks
    # add none.
    assert len(kernels(two)) <= len(kernels(one)) + 8
    assert len(kernels(four)) == len(kernels(two))
    assert launches(four) > 3 * launches(one)


def test_twelve_block_train_step_trains(tmp_path):
    """GPT-sized depth at the benchmark's width: it compiles, and a few
    AdamW steps on one batch lower the loss."""
    source = tmp_path / "stack12.mlir"
    sizes = Sizes()  # B=4, T=128, D=256, 4 heads, MLP 1024
    source.write_text(train_step_module(12, sizes))
    model = compile_file(source, tmp_path / "libstack12.so",
                         options=["--amp=precision=bf16"])
    trainer = model.trainer("train")
    rng = np.random.default_rng(0)
    shape = (sizes.batch, sizes.seq, sizes.width)
    x = rng.standard_normal(shape).astype(np.float32)
    target = rng.standard_normal(shape).astype(np.float32)
    losses = [trainer.step([x, target], 1e-3) for _ in range(4)]
    assert all(np.isfinite(losses)), losses
    assert losses[-1] < losses[0] * 0.97, losses
