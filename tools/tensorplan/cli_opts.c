/* The generic parser of the declarative option tables (cli_opts.h). */
#include "cli_opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row found for an argument, with where its group puts it. */
typedef struct found {
    const tp_cli_opt *o;
    size_t base;    /* offset of the row's group in the argument struct */
    size_t seen[4]; /* offset + 1 of the enclosing groups' seen flags */
    int n_seen;
} found;

/* Look for the row named `name` (len bytes; alias when len is 0 and alias set;
 * the positional row when name is NULL). */
static bool find(const tp_cli_opt *opts, size_t base, const char *name, size_t len, char alias,
                 found *f, int depth) {
    for (const tp_cli_opt *o = opts; o->kind != TP_OPT_END; o++) {
        if (o->kind == TP_OPT_GROUP) {
            if (depth >= 4) continue;
            found sub = *f;
            if (o->seen) sub.seen[sub.n_seen++] = base + o->seen;
            if (find(o->group, base + o->dest, name, len, alias, &sub, depth + 1)) {
                *f = sub;
                return true;
            }
            continue;
        }
        bool match = alias  ? o->alias == alias
                     : name ? o->name && strlen(o->name) == len && memcmp(o->name, name, len) == 0
                            : o->name == NULL;
        if (match) {
            f->o = o;
            f->base = base;
            return true;
        }
    }
    return false;
}

const char *tp_cli_opt_what(const tp_cli_opt *o, char *buf, size_t cap) {
    if (o->what) return o->what;
    switch (o->kind) {
    case TP_OPT_INT:
        if (o->imax == UINT64_MAX)
            snprintf(buf, cap,
                     o->imin == 0   ? "an integer >= 0"
                     : o->imin == 1 ? "a positive integer"
                                    : "an integer >= %llu",
                     (unsigned long long)o->imin);
        else
            snprintf(buf, cap, "an integer from %llu to %llu", (unsigned long long)o->imin,
                     (unsigned long long)o->imax);
        return buf;
    case TP_OPT_SIZE:
        return "a size (512MiB, 8GiB, 1.5G, bytes)";
    case TP_OPT_REAL:
        snprintf(buf, cap, "a number in [%g, %g]", o->dmin, o->dmax);
        return buf;
    case TP_OPT_FILE:
        return "a file name";
    default:
        return "a value";
    }
}

static int bad_value(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val) {
    char buf[96];
    return tp_cli_usage_error(ctx->cmd, "%s needs %s, got '%s'", ctx->spelled,
                              tp_cli_opt_what(o, buf, sizeof buf), val);
}

static bool parse_u64(const char *s, uint64_t *out) {
    if (!isdigit((unsigned char)s[0])) return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno) return false;
    *out = (uint64_t)v;
    return true;
}

/* Convert and store one value (or flag) of row f->o. */
static int store(const tp_cli_ctx *ctx, const found *f, const char *val, char *args) {
    const tp_cli_opt *o = f->o;
    void *dest = args + f->base + o->dest;
    uint64_t u = 0;
    double d = 0;
    char *end = NULL;
    switch (o->kind) {
    case TP_OPT_FLAG:
    case TP_OPT_UNSET:
        *(bool *)dest = o->kind == TP_OPT_FLAG;
        return 0;
    case TP_OPT_INT:
        if (!parse_u64(val, &u) || u < o->imin || u > o->imax) return bad_value(ctx, o, val);
        if (o->u32)
            *(uint32_t *)dest = (uint32_t)u;
        else
            *(uint64_t *)dest = u;
        return 0;
    case TP_OPT_SIZE:
        if (!tp_cli_parse_size(val, &u) || u < o->imin) return bad_value(ctx, o, val);
        *(uint64_t *)dest = u;
        return 0;
    case TP_OPT_REAL:
        errno = 0;
        d = strtod(val, &end);
        if (end == val || *end || errno || !isfinite(d) || !(d >= o->dmin && d <= o->dmax))
            return bad_value(ctx, o, val);
        *(double *)dest = d;
        return 0;
    case TP_OPT_STRING:
    case TP_OPT_FILE:
        if (!*val) return bad_value(ctx, o, val);
        *(const char **)dest = val;
        return 0;
    case TP_OPT_CUSTOM:
        return o->apply(ctx, o, val, dest);
    default:
        return 0;
    }
}

