/* The Blockchain RPC group (getblockcount, getblockchaininfo, getchaintips, gettxoutsetinfo,
 * getblock, ...), answering in Bitcoin Core's shapes from the chainstate. Reference:
 * doc/rpc.md. */
#ifndef BITNODE_RPC_BLOCKCHAIN_H
#define BITNODE_RPC_BLOCKCHAIN_H

#include "validation/chainstate.h"

/** Registers the methods (before the server starts). They answer from the chainstate set
 *  with rpc_blockchain_set_chainstate, which must happen before warm-up ends (until then the
 *  dispatcher answers -28). Each handler takes the chain lock while it reads. */
void rpc_blockchain_register(void);
/** The chainstate to answer from (borrowed; must outlive the RPC server), or NULL. */
void rpc_blockchain_set_chainstate(struct chainstate *cs);

#endif
