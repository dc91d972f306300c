/* The chainstate's queries, the chain lock, the block tree's marks, its listeners and the
 * transaction index's catch-up: what the other files of the chainstate build on, calling
 * none of them. Opening and closing: open.c; accepting headers and blocks: accept.c;
 * flushing: flush.c; connect/disconnect: connect.c; choosing the best chain: activate.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "blockstore/indexdb.h"
#include "consensus/pow.h"
#include "script/sigcache.h"
#include "script/sigcheck.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/block_check.h"
#include "validation/chainstate_impl.h"
#include "validation/checkqueue.h"
#include "validation/headers.h"
#include "validation/txindex.h"

int64_t chainstate_now(const struct chainstate *cs)
{
    int64_t mock = atomic_load(&cs->mocktime);
    return mock ? mock : (int64_t)time(NULL);
}

void chainstate_set_mocktime(struct chainstate *cs, int64_t t)
{
    atomic_store(&cs->mocktime, t);
}

void chainstate_set_mempool_usage(struct chainstate *cs, size_t bytes)
{
    atomic_store_explicit(&cs->mempool_used, bytes, memory_order_relaxed);
}

void chainstate_mark_dirty(struct chainstate *cs, struct block_index *e)
{
    if (e->dirty) {
        return;
    }
    if (cs->ndirty == cs->capdirty) {
        cs->capdirty = cs->capdirty ? 2 * cs->capdirty : 1024;
        cs->dirty = xrealloc(cs->dirty, cs->capdirty * sizeof(*cs->dirty));
    }
    e->dirty = 1;
    cs->dirty[cs->ndirty++] = e;
}

struct mark_ctx {
    struct chainstate *cs;
    struct block_index *bad;
};

/* e is invalid: the best invalid block so far when it could have been a tip (its data and
 * all its ancestors' are stored), as Core's m_best_invalid. */
static void note_invalid(struct chainstate *cs, struct block_index *e)
{
    if (e->chain_tx && (!cs->best_invalid ||
                        u256_cmp(&e->chain_work, &cs->best_invalid->chain_work) > 0)) {
        cs->best_invalid = e;
    }
}

static int mark_descendant(void *ctx, struct block_index *e)
{
    struct mark_ctx *m = ctx;
    if (e != m->bad && e->height > m->bad->height &&
        block_index_ancestor(e, m->bad->height) == m->bad) {
        if (!(e->status & BLOCK_FAILED_CHILD)) {
            e->status |= BLOCK_FAILED_CHILD;
            chainstate_mark_dirty(m->cs, e);
        }
        note_invalid(m->cs, e);
    }
    return 0;
}

static int best_valid_header(void *ctx, struct block_index *e)
{
    struct block_index **best = ctx;
    if (!block_index_failed(e) && (!*best || u256_cmp(&e->chain_work, &(*best)->chain_work) > 0)) {
        *best = e;
    }
    return 0;
}

void chainstate_mark_invalid(struct chainstate *cs, struct block_index *bad)
{
    struct mark_ctx m = {cs, bad};
    bad->status |= BLOCK_FAILED_VALID;
    chainstate_mark_dirty(cs, bad);
    note_invalid(cs, bad);
    block_tree_foreach(cs->tree, mark_descendant, &m);
    candidates_changed(&cs->cand);
    if (cs->best_header && block_index_failed(cs->best_header)) {
        /* The most-work header that is still valid (Core's m_best_header after
         * InvalidBlockFound); a walk of the tree, once per invalid block. */
        struct block_index *best = NULL;
        block_tree_foreach(cs->tree, best_valid_header, &best);
        cs->best_header = best;
    }
}

