/* BIP37 bloom filters (bloom.h), as Core's CBloomFilter and CMerkleBlock. */
#include "net/bloom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/merkleblock.h"
#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "script/script.h"
#include "script/solver.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define LN2SQUARED 0.4804530139182014246671025263266649717305529515945455
#define LN2 0.6931471805599453094172321214581765680755001343602552

void bloom_filter_init(struct bloom_filter *f, unsigned n_elements, double fp_rate,
                       uint32_t tweak, uint8_t flags)
{
    /* The ideal size, -n * ln(p) / ln(2)^2 bits, and ln(2) * bits / n hash functions, each
     * capped at the protocol's limit, computed in Core's integer and double steps. */
    unsigned bits = (unsigned)(-1 / LN2SQUARED * n_elements * log(fp_rate));
    if (bits > BLOOM_MAX_FILTER_SIZE * 8) {
        bits = BLOOM_MAX_FILTER_SIZE * 8;
    }
    f->len = bits / 8;
    f->data = f->len ? xcalloc(f->len, 1) : NULL;
    unsigned funcs = (unsigned)((double)(unsigned)(f->len * 8 / n_elements) * LN2);
    f->n_hash_funcs = funcs < BLOOM_MAX_HASH_FUNCS ? funcs : BLOOM_MAX_HASH_FUNCS;
    f->tweak = tweak;
    f->flags = flags;
}

void bloom_filter_clear(struct bloom_filter *f)
{
    free(f->data);
    memset(f, 0, sizeof(*f));
}

int bloom_filter_parse(struct bloom_filter *f, const uint8_t *d, size_t len, char *err,
                       size_t err_len)
{
    memset(f, 0, sizeof(*f));
    struct reader r;
    reader_init(&r, d, len);
    const uint8_t *data;
    size_t n;
    int rc = ser_get_varbytes(&r, &data, &n, "filter data");
    if (rc == RC_OK) {
        rc = reader_u32le(&r, &f->n_hash_funcs, "filter nHashFuncs");
    }
    if (rc == RC_OK) {
        rc = reader_u32le(&r, &f->tweak, "filter nTweak");
    }
    if (rc == RC_OK) {
        rc = reader_u8(&r, &f->flags, "filter nFlags");
    }
    if (rc != RC_OK) {
        if (err && err_len) {
            snprintf(err, err_len, "%s", r.err);
        }
        memset(f, 0, sizeof(*f));
        return rc;
    }
    f->len = n;
    if (n) {
        f->data = xmalloc(n);
        memcpy(f->data, data, n);
    }
    return RC_OK;
}

void bloom_filter_serialize(const struct bloom_filter *f, struct buf *out)
{
    ser_put_varbytes(out, f->data, f->len);
    buf_put_u32le(out, f->n_hash_funcs);
    buf_put_u32le(out, f->tweak);
    buf_put_u8(out, f->flags);
}

int bloom_filter_within_limits(const struct bloom_filter *f)
{
    return f->len <= BLOOM_MAX_FILTER_SIZE && f->n_hash_funcs <= BLOOM_MAX_HASH_FUNCS;
}

/* The bit the i-th hash function picks for key (seeds 0xFBA4C795 apart, in 32 bits). */
static size_t bit_index(const struct bloom_filter *f, uint32_t i, const uint8_t *key, size_t n)
{
    uint32_t seed = i * 0xFBA4C795u + f->tweak;
    return hash_murmur3_32(seed, key, n) % (f->len * 8);
}

void bloom_filter_insert(struct bloom_filter *f, const uint8_t *key, size_t n)
{
    if (f->len == 0) { /* no division by zero (CVE-2013-5700) */
        return;
    }
    for (uint32_t i = 0; i < f->n_hash_funcs; i++) {
        size_t b = bit_index(f, i, key, n);
        f->data[b >> 3] |= (uint8_t)(1u << (b & 7));
    }
}

int bloom_filter_contains(const struct bloom_filter *f, const uint8_t *key, size_t n)
{
    if (f->len == 0) {
        return 1;
    }
    for (uint32_t i = 0; i < f->n_hash_funcs; i++) {
        size_t b = bit_index(f, i, key, n);
        if (!(f->data[b >> 3] & (1u << (b & 7)))) {
            return 0;
        }
    }
    return 1;
}

