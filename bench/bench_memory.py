#!/usr/bin/python3
"""Peak memory of a train step: mixprec's, measured and as its memory plan
predicts it, against PyTorch eager's, measured the same way in the same run.

    MIXPREC_BUILD=build /usr/bin/python3 bench/bench_memory.py
    MIXPREC_BUILD=build /usr/bin/python3 bench/bench_memory.py --models gpt-small --targets cpu

Models: the three examples (examples/mlp.mlir, cnn.mlir, transformer.mlir,
compiled from their text; PyTorch equivalents written here, as their
headers describe them) and two GPT-style decoders written in PyTorch
(bench/gpt.py, imported by mixprec.torch): `gpt` (6 layers, width 384, 6
heads, context 256, batch 8, vocabulary 512, 10.9 M parameters) and
`gpt-small` (2, 128, 4, 64, 8, 256). Precisions: FP32, f16 and bf16 AMP.

Each figure is measured in a process of its own, a few steps after the model
and a batch exist:

- CPU, one thread for both systems: the growth of the process's peak
  resident memory (VmHWM) over its resident memory once the model (and for
  mixprec the library, and a first trainer of it, which generates the
  kernels of its contractions) is loaded: `mixprec-run train
  --memory-report` for the examples, a Python process for the decoders and
  PyTorch (both with torch and mixprec.torch imported before). Both settle
  the process first: free heap pages go back to the system and every
  read-only page of the loaded files (code, constant tables) is made
  resident, so neither system's first step is charged for the shared code
  it runs. mpt.compile imports the module by running it
  under PyTorch; what is measured is a second trainer of the library it
  compiled, created after that (its state is counted) and stepped.
- CUDA: the GPU simulator's `peak_device_bytes` (MIXPREC_GPUSIM_REPORT),
  the CUDA library run on runtime/gpusim. The `gpt` decoder's steps would
  take hours to simulate (its FP32 step has about 100 times the work of
  `gpt-small`'s, which takes over a minute), so for it the simulator
  checks and counts launches without running them
  (MIXPREC_GPUSIM_SKIP_KERNELS): what a step allocates does not depend on
  what its kernels compute, and test_cuda_library.py checks that both
  modes count the same allocations, copies and peak.
- planned: the trainer's memory plan (mixprec_trainer_memory: host bytes on
  the CPU, device bytes on CUDA), known before the first step.

Printed per model: the figures in MB and the ratios the plan and the
comparisons are judged by: planned / measured, AMP / FP32, mixprec /
PyTorch (FP32 against FP32, AMP against autocast bf16).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("MIXPREC_BUILD", ROOT / "build"))
PYTHON = "/usr/bin/python3"
EXAMPLES = ("mlp", "cnn", "transformer")
DECODERS = ("gpt-small", "gpt")
PRECISIONS = ("fp32", "f16", "bf16")
STEPS = 3
# Models whose CUDA steps are measured without executing their kernels.
ALLOCATIONS_ONLY = ("gpt",)


def compile_options(precision):
    return (["--autodiff"] if precision == "fp32"
            else ["--amp=precision=%s" % precision])


def environment(target, report=None, name=None):
    env = dict(os.environ, MIXPREC_BUILD=str(BUILD),
               PYTHONPATH=os.pathsep.join([str(ROOT / "python"),
                                           str(ROOT / "bench")]),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MIXPREC_NUM_THREADS="1")
    if target == "cuda":
        env["MIXPREC_LIBCUDA"] = str(BUILD / "lib" / "libmixprec_gpusim.so")
        env["MIXPREC_GPUSIM_REPORT"] = str(report)
        if name in ALLOCATIONS_ONLY:
            env["MIXPREC_GPUSIM_SKIP_KERNELS"] = "1"
    return env


def run(command, env):
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("%s failed:\n%s%s" % (" ".join(map(str, command)),
                                       done.stdout, done.stderr))
    return done.stdout


# --- The examples: mixprec-run on the compiled library ---------------------

def example_data(name, directory):
    """Zero-filled batches for the example `name` (zeros are valid labels
    and token ids), four batches' worth of rows."""
    import numpy as np
    shapes = {"mlp": [((256, 64), np.float32), ((256,), np.int32)],
              "cnn": [((128, 1, 8, 8), np.float32), ((128,), np.int32)],
              "transformer": [((32, 16), np.int32), ((32,), np.int32)]}
    paths = []
    for i, (shape, dtype) in enumerate(shapes[name]):
        path = directory / ("%s_%d.npy" % (name, i))
        np.save(path, np.zeros(shape, dtype))
        paths.append(path)
    return paths


