/* The weights llama.cpp's CPU backend repacks (estimate/llm_repack.h). */
#include <string.h>

#include "estimate/llm_repack.h"

bool tp__llm_multiplied(const char *name) {
    if (strstr(name, "embd") || strstr(name, "token_types")) return false; /* GET_ROWS */
    size_t n = strlen(name);
    return n >= 7 && strcmp(name + n - 7, ".weight") == 0;
}

bool tp__llm_repacked(tp_llm_repack k, const char *name, tp_dtype dt, uint32_t n_dims,
                      uint64_t rows) {
    if (k == TP_LLM_REPACK_AMX) k = TP_LLM_REPACK_AVX512; /* what AMX does not take */
    if (k != TP_LLM_REPACK_AVX2 && k != TP_LLM_REPACK_AVX512) return false;
    if (n_dims != 2 && !(n_dims == 3 && strstr(name, "_exps"))) return false;
    if (rows % 8 != 0) return false;
    if (!tp__llm_multiplied(name)) return false;
    switch (dt) {
    case TP_DTYPE_Q4_0:
    case TP_DTYPE_Q4_K:
    case TP_DTYPE_IQ4_NL:
    case TP_DTYPE_MXFP4:
        return true;
    case TP_DTYPE_Q2_K:
        return k == TP_LLM_REPACK_AVX512;
    default:
        return false;
    }
}
