/* The validation thread and its queue (validator.h). */
#include "validation/validator.h"

#include <pthread.h>
#include <string.h>

#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

struct validator {
    struct chainstate *cs;
    pthread_t thread;
    validator_halt_fn on_halt;
    void *halt_ctx;

    pthread_mutex_t mu;      /* guards everything below; a leaf */
    pthread_cond_t work_cv;  /* the thread: a job came, or stop */
    pthread_cond_t space_cv; /* submitters: the queue has room */
    pthread_cond_t done_cv;  /* waiters: a job is done */
    struct validator_job *head, *tail;
    size_t queued, max_queue;
    struct validator_job *deferred; /* done when the chain settles (ACTIVATE, BLOCK+connect) */
    int stop;

    /* The thread's own (no lock): */
    int may_connect; /* something may have made a better chain connectable */
    int halted;      /* on_halt was called: no more connecting */
    int fatal;       /* the system error that stopped it, or 0 */
};

/* A done job's callback, copied before done_ is set (the owner may free the job at once
 * after that). */
struct done_note {
    void (*fn)(void *, struct validator_job *);
    void *ctx;
    struct validator_job *job;
};

static void finish_job(struct validator *v, struct validator_job *j, int rc)
{
    struct done_note n = {j->on_done, j->done_ctx, j};
    pthread_mutex_lock(&v->mu);
    j->rc = rc;
    j->done_ = 1;
    if (j->waited_) {
        pthread_cond_broadcast(&v->done_cv); /* only when someone waits for this one */
    }
    pthread_mutex_unlock(&v->mu);
    if (n.fn) {
        n.fn(n.ctx, n.job);
    }
}

/* Marks the jobs of list done (rc set already) and calls their callbacks, outside mu. */
static void finish_list(struct validator *v, struct validator_job *j)
{
    size_t cap = 0, n = 0;
    struct done_note *notes = NULL;
    pthread_mutex_lock(&v->mu);
    for (; j; j = j->next_) {
        if (j->on_done) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                notes = xrealloc(notes, cap * sizeof(*notes));
            }
            notes[n++] = (struct done_note){j->on_done, j->done_ctx, j};
        }
        j->done_ = 1;
    }
    pthread_cond_broadcast(&v->done_cv);
    pthread_mutex_unlock(&v->mu);
    for (size_t i = 0; i < n; i++) {
        notes[i].fn(notes[i].ctx, notes[i].job);
    }
    free(notes);
}

static void finish_deferred(struct validator *v)
{
    pthread_mutex_lock(&v->mu);
    struct validator_job *j = v->deferred;
    v->deferred = NULL;
    pthread_mutex_unlock(&v->mu);
    finish_list(v, j); /* rc was set when each ran */
}

static void defer(struct validator *v, struct validator_job *j, int rc)
{
    pthread_mutex_lock(&v->mu);
    j->rc = rc;
    j->next_ = v->deferred;
    v->deferred = j;
    pthread_mutex_unlock(&v->mu);
}

/* A block or headers job may be accepted while a block is open; anything else waits for a
 * settled chain, so it runs between blocks. */
static int preparable(const struct validator_job *j)
{
    return j->work == VALIDATOR_BLOCK || j->work == VALIDATOR_HEADERS;
}

/* Takes the queue's head if want(head); mu held. */
static struct validator_job *pop_if(struct validator *v, int (*want)(const struct validator_job *))
{
    struct validator_job *j = v->head;
    if (!j || (want && !want(j))) {
        return NULL;
    }
    v->head = j->next_;
    if (!v->head) {
        v->tail = NULL;
    }
    j->next_ = NULL;
    v->queued--;
    pthread_cond_signal(&v->space_cv);
    return j;
}

/* Every header is offered (one that fails does not stop the rest: a block file's headers
 * are in arrival order, not always parents first); st gets the first verdict. */
static int run_headers(struct chainstate *cs, struct validator_job *j)
{
    int failed = 0;
    j->accepted = 0;
    for (size_t off = 0; off + 80 <= j->len; off += 80) {
        struct vstate st;
        vstate_init(&st);
        int rc = chainstate_accept_header(cs, j->data + off, &st);
        if (rc == RC_OK) {
            j->accepted++;
        } else if (rc == RC_INVALID) {
            if (!failed++) {
                j->st = st;
            }
        } else {
            return rc;
        }
    }
    return failed ? RC_INVALID : RC_OK;
}

