"""Two train steps over the same parameter (docs/design.md §6): each keeps its
own optimizer state, `@<step>.<parameter>.<moment>`, so pretraining with SGD
and momentum, then fine-tuning with Adam from its checkpoint, matches two
PyTorch optimizers over the same tensor."""
import numpy as np
import pytest
import torch

from harness import compile_mlir

pytestmark = pytest.mark.usefixtures("backend")

MODEL = """
mixprec.parameter @w : tensor<4x3xf32> = #mixprec.uniform<low = -1.0, high = 1.0, seed = 3>
func.func @loss(%x: tensor<2x3xf32>) -> tensor<f32> {
  %w = mixprec.read @w : tensor<4x3xf32>
  %y = mixprec.linear %x, %w : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  %s = mixprec.mul %y, %y : tensor<2x4xf32>, tensor<2x4xf32>
  %l = mixprec.reduce_mean %s {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  return %l : tensor<f32>
}
mixprec.train_step @pretrain forward @loss optimizer #mixprec.sgd<momentum = 0.9>
mixprec.train_step @finetune forward @loss optimizer #mixprec.adam<>
"""

BATCHES = [np.random.RandomState(seed).randn(2, 3).astype(np.float32)
           for seed in range(6)]
LR = 0.05


def torch_steps(w, optimizer, batches):
    for x in batches:
        optimizer.zero_grad()
        y = torch.from_numpy(x) @ w.T
        (y * y).mean().backward()
        optimizer.step()


@pytest.fixture(scope="module")
def model(backend):
    return compile_mlir(MODEL, ("--autodiff",))


def test_each_step_keeps_its_own_optimizer_state(model, tmp_path):
    pretrain = model.trainer("pretrain")
    w0 = pretrain.get("w")
    for x in BATCHES[:3]:
        pretrain.step([x], LR)
    checkpoint = str(tmp_path / "pretrain.ckpt")
    pretrain.save(checkpoint)

    finetune = model.trainer("finetune")
    finetune.load(checkpoint)
    # The shared weights carry over; Adam's moments and count start at zero.
    np.testing.assert_array_equal(finetune.get("w"), pretrain.get("w"))
    assert finetune.step_count == 0
    assert not finetune.get("finetune.w.exp_avg").any()
    momentum = pretrain.get("pretrain.w.momentum_buffer")
    assert momentum.any()
    for x in BATCHES[3:]:
        finetune.step([x], LR)
    assert finetune.step_count == 3
    # Fine-tuning leaves the pretraining optimizer's state alone.
    np.testing.assert_array_equal(finetune.get("pretrain.w.momentum_buffer"),
                                  momentum)
    assert finetune.get("pretrain.step_count") == 3

    w = torch.tensor(w0, requires_grad=True)
    sgd = torch.optim.SGD([w], lr=LR, momentum=0.9)
    torch_steps(w, sgd, BATCHES[:3])
    np.testing.assert_allclose(pretrain.get("pretrain.w.momentum_buffer"),
                               sgd.state[w]["momentum_buffer"].numpy(),
                               rtol=1e-5, atol=1e-7)
    adam = torch.optim.Adam([w], lr=LR)
    torch_steps(w, adam, BATCHES[3:])
    np.testing.assert_allclose(finetune.get("w"), w.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(finetune.get("finetune.w.exp_avg"),
                               adam.state[w]["exp_avg"].numpy(),
                               rtol=1e-5, atol=1e-7)
