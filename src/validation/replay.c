/* Replaying blocks after a flush written in parts was cut short (Core's ReplayBlocks). See
 * chainstate_impl.h and doc/architecture.md, "How a flush stays crash-safe". */
#include <stdio.h>
#include <string.h>

#include "coins/coin.h"
#include "coins/undo.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate_impl.h"

/* Core's RollforwardBlock: the block's spends and outputs applied again, each idempotent
 * (a spend of a coin already gone passes, an output already there is overwritten). */
static int rollforward(struct coins_cache *view, const struct block *b, int height)
{
    for (size_t t = 0; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        if (t > 0) {
            for (size_t i = 0; i < tx->vin_count; i++) {
                int rc = coins_cache_spend(view, &tx->vin[i].prevout, NULL);
                if (rc && rc != RC_NOT_FOUND) {
                    return rc;
                }
            }
        }
        /* Outputs already there are overwritten. */
        int rc = chainstate_add_outputs(view, tx, height, t == 0, 1);
        if (rc) {
            return rc;
        }
    }
    return RC_OK;
}

static struct block_index *find_end(struct chainstate *cs, const uint8_t hash32[32],
                                    const char *which, char *err, size_t err_len)
{
    struct block_index *e = block_tree_find(cs->tree, hash32);
    if (!e) {
        char hx[65];
        hex_encode_rev(hx, hash32, 32);
        snprintf(err, err_len,
                 "the chainstate was being flushed towards %s block %s, which the block index "
                 "does not have: restart with -reindex-chainstate",
                 which, hx);
    }
    return e;
}

int chainstate_replay_blocks(struct chainstate *cs, const uint8_t new32[32],
                             const uint8_t old32[32], char *err, size_t err_len)
{
    static const uint8_t zero[32];
    struct block_index *new_tip = find_end(cs, new32, "the new", err, err_len);
    struct block_index *old_tip = NULL, *fork = NULL;
    if (!new_tip) {
        return RC_CORRUPT;
    }
    if (memcmp(old32, zero, 32) != 0) { /* zero: the first flush, nothing to undo */
        if (!(old_tip = find_end(cs, old32, "the old", err, err_len))) {
            return RC_CORRUPT;
        }
        fork = block_index_fork_point(old_tip, new_tip);
    }
    LOG_INFO("Replaying blocks: the chainstate flush to height %d was cut short; from height "
             "%d back to %d, then forward",
             new_tip->height, old_tip ? old_tip->height : -1, fork ? fork->height : 0);
    struct block b;
    struct block_undo undo;
    int rc = RC_OK;
    /* Undo the old branch down to the fork point (never the genesis block). */
    for (struct block_index *e = old_tip; e && e != fork && rc == RC_OK; e = e->prev) {
        if (e->height == 0) {
            continue;
        }
        block_undo_init(&undo);
        if ((rc = chainstate_load_block(cs, e, &b)) == RC_OK) {
            rc = chainstate_read_undo(cs, e, &undo);
            if (rc == RC_OK) {
                rc = chainstate_disconnect_block(cs, e, &b, &undo, cs->coins, 1);
            }
            block_clear(&b);
        }
        block_undo_clear(&undo);
    }
    /* Apply the new branch again from the fork point (Core: from height 1 for a first
     * flush; the genesis outputs are never coins). */
    int from = (fork ? fork->height : 0) + 1;
    for (int h = from; h <= new_tip->height && rc == RC_OK; h++) {
        struct block_index *e = block_index_ancestor(new_tip, h);
        if ((rc = chainstate_load_block(cs, e, &b)) == RC_OK) {
            rc = rollforward(cs->coins, &b, h);
            block_clear(&b);
        }
    }
    if (rc) {
        snprintf(err, err_len, "replaying the blocks of a flush cut short failed (%s): restart "
                               "with -reindex-chainstate",
                 rc_str(rc));
        return rc;
    }
    coins_cache_set_best_block(cs->coins, new32);
    if ((rc = coins_cache_flush(cs->coins, 1))) {
        snprintf(err, err_len, "writing the replayed chainstate: %s", kv_last_error(NULL));
    }
    return rc;
}
