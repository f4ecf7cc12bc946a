/* Unit tests of the ONNX -> IR conversion (src/import/onnx_convert.c and the
 * per-op rules): small models are written in protobuf wire format here, loaded
 * from memory and checked — mapping rules (initializers -> params with file
 * offsets, Constant -> constants, dim_param -> symbols, multi-output nodes),
 * value propagation, data-dependent dims, error messages (unsupported op,
 * value_info mismatch, missing input), allow_unknown_ops, and an
 * allocation-failure sweep over a whole import. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "onnx_alloc_sweep.h"
#include "ortgraph/ort_qdq.h"
#include "ortgraph/ort_xform.h"
#include "tensorplan/cost.h"

/* ---- a tiny protobuf writer ---- */

typedef struct pbuf {
    uint8_t *p;
    size_t n, cap;
} pbuf;

static void put(pbuf *b, const void *d, size_t n) {
    if (n == 0) return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 256;
        while (c < b->n + n)
            c *= 2;
        uint8_t *np = realloc(b->p, c);
        if (!np) abort();
        b->p = np;
        b->cap = c;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void varint(pbuf *b, uint64_t v) {
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) t[n] |= 0x80;
        n++;
    } while (v);
    put(b, t, n);
}
static void key(pbuf *b, uint32_t field, uint32_t wire) {
    varint(b, ((uint64_t)field << 3) | wire);
}
static void f_int(pbuf *b, uint32_t field, int64_t v) {
    key(b, field, 0);
    varint(b, (uint64_t)v);
}
static void f_bytes(pbuf *b, uint32_t field, const void *d, size_t n) {
    key(b, field, 2);
    varint(b, n);
    put(b, d, n);
}
static void f_str(pbuf *b, uint32_t field, const char *s) {
    f_bytes(b, field, s, strlen(s));
}
/* Append message m as field `field` of b and free m. */
static void f_msg(pbuf *b, uint32_t field, pbuf *m) {
    f_bytes(b, field, m->p, m->n);
    free(m->p);
    memset(m, 0, sizeof *m);
}

/* ValueInfoProto: dims are "3" (value), "batch" (param) or "?" (unknown). */
static void value_info(pbuf *g, uint32_t field, const char *name, int elem, int rank,
                       const char *const *dims) {
    pbuf vi = {0}, type = {0}, tensor = {0}, shape = {0};
    for (int i = 0; i < rank; i++) {
        pbuf dim = {0};
        if (dims[i][0] >= '0' && dims[i][0] <= '9')
            f_int(&dim, 1, atoll(dims[i]));
        else if (dims[i][0] != '?')
            f_str(&dim, 2, dims[i]);
        f_msg(&shape, 1, &dim);
    }
    f_int(&tensor, 1, elem);
    if (rank >= 0) f_msg(&tensor, 2, &shape);
    free(shape.p);
    f_msg(&type, 1, &tensor);
    f_str(&vi, 1, name);
    f_msg(&vi, 2, &type);
    f_msg(g, field, &vi);
}

static void attr_int(pbuf *node, const char *name, int64_t v) {
    pbuf a = {0};
    f_str(&a, 1, name);
    f_int(&a, 3, v);
    f_int(&a, 20, 2);
    f_msg(node, 5, &a);
}
static void attr_ints(pbuf *node, const char *name, int n, const int64_t *v) {
    pbuf a = {0};
    f_str(&a, 1, name);
    for (int i = 0; i < n; i++)
        f_int(&a, 8, v[i]);
    f_int(&a, 20, 7);
    f_msg(node, 5, &a);
}

/* node(op, "in1,in2", "out1,out2") with optional attributes added by the caller. */
static pbuf node_begin(const char *op, const char *ins, const char *outs, const char *name) {
    pbuf n = {0};
    char buf[256];
    for (int which = 0; which < 2; which++) {
        snprintf(buf, sizeof buf, "%s", which ? outs : ins);
        if (!buf[0]) continue;
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
            f_str(&n, which ? 2 : 1, strcmp(t, "-") == 0 ? "" : t);
    }
    if (name) f_str(&n, 3, name);
    f_str(&n, 4, op);
    return n;
}

/* int64 initializer (int64_data) or float initializer (raw_data). */
static void init_i64(pbuf *g, const char *name, int rank, const int64_t *dims, int n,
                     const int64_t *vals) {
    pbuf t = {0};
    for (int i = 0; i < rank; i++)
        f_int(&t, 1, dims[i]);
    f_int(&t, 2, 7);
    for (int i = 0; i < n; i++)
        f_int(&t, 7, vals[i]);
    f_str(&t, 8, name);
    f_msg(g, 5, &t);
}
/* A float initializer of dims with values v, in raw_data or, with `location`, in an external
   data file at offset 0. */
static void init_f32_tensor(pbuf *g, const char *name, int rank, const int64_t *dims,
                            const float *v, const char *location) {
    pbuf t = {0}, kv = {0};
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        f_int(&t, 1, dims[i]);
        n *= (size_t)dims[i];
    }
    f_int(&t, 2, 1);
    f_str(&t, 8, name);
    if (location) {
        f_int(&t, 14, 1);
        f_str(&kv, 1, "location");
        f_str(&kv, 2, location);
        f_msg(&t, 13, &kv);
    } else {
        f_bytes(&t, 9, v, n * sizeof *v);
    }
    f_msg(g, 5, &t);
}

static void init_f32_raw(pbuf *g, const char *name, int rank, const int64_t *dims) {
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= (size_t)dims[i];
    float *zeros = calloc(n, sizeof *zeros);
    init_f32_tensor(g, name, rank, dims, zeros, NULL);
    free(zeros);
}

static pbuf model_of(pbuf *graph, int64_t opset) {
    pbuf m = {0}, op = {0};
    f_int(&m, 1, 8);
    f_str(&m, 2, "test_onnx_convert");
    f_str(graph, 2, "g");
    f_msg(&m, 7, graph);
    f_str(&op, 1, "");
    f_int(&op, 2, opset);
    f_msg(&m, 8, &op);
    return m;
}

static const char *const X_DIMS[] = {"batch", "3", "8", "8"};
static void sweep_model(const pbuf *mp);

/* x[batch,3,8,8] -> Conv(W, pads 1) -> Relu -> Reshape([0,-1]) -> z, with W also
 * listed as a graph input (an initializer: not an input). */
static pbuf conv_model(const char *extra_op, bool vi_for_extra, bool bad_vi) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 4, X_DIMS);
    value_info(&g, 11, "W", 1, 4, (const char *const[]){"4", "3", "3", "3"});
    init_f32_raw(&g, "W", 4, (const int64_t[]){4, 3, 3, 3});
    init_i64(&g, "shape", 1, (const int64_t[]){2}, 2, (const int64_t[]){0, -1});
    n = node_begin("Conv", "x,W", "c", "conv0");
    attr_ints(&n, "pads", 4, (const int64_t[]){1, 1, 1, 1});
    f_msg(&g, 1, &n);
    n = node_begin("Relu", "c", "r", "relu0");
    f_msg(&g, 1, &n);
    const char *last = "r";
    if (extra_op) {
        n = node_begin(extra_op, "r", "e", "extra0");
        f_msg(&g, 1, &n);
        last = "e";
        if (vi_for_extra) value_info(&g, 13, "e", 1, 4, X_DIMS);
    }
    char ins[64];
    snprintf(ins, sizeof ins, "%s,shape", last);
    n = node_begin("Reshape", ins, "z", "reshape0");
    f_msg(&g, 1, &n);
    if (bad_vi) value_info(&g, 13, "r", 1, 2, (const char *const[]){"1", "2"});
    value_info(&g, 12, "z", 1, 2, (const char *const[]){"batch", "?"});
    return model_of(&g, 17);
}

static tp_status load(pbuf *m, const tp_onnx_options *opt, tp_graph **g, tp_error *err) {
    tp_status st = tp_onnx_load_memory(m->p, m->n, opt, NULL, g, err);
    free(m->p);
    memset(m, 0, sizeof *m);
    return st;
}

/* The graph of model graph `g` (opset 17; g's buffer is consumed) and its node `name` (NULL when
   either failed to load or is absent: the check reports it). */
static tp_graph *load_graph_find(pbuf *g, const char *name, const tp_node **node);

static const tp_node *find(tp_graph *g, const char *name) {
    tp_node_id id;
    if (tp_graph_find(g, name, &id, NULL) != TP_OK) return NULL;
    return tp_graph_node(g, id);
}

static tp_graph *load_graph_find(pbuf *g, const char *name, const tp_node **node) {
    pbuf m = model_of(g, 17);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err); /* frees the model's bytes */
    *node = gr ? find(gr, name) : NULL;
    TP_CHECK(*node != NULL);
    return gr;
}

