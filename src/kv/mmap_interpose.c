/* Interposes libc's mmap and munmap for the whole process, so that the pages of LevelDB's
 * mapped table files can be taken out of the node's resident set (kv_release_mapped).
 *
 * LevelDB (Debian's 1.23) maps every table file it opens for reading (PROT_READ,
 * MAP_SHARED), up to 1000 of them, with no option to read them with pread instead. Each page a
 * lookup or a compaction touches then stays in the process's resident set for as long as
 * the table is open: with a 400 MB chainstate that was 450 MiB of the node's peak RSS, more
 * than its whole coins cache at -dbcache=8. The pages belong to the page cache, which keeps
 * them after they are unmapped from us; only the count is ours.
 *
 * So the executable interposes mmap and munmap (LevelDB calls them through the PLT; glibc's
 * own allocator calls its internal aliases and is not seen): a read-only shared mapping of a
 * file named *.ldb or *.sst is noted in a table, and kv_release_mapped() tells the kernel
 * (MADV_DONTNEED) that the node no longer needs those pages resident. The next read of such a
 * page maps it again from the page cache (a minor fault), reading nothing from disk. munmap
 * takes the table's lock, so a region is never advised after LevelDB unmapped it (its
 * address could by then be someone else's memory, which MADV_DONTNEED would zero).
 *
 * Not built under ASan or TSan, whose runtimes interpose mmap themselves.
 */
#include "kv/kv.h"

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(__linux__)

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/log.h"

#define MAPPED_MAX 4096 /* LevelDB maps at most 1000 per process */

struct mapped {
    void *addr;
    size_t len;
};

static pthread_mutex_t mapped_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mapped mapped_v[MAPPED_MAX];
static size_t mapped_n;

/* Is fd a store's table file? (By its name: the kernel's link for the descriptor.) */
static int is_table_file(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n < 4) {
        return 0;
    }
    path[n] = 0;
    return strcmp(path + n - 4, ".ldb") == 0 || strcmp(path + n - 4, ".sst") == 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && fd >= 0 && prot == PROT_READ && (flags & MAP_SHARED) &&
        is_table_file(fd)) {
        pthread_mutex_lock(&mapped_mu);
        if (mapped_n < MAPPED_MAX) {
            mapped_v[mapped_n].addr = p;
            mapped_v[mapped_n].len = len;
            mapped_n++;
        }
        pthread_mutex_unlock(&mapped_mu);
    }
    return p;
}

int munmap(void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr, e = a + len;
    pthread_mutex_lock(&mapped_mu);
    for (size_t i = 0; i < mapped_n;) {
        uintptr_t ma = (uintptr_t)mapped_v[i].addr, me = ma + mapped_v[i].len;
        if (ma < e && a < me) {
            mapped_v[i] = mapped_v[--mapped_n]; /* any overlap: forgotten whole */
        } else {
            i++;
        }
    }
    int rc = (int)syscall(SYS_munmap, addr, len);
    pthread_mutex_unlock(&mapped_mu);
    return rc;
}

/* The process's resident file-backed (and shared) pages, in bytes: /proc/self/statm's third
 * field. SIZE_MAX if it cannot be read (then release anyway). */
static size_t resident_shared(void)
{
    char buf[128];
    FILE *f = fopen("/proc/self/statm", "re");
    if (!f) {
        return SIZE_MAX;
    }
    unsigned long size, res, shared;
    int n = fgets(buf, sizeof(buf), f) ? sscanf(buf, "%lu %lu %lu", &size, &res, &shared) : 0;
    fclose(f);
    return n == 3 ? (size_t)shared * (size_t)sysconf(_SC_PAGESIZE) : SIZE_MAX;
}

size_t kv_release_mapped(size_t above)
{
    size_t bytes = 0;
    if (above > 0 && resident_shared() <= above) {
        return 0;
    }
    static atomic_int told;
    size_t n;
    pthread_mutex_lock(&mapped_mu);
    n = mapped_n;
    for (size_t i = 0; i < mapped_n; i++) {
        if (madvise(mapped_v[i].addr, mapped_v[i].len, MADV_DONTNEED) == 0) {
            bytes += mapped_v[i].len;
        }
    }
    pthread_mutex_unlock(&mapped_mu);
    /* Once, so that an operator who wonders at a process-wide mmap override sees it. */
    if (bytes && !atomic_exchange(&told, 1)) {
        LOG_INFO("mmap and munmap are interposed: the pages of LevelDB's %zu mapped table "
                 "files are released from the resident set past %zu MiB (kv/mmap_interpose.c)",
                 n, above >> 20);
    }
    return bytes;
}

#else

size_t kv_release_mapped(size_t above)
{
    (void)above;
    return 0;
}

#endif
