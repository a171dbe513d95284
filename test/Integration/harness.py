"""Compiling one-function modules and comparing their results with PyTorch.

Every 16-bit result is compared with a PyTorch emulation that rounds at the
same points as mixprec (docs/design.md §4): inputs are 16-bit values,
the computation runs in float32, and the result is rounded once.
"""
import atexit
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np
import torch

import mixprec
from mixprec import dtypes
from mlir_text import tensor_type  # noqa: F401 (the tests import it from here)

TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16,
                "bf16": torch.bfloat16, "i32": torch.int32,
                "i64": torch.int64, "i1": torch.bool}

# FP32 tolerances of the issue; 16-bit results may differ by one rounding of
# an FP32 value that differs in the last bits (2^-10 resp. 2^-7 relative).
TOLERANCES = {"f32": (1e-5, 1e-6), "f16": (2.0 ** -10, 1e-5),
              "bf16": (2.0 ** -7, 1e-5)}

_CACHE = os.environ.get("MIXPREC_TEST_CACHE")
if not _CACHE:
    # The session's libraries; removed when the session ends.
    _CACHE = tempfile.mkdtemp(prefix="mixprec-tests-")
    atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


# Every model a test compiles for the CPU is also compiled for CUDA (sm_90,
# its PTX assembled by ptxas inside mixprec-compile) when the toolkit is
# here; the CUDA library runs on the GPU simulator (runtime/gpusim).
_PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
_CHECK_CUDA = os.path.exists(_PTXAS) and os.environ.get("MIXPREC_TEST_CUDA",
                                                        "1") != "0"
_GPUSIM = os.path.join(os.environ.get("MIXPREC_BUILD", "build"), "lib",
                       "libmixprec_gpusim.so")
_RUN_CUDA = _CHECK_CUDA and os.path.exists(_GPUSIM)
if _RUN_CUDA:
    # Read when a CUDA library first calls the driver.
    os.environ.setdefault("MIXPREC_LIBCUDA", os.path.abspath(_GPUSIM))

# Which library compile_mlir hands out: "cpu", or "cuda" (the same model's
# CUDA build on the simulator) while a test runs under the `backend`
# fixture's second parameter (conftest.py). The tests of those modules then
# hold the CUDA library to the same references and tolerances as the CPU.
BACKEND = "cpu"
BACKENDS = ["cpu", "cuda"] if _RUN_CUDA else ["cpu"]


def _compile_cuda(source, options, output):
    library = output + ".cuda.so"
    command = [mixprec.tool_path("mixprec-compile"), source, "--target=cuda",
               "--arch=sm_90", "-o", library, *options]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("compiles for the CPU but not for CUDA (%s):"
                             "\n%s" % (" ".join(command), proc.stderr))
    return mixprec.Model(library)


@functools.lru_cache(maxsize=None)
def _compile_both(text, options):
    digest = hashlib.sha1((text + repr(options)).encode()).hexdigest()[:16]
    output = os.path.join(_CACHE, "lib%s.so" % digest)
    model = mixprec.compile_source(text, output, options)
    cuda = None
    if _CHECK_CUDA:
        source = output + ".mlir"
        with open(source, "w") as f:
            f.write(text)
        cuda = _compile_cuda(source, options, output)
    return model, cuda


def build_library(source, library, options=(), target="cpu"):
    """Compiles the MLIR file `source` with mixprec-compile into the model
    library `library` for `target` ("cpu", or "cuda": sm_90); fails the test
    with the compiler's errors unless that succeeds. Returns `library`."""
    command = [mixprec.tool_path("mixprec-compile"), source, "-o", library,
               *options]
    if target == "cuda":
        command += ["--target=cuda", "--arch=sm_90"]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return library


def compile_mlir(text, options=()):
    """Compiles MLIR text to a model library for the CPU and, with the CUDA
    toolkit, for CUDA (cached by content); returns the library of the
    current BACKEND."""
    cpu, cuda = _compile_both(text, tuple(options))
    return cuda if BACKEND == "cuda" else cpu


def to_numpy(tensor):
    """A torch tensor as the array the model ABI takes (bf16 as bits)."""
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16).copy()
    return tensor.numpy().copy()


def to_torch(array, dtype):
    """A model output as a torch tensor of `dtype` ("f32", "bf16", ...)."""
    if dtype == "bf16":
        return torch.from_numpy(array.view(np.int16).copy()).view(
            torch.bfloat16)
    # np.array, not np.ascontiguousarray: that makes a 0-d array 1-d.
    return torch.from_numpy(np.array(array, order="C", copy=True))


