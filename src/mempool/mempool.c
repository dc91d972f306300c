/* The transaction pool (mempool.h): entries, their indexes, clusters and linearization, the
 * size bound and the rolling minimum fee. */
#include "mempool/mempool.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/siphash.h"
#include "mempool/policy.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/random.h"
#include "util/xmalloc.h"

#define ROLLING_FEE_HALFLIFE (60 * 60 * 12)
/* Clusters up to this many transactions are linearized by best ancestor-set fee rate. */
#define LIN_GREEDY_MAX 128

/* ---- a map from 36-byte keys (txid or outpoint) to entries: open addressing, linear probing,
 * backward-shift deletion, keys hashed with a salted SipHash ---- */
struct slot {
    uint8_t key[36];
    struct mempool_entry *val; /* NULL: empty */
};

struct hmap {
    struct slot *s;
    size_t cap, n; /* cap is a power of two */
    uint64_t k0, k1;
};

static void hmap_init(struct hmap *m)
{
    uint8_t salt[16];
    random_bytes(salt, sizeof(salt));
    memcpy(&m->k0, salt, 8);
    memcpy(&m->k1, salt + 8, 8);
    m->cap = 64;
    m->n = 0;
    m->s = xcalloc(m->cap, sizeof(*m->s));
}

static void hmap_clear(struct hmap *m)
{
    free(m->s);
    m->s = NULL;
    m->cap = m->n = 0;
}

static size_t hmap_home(const struct hmap *m, const uint8_t key[36])
{
    return (size_t)siphash24(m->k0, m->k1, key, 36) & (m->cap - 1);
}

static struct slot *hmap_find(const struct hmap *m, const uint8_t key[36])
{
    for (size_t i = hmap_home(m, key);; i = (i + 1) & (m->cap - 1)) {
        struct slot *s = &m->s[i];
        if (!s->val) {
            return NULL;
        }
        if (memcmp(s->key, key, 36) == 0) {
            return s;
        }
    }
}

static void hmap_put(struct hmap *m, const uint8_t key[36], struct mempool_entry *v);

static void hmap_grow(struct hmap *m)
{
    struct slot *old = m->s;
    size_t oldcap = m->cap;
    m->cap *= 2;
    m->n = 0;
    m->s = xcalloc(m->cap, sizeof(*m->s));
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].val) {
            hmap_put(m, old[i].key, old[i].val);
        }
    }
    free(old);
}

static void hmap_put(struct hmap *m, const uint8_t key[36], struct mempool_entry *v)
{
    if ((m->n + 1) * 2 > m->cap) {
        hmap_grow(m);
    }
    for (size_t i = hmap_home(m, key);; i = (i + 1) & (m->cap - 1)) {
        struct slot *s = &m->s[i];
        if (!s->val || memcmp(s->key, key, 36) == 0) {
            if (!s->val) {
                m->n++;
            }
            memcpy(s->key, key, 36);
            s->val = v;
            return;
        }
    }
}

static void hmap_del(struct hmap *m, const uint8_t key[36])
{
    struct slot *s = hmap_find(m, key);
    if (!s) {
        return;
    }
    size_t i = (size_t)(s - m->s);
    s->val = NULL;
    m->n--;
    /* Backward shift: move later members of the run into the hole when their home allows. */
    for (size_t j = (i + 1) & (m->cap - 1); m->s[j].val; j = (j + 1) & (m->cap - 1)) {
        size_t h = hmap_home(m, m->s[j].key);
        int movable = (i <= j) ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            m->s[i] = m->s[j];
            m->s[j].val = NULL;
            i = j;
        }
    }
}

static void key_hash(uint8_t key[36], const uint8_t h32[32])
{
    memcpy(key, h32, 32);
    memset(key + 32, 0, 4);
}

static void key_outpoint(uint8_t key[36], const struct outpoint *op)
{
    memcpy(key, op->txid, 32);
    key[32] = (uint8_t)op->n;
    key[33] = (uint8_t)(op->n >> 8);
    key[34] = (uint8_t)(op->n >> 16);
    key[35] = (uint8_t)(op->n >> 24);
}

/* ---- the pool ---- */
struct mempool {
    pthread_rwlock_t lock;
    struct mempool_options opt;
    struct mempool_listener listeners[MEMPOOL_MAX_LISTENERS];
    size_t n_listeners;
    struct mempool_entry **v;
    size_t n, cap;
    struct hmap by_txid, by_wtxid, by_outpoint;
    int64_t total_vsize, total_fee, usage;
    uint64_t sequence;   /* getrawmempool's mempool_sequence */
    uint64_t updated;    /* Core's nTransactionsUpdated */
    uint64_t entry_seq;  /* entry order */
    uint64_t mark_epoch; /* traversal marks */
    uint64_t chunk_ids;
    double rolling_min_fee;
    int64_t last_rolling_update;
    int block_since_bump;
    int64_t min_fee_cached;
    struct mempool_delta *deltas;
    size_t ndeltas;
    pthread_mutex_t ub_mu; /* a leaf: guards the unbroadcast set */
    uint8_t (*ub)[32];
    size_t nub, capub;
    /* Core's DisconnectedBlockTransactions: the transactions of the blocks disconnected since
     * the last connected one, in the order Core queues them, with their estimated memory. */
    struct reorg_queued {
        uint8_t txid[32];
        int64_t usage;
    } * rq;
    size_t rq_head, rq_n, rq_cap;
    int64_t rq_usage;
};

void mempool_options_default(struct mempool_options *o)
{
    memset(o, 0, sizeof(*o));
    o->max_size_bytes = 300 * 1000000LL;
    o->expiry_s = 336 * 3600LL;
    o->min_relay_feerate = POLICY_DEFAULT_MIN_RELAY_TX_FEE;
    o->incremental_feerate = POLICY_DEFAULT_INCREMENTAL_RELAY_FEE;
    o->dust_relay_feerate = POLICY_DUST_RELAY_TX_FEE;
    o->max_datacarrier = POLICY_MAX_OP_RETURN_RELAY;
    o->permit_bare_multisig = 1;
    o->require_standard = 1;
    o->bytes_per_sigop = POLICY_DEFAULT_BYTES_PER_SIGOP;
    o->cluster_count = 64;
    o->cluster_size_vbytes = 101000;
    o->persist = 1;
}

struct mempool *mempool_new(const struct mempool_options *opt)
{
    struct mempool *mp = xcalloc(1, sizeof(*mp));
    pthread_rwlock_init(&mp->lock, NULL);
    mp->opt = *opt;
    hmap_init(&mp->by_txid);
    hmap_init(&mp->by_wtxid);
    hmap_init(&mp->by_outpoint);
    mp->sequence = 1; /* Core's m_sequence_number starts at 1 */
    pthread_mutex_init(&mp->ub_mu, NULL);
    return mp;
}

static void entry_free(struct mempool_entry *e)
{
    tx_clear(&e->tx);
    free(e->raw);
    free(e->parents);
    free(e->children);
    free(e);
}

