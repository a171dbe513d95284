#!/usr/bin/python3
"""Generated stacks of pre-LN transformer blocks, as mixprec MLIR text.

Each block: layer norm, q/k/v linears, heads reshaped and transposed, the
scores batch_matmul, scale, softmax and dropout, the context batch_matmul, the
output linear and its dropout, the residual add, then layer norm, an MLP with
gelu, its dropout and the second residual add. Every weight is a parameter
read inside the function, initialized as PyTorch's nn.Linear and nn.LayerNorm
are.

`forward_module` is one function of blocks (bench_autocast.py);
`train_step_module` adds a final layer norm, a mean-squared-error loss against
a target and an AdamW train step (bench_compile.py and the compile-scaling
tests).

    /usr/bin/python3 bench/transformer_stack.py --blocks 12 > gpt12.mlir
"""
import argparse
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Sizes:
    batch: int = 4
    seq: int = 128
    width: int = 256
    heads: int = 4
    hidden: int = 1024

    def tensor(self, *dims):
        return "tensor<%sxf32>" % "x".join(str(d) for d in dims)

    @property
    def act(self):
        return self.tensor(self.batch, self.seq, self.width)


class _Writer:
    """Collects a function body's lines and the module's parameters."""

    def __init__(self):
        self.lines, self.params = [], []
        self.seed = 0

    def param(self, name, shape, init):
        self.params.append("  mixprec.parameter @%s : %s = %s"
                           % (name, shape, init))
        self.lines.append("    %%%s = mixprec.read @%s : %s"
                          % (name, name, shape))
        return "%" + name

    def linear_params(self, name, out_dim, in_dim, sizes, bias=True):
        """nn.Linear's initialization: kaiming_uniform(a = sqrt(5)) weights,
        U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases."""
        self.seed += 1
        weight = self.param(name + "_w", sizes.tensor(out_dim, in_dim),
                            "#mixprec.kaiming_uniform<a = %r, seed = %d>"
                            % (math.sqrt(5), self.seed))
        if not bias:
            return weight, None
        self.seed += 1
        bound = 1 / math.sqrt(in_dim)
        return weight, self.param(
            name + "_b", sizes.tensor(out_dim),
            "#mixprec.uniform<low = %r, high = %r, seed = %d>"
            % (-bound, bound, self.seed))

    def norm_params(self, name, sizes):
        vec = sizes.tensor(sizes.width)
        return (self.param(name + "_w", vec, "#mixprec.ones"),
                self.param(name + "_b", vec, "#mixprec.zeros"))

    def op(self, name, text):
        self.lines.append("    %%%s = %s" % (name, text))
        return "%" + name


