/* kv backend "lmdb", through LMDB 0.9 (lmdb.h; Debian's liblmdb 0.9.24).
 *
 * One store = one directory = one LMDB environment (data.mdb, lock.mdb) holding one unnamed
 * database. See doc/files.md "Key-value stores".
 *
 * - Keys: every LMDB key is one prefix byte (LM_KEY_PREFIX) and then the kv key, so that the
 *   empty kv key can be stored (LMDB keys are 1..511 bytes: KV_MAX_KEY_BYTES is 510). LMDB's
 *   default order (memcmp, then the shorter first) is kv.h's order, and the prefix keeps it.
 * - Values: a CRC-32C (4 bytes, little-endian) of (u32le LMDB key length, LMDB key, value),
 *   then the value. LMDB keeps no checksums; see "Damage" in lmdb_pages.c.
 * - Environment: MDB_NOTLS (a read transaction is not tied to its thread: gets pool them, and
 *   a thread may write while it holds iterators), MDB_NORDAHEAD (random reads on a store
 *   larger than memory), a directory (not MDB_NOSUBDIR), 1024 reader slots, never
 *   MDB_WRITEMAP (so the file grows only as pages are used) and never MDB_NOSYNC or
 *   MDB_MAPASYNC. The map is large and fixed, since mdb_env_set_mapsize cannot be called while
 *   any transaction of the process is open: 1 TiB, else 256 or 64 GiB where the address space
 *   is short (sanitizers, ulimit -v). A full map fails the batch with MDB_MAP_FULL.
 * - Durability: a kv batch is one write transaction (operations in order, later wins); any
 *   failure, MDB_TXN_FULL and MDB_MAP_FULL included, aborts it and changes nothing. The
 *   environment runs with MDB_NOMETASYNC throughout: a commit writes and fdatasyncs the data
 *   pages, then writes the meta page without syncing it. That survives SIGKILL (the pages are
 *   in the OS) and a power cut cannot corrupt the store (the meta page on disk names synced
 *   pages only; the last non-sync commits may be lost). A sync batch then calls
 *   mdb_env_sync(force), which makes its meta page durable too. (Not toggling MDB_NOMETASYNC
 *   per commit: LMDB's read calls in other threads read the env flags without a lock. The
 *   explicit sync gives the same guarantee, for the fdatasync LMDB's O_DSYNC meta write costs.)
 * - Threads: LMDB serializes writers (write_mu only orders ours). Gets take a reset read
 *   transaction and its cursor from a pool and renew them; an iterator keeps one until freed.
 *   A read transaction pins its snapshot's pages: while an iterator is open, writes cannot
 *   reuse the pages they free, so a long scan beside writes makes data.mdb grow meanwhile (the
 *   space is reused later).
 * - A second handle on the store is refused by flock(2) on its directory, taken before LMDB
 *   opens anything (LMDB forbids two environments on one file in a process, and closing any
 *   descriptor of lock.mdb would drop LMDB's fcntl locks, so no lock goes there).
 *
 * Damage: a damaged store fails the read instead of answering wrongly; see lmdb_pages.c.
 *
 * Sizes: stats come from mdb_env_stat (entries are exact). LMDB has no size estimate:
 * approximate_size walks to both ends of the range, estimates the fraction of the entries
 * below each from the node positions on the path, and scales the bytes of the leaf and
 * overflow pages by the difference: a few pages read, whatever the store's size.
 *
 * close syncs and closes the environment; the directory can then be copied whole and opened
 * elsewhere (only data.mdb matters; lock.mdb is rebuilt). destroy removes data.mdb and
 * lock.mdb.
 */
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kv/backend.h"
#include "kv/kv.h"
#include "kv/lmdb_pages.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define LM_LOCK_FILE "lock.mdb"
#define LM_MAX_KEY (KV_MAX_KEY_BYTES + 1)
#define LM_MAX_READERS 1024
#define LM_POOL_IDLE_MAX 64 /* idle read transactions kept for gets (each holds a slot) */
#define LM_SNAPSHOT_TRIES 8 /* walks restarted because writers reused the snapshot's meta */
/* How far past the start of a page LMDB may read while it visits the page: 16-bit node
 * offsets, then a node header and a key. */
#define LM_TAIL_BYTES ((size_t)72 << 10)

static const size_t lm_map_sizes[] = {(size_t)1 << 40, (size_t)256 << 30, (size_t)64 << 30};

