/* CUDA calibration through the driver API and cuBLAS, both loaded at run time
 * (never a build dependency). Measures f32 GEMM (cublasSgemm) by shape,
 * device-to-device copy bandwidth, device-to-host readback bandwidth, the
 * launch overhead of an empty kernel and a launch + synchronize round trip.
 * "No driver" / "no device" is TP_ERR_NOT_FOUND, the normal answer without a GPU. */
#include "tensorplan/cost.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "cost/cpu_pool.h"
#include "sys/cuda_driver.h"

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef void *cublasHandle_t;

typedef struct cuda_api {
    void *lib, *blas_lib;
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*PrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemsetD32)(CUdeviceptr, unsigned, size_t);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
    int (*BlasCreate)(cublasHandle_t *);
    int (*BlasDestroy)(cublasHandle_t);
    int (*Sgemm)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int,
                 const float *, int, const float *, float *, int);
} cuda_api;

static void *sym(void *lib, const char *name, bool *ok) {
    void *p = dlsym(lib, name);
    if (!p) *ok = false;
    return p;
}

#define LOAD(field, lib, name)                                                                     \
    do {                                                                                           \
        union {                                                                                    \
            void *p;                                                                               \
            __typeof__(api->field) f;                                                              \
        } u_;                                                                                      \
        u_.p = sym(lib, name, &ok);                                                                \
        api->field = u_.f;                                                                         \
    } while (0)

static void api_close(cuda_api *api) {
    if (api->blas_lib) dlclose(api->blas_lib);
    memset(api, 0, sizeof *api); /* the driver handle stays open (sys/cuda_driver.h) */
}

static tp_status api_open(cuda_api *api, const char *cuda_library, tp_error *err) {
    memset(api, 0, sizeof *api);
    char why[256];
    api->lib = tp_cuda_driver_open(cuda_library, NULL, why, sizeof why);
    if (!api->lib) return tp_error_set(err, TP_ERR_NOT_FOUND, "%s", why);
    bool ok = true;
    LOAD(Init, api->lib, "cuInit");
    LOAD(DeviceGetCount, api->lib, "cuDeviceGetCount");
    LOAD(DeviceGet, api->lib, "cuDeviceGet");
    LOAD(DeviceGetName, api->lib, "cuDeviceGetName");
    LOAD(DeviceTotalMem, api->lib, "cuDeviceTotalMem_v2");
    LOAD(PrimaryCtxRetain, api->lib, "cuDevicePrimaryCtxRetain");
    LOAD(PrimaryCtxRelease, api->lib, "cuDevicePrimaryCtxRelease_v2");
    LOAD(CtxSetCurrent, api->lib, "cuCtxSetCurrent");
    LOAD(CtxSynchronize, api->lib, "cuCtxSynchronize");
    LOAD(MemAlloc, api->lib, "cuMemAlloc_v2");
    LOAD(MemFree, api->lib, "cuMemFree_v2");
    LOAD(MemcpyDtoD, api->lib, "cuMemcpyDtoD_v2");
    LOAD(MemcpyDtoH, api->lib, "cuMemcpyDtoH_v2");
    LOAD(MemsetD32, api->lib, "cuMemsetD32_v2");
    LOAD(ModuleLoadData, api->lib, "cuModuleLoadData");
    LOAD(ModuleGetFunction, api->lib, "cuModuleGetFunction");
    LOAD(ModuleUnload, api->lib, "cuModuleUnload");
    LOAD(LaunchKernel, api->lib, "cuLaunchKernel");
    if (!ok) {
        api_close(api);
        return tp_error_set(err, TP_ERR_NOT_FOUND, "CUDA driver lacks required entry points");
    }
    int count = 0;
    if (api->Init(0) != 0 || api->DeviceGetCount(&count) != 0 || count < 1) {
        api_close(api);
        return tp_error_set(err, TP_ERR_NOT_FOUND, "no CUDA device (cuInit/cuDeviceGetCount)");
    }
    static const char *const blas[] = {"libcublas.so.12", "libcublas.so.11", "libcublas.so"};
    for (size_t i = 0; i < sizeof blas / sizeof blas[0] && !api->blas_lib; i++)
        api->blas_lib = dlopen(blas[i], RTLD_NOW | RTLD_LOCAL);
    if (!api->blas_lib) {
        api_close(api);
        return tp_error_set(err, TP_ERR_NOT_FOUND, "no cuBLAS (libcublas.so.12/.11)");
    }
    LOAD(BlasCreate, api->blas_lib, "cublasCreate_v2");
    LOAD(BlasDestroy, api->blas_lib, "cublasDestroy_v2");
    LOAD(Sgemm, api->blas_lib, "cublasSgemm_v2");
    if (!ok) {
        api_close(api);
        return tp_error_set(err, TP_ERR_NOT_FOUND, "cuBLAS lacks cublasSgemm_v2");
    }
    return TP_OK;
}

