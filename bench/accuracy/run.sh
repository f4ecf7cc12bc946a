#!/usr/bin/env bash
# Accuracy benchmark of the cost model: measure real onnxruntime latency of the models of
# bench/accuracy/models.txt on this machine, predict the same forward passes with the
# calibrated CPU model of the same thread count, print per model predicted vs measured and
# MAPE / Spearman for the fitting set and the held-out set apart.
#
# usage: bench/accuracy/run.sh [THREADS|all] [MODEL...]
#        all: 1 then 2 threads, each table in turn (the whole fit / held-out table in one command)
# env:   BUILD_DIR (default build-bench), TP_BENCH_MIN_SECONDS (per model, default 3),
#        TP_BENCH_FORCE=1 (calibrate again), TP_BENCH_REMEASURE=1 (measure onnxruntime again;
#        otherwise the measurements of $BUILD/accuracy-measured-tN.jsonl are kept and only
#        models without one are measured)
# Prints the host's speed (the calibration's reference kernel) before and after onnxruntime
# measures and during the calibration, and UNSTEADY when they differ by more than 10 %.
# Needs the fixtures of scripts/fixtures.sh (exported models, onnxruntime-node); npm models
# and bench/accuracy/export_extra.py's models are used when present, else listed as absent.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = all ]; then
  shift
  for t in 1 2; do
    echo "## $t thread(s)"
    bash bench/accuracy/run.sh "$t" "$@"
  done
  exit 0
fi
THREADS=${1:-1}
shift || true
BUILD=${BUILD_DIR:-build-bench}
FIX=.fixtures
LIST=bench/accuracy/models.txt
WANT=${*:-}

if [ ! -f "$FIX/models/resnet50.onnx" ] || [ ! -f "$FIX/ort/node_modules/onnxruntime-node/package.json" ]; then
  echo "accuracy: fixtures missing, running scripts/fixtures.sh" >&2
  bash scripts/fixtures.sh
fi

# one directory of links, so that measurement and prediction read the same files
LINKS=.fixtures-local/accuracy-all
mkdir -p "$LINKS"
MODELS=""
while read -r name dir _set; do
  case "$name" in '#'* | '') continue ;; esac
  if [ -n "$WANT" ] && ! [[ " $WANT " == *" $name "* ]]; then continue; fi
  if [ ! -f "$dir/$name.onnx" ] || [ ! -f "$dir/$name.inputs.json" ]; then
    echo "accuracy: $name absent ($dir), skipped" >&2
    continue
  fi
  for ext in onnx onnx.data inputs.json; do
    [ -f "$dir/$name.$ext" ] && ln -sfn "$PWD/$dir/$name.$ext" "$LINKS/$name.$ext"
  done
  MODELS="$MODELS $name"
done <"$LIST"

[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTP_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target bench_cost_accuracy tensorplan >/dev/null

# The host's speed now: the calibration's reference kernel (64³ GEMM, one thread, GFLOP/s) from a
# quick calibration into a scratch cache. Taken before and after onnxruntime measures, and
# compared with the reference figures of the calibration that prices the models: on a shared
# host a core's speed moves by up to 40 % for minutes (docs/cost.md, "Session 12"), and a run
# whose measurement and calibration saw different speeds says so.
reference_now() {
  local c
  c=$(mktemp -d)
  XDG_CACHE_HOME="$c" TENSORPLAN_THREADS=1 "$BUILD/tensorplan" calibrate --quick --force --no-cuda \
    --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{
      try{console.log(JSON.parse(s).steadiness.start_gflops.toFixed(1))}catch(e){console.log("0")}})'
  rm -rf "$c"
}

out="$BUILD/accuracy-measured-t$THREADS.jsonl"
[ "${TP_BENCH_REMEASURE:-0}" = 1 ] && rm -f "$out"
touch "$out"
todo=""
for m in $MODELS; do grep -q "\"model\":\"$m\"" "$out" || todo="$todo $m"; done
ref_before="" ref_after=""
if [ -n "$todo" ]; then
  echo "accuracy: measuring with onnxruntime ($THREADS thread(s)), load average $(cut -d' ' -f1-3 /proc/loadavg):$todo" >&2
  ref_before=$(reference_now)
  # shellcheck disable=SC2086
  NODE_PATH="$FIX/ort/node_modules" TP_BENCH_MIN_SECONDS=${TP_BENCH_MIN_SECONDS:-3} \
    node bench/accuracy/measure_ort.js "$LINKS" "$THREADS" $todo >>"$out" || true
  ref_after=$(reference_now)
fi
sel="$BUILD/accuracy-selected-t$THREADS.jsonl"
: >"$sel"
for m in $MODELS; do grep "\"model\":\"$m\"" "$out" | tail -1 >>"$sel" || true; done
flags=(--sets "$LIST")
[ "${TP_BENCH_FORCE:-0}" = 1 ] && flags+=(--force)
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$BUILD/bench/bench_cost_accuracy" "$sel" "$LINKS" "${flags[@]}" | tee "$BUILD/accuracy-report-t$THREADS.txt"
if [ -n "$ref_before" ]; then
  # the calibration's own reference figures ("reference kernel A -> B GFLOP/s"; none when cached)
  cal=$(sed -n 's/.*reference kernel \([0-9.]*\) -> \([0-9.]*\) GFLOP.*/\1 \2/p' \
    "$BUILD/accuracy-report-t$THREADS.txt" | head -1)
  echo "# host speed (reference kernel, GFLOP/s): $ref_before before onnxruntime measured, $ref_after after; calibration: ${cal:-cached, not measured now}"
  node -e 'const v=process.argv.slice(1).map(Number).filter(x=>x>0);
    if(v.length>1){const r=Math.max(...v)/Math.min(...v);
      console.log(r>1.1?"# UNSTEADY: the host ran "+((r-1)*100).toFixed(0)+" % faster at one point than at another: measurement and calibration may have seen different speeds; run again":"# steady within "+((r-1)*100).toFixed(0)+" %")}' \
    "$ref_before" "$ref_after" $cal
fi
