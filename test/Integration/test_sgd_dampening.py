"""SGD with momentum and dampening through the train steps that
--mixprec-autodiff and --amp build, against torch.optim.SGD step for step.

PyTorch's first step sets the momentum buffer to the (weight-decayed)
gradient, undamped, and damps the gradient only from the second step on;
with GradScaler, a skipped step does not call optimizer.step(), so the first
step that is not skipped is the one that sets the buffer. Starting from a
zero buffer and damping every step, as one might, halves the first step here
(dampening 0.5): far outside the 1e-6 the parameters and buffers are held to.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from harness import compile_mlir, random, snapshot, to_numpy
from mlir_text import linear_sum_model

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

SGD = "#mixprec.sgd<momentum = 0.9, dampening = 0.5%s>"
REFERENCE_SGD = {"momentum": 0.9, "dampening": 0.5, "nesterov": False}
LR = 0.1
RTOL = 1e-6

# y = x w^T + b, mean squared error against t; MICRO rows per micro-batch.
MICRO = 8
REGRESSION = """
mixprec.parameter @w : tensor<4x3xf32> = #mixprec.zeros
mixprec.parameter @b : tensor<4xf32> = #mixprec.zeros
func.func @loss(%x: tensor<8x3xf32>, %t: tensor<8x4xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %b = mixprec.read @b : tensor<4xf32>
  %y = mixprec.linear %x, %w, %b : tensor<8x3xf32>, tensor<4x3xf32>, tensor<4xf32> -> tensor<8x4xf32>
  %l = mixprec.mse %y, %t : tensor<8x4xf32>, tensor<8x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer OPTIMIZER
"""

# name: (optimizer fields, accumulation steps, weight decay of w; b, of
# rank 1, is not decayed)
CASES = {
    "plain": ("", 1, 0.0),
    "weight_decay": (", weight_decay = 0.01", 1, 0.01),
    "accumulation": ("", 2, 0.0),
}


def assert_close_relative(actual, expected, what):
    """Within RTOL of the tensor's largest magnitude: the gradients sum in
    another order than PyTorch's, so an element that cancels to near zero
    may be an ulp of its operands away."""
    np.testing.assert_allclose(actual, expected, rtol=RTOL,
                               atol=RTOL * np.abs(expected).max(),
                               err_msg=what)


def assert_matches(trainer, references, step):
    """Each parameter and its momentum buffer, as `references` maps the
    parameter's name to (tensor, optimizer)."""
    for name, (parameter, optimizer) in references.items():
        assert_close_relative(trainer.get(name), parameter.detach().numpy(),
                              "%s, step %d" % (name, step))
        assert_close_relative(
            trainer.get("train.%s.momentum_buffer" % name),
            optimizer.state[parameter]["momentum_buffer"].numpy(),
            "%s's buffer, step %d" % (name, step))


@pytest.mark.parametrize("case", sorted(CASES))
def test_dampened_sgd_matches_pytorch_step_for_step(case):
    fields, accumulation, weight_decay = CASES[case]
    optimizer_text = SGD % fields
    if accumulation > 1:
        optimizer_text += " {accumulation_steps = %d : i64}" % accumulation
    text = REGRESSION.replace("OPTIMIZER", optimizer_text)
    model = compile_mlir(text, ("--autodiff",))
    w = torch.nn.Parameter(random((4, 3), "f32", 1))
    b = torch.nn.Parameter(random((4,), "f32", 2))
    optimizer = torch.optim.SGD(
        [{"params": [w], "weight_decay": weight_decay},
         {"params": [b], "weight_decay": 0.0}], lr=LR, **REFERENCE_SGD)
    trainer = model.trainer()
    trainer.set("w", to_numpy(w))
    trainer.set("b", to_numpy(b))
    rows = MICRO * accumulation
    for step in range(1, 6):
        x = random((rows, 3), "f32", 10 * step)
        t = random((rows, 4), "f32", 10 * step + 1)
        trainer.step([to_numpy(x), to_numpy(t)], LR)
        optimizer.zero_grad()
        for micro in range(accumulation):
            part = slice(micro * MICRO, (micro + 1) * MICRO)
            loss = F.mse_loss(F.linear(x[part], w, b), t[part])
            (loss / accumulation).backward()
        optimizer.step()
        assert trainer.step_count == step
        assert_matches(trainer, {"w": (w, optimizer), "b": (b, optimizer)},
                       step)


# With mlir_text.linear_sum_model, the gradient under f16 autocast is x
# rounded to f16, exactly (the scale is a power of two), and a batch value
# above 65504 overflows and skips the step.
def test_first_step_not_skipped_sets_the_buffer_under_loss_scaling():
    model = compile_mlir(linear_sum_model(SGD % "", "#mixprec.zeros"),
                         ("--amp=precision=f16 init-scale=1024",))
    w = torch.nn.Parameter(random((4, 1), "f32", 3))
    optimizer = torch.optim.SGD([w], lr=LR, **REFERENCE_SGD)
    trainer = model.trainer()
    trainer.set("w", to_numpy(w))
    applied = 0
    script = ["overflow", "overflow", "clean", "clean", "overflow", "clean",
              "clean"]
    for index, kind in enumerate(script):
        # Values of about 1, rounded to f16 as autocast rounds them.
        x = (random((1, 4), "f32", 20 + index) * 0.25 + 1.0).half().float()
        if kind == "overflow":
            x[0, 1] = 1e5
        before = snapshot(model, trainer)
        trainer.step([to_numpy(x)], LR)
        assert trainer.skipped == (kind == "overflow"), index
        if kind == "overflow":
            # A skipped step leaves the weights, the buffer and the step
            # count bit-identical: the next clean step is still the first.
            for name in ("w", "train.w.momentum_buffer", "train.step_count"):
                assert trainer.get(name).tobytes() == before[name], \
                    (index, name)
            continue
        applied += 1
        optimizer.zero_grad()
        (x @ w).sum().backward()
        optimizer.step()
        assert trainer.step_count == applied
        assert_matches(trainer, {"w": (w, optimizer)}, applied)
    assert trainer.skipped_steps == 3
