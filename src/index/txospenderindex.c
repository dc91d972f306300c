/* The spender index (txospenderindex.h), on the shared index thread (base.h). Records of its
 * store, as Core's but naming a transaction by block height and position:
 *
 *   'K'                                       ->  k0 u64le k1 u64le, the SipHash key (random,
 *                                                 written once when the store is created)
 *   's' sip[8] height[4] pos[4] (big-endian)  ->  (empty) an input of the transaction at
 *                                                 position pos of the active chain's block at
 *                                                 height spends an outpoint whose SipHash-2-4
 *                                                 (Core's PresaltedSipHasher of txid, n) is sip
 *   'B'                                       ->  hash[32] the block it is complete to (base.c)
 *
 * Keys of one outpoint's hash sort together; a lookup reads each block they name (the index's
 * block at that height: an ancestor of its best block) and keeps the transaction that really
 * spends the outpoint (hashes may collide).
 */
#include "index/txospenderindex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "crypto/siphash.h"
#include "index/base.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#define KEY_BYTES 17

struct txospender_index {
    struct index_base *base;
    struct chainstate *cs;
    uint64_t k0, k1; /* set before the thread starts, then only read */
    int have_key;
};

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* 's' and the outpoint's hash: the first 9 bytes of each of its keys. */
static void key_prefix(const struct txospender_index *x, const struct outpoint *op, uint8_t *k)
{
    uint64_t h = siphash24_uint256_extra(x->k0, x->k1, op->txid, op->n);
    k[0] = 's';
    for (int i = 0; i < 8; i++) {
        k[1 + i] = (uint8_t)(h >> (56 - 8 * i));
    }
}

/* The SipHash key: read, or made and written when the store is new. */
static int load(void *ctx, struct kv *kv, const struct block_index *e)
{
    (void)e;
    struct txospender_index *x = ctx;
    if (x->have_key) {
        return RC_OK;
    }
    struct buf v;
    buf_init(&v);
    int rc = kv_get(kv, &v, "K", 1);
    if (rc == RC_OK && v.len != 16) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        x->k0 = rd_u64le(v.data);
        x->k1 = rd_u64le(v.data + 8);
    } else if (rc == RC_NOT_FOUND) {
        uint8_t k[16];
        random_bytes(k, sizeof(k));
        x->k0 = rd_u64le(k);
        x->k1 = rd_u64le(k + 8);
        struct kv_batch *b = kv_batch_new();
        kv_batch_put(b, "K", 1, k, sizeof(k));
        rc = kv_write(kv, b, 1);
        kv_batch_free(b);
    }
    buf_clear(&v);
    x->have_key = rc == RC_OK;
    return rc;
}

/* Puts (erase 0) or deletes (erase 1) the keys of every input of block e. */
static void block_keys(struct txospender_index *x, struct kv_batch *batch,
                       const struct block_index *e, const struct block *b, int erase)
{
    uint8_t k[KEY_BYTES];
    put_be32(k + 9, (uint32_t)e->height);
    for (size_t t = 1; t < b->tx_count; t++) {
        put_be32(k + 13, (uint32_t)t);
        for (size_t i = 0; i < b->txs[t].vin_count; i++) {
            key_prefix(x, &b->txs[t].vin[i].prevout, k);
            if (erase) {
                kv_batch_delete(batch, k, sizeof(k));
            } else {
                kv_batch_put(batch, k, sizeof(k), "", 0);
            }
        }
    }
}

static int append(void *ctx, struct kv *kv, struct kv_batch *batch, const struct block_index *e,
                  const struct block *b, const struct block_undo *u)
{
    (void)kv;
    (void)u;
    block_keys(ctx, batch, e, b, 0);
    return RC_OK;
}

static int remove_block(void *ctx, struct kv *kv, struct kv_batch *batch,
                        const struct block_index *e, const struct block *b,
                        const struct block_undo *u)
{
    (void)kv;
    (void)u;
    block_keys(ctx, batch, e, b, 1);
    return RC_OK;
}

