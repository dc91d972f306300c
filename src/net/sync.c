/* The P2P protocol (sync.h): what each message does, the version handshake, pings,
 * headers-first sync, the block download window, serving headers and blocks, and announcing
 * new tips; transactions and compact blocks are handed to txrelay.c and cmpctrelay.c, which it
 * owns. The transport (net.c) drives it through the events of sync_events and is used
 * through net_impl.h. Runs on the net thread only. The chain is read under the chain's read
 * lock; every change to it is a validator job, whose verdict comes back as a job_done event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "consensus/arith256.h"
#include "consensus/pow.h"
#include "crypto/hash.h"
#include "net/addrman.h"
#include "net/addrrelay.h"
#include "net/bloomrelay.h"
#include "net/cfilters.h"
#include "net/cmpctrelay.h"
#include "net/headerssync.h"
#include "net/localaddr.h"
#include "net/net_impl.h"
#include "net/peer_sync.h"
#include "net/sync.h"
#include "primitives/serialize.h"
#include "net/txrecon.h"
#include "net/txrelay.h"
#include "primitives/block.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#define MAX_GETBLOCKS_RESULTS 500
#define MAX_HEADERS_ANNOUNCE NET_MAX_BLOCKS_TO_ANNOUNCE

/* A block received from a peer whose connect verdict is still to come (Core's
 * mapBlockSource): the peer is punished if it turns out invalid. */
struct block_source {
    uint8_t hash[32];
    int64_t peer_id;
    int64_t time;
    int alone; /* no other block was in flight when it was stored (Core checks it then) */
    int promoted; /* its sender was made a high-bandwidth announcer for it */
    int via_compact; /* rebuilt from the sender's cmpctblock */
};
#define NET_BLOCK_SOURCES 1024

struct sync {
    struct blockfilter_index *block_filters; /* -peerblockfilters (borrowed), or NULL */
    struct net *net;              /* the transport: peers, sends, the clock, validator jobs */
    struct chainstate *cs;        /* borrowed (the transport's) */
    const struct chain_params *p;
    struct addrman *am;           /* borrowed from the transport: addr, getaddr, good peers */
    int64_t peer_timeout;         /* -peertimeout, seconds */
    int relay;                    /* a pool and not -blocksonly: our version asks for txs */
    uint8_t (*processing)[32];    /* blocks received and not yet judged: not asked for again */
    int header_jobs;              /* headers messages out with the validator */
    size_t n_processing, cap_processing;
    struct block_index *last_tip; /* the tip announcements were made for */
    int self_announce; /* listening and out of initial block download (each tick): our own
                          address goes to peers (addrrelay.h) */
    uint8_t last_inv_getheaders[32]; /* the block whose inv last made a non-sync peer asked */
    int64_t stall_timeout_us;        /* Core's block stalling timeout: 2 s, doubled per staller
                                        dropped (at most 64 s), down 15% per block connected */
    int32_t last_getheaders_height;  /* the locator's height of the last getheaders sent */
    struct block_index *notified_header; /* the best header the progress line was logged for */
    struct block_source sources[NET_BLOCK_SOURCES];
    size_t n_sources;
    struct txrelay *txr;      /* transaction relay */
    struct addrrelay *ar;     /* address relay */
    struct cmpctrelay *cmpct; /* compact blocks */
};

static void schedule_downloads(struct sync *s);
static void promote_source(struct sync *s, struct block_source *src, struct block_index *e);

static const char *peer_log_id(const struct peer *p, char *out, size_t len)
{
    snprintf(out, len, "peer=%lld", (long long)p->id);
    return out;
}

/* ---- Chain helpers (chain read lock held) ---- */

/* Core's GetAntiDoSWorkThreshold: headers chains with less work than this are not stored
 * (the tip's work less 144 blocks of it, at least the minimum chain work). */
static void anti_dos_work(struct sync *s, struct u256 *out)
{
    struct block_index *tip = chainstate_tip(s->cs);
    *out = s->p->minimum_chain_work;
    if (!tip) {
        return;
    }
    struct u256 w, buffer, near;
    pow_block_proof(&w, tip->header.bits);
    u256_mul_u32(&buffer, &w, 144);
    if (u256_cmp(&tip->chain_work, &buffer) > 0) {
        u256_sub(&near, &tip->chain_work, &buffer);
        if (u256_cmp(&near, out) > 0) {
            *out = near;
        }
    }
}

/* Core's locator: the 10 blocks back from e one by one, then doubling steps, then genesis. */
static size_t build_locator(struct block_index *e, uint8_t (**out)[32])
{
    size_t cap = 64, k = 0;
    uint8_t(*h)[32] = xmalloc(cap * 32);
    int32_t step = 1;
    while (e) {
        if (k == cap) {
            cap *= 2;
            h = xrealloc(h, cap * 32);
        }
        memcpy(h[k++], e->hash, 32);
        if (e->height == 0) {
            break;
        }
        int32_t height = e->height - step > 0 ? e->height - step : 0;
        e = block_index_ancestor(e, height);
        if (k > 10) {
            step *= 2;
        }
    }
    *out = h;
    return k;
}

static int peer_has_header(const struct peer *p, struct block_index *e)
{
    if (p->ps->best_known && block_index_ancestor(p->ps->best_known, e->height) == e) {
        return 1;
    }
    if (p->ps->best_sent && block_index_ancestor(p->ps->best_sent, e->height) == e) {
        return 1;
    }
    return 0;
}

/* Core's UpdateBlockAvailability: the peer has the block of hash (if we know the header and
 * it has more work than the best known one), else remember the hash. */
static void update_availability(struct sync *s, struct peer *p, const uint8_t hash[32])
{
    struct block_index *e = block_tree_find(chainstate_tree(s->cs), hash);
    if (e && !u256_is_zero(&e->chain_work)) {
        if (!p->ps->best_known || u256_cmp(&e->chain_work, &p->ps->best_known->chain_work) >= 0) {
            p->ps->best_known = e;
        }
        if (p->ps->has_best_unknown && memcmp(p->ps->best_unknown, hash, 32) == 0) {
            p->ps->has_best_unknown = 0;
        }
    } else {
        memcpy(p->ps->best_unknown, hash, 32);
        p->ps->has_best_unknown = 1;
    }
}

static void resolve_unknown(struct sync *s, struct peer *p)
{
    if (!p->ps->has_best_unknown) {
        return;
    }
    struct block_index *e = block_tree_find(chainstate_tree(s->cs), p->ps->best_unknown);
    if (e) {
        p->ps->has_best_unknown = 0;
        if (!p->ps->best_known || u256_cmp(&e->chain_work, &p->ps->best_known->chain_work) >= 0) {
            p->ps->best_known = e;
        }
    }
}

/* ---- Sending helpers ---- */

static void send_version(struct sync *s, struct peer *p)
{
    struct net *n = s->net;
    struct net_version v;
    memset(&v, 0, sizeof(v));
    v.version = NET_PROTOCOL_VERSION;
    /* Core's peer.m_our_services: NODE_BLOOM also to a peer with the bloomfilter permission. */
    v.services = net_local_services(n) | (bloomrelay_offered(p) ? NODE_BLOOM : 0);
    v.time = net_now(n);
    /* addr_recv: the peer's address if routable (as Core), else all zero. */
    if (net_addr_is_routable(&p->addr)) {
        net_addr_to_ip16(&p->addr, v.addr_recv.ip);
        v.addr_recv.port = p->addr.port;
        v.addr_recv.services = p->ps->ver.services;
    }
    v.addr_from.services = v.services;
    v.nonce = p->ps->local_nonce;
    snprintf(v.user_agent, sizeof(v.user_agent), "%s", net_user_agent(n));
    chainstate_read_lock(s->cs);
    struct block_index *tip = chainstate_tip(s->cs);
    v.start_height = tip ? tip->height : 0;
    chainstate_read_unlock(s->cs);
    /* Core's RejectIncomingTxs: neither a block-relay-only peer nor a feeler is asked for
     * transactions; under -blocksonly only a peer with the relay permission is. */
    v.relay = p->conn_type != CONN_BLOCK_RELAY && p->conn_type != CONN_FEELER &&
              (s->relay || (s->net->opt.mempool && (p->perms & NET_PERM_RELAY) == NET_PERM_RELAY));
    struct buf b;
    buf_init(&b);
    net_version_serialize(&b, &v);
    net_send(p, "version", &b);
    buf_clear(&b);
    p->ps->sent_version = 1;
}

/* The connected event: a new peer's protocol state. */
static void on_connected(void *ctx, struct peer *p)
{
    struct sync *s = ctx;
    p->ps = xcalloc(1, sizeof(*p->ps));
    p->ps->ping_us = -1;
    p->ps->next_ping_us = net_now_us(s->net) + NET_PING_INTERVAL_US;
    p->ps->addr_tokens = 1.0; /* Core starts every peer's bucket with one address */
    random_bytes((uint8_t *)&p->ps->local_nonce, sizeof(p->ps->local_nonce));
}

/* The opened event: an outbound connection is up, and we speak first. */
static void on_opened(void *ctx, struct peer *p)
{
    send_version(ctx, p);
}

/* A getheaders from e's locator (e: NULL for our best header). Chain lock held. */
static void send_getheaders(struct sync *s, struct peer *p, struct block_index *from,
                            const uint8_t *stop)
{
    if (!from) {
        from = chainstate_best_header(s->cs);
        if (!from) {
            from = chainstate_tip(s->cs);
        }
    }
    if (!from) {
        return;
    }
    uint8_t(*loc)[32];
    size_t k = build_locator(from, &loc);
    static const uint8_t zero[32];
    struct buf b;
    buf_init(&b);
    net_locator_serialize(&b, NET_LOCATOR_VERSION, (const uint8_t(*)[32])loc, k,
                          stop ? stop : zero);
    net_send(p, "getheaders", &b);
    buf_clear(&b);
    free(loc);
    p->ps->headers_asked_us = net_now_us(s->net);
    s->last_getheaders_height = from->height; /* for the caller's line, in Core's words */
}

static void send_ping(struct peer *p)
{
    uint64_t nonce = 0;
    while (nonce == 0) {
        random_bytes((uint8_t *)&nonce, sizeof(nonce));
    }
    struct buf b;
    buf_init(&b);
    buf_put_u64le(&b, nonce);
    net_send(p, "ping", &b);
    buf_clear(&b);
    p->ps->ping_nonce = nonce;
    p->ps->ping_start_us = net_now_us(p->net);
    p->ps->next_ping_us = p->ps->ping_start_us + NET_PING_INTERVAL_US;
    p->ps->ping_asked = 0;
}

/* Core's GetDesirableServiceFlags: a NODE_NETWORK_LIMITED peer will do while our tip is less
 * than 144 block intervals old (it serves the last 288 blocks); else NODE_NETWORK is wanted.
 * Both with NODE_WITNESS. */
static uint64_t desirable_services(struct sync *s, uint64_t services)
{
    if (services & NODE_NETWORK_LIMITED) {
        chainstate_read_lock(s->cs);
        struct block_index *tip = chainstate_tip(s->cs);
        int64_t tip_time = tip ? (int64_t)tip->header.time : 0;
        chainstate_read_unlock(s->cs);
        if ((net_now(s->net) - tip_time) / s->p->pow_target_spacing < 144) {
            return NODE_NETWORK_LIMITED | NODE_WITNESS;
        }
    }
    return NODE_NETWORK | NODE_WITNESS;
}

/* ---- The handshake ---- */

/* Core's TimeOffsets::Add then WarnIfOutOfSync, for an outbound peer's version only (an
 * inbound peer could fake the warning): the clock warning raised or cleared. */
static void record_time_offset(struct net *n, int64_t offset)
{
    timeoffsets_add(&n->time_offsets, offset);
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Added time offset %+llds, total samples %zu",
        (long long)offset, n->time_offsets.n);
    int out = timeoffsets_out_of_sync(&n->time_offsets);
    char msg[600];
    if (out) {
        timeoffsets_warning(msg, sizeof(msg));
        LOG_WARN("%s", msg);
    }
    if (n->opt.clock_warning) {
        n->opt.clock_warning(n->opt.clock_warning_ctx, out ? msg : NULL);
    }
}

static void on_version(struct sync *s, struct peer *p, const uint8_t *d, size_t len)
{
    struct net *n = s->net;
    char err[160], lid[32];
    if (p->ps->got_version) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "redundant version message from %s",
            peer_log_id(p, lid, sizeof(lid)));
        return;
    }
    struct net_version v;
    if (net_version_parse(d, len, &v, err, sizeof(err)) != RC_OK) {
        net_malformed(p, "version", len, err);
        return;
    }
    if (v.version < NET_MIN_PEER_PROTO_VERSION) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "peer using obsolete version %d, disconnecting peer=%lld",
            v.version, (long long)p->id);
        net_peer_disconnect(p, "obsolete version");
        return;
    }
    if (p->conn_type == CONN_INBOUND) {
        for (struct peer *q = n->peers; q; q = q->next) {
            if (q != p && q->conn_type != CONN_INBOUND && q->ps->local_nonce == v.nonce &&
                v.nonce != 0) {
                LOG_INFO("connected to self at %s, disconnecting", p->addr_str);
                net_peer_disconnect(p, "connected to self");
                return;
            }
        }
    }
    uint64_t want = desirable_services(s, v.services);
    if ((p->conn_type == CONN_OUTBOUND_FULL_RELAY || p->conn_type == CONN_BLOCK_RELAY ||
         p->conn_type == CONN_ADDR_FETCH) &&
        (v.services & want) != want) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "peer does not offer the expected services (%08llx offered, %08llx expected), "
            "disconnecting peer=%lld",
            (unsigned long long)v.services, (unsigned long long)want, (long long)p->id);
        net_peer_disconnect(p, "services");
        return;
    }
    p->ps->ver = v;
    p->ps->got_version = 1;
    p->relevant_services = (v.services & want) == want;
    /* Core keeps no transaction relay for a block-relay-only or feeler connection, whatever
     * its version asks (getpeerinfo's relaytxes false). */
    p->relay_txs = v.relay && p->conn_type != CONN_BLOCK_RELAY && p->conn_type != CONN_FEELER;
    p->ps->time_offset = v.time - net_now(n);
    if (p->conn_type != CONN_INBOUND) {
        record_time_offset(n, p->ps->time_offset);
    }
    {
        struct net_addr me;
        net_addr_from_ip16(v.addr_recv.ip, v.addr_recv.port, &me);
        static const uint8_t zero[16];
        if (memcmp(v.addr_recv.ip, zero, 16) != 0) {
            net_addr_format(&me, 1, p->ps->addr_local);
            p->ps->addr_local_na = me;
            p->ps->have_addr_local = 1;
        }
        /* Core's SeenLocal: an inbound peer that sees us at one of our addresses votes for
         * it. */
        if (p->conn_type == CONN_INBOUND && net_addr_is_routable(&me)) {
            localaddr_seen(n->local, &me);
        }
    }
    if (p->conn_type == CONN_INBOUND && !p->ps->sent_version) {
        send_version(s, p);
    }
    int common = v.version < NET_PROTOCOL_VERSION ? v.version : NET_PROTOCOL_VERSION;
    if (common >= NET_WTXID_RELAY_VERSION) {
        net_send_empty(p, "wtxidrelay");
    }
    if (common >= NET_WTXID_RELAY_VERSION) {
        net_send_empty(p, "sendaddrv2"); /* BIP155: Core offers it from 70016 on */
    }
    txrecon_on_version(p, common, s->relay);
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
        "receive version message: %s: version %d, blocks=%d, us=%s, txrelay=%d, peer=%lld%s%s",
        v.user_agent, v.version, v.start_height, p->ps->addr_local, v.relay, (long long)p->id,
        log_ips() ? ", peeraddr=" : "", log_ips() ? p->addr_str : "");
    /* Too many inbound transaction relayers: another one goes, or this one (no verack). */
    if (net_tx_relay_capacity_drop(p, "version", p->id)) {
        return;
    }
    net_send_empty(p, "verack");
    if (p->conn_type == CONN_FEELER) {
        /* A feeler only learns that the address answers (Core): it is a working address, and
         * the connection ends here. */
        addrman_good(s->am, NULL, &p->addr, net_now(n));
        addrman_set_services(s->am, &p->addr, v.services);
        net_peer_disconnect(p, "feeler connection completed");
    }
}

