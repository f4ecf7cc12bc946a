/* GPU memory through the CUDA driver API, loaded at run time
 * (sys/cuda_driver.h): the driver is never a build dependency, and "no
 * driver" is a normal answer. */
#include "tensorplan/sysmem.h"

#include <stdio.h>
#include <string.h>

#include "sys/cuda_driver.h"

typedef int cu_result; /* CUresult; 0 = CUDA_SUCCESS */
typedef int cu_device;
typedef void *cu_context;

typedef struct cuda_mem_api {
    cu_result (*init)(unsigned);
    cu_result (*device_get_count)(int *);
    cu_result (*device_get)(cu_device *, int);
    cu_result (*device_get_name)(char *, int, cu_device);
    cu_result (*primary_retain)(cu_context *, cu_device);
    cu_result (*primary_release)(cu_device);
    cu_result (*ctx_create)(cu_context *, unsigned, cu_device);
    cu_result (*ctx_destroy)(cu_context);
    cu_result (*ctx_push)(cu_context);
    cu_result (*ctx_pop)(cu_context *);
    cu_result (*mem_get_info)(size_t *, size_t *);
    cu_result (*get_error_string)(cu_result, const char **);
} cuda_mem_api;

static void *cuda_sym(void *lib, const char *name) {
    return tp_cuda_driver_sym(lib, name);
}

static const char *cu_err(const cuda_mem_api *api, cu_result r, char *buf, size_t cap) {
    const char *s = NULL;
    if (api->get_error_string && api->get_error_string(r, &s) == 0 && s)
        snprintf(buf, cap, "%s (%d)", s, r);
    else
        snprintf(buf, cap, "CUresult %d", r);
    return buf;
}

/* Fill out->reason and return TP_OK: a driver problem is an answer, not an error. */
static tp_status no_gpu(tp_gpu_memory *out, const char *what, const char *detail) {
    out->present = false;
    snprintf(out->reason, sizeof out->reason, "%s%s%s", what, detail ? ": " : "",
             detail ? detail : "");
    return TP_OK;
}

tp_status tp_sysmem_gpu(const char *library, int device, tp_gpu_memory *out, tp_error *err) {
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "gpu: NULL output");
    memset(out, 0, sizeof *out);
    if (device < 0) return tp_error_set(err, TP_ERR_INVALID, "gpu: negative device %d", device);
    const char *libname = NULL;
    char why[sizeof out->reason];
    void *lib = tp_cuda_driver_open(library, &libname, why, sizeof why);
    if (!lib) return no_gpu(out, why, NULL);
    cuda_mem_api api;
    memset(&api, 0, sizeof api);
    *(void **)&api.init = cuda_sym(lib, "cuInit");
    *(void **)&api.device_get_count = cuda_sym(lib, "cuDeviceGetCount");
    *(void **)&api.device_get = cuda_sym(lib, "cuDeviceGet");
    *(void **)&api.device_get_name = cuda_sym(lib, "cuDeviceGetName");
    *(void **)&api.primary_retain = cuda_sym(lib, "cuDevicePrimaryCtxRetain");
    *(void **)&api.primary_release = cuda_sym(lib, "cuDevicePrimaryCtxRelease_v2");
    if (!api.primary_release)
        *(void **)&api.primary_release = cuda_sym(lib, "cuDevicePrimaryCtxRelease");
    *(void **)&api.ctx_create = cuda_sym(lib, "cuCtxCreate_v2");
    *(void **)&api.ctx_destroy = cuda_sym(lib, "cuCtxDestroy_v2");
    *(void **)&api.ctx_push = cuda_sym(lib, "cuCtxPushCurrent_v2");
    *(void **)&api.ctx_pop = cuda_sym(lib, "cuCtxPopCurrent_v2");
    *(void **)&api.mem_get_info = cuda_sym(lib, "cuMemGetInfo_v2");
    *(void **)&api.get_error_string = cuda_sym(lib, "cuGetErrorString");
    bool have_primary = api.primary_retain && api.primary_release && api.ctx_push && api.ctx_pop;
    bool have_create = api.ctx_create && api.ctx_destroy && api.ctx_pop;
    if (!api.init || !api.device_get_count || !api.device_get || !api.mem_get_info ||
        (!have_primary && !have_create))
        return no_gpu(out, "CUDA driver lacks required entry points", libname);
    char eb[96];
    cu_result r = api.init(0);
    if (r != 0) return no_gpu(out, "cuInit failed", cu_err(&api, r, eb, sizeof eb));
    int count = 0;
    r = api.device_get_count(&count);
    if (r != 0) return no_gpu(out, "cuDeviceGetCount failed", cu_err(&api, r, eb, sizeof eb));
    out->device_count = count;
    if (device >= count) {
        char what[96];
        snprintf(what, sizeof what, "device %d not present (%d devices)", device, count);
        return no_gpu(out, what, NULL);
    }
    cu_device dev = 0;
    r = api.device_get(&dev, device);
    if (r != 0) return no_gpu(out, "cuDeviceGet failed", cu_err(&api, r, eb, sizeof eb));
    if (api.device_get_name && api.device_get_name(out->name, (int)sizeof out->name, dev) != 0)
        out->name[0] = '\0';
    out->name[sizeof out->name - 1] = '\0';
    cu_context ctx = NULL, popped = NULL;
    bool primary = have_primary;
    r = primary ? api.primary_retain(&ctx, dev) : api.ctx_create(&ctx, 0, dev);
    if (r != 0)
        return no_gpu(out, "creating a CUDA context failed", cu_err(&api, r, eb, sizeof eb));
    if (primary && (r = api.ctx_push(ctx)) != 0) {
        api.primary_release(dev);
        return no_gpu(out, "cuCtxPushCurrent failed", cu_err(&api, r, eb, sizeof eb));
    }
    size_t free_b = 0, total_b = 0;
    r = api.mem_get_info(&free_b, &total_b);
    api.ctx_pop(&popped);
    if (primary)
        api.primary_release(dev);
    else
        api.ctx_destroy(ctx);
    if (r != 0) return no_gpu(out, "cuMemGetInfo failed", cu_err(&api, r, eb, sizeof eb));
    out->present = true;
    out->total_bytes = (uint64_t)total_b;
    out->free_bytes = (uint64_t)free_b;
    return TP_OK;
}
