/* The graph's bump arena: node names, symbol names and input lists live here
 * until the graph is destroyed. */
#include "core/mem.h"
#include "graph/graph_internal.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

struct tp_arena_chunk {
    tp_arena_chunk *next;
    size_t cap, used;
    alignas(max_align_t) unsigned char data[];
};

void *tp_graph_arena_alloc(tp_graph *g, size_t size) {
    size = (size + 7u) & ~(size_t)7u;
    if (size == 0) size = 8;
    tp_arena_chunk *c = g->arena;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > 4096 - sizeof *c ? size : 4096 - sizeof *c;
        if (cap > SIZE_MAX - sizeof *c) return NULL;
        c = tp_mem_alloc(g->alloc, sizeof *c + cap);
        if (!c) return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = g->arena;
        g->arena = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

char *tp_graph_arena_strdup(tp_graph *g, const char *s) {
    size_t n = strlen(s) + 1;
    char *p = tp_graph_arena_alloc(g, n);
    if (p) memcpy(p, s, n);
    return p;
}

void tp_graph_arena_free(tp_graph *g) {
    for (tp_arena_chunk *c = g->arena; c;) {
        tp_arena_chunk *next = c->next;
        tp_mem_free(g->alloc, c, sizeof *c + c->cap);
        c = next;
    }
    g->arena = NULL;
}