struct lm_reader {
    MDB_txn *txn; /* read-only; reset while in the pool */
    MDB_cursor *cur;
    struct lm_checked *checked; /* LM_CHECKED_SLOTS */
    struct lm_reader *next;
};

struct kv_lmdb {
    struct kv base; /* first: base.ops */
    char *path;
    MDB_env *env;
    MDB_dbi dbi;
    int dir_fd;               /* flock(2)ed while open */
    struct lm_pages pg;       /* the page reader's view: path, env, our map of data.mdb */
    pthread_mutex_t write_mu; /* one batch at a time; taken before LMDB's writer lock */
    pthread_mutex_t pool_mu;  /* the idle readers; a leaf lock */
    struct lm_reader *pool;
    size_t pool_len;
    atomic_int iters; /* open iterators */
};

/* ---- errors ----------------------------------------------------------------------------- */

static int lm_fail(const struct kv_lmdb *db, const char *what, int ret)
{
    char hint[160] = "";
    switch (ret) {
    case MDB_MAP_FULL:
        snprintf(hint, sizeof(hint),
                 " (the store filled its map of %zu GiB; nothing of the "
                 "batch was written)",
                 db->pg.map_bytes >> 30);
        break;
    case MDB_TXN_FULL:
        snprintf(hint, sizeof(hint),
                 " (the batch dirtied more pages than one LMDB "
                 "transaction holds; nothing of it was written)");
        break;
    case MDB_READERS_FULL:
        snprintf(hint, sizeof(hint), " (%d open iterators and concurrent reads)", LM_MAX_READERS);
        break;
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_BAD_TXN:
    case MDB_PANIC:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
        snprintf(hint, sizeof(hint), " (the store is damaged)");
        break;
    default:
        break;
    }
    kv_set_error("lmdb %s: %s: %s%s", db->path, what, mdb_strerror(ret), hint);
    return RC_BACKEND;
}

/* LMDB aborts the process after this returns; say which store it was. */
static void lm_assert(MDB_env *env, const char *msg)
{
    const struct kv_lmdb *db = mdb_env_get_userctx(env);
    fprintf(stderr, "lmdb %s: %s\n", db ? db->path : "?", msg);
    LOG_ERROR("lmdb %s: LMDB stops the process on a failed assertion (the store is probably "
              "damaged): %s",
              db ? db->path : "?", msg);
}

/* ---- read transactions ------------------------------------------------------------------ */

static void reader_drop(struct lm_reader *r)
{
    if (r->cur) {
        mdb_cursor_close(r->cur);
    }
    if (r->txn) {
        mdb_txn_abort(r->txn);
    }
    free(r->checked);
    free(r);
}

/* Renews a reset reader: its snapshot is the store now. */
static int reader_renew(const struct kv_lmdb *db, struct lm_reader *r, const char *what)
{
    int ret = mdb_txn_renew(r->txn);
    if (ret == 0) {
        ret = mdb_cursor_renew(r->txn, r->cur);
    }
    return ret == 0 ? 0 : lm_fail(db, what, ret);
}

/* A live read transaction with a cursor: from the pool, or new. */
static int reader_take(struct kv_lmdb *db, struct lm_reader **out, const char *what)
{
    struct lm_reader *r;
    int ret, rc;
    CHECK_ALWAYS(pthread_mutex_lock(&db->pool_mu) == 0);
    r = db->pool;
    if (r) {
        db->pool = r->next;
        db->pool_len--;
    }
    pthread_mutex_unlock(&db->pool_mu);
    if (r) {
        rc = reader_renew(db, r, what);
        if (rc != 0) {
            reader_drop(r);
            return rc;
        }
        *out = r;
        return 0;
    }
    r = xcalloc(1, sizeof(*r));
    r->checked = xcalloc(LM_CHECKED_SLOTS, sizeof(*r->checked)); /* pgno 0: matches no page */
    ret = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &r->txn);
    if (ret != 0) {
        r->txn = NULL;
    } else {
        ret = mdb_cursor_open(r->txn, db->dbi, &r->cur);
        if (ret != 0) {
            r->cur = NULL;
        }
    }
    if (ret != 0) {
        reader_drop(r);
        return lm_fail(db, what, ret);
    }
    *out = r;
    return 0;
}

