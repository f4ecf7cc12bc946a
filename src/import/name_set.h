/* A set of names read from a file, to refuse duplicates (GGUF keys and tensor
 * names, as llama.cpp does). Memory grows with the names added: their bytes plus
 * about 20 bytes each. Not thread-safe; one set per reader. */
#ifndef TP_IMPORT_NAME_SET_H
#define TP_IMPORT_NAME_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "graph/graph_internal.h"

typedef struct tp_name_set {
    const tp_allocator *alloc;
    tp_idmap index;
    char *chars; /* the names, NUL-terminated, back to back */
    size_t n_chars, cap_chars;
    size_t *starts; /* offset of name i in chars */
    size_t n, cap;
} tp_name_set;

/* An empty set allocating through a (NULL = libc). */
void tp_name_set_init(tp_name_set *s, const tp_allocator *a);
/* Adds name; *duplicate is true (and nothing is added) when it was there
 * already. False on NOMEM or more than INT32_MAX names. */
bool tp_name_set_add(tp_name_set *s, const char *name, bool *duplicate);
void tp_name_set_free(tp_name_set *s);

#endif
