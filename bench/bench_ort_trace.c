/* bench_ort_trace — the emulated onnxruntime arena of one model, step by step.
 *
 * Prints, for every step of the emulated execution order (ort_order.c; odd steps are the
 * reorder copies of the NCHWc layout) at which a buffer is born, one line:
 *   step  node  op  born_MiB  live_MiB  [reuse|inplace]
 * where live_MiB is the sum of the buffers the arena holds during that step (own allocations,
 * each rounded to 256 bytes, the planner's reused buffers not counted twice): the figure to
 * compare with onnxruntime's mem_bytes_requested_in_use per kernel, which
 * bench/ort_memory/ort_arena_profile.js --nodes prints (sampled after the kernel, before its
 * inputs are released). Ends with the run-1 peak of live bytes and the memory-pattern block.
 *
 * usage: bench_ort_trace MODEL.onnx [--dim NAME=VALUE ...] [--block N] [--live-at STEP]
 * (block default 16; --live-at lists the buffers live at that step)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "estimate/ort_arena.h"
#include "tensorplan.h"

#define MIB (1024.0 * 1024.0)

static uint64_t round256(uint64_t b) {
    return (b + 255u) / 256u * 256u;
}

static int dump(const tp_graph *g, const tp_ort_buf *b, size_t nb, int64_t show) {
    int64_t last = 0;
    for (size_t i = 0; i < nb; i++)
        if (b[i].death > last) last = b[i].death;
    uint64_t peak = 0;
    int64_t peak_step = 0;
    for (int64_t s = 0; s <= last; s++) {
        uint64_t live = 0, born = 0;
        for (size_t i = 0; i < nb; i++) {
            if (b[i].reuses >= 0) continue;
            if (b[i].birth <= s && b[i].death >= s) live += round256(b[i].bytes);
        }
        if (live > peak) {
            peak = live;
            peak_step = s;
        }
        for (size_t i = 0; i < nb; i++) {
            if (b[i].birth != s) continue;
            const tp_node *n = tp_graph_node(g, b[i].id);
            born = b[i].reuses >= 0 ? 0 : round256(b[i].bytes);
            printf("%lld\t%s\t%s%s\t%.3f\t%.3f", (long long)s, n && n->name ? n->name : "?",
                   s % 2 ? "reorder:" : "", n ? tp_op_name(&n->op) : "?", (double)born / MIB,
                   (double)live / MIB);
            if (b[i].reuses >= 0) {
                const tp_node *r = tp_graph_node(g, b[b[i].reuses].id);
                const tp_ort_buf *o = &b[b[i].reuses];
                printf("\t%s %s [%lld, %lld] %.3f MiB",
                       b[i].reuses == b[i].inplace_of ? "inplace" : "reuse",
                       r && r->name ? r->name : "?", (long long)o->birth, (long long)o->death,
                       (double)o->bytes / MIB);
            }
            if (b[i].scratch) printf("\tscratch");
            printf("\n");
        }
        if (show >= 0 && s == show)
            for (size_t i = 0; i < nb; i++)
                if (b[i].reuses < 0 && b[i].birth <= s && b[i].death >= s) {
                    const tp_node *n = tp_graph_node(g, b[i].id);
                    printf("#   live %s %.3f MiB [%lld, %lld]\n", n && n->name ? n->name : "?",
                           (double)b[i].bytes / MIB, (long long)b[i].birth, (long long)b[i].death);
                }
    }
    printf("# run-1 peak of live bytes %.3f MiB at step %lld\n", (double)peak / MIB,
           (long long)peak_step);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_ort_trace MODEL.onnx [--dim NAME=VALUE ...] [--block N]\n");
        return 2;
    }
    const char *dims[32];
    uint32_t n_dims = 0;
    uint32_t block = 16;
    int64_t show = -1;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--dim") && n_dims < 32)
            dims[n_dims++] = argv[i + 1];
        else if (!strcmp(argv[i], "--block"))
            block = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--live-at"))
            show = strtoll(argv[i + 1], NULL, 10);
    }
    tp_error err;
    tp_error_clear(&err);
    tp_onnx_options opt;
    tp_onnx_options_init(&opt);
    opt.dims = dims;
    opt.n_dims = n_dims;
    tp_graph *g = NULL;
    tp_status s = tp_onnx_load(argv[1], &opt, NULL, &g, &err);
    for (uint32_t i = 0; s == TP_OK && i < n_dims; i++)
        s = tp_graph_bind_str(g, dims[i], &err);
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.allocate_params = po.allocate_inputs = po.allocate_constants = false;
    po.inplace = false;
    tp_liveness *l = NULL;
    if (s == TP_OK) s = tp_liveness_compute(g, &po, tp_graph_allocator(g), &l, &err);
    tp_ort_buf *b = NULL;
    size_t nb = 0, cap = 0;
    if (s == TP_OK) s = tp_ort_trace_buffers(g, l, block, &b, &nb, &cap, &err);
    if (s != TP_OK) {
        fprintf(stderr, "bench_ort_trace: %s: %s\n", tp_status_name(s), err.msg);
        tp_liveness_destroy(l);
        tp_graph_destroy(g);
        return 1;
    }
    int rc = dump(g, b, nb, show);
    tp_ort_arena_sim sim;
    if (tp_ort_arena_simulate(g, true, true, block, &sim, &err) == TP_OK)
        printf("# memory-pattern block %.3f MiB, run-1 resident %.3f MiB, regions %u\n",
               (double)sim.mem_pattern_bytes / MIB, (double)sim.first_run_bytes / MIB, sim.regions);
    tp_mem_free(tp_graph_allocator(g), b, cap * sizeof *b);
    tp_liveness_destroy(l);
    tp_graph_destroy(g);
    return rc;
}
