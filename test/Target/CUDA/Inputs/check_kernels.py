"""Checks every kernel of a PTX module: a tensor-core kernel (`*_gemm_<n>`)
must load fragments with ldmatrix and multiply with mma.sync of the given
input type; no other kernel may use either. Prints one line per function
prefix: `<prefix>: <tensor-core kernels> tensor-core kernels, <others> other
kernels`, or the offending kernel and exits 1."""
import re
import sys
from collections import Counter

ptx_path, element = sys.argv[1], sys.argv[2]
mma = f"mma.sync.aligned.m16n8k16.row.col.f32.{element}.{element}.f32"
text = open(ptx_path).read()
# An entry's body runs from its name to the next entry.
entries = re.split(r"\.visible \.entry |\.entry ", text)[1:]
counts = Counter()
for entry in entries:
    name = entry[: entry.index("(")]
    match = re.fullmatch(r"(.*)_(gemm|kernel)_\d+", name)
    if not match:
        sys.exit(f"unexpected kernel name {name}")
    prefix, kind = match.groups()
    has_ldmatrix = "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in entry
    has_mma = mma in entry
    if kind == "gemm" and not (has_ldmatrix and has_mma):
        sys.exit(f"{name}: no ldmatrix or no {mma}")
    if kind == "kernel" and ("mma.sync" in entry or "ldmatrix" in entry):
        sys.exit(f"{name}: tensor-core instructions outside a GEMM kernel")
    counts[(prefix, kind)] += 1
for prefix in sorted({p for p, _ in counts}):
    print(f"{prefix}: {counts[(prefix, 'gemm')]} tensor-core kernels, "
          f"{counts[(prefix, 'kernel')]} other kernels")
