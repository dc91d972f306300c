#include "rpc/blockchain.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "consensus/pow.h"
#include "consensus/amount.h"
#include "primitives/block.h"
#include "primitives/serialize.h"
#include "rpc/blockjson.h"
#include "rpc/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/protocol.h"
#include "validation/block_check.h"
#include "util/shutdown.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define MAX_TIP_AGE (24 * 60 * 60)

static struct chainstate *g_cs; /* set before warm-up ends, read-only after */
static int g_left_ibd; /* latches, as Core's IsInitialBlockDownload */

/* The latest tip, for waitfornewblock and friends (not the chain lock: waiting needs a
 * plain mutex and a condition variable). Lock order: the chain lock, then this one. */
static pthread_mutex_t g_tip_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_tip_cv = PTHREAD_COND_INITIALIZER;
static uint8_t g_tip_hash[32];
static int g_tip_height = -1;

static void on_tip(void *ctx, const struct block_index *tip)
{
    pthread_mutex_lock(&g_tip_mu);
    if (tip) {
        memcpy(g_tip_hash, tip->hash, 32);
    }
    g_tip_height = tip ? tip->height : -1;
    pthread_cond_broadcast(&g_tip_cv);
    pthread_mutex_unlock(&g_tip_mu);
}

/* Waits until done(ctx) holds, the timeout passes (0: none) or shutdown; returns the tip as
 * {hash, height}. */
static json_t *wait_tip(int64_t timeout_ms, int (*done)(const void *ctx), const void *ctx)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    int64_t ns = deadline.tv_nsec + (timeout_ms % 1000) * 1000000;
    deadline.tv_sec += timeout_ms / 1000 + ns / 1000000000;
    deadline.tv_nsec = ns % 1000000000;
    pthread_mutex_lock(&g_tip_mu);
    while (!done(ctx) && !shutdown_requested()) {
        struct timespec slice;
        clock_gettime(CLOCK_REALTIME, &slice);
        slice.tv_nsec += 100 * 1000000; /* wake up to notice shutdown */
        if (slice.tv_nsec >= 1000000000) {
            slice.tv_sec++;
            slice.tv_nsec -= 1000000000;
        }
        if (timeout_ms > 0 && (slice.tv_sec > deadline.tv_sec ||
                               (slice.tv_sec == deadline.tv_sec && slice.tv_nsec > deadline.tv_nsec))) {
            slice = deadline;
        }
        if (pthread_cond_timedwait(&g_tip_cv, &g_tip_mu, &slice) != 0 && timeout_ms > 0) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (now.tv_sec > deadline.tv_sec ||
                (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
                break;
            }
        }
    }
    char hx[65];
    hex_encode_rev(hx, g_tip_hash, 32);
    json_t *r = json_pack("{s:s,s:i}", "hash", g_tip_height >= 0 ? hx : "", "height",
                          g_tip_height);
    pthread_mutex_unlock(&g_tip_mu);
    return r;
}

struct wait_new {
    uint8_t hash[32];
};

static int tip_changed(const void *ctx)
{
    return memcmp(((const struct wait_new *)ctx)->hash, g_tip_hash, 32) != 0;
}

static int tip_is(const void *ctx)
{
    return memcmp(ctx, g_tip_hash, 32) == 0;
}

static int tip_at_least(const void *ctx)
{
    return g_tip_height >= *(const int *)ctx;
}

static int64_t param_timeout(struct rpc_request *req, size_t i)
{
    json_t *t = rpc_param(req, i);
    return t ? (int64_t)json_integer_value(t) : 0;
}

static json_t *hash_json(const uint8_t hash32[32])
{
    char hx[65];
    hex_encode_rev(hx, hash32, 32);
    return json_string(hx);
}

static json_t *u256_json(const struct u256 *x)
{
    char hx[65];
    u256_to_hex(hx, x);
    return json_string(hx);
}

/* Parses a block hash parameter: 64 hex digits, else Core's errors. */
static int param_hash(struct rpc_request *req, size_t i, const char *name, uint8_t out32[32])
{
    const char *s = json_string_value(rpc_param(req, i));
    if (!s || strlen(s) != 64) {
        rpc_error(req, RPC_INVALID_PARAMETER, "%s must be of length 64 (not %zu, for '%s')", name,
                  s ? strlen(s) : 0, s ? s : "");
        return RC_INVALID;
    }
    if (hex_decode_hash32_rev(out32, s) != RC_OK) {
        rpc_error(req, RPC_INVALID_PARAMETER, "%s must be hexadecimal string (not '%s')", name, s);
        return RC_INVALID;
    }
    return RC_OK;
}

static struct block_index *find_block(struct rpc_request *req, size_t i)
{
    uint8_t h[32];
    if (param_hash(req, i, "blockhash", h)) {
        return NULL;
    }
    struct block_index *e = block_tree_find(chainstate_tree(g_cs), h);
    if (!e) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    }
    return e;
}

