/* The P2P protocol (sync.c, Core's PeerManager): what each message does, the handshake,
 * pings, headers-first sync, the block download window, serving, announcing; it owns the
 * transaction relay (txrelay.c) and the compact block state (cmpctrelay.c). It sits on a
 * transport (net_impl.h), which reports to it through the events table sync_events fills;
 * service.c makes both and wires them. Net thread only, except where a function says
 * otherwise.
 */
#ifndef BITNODE_NET_SYNC_H
#define BITNODE_NET_SYNC_H

#include <stddef.h>
#include <stdint.h>

struct net;
struct net_events;
struct net_peer_stats;
struct net_orphan;
struct peer;
struct sync;

/** The protocol over transport n (its options, chainstate, pool and address manager are
 *  read from it): *out, with its transaction relay and compact block state. 0. */
int sync_new(struct sync **out, struct net *n);
/** Frees s. Call after the transport is freed (its peers' peer_gone come first). NULL:
 *  no-op. */
void sync_free(struct sync *s);
/** The events table that drives s (ctx is s), for net_set_events. */
void sync_events(struct sync *s, struct net_events *ev);

/** The protocol's half of getpeerinfo for st->id (handshake, ping, sync heights, blocks in
 *  flight, relay state); a peer that is gone is left as it is. Net thread. */
void sync_peer_stats(struct sync *s, struct net_peer_stats *st);
/** ping RPC: a ping to every peer at the next chance (the timer's work runs now). Net
 *  thread. */
void sync_ping_all(struct sync *s);
/** getblockfrompeer: asks peer_id for the block (its header must be known). 0, RC_NOT_FOUND
 *  (no such peer / header), RC_INVALID with err (already have it, peer cannot serve it). Net
 *  thread. */
int sync_fetch_block(struct sync *s, int64_t peer_id, const uint8_t hash[32], char *err,
                     size_t err_len);
/** mockscheduler: the delayed tasks come delta_s seconds sooner. Net thread. */
void sync_mock_scheduler(struct sync *s, int64_t delta_s);
/** Queues a transaction that entered the pool outside the P2P code for announcement to every
 *  peer that takes transactions. Any thread but the net thread (it waits in net_call). */
void sync_relay_transaction(struct sync *s, const uint8_t txid[32], const uint8_t wtxid[32]);
/** getnetworkinfo's tx_send_rate and inv_buckets (txrelay_inv_buckets). Net thread. */
struct invbucket_info;
void sync_inv_buckets(struct sync *s, unsigned *rate, struct invbucket_info *in,
                      struct invbucket_info *out);
/** getorphantxs: the transaction relay's orphans (txrelay_orphans). Net thread. */
void sync_orphans(struct sync *s, struct net_orphan **out, size_t *count);
/** 1 once p finished the version handshake (Core's fSuccessfullyConnected). Net thread. */
int sync_handshake_done(const struct peer *p);

#endif
