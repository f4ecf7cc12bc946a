/* Latency prediction over a device list and the device choice. */
#include "cli_predict.h"
#include "cli_env.h"

#include <stdlib.h>
#include <string.h>

uint32_t tp_cli_device_names(const char *list, tp_cli_devices *devs,
                             char names[][TP_DEVICE_NAME_CAP], uint32_t cap) {
    uint32_t n = 0;
    const char *p = list;
    while (p && *p && n < cap) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len > 0 && *p == ' ') {
            p++;
            len--;
        }
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            tp_catalog *c = NULL;
            snprintf(names[n++], TP_DEVICE_NAME_CAP, "cpu");
            if (n < cap) snprintf(names[n++], TP_DEVICE_NAME_CAP, "cuda");
            if (tp_cli_devices_catalog(devs, &c, NULL) == TP_OK)
                for (uint32_t i = 0; i < tp_catalog_count(c) && n < cap; i++)
                    snprintf(names[n++], TP_DEVICE_NAME_CAP, "%s", tp_catalog_get(c, i)->name);
        } else if (len > 0 && len < TP_DEVICE_NAME_CAP) {
            memcpy(names[n], p, len);
            names[n][len] = '\0';
            n++;
        }
        if (!e) break;
        p = e + 1;
    }
    return n;
}

void tp_cli_prediction_free(tp_cli_prediction *p) {
    for (uint32_t i = 0; p->c && i < p->n; i++)
        tp_graph_cost_destroy(&p->c[i].gc);
    free(p->c);
    p->c = NULL;
    p->n = 0;
}

tp_status tp_cli_predict(const tp_graph *g, tp_cli_devices *devs, const char *list,
                         const tp_io_options *io, tp_device_policy *policy, tp_cli_prediction *out,
                         tp_error *err) {
    char names[TP_CLI_MAX_DEVICES][TP_DEVICE_NAME_CAP];
    memset(out, 0, sizeof *out);
    out->chosen = -1;
    snprintf(out->why, sizeof out->why, "no device available");
    uint32_t n = tp_cli_device_names(list, devs, names, TP_CLI_MAX_DEVICES);
    if (n == 0)
        return tp_error_set(err, TP_ERR_INVALID, "the device list '%s' names no device",
                            list ? list : "");
    tp_device_model models[TP_CLI_MAX_DEVICES];
    double costs[TP_CLI_MAX_DEVICES];
    uint32_t idx[TP_CLI_MAX_DEVICES];
    out->c = calloc(n, sizeof *out->c);
    if (!out->c) return tp_error_set(err, TP_ERR_NOMEM, "out of memory predicting %u devices", n);
    out->n = n;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        tp_cli_candidate *c = &out->c[i];
        snprintf(c->name, sizeof c->name, "%s", names[i]);
        tp_error e2;
        tp_error_clear(&e2);
        tp_status s = tp_cli_device_resolve(devs, names[i], &c->m, &e2);
        if (s == TP_OK) s = tp_graph_cost_compute(g, &c->m, io, NULL, &c->gc, &e2);
        if (s != TP_OK && s != TP_ERR_NOT_FOUND && s != TP_ERR_UNSUPPORTED) {
            if (err) *err = e2; /* a model error: the same for every device */
            tp_cli_prediction_free(out);
            return s;
        }
        c->ok = s == TP_OK;
        if (!c->ok) {
            snprintf(c->why, sizeof c->why, "%s", e2.msg);
            continue;
        }
        models[m] = c->m;
        costs[m] = c->gc.total_ns;
        idx[m++] = i;
    }
    tp_env_apply_device_policy(tp_cli_env(), policy);
    if (m > 0) {
        uint32_t pick = 0;
        tp_error e3;
        tp_error_clear(&e3);
        if (tp_pick_best_device(models, costs, m, policy, &pick, &e3) == TP_OK)
            out->chosen = (int)idx[pick];
        else
            snprintf(out->why, sizeof out->why, "%s", e3.msg);
    }
    return TP_OK;
}