/* A block job's precheck (validator.h): 1 to go on with the block, else the job's rc. The
 * tree is read without the lock: only this thread changes it. */
static int precheck(struct chainstate *cs, struct validator_job *j)
{
    char hx[65];
    if (j->len < 80) {
        return 1; /* the accept gives the verdict */
    }
    const uint8_t *hash = j->hash; /* the submitter's hash of the header */
    struct block_tree *tree = chainstate_tree(cs);
    struct block_index *e = block_tree_find(tree, hash);
    if (e && (e->status & BLOCK_HAVE_DATA)) {
        return RC_OK; /* known: is_new stays 0 */
    }
    const uint8_t *prev = j->data + 4;
    if (memcmp(hash, chainstate_params(cs)->genesis_hash, 32) != 0 &&
        !block_tree_find(tree, prev)) {
        hex_encode_rev(hx, prev, 32);
        return vstate_reject(&j->st, VRESULT_MISSING_PREV, REJECT_PREV_BLK_NOT_FOUND, "parent %s",
                              hx);
    }
    return 1;
}

/* Runs j; returns its rc, or 1 when j waits for the chain to settle (deferred). */
static int run_job(struct validator *v, struct validator_job *j)
{
    struct chainstate *cs = v->cs;
    int rc;
    vstate_init(&j->st);
    j->is_new = 0;
    if (v->fatal) {
        return v->fatal;
    }
    switch (j->work) {
    case VALIDATOR_BLOCK:
        if (j->precheck && (rc = precheck(cs, j)) != 1) {
            return rc;
        }
        rc = j->unrequested
                 ? chainstate_accept_unrequested_block(cs, j->data, j->len, &j->st, &j->is_new)
             : j->import ? chainstate_import_block(cs, j->data, j->len, j->pos, &j->st, &j->is_new)
                         : chainstate_accept_block(cs, j->data, j->len, j->pos, &j->st, &j->is_new);
        if (rc == RC_INVALID && j->st.result == VRESULT_MISSING_PREV && j->from_peer) {
            LOG_INFO("ProcessNewBlock: AcceptBlock FAILED (%s)", j->st.reject);
        }
        if (rc == RC_OK) {
            v->may_connect = 1;
            if (j->connect) {
                defer(v, j, RC_OK);
                return 1;
            }
        }
        return rc;
    case VALIDATOR_HEADERS:
        return run_headers(cs, j); /* blocks, not headers, make a chain connectable */
    case VALIDATOR_INVALIDATE:
        rc = chainstate_invalidate_block(cs, j->hash);
        break;
    case VALIDATOR_RECONSIDER:
        rc = chainstate_reconsider_block(cs, j->hash);
        break;
    case VALIDATOR_PRECIOUS:
        rc = chainstate_precious_block(cs, j->hash);
        break;
    case VALIDATOR_ACTIVATE:
        v->may_connect = 1;
        defer(v, j, RC_OK);
        return 1;
    case VALIDATOR_CALL:
        return j->fn(cs, j->ctx); /* connects nothing by itself */
    default:
        return RC_USAGE;
    }
    v->may_connect = 1; /* the candidates changed; those calls connected already */
    return rc;
}

/* An error of the node itself (storage), as opposed to an answer about the work. */
static int system_error(int rc)
{
    return rc < 0 && rc != RC_INVALID && rc != RC_NOT_FOUND && rc != RC_USAGE &&
           rc != RC_STOPPED;
}

/* A system error: nothing more is connected or accepted; bitnoded is told and shuts down. */
static void halt(struct validator *v, int rc)
{
    if (system_error(rc) && !v->fatal) {
        LOG_ERROR("validation stopped: %s", rc_str(rc));
        v->fatal = rc;
    }
    v->may_connect = 0;
    if (!v->halted && (v->fatal || chainstate_stop_requested(v->cs))) {
        v->halted = 1;
        if (v->fatal) {
            chainstate_notify_fatal(v->cs, v->fatal);
        }
        if (v->on_halt) {
            v->on_halt(v->halt_ctx, v->fatal);
        }
    }
}

/* 1 if a job that changes the chain waits at the head of the queue, or the validator is
 * stopping: the chain of connects stops to let it happen between two blocks. */
static int chain_job_waiting(struct validator *v)
{
    pthread_mutex_lock(&v->mu);
    int waiting = v->stop || (v->head && !preparable(v->head));
    pthread_mutex_unlock(&v->mu);
    return waiting;
}

