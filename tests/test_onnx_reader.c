/* The ONNX reader: every ONNX message from hand-encoded bytes (tests/pb_encode.h),
 * bad input of every kind (each a clear error naming the file offset), external
 * data, nested graphs, model info, allocation-failure sweeps, the load entry
 * points, real files from libonnx-testdata and a sparse file over 2 GiB. The wire
 * level is tested in test_pb_wire.c. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "import/onnx_model.h"
#include "pb_encode.h"

/* A small model: input x[batch,3], initializer w[2,3] (raw floats), a node
 * Gemm(x, w, "") with attributes of every scalar/list kind, output y. */
static buf small_model(void) {
    buf m = {0}, g = {0}, op = {0}, n = {0}, a = {0};
    b_int(&m, 1, 8);
    b_str(&m, 2, "hand");
    b_str(&m, 3, "1.0");
    b_str(&op, 1, "");
    b_int(&op, 2, 17);
    b_msg(&m, 8, &op);
    b_str(&op, 1, "com.microsoft");
    b_int(&op, 2, 1);
    b_msg(&m, 8, &op);

    b_str(&n, 1, "x");
    b_str(&n, 1, "w");
    b_str(&n, 1, "");
    b_str(&n, 2, "y");
    b_str(&n, 3, "gemm0");
    b_str(&n, 4, "Gemm");
    a = attr_int("transB", 1);
    b_msg(&n, 5, &a);
    b_str(&a, 1, "alpha");
    b_int(&a, 20, TP_ONNX_ATTR_FLOAT);
    b_f32(&a, 2, 0.5f);
    b_msg(&n, 5, &a);
    b_str(&a, 1, "mode");
    b_int(&a, 20, TP_ONNX_ATTR_STRING);
    b_str(&a, 4, "nearest");
    b_msg(&n, 5, &a);
    b_str(&a, 1, "perm"); /* packed ints, no type field: inferred */
    b_packed_ints(&a, 8, (int64_t[]){2, -1, 300}, 3);
    b_msg(&n, 5, &a);
    b_str(&a, 1, "pads"); /* unpacked ints */
    b_int(&a, 20, TP_ONNX_ATTR_INTS);
    b_int(&a, 8, 7);
    b_int(&a, 8, 9);
    b_msg(&n, 5, &a);
    b_str(&a, 1, "scales");
    b_int(&a, 20, TP_ONNX_ATTR_FLOATS);
    b_f32(&a, 7, 1.5f);
    b_f32(&a, 7, 2.0f);
    b_msg(&n, 5, &a);
    b_str(&a, 1, "names");
    b_int(&a, 20, TP_ONNX_ATTR_STRINGS);
    b_str(&a, 9, "a");
    b_str(&a, 9, "bc");
    b_msg(&n, 5, &a);
    b_str(&n, 6, "a doc string that is skipped");
    b_msg(&g, 1, &n);

    b_str(&g, 2, "main");
    float w[6] = {1, 2, 3, 4, 5, 6};
    buf t = tensor_raw("w", TP_ONNX_FLOAT, 2, (int64_t[]){2, 3}, w, sizeof w);
    b_msg(&g, 5, &t);
    buf vi = value_info("x", TP_ONNX_FLOAT, 2, (int64_t[]){-1, 3}, (const char *[]){"batch", 0});
    b_msg(&g, 11, &vi);
    vi = value_info("w", TP_ONNX_FLOAT, 2, (int64_t[]){2, 3}, NULL);
    b_msg(&g, 11, &vi);
    vi = value_info("y", TP_ONNX_FLOAT, 2, (int64_t[]){-1, 2}, (const char *[]){"batch", 0});
    b_msg(&g, 12, &vi);
    vi = value_info("h", TP_ONNX_FLOAT, -1, NULL, NULL);
    b_msg(&g, 13, &vi);
    b_msg(&m, 7, &g);
    return m;
}

static tp_status open_buf(const buf *b, tp_onnx_model **m, tp_error *err) {
    tp_error_clear(err);
    return tp_onnx_model_open_memory(b->p, b->n, NULL, NULL, m, err);
}

/* ---- messages ---- */

