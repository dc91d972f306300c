/* Choosing and reaching the best chain (Core's ActivateBestChain, InvalidateBlock,
 * ReconsiderBlock), with the progress log of an import. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "consensus/merkle.h"
#include "util/hex.h"
#include "util/histo.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/block_check.h"
#include "validation/chainstate_impl.h"
#include "validation/txindex.h"

static void log_progress(struct chainstate *cs, int force)
{
    int64_t now = (int64_t)time(NULL); /* real time: progress lines ignore setmocktime */
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

/* Queued transaction index entries written during an activation: about 30 MiB. */
#define TXINDEX_PENDING_MAX (1u << 19)

/* The transaction index is written whenever the tip settles (lookups find the entries
 * queued before that), by its own thread: the chain lock is not held while the batch is
 * written. It may run ahead of the coins (entries of blocks not on the active chain are
 * never answered), but never ahead of the block files it points into. */
static int write_txindex(struct chainstate *cs)
{
    struct block_index *tip = chainstate_tip(cs);
    if (!cs->txindex || !tip || cs->txindex_best == tip) {
        return RC_OK;
    }
    int rc = blockstore_sync(cs->store);
    if (rc == RC_OK) {
        rc = txindex_write_begin(cs->txindex, tip->hash);
    }
    if (rc) {
        LOG_ERROR("writing the transaction index failed (%s%s%s)", rc_str(rc),
                  *txindex_error(cs->txindex) ? ": " : "", txindex_error(cs->txindex));
        return rc;
    }
    cs->txindex_best = tip;
    chainstate_crash_point(cs, "a txindex batch");
    return RC_OK;
}

/* A block on its way to the tip: begun by chainstate_connect_begin, committed (or marked
 * invalid) by chainstate_connect_finish. */
struct chainstate_pending {
    struct block_index *e;
    struct readahead *ra; /* frees the block on its thread (NULL: here) */
    struct block b;
    struct coins_cache *view; /* over the coins cache: what the block changes */
    struct block_undo undo;
    struct vstate st;
    struct chainstate_block_connect *c;
    int failed; /* begun after its parent (chained) and found invalid: marked once the parent
                   is committed */
    uint64_t overlap_ns, overlap_pooled_ns; /* chainstate_add_overlap's, not yet counted */
    uint64_t work_ns; /* the validation thread's time on it: begin, join and commit */
};

static void pending_free(struct chainstate_pending *s)
{
    if (!s) {
        return; /* pending_begin's system errors leave *out NULL */
    }
    coins_cache_free(s->view);
    block_undo_clear(&s->undo);
    if (s->ra) {
        readahead_dispose(s->ra, &s->b);
    }
    block_clear(&s->b);
    free(s);
}

/* A block read back from the block files must still be the block its header commits to:
 * it passed these checks when it was stored, so a body that no longer matches its merkle
 * root is a damaged file, not an invalid block (which would be marked for good: a chain
 * split from a bad disk), and must not be connected (Core's ConnectBlock checks it again
 * too). The transactions' hashes are known from the parse: this is the tree only. A byte
 * flipped in witness data keeps the txids and is found by the script checks instead.
 * RC_CORRUPT with cs->fatal_msg. */
static int check_stored_body(struct chainstate *cs, const struct block_index *e,
                             const struct block *b)
{
    uint8_t root[32];
    int mutated = 0;
    merkle_block_root(root, &mutated, b);
    if (memcmp(root, b->header.merkle_root, 32) == 0 && !mutated) {
        return RC_OK;
    }
    char hx[65];
    hex_encode_rev(hx, e->hash, 32);
    snprintf(cs->fatal_msg, sizeof(cs->fatal_msg),
             "Failed to read block %s (height %d) from blk%05d.dat at position %u: its body "
             "does not match its header (%s). The block files are damaged: restart with "
             "-reindex",
             hx, e->height, e->file, e->data_pos, mutated ? "bad-txns-duplicate" : "bad-txnmrklroot");
    LOG_ERROR("%s", cs->fatal_msg);
    return RC_CORRUPT;
}

