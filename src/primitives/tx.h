/* Transactions: parse, serialize (with and without witness), txid/wtxid, size, weight.
 * Wire format: doc/files.md, "Transaction".
 */
#ifndef BITNODE_PRIMITIVES_TX_H
#define BITNODE_PRIMITIVES_TX_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"

#define WITNESS_SCALE_FACTOR 4
#define SEQUENCE_FINAL 0xffffffffu
/* nLockTime below this is a block height, at or above it a UNIX time. */
#define LOCKTIME_THRESHOLD 500000000u

struct outpoint {
    uint8_t txid[32]; /* internal byte order */
    uint32_t n;
};

/* An owned byte string (a script, a witness item). data is NULL when len == 0. */
struct bytes {
    uint8_t *data;
    size_t len;
};

struct tx_in {
    struct outpoint prevout;
    struct bytes script_sig;
    uint32_t sequence;
    struct bytes *witness; /* witness stack items, bottom first; NULL when witness_count == 0 */
    size_t witness_count;
};

struct tx_out {
    int64_t value_sat;
    struct bytes script_pubkey;
};

struct tx {
    int32_t version;
    struct tx_in *vin;
    size_t vin_count;
    struct tx_out *vout;
    size_t vout_count;
    uint32_t locktime;
    /* Filled by tx_parse / tx_compute_hashes; stale after any field is changed until
     * tx_compute_hashes is called again. */
    uint8_t txid[32];
    uint8_t wtxid[32];
    size_t size_stripped; /* serialized size without witness */
    size_t size_total;    /* serialized size with witness (== stripped if none) */
    /* Its scripts, witness items and arrays are an arena's (tx_parse_in): tx_clear frees
     * none of them, the arena's owner frees them all. Replacing a piece of a pooled tx
     * means tx_clear first (which makes it an ordinary, empty tx). */
    uint8_t pooled;
};

/** Makes tx empty (no allocation). */
void tx_init(struct tx *tx);
/** Frees everything tx owns and makes it empty. */
void tx_clear(struct tx *tx);
/** Deep copy: dst (uninitialised) becomes an independent copy of src. */
void tx_copy(struct tx *dst, const struct tx *src);

/** Reads one transaction from r (which may hold more data after it).
 *
 *  Returns: 0 with *tx filled (hashes and sizes computed); or a negative RC_* with the
 *           failure recorded in r->err naming the field ("truncated reading input 2
 *           scriptSig ...", "Superfluous witness record", "Unknown transaction optional
 *           data"). On failure *tx is cleared.
 *  In:      allow_witness: 0 reads the legacy format only (as Core without
 *           SERIALIZE_TRANSACTION_NO_WITNESS unset), 1 accepts the BIP144 extended format.
 *  Out:     tx: uninitialised or empty on entry; caller owns it (tx_clear).
 */
int tx_parse(struct tx *tx, struct reader *r, int allow_witness);
/** tx_parse with every piece taken from arena (NULL: the heap, as tx_parse): *tx is then
 *  pooled, valid as long as the arena's pieces are; tx_clear still makes it empty. */
int tx_parse_in(struct tx *tx, struct reader *r, int allow_witness, struct arena *arena);

/** Parses exactly one transaction filling the whole of p[0..len). Trailing bytes are an
 *  error (RC_TRAILING). err (may be NULL) receives the message. */
int tx_deserialize(struct tx *tx, const uint8_t *p, size_t len, char *err, size_t err_len);

/** Appends the serialization of tx to out: BIP144 format when with_witness and tx has a
 *  non-empty witness, else the legacy format. */
void tx_serialize(const struct tx *tx, struct buf *out, int with_witness);

/** 1 if any input has a non-empty witness stack. */
int tx_has_witness(const struct tx *tx);
/** Recomputes txid, wtxid and sizes from the fields. */
void tx_compute_hashes(struct tx *tx);
/** 1 if tx has exactly one input whose prevout is null (all-zero txid, n = 0xffffffff). */
int tx_is_coinbase(const struct tx *tx);
/** BIP141 weight: stripped size * 3 + total size. */
static inline size_t tx_weight(const struct tx *tx)
{
    return tx->size_stripped * (WITNESS_SCALE_FACTOR - 1) + tx->size_total;
}
/** Virtual size: weight / 4, rounded up. */
static inline size_t tx_vsize(const struct tx *tx)
{
    return (tx_weight(tx) + WITNESS_SCALE_FACTOR - 1) / WITNESS_SCALE_FACTOR;
}
/** 1 if the outpoint is the null outpoint of a coinbase input. */
int outpoint_is_null(const struct outpoint *o);

#endif
