/* Tests of src/sign/sign.c and src/sign/psbt.c: Core's PSBT vectors (valid, invalid with
 * and without messages, creator, signer, combiner, finalizer, extractor: psbt_vectors.h),
 * round trips, signing of every supported script type checked by the interpreter
 * (script_verify_tx), partial signing and merging, the BIP341 key-path signing vectors from
 * ../shared/vectors/bip341_wallet_vectors.json, base64, and the analyzer. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "consensus/address.h"
#include "consensus/params.h"
#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "script/block_verify.h"
#include "sign/psbt.h"
#include "script/script.h"
#include "script/script_error.h"
#include "script/sigcheck.h"
#include "sign/sign.h"
#include "test.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#include "psbt_vectors.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char *reserialize(const char *b64, char *err, size_t err_len)
{
    struct psbt p;
    if (psbt_parse_base64(&p, b64, err, err_len) != RC_OK) {
        return NULL;
    }
    char *s = psbt_to_base64(&p);
    psbt_clear(&p);
    return s;
}

static void test_vectors_valid(void)
{
    char err[256];
    for (size_t i = 0; i < N(psbt_valid); i++) {
        char *once = reserialize(psbt_valid[i], err, sizeof(err));
        if (!once) {
            printf("# valid vector %zu rejected: %s\n", i, err);
            CHECK(0);
            continue;
        }
        /* The canonical form is a fixed point. */
        char *twice = reserialize(once, err, sizeof(err));
        CHECK(twice != NULL);
        if (twice) {
            CHECK_EQ_STR(once, twice);
        }
        free(once);
        free(twice);
    }
}

static void test_vectors_invalid(void)
{
    char err[256];
    for (size_t i = 0; i < N(psbt_invalid); i++) {
        struct psbt p;
        int rc = psbt_parse_base64(&p, psbt_invalid[i], err, sizeof(err));
        if (rc == RC_OK) {
            printf("# invalid vector %zu accepted\n", i);
            psbt_clear(&p);
        }
        CHECK(rc != RC_OK);
        CHECK(err[0] != 0);
    }
    for (size_t i = 0; i < N(psbt_invalid_with_msg); i++) {
        struct psbt p;
        int rc = psbt_parse_base64(&p, psbt_invalid_with_msg[i].psbt, err, sizeof(err));
        CHECK(rc != RC_OK);
        if (rc == RC_OK) {
            psbt_clear(&p);
        } else if (!strstr(err, psbt_invalid_with_msg[i].msg)) {
            printf("# case %zu: \"%s\" does not contain \"%s\"\n", i, err,
                   psbt_invalid_with_msg[i].msg);
            CHECK(0);
        }
    }
}

static void test_messages(void)
{
    char err[256];
    struct psbt p;
    CHECK(psbt_parse_base64(&p, ";definitely not base64;", err, sizeof(err)) != RC_OK);
    CHECK_EQ_STR(err, "invalid base64");
    CHECK(psbt_parse_base64(&p, "cHNidA==", err, sizeof(err)) != RC_OK);
    CHECK_EQ_STR(err, "SpanReader::read(): end of data: iostream error");
    CHECK(psbt_parse_base64(&p, "cHNidP4A", err, sizeof(err)) != RC_OK);
    CHECK_EQ_STR(err, "Invalid PSBT magic bytes: iostream error");
    /* No bytes at all, as an empty buffer holds them (NULL): refused, nothing undefined
     * (the psbt fuzz target found NULL + 0 in the reader under UBSan). */
    CHECK(psbt_parse(&p, NULL, 0, err, sizeof(err)) != RC_OK);
    CHECK_EQ_STR(err, "SpanReader::read(): end of data: iostream error");
    CHECK(psbt_parse_base64(&p, "", err, sizeof(err)) != RC_OK);
    CHECK_EQ_STR(err, "SpanReader::read(): end of data: iostream error");
    /* Trailing bytes after a valid PSBT. */
    struct buf raw;
    buf_init(&raw);
    CHECK(base64_decode(&raw, psbt_creator_result) == RC_OK);
    buf_put_u8(&raw, 0);
    CHECK(psbt_parse(&p, raw.data, raw.len, err, sizeof(err)) != RC_OK);
    CHECK_EQ_STR(err, "extra data after PSBT");
    buf_clear(&raw);
}

static void test_creator(void)
{
    const struct chain_params *cp = chain_params_get("regtest");
    struct tx tx;
    tx_init(&tx);
    tx.version = 2;
    tx.vin_count = 2;
    tx.vin = xcalloc(2, sizeof(*tx.vin));
    CHECK(hex_decode_hash32_rev(
              tx.vin[0].prevout.txid,
              "75ddabb27b8845f5247975c8a5ba7c6f336c4570708ebe230caf6db5217ae858") == RC_OK);
    CHECK(hex_decode_hash32_rev(
              tx.vin[1].prevout.txid,
              "1dea7cd05979072a3578cab271c02244ea8a090bbb46aa680a65ecd027048d83") == RC_OK);
    tx.vin[1].prevout.n = 1;
    tx.vin[0].sequence = tx.vin[1].sequence = SEQUENCE_FINAL;
    tx.vout_count = 2;
    tx.vout = xcalloc(2, sizeof(*tx.vout));
    const char *addr[2] = {"bcrt1qmpwzkuwsqc9snjvgdt4czhjsnywa5yjdqpxskv",
                           "bcrt1qqzh2ngh97ru8dfvgma25d6r595wcwqy0cee4cc"};
    int64_t val[2] = {149990000, 100000000};
    for (int i = 0; i < 2; i++) {
        struct buf spk;
        buf_init(&spk);
        CHECK(address_to_script(&spk, addr[i], cp) == RC_OK);
        tx.vout[i].value_sat = val[i];
        tx.vout[i].script_pubkey.data = spk.data;
        tx.vout[i].script_pubkey.len = spk.len;
    }
    struct psbt p;
    psbt_from_tx(&p, &tx, 0);
    char *b64 = psbt_to_base64(&p);
    CHECK_EQ_STR(b64, psbt_creator_result);
    free(b64);
    psbt_clear(&p);
    /* Version 2 of the same round-trips and gives the same unsigned transaction. */
    psbt_from_tx(&p, &tx, 2);
    b64 = psbt_to_base64(&p);
    psbt_clear(&p);
    char err[256];
    CHECK(psbt_parse_base64(&p, b64, err, sizeof(err)) == RC_OK);
    CHECK_EQ_INT(p.version, 2);
    struct tx u;
    CHECK(psbt_get_unsigned_tx(&p, &u) == RC_OK);
    tx_compute_hashes(&tx);
    CHECK_EQ_MEM(u.txid, tx.txid, 32);
    tx_clear(&u);
    psbt_clear(&p);
    free(b64);
    tx_clear(&tx);
}

