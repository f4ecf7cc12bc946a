#!/usr/bin/env bash
# Every subcommand's --json output validates against its JSON Schema
# (docs/schema/<command>.schema.json, draft 2020-12; conventions in docs/json.md).
#
# The subcommands are read from `tensorplan --help`, so a new subcommand is
# checked as soon as it exists: it needs a schema file (else FAIL) and is run
# with the cases below, or with `<command> --json` when it has none. Each run's
# stdout must be one JSON document that passes its schema and a few invariants
# (plan: slots inside the arena, arena >= lower bound; estimate: peak = sum of the
# parts; ...). Calibration runs use a temporary $XDG_CACHE_HOME and --quick.
#
# Needs /usr/bin/python3 with jsonschema (Debian python3-jsonschema).
# usage: test_json_schema.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
SCHEMAS=docs/schema
C=fuzz/corpus/onnx
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
unset TENSORPLAN_DEVICES TENSORPLAN_DENY_DEVICES TENSORPLAN_PREFER_DEVICES

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
    fails=$((fails + 1))
    echo "FAIL $1"
    if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/  /'; fi
}

if ! "$PY" -c "import jsonschema" 2>/dev/null; then
    echo "FAIL: $PY cannot import jsonschema (apt-get install python3-jsonschema; scripts/deps-test.sh)"
    exit 1
fi

# The validator: validate.py SCHEMA_DIR MANIFEST, one line per run:
# COMMAND<TAB>LABEL<TAB>JSON_FILE. Prints "ok"/"FAIL" lines; exit status = failures.
cat >"$tmp/validate.py" <<'PYEOF'
import copy, json, os, sys, warnings
import jsonschema

warnings.simplefilter("ignore", DeprecationWarning)
schema_dir = os.path.abspath(sys.argv[1])


def uri(name):
    return "file://" + os.path.join(schema_dir, name)


def no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError("duplicate keys %s" % dup)
    return dict(pairs)


store = {}
for n in sorted(os.listdir(schema_dir)):
    if n.endswith(".schema.json"):
        with open(os.path.join(schema_dir, n), encoding="utf-8") as f:
            try:
                s = json.load(f, object_pairs_hook=no_duplicate_keys)
            except ValueError as e:
                sys.exit("FAIL schema file %s: %s" % (n, e))
        jsonschema.Draft202012Validator.check_schema(s)
        store[uri(n)] = s


def validate(cmd, doc):
    """The schema errors and broken invariants of one document."""
    errors = []
    schema = store[uri(cmd + ".schema.json")]
    want = "tensorplan.%s/1" % cmd
    if schema.get("properties", {}).get("schema", {}).get("const") != want:
        errors.append("schema file: properties.schema.const is not %r" % want)
    resolver = jsonschema.RefResolver(base_uri=uri(cmd + ".schema.json"), referrer=schema, store=store)
    v = jsonschema.Draft202012Validator(schema, resolver=resolver)
    for e in sorted(v.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path]):
        path = "/".join(str(p) for p in e.absolute_path) or "(top)"
        errors.append("%s: %s" % (path, e.message[:300]))
    invariants(cmd, doc, errors)
    return errors


