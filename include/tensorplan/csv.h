/*
 * tensorplan/csv.h — MiniMalloc-style buffer CSV files.
 *
 * Input format (one header line, then one buffer per line):
 *     id,lower,upper,size[,alignment]
 * A buffer is live on the half-open step interval [lower, upper); it becomes
 * the tp_buffer {birth = lower, death = upper - 1, size, alignment (0 when the
 * column is absent), tail_guard 0, fixed_offset -1, id}. Blank lines, a UTF-8
 * byte-order mark, surrounding spaces and CRLF line ends are accepted; a CR inside
 * a line (a file with CR-only line endings) is TP_ERR_PARSE naming it.
 *
 * Output format (a solution):
 *     id,lower,upper,size,offset
 *
 * Example:
 *     tp_buffer *b; size_t n; tp_error err;
 *     if (tp_csv_load_buffers("A.1048576.csv", NULL, &b, &n, &err) != TP_OK) puts(err.msg);
 *     ... tp_alloc_plan(b, n, ...) ...
 *     tp_csv_free_buffers(NULL, b, n);
 *
 * Errors: TP_ERR_PARSE names the line (1-based) and the column, and records
 * the byte offset of the line in err->offset (bad header, a non-number, a
 * negative value, upper <= lower, an alignment that is not a power of two,
 * a wrong number of columns); TP_ERR_NOT_FOUND (no such file); TP_ERR_IO (file
 * cannot be read/written, with the path and the system message); TP_ERR_NOMEM; TP_ERR_OVERFLOW (a
 * value beyond 64 bits). Ownership: the buffer array returned is owned by the caller and freed with
 * tp_csv_free_buffers using the same allocator (NULL = libc).
 * Thread safety: reentrant, no global state.
 */
#ifndef TENSORPLAN_CSV_H
#define TENSORPLAN_CSV_H

#include <stdio.h>

#include "tensorplan/alloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse CSV text (text[0..len), need not be NUL-terminated). On success *out
 * holds *n_out buffers (NULL when there are none). */
TP_API tp_status tp_csv_parse_buffers(const char *text, size_t len, const tp_allocator *alloc,
                                      tp_buffer **out, size_t *n_out, tp_error *err);

/* Largest CSV file tp_csv_load_buffers reads (a million buffers take ~40 MB). */
#define TP_CSV_MAX_FILE_BYTES (1ull << 32)

/* Read and parse a file. Messages are prefixed with the path. Only regular files
 * are read (TP_ERR_IO for a FIFO, a pipe, a device or a directory, and for a file
 * over TP_CSV_MAX_FILE_BYTES), so /dev/zero or a FIFO cannot hang or exhaust it. */
TP_API tp_status tp_csv_load_buffers(const char *path, const tp_allocator *alloc, tp_buffer **out,
                                     size_t *n_out, tp_error *err);

/* Free an array from tp_csv_parse_buffers / tp_csv_load_buffers. NULL is a no-op. */
TP_API void tp_csv_free_buffers(const tp_allocator *alloc, tp_buffer *bufs, size_t n);

/* Ids as written in the file (MiniMalloc's own examples use names such as "b1"). */
typedef struct tp_csv_names {
    char *text;    /* NUL-separated ids */
    size_t *start; /* start of each id in text */
    size_t n, text_len, text_cap, start_cap;
} tp_csv_names;

/* As tp_csv_parse_buffers / tp_csv_load_buffers, but the id column may hold any non-empty
 * text: *names receives every row's id (free with tp_csv_free_names, also on error it is
 * left empty); bufs[i].id is the id when it is a non-negative integer, else i. */
TP_API tp_status tp_csv_parse_buffers_named(const char *text, size_t len, const tp_allocator *alloc,
                                            tp_buffer **out, size_t *n_out, tp_csv_names *names,
                                            tp_error *err);
TP_API tp_status tp_csv_load_buffers_named(const char *path, const tp_allocator *alloc,
                                           tp_buffer **out, size_t *n_out, tp_csv_names *names,
                                           tp_error *err);
/* The i-th id (NULL when out of range). */
TP_API const char *tp_csv_name(const tp_csv_names *names, size_t i);
/* Ids that appear on more than one row: *n_repeated receives the number of rows whose
 * id an earlier row already has (0 when every id is unique), and *first / *second the
 * rows (0-based, data rows in file order) of the earliest repeat. Every row stays a
 * buffer of its own; callers warn, since a solution then names an id twice.
 * TP_ERR_NOMEM; O(n log n) time, n row indices of scratch memory. */
TP_API tp_status tp_csv_find_duplicate_id(const tp_csv_names *names, const tp_allocator *alloc,
                                          size_t *first, size_t *second, size_t *n_repeated,
                                          tp_error *err);
/* Free the ids; NULL or empty is a no-op. */
TP_API void tp_csv_free_names(const tp_allocator *alloc, tp_csv_names *names);

/* Write "id,lower,upper,size,offset" and one row per buffer (lower = birth,
 * upper = death + 1). TP_ERR_IO when the stream reports a write error. */
TP_API tp_status tp_csv_write_solution(FILE *f, const tp_buffer *bufs, size_t n,
                                       const uint64_t *offsets, tp_error *err);
/* As tp_csv_write_solution with the ids from names (NULL: the numeric ids). */
TP_API tp_status tp_csv_write_solution_named(FILE *f, const tp_buffer *bufs, size_t n,
                                             const tp_csv_names *names, const uint64_t *offsets,
                                             tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
