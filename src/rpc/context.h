/* The RPC context's insides, for the files of src/rpc/ only: the dispatcher's state and what
 * the method groups answer from. bitnoded owns the context (rpc_context_new/free) and hands
 * it to the server; handlers reach it as req->ctx.
 *
 * Lock order: the chain's read lock (chainstate_read_lock), then node->tip.mu (the
 * validation thread takes it inside the chain's write lock, from the tip listener); warmup_mu
 * and active_mu are leaves (nothing else is taken while one is held). A handler never holds the
 * read lock while it waits for a validator job.
 */
#ifndef BITNODE_RPC_CONTEXT_H
#define BITNODE_RPC_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "node/context.h"
#include "rpc/jsonrpc.h"

struct active_cmd;

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

    /* The node's parts the handlers answer from (borrowed; the daemon fills it before
     * warm-up ends). */
    struct node_context *node;
    /* What the last assembled block held (getmininginfo), guarded by node->tip.mu. */
    int64_t last_block_weight, last_block_txs;
    int have_last_block;
    /* scanblocks: one scan at a time (Core's g_scanfilter_*): running, the abort flag, the
     * percent done and the height being scanned. */
    atomic_int scanblocks_running, scanblocks_abort, scanblocks_progress, scanblocks_height;
};

#endif
