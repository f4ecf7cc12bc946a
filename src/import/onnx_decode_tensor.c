/* ONNX TensorProto / SparseTensorProto decoding and value access. Tensor data
 * is never copied: raw_data stays in the mapping; small typed arrays are
 * decoded into the arena. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "import/onnx_decode.h"

enum {
    F_DIMS = 1,
    F_DATA_TYPE = 2,
    F_SEGMENT = 3,
    F_FLOAT_DATA = 4,
    F_INT32_DATA = 5,
    F_STRING_DATA = 6,
    F_INT64_DATA = 7,
    F_NAME = 8,
    F_RAW_DATA = 9,
    F_DOUBLE_DATA = 10,
    F_UINT64_DATA = 11,
    F_EXTERNAL_DATA = 13,
    F_DATA_LOCATION = 14
};

/* Which typed field holds a data type's values, and values per element. */
static int32_t typed_field_for(int32_t dt, uint32_t *per_elem) {
    *per_elem = 1;
    switch (dt) {
    case TP_ONNX_FLOAT:
        return F_FLOAT_DATA;
    case TP_ONNX_COMPLEX64:
        *per_elem = 2;
        return F_FLOAT_DATA;
    case TP_ONNX_STRING:
        return F_STRING_DATA;
    case TP_ONNX_INT64:
        return F_INT64_DATA;
    case TP_ONNX_DOUBLE:
        return F_DOUBLE_DATA;
    case TP_ONNX_COMPLEX128:
        *per_elem = 2;
        return F_DOUBLE_DATA;
    case TP_ONNX_UINT32:
    case TP_ONNX_UINT64:
        return F_UINT64_DATA;
    case TP_ONNX_UINT4:
    case TP_ONNX_INT4:
    case TP_ONNX_FLOAT4E2M1:
        *per_elem = 0;
        return F_INT32_DATA;
    default:
        return F_INT32_DATA;
    }
}

static const char *typed_field_name(int32_t f) {
    switch (f) {
    case F_FLOAT_DATA:
        return "float_data";
    case F_INT32_DATA:
        return "int32_data";
    case F_STRING_DATA:
        return "string_data";
    case F_INT64_DATA:
        return "int64_data";
    case F_DOUBLE_DATA:
        return "double_data";
    case F_UINT64_DATA:
        return "uint64_data";
    default:
        return "?";
    }
}

static bool is_typed_field(uint32_t f) {
    return f == F_FLOAT_DATA || f == F_INT32_DATA || f == F_STRING_DATA || f == F_INT64_DATA ||
           f == F_DOUBLE_DATA || f == F_UINT64_DATA;
}

/* Wire type of one element of a typed field. */
static uint32_t typed_elem_wire(uint32_t f) {
    if (f == F_FLOAT_DATA) return TP_PB_FIXED32;
    if (f == F_DOUBLE_DATA) return TP_PB_FIXED64;
    if (f == F_STRING_DATA) return TP_PB_LEN;
    return TP_PB_VARINT;
}

/* Count the values of one occurrence of a repeated scalar field (packed or
 * not). r is positioned after the key. */
static tp_status count_repeated(tp_pb *r, uint32_t field, uint32_t wire, uint32_t elem_wire,
                                const char *what, uint64_t *count, tp_error *err) {
    uint64_t at = r->pos, n;
    tp_pb run;
    tp_status s;
    if (wire == elem_wire) {
        *count += 1;
        return tp__pb_skip(r, wire, err);
    }
    if (wire != TP_PB_LEN || elem_wire == TP_PB_LEN)
        return tp__pb_wire_error(err, at, field, what, wire, elem_wire);
    if ((s = tp__pb_len(r, &run, err)) != TP_OK) return s;
    uint64_t len = run.end - run.pos;
    if (elem_wire == TP_PB_VARINT) {
        if ((s = tp__pb_count_packed_varints(&run, &n, err)) != TP_OK) return s;
    } else {
        uint64_t w = elem_wire == TP_PB_FIXED32 ? 4 : 8;
        if (len % w != 0)
            return tp_error_setx(err, TP_ERR_PARSE, at, TP_NO_NODE,
                                 "packed %s at offset %" PRIu64 " has %" PRIu64
                                 " bytes, not a multiple of %" PRIu64,
                                 what, at, len, w);
        n = len / w;
    }
    *count += n;
    return TP_OK;
}

