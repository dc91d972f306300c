/* Loading a UTXO snapshot (Core's assumeutxo): loadtxoutset reads the coins into a store of
 * their own, chainstate_snapshot, checked against the hash the chain parameters give for the
 * snapshot's block; they become the active coins at that block at once, and the store the
 * node had, chainstate, becomes the background chainstate, which the validation thread
 * connects from where it stood up to the snapshot's block whenever it has nothing else to do.
 * There its UTXO set must hash to the same value, or the node stops.
 *
 * On disk, as Core: chainstate_snapshot/base_blockhash (the base's hash, 32 bytes) marks a
 * snapshot chainstate whose load finished. Once validated, chainstate is renamed to
 * chainstate_todelete and removed, and the next start renames chainstate_snapshot to
 * chainstate. A snapshot that failed its check loses its marker and is renamed
 * chainstate_snapshot_INVALID at the close. doc/files.md, "UTXO snapshot chainstate". */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coins/snapshot.h"
#include "consensus/amount.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate_impl.h"
#include "validation/txindex.h"

#define SNAPSHOT_STORE "chainstate_snapshot"
#define MARKER_NAME "base_blockhash"
/* Coins read between two looks at the cache's size and the interrupt (Core's). */
#define LOAD_CHECK_EVERY 120000

static void store_path(const struct chainstate *cs, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", cs->datadir, name);
}

static int path_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static const struct kv_ops *coins_ops(const struct chainstate *cs)
{
    return cs->opt.coins_kv_ops ? cs->opt.coins_kv_ops : cs->opt.kv_ops;
}

/* The marker's hash: 0, or RC_NOT_FOUND when there is none (or it is not 32 bytes). */
static int read_marker(const struct chainstate *cs, uint8_t hash[32])
{
    char path[4300], err[256];
    struct buf b;
    buf_init(&b);
    snprintf(path, sizeof(path), "%s/%s/%s", cs->datadir, SNAPSHOT_STORE, MARKER_NAME);
    int rc = fs_read_file(path, &b, 64, err, sizeof(err));
    if (rc == RC_OK && b.len == 32) {
        memcpy(hash, b.data, 32);
    } else {
        rc = RC_NOT_FOUND;
    }
    buf_clear(&b);
    return rc;
}

static void remove_marker(const struct chainstate *cs)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s/%s/%s", cs->datadir, SNAPSHOT_STORE, MARKER_NAME);
    (void)unlink(path);
}

static int destroy(const struct chainstate *cs, const char *name, char *err, size_t err_len)
{
    char path[4200];
    store_path(cs, name, path, sizeof(path));
    if (strcmp(name, SNAPSHOT_STORE) == 0) {
        remove_marker(cs); /* not the backend's: it would keep the directory */
    }
    int rc = kv_destroy(coins_ops(cs), path);
    if (rc) {
        snprintf(err, err_len, "cannot remove %s: %s", path, kv_last_error(NULL));
    }
    return rc;
}

int chainstate_snapshot_prepare(struct chainstate *cs, char *err, size_t err_len)
{
    char snap[4200], main[4200], del[4200];
    uint8_t hash[32];
    store_path(cs, SNAPSHOT_STORE, snap, sizeof(snap));
    store_path(cs, "chainstate", main, sizeof(main));
    store_path(cs, "chainstate_todelete", del, sizeof(del));
    int rc;
    if (path_exists(del)) {
        LOG_INFO("[snapshot] deleting background chainstate directory (now unnecessary) (%s)",
                 del);
        if ((rc = destroy(cs, "chainstate_todelete", err, err_len))) {
            return rc;
        }
    }
    if (!path_exists(snap)) {
        return RC_OK;
    }
    if (cs->opt.reindex || cs->opt.reindex_chainstate) {
        LOG_INFO("[snapshot] deleting snapshot chainstate due to reindexing");
        return destroy(cs, SNAPSHOT_STORE, err, err_len);
    }
    if (read_marker(cs, hash) != RC_OK) {
        LOG_INFO("[snapshot] removing %s: its load did not finish", snap);
        return destroy(cs, SNAPSHOT_STORE, err, err_len);
    }
    if (!path_exists(main)) {
        /* The background chainstate validated the snapshot and was removed. */
        LOG_INFO("[snapshot] cleaning up unneeded background chainstate, then reinitializing");
        LOG_INFO("[snapshot] moving snapshot chainstate (%s) to default chainstate directory "
                 "(%s)",
                 snap, main);
        if (rename(snap, main) != 0) {
            snprintf(err, err_len, "Rename of '%s' -> '%s' failed: %s", snap, main,
                     strerror(errno));
            return RC_IO;
        }
        char marker[4300];
        snprintf(marker, sizeof(marker), "%s/%s", main, MARKER_NAME);
        (void)unlink(marker);
    }
    return RC_OK;
}

