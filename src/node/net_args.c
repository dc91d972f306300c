/* The P2P service's options from the command line and bitcoin.conf (net_args.h). */
#include "node/net_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/uploadtarget.h"
#include "net/invbucket.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* -bind (a "=onion" suffix: a listener like the others, there is no Tor control here) and
 * -whitebind (permissions, and a port it must name) into na->binds. */
static int parse_binds(struct node_net_args *na, const struct args *a, uint16_t port, char *err,
                       size_t err_len)
{
    const char **binds = NULL, **whitebinds = NULL;
    size_t n_bind = args_get_list(a, "bind", &binds);
    size_t n_whitebind = args_get_list(a, "whitebind", &whitebinds);
    struct net_bind *bv = xcalloc(n_bind + n_whitebind + 1, sizeof(*bv));
    size_t nb = 0;
    int rc = RC_OK;
    char why[256];
    for (size_t i = 0; i < n_bind && rc == RC_OK; i++) {
        char v[NET_ADDR_STR_LEN];
        snprintf(v, sizeof(v), "%s", binds[i]);
        char *eq = strstr(v, "=onion");
        int onion = eq && eq[6] == 0;
        if (onion) {
            /* Core binds the Tor service's target there; without Tor control it is a
             * listener like the others (Core's test framework passes one). */
            *eq = 0;
            LOG_INFO("-bind=%s=onion: no Tor control here; listening there as on any -bind", v);
        }
        /* An onion bind without a port takes -port + 1 (Core's default onion port). */
        bv[nb].onion = onion;
        if (net_addr_parse(v, bv[nb].onion ? (uint16_t)(port + 1) : port, 0, &bv[nb].addr, why,
                           sizeof(why)) != RC_OK) {
            snprintf(err, err_len, "Cannot resolve -bind address: '%s'", v);
            rc = RC_INVALID;
            break;
        }
        nb++;
    }
    for (size_t i = 0; i < n_whitebind && rc == RC_OK; i++) {
        const char *rest;
        uint32_t perms;
        if (net_permissions_parse(whitebinds[i], &perms, NULL, &rest, err, err_len) != RC_OK) {
            rc = RC_INVALID;
            break;
        }
        /* Without permissions (NET_PERM_IMPLICIT): resolved when a peer comes, with the
         * -whitelist ones (Core's AddWhitelistPermissionFlags). */
        if (net_addr_parse(rest, 0, 0, &bv[nb].addr, why, sizeof(why)) != RC_OK) {
            snprintf(err, err_len, "Cannot resolve -whitebind address: '%s'", rest);
            rc = RC_INVALID;
            break;
        }
        if (bv[nb].addr.port == 0) {
            snprintf(err, err_len, "Need to specify a port with -whitebind: '%s'", whitebinds[i]);
            rc = RC_INVALID;
            break;
        }
        bv[nb++].perms = perms;
    }
    /* Core's CheckBindingConflicts: one address bound twice, by any of -bind, -bind=...=onion
     * and -whitebind, is refused before anything is bound. */
    for (size_t i = 0; i < nb && rc == RC_OK; i++) {
        for (size_t k = 0; k < i && rc == RC_OK; k++) {
            if (bv[i].addr.port == bv[k].addr.port && net_addr_same_ip(&bv[i].addr, &bv[k].addr)) {
                char s1[NET_ADDR_STR_LEN];
                net_addr_format(&bv[i].addr, 1, s1);
                snprintf(err, err_len,
                         "Duplicate binding configuration for address %s. Please check your "
                         "-bind, -bind=...=onion and -whitebind settings.",
                         s1);
                rc = RC_INVALID;
            }
        }
    }
    free(binds);
    free(whitebinds);
    na->binds = bv;
    na->o.binds = bv;
    na->o.n_binds = nb;
    return rc;
}

/* Core's GetListenPort: the first -bind naming a port, else the first -whitebind without
 * an explicit noban, else -port. The port our own addresses are advertised with. */
