/* The SVG memory map: x = step, y = arena offset, one rectangle per buffer. */
#include "tensorplan/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/strbuf.h"

void tp_svg_options_default(tp_svg_options *o) {
    o->width_px = 1000;
    o->height_px = 560;
    o->title = NULL;
}

const char *tp_op_family(tp_op_kind k) {
    switch (k) {
    case TP_OP_PARAM:
    case TP_OP_CONSTANT:
        return "boundary-param";
    case TP_OP_INPUT:
        return "boundary-input";
    case TP_OP_MATMUL:
    case TP_OP_GEMM:
    case TP_OP_BATCHED_DOT:
    case TP_OP_FUSED_MATMUL:
        return "matmul";
    case TP_OP_CONV:
    case TP_OP_CONV_TRANSPOSE:
    case TP_OP_POOL:
        return "conv";
    case TP_OP_NORM:
    case TP_OP_SOFTMAX:
        return "norm";
    case TP_OP_ATTENTION:
    case TP_OP_ROPE:
        return "attention";
    case TP_OP_UNARY:
    case TP_OP_BINARY:
    case TP_OP_COMPARE:
    case TP_OP_WHERE:
    case TP_OP_CAST:
        return "elementwise";
    case TP_OP_REDUCE:
    case TP_OP_CUMSUM:
    case TP_OP_TOPK:
        return "reduce";
    case TP_OP_GATHER:
    case TP_OP_SCATTER:
    case TP_OP_CONCAT:
    case TP_OP_SPLIT:
    case TP_OP_SLICE:
    case TP_OP_NARROW:
    case TP_OP_PAD:
    case TP_OP_EXPAND:
    case TP_OP_TILE:
    case TP_OP_RESHAPE:
    case TP_OP_TRANSPOSE:
    case TP_OP_SQUEEZE:
    case TP_OP_UNSQUEEZE:
    case TP_OP_FLATTEN:
    case TP_OP_RESIZE:
        return "shape";
    default:
        return "other";
    }
}

static const struct {
    const char *family;
    const char *color;
} family_colors[] = {
    {"boundary-param", "#9aa5b1"}, {"boundary-input", "#4c78a8"}, {"matmul", "#f58518"},
    {"conv", "#e45756"},           {"norm", "#b279a2"},           {"attention", "#ff9da6"},
    {"elementwise", "#54a24b"},    {"reduce", "#eeca3b"},         {"shape", "#72b7b2"},
    {"other", "#9d755d"},
};
#define N_FAMILIES (sizeof family_colors / sizeof family_colors[0])

const char *tp_op_family_color(const char *family) {
    for (size_t i = 0; family && i < N_FAMILIES; i++)
        if (strcmp(family, family_colors[i].family) == 0) return family_colors[i].color;
    return "#9d755d";
}

static bool counts_as_buffer(const tp_slot *s) {
    return !s->is_view && !s->inplace;
}

/* until[node] = the last step of the buffer owned by node: the latest death
 * among the slots that share it as root (views and in-place users extend it).
 * Allocated with the graph's allocator; free with free_until(). */
static tp_status root_until(const tp_plan *p, const tp_graph *g, int64_t **out, tp_error *err) {
    size_t nodes = (size_t)tp_graph_node_count(g), steps = nodes + 1;
    int64_t *until = tp_mem_alloc(tp_graph_allocator(g), nodes * sizeof *until + 1);
    if (!until) return tp_error_set(err, TP_ERR_NOMEM, "live bytes: out of memory");
    for (size_t i = 0; i < nodes; i++)
        until[i] = -1;
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        if (s->root < 0 || (size_t)s->root >= nodes || s->birth < 0 || s->death < s->birth ||
            (uint64_t)s->death >= steps) {
            tp_mem_free(tp_graph_allocator(g), until, nodes * sizeof *until + 1);
            return tp_error_setx(err, TP_ERR_INVALID, TP_NO_OFFSET, s->node,
                                 "live bytes: slot of node %d (root %d) has lifetime [%" PRId64
                                 ", %" PRId64 "] outside the graph's %zu steps",
                                 (int)s->node, (int)s->root, s->birth, s->death, steps);
        }
        if (s->death > until[s->root]) until[s->root] = s->death;
    }
    *out = until;
    return TP_OK;
}

