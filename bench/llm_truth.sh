#!/usr/bin/env bash
# Full truth matrix of the LLM estimate against llama.cpp: every test GGUF (dense MHA, GQA,
# sliding window, two MoE; f16, q8_0, q4_0, q4_K) at ctx 512, 4096, 32768, flash attention on
# and off, KV types f16/f16, q8_0/q8_0, q8_0/q4_0; ubatch 512. Prints one row per run with
# llama.cpp's bytes and tensorplan's difference for each term (model, context, output, compute).
# usage: bash bench/llm_truth.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
bash scripts/fixtures-llm.sh
exec /usr/bin/python3 scripts/llm_truth.py "$B/tensorplan" .fixtures/llm --full
