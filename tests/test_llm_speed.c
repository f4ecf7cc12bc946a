/* LLM throughput prediction (tensorplan/llm_speed.h): what a token reads and
 * where each figure comes from. The comparison with llama-bench itself is
 * tests/cli/test_llm_speed.sh. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "tensorplan/llm_speed.h"

static void add(tp_registry *r, const char *name, int64_t d0, int64_t d1, int64_t d2, tp_dtype t) {
    tp_weight_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.rank = d2 ? 3 : 2;
    d.dims[0] = d0;
    d.dims[1] = d1;
    d.dims[2] = d2;
    d.dtype = t;
    d.kind = TP_WEIGHT_BASE;
    tp_error err;
    TP_CHECK(tp_registry_add(r, &d, NULL, &err) == TP_OK);
}

static void config(tp_llm_config *c, uint64_t experts) {
    memset(c, 0, sizeof *c);
    c->n_layer = 1;
    c->n_embd = 256;
    c->n_head = c->n_head_kv = 4;
    c->head_dim_k = c->head_dim_v = 64;
    c->layer_head_kv[0] = 4;
    c->n_expert = experts;
    c->n_expert_used = experts ? 2 : 0;
    c->expert_tensor_bytes = experts ? 1 : 0;
}

/* A one-layer model's two matrices of type t: output (256 x 1000) and ffn_up (256 x 512). */
static tp_registry *two_matrices(tp_dtype t) {
    tp_registry *r = NULL;
    tp_error err;
    TP_CHECK(tp_registry_create(NULL, &r, &err) == TP_OK);
    if (!r) return NULL;
    add(r, "output.weight", 256, 1000, 0, t);
    add(r, "blk.0.ffn_up.weight", 256, 512, 0, t);
    return r;
}

/* A calibration's figures at one thread (the default CPU model's, source measured). */
static void measured_cpu(tp_device_model *cpu) {
    tp_device_model_default(TP_DEVICE_CPU, cpu);
    cpu->source = TP_SOURCE_MEASURED;
    cpu->threads = 1;
}

TP_TEST(moe_reads_only_the_used_experts) {
    tp_registry *r;
    tp_error err;
    TP_CHECK(tp_registry_create(NULL, &r, &err) == TP_OK);
    add(r, "token_embd.weight", 256, 1000, 0, TP_DTYPE_Q4_0); /* a lookup: not read */
    add(r, "output.weight", 256, 1000, 0, TP_DTYPE_Q4_0);
    add(r, "blk.0.ffn_up_exps.weight", 256, 512, 8, TP_DTYPE_Q4_0);
    tp_llm_config c;
    config(&c, 8);
    tp_device_model cpu;
    tp_device_model_default(TP_DEVICE_CPU, &cpu);
    tp_llm_speed s;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &s, &err), &err);
    uint64_t out = tp_registry_find(r, "output.weight")->bytes;
    uint64_t exps = tp_registry_find(r, "blk.0.ffn_up_exps.weight")->bytes;
    TP_CHECK_EQ_U64(s.decode_weight_bytes, out + exps / 4);
    /* the bandwidth is the one of a set holding every expert: the next token routes elsewhere */
    TP_CHECK_EQ_U64(s.decode_working_set_bytes, out + exps + s.decode_kv_bytes);
    /* ... and the memory term is priced at that set's bandwidth: with a read curve whose cache
       holds the active bytes but not every expert, the slower rate applies */
    cpu.n_read = 2;
    cpu.read[0] = (tp_bw_point){(double)(out + exps / 4 + s.decode_kv_bytes), 40};
    cpu.read[1] = (tp_bw_point){(double)(out + exps + s.decode_kv_bytes), 10};
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &s, &err), &err);
    TP_CHECK(fabs(s.decode_memory_ns - (double)(s.decode_weight_bytes + s.decode_kv_bytes) / 10) <
             1e-6 * s.decode_memory_ns);
    tp_device_model_default(TP_DEVICE_CPU, &cpu);
    TP_CHECK(s.weight_type == TP_DTYPE_Q4_0);
    TP_CHECK(s.error_band > 0);
    TP_CHECK_CONTAINS(s.kernel, "q4_0");
    TP_CHECK(s.prefill_tps > s.decode_tps && s.decode_tps > 0);
    /* dense: every expert is read */
    config(&c, 0);
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &s, &err), &err);
    TP_CHECK_EQ_U64(s.decode_weight_bytes, out + exps);
    tp_registry_destroy(r);
}

