/* A malloc tracer for the onnxruntime memory benchmark (bench/ort_memory/malloc_trace.sh), loaded
 * with LD_PRELOAD into the node process that runs a model (ort_rss.js). It logs every
 * allocation of at least MT_MIN bytes (default 64 KiB) and the free of each such block, and
 * beside each event the state of glibc's heap (mallinfo2: bytes obtained from the system for the
 * heaps, bytes in mmapped chunks, bytes in use, bytes free inside the heaps) and the process's
 * resident set. It is how docs/runtime.md ("Session 15") reads where onnxruntime's resident
 * memory goes while a session is created: which copies of a weight glibc serves by mmap (and
 * returns when freed) and which from the heap (kept resident when freed, as holes that a later
 * request may or may not reuse).
 *
 * One line per event, to the file named by MT_OUT (default /tmp/malloc_trace.txt):
 *   A|F|S ADDRESS SIZE heap BYTES mmap BYTES used BYTES free BYTES rss BYTES tid TID
 * (S: the state when the tracer starts; A: allocation, its state taken after the call; F: free of a
 * traced block, its state taken before the call: both lines count their block). A bench tool, not
 * part of the library: it prints nothing and never changes what the program does, apart from the
 * time the logging takes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_fn)(size_t, size_t);

static malloc_fn real_malloc;
static free_fn real_free;
static calloc_fn real_calloc;
static realloc_fn real_realloc;
static posix_memalign_fn real_posix_memalign;
static aligned_fn real_aligned_alloc, real_memalign;

/* open-addressing table of the traced blocks (address -> size); a removed slot is TOMBSTONE */
#define SLOTS 262144u
#define TOMBSTONE ((void *)1)
static void *slot_ptr[SLOTS];
static size_t slot_size[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -1;
static size_t min_bytes = 65536;
static _Thread_local int in_tracer;

/* dlsym may call calloc before real_calloc is known: serve it from a static buffer */
static unsigned char boot_buf[8192];
static size_t boot_used;

static void resolve(void) {
    if (real_malloc) return;
    real_calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
    real_free = (free_fn)dlsym(RTLD_NEXT, "free");
    real_realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = (posix_memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = (aligned_fn)dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = (aligned_fn)dlsym(RTLD_NEXT, "memalign");
    real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
}

static long resident_bytes(void) {
    int fd = open("/proc/self/statm", O_RDONLY);
    if (fd < 0) return -1;
    char buf[128];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    long size, resident;
    if (sscanf(buf, "%ld %ld", &size, &resident) != 2) return -1;
    return resident * sysconf(_SC_PAGESIZE);
}

/* called with the lock held */
static void log_event(char kind, const void *p, size_t size) {
    if (out_fd < 0) {
        const char *path = getenv("MT_OUT");
        out_fd = open(path ? path : "/tmp/malloc_trace.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out_fd < 0) return;
    }
    struct mallinfo2 mi = mallinfo2();
    char line[256];
    int n = snprintf(
        line, sizeof line, "%c %p %zu heap %zu mmap %zu used %zu free %zu rss %ld tid %ld\n", kind,
        p, size, mi.arena, mi.hblkhd, mi.uordblks, mi.fordblks, resident_bytes(), (long)gettid());
    if (n > 0 && (size_t)n < sizeof line && write(out_fd, line, (size_t)n) < 0) {
        /* nothing to do: a tracer must not change what the program does */
    }
}

static size_t slot_of(const void *p) {
    return (size_t)(((uintptr_t)p >> 4) % SLOTS);
}

static void traced(void *p, size_t size) {
    if (!p || size < min_bytes || in_tracer) return;
    in_tracer = 1;
    pthread_mutex_lock(&lock);
    size_t h = slot_of(p);
    for (size_t k = 0; k < SLOTS; k++, h = (h + 1) % SLOTS)
        if (!slot_ptr[h] || slot_ptr[h] == TOMBSTONE) {
            slot_ptr[h] = p;
            slot_size[h] = size;
            log_event('A', p, size);
            break;
        }
    pthread_mutex_unlock(&lock);
    in_tracer = 0;
}

static void untraced(void *p) {
    if (!p || in_tracer) return;
    in_tracer = 1;
    pthread_mutex_lock(&lock);
    size_t h = slot_of(p);
    for (size_t k = 0; k < SLOTS && slot_ptr[h]; k++, h = (h + 1) % SLOTS)
        if (slot_ptr[h] == p) {
            log_event('F', p, slot_size[h]);
            slot_ptr[h] = TOMBSTONE;
            break;
        }
    pthread_mutex_unlock(&lock);
    in_tracer = 0;
}

static int from_boot(const void *p) {
    return (const unsigned char *)p >= boot_buf &&
           (const unsigned char *)p < boot_buf + sizeof boot_buf;
}

void *malloc(size_t size) {
    resolve();
    void *p = real_malloc(size);
    traced(p, size);
    return p;
}

void *calloc(size_t n, size_t size) {
    if (!real_calloc) { /* inside dlsym, before the real calloc is known */
        size_t bytes = n * size, need = (bytes + 15) & ~(size_t)15;
        if ((size && bytes / size != n) || need > sizeof boot_buf - boot_used) return NULL;
        void *p = boot_buf + boot_used;
        boot_used += need;
        return p;
    }
    void *p = real_calloc(n, size);
    if (p && (!size || n <= SIZE_MAX / size)) traced(p, n * size);
    return p;
}

void free(void *p) {
    if (!p || from_boot(p)) return;
    resolve();
    untraced(p);
    real_free(p);
}

void *realloc(void *old, size_t size) {
    resolve();
    if (old && from_boot(old)) return NULL;
    untraced(old);
    void *p = real_realloc(old, size);
    traced(p, size);
    return p;
}

int posix_memalign(void **out, size_t align, size_t size) {
    resolve();
    int r = real_posix_memalign(out, align, size);
    if (!r) traced(*out, size);
    return r;
}

void *aligned_alloc(size_t align, size_t size) {
    resolve();
    void *p = real_aligned_alloc(align, size);
    traced(p, size);
    return p;
}

void *memalign(size_t align, size_t size) {
    resolve();
    void *p = real_memalign(align, size);
    traced(p, size);
    return p;
}

__attribute__((constructor)) static void start(void) {
    resolve();
    const char *m = getenv("MT_MIN");
    if (m && *m) min_bytes = (size_t)strtoull(m, NULL, 10);
    in_tracer = 1;
    pthread_mutex_lock(&lock);
    log_event('S', NULL, 0); /* the state before the first traced event */
    pthread_mutex_unlock(&lock);
    in_tracer = 0;
}
