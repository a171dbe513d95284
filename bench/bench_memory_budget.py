#!/usr/bin/python3
"""A train step under a memory budget: what `mpt.compile(...,
memory_budget=)` (`mixprec-compile --memory-budget`) holds and costs,
against the same step compiled without a budget, in the same run.

    MIXPREC_BUILD=build /usr/bin/python3 bench/bench_memory_budget.py
    MIXPREC_BUILD=build /usr/bin/python3 bench/bench_memory_budget.py --model gpt-small --steps 5

The model (a decoder of bench/gpt.py, bf16 AMP by default) is compiled
without a budget; its planned peak (the trainer's `memory_plan.host_bytes`)
sets the budget, `--fraction` of it (0.6). Each compile trains in a process
of its own, from the same weights on the same `--steps` batches, as
bench_memory.py measures: the process is settled (free heap returned,
read-only file pages resident), then a new trainer of the compiled library
is created and stepped; its peak resident growth is what is measured.

Printed: planned and measured peak of both, measured / budget, the best
step time of each and their ratio, and whether the losses of every step and
the whole state after the last (parameters, masters, moments, the loss
scaler's state, the RNG state) are bit-identical. Exits 1 when they are not
or the budgeted step exceeds its budget.
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

TRAIN = r"""
import hashlib, json, sys, time
import numpy as np
import torch
import mixprec.torch as mpt
torch.set_num_threads(1)
sys.path.insert(0, %(bench)r)
import bench_memory, gpt
name, precision, budget, steps = %(args)r
model, optimizer, batch = gpt.build(name)
size = gpt.SIZES[name]
generator = torch.Generator().manual_seed(7)
batches = []
for _ in range(steps):
    tokens = torch.randint(0, size.vocabulary, (size.batch, size.context + 1),
                           generator=generator)
    batches.append((tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()))
compiled = mpt.compile(model, gpt.loss_fn, batch, optimizer,
                       precision=precision, memory_budget=budget)
imported, library = compiled._imported, compiled.library
del compiled
bench_memory.settle()
bench_memory.reset_peak()
baseline, _ = bench_memory.resident()
trainer = mpt.Trainer(model, imported, library, precision)
losses, times = [], []
for step_batch in batches:
    start = time.perf_counter()
    losses.append(trainer.step(*step_batch))
    times.append(time.perf_counter() - start)
measured = bench_memory.resident()[1] - baseline
state = trainer._trainer
digest = hashlib.sha256()
for key in sorted(state.state) + ["rng_state"]:
    digest.update(key.encode())
    digest.update(np.ascontiguousarray(state.get(key)).tobytes())
print(json.dumps({"planned": trainer.memory_plan.host_bytes,
                  "measured": measured, "times": times,
                  "losses": [float(loss).hex() for loss in losses],
                  "state": digest.hexdigest()}))
"""


def train(name, precision, budget, steps):
    env = dict(os.environ, MIXPREC_BUILD=str(BUILD),
               PYTHONPATH=os.pathsep.join([str(ROOT / "python"),
                                           str(ROOT / "bench")]),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MIXPREC_NUM_THREADS="1")
    script = TRAIN % {"bench": str(ROOT / "bench"),
                      "args": (name, precision, budget, steps)}
    done = subprocess.run([PYTHON, "-c", script], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("training %s (budget %s) failed:\n%s%s" % (
            name, budget, done.stdout, done.stderr[-4000:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="gpt", choices=("gpt", "gpt-small"))
    parser.add_argument("--precision", default="bf16",
                        choices=("fp32", "f16", "bf16"))
    parser.add_argument("--fraction", type=float, default=0.6)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--json", help="also write every figure here")
    args = parser.parse_args()
    free = train(args.model, args.precision, None, args.steps)
    budget = int(free["planned"] * args.fraction)
    bounded = train(args.model, args.precision, budget, args.steps)
    identical = (free["losses"] == bounded["losses"] and
                 free["state"] == bounded["state"])
    print("== %s %s, %d steps, budget %.2f MB (%.2f of the planned peak)"
          % (args.model, args.precision, args.steps, budget / 1e6,
             args.fraction))
    print("  %-14s %9s %9s %9s" % ("", "planned", "measured", "step s"))
    for label, run in (("no budget", free), ("budget", bounded)):
        print("  %-14s %9.2f %9.2f %9.3f" % (
            label, run["planned"] / 1e6, run["measured"] / 1e6,
            min(run["times"])))
    print("  measured / budget: %.3f" % (bounded["measured"] / budget))
    print("  step time, budget / no budget: %.3f (best of %d)" % (
        min(bounded["times"]) / min(free["times"]), args.steps))
    print("  losses and state bit-identical: %s" % identical)
    if args.json:
        json.dump({"budget": budget, "free": free, "bounded": bounded},
                  open(args.json, "w"), indent=2)
    if not identical or bounded["measured"] > budget:
        sys.exit(1)


if __name__ == "__main__":
    main()
