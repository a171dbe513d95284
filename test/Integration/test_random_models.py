"""Random valid models (random_models.py) through every pipeline
(random_model_pipelines.py): mixprec-opt with the training passes (AMP in
f16 and bf16 with random options, autocast with random options and the
reports, autodiff with exposed state; each output parsed again),
mixprec-compile for the CPU in FP32 and a 16-bit precision and for CUDA in
the other (ptxas assembles it), a few trainer steps and the eval functions
of each CPU library, and of the CUDA library on the GPU simulator where it
is built. One test per seed; any crash, rejected model or failed training
run fails it with the seed and the model's text.

A seed is reproduced with `random_model_pipelines.py check SEED --gpusim`,
and scripts/random_models.sh runs longer campaigns."""
import os
import re

import pytest

import random_model_pipelines
import random_models

# 32 models keep this module between 1.5 and 2.5 minutes on two cores; they
# use every forward op (test_models_use_every_forward_op).
SEEDS = range(32)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_model(seed, tmp_path):
    model, failures = random_model_pipelines.check(
        seed, str(tmp_path), jobs=os.cpu_count() or 2, gpusim=True,
        profile="ci")
    assert not failures, "%s\n\nthe model (random_models.py %d):" \
        "\n%s" % ("\n\n".join(str(f) for f in failures), seed, model.text)


def test_generation_is_deterministic():
    """A seed gives the same model, and different seeds different ones."""
    first = random_models.generate(7)
    assert random_models.generate(7).text == first.text
    assert random_models.generate(7).spec == first.spec
    assert random_models.generate(8).text != first.text


def test_models_use_every_forward_op():
    """The seeds of this module use every forward op of the dialect, so a
    change to the generator cannot quietly drop one."""
    forward_ops = {
        "parameter", "buffer", "read", "assign", "rng_state", "matmul",
        "batch_matmul", "linear", "conv2d", "add", "sub", "mul", "div",
        "maximum", "minimum", "pow", "neg", "exp", "log", "rsqrt", "sqrt",
        "tanh", "sigmoid", "relu", "gelu", "softmax", "log_softmax",
        "layer_norm", "batch_norm", "reduce_sum", "reduce_mean",
        "reduce_max", "transpose", "reshape", "broadcast", "slice", "concat",
        "embedding", "dropout", "max_pool2d", "avg_pool2d", "constant",
        "cast", "softmax_cross_entropy", "mse", "train_step"}
    used = set()
    for seed in SEEDS:
        text = random_models.generate(seed).text
        used |= {op for op in forward_ops
                 if re.search(r"mixprec\.%s\b" % op, text)}
    assert forward_ops - used == set()


def test_failures_are_classified():
    """The classification the tests rely on: a signal, an assertion or an
    LLVM fatal error is a crash; a located diagnostic is a rejection; a
    bare non-zero exit is neither."""
    assert random_model_pipelines.classify(-11, "") == "crash (signal SIGSEGV)"
    assert random_model_pipelines.classify(
        1, "LLVM ERROR: out of memory").startswith("crash")
    assert random_model_pipelines.classify(
        134, "mixprec-opt: Foo.cpp:12: Assertion `x' failed.").startswith(
            "crash")
    assert random_model_pipelines.classify(
        1, "m.mlir:3:5: error: 'mixprec.add' op bad").startswith(
            "valid model rejected")
    assert random_model_pipelines.classify(1, "something went wrong") == \
        "exit 1 without a located diagnostic"
    assert random_model_pipelines.classify(0, "m.mlir:1:1: warning: w") is None


def test_a_crashing_tool_fails_the_check(tmp_path):
    """check() reports tools that crash: here a mixprec-opt killed by
    SIGSEGV and a mixprec-compile that dies with an LLVM fatal error."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name, body in (("mixprec-opt", "kill -SEGV $$"),
                       ("mixprec-compile",
                        "echo 'LLVM ERROR: out of registers' >&2; exit 1")):
        (tools / name).write_text("#!/bin/sh\n%s\n" % body)
        (tools / name).chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    _, failures = random_model_pipelines.check(3, str(work),
                                               tools=str(tools))
    kinds = {f.task.name: f.kind for f in failures}
    assert kinds["opt amp f16"] == "crash (signal SIGSEGV)"
    assert kinds["cpu fp32 compile"] == "crash (LLVM ERROR)"
    assert all(f.seed == 3 for f in failures)
    assert "seed 3: cpu fp32 compile: crash (LLVM ERROR)" in str(
        [f for f in failures if f.task.name == "cpu fp32 compile"][0])


def test_a_library_that_cannot_train_fails_the_check(tmp_path):
    """A compiled library the runner cannot train (here a file that is no
    library) is a training failure, named by its pipeline."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "mixprec-opt").write_text("#!/bin/sh\nexit 0\n")
    (tools / "mixprec-compile").write_text(
        '#!/bin/sh\nwhile [ "$1" != -o ]; do shift; done\n'
        'echo "not a library" > "$2"\n')
    for tool in tools.iterdir():
        tool.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    _, failures = random_model_pipelines.check(3, str(work),
                                               tools=str(tools))
    kinds = {f.task.name: f.kind for f in failures}
    assert kinds["cpu fp32 run"] == "training failed (exit 1)", kinds
    assert kinds["cpu amp f16 run"] == "training failed (exit 1)", kinds
