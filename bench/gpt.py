"""A GPT-style decoder in PyTorch, as the memory benchmark trains it.

Pre-LN blocks of causal self-attention (one qkv projection, a registered
causal mask, softmax) and a GELU MLP four times wider; learned positions, a
final layer norm and a language-model head tied to the token embedding
(GPT-2's structure, nanoGPT's initialization: N(0, 0.02) weights, zero
biases). The loss is next-token cross entropy; the optimizer AdamW.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class Size:
    layers: int
    width: int
    heads: int
    context: int
    batch: int
    vocabulary: int


# The decoder of the issue that asked for the benchmark (10.9 M parameters)
# and a smaller one.
SIZES = {
    "gpt": Size(layers=6, width=384, heads=6, context=256, batch=8,
                vocabulary=512),
    "gpt-small": Size(layers=2, width=128, heads=4, context=64, batch=8,
                      vocabulary=256),
}


class Block(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.heads = size.heads
        self.ln1 = nn.LayerNorm(size.width)
        self.qkv = nn.Linear(size.width, 3 * size.width)
        self.proj = nn.Linear(size.width, size.width)
        self.ln2 = nn.LayerNorm(size.width)
        self.fc = nn.Linear(size.width, 4 * size.width)
        self.out = nn.Linear(4 * size.width, size.width)
        self.register_buffer(
            "future", torch.triu(torch.ones(size.context, size.context,
                                            dtype=torch.bool), diagonal=1),
            persistent=False)

    def forward(self, x):
        rows, length, width = x.shape
        head = width // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
        q = q.view(rows, length, self.heads, head).transpose(1, 2)
        k = k.view(rows, length, self.heads, head).transpose(1, 2)
        v = v.view(rows, length, self.heads, head).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head))
        scores = scores.masked_fill(self.future, float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(rows, length, width))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.tokens = nn.Embedding(size.vocabulary, size.width)
        self.positions = nn.Parameter(torch.zeros(1, size.context,
                                                  size.width))
        self.blocks = nn.Sequential(*[Block(size)
                                      for _ in range(size.layers)])
        self.ln = nn.LayerNorm(size.width)
        self.head = nn.Linear(size.width, size.vocabulary, bias=False)
        self.head.weight = self.tokens.weight
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    def forward(self, tokens):
        x = self.tokens(tokens) + self.positions
        return self.head(self.ln(self.blocks(x)))


def loss_fn(model, tokens, targets):
    logits = model(tokens)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                           targets.reshape(-1))


def build(name, seed=0):
    """(model, optimizer, batch) of the decoder `name`: a batch of random
    tokens and their targets."""
    size = SIZES[name]
    torch.manual_seed(seed)
    model = GPT(size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    generator = torch.Generator().manual_seed(seed + 1)
    tokens = torch.randint(0, size.vocabulary, (size.batch, size.context + 1),
                           generator=generator)
    return model, optimizer, (tokens[:, :-1].contiguous(),
                              tokens[:, 1:].contiguous())
