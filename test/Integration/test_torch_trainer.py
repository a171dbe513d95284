"""mpt.Trainer and the optimizer translation against PyTorch: the same
module trained by a compiled train step and by torch.optim (SGD, Adam,
AdamW, parameter groups, lr_scheduler, an optimizer with existing state),
the trainer's state dict, checkpoints, eval-mode forward, bf16 tensors in
and out, loss scaling's skipped steps, and the errors of bad batches and
bad arguments."""
import copy
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mixprec.torch as mpt

ROWS, FEATURES, CLASSES = 8, 16, 4


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(FEATURES, 32), nn.ReLU(),
                         nn.Linear(32, CLASSES))


class BatchNormNet(nn.Module):
    """A classifier with batch-norm buffers (running statistics and the
    batch count) and optional dropout."""

    def __init__(self, dropout=0.0):
        super().__init__()
        self.fc1 = nn.Linear(FEATURES, 32)
        self.bn = nn.BatchNorm1d(32)
        self.drop = nn.Dropout(dropout)
        self.fc2 = nn.Linear(32, CLASSES)

    def forward(self, x):
        return self.fc2(self.drop(self.bn(F.relu(self.fc1(x)))))


def batch_norm_net(dropout=0.0):
    torch.manual_seed(0)
    return BatchNormNet(dropout)


def cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y)


def batches(count, rows=ROWS):
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(rows, FEATURES, generator=generator),
             torch.randint(0, CLASSES, (rows,), generator=generator))
            for _ in range(count)]


def pytorch_step(model, optimizer, batch):
    optimizer.zero_grad()
    loss = cross_entropy(model, *batch)
    loss.backward()
    optimizer.step()
    return loss.item()


def assert_state_close(state, reference, atol=1e-5):
    assert list(state) == list(reference)
    for key, value in reference.items():
        assert state[key].dtype == value.dtype, key
        assert torch.allclose(state[key], value, rtol=0, atol=atol), (
            key, (state[key].double() - value.double()).abs().max().item())


def assert_state_equal(state, reference):
    """Bit for bit (a NaN equals a NaN of the same bits)."""
    assert list(state) == list(reference)
    for key, value in reference.items():
        assert state[key].dtype == value.dtype, key
        assert state[key].shape == value.shape, key
        bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32,
                8: torch.int64}[value.element_size()]
        assert torch.equal(state[key].view(bits), value.view(bits)), key


def train_side_by_side(make_model, make_optimizer, steps, scheduler=None,
                       schedule_after_compile=False):
    """Trains `make_model()` with mixprec and a copy with PyTorch, each
    with its own `make_optimizer(model)` (and `scheduler(optimizer)`,
    made before or after mpt.compile), checking the losses at each step
    and the state at the end; returns (trainer, PyTorch's model)."""
    model = make_model()
    reference = copy.deepcopy(model)
    optimizer = make_optimizer(model)
    reference_optimizer = make_optimizer(reference)
    schedules = []
    if scheduler and not schedule_after_compile:
        schedules = [scheduler(optimizer)]
    data = batches(steps)
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=optimizer)
    if scheduler:
        if schedule_after_compile:
            schedules = [scheduler(optimizer)]
        schedules.append(scheduler(reference_optimizer))
    for batch in data:
        loss = trainer.step(*batch)
        expected = pytorch_step(reference, reference_optimizer, batch)
        assert loss == pytest.approx(expected, rel=1e-4)
        for schedule in schedules:
            schedule.step()
    assert_state_close(trainer.state_dict(), reference.state_dict())
    return trainer, reference


@pytest.mark.parametrize("schedule_after_compile", [False, True],
                         ids=["scheduler-first", "compile-first"])
