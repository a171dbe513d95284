"""torch.matmul (cuBLAS) on bf16 4096x4096 CUDA tensors, timed with CUDA
events after a warm-up; with model_check's figure for mixprec, the ratio.
No numpy: the GPU machine may lack it.

    python3 torch_gemm.py [MIXPREC_TFLOPS_FILE]

Exit status 3 when there is no torch or no CUDA device (a skip, as
model_check's).
"""
import sys

N, WARMUP, ITERATIONS = 4096, 10, 50


def main(tflops_file):
    try:
        import torch
    except ImportError as error:
        print("SKIP torch bf16 GEMM: no torch (%s)" % error)
        return 3
    if not torch.cuda.is_available():
        print("SKIP torch bf16 GEMM: torch %s sees no CUDA device"
              % torch.__version__)
        return 3
    # Sums in f32 throughout, as mixprec's kernels: no bf16 split-K sums
    # (a switch since torch 2.0).
    try:
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = (
            False)
    except (AttributeError, AssertionError):
        pass
    generator = torch.Generator(device="cuda").manual_seed(0)
    a, b = (torch.rand(N, N, device="cuda", dtype=torch.bfloat16,
                       generator=generator) * 2 - 1 for _ in range(2))
    for _ in range(WARMUP):
        torch.matmul(a, b)
    start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
    start.record()
    for _ in range(ITERATIONS):
        torch.matmul(a, b)
    end.record()
    end.synchronize()
    seconds = start.elapsed_time(end) / 1e3 / ITERATIONS
    tflops = 2.0 * N ** 3 / seconds / 1e12
    print("FIGURE bf16 GEMM %dx%dx%d, torch %s on %s: %.3f ms per "
          "torch.matmul = %.1f TFLOP/s (mean of %d after %d warm-up, CUDA "
          "events)" % (N, N, N, torch.__version__,
                       torch.cuda.get_device_name(), seconds * 1e3, tflops,
                       ITERATIONS, WARMUP))
    try:
        with open(tflops_file) as file:
            ours = float(file.read())
    except (TypeError, OSError, ValueError):
        print("FIGURE mixprec / torch bf16 GEMM throughput: no mixprec "
              "figure (its timing did not run)")
        return 0
    print("FIGURE mixprec / torch bf16 GEMM throughput: %.1f / %.1f TFLOP/s "
          "= %.3f" % (ours, tflops, ours / tflops))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
