/* The chainstate: block index, block files, UTXO set, and the active chain, driven by the
 * validation thread. It accepts blocks (from -loadblock, -reindex, later peers), picks the
 * chain with the most work, connects and disconnects blocks with undo data, and flushes so
 * that a kill at any instant leaves a consistent state (doc/architecture.md, "How a flush
 * stays crash-safe"):
 *
 *   1. block and undo files are fsync'd,
 *   2. the block index entries and file infos are written (one synced batch),
 *   3. the coins and the best-block marker are written (one atomic batch, or parts under a
 *      head-blocks marker that the next open replays: doc/architecture.md).
 *
 * At start the active chain is the coins' best block and its ancestors; blocks stored past
 * it are connected again by chainstate_activate_best_chain.
 *
 * Threads: one thread changes it - the validation thread (validator.h), or a test's own
 *   thread - and takes the chain lock for writing around each change. Other threads only
 *   read, holding chainstate_read_lock(), and call only the readers: the getters (tip,
 *   at_height, contains, best_header, tree, params, assume_valid, stop_requested,
 *   last_invalid, size_on_disk, blocks_dir, txindex_info, get_counters) and read_block,
 *   read_undo, get_coin, find_tx. The functions that change it take the lock themselves:
 *   the changing thread calls them without it.
 */
#ifndef BITNODE_VALIDATION_CHAINSTATE_H
#define BITNODE_VALIDATION_CHAINSTATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blockstore/blockindex.h"
#include "coins/stats.h"
#include "coins/undo.h"
#include "coins/view.h"
#include "consensus/params.h"
#include "consensus/vstate.h"
#include "kv/kv.h"

struct chainstate_options {
    const struct chain_params *params;
    const char *datadir;       /* the network's data directory; must exist */
    const char *blocks_dir;    /* the blk/rev files (-blocksdir's <dir>/<chain>/blocks); NULL:
                                  datadir/blocks. The block index stays in datadir/blocks */
    size_t dbcache_bytes;      /* -dbcache: coins cache and store caches together */
    size_t mempool_bytes;      /* -maxmempool: what of it the mempool does not use is the
                                  coins cache's too (Core's rule; the pool's usage comes
                                  from chainstate_set_mempool_usage) */
    int reindex;               /* rebuild index and chainstate from our blk files */
    int reindex_chainstate;    /* rebuild the chainstate from the stored blocks */
    int64_t stop_at_height;    /* -stopatheight (0: none) */
    const struct kv_ops *kv_ops; /* NULL: the configured backend */
    const struct kv_ops *coins_kv_ops; /* the chainstate store's alone (NULL: kv_ops); the
                                          storage benchmark's in-memory ceiling */
    int flush_every_blocks;      /* tests: flush after every n connected blocks (0: off) */
    int txindex;                 /* -txindex: keep indexes/txindex */
    int par;                     /* -par: script check threads, the validation thread
                                    included (0: one per core; negative: leave that many
                                    cores free; 1: no workers) */
    size_t sigcache_bytes;       /* -maxsigcachesize: the signature cache (0: none) */
    int assume_valid_set;        /* -assumevalid given: assume_valid replaces the chain's
                                    default (all zero: verify every script) */
    uint8_t assume_valid[32];    /* internal byte order */
    int bloom_bits;              /* -dbbloombits: the stores' bloom filter bits per key; 0:
                                    kv's default (10), negative: no filter */
    size_t coins_batch_bytes;    /* -dbbatchsize: a larger coins flush goes in parts (0:
                                    Core's 16 MiB) */
    int background_flush;        /* -dbbackgroundflush: a coins flush that need not be synced
                                    freezes the cache's entries, written by a thread of its
                                    own while blocks connect (coins_cache_freeze); 0: every
                                    flush written on the validation thread */
    uint32_t db_crash_ratio;     /* tests, -dbcrashratio: end the process after 1 in n writes
                                    (coins flush parts, block and undo records, the block
                                    index, the indexes' batches; 0: never) */
    int64_t max_tip_age;         /* -maxtipage, seconds (0: Core's 24 hours) */
    uint64_t prune_target;       /* -prune: bytes of blk and rev files to keep (0: no
                                    pruning; CHAINSTATE_PRUNE_MANUAL: pruneblockchain only) */
    int fast_prune;              /* -fastprune: 64 KiB block files; on regtest pruning may
                                    start above height 100 */
    int blocks_plain;            /* -blocksxor=0: a new blocks directory gets a key of
                                    zeros, and a stored key that is not zeros is refused
                                    (0: Core's default, a random key for a new one) */
};
#define CHAINSTATE_PRUNE_MANUAL UINT64_MAX

