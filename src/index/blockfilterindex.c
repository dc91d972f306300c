/* The block filter index (blockfilterindex.h). Records of its store:
 *
 *   'F' hash[32]  ->  filter_header[32] filter (BIP158 encoding)
 *   'B'           ->  hash[32] of the block the index is complete up to on its chain
 *
 * written together, a batch at a time, so a kill leaves a consistent store that the next
 * start continues from.
 */
#include "index/blockfilterindex.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "blockstore/blockindex.h"
#include "coins/undo.h"
#include "index/blockfilter.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

/* Blocks written per batch while catching up. */
#define BATCH_BLOCKS 500
/* Disconnected blocks remembered between two looks of the thread. */
#define STALE_MAX 1024

struct blockfilter_index {
    struct chainstate *cs;
    struct kv *kv;
    struct kv_batch *batch; /* the thread's */
    size_t in_batch;
    struct chainstate_listener listener;
    pthread_t thread;
    pthread_mutex_t mu;     /* a leaf: guards what follows */
    pthread_cond_t wake_cv; /* the thread waits for a tip change or stop */
    pthread_cond_t done_cv; /* waiters for progress */
    int stop, wake, failed;
    struct block_index *best; /* the last block indexed (tree entry), NULL: none */
    uint8_t best_header[32];  /* its filter header (zeros before genesis) */
    int synced;               /* reached the tip once */
    /* Blocks disconnected since the thread last looked, newest first: some may have come
     * and gone between two of its looks, and Core keeps a filter for every block that was
     * connected. Bounded; past it the oldest are not indexed. */
    struct block_index *gone[STALE_MAX];
    size_t n_gone;
};

static void on_tip(void *ctx, const struct block_index *tip)
{
    (void)tip;
    struct blockfilter_index *x = ctx;
    pthread_mutex_lock(&x->mu);
    x->wake = 1;
    pthread_cond_signal(&x->wake_cv);
    pthread_mutex_unlock(&x->mu);
}

static void on_disconnected(void *ctx, struct chainstate *cs, const struct block_index *e,
                            const struct block *b)
{
    (void)cs;
    (void)b;
    struct blockfilter_index *x = ctx;
    pthread_mutex_lock(&x->mu);
    if (x->n_gone < STALE_MAX) {
        x->gone[x->n_gone++] = (struct block_index *)e;
    }
    pthread_mutex_unlock(&x->mu);
}

#define PRUNE_LOCK_NAME "basic block filter index"

static int commit(struct blockfilter_index *x)
{
    if (x->in_batch == 0 && kv_batch_count(x->batch) == 0) {
        return RC_OK;
    }
    if (x->best) {
        kv_batch_put(x->batch, "B", 1, x->best->hash, 32);
    }
    int rc = kv_write(x->kv, x->batch, 0);
    kv_batch_clear(x->batch);
    x->in_batch = 0;
    if (rc == RC_OK) {
        /* Pruning keeps what the index has not committed (Core's prune lock). */
        (void)chainstate_set_prune_lock(x->cs, PRUNE_LOCK_NAME, x->best ? x->best->height : 0);
    }
    return rc;
}

/* The filter header stored for hash. */
static int stored_header(struct blockfilter_index *x, const uint8_t hash[32], uint8_t out[32])
{
    uint8_t key[33] = {'F'};
    memcpy(key + 1, hash, 32);
    struct buf v;
    buf_init(&v);
    int rc = kv_get(x->kv, &v, key, sizeof(key));
    if (rc == RC_OK && v.len < 32) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        memcpy(out, v.data, 32);
    }
    buf_clear(&v);
    return rc;
}

/* The next block of the active chain to index, copied into *next (0 when there is one, 1
 * at the tip); after a reorg, first back to the fork point. */
