/* Script interpreter and signature hash tests against Bitcoin Core's vectors:
 * script_tests.json, tx_valid.json, tx_invalid.json, sighash.json and
 * bip341_wallet_vectors.json (all read from ../shared/vectors), plus unit cases for
 * CScriptNum, the asm notation, the lax DER parser, sigops and the signature cache.
 *
 * Every vector is one TAP line; per file a "# file: N passed, N failed" diagnostic.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

#include "consensus/amount.h"
#include "consensus/params.h"
#include "consensus/tx_check.h"
#include "consensus/vstate.h"
#include "crypto/hash.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "script/block_verify.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_asm.h"
#include "script/script_error.h"
#include "script/sigcache.h"
#include "script/sigcheck.h"
#include "script/sighash.h"
#include "script/sigops.h"
#include "script/solver.h"
#include "test.h"
#include "util/file.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* ---- helpers --------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* Deterministic xorshift64*: the property checks are reproducible run to run. */
static uint32_t rand_bits(int bits)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t v = rng_state * 0x2545f4914f6cdd1dull;
    return (uint32_t)(v >> 32) & (uint32_t)((1ull << bits) - 1);
}

static json_t *load_vectors(const char *name)
{
    char path[4096];
    json_error_t jerr;
    snprintf(path, sizeof(path), "%s/vectors/%s", test_shared_dir(), name);
    json_t *j = json_load_file(path, 0, &jerr);
    if (!j) {
        printf("# cannot load %s: %s (line %d)\n", path, jerr.text, jerr.line);
    }
    return j;
}

static void bytes_set(struct bytes *b, const uint8_t *p, size_t n)
{
    b->len = n;
    b->data = n ? xmemdup(p, n) : NULL;
}

static int parse_asm(struct buf *out, const char *text)
{
    char err[160];
    int rc = script_asm_parse(out, text, err, sizeof(err));
    if (rc != 0) {
        printf("# %s\n", err);
    }
    return rc;
}

/* Core's FillFlags / TrimFlags: the flag combinations VerifyScript accepts. */
static uint32_t fill_flags(uint32_t f)
{
    if (f & SCRIPT_VERIFY_CLEANSTACK) {
        f |= SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS;
    }
    if (f & SCRIPT_VERIFY_WITNESS) {
        f |= SCRIPT_VERIFY_P2SH;
    }
    return f;
}

static uint32_t trim_flags(uint32_t f)
{
    if (!(f & SCRIPT_VERIFY_P2SH)) {
        f &= ~(uint32_t)SCRIPT_VERIFY_WITNESS;
    }
    if (!(f & SCRIPT_VERIFY_WITNESS)) {
        f &= ~(uint32_t)SCRIPT_VERIFY_CLEANSTACK;
    }
    return f;
}

#define NUM_FLAGS 21

/* Core's CheckTransaction, through the consensus layer. Returns 1 if tx passes; *reason
 * points at a static copy of the reject reason otherwise. */
static int check_transaction(const struct tx *tx, const char **reason)
{
    static char why[VSTATE_REJECT_LEN];
    struct vstate st;
    vstate_init(&st);
    int rc = consensus_check_tx(&st, tx);
    snprintf(why, sizeof(why), "%s", st.reject);
    *reason = why;
    return rc == 0 && st.mode == VSTATE_VALID;
}

/* ---- script_tests.json ----------------------------------------------------------- */

/* BIP341's NUMS point H, Core's XOnlyPubKey::NUMS_H. */
static const char *NUMS_H = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0";

struct script_case {
    struct buf sig, spk;
    struct bytes *wit;
    size_t wit_count;
    int64_t amount;
    uint32_t flags;
    enum script_error expected;
};

/* Builds Core's crediting and spending transactions and verifies. */
static int run_script_case(const struct script_case *c, uint32_t flags, enum script_error *err)
{
    struct tx credit, spend;
    tx_init(&credit);
    tx_init(&spend);
    credit.version = 1;
    credit.vin_count = 1;
    credit.vin = xcalloc(1, sizeof(struct tx_in));
    memset(credit.vin[0].prevout.txid, 0, 32);
    credit.vin[0].prevout.n = 0xffffffffu;
    static const uint8_t zero_zero[2] = {0, 0};
    bytes_set(&credit.vin[0].script_sig, zero_zero, 2);
    credit.vin[0].sequence = SEQUENCE_FINAL;
    credit.vout_count = 1;
    credit.vout = xcalloc(1, sizeof(struct tx_out));
    credit.vout[0].value_sat = c->amount;
    bytes_set(&credit.vout[0].script_pubkey, c->spk.data, c->spk.len);
    tx_compute_hashes(&credit);

    spend.version = 1;
    spend.vin_count = 1;
    spend.vin = xcalloc(1, sizeof(struct tx_in));
    memcpy(spend.vin[0].prevout.txid, credit.txid, 32);
    spend.vin[0].prevout.n = 0;
    bytes_set(&spend.vin[0].script_sig, c->sig.data, c->sig.len);
    spend.vin[0].sequence = SEQUENCE_FINAL;
    if (c->wit_count) {
        spend.vin[0].witness_count = c->wit_count;
        spend.vin[0].witness = xcalloc(c->wit_count, sizeof(struct bytes));
        for (size_t i = 0; i < c->wit_count; i++) {
            bytes_set(&spend.vin[0].witness[i], c->wit[i].data, c->wit[i].len);
        }
    }
    spend.vout_count = 1;
    spend.vout = xcalloc(1, sizeof(struct tx_out));
    spend.vout[0].value_sat = c->amount;
    tx_compute_hashes(&spend);

    struct tx_precomputed pd;
    sighash_precompute(&pd, &spend, credit.vout, 1);
    int ok = script_verify_input(&spend, 0, &credit.vout[0], &pd, flags, NULL, 0, err);
    tx_clear(&credit);
    tx_clear(&spend);
    return ok;
}

/* Fills the tapscript placeholders the way Core's script_tests.cpp does: #SCRIPT# is a
 * witness element in asm notation, #CONTROLBLOCK# spends it as the only leaf under the
 * NUMS internal key, #TAPROOTOUTPUT# is that output key. */
static int parse_witness(struct script_case *c, json_t *arr, char *taproot_output_hex)
{
    size_t n = json_array_size(arr);
    c->wit_count = n - 1;
    c->wit = xcalloc(n, sizeof(struct bytes));
    taproot_output_hex[0] = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        struct buf b;
        buf_init(&b);
        if (!s) {
            return -1;
        }
        if (strncmp(s, "#SCRIPT#", 8) == 0) {
            if (parse_asm(&b, s + 8) != 0) {
                return -1;
            }
        } else if (strcmp(s, "#CONTROLBLOCK#") == 0) {
            if (i == 0) {
                return -1;
            }
            uint8_t internal[32], leaf[32], out[32];
            int parity;
            hex_decode_fixed(internal, 32, NUMS_H);
            script_tapleaf_hash(leaf, TAPROOT_LEAF_TAPSCRIPT, c->wit[i - 1].data,
                                c->wit[i - 1].len);
            if (!script_taproot_tweak(out, &parity, internal, leaf)) {
                return -1;
            }
            buf_put_u8(&b, (uint8_t)(TAPROOT_LEAF_TAPSCRIPT | parity));
            buf_append(&b, internal, 32);
            hex_encode(taproot_output_hex, out, 32);
        } else if (hex_decode(&b, s) != 0) {
            return -1;
        }
        c->wit[i].len = b.len;
        c->wit[i].data = b.data; /* ownership passes */
    }
    c->amount = llround(json_number_value(json_array_get(arr, n - 1)) * 1e8);
    return 0;
}

static void script_case_clear(struct script_case *c)
{
    buf_clear(&c->sig);
    buf_clear(&c->spk);
    for (size_t i = 0; i < c->wit_count; i++) {
        free(c->wit[i].data);
    }
    free(c->wit);
}

static void test_script_vectors(void)
{
    json_t *all = load_vectors("script_tests.json");
    int passed = 0, failed = 0;
    if (!all) {
        test_report(0, "script_tests.json: load");
        return;
    }
    for (size_t idx = 0; idx < json_array_size(all); idx++) {
        json_t *t = json_array_get(all, idx);
        size_t pos = 0;
        if (json_array_size(t) > 0 && json_is_array(json_array_get(t, 0))) {
            pos = 1;
        }
        if (json_array_size(t) < 4 + pos) {
            if (json_array_size(t) != 1) {
                test_report(0, "script_tests.json #%zu: malformed entry", idx);
                failed++;
            }
            continue; /* a comment */
        }
        struct script_case c;
        memset(&c, 0, sizeof(c));
        buf_init(&c.sig);
        buf_init(&c.spk);
        char tap_hex[65];
        tap_hex[0] = 0;
        int ok = 1;
        const char *sig_s = json_string_value(json_array_get(t, pos));
        const char *spk_s = json_string_value(json_array_get(t, pos + 1));
        const char *flags_s = json_string_value(json_array_get(t, pos + 2));
        const char *exp_s = json_string_value(json_array_get(t, pos + 3));
        const char *comment = json_string_value(json_array_get(t, pos + 4));
        if (pos && parse_witness(&c, json_array_get(t, 0), tap_hex) != 0) {
            ok = 0;
        }
        if (ok && (!sig_s || !spk_s || !flags_s || !exp_s)) {
            ok = 0;
        }
        if (ok && parse_asm(&c.sig, sig_s) != 0) {
            ok = 0;
        }
        if (ok) {
            /* Substitute #TAPROOTOUTPUT#. */
            const char *ph = strstr(spk_s, "#TAPROOTOUTPUT#");
            struct buf text;
            buf_init(&text);
            if (ph) {
                buf_append(&text, spk_s, (size_t)(ph - spk_s));
                buf_append(&text, "0x", 2);
                buf_append(&text, tap_hex, strlen(tap_hex));
                buf_append(&text, ph + 15, strlen(ph + 15) + 1);
            } else {
                buf_append(&text, spk_s, strlen(spk_s) + 1);
            }
            if (parse_asm(&c.spk, (const char *)text.data) != 0) {
                ok = 0;
            }
            buf_clear(&text);
        }
        if (ok && (script_flags_parse(&c.flags, flags_s) != 0 ||
                   script_error_parse(&c.expected, exp_s) != 0)) {
            printf("# bad flags or error name: %s / %s\n", flags_s, exp_s);
            ok = 0;
        }
        enum script_error err = SCRIPT_ERR_UNKNOWN_ERROR;
        if (ok) {
            uint32_t flags = c.flags;
            if (flags & SCRIPT_VERIFY_CLEANSTACK) {
                flags |= SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS;
            }
            int expect = c.expected == SCRIPT_ERR_OK;
            int res = run_script_case(&c, flags, &err);
            if (res != expect || err != c.expected) {
                printf("# script_tests #%zu: got %s, expected %s\n", idx, script_error_name(err),
                       exp_s);
                ok = 0;
            }
            /* Removing flags from a passing case or adding flags to a failing one must not
             * change the verdict (Core's DoTest). */
            for (int k = 0; ok && k < 16; k++) {
                uint32_t extra = rand_bits(16);
                uint32_t comb = expect ? (flags & ~extra) : (flags | extra);
                if ((comb & SCRIPT_VERIFY_CLEANSTACK) &&
                    (~comb & (SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS))) {
                    continue;
                }
                if ((comb & SCRIPT_VERIFY_WITNESS) && (~comb & SCRIPT_VERIFY_P2SH)) {
                    continue;
                }
                enum script_error e2;
                if (run_script_case(&c, comb, &e2) != expect) {
                    printf("# script_tests #%zu: verdict changed with flags %x (%s)\n", idx, comb,
                           script_error_name(e2));
                    ok = 0;
                }
            }
        }
        test_report(ok, "script_tests.json #%zu [%s] [%s] %s -> %s%s%s", idx, sig_s ? sig_s : "?",
                    spk_s ? spk_s : "?", flags_s ? flags_s : "?", exp_s ? exp_s : "?",
                    comment ? " # " : "", comment ? comment : "");
        if (ok) {
            passed++;
        } else {
            failed++;
        }
        script_case_clear(&c);
    }
    printf("# script_tests.json: %d passed, %d failed\n", passed, failed);
    json_decref(all);
}

/* ---- tx_valid.json / tx_invalid.json --------------------------------------------- */

struct prevout_map {
    struct outpoint *op;
    struct tx_out *out;
    size_t n;
};

static void prevout_map_clear(struct prevout_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->out[i].script_pubkey.data);
    }
    free(m->op);
    free(m->out);
}

