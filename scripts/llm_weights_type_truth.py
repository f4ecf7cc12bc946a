"""--weights-type against llama.cpp's own quantizer (tests/cli/test_llm_weights_type.sh, a
slice; bench/llm_weights_type.sh, every model and type).

For each f16 model and llama.cpp file type: llama_model_quantize (scripts/llm_quantize.c,
the prebuilt libllama) writes the quantized GGUF; tensorplan predicts it twice, from the f16
GGUF and from the equivalent Hugging Face config.json (scripts/hf_from_gguf.py), with
`estimate --weights-type T`; the truth is the quantized file: the sum of its tensors' bytes
read by gguf-py (GGUFReader, not tensorplan's reader) and its model buffers (mapped range and
CPU_REPACK, AVX2 rule) from tensorplan's GGUF reader, which bench/llm_truth.sh checks against
llama.cpp. Prints one row per (model, type); exits 1 when any figure differs by a byte.

usage: /usr/bin/python3 scripts/llm_weights_type_truth.py TENSORPLAN GGUF_PY QUANTIZE WORKDIR
           MODELS_DIR [--models a,b] [--types t1,t2]"""
import json
import os
import subprocess
import sys

TP, GGUF_PY, QUANTIZE, WORK, MODELS = sys.argv[1:6]
sys.path.insert(0, GGUF_PY)
import gguf  # noqa: E402

# llama_ftype numbers (llama.h)
FTYPES = {"f32": 0, "f16": 1, "bf16": 32, "q8_0": 7, "q4_0": 2, "q4_1": 3, "q5_0": 8, "q5_1": 9,
          "q2_k": 10, "q3_k_s": 11, "q3_k_m": 12, "q3_k_l": 13, "q4_k_s": 14, "q4_k_m": 15,
          "q5_k_s": 16, "q5_k_m": 17, "q6_k": 18, "iq4_nl": 25, "iq4_xs": 30, "iq3_s": 26,
          "iq3_m": 27, "mxfp4_moe": 38, "tq1_0": 36, "tq2_0": 37,
          # these need an importance matrix: llm_quantize passes a uniform one
          "iq2_xxs": 19, "iq2_xs": 20, "q2_k_s": 21, "iq3_xs": 22, "iq3_xxs": 23, "iq1_s": 24,
          "iq2_s": 28, "iq2_m": 29, "iq1_m": 31}
IMATRIX = {"iq2_xxs", "iq2_xs", "q2_k_s", "iq3_xs", "iq3_xxs", "iq1_s", "iq2_s", "iq2_m", "iq1_m"}
ALL_MODELS = ["wt_llama_gqa_f16", "wt_qwen2_f16", "wt_gemma3_f16", "wt_qwen3moe_f16",
              "wt_mixtral_f16"]


def opt(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1].split(",")
    return default


def estimate(path, wtype=None):
    cmd = [TP, "estimate", path, "--json", "--budget", "1TiB", "--repack", "avx2"]
    if wtype:
        cmd += ["--weights-type", wtype]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("tensorplan failed: %s\n%s" % (" ".join(cmd), out.stderr))
    d = json.loads(out.stdout)["llm"]
    return d["weight_bytes"], d["model_mapped_bytes"], d["model_repack_bytes"]


def main():
    models = opt("--models", ALL_MODELS)
    types = opt("--types", list(FTYPES))
    os.makedirs(WORK, exist_ok=True)
    hf = os.path.join(WORK, "hf")
    paths = [os.path.join(MODELS, m + ".gguf") for m in models]
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "hf_from_gguf.py"),
                    GGUF_PY, hf] + paths, check=True, capture_output=True)
    print("%-18s %-9s %10s %10s %10s %10s %10s" % ("model", "type", "tensors", "d_gguf", "d_hf",
                                                   "mapped", "repack"))
    rows = bad = 0
    worst = 0
    for m, src in zip(models, paths):
        for t in types:
            q = os.path.join(WORK, "%s.%s.gguf" % (m, t))
            if not os.path.exists(q):
                cmd = [QUANTIZE, src, q + ".tmp", str(FTYPES[t])] + (["imatrix"] if t in IMATRIX else [])
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    raise SystemExit("llm_quantize %s %s failed: %s" % (m, t, r.stderr[-2000:]))
                os.replace(q + ".tmp", q)
            truth_bytes = sum(int(x.n_bytes) for x in gguf.GGUFReader(q).tensors)
            truth = estimate(q)
            p_gguf = estimate(src, t)
            p_hf = estimate(os.path.join(hf, m, "config", "config.json"), t)
            d_gguf = p_gguf[0] - truth_bytes
            d_hf = p_hf[0] - truth_bytes
            ok = truth[0] == truth_bytes and p_gguf == truth and p_hf == truth
            worst = max(worst, abs(d_gguf), abs(d_hf),
                        max(abs(a - b) for a, b in zip(p_gguf, truth)),
                        max(abs(a - b) for a, b in zip(p_hf, truth)))
            rows += 1
            bad += not ok
            print("%-18s %-9s %10d %+10d %+10d %10d %10d%s" % (
                m, t, truth_bytes, d_gguf, d_hf, truth[1], truth[2], "" if ok else "  MISMATCH"))
    print("%d of %d equal to the byte (tensor bytes, mapped and repack buffers, from the f16 "
          "GGUF and from config.json); largest difference %d bytes" % (rows - bad, rows, worst))
    return 1 if bad else 0


sys.exit(main())
