/* The weight registry: entries in registration order plus an open-addressing
 * hash index by name (FNV-1a, linear probing, load factor <= 1/2). */
#include "tensorplan/registry.h"

#include <string.h>

#include "core/mem.h"

#define EMPTY UINT32_MAX

struct tp_registry {
    const tp_allocator *alloc;
    tp_weight_entry *items;
    size_t count, cap;
    uint32_t *table;  /* indices into items, EMPTY when free */
    size_t table_cap; /* power of two */
    uint64_t total;   /* bytes of non-alias entries */
};

const char *tp_weight_kind_name(tp_weight_kind k) {
    switch (k) {
    case TP_WEIGHT_BASE:
        return "base";
    case TP_WEIGHT_LORA_ADAPTER:
        return "lora_adapter";
    case TP_WEIGHT_TIED_ALIAS:
        return "tied_alias";
    default:
        return "?";
    }
}

static uint64_t hash_name(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

tp_status tp_registry_create(const tp_allocator *alloc, tp_registry **out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "registry: out is NULL");
    *out = NULL;
    tp_registry *r = tp_mem_calloc(alloc, 1, sizeof *r);
    if (!r) return tp_error_set(err, TP_ERR_NOMEM, "registry: out of memory");
    r->alloc = alloc;
    *out = r;
    return TP_OK;
}

void tp_registry_destroy(tp_registry *r) {
    if (!r) return;
    for (size_t i = 0; i < r->count; i++) {
        tp_mem_free_str(r->alloc, (char *)r->items[i].name);
        tp_mem_free_str(r->alloc, (char *)r->items[i].related);
    }
    tp_mem_free(r->alloc, r->items, r->cap * sizeof *r->items);
    tp_mem_free(r->alloc, r->table, r->table_cap * sizeof *r->table);
    tp_mem_free(r->alloc, r, sizeof *r);
}

const tp_allocator *tp_registry_allocator(const tp_registry *r) {
    return r ? r->alloc : NULL;
}

/* Slot of name in the table: its index, or the empty slot where it would go. */
static size_t probe(const tp_registry *r, const char *name, bool *found) {
    size_t mask = r->table_cap - 1;
    size_t i = (size_t)hash_name(name) & mask;
    for (;;) {
        uint32_t idx = r->table[i];
        if (idx == EMPTY) {
            *found = false;
            return i;
        }
        if (strcmp(r->items[idx].name, name) == 0) {
            *found = true;
            return i;
        }
        i = (i + 1) & mask;
    }
}

static tp_weight_entry *lookup(const tp_registry *r, const char *name) {
    if (!r || !name || r->table_cap == 0) return NULL;
    bool found;
    size_t slot = probe(r, name, &found);
    return found ? &r->items[r->table[slot]] : NULL;
}

/* Make room for one more entry in the hash index (rehash into a new table). */
static bool table_reserve(tp_registry *r, size_t need) {
    if (r->table_cap != 0 && need * 2 <= r->table_cap) return true;
    size_t ncap = r->table_cap ? r->table_cap : 16;
    while (need * 2 > ncap) {
        if (ncap > SIZE_MAX / 4 / sizeof(uint32_t)) return false;
        ncap *= 2;
    }
    uint32_t *t = tp_mem_alloc(r->alloc, ncap * sizeof *t);
    if (!t) return false;
    memset(t, 0xff, ncap * sizeof *t);
    uint32_t *old = r->table;
    size_t old_cap = r->table_cap;
    r->table = t;
    r->table_cap = ncap;
    for (size_t i = 0; i < r->count; i++) {
        bool found;
        size_t slot = probe(r, r->items[i].name, &found);
        r->table[slot] = (uint32_t)i;
    }
    tp_mem_free(r->alloc, old, old_cap * sizeof *old);
    return true;
}

