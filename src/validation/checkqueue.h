/* The check pool: Bitcoin Core's CCheckQueue in C. A fixed set of worker threads, created
 * once at start-up, verifies the input scripts of one block at a time. The validation thread
 * hands over a block's checks and works through them too instead of waiting; inputs are
 * taken in batches in block order; the first failure cancels every check after it, and the
 * verdict names the lowest failing (tx, input), so it equals what serial checking reports.
 *
 * Lifetime: workers touch only the block, the spent outputs and the per-transaction
 * precomputed hashes of the current call, all allocated before dispatch and unmoved until
 * every worker has left the call (the join at its end).
 *
 * Lock: one mutex per queue (taken to grab a batch, never while a script runs). It is a
 * leaf lock: nothing else is locked while it is held (the signature cache's lock is taken by
 * the script checks, outside it).
 */
#ifndef BITNODE_VALIDATION_CHECKQUEUE_H
#define BITNODE_VALIDATION_CHECKQUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "primitives/block.h"
#include "primitives/tx.h"
#include "script/script_error.h"

struct sigcache;
struct checkqueue;

/* Core's MAX_SCRIPTCHECK_THREADS: workers beyond the validation thread. */
#define CHECKQUEUE_MAX_WORKERS 15
/* Core's nBatchSize: the most inputs one grab takes. */
#define CHECKQUEUE_BATCH_SIZE 128
/* Returned when checkqueue_interrupt stopped a block half way: no verdict. Negative, so
 * callers treat it like a system failure and stop (the lead may move it into rc.h). */
#define CHECKQUEUE_INTERRUPTED (-64)

/** Core's -par rule: par > 0 threads in all, par <= 0 the number of cores plus par (0: one
 *  per core; -1: leave one free); the validation thread is one of them.
 *  Returns the number of worker threads to start, in [0, CHECKQUEUE_MAX_WORKERS].
 *  In: ncores: the machine's cores (checkqueue_ncores()). */
int checkqueue_workers_for_par(int par, int ncores);

/** The number of online cores (at least 1). */
int checkqueue_ncores(void);

/** Creates the pool and starts n_workers threads (clamped to [0, CHECKQUEUE_MAX_WORKERS]).
 *  0 is valid: the calling thread then does every check itself. Caller frees. */
struct checkqueue *checkqueue_new(int n_workers);

/** Stops and joins the workers, then frees. NULL is a no-op. No call of
 *  checkqueue_verify_block may be in progress. */
void checkqueue_free(struct checkqueue *q);

/** The number of worker threads. */
int checkqueue_workers(const struct checkqueue *q);

/** Asks a checkqueue_verify_block in progress (and every later one) to stop handing out
 *  checks and return CHECKQUEUE_INTERRUPTED. Thread: any (shutdown). */
void checkqueue_interrupt(struct checkqueue *q);

struct checkqueue_result {
    size_t inputs_checked; /* checks that ran (all inputs when none failed) */
    int failed;            /* 1: some input failed; the fields below name the first one */
    size_t fail_tx;        /* index of its transaction in the block */
    size_t fail_in;        /* its input index in that transaction */
    enum script_error err; /* its script error */
};

/** Verifies every input script of every non-coinbase transaction of b, on the pool.
 *  Returns: 0 with *res filled (a failure is a verdict in *res, not an error); RC_USAGE if
 *           n_spent is not the number of non-coinbase inputs; CHECKQUEUE_INTERRUPTED.
 *  In:      q: the pool, or NULL to check on the calling thread only (a chainstate built
 *           by hand in a test has none).
 *           b, spent: borrowed until the call returns (one spent output per non-coinbase
 *           input in block order, as for script_verify_block). flags: script_block_flags.
 *           sigcache: shared by the workers, may be NULL; sigcache_store: 1 to remember
 *           successful checks (Core does for mempool checks, not for blocks).
 *  Thread:  one caller at a time per queue (the validation thread).
 */
int checkqueue_verify_block(struct checkqueue *q, struct checkqueue_result *res,
                            const struct block *b, const struct tx_out *spent, size_t n_spent,
                            uint32_t flags, struct sigcache *sigcache, int sigcache_store);

/* The same, in steps, so that the validation thread's own work on a block (UTXO lookups,
 * amounts, undo records) overlaps with the workers checking the transactions it has already
 * handed over (Core's CCheckQueueControl):
 *
 *     checkqueue_block_begin(q, b, flags, cache, 0);
 *     for each non-coinbase tx t, in block order, once its spent outputs are known:
 *         checkqueue_block_add_tx(q, t, spent_of_t, b->txs[t].vin_count);
 *     checkqueue_block_finish(q, &res);          (or checkqueue_block_cancel(q))
 *
 * Whatever is handed over (b, each spent array) must not move or change until finish or
 * cancel returns. One block at a time per queue; the same thread makes every call. */

/** Starts the checks of block b. Returns 0, or CHECKQUEUE_INTERRUPTED.
 *  In: b: borrowed until finish/cancel. flags, sigcache, sigcache_store: as above. */
int checkqueue_block_begin(struct checkqueue *q, const struct block *b, uint32_t flags,
                           struct sigcache *sigcache, int sigcache_store);

/** Hands over the inputs of transaction tx_idx (the next one not yet added, starting at 1):
 *  its precomputed hashes are made here, then workers may check it at once.
 *  Returns 0; RC_USAGE if tx_idx is out of order or n_spent is not its input count.
 *  In: spent: one output per input, borrowed until finish/cancel. */
int checkqueue_block_add_tx(struct checkqueue *q, size_t tx_idx, const struct tx_out *spent,
                            size_t n_spent);

/** 1 if some input already handed over is known to fail (the caller may stop preparing
 *  the block; finish still names the first failing input). */
int checkqueue_block_failed(struct checkqueue *q);

/** Checks what is left together with the workers, waits for them, and gives the verdict.
 *  Returns 0 with *res (as checkqueue_verify_block); RC_USAGE if some transaction was never
 *  added (the block is then cancelled); CHECKQUEUE_INTERRUPTED. */
int checkqueue_block_finish(struct checkqueue *q, struct checkqueue_result *res);

/** Abandons the block (the caller found it invalid for another reason): stops handing out
 *  its checks and waits until no worker touches it. */
void checkqueue_block_cancel(struct checkqueue *q);

/* Where the calling thread and the workers spent their time, summed over every block since
 * the pool was created (for benchmarks). */
struct checkqueue_stats {
    uint64_t blocks;
    uint64_t inputs;
    uint64_t batches;
    uint64_t master_checks; /* checks the calling thread did itself */
    uint64_t prepare_ns;    /* the caller preparing transactions (precomputed hashes) */
    uint64_t check_ns;      /* the caller checking batches */
    uint64_t wait_ns;       /* the caller waiting for the workers' last batches */
    uint64_t worker_busy_ns; /* all workers together, checking */
};

/** Copies the counters. Thread: the validation thread, between calls. */
void checkqueue_get_stats(const struct checkqueue *q, struct checkqueue_stats *out);

#endif
