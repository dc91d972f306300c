/* The write-back coins cache. The DIRTY/FRESH rules follow Bitcoin Core's CCoinsViewCache
 * (AddCoin, SpendCoin, BatchWrite); the layout is its own, made to cost little per coin:
 *
 *   entries: a dense array of 88-byte entries in 2 MiB chunks (each mapped on its own,
 *            so that a chunk given back leaves the process at once, and backed by a huge
 *            page from a cache's second chunk on, so that random lookups in a large cache
 *            rarely miss the TLB): the outpoint, height,
 *            value, flags, and the script inline when it has at most 34 bytes (every
 *            standard output type), else a pointer to it on the heap;
 *   index:   an open-addressing table of 8-byte slots (the outpoint's SipHash, keyed per
 *            cache family, and the entry's number), linear probing, at most 3/4 full,
 *            backward-shift deletion. A removed entry's place is taken by the last one.
 *
 * A coin costs 88 bytes plus 11-21 bytes of table, where Core's node-based map costs about
 * 100-130; the figure -dbcache bounds is counted from what is allocated, not estimated.
 * Caches stacked on a cache share its hash key, so that a child never asks the kernel for
 * randomness and hands its parent the hash it already computed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

#include "coins/view.h"
#include "crypto/siphash.h"
#include "util/check.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

#define INLINE_MAX 34
#define HUGE_BYTES ((size_t)2 << 20) /* a transparent huge page */
#define MIN_SLOTS 256                /* a new or flushed cache's table (a power of two) */

/* Entry flags beyond COINS_DIRTY and COINS_FRESH. */
enum { E_COINBASE = 4, E_HEAP = 8 };

struct centry {
    uint8_t txid[32];
    uint32_t n;
    uint32_t height;
    int64_t value; /* -1: spent */
    uint32_t h;    /* the outpoint's hash (its index slot's too) */
    uint8_t flags;
    uint8_t slen;          /* the inline script's length, without E_HEAP */
    uint8_t s[INLINE_MAX]; /* the script; with E_HEAP: its pointer and uint32 length */
};
_Static_assert(sizeof(struct centry) == 88, "an entry is 88 bytes");
/* A chunk is one huge page: random probes into a large cache then miss the TLB far less. */
#define CHUNK_BYTES HUGE_BYTES
#define CHUNK_N (CHUNK_BYTES / sizeof(struct centry))

struct islot {
    uint32_t h;
    uint32_t i; /* entry number + 1; 0: empty */
};

struct coins_cache {
    struct coins_view view; /* first: the view pointer is the cache pointer */
    struct coins_view *base;
    struct coins_cache *base_cache; /* base as a cache of the same key family, or NULL */
    struct centry **chunks;
    size_t nchunks, chunks_cap;
    struct islot *slots;
    size_t nslots; /* a power of two */
    size_t count;
    size_t dirty;
    size_t heap_bytes;
    uint64_t k0, k1;
    uint8_t best[32];
    int have_best;
    int pass_through; /* as a base: misses are read from our base, not kept here */
    uint64_t hits, misses;
    /* The presence filter (coins_cache_may_have): one 64-bit word per outpoint, two bits
     * set in it; written by the owner only, read by any thread. */
    _Atomic uint64_t *_Atomic pres;
    size_t pres_words;   /* a power of two, once allocated */
    size_t pres_target;  /* its size in bytes, once the cache first drops coins; 0: none */
    struct coin scratch; /* what coins_cache_get and cache_get hand out, borrowed */
    /* The frozen generation (coins_cache_freeze): the entries as they were at the last
     * freeze, read by this cache's lookups and by the writer thread, changed by nobody
     * until the next freeze or sync drops it. NULL: none. */
    struct coins_cache *frozen;
    size_t frozen_mem;        /* coins_cache_memory(frozen), taken when it froze */
    struct coins_cache *drop; /* the generation before, for the writer to free */
    pthread_t writer;
    int writer_running;      /* joined by the owner's thread */
    _Atomic int writer_done; /* set by the writer as it ends */
    int writer_rc;           /* the frozen generation's write: read after the join */
    int pres_rebuild_due;    /* the writer rebuilds the presence filter from frozen */
    uint64_t freezes;
    _Atomic uint64_t writer_ns;
};

static const struct coins_view_ops coins_cache_ops;

/* Heap bytes a script of len costs: malloc rounds up to 16 with 8 bytes of header. */
static size_t script_cost(size_t len)
{
    return (len + 8 + 15) & ~(size_t)15;
}

static struct centry *ent(const struct coins_cache *c, size_t i)
{
    return &c->chunks[i / CHUNK_N][i % CHUNK_N];
}

/* The presence filter's hash: outpoints are transaction hashes (uniform) and an index, so a
 * mix of their first words is enough; a chosen collision only costs a read ahead. */
static uint64_t pres_hash(const uint8_t txid[32], uint32_t n)
{
    uint64_t a, b;
    memcpy(&a, txid, 8);
    memcpy(&b, txid + 8, 8);
    uint64_t x = a ^ (b * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)n * 0xC2B2AE3D27D4EB4Full);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return x;
}

static uint64_t pres_mask(uint64_t x)
{
    return (1ull << ((x >> 40) & 63)) | (1ull << ((x >> 52) & 63));
}

