/* The key-value interface: dispatch to the backend table, write batches, the BACKEND marker
 * and per-thread error messages. The contract is in kv.h; the on-disk marker is described in
 * doc/files.md "Key-value stores". */
#include "kv/kv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kv/backend.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#if (defined(USE_KV_LEVELDB) + defined(USE_KV_BDB) + defined(USE_KV_ROCKSDB) +                     \
     defined(USE_KV_LMDB)) != 1
#error "define exactly one USE_KV_<backend> (configure --with-backend=...)"
#endif

#define MARKER_NAME "BACKEND"
#define MARKER_MAX 32

static _Thread_local char kv_errbuf[KV_ERR_LEN];

void kv_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kv_errbuf, sizeof(kv_errbuf), fmt, ap);
    va_end(ap);
}

const char *kv_last_error(const struct kv *kv)
{
    return kv_errbuf;
}

void kv_options_init(struct kv_options *opt)
{
    memset(opt, 0, sizeof(*opt));
    opt->cache_bytes = (size_t)8 << 20;
    opt->bloom_bits_per_key = 10;
    opt->max_open_files = 64;
    opt->create_if_missing = 1;
    opt->sync = 0;
    opt->compression = 0;
    opt->paranoid_checks = 1;
}

const struct kv_ops *kv_default_ops(void)
{
#if defined(USE_KV_LEVELDB)
    return &kv_leveldb_ops;
#elif defined(USE_KV_ROCKSDB)
    return &kv_rocksdb_ops;
#elif defined(USE_KV_LMDB)
    return &kv_lmdb_ops;
#else
    return &kv_bdb_ops;
#endif
}

const char *kv_backend_name(void)
{
    return kv_default_ops()->name;
}

const char *kv_ops_name(const struct kv_ops *ops)
{
    return ops->name;
}

int kv_key_cmp(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    size_t n = a_len < b_len ? a_len : b_len;
    int c = n ? memcmp(a, b, n) : 0;
    if (c != 0) {
        return c;
    }
    return a_len < b_len ? -1 : a_len > b_len ? 1 : 0;
}

char *kv_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = xmalloc(a + b + 2);
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

uint64_t kv_dir_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    uint64_t total = 0;
    if (!d) {
        return 0;
    }
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        char *p = kv_path_join(dir, e->d_name);
        /* Allocated blocks, not st_size: BDB log files are sparse until written. */
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            total += (uint64_t)st.st_blocks * 512u;
        }
        free(p);
    }
    closedir(d);
    return total;
}

/* ---- batches ------------------------------------------------------------------------- */

struct kv_batch *kv_batch_new(void)
{
    struct kv_batch *b = xcalloc(1, sizeof(*b));
    buf_init(&b->data);
    return b;
}

void kv_batch_put(struct kv_batch *b, const void *key, size_t key_len, const void *val,
                  size_t val_len)
{
    CHECK_ALWAYS(key_len <= KV_MAX_KEY_BYTES);
    CHECK_ALWAYS(val_len <= KV_MAX_VALUE_BYTES);
    buf_reserve(&b->data, 9 + key_len + val_len);
    buf_put_u8(&b->data, KV_OP_PUT);
    buf_put_u32le(&b->data, (uint32_t)key_len);
    buf_put_u32le(&b->data, (uint32_t)val_len);
    buf_append(&b->data, key, key_len);
    buf_append(&b->data, val, val_len);
    b->count++;
    b->bytes += key_len + val_len;
}

void kv_batch_delete(struct kv_batch *b, const void *key, size_t key_len)
{
    CHECK_ALWAYS(key_len <= KV_MAX_KEY_BYTES);
    buf_put_u8(&b->data, KV_OP_DELETE);
    buf_put_u32le(&b->data, (uint32_t)key_len);
    buf_append(&b->data, key, key_len);
    b->count++;
    b->bytes += key_len;
}

void kv_batch_clear(struct kv_batch *b)
{
    buf_reset(&b->data);
    b->count = 0;
    b->bytes = 0;
}

size_t kv_batch_count(const struct kv_batch *b)
{
    return b->count;
}

size_t kv_batch_bytes(const struct kv_batch *b)
{
    return b->bytes;
}

void kv_batch_free(struct kv_batch *b)
{
    if (!b) {
        return;
    }
    buf_clear(&b->data);
    free(b);
}

