"""A CUDA model library end to end on a machine without a GPU: the digits
MLP's AMP train step compiled with --target=cuda runs its host code against
a stand-in libcuda (unittests/FakeCuda.cpp, whose kernels do nothing), so
every error path of a real step -- no driver, out of device memory, a failing
launch -- is exercised through the public C ABI: a clear error, a non-zero
status, and the trainer's state untouched. A real kernel fault runs on the
GPU simulator (runtime/gpusim)."""
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import mixprec

BUILD = os.environ.get("MIXPREC_BUILD", "build")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FAKE_LIBCUDA = os.path.join(BUILD, "unittests", "libmixprec_fake_cuda.so")

pytestmark = pytest.mark.skipif(
    not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")),
    reason="needs the CUDA toolkit (ptxas)")


@pytest.fixture(scope="module")
def cuda_library(tmp_path_factory):
    path = tmp_path_factory.mktemp("cuda") / "libmlp.so"
    mixprec.compile_file(os.path.join(ROOT, "examples", "mlp.mlir"), path,
                         ["--target=cuda", "--arch=sm_90",
                          "--amp=precision=f16"])
    return path


@pytest.fixture
def fresh_model(cuda_library, tmp_path, monkeypatch):
    """A private copy of the library (its runtime opens the driver once per
    process), loaded under the environment the test sets first."""
    def load(libcuda, fake_mode=None):
        monkeypatch.setenv("MIXPREC_LIBCUDA", libcuda)
        if fake_mode:
            monkeypatch.setenv("FAKE_CUDA", fake_mode)
        else:
            monkeypatch.delenv("FAKE_CUDA", raising=False)
        copy = tmp_path / "libmlp_copy.so"
        shutil.copy(cuda_library, copy)
        return mixprec.Model(str(copy))
    return load


def batch():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((64, 64)).astype(np.float32),
            rng.integers(0, 10, 64).astype(np.int32)]


def snapshot(trainer):
    return {name: trainer.get(name).tobytes()
            for name in ("fc1_weight", "fc2_bias", "train.step_count",
                         "train.loss_scale", "rng_state")}


def test_no_driver_is_reported(fresh_model, tmp_path):
    model = fresh_model(str(tmp_path / "missing" / "libcuda.so.1"))
    trainer = model.trainer("train", seed=1)
    before = snapshot(trainer)
    with pytest.raises(mixprec.ModelError, match="no CUDA driver"):
        trainer.step(batch(), 0.1)
    assert snapshot(trainer) == before
    assert trainer.step_count == 0


def test_out_of_device_memory_is_reported(fresh_model):
    model = fresh_model(FAKE_LIBCUDA, "oom")
    trainer = model.trainer("train", seed=1)
    before = snapshot(trainer)
    with pytest.raises(mixprec.ModelError, match="out of (device )?memory"):
        trainer.step(batch(), 0.1)
    assert snapshot(trainer) == before


def test_failing_launch_names_the_kernel(fresh_model):
    model = fresh_model(FAKE_LIBCUDA, "launch")
    trainer = model.trainer("train", seed=1)
    before = snapshot(trainer)
    with pytest.raises(mixprec.ModelError,
                       match=r"running kernels '\w+_kernel_\d+' to "
                             r"'\w+_kernel_\d+' \(\d+ launches\)"):
        trainer.step(batch(), 0.1)
    assert snapshot(trainer) == before


def test_device_memory_of_a_step(fresh_model):
    model = fresh_model(FAKE_LIBCUDA)
    trainer = model.trainer("train", seed=1)
    trainer.step(batch(), 0.1)
    # The library's device memory (its frame: the step's inputs, outputs
    # and workspace, as planned) is allocated by the first step and kept;
    # later steps allocate none.
    first = model.device_memory()
    for _ in range(2):
        trainer.step(batch(), 0.1)
        assert model.device_memory() == first
    current, peak = first
    assert current == peak == trainer.memory_plan.device_bytes
    # It holds at least the state and the batch.
    state = sum(trainer.get(spec.name).nbytes for spec in model.state)
    assert peak >= state + sum(a.nbytes for a in batch())


def test_mixprec_run_trains_a_cuda_library(cuda_library, tmp_path):
    x, y = batch()
    np.save(tmp_path / "x.npy", np.concatenate([x, x]))
    np.save(tmp_path / "y.npy", np.concatenate([y, y]))
    command = [mixprec.tool_path("mixprec-run"), "train", str(cuda_library),
               "--data", str(tmp_path / "x.npy"), "--data",
               str(tmp_path / "y.npy"), "--lr", "0.1", "--steps", "2"]
    environment = dict(os.environ, MIXPREC_LIBCUDA=FAKE_LIBCUDA)
    environment.pop("FAKE_CUDA", None)
    trained = subprocess.run(command, capture_output=True, text=True,
                             env=environment)
    assert trained.returncode == 0, trained.stderr
    assert re.search(r"^peak GPU memory \d+\.\d{3} MiB$", trained.stdout,
                     re.M), trained.stdout
    # Without a driver the tool says so and fails; it does not crash.
    environment["MIXPREC_LIBCUDA"] = str(tmp_path / "missing.so")
    refused = subprocess.run(command, capture_output=True, text=True,
                             env=environment)
    assert refused.returncode == 1
    assert "no CUDA driver on this machine" in refused.stderr


