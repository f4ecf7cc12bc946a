/* The placement-order key of the allocators (plan/alloc_internal.h): one comparator for
 * best-fit, the improvement pass and the class split. */
#include "plan/alloc_internal.h"

int tp__alloc_key_cmp(const void *a, const void *b) {
    const tp__alloc_key *x = a, *y = b;
    if (x->k1 != y->k1) return x->k1 > y->k1 ? -1 : 1;
    if (x->k2 != y->k2) return x->k2 > y->k2 ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}
