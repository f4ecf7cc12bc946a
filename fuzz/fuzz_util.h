/* Helpers shared by the fuzz targets whose parsers take file paths (GGUF,
 * calibration cache, sysmem): a private temporary directory per process, files
 * written into it, and splitting one fuzz input into several files.
 *
 * Header-only (static inline) because tests/test_fuzz_replay.c compiles every
 * fuzz_<x>.c into one translation unit; names carry an fz_ prefix so that the
 * targets do not collide there. The directory ($TMPDIR, else /dev/shm, else
 * /tmp: "tp-fuzz-XXXXXX") and everything written into it are removed at exit.
 * Failing to create or write a temporary file aborts: a fuzz run or a replay
 * must not silently test nothing. */
#ifndef TP_FUZZ_UTIL_H
#define TP_FUZZ_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FZ_MAX_ENTRIES 64

typedef struct fz_state {
    char dir[512];
    char rel[FZ_MAX_ENTRIES][64]; /* created entries, in creation order */
    bool is_dir[FZ_MAX_ENTRIES];
    int n;
} fz_state;

static fz_state fz_st;

static inline void fz_die(const char *what, const char *path) {
    fprintf(stderr, "fuzz: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

static inline void fz_cleanup(void) {
    char path[1024];
    for (int i = fz_st.n - 1; i >= 0; i--) {
        snprintf(path, sizeof path, "%s/%s", fz_st.dir, fz_st.rel[i]);
        if (fz_st.is_dir[i])
            rmdir(path);
        else
            unlink(path);
    }
    if (fz_st.dir[0]) rmdir(fz_st.dir);
}

/* The process's temporary directory (created on first use). */
static inline const char *fz_tmpdir(void) {
    if (fz_st.dir[0]) return fz_st.dir;
    /* tmpfs first: on a disk file system the writes cost about 5x the parse */
    const char *t = getenv("TMPDIR");
    if (!t || t[0] != '/' || strlen(t) > 400)
        t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fz_st.dir, sizeof fz_st.dir, "%s/tp-fuzz-XXXXXX", t);
    if (!mkdtemp(fz_st.dir)) fz_die("cannot create directory", fz_st.dir);
    atexit(fz_cleanup);
    return fz_st.dir;
}

static inline void fz_remember(const char *rel, bool is_dir) {
    for (int i = 0; i < fz_st.n; i++)
        if (strcmp(fz_st.rel[i], rel) == 0) return;
    if (fz_st.n == FZ_MAX_ENTRIES || strlen(rel) >= sizeof fz_st.rel[0]) {
        fprintf(stderr, "fuzz: too many temporary entries (%s)\n", rel);
        abort();
    }
    snprintf(fz_st.rel[fz_st.n], sizeof fz_st.rel[0], "%s", rel);
    fz_st.is_dir[fz_st.n++] = is_dir;
}

/* The path of rel inside the temporary directory, written to buf. */
static inline const char *fz_path(const char *rel, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", fz_tmpdir(), rel);
    return buf;
}

/* Create the subdirectory rel (one level; its parent must exist). */
static inline void fz_mkdir(const char *rel) {
    char path[1024];
    fz_path(rel, path, sizeof path);
    if (mkdir(path, 0700) != 0 && errno != EEXIST) fz_die("cannot create directory", path);
    fz_remember(rel, true);
}

/* Replace the file rel with data[0..n); returns its path in buf. */
static inline const char *fz_write(const char *rel, const uint8_t *data, size_t n, char *buf,
                                   size_t cap) {
    fz_path(rel, buf, cap);
    fz_remember(rel, false);
    int fd = open(buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fz_die("cannot create", buf);
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) fz_die("cannot write", buf);
        data += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0) fz_die("cannot close", buf);
    return buf;
}

/* Remove the file rel if present (a part the input leaves out). */
static inline void fz_unlink(const char *rel) {
    char path[1024];
    fz_path(rel, path, sizeof path);
    if (unlink(path) != 0 && errno != ENOENT) fz_die("cannot remove", path);
}

/* One piece of a split input. */
typedef struct fz_part {
    const uint8_t *p;
    size_t n;
} fz_part;

/* The separator between the files of one input: a line "--8<--". */
#define FZ_SEP "\n--8<--\n"

/* Split data at FZ_SEP into at most max parts (the last part keeps any further
 * separators); returns the number of parts (>= 1). */
static inline int fz_split(const uint8_t *data, size_t size, fz_part *parts, int max) {
    const size_t sl = sizeof FZ_SEP - 1;
    int k = 0;
    for (;;) {
        const uint8_t *hit = NULL;
        if (k < max - 1 && size >= sl)
            for (size_t i = 0; i + sl <= size; i++)
                if (data[i] == '\n' && memcmp(data + i, FZ_SEP, sl) == 0) {
                    hit = data + i;
                    break;
                }
        if (!hit) {
            parts[k].p = data;
            parts[k].n = size;
            return k + 1;
        }
        parts[k].p = data;
        parts[k].n = (size_t)(hit - data);
        k++;
        size -= parts[k - 1].n + sl;
        data = hit + sl;
    }
}

/* A part that stands for "no such file": exactly "-". */
static inline bool fz_absent(const fz_part *p) {
    return p->n == 1 && p->p[0] == '-';
}

#endif