def invariants(cmd, doc, errors):
    def check(cond, what):
        if not cond:
            errors.append("invariant: " + what)

    # A few invariants over real values (only where the schema passed for those keys).
    try:
        if isinstance(doc, dict) and list(doc)[:2] != ["schema", "tensorplan_version"] and not errors:
            errors.append("the header keys must come first: %s" % list(doc)[:2])
        if cmd == "plan":
            a, lb = doc["arena_bytes"], doc["lower_bound_bytes"]
            check(a >= lb, "arena %d >= lower bound %d" % (a, lb))
            check(doc["saved_bytes"] == max(0, doc["unshared_bytes"] - a), "saved = unshared - arena")
            offs = [s["offset"] for s in doc["slots"]]
            check(offs == sorted(offs), "slots sorted by offset")
            for s in doc["slots"]:
                check(s["offset"] + s["size"] <= a, "slot %s ends inside the arena" % s["name"])
                check(s["birth"] <= s["death"], "slot %s: birth <= death" % s["name"])
                check(s["view"] or s["inplace"] or s["root"] == s["node"],
                      "slot %s that is neither a view nor in place is its own root" % s["name"])
        elif cmd == "estimate":
            check(doc["peak_bytes"] == doc["weights_bytes"] + doc["activations_bytes"] + doc["inputs_bytes"],
                  "peak = weights + activations + inputs")
            rt = doc["runtime"]
            check(rt["plan_peak_bytes"] == doc["peak_bytes"], "runtime.plan_peak_bytes = peak_bytes")
            check(rt["peak_bytes"] == sum(rt["terms"].values()), "runtime peak = sum of its terms")
            check(rt["name"] != "onnxruntime" or rt["peak_bytes"] >= rt["terms"]["session_fixed_bytes"],
                  "onnxruntime peak includes the session")
            peak = doc["moe"]["peak_with_offload_bytes"] if "moe" in doc else rt["peak_bytes"]
            check(doc["fits"] == (peak <= doc["budget_bytes"]), "fits == (peak <= budget)")
            if not doc["fits"]:
                check(doc["deficit_bytes"] == peak - doc["budget_bytes"], "deficit = peak - budget")
        elif cmd == "fit":
            if doc["fits"]:
                check(doc["peak_bytes"] <= doc["budget_bytes"], "peak at value <= budget")
                check(doc["min"] <= doc["value"] <= doc["max"], "min <= value <= max")
                check(doc["peak_bytes"] == doc["weights_bytes"] + doc["activations_bytes"] + doc["inputs_bytes"],
                      "peak = weights + activations + inputs")
            check(doc["next_value"] == doc["value"] + 1 or not doc["fits"], "next_value = value + 1")
            if isinstance(doc["next_peak_bytes"], int) and not doc["at_max"]:
                check(doc["next_peak_bytes"] > doc["budget_bytes"], "next value does not fit")
        elif cmd == "inspect":
            check(sum(doc["ops"].values()) == doc["n_nodes_total"], "op histogram sums to n_nodes_total")
            check(len(doc["nodes"]) == doc["n_nodes"], "nodes[] has n_nodes entries")
            if doc["shapes_inferred"]:
                for n in doc["nodes"]:
                    for o in n["outputs"]:
                        check(o["name"] == "" or o["shape"] is not None, "output %s has a shape" % o["name"])
        elif cmd == "profile":
            parts = doc["round_trip_ns"] + doc["nodes_ns"] + doc["readback_ns"] + doc["sync_ns"]
            check(abs(doc["total_ns"] - parts) <= 1e-6 * max(1.0, parts), "total_ns = sum of the parts")
            if "nodes" in doc:
                n = len(doc["nodes"])
                check(all(h < n for h in doc["hotspots"]), "hotspots are node indices")
                check([x["node"] for x in doc["nodes"]] == list(range(n)), "nodes in step order")
                check(sum(x["flops"] for x in doc["nodes"]) == doc["flops"], "flops = sum over nodes")
        elif cmd == "cost":
            ok = [d for d in doc["devices"] if d["available"]]
            if "choice" in doc:
                check(doc["choice"] in [d["model"]["name"] for d in ok], "choice is an available device")
            for d in ok:
                parts = d["round_trip_ns"] + d["nodes_ns"] + d["readback_ns"] + d["sync_ns"]
                check(abs(d["total_ns"] - parts) <= 1e-6 * max(1.0, parts), "%s: total = parts" % d["request"])
        elif cmd == "report":
            check(doc["peak_bytes"] == doc["weights_bytes"] + doc["activations_bytes"] + doc["inputs_bytes"],
                  "peak = weights + activations + inputs")
            check(doc["activations_bytes"] >= doc["lower_bound_bytes"], "activation arena >= lower bound")
            check(doc["activations_no_reuse_bytes"] >= doc["lower_bound_bytes"], "no reuse >= lower bound")
            check(doc["fits"] == (doc["peak_bytes"] <= doc["budget_bytes"]), "fits == (peak <= budget)")
            sizes = [b["size_bytes"] for b in doc["largest_activations"]]
            check(sizes == sorted(sizes, reverse=True), "largest activations sorted by size")
            check(doc["peak"]["live_bytes"] <= doc["activations_bytes"], "live bytes at the peak <= arena")
            # the lower bound is by definition the largest live total over the steps
            check(doc["peak"]["live_bytes"] == doc["lower_bound_bytes"],
                  "live bytes at the peak step (%d) = lower bound (%d)" % (doc["peak"]["live_bytes"], doc["lower_bound_bytes"]))
            names = [d["name"] for d in doc["devices"] if d["available"]]
            check(doc["choice"] is None if not names else doc["choice"] in names, "choice is an available device")
        elif cmd == "alloc":
            check(doc["arena_bytes"] >= doc["lower_bound_bytes"], "arena >= lower bound")
            if doc["lower_bound_bytes"]:
                check(abs(doc["ratio"] - doc["arena_bytes"] / doc["lower_bound_bytes"]) < 1e-9, "ratio = arena / LB")
            if "capacity_bytes" in doc:
                check(doc["arena_bytes"] <= doc["capacity_bytes"], "arena <= capacity")
        elif cmd == "calibrate":
            check(doc["cpu"]["source"] == "measured", "cpu model is measured")
            check((doc["cuda"] is None) == (doc["cuda_status"] != "ok"), "cuda null unless status ok")
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        if not errors:
            errors.append("invariant check crashed on %r" % (e,))


