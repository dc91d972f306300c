/* bitnode-util genchain: writes a deterministic regtest chain in the -loadblock format.
 *
 *   bitnode-util genchain --blocks N --txs M --seed S --out FILE [--mix TYPES]
 *                         [--tail T] [--expect FILE.json] [--verify]
 *
 * From a seed, a pool of keys and a pseudo-random stream decide every choice, so the same
 * arguments always give the same bytes. Block h >= 101 first spends the coinbase of block
 * h - 100 in a fan-out, then adds about M transactions spending outputs of earlier blocks:
 * simple payments (1-2 in, 2 out), fan-outs (1 in, 5-25 out; --fanout P percent of them,
 * default 15) and consolidations (3-12 in, 1 out; 15 percent). --tail T appends T blocks holding only their coinbase (enough of them bury the
 * spending blocks deep enough for -assumevalid=<tip> to skip their scripts). Every output
 * is one of the chosen types: P2PKH, P2SH 2-of-3 multisig, P2WPKH, P2WSH 2-of-3 multisig,
 * P2TR key path, P2TR script path (one leaf: <xonly> OP_CHECKSIG).
 *
 * The generator keeps its own UTXO model and prints the tip hash, the signature checks the
 * chain needs (ECDSA and Schnorr), and the UTXO set's hash_serialized_3 and muhash as
 * gettxoutsetinfo should report them (coins/stats.h, coins in txid-then-n order).
 * --verify re-parses every block and checks it with the library's context-free and
 * contextual block rules and its script interpreter (script_verify_block, as verify-block).
 * --dump H PREFIX writes block H as PREFIX.bin and the outputs it spends as PREFIX.json, the
 * input of `bitnode-util verify-block PREFIX.bin PREFIX.json --height H`.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

#include "coins/stats.h"
#include "consensus/amount.h"
#include "consensus/merkle.h"
#include "consensus/params.h"
#include "consensus/pow.h"
#include "consensus/tx_check.h"
#include "consensus/vstate.h"
#include "crypto/hash.h"
#include "primitives/block.h"
#include "primitives/tx.h"
#include "script/block_verify.h"
#include "script/interpreter.h"
#include "script/sighash.h"
#include "script/sigcheck.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/block_check.h"

int util_cmd_genchain(int argc, char **argv);

#define GEN_NKEYS 256
#define GEN_FEE 2000         /* satoshis per transaction */
#define GEN_MIN_OUT 10000    /* smallest output value */
#define GEN_MATURITY 100     /* coinbase maturity */
#define GEN_CB_FANOUT 50     /* outputs of the transaction spending a matured coinbase */
#define GEN_MAX_WEIGHT 3600000
#define GEN_MAX_SIGOPS 72000

enum gen_type {
    GT_P2PKH,
    GT_P2SH_MS,
    GT_P2WPKH,
    GT_P2WSH_MS,
    GT_P2TR_KEY,
    GT_P2TR_SCRIPT,
    GT_COUNT
};

static const char *const gen_type_names[GT_COUNT] = {
    "p2pkh", "p2sh-multisig", "p2wpkh", "p2wsh-multisig", "p2tr-key", "p2tr-script",
};

/* Signature checks (verifies) one spend of each type needs. CHECKMULTISIG pairs the last
 * signature with the last key first and walks back, so the multisigs sign with the last two
 * of their three keys (k+1, k+2): it verifies exactly twice. Signing with the first two
 * would cost a third, failing, verify (the last signature tried against key k+2). */
static const int gen_type_sigs[GT_COUNT] = {1, 2, 1, 2, 1, 1};
static const int gen_type_schnorr[GT_COUNT] = {0, 0, 0, 0, 1, 1};
/* Sigop cost of spending one (legacy sigops count 4, witness sigops 1). */
static const int gen_type_sigops[GT_COUNT] = {4, 12, 1, 3, 0, 0};

struct gen_key {
    uint8_t sec[32];
    uint8_t pub[33];
    uint8_t h160[20];
    secp256k1_keypair kp;
    uint8_t xonly[32];
    /* key k's 2-of-3 multisig script over keys k, k+1, k+2 */
    uint8_t ms[105];
    uint8_t ms_h160[20];
    uint8_t ms_sha[32];
    /* P2TR key path: output key and the tweaked keypair that signs for it */
    uint8_t tr_out[32];
    secp256k1_keypair tr_kp;
    /* P2TR script path: internal key k, one leaf <xonly of k+1> OP_CHECKSIG */
    uint8_t leaf[34];
    uint8_t leaf_hash[32];
    uint8_t trs_out[32];
    uint8_t trs_control[33];
};

struct gen_coin {
    struct outpoint op;
    int64_t value;
    uint32_t height;
    uint32_t key;
    uint8_t coinbase;
    uint8_t type;
    uint8_t spent;
    uint8_t spk_len;
    uint8_t spk[34];
};

struct gen {
    const struct chain_params *chain;
    secp256k1_context *ctx;
    uint64_t rng;
    struct gen_key *keys;
    enum gen_type mix[GT_COUNT];
    size_t nmix;
    struct gen_coin *coins;
    size_t ncoins, capcoins;
    size_t *pool; /* spendable coin indices */
    size_t npool, cappool;
    size_t *pending; /* created in the block being built */
    size_t npending, cappending;
    size_t *cb_coin; /* coin index of each height's coinbase output */
    size_t *blk_inputs; /* coin index of each non-coinbase input of the block being built */
    size_t nblk_inputs, capblk_inputs;
    uint64_t ecdsa, schnorr, ntx, spends[GT_COUNT];
};

