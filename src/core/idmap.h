/* Internal: an open-addressing hash index (linear probing, load factor at most 1/2) from a
 * 64-bit hash to an int32 id, and the string hash it is used with. The caller owns the keys and
 * compares them through `eq`. Not thread-safe (one owner). */
#ifndef TP_CORE_IDMAP_H
#define TP_CORE_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorplan/core.h"

typedef struct tp_idmap_slot {
    uint64_t hash;
    int32_t id; /* -1: empty */
} tp_idmap_slot;

typedef struct tp_idmap {
    tp_idmap_slot *slots;
    size_t cap; /* power of two or 0 */
    size_t count;
} tp_idmap;

typedef bool (*tp_idmap_eq_fn)(const void *ctx, int32_t id, const void *key);

uint64_t tp_hash_str(const char *s);
uint64_t tp_hash_bytes(const void *p, size_t n);
/* -1 when absent. */
int32_t tp_idmap_find(const tp_idmap *m, uint64_t hash, tp_idmap_eq_fn eq, const void *ctx,
                      const void *key);
/* Make room for one more entry (may allocate); false on NOMEM. */
bool tp_idmap_reserve(tp_idmap *m, const tp_allocator *a);
/* Insert after a successful reserve (never allocates). */
void tp_idmap_insert(tp_idmap *m, uint64_t hash, int32_t id);
void tp_idmap_free(tp_idmap *m, const tp_allocator *a);

#endif
