#!/usr/bin/env bash
# CLI tests of `tensorplan estimate` and `tensorplan fit`: outputs, JSON keys,
# exit codes (3 = over budget), sizes, environment overrides.
# usage: test_estimate.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
fails=0
pass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset TENSORPLAN_MEMORY_BUDGET_BYTES TENSORPLAN_SOFT_MEMORY_FRACTION TENSORPLAN_ARENA_NO_REUSE

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "  $2"; }

# run NAME WANT_RC ARGS... : stdout -> $tmp/out, stderr -> $tmp/err
run() {
    local name=$1 want=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name (exit $rc)"; else
        bad "$name" "exit $rc, want $want; stderr: $(head -c 300 "$tmp/err")"; fi
}
# run_any NAME ARGS...: the verdict depends on this machine's memory: exit 0 or 3
run_any() {
    local name=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; then ok "$name (exit $rc)"; else
        bad "$name" "exit $rc, want 0 or 3; stderr: $(head -c 300 "$tmp/err")"; fi
}
has() { # NAME REGEX [FILE]
    if grep -Eq -- "$2" "${3:-$tmp/out}"; then ok "$1"; else
        bad "$1" "no match for /$2/ in: $(head -c 400 "${3:-$tmp/out}")"; fi
}
# json NAME PYTHON-EXPR over d (the parsed stdout)
json() {
    if "$PY" -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($2) else 1)" \
        2>"$tmp/pyerr"; then ok "$1"; else
        bad "$1" "json check failed: $2; $(head -c 300 "$tmp/pyerr") $(head -c 300 "$tmp/out")"; fi
}

# --- estimate: text, over budget -> exit 3 with the deficit message
run "estimate over budget" 3 "$TP" estimate --demo --budget 200MiB
has "deficit message" \
    'estimated peak [0-9]+\.[0-9] MiB exceeds budget 200\.0 MiB by [0-9]+\.[0-9] MiB \(activations [0-9]+\.[0-9] [KMG]iB, weights [0-9]+\.[0-9] MiB, inputs [0-9.]+ (B|KiB)\)'
has "breakdown lines" '^  activations .*MiB'
has "weights line" '^  weights .*tied counted once'
has "peak line" '^  peak .*bytes\)'

# --- estimate: fits
run "estimate fits 8GiB" 0 "$TP" estimate --demo --budget 8GiB
has "fits yes" '^fits: yes, headroom'
run "estimate 1.5G" 0 "$TP" estimate --demo --budget 1.5G
has "1.5G parsed" 'budget +1\.5 GiB'
run "estimate plain bytes" 3 "$TP" estimate --demo --budget 1048576
has "plain bytes parsed" 'budget +1\.0 MiB'

# --- JSON keys and arithmetic
run "estimate json over budget" 3 "$TP" estimate --demo --budget 200MiB --json
json "json keys" 'all(k in d for k in ["weights_bytes","activations_bytes","inputs_bytes","peak_bytes","budget_bytes","fits"])'
json "json header" 'd["schema"] == "tensorplan.estimate/1" and d["tensorplan_version"]'
json "json fits false" 'd["fits"] is False and d["budget_bytes"] == 200*1048576'
json "json peak is the sum" 'd["peak_bytes"] == d["weights_bytes"] + d["activations_bytes"] + d["inputs_bytes"]'
json "json deficit" 'd["deficit_bytes"] == d["peak_bytes"] - d["budget_bytes"] > 0'
json "json message" 'd["message"].startswith("estimated peak ")'
cp "$tmp/out" "$tmp/seq128.json"
run "estimate json fits" 0 "$TP" estimate --demo --budget 8GiB --json
json "json fits true" 'd["fits"] is True and d["deficit_bytes"] == 0 and d["headroom_bytes"] == d["budget_bytes"] - d["peak_bytes"]'
json "demo weights ~204 MiB, tied once" '200*2**20 < d["weights_bytes"] < 210*2**20 and d["tied_params_skipped"] == 1'

# --- --dim changes activations and inputs, not weights
run "estimate --dim seq=1024" 0 "$TP" estimate --demo --dim seq=1024 --budget 8GiB --json
"$PY" - "$tmp/seq128.json" "$tmp/out" <<'PYEOF' && ok "seq=1024 grows activations, same weights" || bad "seq=1024 grows activations, same weights"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(0 if b["activations_bytes"] > a["activations_bytes"] and b["inputs_bytes"] == 8 * a["inputs_bytes"] and b["weights_bytes"] == a["weights_bytes"] else 1)
PYEOF

