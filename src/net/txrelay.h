/* Transaction relay (txrelay.c): what sync.c and net.c call. Net thread only. */
#ifndef BITNODE_NET_TXRELAY_H
#define BITNODE_NET_TXRELAY_H

#include <stddef.h>
#include <stdint.h>

#include "net/protocol.h"

struct net;
struct peer;
struct net_job;

/** The service's relay state (net_new) and its end (net_free). */
void txrelay_new(struct net *n);
void txrelay_free(struct net *n);
/** A peer disconnected: its announcements, requests and orphans go. */
void txrelay_peer_gone(struct net *n, struct peer *p);
/** One MSG_TX / MSG_WTX entry of an inv. */
void txrelay_on_inv(struct peer *p, const struct net_inv *iv);
/** Answers one MSG_TX / MSG_WTX entry of a getdata from the pool: 1 if sent, 0 (notfound). */
int txrelay_serve(struct peer *p, const struct net_inv *iv);
/** A tx message. */
void txrelay_on_tx(struct peer *p, const uint8_t *d, size_t len);
/** A mempool message (BIP35): Core's answer without bloom filters. */
void txrelay_on_mempool_msg(struct peer *p);
/** A transaction job came back from the validation thread (frees it). */
void txrelay_job_done(struct net *n, struct net_job *j);
/** The timer: announcement trickles, requests that timed out, orphan expiry, feefilter. */
void txrelay_tick(struct net *n);
/** The tip moved: recent rejections are forgotten. */
void txrelay_new_tip(struct net *n);
/** mockscheduler: the delayed tasks (the rebroadcast of unbroadcast transactions) come
 *  delta_us sooner. */
void txrelay_mock_scheduler(struct net *n, int64_t delta_us);

#endif