static int can_serve_blocks(const struct peer *p)
{
    return (p->ps->ver.services & (NODE_NETWORK | NODE_NETWORK_LIMITED)) != 0;
}

/* Core's fPreferredDownload: an outbound (or noban) peer that serves blocks, not addr-fetch. */
static int preferred_download(const struct peer *p)
{
    return (p->conn_type != CONN_INBOUND || (p->perms & NET_PERM_NOBAN) == NET_PERM_NOBAN) &&
           p->conn_type != CONN_ADDR_FETCH && can_serve_blocks(p);
}

/* Core's choice of headers-sync peers: while our best header is more than a day old, one
 * peer at a time, a preferred one (an inbound one only when no preferred peer is there or
 * nothing is being downloaded); near today, every peer that serves blocks. Never an
 * addr-fetch connection unless the header is recent. */
static int may_start_sync(struct sync *s, struct peer *p, const struct block_index *best)
{
    if (!can_serve_blocks(p)) {
        return 0;
    }
    if (best && (int64_t)best->header.time > net_now(s->net) - 24 * 60 * 60) {
        return 1;
    }
    int started = 0, preferred = 0, inflight = 0;
    for (struct peer *q = s->net->peers; q; q = q->next) {
        if (q->disconnect || !q->ps) {
            continue;
        }
        started += q->ps->sync_started;
        preferred += q->ps->handshake_done && preferred_download(q);
        inflight += q->ps->n_inflight;
    }
    int from_peer = preferred_download(p) ||
                    (p->conn_type != CONN_ADDR_FETCH && (preferred == 0 || inflight == 0));
    return started == 0 && from_peer;
}

static int consider_eviction(struct sync *s, struct peer *p, int64_t now);

static void start_sync(struct sync *s, struct peer *p)
{
    if (p->ps->sync_started) {
        return;
    }
    chainstate_read_lock(s->cs);
    struct block_index *best = chainstate_best_header(s->cs);
    if (!may_start_sync(s, p, best)) {
        chainstate_read_unlock(s->cs);
        return;
    }
    p->ps->sync_started = 1;
    /* Core starts from the parent of the best header, so that the answer is never empty
     * when the peer has nothing new: it tells us its best block. */
    send_getheaders(s, p, best && best->prev ? best->prev : best, NULL);
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "initial getheaders (%d) to peer=%lld",
        s->last_getheaders_height, (long long)p->id);
    /* Core's headers-sync timeout: 15 minutes, and 1 ms per block interval the best header is
     * behind today. */
    int64_t behind = best ? net_now(s->net) - (int64_t)best->header.time : 0;
    p->ps->headers_sync_timeout_us = net_now_us(s->net) + 15 * 60 * 1000000LL +
                                     (behind > 0 ? behind / s->p->pow_target_spacing * 1000 : 0);
    /* The chain-sync deadline starts now, as Core's first SendMessages after the handshake
     * sets it (not at the next tick, which a moved clock could already be past). */
    consider_eviction(s, p, net_now(s->net));
    chainstate_read_unlock(s->cs);
}

static void on_verack(struct sync *s, struct peer *p)
{
    struct net *n = s->net;
    if (!p->ps->got_version) {
        return;
    }
    if (p->ps->handshake_done) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "ignoring redundant verack message from peer=%lld",
            (long long)p->id);
        return;
    }
    p->ps->handshake_done = 1;
    txrecon_on_verack(p);
    /* Blocks connected before now are not news to this peer (Core announces a block only to
     * the peers it had when the block connected). */
    chainstate_read_lock(s->cs);
    p->ps->tip_at_handshake = chainstate_tip(s->cs);
    chainstate_read_unlock(s->cs);
    /* Core's line: at info for outbound peers, at debug for inbound ones (an attacker could
     * have it written at a high rate). */
    uint32_t cat = p->conn_type == CONN_INBOUND ? LOG_CAT_NET : LOG_CAT_NONE;
    LOG(cat, cat == LOG_CAT_NET ? LOG_LVL_DEBUG : LOG_LVL_INFO,
        "New %s peer connected: transport: %s, version: %d, peer=%lld%s%s",
        net_conn_type_name(p->conn_type), net_peer_transport_name(p), p->ps->ver.version,
        (long long)p->id, log_ips() ? ", peeraddr=" : "", log_ips() ? p->addr_str : "");
    if (p->ps->ver.version >= NET_SENDHEADERS_VERSION) {
        net_send_empty(p, "sendheaders");
    }
    cmpctrelay_on_verack(p);
    if (p->conn_type != CONN_INBOUND && p->conn_type != CONN_BLOCK_RELAY && !p->ps->sent_getaddr) {
        net_send_empty(p, "getaddr");
        p->ps->sent_getaddr = 1;
        p->ps->getaddr_pending = 1;
        addrrelay_enable(p);
        p->ps->addr_tokens += 1000.0; /* the answer may be as long as Core's MAX_ADDR_TO_SEND */
    }
    if (p->conn_type == CONN_OUTBOUND_FULL_RELAY || p->conn_type == CONN_BLOCK_RELAY) {
        /* A working address: into (or kept in) the tried table, with what it offers (a
         * feeler's was marked at its version, where it ended). */
        addrman_good(s->am, NULL, &p->addr, net_now(n));
        addrman_set_services(s->am, &p->addr, p->ps->ver.services);
    }
    send_ping(p);
    start_sync(s, p);
    txrelay_on_handshake(s->txr, p);
}

/* ---- Headers ---- */

/* Headers for p's pre-sync state: released ones go to the validator, more are asked for. */
static void presync_feed(struct sync *s, struct peer *p, const uint8_t *raw, size_t count)
{
    uint8_t *release = NULL;
    size_t n_release = 0;
    int more = 0;
    char err[160];
    int rc = headerssync_process(p->ps->hsync, raw, count, count == NET_MAX_HEADERS, &release,
                                 &n_release, &more, err, sizeof(err));
    int state = headerssync_state(p->ps->hsync);
    if (rc == HSYNC_MISBEHAVED) {
        headerssync_free(p->ps->hsync);
        p->ps->hsync = NULL;
        net_misbehaving(p, "%s", err);
        return;
    }
    if (rc == HSYNC_LOW_WORK) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "Ignoring low-work chain (height=%d) from peer=%lld after pre-sync",
            headerssync_presync_height(p->ps->hsync), (long long)p->id);
        headerssync_free(p->ps->hsync);
        p->ps->hsync = NULL;
        return;
    }
    if (state == HSYNC_PRESYNC) {
        LOG_INFO(
            "Pre-synchronizing blockheaders, height: %d (~%.2f%%)",
            headerssync_presync_height(p->ps->hsync),
            100.0 *
                (double)(headerssync_presync_time(p->ps->hsync) - (int64_t)s->p->genesis_header.time) /
                (double)(net_now(s->net) - (int64_t)s->p->genesis_header.time + 1));
    }
    if (n_release) {
        struct net_job *j = xcalloc(1, sizeof(*j));
        j->peer_id = p->id;
        j->data = release;
        j->len = n_release * 80;
        j->n_headers = n_release;
        j->presync = 1;
        hash_sha256d(j->hash, release + (n_release - 1) * 80, 80);
        memcpy(j->first_prev, release + 4, 32);
        j->job.work = VALIDATOR_HEADERS;
        j->job.data = j->data;
        j->job.len = j->len;
        s->header_jobs++;
        net_submit(s->net, j);
    }
    if (more) {
        uint8_t(*loc)[32];
        size_t k = headerssync_locator(p->ps->hsync, &loc);
        static const uint8_t zero[32];
        struct buf b;
        buf_init(&b);
        net_locator_serialize(&b, NET_LOCATOR_VERSION, (const uint8_t(*)[32])loc, k, zero);
        net_send(p, "getheaders", &b);
        buf_clear(&b);
        free(loc);
        p->ps->headers_asked_us = net_now_us(s->net);
    }
    if (state == HSYNC_DONE) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "headers pre-sync with peer=%lld done", (long long)p->id);
        headerssync_free(p->ps->hsync);
        p->ps->hsync = NULL;
    }
}

static void maybe_protect(struct sync *s, struct peer *p);

static void on_headers(struct sync *s, struct peer *p, const uint8_t *d, size_t len)
{
    struct net *n = s->net;
    char err[160];
    uint8_t *raw = NULL;
    size_t count = 0;
    int rc = net_headers_parse(d, len, &raw, &count, err, sizeof(err));
    if (rc == RC_TOO_LARGE) {
        net_misbehaving(p, "%s", err);
        return;
    }
    if (rc != RC_OK) {
        net_malformed(p, "headers", len, err);
        return;
    }
    p->ps->headers_asked_us = 0;
    if (count == 0) {
        free(raw);
        return; /* nothing new from this peer */
    }
    /* Each header's parent is the one before it. */
    uint8_t hash[32];
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && memcmp(raw + i * 80 + 4, hash, 32) != 0) {
            free(raw);
            net_misbehaving(p, "non-continuous headers sequence");
            return;
        }
        hash_sha256d(hash, raw + i * 80, 80);
        if (!pow_check(hash, rd_u32le(raw + i * 80 + 72), s->p)) {
            free(raw);
            net_misbehaving(p, "header with invalid proof of work");
            return;
        }
    }
    if (p->ps->hsync) {
        presync_feed(s, p, raw, count);
        free(raw);
        return;
    }
    chainstate_read_lock(s->cs);
    struct block_tree *tree = chainstate_tree(s->cs);
    struct block_index *parent = block_tree_find(tree, raw + 4);
    if (!parent) {
        /* Does not connect: ask for what leads to it (a block announcement we missed the
         * parents of). Not punished (Core since v28): each such message gets one getheaders,
         * as Core's (its getheaders timer is cleared by every headers message). */
        send_getheaders(s, p, NULL, NULL);
        char h0[65], prev0[65];
        uint8_t hash0[32];
        hash_sha256d(hash0, raw, 80);
        hex_encode_rev(h0, hash0, 32);
        hex_encode_rev(prev0, raw + 4, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "received header %s: missing prev block %s, sending getheaders (%d) to end (peer=%lld)",
            h0, prev0, s->last_getheaders_height, (long long)p->id);
        memcpy(p->ps->best_unknown, hash, 32);
        p->ps->has_best_unknown = 1;
        chainstate_read_unlock(s->cs);
        free(raw);
        return;
    }
    struct block_index *last = block_tree_find(tree, hash);
    if (last) {
        /* Known already: nothing to validate (Core's protection check still runs). */
        update_availability(s, p, hash);
        maybe_protect(s, p);
        if (count == NET_MAX_HEADERS) {
            send_getheaders(s, p, last, NULL);
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "more getheaders (%d) to end to peer=%lld",
                last->height, (long long)p->id);
        }
        chainstate_read_unlock(s->cs);
        free(raw);
        schedule_downloads(s);
        return;
    }
    /* The work this chain would have: too little, and it is not stored (Core's
     * low-work headers protection; with a full message Core pre-syncs it). */
    struct u256 work = parent->chain_work, threshold;
    for (size_t i = 0; i < count; i++) {
        struct block_header h;
        struct reader r;
        reader_init(&r, raw + i * 80, 80);
        block_header_parse(&h, &r);
        struct u256 w;
        pow_block_proof(&w, h.bits);
        u256_add(&work, &work, &w);
    }
    anti_dos_work(s, &threshold);
    /* A noban peer is trusted with its headers (Core bypasses the anti-DoS work check). */
    int low_work = (p->perms & NET_PERM_NOBAN) != NET_PERM_NOBAN && u256_cmp(&work, &threshold) < 0;
    chainstate_read_unlock(s->cs);
    if (low_work && count == NET_MAX_HEADERS) {
        /* A full message of a chain without the work yet: pre-sync it (nothing stored until
         * its work is shown). */
        struct headerssync_start start;
        chainstate_read_lock(s->cs);
        memcpy(start.hash, parent->hash, 32);
        start.height = parent->height;
        start.bits = parent->header.bits;
        start.chain_work = parent->chain_work;
        start.mtp = block_index_median_time_past(parent);
        chainstate_read_unlock(s->cs);
        p->ps->hsync = headerssync_new(s->p, &start, &threshold, net_now(n));
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "Initial headers sync started with peer=%lld: height=%d, max_commitments known",
            (long long)p->id, start.height);
        presync_feed(s, p, raw, count);
        free(raw);
        return;
    }
    if (low_work) {
        /* Not stored, and not punished (Core's low-work headers protection). */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Ignoring low-work chain (height=%d) from peer=%lld",
            parent->height + (int)count, (long long)p->id);
        free(raw);
        return;
    }
    struct net_job *j = xcalloc(1, sizeof(*j));
    j->peer_id = p->id;
    j->is_block = 0;
    j->data = raw;
    j->len = count * 80;
    j->n_headers = count;
    memcpy(j->hash, hash, 32);
    memcpy(j->first_prev, raw + 4, 32);
    j->job.work = VALIDATOR_HEADERS;
    j->job.data = j->data;
    j->job.len = j->len;
    j->in_order = 1; /* the peer's next headers build on these */
    s->header_jobs++;
    net_submit(n, j);
}

