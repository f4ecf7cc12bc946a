#!/usr/bin/python3
"""Models with control flow for tests/test_onnx_control.c (scripts/fixtures-onnx.sh).

Usage: /usr/bin/python3 scripts/export_control_flow.py OUT_DIR

- cf_loop_rnn:  torch.jit.script RNN over the sequence axis (Loop, trip count = seq).
- cf_if_conv:   torch.jit.script branch on the data (If with an unknown condition, a
                different conv in each branch).
- cf_scan:      a constructed Scan (opset 16) whose body holds its own weight.
- cf_loop_scan: a constructed Loop with a constant trip count, a Constant in the body and a
                scan output (trip count x per-iteration).
- hardswish:    Paddle-style hard-swish blocks (y = x * clip(x + 3, 0, 6) / 6 after each
                conv), the pattern where x is read twice (in-place reuse by lifetime).
- contrib_ops:  com.microsoft ops (SkipLayerNormalization, Attention, MultiHeadAttention,
                RotaryEmbedding, FastGelu, MatMulNBits) and quantized ops (QuantizeLinear,
                QLinearMatMul, MatMulInteger, DequantizeLinear, DynamicQuantizeLinear).
- float_sizes:  Resize sizes and a ConstantOfShape computed in float from the input's
                shape (Cast -> Mul/Div -> Floor/Ceil -> Cast).
Each gets NAME.inputs.json (sizes onnxruntime runs it with; the "bind" binds the same
symbols in tensorplan). Random weights; torch 1.13 from Debian, opset 16/17.
"""
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

torch.manual_seed(0)


class LoopRNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(16, 32)
        self.rec = torch.nn.Linear(32, 32)

    def forward(self, x):  # [seq, batch, 16]
        h = torch.zeros(x.size(1), 32)
        for i in range(x.size(0)):
            h = torch.tanh(self.inp(x[i]) + self.rec(h))
        return h


class IfConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(3, 8, 5, padding=2)

    def forward(self, x):
        if bool(x.mean() > 0):
            y = self.a(x)
        else:
            y = torch.relu(self.b(x)) * 2.0
        return y


def export(out, name, module, args, names, dyn, spec):
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(torch.jit.script(module), args, path, input_names=names,
                      output_names=["out"], dynamic_axes=dyn, opset_version=17)
    write_spec(out, name, spec)


def write_spec(out, name, spec):
    with open(os.path.join(out, name + ".inputs.json"), "w") as f:
        json.dump(spec, f)


def scan_model(out):
    w = numpy_helper.from_array(np.random.RandomState(1).randn(4, 4).astype(np.float32), "w")
    body = helper.make_graph(
        [helper.make_node("MatMul", ["x_t", "w"], ["y_t"], name="mm"),
         helper.make_node("Add", ["s_in", "y_t"], ["s_out"], name="add"),
         helper.make_node("Relu", ["y_t"], ["scan_t"], name="relu")],
        "scan_body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("scan_t", TensorProto.FLOAT, [4])],
        [w])
    g = helper.make_graph(
        [helper.make_node("Scan", ["s0", "xs"], ["s_final", "ys"], name="scan", body=body,
                          num_scan_inputs=1)],
        "cf_scan",
        [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, ["seq", 4])],
        [helper.make_tensor_value_info("s_final", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, ["seq", 4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "cf_scan.onnx"))
    write_spec(out, "cf_scan", {"bind": {"seq": 6}, "inputs": {
        "s0": {"dtype": "float32", "shape": [4]}, "xs": {"dtype": "float32", "shape": [6, 4]}}})


def loop_scan_model(out):
    c = helper.make_tensor("c", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], name="const", value=c),
         helper.make_node("Add", ["acc_in", "k"], ["acc_out"], name="add"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="id"),
         helper.make_node("Unsqueeze", ["acc_out", "ax"], ["row"], name="unsq"),
         helper.make_node("Concat", ["row", "row"], ["scan_t"], name="cat", axis=0)],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("scan_t", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.array([0], dtype=np.int64), "ax")])
    g = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "acc0"], ["acc", "scans"], name="loop", body=body)],
        "cf_loop_scan",
        [helper.make_tensor_value_info("acc0", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("scans", TensorProto.FLOAT, [5, 2, 3])],
        [numpy_helper.from_array(np.array(5, dtype=np.int64), "trips")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "cf_loop_scan.onnx"))
    write_spec(out, "cf_loop_scan", {"bind": {}, "inputs": {
        "acc0": {"dtype": "float32", "shape": [3]}}})


