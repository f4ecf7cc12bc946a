/* ONNX reader helpers: the arena that owns decoded structs, string copies,
 * element types, attribute/initializer/opset lookups. */
#include <inttypes.h>
#include <string.h>

#include "core/mem.h"
#include "import/onnx_decode.h"

/* ---- arena ---- */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t size; /* bytes of data[] */
    size_t used;
    _Alignas(16) unsigned char data[];
} arena_chunk;

struct tp_onnx_arena {
    const tp_allocator *alloc;
    arena_chunk *head;
};

#define ARENA_CHUNK 65536u

tp_status tp__onnx_arena_create(const tp_allocator *alloc, tp_onnx_arena **out) {
    tp_onnx_arena *a = tp_mem_alloc(alloc, sizeof *a);
    *out = a;
    if (!a) return TP_ERR_NOMEM;
    a->alloc = alloc;
    a->head = NULL;
    return TP_OK;
}

void tp__onnx_arena_destroy(tp_onnx_arena *a) {
    if (!a) return;
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        tp_mem_free(a->alloc, c, sizeof *c + c->size);
        c = next;
    }
    tp_mem_free(a->alloc, a, sizeof *a);
}

/* Carve size bytes aligned to align (1 or 16) from the head chunk, or from a
 * new chunk. Chunk data is 16-byte aligned. */
static void *arena_take(tp_onnx_arena *a, uint64_t size, size_t align) {
    if (size == 0) size = 1;
    if (size > SIZE_MAX / 2) return NULL;
    arena_chunk *c = a->head;
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || at > c->size || c->size - at < size) {
        size_t need = ((size_t)size + 15) & ~(size_t)15;
        size_t csize = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;
        arena_chunk *nc = tp_mem_alloc(a->alloc, sizeof *nc + csize);
        if (!nc) return NULL;
        nc->size = csize;
        nc->used = 0;
        if (c && csize != ARENA_CHUNK) {
            /* big block: keep the current chunk at the head for small requests */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
        at = 0;
    }
    void *p = c->data + at;
    c->used = at + (size_t)size;
    return p;
}

void *tp__onnx_arena_alloc(tp_onnx_arena *a, uint64_t size) {
    void *p = arena_take(a, size, 16);
    if (p) memset(p, 0, (size_t)(size ? size : 1));
    return p;
}

void *tp__onnx_arena_array(tp_onnx_arena *a, uint64_t count, uint64_t size, bool *ok) {
    uint64_t total;
    *ok = true;
    if (count == 0) return NULL;
    if (!tp_mul_u64(count, size, &total)) {
        *ok = false;
        return NULL;
    }
    void *p = tp__onnx_arena_alloc(a, total);
    if (!p) *ok = false;
    return p;
}

char *tp__onnx_arena_strndup(tp_onnx_arena *a, const uint8_t *s, uint64_t n) {
    if (n == UINT64_MAX) return NULL;
    char *p = arena_take(a, n + 1, 1); /* strings need no alignment */
    if (!p) return NULL;
    if (n) memcpy(p, s, (size_t)n);
    p[n] = '\0';
    return p;
}

/* ---- decode context helpers ---- */

tp_status tp__onnx_enter(tp_onnx_dctx *c, uint64_t at, const char *what) {
    if (c->depth >= c->max_depth)
        return tp_error_setx(c->err, TP_ERR_PARSE, at, TP_NO_NODE,
                             "%s at offset %" PRIu64 " is nested more than %u messages deep", what,
                             at, c->max_depth);
    c->depth++;
    return TP_OK;
}

tp_status tp__onnx_nomem(tp_onnx_dctx *c, const char *what) {
    return tp_error_set(c->err, TP_ERR_NOMEM, "out of memory decoding %s", what);
}

