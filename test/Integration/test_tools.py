"""The command-line tools and what they produce.

mixprec-compile on the example models: the library needs nothing but libc,
libm and libgcc (no MLIR, LLVM or C++ runtime), exports the C ABI and comes
with a header a C program can use. mixprec-run: --list, a run checked
against numpy, and every error it reports. mixprec-compile's errors. The
Python API's error for a wrongly shaped argument.
"""
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import abi_header
import mixprec
from subprocess_env import python_env

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ["mlp", "cnn", "transformer"]
TIMEOUT = 600

# The C ABI every model exports, as mixprec/Runtime/mixprec.h lists it.
ABI_FUNCTIONS = abi_header.exported_names()

# Shared libraries a model may need.
ALLOWED_NEEDED = re.compile(
    r"^(libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|ld-linux[-\w.]*\.so\.\d+)$")
# Undefined symbols a model may have: versioned by glibc (GLIBC_2.x, not
# GLIBCXX_ or CXXABI_) or by libgcc_s (GCC_x), ...
ALLOWED_VERSION = re.compile(r"^(GLIBC_\d[\d.]*|GCC_\d[\d.]*)$")
# ... libgcc's helpers (soft-float conversions, 128-bit arithmetic), which
# may stay unversioned ...
LIBGCC_NAMES = {
    "__extendhfsf2", "__truncsfhf2", "__truncdfhf2", "__extendbfsf2",
    "__truncsfbf2", "__truncdfbf2", "__gnu_h2f_ieee", "__gnu_f2h_ieee",
    "__divti3", "__udivti3", "__modti3", "__umodti3", "__muloti4",
    "__popcountdi2", "__clzdi2", "__ctzdi2", "__powisf2", "__powidf2",
    "__mulsc3", "__divsc3",
}
# ... and the weak references every shared object gets from the C runtime's
# start files.
CRT_WEAK_NAMES = {"_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable",
                  "__gmon_start__", "__cxa_finalize"}


def tool(name):
    return mixprec.tool_path(name)


def run(*args, env=None, cwd=None):
    """Runs a command; returns the completed process (never raises on a
    non-zero exit)."""
    return subprocess.run([str(a) for a in args], capture_output=True,
                          text=True, timeout=TIMEOUT, env=env, cwd=cwd)


def compile_model(source, output, *options):
    return run(tool("mixprec-compile"), source, "-o", output, *options)


def public_functions(text):
    """The names of the public func.func ops of MLIR text."""
    return [m.group(2) for m in re.finditer(
        r"^\s*func\.func\s+(private\s+)?@(\w+)", text, re.M)
        if not m.group(1)]


def state_declarations(text):
    """{name: (dtype, shape)} of the parameters and buffers of MLIR text."""
    state = {}
    for m in re.finditer(r"mixprec\.(parameter|buffer)\s+@(\w+)\s*:\s*"
                         r"tensor<([\dx]*?)x?(f32|f16|bf16|i32|i64)>", text):
        shape = tuple(int(s) for s in m.group(3).split("x") if s)
        state[m.group(2)] = (m.group(4), shape)
    return state


#: "loss(x: f32[64, 64], labels: i32[64]) -> (result0: f32[])"
LIST_LINE = re.compile(r"^(\w+)\((.*)\) -> \((.*)\)$")
SPEC = re.compile(r"^([^:]+): (f32|f16|bf16|i32|i64|bool)\[([\d, ]*)\]$")


def parse_specs(text):
    specs = []
    for part in re.split(r", (?=[^\d])", text) if text else []:
        m = SPEC.match(part)
        assert m, "malformed spec %r" % part
        shape = tuple(int(s) for s in m.group(3).split(",") if s.strip())
        specs.append((m.group(1), m.group(2), shape))
    return specs


def parse_list(stdout):
    """mixprec-run --list output as {function: (inputs, outputs)}, each a
    list of (name, dtype, shape)."""
    functions = {}
    for line in stdout.splitlines():
        m = LIST_LINE.match(line)
        assert m, "malformed --list line %r" % line
        functions[m.group(1)] = (parse_specs(m.group(2)),
                                 parse_specs(m.group(3)))
    return functions


# ---------------------------------------------------------------------------
# The example models, compiled once (concurrently) for the whole session
# ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def compiled_examples(tmp_path_factory):
    """{model: (library, process)} of every example, compiled as it is."""
    directory = tmp_path_factory.mktemp("examples")

    def build(model):
        library = directory / ("lib%s.so" % model)
        return model, (library, compile_model(
            ROOT / "examples" / ("%s.mlir" % model), library))

    with concurrent.futures.ThreadPoolExecutor(len(EXAMPLES)) as pool:
        return dict(pool.map(build, EXAMPLES))


@pytest.fixture(params=EXAMPLES)
def example(request, compiled_examples):
    """(model name, its MLIR text, its compiled library)."""
    library, proc = compiled_examples[request.param]
    assert proc.returncode == 0, proc.stderr
    assert library.exists()
    text = (ROOT / "examples" / ("%s.mlir" % request.param)).read_text()
    return request.param, text, library


@pytest.fixture(scope="session")
def mlp_library(compiled_examples):
    library, proc = compiled_examples["mlp"]
    assert proc.returncode == 0, proc.stderr
    return library


# ---------------------------------------------------------------------------
# The compiled libraries: dependencies, exports, header
# ---------------------------------------------------------------------------

def foreign_needed(library):
    """The NEEDED entries of `library` beyond libc, libm, libgcc_s and the
    dynamic loader, and its RPATH/RUNPATH entries."""
    proc = run("readelf", "-d", "-W", library)
    assert proc.returncode == 0, proc.stderr
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                        proc.stdout)
    assert needed, "no NEEDED entries found in:\n" + proc.stdout
    # Found wherever it is copied: no search path into a build tree.
    paths = re.findall(r"\((?:RPATH|RUNPATH)\)\s+.*\[([^\]]*)\]", proc.stdout)
    return [lib for lib in needed if not ALLOWED_NEEDED.match(lib)] + paths


