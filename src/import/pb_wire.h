/*
 * Internal: protobuf wire-format decoding over a byte range (zero-copy).
 *
 * A tp_pb reader walks one message: `base` is the start of the whole file (so
 * that every position is an absolute file offset, 64-bit), [pos, end) the
 * bytes of the current message. Every function is bounds-checked against
 * `end` and reports errors as TP_ERR_PARSE with the file offset in both the
 * message and err->offset, e.g. "truncated varint at offset 1234".
 *
 * Supported wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
 * Groups (3, 4) and the invalid types 6, 7 are errors.
 *
 * Thread safety: readers are plain values; the bytes are only read.
 */
#ifndef TP_IMPORT_PB_WIRE_H
#define TP_IMPORT_PB_WIRE_H

#include "tensorplan/core.h"

enum {
    TP_PB_VARINT = 0,
    TP_PB_FIXED64 = 1,
    TP_PB_LEN = 2,
    TP_PB_SGROUP = 3,
    TP_PB_EGROUP = 4,
    TP_PB_FIXED32 = 5
};

typedef struct tp_pb {
    const uint8_t *base; /* file start */
    uint64_t pos;        /* absolute offset of the next byte */
    uint64_t end;        /* absolute end of the current message */
} tp_pb;

static inline tp_pb tp__pb_init(const uint8_t *base, uint64_t size) {
    tp_pb r = {base, 0, size};
    return r;
}
static inline bool tp__pb_done(const tp_pb *r) {
    return r->pos >= r->end;
}

/* Slow path of tp__pb_varint (multi-byte values and errors). */
tp_status tp__pb_varint_slow(tp_pb *r, uint64_t *out, tp_error *err);

/* Read a base-128 varint (at most 10 bytes; the 10th may only hold bit 63). */
static inline tp_status tp__pb_varint(tp_pb *r, uint64_t *out, tp_error *err) {
    if (r->pos < r->end && r->base[r->pos] < 0x80) {
        *out = r->base[r->pos++];
        return TP_OK;
    }
    return tp__pb_varint_slow(r, out, err);
}

/* Slow paths of tp__pb_tag / tp__pb_len (multi-byte keys, errors). */
tp_status tp__pb_tag_slow(tp_pb *r, uint32_t *field, uint32_t *wire, tp_error *err);
tp_status tp__pb_len_slow(tp_pb *r, tp_pb *sub, tp_error *err);

/* Read a field key. *field >= 1 (0 and > 2^29-1 are errors), *wire in {0,1,2,5}. */
static inline tp_status tp__pb_tag(tp_pb *r, uint32_t *field, uint32_t *wire, tp_error *err) {
    if (r->pos < r->end) {
        uint32_t b = r->base[r->pos], w = b & 7;
        if (b < 0x80 && b >= 8 && (w == 0 || w == 1 || w == 2 || w == 5)) {
            r->pos++;
            *field = b >> 3;
            *wire = w;
            return TP_OK;
        }
    }
    return tp__pb_tag_slow(r, field, wire, err);
}

/* Read a length prefix and return the sub-range as its own reader; r moves past
 * it. Errors when the length runs past r->end. */
static inline tp_status tp__pb_len(tp_pb *r, tp_pb *sub, tp_error *err) {
    if (r->pos < r->end) {
        uint64_t len = r->base[r->pos];
        if (len < 0x80 && len < r->end - r->pos) {
            sub->base = r->base;
            sub->pos = r->pos + 1;
            sub->end = sub->pos + len;
            r->pos = sub->end;
            return TP_OK;
        }
    }
    return tp__pb_len_slow(r, sub, err);
}

tp_status tp__pb_fixed32(tp_pb *r, uint32_t *out, tp_error *err);
tp_status tp__pb_fixed64(tp_pb *r, uint64_t *out, tp_error *err);

/* Skip a value of the given wire type. */
tp_status tp__pb_skip(tp_pb *r, uint32_t wire, tp_error *err);

/* Error "field N (<what>) has wire type W, expected X" at offset `at`. */
tp_status tp__pb_wire_error(tp_error *err, uint64_t at, uint32_t field, const char *what,
                            uint32_t wire, uint32_t want);

/* Decode zigzag (sint32/sint64). */
static inline int64_t tp__pb_zigzag64(uint64_t v) {
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Number of varints in a packed run (counts terminating bytes); error when the
 * run ends inside a varint. */
tp_status tp__pb_count_packed_varints(const tp_pb *run, uint64_t *count, tp_error *err);

/* Field values: read a varint field as int64 / int32 (int32 range checked the way
 * protobuf does it: the value is truncated to 32 bits, as a sign-extended varint). */
tp_status tp__pb_int64(tp_pb *r, uint32_t wire, uint32_t field, const char *what, int64_t *out,
                       tp_error *err);
tp_status tp__pb_int32(tp_pb *r, uint32_t wire, uint32_t field, const char *what, int32_t *out,
                       tp_error *err);
/* A length-delimited field (string/bytes/message); checks the wire type. */
tp_status tp__pb_bytes(tp_pb *r, uint32_t wire, uint32_t field, const char *what, tp_pb *sub,
                       tp_error *err);

#endif
