#include "rpc/warnings.h"
#include "rpc/blockchain.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "consensus/pow.h"
#include "index/blockfilterindex.h"
#include "index/coinstatsindex.h"
#include "index/txospenderindex.h"
#include "consensus/amount.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "rpc/blockjson.h"
#include "mempool/mempool.h"
#include "rpc/context.h"
#include "rpc/deployment.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "rpc/resultdoc.h"
#include "validation/block_check.h"
#include "util/shutdown.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/time.h"
#include "util/xmalloc.h"

/* The chainstate's tip callback: records the tip for the waits. */
/* Waits until done(ctx, arg) holds, the timeout passes (0: none) or shutdown; returns the tip as
 * {hash, height}. */
static json_t *wait_tip(struct rpc_context *ctx, int64_t timeout_ms,
                        int (*done)(const struct rpc_context *ctx, const void *arg), const void *arg)
{
    struct timespec deadline =
        time_deadline(CLOCK_REALTIME, timeout_ms > 0 ? (uint64_t)timeout_ms * 1000000 : 0);
    pthread_mutex_lock(&ctx->node->tip.mu);
    while (!done(ctx, arg) && !shutdown_requested()) {
        /* Wakes up to notice shutdown. */
        struct timespec slice = time_deadline(CLOCK_REALTIME, 100 * 1000000ull);
        if (timeout_ms > 0 && (slice.tv_sec > deadline.tv_sec ||
                               (slice.tv_sec == deadline.tv_sec && slice.tv_nsec > deadline.tv_nsec))) {
            slice = deadline;
        }
        if (pthread_cond_timedwait(&ctx->node->tip.cv, &ctx->node->tip.mu, &slice) != 0 && timeout_ms > 0) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (now.tv_sec > deadline.tv_sec ||
                (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
                break;
            }
        }
    }
    char hx[65];
    hex_encode_rev(hx, ctx->node->tip.hash, 32);
    json_t *r = json_pack("{s:s,s:i}", "hash", ctx->node->tip.height >= 0 ? hx : "", "height",
                          ctx->node->tip.height);
    pthread_mutex_unlock(&ctx->node->tip.mu);
    return r;
}

struct wait_new {
    uint8_t hash[32];
};

static int tip_changed(const struct rpc_context *ctx, const void *arg)
{
    return memcmp(((const struct wait_new *)arg)->hash, ctx->node->tip.hash, 32) != 0;
}

static int tip_is(const struct rpc_context *ctx, const void *arg)
{
    return memcmp(arg, ctx->node->tip.hash, 32) == 0;
}

static int tip_at_least(const struct rpc_context *ctx, const void *arg)
{
    return ctx->node->tip.height >= *(const int *)arg;
}

static json_t *u256_json(const struct u256 *x)
{
    char hx[65];
    u256_to_hex(hx, x);
    return json_string(hx);
}

/* The block of hash argument i (converted by the dispatcher), or NULL after Core's error.
 * Caller holds the chain lock. */
static struct block_index *find_block(struct rpc_request *req, size_t i)
{
    struct block_index *e = block_tree_find(chainstate_tree(req->ctx->node->cs), rpc_arg_hash(req, i));
    if (!e) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    }
    return e;
}

/* Core's IsInitialBlockDownload (chainstate_in_ibd). Caller holds the chain lock. */
static int in_ibd(struct rpc_context *ctx)
{
    return chainstate_in_ibd(ctx->node->cs);
}

static json_t *rpc_getblockcount(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    json_t *r = json_integer(tip ? tip->height : -1);
    chainstate_read_unlock(cs);
    return r;
}

static json_t *rpc_getbestblockhash(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    json_t *r = tip ? rpc_hash_json(tip->hash) : json_null();
    chainstate_read_unlock(cs);
    return r;
}

static json_t *rpc_getblockhash(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    int64_t h = rpc_arg_int(req, 0);
    chainstate_read_lock(cs);
    struct block_index *e = h >= 0 ? chainstate_at_height(cs, (int32_t)h) : NULL;
    json_t *r = e ? rpc_hash_json(e->hash) : NULL;
    chainstate_read_unlock(cs);
    if (!r) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Block height out of range");
    }
    return r;
}

static json_t *rpc_getdifficulty(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    double d = tip ? rpc_difficulty(tip->header.bits) : 1.0;
    chainstate_read_unlock(cs);
    return json_real(d);
}

static json_t *target_json(uint32_t bits)
{
    struct u256 t;
    int neg, over;
    u256_set_compact(&t, bits, &neg, &over);
    return u256_json(&t);
}

static json_t *rpc_getblockchaininfo(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    const struct chain_params *p;
    char bits[9];
    chainstate_read_lock(cs);
    p = chainstate_params(cs);
    struct block_index *tip = chainstate_tip(cs);
    struct block_index *hdr = chainstate_best_header(cs);
    if (!tip) {
        chainstate_read_unlock(cs);
        return rpc_error(req, RPC_MISC_ERROR, "The chain has no blocks yet");
    }
    snprintf(bits, sizeof(bits), "%08x", tip->header.bits);
    double progress = chainstate_guess_progress(cs, tip);
    json_t *r = json_object();
    json_object_set_new(r, "chain", json_string(p->name));
    json_object_set_new(r, "blocks", json_integer(tip->height));
    json_object_set_new(r, "headers", json_integer(hdr ? hdr->height : tip->height));
    json_object_set_new(r, "bestblockhash", rpc_hash_json(tip->hash));
    json_object_set_new(r, "bits", json_string(bits));
    json_object_set_new(r, "target", target_json(tip->header.bits));
    json_object_set_new(r, "difficulty", json_real(rpc_difficulty(tip->header.bits)));
    json_object_set_new(r, "time", json_integer(tip->header.time));
    json_object_set_new(r, "mediantime", json_integer(block_index_median_time_past(tip)));
    json_object_set_new(r, "verificationprogress",
                        progress == 1.0 ? json_integer(1) : json_real(progress));
    json_object_set_new(r, "initialblockdownload", json_boolean(in_ibd(req->ctx)));
    struct block_index *btip, *target;
    if (chainstate_background_range(cs, &btip, &target)) {
        json_t *bv = json_object();
        json_object_set_new(bv, "snapshotheight", json_integer(target->height));
        json_object_set_new(bv, "blocks", json_integer(btip->height));
        json_object_set_new(bv, "bestblockhash", rpc_hash_json(btip->hash));
        json_object_set_new(bv, "mediantime", json_integer(block_index_median_time_past(btip)));
        json_object_set_new(bv, "chainwork", u256_json(&btip->chain_work));
        json_object_set_new(bv, "verificationprogress",
                            json_real(btip->chain_tx && target->chain_tx
                                          ? (double)btip->chain_tx / (double)target->chain_tx
                                          : 0.0));
        json_object_set_new(r, "backgroundvalidation", bv);
    }
    json_object_set_new(r, "chainwork", u256_json(&tip->chain_work));
    json_object_set_new(r, "size_on_disk", json_integer((json_int_t)chainstate_size_on_disk(cs)));
    struct chainstate_prune_info pi;
    chainstate_prune_info(cs, &pi); /* the chain lock is held */
    json_object_set_new(r, "pruned", json_boolean(pi.prune_mode));
    if (pi.prune_mode) {
        json_object_set_new(r, "pruneheight", json_integer(pi.last_pruned + 1));
        json_object_set_new(r, "automatic_pruning", json_boolean(pi.automatic));
        if (pi.automatic) {
            json_object_set_new(r, "prune_target_size", json_integer((json_int_t)pi.target_bytes));
        }
    }
    if (p->signet_blocks) {
        char *hx = hex_encode_alloc(p->signet_challenge, p->signet_challenge_len);
        json_object_set_new(r, "signet_challenge", json_string(hx));
        free(hx);
    }
    json_object_set_new(r, "warnings", rpc_warnings_json(req->ctx->node));
    uint8_t av[32];
    if (chainstate_assume_valid(cs, av)) {
        /* Not a Core field: it tells the caller below which block scripts go unchecked.
         * Only present when a block is assumed valid, so answers without one stay
         * identical to Core's. */
        json_object_set_new(r, "assumevalid", rpc_hash_json(av));
    }
    chainstate_read_unlock(cs);
    return r;
}

/* getchaintips: every leaf of the block tree, and the active tip. */
struct tips {
    struct block_index **v;
    size_t n, cap;
    uint8_t *has_child; /* indexed by position in a snapshot array */
};

