"""The torch zoo (torch_zoo.py) on the CUDA backend: each imported module's
FP32 train step compiles to sm_90 PTX that ptxas assembles, and
mpt.compile(target="cuda") trains it on the GPU simulator (runtime/gpusim)
as the CPU backend does -- from the same weights on the same batches (with
the module's own dropout), the same loss at each step, then the same state
dict and the same eval-mode forward on held-out rows, to the tolerances the
other CUDA-vs-CPU tests hold (test_gpusim_training's FP32 loss bound, the
harness's FP32 tolerances)."""
import os
import shutil
import subprocess

import pytest
import torch

import mixprec
import mixprec.torch as mpt
import torch_zoo
from harness import assert_close

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
STEPS = 5
# test_gpusim_training's per-step loss bound for FP32 on both backends.
LOSS_RTOL = 1e-4


def imported_trainer(case, target):
    """The case's module (its own dropout) compiled in FP32 for `target`."""
    model = case.build()
    return mpt.compile(model, case.loss_fn, case.example_batch(),
                       case.optimizer(model), target=target,
                       arch=ARCH if target == "cuda" else None)


@pytest.mark.parametrize("name", torch_zoo.NAMES)
def test_ptx_of_the_imported_model_passes_ptxas(name, tmp_path):
    trainer = imported_trainer(torch_zoo.case(name), "cpu")
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


@pytest.mark.parametrize("name", torch_zoo.NAMES)
def test_simulated_cuda_training_matches_the_cpu(name):
    case = torch_zoo.case(name)
    cpu = imported_trainer(case, "cpu")
    cuda = imported_trainer(case, "cuda")
    for step, batch in enumerate(case.batches(STEPS)):
        cpu_loss, cuda_loss = cpu.step(*batch), cuda.step(*batch)
        assert abs(cuda_loss - cpu_loss) <= LOSS_RTOL * abs(cpu_loss), (
            step, cpu_loss, cuda_loss)
    cpu_state, cuda_state = cpu.state_dict(), cuda.state_dict()
    assert list(cuda_state) == list(cpu_state)
    for key, value in cpu_state.items():
        if value.is_floating_point():
            assert_close(cuda_state[key], value, "f32")
        else:
            assert torch.equal(cuda_state[key], value), key
    inputs, _ = case.eval_data()
    assert_close(cuda.forward(*inputs), cpu.forward(*inputs), "f32")