/* A coins store and its views. */
struct coins_set {
    struct kv *kv;
    struct coins_db *db;
    struct coins_cache *cache;
};

static int set_open(const struct chainstate *cs, struct coins_set *s, size_t cache_bytes,
                    char *err, size_t err_len)
{
    char path[4200];
    struct kv_options o;
    kv_options_init(&o);
    o.cache_bytes = cache_bytes;
    store_path(cs, SNAPSHOT_STORE, path, sizeof(path));
    memset(s, 0, sizeof(*s));
    int rc = kv_open(&s->kv, coins_ops(cs), path, &o);
    if (rc) {
        snprintf(err, err_len, "cannot open %s: %s", path, kv_last_error(NULL));
        return rc;
    }
    s->db = coins_db_new(s->kv);
    s->cache = coins_cache_new(coins_db_view(s->db));
    return RC_OK;
}

static void set_close(struct coins_set *s)
{
    coins_cache_free(s->cache);
    coins_db_free(s->db);
    kv_close(s->kv);
    memset(s, 0, sizeof(*s));
}

/* The active coins become the background chainstate's (flushed in one batch each: a crash
 * leaves its store at a block, never between two), and s the active ones. */
static void swap_in(struct chainstate *cs, struct coins_set *s, struct block_index *bg_tip,
                    struct block_index *base, const struct chain_assumeutxo *au)
{
    struct chainstate_background *bg = xcalloc(1, sizeof(*bg));
    bg->kv = cs->coins_kv;
    bg->db = cs->coins_db;
    bg->cache = cs->coins;
    coins_db_set_batch(bg->db, SIZE_MAX, 0);
    bg->limit = cs->coins_limit / 10;
    cs->coins_limit -= bg->limit;
    bg->tip = bg_tip;
    bg->target = base;
    bg->au = au;
    cs->bg = bg;
    cs->coins_kv = s->kv;
    cs->coins_db = s->db;
    cs->coins = s->cache;
    coins_db_set_batch(cs->coins_db, cs->opt.coins_batch_bytes, cs->opt.db_crash_ratio);
    coins_cache_keep_presence(cs->coins, cs->coins_limit / 64);
    readahead_set_coins(cs->ra, cs->coins_db, cs->coins);
    cs->coins_stable_epoch = coins_db_epoch(cs->coins_db);
    cs->snapshot_base = base;
}

int chainstate_snapshot_open(struct chainstate *cs, size_t coins_db_cache, char *err,
                             size_t err_len)
{
    uint8_t hash[32], best[32];
    char hx[65];
    if (read_marker(cs, hash) != RC_OK) {
        return RC_OK; /* no snapshot (or one cleaned up by chainstate_snapshot_prepare) */
    }
    hex_encode_rev(hx, hash, 32);
    struct block_index *base = block_tree_find(cs->tree, hash);
    const struct chain_assumeutxo *au = chain_params_assumeutxo_for_hash(cs->p, hash);
    if (!au) { /* Core's fatal error */
        snprintf(err, err_len,
                 "A fatal internal error occurred, see debug.log for details: Assumeutxo data not "
                 "found for the given blockhash '%s'.",
                 hx);
        return RC_CORRUPT;
    }
    if (!base || au->height != base->height) {
        snprintf(err, err_len,
                 "the UTXO snapshot chainstate's base block %s is not in the block index: "
                 "restart with -reindex-chainstate",
                 hx);
        return RC_INVALID;
    }
    if (coins_cache_best_block(cs->coins, best) != RC_OK) {
        snprintf(err, err_len, "the background chainstate has no best block: restart with "
                               "-reindex-chainstate");
        return RC_CORRUPT;
    }
    struct block_index *bg_tip = block_tree_find(cs->tree, best);
    if (!bg_tip) { /* it may be on a fork with less work, which it will leave */
        snprintf(err, err_len, "the background chainstate's best block is not in the block "
                               "index: restart with -reindex-chainstate");
        return RC_CORRUPT;
    }
    struct coins_set s;
    int rc = set_open(cs, &s, coins_db_cache, err, err_len);
    if (rc) {
        return rc;
    }
    LOG_INFO("[snapshot] detected active snapshot chainstate (%s/%s) - loading", cs->datadir,
             SNAPSHOT_STORE);
    swap_in(cs, &s, bg_tip, base, au);
    LOG_INFO("[snapshot] switching active chainstate to Chainstate [snapshot] @ height %d "
             "(%s)",
             base->height, hx);
    return RC_OK;
}

