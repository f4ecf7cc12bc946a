/* The CLI's model loader, shared by every subcommand that takes a model:
 *
 *   [MODEL | --demo] [--dim name=value]...
 *
 * No model or --demo gives the built-in demo transformer (tensorplan/demo.h);
 * a file path is dispatched by its extension through the table in
 * cli_model.c (add a format there: one row). --dim assignments are applied
 * after loading with tp_graph_bind_str, in order, so they override the
 * model's defaults.
 */
#ifndef TP_CLI_MODEL_H
#define TP_CLI_MODEL_H

#include "cli.h"

#define TP_CLI_MAX_DIMS 64

typedef struct tp_cli_model_args {
    const char *path; /* NULL: the demo */
    bool demo;
    const char *dims[TP_CLI_MAX_DIMS];
    int n_dims;
} tp_cli_model_args;

void tp_cli_model_args_init(tp_cli_model_args *a);

/* Try to consume argv[*i] (and its value) as a model argument: --demo,
 * --dim k=v, --dim=k=v, or a positional model path (one only).
 * Returns 1 when consumed (*i advanced past it), 0 when the argument is not a
 * model argument, and TP_EXIT_USAGE after printing a usage error. */
int tp_cli_model_arg(tp_cli_model_args *a, const char *cmd, int argc, char **argv, int *i);

/* Load the model, apply the --dim bindings, then bind the dims that are still
 * unbound and batch-like or unnamed to 1 (tp_graph_bind_defaults), saying so on
 * one stderr line unless --quiet. On error *out is NULL and err
 * says why (TP_ERR_UNSUPPORTED for an unknown file format). */
tp_status tp_cli_model_load(const tp_cli_model_args *a, tp_graph **out, tp_error *err);

/* Print a model error (tp_cli_error); after an unbound symbolic dim, also a hint
 * naming the graph's unbound symbols and --dim. g may be NULL (no hint). */
void tp_cli_model_error(const char *cmd, const tp_graph *g, const tp_error *err);

/* What the importer assumed to size the model (tp_graph_note) and which
 * data-dependent dims take their upper bound (tp_graph_symbol_upper): text
 * lines "note: ..." / "bounded: name = value (why)" (nothing when there are
 * none), or JSON members "notes": [..] and "bounded_dims": [{symbol, value,
 * why}] (always present; g NULL gives empty arrays). */
void tp_cli_model_print_assumptions(FILE *f, const tp_graph *g);
void tp_cli_model_json_assumptions(tp_json *j, const tp_graph *g);

/* Short description of the model ("demo transformer" or the path). */
const char *tp_cli_model_label(const tp_cli_model_args *a);

/* The usage lines for the model arguments, for --help texts. */
extern const char tp_cli_model_usage[];

#endif
