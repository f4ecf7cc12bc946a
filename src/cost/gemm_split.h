/* How a GEMM is shared between the threads of a pool in the CPU calibration: as onnxruntime's
 * MLAS splits its SGEMM (docs/cost.md, "Few-row GEMMs on several threads"). Internal to
 * src/cost. Pure: thread-safe. */
#ifndef TP_COST_GEMM_SPLIT_H
#define TP_COST_GEMM_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "cost/gemm_kernels.h"

/* Part `part` of `parts` (parts >= 1) of job `j`, written to *out with the rows [*r0, *r1) of
 * *out to compute. More columns than rows (and parts > 1): every part takes all the rows
 * against its own columns, and *out is a K × (its columns) product whose B and C are the
 * contiguous blocks of j's buffers at the offsets of those columns (B laid out as column blocks,
 * as a thread of MLAS reads its columns of a pre-packed B; a caller that needs the true product
 * lays B out that way). Else the rows, in whole TP_GEMM_ROW_GRAIN blocks. Returns false when the
 * part is empty. */
bool tp__gemm_split(const tp_gemm_job *j, uint32_t part, uint32_t parts, tp_gemm_job *out,
                    uint32_t *r0, uint32_t *r1);

#endif
