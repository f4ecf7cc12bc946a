/* Accuracy benchmark of the cost model: predicted vs measured latency.
 *
 * usage: bench_cost_accuracy MEASURED.jsonl [MODELS_DIR] [--sets FILE] [--classes] [--quick]
 *                            [--force] [--host-ref GFLOPS]
 *
 * MEASURED.jsonl comes from bench/accuracy/measure_ort.js (onnxruntime on this
 * machine): one line {"model":NAME,"threads":T,"median_ms":X,"min_ms":Y,...} per
 * model. For each model this program imports MODELS_DIR/NAME.onnx (default
 * .fixtures/models) with the values NAME.inputs.json gives for inputs ("values": an If on
 * one takes its branch), binds its sizes ("bind"), predicts one
 * forward pass on this CPU calibrated with the same thread count (cached
 * calibration; --quick / --force as in `tensorplan calibrate`), and prints per
 * model predicted vs measured, then the mean absolute percentage error (MAPE)
 * and Spearman's rank correlation, against the median and against the fastest
 * run. bench/accuracy/run.sh does all the steps. It never invents a figure: a
 * model that cannot be imported or measured is listed as skipped.
 * Lines may carry "ref_before" / "ref_after": the host's speed (the calibration's reference
 * kernel) read just before and after the model was measured. The host column then shows them
 * relative to the speed the prices assume (--host-ref, else the calibration's when measured now,
 * else the readings' median), and the fit / held-out errors are printed again without the
 * models whose readings are more than TP_CALIB_UNSTEADY_PCT away from it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cost/op_class.h"
#include "tensorplan.h"

#define MAX_MODELS 64

typedef struct row {
    char name[64];
    int threads;
    double median_ms, min_ms, cpu_ms;
    double busy_ms; /* the busiest thread's CPU time per run (0 = not measured) */
    /* the host's speed just before and after onnxruntime measured this model: the calibration's
       reference kernel (GFLOP/s, bench/accuracy/run.sh); 0 = not taken */
    double ref_before, ref_after;
    bool steady; /* both within TP_CALIB_UNSTEADY_PCT of the speed the prices assume */
    double pred_ms, gemm_ms, mem_ms, disp_ms;
    double gflop;
    double predict_us;           /* time to compute the prediction (accounting + cost) */
    double cls_ms[TP_OPC_COUNT]; /* predicted kernel time (no dispatch) per op class */
    uint32_t nodes, kernels;
    char set[16]; /* "fit", "heldout", "fresh" or "" (from --sets FILE) */
    bool ok;
    char why[600];
} row;

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* Value of "key": in a JSON line (number or string). */
static bool json_num(const char *line, const char *key, double *out) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p) return false;
    p += strlen(pat);
    char *end = NULL;
    *out = strtod(p, &end);
    return end != p;
}

static bool json_str(const char *line, const char *key, char *buf, size_t cap) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(line, pat);
    if (!p) return false;
    p += strlen(pat);
    size_t n = strcspn(p, "\"");
    if (n >= cap) return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

/* The "name": value pairs of the "bind" object of NAME.inputs.json (its text), as "name=value"
 * assignments: given to the importer before loading (tp_onnx_options.dims: an If on a dim
 * computed from them takes its branch, silero_vad v5) and bound after it. At most MAX_BINDS. */
#define MAX_BINDS 16
typedef struct bind_list {
    char text[MAX_BINDS][160];
    const char *ptr[MAX_BINDS];
    uint32_t n;
} bind_list;

static void read_binds(const char *text, bind_list *out) {
    out->n = 0;
    const char *p = strstr(text, "\"bind\"");
    p = p ? strchr(p, '{') : NULL;
    while (p && *p && *p != '}' && out->n < MAX_BINDS) {
        const char *k0 = strchr(p, '"');
        const char *close = strchr(p, '}');
        if (!k0 || (close && close < k0)) break;
        const char *k1 = strchr(k0 + 1, '"');
        if (!k1) break;
        size_t n = (size_t)(k1 - k0 - 1);
        if (n >= 128) break;
        const char *colon = strchr(k1, ':');
        if (!colon) break;
        char *end = NULL;
        long long v = strtoll(colon + 1, &end, 10);
        snprintf(out->text[out->n], sizeof out->text[out->n], "%.*s=%lld", (int)n, k0 + 1, v);
        out->ptr[out->n] = out->text[out->n];
        out->n++;
        p = end;
        while (p && *p == ' ')
            p++;
        if (p && *p == ',') p++;
    }
}

