/* Parsing descriptor strings and expanding them into scriptPubKeys, as Bitcoin Core's
 * script/descriptor.cpp (Parse, ParseScript, ParsePubkey, Expand, ToString) does, with its
 * error messages. See descriptor.h for what is supported.
 *
 * A parsed descriptor is a tree of nodes (one per function: sh, wsh, multi, ...) whose leaves
 * hold keys. A multipath step (<0;1;...>) in a key makes the string stand for several
 * descriptors; rather than cloning the tree as Core does, each key keeps one path per
 * alternative (or a single path shared by all), and string output and expansion take the
 * alternative's index. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <secp256k1.h>

#include "consensus/address.h"
#include "crypto/hash.h"
#include "script/bip32.h"
#include "script/descriptor.h"
#include "script/interpreter.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Core's MAX_PUBKEYS_PER_MULTI_A. */
#define MAX_PUBKEYS_PER_MULTI_A 999

/* Core's ParseScriptContext. */
enum pctx { CTX_TOP, CTX_P2SH, CTX_P2WPKH, CTX_P2WSH, CTX_P2TR };

enum derive { DERIVE_NONE, DERIVE_UNHARDENED, DERIVE_HARDENED };

struct key {
    int has_origin;
    uint8_t origin_fpr[4];
    uint32_t *origin_path;
    size_t origin_len;
    int apostrophe; /* hardened steps are written with ' rather than h */

    int is_bip32;
    /* A constant key: pub (33 or 65 bytes); xonly: written as 32-byte hex (from an x-only key
     * or a WIF inside tr()). */
    uint8_t pub[65];
    size_t pub_len;
    int xonly;
    int has_secret; /* a WIF (constant key) or an xprv (BIP32 root) */
    uint8_t secret[32];
    /* A BIP32 key: the root, then n_paths paths of path_len steps (n_paths > 1 only with a
     * multipath step), then the ranged step. */
    struct bip32_key root;
    uint32_t *paths;
    size_t path_len, n_paths;
    enum derive derive;
};

enum ntype {
    N_RAW,
    N_ADDR,
    N_PK,
    N_PKH,
    N_WPKH,
    N_COMBO,
    N_MULTI,
    N_SORTEDMULTI,
    N_MULTI_A,
    N_SORTEDMULTI_A,
    N_SH,
    N_WSH,
    N_TR,
    N_RAWTR,
    N_UNUSED,
};

static const char *const NTYPE_NAME[] = {
    "raw",     "addr",          "pk", "pkh", "wpkh", "combo", "multi",  "sortedmulti",
    "multi_a", "sortedmulti_a", "sh", "wsh", "tr",   "rawtr", "unused",
};

struct node {
    enum ntype type;
    int xonly; /* pk() / pkh() as a tapscript leaf: the key's 32-byte x-only form */
    uint32_t threshold;
    struct key **keys;
    size_t n_keys;
    struct node **subs;
    size_t n_subs;
    int *depths;       /* tr: the depth of each leaf in subs */
    struct buf script; /* raw() and addr(): the scriptPubKey */
    size_t n_alt;      /* multipath alternatives below this node: 1 or the count */
};

struct script_descriptor {
    struct node *root;
    const struct chain_params *p;
    int has_private;
};

/* ---- spans (Core's script/parsing.cpp) ------------------------------------------------ */

struct span {
    const char *p;
    size_t n;
};

/* Const: if sp starts with str, consumes it (when skip) and returns 1. */
static int sp_const(const char *str, struct span *sp, int skip)
{
    size_t n = strlen(str);
    if (sp->n >= n && memcmp(sp->p, str, n) == 0) {
        if (skip) {
            sp->p += n;
            sp->n -= n;
        }
        return 1;
    }
    return 0;
}

/* Func: if sp is "name(...)", makes sp the inside and returns 1. */
static int sp_func(const char *name, struct span *sp)
{
    size_t n = strlen(name);
    if (sp->n >= n + 2 && sp->p[n] == '(' && sp->p[sp->n - 1] == ')' &&
        memcmp(sp->p, name, n) == 0) {
        sp->p += n + 1;
        sp->n -= n + 2;
        return 1;
    }
    return 0;
}

/* Expr: takes the expression at the start of sp, up to a ',' ')' or '}' at nesting level 0. */
static struct span sp_expr(struct span *sp)
{
    int level = 0;
    size_t i = 0;
    for (; i < sp->n; i++) {
        char c = sp->p[i];
        if (c == '(' || c == '{') {
            level++;
        } else if (level && (c == ')' || c == '}')) {
            level--;
        } else if (level == 0 && (c == ')' || c == '}' || c == ',')) {
            break;
        }
    }
    struct span r = {sp->p, i};
    sp->p += i;
    sp->n -= i;
    return r;
}

