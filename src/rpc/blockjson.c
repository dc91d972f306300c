/* Blocks, transactions and scripts in Bitcoin Core's JSON shapes. See blockjson.h. */
#include "rpc/blockjson.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>

#include "consensus/address.h"
#include "crypto/hash.h"
#include "rpc/json.h"
#include "sign/descriptor.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "script/solver.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* ---- small helpers ---------------------------------------------------------------- */

static void put_str(struct buf *out, const char *s)
{
    buf_append(out, s, strlen(s));
}

/* A new JSON string of the hex of p[0..n). */
static json_t *hex_json(const uint8_t *p, size_t n)
{
    char *s = hex_encode_alloc(p, n);
    json_t *v = json_string(s);
    free(s);
    return v;
}

json_t *rpc_hash_json(const uint8_t h32[32])
{
    char s[65];
    hex_encode_rev(s, h32, 32);
    return json_string(s);
}

/* A new JSON string holding buf's bytes (not NUL-terminated in buf). */
static json_t *buf_json(const struct buf *b)
{
    return json_stringn(b->len ? (const char *)b->data : "", b->len);
}

/* ---- asm ------------------------------------------------------------------------------ */

/* Core's mapSigHashTypes. */
static const char *sighash_name(uint8_t t)
{
    switch (t) {
    case 0x01:
        return "ALL";
    case 0x81:
        return "ALL|ANYONECANPAY";
    case 0x02:
        return "NONE";
    case 0x82:
        return "NONE|ANYONECANPAY";
    case 0x03:
        return "SINGLE";
    case 0x83:
        return "SINGLE|ANYONECANPAY";
    default:
        return NULL;
    }
}

/* CheckSignatureEncoding(sig, SCRIPT_VERIFY_STRICTENC) for a non-empty push: strict DER
 * and a defined hash type (ALL, NONE or SINGLE, with or without ANYONECANPAY). */
static int sig_strictenc(const uint8_t *sig, size_t len)
{
    if (!script_sig_is_valid_der(sig, len)) {
        return 0;
    }
    uint8_t ht = sig[len - 1] & (uint8_t)~0x80;
    return ht >= 1 && ht <= 3;
}

void rpc_script_asm(struct buf *out, const uint8_t *script, size_t len, int sighash_decode)
{
    size_t pc = 0;
    char num[32];
    int decode = sighash_decode && !script_is_unspendable(script, len);
    while (pc < len) {
        uint8_t op;
        const uint8_t *data;
        size_t dlen;
        if (pc > 0) {
            buf_put_u8(out, ' ');
        }
        if (!script_get_op(script, len, &pc, &op, &data, &dlen)) {
            put_str(out, "[error]");
            break;
        }
        if (op <= OP_PUSHDATA4) {
            if (dlen <= 4) {
                int64_t v = 0;
                scriptnum_decode(&v, data, dlen, 0, 4);
                snprintf(num, sizeof(num), "%" PRId64, v);
                put_str(out, num);
            } else if (decode && sig_strictenc(data, dlen)) {
                hex_append(out, data, dlen - 1);
                buf_put_u8(out, '[');
                put_str(out, sighash_name(data[dlen - 1]));
                buf_put_u8(out, ']');
            } else {
                hex_append(out, data, dlen);
            }
        } else {
            put_str(out, script_op_name(op));
        }
    }
    buf_put_u8(out, 0);
    out->len--;
}

/* ---- scripts -------------------------------------------------------------------------- */

/* ScriptToUniv with include_address; inner: the provider's one script (see infer_script). */
static json_t *script_json(const uint8_t *spk, size_t len, const struct chain_params *p,
                           int include_hex, const uint8_t *inner, size_t inner_len)
{
    json_t *o = json_object();
    struct buf b;
    buf_init(&b);

    rpc_script_asm(&b, spk, len, 0);
    json_object_set_new(o, "asm", buf_json(&b));

    buf_reset(&b);
    script_descriptor_infer(&b, spk, len, inner, inner_len, p);
    json_object_set_new(o, "desc", buf_json(&b));
    buf_clear(&b);

    if (include_hex) {
        json_object_set_new(o, "hex", hex_json(spk, len));
    }
    enum script_type t = script_solve(spk, len, NULL, NULL);
    char addr[ADDRESS_MAX_LEN];
    if (t != SCRIPT_TYPE_PUBKEY && address_from_script(addr, sizeof(addr), spk, len, p) == RC_OK) {
        json_object_set_new(o, "address", json_string(addr));
    }
    json_object_set_new(o, "type", json_string(script_type_name(t)));
    return o;
}

json_t *rpc_script_pubkey_json(const uint8_t *spk, size_t len, const struct chain_params *p,
                               int include_hex)
{
    return script_json(spk, len, p, include_hex, NULL, 0);
}