static int next_block(struct blockfilter_index *x, struct block_index *next)
{
    struct chainstate *cs = x->cs;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs), *best = x->best, *e = NULL;
    struct block_index *fork =
        best && !chainstate_contains(cs, best) && tip ? block_index_fork_point(best, tip) : best;
    int h = fork ? fork->height + 1 : 0;
    if (tip && h <= tip->height) {
        e = chainstate_at_height(cs, h);
        *next = *e;
    }
    chainstate_read_unlock(cs);
    if (fork != best) {
        /* Back to the fork point: what was written for the blocks after it stays (found by
         * hash); the chain goes on from the fork's header. */
        int rc = commit(x);
        uint8_t header[32] = {0};
        if (rc == RC_OK && fork) {
            rc = stored_header(x, fork->hash, header);
        }
        if (rc != RC_OK) {
            return rc;
        }
        pthread_mutex_lock(&x->mu);
        x->best = fork;
        memcpy(x->best_header, header, 32);
        pthread_mutex_unlock(&x->mu);
    }
    return e ? RC_OK : 1;
}

/* The spent scripts of a block, borrowed from its undo data. */
static struct bytes *spent_scripts(const struct block_undo *u, size_t *n)
{
    size_t k = 0;
    for (size_t t = 0; t < u->n; t++) {
        k += u->txs[t].n;
    }
    struct bytes *v = xmalloc((k ? k : 1) * sizeof(*v));
    *n = 0;
    for (size_t t = 0; t < u->n; t++) {
        for (size_t i = 0; i < u->txs[t].n; i++) {
            v[(*n)++] = u->txs[t].prev[i].script_pubkey;
        }
    }
    return v;
}

/* Puts e's record in the batch, its filter header in header (e: a copy of the tree entry
 * taken under the chain lock; its block and undo data are only ever appended to their
 * files, so they are read without it). */
static int index_block(struct blockfilter_index *x, const struct block_index *e, uint8_t header[32],
                       const uint8_t prev_header[32])
{
    struct buf raw, f;
    struct block b;
    struct block_undo undo;
    char err[128];
    buf_init(&raw);
    buf_init(&f);
    block_init(&b);
    block_undo_init(&undo);
    int rc = chainstate_read_block(x->cs, e, &raw);
    if (rc == RC_OK) {
        rc = block_parse(&b, raw.data, raw.len, err, sizeof(err)) ? RC_CORRUPT : RC_OK;
    }
    if (rc == RC_OK && e->height > 0) {
        rc = chainstate_read_undo(x->cs, e, &undo);
    }
    size_t n_prev = 0;
    struct bytes *prev = rc == RC_OK ? spent_scripts(&undo, &n_prev) : NULL;
    uint8_t fh[32], key[33] = {'F'};
    if (rc == RC_OK && (rc = blockfilter_basic(&b, prev, n_prev, &f)) == RC_OK) {
        blockfilter_hash(f.data, f.len, fh);
        blockfilter_header(fh, prev_header, header);
        struct buf v;
        buf_init(&v);
        buf_append(&v, header, 32);
        buf_append(&v, f.data, f.len);
        memcpy(key + 1, e->hash, 32);
        kv_batch_put(x->batch, key, sizeof(key), v.data, v.len);
        buf_clear(&v);
        x->in_batch++;
    }
    free(prev);
    block_undo_clear(&undo);
    block_clear(&b);
    buf_clear(&f);
    buf_clear(&raw);
    return rc;
}

/* Marks e indexed (its tree entry: looked up again, the copy is not kept). */
static void advance(struct blockfilter_index *x, const struct block_index *copy,
                    const uint8_t header[32])
{
    chainstate_read_lock(x->cs);
    struct block_index *e = block_tree_find(chainstate_tree(x->cs), copy->hash);
    chainstate_read_unlock(x->cs);
    pthread_mutex_lock(&x->mu);
    x->best = e;
    memcpy(x->best_header, header, 32);
    pthread_cond_broadcast(&x->done_cv);
    pthread_mutex_unlock(&x->mu);
}

/* Waits for a tip change; 1 when stopping. */
static int idle(struct blockfilter_index *x)
{
    pthread_mutex_lock(&x->mu);
    if (!x->synced) {
        LOG_INFO("basic block filter index is enabled at height %d",
                 x->best ? x->best->height : -1);
    }
    x->synced = 1;
    pthread_cond_broadcast(&x->done_cv);
    while (!x->wake && !x->stop) {
        pthread_cond_wait(&x->wake_cv, &x->mu);
    }
    x->wake = 0;
    int stop = x->stop;
    pthread_mutex_unlock(&x->mu);
    return stop;
}

