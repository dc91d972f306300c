/* The node's own addresses: see localaddr.h. Facts from Bitcoin Core's net.cpp (AddLocal,
 * SeenLocal, GetLocal, GetLocalAddrForPeer) and netaddress.cpp (GetReachabilityFrom): their
 * behaviour, not their code. The table is a small array kept in Core's map order.
 */
#include "net/localaddr.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct localaddr {
    int discover, listen;
    uint16_t listen_port;
    struct localaddr_entry *v; /* sorted by (net, addr bytes): one per host */
    size_t n, cap;
};

int localaddr_new(struct localaddr **out, int discover, int listen, uint16_t listen_port)
{
    struct localaddr *t = xcalloc(1, sizeof(*t));
    t->discover = discover;
    t->listen = listen;
    t->listen_port = listen_port;
    *out = t;
    return RC_OK;
}

void localaddr_free(struct localaddr *t)
{
    if (!t) {
        return;
    }
    free(t->v);
    free(t);
}

uint16_t localaddr_listen_port(const struct localaddr *t)
{
    return t->listen_port;
}

int localaddr_discover(const struct localaddr *t)
{
    return t->discover;
}

/* Core's CNetAddr order (the map's): network id, then the address bytes. Ports aside. */
static int host_cmp(const struct net_addr *a, const struct net_addr *b)
{
    if (a->net != b->net) {
        return a->net < b->net ? -1 : 1;
    }
    if (a->len != b->len) {
        return a->len < b->len ? -1 : 1;
    }
    return memcmp(a->addr, b->addr, a->len);
}

/* The index of a's host, or -1; *at: where it would go. */
static long find(const struct localaddr *t, const struct net_addr *a, size_t *at)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = host_cmp(&t->v[mid].addr, a);
        if (c == 0) {
            if (at) {
                *at = mid;
            }
            return (long)mid;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (at) {
        *at = lo;
    }
    return -1;
}

static int saturating_add(int a, int b)
{
    return a > INT_MAX - b ? INT_MAX : a + b;
}

int localaddr_add(struct localaddr *t, const struct net_addr *a, int score, int reachable)
{
    if (!net_addr_is_routable(a) || (!t->discover && score < LOCAL_MANUAL) || !reachable) {
        return 0;
    }
    if (log_ips()) {
        char s[NET_ADDR_STR_LEN];
        net_addr_format(a, 1, s);
        LOG_INFO("AddLocal(%s,%d)", s, score);
    }
    size_t at;
    long i = find(t, a, &at);
    if (i >= 0) {
        struct localaddr_entry *e = &t->v[i];
        if (score >= e->score) {
            e->score = saturating_add(score, 1);
            e->addr.port = a->port;
        }
        return 1;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 4;
        t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
    }
    memmove(&t->v[at + 1], &t->v[at], (t->n - at) * sizeof(*t->v));
    t->v[at].addr = *a;
    t->v[at].score = score;
    t->n++;
    return 1;
}

int localaddr_add_ip(struct localaddr *t, const struct net_addr *a, int score, int reachable)
{
    struct net_addr b = *a;
    b.port = t->listen_port;
    return localaddr_add(t, &b, score, reachable);
}

void localaddr_remove(struct localaddr *t, const struct net_addr *a)
{
    if (log_ips()) {
        char s[NET_ADDR_STR_LEN];
        net_addr_format(a, 1, s);
        LOG_INFO("RemoveLocal(%s)", s);
    }
    long i = find(t, a, NULL);
    if (i < 0) {
        return;
    }
    memmove(&t->v[i], &t->v[i + 1], (t->n - (size_t)i - 1) * sizeof(*t->v));
    t->n--;
}

int localaddr_seen(struct localaddr *t, const struct net_addr *a)
{
    long i = find(t, a, NULL);
    if (i < 0) {
        return 0;
    }
    t->v[i].score = saturating_add(t->v[i].score, 1);
    return 1;
}

int localaddr_is_local(const struct localaddr *t, const struct net_addr *a)
{
    return find(t, a, NULL) >= 0;
}

int localaddr_score(const struct localaddr *t, const struct net_addr *a)
{
    long i = find(t, a, NULL);
    return i < 0 ? 0 : t->v[i].score;
}

/* ---- Reachability (Core's GetReachabilityFrom) ---- */

enum {
    REACH_UNREACHABLE,
    REACH_DEFAULT,
    REACH_TEREDO,
    REACH_IPV6_WEAK,
    REACH_IPV4,
    REACH_IPV6_STRONG,
    REACH_PRIVATE
};

#define NETWORK_TEREDO NETWORK_COUNT /* Core's private extension of the networks */

static int is_ipv6_prefix(const struct net_addr *a, const uint8_t *prefix, size_t n)
{
    return a->net == BIP155_IPV6 && memcmp(a->addr, prefix, n) == 0;
}

