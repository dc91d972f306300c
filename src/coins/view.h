/* Coins views (Core's CCoinsView family): a read/write view of the UTXO set, stacked.
 *
 *   chainstate kv store  <-  coins_db (the base)  <-  coins_cache (-dbcache)  <-  coins_cache
 *                                                                                 (one block)
 *
 * A cache holds entries fetched from its base and changes not yet written back. Each entry
 * is DIRTY (differs from the base) and/or FRESH (the base has no unspent coin there), so that
 * a coin created and spent between two flushes never reaches the base at all. Flushing a cache
 * hands its dirty entries to the base in one call: into a cache they merge, into coins_db
 * they become one atomic kv batch together with the new best-block marker.
 *
 * Errors: a view that cannot read or write (store failure, corrupt record) returns a negative
 * RC_* other than RC_NOT_FOUND; callers treat it as fatal, never as a missing coin.
 * Threads: one thread at a time per view (the validation thread), except coins_cache_peek
 * and coins_db_read, which other threads may call while that thread does not change the
 * cache (the chainstate's read lock).
 */
#ifndef BITNODE_COINS_VIEW_H
#define BITNODE_COINS_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "coins/coin.h"
#include "kv/kv.h"
#include "primitives/tx.h"

enum coins_entry_flags {
    COINS_DIRTY = 1,
    COINS_FRESH = 2,
};

/* One change handed from a cache to its base; spent when coin.value_sat is -1 (the script
 * then empty). The script is borrowed from the cache being written. */
struct coins_entry {
    struct outpoint op;
    struct coin coin;
    uint8_t flags;
};

static inline int coins_entry_spent(const struct coins_entry *e)
{
    return e->coin.value_sat < 0;
}

/* The dirty entries of a cache being written, one at a time (no array of them is built:
 * a flush of millions of coins costs no memory beyond its kv batch). */
struct coins_cursor {
    /** Fills *e with the next dirty entry (its script borrowed until the next call);
     *  returns 1, or 0 when there are no more. */
    int (*next)(struct coins_cursor *cur, struct coins_entry *e);
};

struct coins_view;

struct coins_view_ops {
    /** Reads a coin into *out, its script borrowed from v (valid until the next call on v or
     *  on any view it reads through). 0, RC_NOT_FOUND, or a system error. */
    int (*get)(struct coins_view *v, const struct outpoint *op, struct coin *out);
    /** The block the view's state corresponds to. 0, RC_NOT_FOUND (empty), or an error. */
    int (*best_block)(struct coins_view *v, uint8_t hash32[32]);
    /** Takes the dirty entries of a child cache (copying what it keeps) and the child's best
     *  block. An error leaves the child unchanged. */
    int (*batch_write)(struct coins_view *v, struct coins_cursor *cur, const uint8_t best32[32],
                       int sync);
};

struct coins_view {
    const struct coins_view_ops *ops;
};

/* ---- the base: coins in a kv store ------------------------------------------------------ */

struct coins_db;

/** A view over the chainstate store kv (borrowed; must outlive the view).
 *  Records: doc/files.md, "Chainstate". */
struct coins_db *coins_db_new(struct kv *kv);
void coins_db_free(struct coins_db *db);
/** The generic view of db. */
struct coins_view *coins_db_view(struct coins_db *db);
/** Reads a coin straight from the store into *out (caller owns), with no shared buffer or
 *  counter: safe beside the validation thread's use of db. 0, RC_NOT_FOUND, or an error. */
int coins_db_read(struct coins_db *db, const struct outpoint *op, struct coin *out);
/** Calls fn(ctx, op, coin) for every coin record of the store, in key order (the coin is
 *  valid during the call only), until fn returns nonzero. The store as it is: write a
 *  cache's changes first to see them. Returns 0, RC_STOPPED when fn stopped it,
 *  RC_CORRUPT for a record that does not decode, or a store error. */
int coins_db_foreach(struct coins_db *db,
                     int (*fn)(void *ctx, const struct outpoint *op, const struct coin *c),
                     void *ctx);
/** The same into the caller's buffers, for a thread that reads many: the record goes to
 *  val, the script to spk, and out->script_pubkey borrows spk (valid until spk changes). */
int coins_db_read_buf(struct coins_db *db, const struct outpoint *op, struct coin *out,
                      struct buf *val, struct buf *spk);
/** The store's write epoch: odd while a batch is being written, and one more at its start
 *  and at its end (failed or not). A coin another thread read while the epoch was e (even)
 *  is still what the store holds for as long as the epoch is still e. Any thread. */