TP_TEST(mapping_rules) {
    pbuf m = conv_model(NULL, false, false);
    tp_graph *g = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &g, &err), &err);
    if (!g) return;
    const tp_node *w = find(g, "W"), *x = find(g, "x"), *z = find(g, "z"), *c = find(g, "c");
    TP_CHECK(w && x && z && c);
    if (!w || !x || !z || !c) goto out;
    TP_CHECK_EQ_I64(w->op.kind, TP_OP_PARAM); /* listed as input, but an initializer */
    TP_CHECK_EQ_U64(w->op.attrs.param.data_bytes, 4 * 3 * 3 * 3 * 4);
    TP_CHECK(w->op.attrs.param.data_offset > 0);
    TP_CHECK_EQ_I64(x->op.kind, TP_OP_INPUT);
    TP_CHECK_EQ_I64(c->op.kind, TP_OP_CONV);
    char buf[128];
    TP_CHECK_STR(tp_graph_shape_str(g, &c->shape, buf, sizeof buf), "[batch,4,8,8]");
    /* Reshape [0,-1]: -1 inferred with the symbolic batch cancelled */
    TP_CHECK_STR(tp_graph_shape_str(g, &z->shape, buf, sizeof buf), "[batch,256]");
    TP_CHECK_EQ_I64(z->op.kind, TP_OP_RESHAPE);
    TP_CHECK(z->flags & TP_NODE_OUTPUT);
    TP_CHECK_EQ_U64(tp_graph_output_count(g), 1);
    TP_CHECK_EQ_U64(tp_graph_symbol_count(g), 1);
    TP_CHECK_STR(tp_graph_symbol_name(g, 0), "batch");
    TP_CHECK_OK(tp_graph_bind(g, "batch", 3, &err), &err);
    uint64_t bytes = 0;
    TP_CHECK_OK(tp_graph_node_bytes(g, (tp_node_id)(z - tp_graph_node(g, 0)), &bytes, &err), &err);
    TP_CHECK_EQ_U64(bytes, 3 * 256 * 4);
out:
    tp_graph_destroy(g);
}

TP_TEST(unsupported_op_names_context) {
    pbuf m = conv_model("FooBar", false, false);
    tp_graph *g = NULL;
    tp_error err;
    TP_CHECK_STATUS(load(&m, NULL, &g, &err), TP_ERR_UNSUPPORTED);
    TP_CHECK(g == NULL);
    TP_CHECK_CONTAINS(err.msg, "extra0");
    TP_CHECK_CONTAINS(err.msg, "FooBar");
    TP_CHECK_CONTAINS(err.msg, "opset 17");
    TP_CHECK_CONTAINS(err.msg, "[batch,4,8,8] f32");
    TP_CHECK_CONTAINS(err.msg, "no shape rule");
    TP_CHECK(err.offset != TP_NO_OFFSET);
}

TP_TEST(allow_unknown_ops_uses_value_info) {
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.allow_unknown_ops = true;
    tp_graph *g = NULL;
    tp_error err;
    /* without value_info for its output the unknown op still fails */
    pbuf m = conv_model("FooBar", false, false);
    TP_CHECK_STATUS(load(&m, &opt, &g, &err), TP_ERR_UNSUPPORTED);
    TP_CHECK_CONTAINS(err.msg, "value_info");
    m = conv_model("FooBar", true, false);
    TP_CHECK_OK(load(&m, &opt, &g, &err), &err);
    const tp_node *e = g ? find(g, "e") : NULL;
    TP_CHECK(e != NULL);
    if (e) {
        TP_CHECK_EQ_I64(e->op.kind, TP_OP_CUSTOM);
        TP_CHECK_STR(e->op.attrs.custom.name, "FooBar");
        char buf[64];
        TP_CHECK_STR(tp_graph_shape_str(g, &e->shape, buf, sizeof buf), "[batch,3,8,8]");
    }
    tp_graph_destroy(g);
}

TP_TEST(value_info_mismatch_is_an_error) {
    pbuf m = conv_model(NULL, false, true);
    tp_graph *g = NULL;
    tp_error err;
    TP_CHECK_STATUS(load(&m, NULL, &g, &err), TP_ERR_SHAPE);
    TP_CHECK_CONTAINS(err.msg, "relu0");
    TP_CHECK_CONTAINS(err.msg, "value_info says [1,2]");
    TP_CHECK_CONTAINS(err.msg, "[batch,4,8,8]");
    /* the check can be switched off */
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.check_value_info = false;
    m = conv_model(NULL, false, true);
    TP_CHECK_OK(load(&m, &opt, &g, &err), &err);
    tp_graph_destroy(g);
}

TP_TEST(missing_input_is_an_error) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 1, (const char *const[]){"4"});
    n = node_begin("Add", "x,nowhere", "y", "add0");
    f_msg(&g, 1, &n);
    value_info(&g, 12, "y", 1, 1, (const char *const[]){"4"});
    pbuf m = model_of(&g, 17);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_STATUS(load(&m, NULL, &gr, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "'nowhere'");
    TP_CHECK_CONTAINS(err.msg, "add0");
}

/* Shape -> Gather -> Unsqueeze -> Concat -> Reshape, the torch export pattern. */
TP_TEST(value_propagation_feeds_reshape) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 3, (const char *const[]){"batch", "seq", "768"});
    init_i64(&g, "zero", 0, NULL, 1, (const int64_t[]){0});
    init_i64(&g, "ax0", 1, (const int64_t[]){1}, 1, (const int64_t[]){0});
    init_i64(&g, "tail", 1, (const int64_t[]){2}, 2, (const int64_t[]){12, 64});
    n = node_begin("Shape", "x", "s", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Gather", "s,zero", "b", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Unsqueeze", "b,ax0", "bu", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Constant", "", "minus1", NULL);
    {
        pbuf a = {0}, t = {0};
        f_int(&t, 1, 1);
        f_int(&t, 2, 7);
        f_int(&t, 7, -1);
        f_str(&a, 1, "value");
        f_msg(&a, 5, &t);
        f_int(&a, 20, 4);
        f_msg(&n, 5, &a);
    }
    f_msg(&g, 1, &n);
    n = node_begin("Concat", "bu,minus1,tail", "shape", NULL);
    attr_int(&n, "axis", 0);
    f_msg(&g, 1, &n);
    n = node_begin("Reshape", "x,shape", "y", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("NonZero", "x", "nz", NULL);
    f_msg(&g, 1, &n);
    value_info(&g, 12, "y", 1, -1, NULL);
    value_info(&g, 12, "nz", 7, -1, NULL);
    pbuf m = model_of(&g, 17);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
    if (!gr) return;
    char buf[128];
    const tp_node *y = find(gr, "y"), *c = find(gr, "minus1"), *nz = find(gr, "nz");
    TP_CHECK(y && c && nz);
    if (y) TP_CHECK_STR(tp_graph_shape_str(gr, &y->shape, buf, sizeof buf), "[batch,seq,12,64]");
    if (c) TP_CHECK_EQ_I64(c->op.kind, TP_OP_CONSTANT);
    /* a data-dependent size is a named symbol with an upper bound (the elements
     * of the input: x is [batch, seq, 768]); what is unbound is the bound's dims */
    if (nz) {
        TP_CHECK_STR(tp_graph_shape_str(gr, &nz->shape, buf, sizeof buf), "[3,nonzero_nz]");
        TP_CHECK_STATUS(tp_graph_validate(gr, true, &err), TP_ERR_UNBOUND);
        TP_CHECK_CONTAINS(err.msg, "'batch', 'seq'");
        TP_CHECK_OK(tp_graph_bind(gr, "batch", 2, &err), &err);
        TP_CHECK_OK(tp_graph_bind(gr, "seq", 5, &err), &err);
        int64_t v = 0;
        TP_CHECK_OK(tp_graph_dim_value(gr, nz->shape.dims[1], &v, &err), &err);
        TP_CHECK_EQ_I64(v, 2 * 5 * 768);
        bool bounded = false;
        for (uint32_t k = 0; k < tp_graph_symbol_count(gr); k++)
            if (strcmp(tp_graph_symbol_name(gr, k), "nonzero_nz") == 0)
                bounded = tp_graph_symbol_upper(gr, k, &v, NULL) && v == 2 * 5 * 768;
        TP_CHECK(bounded);
        TP_CHECK_OK(tp_graph_bind(gr, "nonzero_nz", 7, &err), &err); /* --dim overrides */
        TP_CHECK_OK(tp_graph_dim_value(gr, nz->shape.dims[1], &v, &err), &err);
        TP_CHECK_EQ_I64(v, 7);
    }
    tp_graph_destroy(gr);
}

/* What onnxruntime's graph knows (onnx_ort_known.c): a Reshape or Slice whose shape or bounds
 * come from a Shape over a symbolic dim has dims computed at run time (TP_NODE_DIMS_AT_RUNTIME),
 * even where tensorplan knows the value (a Gather of the dim that is a number: onnxruntime folds a
 * Shape whole or not at all), and so has a NonZero (its size comes from the values); a Reshape its
 * ReshapeFusion makes constant ([0, 8, 16]) and one over a Shape of static dims (folded) do not. */
TP_TEST(dims_computed_at_run_time_for_onnxruntime) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 3, (const char *const[]){"batch", "8", "16"});
    value_info(&g, 11, "w", 1, 2, (const char *const[]){"4", "32"});
    init_i64(&g, "i0", 0, NULL, 1, (const int64_t[]){0});
    init_i64(&g, "i1", 0, NULL, 1, (const int64_t[]){1});
    init_i64(&g, "i2", 0, NULL, 1, (const int64_t[]){2});
    init_i64(&g, "ax0", 1, (const int64_t[]){1}, 1, (const int64_t[]){0});
    init_i64(&g, "two", 0, NULL, 1, (const int64_t[]){2});
    init_i64(&g, "m1", 1, (const int64_t[]){1}, 1, (const int64_t[]){-1});
    init_i64(&g, "c8_16", 1, (const int64_t[]){2}, 2, (const int64_t[]){8, 16});
    const char *const nodes[][3] = {
        {"Shape", "x", "s"},
        {"Gather", "s,i0", "b"},
        {"Unsqueeze", "b,ax0", "bu"},
        {"Concat", "bu,m1", "shape_m1"},
        {"Reshape", "x,shape_m1", "y_m1"}, /* [batch, -1]: runtime */
        {"Concat", "bu,c8_16", "shape_f"},
        {"Reshape", "x,shape_f", "y_fused"}, /* [0, 8, 16] after ReshapeFusion: known */
        {"Gather", "s,i2", "d2"},
        {"Div", "d2,two", "half"},
        {"Unsqueeze", "half,ax0", "hu"},
        {"Unsqueeze", "i2,ax0", "axu"},
        {"Unsqueeze", "i0,ax0", "zu"},
        {"Slice", "x,zu,hu,axu", "y_slice"}, /* ends 8 from Shape(x): runtime */
        {"Shape", "w", "sw"},
        {"Gather", "sw,i1", "w1"},
        {"Unsqueeze", "w1,ax0", "w1u"},
        {"Concat", "m1,w1u", "shape_w"},
        {"Reshape", "x,shape_w", "y_static"}, /* [-1, 32] from a folded Shape: constant */
        {"NonZero", "x", "y_nz"},             /* a data-dependent size */
    };
    for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
        n = node_begin(nodes[k][0], nodes[k][1], nodes[k][2], NULL);
        if (strcmp(nodes[k][0], "Concat") == 0) attr_int(&n, "axis", 0);
        f_msg(&g, 1, &n);
    }
    value_info(&g, 12, "y_m1", 1, -1, NULL);
    value_info(&g, 12, "y_fused", 1, -1, NULL);
    value_info(&g, 12, "y_slice", 1, -1, NULL);
    value_info(&g, 12, "y_static", 1, -1, NULL);
    value_info(&g, 12, "y_nz", 7, -1, NULL);
    pbuf m = model_of(&g, 17);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
    if (!gr) return;
    const char *const runtime[] = {"y_m1", "y_slice"}, *const known[] = {"y_fused", "y_static"};
    for (size_t k = 0; k < 2; k++) {
        const tp_node *a = find(gr, runtime[k]), *b = find(gr, known[k]);
        TP_CHECK(a && b);
        if (a) TP_CHECK((a->flags & TP_NODE_DIMS_AT_RUNTIME) != 0);
        if (b) TP_CHECK((b->flags & TP_NODE_DIMS_AT_RUNTIME) == 0);
    }
    const tp_node *nz = find(gr, "y_nz");
    TP_CHECK(nz && (nz->flags & TP_NODE_DIMS_AT_RUNTIME));
    const tp_node *sl = find(gr, "y_slice");
    char buf[128];
    if (sl) TP_CHECK_STR(tp_graph_shape_str(gr, &sl->shape, buf, sizeof buf), "[batch,8,8]");
    tp_graph_destroy(gr);
}