static uint64_t gen_rand(struct gen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static size_t gen_range(struct gen *g, size_t lo, size_t hi)
{
    return lo + (size_t)(gen_rand(g) % (uint64_t)(hi - lo + 1));
}

static void push_index(size_t **v, size_t *n, size_t *cap, size_t x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *v = xrealloc(*v, *cap * sizeof(**v));
    }
    (*v)[(*n)++] = x;
}

static void gen_keys(struct gen *g, uint64_t seed)
{
    g->keys = xcalloc(GEN_NKEYS, sizeof(*g->keys));
    for (uint32_t i = 0; i < GEN_NKEYS; i++) {
        struct gen_key *k = &g->keys[i];
        uint8_t pre[40];
        memcpy(pre, "genchain", 8);
        wr_u64le(pre + 8, seed);
        for (uint32_t ctr = 0;; ctr++) {
            wr_u32le(pre + 16, i);
            wr_u32le(pre + 20, ctr);
            hash_sha256(k->sec, pre, 24);
            if (secp256k1_ec_seckey_verify(g->ctx, k->sec)) {
                break;
            }
        }
        secp256k1_pubkey pk;
        size_t len = 33;
        CHECK_ALWAYS(secp256k1_ec_pubkey_create(g->ctx, &pk, k->sec));
        secp256k1_ec_pubkey_serialize(g->ctx, k->pub, &len, &pk, SECP256K1_EC_COMPRESSED);
        hash_hash160(k->h160, k->pub, 33);
        CHECK_ALWAYS(secp256k1_keypair_create(g->ctx, &k->kp, k->sec));
        secp256k1_xonly_pubkey xo;
        CHECK_ALWAYS(secp256k1_keypair_xonly_pub(g->ctx, &xo, NULL, &k->kp));
        secp256k1_xonly_pubkey_serialize(g->ctx, k->xonly, &xo);
    }
    for (uint32_t i = 0; i < GEN_NKEYS; i++) {
        struct gen_key *k = &g->keys[i];
        const struct gen_key *k1 = &g->keys[(i + 1) % GEN_NKEYS];
        const struct gen_key *k2 = &g->keys[(i + 2) % GEN_NKEYS];
        uint8_t *m = k->ms;
        *m++ = 0x52;
        *m++ = 33;
        memcpy(m, k->pub, 33);
        m += 33;
        *m++ = 33;
        memcpy(m, k1->pub, 33);
        m += 33;
        *m++ = 33;
        memcpy(m, k2->pub, 33);
        m += 33;
        *m++ = 0x53;
        *m++ = 0xae;
        hash_hash160(k->ms_h160, k->ms, sizeof(k->ms));
        hash_sha256(k->ms_sha, k->ms, sizeof(k->ms));

        /* key path: tweak = TapTweak(internal) */
        uint8_t tweak[32];
        int parity;
        hash_tagged(tweak, "TapTweak", k->xonly, 32);
        k->tr_kp = k->kp;
        CHECK_ALWAYS(secp256k1_keypair_xonly_tweak_add(g->ctx, &k->tr_kp, tweak));
        secp256k1_xonly_pubkey xo;
        CHECK_ALWAYS(secp256k1_keypair_xonly_pub(g->ctx, &xo, NULL, &k->tr_kp));
        secp256k1_xonly_pubkey_serialize(g->ctx, k->tr_out, &xo);
        uint8_t check[32];
        CHECK_ALWAYS(script_taproot_tweak(check, &parity, k->xonly, NULL));
        CHECK_ALWAYS(memcmp(check, k->tr_out, 32) == 0);

        /* script path */
        k->leaf[0] = 0x20;
        memcpy(k->leaf + 1, k1->xonly, 32);
        k->leaf[33] = 0xac;
        script_tapleaf_hash(k->leaf_hash, 0xc0, k->leaf, sizeof(k->leaf));
        CHECK_ALWAYS(script_taproot_tweak(k->trs_out, &parity, k->xonly, k->leaf_hash));
        k->trs_control[0] = (uint8_t)(0xc0 | (parity & 1));
        memcpy(k->trs_control + 1, k->xonly, 32);
    }
}

/* Sets the coin's scriptPubKey from its type and key. */
static void coin_set_spk(const struct gen *g, struct gen_coin *c)
{
    const struct gen_key *k = &g->keys[c->key];
    uint8_t *s = c->spk;
    switch ((enum gen_type)c->type) {
    case GT_P2PKH:
        memcpy(s, "\x76\xa9\x14", 3);
        memcpy(s + 3, k->h160, 20);
        s[23] = 0x88;
        s[24] = 0xac;
        c->spk_len = 25;
        break;
    case GT_P2SH_MS:
        s[0] = 0xa9;
        s[1] = 0x14;
        memcpy(s + 2, k->ms_h160, 20);
        s[22] = 0x87;
        c->spk_len = 23;
        break;
    case GT_P2WPKH:
        s[0] = 0x00;
        s[1] = 0x14;
        memcpy(s + 2, k->h160, 20);
        c->spk_len = 22;
        break;
    case GT_P2WSH_MS:
        s[0] = 0x00;
        s[1] = 0x20;
        memcpy(s + 2, k->ms_sha, 32);
        c->spk_len = 34;
        break;
    case GT_P2TR_KEY:
    case GT_P2TR_SCRIPT:
        s[0] = 0x51;
        s[1] = 0x20;
        memcpy(s + 2, c->type == GT_P2TR_KEY ? k->tr_out : k->trs_out, 32);
        c->spk_len = 34;
        break;
    default:
        CHECK_ALWAYS(0);
    }
}

