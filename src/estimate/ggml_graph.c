/* The ggml graph model of ggml_graph.h: tensors with shapes, strides and
 * views, and ggml_build_forward_expand's depth-first node order. */
#include <stdlib.h>
#include <string.h>

#include "estimate/ggml_graph.h"

void tp__gg_init(tp_gg_graph *g) {
    memset(g, 0, sizeof *g);
    g->cur_layer = -1;
}

void tp__gg_free(tp_gg_graph *g) {
    free(g->t);
    free(g->nodes);
    free(g->leafs);
    memset(g, 0, sizeof *g);
}

bool tp__gg_grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return true;
    uint32_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > (1u << 30)) return false;
        nc *= 2;
    }
    void *np = realloc(*p, (size_t)nc * elem);
    if (!np) return false;
    *p = np;
    *cap = nc;
    return true;
}

static int32_t gg_fail(tp_gg_graph *g, tp_status s) {
    if (g->status == TP_OK) g->status = s;
    return -1;
}

static bool gg_valid(const tp_gg_graph *g, int32_t i) {
    return i >= 0 && (uint32_t)i < g->n_t;
}

/* Contiguous strides of type[ne]; false on overflow. */
static bool gg_contiguous_strides(tp_dtype type, const int64_t ne[4], uint64_t nb[4]) {
    const tp_dtype_info *di = tp_dtype_get(type);
    uint64_t be = di->block_elems ? di->block_elems : 1;
    nb[0] = di->block_bytes;
    if (!tp_mul_u64(nb[0], (uint64_t)ne[0] / be, &nb[1])) return false;
    for (int i = 2; i < 4; i++)
        if (!tp_mul_u64(nb[i - 1], (uint64_t)ne[i - 1], &nb[i])) return false;
    return true;
}

static int32_t gg_push(tp_gg_graph *g, const tp_gg_tensor *t) {
    if (g->status != TP_OK) return -1;
    if (!tp__gg_grow((void **)&g->t, &g->cap_t, g->n_t + 1, sizeof *g->t))
        return gg_fail(g, TP_ERR_NOMEM);
    g->t[g->n_t] = *t;
    return (int32_t)g->n_t++;
}

static void gg_blank(tp_gg_tensor *t, int32_t layer) {
    memset(t, 0, sizeof *t);
    for (int i = 0; i < TP_GG_MAX_SRC; i++)
        t->src[i] = -1;
    t->view_src = -1;
    t->layer = layer;
}

int32_t tp__gg_new(tp_gg_graph *g, tp_gg_op op, tp_dtype type, int64_t ne0, int64_t ne1,
                   int64_t ne2, int64_t ne3, const int32_t *srcs, int nsrc) {
    if (g->status != TP_OK) return -1;
    tp_gg_tensor t;
    gg_blank(&t, g->cur_layer);
    t.op = op;
    t.type = type;
    t.ne[0] = ne0, t.ne[1] = ne1, t.ne[2] = ne2, t.ne[3] = ne3;
    for (int i = 0; i < 4; i++)
        if (t.ne[i] < 0 || t.ne[i] > (1ll << 40)) return gg_fail(g, TP_ERR_OVERFLOW);
    if (!gg_contiguous_strides(type, t.ne, t.nb)) return gg_fail(g, TP_ERR_OVERFLOW);
    if (nsrc > TP_GG_MAX_SRC) return gg_fail(g, TP_ERR_INVALID);
    for (int i = 0; i < nsrc; i++) {
        if (srcs[i] != -1 && !gg_valid(g, srcs[i])) return gg_fail(g, TP_ERR_INVALID);
        t.src[i] = srcs[i];
    }
    return gg_push(g, &t);
}

int32_t tp__gg_leaf(tp_gg_graph *g, tp_dtype type, int64_t ne0, int64_t ne1, int64_t ne2,
                    int64_t ne3, bool external, uint8_t flags) {
    int32_t i = tp__gg_new(g, TP_GG_NONE, type, ne0, ne1, ne2, ne3, NULL, 0);
    if (i >= 0) {
        g->t[i].external = external;
        g->t[i].flags = flags;
    }
    return i;
}

int32_t tp__gg_view(tp_gg_graph *g, int32_t a, const int64_t ne[4], const uint64_t *nb,
                    uint64_t offs) {
    if (g->status != TP_OK) return -1;
    if (!gg_valid(g, a)) return gg_fail(g, TP_ERR_INVALID);
    tp_gg_tensor t;
    const tp_gg_tensor *s = &g->t[a];
    gg_blank(&t, g->cur_layer);
    t.op = TP_GG_VIEW;
    t.type = s->type;
    memcpy(t.ne, ne, sizeof t.ne);
    if (nb)
        memcpy(t.nb, nb, sizeof t.nb);
    else if (!gg_contiguous_strides(t.type, t.ne, t.nb))
        return gg_fail(g, TP_ERR_OVERFLOW);
    t.src[0] = a;
    /* a view of a view views the root (ggml_new_tensor_impl) */
    t.view_src = s->view_src >= 0 ? s->view_src : a;
    t.view_offs = offs + (s->view_src >= 0 ? s->view_offs : 0);
    t.external = g->t[t.view_src].external;
    return gg_push(g, &t);
}

