#!/usr/bin/env bash
# Golden tests of every subcommand's text output: each case runs tensorplan on a
# small deterministic input (the built-in demo decoder, the committed ONNX seed
# files of fuzz/corpus/onnx, catalog devices) and compares stdout, stderr and the
# exit code with tests/golden/<case>.txt, which reads
#     $ tensorplan ARGS...
#     <stdout>
#     [stderr]          (only when stderr is not empty)
#     <stderr>
#     [exit N]          (only when N is not 0)
#
# Regenerate after an intended change of the output, and review the diff:
#     UPDATE_GOLDEN=1 bash tests/cli/test_golden.sh build/tensorplan
#
# Determinism: every budget is given with --budget (the default is this
# machine's memory); devices are catalog GPUs or built-in defaults (catalog
# CPUs learn their efficiency from this machine); the CPU calibration comes from
# tests/golden/calibrate.cache.in, installed as the cache of this CPU model in a
# temporary $XDG_CACHE_HOME with TENSORPLAN_THREADS=2. The only filter (sed in
# `normalize` below) replaces what still names this machine: the temporary
# directory -> <tmp>, the source tree -> <src>, the CPU model name -> <cpu model> (and its slug in the
# cache file name, calib-<slug>-t2.txt -> calib-<cpu>-t2.txt), and the numbers
# of calibrate's "peak ... derived" line (from this CPU's clock) -> <derived>, the ISA
# of calibrate's "isa" line (a cached run measured no kernel; the read-curve kernel it names) -> <isa>,
# the ISA of the built-in GEMM kernel in the accuracy lines ("kernel builtin (avx2)") -> <isa>,
# and the search time at the end of alloc's summary line -> <time>.
#
# Also checked: every subcommand has at least one golden case and no golden file
# is stale; every subcommand's --help has a usage line, an examples section and
# the exit codes; and every example that needs no missing file runs (exit 0/3).
# usage: test_golden.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
G=tests/golden
C=fuzz/corpus/onnx
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
export TENSORPLAN_THREADS=2
unset TENSORPLAN_DEVICES TENSORPLAN_DENY_DEVICES TENSORPLAN_PREFER_DEVICES
unset TENSORPLAN_ARENA_NO_REUSE TENSORPLAN_SOFT_MEMORY_FRACTION TENSORPLAN_MEMORY_BUDGET_BYTES
export LC_ALL=C

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
    fails=$((fails + 1))
    echo "FAIL $1"
    if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/  /'; fi
}

