/* Address relay: see addrrelay.h. Facts from Bitcoin Core's net_processing.cpp and net.cpp
 * (their behaviour, not their code): an address goes to a peer at its next trickle (a
 * Poisson timer, mean 30 s); a per-peer filter of the addresses it knows (5000 remembered,
 * Core's rolling bloom filter) keeps an address from going back to its source or twice; a
 * relayed address goes to the peers a keyed hash of the address, the day and the peer id
 * ranks first; getaddr answers are cached per network and local socket for 21-27 h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/siphash.h"
#include "net/addrman.h"
#include "net/addrrelay.h"
#include "net/localaddr.h"
#include "net/net_impl.h"
#include "net/netaddr.h"
#include "net/peer_sync.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define KNOWN_SLOTS 4096      /* per generation; a power of two */
#define KNOWN_GENERATION 2500 /* keys per generation: two remember 2500 to 5000 */
#define SEND_INTERVAL_US (30 * 1000000LL)        /* Core's AVG_ADDRESS_BROADCAST_INTERVAL */
#define ROTATE_RELAY_S (24 * 60 * 60)            /* Core's ROTATE_ADDR_RELAY_DEST_INTERVAL */
#define CACHE_BASE_US (21 * 60 * 60 * 1000000LL) /* Core's getaddr cache: 21 h ... */
#define CACHE_SPREAD_US (6 * 60 * 60 * 1000000LL) /* ... plus up to 6 h */
#define MAX_PCT_ADDR 23                           /* Core's MAX_PCT_ADDR_TO_SEND */
#define LOCAL_INTERVAL_US (24 * 60 * 60 * 1000000LL) /* AVG_LOCAL_ADDRESS_BROADCAST_INTERVAL */

struct addrrelay_peer {
    uint64_t *gen[2]; /* open-addressing sets of keys (0: empty); gen[cur] fills */
    size_t n_cur;
    int cur;
    struct net_addr_msg_entry *queue; /* to send at the next trickle, at most NET_MAX_ADDR */
    size_t n_queue;
    int64_t next_send_us;
    int64_t next_local_us; /* our own address goes again then (0: never sent yet) */
};

struct addr_cache {
    int network;
    char bind[NET_ADDR_STR_LEN];
    int64_t expires_us;
    struct addrman_addr *v;
    size_t n;
};

struct addrrelay {
    struct net *net;
    struct addrman *am;
    uint64_t k0, k1; /* the node's secret hash key */
    struct addr_cache *cache;
    size_t n_cache;
};

int addrrelay_new(struct addrrelay **out, struct net *n, struct addrman *am)
{
    struct addrrelay *r = xcalloc(1, sizeof(*r));
    r->net = n;
    r->am = am;
    uint8_t k[16];
    random_bytes(k, sizeof(k));
    r->k0 = rd_u64le(k);
    r->k1 = rd_u64le(k + 8);
    *out = r;
    return RC_OK;
}

void addrrelay_free(struct addrrelay *r)
{
    if (!r) {
        return;
    }
    for (size_t i = 0; i < r->n_cache; i++) {
        free(r->cache[i].v);
    }
    free(r->cache);
    free(r);
}

void addrrelay_peer_gone(struct peer *p)
{
    struct addrrelay_peer *ap = p->ps->ar;
    if (!ap) {
        return;
    }
    free(ap->gen[0]);
    free(ap->gen[1]);
    free(ap->queue);
    free(ap);
    p->ps->ar = NULL;
}

int addrrelay_enable(struct peer *p)
{
    if (p->conn_type == CONN_BLOCK_RELAY || p->conn_type == CONN_FEELER) {
        return 0;
    }
    if (!p->ps->ar) {
        struct addrrelay_peer *ap = xcalloc(1, sizeof(*ap));
        ap->gen[0] = xcalloc(KNOWN_SLOTS, sizeof(uint64_t));
        ap->gen[1] = xcalloc(KNOWN_SLOTS, sizeof(uint64_t));
        ap->queue = xcalloc(NET_MAX_ADDR, sizeof(*ap->queue));
        p->ps->ar = ap;
    }
    p->ps->addr_relay = 1;
    return 1;
}