tp_status tp_registry_add(tp_registry *r, const tp_weight_desc *d, bool *inserted, tp_error *err) {
    if (inserted) *inserted = false;
    if (!r || !d) return tp_error_set(err, TP_ERR_INVALID, "registry: NULL argument");
    if (!d->name || !d->name[0])
        return tp_error_set(err, TP_ERR_INVALID, "registry: weight without a name");
    if ((int)d->kind < 0 || d->kind >= TP_WEIGHT_KIND_COUNT)
        return tp_error_set(err, TP_ERR_INVALID, "registry: weight '%s': bad kind %d", d->name,
                            (int)d->kind);
    if (d->kind != TP_WEIGHT_BASE && (!d->related || !d->related[0]))
        return tp_error_set(err, TP_ERR_INVALID, "registry: weight '%s' (%s) needs %s", d->name,
                            tp_weight_kind_name(d->kind),
                            d->kind == TP_WEIGHT_TIED_ALIAS ? "a target name" : "an adapter name");
    if (d->kind == TP_WEIGHT_TIED_ALIAS && strcmp(d->related, d->name) == 0)
        return tp_error_set(err, TP_ERR_INVALID, "registry: weight '%s' is a tied alias of itself",
                            d->name);
    if (d->rank < 0 || d->rank > TP_MAX_RANK)
        return tp_error_set(err, TP_ERR_INVALID, "registry: weight '%s': rank %d out of range",
                            d->name, (int)d->rank);
    if (!tp_dtype_is_valid(d->dtype))
        return tp_error_set(err, TP_ERR_INVALID, "registry: weight '%s': bad dtype %d", d->name,
                            (int)d->dtype);
    if (r->count >= EMPTY - 1)
        return tp_error_set(err, TP_ERR_INVALID, "registry: too many weights");
    if (lookup(r, d->name)) return TP_OK; /* first registration wins */

    uint64_t elems = 1, bytes = d->bytes;
    for (int32_t i = 0; i < d->rank; i++) {
        if (d->dims[i] < 0)
            return tp_error_set(err, TP_ERR_INVALID, "registry: weight '%s': dim %d is negative",
                                d->name, (int)i);
        if (!tp_mul_u64(elems, (uint64_t)d->dims[i], &elems))
            return tp_error_set(err, TP_ERR_OVERFLOW,
                                "registry: weight '%s': element count overflows 64 bits", d->name);
    }
    if (bytes == 0) {
        tp_status s = tp_dtype_bytes(d->dtype, elems, &bytes, err);
        if (s != TP_OK) {
            tp_error_prefix(err, "registry: weight '%s': ", d->name);
            return s;
        }
    }
    uint64_t new_total = r->total;
    if (d->kind != TP_WEIGHT_TIED_ALIAS && !tp_add_u64(r->total, bytes, &new_total))
        return tp_error_set(err, TP_ERR_OVERFLOW,
                            "registry: total weight bytes overflow 64 bits adding '%s'", d->name);

    char *name = tp_mem_strdup(r->alloc, d->name);
    char *related = d->kind != TP_WEIGHT_BASE ? tp_mem_strdup(r->alloc, d->related) : NULL;
    if (!name || (d->kind != TP_WEIGHT_BASE && !related) ||
        !tp_mem_grow(r->alloc, (void **)&r->items, sizeof *r->items, &r->cap, r->count + 1) ||
        !table_reserve(r, r->count + 1)) {
        tp_mem_free_str(r->alloc, name);
        tp_mem_free_str(r->alloc, related);
        return tp_error_set(err, TP_ERR_NOMEM, "registry: out of memory adding '%s'", d->name);
    }
    tp_weight_entry *e = &r->items[r->count];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->rank = d->rank;
    for (int32_t i = 0; i < d->rank; i++)
        e->dims[i] = d->dims[i];
    e->dtype = d->dtype;
    e->bytes = bytes;
    e->kind = d->kind;
    e->related = related;
    bool found;
    size_t slot = probe(r, name, &found);
    r->table[slot] = (uint32_t)r->count;
    r->count++;
    r->total = new_total;
    if (inserted) *inserted = true;
    return TP_OK;
}