/* Core: up to 4 outbound full-relay peers that showed a chain with our tip's work are
 * protected from consider_eviction. Chain lock held. */
static void maybe_protect(struct sync *s, struct peer *p)
{
    struct block_index *tip = chainstate_tip(s->cs), *best = p->ps->best_known;
    if (p->disconnect || p->conn_type != CONN_OUTBOUND_FULL_RELAY || !best || !tip ||
        p->ps->chain_sync_protect || u256_cmp(&best->chain_work, &tip->chain_work) < 0) {
        return;
    }
    int protected_peers = 0;
    for (struct peer *q = s->net->peers; q; q = q->next) {
        protected_peers += q->ps && q->ps->chain_sync_protect;
    }
    if (protected_peers < 4) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Protecting outbound peer=%lld from eviction", (long long)p->id);
        p->ps->chain_sync_protect = 1;
    }
}

/* Core's NotifyHeaderTip line: when headers moved the best header during initial block
 * download, the last one taken and how far it is (from its time) to today. */
static void log_header_progress(struct sync *s, struct block_index *last)
{
    struct block_index *best = chainstate_best_header(s->cs);
    if (best == s->notified_header) {
        return;
    }
    s->notified_header = best;
    if (!chainstate_in_ibd(s->cs)) {
        return;
    }
    int64_t left = (net_now(s->net) - (int64_t)last->header.time) / s->p->pow_target_spacing;
    left = left > 0 ? left : 0;
    LOG_INFO("Synchronizing blockheaders, height: %d (~%.2f%%)", last->height,
             100.0 * last->height / ((double)last->height + (double)left));
}

/* A header or block verdict: Core's MaybePunishNodeForBlock. */
static void punish_for_block(struct peer *p, const struct vstate *st, const char *what)
{
    switch (st->result) {
    case VRESULT_NONE:
    case VRESULT_TIME_FUTURE:
        return;
    case VRESULT_MUTATED:
        /* Its body is not what its header commits to: the block itself may be fine. */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Received mutated block from peer=%lld", (long long)p->id);
        net_misbehaving(p, "mutated block");
        return;
    default:
        net_misbehaving(p, "%s: %s%s%s", what, st->reject, st->debug[0] ? ", " : "", st->debug);
    }
}

static void direct_fetch(struct sync *s, struct peer *p, struct block_index *last);

static void headers_done(struct sync *s, struct peer *p, struct net_job *j)
{
    if (j->job.rc == RC_INVALID) {
        punish_for_block(p, &j->job.st, "invalid header received");
        if (p->disconnect) {
            return;
        }
    } else if (j->job.rc != RC_OK) {
        return;
    }
    chainstate_read_lock(s->cs);
    struct block_tree *tree = chainstate_tree(s->cs);
    /* The best of what was taken: the last header, or the last one taken before a failure. */
    struct block_index *last = block_tree_find(tree, j->hash);
    if (!last) {
        for (size_t i = j->n_headers; i-- > 0 && !last;) {
            uint8_t h[32];
            hash_sha256d(h, j->data + i * 80, 80);
            last = block_tree_find(tree, h);
        }
    }
    if (last) {
        update_availability(s, p, last->hash);
        log_header_progress(s, last);
        maybe_protect(s, p);
        direct_fetch(s, p, last);
    }
    resolve_unknown(s, p);
    if (j->job.rc == RC_OK && j->n_headers == NET_MAX_HEADERS && last && !j->presync) {
        send_getheaders(s, p, last, NULL);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "more getheaders (%d) to end to peer=%lld", last->height,
            (long long)p->id);
    }
    chainstate_read_unlock(s->cs);
}

/* ---- Block download ---- */

static int is_processing(struct sync *s, const uint8_t hash[32])
{
    for (size_t i = 0; i < s->n_processing; i++) {
        if (memcmp(s->processing[i], hash, 32) == 0) {
            return 1;
        }
    }
    return 0;
}

static void processing_add(struct sync *s, const uint8_t hash[32])
{
    if (s->n_processing == s->cap_processing) {
        s->cap_processing = s->cap_processing ? 2 * s->cap_processing : 64;
        s->processing = xrealloc(s->processing, s->cap_processing * 32);
    }
    memcpy(s->processing[s->n_processing++], hash, 32);
}

static void processing_remove(struct sync *s, const uint8_t hash[32])
{
    for (size_t i = 0; i < s->n_processing; i++) {
        if (memcmp(s->processing[i], hash, 32) == 0) {
            memcpy(s->processing[i], s->processing[--s->n_processing], 32);
            return;
        }
    }
}

static struct inflight *find_inflight(struct sync *s, const uint8_t hash[32], struct peer **owner)
{
    for (struct peer *p = s->net->peers; p; p = p->next) {
        for (struct inflight *b = p->ps->inflight; b; b = b->next) {
            if (memcmp(b->hash, hash, 32) == 0) {
                if (owner) {
                    *owner = p;
                }
                return b;
            }
        }
    }
    return NULL;
}

/* Drops hash from p's in-flight list; 1 if it was there. */
static int remove_inflight(struct peer *p, const uint8_t hash[32])
{
    for (struct inflight **bp = &p->ps->inflight; *bp; bp = &(*bp)->next) {
        if (memcmp((*bp)->hash, hash, 32) == 0) {
            struct inflight *b = *bp;
            *bp = b->next;
            free(b);
            p->ps->n_inflight--;
            if (p->ps->n_inflight == 0) {
                p->ps->stalling_since_us = 0;
            }
            return 1;
        }
    }
    return 0;
}

/* The peer_gone event: everything of p's goes (its blocks in flight may be asked of
 * others). */
static void on_peer_gone(void *ctx, struct peer *p)
{
    struct sync *s = ctx;
    txrecon_forget(p);
    txrelay_peer_gone(s->txr, p);
    bloomrelay_peer_gone(p);
    cmpctrelay_peer_gone(s->cmpct, p);
    addrrelay_peer_gone(p);
    headerssync_free(p->ps->hsync);
    p->ps->hsync = NULL;
    while (p->ps->inflight) {
        struct inflight *b = p->ps->inflight;
        p->ps->inflight = b->next;
        free(b);
    }
    p->ps->n_inflight = 0;
    free(p->ps->getdata);
    free(p->ps);
    p->ps = NULL;
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Cleared nodestate for peer=%lld", (long long)p->id);
}

/* Core's choice in its headers direct fetch: a lone block, the only one in flight, whose
 * parent is valid, is asked as a compact block of a peer that speaks them (not with
 * -blocksonly: the pool could not rebuild it). Chain lock held. */
static int ask_compact(struct sync *s, struct peer *p, struct block_index *e)
{
    size_t in_flight = 0;
    for (struct peer *q = s->net->peers; q; q = q->next) {
        in_flight += q->ps ? (size_t)q->ps->n_inflight : 0;
    }
    struct block_index *prev = e->prev;
    return in_flight == 0 && cmpctrelay_provides(s->cmpct, p) && prev &&
           (chainstate_contains(s->cs, prev) || prev->chain_tx);
}

/* Asks p for blocks[0..k); direct: near the tip (Core's direct fetch), where a lone block
 * may go as a compact block. Chain lock held. */
static void request_blocks(struct sync *s, struct peer *p, struct block_index **blocks, size_t k,
                           int direct)
{
    if (k == 0) {
        return;
    }
    struct net_inv *inv = xmalloc(k * sizeof(*inv));
    int64_t now = net_now_us(p->net);
    int compact = direct && k == 1 && ask_compact(s, p, blocks[0]);
    for (size_t i = 0; i < k; i++) {
        inv[i].type = compact                                 ? INV_CMPCT_BLOCK
                      : (p->ps->ver.services & NODE_WITNESS) ? INV_WITNESS_BLOCK
                                                             : INV_BLOCK; /* GetFetchFlags */
        memcpy(inv[i].hash, blocks[i]->hash, 32);
        struct inflight *b = xcalloc(1, sizeof(*b));
        memcpy(b->hash, blocks[i]->hash, 32);
        b->e = blocks[i];
        b->time_us = now;
        b->next = p->ps->inflight;
        p->ps->inflight = b;
        p->ps->n_inflight++;
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Requesting block at height %d peer=%lld",
            blocks[i]->height, (long long)p->id);
    }
    struct buf b;
    buf_init(&b);
    net_inv_serialize(&b, inv, k);
    net_send(p, "getdata", &b);
    buf_clear(&b);
    free(inv);
}

/* Core's IsLimitedPeer: NODE_NETWORK_LIMITED without NODE_NETWORK (a pruned node). */
static int limited_peer(const struct peer *p)
{
    return !(p->ps->ver.services & NODE_NETWORK) && (p->ps->ver.services & NODE_NETWORK_LIMITED);
}

/* Core's FindNextBlocksToDownload for one peer: up to want blocks of the peer's best chain
 * that we lack and nobody is fetching, inside the window past the last common block. Sets
 * *staller to the peer holding the window's first missing block when that is all that
 * stops us. Chain lock held. */
static size_t next_blocks(struct sync *s, struct peer *p, size_t want, struct block_index **out,
                          int64_t *staller)
{
    struct block_index *tip = chainstate_tip(s->cs);
    resolve_unknown(s, p);
    struct block_index *best = p->ps->best_known;
    if (!best || !tip || u256_cmp(&best->chain_work, &tip->chain_work) < 0 ||
        u256_cmp(&best->chain_work, &s->p->minimum_chain_work) < 0) {
        return 0;
    }
    if (!p->ps->last_common || block_index_ancestor(best, p->ps->last_common->height) != p->ps->last_common) {
        p->ps->last_common = block_index_fork_point(best, tip);
    }
    if (!p->ps->last_common) {
        return 0;
    }
    /* The last common block moves up over what we have connected on its chain. */
    struct block_index *lc = p->ps->last_common;
    if (lc == best) {
        return 0;
    }
    int limited = limited_peer(p);
    /* The window follows the last common block as the walk moves it over blocks we have
     * (Core moves it to the tip first: blocks accepted here may not be connected yet). */
    int32_t window_end = lc->height + NET_BLOCK_DOWNLOAD_WINDOW;
    int32_t max_height = best->height < window_end + 1 ? best->height : window_end + 1;
    size_t k = 0;
    struct block_index *walk = lc;
    int64_t waiting_for = -1;
    while (walk->height < max_height && k < want) {
        window_end = p->ps->last_common->height + NET_BLOCK_DOWNLOAD_WINDOW;
        max_height = best->height < window_end + 1 ? best->height : window_end + 1;
        if (walk->height >= max_height) {
            break;
        }
        int32_t to = walk->height + 128 < max_height ? walk->height + 128 : max_height;
        struct block_index *chunk_end = block_index_ancestor(best, to);
        int32_t m = to - walk->height;
        struct block_index **v = xmalloc((size_t)m * sizeof(*v));
        struct block_index *e = chunk_end;
        for (int32_t i = m - 1; i >= 0; i--) {
            v[i] = e;
            e = e->prev;
        }
        for (int32_t i = 0; i < m && k < want; i++) {
            e = v[i];
            if (block_index_failed(e) ||
                (!(p->ps->ver.services & NODE_WITNESS) && e->height >= s->p->segwit_height)) {
                free(v);
                return k; /* the chain is invalid from here, or needs witnesses it lacks */
            }
            if ((e->status & BLOCK_HAVE_DATA) || chainstate_contains(s->cs, e)) {
                /* Core: the last common block moves over every block we have with all its
                 * ancestors (chain_tx), on our active chain or not: a long fork with less
                 * work so far is fetched window after window. */
                if ((chainstate_contains(s->cs, e) || e->chain_tx) &&
                    e->height > p->ps->last_common->height) {
                    p->ps->last_common = e;
                }
                continue;
            }
            struct peer *owner = NULL;
            if (is_processing(s, e->hash)) {
                continue;
            }
            /* A NODE_NETWORK_LIMITED peer keeps only its last 288 blocks (less 2 for races):
             * deeper ones are not asked of it (Core's FindNextBlocks). */
            if (limited && best->height - e->height >= NODE_NETWORK_LIMITED_MIN_BLOCKS - 2) {
                continue;
            }
            if (find_inflight(s, e->hash, &owner)) {
                if (waiting_for < 0) {
                    waiting_for = owner->id; /* the first in flight, whoever has it (Core) */
                }
                continue;
            }
            if (e->height > window_end) {
                /* The window is full: the first block we wait for holds it (if p holds it
                 * itself, nobody else is blamed). */
                if (k == 0 && waiting_for >= 0 && waiting_for != p->id) {
                    *staller = waiting_for;
                }
                free(v);
                return k;
            }
            out[k++] = e;
        }
        walk = chunk_end;
        free(v);
    }
    return k;
}

/* 1 if nobody fetches or judges e yet. */
static int unclaimed(struct sync *s, const struct block_index *e)
{
    struct peer *owner = NULL;
    return !(e->status & BLOCK_HAVE_DATA) && !is_processing(s, e->hash) &&
           !find_inflight(s, e->hash, &owner);
}

/* Core's HeadersDirectFetchBlocks: near the tip (its time within 20 block intervals of now),
 * headers that lead to at least our tip's work get their missing blocks asked of the peer
 * that sent them, whatever services it offers, oldest first, up to its in-flight room; not
 * when the fork point is more than that many blocks back (a large reorg goes through the
 * normal download). Chain lock held. */
static void direct_fetch(struct sync *s, struct peer *p, struct block_index *last)
{
    struct block_index *tip = chainstate_tip(s->cs);
    if (!tip || block_index_failed(last) ||
        (int64_t)tip->header.time <= net_now(s->net) - 20 * s->p->pow_target_spacing ||
        u256_cmp(&tip->chain_work, &last->chain_work) > 0) {
        return;
    }
    struct block_index *v[NET_MAX_BLOCKS_IN_FLIGHT + 1];
    size_t k = 0;
    struct block_index *walk = last;
    int witness = (p->ps->ver.services & NODE_WITNESS) != 0;
    while (walk && !chainstate_contains(s->cs, walk) && k <= NET_MAX_BLOCKS_IN_FLIGHT) {
        if (unclaimed(s, walk) && (walk->height < s->p->segwit_height || witness)) {
            v[k++] = walk;
        }
        walk = walk->prev;
    }
    if (!walk || !chainstate_contains(s->cs, walk)) {
        char hex[65];
        hex_encode_rev(hex, last->hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Large reorg, won't direct fetch to %s (%d)", hex,
            last->height);
        return;
    }
    size_t room = (size_t)(NET_MAX_BLOCKS_IN_FLIGHT - p->ps->n_inflight), m = 0;
    struct block_index *ask[NET_MAX_BLOCKS_IN_FLIGHT + 1];
    while (k > 0 && m < room) {
        ask[m++] = v[--k];
    }
    if (m > 1) {
        char hex[65];
        hex_encode_rev(hex, last->hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Downloading blocks toward %s (%d) via headers direct fetch",
            hex, last->height);
    }
    request_blocks(s, p, ask, m, 1);
}