/* Adds a new coin (an output of txid:n) to the model; returns its index. */
static size_t gen_add_coin(struct gen *g, const uint8_t txid[32], uint32_t n, int64_t value,
                           uint32_t height, int coinbase, enum gen_type type, uint32_t key)
{
    if (g->ncoins == g->capcoins) {
        g->capcoins = g->capcoins ? 2 * g->capcoins : 4096;
        g->coins = xrealloc(g->coins, g->capcoins * sizeof(*g->coins));
    }
    struct gen_coin *c = &g->coins[g->ncoins];
    memset(c, 0, sizeof(*c));
    memcpy(c->op.txid, txid, 32);
    c->op.n = n;
    c->value = value;
    c->height = height;
    c->coinbase = (uint8_t)coinbase;
    c->type = (uint8_t)type;
    c->key = key;
    coin_set_spk(g, c);
    return g->ncoins++;
}

static void bytes_set(struct bytes *b, const uint8_t *p, size_t len)
{
    b->len = len;
    b->data = len ? xmalloc(len) : NULL;
    if (len) {
        memcpy(b->data, p, len);
    }
}

static void witness_set(struct tx_in *in, size_t n, const uint8_t *const *items,
                        const size_t *lens)
{
    in->witness = xcalloc(n, sizeof(*in->witness));
    in->witness_count = n;
    for (size_t i = 0; i < n; i++) {
        bytes_set(&in->witness[i], items[i], lens[i]);
    }
}

/* DER signature with SIGHASH_ALL appended; returns its length (<= 73). */
static size_t gen_ecdsa(const struct gen *g, uint8_t out[73], const uint8_t hash[32],
                        const struct gen_key *k)
{
    secp256k1_ecdsa_signature sig;
    size_t len = 72;
    CHECK_ALWAYS(secp256k1_ecdsa_sign(g->ctx, &sig, hash, k->sec, NULL, NULL));
    CHECK_ALWAYS(secp256k1_ecdsa_signature_serialize_der(g->ctx, out, &len, &sig));
    out[len++] = SIGHASH_ALL;
    return len;
}

static void push_data(struct buf *s, const uint8_t *p, size_t len)
{
    if (len < 76) {
        buf_put_u8(s, (uint8_t)len);
    } else {
        CHECK_ALWAYS(len < 256);
        buf_put_u8(s, 0x4c);
        buf_put_u8(s, (uint8_t)len);
    }
    buf_append(s, p, len);
}

/* Signs every input of tx, which spends the coins ins[0..vin_count). */
static void gen_sign(struct gen *g, struct tx *tx, const size_t *ins)
{
    size_t nin = tx->vin_count;
    struct tx_out *spent = xcalloc(nin, sizeof(*spent));
    for (size_t i = 0; i < nin; i++) {
        const struct gen_coin *c = &g->coins[ins[i]];
        spent[i].value_sat = c->value;
        spent[i].script_pubkey.data = (uint8_t *)c->spk;
        spent[i].script_pubkey.len = c->spk_len;
    }
    struct tx_precomputed pd;
    sighash_precompute(&pd, tx, spent, nin);
    struct buf ss;
    buf_init(&ss);
    for (size_t i = 0; i < nin; i++) {
        const struct gen_coin *c = &g->coins[ins[i]];
        const struct gen_key *k = &g->keys[c->key];
        const struct gen_key *k1 = &g->keys[(c->key + 1) % GEN_NKEYS];
        const struct gen_key *k2 = &g->keys[(c->key + 2) % GEN_NKEYS];
        struct tx_in *in = &tx->vin[i];
        uint8_t h[32], s1[73], s2[73], code[25];
        size_t l1, l2;
        struct script_execdata ed;
        memset(&ed, 0, sizeof(ed));
        ed.annex_init = 1;
        buf_reset(&ss);
        memcpy(code, "\x76\xa9\x14", 3);
        memcpy(code + 3, k->h160, 20);
        code[23] = 0x88;
        code[24] = 0xac;
        switch ((enum gen_type)c->type) {
        case GT_P2PKH:
            sighash_legacy(h, c->spk, c->spk_len, tx, i, SIGHASH_ALL);
            l1 = gen_ecdsa(g, s1, h, k);
            push_data(&ss, s1, l1);
            push_data(&ss, k->pub, 33);
            break;
        case GT_P2SH_MS:
            sighash_legacy(h, k->ms, sizeof(k->ms), tx, i, SIGHASH_ALL);
            l1 = gen_ecdsa(g, s1, h, k1);
            l2 = gen_ecdsa(g, s2, h, k2);
            buf_put_u8(&ss, 0x00);
            push_data(&ss, s1, l1);
            push_data(&ss, s2, l2);
            push_data(&ss, k->ms, sizeof(k->ms));
            break;
        case GT_P2WPKH: {
            sighash_witness_v0(h, code, sizeof(code), tx, i, SIGHASH_ALL, c->value, &pd);
            l1 = gen_ecdsa(g, s1, h, k);
            const uint8_t *items[2] = {s1, k->pub};
            size_t lens[2] = {l1, 33};
            witness_set(in, 2, items, lens);
            break;
        }
        case GT_P2WSH_MS: {
            sighash_witness_v0(h, k->ms, sizeof(k->ms), tx, i, SIGHASH_ALL, c->value, &pd);
            l1 = gen_ecdsa(g, s1, h, k1);
            l2 = gen_ecdsa(g, s2, h, k2);
            const uint8_t *items[4] = {NULL, s1, s2, k->ms};
            size_t lens[4] = {0, l1, l2, sizeof(k->ms)};
            witness_set(in, 4, items, lens);
            break;
        }
        case GT_P2TR_KEY: {
            CHECK_ALWAYS(sighash_taproot(h, tx, i, SIGHASH_DEFAULT, SIGVERSION_TAPROOT, &ed, &pd,
                                         NULL));
            CHECK_ALWAYS(secp256k1_schnorrsig_sign32(g->ctx, s1, h, &k->tr_kp, NULL));
            const uint8_t *items[1] = {s1};
            size_t lens[1] = {64};
            witness_set(in, 1, items, lens);
            break;
        }
        case GT_P2TR_SCRIPT: {
            ed.tapleaf_hash_init = 1;
            memcpy(ed.tapleaf_hash, k->leaf_hash, 32);
            ed.codeseparator_pos_init = 1;
            ed.codeseparator_pos = 0xffffffffu;
            CHECK_ALWAYS(sighash_taproot(h, tx, i, SIGHASH_DEFAULT, SIGVERSION_TAPSCRIPT, &ed,
                                         &pd, NULL));
            CHECK_ALWAYS(secp256k1_schnorrsig_sign32(g->ctx, s1, h, &k1->kp, NULL));
            const uint8_t *items[3] = {s1, k->leaf, k->trs_control};
            size_t lens[3] = {64, sizeof(k->leaf), sizeof(k->trs_control)};
            witness_set(in, 3, items, lens);
            break;
        }
        default:
            CHECK_ALWAYS(0);
        }
        if (ss.len) {
            bytes_set(&in->script_sig, ss.data, ss.len);
        }
        g->spends[c->type]++;
        if (gen_type_schnorr[c->type]) {
            g->schnorr += (uint64_t)gen_type_sigs[c->type];
        } else {
            g->ecdsa += (uint64_t)gen_type_sigs[c->type];
        }
    }
    buf_clear(&ss);
    free(spent);
    tx_compute_hashes(tx);
}