static uint16_t listen_port(const struct args *a, uint16_t port)
{
    const char **binds = NULL, **whitebinds = NULL;
    size_t n_bind = args_get_list(a, "bind", &binds);
    size_t n_whitebind = args_get_list(a, "whitebind", &whitebinds);
    uint16_t found = 0;
    for (size_t i = 0; i < n_bind && !found; i++) {
        struct net_addr b;
        if (net_addr_parse(binds[i], 0, 0, &b, NULL, 0) == RC_OK) {
            found = b.port;
        }
    }
    for (size_t i = 0; i < n_whitebind && !found; i++) {
        const char *rest;
        uint32_t perms;
        char err[256];
        struct net_addr b;
        if (net_permissions_parse(whitebinds[i], &perms, NULL, &rest, err, sizeof(err)) == RC_OK &&
            (perms & NET_PERM_NOBAN) != NET_PERM_NOBAN &&
            net_addr_parse(rest, 0, 0, &b, NULL, 0) == RC_OK) {
            found = b.port;
        }
    }
    free(binds);
    free(whitebinds);
    return found ? found : port;
}

/* -externalip: our public addresses, resolved, a missing port the listen port's, into
 * na->externalip. */
static int parse_externalip(struct node_net_args *na, const struct args *a, char *err,
                            size_t err_len)
{
    const char **v = NULL;
    size_t n = args_get_list(a, "externalip", &v);
    na->externalip = xcalloc(n ? n : 1, sizeof(*na->externalip));
    int rc = RC_OK;
    for (size_t i = 0; i < n && rc == RC_OK; i++) {
        struct net_addr *e = &na->externalip[i];
        static const uint8_t zero[32];
        if (net_addr_parse(v[i], na->o.listen_port, 1, e, NULL, 0) != RC_OK ||
            memcmp(e->addr, zero, e->len) == 0) {
            snprintf(err, err_len, "Cannot resolve -externalip address: '%s'", v[i]);
            rc = RC_INVALID;
        }
    }
    free(v);
    na->o.externalip = na->externalip;
    na->o.n_externalip = n;
    return rc;
}

/* Core's InitParameterInteraction for -discover: off by default with -proxy, without
 * listening, and with -externalip (the first reason logged); an explicit setting wins. */
static void discover_default(struct net_options *o, const struct args *a)
{
    int discover = 1, fixed = args_is_set(a, "discover");
    if (o->proxy && o->proxy[0] && strcmp(o->proxy, "0") != 0 && !fixed) {
        LOG_INFO("parameter interaction: -proxy set -> setting -discover=0");
        discover = 0;
        fixed = 1;
    }
    if (!o->listen && !fixed) {
        LOG_INFO("parameter interaction: -listen=0 -> setting -discover=0");
        discover = 0;
        fixed = 1;
    }
    if (o->n_externalip > 0 && !fixed) {
        LOG_INFO("parameter interaction: -externalip set -> setting -discover=0");
        discover = 0;
    }
    o->discover = args_get_bool(a, "discover", discover);
}

/* -whitelist: permissions and a subnet each, into na->whitelist. */
static int parse_whitelist(struct node_net_args *na, const struct args *a, char *err,
                           size_t err_len)
{
    const char **whitelist = NULL;
    size_t n = args_get_list(a, "whitelist", &whitelist);
    struct net_whitelist *wl = xcalloc(n + 1, sizeof(*wl));
    int rc = RC_OK;
    for (size_t i = 0; i < n && rc == RC_OK; i++) {
        const char *rest;
        if (net_permissions_parse(whitelist[i], &wl[i].perms, &wl[i].dirs, &rest, err, err_len) !=
            RC_OK) {
            rc = RC_INVALID;
        } else if (net_subnet_parse(rest, &wl[i].subnet) != RC_OK) {
            snprintf(err, err_len, "Invalid netmask specified in -whitelist: '%s'", rest);
            rc = RC_INVALID;
        }
    }
    free(whitelist);
    na->whitelist = wl;
    na->o.whitelist = wl;
    na->o.n_whitelist = n;
    return rc;
}

/* -onlynet: the networks automatic connections go to, a bit per enum net_network. */
static int parse_onlynet(const struct args *a, uint32_t *onlynet, char *err, size_t err_len)
{
    const char **nets = NULL;
    size_t n_nets = args_get_list(a, "onlynet", &nets);
    int rc = RC_OK;
    *onlynet = 0;
    for (size_t i = 0; i < n_nets && rc == RC_OK; i++) {
        int found = 0;
        for (int k = NETWORK_IPV4; k < NETWORK_COUNT; k++) {
            if (strcasecmp(nets[i], net_network_name(k)) == 0 ||
                (k == NETWORK_ONION && strcasecmp(nets[i], "tor") == 0)) {
                *onlynet |= 1u << k;
                found = 1;
            }
        }
        if (!found) {
            snprintf(err, err_len, "Unknown network specified in -onlynet: '%s'", nets[i]);
            rc = RC_INVALID;
        }
    }
    free(nets);
    return rc;
}

