"""`mixprec-run train`: the training loop over .npy data, its progress
lines, its evaluation, and its errors."""
import re
import subprocess

import numpy as np
import pytest

import mixprec
import reference_models
from harness import build_library
from test_train_step import mlp_source

PROGRESS = re.compile(r"^step (\d+)  loss (\d+\.\d+)  samples/s (\d+)$")


def train(*args):
    return subprocess.run([mixprec.tool_path("mixprec-run"), "train"] +
                          [str(a) for a in args], capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """The MLP with a @predict function, compiled with its train step, and
    the digits split as .npy files."""
    directory = tmp_path_factory.mktemp("train")
    source = directory / "mlp.mlir"
    source.write_text(mlp_source())
    library = directory / "libmlp.so"
    build_library(source, library, ["--autodiff"])
    x_train, y_train, x_test, y_test = reference_models.digits()
    files = {}
    for name, value in (("x_train", x_train), ("y_train", y_train),
                        ("x_test", x_test), ("y_test", y_test)):
        files[name] = directory / (name + ".npy")
        np.save(files[name], value.numpy())
    return library, files


def test_trains_digits_to_the_target_accuracy(setup):
    library, files = setup
    proc = train(library, "--data", files["x_train"], "--data",
                 files["y_train"], "--lr", "0.1", "--steps", "600",
                 "--log-every", "100", "--eval", "predict", "--eval-data",
                 files["x_test"], "--eval-labels", files["y_test"])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    progress = [PROGRESS.match(line) for line in lines[:6]]
    assert all(progress), lines
    assert [int(m.group(1)) for m in progress] == list(range(100, 700, 100))
    losses = [float(m.group(2)) for m in progress]
    assert losses[-1] < 0.2 and losses[0] < 2.3
    assert lines[6].startswith("trained 600 steps of 64 samples in ")
    accuracy = re.match(r"^predict accuracy (\d\.\d+) on 297 samples$",
                        lines[7])
    assert accuracy and float(accuracy.group(1)) >= 0.96, lines[7]


def test_the_same_seed_trains_the_same_model(setup):
    library, files = setup
    args = (library, "--data", files["x_train"], "--data", files["y_train"],
            "--lr", "0.1", "--steps", "30", "--log-every", "10")
    losses = [[line.split()[3] for line in train(*args).stdout.splitlines()
               if line.startswith("step ")] for _ in range(2)]
    assert losses[0] == losses[1] and len(losses[0]) == 3
    other = train(*args, "--seed", "1").stdout
    assert [line.split()[3] for line in other.splitlines()
            if line.startswith("step ")] != losses[0]


@pytest.mark.parametrize("args, message", [
    ((), "no --data arrays"),
    (("--data", "{x_train}"), "train takes 2 batch inputs, got 1 --data"),
    (("--data", "{y_train}", "--data", "{x_train}"),
     "{y_train}: batch input 0 ('x') of train must be f32[N, 64] "
     "(N samples), got i32[1500]"),
    (("--data", "{x_train}", "--data", "{y_test}"),
     "{y_test}: 297 samples, but {x_train} has 1500: every --data array has "
     "one row per sample"),
    (("--data", "{x_train}", "--data", "{x_train}"),
     "{x_train}: batch input 1 ('labels') of train must be i32[N] "
     "(N samples), got f32[1500, 64]"),
    (("--data", "{x_train}", "--data", "{y_train}", "--lr", "fast"),
     "--lr needs a number >= 0 that is finite as an f32, got 'fast'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--steps", "0"),
     "--steps needs an integer from 1 to 1000000000000, got '0'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--eval", "predict"),
     "--eval, --eval-data and --eval-labels go together"),
    (("--data", "{x_train}", "--data", "{y_train}", "--bogus", "1"),
     "unknown option '--bogus'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--step", "loss"),
     "'loss' is not a train step"),
    (("--data", "missing.npy", "--data", "{y_train}"), "missing.npy"),
    # Every option is checked before anything runs.
    (("--data", "{x_train}", "--data", "{y_train}", "--steps",
      "99999999999999999999"),
     "--steps needs an integer from 1 to 1000000000000, got "
     "'99999999999999999999'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--steps", "-5"),
     "--steps needs an integer from 1 to 1000000000000, got '-5'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--steps", "1e3"),
     "--steps needs an integer from 1 to 1000000000000, got '1e3'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--steps", "5",
      "--steps", "6"), "option '--steps' is given twice"),
    (("--data", "{x_train}", "--data", "{y_train}", "--lr", "-0.5"),
     "--lr needs a number >= 0 that is finite as an f32, got '-0.5'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--lr", "nan"),
     "--lr needs a number >= 0 that is finite as an f32, got 'nan'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--lr", "inf"),
     "--lr needs a number >= 0 that is finite as an f32, got 'inf'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--lr", "1e39"),
     "--lr needs a number >= 0 that is finite as an f32, got '1e39'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--max-skipped", "-1"),
     "--max-skipped needs an integer from 0 to 1000000000000, got '-1'"),
    (("--data", "{x_train}", "--data", "{y_train}", "--seed", "x"),
     "--seed needs an integer from 0 to 9223372036854775807, got 'x'"),
    (("--data", "{x_train}", "--data", "{y_train}", "stray"),
     "unexpected argument 'stray'"),
    # A compiled library takes no compile options.
    (("--data", "{x_train}", "--data", "{y_train}", "--amp",
      "precision=f16"),
     "--amp compiles a model.mlir; this model is a compiled library"),
    # The checkpoint's directory, before training.
    (("--data", "{x_train}", "--data", "{y_train}", "--save",
      "{directory}/no/such/dir/run.ckpt"),
     "--save {directory}/no/such/dir/run.ckpt: the directory "
     "{directory}/no/such/dir does not exist"),
    (("--data", "{x_train}", "--data", "{y_train}", "--save", "{directory}"),
     "--save {directory}: is a directory"),
    # The eval function and its data, before training.
    (("--data", "{x_train}", "--data", "{y_train}", "--eval", "predikt",
      "--eval-data", "{x_test}", "--eval-labels", "{y_test}"),
     "--eval predikt: the model has no such function; it has loss, predict, "
     "train_gradients, train"),
    (("--data", "{x_train}", "--data", "{y_train}", "--eval", "loss",
      "--eval-data", "{x_test}", "--eval-labels", "{y_test}"),
     "--eval loss: needs a function of one batched input besides the "
     "model's state and one f32 result [rows, classes]"),
    (("--data", "{x_train}", "--data", "{y_train}", "--eval", "predict",
      "--eval-data", "{y_test}", "--eval-labels", "{y_test}"),
     "{y_test}: input 'x' of predict must be f32[N, 64] (N samples), got "
     "i32[297]"),
    (("--data", "{x_train}", "--data", "{y_train}", "--eval", "predict",
      "--eval-data", "{x_test}", "--eval-labels", "{y_train}"),
     "{y_train}: --eval-labels must be i32[297] or i64[297] (one label per "
     "row of {x_test}), got i32[1500]"),
])
def test_bad_options_are_errors(setup, args, message):
    library, files = setup
    names = {k: str(v) for k, v in files.items()}
    names["directory"] = str(library.parent)
    args = [a.format(**names) for a in args]
    message = message.format(**names)
    proc = train(library, *args)
    assert proc.returncode == 1
    assert proc.stdout == "", "trained before the error:\n" + proc.stdout
    assert proc.stderr.startswith("mixprec-run train: error: ") or \
        proc.stderr.startswith("mixprec-run: error: "), proc.stderr
    assert message in proc.stderr, proc.stderr


