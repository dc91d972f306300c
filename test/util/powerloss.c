/* powerloss.so: an LD_PRELOAD layer that lets a SIGKILL stand for a power cut.
 *
 * A killed process keeps the page cache: everything it wrote survives, synced or not, so a
 * kill tests nothing about the order of fsyncs. Under this layer every change to the files
 * under POWERLOSS_DIR first saves, in a journal outside it (POWERLOSS_JOURNAL, see
 * powerloss.h), what a power cut would bring back; after the kill, `powerloss-restore
 * restore JOURNAL` rolls the tree back to what the syncs made durable.
 *
 * The model (a journalling file system such as ext4 data=ordered or XFS, with no
 * write-back of its own):
 * - File data: a write (write, pwrite, writev, pwritev, ftruncate, truncate, fallocate,
 *   posix_fallocate, an open with O_TRUNC) is lost unless an fsync or fdatasync of that file
 *   (any descriptor of it) returned after it. The file then has its size and bytes as at
 *   its last sync; a file created since holds nothing. Bytes are saved before they change,
 *   the first time only, so a kill between the save and the write restores the same bytes.
 *   A write on an O_SYNC/O_DSYNC descriptor is durable when it returns, and counts as a
 *   sync of the file. sync_file_range and msync make nothing durable (they are counted).
 * - Directory operations (create, mkdir, rmdir, unlink, rename): durable, in the order
 *   made, at the next successful fsync or fdatasync of anything in the tree, or syncfs or
 *   sync: a journalling file system commits its metadata journal, which holds every earlier
 *   operation, on any fsync. Those made after the last such call are undone. (Stricter
 *   than ext4, which also commits every few seconds.)
 * - With POWERLOSS_DIRSYNC=strict, POSIX's own rule for names instead: a file's creation,
 *   rename or unlink is durable only once its folder (both folders, for a rename) was
 *   fsync'd after it, or at syncfs or sync; an fsync of the file makes its bytes durable,
 *   not its name. Folders themselves (mkdir, rmdir) count as durable at once: the node and
 *   the four stores, like Core, create their folders without syncing the parent, so a cut
 *   in a first run would otherwise take the whole datadir, which only says a first run
 *   starts again.
 * - Writes through stdio (fwrite: glibc calls its own write, not ours), through a shared
 *   writable mapping, or by another process are not seen: those files count as durable. In
 *   the node only debug.log and the pid file are written so; LMDB runs without
 *   MDB_WRITEMAP, BDB with DB_PRIVATE (no region files), so no store writes by mapping.
 *
 * Each call is counted per kind of file in the journal's `counts` (powerloss.h). Without
 * POWERLOSS_DIR and POWERLOSS_JOURNAL set the layer only passes calls on.
 *
 * Not part of the node: built as a test tool (test/util/include.am).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "powerloss.h"

#define EXPORT __attribute__((visibility("default")))

/* The real calls. */
static ssize_t (*r_write)(int, const void *, size_t);
static ssize_t (*r_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*r_writev)(int, const struct iovec *, int);
static ssize_t (*r_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*r_pwritev2)(int, const struct iovec *, int, off_t, int);
static int (*r_ftruncate)(int, off_t);
static int (*r_truncate)(const char *, off_t);
static int (*r_fallocate)(int, int, off_t, off_t);
static int (*r_posix_fallocate)(int, off_t, off_t);
static int (*r_fsync)(int);
static int (*r_fdatasync)(int);
static int (*r_sync_file_range)(int, off_t, off_t, unsigned int);
static int (*r_msync)(void *, size_t, int);
static int (*r_syncfs)(int);
static void (*r_sync)(void);
static int (*r_open)(const char *, int, ...);
static int (*r_openat)(int, const char *, int, ...);
static int (*r_creat)(const char *, mode_t);
static int (*r_mkdir)(const char *, mode_t);
static int (*r_mkdirat)(int, const char *, mode_t);
static int (*r_rmdir)(const char *);
static int (*r_unlink)(const char *);
static int (*r_unlinkat)(int, const char *, int);
static int (*r_remove)(const char *);
static int (*r_rename)(const char *, const char *);
static int (*r_renameat)(int, const char *, int, const char *);
static int (*r_renameat2)(int, const char *, int, const char *, unsigned int);

