/* kv backend "bdb", through Berkeley DB 5.3.
 *
 * One store = one directory = one transactional environment holding one B-tree database
 * (data.db) and its log files (log.NNNNNNNNNN). See doc/files.md "Key-value stores".
 *
 * - The environment is private to this process (DB_PRIVATE: no __db.* region files, so a
 *   stopped node's directory holds nothing tied to the machine) and is opened with DB_RECOVER
 *   every time: after a crash, recovery replays committed transactions from the log and rolls
 *   back the rest, so the store opens without manual repair. A lock file (bdb.lock, flock)
 *   keeps a second process out, which DB_RECOVER requires.
 * - Each kv batch is one transaction: all of it or none of it survives a crash. Non-sync
 *   batches commit with DB_TXN_WRITE_NOSYNC (the log is written to the OS, so a killed
 *   process loses nothing, as with LevelDB); sync batches flush the log to disk.
 * - A sync batch that went into a log file begun since the last one syncs the directory
 *   (sync_log_name): BDB does not, and POSIX keeps a new file's name only so.
 * - Log files are removed automatically (DB_LOG_AUTO_REMOVE) once no transaction or recovery
 *   needs them. A clean close writes a checkpoint and removes the old logs, so the directory
 *   can be copied whole to another machine and opened there.
 * - The database handle takes one exclusive lock on the database (set_lk_exclusive) instead
 *   of a lock per page, so a transaction needs the same two locks whatever its size: no batch,
 *   however large (a full flush of the coins cache), can run out of locks. This is the BIP 50
 *   lesson: a backend limit must never change what a block validates to. If a batch fails
 *   anyway (disk full, I/O error), it fails as a whole with RC_BACKEND, a system error for
 *   the caller, never a verdict on a block. The lock table is still sized explicitly, with
 *   headroom, for the environment's own locks.
 * - An exclusive handle cannot be shared by threads inside BDB (no DB_THREAD), so a mutex
 *   (mu) serializes every call into BDB, and a second one (wmu) serializes writes,
 *   iterator calls and statistics whole. A get takes mu only, and does not wait for a large
 *   batch (BDB_HANDOFF_OPS ops or more) to be applied: the writer hands mu to any waiting
 *   get between two puts, and the get answers as if the batch had already committed: a key
 *   the batch writes from the batch (through a hash index of its keys, built before the
 *   transaction starts), any other key from the tree, which the batch has not touched for
 *   it. Every BDB_HANDOFF_PUTS puts the writer lets in the gets waiting then. (A batch that
 *   then fails, a fatal backend error, may have been seen by such a get.)
 * - Iterators see a snapshot, like LevelDB's: they read the live tree in chunks (holding no
 *   lock between calls, so a write on the same thread cannot deadlock), and a write made while
 *   iterators are open first saves, for each of them, the value each key had before (an
 *   overlay kept in a mem store). The iterator merges the two, the overlay winning.
 * - Keys compare unsigned byte-wise (set explicitly with set_bt_compare), like LevelDB's.
 * - Pages carry checksums (DB_CHKSUM): a damaged page is an error, never a silent miss.
 */
#include <db.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kv/backend.h"
#include "kv/kv.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define BDB_DATA_FILE "data.db"
#define BDB_LOCK_FILE "bdb.lock"
/* Pages of a new store (an existing one keeps its own): each page the pool reads or evicts
 * is checksummed whole, a third of the CPU with a small pool; the storage matrix's 8 MiB row
 * took 113.5-117.9 s at 4 KiB against 124.0-131.3 s at 8 KiB. */
#define BDB_PAGE_SIZE 4096
#define BDB_LOG_BUFFER ((uint32_t)2 << 20)
#define BDB_LOG_FILE_MAX ((uint32_t)10 << 20) /* BDB fills each log file when it starts it */
/* With the exclusive database lock a transaction holds a handful of locks whatever its size
 * (the 500,000-put test peaks at 2); these limits are headroom for the environment itself. */
#define BDB_MAX_LOCKS 20000
#define BDB_MAX_LOCKERS 1000
#define BDB_MAX_TXNS 100
#define BDB_MIN_CACHE ((size_t)1 << 20)
/* Entries an iterator reads from the tree per visit. */
#define BDB_ITER_CHUNK 256
/* Batches of at least this many ops let gets in between their puts; smaller ones are
 * applied whole (a few milliseconds) while gets wait. */
#define BDB_HANDOFF_OPS 1024
/* Puts such a batch applies between two turns of letting gets in: a get waits for at most
 * this many (well under a millisecond with the pages in the cache). */
#define BDB_HANDOFF_PUTS 32

/* The keys of the batch being applied: an open-addressing table of op offsets into the
 * batch (offset + 1; 0 is an empty slot), the last op of a key winning. */
struct bdb_index {
    const struct kv_batch *batch;
    size_t *slots;
    size_t mask;
};

