/* Bech32 / Bech32m (BIP173, BIP350) and segwit addresses. */
#include <string.h>

#include "crypto/bech32.h"
#include "util/rc.h"

#define CHECKSUM_LEN 6
#define HRP_MAX_LEN 83
#define BECH32M_CONST 0x2bc830a3u

static const char CHARSET[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint32_t polymod_step(uint32_t c, uint8_t v)
{
    uint8_t c0 = (uint8_t)(c >> 25);
    c = ((c & 0x1ffffff) << 5) ^ v;
    if (c0 & 1) {
        c ^= 0x3b6a57b2;
    }
    if (c0 & 2) {
        c ^= 0x26508e6d;
    }
    if (c0 & 4) {
        c ^= 0x1ea119fa;
    }
    if (c0 & 8) {
        c ^= 0x3d4233dd;
    }
    if (c0 & 16) {
        c ^= 0x2a1462b3;
    }
    return c;
}

/* The checksum polynomial over the expanded hrp (high bits, 0, low bits) and the values.
 * hrp must already be lower case. */
static uint32_t polymod_hrp(const char *hrp, size_t hrp_len, const uint8_t *values, size_t n)
{
    uint32_t c = 1;
    size_t i;
    for (i = 0; i < hrp_len; i++) {
        c = polymod_step(c, (uint8_t)((unsigned char)hrp[i] >> 5));
    }
    c = polymod_step(c, 0);
    for (i = 0; i < hrp_len; i++) {
        c = polymod_step(c, (uint8_t)((unsigned char)hrp[i] & 31));
    }
    for (i = 0; i < n; i++) {
        c = polymod_step(c, values[i]);
    }
    return c;
}

static uint32_t encoding_const(enum bech32_encoding enc)
{
    return enc == BECH32_BECH32M ? BECH32M_CONST : 1;
}

static int charset_rev(unsigned char c)
{
    const char *pos;
    if (c == 0) {
        return -1;
    }
    pos = strchr(CHARSET, c);
    return pos ? (int)(pos - CHARSET) : -1;
}

int bech32_encode(char *out, size_t out_len, const char *hrp, const uint8_t *values5,
                  size_t n, enum bech32_encoding enc)
{
    size_t hrp_len = strlen(hrp), total, i, pos;
    uint32_t c;

    if (enc != BECH32_BECH32 && enc != BECH32_BECH32M) {
        return RC_INVALID;
    }
    if (hrp_len < 1 || hrp_len > HRP_MAX_LEN) {
        return RC_INVALID;
    }
    for (i = 0; i < hrp_len; i++) {
        unsigned char ch = (unsigned char)hrp[i];
        if (ch < 33 || ch > 126 || (ch >= 'A' && ch <= 'Z')) {
            return RC_INVALID;
        }
    }
    for (i = 0; i < n; i++) {
        if (values5[i] >= 32) {
            return RC_INVALID;
        }
    }
    if (n > BECH32_MAX_LEN) {
        return RC_TOO_LARGE;
    }
    total = hrp_len + 1 + n + CHECKSUM_LEN;
    if (total > BECH32_MAX_LEN || total + 1 > out_len) {
        return RC_TOO_LARGE;
    }
    /* The checksum is the remainder of the data followed by six zero values. */
    c = polymod_hrp(hrp, hrp_len, values5, n);
    for (i = 0; i < CHECKSUM_LEN; i++) {
        c = polymod_step(c, 0);
    }
    c ^= encoding_const(enc);

    memcpy(out, hrp, hrp_len);
    pos = hrp_len;
    out[pos++] = '1';
    for (i = 0; i < n; i++) {
        out[pos++] = CHARSET[values5[i]];
    }
    for (i = 0; i < CHECKSUM_LEN; i++) {
        out[pos++] = CHARSET[(c >> (5 * (5 - i))) & 31];
    }
    out[pos] = '\0';
    return RC_OK;
}

int bech32_decode(char *hrp_out, uint8_t *values5, size_t *n, enum bech32_encoding *enc,
                  const char *s)
{
    size_t len = strlen(s), sep, i, data_len;
    int lower = 0, upper = 0;
    uint8_t values[BECH32_MAX_LEN];
    uint32_t c;

    *enc = BECH32_INVALID;
    *n = 0;
    hrp_out[0] = '\0';
    if (len > BECH32_MAX_LEN) {
        return RC_INVALID;
    }
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 33 || ch > 126) {
            return RC_INVALID;
        }
        if (ch >= 'a' && ch <= 'z') {
            lower = 1;
        } else if (ch >= 'A' && ch <= 'Z') {
            upper = 1;
        }
    }
    if (lower && upper) {
        return RC_INVALID;
    }
    /* The separator is the last '1': the hrp may itself contain '1's. */
    sep = len;
    for (i = len; i > 0; i--) {
        if (s[i - 1] == '1') {
            sep = i - 1;
            break;
        }
    }
    if (sep == len || sep == 0 || sep > HRP_MAX_LEN || sep + 1 + CHECKSUM_LEN > len) {
        return RC_INVALID;
    }
    data_len = len - sep - 1;
    for (i = 0; i < data_len; i++) {
        unsigned char ch = (unsigned char)s[sep + 1 + i];
        int v;
        if (ch >= 'A' && ch <= 'Z') {
            ch = (unsigned char)(ch - 'A' + 'a');
        }
        v = charset_rev(ch);
        if (v < 0) {
            return RC_INVALID;
        }
        values[i] = (uint8_t)v;
    }
    for (i = 0; i < sep; i++) {
        char ch = s[i];
        if (ch >= 'A' && ch <= 'Z') {
            ch = (char)(ch - 'A' + 'a');
        }
        hrp_out[i] = ch;
    }
    hrp_out[sep] = '\0';

    c = polymod_hrp(hrp_out, sep, values, data_len);
    if (c == 1) {
        *enc = BECH32_BECH32;
    } else if (c == BECH32M_CONST) {
        *enc = BECH32_BECH32M;
    } else {
        hrp_out[0] = '\0';
        return RC_INVALID;
    }
    *n = data_len - CHECKSUM_LEN;
    memcpy(values5, values, *n);
    return RC_OK;
}