/* Builds a transaction spending ins[0..nin) into up to nout outputs of random types and
 * keys, signs it, records it in the model, and returns its sigop cost (or -1, leaving tx
 * empty, if the inputs cannot pay the fee and one minimal output). */
static int gen_tx(struct gen *g, struct tx *tx, const size_t *ins, size_t nin, size_t nout,
                  uint32_t height)
{
    int64_t total = 0;
    int sigops = 0;
    for (size_t i = 0; i < nin; i++) {
        total += g->coins[ins[i]].value;
        sigops += gen_type_sigops[g->coins[ins[i]].type];
    }
    if (total < GEN_FEE + GEN_MIN_OUT) {
        return -1;
    }
    int64_t avail = total - GEN_FEE;
    if ((int64_t)nout > avail / GEN_MIN_OUT) {
        nout = (size_t)(avail / GEN_MIN_OUT);
    }
    tx_init(tx);
    tx->version = 2;
    tx->locktime = 0;
    tx->vin = xcalloc(nin, sizeof(*tx->vin));
    tx->vin_count = nin;
    for (size_t i = 0; i < nin; i++) {
        tx->vin[i].prevout = g->coins[ins[i]].op;
        tx->vin[i].sequence = SEQUENCE_FINAL - 1;
    }
    tx->vout = xcalloc(nout, sizeof(*tx->vout));
    tx->vout_count = nout;
    /* Outputs: types and keys now, scripts from a scratch coin. */
    enum gen_type *types = xcalloc(nout, sizeof(*types));
    uint32_t *keys = xcalloc(nout, sizeof(*keys));
    for (size_t o = 0; o < nout; o++) {
        struct gen_coin tmp;
        memset(&tmp, 0, sizeof(tmp));
        types[o] = g->mix[gen_range(g, 0, g->nmix - 1)];
        keys[o] = (uint32_t)gen_range(g, 0, GEN_NKEYS - 1);
        tmp.type = (uint8_t)types[o];
        tmp.key = keys[o];
        coin_set_spk(g, &tmp);
        /* uneven shares: each output gets avail / nout scaled by 1/2..3/2, the first takes
         * what is left */
        int64_t share = avail / (int64_t)nout;
        int64_t v = share / 2 + (int64_t)(gen_rand(g) % (uint64_t)(share + 1));
        if (v < GEN_MIN_OUT) {
            v = GEN_MIN_OUT;
        }
        tx->vout[o].value_sat = v;
        bytes_set(&tx->vout[o].script_pubkey, tmp.spk, tmp.spk_len);
        if (tmp.type == GT_P2PKH) {
            sigops += 4;
        }
    }
    /* Make the values add up to avail exactly: take from or give to the outputs in turn. */
    int64_t sum = 0;
    for (size_t o = 0; o < nout; o++) {
        sum += tx->vout[o].value_sat;
    }
    for (size_t o = 0; sum != avail; o = (o + 1) % nout) {
        int64_t d = avail - sum;
        if (d > 0) {
            tx->vout[o].value_sat += d;
            sum += d;
        } else {
            int64_t room = tx->vout[o].value_sat - GEN_MIN_OUT;
            int64_t take = room < -d ? room : -d;
            tx->vout[o].value_sat -= take;
            sum -= take;
        }
    }
    gen_sign(g, tx, ins);
    for (size_t i = 0; i < nin; i++) {
        g->coins[ins[i]].spent = 1;
        push_index(&g->blk_inputs, &g->nblk_inputs, &g->capblk_inputs, ins[i]);
    }
    for (size_t o = 0; o < nout; o++) {
        size_t ci = gen_add_coin(g, tx->txid, (uint32_t)o, tx->vout[o].value_sat, height, 0,
                                 types[o], keys[o]);
        push_index(&g->pending, &g->npending, &g->cappending, ci);
    }
    free(types);
    free(keys);
    g->ntx++;
    return sigops;
}

