/* The built-in demo model: a GPT-2-small-like decoder (tensorplan/demo.h),
 * built through the public graph API only. */
#include <stdio.h>
#include <string.h>

#include "tensorplan/demo.h"

void tp_demo_options_default(tp_demo_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->layers = 2;
    o->d_model = 768;
    o->heads = 12;
    o->ffn = 3072;
    o->vocab = 50257;
    o->n_ctx = 1024;
    o->batch = 1;
    o->seq = 128;
    o->dtype = TP_DTYPE_F32;
}

/* A builder with a sticky status: after the first error every call is a no-op
 * returning TP_NO_NODE, so the construction code reads straight through. */
typedef struct bld {
    tp_graph *g;
    tp_error *err;
    tp_status st;
    const tp_demo_options *o;
    tp_dim batch, seq;
    char prefix[32]; /* "h.3." */
} bld;

static const char *nm(bld *b, char *buf, size_t cap, const char *suffix) {
    snprintf(buf, cap, "%s%s", b->prefix, suffix);
    return buf;
}

static tp_node_id param(bld *b, const char *suffix, int32_t rank, int64_t d0, int64_t d1) {
    tp_node_id id = TP_NO_NODE;
    char name[96];
    if (b->st != TP_OK) return id;
    int64_t dims[2] = {d0, d1};
    tp_shape s = tp_shape_of(rank, dims);
    b->st =
        tp_graph_add_param(b->g, nm(b, name, sizeof name, suffix), b->o->dtype, &s, &id, b->err);
    return id;
}

static tp_node_id op(bld *b, const tp_op *o, const tp_node_id *in, uint32_t n, const char *suffix) {
    tp_node_id id = TP_NO_NODE;
    char name[96];
    if (b->st != TP_OK) return id;
    b->st = tp_graph_add_op(b->g, o, in, n, nm(b, name, sizeof name, suffix), &id, b->err);
    return id;
}

static tp_node_id op_shaped(bld *b, const tp_op *o, tp_node_id in, const tp_shape *s,
                            const char *suffix) {
    tp_node_id id = TP_NO_NODE;
    char name[96];
    if (b->st != TP_OK) return id;
    b->st = tp_graph_add_op_shaped(b->g, o, &in, 1, s, b->o->dtype,
                                   nm(b, name, sizeof name, suffix), &id, b->err);
    return id;
}

static tp_node_id binary(bld *b, tp_binary_fn fn, tp_node_id x, tp_node_id y, const char *suffix) {
    tp_op o = {.kind = TP_OP_BINARY, .sub = (int32_t)fn};
    return op(b, &o, (tp_node_id[]){x, y}, 2, suffix);
}

static tp_node_id matmul(bld *b, tp_node_id x, tp_node_id w, const char *suffix) {
    tp_op o = {.kind = TP_OP_MATMUL};
    return op(b, &o, (tp_node_id[]){x, w}, 2, suffix);
}

/* x·W + bias, both as separate nodes (the bias add runs in place). */
static tp_node_id linear(bld *b, tp_node_id x, const char *wname, int64_t in, int64_t out,
                         const char *bname, const char *mmname, const char *addname) {
    tp_node_id w = param(b, wname, 2, in, out);
    tp_node_id bias = param(b, bname, 1, out, 0);
    return binary(b, TP_BINARY_ADD, matmul(b, x, w, mmname), bias, addname);
}

static tp_node_id layer_norm(bld *b, tp_node_id x, const char *which) {
    char wn[48], bn[48];
    snprintf(wn, sizeof wn, "%s.weight", which);
    snprintf(bn, sizeof bn, "%s.bias", which);
    tp_node_id w = param(b, wn, 1, b->o->d_model, 0);
    tp_node_id bias = param(b, bn, 1, b->o->d_model, 0);
    tp_op o = {.kind = TP_OP_NORM, .sub = TP_NORM_LAYER};
    o.attrs.norm.axis = -1;
    o.attrs.norm.eps = 1e-5;
    return op(b, &o, (tp_node_id[]){x, w, bias}, 3, which);
}

static tp_shape shape4(tp_dim a, tp_dim c, int64_t d, int64_t e) {
    return tp_shape_make(4, (tp_dim[]){a, c, tp_dim_static(d), tp_dim_static(e)});
}

static tp_node_id transpose(bld *b, tp_node_id x, const int32_t perm[4], const char *suffix) {
    tp_op o = {.kind = TP_OP_TRANSPOSE};
    for (int i = 0; i < TP_MAX_RANK; i++)
        o.attrs.transpose.perm[i] = i < 4 ? perm[i] : -1;
    return op(b, &o, &x, 1, suffix);
}

