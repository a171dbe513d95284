#!/usr/bin/python3
"""Compile-time benchmark: how compile time, memory and code grow with depth.

Stacks of 1, 2, 4, 8 and 12 pre-LN transformer blocks (bench/
transformer_stack.py: B=4, T=128, D=256, 4 heads, MLP 1024, an MSE loss and
an AdamW train step), and a GPT-2-small-wide variant (D=768, 12 heads, MLP
3072) at 12 blocks, each compiled by `mixprec-compile` to a library for:

    cpu-fp32    --autodiff
    cpu-bf16    --amp=precision=bf16
    cuda-bf16   --target=cuda --arch=sm_90 --amp=precision=bf16

For each compile it prints the wall time, the compiler's peak RSS, the time
of each stage (`--mlir-timing`: parsing, the training passes, the lowering
passes, of which NVPTX code generation, LLVM optimization and code
generation, ptxas and fatbinary, linking), the library's size and the number
of distinct loop-nest functions (CPU) or kernels (CUDA) in it, and the
ratio of time and distinct code to the 1-block compile of the same run.

torchvision's deepest models (densenet121, efficientnet_b0, maxvit_t at
their smallest inputs, as the zoo suite builds them) follow each config's
stacks; `--torchvision` picks some (none: skip them).

    MIXPREC_BUILD=build /usr/bin/python3 bench/bench_compile.py
    ... --configs cpu-fp32 --blocks 1 4 --no-wide --torchvision  # quicker
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transformer_stack import Sizes, train_step_module  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("MIXPREC_BUILD", os.path.join(ROOT, "build"))
COMPILE = os.path.join(BUILD, "bin", "mixprec-compile")

CONFIGS = {
    "cpu-fp32": ["--autodiff"],
    "cpu-bf16": ["--amp=precision=bf16"],
    "cuda-bf16": ["--target=cuda", "--arch=sm_90", "--amp=precision=bf16"],
}
WIDE = Sizes(width=768, heads=12, hidden=3072)
# Stages of the timing tree: top-level scopes, and the passes inside the
# lowering that are a stage of their own.
# (The CPU's LLVM stage is one: the host code at O0 beside the loop nests'
# parts at O3, on threads of their own.)
STAGES = [
    ("parse", "Parse"),
    ("training", "Training passes"),
    ("lowering", "Lowering passes"),
    ("nvptx", "GpuModuleToBinaryPass"),
    ("llvm", r"LLVM code generation \(host at O0, loop nests at O3 in \d+ "
             r"parts\)"),
    ("ptxas", "ptxas and fatbinary"),
    ("link", "Link"),
]


# torchvision's deepest classification models, as the zoo suite builds them
# (test_torchvision_zoo.py): num_classes=10, their smallest input.
DEEP = {"densenet121": (4, 32), "efficientnet_b0": (8, 32),
        "maxvit_t": (2, 224)}


IMPORT = r"""
import sys
import torch
import torch.nn.functional as F
import torchvision.models as models
from mixprec.torch.importer import import_model
name, batch, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.manual_seed(0)
model = getattr(models, name)(num_classes=10)
example = (torch.randn(batch, 3, size, size), torch.randint(0, 10, (batch,)))
sys.stdout.write(import_model(
    model, lambda m, x, y: F.cross_entropy(m(x), y), example,
    torch.optim.SGD(model.parameters(), lr=0.005)).text)
