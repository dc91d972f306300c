/* Result declarations that several RPC methods share: a transaction's fields (Core's TxDoc in
 * rpc/rawtransaction_util.cpp), an output script's (ScriptPubKeyDoc, rpc/util.cpp), and a
 * block's and its header's (GetBlockFields and getblockheader, rpc/blockchain.cpp), each
 * written once.
 *
 * Core elides them differently per use ("..." with a text, or not printed at all), and an
 * elision is a field of each entry (struct rpc_result), so:
 *  - a list of entries that a method splices into its own object is a macro taking the
 *    elisions (RPC_ELIDE_NONE everywhere prints it whole; elided entries are still checked);
 *  - a subtree below one entry is an array, one per elided variant, for .inner / .n_inner
 *    through RPC_DOC_LIST. The arrays are declared with their lengths so that RPC_DOC_LIST
 *    is a constant expression in other files.
 */
#ifndef BITNODE_RPC_RESULTDOC_H
#define BITNODE_RPC_RESULTDOC_H

#include <stddef.h>

#include "rpc/jsonrpc.h"

/* An exported array's address and length, for .inner = RPC_DOC_LIST(rpc_doc_vout). */
#define RPC_DOC_LIST(a) (a), sizeof(a) / sizeof((a)[0])

/* Core's GetAllOutputTypes(), as the "type" descriptions list them. */
#define RPC_DOC_OUTPUT_TYPES                                                                       \
    "nonstandard, anchor, pubkey, pubkeyhash, scripthash, multisig, nulldata, "                    \
    "witness_v0_scripthash, witness_v0_keyhash, witness_v1_taproot, witness_unknown"

/* The element of a transaction's "vin" (an input object):
 *  rpc_doc_vin: as decoderawtransaction prints it;
 *  rpc_doc_vin_prevout_rawtx: with "prevout", the other fields elided as getrawtransaction's
 *    verbosity 2 does ("Same vin fields as verbosity = 1");
 *  rpc_doc_vin_prevout_block: the same as getblock's verbosity 3 elides it. */
/* Core's ScriptPubKeyDoc: asm, desc, hex, address (optional), type. */
extern const struct rpc_result rpc_doc_script_pubkey[5];
extern const struct rpc_result rpc_doc_vin[1];
extern const struct rpc_result rpc_doc_vin_prevout_rawtx[1];
extern const struct rpc_result rpc_doc_vin_prevout_block[1];
/* The element of a transaction's "vout". */
extern const struct rpc_result rpc_doc_vout[1];
/* The members of getblock's "coinbase_tx". */
extern const struct rpc_result rpc_doc_coinbase_tx[5];

/* A transaction's fields, txid to vout (Core's TxDoc without its options): txid described
 * as txid_doc and elided as head (head_text: the text of RPC_ELIDE_TEXT, else NULL), vin
 * elided as vin_elision with vin_elem as its element (rpc_doc_vin or a variant above), every
 * other field elided as rest. */
#define RPC_DOC_TX_FIELDS(txid_doc, head, head_text, rest, vin_elision, vin_elem)                  \
    {.type = RPC_RES_STR_HEX,                                                                      \
     .key = "txid",                                                                                \
     .description = txid_doc,                                                                      \
     .elision = head,                                                                              \
     .elision_text = head_text},                                                                   \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "hash",                                                                            \
         .description = "The transaction hash (differs from txid for witness transactions)",       \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "size",                                                                            \
         .description = "The serialized transaction size",                                         \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "vsize",                                                                           \
         .description = "The virtual transaction size (differs from size for witness "             \
                        "transactions)",                                                           \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "weight",                                                                          \
         .description = "The transaction's weight (between vsize*4-3 and vsize*4)",                \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM, .key = "version", .description = "The version", .elision = rest},    \
        {.type = RPC_RES_NUM_TIME,                                                                 \
         .key = "locktime",                                                                        \
         .description = "The lock time",                                                           \
         .elision = rest},                                                                         \
        {.type = RPC_RES_ARR,                                                                      \
         .key = "vin",                                                                             \
         .inner = RPC_DOC_LIST(vin_elem),                                                          \
         .elision = vin_elision},                                                                  \
        {.type = RPC_RES_ARR, .key = "vout", .inner = RPC_DOC_LIST(rpc_doc_vout), .elision = rest}

/* What getrawtransaction adds before a transaction's fields (Core's verbosity_1_block):
 * in_active_chain elided as head (head_text as above), the others as rest. */
