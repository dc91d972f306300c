/* The network RPC methods, as Bitcoin Core's rpc/net.cpp (and getblockfrompeer of its
 * rpc/blockchain.cpp): the P2P service's peers, counters, added nodes, bans and known
 * addresses.
 *
 * The service's state has one owner, the net thread. A handler gathers what it needs in one
 * net_call (a callback filling a struct on the handler's stack, so that a check and the
 * change it guards see the same state), then builds its JSON on the RPC thread. A handler
 * never holds the chain lock across net_call: the net thread takes that lock itself.
 */
#include "rpc/warnings.h"
#include "rpc/net.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "blockstore/blockindex.h"
#include "mempool/mempool.h"
#include "net/invbucket.h"
#include "net/net.h"
#include "net/netaddr.h"
#include "net/protocol.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "rpc/resultdoc.h"
#include "util/hex.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

/* The relay fees getnetworkinfo reports without a pool: Core v31's defaults (-minrelaytxfee
 * and -incrementalrelayfee in sat/kvB). */
#define RELAY_FEE_SAT_PER_KVB 100
#define INCREMENTAL_FEE_SAT_PER_KVB 100
/* getnettotals' upload target without -maxuploadtarget (Core's MAX_UPLOAD_TIMEFRAME). */
#define UPLOAD_TIMEFRAME_S (60 * 60 * 24)

static const char p2p_disabled[] = "Error: Peer-to-peer functionality missing or disabled";

/* Core's EnsureConnman: -31 when there is no service. */
static int need_net(struct rpc_request *req)
{
    if (!req->ctx->node->net) {
        rpc_error(req, RPC_CLIENT_P2P_DISABLED, "%s", p2p_disabled);
        return -1;
    }
    return 0;
}

/* Runs fn(n, arg) on the net thread; -1 after Core's -31 when there is no service or its
 * thread is not running (start-up, shutdown). */
static int ask_net(struct rpc_request *req, void (*fn)(struct net *n, void *arg), void *arg)
{
    if (need_net(req) != 0) {
        return -1;
    }
    if (net_call(req->ctx->node->net, fn, arg) != RC_OK) {
        rpc_error(req, RPC_CLIENT_P2P_DISABLED, "%s", p2p_disabled);
        return -1;
    }
    return 0;
}

int rpc_net_ask(struct rpc_request *req, void (*fn)(struct net *n, void *arg), void *arg)
{
    return ask_net(req, fn, arg);
}

/* Core answers a command word it does not know with the method's help, as a
 * runtime_error (-1). */
static json_t *help_error(struct rpc_request *req)
{
    char *help = rpc_method_help(rpc_find(req->ctx, req->method));
    rpc_error(req, RPC_MISC_ERROR, "%s", help);
    free(help);
    return NULL;
}

/* bitnode's version as Core's CLIENT_VERSION encodes its own: 10000 * major + 100 * minor +
 * patch ("0.1.0" is 100). */
/* getnetworkinfo's "version": the Bitcoin Core release whose interface bitnode answers as
 * (v31.99). Clients gate features on it (bitcoin-cli -netinfo needs at least 209900); the
 * node's own version is in "subversion". */
static int client_version(void)
{
    return 319900;
}

/* Core's serviceFlagsToStr: a name per set bit, "UNKNOWN[2^n]" for bits it has no name
 * for. */
static json_t *services_names(uint64_t services)
{
    json_t *a = json_array();
    for (unsigned bit = 0; bit < 64; bit++) {
        uint64_t flag = 1ull << bit;
        if (!(services & flag)) {
            continue;
        }
        const char *name = NULL;
        switch (flag) {
        case NODE_NETWORK:
            name = "NETWORK";
            break;
        case NODE_BLOOM:
            name = "BLOOM";
            break;
        case NODE_WITNESS:
            name = "WITNESS";
            break;
        case NODE_COMPACT_FILTERS:
            name = "COMPACT_FILTERS";
            break;
        case NODE_NETWORK_LIMITED:
            name = "NETWORK_LIMITED";
            break;
        case NODE_P2P_V2:
            name = "P2P_V2";
            break;
        }
        json_array_append_new(a, name ? json_string(name) : json_sprintf("UNKNOWN[2^%u]", bit));
    }
    return a;
}

static json_t *services_hex(uint64_t services)
{
    return json_sprintf("%016" PRIx64, services);
}

/* Core's SanitizeString (SAFE_CHARS_DEFAULT): what a peer sends shows only these. */
static json_t *sanitized(const char *s)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567890 "
                               ".,;-_/:?@()";
    size_t n = strlen(s), k = 0;
    char *out = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        if (strchr(safe, s[i])) {
            out[k++] = s[i];
        }
    }
    out[k] = 0;
    json_t *v = json_string(out);
    free(out);
    return v;
}

/* Microseconds as Core's Ticks<SecondsDouble>. */
static json_t *seconds_of_us(int64_t us)
{
    return json_real((double)us / 1e6);
}

/* ---- getconnectioncount, ping --------------------------------------------------------- */

struct counts_call {
    int in, out;
};

static void counts_fn(struct net *n, void *arg)
{
    struct counts_call *c = arg;
    net_connection_counts(n, &c->in, &c->out);
}

static json_t *rpc_getconnectioncount(struct rpc_request *req)
{
    struct counts_call c = {0};
    if (ask_net(req, counts_fn, &c) != 0) {
        return NULL;
    }
    return json_integer(c.in + c.out);
}

static void ping_fn(struct net *n, void *arg)
{
    (void)arg;
    net_ping_all(n);
}

static json_t *rpc_ping(struct rpc_request *req)
{
    if (ask_net(req, ping_fn, NULL) != 0) {
        return NULL;
    }
    return json_null();
}

/* ---- getpeerinfo ---------------------------------------------------------------------- */

struct peers_call {
    struct net_peer_stats *v;
    size_t n;
};

static void peers_fn(struct net *n, void *arg)
{
    struct peers_call *c = arg;
    net_get_peers(n, &c->v, &c->n);
}

struct msg_count {
    const char *name;
    uint64_t bytes;
};

static int by_msg_name(const void *a, const void *b)
{
    return strcmp(((const struct msg_count *)a)->name, ((const struct msg_count *)b)->name);
}

/* Core's bytessent_per_msg / bytesrecv_per_msg: the types with a non-zero count, by name
 * (its per-message maps are std::maps). */
static json_t *per_msg_json(const struct net_peer_stats *s, const uint64_t *counts)
{
    struct msg_count *v = xcalloc(s->n_msg_types ? s->n_msg_types : 1, sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < s->n_msg_types; i++) {
        if (counts[i] > 0) {
            v[k++] = (struct msg_count){s->msg_types[i], counts[i]};
        }
    }
    qsort(v, k, sizeof(*v), by_msg_name);
    json_t *o = json_object();
    for (size_t i = 0; i < k; i++) {
        json_object_set_new(o, v[i].name, json_integer((json_int_t)v[i].bytes));
    }
    free(v);
    return o;
}

