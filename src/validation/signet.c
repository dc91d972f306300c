/* Signet block solutions (BIP325), as Bitcoin Core's signet.cpp checks them. See signet.h. */
#include "validation/signet.h"

#include <string.h>

#include "consensus/merkle.h"
#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_error.h"
#include "script/sighash.h"
#include "util/buf.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const uint8_t SIGNET_HEADER[4] = {0xec, 0xc7, 0xda, 0xa2};

/* Core's BLOCK_SCRIPT_VERIFY_FLAGS in signet.cpp. */
#define SIGNET_FLAGS                                                                               \
    (SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS | SCRIPT_VERIFY_DERSIG | SCRIPT_VERIFY_NULLDUMMY)

/* Core's FetchAndClearCommitmentSection: the first push of the script that starts with the
 * header and holds more than it gives its remainder to *solution; the script is rewritten
 * (into *replacement) with that push cut to the header. As Core's GetOp loop, the rewrite
 * stops at a truncated push. Returns 1 if the header was found. */
static int fetch_solution(const uint8_t *s, size_t len, struct buf *replacement,
                          struct buf *solution)
{
    size_t pc = 0;
    uint8_t op;
    const uint8_t *data;
    size_t dlen;
    int found = 0;
    while (script_get_op(s, len, &pc, &op, &data, &dlen)) {
        if (dlen > 0) {
            if (!found && dlen > sizeof(SIGNET_HEADER) &&
                memcmp(data, SIGNET_HEADER, sizeof(SIGNET_HEADER)) == 0) {
                buf_append(solution, data + sizeof(SIGNET_HEADER), dlen - sizeof(SIGNET_HEADER));
                dlen = sizeof(SIGNET_HEADER);
                found = 1;
            }
            script_push_data(replacement, data, dlen);
        } else {
            buf_put_u8(replacement, op);
        }
    }
    return found;
}

/* The solution: a scriptSig, then a witness stack, nothing after (Core's SpanReader). The
 * items point into sol; *witness is allocated (caller frees). Returns 1 if it parses. */
static int parse_solution(const struct buf *sol, struct bytes *script_sig, struct bytes **witness,
                          size_t *witness_count)
{
    struct reader r;
    const uint8_t *p;
    size_t n;
    uint64_t count;
    reader_init(&r, sol->data, sol->len);
    if (ser_get_varbytes(&r, &p, &n, "signet scriptSig") != RC_OK) {
        return 0;
    }
    script_sig->data = (uint8_t *)p;
    script_sig->len = n;
    if (ser_get_compact(&r, &count, "signet witness count") != RC_OK ||
        count > reader_left(&r)) {
        return 0; /* every item takes at least its length byte */
    }
    *witness = count ? xcalloc((size_t)count, sizeof(**witness)) : NULL;
    *witness_count = (size_t)count;
    for (size_t i = 0; i < (size_t)count; i++) {
        if (ser_get_varbytes(&r, &p, &n, "signet witness item") != RC_OK) {
            return 0;
        }
        (*witness)[i].data = (uint8_t *)p;
        (*witness)[i].len = n;
    }
    return reader_left(&r) == 0;
}