static int in_ibd(void)
{
    if (g_left_ibd) {
        return 0;
    }
    const struct chain_params *p = chainstate_params(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    if (!tip || u256_cmp(&tip->chain_work, &p->minimum_chain_work) < 0 ||
        (int64_t)tip->header.time < (int64_t)time(NULL) - MAX_TIP_AGE) {
        return 1;
    }
    g_left_ibd = 1;
    return 0;
}

static json_t *rpc_getblockcount(struct rpc_request *req)
{
    chainstate_lock(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    json_t *r = json_integer(tip ? tip->height : -1);
    chainstate_unlock(g_cs);
    return r;
}

static json_t *rpc_getbestblockhash(struct rpc_request *req)
{
    chainstate_lock(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    json_t *r = tip ? hash_json(tip->hash) : json_null();
    chainstate_unlock(g_cs);
    return r;
}

static json_t *rpc_getblockhash(struct rpc_request *req)
{
    json_int_t h = json_integer_value(rpc_param(req, 0));
    chainstate_lock(g_cs);
    struct block_index *e = chainstate_at_height(g_cs, (int32_t)h);
    json_t *r = (e && h >= 0 && h <= INT32_MAX) ? hash_json(e->hash) : NULL;
    chainstate_unlock(g_cs);
    if (!r) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Block height out of range");
    }
    return r;
}

static json_t *rpc_getdifficulty(struct rpc_request *req)
{
    chainstate_lock(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    double d = tip ? rpc_difficulty(tip->header.bits) : 1.0;
    chainstate_unlock(g_cs);
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
    const struct chain_params *p;
    char bits[9];
    chainstate_lock(g_cs);
    p = chainstate_params(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    struct block_index *hdr = chainstate_best_header(g_cs);
    if (!tip) {
        chainstate_unlock(g_cs);
        return rpc_error(req, RPC_MISC_ERROR, "The chain has no blocks yet");
    }
    snprintf(bits, sizeof(bits), "%08x", tip->header.bits);
    double progress = hdr && hdr->height > 0 ? (double)tip->height / (double)hdr->height : 1.0;
    if (progress > 1.0 || (hdr && hdr == tip)) {
        progress = 1.0;
    }
    json_t *r = json_object();
    json_object_set_new(r, "chain", json_string(p->name));
    json_object_set_new(r, "blocks", json_integer(tip->height));
    json_object_set_new(r, "headers", json_integer(hdr ? hdr->height : tip->height));
    json_object_set_new(r, "bestblockhash", hash_json(tip->hash));
    json_object_set_new(r, "bits", json_string(bits));
    json_object_set_new(r, "target", target_json(tip->header.bits));
    json_object_set_new(r, "difficulty", json_real(rpc_difficulty(tip->header.bits)));
    json_object_set_new(r, "time", json_integer(tip->header.time));
    json_object_set_new(r, "mediantime", json_integer(block_index_median_time_past(tip)));
    json_object_set_new(r, "verificationprogress",
                        progress == 1.0 ? json_integer(1) : json_real(progress));
    json_object_set_new(r, "initialblockdownload", json_boolean(in_ibd()));
    json_object_set_new(r, "chainwork", u256_json(&tip->chain_work));
    json_object_set_new(r, "size_on_disk", json_integer((json_int_t)chainstate_size_on_disk(g_cs)));
    json_object_set_new(r, "pruned", json_false());
    json_object_set_new(r, "warnings", json_array());
    uint8_t av[32];
    if (chainstate_assume_valid(g_cs, av)) {
        /* Not a Core field (issue 7 asks for it); only present when a block is assumed
         * valid, so answers without one stay identical to Core's. */
        json_object_set_new(r, "assumevalid", hash_json(av));
    }
    chainstate_unlock(g_cs);
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

static json_t *rpc_getchaintips(struct rpc_request *req)
{
    struct tips t = {0};
    json_t *r = json_array();
    chainstate_lock(g_cs);
    block_tree_foreach(chainstate_tree(g_cs), collect_all, &t);
    /* A tip is an entry nobody names as parent: mark parents through a hash lookup. */
    struct block_index *tip = chainstate_tip(g_cs);
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
        json_object_set_new(o, "hash", hash_json(e->hash));
        json_object_set_new(o, "branchlen", json_integer(fork ? e->height - fork->height : 0));
        json_object_set_new(o, "status", json_string(status));
        json_array_append_new(r, o);
    }
    chainstate_unlock(g_cs);
    free(is_parent);
    free(t.v);
    return r;
}

static json_t *rpc_gettxoutsetinfo(struct rpc_request *req)
{
    const char *type = json_string_value(rpc_param(req, 0));
    enum coins_stats_hash kind = COINS_STATS_HASH_SERIALIZED;
    if (type) {
        if (strcmp(type, "hash_serialized_3") == 0) {
            kind = COINS_STATS_HASH_SERIALIZED;
        } else if (strcmp(type, "muhash") == 0) {
            kind = COINS_STATS_MUHASH;
        } else if (strcmp(type, "none") == 0) {
            kind = COINS_STATS_HASH_NONE;
        } else {
            return rpc_error(req, RPC_INVALID_PARAMETER, "'%s' is not a valid hash_type", type);
        }
    }
    if (rpc_param(req, 1)) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Querying specific block heights requires coinstatsindex");
    }
    struct coins_stats st;
    uint8_t h[32];
    chainstate_lock(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    int rc = tip ? chainstate_utxo_stats(g_cs, kind, &st, h) : RC_NOT_FOUND;
    if (rc) {
        chainstate_unlock(g_cs);
        return rpc_error(req, RPC_INTERNAL_ERROR, "Unable to read UTXO set (%s)", rc_str(rc));
    }
    json_t *r = json_object();
    json_object_set_new(r, "height", json_integer(tip->height));
    json_object_set_new(r, "bestblock", hash_json(tip->hash));
    json_object_set_new(r, "txouts", json_integer((json_int_t)st.txouts));
    json_object_set_new(r, "bogosize", json_integer((json_int_t)st.bogosize));
    if (kind == COINS_STATS_HASH_SERIALIZED) {
        json_object_set_new(r, "hash_serialized_3", hash_json(h));
    } else if (kind == COINS_STATS_MUHASH) {
        json_object_set_new(r, "muhash", hash_json(h));
    }
    json_object_set_new(r, "total_amount", rpc_json_amount(st.total_amount_sat));
    json_object_set_new(r, "transactions", json_integer((json_int_t)st.transactions));
    json_object_set_new(r, "disk_size", json_integer(0));
    chainstate_unlock(g_cs);
    coins_stats_clear(&st);
    return r;
}

static void facts_of(struct rpc_block_facts *f, struct block_index *e)
{
    struct block_index *tip = chainstate_tip(g_cs);
    int active = chainstate_contains(g_cs, e);
    memset(f, 0, sizeof(*f));
    f->height = e->height;
    f->confirmations = active ? tip->height - e->height + 1 : -1;
    f->median_time = block_index_median_time_past(e);
    f->chainwork = e->chain_work;
    f->n_tx = e->tx_count;
    struct block_index *next = active ? chainstate_at_height(g_cs, e->height + 1) : NULL;
    if (next) {
        f->has_next = 1;
        memcpy(f->next_hash, next->hash, 32);
    }
}

/* Reads and parses a stored block (caller holds the chain lock). NULL after rpc_error. */
static int load_block(struct rpc_request *req, struct block_index *e, struct block *b,
                      struct buf *raw)
{
    char err[256];
    int rc = chainstate_read_block(g_cs, e, raw);
    if (rc == RC_NOT_FOUND) {
        rpc_error(req, RPC_MISC_ERROR, "Block not available (not fully downloaded)");
        return rc;
    }
    if (rc || block_parse(b, raw->data, raw->len, err, sizeof(err)) != RC_OK) {
        rpc_error(req, RPC_MISC_ERROR, "Block not found on disk");
        return rc ? rc : RC_CORRUPT;
    }
    return RC_OK;
}

static json_t *rpc_getblock(struct rpc_request *req)
{
    json_t *v = rpc_param(req, 1);
    json_int_t verbosity = 1;
    if (v) {
        verbosity = json_is_boolean(v) ? (json_is_true(v) ? 1 : 0) : json_integer_value(v);
    }
    struct buf raw;
    struct block b;
    struct block_undo undo;
    json_t *r = NULL;
    buf_init(&raw);
    block_undo_init(&undo);
    chainstate_lock(g_cs);
    struct block_index *e = find_block(req, 0);
    if (!e) {
        goto out;
    }
    if (verbosity <= 0) {
        int rc = chainstate_read_block(g_cs, e, &raw);
        if (rc) {
            rpc_error(req, RPC_MISC_ERROR, rc == RC_NOT_FOUND
                                               ? "Block not available (not fully downloaded)"
                                               : "Block not found on disk");
            goto out;
        }
        char *hx = hex_encode_alloc(raw.data, raw.len);
        r = json_string(hx);
        free(hx);
        goto out;
    }
    if (load_block(req, e, &b, &raw)) {
        goto out;
    }
    struct rpc_block_facts f;
    facts_of(&f, e);
    int have_undo = verbosity >= 2 && chainstate_read_undo(g_cs, e, &undo) == RC_OK;
    r = rpc_block_json(&b, &f, have_undo ? &undo : NULL, chainstate_params(g_cs),
                       verbosity > 3 ? 3 : (int)verbosity);
    if (!r) {
        rpc_error(req, RPC_MISC_ERROR, "Undo data expected but can't be read. This could be "
                                       "due to disk corruption or a conflict with a pruning "
                                       "event.");
    }
    block_clear(&b);
out:
    chainstate_unlock(g_cs);
    block_undo_clear(&undo);
    buf_clear(&raw);
    return r;
}

static json_t *rpc_getblockheader(struct rpc_request *req)
{
    json_t *v = rpc_param(req, 1);
    int verbose = v ? json_is_true(v) : 1;
    json_t *r = NULL;
    chainstate_lock(g_cs);
    struct block_index *e = find_block(req, 0);
    if (e && !verbose) {
        uint8_t h[80];
        char hx[161];
        block_header_serialize(&e->header, h);
        hex_encode(hx, h, 80);
        r = json_string(hx);
    } else if (e) {
        struct rpc_block_facts f;
        facts_of(&f, e);
        r = rpc_block_header_json(&e->header, &f, chainstate_params(g_cs));
    }
    chainstate_unlock(g_cs);
    return r;
}

static json_t *rpc_gettxout(struct rpc_request *req)
{
    uint8_t txid[32];
    json_int_t n = json_integer_value(rpc_param(req, 1));
    if (param_hash(req, 0, "txid", txid)) {
        return NULL;
    }
    if (n < 0 || n > UINT32_MAX) {
        return json_null();
    }
    struct outpoint op;
    struct coin c;
    memcpy(op.txid, txid, 32);
    op.n = (uint32_t)n;
    chainstate_lock(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    int rc = tip ? chainstate_get_coin(g_cs, &op, &c) : RC_NOT_FOUND;
    if (rc == RC_NOT_FOUND) {
        chainstate_unlock(g_cs);
        return json_null();
    }
    if (rc) {
        chainstate_unlock(g_cs);
        return rpc_error(req, RPC_DATABASE_ERROR, "Unable to read the UTXO set (%s)", rc_str(rc));
    }
    json_t *r = json_object();
    json_object_set_new(r, "bestblock", hash_json(tip->hash));
    json_object_set_new(r, "confirmations", json_integer(tip->height - (int32_t)c.height + 1));
    json_object_set_new(r, "value", rpc_json_amount(c.value_sat));
    json_object_set_new(r, "scriptPubKey",
                        rpc_script_pubkey_json(c.script_pubkey.data, c.script_pubkey.len,
                                               chainstate_params(g_cs), 1));
    json_object_set_new(r, "coinbase", json_boolean(c.coinbase));
    chainstate_unlock(g_cs);
    coin_clear(&c);
    return r;
}

static json_t *rpc_getrawtransaction(struct rpc_request *req)
{
    uint8_t txid[32];
    json_t *v = rpc_param(req, 1);
    json_int_t verbosity = 0;
    if (param_hash(req, 0, "txid", txid)) {
        return NULL;
    }
    if (v) {
        verbosity = json_is_boolean(v) ? (json_is_true(v) ? 1 : 0) : json_integer_value(v);
    }
    uint8_t bh[32];
    if (!rpc_param(req, 2)) {
        /* -txindex: find the block; without it, Core's hint. */
        struct block_index *found = NULL;
        int synced = -1;
        chainstate_lock(g_cs);
        int have_index = chainstate_txindex_info(g_cs, &synced);
        int rc = have_index ? chainstate_find_tx(g_cs, txid, &found) : RC_USAGE;
        struct block_index *tip = chainstate_tip(g_cs);
        if (rc == RC_OK) {
            memcpy(bh, found->hash, 32);
        }
        chainstate_unlock(g_cs);
        if (!have_index) {
            return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                             "No such mempool transaction. Use -txindex or provide a block hash "
                             "to enable blockchain transaction queries. Use gettransaction for "
                             "wallet transactions.");
        }
        if (rc == RC_NOT_FOUND) {
            if (!tip || synced < tip->height) {
                return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                                 "No such mempool or blockchain transaction. Blockchain "
                                 "transactions are still in the process of being indexed.");
            }
            return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                             "No such mempool or blockchain transaction. Use gettransaction for "
                             "wallet transactions.");
        }
        if (rc) {
            return rpc_error(req, RPC_DATABASE_ERROR, "transaction index: %s", rc_str(rc));
        }
    } else if (param_hash(req, 2, "parameter 3", bh)) {
        return NULL;
    }
    struct buf raw;
    struct block b;
    struct block_undo undo;
    json_t *r = NULL;
    buf_init(&raw);
    block_undo_init(&undo);
    chainstate_lock(g_cs);
    struct block_index *e = block_tree_find(chainstate_tree(g_cs), bh);
    if (!e) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block hash not found");
        goto out;
    }
    if (load_block(req, e, &b, &raw)) {
        goto out;
    }
    size_t i;
    for (i = 0; i < b.tx_count && memcmp(b.txs[i].txid, txid, 32) != 0; i++) {
    }
    if (i == b.tx_count) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                  "No such transaction found in the provided block. Use gettransaction for "
                  "wallet transactions.");
    } else if (verbosity <= 0) {
        struct buf ser;
        buf_init(&ser);
        tx_serialize(&b.txs[i], &ser, 1);
        char *hx = hex_encode_alloc(ser.data, ser.len);
        r = json_string(hx);
        free(hx);
        buf_clear(&ser);
    } else {
        const struct coin *spent = NULL;
        if (verbosity >= 2 && i > 0 && chainstate_read_undo(g_cs, e, &undo) == RC_OK &&
            undo.n + 1 == b.tx_count && undo.txs[i - 1].n == b.txs[i].vin_count) {
            spent = undo.txs[i - 1].prev;
        }
        r = rpc_tx_json(&b.txs[i], chainstate_params(g_cs), spent,
                        verbosity > 2 ? 2 : (int)verbosity, 1);
        int active = chainstate_contains(g_cs, e);
        struct block_index *tip = chainstate_tip(g_cs);
        rpc_tx_json_add_block(r, e->hash, active, active ? tip->height - e->height + 1 : 0,
                              e->header.time);
        if (rpc_param(req, 2)) {
            /* Core puts in_active_chain first, and only when the caller named the block. */
            json_t *o = json_pack("{s:b}", "in_active_chain", active);
            json_object_update(o, r);
            json_decref(r);
            r = o;
        }
    }
    block_clear(&b);
