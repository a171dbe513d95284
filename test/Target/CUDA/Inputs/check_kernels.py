"""Checks a CUDA model's kernels and counts its launches.

    check_kernels.py <kernels.ptx> <f16|bf16> <host.mlir>

The PTX (`--emit=ptx`) holds each distinct kernel once: a tensor-core kernel
(`*_gemm_<n>`) must load fragments with ldmatrix and multiply with mma.sync
of the given input type; no other kernel may use either. The host code
(`--emit=mlir`) launches them; every launched kernel must be in the PTX and
every kernel of the PTX launched. Prints one line per host function,
`<function>: <n> tensor-core launches, <m> other launches`, then
`distinct: <n> tensor-core kernels, <m> other kernels`; or the offending
kernel, and exits 1."""
import re
import sys
from collections import Counter

ptx_path, element, host_path = sys.argv[1:4]
mma = f"mma.sync.aligned.m16n8k16.row.col.f32.{element}.{element}.f32"
text = open(ptx_path).read()
# An entry's body runs from its name to the next entry.
entries = re.split(r"\.visible \.entry |\.entry ", text)[1:]
kinds = {}
for entry in entries:
    name = entry[: entry.index("(")]
    match = re.fullmatch(r".*_(gemm|kernel)_\d+", name)
    if not match:
        sys.exit(f"unexpected kernel name {name}")
    kind = match.group(1)
    has_ldmatrix = re.search(r"ldmatrix\.sync\.aligned\.m8n8\.x4(\.trans)?\.shared\.b16",
                             entry) is not None
    has_mma = mma in entry
    if kind == "gemm" and not (has_ldmatrix and has_mma):
        sys.exit(f"{name}: no ldmatrix or no {mma}")
    if kind == "kernel" and ("mma.sync" in entry or "ldmatrix" in entry):
        sys.exit(f"{name}: tensor-core instructions outside a GEMM kernel")
    kinds[name] = kind

launches = Counter()
launched = set()
function = None
for line in open(host_path):
    header = re.match(r"\s*llvm\.func @(\w+)\(", line)
    if header:
        function = header.group(1)
    launch = re.search(r"gpu\.launch_func .*@kernels::@(\w+)", line)
    if launch:
        name = launch.group(1)
        if name not in kinds:
            sys.exit(f"{function} launches {name}, which the PTX lacks")
        launched.add(name)
        launches[(function, kinds[name])] += 1
if launched != set(kinds):
    sys.exit(f"kernels never launched: {sorted(set(kinds) - launched)}")
for function in sorted({f for f, _ in launches}):
    print(f"{function}: {launches[(function, 'gemm')]} tensor-core launches, "
          f"{launches[(function, 'kernel')]} other launches")
distinct = Counter(kinds.values())
print(f"distinct: {distinct['gemm']} tensor-core kernels, "
      f"{distinct['kernel']} other kernels")
