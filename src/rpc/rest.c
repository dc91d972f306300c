/* Bitcoin Core's REST interface (rest.h). Each handler follows its counterpart in Core's
 * src/rest.cpp check for check, so that the first failure is the one Core reports; the JSON
 * comes from the RPC builders (rpc/blockjson.h, rpc_block_verbose_json, rpc_call_method,
 * rpc_mempool_info_json) and is written by rpc_json_write, as RPC results are.
 *
 * Paths are matched and parsed on the raw request target, query included, as Core does:
 * the format suffix is looked for before the last '?' (ParseDataFormat), query parameters
 * after the first '?' up to a '#' (GetQueryParameterFromUri), with Core's lenient URL
 * decoding, and nothing is percent-decoded or normalised in the path.
 */
#include "rpc/rest.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "coins/coin.h"
#include "coins/undo.h"
#include "index/blockfilterindex.h"
#include "mempool/mempool.h"
#include "node/context.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/mempool.h"
#include "rpc/protocol.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

/* Core's Cache-Control values: bytes that never change (one day, so that an upgrade's
 * changes reach caches), and everything else, errors included. */
#define CACHE_IMMUTABLE "public, immutable, max-age=86400"
#define CACHE_NO_STORE "no-store"

#define MAX_GETUTXOS_OUTPOINTS 15
#define MAX_REST_HEADERS_RESULTS 2000
/* Core's MEMPOOL_HEIGHT: the height getutxos shows for an output of a pool transaction. */
#define MEMPOOL_HEIGHT 0x7FFFFFFF
/* Core's SAFE_CHARS_URI: what "Invalid height: ..." keeps of the text it was given. */
#define SAFE_CHARS_URI                                                                             \
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!*'();:@&=+$,/?#[]-_.~%"

enum rest_format {
    FMT_UNDEF,
    FMT_BIN,
    FMT_HEX,
    FMT_JSON,
};

/* One request as a handler sees it (all borrowed for the call). */
struct rest_req {
    struct rpc_context *ctx;
    const char *uri;  /* the raw request target, query included */
    const char *part; /* uri after the handler's prefix (Core's uri_part) */
    const uint8_t *body;
    size_t body_len;
    const char *warmup; /* the warm-up status, or NULL */
    struct rest_reply *out;
};

/* ---- replies ------------------------------------------------------------------------- */

/* Fills the reply with a copy of the n bytes at p. */
static void reply(struct rest_req *r, int status, const char *type, const char *cache,
                  const void *p, size_t n)
{
    struct rest_reply *out = r->out;
    free(out->body);
    out->status = status;
    out->content_type = type;
    out->cache_control = cache;
    out->body = xmalloc(n + 1);
    if (n) {
        memcpy(out->body, p, n);
    }
    out->body[n] = 0;
    out->len = n;
}

/* Core's RESTERR with the message in msg (cleared): text/plain, no-store, the message and
 * "\r\n". Returns 0, Core's false, so that handlers can "return rest_err...". */
static int err_reply(struct rest_req *r, int status, struct buf *msg)
{
    buf_append(msg, "\r\n", 2);
    reply(r, status, "text/plain", CACHE_NO_STORE, msg->data, msg->len);
    buf_clear(msg);
    return 0;
}