static const struct index_ops OPS = {
    .name = "txospenderindex",
    .thread_name = "txospenderidx",
    .no_undo = 1,
    .load = load,
    .append = append,
    .remove = remove_block,
};

int txospender_index_start(struct txospender_index **out, struct chainstate *cs,
                           const struct kv_ops *ops, const char *dir, char *err, size_t err_len)
{
    struct txospender_index *x = xcalloc(1, sizeof(*x));
    x->cs = cs;
    int rc = index_base_start(&x->base, cs, ops, dir, &OPS, x, err, err_len);
    if (rc != RC_OK) {
        free(x);
        return rc;
    }
    *out = x;
    return RC_OK;
}

void txospender_index_stop(struct txospender_index *x)
{
    if (x) {
        index_base_stop(x->base);
        free(x);
    }
}

/* The transaction at position pos of the active chain's block at height, if it spends op:
 * *found 1, its txid, raw and block hash. */
static int check_spender(struct txospender_index *x, uint32_t height, uint32_t pos,
                         const struct outpoint *op, int *found, uint8_t txid[32],
                         struct buf *raw, uint8_t block_hash[32])
{
    struct block_index copy;
    int have = 0;
    struct block_index *best = index_base_best(x->base);
    chainstate_read_lock(x->cs);
    /* The block the index had at that height: with blocks disconnected and no new ones yet,
     * one that left the chain (Core answers with it until the index rewinds). */
    struct block_index *e =
        best && best->height >= (int32_t)height ? block_index_ancestor(best, (int)height) : NULL;
    if (e) {
        copy = *e;
        have = 1;
    }
    chainstate_read_unlock(x->cs);
    if (!have) {
        return RC_OK; /* a key written after the lookup began */
    }
    struct buf data;
    struct block b;
    char err[128];
    buf_init(&data);
    block_init(&b);
    int rc = chainstate_read_block(x->cs, &copy, &data);
    if (rc == RC_OK && block_parse(&b, data.data, data.len, err, sizeof(err)) != 0) {
        rc = RC_CORRUPT;
    }
    for (size_t i = 0; rc == RC_OK && pos < b.tx_count && i < b.txs[pos].vin_count; i++) {
        const struct outpoint *p = &b.txs[pos].vin[i].prevout;
        if (p->n == op->n && memcmp(p->txid, op->txid, 32) == 0) {
            *found = 1;
            memcpy(txid, b.txs[pos].txid, 32);
            tx_serialize(&b.txs[pos], raw, 1);
            memcpy(block_hash, copy.hash, 32);
            break;
        }
    }
    block_clear(&b);
    buf_clear(&data);
    return rc == RC_OK ? RC_OK : RC_IO;
}

int txospender_index_find(struct txospender_index *x, const struct outpoint *op, int *found,
                          uint8_t txid[32], struct buf *raw, uint8_t block_hash[32])
{
    uint8_t prefix[9];
    key_prefix(x, op, prefix);
    *found = 0;
    struct kv_iter *it;
    int rc = kv_iter_new(index_base_kv(x->base), &it);
    if (rc != RC_OK) {
        return rc;
    }
    rc = kv_iter_seek(it, prefix, sizeof(prefix));
    while (rc == RC_OK && !*found && kv_iter_valid(it)) {
        size_t len;
        const uint8_t *k = kv_iter_key(it, &len);
        if (len != KEY_BYTES || memcmp(k, prefix, sizeof(prefix)) != 0) {
            break;
        }
        rc = check_spender(x, get_be32(k + 9), get_be32(k + 13), op, found, txid, raw,
                           block_hash);
        if (rc == RC_OK && !*found) {
            rc = kv_iter_next(it);
        }
    }
    kv_iter_free(it);
    return rc;
}

void txospender_index_summary(struct txospender_index *x, int *synced, int *best_height)
{
    index_base_summary(x->base, synced, best_height);
}

int txospender_index_wait_synced(struct txospender_index *x)
{
    return index_base_wait_synced(x->base);
}
