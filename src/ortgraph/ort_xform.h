/* onnxruntime's CPU graph after its optimizer at the default level "all" (internal; the
 * fusions and the NCHWc layout, ort_xform.c): which tensors the fusions remove, which stay in the
 * blocked layout, and where the layout copies (ReorderInput / ReorderOutput) go. Read by the
 * onnxruntime memory profile (estimate/) and by the cost model (cost/), below both.
 *
 * Thread safety: pure functions of the graph; a tp_ort_xform is owned by its caller. */
#ifndef TP_ORTGRAPH_ORT_XFORM_H
#define TP_ORTGRAPH_ORT_XFORM_H
#include "tensorplan/graph.h"

/* onnxruntime's optimized graph over g's nodes (ort_xform.c): arrays of node count + 1, owned,
 * freed by tp_ort_xform_free. */
typedef struct tp_ort_xform {
    uint32_t n;
    uint32_t block;    /* the NCHWc channel block (0: no layout transformation) */
    uint8_t *chain;    /* the node's output is in the NCHWc blocked layout */
    uint8_t *absorbed; /* fused into its only reader: no tensor of its own */
    int32_t *sum_of;   /* an Add fused into a Conv as its Sum input: that input, else -1 */
    uint64_t *key;     /* > n: a node the optimizer creates (its order: tp_ort_exec_keys) */
    int32_t *origin;   /* the node a fused group is created at (its Conv), else itself */
    uint8_t *stage;    /* on origins: TP_ORT_MADE_* bits, the optimizer passes creating it */
    /* a node of an erf GELU that onnxruntime fuses into one Gelu / BiasGelu node (gelu_fusion.cc,
     * bias_gelu_fusion.cc): the GELU's last Mul, which becomes the fused node (its own entry
     * too); else -1 */
    int32_t *gelu_of;
    /* a residual Add and the layer normalization it feeds that onnxruntime fuses into one
     * SkipLayerNormalization (skip_layer_norm_fusion.cc): both map to the normalization, which
     * becomes the fused node (the Add is absorbed: no tensor); else -1 */
    int32_t *skip_norm_of;
    /* a Cast onnxruntime removes (RemoveDuplicateCastTransformer, insert_cast_transformer.cc;
     * tp_ort_cast_removed): the node whose tensor its readers read instead (never itself a
     * removed Cast); else -1. The Cast runs no kernel and has no tensor. */
    int32_t *same_as;
    /* onnxruntime's QDQ fusion (ort_qdq.h): TP_ORT_QDQ_* per node. A target and the
     * DequantizeLinear nodes only targets read are absorbed (no tensor); the QuantizeLinear
     * after a target holds the quantized kernel's 8-bit output */
    uint8_t *qdq;
} tp_ort_xform;

/* A node created by a level-extended fusion (FusedConv, Gelu, QuickGelu, FusedMatMul), by the
 * NCHWc transformer (level all), or both (a FusedConv converted to NCHWc). */
#define TP_ORT_MADE_FUSED 1u
#define TP_ORT_MADE_NCHWC 2u
/* A fused Gelu that took in the bias Add before it: onnxruntime's BiasGelu kernel. */
#define TP_ORT_MADE_BIAS_GELU 4u

/* block: NCHWc channel block (0: no layout transformation). TP_ERR_NOMEM. */
tp_status tp_ort_xform_compute(const tp_graph *g, uint32_t block, tp_ort_xform *x, tp_error *err);
void tp_ort_xform_free(const tp_graph *g, tp_ort_xform *x);
/* Whether onnxruntime's CPU provider computes node n in float32: a float32 node, or a float16 /
 * bfloat16 operator node other than a Cast or a half kernel. The provider has no half-precision
 * kernels for most operators and runs them in float32 (InsertCastTransformer: Casts around them,
 * their half weights converted at load): isnet_medium's float16 Convs ran as float32 NCHWc Convs
 * in onnxruntime 1.30's optimized graph (docs/runtime.md, "Session 30"). */
bool tp_ort_computes_f32(const tp_node *n);
/* A half-precision node the provider keeps in half precision (tp_ort_half_kernel): a Concat.
 * Between it and the float32 nodes onnxruntime inserts Casts: a half copy of each float32
 * input, made right after that input is written, and a float32 copy of its output for its
 * float32 readers (isnet_medium's optimized graph: ReorderOutput, Cast, Concat, Cast,
 * ReorderInput; ort_trace.c traces both copies). Other type-generic kernels (data movement) may
 * stay half too; only the Concat was seen. */
bool tp_ort_half_kernel(const tp_node *n);
/* The two Casts: whether reader reads producer's tensor through a half copy (a half kernel
 * reading a tensor computed in float32), or through a float32 copy (a node computing in
 * float32, not a Cast, reading a half kernel's output). Used by the trace (ort_trace.c) and the
 * cost model (cost/layout_copies.c). */
