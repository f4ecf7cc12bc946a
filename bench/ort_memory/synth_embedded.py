#!/usr/bin/python3
"""Write synthetic models with one 64 MiB weight stored INSIDE the .onnx (session 11, for
tiny_lm_embedded's over-prediction): mm_emb.onnx (MatMul x[2,4096] by W[4096,4096]) and
gather_emb.onnx (Gather of 8 rows of a [16384,1024] table). Measured with ort_rss.js, the MatMul
with and without --no-prepack (docs/runtime.md, Session 11).
Usage: /usr/bin/python3 bench/ort_memory/synth_embedded.py OUTDIR"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
K = N = 4096
mm = helper.make_graph([helper.make_node('MatMul', ['x', 'W'], ['y'])], 'mm_emb',
                       [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, K])],
                       [helper.make_tensor_value_info('y', TensorProto.FLOAT, [2, N])],
                       [numpy_helper.from_array(rng.standard_normal((K, N), dtype=np.float32), 'W')])
ga = helper.make_graph([helper.make_node('Gather', ['T', 'i'], ['y'])], 'gather_emb',
                       [helper.make_tensor_value_info('i', TensorProto.INT64, [8])],
                       [helper.make_tensor_value_info('y', TensorProto.FLOAT, [8, 1024])],
                       [numpy_helper.from_array(rng.standard_normal((16384, 1024), dtype=np.float32), 'T')])
for g, inputs in ((mm, {'x': {'dtype': 'float32', 'shape': [2, K]}}),
                  (ga, {'i': {'dtype': 'int64', 'shape': [8]}})):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, g.name + '.onnx'))
    json.dump({'bind': {}, 'inputs': inputs}, open(os.path.join(out, g.name + '.inputs.json'), 'w'))
