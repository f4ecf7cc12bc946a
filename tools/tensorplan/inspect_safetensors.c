/* `tensorplan inspect` on a safetensors checkpoint: tensors, bytes per dtype, files. */
#include "inspect_safetensors.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tensorplan/safetensors.h"

bool tp_cli_is_safetensors(const char *path) {
    size_t n = strlen(path);
    static const char *const tails[] = {".safetensors", ".safetensors.index.json"};
    for (size_t i = 0; i < 2; i++) {
        size_t t = strlen(tails[i]);
        if (n >= t && strcmp(path + n - t, tails[i]) == 0) return true;
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return false;
    /* a folder counts when it holds a checkpoint (else the ONNX reader names it) */
    char p[4096];
    static const char *const names[] = {"model.safetensors.index.json", "model.safetensors"};
    for (size_t i = 0; i < 2; i++) {
        int w = snprintf(p, sizeof p, "%s/%s", path, names[i]);
        if (w > 0 && (size_t)w < sizeof p && stat(p, &sb) == 0) return true;
    }
    return false;
}

int tp_cli_inspect_safetensors(const char *path, bool json) {
    tp_error err;
    tp_error_clear(&err);
    tp_safetensors_info si;
    tp_status s = tp_safetensors_read(path, NULL, &si, &err);
    if (s != TP_OK) {
        tp_cli_error("inspect", &err);
        return tp_cli_exit_for(s);
    }
    if (json) {
        tp_json j;
        tp_json_init(&j, stdout, true);
        tp_json_begin_object(&j);
        tp_json_kv_str(&j, "schema", "tensorplan.inspect_safetensors/1");
        tp_json_kv_str(&j, "tensorplan_version", tp_version());
        tp_json_kv_str(&j, "model", path);
        tp_json_kv_u64(&j, "files", si.n_files);
        tp_json_kv_u64(&j, "file_bytes", si.file_bytes);
        tp_json_kv_u64(&j, "header_bytes", si.header_bytes);
        tp_json_kv_u64(&j, "tensors", si.n_tensors);
        tp_json_kv_u64(&j, "tensor_bytes", si.tensor_bytes);
        tp_json_key(&j, "dtype_bytes");
        tp_json_begin_object(&j);
        for (int k = 0; k < TP_DTYPE_COUNT; k++)
            if (si.dtype_bytes[k])
                tp_json_kv_u64(&j, tp_dtype_name((tp_dtype)k), si.dtype_bytes[k]);
        tp_json_end_object(&j);
        tp_json_end_object(&j);
        tp_json_finish(&j);
        return TP_EXIT_OK;
    }
    char b[32];
    printf("model: %s (safetensors, %u file%s, %s)\n", path, si.n_files, si.n_files == 1 ? "" : "s",
           tp_format_bytes(si.file_bytes, b, sizeof b));
    printf("tensors: %llu, %s of data", (unsigned long long)si.n_tensors,
           tp_format_bytes(si.tensor_bytes, b, sizeof b));
    printf(" (headers %s)\n", tp_format_bytes(si.header_bytes, b, sizeof b));
    printf("by dtype:\n");
    for (int k = 0; k < TP_DTYPE_COUNT; k++)
        if (si.dtype_bytes[k])
            printf("  %-8s %12s  (%llu bytes)\n", tp_dtype_name((tp_dtype)k),
                   tp_format_bytes(si.dtype_bytes[k], b, sizeof b),
                   (unsigned long long)si.dtype_bytes[k]);
    return TP_EXIT_OK;
}
