#!/usr/bin/python3
"""Random valid models (random_models.py) through every pipeline.

`check(seed, ...)` runs one model through the pipelines (`mixprec-opt` with
the training passes and their output re-parsed, `mixprec-compile` for the CPU
in FP32, f16 and bf16 and for CUDA, a few trainer steps of each CPU library
and, with the GPU simulator, of the CUDA one) and returns the failures: a
crash (a signal, an assertion, "LLVM ERROR", a non-zero exit without a
located diagnostic), a valid model rejected, or a run that fails (an error
status, a non-finite loss in a step that was not skipped).

    random_model_pipelines.py check SEED [--gpusim]  # one seed's pipelines
    random_model_pipelines.py campaign --count N [--start S] [--jobs J]
        [--gpusim] [--keep] [--lock FILE]

test_random_models.py runs a few dozen seeds in CI; scripts/random_models.sh
runs a campaign. docs/random-models.md describes both.
"""
import argparse
import fcntl
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from random_models import FLOATS, generate
from subprocess_env import python_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("MIXPREC_BUILD", os.path.join(ROOT, "build"))
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
GPUSIM = os.path.abspath(os.path.join(BUILD, "lib", "libmixprec_gpusim.so"))


def amp_options(rng, precision):
    """Random --mixprec-amp options for `precision`."""
    options = ["precision=" + precision]
    scaling = rng.choice(("dynamic", "dynamic", "static", "none"))
    options.append("loss-scaling=" + scaling)
    if scaling != "none":
        options.append("init-scale=%s" % rng.choice(("65536", "1024", "1")))
    if scaling == "dynamic":
        options.append("growth-interval=%d" % rng.choice((1, 2, 2000)))
        options.append("hysteresis=%d" % rng.choice((1, 2)))
        if rng.random() < 0.3:
            options += ["backoff-factor=0.25", "growth-factor=4",
                        "min-scale=0.5", "max-scale=131072"]
    if rng.random() < 0.15:
        options.append("master-weights=none")
    if rng.random() < 0.3:
        options.append("max-grad-norm=%s" % rng.choice(("1.0", "0.01")))
    return " ".join(options)


def autocast_options(rng, precision):
    options = ["precision=" + precision]
    if rng.random() < 0.3:
        options.append("level=tensor-core-only")
    if rng.random() < 0.3:
        options.append("fp32-ops=%s" % rng.choice(("gelu", "tanh,sigmoid",
                                                   "mixprec.relu")))
    if rng.random() < 0.3:
        options.append("follow-ops=%s" % rng.choice(("softmax", "exp")))
    return " ".join(options)


def losses_rule(options):
    """What a library's train-step losses must be: finite in FP32; finite
    unless the step was skipped with loss scaling; anything (16-bit numbers
    may overflow, and nothing skips the step) without it."""
    amp = [o for o in options if o.startswith("--amp=")]
    if amp:
        return "any" if "loss-scaling=none" in amp[0] else "finite-or-skipped"
    return "any" if any(o.startswith("--autocast=") for o in options) \
        else "finite"


class Task:
    """One command of a model's pipelines; `trains` marks the runs of a
    library (run_library in a subprocess)."""

    def __init__(self, name, command, env=None, trains=False):
        self.name, self.command, self.env, self.trains = (name, command, env,
                                                          trains)


