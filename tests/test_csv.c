/* tests for the MiniMalloc CSV reader/writer (include/tensorplan/csv.h). */
#include "harness.h"

static tp_status parse(const char *text, tp_buffer **b, size_t *n, tp_error *err) {
    return tp_csv_parse_buffers(text, strlen(text), NULL, b, n, err);
}

TP_TEST(parses_rows_and_alignment) {
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_error err;
    const char *text = "\xEF\xBB\xBFid,lower,upper,size,alignment\r\n"
                       "0,0,10,4096,64\r\n"
                       "\r\n"
                       " 7 , 3 , 4 , 0 , 0 \n"
                       "-2,5,9,100,1";
    TP_CHECK_OK(parse(text, &b, &n, &err), &err);
    TP_CHECK_EQ_U64(n, 3);
    if (n == 3) {
        TP_CHECK_EQ_I64(b[0].id, 0);
        TP_CHECK_EQ_I64(b[0].birth, 0);
        TP_CHECK_EQ_I64(b[0].death, 9);
        TP_CHECK_EQ_U64(b[0].size, 4096);
        TP_CHECK_EQ_U64(b[0].alignment, 64);
        TP_CHECK_EQ_I64(b[0].fixed_offset, -1);
        TP_CHECK_EQ_I64(b[1].id, 7);
        TP_CHECK_EQ_I64(b[1].birth, 3);
        TP_CHECK_EQ_I64(b[1].death, 3);
        TP_CHECK_EQ_U64(b[1].size, 0);
        TP_CHECK_EQ_I64(b[2].id, -2);
        TP_CHECK_EQ_U64(b[2].tail_guard, 0);
    }
    tp_csv_free_buffers(NULL, b, n);
}

TP_TEST(header_only_gives_no_buffers) {
    tp_buffer *b = (tp_buffer *)1;
    size_t n = 5;
    tp_error err;
    TP_CHECK_OK(parse("id,lower,upper,size\n", &b, &n, &err), &err);
    TP_CHECK_EQ_U64(n, 0);
    TP_CHECK(b == NULL);
}

static void expect_error(const char *text, tp_status want, const char *needle) {
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_error err;
    tp_error_clear(&err);
    TP_CHECK_STATUS(parse(text, &b, &n, &err), want);
    TP_CHECK_CONTAINS(err.msg, needle);
    TP_CHECK(b == NULL);
}

TP_TEST(errors_name_the_line) {
    expect_error("", TP_ERR_PARSE, "line 1: missing header");
    expect_error("id,lo,upper,size\n0,0,1,1\n", TP_ERR_PARSE, "line 1: bad header");
    expect_error("id,lower,upper\n", TP_ERR_PARSE, "line 1: bad header");
    expect_error("id,lower,upper,size\n0,0,1,1\n1,0,x,4\n", TP_ERR_PARSE,
                 "line 3: column 'upper' value 'x' is not a number");
    expect_error("id,lower,upper,size\n0,0,1,1\n1,0,2,\n", TP_ERR_PARSE,
                 "line 3: column 'size' value '' is not a number");
    expect_error("id,lower,upper,size\n0,0,1,1.5\n", TP_ERR_PARSE, "line 2: column 'size'");
    expect_error("id,lower,upper,size\n0,-1,1,1\n", TP_ERR_PARSE,
                 "line 2: column 'lower' value '-1' is negative");
    expect_error("id,lower,upper,size\n0,0,1,-8\n", TP_ERR_PARSE, "is negative");
    expect_error("id,lower,upper,size\n\n\n0,4,4,1\n", TP_ERR_PARSE, "line 4: upper 4 <= lower 4");
    expect_error("id,lower,upper,size\n0,5,2,1\n", TP_ERR_PARSE, "line 2: upper 2 <= lower 5");
    expect_error("id,lower,upper,size\n0,0,1\n", TP_ERR_PARSE, "line 2: 3 columns");
    expect_error("id,lower,upper,size\n0,0,1,1,1,1\n", TP_ERR_PARSE, "line 2: more than");
    expect_error("id,lower,upper,size,alignment\n0,0,1,1,48\n", TP_ERR_PARSE,
                 "line 2: alignment 48 is not a power of two");
    expect_error("id,lower,upper,size\n0,0,1,99999999999999999999\n", TP_ERR_OVERFLOW,
                 "line 2: column 'size'");
    expect_error("id,lower,upper,size\n0,0,9223372036854775808,1\n", TP_ERR_OVERFLOW,
                 "column 'upper'");
}

TP_TEST(error_records_line_offset) {
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_error err;
    const char *text = "id,lower,upper,size\n0,0,1,1\nbad,0,1,1\n";
    TP_CHECK_STATUS(parse(text, &b, &n, &err), TP_ERR_PARSE);
    TP_CHECK_EQ_U64(err.offset, 28); /* byte offset of line 3 */
    TP_CHECK_CONTAINS(err.msg, "line 3: column 'id'");
}

