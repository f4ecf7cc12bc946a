/* ONNX ModelProto / GraphProto / NodeProto / AttributeProto / ValueInfoProto
 * decoding over the protobuf wire format. Each message is walked twice: once
 * to count repeated fields (so arrays are allocated exactly once), once to
 * fill them. Length-delimited fields that are not needed (raw tensor bytes,
 * doc strings) are skipped in O(1). */
#include <inttypes.h>
#include <string.h>

#include "import/onnx_decode.h"
#include "import/onnx_node_order.h"

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        tp_status s_ = (expr);                                                                     \
        if (s_ != TP_OK) return s_;                                                                \
    } while (0)

static tp_status alloc_array(tp_onnx_dctx *c, uint64_t n, uint64_t size, void **out,
                             const char *what) {
    bool ok;
    *out = tp__onnx_arena_array(c->arena, n, size, &ok);
    return ok ? TP_OK : tp__onnx_nomem(c, what);
}

/* ---- TypeProto / ValueInfoProto ---- */

static tp_status decode_dim(tp_onnx_dctx *c, tp_pb r, tp_onnx_dim *d) {
    d->value = -1;
    d->param = NULL;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        uint64_t at = r.pos;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == 1) {
            int64_t v;
            CHECK(tp__pb_int64(&r, w, f, "dim_value", &v, c->err));
            if (v < 0)
                return tp_error_setx(c->err, TP_ERR_PARSE, at, TP_NO_NODE,
                                     "negative dim_value %" PRId64 " at offset %" PRIu64, v, at);
            d->value = v;
            d->param = NULL;
        } else if (f == 2) {
            CHECK(tp__pb_bytes(&r, w, f, "dim_param", &sub, c->err));
            CHECK(tp__onnx_str(c, &sub, &d->param));
            d->value = -1;
            if (!d->param[0]) d->param = NULL;
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    return TP_OK;
}

static tp_status decode_shape(tp_onnx_dctx *c, tp_pb r, tp_onnx_value_info *v) {
    const tp_pb start = r;
    uint64_t n = 0;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == 1) {
            CHECK(tp__pb_bytes(&r, w, f, "dim", &sub, c->err));
            n++;
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    if (n > INT32_MAX)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "shape has too many dims");
    tp_onnx_dim *dims;
    CHECK(alloc_array(c, n, sizeof *dims, (void **)&dims, "shape"));
    v->rank = (int32_t)n;
    v->dims = dims;
    r = start;
    uint64_t k = 0;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == 1) {
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(decode_dim(c, sub, &dims[k++]));
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    return TP_OK;
}

/* TypeProto.Tensor / SparseTensor: 1 elem_type, 2 shape. */
static tp_status decode_tensor_type(tp_onnx_dctx *c, tp_pb r, tp_onnx_value_info *v) {
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == 1) {
            CHECK(tp__pb_int32(&r, w, f, "elem_type", &v->elem_type, c->err));
        } else if (f == 2) {
            CHECK(tp__pb_bytes(&r, w, f, "shape", &sub, c->err));
            CHECK(tp__onnx_enter(c, sub.pos, "TensorShapeProto"));
            CHECK(decode_shape(c, sub, v));
            c->depth--;
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    return TP_OK;
}

/* TypeProto: 1 tensor_type, 4 sequence_type, 5 map_type, 8 sparse_tensor_type,
 * 9 optional_type. Sequence/optional recurse into their element type. */
static tp_status decode_type(tp_onnx_dctx *c, tp_pb r, tp_onnx_value_info *v, bool outer) {
    CHECK(tp__onnx_enter(c, r.pos, "TypeProto"));
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == 1 || f == 8) {
            CHECK(tp__pb_bytes(&r, w, f, "tensor_type", &sub, c->err));
            if (outer) v->kind = f == 1 ? 't' : 'p';
            if (!outer && v->kind == 'o' && !v->inner) v->inner = 't';
            CHECK(tp__onnx_enter(c, sub.pos, "TypeProto.Tensor"));
            CHECK(decode_tensor_type(c, sub, v));
            c->depth--;
        } else if (f == 4 || f == 9) {
            CHECK(tp__pb_bytes(&r, w, f, f == 4 ? "sequence_type" : "optional_type", &sub, c->err));
            if (outer) v->kind = f == 4 ? 's' : 'o';
            if (!outer && v->kind == 'o' && !v->inner && f == 4) v->inner = 's';
            CHECK(tp__onnx_enter(c, sub.pos, "TypeProto.Sequence"));
            while (!tp__pb_done(&sub)) {
                uint32_t f2, w2;
                tp_pb elem;
                CHECK(tp__pb_tag(&sub, &f2, &w2, c->err));
                if (f2 == 1) {
                    CHECK(tp__pb_bytes(&sub, w2, f2, "elem_type", &elem, c->err));
                    CHECK(decode_type(c, elem, v, false));
                } else {
                    CHECK(tp__pb_skip(&sub, w2, c->err));
                }
            }
            c->depth--;
        } else if (f == 5) {
            CHECK(tp__pb_bytes(&r, w, f, "map_type", &sub, c->err));
            if (outer) v->kind = 'm';
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    c->depth--;
    return TP_OK;
}

