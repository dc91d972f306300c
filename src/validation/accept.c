/* Accepting headers and blocks into the block index and the block store (Core's
 * AcceptBlockHeader / AcceptBlock): the checks a block passes without the UTXO set, where it
 * is stored, which blocks may become the tip once their data is there, and the prefetch of
 * the coins the most recently accepted block spends. Choosing the best chain: activate.c;
 * connecting: connect.c. */
#include <string.h>

#include "blockstore/indexdb.h"
#include "consensus/pow.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/block_check.h"
#include "validation/chainstate_impl.h"
#include "validation/headers.h"
#include "validation/txindex.h"

void chainstate_note_header(struct chainstate *cs, struct block_index *e)
{
    if (!block_index_failed(e) &&
        (!cs->best_header || u256_cmp(&e->chain_work, &cs->best_header->chain_work) > 0)) {
        cs->best_header = e;
        for (size_t i = 0; i < cs->n_listeners; i++) {
            if (cs->listeners[i].header_tip) {
                cs->listeners[i].header_tip(cs->listeners[i].ctx, e);
            }
        }
    }
}

/* The genesis block goes in like any other block, once (unless a reindex will find it). */
int chainstate_ensure_genesis(struct chainstate *cs)
{
    struct block_index *g0 = block_tree_find(cs->tree, cs->p->genesis_hash);
    /* Stored once is enough: a pruned genesis is not stored again (Core's LoadGenesisBlock
     * looks only for the entry). */
    if (g0 && ((g0->status & BLOCK_HAVE_DATA) || g0->tx_count > 0)) {
        return RC_OK;
    }
    struct block g;
    struct buf raw;
    struct vstate st;
    buf_init(&raw);
    chain_params_genesis_block(&g, cs->p);
    block_serialize(&g, &raw, 1);
    block_clear(&g);
    vstate_init(&st);
    int rc = chainstate_accept_block(cs, raw.data, raw.len, NULL, &st, NULL);
    buf_clear(&raw);
    return rc;
}

/* The part of accepting block b that changes the index and the store; chain lock held. */
/* Core's AcceptBlock for a block nobody asked for: its header is taken, its data only if
 * its chain has at least the tip's work and the minimum chain work, and it is at most
 * MIN_BLOCKS_TO_KEEP above the tip (so a peer cannot make us store blocks we would not
 * fetch). 1 when the data is to be skipped. Chain lock held. */
static int skip_unrequested(const struct chainstate *cs, const struct block_index *e)
{
    const struct block_index *tip = chainstate_tip(cs);
    if (e->tx_count != 0) {
        return 1; /* processed before (pruned since) */
    }
    if (tip && u256_cmp(&e->chain_work, &tip->chain_work) < 0) {
        return 1;
    }
    if (e->height > (tip ? tip->height : -1) + MIN_BLOCKS_TO_KEEP) {
        return 1;
    }
    return u256_cmp(&e->chain_work, &cs->p->minimum_chain_work) < 0;
}

static int accept_locked(struct chainstate *cs, struct block *b, const uint8_t *raw, size_t len,
                         const struct block_pos *known_pos, int requested, struct vstate *st,
                         int *is_new)
{
    struct block_index *e = NULL;
    int rc;
    if (memcmp(b->hash, cs->p->genesis_hash, 32) == 0) {
        e = block_tree_find(cs->tree, b->hash);
        if (!e) {
            e = block_tree_add(cs->tree, &b->header, NULL, BLOCK_VALID_TREE);
        }
    } else {
        int64_t now = chainstate_now(cs);
        if ((rc = headers_accept(cs->tree, st, &e, &b->header, cs->p, now))) {
            return rc;
        }
    }
    chainstate_note_header(cs, e);
    if (e->status & BLOCK_HAVE_DATA) {
        return RC_OK; /* already stored */
    }
    if (!requested && skip_unrequested(cs, e)) {
        return RC_OK; /* the header only (is_new 0) */
    }
    if (e->prev &&
        block_check_contextual(st, b, e->height, block_index_median_time_past(e->prev), cs->p)) {
        if (st->result != VRESULT_MUTATED) {
            e->status |= BLOCK_FAILED_VALID;
            chainstate_mark_dirty(cs, e);
        }
        return RC_INVALID;
    }
    if (known_pos) {
        e->file = known_pos->file;
        e->data_pos = known_pos->pos;
        blockstore_note_block(cs->store, known_pos->file, known_pos->pos, len,
                              (uint32_t)e->height, b->header.time);
    } else {
        int file;
        uint32_t pos;
        rc = blockstore_append_block(cs->store, raw, len, (uint32_t)e->height, b->header.time,
                                     &file, &pos);
        if (rc) {
            LOG_ERROR("storing block at height %d: %s", e->height, blockstore_error(cs->store));
            return rc;
        }
        e->file = file;
        e->data_pos = pos;
        chainstate_crash_point(cs, "a block write");
    }
    e->tx_count = (uint32_t)b->tx_count;
    e->status |= BLOCK_HAVE_DATA;
    if (e->height >= cs->p->segwit_height) {
        e->status |= BLOCK_OPT_WITNESS; /* Core's: checked with segwit's rules */
    }
    block_index_raise_validity(e, BLOCK_VALID_TRANSACTIONS);
    chainstate_mark_dirty(cs, e);
    if (!e->prev || e->prev->chain_tx) {
        candidates_link(&cs->cand, e);
    } else {
        candidates_add_unlinked(&cs->cand, e);
    }
    if (is_new) {
        *is_new = 1;
    }
    /* Keep the parsed block for the connect that usually follows. */
    block_clear(&cs->recent);
    cs->recent = *b;
    block_init(b);
    cs->have_recent = 1;
    cs->recent_read = 0; /* checked here (block_check) */
    return RC_OK;
}

