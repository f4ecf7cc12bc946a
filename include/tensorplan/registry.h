/*
 * tensorplan/registry.h — the weight registry: every weight a model
 * will load, with its bytes and kind, before any byte is read.
 *
 * Kinds: a base weight; a LoRA adapter weight (belongs to a named adapter); a
 * tied alias of another weight (shares its storage, e.g. the LM head tied to
 * the token embedding). Registering a name twice keeps the first entry. An
 * alias resolves ONE step to its target. total_bytes counts every entry that
 * is not an alias. pin/release keep reference counts on the resolved storage.
 *
 * Example:
 *     tp_registry *r; tp_error err;
 *     tp_registry_create(NULL, &r, &err);
 *     tp_weight_desc d = {.name = "tok_embd", .rank = 2, .dims = {32000, 4096},
 *                         .dtype = TP_DTYPE_F16};
 *     tp_registry_add(r, &d, NULL, &err);
 *     tp_registry_add(r, &(tp_weight_desc){.name = "lm_head", .kind = TP_WEIGHT_TIED_ALIAS,
 *                                          .related = "tok_embd"}, NULL, &err);
 *     printf("%llu\n", (unsigned long long)tp_registry_total_bytes(r)); // 262144000
 *     tp_registry_destroy(r);
 *
 * Ownership: the registry copies names; entry pointers stay valid until the
 * next tp_registry_add or destroy. Lookups by name are O(1) on average (an
 * open-addressing hash table).
 * Thread safety: concurrent readers are fine; add/pin/release need exclusive
 * access (use one registry per loader thread, or a lock around it).
 */
#ifndef TENSORPLAN_REGISTRY_H
#define TENSORPLAN_REGISTRY_H

#include "tensorplan/core.h"
#include "tensorplan/dtype.h"
#include "tensorplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_weight_kind {
    TP_WEIGHT_BASE,         /* an ordinary weight */
    TP_WEIGHT_LORA_ADAPTER, /* a LoRA weight of adapter `related` */
    TP_WEIGHT_TIED_ALIAS,   /* shares the storage of weight `related` */
    TP_WEIGHT_KIND_COUNT
} tp_weight_kind;

TP_API const char *tp_weight_kind_name(tp_weight_kind k); /* "base", "lora_adapter", "tied_alias" */

/* What a caller registers. bytes == 0 means "compute from dims and dtype"
 * (quantized types in whole blocks); a non-zero bytes is taken as given (the
 * size in the file is authoritative). rank 0 with bytes 0 is a scalar. */
typedef struct tp_weight_desc {
    const char *name;
    int32_t rank;
    int64_t dims[TP_MAX_RANK];
    tp_dtype dtype;
    uint64_t bytes;
    tp_weight_kind kind;
    const char *related; /* adapter name (lora_adapter) or target name (tied_alias) */
} tp_weight_desc;

/* A registered weight (read-only for callers). */
typedef struct tp_weight_entry {
    const char *name;
    int32_t rank;
    int64_t dims[TP_MAX_RANK];
    tp_dtype dtype;
    uint64_t bytes;
    tp_weight_kind kind;
    const char *related; /* NULL for base */
    uint64_t pins;       /* reference count (on the storage owner) */
} tp_weight_entry;

typedef struct tp_registry tp_registry;

/* alloc may be NULL (libc). TP_ERR_NOMEM, TP_ERR_INVALID. */
TP_API tp_status tp_registry_create(const tp_allocator *alloc, tp_registry **out, tp_error *err);
TP_API void tp_registry_destroy(tp_registry *r);
/* The allocator given at creation (NULL for libc). */
TP_API const tp_allocator *tp_registry_allocator(const tp_registry *r);

/* Register a weight. When the name is already registered the first entry is
 * kept and *inserted (nullable) is false. Errors: TP_ERR_INVALID (NULL or empty
 * name, bad kind or dtype, rank out of range, negative dim, alias/adapter
 * without `related`, alias of itself), TP_ERR_OVERFLOW (bytes or the running
 * total beyond 64 bits), TP_ERR_SHAPE (quantized, not whole blocks),
 * TP_ERR_NOMEM. On error the registry is unchanged. */
TP_API tp_status tp_registry_add(tp_registry *r, const tp_weight_desc *d, bool *inserted,
                                 tp_error *err);

/* Register every Param of a graph (bound dims needed for symbolic shapes):
 * a Param with attrs.param.tied_to >= 0 becomes a tied alias of that node's
 * name; the rest are base weights. Constants are not weights here. On an
 * error the Params registered before the failing one stay registered. */
TP_API tp_status tp_registry_add_graph_params(tp_registry *r, const tp_graph *g, tp_error *err);

/* The entry of that exact name, or NULL. */
TP_API const tp_weight_entry *tp_registry_find(const tp_registry *r, const char *name);
/* The storage owner of a name: the entry itself, or for an alias its target
 * (one step — the target is returned even if it is itself an alias).
 * TP_ERR_NOT_FOUND naming the missing name or the missing target. */
TP_API tp_status tp_registry_resolve(const tp_registry *r, const char *name,
                                     const tp_weight_entry **out, tp_error *err);

/* Sum of bytes of every entry that is not a tied alias (LoRA included). */
TP_API uint64_t tp_registry_total_bytes(const tp_registry *r);
/* Sum of bytes of the entries of one kind (aliases: their own nominal bytes). */
TP_API uint64_t tp_registry_kind_bytes(const tp_registry *r, tp_weight_kind kind);
/* Entries in registration order. */
TP_API uint32_t tp_registry_count(const tp_registry *r);
TP_API const tp_weight_entry *tp_registry_entry(const tp_registry *r, uint32_t index);

/* Reference counts on the resolved storage owner. pin: *count_out (nullable)
 * receives the new count; TP_ERR_NOT_FOUND. release: TP_ERR_UNDERFLOW when the
 * count is already 0 (nothing changes), TP_ERR_NOT_FOUND. */
TP_API tp_status tp_registry_pin(tp_registry *r, const char *name, uint64_t *count_out,
                                 tp_error *err);
TP_API tp_status tp_registry_release(tp_registry *r, const char *name, uint64_t *count_out,
                                     tp_error *err);

#ifdef __cplusplus
}
#endif
#endif
