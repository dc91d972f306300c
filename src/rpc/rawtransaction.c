/* The rawtransactions RPC group: getrawtransaction, decoderawtransaction, decodescript, in
 * Bitcoin Core's shapes. */
#include "rpc/rawtransaction.h"

#include <stdlib.h>
#include <string.h>

#include "mempool/mempool.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "rpc/rawtransaction_sign.h"
#include "rpc/resultdoc.h"
#include "util/hex.h"
#include "util/rc.h"

static json_t *rpc_getrawtransaction(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    uint8_t txid[32];
    memcpy(txid, rpc_arg_hash(req, 0), 32);
    int64_t verbosity = rpc_arg_int(req, 1);
    uint8_t bh[32];
    if (memcmp(txid, chainstate_params(cs)->genesis_header.merkle_root, 32) == 0) {
        /* Core: the genesis coinbase is not in the UTXO set nor in any index. */
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                         "The genesis block coinbase is not considered an ordinary transaction "
                         "and cannot be retrieved");
    }
    if (!rpc_arg_hash(req, 2) && req->ctx->node->mempool) {
        /* The pool first (Core's GetTransaction): no block fields, and verbosity 2 answers as
         * 1 (Core has no spent outputs at hand for a pool transaction). */
        struct tx tx;
        int have = 0;
        int64_t vsize_adjusted = 0;
        mempool_read_lock(req->ctx->node->mempool);
        struct mempool_entry *me = mempool_get(req->ctx->node->mempool, txid);
        if (me) {
            tx_copy(&tx, &me->tx);
            vsize_adjusted = me->vsize;
            have = 1;
        }
        mempool_read_unlock(req->ctx->node->mempool);
        if (have) {
            json_t *r;
            if (verbosity <= 0) {
                struct buf ser;
                buf_init(&ser);
                tx_serialize(&tx, &ser, 1);
                char *hx = hex_encode_alloc(ser.data, ser.len);
                r = json_string(hx);
                free(hx);
                buf_clear(&ser);
            } else {
                r = rpc_tx_json(&tx, chainstate_params(cs), NULL, 1, 1);
                json_object_set_new(r, "vsize_adjusted", json_integer(vsize_adjusted));
            }
            tx_clear(&tx);
            return r;
        }
    }
    if (!rpc_arg_hash(req, 2)) {
        /* -txindex: find the block; without it, Core's hint. */
        struct block_index *found = NULL;
        int synced = -1;
        chainstate_read_lock(cs);
        int have_index = chainstate_txindex_info(cs, &synced);
        int rc = have_index ? chainstate_find_tx(cs, txid, &found) : RC_USAGE;
        struct block_index *tip = chainstate_tip(cs);
        if (rc == RC_OK) {
            memcpy(bh, found->hash, 32);
        }
        chainstate_read_unlock(cs);
        if (!have_index) {
            return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                             "No such mempool transaction. Use -txindex or provide a block hash "
                             "to enable blockchain transaction queries. Use gettransaction for "
                             "wallet transactions.");
        }
        if (rc == RC_NOT_FOUND) {
            if (!tip || synced < tip->height) {
                return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                                 "No such mempool or blockchain transaction. Blockchain "
                                 "transactions are still in the process of being indexed.");
            }
            return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                             "No such mempool or blockchain transaction. Use gettransaction for "
                             "wallet transactions.");
        }
        if (rc) {
            return rpc_error(req, RPC_DATABASE_ERROR, "transaction index: %s", rc_str(rc));
        }
    } else {
        memcpy(bh, rpc_arg_hash(req, 2), 32);
    }
    struct buf raw;
    struct block b;
    struct block_undo undo;
    json_t *r = NULL;
    buf_init(&raw);
    block_undo_init(&undo);
    chainstate_read_lock(cs);
    struct block_index *e = block_tree_find(chainstate_tree(cs), bh);
    if (!e) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block hash not found");
        goto out;
    }
    if (!(e->status & BLOCK_HAVE_DATA)) { /* pruned, or not downloaded: Core's words */
        rpc_error(req, RPC_MISC_ERROR, "Block not available");
        goto out;
    }
    if (rpc_load_block(req, e, &b, &raw)) {
        goto out;
    }
    size_t i;
    for (i = 0; i < b.tx_count && memcmp(b.txs[i].txid, txid, 32) != 0; i++) {
    }
    if (i == b.tx_count) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                  "No such transaction found in the provided block. Use gettransaction for "
                  "wallet transactions.");
    } else if (verbosity <= 0) {
        struct buf ser;
        buf_init(&ser);
        tx_serialize(&b.txs[i], &ser, 1);
        char *hx = hex_encode_alloc(ser.data, ser.len);
        r = json_string(hx);
        free(hx);
        buf_clear(&ser);
    } else {
        const struct coin *spent = NULL;
        if (verbosity >= 2 && i > 0 && chainstate_read_undo(cs, e, &undo) == RC_OK &&
            undo.n + 1 == b.tx_count && undo.txs[i - 1].n == b.txs[i].vin_count) {
            spent = undo.txs[i - 1].prev;
        }
        r = rpc_tx_json(&b.txs[i], chainstate_params(cs), spent,
                        verbosity >= 2 ? RPC_VERBOSITY_PREVOUT : (int)verbosity, 1);
        int active = chainstate_contains(cs, e);
        struct block_index *tip = chainstate_tip(cs);
        rpc_tx_json_add_block(r, e->hash, active, active ? tip->height - e->height + 1 : 0,
                              e->header.time);
        if (rpc_arg_hash(req, 2)) {
            /* Core puts in_active_chain first, and only when the caller named the block. */
            json_t *o = json_pack("{s:b}", "in_active_chain", active);
            json_object_update(o, r);
            json_decref(r);
            r = o;
        }
    }
    block_clear(&b);
out:
    chainstate_read_unlock(cs);
    block_undo_clear(&undo);
    buf_clear(&raw);
    return r;
}

static json_t *rpc_decoderawtransaction(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    const char *hx = json_string_value(rpc_param(req, 0));
    json_t *iswitness = rpc_param(req, 1);
    struct buf raw;
    struct tx tx;
    struct reader r;
    int ok = 0;
    buf_init(&raw);
    if (!hx || hex_decode(&raw, hx) != RC_OK) {
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "TX decode failed");
    }
    /* Core's DecodeHexTx: try the extended form unless told otherwise, then the legacy
     * one; either must consume every byte. */
    int try_witness = !iswitness || json_is_true(iswitness);
    int try_legacy = !iswitness || !json_is_true(iswitness);
    if (try_witness) {
        reader_init(&r, raw.data, raw.len);
        ok = tx_parse(&tx, &r, 1) == RC_OK && reader_left(&r) == 0;
        if (!ok && r.rc == RC_OK) {
            tx_clear(&tx);
        }
    }
    if (!ok && try_legacy) {
        reader_init(&r, raw.data, raw.len);
        ok = tx_parse(&tx, &r, 0) == RC_OK && reader_left(&r) == 0;
        if (!ok && r.rc == RC_OK) {
            tx_clear(&tx);
        }
    }
    buf_clear(&raw);
    if (!ok) {
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "TX decode failed");
    }
    const struct chain_params *p = cs ? chainstate_params(cs) : chain_params_get("main");
    json_t *out = rpc_tx_json(&tx, p, NULL, 1, 0);
    tx_clear(&tx);
    return out;
}

