/* Transactions: Bitcoin Core's serialization (src/primitives/transaction.h), legacy and BIP144.
 * Wire format: doc/files.md, "Transaction".
 */
#include "primitives/tx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Smallest serializations, used to bound an allocation by what the remaining input can
 * hold (see alloc_count): an input is a 36-byte prevout, a 1-byte empty scriptSig length and a
 * 4-byte sequence; an output an 8-byte value and a 1-byte empty script length; a witness
 * item a 1-byte empty length. */
#define MIN_TX_IN_SIZE 41
#define MIN_TX_OUT_SIZE 9
#define MIN_WITNESS_ITEM_SIZE 1

/* The field readers below take the field's name as a printf format, formatted only when the
 * read fails, so that the common path of parsing a large block does no string work. */

static void field_name(char *what, size_t n, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void field_name(char *what, size_t n, const char *fmt, va_list ap)
{
    vsnprintf(what, n, fmt, ap);
}

static int rd_u32(struct reader *r, uint32_t *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int rd_u32(struct reader *r, uint32_t *out, const char *fmt, ...)
{
    if (r->rc == RC_OK && reader_left(r) >= 4) {
        *out = rd_u32le(r->p + r->pos);
        r->pos += 4;
        return RC_OK;
    }
    char what[64];
    va_list ap;
    va_start(ap, fmt);
    field_name(what, sizeof(what), fmt, ap);
    va_end(ap);
    return reader_u32le(r, out, what);
}

static int rd_u64(struct reader *r, uint64_t *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int rd_u64(struct reader *r, uint64_t *out, const char *fmt, ...)
{
    if (r->rc == RC_OK && reader_left(r) >= 8) {
        *out = rd_u64le(r->p + r->pos);
        r->pos += 8;
        return RC_OK;
    }
    char what[64];
    va_list ap;
    va_start(ap, fmt);
    field_name(what, sizeof(what), fmt, ap);
    va_end(ap);
    return reader_u64le(r, out, what);
}

/* Borrows n bytes. */
static int rd_ptr(struct reader *r, const uint8_t **out, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int rd_ptr(struct reader *r, const uint8_t **out, size_t n, const char *fmt, ...)
{
    if (r->rc == RC_OK && reader_left(r) >= n) {
        *out = r->p + r->pos;
        r->pos += n;
        return RC_OK;
    }
    char what[64];
    va_list ap;
    va_start(ap, fmt);
    field_name(what, sizeof(what), fmt, ap);
    va_end(ap);
    return reader_ptr(r, out, n, what);
}

/* A CompactSize size or count (range-checked against SER_MAX_SIZE by ser_get_compact). */
static int rd_compact(struct reader *r, uint64_t *out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int rd_compact(struct reader *r, uint64_t *out, const char *fmt, ...)
{
    if (r->rc == RC_OK && reader_left(r) >= 1 && r->p[r->pos] < 253) {
        *out = r->p[r->pos++];
        return RC_OK;
    }
    char what[64];
    va_list ap;
    va_start(ap, fmt);
    field_name(what, sizeof(what), fmt, ap);
    va_end(ap);
    return ser_get_compact(r, out, what);
}

/* How many entries of a count just read to allocate room for: the count itself, unless the
 * rest of the input cannot hold that many entries of at least min_size bytes each. Then
 * parsing is certain to fail at the truncation (which names the exact field, as Core's
 * chunked vector reads do), before more than left / min_size + 1 entries are started, so
 * a hostile count never turns into a huge allocation. */
static size_t alloc_count(const struct reader *r, size_t n, size_t min_size)
{
    size_t fit = reader_left(r) / min_size + 1;
    return n < fit ? n : fit;
}

/* Copies p[0..n) into an owned byte string (data NULL when n == 0). */
static void bytes_set(struct bytes *b, const uint8_t *p, size_t n)
{
    b->len = n;
    b->data = n ? xmemdup(p, n) : NULL;
}

/* n zeroed bytes from the arena, or the heap without one. */
static void *pcalloc(struct arena *a, size_t count, size_t size)
{
    if (!a) {
        return xcalloc(count, size);
    }
    CHECK_ALWAYS(size == 0 || count <= SIZE_MAX / size);
    return arena_calloc(a, count * size);
}

/* bytes_set with the copy from the arena (or the heap without one). */
static void pbytes_set(struct arena *a, struct bytes *b, const uint8_t *p, size_t n)
{
    if (!a) {
        bytes_set(b, p, n);
        return;
    }
    b->len = n;
    b->data = n ? memcpy(arena_alloc(a, n), p, n) : NULL; /* all of it written */
}

static void bytes_free(struct bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
}

void tx_init(struct tx *tx)
{
    memset(tx, 0, sizeof(*tx));
}

static void tx_in_free(struct tx_in *in)
{
    bytes_free(&in->script_sig);
    for (size_t j = 0; j < in->witness_count; j++) {
        bytes_free(&in->witness[j]);
    }
    free(in->witness);
    in->witness = NULL;
    in->witness_count = 0;
}

void tx_clear(struct tx *tx)
{
    if (tx->pooled) {
        tx_init(tx); /* its pieces are its arena's */
        return;
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        tx_in_free(&tx->vin[i]);
    }
    free(tx->vin);
    for (size_t i = 0; i < tx->vout_count; i++) {
        bytes_free(&tx->vout[i].script_pubkey);
    }
    free(tx->vout);
    tx_init(tx);
}

void tx_copy(struct tx *dst, const struct tx *src)
{
    *dst = *src;
    dst->pooled = 0;
    dst->vin = src->vin_count ? xcalloc(src->vin_count, sizeof(*dst->vin)) : NULL;
    for (size_t i = 0; i < src->vin_count; i++) {
        const struct tx_in *si = &src->vin[i];
        struct tx_in *di = &dst->vin[i];
        *di = *si;
        bytes_set(&di->script_sig, si->script_sig.data, si->script_sig.len);
        di->witness = si->witness_count ? xcalloc(si->witness_count, sizeof(*di->witness)) : NULL;
        for (size_t j = 0; j < si->witness_count; j++) {
            bytes_set(&di->witness[j], si->witness[j].data, si->witness[j].len);
        }
    }
    dst->vout = src->vout_count ? xcalloc(src->vout_count, sizeof(*dst->vout)) : NULL;
    for (size_t i = 0; i < src->vout_count; i++) {
        dst->vout[i].value_sat = src->vout[i].value_sat;
        bytes_set(&dst->vout[i].script_pubkey, src->vout[i].script_pubkey.data,
                  src->vout[i].script_pubkey.len);
    }
}

/* vin: CompactSize count, then each input. tx->vin must be empty on entry. */
static int read_vin(struct reader *r, struct tx *tx, struct arena *a)
{
    uint64_t n;
    size_t cap;
    int rc;
    if ((rc = rd_compact(r, &n, "input count"))) {
        return rc;
    }
    if (n == 0) {
        return RC_OK;
    }
    cap = alloc_count(r, (size_t)n, MIN_TX_IN_SIZE);
    tx->vin = pcalloc(a, cap, sizeof(*tx->vin));
    for (size_t i = 0; i < (size_t)n; i++) {
        struct tx_in *in = &tx->vin[i];
        const uint8_t *p;
        uint64_t len;
        CHECK_ALWAYS(i < cap);
        /* Counted before it is filled, so that tx_clear frees what a failure leaves. */
        tx->vin_count = i + 1;
        if ((rc = rd_ptr(r, &p, 32, "input %zu prevout txid", i))) {
            return rc;
        }
        memcpy(in->prevout.txid, p, 32);
        if ((rc = rd_u32(r, &in->prevout.n, "input %zu prevout index", i))) {
            return rc;
        }
        if ((rc = rd_compact(r, &len, "input %zu scriptSig length", i))) {
            return rc;
        }
        if ((rc = rd_ptr(r, &p, (size_t)len, "input %zu scriptSig", i))) {
            return rc;
        }
        pbytes_set(a, &in->script_sig, p, (size_t)len);
        if ((rc = rd_u32(r, &in->sequence, "input %zu sequence", i))) {
            return rc;
        }
    }
    return RC_OK;
}

/* vout: CompactSize count, then each output. tx->vout must be empty on entry. */
static int read_vout(struct reader *r, struct tx *tx, struct arena *a)
{
    uint64_t n;
    size_t cap;
    int rc;
    if ((rc = rd_compact(r, &n, "output count"))) {
        return rc;
    }
    if (n == 0) {
        return RC_OK;
    }
    cap = alloc_count(r, (size_t)n, MIN_TX_OUT_SIZE);
    tx->vout = pcalloc(a, cap, sizeof(*tx->vout));
    for (size_t i = 0; i < (size_t)n; i++) {
        struct tx_out *out = &tx->vout[i];
        const uint8_t *p;
        uint64_t v, len;
        CHECK_ALWAYS(i < cap);
        tx->vout_count = i + 1;
        if ((rc = rd_u64(r, &v, "output %zu value", i))) {
            return rc;
        }
        out->value_sat = (int64_t)v;
        if ((rc = rd_compact(r, &len, "output %zu scriptPubKey length", i))) {
            return rc;
        }
        if ((rc = rd_ptr(r, &p, (size_t)len, "output %zu scriptPubKey", i))) {
            return rc;
        }
        pbytes_set(a, &out->script_pubkey, p, (size_t)len);
    }
    return RC_OK;
}

/* Every input's witness stack: a CompactSize item count, then CompactSize-prefixed items. */
static int read_witnesses(struct reader *r, struct tx *tx, struct arena *a)
{
    int rc;
    for (size_t i = 0; i < tx->vin_count; i++) {
        struct tx_in *in = &tx->vin[i];
        uint64_t n;
        size_t cap;
        if ((rc = rd_compact(r, &n, "input %zu witness item count", i))) {
            return rc;
        }
        if (n == 0) {
            continue;
        }
        cap = alloc_count(r, (size_t)n, MIN_WITNESS_ITEM_SIZE);
        in->witness = pcalloc(a, cap, sizeof(*in->witness));
        for (size_t j = 0; j < (size_t)n; j++) {
            uint64_t len;
            const uint8_t *p;
            CHECK_ALWAYS(j < cap);
            in->witness_count = j + 1;
            if ((rc = rd_compact(r, &len, "input %zu witness item %zu length", i, j))) {
                return rc;
            }
            if ((rc = rd_ptr(r, &p, (size_t)len, "input %zu witness item %zu", i, j))) {
                return rc;
            }
            pbytes_set(a, &in->witness[j], p, (size_t)len);
        }
    }
    return RC_OK;
}

static void sha256d_finish(struct hash_sha256_ctx *ctx, uint8_t out32[32])
{
    uint8_t h[32];
    hash_sha256_final(ctx, h);
    hash_sha256(out32, h, 32);
}

int tx_parse(struct tx *tx, struct reader *r, int allow_witness)
{
    return tx_parse_in(tx, r, allow_witness, NULL);
}

int tx_parse_in(struct tx *tx, struct reader *r, int allow_witness, struct arena *a)
{
    const size_t start = r->pos;
    size_t body_start = 0, body_end = 0, wit_end = 0;
    uint32_t u;
    uint8_t flags = 0;
    int extended = 0; /* marker and flags bytes present */
    int rc;

    tx_init(tx);
    tx->pooled = a != NULL;
    if ((rc = rd_u32(r, &u, "version"))) {
        goto fail;
    }
    tx->version = (int32_t)u;

    /* Mirrors Core's UnserializeTransaction: an empty vin read where witness data is allowed
     * is the BIP144 marker, and the next byte is the flags. */
    body_start = r->pos;
    if ((rc = read_vin(r, tx, a))) {
        goto fail;
    }
    if (tx->vin_count == 0 && allow_witness) {
        const uint8_t *p;
        if ((rc = rd_ptr(r, &p, 1, "witness flag"))) {
            goto fail;
        }
        flags = p[0];
        if (flags != 0) {
            extended = 1;
            body_start = r->pos;
            if ((rc = read_vin(r, tx, a)) || (rc = read_vout(r, tx, a))) {
                goto fail;
            }
        }
    } else {
        if ((rc = read_vout(r, tx, a))) {
            goto fail;
        }
    }
    body_end = r->pos;
    if ((flags & 1) && allow_witness) {
        flags ^= 1;
        if ((rc = read_witnesses(r, tx, a))) {
            goto fail;
        }
        if (!tx_has_witness(tx)) {
            rc = reader_fail(r, RC_INVALID, "Superfluous witness record at offset %zu", r->pos);
            goto fail;
        }
    }
    wit_end = r->pos;
    if (flags) {
        rc = reader_fail(r, RC_INVALID, "Unknown transaction optional data (flags 0x%02x)",
                         (unsigned)flags);
        goto fail;
    }
    if ((rc = rd_u32(r, &tx->locktime, "locktime"))) {
        goto fail;
    }

    /* The bytes just read are the canonical serialization (every CompactSize was minimal
     * and the flags byte can only be 1 here), so hash them in place instead of
     * serializing again. */
    tx->size_total = r->pos - start;
    if (extended) {
        struct hash_sha256_ctx ctx;
        hash_sha256_init(&ctx);
        hash_sha256_write(&ctx, r->p + start, 4);
        hash_sha256_write(&ctx, r->p + body_start, body_end - body_start);
        hash_sha256_write(&ctx, r->p + wit_end, 4);
        sha256d_finish(&ctx, tx->txid);
        hash_sha256d(tx->wtxid, r->p + start, tx->size_total);
        tx->size_stripped = 4 + (body_end - body_start) + 4;
    } else {
        hash_sha256d(tx->txid, r->p + start, tx->size_total);
        memcpy(tx->wtxid, tx->txid, 32);
        tx->size_stripped = tx->size_total;
    }
    return RC_OK;

fail:
    tx_clear(tx);
    return rc;
}

int tx_deserialize(struct tx *tx, const uint8_t *p, size_t len, char *err, size_t err_len)
{
    struct reader r;
    int rc;
    reader_init(&r, p, len);
    rc = tx_parse(tx, &r, 1);
    if (rc == RC_OK && (rc = reader_expect_end(&r, "transaction"))) {
        tx_clear(tx);
    }
    if (err && err_len) {
        snprintf(err, err_len, "%s", rc ? r.err : "");
    }
    return rc;
}

int tx_has_witness(const struct tx *tx)
{
    for (size_t i = 0; i < tx->vin_count; i++) {
        if (tx->vin[i].witness_count) {
            return 1;
        }
    }
    return 0;
}

/* Appends vin and vout (the part shared by both formats). */
static void put_body(const struct tx *tx, struct buf *out)
{
    ser_put_compact(out, tx->vin_count);
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct tx_in *in = &tx->vin[i];
        buf_append(out, in->prevout.txid, 32);
        buf_put_u32le(out, in->prevout.n);
        ser_put_varbytes(out, in->script_sig.data, in->script_sig.len);
        buf_put_u32le(out, in->sequence);
    }
    ser_put_compact(out, tx->vout_count);
    for (size_t i = 0; i < tx->vout_count; i++) {
        buf_put_u64le(out, (uint64_t)tx->vout[i].value_sat);
        ser_put_varbytes(out, tx->vout[i].script_pubkey.data, tx->vout[i].script_pubkey.len);
    }
}

void tx_serialize(const struct tx *tx, struct buf *out, int with_witness)
{
    int wit = with_witness && tx_has_witness(tx);
    buf_put_u32le(out, (uint32_t)tx->version);
    if (wit) {
        buf_put_u8(out, 0x00); /* marker: an empty vin */
        buf_put_u8(out, 0x01); /* flags: witness data follows vout */
    }
    put_body(tx, out);
    if (wit) {
        for (size_t i = 0; i < tx->vin_count; i++) {
            const struct tx_in *in = &tx->vin[i];
            ser_put_compact(out, in->witness_count);
            for (size_t j = 0; j < in->witness_count; j++) {
                ser_put_varbytes(out, in->witness[j].data, in->witness[j].len);
            }
        }
    }
    buf_put_u32le(out, tx->locktime);
}

void tx_compute_hashes(struct tx *tx)
{
    struct buf b;
    buf_init(&b);
    tx_serialize(tx, &b, 0);
    hash_sha256d(tx->txid, b.data, b.len);
    tx->size_stripped = b.len;
    if (tx_has_witness(tx)) {
        buf_reset(&b);
        tx_serialize(tx, &b, 1);
        hash_sha256d(tx->wtxid, b.data, b.len);
        tx->size_total = b.len;
    } else {
        memcpy(tx->wtxid, tx->txid, 32);
        tx->size_total = tx->size_stripped;
    }
    buf_clear(&b);
}

int outpoint_is_null(const struct outpoint *o)
{
    static const uint8_t zero[32];
    return o->n == 0xffffffffu && memcmp(o->txid, zero, 32) == 0;
}

int tx_is_coinbase(const struct tx *tx)
{
    return tx->vin_count == 1 && outpoint_is_null(&tx->vin[0].prevout);
}
