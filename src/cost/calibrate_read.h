/* Internal: the CPU calibration's read-bandwidth curve (tp_device_model.read): how fast the
 * calibration's threads read a working set of a given size once per pass, from the cache levels
 * to memory. Not part of the public API. */
#ifndef TP_COST_CALIBRATE_READ_H
#define TP_COST_CALIBRATE_READ_H

#include <stdbool.h>

#include "cost/cpu_pool.h"
#include "tensorplan/cost.h"

/* Measure d->read with the pool's threads (each reads its share of the working set): sizes
 * 4 MiB to 256 MiB (quick: 4, 16 and 64 MiB), the best of a few passes timed by the pool's busy
 * CPU time. TP_ERR_NOMEM when the largest buffer cannot be allocated; d is then unchanged. */
tp_status tp_calib_read_curve(tp_pool *pool, bool quick, tp_device_model *d, tp_error *err);

#endif
