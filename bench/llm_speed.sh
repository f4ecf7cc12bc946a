#!/usr/bin/env bash
# LLM throughput: tensorplan's predicted prefill / decode tokens per second (estimate --speed cpu)
# against llama.cpp's llama-bench (pp512, tg128) on random-weight GGUFs of ~20 M, ~120 M and
# ~850 M parameters (f32, f16, q8_0, q4_0) and an MoE (8 experts, 2 used). llama-bench is built
# from node-llama-cpp's llama.cpp sources against its prebuilt CPU libraries
# (scripts/llama_bench_build.sh). One thread is measured by CPU time (scripts/llm_speed.py), more
# threads by llama-bench's wall clock (best of the repetitions). Results are cached under
# OUT (default .fixtures-local/llm_speed); delete a file to measure again.
# usage: bash bench/llm_speed.sh [BUILD_DIR] [--threads 1,2] [--models a,b] [--fit]
set -euo pipefail
cd "$(dirname "$0")/.."
B=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then B=$1; shift; fi
OUT=${OUT:-.fixtures-local/llm_speed}
bash scripts/fixtures-llm.sh
LB=$(bash scripts/llama_bench_build.sh "$OUT/llamabench" | tail -1)
ALL=""
for s in 20m 120m 850m; do
  for t in f32 f16 q8_0 q4_0; do
    [ "$s/$t" = 850m/f32 ] && continue # 3.4 GB: too slow for this machine
    ALL="$ALL speed_${s}_$t"
  done
done
ALL="$ALL speed_moe_q8_0 speed_moe_q4_0"
# shellcheck disable=SC2086
/usr/bin/python3 scripts/make_llm_gguf.py .fixtures/llm/llama.cpp/gguf-py "$OUT/models" $ALL
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
exec /usr/bin/python3 scripts/llm_speed.py "$B/tensorplan" "$LB" "$OUT/models" "$OUT/results" "$@"
