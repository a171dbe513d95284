"""--mixprec-autocast inserts the fewest casts possible: checked against a
brute-force search on many small random graphs.

Each graph is one function over tensor<4x4xf32>/tensor<4x4xf16> values (all
square, so every op fits every value): 1-3 arguments of random type, 4-10
ops drawn from every autocast category, and a return of 1-2 values. With
precision=f16 ("low" = f16, "high" = f32) the rules are
(include/mixprec/Transforms/Passes.td, lib/Transforms/Autocast.cpp):

- arguments keep their types, and `func.return` gets the function's
  declared result types (a cast is inserted where a value has another);
- tensor_core (matmul): both operands f16; its result may be f16 or f32,
  at no cost;
- fp32 (softmax, exp): operands f32, result f32;
- promote (add, mul): the op runs f16 only if every input is f16 (no input
  is cast down for it), otherwise f32 and f16 inputs are cast up;
- follow (relu, tanh, transpose): the op runs f16 or f32, its input is cast
  to that if needed;
- a cast costs one per (value, target type), shared by all its users.

`brute_force_minimum` enumerates every choice (the precision of each
follow/promote op, the result type of each matmul), drops the ones that
break the promote rule and counts the distinct (value, wanted type) pairs
where the value has another type. For every graph the pass's output must
verify, must not change under a second run of the pass (byte-identical
text), must obey the rules (`rule_violations`) and must hold exactly that
many casts (ops whose rule attribute is `mixprec.autocast = "cast: ..."`).

All graphs go into one file (`// -----`, -split-input-file), so
mixprec-opt starts three times in all (verify the inputs, autocast,
autocast again); a graph the pass rejects is then run alone for its
diagnostics. A failure message holds the graph's input IR, the output and
the brute-force optimum.
"""
import dataclasses
import functools
import itertools
import random
import re
import subprocess

import pytest

from mixprec import tool_path

SEEDS = range(200)
TIMEOUT = 120

LOW, HIGH = "f16", "f32"
TENSOR = "tensor<4x4x%s>"

TENSOR_CORE = {"matmul"}
FP32 = {"softmax", "exp"}
PROMOTE = {"add", "mul"}
FOLLOW = {"relu", "tanh", "transpose"}
# matmul twice: tensor-core ops are what make 16-bit values worth having.
KINDS = ["matmul", "matmul", "softmax", "exp", "add", "mul", "relu", "tanh",
         "transpose"]

CAST_LINE = 'autocast = "cast:'


@dataclasses.dataclass
class Op:
    kind: str
    operands: list  # value indices
    result: int  # value index
    result_type: str  # element type in the input IR


@dataclasses.dataclass
class Graph:
    """A function: values 0..len(arg_types)-1 are its arguments, every op
    defines the next value; `types[v]` is value v's type in the input IR."""
    name: str
    arg_types: list
    ops: list
    returns: list  # value indices
    types: list

    def text(self):
        """The function's MLIR (input types only, no casts)."""
        def t(value):
            return TENSOR % self.types[value]

        args = ", ".join("%%v%d: %s" % (i, TENSOR % ty)
                         for i, ty in enumerate(self.arg_types))
        result_types = ", ".join(t(v) for v in self.returns)
        lines = ["func.func @%s(%s) -> (%s) {" % (self.name, args,
                                                  result_types)]
        for op in self.ops:
            a = op.operands
            if op.kind == "matmul":
                body = "mixprec.matmul %%v%d, %%v%d : %s, %s -> %s" % (
                    a[0], a[1], t(a[0]), t(a[1]), TENSOR % op.result_type)
            elif op.kind in PROMOTE:
                body = "mixprec.%s %%v%d, %%v%d : %s, %s" % (
                    op.kind, a[0], a[1], t(a[0]), t(a[1]))
            else:
                attribute = {"softmax": " {axis = 1 : i64}",
                             "transpose":
                                 " {permutation = array<i64: 1, 0>}"}.get(
                                     op.kind, "")
                body = "mixprec.%s %%v%d%s : %s" % (op.kind, a[0], attribute,
                                                    t(a[0]))
            lines.append("  %%v%d = %s" % (op.result, body))
        lines.append("  return %s : %s" % (
            ", ".join("%%v%d" % v for v in self.returns), result_types))
        lines.append("}")
        return "\n".join(lines) + "\n"


