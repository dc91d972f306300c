/* BIP152 compact blocks, version 2 (short ids of wtxids): the four messages' payloads
 * (sendcmpct, cmpctblock, getblocktxn, blocktxn), building a cmpctblock from a block, and
 * reconstructing a block from a cmpctblock, candidate transactions and a blocktxn (Core's
 * CBlockHeaderAndShortTxIDs, BlockTransactionsRequest, BlockTransactions and
 * PartiallyDownloadedBlock). Pure: no sockets, no mempool, no logging; the caller supplies
 * the candidate transactions. Wire formats: doc/files.md, "Compact blocks".
 *
 * Every parser bounds every count against the payload's size before it allocates, says
 * what was wrong in err, and, as Core's deserializers, ignores bytes after the payload.
 *
 * Verdicts. A malformed payload is a parse error (a negative RC_*: Core's deserializer
 * throws, and Core then drops the message without punishing the peer). A well-formed
 * cmpctblock or blocktxn that cannot be used is a status (enum cmpct_status):
 *   CMPCT_INVALID  the peer sent something no honest peer sends (Core's READ_STATUS_INVALID:
 *                  Misbehaving "invalid compact block" or "invalid compact block/non-matching
 *                  block transactions");
 *   CMPCT_FAILED   reconstruction did not work out, nobody's fault: short-id collision, or a
 *                  result whose merkle root / witness commitment does not match the header
 *                  (Core's READ_STATUS_FAILED: fall back to getdata of the full block, do not
 *                  punish).
 */
#ifndef BITNODE_NET_CMPCT_H
#define BITNODE_NET_CMPCT_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/block.h"
#include "primitives/tx.h"
#include "util/buf.h"

#define CMPCT_VERSION 2      /* the only version bitnode speaks (wtxid short ids) */
#define CMPCT_SHORTID_SIZE 6 /* bytes of a short id on the wire */
#define CMPCT_SHORTID_MASK 0xffffffffffffull
#define CMPCT_MAX_TXS 65535u   /* short ids + prefilled: positions must fit 16 bits */
#define CMPCT_MAX_INDEX 65535u /* the largest index a getblocktxn can carry (uint16) */

/* ---------------------------------------------------------------------------------------- */
/* sendcmpct                                                                                 */

/** Decodes sendcmpct: announce (u8) and version (u64).
 *  Returns: 0 with *announce 0 or 1 and *version as sent (the caller ignores versions other
 *           than CMPCT_VERSION, as Core does); RC_TRUNCATED; RC_INVALID with "invalid
 *           sendcmpct announce field" for an announce byte over 1 (BIP152; Core's
 *           Misbehaving reason), *announce and *version still filled. err may be NULL. */
int cmpct_sendcmpct_parse(const uint8_t *p, size_t len, int *announce, uint64_t *version, char *err,
                          size_t err_len);
/** Appends a sendcmpct payload (announce: 0 low-bandwidth, nonzero high-bandwidth). */
void cmpct_sendcmpct_serialize(struct buf *out, int announce, uint64_t version);

/* ---------------------------------------------------------------------------------------- */
/* cmpctblock                                                                                */

struct cmpct_prefilled {
    uint16_t index; /* absolute position in the block (the wire carries differences) */
    struct tx tx;   /* owned */
};

/* A cmpctblock (Core's CBlockHeaderAndShortTxIDs), a caller-owned value (_init/_clear). */
struct cmpct_block {
    struct block_header header;
    uint8_t hash[32]; /* the header's block hash: filled by parse and from_block */
    uint64_t nonce;
    uint64_t *shortids; /* 48-bit values; NULL when shortid_count == 0 */
    size_t shortid_count;
    struct cmpct_prefilled *prefilled; /* strictly increasing indexes; NULL when none */
    size_t prefilled_count;
    /* The SipHash key, SHA256(header || nonce) bytes 0..7 and 8..15 read little-endian:
     * filled by parse and from_block; cmpct_block_set_key after editing header or nonce. */
    uint64_t k0, k1;
};

/** Makes cb empty (no allocation). */
void cmpct_block_init(struct cmpct_block *cb);
/** Frees what cb owns and makes it empty. */
void cmpct_block_clear(struct cmpct_block *cb);

