/* Opening regular files only (see open_file.h). */
#include "core/open_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_type(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO or pipe";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

tp_status tp__open_regular(const char *path, uint64_t max_bytes, int *fd, uint64_t *size,
                           tp_error *err) {
    *fd = -1;
    *size = 0;
    if (!path) return tp_error_set(err, TP_ERR_INVALID, "NULL path");
    int d = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (d < 0)
        return tp_error_set(err, errno == ENOENT ? TP_ERR_NOT_FOUND : TP_ERR_IO,
                            "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(d, &st) != 0) {
        int e = errno;
        close(d);
        return tp_error_set(err, TP_ERR_IO, "cannot stat '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(d);
        return tp_error_set(err, TP_ERR_IO, "'%s' is %s, not a regular file", path,
                            file_type(st.st_mode));
    }
    uint64_t n = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    if (max_bytes > 0 && n > max_bytes) {
        close(d);
        return tp_error_set(err, TP_ERR_IO, "'%s' is %llu bytes, over the limit of %llu bytes",
                            path, (unsigned long long)n, (unsigned long long)max_bytes);
    }
    int fl = fcntl(d, F_GETFL);
    if (fl < 0 || fcntl(d, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(d);
        return tp_error_set(err, TP_ERR_IO, "cannot set '%s' blocking: %s", path, strerror(e));
    }
    *fd = d;
    *size = n;
    return TP_OK;
}

tp_status tp__fopen_regular(const char *path, uint64_t max_bytes, FILE **f, uint64_t *size,
                            tp_error *err) {
    *f = NULL;
    int d;
    tp_status s = tp__open_regular(path, max_bytes, &d, size, err);
    if (s != TP_OK) return s;
    *f = fdopen(d, "rb");
    if (!*f) {
        int e = errno;
        close(d);
        return tp_error_set(err, TP_ERR_IO, "cannot read '%s': %s", path, strerror(e));
    }
    return TP_OK;
}
