"""PyTorch eager AMP (f16 autocast, GradScaler) train steps of the three
examples (examples/{mlp,cnn,transformer}.mlir: the same shapes, batches and
optimizers, from torch_twins.py) on a CUDA device, timed with CUDA events
after a warm-up; with mixprec-run's figures for the same steps, the
ratios. No numpy: the GPU machine may lack it.

    python3 torch_step.py [MIXPREC_STEP_FILE]

MIXPREC_STEP_FILE holds lines `<model> <milliseconds per step>` (run.sh
writes them from mixprec-run train). Exit status 3 when there is no torch or
no CUDA device (a skip, as model_check's).
"""
import sys

WARMUP, STEPS = 20, 200


def models(torch):
    """model: (module, optimizer, inputs, labels): the examples' PyTorch
    twins (torch_twins.py, which build.sh copies beside this script) with
    their batches on the device."""
    import torch_twins
    device = torch.device("cuda")
    cases = {}
    for name, build in torch_twins.BUILDERS.items():
        module, optimizer, _, (inputs, labels) = build()
        cases[name] = (module, optimizer, inputs.to(device), labels.to(device))
    return cases


def milliseconds_per_step(torch, module, optimizer, inputs, labels):
    module.cuda().train()
    scaler = torch.cuda.amp.GradScaler()

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(module(inputs), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        # mixprec-run reads every step's loss back: so does this.
        return loss.item()

    for _ in range(WARMUP):
        step()
    start, end = (torch.cuda.Event(enable_timing=True) for _ in "ab")
    start.record()
    for _ in range(STEPS):
        step()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / STEPS


def main(step_file):
    try:
        import torch
    except ImportError as error:
        print("SKIP PyTorch AMP steps: no torch (%s)" % error)
        return 3
    if not torch.cuda.is_available():
        print("SKIP PyTorch AMP steps: torch %s sees no CUDA device"
              % torch.__version__)
        return 3
    ours = {}
    if step_file:
        with open(step_file) as lines:
            for line in lines:
                model, milliseconds = line.split()
                ours[model] = float(milliseconds)
    for model, case in models(torch).items():
        theirs = milliseconds_per_step(torch, *case)
        line = "FIGURE %s AMP f16 train step, PyTorch eager: %.3f ms" % (
            model, theirs)
        if model in ours:
            line += "; mixprec %.3f ms, mixprec / PyTorch = %.2f" % (
                ours[model], ours[model] / theirs)
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