struct chainstate;

/** Opens (creating when new) the stores under opt->datadir and loads the block index.
 *  Returns 0, or a negative RC_* with a message in err naming the file and what to do;
 *  RC_INVALID is Core's ChainstateLoadStatus::FAILURE (a datadir that only a -reindex
 *  mends: its message has no final full stop). */
int chainstate_open(struct chainstate **out, const struct chainstate_options *opt, char *err,
                    size_t err_len);
/** Flushes everything and closes. Returns 0 or the first error (the stores stay consistent
 *  either way). NULL is a no-op. */
int chainstate_close(struct chainstate *cs);

/* Where an already-stored block lives (-reindex reads our own files). */
struct block_pos {
    int file;
    uint32_t pos;
};

/** Takes one serialized block: parses it, accepts its header, checks what needs no UTXO
 *  set, stores it (unless known_pos says where it already is) and records it.
 *  Returns: 0 with *st VALID (also for a block we already had: *is_new 0); RC_INVALID with
 *           *st the verdict (the block is not stored; a non-mutated invalid block is marked
 *           failed; an unknown parent is "prev-blk-not-found", VRESULT_MISSING_PREV); or a
 *           system error.
 *  Out:     is_new (may be NULL): 1 if the block was stored now.
 */
int chainstate_accept_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                            const struct block_pos *known_pos, struct vstate *st, int *is_new);

/** chainstate_accept_block for a block read from a block file (-reindex, -loadblock, as
 *  Core's import calls AcceptBlock): the same, except that a body failing the context-free
 *  checks (CheckBlock) marks its header failed when the header is known already; a peer's
 *  or submitblock's block leaves a known header as it was (Core's ProcessNewBlock). */
int chainstate_import_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                            const struct block_pos *known_pos, struct vstate *st, int *is_new);

/** chainstate_accept_block for a block nobody asked for (Core's AcceptBlock with fRequested
 *  false): the header is accepted, the block stored only if its chain has at least the
 *  tip's work and the minimum chain work and it is at most MIN_BLOCKS_TO_KEEP above the tip;
 *  otherwise 0 with *is_new 0 (headers-only). Returns as chainstate_accept_block. */
int chainstate_accept_unrequested_block(struct chainstate *cs, const uint8_t *raw, size_t len,
                                        struct vstate *st, int *is_new);

/** Core's order for a block message whose header is new: the block is read and passes the
 *  checks that need no context (CheckBlock), then its header is accepted into the tree
 *  (AcceptBlockHeader), so what follows the message sees it; the block itself is left for
 *  chainstate_accept_block. Returns 0 if the header was accepted (or known), RC_INVALID if
 *  the block does not read or fails those checks, or the header fails (nothing remembered:
 *  chainstate_accept_block gives the verdict), or a system error. Takes the chain lock. */
int chainstate_accept_block_header(struct chainstate *cs, const uint8_t *raw, size_t len);

/** Connects and disconnects until the tip is the valid block with the most work (ties: the
 *  one received first), one block at a time (connect_begin then connect_finish), stopping
 *  early at -stopatheight or when the interrupt asks. Invalid blocks found on the way are
 *  marked and skipped. Returns 0, or a system error (the state on disk stays consistent). */
int chainstate_activate_best_chain(struct chainstate *cs);

