"""Mixed precision through mixprec.torch: each module of the torch zoo
(torch_zoo.py) trained by mpt.compile in FP32, f16 and bf16 AMP on the CPU
-- the same initial weights, batches, optimizer and learning-rate schedule
-- reaches a held-out accuracy (its task's measure of trainer.forward)
within 2 points of FP32's. f16 runs with dynamic loss scaling (the
default); the final scale and skipped steps are printed (pytest -s)."""
from dataclasses import dataclass

import pytest
import torch

import mixprec.torch as mpt
import torch_zoo

PRECISIONS = ("fp32", "f16", "bf16")
MAX_ACCURACY_GAP = 0.02  # the "within 2 points of FP32 accuracy"
STEPS = 400
# What FP32 training must add to the untrained module's accuracy for the
# comparison to be about a trained model.
MIN_LEARNED = 0.1


@dataclass
class Run:
    accuracy: float
    loss: float
    loss_scale: float
    skipped_steps: int


def train(case, precision):
    """`case` trained STEPS steps in `precision` from its seeded initial
    weights. The learning rate anneals to 0 (cosine) so that the accuracy
    compared is that of a settled model, not of one still moving (batch
    norm's running statistics included), which would measure where on its
    path each run stopped."""
    model = case.build()
    optimizer = case.optimizer(model)
    trainer = mpt.compile(model, case.loss_fn, case.example_batch(),
                          optimizer, precision=precision)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, STEPS)
    for batch in case.batches(STEPS):
        loss = trainer.step(*batch)
        schedule.step()
    return Run(case.score(trainer.forward), loss, trainer.loss_scale,
               trainer.skipped_steps)


@pytest.mark.parametrize("name", torch_zoo.NAMES)
def test_16_bit_accuracy_within_two_points_of_fp32(name):
    case = torch_zoo.case(name)
    untrained = case.score(case.build().eval())
    runs = {precision: train(case, precision) for precision in PRECISIONS}
    for precision, run in runs.items():
        print("%s %s: accuracy %.3f (untrained %.3f), last loss %.4f, loss "
              "scale %g, skipped steps %d" % (
                  name, precision, run.accuracy, untrained, run.loss,
                  run.loss_scale, run.skipped_steps))
    assert runs["fp32"].accuracy >= untrained + MIN_LEARNED, (untrained,
                                                              runs)
    assert runs["f16"].loss_scale > 1, runs  # the dynamic loss scaler ran
    for precision in ("f16", "bf16"):
        # Trained in 16 bits: not FP32's arithmetic.
        assert runs[precision].loss != runs["fp32"].loss, (precision, runs)
        gap = abs(runs[precision].accuracy - runs["fp32"].accuracy)
        assert gap <= MAX_ACCURACY_GAP, (precision, runs)
