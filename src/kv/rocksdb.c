/* kv backend "rocksdb", through RocksDB's C API (rocksdb/c.h, Debian's librocksdb 7.8).
 *
 * One RocksDB database per store, in its directory (see doc/files.md "Key-value stores"),
 * with the default column family only. RocksDB is LevelDB's design carried on, so the
 * options start from what src/kv/leveldb.c does and add what RocksDB has beyond it:
 *
 *  - cache_bytes as in leveldb.c: half for the block cache (an LRU shared by nobody else), a
 *    quarter for each memtable (at least 8 MiB; two of them, one written out while the other
 *    fills). Index and filter blocks live in the block cache too (LevelDB keeps them beside it,
 *    in the table cache, where they grow with the store), those of level 0 pinned there, so
 *    the memory of a store is bounded by its options whatever its size.
 *  - background work on several threads (RocksDB's default environment, shared by the
 *    process's stores: one pool for flushes, one for compactions, sized to the cores), and
 *    compaction split into subcompactions. Dynamic level sizes (the last level holds ~90% of
 *    the data, so the rewrite cost of each key is bounded), which RocksDB recommends.
 *  - bytes_per_sync: the files being written are pushed to the disk every 1 MiB instead of all
 *    at once when they are closed, so that a compaction's writeback does not arrive as one
 *    burst that stalls the foreground's I/O.
 *  - a full bloom filter when bloom_bits_per_key is set, partitioned with the index (a small
 *    pinned top level over 4 KiB partitions that share the block cache); block checksums are
 *    verified on every read; no compression (kv_options_init says why).
 *  - the table cache (readers of the open table files, max_open_files less 10 of them) in one
 *    shard instead of RocksDB's 64, so that it holds as many tables as it is sized for.
 *  - RocksDB's own info log (the LOG file) at warning level, two files of at most 1 MiB.
 *
 * RocksDB reads its table files with pread (mmap reads are off by default), so nothing of it
 * is counted in the process's resident set the way LevelDB's mapped tables are: this backend
 * is built with mmap_interpose_none.c.
 *
 * Atomicity: a kv batch becomes one RocksDB write batch: one record of the write-ahead log,
 * replayed whole or not at all after a crash (the default recovery mode drops a torn tail).
 * A non-sync write reaches the OS with the call, so a killed process loses nothing.
 */
#include <rocksdb/c.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kv/backend.h"
#include "kv/kv.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define RDB_MIN_WRITE_BUFFER ((size_t)8 << 20) /* as LDB_MIN_WRITE_BUFFER in leveldb.c */
#define RDB_MIN_BLOCK_CACHE ((size_t)1 << 20)
#define RDB_TARGET_FILE ((uint64_t)32 << 20) /* as leveldb.c's table files */
#define RDB_BYTES_PER_SYNC ((uint64_t)1 << 20)
#define RDB_INFO_LOG_FATAL 4 /* rocksdb::InfoLogLevel::FATAL_LEVEL */

struct kv_rdb {
    struct kv base; /* first: base.ops */
    char *path;
    rocksdb_t *db;
    rocksdb_options_t *options;
    rocksdb_block_based_table_options_t *table;
    rocksdb_cache_t *cache;
    rocksdb_readoptions_t *readopts;
    rocksdb_readoptions_t *iteropts;
    rocksdb_writeoptions_t *writeopts;
    rocksdb_writeoptions_t *syncopts;
    size_t block_cache_bytes;
    size_t write_buffer_bytes;
    int bloom_bits;
};

struct rdb_iter {
    struct kv_iter base; /* first: base.ops */
    struct kv_rdb *db;
    rocksdb_iterator_t *it;
};

/* Records a RocksDB error message (malloc'd by RocksDB) and frees it. */
static int rdb_fail(const struct kv_rdb *db, const char *what, char *err)
{
    kv_set_error("rocksdb %s: %s: %s", db ? db->path : "", what, err ? err : "unknown error");
    if (err) {
        rocksdb_free(err);
    }
    return RC_BACKEND;
}

