/* The HTML page of an LLM placed on several devices (estimate/report MODEL --devices
 * SPEC --html FILE): one bar per device (model / KV / compute / output / free) and the
 * placement's table and llama.cpp flags. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_llm_devices_html.h"
#include "report_html.h"
#include "tensorplan/report.h"

static void table(FILE *f, const tp_llm_placement *p, const char *flags) {
    char b[6][32];
    fputs("<h2>Per device, as llama.cpp places it</h2>\n<table>\n<tr><th>device</th><th>layers"
          "</th><th>model</th><th>KV</th><th>compute</th><th>output</th><th>total</th><th>free"
          "</th><th>verdict</th></tr>\n",
          f);
    for (size_t r = 0; r < p->n; r++) {
        const tp_llm_device_use *u = &p->use[r];
        fputs("<tr><td>", f);
        tp_cli_html_escape(f, u->name);
        fprintf(f,
                "%s%s</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                "<td>%s</td><td>%s</td></tr>\n",
                u->host ? " (host)" : "", u->output ? " +out" : "", (unsigned long long)u->layers,
                tp_format_bytes(u->model_bytes, b[0], 32), tp_format_bytes(u->kv_bytes, b[1], 32),
                tp_format_bytes(u->compute_bytes, b[2], 32),
                tp_format_bytes(u->output_bytes, b[3], 32),
                tp_format_bytes(u->total_bytes, b[4], 32),
                u->capacity_known ? tp_format_bytes(u->free_bytes, b[5], 32) : "?",
                !u->capacity_known ? "size unknown"
                : u->fits          ? "fits"
                                   : "DOES NOT FIT");
    }
    fputs("</table>\n<p>llama.cpp: <code>", f);
    tp_cli_html_escape(f, flags);
    fputs("</code></p>\n", f);
}

int tp_cli_llm_devices_html(const char *cmd, const char *path, const char *model,
                            const tp_llm_placement *p, const char *flags) {
    tp_device_bar bars[TP_LLM_MAX_DEVICES + 1];
    for (size_t r = 0; r < p->n; r++) {
        const tp_llm_device_use *u = &p->use[r];
        bars[r] =
            (tp_device_bar){u->name,         u->model_bytes,    u->kv_bytes,      u->compute_bytes,
                            u->output_bytes, u->capacity_known, u->capacity_bytes};
    }
    char title[600];
    snprintf(title, sizeof title, "%s: n_ctx %llu, -ngl %llu", model,
             (unsigned long long)p->single.n_ctx, (unsigned long long)p->n_gpu_layers);
    char *svg = NULL, *tables = NULL;
    size_t tlen = 0;
    tp_error err;
    tp_status st = tp_device_bars_svg(bars, p->n, title, &svg, NULL, &err);
    if (st != TP_OK) {
        tp_cli_error(cmd, &err);
        return tp_cli_exit_for(st);
    }
    int rc = 0;
    FILE *mf = open_memstream(&tables, &tlen);
    errno = 0;
    FILE *f = mf ? fopen(path, "w") : NULL;
    if (mf) {
        table(mf, p, flags);
        fclose(mf);
    }
    if (f) {
        char page_title[700];
        snprintf(page_title, sizeof page_title, "tensorplan: %s on %zu device(s)", model,
                 p->n ? p->n - 1 : 0);
        bool ok = tables && tp_cli_write_html(f, page_title, svg, tables) == 0 && fflush(f) == 0;
        if (fclose(f) != 0) ok = false;
        if (!ok) rc = -1;
    } else {
        rc = -1;
    }
    if (rc) {
        fprintf(stderr, "tensorplan %s: error: cannot write the page to '%s': %s\n", cmd, path,
                errno ? strerror(errno) : "write error");
        rc = TP_EXIT_ERROR;
    }
    free(tables);
    tp_free_string(svg);
    return rc;
}