/* Decode values of one occurrence of a repeated scalar field into out[*k..]
 * as raw 64-bit words (varint value, or fixed32/64 bits). */
static tp_status read_repeated(tp_pb *r, uint32_t wire, uint32_t elem_wire, uint64_t *out,
                               uint64_t cap, uint64_t *k, tp_error *err) {
    tp_status s;
    tp_pb run;
    if (wire == elem_wire) {
        run = *r;
        run.end = r->end;
    } else {
        if ((s = tp__pb_len(r, &run, err)) != TP_OK) return s;
    }
    do {
        uint64_t v = 0;
        uint32_t v32;
        if (elem_wire == TP_PB_VARINT)
            s = tp__pb_varint(&run, &v, err);
        else if (elem_wire == TP_PB_FIXED32) {
            s = tp__pb_fixed32(&run, &v32, err);
            v = v32;
        } else
            s = tp__pb_fixed64(&run, &v, err);
        if (s != TP_OK) return s;
        if (*k < cap) out[*k] = v;
        (*k)++;
    } while (wire != elem_wire && !tp__pb_done(&run));
    if (wire == elem_wire) r->pos = run.pos;
    return TP_OK;
}

static tp_status parse_decimal(tp_onnx_dctx *c, const char *s, uint64_t at, const char *key,
                               uint64_t *out) {
    uint64_t v = 0;
    if (!*s) goto bad;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') goto bad;
        if (!tp_mul_u64(v, 10, &v) || !tp_add_u64(v, (uint64_t)(*p - '0'), &v)) goto bad;
    }
    *out = v;
    return TP_OK;
bad:
    return tp_error_setx(
        c->err, TP_ERR_PARSE, at, TP_NO_NODE,
        "external_data '%s' at offset %" PRIu64 " is not a non-negative integer: '%s'", key, at, s);
}

static tp_status decode_external_entry(tp_onnx_dctx *c, tp_pb r, tp_onnx_tensor *t) {
    const char *key = "", *val = "";
    uint64_t at = r.pos;
    tp_status s;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        if ((s = tp__pb_tag(&r, &f, &w, c->err)) != TP_OK) return s;
        if (f == 1 || f == 2) {
            if ((s = tp__pb_bytes(&r, w, f, f == 1 ? "key" : "value", &sub, c->err)) != TP_OK)
                return s;
            if ((s = tp__onnx_str(c, &sub, f == 1 ? &key : &val)) != TP_OK) return s;
        } else if ((s = tp__pb_skip(&r, w, c->err)) != TP_OK)
            return s;
    }
    if (strcmp(key, "location") == 0) {
        t->ext_location = val;
    } else if (strcmp(key, "offset") == 0) {
        return parse_decimal(c, val, at, key, &t->ext_offset);
    } else if (strcmp(key, "length") == 0) {
        return parse_decimal(c, val, at, key, &t->ext_length);
    }
    return TP_OK;
}

