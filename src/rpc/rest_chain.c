/* The REST endpoints of the chain (rest_chain.h): blocks, headers, block filters, the chain's
 * state and deployments, block hashes by height and spent outputs. Each follows its
 * counterpart in Core's src/rest.cpp check for check, so that the first failure is the one
 * Core reports; the JSON comes from the RPC builders (rpc/blockjson.h,
 * rpc_block_verbose_json, rpc_call_method).
 */
#include "rpc/rest_chain.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "coins/coin.h"
#include "coins/undo.h"
#include "index/blockfilterindex.h"
#include "node/context.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "rpc/rest_util.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
/* ---- /rest/block/, /rest/block/notxdetails/, /rest/blockpart/ ------------------------ */

struct block_part {
    size_t offset, size;
};

/* The .json of /block/ (getblock verbosity 3) and /block/notxdetails/ (verbosity 1): the
 * block read (raw) parsed and rendered by getblock's own code. 1, or 0 after the error. */
static int block_json_reply(struct rest_req *r, const struct block_index *at,
                            const struct rpc_block_facts *f, const struct buf *raw,
                            const char *hash_str, int verbosity)
{
    struct block b;
    char why[256];
    if (block_parse(&b, raw->data, raw->len, why, sizeof(why)) != RC_OK) {
        return rest_err(r, RPC_HTTP_INTERNAL_SERVER_ERROR, "I/O error reading %s", hash_str);
    }
    struct rpc_request q = {.ctx = r->ctx};
    json_t *v = rpc_block_verbose_json(&q, at, f, &b, verbosity);
    block_clear(&b);
    if (!v) {
        rest_err(r, RPC_HTTP_INTERNAL_SERVER_ERROR, "%s", q.err_msg ? q.err_msg : "");
        free(q.err_msg);
        return 0;
    }
    rest_reply_json(r, REST_CACHE_NO_STORE, v);
    return 1;
}

/* Core's rest_block: verbosity 0 refuses .json (blockpart); part: the byte range asked for,
 * or NULL for the whole block. */
static int rest_block(struct rest_req *r, int verbosity, const struct block_part *part)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *hash_str;
    enum rest_format rf = rest_parse_format(r->part, &hash_str);
    uint8_t hash[32];
    struct block_index at;
    struct rpc_block_facts f;
    struct buf raw;
    int pruned = 0, ok = 0;
    memset(&at, 0, sizeof(at));
    memset(&f, 0, sizeof(f));
    buf_init(&raw);
    if (!rest_parse_hash(hash_str, hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
        goto out;
    }
    if (!rest_lookup_entry(r, hash, hash_str, &at, &f, &pruned)) {
        goto out;
    }
    if (!(at.status & BLOCK_HAVE_DATA)) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "%s not available (%s)", hash_str,
                 pruned ? "pruned data" : "not fully downloaded");
        goto out;
    }
    /* Without the lock; any failure (a file gone, bad magic, a short read) is Core's I/O
     * error. */
    if (chainstate_read_block(cs, &at, &raw) != RC_OK) {
        rest_err(r, RPC_HTTP_INTERNAL_SERVER_ERROR, "I/O error reading %s", hash_str);
        goto out;
    }
    const uint8_t *p = raw.data;
    size_t n = raw.len;
    if (part) {
        /* Core's ReadRawBlock: an empty part, or one past the end (offset + size
         * saturating), is a bad range. */
        if (part->size == 0 || part->offset > n || part->size > n - part->offset) {
            rest_err(r, RPC_HTTP_BAD_REQUEST, "Bad block part offset/size %zu/%zu for %s",
                     part->offset, part->size, hash_str);
            goto out;
        }
        p += part->offset;
        n = part->size;
    }
    switch (rf) {
    case REST_FMT_BIN:
    case REST_FMT_HEX:
        rest_reply_data(r, rf, REST_CACHE_IMMUTABLE, p, n);
        ok = 1;
        break;
    case REST_FMT_JSON:
        if (!verbosity) {
            rest_err(r, RPC_HTTP_BAD_REQUEST, "JSON output is not supported for this request type");
            break;
        }
        ok = block_json_reply(r, &at, &f, &raw, hash_str, verbosity);
        break;
    default:
        rest_formats_404(r);
    }