def test_step_lr_schedule_is_read_at_each_step(schedule_after_compile):
    def sgd(model):
        return torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer, reference = train_side_by_side(
            mlp, sgd, 10,
            lambda o: torch.optim.lr_scheduler.StepLR(o, 3, gamma=0.5),
            schedule_after_compile)
    # Neither "lr_scheduler.step() before optimizer.step()" nor "optimizer
    # .step() has been overridden after learning rate scheduler ...".
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "lr_scheduler" in m or
                "optimizer.step()" in m], messages
    assert trainer.step_count == 10
    # The schedule changed the rate: a constant 0.5 would not match.
    constant = mlp()
    constant_optimizer = sgd(constant)
    for batch in batches(10):
        pytorch_step(constant, constant_optimizer, batch)
    assert not torch.allclose(constant[0].weight, reference[0].weight,
                              atol=1e-3)


@pytest.mark.parametrize("make_optimizer", [
    lambda p: torch.optim.SGD(p, lr=0.1),
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-2),
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.8, nesterov=True,
                              weight_decay=1e-3),
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.5,
                              weight_decay=1e-3),
    lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.8, 0.99), eps=1e-6,
                               weight_decay=1e-2),
    lambda p: torch.optim.AdamW(p, lr=0.01, betas=(0.85, 0.995), eps=1e-7,
                                weight_decay=0.05),
], ids=["sgd", "sgd-momentum-decay", "sgd-nesterov", "sgd-dampening", "adam",
        "adamw"])
def test_optimizer_matches_pytorch(make_optimizer):
    train_side_by_side(mlp, lambda m: make_optimizer(m.parameters()), 10)


def decay_groups(model, decay=0.01, other_decay=0.0, **other):
    """Weight decay on the linear layers' weights only (none on biases and
    norms), as transformers' recipes do."""
    decayed = [p for n, p in model.named_parameters()
               if n.endswith("weight") and not n.startswith("bn.")]
    undecayed = [p for n, p in model.named_parameters()
                 if not (n.endswith("weight") and not n.startswith("bn."))]
    return [{"params": decayed, "weight_decay": decay},
            dict({"params": undecayed, "weight_decay": other_decay}, **other)]


def test_adamw_without_decay_on_biases_and_norms():
    def grouped(model):
        return torch.optim.AdamW(decay_groups(model), lr=0.01)

    trainer, _ = train_side_by_side(batch_norm_net, grouped, 10)
    # Decay everywhere gives other biases and norm weights.
    everywhere = batch_norm_net()
    optimizer = torch.optim.AdamW(everywhere.parameters(), lr=0.01,
                                  weight_decay=0.01)
    for batch in batches(10):
        pytorch_step(everywhere, optimizer, batch)
    state = trainer.state_dict()
    assert not torch.allclose(state["bn.weight"], everywhere.bn.weight,
                              rtol=0, atol=1e-4)


@pytest.mark.parametrize("groups, construct", [
    (dict(other_decay=0.02), "different nonzero weight decays"),
    (dict(lr=0.1), "different learning rates"),
], ids=["two-decays", "two-rates"])
def test_groups_that_differ_otherwise_are_refused(groups, construct):
    model = batch_norm_net()
    optimizer = torch.optim.AdamW(decay_groups(model, **groups), lr=0.01)
    with pytest.raises(mpt.UnsupportedError, match=construct):
        mpt.compile(model, cross_entropy, example_batch=batches(1)[0],
                    optimizer=optimizer)


def test_a_schedule_that_splits_the_rates_is_refused_at_the_step():
    model = batch_norm_net()
    optimizer = torch.optim.SGD(decay_groups(model), lr=0.1)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, [lambda epoch: 1.0, lambda epoch: 0.5 ** epoch])
    data = batches(2)
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=optimizer)
    trainer.step(*data[0])
    schedule.step()
    before = trainer.state_dict()
    with pytest.raises(mpt.UnsupportedError,
                       match=r"different learning rates \(lr \[0.05, 0.1\]"):
        trainer.step(*data[1])
    assert trainer.step_count == 1
    assert_state_equal(trainer.state_dict(), before)


