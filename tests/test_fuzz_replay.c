/* Replays every file under fuzz/corpus/<target>/ through the fuzz targets'
 * bodies (compiled in here without libFuzzer), so that every input that once
 * crashed, and every seed, is checked by the normal test build and under
 * ASan/UBSan. A corpus directory without a registered target is a failure,
 * so that new corpora are not silently skipped. */
#include <dirent.h>
#include <sys/stat.h>

#include "harness.h"

#define TP_FUZZ_NO_MAIN
#include "../fuzz/fuzz_onnx.c"
#include "../fuzz/fuzz_gguf.c"
#include "../fuzz/fuzz_csv.c"
#include "../fuzz/fuzz_catalog.c"
#include "../fuzz/fuzz_calib_cache.c"
#include "../fuzz/fuzz_sysmem.c"
#include "../fuzz/fuzz_json_ints.c"
#include "../fuzz/fuzz_safetensors.c"
#include "../fuzz/fuzz_hf_config.c"
#include "../fuzz/fuzz_llm_devices.c"

typedef struct fuzz_target {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
} fuzz_target;

static const fuzz_target targets[] = {
    {"onnx", tp_fuzz_onnx},
    {"gguf", tp_fuzz_gguf},
    {"csv", tp_fuzz_csv},
    {"catalog", tp_fuzz_catalog},
    {"calib_cache", tp_fuzz_calib_cache},
    {"sysmem", tp_fuzz_sysmem},
    {"json_ints", tp_fuzz_json_ints},
    {"safetensors", tp_fuzz_safetensors},
    {"hf_config", tp_fuzz_hf_config},
    {"llm_devices", tp_fuzz_llm_devices},
};

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) {
        fclose(f);
        return NULL;
    }
    uint8_t *p = malloc((size_t)n ? (size_t)n : 1); /* exact size: ASan sees over-reads */
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

TP_TEST(replay_corpora) {
    const char *root = TP_SOURCE_DIR "/fuzz/corpus";
    DIR *d = opendir(root);
    TP_CHECK(d != NULL);
    if (!d) return;
    struct dirent *e;
    int dirs = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        const fuzz_target *t = NULL;
        for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
            if (strcmp(targets[i].name, e->d_name) == 0) t = &targets[i];
        if (!t) {
            TP_FAIL_("fuzz/corpus/%s has no fuzz target registered in test_fuzz_replay.c",
                     e->d_name);
            continue;
        }
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
        DIR *cd = opendir(dir);
        if (!cd) continue;
        struct dirent *f;
        int files = 0;
        while ((f = readdir(cd))) {
            char path[2048];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
            size_t n;
            uint8_t *data = read_file(path, &n);
            TP_CHECK(data != NULL);
            if (!data) continue;
            TP_CHECK_EQ_I64(t->fn(data, n), 0); /* crashes/aborts fail the program */
            free(data);
            files++;
        }
        closedir(cd);
        printf("  %s: %d corpus files replayed\n", e->d_name, files);
        TP_CHECK(files > 0);
        dirs++;
    }
    closedir(d);
    TP_CHECK(dirs > 0);
}

int main(void) {
    TP_RUN(replay_corpora);
    return tp_test_finish();
}