/* The pipeline the validation thread runs (doc/architecture.md, "The pipeline"):
 *
 *     chainstate_connect_begin(cs, &p);         block N: inputs spent, scripts to the pool
 *     loop:
 *       ... prepare N+1: accept it from the queue, or chainstate_prepare_next(cs, p) ...
 *       chainstate_connect_finish(cs, p, &p);   join the pool for N; if N is valid, begin
 *                                               N+1 over N's view (its scripts to the pool),
 *                                               then commit N (or mark it invalid)
 *
 * Commits happen in chain order with the verdicts of serial checking: N+1 is read, checked
 * without the UTXO set, stored and prefetched while N's scripts are checked, and begun only
 * once N's scripts passed; it is committed (or marked invalid) only after N. */
struct chainstate_pending;

/** One step towards the best chain: disconnects blocks down to the fork point if needed,
 *  then begins the next block of the best chain (its inputs spent, its scripts handed to the
 *  check pool) and returns. A block found invalid on the way is marked and the step goes on
 *  with the best remaining chain. Returns 0 with *out (NULL when the tip is already the best:
 *  nothing to finish), or a system error. */
int chainstate_connect_begin(struct chainstate *cs, struct chainstate_pending **out);
/** The block p connects (borrowed until chainstate_connect_finish). */
const struct block_index *chainstate_pending_block(const struct chainstate_pending *p);
/** Prepares the block after p while p's scripts are checked: if it is stored and not parsed
 *  yet, reads and parses it, then reads into the coins cache the outputs it spends. Changes
 *  nothing a reader sees but what the cache holds. Returns 0 or a system error (p must still
 *  be finished). */
int chainstate_prepare_next(struct chainstate *cs, const struct chainstate_pending *p);
/** Joins the check pool for p's block (without the chain lock: readers go on meanwhile),
 *  then commits it as the new tip, or marks it invalid; flushes if needed. Frees p.
 *  With next (may be NULL: no chaining), a valid block's child on the best chain is begun
 *  first, over p's view, so the pool checks it while p is committed: *next is then that
 *  pending child (NULL when there is none, when -stopatheight ends at p, or on an error).
 *  A child found invalid while it is begun is marked after p is committed.
 *  Returns 0 (also for an invalid block: see chainstate_last_invalid) or a system error. */
int chainstate_connect_finish(struct chainstate *cs, struct chainstate_pending *p,
                              struct chainstate_pending **next);
/** Counts ns of preparing work done while p was open (the threads' shares logged at close). */
void chainstate_add_overlap(struct chainstate *cs, struct chainstate_pending *p, uint64_t ns);

enum chainstate_flush_mode {
    FLUSH_IF_NEEDED = 0, /* when the coins cache is over its limit */
    FLUSH_PERIODIC = 1,  /* also when the last flush is old */
    FLUSH_ALWAYS = 2,
};
/** Writes files, index and coins as described above. Returns 0 or a system error. */
int chainstate_flush(struct chainstate *cs, enum chainstate_flush_mode mode);

/** Marks a block invalid (and its descendants), disconnecting it if active, then activates
 *  the best remaining chain (invalidateblock). 0, RC_NOT_FOUND, RC_USAGE for the genesis
 *  block (nothing changes), or a system error. */
int chainstate_invalidate_block(struct chainstate *cs, const uint8_t hash32[32]);
/** Clears the invalid marks of a block, its ancestors and descendants, then activates the
 *  best chain (reconsiderblock). 0, RC_NOT_FOUND, or a system error. */
int chainstate_reconsider_block(struct chainstate *cs, const uint8_t hash32[32]);

/** The active tip (NULL before genesis is connected). */
struct block_index *chainstate_tip(const struct chainstate *cs);
/** The active block at height, or NULL. */
struct block_index *chainstate_at_height(const struct chainstate *cs, int32_t height);
/** 1 if e is on the active chain. */
int chainstate_contains(const struct chainstate *cs, const struct block_index *e);
/** Takes a block header alone (80 serialized bytes), as headers-first sync does: accepts it
 *  into the block tree (without data) if it passes the header rules and its parent is known.
 *  Returns 0 (also for a header already known), RC_INVALID with *st the verdict (nothing is
 *  remembered of a header that fails), or a system error. Takes the chain lock. */
