/* The control methods: help, stop, uptime, getrpcinfo, logging, and the hidden echo and
 * echojson (for tests). Bitcoin Core's names, arguments and results. */
#ifndef BITNODE_RPC_CONTROL_H
#define BITNODE_RPC_CONTROL_H

/** Registers the control methods in the RPC table and records the start time that `uptime`
 *  counts from. Call once at start-up, before the server starts. */
void rpc_control_register(void);

#endif