fails = 0
first = {}
with open(sys.argv[2], encoding="utf-8") as man:
    for line in man:
        cmd, label, path = line.rstrip("\n").split("\t")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            doc = json.loads(text, object_pairs_hook=no_duplicate_keys)
        except ValueError as e:
            errors = ["not one JSON document: %s; output starts: %r" % (e, text[:120])]
        else:
            errors = validate(cmd, doc)
            first.setdefault(cmd, doc)
        if errors:
            fails += 1
            print("FAIL " + label)
            for e in errors[:12]:
                print("  " + e)
            if len(errors) > 12:
                print("  ... and %d more" % (len(errors) - 12))
        else:
            print("ok   " + label)

# The schemas can fail: broken copies of a real plan document (given the header
# if it lacks one, so that this runs whatever the state of the header) are rejected.
if "plan" in first:
    base = {"schema": "tensorplan.plan/1", "tensorplan_version": "0.0.0"}
    base.update(first["plan"])
    broken = []
    d = copy.deepcopy(base); d["arena_bytes"] = "229.2 MiB"; broken.append(("bytes as a string", d))
    d = copy.deepcopy(base); d["undocumented"] = 1; broken.append(("an undocumented key", d))
    d = copy.deepcopy(base); del d["slots"][0]["offset"]; broken.append(("a slot without offset", d))
    d = copy.deepcopy(base); d["schema"] = "tensorplan.plan/2"; broken.append(("another major version", d))
    d = copy.deepcopy(base); d["slots"][0]["offset"] = d["arena_bytes"]; broken.append(("a slot past the arena", d))
    d = copy.deepcopy(base); del d["tensorplan_version"]; broken.append(("no tensorplan_version", d))
    if validate("plan", base):
        print("note: the plan document fails even with a header; mutation checks skipped")
    for what, d in broken:
        if validate("plan", d):
            print("ok   a plan document with %s is rejected" % what)
        else:
            fails += 1
            print("FAIL a plan document with %s is accepted" % what)
sys.exit(min(fails, 100))
PYEOF

