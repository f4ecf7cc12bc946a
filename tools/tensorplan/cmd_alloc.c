/* tensorplan alloc — place the buffers of a MiniMalloc-style CSV file in one arena. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opts.h"
#include "core/strbuf.h"
#include "cli_env.h"

typedef struct alloc_args {
    const char *in, *out;
    tp_alloc_options o;
    bool json, progress;
} alloc_args;

static int apply_input(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest) {
    (void)o;
    const char **in = dest;
    if (*in) return tp_cli_usage_error(ctx->cmd, "more than one input file ('%s', '%s')", *in, val);
    *in = val;
    return 0;
}

static const tp_cli_opt alloc_opts[] = {
    {.kind = TP_OPT_CUSTOM,
     .dest = offsetof(alloc_args, in),
     .value = "FILE.csv",
     .apply = apply_input,
     .help = "the buffers: id,lower,upper,size[,alignment] per line"},
    {.name = "output",
     .alias = 'o',
     .kind = TP_OPT_FILE,
     .takes = true,
     .dest = offsetof(alloc_args, out),
     .value = "OUT.csv",
     .help = "write the solution here instead of stdout"},
    TP_OPT_ALGO_ROW(alloc_args, o.algo,
                    "auto (default: best-fit, then exact search), exact, bestfit,\n"
                    "greedy (reference greedy-by-size), noreuse"),
    TP_OPT_REAL_ROW("time-limit", alloc_args, o.time_limit_s, "SEC", 0.0, DBL_MAX, "seconds >= 0",
                    "search budget for exact/auto (default 1; 0 with exact = none)"),
    {.name = "capacity",
     .kind = TP_OPT_SIZE,
     .takes = true,
     .dest = offsetof(alloc_args, o.capacity),
     .imin = 1,
     .value = "BYTES",
     .what = "a size > 0",
     .help = "capacity mode: find any plan with arena <= BYTES, or prove\n"
             "there is none (exit 3), or give up at the time limit (exit 1)"},
    TP_OPT_ALIGN_ROW(alloc_args, o.alignment,
                     "alignment of every offset, a power of two (default 1)"),
    TP_OPT_FLAG_ROW("progress", alloc_args, progress,
                    "progress lines (best arena, lower bound) about once a second\n"
                    "on long runs even when stderr is not a terminal (default:\n"
                    "only on a terminal)"),
    TP_CLI_COMMON(alloc_args, json),
    TP_CLI_END,
};

const tp_cli_command tp_cli_alloc_command = {
    .name = "alloc",
    .summary = "place buffers from a MiniMalloc CSV in one arena (best-fit, exact search)",
    .synopsis = "FILE.csv [-o OUT.csv] [--algo NAME] [--time-limit SEC]\n"
                " [--capacity BYTES] [--align N] [--json] [--quiet] [--progress]",
    .description =
        "Read buffers 'id,lower,upper,size[,alignment]' (each live on [lower, upper); ids\n"
        "are any text), give every buffer an offset so that buffers live at the same time\n"
        "never share a byte, and write 'id,lower,upper,size,offset' (stdout without -o).\n"
        "The arena, the lower bound (max live bytes), arena/LB, the algorithm, whether the\n"
        "arena is proven optimal and the time go to stderr.",
    .opts = alloc_opts,
    .examples = "tensorplan alloc A.1048576.csv -o A.solution.csv\n"
                "tensorplan alloc A.1048576.csv --capacity 1MiB --time-limit 10 > /dev/null",
    .notes = "Exit codes: 0 ok, 1 error or capacity unknown at the time limit, 2 usage error,\n"
             "3 capacity proven infeasible.",
    .json_help = "the summary as JSON (on stdout with -o, else on stderr)",
};

static int parse_args(alloc_args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    tp_alloc_options_default(&a->o);
    tp_env_apply_alloc(tp_cli_env(), &a->o);
    a->o.algo = TP_ALGO_AUTO;
    a->o.alignment = 1;
    a->o.time_limit_s = 1.0;
    int rc = tp_cli_parse(&tp_cli_alloc_command, argc, argv, a);
    if (rc) return rc;
    if (!a->in) return tp_cli_usage_error("alloc", "missing the input FILE.csv");
    return 0;
}

typedef struct progress_state {
    bool open; /* a line is open on stderr (terminal: rewritten in place) */
    bool tty;
} progress_state;

static void progress(void *ctx, double elapsed_s, uint64_t best, uint64_t lb) {
    progress_state *p = ctx;
    p->open = p->tty;
    char rb[32];
    fprintf(stderr, "%stensorplan alloc: searching %.0f s, best %llu, lower bound %llu, %s%s",
            p->tty ? "\r" : "", elapsed_s, (unsigned long long)best, (unsigned long long)lb,
            tp_cli_fmt_ratio(best, lb, 4, rb, sizeof rb), p->tty ? "" : "\n");
    fflush(stderr);
}

