"""`pip install ./python` in a virtual environment: every module of the
package is installed, and the installed package (not the source tree)
compiles and runs a model from another directory. Offline: the venv sees
the system's packages (numpy, setuptools), pip gets no index and builds
with the system's setuptools."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import mixprec

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "python"

CHILD = """
import importlib.metadata, json, sys
import numpy as np
import mixprec
model = mixprec.compile_source('''
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = mixprec.relu %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
''')
(y,) = model.call("f", [np.array([-1.0, 3.0], np.float32)])
print(json.dumps({
    "package": mixprec.__file__,
    "files": [str(f) for f in importlib.metadata.files("mixprec")],
    "result": y.tolist()}))
"""


def run(*command, **kwargs):
    return subprocess.run([str(part) for part in command], capture_output=True,
                          text=True, timeout=300, **kwargs)


def test_pip_install_in_a_venv(tmp_path):
    # A copy: pip builds in the source directory and leaves its egg-info
    # there.
    source = tmp_path / "python"
    shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns(
        "__pycache__", "build", "*.egg-info"))
    venv = tmp_path / "venv"
    created = run(sys.executable, "-m", "venv", "--system-site-packages",
                  venv)
    output = created.stdout + created.stderr
    if created.returncode != 0 and "ensurepip" in output:
        # Debian's python3 without python3-venv.
        pytest.skip("no venv with pip here (python3-venv): " + output.strip())
    assert created.returncode == 0, output
    python = venv / "bin" / "python"
    installed = run(python, "-m", "pip", "install", "--no-build-isolation",
                    "--no-index", source)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # MIXPREC_BUILD says where the tools are; nothing says where the
    # package is.
    env = {name: value for name, value in os.environ.items()
           if name != "PYTHONPATH"}
    env["MIXPREC_BUILD"] = str(pathlib.Path(
        mixprec.tool_path("mixprec-compile")).parents[1])
    proc = run(python, "-c", CHILD, cwd=elsewhere, env=env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)

    site_packages = pathlib.Path(report["package"]).parents[1]
    assert site_packages.is_relative_to(venv), report["package"]
    assert report["result"] == [0.0, 3.0]
    # Every module of the source package, mixprec.torch's included.
    modules = {str(path.relative_to(SOURCE)) for path in
               (SOURCE / "mixprec").rglob("*.py")
               if "__pycache__" not in path.parts}
    assert "mixprec/torch/fit.py" in modules
    assert modules <= set(report["files"]), modules - set(report["files"])