out:
    chainstate_unlock(g_cs);
    block_undo_clear(&undo);
    buf_clear(&raw);
    return r;
}

static json_t *rpc_getindexinfo(struct rpc_request *req)
{
    const char *name = json_string_value(rpc_param(req, 0));
    json_t *r = json_object();
    int synced = -1;
    chainstate_lock(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    if (chainstate_txindex_info(g_cs, &synced) && (!name || strcmp(name, "txindex") == 0)) {
        json_object_set_new(r, "txindex",
                            json_pack("{s:b,s:i}", "synced", tip && synced >= tip->height,
                                      "best_block_height", synced));
    }
    chainstate_unlock(g_cs);
    return r;
}

static json_t *rpc_decoderawtransaction(struct rpc_request *req)
{
    const char *hx = json_string_value(rpc_param(req, 0));
    json_t *iswitness = rpc_param(req, 1);
    struct buf raw;
    struct tx tx;
    struct reader r;
    int ok = 0;
    buf_init(&raw);
    if (!hx || hex_decode(&raw, hx) != RC_OK) {
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "TX decode failed");
    }
    /* Core's DecodeHexTx: try the extended form unless told otherwise, then the legacy
     * one; either must consume every byte. */
    int try_witness = !iswitness || json_is_true(iswitness);
    int try_legacy = !iswitness || !json_is_true(iswitness);
    if (try_witness) {
        reader_init(&r, raw.data, raw.len);
        ok = tx_parse(&tx, &r, 1) == RC_OK && reader_left(&r) == 0;
        if (!ok && r.rc == RC_OK) {
            tx_clear(&tx);
        }
    }
    if (!ok && try_legacy) {
        reader_init(&r, raw.data, raw.len);
        ok = tx_parse(&tx, &r, 0) == RC_OK && reader_left(&r) == 0;
        if (!ok && r.rc == RC_OK) {
            tx_clear(&tx);
        }
    }
    buf_clear(&raw);
    if (!ok) {
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "TX decode failed");
    }
    const struct chain_params *p = g_cs ? chainstate_params(g_cs) : chain_params_get("main");
    json_t *out = rpc_tx_json(&tx, p, NULL, 1, 0);
    tx_clear(&tx);
    return out;
}