static int collect_all(void *ctx, struct block_index *e)
{
    struct tips *t = ctx;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
    }
    t->v[t->n++] = e;
    return 0;
}

static int by_height_desc(const void *a, const void *b)
{
    const struct block_index *x = *(const struct block_index *const *)a;
    const struct block_index *y = *(const struct block_index *const *)b;
    if (x->height != y->height) {
        return x->height < y->height ? 1 : -1;
    }
    return memcmp(x->hash, y->hash, 32);
}

/* getchaintxstats: Core's window of nblocks (default a month of blocks) ending at a block
 * of the active chain, its median-time interval and transaction rate. */
static json_t *rpc_getchaintxstats(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    int64_t count = 30 * 24 * 60 * 60 / chainstate_params(cs)->pow_target_spacing;
    uint8_t hash[32];
    int have_hash = rpc_param(req, 1) && !json_is_null(rpc_param(req, 1));
    int have_count = rpc_param(req, 0) && !json_is_null(rpc_param(req, 0));
    int64_t n = 0;
    if ((have_hash && rpc_value_hash(req, rpc_param(req, 1), "blockhash", hash) != 0) ||
        (have_count && rpc_value_int(req, rpc_param(req, 0), INT32_MIN, INT32_MAX, &n) != 0)) {
        return NULL;
    }
    json_t *r = NULL;
    chainstate_read_lock(cs);
    struct block_index *e = have_hash ? block_tree_find(chainstate_tree(cs), hash)
                                      : chainstate_tip(cs);
    if (!e) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    } else if (have_hash && !chainstate_contains(cs, e)) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Block is not in main chain");
    } else if (have_count && (n < 0 || (n > 0 && n >= e->height))) {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Invalid block count: should be between 0 and the block's height - 1");
    } else {
        if (have_count) {
            count = n;
        } else {
            count = count < e->height - 1 ? count : e->height - 1;
            count = count > 0 ? count : 0;
        }
        struct block_index *past = block_index_ancestor(e, e->height - (int32_t)count);
        int64_t diff = block_index_median_time_past(e) - block_index_median_time_past(past);
        r = json_object();
        json_object_set_new(r, "time", json_integer(e->header.time));
        if (e->chain_tx) {
            json_object_set_new(r, "txcount", json_integer((json_int_t)e->chain_tx));
        }
        json_object_set_new(r, "window_final_block_hash", rpc_hash_json(e->hash));
        json_object_set_new(r, "window_final_block_height", json_integer(e->height));
        json_object_set_new(r, "window_block_count", json_integer(count));
        if (count > 0) {
            json_object_set_new(r, "window_interval", json_integer(diff));
            if (e->chain_tx && past->chain_tx) {
                uint64_t wtx = e->chain_tx - past->chain_tx;
                json_object_set_new(r, "window_tx_count", json_integer((json_int_t)wtx));
                if (diff > 0) {
                    json_object_set_new(r, "txrate", json_real((double)wtx / (double)diff));
                }
            }
        }
    }
    chainstate_read_unlock(cs);
    return r;
}

/* One chainstate as getchainstates lists it (Core's make_chain_data). Chain lock held. */
static json_t *chain_data(struct block_index *tip, size_t db_bytes,
                          size_t tip_bytes, const struct block_index *snapshot, int validated,
                          double progress)
{
    json_t *c = json_object();
    char bits[9];
    if (!tip) {
        return c;
    }
    snprintf(bits, sizeof(bits), "%08x", tip->header.bits);
    json_object_set_new(c, "blocks", json_integer(tip->height));
    json_object_set_new(c, "bestblockhash", rpc_hash_json(tip->hash));
    json_object_set_new(c, "bits", json_string(bits));
    json_object_set_new(c, "target", target_json(tip->header.bits));
    json_object_set_new(c, "difficulty", json_real(rpc_difficulty(tip->header.bits)));
    json_object_set_new(c, "verificationprogress",
                        progress == 1.0 ? json_integer(1) : json_real(progress));
    json_object_set_new(c, "coins_db_cache_bytes", json_integer((json_int_t)db_bytes));
    json_object_set_new(c, "coins_tip_cache_bytes", json_integer((json_int_t)tip_bytes));
    if (snapshot) {
        json_object_set_new(c, "snapshot_blockhash", rpc_hash_json(snapshot->hash));
    }
    json_object_set_new(c, "validated", json_boolean(validated));
    return c;
}

/* getchainstates: the background chainstate while a UTXO snapshot is validated, then the
 * active one (from the snapshot, if one was loaded since the last start). */
static json_t *rpc_getchainstates(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    size_t db_bytes, tip_bytes, bg_db, bg_tip;
    json_t *r = json_object(), *list = json_array();
    chainstate_read_lock(cs);
    chainstate_cache_sizes(cs, &db_bytes, &tip_bytes);
    chainstate_background_cache_sizes(cs, &bg_db, &bg_tip);
    struct block_index *tip = chainstate_tip(cs), *btip, *target;
    struct block_index *hdr = chainstate_best_header(cs);
    int validated;
    struct block_index *snapshot = chainstate_snapshot_base(cs, &validated);
    json_object_set_new(r, "headers", json_integer(hdr ? hdr->height : -1));
    if (chainstate_background_range(cs, &btip, &target)) {
        json_array_append_new(list, chain_data(btip, bg_db, bg_tip, NULL, 1,
                                               chainstate_guess_progress(cs, btip)));
    }
    json_array_append_new(list, chain_data(tip, db_bytes, tip_bytes, snapshot,
                                           !snapshot || validated,
                                           tip ? chainstate_guess_progress(cs, tip) : 0));
    chainstate_read_unlock(cs);
    json_object_set_new(r, "chainstates", list);
    return r;
}

static json_t *rpc_getchaintips(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    struct tips t = {0};
    json_t *r = json_array();
    chainstate_read_lock(cs);
    block_tree_foreach(chainstate_tree(cs), collect_all, &t);
    /* A tip is an entry nobody names as parent: mark parents through a hash lookup. */
    struct block_index *tip = chainstate_tip(cs);
    uint8_t *is_parent = xcalloc(t.n + 1, 1);
    if (t.n > 1) {
        qsort(t.v, t.n, sizeof(*t.v), by_height_desc);
    }
    for (size_t i = 0; i < t.n; i++) {
        struct block_index *prev = t.v[i]->prev;
        if (!prev) {
            continue;
        }
        /* Binary search prev's position (same order). */
        size_t lo = 0, hi = t.n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (by_height_desc(&t.v[mid], &prev) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo < t.n && t.v[lo] == prev) {
            is_parent[lo] = 1;
        }
    }
    for (size_t i = 0; i < t.n; i++) {
        struct block_index *e = t.v[i];
        if (is_parent[i] && e != tip) {
            continue;
        }
        struct block_index *fork = block_index_fork_point(e, tip);
        const char *status;
        if (e == tip) {
            status = "active";
        } else if (block_index_failed(e)) {
            status = "invalid";
        } else if (!e->chain_tx) {
            status = "headers-only";
        } else if (block_index_is_valid(e, BLOCK_VALID_SCRIPTS)) {
            status = "valid-fork";
        } else {
            status = "valid-headers";
        }
        json_t *o = json_object();
        json_object_set_new(o, "height", json_integer(e->height));
        json_object_set_new(o, "hash", rpc_hash_json(e->hash));
        json_object_set_new(o, "branchlen", json_integer(fork ? e->height - fork->height : 0));
        json_object_set_new(o, "status", json_string(status));
        json_array_append_new(r, o);
    }
    chainstate_read_unlock(cs);
    free(is_parent);
    free(t.v);
    return r;
}

/* gettxoutsetinfo on the validation thread: the flush its statistics need is a change, and
 * the tip it reports must be the one the statistics are of. */
struct utxo_stats_call {
    enum coins_stats_hash kind;
    struct coins_stats stats;
    uint8_t hash[32], tip_hash[32];
    int height;
    uint64_t disk_size;
    char cause[512]; /* a storage failure's own message, or "" */
};

static int utxo_stats_call(struct chainstate *cs, void *ctx)
{
    struct utxo_stats_call *c = ctx;
    struct block_index *tip = chainstate_tip(cs);
    if (!tip) {
        return RC_NOT_FOUND;
    }
    c->height = tip->height;
    memcpy(c->tip_hash, tip->hash, 32);
    int rc = chainstate_utxo_stats(cs, c->kind, &c->stats, c->hash);
    if (rc == RC_BACKEND || rc == RC_IO) {
        /* The store's words (this thread met them): the file and what is wrong with it. */
        snprintf(c->cause, sizeof(c->cause), "%s", chainstate_store_error());
        return rc;
    }
    c->disk_size = chainstate_coins_disk_size(cs); /* flushed just now */
    return rc;
}

