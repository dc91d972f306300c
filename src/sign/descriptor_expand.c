/* String output and expansion of parsed descriptors, as Bitcoin Core's ToString and Expand
 * (script/descriptor.cpp) do them. See descriptor.h; the tree is descriptor_impl.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/address.h"
#include "crypto/hash.h"
#include "sign/bip32.h"
#include "sign/descriptor.h"
#include "sign/descriptor_impl.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const char *const NTYPE_NAME[] = {
    "raw",     "addr",          "pk", "pkh", "wpkh", "combo", "multi",  "sortedmulti",
    "multi_a", "sortedmulti_a", "sh", "wsh", "tr",   "rawtr", "unused",
};

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--) {
        *v++ = 0;
    }
}

/* The key's public key at (alt, pos): 0 with out/out_len, or RC_INVALID when a hardened step
 * needs the private key. */
static int key_derive(const struct desc_key *k, size_t alt, uint32_t pos, uint8_t out[65],
                      size_t *out_len)
{
    if (!k->is_bip32) {
        memcpy(out, k->pub, k->pub_len);
        *out_len = k->pub_len;
        return RC_OK;
    }
    const uint32_t *path = k->paths + (k->n_paths > 1 ? alt : 0) * k->path_len;
    struct bip32_key x = k->root;
    int rc = RC_OK;
    for (size_t i = 0; i < k->path_len && rc == RC_OK; i++) {
        rc = bip32_derive(&x, &x, path[i]);
    }
    if (rc == RC_OK && k->derive != DERIVE_NONE) {
        rc = bip32_derive(&x, &x, pos | (k->derive == DERIVE_HARDENED ? BIP32_HARDENED : 0));
    }
    if (rc == RC_OK) {
        memcpy(out, x.pubkey33, 33);
        *out_len = 33;
    }
    bip32_key_wipe(&x);
    return rc;
}

/* Adds key k (derived at alt/pos as pub) to prov with its origin, as Core's pubkey
 * providers fill FlatSigningProvider::origins: an explicit origin followed by the steps
 * derived; else a BIP32 key's own fingerprint and steps; else the key id's first bytes. */
static void key_remember(struct script_desc_provider *prov, const struct desc_key *k, size_t alt,
                         uint32_t pos, const uint8_t *pub, size_t pub_len)
{
    prov->keys = xrealloc(prov->keys, (prov->n_keys + 1) * sizeof(*prov->keys));
    struct script_desc_known_key *kk = &prov->keys[prov->n_keys++];
    memset(kk, 0, sizeof(*kk));
    memcpy(kk->pub, pub, pub_len);
    kk->pub_len = pub_len;
    size_t steps = k->is_bip32 ? k->path_len + (k->derive != DERIVE_NONE) : 0;
    size_t n = (k->has_origin ? k->origin_len : 0) + steps;
    kk->path = n ? xmalloc(n * sizeof(uint32_t)) : NULL;
    if (k->has_origin) {
        memcpy(kk->fpr, k->origin_fpr, 4);
        if (k->origin_len) {
            memcpy(kk->path, k->origin_path, k->origin_len * sizeof(uint32_t));
        }
        kk->path_len = k->origin_len;
    } else {
        uint8_t id[20];
        if (k->is_bip32) {
            hash_hash160(id, k->root.pubkey33, 33);
        } else {
            hash_hash160(id, pub, pub_len);
        }
        memcpy(kk->fpr, id, 4);
    }
    if (k->is_bip32) {
        const uint32_t *path = k->paths + (k->n_paths > 1 ? alt : 0) * k->path_len;
        for (size_t i = 0; i < k->path_len; i++) {
            kk->path[kk->path_len++] = path[i];
        }
        if (k->derive != DERIVE_NONE) {
            kk->path[kk->path_len++] = pos | (k->derive == DERIVE_HARDENED ? BIP32_HARDENED : 0);
        }
    }
}

static void script_remember(struct script_desc_provider *prov, const struct buf *script)
{
    prov->scripts = xrealloc(prov->scripts, (prov->n_scripts + 1) * sizeof(*prov->scripts));
    buf_init(&prov->scripts[prov->n_scripts]);
    buf_append(&prov->scripts[prov->n_scripts++], script->data, script->len);
}

static int node_is_range(const struct desc_node *n)
{
    for (size_t i = 0; i < n->n_keys; i++) {
        if (n->keys[i]->is_bip32 && n->keys[i]->derive != DERIVE_NONE) {
            return 1;
        }
    }
    for (size_t i = 0; i < n->n_subs; i++) {
        if (node_is_range(n->subs[i])) {
            return 1;
        }
    }
    return 0;
}