/* Removes and returns a random spendable coin. */
static size_t pool_take(struct gen *g)
{
    size_t i = gen_range(g, 0, g->npool - 1);
    size_t c = g->pool[i];
    g->pool[i] = g->pool[--g->npool];
    return c;
}

struct gen_opts {
    int blocks;
    int tail; /* blocks holding only their coinbase after the spending ones */
    int txs;
    int fanout; /* percent of the transactions that are fan-outs (default 15) */
    uint64_t seed;
    const char *out;
    const char *expect;
    int verify;
    int dump_height;
    const char *dump_prefix;
};

static void block_add_tx(struct block *b, size_t *cap, struct tx *tx)
{
    if (b->tx_count == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        b->txs = xrealloc(b->txs, *cap * sizeof(*b->txs));
    }
    b->txs[b->tx_count++] = *tx;
}

/* Builds the block at height on top of prev (its hash and time), mines it, and fills b. */
static void gen_block(struct gen *g, const struct gen_opts *o, struct block *b, int height,
                      const uint8_t prev[32], uint32_t time, int empty)
{
    size_t cap = 1;
    int64_t fees = 0;
    long weight = 4000;
    int sigops = 0;
    block_init(b);
    b->txs = xcalloc(1, sizeof(*b->txs));
    b->tx_count = 1; /* the coinbase, filled last */
    g->nblk_inputs = 0;
    g->npending = 0;

    if (height > GEN_MATURITY && !empty) {
        size_t cb = g->cb_coin[height - GEN_MATURITY];
        struct tx tx;
        int so = gen_tx(g, &tx, &cb, 1, GEN_CB_FANOUT, (uint32_t)height);
        if (so >= 0) {
            sigops += so;
            weight += (long)tx_weight(&tx);
            fees += GEN_FEE;
            block_add_tx(b, &cap, &tx);
        } else {
            /* no subsidy left (33 halvings) and no fees: leave it for a consolidation */
            push_index(&g->pending, &g->npending, &g->cappending, cb);
        }
    }
    for (int t = 0; !empty && t < o->txs && g->npool > 0; t++) {
        if (weight > GEN_MAX_WEIGHT || sigops > GEN_MAX_SIGOPS) {
            break;
        }
        unsigned shape = (unsigned)(gen_rand(g) % 100);
        size_t nin, nout;
        if (shape < (unsigned)o->fanout) { /* fan-out */
            nin = 1;
            nout = gen_range(g, 5, 25);
        } else if (shape < (unsigned)o->fanout + 15) { /* consolidation */
            nin = gen_range(g, 3, 12);
            nout = 1;
        } else {
            nin = gen_range(g, 1, 2);
            nout = 2;
        }
        size_t ins[16];
        size_t k = 0;
        int64_t total = 0;
        while (k < 16 && g->npool > 0 && (k < nin || total < GEN_FEE + GEN_MIN_OUT)) {
            ins[k] = pool_take(g);
            total += g->coins[ins[k]].value;
            k++;
        }
        struct tx tx;
        int so = gen_tx(g, &tx, ins, k, nout, (uint32_t)height);
        if (so < 0) {
            /* too little value even so: put the coins back for a later consolidation */
            for (size_t i = 0; i < k; i++) {
                push_index(&g->pending, &g->npending, &g->cappending, ins[i]);
            }
            continue;
        }
        sigops += so;
        weight += (long)tx_weight(&tx);
        fees += GEN_FEE;
        block_add_tx(b, &cap, &tx);
    }

    /* coinbase: BIP34 height, an extra push so the script is at least 2 bytes */
    struct tx *cb = &b->txs[0];
    tx_init(cb);
    cb->version = 2;
    cb->vin = xcalloc(1, sizeof(*cb->vin));
    cb->vin_count = 1;
    memset(cb->vin[0].prevout.txid, 0, 32);
    cb->vin[0].prevout.n = 0xffffffffu;
    cb->vin[0].sequence = SEQUENCE_FINAL;
    uint8_t sig[16];
    size_t sl = consensus_height_push(sig, height);
    sig[sl++] = 4;
    wr_u32le(sig + sl, (uint32_t)o->seed);
    sl += 4;
    bytes_set(&cb->vin[0].script_sig, sig, sl);
    uint8_t zero[32] = {0};
    const uint8_t *wit[1] = {zero};
    size_t wlen[1] = {32};
    witness_set(&cb->vin[0], 1, wit, wlen);
    cb->vout = xcalloc(2, sizeof(*cb->vout));
    cb->vout_count = 2;
    enum gen_type cbtype = g->mix[gen_range(g, 0, g->nmix - 1)];
    uint32_t cbkey = (uint32_t)gen_range(g, 0, GEN_NKEYS - 1);
    struct gen_coin tmp;
    memset(&tmp, 0, sizeof(tmp));
    tmp.type = (uint8_t)cbtype;
    tmp.key = cbkey;
    coin_set_spk(g, &tmp);
    int64_t cbvalue = amount_block_subsidy(height, g->chain->subsidy_halving_interval) + fees;
    cb->vout[0].value_sat = cbvalue;
    bytes_set(&cb->vout[0].script_pubkey, tmp.spk, tmp.spk_len);
    uint8_t commit[38];
    memcpy(commit, "\x6a\x24\xaa\x21\xa9\xed", 6);
    memset(commit + 6, 0, 32);
    bytes_set(&cb->vout[1].script_pubkey, commit, sizeof(commit));
    tx_compute_hashes(cb);
    uint8_t wroot[64];
    merkle_block_witness_root(wroot, NULL, b);
    memset(wroot + 32, 0, 32);
    hash_sha256d(cb->vout[1].script_pubkey.data + 6, wroot, 64);
    tx_compute_hashes(cb);
    size_t ci = gen_add_coin(g, cb->txid, 0, cbvalue, (uint32_t)height, 1, cbtype, cbkey);
    g->cb_coin[height] = ci;

    b->header.version = 0x20000000;
    memcpy(b->header.prev_hash, prev, 32);
    merkle_block_root(b->header.merkle_root, NULL, b);
    b->header.time = time;
    b->header.bits = 0x207fffff;
    for (b->header.nonce = 0;; b->header.nonce++) {
        block_header_hash(&b->header, b->hash);
        if (pow_check(b->hash, b->header.bits, g->chain)) {
            break;
        }
    }
    for (size_t i = 0; i < g->npending; i++) {
        push_index(&g->pool, &g->npool, &g->cappool, g->pending[i]);
    }
    g->npending = 0;
}