def _block(i, x, sizes, w):
    """Appends block `i` reading `x`; returns its output's name."""
    s = sizes
    dh = s.width // s.heads
    act, vec = s.act, s.tensor(s.width)
    mat = s.tensor(s.width, s.width)
    split = s.tensor(s.batch, s.seq, s.heads, dh)
    heads_t = s.tensor(s.batch, s.heads, s.seq, dh)
    scores_t = s.tensor(s.batch, s.heads, s.seq, s.seq)
    mlp = s.tensor(s.batch, s.seq, s.hidden)

    def name(n):
        return "%s_%d" % (n, i)

    def layer_norm(n, value):
        g, b = w.norm_params(name(n), s)
        return w.op(name(n), "mixprec.layer_norm %s scale %s bias %s {axis = "
                    "2 : i64} : %s, %s, %s" % (value, g, b, act, vec, vec))

    def dropout(n, value, stream, type_):
        return w.op(name(n), "mixprec.dropout %s, %%rng {p = 0.1 : f64, "
                    "stream = %d : i64} : %s" % (value, stream, type_))

    h = layer_norm("ln1", x)
    heads = []
    for n in ("q", "k", "v"):
        weight, bias = w.linear_params(name(n), s.width, s.width, s)
        y = w.op(name(n), "mixprec.linear %s, %s, %s : %s, %s, %s -> %s"
                 % (h, weight, bias, act, mat, vec, act))
        r = w.op(name(n + "4"), "mixprec.reshape %s : %s -> %s"
                 % (y, act, split))
        heads.append(w.op(name(n + "h"), "mixprec.transpose %s {permutation "
                          "= array<i64: 0, 2, 1, 3>} : %s" % (r, split)))
    scores = w.op(name("s"), "mixprec.batch_matmul %s, %s {transpose_rhs} : "
                  "%s, %s -> %s" % (heads[0], heads[1], heads_t, heads_t,
                                    scores_t))
    c = w.op(name("c"), "mixprec.constant dense<%r> : tensor<f32>"
             % (1 / math.sqrt(dh)))
    cb = w.op(name("cb"), "mixprec.broadcast %s : tensor<f32> -> %s"
              % (c, scores_t))
    m = w.op(name("m"), "mixprec.mul %s, %s : %s, %s"
             % (scores, cb, scores_t, scores_t))
    p = w.op(name("p"), "mixprec.softmax %s {axis = 3 : i64} : %s"
             % (m, scores_t))
    pd = dropout("pd", p, 3 * i, scores_t)
    o = w.op(name("o"), "mixprec.batch_matmul %s, %s : %s, %s -> %s"
             % (pd, heads[2], scores_t, heads_t, heads_t))
    ot = w.op(name("ot"), "mixprec.transpose %s {permutation = array<i64: 0, "
              "2, 1, 3>} : %s" % (o, heads_t))
    om = w.op(name("om"), "mixprec.reshape %s : %s -> %s" % (ot, split, act))
    weight, bias = w.linear_params(name("out"), s.width, s.width, s)
    a = w.op(name("a"), "mixprec.linear %s, %s, %s : %s, %s, %s -> %s"
             % (om, weight, bias, act, mat, vec, act))
    ad = dropout("ad", a, 3 * i + 1, act)
    x1 = w.op(name("x1"), "mixprec.add %s, %s : %s, %s" % (x, ad, act, act))
    h2 = layer_norm("ln2", x1)
    up_w, up_b = w.linear_params(name("up"), s.hidden, s.width, s)
    up = w.op(name("up"), "mixprec.linear %s, %s, %s : %s, %s, %s -> %s"
              % (h2, up_w, up_b, act, s.tensor(s.hidden, s.width),
                 s.tensor(s.hidden), mlp))
    gelu = w.op(name("gelu"), "mixprec.gelu %s : %s" % (up, mlp))
    down_w, down_b = w.linear_params(name("down"), s.width, s.hidden, s)
    down = w.op(name("down"), "mixprec.linear %s, %s, %s : %s, %s, %s -> %s"
                % (gelu, down_w, down_b, mlp, s.tensor(s.width, s.hidden),
                   vec, act))
    dd = dropout("dd", down, 3 * i + 2, act)
    return w.op(name("x2"), "mixprec.add %s, %s : %s, %s" % (x1, dd, act, act))


def _blocks(blocks, sizes, w):
    w.lines.append("    %rng = mixprec.rng_state")
    x = "%x"
    for i in range(blocks):
        x = _block(i, x, sizes, w)
    return x


def forward_module(blocks, sizes=Sizes()):
    """`@forward(%x) -> activations` over `blocks` blocks; returns (text,
    number of ops in the function)."""
    w = _Writer()
    x = _blocks(blocks, sizes, w)
    text = "\n".join(
        ["module {"] + w.params +
        ["  func.func @forward(%%x: %s) -> %s {" % (sizes.act, sizes.act)] +
        w.lines + ["    return %s : %s" % (x, sizes.act), "  }", "}", ""])
    return text, len(w.lines) + 1


def train_step_module(blocks, sizes=Sizes()):
    """`@loss(%x, %target)`: the blocks, a final layer norm and the mean
    squared error against `%target`; `@train` is its AdamW train step."""
    w = _Writer()
    x = _blocks(blocks, sizes, w)
    g, b = w.norm_params("ln_f", sizes)
    vec = sizes.tensor(sizes.width)
    h = w.op("hf", "mixprec.layer_norm %s scale %s bias %s {axis = 2 : i64} "
             ": %s, %s, %s" % (x, g, b, sizes.act, vec, vec))
    loss = w.op("loss", "mixprec.mse %s, %%target : %s, %s"
                % (h, sizes.act, sizes.act))
    return "\n".join(
        ["module {"] + w.params +
        ["  func.func @loss(%%x: %s, %%target: %s) -> tensor<f32> {"
         % (sizes.act, sizes.act)] + w.lines +
        ["    return %s : tensor<f32>" % loss, "  }",
         "  mixprec.train_step @train forward @loss optimizer "
         "#mixprec.adamw<beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, "
         "weight_decay = 0.01>", "}", ""])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=1)
    defaults = Sizes()
    for field in ("batch", "seq", "width", "heads", "hidden"):
        parser.add_argument("--" + field, type=int,
                            default=getattr(defaults, field))
    parser.add_argument("--forward-only", action="store_true",
                        help="one forward function, no loss or train step")
    args = parser.parse_args()
    if args.blocks < 1 or args.width % args.heads:
        parser.error("need --blocks >= 1 and --heads dividing --width")
    sizes = Sizes(args.batch, args.seq, args.width, args.heads, args.hidden)
    if args.forward_only:
        print(forward_module(args.blocks, sizes)[0], end="")
    else:
        print(train_step_module(args.blocks, sizes), end="")


if __name__ == "__main__":
    main()
