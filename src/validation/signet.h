/* Signet block solutions (BIP325): every signet block but the genesis block carries, in its
 * coinbase's witness commitment output after the 4-byte header ecc7daa2, a scriptSig and a
 * witness that satisfy the network's challenge script for a virtual transaction committing
 * to the block (its version, parent, merkle root without the solution, and time). Pure: no
 * I/O, no logging. */
#ifndef BITNODE_VALIDATION_SIGNET_H
#define BITNODE_VALIDATION_SIGNET_H

#include "consensus/params.h"
#include "primitives/block.h"

/** Core's CheckSignetBlockSolution: 1 if b is p's genesis block or its solution satisfies
 *  p->signet_challenge with the flags P2SH, WITNESS, DERSIG and NULLDUMMY; 0 if the block has
 *  no witness commitment, the solution does not parse (or has bytes after the witness), or
 *  the script fails. A block without the header in its commitment has an empty solution.
 *  In: b parsed by block_parse (hashes filled); p a signet (p->signet_blocks). */
int signet_check_block_solution(const struct block *b, const struct chain_params *p);

#endif
