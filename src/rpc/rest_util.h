/* What the REST endpoints share (rest_chain.c, rest_txs.c; internal to the rest_*.c files):
 * the request as a handler sees it, Core's replies and error texts, Core's parsing of paths
 * and queries, and the block index look-ups, each made under the chain's read lock and
 * copied out before anything is read from disk.
 *
 * Paths are matched and parsed on the raw request target, query included, as Core does:
 * the format suffix is looked for before the last '?' (ParseDataFormat), query parameters
 * after the first '?' up to a '#' (GetQueryParameterFromUri), with Core's lenient URL
 * decoding, and nothing is percent-decoded or normalised in the path.
 *
 * A helper that answers an error returns 0, Core's false, after filling the reply, so that
 * handlers can "return rest_err(...)"; a handler returns 1 when it answered with data.
 */
#ifndef BITNODE_RPC_REST_UTIL_H
#define BITNODE_RPC_REST_UTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "primitives/block.h"
#include "rpc/blockjson.h"
#include "rpc/rest.h"

struct block_index;
struct buf;
struct chainstate;
struct rpc_context;

/* Core's Cache-Control values: bytes that never change (one day, so that an upgrade's
 * changes reach caches), and everything else, errors included. */
#define REST_CACHE_IMMUTABLE "public, immutable, max-age=86400"
#define REST_CACHE_NO_STORE "no-store"

