/* Reading stored blocks ahead of the validation thread: a thread of its own reads the blocks
 * the chainstate will connect next from the blk files and parses them (the transactions
 * hashed too), so that connecting a stored block (-reindex-chainstate, a reorg, blocks that
 * arrived before their parents) never waits for the disk or the parser.
 *
 * It reads the files through its own descriptors (read-only, by path), never through the
 * blockstore: a block's bytes do not change once written, so nothing is shared with the
 * thread that appends blocks and undo data. A block that does not read back, parse, or hash
 * to what was asked for comes back as an error, and the caller reads it itself, which
 * reports the cause.
 *
 * With a coins store (readahead_set_coins) and while asked to (readahead_coins_on), it also
 * reads from the store the coins each block spends (those the block does not create
 * itself), so that the validation thread finds them in its cache instead of waiting for the
 * store. They come with the store's write epoch they were read at: the taker keeps them only
 * if no write has begun since (coins_db_epoch), and only where its cache has no entry.
 *
 * Threads: readahead_want/_take/_reset/_coins_on are called by one thread (the chainstate's
 * owner); the reader thread is internal.
 */
#ifndef BITNODE_VALIDATION_READAHEAD_H
#define BITNODE_VALIDATION_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "coins/view.h"
#include "primitives/block.h"

/* Blocks read ahead at most (parsed blocks held: a few MiB each at most). */
#define READAHEAD_DEPTH 4

struct readahead;

/* Coins a block spends, read from the store at epoch (readahead_take). */
struct readahead_coin {
    struct outpoint op;
    struct coin coin; /* the script borrows the set's arena */
};
struct readahead_coins {
    struct readahead_coin *v;
    size_t n, cap;
    struct buf arena; /* the scripts */
    uint64_t epoch;   /* coins_db_epoch before the first read */
};
void readahead_coins_init(struct readahead_coins *s);
void readahead_coins_clear(struct readahead_coins *s);

/** A reader of the blk files in dir (borrowed string, copied) with network magic magic4.
 *  The thread starts with the first readahead_want. */
struct readahead *readahead_new(const char *dir, const uint8_t magic4[4]);
/** The blk files' XOR key (copied; set before the first readahead_want). Zeros until then. */
struct obfuscation;
void readahead_set_obfuscation(struct readahead *ra, const struct obfuscation *obf);
/** Stops the thread (a read in progress finishes) and frees every block held. */
void readahead_free(struct readahead *ra);

/** Lets the reader read coins from db (borrowed: must outlive ra, or the next call with
 *  NULL), skipping those cache (the cache over db, borrowed likewise; may be NULL) says it
 *  holds (coins_cache_may_have). Call before the first readahead_want. */
void readahead_set_coins(struct readahead *ra, struct coins_db *db,
                         const struct coins_cache *cache);
/** Whether blocks read from now on get their coins read too (off at first): worth it only
 *  while the cache misses. */
void readahead_coins_on(struct readahead *ra, int on);

/** Asks for block hash32 at blk<file>.dat offset pos (its data, after the 8-byte frame).
 *  Returns 1 if it was queued or is already held, 0 if the queue is full. */
int readahead_want(struct readahead *ra, const uint8_t hash32[32], int file, uint32_t pos);

/** Takes block hash32, waiting while it is being read. Blocks asked for before it are
 *  dropped (the chain went another way). Returns 0 with *b (caller owns: block_clear) and,
 *  if coins is not NULL, the coins read for it in *coins (emptied first; n is 0 when none
 *  were read); RC_NOT_FOUND if it was never asked for (then the queue is emptied); or the
 *  error its read met (RC_IO, RC_CORRUPT). */
int readahead_take(struct readahead *ra, const uint8_t hash32[32], struct block *b,
                   struct readahead_coins *coins);

/** Drops every block asked for (a read in progress is waited for). */
void readahead_reset(struct readahead *ra);

/** Frees *b (left empty), on the reader thread when it runs: a block it parsed is freed
 *  fastest by the thread that allocated it. */
void readahead_dispose(struct readahead *ra, struct block *b);

/** Blocks read and parsed, and nanoseconds the reader spent on them (coins included). */
void readahead_counters(const struct readahead *ra, uint64_t *blocks, uint64_t *ns);
/** Coins looked up in the store for blocks, and found there; nanoseconds readahead_take
 *  waited for a block still being read. */
void readahead_coin_counters(const struct readahead *ra, uint64_t *lookups, uint64_t *found,
                             uint64_t *wait_ns);

#endif
