/* The connection manager (net.h): the net thread's libevent loop, listening and connecting,
 * framing, timers, the validator's completions, bans and the RPC side. What each message
 * means is sync.c's.
 */
#include "net/net_impl.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <ifaddrs.h>
#include <jansson.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "crypto/siphash.h"
#include "net/addrfile.h"
#include "net/addrman.h"
#include "net/anchors.h"
#include "net/evict.h"
#include "net/headerssync.h"
#include "net/localaddr.h"
#include "net/seeds.h"
#include "net/v2transport.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif
#ifndef PACKAGE_NAME
#define PACKAGE_NAME "bitnode"
#endif
/* Where Core's start-up errors send bug reports (its words, which its tests read). */
#define NET_BUGREPORT "https://github.com/bitcoin/bitcoin/issues"

const char *const net_msg_type_names[NET_N_MSG_TYPES] = {
    "addr",         "addrv2",       "block",       "blocktxn",    "cfcheckpt",   "cfheaders",
    "cfilter",      "cmpctblock",   "feefilter",   "getaddr",     "getblocks",   "getblocktxn",
    "getcfcheckpt", "getcfheaders", "getcfilters", "getdata",     "getheaders",  "headers",
    "inv",          "mempool",      "merkleblock", "notfound",    "ping",        "pong",
    "sendaddrv2",   "sendcmpct",    "sendheaders", "tx",          "verack",      "version",
    "wtxidrelay",   "sendtxrcncl",  "*other*",
};

int net_msg_type_index(const char *command)
{
    for (int i = 0; i < NET_N_MSG_TYPES - 1; i++) {
        if (strcmp(command, net_msg_type_names[i]) == 0) {
            return i;
        }
    }
    return NET_N_MSG_TYPES - 1;
}

/* ---- Permissions ---- */

static const struct {
    const char *name;
    uint32_t flag;
} perm_names[] = {
    {"bloomfilter", NET_PERM_BLOOMFILTER},
    {"noban", NET_PERM_NOBAN},
    {"forcerelay", NET_PERM_FORCERELAY},
    {"relay", NET_PERM_RELAY},
    {"mempool", NET_PERM_MEMPOOL},
    {"download", NET_PERM_DOWNLOAD},
    {"addr", NET_PERM_ADDR},
};

int net_permissions_parse(const char *s, uint32_t *perms, unsigned *dirs, const char **rest,
                          char *err, size_t err_len)
{
    *perms = 0;
    unsigned d = 0;
    if (dirs) {
        *dirs = NET_DIR_IN;
    }
    const char *at = strchr(s, '@');
    if (!at) {
        *perms = NET_PERM_IMPLICIT;
        *rest = s;
        return RC_OK;
    }
    const char *p = s;
    while (p < at) {
        const char *comma = memchr(p, ',', (size_t)(at - p));
        size_t len = comma ? (size_t)(comma - p) : (size_t)(at - p);
        int found = len == 0;
        for (size_t i = 0; i < sizeof(perm_names) / sizeof(perm_names[0]) && !found; i++) {
            if (strlen(perm_names[i].name) == len && memcmp(p, perm_names[i].name, len) == 0) {
                *perms |= perm_names[i].flag;
                found = 1;
            }
        }
        if (!found && len == 3 && memcmp(p, "all", 3) == 0) {
            *perms |= NET_PERM_BLOOMFILTER | NET_PERM_FORCERELAY | NET_PERM_NOBAN |
                      NET_PERM_MEMPOOL | NET_PERM_ADDR;
            found = 1;
        }
        if (!found && len == 5 && memcmp(p, "bloom", 5) == 0) {
            *perms |= NET_PERM_BLOOMFILTER;
            found = 1;
        }
        if (!found && len == 2 && memcmp(p, "in", 2) == 0) {
            d |= NET_DIR_IN;
            found = 1;
        }
        if (!found && len == 3 && memcmp(p, "out", 3) == 0) {
            if (!dirs) {
                if (err && err_len) {
                    snprintf(err, err_len,
                             "whitebind may only be used for incoming connections (\"out\" was "
                             "passed)");
                }
                return RC_INVALID;
            }
            d |= NET_DIR_OUT;
            found = 1;
        }
        if (!found) {
            if (err && err_len) {
                snprintf(err, err_len, "Invalid P2P permission: '%.*s'", (int)len, p);
            }
            return RC_INVALID;
        }
        p += len + (comma ? 1 : 0);
    }
    if (d && *perms == 0) {
        if (err && err_len) {
            snprintf(err, err_len, "Only direction was set, no permissions: '%s'", s);
        }
        return RC_INVALID;
    }
    if (dirs && d) {
        *dirs = d;
    }
    *rest = at + 1;
    return RC_OK;
}

/* Core's AddWhitelistPermissionFlags: perms with those of the -whitelist entries for dir that
 * match a, and a permission-less entry's (NET_PERM_IMPLICIT) resolved: noban, mempool, and
 * -whitelistrelay's relay and -whitelistforcerelay's forcerelay. */
static uint32_t whitelist_perms(const struct net *n, const struct net_addr *a, uint32_t perms,
                                unsigned dir)
{
    for (size_t i = 0; i < n->opt.n_whitelist; i++) {
        if ((n->opt.whitelist[i].dirs & dir) && net_subnet_match(&n->opt.whitelist[i].subnet, a)) {
            perms |= n->opt.whitelist[i].perms;
        }
    }
    if (perms & NET_PERM_IMPLICIT) {
        perms = (perms & ~NET_PERM_IMPLICIT) | NET_PERM_MEMPOOL | NET_PERM_NOBAN |
                (n->opt.whitelist_relay ? NET_PERM_RELAY : 0) |
                (n->opt.whitelist_forcerelay ? NET_PERM_FORCERELAY : 0);
    }
    return perms;
}

size_t net_permission_names(uint32_t perms, const char **names, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < sizeof(perm_names) / sizeof(perm_names[0]) && k < max; i++) {
        if ((perms & perm_names[i].flag) == perm_names[i].flag) {
            names[k++] = perm_names[i].name;
        }
    }
    return k;
}

const char *net_conn_type_name(int type)
{
    switch (type) {
    case CONN_INBOUND:
        return "inbound";
    case CONN_OUTBOUND_FULL_RELAY:
        return "outbound-full-relay";
    case CONN_MANUAL:
        return "manual";
    case CONN_FEELER:
        return "feeler";
    case CONN_BLOCK_RELAY:
        return "block-relay-only";
    case CONN_ADDR_FETCH:
        return "addr-fetch";
    default:
        return "unknown";
    }
}

/* ---- Time ---- */

int64_t net_now(const struct net *n)
{
    return n->mocktime ? n->mocktime : time_now_s();
}

int64_t net_now_us(const struct net *n)
{
    /* Wall-clock, as Core's NodeClock: a setmocktime moves it within the same timeline, so
     * a ping or a request timed before the mock time was set is measured against it. */
    return n->mocktime ? n->mocktime * 1000000 : time_now_us();
}

void net_set_mocktime(struct net *n, int64_t t)
{
    int changed = n->mocktime != t;
    n->mocktime = t;
    /* On the running net thread (setmocktime's net_call): the periodic work runs at once
     * with the new clock, before the next message is read, as Core's message handler runs
     * every peer's SendMessages (announcements, requests due) before it reads on. */
    if (changed && n->thread_started && n->timer_ev) {
        event_active(n->timer_ev, EV_TIMEOUT, 0);
    }
}

/* ---- Sending ---- */

/* -capturemessages (Core's CaptureMessageToFile): one record per message, appended to
 * <net_dir>/message_capture/<addr with ':' as '_'>/msgs_{recv,sent}.dat: the time in
 * microseconds (u64 LE), the type NUL-padded to 12 bytes, the payload's length (u32 LE) and
 * the payload. A file that cannot be written is logged and skipped. */
static void capture(struct peer *p, const char *command, const uint8_t *data, size_t len,
                    int incoming)
{
    struct net *n = p->net;
    char name[NET_ADDR_STR_LEN], err[160];
    snprintf(name, sizeof(name), "%s", p->addr_str);
    for (char *c = name; *c; c++) {
        *c = *c == ':' ? '_' : *c;
    }
    char *base = fs_path_join(n->opt.net_dir, "message_capture");
    char *dir = fs_path_join(base, name);
    char *path = fs_path_join(dir, incoming ? "msgs_recv.dat" : "msgs_sent.dat");
    uint8_t head[8 + NET_COMMAND_SIZE + 4] = {0};
    wr_u64le(head, (uint64_t)net_now_us(n)); /* mockable, as Core's */
    size_t cl = strlen(command);
    memcpy(head + 8, command, cl < NET_COMMAND_SIZE ? cl : NET_COMMAND_SIZE);
    wr_u32le(head + 8 + NET_COMMAND_SIZE, (uint32_t)len);
    FILE *f = fs_mkdir_p(dir, err, sizeof(err)) == RC_OK ? fopen(path, "ab") : NULL;
    if (!f || fwrite(head, 1, sizeof(head), f) != sizeof(head) ||
        (len && fwrite(data, 1, len, f) != len)) {
        LOG_WARN("-capturemessages: cannot write %s", path);
    }
    if (f) {
        fclose(f);
    }
    free(path);
    free(dir);
    free(base);
}

static void count_sent(struct peer *p, const char *command, size_t bytes)
{
    p->bytes_sent += bytes;
    p->sent_per_msg[net_msg_type_index(command)] += bytes;
    p->net->total_sent += bytes;
    p->last_send = net_now(p->net);
    upload_target_record(&p->net->upload, bytes, p->last_send);
}

void net_send(struct peer *p, const char *command, const struct buf *payload)
{
    if (p->disconnect || !p->bev) {
        return;
    }
    struct buf frame;
    buf_init(&frame);
    const uint8_t *data = payload ? payload->data : NULL;
    size_t len = payload ? payload->len : 0;
    if (p->net->opt.capture_messages) {
        capture(p, command, data, len, 0);
    }
    size_t wire;
    if (p->v2) {
        wire = v2t_send(p->v2, command, data, len, &frame);
    } else {
        net_frame_build(&frame, p->net->p->magic, command, data, len);
        wire = frame.len;
    }
    if (frame.len) {
        bufferevent_write(p->bev, frame.data, frame.len);
        count_sent(p, command, wire);
    } else {
        /* Waiting in the v2 transport for the handshake: its bytes count as sent when
         * they go (write_raw), its type now. */
        p->sent_per_msg[net_msg_type_index(command)] += wire;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "sending %s (%zu bytes) peer=%lld", command,
        payload ? payload->len : 0, (long long)p->id);
    buf_clear(&frame);
}

void net_send_empty(struct peer *p, const char *command)
{
    net_send(p, command, NULL);
}

size_t net_send_buffered(const struct peer *p)
{
    return p->bev ? evbuffer_get_length(bufferevent_get_output(p->bev)) : 0;
}

/* ---- Peers ---- */

struct peer *net_find_peer(struct net *n, int64_t id)
{
    for (struct peer *p = n->peers; p; p = p->next) {
        if (p->id == id && !p->disconnect) {
            return p;
        }
    }
    return NULL;
}

int net_peer_detecting(const struct peer *p)
{
    return p->v2 && v2t_kind(p->v2) == V2T_DETECTING;
}

const char *net_peer_transport_name(const struct peer *p)
{
    static const char *const names[] = {"detecting", "v1", "v2"};
    return names[p->v2 ? (int)v2t_kind(p->v2) : V2T_IS_V1];
}

void net_peer_disconnect(struct peer *p, const char *why)
{
    if (p->disconnect) {
        return;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "disconnecting peer=%lld: %s", (long long)p->id, why);
    p->disconnect = 1;
    if (p->bev) {
        bufferevent_disable(p->bev, EV_READ | EV_WRITE);
    }
    event_active(p->net->cleanup_ev, EV_READ, 0);
}

static void discourage(struct net *n, const struct net_addr *a)
{
    n->discouraged[n->n_discouraged % (sizeof(n->discouraged) / sizeof(n->discouraged[0]))] = *a;
    n->n_discouraged++;
}

static int is_discouraged(const struct net *n, const struct net_addr *a)
{
    size_t cap = sizeof(n->discouraged) / sizeof(n->discouraged[0]);
    size_t have = n->n_discouraged < cap ? n->n_discouraged : cap;
    for (size_t i = 0; i < have; i++) {
        if (net_addr_same_ip(&n->discouraged[i], a)) {
            return 1;
        }
    }
    return 0;
}

