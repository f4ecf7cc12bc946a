/* The inner loop of a greedy non-maximum suppression as onnxruntime 1.30's CPU
 * NonMaxSuppression runs it (non_max_suppression.cc, read, not copied): every candidate box, in
 * score order, is tested against the boxes kept so far, one intersection-over-union test each,
 * until one suppresses it. The test reads both boxes' corners by index, orders each pair of
 * coordinates, and stops at an empty intersection before it computes the areas. The CPU
 * calibration times that test (docs/cost.md, "NonMaxSuppression"). Internal to src/cost.
 *
 * Thread safety: tp_nms_part reads its job and writes job->kept_count; run it on one thread
 * (onnxruntime runs the operator on the calling thread). */
#ifndef TP_COST_CALIB_NMS_H
#define TP_COST_CALIB_NMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_nms_job {
    const float *boxes;   /* n_boxes boxes of 4 floats: y1, x1, y2, x2 */
    const int32_t *kept;  /* n_kept indices of kept boxes */
    const int32_t *cands; /* n_cands indices of candidate boxes */
    size_t n_kept, n_cands;
    float iou_threshold;
    size_t suppressed; /* out: candidates an earlier box suppressed (keeps the loop alive) */
} tp_nms_job;

/* Tests every candidate against the kept boxes until one suppresses it (part 0 only: one
 * thread); n_kept x n_cands tests when none does. */
void tp_nms_part(void *ctx, uint32_t part, uint32_t parts);

/* The boxes of the benchmark: n boxes on a grid, none overlapping another (so every test runs
 * to an empty intersection, the common case of a batched NMS whose classes are offset apart),
 * their indices shuffled into kept and cands by a fixed sequence. */
void tp_nms_fill(float *boxes, size_t n, int32_t *kept, size_t n_kept, int32_t *cands,
                 size_t n_cands);

#endif
