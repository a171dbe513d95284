#!/usr/bin/python3
"""CPU speed against PyTorch, in one run, at 1 thread and at every CPU:

  (a) GEMM 512^3 and 1024^3, f32 and bf16: a compiled mixprec.matmul
      against torch.matmul (OpenBLAS for f32; oneDNN for bf16);
  (b) the GPT-style decoder train step of gpt.py ("gpt": 6 layers, width
      384, context 256, batch 8, AdamW), FP32 and bf16 AMP, against
      PyTorch eager (FP32, and bf16 autocast);
  (c) torchvision's resnet18 (10 classes) at 32x32, batch 8, SGD, FP32
      and bf16 AMP, the same way (needs python3-torchvision);
  (d) the three examples (examples/mlp.mlir, cnn.mlir, transformer.mlir:
      small models, so per-op overheads count), FP32 and bf16 AMP, against
      their PyTorch twins in torch_twins.py.

Every time is the best of --reps runs after a warm-up. Ratios are times,
mixprec's over PyTorch's (below 1: mixprec is faster), each pair measured
in this process at the same thread count (OpenBLAS's set too:
torch.set_num_threads leaves it alone), mixprec's runs before PyTorch's
(OpenBLAS's idle threads spin for a while after each call).

OpenBLAS 0.3.21 (Debian bookworm) does not recognize CPUs newer than it
and falls back to its SSE3 (Prescott) kernels, ~5x slower than its AVX-512
ones: a reference that flatters mixprec. On a CPU with AVX-512 this script
sets OPENBLAS_CORETYPE=SkylakeX (unless it is set) before OpenBLAS loads.

  MIXPREC_BUILD=build /usr/bin/python3 bench/bench_cpu_train.py

About 5 minutes on 2 cores (most of it the decoder's steps);
--workloads picks some of gemm, decoder, resnet and examples.
"""
import argparse
import os
import pathlib
import sys
import time


def avx512():
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


if "OPENBLAS_CORETYPE" not in os.environ and avx512():
    os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))
import gpt  # noqa: E402
import mixprec  # noqa: E402
import mixprec.torch as mpt  # noqa: E402
import torch_twins  # noqa: E402

MATMUL_MLIR = """
func.func @matmul(%a: tensor<{n}x{n}x{t}>, %b: tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}> {{
  %c = mixprec.matmul %a, %b : tensor<{n}x{n}x{t}>, tensor<{n}x{n}x{t}> -> tensor<{n}x{n}x{t}>
  return %c : tensor<{n}x{n}x{t}>
}}
"""


def best_time(fn, reps):
    fn()
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def openblas():
    """Debian's OpenBLAS, whose thread count torch.set_num_threads leaves
    alone: its threads would spin beside mixprec's."""
    import ctypes
    try:
        library = ctypes.CDLL("libopenblas.so.0")
        return library.openblas_set_num_threads
    except (OSError, AttributeError):
        return None


OPENBLAS_THREADS = openblas()


def set_threads(libraries, threads):
    torch.set_num_threads(threads)
    if OPENBLAS_THREADS is not None:
        OPENBLAS_THREADS(threads)
    for library in libraries:
        library.num_threads = threads


def gemm_rows(thread_counts, reps):
    rows = []
    for size in (512, 1024):
        for dtype, torch_dtype in (("f32", torch.float32),
                                   ("bf16", torch.bfloat16)):
            library = mixprec.compile_source(
                MATMUL_MLIR.format(n=size, t=dtype))
            a = torch.randn(size, size).to(torch_dtype)
            b = torch.randn(size, size).to(torch_dtype)
            if dtype == "f32":
                inputs = [a.numpy(), b.numpy()]
            else:
                inputs = [t.view(torch.int16).numpy().view(np.uint16)
                          for t in (a, b)]
            spec = library.function("matmul").outputs[0]
            out = [np.empty(spec.shape, spec.numpy_dtype)]
            ours_by_threads = {}
            for threads in thread_counts:
                set_threads([library], threads)
                ours_by_threads[threads] = best_time(
                    lambda: library.call("matmul", inputs, out), reps)
            for threads in thread_counts:
                set_threads([library], threads)
                ours = ours_by_threads[threads]
                theirs = best_time(lambda: torch.matmul(a, b), reps)
                flops = 2 * size ** 3
                rows.append(("%s GEMM %d^3" % (dtype, size), threads,
                             ours, theirs, "%.0f / %.0f GFLOP/s" % (
                                 flops / ours / 1e9, flops / theirs / 1e9)))
    return rows


def decoder_rows(thread_counts, reps):
    rows = []
    for precision in ("fp32", "bf16"):
        model, optimizer, batch = gpt.build("gpt")
        trainer = mpt.compile(model, gpt.loss_fn, batch, optimizer,
                              precision=precision)
        reference, reference_optimizer, _ = gpt.build("gpt")
        torch_step = torch_twins.train_step(reference, reference_optimizer,
                                            gpt.loss_fn, batch, precision)
        ours_by_threads = {}
        for threads in thread_counts:
            set_threads([trainer.library], threads)
            ours_by_threads[threads] = best_time(lambda: trainer.step(*batch),
                                                 reps)
        for threads in thread_counts:
            set_threads([trainer.library], threads)
            theirs = best_time(torch_step, reps)
            rows.append(("decoder step, %s" % precision, threads,
                         ours_by_threads[threads], theirs, ""))
    return rows