int script_descriptor_is_range(const struct script_descriptor *d)
{
    return node_is_range(d->root);
}

int script_descriptor_is_solvable(const struct script_descriptor *d)
{
    return d->root->type != N_RAW && d->root->type != N_ADDR;
}

int script_descriptor_has_private_keys(const struct script_descriptor *d)
{
    return d->has_private;
}

size_t script_descriptor_multipath_count(const struct script_descriptor *d)
{
    return d->root->n_alt;
}

/* ---- strings (Core's ToString) ---------------------------------------------------------- */

static void put_str(struct buf *out, const char *s)
{
    buf_append(out, s, strlen(s));
}

/* Core's FormatHDKeypath. */
static void put_path(struct buf *out, const uint32_t *path, size_t n, int apostrophe)
{
    char num[16];
    for (size_t i = 0; i < n; i++) {
        snprintf(num, sizeof(num), "/%u", path[i] & ~BIP32_HARDENED);
        put_str(out, num);
        if (path[i] & BIP32_HARDENED) {
            buf_put_u8(out, apostrophe ? '\'' : 'h');
        }
    }
}

static void put_key(struct buf *out, const struct desc_key *k, size_t alt,
                    const struct chain_params *p)
{
    if (k->has_origin) {
        buf_put_u8(out, '[');
        hex_append(out, k->origin_fpr, 4);
        put_path(out, k->origin_path, k->origin_len, k->apostrophe);
        buf_put_u8(out, ']');
    }
    if (!k->is_bip32) {
        if (k->xonly) {
            hex_append(out, k->pub + 1, 32);
        } else {
            hex_append(out, k->pub, k->pub_len);
        }
        return;
    }
    char *x = bip32_encode_pub(&k->root, p);
    put_str(out, x);
    free(x);
    put_path(out, k->paths + (k->n_paths > 1 ? alt : 0) * k->path_len, k->path_len, k->apostrophe);
    if (k->derive != DERIVE_NONE) {
        put_str(out, "/*");
        if (k->derive == DERIVE_HARDENED) {
            buf_put_u8(out, k->apostrophe ? '\'' : 'h');
        }
    }
}

static void put_node(struct buf *out, const struct desc_node *n, size_t alt,
                     const struct chain_params *p)
{
    put_str(out, NTYPE_NAME[n->type]);
    buf_put_u8(out, '(');
    int first = 1;
    if (n->type == N_RAW) {
        hex_append(out, n->script.data, n->script.len);
    } else if (n->type == N_ADDR) {
        char a[ADDRESS_MAX_LEN];
        CHECK_ALWAYS(address_from_script(a, sizeof(a), n->script.data, n->script.len, p) == RC_OK);
        put_str(out, a);
    } else if (n->type >= N_MULTI && n->type <= N_SORTEDMULTI_A) {
        char num[16];
        snprintf(num, sizeof(num), "%u", n->threshold);
        put_str(out, num);
        first = 0;
    }
    for (size_t i = 0; i < n->n_keys; i++) {
        if (!first) {
            buf_put_u8(out, ',');
        }
        first = 0;
        put_key(out, n->keys[i], alt, p);
    }
    if (n->type == N_TR) {
        /* Core's TRDescriptor::ToStringSubScriptHelper: braces from the leaves' depths. */
        uint8_t path[TAPROOT_CONTROL_MAX_NODE_COUNT + 1];
        size_t plen = 0;
        for (size_t i = 0; i < n->n_subs; i++) {
            buf_put_u8(out, ',');
            while ((int)plen <= n->depths[i]) {
                if (plen) {
                    buf_put_u8(out, '{');
                }
                path[plen++] = 0;
            }
            put_node(out, n->subs[i], alt, p);
            while (plen && path[plen - 1]) {
                if (plen > 1) {
                    buf_put_u8(out, '}');
                }
                plen--;
            }
            if (plen) {
                path[plen - 1] = 1;
            }
        }
    } else {
        for (size_t i = 0; i < n->n_subs; i++) {
            put_node(out, n->subs[i], alt, p);
        }
    }
    buf_put_u8(out, ')');
}

void script_descriptor_to_string(struct buf *out, const struct script_descriptor *d, size_t alt)
{
    size_t start = out->len;
    char cs[SCRIPT_DESC_CHECKSUM_SIZE];
    put_node(out, d->root, alt, d->p);
    CHECK_ALWAYS(
        script_descriptor_checksum(cs, (const char *)out->data + start, out->len - start) == RC_OK);
    buf_put_u8(out, '#');
    put_str(out, cs);
    buf_put_u8(out, 0);
    out->len--;
}

/* ---- expansion (Core's ExpandHelper, MakeScripts) --------------------------------------- */

