/* A growable string for report writers (text, SVG, HTML). */
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"

void tp_strbuf_init(tp_strbuf *sb, const tp_allocator *alloc) {
    sb->alloc = alloc;
    sb->data = NULL;
    sb->len = sb->cap = 0;
    sb->failed = false;
}

static bool reserve(tp_strbuf *sb, size_t extra) {
    if (sb->failed) return false;
    if (extra > SIZE_MAX - sb->len - 1) {
        sb->failed = true;
        return false;
    }
    if (!tp_mem_grow(sb->alloc, (void **)&sb->data, 1, &sb->cap, sb->len + extra + 1)) {
        sb->failed = true;
        return false;
    }
    return true;
}

void tp_strbuf_appendn(tp_strbuf *sb, const char *s, size_t n) {
    if (!reserve(sb, n)) return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void tp_strbuf_append(tp_strbuf *sb, const char *s) {
    tp_strbuf_appendn(sb, s, strlen(s));
}

void tp_strbuf_printf(tp_strbuf *sb, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        tp_strbuf_appendn(sb, small, (size_t)n);
        return;
    }
    if (!reserve(sb, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void tp_strbuf_append_xml(tp_strbuf *sb, const char *s) {
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '&':
            tp_strbuf_append(sb, "&amp;");
            break;
        case '<':
            tp_strbuf_append(sb, "&lt;");
            break;
        case '>':
            tp_strbuf_append(sb, "&gt;");
            break;
        case '"':
            tp_strbuf_append(sb, "&quot;");
            break;
        case '\'':
            tp_strbuf_append(sb, "&#39;");
            break;
        default:
            tp_strbuf_appendn(sb, p, 1);
        }
    }
}

void tp_strbuf_append_escaped(tp_strbuf *sb, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\t')
            tp_strbuf_append(sb, "\\t");
        else if (*p == '\n')
            tp_strbuf_append(sb, "\\n");
        else if (*p == '\r')
            tp_strbuf_append(sb, "\\r");
        else if (*p == '\\')
            tp_strbuf_append(sb, "\\\\");
        else if (*p < 0x20 || *p == 0x7f)
            tp_strbuf_printf(sb, "\\x%02x", *p);
        else
            tp_strbuf_appendn(sb, (const char *)p, 1);
    }
}

void tp_fputs_escaped(const char *s, FILE *f) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\t')
            fputs("\\t", f);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\r')
            fputs("\\r", f);
        else if (*p == '\\')
            fputs("\\\\", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

tp_status tp_strbuf_finish(tp_strbuf *sb, char **out, size_t *len, tp_error *err) {
    if (!sb->failed && !sb->data) reserve(sb, 0);
    if (sb->failed) {
        tp_strbuf_free(sb);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory while writing a report");
    }
    *out = sb->data;
    if (len) *len = sb->len;
    sb->data = NULL;
    sb->len = sb->cap = 0;
    return TP_OK;
}

void tp_strbuf_free(tp_strbuf *sb) {
    tp_mem_free(sb->alloc, sb->data, sb->cap);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}
