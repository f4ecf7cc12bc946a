/* vLLM's KV block pool and launch layout (tensorplan/vllm.h), on the published
 * shapes of Llama-3.1-8B and Llama-3.1-70B. The expected figures are worked out here
 * from the shapes by hand, not by the library's code; what vLLM itself reports was not
 * compared (no GPU or vLLM here: docs/estimate.md). */
#include <string.h>

#include "harness.h"
#include "tensorplan/vllm.h"

/* Llama-3.1-8B (L = 32, E = 4096, 32 heads, 8 KV heads of 128, FFN 14336, vocab
 * 128256, 131072 positions, untied), bf16: 8,030,261,248 parameters. */
static void llama8b(tp_llm_config *c) {
    memset(c, 0, sizeof *c);
    strcpy(c->arch, "llama");
    c->n_layer = 32;
    c->n_ctx_train = 131072;
    c->n_embd = 4096;
    c->n_ff = 14336;
    c->n_head = 32;
    c->n_head_kv = 8;
    c->head_dim_k = c->head_dim_v = 128;
    c->n_vocab = 128256;
    c->has_kv = c->family_known = true;
    for (int i = 0; i < 32; i++)
        c->layer_head_kv[i] = 8;
    c->weight_bytes = 8030261248ull * 2;
}

static void devices(const char *spec, tp_llm_device_set *ds) {
    tp_error err;
    if (tp_llm_device_set_parse(spec, ds, &err) != TP_OK) memset(ds, 0, sizeof *ds);
}

/* One case: Llama-3.1-8B on the devices of spec with vLLM's default options. */
typedef struct vcase {
    tp_llm_config c;
    tp_llm_device_set ds;
    tp_vllm_options o;
    tp_vllm_plan p;
    tp_error err;
} vcase;

static void vsetup(vcase *t, const char *spec) {
    llama8b(&t->c);
    devices(spec, &t->ds);
    tp_vllm_options_default(&t->o);
}

static tp_status vplan(vcase *t) {
    return tp_vllm_plan_compute(&t->c, &t->ds, &t->o, &t->p, &t->err);
}

TP_TEST(weights_and_kv_block_of_one_gpu) {
    static vcase t;
    vsetup(&t, "cuda0:80GiB");
    TP_CHECK(vplan(&t) == TP_OK);
    TP_CHECK_EQ_U64(t.p.tensor_parallel, 1);
    TP_CHECK_EQ_U64(t.p.pipeline_parallel, 1);
    /* 2 bytes per parameter (the checkpoint's bytes / parameters) + the rotary cache
     * 131072 x 128 x 2 */
    TP_CHECK_EQ_U64(t.p.rank.weight_bytes, 8030261248ull * 2 + 131072ull * 128 * 2);
    /* one block: 16 tokens x 8 heads x (128 + 128) x 2 bytes, in 32 layers */
    TP_CHECK_EQ_U64(t.p.rank.kv_bytes_per_block_all_layers, 16ull * 8 * 256 * 2 * 32);
    TP_CHECK_EQ_U64(t.p.rank.budget_bytes, (uint64_t)(0.9 * (double)(80ull << 30)));
    TP_CHECK_EQ_U64(t.p.rank.kv_pool_bytes, t.p.rank.budget_bytes - t.p.rank.weight_bytes -
                                                t.p.rank.activation_bytes -
                                                t.p.rank.non_torch_bytes);
    TP_CHECK_EQ_U64(t.p.rank.num_blocks, t.p.rank.kv_pool_bytes / (2ull << 20));
    /* the training context fits: 131072 / 16 blocks of 2 MiB = 16 GiB */
    TP_CHECK(t.p.fits);
    TP_CHECK_EQ_U64(t.p.max_model_len, 131072);
    TP_CHECK_EQ_U64(t.p.kv_bytes_for_len, 16ull << 30);
}

TP_TEST(longest_length_is_the_pool_boundary) {
    static vcase t;
    vsetup(&t, "cuda0:20GiB"); /* 18 GiB budget, 15 GiB of weights */
    t.o.activation_bytes = 1ull << 30;
    t.o.non_torch_bytes = 0;
    TP_CHECK(vplan(&t) == TP_OK);
    uint64_t pool = (uint64_t)(0.9 * (double)(20ull << 30)) - (8030261248ull * 2 + (32ull << 20)) -
                    (1ull << 30);
    TP_CHECK_EQ_U64(t.p.rank.kv_pool_bytes, pool);
    /* whole blocks of 2 MiB each (16 tokens in every layer) */
    uint64_t blocks = pool >> 21;
    TP_CHECK_EQ_U64(t.p.max_model_len_fit, blocks * 16);
    TP_CHECK_EQ_U64(t.p.max_model_len, blocks * 16);
    TP_CHECK(t.p.fits);
    t.o.max_model_len = blocks * 16 + 1; /* one more token needs one more block */
    TP_CHECK(vplan(&t) == TP_OK);
    TP_CHECK(!t.p.fits);
}

