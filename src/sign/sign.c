/* Signing: see sign.h. The structure follows Core's script/sign.cpp step for step so that
 * the same inputs give the same scriptSigs, witnesses and "missing" reports. */
#include "sign/sign.h"

#include <stdio.h>
#include <string.h>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

#include "consensus/amount.h"
#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_error.h"
#include "script/sigcheck.h"
#include "script/solver.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* ---- small owned-bytes helpers ------------------------------------------------------- */

void sign_bytes_set(struct bytes *dst, const uint8_t *p, size_t n)
{
    free(dst->data);
    dst->data = n ? xmemdup(p, n) : NULL;
    dst->len = n;
}

static void stack_free(struct bytes *st, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(st[i].data);
    }
    free(st);
}

/* A growable list of byte strings (the solution being built, Core's vector<valtype>). */
struct vlist {
    struct bytes *v;
    size_t n, cap;
};

static void vl_push(struct vlist *l, const uint8_t *p, size_t n)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4;
        l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    l->v[l->n].data = n ? xmemdup(p, n) : NULL;
    l->v[l->n].len = n;
    l->n++;
}

static void vl_clear(struct vlist *l)
{
    stack_free(l->v, l->n);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* ---- provider ------------------------------------------------------------------------ */

void sign_provider_init(struct sign_provider *p)
{
    memset(p, 0, sizeof(*p));
}

void sign_provider_clear(struct sign_provider *p)
{
    for (size_t i = 0; i < p->n_keys; i++) {
        memset(p->keys[i].secret, 0, 32);
    }
    free(p->keys);
    stack_free(p->scripts, p->n_scripts);
    free(p->tr);
    memset(p, 0, sizeof(*p));
}

int sign_provider_add_key(struct sign_provider *p, const uint8_t key32[32], int compressed)
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_pubkey pk;
    if (!secp256k1_ec_seckey_verify(ctx, key32) || !secp256k1_ec_pubkey_create(ctx, &pk, key32)) {
        return RC_INVALID;
    }
    p->keys = xrealloc(p->keys, (p->n_keys + 1) * sizeof(*p->keys));
    struct sign_key *k = &p->keys[p->n_keys++];
    memcpy(k->secret, key32, 32);
    k->compressed = compressed ? 1 : 0;
    k->pubkey_len = compressed ? 33 : 65;
    secp256k1_ec_pubkey_serialize(ctx, k->pubkey, &k->pubkey_len, &pk,
                                  compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED);
    hash_hash160(k->keyid, k->pubkey, k->pubkey_len);
    memcpy(k->xonly, k->pubkey + 1, 32);
    return RC_OK;
}

void sign_provider_add_script(struct sign_provider *p, const uint8_t *script, size_t len)
{
    p->scripts = xrealloc(p->scripts, (p->n_scripts + 1) * sizeof(*p->scripts));
    p->scripts[p->n_scripts].data = len ? xmemdup(script, len) : NULL;
    p->scripts[p->n_scripts].len = len;
    p->n_scripts++;
}

int sign_provider_add_taproot(struct sign_provider *p, const uint8_t internal32[32],
                              const uint8_t *merkle_root32)
{
    struct sign_tr_spend t;
    int parity;
    memset(&t, 0, sizeof(t));
    if (!script_taproot_tweak(t.output, &parity, internal32, merkle_root32)) {
        return RC_INVALID;
    }
    memcpy(t.internal, internal32, 32);
    if (merkle_root32) {
        t.has_merkle_root = 1;
        memcpy(t.merkle_root, merkle_root32, 32);
    }
    p->tr = xrealloc(p->tr, (p->n_tr + 1) * sizeof(*p->tr));
    p->tr[p->n_tr++] = t;
    return RC_OK;
}

static const struct sign_key *find_key(const struct sign_provider *p, const uint8_t keyid[20])
{
    for (size_t i = 0; p && i < p->n_keys; i++) {
        if (memcmp(p->keys[i].keyid, keyid, 20) == 0) {
            return &p->keys[i];
        }
    }
    return NULL;
}

/* Core's GetKeyByXOnly: a key whose public key has this x coordinate (either parity). */
static const struct sign_key *find_key_xonly(const struct sign_provider *p, const uint8_t x[32])
{
    for (size_t i = 0; p && i < p->n_keys; i++) {
        if (memcmp(p->keys[i].xonly, x, 32) == 0) {
            return &p->keys[i];
        }
    }
    return NULL;
}

/* ---- sign data ----------------------------------------------------------------------- */

void sign_data_init(struct sign_data *d)
{
    memset(d, 0, sizeof(*d));
}

