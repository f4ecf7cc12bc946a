/*
 * Internal: the decoded ONNX model as plain C structs (the contract between the
 * reader — onnx_decode*.c, onnx_load.c — and the converter, onnx_convert.c).
 *
 * What the converter can rely on:
 *   - Every pointer below is owned by the model (one arena) and valid until
 *     tp_onnx_model_destroy(). Nothing is ever NULL unless documented: strings
 *     are NUL-terminated ("" when absent), arrays are NULL only when their
 *     count is 0.
 *   - Names, op types, domains, attribute names and attribute string values
 *     are copies (NUL-terminated). Tensor data is NOT copied: raw_data stays in
 *     the mapping (tp_onnx_tensor.raw / raw_offset / raw_size).
 *   - A missing optional node input is "" (the empty string), as in the file.
 *   - The default domain is "" whether the file says "" or "ai.onnx".
 *   - Tensor dims are >= 0 (negative dims are rejected while decoding);
 *     n_elements and n_bytes are overflow-checked products; for raw data the
 *     size was checked against dims × element size (4-bit types: rounded up;
 *     STRING: n_bytes 0).
 *   - value_info dims are >= 0, or symbolic (param), or unknown.
 *   - Small typed data (float_data, int32_data, int64_data, double_data,
 *     uint64_data with at most TP_ONNX_SMALL_VALUES elements) is decoded into
 *     the matching array; tp__onnx_tensor_read_i64 / _f64 read any tensor's
 *     values (raw, typed, any size) into a caller buffer.
 *   - Subgraphs (If/Loop/Scan bodies, attribute type GRAPH/GRAPHS) are decoded
 *     the same way; graph->parent links outward (NULL at the top).
 *   - Graph inputs include initializers when the file lists them; use
 *     tp__onnx_graph_find_initializer to tell them apart.
 *   - Field order in the file does not matter; unknown fields are skipped.
 *
 * Thread safety: a decoded model is immutable (except the cached info).
 */
#ifndef TP_IMPORT_ONNX_MODEL_H
#define TP_IMPORT_ONNX_MODEL_H

#include "tensorplan/onnx.h"

/* ONNX TensorProto.DataType values. */
enum {
    TP_ONNX_UNDEFINED = 0,
    TP_ONNX_FLOAT = 1,
    TP_ONNX_UINT8 = 2,
    TP_ONNX_INT8 = 3,
    TP_ONNX_UINT16 = 4,
    TP_ONNX_INT16 = 5,
    TP_ONNX_INT32 = 6,
    TP_ONNX_INT64 = 7,
    TP_ONNX_STRING = 8,
    TP_ONNX_BOOL = 9,
    TP_ONNX_FLOAT16 = 10,
    TP_ONNX_DOUBLE = 11,
    TP_ONNX_UINT32 = 12,
    TP_ONNX_UINT64 = 13,
    TP_ONNX_COMPLEX64 = 14,
    TP_ONNX_COMPLEX128 = 15,
    TP_ONNX_BFLOAT16 = 16,
    TP_ONNX_FLOAT8E4M3FN = 17,
    TP_ONNX_FLOAT8E4M3FNUZ = 18,
    TP_ONNX_FLOAT8E5M2 = 19,
    TP_ONNX_FLOAT8E5M2FNUZ = 20,
    TP_ONNX_UINT4 = 21,
    TP_ONNX_INT4 = 22,
    TP_ONNX_FLOAT4E2M1 = 23,
    TP_ONNX_ELEM_TYPE_COUNT
};

/* ONNX AttributeProto.AttributeType values. */
typedef enum tp_onnx_attr_type {
    TP_ONNX_ATTR_UNDEFINED = 0,
    TP_ONNX_ATTR_FLOAT = 1,
    TP_ONNX_ATTR_INT = 2,
    TP_ONNX_ATTR_STRING = 3,
    TP_ONNX_ATTR_TENSOR = 4,
    TP_ONNX_ATTR_GRAPH = 5,
    TP_ONNX_ATTR_FLOATS = 6,
    TP_ONNX_ATTR_INTS = 7,
    TP_ONNX_ATTR_STRINGS = 8,
    TP_ONNX_ATTR_TENSORS = 9,
    TP_ONNX_ATTR_GRAPHS = 10,
    TP_ONNX_ATTR_SPARSE_TENSOR = 11,
    TP_ONNX_ATTR_SPARSE_TENSORS = 12,
    TP_ONNX_ATTR_TYPE_PROTO = 13,
    TP_ONNX_ATTR_TYPE_PROTOS = 14
} tp_onnx_attr_type;

