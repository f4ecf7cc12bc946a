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
cmake --build "$BUILD" -j2 --target bench_cost_accuracy >/dev/null

out="$BUILD/accuracy-measured-t$THREADS.jsonl"
[ "${TP_BENCH_REMEASURE:-0}" = 1 ] && rm -f "$out"
touch "$out"
todo=""
for m in $MODELS; do grep -q "\"model\":\"$m\"" "$out" || todo="$todo $m"; done
if [ -n "$todo" ]; then
  echo "accuracy: measuring with onnxruntime ($THREADS thread(s)), load average $(cut -d' ' -f1-3 /proc/loadavg):$todo" >&2
  # shellcheck disable=SC2086
  NODE_PATH="$FIX/ort/node_modules" TP_BENCH_MIN_SECONDS=${TP_BENCH_MIN_SECONDS:-3} \
    node bench/accuracy/measure_ort.js "$LINKS" "$THREADS" $todo >>"$out" || true
fi
sel="$BUILD/accuracy-selected-t$THREADS.jsonl"
: >"$sel"
for m in $MODELS; do grep "\"model\":\"$m\"" "$out" | tail -1 >>"$sel" || true; done
flags=(--sets "$LIST")
[ "${TP_BENCH_FORCE:-0}" = 1 ] && flags+=(--force)
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$BUILD/bench/bench_cost_accuracy" "$sel" "$LINKS" "${flags[@]}" | tee "$BUILD/accuracy-report-t$THREADS.txt"
