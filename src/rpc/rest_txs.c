/* The REST endpoints of transactions (rest_txs.h): the mempool, a transaction, and the UTXO
 * set (getutxos). Each follows its counterpart in Core's src/rest.cpp check for check, so
 * that the first failure is the one Core reports; the JSON comes from the RPC builders
 * (rpc_mempool_info_json, rpc_call_method, rpc_tx_json).
 */
#include "rpc/rest_txs.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "coins/coin.h"
#include "mempool/mempool.h"
#include "node/context.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/mempool.h"
#include "rpc/protocol.h"
#include "rpc/rest_util.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

#define MAX_GETUTXOS_OUTPOINTS 15
/* Core's MEMPOOL_HEIGHT: the height getutxos shows for an output of a pool transaction. */
#define MEMPOOL_HEIGHT 0x7FFFFFFF

/* ---- /rest/mempool/ ------------------------------------------------------------------ */

int rest_mempool(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    char *param;
    enum rest_format rf = rest_parse_format(r->part, &param);
    int contents = strcmp(param, "contents") == 0, info = strcmp(param, "info") == 0;
    int verbose, seq;
    free(param);
    if (!contents && !info) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST,
                        "Invalid URI format. Expected /rest/mempool/<info|contents>.json");
    }
    if (!r->ctx->node->mempool) {
        return rest_err(r, RPC_HTTP_NOT_FOUND, "Mempool disabled or instance not found");
    }
    if (rf != REST_FMT_JSON) {
        return rest_json_only_404(r);
    }
    if (info) {
        rest_reply_json(r, REST_CACHE_NO_STORE, rpc_mempool_info_json(r->ctx));
        return 1;
    }
    if (!rest_query_bool(r, "verbose", 1, &verbose)) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST,
                        "The \"verbose\" query parameter must be either \"true\" or \"false\".");
    }
    if (!rest_query_bool(r, "mempool_sequence", 0, &seq)) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST, "The \"mempool_sequence\" query parameter must "
                                                 "be either \"true\" or \"false\".");
    }
    if (verbose && seq) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST,
                        "Verbose results cannot contain mempool sequence values. (hint: set "
                        "\"verbose=false\")");
    }
    return rest_reply_rpc(r, "getrawmempool", json_pack("[bb]", verbose, seq), REST_CACHE_NO_STORE);
}

/* ---- /rest/tx/ ----------------------------------------------------------------------- */

static int nothing_call(struct chainstate *cs, void *ctx)
{
    (void)cs;
    (void)ctx;
    return 0;
}

/* Core's g_txindex->BlockUntilSyncedToCurrentChain: the index is written on the validation
 * thread when the tip settles; while it is behind the tip, wait for the jobs queued now (an
 * empty call queued behind them). */
static void txindex_wait(struct rpc_context *ctx)
{
    struct chainstate *cs = ctx->node->cs;
    int synced = -1;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    int behind = chainstate_txindex_info(cs, &synced) && tip && synced < tip->height;
    chainstate_read_unlock(cs);
    if (behind && ctx->node->val) {
        struct validator_job j = {.work = VALIDATOR_CALL, .fn = nothing_call};
        (void)validator_run(ctx->node->val, &j);
    }
}

/* A copy of the pool's transaction txid into *tx (caller clears). 1, or 0 if none. */
static int tx_from_mempool(struct rpc_context *ctx, const uint8_t txid[32], struct tx *tx)
{
    struct mempool *mp = ctx->node->mempool;
    if (!mp) {
        return 0;
    }
    mempool_read_lock(mp);
    struct mempool_entry *e = mempool_get(mp, txid);
    if (e) {
        tx_copy(tx, &e->tx);
    }
    mempool_read_unlock(mp);
    return e != NULL;
}

/* -txindex (Core's TxIndex::FindTx): the transaction txid from the block of the active chain
 * the index names, read without the lock. 1 with *tx (caller clears) and block_hash, or 0
 * (no index, not indexed, or a block that cannot be read, as Core). */
