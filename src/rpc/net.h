/* The network RPC methods (Core's rpc/net.cpp): getpeerinfo, getconnectioncount,
 * getnetworkinfo, getnettotals, addnode, getaddednodeinfo, disconnectnode, setban,
 * listbanned, clearbanned, ping, setnetworkactive, getnodeaddresses, getblockfrompeer.
 * They ask the P2P service (net/net.h) through net_call: its state has one owner, the net
 * thread.
 */
#ifndef BITNODE_RPC_NET_H
#define BITNODE_RPC_NET_H

struct rpc_context;
struct net;

/** Adds the methods to ctx's table (before the server starts). */
void rpc_net_register(struct rpc_context *ctx);
/** The P2P service the methods ask (borrowed), set before warm-up ends; NULL at shutdown,
 *  after the server stopped. Without one, the methods answer Core's "Error: Peer-to-peer
 *  functionality missing or disabled" (RPC_CLIENT_P2P_DISABLED). */
void rpc_net_set_net(struct rpc_context *ctx, struct net *net);

#endif
