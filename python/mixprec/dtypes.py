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