/* Checks a written block with the library: parse, block rules, every input script. */
static int gen_verify(struct gen *g, const uint8_t *raw, size_t len, int height, int64_t mtp)
{
    struct block b;
    struct vstate vs;
    char err[256];
    if (block_parse(&b, raw, len, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "genchain: block %d does not parse: %s\n", height, err);
        return 1;
    }
    int ret = 1;
    vstate_init(&vs);
    if (block_check(&vs, &b, g->chain, 1) != RC_OK ||
        block_check_contextual(&vs, &b, height, mtp, g->chain) != RC_OK) {
        fprintf(stderr, "genchain: block %d breaks a block rule: %s (%s)\n", height, vs.reject,
                vs.debug);
        goto out;
    }
    struct tx_out *spent = xcalloc(g->nblk_inputs + 1, sizeof(*spent));
    for (size_t i = 0; i < g->nblk_inputs; i++) {
        const struct gen_coin *c = &g->coins[g->blk_inputs[i]];
        spent[i].value_sat = c->value;
        spent[i].script_pubkey.data = (uint8_t *)c->spk;
        spent[i].script_pubkey.len = c->spk_len;
    }
    uint32_t flags = script_block_flags(g->chain, height, b.hash);
    struct script_block_result res = {0};
    int64_t cost = script_block_sigop_cost(&b, spent, g->nblk_inputs, flags);
    if (script_verify_block(&b, spent, g->nblk_inputs, flags, NULL, 0, NULL, NULL, &res) !=
            RC_OK ||
        res.inputs_failed || cost < 0 || cost > 80000) {
        fprintf(stderr, "genchain: block %d: %zu of %zu input scripts fail, sigop cost %" PRId64
                        "\n",
                height, res.inputs_failed, res.inputs_checked, cost);
        free(spent);
        goto out;
    }
    free(spent);
    ret = 0;
out:
    block_clear(&b);
    return ret;
}

/* Writes PREFIX.bin (the block) and PREFIX.json (the outputs its inputs spend, in block
 * order, in the format verify-block reads). */
static int gen_dump(const struct gen *g, const char *prefix, const struct buf *raw)
{
    size_t plen = strlen(prefix);
    char *path = xmalloc(plen + 6);
    memcpy(path, prefix, plen);
    memcpy(path + plen, ".bin", 5);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(raw->data, 1, raw->len, f) == raw->len;
    if (f && fclose(f) != 0) {
        ok = 0;
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < g->nblk_inputs; i++) {
        const struct gen_coin *c = &g->coins[g->blk_inputs[i]];
        char hex[2 * sizeof(c->spk) + 1];
        hex_encode(hex, c->spk, c->spk_len);
        json_array_append_new(arr, json_pack("{s:{s:I, s:s}}", "txout", "value",
                                             (json_int_t)c->value, "script_pubkey", hex));
    }
    memcpy(path + plen, ".json", 6);
    if (ok && json_dump_file(arr, path, 0) != 0) {
        ok = 0;
    }
    json_decref(arr);
    if (!ok) {
        fprintf(stderr, "genchain: cannot write %s\n", path);
    }
    free(path);
    return ok ? 0 : 1;
}

static int coin_ptr_cmp(const void *a, const void *b)
{
    const struct gen_coin *x = *(const struct gen_coin *const *)a;
    const struct gen_coin *y = *(const struct gen_coin *const *)b;
    int c = memcmp(x->op.txid, y->op.txid, 32);
    if (c) {
        return c;
    }
    return x->op.n < y->op.n ? -1 : x->op.n > y->op.n;
}

static int64_t median11(const uint32_t *times, int height)
{
    uint32_t v[11];
    int n = 0;
    for (int h = height; h >= 0 && n < 11; h--) {
        v[n++] = times[h];
    }
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint32_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    }
    return v[n / 2];
}

static int parse_mix(struct gen *g, const char *s)
{
    g->nmix = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = -1;
        for (int t = 0; t < GT_COUNT; t++) {
            const char *n = gen_type_names[t];
            /* full names, or a prefix up to the dash: p2sh, p2wsh, p2tr (key path) */
            if ((strlen(n) == len && strncmp(n, s, len) == 0) ||
                (strchr(n, '-') && (size_t)(strchr(n, '-') - n) == len &&
                 strncmp(n, s, len) == 0 && t != GT_P2TR_SCRIPT)) {
                found = t;
            }
        }
        if (strncmp(s, "all", len) == 0 && len == 3) {
            for (int t = 0; t < GT_COUNT; t++) {
                g->mix[g->nmix++] = (enum gen_type)t;
            }
        } else if (found < 0) {
            fprintf(stderr, "genchain: unknown output type '%.*s' (p2pkh, p2sh-multisig, "
                            "p2wpkh, p2wsh-multisig, p2tr-key, p2tr-script, all)\n",
                    (int)len, s);
            return -1;
        } else if (g->nmix < GT_COUNT) {
            int dup = 0;
            for (size_t i = 0; i < g->nmix; i++) {
                dup |= g->mix[i] == (enum gen_type)found;
            }
            if (!dup) {
                g->mix[g->nmix++] = (enum gen_type)found;
            }
        }
        s += len;
        if (*s == ',') {
            s++;
        }
    }
    if (g->nmix == 0 || g->nmix > GT_COUNT) {
        fprintf(stderr, "genchain: --mix names no type\n");
        return -1;
    }
    return 0;
}