void chainstate_snapshot_close(struct chainstate *cs)
{
    struct chainstate_background *bg = cs->bg;
    if (bg) {
        struct coins_set s = {bg->kv, bg->db, bg->cache};
        set_close(&s);
        free(bg);
        cs->bg = NULL;
    }
    if (cs->snapshot_invalid && !cs->coins_kv) {
        char snap[4200], bad[4300];
        store_path(cs, SNAPSHOT_STORE, snap, sizeof(snap));
        snprintf(bad, sizeof(bad), "%s_INVALID", snap);
        LOG_INFO("[snapshot] renaming snapshot datadir %s to %s", snap, bad);
        if (rename(snap, bad) != 0) {
            LOG_ERROR("While invalidating the coins db: Error renaming file '%s' -> '%s': %s",
                      snap, bad, strerror(errno));
        }
    }
}

/* ---- loadtxoutset ---- */

/* Core's ActivateSnapshot checks of the base, with its words. Chain lock held. */
static int check_base(struct chainstate *cs, const uint8_t hash[32],
                      const struct chain_assumeutxo **au, struct block_index **base, char *err,
                      size_t err_len)
{
    char hx[65];
    hex_encode_rev(hx, hash, 32);
    if (cs->snapshot_base) {
        snprintf(err, err_len, "Can't activate a snapshot-based chainstate more than once");
        return RC_INVALID;
    }
    if (!(*au = chain_params_assumeutxo_for_hash(cs->p, hash))) {
        size_t n = (size_t)snprintf(err, err_len,
                                    "assumeutxo block hash in snapshot metadata not recognized "
                                    "(hash: %s). The following snapshot heights are available: ",
                                    hx);
        for (size_t i = 0; i < cs->p->assumeutxo_count && n < err_len; i++) {
            n += (size_t)snprintf(err + n, err_len - n, "%s%d", i ? ", " : "",
                                  cs->p->assumeutxo[i].height);
        }
        return RC_INVALID;
    }
    if (!(*base = block_tree_find(cs->tree, hash))) {
        snprintf(err, err_len,
                 "The base block header (%s) must appear in the headers chain. Make sure all "
                 "headers are syncing, and call loadtxoutset again",
                 hx);
        return RC_INVALID;
    }
    if (block_index_failed(*base)) {
        snprintf(err, err_len, "The base block header (%s) is part of an invalid chain", hx);
        return RC_INVALID;
    }
    struct block_index *best = cs->best_header;
    if (!best || block_index_ancestor(best, (*base)->height) != *base) {
        snprintf(err, err_len,
                 "A forked headers-chain with more work than the chain with the snapshot base "
                 "block header exists. Please proceed to sync without AssumeUtxo.");
        return RC_INVALID;
    }
    return RC_OK;
}

/* One coin of the snapshot into the cache, with Core's checks. */
static int take_coin(struct coins_set *s, const struct outpoint *op, const struct coin *c,
                     const struct block_index *base, uint64_t done, char *err, size_t err_len)
{
    if (c->height > (uint32_t)base->height || op->n == UINT32_MAX) {
        snprintf(err, err_len, "Bad snapshot data after deserializing %llu coins",
                 (unsigned long long)done);
        return RC_INVALID;
    }
    if (!amount_in_range(c->value_sat)) {
        snprintf(err, err_len, "Bad snapshot data after deserializing %llu coins - bad tx out value",
                 (unsigned long long)done);
        return RC_INVALID;
    }
    return coins_cache_add(s->cache, op, c, 1);
}