void net_misbehaving(struct peer *p, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (p->disconnect) {
        return;
    }
    LOG_INFO("Misbehaving: peer=%lld: %s", (long long)p->id, why);
    if ((p->perms & NET_PERM_NOBAN) == NET_PERM_NOBAN) {
        LOG_WARN("Not punishing noban peer %lld!", (long long)p->id);
        return;
    }
    if (p->conn_type == CONN_MANUAL) {
        LOG_WARN("Not punishing manually connected peer %lld!", (long long)p->id);
        return;
    }
    if (net_addr_is_local(&p->addr)) {
        LOG_WARN("Disconnecting and not discouraging local peer %lld!", (long long)p->id);
    } else {
        LOG_INFO("Disconnecting and discouraging peer %lld!", (long long)p->id);
        discourage(p->net, &p->addr);
    }
    net_peer_disconnect(p, why);
}

void net_malformed(const struct peer *p, const char *type, size_t len, const char *err)
{
    /* A payload that ends early is Core's "end of data" (its DataStream's words). */
    int eod = strstr(err, "truncated") != NULL;
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "ProcessMessages(%s, %zu bytes): Exception '%s%s%s' caught, peer=%lld",
        type, len, eod ? "DataStream::read(): end of data (" : "", err, eod ? ")" : "",
        (long long)p->id);
}

void net_pause_reads(struct peer *p, unsigned why, int pause)
{
    if (p->disconnect || !p->bev) {
        return;
    }
    unsigned was = p->read_paused;
    p->read_paused = pause ? (was | why) : (was & ~why);
    if (!was && p->read_paused) {
        bufferevent_disable(p->bev, EV_READ);
    } else if (was && !p->read_paused) {
        bufferevent_enable(p->bev, EV_READ);
    }
}

static void free_peer(struct net *n, struct peer *p)
{
    n->events.peer_gone(n->events.ctx, p);
    for (size_t i = 0; i < n->n_added; i++) {
        if (n->added[i].peer_id == p->id) {
            n->added[i].peer_id = -1;
        }
    }
    if (p->bev) {
        bufferevent_free(p->bev);
    }
    free(p->socks);
    v2t_free(p->v2);
    free(p);
}

static struct peer *connect_to(struct net *n, const struct net_addr *a, int conn_type,
                               const char *name, int use_v2, int64_t last_seen);

/* Core's v1 retry: an outbound v2 attempt the peer hung up on before answering anything
 * (a v1 node drops a connection whose first bytes are not its magic) is opened again with
 * v1, of the same type, for the same -addnode / -connect entry. */
static void retry_v1(struct net *n, struct peer *p)
{
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "retrying with v1 transport protocol for peer=%lld",
        (long long)p->id);
    int have_name = p->added_name[0] != 0;
    struct peer *q = connect_to(n, p->addr.len ? &p->addr : NULL, p->conn_type,
                                have_name ? p->added_name : NULL, 0, 0);
    for (size_t i = 0; q && i < n->n_added; i++) {
        if (n->added[i].peer_id == p->id) {
            n->added[i].peer_id = q->id;
        }
    }
}

static void cleanup_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct net *n = arg;
    struct peer **pp = &n->peers;
    while (*pp) {
        struct peer *p = *pp;
        if (p->disconnect) {
            *pp = p->next;
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "peer=%lld gone (%s)", (long long)p->id, p->addr_str);
            if (p->v2 && n->active && v2t_should_retry_v1(p->v2)) {
                retry_v1(n, p);
            }
            free_peer(n, p);
        } else {
            pp = &p->next;
        }
    }
}

static int socks_step(struct peer *p, struct evbuffer *in);

/* Bytes the v2 transport gives to send (handshake), counted as sent. */
static void write_raw(struct peer *p, const struct buf *out)
{
    if (out->len && p->bev) {
        bufferevent_write(p->bev, out->data, out->len);
        p->bytes_sent += out->len;
        p->net->total_sent += out->len;
        p->last_send = net_now(p->net);
        upload_target_record(&p->net->upload, out->len, p->last_send);
    }
}

/* Reads through the v2 transport what it can use: returns when more must arrive, reads
 * paused, the peer is going, or it turned out to speak v1 (the v1 framing reads on). */
static void read_v2(struct peer *p, struct evbuffer *in)
{
    struct net *n = p->net;
    struct buf out;
    buf_init(&out);
    while (!p->disconnect && !p->read_paused && !v2t_is_v1(p->v2)) {
        size_t have = evbuffer_get_length(in), want = v2t_want(p->v2);
        size_t take = have < want ? have : want;
        if (take == 0) {
            break;
        }
        const uint8_t *d = evbuffer_pullup(in, (ssize_t)take);
        size_t used = 0;
        char err[160];
        buf_reset(&out);
        int rc = v2t_receive(p->v2, d, take, &used, &out, err, sizeof(err));
        write_raw(p, &out);
        p->bytes_recv += used;
        n->total_recv += used;
        if (used) {
            p->last_recv = net_now(n);
        }
        evbuffer_drain(in, used);
        if (rc < 0) {
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "V2 transport error: %s", err);
            net_peer_disconnect(p, err);
            break;
        }
        if (rc == V2T_MESSAGE) {
            const char *command;
            const uint8_t *payload;
            size_t len, wire;
            v2t_message(p->v2, &command, &payload, &len, &wire);
            p->recv_per_msg[net_msg_type_index(command)] += wire;
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "received: %s (%zu bytes) peer=%lld", command, len,
                (long long)p->id);
            if (n->opt.capture_messages) {
                capture(p, command, payload, len, 1);
            }
            n->events.message(n->events.ctx, p, command, payload, len);
        } else if (used == 0) {
            break;
        }
    }
    buf_clear(&out);
}

/* Core's line for a v1 frame whose checksum does not match its payload. */
static void log_bad_checksum(const struct peer *p, const uint8_t *payload)
{
    uint8_t h[32];
    hash_sha256d(h, payload, p->hdr.len);
    const uint8_t *c = p->hdr.checksum;
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
        "Header error: Wrong checksum (%s, %u bytes), expected %02x%02x%02x%02x was "
        "%02x%02x%02x%02x, peer=%lld",
        p->hdr.command, p->hdr.len, h[0], h[1], h[2], h[3], c[0], c[1], c[2], c[3],
        (long long)p->id);
}

/* Reads every complete frame in the input buffer. */
static void read_cb(struct bufferevent *bev, void *arg)
{
    struct peer *p = arg;
    struct net *n = p->net;
    struct evbuffer *in = bufferevent_get_input(bev);
    if (p->socks && socks_step(p, in) <= 0) {
        return;
    }
    if (p->v2 && !v2t_is_v1(p->v2)) {
        read_v2(p, in);
        if (!v2t_is_v1(p->v2)) {
            return;
        }
    }
    /* Bytes count as received when they arrive, as Core's (a message split across reads
     * shows in the totals before it is whole); what stays buffered is counted once. */
    size_t arrived = evbuffer_get_length(in);
    if (arrived > p->in_counted) {
        p->bytes_recv += arrived - p->in_counted;
        n->total_recv += arrived - p->in_counted;
        p->last_recv = net_now(n);
        p->in_counted = arrived;
    }
    while (!p->disconnect && !p->read_paused) {
        size_t have = evbuffer_get_length(in);
        if (!p->have_hdr) {
            if (have < NET_HEADER_SIZE) {
                break;
            }
            uint8_t raw[NET_HEADER_SIZE];
            char err[160];
            evbuffer_copyout(in, raw, sizeof(raw));
            int rc = net_header_parse(raw, n->p->magic, &p->hdr, err, sizeof(err));
            if (rc != RC_OK) {
                LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Header error: %s, peer=%lld", err, (long long)p->id);
                net_peer_disconnect(p, err);
                return;
            }
            evbuffer_drain(in, NET_HEADER_SIZE);
            p->in_counted -= NET_HEADER_SIZE;
            p->have_hdr = 1;
            continue;
        }
        if (have < p->hdr.len) {
            break;
        }
        const uint8_t *payload = p->hdr.len ? evbuffer_pullup(in, p->hdr.len) : (const uint8_t *)"";
        p->have_hdr = 0;
        size_t frame = NET_HEADER_SIZE + p->hdr.len;
        p->recv_per_msg[p->hdr.type_valid ? net_msg_type_index(p->hdr.command)
                                           : net_msg_type_index("")] += frame;
        if (!net_checksum_ok(&p->hdr, payload, p->hdr.len)) {
            log_bad_checksum(p, payload); /* dropped, the peer stays: Core's */
            evbuffer_drain(in, p->hdr.len);
            p->in_counted -= p->hdr.len;
            continue;
        }
        if (!p->hdr.type_valid) {
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Header error: Invalid message type (%s, %u bytes), peer=%lld",
                p->hdr.command, p->hdr.len, (long long)p->id);
            evbuffer_drain(in, p->hdr.len);
            p->in_counted -= p->hdr.len;
            continue;
        }
        char command[NET_COMMAND_SIZE + 1];
        memcpy(command, p->hdr.command, sizeof(command));
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "received: %s (%u bytes) peer=%lld", command, p->hdr.len,
            (long long)p->id);
        if (n->opt.capture_messages) {
            capture(p, command, payload, p->hdr.len, 1);
        }
        n->events.message(n->events.ctx, p, command, payload, p->hdr.len);
        evbuffer_drain(in, frame - NET_HEADER_SIZE);
        p->in_counted -= frame - NET_HEADER_SIZE;
    }
}

static void write_cb(struct bufferevent *bev, void *arg)
{
    (void)bev;
    struct peer *p = arg;
    if (p->disconnect) {
        return;
    }
    unsigned was = p->read_paused;
    p->net->events.send_room(p->net->events.ctx, p);
    if (was && !p->read_paused && !p->disconnect) {
        read_cb(p->bev, p); /* what waited in the input buffer */
    }
}

/* An outbound connection is up (and through the proxy): a v2 attempt sends its key and
 * garbage, then the protocol speaks (its version waits in the v2 transport until the
 * handshake lets it go). */
static void peer_opened(struct peer *p)
{
    if (p->v2) {
        struct buf out;
        buf_init(&out);
        v2t_start(p->v2, &out);
        write_raw(p, &out);
        buf_clear(&out);
    }
    p->net->events.opened(p->net->events.ctx, p);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    struct peer *p = arg;
    if (what & BEV_EVENT_CONNECTED) {
        p->connected = 1;
        int one = 1;
        setsockopt(bufferevent_getfd(p->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        struct sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        struct net_addr local;
        if (getsockname(bufferevent_getfd(p->bev), (struct sockaddr *)&ss, &len) == 0 &&
            net_addr_from_sockaddr((struct sockaddr *)&ss, &local) == RC_OK) {
            net_addr_format(&local, 1, p->bind_str);
        }
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "connected to %s peer=%lld", p->addr_str, (long long)p->id);
        if (p->socks) {
            struct buf g;
            buf_init(&g);
            char user[32] = "", pass[32] = "";
            if (p->net->opt.proxy_randomize) {
                snprintf(user, sizeof(user), "%llu", (unsigned long long)p->net->proxy_stream++);
                snprintf(pass, sizeof(pass), "%llu", (unsigned long long)p->id);
            }
            struct socks5 tmp = *p->socks;
            socks5_begin(p->socks, tmp.host, tmp.port, user, pass, &g);
            bufferevent_write(p->bev, g.data, g.len);
            buf_clear(&g);
            return;
        }
        peer_opened(p);
        return;
    }
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        if (!p->connected) {
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "connection to %s failed: %s", p->addr_str,
                strerror(EVUTIL_SOCKET_ERROR()));
        }
        net_peer_disconnect(p, what & BEV_EVENT_EOF ? "socket closed" : "socket error");
    }
}

static struct peer *new_peer(struct net *n, struct bufferevent *bev, const struct net_addr *a,
                             int conn_type)
{
    struct peer *p = xcalloc(1, sizeof(*p));
    p->net = n;
    p->id = n->next_peer_id++;
    p->bev = bev;
    p->addr = *a;
    net_addr_format(a, 1, p->addr_str);
    p->conn_type = conn_type;
    p->conn_time = net_now(n);
    p->min_ping_us = -1;
    if (conn_type == CONN_INBOUND && (n->local_services & NODE_P2P_V2)) {
        p->v2 = v2t_new(0, n->p->magic, p->id); /* falls back to v1 if the peer speaks it */
    }
    bufferevent_setcb(bev, read_cb, write_cb, event_cb, p);
    bufferevent_setwatermark(bev, EV_WRITE, NET_SEND_BUFFER / 2, 0);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
    p->next = n->peers;
    n->peers = p;
    n->events.connected(n->events.ctx, p);
    return p;
}