int chainstate_accept_header(struct chainstate *cs, const uint8_t raw80[80], struct vstate *st);

/** The entry with the most work among known headers (valid ones). */
struct block_index *chainstate_best_header(const struct chainstate *cs);
/** The block index tree (borrowed). */
struct block_tree *chainstate_tree(const struct chainstate *cs);
/** The chain parameters. */
const struct chain_params *chainstate_params(const struct chainstate *cs);

/** Reads a stored block (raw bytes) into out. 0, RC_NOT_FOUND (no data), or an error. */
int chainstate_read_block(struct chainstate *cs, const struct block_index *e, struct buf *out);

/** Reads the undo data of a connected block (the coins its inputs spent).
 *  Returns 0 with *undo filled (caller clears), RC_NOT_FOUND if the block has none (genesis,
 *  never connected), or RC_CORRUPT / RC_IO. */
int chainstate_read_undo(struct chainstate *cs, const struct block_index *e,
                         struct block_undo *undo);

/** -txindex lookup: the block holding txid on the active chain (or a stale one).
 *  Returns 0 with *block (borrowed entry), RC_NOT_FOUND, RC_USAGE when there is no
 *  transaction index, or a store error. */
int chainstate_find_tx(struct chainstate *cs, const uint8_t txid32[32], struct block_index **block);
/** 1 if the node keeps a transaction index; *synced_height gets how far it is complete. */
int chainstate_txindex_info(const struct chainstate *cs, int *synced_height);

/** Looks up an unspent output of the active chain. 0 with *out (caller owns: coin_clear),
 *  RC_NOT_FOUND, or an error. */
int chainstate_get_coin(struct chainstate *cs, const struct outpoint *op, struct coin *out);

/** UTXO set statistics at the tip (flushes first, then reads the store in key order).
 *  Out: stats (finished), hash32 (of kind). */
/* Called for each unspent output in the store's order; returns nonzero to stop. */
typedef int (*chainstate_coin_fn)(void *ctx, const struct outpoint *op, const struct coin *c);
/** Flushes, then hands every coin of the store to fn (scantxoutset), counting them in *count.
 *  Returns 0, RC_STOPPED when fn stopped it, or a system error (RC_CORRUPT: a record that
 *  does not decode). Thread: the validation thread. */
int chainstate_scan_coins(struct chainstate *cs, chainstate_coin_fn fn, void *ctx, uint64_t *count);
/** The coins store's estimate of the bytes its coin records take (gettxoutsetinfo's
 *  disk_size, Core's CCoinsViewDB::EstimateSize); 0 when it cannot tell. */
uint64_t chainstate_coins_disk_size(struct chainstate *cs);
/** The last storage failure's message met on the calling thread (the backend's own words,
 *  naming the store or its file; kv_last_error), "" when there was none. Meaningful right
 *  after a chainstate call on the same thread returned RC_BACKEND or RC_IO: an RPC method
 *  passes the cause on with its error instead of the bare rc_str. */
const char *chainstate_store_error(void);
int chainstate_utxo_stats(struct chainstate *cs, enum coins_stats_hash kind,
                          struct coins_stats *stats, uint8_t hash32[32]);

/* What a written UTXO snapshot holds (dumptxoutset's answer). */
struct chainstate_snapshot {
    uint64_t coins;
    uint8_t base_hash[32];
    int base_height;
    uint64_t chain_tx;         /* transactions up to and including the base block */
    uint8_t txoutset_hash[32]; /* hash_serialized_3 of the coins written */
};
/** dumptxoutset: flushes, then writes the UTXO set as it was at base (an ancestor of the
 *  tip, or the tip itself) to f in Core's snapshot format (coins/snapshot.h), *out describing
 *  it. Below the tip the set is copied into a temporary store, at temp_path (a directory,
 *  wiped first and removed after) or in memory when temp_path is NULL, and the blocks above
 *  base are disconnected there with their undo data; the chain itself is not touched.
 *  Returns 0, RC_INVALID (base is not on the active chain), RC_IO (a write failed),
 *  RC_CORRUPT (undo data that does not fit), or a store's error. Thread: the validation
 *  thread (the chain stands still meanwhile). */
