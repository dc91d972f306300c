/* The transaction pool (Bitcoin Core's CTxMemPool with its cluster limits): unconfirmed
 * transactions that passed acceptance (mempool_accept, accept.h), indexed by txid, wtxid and
 * the outpoints they spend, linked to their in-pool parents and children, grouped into
 * clusters (connected components) that are linearized and chunked for mining, eviction and
 * replacement, bounded by -maxmempool with a rolling minimum fee rate, and expired after
 * -mempoolexpiry.
 *
 * Thread: one writer, the validation thread (acceptance and the block hooks run there), which
 * takes the pool's lock for writing around each change; readers (RPC, net, the miner) take it
 * for reading and may then use every const accessor and the entries they return until they
 * unlock. Lock order: the chain lock (chainstate_read_lock), then this lock.
 */
#ifndef BITNODE_MEMPOOL_MEMPOOL_H
#define BITNODE_MEMPOOL_MEMPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/amount.h"
#include "primitives/tx.h"

struct mempool_options {
    int64_t max_size_bytes;      /* -maxmempool (MB) * 1,000,000: the bound on memory use */
    int64_t expiry_s;            /* -mempoolexpiry (hours) * 3600 */
    int64_t min_relay_feerate;   /* -minrelaytxfee, sat/kvB */
    int64_t incremental_feerate; /* -incrementalrelayfee, sat/kvB */
    int64_t dust_relay_feerate;  /* -dustrelayfee, sat/kvB */
    int64_t max_datacarrier;     /* -datacarriersize; -1 with -datacarrier=0 */
    int permit_bare_multisig;    /* -permitbaremultisig */
    int require_standard;        /* !-acceptnonstdtxn */
    unsigned bytes_per_sigop;    /* -bytespersigop */
    unsigned cluster_count;      /* -limitclustercount */
    int64_t cluster_size_vbytes; /* -limitclustersize (kvB) * 1000 */
    int persist;                 /* -persistmempool */
};

/** Core's defaults for a chain where standardness is required. */
void mempool_options_default(struct mempool_options *o);

/* One transaction in the pool. Read-only to everyone but the pool; valid under the lock. */
struct mempool_entry {
    struct tx tx; /* the transaction (owned by the pool) */
    uint8_t *raw; /* its serialization with witness */
    size_t raw_len;
    int64_t fee;        /* base fee, sat */
    int64_t delta;      /* prioritisetransaction's fee delta, sat */
    int64_t vsize;      /* sigop-adjusted virtual size */
    int64_t weight;     /* BIP141 weight */
    int64_t adj_weight; /* sigop-adjusted weight: what chunks, mining and eviction count */
    int64_t sigop_cost;
    int64_t time;      /* when it entered, seconds since the epoch */
    int32_t height;    /* the tip's height when it entered */
    uint64_t sequence; /* the pool's entry sequence when it entered */
    int spends_coinbase;
    int bypassed;        /* entered without the fee floors (a disconnected block's) */
    struct mempool_entry **parents; /* in-pool transactions it spends */
    size_t nparents, capparents;
    struct mempool_entry **children; /* in-pool transactions spending it */
    size_t nchildren, capchildren;
    /* The pool's: its slot in the entry array, a traversal mark, its cluster's chunk. */
    size_t slot_;
    uint64_t mark_;
    uint64_t lin_epoch_; /* the cluster linearization this chunk data belongs to */
    int64_t chunk_fee_, chunk_weight_;
    size_t chunk_id_, lin_pos_;
};

static inline int64_t mempool_entry_modified_fee(const struct mempool_entry *e)
{
    return amount_add_saturating(e->fee, e->delta);
}

/* Why a transaction left the pool (Core's MemPoolRemovalReason). */
enum mempool_removal {
    MEMPOOL_REMOVED_EXPIRY,
    MEMPOOL_REMOVED_SIZELIMIT,
    MEMPOOL_REMOVED_REORG,
    MEMPOOL_REMOVED_BLOCK,
    MEMPOOL_REMOVED_CONFLICT,
    MEMPOOL_REMOVED_REPLACED,
};

/* Told of every entry added and removed (on the validation thread, write lock held; must not
 * call back into the pool). seq: the mempool sequence the change took (Core's
 * GetAndIncrementSequence: the ZMQ sequence topic's number; getrawmempool's mempool_sequence
 * is the next one). */
struct mempool_listener {
    void (*added)(void *ctx, const struct mempool_entry *e, uint64_t seq);
    void (*removed)(void *ctx, const struct mempool_entry *e, enum mempool_removal why,
                    uint64_t seq);
    void *ctx;
};
#define MEMPOOL_MAX_LISTENERS 4

struct mempool;

/** Creates an empty pool. Caller frees. */
struct mempool *mempool_new(const struct mempool_options *opt);
/** Frees the pool and every entry (NULL: no-op). */
void mempool_free(struct mempool *mp);
/** Adds a listener, told after those added before it (before any other thread uses the
 *  pool). Returns 0, or RC_TOO_LARGE when MEMPOOL_MAX_LISTENERS listen already. */