/* Begins block e (its data stored) in a new view over base. Returns 0 with *out; RC_INVALID
 * with *out holding the verdict in st (nothing on the pool: free it); or a system error
 * (*out NULL). Chain lock held. */
static int pending_begin(struct chainstate *cs, struct block_index *e, struct coins_view *base,
                         struct chainstate_pending **out)
{
    struct chainstate_pending *n = xcalloc(1, sizeof(*n));
    *out = NULL;
    n->e = e;
    n->ra = cs->ra;
    block_undo_init(&n->undo);
    int from_disk = !(cs->have_recent && memcmp(cs->recent.hash, e->hash, 32) == 0) ||
                    cs->recent_read;
    int rc = chainstate_load_block(cs, e, &n->b);
    if (rc == RC_OK && from_disk) {
        rc = check_stored_body(cs, e, &n->b);
    }
    if (rc) {
        pending_free(n);
        return rc;
    }
    n->view = coins_cache_new(base);
    vstate_init(&n->st);
    uint64_t t0 = time_mono_ns();
    rc = chainstate_block_begin(cs, e, &n->b, n->view, &n->undo, &n->st, &n->c);
    n->work_ns = time_mono_ns() - t0;
    cs->counters.connect_ns += n->work_ns;
    if (rc && rc != RC_INVALID) {
        pending_free(n);
        return rc;
    }
    *out = n;
    return rc;
}

/* e failed while being connected: it and everything built on it are marked; submitblock
 * reports the verdict. Chain lock held. */
static void connect_failed(struct chainstate *cs, struct block_index *e, const struct vstate *st)
{
    char hx[65];
    hex_encode_rev(hx, e->hash, 32);
    char why[VSTATE_STRING_LEN];
    vstate_to_string(st, why, sizeof(why));
    /* Core's ConnectBlock and ConnectTip lines */
    LOG_INFO("Block validation error: %s", why);
    LOG_ERROR("ConnectTip: ConnectBlock %s failed, %s", hx, why);
    chainstate_mark_invalid(cs, e);
    cs->counters.blocks_failed++;
    unsigned slot = cs->invalid_next++ % CHAINSTATE_INVALID_RING;
    memcpy(cs->invalid_ring[slot].hash, e->hash, 32);
    cs->invalid_ring[slot].st = *st;
}

/* Makes the connected block s->e the tip: its undo data, its index entry, its coins into the
 * coins cache. Chain lock held. */
static int commit(struct chainstate *cs, struct chainstate_pending *s)
{
    struct block_index *e = s->e;
    int rc;
    if ((rc = chainstate_store_undo(cs, e, &s->undo))) {
        return rc;
    }
    block_index_raise_validity(e, BLOCK_VALID_SCRIPTS);
    chainstate_mark_dirty(cs, e);
    coins_cache_set_best_block(s->view, e->hash);
    if ((rc = coins_cache_flush(s->view, 0))) {
        return rc;
    }
    if (cs->txindex && e->height > 0) {
        txindex_add_block(cs->txindex, e, &s->b);
    }
    chainstate_set_tip(cs, e);
    /* A long activation (an import, a sync) settles only at its end: the queued index
     * entries are written on the way too, so that their table stays small. */
    if (cs->txindex && txindex_pending(cs->txindex) >= TXINDEX_PENDING_MAX &&
        (rc = write_txindex(cs))) {
        return rc;
    }
    for (size_t i = 0; i < cs->n_listeners; i++) {
        if (cs->listeners[i].block_connected) {
            cs->listeners[i].block_connected(cs->listeners[i].ctx, cs, e, &s->b);
        }
    }
    cs->counters.blocks_connected++;
    uint64_t now = time_mono_ns();
    cs->last_gap_ns = cs->counters.last_commit_ns ? now - cs->counters.last_commit_ns : 0;
    if (cs->counters.last_commit_ns) {
        histo_add(&cs->gap_hist, cs->last_gap_ns);
    }
    if (cs->counters.last_commit_ns &&
        now - cs->counters.last_commit_ns > cs->counters.max_gap_ns) {
        cs->counters.max_gap_ns = now - cs->counters.last_commit_ns;
        cs->counters.max_gap_height = e->height;
    }
    cs->counters.last_commit_ns = now;
    cs->counters.txs_connected += s->b.tx_count;
    if (cs->opt.stop_at_height && e->height >= cs->opt.stop_at_height) {
        atomic_store(&cs->stop_requested, 1);
    }
    return RC_OK;
}

