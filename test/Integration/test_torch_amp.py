"""Mixed precision through mixprec.torch: each model trained by mpt.compile
in FP32, f16 and bf16 AMP on the CPU -- the same initial weights, the same
batches, the same optimizer settings -- reaches a held-out accuracy
(trainer.forward, the task's own measure) within 2 points of FP32's. f16
runs with dynamic loss scaling (the default); its final scale and skipped
steps are printed (pytest -s)."""
import copy
from dataclasses import dataclass
from typing import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mixprec.torch as mpt
import reference_models

PRECISIONS = ("fp32", "f16", "bf16")
MAX_ACCURACY_DROP = 0.02  # the "within 2 points of FP32"


@dataclass
class Case:
    """A model, its task and how long it trains: `steps` batches of `batch`
    rows; `min_accuracy` is what FP32 must reach for the comparison to mean
    something (well above chance)."""
    name: str
    build: Callable[[], nn.Module]
    optimizer: Callable[[list], torch.optim.Optimizer]
    steps: int
    batch: int
    min_accuracy: float
    # Annealing to a small learning rate lets batch norm's running
    # statistics catch up with the weights they normalize.
    cosine_schedule: bool = False


def cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y)


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(self.features(x.reshape(x.shape[0], 1, 8, 8)))


class DigitsRows(nn.Module):
    """The image's 8 rows as tokens of a pre-LN transformer encoder layer."""
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 32)
        self.position = nn.Parameter(torch.randn(1, 8, 32) * 0.02)
        self.encoder = nn.TransformerEncoderLayer(
            32, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        tokens = self.embed(x.reshape(x.shape[0], 8, 8)) + self.position
        return self.head(self.encoder(tokens).mean(dim=1))


CASES = [
    Case("mlp", lambda: nn.Sequential(nn.Linear(64, 64), nn.ReLU(),
                                      nn.Linear(64, 10)),
         lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), 200, 64, 0.9),
    Case("cnn", DigitsCNN, lambda p: torch.optim.Adam(p, lr=1e-2), 400, 64,
         0.9, cosine_schedule=True),
    Case("transformer", DigitsRows,
         lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), 300, 64, 0.9,
         cosine_schedule=True),
]


@dataclass
class Run:
    accuracy: float
    loss: float
    loss_scale: float
    skipped_steps: int


def train(case, initial, data, precision):
    """`case` trained from a copy of `initial` in `precision`; its held-out
    accuracy and where the loss scaler ended."""
    x_train, y_train, x_test, y_test = data
    model = copy.deepcopy(initial)
    optimizer = case.optimizer(list(model.parameters()))
    trainer = mpt.compile(model, cross_entropy,
                          example_batch=(x_train[:case.batch],
                                         y_train[:case.batch]),
                          optimizer=optimizer, precision=precision)
    schedule = (torch.optim.lr_scheduler.CosineAnnealingLR(optimizer,
                                                           case.steps)
                if case.cosine_schedule else None)
    for index in reference_models.batches(len(x_train), case.batch,
                                          case.steps):
        loss = trainer.step(x_train[index], y_train[index])
        if schedule:
            schedule.step()
    predictions = trainer.forward(x_test).float().argmax(dim=1)
    accuracy = (predictions == y_test).float().mean().item()
    return Run(accuracy, loss, trainer.loss_scale, trainer.skipped_steps)


@pytest.fixture(scope="module")
def digits():
    x_train, y_train, x_test, y_test = reference_models.digits()
    return x_train, y_train.long(), x_test, y_test.long()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_16_bit_accuracy_within_two_points_of_fp32(case, digits):
    torch.manual_seed(0)
    initial = case.build()
    runs = {precision: train(case, initial, digits, precision)
            for precision in PRECISIONS}
    for precision, run in runs.items():
        print("%s %s: accuracy %.4f, last loss %.4f, loss scale %g, "
              "skipped steps %d" % (case.name, precision, run.accuracy,
                                    run.loss, run.loss_scale,
                                    run.skipped_steps))
    assert runs["fp32"].accuracy >= case.min_accuracy, runs
    for precision in ("f16", "bf16"):
        drop = abs(runs[precision].accuracy - runs["fp32"].accuracy)
        assert drop <= MAX_ACCURACY_DROP, (precision, runs)
