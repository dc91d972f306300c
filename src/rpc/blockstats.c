/* The blockstats RPC group: getblockstats, Core's per-block statistics from a block and its
 * undo data. */
#include "rpc/blockstats.h"

#include <stdlib.h>
#include <string.h>

#include "coins/coin.h"
#include "consensus/amount.h"
#include "primitives/serialize.h"
#include "rpc/blockchain.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* getblockstats helpers: Core's CalculateTruncatedMedian and CalculatePercentilesByWeight. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t truncated_median(int64_t *v, size_t n)
{
    if (n == 0) {
        return 0;
    }
    qsort(v, n, sizeof(*v), cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct feerate_w {
    int64_t feerate, weight;
};

static int cmp_feerate(const void *a, const void *b)
{
    const struct feerate_w *x = a, *y = b;
    if (x->feerate != y->feerate) {
        return (x->feerate > y->feerate) - (x->feerate < y->feerate);
    }
    return (x->weight > y->weight) - (x->weight < y->weight);
}

static void percentiles_by_weight(int64_t out[5], struct feerate_w *v, size_t n, int64_t total_weight)
{
    memset(out, 0, 5 * sizeof(*out));
    if (n == 0) {
        return;
    }
    qsort(v, n, sizeof(*v), cmp_feerate);
    const double w[5] = {total_weight / 10.0, total_weight / 4.0, total_weight / 2.0,
                         (total_weight * 3) / 4.0, (total_weight * 9) / 10.0};
    int64_t cumulative = 0;
    size_t next = 0;
    for (size_t i = 0; i < n; i++) {
        cumulative += v[i].weight;
        while (next < 5 && (double)cumulative >= w[next]) {
            out[next++] = v[i].feerate;
        }
    }
    for (; next < 5; next++) {
        out[next] = v[n - 1].feerate;
    }
}

/* Core's GetSerializeSize(CTxOut) + PER_UTXO_OVERHEAD (the outpoint, 36 bytes, and the
 * height/coinbase code, 4). */
static int64_t utxo_size(size_t script_len)
{
    return 8 + (int64_t)ser_compact_len(script_len) + (int64_t)script_len + 40;
}

/* Core's ParseHashOrHeight: a height on the active chain, or the hash of any known block.
 * Caller holds the chain lock. NULL after rpc_error. */
static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* What getblockstats adds up over one block (Core's getblockstats locals). */
struct block_stats {
    int64_t *fees, *sizes;
    struct feerate_w *rates;
    size_t nfees, nsizes, nrates;
    int64_t inputs, outputs, utxos, total_out, total_size, total_weight;
    int64_t swtxs, swtotal_size, swtotal_weight, totalfee;
    int64_t maxfee, minfee, maxfeerate, minfeerate, maxtxsize, mintxsize;
    int64_t utxo_size_inc, utxo_size_inc_actual;
};

/* The outputs of transaction i of b: their count and sizes, and those that enter the UTXO
 * set (not the genesis block's, not a repeated BIP30 coinbase's, not unspendable ones).
 * Returns the value they pay. */
static int64_t stats_outputs(struct block_stats *st, const struct block *b, size_t i,
                             int height, int bip30_repeat)
{
    const struct tx *t = &b->txs[i];
    int64_t tx_total_out = 0;
    st->outputs += (int64_t)t->vout_count;
    for (size_t o = 0; o < t->vout_count; o++) {
        const struct bytes *spk = &t->vout[o].script_pubkey;
        tx_total_out += t->vout[o].value_sat;
        st->utxo_size_inc += utxo_size(spk->len);
        if (height == 0 || (i == 0 && bip30_repeat) ||
            coin_script_unspendable(spk->data, spk->len)) {
            continue;
        }
        st->utxos++;
        st->utxo_size_inc_actual += utxo_size(spk->len);
    }
    return tx_total_out;
}

/* Transaction t (not the coinbase), paying tx_total_out, whose spent coins are u (NULL if
 * the undo data has none): sizes, weights, fee and feerate. */
static void stats_tx(struct block_stats *st, const struct tx *t, const struct tx_undo *u,
                     int64_t tx_total_out)
{
    st->inputs += (int64_t)t->vin_count;
    st->total_out += tx_total_out;
    int64_t size = (int64_t)t->size_total, weight = (int64_t)tx_weight(t);
    st->sizes[st->nsizes++] = size;
    st->maxtxsize = size > st->maxtxsize ? size : st->maxtxsize;
    st->mintxsize = size < st->mintxsize ? size : st->mintxsize;
    st->total_size += size;
    st->total_weight += weight;
    if (tx_has_witness(t)) {
        st->swtxs++;
        st->swtotal_size += size;
        st->swtotal_weight += weight;
    }
    int64_t tx_total_in = 0;
    for (size_t k = 0; u && k < u->n; k++) {
        const struct coin *c = &u->prev[k];
        tx_total_in += c->value_sat;
        st->utxo_size_inc -= utxo_size(c->script_pubkey.len);
        st->utxo_size_inc_actual -= utxo_size(c->script_pubkey.len);
    }
    int64_t fee = tx_total_in - tx_total_out;
    st->fees[st->nfees++] = fee;
    st->maxfee = fee > st->maxfee ? fee : st->maxfee;
    st->minfee = fee < st->minfee ? fee : st->minfee;
    st->totalfee += fee;
    int64_t feerate = weight ? (fee * 4) / weight : 0;
    st->rates[st->nrates].feerate = feerate;
    st->rates[st->nrates++].weight = weight;
    st->maxfeerate = feerate > st->maxfeerate ? feerate : st->maxfeerate;
    st->minfeerate = feerate < st->minfeerate ? feerate : st->minfeerate;
}

/* Every statistic of block b at e (undo: its spent coins), as Core's object, its keys in
 * Core's (sorted) order. */
static json_t *stats_json(const struct block *b, const struct block_undo *undo,
                          const struct block_index *e, const struct chain_params *p)
{
    size_t ntx = b->tx_count;
    struct block_stats st = {.minfee = MAX_MONEY, .minfeerate = MAX_MONEY, .mintxsize = 4000000};
    st.fees = xmalloc((ntx + 1) * sizeof(int64_t));
    st.sizes = xmalloc((ntx + 1) * sizeof(int64_t));
    st.rates = xmalloc((ntx + 1) * sizeof(*st.rates));
    int bip30_repeat = chain_params_is_bip30_exception(p, e->height, e->hash);
    for (size_t i = 0; i < ntx; i++) {
        int64_t out = stats_outputs(&st, b, i, e->height, bip30_repeat);
        if (i > 0) {
            stats_tx(&st, &b->txs[i], i - 1 < undo->n ? &undo->txs[i - 1] : NULL, out);
        }
    }
    int64_t pct[5];
    percentiles_by_weight(pct, st.rates, st.nrates, st.total_weight);
    json_t *pa = json_array();
    for (int k = 0; k < 5; k++) {
        json_array_append_new(pa, json_integer(pct[k]));
    }
    int64_t others = ntx > 1 ? (int64_t)(ntx - 1) : 0;
    json_t *r = json_object();
    json_object_set_new(r, "avgfee", json_integer(others ? st.totalfee / others : 0));
    json_object_set_new(r, "avgfeerate",
                        json_integer(st.total_weight ? (st.totalfee * 4) / st.total_weight : 0));
    json_object_set_new(r, "avgtxsize", json_integer(others ? st.total_size / others : 0));
    json_object_set_new(r, "blockhash", rpc_hash_json(e->hash));
    json_object_set_new(r, "feerate_percentiles", pa);
    json_object_set_new(r, "height", json_integer(e->height));
    json_object_set_new(r, "ins", json_integer(st.inputs));
    json_object_set_new(r, "maxfee", json_integer(st.maxfee));
    json_object_set_new(r, "maxfeerate", json_integer(st.maxfeerate));
    json_object_set_new(r, "maxtxsize", json_integer(st.maxtxsize));
    json_object_set_new(r, "medianfee", json_integer(truncated_median(st.fees, st.nfees)));
    json_object_set_new(r, "mediantime", json_integer(block_index_median_time_past(e)));
    json_object_set_new(r, "mediantxsize", json_integer(truncated_median(st.sizes, st.nsizes)));
    json_object_set_new(r, "minfee", json_integer(st.minfee == MAX_MONEY ? 0 : st.minfee));
    json_object_set_new(r, "minfeerate",
                        json_integer(st.minfeerate == MAX_MONEY ? 0 : st.minfeerate));
    json_object_set_new(r, "mintxsize", json_integer(st.mintxsize == 4000000 ? 0 : st.mintxsize));
    json_object_set_new(r, "outs", json_integer(st.outputs));
    json_object_set_new(r, "subsidy",
                        json_integer(amount_block_subsidy(e->height, p->subsidy_halving_interval)));
    json_object_set_new(r, "swtotal_size", json_integer(st.swtotal_size));
    json_object_set_new(r, "swtotal_weight", json_integer(st.swtotal_weight));
    json_object_set_new(r, "swtxs", json_integer(st.swtxs));
    json_object_set_new(r, "time", json_integer(e->header.time));
    json_object_set_new(r, "total_out", json_integer(st.total_out));
    json_object_set_new(r, "total_size", json_integer(st.total_size));
    json_object_set_new(r, "total_weight", json_integer(st.total_weight));
    json_object_set_new(r, "totalfee", json_integer(st.totalfee));
    json_object_set_new(r, "txs", json_integer((json_int_t)ntx));
    json_object_set_new(r, "utxo_increase", json_integer(st.outputs - st.inputs));
    json_object_set_new(r, "utxo_size_inc", json_integer(st.utxo_size_inc));
    json_object_set_new(r, "utxo_increase_actual", json_integer(st.utxos - st.inputs));
    json_object_set_new(r, "utxo_size_inc_actual", json_integer(st.utxo_size_inc_actual));
    free(st.fees);
    free(st.sizes);
    free(st.rates);
    return r;
}

/* The stats named in sel[0..n_sel) of all (taken), or all of them when none is named; NULL
 * after rpc_error for a name that is not a statistic. */
static json_t *select_stats(struct rpc_request *req, json_t *all, const char **sel, size_t n_sel)
{
    if (n_sel == 0) {
        return all;
    }
    json_t *only = json_object();
    for (size_t k = 0; k < n_sel; k++) {
        json_t *v = json_object_get(all, sel[k]);
        if (!v) {
            json_decref(only);
            json_decref(all);
            return rpc_error(req, RPC_INVALID_PARAMETER, "Invalid selected statistic '%s'",
                             sel[k]);
        }
        json_object_set(only, sel[k], v);
    }
    json_decref(all);
    return only;
}

static json_t *rpc_getblockstats(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    json_t *filter = rpc_param(req, 1);
    struct buf raw;
    struct block b;
    struct block_undo undo;
    json_t *r = NULL;
    /* Core reads the selection into a std::set: sorted, each name once. */
    size_t n_sel = filter ? json_array_size(filter) : 0;
    const char **sel = xmalloc((n_sel + 1) * sizeof(*sel));
    for (size_t i = 0; i < n_sel; i++) {
        json_t *name = json_array_get(filter, i);
        if (!json_is_string(name)) {
            free(sel);
            return rpc_error(req, RPC_TYPE_ERROR,
                             "JSON value of type %s is not of expected type string",
                             rpc_json_type_name(name));
        }
        sel[i] = json_string_value(name);
    }
    qsort(sel, n_sel, sizeof(*sel), cmp_cstr);
    buf_init(&raw);
    block_undo_init(&undo);
    chainstate_read_lock(cs);
    struct block_index *e = rpc_block_by_hash_or_height(req, json_array_get(req->params, 0),
                                                             "hash_or_height");
    if (!e || rpc_load_block(req, e, &b, &raw)) {
        goto out;
    }
    if (e->height > 0 && chainstate_read_undo(cs, e, &undo) != RC_OK) {
        block_clear(&b);
        rpc_error(req, RPC_MISC_ERROR, "Undo data expected but can't be read. This could be due "
                                       "to disk corruption or a conflict with a pruning event.");
        goto out;
    }
    r = select_stats(req, stats_json(&b, &undo, e, chainstate_params(cs)), sel, n_sel);
    block_clear(&b);
out:
    chainstate_read_unlock(cs);
    block_undo_clear(&undo);
    buf_clear(&raw);
    free(sel);
    return r;
}

#define STAT(k, d) {.type = RPC_RES_NUM, .key = k, .optional = true, .description = d}

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "getblockstats",
     .handler = rpc_getblockstats,
     .description = "Compute per block statistics for a given window. All amounts are in "
                    "satoshis.\n"
                    "It won't work for some heights with pruning.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "hash_or_height",
          .type = RPC_ARG_NUM,
          .description = "The block hash or height of the target block",
          .type_str = {"", "string or numeric"},
          .skip_type_check = true},
         {.names = "stats",
          .type = RPC_ARG_ARR,
          .fallback = RPC_ARG_DEFAULT_HINT,
          .default_value = "all values",
          .description = "Values to plot (see result below)",
          .inner = RPC_LIST(struct rpc_arg,
                            {.names = "height",
                             .type = RPC_ARG_STR,
                             .fallback = RPC_ARG_OMITTED,
                             .description = "Selected statistic"},
                            {.names = "time",
                             .type = RPC_ARG_STR,
                             .fallback = RPC_ARG_OMITTED,
                             .description = "Selected statistic"}),
          .oneline = "stats"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result, STAT("avgfee", "Average fee in the block"),
              STAT("avgfeerate", "Average feerate (in satoshis per virtual byte)"),
              STAT("avgtxsize", "Average transaction size"),
              {.type = RPC_RES_STR_HEX,
               .key = "blockhash",
               .optional = true,
               .description = "The block hash (to check for potential reorgs)"},
              {.type = RPC_RES_ARR_FIXED,
               .key = "feerate_percentiles",
               .optional = true,
               .description = "Feerates at the 10th, 25th, 50th, 75th, and 90th percentile "
                              "weight unit (in satoshis per virtual byte)",
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_NUM,
                                  .key = "10th_percentile_feerate",
                                  .description = "The 10th percentile feerate"},
                                 {.type = RPC_RES_NUM,
                                  .key = "25th_percentile_feerate",
                                  .description = "The 25th percentile feerate"},
                                 {.type = RPC_RES_NUM,
                                  .key = "50th_percentile_feerate",
                                  .description = "The 50th percentile feerate"},
                                 {.type = RPC_RES_NUM,
                                  .key = "75th_percentile_feerate",
                                  .description = "The 75th percentile feerate"},
                                 {.type = RPC_RES_NUM,
                                  .key = "90th_percentile_feerate",
                                  .description = "The 90th percentile feerate"})},
              STAT("height", "The height of the block"),
              STAT("ins", "The number of inputs (excluding coinbase)"),
              STAT("maxfee", "Maximum fee in the block"),
              STAT("maxfeerate", "Maximum feerate (in satoshis per virtual byte)"),
              STAT("maxtxsize", "Maximum transaction size"),
              STAT("medianfee", "Truncated median fee in the block"),
              STAT("mediantime", "The block median time past"),
              STAT("mediantxsize", "Truncated median transaction size"),
              STAT("minfee", "Minimum fee in the block"),
              STAT("minfeerate", "Minimum feerate (in satoshis per virtual byte)"),
              STAT("mintxsize", "Minimum transaction size"),
              STAT("outs", "The number of outputs"), STAT("subsidy", "The block subsidy"),
              STAT("swtotal_size", "Total size of all segwit transactions"),
              STAT("swtotal_weight", "Total weight of all segwit transactions"),
              STAT("swtxs", "The number of segwit transactions"),
              STAT("time", "The block time"),
              STAT("total_out", "Total amount in all outputs (excluding coinbase and thus "
                                "reward [ie subsidy + totalfee])"),
              STAT("total_size", "Total size of all non-coinbase transactions"),
              STAT("total_weight", "Total weight of all non-coinbase transactions"),
              STAT("totalfee", "The fee total"),
              STAT("txs", "The number of transactions (including coinbase)"),
              STAT("utxo_increase", "The increase/decrease in the number of unspent outputs "
                                    "(not discounting op_return and similar)"),
              STAT("utxo_size_inc", "The increase/decrease in size for the utxo index (not "
                                    "discounting op_return and similar)"),
              STAT("utxo_increase_actual", "The increase/decrease in the number of unspent "
                                           "outputs, not counting unspendables"),
              STAT("utxo_size_inc_actual", "The increase/decrease in size for the utxo index, "
                                           "not counting unspendables"))}),
     .examples =
         "> bitnode-cli getblockstats '\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd1"
         "46f6ed09\"' '[\"minfeerate\",\"avgfeerate\"]'\n"
         "> bitnode-cli getblockstats 1000 '[\"minfeerate\",\"avgfeerate\"]'\n"
         RPC_EXAMPLE_RPC("getblockstats", "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a"
                                          "3dd146f6ed09\", [\"minfeerate\",\"avgfeerate\"]")
         RPC_EXAMPLE_RPC("getblockstats", "1000, [\"minfeerate\",\"avgfeerate\"]")},
};

void rpc_blockstats_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
