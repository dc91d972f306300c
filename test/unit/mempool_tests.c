/* The mempool layer without a chain: standardness (policy.c) and the pool's structure
 * (mempool.c): links, clusters and their chunks, mining order, eviction with the rolling
 * minimum fee, removal for a block and for conflicts, fee deltas, the RBF diagram check. */
#include <stdlib.h>
#include <string.h>

#include "mempool/mempool.h"
#include "mempool/policy.h"
#include "script/script.h"
#include "test.h"
#include "util/xmalloc.h"

static const uint8_t P2WPKH[22] = {0x00, 0x14, 1,  2,  3,  4,  5,  6,  7,  8,  9,
                                   10,   11,   12, 13, 14, 15, 16, 17, 18, 19, 20};

/* A transaction spending the given outpoints, paying n_out outputs of value each to a
 * P2WPKH script (distinct per seed so that txids differ). */
static void make_tx(struct tx *tx, const struct outpoint *ins, size_t n_in, size_t n_out,
                    int64_t value, uint32_t seed)
{
    tx_init(tx);
    tx->version = 2;
    tx->vin = xcalloc(n_in, sizeof(*tx->vin));
    tx->vin_count = n_in;
    for (size_t i = 0; i < n_in; i++) {
        tx->vin[i].prevout = ins[i];
        tx->vin[i].sequence = 0xfffffffd;
    }
    tx->vout = xcalloc(n_out, sizeof(*tx->vout));
    tx->vout_count = n_out;
    for (size_t o = 0; o < n_out; o++) {
        tx->vout[o].value_sat = value;
        tx->vout[o].script_pubkey.data = xmalloc(sizeof(P2WPKH));
        memcpy(tx->vout[o].script_pubkey.data, P2WPKH, sizeof(P2WPKH));
        tx->vout[o].script_pubkey.data[2] = (uint8_t)seed;
        tx->vout[o].script_pubkey.data[3] = (uint8_t)(seed >> 8);
        tx->vout[o].script_pubkey.len = sizeof(P2WPKH);
    }
    tx->locktime = seed;
    tx_compute_hashes(tx);
}

/* A confirmed outpoint nobody else spends. */
static struct outpoint chain_op(uint32_t k)
{
    struct outpoint op;
    memset(op.txid, 0xee, 32);
    op.txid[0] = (uint8_t)k;
    op.txid[1] = (uint8_t)(k >> 8);
    op.n = 0;
    return op;
}

static struct outpoint out_of(const struct mempool_entry *e, uint32_t n)
{
    struct outpoint op;
    memcpy(op.txid, e->tx.txid, 32);
    op.n = n;
    return op;
}

/* Adds tx (moved) with fee and a vsize as the pool would compute it. */
static struct mempool_entry *add(struct mempool *mp, struct tx *tx, int64_t fee)
{
    struct mempool_entry proto;
    struct buf raw;
    memset(&proto, 0, sizeof(proto));
    buf_init(&raw);
    tx_serialize(tx, &raw, 1);
    proto.raw = raw.data;
    proto.raw_len = raw.len;
    proto.tx = *tx;
    tx_init(tx);
    proto.fee = fee;
    proto.weight = (int64_t)tx_weight(&proto.tx);
    proto.adj_weight = proto.weight;
    proto.vsize = policy_vsize(proto.weight, 0, 20);
    proto.time = 1000;
    mempool_write_lock(mp);
    struct mempool_entry *e = mempool_add(mp, &proto);
    mempool_write_unlock(mp);
    return e;
}

static struct mempool *new_pool(int64_t max_bytes)
{
    struct mempool_options o;
    mempool_options_default(&o);
    if (max_bytes) {
        o.max_size_bytes = max_bytes;
    }
    return mempool_new(&o);
}

