/* The REST endpoints of the chain (Core's src/rest.cpp): blocks, headers, block filters,
 * the chain's state and deployments, block hashes by height and spent outputs. Called by
 * rest.c's dispatch only.
 *
 * Each handler answers through r->out (rest_util.h): it returns 1 when it answered with the
 * data asked for, or 0 after an error reply with Core's status and text. r->part is the
 * target after the handler's prefix, query included.
 * Thread: an HTTP worker; each takes and releases the chain's read lock around its block
 * index look-ups and reads block, undo and filter data without it.
 */
#ifndef BITNODE_RPC_REST_CHAIN_H
#define BITNODE_RPC_REST_CHAIN_H

struct rest_req;

/** /rest/block/<hash>.<bin|hex|json>: the block's bytes, or getblock's JSON at verbosity 3
 *  (transactions with their prevouts). */
int rest_block_extended(struct rest_req *r);

/** /rest/block/notxdetails/<hash>.<bin|hex|json>: as rest_block_extended, the JSON at
 *  getblock's verbosity 1 (txids only). */
int rest_block_notxdetails(struct rest_req *r);

/** /rest/blockpart/<hash>.<bin|hex>?offset=<n>&size=<n>: a byte range of the block; .json
 *  is refused (400). */
int rest_block_part(struct rest_req *r);

/** /rest/headers/<hash>.<bin|hex|json>?count=<n> (and the deprecated
 *  /rest/headers/<count>/<hash>.<ext>): up to count headers of the active chain from hash
 *  upwards, as 80-byte headers or getblockheader's JSON. */
int rest_headers(struct rest_req *r);

/** /rest/blockfilterheaders/<type>/<hash>.<bin|hex|json>?count=<n> (and the deprecated
 *  /rest/blockfilterheaders/<type>/<count>/<hash>.<ext>): the filter headers of the same
 *  walk as rest_headers, from the block filter index. */
int rest_filter_header(struct rest_req *r);

/** /rest/blockfilter/<type>/<hash>.<bin|hex|json>: the block's filter (Core's serialized
 *  BlockFilter, or {"filter": hex}). */
int rest_block_filter(struct rest_req *r);

/** /rest/chaininfo.json: getblockchaininfo's result. */
int rest_chaininfo(struct rest_req *r);

/** /rest/deploymentinfo.json (the tip) and /rest/deploymentinfo/<hash>.json:
 *  getdeploymentinfo's result. */
int rest_deploymentinfo(struct rest_req *r);

/** /rest/blockhashbyheight/<height>.<bin|hex|json>: the hash of the active chain's block at
 *  height. */
int rest_blockhash_by_height(struct rest_req *r);

/** /rest/spenttxouts/<hash>.<bin|hex|json>: the outputs the block's transactions spend,
 *  from its undo data. */
int rest_spent_txouts(struct rest_req *r);

#endif