/* The filter key of an address: network, bytes and port (Core's CService key), hashed with
 * a fixed key (the filter is per peer; nothing outside sees it). Never 0. */
static uint64_t entry_key(const struct net_addr_msg_entry *e)
{
    uint8_t b[36];
    b[0] = e->net;
    memcpy(b + 1, e->addr, e->len);
    b[1 + e->len] = (uint8_t)(e->port >> 8);
    b[2 + e->len] = (uint8_t)e->port;
    uint64_t h = siphash24(0x6164647273ULL, 0x6b6e6f776eULL, b, (size_t)e->len + 3);
    return h ? h : 1;
}

static int set_has(const uint64_t *t, uint64_t key)
{
    for (size_t i = key & (KNOWN_SLOTS - 1);; i = (i + 1) & (KNOWN_SLOTS - 1)) {
        if (t[i] == key) {
            return 1;
        }
        if (t[i] == 0) {
            return 0;
        }
    }
}

static int known_has(const struct addrrelay_peer *ap, uint64_t key)
{
    return set_has(ap->gen[0], key) || set_has(ap->gen[1], key);
}

static void known_add_key(struct addrrelay_peer *ap, uint64_t key)
{
    if (known_has(ap, key)) {
        return;
    }
    if (ap->n_cur >= KNOWN_GENERATION) {
        /* The older generation is forgotten; the full one becomes the older. */
        ap->cur ^= 1;
        memset(ap->gen[ap->cur], 0, KNOWN_SLOTS * sizeof(uint64_t));
        ap->n_cur = 0;
    }
    uint64_t *t = ap->gen[ap->cur];
    size_t i = key & (KNOWN_SLOTS - 1);
    while (t[i] != 0) {
        i = (i + 1) & (KNOWN_SLOTS - 1);
    }
    t[i] = key;
    ap->n_cur++;
}

void addrrelay_known(struct peer *p, const struct net_addr_msg_entry *e)
{
    if (p->ps->ar) {
        known_add_key(p->ps->ar, entry_key(e));
    }
}

/* Core's IsAddrCompatible: a peer without addrv2 takes only IPv4 and IPv6. */
static int compatible(const struct peer *p, const struct net_addr_msg_entry *e)
{
    return p->ps->want_addrv2 || e->net == BIP155_IPV4 || e->net == BIP155_IPV6;
}

/* Core's PushAddress: onto p's queue unless known or incompatible; a full queue has a random
 * entry replaced. */
static void push_address(struct peer *p, const struct net_addr_msg_entry *e)
{
    struct addrrelay_peer *ap = p->ps->ar;
    if (!ap || !compatible(p, e) || known_has(ap, entry_key(e))) {
        return;
    }
    if (ap->n_queue >= NET_MAX_ADDR) {
        uint8_t rnd[8];
        random_bytes(rnd, sizeof(rnd));
        ap->queue[rd_u64le(rnd) % ap->n_queue] = *e;
        return;
    }
    ap->queue[ap->n_queue++] = *e;
}

static int entry_network(const struct net_addr_msg_entry *e, struct net_addr *na)
{
    memset(na, 0, sizeof(*na));
    na->net = e->net;
    na->len = e->len;
    memcpy(na->addr, e->addr, e->len);
    na->port = e->port;
    return net_addr_network(na);
}

