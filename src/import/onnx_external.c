/* Where a tensor's external data lives: its location joined to the model's directory, checked
 * to stay inside it (onnx_model.h, tp__onnx_external_path). Used by the load-time checks
 * (onnx_load.c) and by the attention-mask reader (onnx_mask.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import/onnx_decode.h"

/* Join base directory and a relative location into the arena. */
static char *join_path(tp_onnx_arena *a, const char *dir, const char *loc) {
    size_t ld = strlen(dir), ll = strlen(loc);
    char *p = tp__onnx_arena_alloc(a, (uint64_t)ld + ll + 2);
    if (!p) return NULL;
    memcpy(p, dir, ld);
    p[ld] = '/';
    memcpy(p + ld + 1, loc, ll + 1);
    return p;
}

static bool escapes_dir(const char *loc) {
    if (loc[0] == '/') return true;
    for (const char *p = loc; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') return true;
        p += n;
        if (*p) p++;
    }
    return false;
}

tp_status tp__onnx_external_path(const tp_onnx_model *m, const tp_onnx_tensor *t, const char **path,
                                 tp_error *err) {
    *path = NULL;
    if (escapes_dir(t->ext_location))
        return tp_error_setx(err, TP_ERR_PARSE, t->msg_offset, TP_NO_NODE,
                             "tensor '%s' (offset %" PRIu64
                             "): external data location '%s' leaves the model directory",
                             t->name, t->msg_offset, t->ext_location);
    char *p = join_path(m->arena, m->base_dir, t->ext_location);
    if (!p) return tp_error_set(err, TP_ERR_NOMEM, "out of memory checking external data");
    /* a symlink inside the folder may still point outside it: compare resolved paths
     * (onnxruntime refuses such data too), so no file elsewhere is even sized */
    char *real_dir = realpath(m->base_dir, NULL), *real = realpath(p, NULL);
    size_t nd = real_dir ? strlen(real_dir) : 0;
    bool inside = !real || (real_dir && strncmp(real, real_dir, nd) == 0 &&
                            (real[nd] == '/' || (nd == 1 && real_dir[0] == '/')));
    free(real_dir);
    free(real);
    if (!inside)
        return tp_error_setx(err, TP_ERR_PARSE, t->msg_offset, TP_NO_NODE,
                             "tensor '%s' (offset %" PRIu64
                             "): external data '%s' resolves outside the model directory",
                             t->name, t->msg_offset, t->ext_location);
    *path = p;
    return TP_OK;
}