static void sigs_free(struct sign_sig *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].sig.data);
    }
    free(s);
}

void sign_data_clear(struct sign_data *d)
{
    free(d->script_sig.data);
    stack_free(d->stack, d->stack_count);
    free(d->redeem_script.data);
    free(d->witness_script.data);
    sigs_free(d->sigs, d->n_sigs);
    free(d->pubkeys);
    free(d->tap_key_sig.data);
    free(d->missing_pubkeys);
    free(d->missing_sigs);
    memset(d, 0, sizeof(*d));
}

static const struct sign_sig *find_sig(const struct sign_data *d, const uint8_t keyid[20])
{
    for (size_t i = 0; i < d->n_sigs; i++) {
        if (memcmp(d->sigs[i].keyid, keyid, 20) == 0) {
            return &d->sigs[i];
        }
    }
    return NULL;
}

void sign_data_add_sig(struct sign_data *d, const uint8_t *pubkey, size_t pubkey_len,
                       const uint8_t *sig, size_t sig_len)
{
    uint8_t id[20];
    if (pubkey_len > 65) {
        return;
    }
    hash_hash160(id, pubkey, pubkey_len);
    if (find_sig(d, id)) {
        return;
    }
    d->sigs = xrealloc(d->sigs, (d->n_sigs + 1) * sizeof(*d->sigs));
    struct sign_sig *s = &d->sigs[d->n_sigs++];
    memset(s, 0, sizeof(*s));
    memcpy(s->pubkey, pubkey, pubkey_len);
    s->pubkey_len = pubkey_len;
    memcpy(s->keyid, id, 20);
    sign_bytes_set(&s->sig, sig, sig_len);
}

void sign_data_add_pubkey(struct sign_data *d, const uint8_t *pubkey, size_t pubkey_len)
{
    uint8_t id[20];
    if (pubkey_len > 65) {
        return;
    }
    hash_hash160(id, pubkey, pubkey_len);
    for (size_t i = 0; i < d->n_pubkeys; i++) {
        if (memcmp(d->pubkeys[i].keyid, id, 20) == 0) {
            return;
        }
    }
    d->pubkeys = xrealloc(d->pubkeys, (d->n_pubkeys + 1) * sizeof(*d->pubkeys));
    struct sign_pubkey *k = &d->pubkeys[d->n_pubkeys++];
    memcpy(k->pubkey, pubkey, pubkey_len);
    k->pubkey_len = pubkey_len;
    memcpy(k->keyid, id, 20);
}

static void add_id(uint8_t (**list)[20], size_t *n, const uint8_t id[20])
{
    *list = xrealloc(*list, (*n + 1) * sizeof(**list));
    memcpy((*list)[*n], id, 20);
    (*n)++;
}

/* ---- primitives ---------------------------------------------------------------------- */

int sign_ecdsa(struct buf *out, const uint8_t key32[32], const uint8_t hash32[32])
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_ecdsa_signature sig;
    uint8_t compact[64], extra[32];
    uint32_t counter = 0;
    if (!secp256k1_ecdsa_sign(ctx, &sig, hash32, key32, secp256k1_nonce_function_rfc6979, NULL)) {
        return RC_INVALID;
    }
    /* Core grinds for a low R (a first byte below 0x80, so DER needs no padding byte): the
     * extra entropy is a little-endian counter in 32 bytes. */
    secp256k1_ecdsa_signature_serialize_compact(ctx, compact, &sig);
    while (compact[0] >= 0x80) {
        memset(extra, 0, sizeof(extra));
        counter++;
        wr_u32le(extra, counter);
        if (!secp256k1_ecdsa_sign(ctx, &sig, hash32, key32, secp256k1_nonce_function_rfc6979,
                                  extra)) {
            return RC_INVALID;
        }
        secp256k1_ecdsa_signature_serialize_compact(ctx, compact, &sig);
    }
    uint8_t der[72];
    size_t der_len = sizeof(der);
    secp256k1_ecdsa_signature_serialize_der(ctx, der, &der_len, &sig);
    buf_append(out, der, der_len);
    return RC_OK;
}

static void tap_tweak(uint8_t out32[32], const uint8_t x32[32], const uint8_t *merkle_root32)
{
    struct hash_sha256_ctx h;
    hash_tagged_init(&h, "TapTweak");
    hash_sha256_write(&h, x32, 32);
    if (merkle_root32) {
        hash_sha256_write(&h, merkle_root32, 32);
    }
    hash_sha256_final(&h, out32);
}

