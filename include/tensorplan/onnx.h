/*
 * tensorplan/onnx.h — the ONNX importer: a zero-copy reader over an mmap of the
 * model file, model information for `tensorplan inspect`, and conversion to the
 * graph IR (tensorplan/graph.h).
 *
 * Example — load a model, bind its symbolic dims and read the header info:
 *
 *     tp_error err; tp_graph *g; tp_onnx_options opt;
 *     tp_onnx_options_init(&opt);
 *     if (tp_onnx_load("resnet50.onnx", &opt, NULL, &g, &err) != TP_OK) {
 *         fprintf(stderr, "%s\n", err.msg);   // e.g. "...: truncated varint at offset 1234"
 *         return 1;
 *     }
 *     tp_graph_bind(g, "batch", 8, &err);
 *     ... plan ...
 *     tp_graph_destroy(g);
 *
 *     tp_onnx_model *m; tp_onnx_info info;
 *     tp_onnx_model_open("resnet50.onnx", &opt, NULL, &m, &err);
 *     tp_onnx_model_info(m, &info, &err);
 *     printf("opset %lld, %u nodes, %llu params\n", (long long)info.opset,
 *            info.n_nodes, (unsigned long long)info.n_params);
 *     tp_onnx_model_destroy(m);
 *
 * Zero copy: the file is memory-mapped read-only; initializers keep (offset,
 * length) into the mapping and weight bytes are never read or copied. Names,
 * dims and attributes are decoded into memory owned by the model. Files over
 * 2 GiB are handled (all offsets are 64-bit). Tensors stored as external data
 * (data_location = EXTERNAL) are sized from their dims; the data files are only
 * looked at when `verify_external_data` is set.
 *
 * Errors: TP_ERR_IO (cannot open/map), TP_ERR_PARSE (malformed protobuf or ONNX:
 * the message names the file offset and the node or initializer being decoded,
 * e.g. "onnx m.onnx: node 'Conv_0' (Conv, offset 812): length prefix 4294967296
 * at offset 830 runs past the end of the enclosing message (69 bytes left, ends
 * at offset 900)"; err->offset holds the offset),
 * TP_ERR_UNSUPPORTED (an op without a shape rule, an unsupported element type),
 * TP_ERR_SHAPE, TP_ERR_NOT_FOUND (the model file, or an external data file when
 * verifying, does not exist),
 * TP_ERR_NOMEM, TP_ERR_OVERFLOW.
 *
 * Thread safety: an opened tp_onnx_model is immutable; it may be read (info,
 * to_graph) from several threads at once. Different models are independent.
 */
#ifndef TENSORPLAN_ONNX_H
#define TENSORPLAN_ONNX_H

#include "tensorplan/core.h"
#include "tensorplan/dtype.h"
#include "tensorplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The known value of a graph input (for tp_onnx_options.input_values): e.g. the
 * `shape` input of a Reshape or the `sizes` of a Resize that a model takes at
 * run time. Exactly one of values / float_values is non-NULL; count must equal
 * the input's element count (at most 1024). Borrowed for the duration of the
 * call. */
typedef struct tp_onnx_input_value {
    const char *name;
    const int64_t *values;
    const double *float_values;
    uint32_t count;
} tp_onnx_input_value;

typedef struct tp_onnx_options {
    /* Ops without a shape rule pass when value_info (or the graph outputs) give
     * their output shapes; they become TP_OP_CUSTOM nodes. Default false. */
    bool allow_unknown_ops;
    /* Check that every external data file exists and is large enough for
     * offset + length; TP_ERR_NOT_FOUND / TP_ERR_PARSE otherwise. Default false. */
    bool verify_external_data;
    /* Compare inferred shapes with value_info entries; a mismatch is
     * TP_ERR_SHAPE. Default true. */
    bool check_value_info;
    /* Maximum nesting of messages (subgraphs of If/Loop/Scan count as
     * several levels each); deeper input is TP_ERR_PARSE. 0 = default (64). */
    uint32_t max_depth;
    /* Maximum number of nodes in the model, subgraphs included; more is
     * TP_ERR_PARSE, reported before the node arrays are allocated (each node
     * takes about 72 bytes decoded). 0 = default (10,000,000: the largest
     * exported graphs have about a million). */
    uint32_t max_nodes;
    /* Directory that external data locations are relative to; NULL = the
     * directory of the model file (or the current directory for memory input). */
    const char *external_data_dir;
    /* Known values of graph inputs: propagated like constants during shape
     * inference, so shapes computed from them become static (the inputs stay
     * Input nodes). A name that is not a graph input is TP_ERR_NOT_FOUND; a
     * wrong count is TP_ERR_SHAPE. Default none. */
    const tp_onnx_input_value *input_values;
    uint32_t n_input_values;
    /* Symbolic dims known before loading, as "name=value" (the CLI's --dim).
     * A comparison of such a dim of a graph input, or of a dim computed from
     * such dims (an STFT's frame count from the samples), with a number or
     * another such dim (an If on `x.size(1) > 512`) is decided while converting, so
     * the branch taken at these sizes is the one planned (the graph is then
     * specific to them). The graph is not bound by this: bind it after loading
     * (tp_graph_bind_str, which reports a malformed assignment). A name no
     * graph input has, or a malformed assignment, is ignored here. Borrowed
     * for the duration of the call. Default none. */
    const char *const *dims;
    uint32_t n_dims;
} tp_onnx_options;

