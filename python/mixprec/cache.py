"""The cache of compiled libraries, named by a hash of what made them.

A library compiled without an output path is kept in the cache directory
($MIXPREC_CACHE, else $XDG_CACHE_HOME/mixprec, else ~/.cache/mixprec) as
<key>.so, where the key hashes the model's text, the compiler's options,
the compiler itself (path, size and modification time of mixprec-compile
and of the runtime archives it links in, so that a rebuild invalidates)
and the host CPU (the code is compiled for this machine's CPU by default).
The same model compiled again loads the cached library without running the
compiler. The directory holds nothing else that matters: it can be deleted
at any time.
"""
import hashlib
import os
import pathlib
import platform
import shutil
import tempfile

# The runtime archives that mixprec-compile links into every library
# (build/lib beside build/bin); CMake does not relink the compiler when
# only they change, so they are part of the compiler's identity.
RUNTIME_ARCHIVES = ("libmixprec_model_runtime.a", "libmixprec_cuda_runtime.a",
                    "libmixprec_cpu_runtime.a")


def directory():
    """The cache directory (not created here)."""
    if os.environ.get("MIXPREC_CACHE"):
        return pathlib.Path(os.environ["MIXPREC_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "mixprec"


def _file_identity(path):
    status = os.stat(path)
    return "%s %d %d" % (os.path.realpath(path), status.st_size,
                         status.st_mtime_ns)


def compiler_identity(compiler):
    """What tells one build of `compiler` (mixprec-compile's path) from
    another: it and the runtime archives beside it, each as path, size and
    modification time."""
    parts = [_file_identity(compiler)]
    build = pathlib.Path(os.path.realpath(compiler)).parents[1]
    for name in RUNTIME_ARCHIVES:
        archive = build / "lib" / name
        if archive.exists():
            parts.append(_file_identity(archive))
    return parts


def _host_cpu():
    """The host CPU's model and features: libraries are compiled for it
    (--cpu=native) and may not run on another one that shares the cache."""
    try:
        with open("/proc/cpuinfo") as f:
            lines = [line.strip() for line in f
                     if line.startswith(("model name", "flags"))]
        return "\n".join(sorted(set(lines)))
    except OSError:
        return platform.machine() + " " + platform.processor()


def key(text, options, compiler):
    """The cache key of `text` (the model, bytes) compiled by `compiler`
    (mixprec-compile's path) with `options` (a list of strings)."""
    digest = hashlib.sha256()
    parts = ([text] + [option.encode() for option in options] +
             [part.encode() for part in compiler_identity(compiler)] +
             [_host_cpu().encode(),
              os.environ.get("CUDA_PATH", "").encode()])
    for part in parts:
        # Each part's length first: no two lists of parts hash alike.
        digest.update(b"%d:" % len(part))
        digest.update(part)
    return digest.hexdigest()


def library(text, options, compiler, build):
    """The path of the cached library of `text` compiled with `options` by
    `compiler`. On a miss `build(path)` writes the library to a temporary
    path in the cache directory (raising if it cannot), which then replaces
    the cache entry in one step: a concurrent process sees the whole
    library or none, and a failed build leaves nothing behind."""
    root = directory()
    path = root / (key(text, options, compiler) + ".so")
    if path.exists():
        return path
    root.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        # A directory of its own: the compiler writes a header beside the
        # library.
        built = work / "libmodel.so"
        build(built)
        os.replace(built, path)
    finally:
        shutil.rmtree(work)
    return path


def source(text, options, compiler):
    """The path of `text` kept beside its library (`<key>.mlir`): the
    library's diagnostics and run-time errors name this file, which stays
    as long as the library does."""
    root = directory()
    path = root / (key(text, options, compiler) + ".mlir")
    if not path.exists():
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=root, prefix=".source-",
                                         delete=False) as f:
            f.write(text)
        os.replace(f.name, path)
    return path
