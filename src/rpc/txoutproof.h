/* gettxoutproof and verifytxoutproof (Core's rpc/txoutproof.cpp): a merkleblock (a block
 * header and the partial merkle tree of some of its txids, consensus/merkleblock.h) proving
 * that transactions are in a block, and its check against the active chain. */
#ifndef BITNODE_RPC_TXOUTPROOF_H
#define BITNODE_RPC_TXOUTPROOF_H

struct rpc_context;

/** Registers gettxoutproof and verifytxoutproof (category blockchain). */
void rpc_txoutproof_register(struct rpc_context *ctx);

#endif
