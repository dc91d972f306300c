/* The index thread every optional index shares (base.h). */
#include "index/base.h"

#include <pthread.h>
#include <stdio.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <string.h>
#include <time.h>

#include "blockstore/blockindex.h"
#include "coins/undo.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

/* Blocks written per batch while catching up. */
#define BATCH_BLOCKS 500
/* An index thread waits until the tip has not moved for this long: while blocks are being
 * connected one after another (an import, IBD) it leaves the cores to them, and catches up
 * in the pauses and after. */
#define QUIET_NS (250ull * 1000 * 1000)
/* Disconnected blocks remembered between two looks of the thread. */
#define STALE_MAX 1024

struct index_base {
    struct chainstate *cs;
    const struct index_ops *ops;
    void *ctx;
    struct kv *kv;
    struct kv_batch *batch; /* the thread's */
    size_t in_batch;
    struct block_index *cur; /* the thread's: the block the state is at, NULL: none */
    struct chainstate_listener listener;
    pthread_t thread;
    pthread_mutex_t mu;     /* a leaf: guards what follows */
    pthread_cond_t wake_cv; /* the thread waits for a tip change or stop */
    pthread_cond_t done_cv; /* waiters for progress */
    int stop, wake, failed;
    int idling;               /* the thread waits in idle() (on_tip wakes only then) */
    int waiters;              /* in index_base_wait_synced: the thread does not wait for a
                                 still tip meanwhile */
    struct block_index *best; /* the last block whose records are written, NULL: none */
    uint64_t last_tip_ns;     /* time_mono_ns of the last tip change */
    int defer;                /* wait for a still tip (not in prune mode: see wait_quiet) */
    int synced;               /* reached the tip once */
    /* Blocks disconnected since the thread last looked, newest first (index_stale). */
    struct block_index *gone[STALE_MAX];
    size_t n_gone;
};

static void on_tip(void *ctx, const struct block_index *tip)
{
    (void)tip;
    struct index_base *x = ctx;
    pthread_mutex_lock(&x->mu);
    x->wake = 1;
    x->last_tip_ns = time_mono_ns();
    if (x->idling) {
        /* Only a thread waiting for a tip is woken: one waiting for a quiet tip looks at
         * last_tip_ns when its timer ends (a wake-up per block per index cost an import
         * ~10% of two cores). */
        pthread_cond_signal(&x->wake_cv);
    }
    pthread_mutex_unlock(&x->mu);
}

/* Waits until the tip has been still for QUIET_NS (or stop); 1 when stopping. Not in prune
 * mode: there the index's prune lock holds back every file it has not indexed, so it keeps
 * up with the chain (as Core's indexes do) rather than let the block files grow. */
static int wait_quiet(struct index_base *x)
{
    pthread_mutex_lock(&x->mu);
    for (;;) {
        uint64_t now = time_mono_ns();
        if (x->stop || !x->defer || x->waiters || now - x->last_tip_ns >= QUIET_NS) {
            break;
        }
        struct timespec until = time_deadline(CLOCK_REALTIME, QUIET_NS - (now - x->last_tip_ns));
        pthread_cond_timedwait(&x->wake_cv, &x->mu, &until);
    }
    int stop = x->stop;
    pthread_mutex_unlock(&x->mu);
    return stop;
}

static void on_disconnected(void *ctx, struct chainstate *cs, const struct block_index *e,
                            const struct block *b)
{
    (void)cs;
    (void)b;
    struct index_base *x = ctx;
    pthread_mutex_lock(&x->mu);
    if (x->n_gone < STALE_MAX) {
        x->gone[x->n_gone++] = (struct block_index *)e;
    }
    pthread_mutex_unlock(&x->mu);
}

/* Writes the batch with the state and the best block, then publishes cur as written. */
static int commit(struct index_base *x)
{
    if (x->in_batch == 0 && kv_batch_count(x->batch) == 0) {
        return RC_OK;
    }
    if (x->ops->commit) {
        x->ops->commit(x->ctx, x->batch);
    }
    if (x->cur) {
        kv_batch_put(x->batch, "B", 1, x->cur->hash, 32);
    } else {
        kv_batch_delete(x->batch, "B", 1);
    }
    int rc = kv_write(x->kv, x->batch, 0);
    kv_batch_clear(x->batch);
    x->in_batch = 0;
    if (rc == RC_OK) {
        /* Pruning keeps what the index has not written (Core's prune lock). */
        (void)chainstate_set_prune_lock(x->cs, x->ops->name, x->cur ? x->cur->height : 0);
        pthread_mutex_lock(&x->mu);
        x->best = x->cur;
        pthread_cond_broadcast(&x->done_cv);
        pthread_mutex_unlock(&x->mu);
        chainstate_crash_point(x->cs, x->ops->name);
    }
    return rc;
}

