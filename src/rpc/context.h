/* The RPC context's insides, for the files of src/rpc/ only: the dispatcher's state and what
 * the method groups answer from. bitnoded owns the context (rpc_context_new/free) and hands
 * it to the server; handlers reach it as req->ctx.
 *
 * Lock order: the chain's read lock (chainstate_read_lock), then tip_mu (the validation
 * thread takes it inside the chain's write lock, from the tip callback); warmup_mu and
 * active_mu are leaves (nothing else is taken while one is held). A handler never holds the
 * read lock while it waits for a validator job.
 */
#ifndef BITNODE_RPC_CONTEXT_H
#define BITNODE_RPC_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "mempool/miner.h"
#include "rpc/jsonrpc.h"

struct chainstate;
struct validator;
struct net;
struct mempool;
struct active_cmd;
struct fee_estimator;

struct rpc_context {
    /* The method table: filled before the server starts, read-only after. */
    const struct rpc_method **methods;
    size_t n_methods;
    bool doccheck; /* -rpcdoccheck; set before the server starts */

    pthread_mutex_t warmup_mu;
    bool warmup_active;     /* guarded by warmup_mu */
    char warmup_status[256]; /* guarded by warmup_mu */

    pthread_mutex_t active_mu;
    struct active_cmd *active_head; /* guarded by active_mu */

    /* Control: when `uptime` counts from (set at creation). */
    int64_t start_time_s;

    /* Blockchain: the chainstate the handlers answer from (borrowed; set before warm-up
     * ends, read-only after). */
    struct chainstate *cs;
    struct validator *val; /* the chainstate's owner: changes go to it as jobs */
    struct net *net;       /* the P2P service (set before warm-up ends), or NULL */
    struct mempool *mempool; /* the transaction pool (set before warm-up ends), or NULL */
    atomic_bool mempool_loaded; /* mempool.dat's load attempt finished */
    int mempool_dat_version;    /* 1 with -persistmempoolv1, else 2 */
    char datadir_net[4096];     /* the chain's data directory (mempool.dat lives there) */
    struct miner_options miner; /* -blockmaxweight and friends (set before the server starts) */
    /* What the last assembled block held (getmininginfo), guarded by tip_mu. */
    int64_t last_block_weight, last_block_txs;
    int have_last_block;
    /* -deprecatedrpc: the deprecated fields turned back on (set before the server starts). */
    int deprecated_fullrbf, deprecated_bip125;
    /* Fee estimation (mempool/fees.h; borrowed, thread-safe on its own), set before warm-up
     * ends, or NULL: the fee methods then answer as an estimator that has seen nothing. */
    struct fee_estimator *fees;

    /* The latest tip, for waitfornewblock and friends: the chainstate's tip callback writes
     * it; waiting needs a plain mutex and a condition variable, not the chain lock. */
    pthread_mutex_t tip_mu;
    pthread_cond_t tip_cv;
    uint8_t tip_hash[32]; /* guarded by tip_mu */
    int tip_height;       /* guarded by tip_mu; -1 before the first tip */
};

#endif
