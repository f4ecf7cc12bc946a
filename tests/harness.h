/* tests/harness.h — the tiny in-house test harness.
 *
 *   TP_TEST(name) { TP_CHECK(cond); TP_CHECK_EQ_U64(a, b); ... }
 *   int main(void) { TP_RUN(name); ...; return tp_test_finish(); }
 *
 * Every check prints both sides on failure with file:line; a test counts as
 * failed if any of its checks failed. tp_test_finish() prints the closing line
 * "N passed, N failed" and returns the process exit status.
 *
 * tp_failing_allocator: an allocator hook that fails the k-th allocation (and
 * every later one when `sticky`), and counts live bytes so that a sweep can
 * prove every error path frees what it took.
 */
#ifndef TP_TEST_HARNESS_H
#define TP_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorplan.h"

static int tp_test_passed_, tp_test_failed_, tp_test_cur_failed_;

#define TP_TEST(name) static void name(void)
#define TP_RUN(name)                                                                               \
    do {                                                                                           \
        tp_test_cur_failed_ = 0;                                                                   \
        name();                                                                                    \
        if (tp_test_cur_failed_) {                                                                 \
            tp_test_failed_++;                                                                     \
            printf("FAIL %s\n", #name);                                                            \
        } else {                                                                                   \
            tp_test_passed_++;                                                                     \
            printf("ok   %s\n", #name);                                                            \
        }                                                                                          \
        fflush(stdout);                                                                            \
    } while (0)

#define TP_FAIL_(...)                                                                              \
    do {                                                                                           \
        tp_test_cur_failed_ = 1;                                                                   \
        printf("  %s:%d: ", __FILE__, __LINE__);                                                   \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
    } while (0)

#define TP_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!(cond)) TP_FAIL_("check failed: %s", #cond);                                          \
    } while (0)
#define TP_CHECK_EQ_U64(a, b)                                                                      \
    do {                                                                                           \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                           \
        if (a_ != b_) TP_FAIL_("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_);               \
    } while (0)
#define TP_CHECK_EQ_I64(a, b)                                                                      \
    do {                                                                                           \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                              \
        if (a_ != b_) TP_FAIL_("%s == %s: %" PRId64 " != %" PRId64, #a, #b, a_, b_);               \
    } while (0)
#define TP_CHECK_LE_U64(a, b)                                                                      \
    do {                                                                                           \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                           \
        if (!(a_ <= b_)) TP_FAIL_("%s <= %s: %" PRIu64 " > %" PRIu64, #a, #b, a_, b_);             \
    } while (0)
#define TP_CHECK_NEAR(a, b, tol)                                                                   \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b);                                                 \
        if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol)))                                               \
            TP_FAIL_("%s ~= %s: %.9g vs %.9g (tol %g)", #a, #b, a_, b_, (double)(tol));            \
    } while (0)
#define TP_CHECK_STR(a, b)                                                                         \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                     \
            TP_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",                     \
                     b_ ? b_ : "(null)");                                                          \
    } while (0)
#define TP_CHECK_CONTAINS(hay, needle)                                                             \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (!h_ || !strstr(h_, n_)) TP_FAIL_("\"%s\" does not contain \"%s\"", h_ ? h_ : "", n_);  \
    } while (0)
#define TP_CHECK_STATUS(expr, want)                                                                \
    do {                                                                                           \
        tp_status got_ = (expr);                                                                   \
        if (got_ != (want))                                                                        \
            TP_FAIL_("%s: status %s, want %s", #expr, tp_status_name(got_), tp_status_name(want)); \
    } while (0)
static inline const char *tp_test_errmsg_(const tp_error *e) {
    return e ? e->msg : "";
}
#define TP_CHECK_OK(expr, errp)                                                                    \
    do {                                                                                           \
        tp_status got_ = (expr);                                                                   \
        if (got_ != TP_OK)                                                                         \
            TP_FAIL_("%s: %s: %s", #expr, tp_status_name(got_), tp_test_errmsg_(errp));            \
    } while (0)

/* The whole file, NUL-terminated (malloc'ed, the caller frees); *size (may be NULL)
 * receives its length. NULL when it cannot be read. */
static inline uint8_t *tp_test_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    uint8_t *buf = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = 0;
    if (size) *size = (size_t)n;
    return buf;
}

static inline int tp_test_finish(void) {
    printf("%d passed, %d failed\n", tp_test_passed_, tp_test_failed_);
    return tp_test_failed_ ? 1 : 0;
}

/* ---- allocation-failure injection ---- */
typedef struct tp_failing_allocator {
    tp_allocator hook;
    long fail_at; /* 1-based index of the allocation to fail; 0 = never */
    long count;   /* allocations attempted so far */
    long live;    /* allocations not yet freed */
    size_t live_bytes;
    int failed; /* set once an allocation was refused */
} tp_failing_allocator;

static void *tp_fa_alloc_(void *ctx, size_t size) {
    tp_failing_allocator *fa = ctx;
    fa->count++;
    if (fa->fail_at && fa->count >= fa->fail_at) {
        fa->failed = 1;
        return NULL;
    }
    void *p = malloc(size ? size : 1);
    if (p) {
        fa->live++;
        fa->live_bytes += size;
    }
    return p;
}
static void *tp_fa_realloc_(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    tp_failing_allocator *fa = ctx;
    fa->count++;
    if (fa->fail_at && fa->count >= fa->fail_at) {
        fa->failed = 1;
        return NULL;
    }
    void *p = realloc(ptr, new_size ? new_size : 1);
    if (p) fa->live_bytes = fa->live_bytes - old_size + new_size;
    return p;
}
static void tp_fa_free_(void *ctx, void *ptr, size_t size) {
    tp_failing_allocator *fa = ctx;
    if (!ptr) return;
    fa->live--;
    fa->live_bytes -= size;
    free(ptr);
}
static inline void tp_failing_allocator_init(tp_failing_allocator *fa, long fail_at) {
    memset(fa, 0, sizeof *fa);
    fa->hook.alloc = tp_fa_alloc_;
    fa->hook.realloc = tp_fa_realloc_;
    fa->hook.free = tp_fa_free_;
    fa->hook.ctx = fa;
    fa->fail_at = fail_at;
}

#endif