/* ---- error location (Core's bech32::LocateErrors) ------------------------------------ */

/* GF(1024) as GF(32)[e]/(e^2 + 9e + 23), GF(32) as GF(2)[x]/(x^5 + x^3 + 1). An element
 * a*e + b is the 10-bit value a << 5 | b; e generates the multiplicative group. */
struct gf1024 {
    int16_t exp[1023];
    int16_t log[1024];
};

static void gf1024_init(struct gf1024 *g)
{
    int8_t exp32[31], log32[32];
    int v = 1;
    for (int i = 0; i < 31; i++) {
        exp32[i] = (int8_t)v;
        log32[v] = (int8_t)i;
        v <<= 1;
        if (v & 32) {
            v ^= 41; /* x^5 + x^3 + 1 */
        }
    }
    log32[0] = -1;
    for (int i = 0; i < 1024; i++) {
        g->log[i] = -1;
    }
    v = 1;
    for (int i = 0; i < 1023; i++) {
        g->exp[i] = (int16_t)v;
        g->log[v] = (int16_t)i;
        /* Multiply by e: e * (a*e + b) = a*e^2 + b*e = (9a + b)*e + 23a. */
        int a = v >> 5, b = v & 31;
        int lo = a ? exp32[(log32[a] + log32[23]) % 31] : 0;
        int hi = (a ? exp32[(log32[a] + log32[9]) % 31] : 0) ^ b;
        v = hi << 5 | lo;
    }
}

/* The residue's values at e^997, e^998 and e^999 (the generator's roots), 10 bits each. */
static uint32_t syndrome(const struct gf1024 *g, uint32_t residue)
{
    uint32_t low = residue & 31, r = low ^ (low << 10) ^ (low << 20);
    for (int k = 1; k < 6; k++) {
        for (int bit = 0; bit < 5; bit++) {
            if (!((residue >> (5 * k + bit)) & 1)) {
                continue;
            }
            int b = g->log[1 << bit];
            uint32_t c0 = (uint32_t)g->exp[(997 * k + b) % 1023];
            uint32_t c1 = (uint32_t)g->exp[(998 * k + b) % 1023];
            uint32_t c2 = (uint32_t)g->exp[(999 * k + b) % 1023];
            r ^= c2 << 20 | c1 << 10 | c0;
        }
    }
    return r;
}

