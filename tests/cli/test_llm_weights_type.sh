#!/usr/bin/env bash
# Truth test of `estimate --weights-type` against llama.cpp's own quantizer (a slice: four
# families, eight file types; bench/llm_weights_type.sh runs every model and type).
# scripts/llm_quantize_build.sh compiles scripts/llm_quantize.c (llama_model_quantize, the code
# llama-quantize runs) against node-llama-cpp's prebuilt libllama and writes f16 GGUFs;
# scripts/llm_weights_type_truth.py quantizes each and compares the file's tensor bytes and
# model buffers with tensorplan's prediction from the f16 GGUF and from its config.json.
# Fails when any figure differs by one byte. Also: a list gives one row per type, and an
# unknown type is a usage error that names the known ones.
# usage: test_llm_weights_type.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
TP=$(cd "$(dirname "$TP")" && pwd)/$(basename "$TP")
cd "$(dirname "$0")/../.."
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "skip: node-llama-cpp's prebuilt CPU llama.cpp used here is linux-x64 only"
    echo "0 passed, 0 failed"
    exit 0
fi
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/  /'; }
W="$(dirname "$TP")/llm-weights-type"
if ! bash scripts/fixtures-llm.sh || ! bash scripts/llm_quantize_build.sh "$W"; then
    echo "FAIL fixtures: scripts/fixtures-llm.sh, scripts/llm_quantize_build.sh"
    echo "0 passed, 1 failed"
    exit 1
fi
out=$(/usr/bin/python3 scripts/llm_weights_type_truth.py "$TP" .fixtures/llm/llama.cpp/gguf-py \
    "$W/llm_quantize" "$W/work" "$W/models" \
    --models wt_llama_gqa_f16,wt_qwen2_f16,wt_gemma3_f16,wt_qwen3moe_f16 \
    --types q8_0,q4_0,q4_k_m,q5_k_s,q6_k,q3_k_m,q2_k,iq4_xs 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] && ok "32 quantized files equal to the byte (tensors, mapped, repack)" ||
    bad "llama.cpp's quantized files vs --weights-type" "$(printf '%s\n' "$out" | grep -E 'MISMATCH|failed|Error' | head -20)"
# a list: one row per type in the human table and in JSON
m="$W/models/wt_llama_gqa_f16.gguf"
j=$("$TP" estimate "$m" --weights-type f16,q8_0,q4_k_m --budget 1GiB --json)
n=$(printf '%s' "$j" | /usr/bin/python3 -c 'import json,sys; w=json.load(sys.stdin)["weights_types"]; print(len(w), all(r["fits"] for r in w), w[0]["model_bytes"] > w[1]["model_bytes"] > w[2]["model_bytes"])')
[ "$n" = "3 True True" ] && ok "--weights-type list: 3 rows in JSON, f16 > q8_0 > q4_k_m" ||
    bad "--weights-type list JSON" "$n"
t=$("$TP" estimate "$m" --weights-type f16,q4_k_m --budget 1GiB)
printf '%s\n' "$t" | grep -q "^  q4_k_m " && ok "--weights-type list: human table row" ||
    bad "--weights-type list: human table" "$t"
# fit: one search per type; fewer bits leave room for a longer context
f=$("$TP" fit "$m" --dim ctx --budget 12MiB --weights-type q8_0,q4_k_m,q2_k --json)
v=$(printf '%s' "$f" | /usr/bin/python3 -c 'import json,sys; w=json.load(sys.stdin)["weights_types"]; print(len(w), w[0]["value"] < w[1]["value"] < w[2]["value"])')
[ "$v" = "3 True" ] && ok "fit --weights-type list: larger ctx for q8_0 < q4_k_m < q2_k" ||
    bad "fit --weights-type list" "$v"
e=$("$TP" estimate "$m" --weights-type q4_x 2>&1)
rc=$?
[ $rc = 2 ] && printf '%s' "$e" | grep -q "q4_k_m" && ok "unknown type: usage error naming the types" ||
    bad "unknown type (rc $rc)" "$e"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