static json_t *peer_json(const struct net_peer_stats *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(s->id));
    json_object_set_new(o, "addr", json_string(s->addr));
    if (s->addr_bind[0]) {
        json_object_set_new(o, "addrbind", json_string(s->addr_bind));
    }
    if (s->addr_local[0]) {
        json_object_set_new(o, "addrlocal", sanitized(s->addr_local));
    }
    json_object_set_new(o, "network", json_string(net_network_name(s->network)));
    json_object_set_new(o, "services", services_hex(s->services));
    json_object_set_new(o, "servicesnames", services_names(s->services));
    json_object_set_new(o, "relaytxes", json_boolean(s->relay_txs));
    /* No inventory sequence kept for it; the announcements queued. */
    json_object_set_new(o, "last_inv_sequence", json_integer((json_int_t)s->last_inv_sequence));
    json_object_set_new(o, "inv_to_send", json_integer((json_int_t)s->inv_to_send));
    json_object_set_new(o, "lastsend", json_integer(s->last_send));
    json_object_set_new(o, "lastrecv", json_integer(s->last_recv));
    json_object_set_new(o, "last_transaction", json_integer(s->last_tx));
    json_object_set_new(o, "last_block", json_integer(s->last_block));
    json_object_set_new(o, "bytessent", json_integer((json_int_t)s->bytes_sent));
    json_object_set_new(o, "bytesrecv", json_integer((json_int_t)s->bytes_recv));
    json_object_set_new(o, "conntime", json_integer(s->conn_time));
    json_object_set_new(o, "timeoffset", json_integer(s->time_offset));
    if (s->ping_us > 0) {
        json_object_set_new(o, "pingtime", seconds_of_us(s->ping_us));
    }
    if (s->min_ping_us >= 0) {
        json_object_set_new(o, "minping", seconds_of_us(s->min_ping_us));
    }
    if (s->ping_wait_us > 0) {
        json_object_set_new(o, "pingwait", seconds_of_us(s->ping_wait_us));
    }
    json_object_set_new(o, "version", json_integer(s->version));
    json_object_set_new(o, "subver", sanitized(s->subver));
    json_object_set_new(o, "inbound", json_boolean(s->inbound));
    json_object_set_new(o, "bip152_hb_to", json_boolean(s->bip152_hb_to));
    json_object_set_new(o, "bip152_hb_from", json_boolean(s->bip152_hb_from));
    /* The height a low-work pre-sync has reached, -1 when none runs (Core's). */
    json_object_set_new(o, "presynced_headers", json_integer(s->presynced_headers));
    json_object_set_new(o, "synced_headers", json_integer(s->synced_headers));
    json_object_set_new(o, "synced_blocks", json_integer(s->synced_blocks));
    json_t *heights = json_array();
    for (size_t i = 0; i < s->n_inflight; i++) {
        json_array_append_new(heights, json_integer(s->inflight[i]));
    }
    json_object_set_new(o, "inflight", heights);
    json_object_set_new(o, "addr_relay_enabled", json_boolean(s->addr_relay_enabled));
    json_object_set_new(o, "addr_processed", json_integer((json_int_t)s->addr_processed));
    json_object_set_new(o, "addr_rate_limited", json_integer((json_int_t)s->addr_rate_limited));
    const char *perms[32];
    size_t n_perms = net_permission_names(s->permissions, perms, 32);
    json_t *pa = json_array();
    for (size_t i = 0; i < n_perms; i++) {
        json_array_append_new(pa, json_string(perms[i]));
    }
    json_object_set_new(o, "permissions", pa);
    json_object_set_new(o, "minfeefilter", rpc_json_amount(s->minfeefilter));
    json_object_set_new(o, "bytessent_per_msg", per_msg_json(s, s->sent_per_msg));
    json_object_set_new(o, "bytesrecv_per_msg", per_msg_json(s, s->recv_per_msg));
    json_object_set_new(o, "connection_type", json_string(net_conn_type_name(s->conn_type)));
    /* BIP324: "detecting" until the peer's version packet checked out (or it spoke v1). */
    static const char *const kinds[] = {"detecting", "v1", "v2"};
    json_object_set_new(o, "transport_protocol_type",
                        json_string(kinds[s->transport >= 0 && s->transport <= 2 ? s->transport : 1]));
    char sid[65] = "";
    if (s->transport == 2) {
        hex_encode(sid, s->session_id, 32);
    }
    json_object_set_new(o, "session_id", json_string(sid));
    return o;
}

static json_t *rpc_getpeerinfo(struct rpc_request *req)
{
    struct peers_call c = {0};
    if (ask_net(req, peers_fn, &c) != 0) {
        return NULL;
    }
    json_t *r = json_array();
    for (size_t i = 0; i < c.n; i++) {
        json_array_append_new(r, peer_json(&c.v[i]));
    }
    net_peer_stats_free(c.v, c.n);
    return r;
}

/* ---- getnetworkinfo, getnettotals ----------------------------------------------------- */

struct netinfo_call {
    uint64_t services;
    int active;
    int in, out;
    int64_t time_offset; /* Core's TimeOffsets::Median */
    int reachable[NETWORK_COUNT];
    char proxy[NETWORK_COUNT][NET_ADDR_STR_LEN];
    int randomize[NETWORK_COUNT];
    char subversion[NET_MAX_SUBVERSION + 1];
    int local_relay;
    struct localaddr_entry *local; /* our own addresses (caller frees) */
    size_t n_local;
    unsigned tx_send_rate;
    struct invbucket_info inv[2]; /* inbound, outbound */
};

static void netinfo_fn(struct net *n, void *arg)
{
    struct netinfo_call *c = arg;
    snprintf(c->subversion, sizeof(c->subversion), "%s", net_user_agent(n));
    c->services = net_local_services(n);
    c->local_relay = net_local_relay(n);
    net_inv_buckets(n, &c->tx_send_rate, &c->inv[INVBUCKET_INBOUND], &c->inv[INVBUCKET_OUTBOUND]);
    c->active = net_is_active(n);
    net_connection_counts(n, &c->in, &c->out);
    net_local_addresses(n, &c->local, &c->n_local);
    for (int net = NETWORK_IPV4; net < NETWORK_COUNT; net++) {
        c->reachable[net] = net_network_reachable(n, net);
        net_network_proxy(n, net, c->proxy[net], &c->randomize[net]);
    }
    c->time_offset = net_time_offset_median(n);
}

/* One direction of Core's inv_buckets: the announcements waiting, the tokens left. */
static json_t *inv_bucket_json(const struct invbucket_info *info)
{
    json_t *b = json_object();
    json_object_set_new(b, "backlog", json_integer((json_int_t)info->backlog));
    json_object_set_new(b, "count_tok", json_real(info->count_tok));
    json_object_set_new(b, "size_tok", json_real(info->size_tok));
    return b;
}