bool tp_ort_casts_to_half(const tp_node *reader, const tp_node *producer);
bool tp_ort_casts_to_f32(const tp_node *reader, const tp_node *producer);
/* A half-precision tensor n computes in float32 (tp_ort_computes_f32): onnxruntime holds it at
 * twice its bytes. */
bool tp_ort_widened(const tp_node *n);
/* Whether onnxruntime removes Cast node n, whose input is node p, and what its readers read
 * instead (*target). Its optimizer first puts Casts around every half-precision node it runs in
 * float32 (InsertCastTransformer), then removes a Cast that undoes the Cast before it
 * (RemoveDuplicateCastTransformer): the second Cast's target type is the first one's source type,
 * both within one type group (bool, integers, floats: float16 and float32 are one group), not a
 * narrowing to another group undone, and the second Cast is not a graph output. So a model's Cast
 * to float32 of a half tensor computed in float32 (tp_ort_widened) reads that float32 tensor (its
 * inserted Cast to half and the model's Cast back cancel: isnet_medium's Resize inputs), and of a
 * model's Cast pair the second reads the first one's input. */
bool tp_ort_cast_removed(const tp_graph *g, const tp_node *n, const tp_node *p, tp_node_id *target);
/* The node whose tensor a reader of node `in` reads: the source of a removed Cast (same_as), else
 * `in` itself (also when it is out of range). */
static inline tp_node_id tp_ort_source_of(const tp_ort_xform *x, tp_node_id in) {
    return in >= 0 && (uint32_t)in < x->n && x->same_as[in] >= 0 ? x->same_as[in] : in;
}
/* A half-precision weight w read by such a node: converted to float32 when the session loads
 * (its Cast folded), held at twice its bytes. */
bool tp_ort_weight_widened(const tp_node *reader, const tp_node *w);
/* Whether onnxruntime converts a float Conv of `spatial` dims, `groups` groups, cin input and
 * cout output channels to NCHWc (nchwc_transformer.cc, TransformConv, as onnxruntime 1.30 runs
 * it): 2-D, and groups 1 with input channels under the block (read in NCHW directly) or aligned
 * to 4, any output channels (padded to the block); depthwise with channels aligned to 4; grouped
 * with per-group input and output channels multiples of the block. False when block is 0. The
 * one rule behind the memory profile's layout and the cost model's convolution prices. */
bool tp_ort_conv_converts(uint64_t spatial, uint64_t groups, uint64_t cin, uint64_t cout,
                          uint32_t block);
/* Gates of a recurrent node (the importer's custom ONNX LSTM 4, GRU 3, RNN 1); 0 for any other
 * node. onnxruntime runs LSTM and GRU with its deep_cpu kernels (they pre-pack W and R). */
uint32_t tp_ort_recurrent_gates(const tp_node *n);
/* tp_ort_conv_converts for a Conv node of g (false for another op or dtype, unbound channels). */
bool tp_ort_conv_converted(const tp_graph *g, const tp_node *n, uint32_t block);
/* A pooling (max, average, global; not Lp) of a float 4-D tensor whose channels are a multiple
 * of the block: the NCHWc transformer converts it whatever its input's layout (TransformPool),
 * inserting a ReorderInput copy of a plain input (isnet's MaxPools after ConvInteger's plain
 * chain). False when block is 0 or the channels are unbound. */
bool tp_ort_pool_converts_plain(const tp_graph *g, const tp_node *n, uint32_t block);
/* A converted Conv with fewer input channels than the block reads its input in NCHW. */
bool tp_ort_conv_reads_nchw(const tp_graph *g, const tp_node *n, uint32_t block);
/* Dim axis of a 4-D node under the current bindings, when positive. */
bool tp_ort_dim(const tp_graph *g, const tp_node *n, int axis, int64_t *v);

/* How node m reads its input i (node id in), whose storage is root's (in itself, or the tensor
 * a view of it stands for): */
typedef enum tp_ort_read {
    TP_ORT_READ_BLOCKED,   /* a blocked reader of a blocked tensor: reads it directly */
    TP_ORT_READ_REORDERED, /* a plain reader of a blocked tensor: reads its ReorderOutput copy */
    TP_ORT_READ_PLAIN,     /* a plain reader of a plain tensor */
    TP_ORT_READ_TO_BLOCKED /* a blocked Conv of a plain tensor: reads its ReorderInput copy */
} tp_ort_read;
tp_ort_read tp_ort_read_of(const tp_graph *g, const tp_ort_xform *x, tp_node_id m, uint32_t i,
                           tp_node_id in, tp_node_id root);
/* Bytes of a blocked copy of node n's bytes (its channels, axis 1, rounded up to the block);
 * *chan receives the rounded channel count. False when the channels are unknown or it
 * overflows. */
bool tp_ort_padded_bytes(const tp_graph *g, const tp_node *n, uint64_t bytes, uint32_t block,
                         uint64_t *out, int64_t *chan);
#endif
