/* libFuzzer target for the LLM device-set parser and the placement that uses it
 * (tensorplan/llm_devices.h: the CLI's --devices "cuda0:24GiB,rpc:HOST:PORT:8GiB,cpu").
 *
 * Build: cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTP_FUZZ=ON
 *        cmake --build build-fuzz --target fuzz_llm_devices
 * Run:   build-fuzz/fuzz/fuzz_llm_devices fuzz/corpus/llm_devices -max_total_time=600
 *
 * The body is tp_fuzz_llm_devices(); tests/test_fuzz_replay.c replays
 * fuzz/corpus/llm_devices/ through it. Input: byte 0 picks the placement
 * options (-ngl, -nkvo, -ot exps=CPU, a tensor split), the rest is the device
 * spec. Invariants (abort() on violation): a refused spec returns an error
 * whose status matches and whose message is not empty; an accepted one has at
 * most TP_LLM_MAX_DEVICES entries, at most one cpu, NUL-terminated names and
 * sources; placing a 4-layer model on it either fails with a message or gives
 * rows whose KV bytes add up to the single-device KV cache, whose totals are the
 * sum of their parts, and whose verdict agrees with the capacity (a known
 * capacity fits iff total <= capacity, with free = capacity - total).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm_tiny_model.h"
#include "tensorplan/llm_devices.h"

int tp_fuzz_llm_devices(const uint8_t *data, size_t size);

static void fz_ld_check(bool ok) {
    if (!ok) abort();
}

static bool fz_ld_terminated(const char *s, size_t cap) {
    return memchr(s, '\0', cap) != NULL;
}

int tp_fuzz_llm_devices(const uint8_t *data, size_t size) {
    if (size == 0 || size > 4096) return 0;
    uint8_t mode = data[0];
    char *spec = malloc(size);
    if (!spec) abort();
    memcpy(spec, data + 1, size - 1);
    spec[size - 1] = '\0';
    static tp_llm_device_set ds;
    tp_error err;
    tp_error_clear(&err);
    tp_status s = tp_llm_device_set_parse(spec, &ds, &err);
    free(spec);
    if (s != TP_OK) {
        fz_ld_check(err.status == s && err.msg[0] != '\0');
        return 0;
    }
    fz_ld_check(ds.n >= 1 && ds.n <= TP_LLM_MAX_DEVICES);
    size_t cpus = 0;
    for (size_t i = 0; i < ds.n; i++) {
        const tp_llm_device *d = &ds.dev[i];
        fz_ld_check(fz_ld_terminated(d->name, sizeof d->name) &&
                    fz_ld_terminated(d->endpoint, sizeof d->endpoint) &&
                    fz_ld_terminated(d->size_source, sizeof d->size_source) &&
                    fz_ld_terminated(d->reserved_source, sizeof d->reserved_source));
        fz_ld_check((unsigned)d->kind < TP_LLM_DEV_KIND_COUNT && d->alignment > 0);
        if (d->kind == TP_LLM_DEV_CPU) cpus++;
    }
    fz_ld_check(cpus <= 1);

    tp_llm_config c;
    tp_registry *r = tp_llm_tiny_model(&c);
    if (!r) abort();
    tp_llm_options o;
    tp_llm_options_default(&o);
    o.n_ctx = 256;
    tp_llm_placement_options po;
    tp_llm_placement_options_default(&po);
    po.n_gpu_layers = (mode & 7) == 7 ? -1 : (int64_t)(mode & 7);
    po.no_kv_offload = (mode & 8) != 0;
    po.experts_on_cpu = (mode & 16) != 0;
    if (mode & 32) po.tensor_split[0] = 1;
    if (mode & 64) po.tensor_split[1] = 3;
    static tp_llm_placement p;
    tp_error_clear(&err);
    s = tp_llm_place(&c, r, &o, &ds, &po, &p, &err);
    tp_registry_destroy(r);
    if (s != TP_OK) {
        fz_ld_check(err.status == s && err.msg[0] != '\0');
        return 0;
    }
    fz_ld_check(p.n >= 1 && p.n <= TP_LLM_MAX_DEVICES + 1 && p.use[p.n - 1].host);
    uint64_t kv = 0;
    bool all = true;
    for (size_t i = 0; i < p.n; i++) {
        const tp_llm_device_use *u = &p.use[i];
        kv += u->kv_bytes;
        fz_ld_check(u->total_bytes ==
                    u->model_bytes + u->kv_bytes + u->compute_bytes + u->output_bytes);
        if (u->capacity_known) {
            fz_ld_check(u->fits == (u->total_bytes <= u->capacity_bytes));
            fz_ld_check(u->free_bytes == (u->fits ? u->capacity_bytes - u->total_bytes : 0));
        } else {
            fz_ld_check(u->fits && u->capacity_bytes == 0 && u->free_bytes == 0);
        }
        all = all && u->fits;
    }
    fz_ld_check(kv == p.single.kv_cache_bytes && p.fits == all);
    return 0;
}

#ifndef TP_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return tp_fuzz_llm_devices(data, size);
}
#endif