static void pres_set(struct coins_cache *c, const uint8_t txid[32], uint32_t n)
{
    _Atomic uint64_t *p = atomic_load_explicit(&c->pres, memory_order_relaxed);
    if (p) {
        uint64_t x = pres_hash(txid, n);
        _Atomic uint64_t *w = &p[x & (c->pres_words - 1)];
        /* One writer: a load and a store, no locked instruction. */
        atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) | pres_mask(x),
                              memory_order_relaxed);
    }
}

static const uint8_t *escript(const struct centry *e, size_t *len)
{
    if (e->flags & E_HEAP) {
        uint8_t *p;
        uint32_t l;
        memcpy(&p, e->s, sizeof(p));
        memcpy(&l, e->s + sizeof(p), sizeof(l));
        *len = l;
        return p;
    }
    *len = e->slen;
    return e->s;
}

static void escript_free(struct coins_cache *c, struct centry *e)
{
    if (e->flags & E_HEAP) {
        size_t len;
        uint8_t *p = (uint8_t *)escript(e, &len);
        c->heap_bytes -= script_cost(len);
        free(p);
        e->flags &= (uint8_t)~E_HEAP;
    }
    e->slen = 0;
}

/* Gives e a copy of the coin (its old script released). */
static void eset_coin(struct coins_cache *c, struct centry *e, const struct coin *coin)
{
    const uint8_t *spk = coin->script_pubkey.data;
    size_t len = coin->script_pubkey.len;
    escript_free(c, e);
    e->value = coin->value_sat;
    e->height = coin->height;
    e->flags = (uint8_t)((e->flags & ~E_COINBASE) | (coin->coinbase ? E_COINBASE : 0));
    if (len <= INLINE_MAX) {
        if (len) {
            memcpy(e->s, spk, len);
        }
        e->slen = (uint8_t)len;
    } else {
        uint8_t *p = xmemdup(spk, len);
        uint32_t l = (uint32_t)len;
        memcpy(e->s, &p, sizeof(p));
        memcpy(e->s + sizeof(p), &l, sizeof(l));
        e->flags |= E_HEAP;
        c->heap_bytes += script_cost(len);
    }
}

static void eset_spent(struct coins_cache *c, struct centry *e)
{
    escript_free(c, e);
    e->value = -1;
    e->height = 0;
    e->flags &= (uint8_t)~E_COINBASE;
}

/* The coin of e, its script borrowed from e. */
static void ecoin(const struct centry *e, struct coin *out)
{
    size_t len;
    const uint8_t *p = escript(e, &len);
    out->value_sat = e->value;
    out->height = e->height;
    out->coinbase = (e->flags & E_COINBASE) != 0;
    out->script_pubkey.data = len ? (uint8_t *)p : NULL;
    out->script_pubkey.len = len;
}

static uint32_t hash_of(const struct coins_cache *c, const struct outpoint *op)
{
    return (uint32_t)siphash24_uint256_extra(c->k0, c->k1, op->txid, op->n);
}

static int same(const struct centry *e, const struct outpoint *op)
{
    return e->n == op->n && memcmp(e->txid, op->txid, 32) == 0;
}

/* Index of op's slot (h = hash_of(op)), or of the empty slot where it would go. */
static size_t probe(const struct coins_cache *c, const struct outpoint *op, uint32_t h)
{
    size_t mask = c->nslots - 1, i = h & mask;
    for (;;) {
        const struct islot *s = &c->slots[i];
        if (!s->i || (s->h == h && same(ent(c, s->i - 1), op))) {
            return i;
        }
        i = (i + 1) & mask;
    }
}

/* size bytes of zeroed memory, 2 MiB-aligned (so that it can be backed by huge pages, which
 * huge says to ask for) and mapped on its own (so that freeing it gives it back at once). */
static void *map_aligned(size_t size, int huge)
{
    size_t len = size + HUGE_BYTES;
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        xmalloc_fail(size);
    }
    uintptr_t a = ((uintptr_t)p + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
    if (a > (uintptr_t)p) {
        munmap(p, a - (uintptr_t)p);
    }
    size_t tail = (uintptr_t)p + len - (a + size);
    if (tail) {
        munmap((void *)(a + size), tail);
    }
#ifdef MADV_HUGEPAGE
    if (huge) {
        madvise((void *)a, size, MADV_HUGEPAGE);
    }
#else
    (void)huge;
#endif
    return (void *)a;
}

/* The index table: a large one mapped on its own, huge pages asked for. */
static struct islot *table_new(size_t nslots)
{
    size_t bytes = nslots * sizeof(struct islot);
    return bytes >= HUGE_BYTES ? map_aligned(bytes, 1) : xcalloc(nslots, sizeof(struct islot));
}

static void table_free(struct islot *t, size_t nslots)
{
    size_t bytes = nslots * sizeof(struct islot);
    if (bytes >= HUGE_BYTES) {
        munmap(t, bytes);
    } else {
        free(t);
    }
}

static void rehash(struct coins_cache *c, size_t nslots)
{
    struct islot *old = c->slots;
    size_t n = c->nslots, mask = nslots - 1;
    c->slots = table_new(nslots);
    c->nslots = nslots;
    for (size_t i = 0; i < n; i++) {
        if (old[i].i) {
            size_t j = old[i].h & mask; /* keys are distinct: the first free slot */
            while (c->slots[j].i) {
                j = (j + 1) & mask;
            }
            c->slots[j] = old[i];
        }
    }
    table_free(old, n);
}

