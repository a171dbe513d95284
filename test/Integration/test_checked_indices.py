"""Checked indices (--mixprec-check-indices): a class label or token id
outside its range fails the call with MIXPREC_INVALID_ARGUMENT and a message
naming the op, its source location, the position and the value; nothing is
read out of bounds and a train step leaves every piece of the trainer's
state bit-identical. Runs on the CPU library and on its CUDA build on the GPU
simulator, in FP32 and with 16-bit autocast; ignore_index follows PyTorch."""
import re
import subprocess

import numpy as np
import pytest
import torch

from harness import compile_mlir, snapshot
from mixprec import ModelError, tool_path

pytestmark = pytest.mark.usefixtures("backend")

VOCAB, CLASSES, BATCH, SEQ, DIM = 11, 3, 4, 3, 4

# Line 8 holds the embedding and line 12 the loss; the messages name them.
MODEL = """
mixprec.parameter @table : tensor<11x4xf32> = #mixprec.normal<mean = 0.0, std = 1.0, seed = 1>
mixprec.parameter @w : tensor<3x12xf32> = #mixprec.normal<mean = 0.0, std = 0.3, seed = 2>
mixprec.parameter @b : tensor<3xf32> = #mixprec.zeros
func.func @loss(%tokens: tensor<4x3xi32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %table = mixprec.read @table : tensor<11x4xf32>
  %w = mixprec.read @w : tensor<3x12xf32>
  %e = mixprec.embedding %table, %tokens : tensor<11x4xf32>, tensor<4x3xi32>
  %b = mixprec.read @b : tensor<3xf32>
  %flat = mixprec.reshape %e : tensor<4x3x4xf32> -> tensor<4x12xf32>
  %logits = mixprec.linear %flat, %w, %b : tensor<4x12xf32>, tensor<3x12xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %l = mixprec.softmax_cross_entropy %logits, %labels {ignore_index = -100 : i64} : tensor<4x3xf32>, tensor<4xi32>
  return %l : tensor<f32>
}
func.func @embed(%tokens: tensor<4x3xi32>) -> tensor<4x3x4xf32> {
  %table = mixprec.read @table : tensor<11x4xf32>
  %e = mixprec.embedding %table, %tokens : tensor<11x4xf32>, tensor<4x3xi32>
  return %e : tensor<4x3x4xf32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>
"""

PRECISIONS = {"fp32": (), "f16": ("--amp=precision=f16",),
              "bf16": ("--amp=precision=bf16",)}
BAD_LABELS = [-2**31, -1, CLASSES, 255, 2**31 - 1]
BAD_TOKENS = [-2**31, -1, VOCAB, 255, 2**31 - 1]


@pytest.fixture(scope="module", params=list(PRECISIONS))
def model(request, backend):
    options = PRECISIONS[request.param] or ("--autodiff",)
    return compile_mlir(MODEL, options)


def good_batch():
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, VOCAB, (BATCH, SEQ)).astype(np.int32)
    labels = rng.integers(0, CLASSES, BATCH).astype(np.int32)
    return tokens, labels


def assert_refused(model, batch, pattern):
    trainer = model.trainer("train", seed=3)
    trainer.step(list(good_batch()), 0.1)
    before = snapshot(model, trainer)
    with pytest.raises(ModelError) as error:
        trainer.step(batch, 0.1)
    assert error.value.status == ModelError.INVALID_ARGUMENT
    assert re.fullmatch(pattern, str(error.value)), str(error.value)
    assert snapshot(model, trainer) == before
    assert trainer.step_count == 1
    # The trainer goes on from the same state.
    trainer.step(list(good_batch()), 0.1)
    assert trainer.step_count == 2


@pytest.mark.parametrize("value", BAD_LABELS)
def test_a_bad_label_fails_the_step_and_keeps_the_state(model, value):
    tokens, labels = good_batch()
    labels[2] = value
    assert_refused(
        model, [tokens, labels],
        r"train: label %d at row 2 is outside \[0, 3\) "
        r"\(softmax_cross_entropy at .*:12:\d+\)" % value)


@pytest.mark.parametrize("value", BAD_TOKENS)
def test_a_bad_token_id_fails_the_step_and_keeps_the_state(model, value):
    tokens, labels = good_batch()
    tokens[3, 1] = value
    tokens[3, 2] = -7  # a later bad position: the first one is reported
    assert_refused(
        model, [tokens, labels],
        r"train: index %d at \[3, 1\] is outside \[0, 11\) "
        r"\(embedding at .*:8:\d+\)" % value)


def test_the_first_failing_op_in_program_order_is_reported(model):
    tokens, labels = good_batch()
    tokens[0, 0] = VOCAB
    labels[0] = CLASSES
    trainer = model.trainer("train", seed=3)
    with pytest.raises(ModelError, match=r"index 11 at \[0, 0\]"):
        trainer.step([tokens, labels], 0.1)


def loss_of(model, trainer, tokens, labels):
    """The loss function called directly, with the trainer's parameters
    (arguments in declaration order, then the function's own)."""
    state = [trainer.get(name) for name in ("table", "w", "b")]
    (loss,) = model.call("loss", state + [tokens, labels])
    return loss


def test_a_plain_call_checks_too(model):
    trainer = model.trainer("train", seed=3)
    tokens, labels = good_batch()
    labels[1] = 7
    with pytest.raises(ModelError, match=r"loss: label 7 at row 1 is outside"):
        loss_of(model, trainer, tokens, labels)


def test_evaluate_names_the_chunk_of_a_bad_row(model):
    """evaluate runs the compiled batch of 4 rows over 10: the position is
    within the chunk, and the message says which rows the chunk holds."""
    trainer = model.trainer("train", seed=3)
    tokens = np.zeros((10, SEQ), np.int32)
    tokens[6, 1] = 99
    with pytest.raises(ModelError) as error:
        trainer.evaluate("embed", [tokens])
    assert error.value.status == ModelError.INVALID_ARGUMENT
    assert re.fullmatch(r"embed: index 99 at \[2, 1\] is outside \[0, 11\) "
                        r"\(embedding at .*:\d+:\d+\); in the chunk of rows "
                        r"4 to 7", str(error.value)), str(error.value)


def test_ignore_index_matches_pytorch():
    """FP32 loss and gradients of a batch with ignored rows against
    F.cross_entropy(ignore_index=-100); a step with every row ignored has a
    NaN loss, as in PyTorch."""
    model = compile_mlir(MODEL, ("--autodiff",))
    trainer = model.trainer("train", seed=3)
    tokens, labels = good_batch()
    labels[[1, 3]] = -100
    table = torch.tensor(trainer.get("table"), requires_grad=True)
    w = torch.tensor(trainer.get("w"), requires_grad=True)
    b = torch.tensor(trainer.get("b"), requires_grad=True)
    logits = torch.nn.functional.linear(
        table[torch.tensor(tokens, dtype=torch.long)].reshape(BATCH, -1), w, b)
    expected = torch.nn.functional.cross_entropy(
        logits, torch.tensor(labels, dtype=torch.long), ignore_index=-100)
    expected.backward()
    loss = loss_of(model, trainer, tokens, labels)
    np.testing.assert_allclose(loss, expected.item(), rtol=1e-5)
    # SGD with momentum 0.9 from zero buffers: the first step moves each
    # parameter by -lr * grad.
    lr = 0.5
    trainer.step([tokens, labels], lr)
    for name, tensor in (("table", table), ("w", w), ("b", b)):
        moved = (trainer.get(name) - tensor.detach().numpy()) / -lr
        np.testing.assert_allclose(moved, tensor.grad.numpy(), rtol=1e-4,
                                   atol=1e-6, err_msg=name)
    labels[:] = -100
    assert np.isnan(loss_of(model, trainer, tokens, labels))


def test_mixprec_run_stops_at_a_bad_label(tmp_path):
    """The CLI from a .mlir: the first step whose batch holds label 255 ends
    the run with exit 1 and the library's message."""
    source = tmp_path / "model.mlir"
    source.write_text(MODEL)
    tokens = np.zeros((8, SEQ), np.int32)
    labels = np.zeros(8, np.int32)
    labels[5] = 255
    np.save(tmp_path / "tokens.npy", tokens)
    np.save(tmp_path / "labels.npy", labels)
    run = subprocess.run(
        [tool_path("mixprec-run"), "train", str(source), "--data",
         str(tmp_path / "tokens.npy"), "--data", str(tmp_path / "labels.npy"),
         "--steps", "4", "--log-every", "1"],
        capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(r"train: label 255 at row \d is outside \[0, 3\) "
                     r"\(softmax_cross_entropy at .*model\.mlir:12:\d+\)",
                     run.stderr), run.stderr
    assert "Segmentation" not in run.stderr
