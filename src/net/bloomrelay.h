/* BIP37 serving (bloomrelay.c): the filterload, filteradd and filterclear messages, a peer's
 * filter (struct peer_sync's bloom), and the merkleblock answer to a MSG_FILTERED_BLOCK
 * getdata, as Core's net_processing. NODE_BLOOM is offered with -peerbloomfilters, or to a
 * peer with the bloomfilter permission. txrelay.c filters what it announces by the same
 * filter. Net thread only. */
#ifndef BITNODE_NET_BLOOMRELAY_H
#define BITNODE_NET_BLOOMRELAY_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/block.h"

struct peer;

/** 1 if NODE_BLOOM is offered to p (Core's peer.m_our_services & NODE_BLOOM), else 0. */
int bloomrelay_offered(const struct peer *p);
/** 1 if p has Core's transaction relay state (Peer::TxRelay): its version is in, it is no
 *  block-relay-only connection or feeler, and it asked for transactions or may ask later by
 *  loading a filter (NODE_BLOOM offered). */
int bloomrelay_has_tx_relay(const struct peer *p);
/** A filterload, filteradd or filterclear message of len bytes from p: without NODE_BLOOM
 *  offered p is disconnected (BIP111); a filter over the limits, a filteradd element over
 *  520 bytes or without a filter loaded is misbehaviour; otherwise the filter is set,
 *  extended or dropped, and a load or clear turns transaction relay on. */
void bloomrelay_on_message(struct peer *p, const char *cmd, const uint8_t *d, size_t len);
/** The answer to p's MSG_FILTERED_BLOCK request for block b (parsed, at least one
 *  transaction): with a filter loaded, the merkleblock message and then each matched
 *  transaction without witness (the filter updated by the block); nothing without one. */
void bloomrelay_serve_block(struct peer *p, const struct block *b);
/** p goes: its filter is freed. */
void bloomrelay_peer_gone(struct peer *p);

#endif