/* Finds one or two error positions (counted from the end of the data) for a residue:
 * returns how many (0 when none fits), positions in p[0..1], p[0] the larger. */
static int find_errors(const struct gf1024 *g, uint32_t residue, size_t length, size_t p[2])
{
    uint32_t syn = syndrome(g, residue);
    int s0 = syn & 0x3ff, s1 = (syn >> 10) & 0x3ff, s2 = (int)(syn >> 20);
    int l0 = g->log[s0], l1 = g->log[s1], l2 = g->log[s2];
    if (l0 != -1 && l1 != -1 && l2 != -1 && (2 * l1 - l2 - l0 + 2046) % 1023 == 0) {
        /* One error: s1/s0 = s2/s1 = e^p1, and its value e1 must lie in GF(32). */
        size_t p1 = (size_t)((l1 - l0 + 1023) % 1023);
        int le1 = l0 + (1023 - 997) * (int)p1;
        if (p1 < length && le1 % 33 == 0) {
            p[0] = p1;
            return 1;
        }
        return 0;
    }
    for (size_t p1 = 0; p1 < length; p1++) {
        int a = s2 ^ (s1 ? g->exp[(l1 + (int)p1) % 1023] : 0);
        if (a == 0) {
            continue;
        }
        int b = s1 ^ (s0 ? g->exp[(l0 + (int)p1) % 1023] : 0);
        if (b == 0) {
            continue;
        }
        size_t p2 = (size_t)((g->log[a] - g->log[b] + 1023) % 1023);
        if (p2 >= length || p1 == p2) {
            continue;
        }
        int c = s1 ^ (s0 ? g->exp[(l0 + (int)p2) % 1023] : 0);
        if (c == 0) {
            continue;
        }
        int inv = 1023 - g->log[g->exp[p1] ^ g->exp[p2]];
        int le2 = g->log[b] + inv + (1023 - 997) * (int)p2;
        int le1 = g->log[c] + inv + (1023 - 997) * (int)p1;
        if (le2 % 33 || le1 % 33) {
            continue;
        }
        p[0] = p1 > p2 ? p1 : p2;
        p[1] = p1 > p2 ? p2 : p1;
        return 2;
    }
    return 0;
}

const char *bech32_locate_errors(const char *s, int *locs, size_t *n_locs)
{
    size_t len = strlen(s), sep = len;
    int lower = 0, upper = 0;
    *n_locs = 0;
    if (len > BECH32_MAX_LEN) {
        for (size_t i = BECH32_MAX_LEN; i < len; i++) {
            locs[(*n_locs)++] = (int)i;
        }
        return "Bech32 string too long";
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'a' && c <= 'z') {
            if (upper) {
                locs[(*n_locs)++] = (int)i;
            } else {
                lower = 1;
            }
        } else if (c >= 'A' && c <= 'Z') {
            if (lower) {
                locs[(*n_locs)++] = (int)i;
            } else {
                upper = 1;
            }
        } else if (c < 33 || c > 126) {
            locs[(*n_locs)++] = (int)i;
        }
    }
    if (*n_locs) {
        return "Invalid character or mixed case";
    }
    for (size_t i = len; i > 0; i--) {
        if (s[i - 1] == '1') {
            sep = i - 1;
            break;
        }
    }
    if (sep == len) {
        return "Missing separator";
    }
    if (sep == 0 || sep + CHECKSUM_LEN >= len) {
        locs[(*n_locs)++] = (int)sep;
        return "Invalid separator position";
    }
    char hrp[BECH32_MAX_LEN + 1];
    uint8_t values[BECH32_MAX_LEN];
    size_t n = len - 1 - sep;
    for (size_t i = 0; i < sep; i++) {
        hrp[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
    }
    hrp[sep] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[sep + 1 + i];
        int v = charset_rev((c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c);
        if (v < 0) {
            locs[(*n_locs)++] = (int)(sep + 1 + i);
            return "Invalid Base 32 character";
        }
        values[i] = (uint8_t)v;
    }
    struct gf1024 g;
    gf1024_init(&g);
    enum bech32_encoding found = BECH32_INVALID;
    static const enum bech32_encoding encs[2] = {BECH32_BECH32, BECH32_BECH32M};
    for (int e = 0; e < 2; e++) {
        uint32_t residue = polymod_hrp(hrp, sep, values, n) ^ encoding_const(encs[e]);
        if (residue == 0) {
            *n_locs = 0;
            return "";
        }
        size_t p[2];
        int k = find_errors(&g, residue, n, p);
        /* Keep the encoding that explains the string with the fewest errors. */
        if (k > 0 && (*n_locs == 0 || (size_t)k < *n_locs)) {
            for (int j = 0; j < k; j++) {
                locs[j] = (int)(len - p[j] - 1);
            }
            *n_locs = (size_t)k;
            found = encs[e];
        }
    }
    return found == BECH32_BECH32M  ? "Invalid Bech32m checksum"
           : found == BECH32_BECH32 ? "Invalid Bech32 checksum"
                                    : "Invalid checksum";
}