static json_t *rpc_decodescript(struct rpc_request *req)
{
    const char *hx = json_string_value(rpc_param(req, 0));
    struct buf raw;
    buf_init(&raw);
    if (!hx || hex_decode(&raw, hx) != RC_OK) {
        buf_clear(&raw);
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "argument must be hexadecimal string (not '%s')", hx ? hx : "");
    }
    const struct chain_params *p = g_cs ? chainstate_params(g_cs) : chain_params_get("main");
    json_t *r = rpc_decodescript_json(raw.data, raw.len, p);
    buf_clear(&raw);
    return r;
}

/* submitblock: BIP22 answers, as Core: null when the block became (part of) the best chain,
 * "duplicate", "duplicate-invalid", "inconclusive" (valid, not best), or the reject reason. */
static json_t *rpc_submitblock(struct rpc_request *req)
{
    const char *hx = json_string_value(rpc_param(req, 0));
    struct buf raw;
    struct block b;
    char err[256];
    size_t used = 0;
    buf_init(&raw);
    /* Core's DecodeHexBlk: a block, and whatever follows it is ignored. */
    if (!hx || hex_decode(&raw, hx) != RC_OK ||
        block_parse_prefix(&b, raw.data, raw.len, &used, err, sizeof(err)) != RC_OK) {
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Block decode failed");
    }
    if (b.tx_count == 0 || !tx_is_coinbase(&b.txs[0])) {
        block_clear(&b);
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Block does not start with a coinbase");
    }
    uint8_t hash[32];
    memcpy(hash, b.hash, 32);
    json_t *r = NULL;
    struct vstate st;
    int is_new = 0;
    vstate_init(&st);
    chainstate_lock(g_cs);
    /* Core's UpdateUncommittedBlockStructures: a block with a witness commitment whose
     * coinbase has no witness gets the 32-byte zero reserved value (what getblocktemplate
     * leaves to the miner). */
    struct block_index *parent = block_tree_find(chainstate_tree(g_cs), b.header.prev_hash);
    if (parent && parent->height + 1 >= chainstate_params(g_cs)->segwit_height &&
        block_witness_commitment_index(&b) >= 0 && b.txs[0].vin[0].witness_count == 0) {
        struct tx_in *in = &b.txs[0].vin[0];
        in->witness = xcalloc(1, sizeof(struct bytes));
        in->witness[0].data = xcalloc(32, 1);
        in->witness[0].len = 32;
        in->witness_count = 1;
        tx_compute_hashes(&b.txs[0]);
        buf_reset(&raw);
        block_serialize(&b, &raw, 1);
        used = raw.len;
    }
    block_clear(&b);
    raw.len = used;
    struct block_index *known = block_tree_find(chainstate_tree(g_cs), hash);
    if (known && (known->status & BLOCK_HAVE_DATA)) {
        r = json_string(block_index_failed(known) ? "duplicate-invalid" : "duplicate");
        goto out;
    }
    if (known && block_index_failed(known)) {
        r = json_string("duplicate-invalid");
        goto out;
    }
    int rc = chainstate_accept_block(g_cs, raw.data, raw.len, NULL, &st, &is_new);
    if (rc == RC_INVALID) {
        r = json_string(st.reject);
        goto out;
    }
    if (rc == RC_OK) {
        rc = chainstate_activate_best_chain(g_cs);
    }
    if (rc) {
        rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
        goto out;
    }
    /* Like Core, speak only of this block: its own verdict if connecting it failed, null if
     * it is in the best chain, else "inconclusive" (e.g. an ancestor failed first). */
    struct block_index *e = block_tree_find(chainstate_tree(g_cs), hash);
    if (chainstate_last_invalid(g_cs, hash, &st)) {
        r = json_string(st.reject);
    } else if (e && chainstate_contains(g_cs, e)) {
        r = json_null();
    } else {
        r = json_string("inconclusive");
    }
out:
    chainstate_unlock(g_cs);
    buf_clear(&raw);
    return r;
}

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

