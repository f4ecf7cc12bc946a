/* Device choice: allow/deny/prefer policy and pick_best_device. */
#include "tensorplan/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Trimmed [s, e) equal to t (case-insensitive)? */
static bool token_eq(const char *s, size_t len, const char *t) {
    while (len > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    return len > 0 && strlen(t) == len && strncasecmp(s, t, len) == 0;
}

bool tp_device_matches(const tp_device_model *d, const char *entry) {
    if (!d || !entry) return false;
    size_t len = strlen(entry);
    return token_eq(entry, len, d->name) || token_eq(entry, len, tp_device_kind_name(d->kind));
}

static bool list_set(const char *list) {
    if (!list) return false;
    for (const char *p = list; *p; p++)
        if (*p != ' ' && *p != ',' && *p != '\t') return true;
    return false;
}

/* Position (0-based) of the first list entry matching d, or -1. */
static int list_match(const char *list, const tp_device_model *d) {
    if (!list) return -1;
    const char *p = list;
    int pos = 0;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (token_eq(p, len, d->name) || token_eq(p, len, tp_device_kind_name(d->kind))) return pos;
        pos++;
        if (!e) break;
        p = e + 1;
    }
    return -1;
}

tp_status tp_pick_best_device(const tp_device_model *models, const double *cost_ns, uint32_t n,
                              const tp_device_policy *policy, uint32_t *chosen, tp_error *err) {
    if (!models || !cost_ns || !chosen || n == 0)
        return tp_error_set(err, TP_ERR_INVALID, "pick device: no candidates");
    for (uint32_t i = 0; i < n; i++)
        if (!isfinite(cost_ns[i]) || cost_ns[i] < 0)
            return tp_error_set(err, TP_ERR_INVALID, "pick device: cost of '%s' is %g",
                                models[i].name, cost_ns[i]);
    tp_device_policy none = {NULL, NULL, NULL};
    const tp_device_policy *p = policy ? policy : &none;
    bool allow_set = list_set(p->allow), deny_set = list_set(p->deny);
    bool prefer_set = list_set(p->prefer);
    /* 1. allow / deny */
    uint32_t kept = 0, denied = 0, not_allowed = 0;
    bool any_confident = false;
    for (uint32_t i = 0; i < n; i++) {
        bool ok = true;
        if (allow_set && list_match(p->allow, &models[i]) < 0) {
            ok = false;
            not_allowed++;
        } else if (deny_set && list_match(p->deny, &models[i]) >= 0) {
            ok = false;
            denied++;
        }
        if (ok) {
            kept++;
            if (models[i].source != TP_SOURCE_DEFAULT) any_confident = true;
        }
    }
    if (kept == 0)
        return tp_error_set(err, TP_ERR_NOT_FOUND,
                            "no device left to choose from: %u of %u not in the allow list "
                            "'%s', %u in the deny list '%s'",
                            not_allowed, n, allow_set ? p->allow : "", denied,
                            deny_set ? p->deny : "");
    /* 2.-4. in one pass: eligibility, preference, cost, kind priority, index */
    bool any_preferred = false;
    for (uint32_t i = 0; i < n && prefer_set; i++) {
        bool ok = !(allow_set && list_match(p->allow, &models[i]) < 0) &&
                  !(deny_set && list_match(p->deny, &models[i]) >= 0) &&
                  !(any_confident && models[i].source == TP_SOURCE_DEFAULT);
        if (ok && list_match(p->prefer, &models[i]) >= 0) any_preferred = true;
    }
    int64_t best = -1;
    for (uint32_t i = 0; i < n; i++) {
        const tp_device_model *m = &models[i];
        if (allow_set && list_match(p->allow, m) < 0) continue;
        if (deny_set && list_match(p->deny, m) >= 0) continue;
        if (any_confident && m->source == TP_SOURCE_DEFAULT) continue;
        if (any_preferred && list_match(p->prefer, m) < 0) continue;
        if (best < 0) {
            best = i;
            continue;
        }
        const tp_device_model *b = &models[best];
        double cb = cost_ns[best], ci = cost_ns[i];
        if (ci < cb || (ci == cb && (unsigned)m->kind < (unsigned)b->kind)) best = i;
    }
    *chosen = (uint32_t)best;
    return TP_OK;
}