/** Decodes a cmpctblock payload: header, nonce, compact-size count and 6-byte short ids,
 *  compact-size count and prefilled transactions (differentially encoded index, then the
 *  transaction with witness).
 *
 *  Returns: 0 with *cb filled (absolute indexes, hash and key computed); or, with *cb
 *           empty and err saying what:
 *           RC_TRUNCATED / RC_NONCANONICAL for a short or badly encoded field (a count the
 *             rest cannot hold is refused before allocating);
 *           RC_TOO_LARGE "indexes overflowed 16 bits" when short ids + prefilled exceed
 *             CMPCT_MAX_TXS; "prefilled index ... exceeds limit of type" for a difference
 *             over 65535;
 *           RC_INVALID "prefilled index overflowed 16 bits" (the running index passes
 *             65535), "prefilled index N out of range" (a position past every short id and
 *             earlier prefilled transaction: a block position nothing would fill), or the
 *             transaction's own parse error prefixed with "prefilled tx N: ".
 *  Out:     cb: uninitialised or empty on entry; caller owns it (cmpct_block_clear).
 *  Note:    Core's deserializer checks only the 16-bit limits; it finds the two range
 *           errors (RC_INVALID above) in InitData (READ_STATUS_INVALID). A caller that
 *           wants Core's exact reaction treats RC_INVALID as "invalid compact block"
 *           (punish) and the other codes as a dropped message. */
int cmpct_block_parse(struct cmpct_block *cb, const uint8_t *p, size_t len, char *err,
                      size_t err_len);

/** Appends cb's cmpctblock payload.
 *  Returns: 0; RC_USAGE (nothing appended) if the prefilled indexes are not strictly
 *           increasing (Core's "differential value overflow") or short ids + prefilled
 *           exceed CMPCT_MAX_TXS. */
int cmpct_block_serialize(struct buf *out, const struct cmpct_block *cb);

/** Builds the cmpctblock of b as Core's CBlockHeaderAndShortTxIDs(block, nonce) does: the
 *  coinbase (b->txs[0]) prefilled at index 0, a short id of every other transaction's
 *  wtxid, in block order.
 *  Returns: 0; RC_USAGE (cb empty) if b has no transaction or more than CMPCT_MAX_TXS.
 *  In:      b: transactions' hashes computed (block_parse does it); nonce: random per
 *           cmpctblock made (it salts the short ids).
 *  Out:     cb: uninitialised or empty on entry; caller owns it. */
int cmpct_block_from_block(struct cmpct_block *cb, const struct block *b, uint64_t nonce);

/** Recomputes cb's hash and SipHash key from its header and nonce. */
void cmpct_block_set_key(struct cmpct_block *cb);

/** The 48-bit short id of wtxid32 (internal byte order) under cb's key: SipHash-2-4 of the
 *  wtxid, low 6 bytes (BIP152). */
uint64_t cmpct_shortid(const struct cmpct_block *cb, const uint8_t wtxid32[32]);

/** The number of transactions cb describes (short ids + prefilled). */
static inline size_t cmpct_block_tx_count(const struct cmpct_block *cb)
{
    return cb->shortid_count + cb->prefilled_count;
}

/* ---------------------------------------------------------------------------------------- */
/* getblocktxn                                                                               */

/* A getblocktxn (Core's BlockTransactionsRequest), caller-owned (_init/_clear). */
struct cmpct_getblocktxn {
    uint8_t block_hash[32];
    uint16_t *indexes; /* absolute, strictly increasing; NULL when count == 0 */
    size_t count;
};

void cmpct_getblocktxn_init(struct cmpct_getblocktxn *req);
void cmpct_getblocktxn_clear(struct cmpct_getblocktxn *req);

/** Decodes getblocktxn: block hash, compact-size count, differentially encoded indexes.
 *  Returns: 0 with *req filled (possibly with count 0: Core disconnects for that, the caller
 *           decides); RC_TRUNCATED / RC_NONCANONICAL; RC_TOO_LARGE "getblocktxn index count
 *           N over the limit of 65536"; RC_INVALID "differential value overflow" when an
 *           index passes 65535 (Core's DifferenceFormatter). *req empty on failure.
 *  Note:    the indexes are not checked against any block: serving them is
 *           cmpct_blocktxn_serialize_from_block's business. */
int cmpct_getblocktxn_parse(struct cmpct_getblocktxn *req, const uint8_t *p, size_t len, char *err,
                            size_t err_len);
