/* Internal: the CPU calibration's read-bandwidth curves (tp_device_model.read and
 * read_streams): how fast the calibration's threads read a working set of a given size once per
 * pass, from the cache levels to memory, in one stream and in several. Not part of the public
 * API. */
#ifndef TP_COST_CALIBRATE_READ_H
#define TP_COST_CALIBRATE_READ_H

#include <stdbool.h>

#include "cost/cpu_pool.h"
#include "tensorplan/cost.h"

/* Measure d->read (one stream, 8-byte words) and d->read_streams (several streams at once in
 * the widest vector loads `feat` allows) with the pool's threads (each reads its share of the
 * working set): sizes 4 MiB to 256 MiB (quick: 4, 16 and 64 MiB), the best of a few passes timed
 * by the pool's busy CPU time. *kernel (may be NULL) gets the multi-stream kernel's name
 * ("streams-avx512", "streams-avx2", "streams-neon", "streams-generic"; static storage).
 * TP_ERR_NOMEM when the largest buffer cannot be allocated; d is then unchanged. */
tp_status tp_calib_read_curve(tp_pool *pool, const tp_cpu_features *feat, bool quick,
                              tp_device_model *d, const char **kernel, tp_error *err);

/* The name of the multi-stream read kernel tp_calib_read_curve runs on `feat` (static storage,
 * never NULL). */
const char *tp_calib_read_kernel_name(const tp_cpu_features *feat);

#endif