/* One file (by inode) of the tree that was written since the layer started. */
struct ent {
    uint64_t dev, ino;
    pthread_mutex_t mu; /* held across a write and its save, and across an fsync */
    int dirty;          /* changed since its last sync: jfd is its journal */
    int jfd;
    uint64_t synced;    /* its size at the last sync */
    uint64_t (*iv)[2];  /* ranges below `synced` already saved, sorted, disjoint */
    size_t niv, civ;
    int slot;           /* its counter */
    char path[PL_PATH_MAX];
    struct ent *next;
};

#define NBUCKET 1024
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int active;
static int strict; /* POWERLOSS_DIRSYNC=strict: a name is durable once its folder is synced */
static char root[PL_PATH_MAX], jdir[PL_PATH_MAX];
static size_t root_len;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER; /* the table, dirops, counts */
static struct ent *table[NBUCKET];
static int dirops_fd = -1;
static uint64_t saved_seq;
static struct pl_counts *counts;

#define REAL(name) r_##name = dlsym(RTLD_NEXT, #name)

static void init(void)
{
    REAL(write), REAL(pwrite), REAL(writev), REAL(pwritev), REAL(pwritev2), REAL(ftruncate);
    REAL(truncate), REAL(fallocate), REAL(posix_fallocate), REAL(fsync), REAL(fdatasync);
    REAL(sync_file_range), REAL(msync), REAL(syncfs), REAL(sync), REAL(open), REAL(openat);
    REAL(creat), REAL(mkdir), REAL(mkdirat), REAL(rmdir), REAL(unlink), REAL(unlinkat);
    REAL(remove), REAL(rename), REAL(renameat), REAL(renameat2);
    const char *d = getenv("POWERLOSS_DIR"), *j = getenv("POWERLOSS_JOURNAL");
    if (!d || !j || !realpath(d, root) || !realpath(j, jdir)) {
        return;
    }
    root_len = strlen(root);
    const char *m = getenv("POWERLOSS_DIRSYNC");
    strict = m && strcmp(m, "strict") == 0;
    char p[PL_PATH_MAX + 16];
    snprintf(p, sizeof(p), "%s/saved", jdir);
    r_mkdir(p, 0700);
    snprintf(p, sizeof(p), "%s/dirops", jdir);
    dirops_fd = r_open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    snprintf(p, sizeof(p), "%s/counts", jdir);
    int fd = r_open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (dirops_fd < 0 || fd < 0 || r_ftruncate(fd, sizeof(struct pl_counts)) != 0) {
        fprintf(stderr, "powerloss: cannot use the journal %s: %s\n", jdir, strerror(errno));
        abort();
    }
    counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (counts == MAP_FAILED) {
        abort();
    }
    if (memcmp(counts->magic, PL_COUNTS_MAGIC, 8) != 0) {
        memset(counts, 0, sizeof(*counts));
        memcpy(counts->magic, PL_COUNTS_MAGIC, 8);
    }
    /* Numbers of saved links go on after those a previous run left. */
    saved_seq = (uint64_t)getpid() << 32;
    active = 1;
}

static int on(void)
{
    pthread_once(&once, init);
    return active;
}

/* Every wrapper resolves the real calls first (on()); this does it at load time too. */
__attribute__((constructor)) static void load(void)
{
    on();
}

static void die(const char *what)
{
    fprintf(stderr, "powerloss: %s: %s\n", what, strerror(errno));
    abort();
}

static void write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = r_write(fd, c, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            die("writing the journal");
        }
        c += w;
        n -= (size_t)w;
    }
}

static int under_root(const char *path)
{
    return strncmp(path, root, root_len) == 0 && (path[root_len] == '/' || !path[root_len]);
}

