#!/usr/bin/env bash
# Truth test of the LLM estimate against llama.cpp itself (a representative slice; the full
# matrix is bench/llm_truth.sh). scripts/fixtures-llm.sh installs npm node-llama-cpp's prebuilt
# CPU llama.cpp, compiles scripts/llm_probe.cpp against it and writes small random-weight GGUFs;
# scripts/llm_truth.py loads each GGUF in llama.cpp and in tensorplan and prints every term.
# Fails when a model, KV or output buffer differs by one byte, the compute buffer or the total
# falls below llama.cpp's, or the compute buffer is more than 5 % above it (the planned graph,
# src/estimate/llm_graph.c, is equal to the byte on these models, deepseek2 and lfm2 included).
# usage: test_llm_truth.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
cd "$(dirname "$0")/../.."
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "skip: node-llama-cpp's prebuilt CPU llama.cpp used here is linux-x64 only"
    echo "0 passed, 0 failed"
    exit 0
fi
if ! bash scripts/fixtures-llm.sh; then
    echo "FAIL fixtures: scripts/fixtures-llm.sh (npm node-llama-cpp, llama.cpp sources, probe)"
    echo "0 passed, 1 failed"
    exit 1
fi
# split GGUF files that cannot be read whole: the error names the file and the reason
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tp-split.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
split=.fixtures/llm/models/qwen2_split_q4_0
for k in 1 2 4; do cp "$split-0000$k-of-00004.gguf" "$tmp/"; done
out=$("$TP" estimate "$tmp/qwen2_split_q4_0-00001-of-00004.gguf" --ctx 512 2>&1)
rc=$?
case "$rc:$out" in
    1:*qwen2_split_q4_0-00003-of-00004.gguf*) echo "ok split: a missing part is named" ;;
    *) echo "FAIL split: missing part 3: exit $rc: $out"; fail=1 ;;
esac
cp "$split-00001-of-00004.gguf" "$tmp/renamed.gguf"
out=$("$TP" estimate "$tmp/renamed.gguf" --ctx 512 2>&1)
rc=$?
case "$rc:$out" in
    1:*"split.count is 4 but the name is not NAME-00001-of-00004.gguf"*)
        echo "ok split: a renamed first part is explained" ;;
    *) echo "FAIL split: renamed first part: exit $rc: $out"; fail=1 ;;
esac
if [ "$fail" != 0 ]; then
    echo "0 passed, 1 failed"
    exit 1
fi
if /usr/bin/python3 scripts/llm_truth.py "$TP" .fixtures/llm \
    --models llama_mha_f16,llama_gqa_q8_0,qwen2_gqa_q4_0,gemma3_swa_q4_k,qwen3moe_q4_k,lfm2_hybrid_q8_0,deepseek2_mla_q8_0,qwen2_split_q4_0-00001-of-00004 \
    --ctx 512,4096,32768 --compute-within 5; then
    echo "1 passed, 0 failed"
else
    echo "FAIL llama.cpp truth (table above)"
    echo "0 passed, 1 failed"
    exit 1
fi
