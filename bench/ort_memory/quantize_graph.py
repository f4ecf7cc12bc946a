"""Quantize a float ONNX model the two ways onnxruntime's quantization tool writes them, with
onnx and numpy only (Debian has no onnxruntime for Python). Run with Debian's /usr/bin/python3.

- dynamic (quantize_dynamic, QOperator format): every MatMul with a constant 2-D float B
  becomes DynamicQuantizeLinear(A) -> MatMulInteger(A_q, B_q, A_zp, B_zp) -> Cast -> Mul by
  A_scale * B_scale, B stored as int8 (symmetric, per tensor or per column); one
  DynamicQuantizeLinear per activation, shared by every MatMul that reads it (as the tool
  does for Q/K/V). A Gather from a constant float table (an embedding) reads an int8 table
  and dequantizes what it gathered.
- qdq (quantize_static, QDQ format, uint8 activations and int8 weights, per tensor: the format
  onnxruntime recommends on x86-64, where it fuses every group into QLinearConv, QLinearAdd,
  QGemm ...; with int8 activations it leaves some groups as float ops): a Relu or Clip
  right after a Conv, Gemm, MatMul or Add is removed (the tool's removable activations); every float
  activation read or written by a quantizable op (Conv, MatMul, Gemm, Add, Mul, Relu, Clip,
  MaxPool, AveragePool, GlobalAveragePool, Concat, Sigmoid, Resize) passes through one
  QuantizeLinear -> DequantizeLinear pair; constant weights become int8 initializers
  behind a DequantizeLinear (a Conv / Gemm bias: int32 at the input scale times the weight
  scale).

The scales are fixed, not calibrated: the numbers the model computes are meaningless, the
operations, shapes and bytes are those of a quantized model, which is what the benchmarks
measure.

usage: quantize_graph.py dynamic|dynamic_channel|qdq IN.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QDQ_OPS = {"Conv", "MatMul", "Gemm", "Add", "Mul", "Relu", "Clip", "MaxPool", "AveragePool",
           "GlobalAveragePool", "Concat", "Sigmoid", "Resize"}


class Graph:
    def __init__(self, model):
        self.model = model
        self.g = model.graph
        self.inits = {t.name: t for t in self.g.initializer}
        # an Identity of an initializer (torch's export writes one where two weights are equal)
        # becomes an initializer of its own, as the tool's pre-processing leaves it
        keep = []
        for n in self.g.node:
            value = [a.t for a in n.attribute if a.name == "value"] if n.op_type == "Constant" else []
            if value:
                # a Constant node's tensor becomes an initializer (as the tool's pre-processing
                # leaves it): a computed input such as Resize's scales is then no activation
                t = onnx.TensorProto()
                t.CopyFrom(value[0])
                t.name = n.output[0]
                self.g.initializer.append(t)
                self.inits[t.name] = t
                continue
            if n.op_type == "Identity" and n.input[0] in self.inits:
                t = onnx.TensorProto()
                t.CopyFrom(self.inits[n.input[0]])
                t.name = n.output[0]
                self.g.initializer.append(t)
                self.inits[t.name] = t
            else:
                keep.append(n)
        del self.g.node[:]
        self.g.node.extend(keep)
        self.new_inits = []
        self.n = 0
        self.float_values = self._float_values()

    def _float_values(self):
        m = onnx.shape_inference.infer_shapes(self.model)
        out = set()
        for vi in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
            if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
                out.add(vi.name)
        return out

    def name(self, base):
        self.n += 1
        return "%s_q%d" % (base, self.n)

    def const(self, base, arr):
        t = numpy_helper.from_array(arr, self.name(base))
        self.new_inits.append(t)
        return t.name

    def weight(self, name):
        t = self.inits.get(name)
        if t is None or t.data_type != TensorProto.FLOAT:
            return None
        return numpy_helper.to_array(t)

    def finish(self, nodes):
        del self.g.node[:]
        self.g.node.extend(nodes)
        used = {i for n in nodes for i in n.input}
        keep = [t for t in self.g.initializer if t.name in used]
        del self.g.initializer[:]
        self.g.initializer.extend(keep + [t for t in self.new_inits if t.name in used])
        if not any(o.domain in ("", "ai.onnx") and o.version >= 13 for o in self.model.opset_import):
            raise SystemExit("opset 13 or later needed (per-axis DequantizeLinear)")


def int8_weight(w, axis):
    """Symmetric int8 of w, per tensor (axis None) or per slice along `axis`."""
    if axis is None:
        scale = np.array(max(float(np.abs(w).max()), 1e-8) / 127.0, dtype=np.float32)
    else:
        red = tuple(i for i in range(w.ndim) if i != axis)
        scale = np.maximum(np.abs(w).max(axis=red), 1e-8).astype(np.float32) / 127.0
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32), np.zeros(scale.shape, dtype=np.int8)


def dynamic(model, per_channel):
    gr = Graph(model)
    out, dq = [], {}

    def quantize_input(a):
        if a not in dq:
            q, s, z = gr.name(a + "_quant"), gr.name(a + "_scale"), gr.name(a + "_zp")
            out.append(helper.make_node("DynamicQuantizeLinear", [a], [q, s, z],
                                        name=gr.name("dql")))
            dq[a] = (q, s, z)
        return dq[a]

    for node in gr.g.node:
        w = None
        if node.op_type == "MatMul":
            w = gr.weight(node.input[1])
        elif node.op_type == "Gather":
            w = gr.weight(node.input[0])
        if node.op_type == "MatMul" and w is not None and w.ndim == 2:
            wq, ws, wz = int8_weight(w, 1 if per_channel else None)
            a_q, a_s, a_z = quantize_input(node.input[0])
            bq = gr.const(node.input[1] + "_quantized", wq)
            bs = gr.const(node.input[1] + "_scale", ws)
            bz = gr.const(node.input[1] + "_zp", wz)
            acc, f, s = gr.name("mmi"), gr.name("cast"), gr.name("scale")
            out.append(helper.make_node("MatMulInteger", [a_q, bq, a_z, bz], [acc],
                                        name=gr.name("MatMulInteger")))
            out.append(helper.make_node("Cast", [acc], [f], to=TensorProto.FLOAT,
                                        name=gr.name("cast")))
            out.append(helper.make_node("Mul", [a_s, bs], [s], name=gr.name("scale_mul")))
            out.append(helper.make_node("Mul", [f, s], [node.output[0]], name=gr.name("out_mul")))
        elif node.op_type == "Gather" and w is not None and all(a.i == 0 for a in node.attribute):
            wq, ws, wz = int8_weight(w, None)
            g = gr.name("gathered")
            out.append(helper.make_node("Gather", [gr.const(node.input[0] + "_quantized", wq),
                                                   node.input[1]], [g], name=gr.name("gather")))
            out.append(helper.make_node("DequantizeLinear",
                                        [g, gr.const("emb_scale", ws), gr.const("emb_zp", wz)],
                                        [node.output[0]], name=gr.name("dq")))
        else:
            out.append(node)
    gr.finish(out)
    return model


def drop_activations(g):
    """The tool's QDQRemovableActivation: a Relu or Clip that is the only reader of a quantized
    op's output is removed, its range left to the output's quantization."""
    readers = {}
    for n in g.node:
        for i in n.input:
            readers[i] = readers.get(i, 0) + 1
    producer = {o: n for n in g.node for o in n.output}
    outputs = {o.name for o in g.output}
    keep = []
    for n in g.node:
        p = producer.get(n.input[0]) if n.op_type in ("Relu", "Clip") else None
        if (p is not None and p.op_type in ("Conv", "Gemm", "MatMul", "Add")
                and readers[n.input[0]] == 1 and n.input[0] not in outputs):
            p.output[list(p.output).index(n.input[0])] = n.output[0]
            continue
        keep.append(n)
    del g.node[:]
    g.node.extend(keep)


def qdq(model):
    drop_activations(model.graph)
    gr = Graph(model)
    out, qv = [], {}
    scale, zp = 0.05, 128

    def act(t):
        """t's dequantized twin (one Q -> DQ pair per activation)."""
        if t not in qv:
            q, d = gr.name(t + "_QuantizeLinear"), gr.name(t + "_DequantizeLinear")
            s = gr.const(t + "_scale", np.array(scale, dtype=np.float32))
            z = gr.const(t + "_zp", np.array(zp, dtype=np.uint8))
            qv[t] = (q, d, s, z)
        return qv[t]

    emitted = set()

    def emit_pair(t, into):
        q, d, s, z = act(t)
        if t in emitted:
            return d
        emitted.add(t)
        into.append(helper.make_node("QuantizeLinear", [t, s, z], [q], name=gr.name("q")))
        into.append(helper.make_node("DequantizeLinear", [q, s, z], [d], name=gr.name("dq")))
        return d

    for node in gr.g.node:
        if node.op_type not in QDQ_OPS:
            out.append(node)
            continue
        ins = list(node.input)
        w_scale = None
        for k, t in enumerate(ins):
            if t == "":
                continue
            if k == 0 or t not in gr.inits:
                if t in gr.float_values and t not in gr.inits:
                    ins[k] = emit_pair(t, out)
                continue
            w = gr.weight(t)
            if w is None:
                continue
            is_bias = node.op_type in ("Conv", "Gemm") and k == 2
            if is_bias:
                s = np.array(scale * (w_scale if w_scale is not None else 1.0), dtype=np.float32)
                q = np.clip(np.round(w / s), -2**31, 2**31 - 1).astype(np.int32)
                z = np.array(0, dtype=np.int32)
            elif node.op_type in ("Conv", "Gemm", "MatMul") and k == 1 and w.ndim >= 2:
                q, s, z = int8_weight(w, None)
                w_scale = float(s)
            else:
                if w.size == 1 or node.op_type in ("Clip", "Resize"):
                    continue  # scalars and attributes as inputs stay float
                q, s, z = int8_weight(w, None)
            d = gr.name(t + "_DequantizeLinear")
            out.append(helper.make_node("DequantizeLinear",
                                        [gr.const(t + "_quantized", q), gr.const(t + "_scale", s),
                                         gr.const(t + "_zp", z)], [d], name=gr.name("dqw")))
            ins[k] = d
        del node.input[:]
        node.input.extend(ins)
        out.append(node)
        for o in node.output:
            if o in gr.float_values:
                # the node writes o_raw; o itself becomes the DQ of its quantization
                raw = gr.name(o + "_raw")
                for k, x in enumerate(node.output):
                    if x == o:
                        node.output[k] = raw
                q, d, s, z = act(raw)
                emitted.add(raw)
                out.append(helper.make_node("QuantizeLinear", [raw, s, z], [q],
                                            name=gr.name("q")))
                out.append(helper.make_node("DequantizeLinear", [q, s, z], [o],
                                            name=gr.name("dq")))
                emitted.add(o)
                qv[o] = (q, o, s, z)
    gr.finish(out)
    return model


def main(argv):
    if len(argv) != 4 or argv[1] not in ("dynamic", "dynamic_channel", "qdq"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    model = onnx.load(argv[2])
    if argv[1] == "qdq":
        model = qdq(model)
    else:
        model = dynamic(model, argv[1] == "dynamic_channel")
    onnx.checker.check_model(model)
    onnx.save(model, argv[3], save_as_external_data=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
