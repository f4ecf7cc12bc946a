#!/usr/bin/env bash
# Measure onnxruntime's peak RSS growth for every model of models.txt (one fresh node process
# each, default session options, 2 intra-op threads) and write one JSON line per model to
# OUT (default bench/ort_memory/measured.jsonl). Usage: bash bench/ort_memory/measure.sh [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/bench/ort_memory/measured.jsonl}
export NODE_PATH=$root/.fixtures/ort/node_modules
: >"$out"
# the calibration copies with embedded weights (models.txt), written once
for m in mobilenet_v2 densenet121; do
    if [ ! -f "$root/.fixtures-local/${m}_embedded.onnx" ] && [ -f "$root/.fixtures/models/$m.onnx" ]; then
        mkdir -p "$root/.fixtures-local"
        /usr/bin/python3 "$root/bench/ort_memory/embed.py" "$root/.fixtures/models/$m.onnx" \
            "$root/.fixtures-local/${m}_embedded.onnx" >&2
    fi
done
grep -v '^#' "$root/bench/ort_memory/models.txt" | while read -r model inputs set; do
    [ -n "$model" ] || continue
    if [ ! -f "$root/$model" ]; then
        echo "measure: $model absent, skipped" >&2
        continue
    fi
    line=$(cd "$root" && node bench/ort_memory/ort_rss.js "$model" "$inputs") || {
        echo "measure: $model failed" >&2
        continue
    }
    echo "${line%\}}, \"set\": \"$set\"}" >>"$out"
    echo "$line" >&2
done
