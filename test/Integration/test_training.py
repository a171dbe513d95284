"""Optimizer and loss-scale ops (sgd_update, adam_update, loss_scale_update)
on the CPU backend against torch.optim and hand-computed loss-scale states.

The optimizer ops are FP32-category: 16-bit parameters and gradients are
widened, the step runs in f32 and the new parameter is rounded once to its
type (docs/design.md §4); moments and momentum buffers are f32. The
references run torch.optim on f32 copies of the same values; assert_close
rounds them once to the parameter type.

Every optimizer case also checks that its data can tell the case from its
neighbours (each hyperparameter switched off, the step count one lower,
coupled and decoupled weight decay swapped): the reference of a neighbour
must fail the same comparison, so a lowering that ignored that
hyperparameter would fail the test.

The loss-scale rule is docs/design.md §1; its expected states are written
out by hand below.
"""
import pytest
import torch

from harness import (TORCH_DTYPES, assert_close, module, op_function,
                     precompile, random, run, tensor_type)

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")


def scalar(value, dtype):
    """A 0-d operand (lr, step, loss-scale state)."""
    return torch.tensor(value, dtype=TORCH_DTYPES[dtype])


def float_literal(value):
    """`value` as an optimizer attribute writes it, exactly."""
    return "%.17e" % value


def as_f32(value):
    """The float the op sees for an f32 input `value`."""
    return float(torch.tensor(value, dtype=torch.float32))


def assert_distinguishes(wrongs, expecteds, dtypes):
    """The references of a neighbouring case (one tensor per output) fail
    the comparison of at least one output."""
    for wrong, expected, dtype in zip(wrongs, expecteds, dtypes):
        try:
            assert_close(wrong.to(TORCH_DTYPES[dtype]), expected, dtype)
        except AssertionError:
            return
    raise AssertionError("the data cannot tell this case from a neighbour")


LR_TYPE, STEP_TYPE = tensor_type((), "f32"), tensor_type((), "i64")

# ---------------------------------------------------------------------------
# sgd_update
# ---------------------------------------------------------------------------

# name: (shape, param/grad type, hyperparameters)
SGD_CONFIGS = {
    "plain_f32": ((37, 53), "f32", {}),
    "weight_decay_f32": ((37, 53), "f32", {"weight_decay": 0.05}),
    "momentum_f32": ((5, 37, 11), "f32",
                     {"momentum": 0.9, "weight_decay": 0.01}),
    "dampening_f32": ((129,), "f32", {"momentum": 0.9, "dampening": 0.3,
                                      "weight_decay": 0.05}),
    "nesterov_f32": ((37, 53), "f32", {"momentum": 0.8, "nesterov": True,
                                       "weight_decay": 0.02}),
    "plain_f16": ((37, 53), "f16", {"weight_decay": 0.05}),
    "nesterov_f16": ((37, 53), "f16", {"momentum": 0.9, "nesterov": True}),
    "dampening_bf16": ((37, 53), "bf16", {"momentum": 0.9, "dampening": 0.1,
                                          "weight_decay": 0.05}),
}
SGD_LR = 0.1
DAMPENED_CONFIGS = sorted(name for name, (_, _, hyper) in SGD_CONFIGS.items()
                          if hyper.get("dampening"))


def sgd_function(config):
    shape, dtype, hyper = SGD_CONFIGS[config]
    t, f = tensor_type(shape, dtype), tensor_type(shape, "f32")
    momentum = hyper.get("momentum", 0.0)
    attrs = "{optimizer = #mixprec.sgd<momentum = %s, dampening = %s, " \
            "nesterov = %s, weight_decay = %s>}" % (
                float_literal(momentum),
                float_literal(hyper.get("dampening", 0.0)),
                "true" if hyper.get("nesterov") else "false",
                float_literal(hyper.get("weight_decay", 0.0)))
    if momentum and hyper.get("dampening"):
        # Dampening takes the step count: the first step is undamped.
        args, results = [t, t, LR_TYPE, f, STEP_TYPE], [t, f]
        operands = "%a0, %a1, %a2, %a3 step %a4"
    elif momentum:
        args, results = [t, t, LR_TYPE, f], [t, f]
        operands = "%a0, %a1, %a2, %a3"
    else:
        args, results = [t, t, LR_TYPE], [t]
        operands = "%a0, %a1, %a2"
    return op_function(
        "sgd_" + config, args, results,
        "mixprec.sgd_update %s %s : (%s) -> (%s)" % (
            operands, attrs, ", ".join(args), ", ".join(results)))