static int disconnect_tip(struct chainstate *cs)
{
    struct block_index *e = chainstate_tip(cs);
    struct block b;
    struct block_undo undo;
    struct buf raw;
    int rc;
    cs->reorg_pending = 1;
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
    chainstate_prune_locks_moved_back(cs, e->height - 1);
    for (size_t i = 0; i < cs->n_listeners; i++) {
        if (cs->listeners[i].block_disconnected) {
            cs->listeners[i].block_disconnected(cs->listeners[i].ctx, cs, e, &b);
        }
    }
    cs->counters.blocks_disconnected++;
    candidates_add(&cs->cand, e); /* it may win again */
out:
    if (rc) {
        /* Core's FatalError in DisconnectTip: what the operator is told. */
        snprintf(cs->fatal_msg, sizeof(cs->fatal_msg), "Failed to disconnect block.");
    }
    block_undo_clear(&undo);
    buf_clear(&raw);
    block_clear(&b);
    return rc;
}

/* The block the chain is heading for (candidates_target: chosen again only when the
 * candidates changed). Chain lock held. */
static struct block_index *target(struct chainstate *cs)
{
    return candidates_target(&cs->cand, chainstate_tip(cs),
                             cs->best_header_only ? cs->best_header : NULL);
}

/* The next step with the chain lock held: disconnects down to the fork point, then begins the
 * next block. A block found invalid on the way is marked, and the step goes on towards the
 * best remaining chain. */
static int begin_locked(struct chainstate *cs, struct chainstate_pending **out)
{
    if (!cs->last_log.time) {
        log_progress(cs, 1);
    }
    for (;;) {
        struct block_index *tip = chainstate_tip(cs);
        struct block_index *best = target(cs);
        if (!best || best == tip || (tip && !candidates_better(best, tip))) {
            cs->reorg_pending = 0;
            chainstate_tip_settled(cs);
            return write_txindex(cs); /* settled */
        }
        int rc;
        if (tip && block_index_ancestor(best, tip->height) != tip) {
            if ((rc = disconnect_tip(cs))) {
                return rc;
            }
            continue;
        }
        struct chainstate_pending *s;
        uint64_t t0 = time_mono_ns();
        rc = pending_begin(cs, block_index_ancestor(best, tip ? tip->height + 1 : 0),
                           coins_cache_view(cs->coins), &s);
        if (rc == RC_INVALID) {
            connect_failed(cs, s->e, &s->st);
            pending_free(s);
            continue;
        }
        if (rc) {
            pending_free(s);
            return rc;
        }
        if (!cs->counters.first_begin_ns) {
            cs->counters.first_begin_ns = t0;
        }
        *out = s;
        return RC_OK;
    }
}

int chainstate_connect_begin(struct chainstate *cs, struct chainstate_pending **out)
{
    *out = NULL;
    int rc = chainstate_ensure_genesis(cs);
    if (rc && rc != RC_INVALID) {
        return rc;
    }
    pthread_rwlock_wrlock(&cs->lock);
    rc = begin_locked(cs, out);
    pthread_rwlock_unlock(&cs->lock);
    return rc;
}

void chainstate_add_overlap(struct chainstate *cs, struct chainstate_pending *s, uint64_t ns)
{
    s->overlap_ns += ns; /* into the counters under finish's lock */
    if (s->c && chainstate_block_pooled(s->c)) {
        s->overlap_pooled_ns += ns;
    }
}