int sign_schnorr(uint8_t sig64[64], const uint8_t key32[32], int tweak,
                 const uint8_t *merkle_root32, const uint8_t hash32[32], const uint8_t *aux32)
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_keypair kp;
    secp256k1_xonly_pubkey xpk;
    uint8_t x[32], t[32], zero[32] = {0};
    int rc = RC_INVALID;
    if (!secp256k1_keypair_create(ctx, &kp, key32)) {
        goto out;
    }
    if (tweak) {
        if (!secp256k1_keypair_xonly_pub(ctx, &xpk, NULL, &kp) ||
            !secp256k1_xonly_pubkey_serialize(ctx, x, &xpk)) {
            goto out;
        }
        tap_tweak(t, x, merkle_root32);
        if (!secp256k1_keypair_xonly_tweak_add(ctx, &kp, t)) {
            goto out;
        }
    }
    if (!secp256k1_schnorrsig_sign32(ctx, sig64, hash32, &kp, aux32 ? aux32 : zero)) {
        goto out;
    }
    /* Core verifies what it made (a fault would otherwise leak the key). */
    if (!secp256k1_keypair_xonly_pub(ctx, &xpk, NULL, &kp) ||
        !secp256k1_xonly_pubkey_serialize(ctx, x, &xpk) ||
        !script_schnorr_verify(sig64, x, hash32)) {
        goto out;
    }
    rc = RC_OK;
out:
    memset(&kp, 0, sizeof(kp));
    return rc;
}

/* ---- the creator --------------------------------------------------------------------- */

/* Core's creator.CreateSig: an ECDSA signature by the key with this id over script_code. */
static int creator_sig(const struct sign_creator *c, const struct sign_provider *p, struct buf *out,
                       const uint8_t keyid[20], const uint8_t *script_code, size_t code_len,
                       enum sig_version sv)
{
    if (c->mode == SIGN_DUMMY) {
        /* A valid DER encoding of r = s = 1 padded to 32 bytes each, then SIGHASH_ALL. */
        uint8_t s[71];
        memset(s, 0, sizeof(s));
        s[0] = 0x30;
        s[1] = 68;
        s[2] = 0x02;
        s[3] = 32;
        s[4] = 0x01;
        s[36] = 0x02;
        s[37] = 32;
        s[38] = 0x01;
        s[70] = SIGHASH_ALL;
        buf_append(out, s, sizeof(s));
        return 1;
    }
    const struct sign_key *k = find_key(p, keyid);
    if (!k || !c->tx) {
        return 0;
    }
    if (sv == SIGVERSION_WITNESS_V0 && (!k->compressed || !amount_in_range(c->amount))) {
        return 0;
    }
    int ht = c->sighash_type == SIGHASH_DEFAULT ? SIGHASH_ALL : c->sighash_type;
    uint8_t h[32];
    if (sv == SIGVERSION_BASE) {
        sighash_legacy(h, script_code, code_len, c->tx, c->in_idx, ht);
    } else {
        const struct tx_precomputed *pd = c->txdata && c->txdata->bip143_ready ? c->txdata : NULL;
        sighash_witness_v0(h, script_code, code_len, c->tx, c->in_idx, ht, c->amount, pd);
    }
    if (sign_ecdsa(out, k->secret, h) != RC_OK) {
        return 0;
    }
    buf_put_u8(out, (uint8_t)ht);
    return 1;
}

/* Core's CreateSchnorrSig for the key path: tweak as BIP341 when merkle_root_given (root NULL
 * meaning a key-only tweak), else sign with the key as it is. */
static int creator_schnorr(const struct sign_creator *c, const struct sign_provider *p,
                           struct buf *out, const uint8_t x32[32], int tweak,
                           const uint8_t *merkle_root32)
{
    if (c->mode == SIGN_DUMMY) {
        buf_append_fill(out, 0, 64);
        return 1;
    }
    const struct sign_key *k = find_key_xonly(p, x32);
    if (!k || !c->tx || !c->txdata || !c->txdata->bip341_ready) {
        return 0;
    }
    struct script_execdata ed;
    memset(&ed, 0, sizeof(ed));
    ed.annex_init = 1;
    uint8_t h[32], sig[64];
    if (!sighash_taproot(h, c->tx, c->in_idx, (uint8_t)c->sighash_type, SIGVERSION_TAPROOT, &ed,
                         c->txdata, NULL)) {
        return 0;
    }
    if (sign_schnorr(sig, k->secret, tweak, merkle_root32, h, NULL) != RC_OK) {
        return 0;
    }
    buf_append(out, sig, 64);
    if (c->sighash_type) {
        buf_put_u8(out, (uint8_t)c->sighash_type);
    }
    return 1;
}

/* ---- SignStep ------------------------------------------------------------------------ */

