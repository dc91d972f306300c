/* Inbound eviction (Core's AttemptToEvictConnection / SelectNodeToEvict): when every inbound
 * slot is taken, a new connection may replace a peer that looks least useful, never one
 * that is protected for being of a rare network group, fast, recently useful or long
 * connected. The same choice, among the inbound peers that relay transactions only, keeps
 * their number under -inboundrelaypercent of the inbound slots. Pure: the caller collects
 * the candidates (inbound peers, not noban, not disconnecting).
 */
#ifndef BITNODE_NET_EVICT_H
#define BITNODE_NET_EVICT_H

#include <stddef.h>
#include <stdint.h>

struct evict_candidate {
    int64_t id;
    int64_t conn_time;       /* seconds */
    int64_t min_ping_us;     /* -1: none yet */
    int64_t last_block;      /* seconds, 0: never */
    int64_t last_tx;         /* seconds, 0: never */
    uint64_t keyed_netgroup; /* the peer's network group, hashed with a secret key */
    int relay_txs;           /* it relays transactions (its version's relay, or a filter) */
    int bloom_filter;        /* a BIP37 filter is loaded */
    int relevant_services;   /* it offers every service we want of a peer (Core's
                                fRelevantServices) */
    int prefer_evict;        /* accepted while discouraged: evicted first */
    int local;               /* loopback (may be Tor: protected by ratio) */
    int network;             /* enum net_network it came through (an onion bind: onion) */
};

/** The id of the peer to evict among n candidates (the array is reordered), or -1 when
 *  every one is protected. As Core's SelectNodeToEvict, protected in this order: the 4 of
 *  the highest keyed network groups, the 8 lowest minimum pings, the 4 that last gave us a
 *  new transaction, up to 8 block-relay-only peers (no transactions, every wanted service)
 *  that last gave us a block, the 4 that last gave us a block, then half of the rest: up to
 *  half of that half for the peers of disadvantaged networks (CJDNS, I2P, localhost, onion,
 *  shared out between those present), the others by uptime. Of what remains (only those
 *  preferred for eviction if any is), the youngest of the network group with the most
 *  peers (ties: the group whose youngest is youngest). */
int64_t evict_select(struct evict_candidate *c, size_t n);

/** Core's m_max_inbound_full_relay: how many of max_inbound inbound slots may go to
 *  transaction-relaying peers at percent (-inboundrelaypercent, clamped to 0-100). */
int evict_max_inbound_tx_relay(int max_inbound, int percent);

#endif
