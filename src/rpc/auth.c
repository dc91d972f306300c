#include "rpc/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

#include "util/base64.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/hex.h"
#include "util/lockedpool.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct plain_cred {
    char *user;
    char *pass;
};

struct hmac_cred {
    char *user;
    char *salt;
    char *hash; /* as written: Core compares it with the lowercase hex of the HMAC */
};

/* One user's -rpcwhitelist: the methods it may call. */
struct whitelist {
    char *user;
    char **methods;
    size_t n;
};

struct rpc_auth {
    struct plain_cred *plain;
    size_t n_plain;
    struct hmac_cred *hmac;
    size_t n_hmac;
    struct whitelist *wl;
    size_t n_wl;
    bool wl_default; /* a user without a whitelist may call nothing */
    struct locked_pool *pool; /* where the secrets live (borrowed), or NULL: the heap */
};

struct rpc_auth *rpc_auth_new(struct locked_pool *pool)
{
    struct rpc_auth *au = xcalloc(1, sizeof(struct rpc_auth));
    au->pool = pool;
    return au;
}

static char *dup_secret(struct rpc_auth *au, const char *s)
{
    return au->pool ? locked_pool_strdup(au->pool, s) : xstrdup(s);
}

static void free_secret(struct rpc_auth *au, char *s)
{
    if (s && au->pool) {
        locked_pool_release(au->pool, s);
    } else if (s) {
        OPENSSL_cleanse(s, strlen(s));
        free(s);
    }
}

void rpc_auth_free(struct rpc_auth *au)
{
    if (!au) {
        return;
    }
    for (size_t i = 0; i < au->n_plain; i++) {
        free(au->plain[i].user);
        free_secret(au, au->plain[i].pass);
    }
    for (size_t i = 0; i < au->n_hmac; i++) {
        free(au->hmac[i].user);
        free(au->hmac[i].salt);
        free_secret(au, au->hmac[i].hash);
    }
    for (size_t i = 0; i < au->n_wl; i++) {
        free(au->wl[i].user);
        for (size_t k = 0; k < au->wl[i].n; k++) {
            free(au->wl[i].methods[k]);
        }
        free(au->wl[i].methods);
    }
    free(au->plain);
    free(au->hmac);
    free(au->wl);
    free(au);
}

void rpc_auth_add_plain(struct rpc_auth *au, const char *user, const char *pass)
{
    au->plain = xrealloc(au->plain, (au->n_plain + 1) * sizeof(*au->plain));
    au->plain[au->n_plain].user = xstrdup(user);
    au->plain[au->n_plain].pass = dup_secret(au, pass);
    au->n_plain++;
}

int rpc_auth_add_rpcauth(struct rpc_auth *au, const char *line)
{
    /* Core's InitRPCAuthentication: two fields split on ':', the second two on '$'; the
     * hash itself is not checked (one that is not lowercase hex never matches). */
    const char *colon = strchr(line, ':');
    if (!colon || strchr(colon + 1, ':')) {
        return RC_INVALID;
    }
    const char *dollar = strchr(colon + 1, '$');
    if (!dollar || strchr(dollar + 1, '$')) {
        return RC_INVALID;
    }
    struct hmac_cred c;
    c.user = xmemdup(line, (size_t)(colon - line) + 1);
    c.user[colon - line] = 0;
    c.salt = xmemdup(colon + 1, (size_t)(dollar - colon - 1) + 1);
    c.salt[dollar - colon - 1] = 0;
    c.hash = dup_secret(au, dollar + 1);
    au->hmac = xrealloc(au->hmac, (au->n_hmac + 1) * sizeof(*au->hmac));
    au->hmac[au->n_hmac++] = c;
    return RC_OK;
}

static struct whitelist *whitelist_of(const struct rpc_auth *au, const char *user)
{
    for (size_t i = 0; i < au->n_wl; i++) {
        if (strcmp(au->wl[i].user, user) == 0) {
            return &au->wl[i];
        }
    }
    return NULL;
}

static bool listed(const struct whitelist *w, const char *method)
{
    for (size_t k = 0; k < w->n; k++) {
        if (strcmp(w->methods[k], method) == 0) {
            return true;
        }
    }
    return false;
}

void rpc_auth_add_whitelist(struct rpc_auth *au, const char *value)
{
    const char *colon = strchr(value, ':');
    size_t ulen = colon ? (size_t)(colon - value) : strlen(value);
    struct whitelist fresh = {.user = xmemdup(value, ulen + 1)};
    fresh.user[ulen] = 0;
    /* The methods, split on ',' and ' ' (Core's SplitString(..., ", ")), empty ones kept. */
    for (const char *p = colon ? colon + 1 : NULL; p;) {
        size_t len = strcspn(p, ", ");
        fresh.methods = xrealloc(fresh.methods, (fresh.n + 1) * sizeof(char *));
        fresh.methods[fresh.n] = xmemdup(p, len + 1);
        fresh.methods[fresh.n++][len] = 0;
        p = p[len] ? p + len + 1 : NULL;
    }
    struct whitelist *old = whitelist_of(au, fresh.user);
    if (!old) {
        au->wl = xrealloc(au->wl, (au->n_wl + 1) * sizeof(*au->wl));
        au->wl[au->n_wl++] = fresh;
        return;
    }
    /* A user's later whitelists narrow the earlier: the intersection. */
    size_t k = 0;
    for (size_t i = 0; i < old->n; i++) {
        if (listed(&fresh, old->methods[i])) {
            old->methods[k++] = old->methods[i];
        } else {
            free(old->methods[i]);
        }
    }
    old->n = k;
    for (size_t i = 0; i < fresh.n; i++) {
        free(fresh.methods[i]);
    }
    free(fresh.methods);
    free(fresh.user);
}

