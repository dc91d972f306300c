/* Miniscript decoded from P2WSH scripts (sign/miniscript.h) against Bitcoin Core's test
 * vectors (miniscript_vectors.h): the expression printed back, the type properties the
 * vectors state, the ops count and stack size; plus the three scripts of Core's
 * rpc_decodescript and scripts that are not miniscript. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "sign/miniscript.h"
#include "test.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"

#include "miniscript_vectors.h"

/* Every key named in the vectors, for pk_h()'s hashes (Core's test KeyConverter). */
static uint8_t known[256][33];
static size_t n_known;

static void learn_keys(const char *ms)
{
    for (const char *p = ms; *p; p++) {
        if ((p[0] == '0' && (p[1] == '2' || p[1] == '3')) && (p == ms || strchr("(,", p[-1]))) {
            char hex[67];
            memcpy(hex, p, 66);
            hex[66] = 0;
            if (n_known < 256 && strlen(hex) == 66 && hex_decode_fixed(known[n_known], 33, hex) == RC_OK) {
                n_known++;
            }
        }
    }
}

static int from_hash(void *arg, const uint8_t h20[20], uint8_t key33[33])
{
    (void)arg;
    for (size_t i = 0; i < n_known; i++) {
        uint8_t h[20];
        hash_hash160(h, known[i], 33);
        if (memcmp(h, h20, 20) == 0) {
            memcpy(key33, known[i], 33);
            return 0;
        }
    }
    return -1;
}

static const struct miniscript_keys KEYS = {.from_hash = from_hash};

/* Core's canonical form of a vector's expression: c:pk_k( is pk(, c:pk_h( is pkh( (after
 * other wrapper letters: ac:pk_k( is a:pk( ). */
static void canonical(char *out, const char *ms)
{
    size_t n = 0;
    const char *start = ms;
    while (*ms) {
        int pk = strncmp(ms, "c:pk_k(", 7) == 0, pkh = strncmp(ms, "c:pk_h(", 7) == 0;
        if (pk || pkh) {
            int lone = ms == start || ms[-1] == '(' || ms[-1] == ',';
            const char *rep = pk ? (lone ? "pk(" : ":pk(") : (lone ? "pkh(" : ":pkh(");
            memcpy(out + n, rep, strlen(rep));
            n += strlen(rep);
            ms += 7;
        } else {
            out[n++] = *ms++;
        }
    }
    out[n] = 0;
}

/* Vectors whose script decodes to another expression of the same script: Core's decoder puts
 * c: on the last element of an and_v (c:and_v(X,pk_k(K)) and and_v(X,c:pk_k(K)) are one
 * script), as its roundtrip test accepts. */
static const char *const same_script[][2] = {
    {"c:and_v(or_c(sha256(", "and_v(or_c(sha256("},
    {"c:and_v(or_c(multi(2,", "and_v(or_c(multi(2,"},
    {"or_i(c:and_v(v:after(500000),", "or_i(and_v(v:after(500000),"},
    {"uc:and_v(v:older(144),", "u:and_v(v:older(144),"},
};

static void decoder_form(char *s)
{
    for (size_t i = 0; i < sizeof(same_script) / sizeof(same_script[0]); i++) {
        char *p = strstr(s, same_script[i][0]);
        if (p) {
            size_t a = strlen(same_script[i][0]), b = strlen(same_script[i][1]);
            memmove(p + b, p + a, strlen(p + a) + 1);
            memcpy(p, same_script[i][1], b);
            char *k = strstr(p, ",pk_k("); /* the c: moves onto it */
            if (k) {
                memmove(k + 3, k + 1, strlen(k + 1) + 1);
                memcpy(k + 1, "c:", 2);
            }
        }
    }
}

static struct miniscript *decode(const char *hex)
{
    struct buf b;
    buf_init(&b);
    struct miniscript *m = NULL;
    if (hex_decode(&b, hex) == RC_OK) {
        (void)miniscript_from_script(&m, b.data, b.len, &KEYS);
    }
    buf_clear(&b);
    return m;
}