static int rest_err(struct rest_req *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int rest_err(struct rest_req *r, int status, const char *fmt, ...)
{
    struct buf m;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    buf_init(&m);
    buf_reserve(&m, (size_t)(n > 0 ? n : 0) + 1);
    va_start(ap, fmt);
    vsnprintf((char *)m.data, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    va_end(ap);
    m.len = n > 0 ? (size_t)n : 0;
    return err_reply(r, status, &m);
}

static int formats_404(struct rest_req *r)
{
    return rest_err(r, RPC_HTTP_NOT_FOUND, "output format not found (available: .bin, .hex, .json)");
}

static int json_only_404(struct rest_req *r)
{
    return rest_err(r, RPC_HTTP_NOT_FOUND, "output format not found (available: json)");
}

/* Core's CheckWarmup: 1 when the node is up, else 0 after the 503. */
static int check_warmup(struct rest_req *r)
{
    if (r->warmup) {
        return rest_err(r, RPC_HTTP_SERVICE_UNAVAILABLE, "Service temporarily unavailable: %s",
                        r->warmup);
    }
    return 1;
}

/* .bin: the bytes; .hex: their lowercase hex and "\n" (Core's HexStr(...) + "\n"). */
static void reply_data(struct rest_req *r, enum rest_format rf, const char *cache,
                       const uint8_t *p, size_t n)
{
    if (rf == FMT_BIN) {
        reply(r, RPC_HTTP_OK, "application/octet-stream", cache, p, n);
        return;
    }
    struct buf h;
    buf_init(&h);
    hex_append(&h, p, n);
    buf_put_u8(&h, '\n');
    reply(r, RPC_HTTP_OK, "text/plain", cache, h.data, h.len);
    buf_clear(&h);
}

/* .json: v written as RPC writes results (UniValue's write()) and "\n". Steals v. */
static void reply_json(struct rest_req *r, const char *cache, json_t *v)
{
    struct buf b;
    buf_init(&b);
    rpc_json_write(&b, v, 0);
    buf_put_u8(&b, '\n');
    reply(r, RPC_HTTP_OK, "application/json", cache, b.data, b.len);
    buf_clear(&b);
    json_decref(v);
}

/* The result of RPC method `name` with params (stolen; NULL: none), as Core's REST runs
 * getblockchaininfo and getdeploymentinfo. An error (which Core's handler would throw) is
 * answered 500 with its message. Returns 1 on success. */
static int reply_rpc(struct rest_req *r, const char *name, json_t *params, const char *cache)
{
    int code;
    char *msg;
    json_t *v = rpc_call_method(r->ctx, name, params, &code, &msg);
    if (!v) {
        rest_err(r, RPC_HTTP_INTERNAL_SERVER_ERROR, "%s", msg ? msg : "");
        free(msg);
        return 0;
    }
    reply_json(r, cache, v);
    return 1;
}

/* ---- parsing ------------------------------------------------------------------------- */

/* Core's ParseDataFormat: *param (new; caller frees) is part up to its last '?'; a suffix
 * after its last '.' that names a format ("", bin, hex, json) is taken off and returned,
 * any other suffix stays in *param (FMT_UNDEF). */
static enum rest_format parse_format(const char *part, char **param)
{
    static const struct {
        const char *name;
        enum rest_format rf;
    } names[] = {{"", FMT_UNDEF}, {"bin", FMT_BIN}, {"hex", FMT_HEX}, {"json", FMT_JSON}};
    const char *q = strrchr(part, '?');
    size_t n = q ? (size_t)(q - part) : strlen(part);
    char *p = xmalloc(n + 1);
    memcpy(p, part, n);
    p[n] = 0;
    *param = p;
    char *dot = strrchr(p, '.');
    if (!dot) {
        return FMT_UNDEF;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(dot + 1, names[i].name) == 0) {
            *dot = 0;
            return names[i].rf;
        }
    }
    return FMT_UNDEF;
}

/* Core's UrlDecode of the n bytes at s: "%XY" with two hex digits becomes that byte,
 * anything else ("%", "%4", "%zz", "+") stays as it is. Returns a new string of *len bytes
 * (NUL-terminated; it may hold NULs). */
static char *url_decode(const char *s, size_t n, size_t *len)
{
    char *o = xmalloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
            o[k++] = (char)(hex_digit(s[i + 1]) << 4 | hex_digit(s[i + 2]));
            i += 2;
            continue;
        }
        o[k++] = s[i];
    }
    o[k] = 0;
    *len = k;
    return o;
}

/* Core's GetQueryParameterFromUri: the query is what follows the first '?' of uri, up to a
 * '#'; its '&'-separated pieces are "key=value" or "key"; the first whose URL-decoded key is
 * key wins. Returns 1 with *val (new, URL-decoded, *len bytes; "" for a key without '=';
 * caller frees), or 0 when there is none. */