/* GetSerializeSize(CTxOut) + PER_UTXO_OVERHEAD (outpoint 36 + height/coinbase 4 + 1). */
static int64_t utxo_size(size_t script_len)
{
    return 8 + (int64_t)ser_compact_len(script_len) + (int64_t)script_len + 41;
}

static json_t *rpc_getblockstats(struct rpc_request *req)
{
    json_t *which = rpc_param(req, 0);
    json_t *filter = rpc_param(req, 1);
    struct block_index *e = NULL;
    struct buf raw;
    struct block b;
    struct block_undo undo;
    json_t *r = NULL;
    buf_init(&raw);
    block_undo_init(&undo);
    chainstate_lock(g_cs);
    struct block_index *tip = chainstate_tip(g_cs);
    if (json_is_integer(which)) {
        json_int_t h = json_integer_value(which);
        if (h < 0) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Target block height %lld is negative",
                      (long long)h);
            goto out;
        }
        if (!tip || h > tip->height) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Target block height %lld after current tip %d",
                      (long long)h, tip ? tip->height : -1);
            goto out;
        }
        e = chainstate_at_height(g_cs, (int32_t)h);
    } else if (!(e = find_block(req, 0))) {
        goto out;
    }
    if (load_block(req, e, &b, &raw)) {
        goto out;
    }
    if (e->height > 0 && chainstate_read_undo(g_cs, e, &undo) != RC_OK) {
        block_clear(&b);
        rpc_error(req, RPC_MISC_ERROR, "Undo data expected but can't be read. This could be due "
                                       "to disk corruption or a conflict with a pruning event.");
        goto out;
    }
    size_t ntx = b.tx_count;
    int64_t *fees = xmalloc((ntx + 1) * sizeof(int64_t));
    int64_t *sizes = xmalloc((ntx + 1) * sizeof(int64_t));
    struct feerate_w *rates = xmalloc((ntx + 1) * sizeof(*rates));
    size_t nfees = 0, nsizes = 0, nrates = 0;
    int64_t inputs = 0, outputs = 0, utxos = 0, total_out = 0, total_size = 0, total_weight = 0;
    int64_t swtxs = 0, swtotal_size = 0, swtotal_weight = 0, totalfee = 0;
    int64_t maxfee = 0, minfee = MAX_MONEY, maxfeerate = 0, minfeerate = MAX_MONEY;
    int64_t maxtxsize = 0, mintxsize = 4000000, utxo_size_inc = 0, utxo_size_inc_actual = 0;
    for (size_t i = 0; i < ntx; i++) {
        const struct tx *t = &b.txs[i];
        int64_t tx_total_out = 0;
        outputs += (int64_t)t->vout_count;
        for (size_t o = 0; o < t->vout_count; o++) {
            const struct bytes *spk = &t->vout[o].script_pubkey;
            tx_total_out += t->vout[o].value_sat;
            utxo_size_inc += utxo_size(spk->len);
            if (coin_script_unspendable(spk->data, spk->len)) {
                continue;
            }
            utxos++;
            utxo_size_inc_actual += utxo_size(spk->len);
        }
        if (i == 0) {
            continue;
        }
        inputs += (int64_t)t->vin_count;
        total_out += tx_total_out;
        int64_t size = (int64_t)t->size_total, weight = (int64_t)tx_weight(t);
        sizes[nsizes++] = size;
        maxtxsize = size > maxtxsize ? size : maxtxsize;
        mintxsize = size < mintxsize ? size : mintxsize;
        total_size += size;
        total_weight += weight;
        if (tx_has_witness(t)) {
            swtxs++;
            swtotal_size += size;
            swtotal_weight += weight;
        }
        int64_t tx_total_in = 0;
        if (i - 1 < undo.n) {
            for (size_t k = 0; k < undo.txs[i - 1].n; k++) {
                const struct coin *c = &undo.txs[i - 1].prev[k];
                tx_total_in += c->value_sat;
                utxo_size_inc -= utxo_size(c->script_pubkey.len);
                utxo_size_inc_actual -= utxo_size(c->script_pubkey.len);
            }
        }
        int64_t fee = tx_total_in - tx_total_out;
        fees[nfees++] = fee;
        maxfee = fee > maxfee ? fee : maxfee;
        minfee = fee < minfee ? fee : minfee;
        totalfee += fee;
        int64_t feerate = weight ? (fee * 4) / weight : 0;
        rates[nrates].feerate = feerate;
        rates[nrates++].weight = weight;
        maxfeerate = feerate > maxfeerate ? feerate : maxfeerate;
        minfeerate = feerate < minfeerate ? feerate : minfeerate;
    }
    int64_t pct[5];
    percentiles_by_weight(pct, rates, nrates, total_weight);
    json_t *pa = json_array();
    for (int k = 0; k < 5; k++) {
        json_array_append_new(pa, json_integer(pct[k]));
    }
    const struct chain_params *p = chainstate_params(g_cs);
    r = json_object();
    json_object_set_new(r, "avgfee", json_integer(ntx > 1 ? totalfee / (int64_t)(ntx - 1) : 0));
    json_object_set_new(r, "avgfeerate", json_integer(total_weight ? (totalfee * 4) / total_weight : 0));
    json_object_set_new(r, "avgtxsize", json_integer(ntx > 1 ? total_size / (int64_t)(ntx - 1) : 0));
    json_object_set_new(r, "blockhash", hash_json(e->hash));
    json_object_set_new(r, "feerate_percentiles", pa);
    json_object_set_new(r, "height", json_integer(e->height));
    json_object_set_new(r, "ins", json_integer(inputs));
    json_object_set_new(r, "maxfee", json_integer(maxfee));
    json_object_set_new(r, "maxfeerate", json_integer(maxfeerate));
    json_object_set_new(r, "maxtxsize", json_integer(maxtxsize));
    json_object_set_new(r, "medianfee", json_integer(truncated_median(fees, nfees)));
    json_object_set_new(r, "mediantime", json_integer(block_index_median_time_past(e)));
    json_object_set_new(r, "mediantxsize", json_integer(truncated_median(sizes, nsizes)));
    json_object_set_new(r, "minfee", json_integer(minfee == MAX_MONEY ? 0 : minfee));
    json_object_set_new(r, "minfeerate", json_integer(minfeerate == MAX_MONEY ? 0 : minfeerate));
    json_object_set_new(r, "mintxsize", json_integer(mintxsize == 4000000 ? 0 : mintxsize));
    json_object_set_new(r, "outs", json_integer(outputs));
    json_object_set_new(r, "subsidy",
                        json_integer(amount_block_subsidy(e->height, p->subsidy_halving_interval)));
    json_object_set_new(r, "swtotal_size", json_integer(swtotal_size));
    json_object_set_new(r, "swtotal_weight", json_integer(swtotal_weight));
    json_object_set_new(r, "swtxs", json_integer(swtxs));
    json_object_set_new(r, "time", json_integer(e->header.time));
    json_object_set_new(r, "total_out", json_integer(total_out));
    json_object_set_new(r, "total_size", json_integer(total_size));
    json_object_set_new(r, "total_weight", json_integer(total_weight));
    json_object_set_new(r, "totalfee", json_integer(totalfee));
    json_object_set_new(r, "txs", json_integer((json_int_t)ntx));
    json_object_set_new(r, "utxo_increase", json_integer(outputs - inputs));
    json_object_set_new(r, "utxo_size_inc", json_integer(utxo_size_inc));
    json_object_set_new(r, "utxo_increase_actual", json_integer(utxos - inputs));
    json_object_set_new(r, "utxo_size_inc_actual", json_integer(utxo_size_inc_actual));
    free(fees);
    free(sizes);
    free(rates);
    block_clear(&b);
    if (filter && json_array_size(filter) > 0) {
        json_t *only = json_object();
        size_t k;
        json_t *name;
        json_array_foreach(filter, k, name)
        {
            json_t *v = json_object_get(r, json_string_value(name));
            if (!v) {
                json_decref(only);
                json_decref(r);
                r = NULL;
                rpc_error(req, RPC_INVALID_PARAMETER, "Invalid selected statistic '%s'",
                          json_string_value(name) ? json_string_value(name) : "");
                goto out;
            }
            json_object_set(only, json_string_value(name), v);
        }
        json_decref(r);
        r = only;
    }
