/* Fuzz target: arbitrary scripts and witnesses with arbitrary verification flags.
 *
 * Input layout (every field optional; a short input just leaves the rest empty):
 *   4 bytes  flags (little-endian; every bit combination is allowed)
 *   1 byte   selector: bit 0-1 sigversion for the direct script_eval run, bit 2 amount,
 *            bit 3 tx version 2, bit 4 time locktime, bit 5 relative-locktime sequence,
 *            bit 6 taproot script path: the scriptPubKey and the last witness item are
 *            replaced by a P2TR output and control block committing to the second-to-last
 *            witness item as the only tapscript leaf (so the fuzzer reaches tapscript
 *            through script_verify without having to find a commitment)
 *   then a sequence of chunks, each a 2-byte little-endian length and that many bytes:
 *   chunk 0 = scriptSig, chunk 1 = scriptPubKey, chunks 2.. = witness items.
 *
 * Each input is run through script_verify (crediting/spending transaction pair as in
 * Core's script tests), script_eval under each sigversion, the sigop counters, the asm
 * formatter and the legacy/BIP143 signature hashes. Nothing may crash, leak or read out
 * of bounds; the verdict must agree with the error code, and must not change when flags
 * are removed from a pass or added to a failure (the soft-fork property).
 *
 * Build with libFuzzer (clang -fsanitize=fuzzer,address,undefined) or without it: the
 * standalone driver (-DFUZZ_STANDALONE, the default unless FUZZ_LIBFUZZER is defined)
 * replays files and directories given on the command line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/tx.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/script_asm.h"
#include "script/script_error.h"
#include "script/sigcheck.h"
#include "script/sighash.h"
#include "script/sigops.h"
#include "util/buf.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Core's IsValidFlagCombination. */
static int valid_flag_combination(uint32_t f)
{
    if ((f & SCRIPT_VERIFY_CLEANSTACK) && (~f & (SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_WITNESS))) {
        return 0;
    }
    if ((f & SCRIPT_VERIFY_WITNESS) && (~f & SCRIPT_VERIFY_P2SH)) {
        return 0;
    }
    return 1;
}

#define MAX_CHUNKS 64

