/* Block assembly (miner.h). */
#include "mempool/miner.h"

#include <stdlib.h>
#include <string.h>

#include "consensus/amount.h"
#include "consensus/merkle.h"
#include "consensus/pow.h"
#include "consensus/tx_check.h"
#include "consensus/versionbits.h"
#include "crypto/hash.h"
#include "mempool/policy.h"
#include "script/script.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/headers.h"

#define MAX_CONSECUTIVE_FAILURES 1000
#define MAX_TIMEWARP 600

void miner_options_default(struct miner_options *o)
{
    o->block_max_weight = MAX_BLOCK_WEIGHT;
    o->block_reserved_weight = 8000;
    o->block_min_feerate = POLICY_DEFAULT_BLOCK_MIN_TX_FEE;
    o->coinbase_sigops = 400;
    o->use_mempool = 1;
    o->have_block_version = 0;
    o->block_version = 0;
}

void block_template_clear(struct block_template *t)
{
    block_clear(&t->b);
    free(t->fees);
    free(t->sigops);
    memset(t, 0, sizeof(*t));
}

struct chain_view {
    struct block_index *tip;
};

static int32_t view_version(void *ctx, int h)
{
    struct block_index *e = block_index_ancestor(((struct chain_view *)ctx)->tip, h);
    return e ? e->header.version : 0;
}

static int64_t view_mtp(void *ctx, int h)
{
    struct block_index *e = block_index_ancestor(((struct chain_view *)ctx)->tip, h);
    return e ? block_index_median_time_past(e) : 0;
}

int32_t miner_block_version(struct chainstate *cs, struct block_index *prev)
{
    const struct chain_params *p = chainstate_params(cs);
    int32_t v = VERSIONBITS_TOP_BITS;
    struct chain_view cv = {.tip = prev};
    struct versionbits_view view = {
        .ctx = &cv, .version = view_version, .median_time_past = view_mtp};
    for (size_t i = 0; i < CHAIN_DEPLOYMENT_COUNT; i++) {
        const struct chain_bip9_deployment *d = &p->deployments[i];
        if (d->start_time == CHAIN_BIP9_NEVER_ACTIVE || d->period <= 0) {
            continue;
        }
        struct bip9_info info;
        char *sig = xmalloc((size_t)d->period + 1);
        bip9_info_at(&info, sig, d, &view, prev->height);
        free(sig);
        if (info.next_state == BIP9_STARTED || info.next_state == BIP9_LOCKED_IN) {
            v |= (int32_t)(1u << d->bit);
        }
    }
    return v;
}

/* Appends a copy of tx to the block. */
static void push_tx(struct block_template *t, size_t *cap, const struct tx *tx, int64_t fee,
                    int64_t sigops)
{
    if (t->b.tx_count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        t->b.txs = xrealloc(t->b.txs, *cap * sizeof(*t->b.txs));
        t->fees = xrealloc(t->fees, *cap * sizeof(*t->fees));
        t->sigops = xrealloc(t->sigops, *cap * sizeof(*t->sigops));
    }
    tx_copy(&t->b.txs[t->b.tx_count], tx);
    t->fees[t->b.tx_count] = fee;
    t->sigops[t->b.tx_count] = sigops;
    t->b.tx_count++;
}

