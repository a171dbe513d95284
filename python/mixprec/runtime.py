"""Loading a compiled model and calling it through the C ABI."""
import ctypes
import math
import os
from dataclasses import dataclass

import numpy as np

from . import abi, dtypes, elf


class ModelError(RuntimeError):
    """A call the model rejected; the message is the library's, `status`
    its mixprec_status (DEVICE_ERROR for a GPU's fault, ...)."""

    INVALID_ARGUMENT = 1  # also a label or token id out of range
    NOT_FOUND = 2  # no function of that name
    INTERNAL = 3
    DEVICE_ERROR = 5

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class UnknownFunctionError(ModelError, KeyError):
    """A function name the model does not have; the message lists the ones
    it has. A KeyError too, as `model.functions[name]` raises it."""

    def __str__(self):
        return self.args[0]


class _Functions(dict):
    """The model's functions by name."""

    def __missing__(self, name):
        raise UnknownFunctionError(
            "no function named '%s'; the model has %s" % (
                name, ", ".join(sorted(self)) or "none"),
            ModelError.NOT_FOUND)


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
class StateSpec(TensorSpec):
    """A parameter or buffer of the model, what it holds ("parameter",
    "buffer", or the role of a train step's buffer: "step_count",
    "loss_scale", ..., abi.STATE_ROLES) and the train step that owns it
    (None for none)."""
    role: str
    step: object = None


@dataclass(frozen=True)
class Function:
    name: str
    inputs: tuple
    outputs: tuple


@dataclass(frozen=True)
class MemoryPlan:
    """Memory planned at compile time (docs/design.md §12), in bytes: a
    trainer's state, held once (0 for a function); the workspace of a
    call's temporaries; the host memory and, on CUDA, the device memory a
    train step (or a call) needs."""
    state_bytes: int
    workspace_bytes: int
    host_bytes: int
    device_bytes: int


def _memory_plan(raw):
    return MemoryPlan(raw.state_bytes, raw.workspace_bytes, raw.host_bytes,
                      raw.device_bytes)


def _spec(raw):
    shape = tuple(raw.shape[i] for i in range(raw.rank))
    return TensorSpec(raw.name.decode(), raw.dtype, shape)


def _role_name(value):
    if not 0 <= value < len(abi.STATE_ROLES):
        raise ModelError("the library gives a state role this package does "
                         "not know: %d" % value, ModelError.INTERNAL)
    return abi.STATE_ROLES[value]


