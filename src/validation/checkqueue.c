/* The check pool. See checkqueue.h.
 *
 * One block is one job. Its inputs are numbered 0..n-1 in block order ("flat" index k);
 * the job hands out [next, end) in batches, end being the smaller of
 *   - avail: the inputs whose transaction was handed over and hashed (the calling thread
 *     adds transactions one by one with checkqueue_block_add_tx and publishes them in
 *     groups of PUBLISH_INPUTS inputs, so workers start on the first transactions while it
 *     prepares the later ones), and
 *   - first_fail: the lowest failing input found so far. Nothing above it needs checking;
 *     everything below it is handed out (batches go in order), so the failure reported at
 *     the end is the lowest failing input of the block: the serial verdict.
 */
#include "validation/checkqueue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "script/interpreter.h"
#include "script/sighash.h"
#include "util/check.h"
#include "util/log.h"
#include "util/time.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* Publish precomputed transactions to the workers at least this many inputs at a time. */
#define PUBLISH_INPUTS 64

struct job {
    /* Set by the caller before the inputs they cover are published (under mu), read-only
     * for the workers until the join. */
    const struct block *b;
    size_t n;                    /* inputs in all */
    size_t *first;               /* first[t]: flat index of input 0 of tx t;
                                    first[tx_count] = n */
    const struct tx_out **spent; /* spent[t]: tx t's spent outputs (borrowed) */
    struct tx_precomputed *pd;   /* pd[t] */
    uint32_t flags;
    struct sigcache *cache;
    int store;

    /* The caller's own bookkeeping. */
    size_t next_tx;   /* the next transaction add_tx expects */
    size_t published; /* avail as last published */
    uint64_t t_start; /* begin() time */

    /* Under the queue's mutex. */
    size_t next;  /* first input not handed out */
    size_t avail; /* inputs whose transaction data is ready */
    int active;   /* workers inside a batch */
    size_t checked;
    size_t batches;
    enum script_error fail_err; /* the error of input first_fail */

    /* Written under the mutex, read without it on the hot path (to stop a batch early). */
    _Atomic size_t first_fail; /* SIZE_MAX: none */
    atomic_int cancelled;      /* checkqueue_block_cancel */
};

struct checkqueue {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* workers: a job or more of it is available, or stop */
    pthread_cond_t done_cv; /* caller: the last active worker left the job */
    pthread_t *threads;
    int n_workers;
    int idle;        /* workers waiting on work_cv (under mu) */
    int stop;        /* under mu */
    struct job *job; /* under mu: the block the workers may take from, or NULL */
    struct job cur;  /* the caller's block (between begin and finish/cancel) */
    int open;        /* the caller's thread: begin was called */
    atomic_int interrupted;
    atomic_int names; /* numbers the workers' thread names */
    _Atomic uint64_t worker_busy_ns; /* every worker's time inside run_batch */
    struct checkqueue_stats stats;   /* the caller's thread only */
};

int checkqueue_ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

int checkqueue_workers_for_par(int par, int ncores)
{
    int threads = par;
    if (threads <= 0) {
        threads += ncores;
    }
    int workers = threads - 1;
    if (workers < 0) {
        workers = 0;
    }
    if (workers > CHECKQUEUE_MAX_WORKERS) {
        workers = CHECKQUEUE_MAX_WORKERS;
    }
    return workers;
}

/* The end of what may be handed out now. Caller holds mu. */
static size_t job_end(const struct job *j)
{
    if (atomic_load_explicit(&j->cancelled, memory_order_relaxed)) {
        return 0;
    }
    size_t ff = atomic_load_explicit(&j->first_fail, memory_order_relaxed);
    return j->avail < ff ? j->avail : ff;
}

/* Takes the next batch [*s, *e). Returns 0 when nothing is available now. Caller holds mu;
 * threads: every thread that checks (workers + the caller). */
static int job_grab(struct job *j, int threads, size_t *s, size_t *e)
{
    size_t end = job_end(j);
    if (j->next >= end) {
        return 0;
    }
    /* Core's rule: smaller batches when little is left, so that all threads finish
     * together. */
    size_t size = (j->n - j->next) / (size_t)(2 * threads);
    if (size > CHECKQUEUE_BATCH_SIZE) {
        size = CHECKQUEUE_BATCH_SIZE;
    }
    if (size < 1) {
        size = 1;
    }
    *s = j->next;
    *e = j->next + size < end ? j->next + size : end;
    j->next = *e;
    j->batches++;
    return 1;
}

/* Checks inputs [s, e) without the lock. Returns the number of checks run; *fail_k is the
 * failing input (SIZE_MAX if none) with *err its error. */
static size_t run_batch(struct checkqueue *q, struct job *j, size_t s, size_t e, size_t *fail_k,
                        enum script_error *err)
{
    size_t t = 1, lo = 1, hi = j->b->tx_count;
    /* The transaction of input s: the last t with first[t] <= s (and inputs of its own). */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->first[mid] <= s) {
            t = mid;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    size_t ran = 0;
    *fail_k = SIZE_MAX;
    for (size_t k = s; k < e; k++) {
        if (k > atomic_load_explicit(&j->first_fail, memory_order_relaxed) ||
            atomic_load_explicit(&q->interrupted, memory_order_relaxed) ||
            atomic_load_explicit(&j->cancelled, memory_order_relaxed)) {
            break;
        }
        while (j->first[t + 1] <= k) {
            t++;
        }
        const struct tx *tx = &j->b->txs[t];
        ran++;
        size_t i = k - j->first[t];
        if (!script_verify_input(tx, i, &j->spent[t][i], &j->pd[t], j->flags, j->cache, j->store,
                                 err)) {
            *fail_k = k;
            break;
        }
    }
    return ran;
}

/* Accounts a finished batch. Caller holds mu. */
static void job_finish_batch(struct job *j, size_t ran, size_t fail_k, enum script_error err)
{
    j->checked += ran;
    if (fail_k < atomic_load_explicit(&j->first_fail, memory_order_relaxed)) {
        j->fail_err = err;
        atomic_store_explicit(&j->first_fail, fail_k, memory_order_relaxed);
    }
}

