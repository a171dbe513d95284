"""mpt.compile and the Trainer: a PyTorch module trained by a compiled
mixprec train step, with PyTorch's names for its state."""
import collections
import ctypes
import gc
import re

import numpy as np
import torch

from .. import compiler, dtypes
from .errors import UnsupportedError
from .importer import import_model

PRECISIONS = {"fp32": None, "f16": "f16", "bf16": "bf16"}
TARGETS = ("cpu", "cuda")


def _to_numpy(tensor):
    """A torch tensor or array as the ABI's numpy array (bf16 as bits)."""
    if isinstance(tensor, torch.Tensor):
        tensor = tensor.detach().cpu().contiguous()
        if tensor.dtype == torch.bfloat16:
            return tensor.view(torch.int16).numpy().view(np.uint16)
        return tensor.numpy()
    # Not np.ascontiguousarray: it makes a 0-d array 1-d.
    return np.asarray(tensor, order="C")


def _to_torch(array, dtype):
    """An ABI array (bf16 as bits) as a torch tensor of its shape."""
    array = np.asarray(array, order="C")
    if dtype == torch.bfloat16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array).to(dtype)


_TORCH_OF_NUMPY = {np.dtype(np.float32): torch.float32,
                   np.dtype(np.float16): torch.float16,
                   np.dtype(np.int32): torch.int32,
                   np.dtype(np.int64): torch.int64,
                   np.dtype(np.bool_): torch.bool}


def _dtype_of(value):
    if isinstance(value, torch.Tensor):
        return value.dtype
    dtype = np.asarray(value).dtype
    return _TORCH_OF_NUMPY.get(dtype, dtype)


def _options(precision, target, arch, amp_options, compile_options,
             memory_budget=None):
    if memory_budget is not None and (
            isinstance(memory_budget, bool) or
            not isinstance(memory_budget, int) or memory_budget <= 0):
        raise ValueError("memory_budget must be a number of bytes > 0, "
                         "got %r" % (memory_budget,))
    if precision not in PRECISIONS:
        raise ValueError("precision must be one of %s, got %r" % (
            ", ".join(PRECISIONS), precision))
    if target not in TARGETS:
        raise ValueError("target must be 'cpu' or 'cuda', got %r" % (target,))
    if PRECISIONS[precision] is None:
        if amp_options:
            raise ValueError("amp_options need precision='f16' or 'bf16'")
        options = ["--autodiff"]
    else:
        options = ["--amp=precision=%s %s" % (PRECISIONS[precision],
                                              amp_options or "")]
    if target == "cuda":
        options += ["--target=cuda", "--arch=%s" % (arch or "sm_80")]
    elif arch:
        raise ValueError("arch=%r is for target='cuda'; target='cpu' takes "
                         "no arch" % (arch,))
    if memory_budget is not None:
        options.append("--memory-budget=%d" % memory_budget)
    return options + compiler._option_list(compile_options or ())


def compile(model, loss_fn, example_batch, optimizer, precision="fp32",
            target="cpu", arch=None, amp_options=None, compile_options=None,
            memory_budget=None, num_threads=None):
    """Imports `model` with `loss_fn(model, *batch)` and `optimizer` and
    compiles its train step; returns a Trainer that starts from the
    module's current parameters and the optimizer's current state.

    `memory_budget` (bytes) bounds what a train step holds as its memory
    plan counts it (`Trainer.memory_plan`): the compiler recomputes
    forward values in the backward until the plan fits, with the same
    losses and state as without a budget, or raises CompileError with the
    smallest peak it can reach.

    `num_threads` sets the threads the compiled library runs on
    (`Model.num_threads`; default: MIXPREC_NUM_THREADS, else the CPUs the
    process may use). Losses and state are the same bits for every count."""
    options = _options(precision, target, arch, amp_options, compile_options,
                       memory_budget)
    imported = import_model(model, loss_fn, example_batch, optimizer)
    _return_freed_memory()
    library = compiler.compile_source(imported.text, options=options)
    if num_threads is not None:
        library.num_threads = num_threads
    if memory_budget is not None:
        library = _within_budget(library, imported.text, options,
                                 memory_budget)
    return Trainer(model, imported, library, precision)


