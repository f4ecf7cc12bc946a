#!/usr/bin/python3
"""Summarize a trace of bench/ort_memory/malloc_trace.c (malloc_trace.sh runs both).

Usage: malloc_trace_summary.py TRACE [SHOW_BYTES]   (default 1 MiB)
Prints every traced allocation and free of at least SHOW_BYTES with glibc's heap state beside it,
then the largest heap, the most bytes in mmapped chunks, the largest resident set seen, and how
the large allocations were served: by growing the heap (new pages), from a hole an earlier free
left in the heap, or by mmap (returned to the system when freed).
"""
import sys

MiB = 1048576.0
show = int(sys.argv[2]) if len(sys.argv) > 2 else 1048576
heap = mmap = rss = 0
served = {'grew the heap': 0, 'reused a hole': 0, 'mmapped': 0}
prev = None  # the heap and mmapped bytes of the event before
print('# event  size_MiB  heap_MiB  mmap_MiB  used_MiB  free_MiB  rss_MiB')
for line in open(sys.argv[1]):
    f = line.split()
    kind, size = f[0], int(f[2])
    h, m, u, fr, r = int(f[4]), int(f[6]), int(f[8]), int(f[10]), int(f[12])
    # an A line's state is taken after the allocation, an F line's before the free: what an
    # allocation took shows against the event before it
    if kind == 'A' and size >= show and prev is not None:
        key = 'grew the heap' if h - prev[0] >= 0.9 * size else 'mmapped' if m - prev[1] >= 0.9 * size else 'reused a hole'
        served[key] += 1
    prev = (h, m)
    if kind == 'S':
        continue
    heap, mmap, rss = max(heap, h), max(mmap, m), max(rss, r)
    if size >= show:
        print('%s %9.3f %9.2f %9.2f %9.2f %9.2f %8.2f' % (kind, size / MiB, h / MiB, m / MiB, u / MiB, fr / MiB, r / MiB))
print('# largest heap %.2f MiB, most in mmapped chunks %.2f MiB, largest resident set seen %.2f MiB' % (heap / MiB, mmap / MiB, rss / MiB))
print('# allocations of at least %.2f MiB: %s' % (show / MiB, ', '.join('%d %s' % (n, k) for k, n in served.items())))