static int count_conns(const struct net *n, int type)
{
    int c = 0;
    for (const struct peer *p = n->peers; p; p = p->next) {
        if (!p->disconnect && (type < 0 || p->conn_type == type)) {
            c++;
        }
    }
    return c;
}

static int max_inbound(const struct net *n)
{
    int outbound = NET_MAX_OUTBOUND_FULL_RELAY + NET_MAX_BLOCK_RELAY_ONLY + NET_MAX_FEELER;
    if (n->opt.max_connections < outbound) {
        outbound = n->opt.max_connections;
    }
    return n->opt.max_connections - outbound;
}

static int is_banned(struct net *n, const struct net_addr *a)
{
    int64_t now = net_now(n);
    for (size_t i = 0; i < n->n_bans; i++) {
        if (n->bans[i].until > now && net_subnet_match(&n->bans[i].subnet, a)) {
            return 1;
        }
    }
    return 0;
}

/* Core's network group, hashed with the service's key: /16 of IPv4, /32 of IPv6, one for
 * all local peers, the network for the others. */
static uint64_t keyed_netgroup(const struct net *n, const struct net_addr *a)
{
    uint8_t g[6] = {a->net, 0, 0, 0, 0, 0};
    if (net_addr_is_local(a)) {
        g[0] = 0xff;
    } else if (a->net == BIP155_IPV4) {
        g[1] = a->addr[0];
        g[2] = a->addr[1];
    } else if (a->net == BIP155_IPV6) {
        memcpy(g + 1, a->addr, 4);
    }
    return siphash24(n->group_key[0], n->group_key[1], g, sizeof(g));
}

/* Core's AttemptToEvictConnection: picks an inbound peer to disconnect (evict.h) among
 * those not leaving, not noban and not protect_id (-1: none), only those relaying
 * transactions when tx_only. 1 if one was marked to go, 0 if every one is protected. */
static int evict_inbound(struct net *n, int tx_only, int64_t protect_id)
{
    size_t k = 0, cap = 0;
    struct evict_candidate *c = NULL;
    for (struct peer *p = n->peers; p; p = p->next) {
        if (p->disconnect || p->conn_type != CONN_INBOUND || p->id == protect_id ||
            (tx_only && !p->relay_txs) || (p->perms & NET_PERM_NOBAN) == NET_PERM_NOBAN) {
            continue;
        }
        if (k == cap) {
            cap = cap ? 2 * cap : 32;
            c = xrealloc(c, cap * sizeof(*c));
        }
        c[k++] = (struct evict_candidate){
            .id = p->id,
            .conn_time = p->conn_time,
            .min_ping_us = p->min_ping_us,
            .last_block = p->last_block,
            .last_tx = p->last_tx,
            .keyed_netgroup = keyed_netgroup(n, &p->addr),
            .relay_txs = p->relay_txs,
            .bloom_filter = p->bloom_filter_loaded,
            .relevant_services = p->relevant_services,
            .prefer_evict = p->prefer_evict,
            .local = net_addr_is_local(&p->addr),
            .network = p->inbound_onion ? NETWORK_ONION : net_addr_network(&p->addr),
        };
    }
    int64_t id = k ? evict_select(c, k) : -1;
    free(c);
    struct peer *victim = id >= 0 ? net_find_peer(n, id) : NULL;
    if (!victim) {
        return 0;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
        "selected %s connection for eviction, disconnecting peer=%lld%s%s",
        net_conn_type_name(victim->conn_type), (long long)id, log_ips() ? ", peeraddr=" : "",
        log_ips() ? victim->addr_str : "");
    net_peer_disconnect(victim, "evicted for an inbound connection");
    return 1;
}

int net_evict_tx_peer_if_full(struct net *n, int64_t protect_id)
{
    int relaying = 0;
    for (const struct peer *p = n->peers; p; p = p->next) {
        relaying += !p->disconnect && p->conn_type == CONN_INBOUND && p->relay_txs;
    }
    if (relaying <= evict_max_inbound_tx_relay(max_inbound(n), n->opt.inbound_relay_percent)) {
        return 1;
    }
    return evict_inbound(n, 1, protect_id);
}

int net_tx_relay_capacity_drop(struct peer *p, const char *msg_type, int64_t protect_id)
{
    if (p->conn_type != CONN_INBOUND || !p->relay_txs ||
        net_evict_tx_peer_if_full(p->net, protect_id)) {
        return 0;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
        "failed to find a tx-relaying eviction candidate - connection dropped after %s "
        "message, peer=%lld",
        msg_type, (long long)p->id);
    net_peer_disconnect(p, "no room for a transaction-relaying inbound peer");
    return 1;
}

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
                      void *arg)
{
    (void)len;
    struct net *n = arg;
    uint32_t bind_perms = 0;
    int via_onion = 0;
    for (size_t i = 0; i < n->n_listeners; i++) {
        if (n->listeners[i] == l) {
            bind_perms = n->bound[i].perms;
            via_onion = n->bound[i].onion;
        }
    }
    struct net_addr a;
    if (net_addr_from_sockaddr(sa, &a) != RC_OK || !n->active) {
        evutil_closesocket(fd);
        return;
    }
    uint32_t perms = whitelist_perms(n, &a, bind_perms, NET_DIR_IN);
    char s[NET_ADDR_STR_LEN];
    net_addr_format(&a, 1, s);
    int noban = (perms & NET_PERM_NOBAN) == NET_PERM_NOBAN;
    if (!noban && is_banned(n, &a)) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "connection from %s dropped (banned)", s);
        evutil_closesocket(fd);
        return;
    }
    int inbound = count_conns(n, CONN_INBOUND);
    int discouraged = is_discouraged(n, &a);
    if (!noban && discouraged && inbound + 1 >= max_inbound(n)) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "connection from %s dropped (discouraged)", s);
        evutil_closesocket(fd);
        return;
    }
    if (inbound >= max_inbound(n) && !evict_inbound(n, 0, -1)) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "failed to find an eviction candidate - connection "
            "dropped (full)");
        evutil_closesocket(fd);
        return;
    }
    evutil_make_socket_nonblocking(fd);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    struct bufferevent *bev = bufferevent_socket_new(n->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        evutil_closesocket(fd);
        return;
    }
    struct peer *p = new_peer(n, bev, &a, CONN_INBOUND);
    p->perms = perms;
    p->inbound_onion = via_onion;
    p->prefer_evict = discouraged;
    p->connected = 1;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    struct net_addr local;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
        net_addr_from_sockaddr((struct sockaddr *)&ss, &local) == RC_OK) {
        net_addr_format(&local, 1, p->bind_str);
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Added connection peer=%lld from %s", (long long)p->id, s);
}

/* 1 if name (host or host:port) ends in ".onion". */
static int is_onion_name(const char *name)
{
    char host[256];
    snprintf(host, sizeof(host), "%s", name);
    char *colon = strrchr(host, ':');
    if (colon && strchr(host, ':') == colon) {
        *colon = 0;
    }
    size_t n = strlen(host);
    return n > 6 && strcmp(host + n - 6, ".onion") == 0;
}

/* Opens an outbound connection to a (conn_type), or with a proxy to name (host[:port],
 * resolved by the proxy) when a is NULL, with the v2 transport if use_v2 (else v1);
 * last_seen: when addrman last heard of a (0: not from addrman). The peer, or NULL. */
static struct peer *connect_to(struct net *n, const struct net_addr *a, int conn_type,
                               const char *name, int use_v2, int64_t last_seen)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int onion = (name && is_onion_name(name)) || (a && a->net == BIP155_TORV3);
    const struct net_addr *via = NULL;
    /* Core's proxies are per network: an unroutable address (loopback, private ranges) is
     * of none of them and is dialled directly. */
    int unroutable = a && !onion && net_addr_network(a) == NETWORK_UNROUTABLE;
    if (onion && n->have_onion_proxy) {
        via = &n->onion_proxy;
    } else if (n->have_proxy && !unroutable) {
        via = &n->proxy;
    } else if (onion || !a) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "cannot connect to %s: no proxy", name ? name : "?");
        return NULL;
    }
    if (a && a->net == BIP155_I2P) {
        /* Core reaches I2P through its SAM bridge (-i2psam), which bitnode has not got. */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "cannot connect to %s: no I2P", name ? name : "?");
        return NULL;
    }
    if (net_addr_to_sockaddr(via ? via : a, &ss, &len) != RC_OK) {
        return NULL;
    }
    for (struct peer *q = n->peers; q && a; q = q->next) {
        if (!q->disconnect && q->conn_type != CONN_INBOUND && net_addr_same_ip(&q->addr, a) &&
            q->addr.port == a->port) {
            return NULL; /* connected already */
        }
    }
    struct bufferevent *bev = bufferevent_socket_new(n->base, -1, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        return NULL;
    }
    struct net_addr none;
    memset(&none, 0, sizeof(none));
    struct peer *p = new_peer(n, bev, a ? a : &none, conn_type);
    if (a && conn_type == CONN_MANUAL) {
        /* Core whitelists outbound connections ("out") only when manual. */
        p->perms = whitelist_perms(n, a, 0, NET_DIR_OUT);
    }
    if (name) {
        snprintf(p->added_name, sizeof(p->added_name), "%s", name);
    }
    if (!a) {
        snprintf(p->addr_str, sizeof(p->addr_str), "%s", name);
    }
    p->v2_requested = use_v2;
    if (use_v2) {
        p->v2 = v2t_new(1, n->p->magic, p->id);
    }
    if (via) {
        /* The destination as the proxy gets it: the name when there is one (resolved
         * there), else the numeric address. */
        char host[256];
        uint16_t port = a ? a->port : n->p->default_port;
        if (a) {
            net_addr_format(a, 0, host);
        } else {
            snprintf(host, sizeof(host), "%s", name);
            char *colon = strrchr(host, ':');
            if (colon && strchr(host, ':') == colon) {
                *colon = 0;
                port = (uint16_t)atoi(colon + 1);
            }
        }
        p->socks = xcalloc(1, sizeof(*p->socks));
        snprintf(p->socks->host, sizeof(p->socks->host), "%s", host);
        p->socks->port = port;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "trying %s connection (%s) to %s, lastseen=%.1fhrs%s peer=%lld",
        use_v2 ? "v2" : "v1", net_conn_type_name(conn_type), p->addr_str,
        last_seen ? (double)(net_now(n) - last_seen) / 3600.0 : 0.0,
        via ? " through the proxy" : "", (long long)p->id);
    if (bufferevent_socket_connect(bev, (struct sockaddr *)&ss, (int)len) != 0) {
        net_peer_disconnect(p, "connect failed");
        return NULL;
    }
    return p;
}

/* The SOCKS5 exchange on a proxied connection: 1 once the tunnel is up, 0 to wait for
 * more, -1 when the peer was dropped. */
static int socks_step(struct peer *p, struct evbuffer *in)
{
    char err[160];
    while (p->socks && p->socks->step != SOCKS5_DONE) {
        size_t have = evbuffer_get_length(in);
        if (have == 0) {
            return 0;
        }
        const uint8_t *d = evbuffer_pullup(in, (ssize_t)(have < 300 ? have : 300));
        struct buf out;
        buf_init(&out);
        int used = socks5_read(p->socks, d, have < 300 ? have : 300, &out, err, sizeof(err));
        if (used < 0) {
            buf_clear(&out);
            LOG_INFO("Socks5() connect to %s:%u failed: %s", p->socks->host, p->socks->port, err);
            net_peer_disconnect(p, err);
            return -1;
        }
        if (used == 0) {
            buf_clear(&out);
            return 0;
        }
        evbuffer_drain(in, (size_t)used);
        if (out.len) {
            bufferevent_write(p->bev, out.data, out.len);
        }
        buf_clear(&out);
    }
    if (p->socks) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "SOCKS5 connected %s peer=%lld", p->socks->host,
            (long long)p->id);
        free(p->socks);
        p->socks = NULL;
        peer_opened(p);
    }
    return 1;
}

