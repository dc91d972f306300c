/* Signature hashing. The serializations follow Core's CTransactionSignatureSerializer,
 * the BIP143 digest and SignatureHashSchnorr exactly. */
#include "script/sighash.h"

#include <string.h>

#include "crypto/hash.h"
#include "script/script.h"

/* A hash writer that can also copy what it hashes (for the BIP341 test preimage). */
struct hw {
    struct hash_sha256_ctx ctx;
    struct buf *copy;
};

static void hw_write(struct hw *h, const void *p, size_t n)
{
    hash_sha256_write(&h->ctx, p, n);
    if (h->copy) {
        buf_append(h->copy, p, n);
    }
}

static void hw_u8(struct hw *h, uint8_t v)
{
    hw_write(h, &v, 1);
}

static void hw_u32(struct hw *h, uint32_t v)
{
    uint8_t b[4];
    wr_u32le(b, v);
    hw_write(h, b, 4);
}

static void hw_u64(struct hw *h, uint64_t v)
{
    uint8_t b[8];
    wr_u64le(b, v);
    hw_write(h, b, 8);
}

static void hw_compact(struct hw *h, uint64_t v)
{
    uint8_t b[9];
    size_t n;
    if (v < 0xfd) {
        b[0] = (uint8_t)v;
        n = 1;
    } else if (v <= 0xffff) {
        b[0] = 0xfd;
        wr_u16le(b + 1, (uint16_t)v);
        n = 3;
    } else if (v <= 0xffffffffu) {
        b[0] = 0xfe;
        wr_u32le(b + 1, (uint32_t)v);
        n = 5;
    } else {
        b[0] = 0xff;
        wr_u64le(b + 1, v);
        n = 9;
    }
    hw_write(h, b, n);
}

static void hw_varbytes(struct hw *h, const uint8_t *p, size_t n)
{
    hw_compact(h, n);
    hw_write(h, p, n);
}

static void hw_outpoint(struct hw *h, const struct outpoint *o)
{
    hw_write(h, o->txid, 32);
    hw_u32(h, o->n);
}

static void hw_txout(struct hw *h, const struct tx_out *o)
{
    hw_u64(h, (uint64_t)o->value_sat);
    hw_varbytes(h, o->script_pubkey.data, o->script_pubkey.len);
}

static void hw_init(struct hw *h)
{
    hash_sha256_init(&h->ctx);
    h->copy = NULL;
}

/* SHA256d of what was written. */
static void hw_final_d(struct hw *h, uint8_t out32[32])
{
    uint8_t t[32];
    hash_sha256_final(&h->ctx, t);
    hash_sha256(out32, t, 32);
}

static void prevouts_single(uint8_t out32[32], const struct tx *tx)
{
    struct hw h;
    hw_init(&h);
    for (size_t i = 0; i < tx->vin_count; i++) {
        hw_outpoint(&h, &tx->vin[i].prevout);
    }
    hash_sha256_final(&h.ctx, out32);
}

static void sequences_single(uint8_t out32[32], const struct tx *tx)
{
    struct hw h;
    hw_init(&h);
    for (size_t i = 0; i < tx->vin_count; i++) {
        hw_u32(&h, tx->vin[i].sequence);
    }
    hash_sha256_final(&h.ctx, out32);
}

static void outputs_single(uint8_t out32[32], const struct tx *tx)
{
    struct hw h;
    hw_init(&h);
    for (size_t i = 0; i < tx->vout_count; i++) {
        hw_txout(&h, &tx->vout[i]);
    }
    hash_sha256_final(&h.ctx, out32);
}

void sighash_precompute(struct tx_precomputed *pd, const struct tx *tx,
                        const struct tx_out *spent_outputs, size_t n)
{
    memset(pd, 0, sizeof(*pd));
    prevouts_single(pd->prevouts_single, tx);
    sequences_single(pd->sequences_single, tx);
    outputs_single(pd->outputs_single, tx);
    hash_sha256(pd->hash_prevouts, pd->prevouts_single, 32);
    hash_sha256(pd->hash_sequence, pd->sequences_single, 32);
    hash_sha256(pd->hash_outputs, pd->outputs_single, 32);
    pd->bip143_ready = 1;
    if (spent_outputs && n == tx->vin_count) {
        struct hw ha, hs;
        hw_init(&ha);
        hw_init(&hs);
        for (size_t i = 0; i < n; i++) {
            hw_u64(&ha, (uint64_t)spent_outputs[i].value_sat);
            hw_varbytes(&hs, spent_outputs[i].script_pubkey.data,
                        spent_outputs[i].script_pubkey.len);
        }
        hash_sha256_final(&ha.ctx, pd->spent_amounts_single);
        hash_sha256_final(&hs.ctx, pd->spent_scripts_single);
        pd->spent_outputs = spent_outputs;
        pd->spent_count = n;
        pd->bip341_ready = 1;
    }
}

