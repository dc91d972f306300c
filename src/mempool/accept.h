/* Accepting a loose transaction into the pool (Bitcoin Core's AcceptToMemoryPool for one
 * transaction): every consensus check that does not need a block, the standardness policy,
 * the fee floors, the cluster limits, replacement by fee (full RBF, Core's rules: fees at
 * least those replaced plus the increment, no more than 100 replaced clusters, a better fee
 * rate diagram), then the scripts with the standard flags, filling the signature cache so
 * the block that confirms the transaction skips them. And the pool's side of a block being
 * connected or disconnected.
 *
 * Thread: the validation thread (run as a VALIDATOR_CALL job, or from the chainstate's block
 * hooks); the chain is not changed meanwhile. The pool's write lock is taken inside.
 */
#ifndef BITNODE_MEMPOOL_ACCEPT_H
#define BITNODE_MEMPOOL_ACCEPT_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/vstate.h"
#include "mempool/mempool.h"
#include "primitives/block.h"
#include "primitives/tx.h"

struct chainstate;

/* The class of a rejection (Core's TxValidationResult): what net does with the sender and
 * whether the transaction may be an orphan. */
enum mempool_tx_result {
    MEMPOOL_TX_VALID = 0,
    MEMPOOL_TX_CONSENSUS, /* invalid by consensus */
    MEMPOOL_TX_INPUTS_NOT_STANDARD,
    MEMPOOL_TX_NOT_STANDARD,
    MEMPOOL_TX_MISSING_INPUTS,  /* perhaps an orphan */
    MEMPOOL_TX_PREMATURE_SPEND, /* not final yet */
    MEMPOOL_TX_WITNESS_MUTATED,
    MEMPOOL_TX_WITNESS_STRIPPED,
    MEMPOOL_TX_CONFLICT, /* known already, or conflicts */
    MEMPOOL_TX_MEMPOOL_POLICY,
    MEMPOOL_TX_RECONSIDERABLE, /* fee too low alone; a package might do */
    MEMPOOL_TX_NO_MEMPOOL,
};

struct mempool_accept_args {
    int64_t now;         /* seconds since the epoch: the entry time */
    int test_only;       /* testmempoolaccept: check, change nothing */
    int bypass_limits;   /* a disconnected block's or mempool.dat's: no fee floors, no trim */
    int64_t max_feerate; /* sat/kvB; 0: no ceiling ("max feerate exceeded") */
    int64_t fee_delta;   /* mempool.dat's stored delta to apply (0: none) */
    int package_feerate; /* in a package: fee floors checked on its rate by the caller */
    int no_replacement;       /* conflicts are refused (Core's package test accept) */
    int no_trim;              /* in a package: the caller trims once all of it is in */
    int no_sibling_eviction;  /* a TRUC sibling is not replaced (Core's package evaluation) */
    const struct tx *package; /* test_only: earlier transactions of the package tested, whose */
    size_t npackage;          /* outputs count as unconfirmed coins */
};

struct mempool_accept_result {
    enum mempool_tx_result kind;
    struct vstate st; /* valid, or Core's reject reason and detail */
    int64_t fee;      /* base fee (known once the inputs were found) */
    int64_t modified; /* fee with prioritisetransaction's delta */
    int64_t vsize;    /* sigop-adjusted */
    int64_t weight;
    int have_fee;
    size_t n_replaced;       /* transactions this one replaced */
    uint8_t (*replaced)[32]; /* their txids (caller frees) */
};

/** Checks tx against the chain tip and the pool and, unless args->test_only, adds it (tx is
 *  then moved into the pool and left empty; else left alone).
 *  Returns: 0 with res filled (res->st valid or the verdict); a system error (a coin could
 *           not be read).
 *  Thread:  the validation thread. */
int mempool_accept_tx(struct mempool *mp, struct chainstate *cs, struct tx *tx,
                      const struct mempool_accept_args *args, struct mempool_accept_result *res);

void mempool_accept_result_clear(struct mempool_accept_result *res);

/* The stages of one acceptance, for package.c's evaluation of several transactions together
 * (Core's AcceptMultipleTransactions): the checks of each alone without its replacement
 * checks, then the package's own checks, then the scripts, then the additions. */
struct mempool_stage;

/* What the package checks need of a staged transaction. */
struct mempool_stage_info {
    struct mempool_entry *const *parents; /* its in-pool parents (borrowed) */
    size_t nparents;
    struct mempool_entry *const *conflicts; /* in-pool transactions spending its inputs */
    size_t nconflicts;
    int64_t fee, modified, vsize, adj_weight;
};

/** Core's PreChecks for tx (args->package/npackage: the package's earlier transactions, whose
 *  outputs count as coins; args->package_feerate: no fee floors). *out is always set (free it
 *  with mempool_stage_free). Returns 0 with res filled (st valid when it passed), or a system
 *  error. Validation thread. */
int mempool_stage_prechecks(struct mempool *mp, struct chainstate *cs, struct tx *tx,
                            const struct mempool_accept_args *args,
                            struct mempool_accept_result *res, struct mempool_stage **out);
void mempool_stage_get(const struct mempool_stage *s, struct mempool_stage_info *info);
/** Core's PolicyScriptChecks: 1 if the scripts pass, else 0 with the stage's res filled. */
int mempool_stage_scripts(struct mempool_stage *s);
/** Adds the staged transaction to the pool (its tx moved in), without trimming; the caller
 *  removed what it replaces. Takes the write lock. */
void mempool_stage_submit(struct mempool_stage *s);
void mempool_stage_free(struct mempool_stage *s);

/** Core's CheckEphemeralSpends: every transaction of txs[0..n) spends all the dust outputs of
 *  its parents (in the package or the pool). Returns 1, or 0 with *bad the index of the first
 *  that does not and res filled ("missing-ephemeral-spends"). */
int mempool_ephemeral_spends_ok(struct mempool *mp, const struct tx *txs, size_t n,
                                size_t *bad, struct mempool_accept_result *res);

/* A transaction to accept as a VALIDATOR_CALL job: job.fn = mempool_accept_job, job.ctx = it.
 * tx is the submitter's (moved into the pool when accepted); rc and res are the answer. */
struct mempool_submit {
    struct mempool *mp;
    struct tx *tx;
    struct mempool_accept_args args;
    struct mempool_accept_result res;
};
/** The job's fn: mempool_accept_tx on the validation thread. */
int mempool_accept_job(struct chainstate *cs, void *ctx);

/** The chainstate's block hooks for the pool (chain write lock held, validation thread):
 *  a connected block takes its transactions and their conflicts out; a disconnected block's
 *  transactions come back (without fee floors), and entries the shorter chain makes invalid
 *  (immature coinbase spends, non-final) leave. */
void mempool_block_connected(struct mempool *mp, struct chainstate *cs, const struct block *b,
                             int64_t now);
void mempool_block_disconnected(struct mempool *mp, struct chainstate *cs, const struct block *b,
                                int64_t now);

#endif
