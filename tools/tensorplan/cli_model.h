/* The CLI's model loader, shared by every subcommand that takes a model:
 *
 *   [MODEL | --demo] [--dim name=value]... [--input-value name=v[,v...]]...
 *
 * No model or --demo gives the built-in demo transformer (tensorplan/demo.h);
 * a file path is dispatched by its extension through the table in
 * cli_model.c (add a format there: one row). --dim assignments are applied
 * after loading with tp_graph_bind_str, in order, so they override the
 * model's defaults.
 */
#ifndef TP_CLI_MODEL_H
#define TP_CLI_MODEL_H

#include "cli_dims.h"
#include "cli_input_values.h"

typedef struct tp_cli_model_args {
    const char *path; /* NULL: the demo */
    bool demo;
    bool accept_gguf; /* set before parsing: a MODEL.gguf goes to `gguf` (LLM mode) */
    const char *gguf;
    tp_cli_dims dims;           /* --dim / --dims, in order */
    tp_cli_input_values values; /* --input-value, in order (ONNX only) */
} tp_cli_model_args;

void tp_cli_model_args_init(tp_cli_model_args *a);
void tp_cli_model_args_free(tp_cli_model_args *a);

/* The rows MODEL (positional, one only), --demo, --dim, --dims, --input-value, listed under
 * "model:" in --help: TP_CLI_MODEL(args_type, model_field) in a table. */
extern const tp_cli_opt tp_cli_model_opts[];
#define TP_CLI_MODEL(type, field) TP_OPT_GROUP_ROW(tp_cli_model_opts, type, field, "model")

/* Load the model, apply the --dim bindings, then bind the dims that are still
 * unbound and batch-like or unnamed to 1 (tp_graph_bind_defaults), saying so on
 * one stderr line unless --quiet. On error *out is NULL and err
 * says why (TP_ERR_UNSUPPORTED for an unknown file format). */
tp_status tp_cli_model_load(const tp_cli_model_args *a, tp_graph **out, tp_error *err);
/* Size of an ONNX model file (its external data not counted); 0 for other
 * models and the demo. Errors: those of tp_onnx_model_open. */
tp_status tp_cli_model_file_bytes(const tp_cli_model_args *a, uint64_t *out, tp_error *err);

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

#endif
