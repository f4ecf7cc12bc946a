/* tests/pb_encode.h — a tiny protobuf encoder and ONNX message builders for
 * tests that need hand-made model bytes (functions are static inline: include
 * it in one test program, use what you need). Buffers grow with realloc and
 * abort on failure; b_msg() appends a sub-message and frees it. */
#ifndef TP_TEST_PB_ENCODE_H
#define TP_TEST_PB_ENCODE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/onnx_model.h"

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static inline void b_put(buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}
static inline void b_varint(buf *b, uint64_t v) {
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) t[n] |= 0x80;
        n++;
    } while (v);
    b_put(b, t, n);
}
static inline void b_tag(buf *b, uint32_t field, uint32_t wire) {
    b_varint(b, (uint64_t)field << 3 | wire);
}
static inline void b_int(buf *b, uint32_t field, int64_t v) {
    b_tag(b, field, 0);
    b_varint(b, (uint64_t)v);
}
static inline void b_bytes(buf *b, uint32_t field, const void *d, size_t n) {
    b_tag(b, field, 2);
    b_varint(b, n);
    b_put(b, d, n);
}
static inline void b_str(buf *b, uint32_t field, const char *s) {
    b_bytes(b, field, s, strlen(s));
}
/* Append sub as a length-delimited field and free it. */
static inline void b_msg(buf *b, uint32_t field, buf *sub) {
    b_bytes(b, field, sub->p, sub->n);
    free(sub->p);
    memset(sub, 0, sizeof *sub);
}
static inline void b_f32(buf *b, uint32_t field, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    b_tag(b, field, 5);
    uint8_t t[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    b_put(b, t, 4);
}
static inline void b_packed_ints(buf *b, uint32_t field, const int64_t *v, size_t n) {
    buf s = {0};
    for (size_t i = 0; i < n; i++)
        b_varint(&s, (uint64_t)v[i]);
    b_msg(b, field, &s);
}

/* ONNX builders */
static inline buf value_info(const char *name, int32_t elem, int rank, const int64_t *dims,
                             const char *const *params) {
    buf vi = {0}, type = {0}, tt = {0}, shape = {0};
    b_str(&vi, 1, name);
    b_int(&tt, 1, elem);
    if (rank >= 0) {
        for (int i = 0; i < rank; i++) {
            buf d = {0};
            if (params && params[i])
                b_str(&d, 2, params[i]);
            else if (dims[i] >= 0)
                b_int(&d, 1, dims[i]);
            b_msg(&shape, 1, &d);
        }
        b_msg(&tt, 2, &shape);
    }
    b_msg(&type, 1, &tt);
    b_msg(&vi, 2, &type);
    return vi;
}

static inline buf tensor_raw(const char *name, int32_t dt, int rank, const int64_t *dims,
                             const void *raw, size_t raw_n) {
    buf t = {0};
    b_packed_ints(&t, 1, dims, (size_t)rank);
    b_int(&t, 2, dt);
    b_str(&t, 8, name);
    b_bytes(&t, 9, raw, raw_n);
    return t;
}

static inline buf attr_int(const char *name, int64_t v) {
    buf a = {0};
    b_str(&a, 1, name);
    b_int(&a, 20, TP_ONNX_ATTR_INT);
    b_int(&a, 3, v);
    return a;
}

#endif