tp_status tp__onnx_str(tp_onnx_dctx *c, const tp_pb *sub, const char **out) {
    if (sub->end == sub->pos) { /* "" (missing optional inputs, defaults) shares one literal */
        *out = "";
        return TP_OK;
    }
    char *s = tp__onnx_arena_strndup(c->arena, sub->base + sub->pos, sub->end - sub->pos);
    if (!s) return tp__onnx_nomem(c, "a string");
    *out = s;
    return TP_OK;
}

tp_status tp__onnx_name(tp_onnx_dctx *c, const tp_pb *sub, const char **out) {
    const uint8_t *nul = memchr(sub->base + sub->pos, 0, (size_t)(sub->end - sub->pos));
    if (nul)
        return tp_error_setx(c->err, TP_ERR_PARSE, (uint64_t)(nul - sub->base), -1,
                             "a name contains a NUL byte at offset %llu (names that differ after "
                             "it would collide)",
                             (unsigned long long)(nul - sub->base));
    return tp__onnx_str(c, sub, out);
}

/* ---- element types ---- */

static const struct {
    const char *name;
    uint8_t size; /* bytes per element; 0 = variable/4-bit */
} elem_types[TP_ONNX_ELEM_TYPE_COUNT] = {
    [TP_ONNX_UNDEFINED] = {"UNDEFINED", 0},
    [TP_ONNX_FLOAT] = {"FLOAT", 4},
    [TP_ONNX_UINT8] = {"UINT8", 1},
    [TP_ONNX_INT8] = {"INT8", 1},
    [TP_ONNX_UINT16] = {"UINT16", 2},
    [TP_ONNX_INT16] = {"INT16", 2},
    [TP_ONNX_INT32] = {"INT32", 4},
    [TP_ONNX_INT64] = {"INT64", 8},
    [TP_ONNX_STRING] = {"STRING", 0},
    [TP_ONNX_BOOL] = {"BOOL", 1},
    [TP_ONNX_FLOAT16] = {"FLOAT16", 2},
    [TP_ONNX_DOUBLE] = {"DOUBLE", 8},
    [TP_ONNX_UINT32] = {"UINT32", 4},
    [TP_ONNX_UINT64] = {"UINT64", 8},
    [TP_ONNX_COMPLEX64] = {"COMPLEX64", 8},
    [TP_ONNX_COMPLEX128] = {"COMPLEX128", 16},
    [TP_ONNX_BFLOAT16] = {"BFLOAT16", 2},
    [TP_ONNX_FLOAT8E4M3FN] = {"FLOAT8E4M3FN", 1},
    [TP_ONNX_FLOAT8E4M3FNUZ] = {"FLOAT8E4M3FNUZ", 1},
    [TP_ONNX_FLOAT8E5M2] = {"FLOAT8E5M2", 1},
    [TP_ONNX_FLOAT8E5M2FNUZ] = {"FLOAT8E5M2FNUZ", 1},
    [TP_ONNX_UINT4] = {"UINT4", 0},
    [TP_ONNX_INT4] = {"INT4", 0},
    [TP_ONNX_FLOAT4E2M1] = {"FLOAT4E2M1", 0},
};

const char *tp_onnx_elem_type_name(int32_t elem_type) {
    if (elem_type < 0 || elem_type >= TP_ONNX_ELEM_TYPE_COUNT) return "?";
    return elem_types[elem_type].name;
}

uint32_t tp__onnx_elem_size(int32_t elem_type) {
    if (elem_type < 0 || elem_type >= TP_ONNX_ELEM_TYPE_COUNT) return 0;
    return elem_types[elem_type].size;
}

static bool is_4bit(int32_t t) {
    return t == TP_ONNX_UINT4 || t == TP_ONNX_INT4 || t == TP_ONNX_FLOAT4E2M1;
}

bool tp__onnx_elem_bytes(int32_t elem_type, uint64_t n, uint64_t *out) {
    if (elem_type == TP_ONNX_STRING) {
        *out = 0;
        return true;
    }
    if (is_4bit(elem_type)) {
        *out = n / 2 + (n & 1);
        return true;
    }
    uint32_t sz = tp__onnx_elem_size(elem_type);
    if (sz == 0) return false;
    return tp_mul_u64(n, sz, out);
}