/* A cache's first chunk is touched page by page (a block's cache fills a fraction of it);
 * the later ones, of a large cache, are backed by huge pages. */
static struct centry *chunk_new(int huge)
{
    return map_aligned(CHUNK_BYTES, huge);
}

static void chunk_free(struct centry *p)
{
    munmap(p, CHUNK_BYTES);
}

/* A new entry for op (absent; h = hash_of(op)), at slot at when that is its empty slot
 * (from a probe since the table last changed; SIZE_MAX: look): spent, no flags. */
static struct centry *insert_at(struct coins_cache *c, const struct outpoint *op, uint32_t h,
                                size_t at)
{
    if (4 * (c->count + 1) > 3 * c->nslots) {
        rehash(c, c->nslots * 2);
        at = SIZE_MAX;
    }
    if (at == SIZE_MAX) {
        at = probe(c, op, h);
    }
    if (c->count / CHUNK_N >= c->nchunks) {
        if (c->nchunks == c->chunks_cap) {
            c->chunks_cap = c->chunks_cap ? 2 * c->chunks_cap : 4;
            c->chunks = xrealloc(c->chunks, c->chunks_cap * sizeof(*c->chunks));
        }
        c->chunks[c->nchunks] = chunk_new(c->nchunks > 0);
        c->nchunks++;
    }
    struct centry *e = ent(c, c->count);
    memcpy(e->txid, op->txid, 32);
    e->n = op->n;
    e->height = 0;
    e->value = -1;
    e->h = h;
    e->flags = 0;
    e->slen = 0;
    pres_set(c, op->txid, op->n);
    c->count++;
    c->slots[at].h = h;
    c->slots[at].i = (uint32_t)c->count;
    return e;
}

/* Closes the gap left by emptying slot i. */
static void slot_erase(struct coins_cache *c, size_t i)
{
    size_t mask = c->nslots - 1, j = i;
    c->slots[i].i = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!c->slots[j].i) {
            break;
        }
        size_t home = c->slots[j].h & mask;
        /* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
        int stays = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            c->slots[i] = c->slots[j];
            c->slots[j].i = 0;
            i = j;
        }
    }
}

/* The slot that refers to entry number idx. */
static size_t slot_of(const struct coins_cache *c, size_t idx)
{
    size_t mask = c->nslots - 1, i = ent(c, idx)->h & mask;
    while (c->slots[i].i != idx + 1) {
        i = (i + 1) & mask;
    }
    return i;
}

/* Gives back chunks past those in use and spare more. */
static void chunks_trim(struct coins_cache *c, size_t spare)
{
    size_t need = (c->count + CHUNK_N - 1) / CHUNK_N;
    while (c->nchunks > need + spare) {
        chunk_free(c->chunks[--c->nchunks]);
    }
}

/* Removes entry idx (its slot at si): the last entry takes its place. */
static void erase_entry(struct coins_cache *c, size_t idx, size_t si)
{
    struct centry *e = ent(c, idx);
    escript_free(c, e);
    if (e->flags & COINS_DIRTY) {
        c->dirty--;
    }
    slot_erase(c, si);
    size_t last = c->count - 1;
    if (idx != last) {
        size_t ls = slot_of(c, last);
        *e = *ent(c, last);
        c->slots[ls].i = (uint32_t)(idx + 1);
    }
    c->count--;
    if (c->count % CHUNK_N == 0) {
        chunks_trim(c, 1);
    }
}

/* op's entry, or NULL; *slot_out gets its slot (or where it would go). */
static struct centry *find(const struct coins_cache *c, const struct outpoint *op, uint32_t h,
                           size_t *slot_out)
{
    size_t i = probe(c, op, h);
    if (slot_out) {
        *slot_out = i;
    }
    return c->slots[i].i ? ent(c, c->slots[i].i - 1) : NULL;
}

static void set_dirty(struct coins_cache *c, struct centry *e, uint8_t more)
{
    if (!(e->flags & COINS_DIRTY)) {
        c->dirty++;
    }
    e->flags |= (uint8_t)(COINS_DIRTY | more);
}

static int cache_get_h(struct coins_cache *c, const struct outpoint *op, uint32_t h,
                       struct coin *out);

/* Reads op from the base into *out (borrowed from the base): from the frozen generation
 * when it has op (it is the base's state then, written or about to be), else the base. */
static int base_get(struct coins_cache *c, const struct outpoint *op, uint32_t h, struct coin *out)
{
    if (c->frozen) {
        const struct centry *e = find(c->frozen, op, h, NULL); /* reads only */
        if (e) {
            if (e->value < 0) {
                return RC_NOT_FOUND;
            }
            ecoin(e, out);
            return RC_OK;
        }
    }
    if (c->base_cache) {
        return cache_get_h(c->base_cache, op, h, out);
    }
    return c->base->ops->get(c->base, op, out);
}

/* op's entry, fetched from the base on a miss; NULL when nobody has the coin. */
static int fetch(struct coins_cache *c, const struct outpoint *op, uint32_t h, struct centry **out,
                 size_t *slot_out)
{
    struct coin coin;
    size_t si;
    struct centry *e = find(c, op, h, &si);
    if (slot_out) {
        *slot_out = si;
    }
    if (e) {
        c->hits++;
        *out = e;
        return RC_OK;
    }
    c->misses++;
    int rc = base_get(c, op, h, &coin);
    if (rc == RC_NOT_FOUND) {
        *out = NULL;
        return RC_OK;
    }
    if (rc) {
        return rc;
    }
    e = insert_at(c, op, h, si); /* reading the base left our table as it was */
    eset_coin(c, e, &coin);
    if (slot_out) {
        *slot_out = slot_of(c, c->count - 1);
    }
    *out = e;
    return RC_OK;
}

