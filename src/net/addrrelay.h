/* Address relay (Bitcoin Core's RelayAddress, PushAddress, MaybeSendAddr and the getaddr
 * answer cache of CConnman::GetAddresses): what sync.c calls. One per service, created by
 * sync.c; it sends through the transport (net_impl.h). Net thread only.
 */
#ifndef BITNODE_NET_ADDRRELAY_H
#define BITNODE_NET_ADDRRELAY_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

struct net;
struct peer;
struct addrman;
struct addrrelay;

/** The address relay of transport n, answering getaddr from am (borrowed): *out (free with
 *  addrrelay_free). 0. */
int addrrelay_new(struct addrrelay **out, struct net *n, struct addrman *am);
/** Frees r and its getaddr caches. NULL: no-op. */
void addrrelay_free(struct addrrelay *r);
/** A peer disconnected: its queue and known-address filter go. */
void addrrelay_peer_gone(struct peer *p);
/** Core's SetupAddressRelay: 0 for a block-relay-only or feeler connection (no address
 *  relay with it); else 1, with relay to p enabled from now on. */
int addrrelay_enable(struct peer *p);
/** Remembers that p knows address e (it will not be sent e). p's relay must be enabled. */
void addrrelay_known(struct peer *p, const struct net_addr_msg_entry *e);
/** Core's RelayAddress: queues e, received from peer from, to the 2 relay-enabled peers (or
 *  1, at random, for an unreachable network) chosen by a keyed hash of e, the day and the
 *  peer id. Not relayable (an internal address, unreachable): nothing. */
void addrrelay_relay(struct addrrelay *r, const struct peer *from,
                     const struct net_addr_msg_entry *e, int reachable);
/** The answer to an inbound peer's (first) getaddr: up to 1000 addresses, 23% of the address
 *  manager, queued for p's next send. Without the addr permission, from a cache per network
 *  of the peer and local socket that lasts 21 to 27 hours (Core's CachedAddrResponse). */
void addrrelay_getaddr(struct addrrelay *r, struct peer *p);
/** Core's MaybeSendAddr for every relay-enabled peer: with self_announce (listening, out of
 *  initial block download), our own address for it (localaddr.h) when its daily Poisson
 *  timer is due, the first time in a message of its own; then, when its Poisson timer (mean
 *  30 s, on the service clock) is due, its queue minus the addresses it knows, in one addr
 *  or addrv2. */
void addrrelay_tick(struct addrrelay *r, int self_announce);
/** addrrelay_tick for p alone (a relay-enabled peer whose handshake is done; else nothing):
 *  after each of its messages, as Core's SendMessages follows each message handled. */
void addrrelay_peer_tick(struct addrrelay *r, struct peer *p, int self_announce);

#endif
