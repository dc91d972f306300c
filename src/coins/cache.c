/* The write-back coins cache: an open-addressing table (linear probing, backward-shift
 * deletion) keyed by SipHash of the outpoint with a per-cache random key. The DIRTY/FRESH
 * rules follow Bitcoin Core's CCoinsViewCache (AddCoin, SpendCoin, BatchWrite). */
#include <string.h>
#include <sys/random.h>

#include "coins/view.h"
#include "crypto/siphash.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct slot {
    struct coins_entry e;
    uint8_t used;
    uint32_t h; /* hash_of(e.op) */
};

#define MIN_SLOTS 256 /* a new or flushed cache's table (a power of two) */

struct coins_cache {
    struct coins_view view; /* first: the view pointer is the cache pointer */
    struct coins_view *base;
    struct slot *slots;
    size_t nslots; /* a power of two */
    size_t count;
    size_t dirty;
    size_t script_bytes;
    uint64_t k0, k1;
    uint8_t best[32];
    int have_best;
    int pass_through; /* as a base: misses are read from our base, not kept here */
};

/* Heap bytes a script of len costs: malloc rounds up to 16 with 8 bytes of header. */
static size_t script_cost(size_t len)
{
    return len ? ((len + 8 + 15) & ~(size_t)15) : 0;
}

static void coin_set_spent(struct coin *c)
{
    free(c->script_pubkey.data);
    memset(c, 0, sizeof(*c));
    c->value_sat = -1;
}

/* The low 32 bits of the outpoint's SipHash: kept in its slot, so that probing compares
 * it before the outpoint, and growing or closing gaps never hashes again (tables stay far
 * below 2^32 slots). */
static uint32_t hash_of(const struct coins_cache *c, const struct outpoint *op)
{
    return (uint32_t)siphash24_uint256_extra(c->k0, c->k1, op->txid, op->n);
}

static int same(const struct outpoint *a, const struct outpoint *b)
{
    return a->n == b->n && memcmp(a->txid, b->txid, 32) == 0;
}

/* Index of op's slot (h = hash_of(op)), or of the empty slot where it would go. */
static size_t probe(const struct coins_cache *c, const struct outpoint *op, uint32_t h)
{
    size_t mask = c->nslots - 1, i = h & mask;
    while (c->slots[i].used && !(c->slots[i].h == h && same(&c->slots[i].e.op, op))) {
        i = (i + 1) & mask;
    }
    return i;
}

static void rehash(struct coins_cache *c, size_t nslots)
{
    struct slot *old = c->slots;
    size_t n = c->nslots, mask = nslots - 1;
    c->slots = xcalloc(nslots, sizeof(struct slot));
    c->nslots = nslots;
    for (size_t i = 0; i < n; i++) {
        if (old[i].used) {
            size_t j = old[i].h & mask; /* keys are distinct: the first free slot */
            while (c->slots[j].used) {
                j = (j + 1) & mask;
            }
            c->slots[j] = old[i];
        }
    }
    free(old);
}

/* A new slot for op (absent; h = hash_of(op)), holding a spent coin with no flags. */
static struct slot *insert_h(struct coins_cache *c, const struct outpoint *op, uint32_t h)
{
    if (2 * (c->count + 1) > c->nslots) {
        rehash(c, c->nslots * 2);
    }
    struct slot *s = &c->slots[probe(c, op, h)];
    memset(s, 0, sizeof(*s));
    s->used = 1;
    s->h = h;
    s->e.op = *op;
    s->e.coin.value_sat = -1;
    c->count++;
    return s;
}

