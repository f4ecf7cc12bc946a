/* ggml's graph allocator, emulated (ggml_alloc_emul.h states the rules). */
#include <stdlib.h>
#include <string.h>

#include "estimate/ggml_alloc_emul.h"

typedef struct ga_block {
    uint64_t off, size;
} ga_block;

typedef struct ga_dyn {
    ga_block *b; /* free blocks sorted by offset; the last one is the open end */
    uint32_t n, cap;
    uint64_t align, max_size;
    bool bad;
} ga_dyn;

typedef struct ga_slot {
    int32_t children, views;
    uint8_t buf;
    bool own; /* allocated by this ga_planner and not handed over */
    uint64_t off;
} ga_slot;

static bool ga_dyn_insert(ga_dyn *d, uint32_t at, uint64_t off, uint64_t size) {
    if (d->n == d->cap) {
        uint32_t nc = d->cap ? d->cap * 2 : 16;
        ga_block *nb = realloc(d->b, nc * sizeof *nb);
        if (!nb) return false;
        d->b = nb;
        d->cap = nc;
    }
    memmove(&d->b[at + 1], &d->b[at], (d->n - at) * sizeof *d->b);
    d->b[at] = (ga_block){off, size};
    d->n++;
    return true;
}

static void ga_dyn_remove(ga_dyn *d, uint32_t at) {
    memmove(&d->b[at], &d->b[at + 1], (d->n - at - 1) * sizeof *d->b);
    d->n--;
}

static bool ga_round_up(const ga_dyn *d, uint64_t v, uint64_t *out) {
    return tp_align_up_u64(v, d->align, out);
}

static bool ga_dyn_alloc(ga_dyn *d, uint64_t size, uint64_t *off) {
    if (!ga_round_up(d, size, &size)) return false;
    uint32_t best = UINT32_MAX;
    uint64_t best_size = UINT64_MAX;
    for (uint32_t i = 0; i + 1 < d->n; i++)
        if (d->b[i].size >= size && d->b[i].size <= best_size) {
            best = i;
            best_size = d->b[i].size;
        }
    if (best == UINT32_MAX) best = d->n - 1; /* the open end always fits */
    ga_block *b = &d->b[best];
    *off = b->off;
    b->off += size;
    b->size -= size;
    if (b->size == 0) ga_dyn_remove(d, best);
    uint64_t end;
    if (!tp_add_u64(*off, size, &end)) return false;
    if (end > d->max_size) d->max_size = end;
    return true;
}

static bool ga_dyn_free(ga_dyn *d, uint64_t off, uint64_t size) {
    if (!ga_round_up(d, size, &size)) return false;
    for (uint32_t i = 0; i < d->n; i++) {
        ga_block *b = &d->b[i];
        if (b->off + b->size == off) { /* the freed range follows ga_block i */
            b->size += size;
            if (i + 1 < d->n && b->off + b->size == d->b[i + 1].off) {
                b->size += d->b[i + 1].size;
                ga_dyn_remove(d, i + 1);
            }
            return true;
        }
        if (off + size == b->off) { /* it precedes ga_block i */
            b->off = off;
            b->size += size;
            if (i > 0 && d->b[i - 1].off + d->b[i - 1].size == b->off) {
                d->b[i - 1].size += b->size;
                ga_dyn_remove(d, i);
            }
            return true;
        }
    }
    uint32_t at = 0;
    while (at < d->n && d->b[at].off < off)
        at++;
    return ga_dyn_insert(d, at, off, size);
}

typedef struct ga_planner {
    const tp_gg_graph *g;
    ga_slot *s;
    ga_dyn d[TP_GA_MAX_BUFFERS];
    uint32_t n_buf;
    bool oom, ovf;
} ga_planner;

static bool ga_same_layout(const tp_gg_tensor *a, const tp_gg_tensor *b) {
    if (a->type != b->type) return false;
    for (int i = 0; i < 4; i++)
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i]) return false;
    return true;
}

static bool ga_is_output(const tp_gg_graph *g, int32_t i) {
    const tp_gg_tensor *t = &g->t[i];
    return (t->flags & TP_GG_OUTPUT) ||
           (t->view_src >= 0 && (g->t[t->view_src].flags & TP_GG_OUTPUT));
}

static uint64_t ga_bytes_of(ga_planner *p, int32_t i) {
    uint64_t b = 0;
    if (!tp__gg_nbytes(&p->g->t[i], &b)) p->ovf = true;
    return b;
}

static void ga_give_back(ga_planner *p, uint8_t buf, uint64_t off, uint64_t size) {
    if (!ga_dyn_free(&p->d[buf], off, size)) p->oom = true;
}

/* The tail of parent's ga_block beyond node's size goes back to the allocator. */
static void ga_free_extra(ga_planner *p, int32_t node, int32_t parent) {
    ga_dyn *d = &p->d[p->s[parent].buf];
    uint64_t ps, ns;
    if (!ga_round_up(d, ga_bytes_of(p, parent), &ps) ||
        !ga_round_up(d, ga_bytes_of(p, node), &ns)) {
        p->ovf = true;
        return;
    }
    if (ps > ns) ga_give_back(p, p->s[parent].buf, p->s[parent].off + ns, ps - ns);
}

