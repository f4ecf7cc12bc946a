/* libFuzzer target for the strict reader of a flat JSON object of integers
 * (src/core/json_ints.h: the CLI's --dims FILE.json).
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_json_ints
 * Run:   build-fuzz/fuzz/fuzz_json_ints fuzz/corpus/json_ints -max_total_time=600
 *
 * The body is tp_fuzz_json_ints(); tests/test_fuzz_replay.c replays
 * fuzz/corpus/json_ints/ through it. Invariants (abort() on violation): a
 * failed read returns TP_ERR_PARSE with a message that starts "offset N:" where
 * N <= the input length; a successful read gives names that are valid UTF-8
 * without NUL of at most TP_JSON_INTS_NAME_MAX bytes, at increasing offsets,
 * and the members written back as JSON (names escaped) read back to the same
 * names and values; a callback that refuses the k-th member stops the read
 * there with its own status.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_ints.h"

int tp_fuzz_json_ints(const uint8_t *data, size_t size);

#define FZ_JI_MAX 4096 /* members kept for the round trip */

typedef struct fz_ji_members {
    size_t n, seen, stop_at;
    size_t last_offset;
    char *names[FZ_JI_MAX];
    int64_t values[FZ_JI_MAX];
} fz_ji_members;

static void fz_ji_check(bool ok) {
    if (!ok) abort();
}

static tp_status fz_ji_member(void *user, const char *name, int64_t value, size_t offset,
                              tp_error *err) {
    fz_ji_members *m = user;
    size_t len = strlen(name);
    fz_ji_check(len <= TP_JSON_INTS_NAME_MAX);
    fz_ji_check(m->seen == 0 || offset > m->last_offset);
    m->last_offset = offset;
    if (m->seen++ == m->stop_at) return tp_error_set(err, TP_ERR_INVALID, "stop");
    if (m->n < FZ_JI_MAX) {
        m->names[m->n] = malloc(len + 1);
        if (!m->names[m->n]) abort();
        memcpy(m->names[m->n], name, len + 1);
        m->values[m->n++] = value;
    }
    return TP_OK;
}

static void fz_ji_free(fz_ji_members *m) {
    for (size_t k = 0; k < m->n; k++)
        free(m->names[k]);
    m->n = 0;
}

/* The members as JSON, every byte of a name that is not plain ASCII escaped. */
static char *fz_ji_write(const fz_ji_members *m, size_t *len) {
    size_t cap = 16;
    for (size_t k = 0; k < m->n; k++)
        cap += strlen(m->names[k]) * 6 + 32;
    char *out = malloc(cap), *p = out;
    if (!out) abort();
    *p++ = '{';
    for (size_t k = 0; k < m->n; k++) {
        if (k) *p++ = ',';
        *p++ = '"';
        for (const unsigned char *s = (const unsigned char *)m->names[k]; *s; s++) {
            if (*s == '"' || *s == '\\')
                *p++ = '\\', *p++ = (char)*s;
            else if (*s < 0x20)
                p += sprintf(p, "\\u%04x", *s);
            else
                *p++ = (char)*s; /* UTF-8 passes through as is */
        }
        p += sprintf(p, "\": %" PRId64, m->values[k]);
    }
    *p++ = '}';
    *len = (size_t)(p - out);
    return out;
}

int tp_fuzz_json_ints(const uint8_t *data, size_t size) {
    static fz_ji_members m, m2;
    tp_error err;
    tp_error_clear(&err);
    m.seen = 0;
    m.stop_at = SIZE_MAX;
    tp_status st = tp__json_read_ints((const char *)data, size, fz_ji_member, &m, &err);
    if (st != TP_OK) {
        size_t at = SIZE_MAX;
        fz_ji_check(st == TP_ERR_PARSE && err.status == st);
        fz_ji_check(sscanf(err.msg, "offset %zu:", &at) == 1 && at <= size);
        fz_ji_free(&m);
        return 0;
    }
    if (m.seen == m.n) { /* every member kept: write back, read again */
        size_t len = 0;
        char *text = fz_ji_write(&m, &len);
        m2.seen = 0;
        m2.stop_at = SIZE_MAX;
        fz_ji_check(tp__json_read_ints(text, len, fz_ji_member, &m2, &err) == TP_OK);
        fz_ji_check(m2.n == m.n);
        for (size_t k = 0; k < m.n; k++)
            fz_ji_check(strcmp(m.names[k], m2.names[k]) == 0 && m.values[k] == m2.values[k]);
        fz_ji_free(&m2);
        free(text);
    }
    if (m.seen > 0) { /* a refusing callback stops the read at once */
        size_t stop = m.seen / 2, total = m.seen;
        fz_ji_free(&m);
        m.seen = 0;
        m.stop_at = stop;
        tp_error_clear(&err);
        fz_ji_check(tp__json_read_ints((const char *)data, size, fz_ji_member, &m, &err) ==
                    TP_ERR_INVALID);
        fz_ji_check(m.seen == stop + 1 && total > stop);
    }
    fz_ji_free(&m);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_json_ints(data, size);
}
#endif