static int tx_from_txindex(struct chainstate *cs, const uint8_t txid[32], struct tx *tx,
                           uint8_t block_hash[32])
{
    struct block_index *e = NULL, at;
    int synced, found = 0;
    memset(&at, 0, sizeof(at));
    chainstate_read_lock(cs);
    int rc = chainstate_txindex_info(cs, &synced) ? chainstate_find_tx(cs, txid, &e) : RC_USAGE;
    if (rc == RC_OK) {
        at = *e;
    }
    chainstate_read_unlock(cs);
    if (rc != RC_OK) {
        return 0;
    }
    struct buf raw;
    struct block b;
    char why[256];
    buf_init(&raw);
    if (chainstate_read_block(cs, &at, &raw) == RC_OK &&
        block_parse(&b, raw.data, raw.len, why, sizeof(why)) == RC_OK) {
        for (size_t i = 0; i < b.tx_count && !found; i++) {
            if (memcmp(b.txs[i].txid, txid, 32) == 0) {
                tx_copy(tx, &b.txs[i]);
                tx_compute_hashes(tx);
                memcpy(block_hash, at.hash, 32);
                found = 1;
            }
        }
        block_clear(&b);
    }
    buf_clear(&raw);
    return found;
}

int rest_tx(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *hash_str;
    enum rest_format rf = rest_parse_format(r->part, &hash_str);
    uint8_t txid[32], block_hash[32] = {0};
    struct tx tx;
    int ok = 0, confirmed = 0;
    tx_init(&tx);
    if (!rest_parse_hash(hash_str, txid)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
        goto out;
    }
    txindex_wait(r->ctx);
    /* Core's GetTransaction without a block: the pool first, then -txindex. */
    if (!tx_from_mempool(r->ctx, txid, &tx)) {
        confirmed = tx_from_txindex(cs, txid, &tx, block_hash);
        if (!confirmed) {
            rest_err(r, RPC_HTTP_NOT_FOUND, "%s not found", hash_str);
            goto out;
        }
    }
    struct buf ser;
    buf_init(&ser);
    tx_serialize(&tx, &ser, 1);
    if (rf == REST_FMT_BIN || rf == REST_FMT_HEX) {
        rest_reply_data(r, rf, REST_CACHE_NO_STORE, ser.data, ser.len);
        ok = 1;
    } else if (rf == REST_FMT_JSON) {
        /* Core's TxToUniv(tx, block_hash, include_hex): blockhash before hex, and none of
         * getrawtransaction's confirmations or times. */
        json_t *o = rpc_tx_json(&tx, chainstate_params(cs), NULL, RPC_VERBOSITY_TXID, 0);
        if (confirmed) {
            json_object_set_new(o, "blockhash", rpc_hash_json(block_hash));
        }
        char *hx = hex_encode_alloc(ser.data, ser.len);
        json_object_set_new(o, "hex", json_string(hx));
        free(hx);
        rest_reply_json(r, REST_CACHE_NO_STORE, o);
        ok = 1;
    } else {
        rest_formats_404(r);
    }
    buf_clear(&ser);
out:
    tx_clear(&tx);
    free(hash_str);
    return ok;
}

/* ---- /rest/getutxos ------------------------------------------------------------------ */

/* The outpoints a getutxos request asks for, and whether the mempool counts. */
struct utxo_query {
    struct outpoint *ops;
    size_t n;
    int checkmempool;
};

/* What was found: the tip's height and hash, a hit per outpoint, the coins found in order. */
struct utxo_result {
    int32_t height;
    uint8_t tip[32];
    uint8_t *hits;
    struct coin *coins;
    size_t n_coins;
};

static void utxo_add(struct utxo_query *q, const uint8_t txid[32], uint32_t n)
{
    q->ops = xrealloc(q->ops, (q->n + 1) * sizeof(*q->ops));
    memcpy(q->ops[q->n].txid, txid, 32);
    q->ops[q->n].n = n;
    q->n++;
}