TP_TEST(multi_output_nodes) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 2, (const char *const[]){"n", "10"});
    init_i64(&g, "k", 1, (const int64_t[]){1}, 1, (const int64_t[]){3});
    n = node_begin("TopK", "x,k", "values,indices", "topk0");
    f_msg(&g, 1, &n);
    n = node_begin("Split", "x", "a,b", "split0");
    attr_int(&n, "axis", 1);
    attr_ints(&n, "split", 2, (const int64_t[]){4, 6});
    f_msg(&g, 1, &n);
    value_info(&g, 12, "indices", 7, 2, (const char *const[]){"n", "3"});
    value_info(&g, 12, "b", 1, 2, (const char *const[]){"n", "6"});
    pbuf m = model_of(&g, 11);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
    if (!gr) return;
    const tp_node *v = find(gr, "values"), *ix = find(gr, "indices"), *a = find(gr, "a"),
                  *b = find(gr, "b");
    TP_CHECK(v && ix && a && b);
    if (v && ix && a && b) {
        TP_CHECK_EQ_I64(v->op.kind, TP_OP_TOPK);
        TP_CHECK_EQ_I64(v->op.attrs.topk.k, 3);
        TP_CHECK_EQ_I64(ix->op.kind, TP_OP_OUTPUT_OF);
        TP_CHECK_EQ_I64(ix->op.attrs.output_of.index, 1);
        TP_CHECK_EQ_I64(ix->dtype, TP_DTYPE_I64);
        TP_CHECK_EQ_I64(ix->inputs[0], (tp_node_id)(v - tp_graph_node(gr, 0)));
        TP_CHECK_EQ_I64(a->op.kind, TP_OP_SPLIT);
        TP_CHECK_EQ_I64(a->shape.dims[1].size, 4);
        TP_CHECK_EQ_I64(b->op.kind, TP_OP_OUTPUT_OF);
        TP_CHECK_EQ_I64(b->shape.dims[1].size, 6);
    }
    tp_graph_destroy(gr);
}

/* Shapes that cannot agree: an error naming node, op and shapes. */
TP_TEST(incompatible_shapes) {
    pbuf g = {0}, n;
    value_info(&g, 11, "a", 1, 2, (const char *const[]){"2", "3"});
    value_info(&g, 11, "b", 1, 2, (const char *const[]){"4", "5"});
    n = node_begin("MatMul", "a,b", "y", "mm0");
    f_msg(&g, 1, &n);
    value_info(&g, 12, "y", 1, -1, NULL);
    pbuf m = model_of(&g, 17);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_STATUS(load(&m, NULL, &gr, &err), TP_ERR_SHAPE);
    TP_CHECK_CONTAINS(err.msg, "mm0");
    TP_CHECK_CONTAINS(err.msg, "MatMul");
    TP_CHECK_CONTAINS(err.msg, "[2,3] f32, [4,5] f32");
}

/* A shape that a graph input carries: symbolic without its value, static with it. */
TP_TEST(graph_input_values) {
    pbuf m;
    tp_graph *gr = NULL;
    tp_error err;
    char buf[128];
    for (int variant = 0; variant < 4; variant++) {
        pbuf g = {0}, n;
        value_info(&g, 11, "x", 1, 2, (const char *const[]){"6", "4"});
        value_info(&g, 11, "shape", 7, 1, (const char *const[]){"3"});
        n = node_begin("Reshape", "x,shape", "y", NULL);
        f_msg(&g, 1, &n);
        value_info(&g, 12, "y", 1, -1, NULL);
        m = model_of(&g, 17);
        tp_onnx_options opt;
        tp_onnx_options_init(&opt);
        const int64_t shape[3] = {2, -1, 3};
        tp_onnx_input_value iv = {variant == 3 ? "nope" : "shape", shape, NULL,
                                  variant == 2 ? 2u : 3u};
        if (variant > 0) {
            opt.input_values = &iv;
            opt.n_input_values = 1;
        }
        tp_status st = load(&m, &opt, &gr, &err);
        if (variant == 2) {
            TP_CHECK_STATUS(st, TP_ERR_SHAPE);
            TP_CHECK_CONTAINS(err.msg, "'shape'");
            continue;
        }
        if (variant == 3) {
            TP_CHECK_STATUS(st, TP_ERR_NOT_FOUND);
            TP_CHECK_CONTAINS(err.msg, "'nope'");
            continue;
        }
        TP_CHECK_OK(st, &err);
        const tp_node *y = gr ? find(gr, "y") : NULL;
        TP_CHECK(y != NULL);
        if (y)
            TP_CHECK_STR(tp_graph_shape_str(gr, &y->shape, buf, sizeof buf),
                         variant == 0 ? "[unk_y_0,unk_y_1,unk_y_2]" : "[2,4,3]");
        const tp_node *sh = gr ? find(gr, "shape") : NULL;
        if (sh) TP_CHECK_EQ_I64(sh->op.kind, TP_OP_INPUT); /* still an input */
        tp_graph_destroy(gr);
        gr = NULL;
    }
}

/* If: the branches are converted; with an unknown condition both are planned
 * one after the other and the output reads both results; a constant
 * condition plans the taken branch only, the output a view of its result. */