TP_TEST(writer_round_trip) {
    tp_buffer b[2] = {{.size = 10, .birth = 0, .death = 4, .fixed_offset = -1, .id = 3},
                      {.size = 0, .birth = 7, .death = 7, .fixed_offset = -1, .id = -1}};
    uint64_t off[2] = {128, 0};
    FILE *f = tmpfile();
    TP_CHECK(f != NULL);
    if (!f) return;
    tp_error err;
    TP_CHECK_OK(tp_csv_write_solution(f, b, 2, off, &err), &err);
    rewind(f);
    char buf[256];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    TP_CHECK_STR(buf, "id,lower,upper,size,offset\n3,0,5,10,128\n-1,7,8,0,0\n");
    /* the solution file parses back as buffers (offset column refused: 5 columns named
     * differently) */
    tp_buffer *r = NULL;
    size_t n = 0;
    TP_CHECK_STATUS(parse(buf, &r, &n, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "line 1: bad header");
}

TP_TEST(load_missing_file_is_not_found) {
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_error err;
    TP_CHECK_STATUS(tp_csv_load_buffers("/nonexistent/x.csv", NULL, &b, &n, &err),
                    TP_ERR_NOT_FOUND);
    TP_CHECK_CONTAINS(err.msg, "/nonexistent/x.csv");
    /* special files are refused before a byte is read: /dev/zero would never end */
    TP_CHECK_STATUS(tp_csv_load_buffers("/dev/zero", NULL, &b, &n, &err), TP_ERR_IO);
    TP_CHECK_CONTAINS(err.msg, "character device");
    TP_CHECK_STATUS(tp_csv_load_buffers("/tmp", NULL, &b, &n, &err), TP_ERR_IO);
    TP_CHECK_CONTAINS(err.msg, "directory");
}

TP_TEST(load_minimalloc_instance) {
    const char *path = TP_SOURCE_DIR "/../shared/benchmarks/minimalloc/A.1048576.csv";
    FILE *probe = fopen(path, "r");
    if (!probe) {
        printf("  (skipped: %s not present)\n", path);
        return;
    }
    fclose(probe);
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_error err;
    TP_CHECK_OK(tp_csv_load_buffers(path, NULL, &b, &n, &err), &err);
    TP_CHECK_EQ_U64(n, 154);
    if (n > 0) { /* first row: 0,995328,1000448,656384 */
        TP_CHECK_EQ_I64(b[0].birth, 995328);
        TP_CHECK_EQ_I64(b[0].death, 1000447);
        TP_CHECK_EQ_U64(b[0].size, 656384);
    }
    uint64_t lb = 0;
    TP_CHECK_OK(tp_alloc_lower_bound(b, n, NULL, &lb, &err), &err);
    TP_CHECK_EQ_U64(lb, 1048576);
    tp_csv_free_buffers(NULL, b, n);
}

TP_TEST(named_ids) {
    /* MiniMalloc's own example (ids are names) */
    const char *text = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n17,0,9,4\n";
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_csv_names names;
    tp_error err;
    TP_CHECK_STATUS(parse(text, &b, &n, &err), TP_ERR_PARSE); /* plain reader: numbers only */
    TP_CHECK_CONTAINS(err.msg, "line 2: column 'id' value 'b1' is not a number");
    TP_CHECK_OK(tp_csv_parse_buffers_named(text, strlen(text), NULL, &b, &n, &names, &err), &err);
    TP_CHECK_EQ_U64(n, 3);
    TP_CHECK_EQ_U64(names.n, 3);
    TP_CHECK_STR(tp_csv_name(&names, 0), "b1");
    TP_CHECK_STR(tp_csv_name(&names, 2), "17");
    TP_CHECK(tp_csv_name(&names, 3) == NULL);
    if (n == 3) {
        TP_CHECK_EQ_I64(b[0].id, 0); /* not a number: the row */
        TP_CHECK_EQ_I64(b[1].id, 1);
        TP_CHECK_EQ_I64(b[2].id, 17);
    }
    uint64_t off[3] = {8, 8, 0};
    FILE *f = tmpfile();
    TP_CHECK(f != NULL);
    if (f) {
        TP_CHECK_OK(tp_csv_write_solution_named(f, b, n, &names, off, &err), &err);
        rewind(f);
        char buf[256];
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        buf[len] = 0;
        fclose(f);
        TP_CHECK_STR(buf, "id,lower,upper,size,offset\nb1,0,3,4,8\nb2,3,9,4,8\n17,0,9,4,0\n");
    }
    tp_csv_free_buffers(NULL, b, n);
    tp_csv_free_names(NULL, &names);
    /* an empty id is still an error, and the names are left empty */
    const char *bad = "id,lower,upper,size\nx,0,1,1\n,0,1,1\n";
    TP_CHECK_STATUS(tp_csv_parse_buffers_named(bad, strlen(bad), NULL, &b, &n, &names, &err),
                    TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "line 3: empty id");
    TP_CHECK_EQ_U64(names.n, 0);
    TP_CHECK(names.text == NULL);
}

TP_TEST(cr_only_lines_and_repeated_ids) {
    tp_buffer *b = NULL;
    size_t n = 0;
    tp_csv_names names;
    tp_error err;
    /* CR-only line endings: named, with the offset of the first CR */
    const char *cr = "id,lower,upper,size\r1,0,2,10\r2,1,3,20\r";
    TP_CHECK_STATUS(parse(cr, &b, &n, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "line 1: a carriage return inside the line at byte 19");
    TP_CHECK_CONTAINS(err.msg, "CR-only line endings?");
    TP_CHECK_EQ_U64(err.offset, 19);
    /* CRLF stays fine */
    const char *crlf = "id,lower,upper,size\r\n1,0,2,10\r\n";
    TP_CHECK_OK(parse(crlf, &b, &n, &err), &err);
    TP_CHECK_EQ_U64(n, 1);
    tp_csv_free_buffers(NULL, b, n);
    /* repeated ids: the earliest repeat in file order, and how many rows repeat */
    const char *dup =
        "id,lower,upper,size\na,0,2,10\nb,1,3,20\nb,1,3,20\na,0,1,1\nb,0,1,1\nc,0,1,1\n";
    TP_CHECK_OK(tp_csv_parse_buffers_named(dup, strlen(dup), NULL, &b, &n, &names, &err), &err);
    size_t first = 99, second = 99, repeats = 99;
    TP_CHECK_OK(tp_csv_find_duplicate_id(&names, NULL, &first, &second, &repeats, &err), &err);
    TP_CHECK_EQ_U64(first, 1);
    TP_CHECK_EQ_U64(second, 2);
    TP_CHECK_EQ_U64(repeats, 3);
    tp_csv_free_buffers(NULL, b, n);
    tp_csv_free_names(NULL, &names);
    const char *uniq = "id,lower,upper,size\na,0,2,10\nb,1,3,20\n";
    TP_CHECK_OK(tp_csv_parse_buffers_named(uniq, strlen(uniq), NULL, &b, &n, &names, &err), &err);
    TP_CHECK_OK(tp_csv_find_duplicate_id(&names, NULL, &first, &second, &repeats, &err), &err);
    TP_CHECK_EQ_U64(repeats, 0);
    tp_csv_free_buffers(NULL, b, n);
    tp_csv_free_names(NULL, &names);
}

TP_TEST(allocation_failure_sweep) {
    const char *text = "id,lower,upper,size\n0,0,1,1\n1,1,2,2\n2,2,3,3\n3,0,9,4\n4,1,2,5\n"
                       "5,0,1,1\n6,1,2,2\n7,2,3,3\n8,0,9,4\n9,1,2,5\n";
    int reached_ok = 0;
    for (long k = 1; k < 64 && !reached_ok; k++) {
        tp_failing_allocator fa;
        tp_failing_allocator_init(&fa, k);
        tp_buffer *b = NULL;
        size_t n = 0;
        tp_error err;
        tp_csv_names names;
        tp_status st =
            tp_csv_parse_buffers_named(text, strlen(text), &fa.hook, &b, &n, &names, &err);
        if (st == TP_OK) {
            reached_ok = 1;
            TP_CHECK_EQ_U64(n, 10);
            TP_CHECK_EQ_U64(names.n, 10);
            tp_csv_free_buffers(&fa.hook, b, n);
            tp_csv_free_names(&fa.hook, &names);
        } else {
            TP_CHECK_STATUS(st, TP_ERR_NOMEM);
        }
        TP_CHECK_EQ_I64(fa.live, 0);
        TP_CHECK_EQ_U64(fa.live_bytes, 0);
    }
    TP_CHECK(reached_ok);
}

int main(void) {
    TP_RUN(parses_rows_and_alignment);
    TP_RUN(header_only_gives_no_buffers);
    TP_RUN(errors_name_the_line);
    TP_RUN(error_records_line_offset);
    TP_RUN(writer_round_trip);
    TP_RUN(load_missing_file_is_not_found);
    TP_RUN(load_minimalloc_instance);
    TP_RUN(named_ids);
    TP_RUN(cr_only_lines_and_repeated_ids);
    TP_RUN(allocation_failure_sweep);
    return tp_test_finish();
}
