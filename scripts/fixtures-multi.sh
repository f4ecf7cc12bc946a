#!/usr/bin/env bash
# Multi-device llama.cpp ground truth (tests/cli/test_multi_device_truth.sh,
# bench/multi_device_truth.sh): builds ggml-rpc-server and llama-fit-params from the llama.cpp
# sources that scripts/fixtures-llm.sh cloned (.fixtures/llm/llama.cpp, node-llama-cpp's bundle)
# into .fixtures/multi/build, with the RPC backend (-DGGML_RPC=ON), portable CPU code, no curl.
#
# Idempotent: builds only when a binary is missing. TP_FIXTURES_SKIP=1 skips all.
# Takes several minutes on two cores (-j2, nice -n 10).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${TP_FIXTURES_SKIP:-0}" = 1 ] && exit 0
SRC=.fixtures/llm/llama.cpp
OUT=.fixtures/multi/build
PROBE=.fixtures/multi/multi_probe
if [ -x "$OUT/bin/ggml-rpc-server" ] && [ -x "$OUT/bin/llama-fit-params" ] && [ -x "$PROBE" ] &&
  [ ! scripts/multi_probe.cpp -nt "$PROBE" ]; then
  exit 0
fi
[ -f "$SRC/CMakeLists.txt" ] || bash scripts/fixtures-llm.sh
for t in cmake c++ cc; do
  command -v "$t" >/dev/null || { echo "fixtures-multi: $t is missing (run scripts/deps-test.sh)" >&2; exit 1; }
done
echo "fixtures-multi: building llama.cpp (rpc-server, llama-fit-params) into $OUT" >&2
mkdir -p "$OUT"
nice -n 10 cmake -S "$SRC" -B "$OUT" -DCMAKE_BUILD_TYPE=Release -DGGML_RPC=ON -DGGML_NATIVE=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >"$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log" >&2; exit 1; }
nice -n 10 cmake --build "$OUT" -j2 --target ggml-rpc-server llama-fit-params >"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log" >&2; exit 1; }
[ -x "$OUT/bin/ggml-rpc-server" ] && [ -x "$OUT/bin/llama-fit-params" ]
# the byte-level probe (scripts/multi_probe.cpp), linked against the same static libraries
echo "fixtures-multi: compiling multi_probe" >&2
LIBS=$(find "$OUT" -name "*.a" | sort)
nice -n 10 c++ -std=c++17 -O1 -I"$SRC/include" -I"$SRC/ggml/include" -I"$SRC/common" -I"$SRC/src" \
  scripts/multi_probe.cpp -o "$PROBE.tmp" -Wl,--start-group $LIBS -Wl,--end-group -fopenmp -lpthread -ldl
mv "$PROBE.tmp" "$PROBE"
