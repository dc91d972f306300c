/* Compact block relay (cmpctrelay.c): what sync.c calls. Net thread only. */
#ifndef BITNODE_NET_CMPCTRELAY_H
#define BITNODE_NET_CMPCTRELAY_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

struct net;
struct peer;
struct block_index;

/** The handshake is done: sendcmpct(0, 2) to a peer that speaks compact blocks. */
void cmpctrelay_on_verack(struct peer *p);
/** The peer's state goes (and its high-bandwidth slot). */
void cmpctrelay_peer_gone(struct net *n, struct peer *p);
void cmpctrelay_on_sendcmpct(struct peer *p, const uint8_t *d, size_t len);
void cmpctrelay_on_cmpctblock(struct peer *p, const uint8_t *d, size_t len);
void cmpctrelay_on_blocktxn(struct peer *p, const uint8_t *d, size_t len);
void cmpctrelay_on_getblocktxn(struct peer *p, const uint8_t *d, size_t len);
/** p's BIP152 bandwidth state for getpeerinfo: *to = we asked it to announce to us in
 *  high-bandwidth mode, *from = it asked us to. */
void cmpctrelay_peer_hb(const struct peer *p, int *to, int *from);
/** p gave us the new tip: it may become a high-bandwidth announcer (at most three, one slot
 *  kept for an outbound peer; never with -blocksonly), as Core's
 *  MaybeSetPeerAsAnnouncingHeaderAndIDs. */
void cmpctrelay_block_from_peer(struct net *n, struct peer *p);
/** Announces tip to p as a cmpctblock if p asked for high-bandwidth mode: 1 if sent.
 *  Chain read lock held. */
int cmpctrelay_announce(struct net *n, struct peer *p, struct block_index *tip);
/** getdata(MSG_CMPCT_BLOCK) for a recent block: 1 if answered with a cmpctblock (else the
 *  caller sends the full block). Chain read lock held. */
int cmpctrelay_serve(struct peer *p, const struct net_inv *iv);

#endif
