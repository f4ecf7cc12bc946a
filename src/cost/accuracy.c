/* Expected error of a latency prediction: the band the accuracy benchmark measured
 * (bench/accuracy/run.sh, held-out models, docs/cost.md "Accuracy"). Only what a benchmark
 * backs is reported as validated; everything else says so. */
#include "tensorplan/cost.h"

#include <string.h>

/* bench/accuracy/run.sh on 2026-11-26 (AMD EPYC family 26, AVX-512), the model of session 8
 * (the depthwise rate measured aligned and unrolled on one thread at any thread count, edge
 * pixels apart), three quiet runs by the lead (11:53-12:12 UTC, every other job stopped,
 * calibrated and measured in the same window; bench/accuracy/measured-s8-run{3,4,5}-t*.jsonl):
 * the band is the largest held-out MAPE of the three runs, the range the union. Two earlier runs
 * of a model that differs by less than a point on the same calibration (runs 1, 2) gave 14.6 /
 * 12.7 % and 12.3 / 11.6 %: the host was slower in the later window, for the previous model
 * too. onnxruntime-node, held-out set of bench/accuracy/models.txt; 1 thread: median CPU time
 * per run (16.6 / 16.0 / 21.1 %). Update together with docs/cost.md's tables. */
#define BENCH_T1_MODELS 19u
#define BENCH_T1_MAPE 21.1
#define BENCH_T1_UNDER (-35.7)
#define BENCH_T1_OVER 155.2
/* bench/accuracy/run.sh 2, the model of session 9 (a GEMM node handed to the pool but run inline
 * pays the calibrated wake-up of a sleeping pool thread), three quiet runs by the lead (14:07-14:29
 * UTC, every other job stopped, calibrated and measured in the same window;
 * bench/accuracy/measured-s9-run{2,3,4}-t2.jsonl): the busiest thread's CPU time per run (17.4 /
 * 17.1 / 15.2 %; the session-8 model on the same calibrations 21.3 / 21.5 / 20.1 %). */
#define BENCH_T2_MODELS 19u
#define BENCH_T2_MAPE 17.4
#define BENCH_T2_UNDER (-50.2)
#define BENCH_T2_OVER 28.1

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