void mempool_free(struct mempool *mp)
{
    if (mp) {
        free(mp->rq);
    }
    if (!mp) {
        return;
    }
    for (size_t i = 0; i < mp->n; i++) {
        entry_free(mp->v[i]);
    }
    free(mp->v);
    hmap_clear(&mp->by_txid);
    hmap_clear(&mp->by_wtxid);
    hmap_clear(&mp->by_outpoint);
    free(mp->deltas);
    free(mp->ub);
    pthread_mutex_destroy(&mp->ub_mu);
    pthread_rwlock_destroy(&mp->lock);
    free(mp);
}

int mempool_add_listener(struct mempool *mp, const struct mempool_listener *l)
{
    if (mp->n_listeners == MEMPOOL_MAX_LISTENERS) {
        return RC_TOO_LARGE;
    }
    mp->listeners[mp->n_listeners++] = *l;
    return RC_OK;
}

const struct mempool_options *mempool_options(const struct mempool *mp)
{
    return &mp->opt;
}

void mempool_read_lock(struct mempool *mp)
{
    pthread_rwlock_rdlock(&mp->lock);
}

void mempool_read_unlock(struct mempool *mp)
{
    pthread_rwlock_unlock(&mp->lock);
}

void mempool_write_lock(struct mempool *mp)
{
    pthread_rwlock_wrlock(&mp->lock);
}

void mempool_write_unlock(struct mempool *mp)
{
    pthread_rwlock_unlock(&mp->lock);
}

size_t mempool_count(const struct mempool *mp)
{
    return mp->n;
}

int64_t mempool_total_vsize(const struct mempool *mp)
{
    return mp->total_vsize;
}

int64_t mempool_usage(const struct mempool *mp)
{
    return mp->usage;
}

static int64_t entry_usage(const struct mempool_entry *e);

int64_t mempool_entry_usage(const struct mempool_entry *e)
{
    return entry_usage(e);
}

int64_t mempool_total_fee(const struct mempool *mp)
{
    return mp->total_fee;
}

struct mempool_entry *const *mempool_entries(const struct mempool *mp, size_t *n)
{
    *n = mp->n;
    return mp->v;
}

struct mempool_entry *mempool_get(const struct mempool *mp, const uint8_t txid32[32])
{
    uint8_t key[36];
    key_hash(key, txid32);
    struct slot *s = hmap_find(&mp->by_txid, key);
    return s ? s->val : NULL;
}

struct mempool_entry *mempool_get_wtxid(const struct mempool *mp, const uint8_t wtxid32[32])
{
    uint8_t key[36];
    key_hash(key, wtxid32);
    struct slot *s = hmap_find(&mp->by_wtxid, key);
    return s ? s->val : NULL;
}

struct mempool_entry *mempool_spender(const struct mempool *mp, const struct outpoint *op)
{
    uint8_t key[36];
    key_outpoint(key, op);
    struct slot *s = hmap_find(&mp->by_outpoint, key);
    return s ? s->val : NULL;
}

uint64_t mempool_sequence(const struct mempool *mp)
{
    return mp->sequence;
}

uint64_t mempool_transactions_updated(const struct mempool *mp)
{
    return mp->updated;
}

uint64_t mempool_next_entry_sequence(const struct mempool *mp)
{
    return mp->entry_seq + 1;
}

int mempool_feerate_cmp(int64_t fa, int64_t sa, int64_t fb, int64_t sb)
{
    __int128 l = (__int128)fa * sb, r = (__int128)fb * sa;
    return l < r ? -1 : l > r ? 1 : 0;
}

/* What an entry counts against -maxmempool: Core's DynamicMemoryUsage of a transaction and
 * its entry (the serialization's bytes, the vectors of inputs, outputs and witness items,
 * the entry and its index nodes), so that a -maxmempool holds as many transactions here as
 * in Core. (bitnode keeps the serialization beside the parsed transaction, so its heap use
 * is up to twice this.) */
static int64_t entry_usage(const struct mempool_entry *e)
{
    int64_t items = 0;
    for (size_t i = 0; i < e->tx.vin_count; i++) {
        items += (int64_t)e->tx.vin[i].witness_count;
    }
    return (int64_t)e->raw_len + 96 * (int64_t)e->tx.vin_count + 64 * (int64_t)e->tx.vout_count +
           32 * items + 400;
}

/* ---- traversal ---- */
static void push_unique(struct mempool_entry ***arr, size_t *n, size_t *cap,
                        struct mempool_entry *e)
{
    for (size_t i = 0; i < *n; i++) {
        if ((*arr)[i] == e) {
            return;
        }
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *arr = xrealloc(*arr, *cap * sizeof(**arr));
    }
    (*arr)[(*n)++] = e;
}

static struct mempool_entry **walk(const struct mempool_entry *e, int up, size_t *n)
{
    struct mempool_entry **out = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < (up ? e->nparents : e->nchildren); i++) {
        push_unique(&out, n, &cap, up ? e->parents[i] : e->children[i]);
    }
    for (size_t k = 0; k < *n; k++) {
        const struct mempool_entry *x = out[k];
        for (size_t i = 0; i < (up ? x->nparents : x->nchildren); i++) {
            push_unique(&out, n, &cap, up ? x->parents[i] : x->children[i]);
        }
    }
    return out;
}

struct mempool_entry **mempool_ancestors(struct mempool *mp, const struct mempool_entry *e,
                                         size_t *n)
{
    (void)mp;
    return walk(e, 1, n);
}

struct mempool_entry **mempool_descendants(struct mempool *mp, const struct mempool_entry *e,
                                           size_t *n)
{
    (void)mp;
    return walk(e, 0, n);
}

static void sums(const struct mempool_entry *e, int up, int64_t *count, int64_t *vsize,
                 int64_t *fees)
{
    size_t n;
    struct mempool_entry **a = walk(e, up, &n);
    *count = 1 + (int64_t)n;
    *vsize = e->vsize;
    *fees = mempool_entry_modified_fee(e);
    for (size_t i = 0; i < n; i++) {
        *vsize += a[i]->vsize;
        *fees += mempool_entry_modified_fee(a[i]);
    }
    free(a);
}

void mempool_ancestor_sums(struct mempool *mp, const struct mempool_entry *e, int64_t *count,
                           int64_t *vsize, int64_t *fees)
{
    (void)mp;
    sums(e, 1, count, vsize, fees);
}

void mempool_descendant_sums(struct mempool *mp, const struct mempool_entry *e, int64_t *count,
                             int64_t *vsize, int64_t *fees)
{
    (void)mp;
    sums(e, 0, count, vsize, fees);
}

void mempool_chunk(struct mempool *mp, struct mempool_entry *e, int64_t *fee, int64_t *weight)
{
    (void)mp;
    *fee = e->chunk_fee_;
    *weight = e->chunk_weight_;
}

/* ---- clusters and linearization (writer only: uses the marks) ---- */

/* The connected component of the entries in seeds (n_seeds of them), each once; entries in
 * skip (marked with skip_mark beforehand) are left out. A new array of *n. */
