/* --dim NAME=VALUE and --dims FILE.json: a growing list of owned assignments. */
#include "cli_dims.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_ints.h"
#include "core/open_file.h"

/* The largest --dims file read (a binding is a few bytes; 64 MiB is millions). */
#define DIMS_FILE_MAX ((uint64_t)64 << 20)

bool tp_cli_dims_insert(tp_cli_dims *d, size_t at, const char *assignment, const char *file) {
    if (at > d->n) return false;
    if (d->n == d->cap) {
        if (d->cap > SIZE_MAX / 2 / sizeof *d->items) return false; /* cap * 2 * size fits */
        size_t cap = d->cap ? d->cap * 2 : 8;
        tp_cli_dim *items = realloc(d->items, cap * sizeof *items);
        if (!items) return false;
        d->items = items;
        d->cap = cap;
    }
    char *copy = strdup(assignment);
    if (!copy) return false;
    memmove(&d->items[at + 1], &d->items[at], (d->n - at) * sizeof *d->items);
    d->items[at] = (tp_cli_dim){copy, file};
    d->n++;
    return true;
}

void tp_cli_dims_free(tp_cli_dims *d) {
    for (size_t k = 0; k < d->n; k++)
        free(d->items[k].assignment);
    free(d->items);
    memset(d, 0, sizeof *d);
}

tp_status tp_cli_dims_bind(const tp_cli_dims *d, tp_graph *g, tp_error *err) {
    for (size_t k = 0; k < d->n; k++) {
        const tp_cli_dim *it = &d->items[k];
        tp_status st = tp_graph_bind_str(g, it->assignment, err);
        if (st != TP_OK && it->file)
            tp_error_prefix(err, "--dims %s: %s: ", it->file, it->assignment);
        else if (st != TP_OK)
            tp_error_prefix(err, "--dim %s: ", it->assignment);
        if (st != TP_OK) return st;
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
    return tp_cli_dims_insert(d, d->n, val, NULL) ? 0 : out_of_memory(ctx);
}

typedef struct dims_file {
    tp_cli_dims *dims;
    const char *path;
} dims_file;

static tp_status add_member(void *user, const char *name, int64_t value, size_t offset,
                            tp_error *err) {
    dims_file *df = user;
    tp_cli_dims *d = df->dims;
    char buf[TP_JSON_INTS_NAME_MAX + 32];
    if (!name[0] || strchr(name, '='))
        return tp_error_set(err, TP_ERR_PARSE,
                            "offset %zu: a dimension name is not empty and "
                            "has no '='",
                            offset);
    if (value < 0)
        return tp_error_set(err, TP_ERR_PARSE,
                            "offset %zu: \"%s\": %" PRId64 " is negative (a dimension is >= 0)",
                            offset, name, value);
    snprintf(buf, sizeof buf, "%s=%" PRId64, name, value);
    if (!tp_cli_dims_insert(d, d->n, buf, df->path))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory at offset %zu", offset);
    return TP_OK;
}

/* --dims FILE.json: {"name": int, ...}, appended in file order */
static int apply_dims_file(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val,
                           void *dest) {
    (void)o;
    tp_error err;
    tp_error_clear(&err);
    FILE *f = NULL;
    uint64_t size = 0;
    char *text = NULL;
    tp_status st = tp__fopen_regular(val, DIMS_FILE_MAX, &f, &size, &err);
    if (st == TP_OK && !(text = malloc(size ? (size_t)size : 1)))
        st = tp_error_set(&err, TP_ERR_NOMEM, "out of memory for %" PRIu64 " bytes", size);
    if (st == TP_OK && fread(text, 1, (size_t)size, f) != (size_t)size)
        st = tp_error_set(&err, TP_ERR_IO, "read failed");
    dims_file df = {dest, val};
    if (st == TP_OK) st = tp__json_read_ints(text, (size_t)size, add_member, &df, &err);
    free(text);
    if (f) fclose(f);
    if (st == TP_OK) return 0;
    tp_error_prefix(&err, "--dims %s: ", val);
    tp_cli_error(ctx->cmd, &err);
    return TP_EXIT_ERROR;
}

const tp_cli_opt tp_cli_dims_opts[] = {
    {.name = "dim",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .value = "NAME=VALUE",
     .what = "NAME=VALUE",
     .repeat = true,
     .apply = apply_dim,
     .help = "bind a symbolic dimension (repeatable), e.g. --dim batch=8"},
    {.name = "dims",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .value = "FILE.json",
     .what = "a JSON file",
     .file = true,
     .repeat = true,
     .apply = apply_dims_file,
     .help = "bind the dimensions of a JSON object {\"batch\": 8, ...}\n"
             "(repeatable; with --dim, later bindings win)"},
    TP_CLI_END,
};