/* Core's block_info: what one block changed, the difference of its entry and its parent's. */
static json_t *coinstats_block_info(const struct coinstats_entry *s,
                                    const struct coinstats_entry *p)
{
    json_t *bi = json_object(), *u = json_object();
    int64_t unsp = s->unspendable_genesis + s->unspendable_bip30 + s->unspendable_scripts +
                   s->unspendable_unclaimed;
    int64_t prev_unsp = p->unspendable_genesis + p->unspendable_bip30 + p->unspendable_scripts +
                        p->unspendable_unclaimed;
    json_object_set_new(bi, "prevout_spent",
                        rpc_json_amount((int64_t)(uint64_t)(s->prevout_spent - p->prevout_spent)));
    json_object_set_new(bi, "coinbase",
                        rpc_json_amount((int64_t)(uint64_t)(s->coinbase - p->coinbase)));
    json_object_set_new(bi, "new_outputs_ex_coinbase",
                        rpc_json_amount((int64_t)(uint64_t)(s->new_outputs_ex_coinbase -
                                                            p->new_outputs_ex_coinbase)));
    json_object_set_new(bi, "unspendable", rpc_json_amount(unsp - prev_unsp));
    json_object_set_new(u, "genesis_block",
                        rpc_json_amount(s->unspendable_genesis - p->unspendable_genesis));
    json_object_set_new(u, "bip30", rpc_json_amount(s->unspendable_bip30 - p->unspendable_bip30));
    json_object_set_new(u, "scripts",
                        rpc_json_amount(s->unspendable_scripts - p->unspendable_scripts));
    json_object_set_new(u, "unclaimed_rewards",
                        rpc_json_amount(s->unspendable_unclaimed - p->unspendable_unclaimed));
    json_object_set_new(bi, "unspendables", u);
    return bi;
}

/* gettxoutsetinfo from -coinstatsindex (Core's index path: no transactions or disk_size, the
 * unspendable total and block_info instead), at hash_or_height or the tip. */
static json_t *utxo_stats_from_index(struct rpc_request *req, struct coinstats_index *ci,
                                     enum coins_stats_hash kind)
{
    struct chainstate *cs = req->ctx->node->cs;
    const json_t *at = rpc_param(req, 1);
    chainstate_read_lock(cs);
    struct block_index *e = at ? rpc_block_by_hash_or_height(req, at, "hash_or_height")
                               : chainstate_tip(cs);
    chainstate_read_unlock(cs);
    if (!e) {
        return at ? NULL : rpc_error(req, RPC_INTERNAL_ERROR, "Unable to read UTXO set");
    }
    if (!coinstats_index_wait_synced(ci)) {
        int synced, best;
        coinstats_index_summary(ci, &synced, &best);
        if (at && e->height > best) {
            return rpc_error(req, RPC_INTERNAL_ERROR,
                             "Unable to get data because coinstatsindex is still syncing. "
                             "Current height: %d",
                             best);
        }
    }
    struct coinstats_entry s, p;
    memset(&p, 0, sizeof(p));
    if (coinstats_index_lookup(ci, e->hash, &s) != RC_OK ||
        (e->height > 0 && (!e->prev || coinstats_index_lookup(ci, e->prev->hash, &p) != RC_OK))) {
        return rpc_error(req, RPC_INTERNAL_ERROR, "Unable to read UTXO set");
    }
    json_t *r = json_object();
    json_object_set_new(r, "height", json_integer(e->height));
    json_object_set_new(r, "bestblock", rpc_hash_json(e->hash));
    json_object_set_new(r, "txouts", json_integer((json_int_t)s.txouts));
    json_object_set_new(r, "bogosize", json_integer((json_int_t)s.bogosize));
    if (kind == COINS_STATS_MUHASH) {
        json_object_set_new(r, "muhash", rpc_hash_json(s.muhash));
    }
    json_object_set_new(r, "total_amount", rpc_json_amount(s.total_amount));
    json_object_set_new(r, "total_unspendable_amount",
                        rpc_json_amount(s.unspendable_genesis + s.unspendable_bip30 +
                                        s.unspendable_scripts + s.unspendable_unclaimed));
    json_object_set_new(r, "block_info", coinstats_block_info(&s, &p));
    return r;
}

static json_t *rpc_gettxoutsetinfo(struct rpc_request *req)
{
    const char *type = json_string_value(rpc_param(req, 0));
    enum coins_stats_hash kind;
    if (strcmp(type, "hash_serialized_3") == 0) {
        kind = COINS_STATS_HASH_SERIALIZED;
    } else if (strcmp(type, "muhash") == 0) {
        kind = COINS_STATS_MUHASH;
    } else if (strcmp(type, "none") == 0) {
        kind = COINS_STATS_HASH_NONE;
    } else {
        return rpc_error(req, RPC_INVALID_PARAMETER, "'%s' is not a valid hash_type", type);
    }
    const json_t *use_index = rpc_param(req, 2);
    int index_requested = !use_index || json_is_true(use_index);
    struct coinstats_index *ci = req->ctx->node->coinstats;
    if (rpc_param(req, 1)) {
        if (!ci) {
            return rpc_error(req, RPC_INVALID_PARAMETER,
                             "Querying specific block heights requires coinstatsindex");
        }
        if (kind == COINS_STATS_HASH_SERIALIZED) {
            return rpc_error(req, RPC_INVALID_PARAMETER,
                             "hash_serialized_3 hash type cannot be queried for a specific block");
        }
        if (!index_requested) {
            return rpc_error(req, RPC_INVALID_PARAMETER,
                             "Cannot set use_index to false when querying for a specific block");
        }
    }
    if (ci && index_requested && kind != COINS_STATS_HASH_SERIALIZED) {
        return utxo_stats_from_index(req, ci, kind);
    }
    struct utxo_stats_call c = {.kind = kind};
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = utxo_stats_call, .ctx = &c};
    int rc = validator_run(req->ctx->node->val, &j);
    if (rc && c.cause[0]) {
        return rpc_error(req, RPC_INTERNAL_ERROR, "Unable to read UTXO set (%s: %s)", rc_str(rc),
                         c.cause);
    }
    if (rc) {
        return rpc_error(req, RPC_INTERNAL_ERROR, "Unable to read UTXO set (%s)", rc_str(rc));
    }
    struct coins_stats st = c.stats;
    uint8_t *h = c.hash;
    json_t *r = json_object();
    json_object_set_new(r, "height", json_integer(c.height));
    json_object_set_new(r, "bestblock", rpc_hash_json(c.tip_hash));
    json_object_set_new(r, "txouts", json_integer((json_int_t)st.txouts));
    json_object_set_new(r, "bogosize", json_integer((json_int_t)st.bogosize));
    if (kind == COINS_STATS_HASH_SERIALIZED) {
        json_object_set_new(r, "hash_serialized_3", rpc_hash_json(h));
    } else if (kind == COINS_STATS_MUHASH) {
        json_object_set_new(r, "muhash", rpc_hash_json(h));
    }
    json_object_set_new(r, "total_amount", rpc_json_amount(st.total_amount_sat));
    json_object_set_new(r, "transactions", json_integer((json_int_t)st.transactions));
    json_object_set_new(r, "disk_size", json_integer((json_int_t)c.disk_size));
    coins_stats_clear(&st);
    return r;
}

struct block_index *rpc_block_by_hash_or_height(struct rpc_request *req, const json_t *v,
                                                const char *name)
{
    struct chainstate *cs = req->ctx->node->cs;
    struct block_index *tip = chainstate_tip(cs);
    if (rpc_json_is_number(v)) {
        int64_t h;
        if (rpc_value_int(req, v, INT32_MIN, INT32_MAX, &h) != 0) {
            return NULL;
        }
        if (h < 0) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Target block height %d is negative", (int)h);
            return NULL;
        }
        if (!tip || h > tip->height) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Target block height %d after current tip %d",
                      (int)h, tip ? tip->height : -1);
            return NULL;
        }
        return chainstate_at_height(cs, (int32_t)h);
    }
    uint8_t hash[32];
    if (rpc_value_hash(req, v, name, hash) != 0) {
        return NULL;
    }
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    if (!e) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    }
    return e;
}