static void free_until(const tp_graph *g, int64_t *until) {
    size_t nodes = (size_t)tp_graph_node_count(g);
    tp_mem_free(tp_graph_allocator(g), until, nodes * sizeof *until + 1);
}

static int64_t buffer_end(const tp_slot *s, const int64_t *until) {
    return until[s->node] > s->death ? until[s->node] : s->death;
}

tp_status tp_plan_buffer_ends(const tp_plan *p, const tp_graph *g, int64_t *ends, size_t cap,
                              tp_error *err) {
    if (!p || !g || !ends)
        return tp_error_set(err, TP_ERR_INVALID, "buffer ends: NULL plan, graph or output");
    size_t nodes = (size_t)tp_graph_node_count(g);
    if (cap < nodes)
        return tp_error_set(err, TP_ERR_INVALID, "buffer ends: need %zu entries, got %zu", nodes,
                            cap);
    int64_t *until = NULL;
    tp_status st = root_until(p, g, &until, err);
    if (st != TP_OK) return st;
    for (size_t i = 0; i < nodes; i++)
        ends[i] = -1;
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        if (counts_as_buffer(s)) ends[s->node] = buffer_end(s, until);
    }
    free_until(g, until);
    return TP_OK;
}

/* live[t] for t in [0, steps) from buffer ends; returns the first peak step. */
static size_t fill_live(const tp_plan *p, const int64_t *until, uint64_t *live, size_t steps) {
    memset(live, 0, steps * sizeof *live);
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        if (!counts_as_buffer(s)) continue;
        for (int64_t t = s->birth, end = buffer_end(s, until); t <= end; t++)
            live[t] = tp_sat_add_u64(live[t], s->size);
    }
    size_t best = 0;
    for (size_t t = 1; t < steps; t++)
        if (live[t] > live[best]) best = t;
    return best;
}

tp_status tp_plan_live_bytes(const tp_plan *p, const tp_graph *g, uint64_t *live, size_t live_cap,
                             size_t *out_steps, size_t *peak_step, tp_error *err) {
    if (!p || !g || !live)
        return tp_error_set(err, TP_ERR_INVALID, "live bytes: NULL plan, graph or output");
    size_t steps = (size_t)tp_graph_node_count(g) + 1;
    if (live_cap < steps)
        return tp_error_set(err, TP_ERR_INVALID, "live bytes: need %zu entries, got %zu", steps,
                            live_cap);
    int64_t *until = NULL;
    tp_status st = root_until(p, g, &until, err);
    if (st != TP_OK) return st;
    size_t best = fill_live(p, until, live, steps);
    if (out_steps) *out_steps = steps;
    if (peak_step) *peak_step = best;
    free_until(g, until);
    return TP_OK;
}

typedef struct frame {
    double x0, y0, w, h; /* chart area in px; y0 is the top */
    double s0, steps;    /* x range [s0, steps]: s0 = first step with a buffer */
    double bytes;        /* y range [0, bytes] */
} frame;

static double fx(const frame *f, double step) {
    return f->x0 + (step - f->s0) / (f->steps - f->s0) * f->w;
}
static double fy(const frame *f, double byte) {
    return f->y0 + f->h - byte / f->bytes * f->h;
}

static void draw_axes(tp_strbuf *sb, const frame *f, size_t steps) {
    tp_strbuf_printf(sb,
                     "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfb\" "
                     "stroke=\"#888\"/>\n",
                     f->x0, f->y0, f->w, f->h);
    for (int i = 0; i <= 4; i++) {
        double b = f->bytes * i / 4.0;
        char lab[32];
        tp_format_bytes((uint64_t)b, lab, sizeof lab);
        double y = fy(f, b);
        tp_strbuf_printf(
            sb,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
            f->x0, y, f->x0 + f->w, y, f->x0 - 6, y + 4, lab);
    }
    for (int i = 0; i <= 5; i++) {
        double s = f->s0 + ((double)(steps - 1) - f->s0) * i / 5.0;
        double x = fx(f, s);
        tp_strbuf_printf(sb,
                         "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%.0f"
                         "</text>\n",
                         x, f->y0 + f->h + 16, s);
    }
    tp_strbuf_printf(sb,
                     "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">step "
                     "(node index)</text>\n",
                     f->x0 + f->w / 2, f->y0 + f->h + 34);
    tp_strbuf_printf(sb,
                     "<text x=\"14\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 14 %.1f)\">arena offset / live bytes</text>\n",
                     f->y0 + f->h / 2, f->y0 + f->h / 2);
}