/* How a block came: a peer or submitblock asked for it (Core's ProcessNewBlock), nobody did
 * (fRequested false), or it is read from a block file (Core's import calls AcceptBlock). */
enum accept_kind { ACCEPT_REQUESTED, ACCEPT_UNREQUESTED, ACCEPT_IMPORT };

static int accept_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                        const struct block_pos *known_pos, enum accept_kind kind,
                        struct vstate *st, int *is_new);

int chainstate_accept_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                            const struct block_pos *known_pos, struct vstate *st, int *is_new)
{
    return accept_block(cs, raw, len, known_pos, ACCEPT_REQUESTED, st, is_new);
}

int chainstate_import_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                            const struct block_pos *known_pos, struct vstate *st, int *is_new)
{
    return accept_block(cs, raw, len, known_pos, ACCEPT_IMPORT, st, is_new);
}

int chainstate_accept_unrequested_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                                        struct vstate *st, int *is_new)
{
    return accept_block(cs, raw, len, NULL, ACCEPT_UNREQUESTED, st, is_new);
}

static int accept_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                        const struct block_pos *known_pos, enum accept_kind kind,
                        struct vstate *st, int *is_new)
{
    struct block b;
    char err[256];
    int rc;

    if (is_new) {
        *is_new = 0;
    }
    /* Core reads a block from the front of what it is given and ignores what follows (a
     * P2P message's payload, submitblock's hex); the block is its bytes read. */
    size_t used = 0;
    if (block_parse_prefix(&b, raw, len, &used, err, sizeof(err)) != RC_OK) {
        return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_BLK_SERIALIZATION, "%s", err);
    }
    len = used;
    /* Context-free checks first, as Core's ProcessNewBlock runs CheckBlock before anything
     * is stored: a block failing them is not remembered at all (its header, if known, may
     * belong to a valid block with another body, and stays as it was), so submitting it
     * again gives the reason again. They need no lock: only this thread changes the tree. */
    struct block_index *e = block_tree_find(cs->tree, b.hash);
    int bad = !(e && (e->status & BLOCK_HAVE_DATA)) && block_check(st, &b, cs->p, 1);
    if (bad && st->result == VRESULT_MUTATED) {
        LOG(LOG_CAT_VALIDATION, LOG_LVL_DEBUG, "Block mutated: %s%s%s", st->reject,
            st->debug[0] ? ", " : "", st->debug);
    }
    pthread_rwlock_wrlock(&cs->lock);
    if (bad) {
        if (kind == ACCEPT_IMPORT && e && !block_index_failed(e) &&
            st->result != VRESULT_MUTATED) {
            /* An import whose header came first: this body is what the header commits to
             * (not mutated), so the block is invalid, as Core's import (AcceptBlock) marks
             * it. A peer's block leaves its header alone (Core's ProcessNewBlock). */
            chainstate_mark_invalid(cs, e);
        }
        rc = RC_INVALID;
    } else {
        rc = accept_locked(cs, &b, raw, len, known_pos, kind != ACCEPT_UNREQUESTED, st, is_new);
    }
    pthread_rwlock_unlock(&cs->lock);
    if (rc == RC_INVALID && st->result != VRESULT_MISSING_PREV) {
        /* Core's lines, with its reject reason verbatim (an unknown parent is not a
         * verdict: an import retries it when the parent comes). */
        char hx[65];
        hex_encode_rev(hx, b.hash, 32);
        LOG_INFO("ProcessNewBlock: %s FAILED (%s%s%s) block %s", bad ? "CheckBlock" : "AcceptBlock",
                 st->reject, st->debug[0] ? ", " : "", st->debug, hx);
    }
    block_clear(&b);
    return rc;
}