def _within_budget(library, text, options, memory_budget):
    """`library`, or one compiled with a smaller --memory-budget, whose
    trainer's memory plan is within `memory_budget`. The compiler's budget
    counts a call's inputs (the batch too), outputs and workspace; a
    trainer's plan counts its state, workspace and, on the CPU, the
    runtime's per-thread contraction buffers. The compiler's budget is
    moved by that difference, taken from `library`."""
    def held(library):
        # On CUDA what a step holds is device memory.
        plan = library.trainer("train").memory_plan
        return plan.device_bytes or plan.host_bytes

    def compiled_peak(library):
        # Outputs named as inputs are the state, updated in place.
        function = library.function("train")
        inputs = {spec.name for spec in function.inputs}
        tensors = function.inputs + tuple(
            spec for spec in function.outputs if spec.name not in inputs)
        return library.function_memory("train").workspace_bytes + sum(
            int(np.prod(spec.shape)) * np.dtype(spec.numpy_dtype).itemsize
            for spec in tensors)

    first = held(library)
    if first <= memory_budget:
        return library
    beside = first - compiled_peak(library)
    if beside <= 0:
        # The compiler's plan itself exceeds the budget: it was not met.
        raise compiler.CompileError(
            "the train step's memory plan holds %d bytes, more than "
            "memory_budget=%d; give a larger budget" % (first, memory_budget))
    lowered = [option for option in options
               if not option.startswith("--memory-budget=")]
    lowered.append("--memory-budget=%d" % max(1, memory_budget - beside))
    try:
        bounded = compiler.compile_source(text, options=lowered)
    except compiler.CompileError as error:
        least = re.search(r"a train step needs (\d+) bytes at its peak",
                          str(error))
        if not least:
            raise
        raise compiler.CompileError(
            "a train step needs %d bytes at its peak, more than "
            "memory_budget=%d: %s as the compiler plans a call with the "
            "forward values recomputed in the backward that lower it, and "
            "%d the trainer holds besides (the runtime's per-thread "
            "contraction buffers, less the batch); give a budget of at least "
            "that, or train on smaller batches" % (
                int(least.group(1)) + beside, memory_budget,
                least.group(1), beside)) from None
    bounded.num_threads = library.num_threads
    if held(bounded) > memory_budget:
        raise compiler.CompileError(
            "the train step's memory plan holds %d bytes, more than "
            "memory_budget=%d, though the compiler's plan is within %d; give "
            "a larger budget" % (held(bounded), memory_budget,
                                 memory_budget - beside))
    return bounded


def _return_freed_memory():
    """Gives back to the system the memory the import's runs of the module
    used: its example tensors, some held by reference cycles until the
    cyclic collector runs, and the heap glibc keeps after they are freed,
    which would otherwise stay resident for the whole training (elsewhere,
    without malloc_trim, only the collection is done)."""
    gc.collect()
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is not None:
        trim.argtypes = [ctypes.c_size_t]
        trim(0)


