/* ONNX shape rules: elementwise unary / binary / compare / logic / where /
 * cast / variadic ops (onnx_ops.h). */
#include <string.h>

#include "import/onnx_ops.h"

/* ---- unary ---- */

typedef struct unary_map {
    const char *op;
    tp_unary_fn fn;
} unary_map;

static const unary_map UNARY[] = {
    {"Identity", TP_UNARY_IDENTITY},
    {"Neg", TP_UNARY_NEG},
    {"Abs", TP_UNARY_ABS},
    {"Exp", TP_UNARY_EXP},
    {"Log", TP_UNARY_LOG},
    {"Sqrt", TP_UNARY_SQRT},
    {"Reciprocal", TP_UNARY_RECIP},
    {"Relu", TP_UNARY_RELU},
    {"Gelu", TP_UNARY_GELU},
    {"Sigmoid", TP_UNARY_SIGMOID},
    {"Tanh", TP_UNARY_TANH},
    {"Erf", TP_UNARY_ERF},
    {"Sin", TP_UNARY_SIN},
    {"Cos", TP_UNARY_COS},
    {"Floor", TP_UNARY_FLOOR},
    {"Ceil", TP_UNARY_CEIL},
    {"Round", TP_UNARY_ROUND},
    {"Sign", TP_UNARY_SIGN},
    {"Not", TP_UNARY_NOT},
    {"LeakyRelu", TP_UNARY_LEAKY_RELU},
    {"Elu", TP_UNARY_ELU},
    {"HardSigmoid", TP_UNARY_HARD_SIGMOID},
    {"HardSwish", TP_UNARY_HARD_SWISH},
    {"Softplus", TP_UNARY_SOFTPLUS},
    {"Clip", TP_UNARY_CLIP},
};

static tp_unary_fn unary_fn(const char *op) {
    for (size_t i = 0; i < sizeof UNARY / sizeof UNARY[0]; i++)
        if (strcmp(UNARY[i].op, op) == 0) return UNARY[i].fn;
    return TP_UNARY_OTHER;
}

/* The type of input 0, the IR's unary shape; the IR reads input 0 only (extra
 * inputs such as Clip's min/max are scalars folded into the op). */
static tp_status r_unary(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, c->n_in ? c->n_in : 1);
    if (st != TP_OK) return st;
    c->out[0].elem_type = c->in[0].elem_type;
    c->op.kind = TP_OP_UNARY;
    c->op.sub = (int32_t)unary_fn(c->node->op_type);
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st;
    if (strcmp(c->node->op_type, "Identity") == 0 && c->in[0].value) {
        tp_ox_value *v = tp_ox_value_copy(c->alloc, c->in[0].value);
        if (!v) return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        tp_ox_set_value(c, 0, v);
    }
    /* Floor / Ceil / Round of known floats (sizes computed in float: Cast -> Mul -> Floor) */
    const char *opn = c->node->op_type;
    char mode = strcmp(opn, "Floor") == 0   ? 'f'
                : strcmp(opn, "Ceil") == 0  ? 'c'
                : strcmp(opn, "Round") == 0 ? 'r'
                                            : 0;
    if (mode && c->in[0].value) {
        tp_ox_value *v = NULL;
        if ((st = tp_ox_value_round(c->syms, c->alloc, c->in[0].value, mode, &v, c->err)) != TP_OK)
            return st;
        tp_ox_set_value(c, 0, v);
    }
    /* Neg of known integers (torch exports -1 * dim chains), Not of known booleans (an If on
       Not(rank == 2): silero_vad v5's decoder) */
    bool neg = strcmp(opn, "Neg") == 0, logical_not = strcmp(opn, "Not") == 0;
    if ((neg || logical_not) && c->in[0].value && !c->in[0].value->is_float) {
        const tp_ox_value *x = c->in[0].value;
        tp_ox_value *v = tp_ox_value_new(c->alloc, x->n, false);
        if (!v) return tp_ox_fail(c, TP_ERR_NOMEM, "out of memory");
        for (int64_t i = 0; i < x->n; i++) {
            if (!tp_dim_is_static(x->d[i]) || x->d[i].size == INT64_MIN) {
                tp_ox_value_free(c->alloc, v);
                return TP_OK;
            }
            v->d[i] = tp_dim_static(neg ? -x->d[i].size : x->d[i].size == 0);
        }
        tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

/* Unary ops whose output type differs: IsNaN/IsInf -> bool. */
static tp_status r_unary_bool(tp_ox_ctx *c) {
    tp_status st = r_unary(c);
    c->out[0].elem_type = TP_ONNX_BOOL;
    c->op.kind = TP_OP_CUSTOM; /* the IR's unary ops keep the input dtype */
    tp_ox_set_value(c, 0, NULL);
    return st;
}

/* Dropout: output = data shape; optional mask output (bool). */
static tp_status r_dropout(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 3);
    if (st != TP_OK) return st;
    tp_ox_same(c, 0, 0);
    if (c->n_out > 1) {
        c->out[1].shape = c->in[0].shape;
        c->out[1].elem_type = TP_ONNX_BOOL;
    }
    c->op.kind = TP_OP_UNARY;
    c->op.sub = TP_UNARY_IDENTITY;
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    return TP_OK;
}