static void rdb_free(struct kv_rdb *db)
{
    if (db->db) {
        rocksdb_close(db->db);
    }
    /* The options refer to the table options, which refer to the cache and the filter. */
    if (db->options) {
        rocksdb_options_destroy(db->options);
    }
    if (db->table) {
        rocksdb_block_based_options_destroy(db->table); /* also frees the filter policy */
    }
    if (db->cache) {
        rocksdb_cache_destroy(db->cache);
    }
    if (db->readopts) {
        rocksdb_readoptions_destroy(db->readopts);
    }
    if (db->iteropts) {
        rocksdb_readoptions_destroy(db->iteropts);
    }
    if (db->writeopts) {
        rocksdb_writeoptions_destroy(db->writeopts);
    }
    if (db->syncopts) {
        rocksdb_writeoptions_destroy(db->syncopts);
    }
    free(db->path);
    free(db);
}

static int rdb_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 2 ? 2 : n > 16 ? 16 : (int)n;
}

static int rdb_open(struct kv **out, const char *path, const struct kv_options *opt)
{
    struct kv_rdb *db = xcalloc(1, sizeof(*db));
    char *err = NULL;
    int cores = rdb_cores();

    db->base.ops = &kv_rocksdb_ops;
    db->path = xstrdup(path);
    db->block_cache_bytes = opt->cache_bytes / 2;
    if (db->block_cache_bytes < RDB_MIN_BLOCK_CACHE) {
        db->block_cache_bytes = RDB_MIN_BLOCK_CACHE;
    }
    db->write_buffer_bytes = opt->cache_bytes / 4;
    if (db->write_buffer_bytes < RDB_MIN_WRITE_BUFFER) {
        db->write_buffer_bytes = RDB_MIN_WRITE_BUFFER;
    }
    db->bloom_bits = opt->bloom_bits_per_key;

    db->cache = rocksdb_cache_create_lru(db->block_cache_bytes);
    db->table = rocksdb_block_based_options_create();
    rocksdb_block_based_options_set_block_cache(db->table, db->cache);
    rocksdb_block_based_options_set_cache_index_and_filter_blocks(db->table, 1);
    rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority(db->table, 1);
    rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(db->table, 1);
    if (opt->bloom_bits_per_key > 0) {
        rocksdb_block_based_options_set_filter_policy(
            db->table, rocksdb_filterpolicy_create_bloom_full((double)opt->bloom_bits_per_key));
        /* Filters (and the index) in 4 KiB partitions under a small pinned top level: a
         * whole-table filter of a 32 MiB table is ~0.5 MB, and with the filters in a small
         * block cache each lookup reloaded one (kv-bench, 1M keys, 8 MiB: 18-34k hits/s and
         * 21k misses/s with whole filters; 67-98k and 113-169k partitioned). */
        rocksdb_block_based_options_set_index_type(
            db->table, rocksdb_block_based_table_index_type_two_level_index_search);
        rocksdb_block_based_options_set_partition_filters(db->table, 1);
        rocksdb_block_based_options_set_metadata_block_size(db->table, 4096);
        rocksdb_block_based_options_set_pin_top_level_index_and_filter(db->table, 1);
    }

    db->options = rocksdb_options_create();
    rocksdb_options_set_block_based_table_factory(db->options, db->table);
    rocksdb_options_increase_parallelism(db->options, cores);
    rocksdb_options_set_max_background_jobs(db->options, cores);
    rocksdb_options_set_max_subcompactions(db->options, (uint32_t)cores);
    rocksdb_options_set_level_compaction_dynamic_level_bytes(db->options, 1);
    rocksdb_options_set_create_if_missing(db->options,
                                          (unsigned char)(opt->create_if_missing != 0));
    rocksdb_options_set_paranoid_checks(db->options, (unsigned char)(opt->paranoid_checks != 0));
    rocksdb_options_set_max_open_files(db->options,
                                       opt->max_open_files > 0 ? opt->max_open_files : 64);
    /* The table cache in one shard: RocksDB's default of 64 shards splits 54 open tables
     * (max_open_files less 10) into shards of one, so two tables that hash to the same shard
     * evict each other and every read of theirs opens the table again, reading its whole
     * index and filter (64% of the node's CPU in the storage matrix's 8 MiB row, 210 s
     * instead of 77 s when the table numbers collided). */
    rocksdb_options_set_table_cache_numshardbits(db->options, 0);
    rocksdb_options_set_write_buffer_size(db->options, db->write_buffer_bytes);
    rocksdb_options_set_max_write_buffer_number(db->options, 2);
    rocksdb_options_set_target_file_size_base(db->options, RDB_TARGET_FILE);
    rocksdb_options_set_bytes_per_sync(db->options, RDB_BYTES_PER_SYNC);
    rocksdb_options_set_compression(db->options, opt->compression ? rocksdb_snappy_compression
                                                                  : rocksdb_no_compression);
    /* RocksDB's own LOG file keeps only its header (the options) and fatal lines, one file
     * per open (two old ones kept), not a size-rolled one. Debian's librocksdb is built with
     * assertions, and its LOG writer asserts on a write after one that failed: with warnings
     * logged, or with the rolling logger (which writes its header again), a full disk made
     * the library abort (SIGABRT) at open or at the first write error, in 18 of 24 tmpfs
     * sizes from 8 KiB to 24 MiB; as here, in none of 29: each ended in the ENOSPC error
     * returned, which rdb_fail reports with the store named. */
    rocksdb_options_set_info_log_level(db->options, RDB_INFO_LOG_FATAL);
    rocksdb_options_set_keep_log_file_num(db->options, 2);

    db->readopts = rocksdb_readoptions_create();
    rocksdb_readoptions_set_verify_checksums(db->readopts, 1);
    db->iteropts = rocksdb_readoptions_create();
    rocksdb_readoptions_set_verify_checksums(db->iteropts, 1);
    /* A full scan must not evict the working set from the block cache. */
    rocksdb_readoptions_set_fill_cache(db->iteropts, 0);
    db->writeopts = rocksdb_writeoptions_create();
    rocksdb_writeoptions_set_sync(db->writeopts, 0);
    db->syncopts = rocksdb_writeoptions_create();
    rocksdb_writeoptions_set_sync(db->syncopts, 1);

    db->db = rocksdb_open(db->options, path, &err);
    if (err) {
        int rc = rdb_fail(db, "open", err);
        db->db = NULL;
        rdb_free(db);
        return rc;
    }
    *out = &db->base;
    return 0;
}

