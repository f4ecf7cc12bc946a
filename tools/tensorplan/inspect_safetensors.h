/* `tensorplan inspect` on a safetensors checkpoint (a .safetensors file, a sharded
 * checkpoint's index, or a folder holding either). */
#ifndef TP_CLI_INSPECT_SAFETENSORS_H
#define TP_CLI_INSPECT_SAFETENSORS_H

#include <stdbool.h>

/* True for "*.safetensors", "*.safetensors.index.json" and folders holding
 * model.safetensors or model.safetensors.index.json. */
bool tp_cli_is_safetensors(const char *path);
/* Prints the summary (text, or JSON schema tensorplan.inspect_safetensors/1); an exit code. */
int tp_cli_inspect_safetensors(const char *path, bool json);

#endif
