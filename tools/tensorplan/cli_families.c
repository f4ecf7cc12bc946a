/* Numbered families of tensor names (cli_families.h). */
#include "cli_families.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The r-th run of decimal digits of s: [*b, *e). false when there is none. */
static bool digit_run(const char *s, int r, size_t *b, size_t *e) {
    size_t i = 0;
    for (int k = 0; s[i]; k++) {
        while (s[i] && !isdigit((unsigned char)s[i]))
            i++;
        if (!s[i]) return false;
        size_t start = i;
        while (isdigit((unsigned char)s[i]))
            i++;
        if (k == r) {
            *b = start;
            *e = i;
            return true;
        }
    }
    return false;
}

/* The number in s[b, e) when it has no leading zero and fits; else false. */
static bool number(const char *s, size_t b, size_t e, uint64_t *out) {
    if (e - b > 18 || (e - b > 1 && s[b] == '0')) return false;
    uint64_t v = 0;
    for (size_t i = b; i < e; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    *out = v;
    return true;
}

/* Does t equal s with s[b, e) replaced by another number? Its value goes to *v. */
static bool same_but_number(const char *s, size_t b, size_t e, const char *t, uint64_t *v) {
    size_t ls = strlen(s), lt = strlen(t), suffix = ls - e;
    if (lt < b + suffix + 1 || strncmp(s, t, b) != 0 || strcmp(s + e, t + lt - suffix) != 0)
        return false;
    size_t te = lt - suffix;
    for (size_t i = b; i < te; i++)
        if (!isdigit((unsigned char)t[i])) return false;
    return number(t, b, te, v);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* "prefix{0..3,5}suffix" into label (truncated to its capacity). */
static void write_label(char *label, size_t cap, const char *s, size_t b, size_t e, uint64_t *vals,
                        uint32_t n) {
    qsort(vals, n, sizeof *vals, cmp_u64);
    size_t len = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w_ = snprintf(label + len, len < cap ? cap - len : 0, __VA_ARGS__);                    \
        if (w_ > 0) len += (size_t)w_;                                                             \
    } while (0)
    PUT("%.*s{", (int)b, s);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j + 1 < n && vals[j + 1] == vals[j] + 1)
            j++;
        PUT("%s%llu", i ? "," : "", (unsigned long long)vals[i]);
        if (j > i) PUT("%s%llu", j == i + 1 ? "," : "..", (unsigned long long)vals[j]);
        i = j + 1;
    }
    PUT("}%s", s + e);
#undef PUT
}

uint32_t tp_cli_name_families(const char *const *names, const char *const *keys, uint32_t n,
                              tp_cli_family *out, uint32_t *family_of) {
    const uint32_t none = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        family_of[i] = none;
    uint64_t *vals = n ? malloc(n * sizeof *vals) : NULL;
    uint32_t nf = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (family_of[i] != none) continue;
        const char *s = names[i];
        tp_cli_family *f = &out[nf];
        f->first = i;
        f->count = 1;
        family_of[i] = nf;
        /* the digit run whose variation gathers the most ungrouped names */
        int best_run = -1;
        uint32_t best = 1;
        size_t b, e;
        uint64_t v;
        for (int r = 0; vals && digit_run(s, r, &b, &e); r++) {
            if (!number(s, b, e, &v)) continue;
            uint32_t c = 1;
            for (uint32_t j = i + 1; j < n; j++)
                if (family_of[j] == none && strcmp(keys[i], keys[j]) == 0 &&
                    same_but_number(s, b, e, names[j], &v))
                    c++;
            if (c > best) {
                best = c;
                best_run = r;
            }
        }
        if (best_run < 0) {
            snprintf(f->label, sizeof f->label, "%s", s);
            nf++;
            continue;
        }
        digit_run(s, best_run, &b, &e);
        number(s, b, e, &vals[0]);
        for (uint32_t j = i + 1; j < n; j++)
            if (family_of[j] == none && strcmp(keys[i], keys[j]) == 0 &&
                same_but_number(s, b, e, names[j], &v)) {
                family_of[j] = nf;
                vals[f->count++] = v;
            }
        write_label(f->label, sizeof f->label, s, b, e, vals, f->count);
        nf++;
    }
    free(vals);
    return nf;
}