/* Returns a reader to the pool (healthy: no LMDB error in its transaction), else frees it. */
static void reader_give(struct kv_lmdb *db, struct lm_reader *r, int healthy)
{
    if (healthy) {
        mdb_txn_reset(r->txn);
        CHECK_ALWAYS(pthread_mutex_lock(&db->pool_mu) == 0);
        if (db->pool_len < LM_POOL_IDLE_MAX) {
            r->next = db->pool;
            db->pool = r;
            db->pool_len++;
            r = NULL;
        }
        pthread_mutex_unlock(&db->pool_mu);
    }
    if (r) {
        reader_drop(r);
    }
}

/* Reads r's snapshot meta page; if writers reused it already, moves r to a new snapshot
 * first (the callers, gets and size estimates, promise no particular snapshot). */
static int snap_take(const struct kv_lmdb *db, struct lm_reader *r, struct lm_snap *s,
                     const char *what)
{
    for (int tries = 0; tries < LM_SNAPSHOT_TRIES; tries++) {
        int rc = kv_lmdb_snap_read(&db->pg, r->txn, s, what);
        s->checked = r->checked;
        if (rc <= 0) {
            return rc;
        }
        mdb_txn_reset(r->txn);
        rc = reader_renew(db, r, what);
        if (rc != 0) {
            return rc;
        }
    }
    kv_set_error("lmdb %s: %s: writers kept replacing the snapshot being read", db->path, what);
    return RC_BACKEND;
}

/* ---- open, close, destroy --------------------------------------------------------------- */

/* Keeps LM_TAIL_BYTES of zeros (a hole: no disk space) after the last page of data.mdb, so
 * that a damaged page near the end of the file cannot make LMDB read past it (SIGBUS): it
 * reads zeros and reports the damage. LMDB minds a longer file no more than it does with
 * MDB_WRITEMAP, which extends it to the map size. Best effort: a failure costs only this
 * protection. Called while no batch is being written (open, or under write_mu). */
static void tail_pad(const struct kv_lmdb *db)
{
    MDB_envinfo info;
    struct stat st;
    int fd;
    if (mdb_env_info(db->env, &info) == 0 && mdb_env_get_fd(db->env, &fd) == 0 &&
        fstat(fd, &st) == 0) {
        uint64_t want = (info.me_last_pgno + 1) * db->pg.psize + LM_TAIL_BYTES;
        if ((uint64_t)st.st_size < want) {
            int ignored = ftruncate(fd, (off_t)want);
            (void)ignored;
        }
    }
}

static void lm_free(struct kv_lmdb *db)
{
    while (db->pool) {
        struct lm_reader *r = db->pool;
        db->pool = r->next;
        reader_drop(r);
    }
    if (db->pg.map) {
        munmap((void *)db->pg.map, db->pg.map_bytes);
    }
    if (db->env) {
        mdb_env_close(db->env);
    }
    if (db->dir_fd >= 0) {
        close(db->dir_fd); /* releases the flock */
    }
    pthread_mutex_destroy(&db->write_mu);
    pthread_mutex_destroy(&db->pool_mu);
    free(db->path);
    free(db);
}

