/* Step sort (step_sort.h): stable LSD radix sort by step, 8 bits a pass. */
#include "plan/step_sort.h"

#include <string.h>

void tp__step_sort(tp__step_item *a, tp__step_item *tmp, size_t n) {
    if (n < 2) return;
    int64_t lo = a[0].t, hi = a[0].t;
    for (size_t i = 1; i < n; i++) {
        if (a[i].t < lo) lo = a[i].t;
        if (a[i].t > hi) hi = a[i].t;
    }
    uint64_t step_span = (uint64_t)hi - (uint64_t)lo; /* t - lo fits in 64 bits unsigned */
    tp__step_item *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64 && (step_span >> shift) != 0; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((((uint64_t)src[i].t - (uint64_t)lo) >> shift) & 255) + 1]++;
        for (size_t d = 1; d < 257; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            dst[count[(((uint64_t)src[i].t - (uint64_t)lo) >> shift) & 255]++] = src[i];
        tp__step_item *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}
