#!/usr/bin/env bash
# CLI tests of `tensorplan calibrate`, `profile` and `cost`: cache round trip in a
# temporary XDG_CACHE_HOME, JSON keys and values, device choice and policy,
# exit codes and error messages.
# usage: test_cost.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
export TENSORPLAN_THREADS=2
unset TENSORPLAN_DEVICES TENSORPLAN_DENY_DEVICES TENSORPLAN_PREFER_DEVICES

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "  $2"; }

run() {
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name (exit $rc)"; else
        bad "$name" "exit $rc, want $want; stderr: $(head -c 300 "$tmp/err")"; fi
}
has() { # has NAME FILE PATTERN
    if grep -q -- "$3" "$2"; then ok "$1"; else bad "$1" "no '$3' in: $(head -c 400 "$2")"; fi
}
pyjson() { # pyjson NAME EXPR (over d = json of $tmp/out) : passes when EXPR is true
    if "$PY" -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($2) else 1)" \
        2>"$tmp/pyerr"; then ok "$1"; else bad "$1" "expr $2 false: $(head -c 300 "$tmp/pyerr")"; fi
}

# ---- calibrate: quick run, then the cache
run "calibrate --quick" 0 "$TP" calibrate --quick --no-cuda
has "calibrate prints gemm" "$tmp/out" "gemm "
has "calibrate names the cache" "$tmp/out" "$tmp/cache/tensorplan/calib-"
run "calibrate --quick again" 0 "$TP" calibrate --quick --no-cuda --json
pyjson "second run is cached" "d['from_cache'] and d['quick']"
pyjson "measured cpu model" "d['cpu']['source'] == 'measured' and d['cpu']['kind'] == 'cpu'"
pyjson "gemm figures positive" "all(p['gflops'] > 0 for p in d['cpu']['gemm_gflops'])"
pyjson "bandwidth positive" "d['cpu']['mem_gbps'] > 0 and d['cpu']['readback_gbps'] > 0"
pyjson "threads from TENSORPLAN_THREADS" "d['cpu']['threads'] == 2"
pyjson "cuda not tried" "d['cuda'] is None"
run "calibrate --force" 0 "$TP" calibrate --quick --force --no-cuda --json
pyjson "--force measures again" "not d['from_cache']"
run "calibrate bad option" 2 "$TP" calibrate --bogus
run "calibrate bad threads" 2 "$TP" calibrate --threads 0

# ---- profile
run "profile demo" 0 "$TP" profile --demo --quick --top 3
has "profile table header" "$tmp/out" "# node	op	bound	flops	bytes	time_us	name"
has "profile hotspots" "$tmp/out" "# top 3 hotspots"
has "profile io line" "$tmp/out" "kernel launches"
has "profile prediction" "$tmp/out" "# predicted "
run "profile json" 0 "$TP" profile --demo --quick --json --top 4
pyjson "profile json totals" "d['total_ns'] > 0 and d['flops'] > 0 and len(d['hotspots']) == 4"
pyjson "profile total = parts" \
    "abs(d['total_ns'] - d['round_trip_ns'] - d['nodes_ns'] - d['readback_ns'] - d['sync_ns']) < 1e-3 * d['total_ns']"
pyjson "profile node sum" "abs(sum(n['total_ns'] for n in d['nodes']) - d['nodes_ns']) < 1e-6 * d['nodes_ns']"
pyjson "metadata nodes cost nothing" "all(n['total_ns'] == 0 for n in d['nodes'] if n['bound'] == 'meta')"
pyjson "hotspots sorted" "[d['nodes'][i]['total_ns'] for i in d['hotspots']] == sorted([d['nodes'][i]['total_ns'] for i in d['hotspots']], reverse=True)"
pyjson "io profile" "d['io']['kernel_launches'] + d['io']['metadata_nodes'] == len(d['nodes'])"
pyjson "prediction basis and kernel" \
    "d['device']['accuracy']['basis'] == d['device']['source'] and d['device']['accuracy']['kernel'] == d['device']['gemm_impl']"
