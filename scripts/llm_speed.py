"""Predicted (tensorplan estimate --speed cpu) vs measured (llama-bench) LLM throughput.

usage: /usr/bin/python3 scripts/llm_speed.py TENSORPLAN LLAMA_BENCH MODEL_DIR RESULT_DIR
           [--models a,b,...] [--threads 1,2] [--reps N] [--check] [--fit] [--no-amx]

For each model (MODEL_DIR/<name>.gguf) and thread count: llama-bench -p 512 -n 128 -r N -o jsonl
(cached in RESULT_DIR/<name>-t<T>.jsonl; delete to measure again), the median sample of each test
(llama-bench's own wall clock: run it on a quiet machine; decode moves with the memory bandwidth
the host leaves this machine, +-15 % within minutes here), and tensorplan's prediction at the
same thread count (its CPU calibration at T threads; calibrate in the same quiet window).
LLM_SPEED_CPU=1 measures one thread by CPU time instead (measure_cpu), which survives other
jobs on the machine only where they do not share the core or its memory bandwidth. Prints one row per model and thread count
with the load average at measurement time. --check: exit 1 when an error exceeds the band the
prediction itself states (error_band). --fit: print, per weight type and test, the geometric mean
over the fit set of predicted / measured (MoE models apart for prefill: their expert GEMMs have
their own factor). The refit divides each prefill factor by its ratio and scales each decode
factor until its ratio is 1 (decode adds arithmetic and reads, so the ratio is not linear in the
factor); docs/estimate.md, "Throughput".
--no-amx: on a CPU with AMX, llama-bench without ggml's AMX variant (an AVX-512 one loads: the
other CPU backend variants linked beside it in a temporary folder) against tensorplan's
--repack avx512 (no AMX kernels); results cached as <name>-t<T>-noamx.jsonl."""
import json
import os
import shutil
import statistics
import subprocess
import sys

from llama_variants import folder_without_amx

FIT = {"20m", "120m", "400m", "moe40m"}  # the fit set; 850m and moe are held out
# llama-bench's weight loading: "none" reads the file into memory. With the default mmap the
# weights stay file pages, and on this virtual machine the host's memory management makes
# decode erratic (850m q4_0 tg32: 23-29 t/s mapped against 43-44 read in, same minute);
# LLM_SPEED_LOAD_MODE=auto measures what llama.cpp does by default.
LOAD_MODE = os.environ.get("LLM_SPEED_LOAD_MODE", "none")


def args():
    a = sys.argv[1:]
    opts = {"models": None, "threads": "1", "reps": "3", "check": False, "fit": False, "no-amx": False}
    pos = []
    i = 0
    while i < len(a):
        if a[i] in ("--models", "--threads", "--reps"):
            opts[a[i][2:]] = a[i + 1]
            i += 2
        elif a[i] in ("--check", "--fit", "--no-amx"):
            opts[a[i][2:]] = True
            i += 1
        else:
            pos.append(a[i])
            i += 1
    if len(pos) != 4:
        sys.exit(__doc__)
    return pos, opts