/* ---- transactions --------------------------------------------------------------------- */

json_t *rpc_tx_json(const struct tx *tx, const struct chain_params *p, const struct coin *spent,
                    int verbosity, int include_hex)
{
    json_t *o = json_object();
    int coinbase = tx_is_coinbase(tx);
    if (coinbase) {
        spent = NULL; /* a coinbase spends nothing (Core passes no undo for it) */
    }
    json_object_set_new(o, "txid", rpc_hash_json(tx->txid));
    json_object_set_new(o, "hash", rpc_hash_json(tx->wtxid));
    /* Core's CTransaction::version is unsigned (since v28). */
    json_object_set_new(o, "version", json_integer((json_int_t)(uint32_t)tx->version));
    json_object_set_new(o, "size", json_integer((json_int_t)tx->size_total));
    json_object_set_new(o, "vsize", json_integer((json_int_t)tx_vsize(tx)));
    json_object_set_new(o, "weight", json_integer((json_int_t)tx_weight(tx)));
    json_object_set_new(o, "locktime", json_integer((json_int_t)tx->locktime));

    int64_t total_in = 0, total_out = 0;
    json_t *vin = json_array();
    for (size_t i = 0; i < tx->vin_count; i++) {
        const struct tx_in *in = &tx->vin[i];
        json_t *jin = json_object();
        if (coinbase) {
            json_object_set_new(jin, "coinbase", hex_json(in->script_sig.data, in->script_sig.len));
        } else {
            json_object_set_new(jin, "txid", rpc_hash_json(in->prevout.txid));
            json_object_set_new(jin, "vout", json_integer((json_int_t)in->prevout.n));
            json_t *ss = json_object();
            struct buf b;
            buf_init(&b);
            rpc_script_asm(&b, in->script_sig.data, in->script_sig.len, 1);
            json_object_set_new(ss, "asm", buf_json(&b));
            buf_clear(&b);
            json_object_set_new(ss, "hex", hex_json(in->script_sig.data, in->script_sig.len));
            json_object_set_new(jin, "scriptSig", ss);
        }
        if (in->witness_count > 0) {
            json_t *w = json_array();
            for (size_t k = 0; k < in->witness_count; k++) {
                json_array_append_new(w, hex_json(in->witness[k].data, in->witness[k].len));
            }
            json_object_set_new(jin, "txinwitness", w);
        }
        if (spent) {
            const struct coin *c = &spent[i];
            total_in += c->value_sat;
            if (verbosity >= RPC_VERBOSITY_PREVOUT) {
                json_t *pv = json_object();
                json_object_set_new(pv, "generated", json_boolean(c->coinbase));
                json_object_set_new(pv, "height", json_integer((json_int_t)c->height));
                json_object_set_new(pv, "value", rpc_json_amount(c->value_sat));
                json_object_set_new(
                    pv, "scriptPubKey",
                    rpc_script_pubkey_json(c->script_pubkey.data, c->script_pubkey.len, p, 1));
                json_object_set_new(jin, "prevout", pv);
            }
        }
        json_object_set_new(jin, "sequence", json_integer((json_int_t)in->sequence));
        json_array_append_new(vin, jin);
    }
    json_object_set_new(o, "vin", vin);

    json_t *vout = json_array();
    for (size_t i = 0; i < tx->vout_count; i++) {
        const struct tx_out *out = &tx->vout[i];
        json_t *jo = json_object();
        json_object_set_new(jo, "value", rpc_json_amount(out->value_sat));
        json_object_set_new(jo, "n", json_integer((json_int_t)i));
        json_object_set_new(
            jo, "scriptPubKey",
            rpc_script_pubkey_json(out->script_pubkey.data, out->script_pubkey.len, p, 1));
        json_array_append_new(vout, jo);
        total_out += out->value_sat;
    }
    json_object_set_new(o, "vout", vout);

    if (spent) {
        int64_t fee = total_in - total_out;
        if (fee >= 0 && fee <= MAX_MONEY) {
            json_object_set_new(o, "fee", rpc_json_amount(fee));
        }
    }
    if (include_hex) {
        struct buf b;
        buf_init(&b);
        tx_serialize(tx, &b, 1);
        json_object_set_new(o, "hex", hex_json(b.data, b.len));
        buf_clear(&b);
    }
    return o;
}

void rpc_tx_json_add_block(json_t *tx_obj, const uint8_t block_hash32[32], int in_active_chain,
                           int confirmations, int64_t block_time)
{
    json_object_set_new(tx_obj, "blockhash", rpc_hash_json(block_hash32));
    if (in_active_chain) {
        json_object_set_new(tx_obj, "confirmations", json_integer(confirmations));
        json_object_set_new(tx_obj, "time", json_integer((json_int_t)block_time));
        json_object_set_new(tx_obj, "blocktime", json_integer((json_int_t)block_time));
    } else {
        json_object_set_new(tx_obj, "confirmations", json_integer(0));
    }
}

