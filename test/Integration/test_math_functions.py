"""The CPU's f32 exp and erf (--mixprec-expand-math: arithmetic that
vectorizes, not libm's expf and erff) against double-precision references:
within the ulps its pass description states, the special values exact, and
the same bits for an element in a vector lane or in a loop's remainder.
Every f32 input is checked by the `long` tests (-m long)."""
import math

import numpy as np
import pytest
import torch

import mixprec

# Every 4099th f32 bit pattern (all signs and exponents, mantissas spread),
# with the values where the implementations switch formulas or saturate.
SWEEP = np.arange(0, 2 ** 32, 4099, dtype=np.uint64).astype(
    np.uint32).view(np.float32)
EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72283935546875,
                  88.7228, 88.72284, -87.33654, -103.97283935546875,
                  -103.97284, -103.9728, 0.921875, -0.921875, 0.92187506,
                  3.921875, -3.921875, 3.9218748, 1e-30, -1e-30, 1e-45,
                  0.5 * math.log(2), -0.5 * math.log(2)], dtype=np.float32)
INPUTS = np.concatenate([SWEEP, EDGES])

FUNCTIONS = {
    # name: (linalg body op, double reference, ulp bound of Passes.td)
    "exp": ("math.exp", torch.exp, 0.98),
    "erf": ("math.erf", torch.erf, 1.33),
}


def elementwise_module(op, size):
    t = "tensor<%dxf32>" % size
    return """
#id = affine_map<(d0) -> (d0)>
func.func @f(%x: {t}) -> {t} {{
  %e = tensor.empty() : {t}
  %y = linalg.generic {{indexing_maps = [#id, #id],
                       iterator_types = ["parallel"]}}
      ins(%x : {t}) outs(%e : {t}) {{
    ^bb0(%a: f32, %o: f32):
      %r = {op} %a : f32
      linalg.yield %r : f32
  }} -> {t}
  return %y : {t}
}}""".format(t=t, op=op)


def evaluate(op, inputs):
    library = mixprec.compile_source(elementwise_module(op, inputs.size))
    (out,) = library.call("f", [inputs])
    return out


def ulp_errors(actual, exact):
    """|actual - exact| in ulps of exact rounded to f32 (2^-149 below the
    normal range); 0 where both are the same infinity or both NaN."""
    rounded = exact.astype(np.float32)
    magnitude = np.abs(rounded).astype(np.float64)
    exponent = np.frexp(np.maximum(magnitude, 2.0 ** -126))[1]
    ulp = np.ldexp(1.0, exponent - 24)
    with np.errstate(invalid="ignore"):
        errors = np.abs(actual.astype(np.float64) - exact) / ulp
    same = (np.isnan(actual) & np.isnan(exact)) | (
        np.isinf(rounded) & (actual == rounded))
    return np.where(same, 0.0, errors)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_within_stated_ulps(name):
    op, reference, bound = FUNCTIONS[name]
    actual = evaluate(op, INPUTS)
    with np.errstate(over="ignore", invalid="ignore"):
        exact = reference(torch.from_numpy(INPUTS.astype(np.float64))).numpy()
        errors = ulp_errors(actual, exact)
    worst = int(np.nanargmax(errors))
    assert errors[worst] <= bound, (
        "%s(%r) = %r, exact %r: %.3f ulp" % (
            name, INPUTS[worst], actual[worst], exact[worst], errors[worst]))
    assert np.array_equal(np.isnan(actual), np.isnan(INPUTS))


# 2^32 inputs in chunks of 2^26 through one library; -m long (minutes).
CHUNK = 2 ** 26


@pytest.mark.long
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_f32_within_stated_ulps(name):
    op, reference, bound = FUNCTIONS[name]
    library = mixprec.compile_source(elementwise_module(op, CHUNK))
    out = np.empty(CHUNK, np.float32)
    worst, worst_input = 0.0, None
    for start in range(0, 2 ** 32, CHUNK):
        inputs = np.arange(start, start + CHUNK, dtype=np.uint64).astype(
            np.uint32).view(np.float32)
        library.call("f", [inputs], [out])
        with np.errstate(over="ignore", invalid="ignore"):
            exact = reference(torch.from_numpy(
                inputs.astype(np.float64))).numpy()
            errors = ulp_errors(out, exact)
        assert np.array_equal(np.isnan(out), np.isnan(inputs))
        at = int(np.nanargmax(errors))
        if errors[at] > worst:
            worst, worst_input = errors[at], inputs[at]
    assert worst <= bound, "%s: %.3f ulp at %r" % (name, worst, worst_input)


def test_special_values():
    specials = np.array([np.inf, -np.inf, 0.0, -0.0, 89.0, -104.0],
                        dtype=np.float32)
    exp = evaluate("math.exp", specials)
    assert exp.tolist() == [np.inf, 0.0, 1.0, 1.0, np.inf, 0.0]
    erf = evaluate("math.erf", specials)
    assert erf.tolist() == [1.0, -1.0, 0.0, -0.0, 1.0, -1.0]
    assert np.signbit(erf[3]) and not np.signbit(erf[2])
    # The smallest subnormal result, and the largest finite one.
    tiny = evaluate("math.exp", np.array([-103.9], dtype=np.float32))
    assert tiny[0] == np.float32(2.0 ** -149)
    huge = evaluate("math.exp", np.array([88.7228], dtype=np.float32))
    assert huge[0] == np.float32(math.exp(np.float64(np.float32(88.7228))))


@pytest.mark.parametrize("op", ["math.exp", "math.erf"])
def test_same_bits_in_lanes_and_remainder(op):
    # 37 elements: two 16-lane vectors and a remainder of 5. Rotating the
    # input moves every value between lanes and the remainder.
    values = np.random.default_rng(0).normal(0, 4, 37).astype(np.float32)
    first = evaluate(op, values)
    for shift in (1, 5, 16):
        rotated = evaluate(op, np.roll(values, shift))
        assert np.array_equal(np.roll(first, shift).view(np.uint32),
                              rotated.view(np.uint32))