# The subcommands, from the top-level help.
mapfile -t cmds < <("$TP" --help 2>&1 | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
if [ "${#cmds[@]}" -lt 2 ]; then
    bad "list the subcommands from '$TP --help'" "got: ${cmds[*]:-nothing}"
    echo "$pass passed, $fails failed"
    exit 1
fi
has_cmd() { printf '%s\n' "${cmds[@]}" | grep -qx "$1"; }

# Install the fixture calibration as this CPU's cache: a quick calibration (well
# under a second) tells the CPU model and the cache file's name.
cpu_model=""
if has_cmd calibrate; then
    "$TP" calibrate --quick --no-cuda --json >"$tmp/cal.json" 2>"$tmp/cal.err"
    cpu_model=$(sed -n 's/^  "cpu_model": "\(.*\)",$/\1/p' "$tmp/cal.json")
    qpath=$(sed -n 's/^  "cache_path": "\(.*\)",$/\1/p' "$tmp/cal.json")
    key=$(sed -n 's/^  "cache_key": "\(.*\)",$/\1/p' "$tmp/cal.json")
    key="${key%|threads=*}|threads=2" # the key of a 2-thread calibration on this CPU
    full=${qpath%-quick.txt}.txt
    if [ -n "$cpu_model" ] && [ "$full" != "$qpath" ]; then
        sed "s/@KEY@/$(printf '%s' "$key" | sed 's/[\/&]/\\&/g')/" \
            $G/calibrate.cache.in >"$full"
        ok "fixture calibration installed for '$cpu_model'"
    else
        bad "install the fixture calibration" "calibrate --json said: $(head -c 300 "$tmp/cal.json") $(head -c 300 "$tmp/cal.err")"
    fi
fi

normalize() { # stdin -> stdout: the machine-specific bits named in the header
    local s="s|$tmp|<tmp>|g;s|$PWD/|<src>/|g"
    if [ -n "$cpu_model" ]; then
        s="$s;s|$(printf '%s' "$cpu_model" | sed 's/[][\.*^$|]/\\&/g')|<cpu model>|g"
    fi
    sed -e "$s" -e 's|/calib-[a-z0-9-]*-t\([0-9]*\)\(-quick\)\{0,1\}\.txt|/calib-<cpu>-t\1\2.txt|g' \
        -e 's/^\(tensorplan alloc: .*\), [0-9.]* s$/\1, <time> s/' \
        -e 's/^\(  peak  *\)[0-9.]* GFLOP\/s derived\(.*\)reaches [0-9.]*%$/\1<derived> GFLOP\/s derived\2reaches <derived>%/' \
        -e 's/^\(  isa  *\)[a-z0-9]*\(; read curve [a-z0-9-]*\)\{0,1\}$/\1<isa>/' \
        -e 's/kernel builtin ([a-z0-9_]*)/kernel builtin (<isa>)/g'
}

declare -A covered=()
declare -A seen_case=()
# golden NAME ARGS...: run `tensorplan ARGS...`, compare with tests/golden/NAME.txt.
golden() {
    local name=$1
    shift
    seen_case[$name]=1
    covered[$1]=1
    local out="$tmp/$name.out" err="$tmp/$name.err"
    "$TP" "$@" >"$out" 2>"$err" </dev/null
    local rc=$?
    {
        echo "\$ tensorplan $*"
        cat "$out"
        if [ -s "$err" ]; then
            echo "[stderr]"
            cat "$err"
        fi
        if [ "$rc" -ne 0 ]; then echo "[exit $rc]"; fi
    } | normalize >"$tmp/$name.txt"
    if [ -n "${UPDATE_GOLDEN:-}" ]; then
        if cmp -s "$tmp/$name.txt" "$G/$name.txt"; then ok "$name (unchanged)"; else
            cp "$tmp/$name.txt" "$G/$name.txt"
            ok "$name (written)"
        fi
        return
    fi
    if [ ! -f "$G/$name.txt" ]; then
        bad "$name" "no $G/$name.txt (run with UPDATE_GOLDEN=1 and review it)"
    elif diff -u "$G/$name.txt" "$tmp/$name.txt" >"$tmp/$name.diff"; then
        ok "$name: tensorplan $*"
    else
        bad "$name: tensorplan $*" "$(head -n 40 "$tmp/$name.diff")"
    fi
}

head -c 60 $C/test_if.onnx >"$tmp/truncated.onnx"
printf 'id,lower,upper,size\n0,0,3,100\n1,5,2,50\n' >"$tmp/bad_interval.csv"
/usr/bin/python3 tests/cli/make_tiny_gguf.py "$tmp/tiny.gguf" # a llama-like .gguf

for cmd in "${cmds[@]}"; do
    case "$cmd" in
    plan)
        golden plan_demo plan --demo --dim seq=16
        golden plan_noreuse plan --demo --dim seq=16 --no-reuse --align 256 --no-params
        golden plan_onnx_conv plan $C/test_basic_conv_with_padding.onnx --plan-time 10 # stops at the proof; no time dependence
        golden plan_unknown_dim plan --demo --dim nosuch=3
        golden plan_bad_align plan --demo --align 3
        ;;
    estimate)
        golden estimate_fits estimate --demo --budget 1GiB
        golden estimate_over estimate --demo --dim seq=512 --dim batch=4 --budget 512MiB
        golden estimate_moe estimate --demo --moe 8,2,10MiB,2 --budget 200MiB
        golden estimate_bad_budget estimate --demo --budget 12XB
        golden estimate_budget_decimal estimate --demo --budget 1.5G # read as binary: 1.5 GiB
        golden estimate_gguf estimate "$tmp/tiny.gguf" --ctx 512 --seqs 4 --kv-type q8_0 --repack none --budget 1GiB
        ;;
    fit)
        golden fit_seq fit --demo --dim seq --budget 1GiB
        golden fit_none fit --demo --dim seq --budget 100MiB
        golden fit_at_max fit --demo --dim batch --dim seq=64 --budget 100TiB --max 100
        golden fit_gguf_ctx fit "$tmp/tiny.gguf" --dim ctx --budget 64MiB --repack avx512
        ;;
    inspect)
        golden inspect_conv inspect $C/test_basic_conv_with_padding.onnx --nodes
        golden inspect_if inspect $C/test_if.onnx
        golden inspect_loop inspect $C/test_loop11.onnx --nodes
        golden inspect_missing inspect "$tmp/missing.onnx"
        golden inspect_truncated inspect "$tmp/truncated.onnx"
        ;;
    profile)
        golden profile_h100 profile --demo --dim seq=32 --device h100-sxm --top 5
        golden profile_cpu_summary profile --demo --device cpu --top 3 --summary
        golden profile_unknown_device profile --demo --device nosuchgpu
        ;;
    cost)
        golden cost_catalog cost --demo --devices cpu,h100-sxm,l4,a100-80gb,cpu-default
        golden cost_prefer cost --demo --devices h100-sxm,l4,t4 --prefer l4,t4 --dtype f16
        golden cost_defaults cost --demo --dim seq=64 --devices cpu-default,cuda-default,metal-default
        ;;
    calibrate)
        golden calibrate_cached calibrate --no-cuda
        ;;
    version)
        golden version version
        ;;
    alloc)
        golden alloc_exact alloc $G/alloc_small.csv --algo exact --time-limit 0 # no time limit: deterministic
        golden alloc_bestfit alloc $G/alloc_small.csv --algo bestfit
        golden alloc_greedy alloc $G/alloc_small.csv --algo greedy --align 256
        golden alloc_capacity_infeasible alloc $G/alloc_small.csv --capacity 10KiB
        golden alloc_bad_interval alloc "$tmp/bad_interval.csv"
        golden alloc_missing alloc "$tmp/missing.csv"
        golden alloc_bad_algo alloc "$tmp/missing.csv" --algo nosuch
        ;;
    report)
        golden report_fits report --demo --budget 1GiB --devices h100-sxm,l4,cpu-default
        golden report_bundled report --budget 1GiB --devices h100-sxm,l4 # examples/models
        golden report_over report --demo --dim seq=512 --budget 256MiB --devices a100-80gb,cuda-default --top 3
        ;;
    esac
