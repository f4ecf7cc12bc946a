/* The HTML page of a multi-device LLM placement (--devices SPEC --html FILE). */
#ifndef TP_CLI_LLM_DEVICES_HTML_H
#define TP_CLI_LLM_DEVICES_HTML_H

#include "tensorplan/llm_devices.h"

/* Write the page to path: the per-device bars (tp_device_bars_svg), the table and the
 * llama.cpp flags. Returns 0, or the exit code after printing the error. */
int tp_cli_llm_devices_html(const char *cmd, const char *path, const char *model,
                            const tp_llm_placement *p, const char *flags);

#endif