static const char noop_ptx[] = ".version 6.0\n.target sm_50\n.address_size 64\n"
                               ".visible .entry tp_noop()\n{\n\tret;\n}\n";

typedef struct cuda_run {
    cuda_api *api;
    CUdeviceptr a, b, c;
    size_t bytes;
    float *host;
} cuda_run;

static tp_status cu_check(CUresult r, const char *what, tp_error *err) {
    if (r == 0) return TP_OK;
    return tp_error_set(err, TP_ERR_IO, "CUDA %s failed (CUresult %d)", what, (int)r);
}

static tp_status measure(cuda_run *cr, const tp_calib_options *o, tp_device_model *d,
                         tp_error *err) {
    cuda_api *api = cr->api;
    tp_status s;
    cublasHandle_t h = NULL;
    if (api->BlasCreate(&h) != 0) return tp_error_set(err, TP_ERR_IO, "cublasCreate failed");
    static const uint32_t full[] = {64, 256, 1024, 2048, 4096};
    static const uint32_t quick[] = {64, 256, 1024};
    const uint32_t *dims = o->quick ? quick : full;
    uint32_t nd = o->quick ? 3 : 5;
    float alpha = 1.0f, beta = 0.0f;
    d->n_gemm = 0;
    for (uint32_t i = 0; i < nd; i++) {
        int n = (int)dims[i];
        const float *A = (const float *)(uintptr_t)cr->a, *B = (const float *)(uintptr_t)cr->b;
        float *C = (float *)(uintptr_t)cr->c;
        api->Sgemm(h, 0, 0, n, n, n, &alpha, A, n, B, n, &beta, C, n); /* warm-up */
        if ((s = cu_check(api->CtxSynchronize(), "synchronize", err)) != TP_OK) break;
        int reps = 0;
        double t0 = tp_now_ns(), el;
        do {
            if (api->Sgemm(h, 0, 0, n, n, n, &alpha, A, n, B, n, &beta, C, n) != 0) {
                s = tp_error_set(err, TP_ERR_IO, "cublasSgemm %dx%dx%d failed", n, n, n);
                break;
            }
            reps++;
            if (reps % 8 == 0) api->CtxSynchronize();
            el = tp_now_ns() - t0;
        } while (el < (o->quick ? 2e7 : 2e8));
        if (s != TP_OK) break;
        api->CtxSynchronize();
        el = tp_now_ns() - t0;
        d->gemm[d->n_gemm].dim = dims[i];
        d->gemm[d->n_gemm].gflops = 2.0 * (double)n * (double)n * (double)n * reps / el;
        d->n_gemm++;
    }
    api->BlasDestroy(h);
    if (s != TP_OK) return s;
    /* device copy bandwidth (read + write) and readback */
    int reps = o->quick ? 5 : 20;
    double t0 = tp_now_ns();
    for (int i = 0; i < reps; i++)
        if ((s = cu_check(api->MemcpyDtoD(cr->b, cr->a, cr->bytes), "memcpy DtoD", err)) != TP_OK)
            return s;
    api->CtxSynchronize();
    d->mem_gbps = 2.0 * (double)cr->bytes * reps / (tp_now_ns() - t0);
    t0 = tp_now_ns();
    for (int i = 0; i < reps; i++)
        if ((s = cu_check(api->MemcpyDtoH(cr->host, cr->a, cr->bytes), "memcpy DtoH", err)) !=
            TP_OK)
            return s;
    d->readback_gbps = (double)cr->bytes * reps / (tp_now_ns() - t0);
    /* launch overhead and launch + sync round trip of an empty kernel */
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    if ((s = cu_check(api->ModuleLoadData(&mod, noop_ptx), "module load", err)) != TP_OK) return s;
    if ((s = cu_check(api->ModuleGetFunction(&fn, mod, "tp_noop"), "get function", err)) == TP_OK) {
        int n = 1000;
        api->LaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
        api->CtxSynchronize();
        t0 = tp_now_ns();
        for (int i = 0; i < n; i++)
            api->LaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
        api->CtxSynchronize();
        d->dispatch_ns = (tp_now_ns() - t0) / n;
        t0 = tp_now_ns();
        for (int i = 0; i < 200; i++) {
            api->LaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            api->CtxSynchronize();
        }
        d->round_trip_ns = (tp_now_ns() - t0) / 200;
    }
    api->ModuleUnload(mod);
    return s;
}

