/*
 * tensorplan/env.h — the environment variables tensorplan honours, in one place.
 *
 * The library reads no environment variable anywhere else: every behaviour is
 * set through the option structs of its API (tp_alloc_options,
 * tp_plan_options, tp_calib_options, tp_device_policy, the arguments of
 * tp_sysmem_gpu and tp_sysmem_soft_budget_from). A program that wants the
 * documented variables, as the tensorplan CLI does, reads them once with
 * tp_env_options_read() and applies them to its option structs with the
 * tp_env_apply_* functions below; an embedder that does not call them gets
 * the same behaviour whatever its environment holds.
 *
 *   TENSORPLAN_ARENA_NO_REUSE=1       default placement: every buffer after the previous one
 *   TENSORPLAN_MEMORY_BUDGET_BYTES    default memory budget in bytes (plain integer)
 *   TENSORPLAN_SOFT_MEMORY_FRACTION   default budget = fraction × available memory (0 < f <= 1)
 *   TENSORPLAN_CUDA_LIBRARY           the CUDA driver library to load (default libcuda.so.1)
 *   TENSORPLAN_THREADS                threads used by calibration (1..256)
 *   TENSORPLAN_DEVICES                device policy: allow list ("cuda,h100-sxm,cpu")
 *   TENSORPLAN_DENY_DEVICES           device policy: deny list
 *   TENSORPLAN_PREFER_DEVICES         device policy: prefer list
 *   XDG_CACHE_HOME, HOME              calibration cache: $XDG_CACHE_HOME/tensorplan (an
 *                                     absolute XDG_CACHE_HOME) or $HOME/.cache/tensorplan
 *
 * Example (what the CLI does):
 *     tp_env_options env; tp_env_options_read(&env);
 *     tp_plan_options po; tp_plan_options_default(&po); tp_env_apply_plan(&env, &po);
 *     tp_gpu_memory gm; tp_sysmem_gpu(env.cuda_library, 0, &gm, &err);
 *
 * Ownership: the string fields point into the process environment (valid until
 * it changes: setenv, putenv, unsetenv); cache_dir is a copy.
 * Thread safety: tp_env_options_read calls getenv, which races with setenv in
 * other threads; the apply functions are pure.
 */
#ifndef TENSORPLAN_ENV_H
#define TENSORPLAN_ENV_H

#include "tensorplan/alloc.h"
#include "tensorplan/cost.h"
#include "tensorplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_ENV_ARENA_NO_REUSE "TENSORPLAN_ARENA_NO_REUSE"
#define TP_ENV_MEMORY_BUDGET_BYTES "TENSORPLAN_MEMORY_BUDGET_BYTES"
#define TP_ENV_SOFT_MEMORY_FRACTION "TENSORPLAN_SOFT_MEMORY_FRACTION"
#define TP_ENV_CUDA_LIBRARY "TENSORPLAN_CUDA_LIBRARY"
#define TP_ENV_THREADS "TENSORPLAN_THREADS"
#define TP_ENV_DEVICES "TENSORPLAN_DEVICES"
#define TP_ENV_DENY_DEVICES "TENSORPLAN_DENY_DEVICES"
#define TP_ENV_PREFER_DEVICES "TENSORPLAN_PREFER_DEVICES"
#define TP_ENV_THREADS_MAX 256

typedef struct tp_env_options {
    bool arena_no_reuse;              /* TENSORPLAN_ARENA_NO_REUSE is exactly "1" */
    const char *memory_budget_bytes;  /* NULL when unset or empty (as all strings here) */
    const char *soft_memory_fraction; /* parsed by tp_sysmem_soft_budget_from */
    const char *cuda_library;
    uint32_t threads; /* TENSORPLAN_THREADS when an integer in 1..TP_ENV_THREADS_MAX, else 0 */
    const char *devices, *deny_devices, *prefer_devices;
    char cache_dir[512]; /* calibration cache directory; "" when neither variable is set */
} tp_env_options;

/* Read every variable above into *out (zeroed first). No-op for NULL. */
TP_API void tp_env_options_read(tp_env_options *out);

/* Apply env to option structs filled by their _default function. NULL
 * arguments are no-ops. */
/* arena_no_reuse: algo = TP_ALGO_NO_REUSE. */
TP_API void tp_env_apply_alloc(const tp_env_options *env, tp_alloc_options *o);
/* arena_no_reuse: algo = TP_ALGO_NO_REUSE. */
TP_API void tp_env_apply_plan(const tp_env_options *env, tp_plan_options *o);
/* threads when o->threads is 0; cache_dir and cuda_library when NULL. The
 * cache_dir pointer refers into *env, which must outlive o. */
TP_API void tp_env_apply_calib(const tp_env_options *env, tp_calib_options *o);
/* The allow, deny and prefer lists that are NULL in p. */
TP_API void tp_env_apply_device_policy(const tp_env_options *env, tp_device_policy *p);

#ifdef __cplusplus
}
#endif
#endif
