/* The protobuf wire-format decoder (src/import/pb_wire.c): varints, zigzag,
 * keys, length prefixes, fixed32/64, packed runs; every error names its offset. */
#include "harness.h"
#include "import/pb_wire.h"

TP_TEST(wire_varints) {
    tp_error err;
    uint64_t v;
    const uint8_t one[] = {0x96, 0x01};
    tp_pb r = tp__pb_init(one, sizeof one);
    TP_CHECK_OK(tp__pb_varint(&r, &v, &err), &err);
    TP_CHECK_EQ_U64(v, 150);
    TP_CHECK_EQ_U64(r.pos, 2);
    const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    r = tp__pb_init(max, sizeof max);
    TP_CHECK_OK(tp__pb_varint(&r, &v, &err), &err);
    TP_CHECK_EQ_U64(v, UINT64_MAX);
    const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    r = tp__pb_init(over, sizeof over);
    TP_CHECK_STATUS(tp__pb_varint(&r, &v, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "overflows 64 bits");
    const uint8_t trunc[] = {0x00, 0x80, 0x80};
    r = tp__pb_init(trunc, sizeof trunc);
    TP_CHECK_OK(tp__pb_varint(&r, &v, &err), &err);
    TP_CHECK_STATUS(tp__pb_varint(&r, &v, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "truncated varint at offset 1");
    TP_CHECK_EQ_U64(err.offset, 1);
    TP_CHECK_EQ_I64(tp__pb_zigzag64(0), 0);
    TP_CHECK_EQ_I64(tp__pb_zigzag64(1), -1);
    TP_CHECK_EQ_I64(tp__pb_zigzag64(4294967294u), 2147483647);
    TP_CHECK_EQ_I64(tp__pb_zigzag64(UINT64_MAX), INT64_MIN);
}

TP_TEST(wire_tags_and_lengths) {
    tp_error err;
    uint32_t f, w;
    const uint8_t zero_field[] = {0x02};
    tp_pb r = tp__pb_init(zero_field, 1);
    TP_CHECK_STATUS(tp__pb_tag(&r, &f, &w, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "invalid field number 0 at offset 0");
    const uint8_t group[] = {0x0b};
    r = tp__pb_init(group, 1);
    TP_CHECK_STATUS(tp__pb_tag(&r, &f, &w, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "start-group");
    const uint8_t bad7[] = {0x0f};
    r = tp__pb_init(bad7, 1);
    TP_CHECK_STATUS(tp__pb_tag(&r, &f, &w, &err), TP_ERR_PARSE);
    /* length prefix past the end */
    const uint8_t big[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a'};
    r = tp__pb_init(big, sizeof big);
    tp_pb sub;
    TP_CHECK_OK(tp__pb_tag(&r, &f, &w, &err), &err);
    TP_CHECK_EQ_U64(f, 1);
    TP_CHECK_EQ_U64(w, TP_PB_LEN);
    TP_CHECK_STATUS(tp__pb_len(&r, &sub, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "length prefix 4294967295 at offset 1 runs past the end");
    TP_CHECK_EQ_U64(err.offset, 1);
    const uint8_t f32[] = {1, 2, 3};
    uint32_t v32;
    uint64_t v64;
    r = tp__pb_init(f32, 3);
    TP_CHECK_STATUS(tp__pb_fixed32(&r, &v32, &err), TP_ERR_PARSE);
    TP_CHECK_CONTAINS(err.msg, "truncated fixed32 at offset 0");
    const uint8_t f64[] = {1, 0, 0, 0, 0, 0, 0, 0x80};
    r = tp__pb_init(f64, 8);
    TP_CHECK_OK(tp__pb_fixed64(&r, &v64, &err), &err);
    TP_CHECK_EQ_U64(v64, 0x8000000000000001ull);
    const uint8_t packed[] = {0x96, 0x01, 0x05, 0x80};
    tp_pb run = tp__pb_init(packed, 3);
    TP_CHECK_OK(tp__pb_count_packed_varints(&run, &v64, &err), &err);
    TP_CHECK_EQ_U64(v64, 2);
    run = tp__pb_init(packed, 4);
    TP_CHECK_STATUS(tp__pb_count_packed_varints(&run, &v64, &err), TP_ERR_PARSE);
}

int main(void) {
    TP_RUN(wire_varints);
    TP_RUN(wire_tags_and_lengths);
    return tp_test_finish();
}
