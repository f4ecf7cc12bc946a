/* Internal: a growable NUL-terminated string through the allocator hook.
 * Errors are sticky: after a failed append every further append is a no-op
 * and tp_strbuf_finish reports TP_ERR_NOMEM. */
#ifndef TP_CORE_STRBUF_H
#define TP_CORE_STRBUF_H

#include <stdio.h>

#include "tensorplan/core.h"

typedef struct tp_strbuf {
    const tp_allocator *alloc;
    char *data;
    size_t len, cap;
    bool failed;
} tp_strbuf;

void tp_strbuf_init(tp_strbuf *sb, const tp_allocator *alloc);
void tp_strbuf_append(tp_strbuf *sb, const char *s);
void tp_strbuf_appendn(tp_strbuf *sb, const char *s, size_t n);
void tp_strbuf_printf(tp_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append s with &, <, >, ", ' escaped for XML/HTML. */
void tp_strbuf_append_xml(tp_strbuf *sb, const char *s);
/* Append s with control characters escaped for one-line text output: tab, newline and
 * CR as \t \n \r, other bytes below 0x20 and DEL as \xNN, a backslash as \\, so a
 * name cannot break a one-row-per-record table or send escape sequences to a terminal. */
void tp_strbuf_append_escaped(tp_strbuf *sb, const char *s);
/* The same escaping, written to a stream. */
void tp_fputs_escaped(const char *s, FILE *f);
/* Hand the string to the caller (*out, *len; free with tp_mem_free(alloc, p, len + 1)
 * or tp_free_string when alloc is libc). TP_ERR_NOMEM after any failure (buffer freed). */
tp_status tp_strbuf_finish(tp_strbuf *sb, char **out, size_t *len, tp_error *err);
void tp_strbuf_free(tp_strbuf *sb);

#endif