/* An expert-only model (experts of 256 x 512, 8 of them, 2 used) of type t. */
static tp_registry *experts_only(tp_dtype t) {
    tp_registry *r = NULL;
    tp_error err;
    TP_CHECK(tp_registry_create(NULL, &r, &err) == TP_OK);
    if (r) add(r, "blk.0.ffn_up_exps.weight", 256, 512, 8, t);
    return r;
}

/* Prefill of the expert GEMMs alone (the graph's overhead and attention apart). */
static double experts_prefill(const tp_llm_config *c, const tp_registry *r,
                              const tp_device_model *d, const tp_llm_speed_options *o) {
    tp_llm_speed s;
    tp_error err;
    TP_CHECK_OK(tp_llm_speed_predict(c, r, d, o, &s, &err), &err);
    return s.prefill_gemm_ns;
}

/* A repacked type's experts (q4_0 under the AVX2 rule): llama.cpp multiplies every routed token
   by its expert with the decode kernel, reading the expert's rows each time from the cache
   level that holds one expert. Its arithmetic follows the int8 dot rate, its reads the read
   curve at one expert's bytes, and the two add up; other rules (and q8_0 experts, which no x86
   rule repacks) keep the blocked GEMM factor, and say nothing of it in the kernel line. */
TP_TEST(repacked_experts_run_the_decode_kernel_per_token) {
    tp_registry *r = experts_only(TP_DTYPE_Q4_0);
    if (!r) return;
    tp_llm_config c;
    config(&c, 8);
    tp_device_model cpu;
    measured_cpu(&cpu);
    cpu.mem_gbps = 1e6; /* the ubatch's one pass over the weights never binds */
    cpu.int8_dot_gops = 100;
    double one_expert = (double)tp_registry_find(r, "blk.0.ffn_up_exps.weight")->bytes / 8;
    cpu.n_read = 2;
    cpu.read[0] = (tp_bw_point){one_expert, 40};
    cpu.read[1] = (tp_bw_point){1e9, 10};
    tp_llm_speed_options o;
    tp_llm_speed_options_default(&o);
    o.repack = TP_LLM_REPACK_AVX2;
    double t1 = experts_prefill(&c, r, &cpu, &o);
    tp_device_model fast_reads = cpu;
    fast_reads.read[0].gbps = 80;
    double t2 = experts_prefill(&c, r, &fast_reads, &o);
    tp_device_model fast_dots = cpu;
    fast_dots.int8_dot_gops = 200;
    double t3 = experts_prefill(&c, r, &fast_dots, &o);
    /* 512 tokens x 2 experts each read one expert's bytes at 40 GB/s (half at 80), the whole
       sped up by the factor fitted on the 40 M q4_0 MoE (CPU_MOE_GEMV, 1.215) */
    double reads = 512.0 * 2 * one_expert / 40 / 1.215;
    TP_CHECK_NEAR(t1 - t2, reads / 2, 1e-9 * t1);
    TP_CHECK_NEAR(t1, 2 * (t1 - t2) + 2 * (t1 - t3), 1e-9 * t1);
    tp_llm_speed s;
    tp_error err;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, &o, &s, &err), &err);
    TP_CHECK_CONTAINS(s.kernel, "repacked MoE experts");
    /* no repack rule: the blocked GEMM factor, the read curve plays no part */
    o.repack = TP_LLM_REPACK_NONE;
    TP_CHECK_NEAR(experts_prefill(&c, r, &cpu, &o), experts_prefill(&c, r, &fast_reads, &o),
                  1e-12 * t1);
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, &o, &s, &err), &err);
    TP_CHECK(strstr(s.kernel, "repacked") == NULL);
    tp_registry_destroy(r);
    r = experts_only(TP_DTYPE_Q8_0);
    if (!r) return;
    o.repack = TP_LLM_REPACK_AVX2;
    double q8 = experts_prefill(&c, r, &cpu, &o);
    o.repack = TP_LLM_REPACK_NONE;
    TP_CHECK_NEAR(q8, experts_prefill(&c, r, &cpu, &o), 1e-12 * q8);
    tp_registry_destroy(r);
}

