/* MiniMalloc-style buffer CSV reader and solution writer (include/tensorplan/csv.h). */
#include "tensorplan/csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/open_file.h"

enum { COL_ID, COL_LOWER, COL_UPPER, COL_SIZE, COL_ALIGN, COL_MAX };
static const char *const csv_col_names[COL_MAX] = {"id", "lower", "upper", "size", "alignment"};

typedef struct field {
    const char *p;
    size_t len;
} field;

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

/* Split one line into at most max_fields trimmed fields; returns the count
 * (max_fields + 1 when there are more). */
static size_t split_line(const char *p, size_t len, field *f, size_t max_fields) {
    size_t nf = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || p[i] == ',') {
            if (nf >= max_fields) return max_fields + 1;
            size_t a = start, b = i;
            while (a < b && is_space(p[a]))
                a++;
            while (b > a && is_space(p[b - 1]))
                b--;
            f[nf].p = p + a;
            f[nf].len = b - a;
            nf++;
            start = i + 1;
        }
    }
    return nf;
}

static bool field_is(const field *f, const char *s) {
    return f->len == strlen(s) && memcmp(f->p, s, f->len) == 0;
}

/* Parse an unsigned decimal; 0 ok, 1 not a number, 2 negative, 3 overflow. */
static int parse_u64(const field *f, uint64_t *out) {
    if (f->len == 0) return 1;
    size_t i = 0;
    if (f->p[0] == '-') {
        if (f->len > 1) {
            for (i = 1; i < f->len; i++)
                if (f->p[i] < '0' || f->p[i] > '9') return 1;
            return 2;
        }
        return 1;
    }
    if (f->p[0] == '+') i = 1;
    if (i == f->len) return 1;
    uint64_t v = 0;
    for (; i < f->len; i++) {
        char c = f->p[i];
        if (c < '0' || c > '9') return 1;
        if (!tp_mul_u64(v, 10, &v) || !tp_add_u64(v, (uint64_t)(c - '0'), &v)) return 3;
    }
    *out = v;
    return 0;
}

static tp_status field_error(tp_error *err, int code, size_t line, uint64_t off, int col,
                             const field *f) {
    static const char *const what[] = {"", "is not a number", "is negative",
                                       "does not fit in 64 bits"};
    return tp_error_setx(err, code == 3 ? TP_ERR_OVERFLOW : TP_ERR_PARSE, off, TP_NO_NODE,
                         "line %zu: column '%s' value '%.*s' %s", line, csv_col_names[col],
                         (int)(f->len > 40 ? 40 : f->len), f->p, what[code]);
}

typedef struct named_row {
    const char *id;
    size_t row;
} named_row;