static int query_param(const char *uri, const char *key, char **val, size_t *len)
{
    const char *q = strchr(uri, '?');
    if (!q) {
        return 0;
    }
    q++;
    const char *end = strchr(q, '#');
    end = end ? end : q + strlen(q);
    size_t key_len = strlen(key);
    for (;;) {
        const char *amp = memchr(q, '&', (size_t)(end - q));
        const char *piece_end = amp ? amp : end;
        const char *eq = memchr(q, '=', (size_t)(piece_end - q));
        size_t n;
        char *k = url_decode(q, (size_t)((eq ? eq : piece_end) - q), &n);
        int match = n == key_len && memcmp(k, key, n) == 0;
        free(k);
        if (match) {
            *val = eq ? url_decode(eq + 1, (size_t)(piece_end - eq - 1), len) : xstrdup("");
            if (!eq) {
                *len = 0;
            }
            return 1;
        }
        if (!amp) {
            return 0;
        }
        q = amp + 1;
    }
}

/* Core's ToIntegral for an unsigned type whose largest value is max: the n bytes at s are
 * all decimal digits (at least one; no sign, no space; leading zeros allowed) and the value
 * fits. 1 with *out, else 0. */
static int parse_unsigned(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (max - d) / 10) {
            return 0;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* Core's ToIntegral<int32_t>: an optional '-', then as parse_unsigned. */
static int parse_int32(const char *s, int32_t *out)
{
    int neg = s[0] == '-';
    uint64_t v;
    if (!parse_unsigned(s + neg, strlen(s + neg), neg ? 2147483648u : 2147483647u, &v)) {
        return 0;
    }
    *out = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
    return 1;
}

/* Core's uint256::FromHex / Txid::FromHex: exactly 64 hex digits of either case, in display
 * order. 1 with out32 (internal order), else 0. */
static int parse_hash(const char *s, uint8_t out32[32])
{
    return hex_decode_hash32_rev(out32, s) == RC_OK;
}

/* Core's SplitString(s, sep): the pieces between separators, empty ones kept ("" is one
 * empty piece). Returns a new array of *n new strings; free with free_parts. */
static char **split(const char *s, char sep, size_t *n)
{
    size_t count = 1;
    for (const char *p = s; *p; p++) {
        count += *p == sep;
    }
    char **v = xmalloc(count * sizeof(*v));
    size_t i = 0;
    for (;;) {
        const char *e = strchr(s, sep);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        v[i] = xmalloc(len + 1);
        memcpy(v[i], s, len);
        v[i][len] = 0;
        i++;
        if (!e) {
            break;
        }
        s = e + 1;
    }
    *n = count;
    return v;
}

static void free_parts(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i]);
    }
    free(v);
}

/* Core's ParseHex: whitespace between byte pairs skipped; anything else that is not a pair
 * of hex digits makes the whole result empty. Appends to out. */
static void parse_hex_lenient(const uint8_t *p, size_t n, struct buf *out)
{
    size_t start = out->len;
    size_t i = 0;
    while (i < n) {
        char c = (char)p[i];
        if (c == ' ' || c == '\f' || c == '\n' || c == '\r' || c == '\t' || c == '\v') {
            i++;
            continue;
        }
        int hi = hex_digit(c);
        if (i + 1 == n || hi < 0 || hex_digit((char)p[i + 1]) < 0) {
            out->len = start;
            return;
        }
        buf_put_u8(out, (uint8_t)(hi << 4 | hex_digit((char)p[i + 1])));
        i += 2;
    }
}

/* The "count" of /headers and /blockfilterheaders: the query's (URL-decoded), else "5".
 * *raw: new (caller frees), *len bytes. */
static void query_count(const struct rest_req *r, char **raw, size_t *len)
{
    if (!query_param(r->uri, "count", raw, len)) {
        *raw = xstrdup("5");
        *len = 1;
    }
}

/* Core's count check of /headers and /blockfilterheaders: 1..2000, else 400 naming the raw
 * text. 1 with *count, or 0 after the error reply. */
static int parse_count(struct rest_req *r, const char *raw, size_t raw_len, size_t *count)
{
    uint64_t v = 0;
    if (parse_unsigned(raw, raw_len, SIZE_MAX, &v) && v >= 1 && v <= MAX_REST_HEADERS_RESULTS) {
        *count = (size_t)v;
        return 1;
    }
    struct buf m;
    char pre[96];
    int n = snprintf(pre, sizeof(pre),
                     "Header count is invalid or out of acceptable range (1-%u): ",
                     (unsigned)MAX_REST_HEADERS_RESULTS);
    buf_init(&m);
    buf_append(&m, pre, (size_t)n);
    buf_append(&m, raw, raw_len);
    return err_reply(r, RPC_HTTP_BAD_REQUEST, &m);
}

