#!/usr/bin/env bash
# Accuracy benchmark of the cost model: measure real onnxruntime latency of the
# exported models on this machine, predict the same forward passes with the
# calibrated CPU model, print per model predicted vs measured, MAPE and Spearman.
#
# usage: bench/accuracy/run.sh [THREADS] [MODEL...]
# env:   BUILD_DIR (default build-bench), TP_BENCH_MIN_SECONDS (per model, default 3),
#        TP_BENCH_FORCE=1 (calibrate again)
# Needs the fixtures of scripts/fixtures.sh (torch-exported models, onnxruntime-node).
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-1}
shift || true
MODELS=${*:-"resnet50 mobilenet_v2 efficientnet_b0 densenet121 inception_v3 convnext_tiny swin_t vit_b_16 gpt2 gpt2_past bert_base unet_tiny"}
BUILD=${BUILD_DIR:-build-bench}
FIX=.fixtures

missing=0
for m in $MODELS; do [ -f "$FIX/models/$m.onnx" ] || missing=1; done
[ -f "$FIX/ort/node_modules/onnxruntime-node/package.json" ] || missing=1
if [ "$missing" = 1 ]; then
  echo "accuracy: fixtures missing, running scripts/fixtures.sh" >&2
  bash scripts/fixtures.sh
fi

[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTP_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" -j2 --target bench_cost_accuracy >/dev/null

out="$BUILD/accuracy-measured-t$THREADS.jsonl"
echo "accuracy: measuring with onnxruntime ($THREADS thread(s)): $MODELS" >&2
# shellcheck disable=SC2086
NODE_PATH="$FIX/ort/node_modules" TP_BENCH_MIN_SECONDS=${TP_BENCH_MIN_SECONDS:-3} \
  node bench/accuracy/measure_ort.js "$FIX/models" "$THREADS" $MODELS >"$out"
flags=()
[ "${TP_BENCH_FORCE:-0}" = 1 ] && flags+=(--force)
"$BUILD/bench/bench_cost_accuracy" "$out" "$FIX/models" "${flags[@]}" | tee "$BUILD/accuracy-report-t$THREADS.txt"
