/* Core's TxRequestTracker (txrequest.h). The announcements live in a slab with a free list,
 * chained per hash in a salted hash table; the best candidate of a hash is not stored but
 * found when asked (the ready candidate of highest priority while no request is out), which
 * gives Core's choices without its state transitions. Per-peer counters keep Count and
 * CountInFlight cheap, and the earliest expiry lets GetRequestable skip the expiry scan. */
#include <stdlib.h>
#include <string.h>

#include "crypto/siphash.h"
#include "net/txrequest.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

enum { ANN_FREE, ANN_CANDIDATE, ANN_REQUESTED, ANN_COMPLETED };

struct ann {
    uint8_t hash[32];
    int64_t peer;
    int64_t time_us; /* a candidate's request time, a request's expiry */
    uint64_t seq;    /* announcement order */
    uint64_t prio;   /* preferred in the top bit, a salted hash of (hash, peer) below */
    int32_t next;    /* the hash's chain, or the free list */
    uint8_t state, is_wtxid;
};

struct peer_count {
    int64_t peer;
    size_t total, in_flight, candidates;
};

struct txrequest {
    struct ann *a;
    size_t cap, live;
    int32_t free_head;
    int32_t *bucket; /* chain heads, -1 empty */
    size_t nbucket;  /* a power of two */
    struct peer_count *pc;
    size_t npc, cappc;
    uint64_t k0, k1, seq;
    int64_t next_expiry_us; /* no request expires before it */
};

int txrequest_new(struct txrequest **out, int deterministic)
{
    struct txrequest *t = xcalloc(1, sizeof(*t));
    if (!deterministic) {
        uint8_t salt[16];
        random_bytes(salt, sizeof(salt));
        memcpy(&t->k0, salt, 8);
        memcpy(&t->k1, salt + 8, 8);
    }
    t->free_head = -1;
    t->nbucket = 64;
    t->bucket = xmalloc(t->nbucket * sizeof(*t->bucket));
    memset(t->bucket, 0xff, t->nbucket * sizeof(*t->bucket));
    t->next_expiry_us = INT64_MAX;
    *out = t;
    return RC_OK;
}

void txrequest_free(struct txrequest *t)
{
    if (!t) {
        return;
    }
    free(t->a);
    free(t->bucket);
    free(t->pc);
    free(t);
}

static size_t bucket_of(const struct txrequest *t, const uint8_t hash[32])
{
    return (size_t)siphash24_uint256(t->k0, t->k1, hash) & (t->nbucket - 1);
}

static struct peer_count *pcount(struct txrequest *t, int64_t peer, int create)
{
    for (size_t i = 0; i < t->npc; i++) {
        if (t->pc[i].peer == peer) {
            return &t->pc[i];
        }
    }
    if (!create) {
        return NULL;
    }
    if (t->npc == t->cappc) {
        t->cappc = t->cappc ? t->cappc * 2 : 16;
        t->pc = xrealloc(t->pc, t->cappc * sizeof(*t->pc));
    }
    struct peer_count *c = &t->pc[t->npc++];
    memset(c, 0, sizeof(*c));
    c->peer = peer;
    return c;
}

static const struct peer_count *pcount_const(const struct txrequest *t, int64_t peer)
{
    for (size_t i = 0; i < t->npc; i++) {
        if (t->pc[i].peer == peer) {
            return &t->pc[i];
        }
    }
    return NULL;
}

/* Moves announcement i to state st, keeping the peer's counters. */
static void set_state(struct txrequest *t, int32_t i, uint8_t st)
{
    struct ann *x = &t->a[i];
    struct peer_count *c = pcount(t, x->peer, 1);
    c->in_flight -= x->state == ANN_REQUESTED;
    c->candidates -= x->state == ANN_CANDIDATE;
    x->state = st;
    c->in_flight += st == ANN_REQUESTED;
    c->candidates += st == ANN_CANDIDATE;
}

static void grow_buckets(struct txrequest *t)
{
    free(t->bucket);
    t->nbucket *= 2;
    t->bucket = xmalloc(t->nbucket * sizeof(*t->bucket));
    memset(t->bucket, 0xff, t->nbucket * sizeof(*t->bucket));
    for (size_t i = 0; i < t->cap; i++) {
        if (t->a[i].state != ANN_FREE) {
            size_t b = bucket_of(t, t->a[i].hash);
            t->a[i].next = t->bucket[b];
            t->bucket[b] = (int32_t)i;
        }
    }
}

static int32_t find(const struct txrequest *t, int64_t peer, const uint8_t hash[32])
{
    for (int32_t i = t->bucket[bucket_of(t, hash)]; i >= 0; i = t->a[i].next) {
        if (t->a[i].peer == peer && memcmp(t->a[i].hash, hash, 32) == 0) {
            return i;
        }
    }
    return -1;
}

