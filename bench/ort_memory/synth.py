#!/usr/bin/python3
"""Write the synthetic models that measure single terms of the onnxruntime profile (no fitting):
  nodes_N.onnx  a chain of N Add nodes on a 1x16 float tensor: the session's per-node cost;
  convbn_N.onnx N blocks Conv 3x3 (256->256) + BatchNormalization + Relu on a 1x256x14x14 input,
                weights in an external data file: what a Conv weight costs resident after
                onnxruntime's Conv+BatchNormalization fusion and NCHWc re-layout.
Usage: /usr/bin/python3 bench/ort_memory/synth.py OUTDIR   (writes NAME.onnx, NAME.inputs.json)"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(model, path, shape, external):
    model.ir_version = 8
    if external:
        onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(path) + '.data', size_threshold=0)
    else:
        onnx.save(model, path)
    json.dump({'bind': {}, 'inputs': {'x': {'dtype': 'float32', 'shape': shape}}},
              open(path[:-len('.onnx')] + '.inputs.json', 'w'))


def nodes(n, path):
    ns, prev = [], 'x'
    for i in range(n):
        o = 't%d' % i if i < n - 1 else 'y'
        ns.append(helper.make_node('Add', [prev, 'x'], [o], name='n%d' % i))
        prev = o
    g = helper.make_graph(ns, 'nodes', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 16])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 16])])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), path, [1, 16], False)


def convbn(n, path, c=256, hw=14):
    rng = np.random.default_rng(0)
    ns, inits, prev = [], [], 'x'
    for i in range(n):
        w = (rng.standard_normal((c, c, 3, 3)) * 0.02).astype(np.float32)
        inits.append(numpy_helper.from_array(w, 'w%d' % i))
        for k, v in (('s', 1.0), ('b', 0.0), ('m', 0.0), ('v', 1.0)):
            inits.append(numpy_helper.from_array(np.full(c, v, np.float32), '%s%d' % (k, i)))
        ns.append(helper.make_node('Conv', [prev, 'w%d' % i], ['c%d' % i], pads=[1, 1, 1, 1]))
        ns.append(helper.make_node('BatchNormalization', ['c%d' % i, 's%d' % i, 'b%d' % i,
                                                         'm%d' % i, 'v%d' % i], ['n%d' % i]))
        o = 'r%d' % i if i < n - 1 else 'y'
        ns.append(helper.make_node('Relu', ['n%d' % i], [o]))
        prev = o
    shape = [1, c, hw, hw]
    g = helper.make_graph(ns, 'convbn', [helper.make_tensor_value_info('x', TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, shape)], inits)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), path, shape, True)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for n in (1, 4000):
    nodes(n, os.path.join(out, 'nodes_%d.onnx' % n))
for n in (1, 40):
    convbn(n, os.path.join(out, 'convbn_%d.onnx' % n))
print('synth: models in', out)
