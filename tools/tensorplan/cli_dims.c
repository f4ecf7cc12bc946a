/* --dim NAME=VALUE and --dims FILE.json: a growing list of owned assignments. */
#include "cli_dims.h"

#include <stdlib.h>
#include <string.h>

bool tp_cli_dims_insert(tp_cli_dims *d, size_t at, const char *assignment) {
    if (at > d->n) return false;
    if (d->n == d->cap) {
        if (d->cap > SIZE_MAX / 2 / sizeof *d->items) return false; /* cap * 2 * size fits */
        size_t cap = d->cap ? d->cap * 2 : 8;
        char **items = realloc(d->items, cap * sizeof *items);
        if (!items) return false;
        d->items = items;
        d->cap = cap;
    }
    char *copy = strdup(assignment);
    if (!copy) return false;
    memmove(&d->items[at + 1], &d->items[at], (d->n - at) * sizeof *d->items);
    d->items[at] = copy;
    d->n++;
    return true;
}

void tp_cli_dims_free(tp_cli_dims *d) {
    for (size_t k = 0; k < d->n; k++)
        free(d->items[k]);
    free(d->items);
    memset(d, 0, sizeof *d);
}

tp_status tp_cli_dims_bind(const tp_cli_dims *d, tp_graph *g, tp_error *err) {
    for (size_t k = 0; k < d->n; k++) {
        tp_status st = tp_graph_bind_str(g, d->items[k], err);
        if (st != TP_OK) {
            tp_error_prefix(err, "--dim %s: ", d->items[k]);
            return st;
        }
    }
    return TP_OK;
}

static bool valid_assignment(const char *s) {
    const char *eq = strchr(s, '=');
    return eq && eq != s && eq[1] != 0;
}

static int out_of_memory(const tp_cli_ctx *ctx) {
    tp_error err;
    tp_error_set(&err, TP_ERR_NOMEM, "out of memory for %s", ctx->spelled);
    tp_cli_error(ctx->cmd, &err);
    return TP_EXIT_ERROR;
}

static int apply_dim(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    tp_cli_dims *d = dest;
    if (!valid_assignment(val))
        return tp_cli_usage_error(ctx->cmd, "--dim expects NAME=VALUE, got '%s'", val);
    return tp_cli_dims_insert(d, d->n, val) ? 0 : out_of_memory(ctx);
}

const tp_cli_opt tp_cli_dims_opts[] = {
    {.name = "dim",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .value = "NAME=VALUE",
     .what = "NAME=VALUE",
     .apply = apply_dim,
     .help = "bind a symbolic dimension (repeatable), e.g. --dim batch=8"},
    TP_CLI_END,
};
