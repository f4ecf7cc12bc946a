#!/usr/bin/python3
"""Probe models for the runtime's own overheads (bench/accuracy/run_probe.sh): a chain of N
Abs nodes on a [1, 64] float tensor (no flops or bytes worth pricing), for N = 1 and 201.
onnxruntime's CPU time per run of the two gives its per-node overhead ((t201 - t1) / 200)
and its per-run overhead (t1 less one node). Writes probe_abs_N.onnx and .inputs.json into
OUTDIR (default .fixtures-local/accuracy). Run with /usr/bin/python3 (python3-onnx)."""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper


def chain(n, path):
    nodes, prev = [], "x"
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        nodes.append(helper.make_node("Abs", [prev], [out]))
        prev = out
    g = helper.make_graph(nodes, "probe", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path + ".onnx")
    with open(path + ".inputs.json", "w") as f:
        json.dump({"bind": {}, "inputs": {"x": {"dtype": "float32", "shape": [1, 64]}}}, f)


out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".fixtures-local", "accuracy")
os.makedirs(out, exist_ok=True)
for n in (1, 201):
    chain(n, os.path.join(out, "probe_abs_%d" % n))
