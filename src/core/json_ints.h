/*
 * Internal: a strict reader of one flat JSON object whose values are integers,
 * {"batch": 8, "seq": 128} (RFC 8259 syntax, nothing more): the --dims FILE.json
 * of the CLI.
 *
 * Accepted: whitespace, one object, string names with every JSON escape
 * (\uXXXX pairs decoded to UTF-8), integer values -?(0|[1-9][0-9]*) that fit
 * int64_t. Refused, with the byte offset in the message ("offset 17: ..."):
 * invalid UTF-8, control characters or \u0000 in a name, lone surrogates,
 * fractions and exponents, leading zeros, values beyond int64_t, nested values,
 * trailing commas, anything after the object, names longer than
 * TP_JSON_INTS_NAME_MAX bytes.
 *
 * fn is called once per member in file order with the decoded, NUL-terminated
 * name (valid during the call only), the value and the offset of the member's
 * name; a status other than TP_OK from it stops the read and is returned (its
 * err is kept). Errors: TP_ERR_PARSE. Never allocates. Thread-safe.
 */
#ifndef TP_CORE_JSON_INTS_H
#define TP_CORE_JSON_INTS_H

#include <stddef.h>
#include <stdint.h>

#include "tensorplan/core.h"

#define TP_JSON_INTS_NAME_MAX 1024

typedef tp_status (*tp__json_int_member)(void *user, const char *name, int64_t value, size_t offset,
                                         tp_error *err);

tp_status tp__json_read_ints(const char *text, size_t len, tp__json_int_member fn, void *user,
                             tp_error *err);

#endif
