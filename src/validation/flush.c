/* Writing the chainstate down (chainstate_flush): block and undo files first, then the
 * block index, then the coins and the best block in one atomic batch, then the transaction
 * index behind them. How this stays crash-safe: doc/architecture.md. */
#include <stdint.h>
#include <string.h>

#include "blockstore/indexdb.h"
#include "kv/kv.h"
#include "consensus/pow.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/block_check.h"
#include "validation/chainstate_impl.h"
#include "validation/headers.h"
#include "validation/txindex.h"

#define FLUSH_INTERVAL_SECONDS 3600
/* The longest a block waits for a frozen generation's write before going on (see below). */
#define FLUSH_PACE_MS 100
/* What a full cache keeps after its flush, in percent of its limit. */
#define COINS_KEEP_PERCENT 50

/* The dirty file infos and block index entries (and the pruned flag) in one synced batch. */
static int write_index(struct chainstate *cs)
{
    struct kv_batch *b = kv_batch_new();
    int files[256], nf;
    while ((nf = blockstore_take_dirty_files(cs->store, files, 256)) > 0) {
        for (int i = 0; i < nf; i++) {
            indexdb_put_file(b, files[i], blockstore_file_info(cs->store, files[i]),
                             blockstore_file_count(cs->store) - 1);
        }
    }
    /* Every record must load with its parent: an entry's headers without a record are
     * written with it (doc/files.md, "Block index"). */
    for (size_t i = 0; i < cs->ndirty; i++) {
        for (struct block_index *a = cs->dirty[i]->prev; a && !a->stored && !a->dirty;
             a = a->prev) {
            chainstate_mark_dirty(cs, a);
        }
    }
    for (size_t i = 0; i < cs->ndirty; i++) {
        indexdb_put_entry(b, cs->dirty[i]);
    }
    if (cs->have_pruned) {
        indexdb_put_pruned(b);
    }
    int rc = kv_write(cs->index_kv, b, 1);
    kv_batch_free(b);
    if (rc) {
        LOG_ERROR("flush: writing the block index: %s", kv_last_error(cs->index_kv));
        return rc;
    }
    for (size_t i = 0; i < cs->ndirty; i++) {
        cs->dirty[i]->dirty = 0;
        cs->dirty[i]->stored = 1;
    }
    cs->ndirty = 0;
    chainstate_crash_point(cs, "the block index batch");
    return RC_OK;
}

/* Pruning's end of a flush, once the coins are in the store at the tip: the entries of the
 * pruned files lose their data, the block index saying so is written, and only then are the
 * files deleted (a crash in between leaves files that start-up deletes). */
void chainstate_log_unlinked(void *ctx, int n)
{
    (void)ctx;
    LOG(LOG_CAT_BLOCKSTORAGE, LOG_LVL_DEBUG, "Prune: UnlinkPrunedFiles deleted blk/rev (%05d)", n);
}

static int prune_files(struct chainstate *cs, const struct prune_set *ps)
{
    chainstate_prune_apply(cs, ps);
    int rc = write_index(cs);
    if (rc) {
        return rc;
    }
    blockstore_unlink_pruned(cs->store, chainstate_log_unlinked, NULL);
    return RC_OK;
}

/* The files to prune at this flush, if pruning is on and the store grew by a file or chunk
 * since the last look (or pruneblockchain asked); none while a reindex reads the files. */
static void find_prunable(struct chainstate *cs, struct prune_set *ps)
{
    memset(ps, 0, sizeof(*ps));
    int32_t manual = atomic_exchange(&cs->manual_prune_height, 0);
    if (!cs->opt.prune_target || (!blockstore_take_check_for_pruning(cs->store) && manual <= 0)) {
        return;
    }
    int reindexing = 0;
    if (indexdb_get_reindexing(cs->index_kv, &reindexing) == RC_OK && reindexing) {
        blockstore_request_check_for_pruning(cs->store); /* look again after it */
        return;
    }
    chainstate_prune_find(cs, manual, ps);
}