SGD = module([sgd_function(config) for config in sorted(SGD_CONFIGS)])


def torch_sgd(param, grad, lr, buffer, hyper):
    """One torch.optim.SGD step on f32 copies; returns (param, buffer)."""
    p = torch.nn.Parameter(param.float().clone())
    p.grad = grad.float().clone()
    optimizer = torch.optim.SGD([p], lr=lr, **hyper)
    if buffer is not None:
        optimizer.state[p]["momentum_buffer"] = buffer.clone()
    optimizer.step()
    return p.detach(), optimizer.state[p].get("momentum_buffer")


def sgd_neighbours(hyper):
    """`hyper` with one hyperparameter switched off, for each one set."""
    for key, value in hyper.items():
        if value:
            neighbour = dict(hyper, **{key: False if key == "nesterov"
                                       else 0.0})
            if key == "momentum":
                neighbour.pop("nesterov", None)
                neighbour.pop("dampening", None)
            yield key, neighbour


@pytest.mark.parametrize("config", sorted(SGD_CONFIGS))
def test_sgd_update(config):
    shape, dtype, hyper = SGD_CONFIGS[config]
    param, grad = random(shape, dtype, 1), random(shape, dtype, 2)
    momentum = hyper.get("momentum", 0.0)
    buffer = random(shape, "f32", 3) if momentum else None
    inputs = [param, grad, scalar(SGD_LR, "f32")]
    if momentum:
        inputs.append(buffer)
    if hyper.get("dampening"):
        # A step after the first, which `buffer` is the momentum of.
        inputs.append(scalar(2, "i64"))
    outputs = run(SGD, "sgd_" + config, inputs)
    lr = as_f32(SGD_LR)
    expected, expected_buffer = torch_sgd(param, grad, lr, buffer, hyper)
    assert outputs[0].dtype == TORCH_DTYPES[dtype]
    assert_close(outputs[0], expected, dtype)
    if momentum:
        assert len(outputs) == 2
        assert_close(outputs[1], expected_buffer, "f32")
    else:
        assert len(outputs) == 1
    for _, neighbour in sgd_neighbours(hyper):
        wrong, _ = torch_sgd(param, grad, lr,
                             buffer if neighbour.get("momentum") else None,
                             neighbour)
        assert_distinguishes([wrong], [expected], [dtype])


def test_sgd_update_zero_buffer_is_first_step():
    """With dampening 0, a zero momentum buffer gives PyTorch's first step
    (which sets buf = g')."""
    shape, _, hyper = SGD_CONFIGS["momentum_f32"]
    param, grad = random(shape, "f32", 4), random(shape, "f32", 5)
    new_param, new_buffer = run(SGD, "sgd_momentum_f32", [
        param, grad, scalar(SGD_LR, "f32"), torch.zeros(shape)])
    expected, expected_buffer = torch_sgd(param, grad, as_f32(SGD_LR), None,
                                          hyper)
    assert_close(new_param, expected, "f32")
    assert_close(new_buffer, expected_buffer, "f32")


@pytest.mark.parametrize("config", DAMPENED_CONFIGS)
def test_sgd_update_first_step_with_dampening_sets_the_undamped_buffer(
        config):
    """PyTorch's first step sets buf = g', undamped: step count 1 ignores
    the buffer it is given, which a damped zero buffer would not match."""
    shape, dtype, hyper = SGD_CONFIGS[config]
    param, grad = random(shape, dtype, 10), random(shape, dtype, 11)
    buffer = random(shape, "f32", 12)
    lr = as_f32(SGD_LR)
    expected, expected_buffer = torch_sgd(param, grad, lr, None, hyper)
    for given in (buffer, torch.zeros(shape)):
        new_param, new_buffer = run(SGD, "sgd_" + config, [
            param, grad, scalar(SGD_LR, "f32"), given, scalar(1, "i64")])
        assert_close(new_param, expected, dtype)
        assert_close(new_buffer, expected_buffer, "f32")
    # Damping the first step into the zero buffer is a different update.
    damped, damped_buffer = torch_sgd(param, grad, lr, torch.zeros(shape),
                                      hyper)
    assert_distinguishes([damped, damped_buffer], [expected, expected_buffer],
                         [dtype, "f32"])


# ---------------------------------------------------------------------------
# adam_update
# ---------------------------------------------------------------------------