"""


def torchvision_train_step(name):
    """The dialect text of torchvision's `name` with an SGD step, imported
    by mixprec.torch in a process of its own (forked from this one, a
    compile would count the import's memory as its own peak RSS)."""
    batch, size = DEEP[name]
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run(
        [sys.executable, "-W", "ignore", "-c", IMPORT, name, str(batch),
         str(size)], env=env, capture_output=True, text=True,
        check=True).stdout


def stage_times(report):
    """Wall seconds of each stage in a `--mlir-timing-display=tree` report
    (the lowering's time without NVPTX, which is listed apart)."""
    times = {}
    for line in report.splitlines():
        match = re.match(r"\s*[0-9.]+ \([ 0-9.]+%\)\s+([0-9.]+) \([ 0-9.]+%\)"
                         r"\s+(\S.*?)\s*$", line)
        if not match:
            continue
        seconds, name = float(match.group(1)), match.group(2)
        for key, label in STAGES:
            if re.fullmatch(label, name):
                times[key] = times.get(key, 0.0) + seconds
    times["lowering"] = times.get("lowering", 0.0) - times.get("nvptx", 0.0)
    return times


def distinct_code(library, cuda):
    """Distinct kernels (the PTX entries in the library's fatbin) or loop-nest
    functions (symbols of outlined nests)."""
    if cuda:
        with open(library, "rb") as f:
            return len(set(re.findall(rb"\.entry (\w+)\(", f.read())))
    symbols = subprocess.run(["nm", library], capture_output=True, text=True,
                             check=True).stdout
    return sum(1 for line in symbols.splitlines()
               if re.search(r" [tT] \w+_loops_\d+$", line))


def compile_once(source, flags, directory):
    """Compiles `source`; returns a dict of the figures."""
    library = os.path.join(directory, "lib.so")
    command = [COMPILE, source, "-o", library, "--mlir-timing",
               "--mlir-timing-display=tree"] + flags
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/local/cuda/bin"
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=env)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed:\n%s" % (" ".join(command), stderr[-4000:]))
    return {
        "seconds": seconds,
        "rss_mb": usage.ru_maxrss / 1024,
        "stages": stage_times(stderr),
        "bytes": os.path.getsize(library),
        "distinct": distinct_code(library, "--target=cuda" in flags),
    }


def print_row(config, label, figures, base):
    stages = " ".join("%s %.1f" % (key, figures["stages"][key])
                      for key, _ in STAGES if key in figures["stages"] and
                      figures["stages"][key] >= 0.05)
    ratio = ""
    if base:
        ratio = " | x%.2f time, x%.2f distinct" % (
            figures["seconds"] / base["seconds"],
            figures["distinct"] / max(base["distinct"], 1))
    print("%-9s %-16s %7.1f s %6.0f MB %6.2f MB %4d distinct%s\n"
          "%28s stages (s): %s" % (
              config, label, figures["seconds"], figures["rss_mb"],
              figures["bytes"] / 2**20, figures["distinct"], ratio, "",
              stages), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="+", choices=sorted(CONFIGS),
                        default=list(CONFIGS))
    parser.add_argument("--blocks", nargs="+", type=int,
                        default=[1, 2, 4, 8, 12])
    parser.add_argument("--no-wide", action="store_true",
                        help="skip the 768-wide 12-block model")
    parser.add_argument("--torchvision", nargs="*", default=list(DEEP),
                        choices=sorted(DEEP),
                        help="torchvision's deepest models to compile too "
                        "(needs python3-torchvision; none: skip them)")
    args = parser.parse_args()
    print("%-9s %-16s %9s %9s %9s %13s" % (
        "config", "model", "wall", "peak RSS", "library", "code"))
    with tempfile.TemporaryDirectory() as directory:
        models = [("%d blocks" % n, n, Sizes()) for n in args.blocks]
        if not args.no_wide:
            models.append(("12 blocks, D=768", 12, WIDE))
        for config in args.configs:
            base = None
            for label, blocks, sizes in models:
                source = os.path.join(directory, "model.mlir")
                with open(source, "w") as f:
                    f.write(train_step_module(blocks, sizes))
                figures = compile_once(source, CONFIGS[config], directory)
                print_row(config, label, figures,
                          base if sizes == Sizes() else None)
                if blocks == 1 and sizes == Sizes():
                    base = figures
            for name in args.torchvision:
                source = os.path.join(directory, "model.mlir")
                with open(source, "w") as f:
                    f.write(torchvision_train_step(name))
                figures = compile_once(source, CONFIGS[config], directory)
                print_row(config, name, figures, None)


if __name__ == "__main__":
    main()
