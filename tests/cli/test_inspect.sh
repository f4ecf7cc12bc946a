#!/usr/bin/env bash
# CLI tests of `tensorplan inspect`: text and JSON output of real ONNX files
# (seed files of fuzz/corpus/onnx, from libonnx-testdata), nested graphs,
# symbolic dims, exit codes and error messages for bad files.
# usage: test_inspect.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
C=fuzz/corpus/onnx
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "  $2"; }
run() { # NAME WANT_RC ARGS... : stdout -> $tmp/out, stderr -> $tmp/err
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name (exit $rc)"; else
        bad "$name" "exit $rc, want $want; stderr: $(head -c 300 "$tmp/err")"; fi
}
has() { # NAME REGEX [FILE]
    if grep -Eq -- "$2" "${3:-$tmp/out}"; then ok "$1"; else
        bad "$1" "no match for /$2/ in: $(head -c 400 "${3:-$tmp/out}")"; fi
}
json() { # NAME PYTHON-EXPR over d
    if "$PY" -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($2) else 1)" \
        2>"$tmp/pyerr"; then ok "$1"; else
        bad "$1" "json check failed: $2; $(head -c 300 "$tmp/pyerr") $(head -c 300 "$tmp/out")"; fi
}

# --- text summary of a Conv model
run "inspect conv" 0 "$TP" inspect $C/test_basic_conv_with_padding.onnx
has "opset line" '^opset: ai\.onnx [0-9]+$'
has "input x with shape" '^  x +FLOAT +\[1,1,5,5\]$'
has "output y" '^  y +FLOAT +\[1,1,5,5\]$'
has "histogram" '^  Conv +1$'
has "node count" '^nodes: 1 \(1 including 0 subgraphs\)$'
has "params line" '^params: 0 tensors'

# --- JSON with node shapes from the IR
run "inspect conv json" 0 "$TP" inspect $C/test_basic_conv_with_padding.onnx --json
json "json keys" 'all(k in d for k in ["opset","opsets","inputs","outputs","ops","params","nodes"])'
json "json header" 'd["schema"] == "tensorplan.inspect/1" and d["tensorplan_version"]'
json "json inputs" '[i["name"] for i in d["inputs"]] == ["x","W"] and d["inputs"][0]["shape"] == [1,1,5,5]'
json "json node" 'd["nodes"][0]["op"] == "Conv" and d["nodes"][0]["outputs"][0]["name"] == "y"'
json "json node shape from IR" 'd["nodes"][0]["outputs"][0]["shape"] == [1,1,5,5] and d["nodes"][0]["outputs"][0]["dtype"] == "f32"'
json "json ops histogram" 'd["ops"] == {"Conv": 1}'

# --- nested graphs: Loop body counted in the histogram
run "inspect loop" 0 "$TP" inspect $C/test_loop11.onnx --json --no-shapes
json "loop totals" 'd["n_nodes"] == 1 and d["n_nodes_total"] == 10 and d["n_subgraphs"] == 1'
json "loop histogram" 'd["ops"]["Loop"] == 1 and d["ops"]["Unsqueeze"] == 2 and sum(d["ops"].values()) == 10'
json "scalar inputs have rank 0" 'd["inputs"][0]["name"] == "trip_count" and d["inputs"][0]["shape"] == []'
json "no-shapes gives null shapes" 'd["shapes_inferred"] is False and d["nodes"][0]["outputs"][0]["shape"] is None'
run "inspect if" 0 "$TP" inspect $C/test_if.onnx
has "if histogram" '^  If +1$'
has "if subgraphs" '^nodes: [0-9]+ \([0-9]+ including 2 subgraphs\)$'

