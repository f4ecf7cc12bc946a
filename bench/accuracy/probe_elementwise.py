#!/usr/bin/env python3
"""Probe models of onnxruntime's elementwise kernels (docs/cost.md, "PRelu", "Passes in a cache").

  pr_...   an Add of a per-channel bias of +1 or -1 (alternating channels), then a PRelu of one
           slope per channel: the bias fixes each channel's sign (sin(i)/2, the harness's input,
           stays within 0.5), so the PRelu's branch is predicted, as on a network's activations
           whose sign holds along a channel's row. Subtract the ad_ probe of the same shape to
           get the PRelu's own time;
  ad_...   the Add alone;
  prs_...  a PRelu of the raw input, whose sign changes every few elements: the branch
           mispredicted (the cost model does not know the data; docs/cost.md, "PRelu");
  st_...   a Mul by a scalar, a stream of 2-32 MiB (the input read, the output written).
usage: probe_elementwise.py DIR   (writes NAME.onnx and NAME.inputs.json; prints names)
"""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

from probe_nchwc import save

# name, input shape (channels on axis 1)
PRELU = [
    ('512x2001', [1, 512, 2001]),
    ('64x56x56', [1, 64, 56, 56]),
]
STREAM = [('st_2m', [1, 16, 128, 128]), ('st_8m', [1, 64, 128, 128]),
          ('st_32m', [1, 64, 256, 256])]


def chan(shape, values):
    """A per-channel constant broadcast along the axes after the channels."""
    return np.asarray(values, np.float32).reshape([shape[1]] + [1] * (len(shape) - 2))


def main():
    path = sys.argv[1]
    os.makedirs(path, exist_ok=True)
    for tag, shape in PRELU:
        c = shape[1]
        bias = numpy_helper.from_array(chan(shape, [1.0 if i % 2 == 0 else -1.0 for i in range(c)]), 'b')
        slope = numpy_helper.from_array(chan(shape, [0.25] * c), 's')
        add = helper.make_node('Add', ['x', 'b'], ['biased'])
        save(path, 'pr_' + tag, [add, helper.make_node('PRelu', ['biased', 's'], ['out'])],
             [bias, slope], shape)
        save(path, 'ad_' + tag, [helper.make_node('Add', ['x', 'b'], ['out'])], [bias], shape)
        save(path, 'prs_' + tag, [helper.make_node('PRelu', ['x', 's'], ['out'])], [slope], shape)
    half = numpy_helper.from_array(np.asarray([0.5], np.float32), 'h')
    for name, shape in STREAM:
        save(path, name, [helper.make_node('Mul', ['x', 'h'], ['out'])], [half], shape)


if __name__ == '__main__':
    main()