def random_graph(seed):
    """A random DAG whose input IR verifies: values are f32 except f16
    arguments and what is computed from f16 values only."""
    rng = random.Random(seed)
    arg_types = [rng.choice([LOW, HIGH]) for _ in range(rng.randint(1, 3))]
    types = list(arg_types)
    ops = []
    for _ in range(rng.randint(4, 10)):
        kind = rng.choice(KINDS)
        first = rng.randrange(len(types))
        if kind == "matmul":
            # Both operands of one element type; f16 ones may yield either.
            second = rng.choice([v for v in range(len(types))
                                 if types[v] == types[first]])
            operands = [first, second]
            result_type = (HIGH if types[first] == HIGH
                           else rng.choice([LOW, HIGH]))
        elif kind in PROMOTE:
            operands = [first, rng.randrange(len(types))]
            result_type = (LOW if all(types[v] == LOW for v in operands)
                           else HIGH)
        else:
            operands = [first]
            result_type = types[first]
        ops.append(Op(kind, operands, len(types), result_type))
        types.append(result_type)
    returns = [rng.randrange(len(types)) for _ in range(rng.randint(1, 2))]
    return Graph("g%d" % seed, arg_types, ops, returns, types)


def casts_needed(graph, value_type):
    """The casts of an assignment (`value_type[v]`: value v's type after
    autocast): the distinct (value, type) pairs some use wants and the
    value does not have."""
    wanted = set()
    for op in graph.ops:
        if op.kind in TENSOR_CORE:
            need = LOW
        elif op.kind in FP32:
            need = HIGH
        else:
            need = value_type[op.result]
        wanted.update((v, need) for v in op.operands)
    wanted.update((v, graph.types[v]) for v in graph.returns)
    return sum(1 for v, need in wanted if value_type[v] != need)


def brute_force_minimum(graph):
    """The fewest casts of any legal precision assignment of `graph`."""
    free = [op for op in graph.ops
            if op.kind in TENSOR_CORE | PROMOTE | FOLLOW]
    best = None
    for choice in itertools.product([LOW, HIGH], repeat=len(free)):
        chosen = {op.result: precision for op, precision in zip(free, choice)}
        value_type = list(graph.arg_types)
        for op in graph.ops:
            value_type.append(HIGH if op.kind in FP32 else chosen[op.result])
        # A promote op is 16-bit only if all its inputs are.
        if any(op.kind in PROMOTE and value_type[op.result] == LOW and
               any(value_type[v] == HIGH for v in op.operands)
               for op in graph.ops):
            continue
        casts = casts_needed(graph, value_type)
        best = casts if best is None else min(best, casts)
    return best


def greedy_casts(graph):
    """The casts of a legal but naive assignment (matmuls yield f16, follow
    ops take their input's type, promote ops are f16 when their inputs
    are): what a pass painting forward without a global search would
    insert. Only used to show that the graphs tell it from the optimum."""
    value_type = list(graph.arg_types)
    for op in graph.ops:
        inputs = [value_type[v] for v in op.operands]
        if op.kind in FP32:
            value_type.append(HIGH)
        elif op.kind in TENSOR_CORE or all(t == LOW for t in inputs):
            value_type.append(LOW)
        else:
            value_type.append(HIGH)
    return casts_needed(graph, value_type)


def mixprec_opt(text, *args):
    return subprocess.run([tool_path("mixprec-opt"), "-", *args],
                          input=text, capture_output=True, text=True,
                          timeout=TIMEOUT)


def functions_of(module_text):
    """The printed func.func ops of a module, by name."""
    functions = {}
    for chunk in re.split(r"(?m)^(?=  func\.func )", module_text)[1:]:
        name = re.match(r"  func\.func @(\w+)\(", chunk).group(1)
        functions[name] = chunk.split("\n  }\n")[0] + "\n  }\n"
    return functions


def count_casts(function_text):
    return sum(CAST_LINE in line for line in function_text.splitlines())


# `%r = mixprec.kind operands {attributes} : types`, attributes optional.
OP_LINE = re.compile(r"^ *(%\w+) = mixprec\.(\w+) ([^{:]*?) *(\{[^}]*\} )?: "
                     r"(.*)$")


