/* gettxoutproof / verifytxoutproof, with Core's lookups and words: the block is the one given,
 * else the block of the first txid (in byte order) with an unspent output, else the
 * transaction index's block of the smallest txid. */
#include "rpc/txoutproof.h"

#include <stdlib.h>
#include <string.h>

#include "coins/coin.h"
#include "consensus/merkleblock.h"
#include "node/context.h"
#include "primitives/block.h"
#include "rpc/blockchain.h"
#include "rpc/context.h"
#include "rpc/protocol.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

/* Core's MAX_OUTPUTS_PER_BLOCK: AccessByTxid tries the outputs 0..this-1. */
#define MAX_OUTPUTS_PER_BLOCK (4000000 / 36)

static int cmp_hash(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

/* Core's AccessByTxid: the height of an unspent output of txid, or -1. Chain lock held. */
static int32_t unspent_height(struct chainstate *cs, const uint8_t txid[32])
{
    struct outpoint op;
    memcpy(op.txid, txid, 32);
    for (uint32_t n = 0; n < MAX_OUTPUTS_PER_BLOCK; n++) {
        struct coin c;
        op.n = n;
        if (chainstate_get_coin(cs, &op, &c) == RC_OK) {
            int32_t h = (int32_t)c.height;
            coin_clear(&c);
            return h;
        }
    }
    return -1;
}

static int nothing_call(struct chainstate *cs, void *ctx)
{
    (void)cs;
    (void)ctx;
    return 0;
}

/* The -txindex block of txid into bh: 1 found, 0 not (or no index). Waits for the index to
 * catch up with the tip first, as Core's BlockUntilSyncedToCurrentChain. */
static int txindex_block(struct rpc_context *ctx, const uint8_t txid[32], uint8_t bh[32])
{
    struct chainstate *cs = ctx->node->cs;
    int synced = -1;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    int have = chainstate_txindex_info(cs, &synced);
    chainstate_read_unlock(cs);
    if (!have) {
        return 0;
    }
    if (tip && synced < tip->height && ctx->node->val) {
        struct validator_job j = {.work = VALIDATOR_CALL, .fn = nothing_call};
        (void)validator_run(ctx->node->val, &j);
    }
    struct block_index *found = NULL;
    chainstate_read_lock(cs);
    int rc = chainstate_find_tx(cs, txid, &found);
    if (rc == RC_OK) {
        memcpy(bh, found->hash, 32);
    }
    chainstate_read_unlock(cs);
    return rc == RC_OK;
}

/* The txids of param 0, sorted, into *out (caller frees): their count, or -1 after rpc_error. */
static long read_txids(struct rpc_request *req, uint8_t (**out)[32])
{
    json_t *arr = rpc_param(req, 0);
    size_t n = json_array_size(arr);
    if (n == 0) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Parameter 'txids' cannot be empty");
        return -1;
    }
    uint8_t(*ids)[32] = xmalloc(n * 32);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        if (rpc_value_hash(req, v, "txid", ids[i]) != 0) {
            free(ids);
            return -1;
        }
        for (size_t k = 0; k < i; k++) {
            if (memcmp(ids[k], ids[i], 32) == 0) {
                rpc_error(req, RPC_INVALID_PARAMETER, "Invalid parameter, duplicated txid: %s",
                          json_string_value(v));
                free(ids);
                return -1;
            }
        }
    }
    qsort(ids, n, 32, cmp_hash);
    *out = ids;
    return (long)n;
}

/* Finds the block of the proof into bh: 0, or -1 after rpc_error. */
static int find_block(struct rpc_request *req, const uint8_t (*ids)[32], size_t n, uint8_t bh[32])
{
    struct chainstate *cs = req->ctx->node->cs;
    if (rpc_arg_hash(req, 1)) {
        memcpy(bh, rpc_arg_hash(req, 1), 32);
        chainstate_read_lock(cs);
        int known = block_tree_find(chainstate_tree(cs), bh) != NULL;
        chainstate_read_unlock(cs);
        if (!known) {
            rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
            return -1;
        }
        return 0;
    }
    int found = 0;
    chainstate_read_lock(cs);
    for (size_t i = 0; i < n && !found; i++) {
        int32_t h = unspent_height(cs, ids[i]);
        struct block_index *e = h >= 0 ? chainstate_at_height(cs, h) : NULL;
        if (e) {
            memcpy(bh, e->hash, 32);
            found = 1;
        }
    }
    chainstate_read_unlock(cs);
    if (found || txindex_block(req->ctx, ids[0], bh)) {
        return 0;
    }
    rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Transaction not yet in block");
    return -1;
}

