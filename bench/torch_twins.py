"""The benchmarks' PyTorch side: the three examples (examples/mlp.mlir,
cnn.mlir, transformer.mlir) as PyTorch modules of the same shapes, ops and
optimizers, and PyTorch's train step. Each builder returns (model,
optimizer, loss_fn, batch), the batch as tensors of the example's batch
shapes. bench_cpu_train.py and bench_memory.py use them on the CPU,
gpu/torch_step.py (build.sh copies this file beside it) on a GPU."""
import torch
import torch.nn.functional as F
from torch import nn


def mlp():
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batch = (torch.rand(64, 64), torch.randint(0, 10, (64,)))
    return model, optimizer, _cross_entropy, batch


def cnn():
    def block(inputs, outputs):
        return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False),
                nn.BatchNorm2d(outputs), nn.ReLU(), nn.MaxPool2d(2)]

    model = nn.Sequential(*block(1, 8), *block(8, 16), nn.Flatten(),
                          nn.Linear(64, 10))
    # Weight decay on the conv and linear weights only, as the example's.
    decayed = [p for p in model.parameters() if p.dim() > 1]
    others = [p for p in model.parameters() if p.dim() <= 1]
    optimizer = torch.optim.SGD(
        [{"params": decayed, "weight_decay": 5e-4}, {"params": others}],
        lr=0.05, momentum=0.9)
    batch = (torch.rand(32, 1, 8, 8), torch.randint(0, 10, (32,)))
    return model, optimizer, _cross_entropy, batch


class Transformer(nn.Module):
    """One pre-LN encoder block (width 64, 4 heads, MLP 256, dropout 0.1)
    over 16 tokens of a 100-token vocabulary, mean-pooled into 4 classes."""

    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(100, 64)
        self.positions = nn.Parameter(torch.randn(16, 64) * 0.02)
        self.ln1, self.ln2, self.ln_f = (nn.LayerNorm(64) for _ in range(3))
        self.q, self.k, self.v, self.out = (nn.Linear(64, 64)
                                            for _ in range(4))
        self.fc1, self.fc2 = nn.Linear(64, 256), nn.Linear(256, 64)
        self.head = nn.Linear(64, 4)

    def forward(self, tokens):
        def heads(t):
            return t.reshape(8, 16, 4, 16).transpose(1, 2)

        x0 = self.tokens(tokens) + self.positions
        h = self.ln1(x0)
        q, k, v = heads(self.q(h)), heads(self.k(h)), heads(self.v(h))
        probs = F.dropout(torch.softmax(q @ k.transpose(-1, -2) * 0.25, -1),
                          0.1)
        context = (probs @ v).transpose(1, 2).reshape(8, 16, 64)
        x1 = x0 + F.dropout(self.out(context), 0.1)
        x2 = x1 + F.dropout(self.fc2(F.gelu(self.fc1(self.ln2(x1)))), 0.1)
        return self.head(self.ln_f(x2).mean(dim=1))


def transformer():
    model = Transformer()
    decayed = [p for name, p in model.named_parameters()
               if p.dim() == 2 and name not in ("tokens.weight", "positions")]
    others = [p for p in model.parameters()
              if not any(p is d for d in decayed)]
    optimizer = torch.optim.AdamW(
        [{"params": decayed, "weight_decay": 0.01},
         {"params": others, "weight_decay": 0.0}], lr=1e-3)
    batch = (torch.randint(0, 100, (8, 16)), torch.randint(0, 4, (8,)))
    return model, optimizer, _cross_entropy, batch


def _cross_entropy(model, inputs, labels):
    return F.cross_entropy(model(inputs), labels)


BUILDERS = {"mlp": mlp, "cnn": cnn, "transformer": transformer}


def train_step(model, optimizer, loss_fn, batch, precision):
    """PyTorch eager's train step: FP32, or bf16 autocast for "bf16"."""
    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16,
                            enabled=precision == "bf16"):
            loss = loss_fn(model, *batch)
        loss.backward()
        optimizer.step()
    return step