/* ---- UTXO snapshots loaded (assumeutxo.c): Core's loadtxoutset and the background
 * chainstate that validates the blocks below the snapshot ---- */
struct snapshot_reader;
/** loadtxoutset, on the validation thread: checks the snapshot's base (a block the chain
 *  parameters vouch for, whose header is on the best header chain, with more work than the
 *  tip; mempool_txs, the pool's count, must be 0), reads the coins of r into a new store (chainstate_snapshot), checks their hash
 *  against the parameters', then makes them the active coins at the base while the old
 *  ones become the background chainstate. Returns 0 with *base, or RC_INVALID with Core's
 *  reason in err (the text after "Unable to load UTXO snapshot: "), or a system error. */
int chainstate_load_snapshot(struct chainstate *cs, struct snapshot_reader *r,
                             const uint8_t base_hash[32], uint64_t coins, size_t mempool_txs,
                             struct block_index **base, char *err, size_t err_len);
/** The validation thread, when nothing else waits: connects the background chainstate's
 *  next block if its data is here; at the snapshot's base, checks the background UTXO set's
 *  hash against the chain parameters' and drops the background chainstate. Returns 1 if it
 *  did something, 0 if there is nothing to do now, or an error (RC_CORRUPT: the snapshot
 *  did not validate; the node must stop). */
int chainstate_background_step(struct chainstate *cs);
/** The background chainstate's tip and target (the snapshot's base): 1 while there is one,
 *  else 0. Chain lock held. */
int chainstate_background_range(const struct chainstate *cs, struct block_index **tip,
                          struct block_index **target);
/** The snapshot the active coins came from: its base (NULL: none) and whether the
 *  background chainstate has validated it. Chain lock held. */
struct block_index *chainstate_snapshot_base(const struct chainstate *cs, int *validated);
/** getchainstates' cache sizes of the background chainstate (0 without one). */
void chainstate_background_cache_sizes(const struct chainstate *cs, size_t *db_bytes,
                                       size_t *tip_bytes);

int chainstate_write_snapshot(struct chainstate *cs, const struct block_index *base,
                              const char *temp_path, FILE *f, struct chainstate_snapshot *out);

/** 1 once chainstate_in_ibd has latched to 0 (it never goes back); lock-free, for callers
 *  that must not wait for the chain lock. */
int chainstate_left_ibd(const struct chainstate *cs);

/** Core's IsInitialBlockDownload: 1 while the tip has less than the minimum chain work or
 *  is older than -maxtipage; once 0 it stays 0 (latched). Caller holds the chain lock. */
int chainstate_in_ibd(struct chainstate *cs);

/** setmocktime: the clock header time checks and initial block download read (0: the real
 *  time). Any thread. */
void chainstate_set_mocktime(struct chainstate *cs, int64_t t);
/** What the mempool uses now (its DynamicMemoryUsage): the coins cache may grow into the
 *  rest of -maxmempool only (Core's rule). Any thread; the pool's owner calls it as the
 *  pool changes. */
void chainstate_set_mempool_usage(struct chainstate *cs, size_t bytes);
/** Core's TestBlockValidity: block b (parsed, hashes filled) as a child of the tip, by every
 *  rule, the proof of work only when check_pow, connected into a scratch view.
 *  Returns 0 (valid), RC_INVALID with st ("inconclusive-not-best-prevblk" when its parent is
 *  not the tip), or a system error. Thread: the validation thread (a VALIDATOR_CALL job). */
int chainstate_test_block(struct chainstate *cs, const struct block *b, int check_pow,
                          struct vstate *st);
/** The chainstate's clock in seconds: setmocktime's, or the real time. Any thread. */
int64_t chainstate_now(const struct chainstate *cs);

