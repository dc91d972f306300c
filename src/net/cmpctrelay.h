/* Compact block relay (cmpctrelay.c): what sync.c calls. One per service, created by sync.c;
 * it sends through the transport (net_impl.h) and hands what it rebuilds to the sink it was
 * created with. Net thread only. */
#ifndef BITNODE_NET_CMPCTRELAY_H
#define BITNODE_NET_CMPCTRELAY_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

struct net;
struct peer;
struct block_index;
struct block_header;
struct chainstate;
struct mempool;
struct cmpctrelay;

/* Where compact block relay hands what belongs to the block path (sync.c's). */
struct cmpctrelay_sink {
    void *ctx;
    /** A block rebuilt from p's cmpctblock (and blocktxn): d[0..len) is its serialization with
     *  witnesses, to be taken as a block message from p. */
    void (*block)(void *ctx, struct peer *p, const uint8_t *d, size_t len);
    /** p's cmpctblock does not connect to a known header: p is to be asked for the headers up
     *  to hash, as for an announcement that does not connect. */
    void (*headers_wanted)(void *ctx, struct peer *p, const uint8_t hash[32]);
    /** 1 if a block of header h on parent would have less work than the headers kept
     *  (Core's anti-DoS threshold). Chain read lock held. */
    int (*low_work)(void *ctx, const struct block_index *parent, const struct block_header *h);
    /** p's cmpctblock brought a header we did not know: raw80 is to be taken as a headers
     *  message of one from p. */
    void (*header)(void *ctx, struct peer *p, const uint8_t raw80[80]);
    /** add: hash is now in flight from p (its compact block being rebuilt; no-op if it was
     *  already); else it no longer is. */
    void (*in_flight)(void *ctx, struct peer *p, const uint8_t hash[32], int add);
    /** 1 if the block of hash was received and is on its way to the chain (handed to the
     *  validation thread, not judged yet). */
    int (*processing)(void *ctx, const uint8_t hash[32]);
};

/** The compact block state of the service on transport n: *out (free with cmpctrelay_free).
 *  cs and mp are borrowed (mp NULL: no pool to rebuild from); blocks_only is -blocksonly;
 *  sink is copied. 0. */
int cmpctrelay_new(struct cmpctrelay **out, struct net *n, struct chainstate *cs,
                   struct mempool *mp, int blocks_only, const struct cmpctrelay_sink *sink);
/** Frees c. NULL: no-op. */
void cmpctrelay_free(struct cmpctrelay *c);
/** The handshake is done: sendcmpct(0, 2) to a peer that speaks compact blocks. */
void cmpctrelay_on_verack(struct peer *p);
/** The peer's state goes (and its high-bandwidth slot). */
void cmpctrelay_peer_gone(struct cmpctrelay *c, struct peer *p);
void cmpctrelay_on_sendcmpct(struct peer *p, const uint8_t *d, size_t len);
void cmpctrelay_on_cmpctblock(struct cmpctrelay *c, struct peer *p, const uint8_t *d, size_t len);
void cmpctrelay_on_blocktxn(struct cmpctrelay *c, struct peer *p, const uint8_t *d, size_t len);
void cmpctrelay_on_getblocktxn(struct cmpctrelay *c, struct peer *p, const uint8_t *d, size_t len);
/** p's BIP152 bandwidth state for getpeerinfo: *to = we asked it to announce to us in
 *  high-bandwidth mode, *from = it asked us to. */
void cmpctrelay_peer_hb(const struct peer *p, int *to, int *from);
/** p gave us the new tip: it may become a high-bandwidth announcer (at most three, one slot
 *  kept for an outbound peer; never with -blocksonly), as Core's
 *  MaybeSetPeerAsAnnouncingHeaderAndIDs. */
void cmpctrelay_block_from_peer(struct cmpctrelay *c, struct peer *p);
/** 1 if a block may be asked of p as a compact block: p sent sendcmpct version 2 and this
 *  node is not -blocksonly (its pool could not rebuild one). */
int cmpctrelay_provides(const struct cmpctrelay *c, const struct peer *p);
/** Announces tip to p as a cmpctblock if p asked for high-bandwidth mode: 1 if sent.
 *  Chain read lock held. */
int cmpctrelay_announce(struct cmpctrelay *c, struct peer *p, struct block_index *tip);
/** getdata(MSG_CMPCT_BLOCK) for a recent block: 1 if answered with a cmpctblock (else the
 *  caller sends the full block). Chain read lock held. */
int cmpctrelay_serve(struct cmpctrelay *c, struct peer *p, const struct net_inv *iv);

#endif
