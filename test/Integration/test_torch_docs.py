"""The README's lists of what mixprec.torch imports cannot drift from the
lowering registry: its list of every name with a lowering is generated from
the registry (scripts/update-readme-imports.py) and checked here to be the
registry's, and every module its prose names is one of torch's (or
torchvision's) that the registry lowers or whose forward is traced."""
import pathlib
import re
import subprocess
import sys

import torch
import torchvision.ops
from torch import nn

import mixprec.torch  # noqa: F401 (the lowerings register themselves)
from mixprec.torch import registry

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Modules with no lowering of their own whose forward is traced: the
# containers and torchvision's StochasticDepth (its stochastic_depth call).
TRACED = {nn.Sequential, nn.ModuleList, nn.ModuleDict,
          torchvision.ops.StochasticDepth}


def test_the_readme_lists_every_name_with_a_lowering():
    done = subprocess.run([sys.executable,
                           str(ROOT / "scripts/update-readme-imports.py"),
                           "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def prose_module_names():
    """The backticked capitalized names of the README's "- modules:"
    bullet, `BatchNorm1d/2d` as both."""
    text = (ROOT / "README.md").read_text()
    start = text.index("- modules:")
    bullet = text[start:text.index("\n- ", start + 1)]
    found = []
    for quoted in re.findall(r"`([A-Z][A-Za-z0-9/]*)`", bullet):
        first, *others = quoted.split("/")
        found.append(first)
        found += [re.sub(r"\d+d$", other, first) for other in others]
    return found


def test_every_module_the_readme_names_is_imported():
    names = prose_module_names()
    assert "Linear" in names and "InstanceNorm2d" in names, names
    # Named as what is not taken ("not `proj_size` or a `PackedSequence`").
    names.remove("PackedSequence")
    for name in names:
        module_type = getattr(nn, name, None) or getattr(torchvision.ops,
                                                         name)
        assert module_type in TRACED or any(
            issubclass(module_type, lowered)
            for lowered in registry.MODULES), name
