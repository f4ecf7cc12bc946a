/* The tensorplan command line: shared helpers for subcommands.
 *
 * Each subcommand lives in cmd_<name>.c (see cli_opts.h for what it defines:
 * its entry point and its declarative option table).
 *
 * Exit codes (documented in README): 0 ok, 1 error (bad input, I/O),
 * 2 usage error, 3 estimated peak exceeds the budget / does not fit.
 */
#ifndef TP_CLI_H
#define TP_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tensorplan.h"

enum { TP_EXIT_OK = 0, TP_EXIT_ERROR = 1, TP_EXIT_USAGE = 2, TP_EXIT_OVER_BUDGET = 3 };

/* Parse a size: plain bytes ("1048576"), binary units ("512MiB", "8GiB", "4KiB"),
 * decimal-looking units treated as binary like most tools' memory flags
 * ("1.5G", "512M", "64K", "2T", with or without trailing "B"). false on
 * garbage, negative values or overflow. */
bool tp_cli_parse_size(const char *s, uint64_t *out);
/* s, or its copy in buf with control characters and backslashes escaped (\t, \n,
 * \xNN, \\) when it has any: names from model files are untrusted text. */
const char *tp_cli_safe(const char *s, char *buf, size_t cap);
/* Format bytes in binary units with one decimal ("812.4 MiB", "512 B"). */
const char *tp_cli_fmt_bytes(uint64_t bytes, char *buf, size_t cap);
/* s if it fits `width` characters, else its start + "..." + its end, width
 * characters in all, written into buf (long ONNX names differ in the middle). */
const char *tp_cli_elide(const char *s, size_t width, char *buf, size_t cap);
/* The ratio num / den (arena over lower bound, no reuse over arena), written with
 * `decimals` digits; "n/a" when den is 0 (there is no ratio to a zero bound). The
 * one rule of every command; JSON writes null there (tp_json_kv_ratio). */
const char *tp_cli_fmt_ratio(uint64_t num, uint64_t den, int decimals, char *buf, size_t cap);
/* Print "tensorplan <cmd>: <message>" to stderr, with the status name. */
void tp_cli_error(const char *cmd, const tp_error *err);
/* Print a usage error and return TP_EXIT_USAGE. */
int tp_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Map a library status to an exit code (OVER_BUDGET -> 3, else 1). */
int tp_cli_exit_for(tp_status s);
/* Set by main() when --quiet / -q appears anywhere on the command line (every
 * subcommand accepts it): no progress lines on stderr. */
extern bool tp_cli_quiet;
/* True when stderr is a terminal and neither `quiet` nor --quiet (progress lines). */
bool tp_cli_progress_enabled(bool quiet);

/* ---- a tiny streaming JSON writer (commas and escaping handled) ---- */
typedef struct tp_json {
    FILE *f;
    int depth;
    bool need_comma[64];
    bool pretty;
} tp_json;
void tp_json_init(tp_json *j, FILE *f, bool pretty);
void tp_json_begin_object(tp_json *j);
void tp_json_end_object(tp_json *j);
void tp_json_begin_array(tp_json *j);
void tp_json_end_array(tp_json *j);
void tp_json_key(tp_json *j, const char *key);
void tp_json_str(tp_json *j, const char *s);
void tp_json_u64(tp_json *j, uint64_t v);
void tp_json_i64(tp_json *j, int64_t v);
void tp_json_f64(tp_json *j, double v);
void tp_json_bool(tp_json *j, bool v);
void tp_json_null(tp_json *j);
/* key + value shorthands */
void tp_json_kv_str(tp_json *j, const char *k, const char *v);
void tp_json_kv_u64(tp_json *j, const char *k, uint64_t v);
void tp_json_kv_i64(tp_json *j, const char *k, int64_t v);
void tp_json_kv_f64(tp_json *j, const char *k, double v);
void tp_json_kv_bool(tp_json *j, const char *k, bool v);
/* num / den, or null when den is 0 (tp_cli_fmt_ratio). */
void tp_json_kv_ratio(tp_json *j, const char *k, uint64_t num, uint64_t den);
/* Finish the document with a newline. */
void tp_json_finish(tp_json *j);

#endif
