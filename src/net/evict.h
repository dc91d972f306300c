/* Inbound eviction (Core's AttemptToEvictConnection / SelectNodeToEvict): when every inbound
 * slot is taken, a new connection may replace a peer that looks least useful, never one
 * that is protected for being of a rare network group, fast, recently useful or long
 * connected. Pure: the caller collects the candidates.
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
    int relay_txs;
    int bloom_filter; /* a BIP37 filter loaded: less worth keeping among equal tx times */
    int local; /* loopback (Core protects some: they may be Tor) */
};

/** The id of the peer to evict among n candidates (the array is reordered), or -1 when
 *  every one is protected: the 4 of the highest keyed network groups, the 8 lowest minimum
 *  pings, the 4 most recent transactions, the 4 most recent blocks, then half of the rest
 *  by uptime; of what remains, the youngest of the network group with the most peers. */
int64_t evict_select(struct evict_candidate *c, size_t n);

#endif
