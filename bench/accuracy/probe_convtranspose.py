#!/usr/bin/env python3
"""Probe models of onnxruntime's ConvTranspose (docs/cost.md, "Transposed convolutions").

Each model: one 2-D ConvTranspose of a [1, CIN, H, W] input, random weights. onnxruntime runs it
as a GEMM into a column buffer, then adds the buffer into the zeroed output (Col2im) and adds the
bias: the names say what varies in that second part.
  s2_CIN_COUT_HxW       kernel 2, stride 2, no padding (a U-Net's or a text detector's
                        upsampling): Col2im one element at a time;
  k4s2_CIN / k3s2p01_CIN / k4s2p1_CIN / k3s2p1_CIN   larger kernels, unequal or equal padding:
                        Col2im's other element-at-a-time loops;
  k3s1_CIN / k3s1p1_CIN stride 1 without and with padding: Col2im a row at a time (vectorised)
                        without padding, one element at a time with;
  k4s4_CIN              kernel 4, stride 4;
  ..._b                 the same with a bias.
usage: probe_convtranspose.py DIR   (writes NAME.onnx and NAME.inputs.json; prints names)
"""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

from probe_nchwc import save

# name, input channels, output channels, H, W, kernel, stride, pads (top, left, bottom, right), bias
CASES = [
    ('s2_24_24_160x120', 24, 24, 160, 120, 2, 2, [0, 0, 0, 0], False),
    ('s2_24_24_160x120_b', 24, 24, 160, 120, 2, 2, [0, 0, 0, 0], True),
    ('s2_24_1_320x240_b', 24, 1, 320, 240, 2, 2, [0, 0, 0, 0], True),
    ('s2_64_64_40x30', 64, 64, 40, 30, 2, 2, [0, 0, 0, 0], False),
    ('s2_96_96_40x30', 96, 96, 40, 30, 2, 2, [0, 0, 0, 0], False),
    ('s2_256_128_20x15', 256, 128, 20, 15, 2, 2, [0, 0, 0, 0], False),
    ('s2_8_8_160x120', 8, 8, 160, 120, 2, 2, [0, 0, 0, 0], False),
    ('s2_4_4_320x240', 4, 4, 320, 240, 2, 2, [0, 0, 0, 0], False),
    ('k4s2_16', 16, 16, 64, 48, 4, 2, [0, 0, 0, 0], False),
    ('k4s2p1_32', 32, 32, 64, 48, 4, 2, [1, 1, 1, 1], False),
    ('k3s2p01_32', 32, 32, 64, 48, 3, 2, [0, 0, 1, 1], False),
    ('k3s2p1_16', 16, 16, 96, 96, 3, 2, [1, 1, 1, 1], False),
    ('k3s1_32', 32, 32, 64, 64, 3, 1, [0, 0, 0, 0], False),
    ('k3s1p1_32', 32, 32, 64, 64, 3, 1, [1, 1, 1, 1], False),
    ('k4s4_64', 64, 32, 40, 30, 4, 4, [0, 0, 0, 0], False),
]


def main():
    path = sys.argv[1]
    os.makedirs(path, exist_ok=True)
    rng = np.random.default_rng(25)
    for name, cin, cout, h, w, k, s, pads, bias in CASES:
        inits = [numpy_helper.from_array((rng.standard_normal((cin, cout, k, k)) * 0.05)
                                         .astype(np.float32), 'w')]
        ins = ['x', 'w']
        if bias:
            inits.append(numpy_helper.from_array(rng.standard_normal(cout).astype(np.float32), 'b'))
            ins.append('b')
        node = helper.make_node('ConvTranspose', ins, ['out'], strides=[s, s], kernel_shape=[k, k],
                                pads=pads)
        save(path, name, [node], inits, [1, cin, h, w])


if __name__ == '__main__':
    main()