/* The outpoints of the path (Core's /rest/getutxos[/checkmempool]/<txid>-<n>/...): param
 * is the part before the format, leading '/' included; nothing is read when it is at most
 * one character long. 1 (*parsed: outpoints came from the path), or 0 after the error. */
static int utxo_uri_outpoints(struct rest_req *r, const char *param, struct utxo_query *q,
                              int *parsed)
{
    *parsed = 0;
    if (strlen(param) <= 1) {
        return 1;
    }
    size_t np;
    char **parts = rest_split(param + 1, '/', &np);
    q->checkmempool = strcmp(parts[0], "checkmempool") == 0;
    for (size_t i = q->checkmempool ? 1 : 0; i < np; i++) {
        size_t nn;
        char **tn = rest_split(parts[i], '-', &nn);
        uint8_t txid[32];
        uint64_t v = 0;
        int good = nn == 2 && rest_parse_hash(tn[0], txid) &&
                   rest_parse_unsigned(tn[1], strlen(tn[1]), UINT32_MAX, &v);
        rest_free_parts(tn, nn);
        if (!good) {
            rest_free_parts(parts, np);
            return rest_err(r, RPC_HTTP_BAD_REQUEST, "Parse error");
        }
        utxo_add(q, txid, (uint32_t)v);
    }
    rest_free_parts(parts, np);
    if (q->n == 0) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST, "Error: empty request");
    }
    *parsed = 1;
    return 1;
}

/* Core's deserialization of a getutxos body, quirk included: Core writes the body into a
 * stream as a string (compactsize(len) || body) and reads the checkmempool flag (a byte,
 * nonzero: true) and the outpoints (a compactsize count, then txid[32] n[u32] each) from
 * that, so the flag is the length's first byte. Bytes left over are ignored. 1, or 0 on any
 * failure (short, a non-canonical or too large count). */
static int utxo_read_body(const struct buf *body, struct utxo_query *q)
{
    struct buf s;
    struct reader rd;
    uint8_t flag = 0;
    uint64_t n = 0;
    int ok = 0;
    buf_init(&s);
    ser_put_compact(&s, body->len);
    buf_append(&s, body->data, body->len);
    reader_init(&rd, s.data, s.len);
    if (reader_u8(&rd, &flag, "checkmempool") == RC_OK &&
        ser_get_compact(&rd, &n, "outpoints") == RC_OK && n <= reader_left(&rd) / 36) {
        q->checkmempool = flag != 0;
        for (uint64_t i = 0; i < n; i++) {
            uint8_t txid[32] = {0};
            uint32_t idx = 0;
            (void)reader_bytes(&rd, txid, 32, "txid");
            (void)reader_u32le(&rd, &idx, "n");
            utxo_add(q, txid, idx);
        }
        ok = rd.rc == RC_OK;
    }
    buf_clear(&s);
    return ok;
}

/* The body forms (.bin; .hex, decoded first with Core's ParseHex: bad hex is no body). A
 * body beside outpoints of the path is refused. 1, or 0 after the error. */
static int utxo_body_outpoints(struct rest_req *r, enum rest_format rf, int uri_parsed,
                               struct utxo_query *q)
{
    struct buf body;
    int ok = 1;
    buf_init(&body);
    if (rf == REST_FMT_HEX) {
        rest_parse_hex_lenient(r->body, r->body_len, &body);
    } else {
        buf_append(&body, r->body, r->body_len);
    }
    if (body.len > 0) {
        if (uri_parsed) {
            ok = rest_err(r, RPC_HTTP_BAD_REQUEST,
                          "Combination of URI scheme inputs and raw post data is not allowed");
        } else if (!utxo_read_body(&body, q)) {
            ok = rest_err(r, RPC_HTTP_BAD_REQUEST, "Parse error");
        }
    }
    buf_clear(&body);
    return ok;
}