tp_status tp__onnx_decode_value_info(tp_onnx_dctx *c, tp_pb r, tp_onnx_value_info *v) {
    v->name = "";
    v->kind = '?';
    v->rank = -1;
    v->offset = r.pos;
    CHECK(tp__onnx_enter(c, r.pos, "ValueInfoProto"));
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == 1) {
            CHECK(tp__pb_bytes(&r, w, f, "name", &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &v->name));
        } else if (f == 2) {
            CHECK(tp__pb_bytes(&r, w, f, "type", &sub, c->err));
            CHECK(decode_type(c, sub, v, true));
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    c->depth--;
    return TP_OK;
}

/* ---- AttributeProto ---- */

enum {
    A_NAME = 1,
    A_F = 2,
    A_I = 3,
    A_S = 4,
    A_T = 5,
    A_G = 6,
    A_FLOATS = 7,
    A_INTS = 8,
    A_STRINGS = 9,
    A_TENSORS = 10,
    A_GRAPHS = 11,
    A_TYPE = 20,
    A_REF_ATTR_NAME = 21,
    A_SPARSE_TENSOR = 22
};

static tp_status count_scalars(tp_onnx_dctx *c, tp_pb *r, uint32_t f, uint32_t w, uint32_t ew,
                               const char *what, uint64_t *n) {
    uint64_t at = r->pos;
    tp_pb run;
    if (w == ew) {
        (*n)++;
        return tp__pb_skip(r, w, c->err);
    }
    if (w != TP_PB_LEN) return tp__pb_wire_error(c->err, at, f, what, w, ew);
    CHECK(tp__pb_len(r, &run, c->err));
    if (ew == TP_PB_VARINT) {
        uint64_t k;
        CHECK(tp__pb_count_packed_varints(&run, &k, c->err));
        *n += k;
    } else {
        uint64_t len = run.end - run.pos;
        if (len % 4)
            return tp_error_setx(c->err, TP_ERR_PARSE, at, TP_NO_NODE,
                                 "packed %s at offset %" PRIu64 " has %" PRIu64
                                 " bytes, not a multiple of 4",
                                 what, at, len);
        *n += len / 4;
    }
    return TP_OK;
}

static tp_status fill_scalars(tp_onnx_dctx *c, tp_pb *r, uint32_t w, uint32_t ew, float *fl,
                              int64_t *in, uint32_t *k) {
    tp_pb run;
    if (w == ew) {
        run = *r;
    } else {
        CHECK(tp__pb_len(r, &run, c->err));
    }
    do {
        if (ew == TP_PB_VARINT) {
            uint64_t v;
            CHECK(tp__pb_varint(&run, &v, c->err));
            in[(*k)++] = (int64_t)v;
        } else {
            uint32_t b;
            CHECK(tp__pb_fixed32(&run, &b, c->err));
            memcpy(&fl[(*k)++], &b, 4);
        }
    } while (w != ew && !tp__pb_done(&run));
    if (w == ew) r->pos = run.pos;
    return TP_OK;
}

