"""Loading a compiled model and calling it through the C ABI."""
import ctypes
from dataclasses import dataclass

import numpy as np

from . import dtypes

ABI_VERSION = 1


class ModelError(RuntimeError):
    """A call the model rejected; the message is the library's."""


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class _TensorSpec(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class _Function(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("num_inputs", ctypes.c_int32),
                ("inputs", ctypes.POINTER(_TensorSpec)),
                ("num_outputs", ctypes.c_int32),
                ("outputs", ctypes.POINTER(_TensorSpec))]


@dataclass(frozen=True)
class TensorSpec:
    name: str
    dtype: int
    shape: tuple

    @property
    def numpy_dtype(self):
        return dtypes.NUMPY[self.dtype]

    def __str__(self):
        return "%s: %s%s" % (self.name, dtypes.NAMES[self.dtype],
                             list(self.shape))


@dataclass(frozen=True)
class Function:
    name: str
    inputs: tuple
    outputs: tuple


def _spec(raw):
    shape = tuple(raw.shape[i] for i in range(raw.rank))
    return TensorSpec(raw.name.decode(), raw.dtype, shape)


class Model:
    """A compiled model library."""

    def __init__(self, path):
        self.path = str(path)
        # RTLD_LOCAL: every model exports the same ABI symbols.
        self._lib = ctypes.CDLL(self.path, mode=ctypes.RTLD_LOCAL)
        lib = self._lib
        lib.mixprec_abi_version.restype = ctypes.c_int32
        lib.mixprec_num_functions.restype = ctypes.c_int32
        lib.mixprec_function_at.restype = ctypes.POINTER(_Function)
        lib.mixprec_function_at.argtypes = [ctypes.c_int32]
        lib.mixprec_call.restype = ctypes.c_int
        lib.mixprec_call.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Tensor),
                                     ctypes.c_int32, ctypes.POINTER(_Tensor),
                                     ctypes.c_int32]
        lib.mixprec_last_error.restype = ctypes.c_char_p
        if lib.mixprec_abi_version() != ABI_VERSION:
            raise ModelError("%s: ABI version %d, expected %d" % (
                self.path, lib.mixprec_abi_version(), ABI_VERSION))
        self.functions = {}
        for i in range(lib.mixprec_num_functions()):
            raw = lib.mixprec_function_at(i).contents
            function = Function(
                raw.name.decode(),
                tuple(_spec(raw.inputs[j]) for j in range(raw.num_inputs)),
                tuple(_spec(raw.outputs[j]) for j in range(raw.num_outputs)))
            self.functions[function.name] = function

    def call(self, name, inputs, outputs=None):
        """Runs `name` on the numpy arrays `inputs` and returns its outputs.

        Inputs are passed as they are (no conversion): a wrong dtype or
        shape is reported by the library, naming the argument. Outputs are
        allocated here unless given."""
        function = self.functions.get(name)
        if outputs is None and function is not None:
            outputs = [np.empty(spec.shape, spec.numpy_dtype)
                       for spec in function.outputs]
        # Not np.ascontiguousarray: it makes 0-d arrays 1-d.
        inputs = [np.asarray(a, order="C") for a in inputs]
        outputs = list(outputs or [])
        keep_alive = []

        def tensors(arrays):
            array_type = _Tensor * max(len(arrays), 1)
            result = array_type()
            for i, array in enumerate(arrays):
                if not array.flags.c_contiguous:
                    raise ModelError("output %d is not contiguous" % i)
                shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
                keep_alive.append(shape)
                result[i] = _Tensor(array.ctypes.data, _dtype_of(array),
                                    array.ndim, shape)
            return result

        status = self._lib.mixprec_call(
            name.encode(), tensors(inputs), len(inputs), tensors(outputs),
            len(outputs))
        if status != 0:
            raise ModelError(self._lib.mixprec_last_error().decode())
        return outputs


def _dtype_of(array):
    for code, numpy_type in dtypes.NUMPY.items():
        if array.dtype == numpy_type:
            return code
    return -1  # the library reports the mismatch, naming the argument
