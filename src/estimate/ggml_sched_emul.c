/* ggml's backend scheduler, emulated (ggml_sched_emul.h states the rules). */
#include <stdlib.h>
#include <string.h>

#include "estimate/ggml_sched_emul.h"

typedef struct gs_split {
    int32_t backend;
    uint32_t i_start, i_end;
    uint32_t first_input, n_inputs; /* range in the inputs array */
} gs_split;

typedef struct gs_state {
    tp_gg_graph *g;
    const tp_gs_backends *b;
    uint32_t n_orig; /* tensors before copies were added */
    int16_t *be;     /* backend per tensor (grown with g) */
    uint32_t be_cap;
    int32_t *copies; /* [n_orig][backends][n_copies], -1: none */
    gs_split *splits;
    uint32_t n_splits, cap_splits;
    int32_t *inputs; /* split inputs, in split order */
    uint32_t n_inputs, cap_inputs;
    int32_t *ginputs; /* graph inputs copied n_copies times */
    uint32_t n_ginputs, cap_ginputs;
    bool oom;
} gs_state;

static int32_t gs_root(const tp_gg_graph *g, int32_t t) {
    return g->t[t].view_src >= 0 ? g->t[t].view_src : t;
}

/* The backend of the pre-allocated buffer t is (a view of), -1: none. */
static int32_t gs_home(const gs_state *s, int32_t t) {
    const tp_gg_tensor *r = &s->g->t[gs_root(s->g, t)];
    const tp_gg_tensor *x = &s->g->t[t];
    if (x->external && x->wkind == TP_GG_W_CACHE && x->layer >= 0 && x->layer < s->b->n_layer)
        return s->b->cache_be[x->layer];
    if (r->external && r->wkind == TP_GG_W_CACHE && r->layer >= 0 && r->layer < s->b->n_layer)
        return s->b->cache_be[r->layer];
    return -1;
}

/* The backend of the weight node t reads, -1: none. */
static int32_t gs_weight(const gs_state *s, int32_t t) {
    const tp_gg_tensor *x = &s->g->t[t];
    int32_t l = x->layer;
    if (x->wkind == TP_GG_W_WEIGHT && l >= -1 && l <= s->b->n_layer) return s->b->layer_be[l + 1];
    if (x->wkind == TP_GG_W_EXPERT && l >= 0 && l < s->b->n_layer) return s->b->expert_be[l];
    return -1;
}

/* ggml_backend_sched_buffer_supported: every backend reads only its own buffer type. */
static bool gs_supported(const gs_state *s, int32_t t, int32_t backend) {
    int32_t h = gs_home(s, t);
    if (h < 0) {
        h = s->be[t];
        if (h < 0 && s->g->t[t].view_src >= 0) h = s->be[s->g->t[t].view_src];
    }
    return h >= 0 && h == backend;
}

static bool gs_is_view(const tp_gg_tensor *t) {
    return t->op == TP_GG_VIEW;
}