static void ga_allocate(ga_planner *p, int32_t i, uint8_t buf) {
    const tp_gg_graph *g = p->g;
    const tp_gg_tensor *t = &g->t[i];
    ga_slot *h = &p->s[i];
    if (t->external || h->own || t->view_src >= 0) return;
    h->own = true;
    if (t->op == TP_GG_INPLACE) {
        for (int k = 0; k < TP_GG_MAX_SRC; k++) {
            int32_t par = t->src[k];
            if (par < 0 || !p->s[par].own || ga_is_output(g, par)) continue;
            if (!ga_same_layout(t, &g->t[par])) continue;
            ga_slot *ph = &p->s[par];
            if (ph->children != 1 || ph->views != 0) continue;
            if (g->t[par].view_src >= 0) {
                int32_t root = g->t[par].view_src;
                ga_slot *rh = &p->s[root];
                if (rh->views == 1 && rh->children == 0) {
                    h->buf = ph->buf;
                    h->off = ph->off;
                    ph->own = false;
                    rh->own = false;
                    ga_free_extra(p, i, root);
                    return;
                }
            } else {
                h->buf = ph->buf;
                h->off = ph->off;
                ph->own = false;
                ga_free_extra(p, i, par);
                return;
            }
        }
    }
    h->buf = buf;
    if (!ga_dyn_alloc(&p->d[buf], ga_bytes_of(p, i), &h->off)) p->ovf = true;
}

static void ga_release(ga_planner *p, int32_t i) {
    if (p->g->t[i].flags & TP_GG_OUTPUT) return;
    ga_slot *h = &p->s[i];
    ga_give_back(p, h->buf, h->off, ga_bytes_of(p, i));
    h->own = false;
}

tp_status tp__ga_reserve(const tp_gg_graph *g, const uint8_t *node_buf, const uint8_t *leaf_buf,
                         uint32_t n_buf, const uint64_t *align, uint64_t *max_size, tp_error *err) {
    if (!g || !align || !max_size || n_buf == 0 || n_buf > TP_GA_MAX_BUFFERS)
        return tp_error_set(err, TP_ERR_INVALID, "ggml allocator: bad arguments");
    if (g->status != TP_OK)
        return tp_error_set(err, g->status, "ggml allocator: the graph could not be built");
    ga_planner p;
    memset(&p, 0, sizeof p);
    p.g = g;
    p.n_buf = n_buf;
    p.s = calloc(g->n_t ? g->n_t : 1, sizeof *p.s);
    tp_status st = TP_OK;
    if (!p.s) return tp_error_set(err, TP_ERR_NOMEM, "ggml allocator: out of memory");
    for (uint32_t b = 0; b < n_buf; b++) {
        if (!align[b] || (align[b] & (align[b] - 1))) {
            st = tp_error_set(err, TP_ERR_INVALID, "ggml allocator: alignment %llu",
                              (unsigned long long)align[b]);
            goto done;
        }
        p.d[b].align = align[b];
        if (!ga_dyn_insert(&p.d[b], 0, 0, UINT64_MAX / 4)) p.oom = true;
    }
    for (uint32_t i = 0; i < g->n_leafs; i++)
        ga_allocate(&p, (int32_t)g->leafs[i], leaf_buf ? leaf_buf[i] : 0);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        int32_t n = (int32_t)g->nodes[i];
        const tp_gg_tensor *t = &g->t[n];
        uint8_t buf = node_buf ? node_buf[i] : 0;
        if (t->view_src >= 0 && t->op != TP_GG_NONE) p.s[t->view_src].views++;
        if (t->flags & TP_GG_INPUT) ga_allocate(&p, n, buf);
        for (int k = 0; k < TP_GG_MAX_SRC; k++) {
            int32_t s = t->src[k];
            if (s < 0) continue;
            p.s[s].children++;
            if (g->t[s].flags & TP_GG_INPUT) ga_allocate(&p, s, buf);
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        int32_t n = (int32_t)g->nodes[i];
        const tp_gg_tensor *t = &g->t[n];
        uint8_t buf = node_buf ? node_buf[i] : 0;
        if (buf >= n_buf) {
            st = tp_error_set(err, TP_ERR_INVALID, "ggml allocator: buffer id %u", buf);
            goto done;
        }
        for (int k = 0; k < TP_GG_MAX_SRC; k++)
            if (t->src[k] >= 0) ga_allocate(&p, t->src[k], buf);
        ga_allocate(&p, n, buf);
        for (int k = 0; k < TP_GG_MAX_SRC; k++) {
            int32_t par = t->src[k];
            if (par < 0) continue;
            ga_slot *ph = &p.s[par];
            ph->children--;
            if (ph->children != 0 || ph->views != 0) continue;
            int32_t root = g->t[par].view_src;
            if (root >= 0) {
                ga_slot *rh = &p.s[root];
                rh->views--;
                if (rh->views == 0 && rh->children == 0 && rh->own) ga_release(&p, root);
            } else if (ph->own) {
                ga_release(&p, par);
            }
        }
        if (p.oom || p.ovf) break;
    }
    if (p.oom)
        st = tp_error_set(err, TP_ERR_NOMEM, "ggml allocator: out of memory");
    else if (p.ovf)
        st = tp_error_set(err, TP_ERR_OVERFLOW, "ggml allocator: sizes overflow 64 bits");
    else
        for (uint32_t b = 0; b < n_buf; b++)
            max_size[b] = p.d[b].max_size;
done:
    for (uint32_t b = 0; b < n_buf; b++)
        free(p.d[b].b);
    free(p.s);
    return st;
}