/* Bind the assignments (a symbol the graph does not use is not an error). */
static tp_status bind_inputs(tp_graph *g, const bind_list *b, tp_error *err) {
    for (uint32_t i = 0; i < b->n; i++) {
        tp_error e2;
        tp_status bs = tp_graph_bind_str(g, b->ptr[i], &e2);
        if (bs != TP_OK && bs != TP_ERR_NOT_FOUND) {
            *err = e2;
            return bs;
        }
    }
    return TP_OK;
}

/* The values NAME.inputs.json gives for graph inputs ("inputs": {"sr": {..., "values": [16000]}}):
 * the run's own values, known to a user before running (an If on `sr` then takes its branch).
 * Integers only; at most MAX_VALUE_INPUTS inputs of MAX_VALUES values. */
#define MAX_VALUE_INPUTS 8
#define MAX_VALUES 16
typedef struct input_values {
    char names[MAX_VALUE_INPUTS][128];
    int64_t values[MAX_VALUE_INPUTS][MAX_VALUES];
    tp_onnx_input_value iv[MAX_VALUE_INPUTS];
    uint32_t n;
} input_values;

static void read_input_values(const char *text, input_values *out) {
    memset(out, 0, sizeof *out);
    const char *inputs = strstr(text, "\"inputs\"");
    for (const char *p = inputs ? strstr(inputs, "\"values\"") : NULL;
         p && out->n < MAX_VALUE_INPUTS; p = strstr(p + 1, "\"values\"")) {
        /* the input's name: the key before the object holding "values" */
        const char *brace = p;
        while (brace > inputs && *brace != '{')
            brace--;
        const char *k1 = brace;
        while (k1 > inputs && *k1 != '"')
            k1--;
        const char *k0 = k1 > inputs ? k1 - 1 : k1;
        while (k0 > inputs && *k0 != '"')
            k0--;
        size_t len = (size_t)(k1 - k0 - 1);
        const char *open = strchr(p, '[');
        if (k0 <= inputs || k1 <= k0 || len == 0 || len >= sizeof out->names[0] || !open) break;
        uint32_t k = out->n, count = 0;
        memcpy(out->names[k], k0 + 1, len);
        out->names[k][len] = '\0';
        const char *q = open + 1;
        while (*q && *q != ']' && count < MAX_VALUES) {
            char *end = NULL;
            long long v = strtoll(q, &end, 10);
            if (end == q) break;
            out->values[k][count++] = (int64_t)v;
            q = end;
            while (*q == ' ' || *q == ',')
                q++;
        }
        if (*q != ']') continue; /* not a list of integers: not given */
        out->iv[k] = (tp_onnx_input_value){out->names[k], out->values[k], NULL, count};
        out->n++;
    }
}

static void ranks(const double *v, int n, double *r) {
    for (int i = 0; i < n; i++) {
        int less = 0, eq = 0;
        for (int k = 0; k < n; k++) {
            if (v[k] < v[i]) less++;
            if (v[k] == v[i]) eq++;
        }
        r[i] = less + (eq + 1) / 2.0; /* average rank of ties, 1-based */
    }
}

static double spearman(const double *a, const double *b, int n) {
    double ra[MAX_MODELS], rb[MAX_MODELS], ma = 0, mb = 0;
    ranks(a, n, ra);
    ranks(b, n, rb);
    for (int i = 0; i < n; i++) {
        ma += ra[i] / n;
        mb += rb[i] / n;
    }
    double sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}