int tp_cli_parse(const tp_cli_command *c, int argc, char **argv, void *args) {
    tp_cli_ctx ctx = {c->name, NULL};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *inline_val = NULL;
        found f;
        memset(&f, 0, sizeof f);
        bool ok;
        if (s[0] == '-' && s[1] == '-' && s[2]) {
            const char *eq = strchr(s + 2, '=');
            size_t len = eq ? (size_t)(eq - (s + 2)) : strlen(s + 2);
            inline_val = eq ? eq + 1 : NULL;
            ok = find(c->opts, 0, s + 2, len, 0, &f, 0);
        } else if (s[0] == '-' && s[1]) {
            ok = !s[2] && find(c->opts, 0, NULL, 0, s[1], &f, 0);
        } else {
            ok = find(c->opts, 0, NULL, 0, 0, &f, 0);
            if (!ok) return tp_cli_usage_error(c->name, "unexpected argument '%s'", s);
        }
        if (!ok) return tp_cli_usage_error(c->name, "unknown option '%s'", s);
        const tp_cli_opt *o = f.o;
        char spelled[64];
        ctx.spelled = s;
        if (o->name && inline_val) { /* "--name=VALUE": errors name "--name" */
            size_t n = (size_t)(inline_val - 1 - s);
            if (n >= sizeof spelled) n = sizeof spelled - 1;
            memcpy(spelled, s, n);
            spelled[n] = 0;
            ctx.spelled = spelled;
        }
        if (o->kind == TP_OPT_HELP) {
            tp_cli_print_help(c, stdout);
            return -1;
        }
        bool takes = o->kind == TP_OPT_CUSTOM ? o->takes || !o->name : o->takes;
        const char *val = NULL;
        if (!o->name) {
            val = s;
        } else if (takes) {
            val = inline_val ? inline_val : i + 1 < argc ? argv[++i] : NULL;
            if (!val) {
                char buf[96];
                return tp_cli_usage_error(c->name, "%s needs %s", ctx.spelled,
                                          tp_cli_opt_what(o, buf, sizeof buf));
            }
        } else if (inline_val) {
            return tp_cli_usage_error(c->name, "%s takes no value, got '%s'", ctx.spelled,
                                      inline_val);
        }
        int rc = store(&ctx, &f, val, args);
        if (rc) return rc;
        if (o->seen) *(bool *)((char *)args + f.base + o->seen - 1) = true;
        for (int k = 0; k < f.n_seen; k++)
            *(bool *)((char *)args + f.seen[k] - 1) = true;
    }
    return 0;
}

/* A row another row of the table hides (the parser takes the first match). */
static bool shadowed(const tp_cli_opt *root, const tp_cli_opt *o) {
    found f;
    memset(&f, 0, sizeof f);
    bool hit = o->name ? find(root, 0, o->name, strlen(o->name), 0, &f, 0)
                       : find(root, 0, NULL, 0, 0, &f, 0);
    return hit && f.o != o;
}

static void visit(const tp_cli_opt *root, const tp_cli_opt *opts, const char *heading,
                  tp_cli_visit fn, void *user) {
    for (const tp_cli_opt *o = opts; o->kind != TP_OPT_END; o++) {
        if (o->kind == TP_OPT_GROUP)
            visit(root, o->group, o->help ? o->help : heading, fn, user);
        else if (!shadowed(root, o))
            fn(o, heading, user);
    }
}

void tp_cli_opts_visit(const tp_cli_opt *opts, tp_cli_visit fn, void *user) {
    visit(opts, opts, NULL, fn, user);
}

const char *tp_cli_opt_label(const tp_cli_opt *o, char *buf, size_t cap) {
    if (!o->name)
        snprintf(buf, cap, "%s", o->value);
    else if (o->alias)
        snprintf(buf, cap, "-%c, --%s%s%s", o->alias, o->name, o->value ? " " : "",
                 o->value ? o->value : "");
    else
        snprintf(buf, cap, "--%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
    return buf;
}

/* ---- --help ---- */

enum { HELP_COL = 21 };

const char *tp_cli_opt_help(const tp_cli_command *c, const tp_cli_opt *o) {
    return o == &tp_cli_common_opts[0] && c->json_help ? c->json_help : o->help;
}

typedef struct help_pass {
    const tp_cli_command *c;
    FILE *f;
    const char *heading; /* print rows under this heading (NULL: "options") */
    bool any;            /* the heading is printed */
} help_pass;

static void print_lines(FILE *f, const char *text, int indent, bool first_inline) {
    const char *p = text;
    bool first = true;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        if (!(first && first_inline)) fprintf(f, "%*s", indent, "");
        fprintf(f, "%.*s\n", n, p);
        first = false;
        p += n + (nl ? 1 : 0);
    }
}

