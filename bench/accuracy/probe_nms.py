#!/usr/bin/python3
"""One-node NonMaxSuppression probes: N boxes on a grid, none overlapping, so every candidate is
kept and onnxruntime makes N(N - 1)/2 intersection-over-union tests (docs/cost.md,
"NonMaxSuppression"). Writes nmsN.onnx and nmsN.inputs.json (the boxes and random scores as
explicit values) for N in 2000, 4000, 8000 into DIR, then prints the commands that time them in
onnxruntime (bench/accuracy/measure_ort.js) and predict them (tensorplan profile).

Usage: /usr/bin/python3 bench/accuracy/probe_nms.py DIR
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def write(out, n):
    boxes = h.make_tensor_value_info("boxes", T.FLOAT, [1, n, 4])
    scores = h.make_tensor_value_info("scores", T.FLOAT, [1, 1, n])
    sel = h.make_tensor_value_info("sel", T.INT64, None)
    inits = [nh.from_array(np.array([n], dtype=np.int64), "mx"),
             nh.from_array(np.array([0.5], dtype=np.float32), "iou")]
    node = h.make_node("NonMaxSuppression", ["boxes", "scores", "mx", "iou"], ["sel"])
    g = h.make_graph([node], "nms", [boxes, scores], [sel], initializer=inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
              os.path.join(out, "nms%d.onnx" % n))
    i = np.arange(n)
    y, x = (i // 100) * 2.0, (i % 100) * 2.0  # unit squares two apart
    b = np.stack([y, x, y + 1, x + 1], 1).astype(np.float32)
    s = np.random.RandomState(0).rand(n).astype(np.float32)
    spec = {"model": "nms%d" % n, "bind": {},
            "inputs": {"boxes": {"shape": [1, n, 4], "dtype": "float32",
                                 "values": b.ravel().tolist()},
                       "scores": {"shape": [1, 1, n], "dtype": "float32",
                                  "values": s.tolist()}}}
    with open(os.path.join(out, "nms%d.inputs.json" % n), "w") as f:
        json.dump(spec, f)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n in (2000, 4000, 8000):
        write(out, n)
        print("NODE_PATH=.fixtures/ort/node_modules node bench/accuracy/measure_ort.js %s 1 nms%d"
              % (out, n))
        print("TENSORPLAN_THREADS=1 build/tensorplan profile %s/nms%d.onnx -q --summary" % (out, n))


if __name__ == "__main__":
    main()
