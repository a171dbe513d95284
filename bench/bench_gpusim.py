#!/usr/bin/python3
"""GPU simulator benchmark: each example's AMP (f16) train step as a CUDA
library run by the simulator (runtime/gpusim) against the same step as a CPU
library, in one run.

For each model it compiles both libraries, trains a few steps of each with
`mixprec-run train` (the same data and schedule), and prints the simulated
steps per second, the CPU library's, their ratio (how many times slower the
simulation is), and the simulator's own figures from MIXPREC_GPUSIM_REPORT:
warp instructions per step and warp instructions per second.

  MIXPREC_BUILD=build /usr/bin/python3 bench/bench_gpusim.py

Runs in about a minute on 2 cores.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "test" / "Integration"))

import numpy as np  # noqa: E402

import reference_models  # noqa: E402

BUILD = pathlib.Path(os.environ.get("MIXPREC_BUILD", ROOT / "build"))
GPUSIM = BUILD / "lib" / "libmixprec_gpusim.so"
# model: learning rate, data, steps timed
MODELS = {"mlp": (0.1, ("x", "y"), 60), "cnn": (0.05, ("images", "y"), 20),
          "transformer": (0.001, ("tokens", "labels"), 10)}


def write_data(directory):
    x, y, _, _ = reference_models.digits()
    files = {"x": x.numpy(), "images": x.numpy().reshape(-1, 1, 8, 8),
             "y": y.numpy()}
    paths = {}
    for name, value in files.items():
        paths[name] = directory / (name + ".npy")
        np.save(paths[name], value)
    subprocess.run([sys.executable, str(ROOT / "bench" / "gpu" /
                                        "transformer_data.py"),
                    str(directory)], check=True)
    paths["tokens"] = directory / "tokens.npy"
    paths["labels"] = directory / "labels.npy"
    return paths


def compile_library(model, target, directory):
    library = directory / ("lib%s_%s.so" % (model, target))
    command = [str(BUILD / "bin" / "mixprec-compile"),
               str(ROOT / "examples" / (model + ".mlir")),
               "--amp=precision=f16", "-o", str(library)]
    if target == "cuda":
        command += ["--target=cuda", "--arch=sm_90"]
    subprocess.run(command, check=True)
    return library


def train(library, arguments, report=None):
    environment = dict(os.environ, MIXPREC_LIBCUDA=str(GPUSIM))
    if report:
        environment["MIXPREC_GPUSIM_REPORT"] = str(report)
    start = time.perf_counter()
    proc = subprocess.run([str(BUILD / "bin" / "mixprec-run"), "train",
                           str(library), *arguments], capture_output=True,
                          text=True, env=environment, check=True)
    elapsed = time.perf_counter() - start
    # mixprec-run's own timing of the steps, without loading and setup.
    match = re.search(r"trained \d+ steps of \d+ samples in (\S+) s",
                      proc.stdout)
    return float(match.group(1)) if match else elapsed


def main():
    if not GPUSIM.exists():
        sys.exit("build the simulator first: ninja -C %s mixprec_gpusim" %
                 BUILD)
    print("%-12s %12s %12s %10s %16s %14s" % (
        "model", "sim steps/s", "CPU steps/s", "slowdown",
        "warp instr/step", "warp instr/s"))
    with tempfile.TemporaryDirectory() as name:
        directory = pathlib.Path(name)
        data = write_data(directory)
        for model, (lr, inputs, steps) in MODELS.items():
            def arguments(count):
                listed = ["--lr", str(lr), "--steps", str(count),
                          "--log-every", str(count)]
                for name in inputs:
                    listed += ["--data", str(data[name])]
                return listed

            cpu = compile_library(model, "cpu", directory)
            cuda = compile_library(model, "cuda", directory)
            # The CPU library runs 20 times the steps: mixprec-run times in
            # milliseconds.
            cpu_seconds = train(cpu, arguments(20 * steps)) / 20
            report = directory / (model + ".json")
            sim_seconds = train(cuda, arguments(steps), report)
            total = json.loads(report.read_text())["total"]
            instructions = total["warp_instructions"]
            print("%-12s %12.2f %12.1f %9.0fx %16d %14.3g" % (
                model, steps / sim_seconds, steps / cpu_seconds,
                sim_seconds / cpu_seconds, instructions // steps,
                instructions / sim_seconds))


if __name__ == "__main__":
    main()