int32_t tp__gg_reshape(tp_gg_graph *g, int32_t a, int64_t ne0, int64_t ne1, int64_t ne2,
                       int64_t ne3) {
    int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return tp__gg_view(g, a, ne, NULL, 0);
}

int32_t tp__gg_permute(tp_gg_graph *g, int32_t a, int p0, int p1, int p2, int p3) {
    if (g->status != TP_OK) return -1;
    if (!gg_valid(g, a)) return gg_fail(g, TP_ERR_INVALID);
    const tp_gg_tensor *s = &g->t[a];
    int p[4] = {p0, p1, p2, p3};
    int64_t ne[4];
    uint64_t nb[4];
    for (int i = 0; i < 4; i++) {
        if (p[i] < 0 || p[i] > 3) return gg_fail(g, TP_ERR_INVALID);
        ne[p[i]] = s->ne[i];
        nb[p[i]] = s->nb[i];
    }
    return tp__gg_view(g, a, ne, nb, 0);
}

int32_t tp__gg_like(tp_gg_graph *g, tp_gg_op op, int32_t a, const int32_t *srcs, int nsrc) {
    if (g->status != TP_OK) return -1;
    if (!gg_valid(g, a)) return gg_fail(g, TP_ERR_INVALID);
    const tp_gg_tensor *s = &g->t[a];
    return tp__gg_new(g, op, s->type, s->ne[0], s->ne[1], s->ne[2], s->ne[3], srcs, nsrc);
}

void tp__gg_expand(tp_gg_graph *g, int32_t root) {
    if (g->status != TP_OK) return;
    if (!gg_valid(g, root)) {
        gg_fail(g, TP_ERR_INVALID);
        return;
    }
    /* iterative depth-first walk: (tensor, next source to visit) */
    uint32_t cap = 0, n = 0;
    struct frame {
        int32_t t;
        int next;
    } *st = NULL;
    if (g->t[root].visited) return;
    if (!tp__gg_grow((void **)&st, &cap, 1, sizeof *st)) {
        gg_fail(g, TP_ERR_NOMEM);
        return;
    }
    g->t[root].visited = true;
    st[n++] = (struct frame){root, 0};
    while (n) {
        struct frame *f = &st[n - 1];
        tp_gg_tensor *t = &g->t[f->t];
        if (f->next < TP_GG_MAX_SRC) {
            int32_t s = t->src[f->next++];
            if (s < 0 || g->t[s].visited) continue;
            g->t[s].visited = true;
            if (!tp__gg_grow((void **)&st, &cap, n + 1, sizeof *st)) {
                gg_fail(g, TP_ERR_NOMEM);
                break;
            }
            st[n++] = (struct frame){s, 0};
            continue;
        }
        bool leaf = t->op == TP_GG_NONE;
        uint32_t **list = leaf ? &g->leafs : &g->nodes;
        uint32_t *cnt = leaf ? &g->n_leafs : &g->n_nodes;
        uint32_t *lcap = leaf ? &g->cap_leafs : &g->cap_nodes;
        if (!tp__gg_grow((void **)list, lcap, *cnt + 1, sizeof **list)) {
            gg_fail(g, TP_ERR_NOMEM);
            break;
        }
        (*list)[(*cnt)++] = (uint32_t)f->t;
        n--;
    }
    free(st);
}

bool tp__gg_nbytes(const tp_gg_tensor *t, uint64_t *out) {
    for (int i = 0; i < 4; i++)
        if (t->ne[i] <= 0) {
            *out = 0;
            return true;
        }
    const tp_dtype_info *di = tp_dtype_get(t->type);
    uint64_t be = di->block_elems ? di->block_elems : 1, b, p;
    if (be == 1) {
        b = di->block_bytes;
        if (!tp_mul_u64((uint64_t)(t->ne[0] - 1), t->nb[0], &p) || !tp_add_u64(b, p, &b))
            return false;
    } else {
        if (!tp_mul_u64((uint64_t)t->ne[0], t->nb[0], &b)) return false;
        b /= be;
    }
    for (int i = 1; i < 4; i++)
        if (!tp_mul_u64((uint64_t)(t->ne[i] - 1), t->nb[i], &p) || !tp_add_u64(b, p, &b))
            return false;
    *out = b;
    return true;
}

bool tp__gg_is_contiguous(const tp_gg_tensor *t) {
    uint64_t nb[4];
    if (!gg_contiguous_strides(t->type, t->ne, nb)) return false;
    for (int i = 1; i < 4; i++)
        if (t->ne[i] > 1 && t->nb[i] != nb[i]) return false;
    return t->nb[0] == nb[0];
}