int chainstate_load_block(struct chainstate *cs, const struct block_index *e, struct block *b)
{
    char err[256];
    struct buf raw;
    if (cs->have_recent && memcmp(cs->recent.hash, e->hash, 32) == 0) {
        /* Hand over the block accept just parsed. */
        *b = cs->recent;
        block_init(&cs->recent);
        cs->have_recent = 0;
        return RC_OK;
    }
    block_init(b);
    if (!(e->status & BLOCK_HAVE_DATA)) {
        return RC_NOT_FOUND;
    }
    buf_init(&raw);
    err[0] = 0;
    int rc = blockstore_read_block(cs->store, e->file, e->data_pos, &raw);
    if (rc == RC_OK && block_parse(b, raw.data, raw.len, err, sizeof(err)) != RC_OK) {
        rc = RC_CORRUPT; /* block_parse cleared b */
    } else if (rc == RC_OK && memcmp(b->hash, e->hash, 32) != 0) {
        snprintf(err, sizeof(err), "its header is not the indexed block's");
        block_clear(b);
        rc = RC_CORRUPT;
    } else if (rc) {
        snprintf(err, sizeof(err), "%s", blockstore_error(cs->store));
    }
    buf_clear(&raw);
    if (rc) {
        /* Core's ReadBlock line, then what to do: the block files are damaged, only a
         * -reindex (which reads them again) can tell what is left. */
        char hx[65];
        hex_encode_rev(hx, e->hash, 32);
        snprintf(cs->fatal_msg, sizeof(cs->fatal_msg),
                 "Failed to read block %s (height %d) from blk%05d.dat at position %u: %s. "
                 "The block files are damaged: restart with -reindex",
                 hx, e->height, e->file, e->data_pos, err[0] ? err : rc_str(rc));
        LOG_ERROR("%s", cs->fatal_msg);
    }
    return rc;
}

const char *chainstate_fatal_message(const struct chainstate *cs)
{
    if (!cs->fatal_msg[0] && blockstore_out_of_space(cs->store)) {
        return "Disk space is too low!"; /* Core's words, for a block or undo write */
    }
    return cs->fatal_msg;
}

/* Core: skip only when the work on top of e is more than two weeks of blocks at the best
 * header's difficulty, so that a block cannot be buried under assumevalid cheaply. */
#define ASSUME_VALID_BURY_SECONDS (60 * 60 * 24 * 7 * 2)

const char *chainstate_script_check_reason(struct chainstate *cs, struct block_index *e)
{
    if (!cs->have_assume_valid) {
        return "assumevalid=0 (always verify)";
    }
    struct block_index *av = block_tree_find(cs->tree, cs->assume_valid);
    struct block_index *best = cs->best_header;
    if (!av) {
        return "assumevalid hash not in headers";
    }
    if (block_index_ancestor(av, e->height) != e) {
        return e->height > av->height ? "block height above assumevalid height"
                                      : "block not in assumevalid chain";
    }
    if (!best || block_index_ancestor(best, e->height) != e) {
        return "block not in best header chain";
    }
    if (u256_cmp(&best->chain_work, &cs->p->minimum_chain_work) < 0) {
        return "best header chainwork below minimumchainwork";
    }
    if (pow_proof_equivalent_time(&best->chain_work, &e->chain_work, best->header.bits, cs->p) <=
        ASSUME_VALID_BURY_SECONDS) {
        return "block too recent relative to best header";
    }
    return NULL;
}

int chainstate_assume_scripts_valid(struct chainstate *cs, struct block_index *e)
{
    return chainstate_script_check_reason(cs, e) == NULL;
}

struct block_index *chainstate_tip(const struct chainstate *cs)
{
    return active_chain_tip(&cs->active);
}

struct block_index *chainstate_at_height(const struct chainstate *cs, int32_t height)
{
    return active_chain_at(&cs->active, height);
}

int chainstate_contains(const struct chainstate *cs, const struct block_index *e)
{
    return active_chain_contains(&cs->active, e);
}

struct block_index *chainstate_best_header(const struct chainstate *cs)
{
    return cs->best_header;
}

struct block_tree *chainstate_tree(const struct chainstate *cs)
{
    return cs->tree;
}

const struct chain_params *chainstate_params(const struct chainstate *cs)
{
    return cs->p;
}

int chainstate_stop_requested(const struct chainstate *cs)
{
    return atomic_load(&cs->stop_requested);
}

void chainstate_set_interrupt(struct chainstate *cs, chainstate_interrupt_fn fn)
{
    cs->interrupt = fn;
}

int chainstate_interrupted(const struct chainstate *cs)
{
    return cs->interrupt && cs->interrupt();
}

void chainstate_set_best_header_only(struct chainstate *cs, int on)
{
    if (cs->best_header_only != on) {
        cs->best_header_only = on;
        candidates_changed(&cs->cand);
    }
}

int chainstate_read_block(struct chainstate *cs, const struct block_index *e, struct buf *out)
{
    if (!(e->status & BLOCK_HAVE_DATA)) {
        return RC_NOT_FOUND;
    }
    int rc = blockstore_read_block(cs->store, e->file, e->data_pos, out);
    if (rc) {
        LOG_ERROR("reading block: %s", blockstore_error(cs->store));
    }
    return rc;
}

