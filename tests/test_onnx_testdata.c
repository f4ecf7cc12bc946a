/* Ground truth (a) of the ONNX importer: the node tests of Debian's
 * libonnx-testdata (/usr/share/libonnx-testdata/data/node). For every test the
 * model is converted, its symbolic input dims are bound to the sizes of
 * test_data_set_0/input_K.pb, and each graph output's inferred shape and dtype
 * must equal those of the expected output_K.pb (a TensorProto, decoded with the
 * importer's own decoder). Prints coverage (ops, tests passing / total).
 *
 * Every test that does not pass is listed in KNOWN below with the reason; any
 * other failure is a regression, and a listed test that now passes must be
 * removed from the list (both fail this program). Sizes that depend on data
 * (NonZero, Unique, Compress, NonMaxSuppression, Loop trip counts) are named
 * symbols; they are bound from the expected output where they first appear and
 * must then agree everywhere else (counted in the summary). */
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "import/onnx_decode.h"

#define DATA_ROOT "/usr/share/libonnx-testdata/data"

/* Suites: the node tests, and the smaller pytorch-exported / simple models (their
 * known-list names are prefixed with the suite, e.g. "simple/test_shrink"). */
static const char *const SUITES[] = {"node", "pytorch-operator", "pytorch-converted", "simple"};

/* Tests that are expected not to pass, with the reason. */
static const char *const KNOWN[][2] = {
#include "onnx_testdata_known.inc"
};

static int known_hits[sizeof KNOWN / sizeof KNOWN[0]];

static bool known(const char *name, bool failed) {
    for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if (strcmp(KNOWN[i][0], name) == 0) {
            if (failed) known_hits[i]++;
            return true;
        }
    return false;
}

/* Known failures by reason. */
static void print_reasons(void) {
    size_t n = sizeof KNOWN / sizeof KNOWN[0];
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        int count = 0;
        for (size_t j = 0; j < n; j++) {
            if (strcmp(KNOWN[i][1], KNOWN[j][1]) != 0) continue;
            if (j < i) first = false;
            count += known_hits[j];
        }
        if (first && count) printf("  known-unsupported: %3d  %s\n", count, KNOWN[i][1]);
    }
}

/* Decode the dims and type of a TensorProto file with the reader's decoder. */
typedef struct pb_tensor {
    int32_t type;
    uint32_t rank;
    int64_t dims[TP_MAX_RANK + 1];
    /* values of small numeric tensors (n_values 0 when not read) */
    uint32_t n_values;
    bool has_values; /* n_values is the element count (possibly 0) */
    bool is_float;
    uint64_t n_elements;
    /* sequences: the dims above are the first element's */
    bool is_seq, empty; /* empty: an optional without a value */
    uint32_t seq_len;
    uint64_t seq_total; /* elements of all the tensors */
    int64_t ivals[1024];
    double fvals[1024];
} pb_tensor;

/* One TensorProto message into out (dims, type, small values). */
static bool decode_tensor_msg(tp_onnx_model *m, tp_onnx_dctx *c, tp_pb r, pb_tensor *out) {
    tp_onnx_tensor t;
    memset(&t, 0, sizeof t);
    if (tp__onnx_decode_tensor(c, r, &t) != TP_OK || t.rank > TP_MAX_RANK) return false;
    out->type = t.data_type;
    out->rank = t.rank;
    for (uint32_t k = 0; k < t.rank; k++)
        out->dims[k] = t.dims[k];
    out->n_values = 0;
    out->has_values = false;
    out->n_elements = t.n_elements;
    uint64_t n = 0;
    bool fl = t.data_type == TP_ONNX_FLOAT || t.data_type == TP_ONNX_DOUBLE ||
              t.data_type == TP_ONNX_FLOAT16;
    if (t.n_elements <= 1024 && t.data_type != TP_ONNX_STRING) {
        tp_status vs = fl ? tp__onnx_tensor_read_f64(m, &t, out->fvals, 1024, &n, c->err)
                          : tp__onnx_tensor_read_i64(m, &t, out->ivals, 1024, &n, c->err);
        if (vs == TP_OK && n == t.n_elements) {
            out->has_values = true;
            out->n_values = (uint32_t)n;
            out->is_float = fl;
        }
    }
    return true;
}

