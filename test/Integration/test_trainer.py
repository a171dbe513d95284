"""The trainer C ABI (mixprec_trainer_*, mixprec.h): deterministic
initialization from the declarations, state by name, evaluation in chunks,
and the errors that leave the state untouched."""
import math
import re

import numpy as np
import pytest
import torch

from harness import compile_mlir
from mixprec import ModelError, philox

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

MODEL = """
mixprec.parameter @w : tensor<6x4x3x3xf32> = #mixprec.kaiming_uniform<a = 2.23606797749979, seed = 7>
mixprec.parameter @v : tensor<5x6xf32> = #mixprec.xavier_normal<gain = 2.0, seed = 3>
mixprec.parameter @u : tensor<100xf32> = #mixprec.uniform<low = -2.0, high = 3.0, seed = 11>
mixprec.parameter @n : tensor<1000xf32> = #mixprec.normal<mean = 1.0, std = 0.5, seed = 12>
mixprec.parameter @c : tensor<3xf32> = #mixprec.constant<0.25>
mixprec.buffer @ones : tensor<2xf32> = #mixprec.ones
mixprec.buffer @count : tensor<i32> = #mixprec.constant<7.0>

func.func @loss(%x: tensor<4x5xf32>) -> tensor<f32> {
  %v = mixprec.read @v : tensor<5x6xf32>
  %y = mixprec.matmul %x, %v : tensor<4x5xf32>, tensor<5x6xf32> -> tensor<4x6xf32>
  %l = mixprec.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<4x6xf32>
  return %l : tensor<f32>
}

func.func @project(%x: tensor<4x5xf32>, %shift: tensor<f32>) -> tensor<4x6xf32> {
  %v = mixprec.read @v : tensor<5x6xf32>
  %y = mixprec.matmul %x, %v : tensor<4x5xf32>, tensor<5x6xf32> -> tensor<4x6xf32>
  %s = mixprec.broadcast %shift : tensor<f32> -> tensor<4x6xf32>
  %z = mixprec.add %y, %s : tensor<4x6xf32>, tensor<4x6xf32>
  return %z : tensor<4x6xf32>
}

func.func @total(%x: tensor<4x5xf32>) -> tensor<f32> {
  %l = mixprec.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<4x5xf32>
  return %l : tensor<f32>
}

mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
"""


@pytest.fixture(scope="module")
def model(backend):
    return compile_mlir(MODEL, ("--autodiff",))


def draws(seed, count):
    """u and v of mixprec.h's initialization contract, in float64."""
    index = np.arange(count, dtype=np.uint64)
    words = philox.philox4x32_10(
        (index & 0xFFFFFFFF, index >> np.uint64(32), 0, 0xFFFFFFFF),
        (seed & 0xFFFFFFFF, seed >> 32))
    return ((words[0] >> 8).astype(np.float64) * 2.0**-24,
            (words[1] >> 8).astype(np.float64) * 2.0**-24)


def test_uniform_initializers_follow_the_contract_bit_for_bit(model):
    trainer = model.trainer()
    u, _ = draws(11, 100)
    np.testing.assert_array_equal(trainer.get("u"),
                                  (-2.0 + 5.0 * u).astype(np.float32))
    # kaiming_uniform(a = sqrt(5)) on a conv weight: fan_in = 4 * 3 * 3,
    # torch.nn.init's bound gain * sqrt(3 / fan_in).
    gain = math.sqrt(2.0 / (1.0 + 5.0))
    bound = gain * math.sqrt(3.0 / 36.0)
    u, _ = draws(7, 6 * 4 * 3 * 3)
    expected = (-bound + 2.0 * bound * u).astype(np.float32).reshape(6, 4, 3, 3)
    np.testing.assert_array_equal(trainer.get("w"), expected)
    assert np.abs(expected).max() <= bound


def test_normal_initializers_follow_the_contract(model):
    trainer = model.trainer()
    u, v = draws(12, 1000)
    z = np.sqrt(-2.0 * np.log(1.0 - u)) * np.cos(2.0 * np.pi * v)
    n = trainer.get("n")
    np.testing.assert_allclose(n, 1.0 + 0.5 * z, rtol=1e-6, atol=1e-7)
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    # xavier_normal(gain 2): std = 2 * sqrt(2 / (fan_in + fan_out)).
    u, v = draws(3, 30)
    z = np.sqrt(-2.0 * np.log(1.0 - u)) * np.cos(2.0 * np.pi * v)
    np.testing.assert_allclose(trainer.get("v").ravel(),
                               2.0 * math.sqrt(2.0 / 11.0) * z, rtol=1e-6)