TP_TEST(tensor_parallel_shards_and_replicates_kv_heads) {
    static vcase t;
    vsetup(&t, "cuda0:24GiB,cuda1:24GiB,cuda2:24GiB,cuda3:24GiB");
    TP_CHECK(vplan(&t) == TP_OK);
    TP_CHECK_EQ_U64(t.p.tensor_parallel, 4); /* every GPU, the larger tp first */
    TP_CHECK_EQ_U64(t.p.rank.kv_bytes_per_block_all_layers, 16ull * 2 * 256 * 2 * 32);
    /* per rank: layers / 4, embedding and head / 4 (128256 is a multiple of 64), norms whole */
    uint64_t layer = 4096ull * 1024 * 2 + 4096ull * 256 * 2 + 3ull * 4096 * 3584 + 2 * 4096;
    uint64_t params = 32 * layer + 2ull * 32064 * 4096 + 4096;
    TP_CHECK_EQ_U64(t.p.rank.weight_bytes, params * 2 + 131072ull * 128 * 2);
    /* 16 ranks of 8 KV heads: one head each (replicated) */
    devices("cuda0:80GiB,cuda1:80GiB,cuda2:80GiB,cuda3:80GiB,cuda4:80GiB,cuda5:80GiB,"
            "cuda6:80GiB,cuda7:80GiB,cuda8:80GiB,cuda9:80GiB,cuda10:80GiB,cuda11:80GiB,"
            "cuda12:80GiB,cuda13:80GiB,cuda14:80GiB,cuda15:80GiB",
            &t.ds);
    TP_CHECK(vplan(&t) == TP_OK);
    TP_CHECK_EQ_U64(t.p.tensor_parallel, 16);
    TP_CHECK_EQ_U64(t.p.rank.kv_bytes_per_block_all_layers, 16ull * 1 * 256 * 2 * 32);
}

TP_TEST(pipeline_stages_split_the_layers) {
    static vcase t;
    vsetup(&t, "cuda0:24GiB,cuda1:24GiB");
    t.o.tensor_parallel = 1;
    TP_CHECK(vplan(&t) == TP_OK);
    TP_CHECK_EQ_U64(t.p.pipeline_parallel, 2);
    TP_CHECK_EQ_U64(t.p.rank.layers, 16);
    TP_CHECK_EQ_U64(t.p.rank.kv_bytes_per_block_all_layers, 16ull * 8 * 256 * 2 * 16);
}

TP_TEST(sliding_window_layers_need_only_their_window) {
    static vcase t;
    vsetup(&t, "cuda0:80GiB");
    tp_vllm_plan full, swa;
    TP_CHECK(tp_vllm_plan_compute(&t.c, &t.ds, &t.o, &full, &t.err) == TP_OK);
    t.c.swa = true;
    t.c.n_swa = 4096;
    for (int i = 0; i < 32; i++)
        t.c.layer_swa[i] = i % 2 == 0; /* 16 sliding-window layers */
    TP_CHECK(tp_vllm_plan_compute(&t.c, &t.ds, &t.o, &swa, &t.err) == TP_OK);
    /* 16 full layers x 8192 blocks + 16 window layers x (ceil((4095 + 8192) / 16) + 1) */
    uint64_t block = 16ull * 8 * 256 * 2;
    TP_CHECK_EQ_U64(swa.kv_bytes_for_len, 16 * 8192 * block + 16 * (768 + 1) * block);
    TP_CHECK(swa.kv_bytes_for_len < full.kv_bytes_for_len);
}

TP_TEST(too_small_and_bad_requests) {
    static vcase t;
    vsetup(&t, "cuda0:12GiB"); /* the weights alone exceed it */
    TP_CHECK(vplan(&t) == TP_OK);
    TP_CHECK(!t.p.fits);
    TP_CHECK_EQ_U64(t.p.rank.kv_pool_bytes, 0);
    TP_CHECK_EQ_U64(t.p.max_model_len_fit, 0);
    devices("cpu:64GiB", &t.ds);
    TP_CHECK(vplan(&t) == TP_ERR_INVALID);
    TP_CHECK(strstr(t.err.msg, "no GPU") != NULL);
    devices("cuda0", &t.ds);
    TP_CHECK(vplan(&t) == TP_ERR_INVALID);
    TP_CHECK(strstr(t.err.msg, "cuda0") != NULL);
    devices("cuda0:24GiB,cuda1:24GiB,cuda2:24GiB", &t.ds);
    t.o.tensor_parallel = 3; /* 32 heads */
    TP_CHECK(vplan(&t) == TP_ERR_INVALID);
    t.o.tensor_parallel = 0;
    t.o.gpu_memory_utilization = 1.5;
    TP_CHECK(vplan(&t) == TP_ERR_INVALID);
}

int main(void) {
    TP_RUN(weights_and_kv_block_of_one_gpu);
    TP_RUN(longest_length_is_the_pool_boundary);
    TP_RUN(tensor_parallel_shards_and_replicates_kv_heads);
    TP_RUN(pipeline_stages_split_the_layers);
    TP_RUN(sliding_window_layers_need_only_their_window);
    TP_RUN(too_small_and_bad_requests);
    return tp_test_finish();
}