static int rdb_close(struct kv *kv)
{
    /* The write-ahead log holds every write, so closing needs no flush to be safe; RocksDB
     * waits for the background jobs running, and the next open deletes the files no version
     * refers to. */
    rdb_free((struct kv_rdb *)kv);
    return 0;
}

static int rdb_destroy(const char *path)
{
    rocksdb_options_t *o = rocksdb_options_create();
    char *err = NULL;
    int rc = 0;
    rocksdb_destroy_db(o, path, &err);
    if (err) {
        kv_set_error("rocksdb %s: destroy: %s", path, err);
        rocksdb_free(err);
        rc = RC_BACKEND;
    }
    rocksdb_options_destroy(o);
    return rc;
}

static int rdb_get(struct kv *kv, struct buf *val, const uint8_t *key, size_t key_len)
{
    struct kv_rdb *db = (struct kv_rdb *)kv;
    char *err = NULL;
    /* A pinned value is read where it lies (the block cache or the memtable): no copy
     * beyond the one into val. */
    rocksdb_pinnableslice_t *v =
        rocksdb_get_pinned(db->db, db->readopts, (const char *)key, key_len, &err);
    if (err) {
        if (v) {
            rocksdb_pinnableslice_destroy(v);
        }
        return rdb_fail(db, "get", err);
    }
    if (!v) {
        return RC_NOT_FOUND;
    }
    if (val) {
        size_t vlen = 0;
        const char *p = rocksdb_pinnableslice_value(v, &vlen);
        buf_append(val, p, vlen);
    }
    rocksdb_pinnableslice_destroy(v);
    return 0;
}