/* Attention spelled out: split, heads, Q·Kᵀ, scale, mask, softmax, ·V, merge. */
static tp_node_id explicit_attention(bld *b, tp_node_id qkv, tp_node_id mask, tp_node_id scale) {
    const int64_t d = b->o->d_model, h = b->o->heads, hd = d / h;
    static const char *const piece[3] = {"attn.q", "attn.k", "attn.v"};
    static const char *const heads4[3] = {"attn.q_heads", "attn.k_heads", "attn.v_heads"};
    static const char *const tr[3] = {"attn.q_t", "attn.k_t", "attn.v_t"};
    static const int32_t perm_qv[4] = {0, 2, 1, 3}, perm_k[4] = {0, 2, 3, 1};
    tp_node_id t[3];
    for (int i = 0; i < 3; i++) {
        tp_op sp = {.kind = TP_OP_SPLIT};
        sp.attrs.narrow.axis = 2;
        sp.attrs.narrow.start = (int64_t)i * d;
        sp.attrs.narrow.length = d;
        tp_node_id part = op(b, &sp, &qkv, 1, piece[i]);
        tp_shape s4 = shape4(b->batch, b->seq, h, hd);
        tp_node_id r = op_shaped(b, &(tp_op){.kind = TP_OP_RESHAPE}, part, &s4, heads4[i]);
        t[i] = transpose(b, r, i == 1 ? perm_k : perm_qv, tr[i]);
    }
    tp_node_id scores = matmul(b, t[0], t[1], "attn.scores");
    tp_node_id scaled = binary(b, TP_BINARY_MUL, scores, scale, "attn.scaled");
    tp_node_id masked = binary(b, TP_BINARY_ADD, scaled, mask, "attn.masked");
    tp_op sm = {.kind = TP_OP_SOFTMAX};
    sm.attrs.axis.axis = -1;
    tp_node_id probs = op(b, &sm, &masked, 1, "attn.probs");
    tp_node_id ctx = matmul(b, probs, t[2], "attn.context");
    tp_node_id merged = transpose(b, ctx, perm_qv, "attn.context_t");
    tp_shape s3 = tp_shape_make(3, (tp_dim[]){b->batch, b->seq, tp_dim_static(d)});
    return op_shaped(b, &(tp_op){.kind = TP_OP_RESHAPE}, merged, &s3, "attn.merged");
}

static tp_node_id block(bld *b, int32_t layer, tp_node_id x, tp_node_id mask, tp_node_id scale) {
    const tp_demo_options *o = b->o;
    snprintf(b->prefix, sizeof b->prefix, "h.%d.", (int)layer);
    tp_node_id ln1 = layer_norm(b, x, "ln_1");
    tp_node_id qkv = linear(b, ln1, "attn.c_attn.weight", o->d_model, 3 * o->d_model,
                            "attn.c_attn.bias", "attn.qkv_mm", "attn.qkv");
    tp_node_id attn;
    if (layer % 2 == 0) {
        tp_op at = {.kind = TP_OP_ATTENTION};
        at.attrs.attention.heads = o->heads;
        at.attrs.attention.kv_heads = o->heads;
        at.attrs.attention.head_dim = o->d_model / o->heads;
        at.attrs.attention.mask = TP_MASK_CAUSAL;
        at.attrs.attention.packed_qkv = true;
        attn = op(b, &at, &qkv, 1, "attn.attention");
    } else {
        attn = explicit_attention(b, qkv, mask, scale);
    }
    tp_node_id proj = linear(b, attn, "attn.c_proj.weight", o->d_model, o->d_model,
                             "attn.c_proj.bias", "attn.proj_mm", "attn.proj");
    /* projection first: it dies here, so the residual add can run in place */
    tp_node_id h1 = binary(b, TP_BINARY_ADD, proj, x, "attn.residual");
    tp_node_id ln2 = layer_norm(b, h1, "ln_2");
    tp_node_id fc = linear(b, ln2, "mlp.c_fc.weight", o->d_model, o->ffn, "mlp.c_fc.bias",
                           "mlp.fc_mm", "mlp.fc");
    tp_op gelu = {.kind = TP_OP_UNARY, .sub = TP_UNARY_GELU};
    tp_node_id act = op(b, &gelu, &fc, 1, "mlp.gelu");
    tp_node_id down = linear(b, act, "mlp.c_proj.weight", o->ffn, o->d_model, "mlp.c_proj.bias",
                             "mlp.proj_mm", "mlp.proj");
    return binary(b, TP_BINARY_ADD, down, h1, "mlp.residual");
}

