#!/usr/bin/python3
"""Autocast compile-time benchmark: --mixprec-autocast against --canonicalize
on the same generated transformer-style graphs of about 10k and 100k ops.

Each graph is one function: a stack of pre-LN transformer blocks
(transformer_stack.py: layer norm, q/k/v linears, heads reshaped and
transposed, scores batch_matmul, scale, softmax, dropout, context
batch_matmul, output linear, residual add, MLP with gelu) with every weight
a parameter read inside the function. Times are the passes' own
(`--mlir-timing`), best of several runs, so parsing and printing are left
out. The ratio autocast/canonicalize and the growth of each from 10k to 100k
ops (10x the ops) are printed.

    MIXPREC_BUILD=build /usr/bin/python3 bench/bench_autocast.py
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transformer_stack import Sizes, forward_module  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("MIXPREC_BUILD", os.path.join(ROOT, "build"))
OPT = os.path.join(BUILD, "bin", "mixprec-opt")

SIZES = Sizes(batch=2, seq=8, width=32, heads=4, hidden=64)


def pass_seconds(path, pass_flag, runs):
    """Best time of the pass alone over `runs` runs of mixprec-opt."""
    best = None
    for _ in range(runs):
        proc = subprocess.run([OPT, path, pass_flag, "--mlir-timing",
                               "--mlir-timing-display=list", "-o",
                               os.devnull], capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit("mixprec-opt %s failed:\n%s" % (pass_flag, proc.stderr))
        name = {"--mixprec-autocast": "MixprecAutocast",
                "--canonicalize": "Canonicalizer"}[pass_flag]
        match = re.search(r"^\s*([0-9.]+)\s+\([^)]*\)\s+%s\s*$" % name,
                          proc.stderr, re.M)
        if not match:
            sys.exit("no timing for %s in:\n%s" % (name, proc.stderr))
        seconds = float(match.group(1))
        best = seconds if best is None else min(best, seconds)
    return best


def main():
    ops_per_block = forward_module(1, SIZES)[1] - 2
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        for target in (10_000, 100_000):
            layers = max(1, round(target / ops_per_block))
            text, ops = forward_module(layers, SIZES)
            path = os.path.join(directory, "graph%d.mlir" % target)
            with open(path, "w") as f:
                f.write(text)
            runs = 5 if target <= 10_000 else 3
            autocast = pass_seconds(path, "--mixprec-autocast", runs)
            canonicalize = pass_seconds(path, "--canonicalize", runs)
            results[target] = (ops, autocast, canonicalize)
            print("%7d ops (%d blocks): autocast %8.1f ms, canonicalize "
                  "%8.1f ms, ratio autocast/canonicalize %.2f"
                  % (ops, layers, autocast * 1e3, canonicalize * 1e3,
                     autocast / canonicalize))
    (small_ops, small_a, small_c) = results[10_000]
    (large_ops, large_a, large_c) = results[100_000]
    print("growth from %d to %d ops (%.1fx the ops): autocast %.1fx, "
          "canonicalize %.1fx" % (small_ops, large_ops, large_ops / small_ops,
                                  large_a / small_a, large_c / small_c))


if __name__ == "__main__":
    main()
