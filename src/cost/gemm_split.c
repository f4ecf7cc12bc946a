/* Sharing a GEMM between threads as MLAS does (gemm_split.h). */
#include "cost/gemm_split.h"

#include <stddef.h>

bool tp__gemm_split(const tp_gemm_job *j, uint32_t part, uint32_t parts, tp_gemm_job *out,
                    uint32_t *r0, uint32_t *r1) {
    if (parts == 0 || part >= parts) return false;
    if (parts > 1 && j->n > j->m) {
        /* MlasSgemmTryMultithread: columns when there are more of them than rows */
        uint32_t n0 = (uint32_t)((uint64_t)j->n * part / parts);
        uint32_t n1 = (uint32_t)((uint64_t)j->n * (part + 1) / parts);
        /* its own block of B, never a packed B of the whole product */
        *out = (tp_gemm_job){
            j->a, j->b + (size_t)j->k * n0, j->c + (size_t)j->m * n0, j->m, j->k, n1 - n0, NULL};
        *r0 = 0;
        *r1 = j->m;
        return n0 < n1 && j->m > 0;
    }
    uint32_t blocks = (j->m + TP_GEMM_ROW_GRAIN - 1) / TP_GEMM_ROW_GRAIN;
    uint32_t b0 = (uint32_t)((uint64_t)blocks * part / parts);
    uint32_t b1 = (uint32_t)((uint64_t)blocks * (part + 1) / parts);
    *out = *j;
    *r0 = b0 * TP_GEMM_ROW_GRAIN;
    *r1 = b1 * TP_GEMM_ROW_GRAIN > j->m ? j->m : b1 * TP_GEMM_ROW_GRAIN;
    return *r0 < *r1;
}
