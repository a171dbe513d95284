"""Compiling models with mixprec-compile."""
import os
import pathlib
import shlex
import shutil
import subprocess
import tempfile

from .runtime import Model


class CompileError(RuntimeError):
    """mixprec-compile rejected the model; the message is its diagnostics."""


def tool_path(name):
    """A mixprec tool: from $MIXPREC_BUILD/bin, the source tree's build/bin,
    or PATH."""
    candidates = []
    if "MIXPREC_BUILD" in os.environ:
        candidates.append(pathlib.Path(os.environ["MIXPREC_BUILD"]) / "bin")
    candidates.append(pathlib.Path(__file__).resolve().parents[2] / "build" /
                      "bin")
    for directory in candidates:
        if (directory / name).exists():
            return str(directory / name)
    found = shutil.which(name)
    if not found:
        raise CompileError("cannot find %s (set MIXPREC_BUILD)" % name)
    return found


def _option_list(options):
    """mixprec-compile's options from a list or from one string, split as a
    shell would: "--autocast=f16 --autodiff"."""
    if isinstance(options, (str, bytes)):
        return shlex.split(os.fsdecode(options))
    return [os.fspath(option) for option in options]


def compile_file(path, output=None, options=()):
    """Compiles a model file to a shared library and loads it. `options`
    are mixprec-compile's, as a list or as one string."""
    options = _option_list(options)
    if output is None:
        directory = tempfile.mkdtemp(prefix="mixprec-")
        output = os.path.join(directory, "libmodel.so")
    proc = subprocess.run([tool_path("mixprec-compile"), str(path), "-o",
                           str(output), *options], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise CompileError(proc.stderr)
    return Model(output)


def compile_source(text, output=None, options=()):
    """Compiles MLIR text to a shared library and loads it; `options` as
    for compile_file."""
    options = _option_list(options)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        return compile_file(f.name, output, options)
    finally:
        os.unlink(f.name)