static void help_row(const tp_cli_opt *o, const char *heading, void *user) {
    help_pass *h = user;
    if (heading != h->heading && !(heading && h->heading && strcmp(heading, h->heading) == 0))
        return;
    if (!o->help) return; /* hidden */
    if (!h->any) fprintf(h->f, "%s:\n", heading ? heading : "options");
    h->any = true;
    char label[96];
    const char *l = tp_cli_opt_label(o, label, sizeof label);
    int len = (int)strlen(l) + 2;
    fprintf(h->f, "  %s", l);
    if (len <= HELP_COL - 2)
        fprintf(h->f, "%*s", HELP_COL - len, "");
    else
        fprintf(h->f, "  ");
    print_lines(h->f, tp_cli_opt_help(h->c, o), HELP_COL, true);
}

/* The headings of the table, in order of first appearance. */
typedef struct headings {
    const char *h[8];
    int n;
} headings;

static void collect_heading(const tp_cli_opt *o, const char *heading, void *user) {
    headings *hs = user;
    (void)o;
    if (!heading) return;
    for (int k = 0; k < hs->n; k++)
        if (strcmp(hs->h[k], heading) == 0) return;
    if (hs->n < 8) hs->h[hs->n++] = heading;
}

void tp_cli_print_help(const tp_cli_command *c, FILE *f) {
    /* usage lines; a line starting with a space continues the previous one */
    int indent = (int)strlen(c->name) + 12; /* "tensorplan NAME " after "usage: " */
    for (const char *p = c->synopsis; *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        if (p == c->synopsis)
            fprintf(f, "usage: tensorplan %s %.*s\n", c->name, n, p);
        else if (*p == ' ')
            fprintf(f, "       %*s%.*s\n", indent - 1, "", n, p);
        else
            fprintf(f, "       tensorplan %s %.*s\n", c->name, n, p);
        p += n + (nl ? 1 : 0);
    }
    fprintf(f, "\n%s\n\n", c->description);
    headings hs = {{NULL}, 0};
    tp_cli_opts_visit(c->opts, collect_heading, &hs);
    for (int k = 0; k <= hs.n; k++) {
        help_pass h = {c, f, k < hs.n ? hs.h[k] : NULL, false};
        tp_cli_opts_visit(c->opts, help_row, &h);
        if (h.any) fprintf(f, "\n");
    }
    if (c->examples) {
        fprintf(f, "examples:\n");
        print_lines(f, c->examples, 2, false);
    }
    if (c->notes) {
        fprintf(f, "\n");
        print_lines(f, c->notes, 0, false);
    }
}

/* ---- shared rows ---- */

static int apply_quiet(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)ctx, (void)o, (void)val, (void)dest;
    tp_cli_quiet = true;
    return 0;
}

const tp_cli_opt tp_cli_common_opts[] = {
    {.name = "json", .kind = TP_OPT_FLAG, .dest = 0, .help = "machine-readable output"},
    {.name = "quiet",
     .alias = 'q',
     .kind = TP_OPT_CUSTOM,
     .apply = apply_quiet,
     .help = "no progress lines on stderr"},
    {.name = "help", .alias = 'h', .kind = TP_OPT_HELP, .help = "this text"},
    TP_CLI_END,
};

const char tp_cli_budget_help[] = "memory budget: 512MiB, 8GiB, 1.5G, or plain bytes\n"
                                  "(default: this machine's soft budget, 0.80 x available\n"
                                  "memory; TENSORPLAN_SOFT_MEMORY_FRACTION and\n"
                                  "TENSORPLAN_MEMORY_BUDGET_BYTES override it)";

int tp_cli_apply_algo(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    tp_error err;
    tp_error_clear(&err);
    if (tp_alloc_algo_parse(val, (tp_alloc_algo *)dest, &err) != TP_OK)
        return tp_cli_usage_error(ctx->cmd, "%s: %s", ctx->spelled, err.msg);
    return 0;
}

int tp_cli_apply_pow2(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    uint64_t v = 0;
    if (!tp_cli_parse_size(val, &v) || !tp_is_pow2_u64(v)) return bad_value(ctx, o, val);
    *(uint64_t *)dest = v;
    return 0;
}
