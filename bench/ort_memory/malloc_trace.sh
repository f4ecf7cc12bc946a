#!/usr/bin/env bash
# Where onnxruntime's resident memory goes while it creates a session and runs a model: runs
# ort_rss.js on MODEL in a fresh node process with the malloc tracer (malloc_trace.c, built here
# with cc) preloaded, then prints ort_rss.js's line, every traced allocation and free of at least
# SHOW bytes (default 1 MiB) with glibc's heap state beside it, and a summary: the largest heap,
# the most bytes in mmapped chunks, and how many large heap requests grew the heap (new pages)
# against those served from a hole that an earlier free left. docs/runtime.md, "Session 15".
# Usage: bash bench/ort_memory/malloc_trace.sh MODEL.onnx INPUTS.json [ort_rss.js options]
# env: SHOW (bytes, default 1048576), MT_MIN (bytes traced, default 65536), KEEP=FILE keeps the raw trace
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 MODEL.onnx INPUTS.json [ort_rss.js options]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -o "$work/malloc_trace.so" \
    "$root/bench/ort_memory/malloc_trace.c" -ldl -lpthread
NODE_PATH=$root/.fixtures/ort/node_modules MT_OUT=$work/trace.txt LD_PRELOAD=$work/malloc_trace.so \
    node "$root/bench/ort_memory/ort_rss.js" "$@"
[ -z "${KEEP:-}" ] || cp "$work/trace.txt" "$KEEP"
/usr/bin/python3 "$root/bench/ort_memory/malloc_trace_summary.py" "$work/trace.txt" "${SHOW:-1048576}"
