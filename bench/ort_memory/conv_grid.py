#!/usr/bin/python3
"""The Conv factor and its intercept on every run of every measured set (docs/runtime.md,
"Session 16"): reads compare.py --terms of this build and re-prices each model with another Conv
factor and intercept, keeping the profile's other terms, its 5.5 % margin and its 998,625-byte
unseen-model allowance (src/estimate/runtime_ort.c).

Usage: /usr/bin/python3 bench/ort_memory/conv_grid.py TERMS.jsonl [--built PERMILLE]
           [--sets a,b,...] [--point PERMILLE,INTERCEPT ...] [--needed]
  (default)  the 25-per-mille grid 1475..2100: at each factor the smallest intercept that keeps
             every run at or below the prediction, the mean and largest error over the medians
             and how many medians are within +10 %
  --point    per set at that factor and intercept: the error over the medians and over the
             highest runs, how many within +10 %, how many runs below (repeatable)
  --needed   per model with at least 10 MiB of re-laid-out Conv weights: the Conv factor that
             would put its median and its highest run exactly on the session constant plus its
             other terms, without the intercept and the margins (what its Conv weights take,
             and what the other terms miss)
--built: the Conv factor the TERMS were computed with (default 1650, the shipped one).
TERMS: for f in bench/ort_memory/measured*.jsonl; do compare.py build/tensorplan $f --terms; done
"""
import json
import sys

MIB = 1 << 20
FIXED = 27721728      # the measured session constant (session_fixed_bytes)
SPREAD = 998625       # the unseen-model allowance (ORT_SPREAD_BYTES)
MARGIN = 1.055        # 5.5 % on the model-dependent terms (ORT_SAFETY_MARGIN_PM)


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def relaid(r):
    """the Conv weights the factor applies to (all Conv weights but the ones read as loaded)"""
    return r['conv'] - (r.get('conv_flat') or 0)


def main():
    rows = [json.loads(l) for l in open(sys.argv[1])]
    built = int(arg('--built', '1650'))
    sets = arg('--sets')
    if sets:
        rows = [r for r in rows if r['set'] in sets.split(',')]

    def pred(r, pm, intercept):
        return FIXED + intercept + SPREAD + MARGIN * (r['dep'] + (pm - built) / 1000 * relaid(r))

    def stats(rs, pm, intercept):
        e = [pred(r, pm, intercept) / r['measured'] - 1 for r in rs]
        h = [pred(r, pm, intercept) / max(r['runs']) - 1 for r in rs]
        below = sum(1 for r in rs for x in r['runs'] if pred(r, pm, intercept) < x)
        return e, h, below

    if '--needed' in sys.argv:
        out = []
        for r in rows:
            w = relaid(r)
            if w < 10 * MIB:
                continue
            # what the re-laid-out Conv weights would have to take for the measurement to equal
            # the session constant plus the model's terms, without the intercept and the margins:
            # their own bytes and their copies, plus whatever the other terms miss
            f = [built / 1000 + (x - FIXED - r['dep']) / w for x in (r['measured'], max(r['runs']))]
            out.append((f[1], f[0], r['model'], r['set'], w / MIB))
        for hi, med, m, s, w in sorted(out):
            print('%-26s %-11s Conv %6.1f MiB  factor (median) %.2f  (highest run) %.2f' %
                  (m, s, w, med, hi))
        return 0
    points = [p for i, p in enumerate(sys.argv) if i > 0 and sys.argv[i - 1] == '--point']
    if points:
        for p in points:
            pm, intercept = (int(v) for v in p.split(','))
            print('== Conv factor %.3f, intercept %d B' % (pm / 1000, intercept))
            by = {}
            for r in rows:
                by.setdefault(r['set'], []).append(r)
            for s, rs in by.items():
                e, h, below = stats(rs, pm, intercept)
                print('  %-12s %3d models  median %+6.1f … %+6.1f %%, mean |error| %5.1f %%, '
                      '%d within +10 %%; highest run mean %5.1f %%; runs below %d' % (
                          s, len(rs), 100 * min(e), 100 * max(e),
                          100 * sum(map(abs, e)) / len(e), sum(1 for x in e if 0 <= x <= 0.1),
                          100 * sum(map(abs, h)) / len(h), below))
        return 0
    print('%7s %12s %7s %7s %8s' % ('factor', 'intercept B', 'mean %', 'max %', '<=+10 %'))
    for pm in range(1475, 2101, 25):
        need = max(x - pred(r, pm, 0) for r in rows for x in r['runs'])
        e, _, _ = stats(rows, pm, need)
        print('%7.3f %12.0f %7.1f %7.1f %5d/%d' % (pm / 1000, need, 100 * sum(e) / len(e),
                                                   100 * max(e), sum(1 for x in e if x <= 0.10),
                                                   len(e)))
    return 0


sys.exit(main())
