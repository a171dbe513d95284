"""A zoo of small PyTorch modules covering what mixprec.torch imports, each
with its task: data, loss, optimizer and a measure of accuracy.

    import torch_zoo
    for case in torch_zoo.ZOO:                 # or torch_zoo.case("cnn")
        model = case.build()                   # seeded: same weights each call
        optimizer = case.optimizer(model)
        batch = case.example_batch()           # a tuple of tensors
        trainer = mpt.compile(model, case.loss_fn, batch, optimizer, ...)
        for batch in case.batches(steps):      # deterministic, fixed shapes
            trainer.step(*batch)
        score = case.score(trainer.forward)    # accuracy on held-out rows

`ZooCase` fields:
- name: the case's name (a pytest id).
- build(dropout=None): the module, seeded; cases with dropout take its
  probability (None: the case's own p > 0; give 0.0 to compare with
  PyTorch exactly).
- loss_fn(model, *batch): the scalar training loss.
- optimizer(model): a fresh torch optimizer over the model's parameters.
- batches(steps, seed=0): `steps` training batches (tuples of tensors of
  one shape: inputs first, then targets), a fixed shuffle per epoch.
- example_batch(): the first of those batches.
- inputs: how many leading batch tensors are the model's inputs.
- eval_data(): (inputs tuple, targets) of held-out rows; their number
  differs from the batch size.
- accuracy(outputs, targets): a float in [0, 1] (see each task).
- score(forward): accuracy(forward(*eval inputs), eval targets); `forward`
  is `trainer.forward` or the module itself (in eval mode).

Tasks: sklearn's digits (reference_models.digits) as 64 features, 1x8x8
images or a sequence of 8 rows of 8 pixels (classification accuracy); a
synthetic token task (class of the first token); synthetic regressions whose
accuracy is the share of predictions within 0.25 of the target (targets of
unit scale); and a multi-label task on the digits whose accuracy is the
share of labels whose logit has the right sign."""
import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

import reference_models

BATCH = 32
# Held-out rows: all 297 of the digits' test split; 500 of the synthetic
# tasks. Neither is a multiple of BATCH (the forward runs on other row
# counts than the train step's).
SYNTHETIC_EVAL_ROWS = 500


@dataclass
class Task:
    """Training rows and held-out rows: a tuple of input tensors and the
    targets of each."""
    train_inputs: tuple
    train_targets: torch.Tensor
    eval_inputs: tuple
    eval_targets: torch.Tensor
    accuracy: object  # accuracy(outputs, targets) -> float


@dataclass
class ZooCase:
    name: str
    factory: object  # factory(dropout) -> nn.Module (seeded)
    loss_fn: object
    make_optimizer: object
    task: object  # () -> Task
    default_dropout: float = 0.0
    _task: Task = field(default=None, repr=False)

    def build(self, dropout=None):
        torch.manual_seed(0)
        return self.factory(self.default_dropout if dropout is None
                            else dropout)

    def optimizer(self, model):
        return self.make_optimizer(model)

    def data(self):
        if self._task is None:
            self._task = self.task()
        return self._task

    @property
    def inputs(self):
        return len(self.data().train_inputs)

    def batches(self, steps, seed=0):
        data = self.data()
        rows = len(data.train_targets)
        for index in reference_models.batches(rows, BATCH, steps, seed):
            yield tuple(x[index] for x in data.train_inputs) + (
                data.train_targets[index],)

    def example_batch(self):
        return next(iter(self.batches(1)))

    def eval_data(self):
        data = self.data()
        return data.eval_inputs, data.eval_targets

    def accuracy(self, outputs, targets):
        return self.data().accuracy(outputs, targets)

    def score(self, forward):
        inputs, targets = self.eval_data()
        with torch.no_grad():
            outputs = forward(*inputs)
        return self.accuracy(outputs, targets)


# Accuracies.
def classification_accuracy(logits, labels):
    """The share of rows whose largest logit is the label's."""
    return (logits.argmax(-1) == labels.long()).float().mean().item()