static struct mempool_entry **cluster_of(struct mempool *mp, struct mempool_entry *const *seeds,
                                         size_t n_seeds, uint64_t skip_mark, size_t *n)
{
    uint64_t mark = ++mp->mark_epoch;
    size_t cap = n_seeds + 16;
    struct mempool_entry **out = xmalloc(cap * sizeof(*out));
    *n = 0;
    for (size_t i = 0; i < n_seeds; i++) {
        struct mempool_entry *s = seeds[i];
        if (s->mark_ == mark || (skip_mark && s->mark_ == skip_mark)) {
            continue;
        }
        s->mark_ = mark;
        out[(*n)++] = s;
    }
    for (size_t k = 0; k < *n; k++) {
        struct mempool_entry *x = out[k];
        for (int dir = 0; dir < 2; dir++) {
            size_t cnt = dir ? x->nchildren : x->nparents;
            for (size_t j = 0; j < cnt; j++) {
                struct mempool_entry *y = dir ? x->children[j] : x->parents[j];
                if (y->mark_ == mark || (skip_mark && y->mark_ == skip_mark)) {
                    continue;
                }
                y->mark_ = mark;
                if (*n == cap) {
                    cap *= 2;
                    out = xrealloc(out, cap * sizeof(*out));
                }
                out[(*n)++] = y;
            }
        }
    }
    return out;
}

/* A node of a graph to linearize: the pool's entries and, for replacements, a proposed one. */
struct lin_node {
    int64_t fee, vsize; /* vsize: here the sigop-adjusted weight */
    size_t *parents;    /* indexes into the node array */
    size_t nparents;
    uint64_t seq; /* tie-break: earlier first */
    int done;
};

/* Linearizes nodes[0..n) greedily by best ancestor-set fee rate (Core's ancestor-set sort, a
 * valid linearization) and chunks it: order receives the node indexes in mining order,
 * chunk_of the chunk number of each node, and the chunks' sums go to cf/cs (n slots each).
 * Returns the number of chunks. */
static size_t linearize(struct lin_node *nodes, size_t n, size_t *order, size_t *chunk_of,
                        int64_t *cf, int64_t *cs)
{
    size_t placed = 0;
    uint8_t *in = xcalloc(n ? n : 1, 1);
    size_t *stack = xmalloc((n ? n : 1) * sizeof(*stack));
    for (size_t i = 0; i < n; i++) {
        nodes[i].done = 0;
    }
    if (n > LIN_GREEDY_MAX) {
        /* Too big for the cubic greedy pass (only a reorg's returning transactions make such
         * clusters): a topological order, parents first, earliest arrival first. */
        while (placed < n) {
            for (size_t i = 0; i < n; i++) {
                if (nodes[i].done) {
                    continue;
                }
                int ready = 1;
                for (size_t j = 0; j < nodes[i].nparents && ready; j++) {
                    ready = nodes[nodes[i].parents[j]].done;
                }
                if (ready) {
                    nodes[i].done = 1;
                    order[placed++] = i;
                }
            }
        }
    }
    while (placed < n) {
        size_t best = n;
        int64_t bf = 0, bs = 1;
        for (size_t i = 0; i < n; i++) {
            if (nodes[i].done) {
                continue;
            }
            /* The undone ancestor set of i. */
            memset(in, 0, n);
            size_t sp = 0;
            int64_t f = 0, s = 0;
            stack[sp++] = i;
            in[i] = 1;
            while (sp) {
                size_t x = stack[--sp];
                f += nodes[x].fee;
                s += nodes[x].vsize;
                for (size_t j = 0; j < nodes[x].nparents; j++) {
                    size_t p = nodes[x].parents[j];
                    if (!nodes[p].done && !in[p]) {
                        in[p] = 1;
                        stack[sp++] = p;
                    }
                }
            }
            int c = best == n ? 1 : mempool_feerate_cmp(f, s, bf, bs);
            if (c > 0 || (c == 0 && (s < bs || (s == bs && nodes[i].seq < nodes[best].seq)))) {
                best = i;
                bf = f;
                bs = s;
            }
        }
        /* Place best's undone ancestors, parents before children. */
        memset(in, 0, n);
        size_t sp = 0;
        stack[sp++] = best;
        in[best] = 1;
        size_t first = placed;
        while (sp) {
            size_t x = stack[--sp];
            order[placed++] = x;
            for (size_t j = 0; j < nodes[x].nparents; j++) {
                size_t p = nodes[x].parents[j];
                if (!nodes[p].done && !in[p]) {
                    in[p] = 1;
                    stack[sp++] = p;
                }
            }
        }
        /* order[first..placed) holds the set with children possibly before parents: sort it
         * topologically (a node after all its parents in the set). */
        size_t cnt = placed - first;
        size_t *tmp = xmalloc(cnt * sizeof(*tmp));
        size_t k = 0;
        while (k < cnt) {
            for (size_t a = first; a < placed; a++) {
                size_t x = order[a];
                if (nodes[x].done) {
                    continue;
                }
                int ready = 1;
                for (size_t j = 0; j < nodes[x].nparents && ready; j++) {
                    size_t p = nodes[x].parents[j];
                    if (!nodes[p].done && in[p]) {
                        ready = 0;
                    }
                }
                if (ready) {
                    nodes[x].done = 1;
                    tmp[k++] = x;
                }
            }
        }
        memcpy(order + first, tmp, cnt * sizeof(*tmp));
        free(tmp);
    }
    /* Chunking: merge a chunk into the one before while it has the higher fee rate. */
    size_t nch = 0;
    size_t *start = xmalloc((n ? n : 1) * sizeof(*start));
    for (size_t i = 0; i < n; i++) {
        size_t x = order[i];
        start[nch] = i;
        cf[nch] = nodes[x].fee;
        cs[nch] = nodes[x].vsize;
        nch++;
        while (nch > 1 &&
               mempool_feerate_cmp(cf[nch - 1], cs[nch - 1], cf[nch - 2], cs[nch - 2]) > 0) {
            cf[nch - 2] += cf[nch - 1];
            cs[nch - 2] += cs[nch - 1];
            nch--;
        }
    }
    for (size_t c = 0; c < nch; c++) {
        size_t end = c + 1 < nch ? start[c + 1] : n;
        for (size_t i = start[c]; i < end; i++) {
            chunk_of[order[i]] = c;
        }
    }
    free(start);
    free(stack);
    free(in);
    return nch;
}

/* Builds lin_nodes for entries cl[0..n) (their parents outside cl ignored); extra (may be
 * NULL) is one more node appended at index n whose parents are extra_parents. */
