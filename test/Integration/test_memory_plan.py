"""The memory plan changes where values live and when, never what is
computed: each example trains to bit-identical losses and state compiled
with the plan (buffers reused, values recomputed in the backward, updates
scheduled early) and with --plan-memory=false (each buffer its own, nothing
recomputed or moved), on the CPU and on the GPU simulator. A memory budget
(mpt.compile's memory_budget) recomputes more and still computes the same
bits; a budget no plan meets is refused with the least it can reach."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch import nn
import torch.nn.functional as F

import harness
import mixprec
import mixprec.torch as mpt
from harness import build_library, snapshot

pytestmark = pytest.mark.usefixtures("backend")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
STEPS = 4


def batches(model, count):
    """`count` batches for `model`'s train step: normal floats, and
    integers in [0, 4) (labels and token ids of every example)."""
    rng = np.random.default_rng(5)
    state = {spec.name for spec in model.state} | {"rng_state"}
    result = []
    for _ in range(count):
        batch = []
        # All but the state and the learning rate (the last input).
        for spec in model.function("train").inputs[:-1]:
            if spec.name in state:
                continue
            dtype = np.dtype(spec.numpy_dtype)
            if dtype.kind == "f":
                batch.append(rng.standard_normal(spec.shape).astype(dtype))
            else:
                batch.append(rng.integers(0, 4, spec.shape).astype(dtype))
        result.append(batch)
    return result


def train(library):
    model = mixprec.Model(library)
    trainer = model.trainer("train", seed=3)
    losses = [trainer.step(batch, 0.05) for batch in batches(model, STEPS)]
    return model, trainer, losses


@pytest.mark.parametrize("precision", ["fp32", "bf16", "f16"])
@pytest.mark.parametrize("example", ["mlp", "cnn", "transformer"])
def test_the_plan_computes_what_each_buffer_of_its_own_does(
        example, precision, tmp_path):
    if harness.BACKEND == "cuda" and (example, precision) != ("mlp", "f16"):
        pytest.skip("the simulator runs one example (it is slow)")
    source = os.path.join(ROOT, "examples", example + ".mlir")
    option = ("--autodiff" if precision == "fp32"
              else "--amp=precision=" + precision)
    results = {}
    for plan in ("true", "false"):
        library = build_library(source, str(tmp_path / ("lib%s.so" % plan)),
                                [option, "--plan-memory=" + plan],
                                harness.BACKEND)
        model, trainer, losses = train(library)
        results[plan] = (losses, snapshot(model, trainer),
                         trainer.memory_plan)
    planned, separate = results["true"], results["false"]
    assert [loss.hex() for loss in planned[0]] == \
        [loss.hex() for loss in separate[0]]
    assert planned[1] == separate[1]
    # Planning is what makes the step smaller.
    if harness.BACKEND == "cuda":
        assert planned[2].device_bytes < separate[2].device_bytes
    else:
        assert planned[2].workspace_bytes < separate[2].workspace_bytes


class Decoder(nn.Module):
    """A small causal self-attention block over token embeddings."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(32, 32)
        self.attention = nn.MultiheadAttention(32, 2, batch_first=True)
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, 32)

    def forward(self, tokens):
        x = self.embed(tokens)
        mask = torch.triu(torch.ones(32, 32, dtype=torch.bool), 1)
        x = x + self.attention(x, x, x, attn_mask=mask,
                               need_weights=False)[0]
        return self.head(self.norm(x))


def loss_fn(model, tokens, targets):
    logits = model(tokens)
    return F.cross_entropy(logits.reshape(-1, 32), targets.reshape(-1))


def decoder_batches(count):
    generator = torch.Generator().manual_seed(2)
    tokens = [torch.randint(0, 32, (32, 33), generator=generator)
              for _ in range(count)]
    return [(t[:, :-1].contiguous(), t[:, 1:].contiguous()) for t in tokens]


def compile_decoder(memory_budget=None):
    torch.manual_seed(0)
    model = Decoder()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return mpt.compile(model, loss_fn, decoder_batches(1)[0], optimizer,
                       precision="bf16", target=harness.BACKEND,
                       arch="sm_90" if harness.BACKEND == "cuda" else None,
                       memory_budget=memory_budget)


