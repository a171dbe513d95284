"""The element types of the ABI and their numpy storage types."""
import numpy as np

F32, F16, BF16, I32, I64, BOOL = range(6)

NAMES = {F32: "f32", F16: "f16", BF16: "bf16", I32: "i32", I64: "i64",
         BOOL: "bool"}

# numpy has no bf16: bf16 tensors travel as their raw bits in uint16.
NUMPY = {F32: np.float32, F16: np.float16, BF16: np.uint16, I32: np.int32,
         I64: np.int64, BOOL: np.bool_}


def bf16_bits(values):
    """Rounds float32 values to bf16 (nearest even) and returns their bits."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    nan = np.isnan(values)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    rounded = ((bits + rounding) >> 16).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FC0), rounded)


def bf16_to_float(bits):
    """The float32 values of bf16 bits."""
    widened = np.ascontiguousarray(bits, dtype=np.uint16).astype(np.uint32)
    return (widened << 16).view(np.float32)


def numpy_name(dtype):
    """A numpy dtype in the ABI's spelling where it has one ("f32", "bf16"
    is not told from "u16") and numpy's otherwise: "f64", "i8", "u16",
    "c64", "bool", "<U3"."""
    dtype = np.dtype(dtype)
    for code, numpy_type in NUMPY.items():
        if dtype == numpy_type and code != BF16:
            return NAMES[code]
    kinds = {"f": "f", "i": "i", "u": "u", "c": "c"}
    if dtype.kind in kinds:
        return "%s%d" % (kinds[dtype.kind], dtype.itemsize * 8)
    return dtype.str


def type_text(dtype_name, shape):
    """"f32[64, 784]": how data errors show a tensor's type."""
    return "%s[%s]" % (dtype_name, ", ".join(str(d) for d in shape))