def pipelines(seed, directory, model_path, gpusim, profile="full",
              tools=None):
    """The tasks of `seed`, as chains run in order (a library is run after
    it is compiled); chains are independent of each other. The "full"
    profile compiles the CPU library in FP32, f16 and bf16 (and sometimes
    unvectorized) and the CUDA one in a random 16-bit precision; "ci"
    compiles the CPU one in FP32 and one 16-bit precision and the CUDA one
    in the other, so that seeds share the cost. `tools` is the directory
    of mixprec-opt and mixprec-compile (the build's bin/ by default)."""
    rng = random.Random(seed * 7919 + 1)
    tools = tools or os.path.join(BUILD, "bin")
    opt = os.path.join(tools, "mixprec-opt")
    compile_ = os.path.join(tools, "mixprec-compile")
    amp = {"f16": amp_options(rng, "f16"), "bf16": amp_options(rng, "bf16")}
    low = rng.choice(FLOATS)
    chains = []
    for name, passes in (
            ("opt amp f16", ["--mixprec-amp=" + amp["f16"]]),
            ("opt amp bf16", ["--mixprec-amp=" + amp["bf16"]]),
            ("opt autocast+autodiff",
             ["--mixprec-autocast=" + autocast_options(rng, low),
              "--mixprec-autodiff", "--mixprec-precision-report",
              "--mixprec-memory-report"]),
            ("opt autodiff+expose-state",
             ["--mixprec-autodiff", "--mixprec-expose-state",
              "--canonicalize"])):
        output = os.path.join(directory, name.replace(" ", "_") + ".mlir")
        chains.append([Task(name, [opt, model_path, *passes, "-o", output]),
                       Task(name + " (re-parsed)", [opt, output,
                                                    "--verify-each"])])
    unvectorized = rng.random() < 0.25
    if profile == "ci":
        cpu = [("cpu fp32", ["--autodiff"]),
               ("cpu amp " + low, ["--amp=" + amp[low]])]
        cuda = "bf16" if low == "f16" else "f16"
    else:
        cpu = [("cpu fp32", ["--autodiff"]),
               ("cpu amp f16", ["--amp=" + amp["f16"]]),
               ("cpu amp bf16", ["--amp=" + amp["bf16"]])]
        if unvectorized:
            cpu.append(("cpu autocast %s unvectorized" % low,
                        ["--autocast=" + low, "--autodiff",
                         "--vectorize=false"]))
        cuda = low
    runner = [sys.executable, os.path.abspath(__file__), "run"]
    spec_path = os.path.join(directory, "spec.json")
    for name, options in cpu:
        library = os.path.join(directory, "lib%s.so" % name.replace(" ", "_"))
        chains.append([Task(name + " compile",
                            [compile_, model_path, "-o", library, *options]),
                       Task(name + " run", runner + [
                           library, spec_path, str(seed),
                           "--losses=" + losses_rule(options)],
                           trains=True)])
    if os.path.exists(PTXAS):
        library = os.path.join(directory, "libcuda.so")
        chain = [Task("cuda amp %s compile" % cuda,
                      [compile_, model_path, "-o", library, "--target=cuda",
                       "--arch=sm_90", "--amp=" + amp[cuda]],
                      env={"PATH": os.environ.get("PATH", "") + ":" +
                           os.path.dirname(PTXAS)})]
        if gpusim and os.path.exists(GPUSIM):
            chain.append(Task("cuda amp %s run (simulator)" % cuda,
                              runner + [library, spec_path, str(seed),
                                        "--steps", "2", "--losses=" +
                                        losses_rule(["--amp=" + amp[cuda]])],
                              env={"MIXPREC_LIBCUDA": GPUSIM}, trains=True))
        chains.append(chain)
    return chains


_CRASH = re.compile(r"LLVM ERROR|Assertion .* failed|Stack dump|PLEASE submit"
                    r"|Segmentation fault|AddressSanitizer|runtime error:")
_LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


def classify(returncode, output):
    """None for success, else what went wrong."""
    if returncode < 0:
        return "crash (signal %s)" % signal.Signals(-returncode).name
    if _CRASH.search(output):
        return "crash (%s)" % _CRASH.search(output).group(0)
    if returncode == 0:
        return None
    if _LOCATED.search(output):
        return "valid model rejected (exit %d)" % returncode
    return "exit %d without a located diagnostic" % returncode


class Failure:
    def __init__(self, seed, task, kind, output):
        self.seed, self.task, self.kind, self.output = seed, task, kind, output

    def __str__(self):
        tail = self.output.strip().splitlines()[-25:]
        return "seed %d: %s: %s\n  $ %s\n%s" % (
            self.seed, self.task.name, self.kind,
            " ".join("'%s'" % a if " " in a else a for a in
                     self.task.command), "\n".join("  " + l for l in tail))