static int rdb_write(struct kv *kv, const struct kv_batch *b, int sync)
{
    struct kv_rdb *db = (struct kv_rdb *)kv;
    rocksdb_writebatch_t *wb = rocksdb_writebatch_create();
    struct kv_batch_op op;
    size_t pos = 0;
    char *err = NULL;
    while (kv_batch_next(b, &pos, &op)) {
        if (op.op == KV_OP_PUT) {
            rocksdb_writebatch_put(wb, (const char *)op.key, op.key_len, (const char *)op.val,
                                   op.val_len);
        } else {
            rocksdb_writebatch_delete(wb, (const char *)op.key, op.key_len);
        }
    }
    rocksdb_write(db->db, sync ? db->syncopts : db->writeopts, wb, &err);
    rocksdb_writebatch_destroy(wb);
    if (err) {
        return rdb_fail(db, "write", err);
    }
    return 0;
}

/* ---- iterators ---------------------------------------------------------------------- */

static int rdb_iter_new(struct kv *kv, struct kv_iter **out)
{
    struct kv_rdb *db = (struct kv_rdb *)kv;
    struct rdb_iter *it = xcalloc(1, sizeof(*it));
    it->base.ops = &kv_rocksdb_ops;
    it->db = db;
    /* RocksDB iterators read from an implicit snapshot taken here. */
    it->it = rocksdb_create_iterator(db->db, db->iteropts);
    *out = &it->base;
    return 0;
}

static void rdb_iter_free(struct kv_iter *base)
{
    struct rdb_iter *it = (struct rdb_iter *)base;
    rocksdb_iter_destroy(it->it);
    free(it);
}

/* After a move: an invalid iterator may mean the end or an error; tell them apart. */
static int rdb_iter_status(struct rdb_iter *it, const char *what)
{
    char *err = NULL;
    if (rocksdb_iter_valid(it->it)) {
        return 0;
    }
    rocksdb_iter_get_error(it->it, &err);
    if (err) {
        return rdb_fail(it->db, what, err);
    }
    return 0;
}

static int rdb_iter_seek(struct kv_iter *base, const uint8_t *key, size_t key_len)
{
    struct rdb_iter *it = (struct rdb_iter *)base;
    rocksdb_iter_seek(it->it, (const char *)key, key_len);
    return rdb_iter_status(it, "iterator seek");
}

static int rdb_iter_seek_first(struct kv_iter *base)
{
    struct rdb_iter *it = (struct rdb_iter *)base;
    rocksdb_iter_seek_to_first(it->it);
    return rdb_iter_status(it, "iterator seek");
}

static int rdb_iter_next(struct kv_iter *base)
{
    struct rdb_iter *it = (struct rdb_iter *)base;
    rocksdb_iter_next(it->it);
    return rdb_iter_status(it, "iterator next");
}

static int rdb_iter_valid(const struct kv_iter *base)
{
    const struct rdb_iter *it = (const struct rdb_iter *)base;
    return rocksdb_iter_valid(it->it) != 0;
}

static const uint8_t *rdb_iter_key(const struct kv_iter *base, size_t *len)
{
    const struct rdb_iter *it = (const struct rdb_iter *)base;
    return (const uint8_t *)rocksdb_iter_key(it->it, len);
}

static const uint8_t *rdb_iter_value(const struct kv_iter *base, size_t *len)
{
    const struct rdb_iter *it = (const struct rdb_iter *)base;
    return (const uint8_t *)rocksdb_iter_value(it->it, len);
}

/* ---- sizes -------------------------------------------------------------------------- */

static uint64_t rdb_property_u64(struct kv_rdb *db, const char *name)
{
    uint64_t n = 0;
    if (rocksdb_property_int(db->db, name, &n) != 0) {
        n = 0;
    }
    return n;
}

/* From "rocksdb.stats": the seconds spent compacting ("Cumulative compaction: ... N.N
 * seconds") and writes stalled ("Cumulative stall: HH:MM:SS.SSS H:M:S"), since open. */
