/* libsecp256k1 glue. See sigcheck.h. */
#include "script/sigcheck.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

#include "crypto/hash.h"
#include "util/check.h"
#include "util/rc.h"

static secp256k1_context *g_ctx;
/* Relaxed counters: one increment per verify (tens of microseconds each). */
static _Atomic uint64_t g_n_ecdsa, g_n_schnorr, g_n_tweak;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void secp_create(void)
{
    g_ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    CHECK_ALWAYS(g_ctx != NULL);
}

void script_secp_init(void)
{
    pthread_once(&g_once, secp_create);
}

const secp256k1_context *script_secp_ctx(void)
{
    pthread_once(&g_once, secp_create);
    return g_ctx;
}

/* Reads a DER length whose first byte had the high bit set (the long form): returns 0 on
 * an unusable length, else 1 with *out. Leading zero bytes are skipped; more than 3
 * significant bytes is unusable. Shared by R and S as in Core. */
static int lax_long_len(const uint8_t *in, size_t len, size_t *pos, size_t lenbyte, size_t *out)
{
    lenbyte -= 0x80;
    if (lenbyte > len - *pos) {
        return 0;
    }
    while (lenbyte > 0 && in[*pos] == 0) {
        (*pos)++;
        lenbyte--;
    }
    if (lenbyte >= 4) {
        return 0;
    }
    size_t v = 0;
    while (lenbyte > 0) {
        v = (v << 8) + in[*pos];
        (*pos)++;
        lenbyte--;
    }
    *out = v;
    return 1;
}

/* One INTEGER element of a lax DER signature at *pos: the 0x02 tag, a length (the long form
 * read as lax_long_len does), then that many bytes. Returns 1 with the bytes at
 * [*start, *start + *n) and *pos past them, or 0. */
static int lax_integer(const uint8_t *in, size_t len, size_t *pos, size_t *start, size_t *n)
{
    if (*pos == len || in[*pos] != 0x02) {
        return 0;
    }
    (*pos)++;
    if (*pos == len) {
        return 0;
    }
    size_t lenbyte = in[(*pos)++];
    if (lenbyte & 0x80) {
        if (!lax_long_len(in, len, pos, lenbyte, n)) {
            return 0;
        }
    } else {
        *n = lenbyte;
    }
    if (*n > len - *pos) {
        return 0;
    }
    *start = *pos;
    *pos += *n;
    return 1;
}

/* Puts the big-endian integer p[0..n) right-aligned into out32, leading zero bytes
 * ignored. Returns 0 if it is longer than 32 bytes (an overflow). */
static int lax_put32(uint8_t out32[32], const uint8_t *p, size_t n)
{
    while (n > 0 && *p == 0) {
        n--;
        p++;
    }
    if (n > 32) {
        return 0;
    }
    if (n > 0) {
        memcpy(out32 + 32 - n, p, n);
    }
    return 1;
}

int script_ecdsa_parse_der_lax(secp256k1_ecdsa_signature *sig, const uint8_t *in, size_t len)
{
    size_t rpos, rlen, spos, slen, pos = 0, lenbyte;
    uint8_t tmpsig[64] = {0};
    int overflow = 0;

    /* Start from a correctly parsed but invalid (all-zero) signature. */
    secp256k1_ecdsa_signature_parse_compact(secp256k1_context_static, sig, tmpsig);

    /* Sequence tag byte. */
    if (pos == len || in[pos] != 0x30) {
        return 0;
    }
    pos++;
    /* Sequence length bytes: skipped, whatever they say. */
    if (pos == len) {
        return 0;
    }
    lenbyte = in[pos++];
    if (lenbyte & 0x80) {
        lenbyte -= 0x80;
        if (lenbyte > len - pos) {
            return 0;
        }
        pos += lenbyte;
    }

    /* R, then S (what follows S is ignored). */
    if (!lax_integer(in, len, &pos, &rpos, &rlen) || !lax_integer(in, len, &pos, &spos, &slen)) {
        return 0;
    }

    /* A value longer than 32 bytes (after leading zeroes) overflows. */
    overflow = !lax_put32(tmpsig, in + rpos, rlen);
    overflow |= !lax_put32(tmpsig + 32, in + spos, slen);
    if (!overflow) {
        overflow = !secp256k1_ecdsa_signature_parse_compact(secp256k1_context_static, sig, tmpsig);
    }
    if (overflow) {
        memset(tmpsig, 0, 64);
        secp256k1_ecdsa_signature_parse_compact(secp256k1_context_static, sig, tmpsig);
    }
    return 1;
}

/* CPubKey::GetLen on the header byte. */
static size_t pubkey_len_for_header(uint8_t h)
{
    if (h == 2 || h == 3) {
        return 33;
    }
    if (h == 4 || h == 6 || h == 7) {
        return 65;
    }
    return 0;
}

int script_ecdsa_verify(const uint8_t *sig, size_t sig_len, const uint8_t *pubkey,
                        size_t pubkey_len, const uint8_t hash32[32])
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_pubkey pk;
    secp256k1_ecdsa_signature s;

    if (pubkey_len == 0 || pubkey_len_for_header(pubkey[0]) != pubkey_len) {
        return 0;
    }
    if (!secp256k1_ec_pubkey_parse(ctx, &pk, pubkey, pubkey_len)) {
        return 0;
    }
    if (!script_ecdsa_parse_der_lax(&s, sig, sig_len)) {
        return 0;
    }
    /* libsecp256k1 only accepts low-S signatures; consensus accepts both. */
    secp256k1_ecdsa_signature_normalize(ctx, &s, &s);
    atomic_fetch_add_explicit(&g_n_ecdsa, 1, memory_order_relaxed);
    return secp256k1_ecdsa_verify(ctx, &s, hash32, &pk);
}