static pbuf if_model(bool const_cond) {
    pbuf g = {0}, n, then_g = {0}, else_g = {0}, a;
    value_info(&g, 11, "x", 1, 2, (const char *const[]){"n", "4"});
    if (!const_cond) value_info(&g, 11, "cond", 9, 0, NULL);
    if (const_cond) {
        pbuf t = {0};
        f_int(&t, 2, 9); /* bool */
        f_str(&t, 8, "c");
        f_bytes(&t, 9, "\0", 1);
        a = (pbuf){0};
        f_str(&a, 1, "value");
        f_msg(&a, 5, &t);
        f_int(&a, 20, 4);
        n = node_begin("Constant", "", "cond", NULL);
        f_msg(&n, 5, &a);
        f_msg(&g, 1, &n);
    }
    n = node_begin("Relu", "x", "y", NULL);
    f_msg(&g, 1, &n);
    /* then: Identity(x); else: Neg(y) + w (an initializer of the branch) */
    n = node_begin("Identity", "x", "t_out", NULL);
    f_msg(&then_g, 1, &n);
    f_str(&then_g, 2, "then");
    value_info(&then_g, 12, "t_out", 1, 2, (const char *const[]){"n", "4"});
    n = node_begin("Neg", "y", "e_neg", NULL);
    f_msg(&else_g, 1, &n);
    n = node_begin("Add", "e_neg,w", "e_out", NULL);
    f_msg(&else_g, 1, &n);
    init_f32_raw(&else_g, "w", 1, (const int64_t[]){4});
    f_str(&else_g, 2, "else");
    value_info(&else_g, 12, "e_out", 1, 2, (const char *const[]){"n", "4"});
    n = node_begin("If", "cond", "z", "if0");
    a = (pbuf){0};
    f_str(&a, 1, "then_branch");
    f_msg(&a, 6, &then_g);
    f_int(&a, 20, 5);
    f_msg(&n, 5, &a);
    a = (pbuf){0};
    f_str(&a, 1, "else_branch");
    f_msg(&a, 6, &else_g);
    f_int(&a, 20, 5);
    f_msg(&n, 5, &a);
    f_msg(&g, 1, &n);
    value_info(&g, 12, "z", 1, -1, NULL);
    return model_of(&g, 17);
}

TP_TEST(control_flow_bodies) {
    for (int variant = 0; variant < 2; variant++) {
        /* 0: unknown condition; 1: constant false */
        pbuf m = if_model(variant == 1);
        tp_graph *gr = NULL;
        tp_error err;
        TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
        if (!gr) continue;
        const tp_node *z = find(gr, "z"), *t = find(gr, "t_out"), *e = find(gr, "e_out"),
                      *w = find(gr, "w");
        char buf[64];
        TP_CHECK(z && e && w);
        TP_CHECK_EQ_U64(tp_graph_note_count(gr), 1);
        if (variant == 1) {
            TP_CHECK(t == NULL); /* the then branch is not planned */
            if (z && e) {
                TP_CHECK_EQ_I64(z->op.kind, TP_OP_UNARY); /* a view of e_out */
                TP_CHECK_EQ_U64(z->n_inputs, 1);
                TP_CHECK_EQ_I64(z->inputs[0], (tp_node_id)(e - tp_graph_node(gr, 0)));
            }
            TP_CHECK(strstr(tp_graph_note(gr, 0), "false") != NULL);
        } else {
            TP_CHECK(t != NULL);
            if (z && e && t) {
                TP_CHECK_EQ_I64(z->op.kind, TP_OP_IF);
                TP_CHECK_EQ_U64(z->n_inputs, 2);
                TP_CHECK_EQ_I64(z->inputs[0], (tp_node_id)(t - tp_graph_node(gr, 0)));
                TP_CHECK_EQ_I64(z->inputs[1], (tp_node_id)(e - tp_graph_node(gr, 0)));
                TP_CHECK_STR(tp_graph_shape_str(gr, &z->shape, buf, sizeof buf), "[n,4]");
            }
            TP_CHECK(strstr(tp_graph_note(gr, 0), "not known") != NULL);
        }
        if (w) TP_CHECK_EQ_I64(w->op.kind, TP_OP_PARAM); /* weights in bodies count */
        tp_graph_destroy(gr);
        free(m.p);
    }
}

/* Sizes computed in float from a shape (torch / Paddle): Shape -> Cast(float)
 * -> Mul by 2 or Div by 2 -> Floor / Ceil -> Cast(int64) feeding Resize sizes
 * and ConstantOfShape stay exact symbolic dims. */
static void init_f32_vals(pbuf *g, const char *name, int n, const float *v) {
    pbuf t = {0};
    f_int(&t, 1, n);
    f_int(&t, 2, 1);
    f_str(&t, 8, name);
    f_bytes(&t, 9, v, (size_t)n * sizeof *v);
    f_msg(g, 5, &t);
}

