"""Every module of the torch zoo (torch_zoo.py) imported by mixprec.torch
and trained 20 FP32 steps on the CPU against PyTorch training a copy with
the same initial weights, optimizer and batches: the loss at every step,
then every parameter and buffer, then the eval-mode forward."""
import copy

import pytest
import torch

import mixprec.torch as mpt
import torch_zoo

STEPS = 20


def train_both(case):
    """(trainer, PyTorch's model, its losses, mixprec's losses, the
    untrained module the trainer was compiled from)."""
    model = case.build(dropout=0.0)
    reference = copy.deepcopy(model)
    trainer = mpt.compile(model, case.loss_fn, case.example_batch(),
                          case.optimizer(model), precision="fp32",
                          target="cpu")
    optimizer = case.optimizer(reference)
    expected, got = [], []
    for batch in case.batches(STEPS):
        got.append(trainer.step(*batch))
        optimizer.zero_grad()
        loss = case.loss_fn(reference, *batch)
        loss.backward()
        optimizer.step()
        expected.append(loss.item())
    return trainer, reference, expected, got, model


@pytest.mark.parametrize("name", torch_zoo.NAMES)
def test_fp32_training_matches_pytorch(name):
    case = torch_zoo.case(name)
    trainer, reference, expected, got, model = train_both(case)
    for step, (loss, reference_loss) in enumerate(zip(got, expected)):
        assert loss == pytest.approx(reference_loss, rel=1e-4), (
            "step %d: mixprec %r, PyTorch %r" % (step, loss, reference_loss))

    model.load_state_dict(trainer.state_dict(), strict=True)
    trained = model.state_dict()
    for key, value in reference.state_dict().items():
        if value.is_floating_point():
            torch.testing.assert_close(trained[key], value, rtol=1e-5,
                                       atol=1e-6, msg=lambda m: key + ": " + m)
        else:
            assert torch.equal(trained[key], value), key

    inputs, _ = case.eval_data()
    assert len(inputs[0]) != torch_zoo.BATCH
    with torch.no_grad():
        expected_outputs = model.eval()(*inputs)
    torch.testing.assert_close(trainer.forward(*inputs), expected_outputs,
                               rtol=1e-5, atol=1e-5)


def test_the_zoo_covers_the_importer():
    """Each construct the issue lists appears in some zoo module."""
    types = set()
    for case in torch_zoo.ZOO:
        types.update(type(m) for m in case.build().modules())
    nn = torch.nn
    for required in (nn.Linear, nn.Conv2d, nn.BatchNorm1d, nn.BatchNorm2d,
                     nn.LayerNorm, nn.Embedding, nn.Dropout, nn.ReLU,
                     nn.GELU, nn.Tanh, nn.Sigmoid, nn.SiLU, nn.Softmax,
                     nn.LogSoftmax, nn.MaxPool2d, nn.AvgPool2d,
                     nn.AdaptiveAvgPool2d, nn.Flatten, nn.Identity,
                     nn.Sequential, nn.ModuleList, nn.ModuleDict,
                     nn.MultiheadAttention, nn.TransformerEncoderLayer):
        assert required in types, required.__name__
    optimizers = {type(case.optimizer(case.build())) for case in
                  torch_zoo.ZOO}
    assert optimizers == {torch.optim.SGD, torch.optim.Adam,
                          torch.optim.AdamW}
    assert len(torch_zoo.ZOO) >= 12


def test_dropout_trains_and_is_off_in_forward():
    """The dropout case with its own p > 0: the train step drops (its
    losses are not the dropout-free ones from the same weights) and the
    eval-mode forward does not."""
    case = torch_zoo.case("gelu_silu_dropout")
    assert case.default_dropout > 0
    model = case.build()
    without_dropout = case.build(dropout=0.0)
    batch = case.example_batch()
    trainer = mpt.compile(model, case.loss_fn, batch, case.optimizer(model))
    loss = trainer.step(*batch)
    with torch.no_grad():
        undropped = case.loss_fn(without_dropout, *batch).item()
    assert loss != pytest.approx(undropped, rel=1e-3)
    losses = [trainer.step(*b) for b in case.batches(STEPS)]
    assert all(torch.isfinite(torch.tensor(losses)))
    model.load_state_dict(trainer.state_dict(), strict=True)
    inputs, _ = case.eval_data()
    with torch.no_grad():
        expected = model.eval()(*inputs)
    torch.testing.assert_close(trainer.forward(*inputs), expected,
                               rtol=1e-5, atol=1e-5)
