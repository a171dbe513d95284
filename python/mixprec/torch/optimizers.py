"""torch.optim optimizers as the dialect's optimizer attributes, and their
state as the train step's moments."""
import torch

from .emitter import float_text
from .errors import UnsupportedError

STEP = "train"  # the train step's name: its state is "train.<...>"

# Each optimizer: its attribute, the hyper-parameters that must be equal
# in every group, and the moments the torch state names.
_SGD_KEYS = ("momentum", "dampening", "nesterov", "maximize")
_ADAM_KEYS = ("betas", "eps", "amsgrad", "maximize")


def _groups(optimizer, names):
    """(group, names of its parameters) for each group."""
    result = []
    for group in optimizer.param_groups:
        group_names = []
        for parameter in group["params"]:
            name = names.get(id(parameter))
            if name is None:
                raise UnsupportedError(
                    "an optimizer parameter that is not in the model (group "
                    "%d, shape %s)" % (len(result), list(parameter.shape)),
                    reason="build the optimizer on the parameters of the "
                    "model given to mpt.compile, not of a copy")
            group_names.append(name)
        result.append((group, group_names))
    return result


def _common(groups, key, what):
    values = {repr(group.get(key)) for group, _ in groups}
    if len(values) > 1:
        raise UnsupportedError(
            "%s with parameter groups that differ in %s" % (what, key),
            reason="only weight_decay (0 or one value) may differ by group")
    return groups[0][0].get(key)


def _decay(groups, what):
    """(the one nonzero weight decay or 0, names of undecayed params)."""
    decays = {group["weight_decay"] for group, _ in groups
              if group["weight_decay"] != 0}
    if len(decays) > 1:
        raise UnsupportedError(
            "%s with groups of different nonzero weight decays "
            "(weight_decay %s)" % (what, sorted(decays)),
            reason="groups may use one weight decay or none")
    undecayed = {name for group, names in groups
                 if group["weight_decay"] == 0 for name in names}
    return (decays.pop() if decays else 0.0), undecayed


