/* The mempool's wiring: what keeps the pool and the fee estimator in step with the chain,
 * and their files (mempool.dat, fee_estimates.dat) at start and at shutdown. */
#ifndef BITNODE_NODE_MEMPOOL_H
#define BITNODE_NODE_MEMPOOL_H

#include "mempool/mempool.h"
#include "node/context.h"

struct fee_estimator;
struct validator;

/** The chainstate listener (blocks connected and disconnected: the pool and the estimator)
 *  and the pool's listener (the estimator, the chainstate's view of the pool's memory), over
 *  n's cs, mempool and fees (may be NULL). Call before the validation thread starts; n
 *  outlives both. Returns 0 or RC_TOO_LARGE (no listener slot). */
int node_mempool_hook(struct node_context *n);
/** Removes the chainstate listener (after the validation thread stopped). */
void node_mempool_unhook(struct node_context *n);

/** Loads datadir/fee_estimates.dat into fe (Core's: a file older than 60 hours is refused
 *  unless -acceptstalefeeestimates); logs what happened. */
void node_fees_load(struct fee_estimator *fe, const char *datadir, int accept_stale);
/** Counts the unconfirmed as failures and saves datadir/fee_estimates.dat (shutdown). */
void node_fees_save(struct fee_estimator *fe, const char *datadir);
/** Saves datadir/fee_estimates.dat as it is (Core's hourly FlushFeeEstimates, so that a
 *  crash loses at most an hour of estimates). fe NULL: no-op. */
void node_fees_write(struct fee_estimator *fe, const char *datadir);

/** Loads datadir/mempool.dat (when -persistmempool) on the validation thread; logs Core's
 *  line. */
void node_mempool_load(struct mempool *mp, struct validator *val, const char *datadir);

/** Saves mp to datadir/mempool.dat at shutdown (when -persistmempool and it was loaded). */
void node_mempool_dump(struct mempool *mp, const char *datadir, int version);

#endif