def measure_example(name, precision, target, directory):
    library = directory / ("%s_%s_%s.so" % (name, precision, target))
    options = compile_options(precision)
    if target == "cuda":
        options += ["--target=cuda", "--arch=sm_90"]
    run([BUILD / "bin" / "mixprec-compile", ROOT / "examples" /
         (name + ".mlir"), *options, "-o", library], os.environ)
    report = directory / ("%s_%s_%s.json" % (name, precision, target))
    gpusim = directory / ("%s_%s_%s_gpusim.json" % (name, precision, target))
    command = [BUILD / "bin" / "mixprec-run", "train", library,
               "--steps", str(STEPS), "--log-every", "0",
               "--memory-report", report]
    for path in example_data(name, directory):
        command += ["--data", path]
    run(command, environment(target, gpusim))
    result = json.load(open(report))
    if target == "cuda":
        return {"planned": result["planned"]["device_bytes"],
                "measured": json.load(open(gpusim))["peak_device_bytes"]}
    return {"planned": result["planned"]["host_bytes"],
            "measured": result["measured"]["resident_growth_bytes"]}


# --- Python processes: PyTorch, and the decoders through mixprec.torch ------

MEASURE = r"""
import json, sys
import torch
import mixprec.torch
torch.manual_seed(0)
torch.set_num_threads(1)
sys.path.insert(0, %(bench)r)
import bench_memory
system, name, precision, target = %(args)r
model, optimizer, loss_fn, batch = bench_memory.torch_model(name)
print(json.dumps(bench_memory.measure_in_process(
    system, model, optimizer, loss_fn, batch, precision, target)))
"""


def resident():
    """(VmRSS, VmHWM) of this process, in bytes."""
    values = {}
    for line in open("/proc/self/status"):
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) * 1024
    return values["VmRSS"], values["VmHWM"]


def reset_peak():
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")


def settle():
    """What mixprec-run does before it measures: the heap's free pages go
    back to the system (so what a step allocates is counted wherever malloc
    places it) and every read-only page of the loaded files becomes
    resident (what the first step runs for the first time, libtorch's
    kernels or libm's tables, is file-backed and shared code, not the
    step's memory)."""
    import ctypes
    import gc
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    for line in open("/proc/self/maps"):
        fields = line.split()
        if (len(fields) < 6 or not fields[1].startswith("r-")
                or not fields[5].startswith("/")):
            continue
        begin, end = (int(address, 16) for address in fields[0].split("-"))
        for page in range(begin, end, 4096):
            ctypes.string_at(page, 1)


def measure_in_process(system, model, optimizer, loss_fn, batch, precision,
                       target):
    """Steps `model` in this process (`system` "torch" or "mixprec") and
    measures its peak resident growth over the resident memory now."""
    settle()
    reset_peak()
    baseline, _ = resident()
    result = {}
    if system == "mixprec":
        import mixprec.torch as mpt
        compiled = mpt.compile(model, loss_fn, batch, optimizer,
                               precision=precision, target=target,
                               arch="sm_90" if target == "cuda" else None)
        # What is measured is a trainer and its steps, as mixprec-run
        # measures the examples: a new trainer of the compiled library,
        # created after the import's runs of the module under PyTorch (its
        # leftovers, OpenBLAS's buffers among them, are not the step's).
        imported, library = compiled._imported, compiled.library
        del compiled
        settle()
        reset_peak()
        baseline, _ = resident()
        trainer = mpt.Trainer(model, imported, library, precision)
        for _ in range(STEPS):
            trainer.step(*batch)
        plan = trainer.memory_plan
        result["planned"] = (plan.device_bytes if target == "cuda"
                             else plan.host_bytes)
    else:
        import torch_twins
        step = torch_twins.train_step(model, optimizer, loss_fn, batch,
                                      precision)
        for _ in range(STEPS):
            step()
    result["measured"] = resident()[1] - baseline
    return result