uint64_t coins_db_epoch(const struct coins_db *db);
/* Core's -dbbatchsize default: a flush past this many bytes of records is written in parts. */
#define COINS_DB_BATCH_BYTES (16u << 20)

/** Sets the size past which a flush is written in parts (0: the default) and, for tests,
 *  Core's -dbcrashratio: after each part but the last, the process ends (_Exit(0), "Simulating
 *  a crash") with probability 1/crash_ratio (0: never). */
void coins_db_set_batch(struct coins_db *db, size_t batch_bytes, uint32_t crash_ratio);
/** The head-blocks marker a flush written in parts leaves until its last part: the block it
 *  was writing (new32) and the one the store held before (old32; zero for a first flush).
 *  Returns 0 with both filled, RC_NOT_FOUND when the store is whole, or an error. */
int coins_db_head_blocks(struct coins_db *db, uint8_t new32[32], uint8_t old32[32]);
/** Parts written (flushes that did not fit one batch, every part but the last). */
uint64_t coins_db_parts(const struct coins_db *db);
/** Counters since open: coins read, written, deleted, batches. */
void coins_db_counters(const struct coins_db *db, uint64_t *reads, uint64_t *writes,
                       uint64_t *deletes, uint64_t *batches);

/* ---- the write-back cache --------------------------------------------------------------- */

struct coins_cache;

/** A new empty cache over base (borrowed; must outlive the cache). The salt keys the hash
 *  table (SipHash), so that nobody can choose outpoints that collide. */
struct coins_cache *coins_cache_new(struct coins_view *base);
void coins_cache_free(struct coins_cache *c);
/** The generic view of c, for stacking another cache on it. */
struct coins_view *coins_cache_view(struct coins_cache *c);

/** on: when a child cache reads through c, a coin c does not hold is read from c's base
 *  and handed to the child without being kept in c too (c is complete and will only be
 *  flushed: the pipeline's view of a block whose child is begun over it). */
void coins_cache_set_pass_through(struct coins_cache *c, int on);

/** Puts c over another base. Only for a cache whose base has just been flushed whole into
 *  new_base (so both hold the same coins, and c's FRESH flags stay true): the pipeline
 *  begins block N+1 over block N's view, then moves it onto the coins cache once N's view
 *  is merged there. */
void coins_cache_set_base(struct coins_cache *c, struct coins_view *new_base);

/** Looks a coin up (fetching it from the base on a miss).
 *  Returns: 0 with *out borrowed (valid until the next call on c); RC_NOT_FOUND if there is
 *           no unspent coin; a system error from the base. */
int coins_cache_get(struct coins_cache *c, const struct outpoint *op, const struct coin **out);

/** Reads a coin from the cache alone, changing nothing (the cache is not filled on a miss):
 *  for readers beside the validation thread. *cached: 1 if the cache knows the outpoint
 *  (then the answer is final), 0 if only the base can tell (then RC_NOT_FOUND).
 *  Returns 0 with *out (caller owns: coin_clear) or RC_NOT_FOUND. */
int coins_cache_peek(const struct coins_cache *c, const struct outpoint *op, struct coin *out,
                     int *cached);

/** Adds a copy of a coin (the caller keeps *coin). Provably unspendable outputs are
 *  dropped. possible_overwrite: 0 when the coin cannot
 *  exist yet (a new txid): then an existing unspent coin there is a bug (CHECK_ALWAYS);
 *  1 for BIP30-exception coinbases and undo replay.
 *  Returns: 0, or a system error from the base. */
int coins_cache_add(struct coins_cache *c, const struct outpoint *op, const struct coin *coin,
                    int possible_overwrite);

/** Adds coin (copied) for op as a clean entry, as if just read from the base, unless c
 *  already has an entry for op (unspent or spent): the caller vouches that coin is what
 *  the base holds for op now (read from it since its last write). Returns 1 if added, 0 if
 *  c already had op. For coins read ahead by another thread. */
int coins_cache_prime(struct coins_cache *c, const struct outpoint *op, const struct coin *coin);
/** Keeps a presence filter of about bytes (0: none, the default) from the first time a
 *  sync drops coins to stay within its limit on: a bit set for each entry the cache holds,
 *  rebuilt after each sync that drops some. It counts in coins_cache_memory. */
void coins_cache_keep_presence(struct coins_cache *c, size_t bytes);
/** 1 when c's presence filter says c holds an entry for op (a false positive now and then),
 *  0 when it surely does not or keeps no filter yet. Any thread, while c exists: for a
 *  thread that reads coins ahead and skips those the cache has. */