/* Split: the pieces of sp between every sep (empty pieces kept). Caller frees *out. */
static size_t sp_split(struct span **out, struct span sp, char sep)
{
    size_t n = 1, k = 0;
    for (size_t i = 0; i < sp.n; i++) {
        n += sp.p[i] == sep;
    }
    struct span *v = xmalloc(n * sizeof(*v));
    size_t start = 0;
    for (size_t i = 0; i <= sp.n; i++) {
        if (i == sp.n || sp.p[i] == sep) {
            v[k].p = sp.p + start;
            v[k].n = i - start;
            k++;
            start = i + 1;
        }
    }
    *out = v;
    return n;
}

static int sp_eq(struct span sp, const char *s)
{
    return sp.n == strlen(s) && memcmp(sp.p, s, sp.n) == 0;
}

/* Core's IsHex: non-empty, even length, hex digits only. */
static int sp_is_hex(struct span sp)
{
    if (sp.n == 0 || sp.n % 2) {
        return 0;
    }
    for (size_t i = 0; i < sp.n; i++) {
        char c = sp.p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
            return 0;
        }
    }
    return 1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    return (c | 0x20) - 'a' + 10;
}

/* Decodes a span that passed sp_is_hex. */
static void sp_hex_decode(struct buf *out, struct span sp)
{
    for (size_t i = 0; i + 1 < sp.n; i += 2) {
        buf_put_u8(out, (uint8_t)(hexval(sp.p[i]) << 4 | hexval(sp.p[i + 1])));
    }
}

/* Core's ToIntegral<uint32_t>: decimal digits only, no sign, no space, in range. */
static int sp_to_u32(struct span sp, uint32_t *out)
{
    uint64_t v = 0;
    if (sp.n == 0) {
        return 0;
    }
    for (size_t i = 0; i < sp.n; i++) {
        if (sp.p[i] < '0' || sp.p[i] > '9') {
            return 0;
        }
        v = v * 10 + (uint64_t)(sp.p[i] - '0');
        if (v > UINT32_MAX) {
            return 0;
        }
    }
    *out = (uint32_t)v;
    return 1;
}

/* ---- the parser's state --------------------------------------------------------------- */

struct parser {
    const struct chain_params *p;
    char *err; /* owned; NULL until the first failure (Core's empty error string) */
    int has_private;
};

static void set_err(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(struct parser *ps, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    CHECK_ALWAYS(n >= 0);
    char *e = xmalloc((size_t)n + 1);
    vsnprintf(e, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    free(ps->err);
    ps->err = e;
}

/* Prefixes the current error with what (Core's strprintf("pk(): %s", error)). */
static void prefix_err(struct parser *ps, const char *what)
{
    char *old = ps->err;
    ps->err = NULL;
    set_err(ps, "%s%s", what, old ? old : "");
    free(old);
}

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--) {
        *v++ = 0;
    }
}

static void key_free(struct key *k)
{
    if (!k) {
        return;
    }
    free(k->origin_path);
    free(k->paths);
    wipe(k, sizeof(*k));
    free(k);
}

static void node_free(struct node *n)
{
    if (!n) {
        return;
    }
    for (size_t i = 0; i < n->n_keys; i++) {
        key_free(n->keys[i]);
    }
    for (size_t i = 0; i < n->n_subs; i++) {
        node_free(n->subs[i]);
    }
    free(n->keys);
    free(n->subs);
    free(n->depths);
    buf_clear(&n->script);
    free(n);
}

static struct node *node_new(enum ntype t)
{
    struct node *n = xcalloc(1, sizeof(*n));
    n->type = t;
    n->n_alt = 1;
    buf_init(&n->script);
    return n;
}

static void node_add_key(struct node *n, struct key *k)
{
    n->keys = xrealloc(n->keys, (n->n_keys + 1) * sizeof(*n->keys));
    n->keys[n->n_keys++] = k;
}

static void node_add_sub(struct node *n, struct node *sub, int depth)
{
    n->subs = xrealloc(n->subs, (n->n_subs + 1) * sizeof(*n->subs));
    n->depths = xrealloc(n->depths, (n->n_subs + 1) * sizeof(*n->depths));
    n->subs[n->n_subs] = sub;
    n->depths[n->n_subs] = depth;
    n->n_subs++;
}

/* ---- keys (Core's ParsePubkey, ParsePubkeyInner, ParseKeyPath) ------------------------- */