/* ---- binary / compare / logic (broadcasting) ---- */

typedef struct binary_map {
    const char *op;
    tp_op_kind kind;
    int32_t sub;
    char vop; /* value-propagation op, 0 = none */
} binary_map;

static const binary_map BINARY[] = {
    {"Add", TP_OP_BINARY, TP_BINARY_ADD, 'A'},
    {"Sub", TP_OP_BINARY, TP_BINARY_SUB, 'S'},
    {"Mul", TP_OP_BINARY, TP_BINARY_MUL, 'M'},
    {"Div", TP_OP_BINARY, TP_BINARY_DIV, 'D'},
    {"Pow", TP_OP_BINARY, TP_BINARY_POW, 0},
    {"Mod", TP_OP_BINARY, TP_BINARY_MOD, 'R'},
    {"And", TP_OP_BINARY, TP_BINARY_AND, 'a'},
    {"Or", TP_OP_BINARY, TP_BINARY_OR, 'o'},
    {"Xor", TP_OP_BINARY, TP_BINARY_XOR, 0},
    {"BitShift", TP_OP_BINARY, TP_BINARY_OTHER, 0},
    {"BitwiseAnd", TP_OP_BINARY, TP_BINARY_AND, 0},
    {"BitwiseOr", TP_OP_BINARY, TP_BINARY_OR, 0},
    {"BitwiseXor", TP_OP_BINARY, TP_BINARY_XOR, 0},
    {"PRelu", TP_OP_BINARY, TP_BINARY_PRELU, 0},
    {"Equal", TP_OP_COMPARE, TP_COMPARE_EQ, '='},
    {"Less", TP_OP_COMPARE, TP_COMPARE_LT, '<'},
    {"LessOrEqual", TP_OP_COMPARE, TP_COMPARE_LE, 0},
    {"Greater", TP_OP_COMPARE, TP_COMPARE_GT, '>'},
    {"GreaterOrEqual", TP_OP_COMPARE, TP_COMPARE_GE, 0},
};

static const binary_map *binary_find(const char *op) {
    for (size_t i = 0; i < sizeof BINARY / sizeof BINARY[0]; i++)
        if (strcmp(BINARY[i].op, op) == 0) return &BINARY[i];
    return NULL;
}