/* -uacomment: "c1; c2", shown as "(c1; c2)" after the version in the user agent. Each
 * comment holds only Core's SAFE_CHARS_UA_COMMENT (letters, digits, " .,;-_?@"), and the
 * whole user agent at most 256 bytes (BIP14's limit), with Core's messages. */
static int parse_uacomment(struct node_net_args *na, const struct args *a, char *err,
                           size_t err_len)
{
    static const char safe[] = " .,;-_?@";
    const char **cm = NULL;
    size_t ncm = args_get_list(a, "uacomment", &cm);
    size_t total = 0;
    int rc = RC_OK;
    na->uacomment[0] = 0;
    for (size_t i = 0; i < ncm && rc == RC_OK; i++) {
        for (const unsigned char *c = (const unsigned char *)cm[i]; *c; c++) {
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || strchr(safe, *c))) {
                snprintf(err, err_len, "User Agent comment (%s) contains unsafe characters.",
                         cm[i]);
                rc = RC_INVALID;
                break;
            }
        }
        total += (i ? 2 : 0) + strlen(cm[i]);
    }
    /* "/bitnode:<version>(c1; c2)/" */
    size_t ua_len = strlen("/bitnode:" PACKAGE_VERSION "/") + (ncm ? total + 2 : 0);
    if (rc == RC_OK && (ua_len > 256 || total + 1 > sizeof(na->uacomment))) {
        snprintf(err, err_len,
                 "Total length of network version string (%zu) exceeds maximum length (256). "
                 "Reduce the number or size of uacomments.",
                 ua_len);
        rc = RC_INVALID;
    }
    for (size_t i = 0, used = 0; i < ncm && rc == RC_OK; i++) {
        int w = snprintf(na->uacomment + used, sizeof(na->uacomment) - used, "%s%s", i ? "; " : "",
                         cm[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    free(cm);
    na->o.user_agent_comment = na->uacomment;
    return rc;
}

/* -test=<option>: Core's test-only switches, on regtest only. */
static int parse_test_options(struct node_net_args *na, const struct args *a, char *err,
                              size_t err_len)
{
    const char **tv = NULL;
    size_t nt = args_get_list(a, "test", &tv);
    int rc = RC_OK;
    if (nt > 0 && strcmp(args_chain(a), "regtest") != 0) {
        snprintf(err, err_len, "-test=<option> can only be used with regtest");
        rc = RC_INVALID;
    }
    for (size_t i = 0; i < nt && rc == RC_OK; i++) {
        if (strcmp(tv[i], "addrman") == 0) {
            na->o.deterministic_addrman = 1;
        } else if (strcmp(tv[i], "reindex_after_failure_noninteractive_yes") == 0) {
            /* nothing to do: the node never asks interactively */
        } else if (strcmp(tv[i], "bip94") == 0) {
            /* the chain parameters' (node_chain_params): BIP94 enforced on regtest */
        } else {
            snprintf(err, err_len, "Unrecognised option \"%s\" provided in -test=<option>.", tv[i]);
            rc = RC_INVALID;
        }
    }
    free(tv);
    return rc;
}

/* Drops the -addnode values that are blank: not a target, it would be retried for ever
 * (Core warns and skips them). */
static size_t drop_blank_addnodes(const char **v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i][strspn(v[i], " \t\n\r\f\v")] == 0) {
            LOG_WARN("Ignoring empty -addnode value");
            continue;
        }
        v[k++] = v[i];
    }
    return k;
}

/* Core's InitParameterInteraction for -listen and -dnsseed: a default changed by another
 * option is logged, an explicit setting wins. */
