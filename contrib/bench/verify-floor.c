/* verify-floor: the time libsecp256k1 alone needs for a chain's signature checks.
 *
 *   contrib/bench/verify-floor --ecdsa N --schnorr N [--tweak N] [--cores C]
 *   contrib/bench/verify-floor --expect FILE.json [--cores C]
 *
 * FILE.json is what `bitnode-util genchain --expect` writes (its "ecdsa" and "schnorr"
 * counts, and its taproot script-path spends: one tweak check each). The program signs
 * 1,000 distinct messages with 1,000 keys of each kind, then, on one thread, cycling
 * through the set:
 *   1. the floor: N ECDSA verifies (secp256k1_ecdsa_verify on parsed compressed keys and
 *      signatures) and N Schnorr verifies (secp256k1_schnorrsig_verify on parsed x-only
 *      keys): the verify calls alone. It prints the time per verify of each kind, the
 *      single-thread total, and that total divided by the cores (default: online processors).
 *   2. the check floor: the same checks with every libsecp256k1 call a script check makes
 *      for them: an ECDSA check parses the compressed key and the DER signature and
 *      normalises S before the verify; a Schnorr check parses the x-only key; a taproot
 *      script-path spend also parses its internal key and checks the output key's tweak
 *      (secp256k1_xonly_pubkey_tweak_add_check). Printed the same way.
 * Built by make, never run by the tests; contrib/bench/import.sh runs it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

#include "crypto/hash.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/xmalloc.h"

#define SET 1000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct ecdsa_item {
    secp256k1_pubkey pk;
    secp256k1_ecdsa_signature sig;
    uint8_t msg[32];
    uint8_t pub33[33];
    uint8_t der[72];
    size_t der_len;
};

struct schnorr_item {
    secp256k1_xonly_pubkey pk;
    uint8_t sig[64];
    uint8_t msg[32];
    uint8_t xonly[32];
    /* a taproot output: this key tweaked by tweak gives out (with its Y parity) */
    uint8_t tweak[32];
    uint8_t out[32];
    int parity;
};

