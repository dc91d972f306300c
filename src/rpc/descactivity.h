/* getdescriptoractivity (Core's rpc/blockchain.cpp): the spends from and receives to the
 * scripts of output descriptors in given blocks of the active chain, and in the pool. */
#ifndef BITNODE_RPC_DESCACTIVITY_H
#define BITNODE_RPC_DESCACTIVITY_H

struct rpc_context;

/** Registers getdescriptoractivity (category blockchain). */
void rpc_descactivity_register(struct rpc_context *ctx);

#endif
