"""Compare tensorplan's LLM estimate with llama.cpp's own buffers, term by term.

usage: /usr/bin/python3 scripts/llm_truth.py TENSORPLAN FIXDIR [--full] [--models a,b] [--ctx 512,4096]
                                            [--compute-within PCT]

FIXDIR is .fixtures/llm (scripts/fixtures-llm.sh): llm_probe, the prebuilt llama.cpp and models/.
For every model x context x (flash attention on/off) x KV types it runs llama.cpp's probe and
`tensorplan estimate --json` with the same options and prints one row per run: each term's bytes
from llama.cpp and the difference of tensorplan's figure (options llama.cpp refuses for a model,
e.g. different K and V types with MLA, must be refused by tensorplan too). Exit status 1 when a
model, KV or output
figure differs from llama.cpp's by a single byte, or the total or the compute buffer falls below
llama.cpp's (the estimate may be above, never below), or, with --compute-within PCT, the compute
buffer is more than PCT % above llama.cpp's. Each row names where the compute figure came from
(graph: the planned prefill graph; formula: the fitted formula). On a CPU with AMX llama.cpp loads
its AMX variant, whose AMX buffer counts as repacked; where that variant aborts (deepseek2), the
run is compared again without it against --repack avx512, in a row marked "-amx"."""
import json
import os
import subprocess
import sys

from llama_variants import AMX_VARIANTS, folder_without_amx

args = sys.argv[1:]
tp, fix = args[0], args[1]
full = "--full" in args


def opt(name, default):
    return args[args.index(name) + 1].split(",") if name in args else default


# a split model counts once, by its first file (NAME-00001-of-0000N.gguf)
models = opt("--models", sorted(m[:-5] for m in os.listdir(os.path.join(fix, "models"))
                                if m.endswith(".gguf") and ("-of-" not in m or "-00001-of-" in m)))
ctxs = [int(c) for c in opt("--ctx", ["512", "4096", "32768"])]
fas = [1, 0] if full else [1]
within = float(opt("--compute-within", ["-1"])[0])
kvs = [("f16", "f16"), ("q8_0", "q8_0"), ("q8_0", "q4_0")] if full else [("f16", "f16")]
bins = None
for d in os.listdir(os.path.join(fix, "npm/node_modules/@node-llama-cpp")):
    if d == "linux-x64":
        bins = os.path.join(fix, "npm/node_modules/@node-llama-cpp", d, "bins", d)


# llama.cpp's CPU backend variants built with AMX (GGML_CPU_ALL_VARIANTS: sapphirerapids only). On a
# CPU with AMX, llama.cpp may abort on a model (deepseek2_mla_q8_0: GGML_ASSERT in its scheduler);
# such a run is reported as llama.cpp's abort and compared again with the backend loaded without
# its AMX variant (an AVX-512 one ranks next) against tensorplan's --repack avx512.
_noamx = []


def amx_loaded():
    """Whether ggml loads an AMX variant here: it is shipped and the CPU has AMX-INT8."""
    try:
        with open("/proc/cpuinfo") as f:
            amx = any(line.startswith("flags") and " amx_int8" in line for line in f)
    except OSError:
        amx = False
    return amx and any(os.path.exists(os.path.join(bins, v)) for v in AMX_VARIANTS)


def bins_without_amx():
    if not _noamx:
        import atexit
        import shutil
        d = folder_without_amx(bins)
        atexit.register(shutil.rmtree, d, True)
        _noamx.append(d)
    return _noamx[0]


class Aborted(Exception):
    pass