def test_constant_initializers_and_integer_buffers(model):
    trainer = model.trainer()
    np.testing.assert_array_equal(trainer.get("c"), np.full(3, 0.25))
    np.testing.assert_array_equal(trainer.get("ones"), np.ones(2))
    assert trainer.get("count") == 7
    assert trainer.get("train.step_count") == 0 == trainer.step_count


def test_initialization_is_deterministic_and_the_rng_starts_at_the_seed(
        model):
    first, second = model.trainer(seed=5), model.trainer(seed=6)
    for spec in model.state:
        np.testing.assert_array_equal(first.get(spec.name),
                                      second.get(spec.name))
    np.testing.assert_array_equal(first.get("rng_state"), [5, 0])
    np.testing.assert_array_equal(second.get("rng_state"), [6, 0])


def test_step_threads_state_and_advances_count_and_rng(model):
    trainer = model.trainer(seed=9)
    x = np.random.default_rng(0).random((4, 5), dtype=np.float32)
    v = trainer.get("v")
    loss = trainer.step([x], 0.5)
    assert loss == pytest.approx(float((x @ v).mean()), rel=1e-6)
    # d mean(x v) / dv = x^T 1 / 24; SGD without momentum.
    expected = v - np.float32(0.5) * (x.T @ np.ones((4, 6), np.float32) / 24)
    np.testing.assert_allclose(trainer.get("v"), expected, rtol=1e-6)
    assert trainer.step_count == 1
    np.testing.assert_array_equal(trainer.get("rng_state"), [9, 1])
    trainer.set("rng_state", np.array([1, 41], np.int64))
    trainer.step([x], 0.5)
    np.testing.assert_array_equal(trainer.get("rng_state"), [1, 42])
    assert trainer.step_count == 2


def test_set_then_get_round_trips(model):
    trainer = model.trainer()
    value = np.arange(30, dtype=np.float32).reshape(5, 6)
    trainer.set("v", value)
    np.testing.assert_array_equal(trainer.get("v"), value)


def test_evaluate_runs_any_row_count_with_pass_through_scalars(model):
    trainer = model.trainer()
    v = trainer.get("v")
    x = np.random.default_rng(1).random((11, 5), dtype=np.float32)
    shift = np.array(0.5, np.float32)
    for rows in (1, 4, 11):
        (y,) = trainer.evaluate("project", [x[:rows], shift])
        np.testing.assert_allclose(y, x[:rows] @ v + 0.5, rtol=1e-6,
                                   atol=1e-6)


def state_snapshot(model, trainer):
    return {spec.name: trainer.get(spec.name) for spec in model.state}


@pytest.mark.parametrize("call, message", [
    (lambda t: t.step([np.zeros((4, 5), np.float64)], 0.1),
     "train: input 6 ('x') must be f32[4, 5], got f64[4, 5]"),
    (lambda t: t.step([np.zeros((3, 5), np.float32)], 0.1),
     "train: input 6 ('x') must be f32[4, 5], got f32[3, 5]"),
    (lambda t: t.step([], 0.1),
     "train: expects 1 batch tensors (x: f32[4, 5]), got 0"),
    (lambda t: t.set("v", np.zeros((6, 5), np.float32)),
     "value ('v') must be f32[5, 6], got f32[6, 5]"),
    (lambda t: t.set("count", np.zeros((), np.int64)),
     "value ('count') must be i32[], got i64[]"),
    (lambda t: t.get("missing"), "no parameter or buffer named 'missing'"),
    (lambda t: t.evaluate("train", [np.zeros((4, 5), np.float32)]),
     "train is a train step"),
    (lambda t: t.evaluate("total", [np.zeros((4, 5), np.float32)]),
     "total: result 0 is a scalar; evaluate needs per-row results"),
    (lambda t: t.evaluate("project", [np.zeros((4, 6), np.float32),
                                      np.zeros((), np.float32)]),
     "input ('x') must be f32[4 (rows), 5], got f32[4, 6]"),
    (lambda t: t.evaluate("project", [np.zeros((3, 5), np.float64),
                                      np.zeros((), np.float32)]),
     "input ('x') must be f32[3 (rows), 5], got f64[3, 5]"),
    (lambda t: t.set("v", np.zeros((5, 6), np.int8)),
     "value ('v') must be f32[5, 6], got i8[5, 6]"),
    (lambda t: t.evaluate("project", [np.zeros((3, 5), np.float32)]),
     "project: expects 2 inputs (x: f32[3 (rows), 5], shift: f32[]) and 1 "
     "outputs, got 1 and 1"),
    (lambda t: t.evaluate("typo", [np.zeros((4, 5), np.float32)]),
     "no function named 'typo'; the model has loss, project, total, train, "
     "train_gradients"),
    # The learning rate is finite and >= 0 in f32, as on the command line.
    (lambda t: t.step([np.zeros((4, 5), np.float32)], -0.1),
     "train: the learning rate must be finite and >= 0 (in f32), got -0.1"),
    (lambda t: t.step([np.zeros((4, 5), np.float32)], float("nan")),
     "the learning rate must be finite and >= 0 (in f32), got nan"),
    (lambda t: t.step([np.zeros((4, 5), np.float32)], float("inf")),
     "the learning rate must be finite and >= 0 (in f32), got inf"),
    (lambda t: t.step([np.zeros((4, 5), np.float32)], 1e39),
     "the learning rate must be finite and >= 0 (in f32), got 1e+39"),
])
def test_errors_are_reported_and_leave_the_state_untouched(model, call,
                                                          message):
    trainer = model.trainer()
    before = state_snapshot(model, trainer)
    with pytest.raises(ModelError) as error:
        call(trainer)
    assert message in str(error.value)
    after = state_snapshot(model, trainer)
    for name, value in before.items():
        assert after[name].tobytes() == value.tobytes(), name
    assert trainer.step_count == 0


def test_create_needs_a_train_step(model):
    with pytest.raises(ModelError, match="'loss' is not a train step"):
        model.trainer("loss")
    with pytest.raises(ModelError, match="no function named 'nope'; the "
                       "model has loss, project, total, train, "
                       "train_gradients") as error:
        model.trainer("nope")
    assert error.value.status == ModelError.NOT_FOUND


def test_kaiming_bound_matches_torch():
    # The contract's bound is torch.nn.init's: same fans, same gain.
    weight = torch.empty(6, 4, 3, 3)
    fan_in, _ = torch.nn.init._calculate_fan_in_and_fan_out(weight)
    gain = torch.nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    assert gain * math.sqrt(3.0 / fan_in) == pytest.approx(
        math.sqrt(2.0 / 6.0) * math.sqrt(3.0 / 36.0))


def test_long_names_round_trip_through_checkpoints_and_the_scaler(tmp_path):
    # Names past any fixed buffer: a 300-character parameter (and its
    # moments) and a 250-character step with loss-scaler buffers.
    long_parameter = "p" * 300
    long_step = "s" * 250
    text = (MODEL.replace("@v", "@" + long_parameter)
            .replace("@train", "@" + long_step))
    model = compile_mlir(text, ("--amp=precision=f16",))
    trainer = model.trainer(long_step)
    x = np.full((4, 5), 0.01, np.float32)
    trainer.step([x], 0.1)
    assert trainer.loss_scale == 65536.0  # found the scaler's buffer
    path = tmp_path / "long.ckpt"
    trainer.save(path)
    other = model.trainer(long_step, seed=3)
    other.load(path)
    for spec in model.state:
        assert other.get(spec.name).tobytes() == \
            trainer.get(spec.name).tobytes()


def test_a_step_whose_results_are_not_state_is_refused():
    # A hand-written optimizer step returning something that is no
    # parameter or buffer: the trainer refuses it instead of writing it
    # anywhere.
    model = compile_mlir("""
mixprec.parameter @w : tensor<3xf32> = #mixprec.zeros
func.func @train(%x: tensor<3xf32>, %lr: tensor<f32>) -> (tensor<f32>, tensor<64xf32>)
    attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<3xf32>
  %l = mixprec.reduce_sum %w {dims = array<i64: 0>} : tensor<3xf32>
  %z = mixprec.constant dense<0.0> : tensor<64xf32>
  return %l, %z : tensor<f32>, tensor<64xf32>
}
""")
    with pytest.raises(ModelError, match=r"train: result 1 \('result1'\) is "
                                         "not a parameter or buffer"):
        model.trainer()


def test_an_initializer_without_finite_bounds_is_a_compile_error():
    from mixprec import CompileError
    with pytest.raises(CompileError, match="has no finite bounds"):
        compile_mlir("""
mixprec.parameter @w : tensor<4x0xf32> = #mixprec.kaiming_uniform<seed = 1>
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
""")