/* Reads e's block and undo data (e: a copy of the tree entry taken under the chain lock; the
 * data is only ever appended to its files, so it is read without the lock). */
static int read_block(struct index_base *x, const struct block_index *e, struct block *b,
                      struct block_undo *u)
{
    struct buf raw;
    char err[128];
    buf_init(&raw);
    int rc = chainstate_read_block(x->cs, e, &raw);
    if (rc == RC_OK) {
        rc = block_parse(b, raw.data, raw.len, err, sizeof(err)) ? RC_CORRUPT : RC_OK;
    }
    if (rc == RC_OK && e->height > 0 && !x->ops->no_undo) {
        rc = chainstate_read_undo(x->cs, e, u);
    }
    buf_clear(&raw);
    return rc;
}

/* Runs append (remove: 0) or remove (1) for e. */
static int apply(struct index_base *x, const struct block_index *e, int remove)
{
    struct block b;
    struct block_undo u;
    block_init(&b);
    block_undo_init(&u);
    int rc = read_block(x, e, &b, &u);
    if (rc == RC_OK) {
        rc = remove ? x->ops->remove(x->ctx, x->kv, x->batch, e, &b, &u)
                    : x->ops->append(x->ctx, x->kv, x->batch, e, &b, &u);
    }
    block_undo_clear(&u);
    block_clear(&b);
    x->in_batch += rc == RC_OK;
    return rc;
}

/* The tree entry of a copy (looked up again under the lock). */
static struct block_index *entry_of(struct index_base *x, const struct block_index *copy)
{
    chainstate_read_lock(x->cs);
    struct block_index *e = block_tree_find(chainstate_tree(x->cs), copy->hash);
    chainstate_read_unlock(x->cs);
    return e;
}

/* Back from cur to fork (an ancestor of cur), written in one batch. */
static int rewind_to(struct index_base *x, struct block_index *fork)
{
    int rc = commit(x);
    if (!x->ops->remove) {
        x->cur = fork;
        if (rc == RC_OK) {
            rc = x->ops->load(x->ctx, x->kv, fork);
        }
    }
    while (rc == RC_OK && x->cur != fork) {
        struct block_index copy;
        chainstate_read_lock(x->cs);
        copy = *x->cur;
        chainstate_read_unlock(x->cs);
        if ((rc = apply(x, &copy, 1)) == RC_OK) {
            x->cur = copy.prev;
        }
    }
    x->in_batch += rc == RC_OK;
    return rc == RC_OK ? commit(x) : rc;
}

/* The next block of the active chain to index, copied into *next (0 when there is one, 1
 * at the tip); after a reorg, first back to the fork point. */
static int next_block(struct index_base *x, struct block_index *next)
{
    struct chainstate *cs = x->cs;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs), *cur = x->cur, *e = NULL;
    struct block_index *fork =
        cur && !chainstate_contains(cs, cur) && tip ? block_index_fork_point(cur, tip) : cur;
    int h = fork ? fork->height + 1 : 0;
    int missing = 0;
    if (tip && h <= tip->height) {
        e = chainstate_at_height(cs, h);
        *next = *e;
        /* Below a UTXO snapshot's base, a block may not be here yet (nor its undo data, until
         * the background chainstate connects it). */
        missing = !(e->status & BLOCK_HAVE_DATA) || (e->height > 0 && !(e->status & BLOCK_HAVE_UNDO));
    }
    chainstate_read_unlock(cs);
    if (!e) {
        /* Blocks only disconnected: as Core's, the index rewinds when a block is connected
         * on top of the fork point, and until then answers for the blocks it has. */
        return 1;
    }
    if (missing) {
        return 2;
    }
    return fork != cur ? rewind_to(x, fork) : RC_OK;
}

/* Waits for a tip change (caught up), or a second (waiting for a block's data); 1 when
 * stopping. */
