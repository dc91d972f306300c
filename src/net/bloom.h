/* BIP37 bloom filters (Core's CBloomFilter): the filter a light client loads with
 * filterload, what matches it in a transaction (and how a match updates it), and the
 * merkleblock message of a block filtered by it. Pure: no I/O, no logging, no locks.
 * Wire formats: doc/files.md, "Bloom filter" and "Partial merkle tree". */
#ifndef BITNODE_NET_BLOOM_H
#define BITNODE_NET_BLOOM_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/block.h"
#include "primitives/tx.h"
#include "util/buf.h"

/* BIP37's limits (Core's MAX_BLOOM_FILTER_SIZE, MAX_HASH_FUNCS). */
#define BLOOM_MAX_FILTER_SIZE 36000 /* bytes */
#define BLOOM_MAX_HASH_FUNCS 50

/* nFlags: what a match in an output adds to the filter (its outpoint, so that the spending
 * transaction matches too). */
enum bloom_update {
    BLOOM_UPDATE_NONE = 0,
    BLOOM_UPDATE_ALL = 1,          /* any output that matched */
    BLOOM_UPDATE_P2PUBKEY_ONLY = 2, /* only pay-to-pubkey and bare multisig outputs */
    BLOOM_UPDATE_MASK = 3,
};

/* A filter (a plain value: init or parse, then clear). An empty data array matches
 * everything (Core's CVE-2013-5700 guard, kept as BIP37 clients expect). */
struct bloom_filter {
    uint8_t *data; /* NULL while len == 0 */
    size_t len;
    uint32_t n_hash_funcs;
    uint32_t tweak;
    uint8_t flags;
};

/** The filter Core's CBloomFilter(n_elements, fp_rate, tweak, flags) makes: sized for
 *  n_elements (>= 1) at false-positive rate fp_rate (0 < fp_rate < 1), capped at the
 *  protocol's limits, all bits clear. f: uninitialised. */
void bloom_filter_init(struct bloom_filter *f, unsigned n_elements, double fp_rate,
                       uint32_t tweak, uint8_t flags);
/** Frees what f owns; f is an empty filter afterwards. */
void bloom_filter_clear(struct bloom_filter *f);

/** Reads a filterload payload (the data as CompactSize and bytes, nHashFuncs, nTweak as
 *  u32, nFlags as u8; trailing bytes ignored, as Core). 0 with *f filled (uninitialised
 *  before), or a negative RC_* with err (f left empty). Sizes are not checked here: see
 *  bloom_filter_within_limits. */
int bloom_filter_parse(struct bloom_filter *f, const uint8_t *d, size_t len, char *err,
                       size_t err_len);
/** Appends f's serialization (the filterload payload). */
void bloom_filter_serialize(const struct bloom_filter *f, struct buf *out);
/** 1 if f is at most BLOOM_MAX_FILTER_SIZE bytes with at most BLOOM_MAX_HASH_FUNCS hash
 *  functions (Core's IsWithinSizeConstraints), else 0. */
int bloom_filter_within_limits(const struct bloom_filter *f);

/** Sets key's bits (n bytes; an empty filter stays empty). */
void bloom_filter_insert(struct bloom_filter *f, const uint8_t *key, size_t n);
/** Inserts an outpoint as its 36-byte serialization (txid, index little-endian). */
void bloom_filter_insert_outpoint(struct bloom_filter *f, const struct outpoint *op);
/** 1 if every bit of key is set (always on an empty filter), else 0. */
int bloom_filter_contains(const struct bloom_filter *f, const uint8_t *key, size_t n);
/** bloom_filter_contains of an outpoint's serialization. */
int bloom_filter_contains_outpoint(const struct bloom_filter *f, const struct outpoint *op);

/** Core's IsRelevantAndUpdate: 1 if tx matches f (its txid; a data push of an output
 *  script; an outpoint it spends; a data push of an input script), else 0. An output that
 *  matched adds its outpoint to f as f's flags say, every output being looked at. */
int bloom_filter_relevant_and_update(struct bloom_filter *f, const struct tx *tx);

/** The merkleblock message of block b for f (Core's CMerkleBlock(block, filter)): the
 *  header and the partial merkle tree of the transactions that match, f updated by each in
 *  block order, appended to out; *matched (caller frees, NULL when none) the positions of
 *  the matched transactions in b, *n_matched of them. b has at least one transaction (a
 *  bug otherwise). */
void bloom_filter_merkleblock(struct bloom_filter *f, const struct block *b, struct buf *out,
                              size_t **matched, size_t *n_matched);

#endif
