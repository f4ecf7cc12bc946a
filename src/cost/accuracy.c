/* Expected error of a latency prediction: the band the accuracy benchmark measured
 * (bench/accuracy/run.sh, held-out models, docs/cost.md "Accuracy"). Only what a benchmark
 * backs is reported as validated; everything else says so. */
#include "tensorplan/cost.h"

#include <string.h>

/* bench/accuracy/run.sh on 2026-11-26 (AMD EPYC family 26, AVX-512), the model of session 10 (a
 * measured CPU charges its runtime's per-run cost without the calibration's round trip on top;
 * at several threads the calibration shares a GEMM between threads as MLAS does), three quiet
 * runs by the lead (16:51-17:30 UTC, every other job stopped, calibrated and measured in the same
 * window; bench/accuracy/measured-s10-run{1,2,3}-t*.jsonl): the band is the largest held-out MAPE
 * of the three runs, the range the union. onnxruntime-node, held-out set of
 * bench/accuracy/models.txt. 1 thread: median CPU time per run (16.1 / 14.0 / 10.6 %; the
 * session-9 model on the same calibrations 21.2 / 13.4 / 15.3 %). The host drifts by up to 20 %
 * between a calibration and a measurement (docs/cost.md, "Session 10"). Update together with
 * docs/cost.md's tables. */
#define BENCH_T1_MODELS 19u
#define BENCH_T1_MAPE 16.1
#define BENCH_T1_UNDER (-57.8)
#define BENCH_T1_OVER 29.3
/* 2 threads: the busiest thread's CPU time per run (12.3 / 18.6 / 18.7 %; the session-9 model on
 * the same calibrations 13.0 / 18.2 / 20.6 %, and on calibrations of the session-9 GEMM split,
 * back to back with the new one, 15.7 / 16.7 % against 13.5 / 14.8 %). */
#define BENCH_T2_MODELS 19u
#define BENCH_T2_MAPE 18.7
#define BENCH_T2_UNDER (-48.4)
#define BENCH_T2_OVER 26.3

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
