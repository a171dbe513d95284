"""The example models' forward passes on the CPU backend against PyTorch
implementations of the same models, given the same weights and batch.

Each example is compiled as it is: --mixprec-expose-state makes its
parameters (and buffers, and the RNG state) arguments named after them, so
the weights are set by name, as a user of the ABI would.
"""
import pathlib

import pytest
import torch

import mixprec
import reference_models
from harness import assert_close, to_numpy

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    directory = tmp_path_factory.mktemp("examples")
    return {name: mixprec.compile_file(EXAMPLES / (name + ".mlir"),
                                       directory / ("lib%s.so" % name))
            for name in ("mlp", "cnn", "transformer")}


def named_inputs(function, values):
    """Orders `values` (a dict by ABI name) as the function's inputs."""
    names = [spec.name for spec in function.inputs]
    assert sorted(names) == sorted(values), names
    return [values[name] for name in names]


def random_weights(function, seed, batch_names):
    """Random f32 tensors for every input that is not part of the batch."""
    generator = torch.Generator().manual_seed(seed)
    weights = {}
    for spec in function.inputs:
        if spec.name in batch_names:
            continue
        weights[spec.name] = torch.randn(spec.shape, generator=generator) * 0.3
    return weights


def call(model, values):
    function = model.functions["loss"]
    inputs = [to_numpy(t) for t in named_inputs(function, values)]
    outputs = model.call("loss", inputs)
    return {spec.name: torch.from_numpy(out)
            for spec, out in zip(function.outputs, outputs)}


def test_mlp_forward_matches_pytorch(models):
    model = models["mlp"]
    w = random_weights(model.functions["loss"], 1, {"x", "labels"})
    x = torch.rand(64, 64)
    labels = torch.randint(0, 10, (64,), dtype=torch.int32)
    out = call(model, dict(w, x=x, labels=labels))
    assert_close(out["result0"], reference_models.mlp_loss(w, x, labels),
                 "f32")


def test_cnn_forward_and_running_statistics_match_pytorch(models):
    model = models["cnn"]
    function = model.functions["loss"]
    w = random_weights(function, 2, {"x", "labels"})
    for bn in ("bn1", "bn2"):
        w[bn + "_running_var"] = w[bn + "_running_var"].abs() + 0.5
    x = torch.rand(32, 1, 8, 8)
    labels = torch.randint(0, 10, (32,), dtype=torch.int32)
    out = call(model, dict(w, x=x, labels=labels))

    running = {k: v.clone() for k, v in w.items() if "running" in k}
    assert_close(out["result0"],
                 reference_models.cnn_loss(w, x, labels, running), "f32")
    # The updated running statistics come back as outputs named after the
    # buffers.
    for name, value in running.items():
        assert_close(out[name], value, "f32")


def test_transformer_forward_matches_pytorch(models):
    model = models["transformer"]
    function = model.functions["loss"]
    w = random_weights(function, 3, {"tokens", "labels", "rng_state"})
    tokens = torch.randint(0, 100, (8, 16), dtype=torch.int32)
    labels = torch.randint(0, 4, (8,), dtype=torch.int32)
    seed, offset = 1234, 5
    rng = torch.tensor([seed, offset], dtype=torch.int64)
    out = call(model, dict(w, tokens=tokens, labels=labels, rng_state=rng))
    assert_close(out["result0"], reference_models.transformer_loss(
        w, tokens, labels, seed, offset), "f32")
