/* Proof of work: checking a hash against nBits, the work a block proves, and the
 * difficulty retarget rules (Bitcoin Core's pow.cpp and GetBlockProof in chain.cpp).
 *
 * Retargeting, in short (params: pow_target_spacing S = 600 s, pow_target_timespan T,
 * interval N = T / S = 2016; regtest N = 144):
 *  - Inside a period (height % N != 0) the bits stay those of the previous block, except
 *    on networks with pow_allow_min_difficulty_blocks (testnet3, testnet4, regtest): a
 *    block whose time is more than 2*S after its parent's may use pow_limit_bits, and
 *    otherwise must use the bits of the last block that was not such a min-difficulty
 *    block (walking back, but not past the period's first block).
 *  - At a period boundary: actual = time(last) - time(first of the period), clamped to
 *    [T/4, 4T]; new target = base * actual / T, capped at pow_limit. base is the target
 *    of the period's last block, or (enforce_bip94, testnet4) of its first block, which
 *    can never be a min-difficulty block. pow_no_retargeting (regtest) keeps the bits.
 * The BIP94 timewarp rule (a period's first block may not be more than POW_MAX_TIMEWARP
 * seconds older than its parent) is a header-time rule and lives with the other header
 * checks; the constant is here.
 */
#ifndef BITNODE_CONSENSUS_POW_H
#define BITNODE_CONSENSUS_POW_H

#include <stdint.h>

#include "consensus/arith256.h"
#include "consensus/params.h"

/* BIP94: seconds a retarget period's first block may precede its parent (Core MAX_TIMEWARP). */
#define POW_MAX_TIMEWARP 600

/* What the retarget rules need to know about one block of the chain. */
struct pow_block_info {
    int height;
    uint32_t bits;
    int64_t time;
};

/** Fills *out with the block at `height` on the chain that ends at the `last` block given
 *  to pow_next_work_required (0 <= height < last->height). Returns 0, or a negative RC_*
 *  (e.g. a block index read error), which pow_next_work_required returns unchanged. */
typedef int (*pow_ancestor_fn)(void *ctx, int height, struct pow_block_info *out);

/** Core's CheckProofOfWork: 1 if bits decodes to a target that is positive, not negative,
 *  not overflowing and not above p->pow_limit, and hash32 (internal byte order, read as a
 *  little-endian number) is at most that target; else 0. */
int pow_check(const uint8_t hash32[32], uint32_t bits, const struct chain_params *p);

/** Core's GetBlockProof: the expected number of hashes for a target, 2^256 / (target + 1),
 *  computed as ~target / (target + 1) + 1. Zero when bits is negative, overflows or is zero.
 *  Out: work. */
void pow_block_proof(struct u256 *work, uint32_t bits);

/** Core's CalculateNextWorkRequired: the bits of the first block of a new period.
 *
 *  In: last_bits, last_time: the previous period's last block.
 *      first_bits, first_time: its first block (height last - (N-1)); first_bits is only
 *      used with p->enforce_bip94.
 *  Returns the new compact target (last_bits unchanged when p->pow_no_retargeting).
 */
uint32_t pow_calculate_next_work(uint32_t last_bits, int64_t last_time, uint32_t first_bits,
                                 int64_t first_time, const struct chain_params *p);

/** Core's GetNextWorkRequired: the bits required of a block with time new_time whose
 *  parent is `last`.
 *
 *  Returns: 0 with *bits_out set, or the negative code `ancestor` returned.
 *  In:  last: the parent (height >= 0).  new_time: the new block's header time (only the
 *       min-difficulty rule reads it).
 *       ancestor, ctx: looks up earlier blocks of last's chain. It is called for the
 *       period's first block at a period boundary, and, on min-difficulty networks, for
 *       each block walked back over (at most N-1 calls, heights descending). It is never
 *       called on main or signet inside a period.
 */
int pow_next_work_required(uint32_t *bits_out, const struct pow_block_info *last, int64_t new_time,
                           const struct chain_params *p, pow_ancestor_fn ancestor, void *ctx);

/** Core's PermittedDifficultyTransition, for headers whose ancestors are not at hand
 *  (headers presync): 1 if new_bits at `height` could follow a parent with old_bits.
 *  Always 1 on min-difficulty networks; inside a period the bits must be equal; at a
 *  boundary the new target must lie within the clamped range (each end rounded through
 *  compact form as Core does). */
int pow_permitted_transition(int64_t height, uint32_t old_bits, uint32_t new_bits,
                             const struct chain_params *p);

/** Core's GetBlockProofEquivalentTime: how many seconds of blocks at tip_bits' difficulty
 *  the work between two chain works represents; negative when from_work > to_work,
 *  saturated at +-INT64_MAX. */
int64_t pow_proof_equivalent_time(const struct u256 *to_work, const struct u256 *from_work,
                                  uint32_t tip_bits, const struct chain_params *p);

#endif
