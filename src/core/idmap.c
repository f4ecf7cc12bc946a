/* A small open-addressing hash index (linear probing) from hashes to ids. */
#include "core/mem.h"
#include "core/idmap.h"

#include <string.h>

uint64_t tp_hash_bytes(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

uint64_t tp_hash_str(const char *s) {
    return tp_hash_bytes(s, strlen(s));
}

int32_t tp_idmap_find(const tp_idmap *m, uint64_t hash, tp_idmap_eq_fn eq, const void *ctx,
                      const void *key) {
    if (m->cap == 0) return -1;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        const tp_idmap_slot *s = &m->slots[i];
        if (s->id < 0) return -1;
        if (s->hash == hash && eq(ctx, s->id, key)) return s->id;
    }
}

static void put(tp_idmap_slot *slots, size_t cap, uint64_t hash, int32_t id) {
    size_t mask = cap - 1;
    size_t i = (size_t)hash & mask;
    while (slots[i].id >= 0)
        i = (i + 1) & mask;
    slots[i].hash = hash;
    slots[i].id = id;
}

bool tp_idmap_reserve(tp_idmap *m, const tp_allocator *a) {
    /* keep the load factor at most 1/2 */
    if (m->cap != 0 && (m->count + 1) * 2 <= m->cap) return true;
    size_t ncap = m->cap ? m->cap * 2 : 16;
    if (ncap > SIZE_MAX / sizeof(tp_idmap_slot)) return false;
    tp_idmap_slot *ns = tp_mem_alloc(a, ncap * sizeof *ns);
    if (!ns) return false;
    for (size_t i = 0; i < ncap; i++) {
        ns[i].hash = 0;
        ns[i].id = -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].id >= 0) put(ns, ncap, m->slots[i].hash, m->slots[i].id);
    tp_mem_free(a, m->slots, m->cap * sizeof *m->slots);
    m->slots = ns;
    m->cap = ncap;
    return true;
}

void tp_idmap_insert(tp_idmap *m, uint64_t hash, int32_t id) {
    put(m->slots, m->cap, hash, id);
    m->count++;
}

void tp_idmap_free(tp_idmap *m, const tp_allocator *a) {
    tp_mem_free(a, m->slots, m->cap * sizeof *m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}
