/* The symbolic-dimension bindings of the command line: --dim NAME=VALUE
 * (repeatable, no limit) and --dims FILE.json ({"name": int, ...}), kept in
 * the order given so that later bindings override earlier ones. */
#ifndef TP_CLI_DIMS_H
#define TP_CLI_DIMS_H

#include "cli_opts.h"

/* A growing list of "NAME=VALUE" strings, each owned (a copy). */
typedef struct tp_cli_dims {
    char **items;
    size_t n, cap;
} tp_cli_dims;

/* Insert a copy of `assignment` at index `at` (<= n; n appends). false when out
 * of memory or the list would overflow. */
bool tp_cli_dims_insert(tp_cli_dims *d, size_t at, const char *assignment);
void tp_cli_dims_free(tp_cli_dims *d);

/* Bind every assignment to g in order (tp_graph_bind_str); the error names the
 * assignment ("--dim seq=x: ..."). */
tp_status tp_cli_dims_bind(const tp_cli_dims *d, tp_graph *g, tp_error *err);

/* The rows --dim and --dims; a group row's dest is the tp_cli_dims. */
extern const tp_cli_opt tp_cli_dims_opts[];

#endif