int coins_cache_get(struct coins_cache *c, const struct outpoint *op, const struct coin **out)
{
    struct centry *e;
    int rc = fetch(c, op, hash_of(c, op), &e, NULL);
    if (rc) {
        return rc;
    }
    if (!e || e->value < 0) {
        return RC_NOT_FOUND;
    }
    ecoin(e, &c->scratch);
    *out = &c->scratch;
    return RC_OK;
}

void coins_cache_set_pass_through(struct coins_cache *c, int on)
{
    c->pass_through = on;
}

void coins_cache_set_base(struct coins_cache *c, struct coins_view *new_base)
{
    c->base = new_base;
    c->base_cache = NULL;
    if (new_base->ops == &coins_cache_ops) {
        struct coins_cache *b = (struct coins_cache *)new_base;
        if (b->k0 == c->k0 && b->k1 == c->k1) {
            c->base_cache = b;
        }
    }
}

int coins_cache_peek(const struct coins_cache *c, const struct outpoint *op, struct coin *out,
                     int *cached)
{
    uint32_t h = hash_of(c, op);
    const struct centry *e = find(c, op, h, NULL); /* reads only */
    if (!e && c->frozen) {
        e = find(c->frozen, op, h, NULL);
    }
    *cached = e != NULL;
    if (!e || e->value < 0) {
        return RC_NOT_FOUND;
    }
    ecoin(e, out);
    out->script_pubkey.data =
        out->script_pubkey.len ? xmemdup(out->script_pubkey.data, out->script_pubkey.len) : NULL;
    return RC_OK;
}

int coins_cache_add(struct coins_cache *c, const struct outpoint *op, const struct coin *coin,
                    int possible_overwrite)
{
    if (coin_script_unspendable(coin->script_pubkey.data, coin->script_pubkey.len)) {
        return RC_OK;
    }
    uint32_t h = hash_of(c, op);
    size_t si;
    struct centry *e = find(c, op, h, &si);
    if (!e) {
        e = insert_at(c, op, h, si);
    }
    int fresh = 0;
    if (!possible_overwrite) {
        /* A new txid cannot already have an unspent output: that would be a logic error. */
        CHECK_ALWAYS(e->value < 0);
        /* Spent but DIRTY: the spend has not reached the base yet, so not FRESH. */
        fresh = !(e->flags & COINS_DIRTY);
    }
    eset_coin(c, e, coin);
    set_dirty(c, e, fresh ? COINS_FRESH : 0);
    return RC_OK;
}

int coins_cache_prime(struct coins_cache *c, const struct outpoint *op, const struct coin *coin)
{
    uint32_t h = hash_of(c, op);
    size_t si;
    if (find(c, op, h, &si) || (c->frozen && find(c->frozen, op, h, NULL))) {
        return 0; /* the cache knows better: a spend, or the coin already */
    }
    eset_coin(c, insert_at(c, op, h, si), coin); /* clean: what the base holds */
    return 1;
}

int coins_cache_spend(struct coins_cache *c, const struct outpoint *op, struct coin *moved)
{
    struct centry *e;
    size_t si;
    int rc = fetch(c, op, hash_of(c, op), &e, &si);
    if (rc) {
        return rc;
    }
    if (!e || e->value < 0) {
        return RC_NOT_FOUND;
    }
    if (moved) {
        ecoin(e, moved);
        moved->script_pubkey.data =
            moved->script_pubkey.len ? xmemdup(moved->script_pubkey.data, moved->script_pubkey.len)
                                     : NULL;
    }
    if (e->flags & COINS_FRESH) {
        erase_entry(c, (size_t)(c->slots[si].i - 1), si); /* the base never saw it */
    } else {
        eset_spent(c, e);
        set_dirty(c, e, 0);
    }
    return RC_OK;
}

void coins_cache_set_best_block(struct coins_cache *c, const uint8_t hash32[32])
{
    memcpy(c->best, hash32, 32);
    c->have_best = 1;
}

int coins_cache_best_block(struct coins_cache *c, uint8_t hash32[32])
{
    if (!c->have_best) {
        int rc = c->base->ops->best_block(c->base, c->best);
        if (rc) {
            return rc;
        }
        c->have_best = 1;
    }
    memcpy(hash32, c->best, 32);
    return RC_OK;
}

/* Empties the cache and gives its memory back (Core's ReallocateCache): what the cache
 * costs is its table too, so a table left at its largest would keep the cache "full" and
 * make every block flush. */
static void clear_all(struct coins_cache *c)
{
    for (size_t i = 0; i < c->count; i++) {
        escript_free(c, ent(c, i));
    }
    c->count = 0;
    c->dirty = 0;
    while (c->nchunks > 0) {
        chunk_free(c->chunks[--c->nchunks]);
    }
    free(c->chunks);
    c->chunks = NULL;
    c->chunks_cap = 0;
    if (c->nslots > MIN_SLOTS) {
        table_free(c->slots, c->nslots);
        c->nslots = MIN_SLOTS;
        c->slots = table_new(c->nslots);
    } else {
        memset(c->slots, 0, c->nslots * sizeof(struct islot));
    }
}

