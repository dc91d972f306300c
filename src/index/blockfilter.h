/* BIP158 block filters: Golomb-coded sets (GCS), the basic filter of a block, and the filter
 * hash chain (filter headers). Pure: no I/O, no state. The index that keeps them, the RPCs
 * and BIP157 serving sit on top of this.
 */
#ifndef BITNODE_INDEX_BLOCKFILTER_H
#define BITNODE_INDEX_BLOCKFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"
#include "util/buf.h"

struct block;

/* The basic filter's parameters (BIP158): false-positive rate 1/M, Golomb-Rice parameter P. */
#define BLOCKFILTER_BASIC_P 19
#define BLOCKFILTER_BASIC_M 784931
/* The only filter type BIP158 defines, as getcfilters and getblockfilter name it. */
#define BLOCKFILTER_TYPE_BASIC 0

/* A set's parameters: the SipHash key (k0: key bytes 0..7, k1: 8..15, little-endian), the
 * Golomb-Rice parameter p (1..32) and the inverse false-positive rate m. */
struct gcs_params {
    uint64_t k0, k1;
    uint8_t p;
    uint32_t m;
};

/** The parameters of a block's basic filter: the key is the first 16 bytes of its hash
 *  (internal byte order). */
void blockfilter_basic_params(const uint8_t block_hash[32], struct gcs_params *out);

/** Appends to out the encoded set of the n elements (distinct; the caller removes
 *  duplicates): CompactSize(n), then the sorted hashed values' deltas Golomb-Rice coded,
 *  most significant bit first, padded with zero bits to a byte. 0, or RC_TOO_LARGE when n
 *  does not fit 32 bits (BIP158). */
int gcs_encode(const struct gcs_params *p, const struct bytes *elems, size_t n, struct buf *out);

/** Whether any of the nq query elements is in the encoded set f[0..len): *match gets 1 or 0
 *  (false positives at rate 1/m). 0, or RC_INVALID when f is not exactly an encoded set
 *  (truncated, excess data, a count over 32 bits), as Core rejects it. */
int gcs_match_any(const struct gcs_params *p, const uint8_t *f, size_t len, const struct bytes *q,
                  size_t nq, int *match);

/** The basic filter of block b (its hash filled, as block_parse does) whose inputs spend
 *  the n_prev output scripts prev (in any order; the coinbase spends none): every output
 *  script except empty ones and those starting with OP_RETURN, and every spent script except
 *  empty ones, each once. Appends the encoded filter to out. 0 or RC_TOO_LARGE. */
int blockfilter_basic(const struct block *b, const struct bytes *prev, size_t n_prev,
                      struct buf *out);

/** A filter's hash: double SHA-256 of its encoding. */
void blockfilter_hash(const uint8_t *f, size_t len, uint8_t out[32]);

/** The filter header: double SHA-256 of the filter's hash then the previous header (all
 *  zeros before the genesis block's). */
void blockfilter_header(const uint8_t filter_hash[32], const uint8_t prev_header[32],
                        uint8_t out[32]);

#endif
