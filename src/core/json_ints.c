/* A strict json_reader of a flat JSON object of integers (json_ints.h). */
#include "core/json_ints.h"

#include <string.h>

typedef struct json_reader {
    const unsigned char *s;
    size_t len, pos;
    tp_error *err;
} json_reader;

static tp_status json_fail(json_reader *r, size_t at, const char *what) {
    if (at >= r->len)
        return tp_error_set(r->err, TP_ERR_PARSE, "offset %zu: %s (at the end of the text)", at,
                            what);
    unsigned char c = r->s[at];
    if (c >= 0x20 && c < 0x7f)
        return tp_error_set(r->err, TP_ERR_PARSE, "offset %zu: %s (found '%c')", at, what, c);
    return tp_error_set(r->err, TP_ERR_PARSE, "offset %zu: %s (found byte 0x%02x)", at, what, c);
}

static void skip_ws(json_reader *r) {
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
                               r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
        r->pos++;
}

static int hex4(const unsigned char *p) {
    int v = 0;
    for (int k = 0; k < 4; k++) {
        int c = p[k], d = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n) {
    unsigned char c = p[0];
    size_t k;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf)
        k = 2, cp = c & 0x1fu;
    else if (c >= 0xe0 && c <= 0xef)
        k = 3, cp = c & 0x0fu;
    else if (c >= 0xf0 && c <= 0xf4)
        k = 4, cp = c & 0x07u;
    else
        return 0;
    if (n < k) return 0;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return k;
}

static size_t put_utf8(uint32_t cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A \uXXXX escape at r->pos (the backslash), a surrogate pair taken whole. */
static tp_status read_u_escape(json_reader *r, uint32_t *cp) {
    size_t at = r->pos;
    int hi = r->pos + 6 <= r->len ? hex4(r->s + r->pos + 2) : -1;
    if (hi < 0) return json_fail(r, at, "\\u needs four hex digits");
    r->pos += 6;
    if (hi >= 0xdc00 && hi <= 0xdfff) return json_fail(r, at, "lone low surrogate");
    if (hi < 0xd800 || hi > 0xdbff) {
        if (hi == 0) return json_fail(r, at, "a NUL character (U+0000) in a name");
        *cp = (uint32_t)hi;
        return TP_OK;
    }
    int lo = r->pos + 6 <= r->len && r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u'
                 ? hex4(r->s + r->pos + 2)
                 : -1;
    if (lo < 0xdc00 || lo > 0xdfff) return json_fail(r, at, "high surrogate without its low half");
    r->pos += 6;
    *cp = 0x10000u + ((uint32_t)(hi - 0xd800) << 10) + (uint32_t)(lo - 0xdc00);
    return TP_OK;
}

/* A string at r->pos (the opening quote), decoded into name. */
static tp_status read_name(json_reader *r, char *name) {
    size_t n = 0, start = r->pos;
    if (r->pos >= r->len || r->s[r->pos] != '"') return json_fail(r, r->pos, "expected a \"name\"");
    r->pos++;
    for (;;) {
        if (r->pos >= r->len) return json_fail(r, start, "unterminated string");
        unsigned char c = r->s[r->pos];
        char buf[4];
        size_t k = 0;
        if (c == '"') {
            r->pos++;
            name[n] = '\0';
            return TP_OK;
        }
        if (c < 0x20) return json_fail(r, r->pos, "control character in a string");
        if (c == '\\') {
            if (r->pos + 1 >= r->len) return json_fail(r, r->pos, "unterminated escape");
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *e = memchr(from, r->s[r->pos + 1], sizeof from - 1);
            if (e) {
                buf[k++] = to[e - from];
                r->pos += 2;
            } else if (r->s[r->pos + 1] == 'u') {
                uint32_t cp = 0;
                tp_status st = read_u_escape(r, &cp);
                if (st != TP_OK) return st;
                k = put_utf8(cp, buf);
            } else {
                return json_fail(r, r->pos + 1, "unknown escape");
            }
        } else {
            k = utf8_len(r->s + r->pos, r->len - r->pos);
            if (k == 0) return json_fail(r, r->pos, "invalid UTF-8");
            memcpy(buf, r->s + r->pos, k);
            r->pos += k;
        }
        if (n + k > TP_JSON_INTS_NAME_MAX)
            return tp_error_set(r->err, TP_ERR_PARSE, "offset %zu: name longer than %d bytes",
                                start, TP_JSON_INTS_NAME_MAX);
        memcpy(name + n, buf, k);
        n += k;
    }
}

static tp_status read_int(json_reader *r, int64_t *out) {
    size_t at = r->pos;
    bool neg = r->pos < r->len && r->s[r->pos] == '-';
    if (neg) r->pos++;
    if (r->pos >= r->len || r->s[r->pos] < '0' || r->s[r->pos] > '9')
        return json_fail(r, r->pos, "expected an integer value");
    if (r->s[r->pos] == '0' && r->pos + 1 < r->len && r->s[r->pos + 1] >= '0' &&
        r->s[r->pos + 1] <= '9')
        return json_fail(r, r->pos, "leading zero in an integer");
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9') {
        uint64_t d = (uint64_t)(r->s[r->pos] - '0');
        if (v > (limit - d) / 10) return json_fail(r, at, "integer beyond 64 bits");
        v = v * 10 + d;
        r->pos++;
    }
    if (r->pos < r->len && (r->s[r->pos] == '.' || r->s[r->pos] == 'e' || r->s[r->pos] == 'E'))
        return json_fail(r, r->pos, "expected an integer (no fraction or exponent)");
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return TP_OK;
}

tp_status tp__json_read_ints(const char *text, size_t len, tp__json_int_member fn, void *user,
                             tp_error *err) {
    json_reader r = {(const unsigned char *)text, len, 0, err};
    char name[TP_JSON_INTS_NAME_MAX + 1];
    tp_status st;
    skip_ws(&r);
    if (r.pos >= r.len || r.s[r.pos] != '{') return json_fail(&r, r.pos, "expected '{'");
    r.pos++;
    skip_ws(&r);
    bool empty = r.pos < r.len && r.s[r.pos] == '}';
    while (!empty) {
        size_t at = r.pos;
        if ((st = read_name(&r, name)) != TP_OK) return st;
        skip_ws(&r);
        if (r.pos >= r.len || r.s[r.pos] != ':') return json_fail(&r, r.pos, "expected ':'");
        r.pos++;
        skip_ws(&r);
        int64_t v = 0;
        if ((st = read_int(&r, &v)) != TP_OK) return st;
        if ((st = fn(user, name, v, at, err)) != TP_OK) return st;
        skip_ws(&r);
        if (r.pos < r.len && r.s[r.pos] == '}') break;
        if (r.pos >= r.len || r.s[r.pos] != ',') return json_fail(&r, r.pos, "expected ',' or '}'");
        r.pos++;
        skip_ws(&r);
    }
    r.pos++;
    skip_ws(&r);
    if (r.pos < r.len) return json_fail(&r, r.pos, "text after the object");
    return TP_OK;
}