/* Core's TryDownloadingHistoricalBlocks: while a UTXO snapshot's background chainstate
 * lacks blocks below the snapshot's base, up to want of them from a full peer whose chain
 * holds the base, in the window past the background tip. Chain lock held. */
static size_t next_historical(struct sync *s, struct peer *p, size_t want, struct block_index **out)
{
    struct block_index *from, *target, *best = p->ps->best_known;
    if (want == 0 || !chainstate_background_range(s->cs, &from, &target) || limited_peer(p) || !best ||
        block_index_ancestor(best, target->height) != target) {
        return 0;
    }
    if (block_index_ancestor(target, from->height) != from) {
        from = block_index_fork_point(from, target); /* a fork it will leave */
    }
    int32_t end = from->height + NET_BLOCK_DOWNLOAD_WINDOW;
    end = end < target->height ? end : target->height;
    if (end <= from->height) {
        return 0;
    }
    int32_t m = end - from->height;
    struct block_index **v = xmalloc((size_t)m * sizeof(*v));
    struct block_index *e = block_index_ancestor(target, end);
    for (int32_t i = m - 1; i >= 0; i--, e = e->prev) {
        v[i] = e;
    }
    size_t k = 0;
    for (int32_t i = 0; i < m && k < want; i++) {
        if (unclaimed(s, v[i])) {
            out[k++] = v[i];
        }
    }
    free(v);
    return k;
}

static void schedule_downloads(struct sync *s)
{
    struct net *n = s->net;
    if (chainstate_reindexing_now(s->cs)) {
        return; /* no blocks are taken until the block files are read again */
    }
    chainstate_read_lock(s->cs);
    int ibd = chainstate_in_ibd(s->cs);
    if (!ibd && s->header_jobs > 0) {
        /* Core handles a headers message whole (its direct fetch asks the sender) before the
         * next message: the download waits for the verdicts out (they schedule again). */
        chainstate_read_unlock(s->cs);
        return;
    }
    for (struct peer *p = n->peers; p; p = p->next) {
        if (p->disconnect || !p->ps->handshake_done || p->ps->n_inflight >= NET_MAX_BLOCKS_IN_FLIGHT ||
            !(p->ps->ver.services & (NODE_NETWORK | NODE_NETWORK_LIMITED))) {
            continue;
        }
        if (ibd && limited_peer(p)) {
            continue; /* in IBD, no blocks from a peer that keeps only the recent ones (Core) */
        }
        struct block_index *blocks[NET_MAX_BLOCKS_IN_FLIGHT];
        int64_t staller = -1;
        size_t room = (size_t)(NET_MAX_BLOCKS_IN_FLIGHT - p->ps->n_inflight);
        size_t k = next_blocks(s, p, room, blocks, &staller);
        k += next_historical(s, p, room - k, blocks + k);
        request_blocks(s, p, blocks, k, !ibd);
        /* A stall is judged once the blocks received are (Core handles a block before the
         * next SendMessages): one being judged may move the window. */
        if (k == 0 && staller >= 0 && s->n_processing == 0) {
            struct peer *q = net_find_peer(n, staller);
            if (q && q->ps->stalling_since_us == 0) {
                q->ps->stalling_since_us = net_now_us(n);
                LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Stall started peer=%lld", (long long)q->id);
            }
        }
    }
    chainstate_read_unlock(s->cs);
}

static struct block_source *remember_source(struct sync *s, const uint8_t hash[32],
                                            int64_t peer_id)
{
    struct block_source *src = &s->sources[s->n_sources % NET_BLOCK_SOURCES];
    memcpy(src->hash, hash, 32);
    src->peer_id = peer_id;
    src->time = net_now(s->net);
    src->promoted = 0;
    /* Requests of this block from other peers do not count. */
    src->alone = 1;
    for (struct peer *p = s->net->peers; p; p = p->next) {
        for (struct inflight *b = p->ps ? p->ps->inflight : NULL; b; b = b->next) {
            src->alone &= memcmp(b->hash, hash, 32) == 0;
        }
    }
    s->n_sources++;
    return src;
}

/* Whether the block whose 80-byte header is hdr has a known parent and, with it, less chain
 * work than the anti-DoS threshold (Core's min_pow_checked is false). Chain lock held. */
static int below_anti_dos_work(struct sync *s, const uint8_t *hdr)
{
    struct block_index *parent = block_tree_find(chainstate_tree(s->cs), hdr + 4);
    if (!parent) {
        return 0; /* an unknown parent fails on its own (prev-blk-not-found) */
    }
    struct u256 work = parent->chain_work, proof, threshold;
    pow_block_proof(&proof, rd_u32le(hdr + 72));
    u256_add(&work, &work, &proof);
    anti_dos_work(s, &threshold);
    return u256_cmp(&work, &threshold) < 0;
}

static void take_block(struct sync *s, struct peer *p, const uint8_t *d, size_t len,
                       int via_compact);

static void on_block(struct sync *s, struct peer *p, const uint8_t *d, size_t len)
{
    take_block(s, p, d, len, 0);
}

/* A block from p (via_compact: rebuilt from its cmpctblock), handed to validation. */
static void take_block(struct sync *s, struct peer *p, const uint8_t *d, size_t len,
                       int via_compact)
{
    struct net *n = s->net;
    if (len < 81) {
        net_misbehaving(p, "mutated block: too short (%zu bytes)", len);
        return;
    }
    uint8_t hash[32];
    hash_sha256d(hash, d, 80);
    struct peer *owner = NULL;
    int requested = find_inflight(s, hash, &owner) != NULL; /* by anyone: Core's IsBlockRequested */
    remove_inflight(p, hash);
    if (chainstate_reindexing_now(s->cs)) {
        /* Core's: ignored while the block files are read again. */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Unexpected block message received from peer %lld",
            (long long)p->id);
        return;
    }
    p->last_block = net_now(n);
    chainstate_read_lock(s->cs);
    struct block_index *e = block_tree_find(chainstate_tree(s->cs), hash);
    int have = (e && (e->status & BLOCK_HAVE_DATA)) || is_processing(s, hash);
    int low_work = !e && !have && below_anti_dos_work(s, d);
    int new_header = !e && !have && !low_work && block_tree_find(chainstate_tree(s->cs), d + 4);
    chainstate_read_unlock(s->cs);
    if (new_header) {
        /* Core accepts a block's header as the message is handled (after CheckBlock), so
         * the next message already sees it (a getheaders locator, an announcement); the
         * block itself is judged by the job, which reports any failure. */
        (void)chainstate_accept_block_header(s->cs, d, len);
    }
    if (low_work) {
        /* Core's AcceptBlockHeader: a new header whose chain would not have the anti-DoS
         * work is not stored, nor its block. */
        char hx[65];
        hex_encode_rev(hx, hash, 32);
        LOG(LOG_CAT_VALIDATION, LOG_LVL_DEBUG,
            "AcceptBlockHeader: not adding new block header %s, missing anti-dos proof-of-work "
            "validation",
            hx);
        return;
    }
    if (have) {
        char hx[65];
        hex_encode_rev(hx, hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "already have block %s peer=%lld", hx, (long long)p->id);
        schedule_downloads(s);
        return;
    }
    struct net_job *j = xcalloc(1, sizeof(*j));
    /* An unsolicited block is stored only if it could become the tip soon (Core's AcceptBlock
     * with fRequested false); its header is taken either way. */
    j->job.unrequested = !requested && !via_compact; /* a compact block is forced, as Core */
    j->peer_id = p->id;
    j->is_block = 1;
    j->via_compact = via_compact;
    j->data = xmalloc(len);
    memcpy(j->data, d, len);
    j->len = len;
    memcpy(j->hash, hash, 32);
    j->job.work = VALIDATOR_BLOCK;
    j->job.data = j->data;
    j->job.len = len;
    j->job.from_peer = 1;
    /* Out of IBD, Core's ProcessNewBlock connects the block before the peer's next message
     * (a ping's pong says so): the job is done once the chain settled. In IBD, accepting
     * is enough (blocks are taken while others connect). */
    j->job.connect = chainstate_left_ibd(s->cs); /* the latch: no lock to wait for */
    processing_add(s, hash);
    net_submit(n, j);
}

/* Compact block relay's sink: a rebuilt block, taken as a block message from p. */
static void on_rebuilt_block(void *ctx, struct peer *p, const uint8_t *d, size_t len)
{
    take_block(ctx, p, d, len, 1);
}

/* Core's MaybePunishNodeForBlock for a block rebuilt from a cmpctblock: BIP152 lets a
 * high-bandwidth peer relay before full validation, so a consensus failure, a mutation or a
 * block known invalid is not the peer's fault. */
static int compact_exempt(const struct vstate *st)
{
    return st->result == VRESULT_CONSENSUS || st->result == VRESULT_MUTATED ||
           st->result == VRESULT_CACHED_INVALID;
}

/* Compact block relay's sink: a cmpctblock that does not connect, answered as an
 * announcement that does not connect. */
static void on_unconnected_cmpct(void *ctx, struct peer *p, const uint8_t hash[32])
{
    struct sync *s = ctx;
    chainstate_read_lock(s->cs);
    send_getheaders(s, p, NULL, hash);
    chainstate_read_unlock(s->cs);
}

/* Compact block relay's sink: a block of h on parent would be below the anti-DoS work. */
static int cmpct_low_work(void *ctx, const struct block_index *parent, const struct block_header *h)
{
    struct sync *s = ctx;
    struct u256 min, proof, work;
    anti_dos_work(s, &min);
    pow_block_proof(&proof, h->bits);
    u256_add(&work, &parent->chain_work, &proof);
    return u256_cmp(&work, &min) < 0;
}

/* Compact block relay's sink: a cmpctblock's new header, as a headers message of one. */
static void on_cmpct_header(void *ctx, struct peer *p, const uint8_t raw80[80])
{
    uint8_t msg[82];
    msg[0] = 1; /* one header */
    memcpy(msg + 1, raw80, 80);
    msg[81] = 0; /* no transactions */
    on_headers(ctx, p, msg, sizeof(msg));
}

/* Compact block relay's sink: a block received and not judged yet. */
static int on_cmpct_processing(void *ctx, const uint8_t hash[32])
{
    return is_processing(ctx, hash);
}

/* Compact block relay's sink: a block being rebuilt counts as in flight from its peer. */
static void on_cmpct_in_flight(void *ctx, struct peer *p, const uint8_t hash[32], int add)
{
    struct sync *s = ctx;
    if (!add) {
        remove_inflight(p, hash);
        return;
    }
    struct inflight *b;
    for (b = p->ps->inflight; b && memcmp(b->hash, hash, 32) != 0; b = b->next) {
    }
    if (b) {
        return;
    }
    b = xcalloc(1, sizeof(*b));
    memcpy(b->hash, hash, 32);
    chainstate_read_lock(s->cs);
    b->e = block_tree_find(chainstate_tree(s->cs), hash);
    chainstate_read_unlock(s->cs);
    b->time_us = net_now_us(s->net);
    b->next = p->ps->inflight;
    p->ps->inflight = b;
    p->ps->n_inflight++;
}

static void block_done(struct sync *s, struct peer *p, struct net_job *j)
{
    if (j->job.rc == RC_INVALID) {
        if (p && !j->via_compact && strcmp(j->job.st.reject, "bad-blk-serialization") == 0) {
            /* Core's deserializer throws before any validation: logged, not punished. */
            net_malformed(p, "block", j->len, j->job.st.debug);
        } else if (p && !(j->via_compact && compact_exempt(&j->job.st))) {
            punish_for_block(p, &j->job.st, "invalid block received");
        }
        return;
    }
    if (j->job.rc == RC_OK && j->job.is_new) {
        struct block_source *src = remember_source(s, j->hash, j->peer_id);
        src->via_compact = j->via_compact;
        /* Core does it as the block is connected: before the next message is read. */
        chainstate_read_lock(s->cs);
        struct block_index *e = block_tree_find(chainstate_tree(s->cs), j->hash);
        if (e) {
            promote_source(s, src, e);
        }
        chainstate_read_unlock(s->cs);
        /* Stored: whoever else was asked for it (a compact block rebuilt from several
         * peers) is not waited for any more (Core's ProcessBlock). */
        for (struct peer *q = s->net->peers; q; q = q->next) {
            if (q->ps) {
                remove_inflight(q, j->hash);
            }
        }
    }
}

/* A pong (Core's ProcessPong): the matching nonce ends the ping and times it; a zero nonce or
 * a short payload cancels it; every other case is only logged, with Core's words. */
static void on_pong(struct peer *p, const uint8_t *d, size_t len)
{
    uint64_t nonce = len >= 8 ? rd_u64le(d) : 0;
    const char *problem = NULL;
    int finished = 0;
    if (len < 8) {
        finished = 1;
        problem = "Short payload";
    } else if (!p->ps->ping_nonce) {
        problem = "Unsolicited pong without ping";
    } else if (nonce == p->ps->ping_nonce) {
        finished = 1;
        int64_t rtt = net_now_us(p->net) - p->ps->ping_start_us;
        if (rtt >= 0) {
            p->ps->ping_us = rtt;
            if (p->min_ping_us < 0 || rtt < p->min_ping_us) {
                p->min_ping_us = rtt;
            }
        } else {
            problem = "Timing mishap";
        }
    } else if (nonce == 0) {
        finished = 1;
        problem = "Nonce zero";
    } else {
        problem = "Nonce mismatch"; /* normal when pings overlap */
    }
    if (problem) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "pong peer=%lld: %s, %llx expected, %llx received, %zu bytes",
            (long long)p->id, problem, (unsigned long long)p->ps->ping_nonce,
            (unsigned long long)nonce, len);
    }
    if (finished) {
        p->ps->ping_nonce = 0;
    }
}

