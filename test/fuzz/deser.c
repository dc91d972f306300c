/* Fuzz target: transaction and block deserialization, what every peer, RPC caller and block
 * file controls. The first byte picks the reader (low 2 bits), the rest is its input:
 *   0: a transaction, extended (BIP144) format allowed, the whole input;
 *   1: a transaction in the legacy format, read from the front of the input (more may follow);
 *   2: a block, the whole input; 3: a block followed by anything (DecodeHexBlk's reader).
 * Nothing may crash, leak or read out of bounds, and a failure must say why. What parses
 * must serialize back to exactly the bytes it was read from (the reader accepts one
 * encoding only), with the sizes and hashes the parser filled in; it then goes through the
 * context-free consensus checks (CheckTransaction, CheckBlock with the merkle root and
 * mutation checks, then for a block that passes those the contextual ones: finality, BIP34's
 * height, the witness commitment) on regtest's parameters.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a few built-in inputs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/params.h"
#include "consensus/tx_check.h"
#include "consensus/vstate.h"
#include "crypto/hash.h"
#include "primitives/block.h"
#include "primitives/tx.h"
#include "util/buf.h"
#include "validation/block_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A parsed transaction must be what its bytes say: serialized again it is those bytes, and
 * its sizes and hashes are those of the bytes. */
static void check_tx_roundtrip(const struct tx *tx, const uint8_t *p, size_t len)
{
    struct buf b;
    buf_init(&b);
    tx_serialize(tx, &b, 1);
    if (b.len != len || memcmp(b.data, p, len) != 0 || tx->size_total != len) {
        fprintf(stderr, "tx does not round-trip: %zu bytes read, %zu written\n", len, b.len);
        abort();
    }
    buf_reset(&b);
    tx_serialize(tx, &b, 0);
    uint8_t h[32];
    hash_sha256d(h, b.data, b.len);
    if (b.len != tx->size_stripped || memcmp(h, tx->txid, 32) != 0) {
        fprintf(stderr, "txid or stripped size is not that of the legacy bytes\n");
        abort();
    }
    hash_sha256d(h, p, len);
    if (memcmp(h, tx->wtxid, 32) != 0) {
        fprintf(stderr, "wtxid is not the hash of the bytes read\n");
        abort();
    }
    buf_clear(&b);
    struct vstate st;
    vstate_init(&st);
    (void)consensus_check_tx(&st, tx);
}

static void fuzz_tx(const uint8_t *p, size_t len, int legacy_prefix)
{
    struct tx tx;
    char err[256] = "";
    if (!legacy_prefix) {
        if (tx_deserialize(&tx, p, len, err, sizeof(err)) != 0) {
            if (!err[0]) {
                abort(); /* a failure without a reason */
            }
            return;
        }
        check_tx_roundtrip(&tx, p, len);
        tx_clear(&tx);
        return;
    }
    struct reader r;
    reader_init(&r, p, len);
    if (tx_parse(&tx, &r, 0) != 0) {
        if (!r.err[0]) {
            abort();
        }
        return;
    }
    size_t used = len - reader_left(&r);
    if (tx_has_witness(&tx)) {
        abort(); /* the legacy reader cannot produce a witness */
    }
    check_tx_roundtrip(&tx, p, used);
    tx_clear(&tx);
}

static void fuzz_block(const uint8_t *p, size_t len, int prefix)
{
    struct block blk;
    char err[256] = "";
    size_t used = len;
    int rc = prefix ? block_parse_prefix(&blk, p, len, &used, err, sizeof(err))
                    : block_parse(&blk, p, len, err, sizeof(err));
    if (rc != 0) {
        if (!err[0]) {
            abort();
        }
        return;
    }
    if (used > len) {
        abort();
    }
    struct buf b;
    buf_init(&b);
    block_serialize(&blk, &b, 1);
    if (b.len != used || memcmp(b.data, p, used) != 0 || blk.size_total != used) {
        fprintf(stderr, "block does not round-trip: %zu bytes read, %zu written\n", used, b.len);
        abort();
    }
    buf_clear(&b);
    uint8_t h[32];
    hash_sha256d(h, p, 80);
    if (memcmp(h, blk.hash, 32) != 0) {
        abort();
    }
    const struct chain_params *params = chain_params_get("regtest");
    struct vstate st;
    vstate_init(&st);
    /* The contextual checks take a block CheckBlock passed (a coinbase first). */
    if (block_check(&st, &blk, params, 0) == 0) {
        vstate_init(&st);
        (void)block_check_contextual(&st, &blk, 1, 0, params);
    }
    block_clear(&blk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    switch (data[0] & 3) {
    case 0:
        fuzz_tx(data + 1, size - 1, 0);
        break;
    case 1:
        fuzz_tx(data + 1, size - 1, 1);
        break;
    default:
        fuzz_block(data + 1, size - 1, (data[0] & 3) == 3);
    }
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    size_t count = 0;
    /* A one-in one-out transaction, and with a witness. */
    static const uint8_t seeds[][80] = {
        {0x00, 0x01, 0, 0, 0, 0x01, [38] = 0xff, 0xff, 0xff, 0xff, 0x01, [51] = 0x01, 0x51},
        {0x00, 0x02, 0, 0, 0, 0x00, 0x01, 0x01, [41] = 0xff, 0xff, 0xff, 0xff, 0x01, [54] = 0x01,
         0x51, 0x01, 0x01, 0x07},
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        for (size_t n = 0; n <= sizeof(seeds[i]); n++) {
            LLVMFuzzerTestOneInput(seeds[i], n);
            count++;
        }
    }
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