/* ---- blocks --------------------------------------------------------------------------- */

double rpc_difficulty(uint32_t bits)
{
    int shift = (int)((bits >> 24) & 0xff);
    double diff = (double)0x0000ffff / (double)(bits & 0x00ffffff);
    while (shift < 29) {
        diff *= 256.0;
        shift++;
    }
    while (shift > 29) {
        diff /= 256.0;
        shift--;
    }
    return diff;
}

/* Core's GetTarget: the target bits decode to, or the chain's pow limit when bits is
 * negative, zero, overflowing or above the limit (DeriveTarget fails). */
static void block_target(struct u256 *target, uint32_t bits, const struct chain_params *p)
{
    int negative, overflow;
    u256_set_compact(target, bits, &negative, &overflow);
    if (negative || overflow || u256_is_zero(target) || u256_cmp(target, &p->pow_limit) > 0) {
        *target = p->pow_limit;
    }
}

json_t *rpc_block_header_json(const struct block_header *h, const struct rpc_block_facts *facts,
                              const struct chain_params *p)
{
    json_t *o = json_object();
    uint8_t hash[32];
    char text[65];
    block_header_hash(h, hash);
    json_object_set_new(o, "hash", rpc_hash_json(hash));
    json_object_set_new(o, "confirmations", json_integer(facts->confirmations));
    json_object_set_new(o, "height", json_integer(facts->height));
    json_object_set_new(o, "version", json_integer(h->version));
    snprintf(text, sizeof(text), "%08" PRIx32, (uint32_t)h->version);
    json_object_set_new(o, "versionHex", json_string(text));
    json_object_set_new(o, "merkleroot", rpc_hash_json(h->merkle_root));
    json_object_set_new(o, "time", json_integer((json_int_t)h->time));
    json_object_set_new(o, "mediantime", json_integer((json_int_t)facts->median_time));
    json_object_set_new(o, "nonce", json_integer((json_int_t)h->nonce));
    snprintf(text, sizeof(text), "%08" PRIx32, h->bits);
    json_object_set_new(o, "bits", json_string(text));
    struct u256 target;
    block_target(&target, h->bits, p);
    u256_to_hex(text, &target);
    json_object_set_new(o, "target", json_string(text));
    json_object_set_new(o, "difficulty", json_real(rpc_difficulty(h->bits)));
    u256_to_hex(text, &facts->chainwork);
    json_object_set_new(o, "chainwork", json_string(text));
    json_object_set_new(o, "nTx", json_integer((json_int_t)facts->n_tx));
    if (facts->height > 0) {
        json_object_set_new(o, "previousblockhash", rpc_hash_json(h->prev_hash));
    }
    if (facts->has_next) {
        json_object_set_new(o, "nextblockhash", rpc_hash_json(facts->next_hash));
    }
    return o;
}

/* Core's coinbaseTxToJSON: the small fields of the coinbase (not its outputs). */
static json_t *coinbase_tx_json(const struct tx *cb)
{
    json_t *o = json_object();
    json_object_set_new(o, "version", json_integer((json_int_t)(uint32_t)cb->version));
    json_object_set_new(o, "locktime", json_integer((json_int_t)cb->locktime));
    if (cb->vin_count > 0) {
        const struct tx_in *in = &cb->vin[0];
        json_object_set_new(o, "sequence", json_integer((json_int_t)in->sequence));
        json_object_set_new(o, "coinbase", hex_json(in->script_sig.data, in->script_sig.len));
        if (in->witness_count > 0) {
            /* Consensus allows exactly one item (the witness reserved value). */
            json_object_set_new(o, "witness", hex_json(in->witness[0].data, in->witness[0].len));
        }
    }
    return o;
}

json_t *rpc_block_json(const struct block *b, const struct rpc_block_facts *facts,
                       const struct block_undo *undo, const struct chain_params *p, int verbosity)
{
    if (undo && verbosity >= RPC_VERBOSITY_DETAILS) {
        if (b->tx_count == 0 || undo->n != b->tx_count - 1) {
            return NULL;
        }
        for (size_t i = 1; i < b->tx_count; i++) {
            if (undo->txs[i - 1].n != b->txs[i].vin_count) {
                return NULL;
            }
        }
    }
    json_t *o = rpc_block_header_json(&b->header, facts, p);
    json_object_set_new(o, "strippedsize", json_integer((json_int_t)b->size_stripped));
    json_object_set_new(o, "size", json_integer((json_int_t)b->size_total));
    json_object_set_new(o, "weight", json_integer((json_int_t)block_weight(b)));
    if (b->tx_count > 0) {
        json_object_set_new(o, "coinbase_tx", coinbase_tx_json(&b->txs[0]));
    }
    json_t *txs = json_array();
    for (size_t i = 0; i < b->tx_count; i++) {
        if (verbosity <= RPC_VERBOSITY_TXID) {
            json_array_append_new(txs, rpc_hash_json(b->txs[i].txid));
        } else {
            const struct coin *spent = (undo && i > 0) ? undo->txs[i - 1].prev : NULL;
            json_array_append_new(txs, rpc_tx_json(&b->txs[i], p, spent, verbosity, 1));
        }
    }
    json_object_set_new(o, "tx", txs);
    return o;
}

