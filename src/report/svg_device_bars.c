/* Per-device bars: what each device holds (model, KV, compute, output) against its
 * capacity, one horizontal bar per device on a shared byte scale. */
#include <stdio.h>
#include <string.h>

#include "core/strbuf.h"
#include "tensorplan/report.h"

#define BAR_LEFT 190.0  /* room for the device names */
#define BAR_WIDTH 620.0 /* the byte scale */
#define BAR_H 26.0      /* one bar */
#define BAR_PITCH 44.0  /* one row */

static const struct {
    const char *what, *color;
} segment_kinds[4] = {
    {"model", "#4e79a7"}, {"KV cache", "#f28e2b"}, {"compute", "#59a14f"}, {"output", "#b07aa1"}};

static void segment(tp_strbuf *sb, double x, double y, double w, const char *color,
                    const char *device, const char *what, uint64_t bytes) {
    char b[32];
    tp_strbuf_printf(sb,
                     "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" "
                     "data-bytes=\"%llu\"><title>",
                     x, y, w, BAR_H, color, (unsigned long long)bytes);
    tp_strbuf_append_xml(sb, device);
    tp_strbuf_printf(sb, ": %s %s</title></rect>\n", what, tp_format_bytes(bytes, b, sizeof b));
}

static uint64_t bar_total(const tp_device_bar *d) {
    uint64_t v[4] = {d->model_bytes, d->kv_bytes, d->compute_bytes, d->output_bytes}, t = 0;
    for (int k = 0; k < 4; k++)
        t = tp_sat_add_u64(t, v[k]);
    return t;
}

static void draw_row(tp_strbuf *sb, const tp_device_bar *d, double y, double scale) {
    const char *name = d->name ? d->name : "(unnamed)";
    char b[2][32];
    tp_strbuf_printf(sb, "<text x=\"%.0f\" y=\"%.2f\" text-anchor=\"end\" font-size=\"13\">",
                     BAR_LEFT - 8, y + BAR_H / 2 + 4);
    tp_strbuf_append_xml(sb, name);
    tp_strbuf_append(sb, "</text>\n");
    uint64_t v[4] = {d->model_bytes, d->kv_bytes, d->compute_bytes, d->output_bytes};
    double x = BAR_LEFT;
    for (int k = 0; k < 4; k++) {
        if (!v[k]) continue;
        double w = (double)v[k] * scale;
        segment(sb, x, y, w, segment_kinds[k].color, name, segment_kinds[k].what, v[k]);
        x += w;
    }
    uint64_t total = bar_total(d);
    const char *verdict;
    if (!d->capacity_known) {
        verdict = "size unknown";
    } else if (total <= d->capacity_bytes) {
        segment(sb, x, y, (double)(d->capacity_bytes - total) * scale, "#e4e4e4", name, "free",
                d->capacity_bytes - total);
        verdict = "fits";
    } else {
        double cx = BAR_LEFT + (double)d->capacity_bytes * scale;
        tp_strbuf_printf(sb,
                         "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#d62728\" "
                         "stroke-width=\"3\"><title>capacity %s</title></line>\n",
                         cx, y - 4, cx, y + BAR_H + 4,
                         tp_format_bytes(d->capacity_bytes, b[0], sizeof b[0]));
        verdict = "DOES NOT FIT";
    }
    tp_strbuf_printf(
        sb, "<text x=\"%.0f\" y=\"%.2f\" font-size=\"12\"%s>%s / %s %s</text>\n",
        BAR_LEFT + BAR_WIDTH + 10, y + BAR_H / 2 + 4,
        d->capacity_known && total > d->capacity_bytes ? " fill=\"#d62728\"" : "",
        tp_format_bytes(total, b[0], sizeof b[0]),
        d->capacity_known ? tp_format_bytes(d->capacity_bytes, b[1], sizeof b[1]) : "?", verdict);
}

tp_status tp_device_bars_svg(const tp_device_bar *bars, size_t n, const char *title, char **out,
                             size_t *len, tp_error *err) {
    if (!out || !bars || n == 0)
        return tp_error_set(err, TP_ERR_INVALID, "device bars: no devices or NULL out");
    double top = 1;
    for (size_t i = 0; i < n; i++) {
        double t = (double)bar_total(&bars[i]);
        if (t > top) top = t;
        if (bars[i].capacity_known && (double)bars[i].capacity_bytes > top)
            top = (double)bars[i].capacity_bytes;
    }
    double scale = BAR_WIDTH / top, y0 = title ? 40.0 : 14.0;
    double height = y0 + (double)n * BAR_PITCH + 30;
    tp_strbuf sb;
    tp_strbuf_init(&sb, NULL);
    tp_strbuf_printf(&sb,
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"device-bars\" width=\"1000\" "
                     "height=\"%.0f\" viewBox=\"0 0 1000 %.0f\" font-family=\"sans-serif\">\n",
                     height, height);
    if (title) {
        tp_strbuf_append(&sb, "<text x=\"10\" y=\"24\" font-size=\"16\" font-weight=\"bold\">");
        tp_strbuf_append_xml(&sb, title);
        tp_strbuf_append(&sb, "</text>\n");
    }
    for (size_t i = 0; i < n; i++)
        draw_row(&sb, &bars[i], y0 + (double)i * BAR_PITCH, scale);
    double ly = y0 + (double)n * BAR_PITCH + 10, lx = BAR_LEFT;
    for (int k = 0; k < 4; k++, lx += 110)
        tp_strbuf_printf(&sb,
                         "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                         "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">%s</text>\n",
                         lx, ly, segment_kinds[k].color, lx + 16, ly + 11, segment_kinds[k].what);
    tp_strbuf_printf(&sb,
                     "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"#e4e4e4\"/>"
                     "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">free</text>\n</svg>\n",
                     lx, ly, lx + 16, ly + 11);
    return tp_strbuf_finish(&sb, out, len, err);
}
