/* Addresses and WIF keys (Bitcoin Core's key_io.cpp, Solver and GetScriptForDestination). */
#include "consensus/address.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/base58.h"
#include "crypto/bech32.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define OP_0 0x00
#define OP_1 0x51
#define OP_16 0x60
#define OP_DUP 0x76
#define OP_EQUAL 0x87
#define OP_EQUALVERIFY 0x88
#define OP_HASH160 0xa9
#define OP_CHECKSIG 0xac

#define WITNESS_PROG_MIN 2
#define WITNESS_PROG_MAX 40

/* secp256k1's group order n, big-endian: a secret key is valid iff 0 < key < n. */
static const uint8_t secp256k1_order[32] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
    0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
};

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--) {
        *v++ = 0;
    }
}

static int seckey_valid(const uint8_t key32[32])
{
    static const uint8_t zero[32];
    return memcmp(key32, zero, 32) != 0 && memcmp(key32, secp256k1_order, 32) < 0;
}

static void set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* Base58Check of prefix || payload into out. */
static int encode_base58(char *out, size_t out_len, const struct base58_prefix *pre,
                         const uint8_t *payload, size_t n)
{
    uint8_t data[4 + 33];
    if (pre->len + n > sizeof(data)) {
        return RC_INVALID;
    }
    memcpy(data, pre->bytes, pre->len);
    memcpy(data + pre->len, payload, n);
    char *s = base58check_encode(data, pre->len + n);
    wipe(data, sizeof(data));
    size_t len = strlen(s);
    int rc = RC_OK;
    if (len + 1 > out_len) {
        rc = RC_TOO_LARGE;
    } else {
        memcpy(out, s, len + 1);
    }
    wipe(s, len);
    free(s);
    return rc;
}

/* Core's IsWitnessProgram: OP_0 or OP_1..OP_16, then one direct push of 2..40 bytes making
 * up the rest of the script. */
static int witness_program(int *version, const uint8_t **prog, size_t *prog_len, const uint8_t *spk,
                           size_t n)
{
    if (n < 4 || n > 42) {
        return 0;
    }
    if (spk[0] != OP_0 && (spk[0] < OP_1 || spk[0] > OP_16)) {
        return 0;
    }
    if ((size_t)spk[1] + 2 != n) {
        return 0;
    }
    *version = spk[0] == OP_0 ? 0 : spk[0] - OP_1 + 1;
    *prog = spk + 2;
    *prog_len = n - 2;
    return 1;
}

int address_from_script(char *out, size_t out_len, const uint8_t *spk, size_t spk_len,
                        const struct chain_params *p)
{
    int version;
    const uint8_t *prog;
    size_t prog_len;

    if (spk_len == 23 && spk[0] == OP_HASH160 && spk[1] == 20 && spk[22] == OP_EQUAL) {
        return encode_base58(out, out_len, &p->base58[BASE58_SCRIPT_ADDRESS], spk + 2, 20);
    }
    if (witness_program(&version, &prog, &prog_len, spk, spk_len)) {
        /* Version 0 is defined only for 20- and 32-byte programs; Core's Solver calls other
         * lengths non-standard and gives them no address. */
        if (version == 0 && prog_len != 20 && prog_len != 32) {
            return RC_INVALID;
        }
        char tmp[ADDRESS_MAX_LEN];
        if (segwit_addr_encode(tmp, sizeof(tmp), p->bech32_hrp, version, prog, prog_len) != RC_OK) {
            return RC_INVALID;
        }
        size_t len = strlen(tmp);
        if (len + 1 > out_len) {
            return RC_TOO_LARGE;
        }
        memcpy(out, tmp, len + 1);
        return RC_OK;
    }
    if (spk_len == 25 && spk[0] == OP_DUP && spk[1] == OP_HASH160 && spk[2] == 20 &&
        spk[23] == OP_EQUALVERIFY && spk[24] == OP_CHECKSIG) {
        return encode_base58(out, out_len, &p->base58[BASE58_PUBKEY_ADDRESS], spk + 3, 20);
    }
    return RC_INVALID;
}

static int has_prefix(const struct buf *data, const struct base58_prefix *pre)
{
    return data->len >= pre->len && memcmp(data->data, pre->bytes, pre->len) == 0;
}