static void draw_buffers(tp_strbuf *sb, const frame *f, const tp_plan *p, const tp_graph *g,
                         const int64_t *until) {
    tp_strbuf_append(sb, "<g id=\"buffers\">\n");
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        if (!counts_as_buffer(s)) continue;
        const tp_node *n = tp_graph_node(g, s->node);
        if (!n) continue;
        const char *fam = tp_op_family(n->op.kind);
        int64_t end = buffer_end(s, until);
        double x = fx(f, (double)s->birth), x2 = fx(f, (double)end + 1.0);
        double y = fy(f, (double)s->offset + (double)s->size), y2 = fy(f, (double)s->offset);
        double h = y2 - y < 0.6 ? 0.6 : y2 - y, w = x2 - x < 1.5 ? 1.5 : x2 - x;
        char sz[32];
        tp_format_bytes(s->size, sz, sizeof sz);
        tp_strbuf_printf(sb,
                         "<rect class=\"buf\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                         "fill=\"%s\" data-node=\"%d\" data-name=\"",
                         x, y, w, h, tp_op_family_color(fam), (int)s->node);
        tp_strbuf_append_xml(sb, n->name);
        tp_strbuf_printf(sb,
                         "\" data-op=\"%s\" data-offset=\"%" PRIu64 "\" data-size=\"%" PRIu64
                         "\" data-birth=\"%" PRId64 "\" data-death=\"%" PRId64 "\"><title>",
                         tp_op_name(&n->op), s->offset, s->size, s->birth, end);
        tp_strbuf_append_xml(sb, n->name[0] ? n->name : "(unnamed)");
        tp_strbuf_printf(
            sb, " [%s] %s at offset %" PRIu64 ", steps %" PRId64 "..%" PRId64 "</title></rect>\n",
            tp_op_name(&n->op), sz, s->offset, s->birth, end);
    }
    tp_strbuf_append(sb, "</g>\n");
}

static void draw_curves(tp_strbuf *sb, const frame *f, const uint64_t *live, size_t steps,
                        size_t peak, uint64_t lb, uint64_t arena) {
    tp_strbuf_append(sb, "<polyline id=\"live-bytes\" fill=\"none\" stroke=\"#222\" "
                         "stroke-width=\"1.5\" points=\"");
    for (size_t t = (size_t)f->s0; t < steps; t++)
        tp_strbuf_printf(sb, "%.2f,%.2f %.2f,%.2f ", fx(f, (double)t), fy(f, (double)live[t]),
                         fx(f, (double)t + 1.0), fy(f, (double)live[t]));
    tp_strbuf_append(sb, "\"/>\n");
    char b1[32], b2[32];
    tp_format_bytes(lb, b1, sizeof b1);
    tp_format_bytes(arena, b2, sizeof b2);
    tp_strbuf_printf(sb,
                     "<line id=\"lower-bound\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" "
                     "stroke=\"#d62728\" stroke-dasharray=\"6 4\"/>"
                     "<text x=\"%.1f\" y=\"%.2f\" class=\"lab\" fill=\"#d62728\" "
                     "text-anchor=\"end\">lower bound %s</text>\n",
                     f->x0, fy(f, (double)lb), f->x0 + f->w, fy(f, (double)lb), f->x0 + f->w - 4,
                     fy(f, (double)lb) + 14, b1);
    tp_strbuf_printf(sb,
                     "<line id=\"arena\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" "
                     "stroke=\"#1f77b4\"/>"
                     "<text x=\"%.1f\" y=\"%.2f\" class=\"lab\" fill=\"#1f77b4\">arena %s</text>\n",
                     f->x0, fy(f, (double)arena), f->x0 + f->w, fy(f, (double)arena), f->x0 + 4,
                     fy(f, (double)arena) - 4, b2);
    double px = fx(f, (double)peak + 0.5);
    bool right = px > f->x0 + 0.6 * f->w; /* keep the label inside the chart */
    tp_strbuf_printf(sb,
                     "<line id=\"peak\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
                     "stroke=\"#d62728\" stroke-width=\"1\"/>"
                     "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"#d62728\"/>"
                     "<text id=\"peak-label\" x=\"%.2f\" y=\"%.1f\" class=\"lab\" "
                     "fill=\"#d62728\" text-anchor=\"%s\">peak at step %zu</text>\n",
                     px, f->y0, px, f->y0 + f->h, px, fy(f, (double)live[peak]),
                     right ? px - 4 : px + 4, f->y0 + 12, right ? "end" : "start", peak);
}

