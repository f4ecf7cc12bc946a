/* The NonMaxSuppression micro-benchmark's kernel (calib_nms.h). */
#include "cost/calib_nms.h"

static inline void ordered(float a, float b, float *lo, float *hi) {
    if (a <= b) {
        *lo = a;
        *hi = b;
    } else {
        *lo = b;
        *hi = a;
    }
}

/* intersection over union of boxes i and j above the threshold */
static int suppresses(const float *boxes, int32_t i, int32_t j, float threshold) {
    const float *a = boxes + 4 * (size_t)i, *b = boxes + 4 * (size_t)j;
    float ax0, ax1, ay0, ay1, bx0, bx1, by0, by1;
    ordered(a[1], a[3], &ax0, &ax1);
    ordered(a[0], a[2], &ay0, &ay1);
    ordered(b[1], b[3], &bx0, &bx1);
    ordered(b[0], b[2], &by0, &by1);
    float w = (ax1 < bx1 ? ax1 : bx1) - (ax0 > bx0 ? ax0 : bx0);
    float h = (ay1 < by1 ? ay1 : by1) - (ay0 > by0 ? ay0 : by0);
    float inter = (w > 0 ? w : 0) * (h > 0 ? h : 0);
    if (inter <= 0) return 0;
    float area_a = (ax1 - ax0) * (ay1 - ay0), area_b = (bx1 - bx0) * (by1 - by0);
    float uni = area_a + area_b - inter;
    if (area_a <= 0 || area_b <= 0 || uni <= 0) return 0;
    return inter / uni > threshold;
}

void tp_nms_part(void *ctx, uint32_t part, uint32_t parts) {
    (void)parts;
    tp_nms_job *j = ctx;
    if (part != 0) return;
    size_t gone = 0;
    for (size_t c = 0; c < j->n_cands; c++)
        for (size_t k = 0; k < j->n_kept; k++)
            if (suppresses(j->boxes, j->cands[c], j->kept[k], j->iou_threshold)) {
                gone++;
                break;
            }
    j->suppressed = gone;
}

void tp_nms_fill(float *boxes, size_t n, int32_t *kept, size_t n_kept, int32_t *cands,
                 size_t n_cands) {
    for (size_t i = 0; i < n; i++) { /* unit squares two apart: never overlapping */
        float y = (float)(2 * (i / 64)), x = (float)(2 * (i % 64));
        boxes[4 * i + 0] = y;
        boxes[4 * i + 1] = x;
        boxes[4 * i + 2] = y + 1.0f;
        boxes[4 * i + 3] = x + 1.0f;
    }
    uint32_t s = 12345u; /* a fixed linear congruential sequence: scattered indices */
    for (size_t i = 0; i < n_kept; i++) {
        s = s * 1664525u + 1013904223u;
        kept[i] = (int32_t)((s >> 8) % (uint32_t)n);
    }
    for (size_t i = 0; i < n_cands; i++) {
        s = s * 1664525u + 1013904223u;
        cands[i] = (int32_t)((s >> 8) % (uint32_t)n);
    }
}
