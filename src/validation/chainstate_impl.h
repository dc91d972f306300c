/* The chainstate's private parts, shared by its files: chainstate.c (open, close, queries),
 * accept.c, activate.c (the pipeline's steps, best chain, invalidate), connect.c (one block),
 * flush.c and replay.c; and test/unit/connect_tests.c, which drives one block by hand. The
 * validator and the importer use chainstate.h only. */
#ifndef BITNODE_VALIDATION_CHAINSTATE_IMPL_H
#define BITNODE_VALIDATION_CHAINSTATE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "blockstore/blockstore.h"
#include "coins/undo.h"
#include "primitives/block.h"
#include "util/histo.h"
#include "validation/candidates.h"
#include "validation/chain.h"
#include "validation/chainstate.h"
#include "validation/checkqueue.h"
#include "validation/readahead.h"

struct sigcache;
struct txindex;
struct chain_assumeutxo;

/* The chainstate that validates the chain below a loaded UTXO snapshot (Core's historical
 * chainstate): its own coins store ("chainstate", the one the node had before the load), the
 * block it has connected up to, and the snapshot's base it heads for. The validation thread
 * connects its blocks when nothing else waits (assumeutxo.c); readers read it under the
 * chain lock. */
struct chainstate_background {
    struct kv *kv;
    struct coins_db *db;
    struct coins_cache *cache;
    size_t limit;              /* its cache's share of -dbcache: flushed past it (flush.c) */
    struct block_index *tip;   /* connected up to here */
    struct block_index *target; /* the snapshot's base */
    const struct chain_assumeutxo *au;
    uint64_t blocks;           /* connected in this run (the log's count) */
};

/* Three kinds of field: fixed at open; what readers see (changed by the validation thread
 * under the write lock, read by others under the read lock); and the validation thread's
 * own (no reader touches them, so it needs no lock for them). */
#define CHAINSTATE_INVALID_RING 16

struct chainstate {
    /* The chain lock: the validation thread takes it for writing around each change; readers
     * (RPC, the importer's lookups) for reading. Never held while waiting for the check pool
     * or for a job. Lock order: this lock, then the locks of the layers below (blockstore's,
     * the check pool's, a tip callback's). */
    pthread_rwlock_t lock;

    /* ---- fixed at open (chainstate.c) ---- */
    const struct chain_params *p;
    struct chainstate_options opt;
    char datadir[4096];
    char blocks_dir[4200];
    struct kv *index_kv, *coins_kv;
    size_t coins_limit;   /* with all of -maxmempool: less what the pool uses (mempool_used) */
    size_t dbcache_total; /* -dbcache: coins cache + database caches */
    size_t coins_db_cache; /* of it, the chainstate store's own cache */
    _Atomic size_t mempool_used; /* the pool's usage, as its owner last reported it */
    /* Per-block timings for the close's summary (activate.c; the validation thread's). */
    struct histo connect_hist, gap_hist;
    uint64_t last_gap_ns; /* before the block committed last */
    /* Script checks: the check pool and the signature cache its workers share. */
    struct checkqueue *checkq;
    struct sigcache *sigcache;
    uint8_t assume_valid[32]; /* -assumevalid or the chain's default; zero: none */
    int have_assume_valid;
    /* The reason last logged for checking scripts or not (connect.c; validation thread). */
    int script_reason_logged;
    const char *last_script_reason;
    struct chainstate_listener listeners[CHAINSTATE_MAX_LISTENERS]; /* set while nothing else
                                                                        runs */
    size_t n_listeners;
    int64_t max_tip_age;      /* -maxtipage */
    atomic_int left_ibd;      /* chainstate_in_ibd latched */
    _Atomic int64_t mocktime; /* setmocktime (0: real time); any thread */
    atomic_int reindexing;    /* the block index's reindex flag, as last read or written */
    /* What each index still needs (chainstate_set_prune_lock, any thread); a leaf lock. */
    pthread_mutex_t prune_lock_mu;
    struct {
        char name[32]; /* empty: a free slot */
        int32_t height;
    } prune_locks[CHAINSTATE_MAX_PRUNE_LOCKS];
    _Atomic int32_t manual_prune_height; /* pruneblockchain's, for the next flush (0: none) */
    chainstate_interrupt_fn interrupt;