/** Appends a getblocktxn payload. Returns 0, or RC_USAGE (nothing appended) if the indexes
 *  are not strictly increasing. */
int cmpct_getblocktxn_serialize(struct buf *out, const struct cmpct_getblocktxn *req);

/* ---------------------------------------------------------------------------------------- */
/* blocktxn                                                                                  */

/* A blocktxn (Core's BlockTransactions), caller-owned (_init/_clear). */
struct cmpct_blocktxn {
    uint8_t block_hash[32];
    struct tx *txs; /* owned; NULL when count == 0 */
    size_t count;
};

void cmpct_blocktxn_init(struct cmpct_blocktxn *bt);
void cmpct_blocktxn_clear(struct cmpct_blocktxn *bt);

/** Decodes blocktxn: block hash, compact-size count, transactions with witness.
 *  Returns: 0 with *bt filled; RC_TRUNCATED / RC_NONCANONICAL / RC_TOO_LARGE, or the
 *           transaction's parse error prefixed with "tx N: "; *bt empty on failure. The array
 *           grows with what is actually read, never with the count announced. */
int cmpct_blocktxn_parse(struct cmpct_blocktxn *bt, const uint8_t *p, size_t len, char *err,
                         size_t err_len);
/** Appends a blocktxn payload of bt's transactions (with witness). */
void cmpct_blocktxn_serialize(struct buf *out, const struct cmpct_blocktxn *bt);

/** Appends the blocktxn answering req from block b (Core's SendBlockTransactions): req's
 *  block hash and b's transactions at req's indexes, with witness.
 *  Returns: 0; RC_INVALID (nothing appended) with "getblocktxn with out-of-bounds tx
 *           indices" (Core's Misbehaving reason) if an index is not below b->tx_count.
 *  In:      b: the block whose hash is req->block_hash (the caller looked it up). */
int cmpct_blocktxn_serialize_from_block(struct buf *out, const struct block *b,
                                        const struct cmpct_getblocktxn *req, char *err,
                                        size_t err_len);

/* ---------------------------------------------------------------------------------------- */
/* Reconstruction (Core's PartiallyDownloadedBlock)                                          */

enum cmpct_status {
    CMPCT_OK = 0,      /* READ_STATUS_OK */
    CMPCT_INVALID = 1, /* READ_STATUS_INVALID: the peer misbehaved */
    CMPCT_FAILED = 2,  /* READ_STATUS_FAILED: fall back to getdata of the full block */
};

/* A transaction offered for reconstruction (a mempool entry, or one of the extra
 * transactions Core keeps for compact blocks: orphans, replaced and rejected ones). */
struct cmpct_candidate {
    uint8_t wtxid[32]; /* what the short id is computed from (internal byte order) */
    /* The transaction, used (copied) only when its short id matches: tx (borrowed for the
     * call) when non-NULL, else raw[0..raw_len), its serialization with witness. */
    const struct tx *tx;
    const uint8_t *raw;
    size_t raw_len;
};

/* Where the reconstructed block's transactions came from. */
struct cmpct_counts {
    size_t prefilled; /* in the cmpctblock */
    size_t mempool;   /* from the pool candidates (Core's mempool_count minus extra_count) */
    size_t extra;     /* from the extra candidates (Core's extra_count) */
    size_t blocktxn;  /* given to cmpct_partial_fill (set by it) */
};

struct cmpct_partial;

/** A new, empty partial block. */
struct cmpct_partial *cmpct_partial_new(void);
/** Frees pb and what it holds; NULL is a no-op. */
void cmpct_partial_free(struct cmpct_partial *pb);

