"""torch.fx tracing of a loss function and of a module's forward, with the
module path and the user's source line kept on every node."""
import sys
import traceback

from torch import fx, nn

from .errors import UnsupportedError, user_frame


class _Tracer(fx.Tracer):
    """fx's tracer (torch.nn modules are leaves, containers are traced
    through) that records stack traces and each node's module path."""

    def __init__(self):
        super().__init__()
        self.record_stack_traces = True
        self._paths = [""]

    def call_module(self, module, forward, args, kwargs):
        self._paths.append(self.path_of_module(module))
        try:
            return super().call_module(module, forward, args, kwargs)
        finally:
            self._paths.pop()

    def create_proxy(self, kind, target, args, kwargs, name=None,
                     type_expr=None, proxy_factory_fn=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name,
                                     type_expr, proxy_factory_fn)
        proxy.node.meta["module_path"] = (target if kind == "call_module"
                                          else self._paths[-1])
        return proxy


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
              "    return self.loss_fn(self.model, %s)\n" % (names, names))
    scope = {}
    exec(source, scope)  # a fixed template over generated names only
    return scope["forward"]


def _trace(root):
    try:
        return _Tracer().trace(root)
    except UnsupportedError:
        raise
    except Exception as error:  # what fx cannot trace, it raises
        frames = [(f.filename, f.lineno, f.line) for f in
                  reversed(traceback.extract_tb(sys.exc_info()[2]))]
        raise _trace_error(error, user_frame(frames)) from None


def _trace_error(error, source):
    message = (str(error).splitlines() or [type(error).__name__])[0]
    if "control flow" in message:
        construct = "data-dependent control flow"
    elif "iterat" in message:
        construct = "iterating over a traced tensor"
    else:
        construct = "this code (%s)" % type(error).__name__
    return UnsupportedError(construct, source=source, reason=message)


def trace_loss(model, loss_fn, count):
    """(root module, graph) of `loss_fn(model, *batch)` on `count` batch
    tensors; the root's submodule `model` is `model`."""
    root = LossModule(model, loss_fn)
    root.__class__ = type("LossModule", (LossModule,),
                          {"forward": _forward_of(count)})
    return root, _trace(root)


def trace_forward(model):
    """(model, graph) of the model's forward."""
    return model, _trace(model)