static void send_deferred_pongs(struct peer *p)
{
    for (int i = 0; i < p->ps->n_deferred_pongs; i++) {
        struct buf b;
        uint8_t nonce[8];
        buf_init(&b);
        wr_u64le(nonce, p->ps->deferred_pongs[i]);
        buf_append(&b, nonce, 8);
        net_send(p, "pong", &b);
        buf_clear(&b);
    }
    p->ps->n_deferred_pongs = 0;
}

static void judge_job(struct sync *s, struct net_job *j)
{
    struct peer *p = net_find_peer(s->net, j->peer_id);
    if (j->is_tx) {
        txrelay_job_done(s->txr, j); /* frees it */
        return;
    }
    if (j->is_block) {
        processing_remove(s, j->hash);
        block_done(s, p, j);

        txrelay_check_tip(s->txr); /* before the pongs that wait for the block */
    } else {
        s->header_jobs--;
        if (p) {
            headers_done(s, p, j);
        }
    }
    free(j->data);
    free(j);
}

/* What Core's SendMessages checks of a peer right after each message it processed (here:
 * after a message, and after the verdict on the headers or block it sent, which Core has
 * by then): ConsiderEviction, so that the chain-sync deadline measures the tip as it was
 * then, not as it is at the next tick. 1 if p was dropped. */
static int after_message(struct sync *s, struct peer *p)
{
    /* consider_eviction's own test, before the chain lock: a message must not wait for a
     * block being connected unless the peer can be evicted for its chain. */
    if (p->disconnect || !p->ps->handshake_done || p->ps->chain_sync_protect ||
        !p->ps->sync_started ||
        (p->conn_type != CONN_OUTBOUND_FULL_RELAY && p->conn_type != CONN_BLOCK_RELAY)) {
        return 0;
    }
    chainstate_read_lock(s->cs);
    int evicted = consider_eviction(s, p, net_now(s->net));
    chainstate_read_unlock(s->cs);
    return evicted;
}

/* The job_done event: the verdict, then the pongs a ping of the peer waited with once none
 * of its jobs is out (the transport counts them: pending_jobs). */
static void on_job_done(void *ctx, struct net_job *j)
{
    struct sync *s = ctx;
    int64_t peer_id = j->peer_id;
    judge_job(s, j);
    struct peer *p = net_find_peer(s->net, peer_id); /* the verdict may have disconnected it */
    if (p && after_message(s, p)) {
        return;
    }
    if (p && p->pending_jobs == 0 && p->ps->n_deferred_pongs > 0 && !p->disconnect) {
        send_deferred_pongs(p);
    }
}

/* The jobs_done event: verdicts may have opened the download window. */
static void on_jobs_done(void *ctx)
{
    schedule_downloads(ctx);
}

/* ---- Serving ---- */

/* Core's BlockRequestAllowed: a block (or header) off the active chain is served only if it
 * was fully validated and is less than 30 days older than our best header, both in time and
 * in the time its missing work would take (so that serving it does not fingerprint us).
 * Chain lock held. */
static int block_request_allowed(struct sync *s, const struct block_index *e)
{
    if (chainstate_contains(s->cs, e)) {
        return 1;
    }
    const int64_t limit = 30 * 24 * 60 * 60;
    struct block_index *best = chainstate_best_header(s->cs);
    if (!block_index_is_valid(e, BLOCK_VALID_SCRIPTS) || !best ||
        (int64_t)best->header.time - (int64_t)e->header.time >= limit) {
        return 0;
    }
    /* Core's GetBlockProofEquivalentTime(best, e, best): the work between them in seconds
     * of the best block's proof. */
    struct u256 diff, proof, spacing, t;
    if (u256_cmp(&best->chain_work, &e->chain_work) <= 0) {
        return 1; /* e has at least as much work: no time at all */
    }
    u256_sub(&diff, &best->chain_work, &e->chain_work);
    pow_block_proof(&proof, best->header.bits);
    u256_set_u64(&spacing, (uint64_t)s->p->pow_target_spacing);
    u256_mul(&t, &diff, &spacing);
    u256_div(&t, &t, &proof);
    if (u256_bits(&t) > 62) {
        return 0;
    }
    struct u256 lim;
    u256_set_u64(&lim, (uint64_t)limit);
    return u256_cmp(&t, &lim) < 0;
}

/* A getheaders / getblocks payload: 0 with the locator (caller frees *loc), else the peer
 * was punished (Core: too long a locator) or the payload did not decode (logged). */
static int read_locator(struct peer *p, const char *what, const uint8_t *d, size_t len,
                        uint8_t (**loc)[32], size_t *k, uint8_t stop[32])
{
    char err[160];
    int rc = net_locator_parse(d, len, loc, k, stop, err, sizeof(err));
    if (rc == RC_TOO_LARGE) {
        net_misbehaving(p, "%s locator size %zu > %d", what, *k, NET_MAX_LOCATOR);
    } else if (rc != RC_OK) {
        net_malformed(p, what, len, err);
    }
    return rc;
}

static void on_getheaders(struct sync *s, struct peer *p, const uint8_t *d, size_t len)
{
    uint8_t(*loc)[32] = NULL;
    size_t k = 0;
    uint8_t stop[32];
    if (read_locator(p, "getheaders", d, len, &loc, &k, stop) != RC_OK) {
        return;
    }
    if (chainstate_reindexing_now(s->cs)) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "Ignoring getheaders from peer=%lld while importing/reindexing", (long long)p->id);
        free(loc);
        return;
    }
    chainstate_read_lock(s->cs);
    /* Core's: no headers from an active chain with less than the minimum chain work (an
     * empty answer, so that the peer goes away without taking us for unresponsive). */
    struct block_index *at = chainstate_tip(s->cs);
    if (!at || (u256_cmp(&at->chain_work, &s->p->minimum_chain_work) < 0 &&
                (p->perms & NET_PERM_DOWNLOAD) != NET_PERM_DOWNLOAD)) {
        chainstate_read_unlock(s->cs);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "Ignoring getheaders from peer=%lld because active chain has too little work; "
            "sending empty response",
            (long long)p->id);
        struct buf b;
        buf_init(&b);
        net_headers_serialize(&b, NULL, 0);
        net_send(p, "headers", &b);
        buf_clear(&b);
        free(loc);
        return;
    }
    struct block_tree *tree = chainstate_tree(s->cs);
    struct block_index *start = NULL;
    if (k == 0) {
        /* The stop block alone, if it may be served. */
        struct block_index *e = block_tree_find(tree, stop);
        if (!e || !block_request_allowed(s, e)) {
            chainstate_read_unlock(s->cs);
            free(loc);
            return;
        }
        uint8_t raw[80];
        block_header_serialize(&e->header, raw);
        struct buf b;
        buf_init(&b);
        net_headers_serialize(&b, raw, 1);
        chainstate_read_unlock(s->cs);
        net_send(p, "headers", &b);
        buf_clear(&b);
        free(loc);
        return;
    }
    /* The first locator hash on our active chain (Core: its fork point with it). */
    for (size_t i = 0; i < k && !start; i++) {
        struct block_index *e = block_tree_find(tree, loc[i]);
        if (e) {
            start = chainstate_contains(s->cs, e) ? e : NULL;
            if (!start) {
                struct block_index *tip = chainstate_tip(s->cs);
                start = tip ? block_index_fork_point(e, tip) : NULL;
            }
        }
    }
    free(loc);
    if (!start) {
        start = chainstate_at_height(s->cs, 0);
    }
    struct buf raws;
    buf_init(&raws);
    size_t count = 0;
    struct block_index *last = NULL;
    for (int32_t h = start ? start->height + 1 : 0; count < NET_MAX_HEADERS; h++) {
        struct block_index *e = chainstate_at_height(s->cs, h);
        if (!e) {
            break;
        }
        uint8_t raw[80];
        block_header_serialize(&e->header, raw);
        buf_append(&raws, raw, 80);
        count++;
        last = e;
        if (memcmp(e->hash, stop, 32) == 0) {
            break;
        }
    }
    /* What we sent is what the peer has now, as far as announcing goes. */
    if (last) {
        p->ps->best_sent = last;
    } else {
        p->ps->best_sent = chainstate_tip(s->cs);
    }
    chainstate_read_unlock(s->cs);
    struct buf b;
    buf_init(&b);
    net_headers_serialize(&b, raws.data, count);
    net_send(p, "headers", &b);
    buf_clear(&b);
    buf_clear(&raws);
}

static void on_getblocks(struct sync *s, struct peer *p, const uint8_t *d, size_t len)
{
    uint8_t(*loc)[32] = NULL;
    size_t k = 0;
    uint8_t stop[32];
    if (read_locator(p, "getblocks", d, len, &loc, &k, stop) != RC_OK) {
        return;
    }
    chainstate_read_lock(s->cs);
    struct block_tree *tree = chainstate_tree(s->cs);
    struct block_index *start = NULL, *tip = chainstate_tip(s->cs);
    for (size_t i = 0; i < k && !start && tip; i++) {
        struct block_index *e = block_tree_find(tree, loc[i]);
        if (e) {
            start = block_index_fork_point(e, tip);
        }
    }
    free(loc);
    struct net_inv *inv = xmalloc(MAX_GETBLOCKS_RESULTS * sizeof(*inv));
    size_t count = 0;
    for (int32_t h = start ? start->height + 1 : 1; count < MAX_GETBLOCKS_RESULTS; h++) {
        struct block_index *e = chainstate_at_height(s->cs, h);
        if (!e || memcmp(e->hash, stop, 32) == 0) {
            break;
        }
        inv[count].type = INV_BLOCK;
        memcpy(inv[count].hash, e->hash, 32);
        count++;
    }
    chainstate_read_unlock(s->cs);
    if (count) {
        struct buf b;
        buf_init(&b);
        net_inv_serialize(&b, inv, count);
        net_send(p, "inv", &b);
        buf_clear(&b);
    }
    free(inv);
}

/* Core's rule for a node offering NODE_NETWORK_LIMITED without NODE_NETWORK (pruned): a
 * block more than 288 (+2 for races) below the tip is not served, and the peer, which would
 * otherwise wait for it, is disconnected; noban peers are exempt. Chain lock held. */
static int below_limited_threshold(struct sync *s, struct peer *p, const struct block_index *e)
{
    uint64_t ours = net_local_services(s->net);
    if ((p->perms & NET_PERM_NOBAN) == NET_PERM_NOBAN || !(ours & NODE_NETWORK_LIMITED) ||
        (ours & NODE_NETWORK)) {
        return 0;
    }
    struct block_index *tip = chainstate_tip(s->cs);
    return tip && tip->height - e->height > NODE_NETWORK_LIMITED_MIN_BLOCKS + 2;
}

/* Core's -maxuploadtarget rule: once the budget for old blocks is spent, a block more than a
 * week older than our best header is not served, nor any filtered block (BIP37), and the
 * peer (which would wait for it) is disconnected, unless it has the download permission.
 * Chain lock held. */
static int past_upload_target(struct sync *s, struct peer *p, const struct block_index *e,
                              int filtered)
{
    if ((p->perms & NET_PERM_DOWNLOAD) || !net_upload_target_reached(s->net, 1)) {
        return 0;
    }
    struct block_index *best = chainstate_best_header(s->cs);
    return filtered ||
           (best && (int64_t)best->header.time - (int64_t)e->header.time > 7 * 24 * 60 * 60);
}

/* Serves the queued getdata entries while the send buffer has room (the write callback
 * calls again as it drains). */
static void serve_getdata(struct sync *s, struct peer *p)
{
    struct buf raw, out;
    buf_init(&raw);
    buf_init(&out);
    struct net_inv *notfound = NULL;
    size_t n_notfound = 0;
    while (!p->disconnect && p->ps->getdata_pos < p->ps->getdata_n &&
           net_send_buffered(p) < NET_SEND_BUFFER) {
        const struct net_inv *iv = &p->ps->getdata[p->ps->getdata_pos++];
        uint32_t type = iv->type & ~INV_WITNESS_FLAG;
        if (type == INV_TX || type == INV_WTX) {
            /* Core keeps no transaction relay for a block-relay-only or feeler connection,
             * nor for a peer whose version asked for none: their requests are ignored, not
             * answered with notfound. */
            if (p->conn_type == CONN_BLOCK_RELAY || p->conn_type == CONN_FEELER ||
                !p->relay_txs) {
                continue;
            }
            if (!txrelay_serve(s->txr, p, iv)) {
                notfound = xrealloc(notfound, (n_notfound + 1) * sizeof(*notfound));
                notfound[n_notfound++] = *iv;
            }
            continue;
        }
        if ((type != INV_BLOCK && type != INV_FILTERED_BLOCK && type != INV_CMPCT_BLOCK) ||
            (type != INV_BLOCK && (iv->type & INV_WITNESS_FLAG))) {
            continue; /* no such block message (MSG_FILTERED_WITNESS_BLOCK is unused) */
        }
        if (type == INV_FILTERED_BLOCK && !bloomrelay_offered(p)) {
            /* A filtered block can only be asked of a node offering NODE_BLOOM (Core). */
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
                "filtered block request received when NODE_BLOOM service disabled, "
                "disconnecting peer=%lld",
                (long long)p->id);
            net_peer_disconnect(p, "filtered block request without NODE_BLOOM");
            break;
        }
        chainstate_read_lock(s->cs);
        if (type == INV_CMPCT_BLOCK && cmpctrelay_serve(s->cmpct, p, iv)) {
            chainstate_read_unlock(s->cs);
            continue;
        }
        struct block_index *e = block_tree_find(chainstate_tree(s->cs), iv->hash);
        if (e && past_upload_target(s, p, e, type == INV_FILTERED_BLOCK)) {
            chainstate_read_unlock(s->cs);
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
                "historical block serving limit reached, disconnecting peer=%lld", (long long)p->id);
            net_peer_disconnect(p, "historical block serving limit reached");
            break;
        }
        if (e && below_limited_threshold(s, p, e)) {
            chainstate_read_unlock(s->cs);
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
                "Ignore block request below NODE_NETWORK_LIMITED threshold, disconnecting peer=%lld",
                (long long)p->id);
            net_peer_disconnect(p, "block request below the NODE_NETWORK_LIMITED threshold");
            break;
        }
        int ok = e && (e->status & BLOCK_HAVE_DATA) && !block_index_failed(e) &&
                 block_request_allowed(s, e);
        buf_reset(&raw);
        int rc = ok ? chainstate_read_block(s->cs, e, &raw) : RC_NOT_FOUND;
        chainstate_read_unlock(s->cs);
        if (rc != RC_OK) {
            char hx[65];
            hex_encode_rev(hx, iv->hash, 32);
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "cannot serve block %s to peer=%lld", hx,
                (long long)p->id);
            continue;
        }
        if ((iv->type & INV_WITNESS_FLAG) || type == INV_CMPCT_BLOCK) {
            net_send(p, "block", &raw);
        } else {
            struct block blk;
            block_init(&blk);
            char err[128];
            if (block_parse(&blk, raw.data, raw.len, err, sizeof(err)) != RC_OK) {
                /* Stored blocks parse: nothing to send. */
            } else if (type == INV_FILTERED_BLOCK) {
                bloomrelay_serve_block(p, &blk);
            } else {
                buf_reset(&out);
                block_serialize(&blk, &out, 0);
                net_send(p, "block", &out);
            }
            block_clear(&blk);
        }
    }
    if (p->ps->getdata_pos >= p->ps->getdata_n) {
        free(p->ps->getdata);
        p->ps->getdata = NULL;
        p->ps->getdata_n = p->ps->getdata_pos = 0;
    }
    if (n_notfound) {
        struct buf b;
        buf_init(&b);
        net_inv_serialize(&b, notfound, n_notfound);
        net_send(p, "notfound", &b);
        buf_clear(&b);
    }
    free(notfound);
    buf_clear(&raw);
    buf_clear(&out);
}

