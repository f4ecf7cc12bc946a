/* A set of names read from a file: an open-addressing index over one buffer of
 * NUL-terminated names. */
#include "import/name_set.h"

#include <stdint.h>
#include <string.h>

#include "core/mem.h"

void tp_name_set_init(tp_name_set *s, const tp_allocator *a) {
    memset(s, 0, sizeof *s);
    s->alloc = a;
}

static bool name_eq(const void *ctx, int32_t id, const void *key) {
    const tp_name_set *s = ctx;
    return strcmp(s->chars + s->starts[id], (const char *)key) == 0;
}

bool tp_name_set_add(tp_name_set *s, const char *name, bool *duplicate) {
    uint64_t h = tp_hash_str(name);
    *duplicate = tp_idmap_find(&s->index, h, name_eq, s, name) >= 0;
    if (*duplicate) return true;
    size_t len = strlen(name) + 1;
    if (s->n >= (size_t)INT32_MAX || len > SIZE_MAX - s->n_chars) return false;
    if (!tp_mem_grow(s->alloc, (void **)&s->chars, 1, &s->cap_chars, s->n_chars + len) ||
        !tp_mem_grow(s->alloc, (void **)&s->starts, sizeof *s->starts, &s->cap, s->n + 1) ||
        !tp_idmap_reserve(&s->index, s->alloc))
        return false;
    memcpy(s->chars + s->n_chars, name, len);
    s->starts[s->n] = s->n_chars;
    s->n_chars += len;
    tp_idmap_insert(&s->index, h, (int32_t)s->n);
    s->n++;
    return true;
}

void tp_name_set_free(tp_name_set *s) {
    tp_idmap_free(&s->index, s->alloc);
    tp_mem_free(s->alloc, s->chars, s->cap_chars);
    tp_mem_free(s->alloc, s->starts, s->cap * sizeof *s->starts);
    memset(s, 0, sizeof *s);
}
