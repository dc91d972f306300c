/* Choosing and reaching the best chain (Core's ActivateBestChain, InvalidateBlock,
 * ReconsiderBlock), with the progress log of an import. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/hex.h"
#include "validation/block_check.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/chainstate_impl.h"
#include "validation/txindex.h"

/* More work wins; on equal work, the block whose data came first. */
static int better(const struct block_index *a, const struct block_index *b)
{
    int c = u256_cmp(&a->chain_work, &b->chain_work);
    if (c) {
        return c > 0;
    }
    if (a->sequence_id != b->sequence_id) {
        /* Sequence 0 (loaded from disk) ranks as earliest. */
        return a->sequence_id < b->sequence_id;
    }
    return a < b;
}

/* The candidate to connect: the best one; while an import reads a file, the best one on
 * the best header chain (chainstate_set_best_header_only). */
static struct block_index *best_candidate(struct chainstate *cs)
{
    struct block_index *best = NULL;
    struct block_index *bh = cs->best_header_only ? cs->best_header : NULL;
    for (size_t i = 0; i < cs->ncand;) {
        struct block_index *e = cs->cand[i];
        if (block_index_failed(e)) {
            cs->cand[i] = cs->cand[--cs->ncand];
            continue;
        }
        if (bh && block_index_ancestor(bh, e->height) != e) {
            i++; /* off the best header chain: kept for later */
            continue;
        }
        if (!best || better(e, best)) {
            best = e;
        }
        i++;
    }
    return best;
}

static void prune_candidates(struct chainstate *cs)
{
    struct block_index *tip = chainstate_tip(cs);
    for (size_t i = 0; i < cs->ncand;) {
        struct block_index *e = cs->cand[i];
        if (block_index_failed(e) || (tip && e != tip && better(tip, e))) {
            cs->cand[i] = cs->cand[--cs->ncand];
        } else {
            i++;
        }
    }
}

struct mark_ctx {
    struct chainstate *cs;
    struct block_index *bad;
};

static int mark_descendant(void *ctx, struct block_index *e)
{
    struct mark_ctx *m = ctx;
    if (e != m->bad && e->height > m->bad->height &&
        block_index_ancestor(e, m->bad->height) == m->bad && !(e->status & BLOCK_FAILED_CHILD)) {
        e->status |= BLOCK_FAILED_CHILD;
        chainstate_mark_dirty(m->cs, e);
    }
    return 0;
}

static int best_valid_header(void *ctx, struct block_index *e)
{
    struct block_index **best = ctx;
    if (!block_index_failed(e) &&
        (!*best || u256_cmp(&e->chain_work, &(*best)->chain_work) > 0)) {
        *best = e;
    }
    return 0;
}

void chainstate_mark_invalid(struct chainstate *cs, struct block_index *bad)
{
    struct mark_ctx m = {cs, bad};
    bad->status |= BLOCK_FAILED_VALID;
    chainstate_mark_dirty(cs, bad);
    block_tree_foreach(cs->tree, mark_descendant, &m);
    if (cs->best_header && block_index_failed(cs->best_header)) {
        /* The most-work header that is still valid (Core's m_best_header after
         * InvalidBlockFound); a walk of the tree, once per invalid block. */
        struct block_index *best = NULL;
        block_tree_foreach(cs->tree, best_valid_header, &best);
        cs->best_header = best;
    }
}

static void log_progress(struct chainstate *cs, int force)
{
    int64_t now = chainstate_now();
    struct block_index *tip = chainstate_tip(cs);
    if (!tip || (!force && now - cs->last_log.time < 10)) {
        return;
    }
    int64_t dt = now - cs->last_log.time;
    double bps = dt > 0 ? (double)(cs->counters.blocks_connected - cs->last_log.blocks) / dt : 0;
    double tps = dt > 0 ? (double)(cs->counters.txs_connected - cs->last_log.txs) / dt : 0;
    struct block_index *target = cs->best_header ? cs->best_header : tip;
    double progress = target->height > 0 ? (double)tip->height / target->height : 1.0;
    int64_t left = target->height - tip->height;
    char hx[65], date[32];
    time_t t = (time_t)tip->header.time;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    hex_encode_rev(hx, tip->hash, 32);
    if (cs->last_log.time) {
        LOG_INFO("UpdateTip: height=%d best=%s date=%s progress=%.6f blocks/s=%.1f tx/s=%.1f "
                 "cache=%.1fMiB(%zutxo) eta=%s%llds",
                 tip->height, hx, date, progress, bps, tps,
                 coins_cache_memory(cs->coins) / 1048576.0, coins_cache_count(cs->coins),
                 bps > 0 ? "" : "unknown ", bps > 0 ? (long long)(left / bps) : 0LL);
    }
    cs->last_log.time = now;
    cs->last_log.blocks = cs->counters.blocks_connected;
    cs->last_log.txs = cs->counters.txs_connected;
}

