/* Internal: the CPU calibration's spinning-barrier micro-benchmark (tp_device_model.barrier_ns):
 * what one graph node costs a runtime whose threads spin between nodes instead of sleeping
 * (llama.cpp's ggml CPU backend meets at a spinning barrier after every node). Not part of the
 * public API. */
#ifndef TP_COST_CALIB_BARRIER_H
#define TP_COST_CALIB_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

/* Nanoseconds per barrier among `threads` spinning threads (the caller and threads - 1 it
 * starts), each doing a few nanoseconds of work between barriers: the lower decile over short
 * trials (250 barriers each) of the mean time per barrier, so that trials during which another
 * process held a core do not count; a trial stops after 20 ms, so more threads than cores end in
 * bounded time (with a figure of milliseconds, as such a runtime would take). 0 for threads <= 1
 * (no barrier) or when a thread cannot be started. Never fails otherwise; thread-safe (its state is
 * its own). */
double tp_calib_spin_barrier_ns(uint32_t threads, bool quick);

#endif
