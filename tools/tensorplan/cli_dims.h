/* The symbolic-dimension bindings of the command line: --dim NAME=VALUE
 * (repeatable, no limit) and --dims FILE.json ({"name": int, ...}), kept in
 * the order given so that later bindings override earlier ones. */
#ifndef TP_CLI_DIMS_H
#define TP_CLI_DIMS_H

#include "cli_opts.h"

/* One binding: "NAME=VALUE" (owned, a copy) and the --dims file it came from
 * (NULL for --dim or a default; not owned: argv). */
typedef struct tp_cli_dim {
    char *assignment;
    const char *file;
} tp_cli_dim;

/* A growing list of bindings. */
typedef struct tp_cli_dims {
    tp_cli_dim *items;
    size_t n, cap;
} tp_cli_dims;

/* Insert a copy of `assignment` (from `file`, or NULL) at index `at` (<= n; n
 * appends). false when out of memory or the list would overflow. */
bool tp_cli_dims_insert(tp_cli_dims *d, size_t at, const char *assignment, const char *file);
void tp_cli_dims_free(tp_cli_dims *d);

/* Bind every assignment to g in order (tp_graph_bind_str); the error names the
 * assignment and its file ("--dim seq=x: ...", "--dims f.json: seq=9: ..."). */
tp_status tp_cli_dims_bind(const tp_cli_dims *d, tp_graph *g, tp_error *err);

/* The rows --dim and --dims; a group row's dest is the tp_cli_dims. */
extern const tp_cli_opt tp_cli_dims_opts[];

#endif
