"""PyTorch implementations of the example models' losses (examples/*.mlir),
taking the weights by their ABI names: the oracle of the forward tests and,
through autograd, of the gradient tests."""
import numpy as np
import torch
import torch.nn.functional as F

from mixprec import philox


def mlp_loss(w, x, labels):
    hidden = F.relu(F.linear(x, w["fc1_weight"], w["fc1_bias"]))
    logits = F.linear(hidden, w["fc2_weight"], w["fc2_bias"])
    return F.cross_entropy(logits, labels.long())


def cnn_loss(w, x, labels, running):
    """`running` (the batch-norm statistics by buffer name) is updated in
    place, as the model's assigns do."""
    def block(h, conv, bn):
        h = F.conv2d(h, w[conv + "_weight"], padding=1)
        h = F.batch_norm(h, running[bn + "_running_mean"],
                         running[bn + "_running_var"], w[bn + "_weight"],
                         w[bn + "_bias"], training=True, momentum=0.1,
                         eps=1e-5)
        return F.max_pool2d(F.relu(h), 2, 2)

    h = block(block(x, "conv1", "bn1"), "conv2", "bn2")
    logits = F.linear(h.reshape(x.shape[0], 64), w["fc_weight"], w["fc_bias"])
    return F.cross_entropy(logits, labels.long())


def transformer_loss(w, tokens, labels, seed, offset):
    """Dropout (p = 0.1) draws the model's Philox masks for (seed, offset);
    seed None is eval-mode dropout (the identity)."""
    def dropout(x, stream):
        if seed is None:
            return x
        keep = philox.dropout_mask(tuple(x.shape), seed, offset, stream, 0.1)
        scale = torch.tensor(1.0 / (1.0 - 0.1), dtype=x.dtype)
        return x * torch.from_numpy(np.asarray(keep)).to(x.dtype) * scale

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
    return F.cross_entropy(logits, labels.long())


def digits():
    """sklearn's digits, pixels / 16, a fixed shuffle: (train images, train
    labels, test images, test labels), 1500 and 297 of them, labels i32."""
    from sklearn.datasets import load_digits

    data = load_digits()
    images = torch.tensor(data.data / 16.0, dtype=torch.float32)
    labels = torch.tensor(data.target, dtype=torch.int32)
    order = torch.randperm(len(images),
                           generator=torch.Generator().manual_seed(0))
    train, test = order[:1500], order[1500:]
    return images[train], labels[train], images[test], labels[test]


def batches(count, size, steps, seed=0):
    """Indices of `steps` batches: a fresh fixed shuffle each epoch, the
    last partial batch of each epoch dropped."""
    per_epoch = count // size
    generator = torch.Generator().manual_seed(seed)
    for step in range(steps):
        if step % per_epoch == 0:
            order = torch.randperm(count, generator=generator)
        start = (step % per_epoch) * size
        yield order[start:start + size]


def mlp():
    """examples/mlp.mlir in PyTorch, seeded initial weights."""
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10))