/* Decode the small typed values into the arena (the field was validated). */
static tp_status decode_small_typed(tp_onnx_dctx *c, tp_pb r, tp_onnx_tensor *t) {
    bool ok;
    uint64_t n = t->n_typed, k = 0;
    uint64_t *words = tp__onnx_arena_array(c->arena, n, sizeof *words, &ok);
    if (!ok) return tp__onnx_nomem(c, "tensor values");
    uint32_t ew = typed_elem_wire((uint32_t)t->typed_field);
    tp_status s;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        if ((s = tp__pb_tag(&r, &f, &w, c->err)) != TP_OK) return s;
        if ((int32_t)f == t->typed_field) {
            if ((s = read_repeated(&r, w, ew, words, n, &k, c->err)) != TP_OK) return s;
        } else if ((s = tp__pb_skip(&r, w, c->err)) != TP_OK)
            return s;
    }
    /* Convert the 64-bit words in place into the field's element type (each
     * element is no wider than a word, so a forward pass is safe). */
    switch (t->typed_field) {
    case F_FLOAT_DATA: {
        float *p = (float *)(void *)words;
        for (uint64_t i = 0; i < n; i++) {
            uint32_t b = (uint32_t)words[i];
            memcpy(&p[i], &b, 4);
        }
        t->float_data = p;
        break;
    }
    case F_INT32_DATA: {
        int32_t *p = (int32_t *)(void *)words;
        for (uint64_t i = 0; i < n; i++)
            p[i] = (int32_t)(uint32_t)(words[i] & 0xffffffffu);
        t->int32_data = p;
        break;
    }
    case F_INT64_DATA:
        t->int64_data = (const int64_t *)(void *)words;
        break;
    case F_DOUBLE_DATA: {
        double *p = (double *)(void *)words;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t b = words[i];
            memcpy(&p[i], &b, 8);
        }
        t->double_data = p;
        break;
    }
    case F_UINT64_DATA:
        t->uint64_data = words;
        break;
    default:
        break;
    }
    return TP_OK;
}