static int prevout_map_load(struct prevout_map *m, json_t *inputs)
{
    memset(m, 0, sizeof(*m));
    size_t n = json_array_size(inputs);
    m->op = xcalloc(n + 1, sizeof(struct outpoint));
    m->out = xcalloc(n + 1, sizeof(struct tx_out));
    for (size_t i = 0; i < n; i++) {
        json_t *in = json_array_get(inputs, i);
        size_t k = json_array_size(in);
        if (k < 3 || k > 4) {
            return -1;
        }
        const char *txid = json_string_value(json_array_get(in, 0));
        const char *spk = json_string_value(json_array_get(in, 2));
        if (!txid || !spk || hex_decode_hash32_rev(m->op[i].txid, txid) != 0) {
            return -1;
        }
        m->op[i].n = (uint32_t)json_integer_value(json_array_get(in, 1));
        struct buf b;
        buf_init(&b);
        if (parse_asm(&b, spk) != 0) {
            buf_clear(&b);
            return -1;
        }
        m->out[i].script_pubkey.data = b.data; /* ownership passes */
        m->out[i].script_pubkey.len = b.len;
        m->out[i].value_sat = k == 4 ? (int64_t)json_integer_value(json_array_get(in, 3)) : 0;
        m->n++;
    }
    return 0;
}

static const struct tx_out *prevout_find(const struct prevout_map *m, const struct outpoint *o)
{
    for (size_t i = 0; i < m->n; i++) {
        if (memcmp(m->op[i].txid, o->txid, 32) == 0 && m->op[i].n == o->n) {
            return &m->out[i];
        }
    }
    return NULL;
}

/* Core's CheckTxScripts: returns 1 if the verdict equals expect_valid. */
static int check_tx_scripts(const struct tx *tx, const struct tx_out *spent,
                            const struct tx_precomputed *pd, uint32_t flags, int expect_valid,
                            enum script_error *err_out)
{
    int valid = 1;
    enum script_error err = SCRIPT_ERR_OK;
    for (size_t i = 0; i < tx->vin_count && valid; i++) {
        valid = script_verify_input(tx, i, &spent[i], pd, flags, NULL, 0, &err);
    }
    if (err_out) {
        *err_out = err;
    }
    return valid == expect_valid;
}

static void test_tx_vectors(const char *file, int expect_valid)
{
    json_t *all = load_vectors(file);
    int passed = 0, failed = 0;
    if (!all) {
        test_report(0, "%s: load", file);
        return;
    }
    for (size_t idx = 0; idx < json_array_size(all); idx++) {
        json_t *t = json_array_get(all, idx);
        if (!json_is_array(json_array_get(t, 0))) {
            continue; /* a comment */
        }
        int ok = 1;
        struct prevout_map m;
        struct tx tx;
        tx_init(&tx);
        struct tx_out *spent = NULL;
        const char *hex = json_string_value(json_array_get(t, 1));
        const char *flags_s = json_string_value(json_array_get(t, 2));
        char why[256] = "";
        if (json_array_size(t) != 3 || !hex || !flags_s ||
            prevout_map_load(&m, json_array_get(t, 0)) != 0) {
            snprintf(why, sizeof(why), "bad test");
            ok = 0;
            prevout_map_clear(&m);
            goto report;
        }
        struct buf raw;
        buf_init(&raw);
        char perr[200];
        if (hex_decode(&raw, hex) != 0 ||
            tx_deserialize(&tx, raw.data, raw.len, perr, sizeof(perr)) != 0) {
            snprintf(why, sizeof(why), "tx does not parse: %s", perr);
            ok = 0;
            buf_clear(&raw);
            prevout_map_clear(&m);
            goto report;
        }
        buf_clear(&raw);

        const char *reason = "";
        int ctx_ok = check_transaction(&tx, &reason);
        if (!expect_valid && strcmp(flags_s, "BADTX") == 0) {
            if (ctx_ok) {
                snprintf(why, sizeof(why), "BADTX passes CheckTransaction");
                ok = 0;
            } else {
                snprintf(why, sizeof(why), "CheckTransaction: %s", reason);
            }
            prevout_map_clear(&m);
            goto report;
        }
        if (!ctx_ok) {
            snprintf(why, sizeof(why), "fails CheckTransaction (%s)", reason);
            ok = 0;
            prevout_map_clear(&m);
            goto report;
        }
        spent = xcalloc(tx.vin_count, sizeof(struct tx_out));
        for (size_t i = 0; i < tx.vin_count; i++) {
            const struct tx_out *o = prevout_find(&m, &tx.vin[i].prevout);
            if (!o) {
                snprintf(why, sizeof(why), "input %zu has no prevout", i);
                ok = 0;
                break;
            }
            spent[i] = *o; /* borrowed */
        }
        uint32_t vflags;
        if (ok && script_flags_parse(&vflags, flags_s) != 0) {
            snprintf(why, sizeof(why), "unknown flag in %s", flags_s);
            ok = 0;
        }
        if (ok) {
            struct tx_precomputed pd;
            enum script_error err;
            sighash_precompute(&pd, &tx, spent, tx.vin_count);
            if (expect_valid) {
                /* The listed flags are excluded; everything else is on. */
                if (~vflags != fill_flags(~vflags)) {
                    snprintf(why, sizeof(why), "bad test flags");
                    ok = 0;
                }
                if (ok && !check_tx_scripts(&tx, spent, &pd, ~vflags, 1, &err)) {
                    snprintf(why, sizeof(why), "invalid (%s)", script_error_name(err));
                    ok = 0;
                }
                for (unsigned b = 0; ok && b < NUM_FLAGS; b++) {
                    uint32_t f = trim_flags(~(vflags | (1u << b)));
                    if (!check_tx_scripts(&tx, spent, &pd, f, 1, &err)) {
                        snprintf(why, sizeof(why), "invalid with %s unset (%s)",
                                 script_flag_name(1u << b), script_error_name(err));
                        ok = 0;
                    }
                    f = trim_flags(~(vflags | rand_bits(NUM_FLAGS)));
                    if (ok && !check_tx_scripts(&tx, spent, &pd, f, 1, &err)) {
                        snprintf(why, sizeof(why), "invalid with flags %x (%s)", f,
                                 script_error_name(err));
                        ok = 0;
                    }
                }
                /* Maximality: setting any excluded flag again makes it fail. */
                for (unsigned b = 0; ok && b < NUM_FLAGS; b++) {
                    uint32_t ex = trim_flags(vflags & ~(1u << b));
                    if (ex == vflags) {
                        continue;
                    }
                    if (!check_tx_scripts(&tx, spent, &pd, ~ex, 0, &err)) {
                        snprintf(why, sizeof(why), "still valid with %s set",
                                 script_flag_name(1u << b));
                        ok = 0;
                    }
                }
            } else {
                if (vflags != fill_flags(vflags)) {
                    snprintf(why, sizeof(why), "bad test flags");
                    ok = 0;
                }
                if (ok && !check_tx_scripts(&tx, spent, &pd, vflags, 0, &err)) {
                    snprintf(why, sizeof(why), "valid with its flags");
                    ok = 0;
                }
                if (ok) {
                    snprintf(why, sizeof(why), "%s", script_error_name(err));
                }
                for (unsigned b = 0; ok && b < NUM_FLAGS; b++) {
                    uint32_t f = fill_flags(vflags | (1u << b));
                    if (!check_tx_scripts(&tx, spent, &pd, f, 0, NULL)) {
                        snprintf(why, sizeof(why), "valid with %s added",
                                 script_flag_name(1u << b));
                        ok = 0;
                    }
                    f = fill_flags(vflags | rand_bits(NUM_FLAGS));
                    if (ok && !check_tx_scripts(&tx, spent, &pd, f, 0, NULL)) {
                        snprintf(why, sizeof(why), "valid with flags %x", f);
                        ok = 0;
                    }
                }
                /* Minimality: removing any listed flag makes it pass (fails for the
                 * reason the flags name). */
                for (unsigned b = 0; ok && b < NUM_FLAGS; b++) {
                    uint32_t ex = trim_flags(vflags & ~(1u << b));
                    if (ex == vflags) {
                        continue;
                    }
                    if (!check_tx_scripts(&tx, spent, &pd, ex, 1, &err)) {
                        snprintf(why, sizeof(why), "still invalid with %s unset (%s)",
                                 script_flag_name(1u << b), script_error_name(err));
                        ok = 0;
                    }
                }
            }
        }
        prevout_map_clear(&m);
    report:
        test_report(ok, "%s #%zu [%s] %s", file, idx, flags_s ? flags_s : "?", why);
        if (ok) {
            passed++;
        } else {
            failed++;
        }
        free(spent);
        tx_clear(&tx);
    }
    printf("# %s: %d passed, %d failed\n", file, passed, failed);
    json_decref(all);
}

/* ---- sighash.json ---------------------------------------------------------------- */

static void test_sighash_vectors(void)
{
    json_t *all = load_vectors("sighash.json");
    int passed = 0, failed = 0;
    if (!all) {
        test_report(0, "sighash.json: load");
        return;
    }
    for (size_t idx = 0; idx < json_array_size(all); idx++) {
        json_t *t = json_array_get(all, idx);
        if (json_array_size(t) == 1) {
            continue; /* a comment */
        }
        int ok = 1;
        const char *txhex = json_string_value(json_array_get(t, 0));
        const char *scripthex = json_string_value(json_array_get(t, 1));
        json_int_t in_idx = json_integer_value(json_array_get(t, 2));
        json_int_t ht = json_integer_value(json_array_get(t, 3));
        const char *exp = json_string_value(json_array_get(t, 4));
        struct buf raw, script;
        struct tx tx;
        buf_init(&raw);
        buf_init(&script);
        tx_init(&tx);
        char perr[200] = "";
        char got[65] = "";
        if (json_array_size(t) != 5 || !txhex || !scripthex || !exp ||
            hex_decode(&raw, txhex) != 0 || hex_decode(&script, scripthex) != 0 ||
            tx_deserialize(&tx, raw.data, raw.len, perr, sizeof(perr)) != 0) {
            ok = 0;
            printf("# sighash #%zu: bad test %s\n", idx, perr);
        } else {
            const char *reason;
            uint8_t h[32];
            CHECK(check_transaction(&tx, &reason));
            sighash_legacy(h, script.data, script.len, &tx, (size_t)in_idx, (int32_t)ht);
            hex_encode_rev(got, h, 32);
            if (strcmp(got, exp) != 0) {
                ok = 0;
                printf("# sighash #%zu: got %s expected %s\n", idx, got, exp);
            }
        }
        test_report(ok, "sighash.json #%zu in=%lld type=%lld %s", idx, (long long)in_idx,
                    (long long)ht, exp ? exp : "?");
        if (ok) {
            passed++;
        } else {
            failed++;
        }
        buf_clear(&raw);
        buf_clear(&script);
        tx_clear(&tx);
    }
    printf("# sighash.json: %d passed, %d failed\n", passed, failed);
    json_decref(all);
}

/* ---- bip341_wallet_vectors.json -------------------------------------------------- */

static int hex_eq(const uint8_t *p, size_t n, const char *hex)
{
    char buf[200];
    if (!hex || n * 2 + 1 > sizeof(buf)) {
        return 0;
    }
    hex_encode(buf, p, n);
    if (strcmp(buf, hex) != 0) {
        printf("#   got %s expected %s\n", buf, hex);
        return 0;
    }
    return 1;
}

/* Computes the merkle root of a BIP341 script tree (a leaf object or a 2-array), recording
 * each leaf hash by id in leaves. Returns 0 on success. */
static uint8_t leaf_versions[16];

static int tree_root(json_t *node, uint8_t out[32], uint8_t (*leaves)[32], size_t max_leaves)
{
    if (json_is_array(node)) {
        uint8_t a[32], b[32];
        if (json_array_size(node) != 2 ||
            tree_root(json_array_get(node, 0), a, leaves, max_leaves) != 0 ||
            tree_root(json_array_get(node, 1), b, leaves, max_leaves) != 0) {
            return -1;
        }
        script_tapbranch_hash(out, a, b);
        return 0;
    }
    json_int_t id = json_integer_value(json_object_get(node, "id"));
    const char *script = json_string_value(json_object_get(node, "script"));
    json_int_t ver = json_integer_value(json_object_get(node, "leafVersion"));
    struct buf s;
    buf_init(&s);
    if (!script || hex_decode(&s, script) != 0 || id < 0 || (size_t)id >= max_leaves) {
        buf_clear(&s);
        return -1;
    }
    script_tapleaf_hash(out, (uint8_t)ver, s.data, s.len);
    memcpy(leaves[id], out, 32);
    leaf_versions[id] = (uint8_t)ver;
    buf_clear(&s);
    return 0;
}