static void *worker_main(void *arg)
{
    struct checkqueue *q = arg;
    char name[32];
    snprintf(name, sizeof(name), "scriptch.%d", atomic_fetch_add(&q->names, 1));
    log_thread_rename(name);
    pthread_mutex_lock(&q->mu);
    for (;;) {
        size_t s, e;
        struct job *j = q->job;
        if (q->stop) {
            break;
        }
        if (!j || atomic_load(&q->interrupted) || !job_grab(j, q->n_workers + 1, &s, &e)) {
            q->idle++;
            pthread_cond_wait(&q->work_cv, &q->mu);
            q->idle--;
            continue;
        }
        j->active++;
        pthread_mutex_unlock(&q->mu);

        size_t fail_k;
        enum script_error err = SCRIPT_ERR_OK;
        uint64_t t0 = time_mono_ns();
        size_t ran = run_batch(q, j, s, e, &fail_k, &err);
        atomic_fetch_add(&q->worker_busy_ns, time_mono_ns() - t0);

        pthread_mutex_lock(&q->mu);
        job_finish_batch(j, ran, fail_k, err);
        j->active--;
        if (j->active == 0) {
            pthread_cond_signal(&q->done_cv);
        }
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

struct checkqueue *checkqueue_new(int n_workers)
{
    struct checkqueue *q = xcalloc(1, sizeof(*q));
    if (n_workers < 0) {
        n_workers = 0;
    }
    if (n_workers > CHECKQUEUE_MAX_WORKERS) {
        n_workers = CHECKQUEUE_MAX_WORKERS;
    }
    CHECK_ALWAYS(pthread_mutex_init(&q->mu, NULL) == 0);
    CHECK_ALWAYS(pthread_cond_init(&q->work_cv, NULL) == 0);
    CHECK_ALWAYS(pthread_cond_init(&q->done_cv, NULL) == 0);
    atomic_init(&q->interrupted, 0);
    atomic_init(&q->names, 0);
    q->threads = xcalloc((size_t)n_workers + 1, sizeof(pthread_t));
    for (int i = 0; i < n_workers; i++) {
        CHECK_ALWAYS(pthread_create(&q->threads[i], NULL, worker_main, q) == 0);
        q->n_workers = i + 1;
    }
    return q;
}

void checkqueue_free(struct checkqueue *q)
{
    if (!q) {
        return;
    }
    pthread_mutex_lock(&q->mu);
    CHECK_ALWAYS(q->job == NULL);
    q->stop = 1;
    pthread_cond_broadcast(&q->work_cv);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < q->n_workers; i++) {
        pthread_join(q->threads[i], NULL);
    }
    pthread_cond_destroy(&q->done_cv);
    pthread_cond_destroy(&q->work_cv);
    pthread_mutex_destroy(&q->mu);
    free(q->threads);
    free(q);
}

int checkqueue_workers(const struct checkqueue *q)
{
    return q->n_workers;
}

void checkqueue_interrupt(struct checkqueue *q)
{
    atomic_store(&q->interrupted, 1);
    pthread_mutex_lock(&q->mu);
    pthread_cond_broadcast(&q->work_cv);
    pthread_mutex_unlock(&q->mu);
}

/* Makes [0, avail) available to the workers, waking idle ones. Caller holds mu. */
static void job_publish(struct checkqueue *q, struct job *j, size_t avail)
{
    j->avail = avail;
    if (q->idle > 0) {
        pthread_cond_broadcast(&q->work_cv);
    }
}

int checkqueue_block_begin(struct checkqueue *q, const struct block *b, uint32_t flags,
                           struct sigcache *sigcache, int sigcache_store)
{
    CHECK_ALWAYS(!q->open);
    if (atomic_load(&q->interrupted)) {
        return CHECKQUEUE_INTERRUPTED;
    }
    size_t ntx = b->tx_count ? b->tx_count : 1;
    struct job *j = &q->cur;
    memset(j, 0, sizeof(*j));
    j->first = xmalloc((ntx + 1) * sizeof(*j->first));
    j->first[0] = 0;
    j->first[1] = 0;
    for (size_t t = 1; t < b->tx_count; t++) {
        j->first[t + 1] = j->first[t] + b->txs[t].vin_count;
    }
    j->b = b;
    j->n = j->first[ntx];
    j->spent = xcalloc(ntx, sizeof(*j->spent));
    j->pd = xmalloc(ntx * sizeof(*j->pd));
    j->flags = flags;
    j->cache = sigcache;
    j->store = sigcache_store;
    j->next_tx = 1;
    atomic_init(&j->first_fail, SIZE_MAX);
    atomic_init(&j->cancelled, 0);
    j->t_start = time_mono_ns();
    q->open = 1;
    if (q->n_workers > 0 && j->n > 0) {
        pthread_mutex_lock(&q->mu);
        q->job = j;
        pthread_mutex_unlock(&q->mu);
    }
    return RC_OK;
}

int checkqueue_block_add_tx(struct checkqueue *q, size_t tx_idx, const struct tx_out *spent,
                            size_t n_spent)
{
    struct job *j = &q->cur;
    CHECK_ALWAYS(q->open);
    if (tx_idx != j->next_tx || tx_idx >= j->b->tx_count ||
        n_spent != j->b->txs[tx_idx].vin_count) {
        return RC_USAGE;
    }
    j->next_tx++;
    j->spent[tx_idx] = spent;
    /* Nothing past a known failure is checked (nor anything once stopped): skip the
     * hashing too. */
    if (atomic_load_explicit(&j->first_fail, memory_order_relaxed) >= j->first[tx_idx] &&
        !atomic_load(&q->interrupted)) {
        sighash_precompute(&j->pd[tx_idx], &j->b->txs[tx_idx], spent, n_spent);
    }
    size_t upto = j->first[tx_idx + 1];
    if (q->n_workers > 0 &&
        (upto - j->published >= PUBLISH_INPUTS || tx_idx + 1 == j->b->tx_count)) {
        pthread_mutex_lock(&q->mu);
        job_publish(q, j, upto);
        pthread_mutex_unlock(&q->mu);
        j->published = upto;
    }
    return RC_OK;
}

int checkqueue_block_failed(struct checkqueue *q)
{
    return atomic_load_explicit(&q->cur.first_fail, memory_order_relaxed) != SIZE_MAX;
}

/* Waits until no worker is inside the caller's block and detaches it; frees its arrays. */
static void job_join(struct checkqueue *q, struct job *j)
{
    pthread_mutex_lock(&q->mu);
    while (j->active > 0) {
        pthread_cond_wait(&q->done_cv, &q->mu);
    }
    q->job = NULL;
    pthread_mutex_unlock(&q->mu);
}

static void job_release(struct checkqueue *q, struct job *j)
{
    free(j->first);
    free(j->spent);
    free(j->pd);
    j->first = NULL;
    j->spent = NULL;
    j->pd = NULL;
    q->open = 0;
}

void checkqueue_block_cancel(struct checkqueue *q)
{
    struct job *j = &q->cur;
    CHECK_ALWAYS(q->open);
    atomic_store(&j->cancelled, 1);
    job_join(q, j);
    job_release(q, j);
}

int checkqueue_block_finish(struct checkqueue *q, struct checkqueue_result *res)
{
    struct job *j = &q->cur;
    CHECK_ALWAYS(q->open);
    memset(res, 0, sizeof(*res));
    if (j->next_tx < j->b->tx_count) {
        checkqueue_block_cancel(q);
        return RC_USAGE;
    }
    if (q->n_workers == 0) {
        j->avail = j->n; /* no other thread: no lock needed */
    }
    int threads = q->n_workers + 1;

    /* Work through the queue alongside the workers, then wait for them to leave it. */
    uint64_t t_prepared = time_mono_ns();
    pthread_mutex_lock(&q->mu);
    for (;;) {
        size_t s, e;
        if (atomic_load(&q->interrupted) || !job_grab(j, threads, &s, &e)) {
            break;
        }
        pthread_mutex_unlock(&q->mu);
        size_t fail_k;
        enum script_error err = SCRIPT_ERR_OK;
        size_t ran = run_batch(q, j, s, e, &fail_k, &err);
        q->stats.master_checks += ran;
        pthread_mutex_lock(&q->mu);
        job_finish_batch(j, ran, fail_k, err);
    }
    pthread_mutex_unlock(&q->mu);
    uint64_t t_checked = time_mono_ns();
    job_join(q, j);
    uint64_t t_end = time_mono_ns();
    q->stats.prepare_ns += t_prepared - j->t_start;
    q->stats.check_ns += t_checked - t_prepared;
    q->stats.wait_ns += t_end - t_checked;

    size_t ff = atomic_load(&j->first_fail);
    int rc = RC_OK;
    q->stats.blocks++;
    q->stats.batches += j->batches;
    q->stats.inputs += j->checked;
    res->inputs_checked = j->checked;
    if (atomic_load(&q->interrupted)) {
        rc = CHECKQUEUE_INTERRUPTED; /* some input below a failure may not have run */
    } else if (ff != SIZE_MAX) {
        /* Every input below ff was checked and passed: ff is the serial verdict. */
        size_t t = 1;
        while (j->first[t + 1] <= ff) {
            t++;
        }
        res->failed = 1;
        res->fail_tx = t;
        res->fail_in = ff - j->first[t];
        res->err = j->fail_err;
    } else {
        CHECK_ALWAYS(j->checked == j->n);
    }
    job_release(q, j);
    return rc;
}

int checkqueue_verify_block(struct checkqueue *q, struct checkqueue_result *res,
                            const struct block *b, const struct tx_out *spent, size_t n_spent,
                            uint32_t flags, struct sigcache *sigcache, int sigcache_store)
{
    size_t n = 0;
    memset(res, 0, sizeof(*res));
    for (size_t t = 1; t < b->tx_count; t++) {
        n += b->txs[t].vin_count;
    }
    if (n != n_spent) {
        return RC_USAGE;
    }
    if (!q) {
        struct checkqueue *alone = checkqueue_new(0);
        int rc =
            checkqueue_verify_block(alone, res, b, spent, n_spent, flags, sigcache, sigcache_store);
        checkqueue_free(alone);
        return rc;
    }
    int rc = checkqueue_block_begin(q, b, flags, sigcache, sigcache_store);
    if (rc) {
        return rc;
    }
    size_t k = 0;
    for (size_t t = 1; t < b->tx_count; t++) {
        CHECK_ALWAYS(checkqueue_block_add_tx(q, t, spent + k, b->txs[t].vin_count) == RC_OK);
        k += b->txs[t].vin_count;
    }
    return checkqueue_block_finish(q, res);
}

void checkqueue_get_stats(const struct checkqueue *q, struct checkqueue_stats *out)
{
    *out = q->stats;
    out->worker_busy_ns = atomic_load(&((struct checkqueue *)q)->worker_busy_ns);
}