static void listen_and_dnsseed(struct net_options *o, const struct args *a, int connect_given,
                               int64_t maxconn)
{
    int listen = 1, dnsseed = 1;
    int listen_fixed = args_is_set(a, "listen"), dnsseed_fixed = args_is_set(a, "dnsseed");
    if (o->n_binds > 0 && !listen_fixed) {
        /* Core's two soft settings: the first that applies is logged. */
        LOG_INFO("parameter interaction: -%s set -> setting -listen=1",
                 args_is_set(a, "bind") ? "bind" : "whitebind");
        listen_fixed = 1;
    }
    if (connect_given || maxconn <= 0) {
        if (!dnsseed_fixed) {
            LOG_INFO("parameter interaction: -connect or -maxconnections=0 set -> setting "
                     "-dnsseed=0");
            dnsseed = 0;
            dnsseed_fixed = 1;
        }
        if (!listen_fixed) {
            LOG_INFO("parameter interaction: -connect or -maxconnections=0 set -> setting "
                     "-listen=0");
            listen = 0;
            listen_fixed = 1;
        }
    }
    if (o->proxy && o->proxy[0] && strcmp(o->proxy, "0") != 0 && !listen_fixed) {
        LOG_INFO("parameter interaction: -proxy set -> setting -listen=0");
        listen = 0;
    }
    uint32_t clearnet = (1u << NETWORK_IPV4) | (1u << NETWORK_IPV6);
    if (o->onlynet && !(o->onlynet & clearnet) && !dnsseed_fixed) {
        LOG_INFO("parameter interaction: -onlynet excludes IPv4 and IPv6 -> setting -dnsseed=0");
        dnsseed = 0;
    }
    o->listen = args_get_bool(a, "listen", listen);
    o->dnsseed = args_get_bool(a, "dnsseed", dnsseed);
}

/* The connection targets and the switches that follow from them (Core's rules: -bind and
 * -whitebind turn listening on; -connect, -proxy and -maxconnections=0 turn the default
 * off; -noconnect or -connect=0 is no automatic connections and no targets). */
static int connections(struct node_net_args *na, const struct args *a, char *err, size_t err_len)
{
    struct net_options *o = &na->o;
    o->n_connect = args_get_list(a, "connect", &na->connect);
    o->n_addnode = drop_blank_addnodes(na->addnode, args_get_list(a, "addnode", &na->addnode));
    o->n_seednode = args_get_list(a, "seednode", &na->seednode);
    o->connect = na->connect;
    o->addnode = na->addnode;
    o->seednode = na->seednode;
    int connect_negated = args_is_negated(a, "connect");
    int connect_given = o->n_connect > 0 || connect_negated;
    int connect_off = connect_negated || (o->n_connect == 1 && strcmp(na->connect[0], "0") == 0);
    if (connect_off) {
        o->n_connect = 0;
    }
    int64_t maxconn = args_get_int(a, "maxconnections", 125);
    o->proxy = args_is_negated(a, "proxy") ? NULL : args_get(a, "proxy", NULL);
    o->onion_proxy = args_is_negated(a, "onion") ? NULL : args_get(a, "onion", NULL);
    listen_and_dnsseed(o, a, connect_given, maxconn);
    if (connect_given) {
        if (o->n_connect > 0 && o->n_seednode > 0) {
            LOG_INFO("-seednode is ignored when -connect is used");
        }
        if (args_is_set(a, "dnsseed") && args_get_bool(a, "dnsseed", true) &&
            args_is_set(a, "proxy")) {
            LOG_INFO("-dnsseed is ignored when -connect is used and -proxy is specified");
        }
    }
    uint32_t clearnet = (1u << NETWORK_IPV4) | (1u << NETWORK_IPV6);
    if (args_is_set(a, "dnsseed") && args_get_bool(a, "dnsseed", true) && o->onlynet &&
        !(o->onlynet & clearnet)) {
        snprintf(err, err_len, "Incompatible options: -dnsseed=1 was explicitly specified, but "
                               "-onlynet forbids connections to IPv4/IPv6");
        return RC_INVALID;
    }
    maxconn = maxconn < 0 ? 0 : maxconn;
    o->max_connections = (int)(maxconn > 100000 ? 100000 : maxconn);
    int64_t pct = args_get_int(a, "inboundrelaypercent", 50);
    o->inbound_relay_percent = (int)(pct < 0 ? 0 : pct > 100 ? 100 : pct);
    o->automatic = !connect_given && maxconn > 0;
    return RC_OK;
}