# --- an exported model with symbolic dims, when the fixtures exist
if [ -f .fixtures/models/gpt2.onnx ]; then
    run "inspect gpt2" 0 "$TP" inspect .fixtures/models/gpt2.onnx --verify-external-data
    has "symbolic input" '^  input_ids +INT64 +\[batch,seq\]$'
    has "gpt2 params ~623 MiB external" '^params: [0-9]+ tensors, [0-9]+ elements, 6[0-9][0-9]\.[0-9] MiB .*external 6'
    run "inspect gpt2 json dims" 0 "$TP" inspect .fixtures/models/gpt2.onnx --json --dim batch=2 --dim seq=7
    json "bound logits shape" '[o for n in d["nodes"] for o in n["outputs"] if o["name"] == "logits"][0]["shape"] == [2,7,50257]'
    json "params unique <= bytes" 'd["params"]["unique_bytes"] <= d["params"]["bytes"] and d["params"]["external_count"] > 0'
else
    echo "skip gpt2 (no .fixtures/models/gpt2.onnx)"
fi

# --- errors
run "missing file" 1 "$TP" inspect "$tmp/nope.onnx"
has "missing names the path" 'nope\.onnx' "$tmp/err"
head -c 60 $C/test_loop11.onnx >"$tmp/trunc.onnx"
run "truncated file" 1 "$TP" inspect "$tmp/trunc.onnx"
has "truncated names an offset" 'offset [0-9]+' "$tmp/err"
printf 'this is not an onnx file at all\n' >"$tmp/garbage.onnx"
run "garbage file" 1 "$TP" inspect "$tmp/garbage.onnx"
has "garbage is a parse error" 'TP_ERR_PARSE|malformed|offset' "$tmp/err"
: >"$tmp/empty.onnx"
run "empty file" 1 "$TP" inspect "$tmp/empty.onnx"
has "empty says so" 'empty file' "$tmp/err"
run "no model" 2 "$TP" inspect
run "unknown option" 2 "$TP" inspect $C/test_if.onnx --frobnicate
run "bad --dim" 2 "$TP" inspect $C/test_if.onnx --dim nonsense
# safetensors: one file, a folder with a sharded index, and a bad range
mkdir -p "$tmp/ckpt"
/usr/bin/python3 - "$tmp/ckpt" <<'EOF'
import json, struct, sys
d = sys.argv[1]
def st(path, tensors):
    h, off = {}, 0
    for name, dtype, shape, size in tensors:
        h[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + size]}
        off += size
    b = json.dumps(h).encode()
    open(path, "wb").write(struct.pack("<Q", len(b)) + b + bytes(off))
st(d + "/model-00001-of-00002.safetensors", [("embed", "BF16", [1000, 64], 128000)])
st(d + "/model-00002-of-00002.safetensors", [("w", "F32", [64, 64], 16384), ("n", "F32", [64], 256)])
json.dump({"weight_map": {"embed": "model-00001-of-00002.safetensors",
                          "w": "model-00002-of-00002.safetensors", "n": "model-00002-of-00002.safetensors"}},
          open(d + "/model.safetensors.index.json", "w"))
b = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 12]}}).encode()
open(d + "/../bad.safetensors", "wb").write(struct.pack("<Q", len(b)) + b + bytes(12))
EOF
run "safetensors folder" 0 "$TP" inspect "$tmp/ckpt"
has "safetensors files and tensors" '^tensors: 3, 141\.[0-9] KiB of data' "$tmp/out"
has "safetensors bf16 bytes" '^  bf16 .*\(128000 bytes\)' "$tmp/out"
run "safetensors --json" 0 "$TP" inspect "$tmp/ckpt/model-00002-of-00002.safetensors" --json
has "safetensors json" '"tensor_bytes": 16640' "$tmp/out"
run "safetensors bad range" 1 "$TP" inspect "$tmp/bad.safetensors"
has "safetensors bad range named" "tensor 'w': data_offsets \[0, 12\) hold 12 bytes, the shape and dtype need 16" "$tmp/err"
run "help" 0 "$TP" inspect --help
has "help text" '^usage: tensorplan inspect'

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
