/* Which announced transaction to request from which peer, and when (Bitcoin Core's
 * TxRequestTracker): a pure bookkeeping object, no I/O, the clock passed in.
 *
 * An announcement is (peer, hash) with a request time. It is a candidate until then
 * (delayed), after which it may be requested (ready). Of the ready candidates of a hash, only
 * the best may be requested, and only while no request for the hash is out: preferred peers
 * first, then a per-hash random order (salted hash of hash and peer). A request expires at
 * its expiry time; it or a response (the transaction, a notfound) completes the announcement
 * and the next best candidate becomes requestable. When every announcement of a hash is
 * completed they go; a hash forgotten (the transaction is had) goes at once; a peer gone
 * takes its announcements. Not thread-safe: its owner's thread only.
 */
#ifndef BITNODE_NET_TXREQUEST_H
#define BITNODE_NET_TXREQUEST_H

#include <stddef.h>
#include <stdint.h>

struct txrequest;

/* A transaction id of either kind, with the peer it concerns. */
struct txrequest_gtxid {
    uint8_t hash[32];
    int is_wtxid;
    int64_t peer;
};

/** A new empty tracker: *out (free with txrequest_free). deterministic: the tie-break order
 *  is unsalted (tests). Returns 0. */
int txrequest_new(struct txrequest **out, int deterministic);
/** Frees t. NULL: no-op. */
void txrequest_free(struct txrequest *t);

/** Core's ReceivedInv: peer announced hash; it may be requested from reqtime_us on. Ignored
 *  when the peer has an announcement of that hash already (in any state). */
void txrequest_received_inv(struct txrequest *t, int64_t peer, const uint8_t hash[32],
                            int is_wtxid, int preferred, int64_t reqtime_us);
/** Core's DisconnectedPeer: every announcement of peer goes; a hash it was asked for may be
 *  asked of the next candidate. */
void txrequest_disconnected_peer(struct txrequest *t, int64_t peer);
/** Core's ForgetTxHash: every announcement of hash goes (the transaction is had). */
void txrequest_forget(struct txrequest *t, const uint8_t hash[32]);
/** Core's GetRequestable at now_us: first every request whose expiry has come is completed
 *  and listed in *expired (*n_expired entries, any peer); then *out lists the hashes peer is
 *  the best ready candidate of (*n_out entries, in the order they were announced). Both
 *  arrays are the caller's to free() (NULL when empty). Returns 0. */
int txrequest_get_requestable(struct txrequest *t, struct txrequest_gtxid **out, size_t *n_out,
                              struct txrequest_gtxid **expired, size_t *n_expired, int64_t peer,
                              int64_t now_us);
/** Core's RequestedTx: hash was requested from peer, expiring at expiry_us. Does nothing
 *  unless peer has a candidate announcement of it; any other request of the hash out is
 *  completed, any other best candidate is not the best any more. */
void txrequest_requested(struct txrequest *t, int64_t peer, const uint8_t hash[32],
                         int64_t expiry_us);
/** Core's ReceivedResponse: peer answered for hash (the transaction or a notfound): its
 *  announcement is completed. */
void txrequest_received_response(struct txrequest *t, int64_t peer, const uint8_t hash[32]);
/** Announcements of peer, in any state (Core's Count). */
size_t txrequest_count(const struct txrequest *t, int64_t peer);
/** Requests out to peer (Core's CountInFlight). */
size_t txrequest_count_in_flight(const struct txrequest *t, int64_t peer);
/** Announcements in all. */
size_t txrequest_size(const struct txrequest *t);
/** Core's GetCandidatePeers: appends to *peers (realloc'd, *n entries) every peer with an
 *  announcement of hash that is not completed. */
void txrequest_candidate_peers(const struct txrequest *t, int64_t **peers, size_t *n,
                               const uint8_t hash[32]);

#endif