static void on_getdata(struct sync *s, struct peer *p, const uint8_t *d, size_t len)
{
    char err[160];
    struct net_inv *inv = NULL;
    size_t k = 0;
    int rc = net_inv_parse(d, len, &inv, &k, err, sizeof(err));
    if (rc == RC_TOO_LARGE) {
        net_misbehaving(p, "getdata message size = %zu", k);
        return;
    }
    if (rc != RC_OK) {
        net_malformed(p, "getdata", len, err);
        return;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "received getdata (%zu invsz) peer=%lld", k, (long long)p->id);
    if (k > 0 && log_enabled(LOG_CAT_NET, LOG_LVL_DEBUG)) {
        char first[NET_INV_STR_LEN];
        net_inv_format(first, &inv[0]);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "received getdata for: %s peer=%lld", first,
            (long long)p->id);
    }
    /* Appended to what is still queued (bounded: reads pause while it is long). */
    size_t left = p->ps->getdata_n - p->ps->getdata_pos;
    struct net_inv *q = xmalloc((left + k ? left + k : 1) * sizeof(*q));
    if (left) {
        memcpy(q, p->ps->getdata + p->ps->getdata_pos, left * sizeof(*q));
    }
    memcpy(q + left, inv, k * sizeof(*q));
    free(p->ps->getdata);
    free(inv);
    p->ps->getdata = q;
    p->ps->getdata_n = left + k;
    p->ps->getdata_pos = 0;
    serve_getdata(s, p);
    if (p->ps->getdata_pos < p->ps->getdata_n) {
        /* Core answers a getdata before it reads on: the rest waits (and nothing more is
         * read) until the answers have gone out (on_send_room). */
        net_pause_reads(p, PAUSE_GETDATA, 1);
    }
}

/* The send_room event: more of the getdata queue; once it is all answered, reads go on. */
static void on_send_room(void *ctx, struct peer *p)
{
    if (p->ps->getdata_pos < p->ps->getdata_n) {
        serve_getdata(ctx, p);
    }
    if (!p->disconnect && p->ps->getdata_pos >= p->ps->getdata_n) {
        net_pause_reads(p, PAUSE_GETDATA, 0);
    }
}

static void on_inv(struct sync *s, struct peer *p, const uint8_t *d, size_t len)
{
    char err[160];
    struct net_inv *inv = NULL;
    size_t k = 0;
    int rc = net_inv_parse(d, len, &inv, &k, err, sizeof(err));
    if (rc == RC_TOO_LARGE) {
        net_misbehaving(p, "inv message size = %zu", k);
        return;
    }
    if (rc != RC_OK) {
        net_malformed(p, "inv", len, err);
        return;
    }
    const uint8_t *best = NULL;
    txrelay_on_invs(s->txr, p, inv, k);
    chainstate_read_lock(s->cs);
    for (size_t i = 0; i < k; i++) {
        uint32_t type = inv[i].type & ~INV_WITNESS_FLAG;
        if (type != INV_BLOCK) {
            continue;
        }
        update_availability(s, p, inv[i].hash);
        struct block_index *e = block_tree_find(chainstate_tree(s->cs), inv[i].hash);
        if (!e && !find_inflight(s, inv[i].hash, NULL)) {
            best = inv[i].hash;
        }
    }
    /* Core: a peer we sync headers from is asked at once; before that, one more peer per
     * new block (the first to announce it, once per peer), so that an unresponsive sync peer
     * is worked around without asking everyone. */
    if (best && (p->ps->sync_started ||
                 (!p->ps->inv_getheaders_before_sync &&
                  memcmp(best, s->last_inv_getheaders, 32) != 0))) {
        send_getheaders(s, p, NULL, best);
        char bh[65];
        hex_encode_rev(bh, best, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "getheaders (%d) %s to peer=%lld", s->last_getheaders_height,
            bh, (long long)p->id);
        if (!p->ps->sync_started) {
            p->ps->inv_getheaders_before_sync = 1;
            memcpy(s->last_inv_getheaders, best, 32);
        }
    }
    chainstate_read_unlock(s->cs);
    free(inv);
    schedule_downloads(s);
}

/* Core's addr token bucket: 0.1 addresses a second, up to 1000 (refilled by our getaddr). */
static void refill_addr_tokens(struct peer *p, int64_t now_us)
{
    if (p->ps->addr_tokens_us && p->ps->addr_tokens < 1000.0) {
        double add = (double)(now_us - p->ps->addr_tokens_us) / 1e6 * 0.1;
        p->ps->addr_tokens += add > 0 ? add : 0;
        if (p->ps->addr_tokens > 1000.0) {
            p->ps->addr_tokens = 1000.0;
        }
    }
    p->ps->addr_tokens_us = now_us;
}

/* One received address (Core's ProcessAddrs loop body): 1 if it counts as processed, with
 * *keep set if it goes into the address manager as *out. Relays it when fresh and routable
 * and the message was small (Core: <= 10 addresses, not the answer to our getaddr). */
static int take_addr(struct sync *s, struct peer *p, const struct net_addr_msg_entry *e,
                     size_t k, int64_t now, struct addrman_addr *out, int *keep)
{
    *keep = 0;
    if (!(e->services & (NODE_NETWORK | NODE_NETWORK_LIMITED))) {
        return 0; /* Core stores only nodes that may have blocks to give */
    }
    struct net_addr_msg_entry a = *e;
    /* A time far in the future or the past is taken as five days ago (Core). */
    if (a.time <= 100000000 || (int64_t)a.time > now + 10 * 60) {
        a.time = (uint32_t)(now - 5 * 24 * 60 * 60);
    }
    addrrelay_known(p, &a);
    struct net_addr na;
    memset(&na, 0, sizeof(na));
    na.net = a.net;
    na.len = a.len;
    memcpy(na.addr, a.addr, a.len);
    na.port = a.port;
    int net = net_addr_network(&na);
    int reachable = net != NETWORK_UNROUTABLE && net_network_reachable(s->net, net);
    if ((int64_t)a.time > now - 10 * 60 && !p->ps->getaddr_pending && k <= 10 &&
        net_addr_is_routable(&na)) {
        addrrelay_relay(s->ar, p, &a, reachable);
    }
    if (reachable) {
        *out = (struct addrman_addr){na, a.services, a.time};
        *keep = 1;
    }
    return 1;
}

static void on_addr(struct sync *s, struct peer *p, const uint8_t *d, size_t len, int v2)
{
    struct net *n = s->net;
    if (!addrrelay_enable(p)) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "ignoring %s message from %s peer=%lld",
            v2 ? "addrv2" : "addr", net_conn_type_name(p->conn_type), (long long)p->id);
        return; /* Core: no address relay with block-relay-only or feeler connections */
    }
    char err[160];
    struct net_addr_msg_entry *a = NULL;
    size_t k = 0;
    int rc = net_addrmsg_parse(d, len, v2, &a, &k, err, sizeof(err));
    if (rc == RC_TOO_LARGE) {
        net_misbehaving(p, "%s message size = %zu", v2 ? "addrv2" : "addr", k);
        return;
    }
    if (rc != RC_OK) {
        net_malformed(p, v2 ? "addrv2" : "addr", len, err);
        return;
    }
    int64_t now = net_now(n);
    refill_addr_tokens(p, net_now_us(n));
    /* In random order (Core), so that the rate limit does not always cut the same ones. */
    for (size_t i = k; i > 1; i--) {
        uint8_t rnd[8];
        random_bytes(rnd, sizeof(rnd));
        size_t j = (size_t)(rd_u64le(rnd) % i);
        struct net_addr_msg_entry t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
    int unlimited = (p->perms & NET_PERM_ADDR) == NET_PERM_ADDR;
    struct addrman_addr *v = xcalloc(k ? k : 1, sizeof(*v));
    size_t m = 0, processed = 0, limited = 0;
    for (size_t i = 0; i < k; i++) {
        if (p->ps->addr_tokens < 1.0) {
            if (!unlimited) {
                limited++;
                continue;
            }
        } else {
            p->ps->addr_tokens -= 1.0;
        }
        int keep = 0;
        processed += (size_t)take_addr(s, p, &a[i], k, now, &v[m], &keep);
        m += (size_t)keep;
    }
    p->ps->addr_processed += processed;
    p->ps->addr_rate_limited += limited;
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
        "Received addr: %zu addresses (%zu processed, %zu rate-limited) from peer=%lld", k,
        processed, limited, (long long)p->id);
    size_t added = 0;
    addrman_add(s->am, &added, v, m, &p->addr, 2 * 60 * 60, now);
    free(v);
    free(a);
    if (k < NET_MAX_ADDR) {
        p->ps->getaddr_pending = 0;
    }
    if (p->conn_type == CONN_ADDR_FETCH && k > 1) {
        net_peer_disconnect(p, "addr-fetch done"); /* Core: it came for this */
    }
}

static void on_getaddr(struct sync *s, struct peer *p)
{
    if (p->conn_type != CONN_INBOUND) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Ignoring \"getaddr\" from %s connection. peer=%lld",
            net_conn_type_name(p->conn_type), (long long)p->id);
        return; /* Core answers inbound peers only (no fingerprinting through NAT) */
    }
    addrrelay_enable(p);
    if (p->ps->got_getaddr) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Ignoring repeated \"getaddr\". peer=%lld", (long long)p->id);
        return; /* Core answers once per connection */
    }
    p->ps->got_getaddr = 1;
    addrrelay_getaddr(s->ar, p);
}

/* ---- Dispatch ---- */

/* BIP434's feature message, between version and verack at a common version of 70017 or more:
 * a feature id (4 to 80 bytes) and its data (at most 512 bytes). bitnode knows no feature
 * yet, so a well-formed one is logged and ignored; the rest disconnect, in Core's words. */
static void on_feature(struct peer *p, const uint8_t *d, size_t len)
{
    const char *bad = NULL;
    char line[64];
    int common = p->ps->ver.version < NET_PROTOCOL_VERSION ? p->ps->ver.version
                                                            : NET_PROTOCOL_VERSION;
    if (p->ps->handshake_done) {
        bad = "feature received after verack";
    } else if (common < NET_FEATURE_VERSION) {
        snprintf(line, sizeof(line), "feature received with incompatible version %d", common);
        bad = line;
    }
    struct reader r;
    reader_init(&r, d, len);
    uint64_t id_len = 0, data_len = 0;
    const uint8_t *id = NULL, *data = NULL;
    if (!bad && (ser_get_compact(&r, &id_len, "feature id length") != RC_OK ||
                 id_len > NET_MAX_FEATURE_ID || id_len < 4 ||
                 reader_ptr(&r, &id, (size_t)id_len, "feature id") != RC_OK ||
                 ser_get_compact(&r, &data_len, "feature data length") != RC_OK ||
                 data_len > NET_MAX_FEATURE_DATA ||
                 reader_ptr(&r, &data, (size_t)data_len, "feature data") != RC_OK ||
                 reader_left(&r) != 0)) {
        bad = "invalid feature payload";
    }
    if (bad) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%s, disconnecting peer=%lld", bad, (long long)p->id);
        net_peer_disconnect(p, bad);
        return;
    }
    /* Core's SanitizeString: letters, digits and " .,;-_/:?@()" only. */
    char name[NET_MAX_FEATURE_ID + 1];
    size_t k = 0;
    for (size_t i = 0; i < id_len; i++) {
        char c = (char)id[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            (c && strchr(" .,;-_/:?@()", c))) {
            name[k++] = c;
        }
    }
    name[k] = 0;
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "unknown feature advertised: %s", name);
}

/* Core's RejectIncomingTxs: no transactions on a block-relay-only connection, nor with
 * -blocksonly unless the peer has the relay permission. */
static int reject_incoming_txs(const struct sync *s, const struct peer *p)
{
    if (p->conn_type == CONN_BLOCK_RELAY) {
        return 1;
    }
    return (p->perms & NET_PERM_RELAY) ? 0 : !s->relay;
}

/* The message event. */
/* The messages of the version handshake (version to verack, and what may come between):
 * handled here, or refused before the handshake ends, with Core's lines. 1 if the message
 * was taken (the caller stops), 0 for a message of the established connection. */
static int handshake_message(struct sync *s, struct peer *p, const char *cmd, const uint8_t *d,
                             size_t len)
{
    char lid[32];
    if (strcmp(cmd, "version") == 0) {
        on_version(s, p, d, len);
        return 1;
    }
    if (!p->ps->got_version) {
        /* Core ignores anything before version (the handshake times out). */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "non-version message before version handshake. Message \"%s\" from %s", cmd,
            peer_log_id(p, lid, sizeof(lid)));
        return 1;
    }
    if (strcmp(cmd, "verack") == 0) {
        on_verack(s, p);
        return 1;
    }
    if (strcmp(cmd, "wtxidrelay") == 0 || strcmp(cmd, "sendaddrv2") == 0) {
        if (p->ps->handshake_done) {
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%s received after verack, disconnecting %s", cmd,
                peer_log_id(p, lid, sizeof(lid)));
            net_peer_disconnect(p, cmd[0] == 'w' ? "wtxidrelay after verack"
                                                 : "sendaddrv2 after verack");
        } else if (cmd[0] == 'w') {
            p->ps->wtxid_relay = p->ps->ver.version >= NET_WTXID_RELAY_VERSION;
        } else {
            p->ps->want_addrv2 = 1;
        }
        return 1;
    }
    if (strcmp(cmd, "sendtxrcncl") == 0) {
        txrecon_on_message(p, d, len, reject_incoming_txs(s, p));
        return 1;
    }
    if (strcmp(cmd, "feature") == 0) {
        on_feature(p, d, len);
        return 1;
    }
    if (!p->ps->handshake_done) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Unsupported message \"%s\" prior to verack from %s", cmd,
            peer_log_id(p, lid, sizeof(lid)));
        return 1;
    }
    return 0;
}