def test_amsgrad_is_refused():
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), amsgrad=True)
    with pytest.raises(mpt.UnsupportedError, match="amsgrad"):
        mpt.compile(model, cross_entropy, example_batch=batches(1)[0],
                    optimizer=optimizer)


@pytest.mark.parametrize("make_optimizer", [
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.5),
    lambda p: torch.optim.Adam(p, lr=0.01),
], ids=["sgd-momentum", "sgd-dampening", "adam"])
def test_continues_from_the_optimizers_state(make_optimizer):
    model = batch_norm_net()
    optimizer = make_optimizer(model.parameters())
    data = batches(8)
    for batch in data[:3]:
        pytorch_step(model, optimizer, batch)
    reference, reference_optimizer = copy.deepcopy((model, optimizer))
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=optimizer)
    for batch in data[3:]:
        loss = trainer.step(*batch)
        expected = pytorch_step(reference, reference_optimizer, batch)
        assert loss == pytest.approx(expected, rel=1e-4)
    assert_state_close(trainer.state_dict(), reference.state_dict())


@pytest.fixture
def trained():
    """A batch-norm classifier after 3 Adam steps by mixprec and by
    PyTorch: (trainer, PyTorch's model, its optimizer)."""
    model = batch_norm_net()
    reference = copy.deepcopy(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=0.01)
    trainer = mpt.compile(model, cross_entropy, example_batch=batches(1)[0],
                          optimizer=optimizer)
    for batch in batches(3):
        trainer.step(*batch)
        pytorch_step(reference, reference_optimizer, batch)
    return trainer, reference, reference_optimizer


def test_state_dict_is_the_modules(trained):
    trainer, reference, _ = trained
    state = trainer.state_dict()
    assert all(isinstance(t, torch.Tensor) for t in state.values())
    assert state["bn.num_batches_tracked"].item() == 3
    assert_state_close(state, reference.state_dict())
    loaded = batch_norm_net()
    loaded.load_state_dict(state, strict=True)
    assert_state_equal(loaded.state_dict(), state)


def test_load_state_dict_then_steps_continue_like_pytorch(trained):
    trainer, reference, reference_optimizer = trained
    torch.manual_seed(5)
    elsewhere = BatchNormNet()
    for batch in batches(2):
        elsewhere(batch[0])  # other running statistics
    elsewhere.bn.num_batches_tracked.fill_(7)
    state = elsewhere.state_dict()
    trainer.load_state_dict(state)
    reference.load_state_dict(state)
    assert_state_equal(trainer.state_dict(), reference.state_dict())
    for batch in batches(3)[::-1]:
        loss = trainer.step(*batch)
        expected = pytorch_step(reference, reference_optimizer, batch)
        assert loss == pytest.approx(expected, rel=1e-4)
    assert_state_close(trainer.state_dict(), reference.state_dict())


def test_load_state_dict_of_another_module_changes_nothing(trained):
    trainer = trained[0]
    before = trainer.state_dict()
    state = copy.deepcopy(before)
    del state["bn.running_var"]
    with pytest.raises(KeyError, match="bn.running_var"):
        trainer.load_state_dict(state)
    state = copy.deepcopy(before)
    state["fc1.weight"] = torch.zeros(3, 3)
    state["bn.running_mean"] = torch.ones(32)
    with pytest.raises(ValueError, match="fc1.weight"):
        trainer.load_state_dict(state)
    assert_state_equal(trainer.state_dict(), before)


