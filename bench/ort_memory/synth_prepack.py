#!/usr/bin/python3
"""Write two synthetic models with one large pre-packed weight (session 10, after vgg11 of the
heldout2 set fell 28 % below): mm.onnx (MatMul x[2,8192] by W[8192,8192]) and gemmT.onnx (Gemm
with transB=1, the same 256 MiB weight transposed), weights in an external data file.
Measured with ort_rss.js with and without --no-prepack (docs/runtime.md, Session 10).
Usage: /usr/bin/python3 bench/ort_memory/synth_prepack.py OUTDIR"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

K = N = 8192
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
w = np.random.default_rng(0).standard_normal((K, N), dtype=np.float32)
for name, op, shape in (('mm', 'MatMul', (K, N)), ('gemmT', 'Gemm', (N, K))):
    node = helper.make_node(op, ['x', 'W'], ['y'], **({'transB': 1} if op == 'Gemm' else {}))
    g = helper.make_graph([node], name, [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, K])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, [2, N])],
                          [numpy_helper.from_array(w.reshape(shape), 'W')])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    m.ir_version = 8
    path = os.path.join(out, name + '.onnx')
    onnx.save(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location=name + '.onnx.data', size_threshold=0)
    json.dump({'bind': {}, 'inputs': {'x': {'dtype': 'float32', 'shape': [2, K]}}},
              open(os.path.join(out, name + '.inputs.json'), 'w'))
