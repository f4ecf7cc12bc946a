#!/usr/bin/env python3
"""Join onnxruntime's per-class kernel times with the cost model's per-class prediction.

usage: op_classes.py MEASURED.jsonl PREDICTED.txt
  MEASURED.jsonl  lines of bench/accuracy/ort_op_times.js (one JSON object per model)
  PREDICTED.txt   output of bench_cost_accuracy ... --classes (its "#classes" lines)

Prints, per model and op class, onnxruntime's kernel time, the prediction and their ratio
(predicted / measured), the classes sorted by the time the prediction misses or adds. Kernel
times leave out what runs between kernels (dispatch, the session's own work): the totals are
below a run's wall time. Both sides use the same classes (ort_op_times.js classOf and
src/cost/op_class.c; onnxruntime's NCHWc layout copies, ReorderInput and ReorderOutput, are
"move" on both sides since session 27); a class only one side has is printed with "-" on the
other.
"""
import json
import sys


def read_measured(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            row = json.loads(line)
            out[(row["model"], int(row["threads"]))] = row
    return out


def read_predicted(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#classes\t"):
                continue
            fields = line.rstrip("\n").split("\t")
            classes = {}
            for kv in fields[2:]:
                name, _, ms = kv.partition("=")
                classes[name] = float(ms)
            out[fields[1]] = classes
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    measured = read_measured(argv[1])
    predicted = read_predicted(argv[2])
    if not measured or not predicted:
        sys.stderr.write("op_classes: nothing to join (no JSON rows or no #classes lines)\n")
        return 1
    for (model, threads), row in sorted(measured.items()):
        pred = predicted.get(model)
        if pred is None:
            print(f"# {model}: no prediction in {argv[2]}")
            continue
        meas = row["classes"]
        names = sorted(set(meas) | set(pred),
                       key=lambda c: -abs(pred.get(c, 0.0) - meas.get(c, 0.0)))
        tm, tp = sum(meas.values()), sum(pred.values())
        print(f"# {model}, {threads} thread(s), {row['runs']} profiled runs: kernels "
              f"{tm:.2f} ms measured, {tp:.2f} ms predicted ({tp / tm:.2f}x)")
        print("class\tmeasured_ms\tpredicted_ms\tratio\tmissed_ms")
        for c in names:
            m, p = meas.get(c), pred.get(c)
            ratio = f"{p / m:.2f}" if m and p else "-"
            ms = f"{m:.3f}" if m is not None else "-"
            ps = f"{p:.3f}" if p is not None else "-"
            print(f"{c}\t{ms}\t{ps}\t{ratio}\t{(m or 0.0) - (p or 0.0):+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