/* Removes the slot at i (its coin already released) and closes the gap behind it. */
static void erase_at(struct coins_cache *c, size_t i)
{
    size_t mask = c->nslots - 1, j = i;
    c->slots[i].used = 0;
    c->count--;
    for (;;) {
        j = (j + 1) & mask;
        if (!c->slots[j].used) {
            break;
        }
        size_t home = c->slots[j].h & mask;
        /* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
        int stays = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            c->slots[i] = c->slots[j];
            c->slots[j].used = 0;
            i = j;
        }
    }
}

/* op's slot, or NULL; *h_out (may be NULL) gets hash_of(op) for a following insert_h. */
static struct slot *find_h(struct coins_cache *c, const struct outpoint *op, uint32_t *h_out)
{
    uint32_t h = hash_of(c, op);
    if (h_out) {
        *h_out = h;
    }
    struct slot *s = &c->slots[probe(c, op, h)];
    return s->used ? s : NULL;
}

static void set_flags(struct coins_cache *c, struct slot *s, uint8_t flags)
{
    if ((flags & COINS_DIRTY) && !(s->e.flags & COINS_DIRTY)) {
        c->dirty++;
    }
    s->e.flags |= flags;
}

static void drop(struct coins_cache *c, struct slot *s)
{
    c->script_bytes -= script_cost(s->e.coin.script_pubkey.len);
    if (s->e.flags & COINS_DIRTY) {
        c->dirty--;
    }
    free(s->e.coin.script_pubkey.data);
    erase_at(c, (size_t)(s - c->slots));
}

/* The slot of op, fetched from the base on a miss. *s is NULL when nobody has the coin. */
static int fetch(struct coins_cache *c, const struct outpoint *op, struct slot **out)
{
    uint32_t h;
    struct slot *s = find_h(c, op, &h);
    struct coin coin;
    if (s) {
        *out = s;
        return RC_OK;
    }
    int rc = c->base->ops->get(c->base, op, &coin);
    if (rc == RC_NOT_FOUND) {
        *out = NULL;
        return RC_OK;
    }
    if (rc) {
        return rc;
    }
    s = insert_h(c, op, h);
    s->e.coin = coin;
    c->script_bytes += script_cost(coin.script_pubkey.len);
    *out = s;
    return RC_OK;
}

int coins_cache_get(struct coins_cache *c, const struct outpoint *op, const struct coin **out)
{
    struct slot *s;
    int rc = fetch(c, op, &s);
    if (rc) {
        return rc;
    }
    if (!s || s->e.coin.value_sat < 0) {
        return RC_NOT_FOUND;
    }
    *out = &s->e.coin;
    return RC_OK;
}

void coins_cache_set_pass_through(struct coins_cache *c, int on)
{
    c->pass_through = on;
}

void coins_cache_set_base(struct coins_cache *c, struct coins_view *new_base)
{
    c->base = new_base;
}

int coins_cache_peek(const struct coins_cache *c, const struct outpoint *op, struct coin *out,
                     int *cached)
{
    struct slot *s = find_h((struct coins_cache *)c, op, NULL); /* reads only */
    *cached = s != NULL;
    if (!s || s->e.coin.value_sat < 0) {
        return RC_NOT_FOUND;
    }
    *out = s->e.coin;
    out->script_pubkey.data = s->e.coin.script_pubkey.len
                                  ? xmemdup(s->e.coin.script_pubkey.data,
                                            s->e.coin.script_pubkey.len)
                                  : NULL;
    return RC_OK;
}

int coins_cache_add(struct coins_cache *c, const struct outpoint *op, struct coin *coin,
                    int possible_overwrite)
{
    if (coin_script_unspendable(coin->script_pubkey.data, coin->script_pubkey.len)) {
        coin_clear(coin);
        return RC_OK;
    }
    uint32_t h;
    struct slot *s = find_h(c, op, &h);
    if (!s) {
        s = insert_h(c, op, h);
    }
    int fresh = 0;
    if (!possible_overwrite) {
        /* A new txid cannot already have an unspent output: that would be a logic error. */
        CHECK_ALWAYS(s->e.coin.value_sat < 0);
        /* Spent but DIRTY: the spend has not reached the base yet, so not FRESH. */
        fresh = !(s->e.flags & COINS_DIRTY);
    }
    c->script_bytes -= script_cost(s->e.coin.script_pubkey.len);
    free(s->e.coin.script_pubkey.data);
    s->e.coin = *coin;
    memset(coin, 0, sizeof(*coin));
    c->script_bytes += script_cost(s->e.coin.script_pubkey.len);
    set_flags(c, s, (uint8_t)(COINS_DIRTY | (fresh ? COINS_FRESH : 0)));
    return RC_OK;
}

int coins_cache_spend(struct coins_cache *c, const struct outpoint *op, struct coin *moved)
{
    struct slot *s;
    int rc = fetch(c, op, &s);
    if (rc) {
        return rc;
    }
    if (!s || s->e.coin.value_sat < 0) {
        return RC_NOT_FOUND;
    }
    if (moved) {
        c->script_bytes -= script_cost(s->e.coin.script_pubkey.len);
        *moved = s->e.coin;
        memset(&s->e.coin, 0, sizeof(s->e.coin));
    }
    if (s->e.flags & COINS_FRESH) {
        drop(c, s); /* the base never saw it: forget it entirely */
    } else {
        c->script_bytes -= script_cost(s->e.coin.script_pubkey.len);
        coin_set_spent(&s->e.coin);
        set_flags(c, s, COINS_DIRTY);
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

/* Empties the cache and gives its table back (Core's ReallocateCache): what the cache
 * costs is its table too, so a table left at its largest would keep the cache "full" and
 * make every block flush. */
static void clear_table(struct coins_cache *c)
{
    if (c->nslots > MIN_SLOTS) {
        free(c->slots);
        c->nslots = MIN_SLOTS;
        c->slots = xcalloc(c->nslots, sizeof(struct slot));
    } else {
        memset(c->slots, 0, c->nslots * sizeof(struct slot));
    }
    c->count = 0;
    c->dirty = 0;
    c->script_bytes = 0;
}

int coins_cache_flush(struct coins_cache *c, int sync)
{
    uint8_t best[32];
    int rc = coins_cache_best_block(c, best);
    if (rc == RC_NOT_FOUND) {
        memset(best, 0, 32);
    } else if (rc) {
        return rc;
    }
    struct coins_entry *v = xmalloc((c->dirty + 1) * sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < c->nslots; i++) {
        if (c->slots[i].used && (c->slots[i].e.flags & COINS_DIRTY)) {
            v[n++] = c->slots[i].e;
        }
    }
    CHECK_ALWAYS(n == c->dirty);
    rc = c->base->ops->batch_write(c->base, v, n, best, sync);
    if (rc) {
        free(v);
        return rc; /* nothing was moved out: the cache is as it was */
    }
    /* Scripts the base took are NULL in v; the rest are freed here, once. */
    for (size_t i = 0; i < n; i++) {
        free(v[i].coin.script_pubkey.data);
    }
    for (size_t i = 0; i < c->nslots; i++) {
        if (c->slots[i].used && !(c->slots[i].e.flags & COINS_DIRTY)) {
            free(c->slots[i].e.coin.script_pubkey.data);
        }
    }
    free(v);
    clear_table(c);
    return RC_OK;
}

void coins_cache_trim_clean(struct coins_cache *c)
{
    for (size_t i = 0; i < c->nslots;) {
        struct slot *s = &c->slots[i];
        if (s->used && !(s->e.flags & COINS_DIRTY)) {
            drop(c, s); /* backward shift may move another entry into i: look again */
        } else {
            i++;
        }
    }
}

/* A child cache's entries merge into this one (Core's CCoinsViewCache::BatchWrite). */
static int cache_batch_write(struct coins_view *v, struct coins_entry *entries, size_t n,
                             const uint8_t best32[32], int sync)
{
    struct coins_cache *c = (struct coins_cache *)v;
    for (size_t i = 0; i < n; i++) {
        struct coins_entry *e = &entries[i];
        if (!(e->flags & COINS_DIRTY)) {
            continue;
        }
        int child_spent = coins_entry_spent(e), child_fresh = (e->flags & COINS_FRESH) != 0;
        uint32_t h;
        struct slot *s = find_h(c, &e->op, &h);
        if (!s) {
            if (child_fresh && child_spent) {
                continue;
            }
            s = insert_h(c, &e->op, h);
            s->e.coin = e->coin;
            e->coin.script_pubkey.data = NULL; /* moved */
            c->script_bytes += script_cost(s->e.coin.script_pubkey.len);
            set_flags(c, s, (uint8_t)(COINS_DIRTY | (child_fresh ? COINS_FRESH : 0)));
            continue;
        }
        /* FRESH in the child means the child saw no unspent coin here: a bug otherwise. */
        CHECK_ALWAYS(!(child_fresh && s->e.coin.value_sat >= 0));
        if ((s->e.flags & COINS_FRESH) && child_spent) {
            drop(c, s);
            continue;
        }
        c->script_bytes -= script_cost(s->e.coin.script_pubkey.len);
        free(s->e.coin.script_pubkey.data);
        s->e.coin = e->coin;
        e->coin.script_pubkey.data = NULL;
        c->script_bytes += script_cost(s->e.coin.script_pubkey.len);
        set_flags(c, s, COINS_DIRTY);
    }
    coins_cache_set_best_block(c, best32);
    (void)sync;
    return RC_OK;
}

static int cache_get(struct coins_view *v, const struct outpoint *op, struct coin *out)
{
    const struct coin *c;
    struct coins_cache *cc = (struct coins_cache *)v;
    if (cc->pass_through && !find_h(cc, op, NULL)) {
        return cc->base->ops->get(cc->base, op, out); /* the child keeps its own copy */
    }
    int rc = coins_cache_get(cc, op, &c);
    if (rc) {
        return rc;
    }
    *out = *c;
    out->script_pubkey.data = c->script_pubkey.len
                                  ? xmemdup(c->script_pubkey.data, c->script_pubkey.len)
                                  : NULL;
    return RC_OK;
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
    uint8_t key[16];
    c->view.ops = &coins_cache_ops;
    c->base = base;
    c->nslots = MIN_SLOTS;
    c->slots = xcalloc(c->nslots, sizeof(struct slot));
    if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
        /* No entropy: the table still works, only its collision resistance is weaker. */
        memset(key, 0x5a, sizeof(key));
    }
    memcpy(&c->k0, key, 8);
    memcpy(&c->k1, key + 8, 8);
    return c;
}

void coins_cache_free(struct coins_cache *c)
{
    if (!c) {
        return;
    }
    for (size_t i = 0; i < c->nslots; i++) {
        if (c->slots[i].used) {
            free(c->slots[i].e.coin.script_pubkey.data);
        }
    }
    free(c->slots);
    free(c);
}

struct coins_view *coins_cache_view(struct coins_cache *c)
{
    return &c->view;
}

size_t coins_cache_memory(const struct coins_cache *c)
{
    return c->nslots * sizeof(struct slot) + c->script_bytes;
}

size_t coins_cache_count(const struct coins_cache *c)
{
    return c->count;
}

size_t coins_cache_dirty_count(const struct coins_cache *c)
{
    return c->dirty;
}
