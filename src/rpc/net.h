/* The network RPC methods (Core's rpc/net.cpp): getpeerinfo, getconnectioncount,
 * getnetworkinfo, getnettotals, addnode, getaddednodeinfo, disconnectnode, setban,
 * listbanned, clearbanned, ping, setnetworkactive, getnodeaddresses, getblockfrompeer.
 * They ask the P2P service (net/net.h) through net_call: its state has one owner, the net
 * thread.
 */
#ifndef BITNODE_RPC_NET_H
#define BITNODE_RPC_NET_H

struct rpc_context;
struct rpc_request;
struct net;

/** Adds the methods to ctx's table (before the server starts). They ask the node's P2P
 *  service; without one they answer Core's "Error: Peer-to-peer functionality missing or
 *  disabled" (RPC_CLIENT_P2P_DISABLED). */
void rpc_net_register(struct rpc_context *ctx);

/** Runs fn(n, arg) on the net thread and waits for it (net_call). 0, or -1 after Core's
 *  "Error: Peer-to-peer functionality missing or disabled" (-31) when there is no service
 *  or its thread is not running. For the other files of network methods (net_hidden.c). */
int rpc_net_ask(struct rpc_request *req, void (*fn)(struct net *n, void *arg), void *arg);

#endif
