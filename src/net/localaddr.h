/* The node's own addresses, as Bitcoin Core keeps them in mapLocalHost: where we may be
 * reached, each with a score (how sure we are) and the port to advertise. -externalip
 * (LOCAL_MANUAL), -bind on a routable address (LOCAL_BIND), the interfaces found by
 * -discover (LOCAL_IF); an inbound peer's version naming one of them votes for it
 * (SeenLocal). It chooses the address we announce to a peer (GetLocal,
 * GetLocalAddrForPeer) and tells the connection manager which addresses are our own
 * (IsLocal). One per transport (struct net owns it, and finds the interfaces); no sockets,
 * no clock, the randomness passed in; it logs only AddLocal / RemoveLocal with -logips, as
 * Core. Net thread only.
 */
#ifndef BITNODE_NET_LOCALADDR_H
#define BITNODE_NET_LOCALADDR_H

#include <stddef.h>
#include <stdint.h>

#include "net/netaddr.h"

/* Core's scores, lowest first. */
enum localaddr_score {
    LOCAL_NONE = 0, /* unknown */
    LOCAL_IF,       /* an address of an interface we listen on (-discover) */
    LOCAL_BIND,     /* an address explicitly bound to (-bind, -whitebind) */
    LOCAL_MAPPED,   /* an address reported by PCP / NAT-PMP */
    LOCAL_MANUAL,   /* an address given with -externalip */
    LOCAL_MAX
};

/* One entry: the address with the port advertised, and its score. */
struct localaddr_entry {
    struct net_addr addr;
    int score;
};

/* What the choice of the address announced to a peer reads of it. */
struct localaddr_peer {
    struct net_addr addr; /* the peer's address */
    int network;          /* enum net_network it reaches us through (Core's
                             ConnectedThroughNetwork: onion for an inbound onion bind) */
    int inbound;
    int have_addr_local;        /* its version named our address ... */
    struct net_addr addr_local; /* ... this one */
    int addr_local_reachable;   /* addr_local's network is reachable (not -onlynet'ed out) */
};

struct localaddr;

/** A table, empty: *out (free with localaddr_free). discover: -discover (scores under
 *  LOCAL_MANUAL are refused without it); listen: -listen (without it no address is
 *  announced); listen_port: Core's GetListenPort, the port an address added without one
 *  gets. 0. */
int localaddr_new(struct localaddr **out, int discover, int listen, uint16_t listen_port);
/** Frees t. NULL: no-op. */
void localaddr_free(struct localaddr *t);

/** The port an address gets when added without one (localaddr_add_ip). */
uint16_t localaddr_listen_port(const struct localaddr *t);
/** 1 with -discover. */
int localaddr_discover(const struct localaddr *t);

/** Core's AddLocal: a routable address (its port the one advertised) with a score.
 *  reachable: its network is reachable, or the caller adds it regardless (-externalip).
 *  Refused (0) when a is not routable, not reachable, or score < LOCAL_MANUAL without
 *  -discover; else 1: a new entry, or an entry of the same host (ports aside) whose score
 *  was at most score gets score + 1 and a's port. Logged with -logips. */
int localaddr_add(struct localaddr *t, const struct net_addr *a, int score, int reachable);
/** localaddr_add with the listen port. */
int localaddr_add_ip(struct localaddr *t, const struct net_addr *a, int score, int reachable);
/** Core's RemoveLocal: the entry of a's host goes (ports aside). */
void localaddr_remove(struct localaddr *t, const struct net_addr *a);
/** Core's SeenLocal: a peer saw us at a; its entry (if any) scores one more. 1 if there
 *  was one, else 0. */
int localaddr_seen(struct localaddr *t, const struct net_addr *a);
/** Core's IsLocal: 1 if a's host is one of ours (ports aside). */
int localaddr_is_local(const struct localaddr *t, const struct net_addr *a);
/** The score of a's host, 0 if none. */
int localaddr_score(const struct localaddr *t, const struct net_addr *a);

/** Core's GetLocal: our best address for peer p, by reachability from its address then by
 *  score, a privacy network's address only to a peer on the same network (and the other
 *  way round). 1 with *out, or 0 (none, or not listening). */
int localaddr_best(const struct localaddr *t, const struct localaddr_peer *p,
                   struct net_addr *out);
/** Core's GetLocalAddrForPeer: the address to announce to p: localaddr_best (or the
 *  unroutable 0.0.0.0 on the listen port), and with -discover, when p is routable and
 *  names a routable, reachable address of ours, sometimes that one instead (always when
 *  ours is unroutable, else when rnd's low bits are 0: 3 of them when ours scores above
 *  LOCAL_MANUAL, 1 otherwise); an inbound peer's view gives host and port, an outbound
 *  one's only the host. 1 with a routable *out, else 0 (nothing to announce). */
int localaddr_for_peer(const struct localaddr *t, const struct localaddr_peer *p, uint64_t rnd,
                       struct net_addr *out);

/** The entries in Core's order (network, then address bytes): *out (caller frees; NULL
 *  when none) and *count. */
void localaddr_list(const struct localaddr *t, struct localaddr_entry **out, size_t *count);

#endif
