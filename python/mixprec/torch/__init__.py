"""PyTorch modules as mixed-precision train steps.

    import mixprec.torch as mpt
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    trainer = mpt.compile(model, lambda m, x, y: F.cross_entropy(m(x), y),
                          example_batch=(x, y), optimizer=opt,
                          precision="bf16", target="cpu")
    loss = trainer.step(x, y)
    model.load_state_dict(trainer.state_dict())
    history = mpt.fit(trainer, loader, epochs=3)   # a tqdm progress bar

The module is traced with torch.fx (torch.nn layers, nn.MultiheadAttention
and nn.TransformerEncoderLayer are expanded from their configuration and
weights), written in the mixprec dialect and compiled with
mixprec-compile. What cannot be imported raises UnsupportedError naming it
and the line of the user's code.
"""
from .errors import UnsupportedError
from .fit import fit
from .trainer import Trainer, compile

__all__ = ["UnsupportedError", "Trainer", "compile", "fit"]
