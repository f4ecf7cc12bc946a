/* The allocator hook: libc by default, a user hook otherwise. */
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

static void *libc_alloc(void *ctx, size_t size) {
    (void)ctx;
    return malloc(size ? size : 1);
}
static void *libc_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx;
    (void)old_size;
    return realloc(ptr, new_size ? new_size : 1);
}
static void libc_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    (void)size;
    free(ptr);
}

static const tp_allocator libc_allocator = {libc_alloc, libc_realloc, libc_free, NULL};

const tp_allocator *tp_allocator_default(void) {
    return &libc_allocator;
}

const tp_allocator *tp_mem_resolve(const tp_allocator *a) {
    return a ? a : &libc_allocator;
}

void *tp_mem_alloc(const tp_allocator *a, size_t size) {
    a = tp_mem_resolve(a);
    return a->alloc(a->ctx, size);
}

void *tp_mem_calloc(const tp_allocator *a, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *p = tp_mem_alloc(a, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

void *tp_mem_realloc(const tp_allocator *a, void *ptr, size_t old_size, size_t new_size) {
    a = tp_mem_resolve(a);
    if (!ptr) return a->alloc(a->ctx, new_size);
    return a->realloc(a->ctx, ptr, old_size, new_size);
}

void tp_mem_free(const tp_allocator *a, void *ptr, size_t size) {
    if (!ptr) return;
    a = tp_mem_resolve(a);
    a->free(a->ctx, ptr, size);
}

char *tp_mem_strdup(const tp_allocator *a, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = tp_mem_alloc(a, n);
    if (p) memcpy(p, s, n);
    return p;
}

void tp_mem_free_str(const tp_allocator *a, char *s) {
    if (s) tp_mem_free(a, s, strlen(s) + 1);
}

bool tp_mem_grow(const tp_allocator *a, void **items, size_t elem_size, size_t *cap, size_t need) {
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return false;
        ncap *= 2;
    }
    if (elem_size != 0 && ncap > SIZE_MAX / elem_size) return false;
    void *p = tp_mem_realloc(a, *items, *cap * elem_size, ncap * elem_size);
    if (!p) return false;
    *items = p;
    *cap = ncap;
    return true;
}
