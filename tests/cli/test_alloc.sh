#!/usr/bin/env bash
# CLI tests of `tensorplan alloc`: solution CSV on stdout / -o, the summary on stderr,
# JSON, every algorithm, capacity mode exit codes, CSV errors naming the line, usage
# errors. Every solution is checked for overlaps by an independent python checker.
# usage: test_alloc.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "  $2"; }

run() { # run NAME WANT_EXIT ARGS...
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name (exit $rc)"; else
        bad "$name" "exit $rc, want $want; stderr: $(head -c 300 "$tmp/err")"; fi
}
has() { # has NAME FILE PATTERN
    if grep -q -- "$3" "$2"; then ok "$1"; else bad "$1" "no '$3' in: $(head -c 400 "$2")"; fi
}
# check NAME INPUT SOLUTION [ARENA_MAX]: the solution lists every input buffer once with its
# lifetime and size, and no two buffers live at the same time share a byte.
check() {
    if "$PY" - "$2" "$3" "${4:-0}" >"$tmp/check" 2>&1 <<'PYEOF'; then ok "$1"; else bad "$1" "$(head -c 400 "$tmp/check")"; fi
import sys
inp = [l.strip().split(",") for l in open(sys.argv[1]) if l.strip()][1:]
sol = [l.strip().split(",") for l in open(sys.argv[2]) if l.strip()]
assert sol[0] == ["id", "lower", "upper", "size", "offset"], sol[0]
rows = [tuple(int(v) for v in r) for r in sol[1:]]
assert sorted(r[:4] for r in rows) == sorted(tuple(int(v) for v in r[:4]) for r in inp), "rows differ"
top = 0
for i, a in enumerate(rows):
    top = max(top, a[4] + a[3])
    for b in rows[i + 1:]:
        if a[1] < b[2] and b[1] < a[2] and a[4] < b[4] + b[3] and b[4] < a[4] + a[3]:
            raise SystemExit("overlap %r %r" % (a, b))
cap = int(sys.argv[3])
assert cap == 0 or top <= cap, "arena %d > %d" % (top, cap)
print("arena", top)
PYEOF
}

cat >"$tmp/small.csv" <<'EOF2'
id,lower,upper,size
0,0,3,100
1,1,4,50
2,2,6,80
3,4,8,120
4,5,9,30
5,0,9,16
6,6,7,200
EOF2

run "alloc small (default auto)" 0 "$TP" alloc "$tmp/small.csv"
check "solution on stdout is valid" "$tmp/small.csv" "$tmp/out"
has "summary names the arena" "$tmp/err" "arena "
has "summary names the lower bound" "$tmp/err" "lower bound "
has "summary gives the ratio" "$tmp/err" "ratio 1\.[0-9]"
has "summary gives the algorithm" "$tmp/err" "algorithm "
has "summary proves optimality on a tiny instance" "$tmp/err" "optimal yes"
has "summary gives the time" "$tmp/err" "[0-9] s$"

for algo in greedy noreuse bestfit exact auto; do
    run "alloc --algo $algo" 0 "$TP" alloc "$tmp/small.csv" --algo "$algo" -o "$tmp/sol_$algo.csv"
    check "--algo $algo solution is valid" "$tmp/small.csv" "$tmp/sol_$algo.csv"
done
if [ -s "$tmp/out" ]; then bad "-o leaves stdout empty" "$(head -c 200 "$tmp/out")"; else ok "-o leaves stdout empty"; fi

run "alloc --json -o" 0 "$TP" alloc "$tmp/small.csv" --json -o "$tmp/sol.csv" --algo exact
if "$PY" -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if d['buffers']==7 and d['arena_bytes']>=d['lower_bound_bytes'] and d['optimal'] is True and d['algorithm']=='exact' and abs(d['ratio']-d['arena_bytes']/d['lower_bound_bytes'])<1e-9 else 1)"; then
    ok "JSON summary keys and values"
else bad "JSON summary keys and values" "$(head -c 300 "$tmp/out")"; fi

# capacity mode: lower bound is 100+50+80+16 = 246 at step 2
run "capacity below the lower bound" 3 "$TP" alloc "$tmp/small.csv" --capacity 245
has "capacity error says infeasible" "$tmp/err" "TP_ERR_INFEASIBLE"
run "capacity that fits" 0 "$TP" alloc "$tmp/small.csv" --capacity 400 --algo exact
check "capacity solution fits" "$tmp/small.csv" "$tmp/out" 400

run "alignment" 0 "$TP" alloc "$tmp/small.csv" --align 64
if "$PY" -c "import sys; r=[l.split(',') for l in open('$tmp/out')][1:]; sys.exit(0 if all(int(x[4])%64==0 for x in r) else 1)"; then
    ok "--align 64 offsets aligned"; else bad "--align 64 offsets aligned"; fi

# CSV errors name the line
printf 'id,lower,upper,size\n0,0,3,100\n1,5,2,7\n' >"$tmp/bad1.csv"
run "upper <= lower" 1 "$TP" alloc "$tmp/bad1.csv"
has "error names line 3" "$tmp/err" "line 3: upper 2 <= lower 5"
printf 'id,lower,upper,size\n0,0,3,abc\n' >"$tmp/bad2.csv"
run "non-number" 1 "$TP" alloc "$tmp/bad2.csv"
has "error names the column" "$tmp/err" "line 2: column 'size' value 'abc' is not a number"
printf 'id,start,end,size\n' >"$tmp/bad3.csv"
run "bad header" 1 "$TP" alloc "$tmp/bad3.csv"
has "bad header named" "$tmp/err" "line 1: bad header"