ADAM_SHAPE = (37, 53)
# name: (param/grad type, hyperparameters; decoupled = AdamW)
ADAM_CONFIGS = {
    "adam_f32": ("f32", {}),
    "adam_weight_decay_f32": ("f32", {"weight_decay": 0.1}),
    "adamw_f32": ("f32", {"weight_decay": 0.1, "decoupled": True}),
    "adam_betas_eps_f32": ("f32", {"beta1": 0.8, "beta2": 0.99, "eps": 1e-3}),
    "adam_weight_decay_f16": ("f16", {"weight_decay": 0.1}),
    "adamw_f16": ("f16", {"weight_decay": 0.1, "decoupled": True}),
    "adam_weight_decay_bf16": ("bf16", {"weight_decay": 0.1}),
    "adamw_bf16": ("bf16", {"weight_decay": 0.1, "decoupled": True}),
}
ADAM_LR = 0.05
# The updates of 16-bit parameters must stand out of their rounding.
ADAM_LR_16 = 0.5
STEPS = [1, 2, 10, 1000]
ADAM_CASES = ([(config, step) for config in sorted(ADAM_CONFIGS)
               if config.endswith("f32") for step in STEPS] +
              [(config, step) for config in sorted(ADAM_CONFIGS)
               if not config.endswith("f32") for step in (1, 10)])


def adam_function(config):
    dtype, hyper = ADAM_CONFIGS[config]
    t, f = tensor_type(ADAM_SHAPE, dtype), tensor_type(ADAM_SHAPE, "f32")
    attrs = "{optimizer = #mixprec.%s<beta1 = %s, beta2 = %s, eps = %s, " \
            "weight_decay = %s>}" % (
                "adamw" if hyper.get("decoupled") else "adam",
                float_literal(hyper.get("beta1", 0.9)),
                float_literal(hyper.get("beta2", 0.999)),
                float_literal(hyper.get("eps", 1e-8)),
                float_literal(hyper.get("weight_decay", 0.0)))
    return op_function(
        config, [t, t, f, f, LR_TYPE, STEP_TYPE], [t, f, f],
        "mixprec.adam_update %%a0, %%a1, %%a2, %%a3, %%a4, %%a5 %s : "
        "%s, %s, %s" % (attrs, t, t, f))


ADAM = module([adam_function(config) for config in sorted(ADAM_CONFIGS)])


def torch_adam(param, grad, exp_avg, exp_avg_sq, lr, step, hyper):
    """torch.optim.Adam (AdamW if decoupled) at `step` on f32 copies, the
    moments of step - 1 preloaded (none at step 1); returns (param, exp_avg,
    exp_avg_sq)."""
    hyper = dict(hyper)
    optimizer_class = (torch.optim.AdamW if hyper.pop("decoupled", False)
                       else torch.optim.Adam)
    betas = (hyper.pop("beta1", 0.9), hyper.pop("beta2", 0.999))
    hyper.setdefault("weight_decay", 0.0)  # AdamW's default is 0.01
    p = torch.nn.Parameter(param.float().clone())
    p.grad = grad.float().clone()
    optimizer = optimizer_class([p], lr=lr, betas=betas, **hyper)
    if step > 1:
        optimizer.state[p]["step"] = torch.tensor(float(step - 1))
        optimizer.state[p]["exp_avg"] = exp_avg.clone()
        optimizer.state[p]["exp_avg_sq"] = exp_avg_sq.clone()
    optimizer.step()
    state = optimizer.state[p]
    return p.detach(), state["exp_avg"], state["exp_avg_sq"]


def adam_neighbours(step, hyper):
    """(hyperparameters, step) of the cases that must be told apart."""
    if hyper.get("beta2", 0.999) ** step < 1e-3:
        # The bias corrections of step - 1 and step differ by less than
        # the tolerance (beta2^step * (1 - beta2)): ten times fewer steps.
        yield hyper, step // 10
    else:
        yield hyper, (2 if step == 1 else step - 1)
    if hyper.get("weight_decay"):
        yield dict(hyper, weight_decay=0.0), step
        yield dict(hyper, decoupled=not hyper.get("decoupled")), step
    if "eps" in hyper:
        yield dict(hyper, eps=1e-8), step


@pytest.mark.parametrize("config,step", ADAM_CASES,
                         ids=["%s-step%d" % case for case in ADAM_CASES])