static void genchain_usage(FILE *f)
{
    fprintf(f, "usage: genchain --blocks N --txs M --seed S --out FILE [--mix TYPES]\n"
               "                [--tail T] [--fanout P] [--expect FILE.json] [--verify]\n"
               "                [--dump H PREFIX]\n"
               "  P: percent of the transactions that are fan-outs (1 in, 5-25 out; default\n"
               "     15): more of them grow the UTXO set faster\n"
               "  TYPES: comma-separated p2pkh, p2sh-multisig (p2sh), p2wpkh,\n"
               "         p2wsh-multisig (p2wsh), p2tr-key (p2tr), p2tr-script; default all\n");
}

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) {
        return NULL;
    }
    if (argv[*i][n] == '=') {
        return argv[*i] + n + 1;
    }
    if (argv[*i][n] == '\0' && *i + 1 < argc) {
        return argv[++*i];
    }
    return NULL;
}

/* Reads genchain's arguments into o (and g's mix). Returns -1 to go on, else the exit code
 * (0 for --help, 2 for a bad argument, with the usage printed). */
static int parse_gen_args(int argc, char **argv, struct gen_opts *o, struct gen *g)
{
    for (int i = 0; i < argc; i++) {
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--blocks"))) {
            o->blocks = atoi(v);
        } else if ((v = opt_value(argc, argv, &i, "--tail"))) {
            o->tail = atoi(v);
        } else if ((v = opt_value(argc, argv, &i, "--txs"))) {
            o->txs = atoi(v);
        } else if ((v = opt_value(argc, argv, &i, "--fanout"))) {
            o->fanout = atoi(v);
            if (o->fanout < 0 || o->fanout > 85) {
                fprintf(stderr, "genchain: --fanout must be 0-85 (percent)\n");
                return 2;
            }
        } else if ((v = opt_value(argc, argv, &i, "--seed"))) {
            o->seed = strtoull(v, NULL, 0);
        } else if ((v = opt_value(argc, argv, &i, "--out"))) {
            o->out = v;
        } else if ((v = opt_value(argc, argv, &i, "--expect"))) {
            o->expect = v;
        } else if ((v = opt_value(argc, argv, &i, "--mix"))) {
            if (parse_mix(g, v) != 0) {
                return 2;
            }
        } else if (strcmp(argv[i], "--dump") == 0 && i + 2 < argc) {
            o->dump_height = atoi(argv[++i]);
            o->dump_prefix = argv[++i];
        } else if (strcmp(argv[i], "--verify") == 0) {
            o->verify = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            genchain_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "genchain: unknown argument '%s'\n", argv[i]);
            genchain_usage(stderr);
            return 2;
        }
    }
    if (o->blocks <= 0 || o->tail < 0 || o->txs < 0 || !o->out) {
        genchain_usage(stderr);
        return 2;
    }
    return -1;
}

/* Generates the nblocks blocks after genesis into f, in block-file framing, verifying and
 * dumping them as o asks; prev ends as the tip's hash. Returns 0, or 1 after a message. */
static int write_blocks(struct gen *g, const struct gen_opts *o, FILE *f, int nblocks,
                        uint8_t prev[32])
{
    int ret = 1;
    uint32_t *times = xcalloc((size_t)nblocks + 1, sizeof(*times));
    times[0] = g->chain->genesis_header.time;
    memcpy(prev, g->chain->genesis_hash, 32);
    struct buf ser;
    buf_init(&ser);
    for (int h = 1; h <= nblocks; h++) {
        struct block b;
        int64_t mtp = median11(times, h - 1);
        times[h] = times[h - 1] + 600;
        gen_block(g, o, &b, h, prev, times[h], h > o->blocks);
        buf_reset(&ser);
        block_serialize(&b, &ser, 1);
        uint8_t hdr[8];
        memcpy(hdr, g->chain->magic, 4);
        wr_u32le(hdr + 4, (uint32_t)ser.len);
        if (fwrite(hdr, 1, 8, f) != 8 || fwrite(ser.data, 1, ser.len, f) != ser.len) {
            fprintf(stderr, "genchain: write error on %s\n", o->out);
            block_clear(&b);
            goto out;
        }
        memcpy(prev, b.hash, 32);
        block_clear(&b);
        if (o->verify && gen_verify(g, ser.data, ser.len, h, mtp) != 0) {
            goto out;
        }
        if (h == o->dump_height && gen_dump(g, o->dump_prefix, &ser) != 0) {
            goto out;
        }
    }
    ret = 0;
out:
    buf_clear(&ser);
    free(times);
    return ret;
}

/* The UTXO set the node should end with: its counts and both of Core's hashes. */
struct gen_summary {
    uint64_t txouts, transactions;
    int64_t total_amount;
    char tiphex[65], hshex[65], mhhex[65];
};

