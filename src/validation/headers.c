#include "validation/headers.h"

#include "consensus/pow.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "validation/block_check.h"

static int tree_ancestor(void *ctx, int height, struct pow_block_info *out)
{
    struct block_index *e = block_index_ancestor((struct block_index *)ctx, height);
    if (!e) {
        return RC_NOT_FOUND;
    }
    out->height = e->height;
    out->bits = e->header.bits;
    out->time = e->header.time;
    return RC_OK;
}

int headers_next_bits(uint32_t *bits, const struct block_index *prev, int64_t new_time,
                      const struct chain_params *p)
{
    struct pow_block_info last = {prev->height, prev->header.bits, prev->header.time};
    return pow_next_work_required(bits, &last, new_time, p, tree_ancestor,
                                  (struct block_index *)prev);
}

/* Core's AcceptBlockHeader debug line for a header refused: "<what>: <hash>, <state>". */
static void log_refused(const char *what, const uint8_t hash[32], const struct vstate *st)
{
    if (!log_enabled(LOG_CAT_VALIDATION, LOG_LVL_DEBUG)) {
        return;
    }
    char hx[65];
    hex_encode_rev(hx, hash, 32);
    LOG(LOG_CAT_VALIDATION, LOG_LVL_DEBUG, "AcceptBlockHeader: Consensus::%s: %s, %s%s%s", what, hx,
        st->reject, st->debug[0] ? ", " : "", st->debug);
}

/* Core's debug line for a header whose parent is unknown or invalid: "header <hash> has prev
 * block <what>: <prev>". */
static void log_prev(const char *what, const uint8_t hash[32], const uint8_t prev[32])
{
    if (!log_enabled(LOG_CAT_VALIDATION, LOG_LVL_DEBUG)) {
        return;
    }
    char hh[65], hp[65];
    hex_encode_rev(hh, hash, 32);
    hex_encode_rev(hp, prev, 32);
    LOG(LOG_CAT_VALIDATION, LOG_LVL_DEBUG, "header %s has prev block %s: %s", hh, what, hp);
}

int headers_accept(struct block_tree *t, struct vstate *st, struct block_index **out,
                   const struct block_header *h, const struct chain_params *p,
                   int64_t adjusted_time)
{
    uint8_t hash[32];
    block_header_hash(h, hash);
    struct block_index *e = block_tree_find(t, hash);
    if (e) {
        if (block_index_failed(e)) {
            char hx[65];
            hex_encode_rev(hx, hash, 32);
            return vstate_reject(st, VRESULT_CACHED_INVALID, REJECT_DUPLICATE_INVALID,
                                 "block %s was previously marked invalid", hx);
        }
        *out = e;
        return RC_OK;
    }
    if (block_check_header(st, h, p)) {
        log_refused("CheckBlockHeader", hash, st);
        return RC_INVALID;
    }
    struct block_index *prev = block_tree_find(t, h->prev_hash);
    if (!prev) {
        log_prev("not found", hash, h->prev_hash);
        char hx[65];
        hex_encode_rev(hx, h->prev_hash, 32);
        return vstate_reject(st, VRESULT_MISSING_PREV, REJECT_PREV_BLK_NOT_FOUND, "parent %s", hx);
    }
    if (block_index_failed(prev)) {
        log_prev("invalid", hash, h->prev_hash);
        return vstate_reject(st, VRESULT_INVALID_PREV, REJECT_BAD_PREVBLK, "parent is invalid");
    }
    struct header_context ctx = {
        .height = prev->height + 1,
        .prev_mtp = block_index_median_time_past(prev),
        .prev_time = prev->header.time,
        .adjusted_time = adjusted_time,
    };
    int rc = headers_next_bits(&ctx.expected_bits, prev, h->time, p);
    if (rc) {
        return rc; /* the tree lacks what the rule needs: not a verdict */
    }
    if (block_check_header_contextual(st, h, &ctx, p)) {
        log_refused("ContextualCheckBlockHeader", hash, st);
        return RC_INVALID;
    }
    *out = block_tree_add(t, h, prev, BLOCK_VALID_TREE);
    return RC_OK;
}