static tp_status decode_attr(tp_onnx_dctx *c, tp_pb r, tp_onnx_attr *a) {
    const tp_pb start = r;
    uint64_t nf = 0, ni = 0, ns = 0, nt = 0, ng = 0;
    bool has_f = false, has_i = false, has_s = false, has_t = false, has_g = false;
    a->name = "";
    a->s_str = "";
    a->ref_attr_name = "";
    a->offset = r.pos;
    CHECK(tp__onnx_enter(c, r.pos, "AttributeProto"));
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        switch (f) {
        case A_NAME:
            CHECK(tp__pb_bytes(&r, w, f, "name", &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &a->name));
            break;
        case A_REF_ATTR_NAME:
            CHECK(tp__pb_bytes(&r, w, f, "ref_attr_name", &sub, c->err));
            CHECK(tp__onnx_str(c, &sub, &a->ref_attr_name));
            break;
        case A_TYPE: {
            int32_t t;
            CHECK(tp__pb_int32(&r, w, f, "type", &t, c->err));
            a->type = (tp_onnx_attr_type)t;
            break;
        }
        case A_F: {
            uint32_t b;
            if (w != TP_PB_FIXED32)
                return tp__pb_wire_error(c->err, r.pos, f, "f", w, TP_PB_FIXED32);
            CHECK(tp__pb_fixed32(&r, &b, c->err));
            memcpy(&a->f, &b, 4);
            has_f = true;
            break;
        }
        case A_I:
            CHECK(tp__pb_int64(&r, w, f, "i", &a->i, c->err));
            has_i = true;
            break;
        case A_S:
            CHECK(tp__pb_bytes(&r, w, f, "s", &sub, c->err));
            a->s.offset = sub.pos;
            a->s.size = sub.end - sub.pos;
            a->s.data = a->s.size ? sub.base + sub.pos : NULL;
            CHECK(tp__onnx_str(c, &sub, &a->s_str));
            has_s = true;
            break;
        case A_T:
        case A_G:
        case A_SPARSE_TENSOR:
            CHECK(tp__pb_bytes(&r, w, f,
                               f == A_T   ? "t"
                               : f == A_G ? "g"
                                          : "sparse_tensor",
                               &sub, c->err));
            if (f == A_T) has_t = true;
            if (f == A_G) has_g = true;
            break;
        case A_FLOATS:
            CHECK(count_scalars(c, &r, f, w, TP_PB_FIXED32, "floats", &nf));
            break;
        case A_INTS:
            CHECK(count_scalars(c, &r, f, w, TP_PB_VARINT, "ints", &ni));
            break;
        case A_STRINGS:
        case A_TENSORS:
        case A_GRAPHS:
            CHECK(tp__pb_bytes(&r, w, f,
                               f == A_STRINGS   ? "strings"
                               : f == A_TENSORS ? "tensors"
                                                : "graphs",
                               &sub, c->err));
            if (f == A_STRINGS) ns++;
            if (f == A_TENSORS) nt++;
            if (f == A_GRAPHS) ng++;
            break;
        default:
            CHECK(tp__pb_skip(&r, w, c->err));
            break;
        }
    }
    if (nf > UINT32_MAX || ni > UINT32_MAX || ns > UINT32_MAX || nt > UINT32_MAX || ng > UINT32_MAX)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "attribute '%s' has too many values", a->name);
    if (a->type == TP_ONNX_ATTR_UNDEFINED) {
        a->type = has_f   ? TP_ONNX_ATTR_FLOAT
                  : has_i ? TP_ONNX_ATTR_INT
                  : has_s ? TP_ONNX_ATTR_STRING
                  : has_t ? TP_ONNX_ATTR_TENSOR
                  : has_g ? TP_ONNX_ATTR_GRAPH
                  : nf    ? TP_ONNX_ATTR_FLOATS
                  : ni    ? TP_ONNX_ATTR_INTS
                  : ns    ? TP_ONNX_ATTR_STRINGS
                  : nt    ? TP_ONNX_ATTR_TENSORS
                  : ng    ? TP_ONNX_ATTR_GRAPHS
                          : TP_ONNX_ATTR_UNDEFINED;
    }
    float *floats;
    int64_t *ints;
    const char **strings;
    tp_onnx_tensor *tensors;
    const tp_onnx_graph **graphs;
    CHECK(alloc_array(c, nf, sizeof *floats, (void **)&floats, "attribute floats"));
    CHECK(alloc_array(c, ni, sizeof *ints, (void **)&ints, "attribute ints"));
    CHECK(alloc_array(c, ns, sizeof *strings, (void **)&strings, "attribute strings"));
    CHECK(alloc_array(c, nt, sizeof *tensors, (void **)&tensors, "attribute tensors"));
    CHECK(alloc_array(c, ng, sizeof *graphs, (void **)&graphs, "attribute graphs"));
    a->floats = floats;
    a->ints = ints;
    a->strings = strings;
    a->tensors = tensors;
    a->graphs = graphs;
    uint32_t kf = 0, ki = 0, ks = 0, kt = 0, kg = 0;
    r = start;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == A_FLOATS) {
            CHECK(fill_scalars(c, &r, w, TP_PB_FIXED32, floats, NULL, &kf));
        } else if (f == A_INTS) {
            CHECK(fill_scalars(c, &r, w, TP_PB_VARINT, NULL, ints, &ki));
        } else if (f == A_STRINGS) {
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_str(c, &sub, &strings[ks++]));
        } else if (f == A_TENSORS || f == A_T) {
            CHECK(tp__pb_len(&r, &sub, c->err));
            tp_onnx_tensor *t;
            if (f == A_T) {
                t = tp__onnx_arena_alloc(c->arena, sizeof *t);
                if (!t) return tp__onnx_nomem(c, "attribute tensor");
                a->t = t;
            } else {
                t = &tensors[kt++];
            }
            CHECK(tp__onnx_decode_tensor(c, sub, t));
        } else if (f == A_GRAPHS || f == A_G) {
            tp_onnx_graph *g;
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_decode_graph(c, sub, c->cur_graph, &g));
            if (f == A_G)
                a->g = g;
            else
                graphs[kg++] = g;
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    a->n_floats = kf;
    a->n_ints = ki;
    a->n_strings = ks;
    a->n_tensors = kt;
    a->n_graphs = kg;
    c->depth--;
    return TP_OK;
}