struct kv_bdb {
    struct kv base; /* first: base.ops */
    char *path;
    DB_ENV *env;
    DB *db;
    int lock_fd;
    pthread_mutex_t mu;      /* serializes every BDB call on env and db */
    pthread_mutex_t wmu;     /* taken before mu: a write, an iterator call, stats, whole */
    pthread_cond_t handoff;  /* a get that had waited for mu is done */
    atomic_int gets_waiting; /* gets waiting for mu (the writer lets them in) */
    uint64_t gets_done;      /* gets served (under mu) */
    DB_TXN *txn;             /* the write being applied, between two puts (under mu) */
    struct bdb_index *index; /* its keys, if it lets gets in (under mu) */
    struct bdb_iter *iters;  /* open iterators (under mu) */
    size_t cache_bytes;
    uint32_t synced_log_file; /* the log file current at the last directory sync (under mu) */
};

/* Overlay values: a tag byte, then the value if the key existed. */
enum { OV_ABSENT = 0, OV_PRESENT = 1 };

struct bdb_iter {
    struct kv_iter base; /* first: base.ops */
    struct kv_bdb *db;
    struct bdb_iter *next, *prev; /* in db->iters */
    /* Values keys had when the iterator was created, for keys written since (mem store,
     * NULL until the first such write). */
    struct kv *overlay;
    /* Live entries read ahead: records of u32le key length, u32le value length, key, value. */
    struct buf chunk;
    size_t chunk_pos;
    int chunk_last;      /* the chunk reaches the end of the tree */
    struct buf key, val; /* the current entry */
    int valid;
};

/* BDB reports detail through its error callback before returning a code: keep the last
 * message of this thread to add to ours. */
static _Thread_local char bdb_detail[256];

static void bdb_errcall(const DB_ENV *env, const char *pfx, const char *msg)
{
    snprintf(bdb_detail, sizeof(bdb_detail), "%s", msg);
}

static int bdb_fail(const struct kv_bdb *db, const char *what, int ret)
{
    if (bdb_detail[0]) {
        kv_set_error("bdb %s: %s: %s (%s)", db->path, what, db_strerror(ret), bdb_detail);
    } else {
        kv_set_error("bdb %s: %s: %s", db->path, what, db_strerror(ret));
    }
    bdb_detail[0] = 0;
    return RC_BACKEND;
}

/* Unsigned byte-wise order, shorter first on a common prefix: LevelDB's order. */
static int bdb_compare(DB *dbp, const DBT *a, const DBT *b)
{
    return kv_key_cmp(a->data, a->size, b->data, b->size);
}

