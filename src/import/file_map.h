/*
 * Internal: read-only memory mapping of a whole file (64-bit sizes, so files
 * over 2 GiB work on 64-bit hosts). An empty file maps to {NULL, 0}.
 * Errors: TP_ERR_IO naming the path and the system error; TP_ERR_OVERFLOW when
 * the file does not fit the address space; TP_ERR_NOMEM.
 * Thread safety: a mapping is immutable; close it once.
 */
#ifndef TP_IMPORT_FILE_MAP_H
#define TP_IMPORT_FILE_MAP_H

#include "tensorplan/core.h"

typedef struct tp_file_map {
    const uint8_t *data;
    uint64_t size;
    const tp_allocator *alloc;
} tp_file_map;

tp_status tp__file_map_open(const char *path, const tp_allocator *alloc, tp_file_map **out,
                            tp_error *err);
/* Unmap and free; NULL is a no-op. */
void tp__file_map_close(tp_file_map *m);
/* Size of a file without mapping it (for external data checks). TP_ERR_NOT_FOUND
 * when it does not exist, TP_ERR_IO otherwise. */
tp_status tp__file_size(const char *path, uint64_t *size, tp_error *err);

#endif
