/* Output descriptors (BIP380-386) as Bitcoin Core infers them from a script, with their
 * checksum. See descriptor.h. */
#include "sign/descriptor.h"

#include <string.h>

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>

#include "consensus/address.h"
#include "crypto/hash.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "script/solver.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"

static void put_str(struct buf *out, const char *s)
{
    buf_append(out, s, strlen(s));
}

/* ---- descriptor checksum (BIP380, Core's DescriptorChecksum) ---------------------- */

static const char DESC_INPUT_CHARSET[] = "0123456789()[],'/*abcdefgh@:$%{}"
                                         "IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~"
                                         "ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
static const char DESC_CHECKSUM_CHARSET[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint64_t desc_polymod(uint64_t c, unsigned val)
{
    uint8_t c0 = (uint8_t)(c >> 35);
    c = ((c & 0x7ffffffffULL) << 5) ^ val;
    if (c0 & 1) {
        c ^= 0xf5dee51989ULL;
    }
    if (c0 & 2) {
        c ^= 0xa9fdca3312ULL;
    }
    if (c0 & 4) {
        c ^= 0x1bab10e32dULL;
    }
    if (c0 & 8) {
        c ^= 0x3706b1677aULL;
    }
    if (c0 & 16) {
        c ^= 0x644d626ffdULL;
    }
    return c;
}

int script_descriptor_checksum(char out[SCRIPT_DESC_CHECKSUM_SIZE], const char *desc, size_t len)
{
    uint64_t c = 1;
    unsigned cls = 0, clscount = 0;
    for (size_t i = 0; i < len; i++) {
        const char *pos = desc[i] ? strchr(DESC_INPUT_CHARSET, desc[i]) : NULL;
        if (!pos) {
            return RC_INVALID;
        }
        unsigned v = (unsigned)(pos - DESC_INPUT_CHARSET);
        /* Every character gives a symbol for its position inside its group of 32; every
         * three characters give one more symbol for their three group numbers. */
        c = desc_polymod(c, v & 31);
        cls = cls * 3 + (v >> 5);
        if (++clscount == 3) {
            c = desc_polymod(c, cls);
            cls = 0;
            clscount = 0;
        }
    }
    if (clscount > 0) {
        c = desc_polymod(c, cls);
    }
    for (int j = 0; j < 8; j++) {
        c = desc_polymod(c, 0);
    }
    c ^= 1;
    for (int j = 0; j < 8; j++) {
        out[j] = DESC_CHECKSUM_CHARSET[(c >> (5 * (7 - j))) & 31];
    }
    out[8] = 0;
    return RC_OK;
}

/* ---- descriptor inference (Core's InferScript with an empty or one-script provider) --- */

/* CPubKey::IsValidNonHybrid for a key whose length the solver already checked. */
static int pubkey_non_hybrid(const uint8_t *k, size_t n)
{
    return n > 0 && (k[0] == 2 || k[0] == 3 || k[0] == 4);
}

/* XOnlyPubKey::IsFullyValid: the 32 bytes are the x coordinate of a curve point. */
static int xonly_fully_valid(const uint8_t x32[32])
{
    secp256k1_xonly_pubkey pk;
    return secp256k1_xonly_pubkey_parse(script_secp_ctx(), &pk, x32) == 1;
}

enum desc_ctx { CTX_TOP, CTX_P2WSH };

/* Appends the inferred descriptor (no checksum) of s in context ctx to out. inner/inner_len
 * is the one script the "provider" knows (decodescript's P2WSH witness script), or NULL.
 * Returns 0 if nothing can be inferred (only below the top level), else 1. */
static int infer_script(struct buf *out, const uint8_t *s, size_t len, enum desc_ctx ctx,
                        const uint8_t *inner, size_t inner_len, const struct chain_params *p)
{
    enum script_type t = script_solve(s, len, NULL, NULL);
    if (t == SCRIPT_TYPE_PUBKEY) {
        const uint8_t *k = s + 1;
        size_t kl = (size_t)s[0];
        if (pubkey_non_hybrid(k, kl) && (ctx == CTX_TOP || script_pubkey_is_compressed(k, kl))) {
            put_str(out, "pk(");
            hex_append(out, k, kl);
            put_str(out, ")");
            return 1;
        }
    }
    if (t == SCRIPT_TYPE_MULTISIG) {
        const uint8_t *keys[MAX_PUBKEYS_PER_MULTISIG];
        size_t key_lens[MAX_PUBKEYS_PER_MULTISIG];
        int m, n, ok = 1;
        script_multisig_keys(s, len, &m, keys, key_lens, &n);
        for (int i = 0; i < n; i++) {
            if (!pubkey_non_hybrid(keys[i], key_lens[i]) ||
                (ctx != CTX_TOP && !script_pubkey_is_compressed(keys[i], key_lens[i]))) {
                ok = 0;
            }
        }
        if (ok) {
            char num[16];
            snprintf(num, sizeof(num), "%d", m);
            put_str(out, "multi(");
            put_str(out, num);
            for (int i = 0; i < n; i++) {
                buf_put_u8(out, ',');
                hex_append(out, keys[i], key_lens[i]);
            }
            put_str(out, ")");
            return 1;
        }
    }
    if (t == SCRIPT_TYPE_WITNESS_V0_SCRIPTHASH && ctx == CTX_TOP && inner) {
        uint8_t h[32];
        hash_sha256(h, inner, inner_len);
        if (memcmp(h, s + 2, 32) == 0) {
            size_t mark = out->len;
            put_str(out, "wsh(");
            if (infer_script(out, inner, inner_len, CTX_P2WSH, NULL, 0, p)) {
                put_str(out, ")");
                return 1;
            }
            out->len = mark;
        }
    }
    if (t == SCRIPT_TYPE_WITNESS_V1_TAPROOT && ctx == CTX_TOP && xonly_fully_valid(s + 2)) {
        put_str(out, "rawtr(");
        hex_append(out, s + 2, 32);
        put_str(out, ")");
        return 1;
    }
    /* Core tries miniscript here for P2WSH scripts (not implemented: see the header). */
    if (ctx != CTX_TOP) {
        return 0;
    }
    char addr[ADDRESS_MAX_LEN];
    if (address_from_script(addr, sizeof(addr), s, len, p) == RC_OK) {
        put_str(out, "addr(");
        put_str(out, addr);
        put_str(out, ")");
        return 1;
    }
    put_str(out, "raw(");
    hex_append(out, s, len);
    put_str(out, ")");
    return 1;
}

void script_descriptor_infer(struct buf *out, const uint8_t *s, size_t len, const uint8_t *inner,
                             size_t inner_len, const struct chain_params *p)
{
    size_t start = out->len;
    infer_script(out, s, len, CTX_TOP, inner, inner_len, p);
    /* Everything inferred is hex, digits, addresses and function names: always inside the
     * descriptor character set. */
    char cs[SCRIPT_DESC_CHECKSUM_SIZE];
    CHECK_ALWAYS(script_descriptor_checksum(cs, (const char *)out->data + start, out->len - start) ==
                 RC_OK);
    buf_put_u8(out, '#');
    put_str(out, cs);
    buf_put_u8(out, 0);
    out->len--;
}