static json_t *rpc_gettxoutproof(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    uint8_t(*ids)[32] = NULL;
    long n = read_txids(req, &ids);
    if (n < 0) {
        return NULL;
    }
    uint8_t bh[32];
    struct block b;
    struct buf raw;
    json_t *r = NULL;
    block_init(&b);
    buf_init(&raw);
    if (find_block(req, (const uint8_t(*)[32])ids, (size_t)n, bh) != 0) {
        goto out;
    }
    chainstate_read_lock(cs);
    struct block_index *e = block_tree_find(chainstate_tree(cs), bh);
    struct block_index at = *e;
    chainstate_read_unlock(cs);
    if (rpc_load_block(req, &at, &b, &raw)) {
        goto out;
    }
    uint8_t(*txids)[32] = xmalloc((b.tx_count ? b.tx_count : 1) * 32);
    uint8_t *match = xcalloc(b.tx_count ? b.tx_count : 1, 1);
    long found = 0;
    for (size_t i = 0; i < b.tx_count; i++) {
        memcpy(txids[i], b.txs[i].txid, 32);
        if (bsearch(b.txs[i].txid, ids, (size_t)n, 32, cmp_hash)) {
            match[i] = 1;
            found++;
        }
    }
    if (found != n) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                  "Not all transactions found in specified or retrieved block");
    } else {
        struct partial_merkle pm;
        struct buf ser;
        uint8_t hdr[80];
        partial_merkle_init(&pm);
        partial_merkle_build(&pm, (const uint8_t(*)[32])txids, match, b.tx_count);
        buf_init(&ser);
        block_header_serialize(&b.header, hdr);
        buf_append(&ser, hdr, 80);
        partial_merkle_serialize(&pm, &ser);
        char *hx = hex_encode_alloc(ser.data, ser.len);
        r = json_string(hx);
        free(hx);
        buf_clear(&ser);
        partial_merkle_clear(&pm);
    }
    free(txids);
    free(match);
out:
    block_clear(&b);
    buf_clear(&raw);
    free(ids);
    return r;
}

static json_t *rpc_verifytxoutproof(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    const char *s = json_string_value(rpc_param(req, 0));
    struct buf bytes;
    struct block_header h;
    struct partial_merkle pm;
    struct reader rd;
    uint8_t(*matches)[32] = NULL;
    uint32_t *index = NULL;
    size_t n_matches = 0;
    json_t *r = NULL;
    buf_init(&bytes);
    partial_merkle_init(&pm);
    if (!*s || strlen(s) % 2 || hex_decode(&bytes, s) != RC_OK) {
        rpc_error(req, RPC_INVALID_PARAMETER, "proof must be hexadecimal string (not '%s')", s);
        goto out;
    }
    reader_init(&rd, bytes.data, bytes.len);
    if (block_header_parse(&h, &rd) != RC_OK || partial_merkle_parse(&pm, &rd) != RC_OK) {
        /* Core: the stream's exception, as an RPC_MISC_ERROR. */
        rpc_error(req, RPC_MISC_ERROR, "SpanReader::read(): end of data: iostream error");
        goto out;
    }
    uint8_t root[32];
    r = json_array();
    if (partial_merkle_extract(&pm, root, &matches, &index, &n_matches) != RC_OK ||
        memcmp(root, h.merkle_root, 32) != 0) {
        goto out;
    }
    uint8_t hash[32];
    block_header_hash(&h, hash);
    chainstate_read_lock(cs);
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    int in_chain = e && chainstate_at_height(cs, e->height) == e && e->tx_count != 0;
    uint32_t n_tx = in_chain ? e->tx_count : 0;
    chainstate_read_unlock(cs);
    if (!in_chain) {
        json_decref(r);
        r = NULL;
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found in chain");
        goto out;
    }
    if (n_tx == pm.n_tx) {
        for (size_t i = 0; i < n_matches; i++) {
            char hx[65];
            hex_encode_rev(hx, matches[i], 32);
            json_array_append_new(r, json_string(hx));
        }
    }
out:
    free(matches);
    free(index);
    partial_merkle_clear(&pm);
    buf_clear(&bytes);
    return r;
}

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "gettxoutproof",
     .handler = rpc_gettxoutproof,
     .description =
         "Returns a hex-encoded proof that \"txid\" was included in a block.\n"
         "\nNOTE: By default this function only works sometimes. This is when there is an\n"
         "unspent output in the utxo for this transaction. To make it always work,\n"
         "you need to maintain a transaction index, using the -txindex command line option or\n"
         "specify the block in which the transaction is included manually (by blockhash).\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "txids",
                       .type = RPC_ARG_ARR,
                       .description = "The txids to filter",
                       .inner = RPC_LIST(struct rpc_arg, {.names = "txid",
                                                          .type = RPC_ARG_STR_HEX,
                                                          .fallback = RPC_ARG_OMITTED,
                                                          .description = "A transaction hash"})},
                      {.names = "blockhash",
                       .type = RPC_ARG_STR_HEX,
                       .fallback = RPC_ARG_OMITTED,
                       .description = "If specified, looks for txid in the block with this hash",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "blockhash"}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR,
                          .key = "data",
                          .description = "A string that is a serialized, hex-encoded data for the "
                                         "proof."})},
    {.category = "blockchain",
     .name = "verifytxoutproof",
     .handler = rpc_verifytxoutproof,
     .description = "Verifies that a proof points to a transaction in a block, returning the "
                    "transaction it commits to\n"
                    "and throwing an RPC error if the block is not in our best chain\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "proof",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The hex-encoded proof generated by gettxoutproof"}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_ARR,
                          .inner = RPC_LIST(struct rpc_result,
                                            {.type = RPC_RES_STR_HEX,
                                             .key = "txid",
                                             .description =
                                                 "The txid(s) which the proof commits to, or "
                                                 "empty array if the proof cannot be "
                                                 "validated."})})},
};

void rpc_txoutproof_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