# --- default budget: environment overrides
TENSORPLAN_MEMORY_BUDGET_BYTES=1000 run "budget from env bytes" 3 "$TP" estimate --demo --json
json "env budget used" 'd["budget_bytes"] == 1000 and "TENSORPLAN_MEMORY_BUDGET_BYTES" in d["budget_source"]'
TENSORPLAN_SOFT_MEMORY_FRACTION=0.5 run_any "budget from env fraction" "$TP" estimate --demo --json
json "env fraction used" '"0.5 x available host memory" in d["budget_source"] and d["budget_bytes"] > 0'
run_any "default soft budget" "$TP" estimate --demo
has "default budget source" 'soft budget: 0\.80 x available host memory'
# TENSORPLAN_ARENA_NO_REUSE=1 reaches the planner through the CLI (tensorplan/env.h)
run_any "reuse (default)" "$TP" estimate --demo --json
cp "$tmp/out" "$tmp/reuse.json"
TENSORPLAN_ARENA_NO_REUSE=1 run_any "no reuse from env" "$TP" estimate --demo --json
if "$PY" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if b["activations_bytes"] > a["activations_bytes"] else 1)' "$tmp/reuse.json" "$tmp/out"; then
    ok "TENSORPLAN_ARENA_NO_REUSE=1 plans activations without reuse"
else bad "TENSORPLAN_ARENA_NO_REUSE=1 plans activations without reuse"; fi
TENSORPLAN_SOFT_MEMORY_FRACTION=2 run "bad env fraction" 1 "$TP" estimate --demo
has "bad env named" 'TENSORPLAN_SOFT_MEMORY_FRACTION' "$tmp/err"

# --- usage errors
run "bad size" 2 "$TP" estimate --demo --budget lots
run "negative size" 2 "$TP" estimate --demo --budget -5MiB
run "unknown option" 2 "$TP" estimate --demo --frobnicate
run "bad --dim" 1 "$TP" estimate --demo --dim nosuch=3 --budget 1GiB
run "help" 0 "$TP" estimate --help
has "help text" 'exit|Exit codes'

# --- MoE offload
run "moe fits" 0 "$TP" estimate --demo --moe 8,2,10MiB,2 --budget 200MiB --json
json "moe numbers" 'd["moe"]["resident_per_layer"] == 2 and d["moe"]["all_expert_bytes"] == 8*2*10*2**20 and d["moe"]["peak_with_offload_bytes"] == d["peak_bytes"] - d["moe"]["offloaded_expert_bytes"]'
run "moe heavier than weights" 1 "$TP" estimate --demo --moe 1000,100,1GiB --budget 8GiB
has "moe error" 'experts weigh' "$tmp/err"
run "moe bad spec" 2 "$TP" estimate --demo --moe 8,2

# --- fit
run "fit seq" 0 "$TP" fit --demo --dim seq --budget 250MiB --json
json "fit keys" 'all(k in d for k in ["value","peak_bytes","next_value","next_peak_bytes","budget_bytes","plans_evaluated"])'
json "fit header" 'd["schema"] == "tensorplan.fit/1"'
json "fit boundary" 'd["peak_bytes"] <= d["budget_bytes"] < d["next_peak_bytes"] and d["next_value"] == d["value"] + 1 and d["value"] > 1'
json "fit log plans" 'd["plans_evaluated"] <= 40'
val=$("$PY" -c "import json; print(json.load(open('$tmp/out'))['value'])" 2>/dev/null)
run "estimate at fit value" 0 "$TP" estimate --demo --dim "seq=$val" --budget 250MiB
run "estimate at fit value + 1" 3 "$TP" estimate --demo --dim "seq=$((val + 1))" --budget 250MiB
run "fit text" 0 "$TP" fit --demo --dim seq --budget 250MiB
has "fit text line" "^largest seq that fits 250\.0 MiB: $val\$"
run "fit batch with seq bound" 0 "$TP" fit --demo --dim batch --dim seq=256 --budget 2GiB
has "fit batch line" '^largest batch that fits 2\.0 GiB: [0-9]+'
run "fit nothing fits" 3 "$TP" fit --demo --dim seq --budget 100MiB
has "fit nothing message" 'even seq=1 does not fit: estimated peak'
run "fit max bound" 0 "$TP" fit --demo --dim seq --budget 8GiB --max 64 --json
json "fit at max" 'd["value"] == 64 and d["at_max"] is True'
run "fit no dim" 2 "$TP" fit --demo --budget 1GiB
run "fit unknown dim" 1 "$TP" fit --demo --dim heads --budget 1GiB
has "fit unknown dim lists symbols" 'symbols: ' "$tmp/err"

