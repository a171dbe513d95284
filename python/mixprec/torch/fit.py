"""mpt.fit: the training loop over a data loader, with a progress bar."""
import numbers
import sys


def fit(trainer, loader, epochs=1, progress=True, on_epoch_end=None):
    """Trains `trainer` (mpt.compile's) on each batch of `loader`, `epochs`
    times, and returns the history, one entry per step:

        {"step": [1, 2, ...], "loss": [...], "loss_scale": [...],
         "skipped": [False, ...]}

    `loader` is iterated once per epoch (a torch DataLoader, a list, ...);
    each batch is a tuple or list of tensors or arrays, passed to
    `trainer.step(*batch)`. "loss" is what the step returned, "loss_scale"
    the scale after the step (the one the next step uses) and "skipped"
    whether the step was skipped (a gradient was not finite). With
    `progress`, a tqdm bar per epoch on stderr shows the last loss, the loss
    scale and the steps skipped so far; without, nothing is printed.
    `on_epoch_end(epoch, history)` runs after each epoch (epoch counts from
    0): the place for `scheduler.step()` or an evaluation."""
    if isinstance(epochs, bool) or not isinstance(epochs, numbers.Integral) \
            or epochs < 1:
        raise ValueError("fit: epochs must be a positive integer, got %r"
                         % (epochs,))
    bar_type = _progress_bar() if progress else None
    history = {"step": [], "loss": [], "loss_scale": [], "skipped": []}
    for epoch in range(epochs):
        batches = loader
        if bar_type is not None:
            batches = bar_type(loader, unit="step", file=sys.stderr,
                               desc="epoch %d/%d" % (epoch + 1, epochs))
        try:
            for batch in batches:
                if not isinstance(batch, (tuple, list)):
                    raise TypeError(
                        "fit: each batch of the loader must be a tuple or "
                        "list of tensors or arrays, as trainer.step takes "
                        "them; got %s" % type(batch).__name__)
                loss = trainer.step(*batch)
                history["step"].append(len(history["step"]) + 1)
                history["loss"].append(loss)
                history["loss_scale"].append(trainer.loss_scale)
                history["skipped"].append(trainer.skipped)
                if bar_type is not None:
                    # Drawn when tqdm next refreshes the bar (at most ten
                    # times a second) and when the epoch ends.
                    batches.set_postfix(loss="%.4g" % loss,
                                        loss_scale="%g" % trainer.loss_scale,
                                        skipped=trainer.skipped_steps,
                                        refresh=False)
        finally:
            if bar_type is not None:
                batches.close()
        if on_epoch_end is not None:
            on_epoch_end(epoch, history)
    return history


def _progress_bar():
    try:
        from tqdm import tqdm
    except ImportError:
        raise ImportError("fit's progress bar needs tqdm (Debian's "
                          "python3-tqdm, or pip install tqdm); "
                          "progress=False trains without it") from None
    return tqdm
