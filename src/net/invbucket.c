/* Transaction announcement rate limit (invbucket.h): Core's InvToSendBucket, its
 * TakeForProcessing with the pool's ExtractBestByMiningScoreWithTopology, and the buckets'
 * half of ProcessInvBacklog. */
#include <stdlib.h>
#include <string.h>

#include "net/invbucket.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/tokenbucket.h"
#include "util/xmalloc.h"

#define INBOUND_INV_INTERVAL_S 5.0  /* Core's INBOUND_INVENTORY_BROADCAST_INTERVAL */
#define OUTBOUND_INV_INTERVAL_S 2.0 /* Core's OUTBOUND_INVENTORY_BROADCAST_INTERVAL */
#define CHECK_DELAY_US 100000       /* Core's INVENTORY_BUCKET_CHECK_DELAY */
#define BACKLOG_CAPACITY 300        /* Core's INVENTORY_BUCKET_BACKLOG_CAPACITY */
#define HEARTBEAT_US 2000000        /* Core's INVENTORY_BUCKET_BACKLOG_HEARTBEAT */
#define HEARTBEAT_MIN 100           /* Core's INVENTORY_BUCKET_BACKLOG_HEARTBEAT_MIN */
/* Core's InvToSendBucket: the size bucket starts at 12 MB and refills 20 kB/s (12 MB in
 * ten minutes) up to 50 MB, times the direction's multiplier; the count bucket refills at
 * the rate times the multiplier, up to (and from) 30 seconds' worth at the rate. */
#define SIZE_INIT 12e6
#define SIZE_CAP 50e6
#define SIZE_REFILL 20e3
#define SIZE_FLOOR (-50e3)
#define COUNT_SECONDS 30.0

/* One direction's backlog and buckets (Core's InvToSendBucket). */
struct dir_bucket {
    double count_floor; /* how far below zero one drain may take the count bucket */
    uint8_t (*backlog)[32];
    size_t n, cap;
    struct token_bucket size, count;
    struct invbucket_tx *out; /* drained by the last process */
    size_t nout, capout;
};

struct invbucket {
    unsigned rate;
    struct dir_bucket d[2];
    int64_t next_check_us;
    int heartbeat_on;
    int64_t next_heartbeat_us;
};

/* A backlogged transaction found in the pool. */
struct item {
    const void *h;
    struct invbucket_tx tx;
    double size;
};

static void dir_init(struct dir_bucket *d, unsigned rate, double mult)
{
    /* At least an average inv message's worth per drain, so that the backlog is not sorted
     * for each token (Core's count floor). */
    d->count_floor = -1.0 * rate * INBOUND_INV_INTERVAL_S;
    token_bucket_init(&d->size, SIZE_REFILL * mult, SIZE_INIT, SIZE_CAP);
    token_bucket_init(&d->count, rate * mult, rate * COUNT_SECONDS, rate * COUNT_SECONDS);
}

int invbucket_new(struct invbucket **out, unsigned rate)
{
    struct invbucket *b = xcalloc(1, sizeof(*b));
    rate = rate < INVBUCKET_MIN_RATE ? INVBUCKET_MIN_RATE : rate;
    rate = rate > INVBUCKET_MAX_RATE ? INVBUCKET_MAX_RATE : rate;
    b->rate = rate;
    dir_init(&b->d[INVBUCKET_INBOUND], rate, 1.0);
    dir_init(&b->d[INVBUCKET_OUTBOUND], rate, INBOUND_INV_INTERVAL_S / OUTBOUND_INV_INTERVAL_S);
    *out = b;
    return RC_OK;
}

void invbucket_free(struct invbucket *b)
{
    if (!b) {
        return;
    }
    for (int i = 0; i < 2; i++) {
        free(b->d[i].backlog);
        free(b->d[i].out);
    }
    free(b);
}

unsigned invbucket_rate(const struct invbucket *b)
{
    return b->rate;
}

static void backlog_push(struct dir_bucket *d, const uint8_t wtxid[32])
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->backlog = xrealloc(d->backlog, d->cap * sizeof(*d->backlog));
    }
    memcpy(d->backlog[d->n++], wtxid, 32);
}

void invbucket_add(struct invbucket *b, const uint8_t wtxid[32])
{
    backlog_push(&b->d[INVBUCKET_INBOUND], wtxid);
    backlog_push(&b->d[INVBUCKET_OUTBOUND], wtxid);
}

static int avail(const struct dir_bucket *d)
{
    return d->n > 0 && token_bucket_value(&d->size) > 0 && token_bucket_value(&d->count) > 0;
}