static int bip341_spk_case(json_t *c)
{
    json_t *given = json_object_get(c, "given");
    json_t *inter = json_object_get(c, "intermediary");
    json_t *exp = json_object_get(c, "expected");
    uint8_t internal[32], root[32], out[32], leaves[16][32];
    int parity, ok = 1;
    const char *ik = json_string_value(json_object_get(given, "internalPubkey"));
    json_t *tree = json_object_get(given, "scriptTree");
    if (!ik || hex_decode_fixed(internal, 32, ik) != 0) {
        return 0;
    }
    int has_tree = tree && !json_is_null(tree);
    if (has_tree) {
        if (tree_root(tree, root, leaves, 16) != 0) {
            return 0;
        }
        ok &= hex_eq(root, 32, json_string_value(json_object_get(inter, "merkleRoot")));
        json_t *lh = json_object_get(inter, "leafHashes");
        for (size_t i = 0; i < json_array_size(lh); i++) {
            ok &= hex_eq(leaves[i], 32, json_string_value(json_array_get(lh, i)));
        }
    }
    /* The tweak itself: TapTweak(internal || root). */
    uint8_t tweak[32];
    struct hash_sha256_ctx h;
    hash_tagged_init(&h, "TapTweak");
    hash_sha256_write(&h, internal, 32);
    if (has_tree) {
        hash_sha256_write(&h, root, 32);
    }
    hash_sha256_final(&h, tweak);
    ok &= hex_eq(tweak, 32, json_string_value(json_object_get(inter, "tweak")));
    if (!script_taproot_tweak(out, &parity, internal, has_tree ? root : NULL)) {
        return 0;
    }
    ok &= hex_eq(out, 32, json_string_value(json_object_get(inter, "tweakedPubkey")));
    ok &= script_taproot_check_tweak(out, parity, internal, has_tree ? root : NULL);
    uint8_t spk[34];
    spk[0] = OP_1;
    spk[1] = 32;
    memcpy(spk + 2, out, 32);
    ok &= hex_eq(spk, 34, json_string_value(json_object_get(exp, "scriptPubKey")));
    /* Control blocks: each must verify as a spend of its leaf under this output. */
    json_t *cbs = json_object_get(exp, "scriptPathControlBlocks");
    for (size_t i = 0; i < json_array_size(cbs); i++) {
        struct buf cb;
        buf_init(&cb);
        if (hex_decode(&cb, json_string_value(json_array_get(cbs, i))) != 0 || cb.len < 33 ||
            cb.data[0] != (leaf_versions[i] | parity) || memcmp(cb.data + 1, internal, 32) != 0) {
            ok = 0;
        } else {
            uint8_t r2[32];
            script_taproot_merkle_root(r2, cb.data, cb.len, leaves[i]);
            ok &= script_taproot_check_tweak(out, cb.data[0] & 1, internal, r2);
        }
        buf_clear(&cb);
    }
    return ok;
}

static void test_bip341_vectors(void)
{
    json_t *all = load_vectors("bip341_wallet_vectors.json");
    int passed = 0, failed = 0;
    if (!all) {
        test_report(0, "bip341_wallet_vectors.json: load");
        return;
    }
    json_t *spks = json_object_get(all, "scriptPubKey");
    for (size_t i = 0; i < json_array_size(spks); i++) {
        int ok = bip341_spk_case(json_array_get(spks, i));
        test_report(ok, "bip341_wallet_vectors.json scriptPubKey #%zu", i);
        ok ? passed++ : failed++;
    }

    json_t *kps = json_object_get(all, "keyPathSpending");
    const secp256k1_context *ctx = script_secp_ctx();
    for (size_t k = 0; k < json_array_size(kps); k++) {
        json_t *c = json_array_get(kps, k);
        json_t *given = json_object_get(c, "given");
        json_t *inter = json_object_get(c, "intermediary");
        struct tx tx;
        struct buf raw;
        tx_init(&tx);
        buf_init(&raw);
        int ok = 1;
        char perr[200] = "";
        if (hex_decode(&raw, json_string_value(json_object_get(given, "rawUnsignedTx"))) != 0 ||
            tx_deserialize(&tx, raw.data, raw.len, perr, sizeof(perr)) != 0) {
            test_report(0, "bip341_wallet_vectors.json keyPathSpending #%zu: tx %s", k, perr);
            failed++;
            buf_clear(&raw);
            continue;
        }
        json_t *utxos = json_object_get(given, "utxosSpent");
        size_t nu = json_array_size(utxos);
        struct tx_out *spent = xcalloc(nu + 1, sizeof(struct tx_out));
        for (size_t i = 0; i < nu; i++) {
            json_t *u = json_array_get(utxos, i);
            struct buf s;
            buf_init(&s);
            hex_decode(&s, json_string_value(json_object_get(u, "scriptPubKey")));
            spent[i].script_pubkey.data = s.data;
            spent[i].script_pubkey.len = s.len;
            spent[i].value_sat = (int64_t)json_integer_value(json_object_get(u, "amountSats"));
        }
        struct tx_precomputed pd;
        sighash_precompute(&pd, &tx, spent, nu);
        ok &= pd.bip341_ready;
        ok &= hex_eq(pd.spent_amounts_single, 32,
                     json_string_value(json_object_get(inter, "hashAmounts")));
        ok &=
            hex_eq(pd.outputs_single, 32, json_string_value(json_object_get(inter, "hashOutputs")));
        ok &= hex_eq(pd.prevouts_single, 32,
                     json_string_value(json_object_get(inter, "hashPrevouts")));
        ok &= hex_eq(pd.spent_scripts_single, 32,
                     json_string_value(json_object_get(inter, "hashScriptPubkeys")));
        ok &= hex_eq(pd.sequences_single, 32,
                     json_string_value(json_object_get(inter, "hashSequences")));
        test_report(ok, "bip341_wallet_vectors.json keyPathSpending #%zu precomputed hashes", k);
        ok ? passed++ : failed++;

        json_t *ins = json_object_get(c, "inputSpending");
        for (size_t j = 0; j < json_array_size(ins); j++) {
            json_t *in = json_array_get(ins, j);
            json_t *ig = json_object_get(in, "given");
            json_t *ii = json_object_get(in, "intermediary");
            json_t *ie = json_object_get(in, "expected");
            size_t idx = (size_t)json_integer_value(json_object_get(ig, "txinIndex"));
            uint8_t hash_type = (uint8_t)json_integer_value(json_object_get(ig, "hashType"));
            const char *mr = json_string_value(json_object_get(ig, "merkleRoot"));
            uint8_t priv[32], root[32], internal[32], tweak[32], sighash[32];
            ok = 1;
            if (hex_decode_fixed(priv, 32,
                                 json_string_value(json_object_get(ig, "internalPrivkey"))) != 0 ||
                (mr && hex_decode_fixed(root, 32, mr) != 0) || idx >= tx.vin_count) {
                ok = 0;
            }
            secp256k1_keypair kp;
            secp256k1_xonly_pubkey xpk;
            if (ok && secp256k1_keypair_create(ctx, &kp, priv) &&
                secp256k1_keypair_xonly_pub(ctx, &xpk, NULL, &kp)) {
                secp256k1_xonly_pubkey_serialize(ctx, internal, &xpk);
                ok &=
                    hex_eq(internal, 32, json_string_value(json_object_get(ii, "internalPubkey")));
                struct hash_sha256_ctx h;
                hash_tagged_init(&h, "TapTweak");
                hash_sha256_write(&h, internal, 32);
                if (mr) {
                    hash_sha256_write(&h, root, 32);
                }
                hash_sha256_final(&h, tweak);
                ok &= hex_eq(tweak, 32, json_string_value(json_object_get(ii, "tweak")));
                uint8_t tsec[32];
                if (secp256k1_keypair_xonly_tweak_add(ctx, &kp, tweak) &&
                    secp256k1_keypair_sec(ctx, tsec, &kp)) {
                    ok &=
                        hex_eq(tsec, 32, json_string_value(json_object_get(ii, "tweakedPrivkey")));
                } else {
                    ok = 0;
                }
            } else {
                ok = 0;
            }
            if (ok) {
                struct script_execdata ed;
                struct buf pre;
                memset(&ed, 0, sizeof(ed));
                ed.annex_init = 1;
                buf_init(&pre);
                if (!sighash_taproot(sighash, &tx, idx, hash_type, SIGVERSION_TAPROOT, &ed, &pd,
                                     &pre)) {
                    ok = 0;
                } else {
                    /* sigMsg: the preimage after the tag prefix, epoch byte included. */
                    char *s = hex_encode_alloc(pre.data, pre.len);
                    const char *want = json_string_value(json_object_get(ii, "sigMsg"));
                    if (!want || strcmp(s, want) != 0) {
                        printf("#   sigMsg mismatch\n#   got  %s\n#   want %s\n", s,
                               want ? want : "?");
                        ok = 0;
                    }
                    free(s);
                    ok &= hex_eq(sighash, 32, json_string_value(json_object_get(ii, "sigHash")));
                }
                buf_clear(&pre);
                /* The expected witness must verify through the interpreter. */
                json_t *wit = json_object_get(ie, "witness");
                struct tx signed_tx;
                tx_copy(&signed_tx, &tx);
                struct tx_in *vin = &signed_tx.vin[idx];
                vin->witness_count = json_array_size(wit);
                vin->witness = xcalloc(vin->witness_count + 1, sizeof(struct bytes));
                for (size_t w = 0; w < vin->witness_count; w++) {
                    struct buf b;
                    buf_init(&b);
                    hex_decode(&b, json_string_value(json_array_get(wit, w)));
                    vin->witness[w].data = b.data;
                    vin->witness[w].len = b.len;
                }
                tx_compute_hashes(&signed_tx);
                struct tx_precomputed pd2;
                enum script_error err;
                sighash_precompute(&pd2, &signed_tx, spent, nu);
                uint32_t fl = SCRIPT_FLAGS_STANDARD;
                if (!script_verify_input(&signed_tx, idx, &spent[idx], &pd2, fl, NULL, 0, &err)) {
                    printf("#   witness does not verify: %s\n", script_error_name(err));
                    ok = 0;
                }
                /* One flipped signature byte must fail with SCHNORR_SIG. */
                if (vin->witness_count > 0 && vin->witness[0].len >= 64) {
                    vin->witness[0].data[10] ^= 1;
                    if (script_verify_input(&signed_tx, idx, &spent[idx], &pd2, fl, NULL, 0,
                                            &err) ||
                        err != SCRIPT_ERR_SCHNORR_SIG) {
                        printf("#   tampered signature: %s\n", script_error_name(err));
                        ok = 0;
                    }
                }
                tx_clear(&signed_tx);
            }
            test_report(ok, "bip341_wallet_vectors.json keyPathSpending #%zu input %zu", k, idx);
            ok ? passed++ : failed++;
        }
        for (size_t i = 0; i < nu; i++) {
            free(spent[i].script_pubkey.data);
        }
        free(spent);
        buf_clear(&raw);
        tx_clear(&tx);
    }
    printf("# bip341_wallet_vectors.json: %d passed, %d failed\n", passed, failed);
    json_decref(all);
}

/* ---- real mainnet blocks --------------------------------------------------------- */

/* Reads and xz-decompresses a whole file. Returns a NUL-terminated allocation or NULL. */
static char *read_xz(const char *path, size_t *out_len)
{
    struct buf b;
    buf_init(&b);
    if (file_read_all(&b, path, NULL, 0) != RC_OK) {
        buf_clear(&b);
        return NULL;
    }
    *out_len = b.len;
    return (char *)b.data; /* NUL-terminated; ownership passes */
}

struct fail_log {
    size_t count;
    size_t tx_idx, in_idx;
    enum script_error err;
};

static void on_block_fail(void *ctx, size_t tx_idx, size_t in_idx, enum script_error err)
{
    struct fail_log *f = ctx;
    if (f->count++ < 5) {
        printf("#   input %zu:%zu fails: %s\n", tx_idx, in_idx, script_error_name(err));
    }
    f->tx_idx = tx_idx;
    f->in_idx = in_idx;
    f->err = err;
}

