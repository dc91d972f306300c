/* BIP152 compact blocks (cmpct.h). Formats: doc/files.md, "Compact blocks". */
#include "net/cmpct.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/merkle.h"
#include "crypto/hash.h"
#include "crypto/siphash.h"
#include "primitives/serialize.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* The smallest transaction serialization: version, two one-byte counts, locktime. Every
 * count of transactions is checked against the bytes left at this size per entry. */
#define MIN_TX_SIZE 10
/* How many transactions' worth of array a blocktxn starts with at most, before it has
 * read any: the array then grows with what is actually read. */
#define TX_ALLOC_CHUNK 1024

static int failf(char *err, size_t err_len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int failf(char *err, size_t err_len, int rc, const char *fmt, ...)
{
    if (err && err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* A reader's failure, with its message (prefix, may be "", in front). */
static int reader_err(const struct reader *r, int rc, const char *prefix, char *err, size_t err_len)
{
    return failf(err, err_len, rc, "%s%s", prefix, r->err[0] ? r->err : rc_str(rc));
}

static void clear_err(char *err, size_t err_len)
{
    if (err && err_len) {
        err[0] = 0;
    }
}

/* ---------------------------------------------------------------------------------------- */
/* sendcmpct                                                                                 */

int cmpct_sendcmpct_parse(const uint8_t *p, size_t len, int *announce, uint64_t *version, char *err,
                          size_t err_len)
{
    struct reader r;
    uint8_t a = 0;
    *announce = 0;
    *version = 0;
    reader_init(&r, p, len);
    int rc = reader_u8(&r, &a, "sendcmpct announce");
    rc = rc ? rc : reader_u64le(&r, version, "sendcmpct version");
    if (rc) {
        return reader_err(&r, rc, "", err, err_len);
    }
    *announce = a != 0;
    if (a > 1) {
        return failf(err, err_len, RC_INVALID, "invalid sendcmpct announce field");
    }
    clear_err(err, err_len);
    return RC_OK;
}

void cmpct_sendcmpct_serialize(struct buf *out, int announce, uint64_t version)
{
    buf_put_u8(out, announce ? 1 : 0);
    buf_put_u64le(out, version);
}

/* ---------------------------------------------------------------------------------------- */
/* cmpctblock                                                                                */

void cmpct_block_init(struct cmpct_block *cb)
{
    memset(cb, 0, sizeof(*cb));
}

void cmpct_block_clear(struct cmpct_block *cb)
{
    for (size_t i = 0; i < cb->prefilled_count; i++) {
        tx_clear(&cb->prefilled[i].tx);
    }
    free(cb->prefilled);
    free(cb->shortids);
    cmpct_block_init(cb);
}

void cmpct_block_set_key(struct cmpct_block *cb)
{
    uint8_t pre[BLOCK_HEADER_SIZE + 8], d[32];
    block_header_serialize(&cb->header, pre);
    hash_sha256d(cb->hash, pre, BLOCK_HEADER_SIZE);
    wr_u64le(pre + BLOCK_HEADER_SIZE, cb->nonce);
    hash_sha256(d, pre, sizeof(pre)); /* single SHA-256, as BIP152 says */
    cb->k0 = rd_u64le(d);
    cb->k1 = rd_u64le(d + 8);
}

uint64_t cmpct_shortid(const struct cmpct_block *cb, const uint8_t wtxid32[32])
{
    return siphash24_uint256(cb->k0, cb->k1, wtxid32) & CMPCT_SHORTID_MASK;
}

int cmpct_block_parse(struct cmpct_block *cb, const uint8_t *p, size_t len, char *err,
                      size_t err_len)
{
    struct reader r;
    uint64_t nshort = 0, npre = 0;
    int rc;

    cmpct_block_init(cb);
    reader_init(&r, p, len);
    rc = block_header_parse(&cb->header, &r);
    rc = rc ? rc : reader_u64le(&r, &cb->nonce, "cmpctblock nonce");
    rc = rc ? rc : ser_get_compact(&r, &nshort, "short id count");
    if (rc) {
        return reader_err(&r, rc, "", err, err_len);
    }
    if (nshort > CMPCT_MAX_TXS) {
        return failf(err, err_len, RC_TOO_LARGE, "indexes overflowed 16 bits (%llu short ids)",
                     (unsigned long long)nshort);
    }
    if (nshort * CMPCT_SHORTID_SIZE > reader_left(&r)) {
        return failf(err, err_len, RC_TRUNCATED, "short id count %llu: the message ends early",
                     (unsigned long long)nshort);
    }
    cb->shortids = nshort ? xmalloc((size_t)nshort * sizeof(*cb->shortids)) : NULL;
    cb->shortid_count = (size_t)nshort;
    for (size_t i = 0; i < cb->shortid_count; i++) {
        const uint8_t *s;
        reader_ptr(&r, &s, CMPCT_SHORTID_SIZE, "short id"); /* bounded above */
        cb->shortids[i] = (uint64_t)rd_u32le(s) | ((uint64_t)rd_u16le(s + 4) << 32);
    }
    rc = ser_get_compact(&r, &npre, "prefilled transaction count");
    if (rc) {
        rc = reader_err(&r, rc, "", err, err_len);
        goto fail;
    }
    if (nshort + npre > CMPCT_MAX_TXS) {
        rc = failf(err, err_len, RC_TOO_LARGE,
                   "indexes overflowed 16 bits (%llu short ids, %llu prefilled)",
                   (unsigned long long)nshort, (unsigned long long)npre);
        goto fail;
    }
    if (npre * (1 + MIN_TX_SIZE) > reader_left(&r)) {
        rc = failf(err, err_len, RC_TRUNCATED,
                   "prefilled transaction count %llu: the message ends early",
                   (unsigned long long)npre);
        goto fail;
    }
    cb->prefilled = npre ? xcalloc((size_t)npre, sizeof(*cb->prefilled)) : NULL;
    /* The running index starts at -1 and each entry adds its difference plus one, so the
     * positions are strictly increasing by construction. */
    int64_t last = -1;
    for (size_t i = 0; i < (size_t)npre; i++) {
        uint64_t diff = 0;
        rc = ser_get_compact(&r, &diff, "prefilled index");
        if (rc) {
            rc = reader_err(&r, rc, "", err, err_len);
            goto fail;
        }
        if (diff > 0xffff) {
            rc = failf(err, err_len, RC_TOO_LARGE,
                       "prefilled index difference %llu exceeds limit of type",
                       (unsigned long long)diff);
            goto fail;
        }
        last += (int64_t)diff + 1;
        if (last > 0xffff) {
            rc = failf(err, err_len, RC_INVALID, "prefilled index overflowed 16 bits");
            goto fail;
        }
        if ((uint64_t)last > nshort + i) {
            rc = failf(err, err_len, RC_INVALID,
                       "prefilled index %lld out of range (%llu short ids, prefilled tx %zu)",
                       (long long)last, (unsigned long long)nshort, i);
            goto fail;
        }
        cb->prefilled[i].index = (uint16_t)last;
        rc = tx_parse(&cb->prefilled[i].tx, &r, 1);
        if (rc) {
            char prefix[48];
            snprintf(prefix, sizeof(prefix), "prefilled tx %zu: ", i);
            rc = reader_err(&r, rc, prefix, err, err_len);
            goto fail;
        }
        cb->prefilled_count = i + 1;
    }
    cmpct_block_set_key(cb);
    clear_err(err, err_len);
    return RC_OK;

fail:
    cmpct_block_clear(cb);
    return rc;
}

int cmpct_block_serialize(struct buf *out, const struct cmpct_block *cb)
{
    if (cmpct_block_tx_count(cb) > CMPCT_MAX_TXS) {
        return RC_USAGE;
    }
    for (size_t i = 1; i < cb->prefilled_count; i++) {
        if (cb->prefilled[i].index <= cb->prefilled[i - 1].index) {
            return RC_USAGE;
        }
    }
    uint8_t h[BLOCK_HEADER_SIZE];
    block_header_serialize(&cb->header, h);
    buf_reserve(out, out->len + BLOCK_HEADER_SIZE + 8 + 6 + cb->shortid_count * 6);
    buf_append(out, h, sizeof(h));
    buf_put_u64le(out, cb->nonce);
    ser_put_compact(out, cb->shortid_count);
    for (size_t i = 0; i < cb->shortid_count; i++) {
        uint8_t s[8];
        wr_u64le(s, cb->shortids[i]);
        buf_append(out, s, CMPCT_SHORTID_SIZE);
    }
    ser_put_compact(out, cb->prefilled_count);
    uint32_t shift = 0;
    for (size_t i = 0; i < cb->prefilled_count; i++) {
        ser_put_compact(out, cb->prefilled[i].index - shift);
        shift = (uint32_t)cb->prefilled[i].index + 1;
        tx_serialize(&cb->prefilled[i].tx, out, 1);
    }
    return RC_OK;
}

int cmpct_block_from_block(struct cmpct_block *cb, const struct block *b, uint64_t nonce)
{
    cmpct_block_init(cb);
    if (b->tx_count == 0 || b->tx_count > CMPCT_MAX_TXS) {
        return RC_USAGE;
    }
    cb->header = b->header;
    cb->nonce = nonce;
    cmpct_block_set_key(cb);
    cb->prefilled = xcalloc(1, sizeof(*cb->prefilled));
    cb->prefilled_count = 1;
    cb->prefilled[0].index = 0;
    tx_copy(&cb->prefilled[0].tx, &b->txs[0]);
    cb->shortid_count = b->tx_count - 1;
    cb->shortids = cb->shortid_count ? xmalloc(cb->shortid_count * sizeof(uint64_t)) : NULL;
    for (size_t i = 1; i < b->tx_count; i++) {
        cb->shortids[i - 1] = cmpct_shortid(cb, b->txs[i].wtxid);
    }
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* getblocktxn                                                                               */

void cmpct_getblocktxn_init(struct cmpct_getblocktxn *req)
{
    memset(req, 0, sizeof(*req));
}

void cmpct_getblocktxn_clear(struct cmpct_getblocktxn *req)
{
    free(req->indexes);
    cmpct_getblocktxn_init(req);
}

int cmpct_getblocktxn_parse(struct cmpct_getblocktxn *req, const uint8_t *p, size_t len, char *err,
                            size_t err_len)
{
    struct reader r;
    uint64_t n = 0;
    cmpct_getblocktxn_init(req);
    reader_init(&r, p, len);
    int rc = reader_bytes(&r, req->block_hash, 32, "getblocktxn block hash");
    rc = rc ? rc : ser_get_compact(&r, &n, "getblocktxn index count");
    if (rc) {
        return reader_err(&r, rc, "", err, err_len);
    }
    /* Strictly increasing 16-bit values: at most 65536 of them. */
    if (n > (uint64_t)CMPCT_MAX_INDEX + 1) {
        return failf(err, err_len, RC_TOO_LARGE,
                     "getblocktxn index count %llu over the limit of %u", (unsigned long long)n,
                     CMPCT_MAX_INDEX + 1);
    }
    if (n > reader_left(&r)) {
        return failf(err, err_len, RC_TRUNCATED,
                     "getblocktxn index count %llu: the message ends early", (unsigned long long)n);
    }
    uint16_t *v = n ? xmalloc((size_t)n * sizeof(*v)) : NULL;
    uint64_t shift = 0;
    for (size_t i = 0; i < (size_t)n; i++) {
        uint64_t d = 0;
        rc = ser_get_compact(&r, &d, "getblocktxn index");
        if (rc) {
            free(v);
            return reader_err(&r, rc, "", err, err_len);
        }
        shift += d; /* d <= SER_MAX_SIZE and shift <= 65536: no wrap */
        if (shift > CMPCT_MAX_INDEX) {
            free(v);
            return failf(err, err_len, RC_INVALID,
                         "differential value overflow (getblocktxn index %zu)", i);
        }
        v[i] = (uint16_t)shift++;
    }
    req->indexes = v;
    req->count = (size_t)n;
    clear_err(err, err_len);
    return RC_OK;
}

int cmpct_getblocktxn_serialize(struct buf *out, const struct cmpct_getblocktxn *req)
{
    for (size_t i = 1; i < req->count; i++) {
        if (req->indexes[i] <= req->indexes[i - 1]) {
            return RC_USAGE;
        }
    }
    buf_append(out, req->block_hash, 32);
    ser_put_compact(out, req->count);
    uint32_t shift = 0;
    for (size_t i = 0; i < req->count; i++) {
        ser_put_compact(out, req->indexes[i] - shift);
        shift = (uint32_t)req->indexes[i] + 1;
    }
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* blocktxn                                                                                  */

void cmpct_blocktxn_init(struct cmpct_blocktxn *bt)
{
    memset(bt, 0, sizeof(*bt));
}

void cmpct_blocktxn_clear(struct cmpct_blocktxn *bt)
{
    for (size_t i = 0; i < bt->count; i++) {
        tx_clear(&bt->txs[i]);
    }
    free(bt->txs);
    cmpct_blocktxn_init(bt);
}

int cmpct_blocktxn_parse(struct cmpct_blocktxn *bt, const uint8_t *p, size_t len, char *err,
                         size_t err_len)
{
    struct reader r;
    uint64_t n = 0;
    cmpct_blocktxn_init(bt);
    reader_init(&r, p, len);
    int rc = reader_bytes(&r, bt->block_hash, 32, "blocktxn block hash");
    rc = rc ? rc : ser_get_compact(&r, &n, "blocktxn transaction count");
    if (rc) {
        return reader_err(&r, rc, "", err, err_len);
    }
    if (n * MIN_TX_SIZE > reader_left(&r)) {
        return failf(err, err_len, RC_TRUNCATED,
                     "blocktxn transaction count %llu: the message ends early",
                     (unsigned long long)n);
    }
    size_t cap = (size_t)n < TX_ALLOC_CHUNK ? (size_t)n : TX_ALLOC_CHUNK;
    bt->txs = cap ? xmalloc(cap * sizeof(*bt->txs)) : NULL;
    for (size_t i = 0; i < (size_t)n; i++) {
        if (i == cap) {
            cap = cap * 2 < (size_t)n ? cap * 2 : (size_t)n;
            bt->txs = xrealloc(bt->txs, cap * sizeof(*bt->txs));
        }
        rc = tx_parse(&bt->txs[i], &r, 1);
        if (rc) {
            char prefix[32];
            snprintf(prefix, sizeof(prefix), "tx %zu: ", i);
            reader_err(&r, rc, prefix, err, err_len);
            cmpct_blocktxn_clear(bt);
            return rc;
        }
        bt->count = i + 1;
    }
    clear_err(err, err_len);
    return RC_OK;
}

void cmpct_blocktxn_serialize(struct buf *out, const struct cmpct_blocktxn *bt)
{
    buf_append(out, bt->block_hash, 32);
    ser_put_compact(out, bt->count);
    for (size_t i = 0; i < bt->count; i++) {
        tx_serialize(&bt->txs[i], out, 1);
    }
}

int cmpct_blocktxn_serialize_from_block(struct buf *out, const struct block *b,
                                        const struct cmpct_getblocktxn *req, char *err,
                                        size_t err_len)
{
    for (size_t i = 0; i < req->count; i++) {
        if (req->indexes[i] >= b->tx_count) {
            return failf(err, err_len, RC_INVALID,
                         "getblocktxn with out-of-bounds tx indices (index %u, %zu txs)",
                         (unsigned)req->indexes[i], b->tx_count);
        }
    }
    buf_append(out, req->block_hash, 32);
    ser_put_compact(out, req->count);
    for (size_t i = 0; i < req->count; i++) {
        tx_serialize(&b->txs[req->indexes[i]], out, 1);
    }
    clear_err(err, err_len);
    return RC_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Reconstruction                                                                            */

enum tx_source { SRC_NONE = 0, SRC_PREFILLED, SRC_POOL, SRC_EXTRA, SRC_COLLIDED };

struct cmpct_partial {
    int ready;
    struct block_header header;
    uint8_t hash[32];
    size_t n;        /* transactions in the block */
    struct tx **txs; /* n slots, owned; NULL where missing */
    uint8_t *source; /* n entries of enum tx_source */
    struct cmpct_counts counts;
};

/* A short id and the block position it stands for, sorted by id for lookups. */
struct sid_pos {
    uint64_t id;
    uint32_t pos;
};

static int cmp_sid(const void *a, const void *b)
{
    const struct sid_pos *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The position whose short id is id, or -1. */
static long find_sid(const struct sid_pos *v, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && v[lo].id == id ? (long)v[lo].pos : -1;
}

struct cmpct_partial *cmpct_partial_new(void)
{
    return xcalloc(1, sizeof(struct cmpct_partial));
}

/* Frees the slots and makes pb empty (not ready, counts kept). */
static void partial_reset(struct cmpct_partial *pb)
{
    for (size_t i = 0; pb->txs && i < pb->n; i++) {
        if (pb->txs[i]) {
            tx_clear(pb->txs[i]);
            free(pb->txs[i]);
        }
    }
    free(pb->txs);
    free(pb->source);
    pb->txs = NULL;
    pb->source = NULL;
    pb->n = 0;
    pb->ready = 0;
    memset(&pb->header, 0, sizeof(pb->header));
    memset(pb->hash, 0, 32);
}

void cmpct_partial_free(struct cmpct_partial *pb)
{
    if (!pb) {
        return;
    }
    partial_reset(pb);
    free(pb);
}

/* A matched candidate's transaction, as a new heap copy in *out. RC_USAGE if it does not
 * parse or is not the transaction whose wtxid was given. */
static int take_candidate(const struct cmpct_candidate *c, struct tx **out, char *err,
                          size_t err_len)
{
    struct tx *t = xmalloc(sizeof(*t));
    if (c->tx) {
        tx_copy(t, c->tx);
    } else {
        char e[160];
        if (tx_deserialize(t, c->raw, c->raw_len, e, sizeof(e)) != RC_OK) {
            free(t);
            return failf(err, err_len, RC_USAGE, "candidate transaction does not parse: %s", e);
        }
    }
    if (memcmp(t->wtxid, c->wtxid, 32) != 0) {
        tx_clear(t);
        free(t);
        return failf(err, err_len, RC_USAGE, "candidate transaction's wtxid is not the one given");
    }
    *out = t;
    return RC_OK;
}

static void drop_slot(struct cmpct_partial *pb, size_t pos)
{
    if (pb->txs[pos]) {
        tx_clear(pb->txs[pos]);
        free(pb->txs[pos]);
        pb->txs[pos] = NULL;
    }
}

/* Offers candidates c[0..n) of source src (SRC_POOL or SRC_EXTRA) against the sorted short
 * ids, with Core's collision rules. Stops once every short id has a transaction. */
static int offer(struct cmpct_partial *pb, const struct cmpct_block *cb, const struct sid_pos *sids,
                 size_t nsid, const struct cmpct_candidate *c, size_t n, uint8_t src, char *err,
                 size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        if (pb->counts.mempool + pb->counts.extra == nsid) {
            break; /* Core's early exit: everything found */
        }
        long pos = find_sid(sids, nsid, cmpct_shortid(cb, c[i].wtxid));
        if (pos < 0) {
            continue;
        }
        uint8_t *s = &pb->source[pos];
        if (*s == SRC_NONE) {
            int rc = take_candidate(&c[i], &pb->txs[pos], err, err_len);
            if (rc) {
                return rc;
            }
            *s = src;
            if (src == SRC_POOL) {
                pb->counts.mempool++;
            } else {
                pb->counts.extra++;
            }
        } else if (*s != SRC_COLLIDED &&
                   (src == SRC_POOL || memcmp(pb->txs[pos]->wtxid, c[i].wtxid, 32) != 0)) {
            /* Two candidates for one short id: request it rather than guess (an extra
             * transaction that is the very one already found is no collision). */
            if (*s == SRC_POOL) {
                pb->counts.mempool--;
            } else {
                pb->counts.extra--;
            }
            drop_slot(pb, (size_t)pos);
            *s = SRC_COLLIDED;
        }
    }
    return RC_OK;
}

int cmpct_partial_init(struct cmpct_partial *pb, enum cmpct_status *status,
                       const struct cmpct_block *cb, const struct cmpct_candidate *pool,
                       size_t pool_n, const struct cmpct_candidate *extra, size_t extra_n,
                       char *err, size_t err_len)
{
    *status = CMPCT_INVALID;
    if (pb->ready || pb->txs) {
        return failf(err, err_len, RC_USAGE, "partial block already initialised");
    }
    memset(&pb->counts, 0, sizeof(pb->counts));
    if (cb->header.bits == 0) {
        failf(err, err_len, RC_INVALID, "null header");
        return RC_OK;
    }
    if (cmpct_block_tx_count(cb) == 0) {
        failf(err, err_len, RC_INVALID, "no transactions");
        return RC_OK;
    }
    if (cmpct_block_tx_count(cb) > CMPCT_MAX_TXS) {
        failf(err, err_len, RC_INVALID, "indexes overflowed 16 bits");
        return RC_OK;
    }
    size_t n = cmpct_block_tx_count(cb);
    pb->n = n;
    pb->txs = xcalloc(n, sizeof(*pb->txs));
    pb->source = xcalloc(n, 1);

    long last = -1;
    for (size_t i = 0; i < cb->prefilled_count; i++) {
        const struct tx *t = &cb->prefilled[i].tx;
        if (t->vin_count == 0 && t->vout_count == 0) {
            failf(err, err_len, RC_INVALID, "null prefilled transaction %zu", i);
            goto invalid;
        }
        /* The struct holds absolute positions; a hand-built one is checked as the wire's. */
        if ((long)cb->prefilled[i].index <= last) {
            failf(err, err_len, RC_INVALID, "prefilled indexes not increasing at %zu", i);
            goto invalid;
        }
        last = cb->prefilled[i].index;
        if ((size_t)last > cb->shortid_count + i) {
            failf(err, err_len, RC_INVALID, "prefilled index %ld out of range", last);
            goto invalid;
        }
        pb->txs[last] = xmalloc(sizeof(struct tx));
        tx_copy(pb->txs[last], t);
        pb->source[last] = SRC_PREFILLED;
    }
    pb->counts.prefilled = cb->prefilled_count;

    /* The short ids in block order fill the positions the prefilled ones leave. */
    struct sid_pos *sids = cb->shortid_count ? xmalloc(cb->shortid_count * sizeof(*sids)) : NULL;
    size_t pos = 0;
    for (size_t i = 0; i < cb->shortid_count; i++) {
        while (pb->source[pos] == SRC_PREFILLED) {
            pos++;
        }
        sids[i].id = cb->shortids[i];
        sids[i].pos = (uint32_t)pos++;
    }
    if (cb->shortid_count > 1) {
        qsort(sids, cb->shortid_count, sizeof(*sids), cmp_sid);
    }
    for (size_t i = 1; i < cb->shortid_count; i++) {
        if (sids[i].id == sids[i - 1].id) {
            free(sids);
            failf(err, err_len, RC_INVALID, "short id collision");
            partial_reset(pb);
            memset(&pb->counts, 0, sizeof(pb->counts));
            *status = CMPCT_FAILED;
            return RC_OK;
        }
    }
    int rc = offer(pb, cb, sids, cb->shortid_count, pool, pool_n, SRC_POOL, err, err_len);
    rc = rc ? rc : offer(pb, cb, sids, cb->shortid_count, extra, extra_n, SRC_EXTRA, err, err_len);
    free(sids);
    if (rc) {
        partial_reset(pb);
        memset(&pb->counts, 0, sizeof(pb->counts));
        return rc;
    }
    pb->header = cb->header;
    block_header_hash(&pb->header, pb->hash);
    pb->ready = 1;
    *status = CMPCT_OK;
    clear_err(err, err_len);
    return RC_OK;

invalid:
    partial_reset(pb);
    memset(&pb->counts, 0, sizeof(pb->counts));
    return RC_OK;
}

int cmpct_partial_ready(const struct cmpct_partial *pb)
{
    return pb->ready;
}

const struct block_header *cmpct_partial_header(const struct cmpct_partial *pb, uint8_t hash32[32])
{
    if (!pb->ready) {
        return NULL;
    }
    if (hash32) {
        memcpy(hash32, pb->hash, 32);
    }
    return &pb->header;
}

size_t cmpct_partial_tx_count(const struct cmpct_partial *pb)
{
    return pb->ready ? pb->n : 0;
}

int cmpct_partial_has_tx(const struct cmpct_partial *pb, size_t index)
{
    return pb->ready && index < pb->n && pb->txs[index] != NULL;
}

void cmpct_partial_getblocktxn(const struct cmpct_partial *pb, struct cmpct_getblocktxn *req)
{
    cmpct_getblocktxn_init(req);
    if (!pb->ready) {
        return;
    }
    memcpy(req->block_hash, pb->hash, 32);
    size_t k = 0;
    for (size_t i = 0; i < pb->n; i++) {
        k += pb->txs[i] == NULL;
    }
    req->indexes = k ? xmalloc(k * sizeof(*req->indexes)) : NULL;
    for (size_t i = 0; i < pb->n; i++) {
        if (!pb->txs[i]) {
            req->indexes[req->count++] = (uint16_t)i;
        }
    }
}

void cmpct_partial_counts(const struct cmpct_partial *pb, struct cmpct_counts *out)
{
    *out = pb->counts;
}

int cmpct_block_mutated(const struct block *b, int check_witness_root, char *err, size_t err_len)
{
    uint8_t root[32];
    int dup = 0;
    merkle_block_root(root, &dup, b);
    if (memcmp(root, b->header.merkle_root, 32) != 0) {
        return failf(err, err_len, 1, "bad-txnmrklroot (hashMerkleRoot mismatch)");
    }
    if (dup) {
        return failf(err, err_len, 1, "bad-txns-duplicate (duplicate transaction)");
    }
    if (b->tx_count == 0 || !tx_is_coinbase(&b->txs[0])) {
        /* A 64-byte transaction could pose as an inner merkle node (not a consensus rule:
         * such a block has no coinbase and is invalid anyway). */
        for (size_t i = 0; i < b->tx_count; i++) {
            if (b->txs[i].size_stripped == 64) {
                return failf(err, err_len, 1,
                             "64-byte transaction %zu in a block without "
                             "a coinbase",
                             i);
            }
        }
        return 0;
    }
    if (check_witness_root) {
        int pos = merkle_witness_commitment_index(b);
        if (pos >= 0) {
            const struct tx_in *in = &b->txs[0].vin[0];
            if (in->witness_count != 1 || in->witness[0].len != 32) {
                return failf(err, err_len, 1,
                             "bad-witness-nonce-size (invalid witness reserved value size)");
            }
            uint8_t both[64], commit[32];
            merkle_block_witness_root(both, NULL, b);
            memcpy(both + 32, in->witness[0].data, 32);
            hash_sha256d(commit, both, 64);
            if (memcmp(commit, b->txs[0].vout[pos].script_pubkey.data + 6, 32) != 0) {
                return failf(err, err_len, 1,
                             "bad-witness-merkle-match (witness merkle commitment mismatch)");
            }
            return 0;
        }
    }
    for (size_t i = 0; i < b->tx_count; i++) {
        if (tx_has_witness(&b->txs[i])) {
            return failf(err, err_len, 1, "unexpected-witness (unexpected witness data found)");
        }
    }
    return 0;
}

int cmpct_partial_fill(struct cmpct_partial *pb, enum cmpct_status *status, struct block *out,
                       const struct tx *missing, size_t n_missing, int segwit_active, char *err,
                       size_t err_len)
{
    block_init(out);
    *status = CMPCT_INVALID;
    pb->counts.blocktxn = 0;
    if (!pb->ready) {
        failf(err, err_len, RC_INVALID, "partial block not initialised or already filled");
        return RC_OK;
    }
    size_t want = 0;
    for (size_t i = 0; i < pb->n; i++) {
        want += pb->txs[i] == NULL;
    }
    if (n_missing != want) {
        failf(err, err_len, RC_INVALID, "%zu transactions given for %zu missing", n_missing, want);
        partial_reset(pb); /* spent, as Core's */
        return RC_OK;
    }
    out->header = pb->header;
    memcpy(out->hash, pb->hash, 32);
    out->tx_count = pb->n;
    out->txs = xmalloc(pb->n * sizeof(*out->txs));
    out->size_stripped = BLOCK_HEADER_SIZE + ser_compact_len(pb->n);
    out->size_total = out->size_stripped;
    size_t k = 0;
    for (size_t i = 0; i < pb->n; i++) {
        if (pb->txs[i]) {
            out->txs[i] = *pb->txs[i]; /* moved: the slot's pieces now belong to out */
            free(pb->txs[i]);
            pb->txs[i] = NULL;
        } else {
            tx_copy(&out->txs[i], &missing[k++]);
        }
        out->size_stripped += out->txs[i].size_stripped;
        out->size_total += out->txs[i].size_total;
    }
    pb->counts.blocktxn = n_missing;
    partial_reset(pb);
    if (cmpct_block_mutated(out, segwit_active, err, err_len)) {
        block_clear(out);
        *status = CMPCT_FAILED;
        return RC_OK;
    }
    *status = CMPCT_OK;
    clear_err(err, err_len);
    return RC_OK;
}
