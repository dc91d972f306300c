/* Header acceptance (Core's AcceptBlockHeader): proof of work, parent known and not
 * invalid, contextual rules (difficulty, time, version), then the header joins the block
 * index with its chain work. */
#ifndef BITNODE_VALIDATION_HEADERS_H
#define BITNODE_VALIDATION_HEADERS_H

#include <stdint.h>

#include "blockstore/blockindex.h"
#include "consensus/params.h"
#include "consensus/vstate.h"
#include "primitives/block.h"

/** Accepts one header into the tree.
 *
 *  Returns: 0 with *out set to its entry (new, or the existing one for a known valid
 *           header); RC_INVALID with st filled: "duplicate-invalid" (known invalid),
 *           "high-hash", "prev-blk-not-found", "bad-prevblk", and the contextual rejects of
 *           block_check_header_contextual. Only accepted headers enter the tree.
 *  In:      adjusted_time: the node's clock for the two-hour future limit.
 */
int headers_accept(struct block_tree *t, struct vstate *st, struct block_index **out,
                   const struct block_header *h, const struct chain_params *p,
                   int64_t adjusted_time);

/** The proof-of-work bits required for a child of prev with timestamp new_time
 *  (pow_next_work_required fed from the tree). Returns 0, or a negative code if the tree
 *  lacks an ancestor the rule needs (an anchored tree). */
int headers_next_bits(uint32_t *bits, const struct block_index *prev, int64_t new_time,
                      const struct chain_params *p);

#endif