/* The background chainstate's coins at its tip, in one batch (its store is never between two
 * blocks, so needs no replay); full: the cache is emptied. */
static int flush_background(struct chainstate *cs, int sync, int full)
{
    struct chainstate_background *bg = cs->bg;
    if (!bg) {
        return RC_OK;
    }
    coins_cache_set_best_block(bg->cache, bg->tip->hash);
    int rc = full ? coins_cache_flush(bg->cache, sync) : coins_cache_sync(bg->cache, sync, SIZE_MAX);
    if (rc) {
        LOG_ERROR("flush: writing the background chainstate: %s", kv_last_error(bg->kv));
    }
    return rc;
}

/* A flush; prune: files are to be pruned after it, so the coins must reach the store at the
 * tip now (not in a background generation). */
/* Core's FatalError "Disk space is too low!" (the message report_fatal prints): RC_IO. */
static int out_of_space(struct chainstate *cs, const char *dir)
{
    snprintf(cs->fatal_msg, sizeof(cs->fatal_msg), "Disk space is too low!");
    LOG_ERROR("flush: less than %llu MiB free in %s: Disk space is too low!",
              (unsigned long long)(FS_MIN_DISK_SPACE >> 20), dir);
    return RC_IO;
}

static int flush_locked(struct chainstate *cs, enum chainstate_flush_mode mode, int prune)
{
    int64_t now = (int64_t)time(NULL); /* real time: flushes ignore setmocktime */
    size_t mem = coins_cache_memory(cs->coins);
    int rc_drop;
    if (mem > cs->counters.coins_cache_peak) {
        cs->counters.coins_cache_peak = mem;
    }
    /* The store's mapped table pages leave the resident set after each block (kv.h): they
     * are the page cache's, and would otherwise count against -dbcache as lookups and
     * compactions touch them. */
    kv_release_mapped(KV_MAPPED_RESIDENT_MAX);
    /* Core's rule: the cache has -maxmempool's unused part, so what the pool uses is not
     * the cache's (never more than the pool's whole budget). */
    size_t pool = atomic_load_explicit(&cs->mempool_used, memory_order_relaxed);
    size_t limit = cs->coins_limit - (pool < cs->opt.mempool_bytes ? pool : cs->opt.mempool_bytes);
    /* Written in the background (-dbbackgroundflush), the cache holds up to two
     * generations: a frozen one, being written or written, and the one filling over it
     * (coins_cache_freeze). Over the limit, a full cache is frozen whole; once its write is
     * done, the frozen generation is dropped to make room, or, if the newer one has passed
     * half the limit, the newer one is frozen in its place. While a write is under way the
     * cache may pass its limit by half (the blocks connected meanwhile); past that, each
     * block waits at most FLUSH_PACE_MS for the write (a store slower to write than the
     * blocks fill the cache is kept pace with, block by block, instead of in one stall of
     * seconds), and only past twice the limit does the next freeze wait for it whole. */
    int gen = cs->opt.background_flush && mode != FLUSH_ALWAYS && !prune;
    int full = mem > limit;
    if (gen && full && coins_cache_frozen_memory(cs->coins)) {
        size_t young = mem - coins_cache_frozen_memory(cs->coins);
        int writing = coins_cache_writing(cs->coins);
        if (writing && mem > limit + limit / 2 && mem <= 2 * limit) {
            writing = coins_cache_writing_after(cs->coins, FLUSH_PACE_MS);
        }
        if (writing) {
            full = mem > 2 * limit; /* past twice the limit the freeze waits for the write */
        } else if (young <= limit / 2) {
            if ((rc_drop = coins_cache_drop_frozen(cs->coins))) {
                LOG_ERROR("flush: writing the chainstate: %s", rc_str(rc_drop));
                return rc_drop;
            }
            full = 0;
        }
    }
    int periodic = mode >= FLUSH_PERIODIC && now - cs->last_flush_time >= FLUSH_INTERVAL_SECONDS;
    int bg_full = cs->bg && coins_cache_memory(cs->bg->cache) > cs->bg->limit;
    if (mode != FLUSH_ALWAYS && !full && !periodic && !prune && !bg_full) {
        return RC_OK;
    }
    uint64_t t0 = time_mono_ns();
    /* Core's line at the start of a flush (its mode names: ours are IF_NEEDED, PERIODIC and
     * FORCE_SYNC, a forced flush that keeps the cache). */
    static const char *const mode_names[] = {"IF_NEEDED", "PERIODIC", "FORCE_SYNC"};
    LOG(LOG_CAT_COINDB, LOG_LVL_DEBUG,
        "Writing chainstate to disk: flush mode=%s, prune=%d, large=%d, critical=%d, periodic=%d",
        mode_names[mode], prune, full && mode == FLUSH_PERIODIC, full && mode != FLUSH_PERIODIC,
        periodic);
    /* Core's FlushStateToDisk: the block index is written only with its 50 MiB margin free
     * where the blocks are (fs_disk_space_ok), the coins only with that plus 48 * 2 * 2
     * bytes per dirty coin in the datadir: a node that stops there still has room for its
     * stores to close consistently. */
    if (!fs_disk_space_ok(cs->blocks_dir, 0)) {
        return out_of_space(cs, cs->blocks_dir);
    }
    /* 1. Block and undo data reach the disk before anything refers to them. */
    int rc = blockstore_sync(cs->store);
    if (rc) {
        LOG_ERROR("flush: %s", blockstore_error(cs->store));
        return rc;
    }
    /* 2. The block index, then the background chainstate's coins (a UTXO snapshot's:
     * assumeutxo.c), whose blocks' undo data it records. */
    if ((rc = write_index(cs)) || (rc = flush_background(cs, mode == FLUSH_ALWAYS, bg_full))) {
        return rc;
    }
    if (cs->active.height >= 0 &&
        !fs_disk_space_ok(cs->datadir, 48ull * 2 * 2 * coins_cache_dirty_count(cs->coins))) {
        return out_of_space(cs, cs->datadir);
    }
    /* 3. The coins and the best block, atomically. A flush that must be on disk when this
     * returns (shutdown, RPC: a scan of the store follows) first waits for the frozen
     * generation's write (coins_cache_sync does). */
    if (gen && cs->active.height >= 0) {
        coins_cache_set_best_block(cs->coins, chainstate_tip(cs)->hash);
        if ((rc = coins_cache_freeze(cs->coins))) {
            LOG_ERROR("flush: writing the chainstate: %s", rc_str(rc));
            return rc;
        }
        /* The write just begun changes only the frozen coins, which the cache has; the
         * ones before it are all in the store. */
        cs->coins_stable_epoch = coins_db_epoch(cs->coins_db) & ~(uint64_t)1;
    } else if (cs->active.height >= 0) {
        coins_cache_set_best_block(cs->coins, chainstate_tip(cs)->hash);
        /* The coins stay cached as clean entries (Core's Sync); only a cache over its limit
         * drops its oldest coins, down to COINS_KEEP_PERCENT of the limit, so that the
         * young coins the next blocks spend are still at hand. */
        /* Synced only when asked (shutdown, RPC), as Core's coins writes: the block index
         * above is synced, and a coins batch lost to a power cut leaves the store at an
         * earlier best block, from which the blocks are connected again (a killed process
         * loses nothing: the kernel has the writes). At -dbcache=8 this saved 15%. */
        rc = coins_cache_sync(cs->coins, mode == FLUSH_ALWAYS,
                              full ? limit / 100 * COINS_KEEP_PERCENT : SIZE_MAX);
        if (rc) {
            LOG_ERROR("flush: writing the chainstate: %s", kv_last_error(cs->coins_kv));
            return rc;
        }
        cs->coins_stable_epoch = coins_db_epoch(cs->coins_db);
    }
    /* 4. The transaction index, behind the coins: if this is lost, it catches up. */
    if (cs->txindex && cs->active.height >= 0) {
        if ((rc = txindex_write(cs->txindex, chainstate_tip(cs)->hash))) {
            LOG_ERROR("flush: writing the transaction index: %s", txindex_error(cs->txindex));
            return rc;
        }
        cs->txindex_best = chainstate_tip(cs);
        chainstate_crash_point(cs, "a txindex batch");
    }
    /* "and synced": the coins too are on disk (a forced flush); otherwise only the block
     * index is, and a power cut may take the store back to an earlier best block. */
    LOG(LOG_CAT_COINDB, LOG_LVL_DEBUG,
        "flushed %zu bytes of coins cache (%zu bytes and %zu coins kept)%s at height %d", mem,
        coins_cache_memory(cs->coins), coins_cache_count(cs->coins),
        mode == FLUSH_ALWAYS ? " and synced" : "", cs->active.height);
    cs->last_flush_time = now;
    cs->counters.flushes++;
    cs->counters.flush_ns += time_mono_ns() - t0;
    return RC_OK;
}