/* Core's GetPubKey: from the signatures, the known public keys, then the provider. */
static int get_pubkey(const struct sign_provider *p, const struct sign_data *d,
                      const uint8_t keyid[20], const uint8_t **pk, size_t *pk_len)
{
    const struct sign_sig *s = find_sig(d, keyid);
    if (s) {
        *pk = s->pubkey;
        *pk_len = s->pubkey_len;
        return 1;
    }
    for (size_t i = 0; i < d->n_pubkeys; i++) {
        if (memcmp(d->pubkeys[i].keyid, keyid, 20) == 0) {
            *pk = d->pubkeys[i].pubkey;
            *pk_len = d->pubkeys[i].pubkey_len;
            return 1;
        }
    }
    const struct sign_key *k = find_key(p, keyid);
    if (k) {
        *pk = k->pubkey;
        *pk_len = k->pubkey_len;
        return 1;
    }
    return 0;
}

/* Core's GetCScript: a script whose HASH160 is h, from the provider or d's scripts. */
static int get_script(const struct sign_provider *p, const struct sign_data *d, const uint8_t h[20],
                      const uint8_t **s, size_t *n)
{
    uint8_t x[20];
    for (size_t i = 0; p && i < p->n_scripts; i++) {
        hash_hash160(x, p->scripts[i].data, p->scripts[i].len);
        if (memcmp(x, h, 20) == 0) {
            *s = p->scripts[i].data;
            *n = p->scripts[i].len;
            return 1;
        }
    }
    const struct bytes *cand[2] = {&d->redeem_script, &d->witness_script};
    for (int i = 0; i < 2; i++) {
        hash_hash160(x, cand[i]->data, cand[i]->len);
        if (memcmp(x, h, 20) == 0) {
            *s = cand[i]->data;
            *n = cand[i]->len;
            return 1;
        }
    }
    return 0;
}

/* Core's static CreateSig: an existing signature for the key, or a new one (remembered), or
 * the key id goes on the missing list. */
static int create_sig(const struct sign_creator *c, struct sign_data *d,
                      const struct sign_provider *p, struct buf *sig, const uint8_t *pk,
                      size_t pk_len, const uint8_t *code, size_t code_len, enum sig_version sv)
{
    uint8_t id[20];
    hash_hash160(id, pk, pk_len);
    buf_reset(sig);
    const struct sign_sig *s = find_sig(d, id);
    if (s) {
        buf_append(sig, s->sig.data, s->sig.len);
        return 1;
    }
    if (creator_sig(c, p, sig, id, code, code_len, sv)) {
        sign_data_add_sig(d, pk, pk_len, sig->data, sig->len);
        return 1;
    }
    add_id(&d->missing_sigs, &d->n_missing_sigs, id);
    return 0;
}

static int sign_taproot(const struct sign_provider *p, const struct sign_creator *c,
                        const uint8_t output[32], struct sign_data *d, struct vlist *ret)
{
    for (size_t i = 0; p && i < p->n_tr; i++) {
        if (memcmp(p->tr[i].output, output, 32) == 0) {
            d->has_internal_key = 1;
            memcpy(d->internal_key, p->tr[i].internal, 32);
            if (p->tr[i].has_merkle_root) {
                d->has_merkle_root = 1;
                memcpy(d->merkle_root, p->tr[i].merkle_root, 32);
            }
        }
    }
    struct buf sig;
    buf_init(&sig);
    if (d->tap_key_sig.len == 0) {
        /* The internal key, tweaked (Core passes its merkle root, null meaning key-only). */
        uint8_t zero[32] = {0};
        const uint8_t *internal = d->has_internal_key ? d->internal_key : zero;
        const uint8_t *root =
            d->has_merkle_root && memcmp(d->merkle_root, zero, 32) != 0 ? d->merkle_root : NULL;
        if (creator_schnorr(c, p, &sig, internal, 1, root)) {
            sign_bytes_set(&d->tap_key_sig, sig.data, sig.len);
        }
    }
    if (d->tap_key_sig.len == 0) {
        buf_reset(&sig);
        if (creator_schnorr(c, p, &sig, output, 0, NULL)) {
            sign_bytes_set(&d->tap_key_sig, sig.data, sig.len);
        }
    }
    buf_clear(&sig);
    if (d->tap_key_sig.len) {
        vl_push(ret, d->tap_key_sig.data, d->tap_key_sig.len);
        return 1;
    }
    return 0;
}

/* Core's SignStep: the solution of one script (for P2SH / P2WSH: the script to recurse
 * into). *type receives the script's template. */
