/* The block filter index (blockfilterindex.h), on the shared index thread (base.h). Records
 * of its store:
 *
 *   'F' hash[32]  ->  filter_header[32] filter (BIP158 encoding)
 *   'B'           ->  hash[32] of the block the index is complete up to on its chain (base.c)
 */
#include "index/blockfilterindex.h"

#include <stdio.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "coins/undo.h"
#include "index/base.h"
#include "index/blockfilter.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct blockfilter_index {
    struct index_base *base;
    uint8_t header[32]; /* the thread's: the filter header of the state's block */
};

/* The filter header stored for hash. */
static int stored_header(struct kv *kv, const uint8_t hash[32], uint8_t out[32])
{
    uint8_t key[33] = {'F'};
    memcpy(key + 1, hash, 32);
    struct buf v;
    buf_init(&v);
    int rc = kv_get(kv, &v, key, sizeof(key));
    if (rc == RC_OK && v.len < 32) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        memcpy(out, v.data, 32);
    }
    buf_clear(&v);
    return rc;
}

static int load(void *ctx, struct kv *kv, const struct block_index *e)
{
    struct blockfilter_index *x = ctx;
    memset(x->header, 0, 32);
    return e ? stored_header(kv, e->hash, x->header) : RC_OK;
}

static int has(void *ctx, struct kv *kv, const uint8_t hash[32])
{
    (void)ctx;
    uint8_t header[32];
    return stored_header(kv, hash, header) == RC_OK;
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

/* Puts e's record in the batch; the state moves to its filter header. */
static int append(void *ctx, struct kv *kv, struct kv_batch *batch, const struct block_index *e,
                  const struct block *b, const struct block_undo *undo)
{
    (void)kv;
    struct blockfilter_index *x = ctx;
    struct buf f;
    buf_init(&f);
    size_t n_prev = 0;
    struct bytes *prev = spent_scripts(undo, &n_prev);
    uint8_t fh[32], header[32], key[33] = {'F'};
    int rc = blockfilter_basic(b, prev, n_prev, &f);
    if (rc == RC_OK) {
        blockfilter_hash(f.data, f.len, fh);
        blockfilter_header(fh, x->header, header);
        struct buf v;
        buf_init(&v);
        buf_append(&v, header, 32);
        buf_append(&v, f.data, f.len);
        memcpy(key + 1, e->hash, 32);
        kv_batch_put(batch, key, sizeof(key), v.data, v.len);
        buf_clear(&v);
        memcpy(x->header, header, 32);
    }
    free(prev);
    buf_clear(&f);
    return rc;
}

static const struct index_ops OPS = {
    .name = "basic block filter index",
    .thread_name = "blkfltbscidx",
    .index_stale = 1,
    .load = load,
    .append = append,
    .has = has,
};

int blockfilter_index_start(struct blockfilter_index **out, struct chainstate *cs,
                            const struct kv_ops *ops, const char *dir, char *err, size_t err_len)
{
    struct blockfilter_index *x = xcalloc(1, sizeof(*x));
    int rc = index_base_start(&x->base, cs, ops, dir, &OPS, x, err, err_len);
    if (rc != RC_OK) {
        free(x);
        return rc;
    }
    *out = x;
    return RC_OK;
}

void blockfilter_index_stop(struct blockfilter_index *x)
{
    if (x) {
        index_base_stop(x->base);
        free(x);
    }
}

int blockfilter_index_lookup(struct blockfilter_index *x, const uint8_t hash[32],
                             struct buf *filter, uint8_t header[32])
{
    uint8_t key[33] = {'F'};
    memcpy(key + 1, hash, 32);
    struct buf v;
    buf_init(&v);
    int rc = kv_get(index_base_kv(x->base), &v, key, sizeof(key));
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
    index_base_summary(x->base, synced, best_height);
}

int blockfilter_index_wait_synced(struct blockfilter_index *x)
{
    return index_base_wait_synced(x->base);
}
