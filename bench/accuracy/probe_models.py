#!/usr/bin/python3
"""Probe models for the runtime's own overheads (bench/accuracy/probe.sh): chains of N nodes, for
N = 1 and 201, whose difference divided by 200 is what one more node costs onnxruntime:
- probe_abs_N: Abs on a [1, 64] float tensor (no flops or bytes worth pricing): the per-node
  overhead ((t201 - t1) / 200) and the per-run overhead (t1 less one node);
- probe_abs16k_N: Abs on [1, 16384] floats (64 KiB, cache-resident; at several threads worth
  a parallel-for): the per-node cost of a node that goes through the intra-op thread pool;
- probe_mm64_N: MatMul of [64, 64] by a constant [64, 64] weight (a small GEMM, 0.5 MFLOP);
- probe_mv768_N: MatMul of [1, 768] by a constant [768, 768] weight (a decode step's GEMV);
- probe_skM_N (M = 8, 16, 64; N = 1, 11): MatMul of [M, 768] by a constant [768, 3072] weight,
  then [M, 3072] by [3072, 768], alternating (a transformer MLP at M tokens): few-row GEMMs
  whose 9.4 MB weights stream from memory (11 of them: 104 MB, more than the caches);
- probe_skhM_N (M = 16, 64; N = 1, 11): MatMul of [M, 768] by one shared [768, 768] weight
  (2.4 MB, cache-resident after the first node): the same few-row GEMMs without the stream;
- probe_{add,mulb,ln,softmax}_{s,l}_N (N = 1, 101): elementwise, broadcast, LayerNormalization
  and Softmax on a small and a cache-sized tensor;
- probe_shuffle_N (N = 1, 21): data movement: a channel shuffle (Reshape to [1, 2, 58, 28, 28],
  Transpose (0, 2, 1, 3, 4), Reshape back: 0.7 MB), chained (a chain of plain transposes is no
  probe: onnxruntime's transpose optimizer merges consecutive transposes into one or none);
- probe_if_N (N = 1, 21): If nodes whose branches are one Abs / Neg each (control flow: what
  running a subgraph costs the runtime, against probe_abs);
- probe_ifbody_N (N = 1, 201): one If whose branches are chains of N Abs / Neg nodes on [1, 64]:
  against probe_abs_N, what a node costs inside a subgraph;
- probe_{gconv_wW,conv_dD,conv7_dD,dwconv_dD}_N (N = 1, 21): 3x3 convolutions, grouped (group
  width W) and dilated (dilation D, padding D).
- small-model probes (session 15; shapes of ppocr_cls's blocks, [1, 88, 3, 96] = 25,344 floats,
  and wakeword's, N = 1, 21): probe_e{add,clip,mul,div}_{m,t}_N, one elementwise op of a
  hardswish (Add of a scalar (eadd1: of a [1] tensor), Clip 0..6, Mul by a same-shape tensor, Div by a scalar) on the map
  (m) or on [1, 88, 1, 1] (t); probe_emulc_m_N, Mul by a per-channel [1, 88, 1, 1] tensor; probe_gapmul_N,
  GlobalAveragePool then that Mul by its result; probe_hswish_N, the four together (x * clip(x + 3, 0, 6) / 6);
  probe_pw_m_N / probe_dw_m_N, 1x1 / depthwise 3x3 convolutions 88 -> 88 on the map; probe_se_N,
  squeeze-excitation blocks (GlobalAveragePool, 1x1 88 -> 22, Relu, 1x1 22 -> 88, HardSigmoid,
  Mul); probe_gemm96_N, Gemm [1, 96] by [96, 96] + bias then Relu.
bench/accuracy/probe_ops.sh measures them with onnxruntime and prints the per-node time next to
the cost model's. Writes NAME.onnx and .inputs.json into OUTDIR (default .fixtures-local/accuracy).
Run with /usr/bin/python3 (python3-onnx)."""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(nodes, inits, shape, path, oshape=None):
    g = helper.make_graph(nodes, "probe", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, oshape or shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path + ".onnx")
    with open(path + ".inputs.json", "w") as f:
        json.dump({"bind": {}, "inputs": {"x": {"dtype": "float32", "shape": shape}}}, f)


def chain(op, n, shape, path, weight=None):
    nodes, prev, inits = [], "x", []
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        ins = [prev]
        if weight is not None:
            # one weight per node, distinct values: onnxruntime would otherwise share equal
            # initializers (a chain of 2.4 MB weights then reads one, cache-resident)
            rng = np.random.default_rng(i)
            w = numpy_helper.from_array((rng.standard_normal(weight) / np.sqrt(weight[0])).astype(np.float32), "w%d" % i)
            inits.append(w)
            ins.append(w.name)
        nodes.append(helper.make_node(op, ins, [out]))
        prev = out
    save(nodes, inits, shape, path)


