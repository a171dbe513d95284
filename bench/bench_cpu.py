#!/usr/bin/python3
"""CPU backend benchmark: mixprec's vectorized pipeline (--vectorize=true)
against its plain-loop pipeline (--vectorize=false) and PyTorch, in one run.

  (a) a 512x512x512 f32 matmul;
  (b) the digits MLP forward at batch 256: linear(64->128) + relu +
      linear(128->10) + softmax_cross_entropy, weights as function arguments,
      on the first 256 images of sklearn's digits set.

Every time is the best of N calls after warm-up, wall clock, through the
library's C ABI (mixprec) or torch's Python API (PyTorch, under no_grad);
PyTorch runs with one thread, with its default thread count, and with one
thread per CPU when that is more (mixprec's code is single-threaded). The results
of every configuration are checked against PyTorch before they are timed.
Ratios are throughput ratios (time of the other / time of mixprec-vectorized):
above 1, mixprec-vectorized is faster.

  MIXPREC_BUILD=build /usr/bin/python3 bench/bench_cpu.py

Runs in well under two minutes (most of it in the plain-loop matmul).
"""
import argparse
import os
import pathlib
import platform
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import mixprec  # noqa: E402

MATMUL_SIZE = 512
BATCH, IN, HIDDEN, CLASSES = 256, 64, 128, 10

MATMUL_MLIR = """
func.func @matmul(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %c = mixprec.matmul %a, %b : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32> -> tensor<{n}x{n}xf32>
  return %c : tensor<{n}x{n}xf32>
}}
""".format(n=MATMUL_SIZE)

MLP_MLIR = """
func.func @mlp(%x: tensor<{b}x{i}xf32>, %labels: tensor<{b}xi32>,
               %w1: tensor<{h}x{i}xf32>, %b1: tensor<{h}xf32>,
               %w2: tensor<{c}x{h}xf32>, %b2: tensor<{c}xf32>)
    -> (tensor<f32>, tensor<{b}x{c}xf32>) {{
  %hidden = mixprec.linear %x, %w1, %b1 : tensor<{b}x{i}xf32>, tensor<{h}x{i}xf32>, tensor<{h}xf32> -> tensor<{b}x{h}xf32>
  %act = mixprec.relu %hidden : tensor<{b}x{h}xf32>
  %logits = mixprec.linear %act, %w2, %b2 : tensor<{b}x{h}xf32>, tensor<{c}x{h}xf32>, tensor<{c}xf32> -> tensor<{b}x{c}xf32>
  %loss = mixprec.softmax_cross_entropy %logits, %labels : tensor<{b}x{c}xf32>, tensor<{b}xi32>
  return %loss, %logits : tensor<f32>, tensor<{b}x{c}xf32>
}}
""".format(b=BATCH, i=IN, h=HIDDEN, c=CLASSES)

MATMUL_FLOPS = 2 * MATMUL_SIZE ** 3
# The two contractions; relu, bias and softmax are not counted.
MLP_FLOPS = 2 * BATCH * (IN * HIDDEN + HIDDEN * CLASSES)


def best_time(fn, reps, budget):
    """Best wall time of `fn` over up to `reps` calls after one warm-up call
    (at least 3 calls, fewer than `reps` once `budget` seconds are spent)."""
    fn()
    best, spent, calls = float("inf"), 0.0, 0
    while calls < reps and (calls < 3 or spent < budget):
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best, spent, calls = min(best, elapsed), spent + elapsed, calls + 1
    return best


def digits_batch():
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = (digits.data[:BATCH] / 16.0).astype(np.float32)
    labels = digits.target[:BATCH].astype(np.int32)
    return x, labels


def mlp_weights():
    torch.manual_seed(0)
    fc1, fc2 = torch.nn.Linear(IN, HIDDEN), torch.nn.Linear(HIDDEN, CLASSES)
    return [t.detach().numpy().copy() for t in
            (fc1.weight, fc1.bias, fc2.weight, fc2.bias)]


