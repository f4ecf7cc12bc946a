#!/usr/bin/env bash
# Build llama-bench for the throughput comparison (bench/llm_speed.sh, tests/cli/test_llm_speed.sh):
# llama.cpp's tools/llama-bench sources from the clone scripts/fixtures-llm.sh makes
# (.fixtures/llm/llama.cpp, the git bundle npm node-llama-cpp ships), linked against that
# package's prebuilt CPU libraries (libllama, libllama-common, libggml*), whose CPU backend is
# loaded at run time in the variant matching this CPU (libggml-cpu-zen4.so, -haswell, ...;
# llama-bench prints which). No cmake build of llama.cpp: one c++ call (~1 min).
# usage: scripts/llama_bench_build.sh [OUT_DIR]   (default .fixtures-local/llamabench)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-.fixtures-local/llamabench}
L=.fixtures/llm/llama.cpp
B=$(ls -d .fixtures/llm/npm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64 2>/dev/null || true)
command -v c++ >/dev/null || { echo "llama_bench_build: c++ is missing (run scripts/deps-test.sh)" >&2; exit 1; }
if [ -z "$B" ] || [ ! -f "$L/tools/llama-bench/llama-bench.cpp" ]; then
  echo "llama_bench_build: no node-llama-cpp prebuilt or llama.cpp sources (run scripts/fixtures-llm.sh)" >&2
  exit 1
fi
B=$(cd "$B" && pwd -P)
mkdir -p "$OUT"
if [ ! -x "$OUT/llama-bench" ] || [ "$L/tools/llama-bench/llama-bench.cpp" -nt "$OUT/llama-bench" ]; then
  echo "llama_bench_build: compiling llama-bench against $B" >&2
  LLAMA=$(cd "$B" && ls libllama.*so | head -1)
  GGML=$(cd "$B" && ls libggml.*so | head -1)
  nice -n 10 c++ -std=c++17 -O2 -DNDEBUG -I"$L/include" -I"$L/ggml/include" -I"$L/common" \
    -I"$L/tools/llama-bench" "$L/tools/llama-bench/llama-bench.cpp" "$L/tools/llama-bench/main.cpp" \
    -o "$OUT/llama-bench.tmp" -L"$B" -l:"$LLAMA" -l:libllama-common.so -l:"$GGML" -l:libggml-base.so \
    -lpthread -Wl,-rpath,"$B"
  mv "$OUT/llama-bench.tmp" "$OUT/llama-bench"
fi
# ggml loads its CPU backend variants from the executable's folder
for f in "$B"/libggml-cpu-*.so; do ln -sf "$f" "$OUT/"; done
echo "$OUT/llama-bench"