def resnet_rows(thread_counts, reps):
    """torchvision's resnet18(num_classes=10), 32x32 images, batch 8, SGD
    with momentum; none without torchvision (python3-torchvision)."""
    try:
        import torchvision
    except ImportError:
        return []
    import torch.nn.functional as F

    def loss_fn(model, x, y):
        return F.cross_entropy(model(x), y)

    def build():
        torch.manual_seed(0)
        model = torchvision.models.resnet18(num_classes=10)
        return model, torch.optim.SGD(model.parameters(), lr=0.01,
                                      momentum=0.9)

    x, y = torch.randn(8, 3, 32, 32), torch.randint(0, 10, (8,))
    rows = []
    for precision in ("fp32", "bf16"):
        model, optimizer = build()
        trainer = mpt.compile(model, loss_fn, (x, y), optimizer,
                              precision=precision)
        reference, reference_optimizer = build()
        torch_step = torch_twins.train_step(reference, reference_optimizer,
                                            loss_fn, (x, y), precision)
        ours_by_threads = {}
        for threads in thread_counts:
            set_threads([trainer.library], threads)
            ours_by_threads[threads] = best_time(lambda: trainer.step(x, y),
                                                 reps)
        for threads in thread_counts:
            set_threads([trainer.library], threads)
            rows.append(("resnet18 step, %s" % precision, threads,
                         ours_by_threads[threads],
                         best_time(torch_step, reps), ""))
    return rows


def example_rows(thread_counts, reps):
    """Each example compiled from examples/ as it is (FP32: --autodiff;
    bf16: --amp=precision=bf16) against its PyTorch twin."""
    rows = []
    for name, build in torch_twins.BUILDERS.items():
        for precision, options in (("fp32", ("--autodiff",)),
                                   ("bf16", ("--amp=precision=bf16",))):
            library = mixprec.compile_file(
                ROOT / "examples" / (name + ".mlir"), options=options)
            trainer = library.trainer("train", seed=0)
            model, optimizer, loss_fn, batch = build()
            arrays = [t.numpy().astype(np.float32 if t.is_floating_point()
                                       else np.int32) for t in batch]
            torch_step = torch_twins.train_step(model, optimizer, loss_fn,
                                                batch, precision)
            ours_by_threads = {}
            for threads in thread_counts:
                set_threads([library], threads)
                ours_by_threads[threads] = best_time(
                    lambda: trainer.step(arrays, 0.01), reps)
            for threads in thread_counts:
                set_threads([library], threads)
                rows.append(("%s step, %s" % (name, precision), threads,
                             ours_by_threads[threads],
                             best_time(torch_step, reps), ""))
    return rows


def main():
    if OPENBLAS_THREADS is None:
        # Debian's reference BLAS, PyTorch's without OpenBLAS, is ~50x
        # slower: every FP32 ratio would flatter mixprec.
        sys.exit("bench_cpu_train.py: OpenBLAS (libopenblas.so.0) is not "
                 "installed, so PyTorch would run on the reference BLAS; "
                 "install libopenblas0-pthread")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3,
                        help="timed runs per measurement (default 3)")
    parser.add_argument("--workloads", default="gemm,decoder,resnet,examples",
                        help="comma-separated subset of gemm, decoder, "
                        "resnet, examples (default: all)")
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0))
    thread_counts = sorted({1, cpus})
    workloads = args.workloads.split(",")
    torch.manual_seed(0)
    rows = []
    if "gemm" in workloads:
        rows += gemm_rows(thread_counts, max(args.reps, 5))
    if "decoder" in workloads:
        rows += decoder_rows(thread_counts, args.reps)
    if "resnet" in workloads:
        rows += resnet_rows(thread_counts, args.reps)
    if "examples" in workloads:
        rows += example_rows(thread_counts, max(args.reps, 20))
    print("mixprec CPU training speed: %d CPUs, torch %s, OPENBLAS_CORETYPE="
          "%s" % (cpus, torch.__version__,
                  os.environ.get("OPENBLAS_CORETYPE", "")))
    print("%-22s %7s %12s %12s %14s  %s" % (
        "", "threads", "mixprec", "PyTorch", "mixprec/torch", ""))
    for name, threads, ours, theirs, extra in rows:
        print("%-22s %7d %9.2f ms %9.2f ms %14.2f  %s" % (
            name, threads, ours * 1e3, theirs * 1e3, ours / theirs, extra))
    times = {(name, threads): ours for name, threads, ours, _, _ in rows}
    if "decoder" not in workloads:
        return
    for threads in thread_counts:
        print("bf16 AMP / FP32 decoder step at %d thread(s): %.2f" % (
            threads, times["decoder step, bf16", threads] /
            times["decoder step, fp32", threads]))
    if len(thread_counts) > 1:
        for precision in ("fp32", "bf16"):
            name = "decoder step, %s" % precision
            print("%s: %d threads are %.2fx faster than 1" % (
                name, cpus, times[name, 1] / times[name, cpus]))


if __name__ == "__main__":
    main()