/* The counter of a path: "<folder>:<kind>" below the tree (and the chain's folder). */
static int slot_for(const char *path, int is_dir)
{
    char label[PL_LABEL], folder[PL_PATH_MAX];
    const char *rel = under_root(path) ? path + root_len : path;
    rel += *rel == '/';
    static const char *chains[] = {"regtest/", "testnet3/", "testnet4/", "signet/"};
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        size_t n = strlen(chains[i]);
        if (strncmp(rel, chains[i], n) == 0) {
            rel += n;
        }
    }
    const char *kind = "dir", *base = strrchr(rel, '/');
    snprintf(folder, sizeof(folder), "%.*s", is_dir ? (int)strlen(rel) : base ? (int)(base - rel) : 0,
             rel);
    base = base ? base + 1 : rel;
    if (!is_dir) {
        size_t n = strlen(base);
        kind = strncmp(base, "blk", 3) == 0 ? "blk"
               : strncmp(base, "rev", 3) == 0 ? "rev"
               : strncmp(base, "MANIFEST", 8) == 0 ? "MANIFEST"
               : strncmp(base, "OPTIONS", 7) == 0 ? "OPTIONS"
               : strncmp(base, "log.", 4) == 0 ? "log"
               : n > 4 && strcmp(base + n - 4, ".log") == 0 ? "log"
               : n > 4 && (strcmp(base + n - 4, ".ldb") == 0 || strcmp(base + n - 4, ".sst") == 0)
                   ? "table"
                   : base;
    }
    snprintf(label, sizeof(label), "%.30s:%.24s", folder[0] ? folder : ".", kind);
    for (uint32_t i = 0; i < counts->n; i++) {
        if (strcmp(counts->slot[i].label, label) == 0) {
            return (int)i;
        }
    }
    if (counts->n == PL_SLOTS) {
        return PL_SLOTS - 1;
    }
    snprintf(counts->slot[counts->n].label, PL_LABEL, "%s", label);
    return (int)counts->n++;
}

/* The path a descriptor was opened as ("" if it is gone or unknown). */
static void fd_path(int fd, char *out, size_t n)
{
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, out, n - 1);
    out[k > 0 ? k : 0] = 0;
    if (k > 10 && strcmp(out + k - 10, " (deleted)") == 0) {
        out[0] = 0;
    }
}

/* An absolute path for (dirfd, path), its last part left as it is (a symbolic link is not
 * followed there). */
static int abs_path(int dirfd, const char *path, char *out, size_t n)
{
    char base[PL_PATH_MAX], dir[2 * PL_PATH_MAX + 2], real[PL_PATH_MAX];
    if (path[0] == '/') {
        snprintf(dir, sizeof(dir), "%s", path);
    } else {
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof(base))) {
                return -1;
            }
        } else {
            fd_path(dirfd, base, sizeof(base));
        }
        snprintf(dir, sizeof(dir), "%s/%s", base, path);
    }
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') {
        dir[--len] = 0;
    }
    char *slash = strrchr(dir, '/');
    if (!slash) {
        return -1;
    }
    *slash = 0;
    if (!realpath(dir[0] ? dir : "/", real)) {
        return -1;
    }
    int k = snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", slash + 1);
    return k > 0 && (size_t)k < n ? 0 : -1;
}

static struct ent **bucket(uint64_t dev, uint64_t ino)
{
    return &table[(ino * 31 + dev) % NBUCKET];
}

/* The entry of an inode (created with `path`); under g_mu. */
static struct ent *ent_get(uint64_t dev, uint64_t ino, const char *path)
{
    struct ent **b = bucket(dev, ino), *e;
    for (e = *b; e; e = e->next) {
        if (e->dev == dev && e->ino == ino) {
            return e;
        }
    }
    if (!path) {
        return NULL;
    }
    e = calloc(1, sizeof(*e));
    if (!e) {
        die("calloc");
    }
    e->dev = dev, e->ino = ino, e->jfd = -1;
    pthread_mutex_init(&e->mu, NULL);
    snprintf(e->path, sizeof(e->path), "%s", path);
    e->slot = slot_for(path, 0);
    e->next = *b;
    *b = e;
    return e;
}

/* The entry of a regular file of the tree open as fd, locked (NULL: not ours). */
static struct ent *ent_lock_fd(int fd, struct stat *st)
{
    if (!on() || fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        return NULL;
    }
    pthread_mutex_lock(&g_mu);
    struct ent *e = ent_get(st->st_dev, st->st_ino, NULL);
    if (!e || !e->path[0]) {
        /* New, or an inode used again after its file's removal became durable. */
        char path[PL_PATH_MAX];
        fd_path(fd, path, sizeof(path));
        if (!path[0] || !under_root(path)) {
            e = NULL;
        } else if (!e) {
            e = ent_get(st->st_dev, st->st_ino, path);
        } else {
            snprintf(e->path, sizeof(e->path), "%s", path);
            e->slot = slot_for(path, 0);
        }
    }
    pthread_mutex_unlock(&g_mu);
    if (e) {
        pthread_mutex_lock(&e->mu);
    }
    return e;
}

