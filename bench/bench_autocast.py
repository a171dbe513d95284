#!/usr/bin/python3
"""Autocast compile-time benchmark: --mixprec-autocast against --canonicalize
on the same generated transformer-style graphs of about 10k and 100k ops.

Each graph is one function: a stack of pre-LN transformer blocks (layer norm,
q/k/v linears, heads reshaped and transposed, scores batch_matmul, scale,
softmax, dropout, context batch_matmul, output linear, residual add, MLP with
gelu) with every weight a parameter read inside the function. Times are the
passes' own (`--mlir-timing`), best of several runs, so parsing and printing
are left out. The ratio autocast/canonicalize and the growth of each from 10k
to 100k ops (10x the ops) are printed.

    MIXPREC_BUILD=build /usr/bin/python3 bench/bench_autocast.py
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("MIXPREC_BUILD", os.path.join(ROOT, "build"))
OPT = os.path.join(BUILD, "bin", "mixprec-opt")

B, T, D, H, HIDDEN = 2, 8, 32, 4, 64
DH = D // H
ACT = "tensor<%dx%dx%dxf32>" % (B, T, D)
HEADS = "tensor<%dx%dx%dx%dxf32>" % (B, H, T, DH)
SPLIT = "tensor<%dx%dx%dx%dxf32>" % (B, T, H, DH)
SCORES = "tensor<%dx%dx%dx%dxf32>" % (B, H, T, T)
MLP = "tensor<%dx%dx%dxf32>" % (B, T, HIDDEN)


def block(i, x, lines, params):
    """Appends one transformer block reading `x`; returns its output name."""
    def param(name, shape):
        params.append("  mixprec.parameter @%s_%d : %s = #mixprec.zeros"
                      % (name, i, shape))
        lines.append("    %%%s_%d = mixprec.read @%s_%d : %s"
                     % (name, i, name, i, shape))
        return "%%%s_%d" % (name, i)

    def op(name, text):
        lines.append("    %%%s_%d = %s" % (name, i, text))
        return "%%%s_%d" % (name, i)

    vec, mat = "tensor<%dxf32>" % D, "tensor<%dx%dxf32>" % (D, D)
    g, b = param("ln1_w", vec), param("ln1_b", vec)
    h = op("h", "mixprec.layer_norm %s scale %s bias %s {axis = 2 : i64} : "
           "%s, %s, %s" % (x, g, b, ACT, vec, vec))
    heads = []
    for name in ("q", "k", "v"):
        w, bias = param(name + "_w", mat), param(name + "_b", vec)
        y = op(name, "mixprec.linear %s, %s, %s : %s, %s, %s -> %s"
               % (h, w, bias, ACT, mat, vec, ACT))
        r = op(name + "4", "mixprec.reshape %s : %s -> %s" % (y, ACT, SPLIT))
        heads.append(op(name + "h", "mixprec.transpose %s {permutation = "
                        "array<i64: 0, 2, 1, 3>} : %s" % (r, SPLIT)))
    s = op("s", "mixprec.batch_matmul %s, %s {transpose_rhs} : %s, %s -> %s"
           % (heads[0], heads[1], HEADS, HEADS, SCORES))
    c = op("c", "mixprec.constant dense<0.35> : tensor<f32>")
    cb = op("cb", "mixprec.broadcast %s : tensor<f32> -> %s" % (c, SCORES))
    m = op("m", "mixprec.mul %s, %s : %s, %s" % (s, cb, SCORES, SCORES))
    p = op("p", "mixprec.softmax %s {axis = 3 : i64} : %s" % (m, SCORES))
    pd = op("pd", "mixprec.dropout %s, %%rng {p = 0.1 : f64, stream = %d : "
            "i64} : %s" % (p, 3 * i, SCORES))
    o = op("o", "mixprec.batch_matmul %s, %s : %s, %s -> %s"
           % (pd, heads[2], SCORES, HEADS, HEADS))
    ot = op("ot", "mixprec.transpose %s {permutation = array<i64: 0, 2, 1, "
            "3>} : %s" % (o, HEADS))
    om = op("om", "mixprec.reshape %s : %s -> %s" % (ot, SPLIT, ACT))
    w, bias = param("o_w", mat), param("o_b", vec)
    a = op("a", "mixprec.linear %s, %s, %s : %s, %s, %s -> %s"
           % (om, w, bias, ACT, mat, vec, ACT))
    ad = op("ad", "mixprec.dropout %s, %%rng {p = 0.1 : f64, stream = %d : "
            "i64} : %s" % (a, 3 * i + 1, ACT))
    x1 = op("x1", "mixprec.add %s, %s : %s, %s" % (x, ad, ACT, ACT))
    g2, b2 = param("ln2_w", vec), param("ln2_b", vec)
    h2 = op("h2", "mixprec.layer_norm %s scale %s bias %s {axis = 2 : i64} : "
            "%s, %s, %s" % (x1, g2, b2, ACT, vec, vec))
    up_w = param("up_w", "tensor<%dx%dxf32>" % (HIDDEN, D))
    up_b = param("up_b", "tensor<%dxf32>" % HIDDEN)
    up = op("up", "mixprec.linear %s, %s, %s : %s, tensor<%dx%dxf32>, "
            "tensor<%dxf32> -> %s" % (h2, up_w, up_b, ACT, HIDDEN, D, HIDDEN,
                                      MLP))
    act = op("act", "mixprec.gelu %s : %s" % (up, MLP))
    down_w = param("down_w", "tensor<%dx%dxf32>" % (D, HIDDEN))
    down = op("down", "mixprec.linear %s, %s : %s, tensor<%dx%dxf32> -> %s"
              % (act, down_w, MLP, D, HIDDEN, ACT))
    dd = op("dd", "mixprec.dropout %s, %%rng {p = 0.1 : f64, stream = %d : "
            "i64} : %s" % (down, 3 * i + 2, ACT))
    return op("x2", "mixprec.add %s, %s : %s, %s" % (x1, dd, ACT, ACT))


def graph(layers):
    """A module with `layers` blocks; returns (text, number of ops)."""
    lines, params = [], []
    lines.append("    %rng = mixprec.rng_state")
    x = "%x"
    for i in range(layers):
        x = block(i, x, lines, params)
    text = "\n".join(["module {"] + params +
                     ["  func.func @forward(%%x: %s) -> %s {" % (ACT, ACT)] +
                     lines + ["    return %s : %s" % (x, ACT), "  }", "}", ""])
    return text, len(lines) + 1


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
    ops_per_block = graph(1)[1] - 2
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        for target in (10_000, 100_000):
            layers = max(1, round(target / ops_per_block))
            text, ops = graph(layers)
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