static void outpoint_bytes(uint8_t out[36], const struct outpoint *op)
{
    memcpy(out, op->txid, 32);
    wr_u32le(out + 32, op->n);
}

void bloom_filter_insert_outpoint(struct bloom_filter *f, const struct outpoint *op)
{
    uint8_t k[36];
    outpoint_bytes(k, op);
    bloom_filter_insert(f, k, sizeof(k));
}

int bloom_filter_contains_outpoint(const struct bloom_filter *f, const struct outpoint *op)
{
    uint8_t k[36];
    outpoint_bytes(k, op);
    return bloom_filter_contains(f, k, sizeof(k));
}

/* 1 if a data push of script (up to its first undecodable operation) is in f. */
static int script_matches(const struct bloom_filter *f, const uint8_t *script, size_t len)
{
    size_t pc = 0;
    uint8_t op;
    const uint8_t *data;
    size_t n;
    while (pc < len && script_get_op(script, len, &pc, &op, &data, &n)) {
        if (n != 0 && bloom_filter_contains(f, data, n)) {
            return 1;
        }
    }
    return 0;
}

/* An output of tx matched: its outpoint goes into f as the flags say. */
static void update_for_output(struct bloom_filter *f, const struct tx *tx, uint32_t i)
{
    const struct bytes *spk = &tx->vout[i].script_pubkey;
    int mode = f->flags & BLOOM_UPDATE_MASK;
    struct outpoint op;
    memcpy(op.txid, tx->txid, 32);
    op.n = i;
    if (mode == BLOOM_UPDATE_ALL) {
        bloom_filter_insert_outpoint(f, &op);
    } else if (mode == BLOOM_UPDATE_P2PUBKEY_ONLY) {
        enum script_type t = script_solve(spk->data, spk->len, NULL, NULL);
        if (t == SCRIPT_TYPE_PUBKEY || t == SCRIPT_TYPE_MULTISIG) {
            bloom_filter_insert_outpoint(f, &op);
        }
    }
}

int bloom_filter_relevant_and_update(struct bloom_filter *f, const struct tx *tx)
{
    if (f->len == 0) { /* the match-all filter */
        return 1;
    }
    int found = bloom_filter_contains(f, tx->txid, 32);
    for (size_t i = 0; i < tx->vout_count; i++) {
        /* Every output is looked at, so that each one that matches is added. */
        const struct bytes *spk = &tx->vout[i].script_pubkey;
        if (script_matches(f, spk->data, spk->len)) {
            found = 1;
            update_for_output(f, tx, (uint32_t)i);
        }
    }
    if (found) {
        return 1;
    }
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct tx_in *in = &tx->vin[i];
        if (bloom_filter_contains_outpoint(f, &in->prevout) ||
            script_matches(f, in->script_sig.data, in->script_sig.len)) {
            return 1;
        }
    }
    return 0;
}

void bloom_filter_merkleblock(struct bloom_filter *f, const struct block *b, struct buf *out,
                              size_t **matched, size_t *n_matched)
{
    CHECK_ALWAYS(b->tx_count >= 1);
    uint8_t(*txids)[32] = xmalloc(b->tx_count * 32);
    uint8_t *match = xcalloc(b->tx_count, 1);
    *matched = NULL;
    *n_matched = 0;
    for (size_t i = 0; i < b->tx_count; i++) {
        memcpy(txids[i], b->txs[i].txid, 32);
        /* In block order: a match may add an outpoint a later transaction spends. */
        if (bloom_filter_relevant_and_update(f, &b->txs[i])) {
            match[i] = 1;
            *matched = xrealloc(*matched, (*n_matched + 1) * sizeof(**matched));
            (*matched)[(*n_matched)++] = i;
        }
    }
    struct partial_merkle pm;
    partial_merkle_init(&pm);
    partial_merkle_build(&pm, (const uint8_t(*)[32])txids, match, b->tx_count);
    uint8_t hdr[BLOCK_HEADER_SIZE];
    block_header_serialize(&b->header, hdr);
    buf_append(out, hdr, sizeof(hdr));
    partial_merkle_serialize(&pm, out);
    partial_merkle_clear(&pm);
    free(match);
    free(txids);
}