static void set_bytes(struct bytes *b, const uint8_t *p, size_t n)
{
    b->len = n;
    b->data = n ? xmemdup(p, n) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t flags = 0;
    uint8_t sel = 0;
    const uint8_t *chunk[MAX_CHUNKS];
    size_t chunk_len[MAX_CHUNKS];
    size_t nchunks = 0;

    size_t pos = 0;
    if (size >= 5) {
        flags = rd_u32le(data);
        sel = data[4];
        pos = 5;
    }
    while (nchunks < MAX_CHUNKS && size - pos >= 2) {
        size_t n = rd_u16le(data + pos);
        pos += 2;
        if (n > size - pos) {
            n = size - pos;
        }
        chunk[nchunks] = data + pos;
        chunk_len[nchunks] = n;
        pos += n;
        nchunks++;
    }
    static const uint8_t empty[1] = {0};
    const uint8_t *sig = nchunks > 0 ? chunk[0] : empty;
    size_t sig_len = nchunks > 0 ? chunk_len[0] : 0;
    const uint8_t *spk = nchunks > 1 ? chunk[1] : empty;
    size_t spk_len = nchunks > 1 ? chunk_len[1] : 0;
    size_t nwit = nchunks > 2 ? nchunks - 2 : 0;

    /* Taproot script path: commit to witness[n-2] under the BIP341 NUMS key. */
    uint8_t tr_spk[34], control[33];
    if ((sel & 64) && nwit >= 2) {
        static const uint8_t nums[32] = {0x50, 0x92, 0x9b, 0x74, 0xc1, 0xa0, 0x49, 0x54,
                                         0xb7, 0x8b, 0x4b, 0x60, 0x35, 0xe9, 0x7a, 0x5e,
                                         0x07, 0x8a, 0x5a, 0x0f, 0x28, 0xec, 0x96, 0xd5,
                                         0x47, 0xbf, 0xee, 0x9a, 0xce, 0x80, 0x3a, 0xc0};
        uint8_t leaf[32];
        int parity = 0;
        script_tapleaf_hash(leaf, TAPROOT_LEAF_TAPSCRIPT, chunk[nchunks - 2],
                            chunk_len[nchunks - 2]);
        if (script_taproot_tweak(tr_spk + 2, &parity, nums, leaf)) {
            tr_spk[0] = OP_1;
            tr_spk[1] = 32;
            control[0] = (uint8_t)(TAPROOT_LEAF_TAPSCRIPT | parity);
            memcpy(control + 1, nums, 32);
            spk = tr_spk;
            spk_len = sizeof(tr_spk);
            chunk[nchunks - 1] = control;
            chunk_len[nchunks - 1] = sizeof(control);
            flags |= SCRIPT_VERIFY_TAPROOT | SCRIPT_VERIFY_WITNESS | SCRIPT_VERIFY_P2SH;
        }
    }

    /* Crediting and spending transactions (Core's script_tests layout). */
    struct tx credit, spend;
    tx_init(&credit);
    tx_init(&spend);
    credit.version = 1;
    credit.vin_count = 1;
    credit.vin = xcalloc(1, sizeof(struct tx_in));
    credit.vin[0].prevout.n = 0xffffffffu;
    credit.vin[0].sequence = SEQUENCE_FINAL;
    credit.vout_count = 1;
    credit.vout = xcalloc(1, sizeof(struct tx_out));
    credit.vout[0].value_sat = (sel & 4) ? 100000000 : 0;
    set_bytes(&credit.vout[0].script_pubkey, spk, spk_len);
    tx_compute_hashes(&credit);

    spend.version = (sel & 8) ? 2 : 1;
    spend.locktime = (sel & 16) ? 500000001u : 0;
    spend.vin_count = 1;
    spend.vin = xcalloc(1, sizeof(struct tx_in));
    memcpy(spend.vin[0].prevout.txid, credit.txid, 32);
    set_bytes(&spend.vin[0].script_sig, sig, sig_len);
    spend.vin[0].sequence = (sel & 32) ? 0x00400010u : SEQUENCE_FINAL;
    if (nwit) {
        spend.vin[0].witness_count = nwit;
        spend.vin[0].witness = xcalloc(nwit, sizeof(struct bytes));
        for (size_t i = 0; i < nwit; i++) {
            set_bytes(&spend.vin[0].witness[i], chunk[2 + i], chunk_len[2 + i]);
        }
    }
    spend.vout_count = 1;
    spend.vout = xcalloc(1, sizeof(struct tx_out));
    spend.vout[0].value_sat = credit.vout[0].value_sat;
    tx_compute_hashes(&spend);

    struct tx_precomputed pd;
    enum script_error err;
    sighash_precompute(&pd, &spend, credit.vout, 1);
    int ret = script_verify_input(&spend, 0, &credit.vout[0], &pd, flags, NULL, 0, &err);
    if ((unsigned)err >= SCRIPT_ERR_ERROR_COUNT || ret != (err == SCRIPT_ERR_OK)) {
        abort();
    }
    /* Soft-fork monotonicity (Core's script_flags target): removing flags from a passing
     * verification or adding flags to a failing one must not change the verdict, for the
     * flag combinations VerifyScript accepts. */
    if (valid_flag_combination(flags)) {
        uint32_t fuzzed = ((flags >> 11) | (flags << 21)) ^ (sel * 0x01010101u);
        uint32_t flags2 = ret ? (flags & ~fuzzed) : (flags | fuzzed);
        if (valid_flag_combination(flags2)) {
            enum script_error err2;
            int ret2 = script_verify_input(&spend, 0, &credit.vout[0], &pd, flags2, NULL, 0, &err2);
            if (ret2 != (err2 == SCRIPT_ERR_OK) || ret2 != ret) {
                fprintf(stderr, "verdict changed: flags %x -> %x: %s -> %s\n", flags, flags2,
                        script_error_name(err), script_error_name(err2));
                abort();
            }
        }
    }

    /* The opcode machine directly, under each sigversion. */
    struct script_checker chk = {&spend, 0, credit.vout[0].value_sat, &pd, NULL, 0};
    static const enum sig_version svs[] = {SIGVERSION_BASE, SIGVERSION_WITNESS_V0,
                                           SIGVERSION_TAPSCRIPT, SIGVERSION_BASE};
    struct script_execdata ed;
    memset(&ed, 0, sizeof(ed));
    ed.annex_init = 1;
    ed.tapleaf_hash_init = 1;
    ed.validation_weight_left_init = 1;
    ed.validation_weight_left = 50 + (int64_t)size;
    struct script_stack st;
    script_stack_init(&st);
    for (size_t i = 0; i < nwit; i++) {
        script_stack_push(&st, chunk[2 + i], chunk_len[2 + i]);
    }
    script_eval(&st, spk, spk_len, flags, &chk, svs[sel & 3], &ed, &err);
    script_stack_clear(&st);

    /* Sigops, text form, signature hashes. */
    struct bytes *w = spend.vin[0].witness;
    (void)script_sigop_count(spk, spk_len, 1);
    (void)script_p2sh_sigop_count(spk, spk_len, sig, sig_len);
    (void)script_witness_sigop_count(sig, sig_len, spk, spk_len, w, nwit, flags);
    (void)tx_sigop_cost(&spend, credit.vout, flags);
    struct buf text;
    buf_init(&text);
    script_asm_format(&text, spk, spk_len);
    buf_clear(&text);
    uint8_t h[32];
    sighash_legacy(h, spk, spk_len, &spend, 0, (int32_t)flags);
    sighash_witness_v0(h, spk, spk_len, &spend, 0, (int32_t)flags, 1, &pd);
    struct buf pattern;
    buf_init(&pattern);
    script_find_and_delete(&pattern, spk, spk_len, sig, sig_len);
    buf_clear(&pattern);

    tx_clear(&credit);
    tx_clear(&spend);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    static const uint8_t seeds[][40] = {
        {0xff, 0xff, 0x1f, 0x00, 0x00, 0x02, 0x00, 0x51, 0x51, 0x01, 0x00, 0x87},
        {0x01, 0x08, 0x02, 0x00, 0x01, 0x00, 0x00, 0x22, 0x00, 0x00, 0x20},
        {0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x05, 0x00, 0x63, 0x67, 0x68, 0xae, 0xba},
    };
    return fuzz_run_rows(&seeds[0][0], sizeof(seeds) / sizeof(seeds[0]), sizeof(seeds[0]));
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
