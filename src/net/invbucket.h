/* The rate limit of transaction announcements (Core's two InvToSendBucket and
 * ProcessInvBacklog): each transaction to announce joins a backlog per direction (inbound,
 * outbound peers); a backlog is drained while its buckets have tokens, one token of the
 * count bucket and the transaction's size in the size bucket each, best transactions first
 * (the pool's mining order), those no longer in the pool dropped; what is drained goes to
 * the peers' queues, the rest waits for the buckets to refill (-txsendrate a second for the
 * inbound count, two and a half times that outbound). Pure: the clock and the pool are
 * passed in. Net thread only. */
#ifndef BITNODE_NET_INVBUCKET_H
#define BITNODE_NET_INVBUCKET_H

#include <stddef.h>
#include <stdint.h>

#define INVBUCKET_DEFAULT_RATE 14 /* Core's DEFAULT_TX_SEND_RATE, tx/s */
#define INVBUCKET_MIN_RATE 1
#define INVBUCKET_MAX_RATE 1000

enum invbucket_dir { INVBUCKET_INBOUND = 0, INVBUCKET_OUTBOUND = 1 };

/* What getnetworkinfo's inv_buckets shows of one direction. */
struct invbucket_info {
    size_t backlog;   /* transactions waiting */
    double count_tok; /* tokens of the count bucket */
    double size_tok;  /* tokens of the size bucket (bytes) */
};

/* The pool as the backlog sees it (the caller's). get: a handle for the entry of wtxid, or
 * NULL when it is not in the pool, with its txid and its serialized size in bytes; valid
 * while the lock is held. cmp: the pool's mining order of two handles (<0: a goes first,
 * ancestors before descendants). lock/unlock: around the lookups (may be NULL). */
struct invbucket_pool {
    const void *(*get)(void *ctx, const uint8_t wtxid[32], uint8_t txid[32], double *size);
    int (*cmp)(const void *a, const void *b);
    void (*lock)(void *ctx);
    void (*unlock)(void *ctx);
    void *ctx;
};

/* A transaction drained from a backlog, to queue for the peers of its direction. */
struct invbucket_tx {
    uint8_t txid[32], wtxid[32];
};

struct invbucket;

/** Creates the buckets for rate transactions a second (clamped to 1..1000), full: Core's
 *  count capacity of 30 seconds' worth, 12 MB of size tokens (up to 50 MB). Caller frees. */
int invbucket_new(struct invbucket **out, unsigned rate);
/** Frees b (NULL: no-op). */
void invbucket_free(struct invbucket *b);
/** The rate b was made with, after the clamp (getnetworkinfo's tx_send_rate). */
unsigned invbucket_rate(const struct invbucket *b);

/** Adds wtxid to both backlogs (Core's InitiateTxBroadcastToAll); invbucket_process with
 *  bumped set should follow. */
void invbucket_add(struct invbucket *b, const uint8_t wtxid[32]);

/** Core's ProcessInvBacklog, its buckets' half: unless bumped, does nothing within 100 ms of
 *  the last run; refills both directions' buckets to now_us; logs the backlog every two
 *  seconds while one holds 100 or more; drains what the tokens allow from each backlog.
 *  Returns 1 if anything was drained: read it with invbucket_drained and queue it for the
 *  peers of that direction, then invbucket_clear the direction that has no such peer. */
int invbucket_process(struct invbucket *b, int64_t now_us, int bumped,
                      const struct invbucket_pool *pool);

/** The transactions the last invbucket_process drained for dir, best first: borrowed until
 *  the next call of invbucket_process; *n of them. */
const struct invbucket_tx *invbucket_drained(const struct invbucket *b, enum invbucket_dir dir,
                                             size_t *n);

/** Empties dir's backlog (no peer of that direction to announce to: Core's). */
void invbucket_clear(struct invbucket *b, enum invbucket_dir dir);

/** dir's backlog and tokens. */
void invbucket_info(const struct invbucket *b, enum invbucket_dir dir,
                    struct invbucket_info *out);

#endif
