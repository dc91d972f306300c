/* bitnoded's mempool wiring: the policy options from the command line and bitcoin.conf, the
 * pool and its chainstate hooks, mempool.dat at start and at shutdown. */
#ifndef BITNODE_BITNODED_MEMPOOL_H
#define BITNODE_BITNODED_MEMPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"
#include "mempool/mempool.h"
#include "util/args.h"

struct chainstate;
struct validator;

/** Fills o from the options (Core's ApplyArgsManOptions for the mempool), with Core's
 *  start-up errors ("Invalid amount for -minrelaytxfee=<amount>: 'x'"). max_mb: -maxmempool
 *  already checked. Returns 0, or RC_INVALID with err filled. */
int node_mempool_options(struct mempool_options *o, const struct args *a,
                         const struct chain_params *p, int64_t max_mb, char *err, size_t err_len);

struct miner_options;
/** Fills o from -blockmaxweight, -blockreservedweight, -blockmintxfee and (regtest)
 *  -blockversion, with Core's start-up errors. Returns 0, or RC_INVALID with err. */
int node_miner_options(struct miner_options *o, const struct args *a,
                       const struct chain_params *p, char *err, size_t err_len);

struct fee_estimator;
/* What the hooks feed: the pool and the fee estimator (may be NULL). */
struct node_pool {
    struct mempool *mp;
    struct fee_estimator *fe;
    struct chainstate *cs;
};
/** The chainstate's block hooks and the pool's listener feeding np's pool and estimator (set
 *  before the validation thread starts; np must outlive both). */
void node_mempool_hook(struct node_pool *np);

/** Loads datadir/fee_estimates.dat into fe (Core's: a file older than 60 hours is refused
 *  unless -acceptstalefeeestimates); logs what happened. */
void node_fees_load(struct fee_estimator *fe, const char *datadir, int accept_stale);
/** Counts the unconfirmed as failures and saves datadir/fee_estimates.dat (shutdown). */
void node_fees_save(struct fee_estimator *fe, const char *datadir);

/** Loads datadir/mempool.dat (when -persistmempool) on the validation thread; logs Core's
 *  line. */
void node_mempool_load(struct mempool *mp, struct validator *val, const char *datadir);

/** Saves mp to datadir/mempool.dat at shutdown (when -persistmempool and it was loaded). */
void node_mempool_dump(struct mempool *mp, const char *datadir, int version);

#endif