static json_t *rpc_decodescript(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    const char *hx = json_string_value(rpc_param(req, 0));
    struct buf raw;
    buf_init(&raw);
    if (!hx || hex_decode(&raw, hx) != RC_OK) {
        buf_clear(&raw);
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "argument must be hexadecimal string (not '%s')", hx ? hx : "");
    }
    const struct chain_params *p = cs ? chainstate_params(cs) : chain_params_get("main");
    json_t *r = rpc_decodescript_json(raw.data, raw.len, p);
    buf_clear(&raw);
    return r;
}

/* ---- the signing and PSBT methods' shared declarations -------------------------------- */

/* Core's CreateTxDoc(): createrawtransaction's and createpsbt's first arguments. */
#define CREATE_TX_ARGS                                                                             \
    {.names = "inputs",                                                                            \
     .type = RPC_ARG_ARR,                                                                          \
     .description = "The inputs",                                                                  \
     .inner = RPC_LIST(                                                                            \
         struct rpc_arg,                                                                           \
         {.names = "",                                                                             \
          .type = RPC_ARG_OBJ,                                                                     \
          .fallback = RPC_ARG_OMITTED,                                                             \
          .description = "",                                                                       \
          .inner = RPC_LIST(                                                                       \
              struct rpc_arg,                                                                      \
              {.names = "txid", .type = RPC_ARG_STR_HEX, .description = "The transaction id"},     \
              {.names = "vout", .type = RPC_ARG_NUM, .description = "The output number"},          \
              {.names = "sequence",                                                                \
               .type = RPC_ARG_NUM,                                                                \
               .fallback = RPC_ARG_DEFAULT_HINT,                                                   \
               .default_value = "depends on the value of the 'replaceable' and 'locktime' "        \
                                "arguments",                                                       \
               .description = "The sequence number"})})},                                          \
        {.names = "outputs",                                                                       \
         .type = RPC_ARG_ARR,                                                                      \
         .description =                                                                            \
             "The outputs specified as key-value pairs.\n"                                         \
             "Each key may only appear once, i.e. there can only be one 'data' output, and no "    \
             "address may be duplicated.\n"                                                        \
             "At least one output of either type must be specified.\n"                             \
             "For compatibility reasons, a dictionary, which holds the key-value pairs "           \
             "directly, is also\n"                                                                 \
             "                             accepted as second parameter.",                         \
         .inner = RPC_LIST(                                                                        \
             struct rpc_arg,                                                                       \
             {.names = "",                                                                         \
              .type = RPC_ARG_OBJ_USER_KEYS,                                                       \
              .fallback = RPC_ARG_OMITTED,                                                         \
              .description = "",                                                                   \
              .inner = RPC_LIST(struct rpc_arg,                                                    \
                                {.names = "address",                                               \
                                 .type = RPC_ARG_AMOUNT,                                           \
                                 .description = "A key-value pair. The key (string) is the "       \
                                                "bitcoin address, the value (float or string) "    \
                                                "is the amount in BTC"})},                         \
             {.names = "",                                                                         \
              .type = RPC_ARG_OBJ,                                                                 \
              .fallback = RPC_ARG_OMITTED,                                                         \
              .description = "",                                                                   \
              .inner = RPC_LIST(struct rpc_arg,                                                    \
                                {.names = "data",                                                  \
                                 .type = RPC_ARG_STR_HEX,                                          \
                                 .description = "A key-value pair. The key must be \"data\", the " \
                                                "value is hex-encoded data that becomes a part "   \
                                                "of an OP_RETURN output"})}),                      \
         .skip_type_check = true},                                                                 \
        {.names = "locktime",                                                                      \
         .type = RPC_ARG_NUM,                                                                      \
         .fallback = RPC_ARG_DEFAULT,                                                              \
         .default_value = "0",                                                                     \
         .description = "Raw locktime. Non-0 value also locktime-activates inputs",                \
         .conv = RPC_CONV_INT64},                                                                  \
        {.names = "replaceable",                                                                   \
         .type = RPC_ARG_BOOL,                                                                     \
         .fallback = RPC_ARG_DEFAULT_HINT,                                                         \
         .default_value = "true",                                                                  \
         .description = "Marks this transaction as BIP125-replaceable.\n"                          \
                        "Allows this transaction to be replaced by a transaction with higher "     \
                        "fees. If provided, it is an error if explicit sequence numbers are "      \
                        "incompatible."},                                                          \
    {                                                                                              \
        .names = "version", .type = RPC_ARG_NUM, .fallback = RPC_ARG_DEFAULT,                      \
        .default_value = "2", .description = "Transaction version", .conv = RPC_CONV_UINT32        \
    }

#define PSBT_VERSION_ARG                                                                           \
    {                                                                                              \
        .names = "psbt_version", .type = RPC_ARG_NUM, .fallback = RPC_ARG_DEFAULT,                 \
        .default_value = "2", .description = "The PSBT version number to use.",                    \
        .conv = RPC_CONV_UINT32                                                                    \
    }

/* decodepsbt's "tx" and "non_witness_utxo": TxDoc elided as decoderawtransaction's. */
#define PSBT_DOC_TX                                                                                \
    RPC_DOC_TX_FIELDS("The transaction id", RPC_ELIDE_TEXT,                                        \
                      "The layout is the same as the output of decoderawtransaction.",             \
                      RPC_ELIDE_SKIP, RPC_ELIDE_SKIP, rpc_doc_vin)

#define PSBT_DOC_PROPRIETARY(desc, opt)                                                            \
    {                                                                                              \
        .type = RPC_RES_ARR, .key = "proprietary", .optional = opt, .description = desc,           \
        .inner = RPC_LIST(                                                                         \
            struct rpc_result,                                                                     \
            {.type = RPC_RES_OBJ,                                                                  \
             .inner = RPC_LIST(                                                                    \
                 struct rpc_result,                                                                \
                 {.type = RPC_RES_STR_HEX,                                                         \
                  .key = "identifier",                                                             \
                  .description = "The hex string for the proprietary identifier"},                 \
                 {.type = RPC_RES_NUM,                                                             \
                  .key = "subtype",                                                                \
                  .description = "The number for the subtype"},                                    \
                 {.type = RPC_RES_STR_HEX, .key = "key", .description = "The hex for the key"},    \
                 {.type = RPC_RES_STR_HEX,                                                         \
                  .key = "value",                                                                  \
                  .description = "The hex for the value"})})                                       \
    }