/* Core's DecodeDestination, Base58 branch. */
static int decode_base58_address(struct buf *spk, const char *addr, const struct chain_params *p,
                                 char *err, size_t err_len)
{
    const struct base58_prefix *pk = &p->base58[BASE58_PUBKEY_ADDRESS];
    const struct base58_prefix *sh = &p->base58[BASE58_SCRIPT_ADDRESS];
    struct buf data;
    int rc = RC_INVALID;

    buf_init(&data);
    if (base58check_decode(&data, addr, 21) != RC_OK) {
        buf_reset(&data);
        if (base58_decode(&data, addr, 100) != RC_OK) {
            set_err(err, err_len, "Invalid or unsupported Segwit (Bech32) or Base58 encoding.");
        } else {
            set_err(err, err_len, "Invalid checksum or length of Base58 address (P2PKH or P2SH)");
        }
        goto out;
    }
    if (data.len == 20 + pk->len && has_prefix(&data, pk)) {
        static const uint8_t head[3] = {OP_DUP, OP_HASH160, 20};
        static const uint8_t tail[2] = {OP_EQUALVERIFY, OP_CHECKSIG};
        buf_append(spk, head, sizeof(head));
        buf_append(spk, data.data + pk->len, 20);
        buf_append(spk, tail, sizeof(tail));
        rc = RC_OK;
    } else if (data.len == 20 + sh->len && has_prefix(&data, sh)) {
        static const uint8_t head[2] = {OP_HASH160, 20};
        buf_append(spk, head, sizeof(head));
        buf_append(spk, data.data + sh->len, 20);
        buf_put_u8(spk, OP_EQUAL);
        rc = RC_OK;
    } else if (has_prefix(&data, pk) || has_prefix(&data, sh)) {
        set_err(err, err_len, "Invalid length for Base58 address (P2PKH or P2SH)");
    } else {
        set_err(err, err_len, "Invalid or unsupported Base58-encoded address.");
    }
out:
    buf_clear(&data);
    return rc;
}

/* Core's DecodeDestination, Bech32 branch (the string starts with p's HRP). */
static int decode_bech32_address(struct buf *spk, const char *addr, const struct chain_params *p,
                                 char *err, size_t err_len, int *locs, size_t *n_locs)
{
    char hrp[BECH32_MAX_LEN + 1];
    uint8_t values[BECH32_MAX_LEN];
    size_t n = 0;
    enum bech32_encoding enc = BECH32_INVALID;

    if (strlen(addr) > BECH32_MAX_LEN || bech32_decode(hrp, values, &n, &enc, addr) != RC_OK ||
        enc == BECH32_INVALID) {
        /* Core's LocateErrors says why, and where. */
        size_t n_tmp = 0, len = strlen(addr);
        int *tmp = locs ? locs : xmalloc((len ? len : 1) * sizeof(int));
        set_err(err, err_len, "%s", bech32_locate_errors(addr, tmp, n_locs ? n_locs : &n_tmp));
        if (!locs) {
            free(tmp);
        }
        return RC_INVALID;
    }
    if (n == 0) {
        set_err(err, err_len, "Empty Bech32 data section");
        return RC_INVALID;
    }
    if (strcmp(hrp, p->bech32_hrp) != 0) {
        set_err(err, err_len,
                "Invalid or unsupported prefix for Segwit (Bech32) address (expected %s, got %s).",
                p->bech32_hrp, hrp);
        return RC_INVALID;
    }
    int version = values[0];
    if (version == 0 && enc != BECH32_BECH32) {
        set_err(err, err_len, "Version 0 witness address must use Bech32 checksum");
        return RC_INVALID;
    }
    if (version != 0 && enc != BECH32_BECH32M) {
        set_err(err, err_len, "Version 1+ witness address must use Bech32m checksum");
        return RC_INVALID;
    }

    /* 5-bit groups to bytes, without padding: at most 4 leftover bits, all zero. */
    uint8_t prog[BECH32_MAX_LEN];
    size_t prog_len = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 1; i < n; i++) {
        acc = ((acc << 5) | values[i]) & 0xfff;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            prog[prog_len++] = (uint8_t)(acc >> bits);
        }
    }
    if (bits >= 5 || ((acc << (8 - bits)) & 0xff) != 0) {
        set_err(err, err_len, "Invalid padding in Bech32 data section");
        return RC_INVALID;
    }
    const char *byte_str = prog_len == 1 ? "byte" : "bytes";
    if (version == 0 && prog_len != 20 && prog_len != 32) {
        set_err(err, err_len, "Invalid Bech32 v0 address program size (%zu %s), per BIP141",
                prog_len, byte_str);
        return RC_INVALID;
    }
    if (version > 16) {
        set_err(err, err_len, "Invalid Bech32 address witness version");
        return RC_INVALID;
    }
    if (prog_len < WITNESS_PROG_MIN || prog_len > WITNESS_PROG_MAX) {
        set_err(err, err_len, "Invalid Bech32 address program size (%zu %s)", prog_len, byte_str);
        return RC_INVALID;
    }
    buf_put_u8(spk, version == 0 ? OP_0 : (uint8_t)(OP_1 + version - 1));
    buf_put_u8(spk, (uint8_t)prog_len);
    buf_append(spk, prog, prog_len);
    return RC_OK;
}

