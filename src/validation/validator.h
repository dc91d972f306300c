/* The validation thread: the one owner of every change to a chainstate.
 *
 * Whoever has work for the chainstate - the importer, RPC methods, later peers - puts a job
 * in the validator's bounded queue and waits for it (validator_run) or submits it and
 * collects the result later (validator_submit, then validator_wait or validator_done). The
 * thread takes jobs in order. Whenever a better chain is known it connects it through the
 * pipeline of chainstate.h: it begins block N, prepares N+1 while N's scripts are on the
 * check pool (the next block or headers job from the queue is accepted then; with none
 * waiting, the next stored block is read from disk), and finishes N. So an import and a
 * block from any other source get the same overlap, and commits keep the order and the
 * verdicts of serial checking.
 *
 * Readers never queue: they take chainstate_read_lock and read (chainstate.h).
 *
 * Threads: validator_submit, _wait, _done and _run may be called from any thread but the
 * validation thread itself (a job's fn must not submit). Lock order: the validator's
 * queue lock is a leaf (nothing is taken while it is held; the chain lock is never held
 * while waiting for it).
 */
#ifndef BITNODE_VALIDATION_VALIDATOR_H
#define BITNODE_VALIDATION_VALIDATOR_H

#include <stddef.h>
#include <stdint.h>

#include "consensus/vstate.h"
#include "validation/chainstate.h"

enum validator_work {
    VALIDATOR_BLOCK,      /* accept one serialized block (data, len; pos if already stored) */
    VALIDATOR_HEADERS,    /* accept len / 80 serialized headers, in order; one that fails does
                             not stop the rest (rc RC_INVALID, st the first verdict) */
    VALIDATOR_INVALIDATE, /* invalidateblock hash */
    VALIDATOR_RECONSIDER, /* reconsiderblock hash */
    VALIDATOR_PRECIOUS,   /* preciousblock hash */
    VALIDATOR_ACTIVATE,   /* done when the tip is the best chain (or connecting was stopped) */
    VALIDATOR_CALL,       /* fn(cs, ctx) on the validation thread: any other change
                             (verifychain, gettxoutsetinfo's flush, a setting) */
};

/* One piece of work. The caller owns it (and what data points to) and keeps it alive and
 * untouched from validator_submit until it is done. */
struct validator_job {
    enum validator_work work;
    const uint8_t *data;        /* BLOCK, HEADERS */
    size_t len;
    const struct block_pos *pos; /* BLOCK: where it is stored already (a reindex), or NULL */
    int unrequested;            /* BLOCK: nobody asked for it (a peer pushed it): stored
                                   only as chainstate_accept_unrequested_block says */
    int connect;                /* BLOCK: done only once the best chain is connected
                                   (submitblock's answer speaks of the connect) */
    int precheck;               /* BLOCK: first look at the header alone: a block stored
                                   already is done (rc 0, is_new 0) and one whose parent is
                                   unknown refused (RC_INVALID, VRESULT_MISSING_PREV) without
                                   being parsed (the importer's; Core's import does the same
                                   before it reads a block) */
    uint8_t hash[32];           /* INVALIDATE, RECONSIDER, PRECIOUS (internal order); BLOCK
                                   with precheck: the block's hash (sha256d of its header) */
    int import;                 /* BLOCK: read from a block file: chainstate_import_block */
    int from_peer;              /* BLOCK: a peer sent it: an unknown parent is a failure
                                   logged as Core's ProcessNewBlock logs it (an import waits
                                   for the parent instead) */
    int (*fn)(struct chainstate *cs, void *ctx); /* CALL */
    void *ctx;
    /* Optional: called once the job is done (results readable), on the validation thread
     * or, for a job never run, on the thread freeing the validator; without any lock held.
     * It must not block or submit: the net thread's completions queue it and wake their
     * loop. The job may be freed by its owner as soon as this returns. */
    void (*on_done)(void *done_ctx, struct validator_job *job);
    void *done_ctx;

    /* Results, valid once done. */
    int rc;          /* the chainstate call's: 0, RC_INVALID (st), RC_NOT_FOUND, ..., a system
                        error, or RC_STOPPED (the validator stopped before doing it) */
    struct vstate st; /* BLOCK, HEADERS: the verdict */
    int is_new;      /* BLOCK: stored now */
    size_t accepted; /* HEADERS: how many were taken (the first failure stops the rest) */

    /* The validator's. */
    int done_;
    int waited_; /* someone waits for it: wake them when it is done */
    struct validator_job *next_;
};

struct validator;

/* Called once on the validation thread when it stops connecting for good: rc 0 when
 * -stopatheight was reached, or the system error (a full disk) that stopped it (jobs then
 * fail with that error). bitnoded shuts down. */
typedef void (*validator_halt_fn)(void *ctx, int rc);

/** Starts the validation thread for cs (borrowed: it must outlive the validator), with a
 *  queue of at most max_queue jobs (0: 16). on_halt may be NULL. 0 or RC_IO (no thread). */
int validator_new(struct validator **out, struct chainstate *cs, size_t max_queue,
                  validator_halt_fn on_halt, void *halt_ctx);
/** Stops the thread (the block open on the pool is finished first; jobs not yet done get
 *  RC_STOPPED) and frees v. The chainstate is left to the caller, consistent. NULL: no-op. */
void validator_free(struct validator *v);

/** Queues job (waiting while the queue is full). 0, or RC_STOPPED (then job is done). */
int validator_submit(struct validator *v, struct validator_job *job);
/** validator_submit without waiting: RC_TOO_LARGE (nothing queued, job untouched) when the
 *  queue is full, else as validator_submit. For threads that must not block (the net
 *  loop). */
int validator_try_submit(struct validator *v, struct validator_job *job);
/** Jobs queued now (a hint: it may change at once). */
size_t validator_queued(struct validator *v);
/** Waits until job is done; returns job->rc. */
int validator_wait(struct validator *v, struct validator_job *job);
/** 1 if job is done (its results may be read), else 0. Does not wait. */
int validator_done(struct validator *v, struct validator_job *job);
/** validator_submit then validator_wait. */
int validator_run(struct validator *v, struct validator_job *job);

/** The chainstate it owns (borrowed), for readers. */
struct chainstate *validator_chainstate(const struct validator *v);

#endif
