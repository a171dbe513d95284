"""A PyTorch module, its loss and its optimizer as a mixprec model: the
parameters and buffers, `@loss` (train mode), `@forward` (eval mode) and
the train step."""
import copy
from dataclasses import dataclass, field

import torch
from torch import nn

# Registers every lowering.
from . import attention, functions, losses, modules, recurrent  # noqa: F401
from .emitter import MLIR_TYPES, symbol, tensor_type
from .errors import UnsupportedError
from .lowering import Lowering, StateTable
from .optimizers import STEP, Translation
from .tracing import returned_line, trace_loss


@dataclass
class ImportedModel:
    """The model text and what the trainer needs to map its state back to
    the user's module."""
    text: str
    parameters: list  # trained parameters, by module name
    buffers: list  # other state the functions read or update
    optimizer: Translation
    batch: list  # (dtype, shape) of each batch tensor
    forward_inputs: list = field(default_factory=list)  # None: no @forward
    # Whether the forward treats dim 0 as independent rows, so that it may
    # run on any number of them (not so for a sequence-first transformer or
    # a statistic over the batch).
    forward_rows_independent: bool = False
    forward_output_keys: list = None  # a forward that returns a dict


def _check_module(model):
    if not isinstance(model, nn.Module):
        raise UnsupportedError("a model of type %s" % type(model).__name__,
                               reason="mpt.compile takes an nn.Module")
    for name, parameter in model.named_parameters():
        if parameter.dtype != torch.float32:
            raise UnsupportedError(
                "the %s parameter '%s'" % (parameter.dtype, name),
                reason="parameters must be float32 (mixprec keeps FP32 "
                "master weights and chooses 16-bit copies itself)")


class ModelCall:
    """How `loss_fn` called the model: its arguments with each tensor
    replaced by a slot, so that the forward can be traced and run on other
    tensors of those types, called exactly as the loss function calls it
    (keyword arguments and non-tensor arguments included)."""

    def __init__(self, args, kwargs):
        self.tensors = [a.detach().clone() for a in list(args) +
                        list(kwargs.values()) if isinstance(a, torch.Tensor)]
        slot = iter(range(len(self.tensors)))
        self._args = [_Slot(next(slot)) if isinstance(a, torch.Tensor) else a
                      for a in args]
        self._kwargs = {k: _Slot(next(slot)) if isinstance(v, torch.Tensor)
                        else v for k, v in kwargs.items()}

    def __call__(self, model, *tensors):
        def fill(value):
            return tensors[value.index] if isinstance(value, _Slot) else value
        return model(*[fill(a) for a in self._args],
                     **{k: fill(v) for k, v in self._kwargs.items()})


class _Slot:
    def __init__(self, index):
        self.index = index


def _record_call(model, loss_fn, batch):
    """The first call of the model's forward by `loss_fn` (None when it
    does not call the model itself)."""
    calls = []
    original = model.forward

    def recording(*args, **kwargs):
        if not calls:
            calls.append(ModelCall(args, kwargs))
        return original(*args, **kwargs)

    model.forward = recording  # the instance's forward, called by __call__
    try:
        with _eager():
            loss_fn(model, *batch)
    finally:
        del model.forward
    return calls[0] if calls else None


def _eager():
    """Gradients on for the eager runs: PyTorch 1.13 takes attention's
    fast path without them, which fails on nn.MultiheadAttention without
    bias. The runs are on copies; their graphs are dropped with them."""
    return torch.enable_grad()


def _copy(model):
    try:
        return copy.deepcopy(model)
    except Exception as error:  # e.g. weight_norm's non-leaf attributes
        raise UnsupportedError(
            "a model that copy.deepcopy cannot copy (%s)" %
            type(error).__name__, reason=str(error).splitlines()[0]) from None


def _output_keys(outputs):
    """The keys of a forward that returns a dict (None otherwise)."""
    return list(outputs) if isinstance(outputs, dict) else None


def _flat(outputs):
    if isinstance(outputs, torch.Tensor):
        return [outputs]
    if isinstance(outputs, (tuple, list)):
        return [t for item in outputs for t in _flat(item)]
    if isinstance(outputs, dict):
        return [t for item in outputs.values() for t in _flat(item)]
    return [outputs]