tp_status tp_onnx_elem_type_to_dtype(int32_t elem_type, tp_dtype *out, tp_error *err) {
    tp_dtype d;
    switch (elem_type) {
    case TP_ONNX_FLOAT:
        d = TP_DTYPE_F32;
        break;
    case TP_ONNX_UINT8:
        d = TP_DTYPE_U8;
        break;
    case TP_ONNX_INT8:
        d = TP_DTYPE_I8;
        break;
    case TP_ONNX_UINT16:
        d = TP_DTYPE_U16;
        break;
    case TP_ONNX_INT16:
        d = TP_DTYPE_I16;
        break;
    case TP_ONNX_INT32:
        d = TP_DTYPE_I32;
        break;
    case TP_ONNX_INT64:
        d = TP_DTYPE_I64;
        break;
    case TP_ONNX_BOOL:
        d = TP_DTYPE_BOOL;
        break;
    case TP_ONNX_FLOAT16:
        d = TP_DTYPE_F16;
        break;
    case TP_ONNX_DOUBLE:
        d = TP_DTYPE_F64;
        break;
    case TP_ONNX_UINT32:
        d = TP_DTYPE_U32;
        break;
    case TP_ONNX_UINT64:
        d = TP_DTYPE_U64;
        break;
    case TP_ONNX_COMPLEX64:
        d = TP_DTYPE_C64;
        break;
    case TP_ONNX_COMPLEX128:
        d = TP_DTYPE_C128;
        break;
    case TP_ONNX_BFLOAT16:
        d = TP_DTYPE_BF16;
        break;
    case TP_ONNX_FLOAT8E4M3FN:
    case TP_ONNX_FLOAT8E4M3FNUZ:
        d = TP_DTYPE_F8E4M3;
        break;
    case TP_ONNX_FLOAT8E5M2:
    case TP_ONNX_FLOAT8E5M2FNUZ:
        d = TP_DTYPE_F8E5M2;
        break;
    default:
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "ONNX element type %d (%s) has no tensorplan dtype", elem_type,
                            tp_onnx_elem_type_name(elem_type));
    }
    *out = d;
    return TP_OK;
}

/* ---- lookups ---- */

int64_t tp__onnx_opset(const tp_onnx_model *m, const char *domain) {
    if (!domain || strcmp(domain, "ai.onnx") == 0) domain = "";
    for (uint32_t i = 0; i < m->n_opsets; i++)
        if (strcmp(m->opsets[i].domain, domain) == 0) return m->opsets[i].version;
    return 0;
}

const tp_onnx_attr *tp__onnx_find_attr(const tp_onnx_node *n, const char *name) {
    for (uint32_t i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
    return NULL;
}

int64_t tp__onnx_attr_int(const tp_onnx_node *n, const char *name, int64_t dflt) {
    const tp_onnx_attr *a = tp__onnx_find_attr(n, name);
    return a && a->type == TP_ONNX_ATTR_INT ? a->i : dflt;
}

float tp__onnx_attr_float(const tp_onnx_node *n, const char *name, float dflt) {
    const tp_onnx_attr *a = tp__onnx_find_attr(n, name);
    return a && a->type == TP_ONNX_ATTR_FLOAT ? a->f : dflt;
}

const char *tp__onnx_attr_str(const tp_onnx_node *n, const char *name, const char *dflt) {
    const tp_onnx_attr *a = tp__onnx_find_attr(n, name);
    return a && a->type == TP_ONNX_ATTR_STRING ? a->s_str : dflt;
}

const tp_onnx_tensor *tp__onnx_graph_find_initializer(const tp_onnx_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->n_initializers; i++)
        if (strcmp(g->initializers[i].name, name) == 0) return &g->initializers[i];
    return NULL;
}