/* Experts that are not repacked are multiplied from L1 in blocks of 16 rows by 16 tokens, each
   thread taking its own blocks: with a one-thread calibration, T threads divide its time by T
   (the T-thread calibration's dot rate gains less from the second thread). */
TP_TEST(blocked_experts_scale_with_the_threads) {
    tp_registry *r = experts_only(TP_DTYPE_Q8_0);
    if (!r) return;
    tp_llm_config c;
    config(&c, 8);
    tp_device_model one, two;
    measured_cpu(&one);
    one.mem_gbps = 1e6;
    one.int8_dot_gops = 100;
    two = one;
    two.threads = 2;
    two.int8_dot_gops = 170;
    tp_llm_speed_options o;
    tp_llm_speed_options_default(&o);
    o.repack = TP_LLM_REPACK_AVX2;
    double t1 = experts_prefill(&c, r, &one, &o);
    double own = experts_prefill(&c, r, &two, &o);
    TP_CHECK_NEAR(own, t1 / 1.7, 1e-9 * t1);
    o.one_thread = &one;
    TP_CHECK_NEAR(experts_prefill(&c, r, &two, &o), t1 / 2, 1e-9 * t1);
    tp_registry_destroy(r);
}

/* Attention as llama.cpp's CPU flash attention runs it: prefill in every layer (twice the layers,
   twice the attention time), decode per used cell (each further cell of depth adds time, and more
   the more cells there are: its cost per cell grew with the depth in llama-bench), and a CPU
   figure with tokens already in the cache carries the depth benchmark's band. */
TP_TEST(attention_counts_every_layer_and_every_cell) {
    tp_error err;
    tp_registry *r = two_matrices(TP_DTYPE_Q8_0);
    if (!r) return;
    tp_llm_config c;
    config(&c, 0);
    tp_device_model cpu;
    measured_cpu(&cpu);
    tp_llm_speed one, two, d0, d1, d2;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &one, &err), &err);
    c.n_layer = 2;
    c.layer_head_kv[1] = 4;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &two, &err), &err);
    TP_CHECK(one.prefill_attn_ns > 0);
    TP_CHECK_NEAR(two.prefill_attn_ns, 2 * one.prefill_attn_ns, 1e-9 * two.prefill_attn_ns);
    tp_llm_speed_options o;
    tp_llm_speed_options_default(&o);
    o.n_prompt = 0;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, &o, &d0, &err), &err);
    o.n_depth = 4096;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, &o, &d1, &err), &err);
    o.n_depth = 8192;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, &o, &d2, &err), &err);
    double step = d1.decode_kernel_ns - d0.decode_kernel_ns;
    TP_CHECK(step > 0);
    TP_CHECK(d2.decode_kernel_ns - d1.decode_kernel_ns > 1.01 * step);
    /* the used cells, not the KV padding of 256 (both would attend 256): 128 generated tokens
       attend 64.5 cells on average, a single one 1, each of them cheaper than a cell at depth */
    tp_llm_speed g1;
    o.n_depth = 0;
    o.n_gen = 1;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, &o, &g1, &err), &err);
    double first = d0.decode_kernel_ns - g1.decode_kernel_ns;
    TP_CHECK(first > 0 && first < 63.5 / 4096 * step);
    TP_CHECK(d1.decode_tps < d0.decode_tps && d2.decode_tps < d1.decode_tps);
    TP_CHECK(d1.error_band >= 0.50 && d1.error_band >= d0.error_band);
    TP_CHECK_CONTAINS(d1.error_source, "llama-bench -d");
    tp_registry_destroy(r);
}

/* With more threads every node adds one meeting of the threads at llama.cpp's spinning barrier
   (the calibration's barrier_ns), not the fork/join that wakes sleeping threads (dispatch_ns),
   which is the fallback for a calibration without it. */