/* One outpoint as Core's getutxos looks it up: with the pool (mp), an output a pool
 * transaction spends is gone and one a pool transaction creates is there at MEMPOOL_HEIGHT
 * (Core's CCoinsViewMemPool); else the active chain's UTXO set. 0 with *c (caller clears),
 * RC_NOT_FOUND, or a store error. Chain lock (and the pool's, with mp) held. */
static int utxo_coin(struct chainstate *cs, struct mempool *mp, const struct outpoint *op,
                     struct coin *c)
{
    memset(c, 0, sizeof(*c));
    if (mp) {
        if (mempool_spender(mp, op)) {
            return RC_NOT_FOUND;
        }
        struct mempool_entry *e = mempool_get(mp, op->txid);
        if (e) {
            if (op->n >= e->tx.vout_count) {
                return RC_NOT_FOUND;
            }
            const struct tx_out *o = &e->tx.vout[op->n];
            c->value_sat = o->value_sat;
            c->height = MEMPOOL_HEIGHT;
            c->script_pubkey.len = o->script_pubkey.len;
            c->script_pubkey.data = xmalloc(o->script_pubkey.len ? o->script_pubkey.len : 1);
            if (o->script_pubkey.len) {
                memcpy(c->script_pubkey.data, o->script_pubkey.data, o->script_pubkey.len);
            }
            return RC_OK;
        }
    }
    return chainstate_tip(cs) ? chainstate_get_coin(cs, op, c) : RC_NOT_FOUND;
}

/* Looks every outpoint of q up, and takes the tip's height and hash, under one chain read
 * lock (then the pool's, with checkmempool: Core's LOCK2(cs_main, mempool->cs)). Returns 0,
 * or a store error. Caller clears res (utxo_result_clear). */
static int utxo_lookup(struct rpc_context *ctx, const struct utxo_query *q,
                       struct utxo_result *res)
{
    struct chainstate *cs = ctx->node->cs;
    struct mempool *mp = q->checkmempool ? ctx->node->mempool : NULL;
    int rc = RC_OK;
    res->hits = xcalloc(q->n ? q->n : 1, 1);
    res->coins = xcalloc(q->n ? q->n : 1, sizeof(*res->coins));
    chainstate_read_lock(cs);
    if (mp) {
        mempool_read_lock(mp);
    }
    for (size_t i = 0; i < q->n && rc == RC_OK; i++) {
        struct coin c;
        int found = utxo_coin(cs, mp, &q->ops[i], &c);
        if (found == RC_OK) {
            res->hits[i] = 1;
            res->coins[res->n_coins++] = c;
        } else if (found != RC_NOT_FOUND) {
            rc = found;
        }
    }
    struct block_index *tip = chainstate_tip(cs);
    res->height = tip ? tip->height : -1;
    if (tip) {
        memcpy(res->tip, tip->hash, 32);
    }
    if (mp) {
        mempool_read_unlock(mp);
    }
    chainstate_read_unlock(cs);
    return rc;
}

static void utxo_result_clear(struct utxo_result *res)
{
    for (size_t i = 0; i < res->n_coins; i++) {
        coin_clear(&res->coins[i]);
    }
    free(res->coins);
    free(res->hits);
    memset(res, 0, sizeof(*res));
}

/* The answer: .bin/.hex are Core's (BIP64's) serialization: i32 chainHeight, the tip hash
 * (internal order), the bitmap as a byte vector (bit i of byte i/8, LSB first), then the
 * coins as CCoin (u32 0, u32 height, CTxOut). .json the same in Core's words. */
