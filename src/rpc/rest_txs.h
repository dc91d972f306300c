/* The REST endpoints of transactions (Core's src/rest.cpp): the mempool, a transaction, and
 * the UTXO set (getutxos). Called by rest.c's dispatch only.
 *
 * Each handler answers through r->out (rest_util.h): it returns 1 when it answered with the
 * data asked for, or 0 after an error reply with Core's status and text. r->part is the
 * target after the handler's prefix, query included.
 * Thread: an HTTP worker; the chain's read lock, then the mempool's, are taken and released
 * within the call.
 */
#ifndef BITNODE_RPC_REST_TXS_H
#define BITNODE_RPC_REST_TXS_H

struct rest_req;

/** /rest/mempool/info.json (getmempoolinfo's result) and
 *  /rest/mempool/contents.json?verbose=<bool>&mempool_sequence=<bool> (getrawmempool's);
 *  404 when the node has no mempool. */
int rest_mempool(struct rest_req *r);

/** /rest/tx/<txid>.<bin|hex|json>: the transaction from the mempool, else from the block
 *  -txindex names (waiting for the index to reach the tip first); its bytes, or Core's
 *  TxToUniv JSON with "blockhash" when confirmed. */
int rest_tx(struct rest_req *r);

/** /rest/getutxos[/checkmempool]/<txid>-<n>/...<.bin|.hex|.json>, and the POST forms with
 *  the outpoints in the body (.bin, .hex): which of at most 15 outpoints are unspent at the
 *  tip (with checkmempool, as the mempool leaves them), BIP64's answer. */
int rest_getutxos(struct rest_req *r);

#endif