static int lock_dir(struct kv_lmdb *db)
{
    db->dir_fd = open(db->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (db->dir_fd < 0) {
        kv_set_error("lmdb %s: cannot open the directory: %s", db->path, strerror(errno));
        return RC_IO;
    }
    if (flock(db->dir_fd, LOCK_EX | LOCK_NB) != 0) {
        kv_set_error("lmdb %s: the store is in use by another process or handle (%s)", db->path,
                     strerror(errno));
        return RC_BACKEND;
    }
    return 0;
}

/* Opens the environment and our own mapping of data.mdb, as large as LMDB's, trying smaller
 * maps where the address space is short: mmap fails with ENOMEM there (EINVAL under some
 * tools, such as valgrind), and mdb_env_open passes that on. */
static int env_open(struct kv_lmdb *db)
{
    int ret = 0;
    for (size_t i = 0; i < ARRAY_LEN(lm_map_sizes); i++) {
        MDB_env *env = NULL;
        MDB_envinfo info;
        int fd;
        void *map;
        ret = mdb_env_create(&env);
        if (ret != 0) {
            return lm_fail(db, "mdb_env_create", ret);
        }
        /* Settings that only fail on bad arguments (programming errors here). */
        CHECK_ALWAYS(mdb_env_set_userctx(env, db) == 0);
        CHECK_ALWAYS(mdb_env_set_assert(env, lm_assert) == 0);
        CHECK_ALWAYS(mdb_env_set_maxreaders(env, LM_MAX_READERS) == 0);
        CHECK_ALWAYS(mdb_env_set_mapsize(env, lm_map_sizes[i]) == 0);
        ret = mdb_env_open(env, db->path, MDB_NOTLS | MDB_NORDAHEAD | MDB_NOMETASYNC, 0644);
        if (ret == 0) {
            CHECK_ALWAYS(mdb_env_info(env, &info) == 0 && mdb_env_get_fd(env, &fd) == 0);
            map = mmap(NULL, info.me_mapsize, PROT_READ, MAP_SHARED, fd, 0);
            if (map != MAP_FAILED) {
                (void)madvise(map, info.me_mapsize, MADV_RANDOM);
                db->env = env;
                db->pg.env = env;
                db->pg.map = map;
                db->pg.map_bytes = info.me_mapsize;
                return 0;
            }
            ret = errno;
        }
        mdb_env_close(env);
        if (ret != ENOMEM && ret != EINVAL) {
            return lm_fail(db, "open", ret);
        }
    }
    kv_set_error("lmdb %s: open: %s (no room in the address space for two maps of %zu GiB: "
                 "LMDB's and the page reader's)",
                 db->path, mdb_strerror(ret), lm_map_sizes[ARRAY_LEN(lm_map_sizes) - 1] >> 30);
    return RC_BACKEND;
}

/* Checks, in a read transaction, that LMDB and our page reader agree on the store (the page
 * reader expects LMDB 0.9's data format), that data.mdb holds every page its meta page names,
 * and with paranoid checks, the paths to the first and the last leaf. */
static int layout_check(struct kv_lmdb *db, int paranoid)
{
    /* Below and above every LMDB key: the empty string, and the byte after the prefix. */
    static const uint8_t highest[1] = {LM_KEY_PREFIX + 1};
    struct lm_reader *r = NULL;
    struct lm_snap s;
    MDB_envinfo info;
    MDB_stat st;
    struct stat fst;
    int rc, fd;

    rc = reader_take(db, &r, "open");
    if (rc != 0) {
        return rc;
    }
    rc = snap_take(db, r, &s, "open");
    if (rc == 0 && (mdb_stat(r->txn, db->dbi, &st) != 0 || mdb_env_info(db->env, &info) != 0 ||
                    st.ms_depth != s.depth || st.ms_entries != s.entries ||
                    st.ms_branch_pages != s.branch_pages || st.ms_leaf_pages != s.leaf_pages ||
                    st.ms_overflow_pages != s.overflow_pages || info.me_last_pgno != s.last_pg)) {
        kv_set_error("lmdb %s: open: " LM_DATA_FILE " does not read as LMDB 0.9's data format 1 "
                     "here (this build checks its pages with a reader of that format)",
                     db->path);
        rc = RC_BACKEND;
    }
    if (rc == 0) {
        CHECK_ALWAYS(mdb_env_get_fd(db->env, &fd) == 0);
        if (fstat(fd, &fst) != 0 || (uint64_t)fst.st_size < (s.last_pg + 1) * db->pg.psize) {
            rc = kv_lmdb_damaged(&db->pg, "open",
                                 LM_DATA_FILE " is %lld bytes, its meta page names %llu "
                                              "pages of %zu (truncated?)",
                                 (long long)fst.st_size, (unsigned long long)s.last_pg + 1,
                                 db->pg.psize);
        }
    }
    if (rc == 0 && paranoid) {
        rc = kv_lmdb_miss_prove(&db->pg, &s, highest, 0, "open");
        if (rc == 0) {
            rc = kv_lmdb_miss_prove(&db->pg, &s, highest, sizeof(highest), "open");
        }
    }
    reader_give(db, r, rc == 0);
    return rc;
}

static int lm_open(struct kv **out, const char *path, const struct kv_options *opt)
{
    struct kv_lmdb *db = xcalloc(1, sizeof(*db));
    char *data = kv_path_join(path, LM_DATA_FILE);
    MDB_txn *txn = NULL;
    MDB_stat st;
    struct stat fst;
    int ret, rc, dead;

    kv_lmdb_crc_init();
    db->base.ops = &kv_lmdb_ops;
    db->path = xstrdup(path);
    db->pg.path = db->path;
    db->dir_fd = -1;
    atomic_init(&db->iters, 0);
    CHECK_ALWAYS(pthread_mutex_init(&db->write_mu, NULL) == 0);
    CHECK_ALWAYS(pthread_mutex_init(&db->pool_mu, NULL) == 0);

    if (stat(data, &fst) != 0 && !opt->create_if_missing) {
        int err = errno;
        kv_set_error("lmdb %s: %s: %s (and create_if_missing is off)", path, data, strerror(err));
        rc = err == ENOENT ? RC_NOT_FOUND : RC_IO;
        goto out;
    }
    rc = lock_dir(db);
    if (rc == 0) {
        rc = env_open(db);
    }
    if (rc != 0) {
        goto out;
    }
    if (mdb_env_get_maxkeysize(db->env) < (int)LM_MAX_KEY) {
        kv_set_error("lmdb %s: this liblmdb takes keys of %d bytes at most, bitnode needs %u", path,
                     mdb_env_get_maxkeysize(db->env), LM_MAX_KEY);
        rc = RC_BACKEND;
        goto out;
    }
    CHECK_ALWAYS(mdb_env_stat(db->env, &st) == 0);
    db->pg.psize = st.ms_psize;
    if (db->pg.psize < 512 || db->pg.psize > 32768 || (db->pg.psize & (db->pg.psize - 1)) != 0) {
        rc = kv_lmdb_damaged(&db->pg, "open", "a page size of %zu", db->pg.psize);
        goto out;
    }
    db->pg.node_bounds = db->pg.psize <= (size_t)sysconf(_SC_PAGESIZE);
    /* The unnamed database always exists: a read transaction can open it. */
    ret = mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn);
    if (ret == 0) {
        ret = mdb_dbi_open(txn, NULL, 0, &db->dbi);
        if (ret == 0) {
            ret = mdb_txn_commit(txn);
        } else {
            mdb_txn_abort(txn);
        }
    }
    if (ret != 0) {
        rc = lm_fail(db, "open the database", ret);
        goto out;
    }
    (void)mdb_reader_check(db->env, &dead); /* slots of dead processes (none: flock) */
    rc = layout_check(db, opt->paranoid_checks);
    if (rc != 0) {
        goto out;
    }
    tail_pad(db);
    free(data);
    *out = &db->base;
    return 0;
out:
    free(data);
    lm_free(db);
    return rc;
}