const struct block_index *chainstate_pending_block(const struct chainstate_pending *s)
{
    return s->e;
}

/* With the chain lock held and block s->e joined and valid but not yet committed: begins
 * the next block of the chain, its child, over s's view, so that the check pool has work
 * while s is committed. *out stays NULL when the chain does not go on through s->e (or
 * -stopatheight ends at it). A child found invalid is returned with failed set. */
static int begin_child_locked(struct chainstate *cs, struct chainstate_pending *s,
                              struct chainstate_pending **out)
{
    *out = NULL;
    struct block_index *best = target(cs);
    if (!best || best->height <= s->e->height || block_index_ancestor(best, s->e->height) != s->e ||
        (cs->opt.stop_at_height && s->e->height >= cs->opt.stop_at_height)) {
        return RC_OK;
    }
    /* Only worth it when the pool will have the child's scripts to check: with no workers,
     * or under -assumevalid, the extra view layer would only cost (measured: about 10% of
     * a script-free import). */
    struct block_index *child = block_index_ancestor(best, s->e->height + 1);
    if (!cs->checkq || checkqueue_workers(cs->checkq) == 0 ||
        chainstate_assume_scripts_valid(cs, child)) {
        return RC_OK;
    }
    struct chainstate_pending *n;
    coins_cache_set_pass_through(s->view, 1); /* s's block is spent whole: its view is read */
    int rc = pending_begin(cs, child, coins_cache_view(s->view), &n);
    if (rc == RC_INVALID) {
        n->failed = 1;
        rc = RC_OK;
    }
    if (rc) {
        pending_free(n);
        return rc;
    }
    *out = n;
    return RC_OK;
}

static void pending_abandon(struct chainstate *cs, struct chainstate_pending *n)
{
    if (n->c) {
        chainstate_block_cancel(cs, n->c);
    }
    pending_free(n);
}

int chainstate_connect_finish(struct chainstate *cs, struct chainstate_pending *s,
                              struct chainstate_pending **next)
{
    struct chainstate_pending *n = NULL;
    int nrc = RC_OK;
    if (next) {
        *next = NULL;
    }
    /* The join: the validation thread checks beside the workers, without the chain lock
     * (the pool reads only the block and its undo coins, both owned by s). */
    uint64_t t0 = time_mono_ns();
    int rc = chainstate_block_finish(cs, s->c, &s->st);
    uint64_t join_ns = time_mono_ns() - t0;
    pthread_rwlock_wrlock(&cs->lock);
    cs->counters.connect_ns += join_ns;
    cs->counters.overlap_ns += s->overlap_ns;
    cs->counters.overlap_pooled_ns += s->overlap_pooled_ns;
    cs->counters.inputs_checked += cs->scratch.inputs_checked;
    cs->counters.blocks_assumed_valid += cs->scratch.blocks_assumed_valid;
    memset(&cs->scratch, 0, sizeof(cs->scratch));
    if (rc == RC_INVALID) {
        connect_failed(cs, s->e, &s->st);
        rc = RC_OK;
    } else if (rc == RC_OK) {
        if (next) {
            /* The pool gets the child's checks before this block is committed. */
            nrc = begin_child_locked(cs, s, &n);
        }
        t0 = time_mono_ns();
        rc = commit(cs, s);
        if (rc == RC_OK && !cs->reorg_pending) {
            /* Core tells the tip after each step; blocks arriving one by one are a step
             * each, a reorganisation is one step (told when it settles). */
            chainstate_tip_settled(cs);
        }
        if (n) {
            coins_cache_set_base(n->view, coins_cache_view(cs->coins)); /* s->view merged */
        }
        uint64_t commit_ns = time_mono_ns() - t0;
        cs->counters.connect_ns += commit_ns;
        int every = cs->opt.flush_every_blocks;
        uint64_t flush_before = cs->counters.flush_ns;
        if (rc == RC_OK) {
            rc = chainstate_flush_locked(cs, every > 0 && cs->counters.blocks_connected % every == 0
                                                 ? FLUSH_ALWAYS
                                                 : FLUSH_PERIODIC);
        }
        if (rc == RC_OK) {
            /* What the storage benchmark reads (contrib/bench/storage-matrix.sh): each
             * block's own time on this thread, the gap since the block before it, and the
             * flush it set off. */
            uint64_t work = s->work_ns + join_ns + commit_ns;
            histo_add(&cs->connect_hist, work);
            LOG(LOG_CAT_BENCH, LOG_LVL_DEBUG,
                "bench: block height=%d txs=%zu connect=%.3fms gap=%.3fms flush=%.3fms",
                s->e->height, (size_t)s->b.tx_count, (double)work / 1e6,
                (double)cs->last_gap_ns / 1e6,
                (double)(cs->counters.flush_ns - flush_before) / 1e6);
        }
        if (rc == RC_OK) {
            log_progress(cs, 0);
        }
        if (n && n->failed && rc == RC_OK) {
            connect_failed(cs, n->e, &n->st); /* after its parent, as serial checking */
            pending_free(n);
            n = NULL;
        }
    }
    cs->counters.last_finish_ns = time_mono_ns();
    pthread_rwlock_unlock(&cs->lock);
    pending_free(s);
    rc = rc ? rc : nrc;
    if (n && rc) {
        pending_abandon(cs, n);
        n = NULL;
    }
    if (next) {
        *next = n;
    }
    return rc;
}

