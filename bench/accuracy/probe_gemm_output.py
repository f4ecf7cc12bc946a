"""Lone-op probes beside bench/accuracy/probe_ops.sh (chains of one op: a node's cost): a lone MatMul
at 18 shapes and one large graph output, onnxruntime's time against tensorplan's prediction and
(MatMul) OpenBLAS on the same shape, measured in the same run.

usage: /usr/bin/python3 bench/accuracy/probe_gemm_output.py TENSORPLAN OUT_DIR [gemm|output]...
       (NODE_PATH must reach onnxruntime-node, as for measure_ort.js)

gemm:   MatMuls x[M,K] · W[K,N], W a constant (onnxruntime pre-packs it), at the square sizes of
        the calibration's curve, transformer and convolution shapes, and K from 16 to 512 at
        1024 x 1024 outputs.
output: Expand of a [1,1024] input to 1, 4, 16, 64 MiB, then either a Relu (the big tensor is
        the graph's output: onnxruntime-node copies it into a JavaScript buffer) or a ReduceMax
        (a scalar output): the difference is what the output costs beyond the Relu's pass.

Each row: tensorplan's prediction at one thread (TENSORPLAN_THREADS=1, its cached
calibration), onnxruntime's median CPU time and fastest run (measure_ort.js, one thread), and
for MatMuls the GFLOP/s OpenBLAS reaches (numpy, one thread, CPU time: the fastest and the median
of repeated products). On a shared virtual machine the median runs well below the fastest; the
calibration takes the best of its trials, so compare the prediction with both.
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

GEMM = [(128, 128, 128), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024),
        (196, 768, 768), (196, 768, 3072), (128, 768, 768), (64, 512, 2048), (2048, 256, 256),
        (3136, 64, 64), (3136, 64, 256), (3136, 256, 64)] + \
       [(1024, k, 1024) for k in (16, 32, 64, 128, 256, 512)]
OUTPUT_MIB = (1, 4, 16, 64)


def save(onnx, model, out_dir, name, inputs):
    model.ir_version = 8
    onnx.save(model, os.path.join(out_dir, name + ".onnx"))
    with open(os.path.join(out_dir, name + ".inputs.json"), "w") as f:
        json.dump({"model": name, "bind": {}, "inputs": inputs}, f)


def export_gemm(out_dir):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    names = []
    for m, k, n in GEMM:
        name = "mm_%d_%d_%d" % (m, k, n)
        w = numpy_helper.from_array((rng.random((k, n)) - 0.5).astype(np.float32), "W")
        g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])], [w])
        save(onnx, helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), out_dir,
             name, {"x": {"shape": [m, k], "dtype": "float32"}})
        names.append(name)
    return names


def export_output(out_dir):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    names = []
    for mib in OUTPUT_MIB:
        rows = mib * 1024 * 1024 // 4 // 1024
        for tail in ("out", "reduce"):
            name = "out_%dm_%s" % (mib, tail)
            shape = numpy_helper.from_array(np.array([rows, 1024], dtype=np.int64), "shape")
            nodes = [helper.make_node("Expand", ["x", "shape"], ["e"])]
            if tail == "out":
                nodes.append(helper.make_node("Relu", ["e"], ["y"]))
                y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, 1024])
            else:
                nodes.append(helper.make_node("ReduceMax", ["e"], ["y"], keepdims=0))
                y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
            g = helper.make_graph(nodes, name,
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1024])],
                                  [y], [shape])
            save(onnx, helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), out_dir,
                 name, {"x": {"shape": [1, 1024], "dtype": "float32"}})
            names.append(name)
    return names


def predicted_ms(tp, path):
    env = dict(os.environ, TENSORPLAN_THREADS="1")
    out = subprocess.run([tp, "cost", path, "--devices", "cpu"], env=env, capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "cpu" and len(f) > 5:
            return float(f[3]), float(f[5])  # total, readback
    raise RuntimeError("no cpu row for " + path)


def measure_ort(out_dir, names):
    env = dict(os.environ, TP_BENCH_MIN_SECONDS=os.environ.get("TP_BENCH_MIN_SECONDS", "2"))
    out = subprocess.run(["node", os.path.join(HERE, "measure_ort.js"), out_dir, "1"] + names,
                         env=env, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            rows[d["model"]] = d
    return rows


def openblas_gflops(m, k, n):
    """Fastest and median GFLOP/s of numpy's product (one thread: OPENBLAS_NUM_THREADS=1 set by
    main before numpy loads), timed by this thread's CPU time, about a second of products."""
    import numpy as np
    a = np.random.rand(m, k).astype(np.float32)
    b = np.random.rand(k, n).astype(np.float32)
    flops = 2.0 * m * k * n
    for _ in range(3):
        a @ b
    reps = int(min(3000, max(30, 1.0 / (flops / 60e9))))
    ts = []
    for _ in range(reps):
        t0 = time.thread_time_ns()
        a @ b
        ts.append(time.thread_time_ns() - t0)
    ts.sort()
    return flops / ts[0], flops / ts[len(ts) // 2]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tp, out_dir = sys.argv[1], sys.argv[2]
    kinds = sys.argv[3:] or ["gemm", "output"]
    os.makedirs(out_dir, exist_ok=True)
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    for kind in kinds:
        names = export_gemm(out_dir) if kind == "gemm" else export_output(out_dir)
        ort = measure_ort(out_dir, names)
        if kind == "gemm":
            print("# MatMul, 1 thread: tensorplan's prediction against onnxruntime's median CPU time "
                  "and fastest run; GFLOP/s of onnxruntime and OpenBLAS (fastest / median)")
            print("# shape\tpred_ms\tort_med_ms\terr_med\tort_min_ms\terr_min\tort_gflops\topenblas_gflops")
        else:
            print("# one large output, 1 thread: 'out' returns the tensor, 'reduce' a scalar")
            print("# model\tpred_ms\treadback_ms\tort_med_ms\terr_med\tort_min_ms\terr_min")
        for name in names:
            pred, readback = predicted_ms(tp, os.path.join(out_dir, name + ".onnx"))
            d = ort.get(name)
            if not d:
                print("%s\t%.3f\tnot measured" % (name, pred))
                continue
            med, fast = d["cpu_ms"], d["min_ms"]
            err = "%+.1f%%\t%.3f\t%+.1f%%" % (100 * (pred / med - 1), fast, 100 * (pred / fast - 1))
            if kind == "gemm":
                m, k, n = (int(x) for x in name.split("_")[1:])
                gf = 2.0 * m * k * n / 1e6
                best, median = openblas_gflops(m, k, n)
                print("%dx%dx%d\t%.3f\t%.3f\t%s\t%.0f / %.0f\t%.0f / %.0f" %
                      (m, k, n, pred, med, err, gf / fast, gf / med, best, median))
            else:
                print("%s\t%.3f\t%.3f\t%.3f\t%s" % (name, pred, readback, med, err))


if __name__ == "__main__":
    main()
