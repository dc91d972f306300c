/* The orphanage (Bitcoin Core's TxOrphanage): transactions whose inputs are missing, kept
 * until a parent arrives, each with the peers that sent or announced it (its announcers); it
 * goes when its last announcer does. Its limits are Core's: a latency score (an announcement
 * counts 1, a transaction one more per ten inputs) of 3000 shared among the announcing
 * peers, and 404,000 weight units reserved per announcing peer; over them, the peer using
 * the most of its share loses its oldest announcements. No clock, no network: txrelay.c owns
 * it and calls it on the net thread.
 */
#ifndef BITNODE_NET_ORPHANAGE_H
#define BITNODE_NET_ORPHANAGE_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/tx.h"

struct block;
struct orphanage;

#define ORPHANAGE_MAX_ANNOUNCERS 8

/* An orphan, as the orphanage hands it out (borrowed until the orphanage next changes) or
 * gives it away (orphanage_take_children: the caller clears it with orphanage_orphan_clear). */
struct orphan {
    uint8_t *raw; /* the transaction as received */
    size_t len;
    uint8_t txid[32], wtxid[32];
    struct outpoint *spends; /* its inputs */
    size_t n_spends;
    int64_t from[ORPHANAGE_MAX_ANNOUNCERS]; /* its announcers, the first one first */
    size_t n_from;
    uint64_t seq; /* order of arrival */
    size_t weight;
};

/** An empty orphanage: *out (free with orphanage_free). Returns 0. */
int orphanage_new(struct orphanage **out);
/** Frees o and its orphans. NULL: no-op. */
void orphanage_free(struct orphanage *o);
/** Frees what a taken orphan holds. */
void orphanage_orphan_clear(struct orphan *x);

/** The orphan of wtxid, or NULL (borrowed). */
const struct orphan *orphanage_get(const struct orphanage *o, const uint8_t wtxid[32]);
/** Whether peer is one of x's announcers. */
int orphanage_has_announcer(const struct orphan *x, int64_t peer);
/** Stores tx (raw: its bytes, copied) with no announcer yet, unless it is over the standard
 *  weight (Core's "ignoring large orphan tx") or there already. Returns the orphan (borrowed)
 *  or NULL. Core's "stored orphan tx" line. The caller adds an announcer before the next
 *  change (an orphan without one is not kept). */
const struct orphan *orphanage_add(struct orphanage *o, const uint8_t *raw, size_t len,
                                   const struct tx *tx);
/** Adds peer as an announcer of the orphan of wtxid (with Core's line when it had one
 *  already). Returns 1 if added; 0 if there is no such orphan, peer is one already, or it has
 *  ORPHANAGE_MAX_ANNOUNCERS. */
int orphanage_add_announcer(struct orphanage *o, const uint8_t wtxid[32], int64_t peer);
/** Removes the orphan of wtxid: 1 if there was one. */
int orphanage_erase(struct orphanage *o, const uint8_t wtxid[32]);
/** A peer is gone: its announcements go, and the orphans left without any (Core's line). */
void orphanage_erase_for_peer(struct orphanage *o, int64_t peer);
/** A block was connected: the orphans spending an output one of its transactions spends
 *  (included or conflicted) go (Core's line). */
void orphanage_erase_for_block(struct orphanage *o, const struct block *b);
/** Takes out every orphan that spends an output of txid (to be tried again): *out (caller
 *  clears each with orphanage_orphan_clear and frees the array), their count. */
size_t orphanage_take_children(struct orphanage *o, struct orphan **out, const uint8_t txid[32]);
/** The newest orphan announced by peer that spends an output of parent_txid and that ok(ctx,
 *  orphan) accepts, or NULL (borrowed). */
const struct orphan *orphanage_child_from_peer(const struct orphanage *o,
                                               const uint8_t parent_txid[32], int64_t peer,
                                               int (*ok)(void *ctx, const struct orphan *x),
                                               void *ctx);
/** Core's LimitOrphans: trims back within the limits (Core's "orphanage overflow" line). */
void orphanage_limit(struct orphanage *o);
/** How many orphans there are; orphanage_at(o, i) is the i-th (borrowed), in no set order. */
size_t orphanage_size(const struct orphanage *o);
const struct orphan *orphanage_at(const struct orphanage *o, size_t i);

#endif
