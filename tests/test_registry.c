/* Tests of the weight registry. */
#include "harness.h"
#include "tensorplan/registry.h"

static tp_weight_desc base(const char *name, int64_t a, int64_t b, tp_dtype dt) {
    tp_weight_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.rank = 2;
    d.dims[0] = a;
    d.dims[1] = b;
    d.dtype = dt;
    return d;
}

TP_TEST(test_kinds_and_total) {
    tp_error err_s, *err = &err_s;
    tp_registry *r = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &r, err), err);
    tp_weight_desc d = base("tok_embd", 32000, 4096, TP_DTYPE_F16);
    bool ins = false;
    TP_CHECK_OK(tp_registry_add(r, &d, &ins, err), err);
    TP_CHECK(ins);
    tp_weight_desc alias = {.name = "lm_head",
                            .kind = TP_WEIGHT_TIED_ALIAS,
                            .related = "tok_embd",
                            .dtype = TP_DTYPE_F16,
                            .rank = 2,
                            .dims = {32000, 4096}};
    TP_CHECK_OK(tp_registry_add(r, &alias, &ins, err), err);
    TP_CHECK(ins);
    tp_weight_desc lora = base("blk.0.attn_q.lora_a", 4096, 16, TP_DTYPE_F32);
    lora.kind = TP_WEIGHT_LORA_ADAPTER;
    lora.related = "style";
    TP_CHECK_OK(tp_registry_add(r, &lora, NULL, err), err);
    tp_weight_desc q = base("blk.0.attn_q", 4096, 4096, TP_DTYPE_Q4_K);
    TP_CHECK_OK(tp_registry_add(r, &q, NULL, err), err);
    tp_weight_desc given = base("given", 10, 10, TP_DTYPE_F32);
    given.bytes = 1000; /* the file's size is taken as given */
    TP_CHECK_OK(tp_registry_add(r, &given, NULL, err), err);

    uint64_t embd = 32000ull * 4096 * 2, lo = 4096ull * 16 * 4, qb = 4096ull * 4096 / 256 * 144;
    TP_CHECK_EQ_U64(tp_registry_count(r), 5);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), embd + lo + qb + 1000); /* alias excluded */
    TP_CHECK_EQ_U64(tp_registry_kind_bytes(r, TP_WEIGHT_LORA_ADAPTER), lo);
    TP_CHECK_EQ_U64(tp_registry_kind_bytes(r, TP_WEIGHT_TIED_ALIAS), embd);
    const tp_weight_entry *e = tp_registry_find(r, "lm_head");
    TP_CHECK(e != NULL);
    if (e) {
        TP_CHECK_EQ_I64(e->kind, TP_WEIGHT_TIED_ALIAS);
        TP_CHECK_STR(e->related, "tok_embd");
    }
    e = tp_registry_find(r, "blk.0.attn_q.lora_a");
    TP_CHECK(e && e->kind == TP_WEIGHT_LORA_ADAPTER && strcmp(e->related, "style") == 0);
    TP_CHECK(tp_registry_find(r, "nope") == NULL);
    TP_CHECK_STR(tp_registry_entry(r, 3)->name, "blk.0.attn_q");
    TP_CHECK(tp_registry_entry(r, 5) == NULL);
    TP_CHECK_STR(tp_weight_kind_name(TP_WEIGHT_LORA_ADAPTER), "lora_adapter");

    /* first registration wins */
    tp_weight_desc again = base("tok_embd", 1, 1, TP_DTYPE_F32);
    TP_CHECK_OK(tp_registry_add(r, &again, &ins, err), err);
    TP_CHECK(!ins);
    TP_CHECK_EQ_U64(tp_registry_find(r, "tok_embd")->bytes, embd);
    TP_CHECK_EQ_U64(tp_registry_count(r), 5);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), embd + lo + qb + 1000);
    tp_registry_destroy(r);
    tp_registry_destroy(NULL);
}