/* Finds a signature to tamper with in input (t, i): a 64/65-byte witness item (Schnorr),
 * a DER signature in the witness, or one pushed by the scriptSig. Returns a pointer to a
 * byte inside R (or inside the Schnorr R) or NULL. */
static uint8_t *find_sig_byte(struct tx_in *in, int want_kind)
{
    if (want_kind == 0) {
        for (size_t w = 0; w < in->witness_count; w++) {
            if ((in->witness[w].len == 64 || in->witness[w].len == 65) && in->witness_count <= 2) {
                return in->witness[w].data + 5;
            }
        }
    } else if (want_kind == 1) {
        for (size_t w = 0; w < in->witness_count; w++) {
            struct bytes *b = &in->witness[w];
            if (b->len >= 9 && b->len <= 73 && b->data[0] == 0x30 &&
                script_sig_is_valid_der(b->data, b->len)) {
                return b->data + 6;
            }
        }
    } else {
        size_t pc = 0;
        uint8_t op;
        const uint8_t *d;
        size_t dl;
        while (script_get_op(in->script_sig.data, in->script_sig.len, &pc, &op, &d, &dl)) {
            if (dl >= 9 && dl <= 73 && d[0] == 0x30 && script_sig_is_valid_der(d, dl)) {
                return (uint8_t *)d + 6;
            }
        }
    }
    return NULL;
}

/* Returns a new string a + b + c (caller frees). */
static char *str3(const char *a, const char *b, size_t b_len, const char *c)
{
    struct buf s;
    buf_init(&s);
    buf_append(&s, a, strlen(a));
    buf_append(&s, b, b_len);
    buf_append(&s, c, strlen(c) + 1);
    return (char *)s.data;
}

static void run_block_file(const char *dir, const char *name, const char *chain_name,
                           json_t *sigop_vectors)
{
    char *path, *spath;
    int height = atoi(name);
    const char *dash = strchr(name, '-');
    size_t blen;
    int ok = 1;
    struct block b;
    block_init(&b);
    char *dirslash = str3(dir, "/", 1, "");
    path = str3(dirslash, name, strlen(name), "");
    uint8_t *raw = test_read_file(path, &blen);
    free(path);
    char perr[200] = "";
    if (!raw || !dash || block_parse(&b, raw, blen, perr, sizeof(perr)) != 0) {
        test_report(0, "block %s: cannot read or parse: %s", name, perr);
        free(raw);
        free(dirslash);
        return;
    }
    free(raw);
    char hashhex[65];
    hex_encode_rev(hashhex, b.hash, 32);
    if (strncmp(dash + 1, hashhex, 64) != 0) {
        printf("# block hash %s does not match the file name\n", hashhex);
        ok = 0;
    }
    size_t nin = 0;
    for (size_t t = 1; t < b.tx_count; t++) {
        nin += b.txs[t].vin_count;
    }

    /* Spent outputs: a per-input list (.spent.json.xz) or a UTXO view (.utxos.json.xz). */
    struct tx_out *spent = NULL;
    size_t n_spent = 0;
    json_t *j = NULL;
    struct spent_entry *view = NULL;
    size_t nview = 0;
    struct buf scripts; /* owns the decoded scriptPubKeys */
    buf_init(&scripts);
    size_t stem = strlen(name) - 4; /* without ".bin" */
    spath = str3(dirslash, name, stem, ".spent.json.xz");
    size_t jlen;
    char *text = read_xz(spath, &jlen);
    int per_input = text != NULL;
    if (!text) {
        free(spath);
        spath = str3(dirslash, name, stem, ".utxos.json.xz");
        text = read_xz(spath, &jlen);
    }
    free(dirslash);
    if (text) {
        json_error_t jerr;
        j = json_loads(text, 0, &jerr);
        free(text);
        if (!j) {
            printf("# %s: %s\n", spath, jerr.text);
            ok = 0;
        }
    } else if (nin > 0) {
        /* No spent outputs shipped with this block: nothing to check. */
        free(spath);
        block_clear(&b);
        return;
    }
    free(spath);
    size_t nj = json_array_size(j);
    /* Decode all scripts into one buffer first (it may move while growing). */
    size_t *offs = xcalloc(nj + 1, sizeof(size_t));
    for (size_t k = 0; ok && k < nj; k++) {
        json_t *e = json_array_get(j, k);
        json_t *o = per_input ? json_object_get(e, "txout") : e;
        const char *hex = json_string_value(json_object_get(o, "script_pubkey"));
        offs[k] = scripts.len;
        if (!hex || hex_decode(&scripts, hex) != 0) {
            ok = 0;
        }
    }
    offs[nj] = scripts.len;
    if (ok && per_input) {
        n_spent = nj;
        spent = xcalloc(nj + 1, sizeof(struct tx_out));
        for (size_t k = 0; k < nj; k++) {
            json_t *o = json_object_get(json_array_get(j, k), "txout");
            spent[k].value_sat = (int64_t)json_integer_value(json_object_get(o, "value"));
            spent[k].script_pubkey.data = scripts.data + offs[k];
            spent[k].script_pubkey.len = offs[k + 1] - offs[k];
        }
    } else if (ok) {
        nview = nj;
        view = xcalloc(nj + 1, sizeof(*view));
        for (size_t k = 0; ok && k < nj; k++) {
            json_t *e = json_array_get(j, k);
            const char *txid = json_string_value(json_object_get(e, "txid"));
            if (!txid || hex_decode_hash32_rev(view[k].prevout.txid, txid) != 0) {
                ok = 0;
                break;
            }
            view[k].prevout.n = (uint32_t)json_integer_value(json_object_get(e, "vout"));
            view[k].out.value_sat = (int64_t)json_integer_value(json_object_get(e, "value_sats"));
            view[k].out.script_pubkey.data = scripts.data + offs[k];
            view[k].out.script_pubkey.len = offs[k + 1] - offs[k];
        }
        size_t mt = 0, mi = 0;
        if (ok && script_block_resolve_spent(&b, view, nview, &spent, &n_spent, &mt, &mi) != 0) {
            printf("# %s: input %zu:%zu has no spent output\n", name, mt, mi);
            ok = 0;
        }
    }
    free(offs);

    const struct chain_params *p = chain_params_get(chain_name);
    uint32_t flags = script_block_flags(p, height, b.hash);
    struct script_block_result res = {0, 0};
    struct sigcache *cache = sigcache_new(32 << 20, NULL);
    if (ok) {
        struct fail_log fl = {0, 0, 0, SCRIPT_ERR_OK};
        if (script_verify_block(&b, spent, n_spent, flags, cache, 1, on_block_fail, &fl, &res) !=
            0) {
            printf("# %s: %zu spent outputs for %zu inputs\n", name, n_spent, nin);
            ok = 0;
        } else if (res.inputs_failed != 0 || res.inputs_checked != nin) {
            ok = 0;
        }
    }
    /* Block sigop cost, against the reference numbers where the data set has them. */
    if (ok) {
        int64_t cost = script_block_sigop_cost(&b, spent, n_spent, flags);
        for (size_t v = 0; v < json_array_size(sigop_vectors); v++) {
            json_t *sv = json_array_get(sigop_vectors, v);
            const char *vh = json_string_value(json_object_get(sv, "hash"));
            if (vh && strcmp(vh, hashhex) == 0) {
                json_int_t want = json_integer_value(json_object_get(sv, "sigop_cost"));
                test_report(cost == want, "block %d: sigop cost %lld, expected %lld", height,
                            (long long)cost, (long long)want);
            }
        }
        printf("# block %d: sigop cost %lld\n", height, (long long)cost);
    }
    test_report(ok, "block %d %s: flags %s%s%s%s%s%s%s: %zu inputs checked, %zu failed", height,
                hashhex, (flags & SCRIPT_VERIFY_P2SH) ? "P2SH " : "",
                (flags & SCRIPT_VERIFY_WITNESS) ? "WITNESS " : "",
                (flags & SCRIPT_VERIFY_TAPROOT) ? "TAPROOT " : "",
                (flags & SCRIPT_VERIFY_DERSIG) ? "DERSIG " : "",
                (flags & SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY) ? "CLTV " : "",
                (flags & SCRIPT_VERIFY_CHECKSEQUENCEVERIFY) ? "CSV " : "",
                (flags & SCRIPT_VERIFY_NULLDUMMY) ? "NULLDUMMY" : "", res.inputs_checked,
                res.inputs_failed);

    /* An exception block really needs its exception: with the flags its height would
     * otherwise get, some input must fail (692261 holds a pre-activation spend that
     * violates the taproot rules). */
    uint32_t exc_flags;
    if (ok && nin > 0 && chain_params_script_exception(p, b.hash, &exc_flags)) {
        uint32_t normal = script_block_flags(p, height, (const uint8_t[32]){0});
        struct script_block_result r3;
        script_verify_block(&b, spent, n_spent, normal, NULL, 0, NULL, NULL, &r3);
        test_report(r3.inputs_failed > 0,
                    "block %d: without its script-flag exception %zu input(s) fail", height,
                    r3.inputs_failed);
    }

    /* Tamper: for each kind of signature present (Schnorr, witness ECDSA, scriptSig ECDSA),
     * flip one byte of the first one and check that exactly that input fails. The cache
     * filled above keeps the re-verification of the untouched inputs cheap. */
    static const char *const kinds[] = {"taproot", "witness-ecdsa", "scriptsig-ecdsa"};
    for (int kind = 0; ok && kind < 3; kind++) {
        size_t ft = 0, fi = 0;
        uint8_t *byte = NULL;
        for (size_t t = 1; !byte && t < b.tx_count; t++) {
            for (size_t i = 0; !byte && i < b.txs[t].vin_count; i++) {
                byte = find_sig_byte(&b.txs[t].vin[i], kind);
                ft = t;
                fi = i;
            }
        }
        if (!byte) {
            continue;
        }
        *byte ^= 0x01;
        struct fail_log fl = {0, 0, 0, SCRIPT_ERR_OK};
        struct script_block_result r2;
        script_verify_block(&b, spent, n_spent, flags, cache, 0, on_block_fail, &fl, &r2);
        int tok = r2.inputs_failed == 1 && fl.tx_idx == ft && fl.in_idx == fi;
        test_report(tok, "block %d: %s signature of input %zu:%zu flipped -> %zu failing (%s)",
                    height, kinds[kind], ft, fi, r2.inputs_failed,
                    r2.inputs_failed ? script_error_name(fl.err) : "none");
        *byte ^= 0x01;
    }
    sigcache_free(cache);
    free(spent);
    free(view);
    buf_clear(&scripts);
    json_decref(j);
    block_clear(&b);
}

static void test_block_dir(const char *sub, const char *chain_name)
{
    char *dir = str3(test_shared_dir(), "/data/", 6, sub);
    char *names[64];
    int n = test_list_dir(dir, ".bin", names, 64);
    if (n < 0) {
        test_report(0, "%s: missing", dir);
        free(dir);
        return;
    }
    char *vpath = str3(dir, "/sigops-weight-vectors.json", 27, "");
    json_t *vectors = json_load_file(vpath, 0, NULL); /* optional */
    free(vpath);
    for (int i = 0; i < n; i++) {
        run_block_file(dir, names[i], chain_name, vectors);
        free(names[i]);
    }
    json_decref(vectors);
    free(dir);
}