static int lm_close(struct kv *kv)
{
    struct kv_lmdb *db = (struct kv_lmdb *)kv;
    int rc = 0, ret;
    CHECK_ALWAYS(atomic_load(&db->iters) == 0); /* kv.h: iterators are freed before close */
    /* Non-sync commits left the last meta page to the OS: make it durable before leaving. */
    ret = mdb_env_sync(db->env, 1);
    if (ret != 0) {
        rc = lm_fail(db, "close: sync", ret);
    }
    lm_free(db);
    return rc;
}

static int lm_destroy(const char *path)
{
    static const char *const files[] = {LM_DATA_FILE, LM_LOCK_FILE};
    int rc = 0;
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        char *p = kv_path_join(path, files[i]);
        if (unlink(p) != 0 && errno != ENOENT && rc == 0) {
            kv_set_error("lmdb %s: cannot remove %s: %s", path, p, strerror(errno));
            rc = RC_IO;
        }
        free(p);
    }
    return rc;
}

/* ---- reads and writes ------------------------------------------------------------------- */

/* The LMDB key of a kv key: the prefix byte, then the key. Returns its length. */
static size_t lm_key(uint8_t out[LM_MAX_KEY], const uint8_t *key, size_t key_len)
{
    out[0] = LM_KEY_PREFIX;
    memcpy(out + 1, key, key_len);
    return key_len + 1;
}

/* Proves that key (an LMDB key) is absent from r's snapshot (kv_lmdb_miss_prove). */
static int miss_check(const struct kv_lmdb *db, struct lm_reader *r, const uint8_t *key,
                      size_t key_len)
{
    struct lm_snap s;
    int rc = snap_take(db, r, &s, "get");
    return rc != 0 ? rc : kv_lmdb_miss_prove(&db->pg, &s, key, key_len, "get");
}