static void predict(row *r, const char *dir, const tp_device_model *dev) {
    char path[1024];
    tp_error err;
    tp_error_clear(&err);
    tp_graph *g = NULL;
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    tp_status s = TP_OK;
    /* NAME.inputs.json, read once: the input values before the import, the sizes after */
    char *spec = NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/%s.inputs.json", dir, r->name) >= sizeof path)
        s = tp_error_set(&err, TP_ERR_INVALID, "path too long");
    else if (!(spec = read_text(path)))
        s = tp_error_set(&err, TP_ERR_IO, "cannot read %s", path);
    input_values given;
    memset(&given, 0, sizeof given);
    bind_list binds;
    memset(&binds, 0, sizeof binds);
    if (s == TP_OK) {
        read_input_values(spec, &given);
        read_binds(spec, &binds);
    }
    opt.input_values = given.iv;
    opt.n_input_values = given.n;
    opt.dims = binds.ptr;
    opt.n_dims = binds.n;
    if (s == TP_OK &&
        (size_t)snprintf(path, sizeof path, "%s/%s.onnx", dir, r->name) >= sizeof path)
        s = tp_error_set(&err, TP_ERR_INVALID, "path too long");
    if (s == TP_OK) s = tp_onnx_load(path, &opt, NULL, &g, &err);
    if (s == TP_OK) s = bind_inputs(g, &binds, &err);
    free(spec);
    tp_graph_cost gc;
    memset(&gc, 0, sizeof gc);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (s == TP_OK) s = tp_graph_cost_compute(g, dev, NULL, NULL, &gc, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->predict_us = (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
    if (s != TP_OK) {
        snprintf(r->why, sizeof r->why, "%s: %s", tp_status_name(s), err.msg);
        tp_graph_destroy(g);
        return;
    }
    r->ok = true;
    r->pred_ms = gc.total_ns / 1e6;
    r->gflop = (double)gc.flops / 1e9;
    r->nodes = tp_graph_node_count(g);
    r->kernels = (uint32_t)gc.io.kernel_launches;
    for (uint32_t i = 0; i < gc.n_nodes; i++) {
        const tp_node_cost *nc = &gc.nodes[i];
        double body = nc->total_ns - nc->dispatch_ns;
        r->disp_ms += nc->dispatch_ns / 1e6;
        if (nc->cls == TP_COST_GEMM)
            r->gemm_ms += body / 1e6;
        else
            r->mem_ms += body / 1e6;
        tp_op_cost oc;
        if (tp_op_account(g, (tp_node_id)i, &oc, NULL) == TP_OK)
            r->cls_ms[tp_cost_op_class_of(tp_graph_node(g, (tp_node_id)i), &oc)] += body / 1e6;
    }
    /* onnxruntime's NCHWc layout copies (ReorderInput / ReorderOutput, no graph node here):
       ort_op_times.js counts them as data movement */
    r->cls_ms[TP_OPC_MOVE] += gc.layout_ns / 1e6;
    tp_graph_cost_destroy(&gc);
    tp_graph_destroy(g);
}

/* The set of every model named in FILE (lines "name dir set", '#' comments). */
static void read_sets(const char *file, row *rows, int n) {
    char *text = read_text(file);
    if (!text) return;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        char name[64], dir[512], set[16];
        if (ln[0] == '#' || sscanf(ln, "%63s %511s %15s", name, dir, set) != 3) continue;
        for (int i = 0; i < n; i++)
            if (strcmp(rows[i].name, name) == 0)
                snprintf(rows[i].set, sizeof rows[i].set, "%s", set);
    }
    free(text);
}

/* against: 0 median wall time, 1 fastest run, 2 median CPU time, 3 busiest thread's CPU time;
   set: NULL for all */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool near(double v, double ref) {
    return v > 0 && fabs(v / ref - 1) * 100 <= TP_CALIB_UNSTEADY_PCT;
}

/* The host speed the prices assume: the calibration's reference kernel when it was measured now
   and steady (or `given`: the one bench/accuracy/run.sh read when it calibrated), else the median
   of the readings taken around the models (a cached calibration's speed is unknown). Marks each row
   steady when both of its readings are near it; returns it (0 when no row carries readings) and
   says where it came from. */
static double mark_steady(row *rows, int n, const tp_calib_info *info, double given,
                          const char **basis) {
    static double v[2 * MAX_MODELS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].ref_before > 0 && rows[i].ref_after > 0) {
            v[k++] = rows[i].ref_before;
            v[k++] = rows[i].ref_after;
        }
    if (k == 0) return 0;
    double s0 = info->steady_start_gflops, s1 = info->steady_end_gflops, ref;
    if (given > 0) {
        ref = given;
        *basis = "the calibration's, --host-ref";
    } else if (!info->from_cache && s0 > 0 && s1 > 0 && near(s1, s0)) {
        ref = (s0 + s1) / 2;
        *basis = "the calibration's";
    } else {
        qsort(v, (size_t)k, sizeof v[0], cmp_double);
        ref = v[k / 2];
        *basis = info->from_cache ? "the readings' median (calibration cached)"
                                  : "the readings' median (calibration unsteady)";
    }
    for (int i = 0; i < n; i++)
        rows[i].steady = near(rows[i].ref_before, ref) && near(rows[i].ref_after, ref);
    return ref;
}

