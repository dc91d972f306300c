/* The hidden P2P RPC methods Bitcoin Core's functional tests drive (Core's rpc/net.cpp, and
 * getorphantxs of its rpc/mempool.cpp): addconnection, addpeeraddress, sendmsgtopeer,
 * getrawaddrman, getorphantxs. They are left out of `help`'s overview (category "hidden")
 * and answered as Core answers them. Like the other network methods they ask the P2P service
 * through net_call.
 */
#ifndef BITNODE_RPC_NET_HIDDEN_H
#define BITNODE_RPC_NET_HIDDEN_H

struct rpc_context;

/** Adds the methods to ctx's table (before the server starts). */
void rpc_net_hidden_register(struct rpc_context *ctx);

#endif