# The subcommands, from the top-level help.
mapfile -t cmds < <("$TP" --help 2>&1 | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
if [ "${#cmds[@]}" -lt 2 ]; then
    bad "list the subcommands from '$TP --help'" "got: ${cmds[*]:-nothing}"
    echo "$pass passed, $fails failed"
    exit 1
fi
ok "subcommands: ${cmds[*]}"

has_cmd() { printf '%s\n' "${cmds[@]}" | grep -qx "$1"; }

# Every schema file but common describes an existing subcommand (warn only: a
# schema may land before its command).
for f in "$SCHEMAS"/*.schema.json; do
    n=$(basename "$f" .schema.json)
    [ "$n" = common ] && continue
    [ "$n" = placement ] && continue # estimate --devices prints it
    [ "$n" = vllm_plan ] && continue # estimate --devices --emit vllm prints it
    has_cmd "$n" || echo "note: $f has no subcommand '$n' (yet)"
done

"$PY" tests/cli/make_tiny_gguf.py "$tmp/tiny.gguf" # a llama-like .gguf

n_case=0
# case CMD WANT_RC(S, e.g. 0 or 0|3) ARGS...: run, validate stdout against CMD's schema.
case_() {
    local cmd=$1 want=$2
    shift 2
    n_case=$((n_case + 1))
    local out="$tmp/out.$n_case.json" err="$tmp/err.$n_case"
    "$TP" "$@" >"$out" 2>"$err"
    local rc=$?
    local label="$cmd: tensorplan $*"
    if ! [[ "|$want|" == *"|$rc|"* ]]; then
        bad "$label" "exit $rc, want $want; stderr: $(head -c 400 "$err")"
        return
    fi
    if [ ! -f "$SCHEMAS/$cmd.schema.json" ]; then
        bad "$label" "no schema file $SCHEMAS/$cmd.schema.json (every subcommand needs one)"
        return
    fi
    printf '%s\t%s\t%s\n' "$cmd" "$label (exit $rc)" "$out" >>"$tmp/manifest"
}

for cmd in "${cmds[@]}"; do
    case "$cmd" in
    plan)
        case_ plan 0 plan --demo --json
        case_ plan 0 plan --demo --dim seq=64 --no-inplace --pin-outputs --json
        case_ plan 0 plan --demo --no-reuse --align 256 --json
        case_ plan 0 plan $C/test_basic_conv_with_padding.onnx --json
        ;;
    estimate)
        case_ estimate 0 estimate --demo --budget 1GiB --json
        case_ estimate 3 estimate --demo --budget 100MiB --json
        case_ estimate 0 estimate --demo --moe 8,2,10MiB,2 --budget 200MiB --json
        case_ estimate "0|3" estimate --demo --dim seq=256 --json # default budget: this machine
        case_ estimate 0 estimate "$tmp/tiny.gguf" --budget 1GiB --json
        case_ estimate 0 estimate $C/test_basic_conv_with_padding.onnx --runtime onnxruntime --budget 1GiB --json
        case_ estimate 3 estimate $C/test_basic_conv_with_padding.onnx --runtime onnxruntime --ort-no-prepack --ort-arena-extend same-as-requested --budget 1MiB --json
        case_ estimate 3 estimate "$tmp/tiny.gguf" --ctx 512 --seqs 4 --kv-type q8_0 --budget 1MiB --json
        case_ estimate 0 estimate "$tmp/tiny.gguf" --sweep ctx=1k,4k --sweep-kv f16,q4_k --budget 1GiB --json
        case_ estimate 0 estimate "$tmp/tiny.gguf" --weights-type q4_k_m --budget 1GiB --json
        case_ estimate 0 estimate "$tmp/tiny.gguf" --weights-type f16,q8_0,q4_k_m,q3_k_m --budget 1GiB --json
        case_ estimate 0 estimate "$tmp/tiny.gguf" --speed h100-sxm,rtx4090,nope --budget 1GiB --json
        # --devices prints the placement document (docs/schema/placement.schema.json)
        case_ placement 0 estimate "$tmp/tiny.gguf" --devices cuda0:8GiB,rpc:127.0.0.1:50052:4GiB,cpu:16GiB --tensor-split 1,1 --json
        case_ placement 3 estimate "$tmp/tiny.gguf" --devices h100-sxm,cpu:1KiB --no-kv-offload --json
        case_ vllm_plan 0 estimate "$tmp/tiny.gguf" --devices cuda0:8GiB,cuda1:8GiB --emit vllm --json
        case_ vllm_plan 3 estimate "$tmp/tiny.gguf" --devices cuda0:64MiB --emit vllm --vllm-activation 60MiB --json
        ;;
    fit)
        case_ fit 0 fit --demo --dim seq --budget 1GiB --json
        case_ fit 3 fit --demo --dim seq --budget 100MiB --json
        case_ fit 0 fit --demo --dim batch --dim seq=64 --budget 100TiB --max 100 --json
        case_ fit 0 fit "$tmp/tiny.gguf" --dim ctx --budget 64MiB --json
        case_ fit 0 fit "$tmp/tiny.gguf" --dim ctx --budget 64MiB --weights-type q8_0 --json
        case_ fit 0 fit "$tmp/tiny.gguf" --dim ctx --budget 64MiB --weights-type f16,q4_k_m --json
        ;;
    inspect)
        case_ inspect 0 inspect $C/test_basic_conv_with_padding.onnx --json
        case_ inspect 0 inspect $C/test_if.onnx --json
        case_ inspect 0 inspect $C/test_loop11.onnx --json
        case_ inspect 0 inspect $C/test_basic_conv_with_padding.onnx --no-shapes --json
        # a safetensors checkpoint: its own schema (tensorplan.inspect_safetensors/1)
        "$PY" -c 'import json,struct,sys; b=json.dumps({"w":{"dtype":"BF16","shape":[4,4],"data_offsets":[0,32]}}).encode(); open(sys.argv[1],"wb").write(struct.pack("<Q",len(b))+b+bytes(32))' "$tmp/w.safetensors"
        case_ inspect_safetensors 0 inspect "$tmp/w.safetensors" --json
        ;;
    profile)
        case_ profile 0 profile --demo --device h100-sxm --json
        case_ profile 0 profile --demo --dim seq=64 --device rpi5 --top 3 --summary --json
        case_ profile 0 profile --demo --device cpu --quick --json
        ;;
    cost)
        case_ cost 0 cost --demo --devices h100-sxm,l4,rpi5 --json
        case_ cost 0 cost --demo --devices cpu,cuda,cpu-default --quick --json
        case_ cost "0|1" cost --demo --devices cuda --json # 1 without a GPU
        ;;
    calibrate)
        case_ calibrate 0 calibrate --quick --no-cuda --json # measures (temp cache)
        case_ calibrate 0 calibrate --quick --json           # from the cache
        ;;
    version)
        case_ version 0 version --json
        ;;
    alloc)
        # --json puts the summary on stdout only with -o (else the CSV is there)
        case_ alloc 0 alloc tests/golden/alloc_small.csv -o "$tmp/sol1.csv" --json
        case_ alloc 0 alloc tests/golden/alloc_small.csv -o "$tmp/sol2.csv" --algo greedy --align 256 --json
        case_ alloc 0 alloc tests/golden/alloc_small.csv -o "$tmp/sol3.csv" --capacity 15KiB --json
        ;;
    report)
        case_ report 0 report --demo --budget 1GiB --devices h100-sxm,l4,cuda --json
        case_ report 3 report --demo --dim seq=512 --budget 100MiB --devices h100-sxm --top 3 --json
        case_ report "0|3" report --demo --json # default budget and devices (cpu: quick calibration)
        case_ report 0 report --budget 1GiB --devices h100-sxm --json # the bundled example (in-place chains)
        ;;
    *)
        # A subcommand this test does not know yet: its plain --json run.
        case_ "$cmd" "0|3" "$cmd" --json
        ;;
    esac
done

# Validate everything in one python run (starting it costs ~1 s).
if [ -s "$tmp/manifest" ]; then
    "$PY" "$tmp/validate.py" "$SCHEMAS" "$tmp/manifest" >"$tmp/report" 2>&1
    vrc=$?
    cat "$tmp/report"
    pass=$((pass + $(grep -c '^ok ' "$tmp/report")))
    fails=$((fails + $(grep -c '^FAIL ' "$tmp/report")))
    if [ "$vrc" -ne 0 ] && ! grep -q '^FAIL ' "$tmp/report"; then
        bad "the validator crashed (exit $vrc)"
    fi
fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