static void head_write(struct ent *e)
{
    struct pl_fhead h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, PL_FHEAD_MAGIC, 8);
    h.dev = e->dev, h.ino = e->ino, h.synced_size = e->synced;
    snprintf(h.path, sizeof(h.path), "%s", e->path);
    if (r_pwrite(e->jfd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
        die("writing a journal header");
    }
}

/* The first change since the file's last sync: its size now is its synced size. */
static void ent_begin(struct ent *e, int fd, const struct stat *st)
{
    if (e->dirty) {
        return;
    }
    char p[PL_PATH_MAX + 64], now[PL_PATH_MAX];
    fd_path(fd, now, sizeof(now));
    if (now[0] && under_root(now)) {
        snprintf(e->path, sizeof(e->path), "%s", now);
    }
    snprintf(p, sizeof(p), "%s/f.%llu.%llu", jdir, (unsigned long long)e->dev,
             (unsigned long long)e->ino);
    e->jfd = r_open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (e->jfd < 0) {
        die("creating a file journal");
    }
    e->synced = (uint64_t)st->st_size;
    e->niv = 0;
    head_write(e);
    if (lseek(e->jfd, sizeof(struct pl_fhead), SEEK_SET) < 0) {
        die("lseek");
    }
    e->dirty = 1;
}

/* Saves what [a, b) held at the last sync, once. */
static void save_range(struct ent *e, int fd, uint64_t a, uint64_t b)
{
    if (b <= a) {
        return;
    }
    int rfd = fd, fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY) {
        char link[64];
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        if ((rfd = r_open(link, O_RDONLY | O_CLOEXEC)) < 0) {
            die("reopening a file to save its bytes");
        }
    }
    char *buf = malloc(b - a);
    if (!buf) {
        die("malloc");
    }
    uint64_t got = 0;
    while (got < b - a) {
        ssize_t k = pread(rfd, buf + got, b - a - got, (off_t)(a + got));
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            break; /* the file is shorter than its synced size (truncated, not ours) */
        }
        got += (uint64_t)k;
    }
    if (got) {
        struct pl_frec r = {a, got};
        write_all(e->jfd, &r, sizeof(r));
        write_all(e->jfd, buf, got);
    }
    free(buf);
    if (rfd != fd) {
        close(rfd);
    }
}

/* Saves the parts of [off, off + len) below the synced size not saved yet. */
static void ent_save(struct ent *e, int fd, uint64_t off, uint64_t len)
{
    uint64_t end = off + len < e->synced ? off + len : e->synced;
    if (off >= end) {
        return;
    }
    uint64_t at = off;
    size_t i = 0;
    while (i < e->niv && e->iv[i][1] <= at) {
        i++;
    }
    for (; at < end; i++) {
        uint64_t next = i < e->niv ? e->iv[i][0] : UINT64_MAX;
        if (at < next) {
            save_range(e, fd, at, next < end ? next : end);
        }
        if (i >= e->niv) {
            break;
        }
        at = e->iv[i][1] > at ? e->iv[i][1] : at;
    }
    /* [off, end) is now saved: merge it into the ranges. */
    size_t lo = 0;
    while (lo < e->niv && e->iv[lo][1] < off) {
        lo++;
    }
    size_t hi = lo;
    uint64_t a = off, b = end;
    while (hi < e->niv && e->iv[hi][0] <= end) {
        a = e->iv[hi][0] < a ? e->iv[hi][0] : a;
        b = e->iv[hi][1] > b ? e->iv[hi][1] : b;
        hi++;
    }
    if (hi == lo) {
        if (e->niv == e->civ) {
            e->civ = e->civ ? 2 * e->civ : 16;
            e->iv = realloc(e->iv, e->civ * sizeof(*e->iv));
            if (!e->iv) {
                die("realloc");
            }
        }
        memmove(&e->iv[lo + 1], &e->iv[lo], (e->niv - lo) * sizeof(*e->iv));
        e->niv++;
    } else {
        memmove(&e->iv[lo + 1], &e->iv[hi], (e->niv - hi) * sizeof(*e->iv));
        e->niv -= hi - lo - 1;
    }
    e->iv[lo][0] = a, e->iv[lo][1] = b;
}