static int lm_get(struct kv *kv, struct buf *val, const uint8_t *key, size_t key_len)
{
    struct kv_lmdb *db = (struct kv_lmdb *)kv;
    uint8_t k[LM_MAX_KEY];
    size_t kl = lm_key(k, key, key_len);
    struct lm_reader *r;
    int rc, ret, healthy = 1;

    rc = reader_take(db, &r, "get");
    if (rc != 0) {
        return rc;
    }
    for (int attempt = 0;; attempt++) {
        MDB_val mk = {kl, k}, mv;
        ret = mdb_cursor_get(r->cur, &mk, &mv, MDB_SET_KEY);
        if (ret == 0) {
            rc = kv_lmdb_entry_check(&db->pg, &mk, &mv, "get");
            if (rc == 0 && val) {
                buf_append(val, (const uint8_t *)mv.mv_data + LM_CRC_BYTES,
                           mv.mv_size - LM_CRC_BYTES);
            }
            break;
        }
        if (ret != MDB_NOTFOUND) {
            rc = lm_fail(db, "get", ret);
            healthy = 0;
            break;
        }
        rc = miss_check(db, r, k, kl);
        if (rc == 0) {
            rc = RC_NOT_FOUND;
            break;
        }
        /* Damage persists; a writer racing the meta page read does not: ask a new snapshot
         * once before reporting it. */
        if (attempt > 0) {
            break;
        }
        mdb_txn_reset(r->txn);
        rc = reader_renew(db, r, "get");
        if (rc != 0) {
            healthy = 0;
            break;
        }
    }
    reader_give(db, r, healthy && (rc == 0 || rc == RC_NOT_FOUND));
    return rc;
}

static int lm_write(struct kv *kv, const struct kv_batch *b, int sync)
{
    struct kv_lmdb *db = (struct kv_lmdb *)kv;
    struct kv_batch_op op;
    size_t pos = 0;
    MDB_txn *txn = NULL;
    uint8_t k[LM_MAX_KEY];
    int ret = 0, rc = 0;

    CHECK_ALWAYS(pthread_mutex_lock(&db->write_mu) == 0);
    if (b->count == 0) {
        goto out_sync; /* nothing to commit; a sync still makes earlier batches durable */
    }
    ret = mdb_txn_begin(db->env, NULL, 0, &txn);
    if (ret != 0) {
        rc = lm_fail(db, "write: begin transaction", ret);
        goto out;
    }
    while (ret == 0 && kv_batch_next(b, &pos, &op)) {
        size_t kl = lm_key(k, op.key, op.key_len);
        MDB_val mk = {kl, k}, mv;
        if (op.op == KV_OP_PUT) {
            /* LMDB makes room for the value (MDB_RESERVE); the checksum and value go there. */
            mv.mv_size = LM_CRC_BYTES + op.val_len;
            mv.mv_data = NULL;
            ret = mdb_put(txn, db->dbi, &mk, &mv, MDB_RESERVE);
            if (ret == 0) {
                uint8_t *dst = mv.mv_data;
                wr_u32le(dst, kv_lmdb_record_crc(k, kl, op.val, op.val_len));
                if (op.val_len) {
                    memcpy(dst + LM_CRC_BYTES, op.val, op.val_len);
                }
            }
        } else {
            ret = mdb_del(txn, db->dbi, &mk, NULL);
            if (ret == MDB_NOTFOUND) {
                ret = 0;
            }
        }
    }
    if (ret != 0) {
        mdb_txn_abort(txn);
        rc = lm_fail(db, "write", ret);
        goto out;
    }
    ret = mdb_txn_commit(txn);
    if (ret != 0) {
        rc = lm_fail(db, "write: commit", ret);
        goto out;
    }
    tail_pad(db);
out_sync:
    if (sync) {
        ret = mdb_env_sync(db->env, 1);
        if (ret != 0) {
            rc = lm_fail(db,
                         "write: sync (the batch is applied, but may not survive a power "
                         "cut)",
                         ret);
        }
    }
out:
    pthread_mutex_unlock(&db->write_mu);
    return rc;
}

/* ---- iterators -------------------------------------------------------------------------- */

/* An iterator reads its snapshot with the page reader, not through an LMDB cursor: its read
 * transaction pins the snapshot's pages; the reader checks each page once, as the walk enters
 * it (lmdb_pages.c's page_check), so that nothing steps onto a damaged page unchecked (LMDB's
 * cursor would fail an assertion or fault there), and each record as it is reached
 * (kv_lmdb_record_read). */

