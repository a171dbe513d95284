"""Compiling models with mixprec-compile."""
import os
import pathlib
import shlex
import shutil
import subprocess
import tempfile

from . import cache
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


def _run_compiler(compiler, path, output, options):
    proc = subprocess.run([compiler, str(path), "-o", str(output), *options],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(proc.stderr)


def compile_file(path, output=None, options=()):
    """Compiles a model file to a shared library and loads it. `options`
    are mixprec-compile's, as a list or as one string. Without `output`
    the library goes to the cache (mixprec.cache), where the same model
    compiled again with the same options by the same compiler is found
    without compiling."""
    options = _option_list(options)
    compiler = tool_path("mixprec-compile")
    if output is not None:
        _run_compiler(compiler, path, output, options)
        return Model(output)
    try:
        text = pathlib.Path(path).read_bytes()
    except OSError as error:
        # As mixprec-compile says it when it compiles to `output`.
        raise CompileError("cannot open input file '%s': %s" % (
            path, error.strerror)) from None
    return Model(cache.library(
        text, options, compiler,
        lambda built: _run_compiler(compiler, path, built, options)))


def compile_source(text, output=None, options=()):
    """Compiles MLIR text to a shared library and loads it; `output` and
    `options` as for compile_file. Without `output` the text is kept in
    the cache as `<key>.mlir`, the file the library's errors name."""
    options = _option_list(options)
    if output is None:
        # Kept in the cache beside the library, so that the diagnostics
        # and errors that name it point at a file that exists.
        path = cache.source(text.encode(), options,
                            tool_path("mixprec-compile"))
        return compile_file(path, None, options)
    with tempfile.NamedTemporaryFile("w", prefix="mixprec-", suffix=".mlir",
                                     delete=False) as f:
        f.write(text)
    try:
        return compile_file(f.name, output, options)
    finally:
        os.unlink(f.name)