void rpc_block_facts_of(struct chainstate *cs, struct rpc_block_facts *f, struct block_index *e)
{
    struct block_index *tip = chainstate_tip(cs);
    int active = chainstate_contains(cs, e);
    memset(f, 0, sizeof(*f));
    f->height = e->height;
    f->confirmations = active ? tip->height - e->height + 1 : -1;
    f->median_time = block_index_median_time_past(e);
    f->chainwork = e->chain_work;
    f->n_tx = e->tx_count;
    struct block_index *next = active ? chainstate_at_height(cs, e->height + 1) : NULL;
    if (next) {
        f->has_next = 1;
        memcpy(f->next_hash, next->hash, 32);
    }
}

/* Core's CheckBlockDataAvailability's words for a block without data. */
static const char *block_unavailable(struct chainstate *cs, const struct block_index *e)
{
    return chainstate_block_pruned(cs, e) ? "Block not available (pruned data)"
                                          : "Block not available (not fully downloaded)";
}

int rpc_load_block(struct rpc_request *req, struct block_index *e, struct block *b,
                   struct buf *raw)
{
    char err[256];
    int rc = chainstate_read_block(req->ctx->node->cs, e, raw);
    if (rc == RC_NOT_FOUND) {
        rpc_error(req, RPC_MISC_ERROR, "%s", block_unavailable(req->ctx->node->cs, e));
        return rc;
    }
    if (rc || block_parse(b, raw->data, raw->len, err, sizeof(err)) != RC_OK) {
        rpc_error(req, RPC_MISC_ERROR, "Block not found on disk");
        return rc ? rc : RC_CORRUPT;
    }
    return RC_OK;
}

json_t *rpc_block_verbose_json(struct rpc_request *req, const struct block_index *at,
                               const struct rpc_block_facts *f, const struct block *b,
                               int verbosity)
{
    struct chainstate *cs = req->ctx->node->cs;
    struct block_undo undo;
    json_t *r = NULL;
    block_undo_init(&undo);
    /* Core: undo data that the index says is there must read (not pruned, HAVE_UNDO). */
    int want_undo = verbosity >= 2 && (at->status & BLOCK_HAVE_UNDO) && at->height > 0;
    int have_undo = want_undo && chainstate_read_undo(cs, at, &undo) == RC_OK;
    if (want_undo && !have_undo) {
        rpc_error(req, RPC_INTERNAL_ERROR, "Undo data expected but can't be read. This could be "
                                           "due to disk corruption or a conflict with a pruning "
                                           "event.");
        goto out;
    }
    r = rpc_block_json(b, f, have_undo ? &undo : NULL, chainstate_params(cs), verbosity);
    if (!r) {
        rpc_error(req, RPC_MISC_ERROR, "Undo data expected but can't be read. This could be "
                                       "due to disk corruption or a conflict with a pruning "
                                       "event.");
    }
out:
    block_undo_clear(&undo);
    return r;
}

static json_t *rpc_getblock(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    int64_t verbosity = rpc_arg_int(req, 1);
    struct buf raw;
    struct block b;
    struct block_index at;
    struct rpc_block_facts f;
    json_t *r = NULL;
    /* The chain lock for the lookup only: the entry's position and status and the facts the
     * answer shows are copied under it. Reading and rendering the block need no lock (the
     * blk and rev files are only appended to, and their reads take the store's own lock), so
     * a large block does not hold the validation thread off. */
    chainstate_read_lock(cs);
    struct block_index *e = find_block(req, 0);
    if (e) {
        at = *e;
        rpc_block_facts_of(cs, &f, e);
    }
    chainstate_read_unlock(cs);
    if (!e) {
        return NULL;
    }
    buf_init(&raw);
    if (verbosity <= 0) {
        int rc = chainstate_read_block(cs, &at, &raw);
        if (rc) {
            rpc_error(req, RPC_MISC_ERROR, "%s",
                      rc == RC_NOT_FOUND ? block_unavailable(cs, &at) : "Block not found on disk");
            goto out;
        }
        char *hx = hex_encode_alloc(raw.data, raw.len);
        r = json_string(hx);
        free(hx);
        goto out;
    }
    if (rpc_load_block(req, &at, &b, &raw)) {
        goto out;
    }
    r = rpc_block_verbose_json(req, &at, &f, &b, verbosity > 3 ? 3 : (int)verbosity);
    block_clear(&b);
out:
    buf_clear(&raw);
    return r;
}

static json_t *rpc_getblockheader(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    int verbose = json_is_true(rpc_param(req, 1));
    json_t *r = NULL;
    chainstate_read_lock(cs);
    struct block_index *e = find_block(req, 0);
    if (e && !verbose) {
        uint8_t h[80];
        char hx[161];
        block_header_serialize(&e->header, h);
        hex_encode(hx, h, 80);
        r = json_string(hx);
    } else if (e) {
        struct rpc_block_facts f;
        rpc_block_facts_of(cs, &f, e);
        r = rpc_block_header_json(&e->header, &f, chainstate_params(cs));
    }
    chainstate_read_unlock(cs);
    return r;
}

static json_t *rpc_gettxout(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    struct outpoint op;
    struct coin c;
    memcpy(op.txid, rpc_arg_hash(req, 0), 32);
    op.n = (uint32_t)rpc_arg_int(req, 1);
    /* include_mempool (Core's CCoinsViewMemPool): an output a pool transaction spends is
     * gone, one a pool transaction creates is there with 0 confirmations. */
    int with_pool = !json_is_false(rpc_param(req, 2)) && req->ctx->node->mempool;
    struct mempool *mp = req->ctx->node->mempool;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    int rc;
    int from_pool = 0;
    memset(&c, 0, sizeof(c));
    if (with_pool) {
        mempool_read_lock(mp);
        struct mempool_entry *e = mempool_get(mp, op.txid);
        if (mempool_spender(mp, &op)) {
            rc = RC_NOT_FOUND;
        } else if (e) {
            rc = RC_NOT_FOUND;
            if (op.n < e->tx.vout_count) {
                const struct tx_out *o = &e->tx.vout[op.n];
                c.value_sat = o->value_sat;
                c.script_pubkey.len = o->script_pubkey.len;
                c.script_pubkey.data = o->script_pubkey.len ? xmalloc(o->script_pubkey.len) : NULL;
                if (o->script_pubkey.len) {
                    memcpy(c.script_pubkey.data, o->script_pubkey.data, o->script_pubkey.len);
                }
                rc = RC_OK;
                from_pool = 1;
            }
        } else {
            rc = tip ? chainstate_get_coin(cs, &op, &c) : RC_NOT_FOUND;
        }
        mempool_read_unlock(mp);
    } else {
        rc = tip ? chainstate_get_coin(cs, &op, &c) : RC_NOT_FOUND;
    }
    if (rc == RC_NOT_FOUND) {
        chainstate_read_unlock(cs);
        return json_null();
    }
    if (rc) {
        chainstate_read_unlock(cs);
        return rpc_error(req, RPC_DATABASE_ERROR, "Unable to read the UTXO set (%s)", rc_str(rc));
    }
    json_t *r = json_object();
    json_object_set_new(r, "bestblock", rpc_hash_json(tip->hash));
    json_object_set_new(r, "confirmations",
                        json_integer(from_pool ? 0 : tip->height - (int32_t)c.height + 1));
    json_object_set_new(r, "value", rpc_json_amount(c.value_sat));
    json_object_set_new(r, "scriptPubKey",
                        rpc_script_pubkey_json(c.script_pubkey.data, c.script_pubkey.len,
                                               chainstate_params(cs), 1));
    json_object_set_new(r, "coinbase", json_boolean(c.coinbase));
    chainstate_read_unlock(cs);
    coin_clear(&c);
    return r;
}

static json_t *rpc_waitfornewblock(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    struct wait_new w;
    int64_t timeout = rpc_arg_int(req, 0);
    if (timeout < 0) {
        return rpc_error(req, RPC_MISC_ERROR, "Negative timeout");
    }
    /* Core: wait for the tip to differ from current_tip, or else from the tip now. */
    if (rpc_arg_hash(req, 1)) {
        memcpy(w.hash, rpc_arg_hash(req, 1), 32);
    } else {
        pthread_mutex_lock(&ctx->node->tip.mu);
        memcpy(w.hash, ctx->node->tip.hash, 32);
        pthread_mutex_unlock(&ctx->node->tip.mu);
    }
    return wait_tip(ctx, timeout, tip_changed, &w);
}

static json_t *rpc_waitforblock(struct rpc_request *req)
{
    int64_t timeout = rpc_arg_int(req, 1);
    if (timeout < 0) {
        return rpc_error(req, RPC_MISC_ERROR, "Negative timeout");
    }
    return wait_tip(req->ctx, timeout, tip_is, rpc_arg_hash(req, 0));
}