int chainstate_read_undo(struct chainstate *cs, const struct block_index *e,
                         struct block_undo *undo)
{
    struct buf raw;
    block_undo_init(undo);
    if (!(e->status & BLOCK_HAVE_UNDO) || !e->prev) {
        return RC_NOT_FOUND;
    }
    buf_init(&raw);
    int rc = blockstore_read_undo(cs->store, e->file, e->undo_pos, e->prev->hash, &raw);
    if (rc == RC_OK) {
        rc = block_undo_parse(undo, raw.data, raw.len);
    } else {
        LOG_ERROR("reading undo data: %s", blockstore_error(cs->store));
    }
    buf_clear(&raw);
    return rc;
}

int chainstate_get_coin(struct chainstate *cs, const struct outpoint *op, struct coin *out)
{
    /* A reader must not fill the cache (the validation thread owns it): the cache's answer if
     * it has one, else the store's. */
    int cached;
    int rc = coins_cache_peek(cs->coins, op, out, &cached);
    return cached ? rc : coins_db_read(cs->coins_db, op, out);
}

void chainstate_get_counters(const struct chainstate *cs, struct chainstate_counters *c)
{
    *c = cs->counters;
    c->coins_cache_bytes = coins_cache_memory(cs->coins);
}

void chainstate_set_tip(struct chainstate *cs, struct block_index *tip)
{
    active_chain_set_tip(&cs->active, tip);
    for (size_t i = 0; i < cs->n_listeners; i++) {
        if (cs->listeners[i].tip_changed) {
            cs->listeners[i].tip_changed(cs->listeners[i].ctx, tip);
        }
    }
}

void chainstate_read_lock(struct chainstate *cs)
{
    pthread_rwlock_rdlock(&cs->lock);
}

void chainstate_read_unlock(struct chainstate *cs)
{
    pthread_rwlock_unlock(&cs->lock);
}

int chainstate_is_reindexing(struct chainstate *cs, int *reindexing)
{
    int rc = indexdb_get_reindexing(cs->index_kv, reindexing);
    if (rc == RC_OK) {
        atomic_store(&cs->reindexing, *reindexing);
    }
    return rc;
}

int chainstate_set_reindexing(struct chainstate *cs, int reindexing)
{
    int rc = indexdb_set_reindexing(cs->index_kv, reindexing);
    if (rc == RC_OK) {
        atomic_store(&cs->reindexing, reindexing);
    }
    return rc;
}

int chainstate_reindexing_now(const struct chainstate *cs)
{
    return atomic_load(&cs->reindexing);
}

uint64_t chainstate_size_on_disk(const struct chainstate *cs)
{
    return blockstore_usage(cs->store);
}

const char *chainstate_blocks_dir(const struct chainstate *cs)
{
    return cs->blocks_dir;
}

const struct obfuscation *chainstate_blocks_obfuscation(const struct chainstate *cs)
{
    return blockstore_obfuscation(cs->store);
}

int chainstate_last_invalid(const struct chainstate *cs, const uint8_t hash32[32],
                            struct vstate *st)
{
    for (unsigned i = 0; i < CHAINSTATE_INVALID_RING; i++) {
        unsigned slot = (cs->invalid_next - 1 - i) % CHAINSTATE_INVALID_RING; /* newest first */
        if (cs->invalid_ring[slot].st.mode == VSTATE_INVALID &&
            memcmp(cs->invalid_ring[slot].hash, hash32, 32) == 0) {
            *st = cs->invalid_ring[slot].st;
            return 1;
        }
    }
    return 0;
}

int chainstate_left_ibd(const struct chainstate *cs)
{
    return atomic_load(&cs->left_ibd) != 0;
}

int chainstate_in_ibd(struct chainstate *cs)
{
    if (atomic_load(&cs->left_ibd)) {
        return 0;
    }
    struct block_index *tip = chainstate_tip(cs);
    if (!tip || u256_cmp(&tip->chain_work, &cs->p->minimum_chain_work) < 0 ||
        (int64_t)tip->header.time < chainstate_now(cs) - cs->max_tip_age) {
        return 1;
    }
    if (!atomic_exchange(&cs->left_ibd, 1)) {
        LOG_INFO("Leaving InitialBlockDownload (latching to false)");
    }
    return 0;
}