void addrrelay_relay(struct addrrelay *r, const struct peer *from,
                     const struct net_addr_msg_entry *e, int reachable)
{
    struct net_addr na;
    int network = entry_network(e, &na);
    if (!reachable && (network == NETWORK_UNROUTABLE || network >= NETWORK_COUNT)) {
        return; /* Core's IsRelayable: no internal addresses */
    }
    uint64_t hash_addr = entry_key(e);
    uint64_t day = ((uint64_t)net_now(r->net) + hash_addr) / ROTATE_RELAY_S;
    uint8_t seed[16];
    wr_u64le(seed, hash_addr);
    wr_u64le(seed + 8, day);
    uint64_t base = siphash24(r->k0, r->k1, seed, sizeof(seed));
    unsigned want = (reachable || (base & 1)) ? 2 : 1;
    uint64_t best_h[2] = {0, 0};
    struct peer *best[2] = {NULL, NULL};
    for (struct peer *p = r->net->peers; p; p = p->next) {
        if (p == from || p->disconnect || !p->ps || !p->ps->ar || !compatible(p, e)) {
            continue;
        }
        uint8_t b[16];
        wr_u64le(b, base);
        wr_u64le(b + 8, (uint64_t)p->id);
        uint64_t h = siphash24(r->k0, r->k1, b, sizeof(b));
        for (unsigned i = 0; i < want; i++) {
            if (h > best_h[i]) {
                if (i == 0 && want == 2) {
                    best_h[1] = best_h[0];
                    best[1] = best[0];
                }
                best_h[i] = h;
                best[i] = p;
                break;
            }
        }
    }
    for (unsigned i = 0; i < want && best[i]; i++) {
        push_address(best[i], e);
    }
}

static void entry_from_addr(const struct addrman_addr *a, struct net_addr_msg_entry *e)
{
    memset(e, 0, sizeof(*e));
    e->time = (uint32_t)a->time;
    e->services = a->services;
    e->net = a->addr.net;
    e->len = a->addr.len;
    memcpy(e->addr, a->addr.addr, e->len);
    e->port = a->addr.port;
}

/* The cache entry for (network, bind), refreshed when expired. */
static struct addr_cache *cache_for(struct addrrelay *r, int network, const char *bind,
                                    int64_t now_us)
{
    struct addr_cache *c = NULL;
    for (size_t i = 0; i < r->n_cache; i++) {
        if (r->cache[i].network == network && strcmp(r->cache[i].bind, bind) == 0) {
            c = &r->cache[i];
        }
    }
    if (!c) {
        r->cache = xrealloc(r->cache, (r->n_cache + 1) * sizeof(*r->cache));
        c = &r->cache[r->n_cache++];
        memset(c, 0, sizeof(*c));
        c->network = network;
        snprintf(c->bind, sizeof(c->bind), "%s", bind);
    }
    if (c->expires_us < now_us) {
        free(c->v);
        c->v = NULL;
        c->n = 0;
        addrman_get_addr(r->am, &c->v, &c->n, NET_MAX_ADDR, MAX_PCT_ADDR, -1, now_us / 1000000);
        uint8_t rnd[8];
        random_bytes(rnd, sizeof(rnd));
        c->expires_us = now_us + CACHE_BASE_US + (int64_t)(rd_u64le(rnd) % CACHE_SPREAD_US);
    }
    return c;
}

void addrrelay_getaddr(struct addrrelay *r, struct peer *p)
{
    struct addrrelay_peer *ap = p->ps->ar;
    if (!ap) {
        return;
    }
    ap->n_queue = 0;
    struct net_addr_msg_entry e;
    if ((p->perms & NET_PERM_ADDR) == NET_PERM_ADDR) {
        struct addrman_addr *v = NULL;
        size_t k = 0;
        addrman_get_addr(r->am, &v, &k, NET_MAX_ADDR, MAX_PCT_ADDR, -1, net_now(r->net));
        for (size_t i = 0; i < k; i++) {
            entry_from_addr(&v[i], &e);
            push_address(p, &e);
        }
        free(v);
        return;
    }
    const struct addr_cache *c =
        cache_for(r, net_addr_network(&p->addr), p->bind_str, net_now_us(r->net));
    for (size_t i = 0; i < c->n; i++) {
        entry_from_addr(&c->v[i], &e);
        push_address(p, &e);
    }
}

static int64_t poisson_us(int64_t avg_us)
{
    uint8_t rnd[8];
    random_bytes(rnd, sizeof(rnd));
    double u = ((double)(rd_u64le(rnd) >> 11) + 0.5) / 9007199254740992.0;
    return (int64_t)(-log(u) * (double)avg_us);
}