def test_help_lists_the_options():
    proc = subprocess.run([mixprec.tool_path("mixprec-run"), "train",
                           "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    for option in ("--data", "--lr", "--steps", "--seed", "--eval",
                   "--max-skipped N", "(default 50; 0: never)"):
        assert option in proc.stdout
    # Among other options too: the help, not an error about them.
    late = train("libmodel.so", "--data", "x.npy", "--help")
    assert late.returncode == 0 and late.stdout == proc.stdout


def test_amp_option_is_checked_before_compiling(setup):
    library, files = setup
    proc = train(library.parent / "mlp.mlir", "--amp", "precision=f16",
                 "--amp", "precision=bf16", "--data", files["x_train"],
                 "--data", files["y_train"])
    assert proc.returncode == 1
    assert proc.stderr == ("mixprec-run train: error: option '--amp' is "
                           "given twice\n")


@pytest.fixture(scope="module")
def amp_library(setup):
    """The MLP compiled for f16 training with dynamic loss scaling."""
    library, _ = setup
    amp = library.parent / "libamp.so"
    build_library(library.parent / "mlp.mlir", amp, ["--amp=precision=f16"])
    return amp


@pytest.fixture(scope="module")
def overflowing(setup):
    """Training images that are Inf in f16 in every sample: every AMP step
    overflows and is skipped."""
    library, files = setup
    path = library.parent / "x_overflowing.npy"
    x = np.load(files["x_train"])
    x[:, 7] = 70000.0
    np.save(path, x)
    return path


def test_consecutive_skipped_steps_stop_the_run(setup, amp_library,
                                                overflowing, tmp_path):
    _, files = setup
    checkpoint = tmp_path / "run.ckpt"
    proc = train(amp_library, "--data", overflowing, "--data",
                 files["y_train"], "--steps", "10", "--max-skipped", "3",
                 "--save", checkpoint)
    assert proc.returncode == 1
    assert proc.stderr == (
        "mixprec-run train: error: stopped after 3 consecutive skipped steps "
        "(1 to 3), loss scale now 8192: the gradients of fc1_weight, "
        "fc1_bias, fc2_weight, fc2_bias are not finite at any scale (see "
        "--max-skipped); nothing saved\n")
    assert len([line for line in proc.stdout.splitlines()
                if " skipped: " in line]) == 3, proc.stdout
    assert not checkpoint.exists()


def test_max_skipped_defaults_to_50_and_0_never_stops(setup, amp_library,
                                                      overflowing):
    _, files = setup
    data = ("--data", overflowing, "--data", files["y_train"], "--steps",
            "60", "--log-every", "0")
    proc = train(amp_library, *data)
    assert proc.returncode == 1
    assert "stopped after 50 consecutive skipped steps (1 to 50)" in \
        proc.stderr, proc.stderr
    proc = train(amp_library, *data, "--max-skipped", "0")
    assert proc.returncode == 0, proc.stderr
    assert "60 skipped, 0 applied" in proc.stdout


def test_a_nonfinite_loss_of_an_applied_step_stops_the_run(setup, tmp_path):
    library, files = setup
    x = np.load(files["x_train"])
    x[:, 3] = np.nan
    poisoned = tmp_path / "x_nan.npy"
    np.save(poisoned, x)
    checkpoint = tmp_path / "run.ckpt"
    proc = train(library, "--data", poisoned, "--data", files["y_train"],
                 "--steps", "20", "--save", checkpoint)
    assert proc.returncode == 1
    assert proc.stderr == (
        "mixprec-run train: error: step 1: the loss is NaN and the step was "
        "applied, so the weights are no longer finite; stopped without "
        "saving (a smaller --lr, or --amp with loss scaling, may help)\n")
    assert not checkpoint.exists()
    # Weights that overflow later stop the run at that step.
    proc = train(library, "--data", files["x_train"], "--data",
                 files["y_train"], "--steps", "50", "--lr", "1e20")
    assert proc.returncode == 1
    assert re.match(r"^mixprec-run train: error: step \d+: the loss is "
                    r"(NaN|infinite) and the step was applied",
                    proc.stderr), proc.stderr


def test_amp_training_names_overflowing_gradients_and_checkpoints(
        setup, tmp_path):
    library, files = setup
    amp = tmp_path / "libamp.so"
    build_library(library.parent / "mlp.mlir", amp, ["--amp=precision=f16"])
    poisoned = tmp_path / "x_poisoned.npy"
    x = np.load(files["x_train"])
    x[100, 5] = 70000.0  # Inf in FP16, once per epoch
    np.save(poisoned, x)
    checkpoint = tmp_path / "run.ckpt"
    proc = train(amp, "--data", poisoned, "--data", files["y_train"], "--lr",
                 "0.1", "--steps", "46", "--log-every", "46", "--save",
                 checkpoint)
    assert proc.returncode == 0, proc.stderr
    skipped = [line for line in proc.stdout.splitlines()
               if " skipped: " in line]
    # Two epochs of 23 batches: the sample is seen twice.
    assert len(skipped) == 2, proc.stdout
    assert skipped[0] == (
        "step %s skipped: non-finite gradients of fc1_weight, fc1_bias, "
        "fc2_weight, fc2_bias; loss scale now 32768"
        % skipped[0].split()[1])
    assert "scale 16384  skipped 2" in proc.stdout
    assert "2 skipped, 44 applied" in proc.stdout
    assert "saved a checkpoint to %s" % checkpoint in proc.stdout
    proc = train(amp, "--data", files["x_train"], "--data", files["y_train"],
                 "--steps", "1", "--resume", checkpoint)
    assert proc.returncode == 0, proc.stderr
    assert "resumed from %s at step 44" % checkpoint in proc.stdout
    assert "2 skipped, 45 applied" in proc.stdout
    checkpoint.write_bytes(checkpoint.read_bytes()[:-8])
    proc = train(amp, "--data", files["x_train"], "--data", files["y_train"],
                 "--resume", checkpoint)
    assert proc.returncode == 1
    assert "is truncated or corrupted" in proc.stderr


def test_resuming_continues_the_schedule_bit_for_bit(setup, tmp_path):
    library, files = setup
    data = ("--data", files["x_train"], "--data", files["y_train"], "--lr",
            "0.1", "--log-every", "0")
    full, half, resumed = (tmp_path / n for n in ("full", "half", "resumed"))
    assert train(library, *data, "--steps", "30", "--save", full) \
        .returncode == 0
    assert train(library, *data, "--steps", "17", "--save", half) \
        .returncode == 0
    proc = train(library, *data, "--steps", "13", "--resume", half, "--save",
                 resumed)
    assert proc.returncode == 0, proc.stderr
    assert resumed.read_bytes() == full.read_bytes()


def test_a_checkpoint_past_the_step_limit_is_refused(setup, tmp_path):
    library, files = setup
    trainer = mixprec.Model(library).trainer()
    trainer.set("train.step_count", np.array(2**62, np.int64))
    checkpoint = tmp_path / "far.ckpt"
    trainer.save(checkpoint)
    proc = train(library, "--data", files["x_train"], "--data",
                 files["y_train"], "--resume", checkpoint)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr == (
        "mixprec-run train: error: %s: the checkpoint has taken %d steps and "
        "skipped 0; each must be from 0 to 1000000000000\n"
        % (checkpoint, 2**62))
