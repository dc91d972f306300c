/* mempool.dat: the pool saved at shutdown (and by savemempool) and loaded at start, in
 * Bitcoin Core's format (doc/files.md, "mempool.dat"), so a datadir's file can move between
 * the two nodes. */
#ifndef BITNODE_MEMPOOL_PERSIST_H
#define BITNODE_MEMPOOL_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "mempool/mempool.h"

struct chainstate;

/** Writes every entry (transaction, entry time, fee delta), the deltas of transactions not in
 *  the pool, and the unbroadcast set (empty) to path, atomically (path.new, then renamed, as Core).
 *  version 2 obfuscates with a random key as Core does; version 1 (-persistmempoolv1) does
 *  not. Takes the pool's read lock.
 *  Returns 0, or a system error with err filled. */
int mempool_dump(struct mempool *mp, const char *path, int version, char *err, size_t err_len);

/* What loading a file did (Core's log line). */
struct mempool_load_stats {
    int64_t succeeded, failed, expired, already_there, unbroadcast;
};

/** Reads path and accepts each transaction whose entry time is within the expiry (with the
 *  fee floors, as Core), applying its stored delta; then the stored deltas. use_current_time
 *  gives every transaction now as its time (importmempool's option).
 *  Returns 0 with *stats; RC_NOT_FOUND if there is no file; RC_CORRUPT with err filled for a
 *  malformed or truncated file (what was accepted before the damage stays); a system error.
 *  Thread: the validation thread (accepts). */
int mempool_load(struct mempool *mp, struct chainstate *cs, const char *path, int64_t now,
                 int use_current_time, int apply_deltas, int apply_unbroadcast,
                 struct mempool_load_stats *stats, char *err, size_t err_len);

#endif