    /* ---- what readers see: written under the write lock ---- */
    struct block_tree *tree;   /* accept.c adds, activate.c marks */
    struct blockstore *store;  /* accept.c stores blocks, activate.c undo data */
    struct coins_db *coins_db;
    struct coins_cache *coins; /* connect steps, prefetch, flush */
    struct active_chain active; /* the active chain (chainstate_set_tip) */
    struct block_index *best_header;
    atomic_int stop_requested; /* -stopatheight reached (atomic: read without the lock) */
    /* The verdicts of the blocks that failed to connect last (a ring; submitblock and the
     * punishment of their senders read them). */
    struct {
        uint8_t hash[32];
        struct vstate st;
    } invalid_ring[CHAINSTATE_INVALID_RING];
    unsigned invalid_next;
    /* The invalid block with the most work whose data is stored (Core's m_best_invalid:
     * set where blocks are marked invalid; the large-work warning compares it with the tip);
     * NULL: none, or it was reconsidered. */
    struct block_index *best_invalid;
    /* The tip the listeners were last told settled (warnings.c); the validation thread's. */
    const struct block_index *settled_tip;
    /* The unknown-versionbits states per period of the active chain (warnings.c). */
    struct vbwarn_cache {
        size_t n, cap;
        const struct block_index **boundary; /* the last block before period p (NULL: p 0) */
        uint8_t (*state)[5];                 /* enum bip9_state of bits 0..4 in period p */
    } vbwarn;
    int large_work_warned; /* the large-work warning is raised (warnings.c) */
    int reorg_pending;     /* a block was disconnected since the chain last settled */
    int have_pruned;   /* a file was ever pruned ('P' in the block index); flush.c sets it */
    /* A UTXO snapshot (assumeutxo.c): the active coins came from one whose base is
     * snapshot_base (NULL: none, or one validated and cleaned up at an earlier start);
     * bg validates the blocks below it (NULL once done: snapshot_validated). */
    struct block_index *snapshot_base;
    struct chainstate_background *bg;
    int snapshot_validated;
    int snapshot_invalid; /* its background check failed: renamed away at the close */
    struct txindex *txindex;          /* NULL without -txindex */
    struct block_index *txindex_best; /* how far the stored index is complete */
    struct chainstate_counters counters;

    /* ---- the validation thread's own ---- */
    /* The blocks that could become the tip, those waiting for an ancestor's data, and the
     * one the chain heads for (candidates.h): accept.c adds, activate.c chooses. */
    struct candidates cand;
    int best_header_only; /* connect only along the best header chain (an import reading) */
    int64_t precious_sequence; /* decreasing: preciousblock ranks ahead of arrivals */
    /* Index entries to write at the next flush (flush.c). */
    struct block_index **dirty;
    size_t ndirty, capdirty;
    int64_t last_flush_time;
    /* The block accept parsed last (or prepare read), kept for the connect that follows. */
    struct block recent;
    int have_recent;
    int recent_read; /* recent was read from the block files, not accepted just now */
    /* Core's words for the failure that stops validation, or empty: "Failed to disconnect
     * block."; a stored block that does not read back names its file, position and the
     * repair (chainstate_fatal_message). */
    char fatal_msg[512];
    struct readahead *ra; /* reads the stored blocks to connect next (readahead.h) */
    struct readahead_coins ra_coins; /* the coins it read for the block taken last */
    uint64_t ra_db_reads;            /* the store's reads when the last block was taken */
    uint64_t ra_primed, ra_stale;    /* its coins put in the cache; sets dropped (a flush) */
    /* Coins read from the store at this write epoch or later are still what it holds,
     * where the coins cache has no entry (its frozen generation included): the epoch after
     * the last synchronous coins write, or at the last freeze (flush.c). */
    uint64_t coins_stable_epoch;
    uint64_t prefetch_db_reads;      /* the store's reads after the last prefetch (accept.c) */
    struct {
        uint64_t inputs_checked, blocks_assumed_valid;
    } scratch; /* counted by chainstate_block_finish without the lock, moved into counters
                  when the block is committed */
    struct {
        int64_t time;
        uint64_t blocks, txs;
    } last_log;
};