out:
    chainstate_unlock(g_cs);
    block_undo_clear(&undo);
    buf_clear(&raw);
    return r;
}

static json_t *rpc_waitfornewblock(struct rpc_request *req)
{
    struct wait_new w;
    int64_t timeout = param_timeout(req, 0);
    if (timeout < 0) {
        return rpc_error(req, RPC_MISC_ERROR, "Negative timeout");
    }
    pthread_mutex_lock(&g_tip_mu);
    memcpy(w.hash, g_tip_hash, 32);
    pthread_mutex_unlock(&g_tip_mu);
    return wait_tip(timeout, tip_changed, &w);
}

static json_t *rpc_waitforblock(struct rpc_request *req)
{
    uint8_t h[32];
    int64_t timeout = param_timeout(req, 1);
    if (param_hash(req, 0, "blockhash", h)) {
        return NULL;
    }
    if (timeout < 0) {
        return rpc_error(req, RPC_MISC_ERROR, "Negative timeout");
    }
    return wait_tip(timeout, tip_is, h);
}

static json_t *rpc_waitforblockheight(struct rpc_request *req)
{
    int height = (int)json_integer_value(rpc_param(req, 0));
    int64_t timeout = param_timeout(req, 1);
    if (timeout < 0) {
        return rpc_error(req, RPC_MISC_ERROR, "Negative timeout");
    }
    return wait_tip(timeout, tip_at_least, &height);
}

static json_t *rpc_verifychain(struct rpc_request *req)
{
    json_t *l = rpc_param(req, 0), *n = rpc_param(req, 1);
    int level = l ? (int)json_integer_value(l) : 3;
    int nblocks = n ? (int)json_integer_value(n) : 6;
    int ok = 0;
    char why[256];
    if (level < 0 || level > 4) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Verification level must be between 0 and 4");
    }
    int rc = chainstate_verify(g_cs, level, nblocks, &ok, why, sizeof(why));
    if (rc) {
        return rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
    }
    if (!ok) {
        LOG_WARN("verifychain: %s", why);
    }
    return json_boolean(ok);
}

/* invalidateblock, reconsiderblock, preciousblock: one block hash in, a chainstate action,
 * null out. The action takes the chain lock itself. */
static json_t *block_action(struct rpc_request *req,
                            int (*action)(struct chainstate *, const uint8_t *))
{
    uint8_t h[32];
    if (param_hash(req, 0, "blockhash", h)) {
        return NULL;
    }
    int rc = action(g_cs, h);
    if (rc == RC_NOT_FOUND) {
        return rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    }
    if (rc == RC_USAGE) {
        return rpc_error(req, RPC_MISC_ERROR, "Can not invalidate the genesis block");
    }
    if (rc) {
        return rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
    }
    return json_null();
}

