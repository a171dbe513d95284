"""The C ABI of a model library in ctypes: its structs and its table of entry
points (mixprec_api), which mirrors include/mixprec/Runtime/
mixprec_entry_points.def entry by entry, in order. A test parses that file
and compares (test/Integration/test_python_abi.py), so the two cannot drift.
"""
import ctypes
from ctypes import POINTER, c_char_p, c_float, c_int, c_int32, c_int64, \
    c_size_t, c_uint32, c_uint64, c_void_p

# MIXPREC_API_VERSION of mixprec.h: the version of the table read below.
API_VERSION = 5

STATUS = c_int  # mixprec_status
DTYPE = c_int  # mixprec_dtype
TRAINER = c_void_p  # mixprec_trainer *, opaque
STATE_ROLE = c_int  # mixprec_state_role

# The names of mixprec_state_role's values (MIXPREC_STATE_<NAME>, lower
# case), indexed by value.
STATE_ROLES = ("parameter", "buffer", "step_count", "moment", "loss_scale",
               "loss_scale_tracker", "loss_scale_hysteresis", "skipped",
               "skipped_steps", "finite_gradients")


class Tensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("dtype", DTYPE), ("rank", c_int32),
                ("shape", POINTER(c_int64))]


class TensorSpec(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("dtype", DTYPE), ("rank", c_int32),
                ("shape", POINTER(c_int64))]


class Function(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("num_inputs", c_int32),
                ("inputs", POINTER(TensorSpec)),
                ("num_outputs", c_int32),
                ("outputs", POINTER(TensorSpec))]


class MemoryPlan(ctypes.Structure):
    _fields_ = [("state_bytes", c_int64), ("workspace_bytes", c_int64),
                ("host_bytes", c_int64), ("device_bytes", c_int64)]


# (name, result, parameters) of each entry point, in the table's order.
ENTRY_POINTS = (
    ("mixprec_num_functions", STATUS, (POINTER(c_int32),)),
    ("mixprec_function_at", STATUS, (c_int32, POINTER(POINTER(Function)))),
    ("mixprec_find_function", STATUS,
     (c_char_p, POINTER(POINTER(Function)))),
    ("mixprec_call", STATUS,
     (c_char_p, POINTER(Tensor), c_int32, POINTER(Tensor), c_int32)),
    ("mixprec_call_function", STATUS,
     (POINTER(Function), POINTER(Tensor), c_int32, POINTER(Tensor),
      c_int32)),
    ("mixprec_last_error", c_char_p, ()),
    ("mixprec_device_memory", STATUS, (POINTER(c_int64), POINTER(c_int64))),
    ("mixprec_num_states", STATUS, (POINTER(c_int32),)),
    ("mixprec_state_at", STATUS, (c_int32, POINTER(POINTER(TensorSpec)))),
    ("mixprec_trainer_create", STATUS,
     (c_char_p, c_uint64, POINTER(TRAINER))),
    ("mixprec_trainer_destroy", None, (TRAINER,)),
    ("mixprec_trainer_step", STATUS,
     (TRAINER, POINTER(Tensor), c_int32, c_float, POINTER(c_float))),
    ("mixprec_trainer_step_count", STATUS, (TRAINER, POINTER(c_int64))),
    ("mixprec_trainer_loss_scale", STATUS, (TRAINER, POINTER(c_float))),
    ("mixprec_trainer_skipped", STATUS, (TRAINER, POINTER(c_int32))),
    ("mixprec_trainer_skipped_steps", STATUS, (TRAINER, POINTER(c_int64))),
    ("mixprec_trainer_nonfinite_parameter", STATUS,
     (TRAINER, c_int32, POINTER(c_char_p))),
    ("mixprec_trainer_save", STATUS, (TRAINER, c_char_p)),
    ("mixprec_trainer_load", STATUS, (TRAINER, c_char_p)),
    ("mixprec_trainer_get", STATUS, (TRAINER, c_char_p, POINTER(Tensor))),
    ("mixprec_trainer_set", STATUS, (TRAINER, c_char_p, POINTER(Tensor))),
    ("mixprec_trainer_evaluate", STATUS,
     (TRAINER, c_char_p, c_int64, POINTER(Tensor), c_int32, POINTER(Tensor),
      c_int32)),
    ("mixprec_dtype_size", STATUS, (DTYPE, POINTER(c_size_t))),
    ("mixprec_dtype_name", STATUS, (DTYPE, POINTER(c_char_p))),
    ("mixprec_state_role_at", STATUS,
     (c_int32, POINTER(STATE_ROLE), POINTER(c_char_p))),
    ("mixprec_function_memory", STATUS,
     (POINTER(Function), POINTER(MemoryPlan))),
    ("mixprec_trainer_memory", STATUS, (TRAINER, POINTER(MemoryPlan))),
    ("mixprec_set_num_threads", STATUS, (c_int32,)),
    ("mixprec_num_threads", STATUS, (POINTER(c_int32),)),
)


class Api(ctypes.Structure):
    """mixprec_api: one function pointer per entry point, each with its
    prototype, so a library's table needs no prototypes set on it."""
    _fields_ = [(name, ctypes.CFUNCTYPE(result, *parameters))
                for name, result, parameters in ENTRY_POINTS]


def load_api(lib):
    """The table of entry points of the loaded library `lib` (a ctypes.CDLL)
    of version API_VERSION: (its mixprec_abi_version, the table), the table
    None when the library has none of this version. Raises AttributeError
    when `lib` lacks mixprec_abi_version (it is no model)."""
    abi_version = lib.mixprec_abi_version
    abi_version.restype = c_int32
    abi_version.argtypes = []
    version = abi_version()
    get_api = getattr(lib, "mixprec_get_api", None)
    if get_api is None:
        return version, None
    get_api.restype = POINTER(Api)
    get_api.argtypes = [c_uint32]
    table = get_api(API_VERSION)
    return version, (table.contents if table else None)