static int sign_step(const struct sign_provider *p, const struct sign_creator *c,
                     const uint8_t *spk, size_t len, struct vlist *ret, enum script_type *type,
                     enum sig_version sv, struct sign_data *d)
{
    vl_clear(ret);
    struct buf sig;
    buf_init(&sig);
    int ok = 0;
    const uint8_t *s;
    size_t n;
    *type = script_solve(spk, len, NULL, NULL);
    switch (*type) {
    case SCRIPT_TYPE_NONSTANDARD:
    case SCRIPT_TYPE_NULL_DATA:
    case SCRIPT_TYPE_WITNESS_UNKNOWN:
        break;
    case SCRIPT_TYPE_PUBKEY:
        if (create_sig(c, d, p, &sig, spk + 1, len - 2, spk, len, sv)) {
            vl_push(ret, sig.data, sig.len);
            ok = 1;
        }
        break;
    case SCRIPT_TYPE_PUBKEYHASH: {
        const uint8_t *pk;
        size_t pk_len;
        if (!get_pubkey(p, d, spk + 3, &pk, &pk_len)) {
            add_id(&d->missing_pubkeys, &d->n_missing_pubkeys, spk + 3);
            break;
        }
        if (create_sig(c, d, p, &sig, pk, pk_len, spk, len, sv)) {
            vl_push(ret, sig.data, sig.len);
            vl_push(ret, pk, pk_len);
            ok = 1;
        }
        break;
    }
    case SCRIPT_TYPE_SCRIPTHASH:
        if (get_script(p, d, spk + 2, &s, &n)) {
            vl_push(ret, s, n);
            ok = 1;
        } else {
            d->has_missing_redeem = 1;
            memcpy(d->missing_redeem, spk + 2, 20);
        }
        break;
    case SCRIPT_TYPE_MULTISIG: {
        const uint8_t *keys[MAX_PUBKEYS_PER_MULTISIG];
        size_t key_lens[MAX_PUBKEYS_PER_MULTISIG];
        int m, count;
        script_multisig_keys(spk, len, &m, keys, key_lens, &count);
        vl_push(ret, NULL, 0); /* CHECKMULTISIG's extra pop */
        /* Every key is tried, so that all the signatures that can be made are recorded. */
        for (int i = 0; i < count; i++) {
            if (create_sig(c, d, p, &sig, keys[i], key_lens[i], spk, len, sv) &&
                ret->n < (size_t)m + 1) {
                vl_push(ret, sig.data, sig.len);
            }
        }
        ok = ret->n == (size_t)m + 1;
        while (ret->n < (size_t)m + 1) {
            vl_push(ret, NULL, 0);
        }
        break;
    }
    case SCRIPT_TYPE_WITNESS_V0_KEYHASH:
        vl_push(ret, spk + 2, 20);
        ok = 1;
        break;
    case SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH: {
        uint8_t h[20];
        hash_ripemd160(h, spk + 2, 32);
        if (get_script(p, d, h, &s, &n)) {
            vl_push(ret, s, n);
            ok = 1;
        } else {
            d->has_missing_witness = 1;
            memcpy(d->missing_witness, spk + 2, 32);
        }
        break;
    }
    case SCRIPT_TYPE_WITNESS_V1_TAPROOT:
        ok = sign_taproot(p, c, spk + 2, d, ret);
        break;
    case SCRIPT_TYPE_ANCHOR:
        ok = 1;
        break;
    }
    buf_clear(&sig);
    return ok;
}

/* Core's PushAll: a push-only script of the items, small numbers as their opcodes. */
static void push_all(struct buf *out, const struct vlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct bytes *v = &l->v[i];
        if (v->len == 0) {
            buf_put_u8(out, OP_0);
        } else if (v->len == 1 && v->data[0] >= 1 && v->data[0] <= 16) {
            buf_put_u8(out, script_encode_op_n(v->data[0]));
        } else if (v->len == 1 && v->data[0] == 0x81) {
            buf_put_u8(out, OP_1NEGATE);
        } else {
            script_push_data(out, v->data, v->len);
        }
    }
}

static void set_stack(struct sign_data *d, struct vlist *l)
{
    stack_free(d->stack, d->stack_count);
    d->stack = l->v;
    d->stack_count = l->n;
    l->v = NULL;
    l->n = l->cap = 0;
}

