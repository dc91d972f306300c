/* UTXO set statistics as Bitcoin Core's gettxoutsetinfo computes them: txouts,
 * transactions, bogosize, total amount, and the two set hashes:
 *   hash_serialized_3 = SHA-256d( TxOutSer(coin_1) || TxOutSer(coin_2) || ... )
 *                       over the coins in the chainstate's key order (txid bytes, then
 *                       output index ascending). Unlike hash_serialized_2 it does not start
 *                       with the best block hash: checked against Core's answers for the
 *                       regtest-small chain at seven heights;
 *   muhash            = MuHash3072 of the set { TxOutSer(coin) }, order-free;
 * where TxOutSer(coin) = txid[32] || u32 n || u32 (height * 2 + coinbase) || i64 value ||
 *                        compact_size len || script_pubkey.
 * Both are shown in display (byte-reversed) order by RPC.
 */
#ifndef BITNODE_COINS_STATS_H
#define BITNODE_COINS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/hash.h"
#include "crypto/muhash.h"
#include "primitives/tx.h"
#include "util/buf.h"

enum coins_stats_hash {
    COINS_STATS_HASH_NONE = 0,
    COINS_STATS_HASH_SERIALIZED = 1,
    COINS_STATS_MUHASH = 2,
};

struct coins_stats {
    uint64_t txouts;
    uint64_t transactions; /* distinct txids with an unspent output */
    uint64_t bogosize;
    int64_t total_amount_sat;
    /* private */
    enum coins_stats_hash kind;
    struct hash_sha256_ctx hs;
    struct muhash *mh;
    struct buf ser;
    uint8_t last_txid[32];
    int have_last;
};

/** Starts a computation of kind over an empty set. */
void coins_stats_init(struct coins_stats *s, enum coins_stats_hash kind);
/** Frees what s holds. */
void coins_stats_clear(struct coins_stats *s);

/** Appends Core's TxOutSer of one coin to out (the element both set hashes are made of). */
void coins_txout_ser(struct buf *out, const struct outpoint *op, uint32_t height, int coinbase,
                     int64_t value_sat, const uint8_t *spk, size_t spk_len);
/** Core's GetBogoSize: 50 + script length. */
static inline uint64_t coins_bogosize(size_t spk_len)
{
    return 32 + 4 + 4 + 8 + 2 + (uint64_t)spk_len;
}

/** Adds one unspent output. For COINS_STATS_HASH_SERIALIZED the coins must arrive in key
 *  order (txid bytes ascending, then n ascending); "transactions" counts changes of txid, so
 *  it also relies on coins of one txid arriving together. */
void coins_stats_add(struct coins_stats *s, const struct outpoint *op, uint32_t height,
                     int coinbase, int64_t value_sat, const uint8_t *spk, size_t spk_len);

/** Finishes: writes the hash of the chosen kind (internal byte order; zero for NONE). */
void coins_stats_finish(struct coins_stats *s, uint8_t hash32[32]);

struct coins_db;
/** The statistics of every coin of db (one pass in key order: init, add, finish). Returns 0
 *  with *s filled (the caller clears it) and hash32 written, or coins_db_foreach's error
 *  (*s cleared). */
int coins_db_stats(struct coins_db *db, enum coins_stats_hash kind, struct coins_stats *s,
                   uint8_t hash32[32]);

#endif