tp_status tp_calibrate_cuda(const tp_calib_options *o, tp_device_model *out, tp_error *err) {
    tp_calib_options def;
    if (!o) {
        tp_calib_options_default(&def);
        o = &def;
    }
    if (!out) return tp_error_set(err, TP_ERR_INVALID, "calibrate cuda: NULL result");
    cuda_api api;
    tp_status s = api_open(&api, o->cuda_library, err);
    if (s != TP_OK) return s;
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    tp_device_model d;
    tp_device_model_default(TP_DEVICE_CUDA, &d);
    d.source = TP_SOURCE_MEASURED;
    d.threads = 0;
    snprintf(d.gemm_impl, sizeof d.gemm_impl, "cublas");
    char name[128] = "";
    size_t total = 0;
    if ((s = cu_check(api.DeviceGet(&dev, 0), "cuDeviceGet", err)) != TP_OK ||
        (s = cu_check(api.PrimaryCtxRetain(&ctx, dev), "context", err)) != TP_OK) {
        api_close(&api);
        return s;
    }
    api.CtxSetCurrent(ctx);
    api.DeviceGetName(name, (int)sizeof name - 1, dev);
    api.DeviceTotalMem(&total, dev);
    snprintf(d.name, sizeof d.name, "cuda:0 %.*s", (int)(sizeof d.name - 8), name);
    d.memory_bytes = total;
    cuda_run cr = {&api, 0, 0, 0, 0, NULL};
    uint32_t dmax = o->quick ? 1024 : 4096;
    cr.bytes = (size_t)dmax * dmax * sizeof(float);
    cr.host = tp_mem_alloc(NULL, cr.bytes);
    if (!cr.host) {
        s = tp_error_set(err, TP_ERR_NOMEM, "calibrate cuda: host buffer");
    } else if ((s = cu_check(api.MemAlloc(&cr.a, cr.bytes), "cuMemAlloc", err)) == TP_OK &&
               (s = cu_check(api.MemAlloc(&cr.b, cr.bytes), "cuMemAlloc", err)) == TP_OK &&
               (s = cu_check(api.MemAlloc(&cr.c, cr.bytes), "cuMemAlloc", err)) == TP_OK) {
        api.MemsetD32(cr.a, 0x3f800000u, cr.bytes / 4);
        api.MemsetD32(cr.b, 0x3f000000u, cr.bytes / 4);
        s = measure(&cr, o, &d, err);
    }
    if (cr.a) api.MemFree(cr.a);
    if (cr.b) api.MemFree(cr.b);
    if (cr.c) api.MemFree(cr.c);
    tp_mem_free(NULL, cr.host, cr.bytes);
    api.PrimaryCtxRelease(dev);
    api_close(&api);
    if (s == TP_OK) s = tp_device_model_validate(&d, err);
    if (s == TP_OK) *out = d;
    return s;
}