/* ParseKeyPathNum: one step, "123", "123h" or "123'". 0 after set_err on failure. */
static int parse_path_num(struct parser *ps, struct span elem, int *apostrophe, uint32_t *out)
{
    int hardened = 0;
    if (elem.n > 0 && (elem.p[elem.n - 1] == '\'' || elem.p[elem.n - 1] == 'h')) {
        *apostrophe = elem.p[elem.n - 1] == '\'';
        hardened = 1;
        elem.n--;
    }
    uint32_t v;
    if (!sp_to_u32(elem, &v)) {
        set_err(ps, "Key path value '%.*s' is not a valid uint32", (int)elem.n, elem.p);
        return 0;
    }
    if (v > 0x7fffffffu) {
        set_err(ps, "Key path value %u is out of range", v);
        return 0;
    }
    *out = v | (hardened ? BIP32_HARDENED : 0);
    return 1;
}

/* ParseKeyPath over split[1..n): fills *paths with *n_paths paths of *len steps each (more
 * than one path only with a multipath step, allowed when allow_multipath). Caller frees
 * *paths. 0 after set_err on failure. */
static int parse_key_path(struct parser *ps, const struct span *split, size_t n, int *apostrophe,
                          int allow_multipath, uint32_t **paths, size_t *n_paths, size_t *len)
{
    size_t steps = n - 1, multi_at = SIZE_MAX, n_alt = 1;
    uint32_t *path = xcalloc(steps ? steps : 1, sizeof(uint32_t));
    uint32_t *alts = NULL;
    int ok = 0;

    for (size_t i = 1; i < n; i++) {
        struct span e = split[i];
        if (e.n > 0 && e.p[0] == '<' && e.p[e.n - 1] == '>') {
            if (!allow_multipath) {
                set_err(ps,
                        "Key path value '%.*s' specifies multipath in a section where "
                        "multipath is not allowed",
                        (int)e.n, e.p);
                goto out;
            }
            if (multi_at != SIZE_MAX) {
                set_err(ps, "Multiple multipath key path specifiers found");
                goto out;
            }
            struct span inner = {e.p + 1, e.n - 2}, *nums;
            size_t k = sp_split(&nums, inner, ';');
            if (k < 2) {
                free(nums);
                set_err(ps, "Multipath key path specifiers must have at least two items");
                goto out;
            }
            alts = xmalloc(k * sizeof(*alts));
            for (size_t j = 0; j < k; j++) {
                if (!parse_path_num(ps, nums[j], apostrophe, &alts[j])) {
                    free(nums);
                    goto out;
                }
                for (size_t m = 0; m < j; m++) {
                    if (alts[m] == alts[j]) {
                        set_err(ps, "Duplicated key path value %u in multipath specifier", alts[j]);
                        free(nums);
                        goto out;
                    }
                }
            }
            free(nums);
            multi_at = i - 1;
            n_alt = k;
        } else if (!parse_path_num(ps, e, apostrophe, &path[i - 1])) {
            goto out;
        }
    }
    *paths = xcalloc(n_alt * (steps ? steps : 1), sizeof(uint32_t));
    for (size_t a = 0; a < n_alt; a++) {
        memcpy(*paths + a * steps, path, steps * sizeof(uint32_t));
        if (multi_at != SIZE_MAX) {
            (*paths)[a * steps + multi_at] = alts[a];
        }
    }
    *n_paths = n_alt;
    *len = steps;
    ok = 1;
out:
    free(path);
    free(alts);
    return ok;
}

static int is_space(char c)
{
    return c == ' ' || c == '\f' || c == '\n' || c == '\r' || c == '\t' || c == '\v';
}

/* CPubKey's length rule: the header byte gives the size (02/03: 33; 04/06/07: 65). */
static size_t pubkey_len_for_header(uint8_t h)
{
    return (h == 2 || h == 3) ? 33 : (h == 4 || h == 6 || h == 7) ? 65 : 0;
}

