/* The hidden P2P RPC methods of Bitcoin Core's functional tests (rpc/net.cpp's addconnection,
 * addpeeraddress, sendmsgtopeer and getrawaddrman; rpc/mempool.cpp's getorphantxs), with
 * Core's arguments, results, errors and messages. Each gathers what it needs in one
 * net_call (rpc_net_ask) and builds its JSON on the RPC thread.
 */
#include "rpc/net_hidden.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/addrman.h"
#include "net/net.h"
#include "net/netaddr.h"
#include "net/protocol.h"
#include "primitives/tx.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/net.h"
#include "rpc/protocol.h"
#include "rpc/resultdoc.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Core's CMessageHeader::MESSAGE_TYPE_SIZE. */
#define MESSAGE_TYPE_SIZE 12

/* ---- addconnection --------------------------------------------------------------------- */

struct addconn_call {
    const char *address;
    int conn_type;
    int use_v2;
    int v2_refused;
    int rc;
};

static void addconn_fn(struct net *n, void *arg)
{
    struct addconn_call *c = arg;
    /* Core reads the local services when it checks, so -v2transport's bit decides. */
    if (c->use_v2 && !(net_local_services(n) & NODE_P2P_V2)) {
        c->v2_refused = 1;
        return;
    }
    c->rc = net_add_connection(n, c->address, c->conn_type, c->use_v2);
}

/* Core's TrimStringView: the whitespace " \f\n\r\t\v" off both ends, into out. */
static void trim(const char *s, char *out, size_t out_len)
{
    static const char ws[] = " \f\n\r\t\v";
    size_t len = strlen(s), a = 0;
    while (a < len && strchr(ws, s[a])) {
        a++;
    }
    while (len > a && strchr(ws, s[len - 1])) {
        len--;
    }
    size_t n = len - a < out_len - 1 ? len - a : out_len - 1;
    memcpy(out, s + a, n);
    out[n] = 0;
}

static json_t *rpc_addconnection(struct rpc_request *req)
{
    if (req->ctx->node->params->id != CHAIN_REGTEST) {
        return rpc_error(req, RPC_MISC_ERROR,
                         "addconnection is for regression testing (-regtest mode) only.");
    }
    const char *address = json_string_value(rpc_param(req, 0));
    char type[32];
    trim(json_string_value(rpc_param(req, 1)), type, sizeof(type));
    struct addconn_call c = {.address = address, .use_v2 = json_is_true(rpc_param(req, 2))};
    if (strcmp(type, "outbound-full-relay") == 0) {
        c.conn_type = CONN_OUTBOUND_FULL_RELAY;
    } else if (strcmp(type, "block-relay-only") == 0) {
        c.conn_type = CONN_BLOCK_RELAY;
    } else if (strcmp(type, "addr-fetch") == 0) {
        c.conn_type = CONN_ADDR_FETCH;
    } else if (strcmp(type, "feeler") == 0) {
        c.conn_type = CONN_FEELER;
    } else {
        /* Core answers an unknown type with the method's help. */
        char *help = rpc_method_help(rpc_find(req->ctx, req->method));
        rpc_error(req, RPC_INVALID_PARAMETER, "%s", help);
        free(help);
        return NULL;
    }
    if (rpc_net_ask(req, addconn_fn, &c) != 0) {
        return NULL;
    }
    if (c.v2_refused) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Error: Adding v2transport connections requires -v2transport init "
                         "flag to be set.");
    }
    if (c.rc != RC_OK) {
        return rpc_error(req, RPC_CLIENT_NODE_CAPACITY_REACHED,
                         "Error: Already at capacity for specified connection type.");
    }
    return json_pack("{s:s,s:s}", "address", address, "connection_type", type);
}

/* ---- addpeeraddress -------------------------------------------------------------------- */

struct addpeer_call {
    struct net_addr addr;
    int tried;
    int added, made_tried;
};

static void addpeer_fn(struct net *n, void *arg)
{
    struct addpeer_call *c = arg;
    net_add_peer_address(n, &c->added, &c->made_tried, &c->addr, c->tried);
}

/* Core's LookupHost(name, false): a numeric IPv4 or IPv6 address (IPv6 may be in brackets),
 * no port, no name lookup, no NUL inside. 1 with *out. */
static int parse_host(const json_t *v, struct net_addr *out)
{
    const char *s = json_string_value(v);
    if (strlen(s) != json_string_length(v)) {
        return 0;
    }
    /* With default port 0 a port written out shows: the parser refuses port 0 itself. */
    return net_addr_parse(s, 0, 0, out, NULL, 0) == RC_OK && out->port == 0;
}