def within_tolerance(predictions, targets, tolerance=0.25):
    """Regression: the share of predictions within `tolerance` of their
    targets (the synthetic targets have unit scale)."""
    return ((predictions - targets).abs() <= tolerance).float().mean().item()


def sign_accuracy(logits, labels):
    """Multi-label: the share of labels whose logit has the right sign
    (positive for 1)."""
    return ((logits > 0).float() == labels).float().mean().item()


# Tasks.
def digits_task(shape=(64,), labels_dtype=torch.long):
    train_x, train_y, test_x, test_y = reference_models.digits()
    return Task((train_x.reshape((-1,) + shape),), train_y.to(labels_dtype),
                (test_x.reshape((-1,) + shape),),
                test_y.to(labels_dtype), classification_accuracy)


def digit_images():
    return digits_task((1, 8, 8))


def digit_rows():
    return digits_task((8, 8))


def digit_attributes():
    """Three binary labels of each digit: even, at least 5, has a loop
    (0, 6, 8, 9)."""
    train_x, train_y, test_x, test_y = reference_models.digits()

    def labels(y):
        y = y.long()
        loops = (y == 0) | (y == 6) | (y == 8) | (y == 9)
        return torch.stack([y % 2 == 0, y >= 5, loops], 1).float()

    return Task((train_x,), labels(train_y), (test_x,),
                labels(test_y), sign_accuracy)


def token_task(vocabulary=24, length=6, classes=4, rows=1200):
    """Sequences of token ids; the class is the first token's id times
    `classes` // `vocabulary`."""
    generator = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, vocabulary,
                           (rows + SYNTHETIC_EVAL_ROWS, length),
                           generator=generator)
    labels = tokens[:, 0] * classes // vocabulary
    return Task((tokens[:rows],), labels[:rows], (tokens[rows:],),
                labels[rows:], classification_accuracy)


def regression_task(features=12, outputs=1, rows=1200):
    """y = sin(x . a) + 0.5 tanh(x . b): smooth, of unit scale."""
    generator = torch.Generator().manual_seed(2)
    x = torch.randn(rows + SYNTHETIC_EVAL_ROWS, features,
                    generator=generator)
    a = torch.randn(features, outputs, generator=generator) / math.sqrt(
        features)
    b = torch.randn(features, outputs, generator=generator) / math.sqrt(
        features)
    y = torch.sin(x @ a) + 0.5 * torch.tanh(x @ b)
    return Task((x[:rows],), y[:rows], (x[rows:],), y[rows:],
                within_tolerance)


# Models.
def mlp(dropout):
    return nn.Sequential(nn.Linear(64, 48), nn.ReLU(), nn.Linear(48, 10))


