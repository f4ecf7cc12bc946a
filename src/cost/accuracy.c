/* Expected error of a latency prediction: the band the accuracy benchmark measured
 * (bench/accuracy/run.sh, held-out models, docs/cost.md "Accuracy"). Only what a benchmark
 * backs is reported as validated; everything else says so. */
#include "tensorplan/cost.h"

#include <string.h>

/* bench/accuracy/run.sh, held-out set of bench/accuracy/models.txt, onnxruntime-node: the band
 * is the largest held-out MAPE of the runs below (two hosts), the range the union. Session 10's
 * model, three quiet runs on an AMD Zen 5 VM (17:46-17:57 UTC,
 * bench/accuracy/measured-s10-run{4,5,6}- t*.jsonl): 1 thread 16.6 / 18.1 / 11.2 %, 2 threads 13.5
 * / 13.0 / 14.9 %. Session 12's model (this build's), three runs on an Intel Cascade Lake VM (Xeon
 * @ 2.50 GHz, 23:05-23:50 UTC, every other job paused; bench/accuracy/measured-s12-run1-t*.jsonl
 * and docs/cost.md "Session 12"): 1 thread 24.2 / 23.6 / 31.8 %, 2 threads 22.5 / 24.0 / 23.3 %.
 * That host's core speed moved by up to 40 % between a calibration and a measurement minutes apart.
 * Session 14's model (this build's) on the same Intel host, the 19 held-out models and 17 fresh
 * ones (first measured for latency then; bench/accuracy/measured-s14-run{1,2}-t*.jsonl,
 * docs/cost.md "Session 14"): run 1, 1 thread 24.0 / 25.5 %, 2 threads 17.9 / 22.6 % (gru_enhancer
 * +151 %); run 2, 1 thread, measured in a slow spell of the host against a full-speed
 * calibration, 28.8 / 35.4 % (gru_enhancer +114 %). Session 16's model (this build's: session
 * 15's overheads from the interpreter step, silero_vad's If priced on the branch its sr input
 * takes), a full run on the same host, both calibrations at full speed and 36 of the 45 models
 * measured at 0.54-0.60 of it at 1 thread (bench/accuracy/measured-s16-run1-t*.jsonl, docs/cost.md
 * "Session 16"): 1 thread 35.8 / 36.4 % (silero_vad -77.9 %), 2 threads 24.8 / 22.4 %.
 * Session 24's model (this build's), two runs on an Intel Xeon VM with AMX, 12 held-out models,
 * most measured at 0.6-0.8 of the calibration's host speed (docs/cost.md "Session 24",
 * bench/accuracy/measured-s24-run{1,2}-t*.jsonl): 1 thread 25.1 / 24.6 %,
 * 2 threads 22.5 / 26.5 % (the 2-thread band). Session 25's model (this build's), one run on the
 * same host, 17 held-out models (five never benchmarked before), at 1 thread most measured at
 * 0.6 of the calibration's host speed (docs/cost.md "Session 25: the accuracy benchmark",
 * bench/accuracy/measured-s25-run1-t*.jsonl): 1 thread 28.5 %, 2 threads 13.2 %. Session 26's
 * model (this build's: the Transpose walk, Einsum contractions, BiasGelu), one run on the same
 * host, 16 held-out models (maxvit_t moved to the fitting set), calibrated and measured at 0.9-1.0
 * of the host's speed at the time (docs/cost.md "Session 26: the accuracy benchmark",
 * bench/accuracy/measured-s26-run1-t*.jsonl): 1 thread 18.3 %, 2 threads 21.2 % (priced before
 * BiasGelu was limited to where MatMulAddFusion does not apply: under 0.2 points on both).
 * Session 27's model (this build's: passes in a cache at the read curve's rate, PRelu, a direct
 * convolution's packing, recurrent steps), two runs on the same host, 21 held-out models (four
 * never benchmarked before), the host flipping between its speeds throughout (docs/cost.md
 * "Session 27: the accuracy benchmark", bench/accuracy/measured-s27-run{1,2}-t*.jsonl, priced by
 * this build with each run's calibration): 1 thread 19.1 / 15.3 %, 2 threads 18.9 / 20.5 %.
 * Session 28's model (unchanged from session 27's), one run on a CPU it had never seen, an AMD
 * EPYC VM with AVX2 and no AVX-512, 29 held-out models (docs/cost.md "Session 28: a CPU never
 * seen", bench/accuracy/measured-s28-amd-t*.jsonl): 1 thread 15.0 %, 2 threads 11.9 % (at 2
 * threads 58 of 60 models measured at another speed, median 0.80 of the calibration's).
 * Update together with docs/cost.md's tables. 1 thread: median CPU time per run. */
#define BENCH_T1_MODELS 36u
#define BENCH_T1_MAPE 36.4
#define BENCH_T1_UNDER (-77.9)
#define BENCH_T1_OVER 114.0
/* 2 threads: the busiest thread's CPU time per run. */
#define BENCH_T2_MODELS 36u
#define BENCH_T2_MAPE 26.5
#define BENCH_T2_UNDER (-64.1)
#define BENCH_T2_OVER 151.2
#define BENCH_HOSTS                                                                                \
    "bench/accuracy on an AMD Zen 5 VM, an AMD EPYC VM with AVX2, an Intel Cascade Lake VM and "   \
    "an Intel Xeon VM with AMX, 2026-11-26/29"

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
                         "held-out models, worst of 15 runs (" BENCH_HOSTS ")";
        return;
    }
    out->models = BENCH_T1_MODELS;
    out->mape_pct = BENCH_T1_MAPE;
    out->under_pct = BENCH_T1_UNDER;
    out->over_pct = BENCH_T1_OVER;
    out->reference = "onnxruntime CPU, 1 thread, CPU time per run, held-out models, worst of 16 "
                     "runs (" BENCH_HOSTS ")";
}
