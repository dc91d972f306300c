/* The coin statistics index (coinstatsindex.h), on the shared index thread (base.h), with
 * Core's arithmetic (index/coinstatsindex.cpp). Records of its store:
 *
 *   'S' hash[32]  ->  the statistics after that block (struct coinstats_entry, 148 bytes:
 *                     height i32, muhash[32], txouts u64, bogosize u64, total_amount i64,
 *                     total_subsidy i64, prevout_spent, new_outputs_ex_coinbase and coinbase
 *                     as u128, the four unspendable totals i64; all little-endian)
 *   'M'           ->  the MuHash3072 state (num || den, 768 bytes) of the written best block
 *   'B'           ->  hash[32] of that block (base.c)
 *
 * Records are keyed by hash, so a block that left the active chain keeps its statistics.
 */
#include "index/coinstatsindex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockindex.h"
#include "coins/coin.h"
#include "coins/stats.h"
#include "coins/undo.h"
#include "consensus/amount.h"
#include "consensus/params.h"
#include "crypto/muhash.h"
#include "index/base.h"
#include "kv/kv.h"
#include "primitives/block.h"
#include "script/script.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#define ENTRY_BYTES 148

struct coinstats_index {
    struct index_base *base;
    int halving_interval;
    /* The thread's: the statistics after the state's block, and the set's MuHash. */
    struct coinstats_entry st;
    struct muhash *mh;
    struct buf ser; /* scratch */
};

static void put_u128(struct buf *b, coinstats_u128 v)
{
    buf_put_u64le(b, (uint64_t)v);
    buf_put_u64le(b, (uint64_t)(v >> 64));
}

static coinstats_u128 rd_u128(const uint8_t *p)
{
    return (coinstats_u128)rd_u64le(p) | ((coinstats_u128)rd_u64le(p + 8) << 64);
}

static void entry_ser(struct buf *b, const struct coinstats_entry *e)
{
    buf_put_u32le(b, (uint32_t)e->height);
    buf_append(b, e->muhash, 32);
    buf_put_u64le(b, e->txouts);
    buf_put_u64le(b, e->bogosize);
    buf_put_u64le(b, (uint64_t)e->total_amount);
    buf_put_u64le(b, (uint64_t)e->total_subsidy);
    put_u128(b, e->prevout_spent);
    put_u128(b, e->new_outputs_ex_coinbase);
    put_u128(b, e->coinbase);
    buf_put_u64le(b, (uint64_t)e->unspendable_genesis);
    buf_put_u64le(b, (uint64_t)e->unspendable_bip30);
    buf_put_u64le(b, (uint64_t)e->unspendable_scripts);
    buf_put_u64le(b, (uint64_t)e->unspendable_unclaimed);
}

static void entry_parse(struct coinstats_entry *e, const uint8_t *p)
{
    e->height = (int32_t)rd_u32le(p);
    memcpy(e->muhash, p + 4, 32);
    p += 36;
    e->txouts = rd_u64le(p);
    e->bogosize = rd_u64le(p + 8);
    e->total_amount = (int64_t)rd_u64le(p + 16);
    e->total_subsidy = (int64_t)rd_u64le(p + 24);
    e->prevout_spent = rd_u128(p + 32);
    e->new_outputs_ex_coinbase = rd_u128(p + 48);
    e->coinbase = rd_u128(p + 64);
    e->unspendable_genesis = (int64_t)rd_u64le(p + 80);
    e->unspendable_bip30 = (int64_t)rd_u64le(p + 88);
    e->unspendable_scripts = (int64_t)rd_u64le(p + 96);
    e->unspendable_unclaimed = (int64_t)rd_u64le(p + 104);
}

static int read_entry(struct kv *kv, const uint8_t hash[32], struct coinstats_entry *out)
{
    uint8_t key[33] = {'S'};
    memcpy(key + 1, hash, 32);
    struct buf v;
    buf_init(&v);
    int rc = kv_get(kv, &v, key, sizeof(key));
    if (rc == RC_OK && v.len != ENTRY_BYTES) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        entry_parse(out, v.data);
    }
    buf_clear(&v);
    return rc;
}

/* Core's CustomInit: the state after e is the stored MuHash, which must give e's entry's. */
static int load(void *ctx, struct kv *kv, const struct block_index *e)
{
    struct coinstats_index *x = ctx;
    memset(&x->st, 0, sizeof(x->st));
    x->st.height = -1;
    muhash_free(x->mh);
    x->mh = muhash_new();
    if (!e) {
        return RC_OK;
    }
    struct buf v;
    buf_init(&v);
    int rc = kv_get(kv, &v, "M", 1);
    if (rc == RC_OK && v.len != MUHASH_SER_BYTES) {
        rc = RC_CORRUPT;
    }
    if (rc == RC_OK) {
        muhash_deserialize(x->mh, v.data);
        rc = read_entry(kv, e->hash, &x->st);
    }
    buf_clear(&v);
    uint8_t h[32];
    muhash_finalize(x->mh, h);
    if (rc == RC_OK && memcmp(h, x->st.muhash, 32) != 0) {
        rc = RC_CORRUPT;
    }
    if (rc != RC_OK) {
        LOG_ERROR("Cannot read current coinstatsindex state; index may be corrupted");
        return rc == RC_NOT_FOUND ? RC_CORRUPT : rc;
    }
    return RC_OK;
}