/* Blocks 0..438 from genesis: every spent output comes from an earlier block of the file. */
static void test_blocks_from_genesis(void)
{
    char *path =
        str3(test_shared_dir(), "/data/mainnet-blocks-0-438/blk-mainnet-0-438.dat", 49, "");
    size_t len;
    uint8_t *raw = test_read_file(path, &len);
    free(path);
    if (!raw) {
        test_report(0, "mainnet-blocks-0-438: missing");
        return;
    }
    const struct chain_params *p = chain_params_get("main");
    struct block *blocks = xcalloc(500, sizeof(struct block));
    size_t nb = 0, pos = 0, checked = 0, failed = 0, first_spend = 0;
    int ok = 1;
    while (pos + 8 <= len && nb < 500) {
        size_t bl = rd_u32le(raw + pos + 4);
        char perr[160];
        block_init(&blocks[nb]);
        if (pos + 8 + bl > len ||
            block_parse(&blocks[nb], raw + pos + 8, bl, perr, sizeof(perr)) != 0) {
            printf("# block %zu: %s\n", nb, perr);
            ok = 0;
            break;
        }
        pos += 8 + bl;
        nb++;
    }
    /* A view of every output created so far (spent ones are never looked up again). */
    size_t nview = 0, cap = 1024;
    struct spent_entry *view = xcalloc(cap, sizeof(*view));
    for (size_t h = 0; ok && h < nb; h++) {
        struct block *b = &blocks[h];
        struct tx_out *spent = NULL;
        size_t n_spent = 0, mt, mi;
        if (script_block_resolve_spent(b, view, nview, &spent, &n_spent, &mt, &mi) != 0) {
            printf("# block %zu: input %zu:%zu unresolved\n", h, mt, mi);
            ok = 0;
            break;
        }
        struct script_block_result r;
        script_verify_block(b, spent, n_spent, script_block_flags(p, (int)h, b->hash), NULL, 0,
                            NULL, NULL, &r);
        if (r.inputs_checked && !first_spend) {
            first_spend = h;
        }
        checked += r.inputs_checked;
        failed += r.inputs_failed;
        free(spent);
        for (size_t t = 0; t < b->tx_count; t++) {
            for (size_t o = 0; o < b->txs[t].vout_count; o++) {
                if (nview == cap) {
                    cap *= 2;
                    view = xrealloc(view, cap * sizeof(*view));
                }
                memcpy(view[nview].prevout.txid, b->txs[t].txid, 32);
                view[nview].prevout.n = (uint32_t)o;
                view[nview].out = b->txs[t].vout[o];
                nview++;
            }
        }
    }
    test_report(ok && nb == 439 && failed == 0 && checked > 0 && first_spend == 170,
                "mainnet blocks 0..%zu from genesis: %zu inputs checked, %zu failed, first "
                "spend at height %zu",
                nb ? nb - 1 : 0, checked, failed, first_spend);
    for (size_t h = 0; h < nb; h++) {
        block_clear(&blocks[h]);
    }
    free(blocks);
    free(view);
    free(raw);
}

/* ---- tapscript behaviour beyond the vector files ----------------------------------- */

static const uint8_t NUMS_KEY[32] = {
    0x50, 0x92, 0x9b, 0x74, 0xc1, 0xa0, 0x49, 0x54, 0xb7, 0x8b, 0x4b, 0x60, 0x35, 0xe9, 0x7a, 0x5e,
    0x07, 0x8a, 0x5a, 0x0f, 0x28, 0xec, 0x96, 0xd5, 0x47, 0xbf, 0xee, 0x9a, 0xce, 0x80, 0x3a, 0xc0};

struct tap_ctx {
    secp256k1_context *sctx;
    secp256k1_keypair kp[2];
    uint8_t xpk[2][32];
    struct tx tx;
    struct tx_out spent;
    uint8_t spk[34];
    uint8_t control[33];
    struct tx_precomputed pd;
    const uint8_t *script;
    size_t script_len;
    uint8_t leaf_ver;
};

/* A one-input transaction spending a P2TR output whose only leaf is (leaf_ver, script). */
static void tap_build(struct tap_ctx *c, const uint8_t *script, size_t slen, uint8_t leaf_ver)
{
    uint8_t leaf[32];
    int parity;
    c->script = script;
    c->script_len = slen;
    c->leaf_ver = leaf_ver;
    script_tapleaf_hash(leaf, leaf_ver, script, slen);
    CHECK(script_taproot_tweak(c->spk + 2, &parity, NUMS_KEY, leaf));
    c->spk[0] = OP_1;
    c->spk[1] = 32;
    c->control[0] = (uint8_t)(leaf_ver | parity);
    memcpy(c->control + 1, NUMS_KEY, 32);
    tx_init(&c->tx);
    c->tx.version = 2;
    c->tx.vin_count = 1;
    c->tx.vin = xcalloc(1, sizeof(struct tx_in));
    memset(c->tx.vin[0].prevout.txid, 0x11, 32);
    c->tx.vin[0].sequence = 0xfffffffe;
    c->tx.vout_count = 1;
    c->tx.vout = xcalloc(1, sizeof(struct tx_out));
    c->tx.vout[0].value_sat = 1000;
    static const uint8_t op_true = OP_1;
    bytes_set(&c->tx.vout[0].script_pubkey, &op_true, 1);
    c->spent.value_sat = 10000;
    c->spent.script_pubkey.data = c->spk;
    c->spent.script_pubkey.len = 34;
    tx_compute_hashes(&c->tx);
    sighash_precompute(&c->pd, &c->tx, &c->spent, 1);
}

static void annex_hash(uint8_t out[32], const uint8_t *annex, size_t n)
{
    struct buf b;
    buf_init(&b);
    ser_put_varbytes(&b, annex, n);
    hash_sha256(out, b.data, b.len);
    buf_clear(&b);
}

/* A tapscript signature by key k over the context's leaf. Returns its length. */
static size_t tap_sign(struct tap_ctx *c, uint8_t sig[65], int k, uint32_t codesep_pos,
                       const uint8_t *annex, size_t annex_len, uint8_t hash_type)
{
    struct script_execdata ed;
    uint8_t h[32], aux[32] = {0};
    memset(&ed, 0, sizeof(ed));
    ed.annex_init = 1;
    ed.annex_present = annex != NULL;
    if (annex) {
        annex_hash(ed.annex_hash, annex, annex_len);
    }
    ed.tapleaf_hash_init = 1;
    script_tapleaf_hash(ed.tapleaf_hash, c->leaf_ver, c->script, c->script_len);
    ed.codeseparator_pos_init = 1;
    ed.codeseparator_pos = codesep_pos;
    CHECK(sighash_taproot(h, &c->tx, 0, hash_type, SIGVERSION_TAPSCRIPT, &ed, &c->pd, NULL));
    CHECK(secp256k1_schnorrsig_sign32(c->sctx, sig, h, &c->kp[k], aux));
    if (hash_type != SIGHASH_DEFAULT) {
        sig[64] = hash_type;
        return 65;
    }
    return 64;
}

/* Sets the witness (items, script, control of control_len bytes, optional annex) and
 * verifies. */
static int tap_verify(struct tap_ctx *c, const struct bytes *items, size_t n,
                      const uint8_t *control, size_t control_len, const uint8_t *annex,
                      size_t annex_len, uint32_t flags, enum script_error *err)
{
    struct tx_in *in = &c->tx.vin[0];
    for (size_t i = 0; i < in->witness_count; i++) {
        free(in->witness[i].data);
    }
    free(in->witness);
    in->witness_count = n + 2 + (annex ? 1 : 0);
    in->witness = xcalloc(in->witness_count, sizeof(struct bytes));
    for (size_t i = 0; i < n; i++) {
        bytes_set(&in->witness[i], items[i].data, items[i].len);
    }
    bytes_set(&in->witness[n], c->script, c->script_len);
    bytes_set(&in->witness[n + 1], control, control_len);
    if (annex) {
        bytes_set(&in->witness[n + 2], annex, annex_len);
    }
    return script_verify_input(&c->tx, 0, &c->spent, &c->pd, flags, NULL, 0, err);
}

static void tap_ctx_init(struct tap_ctx *c)
{
    memset(c, 0, sizeof(*c));
    c->sctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    for (int k = 0; k < 2; k++) {
        uint8_t priv[32];
        memset(priv, 0x21 + k, 32);
        secp256k1_xonly_pubkey x;
        CHECK(secp256k1_keypair_create(c->sctx, &c->kp[k], priv));
        CHECK(secp256k1_keypair_xonly_pub(c->sctx, &x, NULL, &c->kp[k]));
        secp256k1_xonly_pubkey_serialize(c->sctx, c->xpk[k], &x);
    }
}

static void tap_ctx_clear(struct tap_ctx *c)
{
    tx_clear(&c->tx);
    secp256k1_context_destroy(c->sctx);
}

#define TAP_FLAGS (SCRIPT_FLAGS_STANDARD)
#define TAP_EXPECT(ok_, err_)                                                                      \
    do {                                                                                           \
        CHECK_EQ_INT(res, (ok_));                                                                  \
        CHECK_EQ_STR(script_error_name(err), script_error_name(err_));                             \
    } while (0)

static void test_tapscript_checksig(void)
{
    struct tap_ctx c;
    struct buf s;
    enum script_error err;
    int res;
    uint8_t sig[65], sig2[65];
    tap_ctx_init(&c);
    buf_init(&s);
    /* <pk0> CHECKSIG <pk1> CHECKSIGADD 2 NUMEQUAL */
    script_push_data(&s, c.xpk[0], 32);
    buf_put_u8(&s, OP_CHECKSIG);
    script_push_data(&s, c.xpk[1], 32);
    buf_put_u8(&s, OP_CHECKSIGADD);
    buf_put_u8(&s, OP_2);
    buf_put_u8(&s, OP_NUMEQUAL);
    tap_build(&c, s.data, s.len, TAPROOT_LEAF_TAPSCRIPT);
    size_t l0 = tap_sign(&c, sig, 0, 0xffffffffu, NULL, 0, SIGHASH_DEFAULT);
    size_t l1 = tap_sign(&c, sig2, 1, 0xffffffffu, NULL, 0, SIGHASH_ALL);
    /* The stack is (bottom first) sig1, sig0: sig0 is consumed first. */
    struct bytes items[2] = {{sig2, l1}, {sig, l0}};
    res = tap_verify(&c, items, 2, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);
    /* One empty signature: CHECKSIGADD adds 0, NUMEQUAL is false. */
    struct bytes one_empty[2] = {{NULL, 0}, {sig, l0}};
    res = tap_verify(&c, one_empty, 2, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_EVAL_FALSE);
    /* A wrong non-empty signature fails the script at once. */
    uint8_t bad[64];
    memcpy(bad, sig, 64);
    bad[20] ^= 1;
    struct bytes wrong[2] = {{sig2, l1}, {bad, 64}};
    res = tap_verify(&c, wrong, 2, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_SCHNORR_SIG);
    /* Hash type 0 spelled out in a 65-byte signature is invalid. */
    uint8_t sig65[65];
    memcpy(sig65, sig, 64);
    sig65[64] = 0;
    struct bytes ht0[2] = {{sig2, l1}, {sig65, 65}};
    res = tap_verify(&c, ht0, 2, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_SCHNORR_SIG_HASHTYPE);
    struct bytes sz63[2] = {{sig2, l1}, {sig, 63}};
    res = tap_verify(&c, sz63, 2, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_SCHNORR_SIG_SIZE);
    /* Control blocks: bad size, wrong parity, consensus without DISCOURAGE flags. */
    res = tap_verify(&c, items, 2, c.control, 32, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_TAPROOT_WRONG_CONTROL_SIZE);
    uint8_t ctl[33];
    memcpy(ctl, c.control, 33);
    ctl[0] ^= 1;
    res = tap_verify(&c, items, 2, ctl, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH);
    /* Without TAPROOT the output is anyone-can-spend (pre-activation). */
    res = tap_verify(&c, wrong, 2, c.control, 33, NULL, 0,
                     SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);

    /* Annex: committed to by the signature hash. */
    static const uint8_t annex[3] = {ANNEX_TAG, 0x01, 0x02};
    l0 = tap_sign(&c, sig, 0, 0xffffffffu, annex, 3, SIGHASH_DEFAULT);
    l1 = tap_sign(&c, sig2, 1, 0xffffffffu, annex, 3, SIGHASH_DEFAULT);
    struct bytes with_annex[2] = {{sig2, l1}, {sig, l0}};
    res = tap_verify(&c, with_annex, 2, c.control, 33, annex, 3, TAP_FLAGS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);
    res = tap_verify(&c, with_annex, 2, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_SCHNORR_SIG);
    buf_clear(&s);
    tx_clear(&c.tx);

    /* OP_CODESEPARATOR position: CODESEPARATOR <pk0> CHECKSIG signs position 0. */
    buf_init(&s);
    buf_put_u8(&s, OP_CODESEPARATOR);
    script_push_data(&s, c.xpk[0], 32);
    buf_put_u8(&s, OP_CHECKSIG);
    tap_build(&c, s.data, s.len, TAPROOT_LEAF_TAPSCRIPT);
    l0 = tap_sign(&c, sig, 0, 0, NULL, 0, SIGHASH_DEFAULT);
    struct bytes cs[1] = {{sig, l0}};
    res = tap_verify(&c, cs, 1, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);
    l0 = tap_sign(&c, sig, 0, 0xffffffffu, NULL, 0, SIGHASH_DEFAULT);
    res = tap_verify(&c, cs, 1, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_SCHNORR_SIG);
    buf_clear(&s);
    tap_ctx_clear(&c);
}

