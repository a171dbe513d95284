"""The example models' forward passes on the CPU backend against PyTorch
implementations of the same models, given the same weights and batch.

Each example is compiled as it is: --mixprec-expose-state makes its
parameters (and buffers, and the RNG state) arguments named after them, so
the weights are set by name, as a user of the ABI would.
"""
import pathlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mixprec
from mixprec import philox
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
    w = random_weights(model.functions["loss"], 1, {"arg0", "arg1"})
    x = torch.rand(64, 64)
    labels = torch.randint(0, 10, (64,), dtype=torch.int32)
    out = call(model, dict(w, arg0=x, arg1=labels))
    hidden = F.relu(F.linear(x, w["fc1_weight"], w["fc1_bias"]))
    logits = F.linear(hidden, w["fc2_weight"], w["fc2_bias"])
    assert_close(out["result0"], F.cross_entropy(logits, labels.long()),
                 "f32")


def test_cnn_forward_and_running_statistics_match_pytorch(models):
    model = models["cnn"]
    function = model.functions["loss"]
    w = random_weights(function, 2, {"arg0", "arg1"})
    for bn in ("bn1", "bn2"):
        w[bn + "_running_var"] = w[bn + "_running_var"].abs() + 0.5
    x = torch.rand(32, 1, 8, 8)
    labels = torch.randint(0, 10, (32,), dtype=torch.int32)
    out = call(model, dict(w, arg0=x, arg1=labels))

    running = {k: v.clone() for k, v in w.items() if "running" in k}

    def block(h, conv, bn):
        h = F.conv2d(h, w[conv + "_weight"], padding=1)
        h = F.batch_norm(h, running[bn + "_running_mean"],
                         running[bn + "_running_var"], w[bn + "_weight"],
                         w[bn + "_bias"], training=True, momentum=0.1,
                         eps=1e-5)
        return F.max_pool2d(F.relu(h), 2, 2)

    h = block(block(x, "conv1", "bn1"), "conv2", "bn2")
    logits = F.linear(h.reshape(32, 64), w["fc_weight"], w["fc_bias"])
    assert_close(out["result0"], F.cross_entropy(logits, labels.long()),
                 "f32")
    # The updated running statistics come back as outputs named after the
    # buffers.
    for name, value in running.items():
        assert_close(out[name], value, "f32")


def test_transformer_forward_matches_pytorch(models):
    model = models["transformer"]
    function = model.functions["loss"]
    w = random_weights(function, 3, {"arg0", "arg1", "rng_state"})
    tokens = torch.randint(0, 100, (8, 16), dtype=torch.int32)
    labels = torch.randint(0, 4, (8,), dtype=torch.int32)
    seed, offset = 1234, 5
    rng = torch.tensor([seed, offset], dtype=torch.int64)
    out = call(model, dict(w, arg0=tokens, arg1=labels, rng_state=rng))

    def dropout(x, stream):
        keep = philox.dropout_mask(tuple(x.shape), seed, offset, stream, 0.1)
        scale = torch.tensor(1.0 / (1.0 - 0.1), dtype=torch.float32)
        return x * torch.from_numpy(np.asarray(keep)).float() * scale

    def layer_norm(x, name):
        return F.layer_norm(x, (64,), w[name + "_weight"], w[name + "_bias"])

    def heads(t):
        return t.reshape(8, 16, 4, 16).transpose(1, 2)

    x0 = w["tok_embedding"][tokens.long()] + w["pos_embedding"]
    h1 = layer_norm(x0, "ln1")
    q, k, v = (heads(F.linear(h1, w[n + "_weight"], w[n + "_bias"]))
               for n in ("q", "k", "v"))
    probs = torch.softmax(q @ k.transpose(-1, -2) * 0.25, dim=-1)
    ctx = (dropout(probs, 0) @ v).transpose(1, 2).reshape(8, 16, 64)
    attn = F.linear(ctx, w["attn_out_weight"], w["attn_out_bias"])
    x1 = x0 + dropout(attn, 1)
    h2 = layer_norm(x1, "ln2")
    up = F.gelu(F.linear(h2, w["mlp_fc1_weight"], w["mlp_fc1_bias"]))
    down = F.linear(up, w["mlp_fc2_weight"], w["mlp_fc2_bias"])
    x2 = x1 + dropout(down, 2)
    pooled = layer_norm(x2, "ln_f").mean(dim=1)
    logits = F.linear(pooled, w["head_weight"], w["head_bias"])
    assert_close(out["result0"], F.cross_entropy(logits, labels.long()),
                 "f32")