/* ---- NodeProto ---- */

enum { N_INPUT = 1, N_OUTPUT = 2, N_NAME = 3, N_OP_TYPE = 4, N_ATTRIBUTE = 5, N_DOMAIN = 7 };

static tp_status decode_node_body(tp_onnx_dctx *c, tp_pb r, tp_onnx_node *n) {
    const tp_pb start = r;
    uint64_t ni = 0, no = 0, na = 0;
    bool have_op = false;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        switch (f) {
        case N_INPUT:
        case N_OUTPUT:
        case N_ATTRIBUTE:
            CHECK(tp__pb_bytes(&r, w, f,
                               f == N_INPUT    ? "input"
                               : f == N_OUTPUT ? "output"
                                               : "attribute",
                               &sub, c->err));
            if (f == N_INPUT) ni++;
            if (f == N_OUTPUT) no++;
            if (f == N_ATTRIBUTE) na++;
            break;
        case N_NAME:
            CHECK(tp__pb_bytes(&r, w, f, "name", &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &n->name));
            break;
        case N_OP_TYPE:
            CHECK(tp__pb_bytes(&r, w, f, "op_type", &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &n->op_type));
            have_op = true;
            break;
        case N_DOMAIN:
            CHECK(tp__pb_bytes(&r, w, f, "domain", &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &n->domain));
            if (strcmp(n->domain, "ai.onnx") == 0) n->domain = "";
            break;
        default:
            CHECK(tp__pb_skip(&r, w, c->err));
            break;
        }
    }
    if (!have_op || !n->op_type[0])
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "node at offset %" PRIu64 " has no op_type", start.pos);
    if (ni > UINT32_MAX || no > UINT32_MAX || na > UINT32_MAX)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "node has too many fields");
    const char **ins, **outs;
    tp_onnx_attr *attrs;
    CHECK(alloc_array(c, ni, sizeof *ins, (void **)&ins, "node inputs"));
    CHECK(alloc_array(c, no, sizeof *outs, (void **)&outs, "node outputs"));
    CHECK(alloc_array(c, na, sizeof *attrs, (void **)&attrs, "node attributes"));
    n->inputs = ins;
    n->outputs = outs;
    n->attrs = attrs;
    r = start;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == N_INPUT) {
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &ins[n->n_inputs++]));
        } else if (f == N_OUTPUT) {
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &outs[n->n_outputs++]));
        } else if (f == N_ATTRIBUTE) {
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(decode_attr(c, sub, &attrs[n->n_attrs++]));
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    return TP_OK;
}

tp_status tp__onnx_decode_node(tp_onnx_dctx *c, tp_pb r, tp_onnx_node *n) {
    n->name = "";
    n->op_type = "";
    n->domain = "";
    n->offset = r.pos;
    CHECK(tp__onnx_enter(c, r.pos, "NodeProto"));
    tp_status s = decode_node_body(c, r, n);
    if (s != TP_OK) {
        if (!c->have_node_context) {
            uint64_t off = c->err ? c->err->offset : TP_NO_OFFSET;
            tp_error_prefix(c->err, "node '%s' (%s, offset %" PRIu64 "): ", n->name,
                            n->op_type[0] ? n->op_type : "?", n->offset);
            if (c->err) c->err->offset = off;
            c->have_node_context = true;
        }
        return s;
    }
    c->depth--;
    return TP_OK;
}