static int idle(struct index_base *x, int caught_up)
{
    pthread_mutex_lock(&x->mu);
    if (caught_up && !x->synced) {
        LOG_INFO("%s is enabled at height %d", x->ops->name, x->best ? x->best->height : -1);
        x->synced = 1;
    }
    pthread_cond_broadcast(&x->done_cv);
    struct timespec until = time_deadline(CLOCK_REALTIME, 1000000000ull);
    x->idling = 1;
    while (!x->wake && !x->stop) {
        if (caught_up) {
            pthread_cond_wait(&x->wake_cv, &x->mu);
        } else if (pthread_cond_timedwait(&x->wake_cv, &x->mu, &until) != 0) {
            break;
        }
    }
    x->idling = 0;
    x->wake = 0;
    int stop = x->stop;
    pthread_mutex_unlock(&x->mu);
    return stop;
}

/* 1 if e's parent will get records: it is on the active chain above cur (the index has yet to
 * reach it), or it waits in keep[0..k) itself. Chain lock held. */
static int parent_coming(struct index_base *x, const struct block_index *e,
                         struct block_index *const *keep, size_t k)
{
    const struct block_index *p = e->prev;
    if (chainstate_contains(x->cs, p) && (!x->cur || p->height > x->cur->height)) {
        return 1;
    }
    for (size_t i = 0; i < k; i++) {
        if (keep[i] == p) {
            return 1;
        }
    }
    return 0;
}

/* Puts keep[0..k) (oldest first) back behind what was disconnected meanwhile (newest first). */
static void put_back(struct index_base *x, struct block_index *const *keep, size_t k)
{
    pthread_mutex_lock(&x->mu);
    for (size_t i = k; i-- > 0 && x->n_gone < STALE_MAX;) {
        x->gone[x->n_gone++] = keep[i];
    }
    pthread_mutex_unlock(&x->mu);
}

/* The blocks disconnected since the last look that have no records yet, oldest first, each
 * on its parent's state; one whose parent has no records yet waits for them when they will
 * come (the index was behind the chain when they left it: they are indexed once it passes
 * their parent, as Core indexes every block connected), else it is left out. The state goes
 * back to cur. */
static int index_stale(struct index_base *x)
{
    struct block_index *gone[STALE_MAX], *keep[STALE_MAX];
    size_t k = 0;
    pthread_mutex_lock(&x->mu);
    size_t n = x->n_gone;
    memcpy(gone, x->gone, n * sizeof(gone[0]));
    x->n_gone = 0;
    pthread_mutex_unlock(&x->mu);
    if (n == 0) {
        return RC_OK;
    }
    int rc = commit(x), moved = 0;
    for (size_t i = n; rc == RC_OK && i-- > 0;) {
        struct block_index copy;
        chainstate_read_lock(x->cs);
        copy = *gone[i];
        int wait = copy.prev && !x->ops->has(x->ctx, x->kv, copy.prev->hash) &&
                   parent_coming(x, gone[i], keep, k);
        chainstate_read_unlock(x->cs);
        if (wait) {
            keep[k++] = gone[i];
            continue;
        }
        if (x->ops->has(x->ctx, x->kv, copy.hash) || !copy.prev ||
            !x->ops->has(x->ctx, x->kv, copy.prev->hash)) {
            continue;
        }
        moved = 1;
        if ((rc = x->ops->load(x->ctx, x->kv, copy.prev)) == RC_OK &&
            (rc = apply(x, &copy, 0)) == RC_OK) {
            rc = kv_write(x->kv, x->batch, 0);
            kv_batch_clear(x->batch);
            x->in_batch = 0;
            if (rc == RC_OK) {
                chainstate_crash_point(x->cs, x->ops->name);
            }
        }
    }
    put_back(x, keep, k);
    return rc == RC_OK && moved ? x->ops->load(x->ctx, x->kv, x->cur) : rc;
}

/* The index threads yield the CPU to block connection: at the lowest priority (nice 19)
 * they take a core only when validation leaves it, and catch up once the import is done
 * (the "never slowing block connection by more than 5%"). */
static void lower_priority(void)
{
#ifdef __linux__
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
#endif
}