void miner_regenerate_commitments(struct block_template *t, int segwit)
{
    struct tx *cb = &t->b.txs[0];
    /* Drop an old commitment output (it is the last one we added). */
    if (t->commitment_len && cb->vout_count > 1) {
        struct tx_out *last = &cb->vout[cb->vout_count - 1];
        free(last->script_pubkey.data);
        cb->vout_count--;
        t->commitment_len = 0;
    }
    /* Core's GenerateCoinbaseCommitment: the commitment output always (before segwit too,
     * over a reserved value of zeros), the coinbase's witness reserved value only once
     * segwit is active (UpdateUncommittedBlockStructures). */
    {
        uint8_t root[32], buf64[64] = {0}, commit[32];
        int mutated;
        if (segwit && cb->vin[0].witness_count == 0) {
            cb->vin[0].witness = xcalloc(1, sizeof(struct bytes));
            cb->vin[0].witness[0].data = xcalloc(32, 1);
            cb->vin[0].witness[0].len = 32;
            cb->vin[0].witness_count = 1;
        }
        merkle_block_witness_root(root, &mutated, &t->b);
        memcpy(buf64, root, 32);
        if (cb->vin[0].witness_count == 1 && cb->vin[0].witness[0].len == 32) {
            memcpy(buf64 + 32, cb->vin[0].witness[0].data, 32);
        }
        hash_sha256d(commit, buf64, 64);
        t->commitment[0] = OP_RETURN;
        t->commitment[1] = 0x24;
        t->commitment[2] = 0xaa;
        t->commitment[3] = 0x21;
        t->commitment[4] = 0xa9;
        t->commitment[5] = 0xed;
        memcpy(t->commitment + 6, commit, 32);
        t->commitment_len = 38;
        cb->vout = xrealloc(cb->vout, (cb->vout_count + 1) * sizeof(*cb->vout));
        struct tx_out *o = &cb->vout[cb->vout_count++];
        o->value_sat = 0;
        o->script_pubkey.data = xmalloc(38);
        memcpy(o->script_pubkey.data, t->commitment, 38);
        o->script_pubkey.len = 38;
    }
    tx_compute_hashes(cb);
    int mutated;
    merkle_block_root(t->b.header.merkle_root, &mutated, &t->b);
}

/* Core's TestChunkTransactions: every transaction final at the block's height. */
static int chunk_final(const struct mempool_chunk *c, int32_t height, int64_t cutoff)
{
    for (size_t i = 0; i < c->n; i++) {
        if (!consensus_tx_is_final(&c->txs[i]->tx, height, cutoff)) {
            return 0;
        }
    }
    return 1;
}

