"""Forms of torch code that mixprec.torch imports, each trained side by side
with PyTorch (same initial weights, same batches, SGD): the losses of every
step, the trained state (running statistics included) and the eval-mode
forward match. Functional layers (F.conv2d, F.batch_norm, the pools,
F.embedding), the arguments of split/chunk/unbind, min, softmax with a
dtype, x += y, Dropout(p=1), torch.no_grad() on the batch only, losses
with ignore_index, the hardtanh family, Mish, Softplus, PReLU,
GroupNorm/InstanceNorm, upsampling and transposed convolutions, einsum
products and gathers by an integer index tensor."""
import copy
import re

import pytest
import torch
import torch.nn.functional as F
import torchvision
from torch import nn

import mixprec.torch as mpt
from mixprec.torch import tracing
from mixprec.torch.lowering import Lowering, StateTable

ROWS, FEATURES, CLASSES = 6, 6, 4
STEPS = 3


def cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y)


def features_batch(rows=ROWS):
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(rows, FEATURES, generator=generator),
            torch.tensor([0, 1, 2, 3, 0, 2][:rows]))


def side_by_side(model, loss_fn, batch, forward=True):
    """Trains a copy of `model` STEPS SGD steps with PyTorch and the
    compiled step from the same weights; asserts the losses, the state and
    the eval forward match."""
    reference = copy.deepcopy(model)
    compiled = copy.deepcopy(model)
    trainer = mpt.compile(compiled, loss_fn, example_batch=batch,
                          optimizer=torch.optim.SGD(compiled.parameters(),
                                                    lr=0.1))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = loss_fn(reference, *batch)
        loss.backward()
        optimizer.step()
        assert trainer.step(*batch) == pytest.approx(loss.item(), rel=1e-5)
    state = trainer.state_dict()
    for key, value in reference.state_dict().items():
        assert torch.allclose(state[key].double(), value.double(), rtol=0,
                              atol=1e-5), key
    if forward:
        reference.eval()
        with torch.no_grad():
            expected = reference(batch[0])
        assert torch.allclose(trainer.forward(batch[0]), expected, rtol=0,
                              atol=1e-5)
    return trainer


class Around(nn.Module):
    """`form` between two linear layers."""

    def __init__(self, form):
        super().__init__()
        torch.manual_seed(0)
        self.first = nn.Linear(FEATURES, FEATURES)
        self.last = nn.Linear(FEATURES, CLASSES)
        self.form = form

    def forward(self, x):
        return self.last(self.form(self.first(x)))


def unbind_columns(h):
    # ROWS == FEATURES: dim 0 in place of dim 1 would go unnoticed in shape.
    a, b, c, d, e, f = h.unbind(1)
    return torch.stack([a * 2, b, c, d, e, f * 3], 1)


def unbind_rows(h):
    a, b, c, d, e, f = torch.unbind(h, 0)
    return torch.stack([f, e, d * 2, c, b, a], 0)


def split_positional(h):
    a, b = torch.split(h, [2, 4], 1)
    return torch.cat([b, a * 2], 1)


def split_keyword(h):
    a, b, c = h.split(split_size=2, dim=1)
    return torch.cat([c, b * 2, a], 1)


def chunk_positional(h):
    a, b, c = h.chunk(3, 1)
    return torch.cat([c, a, b * 2], 1)


def residual_update(h):
    g = h * 2
    g += torch.tanh(h)  # g is read only through the updated value
    g *= 0.5
    g -= 0.1
    g /= 2
    return g


def update_after_a_shape_read(h):
    rows = h.shape[0]
    h += torch.tanh(h)  # h's shape is read again afterwards, not its data
    return h.view(rows, -1)


def update_of_a_view(h):
    g = (h * 2).view(ROWS, 2, 3)
    g += 1  # a view, but of a tensor not read again
    return g.reshape(ROWS, FEATURES)