static tp_status check_options(const tp_demo_options *o, tp_error *err) {
    if (o->layers < 0 || o->layers > 4096 || o->d_model <= 0 || o->heads <= 0 || o->ffn <= 0 ||
        o->vocab <= 0 || o->n_ctx <= 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "demo: widths must be positive (layers %d, d_model %lld, heads %lld, "
                            "ffn %lld, vocab %lld, n_ctx %lld)",
                            (int)o->layers, (long long)o->d_model, (long long)o->heads,
                            (long long)o->ffn, (long long)o->vocab, (long long)o->n_ctx);
    if (o->d_model % o->heads != 0)
        return tp_error_set(err, TP_ERR_INVALID,
                            "demo: d_model %lld is not divisible by heads %lld",
                            (long long)o->d_model, (long long)o->heads);
    if (o->d_model > INT64_MAX / 3)
        return tp_error_set(err, TP_ERR_OVERFLOW, "demo: d_model %lld too large",
                            (long long)o->d_model);
    if (!tp_dtype_is_valid(o->dtype))
        return tp_error_set(err, TP_ERR_INVALID, "demo: invalid dtype %d", (int)o->dtype);
    return TP_OK;
}

static void build(bld *b) {
    const tp_demo_options *o = b->o;
    if (b->st == TP_OK) b->st = tp_graph_symbol(b->g, "batch", &b->batch, b->err);
    if (b->st == TP_OK) b->st = tp_graph_symbol(b->g, "seq", &b->seq, b->err);
    if (b->st != TP_OK) return;
    tp_shape ids = tp_shape_make(2, (tp_dim[]){b->batch, b->seq});
    tp_shape mask_s =
        tp_shape_make(4, (tp_dim[]){b->batch, tp_dim_static(1), tp_dim_static(1), b->seq});
    tp_node_id tokens = TP_NO_NODE, positions = TP_NO_NODE, mask = TP_NO_NODE, scale = TP_NO_NODE;
    b->st = tp_graph_add_input(b->g, "input_ids", TP_DTYPE_I64, &ids, &tokens, b->err);
    if (b->st == TP_OK)
        b->st = tp_graph_add_input(b->g, "position_ids", TP_DTYPE_I64, &ids, &positions, b->err);
    if (b->st == TP_OK && o->layers > 1) {
        /* additive mask [batch, 1, 1, seq] and 1/sqrt(head_dim), used by the explicit layers */
        b->st = tp_graph_add_input(b->g, "attention_mask", o->dtype, &mask_s, &mask, b->err);
        tp_shape scalar = tp_shape_of(0, NULL);
        if (b->st == TP_OK)
            b->st = tp_graph_add_constant(b->g, "attn.scale", o->dtype, &scalar, &scale, b->err);
    }
    tp_node_id wte = param(b, "wte.weight", 2, o->vocab, o->d_model);
    tp_node_id wpe = param(b, "wpe.weight", 2, o->n_ctx, o->d_model);
    tp_op gather = {.kind = TP_OP_GATHER};
    gather.attrs.axis.axis = 0;
    tp_node_id tok = op(b, &gather, (tp_node_id[]){wte, tokens}, 2, "embed.tokens");
    tp_node_id pos = op(b, &gather, (tp_node_id[]){wpe, positions}, 2, "embed.positions");
    tp_node_id x = binary(b, TP_BINARY_ADD, tok, pos, "embed.sum");
    for (int32_t l = 0; l < o->layers; l++)
        x = block(b, l, x, mask, scale);
    b->prefix[0] = 0;
    tp_node_id lnf = layer_norm(b, x, "ln_f");
    /* LM head tied to the token embedding: logits = ln_f · wteᵀ */
    tp_node_id head = TP_NO_NODE;
    if (b->st == TP_OK) b->st = tp_graph_add_tied_param(b->g, "lm_head.weight", wte, &head, b->err);
    tp_op fm = {.kind = TP_OP_FUSED_MATMUL};
    fm.attrs.fused.act = TP_UNARY_IDENTITY;
    fm.attrs.fused.trans_b = true;
    tp_node_id logits = op(b, &fm, (tp_node_id[]){lnf, head}, 2, "logits");
    if (b->st == TP_OK) b->st = tp_graph_mark_output(b->g, logits, b->err);
    if (b->st == TP_OK && o->batch >= 0) b->st = tp_graph_bind(b->g, "batch", o->batch, b->err);
    if (b->st == TP_OK && o->seq >= 0) b->st = tp_graph_bind(b->g, "seq", o->seq, b->err);
}

tp_status tp_demo_transformer(const tp_demo_options *o, const tp_allocator *alloc, tp_graph **out,
                              tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "tp_demo_transformer: NULL out");
    *out = NULL;
    tp_demo_options defaults;
    if (!o) {
        tp_demo_options_default(&defaults);
        o = &defaults;
    }
    tp_status st = check_options(o, err);
    if (st != TP_OK) return st;
    bld b;
    memset(&b, 0, sizeof b);
    b.err = err;
    b.o = o;
    b.st = tp_graph_create(alloc, &b.g, err);
    if (b.st != TP_OK) return b.st;
    build(&b);
    if (b.st != TP_OK) {
        tp_error_prefix(err, "building the demo transformer: ");
        tp_graph_destroy(b.g);
        return b.st;
    }
    *out = b.g;
    return TP_OK;
}