/* Connects to name ("host[:port]") as Core's ConnectNode takes a destination: a numeric
 * address directly, else through the proxy (which resolves it), else looked up here; what
 * cannot be resolved is logged. The peer, or NULL. */
static struct peer *connect_named(struct net *n, const char *name, int conn_type, int use_v2)
{
    struct net_addr a;
    char err[160];
    if (net_addr_parse(name, n->p->default_port, 0, &a, err, sizeof(err)) == RC_OK) {
        return connect_to(n, &a, conn_type, name, use_v2, 0);
    }
    if (n->have_proxy || (n->have_onion_proxy && is_onion_name(name))) {
        return connect_to(n, NULL, conn_type, name, use_v2, 0); /* the proxy resolves it */
    }
    if (net_addr_parse(name, n->p->default_port, 1, &a, err, sizeof(err)) == RC_OK) {
        return connect_to(n, &a, conn_type, name, use_v2, 0);
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%s", err);
    return NULL;
}

/* The -connect / -addnode / addnode targets: (re)connects those not connected. */
static void open_added(struct net *n)
{
    if (!n->active) {
        return;
    }
    int64_t now = net_now_us(n);
    for (size_t i = 0; i < n->n_added; i++) {
        struct added_node *an = &n->added[i];
        if ((an->peer_id >= 0 && net_find_peer(n, an->peer_id)) || an->next_try > now) {
            continue;
        }
        an->peer_id = -1;
        an->next_try = now + (an->from_connect ? 2 : 5) * 1000000LL;
        struct peer *p = connect_named(n, an->name, CONN_MANUAL, an->use_v2);
        if (p) {
            an->peer_id = p->id;
        }
    }
}

/* ---- Validator completions ---- */

static void job_done_cb(void *ctx, struct validator_job *job)
{
    struct net_job *j = (struct net_job *)job; /* job is the first member */
    struct net *n = ctx;
    pthread_mutex_lock(&n->q_mu);
    j->next = n->done_head;
    n->done_head = j;
    int stopping = n->stopping;
    pthread_mutex_unlock(&n->q_mu);
    if (!stopping) {
        event_active(n->done_ev, EV_READ, 0);
    }
    /* Counted out last: whoever waits for jobs_out to reach 0 may free n at once, so nothing
     * of n may be touched after this (the p2p fuzz target found event_active reading a freed
     * n when the count came first). */
    pthread_mutex_lock(&n->q_mu);
    n->jobs_out--;
    pthread_cond_broadcast(&n->call_cv);
    pthread_mutex_unlock(&n->q_mu);
}

static void submit_waiting(struct net *n)
{
    while (n->waiting_head) {
        /* Off the list before it is submitted: once the validator has it, its next field
         * belongs to the completion list. */
        struct net_job *j = n->waiting_head;
        n->waiting_head = j->next;
        if (!n->waiting_head) {
            n->waiting_tail = NULL;
        }
        j->next = NULL;
        pthread_mutex_lock(&n->q_mu);
        n->jobs_out++; /* before the job can complete */
        pthread_mutex_unlock(&n->q_mu);
        int rc = validator_try_submit(n->val, &j->job);
        if (rc != RC_OK) {
            pthread_mutex_lock(&n->q_mu);
            n->jobs_out--;
            pthread_mutex_unlock(&n->q_mu);
        }
        if (rc == RC_TOO_LARGE) { /* back at the head: retried when a job completes */
            j->next = n->waiting_head;
            n->waiting_head = j;
            if (!n->waiting_tail) {
                n->waiting_tail = j;
            }
            return;
        }
        if (rc != RC_OK) { /* stopped: handled as done */
            n->events.job_done(n->events.ctx, j);
        }
    }
}

void net_submit(struct net *n, struct net_job *j)
{
    j->net = n;
    j->job.on_done = job_done_cb;
    j->job.done_ctx = n;
    j->next = NULL;
    struct peer *p = net_find_peer(n, j->peer_id);
    if (p) {
        p->pending_jobs++;
        p->pending_bytes += j->len;
        /* A peer's blocks and headers waiting for the validator are bounded in count and
         * in bytes: past either, nothing more is read from it until they are judged. */
        if (p->pending_jobs >= NET_MAX_PENDING_JOBS || p->pending_bytes > NET_MAX_PENDING_BYTES) {
            net_pause_reads(p, PAUSE_JOBS, 1);
        }
        if (j->in_order) {
            p->ordered_jobs++;
            net_pause_reads(p, PAUSE_ORDER, 1);
        }
    }
    if (n->waiting_tail) {
        n->waiting_tail->next = j;
    } else {
        n->waiting_head = j;
    }
    n->waiting_tail = j;
    submit_waiting(n);
}

static void done_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct net *n = arg;
    pthread_mutex_lock(&n->q_mu);
    struct net_job *list = n->done_head;
    n->done_head = NULL;
    pthread_mutex_unlock(&n->q_mu);
    /* Oldest first. */
    struct net_job *rev = NULL;
    while (list) {
        struct net_job *next = list->next;
        list->next = rev;
        rev = list;
        list = next;
    }
    while (rev) {
        struct net_job *j = rev;
        rev = j->next;
        int64_t peer_id = j->peer_id;
        struct peer *p = net_find_peer(n, peer_id);
        int resume = 0;
        if (p && p->pending_jobs > 0) {
            p->pending_jobs--;
            p->pending_bytes -= j->len <= p->pending_bytes ? j->len : p->pending_bytes;
            if ((p->read_paused & PAUSE_JOBS) && p->pending_jobs < NET_MAX_PENDING_JOBS / 2 &&
                p->pending_bytes <= NET_MAX_PENDING_BYTES / 2) {
                net_pause_reads(p, PAUSE_JOBS, 0);
                resume = 1;
            }
            if (j->in_order && p->ordered_jobs > 0 && --p->ordered_jobs == 0) {
                net_pause_reads(p, PAUSE_ORDER, 0);
                resume = 1;
            }
        }
        n->events.job_done(n->events.ctx, j); /* frees j */
        /* What arrived while paused, once the verdict is handled (it may drop the peer). */
        if (resume && (p = net_find_peer(n, peer_id)) && !p->read_paused && p->bev &&
            evbuffer_get_length(bufferevent_get_input(p->bev)) > 0) {
            read_cb(p->bev, p);
        }
    }
    submit_waiting(n);
    n->events.jobs_done(n->events.ctx);
}

/* ---- Calls from other threads ---- */

static void call_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct net *n = arg;
    for (;;) {
        pthread_mutex_lock(&n->q_mu);
        struct net_call_item *c = n->calls;
        if (c) {
            n->calls = c->next;
        }
        pthread_mutex_unlock(&n->q_mu);
        if (!c) {
            break;
        }
        c->fn(n, c->ctx);
        pthread_mutex_lock(&n->q_mu);
        c->done = 1;
        pthread_cond_broadcast(&n->call_cv);
        pthread_mutex_unlock(&n->q_mu);
    }
}

int net_call(struct net *n, void (*fn)(struct net *n, void *ctx), void *ctx)
{
    struct net_call_item c = {.fn = fn, .ctx = ctx};
    pthread_mutex_lock(&n->q_mu);
    if (n->stopping || !n->thread_started) {
        pthread_mutex_unlock(&n->q_mu);
        return RC_STOPPED;
    }
    c.next = n->calls;
    n->calls = &c;
    pthread_mutex_unlock(&n->q_mu);
    event_active(n->call_ev, EV_READ, 0);
    pthread_mutex_lock(&n->q_mu);
    while (!c.done) {
        pthread_cond_wait(&n->call_cv, &n->q_mu);
    }
    pthread_mutex_unlock(&n->q_mu);
    return RC_OK;
}

/* ---- Bans, persisted in banlist.json (Core's format) ---- */

static char *banlist_path(const struct net *n)
{
    return fs_path_join(n->opt.net_dir, "banlist.json");
}

static void save_bans(struct net *n)
{
    if (!n->opt.net_dir) {
        return;
    }
    json_t *arr = json_array();
    int64_t now = net_now(n);
    for (size_t i = 0; i < n->n_bans; i++) {
        if (n->bans[i].until <= now) {
            continue;
        }
        char s[NET_ADDR_STR_LEN];
        net_subnet_format(&n->bans[i].subnet, s);
        json_t *o = json_object();
        json_object_set_new(o, "version", json_integer(1));
        json_object_set_new(o, "ban_created", json_integer(n->bans[i].created));
        json_object_set_new(o, "banned_until", json_integer(n->bans[i].until));
        json_object_set_new(o, "address", json_string(s));
        json_array_append_new(arr, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "banned_nets", arr);
    char *text = json_dumps(root, JSON_INDENT(4));
    json_decref(root);
    char *path = banlist_path(n);
    char err[256];
    if (text && fs_write_file_atomic(path, text, strlen(text), 0644, err, sizeof(err)) != RC_OK) {
        LOG_WARN("cannot write %s: %s", path, err);
    }
    free(text);
    free(path);
    n->bans_dirty = 0;
}

static void add_ban(struct net *n, const struct net_subnet *sn, int64_t created, int64_t until)
{
    for (size_t i = 0; i < n->n_bans; i++) {
        if (net_subnet_equal(&n->bans[i].subnet, sn)) {
            n->bans[i].created = created;
            n->bans[i].until = until;
            return;
        }
    }
    n->bans = xrealloc(n->bans, (n->n_bans + 1) * sizeof(*n->bans));
    n->bans[n->n_bans++] = (struct net_ban){*sn, created, until};
}

static void load_bans(struct net *n)
{
    if (!n->opt.net_dir) {
        return;
    }
    char *path = banlist_path(n);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        if (access(path, F_OK) == 0) {
            /* Core's words (its settings reader's error), then jansson's reason. */
            LOG_WARN("Cannot load banlist %s: Unable to parse settings file %s (%s, line %d)",
                     path, path, jerr.text, jerr.line);
        }
        free(path);
        /* Core's BanMan: an empty list, written at once (the file exists after start-up). */
        LOG_INFO("Recreating the banlist database");
        n->bans_dirty = 1;
        save_bans(n);
        return;
    }
    json_t *arr = json_object_get(root, "banned_nets");
    size_t i;
    json_t *o;
    int64_t now = net_now(n);
    json_array_foreach(arr, i, o)
    {
        struct net_subnet sn;
        const char *addr = json_string_value(json_object_get(o, "address"));
        int64_t until = (int64_t)json_integer_value(json_object_get(o, "banned_until"));
        if (addr && net_subnet_parse(addr, &sn) == RC_OK && until > now) {
            add_ban(n, &sn, (int64_t)json_integer_value(json_object_get(o, "ban_created")), until);
        }
    }
    LOG_INFO("Loaded %zu banned node addresses/subnets", n->n_bans);
    json_decref(root);
    free(path);
}

void net_ban(struct net *n, const struct net_subnet *sn, int64_t bantime, int absolute)
{
    int64_t now = net_now(n);
    if (bantime <= 0) {
        bantime = n->opt.bantime > 0 ? n->opt.bantime : 86400;
        absolute = 0;
    }
    add_ban(n, sn, now, absolute ? bantime : now + bantime);
    for (struct peer *p = n->peers; p; p = p->next) {
        if (net_subnet_match(sn, &p->addr)) {
            net_peer_disconnect(p, "banned");
        }
    }
    save_bans(n);
}

int net_unban(struct net *n, const struct net_subnet *sn)
{
    for (size_t i = 0; i < n->n_bans; i++) {
        if (net_subnet_equal(&n->bans[i].subnet, sn)) {
            n->bans[i] = n->bans[--n->n_bans];
            save_bans(n);
            return RC_OK;
        }
    }
    return RC_NOT_FOUND;
}

int net_is_banned_subnet(struct net *n, const struct net_subnet *sn)
{
    int64_t now = net_now(n);
    for (size_t i = 0; i < n->n_bans; i++) {
        if (n->bans[i].until > now && net_subnet_equal(&n->bans[i].subnet, sn)) {
            return 1;
        }
    }
    return 0;
}

void net_list_banned(struct net *n, struct net_ban_entry **out, size_t *count)
{
    int64_t now = net_now(n);
    size_t k = 0;
    for (size_t i = 0; i < n->n_bans; i++) {
        if (n->bans[i].until > now) {
            n->bans[k++] = n->bans[i];
        }
    }
    n->n_bans = k;
    *out = xcalloc(k ? k : 1, sizeof(**out));
    for (size_t i = 0; i < k; i++) {
        (*out)[i].subnet = n->bans[i].subnet;
        (*out)[i].created = n->bans[i].created;
        (*out)[i].until = n->bans[i].until;
    }
    *count = k;
}

