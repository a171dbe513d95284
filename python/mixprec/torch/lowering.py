"""Lowering an fx graph to one `func.func` of the mixprec dialect.

Each node runs on example tensors as it is lowered: the results give every
value's shape and dtype, and a node whose inputs are all constants (a
causal mask built with torch.triu, x.shape[0]) is folded to its value."""
import inspect
import operator

import torch
from torch import fx

from . import registry
from .emitter import MLIR_TYPES, FunctionWriter, Ops, Value
from .errors import UnsupportedError, user_line
from .tracing import RANDOM_METHODS

# Methods and attributes whose result describes a tensor's type, not its
# data: their value is known when the module is imported.
_TYPE_QUERIES = {"size", "dim", "ndimension", "numel", "shape", "dtype",
                 "ndim", "device", "is_cuda"}


class Unavailable:
    """A result the dialect does not compute (the indices of torch.max):
    using it raises UnsupportedError naming `what`."""

    def __init__(self, what, reason=""):
        self.what = what
        self.reason = reason


class StateTable:
    """The model's parameters and buffers by identity, under the names of
    the user's module (a parameter shared by two modules has one name)."""

    def __init__(self, model):
        self.parameters = {}  # name -> nn.Parameter
        self.buffers = {}  # name -> tensor
        self._names = {}
        for name, parameter in model.named_parameters():
            self._names[id(parameter)] = name
            self.parameters[name] = parameter
        for name, buffer in model.named_buffers():
            self._names.setdefault(id(buffer), name)
            self.buffers[name] = buffer

    def name_of(self, tensor):
        return self._names.get(id(tensor))


class Context:
    """What a lowering sees of the node it lowers."""

    def __init__(self, lowering, node, example):
        self.lowering = lowering
        self.node = node
        self.example = example  # the node's result on the example batch
        self.ops = lowering.ops
        self.module = None  # the called module, for call_module
        self.path = None  # the module's path below the node's, if any

    @property
    def training(self):
        return self.lowering.training

    @property
    def module_path(self):
        path = self.node.meta.get("module_path", "")
        if self.path:
            return "%s.%s" % (path, self.path) if path else self.path
        return path

    def within(self, module, path=None):
        """This context for `module`, a part of the module being expanded
        (an encoder layer's linear1)."""
        context = Context(self.lowering, self.node, self.example)
        context.module = module
        context.path = path
        return context

    def unsupported(self, construct, reason=""):
        return UnsupportedError(construct, self.module_path,
                                user_line(self.node.stack_trace), reason)

    def value(self, x, like=None):
        """`x` as a Value: a constant tensor or number becomes a constant
        (a number takes the float type of `like`)."""
        if isinstance(x, Value):
            return x
        if isinstance(x, Unavailable):
            raise self.unsupported(x.what, x.reason)
        if isinstance(x, torch.Tensor):
            dtype = MLIR_TYPES.get(x.dtype)
            if dtype is None:
                raise self.unsupported("a constant of dtype %s" % x.dtype)
            return self.ops.constant(x.detach(), dtype)
        if isinstance(x, (bool, int, float)):
            dtype = like.dtype if like is not None and like.is_float else "f32"
            return self.ops.scalar(x, dtype)
        raise self.unsupported("an operand of type %s" % type(x).__name__)

    def state(self, tensor, what):
        """The value of the model's parameter or buffer `tensor`."""
        return self.lowering.read_state(tensor, what, self)

    def rng(self):
        return self.lowering.rng()

    def dropout_stream(self):
        return self.lowering.next_stream()

    def shape(self):
        return tuple(self.example.shape)


