/* kv backend "leveldb", through LevelDB's C API (leveldb/c.h).
 *
 * One LevelDB database per store (the node keeps one store per purpose: block index,
 * chainstate), each with its own block cache and bloom filter policy, sharing LevelDB's
 * default environment (one background compaction thread per process).
 *
 * Options follow Bitcoin Core's dbwrapper: half the cache for the block cache, a quarter for
 * the write buffer (at least 8 MiB, see LDB_MIN_WRITE_BUFFER), 32 MiB table files, no
 * compression (kv_options_init), checksums verified on every read, max_open_files low
 * (64 by default) so that the node stays well inside a 1024-descriptor limit. LevelDB's own
 * comparator is already unsigned byte-wise, the order kv.h promises.
 *
 * Atomicity: a kv batch becomes one LevelDB write batch, which LevelDB appends to its log as
 * one checksummed record: after a crash, recovery replays whole records only.
 */
#include <dirent.h>
#include <leveldb/c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv/backend.h"
#include "kv/kv.h"
#include "util/check.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define LDB_MAX_FILE_SIZE ((size_t)32 << 20)
/* A floor under the write buffer (a memtable, two while one is written out): below it, a
 * small -dbcache makes LevelDB write its level-0 files so often that compaction rewrites the
 * store many times over (measured: 8 MiB writes a third less than 1 MiB at -dbcache=8). */
#define LDB_MIN_WRITE_BUFFER ((size_t)8 << 20)
#define LDB_MIN_BLOCK_CACHE ((size_t)1 << 20)

struct kv_ldb {
    struct kv base; /* first: base.ops */
    char *path;
    char *damaged; /* the table found damaged after a corruption error, or NULL */
    leveldb_t *db;
    leveldb_options_t *options;
    leveldb_cache_t *cache;
    leveldb_filterpolicy_t *filter; /* NULL without a bloom filter */
    leveldb_readoptions_t *readopts;
    leveldb_readoptions_t *iteropts;
    leveldb_writeoptions_t *writeopts;
    leveldb_writeoptions_t *syncopts;
    size_t block_cache_bytes;
    size_t write_buffer_bytes;
};

struct ldb_iter {
    struct kv_iter base; /* first: base.ops */
    struct kv_ldb *db;
    leveldb_iterator_t *it;
};

/* --- Naming the damaged table ---------------------------------------------------------
 * LevelDB's "Corruption: block checksum mismatch" does not say which file. After such an
 * error (never on the read path), each table of the store is checked as LevelDB reads it
 * (doc/files.md): the footer's magic, then every block's CRC32C trailer (masked, over the
 * block's bytes and its type byte): the metaindex, the index, and each data block the
 * index lists (when the index is stored uncompressed, as the node writes it). */

static uint32_t crc32c_update(uint32_t crc, const uint8_t *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
            }
            table[i] = c;
        }
    }
    crc = ~crc;
    while (n--) {
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    }
    return ~crc;
}

static int get_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift <= 63 && *pos < len; shift += 7) {
        uint8_t b = p[(*pos)++];
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            return 0;
        }
    }
    return -1;
}

/* 0 if the block at (off, size) of table t (len bytes) has a good trailer. */
static int block_ok(const uint8_t *t, size_t len, uint64_t off, uint64_t size)
{
    if (off > len || size > len - off || len - off - size < 5) {
        return -1;
    }
    const uint8_t *tr = t + off + size;
    uint32_t stored = (uint32_t)tr[1] | (uint32_t)tr[2] << 8 | (uint32_t)tr[3] << 16 |
                      (uint32_t)tr[4] << 24;
    uint32_t crc = crc32c_update(crc32c_update(0, t + off, size), tr, 1);
    uint32_t masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
    return masked == stored ? 0 : -1;
}