int sign_produce(const struct sign_provider *p, const struct sign_creator *c, const uint8_t *spk,
                 size_t spk_len, struct sign_data *d)
{
    if (d->complete) {
        return 1;
    }
    struct vlist result = {0};
    struct bytes subscript = {0};
    enum script_type type;
    int p2sh = 0;
    int solved = sign_step(p, c, spk, spk_len, &result, &type, SIGVERSION_BASE, d);
    if (solved && type == SCRIPT_TYPE_SCRIPTHASH) {
        sign_bytes_set(&subscript, result.v[0].data, result.v[0].len);
        sign_bytes_set(&d->redeem_script, subscript.data, subscript.len);
        solved =
            sign_step(p, c, subscript.data, subscript.len, &result, &type, SIGVERSION_BASE, d) &&
            type != SCRIPT_TYPE_SCRIPTHASH;
        p2sh = 1;
    }
    if (solved && type == SCRIPT_TYPE_WITNESS_V0_KEYHASH) {
        uint8_t code[25] = {OP_DUP, OP_HASH160, 20};
        memcpy(code + 3, result.v[0].data, 20);
        code[23] = OP_EQUALVERIFY;
        code[24] = OP_CHECKSIG;
        enum script_type sub;
        solved = sign_step(p, c, code, sizeof(code), &result, &sub, SIGVERSION_WITNESS_V0, d);
        set_stack(d, &result);
        d->witness = 1;
    } else if (solved && type == SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH) {
        struct bytes ws = {0};
        sign_bytes_set(&ws, result.v[0].data, result.v[0].len);
        sign_bytes_set(&d->witness_script, ws.data, ws.len);
        enum script_type sub = SCRIPT_TYPE_NONSTANDARD;
        solved = sign_step(p, c, ws.data, ws.len, &result, &sub, SIGVERSION_WITNESS_V0, d) &&
                 sub != SCRIPT_TYPE_SCRIPTHASH && sub != SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH &&
                 sub != SCRIPT_TYPE_WITNESS_V0_KEYHASH;
        vl_push(&result, ws.data, ws.len);
        free(ws.data);
        set_stack(d, &result);
        d->witness = 1;
    } else if (type == SCRIPT_TYPE_WITNESS_V1_TAPROOT && !p2sh) {
        d->witness = 1;
        if (solved) {
            set_stack(d, &result);
        }
        vl_clear(&result);
    } else if (solved && type == SCRIPT_TYPE_WITNESS_UNKNOWN) {
        d->witness = 1;
    }
    if (!d->witness) {
        stack_free(d->stack, d->stack_count);
        d->stack = NULL;
        d->stack_count = 0;
    }
    if (p2sh) {
        vl_push(&result, subscript.data, subscript.len);
    }
    struct buf ss;
    buf_init(&ss);
    push_all(&ss, &result);
    sign_bytes_set(&d->script_sig, ss.data, ss.len);
    buf_clear(&ss);
    vl_clear(&result);
    free(subscript.data);

    if (solved && c->mode == SIGN_DUMMY) {
        /* Core verifies with a checker that accepts any non-empty signature; a solution of
         * these templates always passes it. */
        d->complete = 1;
    } else if (solved) {
        struct script_checker chk = {
            .tx = c->tx, .in_idx = c->in_idx, .amount = c->amount, .txdata = c->txdata};
        enum script_error err;
        d->complete = script_verify(d->script_sig.data, d->script_sig.len, spk, spk_len, d->stack,
                                    d->stack_count, SCRIPT_FLAGS_STANDARD, &chk, &err);
    } else {
        d->complete = 0;
    }
    return d->complete;
}

/* ---- DataFromTransaction ------------------------------------------------------------- */

/* The pushes of a scriptSig, as Core's EvalScript leaves them for a push-only script (a
 * scriptSig with other opcodes gives an empty stack here; Core would run it). */
static void push_stack(struct vlist *out, const uint8_t *s, size_t n)
{
    size_t pc = 0;
    uint8_t op;
    const uint8_t *data;
    size_t dlen;
    while (pc < n) {
        if (!script_get_op(s, n, &pc, &op, &data, &dlen) || op > OP_16) {
            vl_clear(out);
            return;
        }
        if (op <= OP_PUSHDATA4) {
            vl_push(out, data, dlen);
        } else if (op == OP_1NEGATE) {
            uint8_t v = 0x81;
            vl_push(out, &v, 1);
        } else if (op >= OP_1) {
            uint8_t v = (uint8_t)script_decode_op_n(op);
            vl_push(out, &v, 1);
        } else {
            vl_push(out, NULL, 0);
        }
    }
}

/* TransactionSignatureChecker::CheckECDSASignature as the extractor calls it. */
static int check_ecdsa(const struct tx *tx, size_t in_idx, int64_t amount, const uint8_t *sig,
                       size_t sig_len, const uint8_t *pk, size_t pk_len, const uint8_t *code,
                       size_t code_len, enum sig_version sv)
{
    if (sig_len == 0) {
        return 0;
    }
    int ht = sig[sig_len - 1];
    uint8_t h[32];
    if (sv == SIGVERSION_BASE) {
        sighash_legacy(h, code, code_len, tx, in_idx, ht);
    } else {
        sighash_witness_v0(h, code, code_len, tx, in_idx, ht, amount, NULL);
    }
    return script_ecdsa_verify(sig, sig_len - 1, pk, pk_len, h);
}