# --- a .gguf LLM (a tiny llama-like file written here)
# GGUF v3 writer shared by the files below: f16 (type 1) or q8_0 (8) tensors, zero data,
# back to back at 32-byte offsets after the header
read -r -d '' GGUF_PY <<'PYEOF'
import struct, sys
def s(x): b = x.encode(); return struct.pack("<Q", len(b)) + b
def kv_u32(k, v): return s(k) + struct.pack("<II", 4, v)
def write(path, kvs, tensors):
    out = struct.pack("<IIQQ", 0x46554747, 3, len(tensors), len(kvs)) + b"".join(kvs)
    off = 0
    for name, dims, t in tensors:
        n = 1
        for d in dims: n *= d
        size = n * 2 if t == 1 else n // 32 * 34
        out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", t, off)
        off += (size + 31) // 32 * 32
    out += b"\0" * (-len(out) % 32) + b"\0" * off
    open(path, "wb").write(out)
PYEOF
"$PY" - "$tmp/tiny.gguf" <<PYEOF
$GGUF_PY
kvs = [s("general.architecture") + struct.pack("<I", 8) + s("llama"),
       kv_u32("llama.block_count", 4), kv_u32("llama.context_length", 2048),
       kv_u32("llama.embedding_length", 256), kv_u32("llama.feed_forward_length", 688),
       kv_u32("llama.attention.head_count", 8), kv_u32("llama.attention.head_count_kv", 2),
       s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1000) + b"".join(s("t%d" % i) for i in range(1000))]
tensors = [("token_embd.weight", (256, 1000), 1)]  # f16
for l in range(4):
    for n, dims in (("attn_q", (256, 256)), ("attn_k", (256, 64)), ("attn_v", (256, 64)),
                    ("attn_output", (256, 256)), ("ffn_gate", (256, 688)), ("ffn_up", (256, 688)),
                    ("ffn_down", (688, 256))):
        tensors.append(("blk.%d.%s.weight" % (l, n), dims, 8))  # q8_0
write(sys.argv[1], kvs, tensors)
PYEOF
# weights: f16 256x1000 + 4 layers x q8_0 (2x65536 + 2x16384 + 3x176128 elements) / 32 x 34 bytes
W=$((256 * 1000 * 2 + 4 * (2 * 65536 + 2 * 16384 + 3 * 176128) / 32 * 34))
run "gguf estimate" 0 "$TP" estimate "$tmp/tiny.gguf" --budget 1GiB --json --repack avx512
json "gguf weights" "d['weights_bytes'] == $W and d['llm']['tensors'] == 29"
json "gguf kv cache" 'd["llm"]["kv_cache_bytes"] == 4 * 2 * 2048 * 2 * 32 * 2 and d["llm"]["n_ctx"] == 2048'
json "gguf peak" 'd["peak_bytes"] == d["weights_bytes"] + d["llm"]["kv_cache_bytes"] + d["llm"]["output_bytes"] + d["llm"]["compute_bytes"] and d["inputs_bytes"] == 0'
json "gguf terms" 'd["llm"]["runtime"] == "llama.cpp" and d["llm"]["model_bytes"] == d["weights_bytes"] == d["llm"]["model_mapped_bytes"] and d["llm"]["output_bytes"] == 1000 * 4'
json "gguf config" 'd["llm"]["arch"] == "llama" and d["llm"]["kv_heads"] == 2 and d["llm"]["head_dim"] == 32 and d["llm"]["vocab"] == 1000'
run "gguf ctx/seqs/kv-type" 0 "$TP" estimate "$tmp/tiny.gguf" --ctx 512 --seqs 4 --kv-type q8_0 --budget 1GiB --json
json "gguf kv q8_0" 'd["llm"]["kv_cache_bytes"] == 4 * 2 * (256 * 4 * 2 * 32 // 32 * 34) and d["llm"]["n_ctx"] == 1024'
run "gguf over budget" 3 "$TP" estimate "$tmp/tiny.gguf" --budget 1MiB
has "gguf deficit message" 'estimated peak [0-9.]+ MiB exceeds budget 1\.0 MiB'
has "gguf text kv line" '^  context/KV .*K [0-9.]+ MiB f16 \+ V [0-9.]+ MiB f16; 2048 cells x 1 streams'
has "gguf text runtime" '^runtime: llama\.cpp'
run "gguf swa-full/cache types" 0 "$TP" estimate "$tmp/tiny.gguf" --cache-type-k q8_0 --cache-type-v f16 --no-flash-attn --swa-full --budget 1GiB --json
json "gguf cache types" 'd["llm"]["type_k"] == "q8_0" and d["llm"]["type_v"] == "f16" and d["llm"]["flash_attn"] is False and d["llm"]["kv_k_bytes"] == 4 * 2048 * 2 * 32 // 32 * 34'
run "gguf sweep" 0 "$TP" estimate "$tmp/tiny.gguf" --sweep ctx=1k,4k --sweep-kv f16,q8_0 --budget 1GiB --json
json "gguf sweep cells" 'len(d["sweep"]) == 4 and d["sweep"][0]["ctx"] == 1024 and d["sweep"][3]["kv_type"] == "q8_0" and d["sweep"][1]["kv_cache_bytes"] < d["sweep"][0]["kv_cache_bytes"]'
run "gguf sweep text" 0 "$TP" estimate "$tmp/tiny.gguf" --sweep ctx=1k,4k --budget 1GiB
has "gguf sweep table" '^ +4096 +[0-9.]+ MiB +[0-9.]+ MiB +[0-9.]+ MiB'
run "gguf sweep bad list" 2 "$TP" estimate "$tmp/tiny.gguf" --sweep ctx=4k,x
run "report gguf" 0 "$TP" report "$tmp/tiny.gguf" --budget 1GiB
has "report gguf terms" '^runtime: llama\.cpp'
run "gguf with --dim" 2 "$TP" estimate "$tmp/tiny.gguf" --dim seq=3
run "--ctx without gguf" 2 "$TP" estimate --demo --ctx 512
printf 'GGUF\003\000\000\000' >"$tmp/trunc.gguf"
run "truncated gguf" 1 "$TP" estimate "$tmp/trunc.gguf" --budget 1GiB
has "truncated gguf message" 'truncated' "$tmp/err"