static void *run(void *arg)
{
    struct index_base *x = arg;
    int rc = RC_OK;
    log_thread_start(x->ops->thread_name);
    lower_priority();
    for (;;) {
        pthread_mutex_lock(&x->mu);
        int stop = x->stop;
        pthread_mutex_unlock(&x->mu);
        if (stop) {
            break;
        }
        struct block_index next;
        rc = next_block(x, &next);
        if (rc == 1 || rc == 2) {
            int caught_up = rc == 1;
            if ((rc = index_stale(x)) != RC_OK || (rc = commit(x)) != RC_OK || idle(x, caught_up)) {
                break;
            }
            continue;
        }
        if (rc != RC_OK || wait_quiet(x) || (rc = index_stale(x)) != RC_OK ||
            (rc = apply(x, &next, 0)) != RC_OK) {
            break;
        }
        x->cur = entry_of(x, &next);
        if (x->in_batch >= BATCH_BLOCKS && (rc = commit(x)) != RC_OK) {
            break;
        }
    }
    if (rc == RC_OK || rc == 1) {
        rc = commit(x);
    }
    if (rc != RC_OK) {
        LOG_ERROR("%s: stopped (%s)", x->ops->name, rc_str(rc));
        pthread_mutex_lock(&x->mu);
        x->failed = 1;
        pthread_cond_broadcast(&x->done_cv);
        pthread_mutex_unlock(&x->mu);
        if (rc == RC_BACKEND || rc == RC_IO) {
            /* Core's BaseIndex::FatalErrorf: the index's store failed (a full disk, damage):
             * the node stops as for its own stores (AbortNode: the store's message, from
             * this thread's kv_last_error, on the console and in the log). */
            chainstate_notify_fatal(x->cs, rc);
        }
    }
    log_thread_exit(x->ops->thread_name);
    return NULL;
}

/* Where a previous run stopped: its best block if the tree still knows it, and the index's
 * state there. */
static int load_best(struct index_base *x)
{
    struct buf v;
    buf_init(&v);
    int rc = kv_get(x->kv, &v, "B", 1);
    if (rc == RC_NOT_FOUND) {
        rc = RC_OK;
    } else if (rc == RC_OK && v.len != 32) {
        rc = RC_CORRUPT;
    } else if (rc == RC_OK) {
        chainstate_read_lock(x->cs);
        x->cur = block_tree_find(chainstate_tree(x->cs), v.data);
        chainstate_read_unlock(x->cs);
    }
    buf_clear(&v);
    if (rc == RC_OK) {
        rc = x->ops->load(x->ctx, x->kv, x->cur);
    }
    x->best = x->cur;
    return rc;
}

/* Core's start-up check of an index on a pruned node: from where the index stands (its
 * fork point with the active chain) to the tip, every block must still have its data and
 * undo data (and with a rewind, every block back to that fork point), or the index could
 * never catch up. 1 if one is missing. */
static int beyond_pruned_data(struct index_base *x)
{
    const uint32_t mask = BLOCK_HAVE_DATA | (x->ops->no_undo ? 0 : BLOCK_HAVE_UNDO);
    int missing = 0;
    struct chainstate_prune_info pi;
    chainstate_read_lock(x->cs);
    chainstate_prune_info(x->cs, &pi);
    struct block_index *tip = chainstate_tip(x->cs);
    if (pi.have_pruned && tip && tip->height > 0 && x->cur != tip) {
        struct block_index *from = x->cur ? block_index_fork_point(x->cur, tip) : NULL;
        for (struct block_index *e = tip; e && e != from && e->height > 0 && !missing;
             e = e->prev) {
            missing = (e->status & mask) != mask;
        }
        for (struct block_index *e = x->ops->remove ? x->cur : NULL;
             e && e != from && e->height > 0 && !missing; e = e->prev) {
            missing = (e->status & mask) != mask;
        }
    }
    chainstate_read_unlock(x->cs);
    return missing;
}

static int open_store(struct index_base *x, const struct kv_ops *ops_kv, const char *dir,
                      char *err, size_t err_len)
{
    struct kv_options o;
    kv_options_init(&o);
    int rc = kv_open(&x->kv, ops_kv ? ops_kv : kv_default_ops(), dir, &o);
    if (rc == RC_OK && (rc = load_best(x)) != RC_OK) {
        kv_close(x->kv);
    }
    if (rc != RC_OK) {
        snprintf(err, err_len, "cannot open the %s %s: %s", x->ops->name, dir,
                 rc == RC_CORRUPT ? "its records are damaged" : kv_last_error(NULL));
        return rc;
    }
    if (beyond_pruned_data(x)) {
        snprintf(err, err_len,
                 "%s best block of the index goes beyond pruned data (including undo data). "
                 "Please disable the index or reindex (which will download the whole "
                 "blockchain again)",
                 x->ops->name);
        kv_close(x->kv);
        return RC_INVALID;
    }
    return RC_OK;
}