struct dirty_cursor {
    struct coins_cursor base; /* first */
    const struct coins_cache *c;
    size_t next;
    const uint32_t *order; /* the dirty entries in the order to hand out, or NULL: all, as
                              they lie (norder entries) */
    size_t norder;
    size_t last; /* the entry handed out last */
};

static int dirty_next(struct coins_cursor *cur, struct coins_entry *out)
{
    struct dirty_cursor *d = (struct dirty_cursor *)cur;
    for (;;) {
        size_t i;
        if (d->order) {
            if (d->next >= d->norder) {
                return 0;
            }
            if (d->next + 16 < d->norder) { /* the entries lie all over: ask early */
                __builtin_prefetch(ent(d->c, d->order[d->next + 16]));
            }
            i = d->order[d->next++];
        } else {
            if (d->next >= d->c->count) {
                return 0;
            }
            i = d->next++;
        }
        const struct centry *e = ent(d->c, i);
        if (e->flags & COINS_DIRTY) {
            memcpy(out->op.txid, e->txid, 32);
            out->op.n = e->n;
            ecoin(e, &out->coin);
            out->flags = e->flags & (COINS_DIRTY | COINS_FRESH);
            d->last = i;
            return 1;
        }
    }
}

#define ORDER_BUCKETS 65536

/* The dirty entries by the leading 16 bits of their txid (a counting sort; 4 bytes each):
 * a store handed them so gets each of its batches, and each of its level-0 tables, over a
 * range of keys of its own, with a transaction's outputs side by side, instead of keys
 * from all over (the cache's order, which removals shuffle). LevelDB's fresh tables were
 * 10% larger for it, until compacted. */
static uint32_t *key_order(const struct coins_cache *c, size_t *n_out)
{
    uint32_t *start = xcalloc(ORDER_BUCKETS + 1, sizeof(*start));
    size_t n = 0;
    for (size_t i = 0; i < c->count; i++) {
        const struct centry *e = ent(c, i);
        if (e->flags & COINS_DIRTY) {
            start[((size_t)e->txid[0] << 8 | e->txid[1]) + 1]++;
            n++;
        }
    }
    for (size_t b = 1; b <= ORDER_BUCKETS; b++) {
        start[b] += start[b - 1];
    }
    uint32_t *order = xmalloc((n ? n : 1) * sizeof(*order));
    for (size_t i = 0; i < c->count; i++) {
        const struct centry *e = ent(c, i);
        if (e->flags & COINS_DIRTY) {
            order[start[(size_t)e->txid[0] << 8 | e->txid[1]]++] = (uint32_t)i;
        }
    }
    free(start);
    *n_out = n;
    return order;
}

/* The best block of c, or 32 zero bytes if none is known yet. */
static int best_or_zero(struct coins_cache *c, uint8_t best[32])
{
    int rc = coins_cache_best_block(c, best);
    if (rc == RC_NOT_FOUND) {
        memset(best, 0, 32);
        rc = RC_OK;
    }
    return rc;
}

/* Hands src's dirty entries and best to src's base in one batch (to a store in key order).
 * Changes nothing in src, so the writer thread may call it on a frozen generation. */
static int write_entries(const struct coins_cache *src, const uint8_t best[32], int sync)
{
    struct dirty_cursor cur = {{dirty_next}, src, 0, NULL, 0, 0};
    uint32_t *order = NULL;
    if (src->base->ops != &coins_cache_ops) {
        order = key_order(src, &cur.norder);
        cur.order = order;
    }
    int rc = src->base->ops->batch_write(src->base, &cur.base, best, sync);
    free(order);
    return rc;
}

/* Writes the dirty entries and the best block to the base; then they are clean, and the
 * spent ones gone. */
static int write_dirty(struct coins_cache *c, int sync)
{
    uint8_t best[32];
    int rc = best_or_zero(c, best);
    if (rc || (rc = write_entries(c, best, sync))) {
        return rc; /* the cache is as it was */
    }
    for (size_t i = 0; i < c->count && c->dirty;) {
        struct centry *e = ent(c, i);
        if (!(e->flags & COINS_DIRTY)) {
            i++;
        } else if (e->value < 0) {
            erase_entry(c, i, slot_of(c, i)); /* the last entry moved into i: look again */
        } else {
            e->flags &= (uint8_t) ~(COINS_DIRTY | COINS_FRESH);
            c->dirty--;
            i++;
        }
    }
    CHECK_ALWAYS(c->dirty == 0);
    return RC_OK;
}

/* What dropping e gives back: its entry, and its script when that is on the heap. */
static size_t entry_cost(const struct centry *e)
{
    size_t len;
    escript(e, &len);
    return sizeof(struct centry) + ((e->flags & E_HEAP) ? script_cost(len) : 0);
}

/* One pass of evict_oldest: drops the oldest clean entries worth need bytes of entries and
 * heap scripts (lowest height first). */