int chainstate_add_listener(struct chainstate *cs, const struct chainstate_listener *l)
{
    if (cs->n_listeners == CHAINSTATE_MAX_LISTENERS) {
        return RC_TOO_LARGE;
    }
    cs->listeners[cs->n_listeners++] = *l;
    return RC_OK;
}

void chainstate_remove_listener(struct chainstate *cs, const struct chainstate_listener *l)
{
    size_t k = 0;
    for (size_t i = 0; i < cs->n_listeners; i++) {
        const struct chainstate_listener *x = &cs->listeners[i];
        if (x->tip_changed != l->tip_changed || x->block_connected != l->block_connected ||
            x->block_disconnected != l->block_disconnected || x->header_tip != l->header_tip ||
            x->fatal_error != l->fatal_error || x->tip_settled != l->tip_settled ||
            x->warning != l->warning || x->ctx != l->ctx) {
            cs->listeners[k++] = *x;
        }
    }
    cs->n_listeners = k;
}

void chainstate_notify_fatal(struct chainstate *cs, int rc)
{
    for (size_t i = 0; i < cs->n_listeners; i++) {
        if (cs->listeners[i].fatal_error) {
            cs->listeners[i].fatal_error(cs->listeners[i].ctx, rc);
        }
    }
}

struct sigcache *chainstate_sigcache(struct chainstate *cs)
{
    return cs->sigcache;
}

int chainstate_txindex_catch_up(struct chainstate *cs)
{
    struct block_index *tip = chainstate_tip(cs);
    if (!cs->txindex || !tip || cs->txindex_best == tip) {
        return RC_OK;
    }
    struct block_index *from =
        cs->txindex_best ? block_index_fork_point(cs->txindex_best, tip) : NULL;
    int32_t h = from ? from->height + 1 : 1; /* the genesis coinbase is not indexed */
    if (tip->height - h > 0) {
        LOG_INFO("txindex: indexing blocks %d to %d", h, tip->height);
    }
    for (; h <= tip->height; h++) {
        struct block b;
        int rc = chainstate_load_block(cs, cs->active.v[h], &b);
        if (rc) {
            return rc;
        }
        txindex_add_block(cs->txindex, cs->active.v[h], &b);
        block_clear(&b);
    }
    int rc = txindex_write(cs->txindex, tip->hash);
    if (rc == RC_OK) {
        cs->txindex_best = tip;
    }
    return rc;
}

int chainstate_find_tx(struct chainstate *cs, const uint8_t txid32[32], struct block_index **block)
{
    struct txindex_pos pos;
    if (!cs->txindex) {
        return RC_USAGE;
    }
    int rc = txindex_find(cs->txindex, txid32, &pos);
    if (rc) {
        return rc;
    }
    /* The entry names a block position: find the block at it (active chain first). */
    for (int32_t h = cs->active.height; h >= 0; h--) {
        struct block_index *e = cs->active.v[h];
        if (e->file == pos.file && e->data_pos == pos.block_pos) {
            *block = e;
            return RC_OK;
        }
    }
    return RC_NOT_FOUND;
}

int chainstate_txindex_info(const struct chainstate *cs, int *synced_height)
{
    if (!cs->txindex) {
        return 0;
    }
    *synced_height = cs->txindex_best ? cs->txindex_best->height : -1;
    return 1;
}

int chainstate_assume_valid(const struct chainstate *cs, uint8_t hash32[32])
{
    if (!cs->have_assume_valid) {
        return 0;
    }
    memcpy(hash32, cs->assume_valid, 32);
    return 1;
}

double chainstate_guess_progress(struct chainstate *cs, const struct block_index *e)
{
    if (!e || e->chain_tx == 0) {
        return 0.0;
    }
    const struct chain_params *p = cs->p;
    int64_t now = chainstate_now(cs);
    int64_t block_time = e->header.time;
    struct block_index *hdr = cs->best_header;
    int64_t ahead = now - (int64_t)e->header.time;
    if (hdr && hdr->height >= e->height && (ahead < 0 ? -ahead : ahead) <= 2 * 60 * 60) {
        /* Core: with a recent block, by height (so that the value is exactly 1 at the best
         * header), not by the miner's timestamp. */
        block_time = now - (int64_t)(hdr->height - e->height) * p->pow_target_spacing;
    }
    double total = e->chain_tx <= p->chain_tx_count
                       ? (double)p->chain_tx_count + (double)(now - p->chain_tx_time) * p->chain_tx_rate
                       : (double)e->chain_tx + (double)(now - block_time) * p->chain_tx_rate;
    double g = (double)e->chain_tx / total;
    return g < 1.0 ? g : 1.0;
}