int chainstate_flush_locked(struct chainstate *cs, enum chainstate_flush_mode mode)
{
    /* Files to prune make this a full flush (Core's fFlushForPrune): the coins reach the
     * store at the tip before any block below it is deleted. */
    struct prune_set ps;
    find_prunable(cs, &ps);
    int rc = flush_locked(cs, mode, ps.n > 0);
    if (rc == RC_OK && ps.n > 0) {
        rc = prune_files(cs, &ps);
    }
    prune_set_clear(&ps);
    return rc;
}

int chainstate_prune_manual(struct chainstate *cs, int32_t height)
{
    atomic_store(&cs->manual_prune_height, height > 0 ? height : 0);
    return chainstate_flush(cs, FLUSH_IF_NEEDED);
}

int chainstate_flush(struct chainstate *cs, enum chainstate_flush_mode mode)
{
    pthread_rwlock_wrlock(&cs->lock);
    int rc = chainstate_flush_locked(cs, mode);
    pthread_rwlock_unlock(&cs->lock);
    return rc;
}

/* ---- what reads the coins store whole: flushed first, then one pass of its records ---- */

struct scan {
    chainstate_coin_fn fn;
    void *ctx;
    uint64_t count;
};

static int scan_visit(void *ctx, const struct outpoint *op, const struct coin *c)
{
    struct scan *s = ctx;
    s->count++;
    return s->fn(s->ctx, op, c);
}