/* Reads every coin of r into s, flushing when the cache outgrows the coins' share of
 * -dbcache, then checks that nothing follows them. */
static int read_coins(struct chainstate *cs, struct snapshot_reader *r, struct coins_set *s,
                      const struct block_index *base, uint64_t coins, char *err, size_t err_len)
{
    struct outpoint op;
    struct coin c;
    uint64_t done = 0;
    int rc;
    coins_cache_set_best_block(s->cache, base->hash); /* meaningless until the marker */
    while ((rc = snapshot_reader_next(r, &op, &c, err, err_len)) == RC_OK) {
        if ((rc = take_coin(s, &op, &c, base, done, err, err_len))) {
            return rc;
        }
        if (++done % 1000000 == 0) {
            LOG_INFO("[snapshot] %llu coins loaded (%.2f%%, %.2f MB)", (unsigned long long)done,
                     (double)done * 100 / (double)coins,
                     (double)coins_cache_memory(s->cache) / 1e6);
        }
        if (done % LOAD_CHECK_EVERY == 0) {
            if (chainstate_interrupted(cs)) {
                snprintf(err, err_len, "Aborting after an interrupt was requested");
                return RC_INVALID;
            }
            if (coins_cache_memory(s->cache) > cs->coins_limit &&
                (rc = coins_cache_flush(s->cache, 0))) {
                return rc;
            }
        }
    }
    if (rc != RC_NOT_FOUND) {
        return rc;
    }
    if (snapshot_reader_trailing(r)) {
        snprintf(err, err_len, "Bad snapshot - coins left over after deserializing %llu coins",
                 (unsigned long long)coins);
        return RC_INVALID;
    }
    char hx[65];
    hex_encode_rev(hx, base->hash, 32);
    LOG_INFO("[snapshot] loaded %llu (%.2f MB) coins from snapshot %s", (unsigned long long)coins,
             (double)coins_cache_memory(s->cache) / 1e6, hx);
    return coins_cache_flush(s->cache, 1);
}

/* The UTXO set hash of db (hash_serialized_3) against the chain parameters' au. 0, or
 * RC_INVALID with Core's message, or a system error. */
static int check_hash(struct coins_db *db, const struct chain_assumeutxo *au, char *err,
                      size_t err_len)
{
    struct coins_stats st;
    uint8_t got[32], want[32];
    int rc = coins_db_stats(db, COINS_STATS_HASH_SERIALIZED, &st, got);
    if (rc) {
        snprintf(err, err_len, "Failed to generate coins stats");
        return rc;
    }
    coins_stats_clear(&st);
    if (hex_decode_hash32_rev(want, au->hash_serialized_hex) != RC_OK || memcmp(got, want, 32)) {
        char hx[65];
        hex_encode_rev(hx, got, 32);
        snprintf(err, err_len, "Bad snapshot content hash: expected %s, got %s",
                 au->hash_serialized_hex, hx);
        return RC_INVALID;
    }
    return RC_OK;
}

/* Core's PopulateAndValidateSnapshot: the coins into the new store, checked. */
static int populate(struct chainstate *cs, struct snapshot_reader *r, struct coins_set *s,
                    struct block_index *base, const struct chain_assumeutxo *au, uint64_t coins,
                    char *err, size_t err_len)
{
    char hx[65];
    hex_encode_rev(hx, base->hash, 32);
    if (au->height != base->height) {
        snprintf(err, err_len,
                 "Assumeutxo height in snapshot metadata not recognized (%d) - refusing to load "
                 "snapshot",
                 base->height);
        return RC_INVALID;
    }
    struct block_index *tip = chainstate_tip(cs);
    if (tip && u256_cmp(&tip->chain_work, &base->chain_work) >= 0) {
        snprintf(err, err_len, "Work does not exceed active chainstate");
        return RC_INVALID;
    }
    LOG_INFO("[snapshot] loading %llu coins from snapshot %s", (unsigned long long)coins, hx);
    int rc = read_coins(cs, r, s, base, coins, err, err_len);
    if (rc == RC_OK) {
        rc = check_hash(s->db, au, err, err_len);
    }
    if (rc == RC_OK) {
        LOG_INFO("[snapshot] validated snapshot (%.2f MB)",
                 (double)coins_cache_memory(s->cache) / 1e6);
    }
    return rc;
}

