/* UTXO set snapshots in Bitcoin Core's format (dumptxoutset, loadtxoutset; doc/files.md
 * "UTXO snapshot"):
 *
 *   magic "utxo" 0xff | version u16 LE (2) | network magic [4] | base block hash [32]
 *   | coin count u64 LE
 *   then per transaction, in the coins store's key order:
 *   txid [32] | CompactSize(coins of it) | per coin: CompactSize(output index) | the coin
 *   as the coins store keeps it (varint height*2+coinbase, compressed amount and script)
 *
 * The writer groups consecutive coins of one txid, so the caller hands them over in key
 * order (coins_db_foreach's).
 */
#ifndef BITNODE_COINS_SNAPSHOT_H
#define BITNODE_COINS_SNAPSHOT_H

#include <stdint.h>
#include <stdio.h>

#include "coins/coin.h"
#include "primitives/tx.h"

#define SNAPSHOT_VERSION 2
#define SNAPSHOT_HEADER_SIZE 51

struct snapshot_writer;

/** A writer to f (the caller's, open for writing, closed by the caller) that has written the
 *  header: network magic, base block hash (internal order) and the number of coins that will
 *  follow. 0, or RC_IO. */
int snapshot_writer_new(struct snapshot_writer **out, FILE *f, const uint8_t magic[4],
                        const uint8_t base_hash[32], uint64_t coins);
/** The next coin, in key order. 0, or RC_IO (a write failed). */
int snapshot_writer_add(struct snapshot_writer *w, const struct outpoint *op, const struct coin *c);
/** Writes what is still grouped and flushes f; *written gets the coins written. 0 or RC_IO. */
int snapshot_writer_finish(struct snapshot_writer *w, uint64_t *written);
/** Frees w (not f). NULL: no-op. */
void snapshot_writer_free(struct snapshot_writer *w);

struct snapshot_reader;

/** A reader of f (the caller's, open for reading, closed by the caller) that has read and
 *  checked the header against this node's network magic: fills base_hash (internal order)
 *  and *coins. 0, or RC_CORRUPT with Core's message in err (bad magic bytes, an unsupported
 *  version, another network's snapshot, a header cut short). */
int snapshot_reader_new(struct snapshot_reader **out, FILE *f, const uint8_t magic[4],
                        uint8_t base_hash[32], uint64_t *coins, char *err, size_t err_len);
/** The next coin: 0 with *op and *c (c's script is the reader's, valid until the next call);
 *  RC_NOT_FOUND once the header's count of coins has been read; RC_CORRUPT with Core's
 *  message in err (a group claims more coins than are left, a coin cut short or
 *  malformed); RC_IO when reading fails. */
int snapshot_reader_next(struct snapshot_reader *r, struct outpoint *op, struct coin *c,
                         char *err, size_t err_len);
/** After the last coin: 1 if the file holds more bytes, else 0. */
int snapshot_reader_trailing(struct snapshot_reader *r);
/** Frees r (not f). NULL: no-op. */
void snapshot_reader_free(struct snapshot_reader *r);

#endif