static void test_tapscript_rules(void)
{
    struct tap_ctx c;
    struct buf s;
    enum script_error err;
    int res;
    tap_ctx_init(&c);

    /* OP_SUCCESSx anywhere makes the script succeed, even with junk after it. */
    static const uint8_t succ[] = {OP_RETURN, 0x50, 0x4c};
    tap_build(&c, succ, sizeof(succ), TAPROOT_LEAF_TAPSCRIPT);
    res = tap_verify(&c, NULL, 0, c.control, 33, NULL, 0,
                     TAP_FLAGS & ~(uint32_t)SCRIPT_VERIFY_DISCOURAGE_OP_SUCCESS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);
    res = tap_verify(&c, NULL, 0, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_DISCOURAGE_OP_SUCCESS);
    tx_clear(&c.tx);
    /* A truncated push before any OP_SUCCESS is BAD_OPCODE. */
    static const uint8_t trunc[] = {0x4c};
    tap_build(&c, trunc, sizeof(trunc), TAPROOT_LEAF_TAPSCRIPT);
    res = tap_verify(&c, NULL, 0, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_BAD_OPCODE);
    tx_clear(&c.tx);

    /* MINIMALIF is consensus in tapscript; CHECKMULTISIG is gone. */
    static const uint8_t ifs[] = {OP_IF, OP_1, OP_ELSE, OP_1, OP_ENDIF};
    tap_build(&c, ifs, sizeof(ifs), TAPROOT_LEAF_TAPSCRIPT);
    static const uint8_t two = 2;
    struct bytes it[1] = {{(uint8_t *)&two, 1}};
    res = tap_verify(&c, it, 1, c.control, 33, NULL, 0, SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_TAPSCRIPT_MINIMALIF);
    tx_clear(&c.tx);
    static const uint8_t cms[] = {OP_0, OP_0, OP_0, OP_CHECKMULTISIG};
    tap_build(&c, cms, sizeof(cms), TAPROOT_LEAF_TAPSCRIPT);
    res = tap_verify(&c, NULL, 0, c.control, 33, NULL, 0, SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_TAPSCRIPT_CHECKMULTISIG);
    tx_clear(&c.tx);

    /* Unknown key types (here 33 bytes) succeed for any non-empty signature, unless
     * discouraged; the validation-weight budget still counts them. */
    buf_init(&s);
    uint8_t k33[33];
    memset(k33, 0x02, 33);
    script_push_data(&s, k33, 33);
    buf_put_u8(&s, OP_CHECKSIG);
    tap_build(&c, s.data, s.len, TAPROOT_LEAF_TAPSCRIPT);
    static const uint8_t junk = 0x77;
    struct bytes js[1] = {{(uint8_t *)&junk, 1}};
    res = tap_verify(&c, js, 1, c.control, 33, NULL, 0, SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);
    res = tap_verify(&c, js, 1, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_DISCOURAGE_UPGRADABLE_PUBKEYTYPE);
    buf_clear(&s);
    tx_clear(&c.tx);

    /* 20 x (<k33> CHECKSIGVERIFY) with 1-byte signatures: 1000 units of budget needed,
     * about 20 * 37 + 84 available. */
    buf_init(&s);
    struct bytes many[20];
    for (int i = 0; i < 20; i++) {
        script_push_data(&s, k33, 33);
        buf_put_u8(&s, OP_CHECKSIGVERIFY);
        many[i].data = (uint8_t *)&junk;
        many[i].len = 1;
    }
    buf_put_u8(&s, OP_1);
    tap_build(&c, s.data, s.len, TAPROOT_LEAF_TAPSCRIPT);
    res = tap_verify(&c, many, 20, c.control, 33, NULL, 0, SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_TAPSCRIPT_VALIDATION_WEIGHT);
    /* Padding the witness with an annex buys budget. */
    uint8_t big_annex[400];
    memset(big_annex, 0, sizeof(big_annex));
    big_annex[0] = ANNEX_TAG;
    res = tap_verify(&c, many, 20, c.control, 33, big_annex, sizeof(big_annex),
                     SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);
    buf_clear(&s);
    tx_clear(&c.tx);

    /* Unknown leaf versions are anyone-can-spend unless discouraged. */
    static const uint8_t ret[] = {OP_RETURN};
    tap_build(&c, ret, sizeof(ret), 0xc2);
    res = tap_verify(&c, NULL, 0, c.control, 33, NULL, 0, SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(1, SCRIPT_ERR_OK);
    res = tap_verify(&c, NULL, 0, c.control, 33, NULL, 0, TAP_FLAGS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_DISCOURAGE_UPGRADABLE_TAPROOT_VERSION);
    tx_clear(&c.tx);

    /* Stack limits: 1001 initial items, or one item over 520 bytes. */
    static const uint8_t t1[] = {OP_1};
    tap_build(&c, t1, sizeof(t1), TAPROOT_LEAF_TAPSCRIPT);
    struct bytes *lots = xcalloc(1001, sizeof(struct bytes));
    res = tap_verify(&c, lots, 1001, c.control, 33, NULL, 0, SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_STACK_SIZE);
    uint8_t big[521];
    memset(big, 1, sizeof(big));
    lots[0].data = big;
    lots[0].len = 521;
    res = tap_verify(&c, lots, 1, c.control, 33, NULL, 0, SCRIPT_FLAGS_CONSENSUS, &err);
    TAP_EXPECT(0, SCRIPT_ERR_PUSH_SIZE);
    free(lots);
    tap_ctx_clear(&c);
}

/* Key path: signature sizes and hash types. */
static void test_taproot_keypath(void)
{
    struct tap_ctx c;
    enum script_error err;
    int res;
    uint8_t tweak[32], h[32], sig[65], aux[32] = {0};
    tap_ctx_init(&c);
    static const uint8_t dummy = OP_1;
    tap_build(&c, &dummy, 1, TAPROOT_LEAF_TAPSCRIPT);
    /* Replace the output with a key-path-only output of key 0. */
    int parity;
    CHECK(script_taproot_tweak(c.spk + 2, &parity, c.xpk[0], NULL));
    sighash_precompute(&c.pd, &c.tx, &c.spent, 1);
    hash_tagged(tweak, "TapTweak", c.xpk[0], 32);
    secp256k1_keypair kp = c.kp[0];
    CHECK(secp256k1_keypair_xonly_tweak_add(c.sctx, &kp, tweak));
    struct script_execdata ed;
    memset(&ed, 0, sizeof(ed));
    ed.annex_init = 1;
    static const uint8_t types[] = {
        SIGHASH_DEFAULT, SIGHASH_ALL, SIGHASH_NONE, SIGHASH_SINGLE, 0x81, 0x82, 0x83};
    for (size_t t = 0; t < sizeof(types); t++) {
        CHECK(sighash_taproot(h, &c.tx, 0, types[t], SIGVERSION_TAPROOT, &ed, &c.pd, NULL));
        CHECK(secp256k1_schnorrsig_sign32(c.sctx, sig, h, &kp, aux));
        sig[64] = types[t];
        size_t len = types[t] ? 65 : 64;
        c.tx.vin[0].witness_count = 1;
        c.tx.vin[0].witness = xcalloc(1, sizeof(struct bytes));
        bytes_set(&c.tx.vin[0].witness[0], sig, len);
        res = script_verify_input(&c.tx, 0, &c.spent, &c.pd, TAP_FLAGS, NULL, 0, &err);
        TAP_EXPECT(1, SCRIPT_ERR_OK);
        /* The same signature with another hash type byte fails. */
        if (len == 65) {
            c.tx.vin[0].witness[0].data[64] = (uint8_t)(types[t] == 1 ? 2 : 1);
            res = script_verify_input(&c.tx, 0, &c.spent, &c.pd, TAP_FLAGS, NULL, 0, &err);
            TAP_EXPECT(0, SCRIPT_ERR_SCHNORR_SIG);
            c.tx.vin[0].witness[0].data[64] = 0x84;
            res = script_verify_input(&c.tx, 0, &c.spent, &c.pd, TAP_FLAGS, NULL, 0, &err);
            TAP_EXPECT(0, SCRIPT_ERR_SCHNORR_SIG_HASHTYPE);
        }
        free(c.tx.vin[0].witness[0].data);
        free(c.tx.vin[0].witness);
        c.tx.vin[0].witness = NULL;
        c.tx.vin[0].witness_count = 0;
    }
    /* SIGHASH_SINGLE without a matching output: no valid signature exists. */
    c.tx.vout_count = 0;
    CHECK(!sighash_taproot(h, &c.tx, 0, SIGHASH_SINGLE, SIGVERSION_TAPROOT, &ed, &c.pd, NULL));
    CHECK(!sighash_taproot(h, &c.tx, 0, 0x83, SIGVERSION_TAPROOT, &ed, &c.pd, NULL));
    CHECK(sighash_taproot(h, &c.tx, 0, SIGHASH_ALL, SIGVERSION_TAPROOT, &ed, &c.pd, NULL));
    c.tx.vout_count = 1;
    /* An empty key-path witness. */
    res = script_verify_input(&c.tx, 0, &c.spent, &c.pd, TAP_FLAGS, NULL, 0, &err);
    TAP_EXPECT(0, SCRIPT_ERR_WITNESS_PROGRAM_WITNESS_EMPTY);
    tap_ctx_clear(&c);
}

/* The worked examples of BIP143 (native P2WPKH, P2SH-P2WPKH, P2WSH with OP_CODESEPARATOR
 * and SIGHASH_SINGLE, the no-FindAndDelete example, P2SH-P2WSH 6-of-6 under every hash
 * type). Script codes as the BIP prints them (with their length byte); digests in natural
 * byte order. */
static void test_bip143_examples(void)
{
    static const char *const p2wpkh =
        "0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f000000"
        "0000eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100"
        "000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d59"
        "88ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000";
    static const char *const p2sh_p2wpkh =
        "0100000001db6b1b20aa0fd7b23880be2ecbd4a98130974cf4748fb66092ac4d3ceb1a5477010000"
        "0000feffffff02b8b4eb0b000000001976a914a457b684d7f0d539a46a45bbc043f35b59d0d96388"
        "ac0008af2f000000001976a914fd270b1ee6abcaea97fea7ad0402e8bd8ad6d77c88ac92040000";
    static const char *const p2wsh =
        "0100000002fe3dc9208094f3ffd12645477b3dc56f60ec4fa8e6f5d67c565d1c6b9216b36e000000"
        "0000ffffffff0815cf020f013ed6cf91d29f4202e8a58726b1ac6c79da47c23d1bee0a6925f80000"
        "000000ffffffff0100f2052a010000001976a914a30741f8145e5acadf23f751864167f32e0963f7"
        "88ac00000000";
    static const char *const no_fad =
        "0100000002e9b542c5176808107ff1df906f46bb1f2583b16112b95ee5380665ba7fcfc001000000"
        "0000ffffffff80e68831516392fcd100d186b3c2c7b95c80b53c77e77c35ba03a66b429a2a1b0000"
        "000000ffffffff0280969800000000001976a914de4b231626ef508c9a74a8517e6783c0546d6b28"
        "88ac80969800000000001976a9146648a8cd4531e1ec47f35916de8e259237294d1e88ac00000000";
    static const char *const p2sh_p2wsh =
        "010000000136641869ca081e70f394c6948e8af409e18b619df2ed74aa106c1ca29787b96e010000"
        "0000ffffffff0200e9a435000000001976a914389ffce9cd9ae88dcc0631e88a821ffdbe9bfe2688"
        "acc0832f05000000001976a9147480a33f950689af511e6e84c138dbbd3c3ee41588ac00000000";
    static const char *const ms6 =
        "cf56210307b8ae49ac90a048e9b53357a2354b3334e9c8bee813ecb98e99a7e07e8c3ba32103b28f"
        "0c28bfab54554ae8c658ac5c3e0ce6e79ad336331f78c428dd43eea8449b21034b8113d703413d57"
        "761b8b9781957b8c0ac1dfe69f492580ca4195f50376ba4a21033400f6afecb833092a9a21cfdf1e"
        "d1376e58c5d1f47de74683123987e967a8f42103a6d48b1131e94ba04d9737d61acdaa1322008af9"
        "602b3b14862c07a1789aac162102d8b661b0b3302ee2f162b09e07a55ad5dfbe673a9f01d9f0c196"
        "17681024306b56ae";
    static const struct {
        const char *tx;
        size_t idx;
        const char *code;
        int64_t amount;
        int32_t type;
        const char *expect;
    } cases[] = {
        {p2wpkh, 1, "1976a9141d0f172a0ecb48aee1be1f2687d2963ae33f71a188ac", 600000000, 1,
         "c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670"},
        {p2sh_p2wpkh, 0, "1976a91479091972186c449eb1ded22b78e40d009bdf008988ac", 1000000000, 1,
         "64f3b0f4dd2bb3aa1ce8566d220cc74dda9df97d8490cc81d89d735c92e59fb6"},
        {p2wsh, 1,
         "4721026dccc749adc2a9d0d89497ac511f760f45c47dc5ed9cf352a58ac706453880aeadab210255"
         "a9626aebf5e29c0e6538428ba0d1dcf6ca98ffdf086aa8ced5e0d0215ea465ac",
         4900000000LL, 3, "82dde6e4f1e94d02c2b7ad03d2115d691f48d064e9d52f58194a6637e4194391"},
        {p2wsh, 1, "23210255a9626aebf5e29c0e6538428ba0d1dcf6ca98ffdf086aa8ced5e0d0215ea465ac",
         4900000000LL, 3, "fef7bd749cce710c5c052bd796df1af0d935e59cea63736268bcbe2d2134fc47"},
        {no_fad, 0,
         "270063ab68210392972e2eb617b2388771abe27235fd5ac44af8e61693261550447a4c3e39da98ac",
         16777215, 0x83, "e9071e75e25b8a1e298a72f0d2e9f4f95a0f5cdf86a533cda597eb402ed13b3a"},
        {no_fad, 1, "2468210392972e2eb617b2388771abe27235fd5ac44af8e61693261550447a4c3e39da98ac",
         16777215, 0x83, "cd72f1f1a433ee9df816857fad88d8ebd97e09a75cd481583eb841c330275e54"},
        {p2sh_p2wsh, 0, ms6, 987654321, 0x01,
         "185c0be5263dce5b4bb50a047973c1b6272bfbd0103a89444597dc40b248ee7c"},
        {p2sh_p2wsh, 0, ms6, 987654321, 0x02,
         "e9733bc60ea13c95c6527066bb975a2ff29a925e80aa14c213f686cbae5d2f36"},
        {p2sh_p2wsh, 0, ms6, 987654321, 0x03,
         "1e1f1c303dc025bd664acb72e583e933fae4cff9148bf78c157d1e8f78530aea"},
        {p2sh_p2wsh, 0, ms6, 987654321, 0x81,
         "2a67f03e63a6a422125878b40b82da593be8d4efaafe88ee528af6e5a9955c6e"},
        {p2sh_p2wsh, 0, ms6, 987654321, 0x82,
         "781ba15f3779d5542ce8ecb5c18716733a5ee42a6f51488ec96154934e2c890a"},
        {p2sh_p2wsh, 0, ms6, 987654321, 0x83,
         "511e8e52ed574121fc1b654970395502128263f62662e076dc6baf05c2e6a99b"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf raw, code;
        struct tx tx;
        char perr[160];
        buf_init(&raw);
        buf_init(&code);
        tx_init(&tx);
        CHECK_EQ_INT(hex_decode(&raw, cases[i].tx), 0);
        CHECK_EQ_INT(hex_decode(&code, cases[i].code), 0);
        if (tx_deserialize(&tx, raw.data, raw.len, perr, sizeof(perr)) != 0) {
            CHECK(0);
            continue;
        }
        /* Both with and without the precomputed hashes. */
        struct tx_precomputed pd;
        sighash_precompute(&pd, &tx, NULL, 0);
        uint8_t h1[32], h2[32];
        sighash_witness_v0(h1, code.data + 1, code.len - 1, &tx, cases[i].idx, cases[i].type,
                           cases[i].amount, &pd);
        sighash_witness_v0(h2, code.data + 1, code.len - 1, &tx, cases[i].idx, cases[i].type,
                           cases[i].amount, NULL);
        CHECK(hex_eq(h1, 32, cases[i].expect));
        CHECK_EQ_MEM(h1, h2, 32);
        buf_clear(&raw);
        buf_clear(&code);
        tx_clear(&tx);
    }
}

/* ---- unit cases ------------------------------------------------------------------ */

static void test_scriptnum(void)
{
    static const int64_t vals[] = {0,   1,     -1,     127,        128,         -128,          255,
                                   256, 32767, -32768, 2147483647, -2147483647, 549755813887LL};
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        uint8_t b[9];
        int64_t back = 12345;
        size_t n = scriptnum_encode(b, vals[i]);
        CHECK(scriptnum_decode(&back, b, n, 1, 8));
        CHECK_EQ_INT(back, vals[i]);
    }
    uint8_t b[9];
    CHECK_EQ_INT(scriptnum_encode(b, 128), 2);
    CHECK_EQ_INT(b[0], 0x80);
    CHECK_EQ_INT(b[1], 0x00);
    CHECK_EQ_INT(scriptnum_encode(b, -128), 2);
    CHECK_EQ_INT(b[1], 0x80);
    int64_t v;
    static const uint8_t negzero[1] = {0x80}, nonmin[2] = {0x05, 0x00}, five[5] = {1, 2, 3, 4, 5};
    CHECK(!scriptnum_decode(&v, negzero, 1, 1, 4));
    CHECK(scriptnum_decode(&v, negzero, 1, 0, 4));
    CHECK_EQ_INT(v, 0);
    CHECK(!scriptnum_decode(&v, nonmin, 2, 1, 4));
    CHECK(!scriptnum_decode(&v, five, 5, 0, 4));
    CHECK(scriptnum_decode(&v, five, 5, 0, 5));
    CHECK_EQ_INT(v, 0x0504030201LL);
}

static void test_asm_roundtrip(void)
{
    struct buf s, a;
    buf_init(&s);
    buf_init(&a);
    CHECK_EQ_INT(script_asm_parse(&s,
                                  "DUP HASH160 0x14 0x0102030405060708090a0b0c0d0e0f1011121314 "
                                  "EQUALVERIFY CHECKSIG",
                                  NULL, 0),
                 0);
    CHECK_EQ_INT(s.len, 25);
    script_asm_format(&a, s.data, s.len);
    CHECK_EQ_STR((const char *)a.data,
                 "OP_DUP OP_HASH160 0102030405060708090a0b0c0d0e0f1011121314 OP_EQUALVERIFY "
                 "OP_CHECKSIG");
    buf_reset(&s);
    buf_reset(&a);
    CHECK_EQ_INT(
        script_asm_parse(&s, "-1 0 16 17 1000 'Az' CHECKLOCKTIMEVERIFY OP_CHECKSIGADD", NULL, 0),
        0);
    static const uint8_t want[] = {0x4f, 0x00, 0x60, 0x01, 0x11, 0x02, 0xe8,
                                   0x03, 0x02, 'A',  'z',  0xb1, 0xba};
    CHECK_EQ_INT(s.len, sizeof(want));
    CHECK_EQ_MEM(s.data, want, sizeof(want));
    script_asm_format(&a, s.data, s.len);
    CHECK_EQ_STR((const char *)a.data,
                 "-1 0 16 17 1000 31297 OP_CHECKLOCKTIMEVERIFY OP_CHECKSIGADD");
    buf_reset(&s);
    CHECK(script_asm_parse(&s, "FOO", NULL, 0) != 0);
    CHECK(script_asm_parse(&s, "NOP2", NULL, 0) != 0); /* as in Core: only the new name */
    CHECK(script_asm_parse(&s, "4294967296", NULL, 0) != 0);
    buf_reset(&a);
    static const uint8_t trunc[] = {0x76, 0x4c};
    script_asm_format(&a, trunc, sizeof(trunc));
    CHECK_EQ_STR((const char *)a.data, "OP_DUP [error]");
    buf_clear(&s);
    buf_clear(&a);
}

static void test_lax_der(void)
{
    /* A BER signature with a long-form sequence length and padded R, which strict DER
     * rejects and the lax parser accepts. */
    static const uint8_t ber[] = {0x30, 0x81, 0x08, 0x02, 0x02, 0x00, 0x01, 0x02, 0x02, 0x00, 0x01};
    secp256k1_ecdsa_signature sig;
    uint8_t compact[64];
    CHECK(script_ecdsa_parse_der_lax(&sig, ber, sizeof(ber)));
    secp256k1_ecdsa_signature_serialize_compact(script_secp_ctx(), compact, &sig);
    CHECK_EQ_INT(compact[31], 1);
    CHECK_EQ_INT(compact[63], 1);
    static const uint8_t notseq[] = {0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01};
    CHECK(!script_ecdsa_parse_der_lax(&sig, notseq, sizeof(notseq)));
    /* R longer than 32 significant bytes: parses, as an invalid all-zero signature. */
    uint8_t big[2 + 2 + 33 + 3];
    big[0] = 0x30;
    big[1] = 38;
    big[2] = 0x02;
    big[3] = 33;
    memset(big + 4, 0x11, 33);
    big[37] = 0x02;
    big[38] = 0x01;
    big[39] = 0x01;
    CHECK(script_ecdsa_parse_der_lax(&sig, big, sizeof(big)));
    secp256k1_ecdsa_signature_serialize_compact(script_secp_ctx(), compact, &sig);
    static const uint8_t zero[64] = {0};
    CHECK_EQ_MEM(compact, zero, 64);
}

static void test_sigops(void)
{
    struct buf s;
    buf_init(&s);
    CHECK_EQ_INT(script_asm_parse(
                     &s,
                     "2 0x21 0x02aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
                     "0x21 0x02bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb "
                     "2 CHECKMULTISIG CHECKSIG CHECKSIGVERIFY",
                     NULL, 0),
                 0);
    CHECK_EQ_INT(script_sigop_count(s.data, s.len, 1), 4);
    CHECK_EQ_INT(script_sigop_count(s.data, s.len, 0), 22);
    /* P2SH: the redeem script is the last push of the scriptSig. */
    struct buf sig, spk;
    buf_init(&sig);
    buf_init(&spk);
    buf_put_u8(&sig, OP_0);
    script_push_data(&sig, s.data, s.len);
    uint8_t h[20];
    hash_hash160(h, s.data, s.len);
    buf_put_u8(&spk, OP_HASH160);
    script_push_data(&spk, h, 20);
    buf_put_u8(&spk, OP_EQUAL);
    CHECK_EQ_INT(script_p2sh_sigop_count(spk.data, spk.len, sig.data, sig.len), 4);
    buf_put_u8(&sig, OP_NOP);
    CHECK_EQ_INT(script_p2sh_sigop_count(spk.data, spk.len, sig.data, sig.len), 0);
    /* P2WSH: the witness script, accurately. */
    uint8_t wsh[34];
    wsh[0] = OP_0;
    wsh[1] = 32;
    hash_sha256(wsh + 2, s.data, s.len);
    struct bytes wit[2] = {{NULL, 0}, {s.data, s.len}};
    uint32_t f = SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS;
    CHECK_EQ_INT(script_witness_sigop_count(NULL, 0, wsh, 34, wit, 2, f), 4);
    CHECK_EQ_INT(script_witness_sigop_count(NULL, 0, wsh, 34, wit, 2, SCRIPT_VERIFY_P2SH), 0);
    uint8_t wpkh[22] = {OP_0, 20};
    CHECK_EQ_INT(script_witness_sigop_count(NULL, 0, wpkh, 22, wit, 2, f), 1);
    uint8_t tr[34] = {OP_1, 32};
    CHECK_EQ_INT(script_witness_sigop_count(NULL, 0, tr, 34, wit, 2, f), 0);
    buf_clear(&s);
    buf_clear(&sig);
    buf_clear(&spk);
}

static void test_sigcache(void)
{
    static const uint8_t salt[32] = {1};
    struct sigcache *c = sigcache_new(4096, salt);
    uint8_t e1[32], e2[32], e3[32], h[32] = {7}, sig[64] = {9}, pk[33] = {2};
    sigcache_entry_ecdsa(c, e1, h, sig, 64, pk, 33);
    sigcache_entry_ecdsa(c, e2, h, sig, 63, pk, 33);
    sigcache_entry_schnorr(c, e3, h, sig, pk);
    CHECK(memcmp(e1, e2, 32) != 0);
    CHECK(memcmp(e1, e3, 32) != 0);
    CHECK(!sigcache_contains(c, e1));
    sigcache_insert(c, e1);
    CHECK(sigcache_contains(c, e1));
    CHECK(!sigcache_contains(c, e2));
    /* Bounded: inserting far more than the capacity keeps memory fixed and evicts. */
    size_t cap = sigcache_capacity(c);
    CHECK(cap > 0 && cap <= 4096 / 32);
    for (uint32_t i = 0; i < 10000; i++) {
        uint8_t e[32];
        hash_sha256(e, &i, sizeof(i));
        sigcache_insert(c, e);
    }
    size_t present = 0;
    for (uint32_t i = 0; i < 10000; i++) {
        uint8_t e[32];
        hash_sha256(e, &i, sizeof(i));
        present += (size_t)sigcache_contains(c, e);
    }
    CHECK(present <= cap);
    CHECK(present > cap / 2);
    /* Different salt, different key. */
    static const uint8_t salt2[32] = {2};
    struct sigcache *c2 = sigcache_new(4096, salt2);
    uint8_t e4[32];
    sigcache_entry_ecdsa(c2, e4, h, sig, 64, pk, 33);
    CHECK(memcmp(e1, e4, 32) != 0);
    sigcache_free(c2);
    sigcache_free(c);
    sigcache_free(NULL);
}

struct cache_thread_arg {
    struct sigcache *c;
    uint32_t base;
    size_t hits;
};

static void *cache_thread(void *p)
{
    struct cache_thread_arg *a = p;
    for (uint32_t i = 0; i < 20000; i++) {
        uint8_t e[32];
        uint32_t v = a->base + (i % 500);
        hash_sha256(e, &v, sizeof(v));
        if (i < 500) {
            sigcache_insert(a->c, e);
        } else {
            a->hits += (size_t)sigcache_contains(a->c, e);
        }
    }
    return NULL;
}

/* Concurrent readers and writers (run under ThreadSanitizer in CI). */
static void test_sigcache_threads(void)
{
    struct sigcache *c = sigcache_new(1 << 20, NULL);
    pthread_t th[4];
    struct cache_thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i].c = c;
        args[i].base = (uint32_t)(i % 2) * 1000;
        args[i].hits = 0;
        CHECK_EQ_INT(pthread_create(&th[i], NULL, cache_thread, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].hits > 0);
    }
    for (uint32_t v = 0; v < 500; v++) {
        uint8_t e[32];
        hash_sha256(e, &v, sizeof(v));
        CHECK(sigcache_contains(c, e));
    }
    sigcache_free(c);
}