static void rdb_compaction_stall(struct kv_rdb *db, double *compaction, double *stall)
{
    char *v = rocksdb_property_value(db->db, "rocksdb.stats");
    *compaction = -1;
    *stall = -1;
    if (!v) {
        return;
    }
    char *save = NULL;
    for (char *line = strtok_r(v, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *p;
        int h, m;
        double s;
        if (strncmp(line, "Cumulative compaction:", 22) == 0 && (p = strrchr(line, ','))) {
            sscanf(p + 1, " %lf seconds", compaction);
        } else if (strncmp(line, "Cumulative stall:", 17) == 0 &&
                   sscanf(line + 17, " %d:%d:%lf", &h, &m, &s) == 3) {
            *stall = h * 3600.0 + m * 60.0 + s;
        }
    }
    rocksdb_free(v);
}

static int rdb_stats(struct kv *kv, struct kv_stats *out)
{
    struct kv_rdb *db = (struct kv_rdb *)kv;
    char files[160];
    size_t used = 0;
    uint64_t memtables = rdb_property_u64(db, "rocksdb.cur-size-all-mem-tables");
    uint64_t cached = (uint64_t)rocksdb_cache_get_usage(db->cache);
    out->disk_bytes = kv_dir_bytes(db->path);
    out->mem_bytes =
        memtables + cached + rdb_property_u64(db, "rocksdb.estimate-table-readers-mem");
    out->entries = 0; /* rocksdb.estimate-num-keys is an estimate, not a count */
    files[0] = 0;
    for (int level = 0; level < 7; level++) {
        char prop[64], *v;
        snprintf(prop, sizeof(prop), "rocksdb.num-files-at-level%d", level);
        v = rocksdb_property_value(db->db, prop);
        used += (size_t)snprintf(files + used, sizeof(files) - used, "%s%s", level ? "/" : "",
                                 v ? v : "?");
        rocksdb_free(v);
        if (used >= sizeof(files)) {
            break;
        }
    }
    double stall;
    rdb_compaction_stall(db, &out->compaction_seconds, &stall);
    snprintf(out->text, sizeof(out->text),
             "rocksdb %s: %.1f MiB on disk, %.1f MiB memory (block cache %.1f of %.1f MiB, "
             "memtables %.1f MiB, write buffer %.1f MiB), ~%llu keys, files per level %s, "
             "compaction %.2f s, writes stalled %.3f s, compaction pending %.1f MiB, %llu "
             "running",
             db->path, (double)out->disk_bytes / 1048576.0, (double)out->mem_bytes / 1048576.0,
             (double)cached / 1048576.0, (double)db->block_cache_bytes / 1048576.0,
             (double)memtables / 1048576.0, (double)db->write_buffer_bytes / 1048576.0,
             (unsigned long long)rdb_property_u64(db, "rocksdb.estimate-num-keys"), files,
             out->compaction_seconds, stall,
             (double)rdb_property_u64(db, "rocksdb.estimate-pending-compaction-bytes") / 1048576.0,
             (unsigned long long)rdb_property_u64(db, "rocksdb.num-running-compactions"));
    return 0;
}

static int rdb_approximate_size(struct kv *kv, uint64_t *out, const uint8_t *begin,
                                size_t begin_len, const uint8_t *end, size_t end_len)
{
    struct kv_rdb *db = (struct kv_rdb *)kv;
    static const uint8_t max_key[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    const char *starts[1] = {(const char *)begin};
    size_t start_lens[1] = {begin_len};
    const char *limits[1] = {end ? (const char *)end : (const char *)max_key};
    size_t limit_lens[1] = {end ? end_len : sizeof(max_key)};
    uint64_t sizes[1] = {0};
    char *err = NULL;
    rocksdb_approximate_sizes(db->db, 1, starts, start_lens, limits, limit_lens, sizes, &err);
    if (err) {
        return rdb_fail(db, "approximate sizes", err);
    }
    *out = sizes[0];
    return 0;
}

const struct kv_ops kv_rocksdb_ops = {
    .name = "rocksdb",
    .persistent = 1,
    .open = rdb_open,
    .close = rdb_close,
    .destroy = rdb_destroy,
    .get = rdb_get,
    .write = rdb_write,
    .iter_new = rdb_iter_new,
    .iter_free = rdb_iter_free,
    .iter_seek = rdb_iter_seek,
    .iter_seek_first = rdb_iter_seek_first,
    .iter_next = rdb_iter_next,
    .iter_valid = rdb_iter_valid,
    .iter_key = rdb_iter_key,
    .iter_value = rdb_iter_value,
    .stats = rdb_stats,
    .approximate_size = rdb_approximate_size,
};