class Lowering:
    """One fx graph to one function. `training` selects train-mode
    semantics (dropout, batch statistics); state reads and buffer updates
    go through `state_table` (the writer lists the state it reads)."""

    def __init__(self, root, graph, name, state_table, training):
        self.root = root
        self.graph = graph
        self.writer = FunctionWriter(name)
        self.ops = Ops(self.writer)
        self.state_table = state_table
        self.training = training
        self.updated_buffers = set()
        # Nodes whose value depends on a parameter that requires grad.
        self._differentiable = set()
        self._rng = None
        self._streams = 0

    def rng(self):
        if self._rng is None:
            self._rng = self.ops.rng_state()
        return self._rng

    def next_stream(self):
        self._streams += 1
        return self._streams - 1

    def read_state(self, tensor, what, context):
        name = self.state_table.name_of(tensor)
        if name is None:
            raise context.unsupported(
                "%s that is not a parameter or buffer of the model" % what)
        dtype = MLIR_TYPES.get(tensor.dtype)
        if dtype is None or (dtype not in ("f32",) and
                             name in self.state_table.parameters):
            raise context.unsupported("%s '%s' of dtype %s" % (
                what, name, tensor.dtype), "parameters must be float32")
        return self.ops.read(name, tuple(tensor.shape), dtype)

    def update_buffer(self, tensor, value, context):
        name = self.state_table.name_of(tensor)
        if name in self.updated_buffers:
            # PyTorch updates the statistics once per call; the step
            # assigns a buffer once.
            raise context.unsupported(
                "a batch-norm module called twice in one step",
                "its running statistics would be updated twice (call it "
                "once, on the batches joined with torch.cat)")
        self.ops.assign(name, value)
        self.updated_buffers.add(name)

    def run(self, example_inputs):
        """Lowers the graph on `example_inputs`; returns the function's
        results (Values)."""
        env = {}
        examples = {}
        inputs = iter(example_inputs)
        for node in self.graph.nodes:
            if node.op == "placeholder":
                example = next(inputs)
                dtype = MLIR_TYPES.get(example.dtype)
                if dtype is None:
                    raise UnsupportedError(
                        "an input of dtype %s" % example.dtype,
                        reason="inputs are float32, float16, bfloat16, "
                        "int32, int64 or bool")
                env[node] = self.writer.argument(
                    _identifier(node.name), example.shape, dtype)
                examples[node] = example
            elif node.op == "get_attr":
                examples[node] = env[node] = _fetch(self.root, node.target)
                if getattr(env[node], "requires_grad", False):
                    self._differentiable.add(node)
                if isinstance(env[node], torch.nn.Parameter):
                    context = Context(self, node, examples[node])
                    env[node] = context.state(env[node], "parameter")
            elif node.op == "output":
                return self._outputs(node, env)
            else:
                self._check_no_grad(node)
                try:
                    examples[node] = self._evaluate(node, examples)
                except Exception as error:  # PyTorch refuses it too
                    raise Context(self, node, None).unsupported(
                        "%s with these arguments" % self._name(node),
                        "PyTorch raises %s: %s" % (type(error).__name__,
                                                   error)) from None
                env[node] = self._lower(node, env, examples[node], examples)
        raise AssertionError("an fx graph ends with its output node")

    def _check_no_grad(self, node):
        """A value computed under torch.no_grad() from trained parameters
        would be differentiated through: refused. From inputs and buffers
        only, it has no gradient either way."""
        differentiable = any(n in self._differentiable
                             for n in node.all_input_nodes)
        if node.op == "call_module":
            differentiable |= any(p.requires_grad for p in self.root.
                                  get_submodule(node.target).parameters())
        if not differentiable:
            return
        if node.meta.get("no_grad"):
            where = ("the loss_fn" if node.meta.get("module_path") is None
                     else "the model")
            raise Context(self, node, None).unsupported(
                "torch.no_grad() inside %s" % where, "on a value computed "
                "from parameters: the train step has no stop-gradient "
                "(differentiate through it, or compute it from the batch "
                "only)")
        self._differentiable.add(node)

    def _outputs(self, node, env):
        for input_node in node.all_input_nodes:
            if isinstance(env[input_node], Unavailable):
                raise Context(self, input_node, None).unsupported(
                    "returning " + env[input_node].what,
                    env[input_node].reason)
        results = []
        for item in _flatten(fx.node.map_arg(node.args[0], env.get)):
            context = Context(self, node, None)
            if not isinstance(item, Value):
                item = context.value(item)
            results.append(item)
        return results

    def _evaluate(self, node, examples):
        args = fx.node.map_arg(node.args, examples.get)
        kwargs = fx.node.map_arg(node.kwargs, examples.get)
        if node.op == "call_module":
            # With gradients on, as in training: under no_grad PyTorch
            # 1.13 takes nn.MultiheadAttention's fast path, which fails on
            # some configurations (bias=False).
            with torch.enable_grad():
                result = self.root.get_submodule(node.target)(*args,
                                                              **kwargs)
            return fx.node.map_aggregate(result, _detached)
        with torch.no_grad():
            if node.op == "call_method":
                return getattr(args[0], node.target)(*args[1:], **kwargs)
            # x += y runs as x + y: the examples are not overwritten.
            target = _OUT_OF_PLACE.get(node.target, node.target)
            return target(*args, **kwargs)

    def _lower(self, node, env, example, examples):
        args = fx.node.map_arg(node.args, env.get)
        kwargs = fx.node.map_arg(node.kwargs, env.get)
        symbolic = _any_value((args, kwargs))
        context = Context(self, node, example)
        name = self._name(node)
        for input_node in node.all_input_nodes:
            if isinstance(env[input_node], Unavailable):
                raise context.unsupported(
                    "%s on %s" % (name, env[input_node].what),
                    env[input_node].reason)
        self._check_inplace(node, context, name, examples)
        if node.op == "call_module":
            module = self.root.get_submodule(node.target)
            lowering = module_lowering(module)
            if lowering is None:
                raise context.unsupported(name)
            context.module = module
            return self._call(lowering, context, args, kwargs,
                              registry.module_type_name(module))
        self._check_folding(node, context, name, symbolic)
        if not symbolic:
            return example  # folded: it depends on no input or parameter
        if node.op == "call_method":
            if node.target in _TYPE_QUERIES and not _any_tensor(example):
                return example
            lowering = registry.METHODS.get(node.target)
            if lowering is None and node.target.endswith("_"):
                raise context.unsupported(
                    "in-place method %s" % name,
                    "write it out of place (x = x.%s(...))" %
                    node.target[:-1])
        else:
            if (node.target is getattr and args[1] in _TYPE_QUERIES):
                return example
            lowering = registry.FUNCTIONS.get(node.target)
        if lowering is None:
            raise context.unsupported(name)
        return self._call(lowering, context, args, kwargs, name)

    def _name(self, node):
        """How an error names what `node` calls."""
        if node.op == "call_module":
            return "module %s" % registry.module_type_name(
                self.root.get_submodule(node.target))
        if node.op == "call_method":
            return "Tensor.%s" % node.target
        return registry.function_name(node.target)

    def _check_inplace(self, node, context, name, examples):
        """An activation or dropout with inplace=True, and x += y, overwrite
        x: refused when x, or a tensor x is a view of (or another view of
        it), is read again afterwards, as the lowering computes out of
        place."""
        operator_form = node.op == "call_function" and \
            node.target in _OUT_OF_PLACE
        if node.op == "call_module":
            inplace = getattr(self.root.get_submodule(node.target),
                              "inplace", False)
        elif node.op == "call_function":
            inplace = operator_form or _argument(node, "inplace")
        else:
            return
        source = node.args[0] if node.args else None
        if inplace is not True or not isinstance(source, fx.Node) or \
                not isinstance(examples.get(source), torch.Tensor):
            return  # x += 1 on a number (a shape) rebinds x
        if operator_form:
            self._refuse_state_update(context, name, source)
            aliases = _aliases(source)
        else:
            aliases = [source]
        position = {n: i for i, n in enumerate(node.graph.nodes)}
        later = [user for alias in aliases for user in alias.users
                 if position[user] > position[node] and
                 not _is_type_query(user)]
        if not later:
            return
        if operator_form:
            raise context.unsupported(
                "%s on a tensor read again afterwards (or a view of one)" %
                name, "PyTorch updates it in place; write x = x %s y" %
                name.split()[-1][:-1])
        raise context.unsupported(
            "%s with inplace=True on a tensor read again afterwards" %
            name, "PyTorch overwrites the input; use inplace=False")

    def _check_folding(self, node, context, name, symbolic):
        """Refuses what folding would get wrong: random numbers (drawn once
        at import) and in-place updates of the model's tensors (lost)."""
        # The tracer refuses torch.randn and the like; a tensor made from
        # traced shapes (torch.empty(x.shape)) is filled here.
        if (node.op == "call_method" and node.target in RANDOM_METHODS and
                not symbolic):
            raise context.unsupported(
                "%s of a constant tensor" % name, "its random numbers would "
                "be drawn once, at import, and be constants of the step")
        if node.op == "call_method" and node.target.endswith("_"):
            self._refuse_state_update(context, "in-place method " + name,
                                      node.args[0])

    def _refuse_state_update(self, context, what, target):
        """Refuses `what` when `target` is (a view of) a parameter or
        buffer of the model."""
        state = _state_viewed(target)
        if state is None:
            return
        tensor = _fetch(self.root, state.target)
        raise context.unsupported(
            "%s on the model's tensor '%s'" % (
                what, self.state_table.name_of(tensor) or state.target),
            "the module's state is updated only by the optimizer and batch "
            "norm")

    @staticmethod
    def _call(lowering, context, args, kwargs, name):
        try:
            return lowering(context, *args, **kwargs)
        except TypeError as error:
            # An argument the lowering does not take.
            if "argument" not in str(error):
                raise
            raise context.unsupported("%s with these arguments" % name,
                                      str(error)) from None