void sign_data_from_tx(struct sign_data *d, const struct tx *tx, size_t in_idx,
                       const struct tx_out *spent)
{
    const struct tx_in *in = &tx->vin[in_idx];
    sign_bytes_set(&d->script_sig, in->script_sig.data, in->script_sig.len);
    stack_free(d->stack, d->stack_count);
    d->stack = NULL;
    d->stack_count = in->witness_count;
    if (in->witness_count) {
        d->stack = xcalloc(in->witness_count, sizeof(*d->stack));
        for (size_t i = 0; i < in->witness_count; i++) {
            sign_bytes_set(&d->stack[i], in->witness[i].data, in->witness[i].len);
        }
    }
    struct script_checker chk = {.tx = tx, .in_idx = in_idx, .amount = spent->value_sat};
    enum script_error err;
    if (script_verify(in->script_sig.data, in->script_sig.len, spent->script_pubkey.data,
                      spent->script_pubkey.len, in->witness, in->witness_count,
                      SCRIPT_FLAGS_STANDARD, &chk, &err)) {
        d->complete = 1;
        return;
    }
    struct vlist st = {0}, wit = {0};
    push_stack(&st, in->script_sig.data, in->script_sig.len);
    for (size_t i = 0; i < in->witness_count; i++) {
        vl_push(&wit, in->witness[i].data, in->witness[i].len);
    }
    const uint8_t *next = spent->script_pubkey.data;
    size_t next_len = spent->script_pubkey.len;
    enum sig_version sv = SIGVERSION_BASE;
    enum script_type type = script_solve(next, next_len, NULL, NULL);
    if (type == SCRIPT_TYPE_SCRIPTHASH && st.n && st.v[st.n - 1].len) {
        sign_bytes_set(&d->redeem_script, st.v[st.n - 1].data, st.v[st.n - 1].len);
        next = d->redeem_script.data;
        next_len = d->redeem_script.len;
        type = script_solve(next, next_len, NULL, NULL);
        free(st.v[--st.n].data);
    }
    if (type == SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH && wit.n && wit.v[wit.n - 1].len) {
        sign_bytes_set(&d->witness_script, wit.v[wit.n - 1].data, wit.v[wit.n - 1].len);
        next = d->witness_script.data;
        next_len = d->witness_script.len;
        type = script_solve(next, next_len, NULL, NULL);
        free(wit.v[--wit.n].data);
        vl_clear(&st);
        st = wit;
        memset(&wit, 0, sizeof(wit));
        sv = SIGVERSION_WITNESS_V0;
    }
    if (type == SCRIPT_TYPE_MULTISIG && st.n) {
        const uint8_t *keys[MAX_PUBKEYS_PER_MULTISIG];
        size_t key_lens[MAX_PUBKEYS_PER_MULTISIG];
        int m, count;
        script_multisig_keys(next, next_len, &m, keys, key_lens, &count);
        int last = 0;
        for (size_t j = 0; j < st.n; j++) {
            for (int i = last; i < count; i++) {
                uint8_t id[20];
                hash_hash160(id, keys[i], key_lens[i]);
                int have = find_sig(d, id) != NULL;
                if (!have && check_ecdsa(tx, in_idx, spent->value_sat, st.v[j].data, st.v[j].len,
                                         keys[i], key_lens[i], next, next_len, sv)) {
                    sign_data_add_sig(d, keys[i], key_lens[i], st.v[j].data, st.v[j].len);
                    have = 1;
                }
                if (have) {
                    last = i + 1;
                    break;
                }
            }
        }
    }
    vl_clear(&st);
    vl_clear(&wit);
}

void sign_data_merge(struct sign_data *dst, const struct sign_data *src)
{
    if (dst->complete) {
        return;
    }
    if (src->complete) {
        sign_data_clear(dst);
        dst->complete = 1;
        sign_bytes_set(&dst->script_sig, src->script_sig.data, src->script_sig.len);
        dst->stack_count = src->stack_count;
        dst->stack = src->stack_count ? xcalloc(src->stack_count, sizeof(*dst->stack)) : NULL;
        for (size_t i = 0; i < src->stack_count; i++) {
            sign_bytes_set(&dst->stack[i], src->stack[i].data, src->stack[i].len);
        }
        return;
    }
    if (!dst->redeem_script.len && src->redeem_script.len) {
        sign_bytes_set(&dst->redeem_script, src->redeem_script.data, src->redeem_script.len);
    }
    if (!dst->witness_script.len && src->witness_script.len) {
        sign_bytes_set(&dst->witness_script, src->witness_script.data, src->witness_script.len);
    }
    for (size_t i = 0; i < src->n_sigs; i++) {
        sign_data_add_sig(dst, src->sigs[i].pubkey, src->sigs[i].pubkey_len, src->sigs[i].sig.data,
                          src->sigs[i].sig.len);
    }
}

