/* Parsing descriptor strings, as Bitcoin Core's script/descriptor.cpp (Parse, ParseScript,
 * ParsePubkey) does, with its error messages. See descriptor.h for what is supported; the
 * tree it builds is descriptor_impl.h, printed and expanded by descriptor_expand.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/address.h"
#include "sign/bip32.h"
#include "sign/descriptor.h"
#include "sign/descriptor_impl.h"
#include "script/script.h"
#include "script/sigcheck.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Core's ParseScriptContext. */
enum pctx { CTX_TOP, CTX_P2SH, CTX_P2WPKH, CTX_P2WSH, CTX_P2TR };

/* Core's MAX_PUBKEYS_PER_MULTI_A. */
#define MAX_PUBKEYS_PER_MULTI_A 999

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
    char small[256];
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    CHECK_ALWAYS(n >= 0);
    char *e;
    if ((size_t)n < sizeof(small)) {
        e = xstrdup(small);
    } else {
        /* Messages quote the input, which may be long. */
        e = xmalloc((size_t)n + 1);
        vsnprintf(e, (size_t)n + 1, fmt, ap2);
    }
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

static void key_free(struct desc_key *k)
{
    if (!k) {
        return;
    }
    free(k->origin_path);
    free(k->paths);
    wipe(k, sizeof(*k));
    free(k);
}

static void node_free(struct desc_node *n)
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

static struct desc_node *node_new(enum desc_type t)
{
    struct desc_node *n = xcalloc(1, sizeof(*n));
    n->type = t;
    n->n_alt = 1;
    buf_init(&n->script);
    return n;
}

static void node_add_key(struct desc_node *n, struct desc_key *k)
{
    n->keys = xrealloc(n->keys, (n->n_keys + 1) * sizeof(*n->keys));
    n->keys[n->n_keys++] = k;
}

static void node_add_sub(struct desc_node *n, struct desc_node *sub, int depth)
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
static struct desc_key *parse_key_inner(struct parser *ps, struct span sp, enum pctx ctx,
                                        int *apostrophe)
{
    int permit_uncompressed = ctx == CTX_TOP || ctx == CTX_P2SH;
    struct span *split;
    size_t n = sp_split(&split, sp, '/');
    struct span s = split[0];
    struct desc_key *k = xcalloc(1, sizeof(*k));
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
static struct desc_key *parse_key(struct parser *ps, struct span sp, enum pctx ctx)
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
    struct desc_key *k = NULL;
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

static size_t key_n_alt(const struct desc_key *k)
{
    return k->is_bip32 ? k->n_paths : 1;
}

/* ---- scripts (Core's ParseScript) ------------------------------------------------------ */

static struct desc_node *parse_script(struct parser *ps, struct span *sp, enum pctx ctx);

/* A function of one key: pk, pkh, wpkh, combo, rawtr, unused. */
static struct desc_node *one_key(struct parser *ps, enum desc_type t, struct span expr,
                                 enum pctx kctx, const char *prefix)
{
    struct desc_key *k = parse_key(ps, expr, kctx);
    if (!k) {
        if (prefix) {
            prefix_err(ps, prefix);
        }
        return NULL;
    }
    struct desc_node *n = node_new(t);
    node_add_key(n, k);
    n->n_alt = key_n_alt(k);
    return n;
}

static struct desc_node *parse_multi(struct parser *ps, struct span expr, enum pctx ctx,
                                     enum desc_type t)
{
    int is_a = t == N_MULTI_A || t == N_SORTEDMULTI_A;
    struct span th = sp_expr(&expr);
    uint32_t thres;
    if (!sp_to_u32(th, &thres)) {
        set_err(ps, "Multi threshold '%.*s' is not valid", (int)th.n, th.p);
        return NULL;
    }
    struct desc_node *n = node_new(t);
    n->threshold = thres;
    size_t script_size = 0;
    while (expr.n) {
        if (!sp_const(",", &expr, 1)) {
            set_err(ps, "Multi: expected ',', got '%c'", expr.p[0]);
            goto fail;
        }
        struct span arg = sp_expr(&expr);
        struct desc_key *k = parse_key(ps, arg, ctx);
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

static struct desc_node *parse_tr(struct parser *ps, struct span expr)
{
    struct span arg = sp_expr(&expr);
    struct desc_key *ik = parse_key(ps, arg, CTX_P2TR);
    if (!ik) {
        prefix_err(ps, "tr(): ");
        return NULL;
    }
    struct desc_node *n = node_new(N_TR);
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
            struct desc_node *sub = parse_script(ps, &sarg, CTX_P2TR);
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
static struct desc_node *wrap_script(struct parser *ps, enum desc_type t, struct span expr,
                                     enum pctx ictx)
{
    struct desc_node *sub = parse_script(ps, &expr, ictx);
    if (!sub || expr.n) {
        node_free(sub);
        return NULL;
    }
    struct desc_node *n = node_new(t);
    node_add_sub(n, sub, 0);
    n->n_alt = sub->n_alt;
    return n;
}

/* Core's ParseScript: the expression at the start of *sp (consumed) in context ctx. */
static struct desc_node *parse_script(struct parser *ps, struct span *sp, enum pctx ctx)
{
    struct span expr = sp_expr(sp);
    int top = ctx == CTX_TOP;

    if (sp_func("pk", &expr)) {
        struct desc_node *n = one_key(ps, N_PK, expr, ctx, "pk(): ");
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
        struct desc_node *n = one_key(ps, N_PKH, expr, ctx, NULL);
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
    enum desc_type mt = N_RAW; /* N_RAW: not a multi */
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
        struct desc_node *n = node_new(N_ADDR);
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
        struct desc_node *n = one_key(ps, N_UNUSED, arg, ctx, NULL);
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
        struct desc_node *n = node_new(N_RAW);
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
    struct desc_node *root = NULL;
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
