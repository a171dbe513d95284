"""The three example train steps, 200 AMP steps each in f16 and bf16, through
`mixprec-run train` on the CPU library and on the CUDA library run by the GPU
simulator (MIXPREC_LIBCUDA=libmixprec_gpusim.so): the same loss-scale and
skipped-step sequence, losses within the bounds bench/gpu/model_check uses,
and the digits MLP's test accuracy the same."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import mixprec
import reference_models

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("MIXPREC_BUILD", os.path.join(ROOT, "build"))
GPUSIM = os.path.abspath(os.path.join(BUILD, "lib", "libmixprec_gpusim.so"))
PTXAS = "/usr/local/cuda/bin/ptxas"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(GPUSIM) and os.path.exists(PTXAS)),
    reason="needs the GPU simulator and the CUDA toolkit")

PROGRESS = re.compile(r"^step (\d+)  loss (\S+)  samples/s \d+"
                      r"(?:  scale (\S+)  skipped (\d+))?$")
STEPS = 200
# bench/gpu/model_check's bounds: a 1-ulp change of the initial weights
# already moves late losses by 2e-2, so late steps are held to the mean.
EARLY_STEPS, EARLY_RTOL, EVERY_RTOL, LAST_MEAN_RTOL = 10, 1e-4, 5e-2, 1e-2


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The digits (flat for the MLP, 1x8x8 images for the CNN) and the token
    sequences of bench/gpu/transformer_data.py, as .npy files."""
    directory = tmp_path_factory.mktemp("gpusim-data")
    x_train, y_train, x_test, y_test = reference_models.digits()
    files = {}
    for name, value in (("x_train", x_train.numpy()),
                        ("x_images", x_train.numpy().reshape(-1, 1, 8, 8)),
                        ("y_train", y_train.numpy()),
                        ("x_test", x_test.numpy()),
                        ("y_test", y_test.numpy())):
        files[name] = str(directory / (name + ".npy"))
        np.save(files[name], value)
    subprocess.run([sys.executable,
                    os.path.join(ROOT, "bench", "gpu", "transformer_data.py"),
                    str(directory)], check=True)
    files["tokens"] = str(directory / "tokens.npy")
    files["labels"] = str(directory / "labels.npy")
    return files


# model, learning rate, data files, evaluation (MLP only)
EXAMPLES = {
    "mlp": (0.1, ("x_train", "y_train")),
    "cnn": (0.05, ("x_images", "y_train")),
    "transformer": (0.001, ("tokens", "labels")),
}


def compile_library(model, precision, target, directory):
    library = os.path.join(directory, "lib%s_%s_%s.so" % (model, precision,
                                                          target))
    command = [mixprec.tool_path("mixprec-compile"),
               os.path.join(ROOT, "examples", model + ".mlir"),
               "--amp=precision=" + precision, "-o", library]
    if target == "cuda":
        command += ["--target=cuda", "--arch=sm_90"]
    proc = subprocess.run(command, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return library


def train(library, arguments):
    environment = dict(os.environ, MIXPREC_LIBCUDA=GPUSIM)
    proc = subprocess.run([mixprec.tool_path("mixprec-run"), "train", library,
                           *arguments], capture_output=True, text=True,
                          env=environment, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    steps = [PROGRESS.match(line) for line in proc.stdout.splitlines()]
    steps = [match.groups() for match in steps if match]
    assert len(steps) == STEPS, proc.stdout
    return steps, proc.stdout


@pytest.mark.parametrize("precision", ["f16", "bf16"])
@pytest.mark.parametrize("model", sorted(EXAMPLES))
def test_amp_training_on_the_simulator_follows_the_cpu(model, precision, data,
                                                       tmp_path):
    lr, inputs = EXAMPLES[model]
    arguments = ["--lr", str(lr), "--steps", str(STEPS), "--log-every", "1"]
    for name in inputs:
        arguments += ["--data", data[name]]
    if model == "mlp":
        arguments += ["--eval", "predict", "--eval-data", data["x_test"],
                      "--eval-labels", data["y_test"]]
    cpu, cpu_log = train(compile_library(model, precision, "cpu", tmp_path),
                         arguments)
    gpu, gpu_log = train(compile_library(model, precision, "cuda", tmp_path),
                         arguments)
    # The loss scaler's decisions are discrete: they must be the same.
    for (step, _, cpu_scale, cpu_skipped), (_, _, gpu_scale, gpu_skipped) \
            in zip(cpu, gpu):
        assert (cpu_scale, cpu_skipped) == (gpu_scale, gpu_skipped), step
    cpu_loss = np.array([float(s[1]) for s in cpu])
    gpu_loss = np.array([float(s[1]) for s in gpu])
    relative = np.abs(gpu_loss - cpu_loss) / np.abs(cpu_loss)
    assert relative[:EARLY_STEPS].max() <= EARLY_RTOL, relative[:EARLY_STEPS]
    assert relative.max() <= EVERY_RTOL, (relative.argmax() + 1,
                                          relative.max())
    last_cpu, last_gpu = cpu_loss[-20:].mean(), gpu_loss[-20:].mean()
    assert abs(last_gpu - last_cpu) <= LAST_MEAN_RTOL * last_cpu
    assert cpu_loss[-20:].mean() < 0.5 * cpu_loss[:5].mean()  # it learns
    if model == "mlp":
        accuracy = re.compile(r"^predict accuracy (\S+)", re.M)
        assert accuracy.search(gpu_log).group(1) == \
            accuracy.search(cpu_log).group(1), (cpu_log, gpu_log)