out:
    buf_clear(&raw);
    free(hash_str);
    return ok;
}

int rest_block_extended(struct rest_req *r)
{
    return rest_block(r, RPC_VERBOSITY_PREVOUT, NULL);
}

int rest_block_notxdetails(struct rest_req *r)
{
    return rest_block(r, RPC_VERBOSITY_TXID, NULL);
}

/* Core checks the query before the warm-up here. */
int rest_block_part(struct rest_req *r)
{
    char *v;
    size_t n;
    uint64_t offset = 0, size = 0;
    int have = rest_query_param(r->uri, "offset", &v, &n);
    int ok = have && rest_parse_unsigned(v, n, SIZE_MAX, &offset);
    if (have) {
        free(v);
    }
    if (!ok) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST, "Block part offset missing or invalid");
    }
    have = rest_query_param(r->uri, "size", &v, &n);
    ok = have && rest_parse_unsigned(v, n, SIZE_MAX, &size);
    if (have) {
        free(v);
    }
    if (!ok) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST, "Block part size missing or invalid");
    }
    struct block_part part = {(size_t)offset, (size_t)size};
    return rest_block(r, 0, &part);
}

/* ---- /rest/headers/ ------------------------------------------------------------------ */

/* The first block and the count of /headers and /blockfilterheaders, checked in Core's
 * order. The path's pieces after the first skip (the filter type) are <hash>, with the count
 * in the query, or the deprecated <count>/<hash> (/rest/headers/<count>/<hash>.<ext>,
 * /rest/blockfilterheaders/<type>/<count>/<hash>.<ext>); any other number of pieces is
 * Core's 400 with usage as its text. Then the count (rest_parse_count), then the hash.
 * 1 with hash and *count, or 0 after the error reply. */
static int walk_args(struct rest_req *r, char **parts, size_t np, size_t skip,
                     const char *usage, uint8_t hash[32], size_t *count)
{
    const char *hash_str;
    char *raw;
    size_t raw_len;
    if (np == skip + 2) {
        hash_str = parts[skip + 1];
        raw = xstrdup(parts[skip]);
        raw_len = strlen(parts[skip]);
    } else if (np == skip + 1) {
        hash_str = parts[skip];
        rest_query_count(r, &raw, &raw_len);
    } else {
        return rest_err(r, RPC_HTTP_BAD_REQUEST, "%s", usage);
    }
    int ok = rest_parse_count(r, raw, raw_len, count);
    free(raw);
    if (ok && !rest_parse_hash(hash_str, hash)) {
        ok = rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
    }
    return ok;
}

int rest_headers(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *param;
    size_t np, n = 0, count = 0;
    enum rest_format rf = rest_parse_format(r->part, &param);
    char **parts = rest_split(param, '/', &np);
    struct rest_header_row *rows = NULL;
    uint8_t hash[32];
    int ok = 0;
    if (!walk_args(r, parts, np, 0,
                   "Invalid URI format. Expected /rest/headers/<hash>.<ext>?count=<count>", hash,
                   &count)) {
        goto out;
    }
    rows = rest_active_from(cs, hash, count, &n);
    switch (rf) {
    case REST_FMT_BIN:
    case REST_FMT_HEX: {
        struct buf b;
        buf_init(&b);
        for (size_t i = 0; i < n; i++) {
            uint8_t h80[80];
            block_header_serialize(&rows[i].header, h80);
            buf_append(&b, h80, 80);
        }
        rest_reply_data(r, rf, REST_CACHE_NO_STORE, b.data, b.len);
        buf_clear(&b);
        ok = 1;
        break;
    }
    case REST_FMT_JSON: {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, rpc_block_header_json(&rows[i].header, &rows[i].facts,
                                                           chainstate_params(cs)));
        }
        rest_reply_json(r, REST_CACHE_NO_STORE, a);
        ok = 1;
        break;
    }
    default:
        rest_formats_404(r);
    }
