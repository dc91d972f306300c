/* The node's running parts in one place: what the daemon's start-up creates, in order, and
 * what RPC (and the REST and ZMQ interfaces to come) reach through one pointer. The daemon
 * owns the context and every handle in it. A handle is set before RPC's warm-up ends and
 * stays until the RPC server has stopped, so handlers read them without a lock; what may
 * change while the node runs has its own lock or is atomic (noted). */
#ifndef BITNODE_NODE_CONTEXT_H
#define BITNODE_NODE_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "consensus/params.h"
#include "mempool/miner.h"
#include "node/warnings.h"

struct args;
struct chainstate;
struct validator;
struct net;
struct mempool;
struct fee_estimator;
struct blockfilter_index;
struct coinstats_index;
struct txospender_index;
struct notify_zmq;

/* The active tip as the waits see it (Core's KernelNotifications' tip): written by the
 * chainstate listener node_notify_attach adds, on the validation thread under the chain
 * lock; read under mu. Lock order: the chain lock, then mu. */
struct node_tip {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* broadcast on every change */
    uint8_t hash[32];  /* guarded by mu */
    int height;        /* guarded by mu; -1 before the first tip */
};

struct scheduler;

struct node_context {
    const struct args *args;           /* the options, checked (borrowed) */
    const struct chain_params *params; /* the network (built in, or a custom signet's) */
    char net_dir[4096];                /* the datadir's chain subfolder */
    struct chainstate *cs;             /* the block index and the UTXO set */
    struct validator *val;             /* the validation thread: every change to cs */
    struct net *net;                   /* the P2P service, or NULL (not started, stopped) */
    struct scheduler *scheduler;       /* periodic jobs (the fee-estimate flush), or NULL */
    struct mempool *mempool;           /* the transaction pool, or NULL */
    struct fee_estimator *fees;        /* fee estimation, or NULL (-blocksonly) */
    struct blockfilter_index *blockfilters; /* -blockfilterindex's basic filters, or NULL */
    struct coinstats_index *coinstats;      /* -coinstatsindex, or NULL */
    struct txospender_index *spenders;      /* -txospenderindex, or NULL */
    struct notify_zmq *zmq;                 /* the -zmqpub* publishers, or NULL */
    struct locked_pool *locked;             /* memory for secrets (getmemoryinfo), or NULL */
    struct miner_options miner;        /* -blockmaxweight and friends */
    int mempool_dat_version;           /* 1 with -persistmempoolv1, else 2 */
    atomic_bool mempool_loaded;        /* mempool.dat's load finished (savemempool may write) */
    int deprecated_fullrbf, deprecated_bip125, deprecated_warnings; /* -deprecatedrpc's */
    struct node_tip tip;
    struct node_warnings warnings; /* the "warnings" of getblockchaininfo and friends */
    const char *blocknotify;       /* -blocknotify's command, or NULL (borrowed from args) */
    const char *alertnotify;       /* -alertnotify's command, or NULL (borrowed from args) */
};

/** Makes n empty: no handles, the miner's defaults, no tip yet. */
void node_context_init(struct node_context *n);
/** Releases what node_context_init made (not the handles: their owner frees them first). */
void node_context_clear(struct node_context *n);

/** Adds the chainstate listener that keeps n->tip (and wakes its waiters), runs
 *  -blocknotify when the tip settles out of initial block download, keeps the chainstate's
 *  warnings in n->warnings (running -alertnotify when one is raised), and records the
 *  current tip. n->cs is set; call while no thread changes it (before the validation thread
 *  starts). Returns 0 or RC_TOO_LARGE (no listener slot). */
int node_notify_attach(struct node_context *n);
/** Removes it (same rule: after the validation thread stopped). */
void node_notify_detach(struct node_context *n);

#endif