#define PSBT_DOC_SCRIPT(key_, what)                                                                \
    {                                                                                              \
        .type = RPC_RES_OBJ, .key = key_, .optional = true,                                        \
        .inner = RPC_LIST(                                                                         \
            struct rpc_result,                                                                     \
            {.type = RPC_RES_STR, .key = "asm", .description = "Disassembly of the " what},        \
            {.type = RPC_RES_STR_HEX,                                                              \
             .key = "hex",                                                                         \
             .description = "The raw " what " bytes, hex-encoded"},                                \
            {.type = RPC_RES_STR, .key = "type", .description = "The type, eg 'pubkeyhash'"})      \
    }

#define PSBT_DOC_DERIVS(pubkey_doc)                                                                \
    {                                                                                              \
        .type = RPC_RES_ARR, .key = "bip32_derivs", .optional = true,                              \
        .inner = RPC_LIST(                                                                         \
            struct rpc_result,                                                                     \
            {.type = RPC_RES_OBJ,                                                                  \
             .inner = RPC_LIST(struct rpc_result,                                                  \
                               {.type = RPC_RES_STR, .key = "pubkey", .description = pubkey_doc},  \
                               {.type = RPC_RES_STR,                                               \
                                .key = "master_fingerprint",                                       \
                                .description = "The fingerprint of the master key"},               \
                               {.type = RPC_RES_STR, .key = "path", .description = "The path"})})  \
    }

#define PSBT_DOC_TAP_DERIVS                                                                        \
    {                                                                                              \
        .type = RPC_RES_ARR, .key = "taproot_bip32_derivs", .optional = true,                      \
        .inner =                                                                                   \
            RPC_LIST(struct rpc_result,                                                            \
                     {.type = RPC_RES_OBJ,                                                         \
                      .inner = RPC_LIST(                                                           \
                          struct rpc_result,                                                       \
                          {.type = RPC_RES_STR,                                                    \
                           .key = "pubkey",                                                        \
                           .description = "The x-only public key this path corresponds to"},       \
                          {.type = RPC_RES_STR,                                                    \
                           .key = "master_fingerprint",                                            \
                           .description = "The fingerprint of the master key"},                    \
                          {.type = RPC_RES_STR, .key = "path", .description = "The path"},         \
                          {.type = RPC_RES_ARR,                                                    \
                           .key = "leaf_hashes",                                                   \
                           .description = "The hashes of the leaves this pubkey appears in",       \
                           .inner = RPC_LIST(                                                      \
                               struct rpc_result,                                                  \
                               {.type = RPC_RES_STR_HEX,                                           \
                                .key = "hash",                                                     \
                                .description = "The hash of a leaf this pubkey appears in"})})})   \
    }

#define PSBT_DOC_MUSIG_PARTICIPANTS                                                                \
    {                                                                                              \
        .type = RPC_RES_ARR, .key = "musig2_participant_pubkeys", .optional = true,                \
        .inner = RPC_LIST(                                                                         \
            struct rpc_result,                                                                     \
            {.type = RPC_RES_OBJ,                                                                  \
             .inner = RPC_LIST(                                                                    \
                 struct rpc_result,                                                                \
                 {.type = RPC_RES_STR_HEX,                                                         \
                  .key = "aggregate_pubkey",                                                       \
                  .description =                                                                   \
                      "The compressed aggregate public key for which the participants create."},   \
                 {.type = RPC_RES_ARR,                                                             \
                  .key = "participant_pubkeys",                                                    \
                  .inner = RPC_LIST(struct rpc_result,                                             \
                                    {.type = RPC_RES_STR_HEX,                                      \
                                     .key = "pubkey",                                              \
                                     .description = "The compressed public keys that are "         \
                                                    "aggregated for aggregate_pubkey."})})})       \
    }

#define PSBT_DOC_MUSIG_DATA(key_, who, what, value_key, value_doc)                                 \
    {                                                                                              \
        .type = RPC_RES_ARR, .key = key_, .optional = true,                                        \
        .inner = RPC_LIST(                                                                         \
            struct rpc_result,                                                                     \
            {.type = RPC_RES_OBJ,                                                                  \
             .inner = RPC_LIST(                                                                    \
                 struct rpc_result,                                                                \
                 {.type = RPC_RES_STR_HEX,                                                         \
                  .key = "participant_pubkey",                                                     \
                  .description = "The compressed public key of the participant that created "      \
                                 "this " what "."},                                                \
                 {.type = RPC_RES_STR_HEX,                                                         \
                  .key = "aggregate_pubkey",                                                       \
                  .description =                                                                   \
                      "The compressed aggregate public key for which this " what " is for."},      \
                 {.type = RPC_RES_STR_HEX,                                                         \
                  .key = "leaf_hash",                                                              \
                  .optional = true,                                                                \
                  .description = "The hash of the leaf script that contains the aggregate "        \
                                 "pubkey being signed for. Omitted when signing for the "          \
                                 "internal key."},                                                 \
                 {.type = RPC_RES_STR_HEX, .key = value_key, .description = value_doc})})          \
    }

#define PSBT_DOC_PREIMAGES(key_)                                                                   \
    {                                                                                              \
        .type = RPC_RES_OBJ_DYN, .key = key_, .optional = true,                                    \
        .inner = RPC_LIST(struct rpc_result,                                                       \
                          {.type = RPC_RES_STR,                                                    \
                           .key = "hash",                                                          \
                           .description = "The hash and preimage that corresponds to it."})        \
    }

#define PSBT_DOC_UNKNOWN(desc)                                                                     \
    {                                                                                              \
        .type = RPC_RES_OBJ_DYN, .key = "unknown", .optional = true, .description = desc,          \
        .inner = RPC_LIST(struct rpc_result,                                                       \
                          {.type = RPC_RES_STR_HEX,                                                \
                           .key = "key",                                                           \
                           .description = "(key-value pair) An unknown key-value pair"})           \
    }