/* Filters for the blocks disconnected since the last look that have none yet, oldest first
 * (each one's parent is indexed by then, or it is left out). */
static int index_stale(struct blockfilter_index *x)
{
    struct block_index *gone[STALE_MAX];
    pthread_mutex_lock(&x->mu);
    size_t n = x->n_gone;
    memcpy(gone, x->gone, n * sizeof(gone[0]));
    x->n_gone = 0;
    pthread_mutex_unlock(&x->mu);
    int rc = n ? commit(x) : RC_OK;
    for (size_t i = n; rc == RC_OK && i-- > 0;) {
        uint8_t prev[32], header[32];
        struct block_index copy;
        chainstate_read_lock(x->cs);
        copy = *gone[i];
        chainstate_read_unlock(x->cs);
        if (stored_header(x, copy.hash, header) == RC_OK || !copy.prev ||
            stored_header(x, copy.prev->hash, prev) != RC_OK) {
            continue; /* indexed already, or its parent was never indexed */
        }
        if ((rc = index_block(x, &copy, header, prev)) == RC_OK) {
            rc = commit(x);
        }
    }
    return rc;
}

static void *run(void *arg)
{
    struct blockfilter_index *x = arg;
    int rc = RC_OK;
    for (;;) {
        pthread_mutex_lock(&x->mu);
        int stop = x->stop;
        pthread_mutex_unlock(&x->mu);
        if (stop) {
            break;
        }
        struct block_index next;
        rc = next_block(x, &next);
        if (rc == 1) {
            if ((rc = index_stale(x)) != RC_OK || (rc = commit(x)) != RC_OK || idle(x)) {
                break;
            }
            continue;
        }
        uint8_t header[32];
        if (rc != RC_OK || (rc = index_stale(x)) != RC_OK ||
            (rc = index_block(x, &next, header, x->best_header)) != RC_OK) {
            break;
        }
        advance(x, &next, header);
        if (x->in_batch >= BATCH_BLOCKS && (rc = commit(x)) != RC_OK) {
            break;
        }
    }
    if (rc == RC_OK || rc == 1) {
        rc = commit(x);
    }
    if (rc != RC_OK) {
        LOG_ERROR("basic block filter index: stopped (%s)", rc_str(rc));
        pthread_mutex_lock(&x->mu);
        x->failed = 1;
        pthread_cond_broadcast(&x->done_cv);
        pthread_mutex_unlock(&x->mu);
    }
    return NULL;
}

/* Where a previous run stopped: its best block if the chain still knows it. */
static int load_best(struct blockfilter_index *x)
{
    struct buf v;
    buf_init(&v);
    int rc = kv_get(x->kv, &v, "B", 1);
    if (rc == RC_NOT_FOUND) {
        buf_clear(&v);
        return RC_OK;
    }
    if (rc == RC_OK && v.len != 32) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        chainstate_read_lock(x->cs);
        x->best = block_tree_find(chainstate_tree(x->cs), v.data);
        chainstate_read_unlock(x->cs);
        if (x->best) {
            rc = stored_header(x, x->best->hash, x->best_header);
        }
    }
    buf_clear(&v);
    return rc;
}

/* Core's start-up check of an index on a pruned node: from where the index stands (its
 * fork point with the active chain) to the tip, every block must still have its data and
 * undo data, or the index could never catch up. 1 if one is missing. */
static int beyond_pruned_data(struct blockfilter_index *x)
{
    const uint32_t mask = BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO;
    int missing = 0;
    struct chainstate_prune_info pi;
    chainstate_read_lock(x->cs);
    chainstate_prune_info(x->cs, &pi);
    struct block_index *tip = chainstate_tip(x->cs);
    if (pi.have_pruned && tip && tip->height > 0 && x->best != tip) {
        struct block_index *from = x->best ? block_index_fork_point(x->best, tip) : NULL;
        for (struct block_index *e = tip; e && e != from && e->height > 0 && !missing;
             e = e->prev) {
            missing = (e->status & mask) != mask;
        }
    }
    chainstate_read_unlock(x->cs);
    return missing;
}