/* The file is durable as it is now (under e->mu). */
static void ent_clean(struct ent *e)
{
    if (!e->dirty) {
        return;
    }
    char p[PL_PATH_MAX + 64];
    snprintf(p, sizeof(p), "%s/f.%llu.%llu", jdir, (unsigned long long)e->dev,
             (unsigned long long)e->ino);
    close(e->jfd);
    e->jfd = -1;
    r_unlink(p);
    e->dirty = 0;
    e->niv = 0;
}

/* Every pending directory operation is durable: the metadata journal was committed. */
static void commit_locked(void)
{
    char p[PL_PATH_MAX + 64], saved[PL_PATH_MAX + 16];
    if (r_ftruncate(dirops_fd, 0) != 0) {
        die("emptying dirops");
    }
    snprintf(saved, sizeof(saved), "%s/saved/", jdir);
    for (size_t b = 0; b < NBUCKET; b++) {
        for (struct ent *e = table[b]; e; e = e->next) {
            if (strncmp(e->path, saved, strlen(saved)) == 0) {
                pthread_mutex_lock(&e->mu);
                ent_clean(e); /* gone for good: its unsynced bytes do not matter */
                e->path[0] = 0;
                pthread_mutex_unlock(&e->mu);
            }
        }
    }
    DIR *d = opendir(saved);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] != '.') {
            snprintf(p, sizeof(p), "%s%s", saved, de->d_name);
            r_unlink(p);
        }
    }
    if (d) {
        closedir(d);
    }
    counts->commits++;
}

static void dirop(const char *fmt, ...)
{
    char line[3 * PL_PATH_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n <= 0 || (size_t)n >= sizeof(line)) {
        die("a directory operation too long to journal");
    }
    write_all(dirops_fd, line, (size_t)n);
}

/* Keeps the file at `path` (regular) as a hard link in saved/; its entry follows it.
 * Under g_mu. Returns 0 and the link's path, or -1 (nothing to keep). */
static int keep(const char *path, char *saved, size_t n)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        return -1;
    }
    snprintf(saved, n, "%s/saved/%llu", jdir, (unsigned long long)++saved_seq);
    if (link(path, saved) != 0) {
        die("linking a file into the journal (same file system?)");
    }
    struct ent *e = ent_get(st.st_dev, st.st_ino, NULL);
    if (e) {
        pthread_mutex_lock(&e->mu);
        snprintf(e->path, sizeof(e->path), "%s", saved);
        if (e->dirty) {
            head_write(e);
        }
        pthread_mutex_unlock(&e->mu);
    }
    return 0;
}

/* ---- file data ---- */

static void count_write(struct ent *e, size_t n)
{
    __atomic_add_fetch(&counts->slot[e->slot].writes, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&counts->slot[e->slot].bytes, n, __ATOMIC_RELAXED);
}

/* After a write on fd: durable at once on an O_SYNC/O_DSYNC descriptor. */
static void after_write(struct ent *e, int fd, ssize_t w)
{
    if (w <= 0) {
        return;
    }
    count_write(e, (size_t)w);
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & (O_DSYNC | O_SYNC))) {
        __atomic_add_fetch(&counts->slot[e->slot].dsync_writes, 1, __ATOMIC_RELAXED);
        ent_clean(e);
    }
}

/* Before writing len bytes at the descriptor's offset (or its end, with O_APPEND). */
static uint64_t cur_off(int fd, const struct stat *st)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_APPEND)) {
        return (uint64_t)st->st_size;
    }
    off_t o = lseek(fd, 0, SEEK_CUR);
    return o < 0 ? 0 : (uint64_t)o;
}

static size_t iov_len(const struct iovec *iov, int n)
{
    size_t t = 0;
    for (int i = 0; i < n; i++) {
        t += iov[i].iov_len;
    }
    return t;
}

EXPORT ssize_t write(int fd, const void *p, size_t n)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return r_write(fd, p, n);
    }
    ent_begin(e, fd, &st);
    ent_save(e, fd, cur_off(fd, &st), n);
    ssize_t w = r_write(fd, p, n);
    after_write(e, fd, w);
    pthread_mutex_unlock(&e->mu);
    return w;
}