done

# Every subcommand has a golden case; every golden file has a case.
for cmd in "${cmds[@]}"; do
    if [ -n "${covered[$cmd]:-}" ]; then ok "subcommand $cmd has golden cases"; else
        bad "subcommand $cmd has no golden case" "add one to tests/cli/test_golden.sh"
    fi
done
for f in "$G"/*.txt; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .txt)
    if [ -z "${seen_case[$n]:-}" ]; then
        if [ -n "${UPDATE_GOLDEN:-}" ]; then
            rm -f "$f"
            echo "removed stale $f"
        else
            bad "stale golden file $f" "no case writes it (UPDATE_GOLDEN=1 removes it)"
        fi
    fi
done

# --help of every subcommand: usage, examples, exit codes; the examples run.
for cmd in "${cmds[@]}"; do
    "$TP" "$cmd" --help >"$tmp/help" 2>"$tmp/help.err"
    rc=$?
    if [ "$cmd" = version ]; then # no options: --help may print the version
        if [ "$rc" -eq 0 ]; then ok "$cmd --help (exit 0)"; else bad "$cmd --help" "exit $rc"; fi
        continue
    fi
    if [ "$rc" -ne 0 ] || ! grep -q "^usage: tensorplan $cmd" "$tmp/help"; then
        bad "$cmd --help: exit 0 and a usage line" "exit $rc: $(head -c 200 "$tmp/help") $(head -c 200 "$tmp/help.err")"
        continue
    fi
    if ! grep -q '^examples:' "$tmp/help"; then bad "$cmd --help has an examples section"; else
        ok "$cmd --help has an examples section"; fi
    if ! grep -q '^Exit codes:' "$tmp/help"; then bad "$cmd --help lists the exit codes"; else
        ok "$cmd --help lists the exit codes"; fi
    awk '/^examples:/{on=1; next} on && /^$/{on=0} on' "$tmp/help" | sed 's/^ *//' >"$tmp/examples"
    while IFS= read -r line; do
        case "$line" in "tensorplan $cmd"*) ;; *) continue ;; esac
        read -r -a words <<<"${line#tensorplan }"
        missing=""
        for w in "${words[@]}"; do
            case "$w" in *.onnx | *.gguf | *.safetensors | *.csv) [ -e "$w" ] || missing=$w ;; esac
        done
        if [ -n "$missing" ]; then
            echo "skip example '$line' (no file $missing here)"
            continue
        fi
        timeout 120 "$TP" "${words[@]}" >"$tmp/ex.out" 2>"$tmp/ex.err" </dev/null
        rc=$?
        if { [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; } && [ -s "$tmp/ex.out" ]; then
            ok "example runs: $line (exit $rc)"
        else
            bad "example runs: $line" "exit $rc; stderr: $(head -c 300 "$tmp/ex.err")"
        fi
    done <"$tmp/examples"
done

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