/* The snapshot's coins become the active ones at base. Chain lock held for writing. */
static int activate(struct chainstate *cs, struct coins_set *s, struct block_index *base,
                    const struct chain_assumeutxo *au, char *err, size_t err_len)
{
    char path[4300];
    /* The old coins at their tip, whole, before they become the background chainstate's;
     * the base's header (and those below it, flush.c) in the block index before the marker
     * names it. */
    chainstate_mark_dirty(cs, base);
    int rc = chainstate_flush_locked(cs, FLUSH_ALWAYS);
    if (rc) {
        return rc;
    }
    snprintf(path, sizeof(path), "%s/%s/%s", cs->datadir, SNAPSHOT_STORE, MARKER_NAME);
    if (fs_write_file_atomic(path, base->hash, 32, 0644, err, err_len) != RC_OK) {
        snprintf(err, err_len, "could not write base blockhash");
        return RC_INVALID;
    }
    swap_in(cs, s, chainstate_tip(cs), base, au);
    base->chain_tx = au->chain_tx;
    chainstate_set_tip(cs, base);
    /* The blocks stored above the base waited for its chain total: they link now. */
    candidates_link_children(&cs->cand, base);
    candidates_changed(&cs->cand);
    return RC_OK;
}

int chainstate_load_snapshot(struct chainstate *cs, struct snapshot_reader *r,
                             const uint8_t base_hash[32], uint64_t coins, size_t mempool_txs,
                             struct block_index **base, char *err, size_t err_len)
{
    const struct chain_assumeutxo *au;
    char pfx_err[512], hx[65];
    /* The validation thread is the only writer: what it reads here stays as read. */
    pthread_rwlock_rdlock(&cs->lock);
    int rc = check_base(cs, base_hash, &au, base, err, err_len);
    pthread_rwlock_unlock(&cs->lock);
    if (rc) {
        return rc;
    }
    if (mempool_txs > 0) {
        snprintf(err, err_len, "Can't activate a snapshot when mempool not empty");
        return RC_INVALID;
    }
    struct coins_set s;
    if ((rc = destroy(cs, SNAPSHOT_STORE, err, err_len)) ||
        (rc = set_open(cs, &s, cs->coins_db_cache, err, err_len))) {
        return rc;
    }
    rc = populate(cs, r, &s, *base, au, coins, pfx_err, sizeof(pfx_err));
    if (rc == RC_OK) {
        pthread_rwlock_wrlock(&cs->lock);
        rc = activate(cs, &s, *base, au, pfx_err, sizeof(pfx_err));
        pthread_rwlock_unlock(&cs->lock);
        if (rc == RC_OK) {
            hex_encode_rev(hx, base_hash, 32);
            LOG_INFO("[snapshot] successfully activated snapshot %s", hx);
            LOG_INFO("[snapshot] (%.2f MB)", (double)coins_cache_memory(cs->coins) / 1e6);
            return RC_OK;
        }
    }
    set_close(&s);
    char derr[256];
    (void)destroy(cs, SNAPSHOT_STORE, derr, sizeof(derr));
    if (rc == RC_INVALID || rc == RC_CORRUPT) {
        snprintf(err, err_len, "Population failed: %s", pfx_err);
        return RC_INVALID;
    }
    return rc;
}

/* ---- the background chainstate ---- */

/* The snapshot did not validate (Core's handle_invalid_snapshot): the node stops and will
 * not use it again. Chain lock held for writing. */