class ConvNet(nn.Module):
    """Conv2d with stride, padding, dilation and groups; BatchNorm2d; max,
    average and global average pooling; Flatten."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8, momentum=0.2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=2, dilation=2, groups=2,
                               bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)  # 8x8 -> 4x4
        self.conv3 = nn.Conv2d(16, 16, 3, stride=2, padding=1)  # -> 2x2
        self.average = nn.AvgPool2d(3, stride=1, padding=1)
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.pool(torch.relu(self.bn2(self.conv2(x))))
        x = self.average(self.conv3(x).relu())
        return self.head(self.flatten(self.global_pool(x)))


class PostNormTransformer(nn.Module):
    """Rows of a digit as 8 tokens, a post-LN encoder layer (relu,
    batch_first), mean pooling and a classification head."""

    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.position = nn.Parameter(0.1 * torch.randn(8, width))
        self.encoder = nn.TransformerEncoderLayer(
            width, 4, dim_feedforward=64, dropout=0.0, activation="relu",
            batch_first=True, norm_first=False)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        h = self.encoder(self.embed(x) + self.position)
        return self.head(h.mean(dim=1))


class PreNormTransformer(nn.Module):
    """A two-layer pre-LN encoder (gelu, sequence first) with a final
    LayerNorm; the last token classifies."""

    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(8, width)
        layer = nn.TransformerEncoderLayer(
            width, 2, dim_feedforward=48, dropout=0.0, activation="gelu",
            batch_first=False, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2,
                                             norm=nn.LayerNorm(width))
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        h = self.encoder(self.embed(x).transpose(0, 1))  # [L, N, E]
        return self.head(h[-1])


class CausalAttention(nn.Module):
    """nn.MultiheadAttention called directly, twice: without biases, with
    a causal bool mask (batch_first), then with biases and the same mask as
    an additive float one (sequence first), both built with torch.triu in
    forward."""

    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.first = nn.MultiheadAttention(width, 4, bias=False,
                                           batch_first=True)
        self.second = nn.MultiheadAttention(width, 2)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        h = self.embed(x)
        length = x.shape[1]
        causal = torch.triu(torch.ones(length, length, dtype=torch.bool),
                            diagonal=1)
        h = h + self.first(h, h, h, attn_mask=causal, need_weights=False)[0]
        additive = torch.triu(torch.full((length, length), float("-inf")),
                              diagonal=1)
        s = self.norm(h).transpose(0, 1)
        s, _ = self.second(s, s, s, attn_mask=additive)
        h = h + s.transpose(0, 1)
        return self.head(h[:, -1])


class GeluSiluMLP(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(64, 48), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(48, 48), nn.GELU(approximate="tanh"),
            nn.Linear(48, 32), nn.SiLU(), nn.Dropout(dropout),
            nn.Linear(32, 10))
        self.p = dropout

    def forward(self, x):
        return F.dropout(self.layers(x), self.p, self.training)


class ClassToken(nn.Module):
    """A class token and a positional embedding as free parameters, and a
    hand-written attention whose scores are masked with masked_fill and a
    constant (banded) mask; the class token sees every row."""

    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.cls = nn.Parameter(torch.zeros(1, 1, width))
        self.position = nn.Parameter(0.02 * torch.randn(1, 9, width))
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        h = self.embed(x)
        cls = self.cls.expand(x.shape[0], -1, -1)
        h = torch.cat([cls, h], dim=1) + self.position
        q, k, v = self.qkv(self.norm(h)).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        positions = torch.arange(h.shape[1])
        band = (positions[:, None] - positions[None, :]).abs() > 2
        band = band & (positions[:, None] > 0)
        scores = scores.masked_fill(band, float("-inf"))
        h = h + self.out(scores.softmax(dim=-1) @ v)
        return self.head(h[:, 0])


class EmbeddingNorm(nn.Module):
    def __init__(self, vocabulary=24, width=16, length=6):
        super().__init__()
        self.embedding = nn.Embedding(vocabulary, width)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(length * width, 4)

    def forward(self, tokens):
        return self.head(self.norm(self.embedding(tokens)).flatten(1))


class BatchNormRegression(nn.Module):
    """BatchNorm1d on [N, C] and on [N, C, L] rows."""

    def __init__(self, features=12):
        super().__init__()
        self.fc1 = nn.Linear(features, 32)
        self.bn1 = nn.BatchNorm1d(32)
        self.bn2 = nn.BatchNorm1d(4, momentum=0.3, affine=False)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        h = torch.relu(self.bn1(self.fc1(x)))
        h = self.bn2(h.view(-1, 4, 8)).reshape(x.shape[0], 32)
        return self.fc2(h)


class Functional(nn.Module):
    """The functional and tensor forms: matmul/@/bmm, arithmetic with
    scalars, pow/exp/log/sqrt/rsqrt/abs/neg, maximum/minimum/clamp,
    reductions, softmax/log_softmax, F.layer_norm, F.dropout, cat/stack,
    chunk/split, shape methods, slicing and integer indexing."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(64, 32) / 8)
        self.b1 = nn.Parameter(torch.zeros(32))
        self.gain = nn.Parameter(torch.ones(16))
        self.shift = nn.Parameter(torch.zeros(16))
        self.mix = nn.Parameter(torch.randn(4, 8, 8) / 3)
        self.w2 = nn.Parameter(torch.randn(48, 10) / 7)

    def forward(self, x):
        h = torch.matmul(x, self.w1) + self.b1  # [N, 32]
        h = torch.maximum(h, 0.1 * h)  # leaky relu
        a, b = h.chunk(2, dim=1)  # [N, 16] each
        a = F.layer_norm(a, (16,), self.gain, self.shift)
        b = torch.clamp(b, -3.0, 3.0) * 2 - 1 + torch.zeros_like(b)
        c = torch.minimum(a, b)
        spread = torch.max(a, b) - torch.min(a, b)
        gate = torch.sigmoid(c).sqrt() + torch.rsqrt(c ** 2 + 1.0)
        d = ((1.0 - gate.pow(1.5).abs().neg() / 4.0).log() -
             torch.exp(-spread) + 1.0 / (1.0 + spread.pow(2)))
        stacked = torch.stack([a, b, c, d], dim=1)  # [N, 4, 16]
        grid = stacked.view(x.shape[0], 4, 2, 8).permute(0, 2, 1, 3)
        grid = grid.reshape(-1, 4, 8)  # [2N, 4, 8]
        mixed = torch.bmm(grid.transpose(1, 2), grid)  # [2N, 8, 8]
        mixed = mixed.unsqueeze(1).squeeze(1) @ self.mix[1]
        attention = F.softmax(mixed, dim=-1)
        pooled = attention.sum(dim=2) + mixed.mean(dim=-1, keepdim=True
                                                   ).squeeze(-1)
        peak = torch.amax(mixed, dim=1)  # [2N, 8]
        left, right = torch.split(pooled.view(x.shape[0], 16), 8, dim=1)
        joined = torch.cat([left.flatten(1), right,
                            peak[::2], peak[1::2]], dim=1)  # [N, 32]
        joined = torch.cat([joined, h[:, :16].expand(x.shape[0], 16)], 1)
        features = F.dropout(joined, 0.0, self.training)
        logits = features @ self.w2 - x[..., 3, None] * 0.5
        return F.log_softmax(logits, dim=1)