def _rows_independent(model, call):
    """Whether the eval-mode forward of `model` on the call's tensors
    equals its forward on the first half of their rows joined with its
    forward on the rest: then dim 0 holds independent rows."""
    inputs = call.tensors
    rows = inputs[0].shape[0] if inputs and inputs[0].dim() else 0
    if rows < 2 or any(t.dim() == 0 or t.shape[0] != rows for t in inputs):
        return False
    half = rows // 2
    evaluated = _copy(model).eval()
    try:
        with _eager():
            whole = _flat(call(evaluated, *inputs))
            first = _flat(call(evaluated, *[t[:half] for t in inputs]))
            rest = _flat(call(evaluated, *[t[half:] for t in inputs]))
        whole, first, rest = ([t.detach() if isinstance(t, torch.Tensor)
                               else t for t in outputs]
                              for outputs in (whole, first, rest))
    except Exception:  # a forward that only takes its own batch size
        return False
    if not all(isinstance(t, torch.Tensor) for t in whole + first + rest):
        return False
    if not len(whole) == len(first) == len(rest):
        return False
    for w, a, b in zip(whole, first, rest):
        if w.dim() == 0 or w.shape[0] != rows:
            return False
        joined = torch.cat([a, b])
        if joined.shape != w.shape or not torch.allclose(
                joined.double(), w.double(), rtol=1e-4, atol=1e-5,
                equal_nan=True):
            return False
    return True


def _example_tensors(example_batch):
    if not isinstance(example_batch, (tuple, list)):
        raise ValueError("example_batch is a tuple of the loss function's "
                         "batch tensors, e.g. (x, y); got %s" %
                         type(example_batch).__name__)
    tensors = []
    for index, value in enumerate(example_batch):
        try:
            tensors.append(torch.as_tensor(value))
        except (TypeError, RuntimeError, ValueError):
            raise ValueError("example_batch[%d] is not a tensor: %r" % (
                index, value)) from None
    return tensors


def import_model(model, loss_fn, example_batch, optimizer):
    _check_module(model)
    batch = _example_tensors(example_batch)
    for index, tensor in enumerate(batch):
        if tensor.dtype not in MLIR_TYPES:
            raise UnsupportedError(
                "batch tensor %d of dtype %s" % (index, tensor.dtype),
                reason="the model takes float32, float16, bfloat16, int32, "
                "int64 or bool tensors")
    # Each module in the mode the user left it in, as PyTorch would train
    # it (a frozen batch norm stays in eval mode).
    work = _copy(model)
    names = {id(p): n for n, p in model.named_parameters()}
    translation = Translation(optimizer, names)

    root, graph = trace_loss(work, loss_fn, len(batch))
    loss_table = StateTable(work)
    loss = Lowering(root, graph, "loss", loss_table, training=True)
    results = loss.run(batch)
    if len(results) != 1 or results[0].shape != () or not results[0].is_float:
        raise UnsupportedError(
            "a loss function returning %s" % ", ".join(r.type for r in results),
            source=returned_line(graph),
            reason="loss_fn(model, *batch) must return one scalar tensor")
    functions_text = loss.writer.text(results)

    call = _record_call(_copy(model), loss_fn, batch)
    forward_reads = {}
    output_keys = None
    if call is not None:
        evaluated = _copy(model).eval()
        forward_root, forward_graph = trace_loss(evaluated, call,
                                                 len(call.tensors))
        forward = Lowering(forward_root, forward_graph, "forward",
                           StateTable(evaluated), training=False)
        outputs = forward.run(call.tensors)
        functions_text += forward.writer.text(outputs)
        forward_reads = forward.writer.reads
        with _eager():
            output_keys = _output_keys(call(evaluated, *call.tensors))

    trained = set(translation.trained)
    state = dict(loss_table.parameters, **loss_table.buffers)
    loss_reads = loss.writer.reads
    parameters = [n for n in loss_reads if n in trained]
    buffers = [n for n in list(loss_reads) + list(forward_reads)
               if n not in trained]
    buffers = list(dict.fromkeys(buffers))
    declarations = []
    for name in parameters:
        tensor = state[name]
        decay = " {weight_decay = false}" if name in \
            translation.undecayed else ""
        declarations.append("  mixprec.parameter %s : %s = #mixprec.zeros%s\n"
                            % (symbol(name), tensor_type(
                                tensor.shape, MLIR_TYPES[tensor.dtype]), decay))
    for name in buffers:
        tensor = state[name]
        declarations.append("  mixprec.buffer %s : %s = #mixprec.zeros\n" % (
            symbol(name), tensor_type(tensor.shape, MLIR_TYPES[tensor.dtype])))
    text = "module {\n%s%s  mixprec.train_step @%s forward @loss optimizer " \
        "%s\n}\n" % ("".join(declarations), functions_text, STEP,
                     translation.attribute)
    return ImportedModel(
        text, parameters, buffers, translation,
        [(t.dtype, tuple(t.shape)) for t in batch],
        None if call is None else
        [(t.dtype, tuple(t.shape)) for t in call.tensors],
        call is not None and _rows_independent(model, call), output_keys)