static void test_combiner(void)
{
    struct psbt a, b, out;
    char err[256];
    CHECK(psbt_parse_base64(&a, psbt_combine_in[0], err, sizeof(err)) == RC_OK);
    CHECK(psbt_parse_base64(&b, psbt_combine_in[1], err, sizeof(err)) == RC_OK);
    const struct psbt *both[2] = {&a, &b};
    CHECK(psbt_combine(&out, both, 2) == RC_OK);
    char *s = psbt_to_base64(&out);
    CHECK_EQ_STR(s, psbt_combine_result);
    free(s);
    psbt_clear(&out);
    /* Different transactions do not combine. */
    struct psbt c;
    CHECK(psbt_parse_base64(&c, psbt_creator_result, err, sizeof(err)) == RC_OK);
    c.outputs[0].amount++;
    const struct psbt *diff[2] = {&a, &c};
    CHECK(psbt_combine(&out, diff, 2) == RC_INVALID);
    psbt_clear(&a);
    psbt_clear(&b);
    psbt_clear(&c);
}

static void test_finalizer_extractor(void)
{
    struct psbt p;
    char err[256];
    CHECK(psbt_parse_base64(&p, psbt_finalize_in, err, sizeof(err)) == RC_OK);
    CHECK(psbt_finalize(&p) == 1);
    char *s = psbt_to_base64(&p);
    CHECK_EQ_STR(s, psbt_finalize_result);
    free(s);
    psbt_clear(&p);

    CHECK(psbt_parse_base64(&p, psbt_extract_in, err, sizeof(err)) == RC_OK);
    struct tx tx;
    CHECK(psbt_finalize_extract(&p, &tx) == 1);
    struct buf ser;
    buf_init(&ser);
    tx_serialize(&tx, &ser, 1);
    char *hx = hex_encode_alloc(ser.data, ser.len);
    CHECK_EQ_STR(hx, psbt_extract_result);
    free(hx);
    buf_clear(&ser);
    tx_clear(&tx);
    psbt_clear(&p);

    /* An unsigned PSBT does not finalize, and stays as it was. */
    CHECK(psbt_parse_base64(&p, psbt_creator_result, err, sizeof(err)) == RC_OK);
    CHECK(psbt_finalize_extract(&p, &tx) == 0);
    s = psbt_to_base64(&p);
    CHECK_EQ_STR(s, psbt_creator_result);
    free(s);
    psbt_clear(&p);
}

/* Core's signer vectors: the wallet's walletprocesspsbt there; here psbt_sign_input with the
 * keys and without finalizing gives the same bytes (low-R grinding included). */
static void test_signer(void)
{
    const struct chain_params *cp = chain_params_get("regtest");
    for (size_t i = 0; i < N(psbt_signers); i++) {
        struct sign_provider prov;
        sign_provider_init(&prov);
        for (int k = 0; k < 2 && psbt_signers[i].privkeys[k]; k++) {
            uint8_t key[32];
            int comp;
            CHECK(address_decode_wif(key, &comp, psbt_signers[i].privkeys[k], cp) == RC_OK);
            CHECK(sign_provider_add_key(&prov, key, comp) == RC_OK);
        }
        struct psbt p;
        char err[256];
        CHECK(psbt_parse_base64(&p, psbt_signers[i].psbt, err, sizeof(err)) == RC_OK);
        struct tx u;
        CHECK(psbt_get_unsigned_tx(&p, &u) == RC_OK);
        struct tx_out *spent = xcalloc(p.n_inputs, sizeof(*spent));
        int all = 1;
        for (size_t j = 0; j < p.n_inputs; j++) {
            const struct tx_out *o = psbt_input_utxo(&p.inputs[j]);
            if (o) {
                spent[j] = *o;
            } else {
                all = 0;
            }
        }
        struct tx_precomputed pd;
        sighash_precompute(&pd, &u, all ? spent : NULL, all ? p.n_inputs : 0);
        for (size_t j = 0; j < p.n_inputs; j++) {
            int ht = p.inputs[j].has_sighash ? p.inputs[j].sighash : -1;
            psbt_sign_input(&p, j, &prov, &pd, ht, 0, NULL);
        }
        char *s = psbt_to_base64(&p);
        if (strcmp(s, psbt_signers[i].result) != 0) {
            printf("# signer case %zu differs:\n#  got  %s\n#  want %s\n", i, s,
                   psbt_signers[i].result);
            CHECK(0);
        }
        free(s);
        free(spent);
        tx_clear(&u);
        psbt_clear(&p);
        sign_provider_clear(&prov);
    }
}

/* ---- signing every script type ------------------------------------------------------- */

static void key_from_byte(uint8_t key[32], uint8_t b)
{
    memset(key, 0, 32);
    key[31] = b;
    key[0] = 0x11;
}

static void set_bytes(struct bytes *b, const uint8_t *p, size_t n)
{
    b->data = n ? xmemdup(p, n) : NULL;
    b->len = n;
}

/* A transaction spending one output (value, spk) to an OP_TRUE output. */
static void one_in_tx(struct tx *tx, const uint8_t *spk, size_t spk_len, int64_t value,
                      struct tx_out *spent)
{
    tx_init(tx);
    tx->version = 2;
    tx->vin_count = 1;
    tx->vin = xcalloc(1, sizeof(*tx->vin));
    memset(tx->vin[0].prevout.txid, 0x42, 32);
    tx->vin[0].prevout.n = 3;
    tx->vin[0].sequence = 0xfffffffd;
    tx->vout_count = 2;
    tx->vout = xcalloc(2, sizeof(*tx->vout));
    uint8_t t = OP_TRUE;
    tx->vout[0].value_sat = value - 1000;
    set_bytes(&tx->vout[0].script_pubkey, &t, 1);
    tx->vout[1].value_sat = 0;
    set_bytes(&tx->vout[1].script_pubkey, &t, 1);
    tx_compute_hashes(tx);
    spent->value_sat = value;
    set_bytes(&spent->script_pubkey, spk, spk_len);
}

/* Signs with prov; returns the number of input errors, and checks the interpreter agrees. */
static size_t sign_check(struct tx *tx, const struct tx_out *spent,
                         const struct sign_provider *prov, int ht, int expect_complete,
                         const char *expect_err)
{
    const struct tx_out *sp[1] = {spent};
    struct sign_tx_error *errs;
    size_t n_errs;
    int complete = sign_tx(tx, prov, sp, ht, &errs, &n_errs);
    CHECK_EQ_INT(complete, expect_complete);
    enum script_error e[1];
    size_t bad = script_verify_tx(tx, spent, SCRIPT_FLAGS_STANDARD, NULL, e);
    CHECK_EQ_INT(bad, expect_complete ? 0 : 1);
    if (expect_err) {
        CHECK_EQ_INT(n_errs, 1);
        if (n_errs) {
            CHECK_EQ_STR(errs[0].msg, expect_err);
        }
    }
    free(errs);
    return n_errs;
}

static void p2pkh(struct buf *s, const uint8_t id[20])
{
    uint8_t x[25] = {OP_DUP, OP_HASH160, 20};
    memcpy(x + 3, id, 20);
    x[23] = OP_EQUALVERIFY;
    x[24] = OP_CHECKSIG;
    buf_append(s, x, 25);
}