@pytest.mark.skipif(not os.path.exists(os.path.join(
    BUILD, "lib", "libmixprec_gpusim.so")), reason="needs the simulator")
def test_a_steady_step_allocates_no_device_memory(cuda_library, tmp_path):
    """On the GPU simulator, 5 steps allocate as often as 2 (the first
    step allocates what the library keeps), the most device memory held is
    the plan's, and a step moves its batch, not the state."""
    x, y = batch()
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    counters = {}
    for steps in (2, 5):
        report = tmp_path / ("gpusim%d.json" % steps)
        plan = tmp_path / ("plan%d.json" % steps)
        environment = dict(os.environ, MIXPREC_GPUSIM_REPORT=str(report),
                           MIXPREC_LIBCUDA=os.path.join(
                               BUILD, "lib", "libmixprec_gpusim.so"))
        trained = subprocess.run(
            [mixprec.tool_path("mixprec-run"), "train", str(cuda_library),
             "--data", str(tmp_path / "x.npy"), "--data",
             str(tmp_path / "y.npy"), "--steps", str(steps), "--log-every",
             "0", "--memory-report", str(plan)],
            capture_output=True, text=True, env=environment)
        assert trained.returncode == 0, trained.stderr
        counters[steps] = json.loads(report.read_text())
        planned = json.loads(plan.read_text())["planned"]["device_bytes"]
        assert counters[steps]["peak_device_bytes"] == planned
    assert counters[2]["device_allocations"] > 0
    assert counters[5]["device_allocations"] == \
        counters[2]["device_allocations"]
    # The state stays on the device: a step copies the batch and the
    # learning rate up, the loss, the index report and the skipped flag
    # down.
    batch_bytes = x.nbytes + y.nbytes
    up = (counters[5]["host_to_device_bytes"] -
          counters[2]["host_to_device_bytes"]) / 3
    down = (counters[5]["device_to_host_bytes"] -
            counters[2]["device_to_host_bytes"]) / 3
    assert up == batch_bytes + 4
    assert down == 4 + 24 + 1


def test_skipped_kernels_allocate_as_executed_ones(cuda_library, tmp_path):
    """MIXPREC_GPUSIM_SKIP_KERNELS (how bench_memory.py measures steps too
    long to simulate) checks and counts launches without running them; the
    device memory and the uploads are those of a step that runs them (what
    the host reads back depends on the values: a skipped step's flags)."""
    x, y = batch()
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    counters = {}
    for skip in ("0", "1"):
        report = tmp_path / ("gpusim%s.json" % skip)
        environment = dict(os.environ, MIXPREC_GPUSIM_REPORT=str(report),
                           MIXPREC_GPUSIM_SKIP_KERNELS=skip,
                           MIXPREC_LIBCUDA=os.path.join(
                               BUILD, "lib", "libmixprec_gpusim.so"))
        trained = subprocess.run(
            [mixprec.tool_path("mixprec-run"), "train", str(cuda_library),
             "--data", str(tmp_path / "x.npy"), "--data",
             str(tmp_path / "y.npy"), "--steps", "3", "--log-every", "0"],
            capture_output=True, text=True, env=environment)
        assert trained.returncode == 0, trained.stderr
        counters[skip] = json.loads(report.read_text())
    executed, skipped = counters["0"], counters["1"]
    assert executed["kernels_executed"] is True
    assert skipped["kernels_executed"] is False
    for key in ("peak_device_bytes", "device_allocations",
                "host_to_device_bytes"):
        assert skipped[key] == executed[key], key
    assert skipped["total"]["launches"] == executed["total"]["launches"] > 0
    assert executed["total"]["warp_instructions"] > 0
    assert skipped["total"]["warp_instructions"] == 0


# A kernel that fails on the GPU simulator: with a budget of 50 warp
# instructions per launch, the step's first long kernel times out.
GPUSIM = os.path.join(BUILD, "lib", "libmixprec_gpusim.so")
CLASSIFIER = """
mixprec.parameter @w : tensor<3x4xf32> = #mixprec.normal<mean = 0.0, std = 1.0, seed = 1>
mixprec.parameter @b : tensor<3xf32> = #mixprec.zeros
func.func @loss(%x: tensor<8x4xf32>, %labels: tensor<8xi32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<3x4xf32>
  %b = mixprec.read @b : tensor<3xf32>
  %logits = mixprec.linear %x, %w, %b : tensor<8x4xf32>, tensor<3x4xf32>, tensor<3xf32> -> tensor<8x3xf32>
  %l = mixprec.softmax_cross_entropy %logits, %labels : tensor<8x3xf32>, tensor<8xi32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<momentum = 0.9>
"""