def test_adam_update(config, step):
    dtype, hyper = ADAM_CONFIGS[config]
    param, grad = random(ADAM_SHAPE, dtype, 6), random(ADAM_SHAPE, dtype, 7)
    # Moments of step - 1 (zero before step 1), scaled as the bias
    # corrections expect them.
    beta1, beta2 = hyper.get("beta1", 0.9), hyper.get("beta2", 0.999)
    exp_avg = random(ADAM_SHAPE, "f32", 8, scale=0.3) * (
        1 - beta1 ** (step - 1))
    exp_avg_sq = (random(ADAM_SHAPE, "f32", 9, scale=0.7) ** 2 + 0.01) * (
        1 - beta2 ** (step - 1))
    lr = ADAM_LR if dtype == "f32" else ADAM_LR_16
    new_param, new_exp_avg, new_exp_avg_sq = run(ADAM, config, [
        param, grad, exp_avg, exp_avg_sq, scalar(lr, "f32"),
        scalar(step, "i64")])
    lr = as_f32(lr)
    expected = torch_adam(param, grad, exp_avg, exp_avg_sq, lr, step, hyper)
    assert new_param.dtype == TORCH_DTYPES[dtype]
    assert_close(new_param, expected[0], dtype)
    assert_close(new_exp_avg, expected[1], "f32")
    assert_close(new_exp_avg_sq, expected[2], "f32")
    for neighbour, neighbour_step in adam_neighbours(step, hyper):
        wrong = torch_adam(param, grad, exp_avg, exp_avg_sq, lr,
                           neighbour_step, neighbour)
        assert_distinguishes(wrong, expected, [dtype, "f32", "f32"])


# ---------------------------------------------------------------------------
# loss_scale_update
# ---------------------------------------------------------------------------

# name: attributes (defaults: growth 2, backoff 0.5, interval 2000,
# hysteresis 1, min_scale 1, max_scale 2^24)
LOSS_SCALE_CONFIGS = {
    "defaults": "",
    "interval3": "growth_interval = 3 : i64",
    "cap100": "growth_interval = 1 : i64, max_scale = 100.0 : f64",
    "floor2": "backoff_factor = 0.25 : f64, min_scale = 2.0 : f64",
    "huge": "growth_factor = 4.0 : f64, growth_interval = 1 : i64, "
            "max_scale = 3.0e38 : f64",
    "hysteresis3": "growth_interval = 2 : i64, hysteresis = 3 : i64",
}
STATE_TYPES = [tensor_type((), "f32"), tensor_type((), "i32"),
               tensor_type((), "i32")]


def loss_scale_function(config):
    attrs = LOSS_SCALE_CONFIGS[config]
    return op_function(
        "loss_scale_" + config, STATE_TYPES + [tensor_type((), "i1")],
        STATE_TYPES, "mixprec.loss_scale_update %%a0, %%a1, %%a2, %%a3 %s" % (
            "{%s}" % attrs if attrs else ""))


LOSS_SCALE = module([loss_scale_function(config)
                     for config in sorted(LOSS_SCALE_CONFIGS)])