def probe(model, ctx, fa, tk, tv, backends=None):
    env = dict(os.environ, LLM_PROBE_BACKENDS=backends or bins)
    out = subprocess.run([os.path.join(fix, "llm_probe"), model, str(ctx), "512", "1", tk, tv, str(fa), "0"],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        if "does not support" in out.stderr or "does not divide" in out.stderr:
            return None  # llama.cpp refuses these options for this model
        asserts = [line for line in out.stderr.splitlines() if "GGML_ASSERT" in line]
        if asserts and backends is None and amx_loaded():
            raise Aborted(asserts[0].split("/")[-1])
        raise SystemExit("llm_probe failed on %s: %s" % (model, out.stderr[-2000:]))
    r = {"model": 0, "mapped": 0, "repack": 0, "context": 0, "compute": 0, "output": 0}
    for line in out.stdout.splitlines():
        f = line.split()
        if f[0] == "buffer":
            r[f[1]] += int(f[3])
            if f[1] == "model":
                # the AMX buffer (a CPU with AMX: llama.cpp's sapphirerapids variant) is a
                # repacked copy too (tensorplan's AMX rule, docs/estimate.md "AMX")
                r["repack" if f[2] in ("CPU_REPACK", "AMX") else "mapped"] += int(f[3])
        elif f[0] == "output":
            r["output"] = int(f[1])
    return r


def estimate(model, ctx, fa, tk, tv, repack=None):
    cmd = [tp, "estimate", model, "--ctx", str(ctx), "--ubatch", "512", "--batch", "512",
           "--cache-type-k", tk, "--cache-type-v", tv, "--budget", "1TiB", "--json"]
    if repack:
        cmd += ["--repack", repack]
    if not fa:
        cmd.append("--no-flash-attn")
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode == 1:
        return None  # tensorplan refuses them too (an input error)
    if out.returncode != 0:
        raise SystemExit("tensorplan failed: %s\n%s" % (" ".join(cmd), out.stderr))
    j = json.loads(out.stdout)["llm"]
    return {"model": j["model_bytes"], "mapped": j["model_mapped_bytes"], "repack": j["model_repack_bytes"],
            "context": j["kv_cache_bytes"], "output": j["output_bytes"], "compute": j["compute_bytes"],
            "source": "graph" if j.get("compute_source") == "planned graph" else "formula"}


terms = ["model", "context", "output", "compute"]
print("%-18s %6s %2s %-9s | %s | %8s" % ("model", "ctx", "fa", "K/V", " | ".join("%-24s" % t for t in terms), "total"))
print("%-18s %6s %2s %-9s | %s | %8s" % ("", "", "", "", " | ".join("%-24s" % "llama.cpp B   tp-llama" for _ in terms), "err %"))
bad = 0
worst = {"compute_over": 0.0}
stats = {"rows": 0, "exact": 0, "in1": 0, "in5": 0, "graph": 0, "aborted": 0}
for m in models:
    path = os.path.join(fix, "models", m + ".gguf")
    for ctx in ctxs:
        for fa in fas:
            for tk, tv in kvs:
                if not fa and tv not in ("f16", "f32", "bf16"):
                    continue  # llama.cpp refuses a quantized V cache without flash attention
                label = m[:18]
                try:
                    t = probe(path, ctx, fa, tk, tv)
                    e = estimate(path, ctx, fa, tk, tv)
                except Aborted as why:
                    stats["aborted"] += 1
                    print("%-18s %6d %2d %-9s | llama.cpp (AMX variant) aborted: %s; again without AMX:" % (
                        label, ctx, fa, tk + "/" + tv, why))
                    label = (m[:13] + " -amx")
                    t = probe(path, ctx, fa, tk, tv, bins_without_amx())
                    e = estimate(path, ctx, fa, tk, tv, "avx512")
                if t is None or e is None:
                    agree = t is None and e is None
                    bad += not agree
                    print("%-18s %6d %2d %-9s | %s" % (label, ctx, fa, tk + "/" + tv,
                          "both refuse these options" if agree else
                          "MISMATCH: %s refuses them" % ("llama.cpp" if t is None else "tensorplan")))
                    continue
                cells = []
                for k in terms:
                    d = e[k] - t[k]
                    cells.append("%12d %+11d" % (t[k], d))
                    if k != "compute" and d != 0:
                        bad += 1
                    if k == "compute" and d < 0:
                        bad += 1
                tt = sum(t[k] for k in terms)
                te = sum(e[k] for k in terms)
                if te < tt:
                    bad += 1
                over = 100.0 * (e["compute"] - t["compute"]) / t["compute"]
                worst["compute_over"] = max(worst["compute_over"], over)
                if within >= 0 and over > within:
                    bad += 1
                stats["rows"] += 1
                stats["exact"] += e["compute"] == t["compute"]
                stats["in1"] += 0 <= over <= 1.0
                stats["in5"] += 0 <= over <= 5.0
                stats["graph"] += e["source"] == "graph"
                print("%-18s %6d %2d %-9s | %s | %+7.2f%%  (compute %+.1f%%, %s)" % (
                    label, ctx, fa, tk + "/" + tv, " | ".join(cells), 100.0 * (te - tt) / tt, over,
                    e["source"]))
print("mismatches: %d (model/KV/output must be exact; compute and total never below llama.cpp%s)" % (
    bad, "" if within < 0 else ", compute within %g %%" % within))
print("largest compute overestimate: %+.1f%%" % worst["compute_over"])
if stats["aborted"]:
    print("llama.cpp aborted on %d runs with its AMX variant (compared again without it, marked -amx)" %
          stats["aborted"])
print("compute: %d runs, %d from the planned graph; equal to the byte in %d, within 1 %% in %d, "
      "within 5 %% in %d" % (stats["rows"], stats["graph"], stats["exact"], stats["in1"], stats["in5"]))
sys.exit(1 if bad else 0)
