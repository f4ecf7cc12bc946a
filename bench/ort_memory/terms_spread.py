"""How far the onnxruntime profile's terms are from the measured growth before its margins.

usage: for f in bench/ort_memory/measured*.jsonl; do
           /usr/bin/python3 bench/ort_memory/compare.py build/tensorplan $f --terms; done |
       /usr/bin/python3 bench/ort_memory/terms_spread.py

Reads compare.py --terms lines on stdin. For each measured row, the model-dependent terms plus
the measured session cost ('dep' + 'session': the prediction without the calibration margin,
the relative margin and the spread allowance) against the median run and the highest run. The
margins exist because these terms fall below some runs: this prints how many and by how much,
and how many rows the terms alone hold within +-10 % (docs/runtime.md, "Session 33")."""
import json
import statistics
import sys


def main():
    rows = []
    for line in sys.stdin:
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if 'dep' not in d or 'session' not in d:
            continue
        terms = d['dep'] + d['session']
        rows.append((terms / d['measured'] - 1, terms / max(d['runs']) - 1, d['model'], d['set']))
    if not rows:
        sys.exit('no compare.py --terms rows on stdin')
    med = [r[0] for r in rows]
    print('%d rows: terms + session cost against the median run: min %+.1f %%, median %+.1f %%, '
          'max %+.1f %%' % (len(rows), 100 * min(med), 100 * statistics.median(med), 100 * max(med)))
    print('below the median run: %d; below the highest run: %d; within +-10 %% of the median: %d'
          % (sum(r[0] < 0 for r in rows), sum(r[1] < 0 for r in rows),
             sum(abs(r[0]) <= 0.10 for r in rows)))
    ordered = sorted(rows)
    for r in ordered[:5] + ordered[-5:]:
        print('  %+6.1f %% (highest run %+6.1f %%)  %s  %s' % (100 * r[0], 100 * r[1], r[2], r[3]))


if __name__ == '__main__':
    main()