def rule_violations(graph, function_text):
    """How the printed function breaks the rules of the module docstring
    (so that a count equal to the minimum is one of a legal assignment)."""
    def elements(types):
        return re.findall(r"x(f16|f32)>", types)

    lines = function_text.splitlines()
    problems = []
    signature = re.match(r" *func\.func @\w+\((.*)\) -> (.*) \{$", lines[0])
    if (elements(signature.group(1)) != graph.arg_types or
            elements(signature.group(2)) !=
            [graph.types[v] for v in graph.returns]):
        problems.append("signature changed: " + lines[0].strip())
    casts_down = set()
    compute_ops = 0
    for line in lines[1:]:
        match = OP_LINE.match(line)
        if not match:
            continue
        name, kind, operands, _, types = match.groups()
        types = elements(types)
        if kind == "cast":
            if types[1] == LOW:
                casts_down.add(name)
            continue
        compute_ops += 1
        if kind in TENSOR_CORE and types[:2] != [LOW, LOW]:
            problems.append("matmul operands not f16: " + line.strip())
        elif kind in FP32 and types != [HIGH]:
            problems.append("fp32 op not f32: " + line.strip())
        elif kind in PROMOTE | FOLLOW and len(set(types)) != 1:
            problems.append("mixed operand types: " + line.strip())
        elif kind in PROMOTE and types[0] == LOW and any(
                operand in casts_down
                for operand in re.findall(r"%\w+", operands)):
            problems.append("input cast down for a promote op: " +
                            line.strip())
    if compute_ops != len(graph.ops):
        problems.append("%d compute ops, expected %d" % (compute_ops,
                                                         len(graph.ops)))
    return problems


@dataclasses.dataclass
class Outcome:
    """What mixprec-opt did with one function (or with the whole batch)."""
    verify: subprocess.CompletedProcess  # no pass: does the input verify?
    first: subprocess.CompletedProcess  # --mixprec-autocast
    second: subprocess.CompletedProcess  # --mixprec-autocast on its output


def autocast_twice(text, *options):
    verify = mixprec_opt(text, *options)
    first = mixprec_opt(text, *options, "--mixprec-autocast")
    second = mixprec_opt(first.stdout, *options, "--mixprec-autocast")
    return Outcome(verify, first, second)


@functools.lru_cache(maxsize=None)
def graphs():
    return {seed: random_graph(seed) for seed in SEEDS}


@functools.lru_cache(maxsize=None)
def batch():
    """All graphs in one file, one function per split: a function the pass
    rejects is missing from the output, the others are still there."""
    return autocast_twice("// -----\n".join(g.text()
                                             for g in graphs().values()),
                          "-split-input-file")


def outcome(graph):
    """The printed function after one and after two runs of the pass: from
    the batch, or, where the batch has no output for it, from running the
    graph alone to report why."""
    run = batch()
    firsts = functions_of(run.first.stdout)
    seconds = functions_of(run.second.stdout)
    if graph.name in firsts and graph.name in seconds:
        return firsts[graph.name], seconds[graph.name]
    alone = autocast_twice(graph.text())
    assert alone.verify.returncode == 0, (
        "generated input does not verify:\n%s\n%s" %
        (graph.text(), alone.verify.stderr))
    assert alone.first.returncode == 0, (
        "--mixprec-autocast failed on\n%s\n%s" %
        (graph.text(), alone.first.stderr))
    assert alone.second.returncode == 0, (
        "--mixprec-autocast failed on its own output\n%s\n%s" %
        (alone.first.stdout, alone.second.stderr))
    return (functions_of(alone.first.stdout)[graph.name],
            functions_of(alone.second.stdout)[graph.name])


@pytest.mark.parametrize("seed", SEEDS)
def test_fewest_casts_and_idempotent(seed):
    graph = graphs()[seed]
    first, second = outcome(graph)
    assert second == first, (
        "a second --mixprec-autocast changed the IR of\n%s\nfirst:\n%s\n"
        "second:\n%s" % (graph.text(), first, second))
    assert not rule_violations(graph, first), (
        "--mixprec-autocast broke the rules on\n%s\noutput:\n%s\n%s" %
        (graph.text(), first, "\n".join(rule_violations(graph, first))))
    minimum = brute_force_minimum(graph)
    assert count_casts(first) == minimum, (
        "--mixprec-autocast inserted %d casts, the minimum is %d, on\n%s\n"
        "output:\n%s" % (count_casts(first), minimum, graph.text(), first))


