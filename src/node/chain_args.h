/* The network's parameters from the command line and bitcoin.conf: the chain, and the
 * options that change its parameters (-signetchallenge, -minimumchainwork,
 * -testactivationheight), with Core's start-up errors. */
#ifndef BITNODE_NODE_CHAIN_ARGS_H
#define BITNODE_NODE_CHAIN_ARGS_H

#include <stddef.h>

#include "consensus/params.h"
#include "util/args.h"

/* Where changed parameters live (the daemon's, for as long as the node runs). */
struct node_chain {
    struct chain_params custom_signet; /* -signetchallenge's network */
    struct chain_params custom_params; /* a copy with -minimumchainwork or activation heights */
    const struct chain_params *params; /* the network: built in, or one of the above */
};

/** Sets c->params for a's chosen chain (args_select_chain done). Returns 0, or RC_INVALID
 *  with err ("-signetchallenge must be hex, not 'x'.", "Invalid minimum work specified
 *  ...", "Invalid name (x) for -testactivationheight=name@height.", ...). */
int node_chain_params(struct node_chain *c, const struct args *a, char *err, size_t err_len);
/** 1 if c->params is -signetchallenge's own signet. */
int node_chain_is_custom_signet(const struct node_chain *c);

#endif
