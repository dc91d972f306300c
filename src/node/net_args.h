/* The P2P service's options from the command line and bitcoin.conf: -port, -bind,
 * -whitebind, -whitelist, -connect, -addnode, -seednode, -onlynet, -proxy, -onion,
 * -maxconnections, -listen, -externalip, -discover, -uacomment, -peertimeout,
 * -test=<option> and the rest, with Core's start-up errors. */
#ifndef BITNODE_NODE_NET_ARGS_H
#define BITNODE_NODE_NET_ARGS_H

#include <stddef.h>

#include "consensus/params.h"
#include "net/net.h"
#include "util/args.h"

/* The options and what they point into (lists, binds, the user agent's comments). */
struct node_net_args {
    struct net_options o;
    const char **connect, **addnode, **seednode; /* the lists (their strings are args') */
    struct net_bind *binds;
    struct net_addr *externalip;
    struct net_whitelist *whitelist;
    char uacomment[256];
};

/** Fills na->o from a for the network p (custom_signet: -signetchallenge's own signet,
 *  whose seeds are none); o.val, o.mempool and o.net_dir are the caller's to set. Returns
 *  0, or RC_INVALID with err in Core's words ("Unknown network specified in -onlynet: 'x'",
 *  ...). Either way node_net_args_clear frees what it holds; a's strings must outlive it. */
int node_net_options(struct node_net_args *na, const struct args *a, const struct chain_params *p,
                     int custom_signet, char *err, size_t err_len);
/** Frees what node_net_options allocated (net_new copied what it keeps). */
void node_net_args_clear(struct node_net_args *na);

#endif