/** Core's InitData: takes cb's header and prefilled transactions, then matches the short
 *  ids against pool[0..pool_n) and then extra[0..extra_n), each in the caller's order, as
 *  Core does: a position matched twice by pool candidates, or by two extra candidates (or
 *  a pool and an extra one) of different wtxids, is dropped and will be requested; the
 *  scan stops early once every short id has a transaction.
 *
 *  Returns: 0 with *status:
 *             CMPCT_OK: pb holds what was found; cmpct_partial_getblocktxn lists the rest;
 *             CMPCT_INVALID: a null header (nBits 0, Core's IsNull), no transaction at
 *               all, a null prefilled transaction (no inputs and no outputs), indexes past
 *               16 bits or out of range (err says which); pb is left empty;
 *             CMPCT_FAILED: two short ids are equal (a collision: get the full block); pb
 *               is left empty.
 *           RC_USAGE (a caller bug): pb was already initialised, or a matched candidate's
 *             raw bytes do not parse or its transaction's wtxid is not the one given.
 *  In:      cb: borrowed for the call (what pb needs is copied); pool, extra: may be NULL
 *           when their count is 0, borrowed for the call.
 *  Note:    Core also returns READ_STATUS_FAILED when its hash map's buckets hold more than
 *           12 short ids; bitnode looks short ids up in a sorted array, whose cost no short
 *           id distribution can inflate, so it has no such case. */
int cmpct_partial_init(struct cmpct_partial *pb, enum cmpct_status *status,
                       const struct cmpct_block *cb, const struct cmpct_candidate *pool,
                       size_t pool_n, const struct cmpct_candidate *extra, size_t extra_n,
                       char *err, size_t err_len);

/** 1 if pb was initialised and not yet filled (Core: !header.IsNull()). */
int cmpct_partial_ready(const struct cmpct_partial *pb);
/** The block's header and hash while ready (NULL otherwise), e.g. to look up the parent
 *  and decide segwit_active for cmpct_partial_fill. */
const struct block_header *cmpct_partial_header(const struct cmpct_partial *pb, uint8_t hash32[32]);
/** The number of transactions of the block (0 unless ready). */
size_t cmpct_partial_tx_count(const struct cmpct_partial *pb);
/** 1 if the transaction at index is held (Core's IsTxAvailable); 0 if not, if index is out
 *  of range, or if pb is not ready. */
int cmpct_partial_has_tx(const struct cmpct_partial *pb, size_t index);
/** The getblocktxn for what pb lacks: the block hash and the missing indexes, increasing
 *  (count 0 when nothing is missing: then cmpct_partial_fill with no transactions).
 *  Out: req: uninitialised or empty on entry; caller owns it (cmpct_getblocktxn_clear). */
void cmpct_partial_getblocktxn(const struct cmpct_partial *pb, struct cmpct_getblocktxn *req);
/** The counts so far (all 0 before init). */
void cmpct_partial_counts(const struct cmpct_partial *pb, struct cmpct_counts *out);

/** Core's FillBlock: the block from pb's transactions, with missing[0..n_missing) (a
 *  blocktxn's transactions, copied) in the missing positions in order.
 *
 *  Returns: 0 with *status:
 *             CMPCT_OK: *out is the block (hash, sizes and every transaction's hashes
 *               computed; its transactions own their memory: block_clear);
 *             CMPCT_INVALID: pb is not ready (never initialised, or filled before: Core's
 *               "previous compact block reconstruction attempt failed"), or n_missing is not
 *               the number of missing transactions;
 *             CMPCT_FAILED: the block is mutated (Core's IsBlockMutated: merkle root or
 *               duplicate-subtree mutation, a 64-byte transaction in a block without a
 *               coinbase, a bad witness nonce or commitment, or witness data without a
 *               commitment, the witness checks only when segwit_active): most likely a
 *               short-id collision or a wrong blocktxn; get the full block, punish nobody.
 *           err (may be NULL) says which. On any status but CMPCT_OK *out is empty.
 *           After any call on a ready pb, pb is spent (not ready): as in Core, a second
 *           blocktxn cannot be tried against it.
 *  In:      missing: hashes and sizes computed (a parsed blocktxn's are), borrowed;
 *           segwit_active: segwit is active for this block (its parent is at or past the
 *           activation height): then the witness commitment is checked.
 *  Out:     out: uninitialised or empty on entry; caller owns it. */
int cmpct_partial_fill(struct cmpct_partial *pb, enum cmpct_status *status, struct block *out,
                       const struct tx *missing, size_t n_missing, int segwit_active, char *err,
                       size_t err_len);

/** Core's IsBlockMutated(block, check_witness_root): 1 if b's transactions do not match its
 *  header (as cmpct_partial_fill checks), with the reason in err (may be NULL), else 0.
 *  In: b: transactions' hashes computed. */
int cmpct_block_mutated(const struct block *b, int check_witness_root, char *err, size_t err_len);

#endif
