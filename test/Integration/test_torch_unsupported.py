"""What mixprec.torch cannot import raises mpt.UnsupportedError naming the
construct, the module path where it is and the user's line, before anything
is compiled; nothing unsupported is silently dropped or approximated. Each
offending line below carries a marker comment (`# <- name`): the expected
line number is where the marker is in this file. A supported model's bad
batch at run time names drop_last=True."""
import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mixprec.compiler
import mixprec.torch as mpt

ROWS, FEATURES, CLASSES = 4, 8, 3

with open(__file__) as _source:
    SOURCE_LINES = _source.read().splitlines()


def marked_line(marker):
    """(line number, code) of the one line of this file marked `marker`
    (the code as a traceback shows it: stripped, its comment kept)."""
    hits = [(number, line.strip())
            for number, line in enumerate(SOURCE_LINES, start=1)
            if line.rstrip().endswith("# <- " + marker)]
    assert len(hits) == 1, "marker %r on %d lines" % (marker, len(hits))
    return hits[0]


def batch():
    torch.manual_seed(0)
    return torch.randn(ROWS, FEATURES), torch.randint(0, CLASSES, (ROWS,))


def cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y)


# Unsupported modules.
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(FEATURES, FEATURES, batch_first=True)

    def forward(self, x):
        x, _ = self.rnn(x.unsqueeze(1))  # <- rnn
        return x[:, 0]


class RNNClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(self.encoder(x))


class ProjectedLSTMStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(FEATURES, FEATURES),
                                     nn.LSTM(FEATURES, 2 * CLASSES,
                                             proj_size=CLASSES)])

    def forward(self, x):
        h = self.layers[0](x)
        h, _ = self.layers[1](h.unsqueeze(0))  # <- lstm-projection
        return h[0]


class CrossAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.cross = nn.MultiheadAttention(FEATURES, 2, batch_first=True)
        self.memory = nn.Parameter(torch.randn(1, 3, FEATURES))

    def forward(self, x):
        query = x.unsqueeze(1)
        memory = self.memory.expand(query.shape[0], 3, FEATURES)
        out, _ = self.cross(query, memory, memory)  # <- cross-attention
        return out[:, 0]


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = CrossAttention()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(self.decoder(x))


# Conditions and masks computed from the data.
class LeakyGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(FEATURES, FEATURES)

    def forward(self, x):
        h = self.linear(x)
        return torch.where(h > 0, h, h * 0.1)  # <- where


class WhereNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(LeakyGate())
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(self.encoder(x))


class MaskedFill(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(x.masked_fill(x < 0, 0.0))  # <- masked-fill


class SignGate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # <- control-flow
            return x
        return -x


class ControlFlowNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(nn.Linear(FEATURES, FEATURES), SignGate())
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(self.blocks(x))


class RowLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        rows = [row * 2 for row in x]  # <- iteration
        return self.head(torch.stack(rows))


# In-place updates of the model's state and of activations.
class SelfUpdating(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(CLASSES, FEATURES))

    def forward(self, x):
        self.weight.add_(1)  # <- inplace-parameter
        return x @ self.weight.t()


class InplaceParameterNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = SelfUpdating()

    def forward(self, x):
        return self.head(x)


class InplaceActivation(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = self.head(x)
        h.mul_(2)  # <- inplace-activation
        return h


class ReusedActivation(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(FEATURES, CLASSES)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        h = self.linear(x)
        return h + self.act(h)  # <- inplace-reuse


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))
        self.linear = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        self.calls.add_(1)  # <- inplace-buffer
        return self.linear(x)


class AssigningCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))
        self.linear = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        self.calls += 1  # <- assign-buffer
        return self.linear(x)


class AssigningNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.counter = AssigningCounter()

    def forward(self, x):
        return self.counter(x)


class CountingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.counter = Counter()

    def forward(self, x):
        return self.counter(x)


# Values read back into Python, results the dialect does not compute.
class ItemScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        scale = x.abs().max().item()  # <- item
        return self.head(x) / scale