struct lm_iter {
    struct kv_iter base; /* first: base.ops */
    struct kv_lmdb *db;
    struct lm_reader *reader; /* its transaction pins the snapshot */
    struct lm_snap snap;
    struct walk_step path[LM_MAX_DEPTH]; /* to the current record */
    const uint8_t *key, *val;            /* the current record: LMDB key; value with its checksum */
    size_t key_len, val_len;
    int valid;
};

static int lm_iter_new(struct kv *kv, struct kv_iter **out)
{
    struct kv_lmdb *db = (struct kv_lmdb *)kv;
    struct lm_iter *it;
    struct lm_reader *r;
    struct lm_snap snap;
    int rc = reader_take(db, &r, "iterator"); /* its snapshot: the store now */
    if (rc != 0) {
        return rc;
    }
    rc = snap_take(db, r, &snap, "iterator");
    if (rc != 0) {
        reader_give(db, r, 0);
        return rc;
    }
    it = xcalloc(1, sizeof(*it));
    it->base.ops = &kv_lmdb_ops;
    it->db = db;
    it->reader = r;
    it->snap = snap;
    atomic_fetch_add(&db->iters, 1);
    *out = &it->base;
    return 0;
}

static void lm_iter_free(struct kv_iter *base)
{
    struct lm_iter *it = (struct lm_iter *)base;
    reader_give(it->db, it->reader, 1);
    atomic_fetch_sub(&it->db->iters, 1);
    free(it);
}

/* Takes the record the leaf step is on, which must come at or after from (an LMDB key), or
 * after the current record (from NULL). */
static int iter_take(struct lm_iter *it, const uint8_t *from, size_t from_len, const char *what)
{
    const struct walk_step *leaf = &it->path[it->snap.depth - 1];
    const uint8_t *k, *v;
    size_t kl, vl;
    int rc = kv_lmdb_record_read(&it->db->pg, &it->snap, kv_lmdb_page_node(leaf->p, leaf->a), what,
                                 &k, &kl, &v, &vl);
    if (rc != 0) {
        it->valid = 0;
        return rc;
    }
    if (from ? kv_key_cmp(k, kl, from, from_len) < 0
             : kv_key_cmp(k, kl, it->key, it->key_len) <= 0) {
        it->valid = 0;
        return kv_lmdb_damaged(&it->db->pg, what, "the records are out of order");
    }
    it->key = k;
    it->key_len = kl;
    it->val = v;
    it->val_len = vl;
    it->valid = 1;
    return 0;
}

/* After a move that left the leaf step past its last record: on to the next leaf. Returns 0
 * (valid or at the end) or RC_BACKEND. */
static int iter_next_leaf(struct lm_iter *it, const char *what)
{
    int rc = kv_lmdb_path_step(&it->db->pg, &it->snap, it->path, 1, what);
    if (rc == 1) {
        it->valid = 0;
        return 0;
    }
    return rc;
}

static int lm_iter_seek(struct kv_iter *base, const uint8_t *key, size_t key_len)
{
    struct lm_iter *it = (struct lm_iter *)base;
    uint8_t k[LM_MAX_KEY];
    size_t kl = lm_key(k, key, key_len);
    const struct walk_step *leaf;
    int rc;
    it->valid = 0;
    if (it->snap.depth == 0) {
        return 0;
    }
    rc = kv_lmdb_path_seek(&it->db->pg, &it->snap, it->path, k, kl, "iterator seek");
    leaf = &it->path[it->snap.depth - 1];
    if (rc == 0 && leaf->a == leaf->n) {
        rc = iter_next_leaf(it, "iterator seek");
        if (rc == 0 && leaf->a == leaf->n) {
            return 0; /* past the last record */
        }
    }
    return rc != 0 ? rc : iter_take(it, k, kl, "iterator seek");
}

static int lm_iter_seek_first(struct kv_iter *base)
{
    return lm_iter_seek(base, (const uint8_t *)"", 0);
}

static int lm_iter_next(struct kv_iter *base)
{
    struct lm_iter *it = (struct lm_iter *)base;
    struct walk_step *leaf = &it->path[it->snap.depth - 1];
    if (++leaf->a == leaf->n) {
        int rc = iter_next_leaf(it, "iterator next");
        if (rc != 0 || !it->valid) {
            it->valid = 0;
            return rc;
        }
    }
    return iter_take(it, NULL, 0, "iterator next");
}

