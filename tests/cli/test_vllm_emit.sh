#!/usr/bin/env bash
# estimate MODEL --devices GPUS --emit vllm: vLLM's KV block pool per GPU and the
# vllm serve flags, on the published shapes of Llama-3.1-8B and -70B (config.json
# only, written here). The byte figures checked are worked out from the shapes by
# hand; what vLLM itself reports was not compared (no GPU or vLLM here).
# usage: test_vllm_emit.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fails=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "  $2"; }
mkdir -p "$tmp/l8b" "$tmp/l70b"
cat >"$tmp/l8b/config.json" <<'JSON'
{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
 "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
 "vocab_size": 128256, "max_position_embeddings": 131072,
 "tie_word_embeddings": false, "torch_dtype": "bfloat16"}
JSON
cat >"$tmp/l70b/config.json" <<'JSON'
{"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672,
 "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
 "vocab_size": 128256, "max_position_embeddings": 131072,
 "tie_word_embeddings": false, "torch_dtype": "bfloat16"}
JSON
# field NAME FILE: a field of the "vllm" object of a JSON document
field() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[2]))["vllm"][sys.argv[1]])' "$1" "$2"; }
run() { # run WANT_RC OUT ARGS...
    local want=$1 out=$2
    shift 2
    "$TP" estimate "$@" >"$out" 2>"$tmp/err"
    local rc=$?
    [ "$rc" = "$want" ] || bad "estimate $* exits $want" "got $rc: $(head -c 300 "$tmp/err")"
}

run 0 "$tmp/a.json" "$tmp/l8b/config.json" --devices h100-sxm --emit vllm --json
# 8,030,261,248 parameters x 2 bytes + the rotary cache 131072 x 128 x 2
w=$(field weight_bytes "$tmp/a.json")
[ "$w" = 16094076928 ] && ok "8B weights per GPU: $w bytes" || bad "8B weights" "got $w, want 16094076928"
# one block: 16 tokens x 8 KV heads x (128 + 128) x 2 bytes x 32 layers
kb=$(field kv_block_bytes "$tmp/a.json")
[ "$kb" = 2097152 ] && ok "8B KV block in all layers: 2 MiB" || bad "8B KV block" "got $kb"
len=$(field max_model_len "$tmp/a.json")
[ "$len" = 131072 ] && ok "8B on an H100 serves its training context" || bad "8B length" "got $len"
grep -q "\"vllm serve $tmp/l8b --tensor-parallel-size 1 --pipeline-parallel-size 1 --max-model-len 131072 --gpu-memory-utilization 0.90\"" "$tmp/a.json" &&
    ok "flags name the checkpoint's folder" || bad "8B flags" "$(grep vllm_flags "$tmp/a.json")"

run 0 "$tmp/b.json" "$tmp/l8b/config.json" --devices h100-sxm --emit vllm --kv-cache-dtype fp8 --json
kb8=$(field kv_block_bytes "$tmp/b.json")
[ "$kb8" = 1048576 ] && ok "fp8 KV halves the block" || bad "fp8 block" "got $kb8"

# 70B: two H100s hold the weights (about 65.8 GiB each) but not 128k tokens of KV
run 0 "$tmp/c.json" "$tmp/l70b/config.json" --devices h100-sxm,h100-sxm --emit vllm --json
tp=$(field tensor_parallel_size "$tmp/c.json") len=$(field max_model_len "$tmp/c.json")
fit=$(field max_model_len_fit "$tmp/c.json") pool=$(field kv_pool_bytes "$tmp/c.json")
kb=$(field kv_block_bytes "$tmp/c.json")
# the longest length is whole blocks of the pool: blocks x 16 tokens, one block more does not fit
want=$(((pool / kb) * 16))
[ "$tp" = 2 ] && [ "$len" = "$fit" ] && [ "$len" = "$want" ] && [ "$len" -lt 131072 ] &&
    ok "70B on 2 H100: tensor parallel 2, longest length $len" ||
    bad "70B on 2 H100" "tp $tp len $len fit $fit want $want"
run 3 "$tmp/d.txt" "$tmp/l70b/config.json" --devices h100-sxm,h100-sxm --emit vllm --ctx 131072
grep -q "DOES NOT FIT" "$tmp/d.txt" && ok "70B at 128k on 2 H100: does not fit (exit 3)" ||
    bad "70B at 128k" "$(cat "$tmp/d.txt")"
run 0 "$tmp/e.json" "$tmp/l70b/config.json" --devices h100-sxm,h100-sxm,h100-sxm,h100-sxm --emit vllm --json
[ "$(field tensor_parallel_size "$tmp/e.json")" = 4 ] && [ "$(field max_model_len "$tmp/e.json")" = 131072 ] &&
    ok "70B on 4 H100: tensor parallel 4 at 128k" || bad "70B on 4 H100" "$(cat "$tmp/e.json")"
run 3 "$tmp/f.txt" "$tmp/l70b/config.json" --devices cuda0:24GiB --emit vllm
grep -q "exceed the budget by" "$tmp/f.txt" && ok "70B on one 24 GiB GPU: the deficit is named" ||
    bad "70B on 24 GiB" "$(cat "$tmp/f.txt")"

run 2 "$tmp/g.txt" "$tmp/l8b/config.json" --devices h100-sxm --emit vllm --gpu-memory-utilization 0
run 2 "$tmp/g.txt" "$tmp/l8b/config.json" --devices h100-sxm --emit sglang
run 1 "$tmp/g.txt" "$tmp/l8b/config.json" --devices cpu:64GiB --emit vllm
grep -q "no GPU" "$tmp/err" && ok "a device set without a GPU is an error" || bad "no GPU" "$(cat "$tmp/err")"
run 1 "$tmp/g.txt" "$tmp/l8b/config.json" --devices cuda0:24GiB,cuda1:24GiB,cuda2:24GiB --emit vllm --tensor-parallel-size 3
echo "$pass passed, $fails failed"
[ "$fails" = 0 ]