/* Where a tensor's values are. */
typedef enum tp_onnx_data_location {
    TP_ONNX_DATA_NONE = 0, /* no values in the file (e.g. zero elements) */
    TP_ONNX_DATA_RAW,      /* raw_data: raw / raw_offset / raw_size */
    TP_ONNX_DATA_TYPED,    /* float_data / int32_data / ... : typed_field, n_typed */
    TP_ONNX_DATA_EXTERNAL  /* data_location = EXTERNAL: ext_* */
} tp_onnx_data_location;

/* Small typed data up to this many elements is decoded eagerly. */
#define TP_ONNX_SMALL_VALUES 4096u

typedef struct tp_onnx_graph tp_onnx_graph;

/* A run of bytes inside the mapped file (zero-copy). */
typedef struct tp_onnx_bytes {
    const uint8_t *data; /* points into the mapping (NULL when size is 0) */
    uint64_t size;
    uint64_t offset; /* file offset of data[0] */
} tp_onnx_bytes;

typedef struct tp_onnx_tensor {
    const char *name;
    int32_t data_type; /* TP_ONNX_FLOAT ... */
    uint32_t rank;
    const int64_t *dims; /* rank entries, each >= 0 */
    uint64_t n_elements; /* product of dims (1 for rank 0) */
    uint64_t n_bytes;    /* n_elements × element size; 0 for STRING */
    tp_onnx_data_location location;
    /* TP_ONNX_DATA_RAW */
    const uint8_t *raw; /* into the mapping */
    uint64_t raw_offset, raw_size;
    /* TP_ONNX_DATA_TYPED: the protobuf field number holding the values (4
     * float_data, 5 int32_data, 6 string_data, 7 int64_data, 10 double_data,
     * 11 uint64_data), the number of values, and the decoded values when
     * n_typed <= TP_ONNX_SMALL_VALUES (exactly one of these is non-NULL then). */
    int32_t typed_field;
    uint64_t n_typed;
    const float *float_data;
    const int32_t *int32_data;
    const int64_t *int64_data;
    const double *double_data;
    const uint64_t *uint64_data;
    /* TP_ONNX_DATA_EXTERNAL: location relative to the model directory; offset
     * and length as written (length 0 when absent = n_bytes). */
    const char *ext_location;
    uint64_t ext_offset, ext_length;
    /* The TensorProto message itself, for re-reading. */
    uint64_t msg_offset, msg_size;
} tp_onnx_tensor;

typedef struct tp_onnx_sparse_tensor {
    tp_onnx_tensor values; /* its name is the sparse tensor's name */
    tp_onnx_tensor indices;
    uint32_t rank;
    const int64_t *dims; /* dense shape */
    uint64_t n_elements; /* of the dense shape */
} tp_onnx_sparse_tensor;

typedef struct tp_onnx_attr {
    const char *name;
    tp_onnx_attr_type type; /* as written; inferred from the fields present if 0 */
    float f;
    int64_t i;
    tp_onnx_bytes s;   /* bytes in the mapping */
    const char *s_str; /* NUL-terminated copy of s ("" when absent) */
    const tp_onnx_tensor *t;
    const tp_onnx_graph *g;
    uint32_t n_floats, n_ints, n_strings, n_tensors, n_graphs;
    const float *floats;
    const int64_t *ints;
    const char *const *strings; /* NUL-terminated copies */
    const tp_onnx_tensor *tensors;
    const tp_onnx_graph *const *graphs;
    const char *ref_attr_name; /* inside functions; "" otherwise */
    uint64_t offset;
} tp_onnx_attr;

typedef struct tp_onnx_node {
    const char *name; /* "" when unnamed */
    const char *op_type;
    const char *domain; /* "" = default domain */
    uint32_t n_inputs, n_outputs, n_attrs;
    const char *const *inputs; /* "" for a missing optional input */
    const char *const *outputs;
    const tp_onnx_attr *attrs;
    uint64_t offset; /* of the NodeProto in the file */
} tp_onnx_node;