/* chainstate.c */
void chainstate_mark_dirty(struct chainstate *cs, struct block_index *e);
/* Reads e's stored block into b. 0; or RC_NOT_FOUND (no data), RC_CORRUPT (does not
 * parse, or is another block), RC_IO: then b is empty and cs->fatal_msg names the file,
 * the position and the repair (logged). */
int chainstate_load_block(struct chainstate *cs, const struct block_index *e, struct block *b);

/* accept.c */
/** Stores the genesis block if the index lacks it. */
int chainstate_ensure_genesis(struct chainstate *cs);
/** Makes e the best header if it has more work than the best (and is not failed). */
void chainstate_note_header(struct chainstate *cs, struct block_index *e);

/* chainstate.c */
/** A block at height + 1 was disconnected: the prune locks above height come down to it
 *  (Core's DisconnectTip), so that the blocks an index must rewind through stay. */
void chainstate_prune_locks_moved_back(struct chainstate *cs, int32_t height);
/** Makes tip the active tip (NULL: empty chain), rewriting the active chain array. */
void chainstate_set_tip(struct chainstate *cs, struct block_index *tip);

/** Indexes the active blocks the transaction index lacks and writes it. */
int chainstate_txindex_catch_up(struct chainstate *cs);

/** -assumevalid (Core's ConnectBlock): 1 if the script checks of e (about to be connected)
 *  may be skipped: e is an ancestor of the assumed-valid block and of the best header, the
 *  best header has the chain's minimum work, and more than two weeks' worth of work lies on
 *  top of e. Every other rule is still checked. */
int chainstate_assume_scripts_valid(struct chainstate *cs, struct block_index *e);

/** Why the scripts of e (about to be connected) are checked, in Core's words ("assumevalid=0
 *  (always verify)", "block not in assumevalid chain", ...), or NULL when -assumevalid lets
 *  them be skipped (the conditions above). The string is static. */
const char *chainstate_script_check_reason(struct chainstate *cs, struct block_index *e);

/* activate.c */
/* bad is invalid: marks it and everything built on it (none of it may be connected), and
 * moves the best header to the most-work header still valid. */
void chainstate_mark_invalid(struct chainstate *cs, struct block_index *bad);

/* warnings.c */
/** The chain settled (nothing better to connect): when its tip is not the one told last,
 *  checks the warnings (unknown versionbits out of initial block download, an invalid chain
 *  with far more work) and tells the listeners' tip_settled. Chain lock held for writing. */
void chainstate_tip_settled(struct chainstate *cs);

/* flush.c */
/** chainstate_flush with the chain lock held for writing. */
int chainstate_flush_locked(struct chainstate *cs, enum chainstate_flush_mode mode);

/* prune.c */
#define PRUNE_LOCK_BUFFER 10   /* an index keeps this many blocks below its best */

/* The blk/rev files a flush is to delete. */
struct prune_set {
    int *files;
    int n;
};
/** Chooses the files to prune (Core's FindFilesToPrune, or FindFilesToPruneManual when
 *  manual > 0: every file whose blocks are all at or below manual, kept MIN_BLOCKS_TO_KEEP
 *  below the tip), never the file being written nor above a prune lock. *s is filled (empty
 *  when there is nothing to prune); free it with prune_set_clear. Chain lock held. */
void chainstate_prune_find(struct chainstate *cs, int32_t manual, struct prune_set *s);
/** Prunes the files of s: clears HAVE_DATA and HAVE_UNDO of every entry stored in them
 *  (marked dirty), empties their infos and queues them for unlinking. Chain lock held for
 *  writing; the caller writes the block index, then blockstore_unlink_pruned. */
void chainstate_prune_apply(struct chainstate *cs, const struct prune_set *s);
void prune_set_clear(struct prune_set *s);
/* flush.c: Core's debug line for a pruned file pair deleted (a blockstore_unlink_fn). */
void chainstate_log_unlinked(void *ctx, int n);

/* connect.c */
/* A block begun and not yet finished (connect.c's). */
struct chainstate_block_connect;
/** The first half of connecting block b (entry e, a child of the tip) into view: BIP30, the
 *  inputs spent into undo, sigops, the coinbase amount; the scripts handed to the check pool.
 *  view, undo and st must stay until chainstate_block_finish.
 *  Returns 0 with *out (finish it), RC_INVALID with the verdict, or a system error (no *out:
 *  undo is cleared). */