static void summary(const row *rows, int n, int against, const char *set, bool steady_only) {
    static const char *const what[] = {"median wall time", "fastest run", "median CPU time",
                                       "busiest thread"};
    double pred[MAX_MODELS], meas[MAX_MODELS], ape = 0, lo = INFINITY, hi = -INFINITY;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!rows[i].ok || (set && strcmp(rows[i].set, set) != 0)) continue;
        if (steady_only && !rows[i].steady) continue;
        pred[k] = rows[i].pred_ms;
        meas[k] = against == 0   ? rows[i].median_ms
                  : against == 1 ? rows[i].min_ms
                  : against == 2 ? rows[i].cpu_ms
                                 : rows[i].busy_ms;
        if (!(meas[k] > 0)) return;
        double e = (pred[k] - meas[k]) / meas[k];
        ape += fabs(e);
        lo = e < lo ? e : lo;
        hi = e > hi ? e : hi;
        k++;
    }
    if (k == 0) return;
    printf("%-8s vs %-16s: MAPE %5.1f %%, Spearman rank correlation %.3f (%d models%s), "
           "errors %+.1f .. %+.1f %%\n",
           set ? set : "all", what[against], 100.0 * ape / k, spearman(pred, meas, k), k,
           steady_only ? ", measured at the calibration's host speed" : "", 100.0 * lo, 100.0 * hi);
}

