#!/usr/bin/env bash
# Full per-device truth matrix of the LLM placement (estimate --devices) against llama.cpp over
# RPC devices: dense (llama GQA q8_0, llama MHA f16, qwen2 q4_0, gemma3 SWA q4_K) and MoE
# (mixtral q8_0, qwen3moe q4_K) GGUFs under -ts, -ngl (full and partial offload), -nkvo, -ot
# exps=CPU and --n-cpu-moe, with 1-3 ggml-rpc-server processes on 127.0.0.1, ctx 512 and 4096.
# One row per device: llama.cpp's model / KV / compute bytes, tensorplan's difference.
# usage: bash bench/multi_device_truth.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
bash scripts/fixtures-llm.sh
bash scripts/fixtures-multi.sh
exec /usr/bin/python3 scripts/multi_truth.py "$B/tensorplan" .fixtures/multi \
  --models llama_gqa_q8_0,llama_mha_f16,qwen2_gqa_q4_0,gemma3_swa_q4_k,mixtral_moe_q8_0,qwen3moe_q4_k \
  --ctx 512,4096
