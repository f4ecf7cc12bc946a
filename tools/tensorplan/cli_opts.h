/* Declarative option tables: each subcommand describes its arguments in one
 * static table, and one generic parser (tp_cli_parse) reads argv against it;
 * `--help`, the man page and the shell completions are generated from the same
 * rows (cli_help.c, cli_manpage.c).
 *
 * THE TABLE FORMAT (one tp_cli_opt row per option, the table ends with TP_CLI_END):
 *
 *   name    long name without the dashes ("budget" is --budget); NULL for the
 *           positional argument (at most one such row per table, kind TP_OPT_CUSTOM)
 *   alias   one-letter short form ('o' for -o), or 0
 *   kind    what the value is and how it is stored at `dest`:
 *             TP_OPT_FLAG    no value; bool = true
 *             TP_OPT_UNSET   no value; bool = false ("--no-inplace")
 *             TP_OPT_INT     uint64_t (uint32_t when u32), a decimal integer in [imin, imax]
 *             TP_OPT_SIZE    uint64_t, a size with units (tp_cli_parse_size), >= imin
 *             TP_OPT_REAL    double, a finite number in [dmin, dmax]
 *             TP_OPT_STRING  const char *, a non-empty word (points into argv)
 *             TP_OPT_FILE    const char *, a file name (completed as a file)
 *             TP_OPT_CUSTOM  apply(ctx, row, value, dest) converts and stores
 *             TP_OPT_GROUP   the rows of `group`, whose dest offsets are relative
 *                            to this row's dest (shared option sets: model, plan,
 *                            LLM, common); help != NULL prints them under that
 *                            heading, else inline
 *             TP_OPT_HELP    --help: print the generated help, exit 0
 *   takes   for TP_OPT_CUSTOM: whether it takes a value
 *   file    for TP_OPT_CUSTOM: the value is a file name (for completions)
 *   repeat  each use adds a value (--dim) rather than replacing it (for completions)
 *   dest    offsetof() of the destination in the command's argument struct
 *   seen    offsetof() + 1 of a bool set when the option (or, for a group, any
 *           of its options) is given; 0 for none (TP_CLI_SEEN(type, field))
 *   value   the value's name in help and errors ("SIZE", "N", "FILE"); NULL for flags
 *   help    help text; '\n' starts a continuation line
 *   what    for errors: what the value must be ("a size (512MiB, 8GiB, 1.5G,
 *           bytes)"); NULL derives it from the kind and range
 *   choices space-separated words the shell completes for the value, or NULL
 *   imin, imax, u32   TP_OPT_INT range and destination width; TP_OPT_SIZE minimum
 *   dmin, dmax        TP_OPT_REAL range
 *   apply   TP_OPT_CUSTOM's conversion;  group  TP_OPT_GROUP's rows
 *
 * A value is given as `--name VALUE`, `--name=VALUE` or `-a VALUE`. Errors print
 * "tensorplan CMD: --name needs WHAT, got 'VALUE'" (tp_cli_usage_error, exit 2).
 * Add an option: one row (or one row in a shared group), nothing else.
 */
#ifndef TP_CLI_OPTS_H
#define TP_CLI_OPTS_H

#include <stddef.h>

#include "cli.h"

typedef enum tp_cli_kind {
    TP_OPT_END = 0,
    TP_OPT_FLAG,
    TP_OPT_UNSET,
    TP_OPT_INT,
    TP_OPT_SIZE,
    TP_OPT_REAL,
    TP_OPT_STRING,
    TP_OPT_FILE,
    TP_OPT_CUSTOM,
    TP_OPT_GROUP,
    TP_OPT_HELP,
} tp_cli_kind;

struct tp_cli_opt;

/* What a custom row's apply function is told. */
typedef struct tp_cli_ctx {
    const char *cmd;     /* the subcommand, for messages */
    const char *spelled; /* the option as written ("--dim", "-o"), or the positional word */
} tp_cli_ctx;