class ScaledNet(nn.Module):
    """A classifier whose buffer the forward reads directly: it is compiled
    in as a constant."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(FEATURES, CLASSES)
        self.register_buffer("scale", torch.full((CLASSES,), 0.5))

    def forward(self, x):
        return self.fc(x) * self.scale


def test_load_state_dict_refuses_a_new_value_of_a_compiled_in_buffer():
    torch.manual_seed(0)
    model = ScaledNet()
    trainer = mpt.compile(model, cross_entropy, example_batch=batches(1)[0],
                          optimizer=torch.optim.SGD(model.parameters(),
                                                    lr=0.1))
    before = trainer.state_dict()
    trainer.load_state_dict(copy.deepcopy(before))  # the same value: fine
    state = copy.deepcopy(before)
    state["scale"] = torch.full((CLASSES,), 2.0)
    state["fc.bias"] = torch.ones(CLASSES)
    with pytest.raises(ValueError, match="'scale' is not state of the "
                       "compiled model"):
        trainer.load_state_dict(state)
    assert_state_equal(trainer.state_dict(), before)


def test_checkpoint_restores_bit_exactly(trained, tmp_path):
    trainer = trained[0]
    path = tmp_path / "checkpoint"
    trainer.save(path)
    saved = trainer.state_dict()
    batch = batches(4)[3]
    next_loss = trainer.step(*batch)
    after_next = trainer.state_dict()
    trainer.step(*batch)
    trainer.load(path)
    assert_state_equal(trainer.state_dict(), saved)
    assert trainer.step_count == 3
    assert trainer.step(*batch) == next_loss
    assert_state_equal(trainer.state_dict(), after_next)


def test_forward_is_eval_mode_on_any_rows():
    model = batch_norm_net(dropout=0.5)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = mpt.compile(model, cross_entropy, example_batch=batches(1)[0],
                          optimizer=optimizer)
    for batch in batches(3):
        trainer.step(*batch)
    state = trainer.state_dict()
    model.load_state_dict(state, strict=True)
    model.eval()
    generator = torch.Generator().manual_seed(2)
    for rows in (1, 7, 100):
        x = torch.randn(rows, FEATURES, generator=generator)
        output = trainer.forward(x)
        assert output.dtype == torch.float32
        assert output.shape == (rows, CLASSES)
        with torch.no_grad():
            assert torch.allclose(output, model(x), rtol=1e-5, atol=1e-6)
    assert_state_equal(trainer.state_dict(), state)


@pytest.mark.parametrize("change, message", [
    (lambda x, y: (x[:5], y[:5]), "drop_last=True"),
    (lambda x, y: (x, y.int()), "torch.int32"),
    (lambda x, y: (x.double(), y), "torch.float64"),
    (lambda x, y: (x.double().numpy(), y.numpy()), "float64"),
    (lambda x, y: (x,), "takes 2 tensors"),
], ids=["last-batch", "int32-labels", "float64-data", "numpy-float64",
        "one-tensor"])
def test_another_batch_is_refused(trained, change, message):
    trainer = trained[0]
    before = trainer.state_dict()
    with pytest.raises(ValueError, match=message):
        trainer.step(*change(*batches(1)[0]))
    assert trainer.step_count == 3
    assert_state_equal(trainer.state_dict(), before)


def test_forward_refuses_another_dtype_or_feature_count(trained):
    trainer = trained[0]
    with pytest.raises(ValueError, match="torch.float64") as error:
        trainer.forward(torch.randn(3, FEATURES, dtype=torch.float64))
    assert "drop_last" not in str(error.value)  # any number of rows
    with pytest.raises(ValueError, match=r"\[rows, %d\]" % FEATURES):
        trainer.forward(torch.randn(3, FEATURES + 1))


class Bf16Classifier(nn.Module):
    """Takes bf16 rows and returns bf16 logits, computing in FP32."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.fc(x.float()).to(torch.bfloat16)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_bf16_tensors_in_and_out(precision):
    torch.manual_seed(0)
    model = Bf16Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(x.bfloat16(), y) for x, y in batches(3)]
    trainer = mpt.compile(
        model, lambda m, x, y: F.cross_entropy(m(x).float(), y),
        example_batch=data[0], optimizer=optimizer, precision=precision)
    for batch in data:
        trainer.step(*batch)
    model.load_state_dict(trainer.state_dict(), strict=True)
    x = torch.randn(5, FEATURES).bfloat16()
    output = trainer.forward(x)
    assert output.dtype == torch.bfloat16
    assert output.shape == (5, CLASSES)
    with torch.no_grad():
        expected = model.eval()(x)
    # One bf16 rounding apart at most (FP32 sums in another order).
    assert torch.allclose(output.float(), expected.float(), rtol=2 ** -7,
                          atol=1e-3)
    with pytest.raises(ValueError, match="torch.float32"):
        trainer.forward(x.float())