/* A test-data value of kind 't' (TensorProto), 's' (SequenceProto: the first
 * tensor's type and dims, the element count and the total elements) or 'o'
 * (OptionalProto holding a tensor or a sequence, or nothing: empty). */
static bool decode_value(tp_onnx_model *m, tp_onnx_dctx *c, tp_pb r, char kind, pb_tensor *out) {
    if (kind != 's' && kind != 'o') return decode_tensor_msg(m, c, r, out);
    out->is_seq = kind == 's';
    out->empty = kind == 'o';
    out->seq_len = 0;
    out->seq_total = 0;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        if (tp__pb_tag(&r, &f, &w, c->err) != TP_OK) return false;
        bool tensor = f == 3, seq = kind == 'o' && f == 5;
        if (!tensor && !seq) {
            if (tp__pb_skip(&r, w, c->err) != TP_OK) return false;
            continue;
        }
        if (tp__pb_bytes(&r, w, f, "value", &sub, c->err) != TP_OK) return false;
        if (kind == 'o') {
            out->empty = false;
            if (!decode_value(m, c, sub, seq ? 's' : 't', out)) return false;
            continue;
        }
        static pb_tensor el;
        if (!decode_tensor_msg(m, c, sub, out->seq_len ? &el : out)) return false;
        out->seq_total += out->seq_len ? el.n_elements : out->n_elements;
        out->seq_len++;
    }
    out->is_seq = out->is_seq || (kind == 'o' && out->seq_len > 0);
    return true;
}

static bool read_value_pb(const char *path, char kind, pb_tensor *out) {
    size_t size = 0;
    uint8_t *buf = tp_test_read_file(path, &size);
    if (!buf) return false;
    memset(out, 0, offsetof(pb_tensor, ivals));
    tp_onnx_model m;
    memset(&m, 0, sizeof m);
    m.data = buf;
    m.size = size;
    m.path = path;
    m.base_dir = "";
    tp_onnx_arena *arena = NULL;
    tp_error err;
    bool ok = false;
    if (tp__onnx_arena_create(NULL, &arena) == TP_OK) {
        m.arena = arena;
        tp_onnx_dctx c = {
            .m = &m, .arena = arena, .err = &err, .max_depth = TP_ONNX_DEFAULT_MAX_DEPTH};
        ok = decode_value(&m, &c, tp__pb_init(buf, size), kind, out);
        tp__onnx_arena_destroy(arena);
    }
    free(buf);
    return ok;
}

static bool data_dependent_sym(const char *name) {
    static const char *const P[] = {"nonzero_", "unique_",     "compress_",
                                    "nms_",     "loop_trips_", "topk_"};
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++)
        if (strncmp(name, P[i], strlen(P[i])) == 0) return true;
    return false;
}

typedef struct summary {
    int total, passed, known_failed, regressions, stale, data_dims;
} summary;

/* Per-op counts for coverage. */
#define MAX_OPS 512
static char op_names[MAX_OPS][48];
static int op_tests[MAX_OPS], op_pass[MAX_OPS], n_ops;

static int op_index(const char *op) {
    for (int i = 0; i < n_ops; i++)
        if (strcmp(op_names[i], op) == 0) return i;
    if (n_ops >= MAX_OPS) return -1;
    snprintf(op_names[n_ops], sizeof op_names[0], "%s", op);
    return n_ops++;
}

/* Run one test; returns true when every output matches. *why gets a reason. */
/* Coverage: each op type of the top-level graph counts this test once. */
static void count_ops_of(const tp_onnx_graph *gr, bool ok) {
    for (uint32_t i = 0; i < gr->n_nodes; i++) {
        bool dup = false;
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(gr->nodes[j].op_type, gr->nodes[i].op_type) == 0) dup = true;
        int ix = dup ? -1 : op_index(gr->nodes[i].op_type);
        if (ix < 0) continue;
        op_tests[ix]++;
        if (ok) op_pass[ix]++;
    }
}

