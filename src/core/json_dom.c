/* A strict JSON reader building a read-only tree in a chunked arena (json_dom.h). */
#include "core/json_dom.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

typedef struct dom_chunk {
    struct dom_chunk *next;
    size_t cap, used; /* bytes of the whole block, bytes handed out (header included) */
} dom_chunk;

struct tp_jdoc {
    const tp_allocator *alloc;
    dom_chunk *chunks;
    tp_jv root;
};

typedef struct parser {
    const char *s;
    size_t len, pos;
    uint32_t max_depth;
    tp_jdoc *doc;
    tp_error *err;
} parser;

#define CHUNK_MIN 65536u
#define CHUNK_HEAD ((sizeof(dom_chunk) + 15u) & ~(size_t)15u)

/* size bytes, 16-byte aligned, from the current chunk or a new one; NULL on NOMEM. */
static void *arena(tp_jdoc *d, size_t size) {
    if (size > SIZE_MAX - CHUNK_HEAD - 15u) return NULL;
    size = (size + 15u) & ~(size_t)15u;
    dom_chunk *c = d->chunks;
    if (!c || c->cap - c->used < size) {
        size_t cap = size + CHUNK_HEAD > CHUNK_MIN ? size + CHUNK_HEAD : CHUNK_MIN;
        c = tp_mem_alloc(d->alloc, cap);
        if (!c) return NULL;
        c->next = d->chunks;
        c->cap = cap;
        c->used = CHUNK_HEAD;
        d->chunks = c;
    }
    void *p = (char *)c + c->used;
    c->used += size;
    return p;
}

static tp_status fail(parser *p, const char *what) {
    return tp_error_setx(p->err, TP_ERR_PARSE, p->pos, TP_NO_NODE, "offset %zu: %s", p->pos, what);
}

static tp_status nomem(parser *p) {
    return tp_error_set(p->err, TP_ERR_NOMEM, "json: out of memory at offset %zu", p->pos);
}

