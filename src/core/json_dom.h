/*
 * Internal: a strict JSON reader (RFC 8259) that builds a read-only tree, for the
 * files tensorplan reads beside model weights: a safetensors header, a Hugging Face
 * config.json, a sharded checkpoint's index.
 *
 * Refused, with the byte offset in the message ("offset 17: ..."): anything outside
 * the grammar (trailing commas, comments, single quotes, leading zeros, NaN),
 * control characters in strings, lone surrogates, a member name repeated within an
 * object (readers disagree on which copy wins), nesting deeper than max_depth,
 * anything after the value. Numbers keep their double and, when they are integers
 * that fit, their exact int64 value.
 *
 * Ownership: the tree and every string in it belong to the tp_jdoc (free with
 * tp__json_free). Errors: TP_ERR_PARSE (with err->offset), TP_ERR_NOMEM. Reentrant.
 */
#ifndef TP_CORE_JSON_DOM_H
#define TP_CORE_JSON_DOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorplan/core.h"

typedef enum tp_jtype { TP_J_NULL, TP_J_BOOL, TP_J_NUM, TP_J_STR, TP_J_ARR, TP_J_OBJ } tp_jtype;

typedef struct tp_jv tp_jv;
struct tp_jv {
    tp_jtype type;
    bool b;                  /* TP_J_BOOL */
    bool is_int;             /* TP_J_NUM: an integer literal that fits int64_t (i is exact) */
    double num;              /* TP_J_NUM */
    int64_t i;               /* TP_J_NUM with is_int */
    const char *str;         /* TP_J_STR: decoded, NUL-terminated (may hold \u0000: see len) */
    size_t len;              /* TP_J_STR: bytes in str */
    uint32_t n;              /* TP_J_ARR / TP_J_OBJ: element / member count */
    const tp_jv *items;      /* elements, or member values */
    const char *const *keys; /* TP_J_OBJ: member names, NUL-terminated */
    uint64_t offset;         /* of the value in the text */
};

typedef struct tp_jdoc tp_jdoc;

tp_status tp__json_parse(const char *text, size_t len, const tp_allocator *alloc,
                         uint32_t max_depth, tp_jdoc **out, tp_error *err);
const tp_jv *tp__json_root(const tp_jdoc *d);
void tp__json_free(tp_jdoc *d);

/* The member named key of an object (NULL when absent or v is not an object). */
const tp_jv *tp__json_get(const tp_jv *v, const char *key);
/* An integer member >= 0 into *out; false when absent, not an integer or negative. */
bool tp__json_get_u64(const tp_jv *obj, const char *key, uint64_t *out);

#endif