/* Core's IsBIP30Unspendable: the two mainnet coinbases a later duplicate overwrote. */
static int bip30_unspendable(const struct block_index *e)
{
    static const char *const blocks[2] = {
        "00000000000271a2dc26e7667f8419f2e15416dc6955e5a6c6cdf3f2574dd08e",
        "00000000000af0aed4792b1acee3d966af36cf5def14935db8de83d6f9306f2f"};
    int i = e->height == 91722 ? 0 : e->height == 91812 ? 1 : -1;
    uint8_t h[32];
    return i >= 0 && hex_decode_hash32_rev(h, blocks[i]) == 0 && memcmp(h, e->hash, 32) == 0;
}

/* Adds (sign 1) or removes (sign -1) one coin's element of the set's MuHash. */
static void coin_hash(struct coinstats_index *x, int sign, const struct outpoint *op,
                      uint32_t height, int coinbase, int64_t value, const struct bytes *spk)
{
    buf_reset(&x->ser);
    coins_txout_ser(&x->ser, op, height, coinbase, value, spk->data, spk->len);
    if (sign > 0) {
        muhash_insert(x->mh, x->ser.data, x->ser.len);
    } else {
        muhash_remove(x->mh, x->ser.data, x->ser.len);
    }
}

/* The outputs a transaction creates: into the MuHash and the totals (sign 1), or out of the
 * MuHash (sign -1: a revert restores the totals whole). */
static void add_outputs(struct coinstats_index *x, const struct tx *t, int height, int coinbase,
                        int sign)
{
    struct coinstats_entry *s = &x->st;
    for (uint32_t j = 0; j < t->vout_count; j++) {
        const struct tx_out *o = &t->vout[j];
        int unspendable = script_is_unspendable(o->script_pubkey.data, o->script_pubkey.len);
        if (!unspendable) {
            struct outpoint op;
            memcpy(op.txid, t->txid, 32);
            op.n = j;
            coin_hash(x, sign, &op, (uint32_t)height, coinbase, o->value_sat, &o->script_pubkey);
        }
        if (sign < 0) {
            continue;
        }
        if (unspendable) {
            s->unspendable_scripts += o->value_sat;
            continue;
        }
        if (coinbase) {
            s->coinbase += (coinstats_u128)o->value_sat;
        } else {
            s->new_outputs_ex_coinbase += (coinstats_u128)o->value_sat;
        }
        s->txouts++;
        s->total_amount += o->value_sat;
        s->bogosize += coins_bogosize(o->script_pubkey.len);
    }
}

/* The coins a transaction spends: out of the MuHash and the totals (sign 1), or back into
 * the MuHash (sign -1). */
static void spend_inputs(struct coinstats_index *x, const struct tx *t, const struct tx_undo *u,
                         int sign)
{
    struct coinstats_entry *s = &x->st;
    for (size_t j = 0; j < u->n; j++) {
        const struct coin *c = &u->prev[j];
        coin_hash(x, -sign, &t->vin[j].prevout, c->height, c->coinbase, c->value_sat,
                  &c->script_pubkey);
        if (sign > 0) {
            s->prevout_spent += (coinstats_u128)c->value_sat;
            s->txouts--;
            s->total_amount -= c->value_sat;
            s->bogosize -= coins_bogosize(c->script_pubkey.len);
        }
    }
}

/* Block b (entry e, undo u) applied to the state (sign 1: Core's CustomAppend, with its
 * totals) or taken out of the MuHash (sign -1: RevertBlock). */
static void walk_block(struct coinstats_index *x, const struct block_index *e,
                       const struct block *b, const struct block_undo *u, int64_t subsidy,
                       int sign)
{
    for (size_t i = 0; i < b->tx_count; i++) {
        if (i == 0 && bip30_unspendable(e)) {
            x->st.unspendable_bip30 += sign > 0 ? subsidy : 0;
            continue;
        }
        add_outputs(x, &b->txs[i], e->height, i == 0, sign);
        if (i > 0) {
            spend_inputs(x, &b->txs[i], &u->txs[i - 1], sign);
        }
    }
}

