/* Writing the UTXO set as a snapshot (dumptxoutset): at the tip straight from the coins
 * store; at an earlier block from a temporary store the blocks above it are disconnected
 * in, as Core's CreateRolledBackUTXOSnapshot does. */
#include <stdio.h>
#include <string.h>

#include "coins/snapshot.h"
#include "kv/kv.h"
#include "util/log.h"
#include "util/rc.h"
#include "validation/chainstate_impl.h"

/* What the temporary cache holds before it is written to its store. */
#define ROLLBACK_CACHE_BYTES ((size_t)64 << 20)

static int write_visit(void *ctx, const struct outpoint *op, const struct coin *c)
{
    return snapshot_writer_add(ctx, op, c) != RC_OK;
}

/* The coins of db (the set at base) to f: a first pass counts and hashes them, for the
 * header, then they are written, both in key order. */
static int write_from(struct chainstate *cs, struct coins_db *db, const struct block_index *base,
                      FILE *f, struct chainstate_snapshot *out)
{
    struct coins_stats st;
    int rc = coins_db_stats(db, COINS_STATS_HASH_SERIALIZED, &st, out->txoutset_hash);
    if (rc) {
        return rc;
    }
    out->coins = st.txouts;
    coins_stats_clear(&st);
    memcpy(out->base_hash, base->hash, 32);
    out->base_height = base->height;
    out->chain_tx = base->chain_tx;
    struct snapshot_writer *w;
    if ((rc = snapshot_writer_new(&w, f, cs->p->magic, base->hash, out->coins))) {
        return rc;
    }
    rc = coins_db_foreach(db, write_visit, w);
    uint64_t written = 0;
    if (rc == RC_STOPPED) {
        rc = RC_IO;
    } else if (rc == RC_OK) {
        rc = snapshot_writer_finish(w, &written);
    }
    if (rc == RC_OK && written != out->coins) {
        LOG_ERROR("UTXO snapshot: %llu coins written, %llu counted", (unsigned long long)written,
                  (unsigned long long)out->coins);
        rc = RC_CORRUPT;
    }
    snapshot_writer_free(w);
    return rc;
}

/* The temporary UTXO set a rollback works in. */
struct temp_set {
    const struct kv_ops *ops;
    const char *path; /* NULL: in memory */
    struct kv *kv;
    struct coins_db *db;
    struct coins_cache *cache;
    int err; /* what stopped the copy */
};

static int temp_open(struct temp_set *t, const char *path)
{
    memset(t, 0, sizeof(*t));
    t->ops = path ? kv_default_ops() : &kv_mem_ops;
    t->path = path;
    if (path && kv_destroy(t->ops, path) != RC_OK) {
        return RC_IO; /* a store left by an interrupted dump that cannot be wiped */
    }
    struct kv_options o;
    kv_options_init(&o);
    int rc = kv_open(&t->kv, t->ops, path, &o);
    if (rc) {
        return rc;
    }
    t->db = coins_db_new(t->kv);
    t->cache = coins_cache_new(coins_db_view(t->db));
    return RC_OK;
}

static void temp_close(struct temp_set *t)
{
    coins_cache_free(t->cache);
    coins_db_free(t->db);
    kv_close(t->kv);
    if (t->path && kv_destroy(t->ops, t->path) != RC_OK) {
        LOG_INFO("Failed to clean up temporary UTXO database at %s, please remove it manually.",
                 t->path);
    }
}

/* Writes the cache to its store once it holds more than the bound. */
static int temp_bound(struct temp_set *t)
{
    return coins_cache_memory(t->cache) > ROLLBACK_CACHE_BYTES ? coins_cache_flush(t->cache, 0)
                                                               : RC_OK;
}

static int copy_visit(void *ctx, const struct outpoint *op, const struct coin *c)
{
    struct temp_set *t = ctx;
    int rc = coins_cache_add(t->cache, op, c, 0);
    t->err = rc ? rc : temp_bound(t);
    return t->err != RC_OK;
}

/* Disconnects the blocks from tip down to just above base in t. */
static int roll_back(struct chainstate *cs, struct temp_set *t, struct block_index *tip,
                     const struct block_index *base)
{
    struct buf raw;
    struct block b;
    struct block_undo undo;
    char err[128];
    int rc = RC_OK;
    buf_init(&raw);
    block_init(&b);
    block_undo_init(&undo);
    LOG_INFO("Rolling back from height %d to %d", tip->height, base->height);
    for (struct block_index *e = tip; rc == RC_OK && e->height > base->height; e = e->prev) {
        buf_reset(&raw);
        block_clear(&b);
        block_undo_clear(&undo);
        if ((rc = chainstate_read_block(cs, e, &raw)) ||
            (rc = block_parse(&b, raw.data, raw.len, err, sizeof(err))) ||
            (rc = chainstate_read_undo(cs, e, &undo)) ||
            (rc = chainstate_disconnect_block(cs, e, &b, &undo, t->cache, 0))) {
            LOG_ERROR("Failed to roll back block at height %d (%s)", e->height, rc_str(rc));
            rc = rc == RC_INVALID ? RC_CORRUPT : rc;
            break;
        }
        rc = temp_bound(t);
    }
    coins_cache_set_best_block(t->cache, base->hash);
    if (rc == RC_OK) {
        rc = coins_cache_flush(t->cache, 0);
    }
    block_undo_clear(&undo);
    block_clear(&b);
    buf_clear(&raw);
    return rc;
}

int chainstate_write_snapshot(struct chainstate *cs, const struct block_index *base,
                              const char *temp_path, FILE *f, struct chainstate_snapshot *out)
{
    struct block_index *tip = chainstate_tip(cs);
    if (!tip) {
        return RC_NOT_FOUND;
    }
    base = base ? base : tip;
    if (!chainstate_contains(cs, base)) {
        return RC_INVALID;
    }
    /* Nothing changes the store from here on: this is the validation thread, its only
     * writer. */
    int rc = chainstate_flush(cs, FLUSH_ALWAYS);
    if (rc || base == tip) {
        return rc ? rc : write_from(cs, cs->coins_db, tip, f, out);
    }
    struct temp_set t;
    if ((rc = temp_open(&t, temp_path))) {
        return rc;
    }
    coins_cache_set_best_block(t.cache, tip->hash);
    LOG_INFO("Copying current UTXO set to temporary database.");
    rc = coins_db_foreach(cs->coins_db, copy_visit, &t);
    rc = rc == RC_STOPPED ? t.err : rc;
    if (rc == RC_OK && (rc = coins_cache_flush(t.cache, 0)) == RC_OK) {
        rc = roll_back(cs, &t, tip, base);
    }
    if (rc == RC_OK) {
        LOG_INFO("Rollback complete. Writing the snapshot.");
        rc = write_from(cs, t.db, base, f, out);
    }
    temp_close(&t);
    return rc;
}