/** 1 once -stopatheight was reached. Any thread, without the lock. */
int chainstate_stop_requested(const struct chainstate *cs);
/* Asked between blocks while the best chain is being connected: nonzero stops connecting
 * (the chain so far stays; the next activation goes on). bitnoded passes its shutdown flag. */
typedef int (*chainstate_interrupt_fn)(void);

/** Sets (or with NULL clears) the interrupt activation asks between blocks. */
void chainstate_set_interrupt(struct chainstate *cs, chainstate_interrupt_fn fn);
/** 1 if the interrupt asks to stop connecting now. */
int chainstate_interrupted(const struct chainstate *cs);

/** on: activation connects only blocks on the best header chain (the most-work valid header
 *  known), leaving other branches for later; off: the best block with data, as always. An
 *  import that read its file's headers first connects while it reads the blocks, and still
 *  never connects a branch of the file that a later part of it beats (Core's -loadblock
 *  connects after the whole file, with the same result). */
void chainstate_set_best_header_only(struct chainstate *cs, int on);

/** Reads into the coins cache the outputs the block accept parsed last spends (unless the
 *  block creates them itself), so that connecting it finds them in memory: overlap work
 *  while the pool checks its parent. Changes nothing but what the cache holds.
 *  Returns 0 or a database error. */
int chainstate_prefetch_recent(struct chainstate *cs);

/* The warnings the chainstate raises (Core's kernel::Warning). */
enum chainstate_warning {
    CHAINSTATE_WARNING_UNKNOWN_RULES, /* "Unknown new rules activated (versionbit N)" */
    CHAINSTATE_WARNING_LARGE_WORK,    /* an invalid chain more than 6 blocks ahead of ours */
};

/* What the chainstate tells those who listen (Core's validation signals and kernel
 * notifications): the mempool's block hooks, RPC's waits, the indexes and the notifications
 * to come each add one. Every call is on the validation thread (or the thread driving the
 * chainstate) with the chain lock held for writing, so a listener must not take it, nor
 * wait for the validation thread; it may take locks below it in the lock order. Any member
 * may be NULL. */
struct chainstate_listener {
    /* The active tip changed (tip may be NULL: no chain yet). */
    void (*tip_changed)(void *ctx, const struct block_index *tip);
    /* b was connected to the active chain at e, after the tip moved to it. */
    void (*block_connected)(void *ctx, struct chainstate *cs, const struct block_index *e,
                            const struct block *b);
    /* b (at e) was disconnected from the active chain, after the tip moved off it. */
    void (*block_disconnected)(void *ctx, struct chainstate *cs, const struct block_index *e,
                               const struct block *b);
    /* The best header (most work, not failed) is now e. */
    void (*header_tip)(void *ctx, const struct block_index *e);
    /* A system error stopped validation for good (rc: the error; see validator.h). */
    void (*fatal_error)(void *ctx, int rc);
    /* The chain settled at tip after it changed (Core's UpdatedBlockTip and blockTip): once
     * per activation, not per block; ibd: still in initial block download. */
    void (*tip_settled)(void *ctx, const struct block_index *tip, int ibd);
    /* A chain warning raised with its text (Core's warningSet), or cleared (msg NULL). */
    void (*warning)(void *ctx, enum chainstate_warning id, const char *msg);
    void *ctx;
};
#define CHAINSTATE_MAX_LISTENERS 8

/** Adds a listener (copied; told in the order added). Call while no thread changes cs
 *  (before the validation thread starts, after it stopped). Returns 0, or RC_TOO_LARGE when
 *  CHAINSTATE_MAX_LISTENERS listen already. */
int chainstate_add_listener(struct chainstate *cs, const struct chainstate_listener *l);
/** Removes the listener equal to l (every member the same; same rule as adding). */
void chainstate_remove_listener(struct chainstate *cs, const struct chainstate_listener *l);
/** Tells the listeners of a fatal error (the validation thread, when it halts). */
void chainstate_notify_fatal(struct chainstate *cs, int rc);
/** Core's user message for the failure that is stopping validation (the text after "A fatal
 *  internal error occurred, see debug.log for details: "): for a stored block that does not
 *  read back, its file, position and the repair; "" when the failure has none. Set on the
 *  validation thread before it halts; read by its halt callback. */
