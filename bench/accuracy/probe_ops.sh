#!/usr/bin/env bash
# Single-op probes of the cost model against onnxruntime (bench/accuracy/probe_models.py): for
# each chain of N nodes of one op (and the same chain of 1 node), onnxruntime's CPU time per
# run and the cost model's prediction; prints per probe the time of one more node, measured
# and predicted, and their ratio. The effects of docs/cost.md ("Grouped and dilated
# convolutions", "One thread") were found on these, not on the accuracy benchmark's models.
# usage: bench/accuracy/probe_ops.sh [THREADS] [REGEX]   (default 1, all probes)
# env:   BUILD_DIR (default build-bench), TP_BENCH_MIN_SECONDS (per probe, default 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-1}
RE=${2:-.}
BUILD=${BUILD_DIR:-build-bench}
DIR=.fixtures-local/accuracy
/usr/bin/python3 bench/accuracy/probe_models.py "$DIR"
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTP_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target bench_cost_accuracy >/dev/null
names=$(cd "$DIR" && ls probe_*.onnx | sed 's/\.onnx$//' | grep -E "$RE" | tr '\n' ' ')
out="$BUILD/probe-measured-t$THREADS.jsonl"
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) (before)"
# shellcheck disable=SC2086
NODE_PATH=.fixtures/ort/node_modules TP_BENCH_MIN_SECONDS=${TP_BENCH_MIN_SECONDS:-1} TP_BENCH_MIN_RUNS=20 \
  node bench/accuracy/measure_ort.js "$DIR" "$THREADS" $names >"$out"
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) (after)"
"$BUILD/bench/bench_cost_accuracy" "$out" "$DIR" >"$BUILD/probe-report-t$THREADS.txt"
grep '^# device' "$BUILD/probe-report-t$THREADS.txt"
# one thread: the median CPU time per run (column 11); several: the busiest thread's (column 12)
col=$([ "$THREADS" = 1 ] && echo 11 || echo 12)
awk -F'\t' -v col="$col" '
  !/^#/ && NF >= 12 {
    n = $1; sub(/_[0-9]+$/, "", n); k = substr($1, length(n) + 2) + 0
    if (!(n in lo) || k < lo[n]) { lo[n] = k; plo[n] = $5; mlo[n] = $col }
    if (!(n in hi) || k > hi[n]) { hi[n] = k; phi[n] = $5; mhi[n] = $col }
  }
  END {
    printf "# probe\tort_us_per_node\tpredicted_us_per_node\tpredicted/ort\n"
    for (n in hi) if (hi[n] > lo[n]) {
      d = hi[n] - lo[n]; m = (mhi[n] - mlo[n]) / d * 1e3; p = (phi[n] - plo[n]) / d * 1e3
      printf "%s\t%.2f\t%.2f\t%s\n", n, m, p, (m > 0 ? sprintf("%.2f", p / m) : "-")
    }
  }' "$BUILD/probe-report-t$THREADS.txt" | sort