static bool check_one(tp_onnx_model *m, const char *dir, char *why, size_t cap, int *data_dims);

static bool run_one(const char *dir, char *why, size_t cap, int *data_dims, bool count_ops) {
    char path[1024];
    if (snprintf(path, sizeof path, "%s/model.onnx", dir) >= (int)sizeof path) return false;
    tp_error err;
    tp_onnx_model *m = NULL;
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    tp_status st = tp_onnx_model_open(path, &opt, NULL, &m, &err);
    if (st != TP_OK) {
        snprintf(why, cap, "open: %.400s", err.msg);
        return false;
    }
    bool ok = check_one(m, dir, why, cap, data_dims);
    if (count_ops) count_ops_of(m->graph, ok);
    tp_onnx_model_destroy(m);
    return ok;
}

static pb_tensor INPUTS[32];

static char value_kind(const tp_onnx_value_info *vi) {
    return vi->kind == 's' || vi->kind == 'o' ? vi->kind : 't';
}

/* A sequence output (or an optional holding one, or none): the IR node holds
 * every element, so its size must be the total of the expected tensors (an
 * empty optional: any size is an upper bound). */
static bool check_seq_output(tp_graph *g, const tp_node *n, const pb_tensor *want, uint32_t i,
                             char *why, size_t cap) {
    if (want->empty && !want->is_seq) return true;
    int64_t total = -1;
    tp_error err;
    if (n->shape.rank != 1 || tp_graph_dim_value(g, n->shape.dims[0], &total, &err) != TP_OK ||
        total != (int64_t)want->seq_total) {
        snprintf(why, cap, "output %u: a sequence of %lld elements in all, expected %llu", i,
                 (long long)total, (unsigned long long)want->seq_total);
        return false;
    }
    tp_dtype wdt;
    if (want->seq_len && tp_onnx_elem_type_to_dtype(want->type, &wdt, NULL) == TP_OK &&
        wdt != n->dtype) {
        snprintf(why, cap, "output %u: dtype %s, expected %s", i, tp_dtype_name(n->dtype),
                 tp_dtype_name(wdt));
        return false;
    }
    return true;
}