struct tp_onnx_graph {
    const char *name;
    uint32_t n_nodes, n_initializers, n_sparse_initializers;
    uint32_t n_inputs, n_outputs, n_value_infos;
    const tp_onnx_node *nodes;
    const tp_onnx_tensor *initializers;
    const tp_onnx_sparse_tensor *sparse_initializers;
    const tp_onnx_value_info *inputs;
    const tp_onnx_value_info *outputs;
    const tp_onnx_value_info *value_infos;
    const tp_onnx_graph *parent; /* enclosing graph of a subgraph; NULL at top */
    uint32_t depth;              /* 0 for the main graph */
    uint64_t offset;
};

struct tp_onnx_model {
    int64_t ir_version;
    int64_t model_version;
    const char *producer_name;
    const char *producer_version;
    const char *domain;
    uint32_t n_opsets;
    const tp_onnx_opset *opsets;
    const tp_onnx_graph *graph; /* never NULL after a successful open */
    /* The whole file (mapping or borrowed memory). */
    const uint8_t *data;
    uint64_t size;
    const char *path;     /* "" for memory input */
    const char *base_dir; /* for external data */
    /* private to the reader */
    const tp_allocator *alloc;
    struct tp_file_map *map;
    struct tp_onnx_arena *arena;
    struct tp_onnx_info_cache *info;
};

/* Opset version imported for a domain ("" or "ai.onnx" = default); 0 if none. */
int64_t tp__onnx_opset(const tp_onnx_model *m, const char *domain);

/* Attribute by name; NULL when absent. */
const tp_onnx_attr *tp__onnx_find_attr(const tp_onnx_node *n, const char *name);
/* Typed attribute getters: the value, or dflt when absent or of another type. */
int64_t tp__onnx_attr_int(const tp_onnx_node *n, const char *name, int64_t dflt);
float tp__onnx_attr_float(const tp_onnx_node *n, const char *name, float dflt);
const char *tp__onnx_attr_str(const tp_onnx_node *n, const char *name, const char *dflt);

/* Initializer of g (not its parents) by name; NULL when absent. Linear. */
const tp_onnx_tensor *tp__onnx_graph_find_initializer(const tp_onnx_graph *g, const char *name);

/* Bytes of one element for fixed-size types (FLOAT 4, INT64 8, BOOL 1, ...);
 * 0 for STRING, 4-bit types, UNDEFINED and unknown values. */
uint32_t tp__onnx_elem_size(int32_t elem_type);
/* Bytes of n elements (4-bit types round up); false on overflow or a type
 * without a fixed size (STRING/UNDEFINED/unknown: *out = 0 and true for STRING). */
bool tp__onnx_elem_bytes(int32_t elem_type, uint64_t n, uint64_t *out);

/* Read up to cap values of t as int64 (floats truncated toward zero, uint64
 * reinterpreted, bool 0/1) into out; *n receives the number of elements in
 * the tensor (may be > cap: then only cap were written). Works for raw and
 * typed data of any size; TP_ERR_UNSUPPORTED for external data, STRING and
 * 4-bit/8-bit float types; TP_ERR_PARSE for inconsistent data. */
tp_status tp__onnx_tensor_read_i64(const tp_onnx_model *m, const tp_onnx_tensor *t, int64_t *out,
                                   uint64_t cap, uint64_t *n, tp_error *err);
/* As above, values as double (float16/bfloat16 converted). */
tp_status tp__onnx_tensor_read_f64(const tp_onnx_model *m, const tp_onnx_tensor *t, double *out,
                                   uint64_t cap, uint64_t *n, tp_error *err);
/* The path of t's external data file (in the model's arena), after checking that it stays in
 * the model's directory (TP_ERR_PARSE naming the tensor otherwise). */
tp_status tp__onnx_external_path(const tp_onnx_model *m, const tp_onnx_tensor *t, const char **path,
                                 tp_error *err);
/* The least value of t (+inf when it has none; NaN is never the least), reading every element
 * once: the same data and errors as above. */
tp_status tp__onnx_tensor_min_f64(const tp_onnx_model *m, const tp_onnx_tensor *t, double *min,
                                  tp_error *err);

#endif
