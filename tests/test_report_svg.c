/* Report pictures: live-bytes curve and the SVG memory map on the demo model. */
#include "harness.h"

static tp_graph *demo(void) {
    tp_graph *g = NULL;
    tp_error err;
    tp_demo_options o;
    tp_demo_options_default(&o);
    TP_CHECK_OK(tp_demo_transformer(&o, NULL, &g, &err), &err);
    return g;
}

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

TP_TEST(live_bytes_peak_equals_lower_bound) {
    tp_graph *g = demo();
    tp_plan_options po;
    tp_plan_options_default(&po);
    tp_plan *p = NULL;
    tp_error err;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    size_t cap = tp_graph_node_count(g) + 1, steps = 0, peak = 0;
    uint64_t *live = calloc(cap, sizeof *live);
    TP_CHECK_OK(tp_plan_live_bytes(p, g, live, cap, &steps, &peak, &err), &err);
    TP_CHECK_EQ_U64(steps, cap);
    /* The curve counts unguarded sizes; the lower bound counts guarded ones,
     * so the curve's maximum is at most the lower bound and at least the bound
     * minus the guards of the boundary buffers. */
    TP_CHECK_LE_U64(live[peak], tp_plan_lower_bound_bytes(p));
    TP_CHECK(live[peak] > 0);
    for (size_t t = 0; t < steps; t++)
        TP_CHECK_LE_U64(live[t], live[peak]);
    TP_CHECK_STATUS(tp_plan_live_bytes(p, g, live, 3, &steps, &peak, &err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_plan_live_bytes(NULL, g, live, cap, &steps, &peak, &err), TP_ERR_INVALID);
    free(live);
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

TP_TEST(svg_has_one_rect_per_buffer_and_the_marks) {
    tp_graph *g = demo();
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.allocate_params = false;
    tp_plan *p = NULL;
    tp_error err;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    size_t buffers = 0;
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        if (!s->is_view && !s->inplace) buffers++;
    }
    tp_svg_options so;
    tp_svg_options_default(&so);
    so.title = "demo <2 layers>";
    char *svg = NULL;
    size_t len = 0;
    TP_CHECK_OK(tp_plan_svg(p, g, &so, &svg, &len, &err), &err);
    TP_CHECK(svg != NULL && len == strlen(svg));
    TP_CHECK_EQ_U64(count(svg, "<rect class=\"buf\""), buffers);
    TP_CHECK_CONTAINS(svg, "id=\"live-bytes\"");
    TP_CHECK_CONTAINS(svg, "id=\"lower-bound\"");
    TP_CHECK_CONTAINS(svg, "id=\"arena\"");
    TP_CHECK_CONTAINS(svg, "id=\"peak\"");
    TP_CHECK_CONTAINS(svg, "demo &lt;2 layers&gt;"); /* title escaped */
    TP_CHECK_CONTAINS(svg, "</svg>");
    TP_CHECK(strstr(svg, "nan") == NULL && strstr(svg, "inf") == NULL);
    tp_free_string(svg);
    TP_CHECK_STATUS(tp_plan_svg(NULL, g, NULL, &svg, &len, &err), TP_ERR_INVALID);
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

TP_TEST(buffer_ends_cover_views_and_inplace_users) {
    tp_graph *g = demo();
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.allocate_params = po.allocate_inputs = po.allocate_constants = false;
    tp_plan *p = NULL;
    tp_error err;
    TP_CHECK_OK(tp_plan_graph(g, &po, &p, &err), &err);
    size_t n = tp_graph_node_count(g), extended = 0;
    int64_t *ends = calloc(n, sizeof *ends);
    TP_CHECK_OK(tp_plan_buffer_ends(p, g, ends, n, &err), &err);
    for (uint32_t i = 0; i < tp_plan_slot_count(p); i++) {
        const tp_slot *s = tp_plan_slot(p, i);
        /* every slot ends no later than its root's buffer */
        TP_CHECK(ends[s->root] >= s->death);
        if (!s->is_view && !s->inplace && ends[s->node] > s->death) extended++;
        if (s->is_view || s->inplace) TP_CHECK_EQ_I64(ends[s->node], -1);
    }
    TP_CHECK(extended > 0); /* the demo has in-place users and views */
    /* with extended lifetimes the live curve reaches the lower bound exactly
     * (activation plans have no guarded boundary buffers) */
    size_t cap = n + 1, steps = 0, peak = 0;
    uint64_t *live = calloc(cap, sizeof *live);
    TP_CHECK_OK(tp_plan_live_bytes(p, g, live, cap, &steps, &peak, &err), &err);
    TP_CHECK_EQ_U64(live[peak], tp_plan_lower_bound_bytes(p));
    TP_CHECK_STATUS(tp_plan_buffer_ends(p, g, ends, n - 1, &err), TP_ERR_INVALID);
    free(live);
    free(ends);
    tp_plan_destroy(p);
    tp_graph_destroy(g);
}

TP_TEST(families_and_colors) {
    for (int k = 0; k < TP_OP_KIND_COUNT; k++) {
        const char *f = tp_op_family((tp_op_kind)k);
        TP_CHECK(f != NULL);
        TP_CHECK(tp_op_family_color(f)[0] == '#');
    }
    TP_CHECK_STR(tp_op_family(TP_OP_MATMUL), "matmul");
    TP_CHECK_STR(tp_op_family_color("nonsense"), "#9d755d");
}

TP_TEST(html_page_wraps_map_and_tables) {
    tp_error err;
    char *page = NULL;
    size_t len = 0;
    TP_CHECK_OK(tp_report_html_page("a <b> & \"c\"", "<svg id=\"memory-map\"></svg>",
                                    "<table id=\"t\"></table>", &page, &len, &err),
                &err);
    TP_CHECK(page != NULL && strlen(page) == len);
    TP_CHECK_CONTAINS(page, "<title>a &lt;b&gt; &amp; &quot;c&quot;</title>");
    TP_CHECK_CONTAINS(page, "<h1>a &lt;b&gt; &amp; &quot;c&quot;</h1>");
    TP_CHECK_CONTAINS(page, "<svg id=\"memory-map\"></svg>");
    TP_CHECK_CONTAINS(page, "<table id=\"t\"></table>");
    TP_CHECK_CONTAINS(page, "<script>");
    /* the map comes before the tables, the script after both */
    TP_CHECK(strstr(page, "memory-map") < strstr(page, "id=\"t\""));
    TP_CHECK(strstr(page, "id=\"t\"") < strstr(page, "<script>"));
    tp_free_string(page);
    TP_CHECK_OK(tp_report_html_page(NULL, NULL, NULL, &page, NULL, &err), &err);
    TP_CHECK_CONTAINS(page, "(no memory map)");
    TP_CHECK_CONTAINS(page, "<title>tensorplan report</title>");
    tp_free_string(page);
    TP_CHECK_STATUS(tp_report_html_page("t", NULL, NULL, NULL, NULL, &err), TP_ERR_INVALID);
}

/* Per-device bars: a segment per non-zero term with its bytes, free up to the capacity,
 * a capacity line where the device overflows, names escaped, bad arguments refused. */
TP_TEST(device_bars_segments_free_and_overflow) {
    tp_device_bar bars[3] = {
        {"gpu<0>", 100, 50, 20, 0, true, 200}, /* fits: 30 free */
        {"gpu1", 300, 0, 10, 0, true, 200},    /* over by 110 */
        {NULL, 10, 0, 5, 1, false, 0},         /* size unknown */
    };
    char *svg = NULL;
    size_t len = 0;
    tp_error err;
    TP_CHECK(tp_device_bars_svg(bars, 3, "a & b", &svg, &len, &err) == TP_OK);
    TP_CHECK(svg && strlen(svg) == len);
    if (svg) {
        TP_CHECK(strstr(svg, "id=\"device-bars\"") != NULL);
        TP_CHECK(strstr(svg, "gpu&lt;0&gt;: model") != NULL);
        TP_CHECK(strstr(svg, "a &amp; b") != NULL);
        TP_CHECK(strstr(svg, "data-bytes=\"30\"><title>gpu&lt;0&gt;: free") != NULL);
        TP_CHECK(strstr(svg, "gpu1: free") == NULL);
        TP_CHECK(strstr(svg, "stroke=\"#d62728\"") != NULL);
        TP_CHECK(strstr(svg, "(unnamed): output") != NULL);
        TP_CHECK(strstr(svg, "size unknown") != NULL);
        size_t n = 0;
        for (const char *q = svg; (q = strstr(q, "data-bytes=")) != NULL; q++)
            n++;
        TP_CHECK_EQ_U64(n, 3 + 1 + 2 + 3); /* gpu<0> 3 + free, gpu1 2, unnamed 3 */
    }
    tp_free_string(svg);
    TP_CHECK(tp_device_bars_svg(bars, 0, NULL, &svg, NULL, &err) == TP_ERR_INVALID);
    TP_CHECK(tp_device_bars_svg(NULL, 2, NULL, &svg, NULL, &err) == TP_ERR_INVALID);
    TP_CHECK(tp_device_bars_svg(bars, 1, NULL, NULL, NULL, &err) == TP_ERR_INVALID);
}

int main(void) {
    TP_RUN(device_bars_segments_free_and_overflow);
    TP_RUN(live_bytes_peak_equals_lower_bound);
    TP_RUN(svg_has_one_rect_per_buffer_and_the_marks);
    TP_RUN(buffer_ends_cover_views_and_inplace_users);
    TP_RUN(families_and_colors);
    TP_RUN(html_page_wraps_map_and_tables);
    return tp_test_finish();
}