int signet_check_block_solution(const struct block *b, const struct chain_params *p)
{
    if (memcmp(b->hash, p->genesis_hash, 32) == 0) {
        return 1; /* the genesis block's solution is always valid */
    }
    int cidx = b->tx_count > 0 ? merkle_witness_commitment_index(b) : -1;
    if (cidx < 0) {
        return 0; /* a solution needs the witness commitment to live in */
    }
    int ok = 0;
    struct buf replacement, solution, block_data, to_spend_sig;
    buf_init(&replacement);
    buf_init(&solution);
    buf_init(&block_data);
    buf_init(&to_spend_sig);
    struct bytes sol_sig = {NULL, 0};
    struct bytes *sol_witness = NULL;
    size_t sol_witness_count = 0;
    uint8_t(*leaves)[32] = xmalloc(b->tx_count * sizeof(*leaves));

    /* The coinbase with the solution cut out of its commitment, and the block's merkle
     * root with that coinbase: what the solution signs. */
    const struct bytes *commitment = &b->txs[0].vout[cidx].script_pubkey;
    /* No solution at all is allowed (a challenge such as OP_TRUE needs none). */
    int found = fetch_solution(commitment->data, commitment->len, &replacement, &solution);
    if (found && !parse_solution(&solution, &sol_sig, &sol_witness, &sol_witness_count)) {
        goto out;
    }
    struct tx cb;
    tx_copy(&cb, &b->txs[0]);
    if (found) {
        struct bytes *spk = &cb.vout[cidx].script_pubkey;
        free(spk->data);
        spk->data = replacement.len ? xmalloc(replacement.len) : NULL;
        if (replacement.len) {
            memcpy(spk->data, replacement.data, replacement.len);
        }
        spk->len = replacement.len;
    }
    tx_compute_hashes(&cb);
    memcpy(leaves[0], cb.txid, 32);
    tx_clear(&cb);
    for (size_t i = 1; i < b->tx_count; i++) {
        memcpy(leaves[i], b->txs[i].txid, 32);
    }
    uint8_t signet_merkle[32];
    int mutated;
    merkle_root(signet_merkle, &mutated, (const uint8_t(*)[32])leaves, b->tx_count);

    /* to_spend: spends nothing, its scriptSig is OP_0 and the block data, its output the
     * challenge. */
    buf_put_u32le(&block_data, (uint32_t)b->header.version);
    buf_append(&block_data, b->header.prev_hash, 32);
    buf_append(&block_data, signet_merkle, 32);
    buf_put_u32le(&block_data, b->header.time);
    buf_put_u8(&to_spend_sig, OP_0);
    script_push_data(&to_spend_sig, block_data.data, block_data.len);
    struct tx_in spend_in = {.sequence = 0};
    memset(spend_in.prevout.txid, 0, 32);
    spend_in.prevout.n = 0xffffffffu;
    spend_in.script_sig.data = to_spend_sig.data;
    spend_in.script_sig.len = to_spend_sig.len;
    struct tx_out spend_out = {.value_sat = 0};
    spend_out.script_pubkey.data = (uint8_t *)p->signet_challenge;
    spend_out.script_pubkey.len = p->signet_challenge_len;
    struct tx to_spend = {.version = 0, .vin = &spend_in, .vin_count = 1, .vout = &spend_out,
                          .vout_count = 1, .locktime = 0};
    tx_compute_hashes(&to_spend);

    /* to_sign: spends to_spend's output with the solution, pays to OP_RETURN. */
    static const uint8_t op_return = OP_RETURN;
    struct tx_in sign_in = {.sequence = 0, .script_sig = sol_sig, .witness = sol_witness,
                            .witness_count = sol_witness_count};
    memcpy(sign_in.prevout.txid, to_spend.txid, 32);
    sign_in.prevout.n = 0;
    struct tx_out sign_out = {.value_sat = 0};
    sign_out.script_pubkey.data = (uint8_t *)&op_return;
    sign_out.script_pubkey.len = 1;
    struct tx to_sign = {.version = 0, .vin = &sign_in, .vin_count = 1, .vout = &sign_out,
                         .vout_count = 1, .locktime = 0};
    tx_compute_hashes(&to_sign);

    struct tx_precomputed pd;
    sighash_precompute(&pd, &to_sign, &spend_out, 1);
    struct script_checker chk = {.tx = &to_sign, .in_idx = 0, .amount = 0, .txdata = &pd};
    enum script_error err;
    ok = script_verify(sol_sig.data, sol_sig.len, spend_out.script_pubkey.data,
                       spend_out.script_pubkey.len, sol_witness, sol_witness_count, SIGNET_FLAGS,
                       &chk, &err);
out:
    free(leaves);
    free(sol_witness);
    buf_clear(&replacement);
    buf_clear(&solution);
    buf_clear(&block_data);
    buf_clear(&to_spend_sig);
    return ok;
}