static int interrupted(struct validator *v);

/* The pipeline: begin the next block; then, for each block open on the pool, prepare the
 * one after it and finish it, which begins that one (its child) before committing. */
static void connect_step(struct validator *v)
{
    struct chainstate *cs = v->cs;
    struct chainstate_pending *p = NULL;
    int rc = chainstate_connect_begin(cs, &p);
    if (rc || !p) {
        v->may_connect = 0; /* settled (or failed): thread_main finishes the deferred jobs */
        if (rc) {
            halt(v, rc);
        }
        return;
    }
    while (p) {
        /* Prepare N+1 while N's scripts are checked: the next block or headers from the
         * queue (read, checked without the UTXO set, stored, its coins prefetched), else
         * the next stored block of the chain. */
        uint64_t t0 = time_mono_ns();
        pthread_mutex_lock(&v->mu);
        struct validator_job *j = pop_if(v, preparable);
        pthread_mutex_unlock(&v->mu);
        int prc = RC_OK;
        if (j) {
            int jrc = run_job(v, j);
            if (jrc != 1) {
                finish_job(v, j, jrc);
            }
            if (system_error(jrc)) {
                prc = jrc;
            }
        }
        if (prc == RC_OK) {
            prc = chainstate_prepare_next(cs, p);
        }
        chainstate_add_overlap(cs, p, time_mono_ns() - t0);
        int chain = prc == RC_OK && !interrupted(v) && !chain_job_waiting(v);
        struct chainstate_pending *next = NULL;
        rc = chainstate_connect_finish(cs, p, chain ? &next : NULL);
        p = next;
        if (rc || prc) {
            halt(v, rc ? rc : prc); /* no next on an error */
            return;
        }
        if (chainstate_stop_requested(cs)) {
            halt(v, RC_OK); /* no next past -stopatheight */
            return;
        }
    }
}

static int interrupted(struct validator *v)
{
    return v->halted || chainstate_interrupted(v->cs);
}

/* With the chain settled and no job waiting, one block of a UTXO snapshot's background
 * chainstate (chainstate_background_step). 1 if it did something: look again. */
static int background_step(struct validator *v)
{
    pthread_mutex_lock(&v->mu);
    int idle = !v->head && !v->stop;
    pthread_mutex_unlock(&v->mu);
    if (!idle || interrupted(v)) {
        return 0;
    }
    int rc = chainstate_background_step(v->cs);
    if (rc < 0) {
        halt(v, rc);
        return 0;
    }
    return rc;
}

static void *thread_main(void *arg)
{
    struct validator *v = arg;
    log_thread_start("validation");
    /* Nothing is connected until a job asks: blocks stored past the tip (a restart,
     * -reindex-chainstate) wait for an ACTIVATE, so that a reindex reads the genesis block
     * from its own file first. */
    for (;;) {
        if (v->may_connect && interrupted(v)) {
            v->may_connect = 0;
        }
        if (!v->may_connect) {
            finish_deferred(v); /* the chain is settled, or will not be connected further */
            if (background_step(v)) {
                continue;
            }
        }
        pthread_mutex_lock(&v->mu);
        while (!v->stop && !v->head && !v->may_connect) {
            pthread_cond_wait(&v->work_cv, &v->mu);
        }
        if (v->stop) {
            pthread_mutex_unlock(&v->mu);
            break;
        }
        /* Changes of the chain (and anything while nothing is to be connected) first; block
         * and headers jobs go through the pipeline while there is a chain to connect. */
        struct validator_job *j = v->may_connect && v->head && preparable(v->head)
                                      ? NULL
                                      : pop_if(v, NULL);
        if (!j && !v->may_connect) {
            pthread_mutex_unlock(&v->mu);
            continue;
        }
        pthread_mutex_unlock(&v->mu);
        if (j) {
            enum validator_work work = j->work; /* j is the caller's again once done */
            int rc = run_job(v, j);
            if (rc != 1) {
                finish_job(v, j, rc);
            }
            if (system_error(rc) && !v->fatal) {
                halt(v, rc);
            } else if (rc == RC_OK && work != VALIDATOR_CALL &&
                       (rc = chainstate_flush(v->cs, FLUSH_PERIODIC))) {
                halt(v, rc);
            }
            if (chainstate_stop_requested(v->cs)) {
                halt(v, RC_OK);
            }
            continue;
        }
        connect_step(v);
    }
    return NULL;
}