def foreign_undefined_symbols(library):
    """The undefined dynamic symbols of `library` that neither glibc nor
    libgcc provides, as "kind name@version"."""
    proc = run("nm", "-D", "--undefined-only", library)
    assert proc.returncode == 0, proc.stderr
    foreign = []
    for line in proc.stdout.splitlines():
        m = re.match(r"^\s*([A-Za-z])\s+([^@\s]+)(?:@+(\S+))?$", line)
        assert m, "unexpected nm line %r" % line
        kind, symbol, version = m.groups()
        if version is not None and ALLOWED_VERSION.match(version):
            continue
        if version is None and symbol in LIBGCC_NAMES:
            continue
        if version is None and kind in "wv" and symbol in CRT_WEAK_NAMES:
            continue
        foreign.append("%s %s%s" % (kind, symbol,
                                    "@" + version if version else ""))
    return foreign


def test_example_needs_only_libc_libm_libgcc(example):
    name, _, library = example
    foreign = foreign_needed(library)
    assert not foreign, "%s needs %s" % (name, foreign)


def test_example_has_no_foreign_undefined_symbols(example):
    name, _, library = example
    foreign = foreign_undefined_symbols(library)
    assert not foreign, "%s: undefined symbols outside libc/libm/libgcc: %s" % (
        name, foreign)
    # It does use libc, through versioned symbols the check accepts.
    proc = run("nm", "-D", "--undefined-only", library)
    assert re.search(r"\bmalloc@GLIBC_", proc.stdout), proc.stdout


def test_dependency_checks_reject_what_a_model_must_not_need(tmp_path):
    # The two checks above, on a library that uses the C++ runtime and
    # leaves an MLIR runtime function undefined.
    source = tmp_path / "bad.cpp"
    source.write_text("""
#include <string>
extern "C" void *_mlir_memref_to_llvm_alloc(unsigned long);
extern "C" unsigned long bad(const char *text) {
  _mlir_memref_to_llvm_alloc(8);
  return std::string(text).size();
}
""")
    library = tmp_path / "libbad.so"
    proc = run("c++", "-shared", "-fPIC", "-O0", source, "-o", library,
               "-Wl,-rpath,/usr/lib/llvm-22/lib")
    assert proc.returncode == 0, proc.stderr
    needed = foreign_needed(library)
    assert "libstdc++.so.6" in needed and "/usr/lib/llvm-22/lib" in needed
    symbols = foreign_undefined_symbols(library)
    assert "U _mlir_memref_to_llvm_alloc" in symbols, symbols
    assert any("@GLIBCXX_" in s for s in symbols), symbols


def test_example_exports_the_abi(example):
    name, _, library = example
    proc = run("nm", "-D", "--defined-only", library)
    assert proc.returncode == 0, proc.stderr
    exported = {m.group(2) for m in re.finditer(
        r"^\s*[0-9a-f]+ ([A-Za-z]) (\w+)", proc.stdout, re.M)
        if m.group(1) in "TW"}
    # Exactly the ABI (a CPU model's mixprec_device_memory is the runtime's
    # weak one): the runtime's internal helpers stay hidden.
    assert sorted(f for f in exported if f.startswith("mixprec_")) == \
        sorted(ABI_FUNCTIONS), name


def test_example_header_declares_each_function(example, tmp_path):
    name, text, library = example
    header = library.with_suffix(".h")
    assert header.exists(), "no header beside %s" % library
    source = header.read_text()
    assert '#include "mixprec/Runtime/mixprec.h"' in source
    listed = parse_list(run(tool("mixprec-run"), library, "--list").stdout)
    functions = public_functions(text)
    assert functions
    for function in functions:
        inputs, outputs = listed[function]
        m = re.search(r"static inline mixprec_status mixprec_%s\("
                      r"const mixprec_tensor \*inputs, "
                      r"const mixprec_tensor \*outputs\) \{\n"
                      r"  return mixprec_call\(\"%s\", inputs, (\d+), "
                      r"outputs, (\d+)\);" % (function, function), source)
        assert m, "%s.h does not declare mixprec_%s:\n%s" % (
            name, function, source)
        assert (int(m.group(1)), int(m.group(2))) == (len(inputs),
                                                      len(outputs))

    # A C program (not C++) includes the header, links the library and
    # calls through it: a call with null tensor arrays is rejected.
    program = tmp_path / "main.c"
    program.write_text("""
#include "%s"
#include <stdio.h>
int main(void) {
  int32_t count = -1;
  if (mixprec_abi_version() != MIXPREC_API_VERSION) return 2;
  mixprec_status status = mixprec_%s(0, 0);
  if (mixprec_num_functions(&count) != MIXPREC_OK) return 3;
  printf("%%d %%d %%s\\n", (int)count, (int)status, mixprec_last_error());
  return 0;
}
""" % (header, functions[0]))
    executable = tmp_path / "main"
    proc = run("cc", "-std=c99", "-Wall", "-Werror", "-I", ROOT / "include",
               program, library, "-Wl,-rpath," + str(library.parent), "-o",
               executable)
    assert proc.returncode == 0, proc.stderr
    proc = run(executable)
    assert proc.returncode == 0, proc.stderr
    count, status, message = proc.stdout.strip().split(" ", 2)
    assert int(count) == len(functions)
    assert int(status) == 1  # MIXPREC_INVALID_ARGUMENT
    assert functions[0] in message and "null" in message, message


# ---------------------------------------------------------------------------
# mixprec-run --list
# ---------------------------------------------------------------------------

