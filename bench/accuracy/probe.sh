#!/usr/bin/env bash
# onnxruntime's own overheads on this machine: CPU time per run of a chain of 201 Abs nodes on
# 64 floats and of a single one (bench/accuracy/probe_models.py), at THREADS (default 1; with
# several, the busiest thread's CPU time per run).
# Prints per node = (t201 - t1) / 200 and per run = t1 - per node, and, read just before and just
# after, the figures a quick calibration gives for them (runtime_node_ns / runtime_run_ns: its
# interpreter step times ORT_NODE_STEPS_* / ORT_RUN_STEPS_* of src/cost/calibrate_cpu.c, the
# multiples these pairs were taken for: docs/cost.md, "Runtime overheads", "Session 15").
# usage: bench/accuracy/probe.sh [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-1}
DIR=.fixtures-local/accuracy
/usr/bin/python3 bench/accuracy/probe_models.py "$DIR"
BUILD=${BUILD_DIR:-build-bench}
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTP_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target tensorplan >/dev/null
calibrated() { # the calibration's figures now (a quick one in a scratch cache)
  local c
  c=$(mktemp -d)
  XDG_CACHE_HOME="$c" TENSORPLAN_THREADS=$THREADS "$BUILD/tensorplan" calibrate --quick --force --no-cuda --json 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{const j=JSON.parse(s);
      console.log(JSON.stringify({reference_gflops: +j.steadiness.start_gflops.toFixed(1),
        node_ns: Math.round(j.cpu.runtime_node_ns), run_ns: Math.round(j.cpu.runtime_run_ns)}))}catch(e){console.log("{}")}})'
  rm -rf "$c"
}
echo "calibration before: $(calibrated)"
NODE_PATH=.fixtures/ort/node_modules TP_BENCH_MIN_SECONDS=${TP_BENCH_MIN_SECONDS:-3} TP_BENCH_MIN_RUNS=500 \
  node bench/accuracy/measure_ort.js "$DIR" "$THREADS" probe_abs_1 probe_abs_201 |
  node -e '
    const l = require("fs").readFileSync(0, "utf8").trim().split("\n").map(JSON.parse);
    // one thread: CPU time per run; several: the busiest thread CPU time (what the model predicts)
    const key = l[0].threads > 1 ? "busy_ms" : "cpu_ms";
    const t1 = l.find(r => r.model === "probe_abs_1")[key] * 1e6;
    const t201 = l.find(r => r.model === "probe_abs_201")[key] * 1e6;
    const node = (t201 - t1) / 200;
    console.log(JSON.stringify({threads: l[0].threads, t1_ns: t1, t201_ns: t201,
                                node_ns: Math.round(node), run_ns: Math.round(t1 - node)}));'
echo "calibration after: $(calibrated)"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
