#!/usr/bin/env bash
# CLI test for `tensorplan plan`: report header, summary, JSON keys, errors and exit codes.
# Usage: test_plan.sh /path/to/tensorplan
set -u
BIN=${1:?usage: test_plan.sh /path/to/tensorplan}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
passes=0
pass() { echo "ok   $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
check() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }

# text report of the demo model
"$BIN" plan --demo >"$TMP/out" 2>"$TMP/err"
rc=$?
check "demo exits 0" "[ $rc -eq 0 ]"
check "report header line" "head -1 '$TMP/out' | grep -Eq '^# arena_size=[0-9]+ total_unshared=[0-9]+ saved=[0-9]+\$'"
check "column header line" "sed -n 2p '$TMP/out' | grep -q \$'^# offset\\tsize\\tnode\$'"
check "rows are offset<TAB>size<TAB>node" "sed -n 3p '$TMP/out' | grep -Eq \$'^[0-9]+\\t[0-9]+\\t.+\$'"
check "logits row present" "grep -Eq \$'\\t25731584\\tlogits\$' '$TMP/out'"
check "summary with arena/LB" "grep -Eq '^# arena [0-9.]+ [KMG]iB, lower bound [0-9.]+ [KMG]iB, arena/LB [0-9]+\\.[0-9]{3}' '$TMP/out'"
rows=$(grep -vc '^#' "$TMP/out")
check "one row per node (81)" "[ '$rows' -eq 81 ]"
# rows sorted by offset
check "rows sorted by offset" "grep -v '^#' '$TMP/out' | cut -f1 | sort -n -c"
# no model = the demo; same report
"$BIN" plan >"$TMP/out2" 2>/dev/null
check "no model is the demo" "cmp -s '$TMP/out' '$TMP/out2'"

# arena grows with --dim seq
a128=$(head -1 "$TMP/out" | sed -E 's/.*arena_size=([0-9]+).*/\1/')
a512=$("$BIN" plan --demo --dim seq=512 | head -1 | sed -E 's/.*arena_size=([0-9]+).*/\1/')
check "--dim seq=512 grows the arena" "[ '$a512' -gt '$a128' ]"

# JSON
"$BIN" plan --demo --json >"$TMP/json" 2>"$TMP/err"
rc=$?
check "json exits 0" "[ $rc -eq 0 ]"
for k in arena_bytes lower_bound_bytes unshared_bytes saved_bytes slots node name op offset size birth death view; do
  check "json key $k" "grep -q '\"$k\":' '$TMP/json'"
done
if command -v /usr/bin/python3 >/dev/null 2>&1; then
  check "json parses, arena >= lower bound, 81 slots" "/usr/bin/python3 -c '
import json,sys
d=json.load(open(\"$TMP/json\"))
assert d[\"arena_bytes\"] >= d[\"lower_bound_bytes\"] > 0
assert d[\"saved_bytes\"] == max(0, d[\"unshared_bytes\"] - d[\"arena_bytes\"])
assert len(d[\"slots\"]) == 81
assert all(s[\"birth\"] <= s[\"death\"] for s in d[\"slots\"])
'"
fi

# options
"$BIN" plan --demo --no-reuse --align 256 --f32-uniform --pin-outputs >"$TMP/out3" 2>&1
check "options accepted" "[ $? -eq 0 ] && grep -q 'alignment 256' '$TMP/out3'"
"$BIN" plan --help >"$TMP/help" 2>&1
check "--help exits 0" "[ $? -eq 0 ] && grep -q 'usage: tensorplan plan' '$TMP/help'"

# errors: bad --dim syntax is a usage error (2), an unknown symbol an error (1)
"$BIN" plan --demo --dim seq >"$TMP/o" 2>"$TMP/err"
rc=$?
check "--dim without = exits 2" "[ $rc -eq 2 ]"
check "--dim message" "grep -q 'NAME=VALUE' '$TMP/err'"
"$BIN" plan --demo --dim nosuch=4 >"$TMP/o" 2>"$TMP/err"
rc=$?
check "--dim unknown symbol exits 1" "[ $rc -eq 1 ]"
check "--dim unknown symbol named" "grep -q \"nosuch\" '$TMP/err'"
"$BIN" plan --demo --dim seq=abc >"$TMP/o" 2>"$TMP/err"
rc=$?
check "--dim non-integer exits 1 or 2" "[ $rc -eq 1 ] || [ $rc -eq 2 ]"
"$BIN" plan --demo --align 48 >"$TMP/o" 2>"$TMP/err"
check "--align 48 exits 2" "[ $? -eq 2 ] && grep -q 'power of two' '$TMP/err'"
"$BIN" plan --demo --algo nosuch >"$TMP/o" 2>"$TMP/err"
check "--algo nosuch exits 2" "[ $? -eq 2 ]"
"$BIN" plan --demo --bogus >"$TMP/o" 2>"$TMP/err"
check "unknown option exits 2" "[ $? -eq 2 ]"
echo "x" >"$TMP/model.xyz"
"$BIN" plan "$TMP/model.xyz" >"$TMP/o" 2>"$TMP/err"
check "unknown format exits 1" "[ $? -eq 1 ] && grep -q 'unsupported model format' '$TMP/err'"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