/* Core's DecodePSBTInputs() element. */
static const struct rpc_result psbt_doc_input[] = {
    {.type = RPC_RES_OBJ,
     .key = "non_witness_utxo",
     .optional = true,
     .description = "Decoded network transaction for non-witness UTXOs",
     .inner = RPC_LIST(struct rpc_result, PSBT_DOC_TX)},
    {.type = RPC_RES_OBJ,
     .key = "witness_utxo",
     .optional = true,
     .description = "Transaction output for witness UTXOs",
     .inner = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_NUM, .key = "amount", .description = "The value in BTC"},
         {.type = RPC_RES_OBJ,
          .key = "scriptPubKey",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR,
               .key = "asm",
               .description = "Disassembly of the output script"},
              {.type = RPC_RES_STR,
               .key = "desc",
               .description = "Inferred descriptor for the output"},
              {.type = RPC_RES_STR_HEX,
               .key = "hex",
               .description = "The raw output script bytes, hex-encoded"},
              {.type = RPC_RES_STR, .key = "type", .description = "The type, eg 'pubkeyhash'"},
              {.type = RPC_RES_STR,
               .key = "address",
               .optional = true,
               .description = "The Bitcoin address (only if a well-defined address exists)"})})},
    {.type = RPC_RES_OBJ_DYN,
     .key = "partial_signatures",
     .optional = true,
     .inner = RPC_LIST(struct rpc_result,
                       {.type = RPC_RES_STR,
                        .key = "pubkey",
                        .description = "The public key and signature that corresponds to it."})},
    {.type = RPC_RES_STR,
     .key = "sighash",
     .optional = true,
     .description = "The sighash type to be used"},
    PSBT_DOC_SCRIPT("redeem_script", "redeem script"),
    PSBT_DOC_SCRIPT("witness_script", "witness script"),
    PSBT_DOC_DERIVS("The public key with the derivation path as the value."),
    {.type = RPC_RES_OBJ,
     .key = "final_scriptSig",
     .optional = true,
     .inner = RPC_LIST(struct rpc_result,
                       {.type = RPC_RES_STR,
                        .key = "asm",
                        .description = "Disassembly of the final signature script"},
                       {.type = RPC_RES_STR_HEX,
                        .key = "hex",
                        .description = "The raw final signature script bytes, hex-encoded"})},
    {.type = RPC_RES_ARR,
     .key = "final_scriptwitness",
     .optional = true,
     .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR_HEX,
                                           .description = "hex-encoded witness data (if any)"})},
    PSBT_DOC_PREIMAGES("ripemd160_preimages"),
    PSBT_DOC_PREIMAGES("sha256_preimages"),
    PSBT_DOC_PREIMAGES("hash160_preimages"),
    PSBT_DOC_PREIMAGES("hash256_preimages"),
    {.type = RPC_RES_STR_HEX,
     .key = "previous_txid",
     .optional = true,
     .description = "TXID of the transaction containing the output being spent by this input"},
    {.type = RPC_RES_NUM,
     .key = "previous_vout",
     .optional = true,
     .description = "Index of the output being spent"},
    {.type = RPC_RES_NUM,
     .key = "sequence",
     .optional = true,
     .description = "Sequence number for this input"},
    {.type = RPC_RES_NUM,
     .key = "time_locktime",
     .optional = true,
     .description = "Time-based locktime required for this input"},
    {.type = RPC_RES_NUM,
     .key = "height_locktime",
     .optional = true,
     .description = "Height-based locktime required for this input"},
    {.type = RPC_RES_STR_HEX,
     .key = "taproot_key_path_sig",
     .optional = true,
     .description = "hex-encoded signature for the Taproot key path spend"},
    {.type = RPC_RES_ARR,
     .key = "taproot_script_path_sigs",
     .optional = true,
     .inner = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .key = "signature",
          .optional = true,
          .description = "The signature for the pubkey and leaf hash combination",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR,
               .key = "pubkey",
               .description = "The x-only pubkey for this signature"},
              {.type = RPC_RES_STR,
               .key = "leaf_hash",
               .description = "The leaf hash for this signature"},
              {.type = RPC_RES_STR, .key = "sig", .description = "The signature itself"})})},
    {.type = RPC_RES_ARR,
     .key = "taproot_scripts",
     .optional = true,
     .inner =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_OBJ,
                   .inner = RPC_LIST(
                       struct rpc_result,
                       {.type = RPC_RES_STR_HEX, .key = "script", .description = "A leaf script"},
                       {.type = RPC_RES_NUM,
                        .key = "leaf_ver",
                        .description = "The version number for the leaf script"},
                       {.type = RPC_RES_ARR,
                        .key = "control_blocks",
                        .description = "The control blocks for this script",
                        .inner = RPC_LIST(
                            struct rpc_result,
                            {.type = RPC_RES_STR_HEX,
                             .key = "control_block",
                             .description = "A hex-encoded control block for this script"})})})},
    PSBT_DOC_TAP_DERIVS,
    {.type = RPC_RES_STR_HEX,
     .key = "taproot_internal_key",
     .optional = true,
     .description = "The hex-encoded Taproot x-only internal key"},
    {.type = RPC_RES_STR_HEX,
     .key = "taproot_merkle_root",
     .optional = true,
     .description = "The hex-encoded Taproot merkle root"},
    PSBT_DOC_MUSIG_PARTICIPANTS,
    PSBT_DOC_MUSIG_DATA("musig2_pubnonces", "participant", "pubnonce", "pubnonce",
                        "The public nonce itself."),
    PSBT_DOC_MUSIG_DATA("musig2_partial_sigs", "participant", "partial signature", "partial_sig",
                        "The partial signature itself."),
    PSBT_DOC_UNKNOWN("The unknown input fields"),
    PSBT_DOC_PROPRIETARY("The input proprietary map", true),
};

/* Core's DecodePSBTOutputs() element. */
static const struct rpc_result psbt_doc_output[] = {
    PSBT_DOC_SCRIPT("redeem_script", "redeem script"),
    PSBT_DOC_SCRIPT("witness_script", "witness script"),
    PSBT_DOC_DERIVS("The public key this path corresponds to"),
    {.type = RPC_RES_NUM,
     .key = "amount",
     .optional = true,
     .description = "The amount (nValue) for this output"},
    {.type = RPC_RES_OBJ,
     .key = "script",
     .optional = true,
     .description = "The output script (scriptPubKey) for this output",
     .inner =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_STR,
                   .key = "asm",
                   .description = "Disassembly of the output script",
                   .elision = RPC_ELIDE_TEXT,
                   .elision_text = "The layout is the same as the output of scriptPubKeys in "
                                   "decoderawtransaction."},
                  {.type = RPC_RES_STR,
                   .key = "desc",
                   .description = "Inferred descriptor for the output",
                   .elision = RPC_ELIDE_SKIP},
                  {.type = RPC_RES_STR_HEX,
                   .key = "hex",
                   .description = "The raw output script bytes, hex-encoded",
                   .elision = RPC_ELIDE_SKIP},
                  {.type = RPC_RES_STR,
                   .key = "address",
                   .optional = true,
                   .description = "The Bitcoin address (only if a well-defined address exists)",
                   .elision = RPC_ELIDE_SKIP},
                  {.type = RPC_RES_STR,
                   .key = "type",
                   .description = "The type (one of: " RPC_DOC_OUTPUT_TYPES ")",
                   .elision = RPC_ELIDE_SKIP})},
    {.type = RPC_RES_STR_HEX,
     .key = "taproot_internal_key",
     .optional = true,
     .description = "The hex-encoded Taproot x-only internal key"},
    {.type = RPC_RES_ARR,
     .key = "taproot_tree",
     .optional = true,
     .description = "The tuples that make up the Taproot tree, in depth first search order",
     .inner = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .key = "tuple",
          .optional = true,
          .description = "A single leaf script in the taproot tree",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_NUM,
               .key = "depth",
               .description = "The depth of this element in the tree"},
              {.type = RPC_RES_NUM, .key = "leaf_ver", .description = "The version of this leaf"},
              {.type = RPC_RES_STR,
               .key = "script",
               .description = "The hex-encoded script itself"})})},
    PSBT_DOC_TAP_DERIVS,
    PSBT_DOC_MUSIG_PARTICIPANTS,
    PSBT_DOC_UNKNOWN("The unknown output fields"),
    PSBT_DOC_PROPRIETARY("The output proprietary map", true),
};

