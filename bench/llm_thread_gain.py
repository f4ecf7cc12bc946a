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
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from llm_speed import FIT, measure, predict  # noqa: E402  (the benchmark's own reading and rules)


def decode_tps(rdir, m, t):
    """The stored llama-bench decode rate (never measures: the file must exist)."""
    return measure(None, None, os.path.join(rdir, "%s-t%d.jsonl" % (m, t)), t, None)[1]


def predicted(tp, cdir, gguf, t):
    os.environ["XDG_CACHE_HOME"] = cdir  # the window's calibrations
    return predict(tp, gguf, t, False)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tp, mdir = sys.argv[1:3]
    rows = []
    for win in sys.argv[3:]:
        rdir, cdir = win.split(":")
        for f in sorted(os.listdir(mdir)):
            m = f[:-5]
            if not f.endswith(".gguf") or not all(
                    os.path.exists(os.path.join(rdir, "%s-t%d.jsonl" % (m, t))) for t in (1, 2)):
                continue
            p1 = predicted(tp, cdir, os.path.join(mdir, f), 1)
            p2 = predicted(tp, cdir, os.path.join(mdir, f), 2)
            rows.append(dict(win=os.path.basename(rdir.rstrip("/")), m=m, fit=m.split("_")[1] in FIT,
                             t1m=decode_tps(rdir, m, 1), t2m=decode_tps(rdir, m, 2), t1p=p1["decode_tps"],
                             b1=p1["decode_memory_ns"] + p1["decode_kernel_ns"],
                             o2=p2["decode_overhead_ns"]))

    def t2(r, g):
        return 1e9 / (r["b1"] / g + r["o2"])

    for name, sel in (("fit set", lambda r: r["fit"]),
                      ("fit set, dense >= 120 M", lambda r: r["fit"] and not r["m"].startswith(("speed_20m", "speed_moe40m")))):
        ratios = [(r["t2m"] / r["t1m"]) / (t2(r, 1.0) / r["t1p"]) for r in rows if sel(r)]
        if ratios:
            print("%-24s gain %.3f over %d decode figures" % (name, statistics.geometric_mean(ratios), len(ratios)))
    g = float(os.environ.get("G", "1.65"))
    print("decode error at gain %.2f (1 thread, 2 threads):" % g)
    for r in rows:
        print("  %-22s %-8s %-16s %+6.1f %%  %+6.1f %%" % (r["m"], "fit" if r["fit"] else "held-out", r["win"],
              100 * (r["t1p"] / r["t1m"] - 1), 100 * (t2(r, g) / r["t2m"] - 1)))


if __name__ == "__main__":
    main()
