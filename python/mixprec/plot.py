"""plot_history: a training history (mpt.fit's) drawn to a PNG."""

# Inches and dots per inch of the figure: the PNG is 960x720 pixels.
FIGSIZE = (9.6, 7.2)
DPI = 100


def plot_history(history, path):
    """Draws the loss and the loss scale (on a log axis) over the steps of
    `history` ({"step": [...], "loss": [...], "loss_scale": [...],
    "skipped": [...]}, as mpt.fit returns it) to the PNG file `path`, the
    skipped steps marked on the loss scale. Needs matplotlib; renders
    without a display (Agg) and leaves pyplot's backend alone."""
    # Imported here: the rest of the package does not need matplotlib.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    steps = _series(history, "step")
    series = {key: _series(history, key, len(steps))
              for key in ("loss", "loss_scale", "skipped")}

    figure = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(figure)
    loss_axes, scale_axes = figure.subplots(2, 1, sharex=True)
    loss_axes.plot(steps, series["loss"], color="tab:blue")
    loss_axes.set_ylabel("loss")
    loss_axes.grid(True, alpha=0.3)
    # A step's scale holds until the next step.
    scale_axes.plot(steps, series["loss_scale"], color="tab:orange",
                    drawstyle="steps-post", label="loss scale")
    marked = [(step, scale) for step, scale, skip in
              zip(steps, series["loss_scale"], series["skipped"])
              if skip]
    if marked:
        scale_axes.scatter(*zip(*marked), color="tab:red", marker="x",
                           label="skipped step", zorder=3)
        scale_axes.legend()
    scale_axes.set_yscale("log")
    scale_axes.set_ylabel("loss scale")
    scale_axes.set_xlabel("step")
    scale_axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, format="png", dpi=DPI)
    return path


def _series(history, key, length=None):
    """history[key] as a list, checked to have `length` entries (and at
    least one)."""
    if key not in history:
        raise ValueError("plot_history: the history has no '%s' (expected "
                         "mpt.fit's: step, loss, loss_scale, skipped)" % key)
    values = list(history[key])
    if not values:
        raise ValueError("plot_history: the history has no steps")
    if length is not None and len(values) != length:
        raise ValueError("plot_history: history['%s'] has %d entries, "
                         "history['step'] %d" % (key, len(values), length))
    return values
