#!/usr/bin/env bash
# llama.cpp ground truth for the LLM estimate tests (tests/cli/test_llm_truth.sh, bench/llm_truth.sh).
#
#  1. npm node-llama-cpp into .fixtures/llm/npm (NODE_LLAMA_CPP_SKIP_DOWNLOAD=true: no build) with
#     the prebuilt CPU binaries of @node-llama-cpp/linux-x64 (bins/: libllama, libggml*).
#  2. llama.cpp's sources from the package's git bundle (llama/gitRelease.bundle) cloned into
#     .fixtures/llm/llama.cpp: the headers the probe compiles against, and gguf-py to write GGUFs.
#  3. the probe (scripts/llm_probe.cpp) compiled against the prebuilt libllama, and the test
#     GGUFs (scripts/make_llm_gguf.py) in .fixtures/llm/models.
#
# Idempotent: each step runs only when its result is missing. TP_FIXTURES_SKIP=1 skips all.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${TP_FIXTURES_SKIP:-0}" = 1 ] && exit 0
FIX=.fixtures/llm
for t in node npm git cc /usr/bin/python3; do
  command -v "$t" >/dev/null || { echo "fixtures-llm: $t is missing (run scripts/deps-test.sh)" >&2; exit 1; }
done
mkdir -p "$FIX/npm"
if [ ! -f "$FIX/npm/node_modules/node-llama-cpp/package.json" ]; then
  echo "fixtures-llm: npm install node-llama-cpp" >&2
  # only the linux-x64 CPU binaries (--omit=optional skips the CUDA/Vulkan/ARM ones: 85 MB, not
  # 700), at the version node-llama-cpp pins
  (cd "$FIX/npm" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --no-audit --no-fund --silent \
    --omit=optional node-llama-cpp >/dev/null &&
    v=$(node -p 'require("./node_modules/node-llama-cpp/package.json").optionalDependencies["@node-llama-cpp/linux-x64"]') &&
    NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --no-audit --no-fund --silent --omit=optional \
      "@node-llama-cpp/linux-x64@$v" >/dev/null)
fi
if [ ! -d "$FIX/llama.cpp/.git" ]; then
  echo "fixtures-llm: git clone llama.cpp from node-llama-cpp's bundle" >&2
  rm -rf "$FIX/llama.cpp"
  git clone --quiet "$FIX/npm/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$FIX/llama.cpp"
fi
BINS=$(ls -d "$FIX"/npm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64 2>/dev/null || true)
if [ -z "$BINS" ] || ! ls "$BINS"/libllama*.so >/dev/null 2>&1; then
  echo "fixtures-llm: no prebuilt linux-x64 llama.cpp in node-llama-cpp (this host: $(uname -m))" >&2
  exit 1
fi
LIBLLAMA=$(cd "$BINS" && ls libllama*.so | grep -v common | head -1)
LIBGGML=$(cd "$BINS" && ls libggml.*so | head -1)
if [ ! -x "$FIX/llm_probe" ] || [ scripts/llm_probe.cpp -nt "$FIX/llm_probe" ]; then
  echo "fixtures-llm: compiling llm_probe against $BINS/$LIBLLAMA" >&2
  L="$FIX/llama.cpp"
  c++ -std=c++17 -O1 -I"$L/include" -I"$L/ggml/include" -I"$L/src" scripts/llm_probe.cpp \
    -o "$FIX/llm_probe.tmp" -L"$BINS" -l:"$LIBLLAMA" -l:"$LIBGGML" -l:libggml-base.so -ldl \
    -Wl,-rpath,"$(cd "$BINS" && pwd -P)"
  mv "$FIX/llm_probe.tmp" "$FIX/llm_probe"
fi
# small random-weight GGUFs (scripts/make_llm_gguf.py: seven families, a few MB each)
/usr/bin/python3 scripts/make_llm_gguf.py "$FIX/llama.cpp/gguf-py" "$FIX/models"