static json_t *rpc_waitforblockheight(struct rpc_request *req)
{
    int height = (int)rpc_arg_int(req, 0);
    int64_t timeout = rpc_arg_int(req, 1);
    if (timeout < 0) {
        return rpc_error(req, RPC_MISC_ERROR, "Negative timeout");
    }
    return wait_tip(req->ctx, timeout, tip_at_least, &height);
}

/* verifychain on the validation thread (its in-memory disconnects read through the coins
 * cache, which only that thread may fill). */
struct verify_call {
    int level, nblocks, ok;
    char why[256];
};

static int verify_call(struct chainstate *cs, void *ctx)
{
    struct verify_call *c = ctx;
    return chainstate_verify(cs, c->level, c->nblocks, &c->ok, c->why, sizeof(c->why), NULL);
}

static json_t *rpc_verifychain(struct rpc_request *req)
{
    /* Core's VerifyDB clamps the level into 0..4. */
    int64_t level = rpc_arg_int_or(req, 0, 3);
    level = level < 0 ? 0 : level > 4 ? 4 : level;
    int nblocks = (int)rpc_arg_int_or(req, 1, 6);
    struct verify_call c = {.level = (int)level, .nblocks = nblocks};
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = verify_call, .ctx = &c};
    int rc = validator_run(req->ctx->node->val, &j);
    if (rc) {
        return rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
    }
    if (c.ok != 1) {
        LOG_WARN("verifychain: %s", c.why);
    }
    return json_boolean(c.ok == 1);
}

/* invalidateblock, reconsiderblock, preciousblock: one block hash in, a job for the
 * validation thread, null out. */
static json_t *block_action(struct rpc_request *req, enum validator_work work)
{
    struct validator_job j = {.work = work};
    memcpy(j.hash, rpc_arg_hash(req, 0), 32);
    int rc = validator_run(req->ctx->node->val, &j);
    if (rc == RC_NOT_FOUND) {
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    }
    if (rc == RC_USAGE) {
        /* invalidateblock of the genesis block: Core changes nothing and answers null. */
        return json_null();
    }
    if (rc) {
        return rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
    }
    return json_null();
}

static json_t *rpc_invalidateblock(struct rpc_request *req)
{
    return block_action(req, VALIDATOR_INVALIDATE);
}

static json_t *rpc_reconsiderblock(struct rpc_request *req)
{
    return block_action(req, VALIDATOR_RECONSIDER);
}

static json_t *rpc_preciousblock(struct rpc_request *req)
{
    return block_action(req, VALIDATOR_PRECIOUS);
}

static int nothing_call(struct chainstate *cs, void *ctx)
{
    (void)cs;
    (void)ctx;
    return 0;
}

/* Core's SyncWithValidationInterfaceQueue: every change to bitnode's chain (blocks and
 * headers from peers, submitblock, invalidateblock, ...) is a job in the validation thread's
 * queue, taken in order, and the tip callbacks run inside it; so an empty job queued behind
 * them is the same barrier. A validator that stopped (shutdown) has nothing left to
 * deliver. */
void rpc_sync_validation_queue(struct rpc_context *ctx)
{
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = nothing_call};
    (void)validator_run(ctx->node->val, &j);
    /* Core's indexes take their blocks from the validation interface queue: once it is
     * empty they have them. Ours follow the chain on their own threads: wait for each. */
    struct node_context *n = ctx->node;
    if (n->blockfilters) {
        (void)blockfilter_index_wait_synced(n->blockfilters);
    }
    if (n->coinstats) {
        (void)coinstats_index_wait_synced(n->coinstats);
    }
    if (n->spenders) {
        (void)txospender_index_wait_synced(n->spenders);
    }
}

static json_t *rpc_syncwithvalidationinterfacequeue(struct rpc_request *req)
{
    rpc_sync_validation_queue(req->ctx);
    return json_null();
}

/* ---- declarations -------------------------------------------------------------------- */

static const struct rpc_result result_hash_height[] = {
    {.type = RPC_RES_OBJ,
     .inner = RPC_LIST(struct rpc_result,
                       {.type = RPC_RES_STR_HEX, .key = "hash", .description = "The blockhash"},
                       {.type = RPC_RES_NUM, .key = "height", .description = "Block height"})},
};
static const struct rpc_result result_none[] = {{.type = RPC_RES_NONE, .description = ""}};

/* A block hash argument, converted with Core's "blockhash" in its messages. */
#define ARG_BLOCKHASH(what)                                                                        \
    {.names = "blockhash", .type = RPC_ARG_STR_HEX, .description = what,                        \
     .conv = RPC_CONV_HASH, .conv_name = "blockhash"}