int coins_cache_may_have(const struct coins_cache *c, const struct outpoint *op);
/** Spends a coin. moved (may be NULL) receives the coin that was spent (for undo data;
 *  owned by the caller). Returns: 0; RC_NOT_FOUND if there is no unspent coin; or a system
 *  error. */
int coins_cache_spend(struct coins_cache *c, const struct outpoint *op, struct coin *moved);

/** Sets the block the cache's state corresponds to. */
void coins_cache_set_best_block(struct coins_cache *c, const uint8_t hash32[32]);
/** The cache's best block, or the base's if none was set. 0, RC_NOT_FOUND, or an error. */
int coins_cache_best_block(struct coins_cache *c, uint8_t hash32[32]);

/** Writes every dirty entry and the best block to the base in one batch_write, then empties
 *  the cache (a frozen generation is waited for and dropped first, as by coins_cache_sync). Returns
 * 0, or the base's error (the cache is then unchanged). */
int coins_cache_flush(struct coins_cache *c, int sync);
/** Writes every dirty entry and the best block to the base like coins_cache_flush, but keeps
 *  the coins: they stay as clean entries, and only while the cache holds more than
 *  keep_bytes are the oldest of them (lowest height first: young coins are the ones spent
 *  soon) dropped until it holds no more (SIZE_MAX: keep all, Core's Sync). A frozen
 *  generation is waited for and dropped first. Returns 0, or the base's error (the cache is
 *  then unchanged but for its frozen generation's coins, dropped as they are stored). */
int coins_cache_sync(struct coins_cache *c, int sync, size_t keep_bytes);
/** Writes the cache's changes to its base without stopping the caller: the entries, as they
 *  are, become the frozen generation, which a thread of the cache's own writes to the base
 *  (one batch_write, not synced, with the best block) while the cache, empty again, goes on
 *  over it: lookups read the frozen generation before the base, a fill copies from it. The
 *  frozen generation is read, never changed, until the next freeze or sync, which first
 *  waits for its write, then drops it (its coins leave the cache: the store has them), or
 *  until coins_cache_drop_frozen. So the cache holds at most two generations. c's base must be a
 * store (coins_db), which must take a write beside reads from c's thread. Returns 0, or the error
 * the previous freeze's write failed with (then nothing changed, and every later write fails with
 * it: the cache still answers as if it had been written). */
int coins_cache_freeze(struct coins_cache *c);
/** Waits for the frozen generation's write, if any. Returns 0 or its error. */
int coins_cache_wait(struct coins_cache *c);
/** 1 while the frozen generation is being written (0 once the writer is done, before
 *  anyone waits for it). The owner's thread. */
int coins_cache_writing(const struct coins_cache *c);
/** As coins_cache_writing, after waiting up to max_ms for the write to end (polling each
 *  millisecond). The owner's thread. */
int coins_cache_writing_after(const struct coins_cache *c, int64_t max_ms);
/** Waits for the frozen generation's write, then drops the generation (its coins leave
 *  the cache: the store has them). Returns 0 or the write's error (then nothing changed). */
int coins_cache_drop_frozen(struct coins_cache *c);
/** Bytes of the frozen generation (counted in coins_cache_memory too). */
size_t coins_cache_frozen_memory(const struct coins_cache *c);
/** Freezes so far, and the nanoseconds their writer thread spent (freeing the generation
 *  before, and writing). */
void coins_cache_freeze_counters(const struct coins_cache *c, uint64_t *freezes,
                                 uint64_t *writer_ns);
/** Drops clean entries (after a flush the cache is empty anyway). */
void coins_cache_trim_clean(struct coins_cache *c);

/** Bytes of memory the cache holds (table and scripts): the figure -dbcache bounds. */
size_t coins_cache_memory(const struct coins_cache *c);
/** Entries held (clean, dirty and spent-dirty). */
size_t coins_cache_count(const struct coins_cache *c);
/** Entries that are dirty. */
size_t coins_cache_dirty_count(const struct coins_cache *c);
/** Lookups since the cache was made (get, spend, and reads by a child): those the cache
 *  answered itself (hits) and those it asked its base (misses). */
void coins_cache_counters(const struct coins_cache *c, uint64_t *hits, uint64_t *misses);
/** Bytes one coin costs in a cache at least (its entry, with a script of up to 34 bytes
 *  inline, and its share of a table at its fullest): for tests and documentation. */
size_t coins_cache_entry_bytes(void);

#endif