static int activate(struct chainstate *cs);

/* The transaction index is written whenever the tip settles, so lookups see new blocks at
 * once. It may run ahead of the coins (entries of blocks not on the active chain are never
 * answered), but never ahead of the block files it points into. */
static int write_txindex(struct chainstate *cs)
{
    struct block_index *tip = chainstate_tip(cs);
    if (!cs->txindex || !tip || cs->txindex_best == tip) {
        return RC_OK;
    }
    int rc = blockstore_sync(cs->store);
    if (rc == RC_OK) {
        rc = txindex_write(cs->txindex, tip->hash);
    }
    if (rc) {
        LOG_ERROR("writing the transaction index failed (%s)", rc_str(rc));
        return rc;
    }
    cs->txindex_best = tip;
    return RC_OK;
}

static int connect_tip(struct chainstate *cs, struct block_index *e, int *invalid)
{
    struct block b;
    struct block_undo undo;
    struct vstate st;
    int rc = chainstate_load_block(cs, e, &b);
    if (rc) {
        return rc;
    }
    struct coins_cache *view = coins_cache_new(coins_cache_view(cs->coins));
    vstate_init(&st);
    uint64_t t0 = time_mono_ns();
    rc = chainstate_connect_block(cs, e, &b, view, &undo, &st);
    cs->counters.connect_ns += time_mono_ns() - t0;
    if (rc == RC_INVALID) {
        char hx[65];
        hex_encode_rev(hx, e->hash, 32);
        LOG_WARN("connect block %s height %d: %s (%s)", hx, e->height, st.reject, st.debug);
        coins_cache_free(view);
        block_clear(&b);
        chainstate_mark_invalid(cs, e);
        cs->counters.blocks_failed++;
        memcpy(cs->last_invalid_hash, e->hash, 32);
        cs->last_invalid = st;
        *invalid = 1;
        return RC_OK;
    }
    if (rc) {
        goto out;
    }
    if (e->height > 0 && !(e->status & BLOCK_HAVE_UNDO)) {
        struct buf ser;
        uint32_t pos;
        buf_init(&ser);
        block_undo_serialize(&ser, &undo);
        rc = blockstore_append_undo(cs->store, e->file, e->prev->hash, ser.data, ser.len, &pos);
        buf_clear(&ser);
        if (rc) {
            LOG_ERROR("writing undo data: %s", blockstore_error(cs->store));
            goto out;
        }
        e->undo_pos = pos;
        e->status |= BLOCK_HAVE_UNDO;
    }
    block_index_raise_validity(e, BLOCK_VALID_SCRIPTS);
    chainstate_mark_dirty(cs, e);
    coins_cache_set_best_block(view, e->hash);
    if ((rc = coins_cache_flush(view, 0))) {
        goto out;
    }
    if (cs->txindex && e->height > 0) {
        txindex_add_block(cs->txindex, e, &b);
    }
    chainstate_set_tip(cs, e);
    cs->counters.blocks_connected++;
    cs->counters.txs_connected += b.tx_count;
    if (cs->opt.stop_at_height && e->height >= cs->opt.stop_at_height) {
        cs->stop_requested = 1;
    }
out:
    coins_cache_free(view);
    block_undo_clear(&undo);
    block_clear(&b);
    return rc;
}

static int disconnect_tip(struct chainstate *cs)
{
    struct block_index *e = chainstate_tip(cs);
    struct block b;
    struct block_undo undo;
    struct buf raw;
    int rc;
    if (!e || !e->prev) {
        return RC_USAGE; /* genesis is never disconnected */
    }
    if ((rc = chainstate_load_block(cs, e, &b))) {
        return rc;
    }
    buf_init(&raw);
    block_undo_init(&undo);
    rc = blockstore_read_undo(cs->store, e->file, e->undo_pos, e->prev->hash, &raw);
    if (rc == RC_OK && !(e->status & BLOCK_HAVE_UNDO)) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        rc = block_undo_parse(&undo, raw.data, raw.len);
    }
    if (rc) {
        char hx[65];
        hex_encode_rev(hx, e->hash, 32);
        LOG_ERROR("disconnect block %s: undo data unreadable (%s): restart with -reindex", hx,
                  rc_str(rc));
        goto out;
    }
    struct coins_cache *view = coins_cache_new(coins_cache_view(cs->coins));
    rc = chainstate_disconnect_block(cs, e, &b, &undo, view, 0);
    if (rc == RC_OK) {
        coins_cache_set_best_block(view, e->prev->hash);
        rc = coins_cache_flush(view, 0);
    }
    coins_cache_free(view);
    if (rc) {
        LOG_ERROR("disconnect block at height %d failed (%s): the UTXO set does not match the "
                  "chain; restart with -reindex-chainstate",
                  e->height, rc_str(rc));
        goto out;
    }
    chainstate_set_tip(cs, e->prev);
    cs->counters.blocks_disconnected++;
    chainstate_add_candidate(cs, e); /* it may win again */