run "profile on a catalog device" 0 "$TP" profile --demo --device h100-sxm --json --summary
pyjson "catalog predictions are not validated" "d['device']['accuracy']['validated'] is False and d['device']['accuracy']['basis'] == 'catalog'"
pyjson "catalog device source" "d['device']['source'] == 'catalog' and d['device']['name'] == 'h100-sxm'"
pyjson "summary omits nodes" "'nodes' not in d"
run "profile host ops" 0 "$TP" profile --demo --quick --json --host-ops matmul,softmax
pyjson "host ops become sync points" \
    "d['io']['sync_points'] == sum(1 for n in d['nodes'] if n['op'] in ('matmul', 'softmax')) > 0"
pyjson "sync points cost round trips" "abs(d['sync_ns'] - d['io']['sync_points'] * d['device']['round_trip_ns']) < 1e-6 * d['sync_ns']"
run "profile host ops none" 0 "$TP" profile --demo --quick --json --host-ops none
pyjson "no sync points" "d['io']['sync_points'] == 0 and d['sync_ns'] == 0"
run "profile bad host ops" 2 "$TP" profile --demo --host-ops bogus
has "bad host op named" "$tmp/err" "bogus"
run "profile unknown device" 1 "$TP" profile --demo --device tpu-v9
has "unknown device named" "$tmp/err" "tpu-v9"
run "profile bad top" 2 "$TP" profile --demo --top x

# ---- cost
run "cost demo" 0 "$TP" cost --demo --quick --devices cpu,h100-sxm,l4,rpi5
has "cost chooses" "$tmp/out" "# choice: "
run "cost json" 0 "$TP" cost --demo --quick --devices cpu,h100-sxm,l4,rpi5,cuda-default --json
pyjson "h100 faster than l4" \
    "[x['total_ns'] for x in d['devices'] if x['request']=='h100-sxm'][0] < [x['total_ns'] for x in d['devices'] if x['request']=='l4'][0]"
pyjson "default model dropped" "d['choice'] != 'cuda-default'"
pyjson "choice is the cheapest non-default" \
    "d['choice'] == min((x for x in d['devices'] if x['available'] and x['model']['source'] != 'default'), key=lambda x: x['total_ns'])['model']['name']"
run "cost deny cuda" 0 "$TP" cost --demo --quick --devices cpu,h100-sxm,l4 --deny cuda --json
pyjson "deny leaves cpu" "d['choice'] == 'cpu'"
TENSORPLAN_DENY_DEVICES=cuda run "cost env deny" 0 "$TP" cost --demo --quick --devices cpu,h100-sxm --json
pyjson "env deny leaves cpu" "d['choice'] == 'cpu'"
TENSORPLAN_PREFER_DEVICES=rpi5 run "cost env prefer" 0 "$TP" cost --demo --quick --devices cpu,h100-sxm,rpi5 --json
pyjson "env prefer wins" "d['choice'] == 'rpi5'"
run "cost allow nothing" 1 "$TP" cost --demo --quick --devices cpu,h100-sxm --allow tpu
has "says why" "$tmp/out" "allow list"
run "cost no devices" 1 "$TP" cost --demo --devices nope
has "unknown listed" "$tmp/out" "unavailable"
run "cost m3 has no peak" 0 "$TP" cost --demo --quick --devices cpu,apple-m3
has "m3 unavailable" "$tmp/out" "no published"
run "cost bad efficiency" 2 "$TP" cost --demo --efficiency 2
run "cost bad dtype" 2 "$TP" cost --demo --dtype nope
run "cost f16 on h100" 0 "$TP" cost --demo --devices h100-sxm --dtype f16 --json
pyjson "f16 not slower" "d['devices'][0]['total_ns'] > 0"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