@pytest.mark.skipif(not os.path.exists(GPUSIM), reason="needs the simulator")
def test_a_kernel_failure_on_the_simulator_leaves_the_state(tmp_path,
                                                            monkeypatch):
    source = tmp_path / "classifier.mlir"
    source.write_text(CLASSIFIER)
    library = str(tmp_path / "libclassifier.so")
    mixprec.compile_file(source, library, ["--target=cuda", "--arch=sm_90",
                                           "--autodiff"])
    monkeypatch.setenv("MIXPREC_LIBCUDA", os.path.abspath(GPUSIM))
    model = mixprec.Model(library)
    trainer = model.trainer("train", seed=1)
    x = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    labels = np.arange(8, dtype=np.int32) % 3
    trainer.step([x, labels], 0.1)  # the simulator runs it
    before = {name: trainer.get(name).tobytes()
              for name in [spec.name for spec in model.state] + ["rng_state"]}
    # A bad label is caught on the device before anything is read out of
    # bounds, and reported after the step's one synchronization.
    bad = labels.copy()
    bad[5] = 1000
    with pytest.raises(mixprec.ModelError) as error:
        trainer.step([x, bad], 0.1)
    assert error.value.status == mixprec.ModelError.INVALID_ARGUMENT
    assert re.fullmatch(r"train: label 1000 at row 5 is outside \[0, 3\) "
                        r"\(softmax_cross_entropy at .*classifier\.mlir:"
                        r"\d+:\d+\)", str(error.value)), str(error.value)
    assert {name: trainer.get(name).tobytes() for name in before} == before
    # A launch that times out (as a real GPU's watchdog would) is sticky,
    # like CUDA_ERROR_LAUNCH_TIMEOUT: it comes last.
    monkeypatch.setenv("MIXPREC_GPUSIM_MAX_WARP_INSTRUCTIONS", "50")
    with pytest.raises(mixprec.ModelError) as error:
        trainer.step([x, labels], 0.1)
    assert error.value.status == mixprec.ModelError.DEVICE_ERROR
    message = str(error.value)
    assert "CUDA_ERROR_LAUNCH_TIMEOUT" in message, message
    assert re.search(r"more than 50 warp instructions .*kernel "
                     r"'\w+_kernel_\d+'", message), message
    monkeypatch.delenv("MIXPREC_GPUSIM_MAX_WARP_INSTRUCTIONS")
    after = {name: trainer.get(name).tobytes() for name in before}
    assert after == before
    assert trainer.step_count == 1

    # The state lives on the device between steps. A checkpoint copies it
    # from there; a fault after steps the host has not seen takes the
    # trainer back to its last copy (the checkpoint's), and says so.
    for _ in range(2):
        trainer.step([x, labels], 0.1)
    checkpoint = tmp_path / "classifier.ckpt"
    trainer.save(str(checkpoint))
    saved = {name: trainer.get(name).tobytes() for name in before}
    assert saved != before
    trainer.step([x, labels], 0.1)
    monkeypatch.setenv("MIXPREC_GPUSIM_MAX_WARP_INSTRUCTIONS", "50")
    with pytest.raises(mixprec.ModelError) as error:
        trainer.step([x, labels], 0.1)
    monkeypatch.delenv("MIXPREC_GPUSIM_MAX_WARP_INSTRUCTIONS")
    assert str(error.value).endswith(
        "the state on the GPU was lost with it: the trainer is back at its "
        "last copy on the host, after step 3"), str(error.value)
    assert trainer.step_count == 3
    assert {name: trainer.get(name).tobytes() for name in before} == saved
    # It trains on from there as a trainer loaded from the checkpoint does.
    restored = model.trainer("train", seed=7)
    restored.load(str(checkpoint))
    for each in (trainer, restored):
        each.step([x, labels], 0.1)
    assert {name: trainer.get(name).tobytes() for name in before} == \
        {name: restored.get(name).tobytes() for name in before}


@pytest.mark.skipif(not os.path.exists(GPUSIM), reason="needs the simulator")
def test_results_do_not_depend_on_the_run_or_the_block_size(
        cuda_library, tmp_path, monkeypatch):
    """Reductions sum in an order fixed by the shapes (docs/design.md §4):
    two runs, and a library whose kernels have blocks of 64 threads rather
    than 256, train to the same bits."""
    small_blocks = tmp_path / "libmlp64.so"
    mixprec.compile_file(os.path.join(ROOT, "examples", "mlp.mlir"),
                         small_blocks, ["--target=cuda", "--arch=sm_90",
                                        "--amp=precision=f16",
                                        "--block-size=64"])
    monkeypatch.setenv("MIXPREC_LIBCUDA", os.path.abspath(GPUSIM))

    def train(path):
        model = mixprec.Model(str(path))
        trainer = model.trainer("train", seed=3)
        losses = [trainer.step(batch(), 0.1) for _ in range(3)]
        state = {spec.name: trainer.get(spec.name).tobytes()
                 for spec in model.state}
        return losses, state

    first = train(cuda_library)
    assert train(cuda_library) == first
    assert train(small_blocks) == first