def test_f16_loss_scaling_skips_an_overflowing_step():
    model = mlp()
    data = batches(2)

    def f16_trainer():
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
        return mpt.compile(model, cross_entropy, example_batch=data[0],
                           optimizer=optimizer, precision="f16",
                           amp_options="init-scale=4096 growth-interval=100")

    trainer, unskipped = f16_trainer(), f16_trainer()
    assert trainer.loss_scale == 4096  # not the default 65536
    trainer.step(*data[0])
    assert not trainer.skipped
    assert trainer.nonfinite_parameters == []
    before = trainer.state_dict()
    x, y = data[1]
    trainer.step(x * 1e5, y)  # beyond f16: autocast makes it inf
    assert trainer.skipped
    assert trainer.skipped_steps == 1
    assert trainer.loss_scale == 2048
    names = trainer.nonfinite_parameters
    assert names and set(names) <= set(dict(model.named_parameters()))
    assert_state_equal(trainer.state_dict(), before)
    assert trainer.step_count == 1
    # The skipped step left the moments and the step count alone too.
    trainer.step(*data[1])
    for batch in data:
        unskipped.step(*batch)
    assert not trainer.skipped
    assert trainer.skipped_steps == 1
    assert_state_close(trainer.state_dict(), unskipped.state_dict(), atol=0)


@pytest.mark.parametrize("arguments, message", [
    (dict(precision="fp8"), "fp32, f16, bf16"),
    (dict(target="tpu"), "'cpu' or 'cuda'"),
    (dict(arch="sm_80"), "arch='sm_80' is for target='cuda'"),
    (dict(amp_options="init-scale=1024"), "precision='f16' or 'bf16'"),
], ids=["precision", "target", "arch-on-cpu", "amp-options-in-fp32"])
def test_bad_compile_arguments(arguments, message):
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match=message):
        mpt.compile(model, cross_entropy, example_batch=batches(1)[0],
                    optimizer=optimizer, **arguments)


class BatchCentered(nn.Module):
    """A forward that subtracts the batch mean: its rows are not
    independent, so it cannot run in chunks of rows."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.fc(x - x.mean(dim=0, keepdim=True))


def test_forward_that_mixes_rows_runs_on_the_compiled_shape_only():
    torch.manual_seed(0)
    model = BatchCentered()
    batch = batches(1)[0]
    trainer = mpt.compile(model, cross_entropy, example_batch=batch,
                          optimizer=torch.optim.SGD(model.parameters(),
                                                    lr=0.1))
    x = batch[0]
    with torch.no_grad():
        expected = model.eval()(x)
    torch.testing.assert_close(trainer.forward(x), expected, rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError, match="mixes the rows of dim 0"):
        trainer.forward(torch.randn(3, FEATURES))


def test_sequence_first_transformer_forward_runs_on_the_compiled_shape():
    torch.manual_seed(0)
    model = nn.Sequential(nn.TransformerEncoderLayer(FEATURES, 2, 32,
                                                     dropout=0.0))
    tokens = torch.randn(6, ROWS, FEATURES)  # [sequence, batch, features]
    trainer = mpt.compile(model, lambda m, x, y: F.mse_loss(m(x), y),
                          example_batch=(tokens, torch.zeros_like(tokens)),
                          optimizer=torch.optim.SGD(model.parameters(),
                                                    lr=0.01))
    with torch.no_grad():
        expected = model.eval()(tokens)
    torch.testing.assert_close(trainer.forward(tokens), expected, rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError, match="mixes the rows of dim 0"):
        trainer.forward(tokens[:4])


class KeywordNet(nn.Module):
    """A forward with keyword and non-tensor arguments, returning a dict;
    trained with a frozen batch norm (eval mode), dropout off and a bias
    without requires_grad."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(FEATURES)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(FEATURES, CLASSES)

    def forward(self, x, scale=1.0, shift=None):
        h = self.drop(self.bn(x))
        out = self.fc(h) * scale
        if shift is not None:
            out = out + shift
        return {"logits": out, "features": h}