tp_status tp_registry_add_graph_params(tp_registry *r, const tp_graph *g, tp_error *err) {
    if (!r || !g) return tp_error_set(err, TP_ERR_INVALID, "registry: NULL argument");
    uint32_t n = tp_graph_node_count(g);
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *node = tp_graph_node(g, (tp_node_id)id);
        if (!node || node->op.kind != TP_OP_PARAM) continue;
        tp_weight_desc d;
        memset(&d, 0, sizeof d);
        d.name = node->name;
        d.dtype = node->dtype;
        d.rank = node->shape.rank;
        for (int32_t i = 0; i < node->shape.rank && i < TP_MAX_RANK; i++) {
            tp_status s = tp_graph_dim_value(g, node->shape.dims[i], &d.dims[i], err);
            if (s != TP_OK) {
                tp_error_prefix(err, "registry: param '%s' (node %u): ", node->name, id);
                return s;
            }
        }
        tp_status s = tp_graph_node_bytes(g, (tp_node_id)id, &d.bytes, err);
        if (s != TP_OK) return s;
        int32_t tied = node->op.attrs.param.tied_to;
        if (tied >= 0) {
            const tp_node *t = tp_graph_node(g, tied);
            if (!t || tied >= (int32_t)id || t->op.kind != TP_OP_PARAM)
                return tp_error_setx(
                    err, TP_ERR_INVALID, TP_NO_OFFSET, (int64_t)id,
                    "registry: param '%s' tied to node %d, which is not an earlier param",
                    node->name, (int)tied);
            d.kind = TP_WEIGHT_TIED_ALIAS;
            d.related = t->name;
        }
        s = tp_registry_add(r, &d, NULL, err);
        if (s != TP_OK) return s;
    }
    return TP_OK;
}

const tp_weight_entry *tp_registry_find(const tp_registry *r, const char *name) {
    return lookup(r, name);
}

tp_status tp_registry_resolve(const tp_registry *r, const char *name, const tp_weight_entry **out,
                              tp_error *err) {
    if (!r || !name || !out) return tp_error_set(err, TP_ERR_INVALID, "registry: NULL argument");
    const tp_weight_entry *e = lookup(r, name);
    if (!e) return tp_error_set(err, TP_ERR_NOT_FOUND, "registry: no weight named '%s'", name);
    if (e->kind == TP_WEIGHT_TIED_ALIAS) {
        const tp_weight_entry *t = lookup(r, e->related);
        if (!t)
            return tp_error_set(err, TP_ERR_NOT_FOUND,
                                "registry: '%s' is a tied alias of '%s', which is not registered",
                                name, e->related);
        e = t;
    }
    *out = e;
    return TP_OK;
}

uint64_t tp_registry_total_bytes(const tp_registry *r) {
    return r ? r->total : 0;
}

uint64_t tp_registry_kind_bytes(const tp_registry *r, tp_weight_kind kind) {
    uint64_t sum = 0;
    if (!r) return 0;
    for (size_t i = 0; i < r->count; i++)
        if (r->items[i].kind == kind) sum = tp_sat_add_u64(sum, r->items[i].bytes);
    return sum;
}

uint32_t tp_registry_count(const tp_registry *r) {
    return r ? (uint32_t)r->count : 0;
}

const tp_weight_entry *tp_registry_entry(const tp_registry *r, uint32_t index) {
    return r && index < r->count ? &r->items[index] : NULL;
}

tp_status tp_registry_pin(tp_registry *r, const char *name, uint64_t *count_out, tp_error *err) {
    const tp_weight_entry *e;
    tp_status s = tp_registry_resolve(r, name, &e, err);
    if (s != TP_OK) return s;
    tp_weight_entry *m = &r->items[e - r->items];
    if (m->pins == UINT64_MAX)
        return tp_error_set(err, TP_ERR_OVERFLOW, "registry: pin count of '%s' overflows", m->name);
    m->pins++;
    if (count_out) *count_out = m->pins;
    return TP_OK;
}

tp_status tp_registry_release(tp_registry *r, const char *name, uint64_t *count_out,
                              tp_error *err) {
    const tp_weight_entry *e;
    tp_status s = tp_registry_resolve(r, name, &e, err);
    if (s != TP_OK) return s;
    tp_weight_entry *m = &r->items[e - r->items];
    if (m->pins == 0)
        return tp_error_set(err, TP_ERR_UNDERFLOW,
                            "registry: releasing '%s' (storage '%s') which is not pinned", name,
                            m->name);
    m->pins--;
    if (count_out) *count_out = m->pins;
    return TP_OK;
}
