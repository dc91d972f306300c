/* What the REST endpoints share (rest_util.h): replies, parsing, block index look-ups. */
#include "rpc/rest_util.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "node/context.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#define MAX_REST_HEADERS_RESULTS 2000
/* Core's SAFE_CHARS_URI: what "Invalid height: ..." keeps of the text it was given. */
#define SAFE_CHARS_URI                                                                             \
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!*'();:@&=+$,/?#[]-_.~%"

/* ---- replies ------------------------------------------------------------------------- */

void rest_reply_bytes(struct rest_req *r, int status, const char *type, const char *cache,
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

int rest_err_reply(struct rest_req *r, int status, struct buf *msg)
{
    buf_append(msg, "\r\n", 2);
    rest_reply_bytes(r, status, "text/plain", REST_CACHE_NO_STORE, msg->data, msg->len);
    buf_clear(msg);
    return 0;
}

int rest_err(struct rest_req *r, int status, const char *fmt, ...)
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
    return rest_err_reply(r, status, &m);
}

int rest_formats_404(struct rest_req *r)
{
    return rest_err(r, RPC_HTTP_NOT_FOUND,
                    "output format not found (available: .bin, .hex, .json)");
}

int rest_json_only_404(struct rest_req *r)
{
    return rest_err(r, RPC_HTTP_NOT_FOUND, "output format not found (available: json)");
}

int rest_check_warmup(struct rest_req *r)
{
    if (r->warmup) {
        return rest_err(r, RPC_HTTP_SERVICE_UNAVAILABLE, "Service temporarily unavailable: %s",
                        r->warmup);
    }
    return 1;
}

void rest_reply_data(struct rest_req *r, enum rest_format rf, const char *cache,
                     const uint8_t *p, size_t n)
{
    if (rf == REST_FMT_BIN) {
        rest_reply_bytes(r, RPC_HTTP_OK, "application/octet-stream", cache, p, n);
        return;
    }
    struct buf h;
    buf_init(&h);
    hex_append(&h, p, n);
    buf_put_u8(&h, '\n');
    rest_reply_bytes(r, RPC_HTTP_OK, "text/plain", cache, h.data, h.len);
    buf_clear(&h);
}

void rest_reply_json(struct rest_req *r, const char *cache, json_t *v)
{
    struct buf b;
    buf_init(&b);
    rpc_json_write(&b, v, 0);
    buf_put_u8(&b, '\n');
    rest_reply_bytes(r, RPC_HTTP_OK, "application/json", cache, b.data, b.len);
    buf_clear(&b);
    json_decref(v);
}

int rest_reply_rpc(struct rest_req *r, const char *name, json_t *params, const char *cache)
{
    int code;
    char *msg;
    json_t *v = rpc_call_method(r->ctx, name, params, &code, &msg);
    if (!v) {
        rest_err(r, RPC_HTTP_INTERNAL_SERVER_ERROR, "%s", msg ? msg : "");
        free(msg);
        return 0;
    }
    rest_reply_json(r, cache, v);
    return 1;
}

/* ---- parsing ------------------------------------------------------------------------- */

enum rest_format rest_parse_format(const char *part, char **param)
{
    static const struct {
        const char *name;
        enum rest_format rf;
    } names[] = {{"", REST_FMT_UNDEF}, {"bin", REST_FMT_BIN}, {"hex", REST_FMT_HEX},
                 {"json", REST_FMT_JSON}};
    const char *q = strrchr(part, '?');
    size_t n = q ? (size_t)(q - part) : strlen(part);
    char *p = xmalloc(n + 1);
    memcpy(p, part, n);
    p[n] = 0;
    *param = p;
    char *dot = strrchr(p, '.');
    if (!dot) {
        return REST_FMT_UNDEF;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(dot + 1, names[i].name) == 0) {
            *dot = 0;
            return names[i].rf;
        }
    }
    return REST_FMT_UNDEF;
}

char *rest_url_decode(const char *s, size_t n, size_t *len)
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

int rest_query_param(const char *uri, const char *key, char **val, size_t *len)
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
        char *k = rest_url_decode(q, (size_t)((eq ? eq : piece_end) - q), &n);
        int match = n == key_len && memcmp(k, key, n) == 0;
        free(k);
        if (match) {
            *val = eq ? rest_url_decode(eq + 1, (size_t)(piece_end - eq - 1), len) : xstrdup("");
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

int rest_parse_unsigned(const char *s, size_t n, uint64_t max, uint64_t *out)
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

int rest_parse_int32(const char *s, int32_t *out)
{
    int neg = s[0] == '-';
    uint64_t v;
    if (!rest_parse_unsigned(s + neg, strlen(s + neg), neg ? 2147483648u : 2147483647u, &v)) {
        return 0;
    }
    *out = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
    return 1;
}

int rest_parse_hash(const char *s, uint8_t out32[32])
{
    return hex_decode_hash32_rev(out32, s) == RC_OK;
}

char **rest_split(const char *s, char sep, size_t *n)
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

void rest_free_parts(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i]);
    }
    free(v);
}

void rest_parse_hex_lenient(const uint8_t *p, size_t n, struct buf *out)
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

void rest_query_count(const struct rest_req *r, char **raw, size_t *len)
{
    if (!rest_query_param(r->uri, "count", raw, len)) {
        *raw = xstrdup("5");
        *len = 1;
    }
}

int rest_parse_count(struct rest_req *r, const char *raw, size_t raw_len, size_t *count)
{
    uint64_t v = 0;
    if (rest_parse_unsigned(raw, raw_len, SIZE_MAX, &v) && v >= 1 &&
        v <= MAX_REST_HEADERS_RESULTS) {
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
    return rest_err_reply(r, RPC_HTTP_BAD_REQUEST, &m);
}

int rest_query_bool(const struct rest_req *r, const char *key, int dflt, int *out)
{
    char *v;
    size_t n;
    if (!rest_query_param(r->uri, key, &v, &n)) {
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

void rest_sanitize_uri(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (strchr(SAFE_CHARS_URI, *s)) {
            *o++ = *s;
        }
    }
    *o = 0;
}

/* ---- block index look-ups ------------------------------------------------------------ */

struct rest_header_row *rest_active_from(struct chainstate *cs, const uint8_t hash[32],
                                         size_t count, size_t *n)
{
    struct rest_header_row *v = xmalloc(count * sizeof(*v));
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

int rest_copy_entry(struct chainstate *cs, const uint8_t hash[32], struct block_index *at,
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

int rest_lookup_entry(struct rest_req *r, const uint8_t hash[32], const char *hash_str,
                      struct block_index *at, struct rpc_block_facts *facts, int *pruned)
{
    if (!rest_copy_entry(r->ctx->node->cs, hash, at, facts, pruned)) {
        return rest_err(r, RPC_HTTP_NOT_FOUND, "%s not found", hash_str);
    }
    return 1;
}