void script_verify_counts_get(struct script_verify_counts *out)
{
    out->ecdsa = atomic_load_explicit(&g_n_ecdsa, memory_order_relaxed);
    out->schnorr = atomic_load_explicit(&g_n_schnorr, memory_order_relaxed);
    out->tweak = atomic_load_explicit(&g_n_tweak, memory_order_relaxed);
}

int script_ecdsa_is_low_s(const uint8_t *sig, size_t sig_len)
{
    secp256k1_ecdsa_signature s;
    if (!script_ecdsa_parse_der_lax(&s, sig, sig_len)) {
        return 0;
    }
    return !secp256k1_ecdsa_signature_normalize(script_secp_ctx(), NULL, &s);
}

int script_schnorr_verify(const uint8_t sig64[64], const uint8_t xonly32[32],
                          const uint8_t hash32[32])
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_xonly_pubkey pk;
    if (!secp256k1_xonly_pubkey_parse(ctx, &pk, xonly32)) {
        return 0;
    }
    atomic_fetch_add_explicit(&g_n_schnorr, 1, memory_order_relaxed);
    return secp256k1_schnorrsig_verify(ctx, sig64, hash32, 32, &pk);
}

static void tap_tweak_hash(uint8_t out32[32], const uint8_t internal32[32],
                           const uint8_t *merkle_root32)
{
    struct hash_sha256_ctx h;
    hash_tagged_init(&h, "TapTweak");
    hash_sha256_write(&h, internal32, 32);
    if (merkle_root32) {
        hash_sha256_write(&h, merkle_root32, 32);
    }
    hash_sha256_final(&h, out32);
}

int script_taproot_check_tweak(const uint8_t output32[32], int parity, const uint8_t internal32[32],
                               const uint8_t *merkle_root32)
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_xonly_pubkey internal;
    uint8_t tweak[32];
    if (!secp256k1_xonly_pubkey_parse(ctx, &internal, internal32)) {
        return 0;
    }
    tap_tweak_hash(tweak, internal32, merkle_root32);
    atomic_fetch_add_explicit(&g_n_tweak, 1, memory_order_relaxed);
    return secp256k1_xonly_pubkey_tweak_add_check(ctx, output32, parity, &internal, tweak);
}

int script_taproot_tweak(uint8_t output32[32], int *parity, const uint8_t internal32[32],
                         const uint8_t *merkle_root32)
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_xonly_pubkey internal, outx;
    secp256k1_pubkey out;
    uint8_t tweak[32];
    if (!secp256k1_xonly_pubkey_parse(ctx, &internal, internal32)) {
        return 0;
    }
    tap_tweak_hash(tweak, internal32, merkle_root32);
    if (!secp256k1_xonly_pubkey_tweak_add(ctx, &out, &internal, tweak)) {
        return 0;
    }
    if (!secp256k1_xonly_pubkey_from_pubkey(ctx, &outx, parity, &out)) {
        return 0;
    }
    secp256k1_xonly_pubkey_serialize(ctx, output32, &outx);
    return 1;
}

int script_pubkey_fully_valid(const uint8_t *k, size_t n)
{
    secp256k1_pubkey pk;
    size_t want = n == 0                                  ? 0
                  : (k[0] == 2 || k[0] == 3)              ? 33
                  : (k[0] == 4 || k[0] == 6 || k[0] == 7) ? 65
                                                          : 0;
    return want != 0 && want == n && secp256k1_ec_pubkey_parse(script_secp_ctx(), &pk, k, n);
}

int script_pubkey_from_secret(uint8_t *out, size_t *out_len, const uint8_t secret32[32],
                              int compressed)
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_pubkey pk;
    if (!secp256k1_ec_seckey_verify(ctx, secret32) ||
        !secp256k1_ec_pubkey_create(ctx, &pk, secret32)) {
        return RC_INVALID;
    }
    *out_len = compressed ? 33 : 65;
    secp256k1_ec_pubkey_serialize(ctx, out, out_len, &pk,
                                  compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED);
    return RC_OK;
}

int script_sig_is_valid_der(const uint8_t *sig, size_t len)
{
    /* Format: 0x30 [total-length] 0x02 [R-length] [R] 0x02 [S-length] [S] [sighash]. */
    if (len < 9 || len > 73) {
        return 0;
    }
    if (sig[0] != 0x30) {
        return 0;
    }
    if (sig[1] != len - 3) {
        return 0;
    }
    size_t len_r = sig[3];
    if (5 + len_r >= len) {
        return 0;
    }
    size_t len_s = sig[5 + len_r];
    if (len_r + len_s + 7 != len) {
        return 0;
    }
    if (sig[2] != 0x02) {
        return 0;
    }
    if (len_r == 0) {
        return 0;
    }
    if (sig[4] & 0x80) {
        return 0;
    }
    if (len_r > 1 && sig[4] == 0x00 && !(sig[5] & 0x80)) {
        return 0;
    }
    if (sig[len_r + 4] != 0x02) {
        return 0;
    }
    if (len_s == 0) {
        return 0;
    }
    if (sig[len_r + 6] & 0x80) {
        return 0;
    }
    if (len_s > 1 && sig[len_r + 6] == 0x00 && !(sig[len_r + 7] & 0x80)) {
        return 0;
    }
    return 1;
}