# --- a .gguf mixture of experts: --moe auto takes the layout from the *_exps tensors
"$PY" - "$tmp/moe.gguf" <<PYEOF
$GGUF_PY
kvs = [s("general.architecture") + struct.pack("<I", 8) + s("qwen2moe"),
       kv_u32("qwen2moe.block_count", 2), kv_u32("qwen2moe.embedding_length", 256),
       kv_u32("qwen2moe.attention.head_count", 8), kv_u32("qwen2moe.expert_count", 8),
       kv_u32("qwen2moe.expert_used_count", 2)]
tensors = [("token_embd.weight", (256, 1000), 1)]
for l in range(2):
    for n in ("ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"):
        tensors.append(("blk.%d.%s.weight" % (l, n), (256, 512, 8), 8))  # q8_0, 8 experts
write(sys.argv[1], kvs, tensors)
PYEOF
EPB=$((3 * 256 * 512 / 32 * 34))  # one expert of one layer: gate + up + down
run "gguf moe auto" 3 "$TP" estimate "$tmp/moe.gguf" --budget 8MiB --moe auto,2 --json
json "moe auto layout" "d['moe']['experts_per_layer'] == 8 and d['moe']['moe_layers'] == 2 and d['moe']['expert_bytes'] == $EPB and d['moe']['max_device_experts'] == 2"
json "moe auto offload" 'd["moe"]["resident_per_layer"] <= 2 and d["moe"]["all_expert_bytes"] == 8 * 2 * d["moe"]["expert_bytes"]'
run "moe auto on a dense gguf" 1 "$TP" estimate "$tmp/tiny.gguf" --budget 8MiB --moe auto
has "moe auto dense message" 'no expert tensors' "$tmp/err"
run "moe auto without gguf" 2 "$TP" estimate --demo --moe auto

