"""Autocast on the CPU backend: the example models' forward passes after
--mixprec-autocast against their FP32 forward on the same weights and inputs,
and the digits MLP's predictions in 16 bits against FP32.

Each example is compiled twice from the same text, once as it is and once
with `mixprec-compile --autocast=f16|bf16`; the forward function is made to
return its logits next to the loss, so whole tensors are compared.
"""
import json
import pathlib
import re
import subprocess

import numpy as np
import pytest
import torch

import reference_models
import mixprec
from harness import compile_mlir, to_numpy

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

# max|autocast - fp32| / max|fp32| allowed for each precision.
RELATIVE_LIMITS = {"f16": 1e-2, "bf16": 4e-2}


def returning_logits(name, batch=None):
    """The example's text, its @loss returning (logits, loss) and no longer
    a train step's forward; with `batch`, the MLP's batch size changed to
    it."""
    text = (EXAMPLES / (name + ".mlir")).read_text()
    text = re.sub(r"\n *mixprec\.train_step .*", "", text)
    logits_type = re.search(r"%logits = mixprec\.linear .* -> (tensor<[^>]+>)",
                            text).group(1)
    text = text.replace(
        ") -> tensor<f32> {",
        ") -> (%s, tensor<f32>) {" % logits_type, 1)
    text = text.replace(
        "return %loss : tensor<f32>",
        "return %%logits, %%loss : %s, tensor<f32>" % logits_type)
    if batch is not None:
        text = text.replace("tensor<64x", "tensor<%dx" % batch)
        text = text.replace("tensor<64xi32>", "tensor<%dxi32>" % batch)
    return text


def random_inputs(model, seed):
    """Inputs for every argument of @loss: weights with PyTorch-like scales,
    running statistics at their initial values, a digits-like batch
    (pixels/16 in [0, 1]) or random tokens, labels and an RNG state."""
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for spec in model.functions["loss"].inputs:
        shape = tuple(spec.shape)
        if spec.name.endswith("running_var"):
            value = torch.ones(shape)
        elif spec.name.endswith("running_mean"):
            value = torch.zeros(shape)
        elif spec.name == "rng_state":
            value = torch.tensor([seed, 0], dtype=torch.int64)
        elif spec.numpy_dtype == np.int32:
            high = 100 if len(shape) == 2 else 4 if shape == (8,) else 10
            value = torch.randint(0, high, shape, generator=generator,
                                  dtype=torch.int32)
        elif spec.name == "x":  # the examples' images
            value = torch.rand(shape, generator=generator)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            value = torch.randn(shape, generator=generator) / np.sqrt(fan_in)
        inputs.append(to_numpy(value))
    return inputs


def relative_error(value, reference):
    return float(np.abs(value - reference).max() / np.abs(reference).max())


@pytest.mark.parametrize("precision", ["f16", "bf16"])
@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_forward_after_autocast_stays_close_to_fp32(name, precision):
    text = returning_logits(name)
    reference_model = compile_mlir(text)
    autocast_model = compile_mlir(text, ("--autocast=" + precision,))
    limit = RELATIVE_LIMITS[precision]
    for seed in (1, 2):
        inputs = random_inputs(reference_model, seed)
        # The CNN also returns its updated running statistics.
        logits, loss = reference_model.call("loss", inputs)[:2]
        logits16, loss16 = autocast_model.call("loss", inputs)[:2]
        assert logits16.dtype == np.float32  # the signature keeps its types
        assert relative_error(logits16, logits) <= limit
        assert relative_error(loss16, loss) <= limit
        # Autocast did change the numbers: 16-bit rounding is visible.
        assert not np.array_equal(logits16, logits)


def train_digits_mlp():
    """The digits MLP trained in PyTorch (FP32, SGD momentum 0.9, lr 0.1,
    batch 64, 600 steps over the fixed shuffle of the 1500 training
    images), and the 297 test images."""
    x_train, y_train, x_test, y_test = reference_models.digits()
    model = reference_models.mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for batch in reference_models.batches(len(x_train), 64, 600):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x_train[batch]),
                                                 y_train[batch].long())
        loss.backward()
        optimizer.step()
    weights = {"fc1_weight": model[0].weight, "fc1_bias": model[0].bias,
               "fc2_weight": model[2].weight, "fc2_bias": model[2].bias}
    return weights, x_test, y_test


def test_digits_mlp_predictions_agree_with_fp32():
    weights, images, labels = train_digits_mlp()
    text = returning_logits("mlp", batch=len(images))
    values = dict(weights, x=images,
                  labels=torch.zeros(len(images), dtype=torch.int32))
    predictions = {}
    for precision in ("none", "f16", "bf16"):
        model = compile_mlir(text, ("--autocast=" + precision,))
        inputs = [to_numpy(values[spec.name])
                  for spec in model.functions["loss"].inputs]
        logits, _ = model.call("loss", inputs)
        predictions[precision] = logits.argmax(axis=1)
    accuracy = (predictions["none"] == labels.numpy()).mean()
    assert accuracy >= 0.95, accuracy
    for precision in ("f16", "bf16"):
        agreement = (predictions[precision] == predictions["none"]).mean()
        assert agreement >= 0.99, (precision, agreement)


@pytest.mark.parametrize("precision", ["f16", "bf16"])
@pytest.mark.parametrize("name", ["mlp", "cnn", "transformer"])
def test_report_puts_nine_tenths_of_the_flops_in_tensor_cores(name, precision,
                                                              tmp_path):
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [mixprec.tool_path("mixprec-opt"), str(EXAMPLES / (name + ".mlir")),
         "--mixprec-autocast=precision=" + precision,
         "--mixprec-precision-report=json-file=%s" % report, "-o",
         str(tmp_path / "out.mlir")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    totals = json.loads(report.read_text())
    assert totals["flops_16bit_tensor_core"] >= 0.9 * totals["flops"]
    # Autocast never makes activations bigger than all-FP32 on these models.
    assert totals["activation_bytes"] < totals["activation_bytes_f32"]
