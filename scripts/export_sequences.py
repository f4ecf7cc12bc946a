#!/usr/bin/python3
"""Models with sequence values, optionals, growing loop values and shape-decided Ifs for
tests/test_onnx_control.c (scripts/fixtures-onnx.sh), torch.jit.script exports (opset 17):

- seq_list_append: a list appended in a for-loop over x.size(0), stacked (Loop carrying a
                   sequence: SequenceEmpty, SequenceInsert, ConcatFromSequence new_axis).
- seq_split:       torch.split into a list (SplitToSequence), len() and indexing
                   (SequenceLength, SequenceAt), a loop over the parts appending to a list
                   and torch.cat of it (ConcatFromSequence).
- seq_optional:    a constructed model (opset 18) with Optional, OptionalHasElement,
                   OptionalGetElement and an If on the has-element flag.
- loop_grow:       torch.cat onto a carried value in a for-loop with 4 trips and one with
                   x.size(0) trips (the value grows each iteration).
- loop_grow_const: a constructed Loop with a constant trip count (5) concatenating onto its
                   carried value.
- loop_iter_once:  a constructed Loop of one trip slicing its input by the iteration number
                   (torchvision MViT's class-token split).
- if_dim:          an If decided by x.size(1) > 512 (the taken branch depends on --dim).
- heldout_decoder, heldout_unbind: written after the importer's sequence and loop-growth
                   code, run once and reported as held out (a greedy decoder loop
                   collecting tokens in a list and growing its context; unbind into a
                   list, per-part matmul, cat, an If on a size).
Each gets NAME.inputs.json. Random weights.

Usage: /usr/bin/python3 scripts/export_sequences.py OUT_DIR
"""
import os
import sys
from typing import List

import onnx
import torch
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_control_flow import export, write_spec  # noqa: E402  (same scripts/ folder)

torch.manual_seed(0)


class ListAppend(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 16)

    def forward(self, x):  # [n, 8]
        outs: List[torch.Tensor] = []
        for i in range(x.size(0)):
            outs.append(torch.relu(self.lin(x[i])))
        return torch.stack(outs)


class Split(torch.nn.Module):
    def forward(self, x):  # [b, 12]
        parts = torch.split(x, 4, dim=1)
        acc: List[torch.Tensor] = []
        for p in parts:
            acc.append(p * 2.0)
        y = torch.cat(acc, 1)
        return y + parts[1].sum() + float(len(parts))


class LoopGrow(torch.nn.Module):
    def forward(self, x):  # [n, 8]
        h = x[0:1]
        for i in range(4):
            h = torch.cat([h, x[0:1] * float(i)], 0)
        g = x[0:1]
        for j in range(x.size(0)):
            g = torch.cat([g, x[j:j + 1] + h[0:1]], 0)
        return g


class IfDim(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.big = torch.nn.Linear(16, 64)
        self.small = torch.nn.Linear(16, 8)

    def forward(self, x):  # [b, n, 16]
        if x.size(1) > 512:
            y = torch.relu(self.big(x))
        else:
            y = self.small(x)
        return y


class HeldoutDecoder(torch.nn.Module):
    """Held out (not looked at while writing the importer): a greedy decoder loop
    collecting tokens in a list and growing its context along axis 1."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(32, 16)
        self.out = torch.nn.Linear(16, 32)

    def forward(self, x, steps):  # x [b, t, 16], steps [n]
        ctx = x
        toks: List[torch.Tensor] = []
        for i in range(steps.size(0)):
            logits = self.out(ctx.mean(1))
            tok = logits.argmax(-1)
            toks.append(tok)
            ctx = torch.cat([ctx, self.emb(tok).unsqueeze(1)], 1)
        return torch.stack(toks, 1), ctx


class HeldoutUnbind(torch.nn.Module):
    """Held out: unbind into a list, per-part matmul appended to a list, cat."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 6))

    def forward(self, x):  # [k, b, 8]
        outs: List[torch.Tensor] = []
        for p in x.unbind(0):
            outs.append(torch.tanh(p @ self.w))
        y = torch.cat(outs, -1)
        if y.size(1) > 12:
            y = y * 2.0
        return y


def grow_const_model(out):
    """A Loop with a constant trip count (5) concatenating a row onto its carried value."""
    body = helper.make_graph(
        [helper.make_node("Relu", ["row"], ["r"], name="relu"),
         helper.make_node("Concat", ["acc_in", "r"], ["acc_out"], name="grow", axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="id")],
        "grow_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [None, 8])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [None, 8])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "acc0"], ["acc"], name="loop", body=body),
         helper.make_node("Sigmoid", ["acc"], ["out"], name="sig")],
        "loop_grow_const",
        [helper.make_tensor_value_info("acc0", TensorProto.FLOAT, [2, 8]),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, [3, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [None, 8])],
        [helper.make_tensor("trips", TensorProto.INT64, [], [5])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "loop_grow_const.onnx"))
    write_spec(out, "loop_grow_const", {"bind": {}, "inputs": {
        "acc0": {"dtype": "float32", "shape": [2, 8]}, "row": {"dtype": "float32", "shape": [3, 8]}}})