class ArgmaxFeature(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES + 1, CLASSES)

    def forward(self, x):
        index = torch.max(x, 1).indices
        column = index.unsqueeze(1).float()  # <- max-indices
        return self.head(torch.cat([x, column], 1))


class TensorIndex(nn.Module):
    """A bool mask as an index: the result's shape would depend on the
    data (an integer index tensor is a gather, supported)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("keep", torch.ones(ROWS, dtype=torch.bool))
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(x[self.keep])  # <- tensor-index


class Noise(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(x + torch.randn(ROWS, FEATURES))  # <- randn


# Unsupported functions.
class Cumsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(torch.cumsum(x, 1))  # <- cumsum


class Sort(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(torch.sort(x, 1).values)  # <- sort


class Unfold(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        patches = F.unfold(x.view(ROWS, 1, 2, 4), 1)  # <- unfold
        return self.head(patches.view(ROWS, FEATURES))


# Unsupported arguments.
class Tokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(10, FEATURES, padding_idx=0)

    def forward(self, t):
        return self.tokens(t).mean(1)  # <- padding-idx


class TokenClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Tokens()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, t):
        return self.head(self.embed(t))


class BogusGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return F.gelu(self.head(x), approximate="bogus")  # <- gelu-bogus


class ReflectConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 2, 3, padding=1, padding_mode="reflect"))
        self.head = nn.Linear(2 * FEATURES, CLASSES)

    def forward(self, x):
        h = self.features(x.view(ROWS, 1, 2, 4))  # <- reflect-padding
        return self.head(h.flatten(1))


class EarlySoftplus(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(F.softplus(x, threshold=5))  # <- softplus-threshold


# Losses.
CLASS_WEIGHTS = torch.tensor([1.0, 2.0, 3.0])


def weighted_cross_entropy(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits, y, weight=CLASS_WEIGHTS)  # <- weights


def logits_as_loss(model, x, y):
    logits = model(x) * 2  # <- non-scalar
    return logits


def unreduced_mse(model, x, y):
    target = x[:, :CLASSES]
    return F.mse_loss(model(x), target, reduction="none")  # <- no-reduction


CRITERION = nn.CrossEntropyLoss()


def criterion_module(model, x, y):
    return CRITERION(model(x), y)  # <- loss-module


# Gradient and autocast modes, hooks: what the traced forward would drop.
class NoGradScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(FEATURES, FEATURES)
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = self.linear(x)
        with torch.no_grad():
            scale = h.abs().amax(1, keepdim=True)  # <- no-grad
        return self.head(h / scale)


class NoGradNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = NoGradScale()

    def forward(self, x):
        return self.body(x)


class Autocast(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(FEATURES, FEATURES)
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = self.linear(x)  # <- autocast
        return self.head(h.float())


class Hooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.linear(x)  # <- forward-hook


def hooked():
    model = nn.Sequential(Hooked())
    model[0].linear.register_forward_hook(lambda module, args, out: out * 2)
    return model


# x += y where x is a view, x[...] = v, len() of split results.
class ViewUpdate(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = x * 2
        left = h[:, :FEATURES // 2]
        left += 1  # <- iadd-view
        return self.head(h)


class ItemAssignment(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = x * 2
        h[:, 0] = 0  # <- setitem
        return self.head(h)


class ListOfSplits(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = torch.cat(list(reversed(x.split(2, 1))), 1)  # <- list-split
        return self.head(h)


class CatOfChunks(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = torch.cat(x.chunk(2, 1)[::-1], 1)  # <- cat-of-chunks
        return self.head(h)


# Functional forms and arguments.
class SoftmaxDouble(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = torch.softmax(self.head(x), 1, torch.float64)  # <- softmax-dtype
        return h.float()


class LocalStatistics(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        mean, var = torch.zeros(FEATURES), torch.ones(FEATURES)
        h = F.batch_norm(x, mean, var, training=True)  # <- batch-norm-stats
        return self.head(h)


class AdaptiveMax(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        h = F.adaptive_max_pool2d(x.view(ROWS, 1, 2, 4), 1)  # <- adaptive-max
        return self.head(h.view(ROWS, 1).expand(ROWS, FEATURES))


class NormedTwice(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(FEATURES)
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        return self.head(self.norm(x))  # <- batch-norm-twice


def twice_cross_entropy(model, x, y):
    return F.cross_entropy(model(x), y) + F.cross_entropy(model(x * 2), y)


def linear():
    torch.manual_seed(0)
    return nn.Linear(FEATURES, CLASSES)


# (construct named in the message, model, loss_fn, module path: None when
# the line is in the loss_fn, "" in the model's own forward).
CASES = {
    "rnn": ("module torch.nn.RNN", RNNClassifier, cross_entropy,
            "encoder.rnn"),
    "lstm-projection": ("nn.LSTM with proj_size", ProjectedLSTMStack,
                        cross_entropy, "layers.1"),
    "cross-attention": ("nn.MultiheadAttention other than self-attention "
                        "(query, key and value differ)",
                        Decoder, cross_entropy, "decoder.cross"),
    "where": ("torch.where on a mask computed from the data (operator >)",
              WhereNet, cross_entropy, "encoder.0"),
    "masked-fill": ("Tensor.masked_fill on a mask computed from the data "
                    "(operator <)", MaskedFill, cross_entropy, ""),
    "control-flow": ("data-dependent control flow", ControlFlowNet,
                     cross_entropy, "blocks.1"),
    "iteration": ("iterating over a tensor", RowLoop, cross_entropy, ""),
    "inplace-parameter": ("in-place method Tensor.add_ on the model's tensor "
                          "'head.weight'", InplaceParameterNet, cross_entropy,
                          "head"),
    "inplace-activation": ("in-place method Tensor.mul_", InplaceActivation,
                           cross_entropy, ""),
    "inplace-buffer": ("in-place method Tensor.add_ on the model's tensor "
                       "'counter.calls'", CountingNet, cross_entropy,
                       "counter"),
    "assign-buffer": ("assigning to the buffer 'calls' in forward",
                      AssigningNet, cross_entropy, "counter"),
    "inplace-reuse": ("module torch.nn.ReLU with inplace=True on a tensor "
                      "read again afterwards", ReusedActivation,
                      cross_entropy, "act"),
    "item": ("Tensor.item", ItemScale, cross_entropy, ""),
    "max-indices": ("Tensor.unsqueeze on the indices of torch.max (argmax)",
                    ArgmaxFeature, cross_entropy, ""),
    "tensor-index": ("indexing with a tensor or list", TensorIndex,
                     cross_entropy, ""),
    "randn": ("torch.randn", Noise, cross_entropy, ""),
    "cumsum": ("torch.cumsum", Cumsum, cross_entropy, ""),
    "sort": ("torch.sort", Sort, cross_entropy, ""),
    "unfold": ("torch.nn.functional.unfold", Unfold, cross_entropy, ""),
    "padding-idx": ("nn.Embedding with padding_idx=0", TokenClassifier,
                    cross_entropy, "embed.tokens"),
    "gelu-bogus": ("torch.nn.functional.gelu with these arguments",
                   BogusGelu, cross_entropy, ""),
    "reflect-padding": ("nn.Conv2d with padding_mode='reflect'", ReflectConv,
                        cross_entropy, "features.0"),
    "softplus-threshold": ("F.softplus(beta=1, threshold=5)", EarlySoftplus,
                           cross_entropy, ""),
    "weights": ("F.cross_entropy with class weights", linear,
                weighted_cross_entropy, None),
    "non-scalar": ("a loss function returning tensor<4x3xf32>", linear,
                   logits_as_loss, None),
    "no-reduction": ("F.mse_loss with reduction='none'", linear,
                     unreduced_mse, None),
    "loss-module": ("module torch.nn.CrossEntropyLoss, which is not a "
                    "submodule of the model", linear, criterion_module, None),
    "no-grad": ("torch.no_grad() inside the model", NoGradNet, cross_entropy,
                "body"),
    "autocast": ("torch.autocast inside the model", Autocast, cross_entropy,
                 ""),
    "forward-hook": ("a module with a forward hook", hooked, cross_entropy,
                     "0.linear"),
    "iadd-view": ("operator += on a tensor read again afterwards (or a view "
                  "of one)", ViewUpdate, cross_entropy, ""),
    "setitem": ("[] assignment (x[...] = value)", ItemAssignment,
                cross_entropy, ""),
    "list-split": ("len(), list() or reversed() of a traced value",
                   ListOfSplits, cross_entropy, ""),
    "cat-of-chunks": ("the results of split, chunk or unbind passed whole",
                      CatOfChunks, cross_entropy, ""),
    "softmax-dtype": ("softmax with dtype=torch.float64", SoftmaxDouble,
                      cross_entropy, ""),
    "batch-norm-stats": ("F.batch_norm with running statistics that are not "
                         "buffers of the model", LocalStatistics,
                         cross_entropy, ""),
    "adaptive-max": ("torch.nn.functional.adaptive_max_pool2d", AdaptiveMax,
                     cross_entropy, ""),
    "batch-norm-twice": ("a batch-norm module called twice in one step",
                         NormedTwice, twice_cross_entropy, "norm"),
}


def refusal(model, loss_fn=cross_entropy, example_batch=None, optimizer=None):
    """The UnsupportedError of mpt.compile on `model`, raised by the
    importer: mixprec-compile must not run."""
    def compile_source(*args, **kwargs):
        raise AssertionError("the model reached mixprec-compile")

    optimizer = optimizer or torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mixprec.compiler, "compile_source", compile_source)
        with pytest.raises(mpt.UnsupportedError) as caught:
            mpt.compile(model, loss_fn,
                        example_batch=example_batch or batch(),
                        optimizer=optimizer)
    return caught.value


def where_clause(module):
    if module is None:
        return ""
    if module == "":
        return " in the model's forward"
    return " in module '%s'" % module


@pytest.mark.parametrize("marker", sorted(CASES))
def test_construct_is_named_with_module_and_line(marker):
    construct, make_model, loss_fn, module = CASES[marker]
    example = batch()
    if marker == "padding-idx":  # the one model of token ids
        example = (torch.randint(1, 10, (ROWS, 5)), example[1])
    error = refusal(make_model(), loss_fn, example)
    number, code = marked_line(marker)
    source = "%s:%d: %s" % (__file__, number, code)
    # The first line: what, where in the model, and the line of this file.
    first_line = str(error).splitlines()[0]
    assert first_line == "%s is not supported%s at %s" % (
        construct, where_clause(module), source), str(error)
    assert (error.construct, error.module, error.source) == (
        construct, module, source)


def test_a_global_hook_is_named():
    handle = torch.nn.modules.module.register_module_forward_hook(
        lambda module, args, out: out)
    try:
        error = refusal(linear())
    finally:
        handle.remove()
    assert error.construct == "a module with a global forward hook"
    assert error.module == ""


def test_a_hook_on_a_part_of_a_leaf_module_is_named():
    # The layer lowers as a whole: its linear1's hook would be dropped.
    model = nn.Sequential(nn.TransformerEncoderLayer(
        FEATURES, 2, 16, dropout=0.0, batch_first=True))
    model[0].linear1.register_forward_pre_hook(lambda module, args: args)
    error = refusal(model, lambda m, x, y: m(x.unsqueeze(1)).mean())
    assert error.construct == "a module with a forward pre-hook"
    assert error.module == "0.linear1"


def test_message_reads_as_the_documented_example():
    number, code = marked_line("rnn")
    assert str(refusal(RNNClassifier())) == (
        "module torch.nn.RNN is not supported in module 'encoder.rnn' at "
        "%s:%d: x, _ = self.rnn(x.unsqueeze(1))  # <- rnn" % (
            __file__, number))
    assert code == "x, _ = self.rnn(x.unsqueeze(1))  # <- rnn"


def test_the_reason_follows_on_its_own_line():
    lines = str(refusal(WhereNet())).splitlines()
    assert len(lines) == 2
    assert lines[1] == ("  masks and conditions are not computed from the "
                        "inputs or parameters (a bool mask given with the "
                        "batch, or a constant one such as a causal mask "
                        "built from shapes, is supported)")
    lines = str(refusal(ControlFlowNet())).splitlines()
    assert lines[1].startswith("  a Python if, while, and/or or bool() on a "
                               "tensor: symbolically traced variables")


@pytest.mark.parametrize("make_optimizer, construct, reason", [
    (lambda p: torch.optim.Adam(p, lr=0.01, amsgrad=True),
     "torch.optim.Adam with amsgrad=True",
     "the train step has no max of second moments"),
    (lambda p: torch.optim.AdamW(p, lr=0.01, amsgrad=True),
     "torch.optim.AdamW with amsgrad=True",
     "the train step has no max of second moments"),
    (lambda p: torch.optim.RMSprop(p, lr=0.01),
     "the optimizer torch.optim.rmsprop.RMSprop",
     "torch.optim.SGD, Adam and AdamW are supported"),
], ids=["adam-amsgrad", "adamw-amsgrad", "rmsprop"])
def test_optimizer_option_is_named(make_optimizer, construct, reason):
    model = linear()
    error = refusal(model, optimizer=make_optimizer(model.parameters()))
    # An optimizer setting has no line in the model.
    assert str(error) == "%s is not supported: %s" % (construct, reason)
    assert error.source is None and error.module is None


def test_float64_parameters_are_named():
    model = nn.Sequential(nn.Sequential(nn.Linear(FEATURES, CLASSES)))
    model[0][0].double()
    error = refusal(model, lambda m, x, y: F.cross_entropy(
        m(x.double()).float(), y))
    assert str(error) == (
        "the torch.float64 parameter '0.0.weight' is not supported: "
        "parameters must be float32 (mixprec keeps FP32 master weights and "
        "chooses 16-bit copies itself)")


def test_each_marker_is_tested():
    markers = {m.group(1) for line in SOURCE_LINES
               for m in [re.search(r"# <- ([a-z-]+)$", line)] if m}
    assert markers == set(CASES)
    assert len(markers) >= 14


class Accepted(nn.Module):
    """Near misses of the refusals above, which import: an in-place ReLU
    whose input is not read again, a constant buffer, an unpacked shape, a
    mask compared from shapes only, torch.max's values."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((CLASSES,), 2.0))
        self.body = nn.Sequential(nn.Linear(FEATURES, FEATURES),
                                  nn.ReLU(inplace=True))
        self.head = nn.Linear(FEATURES, CLASSES)

    def forward(self, x):
        rows, features = x.shape
        h = self.body(x.view(rows, features))
        h = h.masked_fill(torch.arange(features) < features // 2, 0.0)
        values, _ = torch.max(h, 1, keepdim=True)
        return self.head(h - values) * self.scale


def test_near_misses_import():
    model = Accepted()
    imported = mpt.importer.import_model(
        model, cross_entropy, batch(),
        torch.optim.SGD(model.parameters(), lr=0.1))
    assert "mixprec.train_step @train" in imported.text
    assert sorted(imported.parameters) == [
        "body.0.bias", "body.0.weight", "head.bias", "head.weight"]


# A supported model's errors at run time.
def test_a_loaders_short_last_batch_names_drop_last():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU(),
                          nn.Linear(16, CLASSES))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = mpt.compile(model, cross_entropy, example_batch=batch(),
                          optimizer=optimizer)
    data = torch.utils.data.TensorDataset(
        torch.randn(3 * ROWS + 2, FEATURES),
        torch.randint(0, CLASSES, (3 * ROWS + 2,)))
    loader = torch.utils.data.DataLoader(data, batch_size=ROWS)
    *full, last = list(loader)
    for x, y in full:
        trainer.step(x, y)
    with pytest.raises(ValueError) as error:
        trainer.step(*last)
    assert "drop_last=True" in str(error.value)
    assert "[2, %d]" % FEATURES in str(error.value)
    assert trainer.step_count == len(full)
    dropping = torch.utils.data.DataLoader(data, batch_size=ROWS,
                                           drop_last=True)
    for x, y in dropping:
        trainer.step(x, y)
    assert trainer.step_count == 2 * len(full)
