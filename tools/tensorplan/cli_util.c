/* Shared CLI helpers: sizes, messages, exit codes. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

bool tp_cli_parse_size(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-' || isspace((unsigned char)*s)) return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno != 0 || !(v >= 0) || !isfinite(v)) return false;
    while (*end == ' ')
        end++;
    static const struct {
        const char *suffix;
        double mult;
    } units[] = {
        {"", 1.0},
        {"b", 1.0},
        {"k", 1024.0},
        {"kb", 1024.0},
        {"kib", 1024.0},
        {"m", 1048576.0},
        {"mb", 1048576.0},
        {"mib", 1048576.0},
        {"g", 1073741824.0},
        {"gb", 1073741824.0},
        {"gib", 1073741824.0},
        {"t", 1099511627776.0},
        {"tb", 1099511627776.0},
        {"tib", 1099511627776.0},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(end, units[i].suffix) == 0) {
            double bytes = floor(v * units[i].mult + 0.5);
            if (bytes >= 18446744073709551616.0) return false;
            /* plain integers are exact even beyond 2^53 */
            if (units[i].mult == 1.0 && strchr(s, '.') == NULL && strchr(s, 'e') == NULL &&
                strchr(s, 'E') == NULL) {
                errno = 0;
                unsigned long long u = strtoull(s, NULL, 10);
                if (errno != 0) return false;
                *out = (uint64_t)u;
                return true;
            }
            *out = (uint64_t)bytes;
            return true;
        }
    }
    return false;
}

const char *tp_cli_fmt_bytes(uint64_t bytes, char *buf, size_t cap) {
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", v, names[u]);
    return buf;
}

void tp_cli_error(const char *cmd, const tp_error *err) {
    fprintf(stderr, "tensorplan %s: error: %s (%s)\n", cmd, err->msg[0] ? err->msg : "failed",
            tp_status_name(err->status));
}

int tp_cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "tensorplan %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'tensorplan %s --help')\n", cmd);
    return TP_EXIT_USAGE;
}

int tp_cli_exit_for(tp_status s) {
    if (s == TP_OK) return TP_EXIT_OK;
    if (s == TP_ERR_OVER_BUDGET) return TP_EXIT_OVER_BUDGET;
    return TP_EXIT_ERROR;
}

bool tp_cli_quiet = false;

bool tp_cli_progress_enabled(bool quiet) {
    return !quiet && !tp_cli_quiet && isatty(STDERR_FILENO);
}

const char *tp_cli_elide(const char *s, size_t width, char *buf, size_t cap) {
    size_t n = strlen(s);
    if (n <= width || width < 4 || cap <= width) return s;
    size_t head = (width - 3) / 2, tail = width - 3 - head;
    snprintf(buf, cap, "%.*s...%s", (int)head, s, s + n - tail);
    return buf;
}
