#!/usr/bin/env bash
# Measure onnxruntime's peak RSS growth on the synthetic control-flow models of synth_body.py
# (written to .fixtures-local/synth): 3 fresh node processes per model, the median run's line
# kept, with every run's growth in "runs" (the spread). One JSON line per model to OUT (default
# bench/ort_memory/synth_measured.jsonl), set "synthetic".
# Usage: bash bench/ort_memory/measure_synth.sh [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/bench/ort_memory/synth_measured.jsonl}
dir=$root/.fixtures-local/synth
export NODE_PATH=$root/.fixtures/ort/node_modules
/usr/bin/python3 "$root/bench/ort_memory/synth_body.py" "$dir" >&2
: >"$out"
for m in "$dir"/*.onnx; do
    rel=${m#"$root"/}
    runs=$(for _ in 1 2 3; do (cd "$root" && node bench/ort_memory/ort_rss.js "$rel" "${rel%.onnx}.inputs.json"); done)
    /usr/bin/python3 -c '
import json, sys
runs = sorted((json.loads(l) for l in sys.stdin.read().splitlines()), key=lambda j: j["growth_bytes"])
m = runs[len(runs) // 2]
m["runs"] = [j["growth_bytes"] for j in runs]
m["set"] = "synthetic"
print(json.dumps(m))' <<<"$runs" >>"$out"
    tail -n1 "$out" >&2
done