TP_TEST(float_size_arithmetic) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 4, (const char *const[]){"batch", "3", "h", "w"});
    init_f32_vals(&g, "two", 4, (const float[]){1, 1, 2, 2});
    init_f32_vals(&g, "half", 4, (const float[]){1, 1, 2, 2});
    init_f32_vals(&g, "third", 4, (const float[]){1, 1, 1.5f, 1});
    n = node_begin("Shape", "x", "s", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Cast", "s", "sf", NULL);
    attr_int(&n, "to", 1);
    f_msg(&g, 1, &n);
    n = node_begin("Mul", "sf,two", "up", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Floor", "up", "upf", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Cast", "upf", "upi", NULL);
    attr_int(&n, "to", 7);
    f_msg(&g, 1, &n);
    n = node_begin("Resize", "x,-,-,upi", "big", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Div", "sf,half", "down", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Ceil", "down", "downc", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Cast", "downc", "downi", NULL);
    attr_int(&n, "to", 7);
    f_msg(&g, 1, &n);
    n = node_begin("ConstantOfShape", "downi", "small", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Div", "sf,third", "odd", NULL); /* h/1.5 is no dim: unknown */
    f_msg(&g, 1, &n);
    n = node_begin("Cast", "odd", "oddi", NULL);
    attr_int(&n, "to", 7);
    f_msg(&g, 1, &n);
    n = node_begin("ConstantOfShape", "oddi", "unk", NULL);
    f_msg(&g, 1, &n);
    value_info(&g, 12, "big", 1, -1, NULL);
    value_info(&g, 12, "small", 1, -1, NULL);
    value_info(&g, 12, "unk", 1, -1, NULL);
    pbuf m = model_of(&g, 13);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
    if (!gr) return;
    char buf[128];
    const tp_node *big = find(gr, "big"), *small = find(gr, "small"), *unk = find(gr, "unk");
    TP_CHECK(big && small && unk);
    if (big)
        TP_CHECK_STR(tp_graph_shape_str(gr, &big->shape, buf, sizeof buf), "[batch,3,(2*h),(2*w)]");
    if (small)
        TP_CHECK_STR(tp_graph_shape_str(gr, &small->shape, buf, sizeof buf),
                     "[batch,3,ceil(h/2),ceil(w/2)]");
    if (unk) {
        tp_graph_shape_str(gr, &unk->shape, buf, sizeof buf);
        TP_CHECK_STR(buf, "[unk_unk_0,unk_unk_1,unk_unk_2,unk_unk_3]"); /* all or nothing */
    }
    tp_graph_destroy(gr);
}

static void attr_str(pbuf *node, const char *name, const char *v) {
    pbuf a = {0};
    f_str(&a, 1, name);
    f_str(&a, 4, v);
    f_int(&a, 20, 3);
    f_msg(node, 5, &a);
}

/* The forms of Resize onnxruntime 1.30 runs as a copy (int_nearest: nearest, integer scales,
 * asymmetric coordinates, nearest_mode floor) and those its NCHWc layout converts (nchwc: those,
 * and linear with integer scales and asymmetric, half_pixel or align_corners coordinates), as its
 * optimized graphs show (docs/cost.md, "Session 24"), the scales given or from constant sizes. */
TP_TEST(resize_forms_onnxruntime_copies_or_blocks) {
    static const struct {
        const char *mode, *ctm, *nearest_mode, *scales;
        bool int_nearest, nchwc;
    } cases[] = {
        {"nearest", "asymmetric", "floor", "two", true, true},
        {"nearest", "asymmetric", "floor", "three", true, true},
        {"nearest", "asymmetric", NULL, "two", false, false}, /* round_prefer_floor */
        {"nearest", "half_pixel", "floor", "two", false, false},
        {"nearest", "asymmetric", "floor", "half", false, false}, /* 1.5: not an integer */
        {"linear", "half_pixel", NULL, "two", false, true},
        {"linear", "align_corners", NULL, "two", false, true},
        {"linear", "asymmetric", NULL, "two", false, true},
        {"linear", "pytorch_half_pixel", NULL, "two", false, false},
        {"linear", "half_pixel", NULL, "half", false, false},
        {"cubic", "asymmetric", NULL, "two", false, false},
        /* a constant sizes input (session 32: onnxruntime's one-Resize probes and isnet_medium):
           its ratios to the input's dims are the scales */
        {"linear", "half_pixel", NULL, "s16", false, true},
        {"linear", "half_pixel", NULL, "s8", false, true},   /* 1x */
        {"linear", "half_pixel", NULL, "s12", false, false}, /* 1.5x */
        {"nearest", "asymmetric", "floor", "s16", true, true},
        {"nearest", "half_pixel", "floor", "s16", false, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pbuf g = {0}, n;
        value_info(&g, 11, "x", 1, 4, (const char *const[]){"1", "16", "8", "8"});
        init_f32_vals(&g, "two", 4, (const float[]){1, 1, 2, 2});
        init_f32_vals(&g, "three", 4, (const float[]){1, 1, 3, 3});
        init_f32_vals(&g, "half", 4, (const float[]){1, 1, 1.5f, 1.5f});
        init_i64(&g, "s16", 1, (const int64_t[]){4}, 4, (const int64_t[]){1, 16, 16, 16});
        init_i64(&g, "s8", 1, (const int64_t[]){4}, 4, (const int64_t[]){1, 16, 8, 8});
        init_i64(&g, "s12", 1, (const int64_t[]){4}, 4, (const int64_t[]){1, 16, 12, 12});
        char ins[32];
        snprintf(ins, sizeof ins, cases[k].scales[0] == 's' ? "x,-,-,%s" : "x,-,%s",
                 cases[k].scales);
        n = node_begin("Resize", ins, "y", NULL);
        attr_str(&n, "mode", cases[k].mode);
        attr_str(&n, "coordinate_transformation_mode", cases[k].ctm);
        if (cases[k].nearest_mode) attr_str(&n, "nearest_mode", cases[k].nearest_mode);
        f_msg(&g, 1, &n);
        value_info(&g, 12, "y", 1, -1, NULL);
        const tp_node *y = NULL;
        tp_graph *gr = load_graph_find(&g, "y", &y);
        if (y) {
            TP_CHECK_EQ_I64(y->op.attrs.resize.int_nearest, cases[k].int_nearest);
            TP_CHECK_EQ_I64(y->op.attrs.resize.nchwc, cases[k].nchwc);
        }
        tp_graph_destroy(gr);
    }
}

/* PRelu imports as its own binary function (the cost model prices onnxruntime's scalar loop for
   it), X's shape whatever the slope's (here one per channel, [16, 1, 1]). */
TP_TEST(prelu_imports_as_its_own_function) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 4, (const char *const[]){"1", "16", "8", "8"});
    init_f32_raw(&g, "slope", 3, (const int64_t[]){16, 1, 1});
    n = node_begin("PRelu", "x,slope", "y", NULL);
    f_msg(&g, 1, &n);
    value_info(&g, 12, "y", 1, -1, NULL);
    const tp_node *y = NULL;
    tp_graph *gr = load_graph_find(&g, "y", &y);
    if (y) {
        TP_CHECK_EQ_I64(y->op.kind, TP_OP_BINARY);
        TP_CHECK_EQ_I64(y->op.sub, TP_BINARY_PRELU);
        TP_CHECK_EQ_I64(y->shape.rank, 4);
        TP_CHECK_STR(tp_op_name(&y->op), "binary.prelu");
    }
    tp_graph_destroy(gr);
}

/* Einsum: the axis roles of a contraction of two operands (attention's q·kᵀ and scores·v as
   maxvit_t writes them, a batched matmul under "...", the implicit output), none for what is no
   contraction (one operand, a diagonal, a letter summed within one operand). */
TP_TEST(einsum_contractions_have_axis_roles) {
    enum { B_ = TP_EINSUM_BATCH, M_ = TP_EINSUM_ROWS, N_ = TP_EINSUM_COLS, K_ = TP_EINSUM_SUM };
    static const struct {
        const char *eq, *a_dims, *b_dims; /* "-": one operand */
        int8_t ra[5], rb[5];              /* -1: no role expected (not a contraction) */
    } cases[] = {
        {"BGHID,BGHJD->BGHIJ",
         "2,3,4,5,6",
         "2,3,4,7,6",
         {B_, B_, B_, M_, K_},
         {B_, B_, B_, N_, K_}},
        {"BGHIJ,BGHJD->BGHID",
         "2,3,4,5,7",
         "2,3,4,7,6",
         {B_, B_, B_, M_, K_},
         {B_, B_, B_, K_, N_}},
        {"...ik,...kj->...ij", "2,3,5,6", "2,3,6,7", {B_, B_, M_, K_}, {B_, B_, K_, N_}},
        {"ik,kj", "5,6", "6,7", {M_, K_}, {K_, N_}},
        {"ij->ji", "5,6", "-", {-1}, {-1}},
        {"ii,ij->ij", "5,5", "5,6", {-1}, {-1}},
        {"ik,jl->ij", "5,6", "7,8", {-1}, {-1}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pbuf g = {0}, n;
        const char *ad[5] = {0}, *bd[5] = {0};
        char abuf[32], bbuf[32];
        snprintf(abuf, sizeof abuf, "%s", cases[k].a_dims);
        snprintf(bbuf, sizeof bbuf, "%s", cases[k].b_dims);
        int ra = 0, rb = 0;
        for (char *t = strtok(abuf, ","); t; t = strtok(NULL, ","))
            ad[ra++] = t;
        bool two = strcmp(cases[k].b_dims, "-") != 0;
        value_info(&g, 11, "a", 1, ra, ad);
        if (two) {
            for (char *t = strtok(bbuf, ","); t; t = strtok(NULL, ","))
                bd[rb++] = t;
            value_info(&g, 11, "b", 1, rb, bd);
        }
        n = node_begin("Einsum", two ? "a,b" : "a", "y", NULL);
        attr_str(&n, "equation", cases[k].eq);
        f_msg(&g, 1, &n);
        value_info(&g, 12, "y", 1, -1, NULL);
        const tp_node *y = NULL;
        tp_graph *gr = load_graph_find(&g, "y", &y);
        TP_CHECK(!y || y->op.kind == TP_OP_CUSTOM);
        if (y && y->op.kind == TP_OP_CUSTOM) {
            for (int i = 0; i < TP_MAX_RANK; i++) {
                int want_a = cases[k].ra[0] < 0 || i >= ra ? 0 : cases[k].ra[i];
                int want_b = cases[k].rb[0] < 0 || i >= rb ? 0 : cases[k].rb[i];
                TP_CHECK_EQ_I64(y->op.attrs.custom.einsum_role[0][i], want_a);
                TP_CHECK_EQ_I64(y->op.attrs.custom.einsum_role[1][i], want_b);
            }
        }
        tp_graph_destroy(gr);
    }
}

/* Sequences: x [n,6] split into parts of 1, 2, 3 along axis 1; SequenceAt at 2
 * (exact) and at an index only known at run time (the largest part); the last
 * part erased; ConcatFromSequence; SequenceInsert of x; a sequence given to Add
 * (bad_use) is an error. */
static pbuf seq_model(bool bad_use) {
    pbuf g = {0}, n;
    const char *const xd[] = {"n", "6"};
    value_info(&g, 11, "x", 1, 2, xd);
    value_info(&g, 11, "j", 7, 0, NULL);
    init_i64(&g, "parts", 1, (const int64_t[]){3}, 3, (const int64_t[]){1, 2, 3});
    init_i64(&g, "two", 0, NULL, 1, (const int64_t[]){2});
    n = node_begin("SplitToSequence", "x,parts", "s", "split");
    attr_int(&n, "axis", 1);
    f_msg(&g, 1, &n);
    n = node_begin("SequenceAt", "s,two", "a", "at2");
    f_msg(&g, 1, &n);
    n = node_begin("SequenceAt", "s,j", "b", "atj");
    f_msg(&g, 1, &n);
    n = node_begin("SequenceErase", "s", "s2", "erase");
    f_msg(&g, 1, &n);
    n = node_begin("SequenceLength", "s2", "len", "len");
    f_msg(&g, 1, &n);
    n = node_begin("ConcatFromSequence", "s2", "c", "cat");
    attr_int(&n, "axis", 1);
    f_msg(&g, 1, &n);
    n = node_begin("SequenceInsert", "s2,x", "s3", "insert");
    f_msg(&g, 1, &n);
    if (bad_use) {
        n = node_begin("Add", "s3,x", "bad", "bad");
        f_msg(&g, 1, &n);
    }
    const char *const od[] = {"n", "3"};
    value_info(&g, 12, "c", 1, 2, od);
    return model_of(&g, 17);
}

TP_TEST(sequences) {
    pbuf m = seq_model(false);
    sweep_model(&m);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
    if (gr) {
        char buf[64];
        const char *want[][2] = {{"a", "[n,3]"}, {"b", "[n,3]"}, {"c", "[n,3]"}, {"len", "[]"}};
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            const tp_node *v = find(gr, want[i][0]);
            TP_CHECK(v != NULL);
            if (v) TP_CHECK_STR(tp_graph_shape_str(gr, &v->shape, buf, sizeof buf), want[i][1]);
        }
        /* the sequences hold every element: s = 6n, s2 = 3n, s3 = 9n elements */
        TP_CHECK_OK(tp_graph_bind(gr, "n", 4, &err), &err);
        const char *seqs[] = {"s", "s2", "s3"};
        const int64_t total[] = {24, 12, 36};
        for (int i = 0; i < 3; i++) {
            const tp_node *v = find(gr, seqs[i]);
            int64_t e = -1;
            TP_CHECK(v && v->shape.rank == 1);
            if (v && v->shape.rank == 1) tp_graph_dim_value(gr, v->shape.dims[0], &e, NULL);
            TP_CHECK_EQ_I64(e, total[i]);
        }
        tp_graph_destroy(gr);
    }
    m = seq_model(true);
    gr = NULL;
    TP_CHECK_EQ_I64(load(&m, NULL, &gr, &err), TP_ERR_SHAPE);
    TP_CHECK(gr == NULL && strstr(err.msg, "'s3' is a sequence") != NULL);
}

/* A sequence-typed ValueInfoProto (float elements, no shape). */
static void seq_value_info(pbuf *g, uint32_t field, const char *name) {
    pbuf vi = {0}, type = {0}, seq = {0}, elem = {0}, tensor = {0};
    f_int(&tensor, 1, 1);
    f_msg(&elem, 1, &tensor);
    f_msg(&seq, 1, &elem);
    f_msg(&type, 4, &seq);
    f_str(&vi, 1, name);
    f_msg(&vi, 2, &type);
    f_msg(g, field, &vi);
}

static void graph_attr(pbuf *node, const char *name, pbuf *body) {
    pbuf a = {0};
    f_str(&a, 1, name);
    f_msg(&a, 6, body);
    f_int(&a, 20, 5);
    f_msg(node, 5, &a);
}

/* If on an unknown condition whose branches give sequences of different shapes
 * and lengths (then: [x] with x [2,3]; else: [y, y] with y [4,3]): the output
 * is an upper bound of either, two elements of [4,3]. */
TP_TEST(if_merges_sequences) {
    pbuf g = {0}, n, then_g = {0}, else_g = {0};
    value_info(&g, 11, "x", 1, 2, (const char *const[]){"2", "3"});
    value_info(&g, 11, "y", 1, 2, (const char *const[]){"4", "3"});
    value_info(&g, 11, "cond", 9, 0, NULL);
    init_i64(&g, "zero", 0, NULL, 1, (const int64_t[]){0});
    n = node_begin("SequenceConstruct", "x", "ts", NULL);
    f_msg(&then_g, 1, &n);
    f_str(&then_g, 2, "then");
    seq_value_info(&then_g, 12, "ts");
    n = node_begin("SequenceConstruct", "y,y", "es", NULL);
    f_msg(&else_g, 1, &n);
    f_str(&else_g, 2, "else");
    seq_value_info(&else_g, 12, "es");
    n = node_begin("If", "cond", "s", "if0");
    graph_attr(&n, "then_branch", &then_g);
    graph_attr(&n, "else_branch", &else_g);
    f_msg(&g, 1, &n);
    n = node_begin("SequenceAt", "s,zero", "a", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("ConcatFromSequence", "s", "c", NULL);
    attr_int(&n, "axis", 0);
    f_msg(&g, 1, &n);
    n = node_begin("SequenceLength", "s", "len", NULL);
    f_msg(&g, 1, &n);
    value_info(&g, 12, "c", 1, -1, NULL);
    pbuf m = model_of(&g, 17);
    sweep_model(&m);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
    if (!gr) return;
    char buf[64];
    const tp_node *a = find(gr, "a"), *c = find(gr, "c"), *s = find(gr, "s");
    TP_CHECK(a && c && s);
    if (a) TP_CHECK_STR(tp_graph_shape_str(gr, &a->shape, buf, sizeof buf), "[4,3]");
    if (c) TP_CHECK_STR(tp_graph_shape_str(gr, &c->shape, buf, sizeof buf), "[8,3]");
    if (s) TP_CHECK_STR(tp_graph_shape_str(gr, &s->shape, buf, sizeof buf), "[24]");
    tp_graph_destroy(gr);
}

/* Every allocation failure is reported as NOMEM and leaks nothing. */
static void sweep_model(const pbuf *mp) {
    TP_CHECK(tp_test_onnx_alloc_sweep("model", mp->p, mp->n, NULL) > 10);
}

TP_TEST(allocation_failure_sweep) {
    for (int which = 0; which < 2; which++) {
        pbuf m = which ? if_model(false) : conv_model(NULL, false, false);
        sweep_model(&m);
        free(m.p);
    }
}

/* Each named node exists and has `flag` set (or, with set false, clear). */
static void flags_are(tp_graph *g, const char *const *names, size_t n, uint32_t flag, bool set) {
    for (size_t k = 0; k < n; k++) {
        const tp_node *x = find(g, names[k]);
        TP_CHECK(x && ((x->flags & flag) != 0) == set);
    }
}

/* A Softmax over scores plus a mask filled with a value in exp's denormal band (Swin's -100)
 * writes denormals (TP_NODE_DENORMAL_OUT), and so does the Dropout that passes them on to the
 * MatMul; a fill of -1e4 (exp gives zeros) or a mask scaled by a Mul (the value is not known)
 * does not. Both fills underflow exp() in the Softmax (TP_NODE_EXP_UNDERFLOW); the scaled mask
 * does not say so. */
TP_TEST(denormal_attention_mask) {
    pbuf g = {0}, n;
    value_info(&g, 11, "s", 1, 3, (const char *const[]){"2", "4", "4"});
    value_info(&g, 11, "cond", 9, 2, (const char *const[]){"4", "4"});
    value_info(&g, 11, "v", 1, 3, (const char *const[]){"2", "4", "8"});
    init_f32_vals(&g, "neg100", 1, (const float[]){-100.0f});
    init_f32_vals(&g, "neg1e4", 1, (const float[]){-1e4f});
    init_f32_vals(&g, "zero", 1, (const float[]){0.0f});
    init_f32_vals(&g, "two", 1, (const float[]){2.0f});
    const char *const nodes[][3] = {
        {"Where", "cond,neg100,zero", "mask"},
        {"Add", "s,mask", "a"},
        {"Softmax", "a", "p"},
        {"Dropout", "p", "pd"},
        {"MatMul", "pd,v", "y"},
        {"Where", "cond,neg1e4,zero", "mask2"},
        {"Add", "s,mask2", "a2"},
        {"Softmax", "a2", "p2"},
        {"Mul", "mask,two", "mask3"},
        {"Add", "s,mask3", "a3"},
        {"Softmax", "a3", "p3"},
    };
    for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
        n = node_begin(nodes[k][0], nodes[k][1], nodes[k][2], NULL);
        if (strcmp(nodes[k][0], "Softmax") == 0) attr_int(&n, "axis", -1);
        f_msg(&g, 1, &n);
    }
    value_info(&g, 12, "y", 1, -1, NULL);
    value_info(&g, 12, "p2", 1, -1, NULL);
    value_info(&g, 12, "p3", 1, -1, NULL);
    pbuf m = model_of(&g, 17);
    tp_graph *gr = NULL;
    tp_error err;
    TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
    if (!gr) return;
    flags_are(gr, (const char *const[]){"p", "pd"}, 2, TP_NODE_DENORMAL_OUT, true);
    flags_are(gr, (const char *const[]){"y", "p2", "p3", "a"}, 4, TP_NODE_DENORMAL_OUT, false);
    flags_are(gr, (const char *const[]){"p", "p2"}, 2, TP_NODE_EXP_UNDERFLOW, true);
    flags_are(gr, (const char *const[]){"pd", "p3", "y"}, 3, TP_NODE_EXP_UNDERFLOW, false);
    /* a note per fill value: -100 with onnxruntime's option that avoids it, -1e4 */
    TP_CHECK_EQ_U64(tp_graph_note_count(gr), 2);
    if (tp_graph_note_count(gr) == 2) {
        TP_CHECK_CONTAINS(tp_graph_note(gr, 0), "mask filled with -100,");
        TP_CHECK_CONTAINS(tp_graph_note(gr, 0), "session.set_denormal_as_zero");
        TP_CHECK_CONTAINS(tp_graph_note(gr, 1), "mask filled with -10000:");
    }
    tp_graph_destroy(gr);
}

/* A mask too large to be value-tracked (a module's registered buffer: 40 x 40 scores) is read
 * where an Add carries it to a Softmax: -inf above the diagonal underflows exp()
 * (TP_NODE_EXP_UNDERFLOW), -100 also writes denormals, a mask of zeros and 0.5s neither; the
 * same -inf mask in an external data file is read from it when the model came from a file. */
/* Values reduced whole (torchvision's detection transform pads to ReduceMax of a constant; its
 * topk takes ReduceMin(k, the axis's length)), and nodes of more than 64 inputs (SSDlite's Concat
 * of its 90 classes' results). */
static tp_node_id idof(tp_graph *g, const char *name) {
    tp_node_id id;
    return tp_graph_find(g, name, &id, NULL) == TP_OK ? id : -1;
}

/* A zero-filled initializer of ONNX element type `elem` (bytes per element `esz`), raw_data. */
static void init_zeros(pbuf *g, const char *name, int elem, size_t esz, int rank,
                       const int64_t *dims) {
    pbuf t = {0};
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        f_int(&t, 1, dims[i]);
        n *= (size_t)dims[i];
    }
    f_int(&t, 2, elem);
    f_str(&t, 8, name);
    void *z = calloc(n ? n : 1, esz);
    f_bytes(&t, 9, z, n * esz);
    free(z);
    f_msg(g, 5, &t);
}