/* 1 if u has one entry per non-coinbase transaction of b and one coin per input. */
static int undo_matches(const struct block *b, const struct block_undo *u)
{
    if ((size_t)u->n + 1 != b->tx_count) {
        return 0;
    }
    for (size_t i = 1; i < b->tx_count; i++) {
        if (u->txs[i - 1].n != b->txs[i].vin_count) {
            return 0;
        }
    }
    return 1;
}

/* Core's CustomAppend. */
static int append(void *ctx, struct kv *kv, struct kv_batch *batch, const struct block_index *e,
                  const struct block *b, const struct block_undo *u)
{
    (void)kv;
    struct coinstats_index *x = ctx;
    struct coinstats_entry *s = &x->st;
    int64_t subsidy = amount_block_subsidy(e->height, x->halving_interval);
    s->total_subsidy += subsidy;
    if (e->height > 0 && !undo_matches(b, u)) {
        return RC_CORRUPT;
    }
    if (e->height > 0) {
        walk_block(x, e, b, u, subsidy, 1);
    }
    if (e->height == 0) {
        s->unspendable_genesis += subsidy;
    }
    int64_t unspendable = s->unspendable_genesis + s->unspendable_bip30 + s->unspendable_scripts +
                          s->unspendable_unclaimed;
    coinstats_u128 in = s->prevout_spent + (coinstats_u128)s->total_subsidy;
    coinstats_u128 out = s->new_outputs_ex_coinbase + s->coinbase + (coinstats_u128)unspendable;
    s->unspendable_unclaimed += (int64_t)(uint64_t)(in - out);
    s->height = e->height;
    muhash_finalize(x->mh, s->muhash);
    uint8_t key[33] = {'S'};
    memcpy(key + 1, e->hash, 32);
    buf_reset(&x->ser);
    entry_ser(&x->ser, s);
    kv_batch_put(batch, key, sizeof(key), x->ser.data, x->ser.len);
    return RC_OK;
}

/* Core's RevertBlock: the block's coins back out of the MuHash, the spent ones in, and the
 * totals of its parent's entry. */
static int remove_block(void *ctx, struct kv *kv, struct kv_batch *batch,
                        const struct block_index *e, const struct block *b,
                        const struct block_undo *u)
{
    (void)batch;
    struct coinstats_index *x = ctx;
    struct coinstats_entry prev;
    if (!e->prev || !undo_matches(b, u)) {
        return RC_CORRUPT;
    }
    int rc = read_entry(kv, e->prev->hash, &prev);
    if (rc != RC_OK) {
        return rc == RC_NOT_FOUND ? RC_CORRUPT : rc;
    }
    walk_block(x, e, b, u, 0, -1);
    uint8_t h[32];
    muhash_finalize(x->mh, h);
    if (memcmp(h, prev.muhash, 32) != 0) {
        LOG_ERROR("coinstatsindex: the MuHash rolled back from %d does not match the stored one",
                  e->height);
        return RC_CORRUPT;
    }
    x->st = prev;
    return RC_OK;
}

static void commit_state(void *ctx, struct kv_batch *b)
{
    struct coinstats_index *x = ctx;
    uint8_t ser[MUHASH_SER_BYTES];
    muhash_serialize(x->mh, ser);
    kv_batch_put(b, "M", 1, ser, sizeof(ser));
}

static const struct index_ops OPS = {
    .name = "coinstatsindex",
    .thread_name = "coinstatsidx",
    .load = load,
    .append = append,
    .remove = remove_block,
    .commit = commit_state,
};

int coinstats_index_start(struct coinstats_index **out, struct chainstate *cs,
                          const struct kv_ops *ops, const char *dir, char *err, size_t err_len)
{
    struct coinstats_index *x = xcalloc(1, sizeof(*x));
    x->halving_interval = chainstate_params(cs)->subsidy_halving_interval;
    buf_init(&x->ser);
    int rc = index_base_start(&x->base, cs, ops, dir, &OPS, x, err, err_len);
    if (rc != RC_OK) {
        muhash_free(x->mh);
        buf_clear(&x->ser);
        free(x);
        return rc;
    }
    *out = x;
    return RC_OK;
}

void coinstats_index_stop(struct coinstats_index *x)
{
    if (x) {
        index_base_stop(x->base);
        muhash_free(x->mh);
        buf_clear(&x->ser);
        free(x);
    }
}

int coinstats_index_lookup(struct coinstats_index *x, const uint8_t hash[32],
                           struct coinstats_entry *out)
{
    return read_entry(index_base_kv(x->base), hash, out);
}

void coinstats_index_summary(struct coinstats_index *x, int *synced, int *best_height)
{
    index_base_summary(x->base, synced, best_height);
}

int coinstats_index_wait_synced(struct coinstats_index *x)
{
    return index_base_wait_synced(x->base);
}
