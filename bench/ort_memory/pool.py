#!/usr/bin/python3
"""Pool several measure.sh outputs of the same models into one: every run of each model in
"runs" (and "runs_file"), "growth_bytes" their median (an odd count: the middle run), the load
averages of the batches in "loads". The other per-process fields (after_create_hwm, ...) stay
those of the first batch's median run.

Usage: /usr/bin/python3 bench/ort_memory/pool.py A.jsonl B.jsonl ... > POOLED.jsonl
"""
import json
import sys

order, pooled = [], {}
for path in sys.argv[1:]:
    for line in open(path):
        m = json.loads(line)
        if m['model'] not in pooled:
            order.append(m['model'])
            pooled[m['model']] = dict(m, runs=[], runs_file=[], loads=[])
        p = pooled[m['model']]
        runs = m.get('runs', [m['growth_bytes']])
        p['runs'] += list(zip(runs, m.get('runs_file', [None] * len(runs))))
        p['loads'].append(m.get('load'))
for model in order:
    p = pooled[model]
    pairs = sorted(p['runs'], key=lambda r: r[0])  # each run's file growth stays with its run
    p['runs'] = [r[0] for r in pairs]
    p['runs_file'] = [r[1] for r in pairs]
    p['growth_bytes'] = p['runs'][(len(p['runs']) - 1) // 2]
    p.pop('load', None)
    print(json.dumps(p))
