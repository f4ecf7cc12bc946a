/* A tiny streaming JSON writer for --json outputs. */
#include "cli.h"

#include <inttypes.h>
#include <math.h>

void tp_json_init(tp_json *j, FILE *f, bool pretty) {
    j->f = f;
    j->depth = 0;
    j->need_comma[0] = false;
    j->pretty = pretty;
}

static void newline(tp_json *j) {
    if (!j->pretty) return;
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* Called before a value or key in a container. */
static void pre_item(tp_json *j) {
    if (j->need_comma[j->depth]) fputc(',', j->f);
    if (j->depth > 0) newline(j);
    j->need_comma[j->depth] = true;
}

static bool after_key;

static void pre_value(tp_json *j) {
    if (after_key) {
        after_key = false;
        return;
    }
    pre_item(j);
}

static void open(tp_json *j, char c) {
    pre_value(j);
    fputc(c, j->f);
    if (j->depth < 63) j->depth++;
    j->need_comma[j->depth] = false;
}

static void close(tp_json *j, char c) {
    bool had = j->need_comma[j->depth];
    if (j->depth > 0) j->depth--;
    if (had) newline(j);
    fputc(c, j->f);
}

void tp_json_begin_object(tp_json *j) {
    open(j, '{');
}
void tp_json_end_object(tp_json *j) {
    close(j, '}');
}
void tp_json_begin_array(tp_json *j) {
    open(j, '[');
}
void tp_json_end_array(tp_json *j) {
    close(j, ']');
}

static void write_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void tp_json_key(tp_json *j, const char *key) {
    pre_item(j);
    write_string(j->f, key);
    fputs(j->pretty ? ": " : ":", j->f);
    after_key = true;
}

void tp_json_str(tp_json *j, const char *s) {
    pre_value(j);
    write_string(j->f, s);
}
void tp_json_u64(tp_json *j, uint64_t v) {
    pre_value(j);
    fprintf(j->f, "%" PRIu64, v);
}
void tp_json_i64(tp_json *j, int64_t v) {
    pre_value(j);
    fprintf(j->f, "%" PRId64, v);
}
void tp_json_f64(tp_json *j, double v) {
    pre_value(j);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}
void tp_json_bool(tp_json *j, bool v) {
    pre_value(j);
    fputs(v ? "true" : "false", j->f);
}
void tp_json_null(tp_json *j) {
    pre_value(j);
    fputs("null", j->f);
}

void tp_json_kv_str(tp_json *j, const char *k, const char *v) {
    tp_json_key(j, k);
    tp_json_str(j, v);
}
void tp_json_kv_u64(tp_json *j, const char *k, uint64_t v) {
    tp_json_key(j, k);
    tp_json_u64(j, v);
}
void tp_json_kv_i64(tp_json *j, const char *k, int64_t v) {
    tp_json_key(j, k);
    tp_json_i64(j, v);
}
void tp_json_kv_f64(tp_json *j, const char *k, double v) {
    tp_json_key(j, k);
    tp_json_f64(j, v);
}
void tp_json_kv_ratio(tp_json *j, const char *k, uint64_t num, uint64_t den) {
    tp_json_key(j, k);
    if (den == 0)
        tp_json_null(j);
    else
        tp_json_f64(j, (double)num / (double)den);
}
void tp_json_kv_bool(tp_json *j, const char *k, bool v) {
    tp_json_key(j, k);
    tp_json_bool(j, v);
}

void tp_json_finish(tp_json *j) {
    fputc('\n', j->f);
    fflush(j->f);
}
