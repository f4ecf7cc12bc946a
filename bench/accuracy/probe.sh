#!/usr/bin/env bash
# onnxruntime's own overheads on this machine: CPU time per run of a chain of 201 Abs nodes on
# 64 floats and of a single one (bench/accuracy/probe_models.py), at THREADS (default 1).
# Prints per node = (t201 - t1) / 200 and per run = t1 - per node: the figures behind
# ORT_NODE_NS / ORT_RUN_NS of src/cost/calibrate_cpu.c (docs/cost.md, "Runtime overheads").
# usage: bench/accuracy/probe.sh [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-1}
DIR=.fixtures-local/accuracy
/usr/bin/python3 bench/accuracy/probe_models.py "$DIR"
NODE_PATH=.fixtures/ort/node_modules TP_BENCH_MIN_SECONDS=${TP_BENCH_MIN_SECONDS:-3} TP_BENCH_MIN_RUNS=500 \
  node bench/accuracy/measure_ort.js "$DIR" "$THREADS" probe_abs_1 probe_abs_201 |
  node -e '
    const l = require("fs").readFileSync(0, "utf8").trim().split("\n").map(JSON.parse);
    const t1 = l.find(r => r.model === "probe_abs_1").cpu_ms * 1e6;
    const t201 = l.find(r => r.model === "probe_abs_201").cpu_ms * 1e6;
    const node = (t201 - t1) / 200;
    console.log(JSON.stringify({threads: l[0].threads, t1_ns: t1, t201_ns: t201,
                                node_ns: Math.round(node), run_ns: Math.round(t1 - node)}));'
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