/* Core's GetNetworksInfo: reachability from -onlynet (onion with a proxy), the proxies. */
static json_t *networks_json(const struct netinfo_call *c)
{
    json_t *a = json_array();
    for (int net = NETWORK_IPV4; net < NETWORK_COUNT; net++) {
        int reachable = c->reachable[net];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(net_network_name(net)));
        json_object_set_new(o, "limited", json_boolean(!reachable));
        json_object_set_new(o, "reachable", json_boolean(reachable));
        json_object_set_new(o, "proxy", json_string(c->proxy[net]));
        json_object_set_new(o, "proxy_randomize_credentials", json_boolean(c->randomize[net]));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *rpc_getnetworkinfo(struct rpc_request *req)
{
    struct netinfo_call c = {0};
    if (ask_net(req, netinfo_fn, &c) != 0) {
        return NULL;
    }
    json_t *r = json_object();
    json_object_set_new(r, "version", json_integer(client_version()));
    /* The user agent our version messages carry, -uacomment included (Core's). */
    json_object_set_new(r, "subversion", json_string(c.subversion));
    json_object_set_new(r, "protocolversion", json_integer(NET_PROTOCOL_VERSION));
    json_object_set_new(r, "localservices", services_hex(c.services));
    json_object_set_new(r, "localservicesnames", services_names(c.services));
    /* The version message asks peers for transactions (not -blocksonly). */
    json_object_set_new(r, "localrelay", json_boolean(c.local_relay));
    json_object_set_new(r, "timeoffset", json_integer(c.time_offset));
    json_object_set_new(r, "tx_send_rate", json_integer(c.tx_send_rate));
    json_t *buckets = json_object();
    json_object_set_new(buckets, "inbound", inv_bucket_json(&c.inv[INVBUCKET_INBOUND]));
    json_object_set_new(buckets, "outbound", inv_bucket_json(&c.inv[INVBUCKET_OUTBOUND]));
    json_object_set_new(r, "inv_buckets", buckets);
    json_object_set_new(r, "networkactive", json_boolean(c.active));
    json_object_set_new(r, "connections", json_integer(c.in + c.out));
    json_object_set_new(r, "connections_in", json_integer(c.in));
    json_object_set_new(r, "connections_out", json_integer(c.out));
    json_object_set_new(r, "networks", networks_json(&c));
    /* Core's: the pool's -minrelaytxfee and -incrementalrelayfee, as configured. */
    int64_t relay_fee = RELAY_FEE_SAT_PER_KVB, incremental_fee = INCREMENTAL_FEE_SAT_PER_KVB;
    if (req->ctx->node->mempool) {
        const struct mempool_options *mo = mempool_options(req->ctx->node->mempool);
        relay_fee = mo->min_relay_feerate;
        incremental_fee = mo->incremental_feerate;
    }
    json_object_set_new(r, "relayfee", rpc_json_amount(relay_fee));
    json_object_set_new(r, "incrementalfee", rpc_json_amount(incremental_fee));
    /* Core's mapLocalHost: -externalip, routable binds, what -discover found. */
    json_t *local = json_array();
    for (size_t i = 0; i < c.n_local; i++) {
        char s[NET_ADDR_STR_LEN];
        net_addr_format(&c.local[i].addr, 0, s);
        json_t *o = json_object();
        json_object_set_new(o, "address", json_string(s));
        json_object_set_new(o, "port", json_integer(c.local[i].addr.port));
        json_object_set_new(o, "score", json_integer(c.local[i].score));
        json_array_append_new(local, o);
    }
    json_object_set_new(r, "localaddresses", local);
    json_object_set_new(r, "warnings", rpc_warnings_json(req->ctx->node));
    free(c.local);
    return r;
}

struct totals_call {
    uint64_t recv, sent;
    struct net_upload_info up;
};

static void totals_fn(struct net *n, void *arg)
{
    struct totals_call *c = arg;
    net_totals(n, &c->recv, &c->sent);
    net_upload_info(n, &c->up);
}

static json_t *rpc_getnettotals(struct rpc_request *req)
{
    struct totals_call c = {0};
    if (ask_net(req, totals_fn, &c) != 0) {
        return NULL;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    json_t *r = json_object();
    json_object_set_new(r, "totalbytesrecv", json_integer((json_int_t)c.recv));
    json_object_set_new(r, "totalbytessent", json_integer((json_int_t)c.sent));
    json_object_set_new(r, "timemillis",
                        json_integer((json_int_t)now.tv_sec * 1000 + now.tv_nsec / 1000000));
    json_t *up = json_object();
    json_object_set_new(up, "timeframe", json_integer(UPLOAD_TIMEFRAME_S));
    json_object_set_new(up, "target", json_integer((json_int_t)c.up.target));
    json_object_set_new(up, "target_reached", json_boolean(c.up.target_reached));
    json_object_set_new(up, "serve_historical_blocks", json_boolean(c.up.serve_historical_blocks));
    json_object_set_new(up, "bytes_left_in_cycle", json_integer((json_int_t)c.up.bytes_left_in_cycle));
    json_object_set_new(up, "time_left_in_cycle", json_integer((json_int_t)c.up.time_left_in_cycle));
    json_object_set_new(r, "uploadtarget", up);
    return r;
}

/* ---- addnode, getaddednodeinfo, disconnectnode ---------------------------------------- */

struct addnode_call {
    const char *node, *command;
    int v2; /* -1: not given */
    int v2_refused;
    int rc;
    char err[256];
};

static void addnode_fn(struct net *n, void *arg)
{
    struct addnode_call *c = arg;
    int have_v2 = (net_local_services(n) & NODE_P2P_V2) != 0;
    int use_v2 = c->v2 >= 0 ? c->v2 : have_v2;
    if (use_v2 && !have_v2) {
        c->v2_refused = 1;
        return;
    }
    c->rc = net_addnode(n, c->node, c->command, use_v2, c->err, sizeof(c->err));
}

static int blank(const char *s)
{
    for (; *s; s++) {
        if (!isspace((unsigned char)*s)) {
            return 0;
        }
    }
    return 1;
}

static json_t *rpc_addnode(struct rpc_request *req)
{
    const char *command = json_string_value(rpc_param(req, 1));
    if (strcmp(command, "onetry") != 0 && strcmp(command, "add") != 0 &&
        strcmp(command, "remove") != 0) {
        return help_error(req);
    }
    if (need_net(req) != 0) {
        return NULL;
    }
    const char *node = json_string_value(rpc_param(req, 0));
    if (blank(node)) {
        /* Such a node would never resolve, but would be retried forever. */
        return rpc_error(req, RPC_INVALID_PARAMETER, "Error: Node address cannot be empty");
    }
    json_t *v2 = rpc_param(req, 2);
    struct addnode_call c = {.node = node, .command = command, .v2 = v2 ? json_is_true(v2) : -1};
    if (ask_net(req, addnode_fn, &c) != 0) {
        return NULL;
    }
    if (c.v2_refused) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Error: v2transport requested but not enabled (see -v2transport)");
    }
    /* Core's onetry answers null whether or not the connection can be made. */
    if (strcmp(command, "onetry") == 0 || c.rc == RC_OK) {
        return json_null();
    }
    if (strcmp(command, "add") == 0) {
        return rpc_error(req, RPC_CLIENT_NODE_ALREADY_ADDED, "%s",
                         c.err[0] ? c.err : "Error: Node already added");
    }
    return rpc_error(req, RPC_CLIENT_NODE_NOT_ADDED, "%s",
                     c.err[0] ? c.err
                              : "Error: Node could not be removed. It has not been added "
                                "previously.");
}

struct added_call {
    struct net_added_node *v;
    size_t n;
};

static void added_fn(struct net *n, void *arg)
{
    struct added_call *c = arg;
    net_added_nodes(n, &c->v, &c->n);
}

static json_t *rpc_getaddednodeinfo(struct rpc_request *req)
{
    struct added_call c = {0};
    if (ask_net(req, added_fn, &c) != 0) {
        return NULL;
    }
    json_t *want = rpc_param(req, 0);
    const char *node = want ? json_string_value(want) : NULL;
    size_t first = 0, end = c.n;
    if (node) {
        while (first < c.n && strcmp(c.v[first].node, node) != 0) {
            first++;
        }
        if (first == c.n) {
            free(c.v);
            return rpc_error(req, RPC_CLIENT_NODE_NOT_ADDED, "Error: Node has not been added.");
        }
        end = first + 1;
    }
    json_t *r = json_array();
    for (size_t i = first; i < end; i++) {
        const struct net_added_node *a = &c.v[i];
        json_t *o = json_object();
        json_object_set_new(o, "addednode", json_string(a->node));
        json_object_set_new(o, "connected", json_boolean(a->connected));
        json_t *addrs = json_array();
        if (a->connected) {
            json_array_append_new(addrs, json_pack("{s:s,s:s}", "address", a->address, "connected",
                                                   a->inbound ? "inbound" : "outbound"));
        }
        json_object_set_new(o, "addresses", addrs);
        json_array_append_new(r, o);
    }
    free(c.v);
    return r;
}

struct disconnect_call {
    const char *address; /* NULL: by id */
    int64_t id;          /* -1: by address */
    int rc;
};

static void disconnect_fn(struct net *n, void *arg)
{
    struct disconnect_call *c = arg;
    c->rc = net_disconnect(n, c->address, c->id);
}

static json_t *rpc_disconnectnode(struct rpc_request *req)
{
    if (need_net(req) != 0) {
        return NULL;
    }
    json_t *address = rpc_param(req, 0);
    bool by_id = req->argv[1].given;
    struct disconnect_call c = {.id = -1};
    if (address && !by_id) {
        c.address = json_string_value(address);
    } else if (by_id && (!address || json_string_length(address) == 0)) {
        c.id = rpc_arg_int(req, 1);
        if (c.id < 0) {
            /* No peer has a negative id (the service reads -1 as "not by id"). */
            return rpc_error(req, RPC_CLIENT_NODE_NOT_CONNECTED,
                             "Node not found in connected nodes");
        }
    } else {
        return rpc_error(req, RPC_INVALID_PARAMS,
                         "Only one of address and nodeid should be provided.");
    }
    if (ask_net(req, disconnect_fn, &c) != 0) {
        return NULL;
    }
    if (c.rc != RC_OK) {
        return rpc_error(req, RPC_CLIENT_NODE_NOT_CONNECTED, "Node not found in connected nodes");
    }
    return json_null();
}

/* ---- setban, listbanned, clearbanned --------------------------------------------------- */

struct setban_call {
    struct net_subnet sn;
    int is_subnet; /* the argument had a '/': an exact subnet, else one address */
    int add;
    int ban_ok; /* add: the ban time checked out; ban unless already banned */
    int64_t bantime;
    int absolute;
    int already_banned;
    int rc;
};

static void setban_fn(struct net *n, void *arg)
{
    struct setban_call *c = arg;
    if (!c->add) {
        c->rc = net_unban(n, &c->sn);
        return;
    }
    /* Core's BanMan::IsBanned: a subnet must be banned as such; an address is banned when
     * any ban covers it. */
    if (c->is_subnet) {
        c->already_banned = net_is_banned_subnet(n, &c->sn);
    } else {
        struct net_ban_entry *bans;
        size_t count;
        net_list_banned(n, &bans, &count);
        for (size_t i = 0; i < count && !c->already_banned; i++) {
            c->already_banned = net_subnet_match(&bans[i].subnet, &c->sn.base);
        }
        free(bans);
    }
    if (!c->already_banned && c->ban_ok) {
        net_ban(n, &c->sn, c->bantime, c->absolute);
    }
}

static json_t *rpc_setban(struct rpc_request *req)
{
    const char *command = json_string_value(rpc_param(req, 1));
    int add = strcmp(command, "add") == 0;
    if (!add && strcmp(command, "remove") != 0) {
        return help_error(req);
    }
    if (need_net(req) != 0) {
        return NULL;
    }
    const char *subnet = json_string_value(rpc_param(req, 0));
    struct setban_call c = {.is_subnet = strchr(subnet, '/') != NULL, .add = add};
    if (net_subnet_parse(subnet, &c.sn) != RC_OK) {
        return rpc_error(req, RPC_CLIENT_INVALID_IP_OR_SUBNET, "Error: Invalid IP/Subnet");
    }
    /* Core reads the ban time after the already-banned check: its errors are held until
     * the service answered that. */
    json_t *bantime = rpc_param(req, 2);
    json_t *absolute = rpc_param(req, 3);
    int bantime_int = !bantime || json_is_integer(bantime);
    c.bantime = bantime && bantime_int ? (int64_t)json_integer_value(bantime) : 0;
    c.absolute = absolute && json_is_true(absolute);
    int in_past = c.absolute && c.bantime < time_now_s();
    if (c.bantime <= 0) {
        /* Core's BanMan::Ban: the default ban (-bantime), from now, whatever absolute says;
         * net_ban applies it. */
        c.bantime = 0;
        c.absolute = 0;
    }
    c.ban_ok = bantime_int && !in_past;
    if (ask_net(req, setban_fn, &c) != 0) {
        return NULL;
    }
    if (!add) {
        if (c.rc != RC_OK) {
            return rpc_error(req, RPC_CLIENT_INVALID_IP_OR_SUBNET,
                             "Error: Unban failed. Requested address/subnet was not previously "
                             "manually banned.");
        }
        return json_null();
    }
    if (c.already_banned) {
        return rpc_error(req, RPC_CLIENT_NODE_ALREADY_ADDED, "Error: IP/Subnet already banned");
    }
    if (!bantime_int) {
        return rpc_error(req, RPC_MISC_ERROR, "JSON integer out of range");
    }
    if (in_past) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Error: Absolute timestamp is in the past");
    }
    return json_null();
}