int address_to_script_err(struct buf *spk, const char *addr, const struct chain_params *p,
                          char *err, size_t err_len)
{
    return address_to_script_err_loc(spk, addr, p, err, err_len, NULL, NULL);
}

int address_to_script_err_loc(struct buf *spk, const char *addr, const struct chain_params *p,
                              char *err, size_t err_len, int *locs, size_t *n_locs)
{
    size_t hrp_len = strlen(p->bech32_hrp);
    int is_bech32 = strlen(addr) >= hrp_len;

    set_err(err, err_len, "%s", "");
    if (n_locs) {
        *n_locs = 0;
    }
    /* Like Core: a string that starts with this chain's HRP (any case) is only ever read as
     * bech32, so a Base58 string that happens to start that way is not an address. */
    for (size_t i = 0; is_bech32 && i < hrp_len; i++) {
        char c = addr[i];
        if (c >= 'A' && c <= 'Z') {
            c = (char)(c - 'A' + 'a');
        }
        if (c != p->bech32_hrp[i]) {
            is_bech32 = 0;
        }
    }
    if (!is_bech32) {
        return decode_base58_address(spk, addr, p, err, err_len);
    }
    return decode_bech32_address(spk, addr, p, err, err_len, locs, n_locs);
}

int address_to_script(struct buf *spk, const char *addr, const struct chain_params *p)
{
    return address_to_script_err(spk, addr, p, NULL, 0);
}

int address_decode_wif(uint8_t key32[32], int *compressed, const char *wif,
                       const struct chain_params *p)
{
    const struct base58_prefix *pre = &p->base58[BASE58_SECRET_KEY];
    struct buf data;
    int rc = RC_INVALID;

    buf_init(&data);
    if (base58check_decode(&data, wif, 34) != RC_OK) {
        goto out;
    }
    if (!has_prefix(&data, pre)) {
        goto out;
    }
    if (data.len == pre->len + 32) {
        *compressed = 0;
    } else if (data.len == pre->len + 33 && data.data[data.len - 1] == 1) {
        *compressed = 1;
    } else {
        goto out;
    }
    if (!seckey_valid(data.data + pre->len)) {
        goto out;
    }
    memcpy(key32, data.data + pre->len, 32);
    rc = RC_OK;
out:
    if (data.data) {
        wipe(data.data, data.cap);
    }
    buf_clear(&data);
    return rc;
}

char *address_encode_wif(const uint8_t key32[32], int compressed, const struct chain_params *p)
{
    uint8_t payload[33];
    char out[ADDRESS_MAX_LEN];

    if (!seckey_valid(key32)) {
        return NULL;
    }
    memcpy(payload, key32, 32);
    payload[32] = 1;
    int rc = encode_base58(out, sizeof(out), &p->base58[BASE58_SECRET_KEY], payload,
                           compressed ? 33 : 32);
    wipe(payload, sizeof(payload));
    if (rc != RC_OK) {
        wipe(out, sizeof(out));
        return NULL;
    }
    char *s = xstrdup(out);
    wipe(out, sizeof(out));
    return s;
}
