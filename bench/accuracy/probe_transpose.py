#!/usr/bin/env python3
"""Probe models of onnxruntime's Transpose (docs/cost.md, "Transposes").

Each model: one Transpose of a float input x. onnxruntime's CPU kernel (transpose.cc, read) takes
one of these paths, and the names say which (a permutation that keeps the dims above 1 in order
is a copy, which the cost model takes as free, like a Reshape: not probed):
  s1_...  one axis moves and the block behind it is one element: MlasTranspose, 2-D tiles;
  sb_...  one axis moves and the block behind it is larger: a memcpy per block;
  mb_...  several axes move, the innermost stays: a memcpy per block, the source found by a
          multi-index walk;
  me_...  several axes move, the innermost too: one element at a time by the multi-index walk.
usage: probe_transpose.py DIR   (writes NAME.onnx and NAME.inputs.json; prints names)
"""
import os
import sys

from onnx import helper

from probe_nchwc import save

# name, input shape, permutation
CASES = [
    ('me_win_6d_64', [1, 8, 8, 7, 7, 64], [0, 5, 1, 3, 2, 4]),
    ('me_unwin_6d_64', [1, 64, 8, 7, 8, 7], [0, 2, 4, 3, 5, 1]),
    ('me_win_6d_256', [1, 2, 2, 7, 7, 256], [0, 5, 1, 3, 2, 4]),
    ('me_win_6d_32_big', [1, 16, 16, 7, 7, 32], [0, 5, 1, 3, 2, 4]),
    ('me_4d_0321', [1, 32, 56, 56], [0, 3, 2, 1]),
    ('me_3d_210', [64, 96, 48], [2, 1, 0]),
    ('s1_nchw_nhwc', [1, 64, 56, 56], [0, 2, 3, 1]),
    ('s1_nhwc_nchw', [1, 56, 56, 64], [0, 3, 1, 2]),
    ('s1_kt', [1, 12, 128, 64], [0, 1, 3, 2]),
    ('sb_heads_32', [1, 64, 49, 2, 32], [0, 1, 3, 2, 4]),
    ('sb_heads_64', [1, 197, 12, 64], [0, 2, 1, 3]),
    ('sb_shuffle', [1, 2, 58, 28, 28], [0, 2, 1, 3, 4]),
    ('sb_swin_win', [1, 8, 7, 8, 7, 96], [0, 1, 3, 2, 4, 5]),
    ('mb_6d_32', [1, 8, 7, 8, 7, 32], [0, 2, 4, 1, 3, 5]),
    ('mb_6d_4', [1, 8, 7, 8, 7, 4], [0, 2, 4, 1, 3, 5]),
]


def main():
    path = sys.argv[1]
    os.makedirs(path, exist_ok=True)
    for name, shape, perm in CASES:
        node = helper.make_node('Transpose', ['x'], ['out'], perm=perm)
        save(path, name, [node], [], shape)


if __name__ == '__main__':
    main()