static struct lin_node *lin_nodes_of(struct mempool *mp, struct mempool_entry *const *cl, size_t n,
                                     const struct lin_node *extra,
                                     struct mempool_entry *const *extra_parents,
                                     size_t n_extra_parents, size_t *total)
{
    uint64_t mark = ++mp->mark_epoch;
    size_t tot = n + (extra ? 1 : 0);
    struct lin_node *nodes = xcalloc(tot ? tot : 1, sizeof(*nodes));
    for (size_t i = 0; i < n; i++) {
        cl[i]->mark_ = mark;
        cl[i]->lin_pos_ = i; /* scratch: the node index */
    }
    for (size_t i = 0; i < n; i++) {
        struct mempool_entry *e = cl[i];
        nodes[i].fee = mempool_entry_modified_fee(e);
        nodes[i].vsize = e->adj_weight;
        nodes[i].seq = e->sequence;
        nodes[i].parents = xmalloc((e->nparents ? e->nparents : 1) * sizeof(size_t));
        for (size_t j = 0; j < e->nparents; j++) {
            if (e->parents[j]->mark_ == mark) {
                nodes[i].parents[nodes[i].nparents++] = e->parents[j]->lin_pos_;
            }
        }
    }
    if (extra) {
        nodes[n] = *extra;
        nodes[n].parents = xmalloc((n_extra_parents ? n_extra_parents : 1) * sizeof(size_t));
        nodes[n].nparents = 0;
        for (size_t j = 0; j < n_extra_parents; j++) {
            if (extra_parents[j]->mark_ == mark) {
                nodes[n].parents[nodes[n].nparents++] = extra_parents[j]->lin_pos_;
            }
        }
    }
    *total = tot;
    return nodes;
}

static void lin_nodes_free(struct lin_node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(nodes[i].parents);
    }
    free(nodes);
}

/* Recomputes the chunks of the cluster holding e. */
static void relinearize(struct mempool *mp, struct mempool_entry *e)
{
    size_t n, tot;
    struct mempool_entry **cl = cluster_of(mp, &e, 1, 0, &n);
    struct lin_node *nodes = lin_nodes_of(mp, cl, n, NULL, NULL, 0, &tot);
    size_t *order = xmalloc(n * sizeof(*order)), *chunk_of = xmalloc(n * sizeof(*chunk_of));
    int64_t *cf = xmalloc(n * sizeof(*cf)), *cs = xmalloc(n * sizeof(*cs));
    size_t nch = linearize(nodes, n, order, chunk_of, cf, cs);
    uint64_t base = mp->chunk_ids;
    mp->chunk_ids += nch;
    for (size_t i = 0; i < n; i++) {
        struct mempool_entry *x = cl[order[i]];
        size_t c = chunk_of[order[i]];
        x->chunk_id_ = (size_t)(base + c);
        x->chunk_fee_ = cf[c];
        x->chunk_weight_ = cs[c];
        x->lin_pos_ = i;
    }
    free(order);
    free(chunk_of);
    free(cf);
    free(cs);
    lin_nodes_free(nodes, tot);
    free(cl);
}

/* ---- adding and removing ---- */
static void link_add(struct mempool_entry ***arr, size_t *n, size_t *cap, struct mempool_entry *x)
{
    push_unique(arr, n, cap, x);
}

static void unlink_from(struct mempool_entry **arr, size_t *n, const struct mempool_entry *x)
{
    for (size_t i = 0; i < *n; i++) {
        if (arr[i] == x) {
            arr[i] = arr[--*n];
            return;
        }
    }
}

struct mempool_entry *mempool_add(struct mempool *mp, struct mempool_entry *proto)
{
    struct mempool_entry *e = xmalloc(sizeof(*e));
    uint8_t key[36];
    *e = *proto;
    memset(&proto->tx, 0, sizeof(proto->tx));
    proto->raw = NULL;
    e->parents = e->children = NULL;
    e->nparents = e->capparents = e->nchildren = e->capchildren = 0;
    e->mark_ = 0;
    /* A disconnected block's transaction gets 0 (Core): earlier than any child already in the
     * pool, and servable to every peer at once. */
    e->sequence = proto->bypassed ? 0 : ++mp->entry_seq;
    e->delta = mempool_delta(mp, e->tx.txid);
    for (size_t i = 0; i < e->tx.vin_count; i++) {
        struct mempool_entry *p = mempool_get(mp, e->tx.vin[i].prevout.txid);
        if (p) {
            link_add(&e->parents, &e->nparents, &e->capparents, p);
            link_add(&p->children, &p->nchildren, &p->capchildren, e);
        }
        key_outpoint(key, &e->tx.vin[i].prevout);
        hmap_put(&mp->by_outpoint, key, e);
    }
    /* Children already in the pool (a transaction of a disconnected block coming back). */
    for (size_t o = 0; o < e->tx.vout_count; o++) {
        struct outpoint op;
        memcpy(op.txid, e->tx.txid, 32);
        op.n = (uint32_t)o;
        struct mempool_entry *c = mempool_spender(mp, &op);
        if (c) {
            link_add(&e->children, &e->nchildren, &e->capchildren, c);
            link_add(&c->parents, &c->nparents, &c->capparents, e);
        }
    }
    key_hash(key, e->tx.txid);
    hmap_put(&mp->by_txid, key, e);
    key_hash(key, e->tx.wtxid);
    hmap_put(&mp->by_wtxid, key, e);
    if (mp->n == mp->cap) {
        mp->cap = mp->cap ? mp->cap * 2 : 64;
        mp->v = xrealloc(mp->v, mp->cap * sizeof(*mp->v));
    }
    e->slot_ = mp->n;
    mp->v[mp->n++] = e;
    mp->total_vsize += e->vsize;
    mp->total_fee += e->fee;
    mp->usage += entry_usage(e);
    uint64_t seq = mp->sequence++;
    mp->updated++;
    relinearize(mp, e);
    for (size_t i = 0; i < mp->n_listeners; i++) {
        if (mp->listeners[i].added) {
            mp->listeners[i].added(mp->listeners[i].ctx, e, seq);
        }
    }
    return e;
}

/* Takes e out of every index (links to parents and children dropped; neighbours' chunks are
 * left for the caller to recompute) and frees it. */
static int unbroadcast_take(struct mempool *mp, const uint8_t txid32[32]);

static void remove_one(struct mempool *mp, struct mempool_entry *e, enum mempool_removal why)
{
    uint8_t key[36];
    uint64_t seq = mp->sequence++;
    mp->updated++;
    for (size_t i = 0; i < mp->n_listeners; i++) {
        if (mp->listeners[i].removed) {
            mp->listeners[i].removed(mp->listeners[i].ctx, e, why, seq);
        }
    }
    for (size_t i = 0; i < e->nparents; i++) {
        unlink_from(e->parents[i]->children, &e->parents[i]->nchildren, e);
    }
    for (size_t i = 0; i < e->nchildren; i++) {
        unlink_from(e->children[i]->parents, &e->children[i]->nparents, e);
    }
    for (size_t i = 0; i < e->tx.vin_count; i++) {
        key_outpoint(key, &e->tx.vin[i].prevout);
        struct slot *s = hmap_find(&mp->by_outpoint, key);
        if (s && s->val == e) {
            hmap_del(&mp->by_outpoint, key);
        }
    }
    if (unbroadcast_take(mp, e->tx.txid)) {
        /* Core's removeUnchecked, word for word (its tests wait for the line). */
        char hex[65];
        hex_encode_rev(hex, e->tx.txid, 32);
        LOG(LOG_CAT_MEMPOOL, LOG_LVL_DEBUG, "Removed %s from set of unbroadcast txns%s", hex,
            why == MEMPOOL_REMOVED_BLOCK ? " before confirmation that txn was sent out" : "");
    }
    key_hash(key, e->tx.txid);
    hmap_del(&mp->by_txid, key);
    key_hash(key, e->tx.wtxid);
    hmap_del(&mp->by_wtxid, key);
    mp->v[e->slot_] = mp->v[--mp->n];
    mp->v[e->slot_]->slot_ = e->slot_;
    mp->total_vsize -= e->vsize;
    mp->total_fee -= e->fee;
    mp->usage -= entry_usage(e);
    entry_free(e);
}