/* Defaults: everything false except check_value_info; max_depth 0 (= 64),
 * max_nodes 0 (= 10,000,000). */
TP_API void tp_onnx_options_init(tp_onnx_options *opt);

/* Load an ONNX file and convert it to a new graph (*out, owned by the caller,
 * tp_graph_destroy). opt may be NULL (defaults); alloc may be NULL (libc).
 * The mapping is released before returning: the graph keeps only offsets. */
TP_API tp_status tp_onnx_load(const char *path, const tp_onnx_options *opt,
                              const tp_allocator *alloc, tp_graph **out, tp_error *err);
/* As tp_onnx_load from bytes in memory (borrowed for the duration of the call). */
TP_API tp_status tp_onnx_load_memory(const void *data, size_t size, const tp_onnx_options *opt,
                                     const tp_allocator *alloc, tp_graph **out, tp_error *err);

/* ---- the decoded model (no shape inference) ---- */

typedef struct tp_onnx_model tp_onnx_model;

/* Open (mmap + decode) a model file. *out owned by the caller
 * (tp_onnx_model_destroy). The mapping lives as long as the model. */
TP_API tp_status tp_onnx_model_open(const char *path, const tp_onnx_options *opt,
                                    const tp_allocator *alloc, tp_onnx_model **out, tp_error *err);
/* Decode a model from memory. The bytes are borrowed: they must outlive the
 * model (nothing is copied). */
TP_API tp_status tp_onnx_model_open_memory(const void *data, size_t size,
                                           const tp_onnx_options *opt, const tp_allocator *alloc,
                                           tp_onnx_model **out, tp_error *err);
/* Release the model and its mapping. NULL is a no-op. */
TP_API void tp_onnx_model_destroy(tp_onnx_model *m);
/* Convert a decoded model to a new graph (shape inference, value propagation).
 * opt may be NULL; alloc NULL = libc. */
TP_API tp_status tp_onnx_model_to_graph(const tp_onnx_model *m, const tp_onnx_options *opt,
                                        const tp_allocator *alloc, tp_graph **out, tp_error *err);

/* A dimension of a value_info: static (value >= 0, param NULL), symbolic
 * (param = the dim_param name, value -1) or unknown (value -1, param NULL). */
typedef struct tp_onnx_dim {
    int64_t value;
    const char *param;
} tp_onnx_dim;

/* ValueInfoProto. elem_type is the ONNX TensorProto.DataType (0 = not given).
 * rank is -1 when the shape is not given. kind: 't' tensor, 's' sequence,
 * 'm' map, 'o' optional, 'p' sparse tensor, '?' none/unknown; for sequence and
 * optional values elem_type/rank/dims describe the contained tensor. */
typedef struct tp_onnx_value_info {
    const char *name;
    char kind;
    int32_t elem_type;
    int32_t rank;
    const tp_onnx_dim *dims;
    uint64_t offset; /* of the ValueInfoProto in the file */
    /* optional values: 's' when the optional holds a sequence (of the tensor
     * described above), 't' a tensor; 0 otherwise */
    char inner;
} tp_onnx_value_info;

typedef struct tp_onnx_opset {
    const char *domain; /* "" for the default ai.onnx domain */
    int64_t version;
} tp_onnx_opset;

typedef struct tp_onnx_op_count {
    const char *op_type; /* "Conv", or "domain:Op" for other domains */
    uint32_t count;
} tp_onnx_op_count;

/* Summary for `tensorplan inspect`; pointers are owned by the model and valid
 * until tp_onnx_model_destroy. */
typedef struct tp_onnx_info {
    int64_t ir_version;
    const char *producer_name;
    const char *producer_version;
    const char *graph_name;
    int64_t opset; /* version of the default domain; 0 when not imported */
    uint32_t n_opsets;
    const tp_onnx_opset *opsets;
    /* Graph inputs that are not initializers, and graph outputs. */
    uint32_t n_inputs;
    const tp_onnx_value_info *const *inputs;
    uint32_t n_outputs;
    const tp_onnx_value_info *outputs;
    uint32_t n_nodes;       /* top-level graph */
    uint32_t n_nodes_total; /* including nested subgraphs */
    uint32_t n_subgraphs;
    /* Op histogram over all graphs, sorted by count (descending), then name. */
    uint32_t n_ops;
    const tp_onnx_op_count *ops;
    /* Initializers of the main graph; sparse ones count their stored values. */
    uint64_t n_params;
    uint64_t param_elements;
    uint64_t param_bytes;        /* sum over initializers */
    uint64_t unique_param_bytes; /* the same bytes referenced twice counted once */
    uint64_t external_bytes;     /* part of param_bytes stored as external data */
    uint64_t n_external;
    uint64_t file_bytes;
} tp_onnx_info;

/* Fill *out. Computed on first call and cached in the model (not thread-safe
 * on that first call; later calls are read-only). TP_ERR_NOMEM,
 * TP_ERR_OVERFLOW. */
TP_API tp_status tp_onnx_model_info(tp_onnx_model *m, tp_onnx_info *out, tp_error *err);

/* ONNX TensorProto.DataType name ("FLOAT", "INT64", ...); "?" if unknown. */
TP_API const char *tp_onnx_elem_type_name(int32_t elem_type);
/* Map an ONNX element type to a tp_dtype. TP_ERR_UNSUPPORTED for types without
 * one (STRING, 4-bit types, UNDEFINED). */
TP_API tp_status tp_onnx_elem_type_to_dtype(int32_t elem_type, tp_dtype *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
