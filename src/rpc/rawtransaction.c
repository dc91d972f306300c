/* The rawtransactions RPC group: getrawtransaction, decoderawtransaction, decodescript, in
 * Bitcoin Core's shapes. */
#include "rpc/rawtransaction.h"

#include <stdlib.h>
#include <string.h>

#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "rpc/resultdoc.h"
#include "util/hex.h"
#include "util/rc.h"

static json_t *rpc_getrawtransaction(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->cs;
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
    struct chainstate *cs = req->ctx->cs;
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
    struct chainstate *cs = req->ctx->cs;
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
          .inner = RPC_LIST(struct rpc_result,
                            RPC_DOC_TX_BLOCK_FIELDS(RPC_ELIDE_NONE, NULL, RPC_ELIDE_NONE),
                            RPC_DOC_TX_FIELDS("The transaction id (same as provided)",
                                              RPC_ELIDE_NONE, NULL, RPC_ELIDE_NONE,
                                              RPC_ELIDE_NONE, rpc_doc_vin)),
          .cond = "if verbosity is set to 1"},
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            RPC_DOC_TX_BLOCK_FIELDS(RPC_ELIDE_TEXT, "Same output as verbosity = 1",
                                                    RPC_ELIDE_SKIP),
                            {.type = RPC_RES_NUM,
                             .key = "fee",
                             .optional = true,
                             .description = "transaction fee in BTC, omitted if block undo data "
                                            "is not available"},
                            RPC_DOC_TX_FIELDS("The transaction id", RPC_ELIDE_SKIP, NULL,
                                              RPC_ELIDE_SKIP, RPC_ELIDE_NONE,
                                              rpc_doc_vin_prevout_rawtx)),
          .cond = "for verbosity = 2"}),
     .examples = RPC_EXAMPLE_CLI("getrawtransaction", "\"mytxid\"")
         RPC_EXAMPLE_CLI("getrawtransaction", "\"mytxid\" 1")
         RPC_EXAMPLE_RPC("getrawtransaction", "\"mytxid\", 1")
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
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_OBJ,
                          .inner = RPC_LIST(struct rpc_result,
                                            RPC_DOC_TX_FIELDS("The transaction id", RPC_ELIDE_NONE,
                                                              NULL, RPC_ELIDE_NONE, RPC_ELIDE_NONE,
                                                              rpc_doc_vin))}),
     .examples = RPC_EXAMPLES("decoderawtransaction", "\"hexstring\"", "\"hexstring\"")},
    {.category = "rawtransactions",
     .name = "decodescript",
     .handler = rpc_decodescript,
     .description = "Decode a hex-encoded script.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "hexstring",
                                       .type = RPC_ARG_STR_HEX,
                                       .description = "the hex-encoded script"}),
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
};

void rpc_rawtransaction_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