/* ParsePubkeyInner: a key without its origin. NULL after set_err on failure. */
static struct key *parse_key_inner(struct parser *ps, struct span sp, enum pctx ctx,
                                   int *apostrophe)
{
    int permit_uncompressed = ctx == CTX_TOP || ctx == CTX_P2SH;
    struct span *split;
    size_t n = sp_split(&split, sp, '/');
    struct span s = split[0];
    struct key *k = xcalloc(1, sizeof(*k));
    char *str = xmalloc(s.n + 1);
    memcpy(str, s.p, s.n);
    str[s.n] = 0;

    if (s.n == 0) {
        set_err(ps, "No key provided");
        goto fail;
    }
    if (is_space(str[0]) || is_space(str[s.n - 1])) {
        set_err(ps, "Key '%s' is invalid due to whitespace", str);
        goto fail;
    }
    if (n == 1) {
        if (sp_is_hex(s)) {
            struct buf data;
            buf_init(&data);
            sp_hex_decode(&data, s);
            size_t want = data.len ? pubkey_len_for_header(data.data[0]) : 0;
            if (want && want == data.len && data.data[0] >= 6) {
                buf_clear(&data);
                set_err(ps, "Hybrid public keys are not allowed");
                goto fail;
            }
            if (script_pubkey_fully_valid(data.data, data.len)) {
                if (!permit_uncompressed && data.len != 33) {
                    buf_clear(&data);
                    set_err(ps, "Uncompressed keys are not allowed");
                    goto fail;
                }
                memcpy(k->pub, data.data, data.len);
                k->pub_len = data.len;
                buf_clear(&data);
                goto done;
            }
            if (data.len == 32 && ctx == CTX_P2TR) {
                k->pub[0] = 2;
                memcpy(k->pub + 1, data.data, 32);
                if (script_pubkey_fully_valid(k->pub, 33)) {
                    k->pub_len = 33;
                    k->xonly = 1;
                    buf_clear(&data);
                    goto done;
                }
            }
            buf_clear(&data);
            set_err(ps, "Pubkey '%s' is invalid", str);
            goto fail;
        }
        int compressed = 0;
        if (address_decode_wif(k->secret, &compressed, str, ps->p) == RC_OK) {
            if (!permit_uncompressed && !compressed) {
                set_err(ps, "Uncompressed keys are not allowed");
                goto fail;
            }
            CHECK_ALWAYS(script_pubkey_from_secret(k->pub, &k->pub_len, k->secret, compressed) ==
                         RC_OK);
            k->has_secret = 1;
            k->xonly = ctx == CTX_P2TR;
            ps->has_private = 1;
            goto done;
        }
    }
    if (bip32_decode(&k->root, str, ps->p) != RC_OK) {
        set_err(ps, "key '%s' is not valid", str);
        goto fail;
    }
    k->is_bip32 = 1;
    /* ParseDeriveType: a last step of * or *h / *' makes the key ranged. */
    if (sp_eq(split[n - 1], "*")) {
        k->derive = DERIVE_UNHARDENED;
        n--;
    } else if (sp_eq(split[n - 1], "*'") || sp_eq(split[n - 1], "*h")) {
        *apostrophe = sp_eq(split[n - 1], "*'");
        k->derive = DERIVE_HARDENED;
        n--;
    }
    if (!parse_key_path(ps, split, n, apostrophe, 1, &k->paths, &k->n_paths, &k->path_len)) {
        goto fail;
    }
    if (k->root.has_secret) {
        ps->has_private = 1;
    }
    k->has_secret = k->root.has_secret;
done:
    free(split);
    free(str);
    return k;
fail:
    free(split);
    free(str);
    key_free(k);
    return NULL;
}

/* ParsePubkey: a key with an optional [fingerprint/path] origin. */
static struct key *parse_key(struct parser *ps, struct span sp, enum pctx ctx)
{
    if (sp_const("musig(", &sp, 0)) {
        if (ctx != CTX_P2TR) {
            set_err(ps, "musig() is only allowed in tr() and rawtr()");
        } else {
            set_err(ps, "musig() is not supported");
        }
        return NULL;
    }
    struct span *osplit;
    size_t on = sp_split(&osplit, sp, ']');
    struct key *k = NULL;
    int apostrophe = 0;
    if (on > 2) {
        set_err(ps, "Multiple ']' characters found for a single pubkey");
        goto out;
    }
    if (on == 1) {
        k = parse_key_inner(ps, osplit[0], ctx, &apostrophe);
        if (k) {
            k->apostrophe = apostrophe;
        }
        goto out;
    }
    if (osplit[0].n == 0 || osplit[0].p[0] != '[') {
        set_err(ps, "Key origin start '[ character expected but not found, got '%c' instead",
                osplit[0].n == 0 ? ']' : osplit[0].p[0]);
        goto out;
    }
    struct span inside = {osplit[0].p + 1, osplit[0].n - 1}, *ssplit;
    size_t sn = sp_split(&ssplit, inside, '/');
    if (ssplit[0].n != 8) {
        set_err(ps, "Fingerprint is not 4 bytes (%zu characters instead of 8 characters)",
                ssplit[0].n);
        free(ssplit);
        goto out;
    }
    if (!sp_is_hex(ssplit[0])) {
        set_err(ps, "Fingerprint '%.*s' is not hex", (int)ssplit[0].n, ssplit[0].p);
        free(ssplit);
        goto out;
    }
    uint8_t fpr[4];
    for (int i = 0; i < 4; i++) {
        fpr[i] = (uint8_t)(hexval(ssplit[0].p[2 * i]) << 4 | hexval(ssplit[0].p[2 * i + 1]));
    }
    uint32_t *opath = NULL;
    size_t on_paths = 0, olen = 0;
    if (!parse_key_path(ps, ssplit, sn, &apostrophe, 0, &opath, &on_paths, &olen)) {
        free(ssplit);
        goto out;
    }
    free(ssplit);
    k = parse_key_inner(ps, osplit[1], ctx, &apostrophe);
    if (!k) {
        free(opath);
        goto out;
    }
    k->has_origin = 1;
    memcpy(k->origin_fpr, fpr, 4);
    k->origin_path = opath;
    k->origin_len = olen;
    k->apostrophe = apostrophe;
out:
    free(osplit);
    return k;
}