int kv_batch_next(const struct kv_batch *b, size_t *pos, struct kv_batch_op *op)
{
    const uint8_t *p;
    if (*pos >= b->data.len) {
        return 0;
    }
    /* The records were written by this file, so they are well-formed by construction. */
    p = b->data.data + *pos;
    op->op = p[0];
    op->key_len = rd_u32le(p + 1);
    if (op->op == KV_OP_PUT) {
        op->val_len = rd_u32le(p + 5);
        op->key = p + 9;
        op->val = op->key + op->key_len;
        *pos += 9 + op->key_len + op->val_len;
    } else {
        CHECK_ALWAYS(op->op == KV_OP_DELETE);
        op->val_len = 0;
        op->key = p + 5;
        op->val = NULL;
        *pos += 5 + op->key_len;
    }
    CHECK_ALWAYS(*pos <= b->data.len);
    return 1;
}

/* ---- the BACKEND marker ------------------------------------------------------------- */

/* Files that only one persistent backend creates: how a store that lost its marker (or was
 * written before markers existed) is still recognized. Every backend is listed whichever one
 * is compiled, since the point is to recognize the others. RocksDB writes LevelDB's CURRENT
 * too, so it is told apart by its OPTIONS-<number> files (guess_writer). */
static const struct {
    const char *backend;
    const char *file;
} signatures[] = {
    {"lmdb", "data.mdb"},
    {"bdb", "data.db"},
    {"leveldb", "CURRENT"},
};

/* Reads <dir>/BACKEND into name. Returns 0, RC_NOT_FOUND if absent, RC_IO otherwise. */
static int marker_read(const char *dir, char *name, size_t name_len)
{
    char *path = kv_path_join(dir, MARKER_NAME);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;
    int rc = 0;
    if (fd < 0) {
        rc = errno == ENOENT ? RC_NOT_FOUND : RC_IO;
        if (rc == RC_IO) {
            kv_set_error("%s: cannot read: %s", path, strerror(errno));
        }
        free(path);
        return rc;
    }
    n = read(fd, name, name_len - 1);
    if (n < 0) {
        kv_set_error("%s: cannot read: %s", path, strerror(errno));
        rc = RC_IO;
        n = 0;
    }
    name[n] = 0;
    /* One word and a newline. */
    name[strcspn(name, " \t\r\n")] = 0;
    close(fd);
    free(path);
    return rc;
}

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    int rc;
    if (fd < 0) {
        return -1;
    }
    rc = fsync(fd);
    close(fd);
    return rc;
}

/* Writes <dir>/BACKEND = "<name>\n" atomically (temporary file, fsync, rename, fsync dir). */
static int marker_write(const char *dir, const char *name)
{
    char *path = kv_path_join(dir, MARKER_NAME);
    char *tmp = kv_path_join(dir, MARKER_NAME ".tmp");
    char line[MARKER_MAX + 2];
    int fd, n, rc = 0;
    n = snprintf(line, sizeof(line), "%s\n", name);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, line, (size_t)n) != n || fsync(fd) != 0) {
        kv_set_error("%s: cannot write: %s", tmp, strerror(errno));
        rc = RC_IO;
    }
    if (fd >= 0) {
        close(fd);
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        kv_set_error("%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        rc = RC_IO;
    }
    if (rc == 0 && fsync_path(dir, O_RDONLY | O_DIRECTORY) != 0) {
        kv_set_error("%s: cannot fsync: %s", dir, strerror(errno));
        rc = RC_IO;
    }
    if (rc != 0) {
        unlink(tmp);
    }
    free(tmp);
    free(path);
    return rc;
}

static int file_exists(const char *dir, const char *name)
{
    char *p = kv_path_join(dir, name);
    struct stat st;
    int ok = stat(p, &st) == 0;
    free(p);
    return ok;
}

/* 1 if dir holds a file whose name starts with prefix. */
static int file_prefix_exists(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = strlen(prefix);
    int found = 0;
    if (!d) {
        return 0;
    }
    while (!found && (e = readdir(d)) != NULL) {
        found = strncmp(e->d_name, prefix, n) == 0;
    }
    closedir(d);
    return found;
}

/* The backend whose files are in dir, or NULL if none is recognized. */
static const char *guess_writer(const char *dir)
{
    for (size_t i = 0; i < ARRAY_LEN(signatures); i++) {
        if (file_exists(dir, signatures[i].file)) {
            if (strcmp(signatures[i].backend, "leveldb") == 0 &&
                file_prefix_exists(dir, "OPTIONS-")) {
                return "rocksdb";
            }
            return signatures[i].backend;
        }
    }
    return NULL;
}

static void mismatch_error(const char *path, const char *writer, const char *built)
{
    kv_set_error("%s was written by the %s backend; this bitnode was built with %s: rebuild "
                 "with --with-backend=%s, or start with -reindex-chainstate (-reindex for "
                 "blocks/index) to rebuild it with %s",
                 path, writer, built, writer, built);
}

