/* Merkle roots as Bitcoin computes them, with the CVE-2012-2459 mutation flag. */
#ifndef BITNODE_CONSENSUS_MERKLE_H
#define BITNODE_CONSENSUS_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/block.h"

/** Computes the merkle root of n 32-byte leaves (an odd level repeats its last node).
 *
 *  Out:  root32: all zero when n == 0.  mutated (may be NULL): set to 1 if some level held
 *        two identical adjacent nodes at an even position (the duplicate-subtree mutation of
 *        CVE-2012-2459: another transaction list with the same root exists), else 0.
 */
void merkle_root(uint8_t root32[32], int *mutated, const uint8_t (*leaves)[32], size_t n);
/** Merkle root of b's txids. */
void merkle_block_root(uint8_t root32[32], int *mutated, const struct block *b);
/** BIP141 witness merkle root of b: wtxids, with the coinbase's replaced by 32 zero bytes. */
void merkle_block_witness_root(uint8_t root32[32], int *mutated, const struct block *b);
/** Index of b's coinbase output holding the BIP141 witness commitment (the last output
 *  whose script starts 6a24aa21a9ed and is at least 38 bytes), or -1 (also for a block
 *  without transactions): Core's GetWitnessCommitmentIndex. */
int merkle_witness_commitment_index(const struct block *b);

#endif