/* ---- block index walks --------------------------------------------------------------- */

/* What the header replies show of one block, copied under the chain lock. */
struct header_row {
    uint8_t hash[32];
    struct block_header header;
    struct rpc_block_facts facts;
};

/* Core's walk of /headers and /blockfilterheaders: the blocks of the active chain from hash
 * upwards, at most count (>= 1) of them; none when hash is unknown or not on the active
 * chain. Returns a new array (caller frees) of *n rows. Takes the chain's read lock. */
static struct header_row *active_from(struct chainstate *cs, const uint8_t hash[32],
                                      size_t count, size_t *n)
{
    struct header_row *v = xmalloc(count * sizeof(*v));
    *n = 0;
    chainstate_read_lock(cs);
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    while (e && chainstate_contains(cs, e) && *n < count) {
        memcpy(v[*n].hash, e->hash, 32);
        v[*n].header = e->header;
        rpc_block_facts_of(cs, &v[*n].facts, e);
        (*n)++;
        e = chainstate_at_height(cs, e->height + 1);
    }
    chainstate_read_unlock(cs);
    return v;
}

/* The entry of hash copied under the chain lock, as getblock does before it reads the block
 * (the copy's file positions and status stay good: block files are only appended to).
 * With facts (may be NULL), what getblock shows of it; *pruned: Core's IsBlockPruned.
 * 1 with *at, or 0 when the block is unknown. */
static int copy_entry(struct chainstate *cs, const uint8_t hash[32], struct block_index *at,
                      struct rpc_block_facts *facts, int *pruned)
{
    chainstate_read_lock(cs);
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    if (e) {
        *at = *e;
        if (facts) {
            rpc_block_facts_of(cs, facts, e);
        }
        if (pruned) {
            *pruned = chainstate_block_pruned(cs, e);
        }
    }
    chainstate_read_unlock(cs);
    return e != NULL;
}

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
    reply_json(r, CACHE_NO_STORE, v);
    return 1;
}

/* Core's rest_block: verbosity 0 refuses .json (blockpart); part: the byte range asked for,
 * or NULL for the whole block. */
static int rest_block(struct rest_req *r, int verbosity, const struct block_part *part)
{
    if (!check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *hash_str;
    enum rest_format rf = parse_format(r->part, &hash_str);
    uint8_t hash[32];
    struct block_index at;
    struct rpc_block_facts f;
    struct buf raw;
    int pruned = 0, ok = 0;
    memset(&at, 0, sizeof(at));
    memset(&f, 0, sizeof(f));
    buf_init(&raw);
    if (!parse_hash(hash_str, hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
        goto out;
    }
    if (!copy_entry(cs, hash, &at, &f, &pruned)) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "%s not found", hash_str);
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
    case FMT_BIN:
    case FMT_HEX:
        reply_data(r, rf, CACHE_IMMUTABLE, p, n);
        ok = 1;
        break;
    case FMT_JSON:
        if (!verbosity) {
            rest_err(r, RPC_HTTP_BAD_REQUEST, "JSON output is not supported for this request type");
            break;
        }
        ok = block_json_reply(r, &at, &f, &raw, hash_str, verbosity);
        break;
    default:
        formats_404(r);
    }
out:
    buf_clear(&raw);
    free(hash_str);
    return ok;
}

static int rest_block_extended(struct rest_req *r)
{
    return rest_block(r, RPC_VERBOSITY_PREVOUT, NULL);
}

static int rest_block_notxdetails(struct rest_req *r)
{
    return rest_block(r, RPC_VERBOSITY_TXID, NULL);
}

/* Core checks the query before the warm-up here. */
static int rest_block_part(struct rest_req *r)
{
    char *v;
    size_t n;
    uint64_t offset = 0, size = 0;
    int have = query_param(r->uri, "offset", &v, &n);
    int ok = have && parse_unsigned(v, n, SIZE_MAX, &offset);
    if (have) {
        free(v);
    }
    if (!ok) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST, "Block part offset missing or invalid");
    }
    have = query_param(r->uri, "size", &v, &n);
    ok = have && parse_unsigned(v, n, SIZE_MAX, &size);
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

