/* Protobuf wire-format decoding: varints, zigzag, fixed32/64, length-delimited
 * fields, all bounds-checked, every error naming the file offset. */
#include "import/pb_wire.h"

#include <inttypes.h>

static const char *wire_name(uint32_t wire) {
    switch (wire) {
    case TP_PB_VARINT:
        return "varint";
    case TP_PB_FIXED64:
        return "fixed64";
    case TP_PB_LEN:
        return "length-delimited";
    case TP_PB_SGROUP:
        return "start-group";
    case TP_PB_EGROUP:
        return "end-group";
    case TP_PB_FIXED32:
        return "fixed32";
    default:
        return "invalid";
    }
}

tp_status tp__pb_varint_slow(tp_pb *r, uint64_t *out, tp_error *err) {
    uint64_t start = r->pos, v = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (r->pos >= r->end)
            return tp_error_setx(err, TP_ERR_PARSE, start, TP_NO_NODE,
                                 "truncated varint at offset %" PRIu64
                                 " (message ends at offset %" PRIu64 ")",
                                 start, r->end);
        uint8_t b = r->base[r->pos++];
        if (i == 9 && b > 1)
            return tp_error_setx(err, TP_ERR_PARSE, start, TP_NO_NODE,
                                 "varint at offset %" PRIu64 " overflows 64 bits", start);
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *out = v;
            return TP_OK;
        }
    }
    return tp_error_setx(err, TP_ERR_PARSE, start, TP_NO_NODE,
                         "varint at offset %" PRIu64 " is longer than 10 bytes", start);
}

tp_status tp__pb_tag_slow(tp_pb *r, uint32_t *field, uint32_t *wire, tp_error *err) {
    uint64_t at = r->pos, key;
    tp_status s = tp__pb_varint(r, &key, err);
    if (s != TP_OK) return s;
    uint64_t f = key >> 3;
    uint32_t w = (uint32_t)(key & 7);
    if (f == 0 || f > 536870911u)
        return tp_error_setx(err, TP_ERR_PARSE, at, TP_NO_NODE,
                             "invalid field number %" PRIu64 " at offset %" PRIu64, f, at);
    if (w != TP_PB_VARINT && w != TP_PB_FIXED64 && w != TP_PB_LEN && w != TP_PB_FIXED32)
        return tp_error_setx(err, TP_ERR_PARSE, at, TP_NO_NODE,
                             "field %" PRIu64 " at offset %" PRIu64
                             " has unsupported wire type %u (%s)",
                             f, at, w, wire_name(w));
    *field = (uint32_t)f;
    *wire = w;
    return TP_OK;
}

tp_status tp__pb_len_slow(tp_pb *r, tp_pb *sub, tp_error *err) {
    uint64_t at = r->pos, len;
    tp_status s = tp__pb_varint(r, &len, err);
    if (s != TP_OK) return s;
    if (len > r->end - r->pos)
        return tp_error_setx(err, TP_ERR_PARSE, at, TP_NO_NODE,
                             "length prefix %" PRIu64 " at offset %" PRIu64
                             " runs past the end of the enclosing message (%" PRIu64
                             " bytes left, ends at offset %" PRIu64 ")",
                             len, at, r->end - r->pos, r->end);
    sub->base = r->base;
    sub->pos = r->pos;
    sub->end = r->pos + len;
    r->pos += len;
    return TP_OK;
}

static tp_status need(const tp_pb *r, uint64_t n, const char *what, tp_error *err) {
    if (r->end - r->pos < n)
        return tp_error_setx(err, TP_ERR_PARSE, r->pos, TP_NO_NODE,
                             "truncated %s at offset %" PRIu64 " (needs %" PRIu64 " bytes, %" PRIu64
                             " left)",
                             what, r->pos, n, r->end - r->pos);
    return TP_OK;
}

tp_status tp__pb_fixed32(tp_pb *r, uint32_t *out, tp_error *err) {
    tp_status s = need(r, 4, "fixed32", err);
    if (s != TP_OK) return s;
    const uint8_t *p = r->base + r->pos;
    *out = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    r->pos += 4;
    return TP_OK;
}

tp_status tp__pb_fixed64(tp_pb *r, uint64_t *out, tp_error *err) {
    tp_status s = need(r, 8, "fixed64", err);
    if (s != TP_OK) return s;
    const uint8_t *p = r->base + r->pos;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    *out = v;
    r->pos += 8;
    return TP_OK;
}

tp_status tp__pb_skip(tp_pb *r, uint32_t wire, tp_error *err) {
    uint64_t v;
    uint32_t v32;
    tp_pb sub;
    switch (wire) {
    case TP_PB_VARINT:
        return tp__pb_varint(r, &v, err);
    case TP_PB_FIXED64:
        return tp__pb_fixed64(r, &v, err);
    case TP_PB_FIXED32:
        return tp__pb_fixed32(r, &v32, err);
    case TP_PB_LEN:
        return tp__pb_len(r, &sub, err);
    default:
        return tp_error_setx(err, TP_ERR_PARSE, r->pos, TP_NO_NODE,
                             "cannot skip wire type %u at offset %" PRIu64, wire, r->pos);
    }
}

tp_status tp__pb_wire_error(tp_error *err, uint64_t at, uint32_t field, const char *what,
                            uint32_t wire, uint32_t want) {
    return tp_error_setx(err, TP_ERR_PARSE, at, TP_NO_NODE,
                         "field %u (%s) at offset %" PRIu64 " has wire type %u (%s), expected %s",
                         field, what, at, wire, wire_name(wire), wire_name(want));
}

tp_status tp__pb_count_packed_varints(const tp_pb *run, uint64_t *count, tp_error *err) {
    uint64_t n = 0;
    const uint8_t *p = run->base;
    for (uint64_t i = run->pos; i < run->end; i++)
        n += p[i] < 0x80;
    if (run->end > run->pos && p[run->end - 1] >= 0x80)
        return tp_error_setx(err, TP_ERR_PARSE, run->end - 1, TP_NO_NODE,
                             "packed varints starting at offset %" PRIu64
                             " end inside a varint at offset %" PRIu64,
                             run->pos, run->end - 1);
    *count = n;
    return TP_OK;
}

tp_status tp__pb_int64(tp_pb *r, uint32_t wire, uint32_t field, const char *what, int64_t *out,
                       tp_error *err) {
    if (wire != TP_PB_VARINT) return tp__pb_wire_error(err, r->pos, field, what, wire, 0);
    uint64_t v;
    tp_status s = tp__pb_varint(r, &v, err);
    if (s != TP_OK) return s;
    *out = (int64_t)v;
    return TP_OK;
}

tp_status tp__pb_int32(tp_pb *r, uint32_t wire, uint32_t field, const char *what, int32_t *out,
                       tp_error *err) {
    int64_t v = 0; /* gcc -O2 with hidden visibility inlines tp__pb_int64 and cannot see it set */
    tp_status s = tp__pb_int64(r, wire, field, what, &v, err);
    if (s != TP_OK) return s;
    *out = (int32_t)(uint32_t)((uint64_t)v & 0xffffffffu);
    return TP_OK;
}

tp_status tp__pb_bytes(tp_pb *r, uint32_t wire, uint32_t field, const char *what, tp_pb *sub,
                       tp_error *err) {
    if (wire != TP_PB_LEN) return tp__pb_wire_error(err, r->pos, field, what, wire, TP_PB_LEN);
    return tp__pb_len(r, sub, err);
}
