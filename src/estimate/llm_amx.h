/* Internal: the weight types llama.cpp's AMX kernels take (ggml-cpu/amx, read, not copied),
 * shared by the model buffers' AMX rule (src/import/gguf_layout.c) and the throughput's error
 * band (llm_speed.c). Pure: thread-safe. */
#ifndef TP_ESTIMATE_LLM_AMX_H
#define TP_ESTIMATE_LLM_AMX_H

#include <stdbool.h>
#include <stdint.h>

#include "tensorplan/dtype.h"

/* Whether llama.cpp's AMX kernels multiply weights of type dt (F16, Q4_0, Q4_1, Q8_0, Q4_K, Q5_K,
 * Q6_K, IQ4_XS); then, where non-NULL, the multiple of elements ne[0] must be (*align) and the
 * bytes each block carries in AMX's packed layout beyond its own (*extra). */
bool tp__llm_amx_type(tp_dtype dt, uint64_t *align, uint64_t *extra);

#endif