def keyword_loss(model, x, y, shift):
    return F.cross_entropy(model(x, scale=2.0, shift=shift)["logits"], y)


def test_forward_as_the_loss_calls_it_and_modes_and_frozen_parameters():
    torch.manual_seed(0)
    model = KeywordNet()
    model.bn.eval()  # frozen statistics, as when fine-tuning
    model.drop.eval()
    model.fc.bias.requires_grad_(False)
    reference = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(3)
    data = [(torch.randn(ROWS, FEATURES, generator=generator),
             torch.randint(0, CLASSES, (ROWS,), generator=generator),
             torch.randn(ROWS, CLASSES, generator=generator))
            for _ in range(4)]
    trainer = mpt.compile(model, keyword_loss, example_batch=data[0],
                          optimizer=torch.optim.AdamW(model.parameters(),
                                                      lr=0.01,
                                                      weight_decay=0.1))
    optimizer = torch.optim.AdamW(reference.parameters(), lr=0.01,
                                  weight_decay=0.1)
    for batch in data:
        optimizer.zero_grad()
        expected = keyword_loss(reference, *batch)
        expected.backward()
        optimizer.step()
        assert trainer.step(*batch) == pytest.approx(expected.item(),
                                                     rel=1e-4)
    state = trainer.state_dict()
    assert_state_close(state, reference.state_dict())
    assert torch.equal(state["fc.bias"], model.fc.bias.detach())
    assert torch.equal(state["bn.running_mean"], model.bn.running_mean)
    x, _, shift = data[0]
    out = trainer.forward(x, shift)  # the tensors the loss passes, in order
    with torch.no_grad():
        expected = reference.eval()(x, scale=2.0, shift=shift)
    assert sorted(out) == ["features", "logits"]
    for key in out:
        torch.testing.assert_close(out[key], expected[key], rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("make_optimizer", [
    lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.3),
    lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.05),
], ids=["sgd-momentum", "adamw"])
def test_pytorch_continues_from_the_optimizer_state_dict(make_optimizer):
    model = batch_norm_net()
    reference = copy.deepcopy(model)
    data = batches(6)
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=make_optimizer(model.parameters()))
    reference_optimizer = make_optimizer(reference.parameters())
    for batch in data[:3]:
        trainer.step(*batch)
        pytorch_step(reference, reference_optimizer, batch)
    # PyTorch takes over from the trainer's weights and optimizer state.
    continued = batch_norm_net()
    continued.load_state_dict(trainer.state_dict())
    continued_optimizer = make_optimizer(continued.parameters())
    continued_optimizer.load_state_dict(trainer.optimizer_state_dict())
    for batch in data[3:]:
        pytorch_step(continued, continued_optimizer, batch)
        pytorch_step(reference, reference_optimizer, batch)
    assert_state_close(continued.state_dict(), reference.state_dict())


class BiasFreeAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(8, 2, bias=False,
                                               batch_first=True)
        self.head = nn.Linear(8, CLASSES)

    def forward(self, x):
        out, _ = self.attention(x, x, x, need_weights=False)
        return self.head(out.mean(dim=1))


