/* The mining RPC group: submitblock (BIP22 answers) and submitheader. */
#include "rpc/mining.h"

#include <stdlib.h>
#include <string.h>

#include "consensus/vstate.h"
#include "primitives/block.h"
#include "rpc/blockchain.h"
#include "rpc/context.h"
#include "rpc/protocol.h"
#include "validation/block_check.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* submitblock: BIP22 answers, as Core: null when the block became (part of) the best chain,
 * "duplicate", "duplicate-invalid", "inconclusive" (valid, not best), or the reject reason. */
static json_t *rpc_submitblock(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->cs;
    const char *hx = json_string_value(rpc_param(req, 0));
    struct buf raw;
    struct block b;
    char err[256];
    size_t used = 0;
    buf_init(&raw);
    /* Core's DecodeHexBlk: a block, and whatever follows it is ignored. */
    if (!hx || hex_decode(&raw, hx) != RC_OK ||
        block_parse_prefix(&b, raw.data, raw.len, &used, err, sizeof(err)) != RC_OK) {
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Block decode failed");
    }
    if (b.tx_count == 0 || !tx_is_coinbase(&b.txs[0])) {
        block_clear(&b);
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Block does not start with a coinbase");
    }
    uint8_t hash[32];
    memcpy(hash, b.hash, 32);
    json_t *r = NULL;
    struct vstate st;
    vstate_init(&st);
    chainstate_read_lock(cs);
    /* Core's UpdateUncommittedBlockStructures: a block with a witness commitment whose
     * coinbase has no witness gets the 32-byte zero reserved value (what getblocktemplate
     * leaves to the miner). */
    struct block_index *parent = block_tree_find(chainstate_tree(cs), b.header.prev_hash);
    if (parent && parent->height + 1 >= chainstate_params(cs)->segwit_height &&
        block_witness_commitment_index(&b) >= 0 && b.txs[0].vin[0].witness_count == 0) {
        struct tx_in *in = &b.txs[0].vin[0];
        /* A parsed block's transactions keep their pieces in its arena (tx.h, pooled). */
        in->witness = b.txs[0].pooled ? arena_calloc(b.arena, sizeof(struct bytes))
                                      : xcalloc(1, sizeof(struct bytes));
        in->witness[0].data = b.txs[0].pooled ? arena_calloc(b.arena, 32) : xcalloc(32, 1);
        in->witness[0].len = 32;
        in->witness_count = 1;
        tx_compute_hashes(&b.txs[0]);
        buf_reset(&raw);
        block_serialize(&b, &raw, 1);
        used = raw.len;
    }
    block_clear(&b);
    raw.len = used;
    struct block_index *known = block_tree_find(chainstate_tree(cs), hash);
    if (known && (known->status & BLOCK_HAVE_DATA)) {
        r = json_string(block_index_failed(known) ? "duplicate-invalid" : "duplicate");
        goto out;
    }
    if (known && block_index_failed(known)) {
        r = json_string("duplicate-invalid");
        goto out;
    }
    chainstate_read_unlock(cs);
    /* The validation thread stores it and connects the best chain before answering. */
    struct validator_job j = {
        .work = VALIDATOR_BLOCK, .data = raw.data, .len = raw.len, .connect = 1};
    int rc = validator_run(req->ctx->val, &j);
    chainstate_read_lock(cs);
    if (rc == RC_INVALID) {
        r = json_string(j.st.reject);
        goto out;
    }
    if (rc) {
        rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
        goto out;
    }
    if (!j.is_new) {
        r = json_string("duplicate"); /* another caller stored it first */
        goto out;
    }
    /* Like Core, speak only of this block: its own verdict if connecting it failed, null if
     * it is in the best chain, else "inconclusive" (e.g. an ancestor failed first). */
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    if (chainstate_last_invalid(cs, hash, &st)) {
        r = json_string(st.reject);
    } else if (e && chainstate_contains(cs, e)) {
        r = json_null();
    } else {
        r = json_string("inconclusive");
    }
out:
    chainstate_read_unlock(cs);
    buf_clear(&raw);
    return r;
}

/* submitheader: Core's DecodeHexBlockHeader (hex, at least 80 bytes; the rest ignored), the
 * parent must be known, then the header rules. */
static json_t *rpc_submitheader(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->cs;
    const char *hx = json_string_value(rpc_param(req, 0));
    struct buf raw;
    struct block_header h;
    struct reader r;
    buf_init(&raw);
    if (hex_decode(&raw, hx) != RC_OK || raw.len < 80) {
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Block header decode failed");
    }
    reader_init(&r, raw.data, 80);
    int rc = block_header_parse(&h, &r);
    CHECK_ALWAYS(rc == RC_OK); /* 80 bytes always parse */
    chainstate_read_lock(cs);
    int have_parent = block_tree_find(chainstate_tree(cs), h.prev_hash) != NULL;
    chainstate_read_unlock(cs);
    if (!have_parent) {
        char prev[65];
        hex_encode_rev(prev, h.prev_hash, 32);
        buf_clear(&raw);
        return rpc_error(req, RPC_VERIFY_ERROR, "Must submit previous header (%s) first", prev);
    }
    struct validator_job j = {.work = VALIDATOR_HEADERS, .data = raw.data, .len = 80};
    rc = validator_run(req->ctx->val, &j);
    buf_clear(&raw);
    if (rc == RC_INVALID) {
        return rpc_error(req, RPC_VERIFY_ERROR, "%s", j.st.reject);
    }
    if (rc != RC_OK) {
        return rpc_error(req, RPC_VERIFY_ERROR, "%s", rc_str(rc));
    }
    return json_null();
}

/* ---- declarations -------------------------------------------------------------------- */

static const struct rpc_method methods[] = {
    {.category = "mining",
     .name = "submitblock",
     .handler = rpc_submitblock,
     .description = "Attempts to submit new block to network.\n"
                    "See https://en.bitcoin.it/wiki/BIP_0022 for full specification.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "hexdata",
                       .type = RPC_ARG_STR_HEX,
                       .description = "the hex-encoded block data to submit"},
                      {.names = "dummy",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "ignored",
                       .description = "dummy value, for compatibility with BIP22. This value is "
                                      "ignored."}),
     .results = RPC_LIST(struct rpc_result,
                         {.cond = "If the block was accepted", .type = RPC_RES_NONE},
                         {.cond = "Otherwise", .type = RPC_RES_STR, .description = "According to BIP22"}),
     .examples = RPC_EXAMPLES("submitblock", "\"mydata\"", "\"mydata\"")},
    {.category = "mining",
     .name = "submitheader",
     .handler = rpc_submitheader,
     .description = "Decode the given hexdata as a header and submit it as a candidate chain tip "
                    "if valid.\nThrows when the header is invalid.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "hexdata",
                                       .type = RPC_ARG_STR_HEX,
                                       .description = "the hex-encoded block header data"}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_NONE, .description = "None"}),
     .examples = RPC_EXAMPLES("submitheader", "\"aabbcc\"", "\"aabbcc\"")},
};

void rpc_mining_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