/* Core's EnsureAnyAddrman: the address manager is the P2P service's here. */
static int need_addrman(struct rpc_request *req)
{
    if (!req->ctx->node->net) {
        rpc_error(req, RPC_CLIENT_P2P_DISABLED,
                  "Error: Address manager functionality missing or disabled");
        return -1;
    }
    return 0;
}

static json_t *rpc_addpeeraddress(struct rpc_request *req)
{
    if (need_addrman(req) != 0) {
        return NULL;
    }
    struct addpeer_call c = {.tried = json_is_true(rpc_param(req, 2))};
    int64_t port;
    if (rpc_value_int(req, rpc_param(req, 1), 0, 65535, &port) != 0) {
        return NULL;
    }
    if (!parse_host(rpc_param(req, 0), &c.addr)) {
        return rpc_error(req, RPC_CLIENT_INVALID_IP_OR_SUBNET, "Invalid IP address");
    }
    c.addr.port = (uint16_t)port;
    if (rpc_net_ask(req, addpeer_fn, &c) != 0) {
        return NULL;
    }
    /* Core's key order: the error (when there is one), then success. */
    json_t *r = json_object();
    if (!c.added) {
        json_object_set_new(r, "error", json_string("failed-adding-to-new"));
    } else if (c.tried && !c.made_tried) {
        json_object_set_new(r, "error", json_string("failed-adding-to-tried"));
    }
    json_object_set_new(r, "success", json_boolean(c.added && (!c.tried || c.made_tried)));
    return r;
}

/* ---- sendmsgtopeer --------------------------------------------------------------------- */

struct sendmsg_call {
    int64_t peer_id;
    const char *command;
    const struct buf *payload;
    int rc;
};

static void sendmsg_fn(struct net *n, void *arg)
{
    struct sendmsg_call *c = arg;
    c->rc = net_send_message(n, c->peer_id, c->command, c->payload);
}

static json_t *rpc_sendmsgtopeer(struct rpc_request *req)
{
    struct sendmsg_call c = {.peer_id = rpc_arg_int(req, 0)};
    const json_t *type = rpc_param(req, 1);
    if (json_string_length(type) > MESSAGE_TYPE_SIZE) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Error: msg_type too long, max length is %d",
                         MESSAGE_TYPE_SIZE);
    }
    c.command = json_string_value(type);
    struct buf payload;
    buf_init(&payload);
    const json_t *msg = rpc_param(req, 2);
    if (strlen(json_string_value(msg)) != json_string_length(msg) ||
        hex_decode(&payload, json_string_value(msg)) != RC_OK) {
        buf_clear(&payload);
        return rpc_error(req, RPC_INVALID_PARAMETER, "Error parsing input for msg");
    }
    c.payload = &payload;
    int asked = rpc_net_ask(req, sendmsg_fn, &c);
    buf_clear(&payload);
    if (asked != 0) {
        return NULL;
    }
    if (c.rc != RC_OK) {
        return rpc_error(req, RPC_MISC_ERROR, "Error: Could not send message to peer");
    }
    return json_object();
}

/* ---- getrawaddrman --------------------------------------------------------------------- */

struct rawaddrman_call {
    struct addrman_info *table[2]; /* [0] new, [1] tried */
    size_t n[2];
};

static void rawaddrman_fn(struct net *n, void *arg)
{
    struct rawaddrman_call *c = arg;
    net_addrman_entries(n, &c->table[0], &c->n[0], 0);
    net_addrman_entries(n, &c->table[1], &c->n[1], 1);
}

/* Core's AddrmanEntryToJSON, without mapped_as and source_mapped_as (no -asmap). A source
 * the address manager does not know (seeds: Core's are names internal to the node) shows
 * as "unknown" on the network "internal". */
static json_t *addrman_entry_json(const struct addrman_info *e)
{
    char host[NET_ADDR_STR_LEN];
    json_t *o = json_object();
    net_addr_format(&e->addr, 0, host);
    json_object_set_new(o, "address", json_string(host));
    json_object_set_new(o, "port", json_integer(e->addr.port));
    json_object_set_new(o, "services", json_integer((json_int_t)e->services));
    json_object_set_new(o, "time", json_integer(e->time));
    json_object_set_new(o, "network", json_string(net_network_name(net_addr_network(&e->addr))));
    int known = e->source.len > 0;
    net_addr_format(&e->source, 0, host);
    json_object_set_new(o, "source", json_string(known ? host : "unknown"));
    json_object_set_new(
        o, "source_network",
        json_string(known ? net_network_name(net_addr_network(&e->source)) : "internal"));
    return o;
}