def iter_once_model(out):
    """A Loop of one trip whose body slices x[:, idx[i] : idx[i + 1]] by its iteration number
    (torchvision's MViT splits its class token so): the slice is one row wide only when the
    iteration number is known to be 0."""
    body = helper.make_graph(
        [helper.make_node("Gather", ["idx", "i"], ["s0"], name="start", axis=0),
         helper.make_node("Add", ["i", "one"], ["i1"], name="next"),
         helper.make_node("Gather", ["idx", "i1"], ["e0"], name="end", axis=0),
         helper.make_node("Reshape", ["s0", "shape1"], ["s1"], name="start1"),
         helper.make_node("Reshape", ["e0", "shape1"], ["e1"], name="end1"),
         helper.make_node("Slice", ["x", "s1", "e1", "axis1"], ["part"], name="slice"),
         helper.make_node("Relu", ["part"], ["r"], name="relu"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="id")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, "w", 8])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["trips", ""], ["parts"], name="loop", body=body),
         helper.make_node("Sigmoid", ["parts"], ["out"], name="sig")],
        "loop_iter_once",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 2, "w", 8])],
        [helper.make_tensor("trips", TensorProto.INT64, [], [1]),
         helper.make_tensor("idx", TensorProto.INT64, [2], [0, 1]),
         helper.make_tensor("one", TensorProto.INT64, [], [1]),
         helper.make_tensor("shape1", TensorProto.INT64, [1], [1]),
         helper.make_tensor("axis1", TensorProto.INT64, [1], [1])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "loop_iter_once.onnx"))
    write_spec(out, "loop_iter_once", {"bind": {}, "inputs": {
        "x": {"dtype": "float32", "shape": [2, 3, 8]}}})


def optional_model(out):
    ot = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [3, 4]))
    then_g = helper.make_graph(
        [helper.make_node("OptionalGetElement", ["opt"], ["got"], name="get"),
         helper.make_node("Relu", ["got"], ["t_out"], name="relu")],
        "then", [], [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, [3, 4])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e_out"], name="neg")],
        "else", [], [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, [3, 4])])
    g = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["sq"], name="sq"),
         helper.make_node("Optional", ["sq"], ["opt"], name="wrap"),
         helper.make_node("OptionalHasElement", ["opt"], ["has"], name="has"),
         helper.make_node("If", ["has"], ["y"], name="branch", then_branch=then_g,
                          else_branch=else_g),
         helper.make_node("Add", ["y", "x"], ["out"], name="add")],
        "seq_optional", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [3, 4])],
        value_info=[helper.make_value_info("opt", ot)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "seq_optional.onnx"))
    write_spec(out, "seq_optional", {"bind": {}, "inputs": {
        "x": {"dtype": "float32", "shape": [3, 4]}}})


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    export(out, "seq_list_append", ListAppend(), (torch.randn(5, 8),), ["x"], {"x": {0: "n"}},
           {"bind": {"n": 5}, "inputs": {"x": {"dtype": "float32", "shape": [5, 8]}}})
    export(out, "seq_split", Split(), (torch.randn(2, 12),), ["x"], {"x": {0: "b"}},
           {"bind": {"b": 3}, "inputs": {"x": {"dtype": "float32", "shape": [3, 12]}}})
    export(out, "loop_grow", LoopGrow(), (torch.randn(6, 8),), ["x"], {"x": {0: "n"}},
           {"bind": {"n": 6}, "inputs": {"x": {"dtype": "float32", "shape": [6, 8]}}})
    for name, n in (("if_dim_big", 600), ("if_dim_small", 100)):
        export(out, name, IfDim(), (torch.randn(1, n, 16),), ["x"], {"x": {0: "b", 1: "n"}},
               {"bind": {"b": 1, "n": n},
                "inputs": {"x": {"dtype": "float32", "shape": [1, n, 16]}}})
    optional_model(out)
    grow_const_model(out)
    iter_once_model(out)
    export(out, "heldout_decoder", HeldoutDecoder(),
           (torch.randn(2, 3, 16), torch.zeros(4, dtype=torch.long)), ["x", "steps"],
           {"x": {0: "b", 1: "t"}, "steps": {0: "n"}},
           {"bind": {"b": 2, "t": 3, "n": 4},
            "inputs": {"x": {"dtype": "float32", "shape": [2, 3, 16]},
                       "steps": {"dtype": "int64", "shape": [4]}}})
    export(out, "heldout_unbind", HeldoutUnbind(), (torch.randn(3, 5, 8),), ["x"],
           {"x": {0: "k", 1: "b"}},
           {"bind": {"k": 3, "b": 5},
            "inputs": {"x": {"dtype": "float32", "shape": [3, 5, 8]}}})


if __name__ == "__main__":
    main()