static void put_p2pkh(struct buf *s, const uint8_t *pub, size_t len)
{
    uint8_t h[20];
    hash_hash160(h, pub, len);
    buf_put_u8(s, OP_DUP);
    buf_put_u8(s, OP_HASH160);
    script_push_data(s, h, 20);
    buf_put_u8(s, OP_EQUALVERIFY);
    buf_put_u8(s, OP_CHECKSIG);
}

static void put_p2wpkh(struct buf *s, const uint8_t *pub, size_t len)
{
    uint8_t h[20];
    hash_hash160(h, pub, len);
    buf_put_u8(s, OP_0);
    script_push_data(s, h, 20);
}

static void put_p2sh(struct buf *s, const uint8_t *script, size_t len)
{
    uint8_t h[20];
    hash_hash160(h, script, len);
    buf_put_u8(s, OP_HASH160);
    script_push_data(s, h, 20);
    buf_put_u8(s, OP_EQUAL);
}

struct pubkey {
    uint8_t b[65];
    size_t len;
};

/* CPubKey's operator<: the first byte, then the bytes (same first byte: same length). */
static int cmp_pubkey(const void *a, const void *b)
{
    const struct pubkey *x = a, *y = b;
    if (x->b[0] != y->b[0]) {
        return x->b[0] < y->b[0] ? -1 : 1;
    }
    return memcmp(x->b, y->b, x->len);
}

/* XOnlyPubKey's order: the 32 x bytes. */
static int cmp_xonly(const void *a, const void *b)
{
    const struct pubkey *x = a, *y = b;
    return memcmp(x->b + 1, y->b + 1, 32);
}

/* The taproot output key for internal key (33 bytes) and leaves at depths: Core's
 * TaprootBuilder, which combines a leaf with its sibling as soon as both are known. */
static int put_p2tr(struct buf *s, const uint8_t *internal33, struct buf *leaves, const int *depths,
                    size_t n)
{
    uint8_t(*hash)[32] = xmalloc((n ? n : 1) * 32);
    int *dep = xmalloc((n ? n : 1) * sizeof(int));
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
        script_tapleaf_hash(hash[top], TAPROOT_LEAF_TAPSCRIPT, leaves[i].data, leaves[i].len);
        dep[top++] = depths[i];
        while (top >= 2 && dep[top - 1] == dep[top - 2]) {
            script_tapbranch_hash(hash[top - 2], hash[top - 2], hash[top - 1]);
            dep[top - 2]--;
            top--;
        }
    }
    /* The parser only accepts complete trees. */
    CHECK_ALWAYS(n == 0 || (top == 1 && dep[0] == 0));
    uint8_t out32[32];
    int parity, ok = script_taproot_tweak(out32, &parity, internal33 + 1, n ? hash[0] : NULL);
    free(hash);
    free(dep);
    if (!ok) {
        return RC_INVALID;
    }
    buf_put_u8(s, OP_1);
    script_push_data(s, out32, 32);
    return RC_OK;
}

