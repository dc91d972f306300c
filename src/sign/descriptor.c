/* Output descriptors (BIP380-386) as Bitcoin Core infers them from a script, with their
 * checksum. See descriptor.h. */
#include "sign/descriptor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>

#include "consensus/address.h"
#include "crypto/hash.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "script/solver.h"
#include "sign/miniscript.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"

static void put_str(struct buf *out, const char *s)
{
    buf_append(out, s, strlen(s));
}

/* ---- descriptor checksum (BIP380, Core's DescriptorChecksum) ---------------------- */

static const char DESC_INPUT_CHARSET[] = "0123456789()[],'/*abcdefgh@:$%{}"
                                         "IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
                                         "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
static const char DESC_CHECKSUM_CHARSET[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint64_t desc_polymod(uint64_t c, unsigned val)
{
    uint8_t c0 = (uint8_t)(c >> 35);
    c = ((c & 0x7ffffffffULL) << 5) ^ val;
    if (c0 & 1) {
        c ^= 0xf5dee51989ULL;
    }
    if (c0 & 2) {
        c ^= 0xa9fdca3312ULL;
    }
    if (c0 & 4) {
        c ^= 0x1bab10e32dULL;
    }
    if (c0 & 8) {
        c ^= 0x3706b1677aULL;
    }
    if (c0 & 16) {
        c ^= 0x644d626ffdULL;
    }
    return c;
}

int script_descriptor_checksum(char out[SCRIPT_DESC_CHECKSUM_SIZE], const char *desc, size_t len)
{
    uint64_t c = 1;
    unsigned cls = 0, clscount = 0;
    for (size_t i = 0; i < len; i++) {
        const char *pos = desc[i] ? strchr(DESC_INPUT_CHARSET, desc[i]) : NULL;
        if (!pos) {
            return RC_INVALID;
        }
        unsigned v = (unsigned)(pos - DESC_INPUT_CHARSET);
        /* Every character gives a symbol for its position inside its group of 32; every
         * three characters give one more symbol for their three group numbers. */
        c = desc_polymod(c, v & 31);
        cls = cls * 3 + (v >> 5);
        if (++clscount == 3) {
            c = desc_polymod(c, cls);
            cls = 0;
            clscount = 0;
        }
    }
    if (clscount > 0) {
        c = desc_polymod(c, cls);
    }
    for (int j = 0; j < 8; j++) {
        c = desc_polymod(c, 0);
    }
    c ^= 1;
    for (int j = 0; j < 8; j++) {
        out[j] = DESC_CHECKSUM_CHARSET[(c >> (5 * (7 - j))) & 31];
    }
    out[8] = 0;
    return RC_OK;
}

/* ---- descriptor inference (Core's InferScript with an empty or one-script provider) --- */

/* CPubKey::IsValidNonHybrid for a key whose length the solver already checked. */
static int pubkey_non_hybrid(const uint8_t *k, size_t n)
{
    return n > 0 && (k[0] == 2 || k[0] == 3 || k[0] == 4);
}

/* XOnlyPubKey::IsFullyValid: the 32 bytes are the x coordinate of a curve point. */
static int xonly_fully_valid(const uint8_t x32[32])
{
    secp256k1_xonly_pubkey pk;
    return secp256k1_xonly_pubkey_parse(script_secp_ctx(), &pk, x32) == 1;
}

enum desc_ctx { CTX_TOP, CTX_P2SH, CTX_P2WSH };

/* What the inference may know: decodescript's one witness script, or an expansion's
 * provider. */
struct infer_in {
    const uint8_t *inner;
    size_t inner_len;
    const struct script_desc_provider *prov;
};

void script_desc_provider_init(struct script_desc_provider *p)
{
    memset(p, 0, sizeof(*p));
}

void script_desc_provider_clear(struct script_desc_provider *p)
{
    for (size_t i = 0; i < p->n_keys; i++) {
        free(p->keys[i].path);
    }
    for (size_t i = 0; i < p->n_scripts; i++) {
        buf_clear(&p->scripts[i]);
    }
    free(p->keys);
    free(p->scripts);
    free(p->tr_outputs);
    free(p->tr_keys);
    memset(p, 0, sizeof(*p));
}

/* The known key pub (33 or 65 bytes; xonly: 32 bytes matched against either parity). */
static const struct script_desc_known_key *known_key(const struct infer_in *in, const uint8_t *k,
                                                     size_t n, int xonly)
{
    for (size_t i = 0; in->prov && i < in->prov->n_keys; i++) {
        const struct script_desc_known_key *kk = &in->prov->keys[i];
        if (xonly ? kk->pub_len == 33 && memcmp(kk->pub + 1, k, 32) == 0
                  : kk->pub_len == n && memcmp(kk->pub, k, n) == 0) {
            return kk;
        }
    }
    return NULL;
}

/* The known key whose HASH160 is h20, or NULL (FlatSigningProvider::GetPubKey). */
static const struct script_desc_known_key *known_key_by_id(const struct infer_in *in,
                                                           const uint8_t h20[20])
{
    for (size_t i = 0; in->prov && i < in->prov->n_keys; i++) {
        uint8_t id[20];
        hash_hash160(id, in->prov->keys[i].pub, in->prov->keys[i].pub_len);
        if (memcmp(id, h20, 20) == 0) {
            return &in->prov->keys[i];
        }
    }
    return NULL;
}

/* The known script whose HASH160 (P2SH) or SHA256 (P2WSH) is h, or NULL. */
static const struct buf *known_script(const struct infer_in *in, const uint8_t *h, int sha)
{
    for (size_t i = 0; in->prov && i < in->prov->n_scripts; i++) {
        const struct buf *b = &in->prov->scripts[i];
        uint8_t d[32];
        if (sha) {
            hash_sha256(d, b->data, b->len);
        } else {
            hash_hash160(d, b->data, b->len);
        }
        if (memcmp(d, h, sha ? 32 : 20) == 0) {
            return b;
        }
    }
    return NULL;
}

/* Core's InferPubkey / InferXOnlyPubkey written out: "[origin]" when known, then the hex. */
static void put_infer_key(struct buf *out, const struct infer_in *in, const uint8_t *k, size_t n,
                          int xonly)
{
    const struct script_desc_known_key *kk = known_key(in, k, n, xonly);
    if (kk) {
        char num[16];
        buf_put_u8(out, '[');
        hex_append(out, kk->fpr, 4);
        for (size_t i = 0; i < kk->path_len; i++) {
            snprintf(num, sizeof(num), "/%u%s", kk->path[i] & 0x7fffffffu,
                     (kk->path[i] & 0x80000000u) ? "h" : "");
            put_str(out, num);
        }
        buf_put_u8(out, ']');
    }
    hex_append(out, k, n);
}

static int infer_script(struct buf *out, const uint8_t *s, size_t len, enum desc_ctx ctx,
                        const struct infer_in *in, const struct chain_params *p);

/* Core's KeyParser over the provider: pk_h()'s key from its hash, keys with their origins. */
static int ms_from_hash(void *arg, const uint8_t h20[20], uint8_t key33[33])
{
    const struct script_desc_known_key *kk = known_key_by_id(arg, h20);
    if (!kk || kk->pub_len != 33 || !pubkey_non_hybrid(kk->pub, kk->pub_len)) {
        return -1;
    }
    memcpy(key33, kk->pub, 33);
    return 0;
}

static void ms_put_key(void *arg, struct buf *out, const uint8_t key33[33])
{
    put_infer_key(out, arg, key33, 33, 0);
}

/* Core's miniscript inference in a P2WSH script: 1 written (a sane miniscript), 0 not. */
static int infer_miniscript(struct buf *out, const uint8_t *s, size_t len,
                            const struct infer_in *in)
{
    struct miniscript_keys keys = {.from_hash = ms_from_hash, .put_key = ms_put_key,
                                   .arg = (void *)in};
    struct miniscript *m = NULL;
    int ok = miniscript_from_script(&m, s, len, &keys) == 0 && miniscript_is_sane(m);
    if (ok) {
        miniscript_to_string(m, out, &keys);
    }
    miniscript_free(m);
    return ok;
}

/* sh() / wsh() of a known script: 1 written, 0 not (out unchanged). */
static int infer_wrapped(struct buf *out, const char *fn, const struct buf *sub, enum desc_ctx ctx,
                         const struct infer_in *in, const struct chain_params *p)
{
    size_t mark = out->len;
    put_str(out, fn);
    if (infer_script(out, sub->data, sub->len, ctx, in, p)) {
        put_str(out, ")");
        return 1;
    }
    out->len = mark;
    return 0;
}

/* pk(), pkh(), wpkh() and multi(): 1 written, 0 not. */
static int infer_keyed(struct buf *out, enum script_type t, const uint8_t *s, size_t len,
                       enum desc_ctx ctx, const struct infer_in *in)
{
    if (t == SCRIPT_TYPE_PUBKEY) {
        const uint8_t *k = s + 1;
        size_t kl = (size_t)s[0];
        if (pubkey_non_hybrid(k, kl) && (ctx != CTX_P2WSH || script_pubkey_is_compressed(k, kl))) {
            put_str(out, "pk(");
            put_infer_key(out, in, k, kl, 0);
            put_str(out, ")");
            return 1;
        }
    }
    if (t == SCRIPT_TYPE_PUBKEYHASH || (t == SCRIPT_TYPE_WITNESS_V0_KEYHASH && ctx != CTX_P2WSH)) {
        const struct script_desc_known_key *kk =
            known_key_by_id(in, t == SCRIPT_TYPE_PUBKEYHASH ? s + 3 : s + 2);
        int wit = t == SCRIPT_TYPE_WITNESS_V0_KEYHASH;
        if (kk && pubkey_non_hybrid(kk->pub, kk->pub_len) &&
            ((ctx == CTX_TOP || ctx == CTX_P2SH) && !wit ? 1 : kk->pub_len == 33)) {
            put_str(out, wit ? "wpkh(" : "pkh(");
            put_infer_key(out, in, kk->pub, kk->pub_len, 0);
            put_str(out, ")");
            return 1;
        }
    }
    if (t == SCRIPT_TYPE_MULTISIG) {
        const uint8_t *keys[MAX_PUBKEYS_PER_MULTISIG];
        size_t key_lens[MAX_PUBKEYS_PER_MULTISIG];
        int m, n, ok = 1;
        script_multisig_keys(s, len, &m, keys, key_lens, &n);
        for (int i = 0; i < n; i++) {
            if (!pubkey_non_hybrid(keys[i], key_lens[i]) ||
                (ctx == CTX_P2WSH && !script_pubkey_is_compressed(keys[i], key_lens[i]))) {
                ok = 0;
            }
        }
        if (ok) {
            char num[16];
            snprintf(num, sizeof(num), "%d", m);
            put_str(out, "multi(");
            put_str(out, num);
            for (int i = 0; i < n; i++) {
                buf_put_u8(out, ',');
                put_infer_key(out, in, keys[i], key_lens[i], 0);
            }
            put_str(out, ")");
            return 1;
        }
    }
    return 0;
}

/* Appends the inferred descriptor (no checksum) of s in context ctx to out (Core's
 * InferScript). Returns 0 if nothing can be inferred (only below the top level), else 1. */
static int infer_script(struct buf *out, const uint8_t *s, size_t len, enum desc_ctx ctx,
                        const struct infer_in *in, const struct chain_params *p)
{
    enum script_type t = script_solve(s, len, NULL, NULL);
    if (infer_keyed(out, t, s, len, ctx, in)) {
        return 1;
    }
    if (t == SCRIPT_TYPE_SCRIPTHASH && ctx == CTX_TOP) {
        const struct buf *sub = known_script(in, s + 2, 0);
        if (sub && infer_wrapped(out, "sh(", sub, CTX_P2SH, in, p)) {
            return 1;
        }
    }
    if (t == SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH && ctx != CTX_P2WSH) {
        struct buf one = {0};
        const struct buf *sub = known_script(in, s + 2, 1);
        uint8_t h[32];
        if (!sub && in->inner && ctx == CTX_TOP) {
            hash_sha256(h, in->inner, in->inner_len);
            if (memcmp(h, s + 2, 32) == 0) {
                one.data = (uint8_t *)in->inner;
                one.len = in->inner_len;
                sub = &one;
            }
        }
        if (sub && infer_wrapped(out, "wsh(", sub, CTX_P2WSH, in, p)) {
            return 1;
        }
    }
    if (t == SCRIPT_TYPE_WITNESS_V1_TAPROOT && ctx == CTX_TOP) {
        for (size_t i = 0; in->prov && i < in->prov->n_tr; i++) {
            if (memcmp(in->prov->tr_outputs[i], s + 2, 32) == 0) {
                const struct script_desc_known_key *kk = &in->prov->keys[in->prov->tr_keys[i]];
                put_str(out, "tr(");
                put_infer_key(out, in, kk->pub + 1, 32, 1);
                put_str(out, ")");
                return 1;
            }
        }
        if (xonly_fully_valid(s + 2)) {
            put_str(out, "rawtr(");
            hex_append(out, s + 2, 32);
            put_str(out, ")");
            return 1;
        }
    }
    if (ctx == CTX_P2WSH && infer_miniscript(out, s, len, in)) {
        return 1;
    }
    if (ctx != CTX_TOP) {
        return 0;
    }
    char addr[ADDRESS_MAX_LEN];
    if (address_from_script(addr, sizeof(addr), s, len, p) == RC_OK) {
        put_str(out, "addr(");
        put_str(out, addr);
        put_str(out, ")");
        return 1;
    }
    put_str(out, "raw(");
    hex_append(out, s, len);
    put_str(out, ")");
    return 1;
}

static void infer_top(struct buf *out, const uint8_t *s, size_t len, const struct infer_in *in,
                      const struct chain_params *p)
{
    size_t start = out->len;
    infer_script(out, s, len, CTX_TOP, in, p);
    /* Everything inferred is hex, digits, addresses and function names: always inside the
     * descriptor character set. */
    char cs[SCRIPT_DESC_CHECKSUM_SIZE];
    CHECK_ALWAYS(script_descriptor_checksum(cs, (const char *)out->data + start, out->len - start) ==
                 RC_OK);
    buf_put_u8(out, '#');
    put_str(out, cs);
    buf_put_u8(out, 0);
    out->len--;
}

void script_descriptor_infer_with(struct buf *out, const uint8_t *s, size_t len,
                                  const struct script_desc_provider *prov,
                                  const struct chain_params *p)
{
    struct infer_in in = {.prov = prov};
    infer_top(out, s, len, &in, p);
}

void script_descriptor_infer(struct buf *out, const uint8_t *s, size_t len, const uint8_t *inner,
                             size_t inner_len, const struct chain_params *p)
{
    struct infer_in in = {.inner = inner, .inner_len = inner_len};
    infer_top(out, s, len, &in, p);
}