struct bans_call {
    struct net_ban_entry *v;
    size_t n;
    int64_t now; /* the node's clock (setmocktime moves it, as Core's GetTime) */
};

static void bans_fn(struct net *n, void *arg)
{
    struct bans_call *c = arg;
    net_list_banned(n, &c->v, &c->n);
    c->now = net_time_now(n);
}

/* Core's banmap_t order (CSubNet's operator<): network class, address bytes, mask. */
static int by_subnet(const void *a, const void *b)
{
    const struct net_subnet *x = &((const struct net_ban_entry *)a)->subnet;
    const struct net_subnet *y = &((const struct net_ban_entry *)b)->subnet;
    if (x->base.net != y->base.net) {
        return x->base.net < y->base.net ? -1 : 1;
    }
    size_t len = x->base.len < y->base.len ? x->base.len : y->base.len;
    int d = memcmp(x->base.addr, y->base.addr, len);
    if (d != 0) {
        return d;
    }
    if (x->base.len != y->base.len) {
        return x->base.len < y->base.len ? -1 : 1;
    }
    return memcmp(x->mask, y->mask, sizeof(x->mask));
}

static json_t *rpc_listbanned(struct rpc_request *req)
{
    struct bans_call c = {0};
    if (ask_net(req, bans_fn, &c) != 0) {
        return NULL;
    }
    if (c.n > 1) {
        qsort(c.v, c.n, sizeof(*c.v), by_subnet);
    }
    int64_t now = c.now;
    json_t *r = json_array();
    for (size_t i = 0; i < c.n; i++) {
        char s[NET_ADDR_STR_LEN];
        net_subnet_format(&c.v[i].subnet, s);
        json_t *o = json_object();
        json_object_set_new(o, "address", json_string(s));
        json_object_set_new(o, "ban_created", json_integer(c.v[i].created));
        json_object_set_new(o, "banned_until", json_integer(c.v[i].until));
        json_object_set_new(o, "ban_duration", json_integer(c.v[i].until - c.v[i].created));
        json_object_set_new(o, "time_remaining", json_integer(c.v[i].until - now));
        json_array_append_new(r, o);
    }
    free(c.v);
    return r;
}

static void clearbanned_fn(struct net *n, void *arg)
{
    (void)arg;
    net_clear_banned(n);
}

static json_t *rpc_clearbanned(struct rpc_request *req)
{
    if (ask_net(req, clearbanned_fn, NULL) != 0) {
        return NULL;
    }
    return json_null();
}

/* ---- setnetworkactive ------------------------------------------------------------------ */

struct active_call {
    int state;
};

static void active_fn(struct net *n, void *arg)
{
    struct active_call *c = arg;
    net_set_active(n, c->state);
    c->state = net_is_active(n);
}

static json_t *rpc_setnetworkactive(struct rpc_request *req)
{
    struct active_call c = {.state = json_is_true(rpc_param(req, 0))};
    if (ask_net(req, active_fn, &c) != 0) {
        return NULL;
    }
    return json_boolean(c.state);
}

