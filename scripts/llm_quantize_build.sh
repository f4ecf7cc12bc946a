#!/usr/bin/env bash
# Builds llama.cpp's quantizer probe (scripts/llm_quantize.c) against node-llama-cpp's prebuilt
# libllama (scripts/fixtures-llm.sh installs it; nothing of llama.cpp is compiled) and writes
# the f16 models of the --weights-type truth (scripts/make_llm_gguf.py wt_*) into DIR.
# Idempotent. usage: bash scripts/llm_quantize_build.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: $0 DIR}
FIX=.fixtures/llm
mkdir -p "$OUT/models"
BINS=$(cd "$FIX"/npm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64 && pwd -P)
LIBLLAMA=$(cd "$BINS" && ls libllama*.so | grep -v common | head -1)
LIBGGML=$(cd "$BINS" && ls libggml.*so | head -1)
if [ ! -x "$OUT/llm_quantize" ] || [ scripts/llm_quantize.c -nt "$OUT/llm_quantize" ]; then
  cc -std=c11 -O1 -I"$FIX/llama.cpp/include" -I"$FIX/llama.cpp/ggml/include" scripts/llm_quantize.c \
    -o "$OUT/llm_quantize.tmp" -L"$BINS" -l:"$LIBLLAMA" -l:"$LIBGGML" -l:libggml-base.so \
    -Wl,-rpath,"$BINS"
  mv "$OUT/llm_quantize.tmp" "$OUT/llm_quantize"
fi
/usr/bin/python3 scripts/make_llm_gguf.py "$FIX/llama.cpp/gguf-py" "$OUT/models" \
  wt_llama_gqa_f16 wt_qwen2_f16 wt_gemma3_f16 wt_qwen3moe_f16 wt_mixtral_f16