static int rest_headers(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *param, *raw_count = NULL;
    size_t raw_len = 0, np, n = 0, count = 0;
    enum rest_format rf = parse_format(r->part, &param);
    char **parts = split(param, '/', &np);
    const char *hash_str = NULL;
    struct header_row *rows = NULL;
    uint8_t hash[32];
    int ok = 0;
    if (np == 2) { /* deprecated: /rest/headers/<count>/<hash>.<ext> */
        hash_str = parts[1];
        raw_count = xstrdup(parts[0]);
        raw_len = strlen(parts[0]);
    } else if (np == 1) {
        hash_str = parts[0];
        query_count(r, &raw_count, &raw_len);
    } else {
        rest_err(r, RPC_HTTP_BAD_REQUEST,
                 "Invalid URI format. Expected /rest/headers/<hash>.<ext>?count=<count>");
        goto out;
    }
    if (!parse_count(r, raw_count, raw_len, &count)) {
        goto out;
    }
    if (!parse_hash(hash_str, hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
        goto out;
    }
    rows = active_from(cs, hash, count, &n);
    switch (rf) {
    case FMT_BIN:
    case FMT_HEX: {
        struct buf b;
        buf_init(&b);
        for (size_t i = 0; i < n; i++) {
            uint8_t h80[80];
            block_header_serialize(&rows[i].header, h80);
            buf_append(&b, h80, 80);
        }
        reply_data(r, rf, CACHE_NO_STORE, b.data, b.len);
        buf_clear(&b);
        ok = 1;
        break;
    }
    case FMT_JSON: {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, rpc_block_header_json(&rows[i].header, &rows[i].facts,
                                                           chainstate_params(cs)));
        }
        reply_json(r, CACHE_NO_STORE, a);
        ok = 1;
        break;
    }
    default:
        formats_404(r);
    }
out:
    free(rows);
    free(raw_count);
    free_parts(parts, np);
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
                             const struct header_row *rows, size_t n, int ready,
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

static int rest_filter_header(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    char *param, *raw_count = NULL;
    size_t raw_len = 0, np, n = 0, count = 0;
    enum rest_format rf = parse_format(r->part, &param);
    char **parts = split(param, '/', &np);
    const char *hash_str = NULL;
    struct header_row *rows = NULL;
    uint8_t hash[32], (*fh)[32] = NULL;
    int ok = 0;
    if (np == 3) { /* deprecated: /rest/blockfilterheaders/<type>/<count>/<hash>.<ext> */
        hash_str = parts[2];
        raw_count = xstrdup(parts[1]);
        raw_len = strlen(parts[1]);
    } else if (np == 2) {
        hash_str = parts[1];
        query_count(r, &raw_count, &raw_len);
    } else {
        rest_err(r, RPC_HTTP_BAD_REQUEST,
                 "Invalid URI format. Expected "
                 "/rest/blockfilterheaders/<filtertype>/<blockhash>.<ext>?count=<count>");
        goto out;
    }
    if (!parse_count(r, raw_count, raw_len, &count)) {
        goto out;
    }
    if (!parse_hash(hash_str, hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
        goto out;
    }
    struct blockfilter_index *bfi = filter_index(r, parts[0]);
    if (!bfi) {
        goto out;
    }
    rows = active_from(r->ctx->node->cs, hash, count, &n);
    int ready = blockfilter_index_wait_synced(bfi);
    fh = xmalloc((n ? n : 1) * sizeof(*fh));
    if (!filter_headers_of(r, bfi, rows, n, ready, fh)) {
        goto out;
    }
    if (rf == FMT_BIN || rf == FMT_HEX) {
        reply_data(r, rf, CACHE_NO_STORE, fh[0], n * 32);
        ok = 1;
    } else if (rf == FMT_JSON) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            json_array_append_new(a, rpc_hash_json(fh[i]));
        }
        reply_json(r, CACHE_NO_STORE, a);
        ok = 1;
    } else {
        formats_404(r);
    }
out:
    free(fh);
    free(rows);
    free(raw_count);
    free_parts(parts, np);
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