out:
    free(rows);
    rest_free_parts(parts, np);
    free(param);
    return ok;
}

/* ---- /rest/blockfilterheaders/, /rest/blockfilter/ ----------------------------------- */

/* Core's BlockFilterTypeByName and GetBlockFilterIndex: only "basic" exists. The index, or
 * NULL after Core's 400. */
static struct blockfilter_index *filter_index(struct rest_req *r, const char *type)
{
    if (strcmp(type, "basic") != 0) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Unknown filtertype %s", type);
        return NULL;
    }
    if (!r->ctx->node->blockfilters) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Index is not enabled for filtertype %s", type);
        return NULL;
    }
    return r->ctx->node->blockfilters;
}

/* The filter headers of rows into out (32 bytes each, internal order). 1, or 0 after
 * Core's 404 for a missing one (ready: the index had caught up with the tip). */
static int filter_headers_of(struct rest_req *r, struct blockfilter_index *bfi,
                             const struct rest_header_row *rows, size_t n, int ready,
                             uint8_t (*out)[32])
{
    struct buf f;
    buf_init(&f);
    for (size_t i = 0; i < n; i++) {
        buf_reset(&f);
        if (blockfilter_index_lookup(bfi, rows[i].hash, &f, out[i]) != RC_OK) {
            buf_clear(&f);
            return rest_err(r, RPC_HTTP_NOT_FOUND, "Filter not found.%s",
                            ready ? " This error is unexpected and indicates index corruption."
                                  : " Block filters are still in the process of being indexed.");
        }
    }
    buf_clear(&f);
    return 1;
}

int rest_filter_header(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    char *param;
    size_t np, n = 0, count = 0;
    enum rest_format rf = rest_parse_format(r->part, &param);
    char **parts = rest_split(param, '/', &np);
    struct rest_header_row *rows = NULL;
    uint8_t hash[32], (*fh)[32] = NULL;
    int ok = 0;
    if (!walk_args(r, parts, np, 1,
                   "Invalid URI format. Expected "
                   "/rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>",
                   hash, &count)) {
        goto out;
    }
    struct blockfilter_index *bfi = filter_index(r, parts[0]);
    if (!bfi) {
        goto out;
    }
    rows = rest_active_from(r->ctx->node->cs, hash, count, &n);
    int ready = blockfilter_index_wait_synced(bfi);
    fh = xmalloc((n ? n : 1) * sizeof(*fh));
    if (!filter_headers_of(r, bfi, rows, n, ready, fh)) {
        goto out;
    }
    if (rf == REST_FMT_BIN || rf == REST_FMT_HEX) {
        rest_reply_data(r, rf, REST_CACHE_NO_STORE, fh[0], n * 32);
        ok = 1;
    } else if (rf == REST_FMT_JSON) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, rpc_hash_json(fh[i]));
        }
        rest_reply_json(r, REST_CACHE_NO_STORE, a);
        ok = 1;
    } else {
        rest_formats_404(r);
    }
out:
    free(fh);
    free(rows);
    rest_free_parts(parts, np);
    free(param);
    return ok;
}

/* Core's BlockFilter serialization: the filter type (0: basic), the block hash, and the
 * encoded filter with its length. */
static void filter_serialize(struct buf *b, const uint8_t hash[32], const struct buf *filter)
{
    buf_put_u8(b, 0);
    buf_append(b, hash, 32);
    ser_put_varbytes(b, filter->data, filter->len);
}