static bool check_one(tp_onnx_model *m, const char *dir, char *why, size_t cap, int *data_dims) {
    char path[1024];
    tp_error err;
    tp_graph *g = NULL;
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    const tp_onnx_graph *gr = m->graph;
    /* the input tensors: their values are given to the converter (inputs with a
     * static shape), their dims bind the symbolic dims */
    tp_onnx_input_value vals[32];
    const tp_onnx_value_info *vis[32];
    bool have[32] = {0};
    uint32_t n_in = 0, n_vals = 0;
    for (uint32_t i = 0; i < gr->n_inputs && n_in < 32; i++) {
        const tp_onnx_value_info *vi = &gr->inputs[i];
        if (tp__onnx_graph_find_initializer(gr, vi->name)) continue;
        if (snprintf(path, sizeof path, "%s/test_data_set_0/input_%u.pb", dir, n_in) >=
            (int)sizeof path)
            break;
        vis[n_in] = vi;
        pb_tensor *t = &INPUTS[n_in];
        have[n_in] = read_value_pb(path, value_kind(vi), t);
        /* only for a static declared shape that the tensor matches (a few test files
         * disagree with their model, e.g. castlike 'like' inputs) */
        bool static_shape =
            have[n_in] && vi->rank >= 0 && vi->kind == 't' && (uint32_t)vi->rank == t->rank;
        for (int32_t d = 0; static_shape && d < vi->rank; d++)
            if (vi->dims[d].value != t->dims[d] || (vi->dims[d].param && vi->dims[d].param[0]))
                static_shape = false;
        if (have[n_in] && static_shape && t->has_values) {
            vals[n_vals].name = vi->name;
            vals[n_vals].values = t->is_float ? NULL : t->ivals;
            vals[n_vals].float_values = t->is_float ? t->fvals : NULL;
            vals[n_vals].count = t->n_values;
            n_vals++;
        }
        n_in++;
    }
    opt.input_values = vals;
    opt.n_input_values = n_vals;
    tp_status st = tp_onnx_model_to_graph(m, &opt, NULL, &g, &err);
    if (st != TP_OK) {
        snprintf(why, cap, "%s: %.400s", tp_status_name(st), err.msg);
        return false;
    }
    bool ok = true;
    for (uint32_t k = 0; ok && k < n_in; k++) {
        const tp_onnx_value_info *vi = vis[k];
        const pb_tensor *t = &INPUTS[k];
        if (!have[k]) continue;
        for (int32_t d = 0; d < vi->rank && (uint32_t)d < t->rank; d++) {
            char sym[256];
            if (vi->dims[d].param && vi->dims[d].param[0])
                snprintf(sym, sizeof sym, "%s", vi->dims[d].param);
            else if (vi->dims[d].value < 0)
                snprintf(sym, sizeof sym, "unk_%s_%d", vi->name, (int)d);
            else
                continue;
            if (tp_graph_bind(g, sym, t->dims[d], &err) != TP_OK) {
                snprintf(why, cap, "bind %.100s: %.300s", sym, err.msg);
                ok = false;
            }
        }
        if (t->is_seq) { /* the element count of a sequence input */
            char sym[256];
            snprintf(sym, sizeof sym, "seqlen_%s", vi->name);
            if (tp_graph_bind(g, sym, t->seq_len, &err) != TP_OK) {
                snprintf(why, cap, "bind %.100s: %.300s", sym, err.msg);
                ok = false;
            }
        }
    }
    for (uint32_t i = 0; ok && i < gr->n_outputs; i++) {
        if (snprintf(path, sizeof path, "%s/test_data_set_0/output_%u.pb", dir, i) >=
            (int)sizeof path)
            break;
        static pb_tensor want;
        if (!read_value_pb(path, value_kind(&gr->outputs[i]), &want)) {
            snprintf(why, cap, "output %u: no readable TensorProto", i);
            ok = false;
            break;
        }
        tp_node_id id;
        if (tp_graph_find(g, gr->outputs[i].name, &id, &err) != TP_OK) {
            snprintf(why, cap, "output '%.200s' has no node", gr->outputs[i].name);
            ok = false;
            break;
        }
        const tp_node *n = tp_graph_node(g, id);
        if (want.is_seq || want.empty) {
            ok = check_seq_output(g, n, &want, i, why, cap);
            continue;
        }
        char sb[256];
        tp_graph_shape_str(g, &n->shape, sb, sizeof sb);
        if ((uint32_t)n->shape.rank != want.rank) {
            snprintf(why, cap, "output %u: rank %d %s, expected rank %u", i, (int)n->shape.rank, sb,
                     want.rank);
            ok = false;
            break;
        }
        for (uint32_t d = 0; ok && d < want.rank; d++) {
            int64_t v;
            tp_dim dim = n->shape.dims[d];
            const char *dsym = !tp_dim_is_static(dim) && (uint32_t)dim.sym < 1000000
                                   ? tp_graph_dim_str(g, dim, (char[128]){0}, 128)
                                   : "";
            if (data_dependent_sym(dsym)) {
                /* the default upper bound must hold; then bind the true size */
                for (uint32_t k = 0; k < tp_graph_symbol_count(g); k++) {
                    int64_t ub;
                    if (strcmp(tp_graph_symbol_name(g, k), dsym) == 0 &&
                        tp_graph_symbol_upper(g, k, &ub, NULL) && ub < want.dims[d]) {
                        snprintf(why, cap, "output %u: upper bound %lld of %.100s is below %lld", i,
                                 (long long)ub, dsym, (long long)want.dims[d]);
                        ok = false;
                    }
                }
                if (ok && tp_graph_bind(g, dsym, want.dims[d], &err) == TP_OK) (*data_dims)++;
                if (!ok) break;
            }
            if (tp_graph_dim_value(g, dim, &v, &err) != TP_OK) {
                const char *sym = !tp_dim_is_static(dim) && (uint32_t)dim.sym < 1000000
                                      ? tp_graph_dim_str(g, dim, (char[128]){0}, 128)
                                      : "";
                if (data_dependent_sym(sym) && tp_graph_bind(g, sym, want.dims[d], &err) == TP_OK) {
                    (*data_dims)++;
                    v = want.dims[d];
                } else {
                    snprintf(why, cap, "output %u: dim %u of %.200s unknown (%.200s)", i, d, sb,
                             err.msg);
                    ok = false;
                    break;
                }
            }
            if (v != want.dims[d]) {
                snprintf(why, cap, "output %u: shape %s, dim %u is %lld, expected %lld", i, sb, d,
                         (long long)v, (long long)want.dims[d]);
                ok = false;
            }
        }
        tp_dtype wdt;
        if (ok && tp_onnx_elem_type_to_dtype(want.type, &wdt, NULL) == TP_OK && wdt != n->dtype) {
            snprintf(why, cap, "output %u: dtype %s, expected %s", i, tp_dtype_name(n->dtype),
                     tp_dtype_name(wdt));
            ok = false;
        }
    }
    tp_graph_destroy(g);
    return ok;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void run_suite(const char *suite, summary *s, bool verbose) {
    char sdir[512];
    snprintf(sdir, sizeof sdir, "%s/%s", DATA_ROOT, suite);
    DIR *d = opendir(sdir);
    if (!d) {
        TP_FAIL_("%s is missing: install libonnx-testdata (scripts/fixtures.sh)", sdir);
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "test_", 5) != 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) break;
            names = nn;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    bool is_node = strcmp(suite, "node") == 0;
    for (size_t i = 0; i < n; i++) {
        char dir[1024], why[700], key[300];
        if (snprintf(dir, sizeof dir, "%s/%s", sdir, names[i]) >= (int)sizeof dir) continue;
        snprintf(key, sizeof key, "%s%s%s", is_node ? "" : suite, is_node ? "" : "/", names[i]);
        why[0] = 0;
        s->total++;
        bool ok = run_one(dir, why, sizeof why, &s->data_dims, is_node);
        bool k = known(key, !ok);
        if (ok) s->passed++;
        if (ok && k) {
            s->stale++;
            TP_FAIL_("%s passes now: remove it from tests/onnx_testdata_known.inc", key);
        } else if (!ok && !k) {
            s->regressions++;
            TP_FAIL_("%s: %s", key, why);
        } else if (!ok) {
            s->known_failed++;
            if (verbose) printf("  known: %s: %s\n", key, why);
        }
        free(names[i]);
    }
    free(names);
}

