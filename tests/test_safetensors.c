/* safetensors headers (tensorplan/safetensors.h) and the JSON reader under them
 * (src/core/json_dom.c): files written here byte by byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json_dom.h"
#include "harness.h"
#include "tensorplan/safetensors.h"

static char dir[64];

/* Write a safetensors file: the header text, padded, then data_bytes zero bytes. */
static void write_st(const char *name, const char *header, size_t data_bytes) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    unsigned long long n = strlen(header);
    for (int i = 0; i < 8; i++)
        fputc((int)((n >> (8 * i)) & 0xFF), f);
    fputs(header, f);
    for (size_t i = 0; i < data_bytes; i++)
        fputc(0, f);
    fclose(f);
}

static void write_text(const char *name, const char *text) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static tp_status read_st(const char *name, tp_registry *reg, tp_safetensors_info *si,
                         tp_error *err) {
    char path[128];
    snprintf(path, sizeof path, "%s%s%s", dir, name[0] ? "/" : "", name);
    return tp_safetensors_read(path, reg, si, err);
}

TP_TEST(json_reader) {
    tp_jdoc *d = NULL;
    tp_error err;
    const char *ok = " {\"a\": [1, -2, 3.5e1, true, null, \"x\\u00e9\\ud83d\\ude00\"], \"b\": {}} ";
    TP_CHECK_OK(tp__json_parse(ok, strlen(ok), NULL, 8, &d, &err), &err);
    const tp_jv *a = tp__json_get(tp__json_root(d), "a");
    TP_CHECK(a && a->type == TP_J_ARR && a->n == 6);
    if (a && a->n == 6) {
        TP_CHECK(a->items[1].is_int && a->items[1].i == -2);
        TP_CHECK(!a->items[2].is_int && a->items[2].num == 35.0);
        TP_CHECK_STR(a->items[5].str, "x\xc3\xa9\xf0\x9f\x98\x80");
    }
    tp__json_free(d);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"[1,]", "offset 3: expected a value"},
        {"{\"a\":1,\"a\":2}", "member name 'a' is repeated"},
        {"01", "leading zero"},
        {"\"\\ud800\"", "lone surrogate"},
        {"[[[[[[[[[1]]]]]]]]]", "nested deeper than the limit"},
        {"{} x", "offset 3: text after the value"},
        {"\"a\tb\"", "control character"},
        {"", "offset 0: expected a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = (tp_jdoc *)1;
        TP_CHECK_STATUS(tp__json_parse(bad[i].text, strlen(bad[i].text), NULL, 8, &d, &err),
                        TP_ERR_PARSE);
        TP_CHECK_CONTAINS(err.msg, bad[i].msg);
        TP_CHECK(d == NULL);
    }
}

TP_TEST(one_file) {
    tp_safetensors_info si;
    tp_error err;
    write_st("ok.safetensors",
             "{\"__metadata__\":{\"format\":\"pt\"},"
             "\"w\":{\"dtype\":\"BF16\",\"shape\":[2,3],\"data_offsets\":[0,12]},"
             "\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[12,24]}}",
             24);
    tp_registry *reg = NULL;
    TP_CHECK_OK(tp_registry_create(NULL, &reg, &err), &err);
    TP_CHECK_OK(read_st("ok.safetensors", reg, &si, &err), &err);
    TP_CHECK_EQ_U64(si.n_tensors, 2);
    TP_CHECK_EQ_U64(si.tensor_bytes, 24);
    TP_CHECK_EQ_U64(si.dtype_bytes[TP_DTYPE_BF16], 12);
    TP_CHECK_EQ_U64(si.n_files, 1);
    const tp_weight_entry *w = tp_registry_find(reg, "w");
    TP_CHECK(w && w->rank == 2 && w->dims[1] == 3 && w->dtype == TP_DTYPE_BF16);
    tp_registry_destroy(reg);
}

TP_TEST(bad_files_name_the_tensor) {
    static const struct {
        const char *header;
        size_t data;
        const char *msg;
    } bad[] = {
        {"{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,12]}}", 16,
         "tensor 'w': data_offsets [0, 12) hold 12 bytes, the shape and dtype need 16"},
        {"{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8,
         "past the 8 bytes of data"},
        {"{\"w\":{\"dtype\":\"Q4\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
         "dtype 'Q4' is not one safetensors defines"},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
         "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[4,12]}}",
         12, "tensors 'a' and 'b' share bytes [4, 8)"},
        {"{\"w\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4,
         "shape[0] is not a non-negative integer"},
        {"[1]", 0, "the header is not a JSON object"},
        {"{\"w\":1,}", 0, "header (JSON at byte 8)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_st("bad.safetensors", bad[i].header, bad[i].data);
        tp_safetensors_info si;
        tp_error err;
        tp_status st = read_st("bad.safetensors", NULL, &si, &err);
        TP_CHECK(st != TP_OK);
        TP_CHECK_CONTAINS(err.msg, bad[i].msg);
        TP_CHECK_CONTAINS(err.msg, "bad.safetensors");
    }
    /* a header length beyond the file */
    char path[128];
    snprintf(path, sizeof path, "%s/short.safetensors", dir);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite("\xff\xff\xff\x00\x00\x00\x00\x00{}", 1, 10, f);
        fclose(f);
    }
    tp_safetensors_info si;
    tp_error err;
    TP_CHECK_STATUS(read_st("short.safetensors", NULL, &si, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "header length 16777215 is more than the file holds");
}

TP_TEST(sharded_index_and_directory) {
    write_st("model-00001-of-00002.safetensors",
             "{\"a\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]}}", 8);
    write_st("model-00002-of-00002.safetensors",
             "{\"b\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
             "\"c\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[8,16]}}",
             16);
    write_text("model.safetensors.index.json", "{\"metadata\":{\"total_size\":24},\"weight_map\":{"
                                               "\"a\":\"model-00001-of-00002.safetensors\","
                                               "\"b\":\"model-00002-of-00002.safetensors\","
                                               "\"c\":\"model-00002-of-00002.safetensors\"}}");
    tp_safetensors_info si;
    tp_error err;
    TP_CHECK_OK(read_st("", NULL, &si, &err), &err); /* the directory: the index wins */
    TP_CHECK_EQ_U64(si.n_files, 2);
    TP_CHECK_EQ_U64(si.n_tensors, 3);
    TP_CHECK_EQ_U64(si.tensor_bytes, 24);
    write_text("evil.index.json", "{\"weight_map\":{\"a\":\"../etc/passwd\"}}");
    TP_CHECK_STATUS(read_st("evil.index.json", NULL, &si, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "not a file name in the index's folder");
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/tp_safetensors_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    TP_RUN(json_reader);
    TP_RUN(one_file);
    TP_RUN(bad_files_name_the_tensor);
    TP_RUN(sharded_index_and_directory);
    static const char *const written[] = {"ok.safetensors",
                                          "bad.safetensors",
                                          "short.safetensors",
                                          "model-00001-of-00002.safetensors",
                                          "model-00002-of-00002.safetensors",
                                          "model.safetensors.index.json",
                                          "evil.index.json"};
    for (size_t i = 0; i < sizeof written / sizeof written[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, written[i]);
        unlink(path);
    }
    rmdir(dir);
    return tp_test_finish();
}
