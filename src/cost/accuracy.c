/* Expected error of a latency prediction: the band the accuracy benchmark measured
 * (bench/accuracy/run.sh, held-out models, docs/cost.md "Accuracy"). Only what a benchmark
 * backs is reported as validated; everything else says so. */
#include "tensorplan/cost.h"

#include <string.h>

/* bench/accuracy/run.sh 1 on 2026-11-26 (AMD EPYC family 26, AVX-512): the lead's quiet rerun
 * (02:30-02:40 UTC, load average ~1.6, calibrated and measured in the same window) priced by the
 * model of branch s6-lat (no fork/join at 1 thread, grouped and dilated convolutions):
 * onnxruntime-node at 1 thread, median CPU time per run, the held-out set of
 * bench/accuracy/models.txt. Update together with docs/cost.md's tables. */
#define BENCH_T1_MODELS 19u
#define BENCH_T1_MAPE 14.2
#define BENCH_T1_UNDER (-35.1)
#define BENCH_T1_OVER 23.4
/* bench/accuracy/run.sh 2: the same quiet onnxruntime measurements (the busiest thread's CPU
 * time per run, no spinning, a lower bound of the idle-machine latency) against a 2-thread
 * calibration taken at load ~4 (04:22 UTC; GEMM up to 281 GFLOP/s where the quiet one measured
 * 324): the band is wider than a quiet calibration would give. */
#define BENCH_T2_MODELS 19u
#define BENCH_T2_MAPE 22.0
#define BENCH_T2_UNDER (-53.9)
#define BENCH_T2_OVER 63.4

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
                         "held-out models (bench/accuracy on an AMD EPYC, AVX-512, 2026-11-26)";
        return;
    }
    out->models = BENCH_T1_MODELS;
    out->mape_pct = BENCH_T1_MAPE;
    out->under_pct = BENCH_T1_UNDER;
    out->over_pct = BENCH_T1_OVER;
    out->reference = "onnxruntime CPU, 1 thread, CPU time per run, held-out models "
                     "(bench/accuracy on an AMD EPYC, AVX-512, 2026-11-26)";
}