EXPORT ssize_t pwrite(int fd, const void *p, size_t n, off_t off)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return r_pwrite(fd, p, n, off);
    }
    ent_begin(e, fd, &st);
    ent_save(e, fd, (uint64_t)off, n);
    ssize_t w = r_pwrite(fd, p, n, off);
    after_write(e, fd, w);
    pthread_mutex_unlock(&e->mu);
    return w;
}

EXPORT ssize_t pwrite64(int fd, const void *p, size_t n, off_t off)
{
    return pwrite(fd, p, n, off);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return r_writev(fd, iov, cnt);
    }
    ent_begin(e, fd, &st);
    ent_save(e, fd, cur_off(fd, &st), iov_len(iov, cnt));
    ssize_t w = r_writev(fd, iov, cnt);
    after_write(e, fd, w);
    pthread_mutex_unlock(&e->mu);
    return w;
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return r_pwritev(fd, iov, cnt, off);
    }
    ent_begin(e, fd, &st);
    ent_save(e, fd, (uint64_t)off, iov_len(iov, cnt));
    ssize_t w = r_pwritev(fd, iov, cnt, off);
    after_write(e, fd, w);
    pthread_mutex_unlock(&e->mu);
    return w;
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    return pwritev(fd, iov, cnt, off);
}

EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return r_pwritev2(fd, iov, cnt, off, flags);
    }
    ent_begin(e, fd, &st);
    ent_save(e, fd, off == -1 ? cur_off(fd, &st) : (uint64_t)off, iov_len(iov, cnt));
    ssize_t w = r_pwritev2(fd, iov, cnt, off, flags);
    after_write(e, fd, w);
    pthread_mutex_unlock(&e->mu);
    return w;
}

EXPORT int ftruncate(int fd, off_t len)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return r_ftruncate(fd, len);
    }
    ent_begin(e, fd, &st);
    ent_save(e, fd, (uint64_t)len, UINT64_MAX / 2);
    int rc = r_ftruncate(fd, len);
    count_write(e, 0);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

EXPORT int ftruncate64(int fd, off_t len)
{
    return ftruncate(fd, len);
}

EXPORT int truncate(const char *path, off_t len)
{
    if (!on()) {
        return r_truncate(path, len);
    }
    int fd = r_open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        return r_truncate(path, len);
    }
    int rc = ftruncate(fd, len);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

EXPORT int truncate64(const char *path, off_t len)
{
    return truncate(path, len);
}

/* Preallocation can change the size (mode 0) or the bytes (punching, zeroing, collapsing,
 * inserting): whatever it changes from off on is saved first. */
static int falloc(int fd, int mode, off_t off, off_t len, int posix)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return posix ? r_posix_fallocate(fd, off, len) : r_fallocate(fd, mode, off, len);
    }
    ent_begin(e, fd, &st);
    if (mode & ~(int)1 /* FALLOC_FL_KEEP_SIZE */) {
        ent_save(e, fd, (uint64_t)off, UINT64_MAX / 2);
    }
    int rc = posix ? r_posix_fallocate(fd, off, len) : r_fallocate(fd, mode, off, len);
    count_write(e, 0);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

EXPORT int fallocate(int fd, int mode, off_t off, off_t len)
{
    return falloc(fd, mode, off, len, 0);
}

EXPORT int fallocate64(int fd, int mode, off_t off, off_t len)
{
    return falloc(fd, mode, off, len, 0);
}

EXPORT int posix_fallocate(int fd, off_t off, off_t len)
{
    return falloc(fd, 0, off, len, 1);
}

EXPORT int posix_fallocate64(int fd, off_t off, off_t len)
{
    return falloc(fd, 0, off, len, 1);
}

/* ---- syncs ---- */

