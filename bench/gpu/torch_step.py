"""PyTorch eager AMP (f16 autocast, GradScaler) train steps of the three
examples (examples/{mlp,cnn,transformer}.mlir: the same shapes, batches and
optimizers) on a CUDA device, timed with CUDA events after a warm-up; with
mixprec-run's figures for the same steps, the ratios. No numpy: the GPU
machine may lack it.

    python3 torch_step.py [MIXPREC_STEP_FILE]

MIXPREC_STEP_FILE holds lines `<model> <milliseconds per step>` (run.sh
writes them from mixprec-run train). Exit status 3 when there is no torch or
no CUDA device (a skip, as model_check's).
"""
import sys

WARMUP, STEPS = 20, 200


def models(torch):
    nn = torch.nn

    class Cnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(8, 16, 3, padding=1, bias=False),
                nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            return self.fc(self.body(x).flatten(1))

    class Transformer(nn.Module):
        """One pre-norm block: 4 heads of 16, MLP 256, dropout 0.1, mean
        pooling into 4 classes."""

        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(100, 64)
            self.pos = nn.Parameter(torch.zeros(16, 64))
            self.ln1, self.ln2, self.ln_f = (nn.LayerNorm(64) for _ in "abc")
            self.q, self.k, self.v, self.out = (nn.Linear(64, 64)
                                                for _ in "abcd")
            self.fc1, self.fc2 = nn.Linear(64, 256), nn.Linear(256, 64)
            self.head = nn.Linear(64, 4)
            self.drop = nn.Dropout(0.1)

        def forward(self, tokens):
            def heads(t):
                return t.reshape(8, 16, 4, 16).transpose(1, 2)

            x0 = self.tok(tokens) + self.pos
            h = self.ln1(x0)
            q, k, v = heads(self.q(h)), heads(self.k(h)), heads(self.v(h))
            probs = torch.softmax(q @ k.transpose(-1, -2) * 0.25, dim=-1)
            ctx = (self.drop(probs) @ v).transpose(1, 2).reshape(8, 16, 64)
            x1 = x0 + self.drop(self.out(ctx))
            up = nn.functional.gelu(self.fc1(self.ln2(x1)))
            x2 = x1 + self.drop(self.fc2(up))
            return self.head(self.ln_f(x2).mean(dim=1))

    device = torch.device("cuda")
    mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    cnn, transformer = Cnn(), Transformer()
    # model: (module, optimizer, inputs, labels), as the examples declare.
    return {
        "mlp": (mlp, torch.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9),
                torch.rand(64, 64, device=device) * 16,
                torch.randint(0, 10, (64,), device=device)),
        "cnn": (cnn, torch.optim.SGD(cnn.parameters(), lr=0.05, momentum=0.9,
                                     weight_decay=5e-4),
                torch.rand(32, 1, 8, 8, device=device) * 16,
                torch.randint(0, 10, (32,), device=device)),
        "transformer": (transformer,
                        torch.optim.AdamW(transformer.parameters(), lr=1e-3,
                                          weight_decay=0.01),
                        torch.randint(0, 100, (8, 16), device=device),
                        torch.randint(0, 4, (8,), device=device)),
    }


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