CLEAN, OVERFLOW = True, False
# name: (config, start (scale, tracker, hysteresis_left),
#        [(finite, expected state after the step), ...]), computed by hand.
LOSS_SCALE_SEQUENCES = {
    # Growth on the 2000th clean step, then an overflow halves the scale.
    "growth_after_interval": ("defaults", (65536.0, 1997, 1), [
        (CLEAN, (65536.0, 1998, 1)),
        (CLEAN, (65536.0, 1999, 1)),
        (CLEAN, (131072.0, 0, 1)),
        (CLEAN, (131072.0, 1, 1)),
        (OVERFLOW, (65536.0, 0, 1)),
        (CLEAN, (65536.0, 1, 1)),
    ]),
    # Three clean steps grow; an overflow restarts the count.
    "growth_interval3": ("interval3", (8.0, 0, 1), [
        (CLEAN, (8.0, 1, 1)),
        (CLEAN, (8.0, 2, 1)),
        (CLEAN, (16.0, 0, 1)),
        (CLEAN, (16.0, 1, 1)),
        (CLEAN, (16.0, 2, 1)),
        (OVERFLOW, (8.0, 0, 1)),
        (CLEAN, (8.0, 1, 1)),
        (CLEAN, (8.0, 2, 1)),
        (CLEAN, (16.0, 0, 1)),
    ]),
    # The default max_scale is 2^24: 2^23 grows to it, 1.5 * 2^23 is capped
    # to it (not 1.5 * 2^24), and it stays there.
    "default_max_scale": ("defaults", (8388608.0, 1999, 1), [
        (CLEAN, (16777216.0, 0, 1)),
    ]),
    "default_max_scale_capped": ("defaults", (12582912.0, 1999, 1), [
        (CLEAN, (16777216.0, 0, 1)),
    ]),
    "default_max_scale_stays": ("defaults", (16777216.0, 1999, 1), [
        (CLEAN, (16777216.0, 0, 1)),
        (OVERFLOW, (8388608.0, 0, 1)),
    ]),
    "cap_at_max_scale": ("cap100", (40.0, 0, 1), [
        (CLEAN, (80.0, 0, 1)),
        (CLEAN, (100.0, 0, 1)),  # 160 capped
        (CLEAN, (100.0, 0, 1)),
        (OVERFLOW, (50.0, 0, 1)),
        (CLEAN, (100.0, 0, 1)),
    ]),
    # 2^127 * 4 = 2^129 is Inf in f32: the scale stays 2^127 (not
    # max_scale = 3e38), the tracker still resets.
    "growth_to_inf_keeps_scale": ("huge", (2.0 ** 123, 0, 1), [
        (CLEAN, (2.0 ** 125, 0, 1)),
        (CLEAN, (2.0 ** 127, 0, 1)),
        (CLEAN, (2.0 ** 127, 0, 1)),
        (CLEAN, (2.0 ** 127, 0, 1)),
        (OVERFLOW, (2.0 ** 126, 0, 1)),
    ]),
    "backoff_default_floor": ("defaults", (1.5, 7, 1), [
        (OVERFLOW, (1.0, 0, 1)),  # 0.75 floored at min_scale 1
        (OVERFLOW, (1.0, 0, 1)),
        (CLEAN, (1.0, 1, 1)),
    ]),
    "backoff_to_min_scale": ("floor2", (40.0, 5, 1), [
        (OVERFLOW, (10.0, 0, 1)),
        (OVERFLOW, (2.5, 0, 1)),
        (OVERFLOW, (2.0, 0, 1)),  # 0.625 floored at min_scale 2
        (OVERFLOW, (2.0, 0, 1)),
        (CLEAN, (2.0, 1, 1)),
    ]),
    # hysteresis 3: two overflows only count down, the third backs off, and
    # so does every further one until a growth resets the count to 3.
    "hysteresis": ("hysteresis3", (1024.0, 0, 3), [
        (OVERFLOW, (1024.0, 0, 2)),
        (OVERFLOW, (1024.0, 0, 1)),
        (OVERFLOW, (512.0, 0, 1)),
        (OVERFLOW, (256.0, 0, 1)),
        (CLEAN, (256.0, 1, 1)),
        (CLEAN, (512.0, 0, 3)),  # growth resets hysteresis_left
        (CLEAN, (512.0, 1, 3)),
        (OVERFLOW, (512.0, 0, 2)),  # absorbed, but the tracker resets
        (CLEAN, (512.0, 1, 2)),  # a clean step alone does not reset it
        (OVERFLOW, (512.0, 0, 1)),
        (CLEAN, (512.0, 1, 1)),
        (CLEAN, (1024.0, 0, 3)),
        (OVERFLOW, (1024.0, 0, 2)),
        (OVERFLOW, (1024.0, 0, 1)),
        (OVERFLOW, (512.0, 0, 1)),
    ]),
}


def loss_scale_step(config, state, finite):
    scale, tracker, hysteresis = run(
        LOSS_SCALE, "loss_scale_" + config,
        [scalar(state[0], "f32"), scalar(state[1], "i32"),
         scalar(state[2], "i32"), scalar(finite, "i1")])
    assert (scale.dtype, tracker.dtype, hysteresis.dtype) == (
        torch.float32, torch.int32, torch.int32)
    assert scale.shape == tracker.shape == hysteresis.shape == ()
    return (scale.item(), tracker.item(), hysteresis.item())


@pytest.mark.parametrize("sequence", sorted(LOSS_SCALE_SEQUENCES))
def test_loss_scale_update(sequence):
    config, state, steps = LOSS_SCALE_SEQUENCES[sequence]
    for index, (finite, expected) in enumerate(steps):
        state = loss_scale_step(config, state, finite)
        assert state == expected, "step %d (%s)" % (
            index, "clean" if finite else "overflow")


@pytest.fixture(scope="module", autouse=True)
def _precompiled():
    """Compiles every module of this file concurrently before its tests."""
    precompile([SGD, ADAM, LOSS_SCALE])