/* Regroups bits: inbits-wide values to outbits-wide values, big-endian bit order. With pad,
 * leftover bits are zero-padded into one last value; without, leftovers must be fewer than
 * inbits and all zero (BIP173's rule for decoding). Returns 1 on success, 0 on bad padding.
 * out must hold the worst case, ceil(in_len * inbits / outbits). */
static int convert_bits(uint8_t *out, size_t *out_len, int outbits, const uint8_t *in,
                        size_t in_len, int inbits, int pad)
{
    uint32_t val = 0, maxv = (1u << outbits) - 1;
    int bits = 0;
    size_t i;

    *out_len = 0;
    for (i = 0; i < in_len; i++) {
        val = ((val << inbits) | in[i]) & 0xfff;
        bits += inbits;
        while (bits >= outbits) {
            bits -= outbits;
            out[(*out_len)++] = (uint8_t)((val >> bits) & maxv);
        }
    }
    if (pad) {
        if (bits) {
            out[(*out_len)++] = (uint8_t)((val << (outbits - bits)) & maxv);
        }
    } else if (bits >= inbits || ((val << (outbits - bits)) & maxv)) {
        return 0;
    }
    return 1;
}

int segwit_addr_encode(char *out, size_t out_len, const char *hrp, int witver,
                       const uint8_t *prog, size_t prog_len)
{
    uint8_t values[1 + 64];
    size_t n;

    if (witver < 0 || witver > 16 || prog_len < 2 || prog_len > 40) {
        return RC_INVALID;
    }
    if (witver == 0 && prog_len != 20 && prog_len != 32) {
        return RC_INVALID;
    }
    values[0] = (uint8_t)witver;
    convert_bits(values + 1, &n, 5, prog, prog_len, 8, 1);
    if (bech32_encode(out, out_len, hrp, values, n + 1,
                      witver == 0 ? BECH32_BECH32 : BECH32_BECH32M) != RC_OK) {
        return RC_INVALID;
    }
    return RC_OK;
}

int segwit_addr_decode(int *witver, uint8_t *prog, size_t *prog_len, const char *hrp,
                       const char *addr)
{
    char dec_hrp[HRP_MAX_LEN + 1];
    uint8_t values[BECH32_MAX_LEN];
    uint8_t tmp[BECH32_MAX_LEN];
    size_t n, len, i;
    enum bech32_encoding enc;

    if (bech32_decode(dec_hrp, values, &n, &enc, addr) != RC_OK) {
        return RC_INVALID;
    }
    len = strlen(hrp);
    if (len != strlen(dec_hrp)) {
        return RC_INVALID;
    }
    for (i = 0; i < len; i++) {
        char ch = hrp[i];
        if (ch >= 'A' && ch <= 'Z') {
            ch = (char)(ch - 'A' + 'a');
        }
        if (ch != dec_hrp[i]) {
            return RC_INVALID;
        }
    }
    /* A version and at most 40 bytes' worth (64 values) of program. */
    if (n < 1 || n > 65 || values[0] > 16) {
        return RC_INVALID;
    }
    if (!convert_bits(tmp, &len, 8, values + 1, n - 1, 5, 0)) {
        return RC_INVALID;
    }
    if (len < 2 || len > 40) {
        return RC_INVALID;
    }
    if (values[0] == 0 && len != 20 && len != 32) {
        return RC_INVALID;
    }
    if (enc != (values[0] == 0 ? BECH32_BECH32 : BECH32_BECH32M)) {
        return RC_INVALID;
    }
    *witver = values[0];
    memcpy(prog, tmp, len);
    *prog_len = len;
    return RC_OK;
}