void rpc_auth_set_whitelist_default(struct rpc_auth *au, bool on)
{
    au->wl_default = on;
}

bool rpc_auth_whitelist_active(const struct rpc_auth *au)
{
    return au->n_wl > 0 || au->wl_default;
}

int rpc_auth_may_call(const struct rpc_auth *au, const char *user, const char *method)
{
    const struct whitelist *w = whitelist_of(au, user);
    if (!w) {
        return au->wl_default ? -1 : 1;
    }
    return method && listed(w, method) ? 1 : 0;
}

void rpc_auth_hmac_hex(char hex65[65], const char *salt, const char *pass)
{
    uint8_t mac[32];
    unsigned int mac_len = sizeof(mac);
    HMAC(EVP_sha256(), salt, (int)strlen(salt), (const unsigned char *)pass, strlen(pass), mac,
         &mac_len);
    hex_encode(hex65, mac, 32);
}

bool rpc_auth_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++) {
        diff |= (unsigned char)(a[i] ^ b[lb ? i % lb : 0]);
    }
    return diff == 0;
}

char *rpc_base64_decode(const char *s)
{
    struct buf b;
    buf_init(&b);
    if (base64_decode(&b, s) != RC_OK || memchr(b.data, 0, b.len)) {
        buf_clear(&b); /* not base64, or an embedded NUL: not a valid user:pass */
        return NULL;
    }
    char *out = xmalloc(b.len + 1);
    memcpy(out, b.data, b.len);
    out[b.len] = 0;
    buf_clear(&b);
    return out;
}

bool rpc_auth_check_header(const struct rpc_auth *au, const char *header, char **user_out)
{
    if (!header || strncmp(header, "Basic ", 6) != 0) {
        return false;
    }
    const char *b64 = header + 6;
    while (*b64 == ' ') {
        b64++;
    }
    char *userpass = rpc_base64_decode(b64);
    if (!userpass) {
        return false;
    }
    bool ok = false;
    size_t total = strlen(userpass);
    char *colon = strchr(userpass, ':');
    if (colon) {
        *colon = 0;
        const char *user = userpass, *pass = colon + 1;
        /* Check every credential without stopping early, so timing does not reveal which
         * one matched. */
        for (size_t i = 0; i < au->n_plain; i++) {
            bool u = rpc_auth_equal(user, au->plain[i].user);
            bool p = rpc_auth_equal(pass, au->plain[i].pass);
            ok |= u && p;
        }
        for (size_t i = 0; i < au->n_hmac; i++) {
            if (rpc_auth_equal(user, au->hmac[i].user)) {
                char hex[65];
                rpc_auth_hmac_hex(hex, au->hmac[i].salt, pass);
                ok |= rpc_auth_equal(hex, au->hmac[i].hash);
            }
        }
        if (ok && user_out) {
            *user_out = xstrdup(user);
        }
    }
    OPENSSL_cleanse(userpass, total);
    free(userpass);
    return ok;
}

int rpc_cookie_generate(const char *path, char **secret_out, char *err, size_t err_len)
{
    uint8_t raw[32];
    char hex[65];
    char text[128];
    random_bytes(raw, sizeof(raw));
    hex_encode(hex, raw, sizeof(raw));
    int n = snprintf(text, sizeof(text), "%s:%s", RPC_COOKIE_USER, hex);
    int rc = fs_write_file_atomic(path, text, (size_t)n, 0600, err, err_len);
    OPENSSL_cleanse(raw, sizeof(raw));
    OPENSSL_cleanse(text, sizeof(text));
    if (rc == RC_OK) {
        *secret_out = xstrdup(hex);
    }
    OPENSSL_cleanse(hex, sizeof(hex));
    return rc;
}

int rpc_cookie_read(const char *path, char **userpass_out, char *err, size_t err_len)
{
    struct buf b;
    buf_init(&b);
    int rc = fs_read_file(path, &b, 4096, err, err_len);
    if (rc != RC_OK) {
        buf_clear(&b);
        return rc;
    }
    size_t n = b.len;
    while (n > 0 && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r')) {
        n--;
    }
    char *s = xmalloc(n + 1);
    if (n > 0) {
        memcpy(s, b.data, n);
    }
    s[n] = 0;
    OPENSSL_cleanse(b.data, b.len);
    buf_clear(&b);
    if (!strchr(s, ':')) {
        snprintf(err, err_len, "cookie file %s is malformed", path);
        free(s);
        return RC_INVALID;
    }
    *userpass_out = s;
    return RC_OK;
}
