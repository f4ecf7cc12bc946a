/* Run-time memory tracker: lock-free counters with C11 atomics. */
#include "tensorplan/tracker.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "core/mem.h"

struct tp_tracker {
    _Atomic uint64_t allocated;
    _Atomic uint64_t peak;
    _Atomic uint64_t limit;
    _Atomic uint64_t factor_bits; /* the overhead factor's double bits */
    const tp_allocator *alloc;
};

static uint64_t double_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_double(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

tp_status tp_tracker_create(const tp_allocator *alloc, uint64_t limit_bytes, tp_tracker **out,
                            tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "tracker: out is NULL");
    *out = NULL;
    tp_tracker *t = tp_mem_alloc(alloc, sizeof *t);
    if (!t) return tp_error_set(err, TP_ERR_NOMEM, "tracker: out of memory creating a tracker");
    atomic_init(&t->allocated, 0);
    atomic_init(&t->peak, 0);
    atomic_init(&t->limit, limit_bytes);
    atomic_init(&t->factor_bits, double_bits(TP_TRACKER_DEFAULT_OVERHEAD));
    t->alloc = alloc;
    *out = t;
    return TP_OK;
}

void tp_tracker_destroy(tp_tracker *t) {
    if (!t) return;
    tp_mem_free(t->alloc, t, sizeof *t);
}

static void raise_peak(tp_tracker *t, uint64_t total) {
    uint64_t cur = atomic_load_explicit(&t->peak, memory_order_relaxed);
    while (cur < total && !atomic_compare_exchange_weak_explicit(
                              &t->peak, &cur, total, memory_order_relaxed, memory_order_relaxed)) {
    }
}

tp_status tp_tracker_allocate(tp_tracker *t, uint64_t bytes, tp_error *err) {
    if (!t) return tp_error_set(err, TP_ERR_INVALID, "tracker: NULL tracker");
    uint64_t limit = atomic_load_explicit(&t->limit, memory_order_relaxed);
    uint64_t cur = atomic_load_explicit(&t->allocated, memory_order_relaxed);
    uint64_t next;
    for (;;) {
        if (!tp_add_u64(cur, bytes, &next))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "tracker: allocating %llu bytes on top of %llu overflows 64 bits",
                                (unsigned long long)bytes, (unsigned long long)cur);
        if (limit > 0 && next > limit)
            return tp_error_set(err, TP_ERR_OOM,
                                "tracker: out of memory: requested %llu bytes, limit %llu bytes, "
                                "current %llu bytes",
                                (unsigned long long)bytes, (unsigned long long)limit,
                                (unsigned long long)cur);
        /* The check above and this add are one step: the CAS only succeeds if
         * nobody changed `allocated` since we read `cur`. */
        if (atomic_compare_exchange_weak_explicit(&t->allocated, &cur, next, memory_order_acq_rel,
                                                  memory_order_relaxed))
            break;
    }
    raise_peak(t, next);
    return TP_OK;
}

tp_status tp_tracker_deallocate(tp_tracker *t, uint64_t bytes, tp_error *err) {
    if (!t) return tp_error_set(err, TP_ERR_INVALID, "tracker: NULL tracker");
    uint64_t cur = atomic_load_explicit(&t->allocated, memory_order_relaxed);
    for (;;) {
        if (bytes > cur)
            return tp_error_set(err, TP_ERR_UNDERFLOW,
                                "tracker: deallocating %llu bytes but only %llu are allocated",
                                (unsigned long long)bytes, (unsigned long long)cur);
        if (atomic_compare_exchange_weak_explicit(&t->allocated, &cur, cur - bytes,
                                                  memory_order_acq_rel, memory_order_relaxed))
            return TP_OK;
    }
}

bool tp_tracker_would_fit(const tp_tracker *t, uint64_t bytes) {
    if (!t) return false;
    tp_tracker *m = (tp_tracker *)t; /* atomic_load takes a non-const pointer in C11 */
    uint64_t limit = atomic_load_explicit(&m->limit, memory_order_relaxed);
    uint64_t cur = atomic_load_explicit(&m->allocated, memory_order_relaxed);
    uint64_t next;
    if (!tp_add_u64(cur, bytes, &next)) return false;
    return limit == 0 || next <= limit;
}

void tp_tracker_reset(tp_tracker *t) {
    if (!t) return;
    atomic_store(&t->allocated, 0);
    atomic_store(&t->peak, 0);
}

uint64_t tp_tracker_allocated_bytes(const tp_tracker *t) {
    return t ? atomic_load(&((tp_tracker *)t)->allocated) : 0;
}

uint64_t tp_tracker_peak_bytes(const tp_tracker *t) {
    return t ? atomic_load(&((tp_tracker *)t)->peak) : 0;
}

uint64_t tp_tracker_limit_bytes(const tp_tracker *t) {
    return t ? atomic_load(&((tp_tracker *)t)->limit) : 0;
}

