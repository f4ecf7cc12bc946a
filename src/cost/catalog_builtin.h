/* Internal: the built-in catalog text (same content as data/devices/catalog.csv). */
#ifndef TP_COST_CATALOG_BUILTIN_H
#define TP_COST_CATALOG_BUILTIN_H

extern const char tp_catalog_builtin_csv[];

#endif