# The in-place operators the tracer records (x += y), computed out of place.
_OUT_OF_PLACE = {operator.iadd: operator.add, operator.isub: operator.sub,
                 operator.imul: operator.mul,
                 operator.itruediv: operator.truediv}

# Methods whose result shares the storage of their first argument.
_VIEWS = {"view", "view_as", "reshape", "flatten", "unflatten", "squeeze",
          "unsqueeze", "transpose", "t", "permute", "expand", "expand_as",
          "narrow", "select", "detach", "contiguous", "split", "chunk",
          "unbind", "swapaxes", "movedim"}
# Functions whose result shares the storage of their first argument: x[...]
# and x.data, and torch's forms of the methods above.
_VIEW_FUNCTIONS = {operator.getitem, getattr, torch.reshape, torch.flatten,
                   torch.squeeze, torch.unsqueeze, torch.transpose, torch.t,
                   torch.permute, torch.narrow, torch.select, torch.detach,
                   torch.split, torch.chunk, torch.unbind, torch.swapaxes,
                   torch.movedim}


def _argument(node, name):
    """The argument `name` of the call of a Python function at `node`."""
    try:
        signature = inspect.signature(node.target)
        return signature.bind(*node.args, **node.kwargs).arguments.get(name)
    except (TypeError, ValueError):  # a builtin, or arguments it refuses
        return None