tp_status tp__onnx_decode_tensor(tp_onnx_dctx *c, tp_pb r, tp_onnx_tensor *t) {
    tp_status s;
    const tp_pb start = r;
    uint64_t n_dims = 0, n_ext = 0, counts[12] = {0};
    uint64_t typed_at = 0;
    bool have_raw = false;
    t->name = "";
    t->ext_location = "";
    t->msg_offset = r.pos;
    t->msg_size = r.end - r.pos;
    if ((s = tp__onnx_enter(c, r.pos, "TensorProto")) != TP_OK) return s;

    /* pass 1: scalars, raw_data, counts */
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        uint64_t at = r.pos;
        tp_pb sub;
        if ((s = tp__pb_tag(&r, &f, &w, c->err)) != TP_OK) return s;
        if (f == F_DIMS) {
            s = count_repeated(&r, f, w, TP_PB_VARINT, "dims", &n_dims, c->err);
        } else if (f == F_DATA_TYPE) {
            s = tp__pb_int32(&r, w, f, "data_type", &t->data_type, c->err);
        } else if (f == F_NAME) {
            if ((s = tp__pb_bytes(&r, w, f, "name", &sub, c->err)) == TP_OK)
                s = tp__onnx_name(c, &sub, &t->name);
        } else if (f == F_RAW_DATA) {
            if ((s = tp__pb_bytes(&r, w, f, "raw_data", &sub, c->err)) == TP_OK) {
                have_raw = true;
                t->raw_offset = sub.pos;
                t->raw_size = sub.end - sub.pos;
                t->raw = t->raw_size ? sub.base + sub.pos : NULL;
            }
        } else if (is_typed_field(f)) {
            if (!typed_at) typed_at = at;
            if (t->typed_field && t->typed_field != (int32_t)f)
                return tp_error_setx(
                    c->err, TP_ERR_PARSE, at, TP_NO_NODE,
                    "tensor '%s' has values in both %s and %s (offset %" PRIu64 ")", t->name,
                    typed_field_name(t->typed_field), typed_field_name((int32_t)f), at);
            t->typed_field = (int32_t)f;
            s = count_repeated(&r, f, w, typed_elem_wire(f), typed_field_name((int32_t)f),
                               &counts[f], c->err);
        } else if (f == F_EXTERNAL_DATA) {
            n_ext++;
            s = tp__pb_bytes(&r, w, f, "external_data", &sub, c->err);
        } else if (f == F_DATA_LOCATION) {
            int32_t loc;
            if ((s = tp__pb_int32(&r, w, f, "data_location", &loc, c->err)) == TP_OK) {
                if (loc != 0 && loc != 1)
                    return tp_error_setx(c->err, TP_ERR_PARSE, at, TP_NO_NODE,
                                         "tensor '%s': invalid data_location %d at offset %" PRIu64,
                                         t->name, loc, at);
                if (loc == 1) t->location = TP_ONNX_DATA_EXTERNAL;
            }
        } else {
            s = tp__pb_skip(&r, w, c->err);
        }
        if (s != TP_OK) return s;
    }

    /* dims (pass 2 over the dims fields only) */
    bool ok;
    int64_t *dims = tp__onnx_arena_array(c->arena, n_dims, sizeof *dims, &ok);
    if (!ok) return tp__onnx_nomem(c, "tensor dims");
    if (n_dims > UINT32_MAX)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "tensor '%s' has too many dims", t->name);
    t->rank = (uint32_t)n_dims;
    t->dims = dims;
    uint64_t k = 0;
    r = start;
    while (!tp__pb_done(&r) && (n_dims || n_ext)) {
        uint32_t f, w;
        tp_pb sub;
        if ((s = tp__pb_tag(&r, &f, &w, c->err)) != TP_OK) return s;
        if (f == F_DIMS) {
            s = read_repeated(&r, w, TP_PB_VARINT, (uint64_t *)(void *)dims, n_dims, &k, c->err);
        } else if (f == F_EXTERNAL_DATA) {
            if ((s = tp__pb_len(&r, &sub, c->err)) == TP_OK) {
                if ((s = tp__onnx_enter(c, sub.pos, "external_data entry")) != TP_OK) return s;
                s = decode_external_entry(c, sub, t);
                c->depth--;
            }
        } else {
            s = tp__pb_skip(&r, w, c->err);
        }
        if (s != TP_OK) return s;
    }
    uint64_t ne = 1;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (dims[i] < 0)
            return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                                 "tensor '%s' (offset %" PRIu64 ") has negative dim %" PRId64
                                 " at axis %u",
                                 t->name, start.pos, dims[i], i);
        if (!tp_mul_u64(ne, (uint64_t)dims[i], &ne))
            return tp_error_setx(c->err, TP_ERR_OVERFLOW, start.pos, TP_NO_NODE,
                                 "tensor '%s' (offset %" PRIu64
                                 "): element count overflows 64 bits",
                                 t->name, start.pos);
    }
    t->n_elements = ne;
    if (t->data_type <= 0 || t->data_type >= TP_ONNX_ELEM_TYPE_COUNT)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "tensor '%s' (offset %" PRIu64 ") has invalid data_type %d", t->name,
                             start.pos, t->data_type);
    if (!tp__onnx_elem_bytes(t->data_type, ne, &t->n_bytes))
        return tp_error_setx(c->err, TP_ERR_OVERFLOW, start.pos, TP_NO_NODE,
                             "tensor '%s' (offset %" PRIu64 "): byte size overflows 64 bits",
                             t->name, start.pos);

    /* where the data is, and consistency */
    if (t->location == TP_ONNX_DATA_EXTERNAL) {
        if (!t->ext_location[0])
            return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                                 "tensor '%s' (offset %" PRIu64
                                 ") has external data without a location",
                                 t->name, start.pos);
        if (t->ext_length && t->data_type != TP_ONNX_STRING && t->ext_length != t->n_bytes)
            return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                                 "tensor '%s' (offset %" PRIu64 "): external length %" PRIu64
                                 " does not match dims × element size = %" PRIu64,
                                 t->name, start.pos, t->ext_length, t->n_bytes);
        c->depth--;
        return TP_OK;
    }
    if (have_raw && t->typed_field)
        return tp_error_setx(c->err, TP_ERR_PARSE, typed_at, TP_NO_NODE,
                             "tensor '%s' has both raw_data and %s (offset %" PRIu64 ")", t->name,
                             typed_field_name(t->typed_field), typed_at);
    if (have_raw) {
        t->location = TP_ONNX_DATA_RAW;
        if (t->data_type != TP_ONNX_STRING && t->raw_size != t->n_bytes)
            return tp_error_setx(c->err, TP_ERR_PARSE, t->raw_offset, TP_NO_NODE,
                                 "tensor '%s': raw_data at offset %" PRIu64 " has %" PRIu64
                                 " bytes, dims × element size need %" PRIu64,
                                 t->name, t->raw_offset, t->raw_size, t->n_bytes);
    } else if (t->typed_field) {
        uint32_t per;
        int32_t want = typed_field_for(t->data_type, &per);
        t->location = TP_ONNX_DATA_TYPED;
        t->n_typed = counts[t->typed_field];
        if (want != t->typed_field)
            return tp_error_setx(
                c->err, TP_ERR_PARSE, typed_at, TP_NO_NODE,
                "tensor '%s' of type %s stores values in %s at offset %" PRIu64 " (expected %s)",
                t->name, tp_onnx_elem_type_name(t->data_type), typed_field_name(t->typed_field),
                typed_at, typed_field_name(want));
        uint64_t expect;
        if (per && (!tp_mul_u64(ne, per, &expect) || expect != t->n_typed))
            return tp_error_setx(
                c->err, TP_ERR_PARSE, typed_at, TP_NO_NODE,
                "tensor '%s' has %" PRIu64 " values in %s (offset %" PRIu64 "), dims need %" PRIu64,
                t->name, t->n_typed, typed_field_name(t->typed_field), typed_at, ne * per);
        if (t->typed_field != F_STRING_DATA && t->n_typed <= TP_ONNX_SMALL_VALUES &&
            (s = decode_small_typed(c, start, t)) != TP_OK)
            return s;
    }
    c->depth--;
    return TP_OK;
}