/* ---- getnodeaddresses, getaddrmaninfo -------------------------------------------------- */

struct addrs_call {
    int network; /* -1: all */
    struct net_known_addr *v;
    size_t n;
};

static void addrs_fn(struct net *n, void *arg)
{
    struct addrs_call *c = arg;
    net_node_addresses(n, c->network, 0, &c->v, &c->n);
}

/* Core's ParseNetwork (case-insensitive); -1 for a name it does not know. */
static int parse_network(const char *s)
{
    for (int net = NETWORK_IPV4; net < NETWORK_COUNT; net++) {
        if (strcasecmp(s, net_network_name(net)) == 0) {
            return net;
        }
    }
    return -1;
}

static uint64_t random_below(uint64_t n)
{
    uint64_t x;
    random_bytes((uint8_t *)&x, sizeof(x));
    return x % n;
}

static json_t *rpc_getnodeaddresses(struct rpc_request *req)
{
    if (need_net(req) != 0) {
        return NULL;
    }
    int64_t count = rpc_arg_int(req, 0);
    if (count < 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Address count out of range");
    }
    struct addrs_call c = {.network = -1};
    json_t *network = rpc_param(req, 1);
    if (network) {
        c.network = parse_network(json_string_value(network));
        if (c.network < 0) {
            return rpc_error(req, RPC_INVALID_PARAMETER, "Network not recognized: %s",
                             json_string_value(network));
        }
    }
    if (ask_net(req, addrs_fn, &c) != 0) {
        return NULL;
    }
    /* Core answers a random selection: shuffle the whole list, then take count. */
    for (size_t i = c.n; i > 1; i--) {
        size_t j = (size_t)random_below(i);
        struct net_known_addr t = c.v[i - 1];
        c.v[i - 1] = c.v[j];
        c.v[j] = t;
    }
    size_t take = count == 0 || (uint64_t)count > c.n ? c.n : (size_t)count;
    json_t *r = json_array();
    for (size_t i = 0; i < take; i++) {
        const struct net_known_addr *a = &c.v[i];
        char host[NET_ADDR_STR_LEN];
        net_addr_format(&a->addr, 0, host);
        json_t *o = json_object();
        json_object_set_new(o, "time", json_integer(a->time));
        json_object_set_new(o, "services", json_integer((json_int_t)a->services));
        json_object_set_new(o, "address", json_string(host));
        json_object_set_new(o, "port", json_integer(a->addr.port));
        json_object_set_new(o, "network",
                            json_string(net_network_name(net_addr_network(&a->addr))));
        json_array_append_new(r, o);
    }
    free(c.v);
    return r;
}

struct addrman_call {
    size_t n_new[NETWORK_COUNT + 1], n_tried[NETWORK_COUNT + 1]; /* [NETWORK_COUNT]: all */
};

static void addrman_fn(struct net *n, void *arg)
{
    struct addrman_call *c = arg;
    for (int net = NETWORK_IPV4; net < NETWORK_COUNT; net++) {
        net_addrman_counts(n, net, &c->n_new[net], &c->n_tried[net]);
    }
    net_addrman_counts(n, -1, &c->n_new[NETWORK_COUNT], &c->n_tried[NETWORK_COUNT]);
}

static json_t *addrman_counts(size_t n_new, size_t n_tried)
{
    return json_pack("{s:I,s:I,s:I}", "new", (json_int_t)n_new, "tried", (json_int_t)n_tried,
                     "total", (json_int_t)(n_new + n_tried));
}

static json_t *rpc_getaddrmaninfo(struct rpc_request *req)
{
    struct addrman_call c;
    memset(&c, 0, sizeof(c));
    if (ask_net(req, addrman_fn, &c) != 0) {
        return NULL;
    }
    json_t *r = json_object();
    for (int net = NETWORK_IPV4; net < NETWORK_COUNT; net++) {
        json_object_set_new(r, net_network_name(net), addrman_counts(c.n_new[net], c.n_tried[net]));
    }
    json_object_set_new(r, "all_networks",
                        addrman_counts(c.n_new[NETWORK_COUNT], c.n_tried[NETWORK_COUNT]));
    return r;
}

/* ---- getblockfrompeer ------------------------------------------------------------------ */

struct fetch_call {
    int64_t peer_id;
    const uint8_t *hash;
    int rc;
    char err[256];
};

static void fetch_fn(struct net *n, void *arg)
{
    struct fetch_call *c = arg;
    c->rc = net_fetch_block(n, c->peer_id, c->hash, c->err, sizeof(c->err));
}

static json_t *rpc_getblockfrompeer(struct rpc_request *req)
{
    if (need_net(req) != 0) {
        return NULL;
    }
    struct fetch_call c = {.peer_id = rpc_arg_int(req, 1), .hash = rpc_arg_hash(req, 0)};
    struct chainstate *cs = req->ctx->node->cs;
    if (cs) {
        /* The lock is let go before net_call: the net thread takes it itself. */
        chainstate_read_lock(cs);
        struct block_index *e = block_tree_find(chainstate_tree(cs), c.hash);
        uint32_t status = e ? e->status : 0;
        struct block_index *tip = chainstate_tip(cs);
        int above_tip = e && (!tip || e->height > tip->height);
        struct chainstate_prune_info pi;
        chainstate_prune_info(cs, &pi);
        chainstate_read_unlock(cs);
        if (!e) {
            return rpc_error(req, RPC_MISC_ERROR, "Block header missing");
        }
        /* A pruned node could prune a block above its tip before it connects it (Core). */
        if (pi.prune_mode && above_tip) {
            return rpc_error(req, RPC_MISC_ERROR,
                             "In prune mode, only blocks that the node has already synced "
                             "previously can be fetched from a peer");
        }
        if (status & BLOCK_HAVE_DATA) {
            return rpc_error(req, RPC_MISC_ERROR, "Block already downloaded");
        }
    }
    if (ask_net(req, fetch_fn, &c) != 0) {
        return NULL;
    }
    if (c.rc != RC_OK) {
        const char *why = c.err[0]               ? c.err
                          : c.rc == RC_NOT_FOUND ? "Peer does not exist"
                                                 : rc_str(c.rc);
        return rpc_error(req, RPC_MISC_ERROR, "%s", why);
    }
    return json_object();
}

/* ---- declarations ---------------------------------------------------------------------- */

static const struct rpc_result result_none[] = {{.type = RPC_RES_NONE, .description = ""}};

#define NETWORK_NAMES "ipv4, ipv6, onion, i2p, cjdns"

/* Core's NET_PERMISSIONS_DOC, CONNECTION_TYPE_DOC and TRANSPORT_TYPE_DOC, joined as its
 * getpeerinfo joins them. */
#define PERMISSIONS_DOC                                                                            \
    "bloomfilter (allow requesting BIP37 filtered blocks and transactions),\n"                     \
    "noban (do not ban for misbehavior; implies download),\n"                                      \
    "forcerelay (relay transactions that are already in the mempool; implies relay),\n"            \
    "relay (relay even in -blocksonly mode, and unlimited transaction announcements),\n"           \
    "mempool (allow requesting BIP35 mempool contents),\n"                                         \
    "download (allow getheaders during IBD, no disconnect after maxuploadtarget limit),\n"         \
    "addr (responses to GETADDR avoid hitting the cache and contain random records with the "      \
    "most up-to-date info).\n"