/* Puts the coins the reader thread read for b into the coins cache, if they were read
 * after the store's last change that the cache no longer covers (coins_stable_epoch: else
 * the store may no longer hold them, and a coin spent and flushed since would come back).
 * A write still under way is one of the frozen generation's coins, which the cache has
 * and so does not take from the reader. Then tells the reader whether to go on reading coins: while
 * blocks find a share of their coins in the store (read here or by the validation thread),
 * not when the cache holds them all. */
static void prime_coins(struct chainstate *cs, const struct block *b)
{
    struct readahead_coins *rc = &cs->ra_coins;
    uint64_t primed = 0, reads, writes, deletes, batches;
    if (rc->n > 0) {
        if (rc->epoch >= cs->coins_stable_epoch) {
            pthread_rwlock_wrlock(&cs->lock); /* it fills the coins cache */
            for (size_t k = 0; k < rc->n; k++) {
                primed += (uint64_t)coins_cache_prime(cs->coins, &rc->v[k].op, &rc->v[k].coin);
            }
            pthread_rwlock_unlock(&cs->lock);
            cs->ra_primed += primed;
        } else {
            cs->ra_stale++;
        }
    }
    coins_db_counters(cs->coins_db, &reads, &writes, &deletes, &batches);
    uint64_t missed = reads - cs->ra_db_reads + primed; /* the last block's, about */
    cs->ra_db_reads = reads;
    size_t inputs = 0;
    for (size_t t = 1; t < b->tx_count; t++) {
        inputs += b->txs[t].vin_count;
    }
    readahead_coins_on(cs->ra, inputs > 0 && missed * 32 >= inputs);
}

int chainstate_prepare_next(struct chainstate *cs, const struct chainstate_pending *s)
{
    struct block_index *best = cs->cand.target;
    if (best && best->height > s->e->height) {
        struct block_index *next = block_index_ancestor(best, s->e->height + 1);
        if (next->prev == s->e && (next->status & BLOCK_HAVE_DATA) &&
            !(cs->have_recent && memcmp(cs->recent.hash, next->hash, 32) == 0)) {
            /* The reader thread reads this block and the few after it while the validation
             * thread connects; if it could not, the block is read here (which reports why). */
            for (int k = 0; k < READAHEAD_DEPTH && next->height + k <= best->height; k++) {
                struct block_index *a = block_index_ancestor(best, next->height + k);
                if (!(a->status & BLOCK_HAVE_DATA) ||
                    !readahead_want(cs->ra, a->hash, a->file, a->data_pos)) {
                    break;
                }
            }
            struct block b;
            int rc = readahead_take(cs->ra, next->hash, &b, &cs->ra_coins);
            if (rc) {
                rc = chainstate_load_block(cs, next, &b);
            } else {
                prime_coins(cs, &b);
            }
            if (rc) {
                return rc;
            }
            block_clear(&cs->recent);
            cs->recent = b;
            cs->have_recent = 1;
            cs->recent_read = 1; /* read back from the block files */
        }
    }
    /* The coins of the next block are fetched now only while the open block's scripts are
     * on the pool: then the reads overlap them; otherwise connecting fetches them anyway,
     * and fetching twice costs a lookup more for each input. */
    if (s->c && chainstate_block_pooled(s->c)) {
        return chainstate_prefetch_recent(cs);
    }
    return RC_OK;
}