/* Convert `val` (NULL for a row that takes none) and store it at dest. 0 when
 * done, else the exit code after printing the error (tp_cli_usage_error). */
typedef int (*tp_cli_apply)(const tp_cli_ctx *ctx, const struct tp_cli_opt *o, const char *val,
                            void *dest);

typedef struct tp_cli_opt {
    const char *name;
    char alias;
    tp_cli_kind kind;
    bool takes;
    bool file;   /* TP_OPT_CUSTOM: the value names a file (completions complete file names) */
    bool repeat; /* may be given more than once, each adding (--dim): for completions */
    size_t dest;
    size_t seen;
    const char *value;
    const char *help;
    const char *what;
    const char *choices;
    uint64_t imin, imax;
    bool u32; /* TP_OPT_INT: the destination is a uint32_t (imax must fit) */
    double dmin, dmax;
    tp_cli_apply apply;
    const struct tp_cli_opt *group;
} tp_cli_opt;

#define TP_CLI_SEEN(type, field) (offsetof(type, field) + 1)
#define TP_CLI_END                                                                                 \
    { .kind = TP_OPT_END }

/* Row shorthands (designated initializers; every other member is zero). */
#define TP_OPT_FLAG_ROW(nm, type, field, hlp)                                                      \
    { .name = nm, .kind = TP_OPT_FLAG, .dest = offsetof(type, field), .help = hlp }
#define TP_OPT_UNSET_ROW(nm, type, field, hlp)                                                     \
    { .name = nm, .kind = TP_OPT_UNSET, .dest = offsetof(type, field), .help = hlp }
#define TP_OPT_INT_ROW(nm, type, field, val, lo, hi, hlp)                                          \
    {                                                                                              \
        .name = nm, .kind = TP_OPT_INT, .takes = true, .dest = offsetof(type, field),              \
        .value = val, .imin = lo, .imax = hi, .help = hlp                                          \
    }
#define TP_OPT_U32_ROW(nm, type, field, val, lo, hi, hlp)                                          \
    {                                                                                              \
        .name = nm, .kind = TP_OPT_INT, .takes = true, .dest = offsetof(type, field),              \
        .value = val, .imin = lo, .imax = hi, .u32 = true, .help = hlp                             \
    }
#define TP_OPT_REAL_ROW(nm, type, field, val, lo, hi, wht, hlp)                                    \
    {                                                                                              \
        .name = nm, .kind = TP_OPT_REAL, .takes = true, .dest = offsetof(type, field),             \
        .value = val, .dmin = lo, .dmax = hi, .what = wht, .help = hlp                             \
    }
#define TP_OPT_STRING_ROW(nm, type, field, val, hlp)                                               \
    {                                                                                              \
        .name = nm, .kind = TP_OPT_STRING, .takes = true, .dest = offsetof(type, field),           \
        .value = val, .help = hlp                                                                  \
    }
#define TP_OPT_FILE_ROW(nm, type, field, val, hlp)                                                 \
    {                                                                                              \
        .name = nm, .kind = TP_OPT_FILE, .takes = true, .dest = offsetof(type, field),             \
        .value = val, .help = hlp                                                                  \
    }
#define TP_OPT_GROUP_ROW(rows, type, field, heading)                                               \
    { .kind = TP_OPT_GROUP, .dest = offsetof(type, field), .group = rows, .help = heading }

/* One subcommand: its table and the prose around it in --help and the man page. */
typedef struct tp_cli_command {
    const char *name;
    const char *summary;     /* one line, for `tensorplan --help` and the man page */
    const char *synopsis;    /* usage lines without "usage: tensorplan CMD"; '\n' separates,
                              * a line starting with a space continues the one before */
    const char *description; /* paragraphs; '\n' ends a line */
    const tp_cli_opt *opts;
    const char *examples;  /* one command line per line, without "tensorplan " */
    const char *notes;     /* text after the examples (units, exit codes) */
    const char *json_help; /* this command's help of --json (its units), or NULL */
} tp_cli_command;