static int lm_iter_valid(const struct kv_iter *base)
{
    return ((const struct lm_iter *)base)->valid;
}

static const uint8_t *lm_iter_key(const struct kv_iter *base, size_t *len)
{
    const struct lm_iter *it = (const struct lm_iter *)base;
    *len = it->key_len - 1;
    return it->key + 1;
}

static const uint8_t *lm_iter_value(const struct kv_iter *base, size_t *len)
{
    const struct lm_iter *it = (const struct lm_iter *)base;
    *len = it->val_len - LM_CRC_BYTES;
    return it->val + LM_CRC_BYTES;
}

/* ---- sizes ------------------------------------------------------------------------------ */

static int lm_stats(struct kv *kv, struct kv_stats *out)
{
    struct kv_lmdb *db = (struct kv_lmdb *)kv;
    MDB_envinfo info;
    MDB_stat st;
    int ret = mdb_env_stat(db->env, &st);
    if (ret == 0) {
        ret = mdb_env_info(db->env, &info);
    }
    if (ret != 0) {
        return lm_fail(db, "stats", ret);
    }
    out->disk_bytes = kv_dir_bytes(db->path);
    out->mem_bytes = 0; /* the pages live in the OS page cache */
    out->entries = st.ms_entries;
    snprintf(out->text, sizeof(out->text),
             "lmdb %s: %.1f MiB on disk, %llu entries, depth %u, %llu pages (%llu/%llu/%llu "
             "branch/leaf/overflow) of %llu in the file, map %zu GiB, %u readers",
             db->path, (double)out->disk_bytes / 1048576.0, (unsigned long long)st.ms_entries,
             st.ms_depth,
             (unsigned long long)(st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages),
             (unsigned long long)st.ms_branch_pages, (unsigned long long)st.ms_leaf_pages,
             (unsigned long long)st.ms_overflow_pages, (unsigned long long)info.me_last_pgno + 1,
             db->pg.map_bytes >> 30, info.me_numreaders);
    return 0;
}

/* The estimated fraction of s's entries below the LMDB key of kv key key. */
static int key_frac(const struct kv_lmdb *db, const struct lm_snap *s, const uint8_t *key,
                    size_t key_len, double *frac)
{
    struct walk_step path[LM_MAX_DEPTH];
    uint8_t k[LM_MAX_KEY];
    int rc;
    *frac = 0;
    if (s->depth == 0) {
        return 0;
    }
    rc = kv_lmdb_path_seek(&db->pg, s, path, k, lm_key(k, key, key_len), "approximate size");
    if (rc == 0) {
        *frac = kv_lmdb_path_frac(s, path);
    }
    return rc;
}

static int lm_approximate_size(struct kv *kv, uint64_t *out, const uint8_t *begin, size_t begin_len,
                               const uint8_t *end, size_t end_len)
{
    struct kv_lmdb *db = (struct kv_lmdb *)kv;
    struct lm_reader *r;
    struct lm_snap s;
    double lo = 0, hi = 1;
    int rc;

    rc = reader_take(db, &r, "approximate size");
    if (rc != 0) {
        return rc;
    }
    rc = snap_take(db, r, &s, "approximate size");
    if (rc == 0) {
        rc = key_frac(db, &s, begin, begin_len, &lo);
    }
    if (rc == 0 && end) {
        rc = key_frac(db, &s, end, end_len, &hi);
    }
    reader_give(db, r, rc == 0);
    if (rc != 0) {
        return rc;
    }
    /* Entries are taken as equally large: the fraction of them times the pages holding them. */
    *out = hi > lo
               ? (uint64_t)((hi - lo) * (double)((s.leaf_pages + s.overflow_pages) * db->pg.psize))
               : 0;
    return 0;
}

const struct kv_ops kv_lmdb_ops = {
    .name = "lmdb",
    .persistent = 1,
    .open = lm_open,
    .close = lm_close,
    .destroy = lm_destroy,
    .get = lm_get,
    .write = lm_write,
    .iter_new = lm_iter_new,
    .iter_free = lm_iter_free,
    .iter_seek = lm_iter_seek,
    .iter_seek_first = lm_iter_seek_first,
    .iter_next = lm_iter_next,
    .iter_valid = lm_iter_valid,
    .iter_key = lm_iter_key,
    .iter_value = lm_iter_value,
    .stats = lm_stats,
    .approximate_size = lm_approximate_size,
};