tp_status tp__onnx_decode_sparse(tp_onnx_dctx *c, tp_pb r, tp_onnx_sparse_tensor *t) {
    tp_status s;
    const tp_pb start = r;
    uint64_t n_dims = 0;
    bool have_values = false;
    if ((s = tp__onnx_enter(c, r.pos, "SparseTensorProto")) != TP_OK) return s;
    t->values.name = t->indices.name = "";
    t->values.ext_location = t->indices.ext_location = "";
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        if ((s = tp__pb_tag(&r, &f, &w, c->err)) != TP_OK) return s;
        if (f == 1 || f == 2) {
            if ((s = tp__pb_bytes(&r, w, f, f == 1 ? "values" : "indices", &sub, c->err)) == TP_OK)
                s = tp__onnx_decode_tensor(c, sub, f == 1 ? &t->values : &t->indices);
            if (f == 1) have_values = true;
        } else if (f == 3) {
            s = count_repeated(&r, f, w, TP_PB_VARINT, "dims", &n_dims, c->err);
        } else {
            s = tp__pb_skip(&r, w, c->err);
        }
        if (s != TP_OK) return s;
    }
    if (!have_values)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "sparse tensor at offset %" PRIu64 " has no values", start.pos);
    bool ok;
    int64_t *dims = tp__onnx_arena_array(c->arena, n_dims, sizeof *dims, &ok);
    if (!ok) return tp__onnx_nomem(c, "sparse tensor dims");
    uint64_t k = 0, ne = 1;
    r = start;
    while (!tp__pb_done(&r) && n_dims) {
        uint32_t f, w;
        if ((s = tp__pb_tag(&r, &f, &w, c->err)) != TP_OK) return s;
        if (f == 3)
            s = read_repeated(&r, w, TP_PB_VARINT, (uint64_t *)(void *)dims, n_dims, &k, c->err);
        else
            s = tp__pb_skip(&r, w, c->err);
        if (s != TP_OK) return s;
    }
    for (uint64_t i = 0; i < n_dims; i++) {
        if (dims[i] < 0)
            return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                                 "sparse tensor '%s' (offset %" PRIu64
                                 ") has negative dim %" PRId64,
                                 t->values.name, start.pos, dims[i]);
        if (!tp_mul_u64(ne, (uint64_t)dims[i], &ne))
            return tp_error_setx(c->err, TP_ERR_OVERFLOW, start.pos, TP_NO_NODE,
                                 "sparse tensor '%s': element count overflows 64 bits",
                                 t->values.name);
    }
    t->rank = (uint32_t)n_dims;
    t->dims = dims;
    t->n_elements = ne;
    c->depth--;
    return TP_OK;
}