/* Teredo (RFC 4380, 2001::/32) counts as a network of its own. */
static int ext_network(const struct net_addr *a)
{
    static const uint8_t teredo[4] = {0x20, 0x01, 0x00, 0x00};
    int net = net_addr_network(a);
    return net == NETWORK_IPV6 && is_ipv6_prefix(a, teredo, 4) ? NETWORK_TEREDO : net;
}

/* An IPv6 address that tunnels IPv4: 6to4 (RFC 3964), NAT64 (RFC 6052), SIIT (RFC 6145). */
static int is_tunnel(const struct net_addr *a)
{
    static const uint8_t six_to_four[2] = {0x20, 0x02};
    static const uint8_t nat64[12] = {0x00, 0x64, 0xff, 0x9b};
    static const uint8_t siit[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    return is_ipv6_prefix(a, six_to_four, 2) || is_ipv6_prefix(a, nat64, 12) ||
           is_ipv6_prefix(a, siit, 12);
}

/* How well a partner at their_net reaches our address ours (Core's table). */
static int reachability(const struct net_addr *ours, const struct net_addr *partner)
{
    if (!net_addr_is_routable(ours)) {
        return REACH_UNREACHABLE;
    }
    int our_net = ext_network(ours), their_net = ext_network(partner);
    switch (their_net) {
    case NETWORK_IPV4:
        return our_net == NETWORK_IPV4 ? REACH_IPV4 : REACH_DEFAULT;
    case NETWORK_IPV6:
        return our_net == NETWORK_TEREDO ? REACH_TEREDO
               : our_net == NETWORK_IPV4 ? REACH_IPV4
               : our_net == NETWORK_IPV6 ? (is_tunnel(ours) ? REACH_IPV6_WEAK : REACH_IPV6_STRONG)
                                         : REACH_DEFAULT;
    case NETWORK_ONION:
        return our_net == NETWORK_IPV4 ? REACH_IPV4 /* Tor users reach IPv4 too */
               : our_net == NETWORK_ONION ? REACH_PRIVATE
                                          : REACH_DEFAULT;
    case NETWORK_I2P:
    case NETWORK_CJDNS:
        return our_net == their_net ? REACH_PRIVATE : REACH_DEFAULT;
    case NETWORK_TEREDO:
        return our_net == NETWORK_TEREDO ? REACH_TEREDO
               : our_net == NETWORK_IPV6 ? REACH_IPV6_WEAK
               : our_net == NETWORK_IPV4 ? REACH_IPV4
                                         : REACH_DEFAULT;
    default:
        return our_net == NETWORK_TEREDO ? REACH_TEREDO
               : our_net == NETWORK_IPV6 ? REACH_IPV6_WEAK
               : our_net == NETWORK_IPV4 ? REACH_IPV4
               : our_net == NETWORK_ONION ? REACH_PRIVATE
                                          : REACH_DEFAULT;
    }
}

static int is_privacy_net(int network)
{
    return network == NETWORK_ONION || network == NETWORK_I2P;
}

int localaddr_best(const struct localaddr *t, const struct localaddr_peer *p,
                   struct net_addr *out)
{
    if (!t->listen) {
        return 0;
    }
    int best_score = -1, best_reach = -1, found = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct localaddr_entry *e = &t->v[i];
        int net = net_addr_network(&e->addr);
        /* Our privacy-network address is not told to other networks, nor our other
         * addresses to a privacy network's peers. */
        if (net != p->network && (is_privacy_net(net) || is_privacy_net(p->network))) {
            continue;
        }
        int reach = reachability(&e->addr, &p->addr);
        if (reach > best_reach || (reach == best_reach && e->score > best_score)) {
            *out = e->addr;
            best_reach = reach;
            best_score = e->score;
            found = 1;
        }
    }
    return found;
}

int localaddr_for_peer(const struct localaddr *t, const struct localaddr_peer *p, uint64_t rnd,
                       struct net_addr *out)
{
    struct net_addr local;
    if (!localaddr_best(t, p, &local)) {
        memset(&local, 0, sizeof(local));
        local.net = BIP155_IPV4;
        local.len = 4;
        local.port = t->listen_port;
    }
    /* With -discover, the peer may know our address better than we do. */
    int peer_view_good = t->discover && net_addr_is_routable(&p->addr) && p->have_addr_local &&
                         net_addr_is_routable(&p->addr_local) && p->addr_local_reachable;
    if (peer_view_good) {
        uint64_t mask = localaddr_score(t, &local) > LOCAL_MANUAL ? 7 : 1;
        if (!net_addr_is_routable(&local) || (rnd & mask) == 0) {
            uint16_t port = local.port;
            local = p->addr_local;
            if (!p->inbound) {
                /* The peer cannot see our listening port on a connection we opened. */
                local.port = port;
            }
        }
    }
    if (!net_addr_is_routable(&local)) {
        return 0;
    }
    *out = local;
    return 1;
}

void localaddr_list(const struct localaddr *t, struct localaddr_entry **out, size_t *count)
{
    *out = NULL;
    *count = t->n;
    if (t->n) {
        *out = xmalloc(t->n * sizeof(**out));
        memcpy(*out, t->v, t->n * sizeof(**out));
    }
}
