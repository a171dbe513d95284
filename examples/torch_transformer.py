"""A transformer classifier written in PyTorch (nn.TransformerEncoderLayer)
and trained by mixprec through mixprec.torch, in FP32 and in bf16 AMP.

Task: sequences of 16 tokens from a vocabulary of 64; a token's group is
token % 8, and the label is the group that occurs most often (sequences
are drawn so that one group leads).

    python3 examples/torch_transformer.py [output directory]

prints the loss and the held-out accuracy of each run, writes
loss_<precision>.png (mixprec.plot_history) to the output directory, and
prints the memory a train step holds in each precision: planned (the
compiled step's memory plan, known before it runs) and measured (the peak
resident growth of `mixprec-run train --memory-report` stepping the same
library), and the best time of its train step, FP32 and bf16 AMP side by
side.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

import torch
import torch.nn.functional as F
from torch import nn

import mixprec
import mixprec.torch as mpt

VOCAB, LENGTH, GROUPS, WIDTH, BATCH = 64, 16, 8, 64, 32


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.position = nn.Parameter(torch.randn(1, LENGTH, WIDTH) * 0.02)
        self.encoder = nn.TransformerEncoderLayer(
            WIDTH, nhead=4, dim_feedforward=4 * WIDTH, dropout=0.1,
            activation="gelu", batch_first=True, norm_first=True)
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, GROUPS)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position
        x = self.norm(self.encoder(x))
        return self.head(x.mean(dim=1))


def dataset(count, seed):
    generator = torch.Generator().manual_seed(seed)
    tokens, labels = [], []
    while len(tokens) < count:
        sequence = torch.randint(0, VOCAB, (LENGTH,), generator=generator)
        counts = torch.bincount(sequence % GROUPS, minlength=GROUPS)
        top = torch.topk(counts, 2).values
        if top[0] > top[1]:
            tokens.append(sequence)
            labels.append(int(counts.argmax()))
    return torch.stack(tokens), torch.tensor(labels)


def loss_fn(model, tokens, labels):
    return F.cross_entropy(model(tokens), labels)


def train(precision, train_set, test_set, output):
    torch.manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3,
                                  weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1,
                                                gamma=0.7)
    tokens, labels = train_set
    trainer = mpt.compile(model, loss_fn,
                          example_batch=(tokens[:BATCH], labels[:BATCH]),
                          optimizer=optimizer, precision=precision)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(tokens, labels), batch_size=BATCH,
        shuffle=True, drop_last=True,
        generator=torch.Generator().manual_seed(1))
    history = mpt.fit(trainer, loader, epochs=5,
                      on_epoch_end=lambda epoch, history: scheduler.step())
    mixprec.plot_history(history, os.path.join(output,
                                               "loss_%s.png" % precision))
    test_tokens, test_labels = test_set
    predicted = trainer.forward(test_tokens).float().argmax(dim=1)
    accuracy = (predicted == test_labels).float().mean().item()
    model.load_state_dict(trainer.state_dict(), strict=True)
    print("%-5s final loss %.4f  test accuracy %.3f  (%d steps, %d skipped)"
          % (precision, history["loss"][-1], accuracy, len(history["loss"]),
             trainer.skipped_steps))
    step_time = best_step_time(trainer, tokens[:BATCH], labels[:BATCH])
    return measure_memory(trainer, tokens, labels, output, precision) + (
        step_time,)


def best_step_time(trainer, tokens, labels, steps=10):
    """The best wall time of `steps` train steps on one batch (after
    training: the steps move the weights past what was reported)."""
    best = float("inf")
    for _ in range(steps):
        start = time.perf_counter()
        trainer.step(tokens, labels)
        best = min(best, time.perf_counter() - start)
    return best


def measure_memory(trainer, tokens, labels, output, precision):
    """(planned, measured) bytes of a train step of `trainer`'s library:
    its memory plan, and mixprec-run's peak resident growth over 20 steps
    (the trainer's state, workspace and outputs)."""
    data = []
    for name, tensor in (("tokens", tokens), ("labels", labels)):
        path = os.path.join(output, "%s.npy" % name)
        np.save(path, tensor.numpy())
        data += ["--data", path]
    report = os.path.join(output, "memory_%s.json" % precision)
    subprocess.run([mixprec.tool_path("mixprec-run"), "train",
                    trainer.library.path, *data, "--steps", "20",
                    "--log-every", "0", "--memory-report", report],
                   check=True, stdout=subprocess.DEVNULL)
    figures = json.load(open(report))
    return (figures["planned"]["host_bytes"],
            figures["measured"]["resident_growth_bytes"])


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(output, exist_ok=True)
    train_set, test_set = dataset(2048, seed=1), dataset(512, seed=2)
    memory = {precision: train(precision, train_set, test_set, output)
              for precision in ("fp32", "bf16")}
    print("a train step            %12s %12s %12s" % (
        "planned", "measured", "time (best)"))
    for precision, (planned, measured, seconds) in memory.items():
        print("  %-21s %12d %12d %9.2f ms" % (precision, planned, measured,
                                             seconds * 1e3))
    (planned32, measured32, time32), (planned16, measured16, time16) = \
        memory.values()
    print("  %-21s %12.2f %12.2f %12.2f" % (
        "bf16 / fp32", planned16 / planned32, measured16 / measured32,
        time16 / time32))


if __name__ == "__main__":
    main()