/* ---- declarations -------------------------------------------------------------------- */

static const struct rpc_method methods[] = {
    {.category = "rawtransactions",
     .name = "getrawtransaction",
     .handler = rpc_getrawtransaction,
     .description = "By default, this call only returns a transaction if it is in the mempool. If "
                    "-txindex is enabled\n"
                    "and no blockhash argument is passed, it will return the transaction if it is "
                    "in the mempool or any block.\n"
                    "If a blockhash argument is passed, it will return the transaction if\n"
                    "the specified block is available and the transaction is in that block.\n\n"
                    "Hint: Use gettransaction for wallet transactions.\n\n"
                    "If verbosity is 0 or omitted, returns the serialized transaction as a "
                    "hex-encoded string.\n"
                    "If verbosity is 1, returns a JSON Object with information about the "
                    "transaction.\n"
                    "If verbosity is 2, returns a JSON Object with information about the "
                    "transaction, including fee and prevout information.",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "txid",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The transaction id",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "parameter 1"},
                      {.names = "verbosity|verbose",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "0",
                       .description = "0 for hex-encoded data, 1 for a JSON object, and 2 for "
                                      "JSON object with fee and prevout",
                       .skip_type_check = true,
                       .conv = RPC_CONV_VERBOSITY},
                      {.names = "blockhash",
                       .type = RPC_ARG_STR_HEX,
                       .fallback = RPC_ARG_OMITTED,
                       .description = "The block in which to look for the transaction",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "parameter 3"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_STR,
          .description = "The serialized transaction as a hex-encoded string for 'txid'",
          .cond = "if verbosity is not set or set to 0"},
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result, RPC_DOC_TX_BLOCK_FIELDS(RPC_ELIDE_NONE, NULL, RPC_ELIDE_NONE),
              RPC_DOC_TX_FIELDS("The transaction id (same as provided)", RPC_ELIDE_NONE, NULL,
                                RPC_ELIDE_NONE, RPC_ELIDE_NONE, rpc_doc_vin)),
          .cond = "if verbosity is set to 1"},
         {.type = RPC_RES_OBJ,
          .inner =
              RPC_LIST(struct rpc_result,
                       RPC_DOC_TX_BLOCK_FIELDS(RPC_ELIDE_TEXT, "Same output as verbosity = 1",
                                               RPC_ELIDE_SKIP),
                       {.type = RPC_RES_NUM,
                        .key = "fee",
                        .optional = true,
                        .description = "transaction fee in BTC, omitted if block undo data "
                                       "is not available"},
                       RPC_DOC_TX_FIELDS("The transaction id", RPC_ELIDE_SKIP, NULL, RPC_ELIDE_SKIP,
                                         RPC_ELIDE_NONE, rpc_doc_vin_prevout_rawtx)),
          .cond = "for verbosity = 2"}),
     .examples = RPC_EXAMPLE_CLI("getrawtransaction", "\"mytxid\"") RPC_EXAMPLE_CLI(
         "getrawtransaction", "\"mytxid\" 1") RPC_EXAMPLE_RPC("getrawtransaction", "\"mytxid\", 1")
         RPC_EXAMPLE_CLI("getrawtransaction", "\"mytxid\" 0 \"myblockhash\"")
             RPC_EXAMPLE_CLI("getrawtransaction", "\"mytxid\" 1 \"myblockhash\"")
                 RPC_EXAMPLE_CLI("getrawtransaction", "\"mytxid\" 2 \"myblockhash\"")},
    {.category = "rawtransactions",
     .name = "decoderawtransaction",
     .handler = rpc_decoderawtransaction,
     .description = "Return a JSON object representing the serialized, hex-encoded transaction.",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "hexstring",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The transaction hex string"},
                      {.names = "iswitness",
                       .type = RPC_ARG_BOOL,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "depends on heuristic tests",
                       .description = "Whether the transaction hex is a serialized witness "
                                      "transaction.\n"
                                      "If iswitness is not present, heuristic tests will be used "
                                      "in decoding.\n"
                                      "If true, only witness deserialization will be tried.\n"
                                      "If false, only non-witness deserialization will be "
                                      "tried.\n"
                                      "This boolean should reflect whether the transaction has "
                                      "inputs\n"
                                      "(e.g. fully valid, or on-chain transactions), if known by "
                                      "the caller."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            RPC_DOC_TX_FIELDS("The transaction id", RPC_ELIDE_NONE, NULL,
                                              RPC_ELIDE_NONE, RPC_ELIDE_NONE, rpc_doc_vin))}),
     .examples = RPC_EXAMPLES("decoderawtransaction", "\"hexstring\"", "\"hexstring\"")},
    {.category = "rawtransactions",
     .name = "decodescript",
     .handler = rpc_decodescript,
     .description = "Decode a hex-encoded script.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "hexstring", .type = RPC_ARG_STR_HEX, .description = "the hex-encoded script"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR, .key = "asm", .description = "Disassembly of the script"},
              {.type = RPC_RES_STR,
               .key = "desc",
               .description = "Inferred descriptor for the script"},
              {.type = RPC_RES_STR,
               .key = "type",
               .description = "The output type (e.g. " RPC_DOC_OUTPUT_TYPES ")"},
              {.type = RPC_RES_STR,
               .key = "address",
               .optional = true,
               .description = "The Bitcoin address (only if a well-defined address exists)"},
              {.type = RPC_RES_STR,
               .key = "p2sh",
               .optional = true,
               .description = "address of P2SH script wrapping this redeem script (not returned "
                              "for types that should not be wrapped)"},
              {.type = RPC_RES_OBJ,
               .key = "segwit",
               .optional = true,
               .description = "Result of a witness output script wrapping this redeem script "
                              "(not returned for types that should not be wrapped)",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_STR,
                    .key = "asm",
                    .description = "Disassembly of the output script"},
                   {.type = RPC_RES_STR_HEX,
                    .key = "hex",
                    .description = "The raw output script bytes, hex-encoded"},
                   {.type = RPC_RES_STR,
                    .key = "type",
                    .description = "The type of the output script (e.g. witness_v0_keyhash or "
                                   "witness_v0_scripthash)"},
                   {.type = RPC_RES_STR,
                    .key = "address",
                    .optional = true,
                    .description = "The Bitcoin address (only if a well-defined address exists)"},
                   {.type = RPC_RES_STR,
                    .key = "desc",
                    .description = "Inferred descriptor for the script"},
                   {.type = RPC_RES_STR,
                    .key = "p2sh-segwit",
                    .description = "address of the P2SH script wrapping this witness redeem "
                                   "script"})})}),
     .examples = RPC_EXAMPLES("decodescript", "\"hexstring\"", "\"hexstring\"")},
    {.category = "rawtransactions",
     .name = "createrawtransaction",
     .handler = rpc_createrawtransaction,
     .description = "Create a transaction spending the given inputs and creating new outputs.\n"
                    "Outputs can be addresses or data.\n"
                    "Returns hex-encoded raw transaction.\n"
                    "Note that the transaction's inputs are not signed, and\n"
                    "it is not stored in the wallet or transmitted to the network.\n",
     .args = RPC_LIST(struct rpc_arg, CREATE_TX_ARGS),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR_HEX,
                                             .key = "transaction",
                                             .description = "hex string of the transaction"}),
     .examples = RPC_EXAMPLE_CLI("createrawtransaction",
                                 "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\" "
                                 "\"[{\\\"address\\\":0.01}]\"")
         RPC_EXAMPLE_CLI("createrawtransaction", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\" "
                                                 "\"[{\\\"data\\\":\\\"00010203\\\"}]\"")
             RPC_EXAMPLE_RPC("createrawtransaction",
                             "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\", "
                             "\"[{\\\"address\\\":0.01}]\"")
                 RPC_EXAMPLE_RPC("createrawtransaction",
                                 "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\", "
                                 "\"[{\\\"data\\\":\\\"00010203\\\"}]\"")},
    {.category = "rawtransactions",
     .name = "combinerawtransaction",
     .handler = rpc_combinerawtransaction,
     .description = "Combine multiple partially signed transactions into one transaction.\n"
                    "The combined transaction may be another partially signed transaction or a \n"
                    "fully signed transaction.",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "txs",
          .type = RPC_ARG_ARR,
          .description = "The hex strings of partially signed transactions",
          .inner = RPC_LIST(struct rpc_arg, {.names = "hexstring",
                                             .type = RPC_ARG_STR_HEX,
                                             .fallback = RPC_ARG_OMITTED,
                                             .description = "A hex-encoded raw transaction"})}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_STR, .description = "The hex-encoded raw transaction with signature(s)"}),
     .examples =
         RPC_EXAMPLE_CLI("combinerawtransaction", "'[\"myhex1\", \"myhex2\", \"myhex3\"]'")},
    {.category = "rawtransactions",
     .name = "signrawtransactionwithkey",
     .handler = rpc_signrawtransactionwithkey,
     .description =
         "Sign inputs for raw transaction (serialized, hex-encoded).\n"
         "The second argument is an array of base58-encoded private\n"
         "keys that will be the only keys used to sign the transaction.\n"
         "The third optional argument (may be null) is an array of previous transaction outputs "
         "that\n"
         "this transaction depends on but may not yet be in the block chain.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "hexstring", .type = RPC_ARG_STR, .description = "The transaction hex string"},
         {.names = "privkeys",
          .type = RPC_ARG_ARR,
          .description = "The base58-encoded private keys for signing",
          .inner = RPC_LIST(struct rpc_arg, {.names = "privatekey",
                                             .type = RPC_ARG_STR_HEX,
                                             .fallback = RPC_ARG_OMITTED,
                                             .description = "private key in base58-encoding"})},
         {.names = "prevtxs",
          .type = RPC_ARG_ARR,
          .fallback = RPC_ARG_OMITTED,
          .description = "The previous dependent transaction outputs",
          .inner = RPC_LIST(
              struct rpc_arg,
              {.names = "",
               .type = RPC_ARG_OBJ,
               .fallback = RPC_ARG_OMITTED,
               .description = "",
               .inner = RPC_LIST(
                   struct rpc_arg,
                   {.names = "txid", .type = RPC_ARG_STR_HEX, .description = "The transaction id"},
                   {.names = "vout", .type = RPC_ARG_NUM, .description = "The output number"},
                   {.names = "scriptPubKey",
                    .type = RPC_ARG_STR_HEX,
                    .description = "output script"},
                   {.names = "redeemScript",
                    .type = RPC_ARG_STR_HEX,
                    .fallback = RPC_ARG_OMITTED,
                    .description = "(required for P2SH) redeem script"},
                   {.names = "witnessScript",
                    .type = RPC_ARG_STR_HEX,
                    .fallback = RPC_ARG_OMITTED,
                    .description = "(required for P2WSH or P2SH-P2WSH) witness script"},
                   {.names = "amount",
                    .type = RPC_ARG_AMOUNT,
                    .fallback = RPC_ARG_OMITTED,
                    .description = "(required for Segwit inputs) the amount spent"})})},
         {.names = "sighashtype",
          .type = RPC_ARG_STR,
          /* Core declares the text as a string default (help quotes it); the handler reads
           * the parameter itself, so here it stays a hint. */
          .fallback = RPC_ARG_DEFAULT_HINT,
          .default_value = "\"DEFAULT for Taproot, ALL otherwise\"",
          .description = "The signature hash type. Must be one of:\n"
                         "       \"DEFAULT\"\n"
                         "       \"ALL\"\n"
                         "       \"NONE\"\n"
                         "       \"SINGLE\"\n"
                         "       \"ALL|ANYONECANPAY\"\n"
                         "       \"NONE|ANYONECANPAY\"\n"
                         "       \"SINGLE|ANYONECANPAY\"\n"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR_HEX,
               .key = "hex",
               .description = "The hex-encoded raw transaction with signature(s)"},
              {.type = RPC_RES_BOOL,
               .key = "complete",
               .description = "If the transaction has a complete set of signatures"},
              {.type = RPC_RES_ARR,
               .key = "errors",
               .optional = true,
               .description = "Script verification errors (if there are any)",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_OBJ,
                    .inner = RPC_LIST(
                        struct rpc_result,
                        {.type = RPC_RES_STR_HEX,
                         .key = "txid",
                         .description = "The hash of the referenced, previous transaction"},
                        {.type = RPC_RES_NUM,
                         .key = "vout",
                         .description = "The index of the output to spent and used as input"},
                        {.type = RPC_RES_ARR,
                         .key = "witness",
                         .inner = RPC_LIST(struct rpc_result,
                                           {.type = RPC_RES_STR_HEX, .key = "witness"})},
                        {.type = RPC_RES_STR_HEX,
                         .key = "scriptSig",
                         .description = "The hex-encoded signature script"},
                        {.type = RPC_RES_NUM,
                         .key = "sequence",
                         .description = "Script sequence number"},
                        {.type = RPC_RES_STR,
                         .key = "error",
                         .description =
                             "Verification or signing error related to the input"})})})}),
     .examples =
         RPC_EXAMPLE_CLI("signrawtransactionwithkey", "\"myhex\" \"[\\\"key1\\\",\\\"key2\\\"]\"")
             RPC_EXAMPLE_RPC("signrawtransactionwithkey",
                             "\"myhex\", \"[\\\"key1\\\",\\\"key2\\\"]\"")},
    {.category = "rawtransactions",
     .name = "decodepsbt",
     .handler = rpc_decodepsbt,
     .description = "Return a JSON object representing the serialized, base64-encoded partially "
                    "signed Bitcoin transaction.",
     .args =
         RPC_LIST(struct rpc_arg,
                  {.names = "psbt", .type = RPC_ARG_STR, .description = "The PSBT base64 string"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .key = "tx",
               .optional = true,
               .description = "The decoded network-serialized unsigned transaction.",
               .inner = RPC_LIST(struct rpc_result, PSBT_DOC_TX)},
              {.type = RPC_RES_ARR,
               .key = "global_xpubs",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_OBJ,
                    .inner = RPC_LIST(
                        struct rpc_result,
                        {.type = RPC_RES_STR,
                         .key = "xpub",
                         .description = "The extended public key this path corresponds to"},
                        {.type = RPC_RES_STR_HEX,
                         .key = "master_fingerprint",
                         .description = "The fingerprint of the master key"},
                        {.type = RPC_RES_STR, .key = "path", .description = "The path"})})},
              {.type = RPC_RES_NUM,
               .key = "tx_version",
               .optional = true,
               .description = "The version number of the unsigned transaction. Not to be "
                              "confused with PSBT version"},
              {.type = RPC_RES_NUM,
               .key = "fallback_locktime",
               .optional = true,
               .description =
                   "The locktime to fallback to if no inputs specify a required locktime."},
              {.type = RPC_RES_NUM,
               .key = "input_count",
               .optional = true,
               .description = "The number of inputs in this psbt"},
              {.type = RPC_RES_NUM,
               .key = "output_count",
               .optional = true,
               .description = "The number of outputs in this psbt."},
              {.type = RPC_RES_BOOL,
               .key = "inputs_modifiable",
               .optional = true,
               .description = "Whether inputs can be modified"},
              {.type = RPC_RES_BOOL,
               .key = "outputs_modifiable",
               .optional = true,
               .description = "Whether outputs can be modified"},
              {.type = RPC_RES_BOOL,
               .key = "has_sighash_single",
               .optional = true,
               .description = "Whether this PSBT has SIGHASH_SINGLE inputs"},
              {.type = RPC_RES_NUM,
               .key = "psbt_version",
               .optional = true,
               .description = "The PSBT version number. Not to be confused with the unsigned "
                              "transaction version"},
              PSBT_DOC_PROPRIETARY("The global proprietary map", false),
              {.type = RPC_RES_OBJ_DYN,
               .key = "unknown",
               .description = "The unknown global fields",
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_STR_HEX,
                                  .key = "key",
                                  .description = "(key-value pair) An unknown key-value pair"})},
              {.type = RPC_RES_ARR,
               .key = "inputs",
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(psbt_doc_input)})},
              {.type = RPC_RES_ARR,
               .key = "outputs",
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(psbt_doc_output)})},
              {.type = RPC_RES_STR_AMOUNT,
               .key = "fee",
               .optional = true,
               .description = "The transaction fee paid if all UTXOs slots in the PSBT have been "
                              "filled."})}),
     .examples = RPC_EXAMPLE_CLI("decodepsbt", "\"psbt\"")},
    {.category = "rawtransactions",
     .name = "combinepsbt",
     .handler = rpc_combinepsbt,
     .description = "Combine multiple partially signed Bitcoin transactions into one "
                    "transaction.\n"
                    "Implements the Combiner role.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "txs",
          .type = RPC_ARG_ARR,
          .description = "The base64 strings of partially signed transactions",
          .inner = RPC_LIST(struct rpc_arg, {.names = "psbt",
                                             .type = RPC_ARG_STR,
                                             .fallback = RPC_ARG_OMITTED,
                                             .description = "A base64 string of a PSBT"})}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_STR, .description = "The base64-encoded partially signed transaction"}),
     .examples = RPC_EXAMPLE_CLI("combinepsbt", "'[\"mybase64_1\", \"mybase64_2\", "
                                                "\"mybase64_3\"]'")},
    {.category = "rawtransactions",
     .name = "finalizepsbt",
     .handler = rpc_finalizepsbt,
     .description = "Finalize the inputs of a PSBT. If the transaction is fully signed, it will "
                    "produce a\n"
                    "network serialized transaction which can be broadcast with "
                    "sendrawtransaction. Otherwise a PSBT will be\n"
                    "created which has the final_scriptSig and final_scriptwitness fields filled "
                    "for inputs that are complete.\n"
                    "Implements the Finalizer and Extractor roles.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "psbt", .type = RPC_ARG_STR, .description = "A base64 string of a PSBT"},
         {.names = "extract",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "true",
          .description = "If true and the transaction is complete,\n"
                         "                             extract and return the "
                         "complete transaction in normal network serialization "
                         "instead of the PSBT."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR,
               .key = "psbt",
               .optional = true,
               .description = "The base64-encoded partially signed transaction if not extracted"},
              {.type = RPC_RES_STR_HEX,
               .key = "hex",
               .optional = true,
               .description = "The hex-encoded network transaction if extracted"},
              {.type = RPC_RES_BOOL,
               .key = "complete",
               .description = "If the transaction has a complete set of signatures"})}),
     .examples = RPC_EXAMPLE_CLI("finalizepsbt", "\"psbt\"")},
    {.category = "rawtransactions",
     .name = "createpsbt",
     .handler = rpc_createpsbt,
     .description = "Creates a transaction in the Partially Signed Transaction format.\n"
                    "Implements the Creator role.\n"
                    "Note that the transaction's inputs are not signed, and\n"
                    "it is not stored in the wallet or transmitted to the network.\n",
     .args = RPC_LIST(struct rpc_arg, CREATE_TX_ARGS, PSBT_VERSION_ARG),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR,
                          .description = "The resulting raw transaction (base64-encoded string)"}),
     .examples = RPC_EXAMPLE_CLI("createpsbt", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\" "
                                               "\"[{\\\"address\\\":0.01}]\"")},
    {.category = "rawtransactions",
     .name = "converttopsbt",
     .handler = rpc_converttopsbt,
     .description = "Converts a network serialized transaction to a PSBT. This should be used "
                    "only with createrawtransaction and fundrawtransaction\n"
                    "createpsbt and walletcreatefundedpsbt should be used for new applications.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "hexstring",
          .type = RPC_ARG_STR_HEX,
          .description = "The hex string of a raw transaction"},
         {.names = "permitsigdata",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "false",
          .description = "If true, any signatures in the input will be discarded and "
                         "conversion\n"
                         "                              will continue. If false, RPC will fail "
                         "if any signatures are present."},
         {.names = "iswitness",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT_HINT,
          .default_value = "depends on heuristic tests",
          .description = "Whether the transaction hex is a serialized witness transaction.\n"
                         "If iswitness is not present, heuristic tests will be used in "
                         "decoding.\n"
                         "If true, only witness deserialization will be tried.\n"
                         "If false, only non-witness deserialization will be tried.\n"
                         "This boolean should reflect whether the transaction has inputs\n"
                         "(e.g. fully valid, or on-chain transactions), if known by the caller."},
         PSBT_VERSION_ARG),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR,
                          .description = "The resulting raw transaction (base64-encoded string)"}),
     .examples = "\nCreate a transaction\n" RPC_EXAMPLE_CLI(
         "createrawtransaction",
         "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\" "
         "\"[{\\\"data\\\":\\\"00010203\\\"}]\"") "\nConvert the "
                                                  "transaction to a "
                                                  "PSBT\n" RPC_EXAMPLE_CLI("converttopsbt",
                                                                           "\"rawtransaction\"")},
    {.category = "rawtransactions",
     .name = "utxoupdatepsbt",
     .handler = rpc_utxoupdatepsbt,
     .description = "Updates all segwit inputs and outputs in a PSBT with data from output "
                    "descriptors, the UTXO set, txindex, or the mempool.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "psbt", .type = RPC_ARG_STR, .description = "A base64 string of a PSBT"},
         {.names = "descriptors",
          .type = RPC_ARG_ARR,
          .fallback = RPC_ARG_OMITTED,
          .description = "An array of either strings or objects",
          .inner = RPC_LIST(
              struct rpc_arg,
              {.names = "",
               .type = RPC_ARG_STR,
               .fallback = RPC_ARG_OMITTED,
               .description = "An output descriptor"},
              {.names = "",
               .type = RPC_ARG_OBJ,
               .fallback = RPC_ARG_OMITTED,
               .description = "An object with an output descriptor and extra information",
               .inner = RPC_LIST(
                   struct rpc_arg,
                   {.names = "desc", .type = RPC_ARG_STR, .description = "An output descriptor"},
                   {.names = "range",
                    .type = RPC_ARG_RANGE,
                    .fallback = RPC_ARG_DEFAULT,
                    .default_value = "1000",
                    .description = "Up to what index HD chains should be explored "
                                   "(either end or [begin,end])"})})}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR,
                          .description = "The base64-encoded partially signed transaction with "
                                         "inputs updated"}),
     .examples = RPC_EXAMPLE_CLI("utxoupdatepsbt", "\"psbt\"")},
    {.category = "rawtransactions",
     .name = "analyzepsbt",
     .handler = rpc_analyzepsbt,
     .description = "Analyzes and provides information about the current status of a PSBT and "
                    "its inputs\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "psbt", .type = RPC_ARG_STR, .description = "A base64 string of a PSBT"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_ARR,
               .key = "inputs",
               .optional = true,
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_OBJ,
                    .inner = RPC_LIST(
                        struct rpc_result,
                        {.type = RPC_RES_BOOL,
                         .key = "has_utxo",
                         .description = "Whether a UTXO is provided"},
                        {.type = RPC_RES_BOOL,
                         .key = "is_final",
                         .description = "Whether the input is finalized"},
                        {.type = RPC_RES_OBJ,
                         .key = "missing",
                         .optional = true,
                         .description =
                             "Things that are missing that are required to complete this input",
                         .inner = RPC_LIST(
                             struct rpc_result,
                             {.type = RPC_RES_ARR,
                              .key = "pubkeys",
                              .optional = true,
                              .inner = RPC_LIST(struct rpc_result,
                                                {.type = RPC_RES_STR_HEX,
                                                 .key = "keyid",
                                                 .description =
                                                     "Public key ID, hash160 of the public key, "
                                                     "of a public key whose BIP 32 derivation "
                                                     "path is missing"})},
                             {.type = RPC_RES_ARR,
                              .key = "signatures",
                              .optional = true,
                              .inner = RPC_LIST(struct rpc_result,
                                                {.type = RPC_RES_STR_HEX,
                                                 .key = "keyid",
                                                 .description =
                                                     "Public key ID, hash160 of the public key, "
                                                     "of a public key whose signature is "
                                                     "missing"})},
                             {.type = RPC_RES_STR_HEX,
                              .key = "redeemscript",
                              .optional = true,
                              .description = "Hash160 of the redeem script that is missing"},
                             {.type = RPC_RES_STR_HEX,
                              .key = "witnessscript",
                              .optional = true,
                              .description = "SHA256 of the witness script that is missing"})},
                        {.type = RPC_RES_STR,
                         .key = "next",
                         .optional = true,
                         .description =
                             "Role of the next person that this input needs to go to"})})},
              {.type = RPC_RES_NUM,
               .key = "estimated_vsize",
               .optional = true,
               .description = "Estimated vsize of the final signed transaction"},
              {.type = RPC_RES_STR_AMOUNT,
               .key = "estimated_feerate",
               .optional = true,
               .description = "Estimated feerate of the final signed transaction in BTC/kvB. "
                              "Shown only if all UTXO slots in the PSBT have been filled"},
              {.type = RPC_RES_STR_AMOUNT,
               .key = "fee",
               .optional = true,
               .description = "The transaction fee paid. Shown only if all UTXO slots in the "
                              "PSBT have been filled"},
              {.type = RPC_RES_STR,
               .key = "next",
               .description = "Role of the next person that this psbt needs to go to"},
              {.type = RPC_RES_STR,
               .key = "error",
               .optional = true,
               .description = "Error message (if there is one)"})}),
     .examples = RPC_EXAMPLE_CLI("analyzepsbt", "\"psbt\"")},
};

void rpc_rawtransaction_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