static void gs_assign(gs_state *s) {
    tp_gg_graph *g = s->g;
    int32_t cpu = (int32_t)s->b->n - 1;
    for (uint32_t i = 0; i < g->n_leafs; i++) {
        int32_t t = (int32_t)g->leafs[i];
        int32_t h = gs_home(s, t);
        s->be[t] = (int16_t)(h >= 0 ? h : (g->t[t].flags & TP_GG_INPUT) ? cpu : -1);
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) { /* pass 1 (llama.cpp's pins first) */
        int32_t t = (int32_t)g->nodes[i];
        const tp_gg_tensor *x = &g->t[t];
        if (x->norm_named && s->b->force_norm && x->layer >= 0 && x->layer < s->b->n_layer) {
            s->be[t] = s->b->layer_be[x->layer + 1];
            continue;
        }
        int32_t h = gs_home(s, t);
        if (h < 0 && (x->flags & TP_GG_INPUT)) h = cpu;
        if (h < 0) h = gs_weight(s, t);
        s->be[t] = (int16_t)h;
    }
    for (int pass = 0; pass < 4; pass++) { /* pass 2: gpu down, gpu up, rest down, rest up */
        bool up = pass & 1, skip_cpu = pass < 2;
        int32_t cur = -1;
        for (uint32_t k = 0; k < g->n_nodes; k++) {
            int32_t t = (int32_t)g->nodes[up ? g->n_nodes - 1 - k : k];
            if (gs_is_view(&g->t[t])) continue;
            if (s->be[t] != -1)
                cur = skip_cpu && s->be[t] == cpu ? -1 : s->be[t];
            else if (cur != -1)
                s->be[t] = (int16_t)cur;
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) { /* pass 3: the most supported inputs */
        int32_t t = (int32_t)g->nodes[i];
        if (gs_is_view(&g->t[t]) || s->be[t] != -1) continue;
        int best = -1;
        for (uint32_t b = 0; b < s->b->n; b++) {
            int n = 0;
            for (int j = 0; j < TP_GG_MAX_SRC; j++) {
                int32_t src = g->t[t].src[j];
                if (src < 0) continue;
                int32_t vs = g->t[src].view_src;
                if ((s->be[src] != -1 || (vs >= 0 && s->be[vs] != -1)) &&
                    gs_supported(s, src, (int32_t)b))
                    n++;
            }
            if (n > best) {
                best = n;
                s->be[t] = (int16_t)b;
            }
        }
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) { /* pass 4 */
        int32_t t = (int32_t)g->nodes[i];
        tp_gg_tensor *x = &g->t[t];
        if (x->view_src >= 0 && s->be[t] == -1) s->be[t] = s->be[x->view_src];
        for (int j = 0; j < TP_GG_MAX_SRC; j++) {
            int32_t src = x->src[j];
            if (src < 0 || s->be[src] != -1) continue;
            s->be[src] = g->t[src].view_src >= 0 ? s->be[g->t[src].view_src] : s->be[t];
        }
        if (s->be[t] == -1) s->be[t] = 0;
    }
}

/* A copy of t's layout (ggml_dup_tensor_layout) on backend. */
static int32_t gs_dup(gs_state *s, int32_t t, int32_t backend, uint8_t flags) {
    tp_gg_graph *g = s->g;
    tp_gg_tensor c = g->t[t];
    for (int j = 0; j < TP_GG_MAX_SRC; j++)
        c.src[j] = -1;
    c.view_src = -1;
    c.view_offs = 0;
    c.op = TP_GG_NONE;
    c.external = false;
    c.visited = true;
    c.wkind = TP_GG_W_NONE;
    c.norm_named = false;
    c.flags = flags;
    if (!tp__gg_grow((void **)&g->t, &g->cap_t, g->n_t + 1, sizeof *g->t) ||
        !tp__gg_grow((void **)&s->be, &s->be_cap, g->n_t + 1, sizeof *s->be)) {
        s->oom = true;
        return -1;
    }
    g->t[g->n_t] = c;
    s->be[g->n_t] = (int16_t)backend;
    return (int32_t)g->n_t++;
}

static int32_t *gs_copy_slot(gs_state *s, int32_t t, int32_t backend) {
    size_t at = ((size_t)t * s->b->n + (size_t)backend) * s->b->n_copies;
    return &s->copies[at];
}

static bool gs_push(int32_t **arr, uint32_t *n, uint32_t *cap, int32_t v) {
    if (!tp__gg_grow((void **)arr, cap, *n + 1, sizeof **arr)) return false;
    (*arr)[(*n)++] = v;
    return true;
}

static void gs_split_graph(gs_state *s) {
    tp_gg_graph *g = s->g;
    uint32_t nc = s->b->n_copies;
    uint32_t i = 0;
    while (i < g->n_nodes && gs_is_view(&g->t[g->nodes[i]]))
        i++;
    if (!tp__gg_grow((void **)&s->splits, &s->cap_splits, 1, sizeof *s->splits)) {
        s->oom = true;
        return;
    }
    gs_split *sp = &s->splits[0];
    *sp = (gs_split){i < g->n_nodes ? s->be[g->nodes[i]] : 0, 0, 0, 0, 0};
    s->n_splits = 1;
    int32_t cur = sp->backend;
    for (; i < g->n_nodes && !s->oom; i++) {
        int32_t t = (int32_t)g->nodes[i];
        if (gs_is_view(&g->t[t])) continue;
        int32_t nb = s->be[t];
        bool fresh = false;
        if (nb == cur && sp->n_inputs > 0) {
            int32_t w = gs_weight(s, t);
            if (w >= 0 && w != cur) fresh = true;
        }
        if (nb != cur || fresh) {
            sp->i_end = i;
            if (!tp__gg_grow((void **)&s->splits, &s->cap_splits, s->n_splits + 1,
                             sizeof *s->splits)) {
                s->oom = true;
                return;
            }
            sp = &s->splits[s->n_splits++];
            *sp = (gs_split){nb, i, 0, s->n_inputs, 0};
            cur = nb;
        }
        for (int j = 0; j < TP_GG_MAX_SRC && !s->oom; j++) {
            int32_t src = g->t[t].src[j];
            if (src < 0 || (uint32_t)src >= s->n_orig) continue;
            int32_t sb = s->be[src];
            if ((g->t[src].flags & TP_GG_INPUT) && nc > 1 && *gs_copy_slot(s, src, sb) < 0) {
                int32_t *slot = gs_copy_slot(s, src, sb);
                g->t[src].flags |= TP_GG_INPUT | TP_GG_OUTPUT;
                for (uint32_t c = 0; c < nc; c++) {
                    int32_t cp = c == 0 ? src : gs_dup(s, src, sb, TP_GG_INPUT | TP_GG_OUTPUT);
                    slot = gs_copy_slot(s, src, sb);
                    slot[c] = cp;
                }
                if (!gs_push(&s->ginputs, &s->n_ginputs, &s->cap_ginputs, src)) s->oom = true;
            }
            if (sb != cur && !gs_supported(s, src, cur)) {
                if (*gs_copy_slot(s, src, cur) < 0) {
                    for (uint32_t c = 0; c < nc; c++) {
                        int32_t cp = gs_dup(s, src, cur, nc > 1 ? TP_GG_INPUT | TP_GG_OUTPUT : 0);
                        gs_copy_slot(s, src, cur)[c] = cp;
                    }
                    if (!gs_push(&s->inputs, &s->n_inputs, &s->cap_inputs, src)) s->oom = true;
                    sp->n_inputs++;
                }
                g->t[t].src[j] = gs_copy_slot(s, src, cur)[0];
            }
        }
    }
    sp->i_end = g->n_nodes;
}

/* The graph copy's nodes and leafs with their backends, planned. */
static tp_status gs_plan(gs_state *s, uint64_t *sizes, tp_error *err) {
    tp_gg_graph *g = s->g;
    uint32_t nc = s->b->n_copies;
    uint32_t *nodes = NULL, *leafs = NULL, n_nodes = 0, n_leafs = 0, cap_n = 0, cap_l = 0;
    uint8_t *nbuf = NULL, *lbuf = NULL;
    uint32_t cap_nb = 0, cap_lb = 0;
    tp_status st = TP_OK;
#define GS_ADD(list, n, cap, buf, capb, v, bid)                                                    \
    do {                                                                                           \
        if (!tp__gg_grow((void **)&list, &cap, n + 1, sizeof *list) ||                             \
            !tp__gg_grow((void **)&buf, &capb, n + 1, sizeof *buf)) {                              \
            s->oom = true;                                                                         \
            goto out;                                                                              \
        }                                                                                          \
        list[n] = (uint32_t)(v);                                                                   \
        buf[n++] = (uint8_t)((bid) < 0 ? 0 : (bid));                                               \
    } while (0)
    for (uint32_t k = 0; k < s->n_splits; k++) {
        const gs_split *sp = &s->splits[k];
        for (uint32_t j = 0; j < sp->n_inputs; j++) {
            int32_t in = s->inputs[sp->first_input + j];
            int32_t dep = gs_dup(s, in, s->be[in], 0); /* keeps the source until the copy */
            if (dep < 0) goto out;
            g->t[dep].view_src = gs_root(g, in);
            g->t[dep].src[0] = in;
            GS_ADD(nodes, n_nodes, cap_n, nbuf, cap_nb, dep, s->be[in]);
            GS_ADD(nodes, n_nodes, cap_n, nbuf, cap_nb, gs_copy_slot(s, in, sp->backend)[0],
                   sp->backend);
        }
        for (uint32_t i = sp->i_start; i < sp->i_end; i++)
            GS_ADD(nodes, n_nodes, cap_n, nbuf, cap_nb, g->nodes[i], s->be[g->nodes[i]]);
    }
    if (nc > 1) {
        for (uint32_t k = 0; k < s->n_ginputs; k++) {
            int32_t in = s->ginputs[k];
            for (uint32_t c = 0; c < nc; c++)
                GS_ADD(leafs, n_leafs, cap_l, lbuf, cap_lb, gs_copy_slot(s, in, s->be[in])[c],
                       s->be[in]);
        }
        for (uint32_t k = 0; k < s->n_splits; k++) {
            const gs_split *sp = &s->splits[k];
            for (uint32_t j = 0; j < sp->n_inputs; j++) {
                int32_t in = s->inputs[sp->first_input + j];
                for (uint32_t c = 0; c < nc; c++)
                    GS_ADD(leafs, n_leafs, cap_l, lbuf, cap_lb, gs_copy_slot(s, in, sp->backend)[c],
                           sp->backend);
            }
        }
    }
    for (uint32_t i = 0; i < g->n_leafs; i++)
        GS_ADD(leafs, n_leafs, cap_l, lbuf, cap_lb, g->leafs[i], s->be[g->leafs[i]]);
#undef GS_ADD
    {
        uint32_t *on = g->nodes, *ol = g->leafs, onn = g->n_nodes, onl = g->n_leafs;
        g->nodes = nodes, g->n_nodes = n_nodes, g->leafs = leafs, g->n_leafs = n_leafs;
        st = tp__ga_reserve(g, nbuf, lbuf, s->b->n, s->b->align, sizes, err);
        g->nodes = on, g->n_nodes = onn, g->leafs = ol, g->n_leafs = onl;
    }
out:
    free(nodes);
    free(leafs);
    free(nbuf);
    free(lbuf);
    if (s->oom && st == TP_OK)
        st = tp_error_set(err, TP_ERR_NOMEM, "ggml scheduler: out of memory");
    return st;
}

tp_status tp__gs_reserve(tp_gg_graph *g, const tp_gs_backends *b, uint64_t *sizes, tp_error *err) {
    if (!g || !b || !sizes || b->n == 0 || b->n > TP_GA_MAX_BUFFERS || b->n_copies == 0 ||
        b->n_copies > 8 || !b->layer_be || !b->expert_be || !b->cache_be || b->n_layer < 0)
        return tp_error_set(err, TP_ERR_INVALID, "ggml scheduler: bad arguments");
    if (g->status != TP_OK)
        return tp_error_set(err, g->status, "ggml scheduler: the graph could not be built");
    gs_state s;
    memset(&s, 0, sizeof s);
    s.g = g;
    s.b = b;
    s.n_orig = g->n_t;
    size_t nslots = (size_t)g->n_t * b->n * b->n_copies;
    s.copies = malloc((nslots ? nslots : 1) * sizeof *s.copies);
    s.be = malloc((g->n_t ? g->n_t : 1) * sizeof *s.be);
    s.be_cap = g->n_t ? g->n_t : 1;
    tp_status st = TP_OK;
    if (!s.copies || !s.be) {
        st = tp_error_set(err, TP_ERR_NOMEM, "ggml scheduler: out of memory");
        goto done;
    }
    for (size_t i = 0; i < nslots; i++)
        s.copies[i] = -1;
    for (uint32_t i = 0; i < g->n_t; i++)
        s.be[i] = -1;
    gs_assign(&s);
    gs_split_graph(&s);
    if (s.oom) {
        st = tp_error_set(err, TP_ERR_NOMEM, "ggml scheduler: out of memory");
        goto done;
    }
    st = gs_plan(&s, sizes, err);
done:
    free(s.copies);
    free(s.be);
    free(s.splits);
    free(s.inputs);
    free(s.ginputs);
    return st;
}
