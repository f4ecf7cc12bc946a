#!/usr/bin/env bash
# LLM throughput: tensorplan's predicted prefill / decode tokens per second (estimate --speed cpu)
# against llama.cpp's llama-bench (pp512, tg128) on random-weight GGUFs of ~20 M, ~120 M, ~400 M
# and ~850 M parameters (f32, f16, q8_0, q4_0) and MoEs (q8_0, q4_0): two of 8 experts, 2 used
# (40 M, 330 M), and five probes added in session 34 (experts from 256 x 352 to 1536 x 2048;
# 4, 8 and 16 experts: 256, 128 and 64 tokens per expert). Fit set: 20 M, 120 M, 400 M and the
# 40 M MoE; held out: 850 M, the 330 M MoE and the probes. llama-bench is built
# from node-llama-cpp's llama.cpp sources against its prebuilt CPU libraries
# (scripts/llama_bench_build.sh). llama-bench's wall clock, the median of the repetitions
# (scripts/llm_speed.py): run it on a quiet machine, after `tensorplan calibrate --force`. Results are cached under
# OUT (default .fixtures-local/llm_speed); delete a file to measure again.
# usage: bash bench/llm_speed.sh [BUILD_DIR] [--threads 1,2] [--models a,b] [--fit] [--no-amx]
# (--no-amx: on a CPU with AMX, llama.cpp without its AMX variant against --repack avx512)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then B=$1; shift; fi
OUT=${OUT:-.fixtures-local/llm_speed}
bash scripts/fixtures-llm.sh
LB=$(bash scripts/llama_bench_build.sh "$OUT/llamabench" | tail -1)
ALL=""
for s in 20m 120m 400m 850m; do
  for t in f32 f16 q8_0 q4_0; do
    case $s/$t in 400m/f32 | 850m/f32) continue ;; esac # 1.6 / 3.4 GB: too slow here
    ALL="$ALL speed_${s}_$t"
  done
done
for s in moe40m moe moe20m moe100m moe16x moe4x moe1b; do
  ALL="$ALL speed_${s}_q8_0 speed_${s}_q4_0"
done
# shellcheck disable=SC2086
/usr/bin/python3 scripts/make_llm_gguf.py .fixtures/llm/llama.cpp/gguf-py "$OUT/models" $ALL
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
exec /usr/bin/python3 scripts/llm_speed.py "$B/tensorplan" "$LB" "$OUT/models" "$OUT/results" "$@"