/* ---- GraphProto ---- */

enum {
    G_NODE = 1,
    G_NAME = 2,
    G_INITIALIZER = 5,
    G_INPUT = 11,
    G_OUTPUT = 12,
    G_VALUE_INFO = 13,
    G_SPARSE_INITIALIZER = 15
};

tp_status tp__onnx_decode_graph(tp_onnx_dctx *c, tp_pb r, const tp_onnx_graph *parent,
                                tp_onnx_graph **out) {
    const tp_pb start = r;
    uint64_t cnt[16] = {0};
    tp_onnx_graph *g = tp__onnx_arena_alloc(c->arena, sizeof *g);
    if (!g) return tp__onnx_nomem(c, "a graph");
    *out = g;
    g->name = "";
    g->parent = parent;
    g->depth = parent ? parent->depth + 1 : 0;
    g->offset = r.pos;
    CHECK(tp__onnx_enter(c, r.pos, "GraphProto"));
    c->cur_graph = g;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == G_NAME) {
            CHECK(tp__pb_bytes(&r, w, f, "name", &sub, c->err));
            CHECK(tp__onnx_name(c, &sub, &g->name));
        } else if (f == G_NODE || f == G_INITIALIZER || f == G_INPUT || f == G_OUTPUT ||
                   f == G_VALUE_INFO || f == G_SPARSE_INITIALIZER) {
            uint64_t at = r.pos;
            CHECK(tp__pb_bytes(&r, w, f, "repeated message", &sub, c->err));
            /* checked while counting, so that a file of empty nodes is refused before
             * the node array (72 bytes per 2-byte entry) is allocated: a NodeProto
             * holds at least its op_type, a tag, a length and one character */
            if (f == G_NODE && sub.end - sub.pos < 3)
                return tp_error_setx(c->err, TP_ERR_PARSE, at, TP_NO_NODE,
                                     "node at offset %" PRIu64 " is %" PRIu64
                                     " bytes: too short to hold an op_type",
                                     at, sub.end - sub.pos);
            cnt[f]++;
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    c->n_nodes += cnt[G_NODE];
    if (c->n_nodes > c->max_nodes)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                             "graph '%s' at offset %" PRIu64 " brings the model to %" PRIu64
                             " nodes, more than the limit of %" PRIu64
                             " (tp_onnx_options.max_nodes)",
                             g->name, start.pos, c->n_nodes, c->max_nodes);
    for (int i = 0; i < 16; i++)
        if (cnt[i] > UINT32_MAX)
            return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE,
                                 "graph '%s' has too many entries", g->name);
    tp_onnx_node *nodes;
    tp_onnx_tensor *inits;
    tp_onnx_sparse_tensor *sparse;
    tp_onnx_value_info *ins, *outs, *vis;
    CHECK(alloc_array(c, cnt[G_NODE], sizeof *nodes, (void **)&nodes, "graph nodes"));
    CHECK(alloc_array(c, cnt[G_INITIALIZER], sizeof *inits, (void **)&inits, "initializers"));
    CHECK(alloc_array(c, cnt[G_SPARSE_INITIALIZER], sizeof *sparse, (void **)&sparse,
                      "sparse initializers"));
    CHECK(alloc_array(c, cnt[G_INPUT], sizeof *ins, (void **)&ins, "graph inputs"));
    CHECK(alloc_array(c, cnt[G_OUTPUT], sizeof *outs, (void **)&outs, "graph outputs"));
    CHECK(alloc_array(c, cnt[G_VALUE_INFO], sizeof *vis, (void **)&vis, "value_info"));
    g->nodes = nodes;
    g->initializers = inits;
    g->sparse_initializers = sparse;
    g->inputs = ins;
    g->outputs = outs;
    g->value_infos = vis;
    r = start;
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        switch (f) {
        case G_NODE:
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_decode_node(c, sub, &nodes[g->n_nodes++]));
            break;
        case G_INITIALIZER: {
            CHECK(tp__pb_len(&r, &sub, c->err));
            tp_status s = tp__onnx_decode_tensor(c, sub, &inits[g->n_initializers]);
            if (s != TP_OK) {
                if (!c->have_node_context) {
                    uint64_t off = c->err ? c->err->offset : TP_NO_OFFSET;
                    tp_error_prefix(c->err, "initializer %u: ", g->n_initializers);
                    if (c->err) c->err->offset = off;
                    c->have_node_context = true;
                }
                return s;
            }
            g->n_initializers++;
            break;
        }
        case G_SPARSE_INITIALIZER:
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_decode_sparse(c, sub, &sparse[g->n_sparse_initializers++]));
            break;
        case G_INPUT:
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_decode_value_info(c, sub, &ins[g->n_inputs++]));
            break;
        case G_OUTPUT:
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_decode_value_info(c, sub, &outs[g->n_outputs++]));
            break;
        case G_VALUE_INFO:
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(tp__onnx_decode_value_info(c, sub, &vis[g->n_value_infos++]));
            break;
        default:
            CHECK(tp__pb_skip(&r, w, c->err));
            break;
        }
    }
    CHECK(tp__onnx_order_nodes(c->m->alloc, nodes, g->n_nodes, g->name ? g->name : "", c->err));
    c->cur_graph = parent;
    c->depth--;
    return TP_OK;
}