/* A P2WPKH spend signed here, verified with and without the cache, and tampered. */
static void test_sign_verify_p2wpkh(void)
{
    const secp256k1_context *ctx = script_secp_ctx();
    secp256k1_context *sctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    uint8_t priv[32];
    memset(priv, 0x42, 32);
    secp256k1_pubkey pub;
    CHECK(secp256k1_ec_pubkey_create(sctx, &pub, priv));
    uint8_t pk[33];
    size_t pklen = 33;
    secp256k1_ec_pubkey_serialize(ctx, pk, &pklen, &pub, SECP256K1_EC_COMPRESSED);
    uint8_t spk[22] = {OP_0, 20};
    hash_hash160(spk + 2, pk, 33);

    struct tx tx;
    tx_init(&tx);
    tx.version = 2;
    tx.vin_count = 1;
    tx.vin = xcalloc(1, sizeof(struct tx_in));
    memset(tx.vin[0].prevout.txid, 0xab, 32);
    tx.vin[0].sequence = SEQUENCE_FINAL;
    tx.vout_count = 1;
    tx.vout = xcalloc(1, sizeof(struct tx_out));
    tx.vout[0].value_sat = 1000;
    struct tx_out spent = {.value_sat = 5000, .script_pubkey = {spk, sizeof(spk)}};
    uint8_t code[25] = {OP_DUP, OP_HASH160, 20};
    memcpy(code + 3, spk + 2, 20);
    code[23] = OP_EQUALVERIFY;
    code[24] = OP_CHECKSIG;
    uint8_t h[32];
    sighash_witness_v0(h, code, 25, &tx, 0, SIGHASH_ALL, 5000, NULL);
    secp256k1_ecdsa_signature sig;
    CHECK(secp256k1_ecdsa_sign(sctx, &sig, h, priv, NULL, NULL));
    uint8_t der[80];
    size_t derlen = 72;
    secp256k1_ecdsa_signature_serialize_der(ctx, der, &derlen, &sig);
    der[derlen++] = SIGHASH_ALL;
    tx.vin[0].witness_count = 2;
    tx.vin[0].witness = xcalloc(2, sizeof(struct bytes));
    bytes_set(&tx.vin[0].witness[0], der, derlen);
    bytes_set(&tx.vin[0].witness[1], pk, 33);
    tx_compute_hashes(&tx);

    struct tx_precomputed pd;
    sighash_precompute(&pd, &tx, &spent, 1);
    enum script_error err;
    struct sigcache *cache = sigcache_new(1 << 16, NULL);
    uint32_t f = SCRIPT_FLAGS_STANDARD;
    CHECK(script_verify_input(&tx, 0, &spent, &pd, f, cache, 1, &err));
    CHECK_EQ_INT(err, SCRIPT_ERR_OK);
    CHECK(script_verify_input(&tx, 0, &spent, &pd, f, cache, 0, &err));
    enum script_error errs[1] = {SCRIPT_ERR_UNKNOWN_ERROR};
    CHECK_EQ_INT(script_verify_tx(&tx, &spent, f, NULL, errs), 0);
    CHECK_EQ_INT(errs[0], SCRIPT_ERR_OK);
    /* Wrong amount: BIP143 commits to it. */
    spent.value_sat = 5001;
    CHECK(!script_verify_input(&tx, 0, &spent, &pd, f & ~(uint32_t)SCRIPT_VERIFY_NULLFAIL, cache, 0,
                               &err));
    CHECK_EQ_INT(err, SCRIPT_ERR_EVAL_FALSE);
    CHECK(!script_verify_input(&tx, 0, &spent, &pd, f, cache, 0, &err));
    CHECK_EQ_INT(err, SCRIPT_ERR_SIG_NULLFAIL);
    spent.value_sat = 5000;
    /* A flipped byte inside S. */
    tx.vin[0].witness[0].data[derlen - 3] ^= 1;
    CHECK(!script_verify_input(&tx, 0, &spent, &pd, SCRIPT_FLAGS_CONSENSUS, cache, 0, &err));
    CHECK_EQ_INT(err, SCRIPT_ERR_EVAL_FALSE);
    sigcache_free(cache);
    secp256k1_context_destroy(sctx);
    tx_clear(&tx);
}

