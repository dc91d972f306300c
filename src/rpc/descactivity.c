/* getdescriptoractivity: the blocks (each once, by height) read with their undo data; each
 * transaction's inputs whose spent output pays a watched script are "spend" events, its
 * outputs to one "receive" events; then the pool's transactions in mining order, a spent
 * output from the UTXO set or from its parent in the pool. */
#include "rpc/descactivity.h"

#include <stdlib.h>
#include <string.h>

#include "coins/coin.h"
#include "coins/undo.h"
#include "mempool/mempool.h"
#include "node/context.h"
#include "primitives/block.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "rpc/resultdoc.h"
#include "rpc/scan.h"
#include "util/buf.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

struct watch {
    struct buf *spks;
    size_t n;
    const struct chain_params *p;
    json_t *activity;
};

/* Core's AddSpend; at: the block, or NULL for the pool. */
static void add_spend(struct watch *w, const struct bytes *spk, int64_t value, const struct tx *tx,
                      size_t vin, const struct block_index *at)
{
    json_t *e = json_object();
    json_object_set_new(e, "type", json_string("spend"));
    json_object_set_new(e, "amount", rpc_json_amount(value));
    if (at) {
        json_object_set_new(e, "blockhash", rpc_hash_json(at->hash));
        json_object_set_new(e, "height", json_integer(at->height));
    }
    json_object_set_new(e, "spend_txid", rpc_hash_json(tx->txid));
    json_object_set_new(e, "spend_vin", json_integer((json_int_t)vin));
    json_object_set_new(e, "prevout_txid", rpc_hash_json(tx->vin[vin].prevout.txid));
    json_object_set_new(e, "prevout_vout", json_integer(tx->vin[vin].prevout.n));
    json_object_set_new(e, "prevout_spk", rpc_script_pubkey_json(spk->data, spk->len, w->p, 1));
    json_array_append_new(w->activity, e);
}

/* Core's AddReceive. */
static void add_receives(struct watch *w, const struct tx *tx, const struct block_index *at)
{
    for (size_t i = 0; i < tx->vout_count; i++) {
        const struct tx_out *o = &tx->vout[i];
        if (!rpc_scan_scripts_has(w->spks, w->n, o->script_pubkey.data, o->script_pubkey.len)) {
            continue;
        }
        json_t *e = json_object();
        json_object_set_new(e, "type", json_string("receive"));
        json_object_set_new(e, "amount", rpc_json_amount(o->value_sat));
        if (at) {
            json_object_set_new(e, "blockhash", rpc_hash_json(at->hash));
            json_object_set_new(e, "height", json_integer(at->height));
        }
        json_object_set_new(e, "txid", rpc_hash_json(tx->txid));
        json_object_set_new(e, "vout", json_integer((json_int_t)i));
        json_object_set_new(e, "output_spk",
                            rpc_script_pubkey_json(o->script_pubkey.data, o->script_pubkey.len,
                                                   w->p, 1));
        json_array_append_new(w->activity, e);
    }
}

static int cmp_height(const void *a, const void *b)
{
    const struct block_index *x = a, *y = b;
    return x->height < y->height ? -1 : x->height > y->height;
}

/* The blocks of param 0 (copies of their entries), each once, by height: their count, or -1
 * after rpc_error. */
static long read_blocks(struct rpc_request *req, struct block_index **out)
{
    struct chainstate *cs = req->ctx->node->cs;
    json_t *arr = rpc_param(req, 0);
    size_t n = json_array_size(arr), k = 0;
    struct block_index *v = xcalloc(n ? n : 1, sizeof(*v));
    chainstate_read_lock(cs);
    for (size_t i = 0; i < n; i++) {
        uint8_t h[32];
        if (rpc_value_hash(req, json_array_get(arr, i), "blockhash", h) != 0) {
            goto fail;
        }
        struct block_index *e = block_tree_find(chainstate_tree(cs), h);
        if (!e) {
            rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
            goto fail;
        }
        if (chainstate_at_height(cs, e->height) != e) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Block is not in main chain");
            goto fail;
        }
        size_t j = 0;
        while (j < k && memcmp(v[j].hash, e->hash, 32) != 0) {
            j++;
        }
        if (j == k) {
            v[k++] = *e;
        }
    }
    chainstate_read_unlock(cs);
    qsort(v, k, sizeof(*v), cmp_height);
    *out = v;
    return (long)k;
fail:
    chainstate_read_unlock(cs);
    free(v);
    return -1;
}