static json_t *rpc_invalidateblock(struct rpc_request *req)
{
    return block_action(req, chainstate_invalidate_block);
}

static json_t *rpc_reconsiderblock(struct rpc_request *req)
{
    return block_action(req, chainstate_reconsider_block);
}

static json_t *rpc_preciousblock(struct rpc_request *req)
{
    return block_action(req, chainstate_precious_block);
}

static const struct rpc_arg args_height[] = {
    {"height", RPC_ARG_NUM, false, NULL, "The height index", false},
};
static const struct rpc_arg args_blockhash[] = {
    {"blockhash", RPC_ARG_STR_HEX, false, NULL, "the hash of the block", false},
};
static const struct rpc_arg args_getblock[] = {
    {"blockhash", RPC_ARG_STR_HEX, false, NULL, "The block hash", false},
    {"verbosity", RPC_ARG_ANY, true, "1",
     "0 for hex-encoded data, 1 for a JSON object, 2 for JSON with transaction data, and 3 "
     "for JSON with transaction data including prevout information for inputs",
     false},
};
static const struct rpc_arg args_getblockheader[] = {
    {"blockhash", RPC_ARG_STR_HEX, false, NULL, "The block hash", false},
    {"verbose", RPC_ARG_BOOL, true, "true", "true for a json object, false for the hex-encoded data",
     false},
};
static const struct rpc_arg args_gettxout[] = {
    {"txid", RPC_ARG_STR_HEX, false, NULL, "The transaction id", false},
    {"n", RPC_ARG_NUM, false, NULL, "vout number", false},
    {"include_mempool", RPC_ARG_BOOL, true, "true",
     "Whether to include the mempool (there is none yet: ignored)", false},
};
static const struct rpc_arg args_getrawtransaction[] = {
    {"txid", RPC_ARG_STR_HEX, false, NULL, "The transaction id", false},
    {"verbosity", RPC_ARG_ANY, true, "0",
     "0 for hex-encoded data, 1 for a JSON object, and 2 for JSON object with fee and prevout",
     false},
    {"blockhash", RPC_ARG_STR_HEX, true, NULL, "The block in which to look for the transaction",
     false},
};
static const struct rpc_arg args_decoderawtransaction[] = {
    {"hexstring", RPC_ARG_STR_HEX, false, NULL, "The transaction hex string", false},
    {"iswitness", RPC_ARG_BOOL, true, "depends on heuristic tests",
     "Whether the transaction hex is a serialized witness transaction.", false},
};
static const struct rpc_arg args_getindexinfo[] = {
    {"index_name", RPC_ARG_STR, true, NULL, "Filter results for an index with a specific name.", false},
};
static const struct rpc_arg args_decodescript[] = {
    {"hexstring", RPC_ARG_STR_HEX, false, NULL, "the hex-encoded script", false},
};
static const struct rpc_arg args_submitblock[] = {
    {"hexdata", RPC_ARG_STR_HEX, false, NULL, "the hex-encoded block data to submit", false},
    {"dummy", RPC_ARG_ANY, true, "ignored", "dummy value, for compatibility with BIP22", true},
};
static const struct rpc_arg args_waitfornewblock[] = {
    {"timeout", RPC_ARG_NUM, true, "0", "Time in milliseconds to wait for a response. 0 indicates no timeout.", false},
};
static const struct rpc_arg args_waitforblock[] = {
    {"blockhash", RPC_ARG_STR_HEX, false, NULL, "Block hash to wait for.", false},
    {"timeout", RPC_ARG_NUM, true, "0", "Time in milliseconds to wait for a response. 0 indicates no timeout.", false},
};
static const struct rpc_arg args_waitforblockheight[] = {
    {"height", RPC_ARG_NUM, false, NULL, "Block height to wait for.", false},
    {"timeout", RPC_ARG_NUM, true, "0", "Time in milliseconds to wait for a response. 0 indicates no timeout.", false},
};
static const struct rpc_arg args_verifychain[] = {
    {"checklevel", RPC_ARG_NUM, true, "3",
     "How thorough the block verification is: 0 read from disk, 1 block validity, 2 undo "
     "data, 3 disconnect the blocks in memory, 4 reconnect them", false},
    {"nblocks", RPC_ARG_NUM, true, "6", "The number of blocks to check (0 = all).", false},
};
static const struct rpc_arg args_getblockstats[] = {
    {"hash_or_height", RPC_ARG_ANY, false, NULL, "The block hash or height of the target block", false},
    {"stats", RPC_ARG_ARR, true, "all values", "Values to plot (see result below)", false},
};
static const struct rpc_arg args_txoutsetinfo[] = {
    {"hash_type", RPC_ARG_STR, true, "hash_serialized_3",
     "Which UTXO set hash should be calculated. Options: 'hash_serialized_3' (the legacy "
     "algorithm), 'muhash', 'none'.",
     false},
    {"hash_or_height", RPC_ARG_ANY, true, NULL,
     "The block hash or height of the target height (only available with coinstatsindex).",
     false},
    {"use_index", RPC_ARG_BOOL, true, "true", "Use coinstatsindex, if available.", false},
};