/* 0 if every block of table t (len bytes) reads back. */
static int table_ok(const uint8_t *t, size_t len)
{
    static const uint8_t magic[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
    if (len < 48 || memcmp(t + len - 8, magic, 8) != 0) {
        return -1;
    }
    const uint8_t *f = t + len - 48;
    size_t pos = 0;
    uint64_t moff, msize, ioff, isize;
    if (get_varint(f, 40, &pos, &moff) || get_varint(f, 40, &pos, &msize) ||
        get_varint(f, 40, &pos, &ioff) || get_varint(f, 40, &pos, &isize) ||
        block_ok(t, len, moff, msize) || block_ok(t, len, ioff, isize)) {
        return -1;
    }
    if (t[ioff + isize] != 0 || isize < 4) {
        return 0; /* a compressed index: its blocks are not listed here */
    }
    const uint8_t *ib = t + ioff;
    uint32_t nrestart = (uint32_t)ib[isize - 4] | (uint32_t)ib[isize - 3] << 8 |
                        (uint32_t)ib[isize - 2] << 16 | (uint32_t)ib[isize - 1] << 24;
    if ((uint64_t)nrestart * 4 + 4 > isize) {
        return -1;
    }
    size_t end = (size_t)(isize - 4 - (uint64_t)nrestart * 4);
    pos = 0;
    while (pos < end) {
        uint64_t shared, nonshared, vlen, off, size;
        if (get_varint(ib, end, &pos, &shared) || get_varint(ib, end, &pos, &nonshared) ||
            get_varint(ib, end, &pos, &vlen) || nonshared > end - pos) {
            return -1;
        }
        pos += (size_t)nonshared;
        size_t vend = pos + (size_t)vlen;
        if (vlen > end - pos || get_varint(ib, vend, &pos, &off) ||
            get_varint(ib, vend, &pos, &size) || block_ok(t, len, off, size)) {
            return -1;
        }
        pos = vend;
    }
    return 0;
}

/* Into out: the name of the first table of the store at dir that does not read back, or
 * "" (none: the damage is elsewhere, e.g. in the log or the manifest). */
static void find_damaged_table(const char *dir, char *out, size_t out_len)
{
    out[0] = 0;
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *de;
    while (!out[0] && (de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);
        if (nl < 5 || (strcmp(de->d_name + nl - 4, ".ldb") && strcmp(de->d_name + nl - 4, ".sst"))) {
            continue;
        }
        char path[4300];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        FILE *fp = fopen(path, "rb");
        if (!fp) {
            continue;
        }
        uint8_t *t = NULL;
        long len = -1;
        if (fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
            t = xmalloc((size_t)len + 1);
            if (fread(t, 1, (size_t)len, fp) != (size_t)len) {
                len = -1;
            }
        }
        fclose(fp);
        if (len >= 0 && table_ok(t, (size_t)len) != 0) {
            snprintf(out, out_len, "%s", path);
        }
        free(t);
    }
    closedir(d);
}

/* Records a LevelDB error message (malloc'd by LevelDB) and frees it. A corruption is
 * followed by the damaged table, when one is found. */
static int ldb_fail(struct kv_ldb *db, const char *what, char *err)
{
    char table[4300] = "";
    if (db && err && strncmp(err, "Corruption", 10) == 0) {
        /* The scan once (each table is read whole); gets fail on several threads. */
        char *known = __atomic_load_n(&db->damaged, __ATOMIC_ACQUIRE);
        if (!known) {
            find_damaged_table(db->path, table, sizeof(table));
            char *found = table[0] ? xstrdup(table) : NULL;
            if (found && !__atomic_compare_exchange_n(&db->damaged, &known, found, 0,
                                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                free(found);
            }
        }
        known = __atomic_load_n(&db->damaged, __ATOMIC_ACQUIRE);
        snprintf(table, sizeof(table), "%s", known ? known : "");
    }
    /* Core's words first ("Fatal LevelDB error: Corruption: ..."), then where. */
    if (table[0]) {
        kv_set_error("Fatal LevelDB error: %s in %s (%s of %s)", err, table, what, db->path);
    } else {
        kv_set_error("Fatal LevelDB error: %s (%s of %s)", err ? err : "unknown error", what,
                     db ? db->path : "");
    }
    if (err) {
        leveldb_free(err);
    }
    return RC_BACKEND;
}

static void ldb_free(struct kv_ldb *db)
{
    if (db->db) {
        leveldb_close(db->db);
    }
    /* The options refer to the cache and filter: destroy them after the database. */
    if (db->options) {
        leveldb_options_destroy(db->options);
    }
    if (db->filter) {
        leveldb_filterpolicy_destroy(db->filter);
    }
    if (db->cache) {
        leveldb_cache_destroy(db->cache);
    }
    if (db->readopts) {
        leveldb_readoptions_destroy(db->readopts);
    }
    if (db->iteropts) {
        leveldb_readoptions_destroy(db->iteropts);
    }
    if (db->writeopts) {
        leveldb_writeoptions_destroy(db->writeopts);
    }
    if (db->syncopts) {
        leveldb_writeoptions_destroy(db->syncopts);
    }
    free(db->path);
    free(db->damaged);
    free(db);
}

static int ldb_open(struct kv **out, const char *path, const struct kv_options *opt)
{
    struct kv_ldb *db = xcalloc(1, sizeof(*db));
    char *err = NULL;

    db->base.ops = &kv_leveldb_ops;
    db->path = xstrdup(path);
    db->block_cache_bytes = opt->cache_bytes / 2;
    if (db->block_cache_bytes < LDB_MIN_BLOCK_CACHE) {
        db->block_cache_bytes = LDB_MIN_BLOCK_CACHE;
    }
    db->write_buffer_bytes = opt->cache_bytes / 4;
    if (db->write_buffer_bytes < LDB_MIN_WRITE_BUFFER) {
        db->write_buffer_bytes = LDB_MIN_WRITE_BUFFER;
    }

    db->options = leveldb_options_create();
    db->cache = leveldb_cache_create_lru(db->block_cache_bytes);
    leveldb_options_set_cache(db->options, db->cache);
    if (opt->bloom_bits_per_key > 0) {
        db->filter = leveldb_filterpolicy_create_bloom(opt->bloom_bits_per_key);
        leveldb_options_set_filter_policy(db->options, db->filter);
    }
    leveldb_options_set_create_if_missing(db->options, (uint8_t)(opt->create_if_missing != 0));
    leveldb_options_set_paranoid_checks(db->options, (uint8_t)(opt->paranoid_checks != 0));
    leveldb_options_set_max_open_files(db->options,
                                       opt->max_open_files > 0 ? opt->max_open_files : 64);
    leveldb_options_set_write_buffer_size(db->options, db->write_buffer_bytes);
    leveldb_options_set_max_file_size(db->options, LDB_MAX_FILE_SIZE);
    leveldb_options_set_compression(db->options, opt->compression ? leveldb_snappy_compression
                                                                  : leveldb_no_compression);

    db->readopts = leveldb_readoptions_create();
    leveldb_readoptions_set_verify_checksums(db->readopts, 1);
    db->iteropts = leveldb_readoptions_create();
    leveldb_readoptions_set_verify_checksums(db->iteropts, 1);
    /* A full scan must not evict the working set from the block cache. */
    leveldb_readoptions_set_fill_cache(db->iteropts, 0);
    db->writeopts = leveldb_writeoptions_create();
    leveldb_writeoptions_set_sync(db->writeopts, 0);
    db->syncopts = leveldb_writeoptions_create();
    leveldb_writeoptions_set_sync(db->syncopts, 1);

    LOG_INFO("Opening LevelDB in %s", path); /* Core's CDBWrapper's lines */
    db->db = leveldb_open(db->options, path, &err);
    if (err) {
        int rc = ldb_fail(db, "open", err);
        db->db = NULL;
        ldb_free(db);
        return rc;
    }
    LOG_INFO("Opened LevelDB successfully");
    *out = &db->base;
    return 0;
}

static int ldb_close(struct kv *kv)
{
    /* LevelDB's log already holds every write: closing needs no flush to be safe. But a
     * close abandons the compaction in progress, and its finished output tables stay
     * beside its inputs until the next open deletes them (the 5.3M-coin store: 463 MB on
     * disk, 138 MB of it such outputs and a 57 MB log). So the store is opened once more
     * and closed: the open writes the log out as a table and deletes the files no version
     * refers to. (Waiting for the compaction instead could hold a stop for as long as the
     * compaction runs.) */
    struct kv_ldb *db = (struct kv_ldb *)kv;
    leveldb_close(db->db);
    char *err = NULL;
    db->db = leveldb_open(db->options, db->path, &err);
    if (err) {
        leveldb_free(err); /* closed already: the next open finds the store as it was */
        db->db = NULL;
    }
    ldb_free(db);
    return 0;
}

static int ldb_destroy(const char *path)
{
    LOG_INFO("Wiping LevelDB in %s", path);
    leveldb_options_t *o = leveldb_options_create();
    char *err = NULL;
    int rc = 0;
    leveldb_destroy_db(o, path, &err);
    if (err) {
        kv_set_error("leveldb %s: destroy: %s", path, err);
        leveldb_free(err);
        rc = RC_BACKEND;
    }
    leveldb_options_destroy(o);
    return rc;
}

static int ldb_get(struct kv *kv, struct buf *val, const uint8_t *key, size_t key_len)
{
    struct kv_ldb *db = (struct kv_ldb *)kv;
    char *err = NULL;
    size_t vlen = 0;
    char *v = leveldb_get(db->db, db->readopts, (const char *)key, key_len, &vlen, &err);
    if (err) {
        if (v) {
            leveldb_free(v);
        }
        return ldb_fail(db, "get", err);
    }
    if (!v) {
        return RC_NOT_FOUND;
    }
    if (val) {
        buf_append(val, v, vlen);
    }
    leveldb_free(v);
    return 0;
}

static int ldb_write(struct kv *kv, const struct kv_batch *b, int sync)
{
    struct kv_ldb *db = (struct kv_ldb *)kv;
    leveldb_writebatch_t *wb = leveldb_writebatch_create();
    struct kv_batch_op op;
    size_t pos = 0;
    char *err = NULL;
    while (kv_batch_next(b, &pos, &op)) {
        if (op.op == KV_OP_PUT) {
            leveldb_writebatch_put(wb, (const char *)op.key, op.key_len, (const char *)op.val,
                                   op.val_len);
        } else {
            leveldb_writebatch_delete(wb, (const char *)op.key, op.key_len);
        }
    }
    leveldb_write(db->db, sync ? db->syncopts : db->writeopts, wb, &err);
    leveldb_writebatch_destroy(wb);
    if (err) {
        return ldb_fail(db, "write", err);
    }
    return 0;
}

/* ---- iterators ---------------------------------------------------------------------- */

static int ldb_iter_new(struct kv *kv, struct kv_iter **out)
{
    struct kv_ldb *db = (struct kv_ldb *)kv;
    struct ldb_iter *it = xcalloc(1, sizeof(*it));
    it->base.ops = &kv_leveldb_ops;
    it->db = db;
    /* LevelDB iterators read from an implicit snapshot taken here. */
    it->it = leveldb_create_iterator(db->db, db->iteropts);
    *out = &it->base;
    return 0;
}

static void ldb_iter_free(struct kv_iter *base)
{
    struct ldb_iter *it = (struct ldb_iter *)base;
    leveldb_iter_destroy(it->it);
    free(it);
}

/* After a move: an invalid iterator may mean the end or an error; tell them apart. */
static int ldb_iter_status(struct ldb_iter *it, const char *what)
{
    char *err = NULL;
    if (leveldb_iter_valid(it->it)) {
        return 0;
    }
    leveldb_iter_get_error(it->it, &err);
    if (err) {
        return ldb_fail(it->db, what, err);
    }
    return 0;
}

static int ldb_iter_seek(struct kv_iter *base, const uint8_t *key, size_t key_len)
{
    struct ldb_iter *it = (struct ldb_iter *)base;
    leveldb_iter_seek(it->it, (const char *)key, key_len);
    return ldb_iter_status(it, "iterator seek");
}

static int ldb_iter_seek_first(struct kv_iter *base)
{
    struct ldb_iter *it = (struct ldb_iter *)base;
    leveldb_iter_seek_to_first(it->it);
    return ldb_iter_status(it, "iterator seek");
}

static int ldb_iter_next(struct kv_iter *base)
{
    struct ldb_iter *it = (struct ldb_iter *)base;
    leveldb_iter_next(it->it);
    return ldb_iter_status(it, "iterator next");
}

static int ldb_iter_valid(const struct kv_iter *base)
{
    const struct ldb_iter *it = (const struct ldb_iter *)base;
    return leveldb_iter_valid(it->it) != 0;
}

static const uint8_t *ldb_iter_key(const struct kv_iter *base, size_t *len)
{
    const struct ldb_iter *it = (const struct ldb_iter *)base;
    return (const uint8_t *)leveldb_iter_key(it->it, len);
}

static const uint8_t *ldb_iter_value(const struct kv_iter *base, size_t *len)
{
    const struct ldb_iter *it = (const struct ldb_iter *)base;
    return (const uint8_t *)leveldb_iter_value(it->it, len);
}

/* ---- sizes -------------------------------------------------------------------------- */

static uint64_t ldb_property_u64(struct kv_ldb *db, const char *name)
{
    char *v = leveldb_property_value(db->db, name);
    uint64_t n = 0;
    if (v) {
        n = strtoull(v, NULL, 10);
        leveldb_free(v);
    }
    return n;
}

/* The seconds LevelDB spent compacting, from the Time(sec) column of "leveldb.stats" (one
 * row per level that compacted: Level Files Size(MB) Time(sec) Read(MB) Write(MB)). -1 if
 * unreadable. */
static double ldb_compaction_seconds(struct kv_ldb *db)
{
    char *v = leveldb_property_value(db->db, "leveldb.stats");
    double total = 0;
    if (!v) {
        return -1;
    }
    char *save = NULL;
    for (char *line = strtok_r(v, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int level;
        double files, size, secs;
        if (sscanf(line, " %d %lf %lf %lf", &level, &files, &size, &secs) == 4) {
            total += secs;
        }
    }
    leveldb_free(v);
    return total;
}

static int ldb_stats(struct kv *kv, struct kv_stats *out)
{
    struct kv_ldb *db = (struct kv_ldb *)kv;
    char files[160];
    size_t used = 0;
    out->disk_bytes = kv_dir_bytes(db->path);
    out->mem_bytes = ldb_property_u64(db, "leveldb.approximate-memory-usage");
    out->entries = 0;
    /* "files per level": the shape of the LSM tree is what matters when reading a log. */
    files[0] = 0;
    for (int level = 0; level < 7; level++) {
        char prop[64];
        snprintf(prop, sizeof(prop), "leveldb.num-files-at-level%d", level);
        used += (size_t)snprintf(files + used, sizeof(files) - used, "%s%llu", level ? "/" : "",
                                 (unsigned long long)ldb_property_u64(db, prop));
        if (used >= sizeof(files)) {
            break;
        }
    }
    out->compaction_seconds = ldb_compaction_seconds(db);
    snprintf(out->text, sizeof(out->text),
             "leveldb %s: %.1f MiB on disk, %.1f MiB memory (block cache %.1f MiB, write "
             "buffer %.1f MiB), files per level %s, compaction %.2f s",
             db->path, (double)out->disk_bytes / 1048576.0, (double)out->mem_bytes / 1048576.0,
             (double)db->block_cache_bytes / 1048576.0, (double)db->write_buffer_bytes / 1048576.0,
             files, out->compaction_seconds);
    return 0;
}

static int ldb_approximate_size(struct kv *kv, uint64_t *out, const uint8_t *begin,
                                size_t begin_len, const uint8_t *end, size_t end_len)
{
    struct kv_ldb *db = (struct kv_ldb *)kv;
    static const uint8_t max_key[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    const char *starts[1] = {(const char *)begin};
    size_t start_lens[1] = {begin_len};
    const char *limits[1] = {end ? (const char *)end : (const char *)max_key};
    size_t limit_lens[1] = {end ? end_len : sizeof(max_key)};
    uint64_t sizes[1] = {0};
    leveldb_approximate_sizes(db->db, 1, starts, start_lens, limits, limit_lens, sizes);
    *out = sizes[0];
    return 0;
}

const struct kv_ops kv_leveldb_ops = {
    .name = "leveldb",
    .persistent = 1,
    .open = ldb_open,
    .close = ldb_close,
    .destroy = ldb_destroy,
    .get = ldb_get,
    .write = ldb_write,
    .iter_new = ldb_iter_new,
    .iter_free = ldb_iter_free,
    .iter_seek = ldb_iter_seek,
    .iter_seek_first = ldb_iter_seek_first,
    .iter_next = ldb_iter_next,
    .iter_valid = ldb_iter_valid,
    .iter_key = ldb_iter_key,
    .iter_value = ldb_iter_value,
    .stats = ldb_stats,
    .approximate_size = ldb_approximate_size,
};