int chainstate_activate_best_chain(struct chainstate *cs)
{
    int rc = RC_OK;
    while (!atomic_load(&cs->stop_requested) && !(cs->interrupt && cs->interrupt())) {
        struct chainstate_pending *s;
        if ((rc = chainstate_connect_begin(cs, &s)) || !s) {
            break;
        }
        if ((rc = chainstate_connect_finish(cs, s, NULL))) {
            break;
        }
    }
    return rc;
}

static int invalidate_locked(struct chainstate *cs, const uint8_t hash32[32])
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
    candidates_rebuild(&cs->cand, cs->tree, chainstate_tip(cs));
    return RC_OK;
}

int chainstate_invalidate_block(struct chainstate *cs, const uint8_t hash32[32])
{
    pthread_rwlock_wrlock(&cs->lock);
    int rc = invalidate_locked(cs, hash32);
    pthread_rwlock_unlock(&cs->lock);
    return rc ? rc : chainstate_activate_best_chain(cs);
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
        /* A header valid again may be the best one (Core's ResetBlockFailureFlags). */
        struct block_index *bh = c->cs->best_header;
        if (!bh || u256_cmp(&e->chain_work, &bh->chain_work) > 0) {
            c->cs->best_header = e;
        }
    }
    return 0;
}

int chainstate_reconsider_block(struct chainstate *cs, const uint8_t hash32[32])
{
    pthread_rwlock_wrlock(&cs->lock);
    struct block_index *e = block_tree_find(cs->tree, hash32);
    if (!e) {
        pthread_rwlock_unlock(&cs->lock);
        return RC_NOT_FOUND;
    }
    struct clear_ctx c = {cs, e};
    block_tree_foreach(cs->tree, clear_marks, &c);
    candidates_rebuild(&cs->cand, cs->tree, chainstate_tip(cs));
    pthread_rwlock_unlock(&cs->lock);
    return chainstate_activate_best_chain(cs);
}

int chainstate_precious_block(struct chainstate *cs, const uint8_t hash32[32])
{
    pthread_rwlock_wrlock(&cs->lock);
    struct block_index *e = block_tree_find(cs->tree, hash32);
    if (!e) {
        pthread_rwlock_unlock(&cs->lock);
        return RC_NOT_FOUND;
    }
    struct block_index *tip = chainstate_tip(cs);
    /* Only a block with at least the tip's work can win this way (as in Core). */
    if (tip && u256_cmp(&e->chain_work, &tip->chain_work) >= 0) {
        e->sequence_id = --cs->precious_sequence;
        candidates_rebuild(&cs->cand, cs->tree, chainstate_tip(cs));
    }
    pthread_rwlock_unlock(&cs->lock);
    return chainstate_activate_best_chain(cs);
}

