/* Fuzz target: address and key strings as RPC callers give them (validateaddress,
 * sendtoaddress's destinations, importprivkey's WIF, descriptors' addr() and keys). The
 * input's first byte picks the chain (low 2 bits); the rest, up to a NUL, is the string.
 *
 * Nothing may crash, leak or read out of bounds. An address that decodes must have an
 * error-free decode with the error-locating reader too, and the address of its script must
 * decode to the same script (the canonical form: lower case for bech32); a string that
 * does not decode must come with Core's message. The raw Base58(Check) and bech32 readers
 * behind them get the same string: what decodes encodes to a string that decodes to the same
 * bytes; a WIF key that decodes encodes to a WIF that decodes to the same key.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a few built-in strings.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/address.h"
#include "consensus/params.h"
#include "crypto/base58.h"
#include "crypto/bech32.h"
#include "util/buf.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const CHAINS[] = {"main", "test", "regtest", "signet"};

static void fuzz_address(const char *s, const struct chain_params *p)
{
    struct buf spk, again;
    buf_init(&spk);
    buf_init(&again);
    char err[256] = "";
    size_t n = strlen(s);
    int *locs = xmalloc((n + 1) * sizeof(int));
    size_t n_locs = 0;
    int rc = address_to_script_err_loc(&spk, s, p, err, sizeof(err), locs, &n_locs);
    if (n_locs > n) {
        abort();
    }
    for (size_t i = 0; i < n_locs; i++) {
        if (locs[i] < 0 || (size_t)locs[i] >= n) {
            abort();
        }
    }
    free(locs);
    if ((address_to_script(&again, s, p) == 0) != (rc == 0)) {
        abort(); /* the two readers disagree */
    }
    if (rc != 0) {
        if (!err[0]) {
            abort();
        }
    } else {
        char out[ADDRESS_MAX_LEN];
        if (address_from_script(out, sizeof(out), spk.data, spk.len, p) != 0) {
            fprintf(stderr, "decoded address %s has a script with no address\n", s);
            abort();
        }
        buf_reset(&again);
        if (address_to_script(&again, out, p) != 0 || again.len != spk.len ||
            memcmp(again.data, spk.data, spk.len) != 0) {
            fprintf(stderr, "%s -> %s does not decode to the same script\n", s, out);
            abort();
        }
    }
    buf_clear(&spk);
    buf_clear(&again);
    uint8_t key[32];
    int compressed;
    if (address_decode_wif(key, &compressed, s, p) == 0) {
        char *w = address_encode_wif(key, compressed, p);
        uint8_t key2[32];
        int c2;
        if (!w || address_decode_wif(key2, &c2, w, p) != 0 || memcmp(key, key2, 32) != 0 ||
            c2 != compressed) {
            abort();
        }
        free(w);
    }
}

static void fuzz_codecs(const char *s)
{
    struct buf b, c;
    buf_init(&b);
    buf_init(&c);
    if (base58_decode(&b, s, 256) == 0) {
        char *e = base58_encode(b.data, b.len);
        if (base58_decode(&c, e, 256) != 0 || c.len != b.len ||
            (b.len && memcmp(b.data, c.data, b.len) != 0)) {
            abort();
        }
        free(e);
    }
    buf_reset(&b);
    buf_reset(&c);
    if (base58check_decode(&b, s, 256) == 0) {
        char *e = base58check_encode(b.data, b.len);
        if (base58check_decode(&c, e, 256) != 0 || c.len != b.len ||
            (b.len && memcmp(b.data, c.data, b.len) != 0)) {
            abort();
        }
        free(e);
    }
    buf_clear(&b);
    buf_clear(&c);
    char hrp[100];
    uint8_t v[100];
    size_t n;
    enum bech32_encoding enc;
    if (bech32_decode(hrp, v, &n, &enc, s) == 0) {
        char out[100];
        if (bech32_encode(out, sizeof(out), hrp, v, n, enc) != 0) {
            abort();
        }
        char hrp2[100];
        uint8_t v2[100];
        size_t n2;
        enum bech32_encoding enc2;
        if (bech32_decode(hrp2, v2, &n2, &enc2, out) != 0 || n2 != n || enc2 != enc ||
            strcmp(hrp, hrp2) != 0 || memcmp(v, v2, n) != 0) {
            abort();
        }
    }
    int locs[128];
    size_t n_locs;
    if (strlen(s) < 128) {
        (void)bech32_locate_errors(s, locs, &n_locs);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 512) {
        return 0;
    }
    char *s = xmalloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    fuzz_address(s, chain_params_get(CHAINS[data[0] & 3]));
    fuzz_codecs(s);
    free(s);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    static const char *const seeds[] = {
        "\0001BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
        "\0003J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
        "\000bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        "\000bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
        "\002bcrt1qs758ursh4q9z627kt3pp5yysm78ddny6txaqgw",
        "\0005HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ",
        "\000BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4",
    };
    return fuzz_run_strings(seeds, sizeof(seeds) / sizeof(seeds[0]), 1);
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif
