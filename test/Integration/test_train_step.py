"""The train steps that --mixprec-autodiff builds, compiled for the CPU and
driven through the trainer C ABI (mixprec_trainer_*): FP32 training of the
examples against PyTorch, step for step, and to the accuracy the train-step
issue asks for.

The trainer owns the state; PyTorch's initial weights are set into it by
name, every batch goes through mixprec_trainer_step, the test set through
mixprec_trainer_evaluate.
"""
import pathlib
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import reference_models
from harness import compile_mlir, to_numpy

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
PARAMETERS = ["fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]

def mlp_source(optimizer=None):
    """examples/mlp.mlir (with its @predict), `optimizer` replacing SGD."""
    text = (EXAMPLES / "mlp.mlir").read_text()
    if optimizer:
        text = text.replace("#mixprec.sgd<momentum = 0.9>", optimizer)
    return text


@pytest.fixture(scope="module")
def mlp_step(backend):
    return compile_mlir(mlp_source(), ("--autodiff",))


@pytest.fixture(scope="module")
def digits():
    return reference_models.digits()


def weights_of(model):
    return {"fc1_weight": model[0].weight.detach().clone(),
            "fc1_bias": model[0].bias.detach().clone(),
            "fc2_weight": model[2].weight.detach().clone(),
            "fc2_bias": model[2].bias.detach().clone()}


def trainer_with(model, weights):
    """A trainer whose parameters (and buffers) are set to `weights`."""
    trainer = model.trainer()
    for name, value in weights.items():
        trainer.set(name, to_numpy(value))
    return trainer


def train_alongside(trainer, reference, optimizer, x, labels, size, steps,
                    lr):
    """`steps` steps of the trainer and of PyTorch on the same batches of
    `size`: the trainer's losses and PyTorch's last loss."""
    losses = []
    for index in reference_models.batches(len(x), size, steps):
        losses.append(trainer.step([to_numpy(x[index]),
                                    to_numpy(labels[index])], lr))
        optimizer.zero_grad()
        expected = F.cross_entropy(reference(x[index]), labels[index].long())
        expected.backward()
        optimizer.step()
    return losses, expected.item()


def test_state_and_step_signature(mlp_step):
    moments = ["train." + p + ".momentum_buffer" for p in PARAMETERS]
    assert [spec.name for spec in mlp_step.state] == \
        PARAMETERS + ["train.step_count"] + moments
    function = mlp_step.functions["train"]
    names = [spec.name for spec in function.inputs]
    assert names == PARAMETERS + ["train.step_count"] + moments + \
        ["x", "labels", "arg2"]
    assert [spec.name for spec in function.outputs] == ["result0"] + \
        names[:9]


def test_sgd_momentum_matches_pytorch_for_100_steps(mlp_step, digits):
    x_train, y_train, _, _ = digits
    reference = reference_models.mlp()
    trainer = trainer_with(mlp_step, weights_of(reference))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    losses, expected = train_alongside(trainer, reference, optimizer, x_train,
                                       y_train, 64, 100, 0.1)
    # The loss of the 100th step, and the weights after it.
    assert trainer.step_count == 100
    assert abs(losses[-1] - expected) <= 1e-4 * abs(expected)
    for name, value in weights_of(reference).items():
        np.testing.assert_allclose(trainer.get(name), value.numpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=name)
    np.testing.assert_allclose(
        trainer.get("train.fc1_weight.momentum_buffer"),
        optimizer.state[reference[0].weight]["momentum_buffer"].numpy(),
        rtol=1e-4, atol=1e-5)


def adamw_reference(parameters, decayed, lr):
    """PyTorch's AdamW with the model's decay rule: `decayed` (rank-2
    weights) decay by 0.01, the rest not."""
    others = [p for p in parameters if all(p is not d for d in decayed)]
    return torch.optim.AdamW([{"params": decayed, "weight_decay": 0.01},
                              {"params": others, "weight_decay": 0.0}],
                             lr=lr)


def test_adamw_matches_pytorch_for_100_steps_on_the_mlp(digits):
    model = compile_mlir(mlp_source("#mixprec.adamw<>"), ("--autodiff",))
    x_train, y_train, _, _ = digits
    reference = reference_models.mlp()
    trainer = trainer_with(model, weights_of(reference))
    optimizer = adamw_reference(list(reference.parameters()),
                                [reference[0].weight, reference[2].weight],
                                lr=1e-3)
    losses, expected = train_alongside(trainer, reference, optimizer, x_train,
                                       y_train, 64, 100, 1e-3)
    assert trainer.step_count == 100
    assert abs(losses[-1] - expected) <= 1e-4 * abs(expected)
    for name, value in weights_of(reference).items():
        np.testing.assert_allclose(trainer.get(name), value.numpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=name)
    state = optimizer.state[reference[0].weight]
    np.testing.assert_allclose(trainer.get("train.fc1_weight.exp_avg"),
                               state["exp_avg"].numpy(), rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(trainer.get("train.fc1_weight.exp_avg_sq"),
                               state["exp_avg_sq"].numpy(), rtol=1e-3,
                               atol=1e-10)


@pytest.mark.parametrize("steps", [25, pytest.param(100, marks=pytest.mark.long)])
@pytest.mark.parametrize("optimizer_name", ["adamw", "sgd"])
def test_matches_pytorch_on_the_transformer_block(optimizer_name, steps):
    # Eval-mode dropout, random tokens and labels. AdamW as the example
    # declares it (lr 1e-3, weight decay 0.01 on the rank-2 weights but the
    # embeddings), or SGD with momentum 0.9 (lr 0.05).
    text = (EXAMPLES / "transformer.mlir").read_text()
    for stream in range(3):
        attrs = "{p = 0.1 : f64, stream = %d : i64}" % stream
        assert attrs in text
        text = text.replace(attrs, attrs[:-1] + ", training = false}")
    lr = 1e-3
    if optimizer_name == "sgd":
        text = re.sub(r"#mixprec\.adamw<[^>]*>", "#mixprec.sgd<momentum = 0.9>",
                      text)
        lr = 0.05
    model = compile_mlir(text, ("--autodiff",))
    trainer = model.trainer()
    # PyTorch's weights are the trainer's own initial ones.
    weights = {spec.name: torch.tensor(trainer.get(spec.name),
                                       requires_grad=True)
               for spec in model.state if "." not in spec.name}
    if optimizer_name == "sgd":
        optimizer = torch.optim.SGD(weights.values(), lr=lr, momentum=0.9)
    else:
        decayed = [w for name, w in weights.items()
                   if w.dim() == 2 and "embedding" not in name]
        optimizer = adamw_reference(list(weights.values()), decayed, lr=lr)
    generator = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        tokens = generator.integers(0, 100, (8, 16), dtype=np.int32)
        labels = generator.integers(0, 4, (8,), dtype=np.int32)
        losses.append(trainer.step([tokens, labels], lr))
        optimizer.zero_grad()
        expected = reference_models.transformer_loss(
            weights, torch.from_numpy(tokens), torch.from_numpy(labels),
            None, None)
        expected.backward()
        optimizer.step()
    assert abs(losses[-1] - expected.item()) <= 1e-4 * abs(expected.item())
    for name, value in weights.items():
        # k_bias adds q . k_bias to a whole row of scores, which softmax
        # ignores: its gradient is rounding noise, and Adam turns noise into
        # lr-sized steps, in PyTorch as here.
        if name != "k_bias":
            np.testing.assert_allclose(trainer.get(name),
                                       value.detach().numpy(), rtol=1e-3,
                                       atol=1e-5, err_msg=name)


def test_gradient_accumulation_matches_pytorch(digits):
    # Two micro-batches of 64 per step, stacked into one 128-row batch;
    # PyTorch accumulates loss / 2 of each before one SGD-momentum step.
    text = mlp_source().replace(
        "#mixprec.sgd<momentum = 0.9>",
        "#mixprec.sgd<momentum = 0.9> {accumulation_steps = 2 : i64}")
    model = compile_mlir(text, ("--autodiff",))
    assert model.functions["train"].inputs[9].shape == (128, 64)
    x_train, y_train, _, _ = digits
    reference = reference_models.mlp()
    trainer = trainer_with(model, weights_of(reference))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    for index in reference_models.batches(len(x_train), 128, 20):
        loss = trainer.step([to_numpy(x_train[index]),
                             to_numpy(y_train[index])], 0.1)
        optimizer.zero_grad()
        expected = 0.0
        for half in (index[:64], index[64:]):
            micro = F.cross_entropy(reference(x_train[half]),
                                    y_train[half].long()) / 2
            micro.backward()
            expected += micro.item()
        optimizer.step()
    assert trainer.step_count == 20
    assert abs(loss - expected) <= 1e-4 * abs(expected)
    for name, value in weights_of(reference).items():
        np.testing.assert_allclose(trainer.get(name), value.numpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=name)


def test_digits_accuracy_after_600_steps(mlp_step, digits):
    x_train, y_train, x_test, y_test = digits
    trainer = trainer_with(mlp_step, weights_of(reference_models.mlp()))
    for index in reference_models.batches(len(x_train), 64, 600):
        trainer.step([to_numpy(x_train[index]), to_numpy(y_train[index])],
                     0.1)
    # All 297 test images at once, in chunks of the compiled batch of 64.
    (logits,) = trainer.evaluate("predict", [to_numpy(x_test)])
    assert logits.shape == (297, 10)
    accuracy = (logits.argmax(1) == y_test.numpy()).mean()
    assert accuracy >= 0.96, accuracy


def test_evaluate_matches_pytorch_for_any_row_count(mlp_step, digits):
    _, _, x_test, _ = digits
    reference = reference_models.mlp()
    trainer = trainer_with(mlp_step, weights_of(reference))
    for rows in (1, 63, 64, 65, 297):
        (logits,) = trainer.evaluate("predict", [to_numpy(x_test[:rows])])
        np.testing.assert_allclose(
            logits, reference(x_test[:rows]).detach().numpy(), rtol=1e-5,
            atol=1e-5, err_msg="%d rows" % rows)


def torch_cnn():
    """examples/cnn.mlir in PyTorch."""
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 8, 3, padding=1, bias=False),
        torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3, padding=1, bias=False),
        torch.nn.BatchNorm2d(16), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(64, 10))


def cnn_state(model):
    """The CNN's parameters and batch-norm statistics by ABI name."""
    state = {"conv1_weight": model[0].weight, "conv2_weight": model[4].weight,
             "fc_weight": model[9].weight, "fc_bias": model[9].bias}
    for name, layer in (("bn1", model[1]), ("bn2", model[5])):
        state.update({name + "_weight": layer.weight,
                      name + "_bias": layer.bias,
                      name + "_running_mean": layer.running_mean,
                      name + "_running_var": layer.running_var})
    return {name: value.detach().clone() for name, value in state.items()}


def test_cnn_with_batch_norm_matches_pytorch_for_50_steps(digits):
    # SGD, momentum 0.9, weight decay 5e-4 on the conv and linear weights
    # only (the example's rank rule), lr 0.05, batch 32 of 1x8x8 images.
    model = compile_mlir((EXAMPLES / "cnn.mlir").read_text(), ("--autodiff",))
    x_train, y_train, x_test, y_test = digits
    images = x_train.reshape(-1, 1, 8, 8)
    reference = torch_cnn()
    trainer = trainer_with(model, cnn_state(reference))
    decayed = [reference[0].weight, reference[4].weight, reference[9].weight]
    others = [p for p in reference.parameters()
              if all(p is not d for d in decayed)]
    optimizer = torch.optim.SGD([{"params": decayed, "weight_decay": 5e-4},
                                 {"params": others, "weight_decay": 0.0}],
                                lr=0.05, momentum=0.9)
    losses, expected = train_alongside(trainer, reference, optimizer, images,
                                       y_train, 32, 50, 0.05)
    assert abs(losses[-1] - expected) <= 1e-4 * abs(expected)
    assert losses[-1] < 0.5 * losses[0]  # it learns
    for name, value in cnn_state(reference).items():
        np.testing.assert_allclose(trainer.get(name), value.numpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=name)
