/* Status names and descriptions, generated from the X-macro list in core.h. */
#include "tensorplan/core.h"

static const char *const status_desc[] = {
#define TP_STATUS_DESC_(name, desc) desc,
    TP_STATUS_LIST(TP_STATUS_DESC_)
#undef TP_STATUS_DESC_
};

static const char *const status_name[] = {
#define TP_STATUS_NAME_(name, desc) "TP_ERR_" #name,
    TP_STATUS_LIST(TP_STATUS_NAME_)
#undef TP_STATUS_NAME_
};

const char *tp_status_str(tp_status s) {
    if ((unsigned)s >= (unsigned)TP_STATUS_COUNT) return "unknown status";
    return status_desc[s];
}

const char *tp_status_name(tp_status s) {
    if (s == TP_STATUS_OK) return "TP_OK";
    if ((unsigned)s >= (unsigned)TP_STATUS_COUNT) return "TP_ERR_UNKNOWN";
    return status_name[s];
}

const char *tp_version(void) {
    return TP_VERSION_STRING;
}