/* Removes the entries of set (each once, no duplicates) and recomputes the chunks of what
 * they leave behind. */
static void remove_set(struct mempool *mp, struct mempool_entry **set, size_t n,
                       enum mempool_removal why)
{
    uint64_t gone = ++mp->mark_epoch;
    for (size_t i = 0; i < n; i++) {
        set[i]->mark_ = gone;
    }
    /* The neighbours that stay: their clusters change. */
    struct mempool_entry **nb = NULL;
    size_t nn = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        struct mempool_entry *e = set[i];
        for (size_t j = 0; j < e->nparents; j++) {
            if (e->parents[j]->mark_ != gone) {
                push_unique(&nb, &nn, &cap, e->parents[j]);
            }
        }
        for (size_t j = 0; j < e->nchildren; j++) {
            if (e->children[j]->mark_ != gone) {
                push_unique(&nb, &nn, &cap, e->children[j]);
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        remove_one(mp, set[i], why);
    }
    /* Each remaining cluster once: relinearize marks its members with a fresh epoch, so a
     * neighbour already covered carries a chunk id from this round. */
    uint64_t first_id = mp->chunk_ids;
    for (size_t i = 0; i < nn; i++) {
        if (nb[i]->chunk_id_ >= first_id) {
            continue;
        }
        relinearize(mp, nb[i]);
    }
    free(nb);
}

void mempool_remove_with_descendants(struct mempool *mp, struct mempool_entry *e,
                                     enum mempool_removal why)
{
    size_t n;
    struct mempool_entry **d = walk(e, 0, &n);
    d = xrealloc(d, (n + 1) * sizeof(*d));
    d[n++] = e;
    remove_set(mp, d, n, why);
    free(d);
}

static void clear_delta(struct mempool *mp, const uint8_t txid32[32])
{
    for (size_t i = 0; i < mp->ndeltas; i++) {
        if (memcmp(mp->deltas[i].txid, txid32, 32) == 0) {
            mp->deltas[i] = mp->deltas[--mp->ndeltas];
            return;
        }
    }
}

void mempool_remove_for_block(struct mempool *mp, const struct tx *txs, size_t n, int64_t now)
{
    struct mempool_entry **set = NULL;
    size_t ns = 0, cap = 0;
    for (size_t t = 0; t < n; t++) {
        /* Mined: its prioritisation goes (Core's ClearPrioritisation). */
        clear_delta(mp, txs[t].txid);
        struct mempool_entry *e = mempool_get(mp, txs[t].txid);
        if (e) {
            /* Confirmed: its children now spend a confirmed output. */
            remove_set(mp, &e, 1, MEMPOOL_REMOVED_BLOCK);
            continue;
        }
        /* Conflicts: in-pool spenders of what the block spends, and their descendants. */
        for (size_t i = 0; i < txs[t].vin_count; i++) {
            struct mempool_entry *c = mempool_spender(mp, &txs[t].vin[i].prevout);
            if (c) {
                ns = 0;
                push_unique(&set, &ns, &cap, c);
                size_t nd;
                struct mempool_entry **d = walk(c, 0, &nd);
                for (size_t k = 0; k < nd; k++) {
                    push_unique(&set, &ns, &cap, d[k]);
                }
                free(d);
                remove_set(mp, set, ns, MEMPOOL_REMOVED_CONFLICT);
            }
        }
    }
    free(set);
    mp->last_rolling_update = now;
    mp->block_since_bump = 1;
}

size_t mempool_expire(struct mempool *mp, int64_t now)
{
    size_t count = 0;
    for (;;) {
        struct mempool_entry *old = NULL;
        for (size_t i = 0; i < mp->n; i++) {
            if (mp->v[i]->time < now - mp->opt.expiry_s) {
                old = mp->v[i];
                break;
            }
        }
        if (!old) {
            return count;
        }
        size_t before = mp->n;
        mempool_remove_with_descendants(mp, old, MEMPOOL_REMOVED_EXPIRY);
        count += before - mp->n;
    }
}

int64_t mempool_min_fee(struct mempool *mp, int64_t now)
{
    int64_t r;
    if (!mp->block_since_bump || mp->rolling_min_fee == 0) {
        r = llround(mp->rolling_min_fee);
    } else {
        if (now > mp->last_rolling_update + 10) {
            double halflife = ROLLING_FEE_HALFLIFE;
            if (mp->usage < mp->opt.max_size_bytes / 4) {
                halflife /= 4;
            } else if (mp->usage < mp->opt.max_size_bytes / 2) {
                halflife /= 2;
            }
            mp->rolling_min_fee /= pow(2.0, (double)(now - mp->last_rolling_update) / halflife);
            mp->last_rolling_update = now;
            if (mp->rolling_min_fee < (double)mp->opt.incremental_feerate / 2) {
                mp->rolling_min_fee = 0;
                mp->min_fee_cached = 0;
                return 0;
            }
        }
        r = llround(mp->rolling_min_fee);
        if (r < mp->opt.incremental_feerate) {
            r = mp->opt.incremental_feerate;
        }
    }
    mp->min_fee_cached = r;
    return r;
}

int64_t mempool_min_fee_cached(const struct mempool *mp)
{
    return mp->min_fee_cached;
}

int64_t mempool_min_fee_at(const struct mempool *mp, int64_t now)
{
    double rate = mp->rolling_min_fee;
    if (!mp->block_since_bump || rate == 0) {
        return llround(rate);
    }
    if (now > mp->last_rolling_update + 10) {
        double halflife = ROLLING_FEE_HALFLIFE;
        if (mp->usage < mp->opt.max_size_bytes / 4) {
            halflife /= 4;
        } else if (mp->usage < mp->opt.max_size_bytes / 2) {
            halflife /= 2;
        }
        rate /= pow(2.0, (double)(now - mp->last_rolling_update) / halflife);
        if (rate < (double)mp->opt.incremental_feerate / 2) {
            return 0;
        }
    }
    int64_t r = llround(rate);
    return r < mp->opt.incremental_feerate ? mp->opt.incremental_feerate : r;
}

void mempool_trim(struct mempool *mp, int64_t now, int *evicted_any)
{
    *evicted_any = 0;
    double max_removed = 0;
    size_t nremoved = 0;
    while (mp->n && mp->usage > mp->opt.max_size_bytes) {
        /* The worst chunk: lowest fee rate; among equals the one latest in its cluster. */
        struct mempool_entry *w = mp->v[0];
        for (size_t i = 1; i < mp->n; i++) {
            struct mempool_entry *x = mp->v[i];
            int c = mempool_feerate_cmp(x->chunk_fee_, x->chunk_weight_, w->chunk_fee_,
                                        w->chunk_weight_);
            if (c < 0 || (c == 0 && x->chunk_id_ > w->chunk_id_)) {
                w = x;
            }
        }
        /* Core's trackPackageRemoved: the removed rate plus the increment. */
        double removed = (double)w->chunk_fee_ * 4000.0 / (double)w->chunk_weight_ +
                         (double)mp->opt.incremental_feerate;
        if (removed > mp->rolling_min_fee) {
            mp->rolling_min_fee = removed;
            mp->block_since_bump = 0;
        }
        if (removed > max_removed) {
            max_removed = removed;
        }
        size_t chunk = w->chunk_id_;
        struct mempool_entry **set = NULL;
        size_t ns = 0, cap = 0;
        for (size_t i = 0; i < mp->n; i++) {
            if (mp->v[i]->chunk_id_ == chunk) {
                push_unique(&set, &ns, &cap, mp->v[i]);
                size_t nd;
                struct mempool_entry **d = walk(mp->v[i], 0, &nd);
                for (size_t k = 0; k < nd; k++) {
                    push_unique(&set, &ns, &cap, d[k]);
                }
                free(d);
            }
        }
        nremoved += ns;
        remove_set(mp, set, ns, MEMPOOL_REMOVED_SIZELIMIT);
        free(set);
        *evicted_any = 1;
    }
    if (max_removed > 0) {
        int64_t r = (int64_t)max_removed;
        LOG(LOG_CAT_MEMPOOL, LOG_LVL_DEBUG,
            "Removed %zu txn, rolling minimum fee bumped to %lld.%08lld BTC/kvB", nremoved,
            (long long)(r / 100000000), (long long)(r % 100000000));
    }
    (void)now;
}

void mempool_prioritise(struct mempool *mp, const uint8_t txid32[32], int64_t delta)
{
    size_t i;
    for (i = 0; i < mp->ndeltas; i++) {
        if (memcmp(mp->deltas[i].txid, txid32, 32) == 0) {
            break;
        }
    }
    if (i == mp->ndeltas) {
        mp->deltas = xrealloc(mp->deltas, (mp->ndeltas + 1) * sizeof(*mp->deltas));
        memcpy(mp->deltas[i].txid, txid32, 32);
        mp->deltas[i].delta = 0;
        mp->ndeltas++;
    }
    mp->deltas[i].delta = amount_add_saturating(mp->deltas[i].delta, delta); /* Core's */
    int64_t d = mp->deltas[i].delta;
    if (d == 0) {
        mp->deltas[i] = mp->deltas[--mp->ndeltas];
    }
    struct mempool_entry *e = mempool_get(mp, txid32);
    if (e) {
        e->delta = d;
        mp->updated++; /* the template changes; the mempool sequence does not (Core) */
        relinearize(mp, e);
    }
}

int64_t mempool_delta(const struct mempool *mp, const uint8_t txid32[32])
{
    for (size_t i = 0; i < mp->ndeltas; i++) {
        if (memcmp(mp->deltas[i].txid, txid32, 32) == 0) {
            return mp->deltas[i].delta;
        }
    }
    return 0;
}

struct mempool_delta *mempool_deltas(const struct mempool *mp, size_t *n)
{
    struct mempool_delta *d = xmalloc((mp->ndeltas ? mp->ndeltas : 1) * sizeof(*d));
    if (mp->ndeltas) {
        memcpy(d, mp->deltas, mp->ndeltas * sizeof(*d));
    }
    *n = mp->ndeltas;
    return d;
}

/* ---- chunks for mining ---- */
static int chunk_order(const void *a, const void *b)
{
    const struct mempool_entry *x = *(struct mempool_entry *const *)a;
    const struct mempool_entry *y = *(struct mempool_entry *const *)b;
    int c = mempool_feerate_cmp(y->chunk_fee_, y->chunk_weight_, x->chunk_fee_, x->chunk_weight_);
    if (c) {
        return c;
    }
    if (x->chunk_id_ != y->chunk_id_) {
        return x->chunk_id_ < y->chunk_id_ ? -1 : 1;
    }
    return x->lin_pos_ < y->lin_pos_ ? -1 : x->lin_pos_ > y->lin_pos_;
}

int mempool_mining_cmp(const struct mempool_entry *a, const struct mempool_entry *b)
{
    return chunk_order(&a, &b);
}

struct mempool_chunk *mempool_all_chunks(struct mempool *mp, size_t *n)
{
    struct mempool_entry **s = xmalloc((mp->n ? mp->n : 1) * sizeof(*s));
    if (mp->n) {
        memcpy(s, mp->v, mp->n * sizeof(*s));
    }
    qsort(s, mp->n, sizeof(*s), chunk_order);
    struct mempool_chunk *c = xcalloc(mp->n ? mp->n : 1, sizeof(*c));
    size_t nc = 0;
    for (size_t i = 0; i < mp->n;) {
        size_t j = i;
        while (j < mp->n && s[j]->chunk_id_ == s[i]->chunk_id_) {
            j++;
        }
        c[nc].n = j - i;
        c[nc].txs = xmalloc(c[nc].n * sizeof(*c[nc].txs));
        memcpy(c[nc].txs, s + i, c[nc].n * sizeof(*s));
        c[nc].fee = s[i]->chunk_fee_;
        c[nc].weight = s[i]->chunk_weight_;
        nc++;
        i = j;
    }
    free(s);
    *n = nc;
    return c;
}

void mempool_chunks_free(struct mempool_chunk *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].txs);
    }
    free(c);
}