def random(shape, dtype="f32", seed=0, scale=1.0):
    """Normal random values, rounded to `dtype`."""
    generator = torch.Generator().manual_seed(seed)
    values = torch.randn(shape, generator=generator) * scale
    return values.to(TORCH_DTYPES[dtype])


def random_positive(shape, dtype="f32", seed=0):
    """Random values in [0.25, ~4.5) with full mantissas, rounded to `dtype`.
    Sums of products of such values do not cancel: their f32 relative error
    stays below n * 2^-24 in any summation order (so sums of up to 160 terms
    meet the FP32 tolerance whatever order the backend uses), and is about
    sqrt(n) * 2^-24 in practice."""
    generator = torch.Generator().manual_seed(seed)
    values = torch.randn(shape, generator=generator).abs() + 0.25
    return values.to(TORCH_DTYPES[dtype])


def random_exact(shape, dtype="f32", seed=0):
    """Signed random multiples of 1/8 in [-4, 4]: exact in every float type;
    so are their products (multiples of 1/64 up to 16) and, in f32, sums of
    up to 2^14 such products, so results with cancellation do not depend on
    the summation order."""
    generator = torch.Generator().manual_seed(seed)
    values = torch.randn(shape, generator=generator).mul(8).round().clamp(
        -32, 32) / 8
    return values.to(TORCH_DTYPES[dtype])


def run(text, function, inputs):
    """Compiles `text` and calls `function` on torch tensors; returns the
    outputs as torch tensors."""
    model = compile_mlir(text)
    outputs = model.call(function, [to_numpy(t) for t in inputs])
    specs = model.functions[function].outputs
    return [to_torch(out, dtypes.NAMES[spec.dtype])
            for out, spec in zip(outputs, specs)]


def snapshot(model, trainer):
    """The bytes of every state tensor of `model` and of the RNG state as
    `trainer` holds them: equal snapshots mean bit-identical training state."""
    state = {spec.name: trainer.get(spec.name).tobytes()
             for spec in model.state}
    state["rng_state"] = trainer.get("rng_state").tobytes()
    return state


def steps_as_pytorch(trainer, reference, loss_fn, batches, lr):
    """Steps `trainer` and SGD at `lr` on the PyTorch module `reference`
    through `batches`: each step's loss within 1e-5 (relative) of
    PyTorch's."""
    optimizer = torch.optim.SGD(reference.parameters(), lr=lr)
    for step, batch in enumerate(batches):
        optimizer.zero_grad()
        expected = loss_fn(reference, *batch)
        expected.backward()
        optimizer.step()
        loss = trainer.step(*batch)
        assert abs(loss - expected.item()) <= 1e-5 * abs(expected.item()), (
            step, loss, expected.item())


def assert_state_close(trainer, reference, rtol=1e-4, atol=1e-5):
    """`trainer`'s state (mixprec.torch) is the PyTorch module
    `reference`'s."""
    state = trainer.state_dict()
    for key, value in reference.state_dict().items():
        assert torch.allclose(state[key], value, rtol=rtol, atol=atol), (
            key, (state[key] - value).abs().max().item())


def assert_close(actual, expected, dtype):
    """Compares a result of element type `dtype` with its reference; a
    16-bit reference is computed in float32 and rounded here, once."""
    rtol, atol = TOLERANCES[dtype]
    expected = expected.to(TORCH_DTYPES[dtype]).float()
    torch.testing.assert_close(actual.float(), expected, rtol=rtol, atol=atol,
                               equal_nan=True)


def op_function(name, arg_types, result_types, op):
    """`func.func @name` whose body is the single op `op` (its text after
    `=`, using the arguments %a0, %a1, ...) and which returns its results."""
    args = ", ".join("%%a%d: %s" % (i, t) for i, t in enumerate(arg_types))
    results = ", ".join("%%r%d" % i for i in range(len(result_types)))
    types = ", ".join(result_types)
    return "func.func @%s(%s) -> (%s) {\n  %s = %s\n  return %s : %s\n}\n" % (
        name, args, types, results, op, results, types)


def module(functions):
    """The MLIR text of a module holding `functions` (func.func texts)."""
    return "\n".join(functions)


def precompile(texts, workers=4):
    """Compiles several modules concurrently (compile_mlir caches them), so
    a test file pays for its slowest compile rather than for the sum. A
    module that fails to compile is left out: the tests that use it compile
    it again and report the error."""
    from concurrent.futures import ThreadPoolExecutor

    def attempt(text):
        try:
            compile_mlir(text)
        except Exception:  # pylint: disable=broad-except
            pass

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(attempt, texts))