int rest_block_filter(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    char *param;
    size_t np;
    enum rest_format rf = rest_parse_format(r->part, &param);
    char **parts = rest_split(param, '/', &np);
    uint8_t hash[32], header[32];
    struct buf f;
    int ok = 0;
    buf_init(&f);
    if (np != 2) {
        rest_err(r, RPC_HTTP_BAD_REQUEST,
                 "Invalid URI format. Expected /rest/blockfilter/<filtertype>/<blockhash>");
        goto out;
    }
    if (!rest_parse_hash(parts[1], hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", parts[1]);
        goto out;
    }
    struct blockfilter_index *bfi = filter_index(r, parts[0]);
    if (!bfi) {
        goto out;
    }
    struct block_index at;
    if (!rest_lookup_entry(r, hash, parts[1], &at, NULL, NULL)) {
        goto out;
    }
    /* The copy's status is the one Core reads under cs_main (IsValid(BLOCK_VALID_SCRIPTS)). */
    int connected = block_index_is_valid(&at, BLOCK_VALID_SCRIPTS);
    int ready = blockfilter_index_wait_synced(bfi);
    if (blockfilter_index_lookup(bfi, hash, &f, header) != RC_OK) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "Filter not found.%s",
                 !connected ? " Block was not connected to active chain."
                 : !ready   ? " Block filters are still in the process of being indexed."
                            : " This error is unexpected and indicates index corruption.");
        goto out;
    }
    if (rf == REST_FMT_BIN || rf == REST_FMT_HEX) {
        struct buf b;
        buf_init(&b);
        filter_serialize(&b, hash, &f);
        rest_reply_data(r, rf, REST_CACHE_IMMUTABLE, b.data, b.len);
        buf_clear(&b);
        ok = 1;
    } else if (rf == REST_FMT_JSON) {
        char *hx = hex_encode_alloc(f.data, f.len);
        json_t *o = json_object();
        json_object_set_new(o, "filter", json_string(hx));
        free(hx);
        rest_reply_json(r, REST_CACHE_IMMUTABLE, o);
        ok = 1;
    } else {
        rest_formats_404(r);
    }
out:
    buf_clear(&f);
    rest_free_parts(parts, np);
    free(param);
    return ok;
}

/* ---- /rest/chaininfo, /rest/deploymentinfo ------------------------------------------- */

int rest_chaininfo(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    char *param;
    enum rest_format rf = rest_parse_format(r->part, &param);
    free(param);
    if (rf != REST_FMT_JSON) {
        return rest_json_only_404(r);
    }
    return rest_reply_rpc(r, "getblockchaininfo", NULL, REST_CACHE_NO_STORE);
}

/* /rest/deploymentinfo.json (the tip) and /rest/deploymentinfo/<hash>.json. */
int rest_deploymentinfo(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    char *hash_str;
    enum rest_format rf = rest_parse_format(r->part, &hash_str);
    uint8_t hash[32];
    int ok = 0;
    if (rf != REST_FMT_JSON) {
        rest_json_only_404(r);
        goto out;
    }
    json_t *params = json_array();
    if (*hash_str) {
        if (!rest_parse_hash(hash_str, hash)) {
            json_decref(params);
            rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
            goto out;
        }
        /* Unknown: Core's 400 "Block not found" here, not the 404 of the other paths. */
        struct block_index at;
        if (!rest_copy_entry(r->ctx->node->cs, hash, &at, NULL, NULL)) {
            json_decref(params);
            rest_err(r, RPC_HTTP_BAD_REQUEST, "Block not found");
            goto out;
        }
        json_array_append_new(params, json_string(hash_str));
    }
    ok = rest_reply_rpc(r, "getdeploymentinfo", params,
                        *hash_str ? REST_CACHE_IMMUTABLE : REST_CACHE_NO_STORE);
out:
    free(hash_str);
    return ok;
}

/* ---- /rest/blockhashbyheight/, /rest/spenttxouts/ ------------------------------------ */

int rest_blockhash_by_height(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *height_str;
    enum rest_format rf = rest_parse_format(r->part, &height_str);
    int32_t h = 0;
    uint8_t hash[32] = {0};
    int ok = 0;
    if (!rest_parse_int32(height_str, &h) || h < 0) {
        rest_sanitize_uri(height_str);
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid height: %s", height_str);
        goto out;
    }
    chainstate_read_lock(cs);
    struct block_index *e = chainstate_at_height(cs, h);
    if (e) {
        memcpy(hash, e->hash, 32);
    }
    chainstate_read_unlock(cs);
    if (!e) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "Block height out of range");
        goto out;
    }
    if (rf == REST_FMT_BIN) {
        rest_reply_data(r, rf, REST_CACHE_NO_STORE, hash, 32);
        ok = 1;
    } else if (rf == REST_FMT_HEX) {
        /* Core's GetHex(): display order, unlike .bin. */
        char hx[66];
        hex_encode_rev(hx, hash, 32);
        hx[64] = '\n';
        rest_reply_bytes(r, RPC_HTTP_OK, "text/plain", REST_CACHE_NO_STORE, hx, 65);
        ok = 1;
    } else if (rf == REST_FMT_JSON) {
        json_t *o = json_object();
        json_object_set_new(o, "blockhash", rpc_hash_json(hash));
        rest_reply_json(r, REST_CACHE_NO_STORE, o);
        ok = 1;
    } else {
        rest_formats_404(r);
    }