void net_clear_banned(struct net *n)
{
    n->n_bans = 0;
    n->n_discouraged = 0;
    save_bans(n);
}

/* ---- The RPC side (net thread) ---- */

void net_transport_peers(struct net *n, struct net_peer_stats **out, size_t *count)
{
    size_t k = 0;
    for (struct peer *p = n->peers; p; p = p->next) {
        k += !p->disconnect;
    }
    struct net_peer_stats *v = xcalloc(k ? k : 1, sizeof(*v));
    size_t i = k;
    /* n->peers is newest first: fill from the end so the array is in id order. */
    for (struct peer *p = n->peers; p; p = p->next) {
        if (p->disconnect) {
            continue;
        }
        struct net_peer_stats *s = &v[--i];
        s->id = p->id;
        snprintf(s->addr, sizeof(s->addr), "%s", p->addr_str);
        snprintf(s->addr_bind, sizeof(s->addr_bind), "%s", p->bind_str);
        s->network = net_addr_network(&p->addr);
        s->last_send = p->last_send;
        s->last_recv = p->last_recv;
        s->last_block = p->last_block;
        s->last_tx = p->last_tx;
        s->bytes_sent = p->bytes_sent;
        s->bytes_recv = p->bytes_recv;
        s->conn_time = p->conn_time;
        s->inbound = p->conn_type == CONN_INBOUND;
        s->permissions = p->perms;
        s->conn_type = p->conn_type;
        s->transport = p->v2 ? (int)v2t_kind(p->v2) : V2T_IS_V1;
        if (p->v2 && v2t_session_id(p->v2)) {
            memcpy(s->session_id, v2t_session_id(p->v2), 32);
        }
        s->n_msg_types = NET_N_MSG_TYPES;
        s->msg_types = net_msg_type_names;
        s->sent_per_msg = xmalloc(sizeof(p->sent_per_msg));
        s->recv_per_msg = xmalloc(sizeof(p->recv_per_msg));
        memcpy(s->sent_per_msg, p->sent_per_msg, sizeof(p->sent_per_msg));
        memcpy(s->recv_per_msg, p->recv_per_msg, sizeof(p->recv_per_msg));
    }
    *out = v;
    *count = k;
}

void net_peer_stats_free(struct net_peer_stats *p, size_t count)
{
    for (size_t i = 0; p && i < count; i++) {
        free(p[i].inflight);
        free(p[i].sent_per_msg);
        free(p[i].recv_per_msg);
    }
    free(p);
}

int64_t net_time_offset_median(struct net *n)
{
    return timeoffsets_median(&n->time_offsets);
}

void net_connection_counts(struct net *n, int *in, int *out)
{
    *in = *out = 0;
    for (struct peer *p = n->peers; p; p = p->next) {
        if (!p->disconnect) {
            if (p->conn_type == CONN_INBOUND) {
                (*in)++;
            } else {
                (*out)++;
            }
        }
    }
}

void net_totals(struct net *n, uint64_t *recv, uint64_t *sent)
{
    *recv = n->total_recv;
    *sent = n->total_sent;
}

int net_upload_target_reached(struct net *n, int historical)
{
    return upload_target_reached(&n->upload, historical, net_now(n));
}

void net_upload_info(struct net *n, struct net_upload_info *out)
{
    int64_t now = net_now(n);
    out->target = n->upload.limit;
    out->target_reached = upload_target_reached(&n->upload, 0, now);
    out->serve_historical_blocks = !upload_target_reached(&n->upload, 1, now);
    out->bytes_left_in_cycle = upload_target_bytes_left(&n->upload);
    out->time_left_in_cycle = upload_target_time_left(&n->upload, now);
}

int net_disconnect(struct net *n, const char *address, int64_t id)
{
    int found = 0;
    for (struct peer *p = n->peers; p; p = p->next) {
        if (p->disconnect) {
            continue;
        }
        if ((id >= 0 && p->id == id) || (address && strcmp(address, p->addr_str) == 0)) {
            net_peer_disconnect(p, "disconnectnode");
            found = 1;
        }
    }
    return found ? RC_OK : RC_NOT_FOUND;
}

static void add_target(struct net *n, const char *name, int from_connect, int use_v2)
{
    n->added = xrealloc(n->added, (n->n_added + 1) * sizeof(*n->added));
    struct added_node *an = &n->added[n->n_added++];
    memset(an, 0, sizeof(*an));
    snprintf(an->name, sizeof(an->name), "%s", name);
    an->from_connect = from_connect;
    an->use_v2 = use_v2;
    an->peer_id = -1;
}

int net_addnode(struct net *n, const char *node, const char *command, int use_v2, char *err,
                size_t err_len)
{
    if (strcmp(command, "onetry") == 0) {
        struct net_addr a;
        if (net_addr_parse(node, n->p->default_port, 0, &a, err, err_len) != RC_OK &&
            (n->have_proxy || is_onion_name(node))) {
            connect_to(n, NULL, CONN_MANUAL, node, use_v2, 0); /* the proxy resolves it */
            return RC_OK;
        }
        if (net_addr_parse(node, n->p->default_port, 1, &a, err, err_len) != RC_OK) {
            return RC_INVALID;
        }
        connect_to(n, &a, CONN_MANUAL, node, use_v2, 0);
        return RC_OK;
    }
    if (strcmp(command, "add") == 0) {
        struct net_addr want, have;
        int numeric = net_addr_parse(node, n->p->default_port, 0, &want, NULL, 0) == RC_OK;
        for (size_t i = 0; i < n->n_added; i++) {
            /* The same string, or the same address and port written another way (Core). */
            if (strcmp(n->added[i].name, node) == 0 ||
                (numeric &&
                 net_addr_parse(n->added[i].name, n->p->default_port, 0, &have, NULL, 0) == RC_OK &&
                 net_addr_same_ip(&want, &have) && want.port == have.port)) {
                snprintf(err, err_len, "Error: Node already added");
                return RC_INVALID;
            }
        }
        add_target(n, node, 0, use_v2);
        open_added(n);
        return RC_OK;
    }
    for (size_t i = 0; i < n->n_added; i++) {
        if (strcmp(n->added[i].name, node) == 0 && !n->added[i].from_connect) {
            memmove(&n->added[i], &n->added[i + 1], (n->n_added - i - 1) * sizeof(*n->added));
            n->n_added--;
            return RC_OK;
        }
    }
    snprintf(err, err_len, "Error: Node could not be removed. It has not been added previously.");
    return RC_NOT_FOUND;
}

void net_added_nodes(struct net *n, struct net_added_node **out, size_t *count)
{
    size_t k = 0;
    *out = xcalloc(n->n_added ? n->n_added : 1, sizeof(**out));
    for (size_t i = 0; i < n->n_added; i++) {
        if (n->added[i].from_connect) {
            continue;
        }
        struct net_added_node *a = &(*out)[k++];
        snprintf(a->node, sizeof(a->node), "%s", n->added[i].name);
        struct peer *p = n->added[i].peer_id >= 0 ? net_find_peer(n, n->added[i].peer_id) : NULL;
        a->connected = p && p->connected;
        if (a->connected) {
            snprintf(a->address, sizeof(a->address), "%s", p->addr_str);
            a->inbound = 0;
        }
    }
    *count = k;
}

void net_set_active(struct net *n, int active)
{
    LOG_INFO("SetNetworkActive: %s", active ? "true" : "false"); /* Core's: every call */
    if (n->active == !!active) {
        return;
    }
    n->active = !!active;
    if (!active) {
        for (struct peer *p = n->peers; p; p = p->next) {
            net_peer_disconnect(p, "network disabled");
        }
    } else {
        for (size_t i = 0; i < n->n_added; i++) {
            n->added[i].next_try = 0;
        }
        open_added(n);
    }
}

int net_is_active(struct net *n)
{
    return n->active;
}

int net_network_reachable(struct net *n, int network)
{
    if (n->opt.onlynet && !(n->opt.onlynet & (1u << network))) {
        return 0;
    }
    if (network == NETWORK_ONION) {
        return n->have_onion_proxy;
    }
    return network == NETWORK_IPV4 || network == NETWORK_IPV6;
}

void net_network_proxy(struct net *n, int network, char out[NET_ADDR_STR_LEN], int *randomize)
{
    out[0] = 0;
    *randomize = 0;
    if (network == NETWORK_ONION && n->have_onion_proxy) {
        snprintf(out, NET_ADDR_STR_LEN, "%s", n->onion_proxy_str);
        *randomize = n->opt.proxy_randomize;
    } else if ((network == NETWORK_IPV4 || network == NETWORK_IPV6) && n->have_proxy) {
        snprintf(out, NET_ADDR_STR_LEN, "%s", n->proxy_str);
        *randomize = n->opt.proxy_randomize;
    }
}

int64_t net_time_now(struct net *n)
{
    return net_now(n);
}

void net_remove_local_services(struct net *n, uint64_t bits)
{
    __atomic_fetch_and(&n->local_services, ~bits, __ATOMIC_RELAXED);
}

void net_add_local_services(struct net *n, uint64_t bits)
{
    __atomic_fetch_or(&n->local_services, bits, __ATOMIC_RELAXED);
}

uint64_t net_local_services(struct net *n)
{
    return __atomic_load_n(&n->local_services, __ATOMIC_RELAXED);
}

int net_listening(struct net *n, uint16_t *port)
{
    *port = n->port;
    return n->n_listeners > 0;
}

void net_node_addresses(struct net *n, int network, size_t max, struct net_known_addr **out,
                        size_t *count)
{
    struct addrman_addr *v = NULL;
    size_t k = 0;
    addrman_get_addr(n->am, &v, &k, max, 0, network, net_now(n));
    *out = xcalloc(k ? k : 1, sizeof(**out));
    for (size_t i = 0; i < k; i++) {
        (*out)[i] = (struct net_known_addr){v[i].addr, v[i].services, v[i].time};
    }
    free(v);
    *count = k;
}

void net_addrman_counts(struct net *n, int network, size_t *n_new, size_t *n_tried)
{
    *n_new = addrman_size(n->am, network, 1);
    *n_tried = addrman_size(n->am, network, 0);
}

void net_addrman_entries(struct net *n, struct addrman_info **out, size_t *count, int tried)
{
    addrman_get_entries(n->am, out, count, tried);
}

void net_add_peer_address(struct net *n, int *added, int *made_tried, const struct net_addr *a,
                          int tried)
{
    int64_t now = net_now(n);
    /* Core: the address announces itself (source = address, no time penalty), seen now, with
     * the services an automatic connection looks for. */
    struct addrman_addr aa = {*a, NODE_NETWORK | NODE_WITNESS, now};
    if (n->opt.cjdns_reachable && a->net == BIP155_IPV6 && a->addr[0] == 0xfc) {
        aa.addr.net = BIP155_CJDNS; /* Core's MaybeFlipIPv6toCJDNS */
    }
    a = &aa.addr;
    size_t k = 0;
    addrman_add(n->am, &k, &aa, 1, a, 0, now);
    *added = k > 0;
    *made_tried = 0;
    if (*added && tried) {
        int res = -1;
        *made_tried = addrman_good_keep_occupant(n->am, &res, a, now) == RC_OK &&
                      res == ADDRMAN_GOOD_MOVED;
    }
}

/* Core's limits per connection type (CConnman::AddConnection): full-relay and
 * block-relay-only connections up to their own counts, and all automatic ones (those, feelers
 * and addr-fetch) together up to the outbound slots; none of them past -maxconnections. */
static int outbound_room(const struct net *n, int conn_type)
{
    int max_auto = n->opt.max_connections > 0 ? n->opt.max_connections : 0;
    int max_full = NET_MAX_OUTBOUND_FULL_RELAY < max_auto ? NET_MAX_OUTBOUND_FULL_RELAY : max_auto;
    int max_block = max_auto - max_full;
    max_block = NET_MAX_BLOCK_RELAY_ONLY < max_block ? NET_MAX_BLOCK_RELAY_ONLY : max_block;
    int slots = max_full + max_block + NET_MAX_FEELER;
    slots = slots < max_auto ? slots : max_auto;
    int full = count_conns(n, CONN_OUTBOUND_FULL_RELAY), block = count_conns(n, CONN_BLOCK_RELAY);
    if ((conn_type == CONN_OUTBOUND_FULL_RELAY && full >= max_full) ||
        (conn_type == CONN_BLOCK_RELAY && block >= max_block)) {
        return 0;
    }
    return full + block + count_conns(n, CONN_FEELER) + count_conns(n, CONN_ADDR_FETCH) < slots;
}