/* Unlinks announcement i and frees its slot. */
static void remove_ann(struct txrequest *t, int32_t i)
{
    struct ann *x = &t->a[i];
    int32_t *link = &t->bucket[bucket_of(t, x->hash)];
    while (*link != i) {
        link = &t->a[*link].next;
    }
    *link = x->next;
    set_state(t, i, ANN_FREE);
    struct peer_count *c = pcount(t, x->peer, 1);
    if (--c->total == 0) {
        *c = t->pc[--t->npc];
    }
    x->next = t->free_head;
    t->free_head = i;
    t->live--;
}

/* The announcements of hash go once all of them are completed (Core). */
static void gc_hash(struct txrequest *t, const uint8_t hash[32])
{
    uint8_t h[32];
    memcpy(h, hash, 32); /* hash may point into a slot about to be freed */
    int32_t *head = &t->bucket[bucket_of(t, h)];
    for (int32_t i = *head; i >= 0; i = t->a[i].next) {
        if (memcmp(t->a[i].hash, h, 32) == 0 && t->a[i].state != ANN_COMPLETED) {
            return;
        }
    }
    txrequest_forget(t, h);
}

void txrequest_received_inv(struct txrequest *t, int64_t peer, const uint8_t hash[32],
                            int is_wtxid, int preferred, int64_t reqtime_us)
{
    if (find(t, peer, hash) >= 0) {
        return;
    }
    int32_t i;
    if (t->free_head >= 0) {
        i = t->free_head;
        t->free_head = t->a[i].next;
    } else {
        if (t->cap == (size_t)INT32_MAX) {
            return;
        }
        size_t old = t->cap;
        t->cap = t->cap ? t->cap * 2 : 64;
        t->a = xrealloc(t->a, t->cap * sizeof(*t->a));
        for (size_t k = t->cap; k-- > old + 1;) {
            t->a[k].state = ANN_FREE;
            t->a[k].next = t->free_head;
            t->free_head = (int32_t)k;
        }
        i = (int32_t)old;
    }
    struct ann *x = &t->a[i];
    memcpy(x->hash, hash, 32);
    x->peer = peer;
    x->time_us = reqtime_us;
    x->seq = t->seq++;
    x->is_wtxid = is_wtxid != 0;
    x->state = ANN_FREE;
    uint8_t key[40];
    memcpy(key, hash, 32);
    for (int k = 0; k < 8; k++) {
        key[32 + k] = (uint8_t)((uint64_t)peer >> (8 * k));
    }
    x->prio = (siphash24(t->k0, t->k1, key, sizeof(key)) >> 1) | ((uint64_t)(preferred != 0) << 63);
    pcount(t, peer, 1)->total++;
    set_state(t, i, ANN_CANDIDATE);
    t->live++;
    if (t->live > t->nbucket) {
        grow_buckets(t); /* links i too */
    } else {
        size_t b = bucket_of(t, hash);
        x->next = t->bucket[b];
        t->bucket[b] = i;
    }
}

void txrequest_forget(struct txrequest *t, const uint8_t hash[32])
{
    uint8_t h[32];
    memcpy(h, hash, 32);
    for (int32_t i = t->bucket[bucket_of(t, h)]; i >= 0;) {
        int32_t next = t->a[i].next;
        if (memcmp(t->a[i].hash, h, 32) == 0) {
            remove_ann(t, i);
        }
        i = next;
    }
}

void txrequest_disconnected_peer(struct txrequest *t, int64_t peer)
{
    if (!pcount(t, peer, 0)) {
        return;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->a[i].state != ANN_FREE && t->a[i].peer == peer) {
            uint8_t h[32];
            memcpy(h, t->a[i].hash, 32);
            remove_ann(t, (int32_t)i);
            gc_hash(t, h);
        }
    }
}

/* Whether candidate i is the one to request now: ready, no request of its hash out, and no
 * other ready candidate of it ranks higher. */
static int is_best(const struct txrequest *t, int32_t i, int64_t now_us)
{
    const struct ann *x = &t->a[i];
    if (x->state != ANN_CANDIDATE || x->time_us > now_us) {
        return 0;
    }
    for (int32_t k = t->bucket[bucket_of(t, x->hash)]; k >= 0; k = t->a[k].next) {
        const struct ann *y = &t->a[k];
        if (k == i || memcmp(y->hash, x->hash, 32) != 0) {
            continue;
        }
        if (y->state == ANN_REQUESTED ||
            (y->state == ANN_CANDIDATE && y->time_us <= now_us && y->prio > x->prio)) {
            return 0;
        }
    }
    return 1;
}

