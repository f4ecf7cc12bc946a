/* Internal: the CPU calibration's executor-step micro-benchmark (tp_device_model.runtime_node_ns
 * and runtime_run_ns, docs/cost.md "Session 15"): what one step of a small interpreter costs this
 * core, the kind of code a runtime runs per node besides its kernel (find the node, work out its
 * output's size, allocate it, call the kernel through a pointer, free what is no longer read).
 * onnxruntime's own per-node and per-run costs are priced as multiples of it, so that they follow
 * the speed of the core they run on. Not part of the public API. */
#ifndef TP_COST_CALIB_STEP_H
#define TP_COST_CALIB_STEP_H

#include <stdbool.h>

/* Nanoseconds per step of a chain of interpreter steps on the calling thread (each: a node
 * looked up by index, its 4-D output's element count, a heap block of that many floats, an
 * element-wise kernel on 64 of them called through a function table, the previous block freed),
 * the lower decile of the trials' means (trials of 2,048 steps, timed by the thread's CPU clock;
 * 48 trials, 16 when quick). 0 when a block cannot be allocated. Never fails otherwise;
 * thread-safe (its state is its own). */
double tp_calib_step_ns(bool quick);

#endif
