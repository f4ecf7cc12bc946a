/* Expected error of a latency prediction: the band the accuracy benchmark measured
 * (bench/accuracy/run.sh, held-out models, docs/cost.md "Accuracy"). Only what a benchmark
 * backs is reported as validated; everything else says so. */
#include "tensorplan/cost.h"

#include <string.h>

/* bench/accuracy/run.sh on 2026-11-26 (AMD EPYC family 26, AVX-512), the final model of session
 * 10 (a measured CPU charges its runtime's per-run cost without the calibration's round trip on
 * top; the calibration shares a GEMM between threads as MLAS does and times it with B packed
 * once beforehand), three quiet runs by the lead (17:46-17:57 UTC, every other job stopped,
 * calibrated and measured in the same window; bench/accuracy/measured-s10-run{4,5,6}-t*.jsonl):
 * the band is the largest held-out MAPE of the three runs, the range the union. onnxruntime-node,
 * held-out set of bench/accuracy/models.txt. 1 thread: median CPU time per run (16.6 / 18.1 /
 * 11.2 %). The host drifts by up to 20 % between a calibration and a measurement (docs/cost.md,
 * "Session 10"). Update together with docs/cost.md's tables. */
#define BENCH_T1_MODELS 19u
#define BENCH_T1_MAPE 18.1
#define BENCH_T1_UNDER (-55.7)
#define BENCH_T1_OVER 53.9
/* 2 threads: the busiest thread's CPU time per run (13.5 / 13.0 / 14.9 %; the session-9 model's
 * runs 2-4: 17.4 / 17.1 / 15.2 %). */
#define BENCH_T2_MODELS 19u
#define BENCH_T2_MAPE 14.9
#define BENCH_T2_UNDER (-47.3)
#define BENCH_T2_OVER 45.5

void tp_cost_accuracy_of(const tp_device_model *d, tp_cost_accuracy *out) {
    memset(out, 0, sizeof *out);
    out->basis = d ? tp_model_source_name(d->source) : "default";
    if (!d || d->kind != TP_DEVICE_CPU || d->source != TP_SOURCE_MEASURED) {
        out->reference = d && d->source == TP_SOURCE_CATALOG
                             ? "not validated: spec-sheet figures, no benchmark on this device"
                             : "not validated: built-in guesses";
        return;
    }
    if (d->threads > 2) {
        out->reference = "not validated: more than 2 threads were not benchmarked (the "
                         "benchmark machine has 2 shared cores)";
        return;
    }
    out->validated = true;
    if (d->threads == 2) {
        out->models = BENCH_T2_MODELS;
        out->mape_pct = BENCH_T2_MAPE;
        out->under_pct = BENCH_T2_UNDER;
        out->over_pct = BENCH_T2_OVER;
        out->reference = "onnxruntime CPU, 2 threads, busiest thread's CPU time per run, "
                         "held-out models (bench/accuracy on an AMD Zen 5 VM, AVX-512, 2026-11-26)";
        return;
    }
    out->models = BENCH_T1_MODELS;
    out->mape_pct = BENCH_T1_MAPE;
    out->under_pct = BENCH_T1_UNDER;
    out->over_pct = BENCH_T1_OVER;
    out->reference = "onnxruntime CPU, 1 thread, CPU time per run, held-out models "
                     "(bench/accuracy on an AMD Zen 5 VM, AVX-512, 2026-11-26)";
}
