/* Internal: llama.cpp's per-tensor type choice when llama-quantize writes a file type
 * (src/llama-quant.cpp: tensor_allows_quantization, llama_tensor_get_type_impl,
 * tensor_type_fallback), as tables. */
#ifndef TP_IMPORT_LLM_QUANT_H
#define TP_IMPORT_LLM_QUANT_H

#include "llm_tensors.h"

/* The file type named `name` (llama-quantize's names, any case: "q4_k_m", "Q8_0", "bf16";
 * "q4_k" is q4_k_m, "q3_k" q3_k_m, "q5_k" q5_k_m as in llama-quantize). -1 when unknown. */
int tp__llm_ftype_find(const char *name);
/* Canonical lower-case name of file type i ("q4_k_m"); NULL past the end (enumerates). */
const char *tp__llm_ftype_name(int i);

/* The type of every tensor after quantizing to file type ft (types[i] for l->t[i]), for a
 * model of config c. TP_ERR_UNSUPPORTED when llama.cpp refuses (a row no fallback fits:
 * "no tensor type fallback", or a tensor outside blk.0..n_layer-1 in an MoE). */
tp_status tp__llm_quant_types(const tp_llm_config *c, const tp_llm_tensors *l, int ft,
                              tp_dtype *types, tp_error *err);

#endif
