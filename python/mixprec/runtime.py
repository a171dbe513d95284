"""Loading a compiled model and calling it through the C ABI."""
import ctypes
from dataclasses import dataclass

import numpy as np

from . import dtypes

ABI_VERSION = 2


class ModelError(RuntimeError):
    """A call the model rejected; the message is the library's, `status`
    its mixprec_status (DEVICE_ERROR for a GPU's fault, ...)."""

    INVALID_ARGUMENT = 1  # also a label or token id out of range
    DEVICE_ERROR = 5

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


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
        lib.mixprec_state_at.restype = ctypes.POINTER(_TensorSpec)
        lib.mixprec_state_at.argtypes = [ctypes.c_int32]
        self.state = tuple(_spec(lib.mixprec_state_at(i).contents)
                           for i in range(lib.mixprec_num_states()))

    def _check(self, status):
        if status != 0:
            raise ModelError(self._lib.mixprec_last_error().decode(), status)

    def device_memory(self):
        """(current, peak): the bytes of device memory a CUDA model holds
        now and the most it held since it was loaded. Raises ModelError for
        a CPU model."""
        function = self._lib.mixprec_device_memory
        function.restype = ctypes.c_int
        function.argtypes = [ctypes.POINTER(ctypes.c_int64)] * 2
        current, peak = ctypes.c_int64(), ctypes.c_int64()
        self._check(function(ctypes.byref(current), ctypes.byref(peak)))
        return current.value, peak.value

    def trainer(self, step="train", seed=0):
        """A `Trainer` for the train step `step`, its state initialized
        from the model's initializers."""
        return Trainer(self, step, seed)

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
        self._check(self._lib.mixprec_call(
            name.encode(), _tensors(inputs, keep_alive), len(inputs),
            _tensors(outputs, keep_alive), len(outputs)))
        return outputs


def _tensors(arrays, keep_alive):
    """A C array of mixprec_tensor over `arrays`; the shapes it points at
    are appended to `keep_alive`."""
    result = (_Tensor * max(len(arrays), 1))()
    for i, array in enumerate(arrays):
        if not array.flags.c_contiguous:
            raise ModelError("array %d is not contiguous" % i)
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        keep_alive.append(shape)
        result[i] = _Tensor(array.ctypes.data, _dtype_of(array), array.ndim,
                            shape)
    return result


class Trainer:
    """The model's state, owned by the library (mixprec_trainer_*), threaded
    through a compiled train step."""

    def __init__(self, model, step, seed):
        lib = model._lib
        lib.mixprec_trainer_create.argtypes = [
            ctypes.c_char_p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p)]
        lib.mixprec_trainer_destroy.argtypes = [ctypes.c_void_p]
        lib.mixprec_trainer_step.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(_Tensor), ctypes.c_int32,
            ctypes.c_float, ctypes.POINTER(ctypes.c_float)]
        for name, restype in (("step_count", ctypes.c_int64),
                              ("loss_scale", ctypes.c_float),
                              ("skipped", ctypes.c_int32),
                              ("skipped_steps", ctypes.c_int64)):
            function = getattr(lib, "mixprec_trainer_" + name)
            function.argtypes = [ctypes.c_void_p]
            function.restype = restype
        lib.mixprec_trainer_nonfinite_parameter.argtypes = [ctypes.c_void_p,
                                                            ctypes.c_int32]
        lib.mixprec_trainer_nonfinite_parameter.restype = ctypes.c_char_p
        for name in ("mixprec_trainer_save", "mixprec_trainer_load"):
            getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        for name in ("mixprec_trainer_get", "mixprec_trainer_set"):
            getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                           ctypes.POINTER(_Tensor)]
        lib.mixprec_trainer_evaluate.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64,
            ctypes.POINTER(_Tensor), ctypes.c_int32, ctypes.POINTER(_Tensor),
            ctypes.c_int32]
        self.model = model
        self.function = model.functions.get(step)
        self.state = {spec.name: spec for spec in model.state}
        self._handle = ctypes.c_void_p()
        model._check(lib.mixprec_trainer_create(step.encode(), seed,
                                                ctypes.byref(self._handle)))

    def __del__(self):
        if getattr(self, "_handle", None):
            self.model._lib.mixprec_trainer_destroy(self._handle)
            self._handle = None

    def step(self, batch, lr):
        """One optimizer step on `batch` (a list of arrays); the loss."""
        batch = [np.asarray(a, order="C") for a in batch]
        keep_alive, loss = [], ctypes.c_float()
        self.model._check(self.model._lib.mixprec_trainer_step(
            self._handle, _tensors(batch, keep_alive), len(batch), lr,
            ctypes.byref(loss)))
        return loss.value

    @property
    def step_count(self):
        return self.model._lib.mixprec_trainer_step_count(self._handle)

    @property
    def loss_scale(self):
        """The scale the next step uses (1.0 without loss scaling)."""
        return self.model._lib.mixprec_trainer_loss_scale(self._handle)

    @property
    def skipped(self):
        """Whether the last step was skipped (a gradient was not finite)."""
        return bool(self.model._lib.mixprec_trainer_skipped(self._handle))

    @property
    def skipped_steps(self):
        return self.model._lib.mixprec_trainer_skipped_steps(self._handle)

    @property
    def nonfinite_parameters(self):
        """The parameters whose gradients had an Inf or NaN last step."""
        names, lib = [], self.model._lib
        while True:
            name = lib.mixprec_trainer_nonfinite_parameter(self._handle,
                                                           len(names))
            if name is None:
                return names
            names.append(name.decode())

    def save(self, path):
        """Writes a checkpoint atomically (temporary file, fsync, rename)."""
        self.model._check(self.model._lib.mixprec_trainer_save(
            self._handle, str(path).encode()))

    def load(self, path):
        """Restores a checkpoint; a bad file raises and changes nothing."""
        self.model._check(self.model._lib.mixprec_trainer_load(
            self._handle, str(path).encode()))

    def _spec(self, name):
        if name == "rng_state":
            return TensorSpec(name, dtypes.I64, (2,))
        if name not in self.state:
            raise ModelError("no parameter or buffer named '%s'" % name)
        return self.state[name]

    def get(self, name):
        """A copy of the parameter or buffer `name` (or "rng_state")."""
        spec = self._spec(name)
        out = np.empty(spec.shape, spec.numpy_dtype)
        self.model._check(self.model._lib.mixprec_trainer_get(
            self._handle, name.encode(), _tensors([out], [])))
        return out

    def set(self, name, value):
        value = np.asarray(value, order="C")
        keep_alive = []
        self.model._check(self.model._lib.mixprec_trainer_set(
            self._handle, name.encode(), _tensors([value], keep_alive)))

    def evaluate(self, function, inputs):
        """Runs `function` on the trainer's state and on `inputs`, whose
        dim 0 is any number of rows; returns its outputs with as many rows."""
        spec = self.model.functions[function]
        inputs = [np.asarray(a, order="C") for a in inputs]
        rows = inputs[0].shape[0]
        outputs = [np.empty((rows,) + tuple(s.shape[1:]), s.numpy_dtype)
                   for s in spec.outputs]
        keep_alive = []
        self.model._check(self.model._lib.mixprec_trainer_evaluate(
            self._handle, function.encode(), rows,
            _tensors(inputs, keep_alive), len(inputs),
            _tensors(outputs, keep_alive), len(outputs)))
        return outputs


def _dtype_of(array):
    for code, numpy_type in dtypes.NUMPY.items():
        if array.dtype == numpy_type:
            return code
    return -1  # the library reports the mismatch, naming the argument