int node_net_options(struct node_net_args *na, const struct args *a, const struct chain_params *p,
                     int custom_signet, char *err, size_t err_len)
{
    memset(na, 0, sizeof(*na));
    struct net_options *o = &na->o;
    o->port = p->default_port;
    if (args_is_set(a, "port")) {
        int64_t v = args_get_int(a, "port", p->default_port);
        if (v < 1 || v > 65535) {
            snprintf(err, err_len, "Invalid port specified in -port: '%s'",
                     args_get(a, "port", ""));
            return RC_INVALID;
        }
        o->port = (uint16_t)v;
    }
    o->onion_port = (uint16_t)(o->port + 1);
    if ((args_is_set(a, "bind") || args_is_set(a, "whitebind")) && args_is_set(a, "listen") &&
        !args_get_bool(a, "listen", true)) {
        snprintf(err, err_len, "Cannot set -bind or -whitebind together with -listen=0");
        return RC_INVALID;
    }
    int rc;
    const char **lst = NULL;
    size_t n_user_binds = args_get_list(a, "bind", &lst);
    free(lst);
    lst = NULL;
    n_user_binds += args_get_list(a, "whitebind", &lst);
    free(lst);
    if (n_user_binds && args_is_set(a, "listen") && !args_get_bool(a, "listen", true)) {
        /* Core's check, before the addresses are read. */
        snprintf(err, err_len, "Cannot set -bind or -whitebind together with -listen=0");
        return RC_INVALID;
    }
    if ((rc = parse_onlynet(a, &o->onlynet, err, err_len)) ||
        (rc = parse_binds(na, a, o->port, err, err_len)) ||
        (rc = parse_whitelist(na, a, err, err_len)) ||
        (rc = parse_uacomment(na, a, err, err_len))) {
        return rc;
    }
    o->listen_port = listen_port(a, o->port);
    if ((rc = parse_externalip(na, a, err, err_len))) {
        return rc;
    }
    o->peer_timeout = args_get_int(a, "peertimeout", 60);
    if (o->peer_timeout <= 0) {
        snprintf(err, err_len, "peertimeout must be a positive integer.");
        return RC_INVALID;
    }
    if ((rc = parse_test_options(na, a, err, err_len))) {
        return rc;
    }
    o->v2transport = args_get_bool(a, "v2transport", true);
    o->capture_messages = args_get_bool(a, "capturemessages", false);
    o->cjdns_reachable = args_get_bool(a, "cjdnsreachable", false);
    o->txreconciliation = args_get_bool(a, "txreconciliation", false);
    const char *mut = args_get(a, "maxuploadtarget", "0M");
    if (!upload_target_parse(mut, &o->max_upload)) {
        snprintf(err, err_len, "Unable to parse -maxuploadtarget: '%s'", mut);
        return RC_INVALID;
    }
    if ((rc = connections(na, a, err, err_len))) {
        return rc;
    }
    discover_default(o, a);
    o->max_tip_age = args_get_int(a, "maxtipage", 24 * 60 * 60);
    o->fixedseeds = args_get_bool(a, "fixedseeds", true);
    o->network_active = args_get_bool(a, "networkactive", true);
    o->bantime = args_get_int(a, "bantime", 86400);
    o->chain = custom_signet ? "signet-custom" : args_chain(a);
    o->proxy_randomize = args_get_bool(a, "proxyrandomize", true);
    o->blocks_only = args_get_bool(a, "blocksonly", false);
    o->peer_bloom_filters = args_get_bool(a, "peerbloomfilters", false);
    /* Core's parameter interactions: -blocksonly turns -whitelistrelay off, and
     * -whitelistforcerelay on, unless it is set. */
    o->whitelist_forcerelay = args_get_bool(a, "whitelistforcerelay", false);
    o->whitelist_relay = args_get_bool(a, "whitelistrelay", !o->blocks_only);
    /* Core's clamp to 1..1000 transactions a second. */
    int64_t rate = args_get_int(a, "txsendrate", INVBUCKET_DEFAULT_RATE);
    rate = rate < INVBUCKET_MIN_RATE ? INVBUCKET_MIN_RATE : rate;
    o->tx_send_rate = (unsigned)(rate > INVBUCKET_MAX_RATE ? INVBUCKET_MAX_RATE : rate);
    return RC_OK;
}

void node_net_args_clear(struct node_net_args *na)
{
    free(na->binds);
    free(na->externalip);
    free(na->whitelist);
    free(na->connect);
    free(na->addnode);
    free(na->seednode);
    memset(na, 0, sizeof(*na));
}
