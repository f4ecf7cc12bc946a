/* libFuzzer target for the MiniMalloc buffer CSV reader (tp_csv_parse_buffers)
 * and the arena planners fed by it.
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_csv
 * Run:   build-fuzz/fuzz/fuzz_csv fuzz/corpus/csv -max_total_time=180
 *
 * The body is tp_fuzz_csv(); tests/test_fuzz_replay.c compiles this file with
 * TP_FUZZ_NO_MAIN and replays fuzz/corpus/csv/ through it. Invariants (abort()
 * on violation): a failing parse returns a non-OK status with a message and no
 * array; a successful one returns buffers with birth <= death, fixed_offset
 * -1 and power-of-two (or 0) alignments, and the same buffers written back as
 * CSV parse to the same array. Instances of at most FZ_CSV_MAX_PLAN buffers are
 * then planned with greedy, best-fit and no-reuse: each plan either fails with
 * TP_ERR_OVERFLOW (sizes near 2^64) or passes tp_alloc_verify with an arena no
 * smaller than the lower bound, which must equal tp_alloc_lower_bound.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, O_CLOEXEC, open_memstream in the fuzz build */
#endif
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorplan.h"

#define FZ_CSV_MAX_PLAN 2000

int tp_fuzz_csv(const uint8_t *data, size_t size);

static void csv_check(bool ok) {
    if (!ok) abort();
}

/* Write the buffers back in the input format and parse them again. */
static void csv_roundtrip(const tp_buffer *b, size_t n) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    fputs("id,lower,upper,size,alignment\n", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 "\n", b[i].id,
                b[i].birth, b[i].death + 1, b[i].size, b[i].alignment);
    if (fclose(f) != 0) abort();
    tp_buffer *b2 = NULL;
    size_t n2 = 0;
    tp_error err;
    tp_error_clear(&err);
    csv_check(tp_csv_parse_buffers(text, len, NULL, &b2, &n2, &err) == TP_OK);
    csv_check(n2 == n);
    for (size_t i = 0; i < n; i++)
        csv_check(b2[i].id == b[i].id && b2[i].birth == b[i].birth && b2[i].death == b[i].death &&
                  b2[i].size == b[i].size && b2[i].alignment == b[i].alignment &&
                  b2[i].fixed_offset == -1 && b2[i].tail_guard == 0);
    tp_csv_free_buffers(NULL, b2, n2);
    free(text);
}

static void csv_plan(const tp_buffer *b, size_t n, uint64_t *off) {
    uint64_t lb = 0;
    tp_error err;
    tp_error_clear(&err);
    tp_status ls = tp_alloc_lower_bound(b, n, NULL, &lb, &err);
    csv_check(ls == TP_OK || (ls == TP_ERR_OVERFLOW && err.msg[0] != '\0'));
    static const tp_alloc_algo algos[] = {TP_ALGO_GREEDY_SIZE, TP_ALGO_BEST_FIT, TP_ALGO_NO_REUSE};
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        tp_alloc_options o;
        tp_alloc_options_default(&o);
        o.algo = algos[a];
        tp_alloc_result r;
        tp_error_clear(&err);
        tp_status s = tp_alloc_plan(b, n, &o, NULL, off, &r, &err);
        if (s != TP_OK) {
            /* CSV buffers are well-formed: only sizes beyond 64 bits may fail */
            csv_check(s == TP_ERR_OVERFLOW && err.status == s && err.msg[0] != '\0');
            continue;
        }
        csv_check(ls == TP_OK && r.lower_bound_bytes == lb);
        csv_check(r.arena_bytes >= r.lower_bound_bytes);
        csv_check(r.optimal == (r.arena_bytes == lb)); /* heuristics prove nothing else */
        tp_error_clear(&err);
        if (tp_alloc_verify(b, n, off, o.alignment, r.arena_bytes, NULL, &err) != TP_OK) {
            fprintf(stderr, "fuzz_csv: %s plan fails verification: %s\n",
                    tp_alloc_algo_name(o.algo), err.msg);
            abort();
        }
    }
}

int tp_fuzz_csv(const uint8_t *data, size_t size) {
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_csv_parse_buffers((const char *)data, size, NULL, &b, &n, &err);
    if (s != TP_OK) {
        csv_check(b == NULL && n == 0 && err.status == s && err.msg[0] != '\0');
        return 0;
    }
    csv_check((n == 0) == (b == NULL));
    for (size_t i = 0; i < n; i++)
        csv_check(b[i].birth >= 0 && b[i].birth <= b[i].death && b[i].fixed_offset == -1 &&
                  b[i].tail_guard == 0 && (b[i].alignment == 0 || tp_is_pow2_u64(b[i].alignment)));
    csv_roundtrip(b, n);
    if (n > 0 && n <= FZ_CSV_MAX_PLAN) {
        uint64_t *off = malloc(n * sizeof *off);
        if (!off) abort();
        csv_plan(b, n, off);
        free(off);
    }
    tp_csv_free_buffers(NULL, b, n);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_csv(data, size);
}
#endif