TP_TEST(test_resolve_and_pins) {
    tp_error err_s, *err = &err_s;
    tp_registry *r = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &r, err), err);
    tp_weight_desc a = base("a", 2, 2, TP_DTYPE_F32);
    tp_weight_desc b = {.name = "b", .kind = TP_WEIGHT_TIED_ALIAS, .related = "a"};
    tp_weight_desc c = {.name = "c", .kind = TP_WEIGHT_TIED_ALIAS, .related = "b"};
    tp_weight_desc dangling = {.name = "d", .kind = TP_WEIGHT_TIED_ALIAS, .related = "zzz"};
    TP_CHECK_OK(tp_registry_add(r, &a, NULL, err), err);
    TP_CHECK_OK(tp_registry_add(r, &b, NULL, err), err);
    TP_CHECK_OK(tp_registry_add(r, &c, NULL, err), err);
    TP_CHECK_OK(tp_registry_add(r, &dangling, NULL, err), err);
    const tp_weight_entry *e = NULL;
    TP_CHECK_OK(tp_registry_resolve(r, "a", &e, err), err);
    TP_CHECK_STR(e->name, "a");
    TP_CHECK_OK(tp_registry_resolve(r, "b", &e, err), err);
    TP_CHECK_STR(e->name, "a");
    /* one step only: c -> b (itself an alias) */
    TP_CHECK_OK(tp_registry_resolve(r, "c", &e, err), err);
    TP_CHECK_STR(e->name, "b");
    TP_CHECK_STATUS(tp_registry_resolve(r, "d", &e, err), TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err->msg, "'zzz'");
    TP_CHECK_STATUS(tp_registry_resolve(r, "x", &e, err), TP_ERR_NOT_FOUND);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), 16);

    uint64_t n = 0;
    TP_CHECK_OK(tp_registry_pin(r, "a", &n, err), err);
    TP_CHECK_EQ_U64(n, 1);
    TP_CHECK_OK(tp_registry_pin(r, "b", &n, err), err); /* pins the storage "a" */
    TP_CHECK_EQ_U64(n, 2);
    TP_CHECK_EQ_U64(tp_registry_find(r, "a")->pins, 2);
    TP_CHECK_EQ_U64(tp_registry_find(r, "b")->pins, 0);
    TP_CHECK_OK(tp_registry_release(r, "a", &n, err), err);
    TP_CHECK_OK(tp_registry_release(r, "b", &n, err), err);
    TP_CHECK_EQ_U64(n, 0);
    TP_CHECK_STATUS(tp_registry_release(r, "a", &n, err), TP_ERR_UNDERFLOW);
    TP_CHECK_CONTAINS(err->msg, "not pinned");
    TP_CHECK_EQ_U64(tp_registry_find(r, "a")->pins, 0);
    TP_CHECK_STATUS(tp_registry_pin(r, "nope", &n, err), TP_ERR_NOT_FOUND);
    TP_CHECK_STATUS(tp_registry_release(r, "d", &n, err), TP_ERR_NOT_FOUND);
    tp_registry_destroy(r);
}

TP_TEST(test_bad_input) {
    tp_error err_s, *err = &err_s;
    tp_registry *r = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &r, err), err);
    tp_weight_desc d = base("", 1, 1, TP_DTYPE_F32);
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_INVALID);
    d = base("neg", 4, -1, TP_DTYPE_F32);
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "'neg'");
    d = base("q", 3, 5, TP_DTYPE_Q4_0);
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_SHAPE);
    TP_CHECK_CONTAINS(err->msg, "'q'");
    d = base("big", 1ll << 40, 1ll << 30, TP_DTYPE_F32);
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_OVERFLOW);
    d = (tp_weight_desc){.name = "self", .kind = TP_WEIGHT_TIED_ALIAS, .related = "self"};
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_INVALID);
    d = (tp_weight_desc){.name = "l", .kind = TP_WEIGHT_LORA_ADAPTER};
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_INVALID);
    TP_CHECK_CONTAINS(err->msg, "adapter name");
    d = (tp_weight_desc){.name = "k", .kind = (tp_weight_kind)7};
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_INVALID);
    d = (tp_weight_desc){.name = "rank", .rank = 9};
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_INVALID);
    /* running total overflow: the registry is unchanged */
    d = (tp_weight_desc){.name = "huge1", .bytes = UINT64_MAX - 10};
    TP_CHECK_OK(tp_registry_add(r, &d, NULL, err), err);
    d = (tp_weight_desc){.name = "huge2", .bytes = 11};
    TP_CHECK_STATUS(tp_registry_add(r, &d, NULL, err), TP_ERR_OVERFLOW);
    TP_CHECK_EQ_U64(tp_registry_count(r), 1);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), UINT64_MAX - 10);
    /* an alias adds nothing, so it cannot overflow */
    d = (tp_weight_desc){
        .name = "huge3", .bytes = 11, .kind = TP_WEIGHT_TIED_ALIAS, .related = "huge1"};
    TP_CHECK_OK(tp_registry_add(r, &d, NULL, err), err);
    /* a scalar */
    d = (tp_weight_desc){.name = "scale", .dtype = TP_DTYPE_F32};
    TP_CHECK_OK(tp_registry_add(r, &d, NULL, err), err);
    TP_CHECK_EQ_U64(tp_registry_find(r, "scale")->bytes, 4);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), UINT64_MAX - 6);
    TP_CHECK_STATUS(tp_registry_add(NULL, &d, NULL, err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_registry_create(NULL, NULL, err), TP_ERR_INVALID);
    tp_registry_destroy(r);
}

