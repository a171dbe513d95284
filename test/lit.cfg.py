# -*- Python -*-
import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "MIXPREC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mixprec_obj_root, "test")

config.substitutions.append(("%mixprec_src_root", config.mixprec_src_root))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["mixprec-opt", "mixprec-compile", "mixprec-run"],
    [config.mixprec_tools_dir, config.llvm_tools_dir],
)

# The CUDA toolkit is optional for users: tests that need it say
# `REQUIRES: cuda-toolkit` and are unsupported without it.
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(
        ("%cuda_path", os.path.dirname(os.path.dirname(os.path.realpath(ptxas))))
    )

# Helper scripts run under the interpreter that runs lit (Debian's python3).
config.substitutions.append(("%python", sys.executable))

# The GPU simulator (runtime/gpusim) runs CUDA libraries on this machine:
# tests that execute one say `REQUIRES: gpusim` and set
# MIXPREC_LIBCUDA=%gpusim.
gpusim = os.path.join(config.mixprec_obj_root, "lib", "libmixprec_gpusim.so")
if os.path.exists(gpusim):
    config.available_features.add("gpusim")
    config.substitutions.append(("%gpusim", gpusim))