int chainstate_scan_coins(struct chainstate *cs, chainstate_coin_fn fn, void *ctx, uint64_t *count)
{
    struct scan s = {fn, ctx, 0};
    int rc = chainstate_flush(cs, FLUSH_ALWAYS);
    if (rc == RC_OK) {
        rc = coins_db_foreach(cs->coins_db, scan_visit, &s);
    }
    *count = s.count;
    return rc;
}

uint64_t chainstate_coins_disk_size(struct chainstate *cs)
{
    /* Core's CCoinsViewDB::EstimateSize: the store's estimate for the coin records' range. */
    const uint8_t begin = COIN_KEY_PREFIX, end = COIN_KEY_PREFIX + 1;
    uint64_t n = 0;
    if (kv_approximate_size(cs->coins_kv, &n, &begin, 1, &end, 1) != RC_OK) {
        n = 0;
    }
    return n;
}

const char *chainstate_store_error(void)
{
    return kv_last_error(NULL);
}

int chainstate_utxo_stats(struct chainstate *cs, enum coins_stats_hash kind,
                          struct coins_stats *stats, uint8_t hash32[32])
{
    int rc = chainstate_flush(cs, FLUSH_ALWAYS);
    if (rc) {
        return rc;
    }
    return coins_db_stats(cs->coins_db, kind, stats, hash32);
}