static tp_status r_binary(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    const binary_map *b = binary_find(c->node->op_type);
    if (strcmp(c->node->op_type, "PRelu") == 0) {
        /* the slope broadcasts to X (opset < 7: per channel): X's shape */
        tp_ox_same(c, 0, 0);
        c->op.kind = TP_OP_BINARY;
        c->op.sub = TP_BINARY_PRELU;
        if (c->opset < 7) c->op.kind = TP_OP_CUSTOM;
        return TP_OK;
    }
    bool cmp = b && b->kind == TP_OP_COMPARE;
    c->out[0].elem_type = cmp ? TP_ONNX_BOOL : c->in[0].elem_type;
    c->op.kind = b->kind;
    c->op.sub = b->sub;
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st; /* broadcasting */
    if (b && b->vop && c->in[0].value && c->in[1].value) {
        tp_ox_value *v = NULL;
        bool fl = !cmp && c->in[0].value->is_float;
        st = tp_ox_value_binary(c->syms, c->alloc, b->vop, c->in[0].value, &c->in[0].shape,
                                c->in[1].value, &c->in[1].shape, &c->out[0].shape, fl, &v, c->err);
        if (st != TP_OK) return st;
        tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

/* Variadic Sum / Mean / Max / Min (1+ inputs, broadcasting). */
static tp_status r_variadic(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, c->n_in ? c->n_in : 1);
    if (st != TP_OK) return st;
    /* broadcast folded input by input (any count of them: the same fold per dim) */
    tp_shape acc = {0};
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n_in; i++) {
        if (!c->in[i].present) continue;
        const tp_shape *two[2] = {&acc, &c->in[i].shape};
        tp_shape next;
        if ((st = tp_ox_broadcast(c, n ? two : two + 1, n ? 2 : 1, &next)) != TP_OK) return st;
        acc = next;
        n++;
    }
    c->out[0].shape = acc;
    c->out[0].elem_type = c->in[0].elem_type;
    const char *op = c->node->op_type;
    if (n == 2) {
        c->op.kind = TP_OP_BINARY;
        c->op.sub = strcmp(op, "Sum") == 0   ? TP_BINARY_ADD
                    : strcmp(op, "Max") == 0 ? TP_BINARY_MAX
                    : strcmp(op, "Min") == 0 ? TP_BINARY_MIN
                                             : TP_BINARY_OTHER;
    } else if (n == 1) {
        c->op.kind = TP_OP_UNARY;
        c->op.sub = TP_UNARY_IDENTITY;
    }
    char vop = strcmp(op, "Max") == 0 ? 'x' : strcmp(op, "Min") == 0 ? 'n' : 0;
    if (vop && n == 2 && c->in[0].value && c->in[1].value) {
        tp_ox_value *v = NULL;
        st = tp_ox_value_binary(c->syms, c->alloc, vop, c->in[0].value, &c->in[0].shape,
                                c->in[1].value, &c->in[1].shape, &c->out[0].shape,
                                c->in[0].value->is_float, &v, c->err);
        if (st != TP_OK) return st;
        tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

static tp_status r_where(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 3, 3);
    if (st != TP_OK) return st;
    c->out[0].elem_type = c->in[1].elem_type;
    c->op.kind = TP_OP_WHERE;
    if ((st = tp_ox_ir_shape(c, 0)) != TP_OK) return st; /* broadcasting */
    if (c->in[0].value && c->in[1].value && c->in[2].value) {
        tp_ox_value *v = NULL;
        st = tp_ox_value_where(c->alloc, c->in[0].value, &c->in[0].shape, c->in[1].value,
                               &c->in[1].shape, c->in[2].value, &c->in[2].shape, &c->out[0].shape,
                               &v, c->err);
        if (st != TP_OK) return st;
        tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

static bool elem_is_float(int32_t e) {
    return e == TP_ONNX_FLOAT || e == TP_ONNX_DOUBLE || e == TP_ONNX_FLOAT16 ||
           e == TP_ONNX_BFLOAT16;
}

static tp_status cast_to(tp_ox_ctx *c, int32_t to) {
    c->out[0].shape = c->in[0].shape;
    c->out[0].elem_type = to;
    tp_dtype dt;
    if (tp_onnx_elem_type_to_dtype(to, &dt, NULL) == TP_OK) {
        c->op.kind = TP_OP_CAST;
        c->op.attrs.cast.to = dt;
    }
    tp_ox_ir_inputs(c, 1, (const int32_t[]){0});
    if (c->op.kind == TP_OP_CAST) {
        tp_status st = tp_ox_ir_shape(c, 0);
        if (st != TP_OK) return st;
    }
    if (c->in[0].value) {
        tp_ox_value *v = NULL;
        tp_status st = tp_ox_value_cast(c->syms, c->alloc, c->in[0].value, elem_is_float(to),
                                        to == TP_ONNX_BOOL, &v, c->err);
        if (st != TP_OK) return st;
        tp_ox_set_value(c, 0, v);
    }
    return TP_OK;
}

static tp_status r_cast(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 1, 1);
    if (st != TP_OK) return st;
    int64_t to = tp_ox_attr_int(c, "to", 0);
    if (to <= 0 || to >= TP_ONNX_ELEM_TYPE_COUNT)
        return tp_ox_fail(c, TP_ERR_PARSE, "attribute 'to' = %lld is not a tensor type",
                          (long long)to);
    return cast_to(c, (int32_t)to);
}

static tp_status r_cast_like(tp_ox_ctx *c) {
    tp_status st = tp_ox_arity(c, 2, 2);
    if (st != TP_OK) return st;
    return cast_to(c, c->in[1].elem_type);
}

static const tp_ox_rule ELEMENTWISE_RULES[] = {
    {"Identity", r_unary},     {"Neg", r_unary},        {"Abs", r_unary},
    {"Exp", r_unary},          {"Log", r_unary},        {"Sqrt", r_unary},
    {"Reciprocal", r_unary},   {"Relu", r_unary},       {"Gelu", r_unary},
    {"Sigmoid", r_unary},      {"Tanh", r_unary},       {"Erf", r_unary},
    {"Sin", r_unary},          {"Cos", r_unary},        {"Tan", r_unary},
    {"Asin", r_unary},         {"Acos", r_unary},       {"Atan", r_unary},
    {"Sinh", r_unary},         {"Cosh", r_unary},       {"Asinh", r_unary},
    {"Acosh", r_unary},        {"Atanh", r_unary},      {"Floor", r_unary},
    {"Ceil", r_unary},         {"Round", r_unary},      {"Sign", r_unary},
    {"Not", r_unary},          {"LeakyRelu", r_unary},  {"Elu", r_unary},
    {"Selu", r_unary},         {"Celu", r_unary},       {"ThresholdedRelu", r_unary},
    {"HardSigmoid", r_unary},  {"HardSwish", r_unary},  {"Softplus", r_unary},
    {"Softsign", r_unary},     {"Clip", r_unary},       {"Shrink", r_unary},
    {"Mish", r_unary},         {"BitwiseNot", r_unary}, {"IsNaN", r_unary_bool},
    {"IsInf", r_unary_bool},   {"Dropout", r_dropout},  {"Add", r_binary},
    {"Sub", r_binary},         {"Mul", r_binary},       {"Div", r_binary},
    {"Pow", r_binary},         {"Mod", r_binary},       {"And", r_binary},
    {"Or", r_binary},          {"Xor", r_binary},       {"BitShift", r_binary},
    {"BitwiseAnd", r_binary},  {"BitwiseOr", r_binary}, {"BitwiseXor", r_binary},
    {"PRelu", r_binary},       {"Equal", r_binary},     {"Less", r_binary},
    {"LessOrEqual", r_binary}, {"Greater", r_binary},   {"GreaterOrEqual", r_binary},
    {"Sum", r_variadic},       {"Mean", r_variadic},    {"Max", r_variadic},
    {"Min", r_variadic},       {"Where", r_where},      {"Cast", r_cast},
    {"CastLike", r_cast_like},
};

const tp_ox_rule *tp__ox_rules_elementwise(size_t *n) {
    *n = sizeof ELEMENTWISE_RULES / sizeof ELEMENTWISE_RULES[0];
    return ELEMENTWISE_RULES;
}
