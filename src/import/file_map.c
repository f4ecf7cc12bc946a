/* Read-only whole-file memory mapping (POSIX mmap). */
#include "import/file_map.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/mem.h"
#include "core/open_file.h"

tp_status tp__file_map_open(const char *path, const tp_allocator *alloc, tp_file_map **out,
                            tp_error *err) {
    *out = NULL;
    int fd;
    uint64_t size;
    tp_status os = tp__open_regular(path, 0, &fd, &size, err);
    if (os != TP_OK) return os;
    if (size > (uint64_t)SIZE_MAX) {
        close(fd);
        return tp_error_set(err, TP_ERR_OVERFLOW,
                            "'%s' (%llu bytes) does not fit the address space", path,
                            (unsigned long long)size);
    }
    tp_file_map *m = tp_mem_alloc(alloc, sizeof *m);
    if (!m) {
        close(fd);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory mapping '%s'", path);
    }
    m->data = NULL;
    m->size = size;
    m->alloc = alloc;
    if (size > 0) {
        void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            tp_mem_free(alloc, m, sizeof *m);
            return tp_error_set(err, TP_ERR_IO, "cannot map '%s' (%llu bytes): %s", path,
                                (unsigned long long)size, strerror(e));
        }
        /* The decoder touches only message headers and skips weight bytes;
         * without read-ahead a cold open reads a few pages per tensor instead
         * of the whole file. */
        (void)madvise(p, (size_t)size, MADV_RANDOM);
        m->data = p;
    }
    close(fd);
    *out = m;
    return TP_OK;
}

void tp__file_map_close(tp_file_map *m) {
    if (!m) return;
    if (m->data) munmap((void *)(uintptr_t)m->data, (size_t)m->size);
    tp_mem_free(m->alloc, m, sizeof *m);
}

tp_status tp__file_size(const char *path, uint64_t *size, tp_error *err) {
    struct stat st;
    if (stat(path, &st) != 0)
        return tp_error_set(err, errno == ENOENT ? TP_ERR_NOT_FOUND : TP_ERR_IO,
                            "cannot stat '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return tp_error_set(err, TP_ERR_IO, "'%s' is not a regular file", path);
    *size = (uint64_t)st.st_size;
    return TP_OK;
}