def hardswish_model(out):
    rs = np.random.RandomState(2)
    nodes, inits, cur, ch = [], [], "x", 3
    for i, c in enumerate([16, 32, 32, 64]):
        w = numpy_helper.from_array(rs.randn(c, ch, 3, 3).astype(np.float32) * 0.1, "w%d" % i)
        inits.append(w)
        nodes += [
            helper.make_node("Conv", [cur, w.name], ["c%d" % i], name="conv%d" % i, pads=[1] * 4),
            helper.make_node("Add", ["c%d" % i, "three"], ["a%d" % i], name="add%d" % i),
            helper.make_node("Clip", ["a%d" % i, "zero", "six"], ["k%d" % i], name="clip%d" % i),
            helper.make_node("Mul", ["c%d" % i, "k%d" % i], ["m%d" % i], name="mul%d" % i),
            helper.make_node("Div", ["m%d" % i, "six"], ["h%d" % i], name="div%d" % i)]
        cur, ch = "h%d" % i, c
    for n, v in (("three", 3.0), ("zero", 0.0), ("six", 6.0)):
        inits.append(numpy_helper.from_array(np.array(v, dtype=np.float32), n))
    g = helper.make_graph(nodes, "hardswish",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 64, 64])],
                          [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["batch", 64, 64, 64])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "hardswish.onnx"))
    write_spec(out, "hardswish", {"bind": {"batch": 1}, "inputs": {
        "x": {"dtype": "float32", "shape": [1, 3, 64, 64]}}})


def contrib_model(out):
    """com.microsoft and quantized ops as transformer / quantized exports ship them."""
    rs = np.random.RandomState(3)
    B, S, H, NH, HD = 2, 5, 32, 4, 8

    def f32(name, *shape):
        return numpy_helper.from_array(rs.randn(*shape).astype(np.float32) * 0.1, name)

    inits = [f32("gamma", H), f32("beta", H), f32("qkv_w", H, 3 * H), f32("qkv_b", 3 * H),
             f32("bias", H), f32("cos", 16, HD // 2), f32("sin", 16, HD // 2),
             numpy_helper.from_array(np.array([[0, 1, 2, 3, 4]] * B, dtype=np.int64), "pos"),
             numpy_helper.from_array(rs.randint(0, 255, (16, 1, 16)).astype(np.uint8), "qw"),
             numpy_helper.from_array(np.ones(16, dtype=np.float32) * 0.01, "qscale"),
             numpy_helper.from_array(np.array(0.05, dtype=np.float32), "xs"),
             numpy_helper.from_array(np.array(128, dtype=np.uint8), "xz"),
             numpy_helper.from_array(rs.randint(0, 255, (H, 8)).astype(np.uint8), "wq"),
             numpy_helper.from_array(np.array(0.02, dtype=np.float32), "ws"),
             numpy_helper.from_array(np.array(128, dtype=np.uint8), "wz")]
    ms = "com.microsoft"
    nodes = [
        helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"],
                         ["sln", "sln_mean", "sln_inv", "sln_sum"], name="sln", domain=ms),
        helper.make_node("Attention", ["sln", "qkv_w", "qkv_b"], ["attn"], name="attn",
                         domain=ms, num_heads=NH),
        helper.make_node("MultiHeadAttention", ["x", "skip", "skip"], ["mha"], name="mha",
                         domain=ms, num_heads=NH),
        helper.make_node("Reshape", ["x", "bshd"], ["x4"], name="to4"),
        helper.make_node("RotaryEmbedding", ["x4", "pos", "cos", "sin"], ["rot"], name="rot",
                         domain=ms),
        helper.make_node("FastGelu", ["x", "bias"], ["fg"], name="fg", domain=ms),
        helper.make_node("MatMulNBits", ["x", "qw", "qscale"], ["mnb"], name="mnb", domain=ms,
                         K=H, N=16, bits=4, block_size=32),
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="q"),
        helper.make_node("QLinearMatMul", ["xq", "xs", "xz", "wq", "ws", "wz", "xs", "xz"],
                         ["qmm"], name="qmm"),
        helper.make_node("MatMulInteger", ["xq", "wq", "xz", "wz"], ["mmi"], name="mmi"),
        helper.make_node("DequantizeLinear", ["qmm", "xs", "xz"], ["dq"], name="dq"),
        helper.make_node("DynamicQuantizeLinear", ["x"], ["dyq", "dys", "dyz"], name="dyq"),
    ]
    inits.append(numpy_helper.from_array(np.array([B, NH, S, HD], dtype=np.int64), "bshd"))
    outs = ["sln", "sln_mean", "sln_inv", "sln_sum", "attn", "mha", "rot", "fg", "mnb", "mmi",
            "dq", "dyq", "dys", "dyz"]
    g = helper.make_graph(nodes, "contrib",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [B, S, H]),
                           helper.make_tensor_value_info("skip", TensorProto.FLOAT, [B, S, H])],
                          [helper.make_empty_tensor_value_info(o) for o in outs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid(ms, 1)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, "contrib_ops.onnx"))
    write_spec(out, "contrib_ops", {"bind": {}, "inputs": {
        "x": {"dtype": "float32", "shape": [B, S, H]},
        "skip": {"dtype": "float32", "shape": [B, S, H]}}})