int net_add_connection(struct net *n, const char *address, int conn_type, int use_v2)
{
    if (conn_type != CONN_OUTBOUND_FULL_RELAY && conn_type != CONN_BLOCK_RELAY &&
        conn_type != CONN_FEELER && conn_type != CONN_ADDR_FETCH) {
        return RC_USAGE;
    }
    if (!outbound_room(n, conn_type)) {
        return RC_TOO_LARGE;
    }
    /* Core: taken even while the network is off (nothing is opened then) or when the
     * connection cannot be made: it was an attempt. */
    if (n->active) {
        connect_named(n, address, conn_type, use_v2);
    }
    return RC_OK;
}

/* ---- Addresses: peers.dat, automatic connections, seeds ---- */

static char *peers_path(const struct net *n)
{
    return fs_path_join(n->opt.net_dir, "peers.dat");
}

static void save_addrs(struct net *n)
{
    if (!n->opt.net_dir) {
        return;
    }
    char *path = peers_path(n);
    char err[256];
    if (addrman_save(n->am, path, n->p->magic, err, sizeof(err)) != RC_OK) {
        LOG_WARN("cannot write %s: %s", path, err);
    }
    free(path);
}

/* Core's LoadAddrman: a missing file is created at once; one of a format too new is renamed
 * to peers.dat.bak and a new one created; any other failure stops start-up with Core's
 * words (err). Returns 0 or RC_CORRUPT. */
static int load_addrs(struct net *n, char *err, size_t err_len)
{
    if (!n->opt.net_dir) {
        return RC_OK;
    }
    char *path = peers_path(n);
    char why[512];
    int old_format = 0, rc;
    LOG_INFO("init message: Loading P2P addresses\u2026");
    int64_t t0 = time_mono_us();
    rc = addrman_load(n->am, &old_format, path, n->p->magic, why, sizeof(why));
    if (rc == RC_OK) {
        LOG_INFO("Loaded %zu addresses from peers.dat %lldms", addrman_size(n->am, -1, -1),
                 (long long)((time_mono_us() - t0) / 1000));
        if (old_format) {
            LOG_INFO("peers.dat was in bitnode's former format; it is written in Bitcoin Core's "
                     "from now on");
        }
    } else if (rc == RC_NOT_FOUND) {
        LOG_INFO("Creating peers.dat because the file was not found (\"%s\")", path);
        save_addrs(n);
    } else if (rc == RC_INVALID) {
        size_t l = strlen(path) + 5;
        char *bak = xmalloc(l);
        snprintf(bak, l, "%s.bak", path);
        if (rename(path, bak) != 0) {
            snprintf(err, err_len, "Failed to rename invalid peers.dat file. Please move or "
                                   "delete it and try again.");
            free(bak);
            free(path);
            return RC_CORRUPT;
        }
        free(bak);
        LOG_WARN("Creating new peers.dat because the file version was not compatible (\"%s\"). "
                 "Original backed up to peers.dat.bak",
                 path);
        save_addrs(n);
    } else {
        snprintf(err, err_len,
                 "Invalid or corrupt peers.dat (%s). If you believe this is a bug, please report "
                 "it to %s. As a workaround, you can move the file (\"%s\") out of the way "
                 "(rename, move, or delete) to have a new one created on the next start.",
                 why, NET_BUGREPORT, path);
        free(path);
        return RC_CORRUPT;
    }
    free(path);
    return RC_OK;
}

/* An outbound address of the same network group as one we are connected to: skipped, so
 * that one operator cannot be all our peers (Core). */
static int group_taken(struct net *n, const struct net_addr *a)
{
    uint8_t g[ADDRMAN_NETGROUP_MAX], h[ADDRMAN_NETGROUP_MAX];
    size_t gl = addrman_netgroup(a, g);
    for (struct peer *p = n->peers; p; p = p->next) {
        if (p->disconnect || p->conn_type == CONN_INBOUND || p->conn_type == CONN_MANUAL) {
            continue;
        }
        size_t hl = addrman_netgroup(&p->addr, h);
        if (hl == gl && memcmp(g, h, gl) == 0) {
            return 1;
        }
    }
    return 0;
}

/* ---- anchors.dat (Core's ReadAnchors / DumpAnchors) ---- */

/* At start, with automatic connections: the file's addresses (at most ANCHORS_MAX), the
 * file removed whatever it held; a damaged one gives none. */
static void load_anchors(struct net *n)
{
    if (!n->opt.net_dir || !n->opt.automatic) {
        return;
    }
    char *path = fs_path_join(n->opt.net_dir, "anchors.dat");
    char err[256];
    if (anchors_load(&n->anchors, &n->n_anchors, path, n->p->magic, err, sizeof(err)) == RC_OK) {
        LOG_INFO("Loaded %zu addresses from \"anchors.dat\"", n->n_anchors);
    }
    if (n->n_anchors > ANCHORS_MAX) {
        n->n_anchors = ANCHORS_MAX;
    }
    LOG_INFO("%zu block-relay-only anchors will be tried for connections.", n->n_anchors);
    free(path);
}

/* At a clean shutdown: the block-relay-only peers' addresses, for the next start. */
static void save_anchors(struct net *n)
{
    struct addrman_addr v[ANCHORS_MAX];
    size_t k = 0;
    for (struct peer *p = n->peers; p && k < ANCHORS_MAX; p = p->next) {
        if (p->conn_type == CONN_BLOCK_RELAY && !p->disconnect) {
            v[k].addr = p->addr;
            v[k].services = p->addr_services;
            v[k].time = p->addr_time ? p->addr_time : ADDRFILE_TIME_INIT;
            k++;
        }
    }
    char *path = fs_path_join(n->opt.net_dir, "anchors.dat");
    char err[256];
    int64_t t0 = time_mono_us();
    LOG_INFO("DumpAnchors: Flush %zu outbound block-relay-only peer addresses to anchors.dat "
             "started",
             k);
    if (anchors_save(path, n->p->magic, v, k, err, sizeof(err)) != RC_OK) {
        LOG_WARN("cannot write %s: %s", path, err);
    }
    LOG_INFO("DumpAnchors: Flush %zu outbound block-relay-only peer addresses to anchors.dat "
             "completed (%.2fs)",
             k, (double)(time_mono_us() - t0) / 1e6);
    free(path);
}

/* Core's anchor step of ThreadOpenConnections: the anchors are taken from the last,
 * skipping those not to dial (unknown, unreachable, lacking the services we need, of a
 * network group we are connected to); the first left is dialled block-relay-only. 1 if
 * one was. */
static int open_anchor(struct net *n)
{
    while (n->n_anchors > 0) {
        struct addrman_addr a = n->anchors[--n->n_anchors];
        uint64_t need = NODE_WITNESS | (a.services & NODE_NETWORK_LIMITED ? NODE_NETWORK_LIMITED
                                                                          : NODE_NETWORK);
        /* Core's reachable set holds the unroutable "network" too, unless -onlynet. */
        int net = net_addr_network(&a.addr);
        int reachable = net == NETWORK_UNROUTABLE ? !n->opt.onlynet : net_network_reachable(n, net);
        if (a.addr.net == 0 || localaddr_is_local(n->local, &a.addr) || !reachable ||
            (a.services & need) != need || group_taken(n, &a.addr)) {
            continue;
        }
        char text[NET_ADDR_STR_LEN];
        net_addr_format(&a.addr, 1, text);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Trying to make an anchor connection to %s", text);
        int use_v2 = (a.services & n->local_services & NODE_P2P_V2) != 0;
        struct peer *p = connect_to(n, &a.addr, CONN_BLOCK_RELAY, NULL, use_v2, a.time);
        if (p) {
            p->addr_services = a.services;
            p->addr_time = a.time;
        }
        return 1;
    }
    return 0;
}

/* -seednode: a connection that asks for addresses and leaves (Core's addr-fetch). */
static void open_seednode(struct net *n, const char *name)
{
    int v2 = (n->local_services & NODE_P2P_V2) != 0;
    struct net_addr a;
    char err[160];
    if (net_addr_parse(name, n->p->default_port, 1, &a, err, sizeof(err)) == RC_OK) {
        connect_to(n, &a, CONN_ADDR_FETCH, name, v2, 0);
    } else if (n->have_proxy) {
        connect_to(n, NULL, CONN_ADDR_FETCH, name, v2, 0);
    } else {
        LOG_INFO("-seednode: %s", err);
    }
}

/* Core's seednode schedule in ThreadOpenConnections: one seednode at once when the address
 * manager starts empty, then another every 10 seconds while fewer than 2 full-relay
 * outbound peers are connected, until all were asked. */
static void schedule_seednodes(struct net *n, int64_t now, int full_relay)
{
    if (n->add_addr_fetch && n->seeds_left > 0) {
        n->add_addr_fetch = 0;
        const char *seed = n->seednodes[--n->seeds_left];
        if (addrman_size(n->am, -1, -1) == 0) {
            LOG_INFO("Empty addrman, adding seednode (%s) to addrfetch", seed);
        } else {
            LOG_INFO("Couldn't connect to peers from addrman after %d seconds. Adding seednode "
                     "(%s) to addrfetch",
                     NET_ADD_NEXT_SEEDNODE_S, seed);
        }
        open_seednode(n, seed);
    }
    if (n->seeds_left > 0 && full_relay < NET_SEED_OUTBOUND_THRESHOLD &&
        now > n->seed_timer + NET_ADD_NEXT_SEEDNODE_S) {
        n->seed_timer = now;
        n->add_addr_fetch = 1;
    }
}

/* Core's ThreadOpenConnections, one attempt per call: full-relay peers up to 8, then
 * block-relay-only peers up to 2, from the address manager. */
