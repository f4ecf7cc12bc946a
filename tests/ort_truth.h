/* Shared by the ONNX ground-truth tests: read the one-value-per-line shape files
 * written by scripts/ort_shapes.js and scripts/ort_profile_shapes.py, and compare
 * every value with the IR node of the same name. */
#ifndef TP_TESTS_ORT_TRUTH_H
#define TP_TESTS_ORT_TRUTH_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tensorplan.h"

/* Read a JSON string at *p (pointing at the opening quote) into out. */
static inline const char *json_str(const char *p, char *out, size_t cap) {
    size_t n = 0;
    if (*p != '"') return NULL;
    for (p++; *p && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p[1]) {
            p++;
            ch = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        }
        if (n + 1 < cap) out[n++] = ch;
    }
    out[n] = 0;
    return *p == '"' ? p + 1 : NULL;
}

static inline const char *ort_dtype(tp_dtype t) {
    switch (t) {
    case TP_DTYPE_F32:
        return "float32";
    case TP_DTYPE_F64:
        return "float64";
    case TP_DTYPE_F16:
        return "float16";
    case TP_DTYPE_I64:
        return "int64";
    case TP_DTYPE_I32:
        return "int32";
    case TP_DTYPE_I8:
        return "int8";
    case TP_DTYPE_U8:
        return "uint8";
    case TP_DTYPE_BOOL:
        return "bool";
    default:
        return tp_dtype_name(t);
    }
}

typedef struct stats {
    int values, matched, shape_bad, dtype_bad, missing, vi_checked;
} stats;

/* Bind the sizes of one shapes file and compare every value; adds to *s. */
static inline void compare_json(tp_graph *g, const char *name, const char *jpath, stats *s) {
    char *json = (char *)tp_test_read_file(jpath, NULL);
    tp_error err;
    if (!json) {
        TP_FAIL_("%s: missing fixture %s (%s): run scripts/fixtures.sh (or fixtures-onnx.sh)", name,
                 jpath, strerror(errno));
        return;
    }
    tp_graph_unbind_all(g);
    /* bindings: "bind": {"batch":2,"seq":8} */
    const char *b = strstr(json, "\"bind\"");
    b = b ? strchr(b, '{') : NULL;
    while (b && *b && *b != '}') {
        const char *q = strchr(b, '"');
        const char *close = strchr(b, '}');
        if (!q || (close && close < q)) break;
        char key[128];
        q = json_str(q, key, sizeof key);
        if (!q) break;
        q = strchr(q, ':');
        if (!q) break;
        long long v = strtoll(q + 1, (char **)&b, 10);
        if (tp_graph_bind(g, key, v, &err) != TP_OK)
            TP_FAIL_("%s: bind %s=%lld: %s", name, key, v, err.msg);
    }
    const char *p = strstr(json, "\"values\"");
    int printed = 0;
    while (p && (p = strstr(p, "{\"name\":")) != NULL) {
        char vname[512], dt[32];
        const char *q = json_str(p + 8, vname, sizeof vname);
        const char *d = q ? strstr(q, "\"dtype\":") : NULL;
        q = d ? json_str(d + 8, dt, sizeof dt) : NULL;
        const char *sh = q ? strstr(q, "\"shape\":[") : NULL;
        if (!sh) break;
        sh += 9;
        int64_t want[TP_MAX_RANK + 1];
        int rank = 0;
        while (*sh && *sh != ']') {
            char *e;
            long long v = strtoll(sh, &e, 10);
            if (e == sh) break;
            if (rank <= TP_MAX_RANK) want[rank] = v;
            rank++;
            sh = e;
            if (*sh == ',') sh++;
        }
        p = sh;
        s->values++;
        tp_node_id id;
        if (tp_graph_find(g, vname, &id, &err) != TP_OK) {
            s->missing++;
            if (printed++ < 8) TP_FAIL_("%s: value '%s' has no IR node", name, vname);
            continue;
        }
        const tp_node *n = tp_graph_node(g, id);
        bool ok = n->shape.rank == rank;
        for (int k = 0; ok && k < rank; k++) {
            int64_t got;
            if (tp_graph_dim_value(g, n->shape.dims[k], &got, &err) != TP_OK || got != want[k])
                ok = false;
        }
        if (!ok) {
            s->shape_bad++;
            if (printed++ < 8) {
                char buf[256], wb[160];
                size_t w = 0;
                wb[0] = 0;
                for (int k = 0; k < rank && k <= TP_MAX_RANK && w < sizeof wb - 24; k++)
                    w += (size_t)snprintf(wb + w, sizeof wb - w, "%s%lld", k ? "," : "",
                                          (long long)want[k]);
                TP_FAIL_("%s: '%s' (%s): shape %s, onnxruntime [%s]", name, vname,
                         tp_op_name(&n->op), tp_graph_shape_str(g, &n->shape, buf, sizeof buf), wb);
            }
            continue;
        }
        if (strcmp(ort_dtype(n->dtype), dt) != 0) {
            s->dtype_bad++;
            if (printed++ < 8)
                TP_FAIL_("%s: '%s': dtype %s, onnxruntime %s", name, vname, ort_dtype(n->dtype),
                         dt);
            continue;
        }
        s->matched++;
    }
    free(json);
}

/* An integer field "key": N of a fixture file (0 when absent). */
static inline uint64_t json_u64(const char *json, const char *key) {
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

#endif