TP_TEST(decode_small_model) {
    buf b = small_model();
    tp_onnx_model *m;
    tp_error err;
    TP_CHECK_OK(open_buf(&b, &m, &err), &err);
    if (!m) return;
    TP_CHECK_EQ_I64(m->ir_version, 8);
    TP_CHECK_STR(m->producer_name, "hand");
    TP_CHECK_EQ_U64(m->n_opsets, 2);
    TP_CHECK_EQ_I64(tp__onnx_opset(m, ""), 17);
    TP_CHECK_EQ_I64(tp__onnx_opset(m, "ai.onnx"), 17);
    TP_CHECK_EQ_I64(tp__onnx_opset(m, "com.microsoft"), 1);
    TP_CHECK_EQ_I64(tp__onnx_opset(m, "nope"), 0);
    const tp_onnx_graph *g = m->graph;
    TP_CHECK_STR(g->name, "main");
    TP_CHECK(g->parent == NULL);
    TP_CHECK_EQ_U64(g->n_nodes, 1);
    const tp_onnx_node *n = &g->nodes[0];
    TP_CHECK_STR(n->op_type, "Gemm");
    TP_CHECK_STR(n->name, "gemm0");
    TP_CHECK_STR(n->domain, "");
    TP_CHECK_EQ_U64(n->n_inputs, 3);
    TP_CHECK_STR(n->inputs[1], "w");
    TP_CHECK_STR(n->inputs[2], "");
    TP_CHECK_EQ_U64(n->n_outputs, 1);
    TP_CHECK_STR(n->outputs[0], "y");
    TP_CHECK_EQ_U64(n->n_attrs, 7);
    TP_CHECK_EQ_I64(tp__onnx_attr_int(n, "transB", 0), 1);
    TP_CHECK_EQ_I64(tp__onnx_attr_int(n, "missing", 42), 42);
    TP_CHECK_NEAR(tp__onnx_attr_float(n, "alpha", 0), 0.5, 0);
    TP_CHECK_STR(tp__onnx_attr_str(n, "mode", "x"), "nearest");
    const tp_onnx_attr *a = tp__onnx_find_attr(n, "mode");
    TP_CHECK(a && a->s.size == 7 && a->s.data == b.p + a->s.offset);
    a = tp__onnx_find_attr(n, "perm");
    TP_CHECK(a && a->type == TP_ONNX_ATTR_INTS && a->n_ints == 3);
    if (a && a->n_ints == 3) {
        TP_CHECK_EQ_I64(a->ints[0], 2);
        TP_CHECK_EQ_I64(a->ints[1], -1);
        TP_CHECK_EQ_I64(a->ints[2], 300);
    }
    a = tp__onnx_find_attr(n, "pads");
    TP_CHECK(a && a->n_ints == 2 && a->ints[0] == 7 && a->ints[1] == 9);
    a = tp__onnx_find_attr(n, "scales");
    TP_CHECK(a && a->n_floats == 2 && a->floats[0] == 1.5f && a->floats[1] == 2.0f);
    a = tp__onnx_find_attr(n, "names");
    TP_CHECK(a && a->n_strings == 2);
    if (a && a->n_strings == 2) TP_CHECK_STR(a->strings[1], "bc");

    TP_CHECK_EQ_U64(g->n_initializers, 1);
    const tp_onnx_tensor *t = tp__onnx_graph_find_initializer(g, "w");
    TP_CHECK(t != NULL);
    if (t) {
        TP_CHECK_EQ_U64(t->rank, 2);
        TP_CHECK_EQ_I64(t->dims[1], 3);
        TP_CHECK_EQ_U64(t->n_elements, 6);
        TP_CHECK_EQ_U64(t->n_bytes, 24);
        TP_CHECK(t->location == TP_ONNX_DATA_RAW);
        TP_CHECK(t->raw == b.p + t->raw_offset); /* zero copy */
        TP_CHECK_EQ_U64(t->raw_size, 24);
        double v[6];
        uint64_t cnt;
        TP_CHECK_OK(tp__onnx_tensor_read_f64(m, t, v, 6, &cnt, &err), &err);
        TP_CHECK_EQ_U64(cnt, 6);
        TP_CHECK_NEAR(v[5], 6.0, 0);
    }
    TP_CHECK(tp__onnx_graph_find_initializer(g, "x") == NULL);
    TP_CHECK_EQ_U64(g->n_inputs, 2);
    TP_CHECK_EQ_I64(g->inputs[0].rank, 2);
    TP_CHECK(g->inputs[0].kind == 't');
    TP_CHECK_STR(g->inputs[0].dims[0].param, "batch");
    TP_CHECK_EQ_I64(g->inputs[0].dims[1].value, 3);
    TP_CHECK(g->inputs[0].dims[1].param == NULL);
    TP_CHECK_EQ_U64(g->n_value_infos, 1);
    TP_CHECK_EQ_I64(g->value_infos[0].rank, -1);

    tp_onnx_info in;
    TP_CHECK_OK(tp_onnx_model_info(m, &in, &err), &err);
    TP_CHECK_EQ_I64(in.opset, 17);
    TP_CHECK_EQ_U64(in.n_inputs, 1); /* w is an initializer */
    if (in.n_inputs) TP_CHECK_STR(in.inputs[0]->name, "x");
    TP_CHECK_EQ_U64(in.n_outputs, 1);
    TP_CHECK_EQ_U64(in.n_params, 1);
    TP_CHECK_EQ_U64(in.param_elements, 6);
    TP_CHECK_EQ_U64(in.param_bytes, 24);
    TP_CHECK_EQ_U64(in.unique_param_bytes, 24);
    TP_CHECK_EQ_U64(in.n_ops, 1);
    TP_CHECK_EQ_U64(in.file_bytes, b.n);
    tp_onnx_model_destroy(m);
    free(b.p);
}

TP_TEST(typed_tensor_data) {
    buf m = {0}, g = {0}, n = {0}, t = {0};
    b_int(&m, 1, 7);
    b_str(&n, 4, "Reshape");
    b_str(&n, 1, "x");
    b_str(&n, 1, "shape");
    b_str(&n, 2, "y");
    b_msg(&g, 1, &n);
    /* int64_data packed, plus an unpacked value afterwards */
    b_packed_ints(&t, 1, (int64_t[]){3}, 1);
    b_int(&t, 2, TP_ONNX_INT64);
    b_str(&t, 8, "shape");
    b_packed_ints(&t, 7, (int64_t[]){-1, 768}, 2);
    b_int(&t, 7, 12);
    b_msg(&g, 5, &t);
    /* float16 in int32_data: 1.0 = 0x3c00, -2.0 = 0xc000 */
    b_packed_ints(&t, 1, (int64_t[]){2}, 1);
    b_int(&t, 2, TP_ONNX_FLOAT16);
    b_str(&t, 8, "h");
    b_packed_ints(&t, 5, (int64_t[]){0x3c00, 0xc000}, 2);
    b_msg(&g, 5, &t);
    /* scalar float in float_data (rank 0) */
    b_int(&t, 2, TP_ONNX_FLOAT);
    b_str(&t, 8, "s");
    b_f32(&t, 4, 2.75f);
    b_msg(&g, 5, &t);
    /* raw int32 scalar -5 and raw bool [3] */
    int32_t i32 = -5;
    t = tensor_raw("i", TP_ONNX_INT32, 0, NULL, &i32, 4);
    b_msg(&g, 5, &t);
    uint8_t bools[3] = {0, 1, 2};
    t = tensor_raw("b", TP_ONNX_BOOL, 1, (int64_t[]){3}, bools, 3);
    b_msg(&g, 5, &t);
    /* stripped weight: dims only, no data */
    b_packed_ints(&t, 1, (int64_t[]){1000, 1000}, 2);
    b_int(&t, 2, TP_ONNX_BFLOAT16);
    b_str(&t, 8, "stripped");
    b_msg(&g, 5, &t);
    b_msg(&m, 7, &g);

    tp_onnx_model *mm;
    tp_error err;
    TP_CHECK_OK(open_buf(&m, &mm, &err), &err);
    if (!mm) return;
    const tp_onnx_graph *gg = mm->graph;
    const tp_onnx_tensor *s = tp__onnx_graph_find_initializer(gg, "shape");
    int64_t v[4];
    double d[4];
    uint64_t cnt;
    TP_CHECK(s && s->location == TP_ONNX_DATA_TYPED && s->n_typed == 3 && s->int64_data);
    if (s && s->int64_data) {
        TP_CHECK_EQ_I64(s->int64_data[0], -1);
        TP_CHECK_EQ_I64(s->int64_data[2], 12);
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, s, v, 4, &cnt, &err), &err);
        TP_CHECK_EQ_U64(cnt, 3);
        TP_CHECK_EQ_I64(v[1], 768);
        TP_CHECK_EQ_I64(v[2], 12);
        /* a short buffer: only cap values written, *n says how many exist */
        v[1] = 99;
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, s, v, 1, &cnt, &err), &err);
        TP_CHECK_EQ_U64(cnt, 3);
        TP_CHECK_EQ_I64(v[1], 99);
    }
    const tp_onnx_tensor *h = tp__onnx_graph_find_initializer(gg, "h");
    TP_CHECK(h && h->int32_data && h->n_bytes == 4);
    if (h) {
        TP_CHECK_OK(tp__onnx_tensor_read_f64(mm, h, d, 4, &cnt, &err), &err);
        TP_CHECK_NEAR(d[0], 1.0, 0);
        TP_CHECK_NEAR(d[1], -2.0, 0);
    }
    const tp_onnx_tensor *sc = tp__onnx_graph_find_initializer(gg, "s");
    TP_CHECK(sc && sc->rank == 0 && sc->n_elements == 1 && sc->float_data);
    if (sc) {
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, sc, v, 4, &cnt, &err), &err);
        TP_CHECK_EQ_I64(v[0], 2);
        TP_CHECK_OK(tp__onnx_tensor_read_f64(mm, sc, d, 4, &cnt, &err), &err);
        TP_CHECK_NEAR(d[0], 2.75, 0);
    }
    const tp_onnx_tensor *i = tp__onnx_graph_find_initializer(gg, "i");
    TP_CHECK(i && i->location == TP_ONNX_DATA_RAW);
    if (i) {
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, i, v, 4, &cnt, &err), &err);
        TP_CHECK_EQ_I64(v[0], -5);
    }
    const tp_onnx_tensor *bb = tp__onnx_graph_find_initializer(gg, "b");
    if (bb) {
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, bb, v, 4, &cnt, &err), &err);
        TP_CHECK_EQ_I64(v[0], 0);
        TP_CHECK_EQ_I64(v[1], 1);
        TP_CHECK_EQ_I64(v[2], 1);
    }
    const tp_onnx_tensor *st = tp__onnx_graph_find_initializer(gg, "stripped");
    TP_CHECK(st && st->location == TP_ONNX_DATA_NONE && st->n_bytes == 2000000);
    if (st) TP_CHECK_STATUS(tp__onnx_tensor_read_i64(mm, st, v, 4, &cnt, &err), TP_ERR_UNSUPPORTED);
    tp_onnx_model_destroy(mm);
    free(m.p);
}

