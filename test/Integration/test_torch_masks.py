"""masked_fill and torch.where against PyTorch where an operand is
infinite, with constant masks and with padding masks given with the batch.
The importer selects (mixprec.where) rather than blending (x * c + y * (1 -
c) gives inf * 0 = NaN), so scores filled with -inf by two overlapping
masks, torch.where(mask, scores, -inf) and an f16 -inf fill train as in
PyTorch: from the same weights on the same batches, the same finite loss at
each SGD step and the same parameters after, on the CPU and on the CUDA
backend (GPU simulator). A transformer encoder given a bool padding mask
with each batch (src_key_padding_mask, masked mean pooling over ~mask),
whose lengths differ from batch to batch, trains as PyTorch in FP32 and
learns in bf16 AMP."""
import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import harness
import mixprec.torch as mpt
from harness import assert_state_close, steps_as_pytorch

ROWS, FEATURES, KEYS, CLASSES = 8, 12, 10, 4
STEPS = 4
LR = 0.5


class TwiceMasked(nn.Module):
    """Scores filled with -inf by two masks that overlap at key 2 (whose
    score is -inf when the second fill reads it), then softmax."""

    def __init__(self):
        super().__init__()
        self.score = nn.Linear(FEATURES, KEYS)
        self.head = nn.Linear(KEYS, CLASSES)

    def forward(self, x):
        keys = torch.arange(KEYS)
        scores = self.score(x).masked_fill(keys < 3, float("-inf"))
        scores = scores.masked_fill((keys >= 2) & (keys < 5), float("-inf"))
        return self.head(scores.softmax(dim=-1))


class WhereMinusInf(nn.Module):
    """torch.where(mask, scores, -inf) with a mask over rows and keys that
    keeps two keys in three of every row, then softmax."""

    def __init__(self):
        super().__init__()
        self.score = nn.Linear(FEATURES, KEYS)
        self.head = nn.Linear(KEYS, CLASSES)

    def forward(self, x):
        rows = torch.arange(x.shape[0])[:, None]
        keys = torch.arange(KEYS)[None, :]
        keep = (rows + keys) % 3 != 0
        scores = torch.where(keep, self.score(x), float("-inf"))
        return self.head(scores.softmax(dim=-1))


class HalfMasked(nn.Module):
    """masked_fill(-inf) on f16 scores: the fill is f16's -inf."""

    def __init__(self):
        super().__init__()
        self.score = nn.Linear(FEATURES, KEYS)
        self.head = nn.Linear(KEYS, CLASSES)

    def forward(self, x):
        scores = self.score(x).to(torch.float16)
        scores = scores.masked_fill(torch.arange(KEYS) % 4 == 1, float("-inf"))
        return self.head(scores.float().softmax(dim=-1))


MODELS = {"masked_fill twice": TwiceMasked, "where -inf": WhereMinusInf,
          "masked_fill f16": HalfMasked}


def cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y)


def batches(count):
    generator = torch.Generator().manual_seed(3)
    return [(torch.randn(ROWS, FEATURES, generator=generator),
             torch.randint(0, CLASSES, (ROWS,), generator=generator))
            for _ in range(count)]


