/* Core: statuses, error messages, checked arithmetic, allocator hook. */
#include "harness.h"
#include "core/mem.h"

TP_TEST(status_strings_never_null) {
    for (int s = -3; s < TP_STATUS_COUNT + 3; s++) {
        TP_CHECK(tp_status_str((tp_status)s) != NULL);
        TP_CHECK(tp_status_name((tp_status)s) != NULL);
    }
    TP_CHECK_STR(tp_status_name(TP_OK), "TP_OK");
    TP_CHECK_STR(tp_status_name(TP_ERR_OVERFLOW), "TP_ERR_OVERFLOW");
    TP_CHECK_STR(tp_status_str((tp_status)999), "unknown status");
}

TP_TEST(error_set_and_prefix) {
    tp_error e;
    tp_error_clear(&e);
    TP_CHECK_EQ_U64(e.offset, TP_NO_OFFSET);
    TP_CHECK_STATUS(tp_error_setx(&e, TP_ERR_PARSE, 42, 7, "bad tag %d", 9), TP_ERR_PARSE);
    TP_CHECK_STR(e.msg, "bad tag 9");
    TP_CHECK_EQ_U64(e.offset, 42);
    TP_CHECK_EQ_I64(e.node, 7);
    tp_error_prefix(&e, "file %s: ", "m.onnx");
    TP_CHECK_STR(e.msg, "file m.onnx: bad tag 9");
    TP_CHECK_STATUS(tp_error_set(NULL, TP_ERR_IO, "x"), TP_ERR_IO);
    tp_error_prefix(NULL, "x");
}

TP_TEST(error_truncates) {
    tp_error e;
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    tp_error_set(&e, TP_ERR_INVALID, "%s", big);
    TP_CHECK_EQ_U64(strlen(e.msg), TP_ERROR_MSG_CAP - 1);
    TP_CHECK_STR(e.msg + TP_ERROR_MSG_CAP - 4, "...");
}

TP_TEST(checked_math) {
    uint64_t r = 0;
    TP_CHECK(tp_add_u64(1, 2, &r) && r == 3);
    TP_CHECK(!tp_add_u64(UINT64_MAX, 1, &r));
    TP_CHECK(tp_mul_u64(UINT64_C(1) << 32, UINT64_C(1) << 31, &r) && r == UINT64_C(1) << 63);
    TP_CHECK(!tp_mul_u64(UINT64_C(1) << 32, UINT64_C(1) << 32, &r));
    TP_CHECK(tp_mul_u64(0, UINT64_MAX, &r) && r == 0);
    TP_CHECK(tp_sub_u64(5, 5, &r) && r == 0);
    TP_CHECK(!tp_sub_u64(4, 5, &r));
    TP_CHECK(tp_align_up_u64(65, 64, &r) && r == 128);
    TP_CHECK(tp_align_up_u64(0, 64, &r) && r == 0);
    TP_CHECK(!tp_align_up_u64(65, 48, &r));
    TP_CHECK(!tp_align_up_u64(UINT64_MAX - 3, 64, &r));
    TP_CHECK_EQ_U64(tp_sat_add_u64(UINT64_MAX, 5), UINT64_MAX);
    TP_CHECK_EQ_U64(tp_sat_sub_u64(3, 5), 0);
    TP_CHECK_EQ_U64(tp_sat_mul_u64(UINT64_MAX, 2), UINT64_MAX);
    TP_CHECK(tp_is_pow2_u64(1) && tp_is_pow2_u64(4096) && !tp_is_pow2_u64(0) &&
             !tp_is_pow2_u64(12));
}

TP_TEST(allocator_hook_and_grow) {
    tp_failing_allocator fa;
    tp_failing_allocator_init(&fa, 3);
    int *items = NULL;
    size_t cap = 0;
    TP_CHECK(tp_mem_grow(&fa.hook, (void **)&items, sizeof *items, &cap, 5));
    TP_CHECK_EQ_U64(cap, 8);
    TP_CHECK(tp_mem_grow(&fa.hook, (void **)&items, sizeof *items, &cap, 9));
    TP_CHECK(!tp_mem_grow(&fa.hook, (void **)&items, sizeof *items, &cap, 17)); /* 3rd fails */
    TP_CHECK_EQ_U64(cap, 16);
    tp_mem_free(&fa.hook, items, cap * sizeof *items);
    TP_CHECK_EQ_I64(fa.live, 0);
    TP_CHECK_EQ_U64(fa.live_bytes, 0);
    TP_CHECK(tp_mem_calloc(NULL, SIZE_MAX / 2, 4) == NULL);
    char *s = tp_mem_strdup(NULL, "abc");
    TP_CHECK_STR(s, "abc");
    tp_mem_free_str(NULL, s);
}

TP_TEST(format_bytes_units_and_pairs) {
    char a[32], b[32];
    TP_CHECK_STR(tp_format_bytes(0, a, sizeof a), "0 B");
    TP_CHECK_STR(tp_format_bytes(1023, a, sizeof a), "1023 B");
    TP_CHECK_STR(tp_format_bytes(1024, a, sizeof a), "1.0 KiB");
    TP_CHECK_STR(tp_format_bytes(1536, a, sizeof a), "1.5 KiB");
    TP_CHECK_STR(tp_format_bytes(1048575, a, sizeof a), "1.0 MiB"); /* not "1024.0 KiB" */
    TP_CHECK_STR(tp_format_bytes(8796093022208ull * 1048576ull, a, sizeof a), "8.0 EiB");
    TP_CHECK_STR(tp_format_bytes(UINT64_MAX, a, sizeof a), "16.0 EiB");
    TP_CHECK_STR(tp_format_bytes(1536, a, 4), "1.5"); /* truncated, NUL-terminated */
    /* the "1.0 GiB exceeds 1.0 GiB" case: four decimals tell them apart */
    tp_format_bytes_pair(1074170675ull, 1073741824ull, a, b, sizeof a);
    TP_CHECK_STR(a, "1.0004 GiB");
    TP_CHECK_STR(b, "1.0000 GiB");
    /* one byte apart: only the exact counts differ */
    tp_format_bytes_pair(1073741825ull, 1073741824ull, a, b, sizeof a);
    TP_CHECK_STR(a, "1073741825 B");
    TP_CHECK_STR(b, "1073741824 B");
    /* already different at one decimal, and equal values stay short */
    tp_format_bytes_pair(3u << 20, 2u << 20, a, b, sizeof a);
    TP_CHECK_STR(a, "3.0 MiB");
    TP_CHECK_STR(b, "2.0 MiB");
    tp_format_bytes_pair(5ull << 30, 5ull << 30, a, b, sizeof a);
    TP_CHECK_STR(a, "5.0 GiB");
}

int main(void) {
    TP_RUN(status_strings_never_null);
    TP_RUN(error_set_and_prefix);
    TP_RUN(error_truncates);
    TP_RUN(checked_math);
    TP_RUN(allocator_hook_and_grow);
    TP_RUN(format_bytes_units_and_pairs);
    return tp_test_finish();
}
