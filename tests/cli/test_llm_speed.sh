#!/usr/bin/env bash
# LLM throughput against llama.cpp: tensorplan estimate --speed cpu --threads 1 on two small
# random-weight GGUFs (speed_20m_q4_0, ~20 M parameters, and the ~40 M MoE speed_moe40m_q4_0)
# against llama-bench pp512 / tg128 at one thread (and the 20 M one at depth 4096, below), measured now by llama-bench's CPU time (scripts/llm_speed.py, LLM_SPEED_CPU=1). A run of
# the comparison, not a timed assertion (see below). llama-bench is built by
# scripts/llama_bench_build.sh from node-llama-cpp's llama.cpp (linux-x64 only; skipped elsewhere).
# usage: test_llm_speed.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
cd "$(dirname "$0")/../.."
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "skip: node-llama-cpp's prebuilt CPU llama.cpp used here is linux-x64 only"
    echo "0 passed, 0 failed"
    exit 0
fi
OUT=.fixtures-local/llm_speed
if ! bash scripts/fixtures-llm.sh || ! LB=$(bash scripts/llama_bench_build.sh "$OUT/llamabench" | tail -1); then
    echo "FAIL fixtures: scripts/fixtures-llm.sh or scripts/llama_bench_build.sh"
    echo "0 passed, 1 failed"
    exit 1