static void wrap_p2sh(struct buf *out, const uint8_t *script, size_t len)
{
    uint8_t h[20];
    hash_hash160(h, script, len);
    buf_put_u8(out, OP_HASH160);
    script_push_data(out, h, 20);
    buf_put_u8(out, OP_EQUAL);
}

static void wrap_p2wsh(struct buf *out, const uint8_t *script, size_t len)
{
    uint8_t h[32];
    hash_sha256(h, script, len);
    buf_put_u8(out, OP_0);
    script_push_data(out, h, 32);
}

static void multisig(struct buf *out, const struct sign_provider *p, int m)
{
    buf_put_u8(out, script_encode_op_n(m));
    for (size_t i = 0; i < p->n_keys; i++) {
        script_push_data(out, p->keys[i].pubkey, p->keys[i].pubkey_len);
    }
    buf_put_u8(out, script_encode_op_n((int)p->n_keys));
    buf_put_u8(out, OP_CHECKMULTISIG);
}

enum wrap { BARE, P2SH, P2WSH, P2SH_P2WSH };

/* Builds the output script of inner wrapped as w, adding the scripts the signer needs. */
static void build_spk(struct buf *spk, const uint8_t *inner, size_t len, enum wrap w,
                      struct sign_provider *prov)
{
    struct buf ws;
    buf_init(&ws);
    switch (w) {
    case BARE:
        buf_append(spk, inner, len);
        break;
    case P2SH:
        sign_provider_add_script(prov, inner, len);
        wrap_p2sh(spk, inner, len);
        break;
    case P2WSH:
        sign_provider_add_script(prov, inner, len);
        wrap_p2wsh(spk, inner, len);
        break;
    case P2SH_P2WSH:
        sign_provider_add_script(prov, inner, len);
        wrap_p2wsh(&ws, inner, len);
        sign_provider_add_script(prov, ws.data, ws.len);
        wrap_p2sh(spk, ws.data, ws.len);
        break;
    }
    buf_clear(&ws);
}

static void test_sign_single_key_types(void)
{
    static const int hts[] = {SIGHASH_DEFAULT,
                              SIGHASH_ALL,
                              SIGHASH_NONE,
                              SIGHASH_SINGLE,
                              SIGHASH_ALL | SIGHASH_ANYONECANPAY,
                              SIGHASH_SINGLE | SIGHASH_ANYONECANPAY};
    for (int compressed = 0; compressed <= 1; compressed++) {
        for (int kind = 0; kind < 5; kind++) {
            for (size_t h = 0; h < N(hts); h++) {
                struct sign_provider prov;
                sign_provider_init(&prov);
                uint8_t key[32];
                key_from_byte(key, (uint8_t)(kind + 1));
                CHECK(sign_provider_add_key(&prov, key, compressed) == RC_OK);
                const struct sign_key *k = &prov.keys[0];
                struct buf spk, inner;
                buf_init(&spk);
                buf_init(&inner);
                int witness = 0;
                switch (kind) {
                case 0: /* P2PK */
                    script_push_data(&spk, k->pubkey, k->pubkey_len);
                    buf_put_u8(&spk, OP_CHECKSIG);
                    break;
                case 1: /* P2PKH */
                    p2pkh(&spk, k->keyid);
                    break;
                case 2: /* P2SH-P2PKH */
                    p2pkh(&inner, k->keyid);
                    build_spk(&spk, inner.data, inner.len, P2SH, &prov);
                    break;
                case 3: /* P2WPKH */
                    buf_put_u8(&spk, OP_0);
                    script_push_data(&spk, k->keyid, 20);
                    witness = 1;
                    break;
                case 4: /* P2SH-P2WPKH */
                    buf_put_u8(&inner, OP_0);
                    script_push_data(&inner, k->keyid, 20);
                    build_spk(&spk, inner.data, inner.len, P2SH, &prov);
                    witness = 1;
                    break;
                }
                struct tx tx;
                struct tx_out spent;
                one_in_tx(&tx, spk.data, spk.len, 100000, &spent);
                /* Core does not sign segwit with an uncompressed key. */
                int ok = !(witness && !compressed);
                sign_check(&tx, &spent, &prov, hts[h], ok, NULL);
                if (ok && kind != 3 && kind != 4) {
                    /* Low R: the DER signature has at most 70 bytes (+ hash type). */
                    const uint8_t *ss = tx.vin[0].script_sig.data;
                    CHECK(ss[0] <= 71);
                    int want = hts[h] == SIGHASH_DEFAULT ? SIGHASH_ALL : hts[h];
                    CHECK_EQ_INT(ss[ss[0]], want);
                }
                if (ok && witness) {
                    CHECK_EQ_INT(tx.vin[0].witness_count, 2);
                }
                tx_clear(&tx);
                free(spent.script_pubkey.data);
                buf_clear(&spk);
                buf_clear(&inner);
                sign_provider_clear(&prov);
            }
        }
    }
}

static void test_sign_multisig(void)
{
    for (int w = BARE; w <= P2SH_P2WSH; w++) {
        struct sign_provider all, one, two;
        sign_provider_init(&all);
        sign_provider_init(&one);
        sign_provider_init(&two);
        uint8_t key[3][32];
        for (int i = 0; i < 3; i++) {
            key_from_byte(key[i], (uint8_t)(0x20 + i));
            CHECK(sign_provider_add_key(&all, key[i], 1) == RC_OK);
        }
        CHECK(sign_provider_add_key(&one, key[2], 1) == RC_OK);
        CHECK(sign_provider_add_key(&two, key[0], 1) == RC_OK);
        struct buf ms, spk, tmp;
        buf_init(&ms);
        buf_init(&spk);
        buf_init(&tmp);
        multisig(&ms, &all, 2);
        build_spk(&spk, ms.data, ms.len, (enum wrap)w, &all);
        build_spk(&tmp, ms.data, ms.len, (enum wrap)w, &one);
        buf_reset(&tmp);
        build_spk(&tmp, ms.data, ms.len, (enum wrap)w, &two);

        /* All keys at once. */
        struct tx tx;
        struct tx_out spent;
        one_in_tx(&tx, spk.data, spk.len, 50000, &spent);
        sign_check(&tx, &spent, &all, SIGHASH_ALL, 1, NULL);
        tx_clear(&tx);
        free(spent.script_pubkey.data);

        /* One key, then another: the first signature is found again in the scriptSig or
         * witness and kept (in key order: key 0's before key 2's). */
        one_in_tx(&tx, spk.data, spk.len, 50000, &spent);
        sign_check(&tx, &spent, &one, SIGHASH_ALL, 0,
                   "CHECK(MULTI)SIG failing with non-zero signature (possibly need more "
                   "signatures)");
        sign_check(&tx, &spent, &two, SIGHASH_ALL, 1, NULL);
        tx_clear(&tx);
        free(spent.script_pubkey.data);

        /* Without the script (P2SH forms): nothing can be signed. */
        if (w != BARE) {
            struct sign_provider none;
            sign_provider_init(&none);
            CHECK(sign_provider_add_key(&none, key[0], 1) == RC_OK);
            one_in_tx(&tx, spk.data, spk.len, 50000, &spent);
            sign_check(&tx, &spent, &none, SIGHASH_ALL, 0, NULL);
            tx_clear(&tx);
            free(spent.script_pubkey.data);
            sign_provider_clear(&none);
        }
        buf_clear(&ms);
        buf_clear(&spk);
        buf_clear(&tmp);
        sign_provider_clear(&all);
        sign_provider_clear(&one);
        sign_provider_clear(&two);
    }
}