TP_TEST(threads_pay_a_barrier_per_node) {
    tp_error err;
    tp_registry *r = two_matrices(TP_DTYPE_Q8_0);
    if (!r) return;
    tp_llm_config c;
    config(&c, 0);
    tp_device_model cpu;
    measured_cpu(&cpu);
    cpu.dispatch_ns = 20000;
    cpu.barrier_ns = 0;
    tp_llm_speed one, b400, b800, fallback;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &one, &err), &err);
    cpu.threads = 2;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &fallback, &err), &err);
    cpu.barrier_ns = 400;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &b400, &err), &err);
    cpu.barrier_ns = 800;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &b800, &err), &err);
    double per400 = b400.decode_overhead_ns - one.decode_overhead_ns;
    TP_CHECK(per400 > 0);
    TP_CHECK_NEAR(b800.decode_overhead_ns - one.decode_overhead_ns, 2 * per400, 1e-6);
    TP_CHECK_NEAR(fallback.decode_overhead_ns - one.decode_overhead_ns, 50 * per400, 1e-3);
    TP_CHECK(b400.decode_tps > fallback.decode_tps);
    /* the same calibration figures at 2 threads: llama.cpp's decode step gains less than the
       calibration from the second thread, its arithmetic and reads stretched by 1.10
       (CPU_DECODE_MT_FACTOR); the overhead is the barrier's */
    TP_CHECK_NEAR(b400.decode_memory_ns, 1.10 * one.decode_memory_ns, 1e-9 * one.decode_memory_ns);
    TP_CHECK_NEAR(b400.decode_kernel_ns - b400.decode_attn_ns,
                  1.10 * (one.decode_kernel_ns - one.decode_attn_ns), 1e-9 * one.decode_kernel_ns);
    /* flash attention is not stretched: the same figures, the same attention time */
    TP_CHECK(one.decode_attn_ns > 0);
    TP_CHECK_NEAR(b400.decode_attn_ns, one.decode_attn_ns, 1e-9 * one.decode_attn_ns);
    /* a catalog CPU keeps its spec-sheet figures at any thread count */
    tp_llm_speed cat;
    cpu.source = TP_SOURCE_CATALOG;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &cpu, NULL, &cat, &err), &err);
    TP_CHECK_NEAR(cat.decode_memory_ns, one.decode_memory_ns, 1e-9 * one.decode_memory_ns);
    /* the band is the 2-thread benchmark's, and says so; on a host whose llama.cpp runs AMX
       kernels (a measured CPU is this host) the band is the one measured on such a host, and
       says that instead; a catalog CPU never */
    TP_CHECK(b400.error_band > 0);
    if (strstr(one.error_source, "AMX")) {
        TP_CHECK(tp_llm_host_repack() == TP_LLM_REPACK_AMX);
        TP_CHECK_NEAR(one.error_band, 0.80, 1e-12);
        TP_CHECK_NEAR(b400.error_band, 0.80, 1e-12);
    } else {
        TP_CHECK_CONTAINS(b400.error_source, "-t 2");
        TP_CHECK_CONTAINS(one.error_source, "-t 1");
    }
    TP_CHECK(strstr(cat.error_source, "AMX") == NULL);
    tp_registry_destroy(r);
}

/* With a one-thread calibration of the same CPU, a measured CPU's decode at T threads is the
   one-thread step's reads and arithmetic over llama.cpp's gain from the threads (1.65 a
   doubling), whatever the T-thread calibration's own rates, never faster than reading the bytes
   at the T-thread read rate; the overhead stays the T-thread one (its barrier). A one_thread
   model that is not a one-thread measured CPU is ignored: the stretched T-thread figures. */