static void evict_pass(struct coins_cache *c, size_t need)
{
    enum { NB = 4096 };
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < c->count; i++) {
        const struct centry *e = ent(c, i);
        if (!(e->flags & COINS_DIRTY)) {
            lo = e->height < lo ? e->height : lo;
            hi = e->height > hi ? e->height : hi;
        }
    }
    if (lo > hi) {
        return; /* nothing clean */
    }
    unsigned shift = 0;
    while (((hi - lo) >> shift) >= NB) {
        shift++;
    }
    size_t *bytes = xcalloc(NB, sizeof(size_t));
    for (size_t i = 0; i < c->count; i++) {
        const struct centry *e = ent(c, i);
        if (!(e->flags & COINS_DIRTY)) {
            bytes[(e->height - lo) >> shift] += entry_cost(e);
        }
    }
    /* Whole buckets below the cut go; from the cut bucket only as many bytes as needed. */
    size_t acc = 0, cut = 0;
    while (cut < NB && acc + bytes[cut] < need) {
        acc += bytes[cut++];
    }
    size_t partial = need - acc; /* bytes still to free from bucket cut */
    free(bytes);
    for (size_t i = 0; i < c->count;) {
        struct centry *e = ent(c, i);
        size_t b = (e->height - lo) >> shift;
        if (!(e->flags & COINS_DIRTY) && (b < cut || (b == cut && partial > 0))) {
            if (b == cut) {
                size_t cost = entry_cost(e);
                partial = partial > cost ? partial - cost : 0;
            }
            erase_entry(c, i, slot_of(c, i)); /* the last entry moved into i: look again */
        } else {
            i++;
        }
    }
    chunks_trim(c, 0);
}

/* Drops the oldest clean entries until the cache holds at most keep_bytes (or nothing clean
 * is left). A pass frees what the excess is in entries; the last chunk in use may be partly
 * empty, so a second pass may take some more. */
static void evict_oldest(struct coins_cache *c, size_t keep_bytes)
{
    for (int pass = 0; pass < 4 && c->count > c->dirty; pass++) {
        size_t mem = coins_cache_memory(c);
        if (mem <= keep_bytes) {
            break;
        }
        evict_pass(c, mem - keep_bytes);
    }
    /* A table four times larger than needed costs more than it saves. */
    size_t want = MIN_SLOTS;
    while (4 * c->count > 3 * want) {
        want *= 2;
    }
    if (c->nslots > 4 * want) {
        rehash(c, 2 * want);
    }
}

/* Allocates the presence filter, empty, if it is not yet (the owner's thread). */
static _Atomic uint64_t *pres_alloc(struct coins_cache *c)
{
    _Atomic uint64_t *p = atomic_load_explicit(&c->pres, memory_order_relaxed);
    if (!p) {
        size_t words = 64;
        while (words * 2 * sizeof(uint64_t) <= c->pres_target) {
            words *= 2;
        }
        p = map_aligned(words * sizeof(uint64_t), words * sizeof(uint64_t) >= HUGE_BYTES);
        c->pres_words = words;
        atomic_store_explicit(&c->pres, p, memory_order_release);
    }
    return p;
}

/* Sets c's presence filter to the entries of src (c itself, or its frozen generation):
 * after dropping coins, their bits would make readers skip coins the cache no longer has. A
 * reader meanwhile may miss bits: it then reads a coin the cache has, no harm. */
static void pres_fill(struct coins_cache *c, const struct coins_cache *src)
{
    _Atomic uint64_t *p = atomic_load_explicit(&c->pres, memory_order_relaxed);
    for (size_t w = 0; w < c->pres_words; w++) {
        atomic_store_explicit(&p[w], 0, memory_order_relaxed);
    }
    for (size_t i = 0; i < src->count; i++) {
        const struct centry *e = ent(src, i);
        pres_set(c, e->txid, e->n);
    }
}

static void pres_rebuild(struct coins_cache *c)
{
    pres_alloc(c);
    pres_fill(c, c);
}

/* ---- the frozen generation (coins_cache_freeze) ------------------------------------------ */

/* The writer thread: frees the generation before, refills the presence filter, writes the
 * frozen generation's changes to the store. It changes nothing the owner reads meanwhile:
 * the frozen entries are only read, by both. */
static void *frozen_write(void *arg)
{
    struct coins_cache *c = arg;
    const struct coins_cache *f = c->frozen;
    uint64_t t0 = time_mono_ns();
    coins_cache_free(c->drop);
    c->drop = NULL;
    if (c->pres_rebuild_due) {
        pres_fill(c, f);
    }
    c->writer_rc = write_entries(f, f->best, 0);
    if (c->writer_rc) {
        LOG_ERROR("coins: writing the frozen generation: %s", kv_last_error(NULL));
    }
    atomic_fetch_add(&c->writer_ns, time_mono_ns() - t0);
    atomic_store_explicit(&c->writer_done, 1, memory_order_release);
    return NULL;
}

/* Waits for the frozen generation's write. Its error stays: every later write reports it. */
static int frozen_wait(struct coins_cache *c)
{
    if (c->writer_running) {
        pthread_join(c->writer, NULL);
        c->writer_running = 0;
    }
    return c->writer_rc;
}

/* Waits for the frozen generation's write and drops the generation: the store has it all. */
static int frozen_settle(struct coins_cache *c)
{
    int rc = frozen_wait(c);
    if (rc == RC_OK && c->frozen) {
        coins_cache_free(c->frozen);
        c->frozen = NULL;
        c->frozen_mem = 0;
    }
    return rc;
}

