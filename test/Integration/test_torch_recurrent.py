"""nn.LSTM and nn.GRU through mixprec.torch against PyTorch: classifiers of
padded token batches, the padding mask given with each batch and the
lengths differing from row to row and from batch to batch, the recurrent
outputs mean-pooled over the tokens kept. From the same weights on the same
batches they take the same SGD steps as PyTorch in FP32 (losses within
1e-5, parameters after), on the CPU and the CUDA backend (GPU simulator);
in bf16 AMP they learn. Also: given initial states, the final states and
a bidirectional GRU that is not batch first."""
import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import harness
import mixprec.torch as mpt
from harness import assert_state_close, steps_as_pytorch

VOCABULARY, WIDTH, HIDDEN, LENGTH, ROWS, CLASSES = 20, 8, 12, 6, 4, 3
STEPS = 3


class Classifier(nn.Module):
    """Embedding, a two-layer recurrent encoder, the mean of its outputs at
    the tokens kept, a linear head."""

    def __init__(self, kind):
        super().__init__()
        self.embed = nn.Embedding(VOCABULARY, WIDTH)
        if kind == "lstm":
            self.rnn = nn.LSTM(WIDTH, HIDDEN, num_layers=2, batch_first=True)
        else:
            self.rnn = nn.GRU(WIDTH, HIDDEN, num_layers=2,
                              bidirectional=True)
        self.batch_first = kind == "lstm"
        self.head = nn.Linear(HIDDEN * (1 if kind == "lstm" else 2),
                              CLASSES)

    def forward(self, tokens, padding):
        x = self.embed(tokens)
        if self.batch_first:
            out, _ = self.rnn(x)
        else:
            out, _ = self.rnn(x.transpose(0, 1))
            out = out.transpose(0, 1)
        keep = (~padding).unsqueeze(-1).float()
        return self.head((out * keep).sum(1) / keep.sum(1))


class FinalState(nn.Module):
    """An LSTM started from learned states; the head reads the top layer's
    final hidden state and the mean of both final cell states."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCABULARY, WIDTH)
        self.rnn = nn.LSTM(WIDTH, HIDDEN, num_layers=2, batch_first=True)
        self.h0 = nn.Parameter(torch.randn(2, 1, HIDDEN) * 0.1)
        self.c0 = nn.Parameter(torch.randn(2, 1, HIDDEN) * 0.1)
        self.head = nn.Linear(2 * HIDDEN, CLASSES)

    def forward(self, tokens, padding):
        start = (self.h0.expand(2, ROWS, HIDDEN).contiguous(),
                 self.c0.expand(2, ROWS, HIDDEN).contiguous())
        _, (h, c) = self.rnn(self.embed(tokens), start)
        return self.head(torch.cat([h[1], c.mean(0)], dim=1))


MODELS = {"lstm": lambda: Classifier("lstm"),
          "bidirectional gru": lambda: Classifier("gru"),
          "lstm final states": FinalState}


def loss_fn(model, tokens, padding, labels):
    return F.cross_entropy(model(tokens, padding), labels)


def batches(count):
    """Rows of 2 to LENGTH tokens padded with 0; the padding differs from
    batch to batch."""
    generator = torch.Generator().manual_seed(5)
    result = []
    for _ in range(count):
        lengths = torch.randint(2, LENGTH + 1, (ROWS,), generator=generator)
        padding = torch.arange(LENGTH)[None, :] >= lengths[:, None]
        tokens = torch.randint(1, VOCABULARY, (ROWS, LENGTH),
                               generator=generator).masked_fill(padding, 0)
        labels = torch.randint(0, CLASSES, (ROWS,), generator=generator)
        result.append((tokens, padding, labels))
    return result


@pytest.mark.parametrize("target", harness.BACKENDS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_trains_as_pytorch(name, target):
    torch.manual_seed(0)
    model = MODELS[name]()
    reference = copy.deepcopy(model)
    data = batches(STEPS)
    assert len({int(padding.sum()) for _, padding, _ in data}) > 1
    trainer = mpt.compile(model, loss_fn, data[0],
                          torch.optim.SGD(model.parameters(), lr=0.5),
                          target=target,
                          arch="sm_90" if target == "cuda" else None)
    steps_as_pytorch(trainer, reference, loss_fn, data, 0.5)
    assert_state_close(trainer, reference)


def test_an_lstm_learns_in_bf16():
    torch.manual_seed(0)
    model = Classifier("lstm")
    data = batches(4)
    trainer = mpt.compile(model, loss_fn, data[0],
                          torch.optim.Adam(model.parameters(), lr=0.02),
                          precision="bf16")
    first = [trainer.step(*batch) for batch in data]
    for _ in range(15):
        last = [trainer.step(*batch) for batch in data]
    assert sum(last) < 0.5 * sum(first), (first, last)