int chainstate_prefetch_recent(struct chainstate *cs)
{
    int rc = RC_OK;
    if (!cs->have_recent || cs->recent.tx_count < 2) {
        return RC_OK;
    }
    /* While nothing reads the store (not the last prefetch, not the connects since), the
     * cache holds every coin the blocks spend: looking them up ahead would only cost a
     * lookup more per input. The first connect that reads the store turns it back on. */
    uint64_t reads, writes, deletes, batches;
    coins_db_counters(cs->coins_db, &reads, &writes, &deletes, &batches);
    if (reads == cs->prefetch_db_reads) {
        return RC_OK;
    }
    pthread_rwlock_wrlock(&cs->lock); /* it fills the coins cache */
    const struct block *b = &cs->recent;
    /* Outputs the block creates itself are skipped (sorted txids, binary search); those
     * of the block being connected are not in the cache yet: looked up, not found, no
     * harm (the cache holds what the database holds until the block is flushed into it). */
    uint8_t(*ids)[32] = NULL;
    size_t cap = 0;
    block_sorted_txids(b, &ids, &cap);
    for (size_t t = 1; t < b->tx_count && rc == RC_OK; t++) {
        for (size_t i = 0; i < b->txs[t].vin_count; i++) {
            const struct outpoint *op = &b->txs[t].vin[i].prevout;
            if (block_creates((const uint8_t(*)[32])ids, b->tx_count, op->txid)) {
                continue;
            }
            const struct coin *c;
            int r = coins_cache_get(cs->coins, op, &c);
            if (r != RC_OK && r != RC_NOT_FOUND) {
                rc = r;
                break;
            }
        }
    }
    free(ids);
    coins_db_counters(cs->coins_db, &cs->prefetch_db_reads, &writes, &deletes, &batches);
    pthread_rwlock_unlock(&cs->lock);
    return rc;
}

int chainstate_accept_header(struct chainstate *cs, const uint8_t raw80[80], struct vstate *st)
{
    struct block_header h;
    struct reader r;
    struct block_index *e = NULL;
    reader_init(&r, raw80, 80);
    if (block_header_parse(&h, &r) != RC_OK) {
        return vstate_reject(st, VRESULT_CONSENSUS, REJECT_BAD_BLK_SERIALIZATION, "header");
    }
    uint8_t hash[32];
    block_header_hash(&h, hash);
    pthread_rwlock_wrlock(&cs->lock);
    int rc = RC_OK;
    if (memcmp(hash, cs->p->genesis_hash, 32) == 0) {
        /* The genesis header has no parent to connect to: it is the root (a reindex reads it
         * first from blk00000.dat, before its block). */
        e = block_tree_find(cs->tree, hash);
        if (!e) {
            e = block_tree_add(cs->tree, &h, NULL, BLOCK_VALID_TREE);
        }
    } else {
        rc = headers_accept(cs->tree, st, &e, &h, cs->p, chainstate_now(cs));
    }
    if (rc == RC_OK) {
        chainstate_note_header(cs, e);
        if (!e->stored) {
            chainstate_mark_dirty(cs, e); /* a header is kept across a restart, as Core's */
        }
    }
    pthread_rwlock_unlock(&cs->lock);
    if (rc == RC_INVALID && st->result != VRESULT_MISSING_PREV) {
        char hx[65];
        hex_encode_rev(hx, hash, 32);
        LOG(LOG_CAT_VALIDATION, LOG_LVL_DEBUG, "AcceptBlockHeader: %s, %s%s%s", hx, st->reject,
            st->debug[0] ? ", " : "", st->debug);
    }
    return rc;
}

int chainstate_accept_block_header(struct chainstate *cs, const uint8_t *raw, size_t len)
{
    struct block b;
    struct vstate st;
    size_t used = 0;
    vstate_init(&st);
    if (block_parse_prefix(&b, raw, len, &used, NULL, 0) != RC_OK) {
        return RC_INVALID;
    }
    int bad = block_check(&st, &b, cs->p, 1);
    block_clear(&b);
    if (bad) {
        return RC_INVALID;
    }
    return chainstate_accept_header(cs, raw, &st);
}
