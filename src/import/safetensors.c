/* safetensors headers: tensors' dtypes, shapes and byte ranges (tensorplan/safetensors.h). */
#include "tensorplan/safetensors.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json_dom.h"
#include "core/mem.h"
#include "core/open_file.h"

static const struct {
    const char *name;
    tp_dtype dtype;
} dtypes[] = {
    {"F64", TP_DTYPE_F64},   {"F32", TP_DTYPE_F32},        {"F16", TP_DTYPE_F16},
    {"BF16", TP_DTYPE_BF16}, {"F8_E4M3", TP_DTYPE_F8E4M3}, {"F8_E5M2", TP_DTYPE_F8E5M2},
    {"I64", TP_DTYPE_I64},   {"I32", TP_DTYPE_I32},        {"I16", TP_DTYPE_I16},
    {"I8", TP_DTYPE_I8},     {"U64", TP_DTYPE_U64},        {"U32", TP_DTYPE_U32},
    {"U16", TP_DTYPE_U16},   {"U8", TP_DTYPE_U8},          {"BOOL", TP_DTYPE_BOOL},
};

typedef struct range {
    uint64_t begin, end;
    uint32_t member; /* index in the header object, for the message */
} range;

static int cmp_range(const void *a, const void *b) {
    const range *x = a, *y = b;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* A tensor's entry: dtype, shape, byte range; checked and registered. */
static tp_status read_tensor(const char *path, uint64_t base, const char *name, const tp_jv *t,
                             uint64_t data_bytes, tp_registry *reg, tp_safetensors_info *info,
                             range *rg, tp_error *err) {
#define BAD(st, ...)                                                                               \
    do {                                                                                           \
        char m_[600];                                                                              \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                      \
        return tp_error_setx(err, st, base + t->offset, TP_NO_NODE,                                \
                             "safetensors %s: offset %" PRIu64 ": tensor '%.200s': %s", path,      \
                             base + t->offset, name, m_);                                          \
    } while (0)
    if (t->type != TP_J_OBJ) BAD(TP_ERR_PARSE, "not an object");
    const tp_jv *dt = tp__json_get(t, "dtype"), *shape = tp__json_get(t, "shape"),
                *off = tp__json_get(t, "data_offsets");
    if (!dt || dt->type != TP_J_STR) BAD(TP_ERR_PARSE, "no \"dtype\" string");
    if (!shape || shape->type != TP_J_ARR) BAD(TP_ERR_PARSE, "no \"shape\" array");
    if (!off || off->type != TP_J_ARR || off->n != 2) BAD(TP_ERR_PARSE, "no \"data_offsets\" pair");
    int k = -1;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dt->str, dtypes[i].name) == 0) k = (int)i;
    if (k < 0) BAD(TP_ERR_UNSUPPORTED, "dtype '%.32s' is not one safetensors defines", dt->str);
    if (shape->n > TP_MAX_RANK)
        BAD(TP_ERR_UNSUPPORTED, "rank %u (at most %d)", shape->n, TP_MAX_RANK);
    tp_weight_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.rank = (int32_t)shape->n;
    d.dtype = dtypes[k].dtype;
    uint64_t elems = 1;
    for (uint32_t i = 0; i < shape->n; i++) {
        const tp_jv *v = &shape->items[i];
        if (v->type != TP_J_NUM || !v->is_int || v->i < 0)
            BAD(TP_ERR_PARSE, "shape[%u] is not a non-negative integer", i);
        d.dims[i] = v->i;
        if (!tp_mul_u64(elems, (uint64_t)v->i, &elems))
            BAD(TP_ERR_OVERFLOW, "element count overflows 64 bits");
    }
    const tp_jv *b = &off->items[0], *e = &off->items[1];
    if (b->type != TP_J_NUM || !b->is_int || b->i < 0 || e->type != TP_J_NUM || !e->is_int ||
        e->i < b->i)
        BAD(TP_ERR_PARSE, "data_offsets are not two integers 0 <= begin <= end");
    tp_error e2;
    if (tp_dtype_bytes(d.dtype, elems, &d.bytes, &e2) != TP_OK) BAD(e2.status, "%s", e2.msg);
    uint64_t begin = (uint64_t)b->i, end = (uint64_t)e->i;
    if (end - begin != d.bytes)
        BAD(TP_ERR_PARSE,
            "data_offsets [%" PRIu64 ", %" PRIu64 ") hold %" PRIu64
            " bytes, the shape and dtype need %" PRIu64,
            begin, end, end - begin, d.bytes);
    if (end > data_bytes)
        BAD(TP_ERR_PARSE, "data ends at %" PRIu64 ", past the %" PRIu64 " bytes of data", end,
            data_bytes);
    rg->begin = begin;
    rg->end = end;
    if (reg) {
        tp_status s = tp_registry_add(reg, &d, NULL, &e2);
        if (s != TP_OK) BAD(s, "%s", e2.msg);
    }
    info->n_tensors++;
    info->tensor_bytes = tp_sat_add_u64(info->tensor_bytes, d.bytes);
    info->dtype_bytes[d.dtype] = tp_sat_add_u64(info->dtype_bytes[d.dtype], d.bytes);
    return TP_OK;
