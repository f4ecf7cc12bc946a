#!/usr/bin/env python3
"""Probe models of onnxruntime's NCHWc convolutions (docs/cost.md, "Session 24").

Each model: four 2-D convolutions reading one input, summed. The names say what varies:
  f_CIN_COUT_kK     COUT filters of a KxK window over CIN channels, 2 x 64 x 96 output pixels,
                    no padding (the input carries its halo): the filter blocks MLAS computes in
                    sets of up to four (16, 32, 48, 64, 80 filters: sets of 1, 2, 3, 4, 4 + 1);
  e_CIN_COUT_wW     3x3 with padding 1 at output width W (rows adjusted to keep the pixels):
                    the edge pixels MLAS computes on its one-pixel path;
  pad_CIN_COUT      3x3 whose channel counts are not whole blocks of 16 (a 1x1 convolution of 16
                    channels first, so that the probed one reads a blocked input): the padded
                    channels onnxruntime computes.
  rs_FORM_C_H       a Resize by 2 of [1, C, H, 3H/4] between two Negs (plain NCHW) or two 1x1
                    convolutions (FORM b...: its input blocked): FORM pn / bn nearest with
                    asymmetric coordinates and nearest_mode floor (onnxruntime copies), pn_rpf
                    and pn_hp nearest with round_prefer_floor or half_pixel (its generic nearest
                    kernel), bl_hp / pl_hp linear with half_pixel (its NCHWc Upsample / generic
                    bilinear kernel).
usage: probe_nchwc.py DIR   (writes NAME.onnx and NAME.inputs.json for every probe; prints names)
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H, W = 64, 96


def save(path, name, nodes, inits, xshape):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info('x', TensorProto.FLOAT, xshape)],
                          [helper.make_tensor_value_info('out', TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    m.ir_version = 8
    onnx.save(m, os.path.join(path, name + '.onnx'))
    with open(os.path.join(path, name + '.inputs.json'), 'w') as f:
        json.dump({'model': name, 'inputs': {'x': {'shape': xshape, 'dtype': 'float32'}}}, f)
    print(name)


def four_convs(src, cin, cout, k, pad, rng):
    nodes, inits = [], []
    for i in range(4):
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((cout, cin, k, k)) * 0.05).astype(np.float32), 'w%d' % i))
        nodes.append(helper.make_node('Conv', [src, 'w%d' % i], ['y%d' % i], pads=[pad] * 4))
    nodes.append(helper.make_node('Sum', ['y%d' % i for i in range(4)], ['out']))
    return nodes, inits


def main():
    path = sys.argv[1]
    os.makedirs(path, exist_ok=True)
    rng = np.random.default_rng(24)
    for k in (3, 1):
        for cout in (16, 32, 48, 64, 80):
            nodes, inits = four_convs('x', 64, cout, k, 0, rng)
            save(path, 'f_64_%d_k%d' % (cout, k), nodes, inits, [2, 64, H + k - 1, W + k - 1])
    for cout in (16, 64):
        for w in (96, 24):
            nodes, inits = four_convs('x', 64, cout, 3, 1, rng)
            save(path, 'e_64_%d_w%d' % (cout, w), nodes, inits, [2, 64, H * W // w, w])
    for cin, cout in ((96, 24), (96, 32), (40, 64), (48, 64)):
        first = numpy_helper.from_array((rng.standard_normal((cin, 16, 1, 1)) * 0.05).astype(np.float32), 'w_in')
        nodes, inits = four_convs('h', cin, cout, 3, 0, rng)
        nodes.insert(0, helper.make_node('Conv', ['x', 'w_in'], ['h']))
        save(path, 'pad_%d_%d' % (cin, cout), nodes, [first] + inits, [2, 16, H + 2, W + 2])
    sc = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), 'sc')
    forms = (('pn', 'nearest', 'asymmetric', 'floor', False), ('pn_rpf', 'nearest', 'asymmetric', 'round_prefer_floor', False),
             ('pn_hp', 'nearest', 'half_pixel', 'round_prefer_floor', False), ('bn', 'nearest', 'asymmetric', 'floor', True),
             ('bl_hp', 'linear', 'half_pixel', 'floor', True), ('pl_hp', 'linear', 'half_pixel', 'floor', False))
    for c, h in ((96, 80), (32, 160)):
        for tag, mode, ctm, nearest, blocked in forms:
            w = numpy_helper.from_array((rng.standard_normal((c, c, 1, 1)) * 0.05).astype(np.float32), 'w')
            first = helper.make_node('Conv', ['x', 'w'], ['h']) if blocked else helper.make_node('Neg', ['x'], ['h'])
            last = helper.make_node('Conv', ['r', 'w'], ['out']) if blocked else helper.make_node('Neg', ['r'], ['out'])
            resize = helper.make_node('Resize', ['h', '', 'sc'], ['r'], mode=mode,
                                      coordinate_transformation_mode=ctm, nearest_mode=nearest)
            save(path, 'rs_%s_%d_%d' % (tag, c, h), [first, resize, last], [sc, w] if blocked else [sc],
                 [1, c, h, h * 3 // 4])


if __name__ == '__main__':
    main()