def mlp_chain(m, n, path):
    """n MatMuls of an MLP at m rows: [m, 768] x [768, 3072], then [m, 3072] x [3072, 768], ..."""
    nodes, prev, inits = [], "x", []
    rng = np.random.default_rng(0)
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        k, c = (768, 3072) if i % 2 == 0 else (3072, 768)
        w = numpy_helper.from_array((rng.standard_normal([k, c]) / np.sqrt(k)).astype(np.float32), "w%d" % i)
        inits.append(w)
        nodes.append(helper.make_node("MatMul", [prev, w.name], [out]))
        prev = out
    save(nodes, inits, [m, 768], path, oshape=[m, 3072 if n % 2 else 768])


def shared_chain(m, n, path):
    """n MatMuls [m, 768] x W, every node the same 768 x 768 initializer W (read from cache)."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal([768, 768]) / np.sqrt(768)).astype(np.float32), "w")
    nodes, prev = [], "x"
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        nodes.append(helper.make_node("MatMul", [prev, "w"], [out]))
        prev = out
    save(nodes, [w], [m, 768], path)


def move_chain(n, path):
    """n channel shuffles: reshape + transpose + reshape."""
    shape = [1, 116, 28, 28]
    s5 = numpy_helper.from_array(np.array([1, 2, 58, 28, 28], dtype=np.int64), "s5")
    s4 = numpy_helper.from_array(np.array(shape, dtype=np.int64), "s4")
    nodes, prev = [], "x"
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        nodes.append(helper.make_node("Reshape", [prev, "s5"], ["r%d" % i]))
        nodes.append(helper.make_node("Transpose", ["r%d" % i], ["p%d" % i], perm=[0, 2, 1, 3, 4]))
        nodes.append(helper.make_node("Reshape", ["p%d" % i, "s4"], [out]))
        prev = out
    save(nodes, [s5, s4], shape, path)


def op_chain(kind, n, shape, path):
    """n nodes of one op class on `shape`, each node's output the next one's input."""
    nodes, prev, inits = [], "x", []
    c = shape[-1]
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        if kind == "add":  # elementwise, same shape (a residual add)
            w = numpy_helper.from_array(np.full(shape, 0.5, dtype=np.float32), "w%d" % i)
            inits.append(w)
            nodes.append(helper.make_node("Add", [prev, w.name], [out]))
        elif kind == "mulb":  # elementwise, broadcast over the last dim (a scale)
            w = numpy_helper.from_array(np.full([c], 0.5, dtype=np.float32), "w%d" % i)
            inits.append(w)
            nodes.append(helper.make_node("Mul", [prev, w.name], [out]))
        elif kind == "ln":  # normalization
            g = numpy_helper.from_array(np.ones([c], dtype=np.float32), "g%d" % i)
            b = numpy_helper.from_array(np.zeros([c], dtype=np.float32), "b%d" % i)
            inits += [g, b]
            nodes.append(helper.make_node("LayerNormalization", [prev, g.name, b.name], [out], axis=-1))
        elif kind == "softmax":
            nodes.append(helper.make_node("Softmax", [prev], [out], axis=-1))
        prev = out
    save(nodes, inits, shape, path)


def conv_chain(n, c, hw, groups, dil, path):
    """n 3x3 convolutions c -> c channels on [1, c, hw, hw], `groups` groups, dilation `dil`
    (padding = dil: the shape is kept)."""
    nodes, prev, inits = [], "x", []
    rng = np.random.default_rng(0)
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        w = numpy_helper.from_array((rng.standard_normal([c, c // groups, 3, 3]) * 0.1).astype(np.float32), "w%d" % i)
        inits.append(w)
        nodes.append(helper.make_node("Conv", [prev, w.name], [out], group=groups, dilations=[dil, dil],
                                      pads=[dil] * 4, kernel_shape=[3, 3]))
        prev = out
    save(nodes, inits, [1, c, hw, hw], path)


def if_chain(n, path):
    """n If nodes on a [1, 64] tensor whose condition comes from the data (max(x) > -1e30: always
    true, but no optimizer can fold it), each branch one elementwise node (then Abs, else Neg) on
    the outer tensor: against probe_abs_N, what executing a subgraph costs the runtime."""
    nodes = [helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0),
             helper.make_node("Greater", ["mx", "lo"], ["cond"])]
    inits = [numpy_helper.from_array(np.array(-1e30, dtype=np.float32), "lo")]
    prev = "x"
    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        branches = []
        for tag, op in (("then", "Abs"), ("else", "Neg")):
            bo = "%s%d" % (tag, i)
            branches.append(helper.make_graph([helper.make_node(op, [prev], [bo])], "%s_%d" % (tag, i), [],
                                              [helper.make_tensor_value_info(bo, TensorProto.FLOAT, [1, 64])]))
        nodes.append(helper.make_node("If", ["cond"], [out], then_branch=branches[0], else_branch=branches[1]))
        prev = out
    save(nodes, inits, [1, 64], path)


def small_chain(kind, n, path):
    """n small-model blocks (session 15): see the module's docstring."""
    rng = np.random.default_rng(0)
    c, shape = 88, [1, 88, 3, 96]
    if kind.endswith("_t"):
        shape = [1, 88, 1, 1]
    if kind == "gemm96":
        shape = [1, 96]
    nodes, prev, inits = [], "x", []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name))
        return name

    def conv(i, tag, x, cin, cout, k, groups, out):
        w = const("w%s%d" % (tag, i), rng.standard_normal([cout, cin // groups, k, k]) * (0.5 / np.sqrt(cin // groups * k * k)))
        b = const("b%s%d" % (tag, i), np.zeros([cout]))
        nodes.append(helper.make_node("Conv", [x, w, b], [out], group=groups, kernel_shape=[k, k], pads=[k // 2] * 4))

    for i in range(n):
        out = "y" if i == n - 1 else "t%d" % i
        op = kind.split("_")[0]
        if op == "eadd":
            nodes.append(helper.make_node("Add", [prev, const("a%d" % i, 0.001)], [out]))
        elif op == "eadd1":  # the scalar as a [1] tensor, not a 0-d one
            nodes.append(helper.make_node("Add", [prev, const("a%d" % i, [0.001])], [out]))
        elif op == "eclip":
            nodes.append(helper.make_node("Clip", [prev, const("lo%d" % i, -6.0), const("hi%d" % i, 6.0)], [out]))
        elif op == "emul":  # same shape, not a scalar: no no-op elimination, no broadcast
            nodes.append(helper.make_node("Mul", [prev, const("m%d" % i, np.full(shape, 1.0001))], [out]))
        elif op == "emulc":  # broadcast per channel ([1, 88, 1, 1]), as the excitation's scale
            nodes.append(helper.make_node("Mul", [prev, const("m%d" % i, np.full([1, c, 1, 1], 1.0001))], [out]))
        elif op == "gapmul":  # GlobalAveragePool, then the map scaled by it per channel
            nodes.append(helper.make_node("GlobalAveragePool", [prev], ["g%d" % i]))
            nodes.append(helper.make_node("Mul", [prev, "g%d" % i], [out]))
        elif op == "ediv":
            nodes.append(helper.make_node("Div", [prev, const("d%d" % i, 1.0001)], [out]))
        elif op == "hswish":
            nodes += [helper.make_node("Add", [prev, const("a%d" % i, 3.0)], ["h%d" % i]),
                      helper.make_node("Clip", ["h%d" % i, const("lo%d" % i, 0.0), const("hi%d" % i, 6.0)], ["c%d" % i]),
                      helper.make_node("Mul", [prev, "c%d" % i], ["p%d" % i]),
                      helper.make_node("Div", ["p%d" % i, const("s%d" % i, 6.0)], [out])]
        elif op == "pw":
            conv(i, "p", prev, c, c, 1, 1, out)
        elif op == "dw":
            conv(i, "d", prev, c, c, 3, c, out)
        elif op == "se":
            nodes.append(helper.make_node("GlobalAveragePool", [prev], ["g%d" % i]))
            conv(i, "r", "g%d" % i, c, c // 4, 1, 1, "r%d" % i)
            nodes.append(helper.make_node("Relu", ["r%d" % i], ["q%d" % i]))
            conv(i, "e", "q%d" % i, c // 4, c, 1, 1, "e%d" % i)
            nodes.append(helper.make_node("HardSigmoid", ["e%d" % i], ["s%d" % i], alpha=0.2, beta=0.5))
            nodes.append(helper.make_node("Mul", [prev, "s%d" % i], [out]))
        elif op == "gemm96":
            w = const("w%d" % i, rng.standard_normal([96, 96]) / np.sqrt(96))
            b = const("b%d" % i, np.zeros([96]))
            nodes.append(helper.make_node("Gemm", [prev, w, b], ["g%d" % i]))
            nodes.append(helper.make_node("Relu", ["g%d" % i], [out]))
        prev = out
    save(nodes, inits, shape, path)


SMALL = ("eadd_m", "eclip_m", "emul_m", "emulc_m", "gapmul", "ediv_m", "eadd_t", "eadd1_t", "eclip_t", "emul_t", "ediv_t", "hswish", "pw_m",
         "dw_m", "se", "gemm96")


def if_body(n, path):
    """One If on a [1, 64] tensor (the condition from the data, as in if_chain) whose branches are
    chains of n elementwise nodes (then Abs, else Neg): against probe_abs_N, what a node costs the
    runtime inside a subgraph (silero_vad runs its whole model inside an If)."""
    nodes = [helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0),
             helper.make_node("Greater", ["mx", "lo"], ["cond"])]
    inits = [numpy_helper.from_array(np.array(-1e30, dtype=np.float32), "lo")]
    branches = []
    for tag, op in (("then", "Abs"), ("else", "Neg")):
        body, prev = [], "x"
        for i in range(n):
            out = "%s_y" % tag if i == n - 1 else "%s%d" % (tag, i)
            body.append(helper.make_node(op, [prev], [out]))
            prev = out
        branches.append(helper.make_graph(body, tag, [], [helper.make_tensor_value_info("%s_y" % tag, TensorProto.FLOAT, [1, 64])]))
    nodes.append(helper.make_node("If", ["cond"], ["y"], then_branch=branches[0], else_branch=branches[1]))
    save(nodes, inits, [1, 64], path)


# conv probes: grouped (group widths 4, 8, 16) and dilated (dense and depthwise), 1 and 21 nodes
CONVS = {"gconv_w8": (64, 56, 8, 1), "gconv_w4": (128, 28, 32, 1), "gconv_w16": (128, 28, 8, 1),
         "gconv_w8_c96": (96, 28, 12, 1), "gconv_w8_c192": (192, 14, 24, 1), "gconv_w8_c384": (384, 7, 48, 1),
         "gconv_w16_c256": (256, 14, 16, 1),
         "conv_d1": (256, 33, 1, 1), "conv_d6": (256, 33, 1, 6), "conv_d12": (256, 33, 1, 12), "conv_d24": (256, 33, 1, 24), "conv_d36": (256, 33, 1, 36), "conv7_d1": (512, 7, 1, 1), "conv7_d2": (512, 7, 1, 2),
         "dwconv_d1": (480, 33, 480, 1), "dwconv_d2": (480, 33, 480, 2),
         "dwconv_c116": (116, 28, 116, 1), "dwconv_c58": (58, 28, 58, 1), "dwconv_c128": (128, 28, 128, 1)}

# op-class probes: a small and a cache-sized tensor per class, 1 and 101 nodes
OP_SHAPES = {"s": [1, 4, 8, 64], "l": [1, 128, 12, 64]}
OPS = ("add", "mulb", "ln", "softmax")

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".fixtures-local", "accuracy")
os.makedirs(out, exist_ok=True)
for n in (1, 201):
    chain("Abs", n, [1, 64], os.path.join(out, "probe_abs_%d" % n))
    chain("Abs", n, [1, 16384], os.path.join(out, "probe_abs16k_%d" % n))
    chain("MatMul", n, [64, 64], os.path.join(out, "probe_mm64_%d" % n), weight=[64, 64])
    # a decode step's 1-row GEMM: [1, 768] by a 768 x 768 weight (2.4 MB, streamed)
    chain("MatMul", n, [1, 768], os.path.join(out, "probe_mv768_%d" % n), weight=[768, 768])
for m in (8, 16, 64):
    for n in (1, 11):
        mlp_chain(m, n, os.path.join(out, "probe_sk%d_%d" % (m, n)))
for m in (16, 64):
    for n in (1, 11):
        shared_chain(m, n, os.path.join(out, "probe_skh%d_%d" % (m, n)))
for n in (1, 21):
    move_chain(n, os.path.join(out, "probe_shuffle_%d" % n))
    if_chain(n, os.path.join(out, "probe_if_%d" % n))
for n in (1, 201):
    if_body(n, os.path.join(out, "probe_ifbody_%d" % n))
for kind in OPS:
    for tag, shape in OP_SHAPES.items():
        for n in (1, 101):
            op_chain(kind, n, shape, os.path.join(out, "probe_%s_%s_%d" % (kind, tag, n)))
for name, (c, hw, groups, dil) in CONVS.items():
    for n in (1, 21):
        conv_chain(n, c, hw, groups, dil, os.path.join(out, "probe_%s_%d" % (name, n)))
for kind in SMALL:
    for n in (1, 21):
        small_chain(kind, n, os.path.join(out, "probe_%s_%d" % (kind, n)))