/* A model with one initializer in external data. */
static buf external_model(const char *location, const char *offset, const char *length) {
    buf m = {0}, g = {0}, t = {0}, kv = {0}, n = {0};
    b_int(&m, 1, 8);
    b_str(&n, 4, "Identity");
    b_str(&n, 1, "w");
    b_str(&n, 2, "y");
    b_msg(&g, 1, &n);
    for (int k = 0; k < 2; k++) { /* the same bytes referenced twice (tied) */
        b_packed_ints(&t, 1, (int64_t[]){4, 4}, 2);
        b_int(&t, 2, TP_ONNX_FLOAT);
        b_str(&t, 8, k ? "w2" : "w");
        b_int(&t, 14, 1);
        b_str(&kv, 1, "location");
        b_str(&kv, 2, location);
        b_msg(&t, 13, &kv);
        if (offset) {
            b_str(&kv, 1, "offset");
            b_str(&kv, 2, offset);
            b_msg(&t, 13, &kv);
        }
        if (length) {
            b_str(&kv, 1, "length");
            b_str(&kv, 2, length);
            b_msg(&t, 13, &kv);
        }
        b_msg(&g, 5, &t);
    }
    b_msg(&m, 7, &g);
    return m;
}

TP_TEST(external_data) {
    char dir[] = "/tmp/tp_onnx_ext_XXXXXX";
    TP_CHECK(mkdtemp(dir) != NULL);
    char path[256], data[256];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    snprintf(data, sizeof data, "%s/weights.bin", dir);
    buf m = external_model("weights.bin", "128", "64");
    FILE *f = fopen(path, "wb");
    TP_CHECK(f != NULL);
    if (!f) return;
    fwrite(m.p, 1, m.n, f);
    fclose(f);
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    tp_onnx_model *mm;
    tp_error err;
    /* not verifying: sized from dims, the data file is never looked at */
    TP_CHECK_OK(tp_onnx_model_open(path, &opt, NULL, &mm, &err), &err);
    if (mm) {
        const tp_onnx_tensor *t = &mm->graph->initializers[0];
        TP_CHECK(t->location == TP_ONNX_DATA_EXTERNAL);
        TP_CHECK_STR(t->ext_location, "weights.bin");
        TP_CHECK_EQ_U64(t->ext_offset, 128);
        TP_CHECK_EQ_U64(t->ext_length, 64);
        TP_CHECK_EQ_U64(t->n_bytes, 64);
        TP_CHECK_STR(mm->base_dir, dir);
        tp_onnx_info in;
        TP_CHECK_OK(tp_onnx_model_info(mm, &in, &err), &err);
        TP_CHECK_EQ_U64(in.n_params, 2);
        TP_CHECK_EQ_U64(in.param_bytes, 128);
        TP_CHECK_EQ_U64(in.unique_param_bytes, 64);
        TP_CHECK_EQ_U64(in.external_bytes, 128);
        TP_CHECK_EQ_U64(in.n_external, 2);
        tp_onnx_model_destroy(mm);
    }
    /* verifying: missing file */
    opt.verify_external_data = true;
    TP_CHECK_STATUS(tp_onnx_model_open(path, &opt, NULL, &mm, &err), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err.msg, "weights.bin");
    TP_CHECK(mm == NULL);
    /* too short: 128 + 64 > 100 */
    f = fopen(data, "wb");
    if (f) {
        char zeros[192] = {0};
        fwrite(zeros, 1, 100, f);
        fclose(f);
        TP_CHECK_STATUS(tp_onnx_model_open(path, &opt, NULL, &mm, &err), TP_ERR_PARSE);
        TP_CHECK_CONTAINS(err.msg, "has 100 bytes");
        f = fopen(data, "wb");
        fwrite(zeros, 1, 192, f);
        fclose(f);
        TP_CHECK_OK(tp_onnx_model_open(path, &opt, NULL, &mm, &err), &err);
        tp_onnx_model_destroy(mm);
    }
    free(m.p);
    /* a location outside the model directory is refused when verifying */
    m = external_model("../etc/passwd", NULL, NULL);
    TP_CHECK_STATUS(tp_onnx_model_open_memory(m.p, m.n, &opt, NULL, &mm, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "leaves the model directory");
    free(m.p);
    /* length that disagrees with dims, garbage offsets */
    m = external_model("weights.bin", "0", "65");
    TP_CHECK_STATUS(open_buf(&m, &mm, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "external length 65");
    free(m.p);
    m = external_model("weights.bin", "-3", NULL);
    TP_CHECK_STATUS(open_buf(&m, &mm, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "not a non-negative integer");
    free(m.p);
    m = external_model("weights.bin", "99999999999999999999999", NULL);
    TP_CHECK_STATUS(open_buf(&m, &mm, &err), TP_ERR_PARSE);
    free(m.p);
    unlink(data);
    unlink(path);
    rmdir(dir);
}

/* If with then/else subgraphs, the else branch holding a Loop with a body. */
static buf nested_model(int depth) {
    buf g = {0};
    b_str(&g, 2, "leaf");
    buf n0 = {0};
    b_str(&n0, 4, "Relu");
    b_str(&n0, 1, "a");
    b_str(&n0, 2, "b");
    b_msg(&g, 1, &n0);
    for (int d = 0; d < depth; d++) {
        buf n = {0}, a = {0}, outer = {0};
        b_str(&n, 4, d % 2 ? "Loop" : "If");
        b_str(&n, 3, "ctl");
        b_str(&a, 1, d % 2 ? "body" : "then_branch");
        b_int(&a, 20, TP_ONNX_ATTR_GRAPH);
        b_msg(&a, 6, &g);
        b_msg(&n, 5, &a);
        b_str(&outer, 2, "level");
        b_msg(&outer, 1, &n);
        g = outer;
    }
    buf m = {0};
    b_int(&m, 1, 8);
    b_msg(&m, 7, &g);
    return m;
}

TP_TEST(nested_graphs) {
    buf b = nested_model(3);
    tp_onnx_model *m;
    tp_error err;
    TP_CHECK_OK(open_buf(&b, &m, &err), &err);
    if (m) {
        const tp_onnx_graph *g = m->graph;
        const tp_onnx_attr *a = tp__onnx_find_attr(&g->nodes[0], "then_branch");
        TP_CHECK(a && a->type == TP_ONNX_ATTR_GRAPH && a->g);
        if (a && a->g) {
            TP_CHECK(a->g->parent == g);
            TP_CHECK_EQ_U64(a->g->depth, 1);
            const tp_onnx_attr *a2 = tp__onnx_find_attr(&a->g->nodes[0], "body");
            TP_CHECK(a2 && a2->g && a2->g->parent == a->g && a2->g->depth == 2);
        }
        tp_onnx_info in;
        TP_CHECK_OK(tp_onnx_model_info(m, &in, &err), &err);
        TP_CHECK_EQ_U64(in.n_nodes, 1);
        TP_CHECK_EQ_U64(in.n_nodes_total, 4);
        TP_CHECK_EQ_U64(in.n_subgraphs, 3);
        TP_CHECK_EQ_U64(in.n_ops, 3);
        TP_CHECK_STR(in.ops[0].op_type, "If"); /* count 2, then Loop 1, Relu 1 */
        TP_CHECK_EQ_U64(in.ops[0].count, 2);
        TP_CHECK_STR(in.ops[1].op_type, "Loop");
        tp_onnx_model_destroy(m);
    }
    free(b.p);
    /* a nesting-depth bomb: a clear error, no stack overflow */
    b = nested_model(2000);
    TP_CHECK_STATUS(open_buf(&b, &m, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "nested more than 64 messages deep");
    TP_CHECK_CONTAINS(err.msg, "at offset");
    TP_CHECK(err.offset != TP_NO_OFFSET && err.offset < b.n);
    free(b.p);
    /* the limit is an option */
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.max_depth = 8;
    b = nested_model(3);
    TP_CHECK_STATUS(tp_onnx_model_open_memory(b.p, b.n, &opt, NULL, &m, &err), TP_ERR_PARSE);
    opt.max_depth = 200;
    TP_CHECK_OK(tp_onnx_model_open_memory(b.p, b.n, &opt, NULL, &m, &err), &err);
    tp_onnx_model_destroy(m);
    free(b.p);
    /* a TypeProto bomb: sequence(sequence(...)) */
    buf t = {0}, tt = {0};
    b_int(&tt, 1, TP_ONNX_FLOAT);
    b_msg(&t, 1, &tt);
    for (int d = 0; d < 500; d++) {
        buf seq = {0}, outer = {0};
        b_msg(&seq, 1, &t);
        b_msg(&outer, 4, &seq);
        t = outer;
    }
    buf vi = {0}, g = {0}, mm = {0}, n = {0};
    b_str(&vi, 1, "x");
    b_msg(&vi, 2, &t);
    b_str(&n, 4, "Relu");
    b_msg(&g, 1, &n);
    b_msg(&g, 11, &vi);
    b_msg(&mm, 7, &g);
    TP_CHECK_STATUS(open_buf(&mm, &m, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "nested more than");
    free(mm.p);
}

/* A node of op `op` named `name` reading `in` (and `in2` when given), writing `out`. */
static void add_node(buf *g, const char *name, const char *op, const char *in, const char *in2,
                     const char *out) {
    buf n = {0};
    b_str(&n, 1, in);
    if (in2) b_str(&n, 1, in2);
    b_str(&n, 2, out);
    b_str(&n, 3, name);
    b_str(&n, 4, op);
    b_msg(g, 1, &n);
}

/* Nodes out of order (as a float16 converter leaves them: onnxruntime sorts them when it loads):
 * each is moved after the producers of what it reads, a name read inside a subgraph included,
 * the first ready in the file first; a cycle is a parse error at the node's offset. */
TP_TEST(nodes_put_in_dependency_order) {
    buf g = {0}, m = {0};
    add_node(&g, "n0", "Relu", "b", NULL, "c");
    add_node(&g, "n1", "Relu", "x", NULL, "b");
    { /* n2: If(x) whose then_branch returns d, written by n3 */
        buf n = {0}, a = {0}, body = {0}, out = {0};
        add_node(&body, "t0", "Identity", "d", NULL, "t");
        b_str(&out, 1, "t");
        b_msg(&body, 12, &out);
        b_str(&n, 1, "x");
        b_str(&n, 2, "e");
        b_str(&n, 3, "n2");
        b_str(&n, 4, "If");
        b_str(&a, 1, "then_branch");
        b_int(&a, 20, TP_ONNX_ATTR_GRAPH);
        b_msg(&a, 6, &body);
        b_msg(&n, 5, &a);
        b_msg(&g, 1, &n);
    }
    add_node(&g, "n3", "Relu", "x", NULL, "d");
    b_int(&m, 1, 8);
    b_msg(&m, 7, &g);
    tp_onnx_model *om;
    tp_error err;
    TP_CHECK_OK(open_buf(&m, &om, &err), &err);
    if (om) {
        const char *want[] = {"n1", "n0", "n3", "n2"};
        TP_CHECK_EQ_U64(om->graph->n_nodes, 4);
        for (uint32_t i = 0; i < 4 && i < om->graph->n_nodes; i++)
            TP_CHECK_STR(om->graph->nodes[i].name, want[i]);
        tp_onnx_model_destroy(om);
    }
    free(m.p);
    /* a cycle */
    buf c = {0}, cm = {0};
    add_node(&c, "p", "Add", "x", "b", "a");
    add_node(&c, "q", "Relu", "a", NULL, "b");
    b_int(&cm, 1, 8);
    b_msg(&cm, 7, &c);
    TP_CHECK_STATUS(open_buf(&cm, &om, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "has a cycle: node 0 'p' (Add)");
    TP_CHECK(err.offset != TP_NO_OFFSET && err.offset < cm.n);
    free(cm.p);
}

/* Node counts are bounded before the node arrays are allocated: an empty NodeProto
 * is refused while counting, and the model's node total is limited (max_nodes). */
TP_TEST(node_count_bounds) {
    tp_error err;
    tp_onnx_model *m = NULL;
    buf empty = {0}, g = {0}, mm = {0};
    b_int(&mm, 1, 8);
    for (int i = 0; i < 1000; i++)
        b_msg(&g, 1, &empty); /* b_msg frees the sub-message: empty stays empty */
    b_msg(&mm, 7, &g);
    TP_CHECK_STATUS(open_buf(&mm, &m, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "is 0 bytes: too short to hold an op_type");
    TP_CHECK(err.offset != TP_NO_OFFSET && err.offset < 16);
    free(mm.p);
    /* three Relu nodes: fine with the default limit and with 3, refused with 2 */
    buf g2 = {0}, m2 = {0};
    b_int(&m2, 1, 8);
    for (int i = 0; i < 3; i++) {
        buf n = {0};
        b_str(&n, 4, "Relu");
        b_msg(&g2, 1, &n);
    }
    b_msg(&m2, 7, &g2);
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.max_nodes = 3;
    TP_CHECK_OK(tp_onnx_model_open_memory(m2.p, m2.n, &opt, NULL, &m, &err), &err);
    tp_onnx_model_destroy(m);
    opt.max_nodes = 2;
    TP_CHECK_STATUS(tp_onnx_model_open_memory(m2.p, m2.n, &opt, NULL, &m, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "3 nodes, more than the limit of 2 (tp_onnx_options.max_nodes)");
    free(m2.p);
}

/* ---- bad input ---- */

static void expect_parse(const buf *b, const char *needle, int line) {
    tp_onnx_model *m = (tp_onnx_model *)1;
    tp_error err;
    tp_status s = open_buf(b, &m, &err);
    if (s == TP_OK || m != NULL || !strstr(err.msg, needle) || !strstr(err.msg, "offset")) {
        TP_FAIL_("line %d: status %s, msg \"%s\", want \"%s\" with an offset", line,
                 tp_status_name(s), err.msg, needle);
        tp_onnx_model_destroy(s == TP_OK ? m : NULL);
    }
}
#define EXPECT_PARSE(b, needle) expect_parse(&(b), needle, __LINE__)

/* Model whose only graph initializer is the given tensor message. */
static buf with_tensor(buf *t) {
    buf m = {0}, g = {0};
    b_int(&m, 1, 8);
    b_msg(&g, 5, t);
    b_msg(&m, 7, &g);
    return m;
}

TP_TEST(bad_inputs_each_a_clear_error) {
    buf b = {0}, t = {0};
    tp_onnx_model *m;
    tp_error err;
    /* empty file, garbage, no graph */
    TP_CHECK_STATUS(open_buf(&b, &m, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "empty file");
    b_put(&b, "\xff\xff\xff", 3);
    EXPECT_PARSE(b, "truncated varint");
    b.n = 0;
    b_put(&b, "hello world, this is not protobuf", 33);
    TP_CHECK_STATUS(open_buf(&b, &m, &err), TP_ERR_PARSE);
    b.n = 0;
    b_int(&b, 1, 8);
    EXPECT_PARSE(b, "no graph");
    free(b.p);
    /* huge length prefix */
    b = (buf){0};
    b_tag(&b, 7, 2);
    b_varint(&b, 1ull << 62);
    b_put(&b, "\x0a\x00", 2);
    EXPECT_PARSE(b, "length prefix 4611686018427387904 at offset 1");
    free(b.p);
    /* wrong wire types: ir_version as bytes, graph as varint, f as varint */
    b = (buf){0};
    b_str(&b, 1, "8");
    EXPECT_PARSE(b, "field 1 (ir_version)");
    free(b.p);
    b = (buf){0};
    b_int(&b, 7, 3);
    EXPECT_PARSE(b, "wire type 0 (varint), expected length-delimited");
    free(b.p);
    /* negative dims */
    t = (buf){0};
    b_packed_ints(&t, 1, (int64_t[]){2, -3}, 2);
    b_int(&t, 2, TP_ONNX_FLOAT);
    b_str(&t, 8, "neg");
    b = with_tensor(&t);
    EXPECT_PARSE(b, "negative dim -3 at axis 1");
    TP_CHECK_CONTAINS(err.msg, "");
    free(b.p);
    buf vi = value_info("x", TP_ONNX_FLOAT, 1, (int64_t[]){0}, NULL);
    /* rebuild with a negative dim_value by hand */
    free(vi.p);
    vi = (buf){0};
    {
        buf type = {0}, tt = {0}, shape = {0}, d = {0};
        b_str(&vi, 1, "x");
        b_int(&d, 1, -7);
        b_msg(&shape, 1, &d);
        b_msg(&tt, 2, &shape);
        b_msg(&type, 1, &tt);
        b_msg(&vi, 2, &type);
        buf g = {0};
        b = (buf){0};
        b_msg(&g, 11, &vi);
        b_msg(&b, 7, &g);
        EXPECT_PARSE(b, "negative dim_value -7");
        free(b.p);
    }
    /* overflowing element count */
    t = (buf){0};
    b_packed_ints(&t, 1, (int64_t[]){INT64_MAX, 4}, 2);
    b_int(&t, 2, TP_ONNX_FLOAT);
    b = with_tensor(&t);
    TP_CHECK_STATUS(open_buf(&b, &m, &err), TP_ERR_OVERFLOW);
    TP_CHECK_CONTAINS(err.msg, "overflows 64 bits");
    free(b.p);
    /* raw_data size disagrees with dims */
    t = tensor_raw("r", TP_ONNX_FLOAT, 1, (int64_t[]){3}, "12345678", 8);
    b = with_tensor(&t);
    EXPECT_PARSE(b, "raw_data at offset");
    TP_CHECK_STATUS(open_buf(&b, &m, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "has 8 bytes, dims × element size need 12");
    TP_CHECK_CONTAINS(err.msg, "initializer 0");
    free(b.p);
    /* invalid data type, values in the wrong field, both raw and typed */
    t = (buf){0};
    b_int(&t, 2, 99);
    b = with_tensor(&t);
    EXPECT_PARSE(b, "invalid data_type 99");
    free(b.p);
    t = (buf){0};
    b_int(&t, 2, TP_ONNX_FLOAT);
    b_packed_ints(&t, 7, (int64_t[]){1}, 1);
    b = with_tensor(&t);
    EXPECT_PARSE(b, "stores values in int64_data");
    free(b.p);
    t = (buf){0};
    b_int(&t, 2, TP_ONNX_INT64);
    b_packed_ints(&t, 7, (int64_t[]){1}, 1);
    b_bytes(&t, 9, "12345678", 8);
    b = with_tensor(&t);
    EXPECT_PARSE(b, "both raw_data and int64_data");
    free(b.p);
    t = (buf){0};
    b_packed_ints(&t, 1, (int64_t[]){3}, 1);
    b_int(&t, 2, TP_ONNX_INT64);
    b_packed_ints(&t, 7, (int64_t[]){1, 2}, 2);
    b = with_tensor(&t);
    EXPECT_PARSE(b, "has 2 values in int64_data");
    free(b.p);
    /* packed floats not a multiple of 4 */
    t = (buf){0};
    b_int(&t, 2, TP_ONNX_FLOAT);
    b_bytes(&t, 4, "abcde", 5);
    b = with_tensor(&t);
    EXPECT_PARSE(b, "not a multiple of 4");
    free(b.p);
    /* node without op_type: the error names the node */
    {
        buf n = {0}, g = {0};
        b = (buf){0};
        b_str(&n, 3, "nameless");
        b_msg(&g, 1, &n);
        b_msg(&b, 7, &g);
        EXPECT_PARSE(b, "has no op_type");
        TP_CHECK_STATUS(open_buf(&b, &m, &err), TP_ERR_PARSE);
        TP_CHECK_CONTAINS(err.msg, "node 'nameless'");
        free(b.p);
    }
    /* an error deep in a node names the node and keeps the offset */
    {
        buf n = {0}, g = {0}, a = {0};
        b = (buf){0};
        b_str(&n, 3, "conv7");
        b_str(&n, 4, "Conv");
        b_str(&a, 1, "strides");
        b_tag(&a, 8, 2);
        b_varint(&a, 2);
        b_put(&a, "\x01\x80", 2); /* packed run ends inside a varint */
        b_msg(&n, 5, &a);
        b_msg(&g, 1, &n);
        b_msg(&b, 7, &g);
        TP_CHECK_STATUS(open_buf(&b, &m, &err), TP_ERR_PARSE);
        TP_CHECK_CONTAINS(err.msg, "node 'conv7' (Conv, offset");
        TP_CHECK_CONTAINS(err.msg, "end inside a varint at offset");
        TP_CHECK(err.offset == b.n - 1);
        free(b.p);
    }
}

TP_TEST(every_truncation_is_an_error) {
    buf b = small_model();
    int bad = 0;
    for (size_t len = 0; len < b.n; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, b.p, len);
        tp_onnx_model *m;
        tp_error err;
        tp_error_clear(&err);
        tp_status s = tp_onnx_model_open_memory(copy, len, NULL, NULL, &m, &err);
        /* a prefix may happen to be a valid message only if it ends before the
         * graph field; the graph is the last field, so every prefix fails */
        if (s != TP_ERR_PARSE || m != NULL || err.offset == TP_NO_OFFSET || err.offset > len) bad++;
        free(copy);
    }
    TP_CHECK_EQ_I64(bad, 0);
    /* flipping every byte never crashes (ASan checks the reads) */
    for (size_t i = 0; i < b.n; i++) {
        uint8_t *copy = malloc(b.n);
        memcpy(copy, b.p, b.n);
        copy[i] ^= 0xff;
        tp_onnx_model *m;
        tp_error err;
        if (tp_onnx_model_open_memory(copy, b.n, NULL, NULL, &m, &err) == TP_OK) {
            tp_onnx_info in;
            (void)tp_onnx_model_info(m, &in, &err);
            tp_onnx_model_destroy(m);
        }
        free(copy);
    }
    free(b.p);
}

TP_TEST(allocation_failure_sweep) {
    buf b = nested_model(2);
    buf s = small_model();
    for (int which = 0; which < 2; which++) {
        const buf *x = which ? &s : &b;
        long k;
        for (k = 1; k < 10000; k++) {
            tp_failing_allocator fa;
            tp_failing_allocator_init(&fa, k);
            tp_onnx_model *m;
            tp_error err;
            tp_status st = tp_onnx_model_open_memory(x->p, x->n, NULL, &fa.hook, &m, &err);
            if (st == TP_OK) {
                tp_onnx_info in;
                st = tp_onnx_model_info(m, &in, &err);
                tp_onnx_model_destroy(m);
                TP_CHECK_EQ_I64(fa.live, 0);
                if (st == TP_OK && !fa.failed) break;
                continue;
            }
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
            TP_CHECK(m == NULL);
            TP_CHECK_EQ_I64(fa.live, 0);
            TP_CHECK_EQ_U64(fa.live_bytes, 0);
        }
        TP_CHECK(k > 2 && k < 10000);
    }
    free(b.p);
    free(s.p);
}

TP_TEST(file_errors) {
    tp_onnx_model *m;
    tp_error err;
    TP_CHECK_STATUS(tp_onnx_model_open("/nonexistent/model.onnx", NULL, NULL, &m, &err),
                    TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err.msg, "/nonexistent/model.onnx");
    TP_CHECK_STATUS(tp_onnx_model_open("/tmp", NULL, NULL, &m, &err), TP_ERR_IO);
    TP_CHECK_STATUS(tp_onnx_model_open(NULL, NULL, NULL, &m, &err), TP_ERR_INVALID);
    tp_onnx_model_destroy(NULL);
    TP_CHECK_STR(tp_onnx_elem_type_name(TP_ONNX_BFLOAT16), "BFLOAT16");
    TP_CHECK_STR(tp_onnx_elem_type_name(1000), "?");
    tp_dtype d;
    TP_CHECK_OK(tp_onnx_elem_type_to_dtype(TP_ONNX_FLOAT16, &d, &err), &err);
    TP_CHECK(d == TP_DTYPE_F16);
    TP_CHECK_STATUS(tp_onnx_elem_type_to_dtype(TP_ONNX_STRING, &d, &err), TP_ERR_UNSUPPORTED);
}

/* A sparse file over 2 GiB: ModelProto{ graph{ initializer{ raw_data: 2.5 GiB } } }. */
TP_TEST(file_over_2gib) {
    const uint64_t elems = 700u * 1000u * 1000u; /* 2.8 GB of floats */
    buf t = {0}, head = {0};
    b_packed_ints(&t, 1, (int64_t[]){(int64_t)elems}, 1);
    b_int(&t, 2, TP_ONNX_FLOAT);
    b_str(&t, 8, "huge");
    b_tag(&t, 9, 2);
    b_varint(&t, elems * 4);
    uint64_t tensor_len = t.n + elems * 4;
    buf g = {0};
    b_str(&g, 2, "big");
    b_tag(&g, 5, 2);
    b_varint(&g, tensor_len);
    uint64_t graph_len = g.n + tensor_len;
    b_int(&head, 1, 8);
    b_tag(&head, 7, 2);
    b_varint(&head, graph_len);
    b_put(&head, g.p, g.n);
    b_put(&head, t.p, t.n);
    uint64_t total = head.n + elems * 4;
    char path[] = "/tmp/tp_onnx_big_XXXXXX";
    int fd = mkstemp(path);
    TP_CHECK(fd >= 0);
    if (fd < 0) return;
    bool ok = write(fd, head.p, head.n) == (ssize_t)head.n && ftruncate(fd, (off_t)total) == 0;
    close(fd);
    if (ok) {
        tp_onnx_model *m;
        tp_error err;
        TP_CHECK_OK(tp_onnx_model_open(path, NULL, NULL, &m, &err), &err);
        if (m) {
            TP_CHECK_EQ_U64(m->size, total);
            const tp_onnx_tensor *x = &m->graph->initializers[0];
            TP_CHECK_EQ_U64(x->n_bytes, elems * 4);
            TP_CHECK_EQ_U64(x->raw_size, elems * 4);
            TP_CHECK_EQ_U64(x->raw_offset, head.n);
            TP_CHECK(x->raw_offset + x->raw_size > (1ull << 31));
            tp_onnx_info in;
            TP_CHECK_OK(tp_onnx_model_info(m, &in, &err), &err);
            TP_CHECK_EQ_U64(in.param_bytes, 2800000000ull);
            TP_CHECK_EQ_U64(in.file_bytes, total);
            tp_onnx_model_destroy(m);
        }
    } else {
        printf("  (skipped: cannot create a sparse file)\n");
    }
    unlink(path);
    free(t.p);
    free(g.p);
    free(head.p);
}

/* Every node-test model shipped by libonnx-testdata decodes (when installed). */
TP_TEST(libonnx_testdata_models) {
    const char *root = "/usr/share/libonnx-testdata/data/node";
    FILE *p = popen("ls /usr/share/libonnx-testdata/data/node 2>/dev/null", "r");
    if (!p) return;
    char name[512], path[1024];
    int n = 0, failed = 0;
    while (fgets(name, sizeof name, p)) {
        name[strcspn(name, "\n")] = 0;
        snprintf(path, sizeof path, "%s/%s/model.onnx", root, name);
        tp_onnx_model *m;
        tp_error err;
        if (tp_onnx_model_open(path, NULL, NULL, &m, &err) != TP_OK) {
            if (access(path, R_OK) != 0) continue;
            TP_FAIL_("%s: %s", path, err.msg);
            failed++;
            continue;
        }
        tp_onnx_info in;
        if (tp_onnx_model_info(m, &in, &err) != TP_OK || in.n_nodes_total == 0) failed++;
        tp_onnx_model_destroy(m);
        n++;
    }
    pclose(p);
    printf("  libonnx-testdata: %d node-test models decoded, %d failed\n", n, failed);
    TP_CHECK_EQ_I64(failed, 0);
}

/* The public load entry points hand the decoded model to the converter. */
TP_TEST(load_entry_points) {
    buf b = small_model();
    tp_graph *g = (tp_graph *)1;
    tp_error err;
    TP_CHECK_OK(tp_onnx_load_memory(b.p, b.n, NULL, NULL, &g, &err), &err);
    if (g) {
        tp_node_id id;
        TP_CHECK_OK(tp_graph_find(g, "y", &id, &err), &err);
        TP_CHECK_EQ_U64(tp_graph_output_count(g), 1);
        TP_CHECK_OK(tp_graph_find(g, "w", &id, &err), &err);
        const tp_node *w = tp_graph_node(g, id);
        TP_CHECK(w && w->op.kind == TP_OP_PARAM);
        tp_graph_destroy(g);
    }
    g = (tp_graph *)1;
    TP_CHECK_STATUS(tp_onnx_load("/nonexistent.onnx", NULL, NULL, &g, &err), TP_ERR_NOT_FOUND);
    TP_CHECK(g == NULL);
    g = (tp_graph *)1;
    TP_CHECK_STATUS(tp_onnx_load_memory(b.p, 5, NULL, NULL, &g, &err), TP_ERR_PARSE);
    TP_CHECK(g == NULL);
    TP_CHECK_STATUS(tp_onnx_model_to_graph(NULL, NULL, NULL, &g, &err), TP_ERR_INVALID);
    /* every allocation of the whole import can fail cleanly */
    long k;
    for (k = 1; k < 20000; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_status st = tp_onnx_load_memory(b.p, b.n, NULL, &fa.hook, &g, &err);
        if (st == TP_OK) tp_graph_destroy(g);
        TP_CHECK_EQ_I64(fa.live, 0);
        if (st == TP_OK && !fa.failed) break;
        if (st != TP_OK) {
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
            TP_CHECK(g == NULL);
        }
    }
    TP_CHECK(k > 2 && k < 20000);
    free(b.p);
}

/* Sparse initializers, non-tensor value types, tensor/graph list attributes,
 * double and uint64 typed data. */
TP_TEST(more_message_kinds) {
    buf m = {0}, g = {0}, sp = {0}, t = {0}, n = {0}, a = {0};
    b_int(&m, 1, 9);
    /* sparse initializer: dense [10, 10], 3 values (raw floats), indices int64 */
    float vals[3] = {1, 2, 3};
    t = tensor_raw("sp", TP_ONNX_FLOAT, 1, (int64_t[]){3}, vals, sizeof vals);
    b_msg(&sp, 1, &t);
    int64_t idx[3] = {0, 5, 99};
    t = tensor_raw("sp_idx", TP_ONNX_INT64, 1, (int64_t[]){3}, idx, sizeof idx);
    b_msg(&sp, 2, &t);
    b_packed_ints(&sp, 3, (int64_t[]){10, 10}, 2);
    b_msg(&g, 15, &sp);
    /* double_data and uint64_data (unpacked) */
    b_int(&t, 2, TP_ONNX_DOUBLE);
    b_str(&t, 8, "d");
    b_tag(&t, 10, 1);
    double dv = -2.5;
    uint64_t du;
    memcpy(&du, &dv, 8);
    for (int i = 0; i < 8; i++) {
        uint8_t byte = (uint8_t)(du >> (8 * i));
        b_put(&t, &byte, 1);
    }
    b_msg(&g, 5, &t);
    b_packed_ints(&t, 1, (int64_t[]){2}, 1);
    b_int(&t, 2, TP_ONNX_UINT64);
    b_str(&t, 8, "u");
    b_int(&t, 11, 7);
    b_int(&t, 11, (int64_t)UINT64_MAX);
    b_msg(&g, 5, &t);
    /* a node with tensors and graphs list attributes */
    b_str(&n, 4, "Custom");
    b_str(&n, 7, "com.example");
    b_str(&a, 1, "ts");
    t = tensor_raw("t0", TP_ONNX_INT8, 1, (int64_t[]){2}, "\x01\xff", 2);
    b_msg(&a, 10, &t);
    t = tensor_raw("t1", TP_ONNX_UINT8, 0, NULL, "\x07", 1);
    b_msg(&a, 10, &t);
    for (int k = 0; k < 2; k++) {
        buf sg = {0}, sn = {0};
        b_str(&sg, 2, k ? "g1" : "g0");
        b_str(&sn, 4, "Neg");
        b_msg(&sg, 1, &sn);
        b_msg(&a, 11, &sg);
    }
    b_msg(&n, 5, &a);
    b_msg(&g, 1, &n);
    /* value types: sequence of tensor, optional of tensor, map */
    buf vi = {0}, type = {0}, inner = {0}, tt = {0}, wrap = {0};
    b_str(&vi, 1, "seq");
    b_int(&tt, 1, TP_ONNX_INT32);
    b_msg(&inner, 1, &tt);
    b_msg(&wrap, 1, &inner);
    b_msg(&type, 4, &wrap);
    b_msg(&vi, 2, &type);
    b_msg(&g, 11, &vi);
    b_str(&vi, 1, "opt");
    b_int(&tt, 1, TP_ONNX_FLOAT16);
    buf shape = {0}, d = {0};
    b_str(&d, 2, "n");
    b_msg(&shape, 1, &d);
    b_msg(&tt, 2, &shape);
    b_msg(&inner, 1, &tt);
    b_msg(&wrap, 1, &inner);
    b_msg(&type, 9, &wrap);
    b_msg(&vi, 2, &type);
    b_msg(&g, 11, &vi);
    b_str(&vi, 1, "map");
    b_int(&wrap, 1, TP_ONNX_STRING);
    b_msg(&type, 5, &wrap);
    b_msg(&vi, 2, &type);
    b_msg(&g, 12, &vi);
    b_msg(&m, 7, &g);

    tp_onnx_model *mm;
    tp_error err;
    TP_CHECK_OK(open_buf(&m, &mm, &err), &err);
    if (!mm) return;
    const tp_onnx_graph *gg = mm->graph;
    TP_CHECK_EQ_U64(gg->n_sparse_initializers, 1);
    if (gg->n_sparse_initializers) {
        const tp_onnx_sparse_tensor *st = &gg->sparse_initializers[0];
        TP_CHECK_STR(st->values.name, "sp");
        TP_CHECK_EQ_U64(st->rank, 2);
        TP_CHECK_EQ_U64(st->n_elements, 100);
        TP_CHECK_EQ_U64(st->values.n_bytes, 12);
        TP_CHECK_EQ_U64(st->indices.n_elements, 3);
    }
    const tp_onnx_tensor *dt = tp__onnx_graph_find_initializer(gg, "d");
    double dd[2];
    int64_t iv[2];
    uint64_t cnt;
    TP_CHECK(dt && dt->double_data && dt->double_data[0] == -2.5);
    if (dt) {
        TP_CHECK_OK(tp__onnx_tensor_read_f64(mm, dt, dd, 2, &cnt, &err), &err);
        TP_CHECK_NEAR(dd[0], -2.5, 0);
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, dt, iv, 2, &cnt, &err), &err);
        TP_CHECK_EQ_I64(iv[0], -2);
    }
    const tp_onnx_tensor *ut = tp__onnx_graph_find_initializer(gg, "u");
    TP_CHECK(ut && ut->uint64_data && ut->uint64_data[1] == UINT64_MAX);
    const tp_onnx_node *nd = &gg->nodes[0];
    TP_CHECK_STR(nd->domain, "com.example");
    const tp_onnx_attr *at = tp__onnx_find_attr(nd, "ts");
    TP_CHECK(at && at->type == TP_ONNX_ATTR_TENSORS && at->n_tensors == 2 && at->n_graphs == 2);
    if (at && at->n_tensors == 2 && at->n_graphs == 2) {
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, &at->tensors[0], iv, 2, &cnt, &err), &err);
        TP_CHECK_EQ_I64(iv[1], -1);
        TP_CHECK_OK(tp__onnx_tensor_read_i64(mm, &at->tensors[1], iv, 2, &cnt, &err), &err);
        TP_CHECK_EQ_I64(iv[0], 7);
        TP_CHECK_STR(at->graphs[1]->name, "g1");
        TP_CHECK(at->graphs[0]->parent == gg);
    }
    TP_CHECK_EQ_U64(gg->n_inputs, 2);
    if (gg->n_inputs == 2) {
        TP_CHECK(gg->inputs[0].kind == 's' && gg->inputs[0].elem_type == TP_ONNX_INT32 &&
                 gg->inputs[0].rank == -1);
        TP_CHECK(gg->inputs[1].kind == 'o' && gg->inputs[1].elem_type == TP_ONNX_FLOAT16 &&
                 gg->inputs[1].rank == 1);
        TP_CHECK_STR(gg->inputs[1].dims[0].param, "n");
    }
    TP_CHECK(gg->n_outputs == 1 && gg->outputs[0].kind == 'm');
    tp_onnx_info in;
    TP_CHECK_OK(tp_onnx_model_info(mm, &in, &err), &err);
    TP_CHECK_EQ_U64(in.n_params, 3);               /* d, u, and the sparse one */
    TP_CHECK_EQ_U64(in.param_elements, 1 + 2 + 3); /* sparse: stored values, not dense */
    TP_CHECK_EQ_U64(in.n_subgraphs, 2);
    TP_CHECK_EQ_U64(in.n_nodes_total, 3);
    TP_CHECK_STR(in.ops[0].op_type, "Neg");
    TP_CHECK_STR(in.ops[1].op_type, "com.example:Custom");
    tp_onnx_model_destroy(mm);
    free(m.p);
}

int main(void) {
    TP_RUN(decode_small_model);
    TP_RUN(typed_tensor_data);
    TP_RUN(external_data);
    TP_RUN(more_message_kinds);
    TP_RUN(nested_graphs);
    TP_RUN(nodes_put_in_dependency_order);
    TP_RUN(node_count_bounds);
    TP_RUN(bad_inputs_each_a_clear_error);
    TP_RUN(every_truncation_is_an_error);
    TP_RUN(allocation_failure_sweep);
    TP_RUN(file_errors);
    TP_RUN(load_entry_points);
    TP_RUN(file_over_2gib);
    TP_RUN(libonnx_testdata_models);
    return tp_test_finish();
}
