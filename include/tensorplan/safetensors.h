/*
 * tensorplan/safetensors.h — Hugging Face safetensors checkpoints: the tensors'
 * names, dtypes, shapes and byte ranges from the JSON header, never the data.
 *
 *     tp_safetensors_info si; tp_error err;
 *     if (tp_safetensors_read("Qwen2.5-7B/", reg, &si, &err) == TP_OK)
 *         printf("%llu tensors, %llu bytes in %u files\n", ...);
 *
 * `path` is one .safetensors file, a sharded checkpoint's
 * model.safetensors.index.json (its weight_map names the files, each read), or a
 * directory holding either (the index is preferred). Each file: an 8-byte
 * little-endian header length N (at most 100,000,000, as the safetensors library
 * allows), N bytes of JSON {"name": {"dtype", "shape", "data_offsets": [begin, end]},
 * "__metadata__": {string: string}}, then the data. Every tensor's byte count must
 * equal its shape times its dtype's size, its range must lie inside the file's data
 * and no two ranges may overlap. Dtypes: F64 F32 F16 BF16 F8_E4M3 F8_E5M2 I64 I32
 * I16 I8 U64 U32 U16 U8 BOOL.
 *
 * Every tensor is registered in reg as a base weight when reg is non-NULL (first
 * registration wins). Errors: TP_ERR_NOT_FOUND / TP_ERR_IO (the file, with the
 * system's reason), TP_ERR_PARSE (the file and the offset: a bad header length, JSON
 * errors, a tensor whose dtype, shape or range is wrong, names it), TP_ERR_UNSUPPORTED
 * (an unknown dtype, rank above 8), TP_ERR_OVERFLOW, TP_ERR_NOMEM.
 * Thread safety: reentrant; reads the files with stdio.
 */
#ifndef TENSORPLAN_SAFETENSORS_H
#define TENSORPLAN_SAFETENSORS_H

#include "tensorplan/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest header a safetensors file may declare (the safetensors library's own limit). */
#define TP_SAFETENSORS_MAX_HEADER 100000000u

typedef struct tp_safetensors_info {
    uint64_t n_tensors;
    uint64_t tensor_bytes; /* sum of the tensors' data bytes */
    uint64_t header_bytes; /* 8 + N, summed over the files */
    uint64_t file_bytes;   /* the files' sizes, summed */
    uint32_t n_files;
    uint64_t dtype_bytes[TP_DTYPE_COUNT]; /* tensor bytes per dtype */
} tp_safetensors_info;

TP_API tp_status tp_safetensors_read(const char *path, tp_registry *reg, tp_safetensors_info *out,
                                     tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