int mempool_add_listener(struct mempool *mp, const struct mempool_listener *l);
const struct mempool_options *mempool_options(const struct mempool *mp);

void mempool_read_lock(struct mempool *mp);
void mempool_read_unlock(struct mempool *mp);
/* The validation thread's, around each change. */
void mempool_write_lock(struct mempool *mp);
void mempool_write_unlock(struct mempool *mp);

/* ---- reading (the lock held, or the validation thread) ---- */
size_t mempool_count(const struct mempool *mp);
/** Sum of the entries' vsize (getmempoolinfo's "bytes"). */
int64_t mempool_total_vsize(const struct mempool *mp);
/** Approximate memory the entries use (getmempoolinfo's "usage"). */
int64_t mempool_usage(const struct mempool *mp);
/** What entry e counts for in mempool_usage() (Core's DynamicMemoryUsage of one entry). */
int64_t mempool_entry_usage(const struct mempool_entry *e);
int64_t mempool_total_fee(const struct mempool *mp);
/** The entries, in no particular order: borrowed, *n of them. */
struct mempool_entry *const *mempool_entries(const struct mempool *mp, size_t *n);
struct mempool_entry *mempool_get(const struct mempool *mp, const uint8_t txid32[32]);
struct mempool_entry *mempool_get_wtxid(const struct mempool *mp, const uint8_t wtxid32[32]);
/** The entry spending op, or NULL. */
struct mempool_entry *mempool_spender(const struct mempool *mp, const struct outpoint *op);
/** The entry sequence the next transaction gets: every entry now has a lower one (except
 *  disconnected blocks' transactions, which have 0). Net's announcement mark. */
uint64_t mempool_next_entry_sequence(const struct mempool *mp);
/** Counter of additions and removals (getrawmempool's mempool_sequence: the number the next
 *  change takes; Core's m_sequence_number, from 1). */
uint64_t mempool_sequence(const struct mempool *mp);
/** Counter of changes a block template depends on: additions, removals and priority
 *  changes (Core's nTransactionsUpdated; getblocktemplate's long poll). */
uint64_t mempool_transactions_updated(const struct mempool *mp);
/** Core's GetMinFee: the rolling minimum fee rate (sat/kvB) raised by evictions, decaying with
 *  a 12-hour half-life (faster while the pool is small); 0 when nothing was evicted. now: s.
 *  Validation thread only (the decay is stored). */
int64_t mempool_min_fee(struct mempool *mp, int64_t now);
/** The last value mempool_min_fee computed. */
int64_t mempool_min_fee_cached(const struct mempool *mp);
/** mempool_min_fee at now without storing the decay: for readers (the lock held). */
int64_t mempool_min_fee_at(const struct mempool *mp, int64_t now);

/** In-pool ancestors (all_ancestors) or descendants of e, e excluded: a new array (caller
 *  frees) of *n entries. */
struct mempool_entry **mempool_ancestors(struct mempool *mp, const struct mempool_entry *e,
                                         size_t *n);
struct mempool_entry **mempool_descendants(struct mempool *mp, const struct mempool_entry *e,
                                           size_t *n);
/** Sums over e and its ancestors (or descendants): count, vsize, modified fees. */
void mempool_ancestor_sums(struct mempool *mp, const struct mempool_entry *e, int64_t *count,
                           int64_t *vsize, int64_t *fees);
void mempool_descendant_sums(struct mempool *mp, const struct mempool_entry *e, int64_t *count,
                             int64_t *vsize, int64_t *fees);
/** The chunk e belongs to in its cluster's linearization: its fees and sigop-adjusted
 *  weight. */
void mempool_chunk(struct mempool *mp, struct mempool_entry *e, int64_t *fee, int64_t *weight);

/** The cluster of e (e's connected component) in its linearization's order: a new array of
 *  *n entries (caller frees). Readers (no marks used). */
struct mempool_entry **mempool_cluster(const struct mempool *mp, const struct mempool_entry *e,
                                       size_t *n);

/** The pool's mining order (Core's CompareMainOrder): <0 when a is mined before b (its
 *  chunk's fee rate higher, or the same chunk and earlier in the linearization), so an
 *  ancestor before its descendants. Readers. */
int mempool_mining_cmp(const struct mempool_entry *a, const struct mempool_entry *b);

/* A chunk of a linearized cluster: txs in mining order, with their sums. */
struct mempool_chunk {
    struct mempool_entry **txs;
    size_t n;
    int64_t fee, weight; /* weight: sigop-adjusted */
};
/** Every chunk of the pool, in mining order (highest fee rate first; a cluster's chunks in
 *  their order): a new array of *n chunks (free with mempool_chunks_free). */
struct mempool_chunk *mempool_all_chunks(struct mempool *mp, size_t *n);
void mempool_chunks_free(struct mempool_chunk *c, size_t n);