/* Many names: the hash index grows and every name is still found. */
TP_TEST(test_many_names) {
    tp_error err_s, *err = &err_s;
    tp_registry *r = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &r, err), err);
    char name[32];
    uint64_t want = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "blk.%d.ffn", i);
        tp_weight_desc d = base(name, 1 + i % 7, 64, TP_DTYPE_F16);
        TP_CHECK_OK(tp_registry_add(r, &d, NULL, err), err);
        want += (uint64_t)(1 + i % 7) * 64 * 2;
    }
    TP_CHECK_EQ_U64(tp_registry_count(r), 5000);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), want);
    int missing = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "blk.%d.ffn", i);
        const tp_weight_entry *e = tp_registry_find(r, name);
        if (!e || e->dims[0] != 1 + i % 7) missing++;
    }
    TP_CHECK_EQ_I64(missing, 0);
    tp_registry_destroy(r);
}

/* Fail every allocation in turn: each failure is TP_ERR_NOMEM, leaves the
 * registry consistent, and nothing leaks. */
TP_TEST(test_alloc_failure_sweep) {
    int sweeps = 0;
    for (long k = 1; k < 200; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_error err_s, *err = &err_s;
        tp_registry *r = NULL;
        tp_status s = tp_registry_create(&fa.hook, &r, err);
        int added = 0;
        char name[32];
        for (int i = 0; s == TP_OK && i < 40; i++) {
            snprintf(name, sizeof name, "w%d", i);
            tp_weight_desc d = base(name, 2, 2, TP_DTYPE_F32);
            if (i % 5 == 4) {
                d.kind = TP_WEIGHT_TIED_ALIAS;
                d.related = "w0";
            }
            s = tp_registry_add(r, &d, NULL, err);
            if (s == TP_OK) added++;
        }
        if (s != TP_OK) TP_CHECK_EQ_I64(s, TP_ERR_NOMEM);
        if (r) {
            TP_CHECK_EQ_U64(tp_registry_count(r), (uint64_t)added);
            for (int i = 0; i < added; i++) {
                snprintf(name, sizeof name, "w%d", i);
                TP_CHECK(tp_registry_find(r, name) != NULL);
            }
        }
        tp_registry_destroy(r);
        TP_CHECK_EQ_I64(fa.live, 0);
        TP_CHECK_EQ_U64(fa.live_bytes, 0);
        sweeps++;
        if (!fa.failed) break;
    }
    TP_CHECK(sweeps > 10);
}

TP_TEST(test_graph_params) {
    tp_error err_s, *err = &err_s;
    tp_graph *g = NULL;
    TP_CHECK_OK(tp_graph_create(NULL, &g, err), err);
    if (!g) return;
    tp_shape es = tp_shape_of(2, (int64_t[]){1000, 64});
    tp_shape ws = tp_shape_of(2, (int64_t[]){64, 64});
    tp_node_id emb, w, head;
    TP_CHECK_OK(tp_graph_add_param(g, "embd", TP_DTYPE_F32, &es, &emb, err), err);
    TP_CHECK_OK(tp_graph_add_param(g, "w", TP_DTYPE_F16, &ws, &w, err), err);
    TP_CHECK_OK(tp_graph_add_tied_param(g, "head", emb, &head, err), err);
    tp_registry *r = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &r, err), err);
    TP_CHECK_OK(tp_registry_add_graph_params(r, g, err), err);
    TP_CHECK_EQ_U64(tp_registry_count(r), 3);
    TP_CHECK_EQ_U64(tp_registry_total_bytes(r), 1000 * 64 * 4 + 64 * 64 * 2);
    const tp_weight_entry *e = NULL;
    TP_CHECK_OK(tp_registry_resolve(r, "head", &e, err), err);
    TP_CHECK(e && strcmp(e->name, "embd") == 0);
    TP_CHECK_EQ_I64(tp_registry_find(r, "w")->dims[1], 64);
    tp_registry_destroy(r);
    tp_graph_destroy(g);
}

int main(void) {
    TP_RUN(test_kinds_and_total);
    TP_RUN(test_resolve_and_pins);
    TP_RUN(test_bad_input);
    TP_RUN(test_many_names);
    TP_RUN(test_alloc_failure_sweep);
    TP_RUN(test_graph_params);
    return tp_test_finish();
}