int main(int argc, char **argv) {
    const char *measured = NULL, *dir = NULL, *sets = NULL;
    double host_ref_given = 0;
    bool classes = false;
    tp_calib_options co;
    tp_calib_options_default(&co);
    tp_env_options env;
    tp_env_options_read(&env);
    tp_env_apply_calib(&env, &co); /* the calibration cache and TENSORPLAN_THREADS */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            co.quick = true;
        else if (strcmp(argv[i], "--force") == 0)
            co.force = true;
        else if (strcmp(argv[i], "--classes") == 0)
            classes = true;
        else if (strcmp(argv[i], "--sets") == 0 && i + 1 < argc)
            sets = argv[++i];
        else if (strcmp(argv[i], "--host-ref") == 0 && i + 1 < argc)
            host_ref_given = strtod(argv[++i], NULL);
        else if (!measured)
            measured = argv[i];
        else if (!dir)
            dir = argv[i];
    }
    if (!measured) {
        fprintf(
            stderr,
            "usage: %s MEASURED.jsonl [MODELS_DIR] [--sets FILE] [--classes] [--quick] [--force] "
            "[--host-ref GFLOPS]\n",
            argv[0]);
        return 2;
    }
    if (!dir) dir = TP_SOURCE_DIR "/.fixtures/models";
    char *text = read_text(measured);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", measured);
        return 1;
    }
    static row rows[MAX_MODELS];
    int n = 0;
    char *save = NULL;
    for (char *ln = strtok_r(text, "\n", &save); ln && n < MAX_MODELS;
         ln = strtok_r(NULL, "\n", &save)) {
        row *r = &rows[n];
        memset(r, 0, sizeof *r);
        double th = 0;
        if (!json_str(ln, "model", r->name, sizeof r->name) ||
            !json_num(ln, "median_ms", &r->median_ms) || !json_num(ln, "min_ms", &r->min_ms))
            continue;
        if (json_num(ln, "threads", &th)) r->threads = (int)th;
        if (!json_num(ln, "cpu_ms", &r->cpu_ms)) r->cpu_ms = 0;
        if (!json_num(ln, "busy_ms", &r->busy_ms)) r->busy_ms = 0;
        if (!json_num(ln, "ref_before", &r->ref_before)) r->ref_before = 0;
        if (!json_num(ln, "ref_after", &r->ref_after)) r->ref_after = 0;
        n++;
    }
    free(text);
    if (sets) read_sets(sets, rows, n);
    if (n == 0) {
        fprintf(stderr, "%s: no measurements\n", measured);
        return 1;
    }
    co.threads = rows[0].threads > 0 ? (uint32_t)rows[0].threads : 0;
    tp_device_model dev;
    tp_calib_info info;
    tp_error err;
    if (tp_calibrate_cpu_cached(&co, &dev, &info, &err) != TP_OK) {
        fprintf(stderr, "calibration failed: %s\n", err.msg);
        return 1;
    }
    printf("# device: %s (%s), %u threads, gemm %s:", info.cpu_model, dev.name, dev.threads,
           dev.gemm_impl);
    for (uint32_t i = 0; i < dev.n_gemm; i++)
        printf(" %g->%.1f", dev.gemm[i].dim, dev.gemm[i].gflops);
    printf(" GFLOP/s; triad %.2f GB/s; depthwise %.1f GFLOP/s; resize %.2f GB/s; dispatch %.0f ns; "
           "round trip %.0f ns%s\n",
           dev.mem_gbps, dev.dwconv_gflops, dev.resize_gbps, dev.dispatch_ns, dev.round_trip_ns,
           info.from_cache ? " (cached)" : "");
    if (!info.from_cache)
        printf("# calibration took %.0f ms (op-class micro-benchmarks %.0f ms); reference kernel "
               "%.1f -> %.1f GFLOP/s at start / end\n",
               info.elapsed_ms, info.op_rates_ms, info.steady_start_gflops, info.steady_end_gflops);
    const char *ref_basis = "";
    double host_ref = mark_steady(rows, n, &info, host_ref_given, &ref_basis);
    if (host_ref > 0)
        printf("# host speed the prices assume: %.1f GFLOP/s (reference kernel, %s); a model is "
               "steady when the readings before and after it are within %.0f %% of it\n",
               host_ref, ref_basis, TP_CALIB_UNSTEADY_PCT);
    printf("# model\tnodes\tkernels\tGFLOP\tpred_ms\tgemm_ms\tmem_ms\tdisp_ms\tmedian_ms\tmin_"
           "ms\tcpu_ms\tbusy_ms\terr\tset\thost\n");
    for (int i = 0; i < n; i++) {
        row *r = &rows[i];
        predict(r, dir, &dev);
        if (!r->ok) {
            printf("%s\tskipped: %s\n", r->name, r->why);
            continue;
        }
        /* the reference of the summary: CPU time at one thread, else the fastest run */
        double ref = r->threads > 1  ? (r->busy_ms > 0 ? r->busy_ms : r->min_ms)
                     : r->cpu_ms > 0 ? r->cpu_ms
                                     : r->median_ms;
        char host[48] = "-"; /* the host's speed around this model, relative to host_ref */
        if (host_ref > 0 && r->ref_before > 0 && r->ref_after > 0)
            snprintf(host, sizeof host, "%.2f/%.2f%s", r->ref_before / host_ref,
                     r->ref_after / host_ref, r->steady ? "" : " UNSTEADY");
        printf(
            /* times to the microsecond: the small models run in tens of them */
            "%s\t%u\t%u\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%+.1f%%\t%s\t%s\n",
            r->name, r->nodes, r->kernels, r->gflop, r->pred_ms, r->gemm_ms, r->mem_ms, r->disp_ms,
            r->median_ms, r->min_ms, r->cpu_ms, r->busy_ms, 100.0 * (r->pred_ms - ref) / ref,
            r->set, host);
        if (classes) {
            /* predicted kernel time per op class, for bench/accuracy/op_classes.py */
            printf("#classes\t%s", r->name);
            for (int c = 0; c < TP_OPC_COUNT; c++)
                if (r->cls_ms[c] > 0)
                    printf("\t%s=%.4f", tp_cost_op_class_name((tp_cost_op_class)c), r->cls_ms[c]);
            printf("\n");
        }
        fflush(stdout);
    }
    double us = 0;
    uint32_t nodes = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].ok) {
            us += rows[i].predict_us;
            nodes += rows[i].nodes;
        }
    printf("# prediction time: %.0f us for %u nodes (%.2f us per node)\n", us, nodes,
           nodes ? us / nodes : 0.0);
    /* one thread: CPU time is the idle-machine latency; more threads: the busiest thread's
       CPU time per run (measure_ort.js, no spinning) when measured, else the fastest run */
    int ref = rows[0].threads > 1 ? (rows[0].busy_ms > 0 ? 3 : 1) : 2;
    for (int a = 0; a < 4; a++)
        summary(rows, n, a, NULL, false);
    if (sets) {
        /* fresh: held out like heldout, first measured for latency after the session's changes
           (bench/accuracy/models.txt) */
        static const char *const set_names[] = {"fit", "heldout", "fresh"};
        for (int i = 0; i < 3; i++)
            summary(rows, n, ref, set_names[i], false);
        if (host_ref > 0) /* the same, without the models measured while the host's speed moved */
            for (int i = 0; i < 3; i++)
                summary(rows, n, ref, set_names[i], true);
    }
    return 0;
}