def test_list_shows_every_function_with_state_as_arguments(example):
    name, text, library = example
    proc = run(tool("mixprec-run"), library, "--list")
    assert proc.returncode == 0, proc.stderr
    functions = parse_list(proc.stdout)
    assert sorted(functions) == sorted(public_functions(text))
    state = state_declarations(text)
    assert state, "no parameters found in examples/%s.mlir" % name
    for function, (inputs, outputs) in functions.items():
        assert outputs, "%s has no outputs" % function
        by_name = {spec[0]: spec for spec in inputs}
        assert len(by_name) == len(inputs), "duplicate names: %s" % inputs
        for state_name, (dtype, shape) in state.items():
            assert by_name.get(state_name) == (state_name, dtype, shape), (
                "%s: state @%s is not an argument %s: %s" % (
                    function, state_name, (dtype, shape), inputs))


def test_list_of_mlp(mlp_library):
    proc = run(tool("mixprec-run"), mlp_library, "--list")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "loss(fc1_weight: f32[128, 64], fc1_bias: f32[128], "
        "fc2_weight: f32[10, 128], fc2_bias: f32[10], x: f32[64, 64], "
        "labels: i32[64]) -> (result0: f32[])\n"
        "predict(fc1_weight: f32[128, 64], fc1_bias: f32[128], "
        "fc2_weight: f32[10, 128], fc2_bias: f32[10], x: f32[64, 64]) -> "
        "(result0: f32[64, 10])\n")


# ---------------------------------------------------------------------------
# mixprec-run: a run checked against numpy
# ---------------------------------------------------------------------------

