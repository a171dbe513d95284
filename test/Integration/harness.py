"""Compiling one-function modules and comparing their results with PyTorch.

Every 16-bit result is compared with a PyTorch emulation that rounds at the
same points as mixprec (ARCHITECTURE.md §4): inputs are 16-bit values,
the computation runs in float32, and the result is rounded once.
"""
import functools
import hashlib
import os
import tempfile

import numpy as np
import torch

import mixprec
from mixprec import dtypes

TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16,
                "bf16": torch.bfloat16, "i32": torch.int32,
                "i64": torch.int64, "i1": torch.bool}

# FP32 tolerances of the issue; 16-bit results may differ by one rounding of
# an FP32 value that differs in the last bits (2^-10 resp. 2^-7 relative).
TOLERANCES = {"f32": (1e-5, 1e-6), "f16": (2.0 ** -10, 1e-5),
              "bf16": (2.0 ** -7, 1e-5)}

_CACHE = os.environ.get("MIXPREC_TEST_CACHE") or tempfile.mkdtemp(
    prefix="mixprec-tests-")


@functools.lru_cache(maxsize=None)
def compile_mlir(text, options=()):
    """Compiles MLIR text to a model library (cached by content)."""
    digest = hashlib.sha1((text + repr(options)).encode()).hexdigest()[:16]
    return mixprec.compile_source(
        text, os.path.join(_CACHE, "lib%s.so" % digest), options)


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
    return torch.from_numpy(np.ascontiguousarray(array))


def random(shape, dtype="f32", seed=0, scale=1.0):
    """Normal random values, rounded to `dtype`."""
    generator = torch.Generator().manual_seed(seed)
    values = torch.randn(shape, generator=generator) * scale
    return values.to(TORCH_DTYPES[dtype])


def tensor_type(shape, dtype):
    element = "i1" if dtype == "i1" else dtype
    return "tensor<%s%s>" % ("".join("%dx" % s for s in shape), element)


def run(text, function, inputs):
    """Compiles `text` and calls `function` on torch tensors; returns the
    outputs as torch tensors."""
    model = compile_mlir(text)
    outputs = model.call(function, [to_numpy(t) for t in inputs])
    specs = model.functions[function].outputs
    return [to_torch(out, dtypes.NAMES[spec.dtype])
            for out, spec in zip(outputs, specs)]


def assert_close(actual, expected, dtype):
    """Compares a result of element type `dtype` with its reference; a
    16-bit reference is computed in float32 and rounded here, once."""
    rtol, atol = TOLERANCES[dtype]
    expected = expected.to(TORCH_DTYPES[dtype]).float()
    torch.testing.assert_close(actual.float(), expected, rtol=rtol, atol=atol,
                               equal_nan=True)
