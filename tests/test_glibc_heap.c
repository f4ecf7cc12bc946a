/* The emulation of glibc malloc's resident memory (src/estimate/glibc_heap.c), against figures
 * worked out by hand from the rules its header states: mmap at or above the threshold (128 KiB
 * at first, then the size of the largest mmapped chunk freed, up to 32 MiB), best fit among the
 * heap's holes, coalescing, the top of the heap trimmed above twice the threshold. */
#include "estimate/glibc_heap.h"
#include "harness.h"

enum { KIB = 1024 };

/* a heap chunk for a request: the request + 8, rounded up to 16 (at least 32) */
static uint64_t chunk(uint64_t bytes) {
    uint64_t c = (bytes + 8 + 15) / 16 * 16;
    return c < 32 ? 32 : c;
}

/* an mmapped chunk: the request + 16, in 4 KiB pages */
static uint64_t pages(uint64_t bytes) {
    return (bytes + 16 + 4095) / 4096 * 4096;
}

TP_TEST(mmap_threshold_rises_when_a_mapped_chunk_is_freed) {
    tp_error err;
    tp_glibc_heap *h = NULL;
    TP_CHECK_OK(tp_glibc_heap_create(NULL, &h, &err), &err);
    if (!h) return;
    uint32_t big, a, b;
    /* 200 KiB: above the initial 128 KiB threshold, mapped */
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 200 * KIB, true, &big, &err), &err);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), pages(200 * KIB));
    /* 150 KiB while the threshold is still 128 KiB: mapped too */
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 150 * KIB, true, &a, &err), &err);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), pages(200 * KIB) + pages(150 * KIB));
    tp_glibc_heap_free(h, a);
    tp_glibc_heap_free(h, big); /* the threshold becomes the 200 KiB chunk */
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), 0);
    TP_CHECK_EQ_U64(tp_glibc_heap_peak(h), pages(200 * KIB) + pages(150 * KIB));
    /* the same 150 KiB now comes from the heap, and stays resident when freed */
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 150 * KIB, true, &a, &err), &err);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), chunk(150 * KIB));
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 150 * KIB, true, &b, &err), &err);
    tp_glibc_heap_free(h, a); /* a hole below b: not the top, kept */
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), 2 * chunk(150 * KIB));
    tp_glibc_heap_destroy(h);
}

TP_TEST(holes_are_reused_by_best_fit_unless_told_not_to) {
    tp_error err;
    tp_glibc_heap *h = NULL;
    TP_CHECK_OK(tp_glibc_heap_create(NULL, &h, &err), &err);
    if (!h) return;
    uint32_t a, b, c, d, x, y;
    /* four heap chunks below the threshold: 100, 60, 100, 60 KiB */
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 100 * KIB, true, &a, &err), &err);
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 60 * KIB, true, &b, &err), &err);
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 100 * KIB, true, &c, &err), &err);
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 60 * KIB, true, &d, &err), &err);
    uint64_t top = 2 * chunk(100 * KIB) + 2 * chunk(60 * KIB);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), top);
    tp_glibc_heap_free(h, a); /* holes of 100 and 60 KiB, apart */
    tp_glibc_heap_free(h, d); /* the top chunk: joins the top, below the trim threshold */
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), top);
    /* 50 KiB: the smallest hole that fits is the 60 KiB one at the top */
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 50 * KIB, true, &x, &err), &err);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), top);
    /* 90 KiB: the 100 KiB hole */
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 90 * KIB, true, &y, &err), &err);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), top);
    /* not reusing: a new chunk at the top even though b's hole would fit */
    tp_glibc_heap_free(h, b);
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 10 * KIB, false, &x, &err), &err);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), top + chunk(10 * KIB));
    tp_glibc_heap_free(h, c);
    tp_glibc_heap_free(h, 12345); /* unknown: ignored */
    tp_glibc_heap_destroy(h);
}

TP_TEST(the_top_is_trimmed_above_twice_the_threshold) {
    tp_error err;
    tp_glibc_heap *h = NULL;
    TP_CHECK_OK(tp_glibc_heap_create(NULL, &h, &err), &err);
    if (!h) return;
    uint32_t a, b, c;
    /* threshold 128 KiB, trim threshold 128 KiB: three 100 KiB chunks */
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 100 * KIB, true, &a, &err), &err);
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 100 * KIB, true, &b, &err), &err);
    TP_CHECK_OK(tp_glibc_heap_alloc(h, 100 * KIB, true, &c, &err), &err);
    tp_glibc_heap_free(h, c); /* the top's free space: 100 KiB, under the trim threshold */
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), 3 * chunk(100 * KIB));
    tp_glibc_heap_free(h, b); /* coalesced: 200 KiB free at the top, trimmed to 128 KiB */
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), chunk(100 * KIB) + 128 * KIB);
    TP_CHECK_EQ_U64(tp_glibc_heap_peak(h), 3 * chunk(100 * KIB));
    tp_glibc_heap_free(h, a);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), 128 * KIB);
    tp_glibc_heap_destroy(h);
}

/* every other of 300 heap chunks freed: 150 holes that do not coalesce, resident unchanged; the
 * rest freed: one hole, trimmed to the top pad */
TP_TEST(many_holes) {
    tp_error err;
    tp_glibc_heap *h = NULL;
    TP_CHECK_OK(tp_glibc_heap_create(NULL, &h, &err), &err);
    if (!h) return;
    uint32_t ids[300];
    for (int i = 0; i < 300; i++)
        TP_CHECK_OK(tp_glibc_heap_alloc(h, 1000, true, &ids[i], &err), &err);
    uint64_t top = 300 * chunk(1000);
    for (int i = 0; i < 300; i += 2)
        tp_glibc_heap_free(h, ids[i]);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), top);
    for (int i = 1; i < 300; i += 2)
        tp_glibc_heap_free(h, ids[i]);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), 128 * KIB);
    tp_glibc_heap_destroy(h);
}

TP_TEST(sizes_past_the_limit_are_refused) {
    tp_error err;
    tp_glibc_heap *h = NULL;
    TP_CHECK_OK(tp_glibc_heap_create(NULL, &h, &err), &err);
    if (!h) return;
    uint32_t a;
    TP_CHECK_STATUS(tp_glibc_heap_alloc(h, UINT64_MAX, true, &a, &err), TP_ERR_OVERFLOW);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(h), 0);
    tp_glibc_heap_destroy(h);
    TP_CHECK_EQ_U64(tp_glibc_heap_resident(NULL), 0);
}

int main(void) {
    TP_RUN(mmap_threshold_rises_when_a_mapped_chunk_is_freed);
    TP_RUN(holes_are_reused_by_best_fit_unless_told_not_to);
    TP_RUN(the_top_is_trimmed_above_twice_the_threshold);
    TP_RUN(many_holes);
    TP_RUN(sizes_past_the_limit_are_refused);
    return tp_test_finish();
}