static void summary(const alloc_args *a, size_t n, const tp_alloc_result *r, FILE *f) {
    if (a->json) {
        tp_json j;
        tp_json_init(&j, f, true);
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "schema", "tensorplan.alloc/1"); /* docs/schema/alloc.schema.json */
        tp_json_kv_str(&j, "tensorplan_version", tp_version());
        tp_json_kv_str(&j, "file", a->in);
        tp_json_kv_u64(&j, "buffers", (uint64_t)n);
        tp_json_kv_u64(&j, "arena_bytes", r->arena_bytes);
        tp_json_kv_u64(&j, "lower_bound_bytes", r->lower_bound_bytes);
        tp_json_kv_ratio(&j, "ratio", r->arena_bytes, r->lower_bound_bytes);
        tp_json_kv_str(&j, "algorithm", tp_alloc_algo_name(r->algo_used));
        tp_json_kv_bool(&j, "optimal", r->optimal);
        tp_json_kv_f64(&j, "seconds", r->seconds);
        if (a->o.capacity) tp_json_kv_u64(&j, "capacity_bytes", a->o.capacity);
        tp_json_end_object(&j);
        tp_json_finish(&j);
        return;
    }
    char b1[32], b2[32], rb[32];
    fprintf(f,
            "tensorplan alloc: %zu buffers, arena %llu (%s), lower bound %llu (%s), ratio "
            "%s, algorithm %s, optimal %s, %.3f s\n",
            n, (unsigned long long)r->arena_bytes, tp_cli_fmt_bytes(r->arena_bytes, b1, sizeof b1),
            (unsigned long long)r->lower_bound_bytes,
            tp_cli_fmt_bytes(r->lower_bound_bytes, b2, sizeof b2),
            tp_cli_fmt_ratio(r->arena_bytes, r->lower_bound_bytes, 4, rb, sizeof rb),
            tp_alloc_algo_name(r->algo_used), r->optimal ? "yes" : "no", r->seconds);
}

/* An auto/exact run that went past --time-limit because its first plan took longer says so
 * (the first plan always completes; the limit bounds the search after it). Not with --json
 * or --quiet. */
static void first_plan_note(const alloc_args *a, const tp_alloc_result *r) {
    double limit = a->o.time_limit_s;
    if (a->json || tp_cli_quiet) return;
    if (a->o.algo != TP_ALGO_AUTO && a->o.algo != TP_ALGO_EXACT) return; /* no limit there */
    if (limit <= 0 || r->first_plan_seconds <= limit ||
        r->seconds <= limit + (0.1 * limit > 0.05 ? 0.1 * limit : 0.05))
        return;
    fprintf(stderr,
            "tensorplan alloc: note: the first plan took %.2f s, longer than --time-limit %g s; "
            "it always completes (the limit bounds the search after it)\n",
            r->first_plan_seconds, limit);
}

int tp_cli_alloc(int argc, char **argv) {
    alloc_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != 0) return rc < 0 ? TP_EXIT_OK : rc;
    progress_state prog = {false, tp_cli_progress_enabled(false)};
    if (prog.tty || a.progress) {
        a.o.progress = progress;
        a.o.progress_ctx = &prog;
    }
    tp_error err;
    tp_error_clear(&err);
    tp_buffer *bufs = NULL;
    size_t n = 0;
    tp_csv_names names;
    tp_status st = tp_csv_load_buffers_named(a.in, NULL, &bufs, &n, &names, &err);
    if (st != TP_OK) {
        tp_cli_error("alloc", &err);
        return tp_cli_exit_for(st);
    }
    size_t dup_a = 0, dup_b = 0, n_dup = 0;
    if (tp_csv_find_duplicate_id(&names, NULL, &dup_a, &dup_b, &n_dup, &err) != TP_OK) {
        tp_cli_error("alloc", &err);
        tp_csv_free_buffers(NULL, bufs, n);
        tp_csv_free_names(NULL, &names);
        return tp_cli_exit_for(err.status);
    }
    if (n_dup > 0) {
        fprintf(stderr, "tensorplan alloc: warning: id '");
        tp_fputs_escaped(tp_csv_name(&names, dup_a), stderr);
        fprintf(stderr,
                "' is on data rows %zu and %zu (%zu row%s repeat%s an earlier id): every row is "
                "planned as a buffer of its own, and the solution repeats the id\n",
                dup_a + 1, dup_b + 1, n_dup, n_dup == 1 ? "" : "s", n_dup == 1 ? "s" : "");
    }
    uint64_t *off = calloc(n ? n : 1, sizeof *off);
    if (!off) {
        tp_csv_free_buffers(NULL, bufs, n);
        tp_csv_free_names(NULL, &names);
        fprintf(stderr, "tensorplan alloc: error: out of memory\n");
        return TP_EXIT_ERROR;
    }
    tp_alloc_result r;
    memset(&r, 0, sizeof r);
    st = tp_alloc_plan(bufs, n, &a.o, NULL, off, &r, &err);
    if (prog.open) fputc('\n', stderr);
    if (st == TP_OK) st = tp_alloc_verify(bufs, n, off, a.o.alignment, r.arena_bytes, NULL, &err);
    if (st != TP_OK) {
        tp_cli_error("alloc", &err);
        rc = st == TP_ERR_INFEASIBLE ? TP_EXIT_OVER_BUDGET : tp_cli_exit_for(st);
        goto done;
    }
    FILE *f = stdout;
    if (a.out) {
        f = fopen(a.out, "w");
        if (!f) {
            fprintf(stderr, "tensorplan alloc: error: cannot write %s: %s\n", a.out,
                    strerror(errno));
            rc = TP_EXIT_ERROR;
            goto done;
        }
    }
    st = tp_csv_write_solution_named(f, bufs, n, &names, off, &err);
    if (a.out && fclose(f) != 0 && st == TP_OK)
        st = tp_error_set(&err, TP_ERR_IO, "%s: %s", a.out, strerror(errno));
    if (st != TP_OK) {
        tp_cli_error("alloc", &err);
        rc = TP_EXIT_ERROR;
        goto done;
    }
    summary(&a, n, &r, a.out && a.json ? stdout : stderr);
    first_plan_note(&a, &r);
    rc = TP_EXIT_OK;
done:
    free(off);
    tp_csv_free_buffers(NULL, bufs, n);
    tp_csv_free_names(NULL, &names);
    return rc;
}
