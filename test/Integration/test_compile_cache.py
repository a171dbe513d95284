"""compile_file and compile_source without an output path: the library goes
to the content-hashed cache (mixprec.cache), a second compile of the same
model is a hit that does not run the compiler, and nothing is left in the
temporary directory or half-written in the cache."""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import mixprec
from mixprec import cache, compiler
from subprocess_env import python_env

RELU = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mixprec.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
"""
X = np.array([-1.0, 2.0, -3.0, 4.0], dtype=np.float32)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("MIXPREC_CACHE", str(directory))
    return directory


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """An empty temporary directory for this process (tempfile) and the
    compiler it runs (TMPDIR): what is left in it was left by the compile,
    not by another process of the machine."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setenv("TMPDIR", str(directory))
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def entries(directory):
    """The names in `directory` but the sources compile_source keeps beside
    its libraries (<key>.mlir)."""
    return sorted(p.name for p in directory.iterdir()
                  if p.suffix != ".mlir") if directory.exists() else []


def check_relu(model):
    (y,) = model.call("f", [X])
    np.testing.assert_array_equal(y, np.maximum(X, 0))


def test_second_compile_is_a_hit(cache_dir, monkeypatch):
    first = mixprec.compile_source(RELU)
    library = pathlib.Path(first.path)
    assert library.parent == cache_dir
    assert entries(cache_dir) == [library.name]
    check_relu(first)
    written = library.stat()

    def no_compiler(*args):
        raise AssertionError("the compiler ran on a cache hit")
    monkeypatch.setattr(compiler, "_run_compiler", no_compiler)
    second = mixprec.compile_source(RELU)
    assert second.path == first.path
    assert entries(cache_dir) == [library.name]
    assert (library.stat().st_mtime_ns, library.stat().st_ino) == (
        written.st_mtime_ns, written.st_ino)
    check_relu(second)


def test_compile_file_shares_the_cache_with_compile_source(cache_dir,
                                                           tmp_path):
    source = tmp_path / "relu.mlir"
    source.write_text(RELU)
    from_file = mixprec.compile_file(source)
    assert mixprec.compile_source(RELU).path == from_file.path
    assert len(entries(cache_dir)) == 1


def test_other_options_or_text_make_another_library(cache_dir):
    plain = mixprec.compile_source(RELU)
    unvectorized = mixprec.compile_source(RELU, options="--vectorize=false")
    renamed = mixprec.compile_source(RELU.replace("@f", "@g"))
    paths = {plain.path, unvectorized.path, renamed.path}
    assert len(paths) == 3
    assert entries(cache_dir) == sorted(pathlib.Path(p).name for p in paths)
    check_relu(unvectorized)
    assert sorted(renamed.functions) == ["g"]


def test_key_follows_a_rebuilt_compiler(tmp_path):
    # A stand-in build tree: bin/mixprec-compile and lib/'s runtime
    # archive, which the compiler links into every library.
    (tmp_path / "bin").mkdir()
    (tmp_path / "lib").mkdir()
    tool = tmp_path / "bin" / "mixprec-compile"
    archive = tmp_path / "lib" / cache.RUNTIME_ARCHIVES[0]
    tool.write_bytes(b"compiler")
    archive.write_bytes(b"runtime")
    key = cache.key(RELU.encode(), ["--autodiff"], str(tool))
    assert cache.key(RELU.encode(), ["--autodiff"], str(tool)) == key
    assert cache.key(RELU.encode(), [], str(tool)) != key
    # Options split differently are other options.
    assert cache.key(RELU.encode(), ["--autocast", "f16"], str(tool)) != \
        cache.key(RELU.encode(), ["--autocast f16"], str(tool))
    stat = tool.stat()
    os.utime(tool, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    rebuilt = cache.key(RELU.encode(), ["--autodiff"], str(tool))
    assert rebuilt != key
    archive.write_bytes(b"runtime, rebuilt")
    assert cache.key(RELU.encode(), ["--autodiff"], str(tool)) != rebuilt


def test_cache_directory_default(monkeypatch, tmp_path):
    monkeypatch.delenv("MIXPREC_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.directory() == tmp_path / "xdg" / "mixprec"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.directory() == tmp_path / "home" / ".cache" / "mixprec"
    monkeypatch.setenv("MIXPREC_CACHE", str(tmp_path / "mine"))
    assert cache.directory() == tmp_path / "mine"


def test_nothing_is_left_in_the_temporary_directory(cache_dir, private_tmp,
                                                    tmp_path):
    assert tempfile.gettempdir() == str(private_tmp)
    source = tmp_path / "relu.mlir"
    source.write_text(RELU)
    check_relu(mixprec.compile_source(RELU))          # a miss
    check_relu(mixprec.compile_source(RELU))          # a hit
    check_relu(mixprec.compile_file(source))          # a hit from a file
    with pytest.raises(mixprec.CompileError):
        mixprec.compile_source("func.func @f(")
    assert entries(private_tmp) == []


def test_a_bad_model_leaves_nothing_in_the_cache(cache_dir, private_tmp):
    with pytest.raises(mixprec.CompileError, match="error: ") as error:
        mixprec.compile_source(RELU.replace("mixprec.relu", "mixprec.relux"))
    assert "mixprec.relux" in str(error.value)
    assert entries(cache_dir) == []
    # The diagnostics name the source kept in the cache, which exists.
    named = re.search(r"(\S+\.mlir):\d+:\d+: error", str(error.value))
    assert named and pathlib.Path(named.group(1)).parent == cache_dir
    assert "mixprec.relux" in pathlib.Path(named.group(1)).read_text()
    assert entries(private_tmp) == []
    # The cache still works afterwards.
    check_relu(mixprec.compile_source(RELU))
    assert len(entries(cache_dir)) == 1


def test_a_missing_file_is_a_compile_error(cache_dir, tmp_path):
    missing = tmp_path / "missing.mlir"
    for output in (None, tmp_path / "libmissing.so"):
        with pytest.raises(mixprec.CompileError,
                           match="cannot open input file '%s': No such file"
                           % missing):
            mixprec.compile_file(missing, output)
    assert entries(cache_dir) == []


CHILD = """
import sys
import numpy as np
import mixprec
model = mixprec.compile_source(sys.argv[1])
(y,) = model.call("f", [np.array([-1.0, 2.0, -3.0, 4.0], np.float32)])
print(model.path, y.tolist())
"""


def test_concurrent_compiles_give_one_library(cache_dir):
    env = python_env(MIXPREC_CACHE=str(cache_dir))
    children = [subprocess.Popen([sys.executable, "-c", CHILD, RELU],
                                 env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for _ in range(2)]
    outputs = [child.communicate(timeout=300) for child in children]
    for child, (out, err) in zip(children, outputs):
        assert child.returncode == 0, err
    paths = {out.split()[0] for out, _ in outputs}
    assert len(paths) == 1
    (path,) = paths
    assert entries(cache_dir) == [pathlib.Path(path).name]
    for out, _ in outputs:
        assert out.split(None, 1)[1].strip() == "[0.0, 2.0, 0.0, 4.0]"
    check_relu(mixprec.Model(path))