out:
    block_undo_clear(&undo);
    buf_clear(&raw);
    block_clear(&b);
    return rc;
}

int chainstate_activate_best_chain(struct chainstate *cs)
{
    chainstate_lock(cs);
    int rc = activate(cs);
    chainstate_unlock(cs);
    return rc;
}

static int activate(struct chainstate *cs)
{
    int rc = chainstate_ensure_genesis(cs);
    if (rc && rc != RC_INVALID) {
        return rc;
    }
    if (!cs->last_log.time) {
        log_progress(cs, 1);
    }
    for (int round = 0;; round++) {
        if (round > 0) {
            /* Let readers in between rounds too (an import connects one block a round). */
            chainstate_unlock(cs);
            chainstate_lock(cs);
        }
        struct block_index *tip = chainstate_tip(cs);
        struct block_index *best = best_candidate(cs);
        if (!best || best == tip || (tip && !better(best, tip))) {
            break;
        }
        struct block_index *fork = tip ? block_index_fork_point(tip, best) : NULL;
        while (chainstate_tip(cs) && chainstate_tip(cs) != fork) {
            if ((rc = disconnect_tip(cs))) {
                return rc;
            }
        }
        /* Connect fork+1 .. best in order. */
        int32_t from = fork ? fork->height + 1 : 0;
        size_t n = (size_t)(best->height - from + 1);
        struct block_index **path = xmalloc(n * sizeof(*path));
        struct block_index *x = best;
        for (size_t i = n; i-- > 0; x = x->prev) {
            path[i] = x;
        }
        for (size_t i = 0; i < n; i++) {
            int invalid = 0;
            if (i > 0) {
                /* Let readers in between blocks; if the chain moved meanwhile (another
                 * thread invalidated a block), start over from the new tip. */
                chainstate_unlock(cs);
                chainstate_lock(cs);
                if (chainstate_tip(cs) != path[i]->prev) {
                    break;
                }
            }
            if ((rc = connect_tip(cs, path[i], &invalid))) {
                free(path);
                return rc;
            }
            if (invalid) {
                break;
            }
            int every = cs->opt.flush_every_blocks;
            if ((rc = chainstate_flush(cs, every > 0 && cs->counters.blocks_connected % every == 0
                                               ? FLUSH_ALWAYS
                                               : FLUSH_PERIODIC))) {
                free(path);
                return rc;
            }
            log_progress(cs, 0);
            if (cs->stop_requested || (cs->interrupt && cs->interrupt())) {
                break;
            }
        }
        free(path);
        prune_candidates(cs);
        if (cs->stop_requested || (cs->interrupt && cs->interrupt())) {
            break;
        }
    }
    return write_txindex(cs);
}

static int add_if_candidate(void *ctx, struct block_index *e)
{
    struct chainstate *cs = ctx;
    struct block_index *tip = chainstate_tip(cs);
    if (e->chain_tx && !block_index_failed(e) && (!tip || !better(tip, e) || e == tip)) {
        chainstate_add_candidate(cs, e);
    }
    return 0;
}

void chainstate_rebuild_candidates(struct chainstate *cs)
{
    cs->ncand = 0;
    block_tree_foreach(cs->tree, add_if_candidate, cs);
}

static int invalidate(struct chainstate *cs, const uint8_t hash32[32])
{
    struct block_index *e = block_tree_find(cs->tree, hash32);
    int rc;
    if (!e) {
        return RC_NOT_FOUND;
    }
    /* The genesis block can't be invalidated: refused before anything is disconnected, and
     * not an error (Core's InvalidateBlock returns with the state still valid). */
    if (e->height == 0) {
        return RC_USAGE;
    }
    while (chainstate_contains(cs, e)) {
        if ((rc = disconnect_tip(cs))) {
            return rc;
        }
    }
    chainstate_mark_invalid(cs, e);
    /* Blocks that had less work than the old tip may be the best now. */
    chainstate_rebuild_candidates(cs);
    return activate(cs);
}

int chainstate_invalidate_block(struct chainstate *cs, const uint8_t hash32[32])
{
    chainstate_lock(cs);
    int rc = invalidate(cs, hash32);
    chainstate_unlock(cs);
    return rc;
}

struct clear_ctx {
    struct chainstate *cs;
    struct block_index *target;
};