def test_attention_without_bias_trains_and_runs_in_eval_mode():
    # PyTorch 1.13's fast path (eval mode, no gradients) fails on it; the
    # importer's eager runs keep gradients on.
    torch.manual_seed(0)
    model = BiasFreeAttention()
    reference = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(5)
    data = [(torch.randn(ROWS, 5, 8, generator=generator),
             torch.randint(0, CLASSES, (ROWS,), generator=generator))
            for _ in range(3)]
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=torch.optim.SGD(model.parameters(),
                                                    lr=0.1))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    for batch in data:
        expected = pytorch_step(reference, optimizer, batch)
        assert trainer.step(*batch) == pytest.approx(expected, rel=1e-4)
    x = data[0][0][:3]
    torch.testing.assert_close(trainer.forward(x), reference.eval()(x),
                               rtol=1e-5, atol=1e-6)


def test_changing_a_setting_other_than_lr_is_refused():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = batches(2)
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=optimizer)
    trainer.step(*data[0])
    before = trainer.state_dict()
    optimizer.param_groups[0]["momentum"] = 0.5
    with pytest.raises(mpt.UnsupportedError,
                       match=r"changing momentum of torch.optim.SGD after "
                       r"mpt.compile \(group 0: momentum 0.9 -> 0.5\)"):
        trainer.step(*data[1])
    assert_state_equal(trainer.state_dict(), before)
    optimizer.param_groups[0]["momentum"] = 0.9
    trainer.step(*data[1])


def test_one_cycle_lr_needs_cycle_momentum_off():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    data = batches(4)
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=optimizer)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.5,
                                                    total_steps=10)
    with pytest.raises(mpt.UnsupportedError, match="cycle_momentum=False"):
        trainer.step(*data[0])
    # Without cycling momentum it is PyTorch's schedule.
    model = mlp()
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=optimizer)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, 0.5, total_steps=10, cycle_momentum=False)
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1,
                                          momentum=0.9)
    reference_scheduler = torch.optim.lr_scheduler.OneCycleLR(
        reference_optimizer, 0.5, total_steps=10, cycle_momentum=False)
    for batch in data:
        expected = pytorch_step(reference, reference_optimizer, batch)
        assert trainer.step(*batch) == pytest.approx(expected, rel=1e-4)
        scheduler.step()
        reference_scheduler.step()
    assert_state_close(trainer.state_dict(), reference.state_dict())


def test_optimizer_state_for_some_parameters_only_is_refused():
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    # A first stage that trained the head only.
    model[0].weight.requires_grad_(False)
    model[0].bias.requires_grad_(False)
    pytorch_step(model, optimizer, batches(1)[0])
    model[0].weight.requires_grad_(True)
    model[0].bias.requires_grad_(True)
    with pytest.raises(mpt.UnsupportedError,
                       match="optimizer state for some parameters only "
                       r"\('2.weight' has state, '0.weight' has none\)"):
        mpt.compile(model, cross_entropy, example_batch=batches(1)[0],
                    optimizer=optimizer)


class SpareHead(nn.Module):
    """A classifier with a head the loss never uses, in the optimizer."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(FEATURES, CLASSES)
        self.spare = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.fc(x)


def test_a_parameter_the_loss_never_reads_keeps_its_optimizer_state():
    torch.manual_seed(0)
    model = SpareHead()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    data = batches(3)
    pytorch_step(model, optimizer, data[0])  # the spare head gets no state
    reference = copy.deepcopy(model)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=0.01)
    reference_optimizer.load_state_dict(optimizer.state_dict())
    trainer = mpt.compile(model, cross_entropy, example_batch=data[0],
                          optimizer=optimizer)
    for batch in data[1:]:
        expected = pytorch_step(reference, reference_optimizer, batch)
        assert trainer.step(*batch) == pytest.approx(expected, rel=1e-4)
    assert_state_close(trainer.state_dict(), reference.state_dict())
    state = trainer.optimizer_state_dict()
    expected = reference_optimizer.state_dict()
    assert sorted(state["state"]) == sorted(expected["state"])
    for index, entry in expected["state"].items():
        for key, value in entry.items():
            torch.testing.assert_close(state["state"][index][key], value,
                                       rtol=1e-5, atol=1e-6)


class SequenceClassifier(nn.Module):
    """Sequence-first tokens to one row per sequence, and a scalar."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.TransformerEncoderLayer(FEATURES, 2, 32,
                                                  dropout=0.0)
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, tokens):
        h = self.encoder(tokens)
        return self.head(h.mean(dim=0)), (h * h).mean()