/* ---- pruning's queries and locks (the pruning itself: prune.c, flush.c) ---- */

int chainstate_block_pruned(const struct chainstate *cs, const struct block_index *e)
{
    return cs->have_pruned && !(e->status & BLOCK_HAVE_DATA) && e->tx_count > 0;
}

void chainstate_prune_info(struct chainstate *cs, struct chainstate_prune_info *info)
{
    const uint32_t mask = BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO;
    memset(info, 0, sizeof(*info));
    info->prune_mode = cs->opt.prune_target != 0;
    info->automatic = info->prune_mode && cs->opt.prune_target != CHAINSTATE_PRUNE_MANUAL;
    info->target_bytes = info->automatic ? cs->opt.prune_target : 0;
    info->have_pruned = cs->have_pruned;
    info->last_pruned = -1;
    if (!info->prune_mode) {
        return; /* an unpruned node shows no prune height: no walk down the chain */
    }
    /* Core's GetPruneHeight: the block below the lowest one from which up to the tip every
     * block has its data and undo data (genesis, which has no undo data, left out). */
    struct block_index *tip = chainstate_tip(cs), *first = chainstate_at_height(cs, 1);
    if (!tip || !first) {
        return;
    }
    if ((tip->status & mask) != mask) {
        info->last_pruned = tip->height;
        return;
    }
    struct block_index *e = tip;
    while (e != first && e->prev && (e->prev->status & mask) == mask) {
        e = e->prev;
    }
    if (e != first && e->prev) {
        info->last_pruned = e->prev->height;
    }
}

int32_t chainstate_prune_after_height(const struct chainstate *cs)
{
    return cs->opt.fast_prune && cs->p->id == CHAIN_REGTEST ? 100 : cs->p->prune_after_height;
}

void chainstate_prune_locks_moved_back(struct chainstate *cs, int32_t height)
{
    pthread_mutex_lock(&cs->prune_lock_mu);
    for (size_t i = 0; i < CHAINSTATE_MAX_PRUNE_LOCKS; i++) {
        if (cs->prune_locks[i].name[0] && cs->prune_locks[i].height > height) {
            cs->prune_locks[i].height = height;
            LOG(LOG_CAT_PRUNE, LOG_LVL_DEBUG, "%s prune lock moved back to %d",
                cs->prune_locks[i].name, height);
        }
    }
    pthread_mutex_unlock(&cs->prune_lock_mu);
}

int chainstate_set_prune_lock(struct chainstate *cs, const char *name, int32_t height)
{
    int rc = RC_TOO_LARGE;
    pthread_mutex_lock(&cs->prune_lock_mu);
    size_t free_slot = CHAINSTATE_MAX_PRUNE_LOCKS;
    for (size_t i = 0; i < CHAINSTATE_MAX_PRUNE_LOCKS; i++) {
        if (strncmp(cs->prune_locks[i].name, name, sizeof(cs->prune_locks[i].name) - 1) == 0 &&
            cs->prune_locks[i].name[0]) {
            free_slot = i;
            break;
        }
        if (!cs->prune_locks[i].name[0] && free_slot == CHAINSTATE_MAX_PRUNE_LOCKS) {
            free_slot = i;
        }
    }
    if (free_slot < CHAINSTATE_MAX_PRUNE_LOCKS) {
        if (height < 0) {
            cs->prune_locks[free_slot].name[0] = 0;
        } else {
            snprintf(cs->prune_locks[free_slot].name, sizeof(cs->prune_locks[free_slot].name),
                     "%s", name);
            cs->prune_locks[free_slot].height = height;
        }
        rc = RC_OK;
    }
    pthread_mutex_unlock(&cs->prune_lock_mu);
    return rc;
}

void chainstate_cache_sizes(const struct chainstate *cs, size_t *db_bytes, size_t *tip_bytes)
{
    *db_bytes = cs->coins_db_cache;
    *tip_bytes = cs->coins_limit - cs->opt.mempool_bytes;
}

void chainstate_crash_point(const struct chainstate *cs, const char *where)
{
    random_crash_point(cs->opt.db_crash_ratio, where);
}
