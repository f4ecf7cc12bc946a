/* Numbered families of tensor names, so that a listing shows
 *     past_key_values.{0..11}.key   f32  [batch,12,past,64]  576.0 KiB  (12 inputs)
 * instead of twelve near-identical lines. */
#ifndef TP_CLI_FAMILIES_H
#define TP_CLI_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_cli_family {
    uint32_t first;  /* index (into the caller's list) of the first member */
    uint32_t count;  /* members; 1 = a name on its own */
    char label[256]; /* "past_key_{0..11}", or the name itself when count is 1 */
} tp_cli_family;

/* Group names[0..n): names that are equal except for one decimal number (no
 * leading zeros) and have equal keys[i] (e.g. dtype + shape) form one family
 * when there are at least two of them; the number's values are written as
 * sorted ranges ("{0..11}", "{0..3,5,7..9}"). Families come in the order of
 * their first members. Writes at most n families to out and each name's family
 * index to family_of[i]; returns the family count. */
uint32_t tp_cli_name_families(const char *const *names, const char *const *keys, uint32_t n,
                              tp_cli_family *out, uint32_t *family_of);

#endif
