/* The LLM throughput of `estimate` (--speed DEVICES [--threads N] [--prompt N] [--gen N]
 * [--depth N]):
 * llama-bench's pp / tg tokens per second predicted per device (tensorplan/llm_speed.h). */
#ifndef TP_CLI_LLM_SPEED_H
#define TP_CLI_LLM_SPEED_H

#include "cli.h"
#include "tensorplan/llm_speed.h"

#define TP_SPEED_MAX_DEVICES 16

typedef struct tp_cli_llm_speed {
    /* options */
    const char *devices; /* --speed LIST: "cpu,h100-sxm,rpi5"; NULL = off */
    uint32_t threads;    /* --threads N: CPU calibration threads (0: default) */
    uint64_t n_prompt;   /* --prompt N (default 512) */
    uint64_t n_gen;      /* --gen N (default 128) */
    uint64_t n_depth;    /* --depth N: tokens already in the KV cache (llama-bench -d; 0) */
    bool quick;          /* --quick: quick calibration when none is cached */
    /* results */
    int n;
    char name[TP_SPEED_MAX_DEVICES][TP_DEVICE_NAME_CAP];
    tp_device_model dev[TP_SPEED_MAX_DEVICES];
    tp_llm_speed speed[TP_SPEED_MAX_DEVICES];
    char err[TP_SPEED_MAX_DEVICES][160]; /* why a device has no figure ("" = ok) */
} tp_cli_llm_speed;

/* Predict on every listed device for the .gguf at path with o's KV types.
 * 0, or an exit code after printing the error (unreadable model). */
int tp_cli_llm_speed_run(const char *cmd, const char *path, const tp_llm_options *o,
                         tp_cli_llm_speed *s);
void tp_cli_llm_speed_print(const tp_cli_llm_speed *s);
void tp_cli_llm_speed_json(tp_json *j, const tp_cli_llm_speed *s);

#endif
