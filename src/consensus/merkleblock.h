/* BIP37's partial merkle tree (Core's CPartialMerkleTree): the txids a filter matched in a
 * block and the fewest hashes that prove them against the block's merkle root, as the
 * merkleblock message and gettxoutproof carry it. Pure. Wire format: doc/files.md,
 * "Partial merkle tree". */
#ifndef BITNODE_CONSENSUS_MERKLEBLOCK_H
#define BITNODE_CONSENSUS_MERKLEBLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Core's MAX_BLOCK_WEIGHT / MIN_TRANSACTION_WEIGHT: more transactions cannot be in a block. */
#define PARTIAL_MERKLE_MAX_TX (4000000 / 240)

struct partial_merkle {
    uint32_t n_tx;         /* the block's transaction count */
    uint8_t (*hashes)[32]; /* the hashes in depth-first order (NULL while none) */
    size_t n_hashes;
    uint8_t *bits; /* the flag bits in depth-first order, one per byte (0 or 1) */
    size_t n_bits;
};

/** Makes pm empty (no allocation). */
void partial_merkle_init(struct partial_merkle *pm);
/** Frees what pm owns and makes it empty. */
void partial_merkle_clear(struct partial_merkle *pm);

/** Builds the tree of the n txids (n >= 1, a bug otherwise) in which those with match[i]
 *  set are proven (Core's CPartialMerkleTree constructor). pm: initialised, emptied first. */
void partial_merkle_build(struct partial_merkle *pm, const uint8_t (*txids)[32],
                          const uint8_t *match, size_t n);

/** Appends pm's serialization: the count (u32), the hashes (CompactSize and 32 bytes each),
 *  the bits packed low bit first (CompactSize and the bytes). */
void partial_merkle_serialize(const struct partial_merkle *pm, struct buf *out);
/** Reads a tree serialized so from r into pm (initialised, emptied first). 0, or the
 *  reader's negative code with r's error set (pm left empty). */
int partial_merkle_parse(struct partial_merkle *pm, struct reader *r);

/** Walks the tree as Core's ExtractMatches: 0 with root32 the merkle root it proves, and
 *  *matches / *index (each *n_matches long, caller frees both; NULL with none) the matched
 *  txids and their positions in the block; RC_INVALID when the tree is malformed (no
 *  transactions, too many, hashes or bits left over or missing, identical siblings), with
 *  nothing to free. */
int partial_merkle_extract(const struct partial_merkle *pm, uint8_t root32[32],
                           uint8_t (**matches)[32], uint32_t **index, size_t *n_matches);

#endif
