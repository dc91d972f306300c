/* A coin (one unspent output) and its compact record encoding, the same as Bitcoin Core's
 * chainstate values (without Core's XOR obfuscation):
 *
 *   coin       := varint(height * 2 + coinbase)  txout_c
 *   txout_c    := varint(compress_amount(value))  script_c
 *   script_c   := 0x00 hash160[20]                 P2PKH  (DUP HASH160 <20> EQUALVERIFY CHECKSIG)
 *               | 0x01 hash160[20]                 P2SH   (HASH160 <20> EQUAL)
 *               | (0x02|0x03) x[32]                P2PK with a compressed key
 *               | (0x04|0x05) x[32]                P2PK with an uncompressed key (0x04 | y parity);
 *                                                  only keys that are valid curve points
 *               | varint(len + 6) script[len]      anything else
 *
 * The key in the chainstate store is 'C' txid[32] varint(n). Formats: doc/files.md.
 */
#ifndef BITNODE_COINS_COIN_H
#define BITNODE_COINS_COIN_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"
#include "util/buf.h"

#define MAX_SCRIPT_SIZE 10000
#define COIN_KEY_PREFIX 'C'
#define COIN_KEY_MAX 38 /* 1 + 32 + at most 5 VARINT bytes for a 32-bit n */

struct coin {
    int64_t value_sat;
    struct bytes script_pubkey; /* owned */
    uint32_t height;
    int coinbase;
};

/** Frees the script and zeroes c. */
void coin_clear(struct coin *c);

/** Core's CompressAmount: a bijection on uint64 that makes round amounts small. */
uint64_t coin_compress_amount(uint64_t value);
/** Core's DecompressAmount (inverse of coin_compress_amount). */
uint64_t coin_decompress_amount(uint64_t x);

/** 1 if the script is provably unspendable (starts with OP_RETURN or is longer than
 *  MAX_SCRIPT_SIZE): such outputs never enter the UTXO set. */
int coin_script_unspendable(const uint8_t *spk, size_t len);

/** Appends the compressed form of a scriptPubKey (script_c above). */
void coin_compress_script(struct buf *out, const uint8_t *spk, size_t len);
/** Reads a compressed script and appends the full scriptPubKey to out.
 *  Returns 0; RC_TRUNCATED; RC_CORRUPT if a stored uncompressed key is not a curve point.
 *  A raw script longer than MAX_SCRIPT_SIZE is replaced by the single byte OP_RETURN (its
 *  bytes are skipped), as Core does. */
int coin_decompress_script(struct buf *out, struct reader *r);

/** Appends the record (coin above) for c. */
void coin_serialize(struct buf *out, const struct coin *c);
/** Parses a record into c (c's script owned by the caller afterwards). Trailing bytes are
 *  RC_TRAILING; any failure leaves c empty. */
int coin_deserialize(struct coin *c, const uint8_t *p, size_t len);
/** The same, with the script decompressed into spk (emptied first; the caller's, reused
 *  from record to record): c's script is borrowed from spk. */
int coin_deserialize_buf(struct coin *c, struct buf *spk, const uint8_t *p, size_t len);

/** Writes the store key for an outpoint into key (>= COIN_KEY_MAX bytes); returns its
 *  length. */
size_t coin_key(uint8_t *key, const struct outpoint *op);
/** Parses a store key. Returns 0 or RC_CORRUPT. */
int coin_key_parse(struct outpoint *op, const uint8_t *key, size_t len);

#endif