class Translation:
    """An optimizer as the train step sees it: `attribute` (dialect text),
    `trained` (the parameters it updates) and `undecayed` (those of them
    without weight decay)."""

    def __init__(self, optimizer, names):
        self.optimizer = optimizer
        groups = _groups(optimizer, names)
        # A parameter without requires_grad gets no gradient, so PyTorch's
        # optimizer skips it: here it is a buffer.
        frozen = {names[id(p)] for group in optimizer.param_groups
                  for p in group["params"] if not p.requires_grad}
        self.trained = [name for _, group_names in groups
                        for name in group_names if name not in frozen]
        kind = type(optimizer)
        if kind is torch.optim.SGD:
            what = "torch.optim.SGD"
            keys = _SGD_KEYS
        elif kind in (torch.optim.Adam, torch.optim.AdamW):
            what = "torch.optim.%s" % kind.__name__
            keys = _ADAM_KEYS
        else:
            raise UnsupportedError(
                "the optimizer %s.%s" % (kind.__module__, kind.__qualname__),
                reason="torch.optim.SGD, Adam and AdamW are supported")
        settings = {key: _common(groups, key, what) for key in keys}
        if settings.get("maximize"):
            raise UnsupportedError("%s with maximize=True" % what)
        if settings.get("amsgrad"):
            raise UnsupportedError("%s with amsgrad=True" % what,
                                   reason="the train step has no max of "
                                   "second moments")
        decay, self.undecayed = _decay(groups, what)
        # What the train step compiled in (schedulers add keys of their
        # own, such as initial_lr and max_lr, which are not compared).
        self._keys = keys + ("weight_decay",)
        self._compiled = self._settings()
        self._what = what
        self.learning_rate()  # groups of different rates are refused now
        if kind is torch.optim.SGD:
            self.moments = ("momentum_buffer",) if settings["momentum"] else ()
            self.attribute = (
                "#mixprec.sgd<momentum = %s, dampening = %s, nesterov = %s, "
                "weight_decay = %s, decay_norm_and_bias = true>" % (
                    float_text(settings["momentum"]),
                    float_text(settings["dampening"]),
                    "true" if settings["nesterov"] else "false",
                    float_text(decay)))
        else:
            beta1, beta2 = settings["betas"]
            self.moments = ("exp_avg", "exp_avg_sq")
            self.attribute = (
                "#mixprec.%s<beta1 = %s, beta2 = %s, eps = %s, weight_decay "
                "= %s, decay_norm_and_bias = true>" % (
                    kind.__name__.lower(), float_text(beta1),
                    float_text(beta2), float_text(settings["eps"]),
                    float_text(decay)))

    def _settings(self):
        return [{key: repr(group.get(key)) for key in self._keys}
                for group in self.optimizer.param_groups]

    def learning_rate(self):
        """The learning rate every group has now (a scheduler may have
        changed it); groups with different rates are refused, and so is a
        change of any other setting, which the step compiled in."""
        for index, (now, compiled) in enumerate(zip(self._settings(),
                                                    self._compiled)):
            changed = sorted(key for key in set(now) | set(compiled)
                             if now.get(key) != compiled.get(key))
            if changed:
                raise UnsupportedError(
                    "changing %s of %s after mpt.compile (group %d: %s)" % (
                        ", ".join(changed), self._what, index, ", ".join(
                            "%s %s -> %s" % (k, compiled.get(k), now.get(k))
                            for k in changed)),
                    reason="only the learning rate is read at each step; a "
                    "scheduler that cycles momentum needs cycle_momentum="
                    "False, or compile again")
        rates = {group["lr"] for group in self.optimizer.param_groups}
        if len(rates) > 1:
            raise UnsupportedError(
                "parameter groups with different learning rates (lr %s)" %
                sorted(rates), reason="the train step takes one rate")
        return float(rates.pop())

    def initial_state(self, names, held):
        """{state name: tensor} of the optimizer's existing state (moments
        and the step count) for the train step's buffers; `held` are the
        parameters the library trains (not those the loss never reads).
        State for some of them only is refused: PyTorch starts each
        parameter at its own first step, the train step keeps one count."""
        values = {}
        steps = set()
        with_state, without = [], []
        for group in self.optimizer.param_groups:
            for parameter in group["params"]:
                name = names[id(parameter)]
                if name not in held:
                    continue
                state = self.optimizer.state.get(parameter) or {}
                moments = {m: state.get(m) for m in self.moments
                           if state.get(m) is not None}
                (with_state if moments or "step" in state
                 else without).append(name)
                for moment, value in moments.items():
                    values["%s.%s.%s" % (STEP, name, moment)] = value
                if "step" in state:
                    steps.add(int(torch.as_tensor(state["step"]).item()))
        if with_state and without and self.moments:
            raise UnsupportedError(
                "optimizer state for some parameters only ('%s' has state, "
                "'%s' has none)" % (with_state[0], without[0]),
                reason="the train step keeps one step count for all "
                "parameters; PyTorch starts each at its own first step")
        if len(steps) > 1:
            raise UnsupportedError(
                "optimizer state with different step counts %s" %
                sorted(steps))
        if steps:
            values["%s.step_count" % STEP] = torch.tensor(steps.pop())
        elif values:
            # SGD keeps no count; its buffers exist after the first step.
            values["%s.step_count" % STEP] = torch.tensor(1)
        return values

    def state_dict(self, names, read, held):
        """The optimizer's `state_dict()` (PyTorch's format, loadable with
        `optimizer.load_state_dict`) holding the train step's moments and
        step count for the parameters in `held` (those the library
        trains; the others keep the optimizer's own state); `read(name)`
        gives a state tensor of the library."""
        result = self.optimizer.state_dict()
        step = int(read("%s.step_count" % STEP))
        parameters = [p for group in self.optimizer.param_groups
                      for p in group["params"]]
        for index, parameter in enumerate(parameters):
            name = names[id(parameter)]
            if name not in held:
                continue
            result["state"].pop(index, None)
            if step == 0:
                continue  # PyTorch keeps no state before a step
            entry = {moment: read("%s.%s.%s" % (STEP, name, moment))
                     for moment in self.moments}
            if isinstance(self.optimizer, torch.optim.SGD):
                entry.setdefault("momentum_buffer", None)
            else:
                entry["step"] = torch.tensor(float(step))
            result["state"][index] = entry
        return result
