"""Writes token sequences for examples/transformer.mlir as the .npy files
`mixprec-run train` and model_check read: tokens (i32 [N, 16], ids in
[0, 100)) and labels (i32 [N], classes in [0, 4)). A learnable task: half
the tokens of a class-c sequence come from the ids [25c, 25c + 25), the rest
from all 100.

    /usr/bin/python3 bench/gpu/transformer_data.py OUTPUT_DIR
"""
import pathlib
import sys

import numpy as np

SAMPLES, LENGTH, VOCAB, CLASSES = 1600, 16, 100, 4


def main(directory):
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    labels = rng.integers(0, CLASSES, SAMPLES, dtype=np.int32)
    band = VOCAB // CLASSES
    in_class = labels[:, None] * band + rng.integers(0, band, (SAMPLES, LENGTH))
    anywhere = rng.integers(0, VOCAB, (SAMPLES, LENGTH))
    tokens = np.where(rng.random((SAMPLES, LENGTH)) < 0.5, in_class, anywhere)
    np.save(directory / "tokens.npy", tokens.astype(np.int32))
    np.save(directory / "labels.npy", labels)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: transformer_data.py OUTPUT_DIR")
    main(sys.argv[1])
