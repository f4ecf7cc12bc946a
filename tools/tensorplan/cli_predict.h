/* Latency prediction over a list of devices and the device choice, shared by
 * `tensorplan cost` and `tensorplan report`. */
#ifndef TP_CLI_PREDICT_H
#define TP_CLI_PREDICT_H

#include "cli.h"
#include "cli_device.h"

#define TP_CLI_MAX_DEVICES 64

typedef struct tp_cli_candidate {
    char name[TP_DEVICE_NAME_CAP]; /* as requested */
    bool ok;                       /* resolved and predicted */
    tp_device_model m;
    tp_graph_cost gc;           /* with the per-node breakdown */
    char why[TP_ERROR_MSG_CAP]; /* why not ok */
} tp_cli_candidate;

typedef struct tp_cli_prediction {
    tp_cli_candidate *c; /* n entries, malloc'ed */
    uint32_t n;
    int chosen;                 /* index into c, or -1 */
    char why[TP_ERROR_MSG_CAP]; /* why nothing was chosen */
} tp_cli_prediction;

/* Split a comma-separated device list ("cpu,cuda,h100-sxm", "all" expands to
 * cpu, cuda and every catalog device) into names; returns the count. */
uint32_t tp_cli_device_names(const char *list, tp_cli_devices *devs,
                             char names[][TP_DEVICE_NAME_CAP], uint32_t cap);

/* Resolve every device of `list`, predict g on each (io may be NULL: defaults), and pick the best
 * under `policy` (environment lists applied). Devices that are unavailable (no driver, unknown
 * name) are kept with ok = false and the reason. Errors that concern the model itself (unbound
 * dims, bad attributes) are returned. TP_ERR_INVALID for an empty list; TP_ERR_NOMEM. */
tp_status tp_cli_predict(const tp_graph *g, tp_cli_devices *devs, const char *list,
                         const tp_io_options *io, tp_device_policy *policy, tp_cli_prediction *out,
                         tp_error *err);
void tp_cli_prediction_free(tp_cli_prediction *p);

#endif