void sign_data_update_input(struct tx_in *in, const struct sign_data *d)
{
    sign_bytes_set(&in->script_sig, d->script_sig.data, d->script_sig.len);
    stack_free(in->witness, in->witness_count);
    in->witness = NULL;
    in->witness_count = d->stack_count;
    if (d->stack_count) {
        in->witness = xcalloc(d->stack_count, sizeof(*in->witness));
        for (size_t i = 0; i < d->stack_count; i++) {
            sign_bytes_set(&in->witness[i], d->stack[i].data, d->stack[i].len);
        }
    }
}

/* ---- SignTransaction ----------------------------------------------------------------- */

static void add_err(struct sign_tx_error **errs, size_t *n, size_t in_idx, const char *msg)
{
    *errs = xrealloc(*errs, (*n + 1) * sizeof(**errs));
    (*errs)[*n].in_idx = in_idx;
    snprintf((*errs)[*n].msg, sizeof((*errs)[*n].msg), "%s", msg);
    (*n)++;
}

int sign_tx(struct tx *tx, const struct sign_provider *p, const struct tx_out *const *spent,
            int sighash_type, struct sign_tx_error **errs, size_t *n_errs)
{
    *errs = NULL;
    *n_errs = 0;
    int hash_single = (sighash_type & ~SIGHASH_ANYONECANPAY) == SIGHASH_SINGLE;
    struct tx txc; /* the constant parts Core hashes and checks against */
    tx_copy(&txc, tx);
    tx_compute_hashes(&txc);
    struct tx_out *outs = xcalloc(tx->vin_count ? tx->vin_count : 1, sizeof(*outs));
    int all = 1;
    for (size_t i = 0; i < tx->vin_count; i++) {
        if (!spent[i]) {
            all = 0;
            break;
        }
        outs[i] = *spent[i];
    }
    struct tx_precomputed pd;
    sighash_precompute(&pd, &txc, all ? outs : NULL, all ? tx->vin_count : 0);
    for (size_t i = 0; i < tx->vin_count; i++) {
        if (!spent[i]) {
            add_err(errs, n_errs, i, "Input not found or already spent");
            continue;
        }
        struct sign_data d;
        sign_data_init(&d);
        sign_data_from_tx(&d, tx, i, spent[i]);
        if (!hash_single || i < tx->vout_count) {
            struct sign_creator c = {.mode = SIGN_REAL,
                                     .tx = &txc,
                                     .in_idx = i,
                                     .amount = spent[i]->value_sat,
                                     .txdata = &pd,
                                     .sighash_type = sighash_type};
            sign_produce(p, &c, spent[i]->script_pubkey.data, spent[i]->script_pubkey.len, &d);
        }
        sign_data_update_input(&tx->vin[i], &d);
        if (spent[i]->value_sat == MAX_MONEY && tx->vin[i].witness_count) {
            add_err(errs, n_errs, i, "Missing amount");
            sign_data_clear(&d);
            continue;
        }
        enum script_error err = SCRIPT_ERR_OK;
        struct script_checker chk = {
            .tx = &txc, .in_idx = i, .amount = spent[i]->value_sat, .txdata = &pd};
        if (!d.complete && !script_verify(tx->vin[i].script_sig.data, tx->vin[i].script_sig.len,
                                          spent[i]->script_pubkey.data, spent[i]->script_pubkey.len,
                                          tx->vin[i].witness, tx->vin[i].witness_count,
                                          SCRIPT_FLAGS_STANDARD, &chk, &err)) {
            if (err == SCRIPT_ERR_INVALID_STACK_OPERATION) {
                add_err(errs, n_errs, i,
                        "Unable to sign input, invalid stack size (possibly missing key)");
            } else if (err == SCRIPT_ERR_SIG_NULLFAIL) {
                add_err(errs, n_errs, i,
                        "CHECK(MULTI)SIG failing with non-zero signature (possibly need more "
                        "signatures)");
            } else {
                add_err(errs, n_errs, i, script_error_string(err));
            }
        }
        sign_data_clear(&d);
    }
    free(outs);
    tx_clear(&txc);
    tx_compute_hashes(tx);
    return *n_errs == 0;
}