/* One block's events: 0, or -1 after rpc_error (Core's GetBlockChecked / GetUndoChecked). */
static int scan_block(struct rpc_request *req, struct watch *w, struct block_index *at)
{
    struct block b;
    struct buf raw;
    struct block_undo undo;
    int rc = -1;
    block_init(&b);
    buf_init(&raw);
    block_undo_init(&undo);
    if (rpc_load_block(req, at, &b, &raw)) {
        goto out;
    }
    if (at->height > 0 && (chainstate_read_undo(req->ctx->node->cs, at, &undo) != RC_OK ||
                           undo.n + 1 != b.tx_count)) {
        rpc_error(req, RPC_MISC_ERROR, "Can't read undo data from disk");
        goto out;
    }
    for (size_t i = 0; i < b.tx_count; i++) {
        const struct tx *tx = &b.txs[i];
        for (size_t k = 0; i > 0 && k < tx->vin_count && k < undo.txs[i - 1].n; k++) {
            const struct coin *c = &undo.txs[i - 1].prev[k];
            if (rpc_scan_scripts_has(w->spks, w->n, c->script_pubkey.data,
                                     c->script_pubkey.len)) {
                add_spend(w, &c->script_pubkey, c->value_sat, tx, k, at);
            }
        }
        add_receives(w, tx, at);
    }
    rc = 0;
out:
    block_undo_clear(&undo);
    block_clear(&b);
    buf_clear(&raw);
    return rc;
}

static int cmp_mining(const void *a, const void *b)
{
    return mempool_mining_cmp(*(struct mempool_entry *const *)a,
                              *(struct mempool_entry *const *)b);
}

/* The pool's events, in Core's entryAll order (mining order). */
static void scan_mempool(struct rpc_request *req, struct watch *w)
{
    struct chainstate *cs = req->ctx->node->cs;
    struct mempool *mp = req->ctx->node->mempool;
    if (!mp) {
        return;
    }
    chainstate_read_lock(cs);
    mempool_read_lock(mp);
    size_t n = 0;
    struct mempool_entry *const *all = mempool_entries(mp, &n);
    struct mempool_entry **v = xmalloc((n ? n : 1) * sizeof(*v));
    if (n) {
        memcpy(v, all, n * sizeof(*v));
    }
    qsort(v, n, sizeof(*v), cmp_mining);
    for (size_t i = 0; i < n; i++) {
        const struct tx *tx = &v[i]->tx;
        for (size_t k = 0; k < tx->vin_count; k++) {
            struct coin c;
            if (chainstate_get_coin(cs, &tx->vin[k].prevout, &c) == RC_OK) {
                if (rpc_scan_scripts_has(w->spks, w->n, c.script_pubkey.data,
                                         c.script_pubkey.len)) {
                    add_spend(w, &c.script_pubkey, c.value_sat, tx, k, NULL);
                }
                coin_clear(&c);
                continue;
            }
            struct mempool_entry *parent = mempool_get(mp, tx->vin[k].prevout.txid);
            if (parent && tx->vin[k].prevout.n < parent->tx.vout_count) {
                const struct tx_out *o = &parent->tx.vout[tx->vin[k].prevout.n];
                if (rpc_scan_scripts_has(w->spks, w->n, o->script_pubkey.data,
                                         o->script_pubkey.len)) {
                    add_spend(w, &o->script_pubkey, o->value_sat, tx, k, NULL);
                }
            }
        }
        add_receives(w, tx, NULL);
    }
    free(v);
    mempool_read_unlock(mp);
    chainstate_read_unlock(cs);
}

static json_t *rpc_getdescriptoractivity(struct rpc_request *req)
{
    struct block_index *blocks = NULL;
    long nb = read_blocks(req, &blocks);
    if (nb < 0) {
        return NULL;
    }
    struct watch w = {.p = chainstate_params(req->ctx->node->cs)};
    if (rpc_scan_scripts(req, rpc_param(req, 1), &w.spks, &w.n) != 0) {
        rpc_scan_scripts_free(w.spks, w.n);
        free(blocks);
        return NULL;
    }
    w.activity = json_array();
    json_t *r = NULL;
    for (long i = 0; i < nb; i++) {
        if (scan_block(req, &w, &blocks[i]) != 0) {
            goto out;
        }
    }
    if (json_is_true(rpc_param(req, 2))) {
        scan_mempool(req, &w);
    }
    r = json_object();
    json_object_set(r, "activity", w.activity);
out:
    json_decref(w.activity);
    rpc_scan_scripts_free(w.spks, w.n);
    free(blocks);
    return r;
}