#define CONNECTION_TYPE_DOC                                                                        \
    "Type of connection: \n"                                                                       \
    "outbound-full-relay (default automatic connections),\n"                                       \
    "block-relay-only (does not relay transactions or addresses),\n"                               \
    "inbound (initiated by the peer),\n"                                                           \
    "manual (added via addnode RPC or -addnode/-connect configuration options),\n"                 \
    "addr-fetch (short-lived automatic connection for soliciting addresses),\n"                    \
    "feeler (short-lived automatic connection for testing addresses),\n"                           \
    "private-broadcast (short-lived automatic connection for broadcasting privacy-sensitive "      \
    "transactions).\n"                                                                             \
    "Please note this output is unlikely to be stable in upcoming releases as we iterate to\n"     \
    "best capture connection behaviors."
#define TRANSPORT_TYPE_DOC                                                                         \
    "Type of transport protocol: \n"                                                               \
    "detecting (peer could be v1 or v2),\n"                                                        \
    "v1 (plaintext transport protocol),\n"                                                         \
    "v2 (BIP324 encrypted transport protocol).\n"

#define RES(t, k, d)                                                                               \
    {                                                                                              \
        .type = t, .key = k, .description = d                                                      \
    }
#define RES_OPT(t, k, d)                                                                           \
    {                                                                                              \
        .type = t, .key = k, .optional = true, .description = d                                    \
    }

static const struct rpc_result peer_fields[] = {
    RES(RPC_RES_NUM, "id", "Peer index"),
    RES(RPC_RES_STR, "addr",
        "(host:port) The IP address/hostname optionally followed by :port of the peer"),
    RES_OPT(RPC_RES_STR, "addrbind", "(ip:port) Bind address of the connection to the peer"),
    RES_OPT(RPC_RES_STR, "addrlocal", "(ip:port) Local address as reported by the peer"),
    RES(RPC_RES_STR, "network", "Network (" NETWORK_NAMES ", not_publicly_routable)"),
    RES_OPT(RPC_RES_NUM, "mapped_as",
            "Mapped AS (Autonomous System) number at the end of the BGP route to the peer, used "
            "for diversifying\n"
            "peer selection (only displayed if the -asmap config option is set)"),
    RES(RPC_RES_STR_HEX, "services", "The services offered"),
    {.type = RPC_RES_ARR,
     .key = "servicesnames",
     .description = "the services offered, in human-readable form",
     .inner = RPC_LIST(struct rpc_result,
                       RES(RPC_RES_STR, "SERVICE_NAME", "the service name if it is recognised"))},
    RES(RPC_RES_BOOL, "relaytxes", "Whether we relay transactions to this peer"),
    RES(RPC_RES_NUM, "last_inv_sequence", "Mempool sequence number of this peer's last INV"),
    RES(RPC_RES_NUM, "inv_to_send", "How many txs we have queued to announce to this peer"),
    RES(RPC_RES_NUM_TIME, "lastsend", "The UNIX epoch time of the last send"),
    RES(RPC_RES_NUM_TIME, "lastrecv", "The UNIX epoch time of the last receive"),
    RES(RPC_RES_NUM_TIME, "last_transaction",
        "The UNIX epoch time of the last valid transaction received from this peer"),
    RES(RPC_RES_NUM_TIME, "last_block",
        "The UNIX epoch time of the last block received from this peer"),
    RES(RPC_RES_NUM, "bytessent", "The total bytes sent"),
    RES(RPC_RES_NUM, "bytesrecv", "The total bytes received"),
    RES(RPC_RES_NUM_TIME, "conntime", "The UNIX epoch time of the connection"),
    RES(RPC_RES_NUM, "timeoffset", "The time offset in seconds"),
    RES_OPT(RPC_RES_NUM, "pingtime", "The last ping time in seconds, if any"),
    RES_OPT(RPC_RES_NUM, "minping", "The minimum observed ping time in seconds, if any"),
    RES_OPT(RPC_RES_NUM, "pingwait",
            "The duration in seconds of an outstanding ping (if non-zero)"),
    RES(RPC_RES_NUM, "version", "The peer version, such as 70001"),
    RES(RPC_RES_STR, "subver", "The string version"),
    RES(RPC_RES_BOOL, "inbound", "Inbound (true) or Outbound (false)"),
    RES(RPC_RES_BOOL, "bip152_hb_to",
        "Whether we selected peer as (compact blocks) high-bandwidth peer"),
    RES(RPC_RES_BOOL, "bip152_hb_from",
        "Whether peer selected us as (compact blocks) high-bandwidth peer"),
    RES(RPC_RES_NUM, "presynced_headers",
        "The current height of header pre-synchronization with this peer, or -1 if no low-work "
        "sync is in progress"),
    RES(RPC_RES_NUM, "synced_headers", "The last header we have in common with this peer"),
    RES(RPC_RES_NUM, "synced_blocks", "The last block we have in common with this peer"),
    {.type = RPC_RES_ARR,
     .key = "inflight",
     .description = "",
     .inner = RPC_LIST(
         struct rpc_result,
         RES(RPC_RES_NUM, "n", "The heights of blocks we're currently asking from this peer"))},
    RES(RPC_RES_BOOL, "addr_relay_enabled",
        "Whether we participate in address relay with this peer"),
    RES(RPC_RES_NUM, "addr_processed",
        "The total number of addresses processed, excluding those dropped due to rate "
        "limiting"),
    RES(RPC_RES_NUM, "addr_rate_limited",
        "The total number of addresses dropped due to rate limiting"),
    {.type = RPC_RES_ARR,
     .key = "permissions",
     .description = "Any special permissions that have been granted to this peer",
     .inner = RPC_LIST(struct rpc_result, RES(RPC_RES_STR, "permission_type", PERMISSIONS_DOC))},
    RES(RPC_RES_NUM, "minfeefilter", "The minimum fee rate for transactions this peer accepts"),
    {.type = RPC_RES_OBJ_DYN,
     .key = "bytessent_per_msg",
     .description = "",
     .inner = RPC_LIST(struct rpc_result,
                       RES(RPC_RES_NUM, "msg",
                           "The total bytes sent aggregated by message type\n"
                           "When a message type is not listed in this json object, the bytes "
                           "sent are 0.\n"
                           "Only known message types can appear as keys in the object."))},
    {.type = RPC_RES_OBJ_DYN,
     .key = "bytesrecv_per_msg",
     .description = "",
     .inner = RPC_LIST(struct rpc_result,
                       RES(RPC_RES_NUM, "msg",
                           "The total bytes received aggregated by message type\n"
                           "When a message type is not listed in this json object, the bytes "
                           "received are 0.\n"
                           "Only known message types can appear as keys in the object and all "
                           "bytes received\n"
                           "of unknown message types are listed under '*other*'."))},
    RES(RPC_RES_STR, "connection_type", CONNECTION_TYPE_DOC),
    RES(RPC_RES_STR, "transport_protocol_type", TRANSPORT_TYPE_DOC),
    RES(RPC_RES_STR, "session_id",
        "The session ID for this connection, or \"\" if there is none (\"v2\" transport "
        "protocol only).\n"),
};

static const struct rpc_result inv_bucket_fields[] = {
    RES(RPC_RES_NUM, "backlog", "number of queued txs to announce"),
    RES(RPC_RES_NUM, "count_tok", "tokens available to be consumed per-transaction"),
    RES(RPC_RES_NUM, "size_tok", "tokens available to be consumed per-byte"),
};

static const struct rpc_result network_fields[] = {
    RES(RPC_RES_STR, "name", "network (" NETWORK_NAMES ")"),
    RES(RPC_RES_BOOL, "limited", "is the network limited using -onlynet?"),
    RES(RPC_RES_BOOL, "reachable", "is the network reachable?"),
    RES(RPC_RES_STR, "proxy",
        "(\"host:port\") the proxy that is used for this network, or empty if none"),
    RES(RPC_RES_BOOL, "proxy_randomize_credentials", "Whether randomized credentials are used"),
};