/* Parse argv[1..argc) (argv[0] is the subcommand) into args against c->opts.
 * args must be initialised with the defaults first. Returns 0 when parsed,
 * -1 after printing --help (exit 0), else the exit code of the usage error
 * already printed. */
int tp_cli_parse(const tp_cli_command *c, int argc, char **argv, void *args);

/* The generated `tensorplan CMD --help` text. */
void tp_cli_print_help(const tp_cli_command *c, FILE *f);

/* "needs WHAT" of a row, as errors say it, into buf. */
const char *tp_cli_opt_what(const tp_cli_opt *o, char *buf, size_t cap);

/* The help text of row o in command c: c->json_help for the common --json. */
const char *tp_cli_opt_help(const tp_cli_command *c, const tp_cli_opt *o);

/* "--name VALUE", "-o, --output FILE" or the positional's value name, into buf. */
const char *tp_cli_opt_label(const tp_cli_opt *o, char *buf, size_t cap);

/* Visit every row of a table, groups flattened (not the group rows), in order,
 * without the rows that an earlier row of the same name hides (the parser
 * takes the first match). heading is the group heading the row is listed under (NULL: "options").
 */
typedef void (*tp_cli_visit)(const tp_cli_opt *o, const char *heading, void *user);
void tp_cli_opts_visit(const tp_cli_opt *opts, tp_cli_visit fn, void *user);

/* Every subcommand: cmd_<name>.c defines
 *     int tp_cli_<name>(int argc, char **argv);    argv[0] is the subcommand name
 *     const tp_cli_command tp_cli_<name>_command;  its table and help prose
 * (the list is generated from the file names by CMake). */
#define TP_CLI_COMMAND(n)                                                                          \
    int tp_cli_##n(int argc, char **argv);                                                         \
    extern const tp_cli_command tp_cli_##n##_command;
#include "cli_commands.inc"
#undef TP_CLI_COMMAND

/* ---- shared rows and groups (declared once, used by several commands) ---- */

/* --json, --quiet/-q, --help/-h: every table ends with this group, its dest the
 * command's `bool json`. */
extern const tp_cli_opt tp_cli_common_opts[];
#define TP_CLI_COMMON(type, json_field) TP_OPT_GROUP_ROW(tp_cli_common_opts, type, json_field, NULL)

/* --budget SIZE (uint64_t + bool seen). */
extern const char tp_cli_budget_help[];
#define TP_OPT_BUDGET_ROW(type, field, seen_field)                                                 \
    {                                                                                              \
        .name = "budget", .kind = TP_OPT_SIZE, .takes = true, .dest = offsetof(type, field),       \
        .seen = TP_CLI_SEEN(type, seen_field), .value = "SIZE",                                    \
        .what = "a size (512MiB, 8GiB, 1.5G, bytes)", .help = tp_cli_budget_help                   \
    }

/* --algo NAME (tp_alloc_algo) and --align N (uint64_t, a power of two), whose help
 * differs by command (their defaults do). */
#define TP_OPT_ALGO_ROW(type, field, hlp)                                                          \
    {                                                                                              \
        .name = "algo", .kind = TP_OPT_CUSTOM, .takes = true, .dest = offsetof(type, field),       \
        .value = "NAME", .what = "a name (greedy, bestfit, ...)",                                  \
        .choices = "auto greedy noreuse bestfit exact", .apply = tp_cli_apply_algo, .help = hlp    \
    }
#define TP_OPT_ALIGN_ROW(type, field, hlp)                                                         \
    {                                                                                              \
        .name = "align", .kind = TP_OPT_CUSTOM, .takes = true, .dest = offsetof(type, field),      \
        .value = "N", .what = "a power of two", .apply = tp_cli_apply_pow2, .help = hlp            \
    }

/* Apply functions that shared rows and several commands use. */
int tp_cli_apply_algo(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest);
int tp_cli_apply_pow2(const tp_cli_ctx *ctx, const tp_cli_opt *o, const char *val, void *dest);

#endif