/* The key every LevelDB store of Bitcoin Core holds (CDBWrapper's OBFUSCATION_KEY: a
 * compact-size length, 14, then "\0obfuscate_key"); bitnode writes no such key. */
static const char core_obfuscate_key[] = "\x0e\x00obfuscate_key";
#define CORE_OBFUSCATE_KEY_LEN 15

/* A LevelDB store without a marker may be Bitcoin Core's (its blocks/index, chainstate,
 * indexes): opened with our LevelDB, it is Core's if it holds Core's key. Returns 0 if it is
 * not (kv stays open), else RC_FOREIGN with the message (kv closed) or the read's error. */
static int refuse_core_store(struct kv *kv, const char *path)
{
    int rc = kv_get(kv, NULL, core_obfuscate_key, CORE_OBFUSCATE_KEY_LEN);
    if (rc == RC_NOT_FOUND) {
        return 0;
    }
    if (rc == 0) {
        kv_set_error("%s was written by Bitcoin Core (it holds Core's obfuscation key); "
                     "bitnode's stores have another format, and bitnode does not open Core's: "
                     "give bitnode another -datadir, or, to let bitnode take this datadir's "
                     "block files over, start it with -reindex, which deletes this store and "
                     "rebuilds it from the block files",
                     path);
        rc = RC_FOREIGN;
    }
    char keep[KV_ERR_LEN];
    snprintf(keep, sizeof(keep), "%s", kv_errbuf);
    (void)kv_close(kv);
    snprintf(kv_errbuf, sizeof(kv_errbuf), "%s", keep);
    return rc;
}

/* Decides whether ops may open the directory path. *need_marker is set when the marker is
 * absent and must be written (before the backend opens a new store); *probe_core when the
 * store exists without a marker and holds LevelDB's files: Core's stores look like that, so
 * it is looked into (refuse_core_store) before the marker is written. */
static int marker_check(const struct kv_ops *ops, const char *path, const struct kv_options *opt,
                        int *need_marker, int *probe_core)
{
    char name[MARKER_MAX];
    struct stat st;
    int rc;

    *need_marker = 0;
    *probe_core = 0;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT) {
            kv_set_error("%s: %s", path, strerror(errno));
            return RC_IO;
        }
        if (!opt->create_if_missing) {
            kv_set_error("%s does not exist (and create_if_missing is off)", path);
            return RC_NOT_FOUND;
        }
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            kv_set_error("%s: cannot create directory: %s", path, strerror(errno));
            return RC_IO;
        }
        *need_marker = 1;
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        kv_set_error("%s is not a directory", path);
        return RC_IO;
    }
    rc = marker_read(path, name, sizeof(name));
    if (rc == 0) {
        if (strcmp(name, ops->name) != 0) {
            mismatch_error(path, name, ops->name);
            return RC_BACKEND;
        }
        return 0;
    }
    if (rc != RC_NOT_FOUND) {
        return rc;
    }
    /* No marker: recognize another backend's files before letting ours touch them. */
    const char *writer = guess_writer(path);
    if (writer && strcmp(writer, ops->name) != 0) {
        mismatch_error(path, writer, ops->name);
        if (strcmp(writer, "leveldb") == 0) { /* or Bitcoin Core: say so */
            size_t n = strlen(kv_errbuf);
            snprintf(kv_errbuf + n, sizeof(kv_errbuf) - n,
                     " (a LevelDB store without bitnode's BACKEND marker may also be Bitcoin "
                     "Core's, which bitnode does not open: give bitnode another -datadir, or "
                     "start it with -reindex)");
        }
        return RC_BACKEND;
    }
    *need_marker = 1;
    *probe_core = writer && strcmp(writer, "leveldb") == 0;
    return 0;
}

/* ---- dispatch ----------------------------------------------------------------------- */