def no_grad_on_the_input(h):
    # Computed from the batch only: no gradient with or without no_grad.
    with torch.no_grad():
        scale = h.abs().amax(1, keepdim=True) + 1
    return h / scale


class NoGradInput(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(no_grad_on_the_input(x))


def test_no_grad_on_the_batch_only_trains_as_pytorch():
    side_by_side(NoGradInput(), cross_entropy, features_batch())


FORMS = {
    "unbind-dim-1": unbind_columns,
    "unbind-dim-0": unbind_rows,
    "split-positional-dim": split_positional,
    "split-keyword": split_keyword,
    "chunk-positional-dim": chunk_positional,
    "min-all": lambda h: h - h.min(),
    "min-dim": lambda h: h - h.min(1, keepdim=True).values,
    "torch-min-dim": lambda h: h - torch.min(h, 0)[0],
    "softmax-dtype": lambda h: torch.softmax(h, 1, torch.float32),
    "log-softmax-dtype": lambda h: h.log_softmax(0, torch.float32),
    "sum-empty-dims": lambda h: h - 0.1 * h.sum(dim=[], keepdim=True),
    "mean-empty-dims": lambda h: h - h.mean(dim=[]),
    "pow-tensor-exponent": lambda h: (h.abs() + 1) ** torch.tensor(
        [2.0, 3.0, 2.0, 0.5, 2.0, 1.0]),
    "pow-two": lambda h: h ** 2,
    "in-place-operators": residual_update,
    "in-place-on-a-view": update_of_a_view,
    "in-place-after-a-shape-read": update_after_a_shape_read,
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_form_trains_as_pytorch(form):
    side_by_side(Around(FORMS[form]), cross_entropy, features_batch())


class ZeroInitialised(Around):
    """Around `form` with the first layer zeroed: its outputs are all 0, so
    at the first step every element sits on a clamp bound of 0."""

    def __init__(self, form):
        super().__init__(form)
        nn.init.zeros_(self.first.weight)
        nn.init.zeros_(self.first.bias)


CLAMPS = {
    "min": lambda h: torch.clamp(h, min=0.0),
    "max": lambda h: h.clamp(max=0.0),
    "both-tie-on-min": lambda h: torch.clamp(h, 0.0, 1.0),
    "both-tie-on-max": lambda h: h.clip(-1, 0),
    "clamp-min": lambda h: torch.clamp_min(h, 0.0),
    "clamp-max": lambda h: h.clamp_max(0.0),
    # An infinite bound is left to maximum, with no tie on finite values.
    "infinite-min": lambda h: h.clamp(-float("inf"), 0.0),
}


@pytest.mark.parametrize("form", sorted(CLAMPS))
def test_clamp_on_its_bound_trains_as_pytorch(form):
    # PyTorch's clamp passes the whole gradient at a tie with a number bound
    # (maximum/minimum would pass half of it): the losses from the second
    # step on and the trained weights tell the two apart.
    side_by_side(ZeroInitialised(CLAMPS[form]), cross_entropy,
                 features_batch())


def test_dropout_of_one_gives_zeros():
    model = nn.Sequential(nn.Linear(FEATURES, FEATURES), nn.Dropout(1.0),
                          nn.Linear(FEATURES, CLASSES))
    trainer = side_by_side(model, cross_entropy, features_batch())
    # The first layer gets no gradient, as in PyTorch.
    assert torch.equal(trainer.state_dict()["0.weight"], model[0].weight)


CHANNELS = 3


class FunctionalCNN(nn.Module):
    """A CNN of functional layers with its own parameters and batch-norm
    buffers."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.weight = nn.Parameter(torch.randn(4, CHANNELS, 3, 3) * 0.3)
        self.bias = nn.Parameter(torch.randn(4) * 0.1)
        self.scale = nn.Parameter(torch.ones(4) + 0.1 * torch.randn(4))
        self.shift = nn.Parameter(0.1 * torch.randn(4))
        self.register_buffer("mean", torch.zeros(4))
        self.register_buffer("var", torch.ones(4))
        self.head = nn.Linear(4, CLASSES)

    def forward(self, x):
        h = F.conv2d(x, self.weight, self.bias, padding=1)
        h = F.batch_norm(h, self.mean, self.var, self.scale, self.shift,
                         self.training, 0.2, 1e-4)
        h = F.max_pool2d(F.relu(h), 2)
        h = F.avg_pool2d(h, 3, stride=1, padding=1)
        h = h + F.conv2d(h, torch.full((4, 1, 1, 1), 0.1), groups=4)
        return self.head(F.adaptive_avg_pool2d(h, 1).flatten(1))


def images():
    generator = torch.Generator().manual_seed(2)
    return (torch.randn(4, CHANNELS, 8, 8, generator=generator),
            torch.tensor([0, 3, 1, 2]))


def test_functional_layers_train_as_pytorch():
    side_by_side(FunctionalCNN(), cross_entropy, images())


class BagOfTokens(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.table = nn.Parameter(torch.randn(10, FEATURES))
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, tokens):
        return self.head(F.embedding(tokens, self.table).mean(1))


def test_functional_embedding_trains_as_pytorch():
    tokens = torch.tensor([[1, 2, 3], [4, 4, 9], [0, 5, 6], [7, 8, 1]])
    side_by_side(BagOfTokens(), cross_entropy,
                 (tokens, torch.tensor([0, 1, 2, 3])))


@pytest.mark.parametrize("loss_fn", [
    lambda m, x, y: F.nll_loss(F.log_softmax(m(x), 1), y, ignore_index=0),
    lambda m, x, y: F.nll_loss(F.log_softmax(m(x), 1), y, ignore_index=2,
                               reduction="sum"),
    lambda m, x, y: F.cross_entropy(m(x), y, ignore_index=0),
    lambda m, x, y: F.cross_entropy(m(x), y, ignore_index=3,
                                    reduction="sum"),
    lambda m, x, y: F.cross_entropy(m(x), y, ignore_index=0,
                                    label_smoothing=0.1),
    lambda m, x, y: F.cross_entropy(m(x), y, ignore_index=0,
                                    label_smoothing=0.2, reduction="sum"),
    lambda m, x, y: F.cross_entropy(m(x), y, label_smoothing=0.2),
], ids=["nll-mean", "nll-sum", "ce-mean", "ce-sum", "ce-smoothing-mean",
        "ce-smoothing-sum", "ce-smoothing-without-ignored-class"])
def test_ignore_index_of_a_class(loss_fn):
    # Labels 0 twice, 2 twice, 3 once: ignoring a class changes the mean.
    side_by_side(Around(torch.tanh), loss_fn, features_batch(),
                 forward=False)


class Encoder(nn.Module):
    def __init__(self, activation):
        super().__init__()
        torch.manual_seed(0)
        self.layer = nn.TransformerEncoderLayer(
            8, 2, 16, dropout=0.0, batch_first=True, activation=activation)
        self.head = nn.Linear(8, CLASSES)

    def forward(self, x):
        return self.head(self.layer(x).mean(1))


@pytest.mark.parametrize("activation", [F.silu, torch.relu, F.gelu],
                         ids=["F.silu", "torch.relu", "F.gelu"])
def test_encoder_activation_function(activation):
    generator = torch.Generator().manual_seed(3)
    side_by_side(Encoder(activation), cross_entropy,
                 (torch.randn(4, 5, 8, generator=generator),
                  torch.tensor([0, 1, 2, 3])))


def test_attention_without_bias_is_lowered():
    """nn.MultiheadAttention(bias=False) is evaluated with gradients on (the
    fast path PyTorch 1.13 takes under no_grad fails without biases)."""
    torch.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, bias=False,
                                      batch_first=True).eval()
    batch = [torch.randn(4, 5, 8)]
    root, graph = tracing.trace_loss(
        attention, lambda m, x: m(x, x, x, need_weights=False)[0].sum(), 1)
    lowering = Lowering(root, graph, "forward", StateTable(attention),
                        training=False)
    results = lowering.run(batch)
    text = lowering.writer.text(results)
    assert [r.shape for r in results] == [()]
    # The projections take no bias operand.
    assert ("mixprec.linear %input0, %v1 : tensor<4x5x8xf32>, "
            "tensor<24x8xf32> -> tensor<4x5x24xf32>") in text, text
    assert ("mixprec.linear %v19, %v20 : tensor<4x5x8xf32>, "
            "tensor<8x8xf32> -> tensor<4x5x8xf32>") in text, text


# Hardtanh and its relatives, as modules and functions.
ACTIVATIONS = {
    "ReLU6": nn.ReLU6(),
    "Hardtanh": nn.Hardtanh(-0.5, 0.25),
    "F.relu6": F.relu6,
    "F.hardtanh": lambda h: F.hardtanh(h, -0.25, 0.5),
    "Hardsigmoid": nn.Hardsigmoid(),
    "F.hardsigmoid": lambda h: F.hardsigmoid(h * 4),
    "Hardswish": nn.Hardswish(),
    "F.hardswish": lambda h: F.hardswish(h * 4),
    "Mish": nn.Mish(),
    "F.mish": lambda h: F.mish(h * 8),
    "Softplus": nn.Softplus(),
    "F.softplus": lambda h: F.softplus(h * 8, beta=2, threshold=16),
    "PReLU": nn.PReLU(init=0.1),
}


@pytest.mark.parametrize("form", sorted(ACTIVATIONS))
def test_activation_trains_as_pytorch(form):
    side_by_side(Around(ACTIVATIONS[form]), cross_entropy, features_batch())


# At a tie with a bound hardtanh's gradient (ReLU6's, hardsigmoid's) stops
# and hardswish's at -3 does not: from zeroed weights every element sits on
# one. (Hardswish at 3 is left out: PyTorch's vectorized loop gives 1 there
# and its scalar loop, for the last elements of a tensor, 1.5.)
TIES = {
    "relu6-at-0": nn.ReLU6(),
    "hardtanh-at-max": lambda h: F.hardtanh(h, -1.0, 0.0),
    "hardsigmoid-at-minus-3": lambda h: F.hardsigmoid(h - 3.0),
    "hardsigmoid-at-3": lambda h: F.hardsigmoid(h + 3.0),
    "hardswish-at-minus-3": lambda h: F.hardswish(h - 3.0),
    # PReLU's gradient at 0 is its weight's, softplus's sigmoid(0) = 1/2.
    "prelu-at-0": nn.PReLU(init=0.25),
    "softplus-at-0": nn.Softplus(),
}


@pytest.mark.parametrize("form", sorted(TIES))
def test_activation_on_its_bound_trains_as_pytorch(form):
    side_by_side(ZeroInitialised(TIES[form]), cross_entropy, features_batch())


class CeilModePools(nn.Module):
    """Max pooling with ceil_mode where it adds a window (8 -> 4, not 3;
    4 -> 3 with padding, not 2), then adaptive average pooling to sizes
    that divide the input and to ones that do not (overlapping windows,
    and more outputs than inputs)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(CHANNELS, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.head = nn.Linear(4 * 3 * 5 + 4 * 4, CLASSES)

    def forward(self, x):
        h = self.pool(torch.relu(self.conv(x)))
        h = F.max_pool2d(h, 3, 2, padding=1, ceil_mode=True)
        overlapping = F.adaptive_avg_pool2d(h, (2, 2))
        upsampled = F.adaptive_avg_pool2d(F.adaptive_avg_pool2d(h, (3, 2)),
                                          (None, 5))
        return self.head(torch.cat([overlapping.flatten(1),
                                    upsampled.flatten(1)], 1))


class NormalizedConvs(nn.Module):
    """GroupNorm and Mish, InstanceNorm2d (affine) and a PReLU per channel,
    F.group_norm without weights, as a U-Net's blocks use them."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = nn.Conv2d(CHANNELS, 8, 3, padding=1)
        self.groups = nn.GroupNorm(4, 8)
        self.second = nn.Conv2d(8, 8, 3, padding=1)
        self.instances = nn.InstanceNorm2d(8, affine=True)
        self.prelu = nn.PReLU(8, init=0.2)
        self.head = nn.Linear(8, CLASSES)

    def forward(self, x):
        h = F.mish(self.groups(self.first(x)))
        h = self.prelu(self.instances(self.second(h)))
        return self.head(F.group_norm(h, 2).mean((2, 3)))


def test_group_and_instance_norms_train_as_pytorch():
    side_by_side(NormalizedConvs(), cross_entropy, images())


class Upsampling(nn.Module):
    """nn.Upsample (nearest, x2: repeats), F.interpolate bilinear by a
    factor, to sizes with align_corners, and nearest to a size that is no
    multiple (the weight matrices)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = nn.Conv2d(CHANNELS, 4, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.second = nn.Conv2d(4, 4, 3, padding=1)
        self.head = nn.Linear(16, CLASSES)

    def forward(self, x):
        first = torch.relu(self.first(x))
        h = self.up(first)
        h = F.interpolate(self.second(h), scale_factor=0.75, mode="bilinear")
        sized = [F.interpolate(h, size=(5, 7), mode="bilinear",
                               align_corners=True),
                 F.interpolate(h, size=(9, 3), mode="bilinear"),
                 F.interpolate(h, size=(5, 7), mode="nearest"),
                 # 8 -> 24 rows, but indexed by 1 / 3.1, not repeated.
                 F.interpolate(first, scale_factor=3.1, mode="nearest")]
        return self.head(torch.cat([s.mean((2, 3)) for s in sized], 1))


class TransposedConvs(nn.Module):
    """ConvTranspose2d at stride 2 (kernel 4, padding 1), with output
    padding and groups, dilated without a bias, and F.conv_transpose2d."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.down = nn.Conv2d(CHANNELS, 4, 3, padding=1, stride=2)
        self.up = nn.ConvTranspose2d(4, 6, 4, stride=2, padding=1)
        self.grouped = nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1,
                                          output_padding=1, groups=2)
        self.dilated = nn.ConvTranspose2d(4, 2, 2, dilation=2, bias=False)
        self.weight = nn.Parameter(torch.randn(2, 3, 3, 3) * 0.2)
        self.head = nn.Linear(3, CLASSES)

    def forward(self, x):
        h = torch.relu(self.up(torch.relu(self.down(x))))
        h = self.dilated(torch.relu(self.grouped(h)))
        h = F.conv_transpose2d(h, self.weight, stride=(1, 2), padding=1)
        return self.head(h.mean((2, 3)))


def test_transposed_convolutions_train_as_pytorch():
    side_by_side(TransposedConvs(), cross_entropy, images())


def test_upsampling_trains_as_pytorch():
    side_by_side(Upsampling(), cross_entropy, images())


def test_ceil_mode_and_adaptive_pools_train_as_pytorch():
    side_by_side(CeilModePools(), cross_entropy, images())


def test_adaptive_pool_to_equal_windows_trains_as_pytorch():
    model = nn.Sequential(nn.Conv2d(CHANNELS, 4, 3, padding=1),
                          nn.AdaptiveAvgPool2d((4, 2)), nn.Flatten(),
                          nn.Linear(32, CLASSES))
    side_by_side(model, cross_entropy, images())


class StochasticResidual(Around):
    """A residual branch under torchvision's StochasticDepth."""

    def __init__(self, p, mode="row"):
        super().__init__(torch.relu)
        self.depth = torchvision.ops.StochasticDepth(p, mode)

    def forward(self, x):
        h = self.first(x)
        return self.last(h + self.depth(torch.relu(h)))


def test_stochastic_depth_of_zero_trains_as_pytorch():
    side_by_side(StochasticResidual(0.0), cross_entropy, features_batch())


class Noise(nn.Module):
    """StochasticDepth(0.5) of its input times a parameter (kept at 1)."""

    def __init__(self, mode):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self.depth = torchvision.ops.StochasticDepth(0.5, mode)

    def forward(self, x):
        return self.depth(x * self.scale)


@pytest.mark.parametrize("mode", ["row", "batch"])
def test_stochastic_depth_keeps_or_drops_whole_samples(mode):
    # Of ones, each sample ("row") or the batch is all 0 or all 1 / (1 - p)
    # = 2, drawn anew each step: the mean is a multiple of 2 / rows (row)
    # or 0 or 2 (batch). In eval mode it is the identity.
    rows = 8
    ones = torch.ones(rows, 4)
    model = Noise(mode)
    trainer = mpt.compile(model, lambda m, x: m(x).mean(), (ones,),
                          torch.optim.SGD(model.parameters(), lr=0.0))
    means = {trainer.step(ones) for _ in range(20)}
    steps = (2 / rows) if mode == "row" else 2
    assert all(mean / steps == round(mean / steps) for mean in means), means
    assert len(means) > 1 and max(means) <= 2
    assert torch.equal(trainer.forward(ones), ones)


class RelativeBias(nn.Module):
    """A bias table of parameters read through a constant index buffer (as
    maxvit's and swin's relative position biases), and the batch's rows in
    another order by a tensor index with a negative entry."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.table = nn.Parameter(torch.randn(5, FEATURES))
        self.register_buffer("index", torch.tensor([[4, 0, 2], [1, 1, 3]]))
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        bias = self.table[self.index].sum((0, 1))
        shuffled = x[torch.tensor([5, 4, 3, 2, 1, -6])]
        # Rows of a 3-d tensor: each a 2x3 block.
        blocks = x.reshape(ROWS, 2, 3)[torch.tensor([1, 0, 3, 2, 5, 4])]
        return self.head(shuffled + bias + blocks.reshape(ROWS, FEATURES))


def test_tensor_index_gathers_as_pytorch():
    side_by_side(RelativeBias(), cross_entropy, features_batch())


def einsum_attention(h):
    q = h.reshape(2, 3, 2, 3)
    scores = torch.einsum("b i h d, b j h d -> b h i j", q, q * 0.5)
    mixed = torch.einsum("bhij,bjhd->bihd", scores.softmax(-1), q)
    return torch.einsum("rf,gf->rg", mixed.reshape(ROWS, FEATURES), h)


def test_einsum_trains_as_pytorch():
    side_by_side(Around(einsum_attention), cross_entropy, features_batch())


@pytest.mark.parametrize("equation, reason", [
    ("ij->ji", "with 1 operands"),
    ("...i,...i->...", "without '...'"),
    ("ii,ij->ij", "a letter repeated in one term"),
    ("ij,jk->i", "a letter summed in one operand alone"),
    ("ij,kj->ik", "with j of sizes 6 and 1"),
])
def test_einsum_outside_products_is_refused(equation, reason):
    operands = 1 if equation.count(",") == 0 else 2

    def form(h):
        others = [h[:, :1] if "sizes" in reason else h] * (operands - 1)
        return torch.einsum(equation, h, *others).sum() + h

    model = Around(form)
    with pytest.raises(mpt.UnsupportedError, match=re.escape(reason)):
        mpt.compile(model, cross_entropy, features_batch(),
                    torch.optim.SGD(model.parameters(), lr=0.1))