#define EVENT_HEAD(what, block_doc, height_doc)                                                    \
    {.type = RPC_RES_STR, .key = "type", .description = "always '" what "'"},                     \
        {.type = RPC_RES_STR_AMOUNT, .key = "amount", .description = "The total amount in BTC of " \
                                                                     "the " block_doc},            \
        {.type = RPC_RES_STR_HEX, .key = "blockhash", .optional = true, .description = height_doc}

static const struct rpc_result spend_event[] = {
    EVENT_HEAD("spend", "spent output",
               "The blockhash this spend appears in (omitted if unconfirmed)"),
    {.type = RPC_RES_NUM,
     .key = "height",
     .optional = true,
     .description = "Height of the spend (omitted if unconfirmed)"},
    {.type = RPC_RES_STR_HEX, .key = "spend_txid", .description = "The txid of the spending transaction"},
    {.type = RPC_RES_NUM, .key = "spend_vin", .description = "The input index of the spend"},
    {.type = RPC_RES_STR_HEX, .key = "prevout_txid", .description = "The txid of the prevout"},
    {.type = RPC_RES_NUM, .key = "prevout_vout", .description = "The vout of the prevout"},
    {.type = RPC_RES_OBJ, .key = "prevout_spk", .inner = RPC_DOC_LIST(rpc_doc_script_pubkey)},
};

static const struct rpc_result receive_event[] = {
    EVENT_HEAD("receive", "new output", "The block that this receive is in (omitted if unconfirmed)"),
    {.type = RPC_RES_NUM,
     .key = "height",
     .optional = true,
     .description = "The height of the receive (omitted if unconfirmed)"},
    {.type = RPC_RES_STR_HEX, .key = "txid", .description = "The txid of the receiving transaction"},
    {.type = RPC_RES_NUM, .key = "vout", .description = "The vout of the receiving output"},
    {.type = RPC_RES_OBJ, .key = "output_spk", .inner = RPC_DOC_LIST(rpc_doc_script_pubkey)},
};

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "getdescriptoractivity",
     .handler = rpc_getdescriptoractivity,
     .description = "Get spend and receive activity associated with a set of descriptors for a set "
                    "of blocks. This command pairs well with the `relevant_blocks` output of "
                    "`scanblocks()`.\n"
                    "This call may take several minutes. If you encounter timeouts, try "
                    "specifying no RPC timeout (bitnode-cli -rpcclienttimeout=0)",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "blockhashes",
          .type = RPC_ARG_ARR,
          .description = "The list of blockhashes to examine for activity. Order doesn't matter. "
                         "Must be along main chain or an error is thrown.\n",
          .inner = RPC_LIST(struct rpc_arg, {.names = "blockhash",
                                             .type = RPC_ARG_STR_HEX,
                                             .fallback = RPC_ARG_OMITTED,
                                             .description = "A valid blockhash"})},
         {.names = "scanobjects",
          .type = RPC_ARG_ARR,
          .description = "The list of descriptors (scan objects) to examine for activity. Every "
                         "scan object is either a string descriptor or an object:",
          .oneline = "[scanobjects,...]",
          .skip_type_check = true,
          .inner = RPC_LIST(
              struct rpc_arg,
              {.names = "descriptor",
               .type = RPC_ARG_STR,
               .fallback = RPC_ARG_OMITTED,
               .description = "An output descriptor"},
              {.names = "",
               .type = RPC_ARG_OBJ,
               .fallback = RPC_ARG_OMITTED,
               .description = "An object with output descriptor and metadata",
               .inner = RPC_LIST(struct rpc_arg,
                                 {.names = "desc",
                                  .type = RPC_ARG_STR,
                                  .description = "An output descriptor"},
                                 {.names = "range",
                                  .type = RPC_ARG_RANGE,
                                  .fallback = RPC_ARG_DEFAULT,
                                  .default_value = "1000",
                                  .description = "The range of HD chain indexes to explore "
                                                 "(either end or [begin,end])"})})},
         {.names = "include_mempool",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "true",
          .description = "Whether to include unconfirmed activity"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_ARR,
                             .key = "activity",
                             .description = "events",
                             .skip_type_check = true,
                             .inner = RPC_LIST(struct rpc_result,
                                               {.type = RPC_RES_OBJ,
                                                .inner = RPC_DOC_LIST(spend_event)},
                                               {.type = RPC_RES_OBJ,
                                                .inner = RPC_DOC_LIST(receive_event)})})}),
     .examples = RPC_EXAMPLE_CLI(
         "getdescriptoractivity",
         "'[\"000000000000000000001347062c12fded7c528943c8ce133987e2e2f5a840ee\"]' "
         "'[\"addr(bc1qzl6nsgqzu89a66l50cvwapnkw5shh23zarqkw9)\"]'")},
};

void rpc_descactivity_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