const char *chainstate_fatal_message(const struct chainstate *cs);
/** The signature cache the check pool shares (NULL without -maxsigcachesize): loose
 *  transactions checked on acceptance fill it. */
struct sigcache *chainstate_sigcache(struct chainstate *cs);


/** The -assumevalid block (internal order): 1 with hash32 filled, or 0 when none. */
int chainstate_assume_valid(const struct chainstate *cs, uint8_t hash32[32]);

/** preciousblock: among blocks of equal work, treat this one as received first, then
 *  activate the best chain. 0, RC_NOT_FOUND, or a system error. */
int chainstate_precious_block(struct chainstate *cs, const uint8_t hash32[32]);

/** verifychain: checks the last nblocks of the active chain (0: all) at checklevel
 *  (0 read, 1 block rules, 2 undo data readable, 3 disconnect in memory and compare,
 *  4 reconnect). Touches nothing on disk. Returns 0 with *ok (1: sound; 0: corrupt; -1:
 *  stopped at a block without data, pruned: Core's SKIPPED_MISSING_BLOCKS), or a system
 *  error; *why (may be NULL) names the first problem with its block or undo file and
 *  position. Level 1 checks the witness commitment too (a flipped witness byte).
 *  *good_txs (may be NULL): the transactions of the blocks disconnected cleanly (Core's
 *  nGoodTransactions). */
int chainstate_verify(struct chainstate *cs, int checklevel, int nblocks, int *ok, char *why,
                      size_t why_len, uint64_t *good_txs);

/** If hash32 is one of the last CHAINSTATE_INVALID_RING (16) blocks found invalid while
 *  connecting, copies its verdict into *st and returns 1; else 0. */
int chainstate_last_invalid(const struct chainstate *cs, const uint8_t hash32[32],
                            struct vstate *st);

/** The chain lock for reading (a reader thread: RPC, the importer's lookups). The
 *  validation thread holds it for writing only while it changes something, at most one
 *  block's accept, connect step or flush at a time, so a reader waits at most that long.
 *  Not recursive: a reader never calls a function that changes the chainstate. Lock order:
 *  the chain lock, then the locks of the layers below and the tip callback's. */
void chainstate_read_lock(struct chainstate *cs);
void chainstate_read_unlock(struct chainstate *cs);

/** The reindex-in-progress flag kept in the block index store: set when a reindex starts,
 *  cleared when it has read every file, so that a reindex killed half way resumes. */
int chainstate_is_reindexing(struct chainstate *cs, int *reindexing);
int chainstate_set_reindexing(struct chainstate *cs, int reindexing);
/** 1 while a -reindex reads the block files again (the flag as the two above last saw it):
 *  blocks from peers are not taken meanwhile, since they would be written where the files
 *  are still being read (Core's LoadingBlocks). Any thread. */
int chainstate_reindexing_now(const struct chainstate *cs);
/** Core's GuessVerificationProgress: the share of the chain's transactions up to e, from
 *  the chain's transaction data (chain_params' chain_tx_*) and the clock (setmocktime's);
 *  within two hours of the clock, the blocks to the best header count at the target
 *  spacing. 0 without e's chain total. Chain lock held. */
double chainstate_guess_progress(struct chainstate *cs, const struct block_index *e);

/* ---- Pruning (doc/architecture.md, "Pruning") ---- */
#define CHAINSTATE_MAX_PRUNE_LOCKS 4

/** What getblockchaininfo shows of pruning. */
struct chainstate_prune_info {
    int prune_mode;        /* -prune given */
    int automatic;         /* a target, not -prune=1 */
    uint64_t target_bytes; /* the target, when automatic */
    int have_pruned;       /* any file was ever pruned */
    int32_t last_pruned;   /* Core's GetPruneHeight: the highest block of the active chain
                              below which (and at which) data or undo data is missing, the
                              genesis aside; -1 when every block has both, or when not in
                              prune mode (then not computed) */
};
/** Fills *info. Chain lock held (reading). */
void chainstate_prune_info(struct chainstate *cs, struct chainstate_prune_info *info);
/* Core's MIN_BLOCKS_TO_KEEP: no block file is pruned that holds a block this close to the
 * tip (pruneblockchain lowers its height to stay below it). */
