/* Block and header rules that need no UTXO set (Core's CheckBlockHeader, CheckBlock,
 * ContextualCheckBlockHeader, ContextualCheckBlock). Pure functions of their arguments:
 * the caller gathers the context (height, median time past, expected bits) from the block
 * index. Verdicts go into a struct vstate with Core's reject reasons.
 */
#ifndef BITNODE_VALIDATION_BLOCK_CHECK_H
#define BITNODE_VALIDATION_BLOCK_CHECK_H

#include <stdint.h>

#include "consensus/params.h"
#include "consensus/vstate.h"
#include "primitives/block.h"

#define MAX_FUTURE_BLOCK_TIME (2 * 60 * 60)
#define MAX_TIMEWARP 600 /* BIP94 */

/* What a header is checked against: facts about its parent and the clock. */
struct header_context {
    int height;            /* the new block's height (parent height + 1) */
    int64_t prev_mtp;      /* median time past of the parent */
    int64_t prev_time;     /* the parent's own timestamp (BIP94) */
    uint32_t expected_bits; /* pow_next_work_required for this block */
    int64_t adjusted_time; /* now, as the node sees it */
};

/** Core's CheckBlockHeader: proof of work meets the header's own target.
 *  Returns 0, or RC_INVALID with "high-hash". */
int block_check_header(struct vstate *s, const struct block_header *h,
                       const struct chain_params *p);

/** Core's CheckBlock, without the proof-of-work part when check_pow is 0: on signet the
 *  block's signature ("bad-signet-blksig", validation/signet.h, with the proof of work), merkle root
 *  ("bad-txnmrklroot") and mutation ("bad-txns-duplicate"), size ("bad-blk-length"),
 *  coinbase first and only ("bad-cb-missing", "bad-cb-multiple"), every transaction's
 *  context-free rules, legacy sigops ("bad-blk-sigops").
 *  In: b must have been parsed by block_parse (hashes and sizes filled). */
int block_check(struct vstate *s, const struct block *b, const struct chain_params *p,
                int check_pow);

/** Core's ContextualCheckBlockHeader: "bad-diffbits", "time-too-old",
 *  "time-timewarp-attack" (BIP94 chains), "time-too-new", "bad-version(0x%08x)". */
int block_check_header_contextual(struct vstate *s, const struct block_header *h,
                                  const struct header_context *ctx, const struct chain_params *p);

/** The witness commitment of b's coinbase, if it has one (*found 1), against its witness
 *  data: "bad-witness-nonce-size", "bad-witness-merkle-match"; 0 when it matches or there is
 *  none (*found 0). Part of block_check_contextual, which also refuses witness data without
 *  a commitment once segwit is active. */
int block_check_witness_commitment(struct vstate *s, const struct block *b, int *found);

/** Core's ContextualCheckBlock: every transaction final ("bad-txns-nonfinal"), the BIP34
 *  height in the coinbase ("bad-cb-height"), the witness commitment
 *  ("bad-witness-nonce-size", "bad-witness-merkle-match", "unexpected-witness"), and the
 *  weight limit ("bad-blk-weight").
 *  In: height: the block's height; prev_mtp: the parent's median time past. */
int block_check_contextual(struct vstate *s, const struct block *b, int height, int64_t prev_mtp,
                           const struct chain_params *p);


#endif