static json_t *rpc_getrawaddrman(struct rpc_request *req)
{
    if (need_addrman(req) != 0) {
        return NULL;
    }
    struct rawaddrman_call c;
    memset(&c, 0, sizeof(c));
    if (rpc_net_ask(req, rawaddrman_fn, &c) != 0) {
        return NULL;
    }
    json_t *r = json_object();
    static const char *const names[2] = {"new", "tried"};
    for (int t = 0; t < 2; t++) {
        json_t *table = json_object();
        for (size_t i = 0; i < c.n[t]; i++) {
            char key[32];
            snprintf(key, sizeof(key), "%d/%d", c.table[t][i].bucket, c.table[t][i].position);
            json_object_set_new(table, key, addrman_entry_json(&c.table[t][i]));
        }
        json_object_set_new(r, names[t], table);
        free(c.table[t]);
    }
    return r;
}

/* ---- getorphantxs ---------------------------------------------------------------------- */

struct orphans_call {
    struct net_orphan *v;
    size_t n;
};

static void orphans_fn(struct net *n, void *arg)
{
    struct orphans_call *c = arg;
    net_orphans(n, &c->v, &c->n);
}

/* An orphan parsed for the listing, in Core's order: by wtxid (its bytes in memory order). */
struct orphan_view {
    const struct net_orphan *o;
    struct tx tx;
};

static int by_wtxid(const void *a, const void *b)
{
    const struct orphan_view *x = a, *y = b;
    return memcmp(x->tx.wtxid, y->tx.wtxid, 32);
}

