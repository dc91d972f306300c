#include "blockstore/blockindex.h"

#include <string.h>

#include "consensus/pow.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/xmalloc.h"

/* Entries live in fixed-size slabs so that pointers to them never move. */
#define SLAB_ENTRIES 4096

struct block_tree {
    struct block_index **slabs;
    size_t nslabs;
    size_t count;
    struct block_index **slots; /* open addressing on the hash; NULL = empty */
    size_t nslots;
};

struct block_tree *block_tree_new(void)
{
    struct block_tree *t = xcalloc(1, sizeof(*t));
    t->nslots = 1024;
    t->slots = xcalloc(t->nslots, sizeof(*t->slots));
    return t;
}

void block_tree_free(struct block_tree *t)
{
    if (!t) {
        return;
    }
    for (size_t i = 0; i < t->nslabs; i++) {
        free(t->slabs[i]);
    }
    free(t->slabs);
    free(t->slots);
    free(t);
}

static size_t slot_for(const struct block_tree *t, const uint8_t hash[32])
{
    /* Block hashes are uniformly distributed: any 8 bytes make a good hash. */
    size_t i = (size_t)rd_u64le(hash + 8) & (t->nslots - 1);
    while (t->slots[i] && memcmp(t->slots[i]->hash, hash, 32) != 0) {
        i = (i + 1) & (t->nslots - 1);
    }
    return i;
}

struct block_index *block_tree_find(const struct block_tree *t, const uint8_t hash32[32])
{
    return t->slots[slot_for(t, hash32)];
}

static void grow(struct block_tree *t)
{
    struct block_index **old = t->slots;
    size_t n = t->nslots;
    t->nslots *= 2;
    t->slots = xcalloc(t->nslots, sizeof(*t->slots));
    for (size_t i = 0; i < n; i++) {
        if (old[i]) {
            t->slots[slot_for(t, old[i]->hash)] = old[i];
        }
    }
    free(old);
}

static struct block_index *new_entry(struct block_tree *t)
{
    if (t->count == t->nslabs * SLAB_ENTRIES) {
        t->slabs = xrealloc(t->slabs, (t->nslabs + 1) * sizeof(*t->slabs));
        t->slabs[t->nslabs++] = xcalloc(SLAB_ENTRIES, sizeof(struct block_index));
    }
    struct block_index *e = &t->slabs[t->count / SLAB_ENTRIES][t->count % SLAB_ENTRIES];
    t->count++;
    return e;
}

/* Core's skip list: turn the lowest 1 bit of height off, or two of them for odd heights. */
static int32_t invert_lowest_one(int32_t n)
{
    return n & (n - 1);
}

static int32_t skip_height(int32_t height)
{
    if (height < 2) {
        return 0;
    }
    return (height & 1) ? invert_lowest_one(invert_lowest_one(height - 1)) + 1
                        : invert_lowest_one(height);
}

static struct block_index *insert(struct block_tree *t, const struct block_header *h,
                                  const uint8_t hash[32])
{
    if (2 * (t->count + 1) > t->nslots) {
        grow(t);
    }
    struct block_index *e = new_entry(t);
    memcpy(e->hash, hash, 32);
    e->header = *h;
    e->file = -1;
    t->slots[slot_for(t, hash)] = e;
    return e;
}

struct block_index *block_tree_add(struct block_tree *t, const struct block_header *h,
                                   struct block_index *prev, uint32_t status)
{
    uint8_t hash[32];
    struct u256 work;
    block_header_hash(h, hash);
    struct block_index *e = block_tree_find(t, hash);
    if (e) {
        return e;
    }
    if (prev) {
        CHECK_ALWAYS(memcmp(prev->hash, h->prev_hash, 32) == 0);
        CHECK_ALWAYS(block_tree_find(t, prev->hash) == prev);
    }
    e = insert(t, h, hash);
    e->prev = prev;
    e->height = prev ? prev->height + 1 : 0;
    e->status = status;
    pow_block_proof(&work, h->bits);
    if (prev) {
        u256_add(&e->chain_work, &prev->chain_work, &work);
        e->skip = block_index_ancestor(prev, skip_height(e->height));
        e->time_max = prev->time_max > (int64_t)h->time ? prev->time_max : (int64_t)h->time;
    } else {
        e->chain_work = work;
        e->time_max = h->time;
    }
    return e;
}

struct block_index *block_tree_add_anchor(struct block_tree *t, const struct block_header *h,
                                          int32_t height, const struct u256 *chain_work)
{
    uint8_t hash[32];
    block_header_hash(h, hash);
    struct block_index *e = block_tree_find(t, hash);
    if (e) {
        return e;
    }
    e = insert(t, h, hash);
    e->height = height;
    e->chain_work = *chain_work;
    e->status = BLOCK_VALID_TREE;
    e->time_max = h->time;
    return e;
}

size_t block_tree_size(const struct block_tree *t)
{
    return t->count;
}

int block_tree_foreach(const struct block_tree *t, int (*fn)(void *ctx, struct block_index *e),
                       void *ctx)
{
    for (size_t i = 0; i < t->count; i++) {
        int rc = fn(ctx, &t->slabs[i / SLAB_ENTRIES][i % SLAB_ENTRIES]);
        if (rc) {
            return rc;
        }
    }
    return 0;
}

struct block_index *block_index_ancestor(struct block_index *e, int32_t height)
{
    if (!e || height > e->height || height < 0) {
        return NULL;
    }
    /* Core's GetAncestor: take the skip pointer unless the previous entry's skip is a
     * strictly better jump that still does not overshoot. */
    while (e && e->height > height) {
        int32_t hs = skip_height(e->height), hsp = skip_height(e->height - 1);
        if (e->skip && (hs == height || (hs > height && !(hsp < hs - 2 && hsp >= height)))) {
            e = e->skip;
        } else {
            e = e->prev;
        }
    }
    return e && e->height == height ? e : NULL;
}

int64_t block_index_median_time_past(const struct block_index *e)
{
    int64_t v[11];
    int n = 0;
    for (; e && n < 11; e = e->prev) {
        v[n++] = e->header.time;
    }
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    }
    return n ? v[n / 2] : 0;
}

int block_index_is_valid(const struct block_index *e, uint32_t level)
{
    if (e->status & BLOCK_FAILED_MASK) {
        return 0;
    }
    return (e->status & BLOCK_VALID_MASK) >= level;
}

int block_index_raise_validity(struct block_index *e, uint32_t level)
{
    if (e->status & BLOCK_FAILED_MASK) {
        return 0;
    }
    if ((e->status & BLOCK_VALID_MASK) < level) {
        e->status = (e->status & ~(uint32_t)BLOCK_VALID_MASK) | level;
        return 1;
    }
    return 0;
}

struct block_index *block_index_fork_point(struct block_index *a, struct block_index *b)
{
    if (!a || !b) {
        return NULL;
    }
    if (a->height > b->height) {
        a = block_index_ancestor(a, b->height);
    } else if (b->height > a->height) {
        b = block_index_ancestor(b, a->height);
    }
    while (a && b && a != b) {
        a = a->prev;
        b = b->prev;
    }
    return a == b ? a : NULL;
}