# --- fit on a .gguf: the longest context / most sequences in a budget
run "fit gguf ctx" 0 "$TP" fit "$tmp/tiny.gguf" --dim ctx --budget 64MiB --json
json "fit gguf ctx boundary" 'd["peak_bytes"] <= d["budget_bytes"] < d["next_peak_bytes"] and d["value"] > 1'
ctx=$("$PY" -c "import json; print(json.load(open('$tmp/out'))['value'])" 2>/dev/null)
run "estimate at the fitting ctx" 0 "$TP" estimate "$tmp/tiny.gguf" --ctx "$ctx" --budget 64MiB
run "estimate at ctx + 1" 3 "$TP" estimate "$tmp/tiny.gguf" --ctx "$((ctx + 1))" --budget 64MiB
run "fit gguf seqs q8_0" 0 "$TP" fit "$tmp/tiny.gguf" --dim seqs --ctx 1024 --kv-type q8_0 --budget 64MiB
has "fit gguf seqs line" '^largest seqs that fits 64\.0 MiB: [0-9]+'
run "fit gguf unknown dim" 1 "$TP" fit "$tmp/tiny.gguf" --dim batch --budget 64MiB
has "fit gguf dims listed" 'ctx, seqs, ubatch' "$tmp/err"
run "fit gguf nothing fits" 3 "$TP" fit "$tmp/tiny.gguf" --dim ctx --budget 100KiB

# --- --gpu: the default budget from GPU 0's free memory (a fake libcuda when a
# compiler is there; without a driver it is an error naming the reason)
run "memory in json" 0 "$TP" estimate --demo --budget 8GiB --json
json "memory object" 'd["memory"]["host_total_bytes"] >= d["memory"]["host_available_bytes"] > 0'
TENSORPLAN_CUDA_LIBRARY="$tmp/no-such-libcuda.so" run "gpu without driver" 1 "$TP" estimate --demo --gpu
has "gpu reason" 'no GPU: no CUDA driver' "$tmp/err"
if ${CC:-cc} -shared -fPIC -o "$tmp/fake_cuda.so" tests/fixtures/sysmem/fake_cuda.c 2>/dev/null; then
    TENSORPLAN_CUDA_LIBRARY="$tmp/fake_cuda.so" run "gpu budget (fake driver)" 0 "$TP" estimate --demo --gpu --json
    json "gpu budget is 0.80 x free" 'd["budget_bytes"] == 84825604096 * 8 // 10 and d["memory"]["gpu"]["name"] == "Fake GPU 80GB"'
    TENSORPLAN_CUDA_LIBRARY="$tmp/fake_cuda.so" run "gpu text (fake driver)" 0 "$TP" estimate --demo --gpu
    has "gpu budget line" 'soft budget: 0\.80 x free GPU memory 79\.0 GiB'
else
    echo "note: no C compiler, fake GPU driver not checked"
fi
run "gpu and budget exclusive" 2 "$TP" estimate --demo --gpu --budget 1GiB

# --- real ONNX models (made by scripts/fixtures.sh; skipped when absent): the
# weights counted from the graph match the external weight file byte for byte,
# up to the small initializers stored inline in the .onnx
M=.fixtures/models
for m in bert_base gpt2 resnet50 vit_b_16; do
    if [ -f "$M/$m.onnx" ] && [ -f "$M/$m.onnx.data" ]; then
        dims="--dim batch=2"
        case $m in bert_base | gpt2) dims="--dim batch=2 --dim seq=64" ;; esac
        # shellcheck disable=SC2086
        run "onnx $m" 0 "$TP" estimate "$M/$m.onnx" $dims --budget 64GiB --json
        data=$(stat -c %s "$M/$m.onnx.data")
        json "onnx $m weights = external data (+ inline)" "$data <= d['weights_bytes'] <= $data + $data // 1000 + 16384 and d['activations_bytes'] > 0"
    else
        echo "note: $M/$m.onnx not built, skipped"
    fi