#undef BAD
}

static tp_status st_read_file(const char *path, tp_registry *reg, tp_safetensors_info *info,
                              tp_error *err) {
    const tp_allocator *a = reg ? tp_registry_allocator(reg) : NULL;
    FILE *f;
    uint64_t size;
    tp_status st = tp__fopen_regular(path, 0, &f, &size, err);
    if (st != TP_OK) {
        tp_error_prefix(err, "safetensors: ");
        return st;
    }
    unsigned char lb[8];
    char *text = NULL;
    size_t n = 0;
    tp_jdoc *doc = NULL;
    range *rg = NULL;
    size_t rg_bytes = 0;
    if (size < 8 || fread(lb, 1, 8, f) != 8) {
        st = tp_error_setx(err, TP_ERR_PARSE, 0, TP_NO_NODE,
                           "safetensors %s: offset 0: %" PRIu64
                           " bytes, too short for the 8-byte header length",
                           path, size);
        goto done;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | lb[i];
    if (hlen > TP_SAFETENSORS_MAX_HEADER || hlen > size - 8) {
        st = tp_error_setx(err, TP_ERR_PARSE, 0, TP_NO_NODE,
                           "safetensors %s: offset 0: header length %" PRIu64
                           " is more than %s (%" PRIu64 " bytes follow)",
                           path, hlen,
                           hlen > TP_SAFETENSORS_MAX_HEADER ? "the 100,000,000 allowed"
                                                            : "the file holds",
                           size - 8);
        goto done;
    }
    n = (size_t)hlen;
    text = tp_mem_alloc(a, n ? n : 1);
    if (!text) {
        st = tp_error_set(err, TP_ERR_NOMEM, "safetensors %s: out of memory (header)", path);
        goto done;
    }
    if (fread(text, 1, n, f) != n) {
        st = tp_error_set(err, TP_ERR_IO, "safetensors %s: cannot read the header", path);
        goto done;
    }
    if ((st = tp__json_parse(text, n, a, 16, &doc, err)) != TP_OK) {
        uint64_t o = err ? err->offset + 8 : 0;
        tp_error_prefix(err, "safetensors %s: header (JSON at byte 8): ", path);
        if (err) err->offset = o;
        goto done;
    }
    const tp_jv *root = tp__json_root(doc);
    if (root->type != TP_J_OBJ) {
        st = tp_error_setx(err, TP_ERR_PARSE, 8, TP_NO_NODE,
                           "safetensors %s: offset 8: the header is not a JSON object", path);
        goto done;
    }
    uint64_t data_bytes = size - 8 - hlen;
    rg_bytes = (root->n ? root->n : 1) * sizeof *rg;
    rg = tp_mem_alloc(a, rg_bytes);
    if (!rg) {
        st = tp_error_set(err, TP_ERR_NOMEM, "safetensors %s: out of memory", path);
        goto done;
    }
    uint32_t nr = 0;
    for (uint32_t i = 0; i < root->n; i++) {
        if (strcmp(root->keys[i], "__metadata__") == 0) {
            if (root->items[i].type != TP_J_OBJ) {
                st = tp_error_setx(err, TP_ERR_PARSE, 8 + root->items[i].offset, TP_NO_NODE,
                                   "safetensors %s: offset %" PRIu64
                                   ": __metadata__ is not an object",
                                   path, 8 + root->items[i].offset);
                goto done;
            }
            continue;
        }
        rg[nr].member = i;
        st = read_tensor(path, 8, root->keys[i], &root->items[i], data_bytes, reg, info, &rg[nr],
                         err);
        if (st != TP_OK) goto done;
        nr++;
    }
    /* no two tensors share bytes */
    qsort(rg, nr, sizeof *rg, cmp_range);
    for (uint32_t k = 1; k < nr; k++)
        if (rg[k].begin < rg[k - 1].end) {
            st = tp_error_setx(err, TP_ERR_PARSE, 8 + root->items[rg[k].member].offset, TP_NO_NODE,
                               "safetensors %s: tensors '%.100s' and '%.100s' share bytes "
                               "[%" PRIu64 ", %" PRIu64 ")",
                               path, root->keys[rg[k - 1].member], root->keys[rg[k].member],
                               rg[k].begin, rg[k - 1].end < rg[k].end ? rg[k - 1].end : rg[k].end);
            goto done;
        }
    info->n_files++;
    info->header_bytes = tp_sat_add_u64(info->header_bytes, 8 + hlen);
    info->file_bytes = tp_sat_add_u64(info->file_bytes, size);
done:
    tp_mem_free(a, rg, rg_bytes);
    tp__json_free(doc);
    tp_mem_free(a, text, n ? n : 1);
    fclose(f);
    return st;
}

/* The whole of a small text file (an index), NUL-terminated. */
static tp_status slurp(const char *path, const tp_allocator *a, char **out, size_t *len,
                       tp_error *err) {
    FILE *f;
    uint64_t size;
    tp_status st = tp__fopen_regular(path, 64u << 20, &f, &size, err);
    if (st != TP_OK) return st;
    char *t = tp_mem_alloc(a, (size_t)size + 1);
    if (!t) {
        fclose(f);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    }
    if (fread(t, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        tp_mem_free(a, t, (size_t)size + 1);
        return tp_error_set(err, TP_ERR_IO, "%s: read error", path);
    }
    fclose(f);
    t[size] = '\0';
    *out = t;
    *len = (size_t)size;
    return TP_OK;
}

/* model.safetensors.index.json: every file its weight_map names, once. */
static tp_status read_index(const char *path, tp_registry *reg, tp_safetensors_info *info,
                            tp_error *err) {
    const tp_allocator *a = reg ? tp_registry_allocator(reg) : NULL;
    char *text = NULL;
    size_t len = 0;
    tp_status st = slurp(path, a, &text, &len, err);
    if (st != TP_OK) return st;
    tp_jdoc *doc = NULL;
    const char **seen = NULL;
    size_t n_seen = 0, cap_seen = 0;
    if ((st = tp__json_parse(text, len, a, 16, &doc, err)) != TP_OK) {
        tp_error_prefix(err, "safetensors index %s: ", path);
        goto done;
    }
    const tp_jv *map = tp__json_get(tp__json_root(doc), "weight_map");
    if (!map || map->type != TP_J_OBJ) {
        st =
            tp_error_set(err, TP_ERR_PARSE, "safetensors index %s: no \"weight_map\" object", path);
        goto done;
    }
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    for (uint32_t i = 0; i < map->n && st == TP_OK; i++) {
        const tp_jv *file = &map->items[i];
        if (file->type != TP_J_STR || file->len == 0 || strlen(file->str) != file->len ||
            strchr(file->str, '/') || strcmp(file->str, "..") == 0) {
            st = tp_error_setx(err, TP_ERR_PARSE, file->offset, TP_NO_NODE,
                               "safetensors index %s: offset %" PRIu64
                               ": tensor '%.100s' maps to '%.100s', not a file name in the "
                               "index's folder",
                               path, file->offset, map->keys[i],
                               file->type == TP_J_STR ? file->str : "?");
            break;
        }
        bool dup = false;
        for (size_t k = 0; k < n_seen && !dup; k++)
            dup = strcmp(seen[k], file->str) == 0;
        if (dup) continue;
        if (!tp_mem_grow(a, (void **)&seen, sizeof *seen, &cap_seen, n_seen + 1)) {
            st = tp_error_set(err, TP_ERR_NOMEM, "safetensors index %s: out of memory", path);
            break;
        }
        seen[n_seen++] = file->str;
        char full[4096];
        if (dir_len + file->len + 1 > sizeof full) {
            st = tp_error_set(err, TP_ERR_INVALID, "safetensors index %s: path too long", path);
            break;
        }
        memcpy(full, path, dir_len);
        memcpy(full + dir_len, file->str, file->len + 1);
        st = st_read_file(full, reg, info, err);
    }
done:
    tp_mem_free(a, seen, cap_seen * sizeof *seen);
    tp__json_free(doc);
    tp_mem_free(a, text, len + 1);
    return st;
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

tp_status tp_safetensors_read(const char *path, tp_registry *reg, tp_safetensors_info *out,
                              tp_error *err) {
    if (!path || !out) return tp_error_set(err, TP_ERR_INVALID, "safetensors: NULL argument");
    memset(out, 0, sizeof *out);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        char p[4096];
        const char *names[] = {"model.safetensors.index.json", "model.safetensors"};
        for (size_t i = 0; i < 2; i++) {
            int w = snprintf(p, sizeof p, "%s/%s", path, names[i]);
            if (w < 0 || (size_t)w >= sizeof p)
                return tp_error_set(err, TP_ERR_INVALID, "safetensors: path too long: %s", path);
            if (stat(p, &sb) == 0)
                return i == 0 ? read_index(p, reg, out, err) : st_read_file(p, reg, out, err);
        }
        return tp_error_set(err, TP_ERR_NOT_FOUND,
                            "safetensors: %s holds neither model.safetensors.index.json nor "
                            "model.safetensors",
                            path);
    }
    if (ends_with(path, ".json")) return read_index(path, reg, out, err);
    return st_read_file(path, reg, out, err);
}