static void test_policy(void)
{
    /* Core's dust threshold at 3 sat/vB: 294 for P2WPKH, 546 for P2PKH. */
    uint8_t p2pkh[25] = {OP_DUP, OP_HASH160, 20};
    p2pkh[23] = OP_EQUALVERIFY;
    p2pkh[24] = OP_CHECKSIG;
    struct tx_out o = {.value_sat = 0,
                       .script_pubkey = {.data = (uint8_t *)P2WPKH, .len = sizeof(P2WPKH)}};
    CHECK_EQ_INT(policy_dust_threshold(&o, 3000), 294);
    o.script_pubkey.data = p2pkh;
    o.script_pubkey.len = sizeof(p2pkh);
    CHECK_EQ_INT(policy_dust_threshold(&o, 3000), 546);
    uint8_t op_return[2] = {OP_RETURN, 0};
    o.script_pubkey.data = op_return;
    o.script_pubkey.len = 2;
    CHECK_EQ_INT(policy_dust_threshold(&o, 3000), 0);
    /* CFeeRate::GetFee rounds up. */
    CHECK_EQ_INT(policy_fee_at(100, 110), 11);
    CHECK_EQ_INT(policy_fee_at(100, 111), 12);
    CHECK_EQ_INT(policy_fee_at(0, 111), 0);
    /* The sigop-adjusted size. */
    CHECK_EQ_INT(policy_vsize(400, 0, 20), 100);
    CHECK_EQ_INT(policy_vsize(401, 0, 20), 101);
    CHECK_EQ_INT(policy_vsize(400, 80, 20), 400);

    const char *why = NULL;
    struct tx tx;
    struct outpoint op = chain_op(1);
    make_tx(&tx, &op, 1, 1, 10000, 1);
    CHECK(policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    tx.version = 4;
    CHECK(!policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    CHECK_EQ_STR(why, "version");
    tx.version = 3; /* TRUC: standard */
    CHECK(policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    tx.vout[0].value_sat = 100; /* one dust output is allowed (ephemeral dust) */
    CHECK(policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    tx_clear(&tx);
    make_tx(&tx, &op, 1, 2, 100, 2); /* two are not */
    CHECK(!policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    CHECK_EQ_STR(why, "dust");
    tx.vout[1].script_pubkey.data[0] = OP_NOP; /* OP_NOP <20 bytes>: nonstandard */
    CHECK(!policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    CHECK_EQ_STR(why, "scriptpubkey");
    /* OP_RETURN data: within -datacarriersize, then over it, then -datacarrier=0. */
    free(tx.vout[1].script_pubkey.data);
    tx.vout[1].script_pubkey.data = xcalloc(1, 10);
    tx.vout[1].script_pubkey.data[0] = OP_RETURN;
    tx.vout[1].script_pubkey.data[1] = 8;
    tx.vout[1].script_pubkey.len = 10;
    tx.vout[0].value_sat = 10000;
    CHECK(policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    CHECK(!policy_is_standard_tx(&tx, 9, 1, 3000, &why));
    CHECK_EQ_STR(why, "datacarrier");
    CHECK(!policy_is_standard_tx(&tx, -1, 1, 3000, &why));
    /* A scriptSig that is not push-only. */
    tx.vin[0].script_sig.data = xmalloc(1);
    tx.vin[0].script_sig.data[0] = OP_NOP;
    tx.vin[0].script_sig.len = 1;
    CHECK(!policy_is_standard_tx(&tx, 83, 1, 3000, &why));
    CHECK_EQ_STR(why, "scriptsig-not-pushonly");
    tx_clear(&tx);
}

static void test_links_and_chunks(void)
{
    struct mempool *mp = new_pool(0);
    struct tx t;
    struct outpoint op = chain_op(10);
    /* A parent at a low fee rate and a child paying for both (CPFP): one chunk. */
    make_tx(&t, &op, 1, 2, 50000, 10);
    struct mempool_entry *parent = add(mp, &t, 100);
    struct outpoint pop = out_of(parent, 0);
    make_tx(&t, &pop, 1, 1, 40000, 11);
    struct mempool_entry *child = add(mp, &t, 10000);
    CHECK_EQ_INT(parent->nchildren, 1);
    CHECK_EQ_INT(child->nparents, 1);
    CHECK(mempool_spender(mp, &pop) == child);
    int64_t f, w;
    mempool_chunk(mp, parent, &f, &w);
    CHECK_EQ_INT(f, 10100);
    CHECK_EQ_INT(w, parent->adj_weight + child->adj_weight);
    int64_t count, vsize, fees;
    mempool_ancestor_sums(mp, child, &count, &vsize, &fees);
    CHECK_EQ_INT(count, 2);
    CHECK_EQ_INT(fees, 10100);
    mempool_descendant_sums(mp, parent, &count, &vsize, &fees);
    CHECK_EQ_INT(count, 2);
    /* An unrelated transaction in between by fee rate. */
    struct outpoint op2 = chain_op(11);
    make_tx(&t, &op2, 1, 1, 50000, 12);
    struct mempool_entry *mid = add(mp, &t, 3000);
    mempool_chunk(mp, mid, &f, &w);
    CHECK_EQ_INT(f, 3000);
    size_t nc;
    struct mempool_chunk *ch = mempool_all_chunks(mp, &nc);
    CHECK_EQ_INT(nc, 2);
    /* The CPFP chunk (10100 over two txs) outranks the lone 3000 one; parent first. */
    CHECK_EQ_INT(ch[0].n, 2);
    CHECK(ch[0].txs[0] == parent);
    CHECK(ch[0].txs[1] == child);
    CHECK(ch[1].txs[0] == mid);
    mempool_chunks_free(ch, nc);
    CHECK_EQ_INT(mempool_count_clusters(mp, (struct mempool_entry *[]){parent, child, mid}, 3), 2);

    /* A parent worth mining alone (high fee) and a low child: two chunks. */
    mempool_write_lock(mp);
    mempool_prioritise(mp, parent->tx.txid, 100000);
    mempool_write_unlock(mp);
    CHECK_EQ_INT(mempool_delta(mp, parent->tx.txid), 100000);
    mempool_chunk(mp, parent, &f, &w);
    CHECK_EQ_INT(f, 100100);
    mempool_chunk(mp, child, &f, &w);
    CHECK_EQ_INT(f, 10000);

    /* The block confirming the parent: the child stays, now without a parent. */
    uint8_t ptxid[32];
    memcpy(ptxid, parent->tx.txid, 32);
    struct tx copy;
    tx_copy(&copy, &parent->tx);
    mempool_write_lock(mp);
    mempool_remove_for_block(mp, &copy, 1, 2000);
    mempool_write_unlock(mp);
    CHECK(mempool_get(mp, ptxid) == NULL);
    CHECK(mempool_get(mp, child->tx.txid) == child);
    CHECK_EQ_INT(child->nparents, 0);
    CHECK_EQ_INT(mempool_count(mp), 2);
    tx_clear(&copy);

    /* A block spending what mid spends, by another transaction: mid is a conflict. */
    make_tx(&copy, &op2, 1, 1, 1, 99);
    mempool_write_lock(mp);
    mempool_remove_for_block(mp, &copy, 1, 2000);
    mempool_write_unlock(mp);
    CHECK_EQ_INT(mempool_count(mp), 1);
    tx_clear(&copy);
    mempool_free(mp);
}

static void test_children_before_parents(void)
{
    /* A disconnected block's transaction comes back after its in-pool child: linked. */
    struct mempool *mp = new_pool(0);
    struct tx parent, child;
    struct outpoint op = chain_op(20);
    make_tx(&parent, &op, 1, 1, 50000, 20);
    struct outpoint pop;
    memcpy(pop.txid, parent.txid, 32);
    pop.n = 0;
    make_tx(&child, &pop, 1, 1, 40000, 21);
    struct mempool_entry *c = add(mp, &child, 1000);
    CHECK_EQ_INT(c->nparents, 0);
    struct mempool_entry *p = add(mp, &parent, 1000);
    CHECK_EQ_INT(c->nparents, 1);
    CHECK_EQ_INT(p->nchildren, 1);
    size_t n;
    struct mempool_entry **d = mempool_descendants(mp, p, &n);
    CHECK_EQ_INT(n, 1);
    CHECK(d[0] == c);
    free(d);
    /* Removing the parent takes the child. */
    mempool_write_lock(mp);
    mempool_remove_with_descendants(mp, p, MEMPOOL_REMOVED_CONFLICT);
    mempool_write_unlock(mp);
    CHECK_EQ_INT(mempool_count(mp), 0);
    CHECK_EQ_INT(mempool_total_vsize(mp), 0);
    CHECK_EQ_INT(mempool_usage(mp), 0);
    mempool_free(mp);
}

static void test_trim_and_min_fee(void)
{
    /* A pool bound that holds about ten of these: the lowest fee rates go first, and the
     * rolling minimum fee rises past what was evicted. */
    struct tx t;
    struct mempool *probe = new_pool(0);
    struct outpoint op0 = chain_op(100);
    make_tx(&t, &op0, 1, 1, 50000, 100);
    add(probe, &t, 1000);
    int64_t one = mempool_usage(probe);
    mempool_free(probe);

    struct mempool *mp = new_pool(one * 10 + one / 2);
    for (uint32_t i = 0; i < 20; i++) {
        struct outpoint op = chain_op(200 + i);
        make_tx(&t, &op, 1, 1, 50000, 200 + i);
        add(mp, &t, 1000 + 100 * (int64_t)i);
    }
    int evicted;
    mempool_write_lock(mp);
    mempool_trim(mp, 5000, &evicted);
    mempool_write_unlock(mp);
    CHECK(evicted);
    CHECK(mempool_usage(mp) <= one * 10 + one / 2);
    CHECK_EQ_INT(mempool_count(mp), 10);
    size_t n;
    struct mempool_entry *const *v = mempool_entries(mp, &n);
    int64_t lowest = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        lowest = v[i]->fee < lowest ? v[i]->fee : lowest;
    }
    CHECK_EQ_INT(lowest, 2000); /* 1000..1900 were evicted */
    mempool_write_lock(mp);
    int64_t minfee = mempool_min_fee(mp, 5000);
    mempool_write_unlock(mp);
    /* The last evicted paid 1900 sat for its size; plus the 100 sat/kvB increment. */
    int64_t vsize = v[0]->vsize;
    CHECK(minfee > 1900 * 1000 / vsize);
    CHECK(minfee <= 1900 * 1000 / vsize + 101);
    /* After a block, it decays with a 12-hour half-life (shorter while the pool is small),
     * to nothing once below half the increment. */
    struct tx none;
    tx_init(&none);
    mempool_write_lock(mp);
    mempool_remove_for_block(mp, &none, 0, 5000);
    int64_t later = mempool_min_fee(mp, 5000 + 3 * 3600);
    int64_t much_later = mempool_min_fee(mp, 5000 + 30 * 24 * 3600);
    mempool_write_unlock(mp);
    CHECK(later < minfee);
    CHECK_EQ_INT(much_later, 0);
    mempool_free(mp);
}

static void test_expiry(void)
{
    struct mempool *mp = new_pool(0);
    struct tx t;
    struct outpoint op = chain_op(300);
    make_tx(&t, &op, 1, 1, 50000, 300);
    struct mempool_entry *e = add(mp, &t, 1000);
    (void)e;
    mempool_write_lock(mp);
    CHECK_EQ_INT(mempool_expire(mp, 1000 + 336 * 3600 - 1), 0);
    CHECK_EQ_INT(mempool_expire(mp, 1000 + 336 * 3600 + 1), 1);
    mempool_write_unlock(mp);
    CHECK_EQ_INT(mempool_count(mp), 0);
    mempool_free(mp);
}

static void test_rbf_diagram(void)
{
    struct mempool *mp = new_pool(0);
    struct tx t;
    struct outpoint op = chain_op(400);
    make_tx(&t, &op, 1, 1, 50000, 400);
    struct mempool_entry *old = add(mp, &t, 1000);
    int64_t w = old->adj_weight;
    struct mempool_entry *rm[1] = {old};
    /* Same size, more fee: better. Same fee: not better. */
    mempool_write_lock(mp);
    CHECK(mempool_rbf_improves(mp, rm, 1, NULL, 0, 1100, w));
    CHECK(!mempool_rbf_improves(mp, rm, 1, NULL, 0, 1000, w));
    /* Twice the fee at five times the size: more fee in all, a worse rate at first: the
     * diagrams cross, which is not an improvement. */
    CHECK(!mempool_rbf_improves(mp, rm, 1, NULL, 0, 2000, 5 * w));
    /* Smaller and paying more: better everywhere. */
    CHECK(mempool_rbf_improves(mp, rm, 1, NULL, 0, 1001, w / 2));
    mempool_write_unlock(mp);
    /* Cluster limits: a 64-transaction chain is the most a cluster may hold. */
    struct mempool_entry *tipe = old;
    for (uint32_t i = 0; i < 63; i++) {
        struct outpoint pop = out_of(tipe, 0);
        make_tx(&t, &pop, 1, 1, 40000 - (int64_t)i, 500 + i);
        tipe = add(mp, &t, 1000);
    }
    CHECK_EQ_INT(mempool_count(mp), 64);
    mempool_write_lock(mp);
    CHECK(!mempool_cluster_within_limits(mp, &tipe, 1, NULL, 0, 100));
    /* Replacing the last one instead: 63 stay, the new one makes 64. */
    struct mempool_entry *prev = tipe->parents[0];
    CHECK(mempool_cluster_within_limits(mp, &prev, 1, &tipe, 1, 100));
    mempool_write_unlock(mp);
    mempool_free(mp);
}

/* A reorganisation's clusters over the limits keep, parents first and best chunk fee rate
 * first, what fits (Core's TxGraph::Trim); the rest leave. */
static void test_trim_clusters(void)
{
    struct mempool_options o;
    mempool_options_default(&o);
    o.cluster_count = 3;
    struct mempool *mp = mempool_new(&o);
    struct tx t;
    struct tx ids[5];
    struct outpoint op = chain_op(7);
    struct mempool_entry *e = NULL;
    for (uint32_t i = 0; i < 5; i++) {
        make_tx(&t, &op, 1, 1, 50000 - (int64_t)i * 1000, 900 + i);
        tx_init(&ids[i]);
        memcpy(ids[i].txid, t.txid, 32);
        e = add(mp, &t, 1000);
        op = out_of(e, 0);
    }
    CHECK_EQ_INT(mempool_count(mp), 5);
    mempool_write_lock(mp);
    CHECK_EQ_INT(mempool_trim_clusters(mp, ids, 5), 2);
    mempool_write_unlock(mp);
    CHECK_EQ_INT(mempool_count(mp), 3);
    CHECK(mempool_get(mp, ids[0].txid) && mempool_get(mp, ids[2].txid));
    CHECK(!mempool_get(mp, ids[3].txid) && !mempool_get(mp, ids[4].txid));
    /* Within the limits: nothing to do. */
    mempool_write_lock(mp);
    CHECK_EQ_INT(mempool_trim_clusters(mp, ids, 5), 0);
    mempool_write_unlock(mp);
    mempool_free(mp);
}

/* The disconnected blocks' queue: over 20 MB the earliest queued (the tip block's, last
 * first) are dropped, leaving the pool with their spenders if they came back already. */
static void test_reorg_queue(void)
{
    struct mempool_options o;
    mempool_options_default(&o);
    struct mempool *mp = mempool_new(&o);
    /* Blocks of a coinbase and 1 transaction of about 4 MB each (its size as counted). */
    struct tx blk[6][2];
    uint8_t skip[2];
    for (int b = 0; b < 6; b++) {
        struct outpoint op = chain_op(100 + (uint32_t)b);
        make_tx(&blk[b][0], &op, 1, 1, 1, 200 + (uint32_t)b);
        make_tx(&blk[b][1], &op, 1, 1, 1000, 300 + (uint32_t)b);
        blk[b][1].size_total = 3999000;
    }
    /* The tip block's transaction came back and a child spends it. */
    mempool_write_lock(mp);
    mempool_reorg_queue(mp, blk[0], 2, skip);
    mempool_write_unlock(mp);
    CHECK(!skip[1]);
    struct tx t, back;
    tx_copy(&back, &blk[0][1]);
    struct mempool_entry *p = add(mp, &back, 1000);
    struct outpoint pop = out_of(p, 0);
    make_tx(&t, &pop, 1, 1, 500, 77);
    add(mp, &t, 500);
    CHECK_EQ_INT(mempool_count(mp), 2);
    for (int b = 1; b < 5; b++) {
        mempool_write_lock(mp);
        mempool_reorg_queue(mp, blk[b], 2, skip);
        mempool_write_unlock(mp);
        CHECK(!skip[1]);
    }
    CHECK_EQ_INT(mempool_count(mp), 2); /* 20 MB and the overheads: not over yet */
    mempool_write_lock(mp);
    mempool_reorg_queue(mp, blk[5], 2, skip);
    mempool_write_unlock(mp);
    CHECK(!skip[1]);
    CHECK_EQ_INT(mempool_count(mp), 0); /* the tip block's went, its child with it */
    /* After a connected block the queue starts again. */
    mempool_reorg_done(mp);
    mempool_write_lock(mp);
    mempool_reorg_queue(mp, blk[5], 2, skip);
    mempool_write_unlock(mp);
    CHECK(!skip[1]);
    for (int b = 0; b < 6; b++) {
        tx_clear(&blk[b][0]);
        tx_clear(&blk[b][1]);
    }
    mempool_free(mp);
}

/* Fee deltas add up saturating, as Core's PrioritiseTransaction (mempool.dat and
 * prioritisetransaction give any int64; the files fuzz target overflowed the sum). */
static void test_prioritise_saturates(void)
{
    struct mempool *mp = new_pool(0);
    uint8_t txid[32];
    memset(txid, 7, sizeof(txid));
    mempool_write_lock(mp);
    mempool_prioritise(mp, txid, INT64_MAX - 5);
    mempool_prioritise(mp, txid, INT64_MAX - 5);
    CHECK(mempool_delta(mp, txid) == INT64_MAX);
    mempool_prioritise(mp, txid, INT64_MIN);
    mempool_prioritise(mp, txid, INT64_MIN);
    CHECK(mempool_delta(mp, txid) == INT64_MIN);
    mempool_prioritise(mp, txid, 10);
    CHECK(mempool_delta(mp, txid) == INT64_MIN + 10);
    mempool_write_unlock(mp);
    CHECK(amount_add_saturating(-3, INT64_MIN) == INT64_MIN);
    CHECK(amount_add_saturating(INT64_MAX, -1) == INT64_MAX - 1);
    mempool_free(mp);
}

int main(void)
{
    TEST(test_policy);
    TEST(test_prioritise_saturates);
    TEST(test_links_and_chunks);
    TEST(test_children_before_parents);
    TEST(test_trim_and_min_fee);
    TEST(test_expiry);
    TEST(test_rbf_diagram);
    TEST(test_trim_clusters);
    TEST(test_reorg_queue);
    return test_done();
}
