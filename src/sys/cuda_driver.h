/* Internal: the one loader of the CUDA driver library (libcuda), shared by the
 * GPU memory query (sys/cuda_memory.c) and CUDA calibration
 * (cost/calibrate_cuda.c). The driver is loaded at run time with dlopen, so it
 * is never a build dependency and "no driver" is a normal answer. */
#ifndef TP_SYS_CUDA_DRIVER_H
#define TP_SYS_CUDA_DRIVER_H

#include <stddef.h>

/* Load the driver: `library` when non-NULL and non-empty, else libcuda.so.1
 * (the name the driver package installs), else libcuda.so (a development
 * symlink). Returns the handle, or NULL with the reason written to
 * why[0..cap) ("no CUDA driver (<dlerror of the first name tried>)").
 * The handle is never closed: the driver starts threads that may outlive the
 * caller, and the dynamic loader shares one handle per library anyway.
 * *loaded (may be NULL) receives the name that was loaded or tried last.
 * Thread-safe (dlopen is). */
void *tp_cuda_driver_open(const char *library, const char **loaded, char *why, size_t cap);

/* Address of a driver entry point, or NULL. */
void *tp_cuda_driver_sym(void *driver, const char *name);

#endif