static void summarize(const struct gen *g, const uint8_t tip[32], struct gen_summary *sum)
{
    struct gen_coin **live = xmalloc((g->ncoins + 1) * sizeof(*live));
    size_t nlive = 0;
    for (size_t i = 0; i < g->ncoins; i++) {
        if (!g->coins[i].spent) {
            live[nlive++] = &g->coins[i];
        }
    }
    qsort(live, nlive, sizeof(*live), coin_ptr_cmp);
    uint8_t hs[32], mh[32];
    struct coins_stats st, stm;
    coins_stats_init(&st, COINS_STATS_HASH_SERIALIZED);
    coins_stats_init(&stm, COINS_STATS_MUHASH);
    for (size_t i = 0; i < nlive; i++) {
        const struct gen_coin *c = live[i];
        coins_stats_add(&st, &c->op, c->height, c->coinbase, c->value, c->spk, c->spk_len);
        coins_stats_add(&stm, &c->op, c->height, c->coinbase, c->value, c->spk, c->spk_len);
    }
    sum->txouts = st.txouts;
    sum->transactions = st.transactions;
    sum->total_amount = st.total_amount_sat;
    coins_stats_finish(&st, hs);
    coins_stats_finish(&stm, mh);
    coins_stats_clear(&st);
    coins_stats_clear(&stm);
    free(live);
    hex_encode_rev(sum->tiphex, tip, 32);
    hex_encode_rev(sum->hshex, hs, 32);
    hex_encode_rev(sum->mhhex, mh, 32);
}

/* What was generated, on stdout and (--expect) as a JSON file. Returns 0, or 1 after a
 * message when the file cannot be written. */
static int report_chain(const struct gen *g, const struct gen_opts *o, int nblocks,
                        const struct gen_summary *sum)
{
    uint64_t sigchecks = g->ecdsa + g->schnorr;
    printf("blocks: %d (%d with spends, %d with only a coinbase)\n", nblocks, o->blocks, o->tail);
    printf("tip: %s\n", sum->tiphex);
    printf("transactions: %" PRIu64 " (plus %d coinbases)\n", g->ntx, nblocks);
    printf("spends:");
    for (int t = 0; t < GT_COUNT; t++) {
        printf(" %s %" PRIu64, gen_type_names[t], g->spends[t]);
    }
    printf("\n");
    printf("sigchecks: %" PRIu64 " (ecdsa %" PRIu64 ", schnorr %" PRIu64 ")\n", sigchecks,
           g->ecdsa, g->schnorr);
    printf("txouts: %" PRIu64 " in %" PRIu64 " transactions, total %" PRId64 " sat\n",
           sum->txouts, sum->transactions, sum->total_amount);
    printf("hash_serialized_3: %s\n", sum->hshex);
    printf("muhash: %s\n", sum->mhhex);
    if (o->verify) {
        printf("verified: every block passes the block rules and its input scripts\n");
    }
    if (!o->expect) {
        return 0;
    }
    json_t *spends = json_object();
    for (int t = 0; t < GT_COUNT; t++) {
        json_object_set_new(spends, gen_type_names[t], json_integer((json_int_t)g->spends[t]));
    }
    json_t *j = json_pack(
        "{s:i, s:s, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:s, s:s}", "height", nblocks, "tip",
        sum->tiphex, "transactions", (json_int_t)g->ntx, "sigchecks", (json_int_t)sigchecks,
        "ecdsa", (json_int_t)g->ecdsa, "schnorr", (json_int_t)g->schnorr, "spends", spends,
        "txouts", (json_int_t)sum->txouts, "utxo_transactions", (json_int_t)sum->transactions,
        "total_amount_sat", (json_int_t)sum->total_amount, "hash_serialized_3", sum->hshex,
        "muhash", sum->mhhex);
    int rc = 0;
    if (!j || json_dump_file(j, o->expect, JSON_INDENT(2) | JSON_SORT_KEYS) != 0) {
        fprintf(stderr, "genchain: cannot write %s\n", o->expect);
        rc = 1;
    }
    json_decref(j);
    return rc;
}

int util_cmd_genchain(int argc, char **argv)
{
    struct gen_opts o = {.blocks = 0, .txs = 10, .fanout = 15, .seed = 1};
    struct gen g;
    memset(&g, 0, sizeof(g));
    g.chain = chain_params_get("regtest");
    CHECK_ALWAYS(g.chain != NULL);
    for (int t = 0; t < GT_COUNT; t++) {
        g.mix[g.nmix++] = (enum gen_type)t;
    }
    int ret = parse_gen_args(argc, argv, &o, &g);
    if (ret >= 0) {
        return ret;
    }
    FILE *f = fopen(o.out, "wb");
    if (!f) {
        fprintf(stderr, "genchain: cannot create %s\n", o.out);
        return 1;
    }
    g.rng = o.seed ^ 0x5eed5eed5eed5eedull;
    g.ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
    uint8_t rnd[32];
    uint8_t seedbytes[8];
    wr_u64le(seedbytes, o.seed);
    hash_sha256(rnd, seedbytes, 8);
    CHECK_ALWAYS(secp256k1_context_randomize(g.ctx, rnd));
    gen_keys(&g, o.seed);
    int nblocks = o.blocks + o.tail;
    g.cb_coin = xcalloc((size_t)nblocks + 1, sizeof(*g.cb_coin));
    uint8_t tip[32];
    ret = write_blocks(&g, &o, f, nblocks, tip);
    if (fclose(f) != 0 && ret == 0) {
        fprintf(stderr, "genchain: write error on %s\n", o.out);
        ret = 1;
    }
    if (ret == 0) {
        struct gen_summary sum;
        summarize(&g, tip, &sum);
        ret = report_chain(&g, &o, nblocks, &sum);
    }
    free(g.cb_coin);
    free(g.coins);
    free(g.pool);
    free(g.pending);
    free(g.blk_inputs);
    free(g.keys);
    secp256k1_context_destroy(g.ctx);
    return ret;
}