def small_step(size):
    """A model of one f32[size] parameter with an SGD step."""
    t = "tensor<%dxf32>" % size
    return compile_mlir("""
mixprec.parameter @w : {t} = #mixprec.ones
func.func @loss(%x: {t}) -> tensor<f32> {{
  %w = mixprec.read @w : {t}
  %p = mixprec.mul %w, %x : {t}, {t}
  %l = mixprec.reduce_sum %p {{dims = array<i64: 0>}} : {t}
  return %l : tensor<f32>
}}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
""".format(t=t), ("--autodiff",))


def test_a_checkpoint_of_another_model_names_both_types(tmp_path):
    checkpoint = tmp_path / "w.ckpt"
    small_step(3).trainer().save(checkpoint)
    trainer = small_step(4).trainer()
    before = trainer.get("w")
    with pytest.raises(ModelError, match=r"^%s: 'w' is f32\[3\] in the "
                       r"checkpoint, the model's is f32\[4\]$"
                       % re.escape(str(checkpoint))):
        trainer.load(checkpoint)
    assert trainer.get("w").tobytes() == before.tobytes()


def test_each_state_reports_its_role():
    # The roles of docs/design.md's train-step state, written here from
    # its naming: an Adam step with dynamic loss scaling owns its step
    # count, two moments per parameter and the scaler's buffers.
    model = compile_mlir("""
mixprec.parameter @w : tensor<4x3xf32> = #mixprec.uniform<low = -1.0, high = 1.0, seed = 5>
mixprec.parameter @b : tensor<3xf32> = #mixprec.zeros
mixprec.buffer @seen : tensor<i64> = #mixprec.zeros
func.func @loss(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %b = mixprec.read @b : tensor<3xf32>
  %y = mixprec.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %bb = mixprec.broadcast %b : tensor<3xf32> -> tensor<2x3xf32>
  %z = mixprec.add %y, %bb : tensor<2x3xf32>, tensor<2x3xf32>
  %l = mixprec.reduce_mean %z {dims = array<i64: 0, 1>} : tensor<2x3xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.adam<>
""", ("--amp=precision=f16",))
    assert {spec.name: (spec.role, spec.step) for spec in model.state} == {
        "w": ("parameter", None),
        "b": ("parameter", None),
        "seen": ("buffer", None),
        "train.step_count": ("step_count", "train"),
        "train.w.exp_avg": ("moment", "train"),
        "train.w.exp_avg_sq": ("moment", "train"),
        "train.b.exp_avg": ("moment", "train"),
        "train.b.exp_avg_sq": ("moment", "train"),
        "train.loss_scale": ("loss_scale", "train"),
        "train.loss_scale_tracker": ("loss_scale_tracker", "train"),
        "train.loss_scale_hysteresis": ("loss_scale_hysteresis", "train"),
        "train.skipped": ("skipped", "train"),
        "train.skipped_steps": ("skipped_steps", "train"),
        "train.finite_gradients": ("finite_gradients", "train"),
    }


def test_the_trainer_finds_the_step_count_by_role_not_by_name():
    # A hand-written step whose counter of role step_count is not named
    # `step_count`, beside a plain buffer that is: the trainer counts with
    # the former.
    model = compile_mlir("""
mixprec.parameter @w : tensor<3xf32> = #mixprec.zeros
mixprec.buffer @train.steps_taken : tensor<i64> = #mixprec.zeros role step_count
mixprec.buffer @train.step_count : tensor<i64> = #mixprec.constant<40.0>
func.func @train(%x: tensor<3xf32>, %lr: tensor<f32>) -> tensor<f32>
    attributes {mixprec.optimizer_step} {
  %w = mixprec.read @w : tensor<3xf32>
  %l = mixprec.reduce_sum %w {dims = array<i64: 0>} : tensor<3xf32>
  %taken = mixprec.read @train.steps_taken : tensor<i64>
  %next = mixprec.increment %taken : tensor<i64>
  mixprec.assign @train.steps_taken, %next : tensor<i64>
  %other = mixprec.read @train.step_count : tensor<i64>
  %more = mixprec.increment %other : tensor<i64>
  mixprec.assign @train.step_count, %more : tensor<i64>
  return %l : tensor<f32>
}
""")
    assert {spec.name: (spec.role, spec.step) for spec in model.state} == {
        "w": ("parameter", None), "train.steps_taken": ("step_count", "train"),
        "train.step_count": ("buffer", None)}
    trainer = model.trainer()
    assert trainer.step_count == 0
    trainer.step([np.zeros(3, np.float32)], 0.1)
    trainer.step([np.zeros(3, np.float32)], 0.1)
    assert trainer.step_count == 2
    assert trainer.get("train.step_count") == 42