int miner_create(struct block_template *t, struct chainstate *cs, struct mempool *mp,
                 const uint8_t *spk, size_t spk_len, const struct tx *extra, size_t n_extra,
                 const struct miner_options *o, int64_t now)
{
    const struct chain_params *p = chainstate_params(cs);
    struct block_index *prev = chainstate_tip(cs);
    size_t cap = 0;
    memset(t, 0, sizeof(*t));
    block_init(&t->b);
    if (!prev) {
        return RC_NOT_FOUND;
    }
    t->height = prev->height + 1;
    int64_t mtp = block_index_median_time_past(prev);
    int segwit = t->height >= p->segwit_height;
    /* The coinbase first (its value is set at the end). */
    struct tx cb;
    tx_init(&cb);
    cb.version = 2;
    cb.vin = xcalloc(1, sizeof(*cb.vin));
    cb.vin_count = 1;
    memset(cb.vin[0].prevout.txid, 0, 32);
    cb.vin[0].prevout.n = 0xffffffffu;
    cb.vin[0].sequence = 0xfffffffeu;
    uint8_t push[7];
    size_t pl = consensus_height_push(push, t->height);
    if (t->height <= 16) {
        push[pl++] = OP_0;
    }
    cb.vin[0].script_sig.data = xmalloc(pl);
    memcpy(cb.vin[0].script_sig.data, push, pl);
    cb.vin[0].script_sig.len = pl;
    cb.vout = xcalloc(1, sizeof(*cb.vout));
    cb.vout_count = 1;
    if (spk_len) {
        cb.vout[0].script_pubkey.data = xmalloc(spk_len);
        memcpy(cb.vout[0].script_pubkey.data, spk, spk_len);
    }
    cb.vout[0].script_pubkey.len = spk_len;
    cb.locktime = (uint32_t)(t->height - 1);
    tx_compute_hashes(&cb);
    push_tx(t, &cap, &cb, 0, 0);
    tx_clear(&cb);

    int64_t weight = o->block_reserved_weight, sigops = o->coinbase_sigops, fees = 0;
    /* Core clamps -blockmaxweight between the reserved weight and the consensus limit. */
    int64_t max_weight = o->block_max_weight < o->block_reserved_weight ? o->block_reserved_weight
                         : o->block_max_weight > MAX_BLOCK_WEIGHT       ? MAX_BLOCK_WEIGHT
                                                                        : o->block_max_weight;
    for (size_t i = 0; i < n_extra; i++) {
        push_tx(t, &cap, &extra[i], 0, 0);
        weight += (int64_t)tx_weight(&extra[i]);
    }
    if (o->use_mempool && mp) {
        size_t nc;
        struct mempool_chunk *ch = mempool_all_chunks(mp, &nc);
        int failures = 0;
        for (size_t i = 0; i < nc; i++) {
            struct mempool_chunk *c = &ch[i];
            /* Below the block's minimum fee rate: so is everything after. Per virtual byte,
             * the chunk's weight rounded up, as Core's ToFeePerVSize (by weight, a fee
             * rate 10 sat/kvB under the minimum could pass). */
            if (mempool_feerate_cmp(c->fee, (c->weight + 3) / 4, o->block_min_feerate, 1000) < 0) {
                break;
            }
            int64_t cw = 0, cs_ = 0;
            for (size_t k = 0; k < c->n; k++) {
                cw += c->txs[k]->adj_weight;
                cs_ += c->txs[k]->sigop_cost;
            }
            if (weight + cw >= max_weight || sigops + cs_ >= MAX_BLOCK_SIGOPS_COST ||
                !chunk_final(c, t->height, mtp)) {
                if (++failures > MAX_CONSECUTIVE_FAILURES &&
                    weight > max_weight - o->block_reserved_weight) {
                    break;
                }
                continue;
            }
            for (size_t k = 0; k < c->n; k++) {
                struct mempool_entry *e = c->txs[k];
                push_tx(t, &cap, &e->tx, e->fee, e->sigop_cost);
                fees += e->fee;
                t->n_mempool++;
            }
            weight += cw;
            sigops += cs_;
        }
        mempool_chunks_free(ch, nc);
    }
    t->assembled_weight = weight;
    t->coinbase_value = fees + amount_block_subsidy(t->height, p->subsidy_halving_interval);
    t->b.txs[0].vout[0].value_sat = t->coinbase_value;
    t->fees[0] = -fees;
    t->sigops[0] = 0; /* Core counts the coinbase's legacy sigops: computed below */
    /* Header. */
    struct block_header *h = &t->b.header;
    h->version = o->have_block_version ? o->block_version : miner_block_version(cs, prev);
    memcpy(h->prev_hash, prev->hash, 32);
    int64_t min_time = mtp + 1;
    int interval = p->pow_target_timespan / p->pow_target_spacing;
    if (interval > 0 && t->height % interval == 0 &&
        (int64_t)prev->header.time - MAX_TIMEWARP > min_time) {
        min_time = (int64_t)prev->header.time - MAX_TIMEWARP;
    }
    t->min_time = min_time;
    h->time = (uint32_t)(now > min_time ? now : min_time);
    headers_next_bits(&h->bits, prev, h->time, p);
    h->nonce = 0;
    miner_regenerate_commitments(t, segwit);
    t->sigops[0] = (int64_t)script_sigop_count(t->b.txs[0].vout[0].script_pubkey.data,
                                               t->b.txs[0].vout[0].script_pubkey.len, 0) *
                   WITNESS_SCALE_FACTOR;
    struct buf ser;
    buf_init(&ser);
    block_serialize(&t->b, &ser, 1);
    block_header_hash(h, t->b.hash);
    t->b.size_total = ser.len;
    buf_reset(&ser);
    block_serialize(&t->b, &ser, 0);
    t->b.size_stripped = ser.len;
    buf_clear(&ser);
    t->weight = (int64_t)block_weight(&t->b);
    return RC_OK;
}

int miner_solve(struct block *b, const struct chain_params *p, uint64_t *max_tries)
{
    for (;;) {
        block_header_hash(&b->header, b->hash);
        if (pow_check(b->hash, b->header.bits, p)) {
            return 1;
        }
        if (*max_tries == 0 || b->header.nonce == 0xffffffffu) {
            return 0;
        }
        (*max_tries)--;
        b->header.nonce++;
    }
}