static int cmp_hash(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

static int cmp_item(const void *a, const void *b, void *ctx)
{
    const struct invbucket_pool *pool = ctx;
    return pool->cmp(((const struct item *)a)->h, ((const struct item *)b)->h);
}

static void out_push(struct dir_bucket *d, const struct invbucket_tx *tx)
{
    if (d->nout == d->capout) {
        d->capout = d->capout ? d->capout * 2 : 16;
        d->out = xrealloc(d->out, d->capout * sizeof(*d->out));
    }
    d->out[d->nout++] = *tx;
}

/* The backlog's entries in the pool, each once, best first (the rest dropped): a new array
 * of *n items (the pool locked). The backlog is left empty. */
static struct item *extract(struct dir_bucket *d, const struct invbucket_pool *pool, size_t *n)
{
    struct item *v = xmalloc(d->n * sizeof(*v));
    size_t k = 0;
    if (d->n > 1) {
        qsort(d->backlog, d->n, 32, cmp_hash);
    }
    for (size_t i = 0; i < d->n; i++) {
        if (i + 1 < d->n && memcmp(d->backlog[i], d->backlog[i + 1], 32) == 0) {
            continue;
        }
        v[k].h = pool->get(pool->ctx, d->backlog[i], v[k].tx.txid, &v[k].size);
        if (v[k].h) {
            memcpy(v[k].tx.wtxid, d->backlog[i], 32);
            k++;
        }
    }
    d->n = 0;
    if (k > 1) {
        qsort_r(v, k, sizeof(*v), cmp_item, (void *)pool);
    }
    *n = k;
    return v;
}

/* Core's TakeForProcessing: the best of the backlog while the tokens last (the count
 * bucket may go down to its floor in one drain, the size bucket to -50 kB), into d->out;
 * what the pool no longer has leaves the backlog. */
static void take(struct dir_bucket *d, const struct invbucket_pool *pool)
{
    double want = token_bucket_value(&d->count) - d->count_floor;
    size_t n_take = want > 0 ? (size_t)want : 0;
    if (n_take > d->n) {
        n_take = d->n;
    }
    if (n_take == 0) {
        return;
    }
    size_t n;
    struct item *v = extract(d, pool, &n);
    int tokens_left = 1;
    for (size_t i = 0; i < n; i++) {
        if (i < n_take && tokens_left) {
            out_push(d, &v[i].tx);
            int size_ok = token_bucket_decrement(&d->size, v[i].size, SIZE_FLOOR);
            int count_ok = token_bucket_decrement(&d->count, 1.0, d->count_floor);
            tokens_left = size_ok && count_ok;
        } else {
            backlog_push(d, v[i].tx.wtxid);
        }
    }
    free(v);
    if (d->n == 0 && d->cap > BACKLOG_CAPACITY) {
        /* A burst is over: give its memory back. */
        free(d->backlog);
        d->backlog = NULL;
        d->cap = 0;
    }
}

static void heartbeat(struct invbucket *b, int64_t now_us)
{
    const struct dir_bucket *in = &b->d[INVBUCKET_INBOUND], *out = &b->d[INVBUCKET_OUTBOUND];
    if (!b->heartbeat_on && (in->n >= HEARTBEAT_MIN || out->n >= HEARTBEAT_MIN)) {
        b->heartbeat_on = 1;
        b->next_heartbeat_us = now_us;
    }
    if (!b->heartbeat_on || now_us < b->next_heartbeat_us) {
        return;
    }
    LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
        "Transaction rate-limiting backlog inbound=%zu itok=%.1f isz=%.1f outbound=%zu "
        "otok=%.1f osz=%.1f",
        in->n, token_bucket_value(&in->count), token_bucket_value(&in->size), out->n,
        token_bucket_value(&out->count), token_bucket_value(&out->size));
    b->heartbeat_on = in->n > 0 || out->n > 0;
    b->next_heartbeat_us = now_us + HEARTBEAT_US;
}

int invbucket_process(struct invbucket *b, int64_t now_us, int bumped,
                      const struct invbucket_pool *pool)
{
    b->d[0].nout = b->d[1].nout = 0;
    if (!bumped && now_us <= b->next_check_us) {
        return 0;
    }
    b->next_check_us = now_us + CHECK_DELAY_US;
    for (int i = 0; i < 2; i++) {
        token_bucket_increment(&b->d[i].size, now_us);
        token_bucket_increment(&b->d[i].count, now_us);
    }
    heartbeat(b, now_us);
    int in_avail = avail(&b->d[INVBUCKET_INBOUND]), out_avail = avail(&b->d[INVBUCKET_OUTBOUND]);
    if (!in_avail && !out_avail) {
        return 0;
    }
    if (pool->lock) {
        pool->lock(pool->ctx);
    }
    if (in_avail) {
        take(&b->d[INVBUCKET_INBOUND], pool);
    }
    if (out_avail) {
        take(&b->d[INVBUCKET_OUTBOUND], pool);
    }
    if (pool->unlock) {
        pool->unlock(pool->ctx);
    }
    return b->d[0].nout > 0 || b->d[1].nout > 0;
}

const struct invbucket_tx *invbucket_drained(const struct invbucket *b, enum invbucket_dir dir,
                                             size_t *n)
{
    *n = b->d[dir].nout;
    return b->d[dir].out;
}

void invbucket_clear(struct invbucket *b, enum invbucket_dir dir)
{
    b->d[dir].n = 0;
}

void invbucket_info(const struct invbucket *b, enum invbucket_dir dir, struct invbucket_info *out)
{
    out->backlog = b->d[dir].n;
    out->count_tok = token_bucket_value(&b->d[dir].count);
    out->size_tok = token_bucket_value(&b->d[dir].size);
}
