#!/usr/bin/env bash
# The malloc tracer of the onnxruntime memory benchmark (bench/ort_memory/malloc_trace.c and
# malloc_trace_summary.py) on a program whose allocations glibc serves in known ways: a 2 MiB
# block above glibc's initial mmap threshold (128 KiB) is mmapped; freeing it raises the
# threshold to its size (glibc's dynamic threshold, docs/runtime.md "Session 15"), so a 1 MiB
# block after it comes from the heap, which grows; freed and asked for again, the 1 MiB is served
# from the heap without growing it. The tracer must log each of these, with the heap state, and
# the summary must count one of each kind.
# usage: test_malloc_trace.sh /path/to/tensorplan (unused: the tracer is a bench tool)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -o "$work/malloc_trace.so" \
    "$root/bench/ort_memory/malloc_trace.c" -ldl -lpthread
cat >"$work/prog.c" <<'C'
#include <stdlib.h>
#include <string.h>
int main(void) {
    char *p = malloc(2u << 20);
    if (!p) return 1;
    memset(p, 1, 2u << 20);
    free(p);
    char *q = malloc(1u << 20);
    if (!q) return 1;
    memset(q, 2, 1u << 20);
    free(q);
    char *r = malloc(1u << 20);
    if (!r) return 1;
    memset(r, 3, 1u << 20);
    free(r);
    return 0;
}
C
cc -std=c11 -O0 -o "$work/prog" "$work/prog.c"
MT_OUT=$work/trace.txt LD_PRELOAD=$work/malloc_trace.so "$work/prog"
fail=0
n=$(grep -c "^[AF] " "$work/trace.txt" || true)
[ "$n" -ge 6 ] || { echo "FAIL: expected at least 6 traced events, got $n"; cat "$work/trace.txt"; fail=1; }
for want in "A .* 2097152 " "F .* 2097152 " "A .* 1048576 "; do
    grep -q "^$want" "$work/trace.txt" || { echo "FAIL: no event matching '$want'"; fail=1; }
done
summary=$(/usr/bin/python3 "$root/bench/ort_memory/malloc_trace_summary.py" "$work/trace.txt" 1048576)
echo "$summary" | tail -2
echo "$summary" | grep -q '1 grew the heap, 1 reused a hole, 1 mmapped' ||
    { echo "FAIL: expected one allocation of each kind"; echo "$summary"; fail=1; }
[ $fail -eq 0 ] && echo "malloc_trace: ok"
exit $fail