def float_sizes_model(out):
    """Sizes computed in float from the input's shape (Paddle / scripted torch style)."""
    f = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Cast", ["s"], ["sf"], name="cast_f", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["sf", "two"], ["up"], name="mul"),
        helper.make_node("Floor", ["up"], ["upf"], name="floor"),
        helper.make_node("Cast", ["upf"], ["upi"], name="cast_i", to=TensorProto.INT64),
        helper.make_node("Resize", ["x", "", "", "upi"], ["big"], name="resize", mode="nearest"),
        helper.make_node("Div", ["sf", "two"], ["down"], name="div"),
        helper.make_node("Ceil", ["down"], ["downc"], name="ceil"),
        helper.make_node("Cast", ["downc"], ["downi"], name="cast_d", to=TensorProto.INT64),
        helper.make_node("Slice", ["downi", "st", "en"], ["hw"], name="slice"),
        helper.make_node("Concat", ["lead", "hw"], ["pool_shape"], name="concat", axis=0),
        helper.make_node("ConstantOfShape", ["pool_shape"], ["small"], name="cos"),
        helper.make_node("Add", ["small", "small"], ["small2"], name="add")]
    inits = [f("two", [1, 1, 2, 2]),
             numpy_helper.from_array(np.array([2], dtype=np.int64), "st"),
             numpy_helper.from_array(np.array([4], dtype=np.int64), "en"),
             numpy_helper.from_array(np.array([1, 1], dtype=np.int64), "lead")]
    g = helper.make_graph(nodes, "float_sizes",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                         ["batch", 3, "h", "w"])],
                          [helper.make_empty_tensor_value_info("big"),
                           helper.make_empty_tensor_value_info("small2")], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, "float_sizes.onnx"))
    write_spec(out, "float_sizes", {"bind": {"batch": 2, "h": 15, "w": 20}, "inputs": {
        "x": {"dtype": "float32", "shape": [2, 3, 15, 20]}}})


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    export(out, "cf_loop_rnn", LoopRNN().eval(), (torch.randn(5, 2, 16),), ["x"],
           {"x": {0: "seq", 1: "batch"}, "out": {0: "batch"}},
           {"bind": {"seq": 7, "batch": 3},
            "inputs": {"x": {"dtype": "float32", "shape": [7, 3, 16]}}})
    export(out, "cf_if_conv", IfConv().eval(), (torch.randn(1, 3, 16, 16),), ["x"],
           {"x": {0: "batch", 2: "height", 3: "width"}},
           {"bind": {"batch": 2, "height": 20, "width": 24},
            "inputs": {"x": {"dtype": "float32", "shape": [2, 3, 20, 24]}}})
    scan_model(out)
    loop_scan_model(out)
    hardswish_model(out)
    contrib_model(out)
    float_sizes_model(out)
    print("exported control-flow models to", out)


if __name__ == "__main__":
    main()
