#!/usr/bin/env bash
# CLI test of `tensorplan report`'s text: numbered input/output families are one
# line each (name with {ranges}, member count, total size); the model's batch dim
# N is bound to 1 by default and said so on one stderr line. The model is a small
# ONNX file written here with python3-onnx.
# usage: test_report_text.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "  $2"; }
has() { # NAME REGEX FILE
    if grep -Eq -- "$2" "$3"; then ok "$1"; else bad "$1" "no match for /$2/ in: $(head -c 600 "$3")"; fi
}

"$PY" - "$tmp/families.onnx" <<'PYEOF'
import sys
from onnx import TensorProto, helper, save
F, I = TensorProto.FLOAT, TensorProto.INT64
inputs, outputs, nodes = [], [], []
def relu(src, dst, shape):
    inputs.append(helper.make_tensor_value_info(src, F, shape))
    outputs.append(helper.make_tensor_value_info(dst, F, shape))
    nodes.append(helper.make_node("Relu", [src], [dst]))
for i in range(4):                                 # x_{0..3} -> r_{0..3}
    relu(f"x_{i}", f"r_{i}", ["N", 4])
for i in (0, 1, 3):                                # kv.{0,1,3}.key -> s.{0,1,3}
    relu(f"kv.{i}.key", f"s.{i}", ["N", 3])
relu("x_9", "r_9", ["N", 5])                       # same name pattern, other shape
relu("z_00", "q_00", ["N", 4])                     # leading zeros: not numbers
relu("z_01", "q_01", ["N", 4])
g = helper.make_graph(nodes, "families", inputs, outputs)
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
PYEOF

"$TP" report "$tmp/families.onnx" --budget 1GiB >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 0 ]; then ok "report exits 0 without --dim"; else bad "report exits 0" "exit $rc: $(head -c 400 "$tmp/err")"; fi
has "N bound to 1 by default, on one line" '^tensorplan: N=1 by default \(batch-like or unnamed input dim; set with --dim NAME=VALUE\)$' "$tmp/err"
has "x family: one line" '^    x_\{0\.\.3\} +f32 +\[N,4\] +64 B  \(4 inputs\)$' "$tmp/out"
has "kv family with a gap" '^    kv\.\{0,1,3\}\.key +f32 +\[N,3\] +36 B  \(3 inputs\)$' "$tmp/out"
has "other shape on its own line" '^    x_9 +f32 +\[N,5\] +20 B$' "$tmp/out"
has "leading zeros not grouped" '^    z_00 ' "$tmp/out"
has "output family" '^    r_\{0\.\.3\} +f32 +\[N,4\] +64 B  \(4 outputs\)$' "$tmp/out"
n_in=$(sed -n '/^  inputs:/,/^  outputs:/p' "$tmp/out" | grep -c '^    ')
if [ "$n_in" -eq 5 ]; then ok "9 inputs in 5 lines"; else bad "9 inputs in 5 lines" "got $n_in"; fi
"$TP" report "$tmp/families.onnx" --budget 1GiB --dim N=4 >"$tmp/out" 2>"$tmp/err"
has "--dim N=4 overrides the default" '^    x_\{0\.\.3\} +f32 +\[N,4\] +256 B  \(4 inputs\)$' "$tmp/out"
if grep -q "by default" "$tmp/err"; then bad "no default line with --dim N"; else ok "no default line with --dim N"; fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
