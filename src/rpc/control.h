/* The control RPC group: help, stop, uptime, getrpcinfo, logging, and the hidden methods of
 * Core's src/rpc/node.cpp that tests call: echo, echojson, echoipc, and setmocktime and
 * mockscheduler (regtest only). Bitcoin Core's names, arguments and results. */
#ifndef BITNODE_RPC_CONTROL_H
#define BITNODE_RPC_CONTROL_H

#include "rpc/jsonrpc.h"

/** Registers the control methods in ctx. Call once at start-up, before the server starts;
 *  `uptime` counts from the context's creation. */
void rpc_control_register(struct rpc_context *ctx);

#endif