def _state_viewed(node):
    """The get_attr node of the model's tensor that `node` is (a view of),
    or None."""
    while isinstance(node, fx.Node):
        if node.op == "get_attr":
            return node
        if not _is_view(node):
            return None
        node = node.args[0]
    return None


def _is_view(node):
    return bool(node.args) and not _is_type_query(node) and (
        (node.op == "call_method" and node.target in _VIEWS) or
        (node.op == "call_function" and node.target in _VIEW_FUNCTIONS))


def _is_type_query(node):
    """x.shape, x.size() and the like: they read no data."""
    if node.op == "call_method":
        return node.target in _TYPE_QUERIES
    return (node.op == "call_function" and node.target is getattr and
            len(node.args) > 1 and node.args[1] in _TYPE_QUERIES)


def _aliases(node):
    """`node` and the nodes that share its storage: the tensor it is a view
    of and every view of that tensor."""
    base = node
    while _is_view(base) and isinstance(base.args[0], fx.Node):
        base = base.args[0]
    aliases, pending = [], [base]
    while pending:
        alias = pending.pop()
        aliases.append(alias)
        pending.extend(user for user in alias.users if _is_view(user) and
                       user.args[0] is alias)
    return aliases


def _detached(value):
    return value.detach() if isinstance(value, torch.Tensor) else value


def module_lowering(module):
    for cls in type(module).__mro__:
        if cls in registry.MODULES:
            return registry.MODULES[cls]
    return None


def _fetch(root, target):
    value = root
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _identifier(name):
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return text if text[:1].isalpha() else "arg_" + text


def _flatten(item):
    if isinstance(item, (tuple, list)):
        for element in item:
            yield from _flatten(element)
    elif isinstance(item, dict):
        for element in item.values():
            yield from _flatten(element)
    else:
        yield item


def _any_value(item):
    return any(isinstance(x, Value) for x in _flatten(item))


def _any_tensor(item):
    return any(isinstance(x, torch.Tensor) for x in _flatten(item))
