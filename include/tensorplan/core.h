/*
 * tensorplan/core.h — status codes, error messages with context, the optional
 * allocator hook and checked 64-bit size arithmetic.
 *
 * Conventions used by every tensorplan function:
 *   - Functions that can fail return tp_status (TP_OK == 0) and take a trailing,
 *     nullable `tp_error *err` that receives a message with context (file
 *     offset, node id/name, op). On success *err is left untouched.
 *   - The library never prints, exits or aborts on bad input.
 *   - Objects take an optional `const tp_allocator *` at creation (NULL = libc)
 *     and own their memory; every tp_x_destroy(NULL) is a no-op.
 *   - Byte counts are uint64_t and every size computation is overflow-checked.
 *
 * Thread safety: everything here is reentrant; tp_error values are plain data.
 */
#ifndef TENSORPLAN_CORE_H
#define TENSORPLAN_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorplan/export.h"
#include "tensorplan/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X-macro list of statuses: X(ENUM_SUFFIX, "description"). */
#define TP_STATUS_LIST(X)                                                                          \
    X(OK, "ok")                                                                                    \
    X(INVALID, "invalid argument")                                                                 \
    X(NOMEM, "out of memory")                                                                      \
    X(OVERFLOW, "size arithmetic overflows 64 bits")                                               \
    X(UNBOUND, "unbound symbolic dimension")                                                       \
    X(PARSE, "malformed input")                                                                    \
    X(UNSUPPORTED, "unsupported")                                                                  \
    X(SHAPE, "shapes do not agree")                                                                \
    X(IO, "input/output error")                                                                    \
    X(NOT_FOUND, "not found")                                                                      \
    X(INFEASIBLE, "infeasible")                                                                    \
    X(OOM, "memory limit exceeded")                                                                \
    X(UNDERFLOW, "counter would go below zero")                                                    \
    X(VERIFY, "plan verification failed")                                                          \
    X(OVER_BUDGET, "estimated peak exceeds the budget")                                            \
    X(TIMEOUT, "time limit reached")

typedef enum tp_status {
#define TP_STATUS_ENUM_(name, desc) TP_STATUS_##name,
    TP_STATUS_LIST(TP_STATUS_ENUM_)
#undef TP_STATUS_ENUM_
        TP_STATUS_COUNT
} tp_status;

/* Short aliases used throughout the code base. */
#define TP_OK TP_STATUS_OK
#define TP_ERR_INVALID TP_STATUS_INVALID
#define TP_ERR_NOMEM TP_STATUS_NOMEM
#define TP_ERR_OVERFLOW TP_STATUS_OVERFLOW
#define TP_ERR_UNBOUND TP_STATUS_UNBOUND
#define TP_ERR_PARSE TP_STATUS_PARSE
#define TP_ERR_UNSUPPORTED TP_STATUS_UNSUPPORTED
#define TP_ERR_SHAPE TP_STATUS_SHAPE
#define TP_ERR_IO TP_STATUS_IO
#define TP_ERR_NOT_FOUND TP_STATUS_NOT_FOUND
#define TP_ERR_INFEASIBLE TP_STATUS_INFEASIBLE
#define TP_ERR_OOM TP_STATUS_OOM
#define TP_ERR_UNDERFLOW TP_STATUS_UNDERFLOW
#define TP_ERR_VERIFY TP_STATUS_VERIFY
#define TP_ERR_OVER_BUDGET TP_STATUS_OVER_BUDGET
#define TP_ERR_TIMEOUT TP_STATUS_TIMEOUT

/* Human description of a status; never NULL (unknown values give "unknown status"). */
TP_API const char *tp_status_str(tp_status s);
/* Stable identifier of a status, e.g. "TP_ERR_OVERFLOW"; never NULL. */
TP_API const char *tp_status_name(tp_status s);

#define TP_NO_OFFSET UINT64_MAX
#define TP_NO_NODE (-1)
#define TP_ERROR_MSG_CAP 512

/* Error detail. `offset` is a byte offset into an input file (TP_NO_OFFSET when
 * not applicable); `node` a node id (TP_NO_NODE when not applicable). `msg` is
 * always NUL-terminated and already contains the context in words. */
typedef struct tp_error {
    tp_status status;
    uint64_t offset;
    int64_t node;
    char msg[TP_ERROR_MSG_CAP];
} tp_error;

/* Reset *err to {TP_OK, TP_NO_OFFSET, TP_NO_NODE, ""}. err may be NULL. */
TP_API void tp_error_clear(tp_error *err);
/* Fill *err (if non-NULL) with status s and a printf-style message; returns s
 * so callers can write `return tp_error_set(err, TP_ERR_INVALID, "...")`.
 * A message longer than the buffer is truncated with "...". */
TP_API tp_status tp_error_set(tp_error *err, tp_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* As tp_error_set, also recording a file offset and/or node id. */
TP_API tp_status tp_error_setx(tp_error *err, tp_status s, uint64_t offset, int64_t node,
                               const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Prepend context ("while planning node 'x': ") to an existing message. */
TP_API void tp_error_prefix(tp_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Optional allocator hook (like lua_Alloc / yyjson_alc). Any of the functions
 * may return NULL to signal failure; the library then returns TP_ERR_NOMEM and
 * frees everything it took. `size` passed to free/realloc is the size that was
 * requested. Pass NULL wherever a `const tp_allocator *` is taken for libc. */
typedef struct tp_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
} tp_allocator;

/* The libc allocator (never NULL). */
TP_API const tp_allocator *tp_allocator_default(void);

/* ---- checked 64-bit arithmetic: return true on success, false on overflow ---- */

static inline bool tp_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (a > UINT64_MAX - b) return false;
    *out = a + b;
    return true;
}
static inline bool tp_sub_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (b > a) return false;
    *out = a - b;
    return true;
}
static inline bool tp_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (a != 0 && b > UINT64_MAX / a) return false;
    *out = a * b;
    return true;
}
/* Round v up to a multiple of align (align must be a power of two, >= 1). */
static inline bool tp_align_up_u64(uint64_t v, uint64_t align, uint64_t *out) {
    uint64_t t;
    if (align == 0 || (align & (align - 1)) != 0) return false;
    if (!tp_add_u64(v, align - 1, &t)) return false;
    *out = t & ~(align - 1);
    return true;
}
static inline bool tp_is_pow2_u64(uint64_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}
static inline uint64_t tp_sat_add_u64(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static inline uint64_t tp_sat_sub_u64(uint64_t a, uint64_t b) {
    return b > a ? 0 : a - b;
}
static inline uint64_t tp_sat_mul_u64(uint64_t a, uint64_t b) {
    return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

/* Byte counts for people: "512 B", "1.5 MiB", "7.6 EiB" (binary units, one decimal; a
 * value that rounds to 1024.0 of a unit takes the next unit). Writes a NUL-terminated
 * string of at most cap bytes into buf (32 bytes always suffice) and returns buf. */
TP_API const char *tp_format_bytes(uint64_t bytes, char *buf, size_t cap);
/* Formats a and b as tp_format_bytes does, but with as many decimals as it takes (one,
 * then four, then the exact byte counts) for two different values to print differently:
 * "1.0001 GiB exceeds 1.0000 GiB", never "1.0 GiB exceeds 1.0 GiB". */
TP_API void tp_format_bytes_pair(uint64_t a, uint64_t b, char *abuf, char *bbuf, size_t cap);

/* Library version string, e.g. "0.1.0". */
TP_API const char *tp_version(void);

#ifdef __cplusplus
}
#endif
#endif
