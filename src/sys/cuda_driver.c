/* The CUDA driver loader (sys/cuda_driver.h). */
#include "sys/cuda_driver.h"

#include <stdio.h>

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>

void *tp_cuda_driver_open(const char *library, const char **loaded, char *why, size_t cap) {
    static const char *const defaults[] = {"libcuda.so.1", "libcuda.so"};
    const char *const *names = defaults;
    size_t n = sizeof defaults / sizeof defaults[0];
    if (library && *library) {
        names = &library;
        n = 1;
    }
    const char *first_error = NULL;
    char first[512] = "";
    for (size_t i = 0; i < n; i++) {
        if (loaded) *loaded = names[i];
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) return lib;
        const char *e = dlerror();
        if (i == 0 && e) {
            snprintf(first, sizeof first, "%s", e);
            first_error = first;
        }
    }
    if (why && cap) {
        if (first_error) /* dlerror names the library: "libcuda.so.1: cannot open ..." */
            snprintf(why, cap, "no CUDA driver (%s)", first_error);
        else
            snprintf(why, cap, "no CUDA driver (%s not loadable)", names[0]);
    }
    return NULL;
}

void *tp_cuda_driver_sym(void *driver, const char *name) {
    return driver ? dlsym(driver, name) : NULL;
}

#else

void *tp_cuda_driver_open(const char *library, const char **loaded, char *why, size_t cap) {
    if (loaded) *loaded = library && *library ? library : "libcuda.so.1";
    if (why && cap) snprintf(why, cap, "no CUDA driver (no run-time loader on this platform)");
    return NULL;
}

void *tp_cuda_driver_sym(void *driver, const char *name) {
    (void)driver;
    (void)name;
    return NULL;
}

#endif
