/* --weights-type LIST: the LLM sized per llama.cpp file type (cli_llm_wtypes.h). */
#include "cli_llm_wtypes.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* llama-quantize's short names for the _m mixes */
static const char *const aliases[] = {"q3_k", "q4_k", "q5_k"};

int tp_cli_llm_wtypes_parse(const char *cmd, const char *val, tp_cli_llm_wtypes *w) {
    w->n = 0;
    const char *p = val;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || len >= sizeof w->name[0])
            return tp_cli_usage_error(cmd, "--weights-type: bad type in '%s'", val);
        if (w->n == TP_WTYPES_MAX)
            return tp_cli_usage_error(cmd, "--weights-type: at most %d types", TP_WTYPES_MAX);
        memcpy(w->name[w->n], p, len);
        w->name[w->n][len] = '\0';
        w->n++;
        p += len + (e ? 1 : 0);
        if (e && !*p) return tp_cli_usage_error(cmd, "--weights-type: bad type in '%s'", val);
    }
    if (w->n == 0) return tp_cli_usage_error(cmd, "--weights-type needs a type");
    return 1;
}

const char *tp_cli_llm_wtypes_single(const tp_cli_llm_wtypes *w) {
    return w->n >= 1 ? w->name[0] : NULL;
}

int tp_cli_llm_wtypes_check(const char *cmd, const tp_cli_llm_wtypes *w) {
    for (int i = 0; i < w->n; i++) {
        bool known = false;
        for (int k = 0; tp_llm_weights_type_name(k) && !known; k++)
            known = strcasecmp(w->name[i], tp_llm_weights_type_name(k)) == 0;
        for (size_t k = 0; k < sizeof aliases / sizeof aliases[0] && !known; k++)
            known = strcasecmp(w->name[i], aliases[k]) == 0;
        if (known) continue;
        char list[512];
        size_t n = 0;
        list[0] = '\0';
        for (int k = 0; tp_llm_weights_type_name(k) && n < sizeof list; k++) {
            int c = snprintf(list + n, sizeof list - n, "%s%s", k ? " " : "",
                             tp_llm_weights_type_name(k));
            if (c < 0) break;
            n += (size_t)c;
        }
        return tp_cli_usage_error(cmd, "--weights-type: unknown type '%s' (known: %s)", w->name[i],
                                  list);
    }
    return 0;
}

void tp_cli_llm_wtypes_run(const char *path, const tp_llm_options *o, tp_cli_llm_wtypes *w) {
    for (int i = 0; i < w->n; i++) {
        tp_llm_config c;
        tp_llm_estimate e;
        tp_error err;
        tp_error_clear(&err);
        w->err[i][0] = '\0';
        w->peak[i] = w->weight_bytes[i] = w->model_bytes[i] = 0;
        if (tp_llm_read_as(path, w->name[i], NULL, &c, &err) == TP_OK &&
            tp_llm_estimate_memory(&c, o, &e, &err) == TP_OK) {
            w->weight_bytes[i] = c.weight_bytes;
            w->model_bytes[i] = e.model_bytes;
            w->peak[i] = e.peak_bytes;
        } else {
            snprintf(w->err[i], sizeof w->err[i], "%s", err.msg);
        }
    }
}

void tp_cli_llm_wtypes_print(const tp_cli_llm_wtypes *w, uint64_t budget) {
    char b[3][32];
    printf("\nweights types (as llama-quantize writes them): * = exceeds the budget %s\n",
           tp_cli_fmt_bytes(budget, b[0], sizeof b[0]));
    printf("  %-10s  %12s  %12s  %13s  %s\n", "type", "tensors", "model", "peak", "fits");
    for (int i = 0; i < w->n; i++) {
        if (!w->peak[i]) {
            printf("  %-10s  n/a: %s\n", w->name[i], w->err[i]);
            continue;
        }
        printf("  %-10s  %12s  %12s  %12s%c  %s\n", w->name[i],
               tp_cli_fmt_bytes(w->weight_bytes[i], b[0], sizeof b[0]),
               tp_cli_fmt_bytes(w->model_bytes[i], b[1], sizeof b[1]),
               tp_cli_fmt_bytes(w->peak[i], b[2], sizeof b[2]), w->peak[i] > budget ? '*' : ' ',
               w->peak[i] <= budget ? "yes" : "no");
    }
}

void tp_cli_llm_wtypes_json(tp_json *j, const tp_cli_llm_wtypes *w, uint64_t budget) {
    tp_json_key(j, "weights_types");
    tp_json_begin_array(j);
    for (int i = 0; i < w->n; i++) {
        tp_json_begin_object(j);
        tp_json_kv_str(j, "type", w->name[i]);
        if (w->peak[i]) {
            tp_json_kv_u64(j, "weight_bytes", w->weight_bytes[i]);
            tp_json_kv_u64(j, "model_bytes", w->model_bytes[i]);
            tp_json_kv_u64(j, "peak_bytes", w->peak[i]);
            tp_json_kv_bool(j, "fits", w->peak[i] <= budget);
        } else {
            tp_json_kv_str(j, "error", w->err[i]);
        }
        tp_json_end_object(j);
    }
    tp_json_end_array(j);
}