/* Appends the node's scripts to spks[*n..]. */
static int expand_node(const struct desc_node *nd, size_t alt, uint32_t pos, struct buf *spks,
                       size_t *n, struct script_desc_provider *prov)
{
    struct pubkey *keys = xcalloc(nd->n_keys ? nd->n_keys : 1, sizeof(*keys));
    struct buf *subs = xcalloc(nd->n_subs ? nd->n_subs : 1, sizeof(*subs));
    int rc = RC_OK;
    size_t first_key = prov ? prov->n_keys : 0;
    for (size_t i = 0; i < nd->n_keys && rc == RC_OK; i++) {
        rc = key_derive(nd->keys[i], alt, pos, keys[i].b, &keys[i].len);
        if (rc == RC_OK && prov) {
            key_remember(prov, nd->keys[i], alt, pos, keys[i].b, keys[i].len);
        }
    }
    for (size_t i = 0; i < nd->n_subs; i++) {
        buf_init(&subs[i]);
        size_t one = 0;
        if (rc == RC_OK) {
            rc = expand_node(nd->subs[i], alt, pos, &subs[i], &one, prov);
        }
    }
    if (rc != RC_OK) {
        goto out;
    }
    struct buf *s = &spks[*n];
    switch (nd->type) {
    case N_RAW:
    case N_ADDR:
        buf_append(s, nd->script.data, nd->script.len);
        break;
    case N_PK:
        if (nd->xonly) {
            script_push_data(s, keys[0].b + 1, 32);
        } else {
            script_push_data(s, keys[0].b, keys[0].len);
        }
        buf_put_u8(s, OP_CHECKSIG);
        break;
    case N_PKH:
        if (nd->xonly) {
            put_p2pkh(s, keys[0].b + 1, 32);
        } else {
            put_p2pkh(s, keys[0].b, keys[0].len);
        }
        break;
    case N_WPKH:
        put_p2wpkh(s, keys[0].b, keys[0].len);
        break;
    case N_COMBO:
        script_push_data(s, keys[0].b, keys[0].len);
        buf_put_u8(s, OP_CHECKSIG);
        put_p2pkh(&spks[*n + 1], keys[0].b, keys[0].len);
        if (keys[0].len == 33) {
            put_p2wpkh(&spks[*n + 2], keys[0].b, keys[0].len);
            put_p2sh(&spks[*n + 3], spks[*n + 2].data, spks[*n + 2].len);
            if (prov) {
                script_remember(prov, &spks[*n + 2]);
            }
            *n += 2;
        }
        *n += 1;
        break;
    case N_MULTI:
    case N_SORTEDMULTI:
        if (nd->type == N_SORTEDMULTI) {
            qsort(keys, nd->n_keys, sizeof(*keys), cmp_pubkey);
        }
        script_push_int(s, nd->threshold);
        for (size_t i = 0; i < nd->n_keys; i++) {
            script_push_data(s, keys[i].b, keys[i].len);
        }
        script_push_int(s, (int64_t)nd->n_keys);
        buf_put_u8(s, OP_CHECKMULTISIG);
        break;
    case N_MULTI_A:
    case N_SORTEDMULTI_A:
        if (nd->type == N_SORTEDMULTI_A) {
            qsort(keys, nd->n_keys, sizeof(*keys), cmp_xonly);
        }
        for (size_t i = 0; i < nd->n_keys; i++) {
            script_push_data(s, keys[i].b + 1, 32);
            buf_put_u8(s, i == 0 ? OP_CHECKSIG : OP_CHECKSIGADD);
        }
        script_push_int(s, nd->threshold);
        buf_put_u8(s, OP_NUMEQUAL);
        break;
    case N_SH:
        put_p2sh(s, subs[0].data, subs[0].len);
        if (prov) {
            script_remember(prov, &subs[0]);
        }
        break;
    case N_WSH: {
        if (prov) {
            script_remember(prov, &subs[0]);
        }
        uint8_t h[32];
        hash_sha256(h, subs[0].data, subs[0].len);
        buf_put_u8(s, OP_0);
        script_push_data(s, h, 32);
        break;
    }
    case N_TR:
        rc = put_p2tr(s, keys[0].b, subs, nd->depths, nd->n_subs);
        if (rc == RC_OK && prov && nd->n_subs == 0 && s->len == 34) {
            size_t t = prov->n_tr++;
            prov->tr_outputs = xrealloc(prov->tr_outputs, prov->n_tr * 32);
            prov->tr_keys = xrealloc(prov->tr_keys, prov->n_tr * sizeof(size_t));
            memcpy(prov->tr_outputs[t], s->data + 2, 32);
            prov->tr_keys[t] = first_key; /* the internal key */
        }
        break;
    case N_RAWTR:
        buf_put_u8(s, OP_1);
        script_push_data(s, keys[0].b + 1, 32);
        break;
    case N_UNUSED:
        goto out;
    }
    if (rc == RC_OK) {
        *n += 1;
    }
out:
    for (size_t i = 0; i < nd->n_subs; i++) {
        buf_clear(&subs[i]);
    }
    wipe(keys, (nd->n_keys ? nd->n_keys : 1) * sizeof(*keys));
    free(keys);
    free(subs);
    return rc;
}

int script_descriptor_expand(const struct script_descriptor *d, size_t alt, uint32_t pos,
                             struct buf spks[SCRIPT_DESC_MAX_SCRIPTS], size_t *n_spks)
{
    return script_descriptor_expand_with(d, alt, pos, spks, n_spks, NULL);
}

int script_descriptor_expand_with(const struct script_descriptor *d, size_t alt, uint32_t pos,
                                  struct buf spks[SCRIPT_DESC_MAX_SCRIPTS], size_t *n_spks,
                                  struct script_desc_provider *prov)
{
    CHECK_ALWAYS(alt < d->root->n_alt && pos < BIP32_HARDENED);
    *n_spks = 0;
    struct buf tmp[SCRIPT_DESC_MAX_SCRIPTS];
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&tmp[i]);
    }
    size_t n = 0;
    int rc = expand_node(d->root, alt, pos, tmp, &n, prov);
    if (rc == RC_OK) {
        for (size_t i = 0; i < n; i++) {
            buf_append(&spks[i], tmp[i].data, tmp[i].len);
        }
        *n_spks = n;
    }
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&tmp[i]);
    }
    return rc;
}