@pytest.mark.parametrize("target", harness.BACKENDS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_infinite_fill_trains_as_pytorch(name, target):
    torch.manual_seed(0)
    model = MODELS[name]()
    reference = copy.deepcopy(model)
    trainer = mpt.compile(model, cross_entropy, batches(1)[0],
                          torch.optim.SGD(model.parameters(), lr=LR),
                          target=target,
                          arch="sm_90" if target == "cuda" else None)
    assert "mixprec.where" in trainer.text
    optimizer = torch.optim.SGD(reference.parameters(), lr=LR)
    for step, batch in enumerate(batches(STEPS)):
        optimizer.zero_grad()
        expected = cross_entropy(reference, *batch)
        expected.backward()
        optimizer.step()
        loss = trainer.step(*batch)
        assert torch.isfinite(expected)
        assert loss == pytest.approx(expected.item(), rel=1e-5), step
    state = trainer.state_dict()
    for key, value in reference.state_dict().items():
        assert torch.allclose(state[key], value, rtol=1e-5, atol=1e-6), (
            key, (state[key] - value).abs().max().item())


VOCABULARY, WIDTH, HEADS, LENGTH, PAD = 40, 32, 4, 12, 0


class PaddedEncoder(nn.Module):
    """Token ids padded to LENGTH, the padding mask given with the batch:
    an encoder that attends to the tokens alone, their mean (the padding
    left out) and a classifier."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCABULARY, WIDTH)
        self.position = nn.Parameter(torch.randn(LENGTH, WIDTH) * 0.1)
        layer = nn.TransformerEncoderLayer(WIDTH, HEADS, 2 * WIDTH,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, tokens, padding):
        h = self.embed(tokens) + self.position
        h = self.encoder(h, src_key_padding_mask=padding)
        keep = (~padding).unsqueeze(-1).float()
        return self.head((h * keep).sum(1) / keep.sum(1))


def padded_loss(model, tokens, padding, labels):
    return F.cross_entropy(model(tokens, padding), labels)


def padded_batches(count):
    """Batches of 3 to LENGTH tokens a row, padded with PAD; the lengths
    differ from row to row and from batch to batch."""
    generator = torch.Generator().manual_seed(4)
    result = []
    for _ in range(count):
        lengths = torch.randint(3, LENGTH + 1, (ROWS,), generator=generator)
        padding = torch.arange(LENGTH)[None, :] >= lengths[:, None]
        tokens = torch.randint(1, VOCABULARY, (ROWS, LENGTH),
                               generator=generator).masked_fill(padding, PAD)
        labels = torch.randint(0, CLASSES, (ROWS,), generator=generator)
        result.append((tokens, padding, labels))
    return result


@pytest.mark.parametrize("target", harness.BACKENDS)
def test_a_padding_mask_from_the_batch_trains_as_pytorch(target):
    torch.manual_seed(0)
    model = PaddedEncoder()
    reference = copy.deepcopy(model)
    data = padded_batches(STEPS)
    assert len({int(padding.sum()) for _, padding, _ in data}) > 1
    trainer = mpt.compile(model, padded_loss, data[0],
                          torch.optim.SGD(model.parameters(), lr=0.1),
                          target=target,
                          arch="sm_90" if target == "cuda" else None)
    assert "mixprec.logical_not" in trainer.text
    steps_as_pytorch(trainer, reference, padded_loss, data, 0.1)
    assert_state_close(trainer, reference)


def test_a_padding_mask_from_the_batch_learns_in_bf16():
    torch.manual_seed(0)
    model = PaddedEncoder()
    data = padded_batches(4)
    trainer = mpt.compile(model, padded_loss, data[0],
                          torch.optim.Adam(model.parameters(), lr=0.01),
                          precision="bf16")
    first = [trainer.step(*batch) for batch in data]
    for _ in range(10):
        last = [trainer.step(*batch) for batch in data]
    assert sum(last) < 0.5 * sum(first), (first, last)


class MaskArithmetic(nn.Module):
    """A padding mask in arithmetic with numbers (PyTorch promotes it to
    float) and torch.where between two numbers."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCABULARY, WIDTH)
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, tokens, padding):
        keep = torch.where(padding, 0.0, 1.0).unsqueeze(-1)
        penalty = (padding * 0.5).unsqueeze(-1)
        h = self.embed(tokens) * keep - penalty
        return self.head(h.sum(1) / keep.sum(1))


def test_a_mask_with_numbers_trains_as_pytorch():
    torch.manual_seed(0)
    model = MaskArithmetic()
    reference = copy.deepcopy(model)
    data = padded_batches(STEPS)
    trainer = mpt.compile(model, padded_loss, data[0],
                          torch.optim.SGD(model.parameters(), lr=0.1))
    steps_as_pytorch(trainer, reference, padded_loss, data, 0.1)
