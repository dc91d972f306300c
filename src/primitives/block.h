/* Block headers and blocks: parse, serialize, hash. Wire format: doc/files.md, "Block". */
#ifndef BITNODE_PRIMITIVES_BLOCK_H
#define BITNODE_PRIMITIVES_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"
#include "util/buf.h"

#define BLOCK_HEADER_SIZE 80

struct block_header {
    int32_t version;
    uint8_t prev_hash[32];   /* internal byte order */
    uint8_t merkle_root[32]; /* internal byte order */
    uint32_t time;
    uint32_t bits;
    uint32_t nonce;
};

/** Writes the 80-byte serialization of h. */
void block_header_serialize(const struct block_header *h, uint8_t out80[80]);
/** Reads 80 bytes from r into h. Returns 0 or RC_TRUNCATED (recorded in r). */
int block_header_parse(struct block_header *h, struct reader *r);
/** Block hash: SHA-256d of the 80-byte header, internal byte order. */
void block_header_hash(const struct block_header *h, uint8_t out32[32]);

struct block {
    struct block_header header;
    struct tx *txs;
    size_t tx_count;
    uint8_t hash[32];      /* filled by block_parse */
    size_t size_total;     /* serialized size with witness */
    size_t size_stripped;  /* serialized size without witness */
    /* Where a parsed block's transactions keep their pieces (NULL for a block built by
     * hand, whose transactions own theirs): freed by block_clear. */
    struct arena *arena;
};

/** Makes b empty (no allocation). */
void block_init(struct block *b);
/** Frees everything b owns and makes it empty. */
void block_clear(struct block *b);

/** Parses exactly one block filling the whole of p[0..len) (witness format accepted).
 *
 *  Returns: 0 with *b filled (hash, sizes, every tx's hashes); or a negative RC_* with a
 *           message in err (may be NULL) naming what is wrong, e.g. "tx 3: truncated
 *           reading input 0 scriptSig at offset 212: need 107 bytes, 40 left". Trailing
 *           bytes are RC_TRAILING. On failure *b is cleared.
 *  Out:     b: uninitialised or empty on entry; caller owns it (block_clear).
 */
int block_parse(struct block *b, const uint8_t *p, size_t len, char *err, size_t err_len);

/** Like block_parse, but the block may be followed by other bytes (Core's DecodeHexBlk
 *  reads a block and ignores what follows). Out: *used, the block's length. */
int block_parse_prefix(struct block *b, const uint8_t *p, size_t len, size_t *used, char *err,
                       size_t err_len);

/** The txids of b's transactions, sorted, into *ids (grown as needed: *cap entries; the
 *  caller frees *ids), for block_creates. */
void block_sorted_txids(const struct block *b, uint8_t (**ids)[32], size_t *cap);
/** 1 if txid32 is in ids[0..n) (sorted by block_sorted_txids): an input of the block that
 *  spends an output the block itself creates. */
int block_creates(const uint8_t (*ids)[32], size_t n, const uint8_t txid32[32]);

/** Appends the serialization of b to out (witness serialization when with_witness). */
void block_serialize(const struct block *b, struct buf *out, int with_witness);
/** BIP141 block weight: stripped size * 3 + total size. */
static inline size_t block_weight(const struct block *b)
{
    return b->size_stripped * (WITNESS_SCALE_FACTOR - 1) + b->size_total;
}

#endif