fi
/usr/bin/python3 scripts/make_llm_gguf.py .fixtures/llm/llama.cpp/gguf-py "$OUT/models" speed_20m_q4_0 speed_moe40m_q4_0 || exit 1
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# The comparison runs end to end (llama-bench built and measured, tensorplan's prediction, the
# table); the accuracy itself is a benchmark figure (bench/llm_speed.sh, docs/estimate.md
# "Throughput"), not asserted here: llama-bench's rate on a shared machine moves 2x with the
# load (20m q4_0 pp512: 4,779 t/s at load 7.5, 10,894 at 1.2, 5,382 at 3.8), which no band
# around a prediction can absorb without also accepting a broken model. What is asserted: every
# figure is a positive rate, and the prediction is within 4x of the measurement either way
# (a unit error, a missing term or a broken parser is off by far more). A measurement that fails
# that (a run disturbed by other jobs on a shared machine)
# is taken once more. llama-bench is timed by its CPU time (LLM_SPEED_CPU=1, scripts/llm_speed.py:
# the difference between runs of 1 and 4 repetitions), not its wall clock: under ctest -j2 on two
# cores, with other tests running, the wall clock fell outside 4x twice in a row (session 13, at
# load 4.5), a failure of the machine, not of the model.
sane() {
    rm -rf "${res:?}"/*
    out=$(LLM_SPEED_CPU=1 /usr/bin/python3 scripts/llm_speed.py "$TP" "$LB" "$OUT/models" "$res" \
        --models speed_20m_q4_0,speed_moe40m_q4_0 --threads 1 --reps 3) || return 1
    echo "$out"
    echo "$out" | awk '$1 == "20m_q4_0" || $1 == "moe40m_q4_0" { seen++
        if ($4 + 0 <= 0 || $5 + 0 <= 0 || $7 + 0 <= 0 || $8 + 0 <= 0) bad = 1
        else if ($4 > 4 * $5 || $5 > 4 * $4 || $7 > 4 * $8 || $8 > 4 * $7) bad = 1 }
        END { exit (seen == 2 && !bad) ? 0 : 1 }'
}
fail=0
if sane || { echo "not within 4x: measuring once more"; sane; }; then
    echo "ok comparison"
else
    echo "FAIL the comparison did not run, or a figure is not a rate within 4x (table above)"
    fail=$((fail + 1))
fi
# the error band says where it comes from. On a CPU with AMX llama.cpp runs AMX kernels: where
# the calibration measured AMX tiles (cpu.amx_int8_gops > 0) the band is the AMX rates' held-out
# one (0.6), else the one measured before those rates (0.8); both say AMX. Elsewhere the CPU's
# (0.3). The estimate's own llama.cpp rule says whether this CPU's llama.cpp runs AMX (repack
# "amx"); calibrate says whether its tiles were measured (the same cached calibration).
tiles=$("$TP" calibrate --threads 1 --no-cuda --json |
    /usr/bin/python3 -c 'import json, sys; print(int(json.load(sys.stdin)["cpu"]["amx_int8_gops"] > 0))')
"$TP" estimate "$OUT/models/speed_20m_q4_0.gguf" --speed cpu --threads 1 --json -q >"$res/one.json"
read -r band want < <(TILES=$tiles /usr/bin/python3 -c 'import json, os, sys; j = json.load(sys.stdin); s = j["speed"][0]
amx = j["llm"]["repack"] == "amx"
tiles = os.environ["TILES"] == "1"
print("%s/%s" % (s["error_band"], "AMX" in s["error_source"]),
      ("0.6/True" if tiles else "0.8/True") if amx else "0.3/False")' <"$res/one.json")
if [ "$band" = "$want" ]; then
    echo "ok error band: $band"
else
    echo "FAIL error band: got '$band', want '$want'"
    fail=$((fail + 1))
fi
# two threads: the decode step is the one-thread calibration's over llama.cpp's thread gain, and
# the basis says so; the band is the 2-thread benchmark's (0.3 without AMX); the 2-thread figure
# is faster than the 1-thread one above and no more than twice as fast
read -r basis2 band2 tg1 tg2 < <(
    "$TP" estimate "$OUT/models/speed_20m_q4_0.gguf" --speed cpu --threads 2 --json -q |
    /usr/bin/python3 -c 'import json, sys; s = json.load(sys.stdin)["speed"][0]
o = json.load(open(sys.argv[1]))["speed"][0]
print(int("1-thread step / 1.65" in s["basis"]), s["error_band"], o["decode_tps"], s["decode_tps"])' "$res/one.json")
if [ "${basis2:-0}" = 1 ] && /usr/bin/python3 -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if a < b < 2 * a else 1)' "$tg1" "$tg2" &&
    { [ "$tiles" = 1 ] || [ "$band2" = 0.3 ] || [ "$band2" = 0.8 ]; }; then
    echo "ok two threads: decode $tg1 -> $tg2 t/s from the one-thread step, band $band2"
else
    echo "FAIL two threads: basis from the one-thread step $basis2, band $band2, decode $tg1 -> $tg2"
    fail=$((fail + 1))
fi
# the MoE's experts: where this host's llama.cpp repacks q4_0 (x86: avx2, avx512, amx) it
# multiplies each routed token by its expert with the decode kernel, and the kernel line says so
read -r rule gemv < <("$TP" estimate "$OUT/models/speed_moe40m_q4_0.gguf" --speed cpu --threads 1 --json -q |
    /usr/bin/python3 -c 'import json, sys; j = json.load(sys.stdin)
print(j["llm"]["repack"], int("repacked MoE experts" in j["speed"][0]["kernel"]))')
case "$rule" in avx2 | avx512 | amx) want=1 ;; *) want=0 ;; esac
if [ "${gemv:-x}" = "$want" ]; then
    echo "ok MoE experts under repack rule $rule: decode kernel per token $gemv"
else
    echo "FAIL MoE experts under repack rule $rule: kernel line says decode kernel per token '$gemv', want $want"
    fail=$((fail + 1))
fi
# with 4096 tokens already in the cache (llama-bench -d 4096): flash attention's time per cell,
# which the model once priced 4-10x too fast at this depth (docs/estimate.md, "Session 34"); the
# same 4x sanity bound, wall clock (bench/llm_depth.py), taken once more if disturbed
deep() {
    rm -rf "${res:?}"/*
    out=$(/usr/bin/python3 bench/llm_depth.py "$TP" "$LB" "$OUT/models" "$res" --models speed_20m_q4_0 \
        --depths 0,4096 --gen 16 --reps 1) || return 1
    echo "$out"
    echo "$out" | awk '$1 == "20m_q4_0" && $3 == 4096 { seen = 1
        if ($4 + 0 <= 0 || $5 + 0 <= 0 || $7 + 0 <= 0 || $8 + 0 <= 0) bad = 1
        else if ($4 > 4 * $5 || $5 > 4 * $4 || $7 > 4 * $8 || $8 > 4 * $7) bad = 1 }
        END { exit (seen && !bad) ? 0 : 1 }'
}
if deep || { echo "not within 4x: measuring once more"; deep; }; then
    echo "ok depth 4096"
else
    echo "FAIL depth 4096: the comparison did not run, or a figure is not within 4x (table above)"
    fail=$((fail + 1))
fi
echo "$((5 - fail)) passed, $fail failed"
[ "$fail" = 0 ]