int validator_new(struct validator **out, struct chainstate *cs, size_t max_queue,
                  validator_halt_fn on_halt, void *halt_ctx)
{
    struct validator *v = xcalloc(1, sizeof(*v));
    v->cs = cs;
    v->max_queue = max_queue ? max_queue : 16;
    v->on_halt = on_halt;
    v->halt_ctx = halt_ctx;
    pthread_mutex_init(&v->mu, NULL);
    pthread_cond_init(&v->work_cv, NULL);
    pthread_cond_init(&v->space_cv, NULL);
    pthread_cond_init(&v->done_cv, NULL);
    if (pthread_create(&v->thread, NULL, thread_main, v) != 0) {
        pthread_mutex_destroy(&v->mu);
        pthread_cond_destroy(&v->work_cv);
        pthread_cond_destroy(&v->space_cv);
        pthread_cond_destroy(&v->done_cv);
        free(v);
        return RC_IO;
    }
    *out = v;
    return RC_OK;
}

void validator_free(struct validator *v)
{
    if (!v) {
        return;
    }
    pthread_mutex_lock(&v->mu);
    v->stop = 1;
    pthread_cond_broadcast(&v->work_cv);
    pthread_mutex_unlock(&v->mu);
    pthread_join(v->thread, NULL);
    /* What was never done: queued jobs and those waiting for the chain to settle. */
    pthread_mutex_lock(&v->mu);
    struct validator_job *lists[2] = {v->head, v->deferred};
    for (struct validator_job *j = lists[0]; j; j = j->next_) {
        j->rc = RC_STOPPED;
    }
    v->head = v->tail = v->deferred = NULL;
    v->queued = 0;
    pthread_cond_broadcast(&v->space_cv);
    pthread_mutex_unlock(&v->mu);
    finish_list(v, lists[0]);
    finish_list(v, lists[1]);
    /* Waiters woken above return before their job's memory or v goes: the caller frees v
     * only after the threads that submit have stopped (bitnoded joins them first). */
    pthread_mutex_destroy(&v->mu);
    pthread_cond_destroy(&v->work_cv);
    pthread_cond_destroy(&v->space_cv);
    pthread_cond_destroy(&v->done_cv);
    free(v);
}

static int submit(struct validator *v, struct validator_job *job, int wait)
{
    pthread_mutex_lock(&v->mu);
    if (!wait && !v->stop && v->queued >= v->max_queue) {
        pthread_mutex_unlock(&v->mu);
        return RC_TOO_LARGE;
    }
    job->done_ = 0;
    job->waited_ = 0;
    job->next_ = NULL;
    while (!v->stop && v->queued >= v->max_queue) {
        pthread_cond_wait(&v->space_cv, &v->mu);
    }
    if (v->stop) {
        job->rc = RC_STOPPED;
        job->done_ = 1;
        pthread_mutex_unlock(&v->mu);
        return RC_STOPPED; /* no callback: the caller sees the rc */
    }
    if (v->tail) {
        v->tail->next_ = job;
    } else {
        v->head = job;
    }
    v->tail = job;
    v->queued++;
    pthread_cond_signal(&v->work_cv);
    pthread_mutex_unlock(&v->mu);
    return RC_OK;
}

int validator_submit(struct validator *v, struct validator_job *job)
{
    return submit(v, job, 1);
}

int validator_try_submit(struct validator *v, struct validator_job *job)
{
    return submit(v, job, 0);
}

size_t validator_queued(struct validator *v)
{
    pthread_mutex_lock(&v->mu);
    size_t n = v->queued;
    pthread_mutex_unlock(&v->mu);
    return n;
}

int validator_wait(struct validator *v, struct validator_job *job)
{
    pthread_mutex_lock(&v->mu);
    while (!job->done_) {
        job->waited_ = 1;
        pthread_cond_wait(&v->done_cv, &v->mu);
    }
    int rc = job->rc;
    pthread_mutex_unlock(&v->mu);
    return rc;
}

int validator_done(struct validator *v, struct validator_job *job)
{
    pthread_mutex_lock(&v->mu);
    int done = job->done_;
    pthread_mutex_unlock(&v->mu);
    return done;
}

int validator_run(struct validator *v, struct validator_job *job)
{
    int rc = validator_submit(v, job);
    return rc ? rc : validator_wait(v, job);
}

struct chainstate *validator_chainstate(const struct validator *v)
{
    return v->cs;
}
