/* Transaction relay (txrelay.c): what sync.c calls. One per service, created by sync.c; it
 * sends through the transport (net_impl.h). Net thread only, except where a function says
 * otherwise. */
#ifndef BITNODE_NET_TXRELAY_H
#define BITNODE_NET_TXRELAY_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

struct net;
struct peer;
struct net_job;
struct chainstate;
struct mempool;
struct txrelay;
struct net_orphan;
struct block_index;
struct invbucket_info;

/** The relay state of the service on transport n: *out (free with txrelay_free). cs and mp
 *  are borrowed (mp NULL: no pool, nothing relayed); blocks_only is -blocksonly;
 *  tx_send_rate is -txsendrate (transactions a second to inbound peers, clamped to
 *  1..1000). 0. */
int txrelay_new(struct txrelay **out, struct net *n, struct chainstate *cs, struct mempool *mp,
                int blocks_only, unsigned tx_send_rate);
/** Frees r and its orphans. NULL: no-op. */
void txrelay_free(struct txrelay *r);
/** p finished the handshake: its trickle timer starts (Core's first SendMessages after the
 *  verack), so that transactions from now on are queued for it. */
void txrelay_on_handshake(struct txrelay *r, struct peer *p);
/** A peer disconnected: its announcements, requests and orphans go. */
void txrelay_peer_gone(struct txrelay *r, struct peer *p);
/** An inv's transaction entries (the others are skipped): each hash once per message, those
 *  that do not match the peer's wtxidrelay ignored, the rest announcements for the request
 *  tracker (Core's "got inv" lines); then what p is to be asked for is asked. */
void txrelay_on_invs(struct txrelay *r, struct peer *p, const struct net_inv *inv, size_t n);
/** A notfound message: the announcements it answers are completed, so that the next
 *  announcer may be asked. */
void txrelay_on_notfound(struct txrelay *r, struct peer *p, const uint8_t *d, size_t len);
/** Answers one MSG_TX / MSG_WTX entry of a getdata from the pool: 1 if sent, 0 (notfound). */
int txrelay_serve(struct txrelay *r, struct peer *p, const struct net_inv *iv);
/** A tx message. */
void txrelay_on_tx(struct txrelay *r, struct peer *p, const uint8_t *d, size_t len);
/** How many transactions are queued to be announced to p (getpeerinfo's inv_to_send). */
size_t txrelay_inv_to_send(const struct peer *p);
/** The pool's entry sequence at our last announcement to p (getpeerinfo's last_inv_sequence;
 *  1 before the first, 0 for a peer we relay no transactions to, as Core's). */
uint64_t txrelay_last_inv_sequence(const struct peer *p);
/** A mempool message (BIP35): with NODE_BLOOM offered to p (and -maxuploadtarget not
 *  reached) or the mempool permission, the pool is announced to p at its next trickle
 *  (through its bloom filter, if loaded); else p is disconnected unless it has noban, as
 *  Core. */
void txrelay_on_mempool_msg(struct peer *p);
/** A transaction job came back from the validation thread (frees it). */
void txrelay_job_done(struct txrelay *r, struct net_job *j);
/** The timer: the announcement backlog drained as its buckets refill (with peers), trickles,
 *  requests due (and those that timed out), feefilter. */
void txrelay_tick(struct txrelay *r);
/** The tip may have moved (the timer, a block connected). If it did since the last call:
 *  recent rejections (and those for the fee rate alone) are forgotten; the transactions of
 *  the blocks connected since are had (Core's recent-confirmed filter; cleared when the old
 *  tip is not an ancestor), the orphans they include or conflict with go, their children in
 *  the orphanage are retried. Takes the chain's read lock; not with it held. */
void txrelay_check_tip(struct txrelay *r);
/** mockscheduler: the delayed tasks (the rebroadcast of unbroadcast transactions) come
 *  delta_us sooner. */
void txrelay_mock_scheduler(struct txrelay *r, int64_t delta_us);
/** Queues a transaction that entered the pool outside the P2P code for announcement to
 *  every peer that takes transactions (on the net thread, through net_call). Not from the
 *  net thread itself; returns once it is queued, not sent. */
void txrelay_relay_transaction(struct txrelay *r, const uint8_t txid[32], const uint8_t wtxid[32]);
/** getorphantxs: a copy of every orphan (its bytes and the peers it may come from), in the
 *  pool's order: *out (free with net_orphans_free). */
void txrelay_orphans(struct txrelay *r, struct net_orphan **out, size_t *count);
/** getnetworkinfo's tx_send_rate and inv_buckets: the rate and each direction's backlog
 *  and tokens. */
void txrelay_inv_buckets(const struct txrelay *r, unsigned *rate, struct invbucket_info *in,
                         struct invbucket_info *out);

#endif