int blockfilter_index_start(struct blockfilter_index **out, struct chainstate *cs,
                            const struct kv_ops *ops, const char *dir, char *err, size_t err_len)
{
    struct blockfilter_index *x = xcalloc(1, sizeof(*x));
    struct kv_options o;
    kv_options_init(&o);
    x->cs = cs;
    int rc = kv_open(&x->kv, ops ? ops : kv_default_ops(), dir, &o);
    if (rc == RC_OK && (rc = load_best(x)) != RC_OK) {
        kv_close(x->kv);
    }
    if (rc != RC_OK) {
        snprintf(err, err_len, "cannot open the block filter index %s: %s", dir,
                 rc == RC_CORRUPT ? "its records are damaged" : kv_last_error(NULL));
        free(x);
        return rc;
    }
    if (beyond_pruned_data(x)) {
        snprintf(err, err_len,
                 "%s best block of the index goes beyond pruned data (including undo data). "
                 "Please disable the index or reindex (which will download the whole "
                 "blockchain again)",
                 PRUNE_LOCK_NAME);
        kv_close(x->kv);
        free(x);
        return RC_INVALID;
    }
    x->batch = kv_batch_new();
    (void)chainstate_set_prune_lock(cs, PRUNE_LOCK_NAME, x->best ? x->best->height : 0);
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->wake_cv, NULL);
    pthread_cond_init(&x->done_cv, NULL);
    x->listener = (struct chainstate_listener){
        .tip_changed = on_tip, .block_disconnected = on_disconnected, .ctx = x};
    if ((rc = chainstate_add_listener(cs, &x->listener)) == RC_OK &&
        pthread_create(&x->thread, NULL, run, x) != 0) {
        chainstate_remove_listener(cs, &x->listener);
        rc = RC_IO;
    }
    if (rc != RC_OK) {
        snprintf(err, err_len, "cannot start the block filter index");
        (void)chainstate_set_prune_lock(cs, PRUNE_LOCK_NAME, -1);
        kv_batch_free(x->batch);
        kv_close(x->kv);
        free(x);
        return rc;
    }
    *out = x;
    return RC_OK;
}

void blockfilter_index_stop(struct blockfilter_index *x)
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
    (void)chainstate_set_prune_lock(x->cs, PRUNE_LOCK_NAME, -1);
    kv_batch_free(x->batch);
    kv_close(x->kv);
    pthread_cond_destroy(&x->done_cv);
    pthread_cond_destroy(&x->wake_cv);
    pthread_mutex_destroy(&x->mu);
    free(x);
}

int blockfilter_index_lookup(struct blockfilter_index *x, const uint8_t hash[32],
                             struct buf *filter, uint8_t header[32])
{
    uint8_t key[33] = {'F'};
    memcpy(key + 1, hash, 32);
    struct buf v;
    buf_init(&v);
    int rc = kv_get(x->kv, &v, key, sizeof(key));
    if (rc == RC_OK && v.len < 33) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        memcpy(header, v.data, 32);
        buf_append(filter, v.data + 32, v.len - 32);
    }
    buf_clear(&v);
    return rc;
}

void blockfilter_index_summary(struct blockfilter_index *x, int *synced, int *best_height)
{
    /* As Core's summary: synced once it reached the tip, the height 0 before any block. */
    pthread_mutex_lock(&x->mu);
    *synced = x->synced;
    *best_height = x->best ? x->best->height : 0;
    pthread_mutex_unlock(&x->mu);
}

int blockfilter_index_wait_synced(struct blockfilter_index *x)
{
    chainstate_read_lock(x->cs);
    struct block_index *tip = chainstate_tip(x->cs);
    chainstate_read_unlock(x->cs);
    pthread_mutex_lock(&x->mu);
    int ok = x->synced;
    /* Bounded: a tip that left the chain meanwhile is never reached. */
    for (int waited = 0; ok && tip && waited < 60 && !x->stop && !x->failed &&
                         !(x->best && x->best->height >= tip->height &&
                           block_index_ancestor(x->best, tip->height) == tip);
         waited++) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&x->done_cv, &x->mu, &until);
    }
    pthread_mutex_unlock(&x->mu);
    return ok;
}
