"""Lowerings of torch.nn.functional's losses."""
import torch
import torch.nn.functional as F

from .registry import lowers

_REDUCTIONS = ("mean", "sum")


def _reduction(ctx, name, reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        raise ctx.unsupported("%s with size_average/reduce" % name,
                              "use reduction=")
    if reduction not in _REDUCTIONS:
        raise ctx.unsupported("%s with reduction=%r" % (name, reduction),
                              "reduction must be 'mean' or 'sum'")
    return reduction


def _reduce_all(ctx, x, reduction):
    name = "reduce_mean" if reduction == "mean" else "reduce_sum"
    return ctx.ops.reduce(name, x, range(len(x.shape)))


def _labels(ctx, target, name):
    labels = ctx.value(target)
    if labels.dtype not in ("i32", "i64"):
        raise ctx.unsupported("%s with %s targets" % (name, labels.dtype),
                              "targets are class indices (torch.long)")
    return labels


def _logits(ctx, input, name):
    x = ctx.value(input)
    if len(x.shape) != 2 or not x.is_float:
        raise ctx.unsupported("%s of a %s input" % (name, x.type),
                              "the input is [batch, classes] floats")
    return x


def _class_loss_operands(ctx, name, input, target, weight, size_average,
                         reduce, reduction):
    """(reduction, [N, C] scores, [N] labels) of a loss over classes."""
    reduction = _reduction(ctx, name, reduction, size_average, reduce)
    if weight is not None:
        raise ctx.unsupported("%s with class weights" % name)
    return reduction, _logits(ctx, input, name), _labels(ctx, target, name)


@lowers(F.cross_entropy)
def cross_entropy(ctx, input, target, weight=None, size_average=None,
                  ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction, logits, labels = _class_loss_operands(
        ctx, "F.cross_entropy", input, target, weight, size_average, reduce,
        reduction)
    if label_smoothing == 0 and not _ignores_a_class(ignore_index, logits):
        # An ignore_index out of range (-100): the op skips those rows.
        return ctx.ops.softmax_cross_entropy(logits, labels, reduction,
                                             ignore_index)
    log_probs = ctx.ops.softmax("log_softmax", logits, 1)
    return _class_loss(ctx, log_probs, labels, ignore_index, reduction,
                       label_smoothing)


@lowers(F.nll_loss)
def nll_loss(ctx, input, target, weight=None, size_average=None,
             ignore_index=-100, reduce=None, reduction="mean"):
    reduction, log_probs, labels = _class_loss_operands(
        ctx, "F.nll_loss", input, target, weight, size_average, reduce,
        reduction)
    return _class_loss(ctx, log_probs, labels, ignore_index, reduction, 0.0)


def _ignores_a_class(ignore_index, scores):
    return 0 <= ignore_index < scores.shape[1]


def _class_loss(ctx, log_probs, labels, ignore_index, reduction, smoothing):
    """PyTorch's nll_loss of [N, C] log-probabilities, with label smoothing
    as cross_entropy's: (1 - e) * nll + e / C * sum of -log p over classes.
    Rows labelled ignore_index, when it is a class, count in neither term,
    and the mean divides by the rows not ignored (NaN when there are none,
    as PyTorch's). A label out of range (ignore_index included when it is
    not a class) is rejected by the compiled step."""
    ops = ctx.ops
    rows, classes = log_probs.shape
    ignores = _ignores_a_class(ignore_index, log_probs)
    # valid[c] = 0 for the ignored class: looked up by label, it is 0 on
    # ignored rows; the identity with that row zeroed gives their one-hot.
    valid = torch.ones(classes, 1)
    if ignores:
        valid[ignore_index] = 0.0
    one_hot = ops.embedding(ctx.value(torch.eye(classes) * valid), labels)

    def negated_sum(x):
        total = ops.reduce("reduce_sum", x, [0, 1])
        return ops.binary("mul", total, ctx.value(-1.0, total))

    loss = negated_sum(ops.binary("mul", log_probs, one_hot))
    row_valid = ops.embedding(ctx.value(valid), labels) if ignores else None
    if smoothing:
        smooth = negated_sum(log_probs if row_valid is None else
                             ops.binary("mul", log_probs, row_valid))
        loss = ops.binary("add", ops.binary(
            "mul", loss, ctx.value(1.0 - smoothing, loss)), ops.binary(
            "mul", smooth, ctx.value(smoothing / classes, smooth)))
    if reduction == "sum":
        return loss
    if row_valid is None:
        return ops.binary("mul", loss, ctx.value(1.0 / rows, loss))
    return ops.binary("div", loss, ops.reduce("reduce_sum", row_valid,
                                              [0, 1]))


def _broadcast_operands(ctx, input, target, name):
    x = ctx.value(input)
    y = ctx.value(target, x)
    if not (x.is_float and y.is_float):
        raise ctx.unsupported("%s of %s and %s" % (name, x.type, y.type),
                              "input and target are float tensors")
    shape = tuple(torch.broadcast_shapes(x.shape, y.shape))
    return ctx.ops.broadcast(x, shape), ctx.ops.broadcast(y, shape)


@lowers(F.mse_loss)
def mse_loss(ctx, input, target, size_average=None, reduce=None,
             reduction="mean"):
    reduction = _reduction(ctx, "F.mse_loss", reduction, size_average, reduce)
    x, y = _broadcast_operands(ctx, input, target, "F.mse_loss")
    return ctx.ops.mse(x, y, reduction)


@lowers(F.l1_loss)
def l1_loss(ctx, input, target, size_average=None, reduce=None,
            reduction="mean"):
    reduction = _reduction(ctx, "F.l1_loss", reduction, size_average, reduce)
    x, y = _broadcast_operands(ctx, input, target, "F.l1_loss")
    return _reduce_all(ctx, ctx.ops.unary("abs", ctx.ops.binary("sub", x, y)),
                       reduction)


@lowers(F.binary_cross_entropy_with_logits)
def binary_cross_entropy_with_logits(ctx, input, target, weight=None,
                                     size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    name = "F.binary_cross_entropy_with_logits"
    reduction = _reduction(ctx, name, reduction, size_average, reduce)
    if weight is not None or pos_weight is not None:
        raise ctx.unsupported("%s with weight or pos_weight" % name)
    x, y = _broadcast_operands(ctx, input, target, name)
    # max(x, 0) - x * y + log(1 + exp(-|x|)): PyTorch's stable form.
    ops = ctx.ops
    softplus = ops.unary("log", ops.binary(
        "add", ctx.value(1.0, x),
        ops.unary("exp", ops.unary("neg", ops.unary("abs", x)))))
    loss = ops.binary("add", ops.binary("sub", ops.unary("relu", x),
                                        ops.binary("mul", x, y)), softplus)
    return _reduce_all(ctx, loss, reduction)

