/* tp_error: messages with context. Never allocates; truncates with "...". */
#include "tensorplan/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tp_error_clear(tp_error *err) {
    if (!err) return;
    err->status = TP_OK;
    err->offset = TP_NO_OFFSET;
    err->node = TP_NO_NODE;
    err->msg[0] = '\0';
}

static void mark_truncated(char *msg, int written) {
    if (written >= TP_ERROR_MSG_CAP) memcpy(msg + TP_ERROR_MSG_CAP - 4, "...", 4);
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 0)))
#endif
static tp_status
error_vset(tp_error *err, tp_status s, uint64_t offset, int64_t node, const char *fmt, va_list ap) {
    if (!err) return s;
    err->status = s;
    err->offset = offset;
    err->node = node;
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    if (n < 0) err->msg[0] = '\0';
    mark_truncated(err->msg, n);
    return s;
}

tp_status tp_error_set(tp_error *err, tp_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, s, TP_NO_OFFSET, TP_NO_NODE, fmt, ap);
    va_end(ap);
    return s;
}

tp_status tp_error_setx(tp_error *err, tp_status s, uint64_t offset, int64_t node, const char *fmt,
                        ...) {
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, s, offset, node, fmt, ap);
    va_end(ap);
    return s;
}

void tp_error_prefix(tp_error *err, const char *fmt, ...) {
    if (!err) return;
    char prefix[TP_ERROR_MSG_CAP];
    char old[TP_ERROR_MSG_CAP];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    memcpy(old, err->msg, sizeof old);
    n = snprintf(err->msg, sizeof err->msg, "%s%s", prefix, old);
    mark_truncated(err->msg, n);
}