static int do_sync(int fd, int data_only)
{
    struct stat st;
    if (!on() || fstat(fd, &st) != 0) {
        return data_only ? r_fdatasync(fd) : r_fsync(fd);
    }
    if (S_ISDIR(st.st_mode)) {
        char path[PL_PATH_MAX];
        fd_path(fd, path, sizeof(path));
        int rc = data_only ? r_fdatasync(fd) : r_fsync(fd);
        if (path[0] && under_root(path)) {
            pthread_mutex_lock(&g_mu);
            struct pl_count *c = &counts->slot[slot_for(path, 1)];
            data_only ? c->fdatasync++ : c->fsync++;
            if (rc == 0 && strict) {
                dirop("K\t%s\n", path); /* the folder's operations so far are durable */
            } else if (rc == 0) {
                commit_locked();
            }
            pthread_mutex_unlock(&g_mu);
        }
        return rc;
    }
    struct ent *e = ent_lock_fd(fd, &st);
    if (!e) {
        return data_only ? r_fdatasync(fd) : r_fsync(fd);
    }
    int rc = data_only ? r_fdatasync(fd) : r_fsync(fd);
    if (rc == 0) {
        ent_clean(e);
    }
    pthread_mutex_unlock(&e->mu);
    pthread_mutex_lock(&g_mu);
    struct pl_count *c = &counts->slot[e->slot];
    data_only ? c->fdatasync++ : c->fsync++;
    if (rc == 0 && !strict) {
        commit_locked();
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

EXPORT int fsync(int fd)
{
    return do_sync(fd, 0);
}

EXPORT int fdatasync(int fd)
{
    return do_sync(fd, 1);
}

EXPORT int sync_file_range(int fd, off_t off, off_t n, unsigned int flags)
{
    struct stat st;
    struct ent *e = ent_lock_fd(fd, &st);
    if (e) {
        __atomic_add_fetch(&counts->slot[e->slot].range_syncs, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&e->mu);
    }
    return r_sync_file_range(fd, off, n, flags);
}

EXPORT int msync(void *addr, size_t len, int flags)
{
    if (on()) {
        __atomic_add_fetch(&counts->msyncs, 1, __ATOMIC_RELAXED);
    }
    return r_msync(addr, len, flags);
}

/* Everything is durable: every file's journal goes, and the pending directory operations. */
static void sync_all(void)
{
    pthread_mutex_lock(&g_mu);
    for (size_t b = 0; b < NBUCKET; b++) {
        for (struct ent *e = table[b]; e; e = e->next) {
            pthread_mutex_lock(&e->mu);
            ent_clean(e);
            pthread_mutex_unlock(&e->mu);
        }
    }
    commit_locked();
    counts->syncfs++;
    pthread_mutex_unlock(&g_mu);
}

EXPORT int syncfs(int fd)
{
    on();
    int rc = r_syncfs(fd);
    if (rc == 0 && on()) {
        sync_all();
    }
    return rc;
}

EXPORT void sync(void)
{
    on();
    r_sync();
    if (on()) {
        sync_all();
    }
}

/* ---- names ---- */

/* Before an open: a file that does not exist yet and will be created is journalled; one
 * to be truncated has its bytes saved. */
static void before_open(int dirfd, const char *path, int flags)
{
    char abs[PL_PATH_MAX];
    if (!on() || !(flags & (O_CREAT | O_TRUNC)) || abs_path(dirfd, path, abs, sizeof(abs)) ||
        !under_root(abs)) {
        return;
    }
    struct stat st;
    if (lstat(abs, &st) != 0) {
        if (errno == ENOENT && (flags & O_CREAT)) {
            pthread_mutex_lock(&g_mu);
            dirop("C\t%s\n", abs);
            pthread_mutex_unlock(&g_mu);
        }
        return;
    }
    if ((flags & O_TRUNC) && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (flags & O_ACCMODE) != O_RDONLY) {
        int fd = r_open(abs, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            struct stat fst;
            struct ent *e = ent_lock_fd(fd, &fst);
            if (e) {
                ent_begin(e, fd, &fst);
                ent_save(e, fd, 0, UINT64_MAX / 2);
                pthread_mutex_unlock(&e->mu);
            }
            close(fd);
        }
    }
}

static mode_t va_mode(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = va_mode(flags, ap);
    va_end(ap);
    before_open(AT_FDCWD, path, flags);
    return r_open(path, flags, m);
}

EXPORT int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = va_mode(flags, ap);
    va_end(ap);
    before_open(AT_FDCWD, path, flags);
    return r_open(path, flags, m);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = va_mode(flags, ap);
    va_end(ap);
    before_open(dirfd, path, flags);
    return r_openat(dirfd, path, flags, m);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = va_mode(flags, ap);
    va_end(ap);
    before_open(dirfd, path, flags);
    return r_openat(dirfd, path, flags, m);
}

EXPORT int creat(const char *path, mode_t mode)
{
    before_open(AT_FDCWD, path, O_CREAT | O_TRUNC | O_WRONLY);
    return r_creat(path, mode);
}

EXPORT int creat64(const char *path, mode_t mode)
{
    return creat(path, mode);
}

static void dir_made(int dirfd, const char *path)
{
    char abs[PL_PATH_MAX];
    struct stat st;
    if (on() && !strict && !abs_path(dirfd, path, abs, sizeof(abs)) && under_root(abs) &&
        lstat(abs, &st) != 0) {
        pthread_mutex_lock(&g_mu);
        dirop("M\t%s\n", abs);
        pthread_mutex_unlock(&g_mu);
    }
}

EXPORT int mkdir(const char *path, mode_t mode)
{
    dir_made(AT_FDCWD, path);
    return r_mkdir(path, mode);
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
    dir_made(dirfd, path);
    return r_mkdirat(dirfd, path, mode);
}

/* unlink and rmdir of (dirfd, path): a file is kept in saved/ until the removal is durable. */
static int remove_at(int dirfd, const char *path, int is_dir)
{
    char abs[PL_PATH_MAX], saved[PL_PATH_MAX + 32];
    if (!on() || abs_path(dirfd, path, abs, sizeof(abs)) || !under_root(abs)) {
        return is_dir ? (dirfd == AT_FDCWD ? r_rmdir(path) : r_unlinkat(dirfd, path, AT_REMOVEDIR))
                      : (dirfd == AT_FDCWD ? r_unlink(path) : r_unlinkat(dirfd, path, 0));
    }
    pthread_mutex_lock(&g_mu);
    int rc;
    if (is_dir) {
        if (!strict) {
            dirop("D\t%s\n", abs);
        }
        rc = r_rmdir(abs);
    } else {
        if (keep(abs, saved, sizeof(saved)) == 0) {
            dirop("U\t%s\t%s\n", abs, saved);
        }
        rc = r_unlink(abs);
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

EXPORT int unlink(const char *path)
{
    return remove_at(AT_FDCWD, path, 0);
}

EXPORT int rmdir(const char *path)
{
    return remove_at(AT_FDCWD, path, 1);
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
    return remove_at(dirfd, path, (flags & AT_REMOVEDIR) != 0);
}

EXPORT int remove(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        return remove_at(AT_FDCWD, path, 1);
    }
    return remove_at(AT_FDCWD, path, 0);
}

static int rename_at(int fd1, const char *from, int fd2, const char *to, unsigned int flags)
{
    char a[PL_PATH_MAX], b[PL_PATH_MAX], saved[PL_PATH_MAX + 32];
    if (!on() || abs_path(fd1, from, a, sizeof(a)) || abs_path(fd2, to, b, sizeof(b)) ||
        (!under_root(a) && !under_root(b))) {
        return flags ? r_renameat2(fd1, from, fd2, to, flags) : r_renameat(fd1, from, fd2, to);
    }
    pthread_mutex_lock(&g_mu);
    struct stat st;
    int have = lstat(a, &st) == 0 && S_ISREG(st.st_mode);
    if (keep(b, saved, sizeof(saved)) != 0) {
        snprintf(saved, sizeof(saved), "-");
    }
    dirop("R\t%s\t%s\t%s\n", a, b, saved);
    int rc = flags ? r_renameat2(AT_FDCWD, a, AT_FDCWD, b, flags) : r_rename(a, b);
    if (rc == 0 && have) {
        struct ent *e = ent_get(st.st_dev, st.st_ino, NULL);
        if (e) {
            pthread_mutex_lock(&e->mu);
            snprintf(e->path, sizeof(e->path), "%s", b);
            e->slot = slot_for(b, 0);
            if (e->dirty) {
                head_write(e);
            }
            pthread_mutex_unlock(&e->mu);
        }
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

EXPORT int rename(const char *from, const char *to)
{
    return rename_at(AT_FDCWD, from, AT_FDCWD, to, 0);
}

EXPORT int renameat(int fd1, const char *from, int fd2, const char *to)
{
    return rename_at(fd1, from, fd2, to, 0);
}

EXPORT int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned int flags)
{
    return rename_at(fd1, from, fd2, to, flags);
}