static size_t key_n_alt(const struct key *k)
{
    return k->is_bip32 ? k->n_paths : 1;
}

/* The key's public key at (alt, pos): 0 with out/out_len, or RC_INVALID when a hardened step
 * needs the private key. */
static int key_derive(const struct key *k, size_t alt, uint32_t pos, uint8_t out[65],
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

/* ---- scripts (Core's ParseScript) ------------------------------------------------------ */

static struct node *parse_script(struct parser *ps, struct span *sp, enum pctx ctx);

/* A function of one key: pk, pkh, wpkh, combo, rawtr, unused. */
static struct node *one_key(struct parser *ps, enum ntype t, struct span expr, enum pctx kctx,
                            const char *prefix)
{
    struct key *k = parse_key(ps, expr, kctx);
    if (!k) {
        if (prefix) {
            prefix_err(ps, prefix);
        }
        return NULL;
    }
    struct node *n = node_new(t);
    node_add_key(n, k);
    n->n_alt = key_n_alt(k);
    return n;
}

static struct node *parse_multi(struct parser *ps, struct span expr, enum pctx ctx, enum ntype t)
{
    int is_a = t == N_MULTI_A || t == N_SORTEDMULTI_A;
    struct span th = sp_expr(&expr);
    uint32_t thres;
    if (!sp_to_u32(th, &thres)) {
        set_err(ps, "Multi threshold '%.*s' is not valid", (int)th.n, th.p);
        return NULL;
    }
    struct node *n = node_new(t);
    n->threshold = thres;
    size_t script_size = 0;
    while (expr.n) {
        if (!sp_const(",", &expr, 1)) {
            set_err(ps, "Multi: expected ',', got '%c'", expr.p[0]);
            goto fail;
        }
        struct span arg = sp_expr(&expr);
        struct key *k = parse_key(ps, arg, ctx);
        if (!k) {
            prefix_err(ps, "Multi: ");
            goto fail;
        }
        script_size += (k->is_bip32 ? 33 : k->pub_len) + 1;
        node_add_key(n, k);
    }
    size_t max_keys = is_a ? MAX_PUBKEYS_PER_MULTI_A : MAX_PUBKEYS_PER_MULTISIG;
    if (n->n_keys == 0 || n->n_keys > max_keys) {
        set_err(ps, "Cannot have %zu keys in %s; must have between 1 and %zu keys, inclusive",
                n->n_keys, is_a ? "multi_a" : "multisig", max_keys);
        goto fail;
    }
    if (thres < 1) {
        set_err(ps, "Multisig threshold cannot be %u, must be at least 1", thres);
        goto fail;
    }
    if (thres > n->n_keys) {
        set_err(ps,
                "Multisig threshold cannot be larger than the number of keys; threshold is %u "
                "but only %zu keys specified",
                thres, n->n_keys);
        goto fail;
    }
    if (ctx == CTX_TOP && n->n_keys > 3) {
        set_err(ps, "Cannot have %zu pubkeys in bare multisig; only at most 3 pubkeys", n->n_keys);
        goto fail;
    }
    if (ctx == CTX_P2SH && script_size + 3 > MAX_SCRIPT_ELEMENT_SIZE) {
        set_err(ps, "P2SH script is too large, %zu bytes is larger than %d bytes", script_size + 3,
                MAX_SCRIPT_ELEMENT_SIZE);
        goto fail;
    }
    for (size_t i = 0; i < n->n_keys; i++) {
        size_t a = key_n_alt(n->keys[i]);
        if (a > 1 && n->n_alt > 1 && a != n->n_alt) {
            set_err(ps, "multi(): Multipath derivation paths have mismatched lengths");
            goto fail;
        }
        if (a > 1) {
            n->n_alt = a;
        }
    }
    return n;
fail:
    node_free(n);
    return NULL;
}

static struct node *parse_tr(struct parser *ps, struct span expr)
{
    struct span arg = sp_expr(&expr);
    struct key *ik = parse_key(ps, arg, CTX_P2TR);
    if (!ik) {
        prefix_err(ps, "tr(): ");
        return NULL;
    }
    struct node *n = node_new(N_TR);
    node_add_key(n, ik);
    size_t max_alt = key_n_alt(ik);
    /* The path from the root to the leaf being read: 0 = in a left branch, 1 = right. */
    uint8_t branches[TAPROOT_CONTROL_MAX_NODE_COUNT];
    size_t depth = 0;
    if (expr.n) {
        if (!sp_const(",", &expr, 1)) {
            set_err(ps, "tr: expected ',', got '%c'", expr.p[0]);
            goto fail;
        }
        do {
            while (sp_const("{", &expr, 1)) {
                if (depth == TAPROOT_CONTROL_MAX_NODE_COUNT) {
                    set_err(ps, "tr() supports at most %i nesting levels",
                            TAPROOT_CONTROL_MAX_NODE_COUNT);
                    goto fail;
                }
                branches[depth++] = 0;
            }
            struct span sarg = sp_expr(&expr);
            struct node *sub = parse_script(ps, &sarg, CTX_P2TR);
            if (!sub) {
                goto fail;
            }
            node_add_sub(n, sub, (int)depth);
            while (depth && branches[depth - 1]) {
                if (!sp_const("}", &expr, 1)) {
                    set_err(ps, "tr(): expected '}' after script expression");
                    goto fail;
                }
                depth--;
            }
            if (depth && !branches[depth - 1]) {
                if (!sp_const(",", &expr, 1)) {
                    set_err(ps, "tr(): expected ',' after script expression");
                    goto fail;
                }
                branches[depth - 1] = 1;
            }
        } while (depth);
        if (expr.n) {
            set_err(ps, "tr(): expected ')' after script expression");
            goto fail;
        }
    }
    /* Every multipath part has the same count as the largest (the internal key's counts):
     * the leaves are checked first, then the internal key. */
    for (size_t i = 0; i < n->n_subs; i++) {
        if (n->subs[i]->n_alt > max_alt) {
            max_alt = n->subs[i]->n_alt;
        }
    }
    for (size_t i = 0; i < n->n_subs; i++) {
        if (n->subs[i]->n_alt > 1 && n->subs[i]->n_alt != max_alt) {
            set_err(ps, "tr(): Multipath subscripts have mismatched lengths");
            goto fail;
        }
    }
    if (key_n_alt(ik) > 1 && key_n_alt(ik) != max_alt) {
        set_err(ps, "tr(): Multipath internal key mismatches multipath subscripts lengths");
        goto fail;
    }
    n->n_alt = max_alt;
    return n;
fail:
    node_free(n);
    return NULL;
}

/* sh(SCRIPT) or wsh(SCRIPT): the inner script must use all of expr (Core leaves the error
 * message as it was when text is left over). */
static struct node *wrap_script(struct parser *ps, enum ntype t, struct span expr, enum pctx ictx)
{
    struct node *sub = parse_script(ps, &expr, ictx);
    if (!sub || expr.n) {
        node_free(sub);
        return NULL;
    }
    struct node *n = node_new(t);
    node_add_sub(n, sub, 0);
    n->n_alt = sub->n_alt;
    return n;
}

/* Core's ParseScript: the expression at the start of *sp (consumed) in context ctx. */
static struct node *parse_script(struct parser *ps, struct span *sp, enum pctx ctx)
{
    struct span expr = sp_expr(sp);
    int top = ctx == CTX_TOP;

    if (sp_func("pk", &expr)) {
        struct node *n = one_key(ps, N_PK, expr, ctx, "pk(): ");
        if (n) {
            n->xonly = ctx == CTX_P2TR;
        }
        return n;
    }
    if ((top || ctx == CTX_P2SH || ctx == CTX_P2WSH) && sp_func("pkh", &expr)) {
        return one_key(ps, N_PKH, expr, ctx, "pkh(): ");
    }
    /* pkh() inside tr() is miniscript in Core (its key hash is of the x-only key); it is the
     * one miniscript fragment supported here. */
    if (ctx == CTX_P2TR && sp_func("pkh", &expr)) {
        struct node *n = one_key(ps, N_PKH, expr, ctx, NULL);
        if (n) {
            n->xonly = 1;
        }
        return n;
    }
    if (top && sp_func("combo", &expr)) {
        return one_key(ps, N_COMBO, expr, ctx, "combo(): ");
    } else if (sp_func("combo", &expr)) {
        set_err(ps, "Can only have combo() at top level");
        return NULL;
    }
    enum ntype mt = N_RAW; /* N_RAW: not a multi */
    if (sp_func("multi", &expr)) {
        mt = N_MULTI;
    } else if (sp_func("sortedmulti", &expr)) {
        mt = N_SORTEDMULTI;
    } else if (sp_func("multi_a", &expr)) {
        mt = N_MULTI_A;
    } else if (sp_func("sortedmulti_a", &expr)) {
        mt = N_SORTEDMULTI_A;
    }
    if (mt == N_MULTI || mt == N_SORTEDMULTI) {
        if (top || ctx == CTX_P2SH || ctx == CTX_P2WSH) {
            return parse_multi(ps, expr, ctx, mt);
        }
        set_err(ps, "Can only have multi/sortedmulti at top level, in sh(), or in wsh()");
        return NULL;
    }
    if (mt == N_MULTI_A || mt == N_SORTEDMULTI_A) {
        if (ctx == CTX_P2TR) {
            return parse_multi(ps, expr, ctx, mt);
        }
        set_err(ps, "Can only have multi_a/sortedmulti_a inside tr()");
        return NULL;
    }
    if ((top || ctx == CTX_P2SH) && sp_func("wpkh", &expr)) {
        return one_key(ps, N_WPKH, expr, CTX_P2WPKH, "wpkh(): ");
    } else if (sp_func("wpkh", &expr)) {
        set_err(ps, "Can only have wpkh() at top level or inside sh()");
        return NULL;
    }
    if (top && sp_func("sh", &expr)) {
        return wrap_script(ps, N_SH, expr, CTX_P2SH);
    } else if (sp_func("sh", &expr)) {
        set_err(ps, "Can only have sh() at top level");
        return NULL;
    }
    if ((top || ctx == CTX_P2SH) && sp_func("wsh", &expr)) {
        return wrap_script(ps, N_WSH, expr, CTX_P2WSH);
    } else if (sp_func("wsh", &expr)) {
        set_err(ps, "Can only have wsh() at top level or inside sh()");
        return NULL;
    }
    if (top && sp_func("addr", &expr)) {
        struct node *n = node_new(N_ADDR);
        char *a = xmalloc(expr.n + 1);
        memcpy(a, expr.p, expr.n);
        a[expr.n] = 0;
        int rc = address_to_script(&n->script, a, ps->p);
        free(a);
        if (rc != RC_OK) {
            set_err(ps, "Address is not valid");
            node_free(n);
            return NULL;
        }
        return n;
    } else if (sp_func("addr", &expr)) {
        set_err(ps, "Can only have addr() at top level");
        return NULL;
    }
    if (top && sp_func("tr", &expr)) {
        return parse_tr(ps, expr);
    } else if (sp_func("tr", &expr)) {
        set_err(ps, "Can only have tr at top level");
        return NULL;
    }
    if (top && sp_func("rawtr", &expr)) {
        struct span arg = sp_expr(&expr);
        if (expr.n) {
            set_err(ps, "rawtr(): only one key expected.");
            return NULL;
        }
        return one_key(ps, N_RAWTR, arg, CTX_P2TR, "rawtr(): ");
    } else if (sp_func("rawtr", &expr)) {
        set_err(ps, "Can only have rawtr at top level");
        return NULL;
    }
    if (top && sp_func("unused", &expr)) {
        struct span arg = sp_expr(&expr);
        if (expr.n) {
            set_err(ps, "unused(): only one key expected");
            return NULL;
        }
        struct node *n = one_key(ps, N_UNUSED, arg, ctx, NULL);
        if (n && n->keys[0]->is_bip32 && n->keys[0]->derive != DERIVE_NONE) {
            set_err(ps, "unused(): key cannot be ranged");
            node_free(n);
            return NULL;
        }
        return n;
    } else if (sp_func("unused", &expr)) {
        set_err(ps, "Can only have unused at top level");
        return NULL;
    }
    if (top && sp_func("raw", &expr)) {
        if (!sp_is_hex(expr)) {
            set_err(ps, "Raw script is not hex");
            return NULL;
        }
        struct node *n = node_new(N_RAW);
        sp_hex_decode(&n->script, expr);
        return n;
    } else if (sp_func("raw", &expr)) {
        set_err(ps, "Can only have raw() at top level");
        return NULL;
    }
    /* Core tries miniscript here (not supported, see descriptor.h). */
    if (ctx == CTX_P2SH) {
        set_err(ps, "A function is needed within P2SH");
    } else if (ctx == CTX_P2WSH) {
        set_err(ps, "A function is needed within P2WSH");
    } else {
        set_err(ps, "'%.*s' is not a valid descriptor function", (int)expr.n, expr.p);
    }
    return NULL;
}

/* ---- checksum and the entry point (Core's CheckChecksum, Parse) ----------------------- */

int script_descriptor_parse(struct script_descriptor **out, const char *desc, int require_checksum,
                            const struct chain_params *p, char **err)
{
    struct parser ps;
    memset(&ps, 0, sizeof(ps));
    ps.p = p;
    struct span all = {desc, strlen(desc)}, *parts;
    size_t np = sp_split(&parts, all, '#');
    struct span sp = parts[0];
    struct node *root = NULL;
    char cs[SCRIPT_DESC_CHECKSUM_SIZE];

    *out = NULL;
    if (np > 2) {
        set_err(&ps, "Multiple '#' symbols");
    } else if (np == 1 && require_checksum) {
        set_err(&ps, "Missing checksum");
    } else if (np == 2 && parts[1].n != 8) {
        set_err(&ps, "Expected 8 character checksum, not %zu characters", parts[1].n);
    } else if (script_descriptor_checksum(cs, sp.p, sp.n) != RC_OK) {
        set_err(&ps, "Invalid characters in payload");
    } else if (np == 2 && memcmp(cs, parts[1].p, 8) != 0) {
        set_err(&ps, "Provided checksum '%.8s' does not match computed checksum '%s'", parts[1].p,
                cs);
    } else {
        root = parse_script(&ps, &sp, CTX_TOP);
        if (root && sp.n) {
            /* Text after the expression: Core fails with whatever the message was (""). */
            node_free(root);
            root = NULL;
        }
    }
    free(parts);
    if (!root) {
        if (err) {
            *err = ps.err ? ps.err : xstrdup("");
        } else {
            free(ps.err);
        }
        return RC_INVALID;
    }
    free(ps.err);
    struct script_descriptor *d = xcalloc(1, sizeof(*d));
    d->root = root;
    d->p = p;
    d->has_private = ps.has_private;
    *out = d;
    return RC_OK;
}

void script_descriptor_free(struct script_descriptor *d)
{
    if (!d) {
        return;
    }
    node_free(d->root);
    free(d);
}

static int node_is_range(const struct node *n)
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

static void put_hex(struct buf *out, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        buf_put_u8(out, (uint8_t)digits[p[i] >> 4]);
        buf_put_u8(out, (uint8_t)digits[p[i] & 15]);
    }
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

static void put_key(struct buf *out, const struct key *k, size_t alt, const struct chain_params *p)
{
    if (k->has_origin) {
        buf_put_u8(out, '[');
        put_hex(out, k->origin_fpr, 4);
        put_path(out, k->origin_path, k->origin_len, k->apostrophe);
        buf_put_u8(out, ']');
    }
    if (!k->is_bip32) {
        if (k->xonly) {
            put_hex(out, k->pub + 1, 32);
        } else {
            put_hex(out, k->pub, k->pub_len);
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

static void put_node(struct buf *out, const struct node *n, size_t alt,
                     const struct chain_params *p)
{
    put_str(out, NTYPE_NAME[n->type]);
    buf_put_u8(out, '(');
    int first = 1;
    if (n->type == N_RAW) {
        put_hex(out, n->script.data, n->script.len);
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
static int expand_node(const struct node *nd, size_t alt, uint32_t pos, struct buf *spks, size_t *n)
{
    struct pubkey *keys = xcalloc(nd->n_keys ? nd->n_keys : 1, sizeof(*keys));
    struct buf *subs = xcalloc(nd->n_subs ? nd->n_subs : 1, sizeof(*subs));
    int rc = RC_OK;
    for (size_t i = 0; i < nd->n_keys && rc == RC_OK; i++) {
        rc = key_derive(nd->keys[i], alt, pos, keys[i].b, &keys[i].len);
    }
    for (size_t i = 0; i < nd->n_subs; i++) {
        buf_init(&subs[i]);
        size_t one = 0;
        if (rc == RC_OK) {
            rc = expand_node(nd->subs[i], alt, pos, &subs[i], &one);
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
        break;
    case N_WSH: {
        uint8_t h[32];
        hash_sha256(h, subs[0].data, subs[0].len);
        buf_put_u8(s, OP_0);
        script_push_data(s, h, 32);
        break;
    }
    case N_TR:
        rc = put_p2tr(s, keys[0].b, subs, nd->depths, nd->n_subs);
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
    CHECK_ALWAYS(alt < d->root->n_alt && pos < BIP32_HARDENED);
    *n_spks = 0;
    struct buf tmp[SCRIPT_DESC_MAX_SCRIPTS];
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&tmp[i]);
    }
    size_t n = 0;
    int rc = expand_node(d->root, alt, pos, tmp, &n);
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