static void test_core_vectors(void)
{
    for (size_t i = 0; i < sizeof(ms_vectors) / sizeof(ms_vectors[0]); i++) {
        learn_keys(ms_vectors[i].ms);
    }
    for (size_t i = 0; i < sizeof(ms_vectors) / sizeof(ms_vectors[0]); i++) {
        const struct ms_vector *v = &ms_vectors[i];
        struct miniscript *m = decode(v->script_hex);
        if (!m) {
            printf("# not decoded: %s\n", v->ms);
            CHECK(0);
            continue;
        }
        struct buf out;
        buf_init(&out);
        miniscript_to_string(m, &out, &KEYS);
        buf_put_u8(&out, 0);
        char *raw = malloc(strlen(v->ms) + 8), *want = malloc(strlen(v->ms) + 8);
        strcpy(raw, v->ms);
        decoder_form(raw);
        canonical(want, raw);
        free(raw);
        if (strcmp((char *)out.data, want) != 0) {
            printf("# %s printed as %s\n", want, (char *)out.data);
            CHECK(0);
        }
        char type[20];
        miniscript_type(m, type);
        CHECK(strchr(type, 'B') != NULL);
        if ((strchr(type, 'm') != NULL) != !!(v->flags & MS_NONMAL) ||
            (strchr(type, 's') != NULL) != !!(v->flags & MS_NEEDSIG) ||
            (strchr(type, 'k') == NULL) != !!(v->flags & MS_TIMELOCKMIX)) {
            printf("# %s: type %s, flags %d\n", v->ms, type, v->flags);
            CHECK(0);
        }
        int ops, stack;
        miniscript_limits(m, &ops, &stack);
        if ((v->ops >= 0 && ops != v->ops) || (v->stack >= 0 && stack != v->stack)) {
            printf("# %s: ops %d stack %d, want %d %d\n", v->ms, ops, stack, v->ops, v->stack);
            CHECK(0);
        }
        free(want);
        buf_clear(&out);
        miniscript_free(m);
    }
}

/* Core's rpc_decodescript: two miniscripts (one over the 520-byte P2SH limit) and an HTLC
 * that is not one. */
static void test_decodescript_cases(void)
{
    struct miniscript *m = decode("82012088a914ffffffffffffffffffffffffffffffffffffffff882102"
                                  "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"
                                  "ad51b2");
    CHECK(m != NULL && miniscript_is_sane(m));
    if (m) {
        struct buf out;
        buf_init(&out);
        miniscript_to_string(m, &out, NULL);
        buf_put_u8(&out, 0);
        CHECK_EQ_STR((char *)out.data,
                     "and_v(and_v(v:hash160(ffffffffffffffffffffffffffffffffffffffff),v:pk("
                     "0250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0)),"
                     "older(1))");
        buf_clear(&out);
    }
    miniscript_free(m);
    m = decode("82012088a914ffffffffffffffffffffffffffffffffffffffff882102ffffffffffffffffffff"
               "ffffffffffffffffffffffffffffffffffffffffffffacb2");
    CHECK(m == NULL);
    miniscript_free(m);
}

/* Not miniscript, or not sane. */
static void test_rejected(void)
{
    CHECK(decode("") == NULL);
    struct miniscript *m = decode("51"); /* "1": valid, but not sane (no signature) */
    CHECK(m && !miniscript_is_sane(m));
    miniscript_free(m);
    CHECK(decode("4c0151") == NULL); /* non-minimal push */
    CHECK(decode("ac") == NULL);
    m = decode("00"); /* "0": sane (Core's wsh(0)) */
    CHECK(m && miniscript_is_sane(m));
    miniscript_free(m);
    /* pk_h of a key nobody knows: not miniscript. */
    size_t saved = n_known;
    n_known = 0;
    CHECK(decode("76a914fcd35ddacad9f2d5be5e464639441c6065e6955d88ac") == NULL);
    n_known = saved;
}

/* Bad input is a verdict, never a crash: every vector's script cut short and with each byte
 * changed decodes or not, and what decodes prints. */
static void test_mutations(void)
{
    size_t decoded = 0, tried = 0;
    for (size_t i = 0; i < sizeof(ms_vectors) / sizeof(ms_vectors[0]); i++) {
        struct buf b;
        buf_init(&b);
        CHECK(hex_decode(&b, ms_vectors[i].script_hex) == RC_OK);
        for (size_t pos = 0; pos < b.len; pos++) {
            for (int variant = 0; variant < 3; variant++) {
                uint8_t *c = malloc(b.len);
                memcpy(c, b.data, b.len);
                size_t len = b.len;
                if (variant == 0) {
                    len = pos; /* truncated */
                } else {
                    c[pos] = (uint8_t)(variant == 1 ? c[pos] ^ 0x01 : 0x69 + (uint8_t)pos);
                }
                struct miniscript *m = NULL;
                tried++;
                if (miniscript_from_script(&m, c, len, &KEYS) == 0) {
                    struct buf out;
                    buf_init(&out);
                    miniscript_to_string(m, &out, &KEYS);
                    (void)miniscript_is_sane(m);
                    decoded += out.len > 0;
                    buf_clear(&out);
                }
                miniscript_free(m);
                free(c);
            }
        }
        buf_clear(&b);
    }
    CHECK(tried > 1000 && decoded > 0);
}

int main(void)
{
    TEST(test_core_vectors);
    TEST(test_decodescript_cases);
    TEST(test_rejected);
    TEST(test_mutations);
    return test_done();
}
