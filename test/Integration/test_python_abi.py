"""The Python package's table of the C ABI (python/mixprec/abi.py) against
the C header's list of entry points; the table a compiled library hands out
(mixprec_get_api) and calls by handle; a library of another version refused
by mixprec-run and Python."""
import ctypes
import re
import subprocess
from ctypes import POINTER, c_char_p, c_float, c_int, c_int32, c_int64, \
    c_size_t, c_uint64, c_void_p

import numpy as np
import pytest

import abi_header
import mixprec
from mixprec import abi

# How each C type of the header is spelled in ctypes; written here, not
# taken from the package under test.
CTYPES = {
    "void": None,
    "mixprec_status": c_int,
    "mixprec_dtype": c_int,
    "int32_t": c_int32,
    "int64_t": c_int64,
    "uint64_t": c_uint64,
    "float": c_float,
    "const char *": c_char_p,
    "int32_t *": POINTER(c_int32),
    "int64_t *": POINTER(c_int64),
    "float *": POINTER(c_float),
    "size_t *": POINTER(c_size_t),
    "const char **": POINTER(c_char_p),
    "mixprec_trainer *": c_void_p,
    "const mixprec_trainer *": c_void_p,
    "mixprec_trainer **": POINTER(c_void_p),
    "const mixprec_tensor *": POINTER(abi.Tensor),
    "const mixprec_function *": POINTER(abi.Function),
    "const mixprec_function **": POINTER(POINTER(abi.Function)),
    "const mixprec_tensor_spec **": POINTER(POINTER(abi.TensorSpec)),
    "mixprec_state_role *": POINTER(c_int),
    "mixprec_memory_plan *": POINTER(abi.MemoryPlan),
}


def test_the_header_lists_the_entry_points():
    names = [name for name, _, _ in abi_header.entry_points()]
    # A few fixed points of version 5, so a parser that finds nothing or
    # the wrong things fails here.
    assert len(names) == 29, names
    assert names[0] == "mixprec_num_functions"
    assert names[3:5] == ["mixprec_call", "mixprec_call_function"]
    assert names[-6:] == ["mixprec_dtype_name", "mixprec_state_role_at",
                          "mixprec_function_memory", "mixprec_trainer_memory",
                          "mixprec_set_num_threads", "mixprec_num_threads"]
    assert len(set(names)) == len(names)


def test_python_table_mirrors_the_header():
    header = abi_header.entry_points()
    python = abi.ENTRY_POINTS
    assert [n for n, _, _ in python] == [n for n, _, _ in header]
    for (name, result, parameters), (_, c_result, c_parameters) in zip(
            python, header):
        assert result is CTYPES[c_result], (name, c_result)
        assert list(parameters) == [CTYPES[t] for t in c_parameters], \
            (name, c_parameters)
    assert [f for f, _ in abi.Api._fields_] == [n for n, _, _ in header]


def test_python_version_is_the_headers():
    text = (abi_header.ROOT / "include" / "mixprec" / "Runtime" /
            "mixprec.h").read_text()
    version = re.search(r"#define MIXPREC_API_VERSION (\d+)", text)
    assert version and int(version.group(1)) == abi.API_VERSION


def test_python_state_roles_are_the_headers():
    # mixprec_state_role's enumerators, MIXPREC_STATE_<NAME> = <value>.
    text = (abi_header.ROOT / "include" / "mixprec" / "Runtime" /
            "mixprec.h").read_text()
    roles = {int(value): name.lower() for name, value in
             re.findall(r"MIXPREC_STATE_(\w+) = (\d+)", text)}
    assert len(roles) == 10, roles
    assert abi.STATE_ROLES == tuple(roles[v] for v in range(len(roles)))


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    source = """
func.func @sum(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %z = mixprec.add %x, %y : tensor<2xf32>, tensor<2xf32>
  return %z : tensor<2xf32>
}
"""
    return mixprec.compile_source(
        source, tmp_path_factory.mktemp("abi") / "libsum.so")


def test_a_library_hands_out_the_table_of_its_version(library):
    lib = ctypes.CDLL(str(library.path), mode=ctypes.RTLD_LOCAL)
    version, table = abi.load_api(lib)
    assert version == abi.API_VERSION
    assert table is not None
    # The table's entries are the library's exported functions.
    for name, _, _ in abi.ENTRY_POINTS:
        entry = ctypes.cast(getattr(table, name), c_void_p).value
        assert entry == ctypes.cast(getattr(lib, name), c_void_p).value, name
    lib.mixprec_get_api.restype = c_void_p
    lib.mixprec_get_api.argtypes = [ctypes.c_uint32]
    for other in (0, 2, abi.API_VERSION + 1):
        assert lib.mixprec_get_api(other) is None, other


def test_calls_by_handle_reach_the_function(library):
    (z,) = library.call("sum", [np.array([3.0, 4.0], np.float32),
                                np.array([1.0, 2.0], np.float32)])
    assert z.tolist() == [4.0, 6.0]
    # A handle of another library is refused, not followed.
    api = library._api
    foreign = ctypes.pointer(abi.Function())
    x = np.zeros(2, np.float32)
    tensors = (abi.Tensor * 1)(abi.Tensor(
        x.ctypes.data, 0, 1, (c_int64 * 1)(2)))
    status = api.mixprec_call_function(foreign, tensors, 1, tensors, 1)
    assert status == mixprec.ModelError.INVALID_ARGUMENT
    assert b"is no function of this model" in api.mixprec_last_error()


# (what the library says its version is, the version of the table it
# hands out or None, how mixprec-run and Python refuse it)
OTHER_VERSIONS = [
    (4, None, "compiled for ABI version 4, this tool speaks 5",
     "ABI version 4, expected 5"),
    (6, 6, "compiled for ABI version 6, this tool speaks 5",
     "ABI version 6, expected 5"),
    (5, None, "not a mixprec model: no table of entry points of version 5 "
     "(mixprec_get_api)", "not a mixprec model: no table of entry points "
     "of version 5 (mixprec_get_api)"),
]


@pytest.mark.parametrize("version, table, by_tool, by_python", OTHER_VERSIONS)
def test_a_library_of_another_version_is_refused(tmp_path, version, table,
                                                 by_tool, by_python):
    source = tmp_path / "other.c"
    text = "#include <stdint.h>\n" \
        "int32_t mixprec_abi_version(void) { return %d; }\n" % version
    if table is not None:
        text += ("const void *mixprec_get_api(uint32_t v) {\n"
                 "  static int table;\n"
                 "  return v == %d ? &table : 0;\n}\n" % table)
    source.write_text(text)
    library = tmp_path / "libother.so"
    proc = subprocess.run(["cc", "-shared", "-fPIC", str(source), "-o",
                           str(library)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([mixprec.tool_path("mixprec-run"), str(library),
                           "--list"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "%s: %s" % (library, by_tool) in proc.stderr, proc.stderr
    with pytest.raises(mixprec.ModelError,
                       match="^%s: %s$" % (re.escape(str(library)),
                                           re.escape(by_python))):
        mixprec.Model(library)