/* Quantized models as onnxruntime's quantization tool writes them (docs/cost.md, "Integer matrix
 * products"): MatMulInteger and QLinearConv are IR products of their 8-bit operands, priced by
 * their multiply-adds at the u8 × s8 rate; a Conv between DequantizeLinear and QuantizeLinear
 * nodes is a QDQ group (ort_qdq.h): the DQ / Q nodes run no kernel and write no tensor but the
 * 8-bit output, and the Conv is priced on 8-bit operands. */
/* A Resize whose scales are known only at run time (a graph input here; a quantized model's
 * dequantized scales in heldout20's first yolo_like_qdq) has unknown sizes: no IR resize, whose
 * rule would read scales of 1 and give the input's sizes. */
TP_TEST(resize_of_runtime_scales) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 4, (const char *const[]){"1", "4", "5", "5"});
    value_info(&g, 11, "scales", 1, 1, (const char *const[]){"4"});
    n = node_begin("Resize", "x,-,scales", "y", NULL);
    f_msg(&g, 1, &n);
    const tp_node *y = NULL;
    tp_graph *gr = load_graph_find(&g, "y", &y);
    if (!gr || !y) {
        tp_graph_destroy(gr);
        return;
    }
    TP_CHECK(y->op.kind != TP_OP_RESIZE);
    for (int32_t k = 0; k < y->shape.rank; k++)
        TP_CHECK(!tp_dim_is_static(y->shape.dims[k]));
    tp_graph_destroy(gr);
}