class Model:
    """A compiled model library."""

    def __init__(self, path):
        given = os.fspath(path)
        # Absolute: dlopen reads a name without a slash as a library to
        # look for on the search path, not as a file in this directory.
        self.path = os.path.abspath(given)
        # dlopen faults (SIGBUS) on a file whose segments reach past its
        # end: the file is checked first.
        problem = elf.problem(self.path)
        if problem is not None:
            raise ModelError("%s: %s" % (given, problem),
                             ModelError.INVALID_ARGUMENT)
        try:
            # RTLD_LOCAL: every model exports the same ABI symbols.
            self._lib = ctypes.CDLL(self.path, mode=ctypes.RTLD_LOCAL)
        except OSError as error:
            raise ModelError(str(error), ModelError.INVALID_ARGUMENT) from None
        # Every call goes through the library's table of entry points,
        # whose prototypes abi.Api sets once.
        try:
            version, self._api = abi.load_api(self._lib)
        except AttributeError:
            raise ModelError("%s: not a mixprec model: missing symbol "
                             "mixprec_abi_version" % given,
                             ModelError.INVALID_ARGUMENT) from None
        if version != abi.API_VERSION:
            raise ModelError("%s: ABI version %d, expected %d" % (
                self.path, version, abi.API_VERSION))
        if self._api is None:
            raise ModelError("%s: not a mixprec model: no table of entry "
                             "points of version %d (mixprec_get_api)"
                             % (given, abi.API_VERSION),
                             ModelError.INVALID_ARGUMENT)
        api = self._api
        self.functions = _Functions()
        # Handles for mixprec_call_function, by name.
        self._handles = {}
        for i in range(self._count(api.mixprec_num_functions)):
            handle = ctypes.POINTER(abi.Function)()
            self._check(api.mixprec_function_at(i, ctypes.byref(handle)))
            raw = handle.contents
            function = Function(
                raw.name.decode(),
                tuple(_spec(raw.inputs[j]) for j in range(raw.num_inputs)),
                tuple(_spec(raw.outputs[j]) for j in range(raw.num_outputs)))
            self.functions[function.name] = function
            self._handles[function.name] = handle
        state = []
        for i in range(self._count(api.mixprec_num_states)):
            spec = ctypes.POINTER(abi.TensorSpec)()
            self._check(api.mixprec_state_at(i, ctypes.byref(spec)))
            role, step = abi.STATE_ROLE(), ctypes.c_char_p()
            self._check(api.mixprec_state_role_at(i, ctypes.byref(role),
                                                  ctypes.byref(step)))
            tensor = _spec(spec.contents)
            state.append(StateSpec(
                tensor.name, tensor.dtype, tensor.shape,
                _role_name(role.value),
                step.value.decode() if step.value is not None else None))
        self.state = tuple(state)

    def _count(self, entry_point):
        count = ctypes.c_int32()
        self._check(entry_point(ctypes.byref(count)))
        return count.value

    def _check(self, status):
        if status != 0:
            raise ModelError(self._api.mixprec_last_error().decode(), status)

    def function(self, name):
        """The function `name`; a ModelError listing the model's functions
        when there is none."""
        return self.functions[name]

    def device_memory(self):
        """(current, peak): the bytes of device memory a CUDA model holds
        now and the most it held since it was loaded. Raises ModelError for
        a CPU model."""
        current, peak = ctypes.c_int64(), ctypes.c_int64()
        self._check(self._api.mixprec_device_memory(ctypes.byref(current),
                                                    ctypes.byref(peak)))
        return current.value, peak.value

    @property
    def num_threads(self):
        """The threads this CPU model's calls run on (MIXPREC_NUM_THREADS,
        else the CPUs the process may use, until set). Every count gives
        the same bits."""
        count = ctypes.c_int32()
        self._check(self._api.mixprec_num_threads(ctypes.byref(count)))
        return count.value

    @num_threads.setter
    def num_threads(self, count):
        self._check(self._api.mixprec_set_num_threads(int(count)))

    def function_memory(self, name):
        """The `MemoryPlan` of a call of `name`: its workspace, and on CUDA
        the device memory the call holds."""
        self.function(name)
        plan = abi.MemoryPlan()
        self._check(self._api.mixprec_function_memory(self._handles[name],
                                                      ctypes.byref(plan)))
        return _memory_plan(plan)

    def trainer(self, step="train", seed=0):
        """A `Trainer` for the train step `step`, its state initialized
        from the model's initializers."""
        return Trainer(self, step, seed)

    def call(self, name, inputs, outputs=None):
        """Runs `name` on the numpy arrays `inputs` and returns its outputs.

        Inputs are passed as they are (no conversion): a wrong dtype or
        shape is reported by the library, naming the argument. Outputs are
        allocated here unless given."""
        function = self.function(name)
        if outputs is None:
            outputs = [np.empty(spec.shape, spec.numpy_dtype)
                       for spec in function.outputs]
        # Not np.ascontiguousarray: it makes 0-d arrays 1-d.
        inputs = [np.asarray(a, order="C") for a in inputs]
        outputs = list(outputs)
        keep_alive = []
        self._check(self._api.mixprec_call_function(
            self._handles[name],
            _tensors(inputs, keep_alive, _labels(name, "input",
                                                 function.inputs)),
            len(inputs),
            _tensors(outputs, keep_alive, _labels(name, "output",
                                                  function.outputs)),
            len(outputs)))
        return outputs


def _labels(function, role, specs, indices=None):
    """(what, spec) for each array a caller passes for `specs`, as the
    library names them: "loss: input 5 ('labels')"; `indices` are the
    specs' positions in the function's signature when they are a subset."""
    indices = range(len(specs)) if indices is None else indices
    return [("%s: %s %d ('%s')" % (function, role, index, spec.name), spec)
            for index, spec in zip(indices, specs)]


def _tensors(arrays, keep_alive, labels=()):
    """A C array of mixprec_tensor over `arrays`; the shapes it points at
    are appended to `keep_alive`. `labels` are (what, spec) of the arrays
    the model expects: one whose dtype the ABI lacks (f64, i8, ...) is
    reported here as the library reports a wrong type."""
    result = (abi.Tensor * max(len(arrays), 1))()
    for i, array in enumerate(arrays):
        code = _dtype_of(array)
        if code < 0:
            got = dtypes.type_text(dtypes.numpy_name(array.dtype),
                                   array.shape)
            if i < len(labels):
                what, spec = labels[i]
                raise ModelError("%s must be %s, got %s" % (
                    what, dtypes.type_text(dtypes.NAMES[spec.dtype],
                                           spec.shape), got),
                    ModelError.INVALID_ARGUMENT)
            raise ModelError("array %d is %s; the model ABI has f32, f16, "
                             "bf16 (as uint16), i32, i64 and bool" % (i, got),
                             ModelError.INVALID_ARGUMENT)
        if not array.flags.c_contiguous:
            raise ModelError("array %d is not contiguous" % i)
        shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        keep_alive.append(shape)
        result[i] = abi.Tensor(array.ctypes.data, code, array.ndim, shape)
    return result