void tp_tracker_set_limit(tp_tracker *t, uint64_t limit_bytes) {
    if (t) atomic_store(&t->limit, limit_bytes);
}

double tp_tracker_overhead_factor(const tp_tracker *t) {
    if (!t) return TP_TRACKER_DEFAULT_OVERHEAD;
    return bits_double(atomic_load(&((tp_tracker *)t)->factor_bits));
}

tp_status tp_tracker_set_overhead_factor(tp_tracker *t, double factor, tp_error *err) {
    if (!t) return tp_error_set(err, TP_ERR_INVALID, "tracker: NULL tracker");
    if (!isfinite(factor) || factor < 1.0 || factor > 1e9)
        return tp_error_set(err, TP_ERR_INVALID,
                            "tracker: overhead factor %g must be between 1.0 and 1e9", factor);
    atomic_store(&t->factor_bits, double_bits(factor));
    return TP_OK;
}

tp_status tp_tracker_estimate_with_overhead(const tp_tracker *t, const int64_t *dims, int32_t rank,
                                            tp_dtype dtype, uint64_t *out_bytes, tp_error *err) {
    if (!t || !out_bytes)
        return tp_error_set(err, TP_ERR_INVALID, "tracker: NULL tracker or output");
    uint64_t raw;
    tp_status s = tp_tensor_bytes(dims, rank, dtype, &raw, err);
    if (s != TP_OK) return s;
    /* The factor is applied in integers at parts-per-million resolution, so
     * 4000 x 1.1 is exactly 4400 (a double product would give 4400.000...1
     * and round up to 4401): ceil(raw x ppm / 10^6), overflow-checked. */
    double factor = tp_tracker_overhead_factor(t);
    uint64_t ppm = (uint64_t)llround(factor * 1e6);
    uint64_t q = raw / 1000000u, r = raw % 1000000u, hi, lo, v;
    if (!tp_mul_u64(q, ppm, &hi) || !tp_mul_u64(r, ppm, &lo) ||
        !tp_add_u64(hi, lo / 1000000u + (lo % 1000000u != 0), &v))
        return tp_error_set(err, TP_ERR_OVERFLOW,
                            "tracker: %llu bytes x overhead %g exceeds 64 bits",
                            (unsigned long long)raw, factor);
    *out_bytes = v;
    return TP_OK;
}

tp_status tp_tensor_bytes(const int64_t *dims, int32_t rank, tp_dtype dtype, uint64_t *out_bytes,
                          tp_error *err) {
    if (!out_bytes) return tp_error_set(err, TP_ERR_INVALID, "tensor_bytes: NULL output");
    if (rank < 0 || rank > 8 || (rank > 0 && !dims))
        return tp_error_set(err, TP_ERR_INVALID, "tensor_bytes: bad rank %d", (int)rank);
    if (!tp_dtype_is_valid(dtype))
        return tp_error_set(err, TP_ERR_INVALID, "tensor_bytes: bad dtype %d", (int)dtype);
    uint64_t elems = 1;
    for (int32_t i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return tp_error_set(err, TP_ERR_INVALID, "tensor_bytes: dim %d is negative (%lld)",
                                (int)i, (long long)dims[i]);
        if (!tp_mul_u64(elems, (uint64_t)dims[i], &elems))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "tensor_bytes: element count overflows 64 bits at dim %d", (int)i);
    }
    return tp_dtype_bytes(dtype, elems, out_bytes, err);
}

tp_status tp_attention_bytes(int64_t b, int64_t h, int64_t s, int64_t d, tp_dtype dtype,
                             uint64_t *out_bytes, tp_error *err) {
    if (!out_bytes) return tp_error_set(err, TP_ERR_INVALID, "attention_bytes: NULL output");
    if (b < 0 || h < 0 || s < 0 || d < 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "attention_bytes: negative argument (b=%lld h=%lld s=%lld d=%lld)",
                            (long long)b, (long long)h, (long long)s, (long long)d);
    if (!tp_dtype_is_valid(dtype))
        return tp_error_set(err, TP_ERR_INVALID, "attention_bytes: bad dtype %d", (int)dtype);
    uint64_t bh, bhs, bhsd, bhss, qkv_out, elems;
    /* 3bhsd + bhsd = 4bhsd; then + bhs^2 */
    if (!tp_mul_u64((uint64_t)b, (uint64_t)h, &bh) || !tp_mul_u64(bh, (uint64_t)s, &bhs) ||
        !tp_mul_u64(bhs, (uint64_t)d, &bhsd) || !tp_mul_u64(bhs, (uint64_t)s, &bhss) ||
        !tp_mul_u64(bhsd, 4, &qkv_out) || !tp_add_u64(qkv_out, bhss, &elems))
        return tp_error_set(err, TP_ERR_OVERFLOW,
                            "attention_bytes: b=%lld h=%lld s=%lld d=%lld overflows 64 bits",
                            (long long)b, (long long)h, (long long)s, (long long)d);
    return tp_dtype_bytes(dtype, elems, out_bytes, err);
}