int kv_open(struct kv **out, const struct kv_ops *ops, const char *path,
            const struct kv_options *opt)
{
    struct kv_options defaults;
    int need_marker = 0, probe_core = 0, rc;

    *out = NULL;
    kv_errbuf[0] = 0;
    if (!opt) {
        kv_options_init(&defaults);
        opt = &defaults;
    }
    if (ops->persistent) {
        CHECK_ALWAYS(path != NULL && path[0] != 0);
        rc = marker_check(ops, path, opt, &need_marker, &probe_core);
        if (rc != 0) {
            return rc;
        }
    }
    /* The marker goes first: a process killed while the backend creates its first files
     * (RocksDB writes LevelDB's CURRENT before its OPTIONS file) must find its own store
     * again, not one that looks like another backend's. A store that exists already, maybe
     * Core's, gets it once it is known not to be. */
    if (need_marker && !probe_core && (rc = marker_write(path, ops->name)) != 0) {
        return rc;
    }
    rc = ops->open(out, path, opt);
    if (rc != 0) {
        *out = NULL;
        return rc;
    }
    /* The names of the files the backend has just created (LMDB's data.mdb, BDB's data.db
     * and first log) are durable only once the directory is synced (POSIX): without this a
     * power cut after the first synced batches could take the whole store back to empty. */
    if (ops->persistent && fsync_path(path, O_RDONLY | O_DIRECTORY) != 0) {
        kv_set_error("%s: cannot fsync: %s", path, strerror(errno));
        (void)ops->close(*out);
        *out = NULL;
        return RC_IO;
    }
    if (probe_core && (rc = refuse_core_store(*out, path)) != 0) {
        *out = NULL; /* closed */
        return rc;
    }
    if (probe_core && (rc = marker_write(path, ops->name)) != 0) {
        (void)ops->close(*out);
        *out = NULL;
        return rc;
    }
    CHECK_ALWAYS((*out)->ops == ops);
    (*out)->sync_all = opt->sync != 0;
    return 0;
}

int kv_close(struct kv *kv)
{
    if (!kv) {
        return 0;
    }
    return kv->ops->close(kv);
}

int kv_destroy(const struct kv_ops *ops, const char *path)
{
    char name[MARKER_MAX];
    char *marker;
    int rc;

    if (!ops->persistent) {
        return ops->destroy(path);
    }
    CHECK_ALWAYS(path != NULL && path[0] != 0);
    rc = marker_read(path, name, sizeof(name));
    if (rc == 0 && strcmp(name, ops->name) != 0) {
        mismatch_error(path, name, ops->name);
        return RC_BACKEND;
    }
    rc = ops->destroy(path);
    if (rc != 0) {
        return rc;
    }
    marker = kv_path_join(path, MARKER_NAME);
    if (unlink(marker) != 0 && errno != ENOENT) {
        kv_set_error("%s: cannot remove: %s", marker, strerror(errno));
        rc = RC_IO;
    }
    free(marker);
    /* Leaves the directory if something else lives in it. */
    if (rc == 0) {
        (void)rmdir(path);
    }
    return rc;
}

int kv_get(struct kv *kv, struct buf *val, const void *key, size_t key_len)
{
    CHECK_ALWAYS(key_len <= KV_MAX_KEY_BYTES);
    CHECK_ALWAYS(key != NULL || key_len == 0);
    if (val) {
        buf_reset(val);
    }
    return kv->ops->get(kv, val, key_len ? key : (const uint8_t *)"", key_len);
}

int kv_write(struct kv *kv, const struct kv_batch *b, int sync)
{
    return kv->ops->write(kv, b, sync || kv->sync_all);
}

int kv_iter_new(struct kv *kv, struct kv_iter **out)
{
    int rc;
    *out = NULL;
    rc = kv->ops->iter_new(kv, out);
    if (rc != 0) {
        *out = NULL;
    }
    return rc;
}

int kv_iter_seek(struct kv_iter *it, const void *key, size_t key_len)
{
    CHECK_ALWAYS(key != NULL || key_len == 0);
    return it->ops->iter_seek(it, key_len ? key : (const uint8_t *)"", key_len);
}

int kv_iter_seek_first(struct kv_iter *it)
{
    return it->ops->iter_seek_first(it);
}

int kv_iter_valid(const struct kv_iter *it)
{
    return it->ops->iter_valid(it);
}

int kv_iter_next(struct kv_iter *it)
{
    CHECK_ALWAYS(it->ops->iter_valid(it));
    return it->ops->iter_next(it);
}

const uint8_t *kv_iter_key(const struct kv_iter *it, size_t *len)
{
    CHECK_ALWAYS(it->ops->iter_valid(it));
    return it->ops->iter_key(it, len);
}

const uint8_t *kv_iter_value(const struct kv_iter *it, size_t *len)
{
    CHECK_ALWAYS(it->ops->iter_valid(it));
    return it->ops->iter_value(it, len);
}

void kv_iter_free(struct kv_iter *it)
{
    if (it) {
        it->ops->iter_free(it);
    }
}

int kv_stats(struct kv *kv, struct kv_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->compaction_seconds = -1;
    return kv->ops->stats(kv, out);
}

int kv_approximate_size(struct kv *kv, uint64_t *out, const void *begin, size_t begin_len,
                        const void *end, size_t end_len)
{
    *out = 0;
    return kv->ops->approximate_size(kv, out, begin_len ? begin : (const uint8_t *)"", begin_len,
                                     end, end ? end_len : 0);
}
