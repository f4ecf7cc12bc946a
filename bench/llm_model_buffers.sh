#!/usr/bin/env bash
# The model buffer of every GGUF given, as llama.cpp allocates it (scripts/llm_probe.cpp with
# node-llama-cpp's prebuilt CPU backends: on a CPU with AMX, its AMX variant) against tensorplan's
# estimate with this host's repack rule (`--repack auto`; AMX there: docs/estimate.md "AMX").
# One row per file: llama.cpp's model bytes (its AMX buffer apart), tensorplan's (its copies:
# AMX and CPU_REPACK), the difference. Session 19 ran it on the 32 files llama.cpp's quantizer
# wrote for tests/cli/test_llm_weights_type.sh (BUILD/llm-weights-type/work/*.gguf) and their f16
# sources.
# usage: bash bench/llm_model_buffers.sh [BUILD_DIR] FILE.gguf...   (after scripts/fixtures-llm.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
B=.fixtures/llm/npm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
[ -x .fixtures/llm/llm_probe ] && [ -d "$B" ] || { echo "run scripts/fixtures-llm.sh first" >&2; exit 1; }
bad=0
for f in "$@"; do
    out=$(LLM_PROBE_BACKENDS=$B .fixtures/llm/llm_probe "$f" 512 512 1 f16 f16 1 0 2>&1)
    if printf '%s\n' "$out" | grep -q GGML_ASSERT; then
        printf '%-36s llama.cpp aborted\n' "$(basename "$f")"
        continue
    fi
    t=$(printf '%s\n' "$out" | awk '$1 == "buffer" && $2 == "model" { s += $4 } END { print s + 0 }')
    amx=$(printf '%s\n' "$out" | awk '$1 == "buffer" && $2 == "model" && $3 == "AMX" { s += $4 } END { print s + 0 }')
    if ! js=$("$BUILD/tensorplan" estimate "$f" --ctx 512 --ubatch 512 --batch 512 --budget 1TiB --json 2>&1); then
        printf '%-36s tensorplan failed: %s\n' "$(basename "$f")" "$(printf '%s' "$js" | head -1)"
        bad=$((bad + 1))
        continue
    fi
    read -r e copies < <(printf '%s' "$js" |
        /usr/bin/python3 -c 'import json, sys; j = json.load(sys.stdin)["llm"]; print(j["model_bytes"], j["model_repack_bytes"])')
    [ "$e" = "$t" ] || bad=$((bad + 1))
    printf '%-36s llama.cpp %10d (AMX %9d)  tensorplan %10d (copies %9d)  diff %+d\n' \
        "$(basename "$f")" "$t" "$amx" "$e" "$copies" $((e - t))
done
echo "$bad files differ"
[ "$bad" = 0 ]
