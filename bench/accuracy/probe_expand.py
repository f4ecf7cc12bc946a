#!/usr/bin/env python3
"""Probe models of onnxruntime's expand-then-GEMM convolutions (docs/cost.md, "The expand pass").

In pairs: x_NAME a convolution that MLAS runs as im2col + GEMM (1-D or 3-D), n_NAME a 2-D one of
the same GEMM shape (output pixels x K x filters) that onnxruntime runs in NCHWc. Read the ratio
x / n, measured against predicted: it is robust to the host's speed, which moves both.
  3d_C    3x3x3, C -> C channels, padding 1 / 3x3 over 3C channels;
  1d_C_K  kernel K, C -> C channels, padding K/2 / a (1, K) kernel on a height-1 image.
usage: probe_expand.py DIR   (writes NAME.onnx and NAME.inputs.json; prints names)
"""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

from probe_nchwc import save

# name, (expand input, weight, pads), (NCHWc input, weight, pads)
PAIRS = [
    ('3d_256', ([1, 256, 2, 14, 14], [256, 256, 3, 3, 3], [1] * 6), ([1, 768, 28, 14], [256, 768, 3, 3], [1] * 4)),
    ('3d_128', ([1, 128, 4, 28, 28], [128, 128, 3, 3, 3], [1] * 6), ([1, 384, 56, 56], [128, 384, 3, 3], [1] * 4)),
    ('3d_64', ([1, 64, 8, 56, 56], [64, 64, 3, 3, 3], [1] * 6), ([1, 192, 224, 112], [64, 192, 3, 3], [1] * 4)),
    ('1d_256_7', ([1, 256, 800], [256, 256, 7], [3, 3]), ([1, 256, 1, 800], [256, 256, 1, 7], [0, 3, 0, 3])),
    ('1d_64_5', ([1, 64, 4000], [64, 64, 5], [2, 2]), ([1, 64, 1, 4000], [64, 64, 1, 5], [0, 2, 0, 2])),
]


def conv(path, name, xshape, wshape, pads, rng):
    w = numpy_helper.from_array((rng.standard_normal(wshape) * 0.05).astype(np.float32), 'w')
    save(path, name, [helper.make_node('Conv', ['x', 'w'], ['out'], pads=pads)], [w], xshape)


def main():
    path = sys.argv[1]
    os.makedirs(path, exist_ok=True)
    rng = np.random.default_rng(25)
    for name, expand, nchwc in PAIRS:
        conv(path, 'x_' + name, *expand, rng)
        conv(path, 'n_' + name, *nchwc, rng)


if __name__ == '__main__':
    main()