int coins_cache_freeze(struct coins_cache *c)
{
    CHECK_ALWAYS(!c->base_cache); /* over a store, not a cache */
    int rc = frozen_wait(c);
    if (rc) {
        return rc;
    }
    uint8_t best[32];
    if ((rc = best_or_zero(c, best))) {
        return rc;
    }
    /* The entries move as they are, tables and chunks (nothing is copied); this cache starts
     * empty over them. */
    struct coins_cache *f = xcalloc(1, sizeof(*f));
    f->view.ops = &coins_cache_ops;
    f->base = c->base;
    f->k0 = c->k0;
    f->k1 = c->k1;
    f->chunks = c->chunks;
    f->nchunks = c->nchunks;
    f->chunks_cap = c->chunks_cap;
    f->slots = c->slots;
    f->nslots = c->nslots;
    f->count = c->count;
    f->dirty = c->dirty;
    f->heap_bytes = c->heap_bytes;
    memcpy(f->best, best, 32);
    f->have_best = 1;
    c->chunks = NULL;
    c->nchunks = c->chunks_cap = 0;
    c->nslots = MIN_SLOTS;
    c->slots = table_new(c->nslots);
    c->count = c->dirty = c->heap_bytes = 0;
    /* The generation before is in the store: its coins leave the cache now (the writer
     * frees them) and the presence filter is refilled from the new frozen one. */
    c->drop = c->frozen;
    c->pres_rebuild_due = c->drop && c->pres_target;
    if (c->pres_rebuild_due) {
        pres_alloc(c);
    }
    c->frozen = f;
    c->frozen_mem = coins_cache_memory(f);
    c->freezes++;
    c->writer_rc = RC_OK;
    atomic_store_explicit(&c->writer_done, 0, memory_order_relaxed);
    if (pthread_create(&c->writer, NULL, frozen_write, c) != 0) {
        frozen_write(c); /* no thread: written here */
    } else {
        c->writer_running = 1;
    }
    return RC_OK;
}

int coins_cache_wait(struct coins_cache *c)
{
    return frozen_wait(c);
}

int coins_cache_writing(const struct coins_cache *c)
{
    return c->writer_running &&
           !atomic_load_explicit(&((struct coins_cache *)c)->writer_done, memory_order_acquire);
}

int coins_cache_writing_after(const struct coins_cache *c, int64_t max_ms)
{
    int64_t deadline = time_mono_us() + max_ms * 1000;
    while (coins_cache_writing(c)) {
        if (time_mono_us() >= deadline) {
            return 1;
        }
        time_sleep_ms(1);
    }
    return 0;
}

int coins_cache_drop_frozen(struct coins_cache *c)
{
    int had = c->frozen != NULL;
    int rc = frozen_settle(c);
    if (rc == RC_OK && had && c->pres_target) {
        pres_rebuild(c); /* the dropped coins' bits go (made now if it was not yet) */
    }
    return rc;
}

size_t coins_cache_frozen_memory(const struct coins_cache *c)
{
    return c->frozen_mem;
}

void coins_cache_freeze_counters(const struct coins_cache *c, uint64_t *freezes,
                                 uint64_t *writer_ns)
{
    *freezes = c->freezes;
    *writer_ns = atomic_load(&((struct coins_cache *)c)->writer_ns);
}

int coins_cache_sync(struct coins_cache *c, int sync, size_t keep_bytes)
{
    int had_frozen = c->frozen != NULL;
    int rc = frozen_settle(c);
    if (rc == RC_OK) {
        rc = write_dirty(c, sync);
    }
    if (rc == RC_OK) {
        size_t before = c->count + (size_t)had_frozen; /* a dropped generation counts */
        if (keep_bytes == 0) {
            clear_all(c);
        } else {
            evict_oldest(c, keep_bytes);
        }
        /* Made the first time the cache drops coins to stay in its limit; emptied with
         * the cache after that. */
        if (c->pres_target && c->count < before &&
            (keep_bytes > 0 || atomic_load_explicit(&c->pres, memory_order_relaxed))) {
            pres_rebuild(c);
        }
    }
    return rc;
}

void coins_cache_keep_presence(struct coins_cache *c, size_t bytes)
{
    c->pres_target = bytes;
}

int coins_cache_may_have(const struct coins_cache *c, const struct outpoint *op)
{
    _Atomic uint64_t *p =
        atomic_load_explicit(&((struct coins_cache *)c)->pres, memory_order_acquire);
    if (!p) {
        return 0;
    }
    uint64_t x = pres_hash(op->txid, op->n), m = pres_mask(x);
    return (atomic_load_explicit(&p[x & (c->pres_words - 1)], memory_order_relaxed) & m) == m;
}

int coins_cache_flush(struct coins_cache *c, int sync)
{
    return coins_cache_sync(c, sync, 0);
}

void coins_cache_trim_clean(struct coins_cache *c)
{
    for (size_t i = 0; i < c->count;) {
        if (!(ent(c, i)->flags & COINS_DIRTY)) {
            erase_entry(c, i, slot_of(c, i));
        } else {
            i++;
        }
    }
    chunks_trim(c, 1);
}