def cpu_seconds(cmd):
    """CPU time (user + sys) of a child process."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("llama-bench failed: %s\n%s" % (" ".join(cmd), p.stderr.read().decode()[-2000:]))
    return ru.ru_utime + ru.ru_stime


def measure_cpu(lb, gguf, out, reps):
    """One thread, by CPU time: the shared machine's other jobs do not count. llama-bench runs
    each test with -r 1 and with -r 1+reps (no warm-up); the difference / reps is the CPU time
    of one run (loading and setup cancel)."""
    if not os.path.exists(out):
        load = float(open("/proc/loadavg").read().split()[0])
        res = {"loadavg": load, "method": "cpu-time"}
        for test, pn in (("pp", ["-p", "512", "-n", "0"]), ("tg", ["-p", "0", "-n", "128"])):
            base = [lb, "-m", gguf, "-t", "1", "--no-warmup", "-lm", LOAD_MODE] + pn
            one = cpu_seconds(base + ["-r", "1"])
            more = cpu_seconds(base + ["-r", str(1 + int(reps))])
            per = (more - one) / int(reps)
            res[test] = (512 if test == "pp" else 128) / per if per > 0 else 0
        with open(out + ".tmp", "w") as f:
            f.write(json.dumps(res) + "\n")
        os.replace(out + ".tmp", out)
    r = json.loads(open(out).readline())
    return r["pp"], r["tg"], r["loadavg"]


def measure(lb, gguf, out, threads, reps):
    if str(threads) == "1" and os.environ.get("LLM_SPEED_CPU") == "1":
        return measure_cpu(lb, gguf, out.replace(".jsonl", "-cpu.json"), reps)
    if not os.path.exists(out):
        load = open("/proc/loadavg").read().split()[0]
        r = subprocess.run([lb, "-m", gguf, "-t", str(threads), "-p", "512", "-n", "128", "-r", str(reps),
                            "-lm", LOAD_MODE, "-o", "jsonl"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("llama-bench failed on %s:\n%s" % (gguf, r.stderr[-2000:]))
        with open(out + ".tmp", "w") as f:
            f.write(r.stdout)
            f.write(json.dumps({"loadavg": float(load)}) + "\n")
        os.replace(out + ".tmp", out)
    pp = tg = None
    load = None
    for line in open(out):
        r = json.loads(line)
        if "loadavg" in r:
            load = r["loadavg"]
        elif r["n_prompt"]:
            pp = statistics.median(r["samples_ts"])
        else:
            tg = statistics.median(r["samples_ts"])
    return pp, tg, load


def predict(tp, gguf, threads, no_amx):
    r = subprocess.run([tp, "estimate", gguf, "--speed", "cpu", "--threads", str(threads), "--json", "-q"] +
                       (["--repack", "avx512"] if no_amx else []), capture_output=True, text=True)
    if r.returncode not in (0, 3):
        sys.exit("tensorplan failed on %s:\n%s" % (gguf, r.stderr))
    return json.loads(r.stdout)["speed"][0]


def main():
    (tp, lb, mdir, rdir), o = args()
    os.makedirs(rdir, exist_ok=True)
    tmp, tag = None, ""
    if o["no-amx"]:
        tmp = folder_without_amx(os.path.dirname(os.path.abspath(lb)), copy=(os.path.basename(lb),))
        lb = os.path.join(tmp, os.path.basename(lb))
        tag = "-noamx"
    try:
        return compare(tp, lb, mdir, rdir, o, tag)
    finally:
        if tmp:
            shutil.rmtree(tmp)


def compare(tp, lb, mdir, rdir, o, tag):
    models = o["models"].split(",") if o["models"] else sorted(
        f[:-5] for f in os.listdir(mdir) if f.startswith("speed_") and f.endswith(".gguf"))
    fails = 0
    fmt = "%-16s %-5s %2s %9s %9s %7s %9s %9s %7s %5s  %s"
    print(fmt % ("model", "set", "t", "pp pred", "pp meas", "err", "tg pred", "tg meas", "err", "load", "tg bound"))
    errs = {"fit": [], "held-out": []}
    ratios = {}
    for m in models:
        size = m.split("_")[1]
        part = "fit" if size in FIT else "held-out"
        for t in o["threads"].split(","):
            pp, tg, load = measure(lb, os.path.join(mdir, m + ".gguf"), os.path.join(rdir, "%s-t%s%s.jsonl" % (m, t, tag)),
                                   t, o["reps"])
            p = predict(tp, os.path.join(mdir, m + ".gguf"), t, o["no-amx"])
            e_pp = p["prefill_tps"] / pp - 1
            e_tg = p["decode_tps"] / tg - 1
            errs[part] += [abs(e_pp), abs(e_tg)]
            band = p["error_band"]
            bad = band > 0 and (abs(e_pp) > band or abs(e_tg) > band)
            fails += bad
            print(fmt % (m[6:], part, t, "%.1f" % p["prefill_tps"], "%.1f" % pp, "%+.0f%%" % (100 * e_pp),
                         "%.1f" % p["decode_tps"], "%.1f" % tg, "%+.0f%%" % (100 * e_tg),
                         "%.1f" % load if load is not None else "?", p["decode_bound"] + (" OUT OF BAND" if bad else "")))
            if part == "fit":
                moe = size.startswith("moe")
                ratios.setdefault(("prefill (MoE)" if moe else "prefill", p["weight_type"]), []).append(
                    p["prefill_tps"] / pp)
                ratios.setdefault(("decode", p["weight_type"]), []).append(p["decode_tps"] / tg)
    for k, v in errs.items():
        if v:
            print("%s: mean |error| %.1f%%, max %.1f%% over %d figures" % (k, 100 * sum(v) / len(v),
                                                                         100 * max(v), len(v)))
    print("basis: %s\nkernel: %s" % (p["basis"], p["kernel"]))
    if o["fit"]:
        for (test, wtype), v in sorted(ratios.items()):
            print("fit %s %s: predicted / measured %.3f (geometric mean of %d)" % (
                test, wtype, statistics.geometric_mean(v), len(v)))
    if o["check"] and fails:
        print("%d row(s) outside the stated error band" % fails)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
