/* Internal: the CPU calibration's wake-up micro-benchmark (tp_device_model.wake_ns): what the
 * calling thread pays to wake one sleeping thread of its pool. A runtime whose pool threads
 * sleep between kernels (onnxruntime with spinning off, the accuracy benchmark's setting) pays
 * it for every kernel it hands to the pool, even one that finishes before the woken thread
 * arrives. Not part of the public API. */
#ifndef TP_COST_CALIB_WAKE_H
#define TP_COST_CALIB_WAKE_H

#include <stdbool.h>
#include <stdint.h>

/* Nanoseconds the caller spends in signalling a condition variable on which one other thread
 * sleeps (lock, signal, unlock), the lower decile of 64 wake-ups (24 when quick), each after the
 * woken thread has answered and gone back to sleep (100 us apart). 0 for threads <= 1 (no pool
 * to wake) or when the thread cannot be started. Never fails otherwise; thread-safe (its state
 * is its own). */
double tp_calib_wake_ns(uint32_t threads, bool quick);

#endif