static const struct rpc_result networkinfo_fields[] = {
    RES(RPC_RES_NUM, "version", "the server version"),
    RES(RPC_RES_STR, "subversion", "the server subversion string"),
    RES(RPC_RES_NUM, "protocolversion", "the protocol version"),
    RES(RPC_RES_STR_HEX, "localservices", "the services we offer to the network"),
    {.type = RPC_RES_ARR,
     .key = "localservicesnames",
     .description = "the services we offer to the network, in human-readable form",
     .inner = RPC_LIST(struct rpc_result, RES(RPC_RES_STR, "SERVICE_NAME", "the service name"))},
    RES(RPC_RES_BOOL, "localrelay", "true if transaction relay is requested from peers"),
    RES(RPC_RES_NUM, "timeoffset", "the time offset"),
    RES(RPC_RES_NUM, "tx_send_rate",
        "configured target for maximum number of transactions per second to send to inbound "
        "peers"),
    {.type = RPC_RES_OBJ_DYN,
     .key = "inv_buckets",
     .description = "",
     .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ,
                                           .key = "inbound/outbound",
                                           .description = "connection direction",
                                           .inner = RPC_DOC_LIST(inv_bucket_fields)})},
    RES(RPC_RES_NUM, "connections", "the total number of connections"),
    RES(RPC_RES_NUM, "connections_in", "the number of inbound connections"),
    RES(RPC_RES_NUM, "connections_out", "the number of outbound connections"),
    RES(RPC_RES_BOOL, "networkactive", "whether p2p networking is enabled"),
    {.type = RPC_RES_ARR,
     .key = "networks",
     .description = "information per network",
     .inner =
         RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(network_fields)})},
    RES(RPC_RES_NUM, "relayfee", "minimum relay fee rate for transactions in BTC/kvB"),
    RES(RPC_RES_NUM, "incrementalfee",
        "minimum fee rate increment for mempool limiting or replacement in BTC/kvB"),
    {.type = RPC_RES_ARR,
     .key = "localaddresses",
     .description = "list of local addresses",
     .inner = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result, RES(RPC_RES_STR, "address", "network address"),
                            RES(RPC_RES_NUM, "port", "network port"),
                            RES(RPC_RES_NUM, "score", "relative score"))})},
    {.type = RPC_RES_ARR,
     .key = "warnings",
     .description = "any network and blockchain warnings (run with `-deprecatedrpc=warnings` to "
                    "return the latest warning as a single string)",
     .inner = RPC_LIST(struct rpc_result, {.type = RPC_RES_STR, .description = "warning"})},
};

static const struct rpc_result nettotals_fields[] = {
    RES(RPC_RES_NUM, "totalbytesrecv", "Total bytes received"),
    RES(RPC_RES_NUM, "totalbytessent", "Total bytes sent"),
    RES(RPC_RES_NUM_TIME, "timemillis", "Current system UNIX epoch time in milliseconds"),
    {.type = RPC_RES_OBJ,
     .key = "uploadtarget",
     .description = "",
     .inner =
         RPC_LIST(struct rpc_result,
                  RES(RPC_RES_NUM, "timeframe", "Length of the measuring timeframe in seconds"),
                  RES(RPC_RES_NUM, "target", "Target in bytes"),
                  RES(RPC_RES_BOOL, "target_reached", "True if target is reached"),
                  RES(RPC_RES_BOOL, "serve_historical_blocks", "True if serving historical blocks"),
                  RES(RPC_RES_NUM, "bytes_left_in_cycle", "Bytes left in current time cycle"),
                  RES(RPC_RES_NUM, "time_left_in_cycle", "Seconds left in current time cycle"))},
};

static const struct rpc_result addednode_fields[] = {
    RES(RPC_RES_STR, "addednode", "The node IP address or name (as provided to addnode)"),
    RES(RPC_RES_BOOL, "connected", "If connected"),
    {.type = RPC_RES_ARR,
     .key = "addresses",
     .description = "Only when connected = true",
     .inner = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              RES(RPC_RES_STR, "address", "The bitcoin server IP and port we're connected to"),
              RES(RPC_RES_STR, "connected", "connection, inbound or outbound"))})},
};

static const struct rpc_result banned_fields[] = {
    RES(RPC_RES_STR, "address", "The IP/Subnet of the banned node"),
    RES(RPC_RES_NUM_TIME, "ban_created", "The UNIX epoch time the ban was created"),
    RES(RPC_RES_NUM_TIME, "banned_until", "The UNIX epoch time the ban expires"),
    RES(RPC_RES_NUM_TIME, "ban_duration", "The ban duration, in seconds"),
    RES(RPC_RES_NUM_TIME, "time_remaining", "The time remaining until the ban expires, in seconds"),
};

static const struct rpc_result nodeaddress_fields[] = {
    RES(RPC_RES_NUM_TIME, "time", "The UNIX epoch time when the node was last seen"),
    RES(RPC_RES_NUM, "services", "The services offered by the node"),
    RES(RPC_RES_STR, "address", "The address of the node"),
    RES(RPC_RES_NUM, "port", "The port number of the node"),
    RES(RPC_RES_STR, "network", "The network (" NETWORK_NAMES ") the node connected through"),
};

static const struct rpc_result addrman_fields[] = {
    RES(RPC_RES_NUM, "new",
        "number of addresses in the new table, which represent potential peers the node has "
        "discovered but hasn't yet successfully connected to."),
    RES(RPC_RES_NUM, "tried",
        "number of addresses in the tried table, which represent peers the node has "
        "successfully connected to in the past."),
    RES(RPC_RES_NUM, "total", "total number of addresses in both new/tried tables"),
};