static void open_automatic(struct net *n)
{
    if (!n->active || !n->opt.automatic || n->opt.max_connections <= 0) {
        return;
    }
    int64_t now = net_now(n);
    /* Paced by the machine's clock, as Core's loop sleeps 500 ms: a frozen mock time must
     * not stop it. */
    int64_t mono_us = time_mono_us();
    if (mono_us < n->next_outbound_us) {
        return;
    }
    n->next_outbound_us = mono_us + 500000;
    int full = count_conns(n, CONN_OUTBOUND_FULL_RELAY), blocks = count_conns(n, CONN_BLOCK_RELAY);
    schedule_seednodes(n, now, full);
    int type;
    if (n->n_anchors > 0 && blocks < NET_MAX_BLOCK_RELAY_ONLY && open_anchor(n)) {
        return;
    }
    if (full < NET_MAX_OUTBOUND_FULL_RELAY) {
        type = CONN_OUTBOUND_FULL_RELAY;
    } else if (blocks < NET_MAX_BLOCK_RELAY_ONLY) {
        type = CONN_BLOCK_RELAY;
    } else {
        return;
    }
    /* The fixed seeds, when nothing better is known: after a minute, or at once when no DNS
     * seed, -seednode or -addnode can bring addresses (Core's ThreadOpenConnections). */
    if (n->opt.fixedseeds && !n->fixed_seeds_added && addrman_size(n->am, -1, -1) == 0) {
        if (now > n->start_time + 60) {
            LOG_INFO("Adding fixed seeds as 60 seconds have passed and addrman is empty for at "
                     "least one reachable network");
            n->fixed_seeds_added = 1;
        } else if (!n->opt.dnsseed && n->n_seednodes == 0 && n->n_added == 0) {
            LOG_INFO("Adding fixed seeds as -dnsseed=0 (or IPv4/IPv6 connections are disabled "
                     "via -onlynet) and neither -addnode nor -seednode are provided");
            n->fixed_seeds_added = 1;
        }
    }
    if (n->fixed_seeds_added == 1) {
        n->fixed_seeds_added = 2;
        const uint8_t *d;
        size_t len, count;
        if (net_fixed_seeds(n->opt.chain ? n->opt.chain : "", &d, &len, &count)) {
            struct addrman_addr *v = xcalloc(count ? count : 1, sizeof(*v));
            size_t k = 0;
            for (size_t i = 0; i + 2 <= len && k < count;) {
                uint8_t net = d[i], l = d[i + 1];
                if (i + 2 + l + 2 > len || l > 32) {
                    break;
                }
                memset(&v[k], 0, sizeof(v[k]));
                v[k].addr.net = net;
                v[k].addr.len = l;
                memcpy(v[k].addr.addr, d + i + 2, l);
                v[k].addr.port = (uint16_t)((d[i + 2 + l] << 8) | d[i + 3 + l]);
                v[k].services = NODE_NETWORK | NODE_WITNESS;
                /* Core: a week-ish old, so that fresher addresses win. */
                v[k].time = now - 3 * 86400 - (int64_t)(i % (4 * 86400));
                k++;
                i += 2 + l + 2;
            }
            size_t added = 0;
            addrman_add(n->am, &added, v, k, NULL, 0, now);
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%zu fixed seeds added", added);
            free(v);
        }
    }
    uint32_t nets = 0;
    for (int k = NETWORK_IPV4; k < NETWORK_COUNT; k++) {
        if (net_network_reachable(n, k)) {
            nets |= ADDRMAN_NET_BIT(k);
        }
    }
    for (int tries = 0; tries < 100; tries++) {
        struct addrman_addr pick;
        int64_t last_try = 0;
        if (addrman_select(n->am, &pick, &last_try, 0, nets, now) != RC_OK ||
            localaddr_is_local(n->local, &pick.addr)) {
            return; /* Core: one of our own addresses ends this round */
        }
        if (group_taken(n, &pick.addr) || is_banned(n, &pick.addr) ||
            is_discouraged(n, &pick.addr)) {
            continue;
        }
        if (last_try && now - last_try < 600 && tries < 30) {
            continue; /* tried in the last 10 minutes: only if little else is left */
        }
        if ((pick.services & (NODE_NETWORK | NODE_WITNESS)) != (NODE_NETWORK | NODE_WITNESS) &&
            tries < 40) {
            continue;
        }
        if (pick.addr.port != n->p->default_port && tries < 50) {
            continue;
        }
        addrman_attempt(n->am, &pick.addr, 1, now);
        /* v2 only to a peer known to offer it: a v1 one would cost a retry. */
        int use_v2 = (pick.services & n->local_services & NODE_P2P_V2) != 0;
        struct peer *p = connect_to(n, &pick.addr, type, NULL, use_v2, pick.time);
        if (p) {
            p->addr_services = pick.services;
            p->addr_time = pick.time;
        }
        return;
    }
}


/* The DNS seeds (Core's ThreadDNSAddressSeed): on its own thread, as lookups block. */
struct dns_result {
    struct addrman_addr *v;
    size_t k;
    const char *seed;
};

static void dns_add(struct net *n, void *ctx)
{
    struct dns_result *r = ctx;
    size_t added = 0;
    addrman_add(n->am, &added, r->v, r->k, NULL, 0, net_now(n));
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%zu addresses found from DNS seed %s", r->k, r->seed);
}

static void *dns_main(void *arg)
{
    struct net *n = arg;
    log_thread_start("dnsseed");
    const char *const *seeds = net_dns_seeds(n->opt.chain ? n->opt.chain : "");
    /* With addresses already known, Core waits 11 s for connections first. */
    if (n->addrs_at_start > 0 && seeds[0]) {
        LOG_INFO("Waiting 11 seconds before querying DNS seeds.");
        for (int i = 0; i < 110; i++) {
            pthread_mutex_lock(&n->q_mu);
            int stop = n->stopping;
            pthread_mutex_unlock(&n->q_mu);
            if (stop) {
                return NULL;
            }
            time_sleep_ms(100);
        }
    }
    size_t found = 0;
    for (size_t s = 0; seeds[s]; s++) {
        pthread_mutex_lock(&n->q_mu);
        int stop = n->stopping;
        pthread_mutex_unlock(&n->q_mu);
        if (stop) {
            return NULL;
        }
        LOG_INFO("Loading addresses from DNS seed %s", seeds[s]);
        char host[300];
        /* x9: NODE_NETWORK | NODE_WITNESS, the service bits the seed filters by. */
        snprintf(host, sizeof(host), "x9.%s", seeds[s]);
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
        if (getaddrinfo(host, NULL, &hints, &res) != 0) {
            res = NULL;
            if (getaddrinfo(seeds[s], NULL, &hints, &res) != 0) {
                continue;
            }
        }
        struct dns_result r = {.seed = seeds[s]};
        size_t cap = 0;
        for (struct addrinfo *ai = res; ai && r.k < 256; ai = ai->ai_next) {
            struct net_addr na;
            if (net_addr_from_sockaddr(ai->ai_addr, &na) != RC_OK) {
                continue;
            }
            na.port = n->p->default_port;
            if (r.k == cap) {
                cap = cap ? 2 * cap : 32;
                r.v = xrealloc(r.v, cap * sizeof(*r.v));
            }
            r.v[r.k++] =
                (struct addrman_addr){na, NODE_NETWORK | NODE_WITNESS, time_now_s() - 3 * 86400};
        }
        freeaddrinfo(res);
        found += r.k;
        if (r.k) {
            net_call(n, dns_add, &r);
        }
        free(r.v);
    }
    LOG_INFO("%zu addresses found from DNS seeds", found);
    log_thread_exit("dnsseed");
    return NULL;
}

/* ---- The loop ---- */

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct net *n = arg;
    /* A loopbreak from net_free() that came before the loop began dispatching is lost (the
     * loop clears the flag when it starts): the timer sees the stop instead. */
    pthread_mutex_lock(&n->q_mu);
    int stop = n->stopping;
    pthread_mutex_unlock(&n->q_mu);
    if (stop) {
        event_base_loopbreak(n->base);
        return;
    }
    open_added(n);
    open_automatic(n);
    n->events.tick(n->events.ctx);
    submit_waiting(n);
    if (net_now(n) >= n->next_addr_dump) {
        n->next_addr_dump = net_now(n) + 15 * 60;
        save_addrs(n);
    }
}

static void *net_main(void *arg)
{
    struct net *n = arg;
    log_thread_start("net");
    /* This one thread does the work of Core's net, addcon, opencon and msghand threads; it
     * logs their start lines too, so that what watches a node's start-up for them sees the
     * same stages (doc/running.md). */
    LOG_INFO("addcon thread start");
    if (n->opt.automatic || n->opt.n_connect > 0) {
        LOG_INFO("opencon thread start");
        if (!n->opt.fixedseeds) {
            LOG_INFO("Fixed seeds are disabled");
        }
    }
    LOG_INFO("msghand thread start");
    event_base_dispatch(n->base);
    log_thread_exit("net");
    return NULL;
}

/* One listening socket on b (a default bind of "::" and "0.0.0.0" when is_default: one
 * whose address this host lacks is passed over). Returns 0 (bound, or passed over), or
 * RC_IO with err set as Core words it. */
static int listen_on(struct net *n, const struct net_bind *b, int is_default, char *err,
                     size_t err_len)
{
    struct sockaddr_storage ss;
    socklen_t len;
    char s[NET_ADDR_STR_LEN];
    net_addr_format(&b->addr, 1, s);
    if (net_addr_to_sockaddr(&b->addr, &ss, &len) != RC_OK) {
        return RC_OK;
    }
    evutil_socket_t fd = socket(ss.ss_family, SOCK_STREAM, 0);
    if (fd < 0) {
        return RC_OK;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss.ss_family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    evutil_make_socket_nonblocking(fd);
    if (bind(fd, (struct sockaddr *)&ss, len) != 0) {
        int e = errno;
        close(fd);
        if (is_default && e == EADDRNOTAVAIL) {
            return RC_OK; /* no IPv6 here */
        }
        if (e == EADDRINUSE) {
            snprintf(err, err_len,
                     "Unable to bind to %s on this computer. %s is probably already running.", s,
                     PACKAGE_NAME);
        } else {
            snprintf(err, err_len,
                     "Unable to bind to %s on this computer (bind returned error %s)", s,
                     strerror(e));
        }
        return RC_IO;
    }
    struct evconnlistener *l =
        evconnlistener_new(n->base, accept_cb, n, LEV_OPT_CLOSE_ON_FREE, 128, fd);
    if (!l) {
        close(fd);
        snprintf(err, err_len, "Unable to listen on %s", s);
        return RC_IO;
    }
    n->bound[n->n_listeners] = *b;
    n->listeners[n->n_listeners++] = l;
    if (n->opt.port == 0 || b->addr.port == 0) {
        /* Port 0: the kernel's choice (tests), reported by net_listening. */
        struct sockaddr_storage got;
        socklen_t gl = sizeof(got);
        struct net_addr ga;
        if (getsockname(fd, (struct sockaddr *)&got, &gl) == 0 &&
            net_addr_from_sockaddr((struct sockaddr *)&got, &ga) == RC_OK) {
            n->port = ga.port;
            net_addr_format(&ga, 1, s);
        }
    }
    LOG_INFO("Bound to %s", s);
    /* Core's Bind: a routable address bound to is ours (with -discover; not a Tor service
     * target, which is not to be gossiped, nor a -whitebind with noban). */
    if (!is_default && !b->onion && n->opt.discover &&
        (b->perms & NET_PERM_NOBAN) != NET_PERM_NOBAN) {
        localaddr_add(n->local, &b->addr, LOCAL_BIND,
                      net_network_reachable(n, net_addr_network(&b->addr)));
    }
    return RC_OK;
}

/* 1 for "0.0.0.0" and "::" (Core's IsBindAny). */
static int is_bind_any(const struct net_addr *a)
{
    static const uint8_t zero[16];
    return (a->net == BIP155_IPV4 || a->net == BIP155_IPV6) && memcmp(a->addr, zero, a->len) == 0;
}

/* Core's Discover: with -discover, when listening on every address, the addresses of the
 * interfaces that are up (not loopback) are ours, on the listen port. */
static void discover_interfaces(struct net *n, const struct net_options *opt)
{
    int any = opt->n_binds == 0;
    for (size_t i = 0; i < opt->n_binds; i++) {
        any |= is_bind_any(&opt->binds[i].addr);
    }
    struct ifaddrs *list;
    if (!opt->discover || !any || getifaddrs(&list) != 0) {
        return;
    }
    for (struct ifaddrs *ifa = list; ifa; ifa = ifa->ifa_next) {
        struct net_addr a;
        if (!ifa->ifa_addr || !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK) ||
            net_addr_from_sockaddr(ifa->ifa_addr, &a) != RC_OK) {
            continue;
        }
        if (localaddr_add_ip(n->local, &a, LOCAL_IF,
                             net_network_reachable(n, net_addr_network(&a))) &&
            log_ips()) {
            char s[NET_ADDR_STR_LEN];
            net_addr_format(&a, 0, s);
            LOG_INFO("Discover: %s", s);
        }
    }
    freeifaddrs(list);
}

/* Our own addresses: -externalip's (even on a network we do not reach: Core's
 * add_even_if_unreachable), then what -discover finds. Binds add theirs as they are bound. */
static void add_local_addresses(struct net *n, const struct net_options *opt)
{
    for (size_t i = 0; i < opt->n_externalip; i++) {
        localaddr_add(n->local, &opt->externalip[i], LOCAL_MANUAL, 1);
    }
    discover_interfaces(n, opt);
}

void net_local_addresses(struct net *n, struct localaddr_entry **out, size_t *count)
{
    localaddr_list(n->local, out, count);
}

/* The P2P listeners: -bind and -whitebind's addresses, else every address on -port. Returns
 * 0, or RC_IO with err set when one cannot be bound or none was. */
static int bind_listeners(struct net *n, const struct net_options *opt, char *err,
                          size_t err_len)
{
    struct net_bind defaults[3];
    const struct net_bind *binds = opt->binds;
    size_t nb = opt->n_binds;
    if (nb == 0) {
        /* Every interface on -port, and (Core's default Tor service target) 127.0.0.1 on
         * -port + 1, whose failure is only logged, as Core reports it and goes on. */
        memset(defaults, 0, sizeof(defaults));
        net_addr_parse("::", opt->port, 0, &defaults[0].addr, NULL, 0);
        net_addr_parse("0.0.0.0", opt->port, 0, &defaults[1].addr, NULL, 0);
        net_addr_parse("127.0.0.1", opt->onion_port, 0, &defaults[2].addr, NULL, 0);
        defaults[2].onion = 1;
        binds = defaults;
        nb = opt->onion_port ? 3 : 2;
    }
    for (size_t i = 0; i < nb && n->n_listeners < 8; i++) {
        int rc = listen_on(n, &binds[i], binds == defaults, err, err_len);
        if (rc && binds == defaults && binds[i].onion) {
            LOG_ERROR("%s", err); /* the default onion target only: not fatal */
            err[0] = 0;
            continue;
        }
        if (rc) {
            return rc;
        }
    }
    if (n->n_listeners == 0) {
        snprintf(err, err_len, "Failed to listen on any port. Use -listen=0 if you want this.");
        return RC_IO;
    }
    return RC_OK;
}