def test_a_memory_budget_recomputes_the_same_bits():
    if harness.BACKEND == "cuda":
        pytest.skip("the CPU shows it; the plan is the same on CUDA")
    free = compile_decoder()
    peak = free.memory_plan.host_bytes
    # The least budget the compiler meets: it says so when refusing.
    with pytest.raises(mixprec.CompileError) as refused:
        compile_decoder(memory_budget=peak // 10)
    least = re.search(r"a train step needs (\d+) bytes at its peak with the "
                      r"forward values recomputed in the backward that lower "
                      r"it, more than --memory-budget=%d; give a budget of at "
                      r"least that" % (peak // 10), str(refused.value))
    assert least, str(refused.value)
    budget = int(least.group(1))
    # The compiler's least leaves out the runtime's per-thread contraction
    # buffers; mpt.compile counts them, and says what it needs with them.
    try:
        bounded = compile_decoder(memory_budget=budget)
    except mixprec.CompileError as error:
        needed = re.search(r"a train step needs (\d+) bytes at its peak, "
                           r"more than memory_budget=%d: %d as the compiler "
                           r"plans a call .* and (-?\d+) the trainer holds "
                           r"besides"
                           % (budget, budget), str(error))
        assert needed, str(error)
        assert int(needed.group(1)) == budget + int(needed.group(2))
        budget = int(needed.group(1))
        bounded = compile_decoder(memory_budget=budget)
    assert bounded.memory_plan.host_bytes <= budget < peak
    for batch in decoder_batches(STEPS):
        assert bounded.step(*batch).hex() == free.step(*batch).hex()
    free_state, bounded_state = free.state_dict(), bounded.state_dict()
    for key, value in free_state.items():
        assert torch.equal(bounded_state[key], value), key


@pytest.mark.parametrize("budget", [0, -1, 1.5, True, "1000"])
def test_a_memory_budget_is_a_positive_number_of_bytes(budget):
    with pytest.raises(ValueError, match="memory_budget must be a number of "
                                         "bytes > 0, got %s" %
                                         re.escape(repr(budget))):
        compile_decoder(memory_budget=budget)


STEPS_AFTER_PREPARING = r"""
import ctypes, sys
import numpy as np
import mixprec
model = mixprec.Model(sys.argv[1])
trainer = model.trainer("train", seed=3)
ctypes.CDLL(None).fflush(None)
print("-- stepping", flush=True)
state = {spec.name for spec in model.state} | {"rng_state"}
batch = [np.zeros(spec.shape, spec.numpy_dtype)
         for spec in model.function("train").inputs[:-1]
         if spec.name not in state]
for _ in range(2):
    trainer.step(batch, 0.05)
ctypes.CDLL(None).fflush(None)
"""


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_contractions_are_made_with_the_trainer_and_their_buffers_planned(
        tmp_path, precision):
    """A trainer makes its model's oneDNN matmuls (their kernels generated
    and run once) before its memory is planned: its steps make none, and
    the plan counts the buffers each thread grows for them."""
    if harness.BACKEND == "cuda":
        pytest.skip("oneDNN runs the CPU's contractions")
    options = (["--autodiff"] if precision == "fp32"
               else ["--amp=precision=bf16"])
    library = build_library(os.path.join(ROOT, "examples", "transformer.mlir"),
                            str(tmp_path / "model.so"), options)
    run = subprocess.run(
        [sys.executable, "-c", STEPS_AFTER_PREPARING, library],
        env=dict(os.environ, DNNL_VERBOSE="2",
                 PYTHONPATH=os.path.dirname(os.path.dirname(
                     os.path.abspath(mixprec.__file__)))),
        capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    creating, _, stepping = run.stdout.partition("-- stepping")
    assert "onednn_verbose,create:" in creating, run.stdout[-2000:]
    assert "onednn_verbose,exec," in stepping, run.stdout[-2000:]
    assert "onednn_verbose,create:" not in stepping, stepping[:2000]

    model = mixprec.Model(library)
    trainer = model.trainer("train", seed=3)
    plans = {}
    for threads in (1, 2):
        model.num_threads = threads
        plans[threads] = trainer.memory_plan
    per_thread = plans[2].host_bytes - plans[1].host_bytes
    assert per_thread > 0
    assert (plans[1].host_bytes - plans[1].state_bytes
            - plans[1].workspace_bytes) >= per_thread
