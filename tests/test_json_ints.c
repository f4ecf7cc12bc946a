/* The strict reader of a flat JSON object of integers (src/core/json_ints.h), which
 * the CLI's --dims FILE.json uses: every accepted form, every refused one with the
 * byte offset its message names, and a callback that stops the read. */
#include <string.h>

#include "core/json_ints.h"
#include "harness.h"

typedef struct members {
    int n;
    char names[8][64];
    int64_t values[8];
    size_t offsets[8];
    int stop_at; /* refuse the member with this index (-1: none) */
} members;

static tp_status collect(void *user, const char *name, int64_t value, size_t offset,
                         tp_error *err) {
    members *m = user;
    if (m->n == m->stop_at) return tp_error_set(err, TP_ERR_INVALID, "refused '%s'", name);
    if (m->n < 8) {
        snprintf(m->names[m->n], sizeof m->names[0], "%s", name);
        m->values[m->n] = value;
        m->offsets[m->n] = offset;
    }
    m->n++;
    return TP_OK;
}

static tp_status read_text(const char *text, members *m, tp_error *err) {
    memset(m, 0, sizeof *m);
    m->stop_at = -1;
    tp_error_clear(err);
    return tp__json_read_ints(text, strlen(text), collect, m, err);
}

TP_TEST(accepts_objects_of_integers) {
    members m;
    tp_error err;
    TP_CHECK(read_text(" {\n \"batch\" : 8,\t\"seq\":128 }\r\n", &m, &err) == TP_OK);
    TP_CHECK_EQ_I64(m.n, 2);
    TP_CHECK(strcmp(m.names[0], "batch") == 0 && m.values[0] == 8 && m.offsets[0] == 4);
    TP_CHECK(strcmp(m.names[1], "seq") == 0 && m.values[1] == 128 && m.offsets[1] == 17);
    TP_CHECK(read_text("{}", &m, &err) == TP_OK && m.n == 0);
    TP_CHECK(read_text("{\"a\":0,\"b\":-9223372036854775808,\"c\":9223372036854775807}", &m,
                       &err) == TP_OK);
    TP_CHECK(m.values[0] == 0 && m.values[1] == INT64_MIN && m.values[2] == INT64_MAX);
}

TP_TEST(decodes_escapes_to_utf8) {
    members m;
    tp_error err;
    TP_CHECK(read_text("{\"q\\\"b\\\\s\\/\\t\\u00e9\\ud83d\\ude00\\u20ac\": 1}", &m, &err) ==
             TP_OK);
    TP_CHECK(strcmp(m.names[0], "q\"b\\s/\t\xc3\xa9\xf0\x9f\x98\x80\xe2\x82\xac") == 0);
    TP_CHECK(read_text("{\"\xc3\xa9t\xc3\xa9\": 2}", &m, &err) == TP_OK); /* raw UTF-8 */
    TP_CHECK(strcmp(m.names[0], "\xc3\xa9t\xc3\xa9") == 0);
}

/* text must be refused with a message starting "offset <at>:" and holding `what` */
static void refused(const char *text, size_t at, const char *what) {
    members m;
    tp_error err;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "offset %zu:", at);
    tp_status st = read_text(text, &m, &err);
    if (st != TP_ERR_PARSE || strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
        !strstr(err.msg, what))
        TP_FAIL_("'%s': status %d, message '%s' (want '%s ... %s')", text, (int)st, err.msg, prefix,
                 what);
}

TP_TEST(refuses_with_the_offset) {
    refused("", 0, "expected '{'");
    refused("[1]", 0, "expected '{'");
    refused("{\"a\": 1.5}", 7, "no fraction or exponent");
    refused("{\"a\": 1e3}", 7, "no fraction or exponent");
    refused("{\"a\": 01}", 6, "leading zero");
    refused("{\"a\": -}", 7, "expected an integer");
    refused("{\"a\": \"1\"}", 6, "expected an integer");
    refused("{\"a\": {\"b\": 1}}", 6, "expected an integer");
    refused("{\"a\": 9223372036854775808}", 6, "beyond 64 bits");
    refused("{\"a\": -9223372036854775809}", 6, "beyond 64 bits");
    refused("{\"a\": 1,}", 8, "expected a \"name\"");
    refused("{\"a\": 1 \"b\": 2}", 8, "expected ',' or '}'");
    refused("{\"a\" 1}", 5, "expected ':'");
    refused("{a: 1}", 1, "expected a \"name\"");
    refused("{\"a\": 1} x", 9, "text after the object");
    refused("{\"a\": 1", 7, "expected ',' or '}'");
    refused("{\"a", 1, "unterminated string");
    refused("{\"a\tb\": 1}", 3, "control character");
    refused("{\"a\\x\": 1}", 4, "unknown escape");
    refused("{\"a\\u00\": 1}", 3, "four hex digits");
    refused("{\"a\\u0000\": 1}", 3, "NUL");
    refused("{\"\\udc00\": 1}", 2, "lone low surrogate");
    refused("{\"\\ud800x\": 1}", 2, "without its low half");
    refused("{\"\xff\": 1}", 2, "invalid UTF-8");
    refused("{\"\xc0\xaf\": 1}", 2, "invalid UTF-8");     /* overlong '/' */
    refused("{\"\xed\xa0\x80\": 1}", 2, "invalid UTF-8"); /* encoded surrogate */
}

TP_TEST(refuses_long_names) {
    char text[TP_JSON_INTS_NAME_MAX + 32];
    members m;
    tp_error err;
    text[0] = '{', text[1] = '"';
    memset(text + 2, 'n', TP_JSON_INTS_NAME_MAX);
    strcpy(text + 2 + TP_JSON_INTS_NAME_MAX, "\": 1}");
    TP_CHECK(read_text(text, &m, &err) == TP_OK &&
             strlen(m.names[0]) == 63); /* kept, truncated here */
    text[2 + TP_JSON_INTS_NAME_MAX] = 'n';
    strcpy(text + 3 + TP_JSON_INTS_NAME_MAX, "\": 1}");
    TP_CHECK(read_text(text, &m, &err) == TP_ERR_PARSE && strstr(err.msg, "name longer than"));
}

TP_TEST(a_refusing_callback_stops_the_read) {
    members m;
    tp_error err;
    memset(&m, 0, sizeof m);
    m.stop_at = 1;
    tp_error_clear(&err);
    const char *text = "{\"a\": 1, \"b\": 2, \"c\": 3}";
    TP_CHECK(tp__json_read_ints(text, strlen(text), collect, &m, &err) == TP_ERR_INVALID);
    TP_CHECK(m.n == 1 && strcmp(err.msg, "refused 'b'") == 0);
}

int main(void) {
    TP_RUN(accepts_objects_of_integers);
    TP_RUN(decodes_escapes_to_utf8);
    TP_RUN(refuses_with_the_offset);
    TP_RUN(refuses_long_names);
    TP_RUN(a_refusing_callback_stops_the_read);
    return tp_test_finish();
}
