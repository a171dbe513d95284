#!/usr/bin/python3
"""GPU simulator benchmark: each example's AMP train step as a CUDA library
run by the simulator (runtime/gpusim), in two tables.

The first: what one steady-state step costs, from the simulator's counters
(MIXPREC_GPUSIM_REPORT) of a 12-step run minus a 4-step run, f16 and bf16:
kernel launches, bytes copied host to device and device to host (against
the batch's bytes: a step should move the batch, the learning rate and the
loss, not the state), the most instructions one thread of a kernel other
than a GEMM runs, and shared-memory bank conflicts.

The second: the tensor-core GEMM kernel on bf16 512^3 and 1024^3 matrix
products (row-major A and B), from its counters: the global bytes it loads
against the tile-reuse ideal 2*(M*K*ceil(N/64) + K*N*ceil(M/64)) of its
64x64 tiles, the share of its global loads that move 16 bytes, bank
conflicts, and a roofline estimate for an H100 SXM -- a model of the
hardware, not a measurement: the slowest of its FLOPs at 989 TFLOP/s (dense
bf16), each matrix once through HBM3 at 3.35 TB/s (the L2 holds them), and
its global loads and stores through the L2 at about 5.5 TB/s.

The third: the f16 step against the same step as a CPU library, in one run:
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


# The GEMMs of the second table: M = K = N.
GEMM_SIZES = (512, 1024)
H100_BF16_FLOPS, H100_HBM_BYTES, H100_L2_BYTES = 989e12, 3.35e12, 5.5e12
# Calls every function of the library argv[1] once with random inputs, in a
# process of its own: the simulator writes its report when it exits.
CALL_ALL = """
import sys
import numpy as np
import mixprec
from mixprec import dtypes
model = mixprec.Model(sys.argv[1])
rng = np.random.default_rng(0)
for name, function in model.functions.items():
    inputs = [dtypes.bf16_bits(rng.standard_normal(spec.shape)
                               .astype(np.float32))
              for spec in function.inputs]
    model.call(name, inputs)
"""


def gemm_rows(directory):
    """The second table's rows, one per size."""
    source = directory / "gemms.mlir"
    functions = []
    for n in GEMM_SIZES:
        matrix = "tensor<%dx%dxbf16>" % (n, n)
        result = "tensor<%dx%dxf32>" % (n, n)
        functions.append(
            "  func.func @matmul_%d(%%a: %s, %%b: %s) -> %s {\n"
            "    %%c = mixprec.matmul %%a, %%b : %s, %s -> %s\n"
            "    return %%c : %s\n  }" % (n, matrix, matrix, result, matrix,
                                         matrix, result, result))
    source.write_text("module {\n%s\n}\n" % "\n".join(functions))
    library = directory / "libgemms.so"
    subprocess.run([str(BUILD / "bin" / "mixprec-compile"), str(source),
                    "--target=cuda", "--arch=sm_90", "-o", str(library)],
                   check=True)
    report = directory / "gemms.json"
    environment = dict(os.environ, MIXPREC_LIBCUDA=str(GPUSIM),
                       MIXPREC_GPUSIM_REPORT=str(report),
                       PYTHONPATH=str(ROOT / "python"))
    subprocess.run([sys.executable, "-c", CALL_ALL, str(library)], check=True,
                   env=environment)
    kernels = json.loads(report.read_text())["kernels"]
    for n in GEMM_SIZES:
        stats = kernels["matmul_%d_gemm_0" % n]
        tiles = -(-n // 64)
        ideal = 2 * (n * n * tiles + n * n * tiles)
        moved = stats["global_load_bytes"] + stats["global_store_bytes"]
        matrices = 2 * n * n * 2 + n * n * 4
        seconds = max(2 * n ** 3 / H100_BF16_FLOPS,
                      matrices / H100_HBM_BYTES, moved / H100_L2_BYTES)
        yield (n, stats["global_load_bytes"] / ideal,
               stats["global_loads_16_bytes"] / stats["global_loads"],
               stats["shared_bank_conflicts"], 2 * n ** 3 / seconds / 1e12)


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
        print("tensor-core GEMM, bf16, row-major A and B (simulator "
              "counters; the roofline is a model)")
        print("%-10s %16s %16s %15s %24s" % (
            "M=K=N", "loads / ideal", "16-byte loads", "bank conflicts",
            "H100 roofline TFLOP/s"))
        for n, ratio, share, conflicts, tflops in gemm_rows(directory):
            print("%-10d %16.3f %15.1f%% %15d %24.0f" % (
                n, ratio, 100 * share, conflicts, tflops))

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
