"""torch.fx tracing of a loss function and of a module's forward, with the
module path and the user's source line kept on every node."""
import contextlib
import dis
import functools
import inspect
import operator
import re
import sys
import traceback
import weakref

import torch
from torch import fx, nn

from .errors import GENERATED, UnsupportedError, loss_fn_line, user_frame
from .registry import module_type_name

_module_hooks = nn.modules.module

# The user's model in LossModule.
_MODEL = "model"

# torch's random functions and Tensor's random methods: called while
# tracing, their numbers would be drawn once and be constants of the step.
_RANDOM_FUNCTIONS = ("rand", "randn", "randint", "randperm", "normal",
                     "bernoulli", "multinomial", "poisson", "rand_like",
                     "randn_like", "randint_like")
RANDOM_METHODS = ("uniform_", "normal_", "bernoulli_", "bernoulli",
                   "random_", "exponential_", "geometric_", "cauchy_",
                   "log_normal_", "multinomial")

# The kinds of node that compute (get_attr and placeholder nodes made under
# torch.no_grad() are used outside it too).
_COMPUTATIONS = ("call_function", "call_method", "call_module")

# Tensor factories whose sizes may be traced shapes (a causal mask of
# x.size(1) rows): recorded as calls, which the importer folds to constants
# as they depend on no input. Random factories are not here: folding would
# freeze their noise.
_FACTORIES = ("ones", "zeros", "full", "empty", "arange", "eye")


def _unpack(proxy, frame):
    """`a, b = proxy` as proxy[0], proxy[1]. fx looks the unpacking up at
    instruction f_lasti // 2, which is not where it is from Python 3.11 on
    (inline caches take room): here it is found by its offset."""
    for instruction in dis.get_instructions(frame.f_code):
        if instruction.offset == frame.f_lasti:
            if instruction.opname == "UNPACK_SEQUENCE":
                return (proxy[i] for i in range(instruction.argval))
            break
    return proxy.tracer.iter(proxy)


def _in_place(target):
    """`x op= y` recorded as operator.i<op>(x, y): fx's Proxy has no
    __iadd__, so Python would record x + y and the update of a view's base
    would be lost. The lowering computes it out of place and refuses it
    where that differs (lowering.Lowering._check_inplace)."""
    def update(self, other):
        return self.tracer.create_proxy("call_function", target,
                                        (self, other), {})
    return update


class _Proxy(fx.Proxy):
    def __iter__(self):
        return _unpack(self, inspect.currentframe().f_back)

    def __getattr__(self, name):
        return _Attribute(self, name)

    __iadd__ = _in_place(operator.iadd)
    __isub__ = _in_place(operator.isub)
    __imul__ = _in_place(operator.imul)
    __itruediv__ = _in_place(operator.itruediv)

    def __setitem__(self, index, value):
        raise UnsupportedError(
            "[] assignment (x[...] = value)", self.tracer.current_path,
            _current_source(), "write it out of place (torch.cat, or "
            "masked_fill with a constant mask)")


class _Attribute(fx.proxy.Attribute, _Proxy):
    """`x.shape` and the like, unpacked as _Proxy is."""


def _current_source():
    """The user's innermost frame of the running code."""
    return user_frame([(f.filename, f.lineno, f.line) for f in
                       reversed(traceback.extract_stack())])


