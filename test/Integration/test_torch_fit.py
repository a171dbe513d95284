"""mpt.fit: the training loop over a DataLoader with its tqdm bar and the
history it returns, on trainers that mpt.compile made of a tiny nn.Linear
classifier; mixprec.plot_history: the history drawn to a PNG of the
figure's size."""
import struct

import matplotlib.image
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import mixprec
import mixprec.torch as mpt
from mixprec import plot

ROWS, BATCH = 40, 8  # 5 batches an epoch
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def tiny_trainer(precision="fp32", amp_options=None):
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(BATCH, 4), torch.randint(0, 3, (BATCH,))
    return mpt.compile(model, lambda m, x, y: F.cross_entropy(m(x), y),
                       example_batch=(x, y), optimizer=optimizer,
                       precision=precision, amp_options=amp_options)


def loader():
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(ROWS, 4, generator=generator)
    y = torch.randint(0, 3, (ROWS,), generator=generator)
    return DataLoader(TensorDataset(x, y), batch_size=BATCH)


def record_steps(trainer, monkeypatch):
    """Wraps trainer.step: the list it returns gets (loss, loss scale,
    skipped) as the trainer reports them after each step."""
    steps = []
    step = trainer.step

    def recording_step(*batch):
        loss = step(*batch)
        steps.append((loss, trainer.loss_scale, trainer.skipped))
        return loss
    monkeypatch.setattr(trainer, "step", recording_step)
    return steps


def check_png(path):
    """The file is a PNG of plot_history's figure size."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    # IHDR, the first chunk: width and height, big-endian.
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    expected = (round(plot.FIGSIZE[0] * plot.DPI),
                round(plot.FIGSIZE[1] * plot.DPI))
    assert (width, height) == expected
    assert matplotlib.image.imread(str(path)).shape[:2] == (height, width)


def test_fit_trains_each_batch_with_a_progress_bar(monkeypatch, capsys,
                                                   tmp_path):
    trainer = tiny_trainer()
    steps = record_steps(trainer, monkeypatch)
    capsys.readouterr()
    history = mpt.fit(trainer, loader(), epochs=2)
    out, err = capsys.readouterr()

    assert len(steps) == 2 * ROWS // BATCH
    assert history["step"] == list(range(1, len(steps) + 1))
    assert history["loss"] == [loss for loss, _, _ in steps]
    assert history["loss_scale"] == [1.0] * len(steps)
    assert history["skipped"] == [False] * len(steps)
    # The bar, on stderr: one per epoch, its postfix the epoch's last step.
    assert out == ""
    per_epoch = len(steps) // 2
    for epoch in (1, 2):
        assert "epoch %d/2: 100%%" % epoch in err, err
        assert " %d/%d " % (per_epoch, per_epoch) in err, err
        last_loss = history["loss"][epoch * per_epoch - 1]
        assert "loss=%.4g, loss_scale=1, skipped=0]" % last_loss in err, err

    png = tmp_path / "history.png"
    assert mixprec.plot_history(history, png) == png
    check_png(png)


def test_fit_reports_skipped_steps_and_the_loss_scale(monkeypatch, capsys,
                                                      tmp_path):
    # f16 with a scale its gradients overflow at: the first steps are
    # skipped and halve the scale.
    trainer = tiny_trainer("f16", "init-scale=1048576 max-scale=1e10")
    steps = record_steps(trainer, monkeypatch)
    history = mpt.fit(trainer, loader(), epochs=1)
    err = capsys.readouterr().err

    assert history["loss"] == [loss for loss, _, _ in steps]
    assert history["loss_scale"] == [scale for _, scale, _ in steps]
    assert history["skipped"] == [skipped for _, _, skipped in steps]
    assert True in history["skipped"] and False in history["skipped"]
    assert trainer.skipped_steps == sum(history["skipped"])
    assert "loss_scale=%g, skipped=%d]" % (
        trainer.loss_scale, trainer.skipped_steps) in err, err

    png = tmp_path / "amp.png"
    mixprec.plot_history(history, png)
    check_png(png)


def test_fit_without_progress_prints_nothing(capsys):
    trainer = tiny_trainer()
    capsys.readouterr()
    history = mpt.fit(trainer, loader(), progress=False)
    assert capsys.readouterr() == ("", "")
    assert len(history["loss"]) == ROWS // BATCH


def test_fit_calls_on_epoch_end_with_a_scheduler():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.5)
    x, y = torch.randn(BATCH, 4), torch.randint(0, 3, (BATCH,))
    trainer = mpt.compile(model, lambda m, x, y: F.cross_entropy(m(x), y),
                          example_batch=(x, y), optimizer=optimizer)
    seen = []

    def on_epoch_end(epoch, history):
        seen.append((epoch, len(history["loss"]),
                     optimizer.param_groups[0]["lr"]))
        scheduler.step()

    history = mpt.fit(trainer, loader(), epochs=3, progress=False,
                      on_epoch_end=on_epoch_end)
    steps = ROWS // BATCH
    assert seen == [(0, steps, 0.1), (1, 2 * steps, 0.05),
                    (2, 3 * steps, 0.025)]
    assert history["step"] == list(range(1, 3 * steps + 1))


def test_fit_refuses_bad_epochs_and_batches():
    trainer = tiny_trainer()
    for epochs in (0, -1, 1.5, "2", True):
        with pytest.raises(ValueError, match="epochs must be a positive "
                           "integer, got %r" % (epochs,)):
            mpt.fit(trainer, loader(), epochs=epochs, progress=False)
    batches = [{"x": torch.randn(BATCH, 4)}]
    with pytest.raises(TypeError, match="each batch of the loader must be "
                       "a tuple or list .*; got dict"):
        mpt.fit(trainer, batches, progress=False)


def test_plot_history_refuses_what_is_no_history(tmp_path):
    png = tmp_path / "bad.png"
    history = {"step": [1, 2], "loss": [0.5, 0.4], "loss_scale": [1.0, 1.0],
               "skipped": [False, False]}
    for key in history:
        without = {k: v for k, v in history.items() if k != key}
        with pytest.raises(ValueError, match="the history has no '%s'" % key):
            mixprec.plot_history(without, png)
    with pytest.raises(ValueError, match=r"history\['loss'\] has 1 entries, "
                       r"history\['step'\] 2"):
        mixprec.plot_history(dict(history, loss=[0.5]), png)
    with pytest.raises(ValueError, match="the history has no steps"):
        mixprec.plot_history({key: [] for key in history}, png)
    assert not png.exists()
