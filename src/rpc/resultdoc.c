/* The shared result subtrees (see rpc/resultdoc.h), in Core's words and order. */
#include "rpc/resultdoc.h"

/* Core's ScriptPubKeyDoc. */
const struct rpc_result rpc_doc_script_pubkey[5] = {
    {.type = RPC_RES_STR, .key = "asm", .description = "Disassembly of the output script"},
    {.type = RPC_RES_STR, .key = "desc", .description = "Inferred descriptor for the output"},
    {.type = RPC_RES_STR_HEX,
     .key = "hex",
     .description = "The raw output script bytes, hex-encoded"},
    {.type = RPC_RES_STR,
     .key = "address",
     .optional = true,
     .description = "The Bitcoin address (only if a well-defined address exists)"},
    {.type = RPC_RES_STR,
     .key = "type",
     .description = "The type (one of: " RPC_DOC_OUTPUT_TYPES ")"},
};

static const struct rpc_result prevout[] = {
    {.type = RPC_RES_BOOL, .key = "generated", .description = "Coinbase or not"},
    {.type = RPC_RES_NUM, .key = "height", .description = "The height of the prevout"},
    {.type = RPC_RES_STR_AMOUNT, .key = "value", .description = "The value in BTC"},
    {.type = RPC_RES_OBJ, .key = "scriptPubKey", .inner = RPC_DOC_LIST(rpc_doc_script_pubkey)},
};

static const struct rpc_result script_sig[] = {
    {.type = RPC_RES_STR, .key = "asm", .description = "Disassembly of the signature script"},
    {.type = RPC_RES_STR_HEX,
     .key = "hex",
     .description = "The raw signature script bytes, hex-encoded"},
};
static const struct rpc_result witness[] = {
    {.type = RPC_RES_STR_HEX, .description = "hex-encoded witness data (if any)"},
};

/* An input's fields before "prevout": coinbase elided as head (with head_text), the others as
 * rest; and the one after it. */
#define VIN_FIELDS(head, head_text, rest)                                                          \
    {.type = RPC_RES_STR_HEX,                                                                      \
     .key = "coinbase",                                                                            \
     .optional = true,                                                                             \
     .description = "The coinbase value (only if coinbase transaction)",                           \
     .elision = head,                                                                              \
     .elision_text = head_text},                                                                   \
        {.type = RPC_RES_STR_HEX,                                                                  \
         .key = "txid",                                                                            \
         .optional = true,                                                                         \
         .description = "The transaction id (if not coinbase transaction)",                        \
         .elision = rest},                                                                         \
        {.type = RPC_RES_NUM,                                                                      \
         .key = "vout",                                                                            \
         .optional = true,                                                                         \
         .description = "The output number (if not coinbase transaction)",                        \
         .elision = rest},                                                                         \
        {.type = RPC_RES_OBJ,                                                                      \
         .key = "scriptSig",                                                                       \
         .optional = true,                                                                         \
         .description = "The script (if not coinbase transaction)",                                \
         .inner = RPC_DOC_LIST(script_sig),                                                        \
         .elision = rest},                                                                         \
        {.type = RPC_RES_ARR,                                                                      \
         .key = "txinwitness",                                                                     \
         .optional = true,                                                                         \
         .inner = RPC_DOC_LIST(witness),                                                           \
         .elision = rest}
#define VIN_SEQUENCE(rest)                                                                         \
    {.type = RPC_RES_NUM,                                                                          \
     .key = "sequence",                                                                            \
     .description = "The script sequence number",                                                  \
     .elision = rest}
#define VIN_PREVOUT(doc)                                                                           \
    {.type = RPC_RES_OBJ,                                                                          \
     .key = "prevout",                                                                             \
     .optional = true,                                                                             \
     .description = doc,                                                                           \
     .inner = RPC_DOC_LIST(prevout)}

static const struct rpc_result vin[] = {
    VIN_FIELDS(RPC_ELIDE_NONE, NULL, RPC_ELIDE_NONE),
    VIN_SEQUENCE(RPC_ELIDE_NONE),
};
static const struct rpc_result vin_prevout_rawtx[] = {
    VIN_FIELDS(RPC_ELIDE_TEXT, "Same vin fields as verbosity = 1", RPC_ELIDE_SKIP),
    VIN_PREVOUT("The previous output, omitted if block undo data is not available"),
    VIN_SEQUENCE(RPC_ELIDE_SKIP),
};
static const struct rpc_result vin_prevout_block[] = {
    VIN_FIELDS(RPC_ELIDE_TEXT, "The same output as verbosity = 2", RPC_ELIDE_SKIP),
    VIN_PREVOUT("(Only if undo information is available)"),
    VIN_SEQUENCE(RPC_ELIDE_SKIP),
};

const struct rpc_result rpc_doc_vin[1] = {{.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(vin)}};
const struct rpc_result rpc_doc_vin_prevout_rawtx[1] = {
    {.type = RPC_RES_OBJ,
     .description = "utxo being spent",
     .inner = RPC_DOC_LIST(vin_prevout_rawtx)},
};
const struct rpc_result rpc_doc_vin_prevout_block[1] = {
    {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(vin_prevout_block)},
};

static const struct rpc_result vout[] = {
    {.type = RPC_RES_STR_AMOUNT, .key = "value", .description = "The value in BTC"},
    {.type = RPC_RES_NUM, .key = "n", .description = "index"},
    {.type = RPC_RES_OBJ, .key = "scriptPubKey", .inner = RPC_DOC_LIST(rpc_doc_script_pubkey)},
};
const struct rpc_result rpc_doc_vout[1] = {{.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(vout)}};

const struct rpc_result rpc_doc_coinbase_tx[5] = {
    {.type = RPC_RES_NUM, .key = "version", .description = "The coinbase transaction version"},
    {.type = RPC_RES_NUM,
     .key = "locktime",
     .description = "The coinbase transaction's locktime (nLockTime)"},
    {.type = RPC_RES_NUM,
     .key = "sequence",
     .description = "The coinbase input's sequence number (nSequence)"},
    {.type = RPC_RES_STR_HEX, .key = "coinbase", .description = "The coinbase input's script"},
    {.type = RPC_RES_STR_HEX,
     .key = "witness",
     .optional = true,
     .description = "The coinbase input's first (and only) witness stack element, if present"},
};
