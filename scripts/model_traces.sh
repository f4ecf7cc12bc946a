#!/usr/bin/env bash
# Buffer traces of real models' plans, for bench_alloc --models DIR.
#
#   scripts/model_traces.sh [TENSORPLAN] [OUT_DIR]
#
# Plans every exported model in .fixtures/models (batch 8, seq 128, past 128, 224x224
# images) with `tensorplan plan --json` and writes each plan's own buffers (slots that are
# neither views nor in-place reuses: root == node) as MiniMalloc CSV
# (id,lower,upper,size; live on [lower, upper)) to OUT_DIR (default .fixtures/alloc/models).
# Needs /usr/bin/python3 (Debian python3) for the JSON -> CSV step.
set -euo pipefail
cd "$(dirname "$0")/.."
TP=${1:-build/tensorplan}
OUT=${2:-.fixtures/alloc/models}
mkdir -p "$OUT"
for m in .fixtures/models/*.onnx; do
  case "$m" in *.all.onnx | *.vi.onnx) continue ;; esac
  name=$(basename "$m" .onnx)
  # bind the model's symbols (listed by the unbound-dim hint) from a fixed table
  dims=()
  syms=$("$TP" plan "$m" --json 2>&1 >/dev/null | sed -n 's/.*(symbols: \(.*\))$/\1/p' | tr -d ',' || true)
  for s in $syms; do
    case "$s" in
      batch) dims+=(--dim batch=8) ;;
      height | width) dims+=(--dim "$s=224") ;;
      *) dims+=(--dim "$s=128") ;;
    esac
  done
  if ! "$TP" plan "$m" "${dims[@]}" --algo greedy --json > "$OUT/$name.json" 2> "$OUT/$name.err"; then
    echo "model_traces: $name: $(head -1 "$OUT/$name.err")" >&2
    rm -f "$OUT/$name.json"
    continue
  fi
  /usr/bin/python3 - "$OUT/$name.json" "$OUT/$name.csv" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    f.write("id,lower,upper,size\n")
    for s in plan["slots"]:
        if s.get("root", s["node"]) == s["node"] and not s.get("view") and not s.get("inplace"):
            f.write("%d,%d,%d,%d\n" % (s["node"], s["birth"], s["death"] + 1, s["size"]))
PY
  rm -f "$OUT/$name.json" "$OUT/$name.err"
  echo "model_traces: $OUT/$name.csv ($(($(wc -l < "$OUT/$name.csv") - 1)) buffers)"
done