static int lock_dir(struct kv_bdb *db)
{
    char *p = kv_path_join(db->path, BDB_LOCK_FILE);
    db->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (db->lock_fd < 0) {
        kv_set_error("bdb %s: cannot open %s: %s", db->path, p, strerror(errno));
        free(p);
        return RC_IO;
    }
    if (flock(db->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        kv_set_error("bdb %s: the store is in use by another process or handle (%s)", db->path,
                     strerror(errno));
        close(db->lock_fd);
        db->lock_fd = -1;
        free(p);
        return RC_BACKEND;
    }
    free(p);
    return 0;
}

static void bdb_free(struct kv_bdb *db)
{
    if (db->lock_fd >= 0) {
        close(db->lock_fd); /* releases the flock */
    }
    pthread_mutex_destroy(&db->mu);
    pthread_mutex_destroy(&db->wmu);
    pthread_cond_destroy(&db->handoff);
    free(db->path);
    free(db);
}

static int bdb_open(struct kv **out, const char *path, const struct kv_options *opt)
{
    struct kv_bdb *db = xcalloc(1, sizeof(*db));
    size_t cache = opt->cache_bytes < BDB_MIN_CACHE ? BDB_MIN_CACHE : opt->cache_bytes;
    const char *step = "";
    int ret, rc;

    db->base.ops = &kv_bdb_ops;
    db->path = xstrdup(path);
    db->lock_fd = -1;
    db->cache_bytes = cache;
    CHECK_ALWAYS(pthread_mutex_init(&db->mu, NULL) == 0);
    CHECK_ALWAYS(pthread_mutex_init(&db->wmu, NULL) == 0);
    CHECK_ALWAYS(pthread_cond_init(&db->handoff, NULL) == 0);
    atomic_init(&db->gets_waiting, 0);
    bdb_detail[0] = 0;

    rc = lock_dir(db);
    if (rc != 0) {
        bdb_free(db);
        return rc;
    }
    ret = db_env_create(&db->env, 0);
    if (ret != 0) {
        db->env = NULL;
        rc = bdb_fail(db, "db_env_create", ret);
        bdb_free(db);
        return rc;
    }
    db->env->set_errcall(db->env, bdb_errcall);
    /* Settings that only fail on bad arguments (programming errors here). */
    CHECK_ALWAYS(db->env->set_alloc(db->env, xmalloc, xrealloc, free) == 0);
    CHECK_ALWAYS(db->env->set_cachesize(db->env, (uint32_t)(cache >> 30),
                                        (uint32_t)(cache & ((1u << 30) - 1)), 1) == 0);
    CHECK_ALWAYS(db->env->set_lg_bsize(db->env, BDB_LOG_BUFFER) == 0);
    CHECK_ALWAYS(db->env->set_lg_max(db->env, BDB_LOG_FILE_MAX) == 0);
    CHECK_ALWAYS(db->env->set_lk_max_locks(db->env, BDB_MAX_LOCKS) == 0);
    CHECK_ALWAYS(db->env->set_lk_max_objects(db->env, BDB_MAX_LOCKS) == 0);
    CHECK_ALWAYS(db->env->set_lk_max_lockers(db->env, BDB_MAX_LOCKERS) == 0);
    CHECK_ALWAYS(db->env->set_memory_max(db->env, 4, 0) == 0);
    CHECK_ALWAYS(db->env->set_tx_max(db->env, BDB_MAX_TXNS) == 0);
    CHECK_ALWAYS(db->env->set_lk_detect(db->env, DB_LOCK_DEFAULT) == 0);
    CHECK_ALWAYS(db->env->set_flags(db->env, DB_TXN_WRITE_NOSYNC, 1) == 0);

    step = "open environment";
    ret = db->env->open(db->env, path,
                        DB_CREATE | DB_INIT_TXN | DB_INIT_LOG | DB_INIT_LOCK | DB_INIT_MPOOL |
                            DB_RECOVER | DB_PRIVATE,
                        0644);
    if (ret != 0) {
        goto out_env;
    }
    step = "set log auto-remove";
    ret = db->env->log_set_config(db->env, DB_LOG_AUTO_REMOVE, 1);
    if (ret != 0) {
        goto out_env;
    }
    step = "db_create";
    ret = db_create(&db->db, db->env, 0);
    if (ret != 0) {
        db->db = NULL;
        goto out_env;
    }
    CHECK_ALWAYS(db->db->set_flags(db->db, DB_CHKSUM) == 0);
    CHECK_ALWAYS(db->db->set_bt_compare(db->db, bdb_compare) == 0);
    CHECK_ALWAYS(db->db->set_pagesize(db->db, BDB_PAGE_SIZE) == 0);
    CHECK_ALWAYS(db->db->set_lk_exclusive(db->db, 1) == 0);
    step = "open " BDB_DATA_FILE;
    ret = db->db->open(db->db, NULL, BDB_DATA_FILE, NULL, DB_BTREE,
                       (opt->create_if_missing ? DB_CREATE : 0) | DB_AUTO_COMMIT, 0644);
    if (ret != 0) {
        goto out_db;
    }
    *out = &db->base;
    return 0;

out_db:
    rc = bdb_fail(db, step, ret);
    if (ret == ENOENT) {
        rc = RC_NOT_FOUND;
    }
    db->db->close(db->db, 0);
    db->env->close(db->env, 0);
    bdb_free(db);
    return rc;
out_env:
    rc = bdb_fail(db, step, ret);
    db->env->close(db->env, 0);
    bdb_free(db);
    return rc;
}

static int bdb_close(struct kv *kv)
{
    struct kv_bdb *db = (struct kv_bdb *)kv;
    int rc = 0, ret;

    CHECK_ALWAYS(db->iters == NULL); /* kv.h: iterators are freed before close */
    bdb_detail[0] = 0;
    ret = db->db->close(db->db, 0);
    if (ret != 0) {
        rc = bdb_fail(db, "close " BDB_DATA_FILE, ret);
    }
    /* A checkpoint makes the data file current, so that recovery needs no older log and the
     * log files that remain are only the tail. */
    ret = db->env->txn_checkpoint(db->env, 0, 0, DB_FORCE);
    if (ret != 0 && rc == 0) {
        rc = bdb_fail(db, "checkpoint", ret);
    }
    ret = db->env->log_archive(db->env, NULL, DB_ARCH_REMOVE);
    if (ret != 0 && rc == 0) {
        rc = bdb_fail(db, "log archive", ret);
    }
    ret = db->env->close(db->env, 0);
    if (ret != 0 && rc == 0) {
        rc = bdb_fail(db, "close environment", ret);
    }
    bdb_free(db);
    return rc;
}

static int is_bdb_file(const char *name)
{
    return strcmp(name, BDB_DATA_FILE) == 0 || strcmp(name, BDB_LOCK_FILE) == 0 ||
           strncmp(name, "log.", 4) == 0 || strncmp(name, "__db.", 5) == 0;
}

static int bdb_destroy(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int rc = 0;
    if (!d) {
        if (errno == ENOENT) {
            return 0;
        }
        kv_set_error("bdb %s: cannot list: %s", path, strerror(errno));
        return RC_IO;
    }
    while ((e = readdir(d)) != NULL) {
        char *p;
        if (!is_bdb_file(e->d_name)) {
            continue;
        }
        p = kv_path_join(path, e->d_name);
        if (unlink(p) != 0 && errno != ENOENT && rc == 0) {
            kv_set_error("bdb %s: cannot remove %s: %s", path, p, strerror(errno));
            rc = RC_IO;
        }
        free(p);
    }
    closedir(d);
    return rc;
}

/* Takes wmu, then mu: the store to itself but for gets let in by a write (none, since wmu
 * excludes writes). */
static void lock_all(struct kv_bdb *db)
{
    CHECK_ALWAYS(pthread_mutex_lock(&db->wmu) == 0);
    CHECK_ALWAYS(pthread_mutex_lock(&db->mu) == 0);
}

static void unlock_all(struct kv_bdb *db)
{
    pthread_mutex_unlock(&db->mu);
    pthread_mutex_unlock(&db->wmu);
}

/* ---- the index of a batch's keys ------------------------------------------------------ */

static uint64_t key_hash(const uint8_t *key, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h = (h ^ key[i]) * 0x100000001b3ull;
    }
    return h ^ (h >> 29);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t *index_slot(const struct bdb_index *ix, const uint8_t *key, size_t key_len)
{
    size_t i = (size_t)key_hash(key, key_len) & ix->mask;
    for (;; i = (i + 1) & ix->mask) {
        struct kv_batch_op op;
        size_t pos;
        if (ix->slots[i] == 0) {
            return &ix->slots[i];
        }
        pos = ix->slots[i] - 1;
        CHECK_ALWAYS(kv_batch_next(ix->batch, &pos, &op));
        if (op.key_len == key_len && memcmp(op.key, key, key_len) == 0) {
            return &ix->slots[i];
        }
    }
}

/* A new index of b's keys. Owned by the caller; release with index_free(). */
static struct bdb_index *index_new(const struct kv_batch *b)
{
    struct bdb_index *ix = xcalloc(1, sizeof(*ix));
    size_t n = 16, pos = 0, at = 0;
    struct kv_batch_op op;
    while (n < 2 * kv_batch_count(b)) {
        n *= 2;
    }
    ix->batch = b;
    ix->slots = xcalloc(n, sizeof(*ix->slots));
    ix->mask = n - 1;
    while (kv_batch_next(b, &pos, &op)) {
        *index_slot(ix, op.key, op.key_len) = at + 1;
        at = pos;
    }
    return ix;
}

static void index_free(struct bdb_index *ix)
{
    if (ix) {
        free(ix->slots);
        free(ix);
    }
}

/* If the batch ix writes key, sets *out to the op that decides its value and returns 1. */
static int index_find(const struct bdb_index *ix, const uint8_t *key, size_t key_len,
                      struct kv_batch_op *out)
{
    size_t pos, *slot = index_slot(ix, key, key_len);
    if (*slot == 0) {
        return 0;
    }
    pos = *slot - 1;
    CHECK_ALWAYS(kv_batch_next(ix->batch, &pos, out));
    return 1;
}

/* Reads key into val (NULL: presence only), in txn (NULL: none). Returns 0, DB_NOTFOUND or
 * a BDB error. The caller holds db->mu. */
static int raw_get(struct kv_bdb *db, DB_TXN *txn, struct buf *val, const uint8_t *key,
                   size_t key_len)
{
    DBT k, v;
    int ret;
    memset(&k, 0, sizeof(k));
    memset(&v, 0, sizeof(v));
    k.data = (void *)key;
    k.size = (uint32_t)key_len;
    if (val) {
        buf_reserve(val, 64);
        v.flags = DB_DBT_USERMEM;
    } else {
        /* Presence only: a partial read of zero bytes. */
        v.flags = DB_DBT_USERMEM | DB_DBT_PARTIAL;
    }
    for (;;) {
        if (val) {
            v.data = val->data;
            v.ulen = (uint32_t)val->cap;
        }
        ret = db->db->get(db->db, txn, &k, &v, 0);
        if (ret == DB_BUFFER_SMALL && val) {
            buf_reserve(val, v.size);
            continue;
        }
        break;
    }
    if (ret == 0 && val) {
        val->len = v.size;
    }
    return ret;
}

static int bdb_get(struct kv *kv, struct buf *val, const uint8_t *key, size_t key_len)
{
    struct kv_bdb *db = (struct kv_bdb *)kv;
    struct kv_batch_op op;
    int ret;
    atomic_fetch_add(&db->gets_waiting, 1);
    CHECK_ALWAYS(pthread_mutex_lock(&db->mu) == 0);
    atomic_fetch_sub(&db->gets_waiting, 1);
    bdb_detail[0] = 0;
    if (db->index && index_find(db->index, key, key_len, &op)) {
        /* Let in by a write that changes key: its value once the write commits. */
        ret = DB_NOTFOUND;
        if (op.op == KV_OP_PUT) {
            ret = 0;
            if (val) {
                buf_reset(val);
                buf_append(val, op.val, op.val_len);
            }
        }
    } else {
        /* Inside the write's transaction, if one let this get in: the pages it changed are
         * its own until it commits (with the exclusive handle nothing is locked), and the
         * key is not one of them. */
        ret = raw_get(db, db->txn, val, key, key_len);
    }
    db->gets_done++;
    if (db->txn) {
        pthread_cond_signal(&db->handoff);
    }
    pthread_mutex_unlock(&db->mu);
    if (ret == DB_NOTFOUND) {
        if (val) {
            buf_reset(val);
        }
        return RC_NOT_FOUND;
    }
    if (ret != 0) {
        return bdb_fail(db, "get", ret);
    }
    return 0;
}

/* Before a batch changes keys, saves their current values into the overlay of every open
 * iterator that has none for them yet: the first saved value is the one the iterator's
 * snapshot holds. The caller holds db->mu. Returns 0 or a BDB error. */
static int save_overlays(struct kv_bdb *db, const struct kv_batch *b)
{
    struct kv_batch_op op;
    struct kv_batch *save = kv_batch_new();
    struct buf cur;
    size_t pos = 0;
    int ret = 0;

    buf_init(&cur);
    for (struct bdb_iter *it = db->iters; it; it = it->next) {
        if (!it->overlay) {
            CHECK_ALWAYS(kv_open(&it->overlay, &kv_mem_ops, NULL, NULL) == 0);
        }
    }
    while (ret == 0 && kv_batch_next(b, &pos, &op)) {
        int fetched = 0;
        kv_batch_clear(save);
        for (struct bdb_iter *it = db->iters; it; it = it->next) {
            if (kv_get(it->overlay, NULL, op.key, op.key_len) == 0) {
                continue;
            }
            if (!fetched) {
                buf_reset(&cur);
                buf_put_u8(&cur, OV_PRESENT);
                {
                    struct buf v;
                    buf_init(&v);
                    ret = raw_get(db, NULL, &v, op.key, op.key_len);
                    if (ret == DB_NOTFOUND) {
                        cur.data[0] = OV_ABSENT;
                        ret = 0;
                    } else if (ret == 0) {
                        buf_append(&cur, v.data, v.len);
                    }
                    buf_clear(&v);
                }
                if (ret != 0) {
                    break;
                }
                fetched = 1;
            }
            kv_batch_clear(save);
            kv_batch_put(save, op.key, op.key_len, cur.data, cur.len);
            CHECK_ALWAYS(kv_write(it->overlay, save, 0) == 0);
        }
    }
    buf_clear(&cur);
    kv_batch_free(save);
    return ret;
}

/* Applies b in txn, letting waiting gets in between two puts if db->index is set. Returns 0
 * or the BDB error code. The caller holds wmu and mu. */
static int apply_batch(struct kv_bdb *db, DB_TXN *txn, const struct kv_batch *b)
{
    struct kv_batch_op op;
    size_t pos = 0, since = 0;
    DBT k, v;
    int ret;
    memset(&k, 0, sizeof(k));
    memset(&v, 0, sizeof(v));
    while (kv_batch_next(b, &pos, &op)) {
        k.data = (void *)op.key;
        k.size = (uint32_t)op.key_len;
        if (op.op == KV_OP_PUT) {
            v.data = (void *)op.val;
            v.size = (uint32_t)op.val_len;
            ret = db->db->put(db->db, txn, &k, &v, 0);
        } else {
            ret = db->db->del(db->db, txn, &k, 0);
            if (ret == DB_NOTFOUND) {
                ret = 0;
            }
        }
        if (ret != 0) {
            return ret;
        }
        if (db->index && ++since >= BDB_HANDOFF_PUTS &&
            atomic_load_explicit(&db->gets_waiting, memory_order_relaxed) > 0) {
            /* Lets in the gets waiting now (not those that come meanwhile: a stream of them
             * would hold the write back for ever), then goes on for BDB_HANDOFF_PUTS puts. */
            uint64_t goal = db->gets_done + (uint64_t)atomic_load(&db->gets_waiting);
            db->txn = txn;
            while (db->gets_done < goal) {
                CHECK_ALWAYS(pthread_cond_wait(&db->handoff, &db->mu) == 0);
            }
            db->txn = NULL;
            since = 0;
        }
    }
    return 0;
}

/* After a synced commit: BDB begins a new log file every BDB_LOG_FILE_MAX bytes and does not
 * sync the directory for it (it relies on the file system keeping names in order), so under
 * POSIX's rule a power cut could take the new file's name, and the synced commits in it with
 * it (test/unit/kv_powerloss_tests). The directory is synced once per new log file. Under mu. */
static int sync_log_name(struct kv_bdb *db)
{
    DB_LOG_STAT *st = NULL;
    int ret = db->env->log_stat(db->env, &st, 0);
    if (ret != 0) {
        return bdb_fail(db, "write: log_stat", ret);
    }
    uint32_t cur = st->st_cur_file;
    free(st);
    if (cur == db->synced_log_file) {
        return 0;
    }
    int fd = open(db->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        kv_set_error("bdb %s: cannot fsync the directory: %s", db->path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return RC_BACKEND;
    }
    close(fd);
    db->synced_log_file = cur;
    return 0;
}

static int bdb_write(struct kv *kv, const struct kv_batch *b, int sync)
{
    struct kv_bdb *db = (struct kv_bdb *)kv;
    DB_TXN *txn = NULL;
    struct bdb_index *ix = NULL;
    int ret, rc = 0;

    CHECK_ALWAYS(pthread_mutex_lock(&db->wmu) == 0);
    if (kv_batch_count(b) >= BDB_HANDOFF_OPS) {
        ix = index_new(b); /* before mu: gets go on meanwhile */
    }
    CHECK_ALWAYS(pthread_mutex_lock(&db->mu) == 0);
    bdb_detail[0] = 0;
    if (db->iters) {
        ret = save_overlays(db, b);
        if (ret != 0) {
            rc = bdb_fail(db, "write: saving values for open iterators", ret);
            goto out;
        }
    }
    ret = db->env->txn_begin(db->env, NULL, &txn, 0);
    if (ret != 0) {
        rc = bdb_fail(db, "write: begin transaction", ret);
        goto out;
    }
    db->index = ix;
    ret = apply_batch(db, txn, b);
    db->index = NULL;
    if (ret != 0) {
        rc = bdb_fail(db, "write", ret);
        txn->abort(txn);
        goto out;
    }
    ret = txn->commit(txn, sync ? DB_TXN_SYNC : DB_TXN_WRITE_NOSYNC);
    if (ret != 0) {
        rc = bdb_fail(db, "write: commit", ret);
    } else if (sync) {
        rc = sync_log_name(db);
    }
out:
    unlock_all(db);
    index_free(ix);
    return rc;
}

/* ---- iterators ---------------------------------------------------------------------- */

static int bdb_iter_new(struct kv *kv, struct kv_iter **out)
{
    struct kv_bdb *db = (struct kv_bdb *)kv;
    struct bdb_iter *it = xcalloc(1, sizeof(*it));
    it->base.ops = &kv_bdb_ops;
    it->db = db;
    buf_init(&it->chunk);
    buf_init(&it->key);
    buf_init(&it->val);
    it->chunk_last = 1; /* empty chunk: nothing read yet */
    /* Registered under the mutex, between two writes: its snapshot is the store now. */
    lock_all(db);
    it->next = db->iters;
    if (db->iters) {
        db->iters->prev = it;
    }
    db->iters = it;
    unlock_all(db);
    *out = &it->base;
    return 0;
}

static void bdb_iter_free(struct kv_iter *base)
{
    struct bdb_iter *it = (struct bdb_iter *)base;
    struct kv_bdb *db = it->db;
    lock_all(db);
    if (it->prev) {
        it->prev->next = it->next;
    } else {
        db->iters = it->next;
    }
    if (it->next) {
        it->next->prev = it->prev;
    }
    unlock_all(db);
    kv_close(it->overlay);
    buf_clear(&it->chunk);
    buf_clear(&it->key);
    buf_clear(&it->val);
    free(it);
}

/* Reads up to BDB_ITER_CHUNK live entries with key >= from (> from if after) into the chunk,
 * through a cursor that is closed again before returning. The caller holds db->mu. */
static int fill_chunk(struct bdb_iter *it, const uint8_t *from, size_t from_len, int after)
{
    struct kv_bdb *db = it->db;
    DBC *cursor = NULL;
    DBT k, v;
    int ret, n = 0;
    uint32_t flag = DB_SET_RANGE;

    buf_reset(&it->chunk);
    it->chunk_pos = 0;
    it->chunk_last = 0;
    memset(&k, 0, sizeof(k));
    memset(&v, 0, sizeof(v));
    k.flags = DB_DBT_REALLOC;
    v.flags = DB_DBT_REALLOC;
    /* DB_SET_RANGE reads the search key from the DBT and writes the found key into it. */
    k.data = xmemdup(from, from_len);
    k.size = (uint32_t)from_len;
    ret = db->db->cursor(db->db, NULL, &cursor, 0);
    if (ret != 0) {
        free(k.data);
        return ret;
    }
    while (n < BDB_ITER_CHUNK) {
        ret = cursor->get(cursor, &k, &v, flag);
        flag = DB_NEXT;
        if (ret == DB_NOTFOUND) {
            it->chunk_last = 1;
            ret = 0;
            break;
        }
        if (ret != 0) {
            break;
        }
        if (after && n == 0 && kv_key_cmp(k.data, k.size, from, from_len) == 0) {
            after = 0;
            continue;
        }
        buf_put_u32le(&it->chunk, k.size);
        buf_put_u32le(&it->chunk, v.size);
        buf_append(&it->chunk, k.data, k.size);
        buf_append(&it->chunk, v.data, v.size);
        n++;
    }
    cursor->close(cursor);
    free(k.data);
    free(v.data);
    return ret;
}

/* The live entry at the chunk position, or 0 if the chunk is used up. */
static int chunk_peek(const struct bdb_iter *it, const uint8_t **k, size_t *kl, const uint8_t **v,
                      size_t *vl)
{
    const uint8_t *p;
    if (it->chunk_pos >= it->chunk.len) {
        return 0;
    }
    p = it->chunk.data + it->chunk_pos;
    *kl = rd_u32le(p);
    *vl = rd_u32le(p + 4);
    *k = p + 8;
    *v = p + 8 + *kl;
    return 1;
}

static void chunk_skip(struct bdb_iter *it)
{
    const uint8_t *p = it->chunk.data + it->chunk_pos;
    it->chunk_pos += 8 + (size_t)rd_u32le(p) + rd_u32le(p + 4);
}

/* Positions the iterator on the first snapshot entry with key >= bound (> bound if after),
 * merging live entries with the overlay. The caller holds db->mu; the chunk holds live
 * entries from some key <= bound on (or is empty and must be read). */
static int iter_settle(struct bdb_iter *it, const uint8_t *bound, size_t bound_len, int after)
{
    struct buf b;
    int ret = 0;
    buf_init(&b);
    buf_append(&b, bound, bound_len);
    it->valid = 0;
    for (;;) {
        const uint8_t *lk = NULL, *lv = NULL, *ok = NULL, *ov = NULL;
        size_t lkl = 0, lvl = 0, okl = 0, ovl = 0;
        int have_live = 0, have_ov = 0, c = 0;
        struct kv_iter *oi = NULL;

        /* The first live entry past the bound. */
        for (;;) {
            if (chunk_peek(it, &lk, &lkl, &lv, &lvl)) {
                c = kv_key_cmp(lk, lkl, b.data, b.len);
                if (c < 0 || (c == 0 && after)) {
                    chunk_skip(it);
                    continue;
                }
                have_live = 1;
                break;
            }
            if (it->chunk_last) {
                break;
            }
            ret = fill_chunk(it, b.data, b.len, after);
            if (ret != 0) {
                goto out;
            }
        }
        /* The first overlay entry past the bound. */
        if (it->overlay) {
            CHECK_ALWAYS(kv_iter_new(it->overlay, &oi) == 0);
            kv_iter_seek(oi, b.data, b.len);
            if (kv_iter_valid(oi) && after) {
                ok = kv_iter_key(oi, &okl);
                if (kv_key_cmp(ok, okl, b.data, b.len) == 0) {
                    kv_iter_next(oi);
                }
            }
            if (kv_iter_valid(oi)) {
                have_ov = 1;
                ok = kv_iter_key(oi, &okl);
                ov = kv_iter_value(oi, &ovl);
            }
        }
        if (have_ov && (!have_live || kv_key_cmp(ok, okl, lk, lkl) <= 0)) {
            /* The key was written after the snapshot: its saved value wins. */
            buf_reset(&b);
            buf_append(&b, ok, okl);
            after = 1;
            if (ov[0] == OV_PRESENT) {
                buf_reset(&it->key);
                buf_append(&it->key, ok, okl);
                buf_reset(&it->val);
                buf_append(&it->val, ov + 1, ovl - 1);
                it->valid = 1;
            }
            kv_iter_free(oi);
            if (it->valid) {
                goto out;
            }
            continue;
        }
        kv_iter_free(oi);
        if (have_live) {
            buf_reset(&it->key);
            buf_append(&it->key, lk, lkl);
            buf_reset(&it->val);
            buf_append(&it->val, lv, lvl);
            it->valid = 1;
            chunk_skip(it);
        }
        goto out;
    }
out:
    buf_clear(&b);
    return ret;
}

static int bdb_iter_seek(struct kv_iter *base, const uint8_t *key, size_t key_len)
{
    struct bdb_iter *it = (struct bdb_iter *)base;
    int ret;
    lock_all(it->db);
    bdb_detail[0] = 0;
    buf_reset(&it->chunk);
    it->chunk_pos = 0;
    it->chunk_last = 0;
    ret = iter_settle(it, key, key_len, 0);
    unlock_all(it->db);
    if (ret != 0) {
        it->valid = 0;
        return bdb_fail(it->db, "iterator seek", ret);
    }
    return 0;
}

static int bdb_iter_seek_first(struct kv_iter *base)
{
    return bdb_iter_seek(base, (const uint8_t *)"", 0);
}

static int bdb_iter_next(struct kv_iter *base)
{
    struct bdb_iter *it = (struct bdb_iter *)base;
    struct buf cur;
    int ret;
    buf_init(&cur);
    buf_append(&cur, it->key.data, it->key.len);
    lock_all(it->db);
    bdb_detail[0] = 0;
    ret = iter_settle(it, cur.data, cur.len, 1);
    unlock_all(it->db);
    buf_clear(&cur);
    if (ret != 0) {
        it->valid = 0;
        return bdb_fail(it->db, "iterator next", ret);
    }
    return 0;
}

static int bdb_iter_valid(const struct kv_iter *base)
{
    return ((const struct bdb_iter *)base)->valid;
}

static const uint8_t *bdb_iter_key(const struct kv_iter *base, size_t *len)
{
    const struct bdb_iter *it = (const struct bdb_iter *)base;
    *len = it->key.len;
    return it->key.len ? it->key.data : (const uint8_t *)"";
}

static const uint8_t *bdb_iter_value(const struct kv_iter *base, size_t *len)
{
    const struct bdb_iter *it = (const struct bdb_iter *)base;
    *len = it->val.len;
    return it->val.len ? it->val.data : (const uint8_t *)"";
}

/* ---- sizes -------------------------------------------------------------------------- */

static int bdb_stats(struct kv *kv, struct kv_stats *out)
{
    struct kv_bdb *db = (struct kv_bdb *)kv;
    DB_MPOOL_STAT *mp = NULL;
    DB_LOCK_STAT *lk = NULL;
    DB_TXN_STAT *tx = NULL;
    int ret;

    out->disk_bytes = kv_dir_bytes(db->path);
    lock_all(db);
    bdb_detail[0] = 0;
    ret = db->env->memp_stat(db->env, &mp, NULL, 0);
    if (ret == 0) {
        ret = db->env->lock_stat(db->env, &lk, 0);
    }
    if (ret == 0) {
        ret = db->env->txn_stat(db->env, &tx, 0);
    }
    unlock_all(db);
    if (ret != 0) {
        free(mp);
        free(lk);
        return bdb_fail(db, "stats", ret);
    }
    out->mem_bytes = (uint64_t)mp->st_gbytes * (1u << 30) + mp->st_bytes;
    out->entries = 0;
    snprintf(out->text, sizeof(out->text),
             "bdb %s: %.1f MiB on disk, cache %.1f MiB (%lu hits, %lu misses, %lu pages "
             "written), locks %lu now / %lu peak, %lu transactions committed",
             db->path, (double)out->disk_bytes / 1048576.0, (double)out->mem_bytes / 1048576.0,
             (unsigned long)mp->st_cache_hit, (unsigned long)mp->st_cache_miss,
             (unsigned long)mp->st_page_out, (unsigned long)lk->st_nlocks,
             (unsigned long)lk->st_maxnlocks, (unsigned long)tx->st_ncommits);
    free(mp);
    free(lk);
    free(tx);
    return 0;
}

/* The fraction of keys below key, from BDB's B-tree statistics (DB->key_range). */
static int key_fraction(struct kv_bdb *db, double *out, const uint8_t *key, size_t key_len)
{
    DB_KEY_RANGE kr;
    DBT k;
    int ret;
    memset(&k, 0, sizeof(k));
    k.data = (void *)key;
    k.size = (uint32_t)key_len;
    ret = db->db->key_range(db->db, NULL, &k, &kr, 0);
    if (ret != 0) {
        return bdb_fail(db, "key range", ret);
    }
    *out = kr.less;
    return 0;
}

static int bdb_approximate_size(struct kv *kv, uint64_t *out, const uint8_t *begin,
                                size_t begin_len, const uint8_t *end, size_t end_len)
{
    struct kv_bdb *db = (struct kv_bdb *)kv;
    char *p = kv_path_join(db->path, BDB_DATA_FILE);
    struct stat st;
    double lo = 0, hi = 1;
    int rc;
    bdb_detail[0] = 0;
    if (stat(p, &st) != 0) {
        st.st_size = 0;
    }
    free(p);
    lock_all(db);
    rc = key_fraction(db, &lo, begin, begin_len);
    if (rc == 0 && end) {
        rc = key_fraction(db, &hi, end, end_len);
    }
    unlock_all(db);
    if (rc != 0) {
        return rc;
    }
    *out = hi > lo ? (uint64_t)((hi - lo) * (double)st.st_size) : 0;
    return 0;
}

const struct kv_ops kv_bdb_ops = {
    .name = "bdb",
    .persistent = 1,
    .open = bdb_open,
    .close = bdb_close,
    .destroy = bdb_destroy,
    .get = bdb_get,
    .write = bdb_write,
    .iter_new = bdb_iter_new,
    .iter_free = bdb_iter_free,
    .iter_seek = bdb_iter_seek,
    .iter_seek_first = bdb_iter_seek_first,
    .iter_next = bdb_iter_next,
    .iter_valid = bdb_iter_valid,
    .iter_key = bdb_iter_key,
    .iter_value = bdb_iter_value,
    .stats = bdb_stats,
    .approximate_size = bdb_approximate_size,
};
