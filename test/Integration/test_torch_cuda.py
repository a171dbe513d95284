"""Models imported with mixprec.torch on the CUDA backend: the imported
train step's PTX (sm_90) passes ptxas, and mpt.compile(target="cuda")
trains on the GPU simulator (runtime/gpusim) as the CPU backend does -- the
same losses step for step, the same state dict, the same forward outputs,
to the tolerances the other CUDA-vs-CPU tests hold (test_gpusim_training's
loss bound, the harness's FP32 tolerances)."""
import copy
import os
import shutil
import subprocess

import pytest
import torch

import mixprec
import mixprec.torch as mpt
import reference_models
from harness import assert_close
from test_torch_amp import CASES, cross_entropy

BUILD = os.environ.get("MIXPREC_BUILD", "build")
GPUSIM = os.path.abspath(os.path.join(BUILD, "lib", "libmixprec_gpusim.so"))
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
ARCH = "sm_90"

pytestmark = [
    pytest.mark.skipif(not os.path.exists(PTXAS),
                       reason="needs the CUDA toolkit's ptxas (%s)" % PTXAS),
    pytest.mark.skipif(not os.path.exists(GPUSIM),
                       reason="needs the GPU simulator (%s)" % GPUSIM)]

# The CUDA runtime opens its driver at the first CUDA call of the process.
os.environ.setdefault("MIXPREC_LIBCUDA", GPUSIM)

# The simulator runs every thread of every kernel on the CPU: a few steps.
STEPS = 3
# test_gpusim_training's per-step loss bound for FP32 on both backends.
LOSS_RTOL = 1e-4
HELD_OUT_ROWS = 32


def batches(data, case):
    x_train, y_train = data[:2]
    return [(x_train[index], y_train[index]) for index in
            reference_models.batches(len(x_train), case.batch, STEPS)]


@pytest.fixture(scope="module")
def digits():
    x_train, y_train, x_test, y_test = reference_models.digits()
    return x_train, y_train.long(), x_test, y_test.long()


def imported_trainer(case, initial, data, target):
    model = copy.deepcopy(initial)
    optimizer = case.optimizer(list(model.parameters()))
    x_train, y_train = data[:2]
    return mpt.compile(model, cross_entropy,
                       example_batch=(x_train[:case.batch],
                                      y_train[:case.batch]),
                       optimizer=optimizer, target=target,
                       arch=ARCH if target == "cuda" else None)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_ptx_of_the_imported_model_passes_ptxas(case, digits, tmp_path):
    torch.manual_seed(0)
    trainer = imported_trainer(case, case.build(), digits, "cpu")
    source = tmp_path / "model.mlir"
    source.write_text(trainer.text)
    ptx = tmp_path / "model.ptx"
    compile_command = [mixprec.tool_path("mixprec-compile"), str(source),
                       "--autodiff", "--target=cuda", "--arch=" + ARCH,
                       "--emit=ptx", "-o", str(ptx)]
    compiled = subprocess.run(compile_command, capture_output=True,
                              text=True)
    assert compiled.returncode == 0, compiled.stderr
    assert ".entry" in ptx.read_text()
    assembled = subprocess.run(
        [PTXAS, "-arch=" + ARCH, str(ptx), "-o", str(tmp_path / "model.o")],
        capture_output=True, text=True)
    assert assembled.returncode == 0, assembled.stderr


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_simulated_cuda_training_matches_the_cpu(case, digits):
    torch.manual_seed(0)
    initial = case.build()
    cpu = imported_trainer(case, initial, digits, "cpu")
    cuda = imported_trainer(case, initial, digits, "cuda")
    for step, (x, y) in enumerate(batches(digits, case)):
        cpu_loss, cuda_loss = cpu.step(x, y), cuda.step(x, y)
        assert abs(cuda_loss - cpu_loss) <= LOSS_RTOL * abs(cpu_loss), (
            step, cpu_loss, cuda_loss)
    cpu_state, cuda_state = cpu.state_dict(), cuda.state_dict()
    assert list(cuda_state) == list(cpu_state)
    for name, value in cpu_state.items():
        if value.is_floating_point():
            assert_close(cuda_state[name], value, "f32")
        else:
            assert torch.equal(cuda_state[name], value), name
    held_out = digits[2][:HELD_OUT_ROWS]
    assert_close(cuda.forward(held_out), cpu.forward(held_out), "f32")
