/*
 * format_bytes.c — byte counts with binary units for human output, with enough
 * decimals to tell two different values apart.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tensorplan/core.h"

static const char *const unit_names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

/* The unit for `bytes` at `decimals` places: a value that would round up to 1024.0
 * of a unit is shown in the next one. */
static int pick_unit(uint64_t bytes, int decimals, double *value) {
    double v = (double)bytes;
    int u = 0;
    double half_step = 0.5;
    for (int d = 0; d < decimals; d++)
        half_step /= 10.0;
    double limit = 1024.0 - half_step;
    while (u < 6 && (u == 0 ? bytes >= 1024 : v >= limit)) {
        v /= 1024.0;
        u++;
    }
    *value = v;
    return u;
}

static void format_at(uint64_t bytes, int decimals, char *buf, size_t cap) {
    double v;
    int u = pick_unit(bytes, decimals, &v);
    if (u == 0)
        snprintf(buf, cap, "%" PRIu64 " B", bytes);
    else
        snprintf(buf, cap, "%.*f %s", decimals, v, unit_names[u]);
}

const char *tp_format_bytes(uint64_t bytes, char *buf, size_t cap) {
    if (!buf || cap == 0) return buf;
    format_at(bytes, 1, buf, cap);
    return buf;
}

void tp_format_bytes_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t cap) {
    if (!abuf || !bbuf || cap == 0) return;
    static const int decimals[] = {1, 4};
    for (size_t k = 0; k < sizeof decimals / sizeof decimals[0]; k++) {
        int d = decimals[k];
        format_at(a, d, abuf, cap);
        format_at(b, d, bbuf, cap);
        if (a == b || strcmp(abuf, bbuf) != 0) return;
    }
    snprintf(abuf, cap, "%" PRIu64 " B", a);
    snprintf(bbuf, cap, "%" PRIu64 " B", b);
}
