/* BIP158 Golomb-coded sets and basic block filters (blockfilter.h). */
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "crypto/siphash.h"
#include "index/blockfilter.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define OP_RETURN 0x6a

void blockfilter_basic_params(const uint8_t block_hash[32], struct gcs_params *out)
{
    out->k0 = rd_u64le(block_hash);
    out->k1 = rd_u64le(block_hash + 8);
    out->p = BLOCKFILTER_BASIC_P;
    out->m = BLOCKFILTER_BASIC_M;
}

/* An element's place in [0, f): its SipHash scaled by f (BIP158's "hash to range", a
 * multiply and shift instead of a modulo). */
static uint64_t hash_to_range(const struct gcs_params *p, const struct bytes *e, uint64_t f)
{
    uint64_t h = siphash24(p->k0, p->k1, e->data, e->len);
    return (uint64_t)(((unsigned __int128)h * f) >> 64);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Bits appended most significant first; the last byte is padded with zeros. */
struct bit_writer {
    struct buf *out;
    uint8_t cur;
    int used; /* bits of cur filled */
};

/* Appends the low nbits (0..64) of v. */
static void bw_write(struct bit_writer *w, uint64_t v, int nbits)
{
    while (nbits > 0) {
        int take = 8 - w->used < nbits ? 8 - w->used : nbits;
        uint8_t bits = (uint8_t)((v >> (nbits - take)) & ((1u << take) - 1));
        w->cur |= (uint8_t)(bits << (8 - w->used - take));
        w->used += take;
        nbits -= take;
        if (w->used == 8) {
            buf_put_u8(w->out, w->cur);
            w->cur = 0;
            w->used = 0;
        }
    }
}

static void bw_flush(struct bit_writer *w)
{
    if (w->used) {
        buf_put_u8(w->out, w->cur);
        w->cur = 0;
        w->used = 0;
    }
}

/* Golomb-Rice: the quotient x >> p in unary (that many ones, then a zero), then the low p
 * bits of x. */
static void golomb_rice_encode(struct bit_writer *w, uint8_t p, uint64_t x)
{
    for (uint64_t q = x >> p; q > 0;) {
        int n = q < 64 ? (int)q : 64;
        bw_write(w, ~(uint64_t)0, n);
        q -= (uint64_t)n;
    }
    bw_write(w, 0, 1);
    bw_write(w, x, p);
}

int gcs_encode(const struct gcs_params *p, const struct bytes *elems, size_t n, struct buf *out)
{
    if ((uint64_t)n > UINT32_MAX) {
        return RC_TOO_LARGE;
    }
    ser_put_compact(out, n);
    if (n == 0) {
        return RC_OK;
    }
    uint64_t f = (uint64_t)n * p->m;
    uint64_t *v = xmalloc(n * sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        v[i] = hash_to_range(p, &elems[i], f);
    }
    qsort(v, n, sizeof(*v), cmp_u64);
    struct bit_writer w = {.out = out};
    uint64_t last = 0;
    for (size_t i = 0; i < n; i++) {
        golomb_rice_encode(&w, p->p, v[i] - last);
        last = v[i];
    }
    bw_flush(&w);
    free(v);
    return RC_OK;
}

/* Bits read most significant first; reading past the end fails. */
struct bit_reader {
    const uint8_t *p;
    size_t len, pos; /* pos: the next byte to load */
    uint8_t cur;
    int left; /* bits of cur not yet read */
};

/* The next nbits (0..64) as a number. -1 when the data ends first. */
static int br_read(struct bit_reader *r, int nbits, uint64_t *v)
{
    *v = 0;
    while (nbits > 0) {
        if (r->left == 0) {
            if (r->pos == r->len) {
                return -1;
            }
            r->cur = r->p[r->pos++];
            r->left = 8;
        }
        int take = r->left < nbits ? r->left : nbits;
        uint64_t bits = (uint64_t)(r->cur >> (r->left - take)) & ((1u << take) - 1);
        *v = (*v << take) | bits;
        r->left -= take;
        nbits -= take;
    }
    return 0;
}

static int golomb_rice_decode(struct bit_reader *r, uint8_t p, uint64_t *x)
{
    uint64_t q = 0, bit;
    for (;;) {
        if (br_read(r, 1, &bit)) {
            return -1;
        }
        if (!bit) {
            break;
        }
        q++;
    }
    uint64_t low;
    if (br_read(r, p, &low)) {
        return -1;
    }
    *x = (q << p) + low;
    return 0;
}

/* The set's count and the bits after it: RC_INVALID unless the bits hold exactly n values
 * (Core decodes them all when it takes a filter in). */
static int gcs_open(const uint8_t *f, size_t len, uint8_t p, uint64_t *n, struct bit_reader *r)
{
    struct reader rd;
    reader_init(&rd, f, len);
    if (ser_get_compact(&rd, n, "filter count") != RC_OK || *n > UINT32_MAX) {
        return RC_INVALID;
    }
    struct bit_reader check = {.p = f + rd.pos, .len = len - rd.pos};
    for (uint64_t i = 0; i < *n; i++) {
        uint64_t x;
        if (golomb_rice_decode(&check, p, &x)) {
            return RC_INVALID;
        }
    }
    if (check.pos != check.len) {
        return RC_INVALID; /* excess data */
    }
    *r = (struct bit_reader){.p = f + rd.pos, .len = len - rd.pos};
    return RC_OK;
}

int gcs_match_any(const struct gcs_params *p, const uint8_t *f, size_t len, const struct bytes *q,
                  size_t nq, int *match)
{
    uint64_t n;
    struct bit_reader r;
    *match = 0;
    if (gcs_open(f, len, p->p, &n, &r) != RC_OK) {
        return RC_INVALID;
    }
    if (n == 0 || nq == 0) {
        return RC_OK;
    }
    uint64_t fr = n * p->m;
    uint64_t *qv = xmalloc(nq * sizeof(*qv));
    for (size_t i = 0; i < nq; i++) {
        qv[i] = hash_to_range(p, &q[i], fr);
    }
    qsort(qv, nq, sizeof(*qv), cmp_u64);
    /* Both lists ascending: walk them together. */
    uint64_t value = 0, delta;
    size_t qi = 0;
    for (uint64_t i = 0; i < n && qi < nq; i++) {
        golomb_rice_decode(&r, p->p, &delta); /* gcs_open checked every value is there */
        value += delta;
        while (qi < nq && qv[qi] < value) {
            qi++;
        }
        if (qi < nq && qv[qi] == value) {
            *match = 1;
            break;
        }
    }
    free(qv);
    return RC_OK;
}

static int cmp_bytes(const void *a, const void *b)
{
    const struct bytes *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->data, y->data, n) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

int blockfilter_basic(const struct block *b, const struct bytes *prev, size_t n_prev,
                      struct buf *out)
{
    size_t cap = n_prev;
    for (size_t t = 0; t < b->tx_count; t++) {
        cap += b->txs[t].vout_count;
    }
    struct bytes *e = xmalloc((cap ? cap : 1) * sizeof(*e));
    size_t n = 0;
    for (size_t t = 0; t < b->tx_count; t++) {
        for (size_t o = 0; o < b->txs[t].vout_count; o++) {
            const struct bytes *s = &b->txs[t].vout[o].script_pubkey;
            if (s->len > 0 && s->data[0] != OP_RETURN) {
                e[n++] = *s;
            }
        }
    }
    for (size_t i = 0; i < n_prev; i++) {
        if (prev[i].len > 0) {
            e[n++] = prev[i];
        }
    }
    /* A set: each script once. */
    qsort(e, n, sizeof(*e), cmp_bytes);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k == 0 || cmp_bytes(&e[k - 1], &e[i]) != 0) {
            e[k++] = e[i];
        }
    }
    struct gcs_params p;
    blockfilter_basic_params(b->hash, &p);
    int rc = gcs_encode(&p, e, k, out);
    free(e);
    return rc;
}

void blockfilter_hash(const uint8_t *f, size_t len, uint8_t out[32])
{
    hash_sha256d(out, f, len);
}

void blockfilter_header(const uint8_t filter_hash[32], const uint8_t prev_header[32],
                        uint8_t out[32])
{
    uint8_t both[64];
    memcpy(both, filter_hash, 32);
    memcpy(both + 32, prev_header, 32);
    hash_sha256d(out, both, 64);
}