static void dom_skip_ws(parser *p) {
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static int dom_hex4(const char *s) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t dom_put_utf8(char *o, uint32_t cp) {
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at p->pos (the opening quote) into the arena, decoded. */
static tp_status parse_string(parser *p, const char **out, size_t *out_len) {
    size_t start = ++p->pos, end = start;
    while (end < p->len && p->s[end] != '"') {
        if (p->s[end] == '\\') end++;
        end++;
    }
    if (end >= p->len) return fail(p, "unterminated string");
    /* decoded text is never longer than the escaped text */
    char *o = arena(p->doc, end - start + 1);
    if (!o) return nomem(p);
    size_t n = 0;
    while (p->pos < end) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20) return fail(p, "control character in a string");
        if (c != '\\') {
            o[n++] = (char)c;
            p->pos++;
            continue;
        }
        char e = p->s[p->pos + 1];
        p->pos += 2;
        switch (e) {
        case '"':
            o[n++] = '"';
            break;
        case '\\':
            o[n++] = '\\';
            break;
        case '/':
            o[n++] = '/';
            break;
        case 'b':
            o[n++] = '\b';
            break;
        case 'f':
            o[n++] = '\f';
            break;
        case 'n':
            o[n++] = '\n';
            break;
        case 'r':
            o[n++] = '\r';
            break;
        case 't':
            o[n++] = '\t';
            break;
        case 'u': {
            p->pos -= 2;
            if (end - p->pos < 6) return fail(p, "short \\u escape");
            int hi = dom_hex4(p->s + p->pos + 2);
            if (hi < 0) return fail(p, "bad \\u escape");
            uint32_t cp = (uint32_t)hi;
            p->pos += 6;
            if (hi >= 0xD800 && hi <= 0xDBFF) {
                if (end - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                    return fail(p, "lone surrogate in a \\u escape");
                int lo = dom_hex4(p->s + p->pos + 2);
                if (lo < 0xDC00 || lo > 0xDFFF) return fail(p, "lone surrogate in a \\u escape");
                cp = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                p->pos += 6;
            } else if (hi >= 0xDC00 && hi <= 0xDFFF) {
                return fail(p, "lone surrogate in a \\u escape");
            }
            n += dom_put_utf8(o + n, cp);
            break;
        }
        default:
            p->pos -= 2;
            return fail(p, "bad escape in a string");
        }
    }
    o[n] = '\0';
    p->pos = end + 1;
    *out = o;
    *out_len = n;
    return TP_OK;
}

static tp_status parse_number(parser *p, tp_jv *v) {
    size_t start = p->pos, i = p->pos;
    bool integer = true;
    if (i < p->len && p->s[i] == '-') i++;
    if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') return fail(p, "bad number");
    if (p->s[i] == '0' && i + 1 < p->len && p->s[i + 1] >= '0' && p->s[i + 1] <= '9')
        return fail(p, "leading zero in a number");
    while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
        i++;
    if (i < p->len && p->s[i] == '.') {
        integer = false;
        i++;
        if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') return fail(p, "bad fraction");
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
            i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        integer = false;
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') return fail(p, "bad exponent");
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
            i++;
    }
    char buf[64];
    size_t n = i - start;
    if (n >= sizeof buf) return fail(p, "number longer than 63 characters");
    memcpy(buf, p->s + start, n);
    buf[n] = '\0';
    v->type = TP_J_NUM;
    v->num = strtod(buf, NULL);
    if (integer) {
        bool neg = buf[0] == '-';
        uint64_t m = 0;
        bool fits = true;
        for (size_t k = neg ? 1 : 0; k < n && fits; k++)
            fits = tp_mul_u64(m, 10, &m) && tp_add_u64(m, (uint64_t)(buf[k] - '0'), &m);
        if (fits && (neg ? m <= (uint64_t)INT64_MAX + 1 : m <= (uint64_t)INT64_MAX)) {
            v->is_int = true;
            v->i = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
        }
    }
    p->pos = i;
    return TP_OK;
}

static bool literal(parser *p, const char *word) {
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) return false;
    p->pos += n;
    return true;
}

static tp_status parse_value(parser *p, uint32_t depth, tp_jv *v);

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Elements or members into a temporary vector, then one arena copy. */
static tp_status parse_container(parser *p, uint32_t depth, tp_jv *v, bool object) {
    if (depth >= p->max_depth) return fail(p, "nested deeper than the limit");
    char close = object ? '}' : ']';
    p->pos++;
    tp_jv *items = NULL;
    const char **keys = NULL;
    size_t n = 0, cap = 0, kcap = 0;
    tp_status st = TP_OK;
    dom_skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
    } else {
        for (;;) {
            if (n >= UINT32_MAX) {
                st = fail(p, "more than 2^32 elements");
                goto done;
            }
            if (!tp_mem_grow(p->doc->alloc, (void **)&items, sizeof *items, &cap, n + 1) ||
                (object &&
                 !tp_mem_grow(p->doc->alloc, (void **)&keys, sizeof *keys, &kcap, n + 1))) {
                st = nomem(p);
                goto done;
            }
            memset(&items[n], 0, sizeof items[n]);
            dom_skip_ws(p);
            if (object) {
                if (p->pos >= p->len || p->s[p->pos] != '"') {
                    st = fail(p, "expected a member name");
                    goto done;
                }
                size_t klen;
                if ((st = parse_string(p, &keys[n], &klen)) != TP_OK) goto done;
                dom_skip_ws(p);
                if (p->pos >= p->len || p->s[p->pos] != ':') {
                    st = fail(p, "expected ':'");
                    goto done;
                }
                p->pos++;
                dom_skip_ws(p);
            }
            if ((st = parse_value(p, depth + 1, &items[n])) != TP_OK) goto done;
            n++;
            dom_skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->pos < p->len && p->s[p->pos] == close) {
                p->pos++;
                break;
            }
            st = fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
            goto done;
        }
    }
    v->type = object ? TP_J_OBJ : TP_J_ARR;
    v->n = (uint32_t)n;
    if (n) {
        tp_jv *ai = arena(p->doc, n * sizeof *ai);
        const char **ak = object ? arena(p->doc, n * sizeof *ak) : NULL;
        if (!ai || (object && !ak)) {
            st = nomem(p);
            goto done;
        }
        memcpy(ai, items, n * sizeof *ai);
        if (object) memcpy(ak, keys, n * sizeof *ak);
        v->items = ai;
        v->keys = ak;
        /* a repeated member name, found on a sorted copy of the names: O(n log n) */
        if (object && n > 1) {
            qsort(keys, n, sizeof *keys, cmp_names);
            for (size_t k = 1; k < n; k++)
                if (strcmp(keys[k - 1], keys[k]) == 0) {
                    st = tp_error_setx(p->err, TP_ERR_PARSE, v->offset, TP_NO_NODE,
                                       "offset %" PRIu64 ": member name '%.100s' is repeated in "
                                       "this object",
                                       v->offset, keys[k]);
                    goto done;
                }
        }
    }
