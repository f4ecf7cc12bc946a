/*
 * tensorplan/report.h — pictures of a plan: the SVG memory map, and per-device bars.
 *
 * The memory map puts time (steps) on x and arena offset on y, one rectangle
 * per buffer coloured by op family, plus the live-bytes curve, the lower bound
 * and the arena as horizontal lines, and the peak step marked. Every rectangle
 * carries a <title> (tooltip) and data-* attributes (node, op, offset, size,
 * birth, death) so an HTML page can show details on hover.
 *
 * tp_report_html_page wraps a memory map and the caller's tables into one
 * self-contained HTML page (style and hover script inline), the page of
 * `tensorplan report --html` and of the Python package's report(html=...).
 *
 * Ownership: *out is allocated with the libc allocator; free with tp_free_string().
 * Thread safety: reentrant; reads the plan and graph only.
 */
#ifndef TENSORPLAN_REPORT_H
#define TENSORPLAN_REPORT_H

#include "tensorplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_svg_options {
    uint32_t width_px;  /* total width; default 1000 (min 300) */
    uint32_t height_px; /* total height; default 560 (min 200) */
    const char *title;  /* optional heading drawn at the top (NULL = none) */
} tp_svg_options;

TP_API void tp_svg_options_default(tp_svg_options *o);

/* Live bytes at each step 0..last (last = node count): *out_steps entries
 * written into a caller array `live` of at least tp_graph_node_count(g)+1
 * entries; *peak_step receives the first step at the maximum. Counts every
 * non-view, non-in-place slot (boundary buffers included when the plan
 * allocated them; tail guards excluded). */
TP_API tp_status tp_plan_live_bytes(const tp_plan *p, const tp_graph *g, uint64_t *live,
                                    size_t live_cap, size_t *out_steps, size_t *peak_step,
                                    tp_error *err);

/* The last step of every buffer: ends[node] = the latest death among the
 * slots whose root is `node` (views and in-place users extend their root's
 * buffer), or -1 when node owns no buffer. ends needs tp_graph_node_count(g)
 * entries. TP_ERR_INVALID (NULLs, short array, a slot outside the graph). */
TP_API tp_status tp_plan_buffer_ends(const tp_plan *p, const tp_graph *g, int64_t *ends, size_t cap,
                                     tp_error *err);

/* Colour family of an op kind for pictures ("matmul", "conv", "norm",
 * "elementwise", "attention", "shape", "boundary-param", "boundary-input",
 * "reduce", "other"); never NULL. */
TP_API const char *tp_op_family(tp_op_kind k);
/* CSS colour "#rrggbb" of a family name; never NULL. */
TP_API const char *tp_op_family_color(const char *family);

/* Render the memory map as a standalone SVG document. TP_ERR_INVALID for a
 * NULL plan/graph or a graph that does not match the plan; TP_ERR_NOMEM. */
TP_API tp_status tp_plan_svg(const tp_plan *p, const tp_graph *g, const tp_svg_options *opt,
                             char **out, size_t *len, tp_error *err);

/* One self-contained HTML page: <title> and <h1> from title (escaped; NULL =
 * "tensorplan report"), then the SVG (trusted: tp_plan_svg's output; NULL =
 * "(no memory map)"), then tables_html (a trusted fragment whose names the
 * caller has escaped; NULL = none), and a script that shows a buffer's
 * data-* details when the pointer enters its rectangle in #memory-map.
 * TP_ERR_INVALID (out NULL), TP_ERR_NOMEM. len may be NULL. */
TP_API tp_status tp_report_html_page(const char *title, const char *svg, const char *tables_html,
                                     char **out, size_t *len, tp_error *err);

/* One device's row of a per-device bar chart (an LLM placed on several devices). */
typedef struct tp_device_bar {
    const char *name; /* drawn escaped; NULL = "(unnamed)" */
    uint64_t model_bytes, kv_bytes, compute_bytes, output_bytes;
    bool capacity_known;     /* false: no free segment, the size is unknown */
    uint64_t capacity_bytes; /* what the device can give (size minus its reserve) */
} tp_device_bar;

/* One horizontal bar per device: model, KV, compute and output stacked, then the free
 * memory up to the device's capacity (or, past it, the overflow marked in red), all on
 * one byte scale so devices compare; a <title> tooltip on every segment. title is an
 * optional heading (escaped). TP_ERR_INVALID (NULL bars with n > 0, NULL out, n = 0),
 * TP_ERR_NOMEM. Free *out with tp_free_string(); len may be NULL. */
TP_API tp_status tp_device_bars_svg(const tp_device_bar *bars, size_t n, const char *title,
                                    char **out, size_t *len, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
