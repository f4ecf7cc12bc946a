/*
 * Internal: open a model, trace or weight file for reading, refusing what is not a
 * regular file before a single byte is read. A FIFO would block open() or read()
 * forever, /dev/zero or a pipe would feed a reader without end, and a directory
 * reads as an error much later: each is refused here with an error naming the
 * path and its type. The descriptor is opened O_NONBLOCK (so opening a FIFO
 * returns at once) and switched back to blocking once it is known to be a regular
 * file.
 * Errors: TP_ERR_NOT_FOUND (no such file), TP_ERR_IO (any other open/stat failure,
 * with the system's reason; not a regular file; larger than max_bytes when
 * max_bytes > 0). Thread-safe.
 */
#ifndef TP_CORE_OPEN_FILE_H
#define TP_CORE_OPEN_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "tensorplan/core.h"

/* On success *fd is an open descriptor the caller closes and *size the file size. */
tp_status tp__open_regular(const char *path, uint64_t max_bytes, int *fd, uint64_t *size,
                           tp_error *err);
/* The same as a stdio stream ("rb"); the caller fcloses it. */
tp_status tp__fopen_regular(const char *path, uint64_t max_bytes, FILE **f, uint64_t *size,
                            tp_error *err);

#endif