int chainstate_verify(struct chainstate *cs, int checklevel, int nblocks, int *ok, char *why,
                      size_t why_len, uint64_t *good_txs)
{
    uint64_t good = 0;
    int rc = RC_OK;
    char scratch[8];
    if (!why) {
        why = scratch;
        why_len = sizeof(scratch);
    }
    why[0] = '\0';
    *ok = 1;
    pthread_rwlock_wrlock(&cs->lock); /* it reads through the coins cache */
    struct block_index *tip = chainstate_tip(cs);
    if (!tip) {
        pthread_rwlock_unlock(&cs->lock);
        return RC_OK;
    }
    if (nblocks <= 0 || nblocks > tip->height) {
        nblocks = tip->height; /* never genesis */
    }
    struct coins_cache *view = coins_cache_new(coins_cache_view(cs->coins));
    struct block_index *e = tip;
    int disconnected = 0;
    for (int i = 0; i < nblocks && *ok == 1 && e->prev; i++, e = e->prev) {
        struct block b;
        struct vstate st;
        struct block_undo undo;
        block_undo_init(&undo);
        int validated = 1;
        if ((cs->opt.prune_target || chainstate_snapshot_base(cs, &validated) != NULL) &&
            !(e->status & BLOCK_HAVE_DATA)) {
            /* Core's VerifyDB: SKIPPED_MISSING_BLOCKS, which the RPC answers as false. */
            LOG_INFO("Block verification stopping at height %d (no data). This could be due to "
                     "pruning or use of an assumeutxo snapshot.",
                     e->height);
            snprintf(why, why_len, "no data for the block at height %d (pruned)", e->height);
            *ok = -1;
            break;
        }
        if ((rc = chainstate_load_block(cs, e, &b))) {
            /* Core's "ReadBlock failed at %d", with what the read said (its file and
             * position: chainstate_load_block's message). */
            snprintf(why, why_len, "ReadBlock failed at %d: %s", e->height, cs->fatal_msg);
            cs->fatal_msg[0] = '\0'; /* a verdict of the verification, not a halt */
            *ok = 0;
            rc = RC_OK;
            break;
        }
        vstate_init(&st);
        /* Level 1: Core's CheckBlock, and the witness commitment of a block at or above
         * the segwit height too (a flipped byte in witness data breaks it: the merkle root
         * does not cover it, and without it a damaged witness would be served as the block).
         * Not the rest of ContextualCheckBlock: its rules depend on the activation heights
         * the node runs with (-testactivationheight), not on the bytes stored. */
        int has_commitment = 0;
        if (checklevel >= 1 &&
            (block_check(&st, &b, cs->p, 1) ||
             (e->height >= cs->p->segwit_height &&
              block_check_witness_commitment(&st, &b, &has_commitment)))) {
            snprintf(why, why_len, "found bad block at %d in blk%05d.dat at position %u (%s)",
                     e->height, e->file, e->data_pos, st.reject);
            *ok = 0;
        }
        if (*ok == 1 && checklevel >= 2) {
            struct buf raw;
            buf_init(&raw);
            if (blockstore_read_undo(cs->store, e->file, e->undo_pos, e->prev->hash, &raw) ||
                block_undo_parse(&undo, raw.data, raw.len)) {
                snprintf(why, why_len, "found bad undo data at %d in rev%05d.dat at position %u",
                         e->height, e->file, e->undo_pos);
                *ok = 0;
            }
            buf_clear(&raw);
        }
        if (*ok == 1 && checklevel >= 3) {
            int r = chainstate_disconnect_block(cs, e, &b, &undo, view, 0);
            if (r == RC_BACKEND || r == RC_IO) {
                rc = r; /* the store failed (its message in kv_last_error): not a verdict */
                block_undo_clear(&undo);
                block_clear(&b);
                break;
            }
            if (r) {
                snprintf(why, why_len, "irrecoverable inconsistency in block data at %d "
                         "(blk%05d.dat, rev%05d.dat: %s)", e->height, e->file, e->file,
                         rc_str(r));
                *ok = 0;
            } else {
                disconnected++;
                good += b.tx_count;
            }
        }
        block_undo_clear(&undo);
        block_clear(&b);
    }
    /* Level 4: connect the blocks again on the disconnected state. */
    if (*ok == 1 && checklevel >= 4) {
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
    pthread_rwlock_unlock(&cs->lock);
    if (good_txs) {
        *good_txs = good;
    }
    return rc;
}