/* ---- limits and replacement ---- */
int mempool_cluster_within_limits(struct mempool *mp, struct mempool_entry *const *parents,
                                  size_t nparents, struct mempool_entry *const *removed,
                                  size_t nremoved, int64_t adj_weight)
{
    uint64_t skip = 0;
    if (nremoved) {
        skip = ++mp->mark_epoch;
        for (size_t i = 0; i < nremoved; i++) {
            removed[i]->mark_ = skip;
        }
    }
    size_t n;
    struct mempool_entry **cl = cluster_of(mp, parents, nparents, skip, &n);
    /* Core's txgraph bounds the sum of the sigop-adjusted weights by 4 x -limitclustersize. */
    int64_t total = adj_weight;
    for (size_t i = 0; i < n; i++) {
        total += cl[i]->adj_weight;
    }
    free(cl);
    return n + 1 <= mp->opt.cluster_count && total <= mp->opt.cluster_size_vbytes * 4;
}

/* The fee-rate diagram of chunks (fee, vsize) merged across clusters in fee rate order:
 * cumulative points. */
struct point {
    int64_t size, fee;
};

static int chunk_rate_desc(const void *a, const void *b)
{
    const struct point *x = a, *y = b; /* here: a chunk's own (size, fee) */
    return mempool_feerate_cmp(y->fee, y->size, x->fee, x->size);
}

static struct point *diagram(struct point *chunks, size_t n)
{
    qsort(chunks, n, sizeof(*chunks), chunk_rate_desc);
    struct point *d = xmalloc((n + 1) * sizeof(*d));
    d[0].size = d[0].fee = 0;
    for (size_t i = 0; i < n; i++) {
        d[i + 1].size = d[i].size + chunks[i].size;
        d[i + 1].fee = d[i].fee + chunks[i].fee;
    }
    return d;
}

/* The fee of diagram d (n+1 points) at size x (interpolated; past its end: its last fee),
 * compared with fee f at that size via cross-multiplication: <0 if d is below (x, f). */
