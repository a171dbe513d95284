"""Writes sklearn's digits as the .npy files `mixprec-run train` reads:
pixels / 16 (f32, flattened 8x8), labels (i32), a fixed shuffle (torch's
randperm, seed 0) split into 1500 training and 297 test images -- the split
the test suite trains on.

    /usr/bin/python3 examples/digits_data.py OUTPUT_DIR
"""
import pathlib
import sys

import numpy as np
import torch
from sklearn.datasets import load_digits


def main(directory):
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    data = load_digits()
    images = (data.data / 16.0).astype(np.float32)
    labels = data.target.astype(np.int32)
    order = torch.randperm(len(images),
                           generator=torch.Generator().manual_seed(0)).numpy()
    train, test = order[:1500], order[1500:]
    for name, array in (("x_train", images[train]), ("y_train", labels[train]),
                        ("x_test", images[test]), ("y_test", labels[test])):
        np.save(directory / (name + ".npy"), array)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: digits_data.py OUTPUT_DIR")
    main(sys.argv[1])
