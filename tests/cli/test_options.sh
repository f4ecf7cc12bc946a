#!/usr/bin/env bash
# CLI tests of the declarative option tables (tools/tensorplan/cli_opts.h) and the
# symbolic-dimension bindings: --name=VALUE and -a VALUE spellings, flags that take
# no value, unknown options, repeated --dim with no limit (400 of them), --dims
# FILE.json (a model with 350 symbolic dims, bound from one file; errors that name
# the file and the byte offset).
# usage: test_options.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
pass=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/  /'; }
run() { # run NAME WANT_EXIT ARGS...: stdout in $tmp/out, stderr in $tmp/err
    local name=$1 want=$2
    shift 2
    "$TP" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name (exit $rc)"; else
        bad "$name" "exit $rc, want $want; stderr: $(head -c 400 "$tmp/err")"; fi
}
has() { # has NAME FILE EXTENDED_REGEX
    if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1" "no /$3/ in: $(head -c 400 "$2")"; fi
}

# --- spellings: --name VALUE, --name=VALUE, -a VALUE give the same result
run "--align 128" 0 plan --demo --align 128 --json
cp "$tmp/out" "$tmp/spaced.json"
run "--align=128" 0 plan --demo --align=128 --json
if cmp -s "$tmp/out" "$tmp/spaced.json"; then ok "--name=VALUE equals --name VALUE"; else
    bad "--name=VALUE equals --name VALUE" "$(diff "$tmp/spaced.json" "$tmp/out" | head -5)"; fi
run "--json=1 refused" 2 estimate --demo --json=1
has "flag with a value: message" "$tmp/err" "^tensorplan estimate: --json takes no value, got '1'$"
run "--budget without a value" 2 estimate --demo --budget
has "missing value: message" "$tmp/err" "^tensorplan estimate: --budget needs a size"
run "--budget= (empty)" 2 estimate --demo --budget=
has "empty value: message" "$tmp/err" "^tensorplan estimate: --budget needs a size.*got ''$"
run "unknown option" 2 plan --demo --frobnicate
has "unknown option: message" "$tmp/err" "^tensorplan plan: unknown option '--frobnicate'$"
run "a second positional" 2 plan a.onnx b.onnx
has "second model: message" "$tmp/err" "more than one model given \('a.onnx', 'b.onnx'\)"
run "-q anywhere" 0 plan -q --demo
run "-h is --help" 0 plan -h
has "-h prints the usage" "$tmp/out" "^usage: tensorplan plan "
run "--top out of range" 2 report --demo --top 65
has "--top range: message" "$tmp/err" "--top needs an integer from 1 to 64, got '65'"

# --- 400 --dim options (the old limit was 64): the last binding of seq wins
args=()
for i in $(seq 1 399); do args+=(--dim "seq=$i"); done
run "400 --dim options" 0 plan --demo "${args[@]}" --dim seq=32 --json
cp "$tmp/out" "$tmp/many.json"
run "one --dim" 0 plan --demo --dim seq=32 --json
if cmp -s "$tmp/out" "$tmp/many.json"; then ok "400 --dim: the last one wins"; else
    bad "400 --dim: the last one wins" "$(diff "$tmp/out" "$tmp/many.json" | head -5)"; fi

# --- --dims FILE.json
printf '{"seq": 32}\n' >"$tmp/seq.json"
run "--dims seq.json" 0 plan --demo --dims "$tmp/seq.json" --json
if cmp -s "$tmp/out" "$tmp/many.json"; then ok "--dims equals --dim"; else
    bad "--dims equals --dim" "$(diff "$tmp/out" "$tmp/many.json" | head -5)"; fi
printf '{"seq": 7}' >"$tmp/seq7.json"
run "--dims then --dim" 0 plan --demo --dims "$tmp/seq7.json" --dim seq=32 --json
if cmp -s "$tmp/out" "$tmp/many.json"; then ok "a later --dim overrides --dims"; else
    bad "a later --dim overrides --dims"; fi
printf '{"seq": 32,\n "batch": 1.5}' >"$tmp/frac.json"
run "--dims with a fraction" 1 plan --demo --dims "$tmp/frac.json"
has "fraction: file and offset named" "$tmp/err" "--dims $tmp/frac.json: offset 23: expected an integer"
printf '{"seq": 32,}' >"$tmp/trail.json"
run "--dims with a trailing comma" 1 plan --demo --dims "$tmp/trail.json"
has "trailing comma: offset" "$tmp/err" "offset 11: expected a \"name\""
printf '{"nosuch": 3}' >"$tmp/nosuch.json"
run "--dims with an unknown dim" 1 plan --demo --dims "$tmp/nosuch.json"
has "unknown dim: file named" "$tmp/err" "--dims $tmp/nosuch.json: nosuch=3: .*no symbol 'nosuch'"
run "--dims missing file" 1 plan --demo --dims "$tmp/none.json"
has "missing file: named" "$tmp/err" "none.json"
mkfifo "$tmp/fifo.json"
run "--dims FIFO refused" 1 plan --demo --dims "$tmp/fifo.json"

# a model with 350 symbolic dims (one per input), every one bound from one file
if "$PY" -c "import onnx" 2>/dev/null; then
    "$PY" - "$tmp" <<'PYEOF'
import json, sys, onnx
from onnx import helper, TensorProto
d, n = sys.argv[1], 350
ins = [helper.make_tensor_value_info("x%d" % i, TensorProto.FLOAT, ["d%d" % i, 4]) for i in range(n)]
outs = [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, ["d%d" % i, 4]) for i in range(n)]
nodes = [helper.make_node("Relu", ["x%d" % i], ["y%d" % i], name="r%d" % i) for i in range(n)]
g = helper.make_graph(nodes, "many_dims", ins, outs)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), d + "/many.onnx")
json.dump({"d%d" % i: i + 1 for i in range(n)}, open(d + "/many.json", "w"), indent=1)
PYEOF
    run "350 unbound dims without --dims" 1 plan "$tmp/many.onnx"
    run "350 dims from --dims" 0 plan "$tmp/many.onnx" --dims "$tmp/many.json" --json
    # inputs x_i (i+1) x 4 floats: 16 (i+1) bytes each
    "$PY" -c "
import json, sys
doc = json.load(open('$tmp/out'))
sizes = {s['name']: s['size'] for s in doc['slots']}
bad = [i for i in range(350) if sizes.get('x%d' % i) != 16 * (i + 1)]
sys.exit(1 if bad else 0)" && ok "350 dims bound to their values" || bad "350 dims bound to their values"
    run "inspect --dims" 0 inspect "$tmp/many.onnx" --dims "$tmp/many.json" --json
else
    echo "skip the 350-dim model (no python3-onnx)"
fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