/* Core's SerializeScriptCode: the script with every OP_CODESEPARATOR removed. Reproduces
 * Core's behaviour on a script ending in a truncated push (the written bytes stop where
 * the failed GetOp left its iterator, while the length prefix counts the whole script). */
static void hw_script_code(struct hw *h, const uint8_t *s, size_t len)
{
    size_t pc = 0, begin = 0, nsep = 0;
    uint8_t op;
    while (script_get_op(s, len, &pc, &op, NULL, NULL)) {
        if (op == OP_CODESEPARATOR) {
            nsep++;
        }
    }
    hw_compact(h, len - nsep);
    pc = 0;
    while (script_get_op(s, len, &pc, &op, NULL, NULL)) {
        if (op == OP_CODESEPARATOR) {
            hw_write(h, s + begin, pc - begin - 1);
            begin = pc;
        }
    }
    if (begin != len) {
        hw_write(h, s + begin, pc - begin);
    }
}

void sighash_legacy(uint8_t out32[32], const uint8_t *script_code, size_t script_len,
                    const struct tx *tx, size_t in_idx, int32_t hash_type)
{
    int anyone = (hash_type & SIGHASH_ANYONECANPAY) != 0;
    int single = (hash_type & 0x1f) == SIGHASH_SINGLE;
    int none = (hash_type & 0x1f) == SIGHASH_NONE;

    if (in_idx >= tx->vin_count || (single && in_idx >= tx->vout_count)) {
        memset(out32, 0, 32);
        out32[0] = 1;
        return;
    }
    struct hw h;
    hw_init(&h);
    hw_u32(&h, (uint32_t)tx->version);
    size_t nin = anyone ? 1 : tx->vin_count;
    hw_compact(&h, nin);
    for (size_t k = 0; k < nin; k++) {
        size_t i = anyone ? in_idx : k;
        const struct tx_in *in = &tx->vin[i];
        hw_outpoint(&h, &in->prevout);
        if (i != in_idx) {
            hw_compact(&h, 0);
        } else {
            hw_script_code(&h, script_code, script_len);
        }
        if (i != in_idx && (single || none)) {
            hw_u32(&h, 0);
        } else {
            hw_u32(&h, in->sequence);
        }
    }
    size_t nout = none ? 0 : (single ? in_idx + 1 : tx->vout_count);
    hw_compact(&h, nout);
    for (size_t i = 0; i < nout; i++) {
        if (single && i != in_idx) {
            /* CTxOut(): value -1, empty script. */
            hw_u64(&h, UINT64_MAX);
            hw_compact(&h, 0);
        } else {
            hw_txout(&h, &tx->vout[i]);
        }
    }
    hw_u32(&h, tx->locktime);
    hw_u32(&h, (uint32_t)hash_type);
    hw_final_d(&h, out32);
}

void sighash_witness_v0(uint8_t out32[32], const uint8_t *script_code, size_t script_len,
                        const struct tx *tx, size_t in_idx, int32_t hash_type, int64_t amount,
                        const struct tx_precomputed *pd)
{
    uint8_t hash_prevouts[32] = {0}, hash_sequence[32] = {0}, hash_outputs[32] = {0};
    uint8_t t[32];
    int base = hash_type & 0x1f;
    int anyone = (hash_type & SIGHASH_ANYONECANPAY) != 0;
    int ready = pd && pd->bip143_ready;

    if (!anyone) {
        if (ready) {
            memcpy(hash_prevouts, pd->hash_prevouts, 32);
        } else {
            prevouts_single(t, tx);
            hash_sha256(hash_prevouts, t, 32);
        }
    }
    if (!anyone && base != SIGHASH_SINGLE && base != SIGHASH_NONE) {
        if (ready) {
            memcpy(hash_sequence, pd->hash_sequence, 32);
        } else {
            sequences_single(t, tx);
            hash_sha256(hash_sequence, t, 32);
        }
    }
    if (base != SIGHASH_SINGLE && base != SIGHASH_NONE) {
        if (ready) {
            memcpy(hash_outputs, pd->hash_outputs, 32);
        } else {
            outputs_single(t, tx);
            hash_sha256(hash_outputs, t, 32);
        }
    } else if (base == SIGHASH_SINGLE && in_idx < tx->vout_count) {
        struct hw ho;
        hw_init(&ho);
        hw_txout(&ho, &tx->vout[in_idx]);
        hw_final_d(&ho, hash_outputs);
    }
    struct hw h;
    hw_init(&h);
    hw_u32(&h, (uint32_t)tx->version);
    hw_write(&h, hash_prevouts, 32);
    hw_write(&h, hash_sequence, 32);
    hw_outpoint(&h, &tx->vin[in_idx].prevout);
    hw_varbytes(&h, script_code, script_len);
    hw_u64(&h, (uint64_t)amount);
    hw_u32(&h, tx->vin[in_idx].sequence);
    hw_write(&h, hash_outputs, 32);
    hw_u32(&h, tx->locktime);
    hw_u32(&h, (uint32_t)hash_type);
    hw_final_d(&h, out32);
}

int sighash_taproot(uint8_t out32[32], const struct tx *tx, size_t in_idx, uint8_t hash_type,
                    enum sig_version sigversion, const struct script_execdata *ed,
                    const struct tx_precomputed *pd, struct buf *preimage)
{
    uint8_t ext_flag, key_version;
    if (sigversion == SIGVERSION_TAPROOT) {
        ext_flag = 0;
        key_version = 0; /* unused */
    } else if (sigversion == SIGVERSION_TAPSCRIPT) {
        ext_flag = 1;
        key_version = 0; /* BIP342: the only defined key version */
    } else {
        return 0;
    }
    if (!pd || !pd->bip341_ready || in_idx >= tx->vin_count) {
        return 0;
    }
    if (!(hash_type <= 0x03 || (hash_type >= 0x81 && hash_type <= 0x83))) {
        return 0;
    }
    uint8_t output_type =
        hash_type == SIGHASH_DEFAULT ? SIGHASH_ALL : (hash_type & SIGHASH_OUTPUT_MASK);
    uint8_t input_type = hash_type & SIGHASH_INPUT_MASK;
    if (output_type == SIGHASH_SINGLE && in_idx >= tx->vout_count) {
        return 0;
    }
    if (!ed || !ed->annex_init) {
        return 0;
    }

    struct hw h;
    hash_tagged_init(&h.ctx, "TapSighash");
    h.copy = preimage;
    hw_u8(&h, 0); /* epoch */
    hw_u8(&h, hash_type);
    hw_u32(&h, (uint32_t)tx->version);
    hw_u32(&h, tx->locktime);
    if (input_type != SIGHASH_ANYONECANPAY) {
        hw_write(&h, pd->prevouts_single, 32);
        hw_write(&h, pd->spent_amounts_single, 32);
        hw_write(&h, pd->spent_scripts_single, 32);
        hw_write(&h, pd->sequences_single, 32);
    }
    if (output_type == SIGHASH_ALL) {
        hw_write(&h, pd->outputs_single, 32);
    }
    uint8_t spend_type = (uint8_t)((ext_flag << 1) + (ed->annex_present ? 1 : 0));
    hw_u8(&h, spend_type);
    if (input_type == SIGHASH_ANYONECANPAY) {
        hw_outpoint(&h, &tx->vin[in_idx].prevout);
        hw_txout(&h, &pd->spent_outputs[in_idx]);
        hw_u32(&h, tx->vin[in_idx].sequence);
    } else {
        hw_u32(&h, (uint32_t)in_idx);
    }
    if (ed->annex_present) {
        hw_write(&h, ed->annex_hash, 32);
    }
    if (output_type == SIGHASH_SINGLE) {
        struct hw ho;
        uint8_t t[32];
        hw_init(&ho);
        hw_txout(&ho, &tx->vout[in_idx]);
        hash_sha256_final(&ho.ctx, t);
        hw_write(&h, t, 32);
    }
    if (sigversion == SIGVERSION_TAPSCRIPT) {
        if (!ed->tapleaf_hash_init || !ed->codeseparator_pos_init) {
            return 0;
        }
        hw_write(&h, ed->tapleaf_hash, 32);
        hw_u8(&h, key_version);
        hw_u32(&h, ed->codeseparator_pos);
    }
    hash_sha256_final(&h.ctx, out32);
    return 1;
}