TP_TEST(more_threads_divide_the_one_thread_step) {
    tp_error err;
    tp_registry *r = two_matrices(TP_DTYPE_Q8_0);
    if (!r) return;
    tp_llm_config c;
    config(&c, 0);
    tp_device_model one, two;
    measured_cpu(&one);
    two = one;
    two.threads = 2;
    two.barrier_ns = 400;
    two.mem_gbps = 3 * one.mem_gbps; /* its own reads: only the floor */
    two.int8_dot_gops = 5 * one.int8_dot_gops;
    tp_llm_speed s1, s2, s4, stretched, ignored, floor;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &one, NULL, &s1, &err), &err);
    tp_llm_speed_options o;
    tp_llm_speed_options_default(&o);
    o.one_thread = &one;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &two, &o, &s2, &err), &err);
    TP_CHECK_NEAR(s2.decode_memory_ns, s1.decode_memory_ns / 1.65, 1e-9 * s1.decode_memory_ns);
    TP_CHECK_NEAR(s2.decode_kernel_ns - s2.decode_attn_ns,
                  (s1.decode_kernel_ns - s1.decode_attn_ns) / 1.65, 1e-9 * s1.decode_kernel_ns);
    /* flash attention: each thread its share of the cells, the one-thread time / T */
    TP_CHECK(s1.decode_attn_ns > 0);
    TP_CHECK_NEAR(s2.decode_attn_ns, s1.decode_attn_ns / 2, 1e-9 * s1.decode_attn_ns);
    TP_CHECK(s1.prefill_attn_ns > 0);
    TP_CHECK_NEAR(s2.prefill_attn_ns, s1.prefill_attn_ns / 2, 1e-9 * s1.prefill_attn_ns);
    TP_CHECK(s2.decode_overhead_ns > s1.decode_overhead_ns);
    TP_CHECK_CONTAINS(s2.basis, "1-thread step / 1.65");
    if (!strstr(s2.error_source, "AMX")) TP_CHECK_NEAR(s2.error_band, 0.30, 1e-12);
    two.threads = 4;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &two, &o, &s4, &err), &err);
    TP_CHECK_NEAR(s4.decode_memory_ns, s1.decode_memory_ns / (1.65 * 1.65),
                  1e-9 * s1.decode_memory_ns);
    /* reads slower at 4 threads than the gain says: the bytes at those reads, nothing hidden */
    two.mem_gbps = one.mem_gbps / 4;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &two, &o, &floor, &err), &err);
    double bytes = (double)floor.decode_weight_bytes + (double)floor.decode_kv_bytes;
    TP_CHECK_NEAR(floor.decode_memory_ns, bytes / two.mem_gbps, 1e-6 * floor.decode_memory_ns);
    TP_CHECK(floor.decode_kernel_ns == floor.decode_attn_ns); /* only the attention's share */
    TP_CHECK(strcmp(floor.decode_bound, "memory") == 0);
    /* not a one-thread measured CPU: ignored */
    two.threads = 2;
    two.mem_gbps = 3 * one.mem_gbps;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &two, NULL, &stretched, &err), &err);
    tp_device_model not_one = two;
    o.one_thread = &not_one;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &two, &o, &ignored, &err), &err);
    TP_CHECK_NEAR(ignored.decode_ns, stretched.decode_ns, 1e-12 * stretched.decode_ns);
    TP_CHECK(strstr(ignored.basis, "1-thread") == NULL);
    not_one = one;
    not_one.source = TP_SOURCE_CATALOG;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &two, &o, &ignored, &err), &err);
    TP_CHECK_NEAR(ignored.decode_ns, stretched.decode_ns, 1e-12 * stretched.decode_ns);
    /* a one-thread device ignores it too */
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &one, &o, &ignored, &err), &err);
    TP_CHECK_NEAR(ignored.decode_ns, s1.decode_ns, 1e-12 * s1.decode_ns);
    tp_registry_destroy(r);
}

/* A measured int8 dot rate prices the prefill GEMMs and the decode arithmetic of quantized
   weights (twice the rate: half the GEMM time) and says so in the kernel line; f16 weights keep the
   f32 GEMM curve; without the rate (catalog, default, an older cache) quantized weights fall back
   to it too. */