#define RPC_DOC_TX_BLOCK_FIELDS(head, head_text, rest)                                             \
    {.type = RPC_RES_BOOL,                                                                         \
     .key = "in_active_chain",                                                                     \
     .optional = true,                                                                             \
     .description = "Whether specified block is in the active chain or not (only present with "    \
                    "explicit \"blockhash\" argument)",                                            \
     .elision = head,                                                                              \
     .elision_text = head_text},                                                                   \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "blockhash",                                                                       \
         .optional = true,                                                                         \
         .description = "the block hash",                                                          \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "vsize_adjusted",                                                                  \
         .optional = true,                                                                         \
         .description = "Sigop-adjusted virtual size in bytes, present for mempool transactions.", \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "confirmations",                                                                   \
         .optional = true,                                                                         \
         .description = "The confirmations",                                                       \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM_TIME,                                                                 \
         .key = "blocktime",                                                                       \
         .optional = true,                                                                         \
         .description = "The block time expressed in UNIX epoch time",                             \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "time",                                                                            \
         .optional = true,                                                                         \
         .description = "Same as \"blocktime\"",                                                   \
         .elision = rest},                                                                         \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "hex",                                                                             \
         .description = "The serialized, hex-encoded data for 'txid'",                             \
         .elision = rest}

/* A block header's fields in three runs, so that getblock's own fields fit between them:
 * hash elided as head (head_text as above), every other field as rest. */
#define RPC_DOC_HEADER_ID_(head, head_text, rest)                                                  \
    {.type = RPC_RES_STR_HEX,                                                                      \
     .key = "hash",                                                                                \
     .description = "the block hash (same as provided)",                                           \
     .elision = head,                                                                              \
     .elision_text = head_text},                                                                   \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "confirmations",                                                                   \
         .description = "The number of confirmations, or -1 if the block is not on the main "      \
                        "chain",                                                                   \
         .elision = rest}
#define RPC_DOC_HEADER_VERSION_(rest)                                                              \
    {.type = RPC_RES_NUM,                                                                          \
     .key = "height",                                                                              \
     .description = "The block height or index",                                                   \
     .elision = rest},                                                                             \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "version",                                                                         \
         .description = "The block version",                                                       \
         .elision = rest},                                                                         \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "versionHex",                                                                      \
         .description = "The block version formatted in hexadecimal",                              \
         .elision = rest},                                                                         \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "merkleroot",                                                                      \
         .description = "The merkle root",                                                         \
         .elision = rest}
#define RPC_DOC_HEADER_TIME_(rest, chainwork_doc)                                                  \
    {.type = RPC_RES_NUM_TIME,                                                                     \
     .key = "time",                                                                                \
     .description = "The block time expressed in UNIX epoch time",                                 \
     .elision = rest},                                                                             \
        {.type = RPC_RES_NUM_TIME,                                                                 \
         .key = "mediantime",                                                                      \
         .description = "The median block time expressed in UNIX epoch time",                      \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM, .key = "nonce", .description = "The nonce", .elision = rest},        \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "bits",                                                                            \
         .description = "nBits: compact representation of the block difficulty target",            \
         .elision = rest},                                                                         \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "target",                                                                          \
         .description = "The difficulty target",                                                   \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "difficulty",                                                                      \
         .description = "The difficulty",                                                          \
         .elision = rest},                                                                         \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "chainwork",                                                                       \
         .description = chainwork_doc,                                                             \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "nTx",                                                                             \
         .description = "The number of transactions in the block",                                 \
         .elision = rest},                                                                         \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "previousblockhash",                                                               \
         .optional = true,                                                                         \
         .description = "The hash of the previous block (if available)",                           \
         .elision = rest},                                                                         \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "nextblockhash",                                                                   \
         .optional = true,                                                                         \
         .description = "The hash of the next block (if available)",                               \
         .elision = rest}

/* getblockheader's fields. */
#define RPC_DOC_HEADER_FIELDS                                                                      \
    RPC_DOC_HEADER_ID_(RPC_ELIDE_NONE, NULL, RPC_ELIDE_NONE),                                      \
        RPC_DOC_HEADER_VERSION_(RPC_ELIDE_NONE),                                                   \
        RPC_DOC_HEADER_TIME_(RPC_ELIDE_NONE,                                                       \
                             "Expected number of hashes required to produce the current chain")

/* getblock's fields (Core's GetBlockFields): the header's with the block's own, elided as
 * in RPC_DOC_HEADER_ID_; the remaining arguments are the "tx" entry, which is never
 * elided. */
#define RPC_DOC_BLOCK_FIELDS(head, head_text, rest, ...)                                           \
    RPC_DOC_HEADER_ID_(head, head_text, rest),                                                     \
        {.type = RPC_RES_NUM, .key = "size", .description = "The block size", .elision = rest},    \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "strippedsize",                                                                    \
         .description = "The block size excluding witness data",                                   \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "weight",                                                                          \
         .description = "The block weight as defined in BIP 141",                                  \
         .elision = rest},                                                                         \
        {.type = RPC_RES_OBJ,                                                                      \
         .key = "coinbase_tx",                                                                     \
         .description = "Coinbase transaction metadata",                                           \
         .inner = RPC_DOC_LIST(rpc_doc_coinbase_tx),                                               \
         .elision = rest},                                                                         \
        RPC_DOC_HEADER_VERSION_(rest), __VA_ARGS__,                                                \
        RPC_DOC_HEADER_TIME_(rest, "Expected number of hashes required to produce the chain up "   \
                                   "to this block (in hex)")

#endif