static void test_sign_errors(void)
{
    struct sign_provider prov;
    sign_provider_init(&prov);
    uint8_t key[32];
    key_from_byte(key, 0x55);
    CHECK(sign_provider_add_key(&prov, key, 1) == RC_OK);
    uint8_t other[20];
    memset(other, 7, 20);
    struct buf spk;
    buf_init(&spk);
    p2pkh(&spk, other);
    struct tx tx;
    struct tx_out spent;
    one_in_tx(&tx, spk.data, spk.len, 1000, &spent);
    sign_check(&tx, &spent, &prov, SIGHASH_ALL, 0,
               "Unable to sign input, invalid stack size (possibly missing key)");
    /* Missing coin. */
    const struct tx_out *none[1] = {NULL};
    struct sign_tx_error *errs;
    size_t n;
    CHECK(sign_tx(&tx, &prov, none, SIGHASH_ALL, &errs, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_STR(errs[0].msg, "Input not found or already spent");
    free(errs);
    tx_clear(&tx);
    free(spent.script_pubkey.data);
    /* A segwit input whose amount was not given (Core's MAX_MONEY placeholder). */
    buf_reset(&spk);
    buf_put_u8(&spk, OP_0);
    script_push_data(&spk, prov.keys[0].keyid, 20);
    one_in_tx(&tx, spk.data, spk.len, 21000000LL * 100000000LL, &spent);
    const struct tx_out *sp[1] = {&spent};
    CHECK(sign_tx(&tx, &prov, sp, SIGHASH_ALL, &errs, &n) == 0);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_STR(errs[0].msg, "Missing amount");
    free(errs);
    tx_clear(&tx);
    free(spent.script_pubkey.data);
    /* Invalid secret keys. */
    uint8_t zero[32] = {0}, order[32];
    CHECK(hex_decode_fixed(order, 32,
                           "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141") ==
          RC_OK);
    CHECK(sign_provider_add_key(&prov, zero, 1) == RC_INVALID);
    CHECK(sign_provider_add_key(&prov, order, 1) == RC_INVALID);
    buf_clear(&spk);
    sign_provider_clear(&prov);
}

static void test_sign_taproot(void)
{
    static const int hts[] = {SIGHASH_DEFAULT, SIGHASH_ALL, SIGHASH_NONE | SIGHASH_ANYONECANPAY};
    for (int tweaked = 0; tweaked <= 2; tweaked++) {
        for (size_t h = 0; h < N(hts); h++) {
            struct sign_provider prov;
            sign_provider_init(&prov);
            uint8_t key[32], root[32], out[32];
            int parity;
            key_from_byte(key, 0x77);
            memset(root, 0x99, 32);
            CHECK(sign_provider_add_key(&prov, key, 1) == RC_OK);
            const uint8_t *x = prov.keys[0].xonly;
            if (tweaked) {
                /* tr(KEY) and tr(KEY, tree) spent by the key path. */
                const uint8_t *mr = tweaked == 2 ? root : NULL;
                CHECK(sign_provider_add_taproot(&prov, x, mr) == RC_OK);
                CHECK(script_taproot_tweak(out, &parity, x, mr));
            } else {
                memcpy(out, x, 32); /* rawtr(KEY): Core signs with the key as it is */
            }
            uint8_t spk[34] = {OP_1, 32};
            memcpy(spk + 2, out, 32);
            struct tx tx;
            struct tx_out spent;
            one_in_tx(&tx, spk, 34, 70000, &spent);
            sign_check(&tx, &spent, &prov, hts[h], 1, NULL);
            CHECK_EQ_INT(tx.vin[0].witness_count, 1);
            CHECK_EQ_INT(tx.vin[0].witness[0].len, hts[h] ? 65 : 64);
            tx_clear(&tx);
            free(spent.script_pubkey.data);
            sign_provider_clear(&prov);
        }
    }
    /* Without the spend data a tweaked output cannot be signed with the internal key. */
    struct sign_provider prov;
    sign_provider_init(&prov);
    uint8_t key[32], out[32];
    int parity;
    key_from_byte(key, 0x78);
    CHECK(sign_provider_add_key(&prov, key, 1) == RC_OK);
    CHECK(script_taproot_tweak(out, &parity, prov.keys[0].xonly, NULL));
    uint8_t spk[34] = {OP_1, 32};
    memcpy(spk + 2, out, 32);
    struct tx tx;
    struct tx_out spent;
    one_in_tx(&tx, spk, 34, 70000, &spent);
    sign_check(&tx, &spent, &prov, SIGHASH_DEFAULT, 0, NULL);
    tx_clear(&tx);
    free(spent.script_pubkey.data);
    sign_provider_clear(&prov);
}

/* BIP341's wallet vectors: key-path signatures of the given tweaked keys (aux rand zero). */
static void test_bip341_keypath_vectors(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/vectors/bip341_wallet_vectors.json", test_shared_dir());
    if (!test_have_shared_file(path)) {
        return;
    }
    json_error_t jerr;
    json_t *j = json_load_file(path, 0, &jerr);
    CHECK(j != NULL);
    if (!j) {
        return;
    }
    json_t *kps = json_object_get(j, "keyPathSpending");
    size_t ki;
    json_t *kp;
    int checked = 0;
    json_array_foreach(kps, ki, kp)
    {
        json_t *given = json_object_get(kp, "given");
        struct buf raw;
        buf_init(&raw);
        CHECK(hex_decode(&raw, json_string_value(json_object_get(given, "rawUnsignedTx"))) ==
              RC_OK);
        struct tx tx;
        CHECK(tx_deserialize(&tx, raw.data, raw.len, NULL, 0) == RC_OK);
        json_t *utxos = json_object_get(given, "utxosSpent");
        size_t n = json_array_size(utxos);
        struct tx_out *spent = xcalloc(n, sizeof(*spent));
        for (size_t i = 0; i < n; i++) {
            json_t *u = json_array_get(utxos, i);
            struct buf s;
            buf_init(&s);
            CHECK(hex_decode(&s, json_string_value(json_object_get(u, "scriptPubKey"))) == RC_OK);
            spent[i].value_sat = json_integer_value(json_object_get(u, "amountSats"));
            spent[i].script_pubkey.data = s.data;
            spent[i].script_pubkey.len = s.len;
        }
        struct tx_precomputed pd;
        sighash_precompute(&pd, &tx, spent, n);
        size_t ii;
        json_t *is;
        json_array_foreach(json_object_get(kp, "inputSpending"), ii, is)
        {
            json_t *g = json_object_get(is, "given");
            size_t idx = (size_t)json_integer_value(json_object_get(g, "txinIndex"));
            int ht = (int)json_integer_value(json_object_get(g, "hashType"));
            uint8_t key[32], root[32];
            CHECK(hex_decode_fixed(
                      key, 32, json_string_value(json_object_get(g, "internalPrivkey"))) == RC_OK);
            const char *mr = json_string_value(json_object_get(g, "merkleRoot"));
            if (mr) {
                CHECK(hex_decode_fixed(root, 32, mr) == RC_OK);
            }
            const char *want = json_string_value(
                json_array_get(json_object_get(json_object_get(is, "expected"), "witness"), 0));
            /* Through the signer: the provider knows the key and the output's spend data. */
            struct sign_provider prov;
            sign_provider_init(&prov);
            CHECK(sign_provider_add_key(&prov, key, 1) == RC_OK);
            CHECK(sign_provider_add_taproot(&prov, prov.keys[0].xonly, mr ? root : NULL) == RC_OK);
            struct sign_data d;
            sign_data_init(&d);
            struct sign_creator c = {.mode = SIGN_REAL,
                                     .tx = &tx,
                                     .in_idx = idx,
                                     .amount = spent[idx].value_sat,
                                     .txdata = &pd,
                                     .sighash_type = ht};
            CHECK(sign_produce(&prov, &c, spent[idx].script_pubkey.data,
                               spent[idx].script_pubkey.len, &d) == 1);
            CHECK_EQ_INT(d.stack_count, 1);
            if (d.stack_count == 1) {
                char *got = hex_encode_alloc(d.stack[0].data, d.stack[0].len);
                CHECK_EQ_STR(got, want);
                free(got);
            }
            checked++;
            sign_data_clear(&d);
            sign_provider_clear(&prov);
        }
        for (size_t i = 0; i < n; i++) {
            free(spent[i].script_pubkey.data);
        }
        free(spent);
        tx_clear(&tx);
        buf_clear(&raw);
    }
    CHECK_EQ_INT(checked, 7);
    json_decref(j);
}

/* ---- the PSBT flow ------------------------------------------------------------------- */

/* A one-input PSBT spending (value, spk), version v. */
static void one_in_psbt(struct psbt *p, const uint8_t *spk, size_t spk_len, int64_t value,
                        uint32_t v)
{
    struct tx tx;
    struct tx_out spent;
    one_in_tx(&tx, spk, spk_len, value, &spent);
    psbt_from_tx(p, &tx, v);
    p->inputs[0].has_witness_utxo = 1;
    p->inputs[0].witness_utxo = spent;
    tx_clear(&tx);
}

static void put_partial_sig(struct psbt *p, const struct sign_provider *prov, size_t k,
                            const uint8_t *code, size_t code_len, int witness)
{
    struct tx u;
    CHECK(psbt_get_unsigned_tx(p, &u) == RC_OK);
    uint8_t h[32];
    if (witness) {
        sighash_witness_v0(h, code, code_len, &u, 0, SIGHASH_ALL,
                           p->inputs[0].witness_utxo.value_sat, NULL);
    } else {
        sighash_legacy(h, code, code_len, &u, 0, SIGHASH_ALL);
    }
    struct buf sig;
    buf_init(&sig);
    CHECK(sign_ecdsa(&sig, prov->keys[k].secret, h) == RC_OK);
    buf_put_u8(&sig, SIGHASH_ALL);
    uint8_t key[66];
    key[0] = PSBT_IN_PARTIAL_SIG;
    memcpy(key + 1, prov->keys[k].pubkey, prov->keys[k].pubkey_len);
    struct psbt_map *m = &p->inputs[0].fields;
    m->v = xrealloc(m->v, (m->n + 1) * sizeof(*m->v));
    set_bytes(&m->v[m->n].key, key, prov->keys[k].pubkey_len + 1);
    set_bytes(&m->v[m->n].value, sig.data, sig.len);
    m->n++;
    buf_clear(&sig);
    tx_clear(&u);
}

static void test_psbt_flow(void)
{
    for (uint32_t v = 0; v <= 2; v += 2) {
        struct sign_provider prov;
        sign_provider_init(&prov);
        uint8_t key[2][32];
        for (int i = 0; i < 2; i++) {
            key_from_byte(key[i], (uint8_t)(0x30 + i));
            CHECK(sign_provider_add_key(&prov, key[i], 1) == RC_OK);
        }
        struct buf ms, spk;
        buf_init(&ms);
        buf_init(&spk);
        multisig(&ms, &prov, 2);
        wrap_p2wsh(&spk, ms.data, ms.len);
        struct psbt base;
        one_in_psbt(&base, spk.data, spk.len, 40000, v);

        /* Analyze: the witness script is missing; the updater comes next. As in Core, an
         * input known by its witness UTXO only reports nothing missing until its solution is
         * a witness one (SignPSBTInput returns before filling the missing fields). */
        struct psbt_analysis a;
        psbt_analyze(&base, &a);
        CHECK_EQ_INT(a.n_inputs, 1);
        CHECK_EQ_INT(a.next, PSBT_ROLE_UPDATER);
        CHECK(a.inputs[0].has_utxo && !a.inputs[0].is_final);
        CHECK(!a.inputs[0].missing.has_missing_witness);
        CHECK(a.has_fee && a.fee_sat == 1000);
        CHECK(!a.has_estimate);
        psbt_analysis_clear(&a);

        sign_bytes_set(&base.inputs[0].witness_script, ms.data, ms.len);
        psbt_analyze(&base, &a);
        CHECK_EQ_INT(a.next, PSBT_ROLE_SIGNER);
        CHECK_EQ_INT(a.inputs[0].missing.n_missing_sigs, 2);
        CHECK(a.has_estimate);
        psbt_analysis_clear(&a);

        /* Two signers each add one partial signature; combine; finalize; extract. */
        struct psbt s1, s2, comb;
        psbt_copy(&s1, &base);
        psbt_copy(&s2, &base);
        put_partial_sig(&s1, &prov, 0, ms.data, ms.len, 1);
        put_partial_sig(&s2, &prov, 1, ms.data, ms.len, 1);
        /* Each alone is not complete. */
        CHECK(psbt_finalize(&s1) == 0);
        const struct psbt *both[2] = {&s1, &s2};
        CHECK(psbt_combine(&comb, both, 2) == RC_OK);
        psbt_analyze(&comb, &a);
        CHECK_EQ_INT(a.next, PSBT_ROLE_FINALIZER);
        size_t est = a.estimated_vsize;
        psbt_analysis_clear(&a);
        /* Round trip of the combined PSBT. */
        char *b64 = psbt_to_base64(&comb);
        struct psbt back;
        char err[256];
        CHECK(psbt_parse_base64(&back, b64, err, sizeof(err)) == RC_OK);
        char *b64b = psbt_to_base64(&back);
        CHECK_EQ_STR(b64, b64b);
        free(b64b);
        free(b64);
        struct tx tx;
        CHECK(psbt_finalize_extract(&back, &tx) == 1);
        CHECK(psbt_input_is_final(&back.inputs[0]));
        const struct tx_out *u = &back.inputs[0].witness_utxo;
        enum script_error e[1];
        CHECK_EQ_INT(script_verify_tx(&tx, u, SCRIPT_FLAGS_STANDARD, NULL, e), 0);
        /* The estimate is within a byte or two of the real size per signature. */
        CHECK(est >= tx_vsize(&tx) && est <= tx_vsize(&tx) + 2);
        psbt_analyze(&back, &a);
        CHECK_EQ_INT(a.next, PSBT_ROLE_EXTRACTOR);
        CHECK(a.inputs[0].is_final);
        psbt_analysis_clear(&a);
        tx_clear(&tx);

        /* A sighash in the PSBT that does not match the signatures. */
        struct psbt bad;
        psbt_copy(&bad, &comb);
        bad.inputs[0].has_sighash = 1;
        bad.inputs[0].sighash = SIGHASH_NONE;
        CHECK(psbt_finalize(&bad) == 0);
        CHECK_EQ_INT(psbt_sign_input(&bad, 0, NULL, NULL, SIGHASH_NONE, 1, NULL),
                     PSBT_SIGN_SIGHASH_MISMATCH);
        CHECK_EQ_INT(psbt_sign_input(&bad, 0, NULL, NULL, SIGHASH_ALL, 1, NULL),
                     PSBT_SIGN_SIGHASH_MISMATCH);
        psbt_clear(&bad);

        psbt_clear(&back);
        psbt_clear(&comb);
        psbt_clear(&s1);
        psbt_clear(&s2);
        psbt_clear(&base);
        buf_clear(&ms);
        buf_clear(&spk);
        sign_provider_clear(&prov);
    }
}

/* P2PKH and P2TR inputs finalized from partial_sigs / tap_key_sig records. */
static void test_psbt_finalize_types(void)
{
    struct sign_provider prov;
    sign_provider_init(&prov);
    uint8_t key[32];
    key_from_byte(key, 0x41);
    CHECK(sign_provider_add_key(&prov, key, 1) == RC_OK);
    /* P2PKH with a witness UTXO only: Core requires a witness signature then. */
    struct buf spk;
    buf_init(&spk);
    p2pkh(&spk, prov.keys[0].keyid);
    struct psbt p;
    one_in_psbt(&p, spk.data, spk.len, 5000, 0);
    put_partial_sig(&p, &prov, 0, spk.data, spk.len, 0);
    CHECK(psbt_finalize(&p) == 0);
    /* With the full previous transaction it finalizes. */
    struct tx *prev = xcalloc(1, sizeof(*prev));
    tx_init(prev);
    prev->version = 1;
    prev->vin_count = 1;
    prev->vin = xcalloc(1, sizeof(*prev->vin));
    prev->vout_count = 4;
    prev->vout = xcalloc(4, sizeof(*prev->vout));
    prev->vout[3].value_sat = 5000;
    set_bytes(&prev->vout[3].script_pubkey, spk.data, spk.len);
    tx_compute_hashes(prev);
    psbt_clear(&p);
    struct tx tx;
    struct tx_out spent;
    one_in_tx(&tx, spk.data, spk.len, 5000, &spent);
    memcpy(tx.vin[0].prevout.txid, prev->txid, 32);
    tx_compute_hashes(&tx);
    psbt_from_tx(&p, &tx, 0);
    p.inputs[0].non_witness_utxo = prev;
    put_partial_sig(&p, &prov, 0, spk.data, spk.len, 0);
    struct tx fin;
    CHECK(psbt_finalize_extract(&p, &fin) == 1);
    enum script_error e[1];
    CHECK_EQ_INT(script_verify_tx(&fin, &spent, SCRIPT_FLAGS_STANDARD, NULL, e), 0);
    tx_clear(&fin);
    tx_clear(&tx);
    free(spent.script_pubkey.data);
    psbt_clear(&p);

    /* P2TR key path: a tap_key_sig is all the finalizer needs. */
    uint8_t spk_tr[34] = {OP_1, 32};
    memcpy(spk_tr + 2, prov.keys[0].xonly, 32);
    one_in_psbt(&p, spk_tr, 34, 8000, 2);
    struct tx u;
    CHECK(psbt_get_unsigned_tx(&p, &u) == RC_OK);
    struct tx_precomputed pd;
    sighash_precompute(&pd, &u, &p.inputs[0].witness_utxo, 1);
    struct script_execdata ed;
    memset(&ed, 0, sizeof(ed));
    ed.annex_init = 1;
    uint8_t h[32], sig[64];
    CHECK(sighash_taproot(h, &u, 0, SIGHASH_DEFAULT, SIGVERSION_TAPROOT, &ed, &pd, NULL));
    CHECK(sign_schnorr(sig, key, 0, NULL, h, NULL) == RC_OK);
    sign_bytes_set(&p.inputs[0].tap_key_sig, sig, 64);
    CHECK(psbt_finalize_extract(&p, &fin) == 1);
    CHECK_EQ_INT(fin.vin[0].witness_count, 1);
    CHECK_EQ_INT(script_verify_tx(&fin, &p.inputs[0].witness_utxo, SCRIPT_FLAGS_STANDARD, NULL, e),
                 0);
    /* Analyzer: Core checks final taproot inputs without the spent outputs when it estimates
     * the size, so a key-path spend known by its witness UTXO gets a fee but no estimate. */
    struct psbt_analysis a;
    psbt_analyze(&p, &a);
    CHECK_EQ_INT(a.next, PSBT_ROLE_EXTRACTOR);
    CHECK(a.inputs[0].is_final);
    CHECK(a.has_fee && a.fee_sat == 1000);
    CHECK(!a.has_estimate);
    psbt_analysis_clear(&a);
    tx_clear(&fin);
    tx_clear(&u);
    psbt_clear(&p);
    buf_clear(&spk);
    sign_provider_clear(&prov);
}

static void test_unknown_roundtrip(void)
{
    /* Unknown and proprietary records at every level come back byte for byte, sorted. */
    struct psbt p;
    char err[256];
    CHECK(psbt_parse_base64(&p, psbt_creator_result, err, sizeof(err)) == RC_OK);
    struct psbt_map *maps[3] = {&p.fields, &p.inputs[0].fields, &p.outputs[1].fields};
    for (int i = 0; i < 3; i++) {
        static const uint8_t k1[] = {0x09, 0x01, 0x02}, v1[] = {0xaa};
        static const uint8_t k2[] = {0xfc, 0x03, 'a', 'b', 'c', 0x05, 0x99}, v2[] = {0x01, 0x02};
        struct psbt_map *m = maps[i];
        m->v = xrealloc(m->v, (m->n + 2) * sizeof(*m->v));
        set_bytes(&m->v[m->n].key, k2, sizeof(k2));
        set_bytes(&m->v[m->n].value, v2, sizeof(v2));
        set_bytes(&m->v[m->n + 1].key, k1, sizeof(k1));
        set_bytes(&m->v[m->n + 1].value, v1, sizeof(v1));
        m->n += 2;
    }
    char *s = psbt_to_base64(&p);
    struct psbt q;
    int rc = psbt_parse_base64(&q, s, err, sizeof(err));
    CHECK_EQ_INT(rc, RC_OK);
    if (rc != RC_OK) {
        printf("# %s\n", err);
        free(s);
        psbt_clear(&p);
        return;
    }
    CHECK_EQ_INT(q.fields.n, 2);
    CHECK_EQ_INT(q.inputs[0].fields.n, 2);
    CHECK_EQ_INT(q.outputs[1].fields.n, 2);
    char *t = psbt_to_base64(&q);
    CHECK_EQ_STR(s, t);
    free(s);
    free(t);
    psbt_clear(&p);
    psbt_clear(&q);
}

/* The serialization of a PSBT, edited one map at a time: map 0 is the global map, then the
 * inputs', then the outputs'. */
struct edit {
    size_t map;
    int drop;           /* drop this map's records of this key type (-1: none) */
    const uint8_t *key; /* insert this record at the end of the map (NULL: none) */
    size_t key_len;
    const uint8_t *val;
    size_t val_len;
    int cut; /* end the stream where the map's separator was */
};

static size_t compact_at(const uint8_t *p, size_t *pos)
{
    size_t n = p[*pos];
    *pos += 1;
    if (n == 253) {
        n = p[*pos] | (size_t)p[*pos + 1] << 8;
        *pos += 2;
    }
    return n;
}

static void edit_psbt(struct buf *out, const struct buf *in, const struct edit *e)
{
    size_t pos = 5, map = 0;
    buf_reset(out);
    buf_append(out, in->data, 5);
    while (pos < in->len) {
        size_t start = pos, kn = compact_at(in->data, &pos);
        if (kn == 0) {
            if (map == e->map && e->key) {
                ser_put_compact(out, e->key_len);
                buf_append(out, e->key, e->key_len);
                ser_put_compact(out, e->val_len);
                buf_append(out, e->val, e->val_len);
            }
            if (map == e->map && e->cut) {
                return;
            }
            buf_put_u8(out, 0);
            map++;
            continue;
        }
        int type = in->data[pos];
        pos += kn;
        pos += compact_at(in->data, &pos);
        if (map != e->map || type != e->drop) {
            buf_append(out, in->data + start, pos - start);
        }
    }
}

/* Expects the edited PSBT to be rejected with msg (": iostream error" appended). */
static void check_edit(const struct buf *in, const struct edit *e, const char *msg)
{
    struct buf raw;
    struct psbt p;
    char err[256], want[256];
    buf_init(&raw);
    edit_psbt(&raw, in, e);
    snprintf(want, sizeof(want), "%s: iostream error", msg);
    int rc = psbt_parse(&p, raw.data, raw.len, err, sizeof(err));
    CHECK(rc != RC_OK);
    if (rc == RC_OK) {
        psbt_clear(&p);
    } else {
        CHECK_EQ_STR(err, want);
    }
    buf_clear(&raw);
}

static void test_map_checks(void)
{
    /* Each map's checks with Core's messages: a known key of the wrong size, a PSBTv2 field
     * in a v0 PSBT, a duplicate key, a missing separator, a missing required field. */
    struct buf v0, v2;
    struct psbt p, q;
    struct tx tx;
    char err[256];
    buf_init(&v0);
    buf_init(&v2);
    CHECK(base64_decode(&v0, psbt_creator_result) == RC_OK);
    CHECK(psbt_parse(&p, v0.data, v0.len, err, sizeof(err)) == RC_OK);
    CHECK(psbt_get_unsigned_tx(&p, &tx) == RC_OK);
    psbt_from_tx(&q, &tx, 2);
    psbt_serialize(&q, &v2);
    psbt_clear(&p);
    psbt_clear(&q);
    tx_clear(&tx);
    static const struct {
        size_t map; /* 0: global, 1: the first input, 3: the first output */
        uint8_t type;
        size_t key_len;
        const char *name;
    } sizes[] = {
        {0, PSBT_GLOBAL_UNSIGNED_TX, 1, "Global Unsigned TX"},
        {0, PSBT_GLOBAL_XPUB, 79, "Global XPUB"},
        {0, PSBT_GLOBAL_TX_VERSION, 1, "Global Transaction Version"},
        {0, PSBT_GLOBAL_FALLBACK_LOCKTIME, 1, "Global Fallback Locktime"},
        {0, PSBT_GLOBAL_INPUT_COUNT, 1, "Global Input Count"},
        {0, PSBT_GLOBAL_OUTPUT_COUNT, 1, "Global Output Count"},
        {0, PSBT_GLOBAL_TX_MODIFIABLE, 1, "Global TX Modifiable Flags"},
        {0, PSBT_GLOBAL_VERSION, 1, "Global PSBT Version"},
        {1, PSBT_IN_NON_WITNESS_UTXO, 1, "Input Non-witness UTXO"},
        {1, PSBT_IN_WITNESS_UTXO, 1, "Input Witness UTXO"},
        {1, PSBT_IN_SIGHASH, 1, "Input Sighash Type"},
        {1, PSBT_IN_REDEEMSCRIPT, 1, "Input redeemScript"},
        {1, PSBT_IN_WITNESSSCRIPT, 1, "Input witnessScript"},
        {1, PSBT_IN_SCRIPTSIG, 1, "Input Final scriptSig"},
        {1, PSBT_IN_SCRIPTWITNESS, 1, "Input Final scriptWitness"},
        {1, PSBT_IN_RIPEMD160, 21, "Input RIPEMD160 Preimage"},
        {1, PSBT_IN_SHA256, 33, "Input SHA256 Preimage"},
        {1, PSBT_IN_HASH160, 21, "Input Hash160 Preimage"},
        {1, PSBT_IN_HASH256, 33, "Input Hash256 Preimage"},
        {1, PSBT_IN_PREVIOUS_TXID, 1, "Input Previous TXID"},
        {1, PSBT_IN_OUTPUT_INDEX, 1, "Input Previous Output's Index"},
        {1, PSBT_IN_SEQUENCE, 1, "Input Sequence"},
        {1, PSBT_IN_REQUIRED_TIME_LOCKTIME, 1, "Input Required Time Based Locktime"},
        {1, PSBT_IN_REQUIRED_HEIGHT_LOCKTIME, 1, "Input Required Height Based Locktime"},
        {1, PSBT_IN_TAP_KEY_SIG, 1, "Input Taproot Key Path Signature"},
        {1, PSBT_IN_TAP_SCRIPT_SIG, 65, "Input Taproot Script Path Signature"},
        {1, PSBT_IN_TAP_BIP32_DERIVATION, 33, "Input Taproot BIP32 Keypath"},
        {1, PSBT_IN_TAP_INTERNAL_KEY, 1, "Input Taproot Internal Key"},
        {1, PSBT_IN_TAP_MERKLE_ROOT, 1, "Input Taproot Merkle Root"},
        {1, PSBT_IN_MUSIG2_PARTICIPANT_PUBKEYS, 34, "Input MuSig2 Participants Pubkeys"},
        {3, PSBT_OUT_REDEEMSCRIPT, 1, "Output redeemScript"},
        {3, PSBT_OUT_WITNESSSCRIPT, 1, "Output witnessScript"},
        {3, PSBT_OUT_AMOUNT, 1, "Output Amount"},
        {3, PSBT_OUT_SCRIPT, 1, "Output Script"},
        {3, PSBT_OUT_TAP_INTERNAL_KEY, 1, "Output Taproot Internal Key"},
        {3, PSBT_OUT_TAP_TREE, 1, "Output Taproot Tree Key"},
        {3, PSBT_OUT_TAP_BIP32_DERIVATION, 33, "Output Taproot BIP32 Keypath"},
        {3, PSBT_OUT_MUSIG2_PARTICIPANT_PUBKEYS, 34, "Output MuSig2 Participants Pubkeys"},
    };
    uint8_t key[80] = {0};
    char msg[160];
    for (size_t i = 0; i < N(sizes); i++) {
        /* One byte too many: the size is checked before the version or the value. */
        key[0] = sizes[i].type;
        struct edit e = {sizes[i].map, -1, key, sizes[i].key_len + 1, NULL, 0, 0};
        snprintf(msg, sizeof(msg), "Size of key was not %zu for the type %s", sizes[i].key_len,
                 sizes[i].name);
        check_edit(&v0, &e, msg);
    }
    static const uint8_t val4[4] = {0x80, 0xf0, 0xfa, 0x02};
    static const struct {
        size_t map;
        uint8_t type;
        const char *msg;
    } v2_only[] = {
        {1, PSBT_IN_PREVIOUS_TXID, "Previous txid is not allowed in PSBTv0"},
        {1, PSBT_IN_OUTPUT_INDEX, "Previous output's index is not allowed in PSBTv0"},
        {1, PSBT_IN_SEQUENCE, "Sequence is not allowed in PSBTv0"},
        {1, PSBT_IN_REQUIRED_TIME_LOCKTIME,
         "Required time based locktime is not allowed in PSBTv0"},
        {1, PSBT_IN_REQUIRED_HEIGHT_LOCKTIME,
         "Required height based locktime is not allowed in PSBTv0"},
        {3, PSBT_OUT_AMOUNT, "Output amount is not allowed in PSBTv0"},
        {3, PSBT_OUT_SCRIPT, "Output script is not allowed in PSBTv0"},
        {0, PSBT_GLOBAL_TX_VERSION, "PSBT_GLOBAL_TX_VERSION is not allowed in PSBTv0"},
        {0, PSBT_GLOBAL_FALLBACK_LOCKTIME,
         "PSBT_GLOBAL_FALLBACK_LOCKTIME is not allowed in PSBTv0"},
        {0, PSBT_GLOBAL_INPUT_COUNT, "PSBT_GLOBAL_INPUT_COUNT is not allowed in PSBTv0"},
        {0, PSBT_GLOBAL_OUTPUT_COUNT, "PSBT_GLOBAL_OUTPUT_COUNT is not allowed in PSBTv0"},
        {0, PSBT_GLOBAL_TX_MODIFIABLE, "PSBT_GLOBAL_TX_MODIFIABLE is not allowed in PSBTv0"},
    };
    for (size_t i = 0; i < N(v2_only); i++) {
        /* A value each field reads without complaint (a count is a CompactSize). */
        int count = v2_only[i].map == 0 && (v2_only[i].type == PSBT_GLOBAL_INPUT_COUNT ||
                                            v2_only[i].type == PSBT_GLOBAL_OUTPUT_COUNT);
        size_t vn = count || v2_only[i].type == PSBT_GLOBAL_TX_MODIFIABLE ? 1 : 4;
        struct edit e = {v2_only[i].map, -1, &v2_only[i].type, 1, count ? val4 + 3 : val4, vn, 0};
        check_edit(&v0, &e, v2_only[i].msg);
    }
    static const struct {
        size_t map;
        int type;
        const char *msg;
    } required[] = {
        {0, PSBT_GLOBAL_TX_VERSION, "PSBT_GLOBAL_TX_VERSION is required in PSBTv2"},
        {0, PSBT_GLOBAL_INPUT_COUNT, "PSBT_GLOBAL_INPUT_COUNT is required in PSBTv2"},
        {0, PSBT_GLOBAL_OUTPUT_COUNT, "PSBT_GLOBAL_OUTPUT_COUNT is required in PSBTv2"},
        {1, PSBT_IN_PREVIOUS_TXID, "Previous TXID is required in PSBTv2"},
        {1, PSBT_IN_OUTPUT_INDEX, "Previous output's index is required in PSBTv2"},
        {3, PSBT_OUT_AMOUNT, "Output amount is required in PSBTv2"},
        {3, PSBT_OUT_SCRIPT, "Output script is required in PSBTv2"},
    };
    for (size_t i = 0; i < N(required); i++) {
        struct edit e = {required[i].map, required[i].type, NULL, 0, NULL, 0, 0};
        check_edit(&v2, &e, required[i].msg);
    }
    static const uint8_t unknown[] = {0x1f, 0x01};
    static const char *const kinds[] = {"global", "input", "input", "output"};
    for (size_t map = 0; map < 4; map++) {
        /* A record of a type Core does not know, twice. */
        struct buf once;
        buf_init(&once);
        struct edit e = {map, -1, unknown, sizeof(unknown), val4, 1, 0};
        edit_psbt(&once, &v0, &e);
        snprintf(msg, sizeof(msg), "Duplicate Key, %s key \"1f01\" already provided", kinds[map]);
        check_edit(&once, &e, msg);
        buf_clear(&once);
    }
    static const char *const no_sep[] = {"the global map", "an input map", "an input map",
                                         "an output map"};
    for (size_t map = 0; map < 4; map++) {
        /* The map has a record (the creator's inputs and outputs have none), then the end. */
        struct edit e = {map, -1, unknown, sizeof(unknown), val4, 1, 1};
        snprintf(msg, sizeof(msg), "Separator is missing at the end of %s", no_sep[map]);
        check_edit(&v0, &e, msg);
    }
    buf_clear(&v0);
    buf_clear(&v2);
}

int main(void)
{
    TEST(test_vectors_valid);
    TEST(test_vectors_invalid);
    TEST(test_messages);
    TEST(test_creator);
    TEST(test_combiner);
    TEST(test_finalizer_extractor);
    TEST(test_signer);
    TEST(test_sign_single_key_types);
    TEST(test_sign_multisig);
    TEST(test_sign_errors);
    TEST(test_sign_taproot);
    TEST(test_bip341_keypath_vectors);
    TEST(test_psbt_flow);
    TEST(test_psbt_finalize_types);
    TEST(test_unknown_roundtrip);
    TEST(test_map_checks);
    return test_done();
}