def test_batch_is_byte_identical_after_a_second_run():
    """Every input verifies and the whole output, split markers included,
    comes back unchanged from a second run."""
    run = batch()
    assert run.verify.returncode == 0, run.verify.stderr
    assert run.first.returncode == 0, run.first.stderr
    assert run.second.returncode == 0, run.second.stderr
    assert run.second.stdout == run.first.stdout


def test_graphs_tell_a_suboptimal_pass():
    """The graphs use every op, need from 0 to 3+ casts, and a naive
    forward painting would insert more casts than needed on many of them,
    so a suboptimal pass fails the test above."""
    kinds = {op.kind for g in graphs().values() for op in g.ops}
    assert kinds == set(KINDS)
    minima = [brute_force_minimum(g) for g in graphs().values()]
    assert {0, 1, 2} <= set(minima) and max(minima) >= 3
    greedy = [greedy_casts(g) for g in graphs().values()]
    # A legal assignment never beats the minimum ...
    assert all(g >= minimum for g, minimum in zip(greedy, minima))
    # ... and the naive one often loses to it.
    worse = sum(g > minimum for g, minimum in zip(greedy, minima))
    assert worse >= len(SEEDS) // 5


def hand_graph(arg_types, ops, returns):
    """A Graph from (kind, operands, result type) triples."""
    types = list(arg_types)
    graph_ops = []
    for kind, operands, result_type in ops:
        graph_ops.append(Op(kind, operands, len(types), result_type))
        types.append(result_type)
    return Graph("hand", list(arg_types), graph_ops, returns, types)


# Graphs whose minimum is known by hand: (graph, minimum).
HAND_CASES = {
    # matmul -> softmax -> matmul with f16 q, k, v: the first matmul yields
    # f32, the softmax result is cast down once.
    "attention": (hand_graph([LOW, LOW, LOW],
                             [("matmul", [0, 1], LOW),
                              ("softmax", [3], LOW),
                              ("matmul", [4, 2], LOW)], [5]), 1),
    # An f32 x used by two matmuls: one shared cast down.
    "shared_cast": (hand_graph([HIGH],
                               [("matmul", [0, 0], HIGH),
                                ("matmul", [0, 1], HIGH)], [2]), 1),
    # f32 x -> matmul -> exp -> matmul -> f32: x and the exp result are
    # cast down; both matmuls yield f32.
    "exp_between_matmuls": (hand_graph([HIGH],
                                       [("matmul", [0, 0], HIGH),
                                        ("exp", [1], HIGH),
                                        ("matmul", [2, 2], HIGH)], [3]), 2),
    # add of an f32 and an f16 argument must run f32: the f16 one is cast
    # up, and the result cast back down for the matmul.
    "promote_cannot_go_low": (hand_graph([HIGH, LOW],
                                         [("add", [0, 1], HIGH),
                                          ("matmul", [2, 2], HIGH)], [3]), 2),
    # relu of an f32 argument, returned and fed to a matmul: the relu stays
    # f32 (a 16-bit relu would need a cast of its input and one for the
    # return) and its result is cast down once.
    "follow_stays_f32": (hand_graph([HIGH],
                                    [("relu", [0], HIGH),
                                     ("matmul", [1, 1], HIGH)], [1, 2]), 1),
    # No tensor-core op: everything stays f32 but the f16 argument, cast up
    # once for the (promoting) mul.
    "no_tensor_core": (hand_graph([HIGH, LOW],
                                  [("exp", [0], HIGH), ("tanh", [2], HIGH),
                                   ("mul", [3, 1], HIGH)], [4]), 1),
}


@pytest.mark.parametrize("name", sorted(HAND_CASES))
def test_hand_written_minima(name):
    """The brute force agrees with minima worked out by hand, and so does
    the pass: a sanity check of the reference itself."""
    graph, minimum = HAND_CASES[name]
    assert brute_force_minimum(graph) == minimum
    run = autocast_twice(graph.text())
    assert run.verify.returncode == 0, run.verify.stderr
    assert run.first.returncode == 0, run.first.stderr
    output = functions_of(run.first.stdout)["hand"]
    assert not rule_violations(graph, output)
    assert count_casts(output) == minimum