int index_base_start(struct index_base **out, struct chainstate *cs, const struct kv_ops *ops_kv,
                     const char *dir, const struct index_ops *iops, void *ctx, char *err,
                     size_t err_len)
{
    struct index_base *x = xcalloc(1, sizeof(*x));
    x->cs = cs;
    x->ops = iops;
    x->ctx = ctx;
    int rc = open_store(x, ops_kv, dir, err, err_len);
    if (rc != RC_OK) {
        free(x);
        return rc;
    }
    struct chainstate_prune_info pi;
    chainstate_read_lock(cs);
    chainstate_prune_info(cs, &pi);
    chainstate_read_unlock(cs);
    x->defer = !pi.prune_mode;
    x->batch = kv_batch_new();
    (void)chainstate_set_prune_lock(cs, iops->name, x->cur ? x->cur->height : 0);
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->wake_cv, NULL);
    pthread_cond_init(&x->done_cv, NULL);
    x->listener = (struct chainstate_listener){
        .tip_changed = on_tip, .block_disconnected = iops->index_stale ? on_disconnected : NULL,
        .ctx = x};
    if ((rc = chainstate_add_listener(cs, &x->listener)) == RC_OK &&
        pthread_create(&x->thread, NULL, run, x) != 0) {
        chainstate_remove_listener(cs, &x->listener);
        rc = RC_IO;
    }
    if (rc != RC_OK) {
        snprintf(err, err_len, "cannot start the %s", iops->name);
        (void)chainstate_set_prune_lock(cs, iops->name, -1);
        kv_batch_free(x->batch);
        kv_close(x->kv);
        free(x);
        return rc;
    }
    *out = x;
    return RC_OK;
}

void index_base_stop(struct index_base *x)
{
    if (!x) {
        return;
    }
    pthread_mutex_lock(&x->mu);
    x->stop = 1;
    pthread_cond_signal(&x->wake_cv);
    pthread_cond_broadcast(&x->done_cv);
    pthread_mutex_unlock(&x->mu);
    pthread_join(x->thread, NULL);
    chainstate_remove_listener(x->cs, &x->listener);
    (void)chainstate_set_prune_lock(x->cs, x->ops->name, -1);
    kv_batch_free(x->batch);
    kv_close(x->kv);
    pthread_cond_destroy(&x->done_cv);
    pthread_cond_destroy(&x->wake_cv);
    pthread_mutex_destroy(&x->mu);
    free(x);
}

struct kv *index_base_kv(struct index_base *x)
{
    return x->kv;
}

void index_base_summary(struct index_base *x, int *synced, int *best_height)
{
    pthread_mutex_lock(&x->mu);
    *synced = x->synced;
    *best_height = x->best ? x->best->height : 0;
    pthread_mutex_unlock(&x->mu);
}

int index_base_wait_synced(struct index_base *x)
{
    chainstate_read_lock(x->cs);
    struct block_index *tip = chainstate_tip(x->cs);
    chainstate_read_unlock(x->cs);
    pthread_mutex_lock(&x->mu);
    int ok = x->synced;
    x->waiters++;
    pthread_cond_signal(&x->wake_cv); /* out of wait_quiet */
    /* Bounded: a tip that left the chain meanwhile is never reached. */
    for (int waited = 0; ok && tip && waited < 60 && !x->stop && !x->failed &&
                         !(x->best && x->best->height >= tip->height &&
                           block_index_ancestor(x->best, tip->height) == tip);
         waited++) {
        struct timespec until = time_deadline(CLOCK_REALTIME, 1000000000ull);
        pthread_cond_timedwait(&x->done_cv, &x->mu, &until);
    }
    x->waiters--;
    pthread_mutex_unlock(&x->mu);
    return ok;
}

struct block_index *index_base_best(struct index_base *x)
{
    pthread_mutex_lock(&x->mu);
    struct block_index *e = x->best;
    pthread_mutex_unlock(&x->mu);
    return e;
}