static int snapshot_failed(struct chainstate *cs)
{
    struct chainstate_background *bg = cs->bg;
    LOG_ERROR("[snapshot] !!! bitnode failed to validate the -assumeutxo snapshot state. This "
              "indicates a hardware problem, or a bug in the software, or a bad software "
              "modification that allowed an invalid snapshot to be loaded. As a result of this, "
              "the node will shut down and stop using any state that was built on the snapshot, "
              "resetting the chain height from %d to %d. On the next restart, the node will "
              "resume syncing from %d without using any snapshot data. Please report this "
              "incident, including how you obtained the snapshot. The invalid snapshot "
              "chainstate will be left on disk in case it is helpful in diagnosing the issue "
              "that caused this error.",
              cs->active.height, bg->tip->height, bg->tip->height);
    LOG_ERROR("[snapshot] deleting snapshot, reverting to validated chain, and stopping node");
    remove_marker(cs);
    cs->snapshot_invalid = 1;
    return RC_CORRUPT;
}

/* The background chainstate reached the base: its UTXO set must hash as the parameters
 * say; then it is dropped and its store removed. */
static int background_finish(struct chainstate *cs)
{
    struct chainstate_background *bg = cs->bg;
    char err[256], hx[65], main[4200], del[4200];
    int rc = chainstate_flush(cs, FLUSH_ALWAYS);
    if (rc) {
        return rc;
    }
    LOG_INFO("[snapshot] computing UTXO stats for background chainstate to validate snapshot - "
             "this could take a few minutes");
    pthread_rwlock_wrlock(&cs->lock);
    if ((rc = check_hash(bg->db, bg->au, err, sizeof(err))) != RC_OK) {
        LOG_WARN("[snapshot] %s", err);
        rc = snapshot_failed(cs);
        pthread_rwlock_unlock(&cs->lock);
        return rc;
    }
    hex_encode_rev(hx, bg->target->hash, 32);
    LOG_INFO("[snapshot] snapshot beginning at %s has been fully validated", hx);
    cs->coins_limit += bg->limit;
    chainstate_snapshot_close(cs);
    cs->snapshot_validated = 1;
    pthread_rwlock_unlock(&cs->lock);
    store_path(cs, "chainstate", main, sizeof(main));
    store_path(cs, "chainstate_todelete", del, sizeof(del));
    LOG_INFO("[snapshot] deleting background chainstate directory (now unnecessary) (%s)", main);
    if (rename(main, del) != 0) {
        LOG_ERROR("[snapshot] Error renaming path (%s) -> (%s): %s", main, del, strerror(errno));
        return 1;
    }
    if (destroy(cs, "chainstate_todelete", err, sizeof(err)) != RC_OK) {
        LOG_WARN("Deletion of %s failed. Please remove it manually, as the directory is now "
                 "unnecessary.",
                 del);
    }
    return 1;
}

/* e connected into view (its undo in undo): recorded, and the background's tip moves.
 * Chain lock held for writing. */
static int background_commit(struct chainstate *cs, struct block_index *e,
                             const struct block_undo *undo, struct coins_cache *view)
{
    struct chainstate_background *bg = cs->bg;
    int rc = chainstate_store_undo(cs, e, undo);
    if (rc) {
        return rc;
    }
    block_index_raise_validity(e, BLOCK_VALID_SCRIPTS);
    chainstate_mark_dirty(cs, e);
    coins_cache_set_best_block(view, e->hash);
    if ((rc = coins_cache_flush(view, 0))) {
        return rc;
    }
    bg->tip = e;
    bg->blocks++;
    if (e->height % 2000 == 0 || e == bg->target) { /* Core's interval */
        char hx[65];
        hex_encode_rev(hx, e->hash, 32);
        LOG_INFO("[background validation] UpdateTip: new best=%s height=%d tx=%llu", hx,
                 e->height, (unsigned long long)e->chain_tx);
    }
    return RC_OK;
}

