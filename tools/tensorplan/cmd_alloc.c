/* tensorplan alloc — place the buffers of a MiniMalloc-style CSV file in one arena. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/strbuf.h"
#include "cli_env.h"

const char tp_cli_alloc_summary[] =
    "place buffers from a MiniMalloc CSV in one arena (best-fit, exact search)";

static void usage(FILE *f) {
    fprintf(f,
            "usage: tensorplan alloc FILE.csv [-o OUT.csv] [--algo NAME] [--time-limit SEC]\n"
            "                        [--capacity BYTES] [--align N] [--json] [--quiet]\n"
            "                        [--progress]\n\n"
            "Read buffers 'id,lower,upper,size[,alignment]' (each live on [lower, upper); ids\n"
            "are any text), give every buffer an offset so that buffers live at the same time\n"
            "never share a byte, and write 'id,lower,upper,size,offset' (stdout without -o).\n"
            "The arena, the lower bound (max live bytes), arena/LB, the algorithm, whether the\n"
            "arena is proven optimal and the time go to stderr.\n\n"
            "options:\n"
            "  -o OUT.csv         write the solution here instead of stdout\n"
            "  --algo NAME        auto (default: best-fit, then exact search), exact, bestfit,\n"
            "                     greedy (reference greedy-by-size), noreuse\n"
            "  --time-limit SEC   search budget for exact/auto (default 1; 0 with exact = none)\n"
            "  --capacity BYTES   capacity mode: find any plan with arena <= BYTES, or prove\n"
            "                     there is none (exit 3), or give up at the time limit (exit 1)\n"
            "  --align N          alignment of every offset, a power of two (default 1)\n"
            "  --json             summary as JSON (on stdout with -o, else on stderr)\n"
            "  --quiet            no progress lines\n"
            "  --progress         progress lines (best arena, lower bound) about once a second\n"
            "                     on long runs even when stderr is not a terminal (default:\n"
            "                     only on a terminal)\n"
            "  --help             this text\n\n"
            "examples:\n"
            "  tensorplan alloc A.1048576.csv -o A.solution.csv\n"
            "  tensorplan alloc A.1048576.csv --capacity 1MiB --time-limit 10 > /dev/null\n\n"
            "Exit codes: 0 ok, 1 error or capacity unknown at the time limit, 2 usage error,\n"
            "3 capacity proven infeasible.\n");
}

typedef struct alloc_args {
    const char *in, *out;
    tp_alloc_options o;
    bool json, progress;
} alloc_args;

static int parse_args(alloc_args *a, int argc, char **argv) {
    const char *cmd = "alloc";
    memset(a, 0, sizeof *a);
    tp_alloc_options_default(&a->o);
    tp_env_apply_alloc(tp_cli_env(), &a->o);
    a->o.algo = TP_ALGO_AUTO;
    a->o.alignment = 1;
    a->o.time_limit_s = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            usage(stdout);
            return -1;
        } else if (strcmp(s, "--json") == 0) {
            a->json = true;
        } else if (strcmp(s, "--progress") == 0) {
            a->progress = true;
        } else if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0) {
            if (!val) return tp_cli_usage_error(cmd, "%s needs a file name", s);
            a->out = val;
            i++;
        } else if (strcmp(s, "--algo") == 0) {
            tp_error err;
            tp_error_clear(&err);
            if (!val || tp_alloc_algo_parse(val, &a->o.algo, &err) != TP_OK)
                return tp_cli_usage_error(cmd, "%s", val ? err.msg : "--algo needs a name");
            i++;
        } else if (strcmp(s, "--time-limit") == 0) {
            char *end = NULL;
            errno = 0;
            double v = val ? strtod(val, &end) : -1.0;
            if (!val || end == val || *end || errno || !(v >= 0) || !isfinite(v))
                return tp_cli_usage_error(cmd, "--time-limit needs seconds >= 0, got '%s'",
                                          val ? val : "");
            a->o.time_limit_s = v;
            i++;
        } else if (strcmp(s, "--capacity") == 0) {
            uint64_t v = 0;
            if (!val || !tp_cli_parse_size(val, &v) || v == 0)
                return tp_cli_usage_error(cmd, "--capacity needs a size > 0, got '%s'",
                                          val ? val : "");
            a->o.capacity = v;
            i++;
        } else if (strcmp(s, "--align") == 0) {
            uint64_t v = 0;
            if (!val || !tp_cli_parse_size(val, &v) || !tp_is_pow2_u64(v))
                return tp_cli_usage_error(cmd, "--align needs a power of two, got '%s'",
                                          val ? val : "");
            a->o.alignment = v;
            i++;
        } else if (s[0] == '-' && s[1] != '\0') {
            return tp_cli_usage_error(cmd, "unknown option '%s'", s);
        } else if (a->in) {
            return tp_cli_usage_error(cmd, "more than one input file ('%s', '%s')", a->in, s);
        } else {
            a->in = s;
        }
    }
    if (!a->in) return tp_cli_usage_error(cmd, "missing the input FILE.csv");
    return 0;
}

typedef struct progress_state {
    bool open; /* a line is open on stderr (terminal: rewritten in place) */
    bool tty;
} progress_state;

static void progress(void *ctx, double elapsed_s, uint64_t best, uint64_t lb) {
    progress_state *p = ctx;
    p->open = p->tty;
    fprintf(stderr, "%stensorplan alloc: searching %.0f s, best %llu, lower bound %llu, %.4f%s",
            p->tty ? "\r" : "", elapsed_s, (unsigned long long)best, (unsigned long long)lb,
            lb ? (double)best / (double)lb : 1.0, p->tty ? "" : "\n");
    fflush(stderr);
}

static void summary(const alloc_args *a, size_t n, const tp_alloc_result *r, FILE *f) {
    double ratio =
        r->lower_bound_bytes ? (double)r->arena_bytes / (double)r->lower_bound_bytes : 1.0;
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
        tp_json_kv_f64(&j, "ratio", ratio);
        tp_json_kv_str(&j, "algorithm", tp_alloc_algo_name(r->algo_used));
        tp_json_kv_bool(&j, "optimal", r->optimal);
        tp_json_kv_f64(&j, "seconds", r->seconds);
        if (a->o.capacity) tp_json_kv_u64(&j, "capacity_bytes", a->o.capacity);
        tp_json_end_object(&j);
        tp_json_finish(&j);
        return;
    }
    char b1[32], b2[32];
    fprintf(f,
            "tensorplan alloc: %zu buffers, arena %llu (%s), lower bound %llu (%s), ratio "
            "%.4f, algorithm %s, optimal %s, %.3f s\n",
            n, (unsigned long long)r->arena_bytes, tp_cli_fmt_bytes(r->arena_bytes, b1, sizeof b1),
            (unsigned long long)r->lower_bound_bytes,
            tp_cli_fmt_bytes(r->lower_bound_bytes, b2, sizeof b2), ratio,
            tp_alloc_algo_name(r->algo_used), r->optimal ? "yes" : "no", r->seconds);
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
    rc = TP_EXIT_OK;
done:
    free(off);
    tp_csv_free_buffers(NULL, bufs, n);
    tp_csv_free_names(NULL, &names);
    return rc;
}