class _Tracer(fx.Tracer):
    """fx's tracer (torch.nn modules are leaves, containers are traced
    through) that records stack traces and each node's module path in the
    user's model (node.meta["module_path"]: "" for the model's own
    forward, None for the loss_fn's code around it).

    `model_path` is the model's path in the traced root (None when the
    root is the model)."""

    def __init__(self, model_path=None):
        super().__init__()
        self.record_stack_traces = True
        # Buffers as get_attr nodes: their in-place updates are then seen.
        self.proxy_buffer_attributes = True
        self._model_path = model_path
        self._paths = ["" if model_path is None else None]
        self.failed_in = None  # the module path where tracing failed

    def _refusal(self, name):
        tracer = weakref.ref(self)  # see _traced_factory

        def refuse(*args, **kwargs):
            raise UnsupportedError(
                name, tracer().current_path, _current_source(),
                "its random numbers would be drawn once, at import, and be "
                "constants of the train step (dropout is supported)")
        return refuse

    @property
    def current_path(self):
        """The path of the module whose forward is being traced."""
        return self._paths[-1]

    def proxy(self, node):
        return _Proxy(node, self)

    def trace(self, root, concrete_args=None):
        # Gradients on and autocast off, so that a torch.no_grad() or
        # torch.autocast in the traced code is seen (create_proxy).
        with _grad_and_no_autocast():
            if self._model_path is None:  # the root is the model
                self._check_hooks(root, "", None)
            return self._trace_patched(root, concrete_args)

    def _trace_patched(self, root, concrete_args):
        # (owner, name, replacement) for the time of the trace.
        patches = [(torch, name, self._traced_factory(getattr(torch, name)))
                   for name in _FACTORIES]
        patches += [(torch, name, self._refusal("torch." + name))
                    for name in _RANDOM_FUNCTIONS]
        patches += [(torch.Tensor, name, self._refusal("Tensor." + name))
                    for name in RANDOM_METHODS]
        # Tensor's methods are its base class's: restored by deletion.
        originals = [vars(owner).get(name) for owner, name, _ in patches]
        try:
            for owner, name, replacement in patches:
                setattr(owner, name, replacement)
            return super().trace(root, concrete_args)
        finally:
            for (owner, name, _), original in zip(patches, originals):
                if original is None:
                    delattr(owner, name)
                else:
                    setattr(owner, name, original)

    def _traced_factory(self, factory):
        """`factory`, recorded as a call when a size is traced."""
        # PyTorch caches the torch functions it sees (torch.overrides), these
        # replacements among them: a strong reference would keep the tracer,
        # and through it a copy of the model, alive for good.
        tracer = weakref.ref(self)

        @functools.wraps(factory)
        def call(*args, **kwargs):
            traced = []
            fx.node.map_aggregate((args, kwargs), lambda a: traced.append(
                isinstance(a, fx.Proxy)))
            if any(traced):
                return tracer().create_proxy("call_function", factory, args,
                                             kwargs)
            return factory(*args, **kwargs)
        return call

    def _user_path(self, path):
        if self._model_path is None:
            return path
        if path == self._model_path:
            return ""
        prefix = self._model_path + "."
        return path[len(prefix):] if path.startswith(prefix) else None

    def _check_hooks(self, module, path, source):
        """fx calls forward, not __call__: a module's hooks would be
        dropped."""
        hooks = [kind for kind, table in (
            ("forward hook", module._forward_hooks),
            ("forward pre-hook", module._forward_pre_hooks),
            ("backward hook", module._backward_hooks),
            ("global forward hook", _module_hooks._global_forward_hooks),
            ("global forward pre-hook",
             _module_hooks._global_forward_pre_hooks),
            ("global backward hook", _module_hooks._global_backward_hooks))
            if table]
        if hooks:
            raise UnsupportedError(
                "a module with a %s" % hooks[0], path, source,
                "the traced forward does not run hooks (remove it, or call "
                "its code in the forward)")

    def call_module(self, module, forward, args, kwargs):
        try:
            path = self.path_of_module(module)
        except NameError:
            raise UnsupportedError(
                "module %s, which is not a submodule of the model" %
                module_type_name(module), self._paths[-1],
                _current_source(), "make it an attribute of the model, or "
                "call its functional form (torch.nn.functional)") from None
        # A leaf module's parts (a transformer layer's linear1) are
        # expanded by its lowering: theirs would be dropped too.
        parts = (module.named_modules() if self.is_leaf_module(module, path)
                 else [("", module)])
        for part_path, part in parts:
            self._check_hooks(part, ".".join(p for p in (
                self._user_path(path), part_path) if p), _current_source())
        self._paths.append(self._user_path(path))
        try:
            return super().call_module(module, forward, args, kwargs)
        except Exception:
            if self.failed_in is None:
                self.failed_in = self._paths[-1]  # the innermost module
            raise
        finally:
            self._paths.pop()

    def create_proxy(self, kind, target, args, kwargs, name=None,
                     type_expr=None, proxy_factory_fn=None):
        # A module's call is made in its caller's forward.
        self._check_autocast(self._paths[-2] if kind == "call_module" and
                             len(self._paths) > 1 else self._paths[-1])
        proxy = super().create_proxy(kind, target, args, kwargs, name,
                                     type_expr, proxy_factory_fn)
        proxy.node.meta["module_path"] = (
            self._user_path(target) if kind == "call_module"
            else self._paths[-1])
        if not torch.is_grad_enabled() and kind in _COMPUTATIONS:
            # Exact unless it computes from trained parameters: the
            # lowering refuses those (the step has no stop-gradient).
            proxy.node.meta["no_grad"] = True
        return proxy

    def _check_autocast(self, path):
        """The step chooses precisions itself."""
        where = "the loss_fn" if path is None else "the model"
        if torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled():
            raise UnsupportedError(
                "torch.autocast inside %s" % where, path,
                _current_source(), "mixprec chooses precisions itself: "
                "compile with precision='f16' or 'bf16'")