def mlp_arrays(seed=0):
    """Inputs of mlp's loss, in argument order."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((128, 64)) * 0.1).astype(np.float32),
            (rng.standard_normal(128) * 0.1).astype(np.float32),
            (rng.standard_normal((10, 128)) * 0.1).astype(np.float32),
            (rng.standard_normal(10) * 0.1).astype(np.float32),
            rng.uniform(0, 1, (64, 64)).astype(np.float32),
            rng.integers(0, 10, 64).astype(np.int32)]


def mlp_loss(w1, b1, w2, b2, x, labels):
    """nn.Linear -> relu -> nn.Linear -> cross entropy, in float64."""
    w1, b1, w2, b2, x = (a.astype(np.float64) for a in (w1, b1, w2, b2, x))
    logits = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    top = logits.max(axis=1, keepdims=True)
    log_z = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
    return float(np.mean(log_z - logits[np.arange(len(labels)), labels]))


@pytest.fixture
def mlp_inputs(tmp_path):
    """The .npy files of valid mlp loss inputs, and the arrays."""
    arrays = mlp_arrays()
    paths = []
    for i, array in enumerate(arrays):
        paths.append(tmp_path / ("in%d.npy" % i))
        np.save(paths[-1], array)
    return paths, arrays


def run_args(paths):
    return [a for path in paths for a in ("-i", path)]


def test_run_matches_numpy(mlp_library, mlp_inputs, tmp_path):
    paths, arrays = mlp_inputs
    out = tmp_path / "loss.npy"
    proc = run(tool("mixprec-run"), mlp_library, "loss", *run_args(paths),
               "-o", out)
    assert proc.returncode == 0, proc.stderr
    loss = np.load(out)
    assert loss.dtype == np.float32 and loss.shape == ()
    expected = mlp_loss(*arrays)
    assert abs(expected - np.log(10)) < 5, expected  # a plausible loss
    np.testing.assert_allclose(loss, expected, rtol=1e-5, atol=1e-6)

    # The Python API computes the same bits.
    (python_loss,) = mixprec.Model(mlp_library).call("loss", arrays)
    assert python_loss.tobytes() == loss.tobytes()


def test_run_without_output_files_describes_the_outputs(mlp_library,
                                                        mlp_inputs):
    paths, _ = mlp_inputs
    proc = run(tool("mixprec-run"), mlp_library, "loss", *run_args(paths))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "result0: f32[]\n"


# ---------------------------------------------------------------------------
# mixprec-run: errors, each naming the argument or file
# ---------------------------------------------------------------------------

def expect_failure(proc, *parts):
    assert proc.returncode != 0, "succeeded:\n" + proc.stdout
    assert "mixprec-run: error:" in proc.stderr, proc.stderr
    for part in parts:
        assert str(part) in proc.stderr, "%r not in: %s" % (part, proc.stderr)
    return proc.stderr


def test_run_wrong_shape(mlp_library, mlp_inputs, tmp_path):
    paths, arrays = mlp_inputs
    np.save(paths[4], arrays[4][:63])
    out = tmp_path / "loss.npy"
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths), "-o", out),
                   "input 4", "'x'", "f32[64, 64]", "f32[63, 64]",
                   paths[4])
    assert not out.exists()


def test_run_wrong_rank(mlp_library, mlp_inputs):
    paths, arrays = mlp_inputs
    np.save(paths[1], arrays[1].reshape(2, 64))
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths)),
                   "input 1", "'fc1_bias'", "f32[128]", "f32[2, 64]")


def test_run_wrong_dtype(mlp_library, mlp_inputs):
    paths, arrays = mlp_inputs
    np.save(paths[5], arrays[5].astype(np.int64))
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths)),
                   "input 5", "'labels'", "i32[64]", "i64[64]")


def test_run_too_few_inputs(mlp_library, mlp_inputs):
    paths, _ = mlp_inputs
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths[:5])),
                   "takes 6 inputs", "got 5", "input 5", "'labels'")


def test_run_too_many_inputs(mlp_library, mlp_inputs):
    paths, _ = mlp_inputs
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths + [paths[0]])),
                   "takes 6 inputs", "got 7")


def test_run_too_many_output_files(mlp_library, mlp_inputs, tmp_path):
    paths, _ = mlp_inputs
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths), "-o", tmp_path / "a.npy", "-o",
                       tmp_path / "b.npy"),
                   "1 outputs", "got 2")


def test_run_missing_npy_file(mlp_library, mlp_inputs, tmp_path):
    paths, _ = mlp_inputs
    paths[2] = tmp_path / "no-such-file.npy"
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths)),
                   paths[2], "cannot open")


@pytest.mark.parametrize("corruption", ["garbage", "truncated", "fortran",
                                        "float64"])
def test_run_corrupt_npy_file(mlp_library, mlp_inputs, corruption):
    paths, arrays = mlp_inputs
    path = paths[0]
    if corruption == "garbage":
        path.write_bytes(b"this is not a .npy file")
        reason = "bad magic"
    elif corruption == "truncated":
        path.write_bytes(path.read_bytes()[:-3])
        reason = "data size does not match"
    elif corruption == "fortran":
        np.save(path, np.asfortranarray(arrays[0]))
        reason = "Fortran"
    else:
        np.save(path, arrays[0].astype(np.float64))
        reason = "unsupported dtype '<f8'"
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths)),
                   path, reason)


def test_run_unknown_function(mlp_library, mlp_inputs):
    paths, _ = mlp_inputs
    expect_failure(run(tool("mixprec-run"), mlp_library, "train_loss",
                       *run_args(paths)),
                   "'train_loss'", "--list")


def test_run_missing_library(tmp_path):
    library = tmp_path / "libnothere.so"
    expect_failure(run(tool("mixprec-run"), library, "--list"), library)


@pytest.fixture
def library_without_abi(tmp_path):
    """A shared library that is no mixprec model: it lacks the ABI."""
    source = tmp_path / "other.c"
    source.write_text("int answer(void) { return 42; }\n")
    library = tmp_path / "libother.so"
    proc = run("cc", "-shared", "-fPIC", source, "-o", library)
    assert proc.returncode == 0, proc.stderr
    return library


def test_run_not_a_model(library_without_abi):
    library = library_without_abi
    expect_failure(run(tool("mixprec-run"), library, "--list"),
                   library, ": not a mixprec model", "mixprec_abi_version")


def test_run_unwritable_output(mlp_library, mlp_inputs, tmp_path):
    paths, _ = mlp_inputs
    out = tmp_path / "no" / "such" / "dir" / "loss.npy"
    expect_failure(run(tool("mixprec-run"), mlp_library, "loss",
                       *run_args(paths), "-o", out),
                   out)


def test_run_usage():
    proc = run(tool("mixprec-run"))
    assert proc.returncode != 0
    assert "usage:" in proc.stderr
    proc = run(tool("mixprec-run"), "--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("usage: mixprec-run <model.so|model.mlir> "
                                  "--list\n")
    assert "ELF headers are checked" in proc.stdout
    proc = run(tool("mixprec-run"), "lib.so", "f", "--bogus")
    assert proc.returncode != 0
    assert "'--bogus'" in proc.stderr


# One screen: --help lists the tool's own options, not LLVM's.
HELP_LINES = 50


@pytest.mark.parametrize("command, options", [
    (["mixprec-compile"],
     ["<model.mlir>", "-o ", "--target", "--arch", "--cuda-path", "--emit",
      "=library", "=ptx", "--cpu", "--vectorize", "--autocast", "=bf16",
      "--autodiff", "--amp", "--memory-report", "--header", "--cc",
      "--mlir-timing"]),
    (["mixprec-run"], ["--list", "-i input.npy", "-o output.npy", "train"]),
    (["mixprec-run", "train"],
     ["--data", "--amp", "--step", "--lr", "--steps", "--seed", "--resume",
      "--save", "--eval"]),
])
def test_help_fits_one_screen(command, options):
    proc = run(tool(command[0]), *command[1:], "--help")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    assert 5 < len(lines) <= HELP_LINES, proc.stdout
    for option in options:
        assert option in proc.stdout, option
    # None of LLVM's code generation or MLIR's debugging flags is listed.
    listed = re.findall(r"^\s+(--[\w-]+)", proc.stdout, re.M)
    for option in listed:
        assert not re.match(r"--(x86|print-|mlir-|debug|pass-)", option), \
            option


# ---------------------------------------------------------------------------
# mixprec-run on .mlir, compiled on the fly
# ---------------------------------------------------------------------------

SMALL_MODEL = """
func.func @combine(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = mixprec.add %x, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %r = mixprec.mul %s, %y : tensor<2x3xf32>, tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
"""


@pytest.fixture
def small_model(tmp_path):
    source = tmp_path / "small.mlir"
    source.write_text(SMALL_MODEL)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.array([[1, -2, 0.5], [3, 0.25, -1]], np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    return source, x, y


def private_tmpdir(tmp_path):
    """An environment whose TMPDIR is an empty directory of this test."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    return dict(os.environ, TMPDIR=str(directory)), directory


def test_run_mlir_compiled_on_the_fly(small_model, tmp_path):
    source, x, y = small_model
    env, tmpdir = private_tmpdir(tmp_path)
    out = tmp_path / "out.npy"
    proc = run(tool("mixprec-run"), source, "combine", "-i",
               tmp_path / "x.npy", "-i", tmp_path / "y.npy", "-o", out,
               env=env)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(out), (x + y) * y, rtol=1e-6)
    # The library compiled on the fly is not left behind.
    assert not list(tmpdir.iterdir()), list(tmpdir.iterdir())