# ids that are names (MiniMalloc's own example), kept in the solution
printf 'id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n' >"$tmp/named.csv"
run "named ids, capacity 12" 0 "$TP" alloc "$tmp/named.csv" --capacity 12 --algo exact
has "names kept" "$tmp/out" "^b4,9,21,4,"
if [ "$(grep -c '^b' "$tmp/out")" -eq 5 ]; then ok "five named rows"; else bad "five named rows" "$(cat "$tmp/out")"; fi

# usage errors
run "no file" 2 "$TP" alloc
run "bad --align" 2 "$TP" alloc "$tmp/small.csv" --align 3
run "bad --time-limit" 2 "$TP" alloc "$tmp/small.csv" --time-limit -1
run "unknown option" 2 "$TP" alloc "$tmp/small.csv" --frobnicate
run "--help" 0 "$TP" alloc --help
has "--help has a usage line" "$tmp/out" "^usage: tensorplan alloc"

# a dense trace (nested lifetimes, 24,000 buffers): auto within --time-limit 1.5 keeps
# improving after the first plan; --progress prints lines although stderr is a file
"$PY" - >"$tmp/dense.csv" <<'PYEOF'
s = 12345
print("id,lower,upper,size")
for i in range(24000):
    s = (s * 1103515245 + 12345) % 2147483648
    b = s % 6000
    u = b + 1 + s % 7 if i % 3 else 12000 - b
    print("%d,%d,%d,%d" % (i, b, u, 64 + (s % 4096) * (1 + s % 97)))
PYEOF
run "dense auto --progress" 0 "$TP" alloc "$tmp/dense.csv" --time-limit 1.5 --progress \
    -o "$tmp/dense.sol"
has "progress lines on stderr" "$tmp/err" "^tensorplan alloc: searching [0-9]* s, best"
has "dense summary" "$tmp/err" "24000 buffers, arena"
n_sol=$(($(wc -l <"$tmp/dense.sol") - 1))
if [ "$n_sol" -eq 24000 ]; then ok "dense solution rows"; else bad "dense solution rows" "$n_sol"; fi
run "dense auto --quiet" 0 "$TP" alloc "$tmp/dense.csv" --time-limit 0.2 --quiet -o "$tmp/dense.sol"
if grep -q "searching" "$tmp/err"; then bad "no progress without --progress" "$(cat "$tmp/err")"; else ok "no progress without --progress"; fi

# a zero lower bound (every buffer empty) has no ratio: n/a in text, null in JSON
printf 'id,lower,upper,size\na,0,1,0\n' >"$tmp/zero.csv"
run "zero lower bound" 0 "$TP" alloc "$tmp/zero.csv"
has "zero bound: ratio n/a" "$tmp/err" "lower bound 0 (0 B), ratio n/a,"
run "zero lower bound --json" 0 "$TP" alloc "$tmp/zero.csv" --json -o "$tmp/zero.sol"
has "zero bound: ratio null" "$tmp/out" '"ratio": null,'

# a MiniMalloc instance, solved to its lower bound without a time limit
F=../shared/benchmarks/minimalloc/F.1048576.csv
if [ -f "$F" ]; then
    run "MiniMalloc F exact" 0 "$TP" alloc "$F" --algo exact --time-limit 0 -o "$tmp/F.sol"
    has "F reaches 1048576, optimal" "$tmp/err" "arena 1048576 .*optimal yes"
    check "F solution is valid" "$F" "$tmp/F.sol" 1048576
else
    echo "skip MiniMalloc F (no $F)"
fi

# A first plan longer than --time-limit: the run says so on stderr (100,000 long-lived
# buffers: the first plan, a peak-out sweep, takes well over 0.05 s), not with --json or -q.
"$PY" - "$tmp/dense.csv" <<'PYEOF'
import random, sys
r = random.Random(7)
with open(sys.argv[1], "w") as f:
    f.write("id,lower,upper,size\n")
    for i in range(100000):
        lo = r.randrange(50000)
        f.write("%d,%d,%d,%d\n" % (i, lo, min(50000, lo + int(50000 ** r.random())), 16 * r.randint(1, 1 << r.randint(2, 20))))
PYEOF
run "first plan past the limit" 0 "$TP" alloc "$tmp/dense.csv" --time-limit 0.001 -o "$tmp/dense.sol"
has "first plan past the limit: the note" "$tmp/err" "the first plan took .* longer than --time-limit 0.001 s"
run "first plan past the limit, --json" 0 "$TP" alloc "$tmp/dense.csv" --time-limit 0.001 --json -o "$tmp/dense.sol"
if grep -q "first plan took" "$tmp/err" "$tmp/out"; then bad "no note with --json"; else ok "no note with --json"; fi
run "first plan past the limit, --quiet" 0 "$TP" alloc "$tmp/dense.csv" --time-limit 0.001 -q -o "$tmp/dense.sol"
if grep -q "first plan took" "$tmp/err"; then bad "no note with --quiet"; else ok "no note with --quiet"; fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
