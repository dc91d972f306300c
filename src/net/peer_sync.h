/* A peer's protocol state (Core's Peer and CNodeState): what the handshake learned, the
 * ping, headers-first sync and block download, the getdata queue, and the relays' own
 * per-peer state. sync.c creates it when the transport reports a new peer (the connected
 * event) and frees it when the peer goes; txrelay.c and cmpctrelay.c read and extend it.
 * The transport (net.c) never includes this header. Net thread only.
 */
#ifndef BITNODE_NET_PEER_SYNC_H
#define BITNODE_NET_PEER_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

struct block_index;
struct headerssync;
struct txrelay_peer;
struct cmpct_peer;
struct addrrelay_peer;
struct bloom_filter;

/* A block asked of the peer and not yet received. */
struct inflight {
    uint8_t hash[32];
    struct block_index *e;
    int64_t time_us; /* when requested */
    struct inflight *next;
};

struct peer_sync {
    /* Handshake. */
    int got_version, handshake_done, sent_version;
    int inv_getheaders_before_sync; /* a block inv got it a getheaders before its sync began */
    int64_t headers_sync_timeout_us; /* its initial headers sync must be done by then (0: none) */
    /* Core's ChainSyncTimeoutState (outbound peers): by chain_sync_timeout (seconds, 0: not
     * set) it must show a chain with chain_sync_work's work; protected ones never need to. */
    int64_t chain_sync_timeout;
    struct block_index *chain_sync_work;
    int chain_sync_sent_getheaders;
    int chain_sync_protect;
    struct net_version ver;
    /* BIP330's negotiation (txrecon.c): none, pre-registered (we sent sendtxrcncl with
     * recon_salt), registered. */
    int recon_state;
    uint64_t recon_salt;
    uint64_t local_nonce;
    char addr_local[NET_ADDR_STR_LEN]; /* our address as the peer sees it (its version) */
    struct net_addr addr_local_na;     /* ... parsed (have_addr_local: its version named one) */
    int have_addr_local;
    int prefer_headers, wtxid_relay, want_addrv2;
    int64_t feefilter;
    int64_t time_offset;
    int sent_getaddr, got_getaddr;
    int addr_relay;         /* it sent addr, addrv2 or getaddr, or we asked it (Core) */
    double addr_tokens;     /* the addr rate limit's bucket (Core's m_addr_token_bucket) */
    int64_t addr_tokens_us; /* when it was last refilled (0: never) */
    uint64_t addr_processed, addr_rate_limited;
    int getaddr_pending; /* our getaddr is unanswered: its addresses are not relayed (Core) */
    struct addrrelay_peer *ar; /* address relay (addrrelay.c), NULL unless relay is on */

    /* Ping (the best round trip is the transport's min_ping_us: eviction weighs it). */
    uint64_t ping_nonce;
    int64_t ping_start_us, ping_us, next_ping_us;
    int ping_asked;

    /* Sync. */
    struct block_index *best_known;  /* the best block the peer has (from its headers) */
    /* The last block of its best chain we have with all its ancestors (Core's
     * pindexLastCommonBlock), where the download walk starts. */
    struct block_index *last_common;
    struct block_index *best_sent;   /* the best header we announced or sent to it */
    struct block_index *tip_at_handshake; /* our tip when its handshake ended: not announced */
    uint8_t best_unknown[32];        /* an announced hash whose header we lack */
    int has_best_unknown;
    int sync_started;
    int64_t headers_asked_us; /* a getheaders is out since then, 0 if none */
    struct headerssync *hsync; /* a low-work chain being pre-synced, or NULL */
    struct inflight *inflight;
    int n_inflight;
    int64_t stalling_since_us;
    /* Pings that came while the peer's jobs were out: answered, in order, once they are
     * all handled, as Core answers a ping only after the messages before it. */
    uint64_t deferred_pongs[8];
    int n_deferred_pongs;

    /* Serving getdata, in order, while the send buffer has room. */
    struct net_inv *getdata;
    size_t getdata_n, getdata_pos;

    struct txrelay_peer *txr; /* transaction relay (txrelay.c), NULL until first used */
    struct cmpct_peer *cmpct; /* compact blocks (cmpctrelay.c), NULL until first used */
    struct bloom_filter *bloom; /* its BIP37 filter (bloomrelay.c), NULL while none is loaded */
};

#endif
