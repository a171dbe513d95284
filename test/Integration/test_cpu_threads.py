"""A CPU model's threads change nothing but its speed: a small decoder
(token embedding, attention heads through batched matmuls, an MLP, a tied
head) trained a few steps with AdamW, in FP32 and bf16 AMP, gives the same
losses and the same state, bit for bit, at 1, 2 and 3 threads. Its
contractions have several row blocks and batches (the runtime's tasks),
so the threads share them out differently at each count."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mixprec
import mixprec.torch as mpt

VOCABULARY, WIDTH, HEADS, CONTEXT, BATCH = 96, 64, 4, 64, 12
STEPS = 3


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCABULARY, WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.out = nn.Linear(4 * WIDTH, WIDTH)
        self.ln = nn.LayerNorm(WIDTH)

    def forward(self, tokens):
        x = self.tokens(tokens)
        rows, length, width = x.shape
        head = width // HEADS
        q, k, v = self.qkv(x).split(width, dim=2)
        q, k, v = (t.reshape(rows, length, HEADS, head).transpose(1, 2)
                   for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head))
        y = F.softmax(scores, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(rows, length, width))
        x = x + self.out(F.gelu(self.fc(self.ln(x))))
        return x @ self.tokens.weight.t()


def loss_fn(model, tokens, targets):
    logits = model(tokens)
    return F.cross_entropy(logits.reshape(-1, VOCABULARY),
                           targets.reshape(-1))


def batch(seed):
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, VOCABULARY, (BATCH, CONTEXT + 1),
                           generator=generator)
    return tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()


def train(precision, threads):
    """(losses, state) of STEPS steps from the same initial model."""
    torch.manual_seed(0)
    model = Decoder()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    trainer = mpt.compile(model, loss_fn, batch(0), optimizer,
                          precision=precision, num_threads=threads)
    assert trainer.library.num_threads == threads
    losses = [float(trainer.step(*batch(step))) for step in range(STEPS)]
    state = {name: tensor.detach().clone().numpy()
             for name, tensor in trainer.state_dict().items()}
    return losses, state


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_losses_and_state_are_the_same_bits_at_1_2_and_3_threads(precision):
    first_losses, first_state = train(precision, 1)
    assert all(math.isfinite(loss) for loss in first_losses)
    for threads in (2, 3):
        losses, state = train(precision, threads)
        assert np.array(losses).tobytes() == \
            np.array(first_losses).tobytes(), (threads, losses, first_losses)
        for name, value in first_state.items():
            assert value.tobytes() == state[name].tobytes(), (threads, name)


def test_a_thread_count_outside_1_to_1024_is_refused():
    torch.manual_seed(0)
    model = Decoder()
    trainer = mpt.compile(model, loss_fn, batch(0),
                          torch.optim.AdamW(model.parameters(), lr=1e-3))
    before = trainer.library.num_threads
    for bad in (0, -2, 1025):
        with pytest.raises(mixprec.ModelError, match="1 to 1024"):
            trainer.library.num_threads = bad
    assert trainer.library.num_threads == before