TP_TEST(quantized_products) {
    enum { U8 = 2, I8 = 3, I32 = 6, F32 = 1 };
    pbuf g = {0}, n;
    value_info(&g, 11, "a", U8, 2, (const char *const[]){"4", "64"});
    init_zeros(&g, "w", I8, 1, 2, (const int64_t[]){64, 32});
    init_zeros(&g, "azp", U8, 1, 0, NULL);
    init_zeros(&g, "wzp", I8, 1, 0, NULL);
    n = node_begin("MatMulInteger", "a,w,azp,wzp", "mmi", NULL);
    f_msg(&g, 1, &n);
    value_info(&g, 11, "xq", U8, 4, (const char *const[]){"1", "8", "6", "6"});
    init_zeros(&g, "sc", F32, 4, 0, NULL);
    init_zeros(&g, "cw", I8, 1, 4, (const int64_t[]){16, 8, 3, 3});
    init_zeros(&g, "cb", I32, 4, 1, (const int64_t[]){16});
    n = node_begin("QLinearConv", "xq,sc,azp,cw,sc,wzp,sc,azp,cb", "qconv", NULL);
    f_msg(&g, 1, &n);
    /* uint8 weights: qlinearconv.cc's im2col path, not the symmetric one */
    init_zeros(&g, "cwu", U8, 1, 4, (const int64_t[]){16, 8, 3, 3});
    n = node_begin("QLinearConv", "xq,sc,azp,cwu,sc,azp,sc,azp,cb", "qconvu", NULL);
    f_msg(&g, 1, &n);
    /* a ConvInteger of int8 weights: another path in onnxruntime, noted as not priced */
    n = node_begin("ConvInteger", "xq,cw,azp,wzp", "convi", NULL);
    f_msg(&g, 1, &n);
    /* the QDQ group: Q(x) -> DQ -> Conv(DQ(w), DQ(bias)) -> Q -> DQ */
    value_info(&g, 11, "x", F32, 4, (const char *const[]){"1", "8", "6", "6"});
    n = node_begin("QuantizeLinear", "x,sc,azp", "x_q", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("DequantizeLinear", "x_q,sc,azp", "x_dq", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("DequantizeLinear", "cw,sc,wzp", "w_dq", NULL);
    f_msg(&g, 1, &n);
    init_zeros(&g, "bzp", I32, 4, 0, NULL);
    n = node_begin("DequantizeLinear", "cb,sc,bzp", "b_dq", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Conv", "x_dq,w_dq,b_dq", "c", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("QuantizeLinear", "c,sc,azp", "c_q", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("DequantizeLinear", "c_q,sc,azp", "y", NULL);
    f_msg(&g, 1, &n);
    value_info(&g, 12, "mmi", I32, 2, (const char *const[]){"4", "32"});
    value_info(&g, 12, "qconv", U8, 4, (const char *const[]){"1", "16", "4", "4"});
    value_info(&g, 12, "y", F32, 4, (const char *const[]){"1", "16", "4", "4"});
    value_info(&g, 12, "convi", I32, 4, (const char *const[]){"1", "16", "4", "4"});
    value_info(&g, 12, "qconvu", U8, 4, (const char *const[]){"1", "16", "4", "4"});
    const tp_node *mmi = NULL;
    tp_graph *gr = load_graph_find(&g, "mmi", &mmi);
    if (!gr || !mmi) {
        tp_graph_destroy(gr);
        return;
    }
    const tp_node *qconv = find(gr, "qconv"), *c = find(gr, "c");
    TP_CHECK(qconv && c);
    if (!qconv || !c) goto out;
    TP_CHECK_EQ_I64(mmi->op.kind, TP_OP_MATMUL);
    TP_CHECK_EQ_I64(mmi->dtype, TP_DTYPE_I32);
    TP_CHECK_EQ_U64(mmi->n_inputs, 2);
    TP_CHECK_EQ_I64(qconv->op.kind, TP_OP_CONV);
    TP_CHECK_EQ_U64(tp_graph_note_count(gr), 1);
    TP_CHECK_CONTAINS(tp_graph_note(gr, 0), "ConvInteger has int8 weights");
    TP_CHECK_EQ_I64(qconv->dtype, TP_DTYPE_U8);
    TP_CHECK_EQ_U64(qconv->n_inputs, 2);
    tp_error err;
    tp_op_cost oc;
    TP_CHECK_OK(tp_op_account(gr, idof(gr, "mmi"), &oc, &err), &err);
    TP_CHECK_EQ_U64(oc.flops, 2 * 4 * 64 * 32);
    TP_CHECK_EQ_I64(oc.compute_dtype, TP_DTYPE_I8); /* u8 activations by int8 weights */
    TP_CHECK_EQ_U64(oc.pack_b_elems, 0);            /* a constant B: packed at load */
    TP_CHECK_OK(tp_op_account(gr, idof(gr, "qconv"), &oc, &err), &err);
    TP_CHECK_EQ_U64(oc.flops, 2ull * 16 * 4 * 4 * 8 * 9);
    TP_CHECK_EQ_I64(oc.compute_dtype, TP_DTYPE_I8);
    TP_CHECK(oc.direct_quant); /* QLinearConv of int8 weights: no column buffer */
    TP_CHECK_OK(tp_op_account(gr, idof(gr, "qconvu"), &oc, &err), &err);
    TP_CHECK_EQ_I64(oc.compute_dtype, TP_DTYPE_U8);
    TP_CHECK(!oc.direct_quant); /* uint8 weights: an im2col */
    /* the QDQ group */
    tp_ort_xform x;
    TP_CHECK_OK(tp_ort_xform_compute(gr, 8, &x, &err), &err);
    const char *dq[] = {"x_dq", "w_dq", "b_dq"};
    for (int i = 0; i < 3; i++) {
        tp_node_id d = idof(gr, dq[i]);
        TP_CHECK(d >= 0 && x.qdq[d] == TP_ORT_QDQ_DQ && x.absorbed[d]);
    }
    const tp_node *cq = find(gr, "c_q"), *xq = find(gr, "x_q"), *y = find(gr, "y");
    TP_CHECK(cq && xq && y);
    if (!cq || !xq || !y) {
        tp_ort_xform_free(gr, &x);
        goto out;
    }
    TP_CHECK(x.qdq[idof(gr, "c")] == TP_ORT_QDQ_TARGET && x.absorbed[idof(gr, "c")] &&
             !x.chain[idof(gr, "c")]);
    TP_CHECK(x.qdq[idof(gr, "c_q")] == TP_ORT_QDQ_OUT && !x.absorbed[idof(gr, "c_q")]);
    TP_CHECK(x.qdq[idof(gr, "x_q")] == TP_ORT_QDQ_NONE && x.qdq[idof(gr, "y")] == TP_ORT_QDQ_NONE);
    TP_CHECK_EQ_I64(tp_ort_qdq_source(gr, c, 0), idof(gr, "x_q"));
    tp_ort_xform_free(gr, &x);
    tp_device_model cpu;
    tp_device_model_default(TP_DEVICE_CPU, &cpu);
    tp_graph_cost gc;
    TP_CHECK_OK(tp_graph_cost_compute(gr, &cpu, NULL, NULL, &gc, &err), &err);
    const tp_node_cost *nc = &gc.nodes[idof(gr, "c")];
    TP_CHECK(!nc->fused && nc->flops > 0);
    /* its bytes: the 8-bit input, weights and output, the int32 bias */
    TP_CHECK_EQ_U64(nc->bytes, 8 * 36 + 16 * 8 * 9 + 16 * 4 + 16 * 16);
    for (int i = 0; i < 3; i++) /* no kernel (the constants' are folded at load anyway) */
        TP_CHECK(gc.nodes[idof(gr, dq[i])].total_ns == 0);
    TP_CHECK(gc.nodes[idof(gr, "c_q")].fused);
    TP_CHECK(!gc.nodes[idof(gr, "x_q")].fused && !gc.nodes[idof(gr, "y")].fused);
    tp_graph_cost_destroy(&gc);
out:
    tp_graph_destroy(gr);
}

TP_TEST(reduced_values_and_many_inputs) {
    pbuf g = {0}, n;
    value_info(&g, 11, "x", 1, 2, (const char *const[]){"40", "40"});
    init_i64(&g, "sizes", 1, (const int64_t[]){2}, 2, (const int64_t[]){320, 300});
    init_i64(&g, "k300", 1, (const int64_t[]){1}, 1, (const int64_t[]){300});
    init_i64(&g, "one", 0, NULL, 1, (const int64_t[]){1});
    init_i64(&g, "ax0", 1, (const int64_t[]){1}, 1, (const int64_t[]){0});
    init_i64(&g, "m1", 1, (const int64_t[]){1}, 1, (const int64_t[]){-1});
    /* ReduceMax of a constant sizes a Reshape: [1600] -> [320, 5] */
    n = node_begin("ReduceMax", "sizes", "mx", NULL);
    attr_int(&n, "keepdims", 1);
    f_msg(&g, 1, &n);
    n = node_begin("Concat", "mx,m1", "shp", NULL);
    attr_int(&n, "axis", 0);
    f_msg(&g, 1, &n);
    n = node_begin("Reshape", "x,shp", "r", NULL);
    f_msg(&g, 1, &n);
    /* min(300, the count of nonzeros) as TopK's k: at most 300 whatever the bound */
    n = node_begin("NonZero", "x", "nz", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Shape", "nz", "nzs", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Gather", "nzs,one", "cnt", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Unsqueeze", "cnt,ax0", "cntu", NULL);
    f_msg(&g, 1, &n);
    n = node_begin("Concat", "k300,cntu", "kk", NULL);
    attr_int(&n, "axis", 0);
    f_msg(&g, 1, &n);
    n = node_begin("ReduceMin", "kk", "k", NULL);
    attr_int(&n, "keepdims", 1);
    f_msg(&g, 1, &n);
    n = node_begin("TopK", "nz,k", "top,topi", NULL);
    f_msg(&g, 1, &n);
    /* 70 inputs: a Concat and a Sum of them */
    pbuf cat = {0}, sum = {0};
    for (int i = 0; i < 70; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        init_i64(&g, name, 1, (const int64_t[]){2}, 2, (const int64_t[]){i, i});
        f_str(&cat, 1, name);
        f_str(&sum, 1, name);
    }
    f_str(&cat, 2, "cat70");
    f_str(&cat, 4, "Concat");
    attr_int(&cat, "axis", 0);
    f_msg(&g, 1, &cat);
    f_str(&sum, 2, "sum70");
    f_str(&sum, 4, "Sum");
    f_msg(&g, 1, &sum);
    const tp_node *r = NULL;
    tp_graph *gr = load_graph_find(&g, "r", &r);
    if (!gr || !r) {
        tp_graph_destroy(gr);
        return;
    }
    char buf[128];
    TP_CHECK_STR(tp_graph_shape_str(gr, &r->shape, buf, sizeof buf), "[320,5]");
    const tp_node *top = find(gr, "top"), *cat70 = find(gr, "cat70"), *sum70 = find(gr, "sum70");
    TP_CHECK(top && cat70 && sum70);
    tp_error err;
    int64_t v = 0;
    if (top) { /* the bound of the nonzeros is 1600: k is 300 */
        TP_CHECK_OK(tp_graph_dim_value(gr, top->shape.dims[1], &v, &err), &err);
        TP_CHECK_EQ_I64(v, 300);
    }
    if (cat70) TP_CHECK_STR(tp_graph_shape_str(gr, &cat70->shape, buf, sizeof buf), "[140]");
    if (sum70) TP_CHECK_STR(tp_graph_shape_str(gr, &sum70->shape, buf, sizeof buf), "[2]");
    tp_graph_destroy(gr);
}

TP_TEST(registered_buffer_mask) {
    enum { S = 40 };
    static float causal[S * S], band[S * S], plain[S * S];
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++) {
            causal[i * S + j] = j > i ? -INFINITY : 0.0f;
            band[i * S + j] = j > i ? -100.0f : 0.0f;
            plain[i * S + j] = j > i ? 0.5f : 0.0f;
        }
    const int64_t dims[] = {1, S, S};
    const char *const names[] = {"causal", "band", "plain"};
    const float *const vals[] = {causal, band, plain};
    for (int ext = 0; ext < 2; ext++) {
        pbuf g = {0}, n;
        value_info(&g, 11, "s", 1, 4, (const char *const[]){"2", "4", "40", "40"});
        for (int k = 0; k < 3; k++) {
            char a[16], p[16];
            snprintf(a, sizeof a, "a%d", k);
            snprintf(p, sizeof p, "p%d", k);
            init_f32_tensor(&g, names[k], 3, dims, vals[k], ext && k == 0 ? "mask.bin" : NULL);
            char ins[32];
            snprintf(ins, sizeof ins, "s,%s", names[k]);
            n = node_begin("Add", ins, a, NULL);
            f_msg(&g, 1, &n);
            n = node_begin("Softmax", a, p, NULL);
            attr_int(&n, "axis", -1);
            f_msg(&g, 1, &n);
            value_info(&g, 12, p, 1, -1, NULL);
        }
        pbuf m = model_of(&g, 17);
        tp_graph *gr = NULL;
        tp_error err;
        char dir[] = "/tmp/tp_mask_ext_XXXXXX", path[64];
        if (!ext) {
            TP_CHECK_OK(load(&m, NULL, &gr, &err), &err);
        } else {
            TP_CHECK(mkdtemp(dir) != NULL);
            snprintf(path, sizeof path, "%s/mask.bin", dir);
            FILE *f = fopen(path, "wb");
            TP_CHECK(f && fwrite(causal, sizeof causal, 1, f) == 1);
            if (f) fclose(f);
            snprintf(path, sizeof path, "%s/m.onnx", dir);
            f = fopen(path, "wb");
            TP_CHECK(f && fwrite(m.p, m.n, 1, f) == 1);
            if (f) fclose(f);
            free(m.p);
            TP_CHECK_OK(tp_onnx_load(path, NULL, NULL, &gr, &err), &err);
            remove(path);
            snprintf(path, sizeof path, "%s/mask.bin", dir);
            remove(path);
            rmdir(dir);
        }
        if (!gr) return;
        const tp_node *p0 = find(gr, "p0"), *p1 = find(gr, "p1"), *p2 = find(gr, "p2");
        TP_CHECK(p0 && p1 && p2);
        if (p0 && p1 && p2) {
            TP_CHECK_EQ_U64(p0->flags & (TP_NODE_EXP_UNDERFLOW | TP_NODE_DENORMAL_OUT),
                            TP_NODE_EXP_UNDERFLOW);
            TP_CHECK_EQ_U64(p1->flags & (TP_NODE_EXP_UNDERFLOW | TP_NODE_DENORMAL_OUT),
                            TP_NODE_EXP_UNDERFLOW | TP_NODE_DENORMAL_OUT);
            TP_CHECK_EQ_U64(p2->flags & (TP_NODE_EXP_UNDERFLOW | TP_NODE_DENORMAL_OUT), 0);
        }
        tp_graph_destroy(gr);
    }
}

int main(void) {
    TP_RUN(mapping_rules);
    TP_RUN(unsupported_op_names_context);
    TP_RUN(allow_unknown_ops_uses_value_info);
    TP_RUN(value_info_mismatch_is_an_error);
    TP_RUN(missing_input_is_an_error);
    TP_RUN(value_propagation_feeds_reshape);
    TP_RUN(dims_computed_at_run_time_for_onnxruntime);
    TP_RUN(multi_output_nodes);
    TP_RUN(incompatible_shapes);
    TP_RUN(control_flow_bodies);
    TP_RUN(graph_input_values);
    TP_RUN(float_size_arithmetic);
    TP_RUN(resize_forms_onnxruntime_copies_or_blocks);
    TP_RUN(einsum_contractions_have_axis_roles);
    TP_RUN(prelu_imports_as_its_own_function);
    TP_RUN(denormal_attention_mask);
    TP_RUN(registered_buffer_mask);
    TP_RUN(reduced_values_and_many_inputs);
    TP_RUN(quantized_products);
    TP_RUN(resize_of_runtime_scales);
    TP_RUN(allocation_failure_sweep);
    TP_RUN(sequences);
    TP_RUN(if_merges_sequences);
    return tp_test_finish();
}
