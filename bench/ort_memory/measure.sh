#!/usr/bin/env bash
# Measure onnxruntime's peak RSS growth for every model of models.txt (one fresh node process
# each, default session options, 2 intra-op threads) and write one JSON line per model to
# OUT (default bench/ort_memory/measured.jsonl). RUNS (default 1) fresh processes per model: the
# median run's line is kept, every run's growth in "runs" (and its file-page growth in
# "runs_file"), the load average in "load". SET=calibration (or seen, heldout2 … heldout13)
# measures that set only; the heldout models are written by
# bench/ort_memory/export_heldout2.py … export_heldout9.py.
# Usage: [RUNS=3] [SET=calibration] bash bench/ort_memory/measure.sh [OUT]
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
    [ -z "${SET:-}" ] || [ "$set" = "$SET" ] || continue
    if [ ! -f "$root/$model" ]; then
        echo "measure: $model absent, skipped" >&2
        continue
    fi
    runs=$(for _ in $(seq "${RUNS:-1}"); do
        (cd "$root" && node bench/ort_memory/ort_rss.js "$model" "$inputs") || echo "measure: $model failed" >&2
    done)
    [ -n "$runs" ] || continue
    /usr/bin/python3 -c '
import json, os, sys
runs = sorted((json.loads(l) for l in sys.stdin.read().splitlines()), key=lambda j: j["growth_bytes"])
m = runs[len(runs) // 2]
m["runs"] = [j["growth_bytes"] for j in runs]
m["runs_file"] = [j["file_growth_bytes"] for j in runs]
m["load"] = round(os.getloadavg()[0], 2)
m["set"] = sys.argv[1]
print(json.dumps(m))' "$set" <<<"$runs" >>"$out"
    tail -n1 "$out" >&2
done