/* -proxy, and -onion (else the proxy) for onion addresses. Returns 0, or RC_INVALID with
 * err set for an address that does not parse. */
static int set_proxies(struct net *n, const struct net_options *opt, char *err, size_t err_len)
{
    if (opt->proxy && opt->proxy[0]) {
        if (net_addr_parse(opt->proxy, 9050, 1, &n->proxy, NULL, 0) != RC_OK) {
            snprintf(err, err_len, "Invalid -proxy address or hostname: '%s'", opt->proxy);
            return RC_INVALID;
        }
        n->have_proxy = 1;
        net_addr_format(&n->proxy, 1, n->proxy_str);
    }
    if (opt->onion_proxy && opt->onion_proxy[0]) {
        if (net_addr_parse(opt->onion_proxy, 9050, 1, &n->onion_proxy, NULL, 0) != RC_OK) {
            snprintf(err, err_len, "Invalid -onion address or hostname: '%s'", opt->onion_proxy);
            return RC_INVALID;
        }
        n->have_onion_proxy = 1;
        net_addr_format(&n->onion_proxy, 1, n->onion_proxy_str);
    } else if (n->have_proxy) {
        n->have_onion_proxy = 1;
        n->onion_proxy = n->proxy;
        memcpy(n->onion_proxy_str, n->proxy_str, sizeof(n->proxy_str));
    }
    return RC_OK;
}

int net_transport_new(struct net **out, const struct net_options *opt, char *err,
                      size_t err_len)
{
    static int threads_set;
    if (!threads_set) {
        evthread_use_pthreads();
        threads_set = 1;
    }
    struct net *n = xcalloc(1, sizeof(*n));
    n->opt = *opt;
    n->upload.limit = opt->max_upload;
    /* What is kept past the call is copied (the caller's arrays may go). */
    struct net_whitelist *wl = xcalloc(opt->n_whitelist ? opt->n_whitelist : 1, sizeof(*wl));
    if (opt->n_whitelist) {
        memcpy(wl, opt->whitelist, opt->n_whitelist * sizeof(*wl));
    }
    n->opt.whitelist = wl;
    n->opt.binds = NULL;
    n->opt.connect = n->opt.addnode = n->opt.seednode = NULL;
    n->val = opt->val;
    n->cs = validator_chainstate(opt->val);
    n->p = chainstate_params(n->cs);
    n->local_services = (opt->pruned ? 0 : NODE_NETWORK) | NODE_WITNESS | NODE_NETWORK_LIMITED |
                        (opt->block_filters ? NODE_COMPACT_FILTERS : 0) |
                        (opt->peer_bloom_filters ? NODE_BLOOM : 0) |
                        (opt->v2transport ? NODE_P2P_V2 : 0);
    if (opt->user_agent_comment && opt->user_agent_comment[0]) {
        snprintf(n->user_agent, sizeof(n->user_agent), "/bitnode:%s(%s)/", PACKAGE_VERSION,
                 opt->user_agent_comment);
    } else {
        snprintf(n->user_agent, sizeof(n->user_agent), "/bitnode:%s/", PACKAGE_VERSION);
    }
    n->opt.user_agent_comment = NULL;
    n->active = opt->network_active;
    LOG_INFO("SetNetworkActive: %s", n->active ? "true" : "false"); /* Core's, from -networkactive */
    n->port = opt->port;
    pthread_mutex_init(&n->q_mu, NULL);
    pthread_cond_init(&n->call_cv, NULL);
    random_bytes((uint8_t *)n->group_key, sizeof(n->group_key));
    n->base = event_base_new();
    if (!n->base) {
        snprintf(err, err_len, "cannot create the libevent base");
        free(n);
        return RC_IO;
    }
    n->done_ev = event_new(n->base, -1, 0, done_cb, n);
    n->call_ev = event_new(n->base, -1, 0, call_cb, n);
    n->cleanup_ev = event_new(n->base, -1, 0, cleanup_cb, n);
    n->timer_ev = event_new(n->base, -1, EV_PERSIST, timer_cb, n);
    int rc;
    /* The proxies first: whether onion is reachable depends on them. */
    localaddr_new(&n->local, opt->discover, opt->listen, opt->listen_port);
    if ((rc = set_proxies(n, opt, err, err_len)) ||
        (opt->listen && (rc = bind_listeners(n, opt, err, err_len)))) {
        net_transport_free(n);
        return rc;
    }
    add_local_addresses(n, opt);
    n->opt.externalip = NULL;
    n->opt.n_externalip = 0;
    n->opt.proxy = n->opt.onion_proxy = NULL;
    n->seednodes = xcalloc(opt->n_seednode ? opt->n_seednode : 1, sizeof(*n->seednodes));
    for (size_t i = 0; i < opt->n_seednode; i++) {
        snprintf(n->seednodes[i], sizeof(n->seednodes[i]), "%s", opt->seednode[i]);
    }
    n->n_seednodes = opt->n_seednode;
    /* Core shuffles them (a restart does not ask the same one first) and asks one at once
     * only if the address manager is empty. */
    for (size_t i = n->n_seednodes; i > 1; i--) {
        uint64_t r;
        random_bytes((uint8_t *)&r, sizeof(r));
        size_t j = (size_t)(r % i);
        char tmp[NET_ADDR_STR_LEN];
        memcpy(tmp, n->seednodes[i - 1], sizeof(tmp));
        memcpy(n->seednodes[i - 1], n->seednodes[j], sizeof(tmp));
        memcpy(n->seednodes[j], tmp, sizeof(tmp));
    }
    n->seeds_left = n->n_seednodes;
    n->am = addrman_new(opt->deterministic_addrman ? 1 : 0);
    if ((rc = load_addrs(n, err, err_len)) != RC_OK) {
        net_transport_free(n);
        return rc;
    }
    n->start_time = net_now(n);
    n->next_addr_dump = n->start_time + 15 * 60;
    for (size_t i = 0; i < opt->n_connect; i++) {
        add_target(n, opt->connect[i], 1, opt->v2transport);
    }
    for (size_t i = 0; i < opt->n_addnode; i++) {
        add_target(n, opt->addnode[i], 0, opt->v2transport);
    }
    LOG_INFO("init message: Loading banlist\u2026");
    load_bans(n);
    *out = n;
    return RC_OK;
}

int net_start(struct net *n)
{
    load_anchors(n);
    n->add_addr_fetch = n->n_seednodes > 0 && addrman_size(n->am, -1, -1) == 0;
    n->seed_timer = net_now(n);
    struct timeval tv = {0, 100000};
    event_add(n->timer_ev, &tv);
    pthread_mutex_lock(&n->q_mu);
    n->thread_started = 1;
    pthread_mutex_unlock(&n->q_mu);
    if (pthread_create(&n->thread, NULL, net_main, n) != 0) {
        pthread_mutex_lock(&n->q_mu);
        n->thread_started = 0;
        pthread_mutex_unlock(&n->q_mu);
        return RC_IO;
    }
    event_active(n->timer_ev, EV_TIMEOUT, 0);
    n->addrs_at_start = addrman_size(n->am, -1, -1); /* before the DNS thread reads it */
    if (!n->opt.dnsseed) {
        LOG_INFO("DNS seeding disabled");
    } else if (n->opt.automatic && pthread_create(&n->dns_thread, NULL, dns_main, n) == 0) {
        n->dns_started = 1;
    }
    return RC_OK;
}

void net_set_events(struct net *n, const struct net_events *ev)
{
    n->events = *ev;
}

void net_transport_free(struct net *n)
{
    if (!n) {
        return;
    }
    pthread_mutex_lock(&n->q_mu);
    int started = n->thread_started;
    n->stopping = 1;
    pthread_mutex_unlock(&n->q_mu);
    if (n->dns_started) {
        pthread_join(n->dns_thread, NULL); /* its net_call returns at once now */
    }
    if (started) {
        event_base_loopbreak(n->base);
        pthread_join(n->thread, NULL);
        /* The jobs the validator still has come back through job_done_cb (the validator
         * outlives n): wait for them before their memory goes. */
        pthread_mutex_lock(&n->q_mu);
        while (n->jobs_out > 0) {
            pthread_cond_wait(&n->call_cv, &n->q_mu);
        }
        struct net_job *list = n->done_head;
        n->done_head = NULL;
        pthread_mutex_unlock(&n->q_mu);
        while (list) {
            struct net_job *j = list;
            list = j->next;
            free(j->data);
            free(j);
        }
    }
    while (n->waiting_head) {
        struct net_job *j = n->waiting_head;
        n->waiting_head = j->next;
        free(j->data);
        free(j);
    }
    if (n->bans_dirty) {
        save_bans(n);
    }
    if (n->am && started) {
        save_addrs(n);
        if (n->opt.net_dir && n->opt.automatic) {
            save_anchors(n);
        }
    }
    while (n->peers) {
        struct peer *p = n->peers;
        n->peers = p->next;
        free_peer(n, p);
    }
    for (size_t i = 0; i < n->n_listeners; i++) {
        evconnlistener_free(n->listeners[i]);
    }
    if (n->done_ev) {
        event_free(n->done_ev);
        event_free(n->call_ev);
        event_free(n->cleanup_ev);
        event_free(n->timer_ev);
    }
    event_base_free(n->base);
    pthread_mutex_destroy(&n->q_mu);
    pthread_cond_destroy(&n->call_cv);
    free((void *)n->opt.whitelist);
    free(n->bans);
    free(n->added);
    free(n->anchors);
    addrman_free(n->am);
    localaddr_free(n->local);
    free(n->seednodes);
    free(n);
}

const char *net_user_agent(const struct net *n)
{
    return n->user_agent;
}

int net_local_relay(const struct net *n)
{
    return n->opt.mempool && !n->opt.blocks_only;
}

/* ---- Driving the service on the caller's thread (fuzzing, tests) ---- */

int net_drive_inbound(struct net *n, int64_t *peer_id, int *remote_fd, const struct net_addr *a,
                      uint32_t perms)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
        return RC_IO;
    }
    evutil_make_socket_nonblocking(fds[0]);
    evutil_make_socket_nonblocking(fds[1]);
    struct bufferevent *bev = bufferevent_socket_new(n->base, fds[0], BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        close(fds[0]);
        close(fds[1]);
        return RC_IO;
    }
    struct peer *p = new_peer(n, bev, a, CONN_INBOUND);
    p->perms = perms;
    p->connected = 1;
    *peer_id = p->id;
    *remote_fd = fds[1];
    return RC_OK;
}

int net_drive_receive(struct net *n, int64_t peer_id, const uint8_t *d, size_t len)
{
    struct peer *p = net_find_peer(n, peer_id);
    if (!p || p->disconnect || !p->bev) {
        return RC_NOT_FOUND;
    }
    /* A socket bufferevent keeps its input's end frozen: only it adds what it reads. */
    struct evbuffer *in = bufferevent_get_input(p->bev);
    evbuffer_unfreeze(in, 0);
    evbuffer_add(in, d, len);
    evbuffer_freeze(in, 0);
    if (!p->read_paused) {
        read_cb(p->bev, p);
    }
    return RC_OK;
}

void net_drive_settle(struct net *n, int remote_fd)
{
    uint8_t sink[4096];
    for (int round = 0; round < 64; round++) {
        pthread_mutex_lock(&n->q_mu);
        while (n->jobs_out > 0) {
            pthread_cond_wait(&n->call_cv, &n->q_mu);
        }
        int more = n->done_head != NULL;
        pthread_mutex_unlock(&n->q_mu);
        event_base_loop(n->base, EVLOOP_NONBLOCK);
        while (remote_fd >= 0 && read(remote_fd, sink, sizeof(sink)) > 0) {
        }
        if (!more && !n->waiting_head) {
            return;
        }
    }
}