out:
    free(height_str);
    return ok;
}

/* Core's SerializeBlockUndo (rest.cpp): compactsize(transactions), an empty list for the
 * coinbase, then per transaction compactsize(inputs) and each spent output as a CTxOut
 * (i64 value, compactsize(len) script). */
static void spent_serialize(struct buf *b, const struct block_undo *u)
{
    ser_put_compact(b, u->n + 1);
    ser_put_compact(b, 0);
    for (size_t i = 0; i < u->n; i++) {
        ser_put_compact(b, u->txs[i].n);
        for (size_t k = 0; k < u->txs[i].n; k++) {
            const struct coin *c = &u->txs[i].prev[k];
            buf_put_u64le(b, (uint64_t)c->value_sat);
            ser_put_varbytes(b, c->script_pubkey.data, c->script_pubkey.len);
        }
    }
}

/* Core's BlockUndoToJSON: [] for the coinbase, then per transaction its spent outputs as
 * {"value", "scriptPubKey"}. */
static json_t *spent_json(const struct block_undo *u, const struct chain_params *p)
{
    json_t *a = json_array();
    json_array_append_new(a, json_array());
    for (size_t i = 0; i < u->n; i++) {
        json_t *t = json_array();
        for (size_t k = 0; k < u->txs[i].n; k++) {
            const struct coin *c = &u->txs[i].prev[k];
            json_t *o = json_object();
            json_object_set_new(o, "value", rpc_json_amount(c->value_sat));
            json_object_set_new(o, "scriptPubKey",
                                rpc_script_pubkey_json(c->script_pubkey.data,
                                                       c->script_pubkey.len, p, 1));
            json_array_append_new(t, o);
        }
        json_array_append_new(a, t);
    }
    return a;
}

int rest_spent_txouts(struct rest_req *r)
{
    if (!rest_check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *param;
    size_t np;
    enum rest_format rf = rest_parse_format(r->part, &param);
    char **parts = rest_split(param, '/', &np);
    uint8_t hash[32];
    struct block_index at;
    struct block_undo undo;
    int ok = 0;
    memset(&at, 0, sizeof(at));
    block_undo_init(&undo);
    if (np != 1) {
        rest_err(r, RPC_HTTP_BAD_REQUEST,
                 "Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>");
        goto out;
    }
    if (!rest_parse_hash(parts[0], hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", parts[0]);
        goto out;
    }
    if (!rest_lookup_entry(r, hash, parts[0], &at, NULL, NULL)) {
        goto out;
    }
    if (at.height > 0 && chainstate_read_undo(cs, &at, &undo) != RC_OK) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "%s undo not available", parts[0]);
        goto out;
    }
    if (rf == REST_FMT_BIN || rf == REST_FMT_HEX) {
        struct buf b;
        buf_init(&b);
        spent_serialize(&b, &undo);
        rest_reply_data(r, rf, REST_CACHE_IMMUTABLE, b.data, b.len);
        buf_clear(&b);
        ok = 1;
    } else if (rf == REST_FMT_JSON) {
        rest_reply_json(r, REST_CACHE_IMMUTABLE, spent_json(&undo, chainstate_params(cs)));
        ok = 1;
    } else {
        rest_formats_404(r);
    }
out:
    block_undo_clear(&undo);
    rest_free_parts(parts, np);
    free(param);
    return ok;
}
