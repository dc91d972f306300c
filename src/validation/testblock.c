/* Core's TestBlockValidity: a block on the tip checked by every rule (the proof of work
 * optionally left out) and connected into a scratch view that is thrown away. For block
 * proposals (getblocktemplate mode "proposal") and generateblock. */
#include <string.h>

#include "coins/undo.h"
#include "util/rc.h"
#include "validation/block_check.h"
#include "validation/chainstate_impl.h"
#include "validation/headers.h"

int chainstate_test_block(struct chainstate *cs, const struct block *b, int check_pow,
                          struct vstate *st)
{
    struct block_index *tip = chainstate_tip(cs);
    vstate_init(st);
    if (!tip || memcmp(b->header.prev_hash, tip->hash, 32) != 0) {
        return vstate_reject(st, VRESULT_MISSING_PREV, REJECT_INCONCLUSIVE_NOT_BEST_PREVBLK, "%s", "");
    }
    struct header_context hc = {
        .height = tip->height + 1,
        .prev_mtp = block_index_median_time_past(tip),
        .prev_time = tip->header.time,
        .adjusted_time = chainstate_now(cs),
    };
    int rc = headers_next_bits(&hc.expected_bits, tip, b->header.time, cs->p);
    if (rc) {
        return rc;
    }
    if (block_check_header_contextual(st, &b->header, &hc, cs->p) ||
        block_check(st, b, cs->p, check_pow) ||
        block_check_contextual(st, b, hc.height, hc.prev_mtp, cs->p)) {
        return RC_INVALID;
    }
    struct block_index e;
    memset(&e, 0, sizeof(e));
    memcpy(e.hash, b->hash, 32);
    e.prev = tip;
    e.skip = tip;
    e.height = tip->height + 1;
    e.header = b->header;
    e.chain_work = tip->chain_work;
    e.file = -1;
    e.tx_count = (uint32_t)b->tx_count;
    struct coins_cache *view = coins_cache_new(coins_cache_view(cs->coins));
    struct block_undo undo;
    block_undo_init(&undo);
    rc = chainstate_connect_block(cs, &e, b, view, &undo, st);
    block_undo_clear(&undo);
    coins_cache_free(view);
    return rc;
}