/* Connects e, the background's next block, whose data is here. */
static int background_connect(struct chainstate *cs, struct block_index *e)
{
    struct chainstate_background *bg = cs->bg;
    struct block b;
    struct block_undo undo;
    struct vstate st;
    struct chainstate_block_connect *c = NULL;
    int rc = chainstate_load_block(cs, e, &b);
    if (rc) {
        return rc;
    }
    block_undo_init(&undo);
    vstate_init(&st);
    struct coins_cache *view = coins_cache_new(coins_cache_view(bg->cache));
    pthread_rwlock_wrlock(&cs->lock);
    rc = chainstate_block_begin(cs, e, &b, view, &undo, &st, &c);
    pthread_rwlock_unlock(&cs->lock);
    if (rc == RC_OK) {
        rc = chainstate_block_finish(cs, c, &st); /* the scripts, without the lock */
    }
    pthread_rwlock_wrlock(&cs->lock);
    if (rc == RC_OK && (rc = background_commit(cs, e, &undo, view)) == RC_OK && cs->txindex) {
        txindex_add_block(cs->txindex, e, &b); /* -txindex has the blocks below the snapshot */
    } else if (rc == RC_INVALID) {
        char hx[65];
        hex_encode_rev(hx, e->hash, 32);
        LOG_ERROR("[background validation] block %s at height %d is invalid: %s", hx, e->height,
                  st.reject);
        chainstate_mark_invalid(cs, e);
        rc = snapshot_failed(cs);
    }
    pthread_rwlock_unlock(&cs->lock);
    coins_cache_free(view);
    block_undo_clear(&undo);
    block_clear(&b);
    return rc;
}

/* The background's tip is not on the snapshot's chain (the node had a fork with less work):
 * it is disconnected with its undo data. */
static int background_disconnect(struct chainstate *cs)
{
    struct chainstate_background *bg = cs->bg;
    struct block_index *e = bg->tip;
    struct block b;
    struct block_undo undo;
    block_undo_init(&undo);
    int rc = chainstate_load_block(cs, e, &b);
    if (rc) {
        return rc;
    }
    struct coins_cache *view = coins_cache_new(coins_cache_view(bg->cache));
    pthread_rwlock_wrlock(&cs->lock);
    if ((rc = chainstate_read_undo(cs, e, &undo)) == RC_OK &&
        (rc = chainstate_disconnect_block(cs, e, &b, &undo, view, 0)) == RC_OK) {
        coins_cache_set_best_block(view, e->prev->hash);
        if ((rc = coins_cache_flush(view, 0)) == RC_OK) {
            bg->tip = e->prev;
        }
    }
    pthread_rwlock_unlock(&cs->lock);
    coins_cache_free(view);
    block_undo_clear(&undo);
    block_clear(&b);
    return rc;
}

int chainstate_background_step(struct chainstate *cs)
{
    struct chainstate_background *bg = cs->bg;
    if (!bg || cs->snapshot_invalid) {
        return 0;
    }
    if (bg->tip == bg->target) {
        return background_finish(cs);
    }
    if (block_index_ancestor(bg->target, bg->tip->height) != bg->tip) {
        /* Off the snapshot's chain: back to the fork point once the snapshot's chain can be
         * followed from there (Core's reorganisation of the background chainstate). */
        struct block_index *fork = block_index_fork_point(bg->tip, bg->target);
        struct block_index *next = block_index_ancestor(bg->target, fork->height + 1);
        if (!(next->status & BLOCK_HAVE_DATA)) {
            return 0;
        }
        int rc = background_disconnect(cs);
        return rc ? rc : 1;
    }
    struct block_index *e = block_index_ancestor(bg->target, bg->tip->height + 1);
    if (!(e->status & BLOCK_HAVE_DATA) || block_index_failed(e)) {
        return 0;
    }
    int rc = background_connect(cs, e);
    if (rc == RC_OK) {
        rc = chainstate_flush(cs, FLUSH_IF_NEEDED);
    }
    return rc ? rc : 1;
}

int chainstate_background_range(const struct chainstate *cs, struct block_index **tip,
                          struct block_index **target)
{
    if (!cs->bg) {
        return 0;
    }
    *tip = cs->bg->tip;
    *target = cs->bg->target;
    return 1;
}

struct block_index *chainstate_snapshot_base(const struct chainstate *cs, int *validated)
{
    *validated = cs->snapshot_validated;
    return cs->snapshot_base;
}

void chainstate_background_cache_sizes(const struct chainstate *cs, size_t *db_bytes,
                                       size_t *tip_bytes)
{
    /* Its store keeps the cache it was opened with, as the active one's. */
    *db_bytes = cs->bg ? cs->coins_db_cache : 0;
    *tip_bytes = cs->bg ? cs->bg->limit : 0;
}
