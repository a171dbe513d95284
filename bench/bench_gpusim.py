#!/usr/bin/python3
"""GPU simulator benchmark: each example's AMP train step as a CUDA library
run by the simulator (runtime/gpusim), in two tables.

The first: what one steady-state step costs, from the simulator's counters
(MIXPREC_GPUSIM_REPORT) of a 12-step run minus a 4-step run, f16 and bf16:
kernel launches, bytes copied host to device and device to host (against
the batch's bytes: a step should move the batch, the learning rate and the
loss, not the state), the most instructions one thread of a kernel other
than a GEMM runs, and shared-memory bank conflicts.

The second: the f16 step against the same step as a CPU library, in one run:
the simulated steps per second, the CPU library's, their ratio (how many
times slower the simulation is), and warp instructions per step and per
second.

  MIXPREC_BUILD=build /usr/bin/python3 bench/bench_gpusim.py

Runs in about two minutes on 2 cores.
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
# The rows of each model's batch (examples/*.mlir).
BATCH_ROWS = {"mlp": 64, "cnn": 32, "transformer": 8}


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


def compile_library(model, target, directory, precision="f16"):
    library = directory / ("lib%s_%s_%s.so" % (model, target, precision))
    command = [str(BUILD / "bin" / "mixprec-compile"),
               str(ROOT / "examples" / (model + ".mlir")),
               "--amp=precision=" + precision, "-o", str(library)]
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


def batch_bytes(data, inputs, rows):
    """The bytes of one batch of `rows` rows of the data files `inputs`."""
    total = 0
    for name in inputs:
        array = np.load(data[name], mmap_mode="r")
        total += array[:rows].nbytes
    return total


def steady_step(library, arguments):
    """Per steady-state step: the counters of a 12-step run minus a 4-step
    run, over 8 steps; the largest per-thread instruction count of a
    non-GEMM kernel from the longer run."""
    counters = {}
    with tempfile.TemporaryDirectory() as name:
        for steps in (4, 12):
            report = pathlib.Path(name) / ("%d.json" % steps)
            train(library, arguments(steps, 0), report)
            counters[steps] = json.loads(report.read_text())

    def per_step(read):
        return (read(counters[12]) - read(counters[4])) / 8

    kernels = counters[12]["kernels"]
    return {
        "launches": per_step(lambda c: c["total"]["launches"]),
        "host_to_device": per_step(lambda c: c["host_to_device_bytes"]),
        "device_to_host": per_step(lambda c: c["device_to_host_bytes"]),
        "thread_instructions": max(
            (stats["max_thread_instructions"] for kernel, stats in
             kernels.items() if "_gemm_" not in kernel), default=0),
        "bank_conflicts": per_step(
            lambda c: c["total"]["shared_bank_conflicts"]),
    }


def main():
    if not GPUSIM.exists():
        sys.exit("build the simulator first: ninja -C %s mixprec_gpusim" %
                 BUILD)
    with tempfile.TemporaryDirectory() as name:
        directory = pathlib.Path(name)
        data = write_data(directory)

        def arguments_of(model):
            lr, inputs, _ = MODELS[model]

            def arguments(count, log_every=None):
                listed = ["--lr", str(lr), "--steps", str(count),
                          "--log-every", str(count if log_every is None
                                             else log_every)]
                for name in inputs:
                    listed += ["--data", str(data[name])]
                return listed
            return arguments

        print("per steady-state step (simulator counters, 12 steps - 4)")
        print("%-12s %-5s %9s %14s %14s %12s %18s %15s" % (
            "model", "amp", "launches", "host->device", "device->host",
            "batch bytes", "thread instr max", "bank conflicts"))
        for model, (_, inputs, _) in MODELS.items():
            for precision in ("f16", "bf16"):
                cuda = compile_library(model, "cuda", directory, precision)
                step = steady_step(cuda, arguments_of(model))
                print("%-12s %-5s %9.0f %14.0f %14.0f %12d %18d %15.0f" % (
                    model, precision, step["launches"],
                    step["host_to_device"], step["device_to_host"],
                    batch_bytes(data, inputs, BATCH_ROWS[model]),
                    step["thread_instructions"], step["bank_conflicts"]))

        print()
        print("%-12s %12s %12s %10s %16s %14s" % (
            "model", "sim steps/s", "CPU steps/s", "slowdown",
            "warp instr/step", "warp instr/s"))
        for model, (_, _, steps) in MODELS.items():
            arguments = arguments_of(model)
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