/* A ping: answered with its nonce, after the peer's earlier blocks and transactions are
 * judged (Core handles a peer's messages in order: a test's sync_with_ping then sees their
 * effect). */
static void on_ping(struct peer *p, const uint8_t *d, size_t len)
{
    if (len < 8) {
        return;
    }
    if (p->pending_jobs > 0 &&
        p->ps->n_deferred_pongs < (int)(sizeof(p->ps->deferred_pongs) / sizeof(uint64_t))) {
        p->ps->deferred_pongs[p->ps->n_deferred_pongs++] = rd_u64le(d);
        return;
    }
    struct buf b;
    buf_init(&b);
    buf_append(&b, d, 8);
    net_send(p, "pong", &b);
    buf_clear(&b);
}

static void sync_process_message(void *ctx, struct peer *p, const char *cmd, const uint8_t *d,
                                 size_t len)
{
    struct sync *s = ctx;
    char lid[32];
    /* A block connected since is seen before the message (Core's validation interface has
     * told the transaction download by then in practice, and syncwithvalidationinterfacequeue
     * waits for it). */
    txrelay_check_tip(s->txr);
    if (handshake_message(s, p, cmd, d, len)) {
        return;
    }
    if (strcmp(cmd, "ping") == 0) {
        on_ping(p, d, len);
        return;
    }
    if (strcmp(cmd, "pong") == 0) {
        on_pong(p, d, len);
        return;
    }
    if (strcmp(cmd, "sendheaders") == 0) {
        p->ps->prefer_headers = 1;
        return;
    }
    if (strcmp(cmd, "feefilter") == 0) {
        if (len >= 8) {
            p->ps->feefilter = (int64_t)rd_u64le(d);
        }
        return;
    }
    if (strcmp(cmd, "sendcmpct") == 0) {
        cmpctrelay_on_sendcmpct(p, d, len);
        return;
    }
    if (strcmp(cmd, "cmpctblock") == 0) {
        cmpctrelay_on_cmpctblock(s->cmpct, p, d, len);
        return;
    }
    if (strcmp(cmd, "blocktxn") == 0) {
        cmpctrelay_on_blocktxn(s->cmpct, p, d, len);
        return;
    }
    if (strcmp(cmd, "getblocktxn") == 0) {
        cmpctrelay_on_getblocktxn(s->cmpct, p, d, len);
        return;
    }
    if (strcmp(cmd, "headers") == 0) {
        on_headers(s, p, d, len);
        return;
    }
    if (strcmp(cmd, "getheaders") == 0) {
        on_getheaders(s, p, d, len);
        return;
    }
    if (strcmp(cmd, "getblocks") == 0) {
        on_getblocks(s, p, d, len);
        return;
    }
    if (strcmp(cmd, "block") == 0) {
        on_block(s, p, d, len);
        return;
    }
    if (strcmp(cmd, "getdata") == 0) {
        on_getdata(s, p, d, len);
        return;
    }
    if (strcmp(cmd, "inv") == 0) {
        on_inv(s, p, d, len);
        return;
    }
    if (strcmp(cmd, "notfound") == 0) {
        txrelay_on_notfound(s->txr, p, d, len);
        return;
    }
    if (strcmp(cmd, "tx") == 0) {
        txrelay_on_tx(s->txr, p, d, len);
        return;
    }
    if (strcmp(cmd, "mempool") == 0) {
        txrelay_on_mempool_msg(p);
        return;
    }
    if (strcmp(cmd, "addr") == 0 || strcmp(cmd, "addrv2") == 0) {
        on_addr(s, p, d, len, cmd[4] == 'v');
        return;
    }
    if (strcmp(cmd, "getaddr") == 0) {
        on_getaddr(s, p);
        return;
    }
    if (strcmp(cmd, "getcfilters") == 0 || strcmp(cmd, "getcfheaders") == 0 ||
        strcmp(cmd, "getcfcheckpt") == 0) {
        cfilters_on_request(s->block_filters, s->cs, p, cmd, d, len);
        return;
    }
    if (strcmp(cmd, "filterload") == 0 || strcmp(cmd, "filteradd") == 0 ||
        strcmp(cmd, "filterclear") == 0) {
        bloomrelay_on_message(p, cmd, d, len);
        return;
    }
    /* Anything unknown: ignored, as Core does. */
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Unknown or unhandled command \"%s\" from %s", cmd,
        peer_log_id(p, lid, sizeof(lid)));
}

/* ---- Announcements ---- */

/* A high-bandwidth peer gets each new block that extended the tip, compact and in order, when
 * it has the first one's parent (Core's NewPoWValidBlock announces every block as it comes
 * on the tip, so a burst, such as generate's 400 blocks between two of bitnode's ticks,
 * reaches it block by block, and a peer that could fetch only the last 288 of them from a
 * pruned node still gets them all). 1 if the tip went so; 0: announce it otherwise (the
 * blocks sent so far stay sent). Chain read lock held. */
static int announce_compact_run(struct sync *s, struct peer *p, struct block_index *old_tip,
                                struct block_index *tip)
{
    struct block_index *first = tip;
    if (old_tip && old_tip->height < tip->height &&
        block_index_ancestor(tip, old_tip->height) == old_tip) {
        first = block_index_ancestor(tip, old_tip->height + 1);
        while (first != tip && peer_has_header(p, first)) {
            first = block_index_ancestor(tip, first->height + 1);
        }
    }
    if (!first->prev || !peer_has_header(p, first->prev)) {
        return 0;
    }
    for (int32_t h = first->height; h <= tip->height; h++) {
        struct block_index *e = block_index_ancestor(tip, h);
        if (!cmpctrelay_announce(s->cmpct, p, e)) {
            return 0;
        }
        p->ps->best_sent = e;
    }
    return 1;
}

static void announce_tip(struct sync *s, struct block_index *old_tip, struct block_index *tip)
{
    /* The new blocks on the active chain, oldest first (at most a few). */
    struct block_index *fork = old_tip ? block_index_fork_point(old_tip, tip) : NULL;
    int32_t from = fork ? fork->height + 1 : tip->height;
    for (struct peer *p = s->net->peers; p; p = p->next) {
        if (p->disconnect || !p->ps->handshake_done) {
            continue;
        }
        if (peer_has_header(p, tip) || p->ps->tip_at_handshake == tip) {
            continue;
        }
        int sent = 0;
        if (announce_compact_run(s, p, old_tip, tip)) {
            p->ps->best_sent = tip;
            continue;
        }
        if (p->ps->prefer_headers) {
            /* Start past what the peer has; its parent must be known to the peer. What is
             * left is what Core's per-peer list would hold (it announces after each message
             * while bitnode gathers the tips of a tick): at most MAX_HEADERS_ANNOUNCE. */
            struct block_index *first = block_index_ancestor(tip, from);
            while (first != tip && peer_has_header(p, first)) {
                first = block_index_ancestor(tip, first->height + 1);
            }
            size_t k = (size_t)(tip->height - first->height + 1);
            if ((!first->prev || peer_has_header(p, first->prev)) && k <= MAX_HEADERS_ANNOUNCE) {
                uint8_t *raw = xmalloc(k * 80);
                for (size_t i = 0; i < k; i++) {
                    block_header_serialize(
                        &block_index_ancestor(tip, first->height + (int32_t)i)->header,
                        raw + i * 80);
                }
                struct buf b;
                buf_init(&b);
                net_headers_serialize(&b, raw, k);
                net_send(p, "headers", &b);
                buf_clear(&b);
                free(raw);
                sent = 1;
            }
        }
        if (!sent) {
            struct net_inv iv = {.type = INV_BLOCK};
            memcpy(iv.hash, tip->hash, 32);
            struct buf b;
            buf_init(&b);
            net_inv_serialize(&b, &iv, 1);
            net_send(p, "inv", &b);
            buf_clear(&b);
        } else {
            p->ps->best_sent = tip; /* Core's pindexBestHeaderSent: headers only, not an inv */
        }
    }
}

/* The sender of src's block e, a new tip (connected, or about to be: it has all its data and
 * the most work), out of initial block download and with no other block in flight when it
 * was stored, is asked to announce to us as cmpctblock (once). Chain read lock held. */
static void promote_source(struct sync *s, struct block_source *src, struct block_index *e)
{
    struct block_index *tip = chainstate_tip(s->cs);
    int new_tip = chainstate_contains(s->cs, e) ||
                  (e->chain_tx && !block_index_failed(e) && tip &&
                   u256_cmp(&e->chain_work, &tip->chain_work) > 0);
    if (src->promoted || !src->alone || !new_tip || chainstate_in_ibd(s->cs)) {
        return;
    }
    src->promoted = 1;
    struct peer *p = net_find_peer(s->net, src->peer_id);
    if (p) {
        cmpctrelay_block_from_peer(s->cmpct, p);
    }
}

/* Blocks received from peers, once their verdict is in (Core's BlockChecked): the sender of
 * one that connected, out of initial block download and with no other block in flight when
 * it was stored, is asked to announce to us as cmpctblock; the sender of one that failed is
 * punished. Chain read lock held. */
static void check_sources(struct sync *s)
{
    struct net *n = s->net;
    size_t have = s->n_sources < NET_BLOCK_SOURCES ? s->n_sources : NET_BLOCK_SOURCES;
    int64_t now = net_now(n);
    for (size_t i = 0; i < have; i++) {
        struct block_source *src = &s->sources[i];
        if (src->peer_id < 0) {
            continue;
        }
        struct block_index *e = block_tree_find(chainstate_tree(s->cs), src->hash);
        if (e && chainstate_contains(s->cs, e)) {
            promote_source(s, src, e);
        }
        if (!e || chainstate_contains(s->cs, e) || now - src->time > 3600) {
            src->peer_id = -1;
            continue;
        }
        if (block_index_failed(e)) {
            struct peer *p = net_find_peer(n, src->peer_id);
            src->peer_id = -1;
            struct vstate st;
            vstate_init(&st);
            /* Only a block that failed validation names its sender (Core's BlockChecked): one
             * invalidated by invalidateblock, or failed for an ancestor, does not. */
            if (p && chainstate_last_invalid(s->cs, e->hash, &st) == 1) {
                if (!(src->via_compact && compact_exempt(&st))) {
                    punish_for_block(p, &st, "invalid block received");
                }
            }
        }
    }
}

/* Core's ConsiderEviction: an outbound peer (full-relay or block-relay-only, its sync
 * started, not protected) whose best known block has less work than our tip gets 20 minutes
 * to show as much, then one getheaders and 2 minutes more, then it is dropped. 1 if p was.
 * Chain lock held. */
static int consider_eviction(struct sync *s, struct peer *p, int64_t now)
{
    if (p->ps->chain_sync_protect || !p->ps->sync_started ||
        (p->conn_type != CONN_OUTBOUND_FULL_RELAY && p->conn_type != CONN_BLOCK_RELAY)) {
        return 0;
    }
    struct block_index *tip = chainstate_tip(s->cs), *best = p->ps->best_known;
    if (!tip) {
        return 0;
    }
    struct peer_sync *ps = p->ps;
    if (best && u256_cmp(&best->chain_work, &tip->chain_work) >= 0) {
        ps->chain_sync_timeout = 0;
        ps->chain_sync_work = NULL;
        ps->chain_sync_sent_getheaders = 0;
    } else if (ps->chain_sync_timeout == 0 ||
               (ps->chain_sync_work && best &&
                u256_cmp(&best->chain_work, &ps->chain_sync_work->chain_work) >= 0)) {
        ps->chain_sync_timeout = now + 20 * 60;
        ps->chain_sync_work = tip;
        ps->chain_sync_sent_getheaders = 0;
    } else if (now > ps->chain_sync_timeout) {
        char hx[65] = "<none>";
        if (best) {
            hex_encode_rev(hx, best->hash, 32);
        }
        if (ps->chain_sync_sent_getheaders) {
            LOG_INFO("Outbound peer has old chain, best known block = %s, disconnecting peer=%lld",
                     hx, (long long)p->id);
            net_peer_disconnect(p, "outbound peer has old chain");
            return 1;
        }
        send_getheaders(s, p, ps->chain_sync_work->prev ? ps->chain_sync_work->prev
                                                        : ps->chain_sync_work,
                        NULL);
        char wh[65];
        hex_encode_rev(wh, ps->chain_sync_work->hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "sending getheaders to outbound peer=%lld to verify chain work (current best known "
            "block:%s, benchmark blockhash: %s)",
            (long long)p->id, hx, wh);
        ps->chain_sync_sent_getheaders = 1;
        ps->chain_sync_timeout = now + 2 * 60;
    }
    return 0;
}

/* Core's headers-sync timeout: while our best header is more than a day old, the only peer
 * we sync headers from that has not got us there by its deadline is dropped when another
 * preferred peer could take over (a noban one is kept, its sync started again later). Once
 * the header is recent the deadline is gone for good. 1 if p was dropped. */
static int headers_sync_stalled(struct sync *s, struct peer *p, int64_t now_us)
{
    if (!p->ps->sync_started || p->ps->headers_sync_timeout_us == INT64_MAX) {
        return 0;
    }
    chainstate_read_lock(s->cs);
    struct block_index *best = chainstate_best_header(s->cs);
    int64_t best_time = best ? (int64_t)best->header.time : 0;
    chainstate_read_unlock(s->cs);
    if (best_time > net_now(s->net) - 24 * 60 * 60) {
        p->ps->headers_sync_timeout_us = INT64_MAX;
        return 0;
    }
    if (now_us <= p->ps->headers_sync_timeout_us) {
        return 0;
    }
    int started = 0, preferred = 0;
    for (struct peer *q = s->net->peers; q; q = q->next) {
        if (!q->disconnect && q->ps) {
            started += q->ps->sync_started;
            preferred += q->ps->handshake_done && preferred_download(q);
        }
    }
    if (started != 1 || preferred - preferred_download(p) < 1) {
        return 0;
    }
    if ((p->perms & NET_PERM_NOBAN) != NET_PERM_NOBAN) {
        LOG_INFO("Timeout downloading headers, disconnecting peer=%lld", (long long)p->id);
        net_peer_disconnect(p, "headers sync timeout");
        return 1;
    }
    LOG_INFO("Timeout downloading headers from noban peer, not disconnecting peer=%lld",
             (long long)p->id);
    p->ps->sync_started = 0;
    p->ps->headers_sync_timeout_us = 0;
    return 0;
}