done
if [ -f "$M/bert_base.onnx" ]; then
    run "unbound dims" 1 "$TP" estimate "$M/bert_base.onnx" --budget 1GiB
    has "batch bound to 1 by default" '^tensorplan: batch=1 by default \(batch-like or unnamed input dim; set with --dim NAME=VALUE\)$' "$tmp/err"
    has "unbound hint names seq only" 'hint: bind symbolic dims with --dim NAME=VALUE \(unbound: seq\)$' "$tmp/err"
    run "batch default + seq" 0 "$TP" estimate "$M/bert_base.onnx" --dim seq=128 --budget 64GiB --json
    cp "$tmp/out" "$tmp/b1.json"
    run "--dim overrides the default" 0 "$TP" estimate "$M/bert_base.onnx" --dim seq=128 --dim batch=4 --budget 64GiB --json
    if grep -q "by default" "$tmp/err"; then bad "--dim batch: no default line"; else ok "--dim batch: no default line"; fi
    if "$PY" -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if b["inputs_bytes"] == 4 * a["inputs_bytes"] else 1)' "$tmp/b1.json" "$tmp/out"; then
        ok "batch=4 has 4x the inputs of the default batch=1"
    else bad "batch=4 has 4x the inputs of the default batch=1"; fi
    run "--quiet hides the default line" 0 "$TP" estimate "$M/bert_base.onnx" --dim seq=8 --budget 64GiB --quiet
    if grep -q "by default" "$tmp/err"; then bad "--quiet: no default line"; else ok "--quiet: no default line"; fi
    run "fit over seq with the default batch" 0 "$TP" fit "$M/bert_base.onnx" --dim seq --max 64 --budget 64GiB
    has "fit: batch bound by default" 'batch=1 by default' "$tmp/err"
    run "fit unbound dims" 1 "$TP" fit "$M/bert_base.onnx" --dim batch --budget 1GiB
    has "fit unbound hint" 'hint: bind symbolic dims with --dim NAME=VALUE \(unbound: seq\)' "$tmp/err"
fi

# --- ONNX assumptions: If branches and data-dependent dims at their upper bound
C="$(cd "$(dirname "$0")/../.." && pwd)/fuzz/corpus/onnx"
run "estimate NonZero unbound" 0 "$TP" estimate "$C/test_nonzero_example.onnx" --budget 1GiB
has "bounded line" '^bounded: nonzero_result = 4 \(NonZero .*at most the elements of its input'
run "estimate ten NonZero" 0 "$TP" estimate "$C/seed_ten_nonzero.onnx" --budget 1GiB
if [ "$(grep -c '^bounded: nonzero_nz' "$tmp/out")" = 8 ]; then ok "eight bounded sizes named"; else bad "eight bounded sizes named"; fi
has "the rest counted" '^bounded: 2 more data-dependent sizes at their upper bounds \(--json lists every one in bounded_dims\)$'
run "estimate NonZero json" 0 "$TP" estimate "$C/test_nonzero_example.onnx" --budget 1GiB --json
json "bounded_dims json" 'd["bounded_dims"] == [{"symbol": "nonzero_result", "value": 4, "why": d["bounded_dims"][0]["why"]}] and d["notes"] == []'
run "estimate NonZero --dim" 0 "$TP" estimate "$C/test_nonzero_example.onnx" --budget 1GiB \
    --dim nonzero_result=1 --json
json "--dim overrides the bound" 'd["bounded_dims"] == [] and d["activations_bytes"] == 16'
run "estimate If" 0 "$TP" estimate "$C/test_if.onnx" --budget 1GiB --json
json "If note json" 'len(d["notes"]) == 1 and "both branches planned" in d["notes"][0]'
# --input-value: the If on a given input plans the branch taken (each value its own)
run "If on a given input: true" 0 "$TP" estimate "$C/test_if.onnx" --budget 1GiB --json --input-value cond=1
json "then_branch planned" 'len(d["notes"]) == 1 and "is true at plan time" in d["notes"][0] and "then_branch only" in d["notes"][0]'
run "If on a given input: false" 0 "$TP" estimate "$C/test_if.onnx" --budget 1GiB --json --input-value cond=0
json "else_branch planned" 'len(d["notes"]) == 1 and "is false at plan time" in d["notes"][0] and "else_branch only" in d["notes"][0]'
run "the last value given wins" 0 "$TP" estimate "$C/test_if.onnx" --budget 1GiB --json \
    --input-value cond=1 --input-value cond=0
json "the last one's branch" '"else_branch only" in d["notes"][0]'
run "--input-value for a name that is no input" 1 "$TP" estimate "$C/test_if.onnx" --budget 1GiB --input-value nope=1
has "names the value" "a value is given for 'nope', which is not a graph input" "$tmp/err"
run "--input-value with too many values" 1 "$TP" estimate "$C/test_if.onnx" --budget 1GiB --input-value cond=1,2
has "names the count" "'cond' has 2 elements" "$tmp/err"
for bad in cond cond= =1 cond=abc cond=1e999 "cond=1,,2"; do
    run "--input-value $bad is a usage error" 2 "$TP" estimate "$C/test_if.onnx" --input-value "$bad"
done
has "says which value" "value 2 \\(''\\) is not a number" "$tmp/err"
run "--input-value with the demo" 1 "$TP" estimate --demo --budget 1GiB --input-value x=1
has "says it applies to ONNX models" "applies to an ONNX model" "$tmp/err"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