#define ARG_TIMEOUT                                                                                \
    {.names = "timeout", .type = RPC_ARG_NUM, .fallback = RPC_ARG_DEFAULT, .default_value = "0",   \
     .description = "Time in milliseconds to wait for a response. 0 indicates no timeout.",      \
     .conv = RPC_CONV_INT}

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "getblockcount",
     .handler = rpc_getblockcount,
     .description = "Returns the height of the most-work fully-validated chain.\n"
                    "The genesis block has height 0.\n",
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_NUM, .description = "The current block count"}),
     .examples = RPC_EXAMPLES("getblockcount", "", "")},
    {.category = "blockchain",
     .name = "getbestblockhash",
     .handler = rpc_getbestblockhash,
     .description =
         "Returns the hash of the best (tip) block in the most-work fully-validated chain.\n",
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR_HEX, .description = "the block hash, hex-encoded"}),
     .examples = RPC_EXAMPLES("getbestblockhash", "", "")},
    {.category = "blockchain",
     .name = "getblockhash",
     .handler = rpc_getblockhash,
     .description = "Returns hash of block in best-block-chain at height provided.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "height",
                                       .type = RPC_ARG_NUM,
                                       .description = "The height index",
                                       .conv = RPC_CONV_INT}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_STR_HEX, .description = "The block hash"}),
     .examples = RPC_EXAMPLES("getblockhash", "1000", "1000")},
    {.category = "blockchain",
     .name = "getdifficulty",
     .handler = rpc_getdifficulty,
     .description =
         "Returns the proof-of-work difficulty as a multiple of the minimum difficulty.\n",
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_NUM,
                          .description = "the proof-of-work difficulty as a multiple of the "
                                         "minimum difficulty."}),
     .examples = RPC_EXAMPLES("getdifficulty", "", "")},
    {.category = "blockchain",
     .name = "getblockchaininfo",
     .handler = rpc_getblockchaininfo,
     .description =
         "Returns an object containing various state info regarding blockchain processing.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR,
               .key = "chain",
               .description = "current network name (main, test, testnet4, signet, regtest)"},
              {.type = RPC_RES_NUM,
               .key = "blocks",
               .description = "the height of the most-work fully-validated chain. The genesis "
                              "block has height 0"},
              {.type = RPC_RES_NUM,
               .key = "headers",
               .description = "the current number of headers we have validated"},
              {.type = RPC_RES_STR,
               .key = "bestblockhash",
               .description = "the hash of the currently best block"},
              {.type = RPC_RES_STR_HEX,
               .key = "bits",
               .description = "nBits: compact representation of the block difficulty target"},
              {.type = RPC_RES_STR_HEX, .key = "target", .description = "the difficulty target"},
              {.type = RPC_RES_NUM, .key = "difficulty", .description = "the current difficulty"},
              {.type = RPC_RES_NUM_TIME,
               .key = "time",
               .description = "the block time expressed in UNIX epoch time"},
              {.type = RPC_RES_NUM_TIME,
               .key = "mediantime",
               .description = "the median block time expressed in UNIX epoch time"},
              {.type = RPC_RES_NUM,
               .key = "verificationprogress",
               .description = "estimate of verification progress [0..1]"},
              {.type = RPC_RES_BOOL,
               .key = "initialblockdownload",
               .description = "(debug information) estimate of whether this node is in Initial "
                              "Block Download mode"},
              {.type = RPC_RES_OBJ,
               .key = "backgroundvalidation",
               .optional = true,
               .description = "state info regarding background validation process",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_NUM,
                    .key = "snapshotheight",
                    .description = "the height of the snapshot block. Background validation "
                                   "verifies the chain from genesis up to this height"},
                   {.type = RPC_RES_NUM,
                    .key = "blocks",
                    .description = "the height of the most-work background fully-validated "
                                   "chain. The genesis block has height 0"},
                   {.type = RPC_RES_STR,
                    .key = "bestblockhash",
                    .description = "the hash of the currently best block validated in the "
                                   "background"},
                   {.type = RPC_RES_NUM_TIME,
                    .key = "mediantime",
                    .description = "the median block time expressed in UNIX epoch time"},
                   {.type = RPC_RES_NUM,
                    .key = "verificationprogress",
                    .description = "estimate of background verification progress [0..1]"},
                   {.type = RPC_RES_STR_HEX,
                    .key = "chainwork",
                    .description = "total amount of work in background validated chain, in "
                                   "hexadecimal"})},
              {.type = RPC_RES_STR_HEX,
               .key = "chainwork",
               .description = "total amount of work in active chain, in hexadecimal"},
              {.type = RPC_RES_NUM,
               .key = "size_on_disk",
               .description = "the estimated size of the block and undo files on disk"},
              {.type = RPC_RES_BOOL,
               .key = "pruned",
               .description = "if the blocks are subject to pruning"},
              {.type = RPC_RES_NUM,
               .key = "pruneheight",
               .optional = true,
               .description = "the first block unpruned, all previous blocks were pruned (only "
                              "present if pruning is enabled)"},
              {.type = RPC_RES_BOOL,
               .key = "automatic_pruning",
               .optional = true,
               .description = "whether automatic pruning is enabled (only present if pruning is "
                              "enabled)"},
              {.type = RPC_RES_NUM,
               .key = "prune_target_size",
               .optional = true,
               .description = "the target size used by pruning (only present if automatic "
                              "pruning is enabled)"},
              {.type = RPC_RES_STR_HEX,
               .key = "signet_challenge",
               .optional = true,
               .description = "the block challenge (aka. block script), in hexadecimal (only "
                              "present if the current network is a signet)"},
              {.type = RPC_RES_ARR,
               .key = "warnings",
               .description = "any network and blockchain warnings (run with "
                              "`-deprecatedrpc=warnings` to return the latest warning as a "
                              "single string)",
               .inner = RPC_LIST(struct rpc_result,
                                 {.type = RPC_RES_STR, .description = "warning"})},
              /* Not Core's: checked, but left out of help so that it stays Core's. */
              {.type = RPC_RES_STR_HEX,
               .key = "assumevalid",
               .optional = true,
               .description = "the block assumed valid (only present with -assumevalid)",
               .elision = RPC_ELIDE_SKIP})}),
     .examples = RPC_EXAMPLES("getblockchaininfo", "", "")},
    {.category = "blockchain",
     .name = "getchaintxstats",
     .handler = rpc_getchaintxstats,
     .description = "Compute statistics about the total number and rate of transactions in the "
                    "chain.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "nblocks",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "one month",
                       .description = "Size of the window in number of blocks"},
                      {.names = "blockhash",
                       .type = RPC_ARG_STR_HEX,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "chain tip",
                       .description = "The hash of the block that ends the window."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_NUM_TIME,
               .key = "time",
               .description = "The timestamp for the final block in the window, expressed in "
                              "UNIX epoch time"},
              {.type = RPC_RES_NUM,
               .key = "txcount",
               .optional = true,
               .description = "The total number of transactions in the chain up to that point, "
                              "if known. It may be unknown when using assumeutxo."},
              {.type = RPC_RES_STR_HEX,
               .key = "window_final_block_hash",
               .description = "The hash of the final block in the window"},
              {.type = RPC_RES_NUM,
               .key = "window_final_block_height",
               .description = "The height of the final block in the window."},
              {.type = RPC_RES_NUM,
               .key = "window_block_count",
               .description = "Size of the window in number of blocks"},
              {.type = RPC_RES_NUM,
               .key = "window_interval",
               .optional = true,
               .description = "The elapsed time in the window in seconds. Only returned if "
                              "\"window_block_count\" is > 0"},
              {.type = RPC_RES_NUM,
               .key = "window_tx_count",
               .optional = true,
               .description = "The number of transactions in the window. Only returned if "
                              "\"window_block_count\" is > 0 and if txcount exists for the "
                              "start and end of the window."},
              {.type = RPC_RES_NUM,
               .key = "txrate",
               .optional = true,
               .description = "The average rate of transactions per second in the window. Only "
                              "returned if \"window_interval\" is > 0 and if window_tx_count "
                              "exists."})}),
     .examples = RPC_EXAMPLES("getchaintxstats", "", "2016")},
    {.category = "blockchain",
     .name = "getchainstates",
     .handler = rpc_getchainstates,
     .description = "Return information about chainstates.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_NUM, .key = "headers",
               .description = "the number of headers seen so far"},
              {.type = RPC_RES_ARR,
               .key = "chainstates",
               .description = "list of the chainstates ordered by work, with the most-work "
                              "(active) chainstate last",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_OBJ,
                    .inner = RPC_LIST(
                        struct rpc_result,
                        {.type = RPC_RES_NUM, .key = "blocks",
                         .description = "number of blocks in this chainstate"},
                        {.type = RPC_RES_STR_HEX, .key = "bestblockhash",
                         .description = "blockhash of the tip"},
                        {.type = RPC_RES_STR_HEX, .key = "bits",
                         .description = "nBits: compact representation of the block difficulty "
                                        "target"},
                        {.type = RPC_RES_STR_HEX, .key = "target",
                         .description = "The difficulty target"},
                        {.type = RPC_RES_NUM, .key = "difficulty",
                         .description = "difficulty of the tip"},
                        {.type = RPC_RES_NUM, .key = "verificationprogress",
                         .description = "progress towards the network tip"},
                        {.type = RPC_RES_STR_HEX, .key = "snapshot_blockhash", .optional = true,
                         .description = "the base block of the snapshot this chainstate is "
                                        "based on, if any"},
                        {.type = RPC_RES_NUM, .key = "coins_db_cache_bytes",
                         .description = "size of the coinsdb cache"},
                        {.type = RPC_RES_NUM, .key = "coins_tip_cache_bytes",
                         .description = "size of the coinstip cache"},
                        {.type = RPC_RES_BOOL, .key = "validated",
                         .description = "whether the chainstate is fully validated. True if all "
                                        "blocks in the chainstate were validated, false if the "
                                        "chain is based on a snapshot and the snapshot has not "
                                        "yet been validated."})})})}),
     .examples = RPC_EXAMPLES("getchainstates", "", "")},
    {.category = "blockchain",
     .name = "getchaintips",
     .handler = rpc_getchaintips,
     .description = "Return information about all known tips in the block tree, including the "
                    "main chain as well as orphaned branches.\n",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_OBJ,
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_NUM, .key = "height", .description = "height of the chain tip"},
                   {.type = RPC_RES_STR_HEX, .key = "hash", .description = "block hash of the tip"},
                   {.type = RPC_RES_NUM,
                    .key = "branchlen",
                    .description = "zero for main chain, otherwise length of branch connecting "
                                   "the tip to the main chain"},
                   {.type = RPC_RES_STR,
                    .key = "status",
                    .description =
                        "status of the chain, \"active\" for the main chain\n"
                        "Possible values for status:\n"
                        "1.  \"invalid\"               This branch contains at least one invalid "
                        "block\n"
                        "2.  \"headers-only\"          Not all blocks for this branch are "
                        "available, but the headers are valid\n"
                        "3.  \"valid-headers\"         All blocks are available for this branch, "
                        "but they were never fully validated\n"
                        "4.  \"valid-fork\"            This branch is not part of the active "
                        "chain, but is fully validated\n"
                        "5.  \"active\"                This is the tip of the active main chain, "
                        "which is certainly valid"})})}),
     .examples = RPC_EXAMPLES("getchaintips", "", "")},
    {.category = "blockchain",
     .name = "gettxoutsetinfo",
     .handler = rpc_gettxoutsetinfo,
     .description = "Returns statistics about the unspent transaction output set.\n"
                    "Note this call may take some time if you are not using coinstatsindex.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "hash_type",
          .type = RPC_ARG_STR,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "\"hash_serialized_3\"",
          .description = "Which UTXO set hash should be calculated. Options: "
                         "'hash_serialized_3' (the legacy algorithm), 'muhash', 'none'."},
         {.names = "hash_or_height",
          .type = RPC_ARG_NUM,
          .fallback = RPC_ARG_DEFAULT_HINT,
          .default_value = "the current best block",
          .description = "The block hash or height of the target height (only available with "
                         "coinstatsindex).",
          .oneline = "hash_or_height",
          .type_str = {"", "string or numeric"},
          .skip_type_check = true},
         {.names = "use_index",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "true",
          .description = "Use coinstatsindex, if available."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_NUM,
               .key = "height",
               .description = "The block height (index) of the returned statistics"},
              {.type = RPC_RES_STR_HEX,
               .key = "bestblock",
               .description = "The hash of the block at which these statistics are calculated"},
              {.type = RPC_RES_NUM,
               .key = "txouts",
               .description = "The number of unspent transaction outputs"},
              {.type = RPC_RES_NUM,
               .key = "bogosize",
               .description = "Database-independent, meaningless metric indicating the UTXO set "
                              "size"},
              {.type = RPC_RES_STR_HEX,
               .key = "hash_serialized_3",
               .optional = true,
               .description = "The serialized hash (only present if 'hash_serialized_3' "
                              "hash_type is chosen)"},
              {.type = RPC_RES_STR_HEX,
               .key = "muhash",
               .optional = true,
               .description = "The serialized hash (only present if 'muhash' hash_type is "
                              "chosen)"},
              {.type = RPC_RES_NUM,
               .key = "transactions",
               .optional = true,
               .description = "The number of transactions with unspent outputs (not available "
                              "when coinstatsindex is used)"},
              {.type = RPC_RES_NUM,
               .key = "disk_size",
               .optional = true,
               .description = "The estimated size of the chainstate on disk (not available when "
                              "coinstatsindex is used)"},
              {.type = RPC_RES_STR_AMOUNT,
               .key = "total_amount",
               .description = "The total amount of coins in the UTXO set"},
              {.type = RPC_RES_STR_AMOUNT,
               .key = "total_unspendable_amount",
               .optional = true,
               .description = "The total amount of coins permanently excluded from the UTXO set "
                              "(only available if coinstatsindex is used)"},
              {.type = RPC_RES_OBJ,
               .key = "block_info",
               .optional = true,
               .description = "Info on amounts in the block at this block height (only "
                              "available if coinstatsindex is used)",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_STR_AMOUNT,
                    .key = "prevout_spent",
                    .description = "Total amount of all prevouts spent in this block"},
                   {.type = RPC_RES_STR_AMOUNT,
                    .key = "coinbase",
                    .description = "Coinbase subsidy amount of this block"},
                   {.type = RPC_RES_STR_AMOUNT,
                    .key = "new_outputs_ex_coinbase",
                    .description = "Total amount of new outputs created by this block"},
                   {.type = RPC_RES_STR_AMOUNT,
                    .key = "unspendable",
                    .description = "Total amount of unspendable outputs created in this block"},
                   {.type = RPC_RES_OBJ,
                    .key = "unspendables",
                    .description = "Detailed view of the unspendable categories",
                    .inner = RPC_LIST(
                        struct rpc_result,
                        {.type = RPC_RES_STR_AMOUNT,
                         .key = "genesis_block",
                         .description = "The unspendable amount of the Genesis block subsidy"},
                        {.type = RPC_RES_STR_AMOUNT,
                         .key = "bip30",
                         .description = "Transactions overridden by duplicates (no longer "
                                        "possible with BIP30)"},
                        {.type = RPC_RES_STR_AMOUNT,
                         .key = "scripts",
                         .description = "Amounts sent to scripts that are unspendable (for "
                                        "example OP_RETURN outputs)"},
                        {.type = RPC_RES_STR_AMOUNT,
                         .key = "unclaimed_rewards",
                         .description = "Fee rewards that miners did not claim in their "
                                        "coinbase transaction"})})})}),
     .examples =
         RPC_EXAMPLE_CLI("gettxoutsetinfo", "")
         RPC_EXAMPLE_CLI("gettxoutsetinfo", "\"none\"")
         RPC_EXAMPLE_CLI("gettxoutsetinfo", "\"none\" 1000")
         RPC_EXAMPLE_CLI(
             "gettxoutsetinfo",
             "\"none\" '\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"'")
         RPC_EXAMPLE_CLI("-named gettxoutsetinfo", "hash_type='muhash' use_index='false'")
         RPC_EXAMPLE_RPC("gettxoutsetinfo", "")
         RPC_EXAMPLE_RPC("gettxoutsetinfo", "\"none\"")
         RPC_EXAMPLE_RPC("gettxoutsetinfo", "\"none\", 1000")
         RPC_EXAMPLE_RPC(
             "gettxoutsetinfo",
             "\"none\", \"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"")},
    {.category = "blockchain",
     .name = "getblock",
     .handler = rpc_getblock,
     .description =
         "If verbosity is 0, returns a string that is serialized, hex-encoded data for block "
         "'hash'.\n"
         "If verbosity is 1, returns an Object with information about block <hash>.\n"
         "If verbosity is 2, returns an Object with information about block <hash> and "
         "information about each transaction.\n"
         "If verbosity is 3, returns an Object with information about block <hash> and "
         "information about each transaction, including prevout information for inputs (only "
         "for unpruned blocks in the current best chain).\n",
     .args = RPC_LIST(struct rpc_arg,
                      ARG_BLOCKHASH("The block hash"),
                      {.names = "verbosity|verbose",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "1",
                       .description = "0 for hex-encoded data, 1 for a JSON object, 2 for JSON "
                                      "object with transaction data, and 3 for JSON object with "
                                      "transaction data including prevout information for inputs",
                       .skip_type_check = true,
                       .conv = RPC_CONV_VERBOSITY}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_STR_HEX,
          .description = "A string that is serialized, hex-encoded data for block 'hash'",
          .cond = "for verbosity = 0"},
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result,
                            RPC_DOC_BLOCK_FIELDS(RPC_ELIDE_NONE, NULL, RPC_ELIDE_NONE,
                                                 {.type = RPC_RES_ARR,
                                                  .key = "tx",
                                                  .description = "The transaction ids",
                                                  .inner = RPC_LIST(struct rpc_result,
                                                                    {.type = RPC_RES_STR_HEX,
                                                                     .description =
                                                                         "The transaction id"})})),
          .cond = "for verbosity = 1"},
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              RPC_DOC_BLOCK_FIELDS(
                  RPC_ELIDE_TEXT, "Same output as verbosity = 1", RPC_ELIDE_SKIP,
                  {.type = RPC_RES_ARR,
                   .key = "tx",
                   .inner = RPC_LIST(
                       struct rpc_result,
                       {.type = RPC_RES_OBJ,
                        .inner = RPC_LIST(
                            struct rpc_result,
                            RPC_DOC_TX_FIELDS("The transaction id", RPC_ELIDE_TEXT,
                                              "The transactions in the format of the "
                                              "getrawtransaction RPC. Different from "
                                              "verbosity = 1 \"tx\" result",
                                              RPC_ELIDE_SKIP, RPC_ELIDE_SKIP, rpc_doc_vin),
                            {.type = RPC_RES_NUM,
                             .key = "fee",
                             .optional = true,
                             .description = "The transaction fee in BTC, omitted if block undo "
                                            "data is not available"},
                            {.type = RPC_RES_STR_HEX,
                             .key = "hex",
                             .description = "The hex-encoded transaction data",
                             .elision = RPC_ELIDE_SKIP})})})),
          .cond = "for verbosity = 2"},
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              RPC_DOC_BLOCK_FIELDS(
                  RPC_ELIDE_TEXT, "Same output as verbosity = 2", RPC_ELIDE_SKIP,
                  {.type = RPC_RES_ARR,
                   .key = "tx",
                   .inner = RPC_LIST(
                       struct rpc_result,
                       {.type = RPC_RES_OBJ,
                        .inner = RPC_LIST(
                            struct rpc_result,
                            RPC_DOC_TX_FIELDS("The transaction id", RPC_ELIDE_SKIP, NULL,
                                              RPC_ELIDE_SKIP, RPC_ELIDE_NONE,
                                              rpc_doc_vin_prevout_block),
                            {.type = RPC_RES_NUM,
                             .key = "fee",
                             .optional = true,
                             .description = "The transaction fee in BTC, omitted if block undo "
                                            "data is not available",
                             .elision = RPC_ELIDE_SKIP},
                            {.type = RPC_RES_STR_HEX,
                             .key = "hex",
                             .description = "The hex-encoded transaction data",
                             .elision = RPC_ELIDE_SKIP})})})),
          .cond = "for verbosity = 3"}),
     .examples = RPC_EXAMPLES(
         "getblock", "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"",
         "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"")},
    {.category = "blockchain",
     .name = "getblockheader",
     .handler = rpc_getblockheader,
     .description = "If verbose is false, returns a string that is serialized, hex-encoded data "
                    "for blockheader 'hash'.\n"
                    "If verbose is true, returns an Object with information about blockheader "
                    "<hash>.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "blockhash",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The block hash",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "hash"},
                      {.names = "verbose",
                       .type = RPC_ARG_BOOL,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "true",
                       .description = "true for a json object, false for the hex-encoded data"}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(struct rpc_result, RPC_DOC_HEADER_FIELDS),
          .cond = "for verbose = true"},
         {.type = RPC_RES_STR_HEX,
          .description = "A string that is serialized, hex-encoded data for block 'hash'",
          .cond = "for verbose=false"}),
     .examples = RPC_EXAMPLES(
         "getblockheader", "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"",
         "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"")},
    {.category = "blockchain",
     .name = "gettxout",
     .handler = rpc_gettxout,
     .description = "Returns details about an unspent transaction output.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "txid",
                       .type = RPC_ARG_STR_HEX,
                       .description = "The transaction id",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "txid"},
                      {.names = "n",
                       .type = RPC_ARG_NUM,
                       .description = "vout number",
                       .conv = RPC_CONV_UINT32},
                      {.names = "include_mempool",
                       .type = RPC_ARG_BOOL,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "true",
                       .description = "Whether to include the mempool. Note that an unspent "
                                      "output that is spent in the mempool won't appear."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_NONE, .description = "", .cond = "If the UTXO was not found"},
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR_HEX,
               .key = "bestblock",
               .description = "The hash of the block at the tip of the chain"},
              {.type = RPC_RES_NUM,
               .key = "confirmations",
               .description = "The number of confirmations"},
              {.type = RPC_RES_STR_AMOUNT,
               .key = "value",
               .description = "The transaction value in BTC"},
              {.type = RPC_RES_OBJ,
               .key = "scriptPubKey",
               .inner = RPC_LIST(
                   struct rpc_result,
                   {.type = RPC_RES_STR,
                    .key = "asm",
                    .description = "Disassembly of the output script"},
                   {.type = RPC_RES_STR,
                    .key = "desc",
                    .description = "Inferred descriptor for the output"},
                   {.type = RPC_RES_STR_HEX,
                    .key = "hex",
                    .description = "The raw output script bytes, hex-encoded"},
                   {.type = RPC_RES_STR, .key = "type", .description = "The type, eg pubkeyhash"},
                   {.type = RPC_RES_STR,
                    .key = "address",
                    .optional = true,
                    .description = "The Bitcoin address (only if a well-defined address "
                                   "exists)"})},
              {.type = RPC_RES_BOOL, .key = "coinbase", .description = "Coinbase or not"}),
          .cond = "Otherwise"}),
     .examples = "\nGet unspent transactions\n" RPC_EXAMPLE_CLI("listunspent", "")
         "\nView the details\n" RPC_EXAMPLE_CLI("gettxout", "\"txid\" 1")
         "\nAs a JSON-RPC call\n" RPC_EXAMPLE_RPC("gettxout", "\"txid\", 1")},
    {.category = "blockchain",
     .name = "waitfornewblock",
     .handler = rpc_waitfornewblock,
     .description = "Waits for any new block and returns useful info about it.\n"
                    "\nReturns the current block on timeout or exit.\n"
                    "\nMake sure to use no RPC timeout (bitnode-cli -rpcclienttimeout=0)",
     .args = RPC_LIST(struct rpc_arg, ARG_TIMEOUT,
                      {.names = "current_tip",
                       .type = RPC_ARG_STR_HEX,
                       .fallback = RPC_ARG_OMITTED,
                       .description = "Method waits for the chain tip to differ from this.",
                       .conv = RPC_CONV_HASH,
                       .conv_name = "current_tip"}),
     .results = result_hash_height,
     .n_results = 1,
     .examples = RPC_EXAMPLES("waitfornewblock", "1000", "1000")},
    {.category = "blockchain",
     .name = "waitforblock",
     .handler = rpc_waitforblock,
     .description = "Waits for a specific new block and returns useful info about it.\n"
                    "\nReturns the current block on timeout or exit.\n"
                    "\nMake sure to use no RPC timeout (bitnode-cli -rpcclienttimeout=0)",
     .args = RPC_LIST(struct rpc_arg,
                      ARG_BLOCKHASH("Block hash to wait for."),
                      ARG_TIMEOUT),
     .results = result_hash_height,
     .n_results = 1,
     .examples = RPC_EXAMPLES(
         "waitforblock",
         "\"0000000000079f8ef3d2c688c244eb7a4570b24c9ed7b4a8c619eb02596f8862\" 1000",
         "\"0000000000079f8ef3d2c688c244eb7a4570b24c9ed7b4a8c619eb02596f8862\", 1000")},
    {.category = "blockchain",
     .name = "waitforblockheight",
     .handler = rpc_waitforblockheight,
     .description = "Waits for (at least) block height and returns the height and hash\n"
                    "of the current tip.\n"
                    "\nReturns the current block on timeout or exit.\n"
                    "\nMake sure to use no RPC timeout (bitnode-cli -rpcclienttimeout=0)",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "height",
                       .type = RPC_ARG_NUM,
                       .description = "Block height to wait for.",
                       .conv = RPC_CONV_INT},
                      ARG_TIMEOUT),
     .results = result_hash_height,
     .n_results = 1,
     .examples = RPC_EXAMPLES("waitforblockheight", "100 1000", "100, 1000")},
    {.category = "blockchain",
     .name = "preciousblock",
     .handler = rpc_preciousblock,
     .description = "Treats a block as if it were received before others with the same work.\n"
                    "\nA later preciousblock call can override the effect of an earlier one.\n"
                    "\nThe effects of preciousblock are not retained across restarts.\n",
     .args = RPC_LIST(struct rpc_arg,
                      ARG_BLOCKHASH("the hash of the block to mark as precious")),
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLES("preciousblock", "\"blockhash\"", "\"blockhash\"")},
    {.category = "blockchain",
     .name = "verifychain",
     .handler = rpc_verifychain,
     .description = "Verifies blockchain database.\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "checklevel",
          .type = RPC_ARG_NUM,
          .fallback = RPC_ARG_DEFAULT_HINT,
          .default_value = "3, range=0-4",
          .description = "How thorough the block verification is:\n"
                         "- level 0 reads the blocks from disk\n"
                         "- level 1 verifies block validity\n"
                         "- level 2 verifies undo data\n"
                         "- level 3 checks disconnection of tip blocks\n"
                         "- level 4 tries to reconnect the blocks\n"
                         "- each level includes the checks of the previous levels",
          .conv = RPC_CONV_INT},
         {.names = "nblocks",
          .type = RPC_ARG_NUM,
          .fallback = RPC_ARG_DEFAULT_HINT,
          .default_value = "6, 0=all",
          .description = "The number of blocks to check.",
          .conv = RPC_CONV_INT}),
     .results = RPC_LIST(struct rpc_result,
                         {.type = RPC_RES_BOOL,
                          .description = "Verification finished successfully. If false, check "
                                         "debug log for reason."}),
     .examples = RPC_EXAMPLES("verifychain", "", "")},
    {.category = "hidden",
     .name = "invalidateblock",
     .handler = rpc_invalidateblock,
     .description = "Permanently marks a block as invalid, as if it violated a consensus rule.\n",
     .args = RPC_LIST(struct rpc_arg,
                      ARG_BLOCKHASH("the hash of the block to mark as invalid")),
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLES("invalidateblock", "\"blockhash\"", "\"blockhash\"")},
    {.category = "hidden",
     .name = "reconsiderblock",
     .handler = rpc_reconsiderblock,
     .description = "Removes invalidity status of a block, its ancestors and its descendants, "
                    "reconsider them for activation.\n"
                    "This can be used to undo the effects of invalidateblock.\n",
     .args = RPC_LIST(struct rpc_arg,
                      ARG_BLOCKHASH("the hash of the block to reconsider")),
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLES("reconsiderblock", "\"blockhash\"", "\"blockhash\"")},
    {.category = "hidden",
     .name = "syncwithvalidationinterfacequeue",
     .handler = rpc_syncwithvalidationinterfacequeue,
     .description = "Waits for the validation interface queue to catch up on everything that "
                    "was there when we entered this function.\n",
     .results = result_none,
     .n_results = 1,
     .examples = RPC_EXAMPLES("syncwithvalidationinterfacequeue", "", ""),
     .flags = RPC_METHOD_HIDDEN},
};

void rpc_blockchain_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
    /* getdeploymentinfo, in a file of its own (the version-bits walk). */
    rpc_deployment_register(ctx);
}