enum rest_format {
    REST_FMT_UNDEF,
    REST_FMT_BIN,
    REST_FMT_HEX,
    REST_FMT_JSON,
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

/** Fills r's reply (freeing a body it had) with status, the Content-Type type (static; NULL
 *  for the server's own 404), the Cache-Control cache (static) and a copy of the n bytes at
 *  p (p may be NULL when n is 0). */
void rest_reply_bytes(struct rest_req *r, int status, const char *type, const char *cache,
                      const void *p, size_t n);

/** Core's RESTERR with the message in msg (cleared): text/plain, no-store, the message and
 *  "\r\n". Returns 0. */
int rest_err_reply(struct rest_req *r, int status, struct buf *msg);

/** rest_err_reply with the message formatted from fmt. Returns 0. */
int rest_err(struct rest_req *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** Core's 404 for a format the endpoint does not serve, where it serves .bin, .hex and
 *  .json. Returns 0. */
int rest_formats_404(struct rest_req *r);

/** Core's 404 for a format other than .json, where it serves only .json. Returns 0. */
int rest_json_only_404(struct rest_req *r);

/** Core's CheckWarmup: 1 when the node is up, else 0 after the 503 "Service temporarily
 *  unavailable: <warm-up status>". */
int rest_check_warmup(struct rest_req *r);

/** A 200 with the n bytes at p: .bin (rf REST_FMT_BIN) the bytes as
 *  application/octet-stream; .hex (any other rf) their lowercase hex and "\n" as text/plain
 *  (Core's HexStr(...) + "\n"). cache: the Cache-Control value. */
void rest_reply_data(struct rest_req *r, enum rest_format rf, const char *cache,
                     const uint8_t *p, size_t n);

/** .json: a 200 with v written as RPC writes results (UniValue's write()) and "\n".
 *  Ownership of v passes (it is freed). */
void rest_reply_json(struct rest_req *r, const char *cache, json_t *v);

/** The result of RPC method `name` with params (ownership passes; NULL: none), as Core's
 *  REST runs getblockchaininfo and getdeploymentinfo. An error (which Core's handler would
 *  throw) is answered 500 with its message. Returns 1 on success, else 0. */
int rest_reply_rpc(struct rest_req *r, const char *name, json_t *params, const char *cache);

/* ---- parsing ------------------------------------------------------------------------- */

/** Core's ParseDataFormat: *param (new; caller frees) is part up to its last '?'; a suffix
 *  after its last '.' that names a format ("", bin, hex, json) is taken off and returned,
 *  any other suffix stays in *param (REST_FMT_UNDEF). */
enum rest_format rest_parse_format(const char *part, char **param);

/** Core's UrlDecode of the n bytes at s: "%XY" with two hex digits becomes that byte,
 *  anything else ("%", "%4", "%zz", "+") stays as it is. Returns a new string of *len bytes
 *  (NUL-terminated; it may hold NULs). */
char *rest_url_decode(const char *s, size_t n, size_t *len);

/** Core's GetQueryParameterFromUri: the query is what follows the first '?' of uri, up to a
 *  '#'; its '&'-separated pieces are "key=value" or "key"; the first whose URL-decoded key
 *  is key wins. Returns 1 with *val (new, URL-decoded, *len bytes; "" for a key without '=';
 *  caller frees), or 0 when there is none. */
int rest_query_param(const char *uri, const char *key, char **val, size_t *len);

/** Core's ToIntegral for an unsigned type whose largest value is max: the n bytes at s are
 *  all decimal digits (at least one; no sign, no space; leading zeros allowed) and the value
 *  fits. 1 with *out, else 0. */
int rest_parse_unsigned(const char *s, size_t n, uint64_t max, uint64_t *out);

/** Core's ToIntegral<int32_t> of the string s: an optional '-', then as
 *  rest_parse_unsigned. 1 with *out, else 0. */
int rest_parse_int32(const char *s, int32_t *out);

/** Core's uint256::FromHex / Txid::FromHex: exactly 64 hex digits of either case, in
 *  display order. 1 with out32 (internal order), else 0. */
int rest_parse_hash(const char *s, uint8_t out32[32]);

/** Core's SplitString(s, sep): the pieces between separators, empty ones kept ("" is one
 *  empty piece). Returns a new array of *n new strings; free with rest_free_parts. */
char **rest_split(const char *s, char sep, size_t *n);

/** Frees what rest_split returned (v and its n strings). */
void rest_free_parts(char **v, size_t n);

/** Core's ParseHex of the n bytes at p: whitespace between byte pairs skipped; anything
 *  else that is not a pair of hex digits makes the whole result empty. Appends to out. */
void rest_parse_hex_lenient(const uint8_t *p, size_t n, struct buf *out);

/** The "count" of /headers and /blockfilterheaders: the query's (URL-decoded), else "5".
 *  *raw: new (caller frees), *len bytes. */
void rest_query_count(const struct rest_req *r, char **raw, size_t *len);

/** Core's count check of /headers and /blockfilterheaders on the raw_len bytes at raw:
 *  1..2000, else 400 naming the raw text. 1 with *count, or 0 after the error reply. */
int rest_parse_count(struct rest_req *r, const char *raw, size_t raw_len, size_t *count);

/** A "true"/"false" query parameter key, dflt when absent: 1 with *out, or 0 when it is
 *  neither. */
int rest_query_bool(const struct rest_req *r, const char *key, int dflt, int *out);

/** Core's SanitizeString(s, SAFE_CHARS_URI), in place. */
void rest_sanitize_uri(char *s);

/* ---- block index look-ups ------------------------------------------------------------ */

/* What the header replies show of one block, copied under the chain lock. */
struct rest_header_row {
    uint8_t hash[32];
    struct block_header header;
    struct rpc_block_facts facts;
};

/** Core's walk of /headers and /blockfilterheaders: the blocks of the active chain from
 *  hash upwards, at most count (>= 1) of them; none when hash is unknown or not on the
 *  active chain. Returns a new array (caller frees) of *n rows.
 *  Thread: takes and releases the chain's read lock. */
struct rest_header_row *rest_active_from(struct chainstate *cs, const uint8_t hash[32],
                                         size_t count, size_t *n);

/** The entry of hash copied under the chain lock, as getblock does before it reads the
 *  block (the copy's file positions and status stay good: block files are only appended
 *  to). With facts (may be NULL), what getblock shows of it; with pruned (may be NULL),
 *  Core's IsBlockPruned. 1 with *at, or 0 when the block is unknown.
 *  Thread: takes and releases the chain's read lock. */
int rest_copy_entry(struct chainstate *cs, const uint8_t hash[32], struct block_index *at,
                    struct rpc_block_facts *facts, int *pruned);

/** The look-up an endpoint that names a block by its hash makes before it reads the block,
 *  its undo data or its filter (Core's LookupBlockIndex under cs_main): rest_copy_entry,
 *  or Core's 404 "<hash_str> not found" when the block is unknown. hash_str: the text hash
 *  was parsed from, as the request gave it; facts, pruned: as rest_copy_entry's (may be
 *  NULL). 1 with *at, or 0 after the error reply.
 *  Thread: takes and releases the chain's read lock. */
int rest_lookup_entry(struct rest_req *r, const uint8_t hash[32], const char *hash_str,
                      struct block_index *at, struct rpc_block_facts *facts, int *pruned);

#endif