def _run_chain(seed, chain, timeout, timings):
    """Runs `chain`'s tasks in order up to the first failure, which it
    returns; adds each task's seconds to `timings`."""
    for task in chain:
        # The runs of a library import mixprec from the source tree.
        env = python_env(**(task.env or {}))
        start = time.time()
        try:
            proc = subprocess.run(task.command, capture_output=True,
                                  text=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Failure(seed, task, "timeout (%d s)" % timeout, "")
        except OSError as error:
            return Failure(seed, task, "cannot run the tool", str(error))
        finally:
            timings[task.name] = time.time() - start
        output = proc.stdout[-4000:] + proc.stderr[-8000:]
        kind = classify(proc.returncode, proc.stderr)
        if kind and task.trains and not kind.startswith("crash"):
            # The runner's own checks failed (an error status, a loss).
            kind = "training failed (exit %d)" % proc.returncode
        if kind:
            return Failure(seed, task, kind, output)
    return None


def check(seed, directory=None, jobs=2, gpusim=False, timeout=300,
          timings=None, profile="full", tools=None):
    """Runs every pipeline on the model of `seed`; returns (model, failures).
    Each task's seconds go to `timings` (a dict) if given."""
    timings = {} if timings is None else timings
    model = generate(seed)
    owned = directory is None
    directory = directory or tempfile.mkdtemp(prefix="mixprec-random-%d-"
                                              % seed)
    try:
        model_path = os.path.join(directory, "model.mlir")
        with open(model_path, "w") as f:
            f.write(model.text)
        with open(os.path.join(directory, "spec.json"), "w") as f:
            json.dump(model.spec, f)
        chains = pipelines(seed, directory, model_path, gpusim, profile,
                           tools)
        with ThreadPoolExecutor(jobs) as pool:
            results = list(pool.map(
                lambda chain: _run_chain(seed, chain, timeout, timings),
                chains))
        return model, [r for r in results if r is not None]
    finally:
        if owned:
            shutil.rmtree(directory, ignore_errors=True)


# --- Running a library (in a subprocess, so a crash is seen) ---------------

def _data(np, spec, rows, generator):
    shape = (rows,) + tuple(spec["shape"][1:])
    if spec["kind"] == "index":
        return generator.integers(0, spec["high"], shape).astype(
            np.int32 if spec["dtype"] == "i32" else np.int64)
    return generator.standard_normal(shape).astype(np.float32)


def run_library(library, spec, seed, steps, lr, losses):
    """A few train steps, then the eval functions; raises on a failure.
    `losses` is a rule of losses_rule; with "finite", the eval functions'
    results must be finite too."""
    import numpy as np
    import mixprec

    model = mixprec.Model(library)
    trainer = model.trainer(spec["step"], seed)
    generator = np.random.default_rng(seed)
    forward = spec["functions"]["loss"]
    micro = forward[0]["shape"][0]
    rows = micro * spec["accumulation"]
    skipped, losses = 0, []
    for step in range(steps):
        batch = [_data(np, a, rows, generator) for a in forward]
        loss = trainer.step(batch, lr)
        losses.append(loss)
        if trainer.skipped:
            skipped += 1
            if losses == "finite":
                raise AssertionError("step %d skipped without loss scaling"
                                     % step)
        elif not math.isfinite(loss) and losses != "any":
            raise AssertionError("step %d: loss %r, and the step was not "
                                 "skipped" % (step, loss))
    # A skipped step leaves the step count as it was.
    if trainer.step_count != steps - skipped:
        raise AssertionError("step count %d after %d steps, %d skipped"
                             % (trainer.step_count, steps, skipped))
    if trainer.skipped_steps != skipped:
        raise AssertionError("%d skipped steps counted, %d seen"
                             % (trainer.skipped_steps, skipped))
    # Rows that are no multiple of the compiled batch: the last chunk is
    # padded.
    predict_rows = 2 * micro + 1
    (logits,) = trainer.evaluate("predict", [
        _data(np, a, predict_rows, generator)
        for a in spec["functions"]["predict"]])
    if logits.shape[0] != predict_rows:
        raise AssertionError("predict returned %d rows for %d"
                             % (logits.shape[0], predict_rows))
    batch = iter([_data(np, a, micro, generator)
                  for a in spec["functions"]["eval_loss"]])
    inputs = [trainer.get(t.name) if t.name in trainer.state or
              t.name == "rng_state" else next(batch)
              for t in model.functions["eval_loss"].inputs]
    (eval_loss,) = model.call("eval_loss", inputs)
    if losses == "finite" and not (np.isfinite(eval_loss).all() and
                                   np.isfinite(logits).all()):
        raise AssertionError("eval_loss %r, predict %r: not finite"
                             % (eval_loss, logits))
    return {"losses": losses, "skipped": skipped,
            "eval_loss": float(eval_loss)}


# --- Command line ----------------------------------------------------------

def campaign(seeds, jobs, gpusim, keep, lock=None):
    """Checks every seed; prints a line per failing seed and a summary.
    With `lock`, each seed is checked holding that file's flock, so that a
    build that takes the same lock never replaces the tools mid-model."""
    start, failures, passed, timings = time.time(), {}, 0, {}
    for seed in seeds:
        directory = tempfile.mkdtemp(prefix="mixprec-random-%d-" % seed)
        seconds = {}
        with open(lock or os.devnull, "a") as held:
            if lock:
                fcntl.flock(held, fcntl.LOCK_EX)
            _, found = check(seed, directory, jobs, gpusim, timings=seconds)
        for name, value in seconds.items():
            # "cpu amp f16 compile" and "cpu amp bf16 compile" alike.
            key = re.sub(r"\b(b?f16)\b", "16-bit", name)
            timings[key] = timings.get(key, 0.0) + value
        if found:
            failures[seed] = found
            print("FAIL seed %d (%s): %s" % (seed, directory, "; ".join(
                "%s: %s" % (f.task.name, f.kind) for f in found)),
                flush=True)
        else:
            passed += 1
        if not (found and keep):
            shutil.rmtree(directory, ignore_errors=True)
        done = passed + len(failures)
        if done % 25 == 0:
            print("%d of %d models checked, %d failed, %.0f s" % (
                done, len(seeds), len(failures), time.time() - start),
                flush=True)
    print("%d models: %d passed, %d failed in %.0f s%s" % (
        len(seeds), passed, len(failures), time.time() - start,
        "; failing seeds: " + " ".join(str(s) for s in failures)
        if failures else ""))
    for name, value in sorted(timings.items(), key=lambda kv: -kv[1]):
        print("  %7.1f s  %s" % (value, name))
    return 1 if failures else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check_ = commands.add_parser("check", help="run one seed's pipelines")
    check_.add_argument("seed", type=int)
    campaign_ = commands.add_parser("campaign", help="run many seeds")
    campaign_.add_argument("--count", type=int, required=True)
    campaign_.add_argument("--start", type=int, default=0)
    campaign_.add_argument("--keep", action="store_true",
                           help="keep a failing seed's files")
    campaign_.add_argument("--lock", help="a file to flock while checking "
                           "each seed (the lock of builds of the tools)")
    for command in (check_, campaign_):
        command.add_argument("--jobs", type=int, default=2)
        command.add_argument("--gpusim", action="store_true",
                             help="also run the CUDA library on the GPU "
                             "simulator")
    run = commands.add_parser("run", help="train a compiled library a few "
                              "steps (used by check)")
    run.add_argument("library")
    run.add_argument("spec")
    run.add_argument("seed", type=int)
    run.add_argument("--steps", type=int, default=3)
    run.add_argument("--lr", type=float, default=1e-3)
    run.add_argument("--losses", default="finite",
                     choices=("finite", "finite-or-skipped", "any"))
    args = parser.parse_args(argv)
    if args.command == "check":
        model, failures = check(args.seed, jobs=args.jobs,
                                gpusim=args.gpusim)
        for failure in failures:
            print(failure)
        print("seed %d: %s" % (args.seed, "%d failures" % len(failures)
                               if failures else "passed"))
        return 1 if failures else 0
    if args.command == "campaign":
        return campaign(range(args.start, args.start + args.count),
                        args.jobs, args.gpusim, args.keep, args.lock)
    with open(args.spec) as f:
        spec = json.load(f)
    print(json.dumps(run_library(args.library, spec, args.seed, args.steps,
                                 args.lr, args.losses)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