static int diagram_cmp_at(const struct point *d, size_t n, int64_t x, __int128 fnum, __int128 fden)
{
    /* The value at x is fee_i + (x - size_i) * (fee_{i+1} - fee_i) / (size_{i+1} - size_i). */
    size_t i = 0;
    while (i < n && d[i + 1].size < x) {
        i++;
    }
    __int128 num, den;
    if (i >= n) {
        num = d[n].fee;
        den = 1;
    } else {
        den = d[i + 1].size - d[i].size;
        num = (__int128)d[i].fee * den + (__int128)(x - d[i].size) * (d[i + 1].fee - d[i].fee);
    }
    __int128 l = num * fden, r = fnum * den;
    return l < r ? -1 : l > r;
}

/* Core's CompareChunks on two diagrams: >0 if a is better (nowhere below b, somewhere above),
 * 0 if equal, <0 if worse or incomparable (reported as "not better": -1). */
static int diagram_better(const struct point *a, size_t na, const struct point *b, size_t nb)
{
    int above = 0, below = 0;
    for (size_t i = 1; i <= nb; i++) { /* b's points against a */
        int c = diagram_cmp_at(a, na, b[i].size, b[i].fee, 1);
        above |= c > 0;
        below |= c < 0;
    }
    for (size_t i = 1; i <= na; i++) { /* a's points against b */
        int c = diagram_cmp_at(b, nb, a[i].size, a[i].fee, 1);
        above |= c < 0;
        below |= c > 0;
    }
    if (below) {
        return -1;
    }
    return above ? 1 : 0;
}

int mempool_rbf_improves(struct mempool *mp, struct mempool_entry *const *removed, size_t nremoved,
                         struct mempool_entry *const *parents, size_t nparents, int64_t fee,
                         int64_t weight)
{
    /* The clusters touched: those of the removed entries and of the new one's parents. */
    size_t nseed = nremoved + nparents, n;
    struct mempool_entry **seed = xmalloc((nseed ? nseed : 1) * sizeof(*seed));
    if (nremoved) {
        memcpy(seed, removed, nremoved * sizeof(*seed));
    }
    if (nparents) {
        memcpy(seed + nremoved, parents, nparents * sizeof(*seed));
    }
    struct mempool_entry **cl = cluster_of(mp, seed, nseed, 0, &n);
    free(seed);
    /* Old: the chunks those clusters have now. */
    struct point *oldc = xmalloc((n ? n : 1) * sizeof(*oldc));
    size_t nold = 0;
    uint64_t seen = ++mp->mark_epoch;
    for (size_t i = 0; i < n; i++) {
        cl[i]->mark_ = seen;
    }
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t k = 0; k < i && !dup; k++) {
            dup = cl[k]->chunk_id_ == cl[i]->chunk_id_;
        }
        if (!dup) {
            oldc[nold].size = cl[i]->chunk_weight_;
            oldc[nold].fee = cl[i]->chunk_fee_;
            nold++;
        }
    }
    /* New: those entries without the removed ones, plus the new transaction, linearized. */
    uint64_t gone = ++mp->mark_epoch;
    for (size_t i = 0; i < nremoved; i++) {
        removed[i]->mark_ = gone;
    }
    struct mempool_entry **keep = xmalloc((n ? n : 1) * sizeof(*keep));
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) {
        if (cl[i]->mark_ != gone) {
            keep[nk++] = cl[i];
        }
    }
    struct lin_node extra = {.fee = fee, .vsize = weight, .seq = UINT64_MAX};
    size_t tot;
    struct lin_node *nodes = lin_nodes_of(mp, keep, nk, &extra, parents, nparents, &tot);
    size_t *order = xmalloc(tot * sizeof(*order)), *chunk_of = xmalloc(tot * sizeof(*chunk_of));
    int64_t *cf = xmalloc(tot * sizeof(*cf)), *cs = xmalloc(tot * sizeof(*cs));
    /* keep may hold several clusters: linearizing them together gives each its own greedy
     * order interleaved, and chunking the interleaving can only merge across clusters where
     * rates allow, which the diagram (sorted by rate) does not mind. */
    size_t nnew = linearize(nodes, tot, order, chunk_of, cf, cs);
    struct point *newc = xmalloc((nnew ? nnew : 1) * sizeof(*newc));
    for (size_t c = 0; c < nnew; c++) {
        newc[c].size = cs[c];
        newc[c].fee = cf[c];
    }
    struct point *dold = diagram(oldc, nold), *dnew = diagram(newc, nnew);
    int better = diagram_better(dnew, nnew, dold, nold) > 0;
    free(dold);
    free(dnew);
    free(oldc);
    free(newc);
    free(order);
    free(chunk_of);
    free(cf);
    free(cs);
    lin_nodes_free(nodes, tot);
    free(keep);
    free(cl);
    /* lin_nodes_of used lin_pos_ as scratch: put the chunks back. */
    for (size_t i = 0; i < nparents; i++) {
        relinearize(mp, parents[i]);
    }
    for (size_t i = 0; i < nremoved; i++) {
        relinearize(mp, removed[i]);
    }
    return better;
}

size_t mempool_count_clusters(struct mempool *mp, struct mempool_entry *const *v, size_t n)
{
    uint64_t covered = ++mp->mark_epoch;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i]->mark_ == covered) {
            continue;
        }
        size_t m;
        struct mempool_entry **cl = cluster_of(mp, &v[i], 1, 0, &m);
        for (size_t k = 0; k < m; k++) {
            cl[k]->mark_ = covered;
        }
        free(cl);
        count++;
    }
    return count;
}

void mempool_unbroadcast_add(struct mempool *mp, const uint8_t txid32[32])
{
    pthread_mutex_lock(&mp->ub_mu);
    size_t i;
    for (i = 0; i < mp->nub && memcmp(mp->ub[i], txid32, 32) != 0; i++) {
    }
    if (i == mp->nub) {
        if (mp->nub == mp->capub) {
            mp->capub = mp->capub ? mp->capub * 2 : 16;
            mp->ub = xrealloc(mp->ub, mp->capub * sizeof(*mp->ub));
        }
        memcpy(mp->ub[mp->nub++], txid32, 32);
    }
    pthread_mutex_unlock(&mp->ub_mu);
}