def test_a_forward_whose_rows_are_not_the_inputs_runs_at_its_shape():
    torch.manual_seed(0)
    model = SequenceClassifier()
    tokens = torch.randn(5, ROWS, FEATURES)  # [sequence, batch, features]
    labels = torch.randint(0, CLASSES, (ROWS,))
    trainer = mpt.compile(
        model, lambda m, x, y: F.cross_entropy(m(x)[0], y) + m(x)[1] * 0.0,
        example_batch=(tokens, labels),
        optimizer=torch.optim.SGD(model.parameters(), lr=0.01))
    logits, energy = trainer.forward(tokens)
    expected_logits, expected_energy = model.eval()(tokens)
    torch.testing.assert_close(logits, expected_logits, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(energy, expected_energy, rtol=1e-4, atol=1e-5)


class NonPersistentNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(FEATURES, CLASSES)
        self.norm = nn.BatchNorm1d(CLASSES)
        self.norm.running_mean = None  # replaced by a non-persistent one
        self.norm.register_buffer("running_mean", torch.zeros(CLASSES),
                                  persistent=False)

    def forward(self, x, scale):
        return self.norm(self.fc(x)) * scale


def test_python_numbers_and_non_persistent_buffers():
    torch.manual_seed(0)
    model = NonPersistentNorm()
    reference = copy.deepcopy(model)
    data = batches(3)
    loss = lambda m, x, y, scale: F.cross_entropy(m(x, scale), y)  # noqa
    trainer = mpt.compile(model, loss, example_batch=data[0] + (2.0,),
                          optimizer=torch.optim.SGD(model.parameters(),
                                                    lr=0.1))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    for x, y in data:
        optimizer.zero_grad()
        expected = loss(reference, x, y, 2.0)
        expected.backward()
        optimizer.step()
        assert trainer.step(x, y, 2.0) == pytest.approx(expected.item(),
                                                        rel=1e-4)
    assert "norm.running_mean" not in trainer.state_dict()
    assert_state_close(trainer.state_dict(), reference.state_dict())


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(CLASSES, FEATURES)
        self.head = nn.Linear(FEATURES, CLASSES, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        return self.head(self.embed(tokens))


def test_tied_keys_load_as_pytorch_does_the_last_one_wins():
    torch.manual_seed(0)
    model = Tied()
    tokens = torch.randint(0, CLASSES, (ROWS,))
    trainer = mpt.compile(model, cross_entropy, example_batch=(tokens, tokens),
                          optimizer=torch.optim.SGD(model.parameters(),
                                                    lr=0.1))
    state = trainer.state_dict()
    state["head.weight"] = torch.zeros(CLASSES, FEATURES)
    trainer.load_state_dict(state)
    model.load_state_dict(state)
    assert torch.equal(model.embed.weight, torch.zeros(CLASSES, FEATURES))
    assert_state_equal(trainer.state_dict(), model.state_dict())


def test_the_same_architecture_reuses_its_compiled_library():
    # The model text holds no weights: another instance with other values
    # hits the cache, and each trainer starts from its own module.
    data = batches(1)[0]
    first, second = mlp(), mlp()
    with torch.no_grad():
        for parameter in second.parameters():
            parameter.add_(1.0)
    trainers = [mpt.compile(m, cross_entropy, example_batch=data,
                            optimizer=torch.optim.SGD(m.parameters(),
                                                      lr=0.1))
                for m in (first, second)]
    assert trainers[0].text == trainers[1].text
    assert trainers[0].library.path == trainers[1].library.path
    for trainer, model in zip(trainers, (first, second)):
        assert_state_equal(trainer.state_dict(), model.state_dict())