/* Completes every request whose expiry is at or before now_us, listing them. */
static void expire(struct txrequest *t, struct txrequest_gtxid **expired, size_t *n_expired,
                   int64_t now_us)
{
    *expired = NULL;
    *n_expired = 0;
    if (now_us < t->next_expiry_us) {
        return;
    }
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < t->cap; i++) {
        struct ann *x = &t->a[i];
        if (x->state != ANN_REQUESTED) {
            continue;
        }
        if (x->time_us > now_us) {
            next = x->time_us < next ? x->time_us : next;
            continue;
        }
        *expired = xrealloc(*expired, (*n_expired + 1) * sizeof(**expired));
        struct txrequest_gtxid *g = &(*expired)[(*n_expired)++];
        memcpy(g->hash, x->hash, 32);
        g->is_wtxid = x->is_wtxid;
        g->peer = x->peer;
        set_state(t, (int32_t)i, ANN_COMPLETED);
    }
    t->next_expiry_us = next;
    for (size_t k = 0; k < *n_expired; k++) {
        gc_hash(t, (*expired)[k].hash);
    }
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return x < y ? -1 : x > y;
}

int txrequest_get_requestable(struct txrequest *t, struct txrequest_gtxid **out, size_t *n_out,
                              struct txrequest_gtxid **expired, size_t *n_expired, int64_t peer,
                              int64_t now_us)
{
    expire(t, expired, n_expired, now_us);
    *out = NULL;
    *n_out = 0;
    const struct peer_count *c = pcount_const(t, peer);
    if (!c || c->candidates == 0) {
        return RC_OK;
    }
    uint64_t(*pick)[2] = NULL; /* (sequence, slot) */
    size_t n = 0;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->a[i].state == ANN_CANDIDATE && t->a[i].peer == peer &&
            is_best(t, (int32_t)i, now_us)) {
            pick = xrealloc(pick, (n + 1) * sizeof(*pick));
            pick[n][0] = t->a[i].seq;
            pick[n][1] = i;
            n++;
        }
    }
    if (n == 0) {
        return RC_OK;
    }
    qsort(pick, n, sizeof(*pick), by_seq);
    *out = xmalloc(n * sizeof(**out));
    for (size_t k = 0; k < n; k++) {
        const struct ann *x = &t->a[pick[k][1]];
        memcpy((*out)[k].hash, x->hash, 32);
        (*out)[k].is_wtxid = x->is_wtxid;
        (*out)[k].peer = x->peer;
    }
    *n_out = n;
    free(pick);
    return RC_OK;
}

void txrequest_requested(struct txrequest *t, int64_t peer, const uint8_t hash[32],
                         int64_t expiry_us)
{
    int32_t i = find(t, peer, hash);
    if (i < 0 || t->a[i].state != ANN_CANDIDATE) {
        return;
    }
    for (int32_t k = t->bucket[bucket_of(t, hash)]; k >= 0; k = t->a[k].next) {
        if (k != i && t->a[k].state == ANN_REQUESTED && memcmp(t->a[k].hash, hash, 32) == 0) {
            set_state(t, k, ANN_COMPLETED); /* no longer waited for: progress is kept */
        }
    }
    set_state(t, i, ANN_REQUESTED);
    t->a[i].time_us = expiry_us;
    if (expiry_us < t->next_expiry_us) {
        t->next_expiry_us = expiry_us;
    }
}

void txrequest_received_response(struct txrequest *t, int64_t peer, const uint8_t hash[32])
{
    int32_t i = find(t, peer, hash);
    if (i < 0 || t->a[i].state == ANN_COMPLETED) {
        return;
    }
    set_state(t, i, ANN_COMPLETED);
    gc_hash(t, hash);
}

size_t txrequest_count(const struct txrequest *t, int64_t peer)
{
    const struct peer_count *c = pcount_const(t, peer);
    return c ? c->total : 0;
}

size_t txrequest_count_in_flight(const struct txrequest *t, int64_t peer)
{
    const struct peer_count *c = pcount_const(t, peer);
    return c ? c->in_flight : 0;
}

size_t txrequest_size(const struct txrequest *t)
{
    return t->live;
}

void txrequest_candidate_peers(const struct txrequest *t, int64_t **peers, size_t *n,
                               const uint8_t hash[32])
{
    for (int32_t i = t->bucket[bucket_of(t, hash)]; i >= 0; i = t->a[i].next) {
        const struct ann *x = &t->a[i];
        if (x->state != ANN_COMPLETED && memcmp(x->hash, hash, 32) == 0) {
            *peers = xrealloc(*peers, (*n + 1) * sizeof(**peers));
            (*peers)[(*n)++] = x->peer;
        }
    }
}
