/* --input-value NAME=V[,V...]: cli_input_values.h. */
#include "cli_input_values.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The importer's limit on one input's given values (tensorplan/onnx.h). */
#define VALUES_MAX 1024u

void tp_cli_input_values_free(tp_cli_input_values *v) {
    for (size_t k = 0; k < v->n; k++) {
        free((char *)v->items[k].name);
        free((int64_t *)v->items[k].values);
        free((double *)v->items[k].float_values);
    }
    free(v->items);
    memset(v, 0, sizeof *v);
}

/* One value token [s, e): an int64 (*is_int) or a finite double; false when it is neither. */
static bool parse_number(const char *s, const char *e, int64_t *i, double *d, bool *is_int) {
    char buf[64];
    size_t len = (size_t)(e - s);
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    long long ll = strtoll(buf, &end, 10);
    if (errno == 0 && end == buf + len) {
        *i = (int64_t)ll;
        *d = (double)ll;
        *is_int = true;
        return true;
    }
    errno = 0;
    double x = strtod(buf, &end);
    if (errno != 0 || end != buf + len || x != x || x - x != 0) return false; /* NaN, inf */
    *d = x;
    *is_int = false;
    return true;
}

tp_status tp_cli_input_values_add(tp_cli_input_values *v, const char *assignment, tp_error *err) {
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || !eq[1])
        return tp_error_set(err, TP_ERR_INVALID, "'%s': expected NAME=VALUE[,VALUE...]",
                            assignment);
    size_t count = 1;
    for (const char *p = eq + 1; *p; p++)
        count += *p == ',';
    if (count > VALUES_MAX)
        return tp_error_set(err, TP_ERR_INVALID, "'%.*s': %zu values, at most %u per input",
                            (int)(eq - assignment), assignment, count, VALUES_MAX);
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        tp_onnx_input_value *items =
            cap > SIZE_MAX / sizeof *items ? NULL : realloc(v->items, cap * sizeof *items);
        if (!items) return tp_error_set(err, TP_ERR_NOMEM, "out of memory (--input-value)");
        v->items = items;
        v->cap = cap;
    }
    char *name = strndup(assignment, (size_t)(eq - assignment));
    int64_t *ints = calloc(count, sizeof *ints);
    double *reals = calloc(count, sizeof *reals);
    tp_status st = (!name || !ints || !reals)
                       ? tp_error_set(err, TP_ERR_NOMEM, "out of memory (--input-value)")
                       : TP_OK;
    bool all_int = true;
    const char *s = eq + 1;
    for (size_t k = 0; k < count && st == TP_OK; k++) {
        const char *e = strchr(s, ',');
        if (!e) e = s + strlen(s);
        bool is_int = false;
        if (!parse_number(s, e, &ints[k], &reals[k], &is_int))
            st = tp_error_set(err, TP_ERR_INVALID,
                              "'%s': value %zu ('%.*s') is not a number (an integer or a finite "
                              "decimal)",
                              name, k + 1, (int)(e - s), s);
        all_int = all_int && is_int;
        s = e + 1;
    }
    if (st != TP_OK) {
        free(name);
        free(ints);
        free(reals);
        return st;
    }
    if (all_int) {
        free(reals);
        reals = NULL;
    } else {
        free(ints);
        ints = NULL;
    }
    v->items[v->n++] = (tp_onnx_input_value){name, ints, reals, (uint32_t)count};
    return TP_OK;
}

static int apply_value(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    tp_error err;
    tp_error_clear(&err);
    if (tp_cli_input_values_add(dest, val, &err) == TP_OK) return 0;
    if (err.status == TP_ERR_NOMEM) {
        tp_cli_error(ctx->cmd, &err);
        return TP_EXIT_ERROR;
    }
    return tp_cli_usage_error(ctx->cmd, "--input-value %s", err.msg);
}

const tp_cli_opt tp_cli_input_values_opts[] = {
    {.name = "input-value",
     .kind = TP_OPT_CUSTOM,
     .takes = true,
     .value = "NAME=V[,V...]",
     .what = "NAME=V[,V...]",
     .repeat = true,
     .apply = apply_value,
     .help = "the value of a graph input known before running (repeatable), e.g.\n"
             "--input-value sr=16000: an If, Reshape or Resize that reads it is\n"
             "converted for it (the If's branch taken is the one planned and priced)"},
    TP_CLI_END,
};