def test_run_tensors_without_elements(tmp_path):
    source = tmp_path / "empty.mlir"
    source.write_text("""
func.func @f(%x: tensor<0x3xf32>, %y: tensor<2xf32>) -> (tensor<0x3xf32>, tensor<2xf32>) {
  %a = mixprec.relu %x : tensor<0x3xf32>
  %b = mixprec.relu %y : tensor<2xf32>
  return %a, %b : tensor<0x3xf32>, tensor<2xf32>
}
""")
    np.save(tmp_path / "x.npy", np.zeros((0, 3), np.float32))
    np.save(tmp_path / "y.npy", np.array([-1, 2], np.float32))
    proc = run(tool("mixprec-run"), source, "f", "-i", tmp_path / "x.npy",
               "-i", tmp_path / "y.npy", "-o", tmp_path / "a.npy", "-o",
               tmp_path / "b.npy")
    assert proc.returncode == 0, proc.stderr
    assert np.load(tmp_path / "a.npy").shape == (0, 3)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), [0, 2])


def test_run_mlir_compiles_in_tmpdir(small_model, tmp_path):
    # TMPDIR is where the library goes: a missing one is an error.
    source, _, _ = small_model
    missing = tmp_path / "no-such-tmp"
    proc = run(tool("mixprec-run"), source, "--list",
               env=dict(os.environ, TMPDIR=str(missing)))
    expect_failure(proc, "cannot create a temporary directory in %s" % missing)


def test_run_mlir_wrong_shape(small_model, tmp_path):
    source, x, _ = small_model
    np.save(tmp_path / "y.npy", x.T.copy())
    env, tmpdir = private_tmpdir(tmp_path)
    expect_failure(run(tool("mixprec-run"), source, "combine", "-i",
                       tmp_path / "x.npy", "-i", tmp_path / "y.npy",
                       env=env),
                   "input 1", "'y'", "f32[2, 3]", "f32[3, 2]")
    assert not list(tmpdir.iterdir())


def test_run_mlir_that_does_not_compile(tmp_path):
    source = tmp_path / "broken.mlir"
    source.write_text(SMALL_MODEL.replace("mixprec.mul", "mixprec.mull"))
    env, tmpdir = private_tmpdir(tmp_path)
    proc = run(tool("mixprec-run"), source, "--list", env=env)
    expect_failure(proc, "compiling %s failed" % source)
    # mixprec-compile's located diagnostic comes through.
    assert re.search(r"broken\.mlir:4:\d+: error: .*mixprec\.mull",
                     proc.stderr), proc.stderr
    assert not list(tmpdir.iterdir())


