/* The mempool's and the miner's options from the command line and bitcoin.conf (Core's
 * ApplyArgsManOptions for them), with Core's start-up errors. */
#ifndef BITNODE_NODE_MEMPOOL_ARGS_H
#define BITNODE_NODE_MEMPOOL_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"
#include "mempool/mempool.h"
#include "mempool/miner.h"
#include "node/context.h"
#include "util/args.h"

/** Fills o from the options ("Invalid amount for -minrelaytxfee=<amount>: 'x'", ...).
 *  max_mb: -maxmempool, already checked. Returns 0, or RC_INVALID with err filled. */
int node_mempool_options(struct mempool_options *o, const struct args *a,
                         const struct chain_params *p, int64_t max_mb, char *err, size_t err_len);

/** Fills o from -blockmaxweight, -blockreservedweight, -blockmintxfee and (regtest)
 *  -blockversion, with Core's start-up errors. Returns 0, or RC_INVALID with err. */
int node_miner_options(struct miner_options *o, const struct args *a, const struct chain_params *p,
                       char *err, size_t err_len);

/** -deprecatedrpc's mempool fields (fullrbf, bip125) and -persistmempoolv1's mempool.dat
 *  version, into n. */
void node_rpc_deprecated(struct node_context *n, const struct args *a);

#endif
