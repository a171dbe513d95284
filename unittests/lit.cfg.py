# -*- Python -*-
# The GoogleTest executables under lit, as upstream MLIR's test/Unit does:
# every executable in the build's unittests/ whose name ends in "Tests" is
# run, and each of its tests is reported as a lit test.
import os

import lit.formats

config.name = "MIXPREC-Unit"
config.suffixes = []
config.excludes = ["CMakeFiles"]
config.test_exec_root = os.path.join(config.mixprec_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