TP_TEST(quantized_work_follows_the_int8_dot_rate) {
    tp_error err;
    tp_registry *q = two_matrices(TP_DTYPE_Q4_0), *h = two_matrices(TP_DTYPE_F16);
    if (!q || !h) {
        tp_registry_destroy(q);
        tp_registry_destroy(h);
        return;
    }
    tp_llm_config c;
    config(&c, 0);
    tp_device_model cpu;
    measured_cpu(&cpu);
    cpu.mem_gbps = 1e6; /* the GEMMs, not the weight reads, bound the prefill */
    tp_llm_speed none, r50, r100, f50, f100;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &none, &err), &err);
    cpu.int8_dot_gops = 50;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &r50, &err), &err);
    TP_CHECK_OK(tp_llm_speed_predict(&c, h, &cpu, NULL, &f50, &err), &err);
    cpu.int8_dot_gops = 100;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &r100, &err), &err);
    TP_CHECK_OK(tp_llm_speed_predict(&c, h, &cpu, NULL, &f100, &err), &err);
    TP_CHECK(r50.prefill_gemm_ns > 0);
    TP_CHECK_NEAR(r100.prefill_gemm_ns, r50.prefill_gemm_ns / 2, 1e-9 * r50.prefill_gemm_ns);
    TP_CHECK(r50.prefill_gemm_ns != none.prefill_gemm_ns);
    TP_CHECK_CONTAINS(r50.kernel, "int8 dot");
    TP_CHECK(strstr(none.kernel, "int8 dot") == NULL);
    TP_CHECK_NEAR(f100.prefill_gemm_ns, f50.prefill_gemm_ns, 1e-12 * f50.prefill_gemm_ns);
    TP_CHECK(strstr(f50.kernel, "int8 dot") == NULL);
    /* the decode step's arithmetic on quantized weights follows the same rate: its time goes as
       a / rate plus the attention's (f16, priced by the f32 GEMM); f16 weights ignore the rate */
    tp_llm_speed r200;
    cpu.int8_dot_gops = 200;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &r200, &err), &err);
    double a100 = r50.decode_kernel_ns - r100.decode_kernel_ns;
    TP_CHECK(a100 > 0);
    TP_CHECK_NEAR(r100.decode_kernel_ns - r200.decode_kernel_ns, a100 / 2, 1e-9 * a100);
    TP_CHECK(r50.decode_kernel_ns != none.decode_kernel_ns);
    TP_CHECK_NEAR(f100.decode_kernel_ns, f50.decode_kernel_ns, 1e-12 * f50.decode_kernel_ns);
    tp_registry_destroy(q);
    tp_registry_destroy(h);
}

/* A CPU measured with AMX tiles (amx_int8_gops > 0): the matrices llama.cpp's AMX buffer takes
   (here ffn_up: q8_0, 256 x 512) run their prefill on the tiles' rate (time going as 1 / rate),
   the others keep theirs (output: 1000 rows, not a multiple of 32; an f32 matrix); a decode
   reads the AMX matrix in its packed layout (4 more bytes per q8_0 block of 32); --repack avx512
   (a llama.cpp without its AMX variant) or a calibration without tiles prices as before. */
TP_TEST(amx_tiles_price_what_the_amx_buffer_takes) {
    tp_error err;
    tp_registry *q = two_matrices(TP_DTYPE_Q8_0);
    if (!q) return;
    add(q, "blk.0.attn_q.weight", 256, 256, 0, TP_DTYPE_F32);
    tp_llm_config c;
    config(&c, 0);
    tp_device_model cpu;
    measured_cpu(&cpu);
    cpu.mem_gbps = 1e6; /* the GEMMs, not the weight reads, bound the prefill */
    cpu.int8_dot_gops = 50;
    tp_llm_speed none, a100, a200, a400, off;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &none, &err), &err);
    cpu.amx_int8_gops = 100;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &a100, &err), &err);
    cpu.amx_int8_gops = 200;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &a200, &err), &err);
    cpu.amx_int8_gops = 400;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, NULL, &a400, &err), &err);
    tp_llm_speed_options o;
    tp_llm_speed_options_default(&o);
    o.repack = TP_LLM_REPACK_AVX512;
    TP_CHECK_OK(tp_llm_speed_predict(&c, q, &cpu, &o, &off, &err), &err);
    double d1 = a100.prefill_gemm_ns - a200.prefill_gemm_ns;
    double d2 = a200.prefill_gemm_ns - a400.prefill_gemm_ns;
    TP_CHECK(d1 > 0 && d2 > 0);
    TP_CHECK_NEAR(d1, 2 * d2, 1e-9 * d1);
    TP_CHECK(a400.prefill_gemm_ns > d2); /* the output and the f32 matrix keep their time */
    TP_CHECK_CONTAINS(a100.kernel, "AMX");
    TP_CHECK_CONTAINS(a100.error_source, "AMX");
    TP_CHECK(strstr(none.kernel, "AMX") == NULL);
    /* packed q8_0: (256 x 512) / 32 blocks, 4 bytes more each */
    TP_CHECK_EQ_U64(a100.decode_weight_bytes - none.decode_weight_bytes, 256 * 512 / 32 * 4);
    TP_CHECK_EQ_U64(off.decode_weight_bytes, none.decode_weight_bytes);
    TP_CHECK_NEAR(off.prefill_gemm_ns, none.prefill_gemm_ns, 1e-12 * none.prefill_gemm_ns);
    TP_CHECK_NEAR(off.decode_ns, none.decode_ns, 1e-12 * none.decode_ns);
    TP_CHECK(strstr(off.kernel, "AMX") == NULL);
    tp_registry_destroy(q);
}