/* A child cache's entries merge into this one (Core's CCoinsViewCache::BatchWrite). */
static int cache_batch_write(struct coins_view *v, struct coins_cursor *cur,
                             const uint8_t best32[32], int sync)
{
    struct coins_cache *c = (struct coins_cache *)v;
    struct coins_entry e;
    /* A child of our family has hashed each outpoint already, with our key. */
    const struct dirty_cursor *dc =
        cur->next == dirty_next ? (const struct dirty_cursor *)cur : NULL;
    int same_key = dc && dc->c->k0 == c->k0 && dc->c->k1 == c->k1;
    while (cur->next(cur, &e)) {
        if (!(e.flags & COINS_DIRTY)) {
            continue;
        }
        int child_spent = coins_entry_spent(&e), child_fresh = (e.flags & COINS_FRESH) != 0;
        uint32_t h = same_key ? ent(dc->c, dc->last)->h : hash_of(c, &e.op);
        size_t si;
        struct centry *s = find(c, &e.op, h, &si);
        if (!s) {
            if (child_fresh && child_spent) {
                continue;
            }
            s = insert_at(c, &e.op, h, si);
            eset_coin(c, s, &e.coin);
            set_dirty(c, s, child_fresh ? COINS_FRESH : 0);
            continue;
        }
        /* FRESH in the child means the child saw no unspent coin here: a bug otherwise. */
        CHECK_ALWAYS(!(child_fresh && s->value >= 0));
        if ((s->flags & COINS_FRESH) && child_spent) {
            erase_entry(c, (size_t)(c->slots[si].i - 1), si);
            continue;
        }
        if (child_spent) {
            eset_spent(c, s);
        } else {
            eset_coin(c, s, &e.coin);
        }
        set_dirty(c, s, 0);
    }
    coins_cache_set_best_block(c, best32);
    (void)sync;
    return RC_OK;
}

static int cache_get_h(struct coins_cache *c, const struct outpoint *op, uint32_t h,
                       struct coin *out)
{
    struct centry *e;
    if (c->pass_through) {
        e = find(c, op, h, NULL);
        if (!e) {
            c->misses++;
            return base_get(c, op, h, out); /* the child keeps its own copy */
        }
        c->hits++;
    } else {
        int rc = fetch(c, op, h, &e, NULL);
        if (rc) {
            return rc;
        }
    }
    if (!e || e->value < 0) {
        return RC_NOT_FOUND;
    }
    ecoin(e, out);
    return RC_OK;
}

static int cache_get(struct coins_view *v, const struct outpoint *op, struct coin *out)
{
    struct coins_cache *c = (struct coins_cache *)v;
    return cache_get_h(c, op, hash_of(c, op), out);
}

static int cache_best_block(struct coins_view *v, uint8_t hash32[32])
{
    return coins_cache_best_block((struct coins_cache *)v, hash32);
}

static const struct coins_view_ops coins_cache_ops = {
    .get = cache_get,
    .best_block = cache_best_block,
    .batch_write = cache_batch_write,
};

struct coins_cache *coins_cache_new(struct coins_view *base)
{
    struct coins_cache *c = xcalloc(1, sizeof(*c));
    c->view.ops = &coins_cache_ops;
    c->base = base;
    c->nslots = MIN_SLOTS;
    c->slots = table_new(c->nslots);
    if (base->ops == &coins_cache_ops) {
        /* One key per family of stacked caches: the base's hash is the child's. */
        struct coins_cache *b = (struct coins_cache *)base;
        c->k0 = b->k0;
        c->k1 = b->k1;
        c->base_cache = b;
    } else {
        uint8_t key[16];
        if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
            /* No entropy: the table still works, only its collision resistance is weaker. */
            memset(key, 0x5a, sizeof(key));
        }
        memcpy(&c->k0, key, 8);
        memcpy(&c->k1, key + 8, 8);
    }
    return c;
}

void coins_cache_free(struct coins_cache *c)
{
    if (!c) {
        return;
    }
    (void)frozen_wait(c); /* a write that failed was reported by the next one, or is lost
                             with the process: the store then replays from its marker */
    coins_cache_free(c->frozen);
    coins_cache_free(c->drop);
    for (size_t i = 0; i < c->count && c->heap_bytes; i++) {
        escript_free(c, ent(c, i));
    }
    for (size_t i = 0; i < c->nchunks; i++) {
        chunk_free(c->chunks[i]);
    }
    free(c->chunks);
    table_free(c->slots, c->nslots);
    _Atomic uint64_t *p = atomic_load_explicit(&c->pres, memory_order_relaxed);
    if (p) {
        munmap((void *)p, c->pres_words * sizeof(uint64_t));
    }
    free(c);
}

struct coins_view *coins_cache_view(struct coins_cache *c)
{
    return &c->view;
}

size_t coins_cache_memory(const struct coins_cache *c)
{
    size_t pres = atomic_load_explicit(&((struct coins_cache *)c)->pres, memory_order_relaxed)
                      ? c->pres_words * sizeof(uint64_t)
                      : 0;
    return c->nchunks * CHUNK_BYTES + c->chunks_cap * sizeof(*c->chunks) +
           c->nslots * sizeof(struct islot) + c->heap_bytes + pres + c->frozen_mem;
}

size_t coins_cache_count(const struct coins_cache *c)
{
    return c->count + (c->frozen ? c->frozen->count : 0);
}

size_t coins_cache_dirty_count(const struct coins_cache *c)
{
    return c->dirty;
}

void coins_cache_counters(const struct coins_cache *c, uint64_t *hits, uint64_t *misses)
{
    *hits = c->hits;
    *misses = c->misses;
}

size_t coins_cache_entry_bytes(void)
{
    return sizeof(struct centry) + (4 * sizeof(struct islot) + 2) / 3;
}