def torch_model(name):
    """(model, optimizer, loss_fn, batch) for `name`: a decoder of gpt.py,
    or the PyTorch twin of an example (torch_twins.py)."""
    import gpt
    import torch_twins
    if name in gpt.SIZES:
        model, optimizer, batch = gpt.build(name)
        return model, optimizer, gpt.loss_fn, batch
    return torch_twins.BUILDERS[name]()


def measure_python(system, name, precision, target, directory):
    gpusim = directory / ("%s_%s_%s_%s_gpusim.json"
                          % (system, name, precision, target))
    script = MEASURE % {"bench": str(ROOT / "bench"),
                        "args": (system, name, precision, target)}
    output = run([PYTHON, "-c", script], environment(target, gpusim, name))
    result = json.loads(output.strip().splitlines()[-1])
    if target == "cuda":
        result["measured"] = json.load(open(gpusim))["peak_device_bytes"]
    return result


# --- The table --------------------------------------------------------------

def megabytes(value):
    return "%9.2f" % (value / 1e6) if value is not None else "%9s" % "-"


def ratio(a, b):
    return "%6.3f" % (a / b) if a is not None and b else "%6s" % "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=EXAMPLES + DECODERS)
    parser.add_argument("--targets", nargs="+", default=("cpu", "cuda"),
                        choices=("cpu", "cuda"))
    parser.add_argument("--json", help="also write every figure here")
    args = parser.parse_args()
    figures = {}
    with tempfile.TemporaryDirectory() as temporary:
        directory = pathlib.Path(temporary)
        for name in args.models:
            for target in args.targets:
                row = {}
                for precision in PRECISIONS:
                    if name in EXAMPLES:
                        row[precision] = measure_example(name, precision,
                                                         target, directory)
                    else:
                        row[precision] = measure_python(
                            "mixprec", name, precision, target, directory)
                if target == "cpu":
                    for precision in ("fp32", "bf16"):
                        row["torch " + precision] = measure_python(
                            "torch", name, precision, target, directory)
                figures["%s %s" % (name, target)] = row
                show(name, target, row)
    if args.json:
        json.dump(figures, open(args.json, "w"), indent=2)


def show(name, target, row):
    unit = "peak device MB" if target == "cuda" else "peak resident growth MB"
    if target == "cuda" and name in ALLOCATIONS_ONLY:
        unit += "; kernels checked, not executed"
    print("== %s, %s (%s)" % (name, target, unit))
    print("  %-12s %9s %9s %8s" % ("", "measured", "planned",
                                   "plan/meas"))
    for key, figure in row.items():
        print("  %-12s %s %s %s" % (key, megabytes(figure["measured"]),
                                    megabytes(figure.get("planned")),
                                    ratio(figure.get("planned"),
                                          figure["measured"])))
    fp32 = row["fp32"]["measured"]
    for precision in ("f16", "bf16"):
        print("  %s / fp32: %s" % (precision,
                                   ratio(row[precision]["measured"], fp32)))
    if "torch fp32" in row:
        print("  mixprec / PyTorch: fp32 %s, bf16 %s (against autocast)" % (
            ratio(fp32, row["torch fp32"]["measured"]),
            ratio(row["bf16"]["measured"], row["torch bf16"]["measured"])))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
