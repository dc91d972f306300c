/* The network's parameters from the options (chain_args.h). */
#include "node/chain_args.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/arith256.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"

/* -signetchallenge: a signet of its own (at most one value, hex, not too long). */
static int signet_challenge(struct node_chain *c, const struct args *a, char *err, size_t err_len)
{
    const char **ch;
    size_t nch = args_get_list(a, "signetchallenge", &ch);
    int rc = RC_OK;
    if (nch > 1) {
        snprintf(err, err_len, "-signetchallenge cannot be multiple values.");
        rc = RC_INVALID;
    } else if (nch == 1 && c->params->signet_blocks) {
        struct buf bin;
        buf_init(&bin);
        if (hex_decode(&bin, ch[0]) != RC_OK) {
            snprintf(err, err_len, "-signetchallenge must be hex, not '%s'.", ch[0]);
            rc = RC_INVALID;
        } else if (chain_params_signet_custom(&c->custom_signet, bin.data, bin.len) != RC_OK) {
            snprintf(err, err_len, "-signetchallenge: a challenge of %zu bytes is longer than %d",
                     bin.len, CHAIN_SIGNET_CHALLENGE_MAX);
            rc = RC_INVALID;
        } else {
            c->params = &c->custom_signet;
            char hx[2 * CHAIN_SIGNET_CHALLENGE_MAX + 1];
            hex_encode(hx, c->params->signet_challenge, c->params->signet_challenge_len);
            LOG_INFO("Signet with challenge %s", hx);
        }
        buf_clear(&bin);
    }
    free(ch);
    return rc;
}

/* The parameters in c->custom_params (copied there first if they are not yet). */
static struct chain_params *custom(struct node_chain *c)
{
    if (c->params != &c->custom_params) {
        c->custom_params = *c->params;
        c->params = &c->custom_params;
    }
    return &c->custom_params;
}

/* -minimumchainwork: an optional 0x, then up to 64 hex digits. */
static int minimum_chain_work(struct node_chain *c, const struct args *a, char *err, size_t err_len)
{
    if (!args_is_set(a, "minimumchainwork")) {
        return RC_OK;
    }
    const char *v = args_get(a, "minimumchainwork", "");
    const char *hexv = (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) ? v + 2 : v;
    size_t len = strlen(hexv);
    char padded[65];
    int ok = len > 0 && len <= 64;
    for (size_t i = 0; ok && i < len; i++) {
        ok = (hexv[i] >= '0' && hexv[i] <= '9') || (hexv[i] >= 'a' && hexv[i] <= 'f') ||
             (hexv[i] >= 'A' && hexv[i] <= 'F');
    }
    if (!ok) {
        snprintf(err, err_len, "Invalid minimum work specified (%s), must be up to 64 hex digits",
                 v);
        return RC_INVALID;
    }
    memset(padded, '0', 64);
    memcpy(padded + 64 - len, hexv, len);
    padded[64] = 0;
    u256_from_hex(&custom(c)->minimum_chain_work, padded);
    return RC_OK;
}

/* The field of p that -testactivationheight's name (len bytes) moves, or NULL. */
static int *activation_field(struct chain_params *p, const char *name, size_t len)
{
    static const struct {
        const char *name;
        size_t offset;
    } fields[] = {{"segwit", offsetof(struct chain_params, segwit_height)},
                  {"bip34", offsetof(struct chain_params, bip34_height)},
                  {"dersig", offsetof(struct chain_params, bip66_height)},
                  {"cltv", offsetof(struct chain_params, bip65_height)},
                  {"csv", offsetof(struct chain_params, csv_height)}};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (strlen(fields[i].name) == len && strncmp(fields[i].name, name, len) == 0) {
            return (int *)((char *)p + fields[i].offset);
        }
    }
    return NULL;
}

/* -testactivationheight=name@height (regtest only). */
static int test_activation_heights(struct node_chain *c, const struct args *a, char *err,
                                   size_t err_len)
{
    const char **v;
    size_t nv = args_get_list(a, "testactivationheight", &v);
    int rc = RC_OK;
    for (size_t i = 0; i < nv && rc == RC_OK; i++) {
        const char *at = strchr(v[i], '@');
        if (!at) {
            snprintf(err, err_len, "Invalid format (%s) for -testactivationheight=name@height.",
                     v[i]);
            rc = RC_INVALID;
            break;
        }
        const char *num = at + 1;
        char *end = NULL;
        errno = 0;
        long h = (*num >= '0' && *num <= '9') || *num == '-' ? strtol(num, &end, 10) : -1;
        if (errno || !end || *end || h < 0 || h >= 2147483647L) {
            snprintf(err, err_len,
                     "Invalid height value (%s) for -testactivationheight=name@height.", v[i]);
            rc = RC_INVALID;
            break;
        }
        int *field = activation_field(custom(c), v[i], (size_t)(at - v[i]));
        if (!field) {
            snprintf(err, err_len, "Invalid name (%s) for -testactivationheight=name@height.",
                     v[i]);
            rc = RC_INVALID;
            break;
        }
        *field = (int)h;
    }
    free(v);
    return rc;
}

int node_chain_params(struct node_chain *c, const struct args *a, char *err, size_t err_len)
{
    int rc;
    c->params = chain_params_get(args_chain(a));
    if ((rc = signet_challenge(c, a, err, err_len)) ||
        (rc = minimum_chain_work(c, a, err, err_len))) {
        return rc;
    }
    if (c->params->id == CHAIN_REGTEST) {
        if ((rc = test_activation_heights(c, a, err, err_len))) {
            return rc;
        }
        /* -test=bip94: the timewarp rule and BIP94's retarget on regtest (Core's). */
        const char **tv = NULL;
        size_t nt = args_get_list(a, "test", &tv);
        for (size_t i = 0; i < nt; i++) {
            if (strcmp(tv[i], "bip94") == 0) {
                custom(c)->enforce_bip94 = 1;
            }
        }
        free(tv);
    }
    return RC_OK;
}

int node_chain_is_custom_signet(const struct node_chain *c)
{
    return c->params == &c->custom_signet;
}