static void utxo_reply(struct rest_req *r, enum rest_format rf, const struct utxo_query *q,
                       const struct utxo_result *res)
{
    if (rf == REST_FMT_JSON) {
        const struct chain_params *p = chainstate_params(r->ctx->node->cs);
        char *bits = xmalloc(q->n + 1);
        json_t *o = json_object(), *utxos = json_array();
        for (size_t i = 0; i < q->n; i++) {
            bits[i] = res->hits[i] ? '1' : '0';
        }
        bits[q->n] = 0;
        json_object_set_new(o, "chainHeight", json_integer(res->height));
        json_object_set_new(o, "chaintipHash", rpc_hash_json(res->tip));
        json_object_set_new(o, "bitmap", json_string(bits));
        free(bits);
        for (size_t i = 0; i < res->n_coins; i++) {
            const struct coin *c = &res->coins[i];
            json_t *u = json_object();
            json_object_set_new(u, "height", json_integer((json_int_t)c->height));
            json_object_set_new(u, "value", rpc_json_amount(c->value_sat));
            json_object_set_new(u, "scriptPubKey", rpc_script_pubkey_json(c->script_pubkey.data,
                                                                          c->script_pubkey.len,
                                                                          p, 1));
            json_array_append_new(utxos, u);
        }
        json_object_set_new(o, "utxos", utxos);
        rest_reply_json(r, REST_CACHE_NO_STORE, o);
        return;
    }
    struct buf b;
    size_t nbytes = (q->n + 7) / 8;
    buf_init(&b);
    buf_put_u32le(&b, (uint32_t)res->height);
    buf_append(&b, res->tip, 32);
    ser_put_compact(&b, nbytes);
    for (size_t k = 0; k < nbytes; k++) {
        uint8_t byte = 0;
        for (size_t i = k * 8; i < q->n && i < k * 8 + 8; i++) {
            byte |= (uint8_t)(res->hits[i] << (i % 8));
        }
        buf_put_u8(&b, byte);
    }
    ser_put_compact(&b, res->n_coins);
    for (size_t i = 0; i < res->n_coins; i++) {
        const struct coin *c = &res->coins[i];
        buf_put_u32le(&b, 0); /* Core's nTxVerDummy */
        buf_put_u32le(&b, c->height);
        buf_put_u64le(&b, (uint64_t)c->value_sat);
        ser_put_varbytes(&b, c->script_pubkey.data, c->script_pubkey.len);
    }
    rest_reply_data(r, rf, REST_CACHE_NO_STORE, b.data, b.len);
    buf_clear(&b);
}

int rest_getutxos(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    char *param;
    enum rest_format rf = rest_parse_format(r->part, &param);
    struct utxo_query q = {0};
    struct utxo_result res = {0};
    int parsed = 0, ok = 0;
    if (r->body_len == 0 && strlen(param) <= 1) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Error: empty request");
        goto out;
    }
    if (!utxo_uri_outpoints(r, param, &q, &parsed)) {
        goto out;
    }
    if (rf == REST_FMT_BIN || rf == REST_FMT_HEX) {
        if (!utxo_body_outpoints(r, rf, parsed, &q)) {
            goto out;
        }
    } else if (rf == REST_FMT_JSON) {
        if (!parsed) {
            rest_err(r, RPC_HTTP_BAD_REQUEST, "Error: empty request");
            goto out;
        }
    } else {
        rest_formats_404(r);
        goto out;
    }
    if (q.n > MAX_GETUTXOS_OUTPOINTS) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Error: max outpoints exceeded (max: %d, tried: %zu)",
                 MAX_GETUTXOS_OUTPOINTS, q.n);
        goto out;
    }
    if (q.checkmempool && !r->ctx->node->mempool) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "Mempool disabled or instance not found");
        goto out;
    }
    int rc = utxo_lookup(r->ctx, &q, &res);
    if (rc) {
        rest_err(r, RPC_HTTP_INTERNAL_SERVER_ERROR, "Unable to read the UTXO set (%s)",
                 rc_str(rc));
        goto out;
    }
    utxo_reply(r, rf, &q, &res);
    ok = 1;
out:
    utxo_result_clear(&res);
    free(q.ops);
    free(param);
    return ok;
}