class Trainer:
    """A compiled train step of `module`. Its state lives in the library;
    `state_dict()` gives it back under the module's names."""

    def __init__(self, module, imported, library, precision):
        self.module = module
        self.precision = precision
        self.library = library
        self.text = imported.text  # the imported model, in the dialect
        self._imported = imported
        self._optimizer = imported.optimizer
        self._trainer = library.trainer("train")
        self._state = {n: t for n, t in module.state_dict(
            keep_vars=True).items()}
        # state_dict keys of one shared tensor read under its first name.
        canonical = {}
        for key, tensor in self._state.items():
            canonical.setdefault(id(tensor), key)
        self._names = {key: canonical[id(t)] for key, t in self._state.items()}
        self._held = set(imported.parameters) | set(imported.buffers)
        # Non-persistent buffers are not in the state dict but are state.
        tensors = dict(module.named_buffers())
        tensors.update(module.named_parameters())
        for name in self._held:
            self._trainer.set(name, _to_numpy(tensors[name]))
        self._parameter_names = {id(p): n for n, p in
                                 module.named_parameters()}
        for name, value in self._optimizer.initial_state(
                self._parameter_names, set(imported.parameters)).items():
            self._trainer.set(name, _to_numpy(value))

    def _batch(self, batch, expected, what):
        """`batch` as the ABI's arrays, after checking it against the
        compiled (dtype, shape)s: a step takes exactly the example batch's
        shapes, forward any number of rows."""
        noun = "batch tensor" if what == "step" else "input"
        if len(batch) != len(expected):
            raise ValueError("%s takes %d tensors, got %d" % (
                what, len(expected), len(batch)))
        arrays = []
        for index, (value, (dtype, shape)) in enumerate(zip(batch, expected)):
            if not isinstance(value, (torch.Tensor, np.ndarray)):
                value = torch.as_tensor(value)  # as the example batch was
            got_dtype = _dtype_of(value)
            got_shape = tuple(np.shape(value))
            if what == "step" or what == "forward of this module":
                fits = got_shape == shape
                compiled = "%s%s" % (dtype, list(shape))
            else:
                fits = got_shape[1:] == shape[1:] and len(got_shape) > 0
                compiled = "%s[rows, %s]" % (
                    dtype, ", ".join(str(d) for d in shape[1:]))
            if got_dtype != dtype or not fits:
                hint = ""
                if what == "step" and got_shape[:1] != shape[:1]:
                    hint = ("; the last batch of a DataLoader is smaller "
                            "unless drop_last=True")
                elif what == "forward of this module":
                    hint = ("; its forward mixes the rows of dim 0 (a "
                            "sequence-first input, or a statistic over the "
                            "batch), so it runs on the compiled shape only")
                raise ValueError(
                    "%s: %s %d is %s%s, the model was compiled for %s%s" % (
                        what, noun, index, got_dtype, list(got_shape),
                        compiled, hint))
            arrays.append(_to_numpy(value))
        return arrays

    def step(self, *batch):
        """One optimizer step on `batch` (torch tensors or numpy arrays of
        the example batch's shapes and dtypes) at the optimizer's current
        learning rate; returns the loss as a float."""
        arrays = self._batch(batch, self._imported.batch, "step")
        loss = self._trainer.step(arrays, self._optimizer.learning_rate())
        optimizer = self._optimizer.optimizer
        # lr_scheduler warns unless the optimizer counts its steps.
        if hasattr(optimizer, "_step_count"):
            optimizer._step_count += 1
        return loss

    def forward(self, *inputs):
        """The module's forward in eval mode (no dropout, batch norm on
        its running statistics) on any number of rows; on exactly the
        compiled shapes when its rows are not independent (dim 0 is a
        sequence, or the forward takes a statistic over the batch)."""
        if self._imported.forward_inputs is None:
            raise UnsupportedError(
                "trainer.forward", reason="loss_fn does not call the model "
                "with tensors, so its forward was not imported")
        what = "forward"
        if not self._imported.forward_rows_independent:
            # Its rows cannot run in chunks: dim 0 is not a batch dim.
            what = "forward of this module"
        arrays = self._batch(inputs, self._imported.forward_inputs, what)
        if self._imported.forward_rows_independent:
            outputs = self._trainer.evaluate("forward", arrays)
        else:
            outputs = self._call_forward(arrays)
        specs = self.library.function("forward").outputs
        results = [_to_torch(o, _torch_dtype(s.dtype))
                   for o, s in zip(outputs, specs)]
        keys = self._imported.forward_output_keys
        if keys is not None:
            return dict(zip(keys, results))
        return results[0] if len(results) == 1 else tuple(results)

    def _call_forward(self, arrays):
        """@forward on the trainer's state and `arrays`, at the compiled
        shapes (mixprec_trainer_evaluate splits rows)."""
        caller = iter(arrays)
        state = self._trainer.state
        inputs = [self._trainer.get(spec.name) if spec.name in state
                  else next(caller)
                  for spec in self.library.function("forward").inputs]
        return self.library.call("forward", inputs)

    def state_dict(self):
        """The module's state_dict with the trained values (torch
        tensors); load it with module.load_state_dict(..., strict=True)."""
        result = collections.OrderedDict()
        for key, tensor in self._state.items():
            name = self._names[key]
            if name in self._held:
                result[key] = _to_torch(self._trainer.get(name), tensor.dtype)
            else:
                result[key] = tensor.detach().clone()
        return result

    def optimizer_state_dict(self):
        """The optimizer's state dict with the trained moments and step
        count, in PyTorch's format: `optimizer.load_state_dict(...)` lets
        torch.optim continue where the trainer is."""
        def read(name):
            return torch.from_numpy(self._trainer.get(name).copy())

        return self._optimizer.state_dict(self._parameter_names, read,
                                          set(self._imported.parameters))

    def load_state_dict(self, state_dict):
        """Sets the trained state from a state dict of the module (its
        tensors converted to the module's dtypes, as PyTorch does); one
        that does not fit changes nothing."""
        missing = [k for k in self._state if k not in state_dict]
        unexpected = [k for k in state_dict if k not in self._state]
        if missing or unexpected:
            raise KeyError("state dict does not match the module: missing "
                           "%s, unexpected %s" % (missing, unexpected))
        values = {}
        for key, tensor in self._state.items():
            name = self._names[key]
            value = torch.as_tensor(state_dict[key])
            if value.shape != tensor.shape:
                raise ValueError(
                    "state dict: '%s' has shape %s, the module's has %s" % (
                        key, list(value.shape), list(tensor.shape)))
            if name not in self._held:
                # Not state of the library: folded into it as a constant
                # or not used; a new value could not take effect.
                if not torch.equal(value.to(tensor.dtype), tensor.detach()):
                    raise ValueError(
                        "state dict: '%s' is not state of the compiled "
                        "model (a buffer compiled in as a constant, or "
                        "unused), so its value cannot change; compile "
                        "again to use the new value" % key)
                continue
            # Tied keys: the last one wins, as in module.load_state_dict.
            values[name] = _to_numpy(value.to(tensor.dtype))
        for name, value in values.items():
            self._trainer.set(name, value)

    def save(self, path):
        """An atomic checkpoint of the whole state (parameters, buffers,
        moments, step count, loss scale)."""
        self._trainer.save(path)

    def load(self, path):
        """Restores a checkpoint of save(); a bad file changes nothing."""
        self._trainer.load(path)

    loss_scale = property(
        lambda self: self._trainer.loss_scale,
        doc="The scale the next step uses (1.0 without loss scaling).")
    skipped = property(lambda self: self._trainer.skipped,
                       doc="Whether the last step was skipped.")
    skipped_steps = property(lambda self: self._trainer.skipped_steps,
                             doc="How many steps were skipped so far.")
    step_count = property(lambda self: self._trainer.step_count,
                          doc="How many steps were taken (not skipped).")
    nonfinite_parameters = property(
        lambda self: self._trainer.nonfinite_parameters,
        doc="The module's parameters whose gradients had an Inf or NaN in "
        "the last step.")
    memory_plan = property(
        lambda self: self._trainer.memory_plan,
        doc="The memory a train step needs, planned at compile time "
        "(mixprec.MemoryPlan: state_bytes, workspace_bytes, host_bytes, "
        "device_bytes): known before the first step.")


def _torch_dtype(code):
    return {dtypes.F32: torch.float32, dtypes.F16: torch.float16,
            dtypes.BF16: torch.bfloat16, dtypes.I32: torch.int32,
            dtypes.I64: torch.int64, dtypes.BOOL: torch.bool}[code]