TP_TEST(node_tests) {
    summary s = {0}, all = {0};
    bool verbose = getenv("TP_TESTDATA_VERBOSE") != NULL;
    for (size_t i = 0; i < sizeof SUITES / sizeof SUITES[0]; i++) {
        summary t = {0};
        run_suite(SUITES[i], &t, verbose);
        printf("  %-18s %4d / %4d pass (%d known-unsupported, %d regressions, %d stale)\n",
               SUITES[i], t.passed, t.total, t.known_failed, t.regressions, t.stale);
        if (i == 0) s = t;
        all.total += t.total;
        all.passed += t.passed;
        all.data_dims += t.data_dims;
    }
    int ops_all = 0, ops_ok = 0, ops5 = 0, ops5_ok = 0;
    for (int i = 0; i < n_ops; i++) {
        ops_all++;
        if (op_pass[i]) ops_ok++;
        if (op_tests[i] >= 5) {
            ops5++;
            if (op_pass[i])
                ops5_ok++;
            else
                printf("  op %s (%d tests) passes none\n", op_names[i], op_tests[i]);
        }
    }
    printf("libonnx-testdata node tests: %d / %d pass (%d known-unsupported); all suites: %d / %d "
           "pass; %d data-dependent dims bound from expected outputs\n",
           s.passed, s.total, s.known_failed, all.passed, all.total, all.data_dims);
    printf("ops: %d / %d op types pass at least one test; ops used by >= 5 tests: %d / %d\n",
           ops_ok, ops_all, ops5_ok, ops5);
    print_reasons();
    TP_CHECK(s.total > 0);
    TP_CHECK(s.passed > 0);
    TP_CHECK(all.passed > s.passed);
}

int main(void) {
    TP_RUN(node_tests);
    return tp_test_finish();
}