def test_run_found_on_path_compiles_mlir(small_model, tmp_path):
    # Invoked by bare name, mixprec-run still finds mixprec-compile.
    source, _, _ = small_model
    bin_dir = pathlib.Path(tool("mixprec-run")).resolve().parent
    env = dict(os.environ, PATH=str(bin_dir) + os.pathsep +
               os.environ.get("PATH", ""))
    proc = run("mixprec-run", source, "--list", env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("combine(x: f32[2, 3], y: f32[2, 3]) -> "
                           "(result0: f32[2, 3])\n")


# ---------------------------------------------------------------------------
# mixprec-compile errors
# ---------------------------------------------------------------------------

IDENTITY = """func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
"""


def expect_compile_failure(proc, output, *parts):
    assert proc.returncode != 0, "succeeded:\n" + proc.stderr
    for part in parts:
        assert part in proc.stderr, "%r not in: %s" % (part, proc.stderr)
    assert not output.exists(), "%s written although compiling failed" % output
    assert not output.with_suffix(".h").exists()
    return proc.stderr


def test_compile_missing_input(tmp_path):
    source = tmp_path / "missing.mlir"
    output = tmp_path / "libm.so"
    expect_compile_failure(compile_model(source, output), output,
                           "mixprec-compile: error:", str(source))


def test_compile_malformed_ir(tmp_path):
    source = tmp_path / "malformed.mlir"
    source.write_text(IDENTITY.replace("-> tensor<3xf32> {",
                                       "-> tensor<3xf32 {"))
    output = tmp_path / "libm.so"
    stderr = expect_compile_failure(compile_model(source, output), output)
    assert re.search(r"malformed\.mlir:1:\d+: error: ", stderr), stderr


def test_compile_unknown_op(tmp_path):
    source = tmp_path / "unknown.mlir"
    source.write_text(IDENTITY.replace(
        "  return %x", "  %y = mixprec.frobnicate %x : tensor<3xf32>\n"
        "  return %y"))
    output = tmp_path / "libm.so"
    stderr = expect_compile_failure(compile_model(source, output), output,
                                    "mixprec.frobnicate")
    assert re.search(r"unknown\.mlir:2:8: error: ", stderr), stderr


@pytest.fixture
def identity(tmp_path):
    source = tmp_path / "identity.mlir"
    source.write_text(IDENTITY)
    return source


def test_compile_identity_works(identity, tmp_path):
    # The option tests below fail for the options, not for the model.
    output = tmp_path / "libm.so"
    proc = compile_model(identity, output)
    assert proc.returncode == 0, proc.stderr
    assert output.exists()


def test_compile_value_returned_twice(tmp_path):
    # Each result is its own caller-allocated buffer, even for one value.
    source = tmp_path / "twice.mlir"
    source.write_text(
        "func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
        "  %y = mixprec.relu %x : tensor<4xf32>\n"
        "  return %y, %y : tensor<4xf32>, tensor<4xf32>\n"
        "}\n")
    model = mixprec.compile_file(source, tmp_path / "libtwice.so")
    x = np.array([-1.0, 2.0, -3.0, 4.0], dtype=np.float32)
    first, second = model.call("f", [x])
    np.testing.assert_array_equal(first, np.maximum(x, 0))
    np.testing.assert_array_equal(second, np.maximum(x, 0))


def test_compile_target_cuda_checks_arch_first(identity, tmp_path):
    # Both are refused before any work: nothing is written.
    output = tmp_path / "libm.so"
    expect_compile_failure(
        compile_model(identity, output, "--target=cuda"), output,
        "mixprec-compile: error: --target=cuda needs --arch: sm_80, sm_90 or "
        "sm_90a")
    expect_compile_failure(
        compile_model(identity, output, "--target=cuda", "--arch=sm_90,sm_50"),
        output, "mixprec-compile: error: unknown --arch 'sm_50' (expected "
        "sm_80, sm_90 or sm_90a)")


def test_compile_unknown_target(identity, tmp_path):
    output = tmp_path / "libm.so"
    expect_compile_failure(
        compile_model(identity, output, "--target=tpu"), output,
        "mixprec-compile: error: unknown --target 'tpu'", "cpu", "cuda")


def test_compile_arch_without_cuda(identity, tmp_path):
    output = tmp_path / "libm.so"
    for options in (["--arch=sm_80"], ["--target=cpu", "--arch=sm_80"]):
        expect_compile_failure(
            compile_model(identity, output, *options), output,
            "mixprec-compile: error: --arch applies to --target=cuda only")


def test_compile_hidden_options_still_work(identity, tmp_path):
    # Hidden from --help, not removed: MLIR's timing report.
    output = tmp_path / "identity.mlir"
    proc = compile_model(identity, output, "--emit=mlir", "--mlir-timing")
    assert proc.returncode == 0, proc.stderr
    assert "Execution time report" in proc.stderr
    assert "Lowering passes" in proc.stderr


def test_compile_bad_autocast_lists_the_values(identity, tmp_path):
    output = tmp_path / "libm.so"
    expect_compile_failure(
        compile_model(identity, output, "--autocast=f8"), output,
        "for the --autocast option: 'f8' is not one of none, f16, bf16\n")


@pytest.mark.parametrize("signature,body,position,what", [
    ("(%x: tensor<?xf32>, %y: tensor<3xf32>) -> tensor<3xf32>",
     "return %y : tensor<3xf32>", "arg 0", "tensor<?xf32>"),
    ("(%x: tensor<3xf32>, %n: tensor<2x?xi32>) -> tensor<3xf32>",
     "return %x : tensor<3xf32>", "arg 1", "tensor<2x?xi32>"),
    ("(%x: tensor<3xf32>) -> tensor<*xf32>",
     "%c = tensor.cast %x : tensor<3xf32> to tensor<*xf32>\n"
     "  return %c : tensor<*xf32>", "result 0", "tensor<*xf32>"),
])
def test_compile_dynamically_shaped_public_argument(tmp_path, signature,
                                                     body, position, what):
    source = tmp_path / "dynamic.mlir"
    source.write_text("// a model\n\nfunc.func @step%s {\n  %s\n}\n" % (
        signature, body))
    output = tmp_path / "libm.so"
    stderr = expect_compile_failure(compile_model(source, output), output,
                                    "@step: %s has type '%s'" % (position,
                                                                 what),
                                    "statically shaped")
    assert re.search(r"dynamic\.mlir:3:1: error: @step", stderr), stderr


def test_compile_dynamic_shapes_in_private_functions_are_fine(tmp_path):
    source = tmp_path / "private.mlir"
    source.write_text("""
func.func private @helper(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
""" + IDENTITY)
    output = tmp_path / "libm.so"
    proc = compile_model(source, output)
    assert proc.returncode == 0, proc.stderr
    listed = run(tool("mixprec-run"), output, "--list")
    assert listed.stdout == "f(x: f32[3]) -> (result0: f32[3])\n"


def test_compile_function_name_that_is_not_a_c_identifier(tmp_path):
    source = tmp_path / "names.mlir"
    source.write_text(IDENTITY.replace("@f", '@"train-step"'))
    output = tmp_path / "libm.so"
    proc = compile_model(source, output)
    # Either compiled and callable by its name, or a located error.
    if proc.returncode == 0:
        listed = run(tool("mixprec-run"), output, "--list")
        assert listed.stdout.startswith("train-step("), listed.stdout
    else:
        assert re.search(r"names\.mlir:1:1: error: ", proc.stderr)
        assert "model_abi.c" not in proc.stderr, proc.stderr


def test_compile_state_name_with_a_quote(tmp_path):
    source = tmp_path / "quote.mlir"
    source.write_text("""
mixprec.parameter @"w\\"q" : tensor<3xf32> = #mixprec.uniform<low = 0.0, high = 1.0, seed = 1>
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = mixprec.read @"w\\"q" : tensor<3xf32>
  %y = mixprec.add %x, %w : tensor<3xf32>, tensor<3xf32>
  return %y : tensor<3xf32>
}
""")
    output = tmp_path / "libm.so"
    proc = compile_model(source, output)
    assert "model_abi.c" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    listed = run(tool("mixprec-run"), output, "--list")
    assert 'w"q: f32[3]' in listed.stdout, listed.stdout


# ---------------------------------------------------------------------------
# The Python API
# ---------------------------------------------------------------------------

def test_python_wrong_shape_raises_model_error(mlp_library):
    model = mixprec.Model(mlp_library)
    arrays = mlp_arrays()
    arrays[4] = arrays[4][:, :32].copy()
    with pytest.raises(mixprec.ModelError) as error:
        model.call("loss", arrays)
    message = str(error.value)
    for part in ("loss", "input 4", "'x'", "must be f32[64, 64], got "
                 "f32[64, 32]"):
        assert part in message, message


def test_python_wrong_dtype_and_count_raise_model_error(mlp_library):
    model = mixprec.Model(mlp_library)
    arrays = mlp_arrays()
    wrong = list(arrays)
    wrong[5] = wrong[5].astype(np.float64)  # no ABI dtype at all
    with pytest.raises(mixprec.ModelError, match=r"^loss: input 5 "
                       r"\('labels'\) must be i32\[64\], got f64\[64\]$"):
        model.call("loss", wrong)
    with pytest.raises(mixprec.ModelError,
                       match=r"input 5 \('labels'\) is missing"):
        model.call("loss", arrays[:5])
    with pytest.raises(mixprec.ModelError, match="no function named 'nope'"):
        model.call("nope", arrays)


def test_python_scalar_inputs_keep_rank_0(tmp_path):
    model = mixprec.compile_source("""
func.func @scaled(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %z = mixprec.mul %x, %y : tensor<f32>, tensor<f32>
  return %z : tensor<f32>
}
""", tmp_path / "libscalar.so")
    (z,) = model.call("scaled", [np.array(3, np.float32), np.float32(-2)])
    assert z.shape == () and z == -6


# ---------------------------------------------------------------------------
# Model libraries are checked before dlopen, from mixprec-run and Python
# ---------------------------------------------------------------------------

def patched(data, offset, value, size):
    """`data` with the little-endian `size`-byte field at `offset` set."""
    return data[:offset] + value.to_bytes(size, "little") + \
        data[offset + size:]


def program_header(data, index):
    """(offset of program header `index`, its p_offset, its p_filesz)."""
    phoff = int.from_bytes(data[32:40], "little")
    at = phoff + 56 * index
    return (at, int.from_bytes(data[at + 8:at + 16], "little"),
            int.from_bytes(data[at + 32:at + 40], "little"))


def bad_libraries(library):
    """{case: (file contents, what the error must say)}: truncated, empty,
    not ELF at all, or ELF that dlopen must not be given."""
    data = library.read_bytes()
    assert len(data) > 100_000, len(data)
    shoff = int.from_bytes(data[40:48], "little")
    first_load, load_offset, _ = program_header(data, 0)
    return {
        "first 100 kB": (data[:100_000], [
            "truncated or corrupt: segment",
            "past the end of the file (100000 bytes)"]),
        "first 10 bytes": (data[:10], [
            "truncated: the file is 10 bytes, shorter than an ELF header "
            "(64)"]),
        "empty": (b"", ["the file is empty, not a shared library"]),
        "text": (b"int main() { return 0; }\n", [
            "not an ELF file (no \\x7fELF magic)"]),
        # Everything dlopen maps is there; the section headers are not.
        "no section headers": (data[:shoff + 10], [
            "truncated or corrupt: the section headers span bytes %d.."
            % shoff, "past the end of the file (%d bytes)" % (shoff + 10)]),
        "32-bit": (patched(data, 4, 1, 1), ["a 32-bit ELF file"]),
        "executable": (patched(data, 16, 2, 2), [
            "an executable, not a shared library"]),
        "another machine": (patched(data, 18, 243, 2), [
            "a shared library for RISC-V; this machine is"]),
        "segment past the end": (
            patched(data, first_load + 8, load_offset + len(data), 8), [
                "truncated or corrupt: segment 0 (",
                "bytes %d.." % (load_offset + len(data)),
                "past the end of the file (%d bytes)" % len(data)]),
    }


@pytest.fixture(scope="session")
def trainable_mlp(tmp_path_factory):
    """The MLP compiled with its train step: a library over 100 kB."""
    library = tmp_path_factory.mktemp("trainable") / "libmlp.so"
    proc = compile_model(ROOT / "examples" / "mlp.mlir", library,
                         "--autodiff")
    assert proc.returncode == 0, proc.stderr
    return library


BAD_LIBRARY_CASES = ["first 100 kB", "first 10 bytes", "empty", "text",
                     "no section headers", "32-bit", "executable",
                     "another machine", "segment past the end"]


@pytest.mark.parametrize("case", BAD_LIBRARY_CASES)
def test_bad_library_is_refused_by_mixprec_run(trainable_mlp, tmp_path,
                                               case):
    contents, parts = bad_libraries(trainable_mlp)[case]
    library = tmp_path / "libbad.so"
    library.write_bytes(contents)
    for args in (["--list"], ["loss"]):
        proc = run(tool("mixprec-run"), library, *args)
        assert proc.returncode == 1, (proc.returncode, proc.stderr)
        expect_failure(proc, "%s: " % library, *parts)
    proc = run(tool("mixprec-run"), "train", library, "--data", "x.npy")
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    expect_failure(proc, "%s: " % library, *parts)


@pytest.mark.parametrize("case", BAD_LIBRARY_CASES)
def test_bad_library_is_refused_by_python(trainable_mlp, tmp_path, case):
    contents, parts = bad_libraries(trainable_mlp)[case]
    library = tmp_path / "libbad.so"
    library.write_bytes(contents)
    # In a process of its own: a regression would be a SIGBUS, not a failed
    # assertion.
    proc = run(sys.executable, "-c", """
import sys
import mixprec
try:
    mixprec.Model(sys.argv[1])
except mixprec.ModelError as error:
    print(error, error.status)
""", library, env=python_env())
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert proc.stdout.startswith("%s: " % library), proc.stdout
    assert proc.stdout.endswith(" 1\n"), proc.stdout  # INVALID_ARGUMENT
    for part in parts:
        assert part in proc.stdout, "%r not in %s" % (part, proc.stdout)


def test_library_checks_accept_every_example(example):
    _, _, library = example
    assert run(tool("mixprec-run"), library, "--list").returncode == 0
    assert mixprec.Model(library).functions


def test_python_library_that_is_no_model(library_without_abi, tmp_path):
    library = library_without_abi
    with pytest.raises(mixprec.ModelError, match="^%s: not a mixprec model: "
                       "missing symbol mixprec_abi_version$"
                       % re.escape(str(library))):
        mixprec.Model(library)
    with pytest.raises(mixprec.ModelError,
                       match="libnothere.so: no such file"):
        mixprec.Model(tmp_path / "libnothere.so")
    with pytest.raises(mixprec.ModelError,
                       match="a directory, not a shared library"):
        mixprec.Model(tmp_path)


# ---------------------------------------------------------------------------
# Inputs are named as in the source
# ---------------------------------------------------------------------------

def test_inputs_keep_their_source_names_in_header_list_and_python(tmp_path):
    source = tmp_path / "named.mlir"
    source.write_text("""
func.func @classify(%images: tensor<4x3xf32>, %0: tensor<4x3xf32>,
                    %scale.1: tensor<f32> {mixprec.abi_name = "gain"})
    -> tensor<4x3xf32> {
  %s = mixprec.add %images, %0 : tensor<4x3xf32>, tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}
""")
    library = tmp_path / "libnamed.so"
    proc = compile_model(source, library)
    assert proc.returncode == 0, proc.stderr
    expected = ("classify(images: f32[4, 3], arg1: f32[4, 3], gain: f32[]) "
                "-> (result0: f32[4, 3])")
    # A number (%0) names nothing; an explicit ABI name wins.
    assert run(tool("mixprec-run"), library, "--list").stdout == \
        expected + "\n"
    assert "/* %s */" % expected in (tmp_path / "libnamed.h").read_text()
    model = mixprec.Model(library)
    assert [s.name for s in model.functions["classify"].inputs] == \
        ["images", "arg1", "gain"]
    with pytest.raises(mixprec.ModelError, match=r"^classify: input 0 "
                       r"\('images'\) must be f32\[4, 3\], got f16\[4, 3\]$"):
        model.call("classify", [np.zeros((4, 3), np.float16),
                                np.zeros((4, 3), np.float32),
                                np.float32(1)])


@pytest.mark.parametrize("name, state", [
    ("w", "w"), ("rng_state", "rng_state"), ("w.exp_avg", "w"),
    ("train.step_count", "train")])
def test_input_named_like_the_state_is_an_error(tmp_path, name, state):
    source = tmp_path / "clash.mlir"
    source.write_text("""
mixprec.parameter @w : tensor<3xf32> = #mixprec.zeros
func.func @loss(%%%s: tensor<3xf32>) -> tensor<f32> {
  %%r = mixprec.read @w : tensor<3xf32>
  %%p = mixprec.mul %%r, %%%s : tensor<3xf32>, tensor<3xf32>
  %%l = mixprec.reduce_sum %%p {dims = array<i64: 0>} : tensor<3xf32>
  return %%l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<>
""" % (name, name))
    output = tmp_path / "libclash.so"
    expect_compile_failure(
        compile_model(source, output, "--autodiff"), output,
        "clash.mlir:3:17: error: argument %%%s of @loss is named like the "
        "model's state '%s'" % (name, state), "rename the argument")


def test_accumulated_train_step_keeps_the_source_names(tmp_path):
    model = mixprec.compile_source("""
mixprec.parameter @w : tensor<3xf32> = #mixprec.zeros
func.func @loss(%features: tensor<2x3xf32>) -> tensor<f32> {
  %r = mixprec.read @w : tensor<3xf32>
  %b = mixprec.broadcast %r : tensor<3xf32> -> tensor<2x3xf32>
  %p = mixprec.mul %b, %features : tensor<2x3xf32>, tensor<2x3xf32>
  %l = mixprec.reduce_sum %p {dims = array<i64: 0, 1>} : tensor<2x3xf32>
  return %l : tensor<f32>
}
mixprec.train_step @train forward @loss optimizer #mixprec.sgd<> {accumulation_steps = 2}
""", tmp_path / "libacc.so", "--autodiff")
    assert "features" in [s.name for s in model.functions["train"].inputs]


# ---------------------------------------------------------------------------
# The Python API checks what the command line checks
# ---------------------------------------------------------------------------

def test_python_model_from_a_bare_file_name(mlp_library, tmp_path,
                                            monkeypatch):
    (tmp_path / "libmlp.so").write_bytes(mlp_library.read_bytes())
    monkeypatch.chdir(tmp_path)
    model = mixprec.Model("libmlp.so")
    assert model.path == str(tmp_path / "libmlp.so")
    assert "loss" in model.functions


@pytest.mark.parametrize("options", ["--autocast=f16 --autodiff",
                                     ["--autocast=f16", "--autodiff"],
                                     ("--autocast", "f16", "--autodiff")])
def test_python_compile_options_as_a_string_or_a_list(tmp_path, options):
    model = mixprec.compile_file(ROOT / "examples" / "mlp.mlir",
                                 tmp_path / "libmlp.so", options=options)
    # Both options arrived: --autodiff added the train step, and
    # mixprec-compile accepted --autocast's value.
    assert "train" in model.functions


def test_python_compile_options_string_errors_come_from_the_compiler(
        tmp_path):
    with pytest.raises(mixprec.CompileError,
                       match="--autocast option: 'f8' is not one of none, "
                       "f16, bf16"):
        mixprec.compile_file(ROOT / "examples" / "mlp.mlir",
                             tmp_path / "libmlp.so", options="--autocast=f8")


def test_python_unknown_function_lists_the_known_ones(mlp_library):
    model = mixprec.Model(mlp_library)
    with pytest.raises(mixprec.ModelError, match=r"^no function named "
                       r"'predikt'; the model has loss, predict$") as error:
        model.call("predikt", [])
    assert error.value.status == mixprec.ModelError.NOT_FOUND
    with pytest.raises(mixprec.ModelError, match="the model has loss, "
                       "predict"):
        model.trainer("train")
    # Indexing the table says the same, and is still a KeyError.
    with pytest.raises(KeyError) as error:
        model.functions["predikt"]
    assert isinstance(error.value, mixprec.UnknownFunctionError)
    assert str(error.value) == ("no function named 'predikt'; the model has "
                                "loss, predict")