TP_TEST(tied_embedding_is_the_output_and_gpus_have_no_band) {
    tp_registry *r;
    tp_error err;
    TP_CHECK(tp_registry_create(NULL, &r, &err) == TP_OK);
    add(r, "token_embd.weight", 256, 1000, 0, TP_DTYPE_F16);
    add(r, "blk.0.attn_q.weight", 256, 256, 0, TP_DTYPE_F16);
    tp_llm_config c;
    config(&c, 0);
    tp_device_model gpu;
    tp_device_model_default(TP_DEVICE_CUDA, &gpu);
    tp_llm_speed s;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &gpu, NULL, &s, &err), &err);
    TP_CHECK_EQ_U64(s.decode_weight_bytes, (256 * 1000 + 256 * 256) * 2);
    TP_CHECK(s.error_band == 0);
    TP_CHECK_CONTAINS(s.error_source, "unknown");
    /* a longer decode test attends more cells: more KV read per token */
    tp_llm_speed_options o;
    tp_llm_speed_options_default(&o);
    uint64_t kv = s.decode_kv_bytes;
    o.n_depth = 4096;
    TP_CHECK_OK(tp_llm_speed_predict(&c, r, &gpu, &o, &s, &err), &err);
    TP_CHECK(s.decode_kv_bytes > kv);
    tp_registry_destroy(r);
}

TP_TEST(errors) {
    tp_registry *r;
    tp_error err;
    TP_CHECK(tp_registry_create(NULL, &r, &err) == TP_OK);
    tp_llm_config c;
    config(&c, 0);
    tp_device_model cpu;
    tp_device_model_default(TP_DEVICE_CPU, &cpu);
    tp_llm_speed s;
    TP_CHECK_STATUS(tp_llm_speed_predict(&c, r, &cpu, NULL, &s, &err), TP_ERR_INVALID);
    TP_CHECK_STATUS(tp_llm_speed_predict(NULL, r, &cpu, NULL, &s, &err), TP_ERR_INVALID);
    cpu.mem_gbps = -1;
    add(r, "output.weight", 256, 1000, 0, TP_DTYPE_F32);
    TP_CHECK_STATUS(tp_llm_speed_predict(&c, r, &cpu, NULL, &s, &err), TP_ERR_INVALID);
    tp_registry_destroy(r);
}

int main(void) {
    TP_RUN(moe_reads_only_the_used_experts);
    TP_RUN(repacked_experts_run_the_decode_kernel_per_token);
    TP_RUN(blocked_experts_scale_with_the_threads);
    TP_RUN(attention_counts_every_layer_and_every_cell);
    TP_RUN(threads_pay_a_barrier_per_node);
    TP_RUN(more_threads_divide_the_one_thread_step);
    TP_RUN(quantized_work_follows_the_int8_dot_rate);
    TP_RUN(amx_tiles_price_what_the_amx_buffer_takes);
    TP_RUN(tied_embedding_is_the_output_and_gpus_have_no_band);
    TP_RUN(errors);
    return tp_test_finish();
}
