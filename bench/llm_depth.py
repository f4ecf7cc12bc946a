"""LLM throughput at depth: tensorplan estimate --speed cpu --depth D against llama-bench -d D.

usage: /usr/bin/python3 bench/llm_depth.py TENSORPLAN LLAMA_BENCH MODEL_DIR RESULT_DIR
           --models a,b [--depths 0,2048,8192] [--threads 1] [--gen 64] [--reps 2]

llama-bench -p 512 -n GEN -d D (every depth in one run per model; cached in
RESULT_DIR/<model>-t<T>-depth.jsonl, delete to measure again), the median sample of each test,
against tensorplan's prediction at the same depth and thread count (its CPU calibration at T
threads: calibrate in the same quiet window). Prints per model and depth the predicted and
measured pp / tg and their errors, then the same for the time a test gains from depth 0 (the
attention's share: what the depth adds). The fit set of src/estimate/llm_speed.c's flash-attention
rates: bench/llm_speed.sh's (20m, 120m, 400m, moe40m) and 120mhd128 (heads of 128, which tell
the per-score cost from the per-element one); the others are held out (150mhd96, 850m, the MoEs).
docs/estimate.md, "Session 34"."""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from llm_speed import FIT, LOAD_MODE  # noqa: E402  (the benchmark's fit set and load mode)

DEPTH_FIT = FIT | {"120mhd128"}


def opts():
    a = sys.argv[1:]
    o = {"models": None, "depths": "0,2048,8192", "threads": "1", "gen": "64", "reps": "2"}
    pos = []
    i = 0
    while i < len(a):
        if a[i].startswith("--") and a[i][2:] in o and i + 1 < len(a):
            o[a[i][2:]] = a[i + 1]
            i += 2
        else:
            pos.append(a[i])
            i += 1
    if len(pos) != 4 or not o["models"]:
        sys.exit(__doc__)
    return pos, o


def measure(lb, gguf, out, o):
    """{(test, depth): tokens per second}, llama-bench's median sample."""
    if not os.path.exists(out):
        r = subprocess.run([lb, "-m", gguf, "-t", o["threads"], "-p", "512", "-n", o["gen"], "-d", o["depths"],
                            "-r", o["reps"], "-lm", LOAD_MODE, "-o", "jsonl"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("llama-bench failed on %s:\n%s" % (gguf, r.stderr[-2000:]))
        with open(out + ".tmp", "w") as f:
            f.write(r.stdout)
        os.replace(out + ".tmp", out)
    res = {}
    for line in open(out):
        r = json.loads(line)
        res[("pp" if r["n_prompt"] else "tg", r["n_depth"])] = statistics.median(r["samples_ts"])
    return res


def predict(tp, gguf, o, depth):
    r = subprocess.run([tp, "estimate", gguf, "--speed", "cpu", "--threads", o["threads"], "--gen", o["gen"],
                        "--depth", str(depth), "--json", "-q"], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        sys.exit("tensorplan failed on %s:\n%s" % (gguf, r.stderr))
    s = json.loads(r.stdout)["speed"][0]
    return {"pp": s["prefill_tps"], "tg": s["decode_tps"]}


def main():
    (tp, lb, mdir, rdir), o = opts()
    os.makedirs(rdir, exist_ok=True)
    depths = [int(d) for d in o["depths"].split(",")]
    n = {"pp": 512, "tg": int(o["gen"])}
    fmt = "%-14s %-8s %6s %9s %9s %7s %9s %9s %7s %13s %13s"
    print(fmt % ("model", "set", "depth", "pp pred", "pp meas", "err", "tg pred", "tg meas", "err",
                 "pp +ms pred/meas", "tg +ms pred/meas"))
    errs = {}
    for m in o["models"].split(","):
        part = "fit" if m.split("_")[1] in DEPTH_FIT else "held-out"
        gguf = os.path.join(mdir, m + ".gguf")
        meas = measure(lb, gguf, os.path.join(rdir, "%s-t%s-depth.jsonl" % (m, o["threads"])), o)
        pred = {d: predict(tp, gguf, o, d) for d in depths}
        for d in depths:
            e = {t: pred[d][t] / meas[(t, d)] - 1 for t in ("pp", "tg")}
            for t in e:
                errs.setdefault((part, t, d > 0), []).append(abs(e[t]))
            extra = []
            for t in ("pp", "tg"):  # ms the test gains from depth 0 (the whole test)
                if d == depths[0]:
                    extra.append("")
                    continue
                dp = 1e3 * n[t] * (1 / pred[d][t] - 1 / pred[depths[0]][t])
                dm = 1e3 * n[t] * (1 / meas[(t, d)] - 1 / meas[(t, depths[0])])
                extra.append("%.0f/%.0f" % (dp, dm))
            print(fmt % (m[6:] if m.startswith("speed_") else m, part, d, "%.1f" % pred[d]["pp"],
                         "%.1f" % meas[("pp", d)], "%+.0f%%" % (100 * e["pp"]), "%.1f" % pred[d]["tg"],
                         "%.1f" % meas[("tg", d)], "%+.0f%%" % (100 * e["tg"]), extra[0], extra[1]))
    for (part, t, deep), v in sorted(errs.items()):
        print("%s %s %s: mean |error| %.1f%% over %d" % (part, t, "depth > 0" if deep else "depth 0",
                                                         100 * sum(v) / len(v), len(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