/* ---- ModelProto ---- */

enum {
    M_IR_VERSION = 1,
    M_PRODUCER_NAME = 2,
    M_PRODUCER_VERSION = 3,
    M_DOMAIN = 4,
    M_MODEL_VERSION = 5,
    M_GRAPH = 7,
    M_OPSET_IMPORT = 8
};

static tp_status decode_opset(tp_onnx_dctx *c, tp_pb r, tp_onnx_opset *o) {
    o->domain = "";
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == 1) {
            CHECK(tp__pb_bytes(&r, w, f, "domain", &sub, c->err));
            CHECK(tp__onnx_str(c, &sub, &o->domain));
            if (strcmp(o->domain, "ai.onnx") == 0) o->domain = "";
        } else if (f == 2) {
            CHECK(tp__pb_int64(&r, w, f, "version", &o->version, c->err));
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    return TP_OK;
}

tp_status tp__onnx_decode_model(tp_onnx_dctx *c, tp_pb r) {
    tp_onnx_model *m = c->m;
    const tp_pb start = r;
    uint64_t n_opsets = 0;
    tp_pb graph = {0};
    bool have_graph = false;
    m->producer_name = m->producer_version = m->domain = "";
    while (!tp__pb_done(&r)) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        switch (f) {
        case M_IR_VERSION:
            CHECK(tp__pb_int64(&r, w, f, "ir_version", &m->ir_version, c->err));
            break;
        case M_MODEL_VERSION:
            CHECK(tp__pb_int64(&r, w, f, "model_version", &m->model_version, c->err));
            break;
        case M_PRODUCER_NAME:
        case M_PRODUCER_VERSION:
        case M_DOMAIN:
            CHECK(tp__pb_bytes(&r, w, f, "string", &sub, c->err));
            CHECK(tp__onnx_str(c, &sub,
                               f == M_PRODUCER_NAME      ? &m->producer_name
                               : f == M_PRODUCER_VERSION ? &m->producer_version
                                                         : &m->domain));
            break;
        case M_GRAPH:
            CHECK(tp__pb_bytes(&r, w, f, "graph", &graph, c->err));
            have_graph = true; /* the last one wins, as in protobuf */
            break;
        case M_OPSET_IMPORT:
            CHECK(tp__pb_bytes(&r, w, f, "opset_import", &sub, c->err));
            n_opsets++;
            break;
        default:
            CHECK(tp__pb_skip(&r, w, c->err));
            break;
        }
    }
    if (!have_graph)
        return tp_error_setx(
            c->err, TP_ERR_PARSE, start.end, TP_NO_NODE,
            "no graph in the model (read up to offset %" PRIu64 "; not an ONNX file?)", start.end);
    if (n_opsets > UINT32_MAX)
        return tp_error_setx(c->err, TP_ERR_PARSE, start.pos, TP_NO_NODE, "too many opset imports");
    tp_onnx_opset *ops;
    CHECK(alloc_array(c, n_opsets, sizeof *ops, (void **)&ops, "opset imports"));
    m->opsets = ops;
    r = start;
    while (!tp__pb_done(&r) && n_opsets) {
        uint32_t f, w;
        tp_pb sub;
        CHECK(tp__pb_tag(&r, &f, &w, c->err));
        if (f == M_OPSET_IMPORT) {
            CHECK(tp__pb_len(&r, &sub, c->err));
            CHECK(decode_opset(c, sub, &ops[m->n_opsets++]));
        } else {
            CHECK(tp__pb_skip(&r, w, c->err));
        }
    }
    tp_onnx_graph *g;
    CHECK(tp__onnx_decode_graph(c, graph, NULL, &g));
    m->graph = g;
    return TP_OK;
}
