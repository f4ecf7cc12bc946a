#!/usr/bin/python3
"""Turn an onnxruntime profile (scripts/ort_profile.js) into ground truth for the C tests.

Usage: /usr/bin/python3 scripts/ort_profile_shapes.py MODEL.onnx PROFILE.json OUT.shapes.json

Writes, in the one-value-per-line format of scripts/ort_shapes.js:
  {"model": NAME, "bind": {...}, "weights_bytes": W, "activation_lb_bytes": L,
   "values": [{"name": VALUE, "dtype": "float32", "shape": [..]}, ...]}
- values: every output of every node onnxruntime ran (control-flow bodies included), named
  after the ONNX value it produces (the profile names nodes; nodes without a unique name are
  left out). A node run several times (a loop body) keeps its last run (the last
  iteration: a value that grows across iterations has its final size there).
- weights_bytes: bytes of every initializer and Constant value in the model and all its
  subgraphs, counted by the onnx package (independent of tensorplan's reader).
- activation_lb_bytes: a lower bound of any activation plan, from onnxruntime's own sizes:
  the largest over kernel runs of max(output bytes, input bytes that are neither graph inputs
  nor weights); outputs of ops that alias their input (Reshape, Flatten, Squeeze, Unsqueeze,
  Identity) count as no bytes of their own -- those bytes exist at once when the kernel runs, whatever the placement.
"""
import json
import os
import sys

import numpy as np
import onnx

DTYPES = {"float": "float32", "double": "float64", "float16": "float16", "int64": "int64",
          "int32": "int32", "int8": "int8", "uint8": "uint8", "bool": "bool"}
SIZES = {"float": 4, "double": 8, "float16": 2, "int64": 8, "int32": 4, "int8": 1, "uint8": 1,
         "bool": 1}


ALIAS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}


def tensor_bytes(t):
    """dims x element size, from the TensorProto header (external data is not read)."""
    item = np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]).itemsize
    return int(np.prod(t.dims, dtype=np.int64)) * item


def walk(g, nodes, weights, consts):
    for t in g.initializer:
        weights[0] += tensor_bytes(t)
        consts.add(t.name)
    for n in g.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx"):
            consts.update(n.output)
            for a in n.attribute:
                if a.name == "value":
                    weights[0] += tensor_bytes(a.t)
        if n.name:
            nodes.setdefault(n.name, []).append(n)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                walk(a.g, nodes, weights, consts)
            for sub in a.graphs:
                walk(sub, nodes, weights, consts)


def nbytes(t):
    return int(np.prod(t["shape"], dtype=np.int64)) * SIZES.get(t["dtype"], 4)


def main():
    model, prof, out = sys.argv[1:4]
    m = onnx.load(model, load_external_data=False)
    nodes, weights, consts = {}, [0], set()
    walk(m.graph, nodes, weights, consts)
    # graph inputs, and weights a body reads from an enclosing graph (the profile counts
    # those as activations of the body's kernels)
    not_acts = {i.name for i in m.graph.input} | consts
    p = json.load(open(prof))
    last, order, lb = {}, [], 0
    for e in p["events"]:
        cand = nodes.get(e["node"], [])
        node = cand[0] if len(cand) == 1 else None
        acts = e["activation_size"]
        if node is not None and e["op"] in ALIAS and node.input and node.input[0] in not_acts:
            not_acts.update(node.output)  # a view of a graph input or a weight
        if node is not None:
            for name, t in zip(node.input, e["inputs"]):
                if name in not_acts:
                    acts -= nbytes(t)
        # ops that alias their input (onnxruntime reuses the buffer) hold no bytes of their own
        out_bytes = 0 if e["op"] in ALIAS else e["output_size"]
        lb = max(lb, out_bytes, acts)
        if node is None:
            continue
        for name, t in zip(node.output, e["outputs"]):
            if name:
                if name not in last:
                    order.append(name)
                last[name] = json.dumps({"name": name, "dtype": DTYPES.get(t["dtype"], t["dtype"]),
                                         "shape": t["shape"]}, separators=(",", ":"))
    lines = [last[n] for n in order]
    name = os.path.basename(model)[:-5]
    text = ('{"model": %s, "bind": %s, "weights_bytes": %d, "activation_lb_bytes": %d,\n'
            ' "values": [\n%s\n]}\n' % (json.dumps(name), json.dumps(p["bind"]), weights[0], lb,
                                        ",\n".join(lines)))
    with open(out + ".tmp", "w") as f:
        f.write(text)
    os.replace(out + ".tmp", out)
    print("ort profile shapes", name, len(lines), "values, weights", weights[0], "bytes, lb", lb)


if __name__ == "__main__":
    main()