/* What the choice of our address for p reads of it (Core's GetLocalAddrForPeer). */
static void peer_view(const struct peer *p, struct localaddr_peer *lp)
{
    memset(lp, 0, sizeof(*lp));
    lp->addr = p->addr;
    lp->network = p->inbound_onion ? NETWORK_ONION : net_addr_network(&p->addr);
    lp->inbound = p->conn_type == CONN_INBOUND;
    lp->have_addr_local = p->ps->have_addr_local;
    lp->addr_local = p->ps->addr_local_na;
    lp->addr_local_reachable =
        net_network_reachable(p->net, net_addr_network(&p->ps->addr_local_na));
}

/* Core's self-announcement in MaybeSendAddr: about once a day (a Poisson timer) our address
 * for p; the first time alone in a message of its own (so that the peer's rate limit, with
 * few tokens at the start, does not drop it among others), later with the queue, and then
 * after forgetting what p knows, so that it does go out. */
static void announce_self(struct addrrelay *r, struct peer *p, int64_t now_us)
{
    struct addrrelay_peer *ap = p->ps->ar;
    if (ap->next_local_us >= now_us) {
        return;
    }
    if (ap->next_local_us != 0) {
        memset(ap->gen[0], 0, KNOWN_SLOTS * sizeof(uint64_t));
        memset(ap->gen[1], 0, KNOWN_SLOTS * sizeof(uint64_t));
        ap->n_cur = 0;
    }
    struct localaddr_peer lp;
    struct net_addr local;
    uint8_t rnd[8];
    random_bytes(rnd, sizeof(rnd));
    peer_view(p, &lp);
    if (localaddr_for_peer(r->net->local, &lp, rd_u64le(rnd), &local)) {
        char s[NET_ADDR_STR_LEN];
        net_addr_format(&local, 1, s);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Advertising address %s to peer=%lld", s,
            (long long)p->id);
        struct net_addr_msg_entry e;
        memset(&e, 0, sizeof(e));
        e.time = (uint32_t)net_now(r->net);
        e.services = net_local_services(r->net);
        e.net = local.net;
        e.len = local.len;
        memcpy(e.addr, local.addr, local.len);
        e.port = local.port;
        if (ap->next_local_us != 0) {
            push_address(p, &e);
        } else if (compatible(p, &e)) {
            struct buf b;
            buf_init(&b);
            net_addrmsg_serialize(&b, p->ps->want_addrv2, &e, 1);
            net_send(p, p->ps->want_addrv2 ? "addrv2" : "addr", &b);
            buf_clear(&b);
        }
    }
    ap->next_local_us = now_us + poisson_us(LOCAL_INTERVAL_US);
}

/* Core's MaybeSendAddr for one peer. */
static void maybe_send(struct addrrelay *r, struct peer *p, int64_t now_us, int self_announce)
{
    struct addrrelay_peer *ap = p->ps->ar;
    if (self_announce) {
        announce_self(r, p, now_us);
    }
    if (now_us <= ap->next_send_us) {
        return;
    }
    ap->next_send_us = now_us + poisson_us(SEND_INTERVAL_US);
    size_t m = 0;
    for (size_t i = 0; i < ap->n_queue; i++) {
        uint64_t key = entry_key(&ap->queue[i]);
        if (known_has(ap, key)) {
            continue;
        }
        known_add_key(ap, key);
        ap->queue[m++] = ap->queue[i];
    }
    ap->n_queue = 0;
    if (m == 0) {
        return;
    }
    struct buf b;
    buf_init(&b);
    net_addrmsg_serialize(&b, p->ps->want_addrv2, ap->queue, m);
    net_send(p, p->ps->want_addrv2 ? "addrv2" : "addr", &b);
    buf_clear(&b);
}

void addrrelay_peer_tick(struct addrrelay *r, struct peer *p, int self_announce)
{
    if (p->disconnect || !p->ps || !p->ps->handshake_done || !p->ps->ar) {
        return;
    }
    maybe_send(r, p, net_now_us(r->net), self_announce);
}

void addrrelay_tick(struct addrrelay *r, int self_announce)
{
    for (struct peer *p = r->net->peers; p; p = p->next) {
        addrrelay_peer_tick(r, p, self_announce);
    }
}