static int by_peer(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Core's ParseVerbosity(v, 0, allow_bool = false): 0 with *out, or -1 after rpc_error. */
static int orphan_verbosity(struct rpc_request *req, int64_t *out)
{
    const json_t *v = rpc_param(req, 0);
    *out = 0;
    if (!v) {
        return 0;
    }
    if (json_is_boolean(v)) {
        rpc_error(req, RPC_TYPE_ERROR, "Verbosity was boolean but only integer allowed");
        return -1;
    }
    return rpc_value_int(req, v, INT32_MIN, INT32_MAX, out);
}

/* Core's OrphanToJSON, and the hex at verbosity 2. */
static json_t *orphan_json(struct orphan_view *w, int64_t verbosity)
{
    char h[65];
    json_t *o = json_object();
    hex_encode_rev(h, w->tx.txid, 32);
    json_object_set_new(o, "txid", json_string(h));
    hex_encode_rev(h, w->tx.wtxid, 32);
    json_object_set_new(o, "wtxid", json_string(h));
    json_object_set_new(o, "bytes", json_integer((json_int_t)w->tx.size_total));
    json_object_set_new(o, "vsize", json_integer((json_int_t)tx_vsize(&w->tx)));
    json_object_set_new(o, "vsize_bip141", json_integer((json_int_t)tx_vsize(&w->tx)));
    json_object_set_new(o, "weight", json_integer((json_int_t)tx_weight(&w->tx)));
    int64_t from[NET_ORPHAN_MAX_FROM];
    memcpy(from, w->o->from, w->o->n_from * sizeof(from[0]));
    qsort(from, w->o->n_from, sizeof(from[0]), by_peer);
    json_t *a = json_array();
    for (size_t k = 0; k < w->o->n_from; k++) {
        json_array_append_new(a, json_integer(from[k]));
    }
    json_object_set_new(o, "from", a);
    if (verbosity == 2) {
        char *hex = hex_encode_alloc(w->o->raw, w->o->len);
        json_object_set_new(o, "hex", json_string(hex));
        free(hex);
    }
    return o;
}

static json_t *rpc_getorphantxs(struct rpc_request *req)
{
    struct orphans_call c = {0};
    if (rpc_net_ask(req, orphans_fn, &c) != 0) {
        return NULL;
    }
    int64_t verbosity;
    if (orphan_verbosity(req, &verbosity) != 0) {
        net_orphans_free(c.v, c.n);
        return NULL;
    }
    if (verbosity < 0 || verbosity > 2) {
        net_orphans_free(c.v, c.n);
        return rpc_error(req, RPC_INVALID_PARAMETER, "Invalid verbosity value %lld",
                         (long long)verbosity);
    }
    struct orphan_view *w = xcalloc(c.n ? c.n : 1, sizeof(*w));
    size_t k = 0;
    for (size_t i = 0; i < c.n; i++) {
        /* Every orphan parsed once when it came: it parses again. */
        if (tx_deserialize(&w[k].tx, c.v[i].raw, c.v[i].len, NULL, 0) == RC_OK) {
            w[k++].o = &c.v[i];
        }
    }
    qsort(w, k, sizeof(*w), by_wtxid);
    json_t *r = json_array();
    for (size_t i = 0; i < k; i++) {
        if (verbosity == 0) {
            char h[65];
            hex_encode_rev(h, w[i].tx.txid, 32);
            json_array_append_new(r, json_string(h));
        } else {
            json_array_append_new(r, orphan_json(&w[i], verbosity));
        }
        tx_clear(&w[i].tx);
    }
    free(w);
    net_orphans_free(c.v, c.n);
    return r;
}

/* ---- declarations ---------------------------------------------------------------------- */

#define NETWORK_NAMES "ipv4, ipv6, onion, i2p, cjdns"

#define RES(t, k, d)                                                                               \
    {                                                                                              \
        .type = t, .key = k, .description = d                                                      \
    }
#define RES_OPT(t, k, d)                                                                           \
    {                                                                                              \
        .type = t, .key = k, .optional = true, .description = d                                    \
    }

static const struct rpc_result addrman_entry_fields[] = {
    RES(RPC_RES_STR, "address", "The address of the node"),
    RES_OPT(RPC_RES_NUM, "mapped_as",
            "Mapped AS (Autonomous System) number at the end of the BGP route to the peer, used "
            "for diversifying peer selection (only displayed if the -asmap config option is set)"),
    RES(RPC_RES_NUM, "port", "The port number of the node"),
    RES(RPC_RES_STR, "network", "The network (" NETWORK_NAMES ") of the address"),
    RES(RPC_RES_NUM, "services", "The services offered by the node"),
    RES(RPC_RES_NUM_TIME, "time", "The UNIX epoch time when the node was last seen"),
    RES(RPC_RES_STR, "source", "The address that relayed the address to us"),
    RES(RPC_RES_STR, "source_network", "The network (" NETWORK_NAMES ") of the source address"),
    RES_OPT(RPC_RES_NUM, "source_mapped_as",
            "Mapped AS (Autonomous System) number at the end of the BGP route to the source, "
            "used for diversifying peer selection (only displayed if the -asmap config option "
            "is set)"),
};

/* Core's OrphanDescription. */
#define ORPHAN_FIELDS                                                                              \
    RES(RPC_RES_STR_HEX, "txid", "The transaction hash in hex"),                                   \
        RES(RPC_RES_STR_HEX, "wtxid", "The transaction witness hash in hex"),                      \
        RES(RPC_RES_NUM, "bytes", "The serialized transaction size in bytes"),                     \
        RES(RPC_RES_NUM, "vsize",                                                                  \
            "(DEPRECATED) use vsize_bip141 instead. The virtual transaction size as defined in "   \
            "BIP 141. This is different from actual serialized size for witness transactions "     \
            "as witness data is discounted."),                                                     \
        RES(RPC_RES_NUM, "vsize_bip141",                                                           \
            "The virtual transaction size as defined in BIP 141. This is different from actual "   \
            "serialized size for witness transactions as witness data is discounted."),            \
        RES(RPC_RES_NUM, "weight", "The transaction weight as defined in BIP 141."),               \
    {                                                                                              \
        .type = RPC_RES_ARR, .key = "from", .description = "",                                     \
        .inner = RPC_LIST(struct rpc_result, RES(RPC_RES_NUM, "peer_id", "Peer ID"))               \
    }

static const struct rpc_result orphan_fields[] = {ORPHAN_FIELDS};
static const struct rpc_result orphan_fields_hex[] = {
    ORPHAN_FIELDS, RES(RPC_RES_STR_HEX, "hex", "The serialized, hex-encoded transaction data")};

static const struct rpc_method methods[] = {
    {.category = "hidden",
     .name = "addconnection",
     .handler = rpc_addconnection,
     .description = "Open an outbound connection to a specified node. This RPC is for testing "
                    "only.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "address",
                       .type = RPC_ARG_STR,
                       .description = "The IP address and port to attempt connecting to."},
                      {.names = "connection_type",
                       .type = RPC_ARG_STR,
                       .description = "Type of connection to open (\"outbound-full-relay\", "
                                      "\"block-relay-only\", \"addr-fetch\" or \"feeler\")."},
                      {.names = "v2transport",
                       .type = RPC_ARG_BOOL,
                       .description = "Attempt to connect using BIP324 v2 transport protocol"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            RES(RPC_RES_STR, "address", "Address of newly added connection."),
                            RES(RPC_RES_STR, "connection_type", "Type of connection opened."))}),
     .examples = RPC_EXAMPLES("addconnection", "\"192.168.0.6:8333\" \"outbound-full-relay\" true",
                              "\"192.168.0.6:8333\" \"outbound-full-relay\" true"),
     .flags = RPC_METHOD_HIDDEN},
    {.category = "hidden",
     .name = "addpeeraddress",
     .handler = rpc_addpeeraddress,
     .description = "Add the address of a potential peer to an address manager table. This RPC "
                    "is for testing only.",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "address", .type = RPC_ARG_STR, .description = "The IP address of the peer"},
         {.names = "port", .type = RPC_ARG_NUM, .description = "The port of the peer"},
         {.names = "tried",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "false",
          .description = "If true, attempt to add the peer to the tried addresses "
                         "table"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            RES(RPC_RES_BOOL, "success",
                                "whether the peer address was successfully added to the address "
                                "manager table"),
                            RES_OPT(RPC_RES_STR, "error",
                                    "error description, if the address could not be added"))}),
     .examples = RPC_EXAMPLES("addpeeraddress", "\"1.2.3.4\" 8333 true", "\"1.2.3.4\", 8333, true"),
     .flags = RPC_METHOD_HIDDEN},
    {.category = "hidden",
     .name = "sendmsgtopeer",
     .handler = rpc_sendmsgtopeer,
     .description = "Send a p2p message to a peer specified by id.\n"
                    "The message type and body must be provided, the message header will be "
                    "generated.\n"
                    "This RPC is for testing only.",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "peer_id",
                       .type = RPC_ARG_NUM,
                       .description = "The peer to send the message to.",
                       .conv = RPC_CONV_INT64},
                      {.names = "msg_type",
                       .type = RPC_ARG_STR,
                       .description = "The message type (maximum length 12)"},
                      {.names = "msg",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The serialized message body to send, in hex, without a "
                                      "message header"}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_OBJ, .description = ""}),
     .examples = RPC_EXAMPLES("sendmsgtopeer", "0 \"addr\" \"ffffff\"", "0 \"addr\" \"ffffff\""),
     .flags = RPC_METHOD_HIDDEN},
    {.category = "hidden",
     .name = "getrawaddrman",
     .handler = rpc_getrawaddrman,
     .description = "EXPERIMENTAL warning: this call may be changed in future releases.\n"
                    "\nReturns information on all address manager entries for the new and tried "
                    "tables.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ_DYN,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ_DYN,
               .key = "table",
               .description = "buckets with addresses in the address manager table ( new, tried )",
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_OBJ,
                                  .key = "bucket/position",
                                  .description = "the location in the address manager table "
                                                 "(<bucket>/<position>)",
                                  .inner = RPC_DOC_LIST(addrman_entry_fields)})})}),
     .examples = RPC_EXAMPLES("getrawaddrman", "", ""),
     .flags = RPC_METHOD_HIDDEN},
    {.category = "hidden",
     .name = "getorphantxs",
     .handler = rpc_getorphantxs,
     .description = "Shows transactions in the tx orphanage.\n"
                    "\nEXPERIMENTAL warning: this call may be changed in future releases.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "verbosity",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "0",
                       .description = "0 for an array of txids (may contain duplicates), 1 for an "
                                      "array of objects with tx details, and 2 for details from "
                                      "(1) and tx hex",
                       .skip_type_check = true}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .cond = "for verbose = 0",
          .inner = RPC_LIST(struct rpc_result,
                            RES(RPC_RES_STR_HEX, "txid", "The transaction hash in hex"))},
         {.type = RPC_RES_ARR,
          .cond = "for verbose = 1",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(orphan_fields)})},
         {.type = RPC_RES_ARR,
          .cond = "for verbose = 2",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ, .inner = RPC_DOC_LIST(orphan_fields_hex)})}),
     .examples = RPC_EXAMPLES("getorphantxs", "2", "2"),
     .flags = RPC_METHOD_HIDDEN},
};

void rpc_net_hidden_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
