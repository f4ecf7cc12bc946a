#!/usr/bin/env bash
# llama.cpp ground truth for the LLM estimate tests (tests/cli/test_llm_truth.sh, bench/llm_truth.sh).
#
#  1. npm node-llama-cpp into .fixtures/llm/npm (NODE_LLAMA_CPP_SKIP_DOWNLOAD=true: no build, the
#     prebuilt CPU binaries of @node-llama-cpp/linux-x64 come with it).
#  2. llama.cpp's sources from the package's git bundle (llama/gitRelease.bundle) cloned into
#     .fixtures/llm/llama.cpp: the headers the probe compiles against, and gguf-py to write GGUFs.
#  3. the probe (scripts/llm_probe.c) compiled against the prebuilt libllama.so.
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
  (cd "$FIX/npm" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --no-audit --no-fund --silent \
    node-llama-cpp >/dev/null)
fi
if [ ! -d "$FIX/llama.cpp/.git" ]; then
  echo "fixtures-llm: git clone llama.cpp from node-llama-cpp's bundle" >&2
  rm -rf "$FIX/llama.cpp"
  git clone --quiet "$FIX/npm/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$FIX/llama.cpp"
fi