static void draw_legend(tp_strbuf *sb, double x, double y, const bool *present) {
    double yy = y - 16.0;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        if (!present[i]) continue;
        yy += 16.0;
        tp_strbuf_printf(sb,
                         "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%s</text>\n",
                         x, yy, family_colors[i].color, x + 14, yy + 9, family_colors[i].family);
    }
}

tp_status tp_plan_svg(const tp_plan *p, const tp_graph *g, const tp_svg_options *opt, char **out,
                      size_t *len, tp_error *err) {
    tp_svg_options o;
    if (!p || !g || !out) return tp_error_set(err, TP_ERR_INVALID, "svg: NULL plan, graph or out");
    if (opt)
        o = *opt;
    else
        tp_svg_options_default(&o);
    if (o.width_px < 300) o.width_px = 300;
    if (o.height_px < 200) o.height_px = 200;
    const tp_allocator *a = tp_graph_allocator(g);
    size_t cap = (size_t)tp_graph_node_count(g) + 1;
    uint64_t *live = tp_mem_calloc(a, cap, sizeof *live);
    if (!live) return tp_error_set(err, TP_ERR_NOMEM, "svg: out of memory");
    int64_t *until = NULL;
    tp_status st = root_until(p, g, &until, err);
    if (st != TP_OK) {
        tp_mem_free(a, live, cap * sizeof *live);
        return st;
    }
    size_t steps = cap, peak = fill_live(p, until, live, steps);
    uint64_t arena = tp_plan_arena_bytes(p), lb = tp_plan_lower_bound_bytes(p);
    double top = (double)(arena > lb ? arena : lb);
    if ((double)live[peak] > top) top = (double)live[peak];
    if (top <= 0) top = 1;
    frame f = {80.0, o.title ? 40.0 : 20.0, (double)o.width_px - 80.0 - 140.0, 0, 0, 0, 0};
    f.h = (double)o.height_px - f.y0 - 50.0;
    f.steps = (double)steps;
    f.s0 = (double)steps - 1.0;
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        if (counts_as_buffer(s) && (double)s->birth < f.s0) f.s0 = (double)s->birth;
    }
    if (f.s0 < 0) f.s0 = 0;
    f.bytes = top * 1.05;

    tp_strbuf sb;
    tp_strbuf_init(&sb, NULL);
    tp_strbuf_printf(&sb,
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"memory-map\" width=\"%u\" "
                     "height=\"%u\" viewBox=\"0 0 %u %u\" font-family=\"sans-serif\">\n"
                     "<style>.tick{font-size:10px;fill:#444}.axis{font-size:12px;fill:#222}"
                     ".lab{font-size:11px}.buf{stroke:#fff;stroke-width:0.3;opacity:0.9}"
                     ".buf:hover{stroke:#000;stroke-width:1;opacity:1}</style>\n",
                     o.width_px, o.height_px, o.width_px, o.height_px);
    if (o.title) {
        tp_strbuf_append(&sb, "<text x=\"80\" y=\"24\" font-size=\"15\" font-weight=\"bold\">");
        tp_strbuf_append_xml(&sb, o.title);
        tp_strbuf_append(&sb, "</text>\n");
    }
    draw_axes(&sb, &f, steps);
    draw_buffers(&sb, &f, p, g, until);
    draw_curves(&sb, &f, live, steps, peak, lb, arena);
    bool present[N_FAMILIES] = {false};
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        const tp_node *n = tp_graph_node(g, s->node);
        if (!counts_as_buffer(s) || !n) continue;
        const char *fam = tp_op_family(n->op.kind);
        for (size_t k = 0; k < N_FAMILIES; k++)
            if (strcmp(fam, family_colors[k].family) == 0) present[k] = true;
    }
    draw_legend(&sb, f.x0 + f.w + 14, f.y0 + 4, present);
    tp_strbuf_append(&sb, "</svg>\n");
    free_until(g, until);
    tp_mem_free(a, live, cap * sizeof *live);
    return tp_strbuf_finish(&sb, out, len, err);
}
