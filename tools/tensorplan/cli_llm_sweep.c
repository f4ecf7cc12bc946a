/* estimate --sweep: llama.cpp's peak over contexts (rows) and KV cache types (columns). */
#include "cli_llm_sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tp_cli_llm_sweep_parse(const char *cmd, const char *val, tp_cli_llm_sweep *sw) {
    if (!val || strncmp(val, "ctx=", 4) != 0)
        return tp_cli_usage_error(cmd, "--sweep needs ctx=N,N,... (e.g. ctx=4k,8k,32k), got '%s'",
                                  val ? val : "");
    sw->n_ctx = 0;
    for (const char *p = val + 4; *p;) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        uint64_t mul = 1;
        if (end && (*end == 'k' || *end == 'K'))
            mul = 1024, end++;
        else if (end && (*end == 'm' || *end == 'M'))
            mul = 1024 * 1024, end++;
        if (end == p || errno || *p == '-' || v == 0 || v > (1ull << 30) || (*end && *end != ',') ||
            sw->n_ctx == TP_SWEEP_MAX)
            return tp_cli_usage_error(cmd,
                                      "--sweep: bad context list '%s' (at most %d positive "
                                      "values, k = 1024)",
                                      val, TP_SWEEP_MAX);
        sw->ctx[sw->n_ctx++] = (uint64_t)v * mul;
        p = *end ? end + 1 : end;
    }
    if (sw->n_ctx == 0) return tp_cli_usage_error(cmd, "--sweep: no context given");
    return 1;
}

int tp_cli_llm_sweep_parse_kv(const char *cmd, const char *val, tp_cli_llm_sweep *sw) {
    char buf[256];
    if (!val || strlen(val) >= sizeof buf)
        return tp_cli_usage_error(cmd, "--sweep-kv needs types (f16,q8_0,q4_0), got '%s'",
                                  val ? val : "");
    strcpy(buf, val);
    sw->n_kv = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        tp_error err;
        if (sw->n_kv == TP_SWEEP_MAX || tp_dtype_parse(t, &sw->kv[sw->n_kv], &err) != TP_OK)
            return tp_cli_usage_error(cmd, "--sweep-kv: bad type '%s'", t);
        sw->n_kv++;
    }
    return sw->n_kv ? 1 : tp_cli_usage_error(cmd, "--sweep-kv: no type given");
}

void tp_cli_llm_sweep_run(const tp_llm_config *c, const tp_llm_options *o, tp_cli_llm_sweep *sw) {
    if (sw->n_kv == 0) {
        const tp_dtype def[3] = {TP_DTYPE_F16, TP_DTYPE_Q8_0, TP_DTYPE_Q4_0};
        memcpy(sw->kv, def, sizeof def);
        sw->n_kv = 3;
    }
    for (int r = 0; r < sw->n_ctx; r++)
        for (int k = 0; k < sw->n_kv; k++) {
            tp_llm_options x = *o;
            tp_llm_estimate e;
            tp_error err;
            tp_error_clear(&err);
            x.n_ctx = sw->ctx[r];
            x.type_k = x.type_v = sw->kv[k];
            sw->err[r][k][0] = '\0';
            if (tp_llm_estimate_memory(c, &x, &e, &err) == TP_OK) {
                sw->peak[r][k] = e.peak_bytes;
                sw->kv_bytes[r][k] = e.kv_cache_bytes;
            } else {
                sw->peak[r][k] = sw->kv_bytes[r][k] = 0;
                size_t n = strlen(err.msg); /* truncated to the cell */
                if (n >= sizeof sw->err[r][k]) n = sizeof sw->err[r][k] - 1;
                memcpy(sw->err[r][k], err.msg, n);
                sw->err[r][k][n] = '\0';
            }
        }
}

void tp_cli_llm_sweep_print(const tp_cli_llm_sweep *sw, uint64_t budget) {
    char b[32];
    printf("\ncontext sweep: peak (model + KV + output + compute); * = exceeds the budget %s\n",
           tp_cli_fmt_bytes(budget, b, sizeof b));
    printf("  %10s", "ctx");
    for (int k = 0; k < sw->n_kv; k++)
        printf("  %13s", tp_dtype_name(sw->kv[k]));
    printf("\n");
    for (int r = 0; r < sw->n_ctx; r++) {
        printf("  %10llu", (unsigned long long)sw->ctx[r]);
        for (int k = 0; k < sw->n_kv; k++) {
            if (!sw->peak[r][k]) {
                printf("  %13s", "n/a");
                continue;
            }
            printf("  %12s%c", tp_cli_fmt_bytes(sw->peak[r][k], b, sizeof b),
                   sw->peak[r][k] > budget ? '*' : ' ');
        }
        printf("\n");
    }
    for (int r = 0; r < sw->n_ctx; r++)
        for (int k = 0; k < sw->n_kv; k++)
            if (sw->err[r][k][0])
                printf("  n/a at ctx %llu, %s: %s\n", (unsigned long long)sw->ctx[r],
                       tp_dtype_name(sw->kv[k]), sw->err[r][k]);
}

void tp_cli_llm_sweep_json(tp_json *j, const tp_cli_llm_sweep *sw, uint64_t budget) {
    tp_json_key(j, "sweep");
    tp_json_begin_array(j);
    for (int r = 0; r < sw->n_ctx; r++)
        for (int k = 0; k < sw->n_kv; k++) {
            tp_json_begin_object(j);
            tp_json_kv_u64(j, "ctx", sw->ctx[r]);
            tp_json_kv_str(j, "kv_type", tp_dtype_name(sw->kv[k]));
            if (sw->peak[r][k]) {
                tp_json_kv_u64(j, "kv_cache_bytes", sw->kv_bytes[r][k]);
                tp_json_kv_u64(j, "peak_bytes", sw->peak[r][k]);
                tp_json_kv_bool(j, "fits", sw->peak[r][k] <= budget);
            } else {
                tp_json_kv_str(j, "error", sw->err[r][k]);
            }
            tp_json_end_object(j);
        }
    tp_json_end_array(j);
}
