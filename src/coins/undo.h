/* Undo data: for each non-coinbase transaction of a block, the coins its inputs spent, so
 * that the block can be disconnected. Bitcoin Core's format (CBlockUndo / CTxUndo /
 * TxInUndoFormatter):
 *
 *   block_undo := compact_size n_tx  tx_undo*          (one per non-coinbase tx, in order)
 *   tx_undo    := compact_size n_in  coin_undo*        (one per input, in order)
 *   coin_undo  := varint(height * 2 + coinbase)  [varint(0) if height > 0]  txout_c
 *
 * txout_c is the compressed output of coins/coin.h. doc/files.md, "Undo files".
 */
#ifndef BITNODE_COINS_UNDO_H
#define BITNODE_COINS_UNDO_H

#include <stddef.h>

#include "coins/coin.h"
#include "util/buf.h"

struct tx_undo {
    struct coin *prev; /* owned; one per input */
    size_t n;
};

struct block_undo {
    struct tx_undo *txs; /* owned; one per non-coinbase transaction */
    size_t n;
};

void block_undo_init(struct block_undo *u);
void block_undo_clear(struct block_undo *u);
/** Makes room for n transactions (each empty) and returns the array. */
struct tx_undo *block_undo_resize(struct block_undo *u, size_t n);
/** Appends u's serialization to out. */
void block_undo_serialize(struct buf *out, const struct block_undo *u);
/** Parses exactly p[0..len). Returns 0, or RC_CORRUPT (u left empty) on any malformation:
 *  undo data is our own, so a bad record is corruption, not bad input. */
int block_undo_parse(struct block_undo *u, const uint8_t *p, size_t len);

#endif