class Trainer:
    """The model's state, owned by the library (mixprec_trainer_*), threaded
    through a compiled train step."""

    def __init__(self, model, step, seed):
        self.model = model
        self._api = model._api
        self.function = model.function(step)
        self.state = {spec.name: spec for spec in model.state}
        self._handle = ctypes.c_void_p()
        model._check(self._api.mixprec_trainer_create(
            step.encode(), seed, ctypes.byref(self._handle)))

    def __del__(self):
        if getattr(self, "_handle", None):
            self._api.mixprec_trainer_destroy(self._handle)
            self._handle = None

    def _scalar(self, getter, ctype):
        """The trainer's scalar that `getter` (an entry point) reads."""
        value = ctype()
        self.model._check(getter(self._handle, ctypes.byref(value)))
        return value.value

    def _caller_inputs(self, function, train_step):
        """(index, spec) of the inputs of `function` a caller passes: all
        but the state, the RNG state and a train step's learning rate."""
        last = len(function.inputs) - 1 if train_step else None
        return [(i, spec) for i, spec in enumerate(function.inputs)
                if spec.name != "rng_state" and spec.name not in self.state
                and i != last]

    def step(self, batch, lr):
        """One optimizer step on `batch` (a list of arrays); the loss.

        `lr` must be a number that is finite and >= 0 in f32 (1e39 is
        not): a NaN, infinite or negative learning rate would silently
        destroy the weights, so it is refused (ModelError) and the state is
        left as it was."""
        lr = float(lr)
        if not (lr >= 0 and math.isfinite(ctypes.c_float(lr).value)):
            raise ModelError("%s: the learning rate must be finite and >= 0 "
                             "(in f32), got %r" % (self.function.name, lr),
                             ModelError.INVALID_ARGUMENT)
        batch = [np.asarray(a, order="C") for a in batch]
        caller = self._caller_inputs(self.function, True)
        labels = _labels(self.function.name, "input",
                         [spec for _, spec in caller], [i for i, _ in caller])
        keep_alive, loss = [], ctypes.c_float()
        self.model._check(self._api.mixprec_trainer_step(
            self._handle, _tensors(batch, keep_alive, labels), len(batch), lr,
            ctypes.byref(loss)))
        return loss.value

    @property
    def memory_plan(self):
        """The `MemoryPlan` of the trainer's steps: its state, held once,
        the step's workspace, and the host (and on CUDA device) memory a
        step needs in all, as planned at compile time."""
        plan = abi.MemoryPlan()
        self.model._check(self._api.mixprec_trainer_memory(
            self._handle, ctypes.byref(plan)))
        return _memory_plan(plan)

    @property
    def step_count(self):
        return self._scalar(self._api.mixprec_trainer_step_count,
                            ctypes.c_int64)

    @property
    def loss_scale(self):
        """The scale the next step uses (1.0 without loss scaling)."""
        return self._scalar(self._api.mixprec_trainer_loss_scale,
                            ctypes.c_float)

    @property
    def skipped(self):
        """Whether the last step was skipped (a gradient was not finite)."""
        return bool(self._scalar(self._api.mixprec_trainer_skipped,
                                 ctypes.c_int32))

    @property
    def skipped_steps(self):
        return self._scalar(self._api.mixprec_trainer_skipped_steps,
                            ctypes.c_int64)

    @property
    def nonfinite_parameters(self):
        """The parameters whose gradients had an Inf or NaN last step."""
        names = []
        while True:
            name = ctypes.c_char_p()
            self.model._check(self._api.mixprec_trainer_nonfinite_parameter(
                self._handle, len(names), ctypes.byref(name)))
            if name.value is None:
                return names
            names.append(name.value.decode())

    def save(self, path):
        """Writes a checkpoint atomically (temporary file, fsync, rename)."""
        self.model._check(self._api.mixprec_trainer_save(
            self._handle, str(path).encode()))

    def load(self, path):
        """Restores a checkpoint; a bad file raises and changes nothing."""
        self.model._check(self._api.mixprec_trainer_load(
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
        self.model._check(self._api.mixprec_trainer_get(
            self._handle, name.encode(), _tensors([out], [])))
        return out

    def set(self, name, value):
        value = np.asarray(value, order="C")
        keep_alive = []
        labels = [("value ('%s')" % name, self._spec(name))]
        self.model._check(self._api.mixprec_trainer_set(
            self._handle, name.encode(),
            _tensors([value], keep_alive, labels)))

    def evaluate(self, function, inputs):
        """Runs `function` on the trainer's state and on `inputs`, whose
        dim 0 is any number of rows; returns its outputs with as many rows."""
        spec = self.model.function(function)
        inputs = [np.asarray(a, order="C") for a in inputs]
        # The rows of the first batched input; the library checks the rest.
        rows = next((a.shape[0] for a in inputs if a.ndim > 0), 0)
        outputs = [np.empty((rows,) + tuple(s.shape[1:]), s.numpy_dtype)
                   for s in spec.outputs]
        labels = [("input ('%s')" % s.name,
                   TensorSpec(s.name, s.dtype, ("%d (rows)" % rows,) +
                              tuple(s.shape[1:]) if s.shape else ()))
                  for _, s in self._caller_inputs(spec, False)]
        keep_alive = []
        self.model._check(self._api.mixprec_trainer_evaluate(
            self._handle, function.encode(), rows,
            _tensors(inputs, keep_alive, labels), len(inputs),
            _tensors(outputs, keep_alive), len(outputs)))
        return outputs


def _dtype_of(array):
    for code, numpy_type in dtypes.NUMPY.items():
        if array.dtype == numpy_type:
            return code
    return -1  # not an ABI dtype: _tensors reports it