static int rest_block_filter(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    char *param;
    size_t np;
    enum rest_format rf = parse_format(r->part, &param);
    char **parts = split(param, '/', &np);
    uint8_t hash[32], header[32];
    struct buf f;
    int ok = 0;
    buf_init(&f);
    if (np != 2) {
        rest_err(r, RPC_HTTP_BAD_REQUEST,
                 "Invalid URI format. Expected /rest/blockfilter/<filtertype>/<blockhash>");
        goto out;
    }
    if (!parse_hash(parts[1], hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", parts[1]);
        goto out;
    }
    struct blockfilter_index *bfi = filter_index(r, parts[0]);
    if (!bfi) {
        goto out;
    }
    struct chainstate *cs = r->ctx->node->cs;
    chainstate_read_lock(cs);
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    int connected = e && block_index_is_valid(e, BLOCK_VALID_SCRIPTS);
    chainstate_read_unlock(cs);
    if (!e) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "%s not found", parts[1]);
        goto out;
    }
    int ready = blockfilter_index_wait_synced(bfi);
    if (blockfilter_index_lookup(bfi, hash, &f, header) != RC_OK) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "Filter not found.%s",
                 !connected ? " Block was not connected to active chain."
                 : !ready   ? " Block filters are still in the process of being indexed."
                            : " This error is unexpected and indicates index corruption.");
        goto out;
    }
    if (rf == FMT_BIN || rf == FMT_HEX) {
        struct buf b;
        buf_init(&b);
        filter_serialize(&b, hash, &f);
        reply_data(r, rf, CACHE_IMMUTABLE, b.data, b.len);
        buf_clear(&b);
        ok = 1;
    } else if (rf == FMT_JSON) {
        char *hx = hex_encode_alloc(f.data, f.len);
        json_t *o = json_object();
        json_object_set_new(o, "filter", json_string(hx));
        free(hx);
        reply_json(r, CACHE_IMMUTABLE, o);
        ok = 1;
    } else {
        formats_404(r);
    }
out:
    buf_clear(&f);
    free_parts(parts, np);
    free(param);
    return ok;
}

/* ---- /rest/chaininfo, /rest/deploymentinfo, /rest/mempool/ --------------------------- */

static int rest_chaininfo(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    char *param;
    enum rest_format rf = parse_format(r->part, &param);
    free(param);
    if (rf != FMT_JSON) {
        return json_only_404(r);
    }
    return reply_rpc(r, "getblockchaininfo", NULL, CACHE_NO_STORE);
}

/* /rest/deploymentinfo.json (the tip) and /rest/deploymentinfo/<hash>.json. */
static int rest_deploymentinfo(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    char *hash_str;
    enum rest_format rf = parse_format(r->part, &hash_str);
    uint8_t hash[32];
    int ok = 0;
    if (rf != FMT_JSON) {
        json_only_404(r);
        goto out;
    }
    json_t *params = json_array();
    if (*hash_str) {
        if (!parse_hash(hash_str, hash)) {
            json_decref(params);
            rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", hash_str);
            goto out;
        }
        struct chainstate *cs = r->ctx->node->cs;
        chainstate_read_lock(cs);
        int known = block_tree_find(chainstate_tree(cs), hash) != NULL;
        chainstate_read_unlock(cs);
        if (!known) {
            json_decref(params);
            rest_err(r, RPC_HTTP_BAD_REQUEST, "Block not found");
            goto out;
        }
        json_array_append_new(params, json_string(hash_str));
    }
    ok = reply_rpc(r, "getdeploymentinfo", params, *hash_str ? CACHE_IMMUTABLE : CACHE_NO_STORE);
out:
    free(hash_str);
    return ok;
}

/* A "true"/"false" query parameter, dflt when absent: 1 with *out, or 0 when it is neither. */
static int query_bool(const struct rest_req *r, const char *key, int dflt, int *out)
{
    char *v;
    size_t n;
    if (!query_param(r->uri, key, &v, &n)) {
        *out = dflt;
        return 1;
    }
    int ok = 1;
    if (n == 4 && memcmp(v, "true", 4) == 0) {
        *out = 1;
    } else if (n == 5 && memcmp(v, "false", 5) == 0) {
        *out = 0;
    } else {
        ok = 0;
    }
    free(v);
    return ok;
}