@contextlib.contextmanager
def _grad_and_no_autocast():
    cuda, cpu = torch.is_autocast_enabled(), torch.is_autocast_cpu_enabled()
    torch.set_autocast_enabled(False)
    torch.set_autocast_cpu_enabled(False)
    try:
        with torch.enable_grad():
            yield
    finally:
        torch.set_autocast_enabled(cuda)
        torch.set_autocast_cpu_enabled(cpu)


class LossModule(nn.Module):
    """`loss_fn(model, *batch)` as a module whose submodule `model` is the
    user's, so its parameters are named as in the user's module behind
    `model.`."""

    def __init__(self, model, loss_fn):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn


def _forward_of(count):
    """A forward of `count` named inputs: fx makes one placeholder per
    parameter of forward, and `*batch` has none."""
    names = ", ".join("input%d" % i for i in range(count))
    source = ("def forward(self, %s):\n"
              "    return self.loss_fn(self.%s, %s)\n" % (names, _MODEL,
                                                           names))
    scope = {}
    # A fixed template over generated names only; its file name marks its
    # frame in stack traces (errors.loss_fn_line).
    exec(compile(source, GENERATED, "exec"), scope)
    return scope["forward"]


def _trace(root, model_path=None):
    tracer = _Tracer(model_path)
    try:
        return tracer.trace(root)
    except UnsupportedError:
        raise
    except Exception as error:  # what fx cannot trace, it raises
        frames = [(f.filename, f.lineno, f.line) for f in
                  reversed(traceback.extract_tb(sys.exc_info()[2]))]
        module = tracer.failed_in
        if module is None and model_path is None:
            module = ""  # the model's own forward
        raise _trace_error(error, module, user_frame(frames)) from None


def _trace_error(error, module, source):
    message = (str(error).splitlines() or [type(error).__name__])[0]
    if "cannot be iterated" in message:
        construct = "iterating over a tensor"
        message = ("fx cannot trace a for loop, list() or * over a tensor or "
                   "over the results of split, chunk or unbind: unpack those "
                   "(a, b = x.split(...)) or index them (parts[0])")
    elif "control flow" in message:
        construct = "data-dependent control flow"
        message = ("a Python if, while, and/or or bool() on a tensor: %s"
                   % message)
    elif "'len'" in message:
        construct = "len(), list() or reversed() of a traced value"
        message = ("a tensor's length is x.shape[0]; the results of split, "
                   "chunk or unbind are unpacked (a, b = x.split(...)) or "
                   "indexed (parts[0])")
    elif re.match(r"cannot assign '.*' as (buffer|parameter) '", message):
        kind, name = re.search(r"as (buffer|parameter) '([^']*)'",
                               message).groups()
        construct = "assigning to the %s '%s' in forward" % (kind, name)
        message = ("the module's state is updated only by the optimizer and "
                   "batch norm")
    elif re.search(r"(float|int|bool)\(\) argument must be", message):
        construct = "a Python number of a traced value (%s())" % (
            message.split("(")[0])
        message = ("numbers of shapes are used directly: loss / x.shape[0], "
                   "not loss / float(x.shape[0])")
    elif isinstance(error, TypeError) and "_Proxy" in message:
        construct = "the results of split, chunk or unbind passed whole"
        message = ("fx does not know how many there are: unpack them "
                   "(a, b = x.split(...)) and pass a list (torch.cat([b, a]))")
    else:
        construct = "this code (%s)" % type(error).__name__
    return UnsupportedError(construct, module, source, message)


def trace_loss(model, loss_fn, count):
    """(root module, graph) of `loss_fn(model, *batch)` on `count` batch
    tensors; the root's submodule `model` is `model`."""
    root = LossModule(model, loss_fn)
    root.__class__ = type("LossModule", (LossModule,),
                          {"forward": _forward_of(count)})
    return root, _trace(root, _MODEL)


def returned_line(graph):
    """The loss_fn's line that computed what the traced loss_fn returns."""
    output = next(node for node in graph.nodes if node.op == "output")
    returned = [node for node in output.all_input_nodes
                if node.stack_trace]
    return loss_fn_line(returned[0].stack_trace) if returned else None
