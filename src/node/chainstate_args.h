/* The chainstate's options from the command line and bitcoin.conf: -dbcache, -par,
 * -maxsigcachesize, -assumevalid, -reindex, -txindex, -maxmempool (its part of the coins
 * cache), the -db* test and tuning options, with Core's start-up errors. */
#ifndef BITNODE_NODE_CHAINSTATE_ARGS_H
#define BITNODE_NODE_CHAINSTATE_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/params.h"
#include "util/args.h"
#include "validation/chainstate.h"

/** -maxmempool in MB (Core's rule: 0, or at least 40 clusters of 101 kvB, at most 1 TiB).
 *  Returns 0 with *mb, or RC_INVALID with err. */
int node_maxmempool(const struct args *a, int64_t *mb, char *err, size_t err_len);

/* Core's MIN_DISK_SPACE_FOR_BLOCK_FILES, in MiB: the smallest -prune target. */
#define PRUNE_MIN_MIB 550

/** -prune as Core reads it: 0 off, 1 manual (CHAINSTATE_PRUNE_MANUAL), else a target of at
 *  least PRUNE_MIN_MIB MiB, in bytes; refused with -txindex and -reindex-chainstate.
 *  Returns 0 with *target, or RC_INVALID with Core's message in err. */
int node_prune_target(const struct args *a, uint64_t *target, char *err, size_t err_len);

/** Fills o for the network p in net_dir (both borrowed: they outlive the chainstate).
 *  Returns 0, or RC_INVALID with err ("-dbbloombits must be in 0-64", "Invalid assumevalid
 *  block hash specified (x), ...", ...). */
int node_chainstate_options(struct chainstate_options *o, const struct args *a,
                            const struct chain_params *p, const char *net_dir, char *err,
                            size_t err_len);

#endif