/* Core's script_FindAndDelete cases (script_tests.cpp). */
static void test_find_and_delete(void)
{
    static const struct {
        const char *script, *pattern, *expect;
        int found;
    } cases[] = {
        {"0302ff03", "0302ff03", "", 1},
        {"0302ff030302ff03", "0302ff03", "", 2},
        {"0302ff030302ff03", "02", "0302ff030302ff03", 0}, /* whole opcodes only */
        {"0302ff030302ff03", "ff", "0302ff030302ff03", 0},
        {"0302ff030302ff03", "03", "02ff0302ff03", 2}, /* strips the push prefix */
        {"02feed5169", "feed51", "02feed5169", 0},     /* not inside opcodes */
        {"02feed5169", "02feed51", "69", 1},
        {"516902feed5169", "feed51", "516902feed5169", 0},
        {"516902feed5169", "02feed51", "516969", 1},
        {"00005151", "0051", "0051", 1}, /* single pass */
        {"000051005151", "0051", "0051", 2},
        {"0003feed", "03feed", "00", 1}, /* an invalid final push can be removed */
        {"0003feed", "00", "03feed", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf sc, pat, want, out;
        buf_init(&sc);
        buf_init(&pat);
        buf_init(&want);
        buf_init(&out);
        hex_decode(&sc, cases[i].script);
        hex_decode(&pat, cases[i].pattern);
        hex_decode(&want, cases[i].expect);
        int n = script_find_and_delete(&out, sc.data, sc.len, pat.data, pat.len);
        CHECK_EQ_INT(n, cases[i].found);
        const struct buf *res = n > 0 ? &out : &sc;
        CHECK_EQ_INT(res->len, want.len);
        if (res->len == want.len && want.len) {
            CHECK_EQ_MEM(res->data, want.data, want.len);
        }
        buf_clear(&sc);
        buf_clear(&pat);
        buf_clear(&want);
        buf_clear(&out);
    }
}

static void test_solver(void)
{
    static const struct {
        const char *hex;
        const char *type;
    } cases[] = {
        {"76a914751e76e8199196d454941c45d1b3a323f1433bd688ac", "pubkeyhash"},
        {"a914e7309652a8e3f600f06f5d8d52d6df03d2176cc387", "scripthash"},
        {"00147dd65592d0ab2fe0d0257d571abf032cd9db93dc", "witness_v0_keyhash"},
        {"0020c7eaf06d5ae01a58e376e126eb1e6fab2036076922b96b2711ffbec1e590665d",
         "witness_v0_scripthash"},
        {"512053a1f6e454df1aa2776a2814a721372d6258050de330b3c6d10ee8f4e0dda343",
         "witness_v1_taproot"},
        {"51024e73", "anchor"},
        {"5202abcd", "witness_unknown"},
        {"0003abcdef", "nonstandard"},
        {"6a0b68656c6c6f20776f726c64", "nulldata"},
        {"6a", "nulldata"},
        {"6a61", "nonstandard"},
        {"2102aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", "pubkey"},
        {"2104aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac", "nonstandard"},
        {"51"
         "2102aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "2103bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
         "52ae",
         "multisig"},
        {"53"
         "2102aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "2103bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
         "52ae",
         "nonstandard"},
        {"", "nonstandard"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf b;
        buf_init(&b);
        CHECK_EQ_INT(hex_decode(&b, cases[i].hex), 0);
        int m = -1, n = -1;
        CHECK_EQ_STR(script_type_name(script_solve(b.data, b.len, &m, &n)), cases[i].type);
        if (strcmp(cases[i].type, "multisig") == 0) {
            CHECK_EQ_INT(m, 1);
            CHECK_EQ_INT(n, 2);
        }
        buf_clear(&b);
    }
}

static void test_error_names(void)
{
    enum script_error e;
    CHECK_EQ_INT(script_error_parse(&e, "NULLFAIL"), 0);
    CHECK_EQ_INT(e, SCRIPT_ERR_SIG_NULLFAIL);
    CHECK_EQ_STR(script_error_name(SCRIPT_ERR_WITNESS_PROGRAM_MISMATCH),
                 "WITNESS_PROGRAM_MISMATCH");
    for (int i = 0; i < SCRIPT_ERR_ERROR_COUNT; i++) {
        CHECK_EQ_INT(script_error_parse(&e, script_error_name((enum script_error)i)), 0);
        CHECK_EQ_INT(e, i);
    }
    uint32_t f;
    CHECK_EQ_INT(script_flags_parse(&f, "P2SH,WITNESS,TAPROOT"), 0);
    CHECK_EQ_INT(f, SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS | SCRIPT_VERIFY_TAPROOT);
    CHECK_EQ_INT(script_flags_parse(&f, "NONE"), 0);
    CHECK_EQ_INT(f, 0);
    CHECK(script_flags_parse(&f, "P2SH,BOGUS") != 0);
    CHECK_EQ_INT(SCRIPT_FLAGS_CONSENSUS & SCRIPT_FLAGS_POLICY_ONLY, 0);
    CHECK_EQ_INT(SCRIPT_FLAGS_STANDARD, SCRIPT_FLAGS_ALL & ~(uint32_t)SCRIPT_VERIFY_SIGPUSHONLY);
}

int main(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/vectors/script_tests.json", test_shared_dir());
    FILE *f = fopen(path, "rb");
    if (!f) {
        return test_missing_shared("vectors/script_tests.json");
    }
    fclose(f);

    script_secp_init();
    TEST(test_scriptnum);
    TEST(test_asm_roundtrip);
    TEST(test_lax_der);
    TEST(test_sigops);
    TEST(test_sigcache);
    TEST(test_sigcache_threads);
    TEST(test_sign_verify_p2wpkh);
    TEST(test_error_names);
    TEST(test_solver);
    TEST(test_find_and_delete);
    TEST(test_bip143_examples);
    TEST(test_tapscript_checksig);
    TEST(test_tapscript_rules);
    TEST(test_taproot_keypath);
    test_script_vectors();
    test_tx_vectors("tx_valid.json", 1);
    test_tx_vectors("tx_invalid.json", 0);
    test_sighash_vectors();
    test_bip341_vectors();
    test_block_dir("mainnet-blocks-with-spent-outputs", "main");
    test_block_dir("mainnet-edge-case-blocks", "main");
    test_block_dir("testnet3-blocks", "test");
    test_blocks_from_genesis();
    return test_done();
}
