#!/usr/bin/env bash
# Hugging Face checkpoints (config.json alone, or with model.safetensors) give the same
# llama.cpp estimate as the GGUF of the same model: scripts/hf_from_gguf.py writes both
# forms from the test GGUFs (scripts/fixtures-llm.sh), and the KV cache, output and compute
# buffers must equal the GGUF's to the byte (those are llama.cpp's own to the byte:
# tests/cli/test_llm_truth.sh). The weights: config.json alone and config + safetensors must
# agree, and for the f16 GGUF equal its model buffer (the same precision), under the AVX-512
# repack rule (which copies no f16 weight); under the AMX rule (a CPU with AMX) the f16 GGUF's
# AMX copies must be equal and the config's model buffer at or above the GGUF's (its mapped
# range is taken whole: the converter's tensor order is not known).
# usage: test_hf_config.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
cd "$(dirname "$0")/../.."
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "skip: the GGUF fixtures come with node-llama-cpp's linux-x64 build"
    echo "0 passed, 0 failed"
    exit 0
fi
if ! bash scripts/fixtures-llm.sh; then
    echo "FAIL fixtures: scripts/fixtures-llm.sh"
    echo "0 passed, 1 failed"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M=.fixtures/llm/models
models="llama_mha_f16 llama_gqa_q8_0 qwen2_gqa_q4_0 gemma3_swa_q4_k qwen3moe_q4_k mixtral_moe_q8_0"
/usr/bin/python3 scripts/hf_from_gguf.py .fixtures/llm/llama.cpp/gguf-py "$tmp" \
    $(for m in $models; do echo "$M/$m.gguf"; done) >/dev/null || { echo "FAIL hf_from_gguf.py"; exit 1; }
/usr/bin/python3 - "$TP" "$tmp" "$M" $models <<'PYEOF'
import json, subprocess, sys
tp, tmp, M, models = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
passed = failed = 0
def llm(path, ctx, repack="avx512"):
    out = subprocess.run([tp, "estimate", path, "--ctx", str(ctx), "--budget", "1TiB", "--json",
                          "--repack", repack], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"FAIL {path}: exit {out.returncode}: {out.stderr[-300:]}")
    return json.loads(out.stdout)["llm"]
print(f"{'model':18} {'ctx':>6} | {'KV (GGUF)':>10} {'output':>7} {'compute':>9} | weights: config / +safetensors / GGUF")
for m in models:
    for ctx in (512, 32768):
        g, c, s = llm(f"{M}/{m}.gguf", ctx), llm(f"{tmp}/{m}/config", ctx), llm(f"{tmp}/{m}/st", ctx)
        same = all(g[k] == c[k] == s[k] for k in ("kv_cache_bytes", "output_bytes", "compute_bytes",
                                                   "kv_cells", "kv_cells_swa"))
        wt = c["weight_bytes"] == s["weight_bytes"] and (m != "llama_mha_f16" or
                                                          c["model_bytes"] == g["model_bytes"])
        ok = same and wt
        passed += ok
        failed += not ok
        print(f"{m:18} {ctx:>6} | {g['kv_cache_bytes']:>10} {g['output_bytes']:>7} {g['compute_bytes']:>9} | "
              f"{c['weight_bytes']} / {s['weight_bytes']} / {g['model_bytes']}  {'ok' if ok else 'FAIL'}")
# the AMX rule (docs/estimate.md "AMX"): AMX takes f16 matrices, not bf16 ones. The fixture's
# config says bfloat16 (the converter then writes bf16): no copy. The same config in float16:
# the f16 GGUF's copies to the byte, and a model buffer at or above the GGUF's.
import os, shutil
m = "llama_mha_f16"
f16 = os.path.join(tmp, "f16config")
shutil.copytree(f"{tmp}/{m}/config", f16)
cfg = json.load(open(os.path.join(f16, "config.json")))
cfg["torch_dtype"] = "float16"
json.dump(cfg, open(os.path.join(f16, "config.json"), "w"))
g, b, c = (llm(p, 512, "amx") for p in (f"{M}/{m}.gguf", f"{tmp}/{m}/config", f16))
ok = (b["model_repack_bytes"] == 0 and g["model_repack_bytes"] == c["model_repack_bytes"] > 0 and
      c["model_bytes"] >= g["model_bytes"])
passed += ok
failed += not ok
print(f"{m} AMX rule: copies bf16 config {b['model_repack_bytes']}, f16 config {c['model_repack_bytes']}, "
      f"GGUF {g['model_repack_bytes']}; model f16 config {c['model_bytes']} / GGUF {g['model_bytes']}  "
      f"{'ok' if ok else 'FAIL'}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYEOF
