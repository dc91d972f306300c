#include "validation/block_check.h"

#include <stdio.h>
#include <string.h>

#include "consensus/merkle.h"
#include "consensus/pow.h"
#include "consensus/tx_check.h"
#include "crypto/hash.h"
#include "script/sigops.h"
#include "util/hex.h"
#include "util/rc.h"
#include "validation/signet.h"

int block_check_header(struct vstate *s, const struct block_header *h,
                       const struct chain_params *p)
{
    uint8_t hash[32];
    block_header_hash(h, hash);
    if (!pow_check(hash, h->bits, p)) {
        return vstate_reject(s, VRESULT_INVALID_HEADER, REJECT_HIGH_HASH, "proof of work failed");
    }
    return RC_OK;
}

int block_check(struct vstate *s, const struct block *b, const struct chain_params *p,
                int check_pow)
{
    uint8_t root[32];
    int mutated = 0;

    if (check_pow && block_check_header(s, &b->header, p)) {
        return RC_INVALID;
    }
    /* Signet: the block's signature, with its proof of work (Core's CheckBlock order). */
    if (check_pow && p->signet_blocks && !signet_check_block_solution(b, p)) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_SIGNET_BLKSIG,
                              "signet block signature validation failure");
    }
    merkle_block_root(root, &mutated, b);
    if (memcmp(root, b->header.merkle_root, 32) != 0) {
        return vstate_reject(s, VRESULT_MUTATED, REJECT_BAD_TXNMRKLROOT, "hashMerkleRoot mismatch");
    }
    if (mutated) {
        return vstate_reject(s, VRESULT_MUTATED, REJECT_BAD_TXNS_DUPLICATE,
                              "duplicate transaction");
    }
    if (b->tx_count == 0 || b->tx_count * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT ||
        b->size_stripped * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_BLK_LENGTH, "size limits failed");
    }
    if (!tx_is_coinbase(&b->txs[0])) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_CB_MISSING, "first tx is not coinbase");
    }
    for (size_t i = 1; i < b->tx_count; i++) {
        if (tx_is_coinbase(&b->txs[i])) {
            return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_CB_MULTIPLE,
                                  "more than one coinbase");
        }
    }
    for (size_t i = 0; i < b->tx_count; i++) {
        struct vstate ts;
        vstate_init(&ts);
        if (consensus_check_tx(&ts, &b->txs[i])) {
            char txid[65];
            hex_encode_rev(txid, b->txs[i].txid, 32);
            return vstate_invalid(s, VRESULT_CONSENSUS, ts.reject,
                                  "transaction check failed (tx %zu %s): %s", i, txid, ts.debug);
        }
    }
    uint64_t sigops = 0;
    for (size_t i = 0; i < b->tx_count; i++) {
        sigops += tx_sigops_legacy(&b->txs[i]);
    }
    if (sigops * WITNESS_SCALE_FACTOR > MAX_BLOCK_SIGOPS_COST) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_BLK_SIGOPS, "out-of-bounds SigOpCount %llu",
                              (unsigned long long)sigops);
    }
    return RC_OK;
}

int block_check_header_contextual(struct vstate *s, const struct block_header *h,
                                  const struct header_context *ctx, const struct chain_params *p)
{
    if (h->bits != ctx->expected_bits) {
        return vstate_reject(s, VRESULT_INVALID_HEADER, REJECT_BAD_DIFFBITS,
                              "incorrect proof of work: bits %08x, expected %08x", h->bits,
                              ctx->expected_bits);
    }
    if ((int64_t)h->time <= ctx->prev_mtp) {
        return vstate_reject(s, VRESULT_INVALID_HEADER, REJECT_TIME_TOO_OLD,
                              "block's timestamp %u is not after the median time past %lld",
                              h->time, (long long)ctx->prev_mtp);
    }
    if (p->enforce_bip94 && ctx->height % chain_params_retarget_interval(p) == 0 &&
        (int64_t)h->time < ctx->prev_time - MAX_TIMEWARP) {
        return vstate_reject(s, VRESULT_INVALID_HEADER, REJECT_TIME_TIMEWARP_ATTACK,
                              "block's timestamp %u is too early on a retarget boundary",
                              h->time);
    }
    if ((int64_t)h->time > ctx->adjusted_time + MAX_FUTURE_BLOCK_TIME) {
        return vstate_reject(s, VRESULT_TIME_FUTURE, REJECT_TIME_TOO_NEW,
                              "block timestamp %u too far in the future", h->time);
    }
    if ((h->version < 2 && ctx->height >= p->bip34_height) ||
        (h->version < 3 && ctx->height >= p->bip66_height) ||
        (h->version < 4 && ctx->height >= p->bip65_height)) {
        char reject[VSTATE_REJECT_LEN];
        snprintf(reject, sizeof(reject), REJECT_FMT_BAD_VERSION,
                 (uint32_t)h->version);
        return vstate_invalid(s, VRESULT_INVALID_HEADER, reject, "rejected nVersion=0x%08x block",
                              (uint32_t)h->version);
    }
    return RC_OK;
}

int block_check_witness_commitment(struct vstate *s, const struct block *b, int *found)
{
    int pos = merkle_witness_commitment_index(b);
    *found = pos >= 0;
    if (pos < 0) {
        return RC_OK;
    }
    const struct tx_in *in = &b->txs[0].vin[0];
    uint8_t root[32], both[64], commit[32];
    if (in->witness_count != 1 || in->witness[0].len != 32) {
        return vstate_reject(s, VRESULT_MUTATED, REJECT_BAD_WITNESS_NONCE_SIZE,
                              "invalid witness reserved value size");
    }
    merkle_block_witness_root(root, NULL, b);
    memcpy(both, root, 32);
    memcpy(both + 32, in->witness[0].data, 32);
    hash_sha256d(commit, both, 64);
    if (memcmp(commit, b->txs[0].vout[pos].script_pubkey.data + 6, 32) != 0) {
        return vstate_reject(s, VRESULT_MUTATED, REJECT_BAD_WITNESS_MERKLE_MATCH,
                              "witness merkle commitment mismatch");
    }
    return RC_OK;
}

int block_check_contextual(struct vstate *s, const struct block *b, int height, int64_t prev_mtp,
                           const struct chain_params *p)
{
    int64_t cutoff = height >= p->csv_height ? prev_mtp : (int64_t)b->header.time;
    for (size_t i = 0; i < b->tx_count; i++) {
        if (!consensus_tx_is_final(&b->txs[i], height, cutoff)) {
            return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_TXNS_NONFINAL,
                                  "non-final transaction %zu", i);
        }
    }
    if (height >= p->bip34_height) {
        uint8_t want[6];
        size_t n = consensus_height_push(want, height);
        const struct bytes *sig = &b->txs[0].vin[0].script_sig;
        if (sig->len < n || memcmp(sig->data, want, n) != 0) {
            return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_CB_HEIGHT,
                                  "block height mismatch in coinbase");
        }
    }
    int have_witness = 0;
    if (height >= p->segwit_height) {
        int rc = block_check_witness_commitment(s, b, &have_witness);
        if (rc) {
            return rc;
        }
    }
    if (!have_witness) {
        for (size_t i = 0; i < b->tx_count; i++) {
            if (tx_has_witness(&b->txs[i])) {
                return vstate_reject(s, VRESULT_MUTATED, REJECT_UNEXPECTED_WITNESS,
                                      "unexpected witness data found in tx %zu", i);
            }
        }
    }
    if (block_weight(b) > MAX_BLOCK_WEIGHT) {
        return vstate_reject(s, VRESULT_CONSENSUS, REJECT_BAD_BLK_WEIGHT, "weight limit failed: %zu",
                              block_weight(b));
    }
    return RC_OK;
}