/* ---- decodescript --------------------------------------------------------------------- */

/* decodescript's can_wrap: whether Core offers a P2SH (and maybe a segwit) form. */
static int decodescript_can_wrap(const uint8_t *s, size_t len, enum script_type t)
{
    switch (t) {
    case SCRIPT_TYPE_MULTISIG:
    case SCRIPT_TYPE_NONSTANDARD:
    case SCRIPT_TYPE_PUBKEY:
    case SCRIPT_TYPE_PUBKEYHASH:
    case SCRIPT_TYPE_WITNESS_V0_KEYHASH:
    case SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH:
        break;
    default:
        return 0;
    }
    if (!script_has_valid_ops(s, len) || script_is_unspendable(s, len)) {
        return 0;
    }
    size_t pc = 0;
    uint8_t op;
    while (script_get_op(s, len, &pc, &op, NULL, NULL)) {
        if (op == OP_CHECKSIGADD || script_is_op_success(op)) {
            return 0;
        }
    }
    return 1;
}

/* decodescript's can_wrap_P2WSH. */
static int decodescript_can_wrap_segwit(const uint8_t *s, size_t len, enum script_type t)
{
    switch (t) {
    case SCRIPT_TYPE_PUBKEY:
        /* Uncompressed keys cannot be used with segwit checksigs. */
        return script_pubkey_is_compressed(s + 1, (size_t)s[0]);
    case SCRIPT_TYPE_MULTISIG: {
        const uint8_t *keys[MAX_PUBKEYS_PER_MULTISIG];
        size_t key_lens[MAX_PUBKEYS_PER_MULTISIG];
        int m, n;
        script_multisig_keys(s, len, &m, keys, key_lens, &n);
        for (int i = 0; i < n; i++) {
            if (!script_pubkey_is_compressed(keys[i], key_lens[i])) {
                return 0;
            }
        }
        return 1;
    }
    case SCRIPT_TYPE_NONSTANDARD:
    case SCRIPT_TYPE_PUBKEYHASH:
        return 1;
    default:
        return 0;
    }
}

/* The address of the P2SH output that wraps script s, as a new JSON string. */
static json_t *p2sh_address_json(const uint8_t *s, size_t len, const struct chain_params *p)
{
    uint8_t spk[23];
    char addr[ADDRESS_MAX_LEN];
    spk[0] = OP_HASH160;
    spk[1] = 20;
    hash_hash160(spk + 2, s, len);
    spk[22] = OP_EQUAL;
    CHECK_ALWAYS(address_from_script(addr, sizeof(addr), spk, sizeof(spk), p) == RC_OK);
    return json_string(addr);
}

json_t *rpc_decodescript_json(const uint8_t *script, size_t len, const struct chain_params *p)
{
    json_t *r = script_json(script, len, p, 0, NULL, 0);
    enum script_type t = script_solve(script, len, NULL, NULL);
    if (!decodescript_can_wrap(script, len, t)) {
        return r;
    }
    json_object_set_new(r, "p2sh", p2sh_address_json(script, len, p));
    if (!decodescript_can_wrap_segwit(script, len, t)) {
        return r;
    }
    uint8_t seg[34];
    size_t seg_len;
    const uint8_t *inner = NULL;
    size_t inner_len = 0;
    seg[0] = OP_0;
    if (t == SCRIPT_TYPE_PUBKEY) {
        seg[1] = 20;
        hash_hash160(seg + 2, script + 1, (size_t)script[0]);
        seg_len = 22;
    } else if (t == SCRIPT_TYPE_PUBKEYHASH) {
        seg[1] = 20;
        memcpy(seg + 2, script + 3, 20);
        seg_len = 22;
    } else {
        /* Scripts not fit for P2WPKH become P2WSH; the witness script is known to the
         * descriptor inference (Core puts it in the signing provider). */
        seg[1] = 32;
        hash_sha256(seg + 2, script, len);
        seg_len = 34;
        inner = script;
        inner_len = len;
    }
    json_t *sr = script_json(seg, seg_len, p, 1, inner, inner_len);
    json_object_set_new(sr, "p2sh-segwit", p2sh_address_json(seg, seg_len, p));
    json_object_set_new(r, "segwit", sr);
    return r;
}