static int cmp_named_row(const void *a, const void *b) {
    const named_row *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

tp_status tp_csv_find_duplicate_id(const tp_csv_names *names, const tp_allocator *alloc,
                                   size_t *first, size_t *second, size_t *n_repeated,
                                   tp_error *err) {
    if (!names || !first || !second || !n_repeated)
        return tp_error_set(err, TP_ERR_INVALID, "csv: NULL argument");
    *n_repeated = 0;
    if (names->n < 2) return TP_OK;
    if (names->n > SIZE_MAX / sizeof(named_row))
        return tp_error_set(err, TP_ERR_OVERFLOW, "csv: %zu ids", names->n);
    named_row *rows = tp_mem_alloc(alloc, names->n * sizeof *rows);
    if (!rows) return tp_error_set(err, TP_ERR_NOMEM, "csv: out of memory (%zu ids)", names->n);
    for (size_t i = 0; i < names->n; i++)
        rows[i] = (named_row){tp_csv_name(names, i), i};
    qsort(rows, names->n, sizeof *rows, cmp_named_row);
    /* equal ids are adjacent, in row order: each group's first two rows are the
     * first repeat of that id; report the group whose repeat comes first */
    for (size_t k = 1; k < names->n; k++) {
        if (strcmp(rows[k - 1].id, rows[k].id) != 0) continue;
        bool group_start = k == 1 || strcmp(rows[k - 2].id, rows[k].id) != 0;
        if (group_start && (*n_repeated == 0 || rows[k].row < *second)) {
            *first = rows[k - 1].row;
            *second = rows[k].row;
        }
        (*n_repeated)++;
    }
    tp_mem_free(alloc, rows, names->n * sizeof *rows);
    return TP_OK;
}

void tp_csv_free_names(const tp_allocator *alloc, tp_csv_names *names) {
    if (!names) return;
    tp_mem_free(alloc, names->text, names->text_cap);
    tp_mem_free(alloc, names->start, names->start_cap * sizeof *names->start);
    memset(names, 0, sizeof *names);
}

const char *tp_csv_name(const tp_csv_names *names, size_t i) {
    if (!names || i >= names->n) return NULL;
    return names->text + names->start[i];
}

/* Append one id text; false on NOMEM. */
static bool add_name(const tp_allocator *alloc, tp_csv_names *nm, const field *f) {
    if (!tp_mem_grow(alloc, (void **)&nm->start, sizeof *nm->start, &nm->start_cap, nm->n + 1))
        return false;
    if (!tp_mem_grow(alloc, (void **)&nm->text, 1, &nm->text_cap, nm->text_len + f->len + 1))
        return false;
    nm->start[nm->n++] = nm->text_len;
    memcpy(nm->text + nm->text_len, f->p, f->len);
    nm->text_len += f->len;
    nm->text[nm->text_len++] = '\0';
    return true;
}

static tp_status parse_impl(const char *text, size_t len, const tp_allocator *alloc,
                            tp_buffer **out, size_t *n_out, tp_csv_names *names, tp_error *err) {
    if (!out || !n_out || (!text && len))
        return tp_error_set(err, TP_ERR_INVALID, "csv: NULL argument");
    *out = NULL;
    *n_out = 0;
    if (names) memset(names, 0, sizeof *names);
    size_t pos = 0, line = 0, ncols = 0, cap = 0, n = 0;
    tp_buffer *bufs = NULL;
    tp_status st = TP_OK;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    while (pos < len) {
        size_t start = pos;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        pos = nl ? end + 1 : len;
        line++;
        /* a CR anywhere but at the end: the lines are separated by CR alone */
        const char *cr = memchr(text + start, '\r', end - start);
        if (cr && (size_t)(cr - text) + 1 < end) {
            st = tp_error_setx(err, TP_ERR_PARSE, (uint64_t)(cr - text), TP_NO_NODE,
                               "line %zu: a carriage return inside the line at byte %zu "
                               "(CR-only line endings? lines must end in LF or CRLF)",
                               line, (size_t)(cr - text));
            goto fail;
        }
        field f[COL_MAX + 1];
        size_t nf = split_line(text + start, end - start, f, COL_MAX);
        if (nf == 1 && f[0].len == 0) continue; /* blank line */
        if (ncols == 0) {
            bool ok = nf >= 4 && nf <= 5;
            for (size_t c = 0; ok && c < nf; c++)
                ok = field_is(&f[c], csv_col_names[c]);
            if (!ok) {
                st =
                    tp_error_setx(err, TP_ERR_PARSE, start, TP_NO_NODE,
                                  "line %zu: bad header '%.*s' (want "
                                  "id,lower,upper,size[,alignment])",
                                  line, (int)((end - start) > 80 ? 80 : end - start), text + start);
                goto fail;
            }
            ncols = nf;
            continue;
        }
        if (nf != ncols) {
            st = tp_error_setx(
                err, TP_ERR_PARSE, start, TP_NO_NODE, "line %zu: %s%zu columns, the header has %zu",
                line, nf > COL_MAX ? "more than " : "", nf > COL_MAX ? COL_MAX : nf, ncols);
            goto fail;
        }
        uint64_t v[COL_MAX] = {0};
        int64_t id = 0;
        for (size_t c = 0; c < ncols; c++) {
            if (c == COL_ID && names) { /* any text; the number when it is one, else the row */
                if (f[c].len == 0) {
                    st = tp_error_setx(err, TP_ERR_PARSE, start, TP_NO_NODE, "line %zu: empty id",
                                       line);
                    goto fail;
                }
                if (!add_name(alloc, names, &f[c])) {
                    st = tp_error_set(err, TP_ERR_NOMEM, "csv: out of memory at line %zu", line);
                    goto fail;
                }
                uint64_t u;
                id =
                    parse_u64(&f[c], &u) == 0 && u <= (uint64_t)INT64_MAX ? (int64_t)u : (int64_t)n;
                continue;
            }
            if (c == COL_ID && f[c].len > 0 && f[c].p[0] == '-') {
                /* ids may be negative; parse the magnitude */
                field mag = {f[c].p + 1, f[c].len - 1};
                uint64_t m;
                int code = parse_u64(&mag, &m);
                if (code == 2) code = 1;
                if (code == 0 && m > (uint64_t)INT64_MAX + 1) code = 3;
                if (code) {
                    st = field_error(err, code, line, start, (int)c, &f[c]);
                    goto fail;
                }
                id = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
                continue;
            }
            int code = parse_u64(&f[c], &v[c]);
            if (code == 0 && c != COL_SIZE && c != COL_ALIGN && v[c] > (uint64_t)INT64_MAX)
                code = 3;
            if (code) {
                st = field_error(err, code, line, start, (int)c, &f[c]);
                goto fail;
            }
            if (c == COL_ID) id = (int64_t)v[c];
        }
        if (v[COL_UPPER] <= v[COL_LOWER]) {
            st = tp_error_setx(err, TP_ERR_PARSE, start, TP_NO_NODE,
                               "line %zu: upper %" PRIu64 " <= lower %" PRIu64
                               " (a buffer lives on [lower, upper))",
                               line, v[COL_UPPER], v[COL_LOWER]);
            goto fail;
        }
        if (ncols > COL_ALIGN && v[COL_ALIGN] != 0 && !tp_is_pow2_u64(v[COL_ALIGN])) {
            st = tp_error_setx(err, TP_ERR_PARSE, start, TP_NO_NODE,
                               "line %zu: alignment %" PRIu64 " is not a power of two", line,
                               v[COL_ALIGN]);
            goto fail;
        }
        if (!tp_mem_grow(alloc, (void **)&bufs, sizeof *bufs, &cap, n + 1)) {
            st = tp_error_set(err, TP_ERR_NOMEM, "csv: out of memory at line %zu", line);
            goto fail;
        }
        tp_buffer *b = &bufs[n++];
        memset(b, 0, sizeof *b);
        b->id = id;
        b->birth = (int64_t)v[COL_LOWER];
        b->death = (int64_t)v[COL_UPPER] - 1;
        b->size = v[COL_SIZE];
        b->alignment = ncols > COL_ALIGN ? v[COL_ALIGN] : 0;
        b->fixed_offset = -1;
    }
    if (ncols == 0) {
        st = tp_error_setx(err, TP_ERR_PARSE, 0, TP_NO_NODE,
                           "line 1: missing header id,lower,upper,size[,alignment]");
        goto fail;
    }
    if (n != cap) { /* hand back an array of exactly n elements */
        tp_buffer *exact = NULL;
        if (n) {
            exact = tp_mem_alloc(alloc, n * sizeof *exact);
            if (!exact) {
                st = tp_error_set(err, TP_ERR_NOMEM, "csv: out of memory (%zu buffers)", n);
                goto fail;
            }
            memcpy(exact, bufs, n * sizeof *exact);
        }
        tp_mem_free(alloc, bufs, cap * sizeof *bufs);
        bufs = exact;
    }
    *out = bufs;
    *n_out = n;
    return TP_OK;
fail:
    tp_mem_free(alloc, bufs, cap * sizeof *bufs);
    tp_csv_free_names(alloc, names);
    return st;
}

tp_status tp_csv_parse_buffers(const char *text, size_t len, const tp_allocator *alloc,
                               tp_buffer **out, size_t *n_out, tp_error *err) {
    return parse_impl(text, len, alloc, out, n_out, NULL, err);
}

tp_status tp_csv_parse_buffers_named(const char *text, size_t len, const tp_allocator *alloc,
                                     tp_buffer **out, size_t *n_out, tp_csv_names *names,
                                     tp_error *err) {
    if (!names) return tp_error_set(err, TP_ERR_INVALID, "csv: NULL names");
    return parse_impl(text, len, alloc, out, n_out, names, err);
}

static tp_status load_impl(const char *path, const tp_allocator *alloc, tp_buffer **out,
                           size_t *n_out, tp_csv_names *names, tp_error *err) {
    if (names) memset(names, 0, sizeof *names);
    if (!path) return tp_error_set(err, TP_ERR_INVALID, "csv: NULL path");
    FILE *f;
    uint64_t fsize;
    tp_status os = tp__fopen_regular(path, TP_CSV_MAX_FILE_BYTES, &f, &fsize, err);
    if (os != TP_OK) return os;
    char *text = NULL;
    size_t len = 0, cap = 0;
    tp_status st = TP_OK;
    for (;;) {
        if (!tp_mem_grow(alloc, (void **)&text, 1, &cap, len + 65536)) {
            st = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the file", path);
            goto done;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
        if (len > TP_CSV_MAX_FILE_BYTES) { /* the file grew while we read it */
            st = tp_error_set(err, TP_ERR_IO, "%s: over the limit of %llu bytes", path,
                              (unsigned long long)TP_CSV_MAX_FILE_BYTES);
            goto done;
        }
    }
    if (ferror(f)) {
        st = tp_error_set(err, TP_ERR_IO, "%s: read error: %s", path, strerror(errno));
        goto done;
    }
    st = parse_impl(text, len, alloc, out, n_out, names, err);
    if (st != TP_OK) tp_error_prefix(err, "%s: ", path);
done:
    tp_mem_free(alloc, text, cap);
    fclose(f);
    return st;
}

tp_status tp_csv_load_buffers(const char *path, const tp_allocator *alloc, tp_buffer **out,
                              size_t *n_out, tp_error *err) {
    return load_impl(path, alloc, out, n_out, NULL, err);
}

tp_status tp_csv_load_buffers_named(const char *path, const tp_allocator *alloc, tp_buffer **out,
                                    size_t *n_out, tp_csv_names *names, tp_error *err) {
    if (!names) return tp_error_set(err, TP_ERR_INVALID, "csv: NULL names");
    return load_impl(path, alloc, out, n_out, names, err);
}

void tp_csv_free_buffers(const tp_allocator *alloc, tp_buffer *bufs, size_t n) {
    if (!bufs) return;
    tp_mem_free(alloc, bufs, n * sizeof *bufs);
}

tp_status tp_csv_write_solution_named(FILE *f, const tp_buffer *bufs, size_t n,
                                      const tp_csv_names *names, const uint64_t *offsets,
                                      tp_error *err) {
    if (!f || (n && (!bufs || !offsets)))
        return tp_error_set(err, TP_ERR_INVALID, "csv: NULL argument");
    if (names && names->n != n)
        return tp_error_set(err, TP_ERR_INVALID, "csv: %zu names for %zu buffers", names->n, n);
    if (fputs("id,lower,upper,size,offset\n", f) < 0) goto io;
    for (size_t i = 0; i < n; i++) {
        int w = names ? fprintf(f, "%s,", tp_csv_name(names, i))
                      : fprintf(f, "%" PRId64 ",", bufs[i].id);
        if (w < 0 || fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 "\n", bufs[i].birth,
                             bufs[i].death + 1, bufs[i].size, offsets[i]) < 0)
            goto io;
    }
    if (fflush(f) != 0 || ferror(f)) goto io;
    return TP_OK;
io:
    return tp_error_set(err, TP_ERR_IO, "csv: write error: %s", strerror(errno));
}

tp_status tp_csv_write_solution(FILE *f, const tp_buffer *bufs, size_t n, const uint64_t *offsets,
                                tp_error *err) {
    return tp_csv_write_solution_named(f, bufs, n, NULL, offsets, err);
}
