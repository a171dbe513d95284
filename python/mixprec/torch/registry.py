"""Which lowering imports each torch function, tensor method and module
type. The lowerings register themselves here (functions.py, losses.py,
modules.py, attention.py, recurrent.py)."""
import operator

FUNCTIONS = {}  # callable -> lowering
METHODS = {}  # Tensor method name -> lowering
MODULES = {}  # nn.Module type -> lowering

# The operators fx records (the in-place ones: tracing._Proxy).
_OPERATORS = {operator.add: "+", operator.sub: "-", operator.mul: "*",
              operator.truediv: "/", operator.matmul: "@",
              operator.pow: "**", operator.neg: "unary -",
              operator.getitem: "[] indexing", operator.floordiv: "//",
              operator.mod: "%", operator.iadd: "+=", operator.isub: "-=",
              operator.imul: "*=", operator.itruediv: "/=",
              operator.lt: "<", operator.gt: ">", operator.le: "<=",
              operator.ge: ">=", operator.eq: "==", operator.ne: "!=",
              operator.and_: "&", operator.or_: "|", operator.invert: "~"}


def lowers(*targets):
    """Registers a lowering for torch callables and Tensor method names
    (strings)."""
    def register(lowering):
        for target in targets:
            if isinstance(target, str):
                METHODS[target] = lowering
            else:
                FUNCTIONS[target] = lowering
        return lowering
    return register


def lowers_module(*types):
    def register(lowering):
        for module_type in types:
            MODULES[module_type] = lowering
        return lowering
    return register


def function_name(target):
    """How an error names a called function: `torch.nn.functional.gelu`,
    `operator +`."""
    if target in _OPERATORS:
        return "operator %s" % _OPERATORS[target]
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__qualname__", None) or getattr(
        target, "__name__", repr(target))
    if "<locals>" in name:
        # A function made by another (F.max_pool2d is boolean_dispatch's
        # fn) carries its public name in __name__.
        name = getattr(target, "__name__", name)
    if module == "torch._C._nn":
        module = "torch.nn.functional"
    elif module.startswith("torch._C") or module == "":
        module = "torch"
    if module == "torch._tensor" or name.startswith("_TensorBase."):
        module = "torch.Tensor"
    # torch.cumsum is torch._C._VariableFunctionsClass.cumsum.
    name = name.rpartition(".")[2] if name.startswith(
        ("_VariableFunctionsClass.", "_TensorBase.")) else name
    return "%s.%s" % (module, name)


def module_type_name(module):
    return module_type_name_of(type(module))


def imported_names():
    """What has a lowering, as the README lists it: module types, torch
    functions, Tensor methods and operators, each sorted."""
    modules = sorted(module_type_name_of(t) for t in MODULES)
    functions = sorted(function_name(f) for f in FUNCTIONS
                       if f not in _OPERATORS and f is not getattr)
    operators = sorted(_OPERATORS[f] for f in FUNCTIONS if f in _OPERATORS)
    methods = sorted("Tensor." + name for name in METHODS)
    return modules, functions, methods, operators


def module_type_name_of(module_type):
    module_name = module_type.__module__
    if module_name.startswith("torch.nn.modules."):
        module_name = "torch.nn"
    return "%s.%s" % (module_name, module_type.__qualname__)