/* ---- value access ---- */

static double half_to_double(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp((double)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp((double)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static double bf16_to_double(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
}

static uint64_t le_word(const uint8_t *p, uint32_t n) {
    uint64_t v = 0;
    for (uint32_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* One element as double and int64 from its raw little-endian bytes or typed word. */
static void convert_scalar(int32_t dt, uint64_t w, double *d, int64_t *i) {
    switch (dt) {
    case TP_ONNX_FLOAT: {
        float f;
        uint32_t b = (uint32_t)w;
        memcpy(&f, &b, 4);
        *d = (double)f;
        break;
    }
    case TP_ONNX_DOUBLE:
        memcpy(d, &w, 8);
        break;
    case TP_ONNX_FLOAT16:
        *d = half_to_double((uint16_t)w);
        break;
    case TP_ONNX_BFLOAT16:
        *d = bf16_to_double((uint16_t)w);
        break;
    case TP_ONNX_INT8:
        *i = (int8_t)(uint8_t)w;
        *d = (double)*i;
        return;
    case TP_ONNX_INT16:
        *i = (int16_t)(uint16_t)w;
        *d = (double)*i;
        return;
    case TP_ONNX_INT32:
        *i = (int32_t)(uint32_t)w;
        *d = (double)*i;
        return;
    case TP_ONNX_BOOL:
        *i = (w & 0xff) != 0;
        *d = (double)*i;
        return;
    case TP_ONNX_UINT64:
        *i = (int64_t)w;
        *d = (double)w;
        return;
    case TP_ONNX_UINT8:
        w &= 0xff;
        *i = (int64_t)w;
        *d = (double)w;
        return;
    case TP_ONNX_UINT16:
        w &= 0xffff;
        *i = (int64_t)w;
        *d = (double)w;
        return;
    case TP_ONNX_UINT32:
        w &= 0xffffffffu;
        *i = (int64_t)w;
        *d = (double)w;
        return;
    default:
        *i = (int64_t)w;
        *d = (double)*i;
        return; /* INT64 */
    }
    /* float types: truncate toward zero into int64, saturating */
    if (*d != *d)
        *i = 0;
    else if (*d >= 9.2233720368547758e18)
        *i = INT64_MAX;
    else if (*d <= -9.2233720368547758e18)
        *i = INT64_MIN;
    else
        *i = (int64_t)*d;
}

/* Up to cap values into oi / od (either may be NULL); where omin is not NULL, the least of them
   (never a NaN) into it. */
static tp_status read_values(const tp_onnx_model *m, const tp_onnx_tensor *t, int64_t *oi,
                             double *od, double *omin, uint64_t cap, uint64_t *n, tp_error *err) {
    int32_t dt = t->data_type;
    uint32_t es = tp__onnx_elem_size(dt);
    bool numeric = dt == TP_ONNX_FLOAT || dt == TP_ONNX_DOUBLE || dt == TP_ONNX_FLOAT16 ||
                   dt == TP_ONNX_BFLOAT16 || dt == TP_ONNX_BOOL ||
                   (dt >= TP_ONNX_UINT8 && dt <= TP_ONNX_INT64) || dt == TP_ONNX_UINT32 ||
                   dt == TP_ONNX_UINT64;
    *n = t->n_elements;
    if (!numeric)
        return tp_error_set(err, TP_ERR_UNSUPPORTED, "cannot read values of tensor '%s' of type %s",
                            t->name, tp_onnx_elem_type_name(dt));
    if (t->location == TP_ONNX_DATA_EXTERNAL || t->location == TP_ONNX_DATA_NONE) {
        if (t->n_elements == 0) return TP_OK;
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "values of tensor '%s' are not in the file (%s)", t->name,
                            t->location == TP_ONNX_DATA_EXTERNAL ? "external data" : "no data");
    }
    uint64_t want = t->n_elements < cap ? t->n_elements : cap;
    if (t->location == TP_ONNX_DATA_RAW) {
        if (t->raw_size / es < want)
            return tp_error_setx(err, TP_ERR_PARSE, t->raw_offset, TP_NO_NODE,
                                 "tensor '%s': raw_data at offset %" PRIu64 " is too short",
                                 t->name, t->raw_offset);
        for (uint64_t k = 0; k < want; k++) {
            double d = 0;
            int64_t i = 0;
            convert_scalar(dt, le_word(t->raw + k * es, es), &d, &i);
            if (oi) oi[k] = i;
            if (od) od[k] = d;
            if (omin && d < *omin) *omin = d;
        }
        return TP_OK;
    }
    /* typed fields: re-read the TensorProto message */
    tp_pb r = {m->data, t->msg_offset, t->msg_offset + t->msg_size};
    uint32_t ew = typed_elem_wire((uint32_t)t->typed_field);
    uint64_t k = 0;
    while (!tp__pb_done(&r) && k < want) {
        uint32_t f, w;
        tp_status s = tp__pb_tag(&r, &f, &w, err);
        if (s != TP_OK) return s;
        if ((int32_t)f != t->typed_field) {
            if ((s = tp__pb_skip(&r, w, err)) != TP_OK) return s;
            continue;
        }
        tp_pb run;
        if (w == ew) {
            run = r;
        } else if ((s = tp__pb_len(&r, &run, err)) != TP_OK) {
            return s;
        }
        do {
            uint64_t v = 0;
            uint32_t v32;
            if (ew == TP_PB_VARINT) {
                s = tp__pb_varint(&run, &v, err);
            } else if (ew == TP_PB_FIXED32) {
                s = tp__pb_fixed32(&run, &v32, err);
                v = v32;
            } else {
                s = tp__pb_fixed64(&run, &v, err);
            }
            if (s != TP_OK) return s;
            double d = 0;
            int64_t i = 0;
            if (t->typed_field == F_INT32_DATA && (dt == TP_ONNX_FLOAT16 || dt == TP_ONNX_BFLOAT16))
                v &= 0xffff;
            convert_scalar(dt, v, &d, &i);
            if (oi) oi[k] = i;
            if (od) od[k] = d;
            if (omin && d < *omin) *omin = d;
            k++;
        } while (w != ew && !tp__pb_done(&run) && k < want);
        if (w == ew) r.pos = run.pos;
    }
    if (k < want)
        return tp_error_setx(err, TP_ERR_PARSE, t->msg_offset, TP_NO_NODE,
                             "tensor '%s' (offset %" PRIu64 ") has fewer values than its dims",
                             t->name, t->msg_offset);
    return TP_OK;
}

tp_status tp__onnx_tensor_read_i64(const tp_onnx_model *m, const tp_onnx_tensor *t, int64_t *out,
                                   uint64_t cap, uint64_t *n, tp_error *err) {
    return read_values(m, t, out, NULL, NULL, cap, n, err);
}

tp_status tp__onnx_tensor_read_f64(const tp_onnx_model *m, const tp_onnx_tensor *t, double *out,
                                   uint64_t cap, uint64_t *n, tp_error *err) {
    return read_values(m, t, NULL, out, NULL, cap, n, err);
}

tp_status tp__onnx_tensor_min_f64(const tp_onnx_model *m, const tp_onnx_tensor *t, double *min,
                                  tp_error *err) {
    uint64_t n = 0;
    *min = INFINITY;
    return read_values(m, t, NULL, NULL, min, t->n_elements, &n, err);
}
