#include "validation/headers.h"

#include "consensus/pow.h"
#include "util/hex.h"
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

int headers_accept(struct block_tree *t, struct vstate *st, struct block_index **out,
                   const struct block_header *h, const struct chain_params *p,
                   int64_t adjusted_time)
{
    uint8_t hash[32];
    block_header_hash(h, hash);
    struct block_index *e = block_tree_find(t, hash);
    if (e) {
        if (block_index_failed(e)) {
            return vstate_invalid(st, VRESULT_CACHED_INVALID, "duplicate",
                                  "block is marked invalid");
        }
        *out = e;
        return RC_OK;
    }
    if (block_check_header(st, h, p)) {
        return RC_INVALID;
    }
    struct block_index *prev = block_tree_find(t, h->prev_hash);
    if (!prev) {
        char hx[65];
        hex_encode_rev(hx, h->prev_hash, 32);
        return vstate_invalid(st, VRESULT_MISSING_PREV, "prev-blk-not-found", "parent %s", hx);
    }
    if (block_index_failed(prev)) {
        return vstate_invalid(st, VRESULT_INVALID_PREV, "bad-prevblk", "parent is invalid");
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
        return RC_INVALID;
    }
    *out = block_tree_add(t, h, prev, BLOCK_VALID_TREE);
    return RC_OK;
}