static const struct rpc_method methods[] = {
    {"Blockchain", "getblockcount", rpc_getblockcount, NULL, 0,
     "Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.",
     "n    (numeric) The current block count", NULL, 0},
    {"Blockchain", "getbestblockhash", rpc_getbestblockhash, NULL, 0,
     "Returns the hash of the best (tip) block in the most-work fully-validated chain.",
     "\"hex\"    (string) the block hash, hex-encoded", NULL, 0},
    {"Blockchain", "getblockhash", rpc_getblockhash, args_height, 1,
     "Returns hash of block in best-block-chain at height provided.",
     "\"hex\"    (string) The block hash", NULL, 0},
    {"Blockchain", "getdifficulty", rpc_getdifficulty, NULL, 0,
     "Returns the proof-of-work difficulty as a multiple of the minimum difficulty.",
     "n.nnn    (numeric) the proof-of-work difficulty as a multiple of the minimum difficulty.",
     NULL, 0},
    {"Blockchain", "getblockchaininfo", rpc_getblockchaininfo, NULL, 0,
     "Returns an object containing various state info regarding blockchain processing.",
     "{ chain, blocks, headers, bestblockhash, bits, target, difficulty, time, mediantime, "
     "verificationprogress, initialblockdownload, chainwork, size_on_disk, pruned, warnings }",
     NULL, 0},
    {"Blockchain", "getchaintips", rpc_getchaintips, NULL, 0,
     "Return information about all known tips in the block tree, including the main chain as "
     "well as orphaned branches.",
     "[ { height, hash, branchlen, status } ]  status: invalid, headers-only, valid-headers, "
     "valid-fork, active",
     NULL, 0},
    {"Blockchain", "gettxoutsetinfo", rpc_gettxoutsetinfo, args_txoutsetinfo, 3,
     "Returns statistics about the unspent transaction output set.\nNote this call may take "
     "some time if you are not using coinstatsindex.",
     "{ height, bestblock, txouts, bogosize, hash_serialized_3 | muhash, total_amount, "
     "transactions, disk_size }",
     NULL, 0},
    {"Blockchain", "getblock", rpc_getblock, args_getblock, 2,
     "If verbosity is 0, returns a string that is serialized, hex-encoded data for block "
     "'hash'.\nIf verbosity is 1, returns an Object with information about block <hash>.\nIf "
     "verbosity is 2, returns an Object with information about block <hash> and information "
     "about each transaction.\nIf verbosity is 3, returns an Object with information about "
     "block <hash> and information about each transaction, including prevout information for "
     "inputs (only for unpruned blocks in the current best chain).",
     NULL, NULL, 0},
    {"Blockchain", "getblockheader", rpc_getblockheader, args_getblockheader, 2,
     "If verbose is false, returns a string that is serialized, hex-encoded data for "
     "blockheader 'hash'.\nIf verbose is true, returns an Object with information about "
     "blockheader <hash>.",
     NULL, NULL, 0},
    {"Blockchain", "gettxout", rpc_gettxout, args_gettxout, 3,
     "Returns details about an unspent transaction output.",
     "{ bestblock, confirmations, value, scriptPubKey, coinbase }, or null if there is no "
     "such unspent output",
     NULL, 0},
    {"Rawtransactions", "getrawtransaction", rpc_getrawtransaction, args_getrawtransaction, 3,
     "Return the raw transaction data.\nWith -txindex any transaction of the chain is found; "
     "without it a block hash must be given and the transaction is looked up in that block.",
     NULL, NULL, 0},
    {"Util", "getindexinfo", rpc_getindexinfo, args_getindexinfo, 1,
     "Returns the status of one or all available indices currently running in the node.",
     "{ \"txindex\": { synced, best_block_height } }", NULL, 0},
    {"Rawtransactions", "decoderawtransaction", rpc_decoderawtransaction,
     args_decoderawtransaction, 2,
     "Return a JSON object representing the serialized, hex-encoded transaction.", NULL, NULL,
     0},
    {"Rawtransactions", "decodescript", rpc_decodescript, args_decodescript, 1,
     "Decode a hex-encoded script.", NULL, NULL, 0},
    {"Mining", "submitblock", rpc_submitblock, args_submitblock, 2,
     "Attempts to submit new block to network.\nSee https://en.bitcoin.it/wiki/BIP_0022 for "
     "full specification.",
     "null if the block became part of the best chain, else a string: \"duplicate\", "
     "\"duplicate-invalid\", \"inconclusive\" or the reason the block was rejected",
     NULL, 0},
    {"Blockchain", "getblockstats", rpc_getblockstats, args_getblockstats, 2,
     "Compute per block statistics for a given window. All amounts are in satoshis.\nIt won't "
     "work for some heights with pruning.",
     "{ avgfee, avgfeerate, avgtxsize, blockhash, feerate_percentiles, height, ins, maxfee, "
     "maxfeerate, maxtxsize, medianfee, mediantime, mediantxsize, minfee, minfeerate, "
     "mintxsize, outs, subsidy, swtotal_size, swtotal_weight, swtxs, time, total_out, "
     "total_size, total_weight, totalfee, txs, utxo_increase, utxo_size_inc, "
     "utxo_increase_actual, utxo_size_inc_actual }",
     NULL, 0},
    {"Blockchain", "waitfornewblock", rpc_waitfornewblock, args_waitfornewblock, 1,
     "Waits for any new block and returns useful info about it.\nReturns the current block "
     "on timeout or exit.",
     "{ hash, height }", NULL, 0},
    {"Blockchain", "waitforblock", rpc_waitforblock, args_waitforblock, 2,
     "Waits for a specific new block and returns useful info about it.\nReturns the current "
     "block on timeout or exit.",
     "{ hash, height }", NULL, 0},
    {"Blockchain", "waitforblockheight", rpc_waitforblockheight, args_waitforblockheight, 2,
     "Waits for (at least) block height and returns the height and hash of the current "
     "tip.\nReturns the current block on timeout or exit.",
     "{ hash, height }", NULL, 0},
    {"Blockchain", "preciousblock", rpc_preciousblock, args_blockhash, 1,
     "Treats a block as if it were received before others with the same work.\nA later "
     "preciousblock call can override the effect of an earlier one.",
     NULL, NULL, 0},
    {"Blockchain", "verifychain", rpc_verifychain, args_verifychain, 2,
     "Verifies blockchain database.", "true|false", NULL, 0},
    {"Blockchain", "invalidateblock", rpc_invalidateblock, args_blockhash, 1,
     "Permanently marks a block as invalid, as if it violated a consensus rule.", NULL, NULL, 0},
    {"Blockchain", "reconsiderblock", rpc_reconsiderblock, args_blockhash, 1,
     "Removes invalidity status of a block, its ancestors and its descendants, reconsider them "
     "for activation.\nThis can be used to undo the effects of invalidateblock.",
     NULL, NULL, 0},
};

void rpc_blockchain_register(void)
{
    rpc_table_register(methods, sizeof(methods) / sizeof(methods[0]));
}

void rpc_blockchain_set_chainstate(struct chainstate *cs)
{
    if (cs) {
        chainstate_lock(cs);
        chainstate_set_tip_callback(cs, on_tip, NULL);
        on_tip(NULL, chainstate_tip(cs));
        chainstate_unlock(cs);
    }
    g_cs = cs;
}