done:
    tp_mem_free(p->doc->alloc, items, cap * sizeof *items);
    tp_mem_free(p->doc->alloc, keys, kcap * sizeof *keys);
    return st;
}

static tp_status parse_value(parser *p, uint32_t depth, tp_jv *v) {
    dom_skip_ws(p);
    v->offset = p->pos;
    if (p->pos >= p->len) return fail(p, "expected a value");
    char c = p->s[p->pos];
    if (c == '{' || c == '[') return parse_container(p, depth, v, c == '{');
    if (c == '"') {
        v->type = TP_J_STR;
        return parse_string(p, &v->str, &v->len);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(p, v);
    if (literal(p, "true")) {
        v->type = TP_J_BOOL;
        v->b = true;
        return TP_OK;
    }
    if (literal(p, "false")) {
        v->type = TP_J_BOOL;
        return TP_OK;
    }
    if (literal(p, "null")) {
        v->type = TP_J_NULL;
        return TP_OK;
    }
    return fail(p, "expected a value");
}

tp_status tp__json_parse(const char *text, size_t len, const tp_allocator *alloc,
                         uint32_t max_depth, tp_jdoc **out, tp_error *err) {
    if (!out || (!text && len)) return tp_error_set(err, TP_ERR_INVALID, "json: NULL argument");
    *out = NULL;
    tp_jdoc *d = tp_mem_alloc(alloc, sizeof *d);
    if (!d) return tp_error_set(err, TP_ERR_NOMEM, "json: out of memory");
    memset(d, 0, sizeof *d);
    d->alloc = alloc;
    parser p = {text ? text : "", len, 0, max_depth ? max_depth : 64, d, err};
    tp_status st = parse_value(&p, 0, &d->root);
    if (st == TP_OK) {
        dom_skip_ws(&p);
        if (p.pos != p.len) st = fail(&p, "text after the value");
    }
    if (st != TP_OK) {
        tp__json_free(d);
        return st;
    }
    *out = d;
    return TP_OK;
}

const tp_jv *tp__json_root(const tp_jdoc *d) {
    return d ? &d->root : NULL;
}

void tp__json_free(tp_jdoc *d) {
    if (!d) return;
    for (dom_chunk *c = d->chunks; c;) {
        dom_chunk *next = c->next;
        tp_mem_free(d->alloc, c, c->cap);
        c = next;
    }
    tp_mem_free(d->alloc, d, sizeof *d);
}

const tp_jv *tp__json_get(const tp_jv *v, const char *key) {
    if (!v || v->type != TP_J_OBJ) return NULL;
    for (uint32_t i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0) return &v->items[i];
    return NULL;
}

bool tp__json_get_u64(const tp_jv *obj, const char *key, uint64_t *out) {
    const tp_jv *v = tp__json_get(obj, key);
    if (!v || v->type != TP_J_NUM || !v->is_int || v->i < 0) return false;
    *out = (uint64_t)v->i;
    return true;
}
