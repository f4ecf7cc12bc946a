"""llama.cpp's decode gain from more threads, fitted on bench/llm_speed.sh's measurements.

usage: llm_thread_gain.py TENSORPLAN MODELDIR RESULTDIR:CACHEDIR [RESULTDIR:CACHEDIR ...]

Each RESULTDIR holds llama-bench results of one window (bench/llm_speed.sh --threads 1,2 writes
them to .fixtures-local/llm_speed/results); CACHEDIR is an XDG_CACHE_HOME whose tensorplan/
holds the 1- and 2-thread calibrations taken in that window. The gain is fitted on the ratio of
the thread counts, which cancels what the one-thread step gets wrong: the geometric mean, over
the fit set's decode figures, of measured (2t / 1t) over predicted (2t at gain 1 / 1t), where
the 2-thread step at gain g is the one-thread step (memory + arithmetic) / g plus the 2-thread
overhead (the read-curve floor of src/estimate/llm_speed.c is left out). Then every model's
2-thread decode error at G (env, default 1.65). docs/estimate.md, "Session 33"."""
import json
import math
import os
import statistics
import subprocess
import sys

FIT = {"20m", "120m", "400m", "moe40m"}


def measured(rdir, m, t):
    for line in open(os.path.join(rdir, "%s-t%d.jsonl" % (m, t))):
        r = json.loads(line)
        if r.get("n_gen", 0) > 0 and r.get("n_prompt", 1) == 0:
            return statistics.median(r["samples_ts"])
    return None


def predicted(tp, cdir, gguf, t):
    env = dict(os.environ, XDG_CACHE_HOME=cdir)
    r = subprocess.run([tp, "estimate", gguf, "--speed", "cpu", "--threads", str(t), "--json", "-q"],
                       capture_output=True, text=True, env=env)
    if r.returncode not in (0, 3):
        sys.exit("tensorplan failed on %s:\n%s" % (gguf, r.stderr))
    return json.loads(r.stdout)["speed"][0]


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tp, mdir = sys.argv[1:3]
    rows = []
    for win in sys.argv[3:]:
        rdir, cdir = win.split(":")
        for f in sorted(os.listdir(mdir)):
            m = f[:-5]
            if not f.endswith(".gguf") or not os.path.exists(os.path.join(rdir, m + "-t2.jsonl")):
                continue
            p1 = predicted(tp, cdir, os.path.join(mdir, f), 1)
            p2 = predicted(tp, cdir, os.path.join(mdir, f), 2)
            rows.append(dict(win=os.path.basename(rdir.rstrip("/")), m=m, fit=m.split("_")[1] in FIT,
                             t1m=measured(rdir, m, 1), t2m=measured(rdir, m, 2), t1p=p1["decode_tps"],
                             b1=p1["decode_memory_ns"] + p1["decode_kernel_ns"],
                             o2=p2["decode_overhead_ns"]))

    def t2(r, g):
        return 1e9 / (r["b1"] / g + r["o2"])

    for name, sel in (("fit set", lambda r: r["fit"]),
                      ("fit set, dense >= 120 M", lambda r: r["fit"] and not r["m"].startswith(("speed_20m", "speed_moe40m")))):
        ratios = [(r["t2m"] / r["t1m"]) / (t2(r, 1.0) / r["t1p"]) for r in rows if sel(r)]
        if ratios:
            print("%-24s gain %.3f over %d decode figures" % (name, gmean(ratios), len(ratios)))
    g = float(os.environ.get("G", "1.65"))
    print("decode error at gain %.2f (1 thread, 2 threads):" % g)
    for r in rows:
        print("  %-22s %-8s %-16s %+6.1f %%  %+6.1f %%" % (r["m"], "fit" if r["fit"] else "held-out", r["win"],
              100 * (r["t1p"] / r["t1m"] - 1), 100 * (t2(r, g) / r["t2m"] - 1)))


if __name__ == "__main__":
    main()
