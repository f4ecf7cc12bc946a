/* The known values of graph inputs on the command line: --input-value NAME=V[,V...]
 * (repeatable), for tp_onnx_options.input_values. A model that decides its path on an input's
 * value at run time (an If on `sr == 16000`, a Reshape to a `shape` input) is then converted
 * for that value: the branch taken is the one planned and priced, not both. */
#ifndef TP_CLI_INPUT_VALUES_H
#define TP_CLI_INPUT_VALUES_H

#include "cli_opts.h"
#include "tensorplan/onnx.h"

/* A growing list; every name and array owned. items[k] is ready to pass to the importer
 * (values or float_values set, count elements). */
typedef struct tp_cli_input_values {
    tp_onnx_input_value *items;
    size_t n, cap;
} tp_cli_input_values;

/* Parse "NAME=V[,V...]" and append it: integers when every value is one (int64), else every
 * value as a double. TP_ERR_INVALID (malformed, with what was wrong and where), TP_ERR_NOMEM;
 * the list is unchanged on error. A name given twice keeps both (the importer takes the last).
 * tp_cli_model_load refuses values for the demo (an API-built graph has no ONNX inputs). */
tp_status tp_cli_input_values_add(tp_cli_input_values *v, const char *assignment, tp_error *err);
void tp_cli_input_values_free(tp_cli_input_values *v);

/* The row --input-value; a group row's dest is the tp_cli_input_values. */
extern const tp_cli_opt tp_cli_input_values_opts[];

#endif
