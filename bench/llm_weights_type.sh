#!/usr/bin/env bash
# Full truth matrix of `estimate --weights-type` against llama.cpp's quantizer: five f16 models
# (llama GQA, qwen2 with biases and a 640-wide ffn_down, gemma3 tied with a 320-wide embedding,
# qwen3moe with 8 experts, mixtral-style llama MoE) × 22 file types that need no importance
# matrix. One row per pair: the quantized file's tensor bytes and tensorplan's difference from
# the f16 GGUF and from config.json. usage: bash bench/llm_weights_type.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
W="$B/llm-weights-type"
bash scripts/fixtures-llm.sh
bash scripts/llm_quantize_build.sh "$W"
exec /usr/bin/python3 scripts/llm_weights_type_truth.py "$B/tensorplan" .fixtures/llm/llama.cpp/gguf-py \
  "$W/llm_quantize" "$W/work" "$W/models"