static int unbroadcast_take(struct mempool *mp, const uint8_t txid32[32])
{
    int found = 0;
    pthread_mutex_lock(&mp->ub_mu);
    for (size_t i = 0; i < mp->nub; i++) {
        if (memcmp(mp->ub[i], txid32, 32) == 0) {
            memcpy(mp->ub[i], mp->ub[--mp->nub], 32);
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&mp->ub_mu);
    return found;
}

void mempool_unbroadcast_remove(struct mempool *mp, const uint8_t txid32[32])
{
    (void)unbroadcast_take(mp, txid32);
}

int mempool_unbroadcast_has(struct mempool *mp, const uint8_t txid32[32])
{
    int found = 0;
    pthread_mutex_lock(&mp->ub_mu);
    for (size_t i = 0; i < mp->nub && !found; i++) {
        found = memcmp(mp->ub[i], txid32, 32) == 0;
    }
    pthread_mutex_unlock(&mp->ub_mu);
    return found;
}

size_t mempool_unbroadcast_count(struct mempool *mp)
{
    pthread_mutex_lock(&mp->ub_mu);
    size_t n = mp->nub;
    pthread_mutex_unlock(&mp->ub_mu);
    return n;
}

uint8_t (*mempool_unbroadcast_list(struct mempool *mp, size_t *n))[32]
{
    pthread_mutex_lock(&mp->ub_mu);
    uint8_t(*v)[32] = xmalloc((mp->nub ? mp->nub : 1) * 32);
    if (mp->nub) {
        memcpy(v, mp->ub, mp->nub * 32);
    }
    *n = mp->nub;
    pthread_mutex_unlock(&mp->ub_mu);
    return v;
}

static int lin_order(const void *a, const void *b)
{
    const struct mempool_entry *x = *(struct mempool_entry *const *)a;
    const struct mempool_entry *y = *(struct mempool_entry *const *)b;
    return x->lin_pos_ < y->lin_pos_ ? -1 : x->lin_pos_ > y->lin_pos_;
}

struct mempool_entry **mempool_cluster(const struct mempool *mp, const struct mempool_entry *e,
                                       size_t *n)
{
    (void)mp;
    struct mempool_entry **out = NULL;
    size_t cap = 0;
    *n = 0;
    push_unique(&out, n, &cap, (struct mempool_entry *)e);
    for (size_t k = 0; k < *n; k++) {
        const struct mempool_entry *x = out[k];
        for (size_t i = 0; i < x->nparents; i++) {
            push_unique(&out, n, &cap, x->parents[i]);
        }
        for (size_t i = 0; i < x->nchildren; i++) {
            push_unique(&out, n, &cap, x->children[i]);
        }
    }
    qsort(out, *n, sizeof(*out), lin_order);
    return out;
}

/* ---- a reorganisation's returning transactions ---- */

/* Core's RecursiveDynamicUsage of a transaction plus its queue and index entries, roughly:
 * the serialization, the vectors' headers, the allocations' overhead. */
static int64_t queued_usage(const struct tx *tx)
{
    return (int64_t)tx->size_total + 48 * (int64_t)tx->vin_count + 32 * (int64_t)tx->vout_count +
           160;
}

void mempool_reorg_queue(struct mempool *mp, const struct tx *txs, size_t n, uint8_t *skip)
{
    for (size_t i = 0; i < n; i++) {
        skip[i] = 0;
    }
    /* Core appends a block's transactions last first, blocks tip first. */
    for (size_t k = n; k-- > 1;) {
        if (mp->rq_n == mp->rq_cap) {
            if (mp->rq_head > 0) {
                memmove(mp->rq, mp->rq + mp->rq_head,
                        (mp->rq_n - mp->rq_head) * sizeof(*mp->rq));
                mp->rq_n -= mp->rq_head;
                mp->rq_head = 0;
            }
            if (mp->rq_n == mp->rq_cap) {
                mp->rq_cap = mp->rq_cap ? mp->rq_cap * 2 : 256;
                mp->rq = xrealloc(mp->rq, mp->rq_cap * sizeof(*mp->rq));
            }
        }
        struct reorg_queued *q = &mp->rq[mp->rq_n++];
        memcpy(q->txid, txs[k].txid, 32);
        q->usage = queued_usage(&txs[k]);
        mp->rq_usage += q->usage;
    }
    /* Over the bound: the earliest queued go (Core's LimitMemoryUsage), with whatever in the
     * pool spends them. */
    while (mp->rq_head < mp->rq_n && mp->rq_usage > MEMPOOL_MAX_DISCONNECTED_BYTES) {
        struct reorg_queued *q = &mp->rq[mp->rq_head++];
        mp->rq_usage -= q->usage;
        struct mempool_entry *e = mempool_get(mp, q->txid);
        if (e) {
            mempool_remove_with_descendants(mp, e, MEMPOOL_REMOVED_REORG);
        }
        for (size_t i = 1; i < n; i++) {
            if (memcmp(txs[i].txid, q->txid, 32) == 0) {
                skip[i] = 1;
            }
        }
    }
}

void mempool_reorg_done(struct mempool *mp)
{
    mp->rq_head = mp->rq_n = 0;
    mp->rq_usage = 0;
}

/* Core's TxGraph::Trim for one oversized cluster cl[0..n): the transactions taken greedily,
 * best chunk fee rate first among those whose parents were taken, while the cluster stays
 * within the limits; the rest go. */
static size_t trim_cluster(struct mempool *mp, struct mempool_entry **cl, size_t n)
{
    uint64_t base = mp->mark_epoch + 1;
    mp->mark_epoch += n + 1;
    for (size_t i = 0; i < n; i++) {
        cl[i]->mark_ = base + i;
    }
    uint8_t *state = xcalloc(n, 1); /* 0 undecided, 1 kept, 2 dropped */
    int64_t count = 0, weight = 0;
    for (;;) {
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            if (state[i]) {
                continue;
            }
            int ready = 1;
            for (size_t p = 0; p < cl[i]->nparents && ready; p++) {
                uint64_t m = cl[i]->parents[p]->mark_;
                ready = m >= base && m < base + n && state[m - base] == 1;
            }
            if (!ready) {
                continue;
            }
            if (best == n) {
                best = i;
                continue;
            }
            int c = mempool_feerate_cmp(cl[i]->chunk_fee_, cl[i]->chunk_weight_,
                                        cl[best]->chunk_fee_, cl[best]->chunk_weight_);
            if (c > 0 || (c == 0 && cl[i]->lin_pos_ < cl[best]->lin_pos_)) {
                best = i;
            }
        }
        if (best == n) {
            break;
        }
        if (count + 1 <= (int64_t)mp->opt.cluster_count &&
            weight + cl[best]->adj_weight <= mp->opt.cluster_size_vbytes * 4) {
            state[best] = 1;
            count++;
            weight += cl[best]->adj_weight;
        } else {
            state[best] = 2;
        }
    }
    struct mempool_entry **gone = xmalloc(n * sizeof(*gone));
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (state[i] != 1) {
            gone[ng++] = cl[i];
        }
    }
    free(state);
    if (ng) {
        remove_set(mp, gone, ng, MEMPOOL_REMOVED_SIZELIMIT);
    }
    free(gone);
    return ng;
}

size_t mempool_trim_clusters(struct mempool *mp, const struct tx *txs, size_t n)
{
    size_t removed = 0;
    for (size_t i = 0; i < n; i++) {
        struct mempool_entry *e = mempool_get(mp, txs[i].txid);
        if (!e) {
            continue;
        }
        size_t nc;
        struct mempool_entry **cl = cluster_of(mp, &e, 1, 0, &nc);
        int64_t weight = 0;
        for (size_t k = 0; k < nc; k++) {
            weight += cl[k]->adj_weight;
        }
        if (nc > mp->opt.cluster_count || weight > mp->opt.cluster_size_vbytes * 4) {
            removed += trim_cluster(mp, cl, nc);
        }
        free(cl);
    }
    return removed;
}