class ModulesAndContainers(nn.Module):
    """Tanh, Sigmoid, Softmax, LogSoftmax and Identity modules, Sequentials
    in a ModuleList and a ModuleDict."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([
            nn.Sequential(nn.Linear(64, 32), nn.Tanh()),
            nn.Sequential(nn.Linear(32, 32), nn.Identity(), nn.Sigmoid())])
        self.heads = nn.ModuleDict({
            "gate": nn.Sequential(nn.Linear(32, 32), nn.Softmax(dim=-1)),
            "out": nn.Sequential(nn.Linear(32, 10), nn.LogSoftmax(dim=1))})

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        x = x * self.heads["gate"](x) * 32
        return self.heads["out"](x)


def regression_mlp(dropout):
    return nn.Sequential(nn.Linear(12, 32), nn.Tanh(), nn.Linear(32, 32),
                         nn.ReLU(), nn.Linear(32, 1))


def multilabel_mlp(dropout):
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 3))


class MultiTask(nn.Module):
    """Digits' binary attributes (logits) and a regression of the digit's
    value / 9 from one trunk."""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(64, 32), nn.SiLU())
        self.attributes = nn.Linear(32, 3)
        self.value = nn.Linear(32, 1)

    def forward(self, x):
        h = self.trunk(x)
        return torch.cat([self.attributes(h), self.value(h)], dim=1)


def digit_attributes_and_value():
    """digit_attributes' labels and the digit / 9 as a fourth target;
    accuracy: the attributes' sign accuracy and the value within 1/18 (the
    right digit), averaged over the four targets."""
    train_x, train_y, test_x, test_y = reference_models.digits()
    attributes = digit_attributes()

    def targets(labels, y):
        return torch.cat([labels, y.float().unsqueeze(1) / 9], 1)

    def accuracy(outputs, targets):
        signs = ((outputs[:, :3] > 0).float() == targets[:, :3]).float()
        value = ((outputs[:, 3:] - targets[:, 3:]).abs() < 1 / 18).float()
        return torch.cat([signs, value], 1).mean().item()

    return Task(attributes.train_inputs,
                targets(attributes.train_targets, train_y),
                attributes.eval_inputs,
                targets(attributes.eval_targets, test_y),
                accuracy)


# Losses.
def cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y)


def no_decay_groups(model, **kwargs):
    """Two AdamW groups: weight decay on the tensors of rank 2 and more,
    none on biases and norms."""
    decayed = [p for p in model.parameters() if p.dim() >= 2]
    other = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decayed},
                              {"params": other, "weight_decay": 0.0}],
                             **kwargs)


def _multitask_loss(model, x, y):
    outputs = model(x)
    return (F.binary_cross_entropy_with_logits(outputs[:, :3], y[:, :3],
                                               reduction="sum") +
            F.l1_loss(outputs[:, 3:], y[:, 3:], reduction="sum")) / x.shape[0]


ZOO = [
    ZooCase("mlp", mlp, cross_entropy,
            lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9),
            digits_task),
    ZooCase("cnn", lambda p: ConvNet(),
            lambda m, x, y: F.cross_entropy(m(x), y, label_smoothing=0.1),
            lambda m: torch.optim.Adam(m.parameters(), lr=3e-3),
            digit_images),
    ZooCase("transformer_post_ln", lambda p: PostNormTransformer(),
            cross_entropy,
            lambda m: torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9,
                                      nesterov=True, weight_decay=1e-4),
            digit_rows),
    ZooCase("transformer_pre_ln", lambda p: PreNormTransformer(),
            lambda m, x, y: F.cross_entropy(m(x), y, reduction="sum",
                                            label_smoothing=0.05) / 32,
            lambda m: torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9,
                                      weight_decay=5e-4),
            digit_rows),
    ZooCase("causal_attention", lambda p: CausalAttention(), cross_entropy,
            lambda m: torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9),
            digit_rows),
    ZooCase("gelu_silu_dropout", GeluSiluMLP,
            lambda m, x, y: F.nll_loss(F.log_softmax(m(x), dim=1), y,
                                       reduction="sum"),
            lambda m: torch.optim.SGD(m.parameters(), lr=0.003, momentum=0.9,
                                      nesterov=True),
            digits_task, default_dropout=0.1),
    ZooCase("class_token", lambda p: ClassToken(), cross_entropy,
            lambda m: no_decay_groups(m, lr=2e-3, betas=(0.9, 0.98),
                                      weight_decay=0.05),
            digit_rows),
    ZooCase("embedding_layernorm", lambda p: EmbeddingNorm(),
            lambda m, x, y: F.cross_entropy(m(x), y, reduction="sum"),
            lambda m: torch.optim.SGD(m.parameters(), lr=0.005, momentum=0.9,
                                      weight_decay=1e-3),
            token_task),
    ZooCase("batchnorm1d_regression", lambda p: BatchNormRegression(),
            lambda m, x, y: F.mse_loss(m(x), y),
            lambda m: torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.5,
                                      weight_decay=1e-4),
            regression_task),
    ZooCase("functional", lambda p: Functional(),
            lambda m, x, y: F.nll_loss(m(x), y),
            lambda m: torch.optim.Adam(m.parameters(), lr=3e-3),
            digits_task),
    ZooCase("modules_containers", lambda p: ModulesAndContainers(),
            lambda m, x, y: F.nll_loss(m(x), y),
            lambda m: torch.optim.AdamW(m.parameters(), lr=5e-3,
                                        weight_decay=0.02),
            digits_task),
    ZooCase("l1_regression", regression_mlp,
            lambda m, x, y: (F.l1_loss(m(x), y) +
                             0.01 * F.mse_loss(m(x), y, reduction="sum")),
            lambda m: torch.optim.Adam(m.parameters(), lr=3e-3),
            regression_task),
    ZooCase("bce_multilabel", multilabel_mlp,
            lambda m, x, y: F.binary_cross_entropy_with_logits(m(x), y),
            lambda m: torch.optim.SGD(m.parameters(), lr=0.2, momentum=0.9),
            digit_attributes),
    ZooCase("multitask_sums", lambda p: MultiTask(), _multitask_loss,
            lambda m: torch.optim.AdamW(m.parameters(), lr=3e-3),
            digit_attributes_and_value),
]

NAMES = [case.name for case in ZOO]


def case(name):
    return next(c for c in ZOO if c.name == name)