int chainstate_block_begin(struct chainstate *cs, struct block_index *e, const struct block *b,
                           struct coins_cache *view, struct block_undo *undo, struct vstate *st,
                           struct chainstate_block_connect **out);
/** Abandons c (a block begun that will not be finished): the pool's block is cancelled and
 *  c freed. */
void chainstate_block_cancel(struct chainstate *cs, struct chainstate_block_connect *c);
/** 1 if c's scripts are on the check pool. */
int chainstate_block_pooled(const struct chainstate_block_connect *c);
/** The second half: joins the check pool for b's scripts (or checks them here without one)
 *  and frees c. Needs no chain lock. Returns 0, RC_INVALID with the first failing input in
 *  block order, or a system error (undo is cleared on any failure). */
int chainstate_block_finish(struct chainstate *cs, struct chainstate_block_connect *c,
                            struct vstate *st);
/** Writes e's undo data to the block store (unless e is the genesis block or has some
 *  already) and records where. Chain lock held for writing. 0 or a system error. */
int chainstate_store_undo(struct chainstate *cs, struct block_index *e,
                          const struct block_undo *undo);
/** Connects block b (entry e, a child of the tip) into view, filling undo: begin then finish.
 *  Returns 0 with st VALID, RC_INVALID with the verdict, or a system error. */
int chainstate_connect_block(struct chainstate *cs, struct block_index *e, const struct block *b,
                     struct coins_cache *view, struct block_undo *undo, struct vstate *st);
/** Undoes block b (entry e, the tip) in view with its undo data.
 *  With unclean (a replay after a flush cut short, Core's DISCONNECT_UNCLEAN), outputs that
 *  are missing or differ are passed over: the block's effects may have been written only in
 *  part, and removing and restoring coins are idempotent.
 *  Returns 0, or RC_CORRUPT / a system error (undo data that does not fit is corruption). */
int chainstate_disconnect_block(struct chainstate *cs, struct block_index *e, const struct block *b,
                                const struct block_undo *undo, struct coins_cache *view,
                                int unclean);

/** Adds tx's spendable outputs to view as coins at height (unspendable ones are dropped);
 *  possible_overwrite as coins_cache_add's. Returns 0 or a system error. */
int chainstate_add_outputs(struct coins_cache *view, const struct tx *tx, int height, int coinbase,
                           int possible_overwrite);

/* assumeutxo.c */
/** At open, before the stores: the directories a snapshot leaves (Core's names): a
 *  chainstate_todelete is removed; a chainstate_snapshot is removed for -reindex or
 *  -reindex-chainstate and when it has no base_blockhash (a load cut short), and becomes
 *  the chainstate when the background chainstate was validated and removed. 0, or an error
 *  with err filled. */
int chainstate_snapshot_prepare(struct chainstate *cs, char *err, size_t err_len);
/** At open, after the stores: with an active snapshot, the chainstate_snapshot store becomes
 *  the active coins and the chainstate store the background one. 0, or an error with err. */
int chainstate_snapshot_open(struct chainstate *cs, size_t coins_db_cache, char *err,
                             size_t err_len);
/** The background chainstate's stores closed (flushed before by the caller): at the close,
 *  and once it has validated the snapshot. At the close (the active coins' store closed
 *  before), a snapshot that failed its check is renamed chainstate_snapshot_INVALID. */
void chainstate_snapshot_close(struct chainstate *cs);

/* replay.c */
/** Core's ReplayBlocks: brings the coins store, left between old32 and new32 by a flush cut
 *  short (coins_db_head_blocks), to new32: the blocks from old32 back to the fork point are
 *  undone (unclean), those from there to new32 applied again, and the result flushed whole.
 *  Returns 0, or RC_CORRUPT with err filled (an end unknown to the block index, unreadable
 *  block or undo data), or a system error. */
int chainstate_replay_blocks(struct chainstate *cs, const uint8_t new32[32],
                             const uint8_t old32[32], char *err, size_t err_len);

#endif
