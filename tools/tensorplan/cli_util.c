/* Shared CLI helpers: sizes, messages, exit codes. */
#include "cli.h"

#include "core/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Sizes: a decimal number with an optional binary unit: "4096", "512MiB", "1.5G",
 * "2e3KiB". Integers are parsed as integers (exact up to UINT64_MAX); a fraction or an
 * exponent goes through a double and must come to a whole number of bytes of at
 * least 1. Hexadecimal, "inf"/"nan", signs, and anything after the unit are refused
 * (strtod alone would read "0x10" as 16 or stop at "0" of "0x1p30"). */
bool tp_cli_parse_size(const char *s, uint64_t *out) {
    if (!s || !isdigit((unsigned char)*s)) return false;
    const char *p = s;
    while (isdigit((unsigned char)*p))
        p++;
    const char *int_end = p;
    bool decimal = false;
    if (*p == '.') {
        decimal = true;
        p++;
        if (!isdigit((unsigned char)*p)) return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-') q++;
        if (isdigit((unsigned char)*q)) { /* an exponent, not the "E" of "EiB" */
            decimal = true;
            p = q;
            while (isdigit((unsigned char)*p))
                p++;
        }
    }
    const char *unit = p;
    while (*unit == ' ')
        unit++;
    static const struct {
        const char *suffix;
        unsigned shift;
    } units[] = {
        {"", 0},     {"b", 0},   {"k", 10},   {"kb", 10},  {"kib", 10}, {"m", 20},   {"mb", 20},
        {"mib", 20}, {"g", 30},  {"gb", 30},  {"gib", 30}, {"t", 40},   {"tb", 40},  {"tib", 40},
        {"p", 50},   {"pb", 50}, {"pib", 50}, {"e", 60},   {"eb", 60},  {"eib", 60},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(unit, units[i].suffix) != 0) continue;
        const unsigned shift = units[i].shift;
        if (!decimal) {
            uint64_t v = 0;
            for (const char *d = s; d < int_end; d++) {
                uint64_t digit = (uint64_t)(*d - '0');
                if (v > (UINT64_MAX - digit) / 10) return false;
                v = v * 10 + digit;
            }
            if (shift && v > (UINT64_MAX >> shift)) return false;
            *out = v << shift;
            return true;
        }
        char num[64];
        size_t len = (size_t)(p - s);
        if (len >= sizeof num) return false;
        memcpy(num, s, len);
        num[len] = '\0';
        errno = 0;
        double v = strtod(num, NULL);
        if (errno != 0 || !isfinite(v)) return false;
        double bytes = ldexp(v, (int)shift);
        if (!(bytes < 18446744073709551616.0)) return false;
        double whole = floor(bytes + 0.5);
        /* a fraction of a byte (0.4, 1e-300, 1.5 B) is a typo, not a budget */
        if (fabs(bytes - whole) > 1e-9 * (whole > 1 ? whole : 1) || (whole < 1 && v != 0))
            return false;
        *out = (uint64_t)whole;
        return true;
    }
    return false;
}

const char *tp_cli_fmt_ratio(uint64_t num, uint64_t den, int decimals, char *buf, size_t cap) {
    if (den == 0)
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.*f", decimals, (double)num / (double)den);
    return buf;
}

const char *tp_cli_fmt_bytes(uint64_t bytes, char *buf, size_t cap) {
    return tp_format_bytes(bytes, buf, cap);
}

void tp_cli_error(const char *cmd, const tp_error *err) {
    /* messages quote names from the model file: escape them for the terminal */
    fprintf(stderr, "tensorplan %s: error: ", cmd);
    tp_fputs_escaped(err->msg[0] ? err->msg : "failed", stderr);
    fprintf(stderr, " (%s)\n", tp_status_name(err->status));
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

const char *tp_cli_safe(const char *s, char *buf, size_t cap) {
    bool plain = true;
    for (const unsigned char *p = (const unsigned char *)s; *p && plain; p++)
        plain = *p >= 0x20 && *p != 0x7f && *p != '\\';
    if (plain || cap == 0) return s;
    tp_strbuf sb;
    tp_strbuf_init(&sb, NULL);
    tp_strbuf_append_escaped(&sb, s);
    char *out = NULL;
    size_t len = 0;
    if (tp_strbuf_finish(&sb, &out, &len, NULL) != TP_OK) return "(name)";
    snprintf(buf, cap, "%s", out);
    tp_free_string(out);
    return buf;
}

const char *tp_cli_elide(const char *s, size_t width, char *buf, size_t cap) {
    char safe[1024];
    s = tp_cli_safe(s, safe, sizeof safe);
    size_t n = strlen(s);
    if (n <= width || width < 4 || cap <= width) {
        if (s != safe) return s;
        snprintf(buf, cap, "%s", safe);
        return buf;
    }
    size_t head = (width - 3) / 2, tail = width - 3 - head;
    snprintf(buf, cap, "%.*s...%s", (int)head, s, s + n - tail);
    return buf;
}