static int rest_mempool(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    char *param;
    enum rest_format rf = parse_format(r->part, &param);
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
    if (rf != FMT_JSON) {
        return json_only_404(r);
    }
    if (info) {
        reply_json(r, CACHE_NO_STORE, rpc_mempool_info_json(r->ctx));
        return 1;
    }
    if (!query_bool(r, "verbose", 1, &verbose)) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST,
                        "The \"verbose\" query parameter must be either \"true\" or \"false\".");
    }
    if (!query_bool(r, "mempool_sequence", 0, &seq)) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST, "The \"mempool_sequence\" query parameter must "
                                                 "be either \"true\" or \"false\".");
    }
    if (verbose && seq) {
        return rest_err(r, RPC_HTTP_BAD_REQUEST,
                        "Verbose results cannot contain mempool sequence values. (hint: set "
                        "\"verbose=false\")");
    }
    return reply_rpc(r, "getrawmempool", json_pack("[bb]", verbose, seq), CACHE_NO_STORE);
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

static int rest_tx(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *hash_str;
    enum rest_format rf = parse_format(r->part, &hash_str);
    uint8_t txid[32], block_hash[32] = {0};
    struct tx tx;
    int ok = 0, confirmed = 0;
    tx_init(&tx);
    if (!parse_hash(hash_str, txid)) {
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
    if (rf == FMT_BIN || rf == FMT_HEX) {
        reply_data(r, rf, CACHE_NO_STORE, ser.data, ser.len);
        ok = 1;
    } else if (rf == FMT_JSON) {
        /* Core's TxToUniv(tx, block_hash, include_hex): blockhash before hex, and none of
         * getrawtransaction's confirmations or times. */
        json_t *o = rpc_tx_json(&tx, chainstate_params(cs), NULL, RPC_VERBOSITY_TXID, 0);
        if (confirmed) {
            json_object_set_new(o, "blockhash", rpc_hash_json(block_hash));
        }
        char *hx = hex_encode_alloc(ser.data, ser.len);
        json_object_set_new(o, "hex", json_string(hx));
        free(hx);
        reply_json(r, CACHE_NO_STORE, o);
        ok = 1;
    } else {
        formats_404(r);
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
    char **parts = split(param + 1, '/', &np);
    q->checkmempool = strcmp(parts[0], "checkmempool") == 0;
    for (size_t i = q->checkmempool ? 1 : 0; i < np; i++) {
        size_t nn;
        char **tn = split(parts[i], '-', &nn);
        uint8_t txid[32];
        uint64_t v = 0;
        int good = nn == 2 && parse_hash(tn[0], txid) &&
                   parse_unsigned(tn[1], strlen(tn[1]), UINT32_MAX, &v);
        free_parts(tn, nn);
        if (!good) {
            free_parts(parts, np);
            return rest_err(r, RPC_HTTP_BAD_REQUEST, "Parse error");
        }
        utxo_add(q, txid, (uint32_t)v);
    }
    free_parts(parts, np);
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
    if (rf == FMT_HEX) {
        parse_hex_lenient(r->body, r->body_len, &body);
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
    if (rf == FMT_JSON) {
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
        reply_json(r, CACHE_NO_STORE, o);
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
    reply_data(r, rf, CACHE_NO_STORE, b.data, b.len);
    buf_clear(&b);
}

static int rest_getutxos(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    char *param;
    enum rest_format rf = parse_format(r->part, &param);
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
    if (rf == FMT_BIN || rf == FMT_HEX) {
        if (!utxo_body_outpoints(r, rf, parsed, &q)) {
            goto out;
        }
    } else if (rf == FMT_JSON) {
        if (!parsed) {
            rest_err(r, RPC_HTTP_BAD_REQUEST, "Error: empty request");
            goto out;
        }
    } else {
        formats_404(r);
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

/* ---- /rest/blockhashbyheight/, /rest/spenttxouts/ ------------------------------------ */

/* Core's SanitizeString(s, SAFE_CHARS_URI), in place. */
static void sanitize_uri(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (strchr(SAFE_CHARS_URI, *s)) {
            *o++ = *s;
        }
    }
    *o = 0;
}

static int rest_blockhash_by_height(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *height_str;
    enum rest_format rf = parse_format(r->part, &height_str);
    int32_t h = 0;
    uint8_t hash[32] = {0};
    int ok = 0;
    if (!parse_int32(height_str, &h) || h < 0) {
        sanitize_uri(height_str);
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
    if (rf == FMT_BIN) {
        reply_data(r, rf, CACHE_NO_STORE, hash, 32);
        ok = 1;
    } else if (rf == FMT_HEX) {
        /* Core's GetHex(): display order, unlike .bin. */
        char hx[66];
        hex_encode_rev(hx, hash, 32);
        hx[64] = '\n';
        reply(r, RPC_HTTP_OK, "text/plain", CACHE_NO_STORE, hx, 65);
        ok = 1;
    } else if (rf == FMT_JSON) {
        json_t *o = json_object();
        json_object_set_new(o, "blockhash", rpc_hash_json(hash));
        reply_json(r, CACHE_NO_STORE, o);
        ok = 1;
    } else {
        formats_404(r);
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

static int rest_spent_txouts(struct rest_req *r)
{
    if (!check_warmup(r)) {
        return 0;
    }
    struct chainstate *cs = r->ctx->node->cs;
    char *param;
    size_t np;
    enum rest_format rf = parse_format(r->part, &param);
    char **parts = split(param, '/', &np);
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
    if (!parse_hash(parts[0], hash)) {
        rest_err(r, RPC_HTTP_BAD_REQUEST, "Invalid hash: %s", parts[0]);
        goto out;
    }
    if (!copy_entry(cs, hash, &at, NULL, NULL)) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "%s not found", parts[0]);
        goto out;
    }
    if (at.height > 0 && chainstate_read_undo(cs, &at, &undo) != RC_OK) {
        rest_err(r, RPC_HTTP_NOT_FOUND, "%s undo not available", parts[0]);
        goto out;
    }
    if (rf == FMT_BIN || rf == FMT_HEX) {
        struct buf b;
        buf_init(&b);
        spent_serialize(&b, &undo);
        reply_data(r, rf, CACHE_IMMUTABLE, b.data, b.len);
        buf_clear(&b);
        ok = 1;
    } else if (rf == FMT_JSON) {
        reply_json(r, CACHE_IMMUTABLE, spent_json(&undo, chainstate_params(cs)));
        ok = 1;
    } else {
        formats_404(r);
    }
out:
    block_undo_clear(&undo);
    free_parts(parts, np);
    free(param);
    return ok;
}

/* ---- dispatch ------------------------------------------------------------------------ */

/* Core's uri_prefixes, in its order: the first prefix the raw target starts with wins. */
static const struct {
    const char *prefix;
    int (*handler)(struct rest_req *r);
} handlers[] = {
    {"/rest/tx/", rest_tx},
    {"/rest/block/notxdetails/", rest_block_notxdetails},
    {"/rest/block/", rest_block_extended},
    {"/rest/blockpart/", rest_block_part},
    {"/rest/blockfilter/", rest_block_filter},
    {"/rest/blockfilterheaders/", rest_filter_header},
    {"/rest/chaininfo", rest_chaininfo},
    {"/rest/mempool/", rest_mempool},
    {"/rest/headers/", rest_headers},
    {"/rest/getutxos", rest_getutxos},
    {"/rest/deploymentinfo/", rest_deploymentinfo},
    {"/rest/deploymentinfo", rest_deploymentinfo},
    {"/rest/blockhashbyheight/", rest_blockhash_by_height},
    {"/rest/spenttxouts/", rest_spent_txouts},
};

void rest_handle_body(struct rpc_context *ctx, const char *uri, const uint8_t *body,
                      size_t body_len, const char *warmup, struct rest_reply *out)
{
    struct rest_req r = {.ctx = ctx,
                         .uri = uri,
                         .body = body_len ? body : NULL,
                         .body_len = body_len,
                         .warmup = warmup,
                         .out = out};
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        size_t n = strlen(handlers[i].prefix);
        if (strncmp(uri, handlers[i].prefix, n) == 0) {
            r.part = uri + n;
            (void)handlers[i].handler(&r);
            return;
        }
    }
    /* No handler: the server's own 404 (Core's WriteNoStoreErrorReply: an empty body). */
    reply(&r, RPC_HTTP_NOT_FOUND, NULL, CACHE_NO_STORE, NULL, 0);
}

void rest_handle(struct rpc_context *ctx, const char *uri, const char *warmup,
                 struct rest_reply *out)
{
    rest_handle_body(ctx, uri, NULL, 0, warmup, out);
}
