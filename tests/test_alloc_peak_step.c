/* tp__alloc_peak_step (alloc_sweep_peak.c; the class split and the peak-out sweep start
 * there) against brute force on 400 random sets: the step returned is a birth step, the
 * bytes alive there are the most alive at any step (the lower bound), and no earlier birth
 * step has as many. Steps are compact (1-50), wide (up to 2^40) or spread over the whole
 * int64 range (deaths up to INT64_MAX), so the radix sort takes 1 to 8 passes; many ties. */
#include "harness.h"
#include "test_rng.h"

#include "plan/alloc_exact.h"
#include "plan/alloc_internal.h"

static uint64_t live_at(const tp_buffer *b, size_t n, int64_t t) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].birth <= t && t <= b[i].death) s += b[i].size + b[i].tail_guard;
    return s;
}

static int64_t rnd_step(int mode) {
    switch (mode) {
    case 0:
        return (int64_t)rnd_below(50);
    case 1:
        return (int64_t)(rnd_below(1u << 20) << 20);
    default:
        return (int64_t)(rnd() >> 1);
    }
}

TP_TEST(peak_step_matches_brute_force) {
    rng_state = 31337;
    for (int set = 0; set < 400 && !tp_test_cur_failed_; set++) {
        int mode = set % 3;
        size_t n = 1 + (size_t)rnd_below(120);
        tp_buffer *b = calloc(n, sizeof *b);
        for (size_t i = 0; i < n; i++) {
            b[i].id = (int64_t)i;
            b[i].fixed_offset = -1;
            b[i].size = rnd_below(4) == 0 ? 0 : 1 + rnd_below(1000);
            b[i].tail_guard = rnd_below(3) == 0 ? rnd_below(64) : 0;
            int64_t x = rnd_step(mode), y = rnd_step(mode);
            b[i].birth = x < y ? x : y;
            b[i].death = x < y ? y : x;
            if (mode == 2 && rnd_below(8) == 0) b[i].death = INT64_MAX;
        }
        int64_t p = -1;
        tp_error e;
        TP_CHECK_OK(tp__alloc_peak_step(b, n, NULL, &p, &e), &e);
        uint64_t best = 0;
        int64_t first = INT64_MAX;
        for (size_t i = 0; i < n; i++) {
            uint64_t l = live_at(b, n, b[i].birth);
            if (l > best || (l == best && b[i].birth < first)) {
                best = l;
                first = b[i].birth;
            }
        }
        uint64_t lb;
        TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &e), &e);
        TP_CHECK_EQ_U64(best, lb);
        TP_CHECK_EQ_U64(live_at(b, n, p), best);
        TP_CHECK_EQ_I64(p, first);
        free(b);
    }
}

int main(void) {
    TP_RUN(peak_step_matches_brute_force);
    return tp_test_finish();
}