#define MIN_BLOCKS_TO_KEEP 288

/** pruneblockchain: prunes the files whose blocks are all at or below height (kept
 *  MIN_BLOCKS_TO_KEEP below the tip by the caller) in a flush now. Returns 0 or a system
 *  error. Validation thread, or any thread while it does not write. */
int chainstate_prune_manual(struct chainstate *cs, int32_t height);
/** The tip height at or below which nothing is pruned (Core's PruneAfterHeight: the
 *  chain's; 100 on regtest with -fastprune). */
int32_t chainstate_prune_after_height(const struct chainstate *cs);
/** An index's prune lock (Core's m_prune_locks): blocks above height - 10 stay while it
 *  holds one. name is copied (up to 31 bytes); height -1 releases it. Any thread. Returns 0
 *  or RC_TOO_LARGE when CHAINSTATE_MAX_PRUNE_LOCKS are held. */
int chainstate_set_prune_lock(struct chainstate *cs, const char *name, int32_t height);
/** -dbcrashratio's crash point after a write of where (random_crash_point with the
 *  chainstate's ratio): the block store, the block index and every index call it after each
 *  write. Any thread. */
void chainstate_crash_point(const struct chainstate *cs, const char *where);
/** 1 if e's block was pruned (Core's IsBlockPruned: the node has pruned, the block's data
 *  was once there, and is not now). Chain lock held. */
int chainstate_block_pruned(const struct chainstate *cs, const struct block_index *e);

/** Bytes of blk and rev files (getblockchaininfo's size_on_disk). */
uint64_t chainstate_size_on_disk(const struct chainstate *cs);
/** The blocks/ directory. */
const char *chainstate_blocks_dir(const struct chainstate *cs);
/** The XOR key of the blk and rev files in it (borrowed; unchanged while cs is open). */
const struct obfuscation *chainstate_blocks_obfuscation(const struct chainstate *cs);

/* Counters for logs and benchmarks. */
struct chainstate_counters {
    uint64_t blocks_connected, txs_connected, inputs_checked, blocks_disconnected;
    uint64_t blocks_failed; /* stored blocks found invalid while connecting them */
    uint64_t blocks_assumed_valid; /* connected without script checks (-assumevalid) */
    uint64_t flushes;
    uint64_t connect_ns; /* the validation thread connecting blocks (begin, join, commit) */
    uint64_t overlap_ns; /* preparing the next block while one was open (the validator) */
    uint64_t overlap_pooled_ns; /* the part of it while the open block's scripts were on the
                                   pool */
    uint64_t first_begin_ns, last_finish_ns; /* time_mono_ns of the first connect_begin
                                                that began a block, and of the last finish */
    size_t coins_cache_bytes, coins_cache_limit;
    size_t coins_cache_peak; /* the most the coins cache held (checked before each flush) */
    uint64_t flush_ns;       /* in chainstate_flush writing coins and index */
    uint64_t last_commit_ns; /* time_mono_ns of the last block made the tip */
    uint64_t max_gap_ns;     /* the longest time between two blocks made the tip in a row */
    int max_gap_height;      /* the height of the block that ended it */
};
void chainstate_get_counters(const struct chainstate *cs, struct chainstate_counters *c);
/** getchainstates' coins_db_cache_bytes (the chainstate store's cache) and
 *  coins_tip_cache_bytes (the coins cache, without the mempool's unused share), set at open
 *  from -dbcache; a snapshot's background chainstate takes a tenth of the coins cache until
 *  it is validated. Under the chain lock (read). */
void chainstate_cache_sizes(const struct chainstate *cs, size_t *db_bytes, size_t *tip_bytes);

#endif
