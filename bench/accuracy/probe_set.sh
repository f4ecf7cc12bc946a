#!/usr/bin/env bash
# Probe models against the cost model: each model of bench/accuracy/probe_SET.py measured with
# onnxruntime (CPU time per run at one thread, the busiest thread's at several) and predicted by
# tensorplan with the cached calibration of the same thread count. Sets: nchwc (NCHWc
# convolutions and resizes, docs/cost.md "Session 24"), convtranspose (docs/cost.md,
# "Transposed convolutions"), expand (docs/cost.md, "The expand pass"), transpose (docs/cost.md,
# "Transposes"), elementwise (docs/cost.md, "PRelu", "Passes in a cache"). Read the ratios between
# probes (f_64_16_k3 against f_64_64_k3 per filter block, pad_96_24 against pad_96_32, rs_pn
# against rs_pn_rpf, x_3d_64 against n_3d_64, pr_ against ad_), not the absolute figures: this
# host's speed moves. The convtranspose, expand, transpose and elementwise sets compare kernel
# times instead: the node's time in
# onnxruntime's profiler (mean of 40 runs) against the predicted nodes' time, as their outputs
# are large (up to 7 MiB) and the harness's copy of an output into JavaScript would dominate a
# run's CPU time.
# usage: bench/accuracy/probe_set.sh SET [THREADS]   env: BUILD_DIR (default build-bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
SET=${1:?usage: probe_set.sh nchwc|convtranspose|expand|transpose|elementwise [THREADS]}
THREADS=${2:-1}
DIR=.fixtures-local/probe_$SET
BUILD=${BUILD_DIR:-build-bench}
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTP_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target tensorplan >/dev/null
names=$(/usr/bin/python3 "bench/accuracy/probe_$SET.py" "$DIR")
echo "# model	onnxruntime_ms	predicted_ms	(threads $THREADS)"
for m in $names; do
  if [ "$SET" != nchwc ]; then
    ms=$(NODE_PATH=.fixtures/ort/node_modules TP_PROFILE_RUNS=40 \
      node bench/accuracy/ort_op_times.js "$DIR" "$THREADS" "$m" 2>/dev/null |
      node -e 'const l=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(l.total_ms.toFixed(3))')
    field=nodes_ns
  else
    ms=$(NODE_PATH=.fixtures/ort/node_modules TP_BENCH_MIN_SECONDS=${TP_BENCH_MIN_SECONDS:-2} \
      node bench/accuracy/measure_ort.js "$DIR" "$THREADS" "$m" 2>/dev/null |
      node -e 'const l=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log((l.threads>1?l.busy_ms:l.cpu_ms).toFixed(3))')
    field=total_ns
  fi
  pred=$(TENSORPLAN_THREADS=$THREADS "$BUILD/tensorplan" cost "$DIR/$m.onnx" --devices cpu --json 2>/dev/null |
    F=$field node -e 'const j=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log((j.devices[0][process.env.F]/1e6).toFixed(3))' || echo "?")
  printf '%s\t%s\t%s\n' "$m" "$ms" "$pred"
done
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
