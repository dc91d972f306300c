/* BIP330's negotiation (Core's TxReconciliationTracker, behind -txreconciliation): the
 * sendtxrcncl handshake message, sent and checked as Core does, and the per-peer state it
 * registers. Reconciliation itself (sketches) is not done, as in Core's releases: a
 * registered peer still gets transactions by inv.
 *
 * Thread: net thread; the state lives in the peer's protocol state (peer_sync.h).
 */
#ifndef BITNODE_NET_TXRECON_H
#define BITNODE_NET_TXRECON_H

#include <stddef.h>
#include <stdint.h>

struct peer;

#define TXRECON_VERSION 1u /* Core's TXRECONCILIATION_VERSION */

/** After the peer's version (before our verack): with -txreconciliation, a peer with a
 *  common version that has wtxid relay, that asked for transactions (relay flag), on a
 *  connection that carries them (not block-relay-only, feeler or addr-fetch), while we take
 *  transactions (not -blocksonly: we_take_txs), is pre-registered with a fresh salt and
 *  sent sendtxrcncl (version, salt). */
void txrecon_on_version(struct peer *p, int common_version, int we_take_txs);

/** A sendtxrcncl message (Core's rules and lines): ignored without -txreconciliation;
 *  after verack, to a peer we told we take no transactions (reject_incoming), or from one
 *  that asked for none, the peer is disconnected; otherwise it is registered (unexpected:
 *  ignored; twice or version 0: disconnected). */
void txrecon_on_message(struct peer *p, const uint8_t *d, size_t len, int reject_incoming);

/** At the peer's verack: its state is forgotten unless it registered and has wtxid relay. */
void txrecon_on_verack(struct peer *p);

/** The peer is gone: its state is forgotten. */
void txrecon_forget(struct peer *p);

/** 1 if the peer completed the negotiation. */
int txrecon_registered(const struct peer *p);

#endif