static const struct rpc_method methods[] = {
    {.category = "network",
     .name = "getconnectioncount",
     .handler = rpc_getconnectioncount,
     .description = "Returns the number of connections to other nodes.\n",
     .results =
         RPC_LIST(struct rpc_result, {.type = RPC_RES_NUM, .description = "The connection count"}),
     .examples = RPC_EXAMPLES("getconnectioncount", "", "")},
    {.category = "network",
     .name = "ping",
     .handler = rpc_ping,
     .description = "Requests that a ping be sent to all other nodes, to measure ping time.\n"
                    "Results are provided in getpeerinfo.\n"
                    "Ping command is handled in queue with all other commands, so it measures "
                    "processing backlog, not just network ping.\n",
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLES("ping", "", "")},
    {.category = "network",
     .name = "getpeerinfo",
     .handler = rpc_getpeerinfo,
     .description = "Returns data about each connected network peer as a json array of objects.",
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_ARR,
                   .inner = RPC_LIST(struct rpc_result,
                                     {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(peer_fields)})}),
     .examples = RPC_EXAMPLES("getpeerinfo", "", "")},
    {.category = "network",
     .name = "addnode",
     .handler = rpc_addnode,
     .description =
         "Attempts to add or remove a node from the addnode list.\n"
         "Or try a connection to a node once.\n"
         "Nodes added using addnode (or -connect) are protected from DoS disconnection and are "
         "not required to be\n"
         "full nodes/support SegWit as other outbound peers are (though such peers will not be "
         "synced from).\n"
         "Addnode connections are limited to 8 at a time and are counted separately from the "
         "-maxconnections limit.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "node",
                       .type = RPC_ARG_STR,
                       .description = "The IP address/hostname optionally followed by :port of "
                                      "the peer to connect to"},
                      {.names = "command",
                       .type = RPC_ARG_STR,
                       .description = "'add' to add a node to the list, 'remove' to remove a "
                                      "node from the list, 'onetry' to try a connection to the "
                                      "node once"},
                      {.names = "v2transport",
                       .type = RPC_ARG_BOOL,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "set by -v2transport",
                       .description = "Attempt to connect using BIP324 v2 transport protocol "
                                      "(ignored for 'remove' command)"}),
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLE_CLI("addnode", "\"192.168.0.6:8333\" \"onetry\" true")
         RPC_EXAMPLE_RPC("addnode", "\"192.168.0.6:8333\", \"onetry\" true")},
    {.category = "network",
     .name = "disconnectnode",
     .handler = rpc_disconnectnode,
     .description = "Immediately disconnects from the specified peer node.\n"
                    "\nStrictly one out of 'address' and 'nodeid' can be provided to identify "
                    "the node.\n"
                    "\nTo disconnect by nodeid, either set 'address' to the empty string, or "
                    "call using the named 'nodeid' argument only.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "address",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "fallback to nodeid",
                       .description = "The IP address/port of the node"},
                      {.names = "nodeid",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "fallback to address",
                       .description = "The node ID (see getpeerinfo for node IDs)",
                       .conv = RPC_CONV_INT64}),
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLE_CLI("disconnectnode", "\"192.168.0.6:8333\"") RPC_EXAMPLE_CLI(
         "disconnectnode", "\"\" 1") RPC_EXAMPLE_RPC("disconnectnode", "\"192.168.0.6:8333\"")
         RPC_EXAMPLE_RPC("disconnectnode", "\"\", 1")},
    {.category = "network",
     .name = "getaddednodeinfo",
     .handler = rpc_getaddednodeinfo,
     .description = "Returns information about the given added node, or all added nodes\n"
                    "(note that onetry addnodes are not listed here)\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "node",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "all nodes",
                       .description = "If provided, return information about this specific "
                                      "node, otherwise all nodes are returned."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(addednode_fields)})}),
     .examples = RPC_EXAMPLES("getaddednodeinfo", "\"192.168.0.201\"", "\"192.168.0.201\"")},
    {.category = "network",
     .name = "getnettotals",
     .handler = rpc_getnettotals,
     .description = "Returns information about network traffic, including bytes in, bytes out,\n"
                    "and current system time.",
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(nettotals_fields)}),
     .examples = RPC_EXAMPLES("getnettotals", "", "")},
    {.category = "network",
     .name = "getnetworkinfo",
     .handler = rpc_getnetworkinfo,
     .description = "Returns an object containing various state info regarding P2P networking.\n",
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(networkinfo_fields)}),
     .examples = RPC_EXAMPLES("getnetworkinfo", "", "")},
    {.category = "network",
     .name = "setban",
     .handler = rpc_setban,
     .description = "Attempts to add or remove an IP/Subnet from the banned list.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "subnet",
          .type = RPC_ARG_STR,
          .description = "The IP/Subnet (see getpeerinfo for nodes IP) with an optional netmask "
                         "(default is /32 = single IP)"},
         {.names = "command",
          .type = RPC_ARG_STR,
          .description = "'add' to add an IP/Subnet to the list, 'remove' to remove an "
                         "IP/Subnet from the list"},
         {.names = "bantime",
          .type = RPC_ARG_NUM,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "0",
          .description = "time in seconds how long (or until when if [absolute] is set) the IP "
                         "is banned (0 or empty means using the default time of 24h which can "
                         "also be overwritten by the -bantime startup argument)"},
         {.names = "absolute",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "false",
          .description = "If set, the bantime must be an absolute timestamp expressed in UNIX "
                         "epoch time"}),
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLE_CLI("setban", "\"192.168.0.6\" \"add\" 86400")
         RPC_EXAMPLE_CLI("setban", "\"192.168.0.0/24\" \"add\"")
             RPC_EXAMPLE_RPC("setban", "\"192.168.0.6\", \"add\", 86400")},
    {.category = "network",
     .name = "listbanned",
     .handler = rpc_listbanned,
     .description = "List all manually banned IPs/Subnets.\n",
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_ARR,
                   .inner = RPC_LIST(struct rpc_result,
                                     {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(banned_fields)})}),
     .examples = RPC_EXAMPLES("listbanned", "", "")},
    {.category = "network",
     .name = "clearbanned",
     .handler = rpc_clearbanned,
     .description = "Clear all banned IPs.\n",
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLES("clearbanned", "", "")},
    {.category = "network",
     .name = "setnetworkactive",
     .handler = rpc_setnetworkactive,
     .description = "Disable/enable all p2p network activity.\n",
     .args =
         RPC_LIST(struct rpc_arg, {.names = "state",
                                   .type = RPC_ARG_BOOL,
                                   .description = "true to enable networking, false to disable"}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_BOOL, .description = "The value that was passed in"})},
    {.category = "network",
     .name = "getnodeaddresses",
     .handler = rpc_getnodeaddresses,
     .description = "Return known addresses, after filtering for quality and recency.\n"
                    "These can potentially be used to find new peers in the network.\n"
                    "The total number of addresses known to the node may be higher.",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "count",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "1",
                       .description = "The maximum number of addresses to return. Specify 0 to "
                                      "return all known addresses.",
                       .conv = RPC_CONV_INT},
                      {.names = "network",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "all networks",
                       .description = "Return only addresses of the specified network. Can be "
                                      "one of: " NETWORK_NAMES "."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(nodeaddress_fields)})}),
     .examples =
         RPC_EXAMPLE_CLI("getnodeaddresses", "8") RPC_EXAMPLE_CLI("getnodeaddresses", "4 \"i2p\"")
             RPC_EXAMPLE_CLI("-named getnodeaddresses", "network=onion count=12") RPC_EXAMPLE_RPC(
                 "getnodeaddresses", "8") RPC_EXAMPLE_RPC("getnodeaddresses", "4, \"i2p\"")},
    {.category = "network",
     .name = "getaddrmaninfo",
     .handler = rpc_getaddrmaninfo,
     .description = "Provides information about the node's address manager by returning the "
                    "number of addresses in the `new` and `tried` tables and their sum for all "
                    "networks.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ_DYN,
          .description = "json object with network type as keys",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ,
                             .key = "network",
                             .description = "the network (" NETWORK_NAMES ", all_networks)",
                             .inner = RPC_DOC_LIST(addrman_fields)})}),
     .examples = RPC_EXAMPLES("getaddrmaninfo", "", "")},
    /* Core lists it under blockchain (rpc/blockchain.cpp); it asks a peer. */
    {.category = "blockchain",
     .name = "getblockfrompeer",
     .handler = rpc_getblockfrompeer,
     .description =
         "Attempt to fetch block from a given peer.\n\n"
         "We must have the header for this block, e.g. using submitheader.\n"
         "The block will not have any undo data which can limit the usage of the block data in "
         "a context where the undo data is needed.\n"
         "Subsequent calls for the same block may cause the response from the previous peer to "
         "be ignored.\n"
         "Peers generally ignore requests for a stale block that they never fully verified, or "
         "one that is more than a month old.\n"
         "When a peer does not respond with a block, we will disconnect.\n"
         "Note: The block could be re-pruned as soon as it is received.\n\n"
         "Returns an empty JSON object if the request was successfully scheduled.",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "blockhash",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The block hash to try to fetch",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "blockhash"},
                      {.names = "peer_id",
                       .type = RPC_ARG_NUM,
                       .description = "The peer to fetch it from (see getpeerinfo for peer IDs)",
                       .conv = RPC_CONV_INT64}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ, .description = ""}),
     .examples =
         RPC_EXAMPLES("getblockfrompeer",
                      "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\" 0",
                      "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\" 0")},
};

void rpc_net_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}