def check(name, actual, expected, rtol=1e-5, atol=1e-5):
    actual, expected = np.asarray(actual), np.asarray(expected)
    if not np.allclose(actual, expected, rtol=rtol, atol=atol):
        err = np.max(np.abs(actual - expected))
        sys.exit("%s: results disagree with PyTorch (max abs error %g)" %
                 (name, err))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", help="build directory with "
                        "bin/mixprec-compile (default: $MIXPREC_BUILD, then "
                        "build/)")
    parser.add_argument("--reps", type=int, default=50,
                        help="calls per measurement, at most (default 50)")
    parser.add_argument("--budget", type=float, default=2.0,
                        help="seconds per measurement before it stops "
                        "early (default 2)")
    args = parser.parse_args()
    if args.build:
        os.environ["MIXPREC_BUILD"] = str(pathlib.Path(args.build).resolve())

    default_threads = torch.get_num_threads()
    work = tempfile.mkdtemp(prefix="mixprec-bench-")
    compile_start = time.perf_counter()
    models = {}
    # Both explicit: the tool's default may change.
    for kind, options in (("vectorized", ("--vectorize=true",)),
                          ("loops", ("--vectorize=false",))):
        for name, text in (("matmul", MATMUL_MLIR), ("mlp", MLP_MLIR)):
            models[name, kind] = mixprec.compile_source(
                text, os.path.join(work, "lib%s_%s.so" % (name, kind)),
                options)
    compile_time = time.perf_counter() - compile_start

    # Inputs and PyTorch references.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE), dtype=np.float32)
    b = rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE), dtype=np.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    x, labels = digits_batch()
    w1, b1, w2, b2 = mlp_weights()
    tx, tlabels = torch.from_numpy(x), torch.from_numpy(labels).long()
    tw1, tb1, tw2, tb2 = (torch.from_numpy(t) for t in (w1, b1, w2, b2))

    def torch_matmul():
        return torch.matmul(ta, tb)

    def torch_mlp():
        logits = F.linear(F.relu(F.linear(tx, tw1, tb1)), tw2, tb2)
        return F.cross_entropy(logits, tlabels), logits

    with torch.no_grad():
        ref_matmul = torch.matmul(ta.double(), tb.double()).numpy()
        ref_loss, ref_logits = (t.numpy() for t in torch_mlp())

    results = {}  # (workload, configuration) -> seconds
    matmul_inputs = [a, b]
    mlp_inputs = [x, labels, w1, b1, w2, b2]
    for kind in ("vectorized", "loops"):
        model = models["matmul", kind]
        out = [np.empty((MATMUL_SIZE, MATMUL_SIZE), np.float32)]
        model.call("matmul", matmul_inputs, out)
        check("matmul (%s)" % kind, out[0], ref_matmul, rtol=1e-4, atol=1e-3)
        results["matmul", "mixprec " + kind] = best_time(
            lambda: model.call("matmul", matmul_inputs, out), args.reps,
            args.budget)

        model = models["mlp", kind]
        outs = [np.empty((), np.float32),
                np.empty((BATCH, CLASSES), np.float32)]
        model.call("mlp", mlp_inputs, outs)
        check("mlp loss (%s)" % kind, outs[0], ref_loss)
        check("mlp logits (%s)" % kind, outs[1], ref_logits)
        results["mlp", "mixprec " + kind] = best_time(
            lambda: model.call("mlp", mlp_inputs, outs), args.reps,
            args.budget)

    # One thread, PyTorch's default, and every CPU when that is more.
    torch_configs = [("torch 1 thread", 1),
                     ("torch default (%d)" % default_threads, default_threads)]
    if (os.cpu_count() or 1) > max(default_threads, 1):
        torch_configs.append(("torch %d threads" % os.cpu_count(),
                              os.cpu_count()))
    with torch.no_grad():
        for label, threads in torch_configs:
            torch.set_num_threads(threads)
            check("torch matmul", torch_matmul().numpy(), ref_matmul,
                  rtol=1e-4, atol=1e-3)
            results["matmul", label] = best_time(torch_matmul, args.reps,
                                                 args.budget)
            results["mlp", label] = best_time(torch_mlp, args.reps,
                                              args.budget)
    torch.set_num_threads(default_threads)

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print("mixprec CPU benchmark: %s, %d CPUs; torch %s (default %d "
          "threads); compile %.1f s for 4 libraries" % (
              cpu, os.cpu_count(), torch.__version__, default_threads,
              compile_time))
    print("all results agree with PyTorch (f32 tolerances)\n")
    workloads = [("matmul", "f32 matmul %d^3" % MATMUL_SIZE, MATMUL_FLOPS),
                 ("mlp", "digits MLP forward, batch %d" % BATCH, MLP_FLOPS)]
    configs = ["mixprec vectorized", "mixprec loops"] + [
        label for label, _ in torch_configs]
    for key, title, flops in workloads:
        print("%s (%.2f MFLOP in contractions)" % (title, flops / 1e6))
        print("  %-22s %12s %10s %14s" % ("", "best time", "GFLOP/s",
                                          "vectorized is"))
        vec = results[key, "mixprec vectorized"]
        for config in configs:
            seconds = results[key, config]
            ratio = "" if config == "mixprec vectorized" else \
                "%.2fx faster" % (seconds / vec) if seconds >= vec else \
                "%.2fx slower" % (vec / seconds)
            print("  %-22s %9.3f ms %10.2f %14s" % (
                config, seconds * 1e3, flops / seconds / 1e9, ratio))
        print("  ratios (throughput): vectorized/loops = %.1f, " % (
            results[key, "mixprec loops"] / vec) + ", ".join(
                "vectorized/%s = %.2f" % (label, results[key, label] / vec)
                for label, _ in torch_configs))
        print()


if __name__ == "__main__":
    main()