int main(int argc, char **argv)
{
    long long necdsa = -1, nschnorr = -1, ntweak = 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ecdsa") == 0 && i + 1 < argc) {
            necdsa = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--schnorr") == 0 && i + 1 < argc) {
            nschnorr = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--tweak") == 0 && i + 1 < argc) {
            ntweak = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--cores") == 0 && i + 1 < argc) {
            cores = atol(argv[++i]);
        } else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
            json_error_t err;
            json_t *j = json_load_file(argv[++i], 0, &err);
            if (!j) {
                fprintf(stderr, "verify-floor: cannot read %s: %s\n", argv[i], err.text);
                return 2;
            }
            necdsa = json_integer_value(json_object_get(j, "ecdsa"));
            nschnorr = json_integer_value(json_object_get(j, "schnorr"));
            ntweak = json_integer_value(
                json_object_get(json_object_get(j, "spends"), "p2tr-script"));
            json_decref(j);
        } else {
            fprintf(stderr, "usage: verify-floor (--ecdsa N --schnorr N [--tweak N] | --expect "
                            "FILE.json) [--cores C]\n");
            return 2;
        }
    }
    if (necdsa < 0 || nschnorr < 0 || ntweak < 0 || cores < 1) {
        fprintf(stderr, "verify-floor: give --ecdsa and --schnorr (or --expect)\n");
        return 2;
    }
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    struct ecdsa_item *ev = xcalloc(SET, sizeof(*ev));
    struct schnorr_item *sv = xcalloc(SET, sizeof(*sv));
    for (uint32_t i = 0; i < SET; i++) {
        uint8_t seed[8], sec[32];
        memcpy(seed, "floor", 5);
        seed[5] = (uint8_t)(i >> 16);
        seed[6] = (uint8_t)(i >> 8);
        seed[7] = (uint8_t)i;
        hash_sha256(sec, seed, sizeof(seed));
        CHECK_ALWAYS(secp256k1_ec_seckey_verify(ctx, sec));
        hash_sha256d(ev[i].msg, seed, sizeof(seed));
        memcpy(sv[i].msg, ev[i].msg, 32);
        CHECK_ALWAYS(secp256k1_ec_pubkey_create(ctx, &ev[i].pk, sec));
        CHECK_ALWAYS(secp256k1_ecdsa_sign(ctx, &ev[i].sig, ev[i].msg, sec, NULL, NULL));
        size_t len = 33;
        secp256k1_ec_pubkey_serialize(ctx, ev[i].pub33, &len, &ev[i].pk, SECP256K1_EC_COMPRESSED);
        ev[i].der_len = sizeof(ev[i].der);
        CHECK_ALWAYS(
            secp256k1_ecdsa_signature_serialize_der(ctx, ev[i].der, &ev[i].der_len, &ev[i].sig));
        secp256k1_keypair kp;
        CHECK_ALWAYS(secp256k1_keypair_create(ctx, &kp, sec));
        CHECK_ALWAYS(secp256k1_keypair_xonly_pub(ctx, &sv[i].pk, NULL, &kp));
        CHECK_ALWAYS(secp256k1_schnorrsig_sign32(ctx, sv[i].sig, sv[i].msg, &kp, NULL));
        CHECK_ALWAYS(secp256k1_xonly_pubkey_serialize(ctx, sv[i].xonly, &sv[i].pk));
        secp256k1_pubkey tweaked;
        secp256k1_xonly_pubkey tx;
        hash_sha256(sv[i].tweak, sv[i].msg, 32);
        CHECK_ALWAYS(secp256k1_xonly_pubkey_tweak_add(ctx, &tweaked, &sv[i].pk, sv[i].tweak));
        CHECK_ALWAYS(secp256k1_xonly_pubkey_from_pubkey(ctx, &tx, &sv[i].parity, &tweaked));
        CHECK_ALWAYS(secp256k1_xonly_pubkey_serialize(ctx, sv[i].out, &tx));
    }
    long long ok = 0;
    double t0 = now_s();
    for (long long n = 0; n < necdsa; n++) {
        const struct ecdsa_item *e = &ev[n % SET];
        ok += secp256k1_ecdsa_verify(ctx, &e->sig, e->msg, &e->pk);
    }
    double t1 = now_s();
    for (long long n = 0; n < nschnorr; n++) {
        const struct schnorr_item *s = &sv[n % SET];
        ok += secp256k1_schnorrsig_verify(ctx, s->sig, s->msg, 32, &s->pk);
    }
    double t2 = now_s();
    /* The check floor: every library call a script check makes. */
    for (long long n = 0; n < necdsa; n++) {
        const struct ecdsa_item *e = &ev[n % SET];
        secp256k1_pubkey pk;
        secp256k1_ecdsa_signature sig;
        ok += secp256k1_ec_pubkey_parse(ctx, &pk, e->pub33, 33) &&
              secp256k1_ecdsa_signature_parse_der(ctx, &sig, e->der, e->der_len) &&
              (secp256k1_ecdsa_signature_normalize(ctx, &sig, &sig), 1) &&
              secp256k1_ecdsa_verify(ctx, &sig, e->msg, &pk);
    }
    double t3 = now_s();
    for (long long n = 0; n < nschnorr; n++) {
        const struct schnorr_item *x = &sv[n % SET];
        secp256k1_xonly_pubkey pk;
        ok += secp256k1_xonly_pubkey_parse(ctx, &pk, x->xonly) &&
              secp256k1_schnorrsig_verify(ctx, x->sig, x->msg, 32, &pk);
    }
    double t4 = now_s();
    for (long long n = 0; n < ntweak; n++) {
        const struct schnorr_item *x = &sv[n % SET];
        secp256k1_xonly_pubkey internal;
        ok += secp256k1_xonly_pubkey_parse(ctx, &internal, x->xonly) &&
              secp256k1_xonly_pubkey_tweak_add_check(ctx, x->out, x->parity, &internal,
                                                     x->tweak);
    }
    double t5 = now_s();
    CHECK_ALWAYS(ok == 2 * (necdsa + nschnorr) + ntweak);
    double te = t1 - t0, ts = t2 - t1;
    printf("ecdsa: %lld verifies in %.3f s (%.1f us each)\n", necdsa, te,
           necdsa ? te / (double)necdsa * 1e6 : 0.0);
    printf("schnorr: %lld verifies in %.3f s (%.1f us each)\n", nschnorr, ts,
           nschnorr ? ts / (double)nschnorr * 1e6 : 0.0);
    printf("single-thread: %.3f s\n", te + ts);
    printf("floor: %.3f s on %ld cores\n", (te + ts) / (double)cores, cores);
    double ce = t3 - t2, cs = t4 - t3, ct = t5 - t4;
    printf("ecdsa check (key and DER parsing, normalise, verify): %.1f us each\n",
           necdsa ? ce / (double)necdsa * 1e6 : 0.0);
    printf("schnorr check (x-only key parsing, verify): %.1f us each\n",
           nschnorr ? cs / (double)nschnorr * 1e6 : 0.0);
    printf("tweak check: %lld in %.3f s (%.1f us each)\n", ntweak, ct,
           ntweak ? ct / (double)ntweak * 1e6 : 0.0);
    printf("check single-thread: %.3f s\n", ce + cs + ct);
    printf("check floor: %.3f s on %ld cores\n", (ce + cs + ct) / (double)cores, cores);
    free(ev);
    free(sv);
    secp256k1_context_destroy(ctx);
    return 0;
}