/* The unbroadcast set (Core's m_unbroadcast_txids): transactions submitted locally that no
 * peer has asked for yet. Any thread (its own leaf lock). */
void mempool_unbroadcast_add(struct mempool *mp, const uint8_t txid32[32]);
void mempool_unbroadcast_remove(struct mempool *mp, const uint8_t txid32[32]);
int mempool_unbroadcast_has(struct mempool *mp, const uint8_t txid32[32]);
size_t mempool_unbroadcast_count(struct mempool *mp);
/** A copy of the set: a new array of *n txids (caller frees). */
uint8_t (*mempool_unbroadcast_list(struct mempool *mp, size_t *n))[32];

/** Compares fee rates a = fa/sa and b = fb/sb (sizes > 0): <0, 0, >0. */
int mempool_feerate_cmp(int64_t fa, int64_t sa, int64_t fb, int64_t sb);

/* ---- changing (the validation thread, write lock held) ---- */
/** Adds a new entry built from the fields of *proto (tx and raw: ownership passes; parents
 *  found from the pool, children already in it linked). Returns the entry. */
struct mempool_entry *mempool_add(struct mempool *mp, struct mempool_entry *proto);
/** Removes e and all its descendants. */
void mempool_remove_with_descendants(struct mempool *mp, struct mempool_entry *e,
                                     enum mempool_removal why);
/** Removes the transactions of a connected block and those that conflict with them. */
void mempool_remove_for_block(struct mempool *mp, const struct tx *txs, size_t n, int64_t now);
/** Removes entries older than now - expiry. Returns how many went. */
size_t mempool_expire(struct mempool *mp, int64_t now);
/** Evicts the lowest fee rate chunks until the pool's usage is within its bound, raising the
 *  rolling minimum fee. Fills *evicted_any. */
void mempool_trim(struct mempool *mp, int64_t now, int *evicted_any);
/** Adds delta to the fee delta of txid (kept for a transaction not in the pool yet, as Core's
 *  mapDeltas). */
void mempool_prioritise(struct mempool *mp, const uint8_t txid32[32], int64_t delta);
/** The delta set for txid (0 if none). */
int64_t mempool_delta(const struct mempool *mp, const uint8_t txid32[32]);
/** The deltas set: *n (txid, delta) pairs, a new array the caller frees. */
struct mempool_delta {
    uint8_t txid[32];
    int64_t delta;
};
struct mempool_delta *mempool_deltas(const struct mempool *mp, size_t *n);

/** The clusters the given entries belong to, with the sigop-adjusted weight and count they
 *  would have if a transaction of adj_weight with in-pool parents `parents` were added and
 *  the entries in `removed` taken out: 1 if within the limits (the weight within 4 x
 *  -limitclustersize, as Core's txgraph). */
int mempool_cluster_within_limits(struct mempool *mp, struct mempool_entry *const *parents,
                                  size_t nparents, struct mempool_entry *const *removed,
                                  size_t nremoved, int64_t adj_weight);

/* Core's MAX_DISCONNECTED_TX_POOL_BYTES: the memory a reorganisation's returning
 * transactions may take before the most recently confirmed of them are dropped. */
#define MEMPOOL_MAX_DISCONNECTED_BYTES 20000000

/** Queues the transactions of a disconnected block (txs[0..n), the coinbase first and left
 *  out) as Core's DisconnectedBlockTransactions does, and drops the earliest queued while
 *  their memory is over MEMPOOL_MAX_DISCONNECTED_BYTES: a dropped one already back in the
 *  pool leaves it with its descendants, one of this block gets skip[i] = 1 (not to come
 *  back). skip has n slots. */
void mempool_reorg_queue(struct mempool *mp, const struct tx *txs, size_t n, uint8_t *skip);
/** Empties the queue (a block was connected: the reorganisation is over). Cheap. */
void mempool_reorg_done(struct mempool *mp);
/** Core's TxGraph::Trim after a reorganisation: each cluster of the transactions txs[0..n)
 *  over -limitclustercount or -limitclustersize keeps, best chunk fee rate first and parents
 *  before children, what fits; the rest leave (size limit). Returns how many left. */
size_t mempool_trim_clusters(struct mempool *mp, const struct tx *txs, size_t n);

/** The number of distinct clusters the entries v[0..n) belong to (writer only). */
size_t mempool_count_clusters(struct mempool *mp, struct mempool_entry *const *v, size_t n);

/** Core's ImprovesFeerateDiagram: 1 if removing `removed` (a conflict set with all their
 *  descendants) and adding a transaction of fee (modified) and sigop-adjusted weight with
 *  in-pool parents `parents` makes the fee-rate diagram of the clusters involved strictly better.
 */
int mempool_rbf_improves(struct mempool *mp, struct mempool_entry *const *removed, size_t nremoved,
                         struct mempool_entry *const *parents, size_t nparents, int64_t fee,
                         int64_t weight);

#endif