static int clear_marks(void *ctx, struct block_index *e)
{
    struct clear_ctx *c = ctx;
    int related = block_index_ancestor(e, c->target->height) == c->target ||
                  block_index_ancestor(c->target, e->height) == e;
    if (related && block_index_failed(e)) {
        e->status &= ~(uint32_t)BLOCK_FAILED_MASK;
        chainstate_mark_dirty(c->cs, e);
    }
    return 0;
}

int chainstate_reconsider_block(struct chainstate *cs, const uint8_t hash32[32])
{
    chainstate_lock(cs);
    struct block_index *e = block_tree_find(cs->tree, hash32);
    if (!e) {
        chainstate_unlock(cs);
        return RC_NOT_FOUND;
    }
    struct clear_ctx c = {cs, e};
    block_tree_foreach(cs->tree, clear_marks, &c);
    chainstate_rebuild_candidates(cs);
    int rc = activate(cs);
    chainstate_unlock(cs);
    return rc;
}

int chainstate_precious_block(struct chainstate *cs, const uint8_t hash32[32])
{
    chainstate_lock(cs);
    struct block_index *e = block_tree_find(cs->tree, hash32);
    if (!e) {
        chainstate_unlock(cs);
        return RC_NOT_FOUND;
    }
    struct block_index *tip = chainstate_tip(cs);
    /* Only a block with at least the tip's work can win this way (as in Core). */
    if (tip && u256_cmp(&e->chain_work, &tip->chain_work) >= 0) {
        e->sequence_id = --cs->precious_sequence;
        chainstate_rebuild_candidates(cs);
    }
    int rc = activate(cs);
    chainstate_unlock(cs);
    return rc;
}

int chainstate_verify(struct chainstate *cs, int checklevel, int nblocks, int *ok, char *why,
                      size_t why_len)
{
    int rc = RC_OK;
    char scratch[8];
    if (!why) {
        why = scratch;
        why_len = sizeof(scratch);
    }
    why[0] = '\0';
    *ok = 1;
    chainstate_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    if (!tip) {
        chainstate_unlock(cs);
        return RC_OK;
    }
    if (nblocks <= 0 || nblocks > tip->height) {
        nblocks = tip->height; /* never genesis */
    }
    struct coins_cache *view = coins_cache_new(coins_cache_view(cs->coins));
    struct block_index *e = tip;
    int disconnected = 0;
    for (int i = 0; i < nblocks && *ok && e->prev; i++, e = e->prev) {
        struct block b;
        struct vstate st;
        struct block_undo undo;
        block_undo_init(&undo);
        if ((rc = chainstate_load_block(cs, e, &b))) {
            snprintf(why, why_len, "block at height %d cannot be read", e->height);
            *ok = 0;
            rc = RC_OK;
            break;
        }
        vstate_init(&st);
        if (checklevel >= 1 && block_check(&st, &b, cs->p, 1)) {
            snprintf(why, why_len, "block at height %d: %s", e->height, st.reject);
            *ok = 0;
        }
        if (*ok && checklevel >= 2) {
            struct buf raw;
            buf_init(&raw);
            if (blockstore_read_undo(cs->store, e->file, e->undo_pos, e->prev->hash, &raw) ||
                block_undo_parse(&undo, raw.data, raw.len)) {
                snprintf(why, why_len, "undo data of height %d is unreadable", e->height);
                *ok = 0;
            }
            buf_clear(&raw);
        }
        if (*ok && checklevel >= 3) {
            int r = chainstate_disconnect_block(cs, e, &b, &undo, view, 0);
            if (r) {
                snprintf(why, why_len, "height %d does not disconnect cleanly (%s)", e->height,
                         rc_str(r));
                *ok = 0;
            } else {
                disconnected++;
            }
        }
        block_undo_clear(&undo);
        block_clear(&b);
    }
    /* Level 4: connect the blocks again on the disconnected state. */
    if (*ok && checklevel >= 4) {
        struct block_index *x = block_index_ancestor(tip, tip->height - disconnected + 1);
        for (; x && *ok; x = chainstate_at_height(cs, x->height + 1)) {
            struct block b;
            struct block_undo undo;
            struct vstate st;
            if ((rc = chainstate_load_block(cs, x, &b))) {
                break;
            }
            vstate_init(&st);
            rc = chainstate_connect_block(cs, x, &b, view, &undo, &st);
            block_undo_clear(&undo);
            block_clear(&b);
            if (rc == RC_INVALID) {
                snprintf(why, why_len, "height %d does not reconnect: %s", x->height, st.reject);
                *ok = 0;
                rc = RC_OK;
            } else if (rc) {
                break;
            }
            if (x == tip) {
                break;
            }
        }
    }
    coins_cache_free(view); /* nothing of it reaches the chainstate */
    chainstate_unlock(cs);
    return rc;
}