/* Core's BlockConnected: each block connected takes 15% off a raised stalling timeout, down
 * to the default. The blocks since the last tick, old_tip to tip (a reorg counts its new
 * blocks). */
static void relax_stall_timeout(struct sync *s, struct block_index *old_tip,
                                struct block_index *tip)
{
    struct block_index *fork = old_tip ? block_index_fork_point(old_tip, tip) : NULL;
    int32_t blocks = tip->height - (fork ? fork->height : tip->height - 1);
    for (int32_t i = 0; i < blocks && s->stall_timeout_us != NET_STALL_TIMEOUT_US; i++) {
        int64_t next = s->stall_timeout_us * 85 / 100;
        next = next < NET_STALL_TIMEOUT_US ? NET_STALL_TIMEOUT_US : next / 1000000 * 1000000;
        s->stall_timeout_us = next;
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Decreased stalling timeout to %lld seconds",
            (long long)(next / 1000000));
    }
}

/* The tick event: pings, timeouts, stalls, a new tip announced, sync started, downloads
 * asked for, transaction relay's timers. */
/* A node that is not pruned and stopped offering NODE_NETWORK for a UTXO snapshot
 * (loadtxoutset) offers it again once the blocks below the snapshot are validated (Core). */
static void restore_network_service(struct sync *s)
{
    if (s->net->opt.pruned || (net_local_services(s->net) & NODE_NETWORK)) {
        return;
    }
    struct block_index *from, *target;
    chainstate_read_lock(s->cs);
    int background = chainstate_background_range(s->cs, &from, &target);
    chainstate_read_unlock(s->cs);
    if (!background) {
        net_add_local_services(s->net, NODE_NETWORK);
    }
}


/* Core's InactivityCheck, once -peertimeout has passed since p connected: a peer that never
 * sent or was never sent anything, one silent for 20 minutes either way, or one whose
 * handshake (the v2 transport's, then the version exchange) never finished is dropped,
 * with Core's words. 1 if it was. */
static int inactive(struct sync *s, struct peer *p, int64_t now)
{
    const char *why = NULL;
    char line[160];
    if (!p->last_recv || !p->last_send) {
        snprintf(line, sizeof(line), "socket no message in first %lld seconds%s%s",
                 (long long)s->peer_timeout, p->last_recv ? "" : ", never received from peer",
                 p->last_send ? "" : ", never sent to peer");
        why = line;
    } else if (now > p->last_send + NET_TIMEOUT_INTERVAL_S) {
        snprintf(line, sizeof(line), "socket sending timeout: %llds",
                 (long long)(now - p->last_send));
        why = line;
    } else if (now > p->last_recv + NET_TIMEOUT_INTERVAL_S) {
        snprintf(line, sizeof(line), "socket receive timeout: %llds",
                 (long long)(now - p->last_recv));
        why = line;
    } else if (!p->ps->handshake_done) {
        why = net_peer_detecting(p) ? "V2 handshake timeout" : "version handshake timeout";
    }
    if (!why) {
        return 0;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "%s, disconnecting peer=%lld", why, (long long)p->id);
    net_peer_disconnect(p, why);
    return 1;
}

static void on_tick(void *ctx)
{
    struct sync *s = ctx;
    struct net *n = s->net;
    restore_network_service(s);
    int64_t now_us = net_now_us(n);
    int64_t now = net_now(n);
    int downloading = 0;
    for (struct peer *p = n->peers; p; p = p->next) {
        downloading += p->ps->n_inflight > 0;
    }
    for (struct peer *p = n->peers; p; p = p->next) {
        if (p->disconnect || !p->connected) {
            continue;
        }
        /* Core's InactivityCheck. */
        if (now > p->conn_time + s->peer_timeout && inactive(s, p, now)) {
            continue;
        }
        if (!p->ps->handshake_done) {
            continue;
        }
        if (headers_sync_stalled(s, p, now_us)) {
            continue;
        }
        chainstate_read_lock(s->cs);
        int evicted = consider_eviction(s, p, now);
        chainstate_read_unlock(s->cs);
        if (evicted) {
            continue;
        }
        /* An addr-fetch connection that has not given its addresses in 5 minutes (Core's
         * 10 x AVG_ADDRESS_BROADCAST_INTERVAL). */
        if (p->conn_type == CONN_ADDR_FETCH && now - p->conn_time > 300) {
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "addrfetch connection timeout, disconnecting peer=%lld",
                (long long)p->id);
            net_peer_disconnect(p, "addrfetch connection timeout");
            continue;
        }
        if (p->ps->ping_nonce && now > p->conn_time + s->peer_timeout &&
            now_us - p->ps->ping_start_us > NET_TIMEOUT_INTERVAL_S * 1000000LL) {
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "ping timeout: %fs, disconnecting peer=%lld",
                (double)(now_us - p->ps->ping_start_us) / 1e6, (long long)p->id);
            net_peer_disconnect(p, "ping timeout");
            continue;
        }
        if (!p->ps->ping_nonce && (p->ps->ping_asked || now_us >= p->ps->next_ping_us)) {
            send_ping(p);
        }
        /* A peer holding the download window for too long. */
        if (p->ps->stalling_since_us && now_us - p->ps->stalling_since_us > s->stall_timeout_us) {
            LOG_INFO("Peer is stalling block download, disconnecting peer=%lld", (long long)p->id);
            /* Core: the next peer gets longer, so that our own slow link does not cost every
             * peer in turn; each block connected brings it back down. */
            int64_t next = s->stall_timeout_us * 2;
            next = next > NET_STALL_TIMEOUT_MAX_US ? NET_STALL_TIMEOUT_MAX_US : next;
            if (next != s->stall_timeout_us) {
                s->stall_timeout_us = next;
                LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Increased stalling timeout temporarily to %lld seconds",
                    (long long)(next / 1000000));
            }
            net_peer_disconnect(p, "stalling");
            continue;
        }
        if (p->ps->inflight) {
            struct inflight *oldest = p->ps->inflight;
            for (struct inflight *b = p->ps->inflight; b; b = b->next) {
                if (b->time_us < oldest->time_us) {
                    oldest = b;
                }
            }
            int64_t limit = NET_BLOCK_TIMEOUT_BASE_US +
                            NET_BLOCK_TIMEOUT_PER_PEER_US * (downloading > 1 ? downloading - 1 : 0);
            if (now_us - oldest->time_us > limit) {
                LOG_INFO("Timeout downloading block, disconnecting peer=%lld", (long long)p->id);
                net_peer_disconnect(p, "block download timeout");
                continue;
            }
        }
    }
    chainstate_read_lock(s->cs);
    struct block_index *tip = chainstate_tip(s->cs);
    int new_tip = tip && tip != s->last_tip;
    if (new_tip) {
        relax_stall_timeout(s, s->last_tip, tip);
        if (!chainstate_in_ibd(s->cs)) {
            announce_tip(s, s->last_tip, tip);
        }
        s->last_tip = tip;
    }
    check_sources(s);
    int in_ibd = chainstate_in_ibd(s->cs);
    chainstate_read_unlock(s->cs);
    /* Peers whose handshake is done but sync never started (no tip at the time). */
    for (struct peer *p = n->peers; p; p = p->next) {
        if (!p->disconnect && p->ps->handshake_done && !p->ps->sync_started) {
            start_sync(s, p);
        }
    }
    schedule_downloads(s);
    txrelay_check_tip(s->txr);
    txrelay_tick(s->txr);
    s->self_announce = n->opt.listen && !in_ibd;
    addrrelay_tick(s->ar, s->self_announce);
}

int sync_fetch_block(struct sync *s, int64_t peer_id, const uint8_t hash32[32], char *err,
                     size_t err_len)
{
    struct peer *p = net_find_peer(s->net, peer_id);
    if (!p || !p->ps->handshake_done) {
        snprintf(err, err_len, "Peer does not exist");
        return RC_NOT_FOUND;
    }
    if (!(p->ps->ver.services & NODE_WITNESS)) {
        snprintf(err, err_len, "Pre-SegWit peer");
        return RC_INVALID;
    }
    chainstate_read_lock(s->cs);
    struct block_index *e = block_tree_find(chainstate_tree(s->cs), hash32);
    int have = e && (e->status & BLOCK_HAVE_DATA);
    chainstate_read_unlock(s->cs);
    if (!e) {
        snprintf(err, err_len, "Block header missing");
        return RC_NOT_FOUND;
    }
    if (have) {
        snprintf(err, err_len, "Block already downloaded");
        return RC_INVALID;
    }
    /* Core's FetchBlock: whoever was asked before is forgotten; this peer is asked now. */
    struct peer *owner = NULL;
    while (find_inflight(s, hash32, &owner)) {
        remove_inflight(owner, hash32);
    }
    chainstate_read_lock(s->cs);
    request_blocks(s, p, &e, 1, 0);
    chainstate_read_unlock(s->cs);
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Requesting block %d from peer=%lld (getblockfrompeer)",
        e->height, (long long)peer_id);
    return RC_OK;
}

void sync_peer_stats(struct sync *s, struct net_peer_stats *st)
{
    struct peer *p = net_find_peer(s->net, st->id);
    if (!p) {
        return;
    }
    snprintf(st->addr_local, sizeof(st->addr_local), "%s", p->ps->addr_local);
    st->services = p->ps->ver.services;
    st->relay_txs = p->relay_txs;
    st->time_offset = p->ps->time_offset;
    st->ping_us = p->ps->ping_us;
    st->min_ping_us = p->min_ping_us;
    st->ping_wait_us = p->ps->ping_nonce ? net_now_us(s->net) - p->ps->ping_start_us : -1;
    st->version = p->ps->ver.version;
    snprintf(st->subver, sizeof(st->subver), "%s", p->ps->ver.user_agent);
    cmpctrelay_peer_hb(p, &st->bip152_hb_to, &st->bip152_hb_from);
    st->starting_height = p->ps->ver.start_height;
    st->synced_headers = p->ps->best_known ? p->ps->best_known->height : -1;
    st->synced_blocks = p->ps->last_common ? p->ps->last_common->height : -1;
    st->presynced_headers = p->ps->hsync && headerssync_state(p->ps->hsync) == HSYNC_PRESYNC
                                ? headerssync_presync_height(p->ps->hsync)
                                : -1;
    st->n_inflight = (size_t)p->ps->n_inflight;
    st->inflight = xcalloc(st->n_inflight ? st->n_inflight : 1, sizeof(int32_t));
    size_t f = 0;
    for (struct inflight *b = p->ps->inflight; b; b = b->next) {
        st->inflight[f++] = b->e ? b->e->height : -1;
    }
    st->addr_relay_enabled = p->ps->addr_relay;
    st->inv_to_send = txrelay_inv_to_send(p);
    st->last_inv_sequence = txrelay_last_inv_sequence(p);
    st->addr_processed = p->ps->addr_processed;
    st->addr_rate_limited = p->ps->addr_rate_limited;
    st->minfeefilter = p->ps->feefilter;
    st->handshake_done = p->ps->handshake_done;
}

void sync_ping_all(struct sync *s)
{
    for (struct peer *p = s->net->peers; p; p = p->next) {
        p->ps->ping_asked = 1;
    }
    on_tick(s);
}

void sync_mock_scheduler(struct sync *s, int64_t delta_s)
{
    txrelay_mock_scheduler(s->txr, delta_s * 1000000);
}

void sync_relay_transaction(struct sync *s, const uint8_t txid[32], const uint8_t wtxid[32])
{
    txrelay_relay_transaction(s->txr, txid, wtxid);
}

void sync_inv_buckets(struct sync *s, unsigned *rate, struct invbucket_info *in,
                      struct invbucket_info *out)
{
    txrelay_inv_buckets(s->txr, rate, in, out);
}

void sync_orphans(struct sync *s, struct net_orphan **out, size_t *count)
{
    txrelay_orphans(s->txr, out, count);
}

int sync_handshake_done(const struct peer *p)
{
    return p->ps && p->ps->handshake_done;
}

int sync_new(struct sync **out, struct net *n)
{
    struct sync *s = xcalloc(1, sizeof(*s));
    s->net = n;
    s->cs = n->cs;
    s->p = n->p;
    s->am = n->am;
    s->peer_timeout = n->opt.peer_timeout;
    s->relay = n->opt.mempool && !n->opt.blocks_only;
    s->block_filters = n->opt.block_filters;
    s->stall_timeout_us = NET_STALL_TIMEOUT_US;
    /* The tip loaded at start is not news: only blocks connected from now on are announced
     * (Core's UpdatedBlockTip), so a peer that connects early is not sent it. */
    chainstate_read_lock(s->cs);
    s->last_tip = chainstate_tip(s->cs);
    chainstate_read_unlock(s->cs);
    txrelay_new(&s->txr, n, s->cs, n->opt.mempool, n->opt.blocks_only, n->opt.tx_send_rate);
    addrrelay_new(&s->ar, n, s->am);
    struct cmpctrelay_sink sink = {
        .ctx = s, .block = on_rebuilt_block, .headers_wanted = on_unconnected_cmpct,
        .low_work = cmpct_low_work,
        .header = on_cmpct_header,
        .in_flight = on_cmpct_in_flight,
        .processing = on_cmpct_processing};
    cmpctrelay_new(&s->cmpct, n, s->cs, n->opt.mempool, n->opt.blocks_only, &sink);
    *out = s;
    return RC_OK;
}

/* The message event: the message, then (Core's SendMessages after each message) what is due
 * to the peer of address relay, so that our address goes right after the handshake or the
 * peer's getaddr, not at the next tick, and Core's checks after it (after_message). */
static void on_message(void *ctx, struct peer *p, const char *cmd, const uint8_t *d, size_t len)
{
    struct sync *s = ctx;
    sync_process_message(s, p, cmd, d, len);
    if (p->ps) {
        addrrelay_peer_tick(s->ar, p, s->self_announce);
        after_message(s, p);
    }
}

void sync_free(struct sync *s)
{
    if (!s) {
        return;
    }
    txrelay_free(s->txr);
    cmpctrelay_free(s->cmpct);
    addrrelay_free(s->ar);
    free(s->processing);
    free(s);
}

void sync_events(struct sync *s, struct net_events *ev)
{
    *ev = (struct net_events){
        .ctx = s,
        .connected = on_connected,
        .opened = on_opened,
        .message = on_message,
        .send_room = on_send_room,
        .job_done = on_job_done,
        .jobs_done = on_jobs_done,
        .tick = on_tick,
        .peer_gone = on_peer_gone,
    };
}
