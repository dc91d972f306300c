/* The mining RPC group: submitblock (BIP22 answers) and submitheader. */
#include "rpc/warnings.h"
#include "rpc/mining.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "consensus/address.h"
#include "consensus/arith256.h"
#include "consensus/params.h"
#include "consensus/vstate.h"
#include "mempool/mempool.h"
#include "mempool/miner.h"
#include "net/net.h"
#include "primitives/block.h"
#include "rpc/blockchain.h"
#include "rpc/blockjson.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/mempool.h"
#include "rpc/protocol.h"
#include "sign/descriptor.h"
#include "script/script.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/shutdown.h"
#include "util/xmalloc.h"
#include "consensus/merkle.h"
#include "validation/headers.h"
#include "validation/validator.h"

/* submitblock: BIP22 answers, as Core: null when the block became (part of) the best chain,
 * "duplicate", "duplicate-invalid", "inconclusive" (valid, not best), or the reject reason. */
static json_t *rpc_submitblock(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
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
    /* No coinbase check here: Core v31.99 leaves every verdict to validation (an empty
     * block answers its header's "high-hash"). */
    uint8_t hash[32];
    memcpy(hash, b.hash, 32);
    json_t *r = NULL;
    struct vstate st;
    vstate_init(&st);
    chainstate_read_lock(cs);
    /* Core's UpdateUncommittedBlockStructures: a block with a witness commitment whose
     * coinbase has no witness gets the 32-byte zero reserved value (what getblocktemplate
     * leaves to the miner). */
    struct block_index *parent = block_tree_find(chainstate_tree(cs), b.header.prev_hash);
    if (parent && b.tx_count > 0 && tx_is_coinbase(&b.txs[0]) &&
        parent->height + 1 >= chainstate_params(cs)->segwit_height &&
        merkle_witness_commitment_index(&b) >= 0 && b.txs[0].vin[0].witness_count == 0) {
        struct tx_in *in = &b.txs[0].vin[0];
        /* A parsed block's transactions keep their pieces in its arena (tx.h, pooled). */
        in->witness = b.txs[0].pooled ? arena_calloc(b.arena, sizeof(struct bytes))
                                      : xcalloc(1, sizeof(struct bytes));
        in->witness[0].data = b.txs[0].pooled ? arena_calloc(b.arena, 32) : xcalloc(32, 1);
        in->witness[0].len = 32;
        in->witness_count = 1;
        tx_compute_hashes(&b.txs[0]);
        buf_reset(&raw);
        block_serialize(&b, &raw, 1);
        used = raw.len;
    }
    block_clear(&b);
    raw.len = used;
    struct block_index *known = block_tree_find(chainstate_tree(cs), hash);
    if (known && (known->status & BLOCK_HAVE_DATA)) {
        r = json_string(block_index_failed(known) ? "duplicate-invalid" : "duplicate");
        goto out;
    }
    if (known && block_index_failed(known)) {
        r = json_string("duplicate-invalid");
        goto out;
    }
    /* A pruned block of the active chain, stored again: nothing is connected, so no verdict
     * comes (Core: "inconclusive"). */
    int was_active = known && chainstate_contains(cs, known);
    chainstate_read_unlock(cs);
    /* The validation thread stores it and connects the best chain before answering. */
    struct validator_job j = {
        .work = VALIDATOR_BLOCK, .data = raw.data, .len = raw.len, .connect = 1};
    int rc = validator_run(req->ctx->node->val, &j);
    chainstate_read_lock(cs);
    if (rc == RC_INVALID) {
        r = json_string(j.st.reject);
        goto out;
    }
    if (rc) {
        rpc_error(req, RPC_DATABASE_ERROR, "%s", rc_str(rc));
        goto out;
    }
    if (!j.is_new) {
        r = json_string("duplicate"); /* another caller stored it first */
        goto out;
    }
    /* Like Core, speak only of this block: its own verdict if connecting it failed, null if
     * it is in the best chain, else "inconclusive" (e.g. an ancestor failed first). */
    struct block_index *e = block_tree_find(chainstate_tree(cs), hash);
    if (chainstate_last_invalid(cs, hash, &st)) {
        r = json_string(st.reject);
    } else if (e && chainstate_contains(cs, e) && !was_active) {
        r = json_null();
    } else {
        r = json_string("inconclusive");
    }
out:
    chainstate_read_unlock(cs);
    buf_clear(&raw);
    return r;
}

/* submitheader: Core's DecodeHexBlockHeader (hex, at least 80 bytes; the rest ignored), the
 * parent must be known, then the header rules. */
static json_t *rpc_submitheader(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    const char *hx = json_string_value(rpc_param(req, 0));
    struct buf raw;
    struct block_header h;
    struct reader r;
    buf_init(&raw);
    if (hex_decode(&raw, hx) != RC_OK || raw.len < 80) {
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Block header decode failed");
    }
    reader_init(&r, raw.data, 80);
    int rc = block_header_parse(&h, &r);
    CHECK_ALWAYS(rc == RC_OK); /* 80 bytes always parse */
    chainstate_read_lock(cs);
    int have_parent = block_tree_find(chainstate_tree(cs), h.prev_hash) != NULL;
    chainstate_read_unlock(cs);
    if (!have_parent) {
        char prev[65];
        hex_encode_rev(prev, h.prev_hash, 32);
        buf_clear(&raw);
        return rpc_error(req, RPC_VERIFY_ERROR, "Must submit previous header (%s) first", prev);
    }
    struct validator_job j = {.work = VALIDATOR_HEADERS, .data = raw.data, .len = 80};
    rc = validator_run(req->ctx->node->val, &j);
    buf_clear(&raw);
    if (rc == RC_INVALID) {
        return rpc_error(req, RPC_VERIFY_ERROR, "%s", j.st.reject);
    }
    if (rc != RC_OK) {
        return rpc_error(req, RPC_VERIFY_ERROR, "%s", rc_str(rc));
    }
    return json_null();
}

/* ---- making blocks ------------------------------------------------------------------- */

struct block_test_call {
    const struct block *b;
    int rc;
    struct vstate st;
};

/* TestBlockValidity on the validation thread (no proof of work). */
static int block_test_call(struct chainstate *cs, void *ctx)
{
    struct block_test_call *c = ctx;
    c->rc = chainstate_test_block(cs, c->b, 0, &c->st);
    return RC_OK;
}

static double u256_double(const struct u256 *x)
{
    uint8_t le[32];
    double d = 0;
    u256_to_le32(le, x);
    for (int i = 31; i >= 0; i--) {
        d = d * 256.0 + le[i];
    }
    return d;
}

static int64_t now_s(struct rpc_context *ctx)
{
    return rpc_mempool_now(ctx);
}

/* Builds a template on the tip under the chain's and the pool's read locks. */
static int make_template(struct rpc_context *ctx, struct block_template *t, const uint8_t *spk,
                         size_t spk_len, const struct tx *extra, size_t n_extra, int use_mempool)
{
    struct miner_options o = ctx->node->miner;
    o.use_mempool = use_mempool && ctx->node->mempool;
    chainstate_read_lock(ctx->node->cs);
    if (ctx->node->mempool) {
        mempool_read_lock(ctx->node->mempool);
    }
    int rc = miner_create(t, ctx->node->cs, ctx->node->mempool, spk, spk_len, extra, n_extra, &o, now_s(ctx));
    if (ctx->node->mempool) {
        mempool_read_unlock(ctx->node->mempool);
    }
    chainstate_read_unlock(ctx->node->cs);
    if (rc == RC_OK) {
        pthread_mutex_lock(&ctx->node->tip.mu);
        ctx->last_block_weight = t->assembled_weight;
        ctx->last_block_txs = (int64_t)t->b.tx_count - 1;
        ctx->have_last_block = 1;
        pthread_mutex_unlock(&ctx->node->tip.mu);
    }
    return rc;
}

/* Hands a solved block to the validation thread and waits until it is connected. Returns 0,
 * RC_INVALID with st (not accepted), or a system error. */
static int process_block(struct rpc_context *ctx, const struct block *b, struct vstate *st)
{
    struct buf raw;
    buf_init(&raw);
    block_serialize(b, &raw, 1);
    struct validator_job j = {
        .work = VALIDATOR_BLOCK, .data = raw.data, .len = raw.len, .connect = 1};
    int rc = validator_run(ctx->node->val, &j);
    *st = j.st;
    buf_clear(&raw);
    return rc;
}

/* Core's generateBlocks: nblocks blocks paying spk, each with the pool's best chunks. */
static json_t *generate_blocks(struct rpc_request *req, const uint8_t *spk, size_t spk_len,
                               int64_t nblocks, uint64_t max_tries)
{
    struct rpc_context *ctx = req->ctx;
    json_t *hashes = json_array();
    for (int64_t i = 0; i < nblocks && !shutdown_requested(); i++) {
        struct block_template t;
        if (make_template(ctx, &t, spk, spk_len, NULL, 0, 1)) {
            json_decref(hashes);
            return rpc_error(req, RPC_INTERNAL_ERROR, "Couldn't create new block");
        }
        if (!miner_solve(&t.b, chainstate_params(ctx->node->cs), &max_tries)) {
            block_template_clear(&t);
            break; /* out of tries: what was made so far */
        }
        struct vstate st;
        int rc = process_block(ctx, &t.b, &st);
        if (rc == RC_INVALID && st.result != VRESULT_CONSENSUS) {
            rc = RC_OK; /* stored; connecting it is another matter (Core returns it too) */
        }
        if (rc) {
            block_template_clear(&t);
            json_decref(hashes);
            return rpc_error(req, RPC_INTERNAL_ERROR, "ProcessNewBlock, block not accepted");
        }
        json_array_append_new(hashes, rpc_hash_json(t.b.hash));
        block_template_clear(&t);
    }
    return hashes;
}

static int address_spk(struct rpc_request *req, const char *addr, struct buf *spk)
{
    if (!addr || address_to_script(spk, addr, chainstate_params(req->ctx->node->cs))) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address");
        return -1;
    }
    return 0;
}

static json_t *rpc_generatetoaddress(struct rpc_request *req)
{
    struct buf spk;
    buf_init(&spk);
    int64_t n = rpc_arg_int(req, 0);
    uint64_t tries = (uint64_t)rpc_arg_int_or(req, 2, 1000000);
    if (address_spk(req, json_string_value(rpc_param(req, 1)), &spk)) {
        buf_clear(&spk);
        return NULL;
    }
    json_t *r = generate_blocks(req, spk.data, spk.len, n, tries);
    buf_clear(&spk);
    return r;
}

/* The scriptPubKey a generate method's descriptor (or, allow_address, address) stands for
 * (Core's getScriptFromDescriptor). */
static int output_spk(struct rpc_request *req, const char *s, int allow_address, struct buf *spk)
{
    const struct chain_params *p = chainstate_params(req->ctx->node->cs);
    if (!s) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address or descriptor");
        return -1;
    }
    if (allow_address && address_to_script(spk, s, p) == RC_OK) {
        return 0;
    }
    buf_reset(spk);
    struct script_descriptor *d = NULL;
    char *err = NULL;
    if (script_descriptor_parse(&d, s, 0, p, &err)) {
        if (allow_address) {
            rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address or descriptor");
        } else {
            rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "%s", err ? err : "");
        }
        free(err);
        return -1;
    }
    if (script_descriptor_multipath_count(d) > 1) {
        script_descriptor_free(d);
        rpc_error(req, RPC_INVALID_PARAMETER, "Multipath descriptor not accepted");
        return -1;
    }
    if (script_descriptor_is_range(d)) {
        script_descriptor_free(d);
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Ranged descriptor not accepted. Maybe pass through deriveaddresses first?");
        return -1;
    }
    struct buf spks[SCRIPT_DESC_MAX_SCRIPTS];
    size_t n = 0;
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&spks[i]);
    }
    int rc = script_descriptor_expand(d, 0, 0, spks, &n);
    script_descriptor_free(d);
    int ok = 0;
    if (rc) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Cannot derive script without private keys");
    } else if (n == 0) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address or descriptor");
    } else {
        /* combo() gives 2 or 4 scripts: Core takes P2WPKH (the 3rd) from 4, P2PKH from 2. */
        size_t pick = n == 1 ? 0 : n == 4 ? 2 : 1;
        buf_append(spk, spks[pick].data, spks[pick].len);
        ok = 1;
    }
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&spks[i]);
    }
    return ok ? 0 : -1;
}

static json_t *rpc_generatetodescriptor(struct rpc_request *req)
{
    struct buf spk;
    buf_init(&spk);
    int64_t n = rpc_arg_int(req, 0);
    uint64_t tries = (uint64_t)rpc_arg_int_or(req, 2, 1000000);
    if (output_spk(req, json_string_value(rpc_param(req, 1)), 0, &spk)) {
        buf_clear(&spk);
        return NULL;
    }
    json_t *r = generate_blocks(req, spk.data, spk.len, n, tries);
    buf_clear(&spk);
    return r;
}

static json_t *rpc_generateblock(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    struct buf spk;
    buf_init(&spk);
    if (output_spk(req, json_string_value(rpc_param(req, 0)), 1, &spk)) {
        buf_clear(&spk);
        return NULL;
    }
    json_t *list = rpc_param(req, 1);
    size_t n = json_array_size(list);
    struct tx *txs = xcalloc(n ? n : 1, sizeof(*txs));
    json_t *err = NULL;
    for (size_t i = 0; i < n && !err; i++) {
        const char *s = json_string_value(json_array_get(list, i));
        uint8_t h[32];
        if (s && strlen(s) == 64 && hex_decode_hash32_rev(h, s) == RC_OK) {
            int found = 0;
            if (ctx->node->mempool) {
                mempool_read_lock(ctx->node->mempool);
                struct mempool_entry *e = mempool_get(ctx->node->mempool, h);
                if (e) {
                    tx_copy(&txs[i], &e->tx);
                    found = 1;
                }
                mempool_read_unlock(ctx->node->mempool);
            }
            if (!found) {
                err =
                    rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "Transaction %s not in mempool.", s);
                err = (json_t *)1;
            }
        } else {
            struct buf raw;
            buf_init(&raw);
            if (!s || hex_decode(&raw, s) || tx_deserialize(&txs[i], raw.data, raw.len, NULL, 0)) {
                rpc_error(req, RPC_DESERIALIZATION_ERROR,
                          "Transaction decode failed for %s. "
                          "Make sure the tx has at least one input.",
                          s ? s : "");
                err = (json_t *)1;
            }
            buf_clear(&raw);
        }
    }
    json_t *r = NULL;
    if (!err) {
        int submit = !json_is_false(rpc_param(req, 2));
        struct block_template t;
        uint64_t tries = 1000000;
        /* The template is made on the tip and tested on the validation thread; a block
         * connected in between (another generate call, a peer) leaves it off the tip
         * ("inconclusive-not-best-prevblk"): it is made again on the new tip. Core makes and
         * tests it under one lock, so its calls never see that. */
        int made = -1, trc = RC_OK;
        struct block_test_call tc = {0};
        for (int attempt = 0; attempt < 10; attempt++) {
            if (made == 0) {
                block_template_clear(&t);
            }
            if ((made = make_template(ctx, &t, spk.data, spk.len, txs, n, 0)) != 0) {
                break;
            }
            /* The fees of the given transactions are not known here: the coinbase claims the
             * subsidy only, as Core's generateblock (which takes them from no mempool). */
            tc = (struct block_test_call){.b = &t.b};
            struct validator_job tj = {.work = VALIDATOR_CALL, .fn = block_test_call, .ctx = &tc};
            trc = validator_run(ctx->node->val, &tj);
            if (!(trc == RC_OK && tc.rc == RC_INVALID &&
                  strcmp(tc.st.reject, "inconclusive-not-best-prevblk") == 0)) {
                break;
            }
        }
        if (made) {
            rpc_error(req, RPC_INTERNAL_ERROR, "Couldn't create new block");
        } else {
            if (trc == RC_OK && tc.rc == RC_INVALID) {
                char msg[VSTATE_REJECT_LEN + VSTATE_DEBUG_LEN + 4];
                if (tc.st.debug[0]) {
                    snprintf(msg, sizeof(msg), "%s, %s", tc.st.reject, tc.st.debug);
                } else {
                    snprintf(msg, sizeof(msg), "%s", tc.st.reject);
                }
                rpc_error(req, RPC_VERIFY_ERROR, "TestBlockValidity failed: %s", msg);
            } else if (trc || tc.rc) {
                rpc_error(req, RPC_INTERNAL_ERROR, "TestBlockValidity: %s",
                          rc_str(trc ? trc : tc.rc));
            } else if (!miner_solve(&t.b, chainstate_params(ctx->node->cs), &tries)) {
                rpc_error(req, RPC_MISC_ERROR, "Failed to make block.");
            } else if (submit) {
                struct vstate st;
                int rc = process_block(ctx, &t.b, &st);
                if (rc == RC_INVALID && st.result == VRESULT_CONSENSUS && st.reject[0]) {
                    rpc_error(req, RPC_VERIFY_ERROR, "TestBlockValidity failed: %s", st.reject);
                } else if (rc && rc != RC_INVALID) {
                    rpc_error(req, RPC_INTERNAL_ERROR, "ProcessNewBlock, block not accepted");
                } else {
                    r = json_object();
                    json_object_set_new(r, "hash", rpc_hash_json(t.b.hash));
                }
            } else {
                struct buf raw;
                buf_init(&raw);
                block_serialize(&t.b, &raw, 1);
                char *hx = hex_encode_alloc(raw.data, raw.len);
                r = json_object();
                json_object_set_new(r, "hash", rpc_hash_json(t.b.hash));
                json_object_set_new(r, "hex", json_string(hx));
                free(hx);
                buf_clear(&raw);
            }
            block_template_clear(&t);
        }
    }
    for (size_t i = 0; i < n; i++) {
        tx_clear(&txs[i]);
    }
    free(txs);
    buf_clear(&spk);
    return r;
}

/* ---- templates and figures ----------------------------------------------------------- */

static void target_hex(char out[65], uint32_t bits)
{
    struct u256 t;
    u256_set_compact(&t, bits, NULL, NULL);
    u256_to_hex(out, &t);
}

/* Waits (BIP22 longpoll) until the tip is no longer watched or, after a minute and then every
 * ten seconds, the pool has changed since seq. */
static void longpoll_wait(struct rpc_context *ctx, const uint8_t watched[32], uint64_t seq)
{
    int64_t wait_ms = 60000;
    while (!shutdown_requested()) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        int64_t end_ms = (int64_t)deadline.tv_sec * 1000 + deadline.tv_nsec / 1000000 + wait_ms;
        int changed = 0;
        pthread_mutex_lock(&ctx->node->tip.mu);
        for (;;) {
            if (memcmp(ctx->node->tip.hash, watched, 32) != 0) {
                changed = 1;
                break;
            }
            struct timespec now, slice;
            clock_gettime(CLOCK_REALTIME, &now);
            int64_t now_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
            if (now_ms >= end_ms || shutdown_requested()) {
                break;
            }
            int64_t step = end_ms - now_ms < 100 ? end_ms - now_ms : 100;
            slice.tv_sec = (now_ms + step) / 1000;
            slice.tv_nsec = ((now_ms + step) % 1000) * 1000000;
            pthread_cond_timedwait(&ctx->node->tip.cv, &ctx->node->tip.mu, &slice);
        }
        pthread_mutex_unlock(&ctx->node->tip.mu);
        if (changed) {
            return;
        }
        if (ctx->node->mempool) {
            mempool_read_lock(ctx->node->mempool);
            uint64_t now_seq = mempool_transactions_updated(ctx->node->mempool);
            mempool_read_unlock(ctx->node->mempool);
            if (now_seq != seq) {
                return;
            }
        }
        wait_ms = 10000;
    }
}

static int has_rule(const json_t *rules, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(rules, i, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), name) == 0) {
            return 1;
        }
    }
    return 0;
}

static json_t *gbt_proposal(struct rpc_request *req, const json_t *req_obj)
{
    struct rpc_context *ctx = req->ctx;
    json_t *data = json_object_get(req_obj, "data");
    if (!json_is_string(data)) {
        return rpc_error(req, RPC_TYPE_ERROR, "Missing data String key for proposal");
    }
    struct buf raw;
    struct block b;
    size_t used;
    char err[256];
    buf_init(&raw);
    if (hex_decode(&raw, json_string_value(data)) ||
        block_parse_prefix(&b, raw.data, raw.len, &used, err, sizeof(err))) {
        buf_clear(&raw);
        return rpc_error(req, RPC_DESERIALIZATION_ERROR, "Block decode failed");
    }
    json_t *r;
    chainstate_read_lock(ctx->node->cs);
    struct block_index *e = block_tree_find(chainstate_tree(ctx->node->cs), b.hash);
    if (e) {
        r = json_string(block_index_failed(e)           ? "duplicate-invalid"
                        : (e->status & BLOCK_HAVE_DATA) ? "duplicate"
                                                        : "duplicate-inconclusive");
        chainstate_read_unlock(ctx->node->cs);
    } else {
        struct block_index *tip = chainstate_tip(ctx->node->cs);
        int on_tip = tip && memcmp(b.header.prev_hash, tip->hash, 32) == 0;
        chainstate_read_unlock(ctx->node->cs);
        if (!on_tip) {
            r = json_string("inconclusive-not-best-prevblk");
        } else {
            struct validator_job j = {.work = VALIDATOR_CALL, .fn = NULL};
            struct block_test_call c = {.b = &b};
            j.fn = block_test_call;
            j.ctx = &c;
            int rc = validator_run(ctx->node->val, &j);
            if (rc == RC_OK && c.rc == RC_OK) {
                r = json_null();
            } else if (c.rc == RC_INVALID) {
                r = json_string(c.st.reject);
            } else {
                r = json_string("rejected");
            }
        }
    }
    block_clear(&b);
    buf_clear(&raw);
    return r;
}

/* A long poll (Core's getblocktemplate "longpollid"): waits until the tip is no longer the
 * one lp names (its first 64 characters, a hash; then the mempool's sequence number), or the
 * current tip when lp is not a string, or the pool changed. Returns 0, or -1 after
 * rpc_error (a malformed id, or shutdown). */
static int gbt_longpoll(struct rpc_request *req, json_t *lp)
{
    struct rpc_context *ctx = req->ctx;
    uint8_t watched[32];
    uint64_t seq = 0;
    const char *s = json_string_value(lp);
    if (s) {
        /* Core's ParseHashV(lpstr.substr(0, 64), "longpollid"). */
        char h[65];
        size_t l = strlen(s) < 64 ? strlen(s) : 64;
        memcpy(h, s, l);
        h[l] = 0;
        if (l != 64) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      "longpollid must be of length 64 (not %zu, for '%s')", l, h);
            return -1;
        }
        if (hex_decode_hash32_rev(watched, h)) {
            rpc_error(req, RPC_INVALID_PARAMETER,
                      "longpollid must be hexadecimal string (not '%s')", h);
            return -1;
        }
        seq = strtoull(s + 64, NULL, 10);
    } else {
        pthread_mutex_lock(&ctx->node->tip.mu);
        memcpy(watched, ctx->node->tip.hash, 32);
        pthread_mutex_unlock(&ctx->node->tip.mu);
    }
    longpoll_wait(ctx, watched, seq);
    if (shutdown_requested()) {
        rpc_error(req, RPC_CLIENT_NOT_CONNECTED, "Shutting down");
        return -1;
    }
    return 0;
}

/* The template's transactions (all but the coinbase) as getblocktemplate lists them: data,
 * txid, hash, the earlier transactions of the template each depends on (1-based, once
 * each), fee, sigops (legacy units before segwit) and weight. */
static json_t *gbt_transactions(const struct block_template *t, int segwit)
{
    json_t *txs = json_array();
    for (size_t i = 1; i < t->b.tx_count; i++) {
        const struct tx *tx = &t->b.txs[i];
        struct buf raw;
        buf_init(&raw);
        tx_serialize(tx, &raw, 1);
        char *hx = hex_encode_alloc(raw.data, raw.len);
        buf_clear(&raw);
        json_t *o = json_object();
        json_object_set_new(o, "data", json_string(hx));
        free(hx);
        json_object_set_new(o, "txid", rpc_hash_json(tx->txid));
        json_object_set_new(o, "hash", rpc_hash_json(tx->wtxid));
        json_t *deps = json_array();
        for (size_t k = 0; k < tx->vin_count; k++) {
            for (size_t m = 1; m < i; m++) {
                if (memcmp(t->b.txs[m].txid, tx->vin[k].prevout.txid, 32) == 0) {
                    int dup = 0;
                    size_t di;
                    json_t *dv;
                    json_array_foreach(deps, di, dv)
                    {
                        dup |= json_integer_value(dv) == (json_int_t)m;
                    }
                    if (!dup) {
                        json_array_append_new(deps, json_integer((json_int_t)m));
                    }
                }
            }
        }
        json_object_set_new(o, "depends", deps);
        json_object_set_new(o, "fee", json_integer(t->fees[i]));
        json_object_set_new(o, "sigops", json_integer(segwit ? t->sigops[i] : t->sigops[i] / 4));
        json_object_set_new(o, "weight", json_integer((json_int_t)tx_weight(tx)));
        json_array_append_new(txs, o);
    }
    return txs;
}

static json_t *rpc_getblocktemplate(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    const struct chain_params *p = chainstate_params(ctx->node->cs);
    json_t *tr = rpc_param(req, 0);
    const char *mode = "template";
    json_t *rules = NULL, *lp = NULL;
    if (tr && !json_is_null(tr)) {
        json_t *m = json_object_get(tr, "mode");
        if (json_is_string(m)) {
            mode = json_string_value(m);
        } else if (m && !json_is_null(m)) {
            return rpc_error(req, RPC_INVALID_PARAMETER, "Invalid mode");
        }
        lp = json_object_get(tr, "longpollid");
        if (strcmp(mode, "proposal") == 0) {
            return gbt_proposal(req, tr);
        }
        rules = json_object_get(tr, "rules");
    }
    if (strcmp(mode, "template") != 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Invalid mode");
    }
    int test_chain = strcmp(p->name, "main") != 0; /* Core's IsTestChain */
    if (!test_chain) {
        int in = 0, out = 0;
        if (ctx->node->net) {
            net_connection_counts(ctx->node->net, &in, &out);
        }
        if (in + out == 0) {
            return rpc_error(req, RPC_CLIENT_NOT_CONNECTED, "Bitcoin Core is not connected!");
        }
        if (chainstate_in_ibd(ctx->node->cs)) {
            return rpc_error(req, RPC_CLIENT_IN_INITIAL_DOWNLOAD,
                             "Bitcoin Core is in initial sync and waiting for blocks...");
        }
    }
    if (lp && !json_is_null(lp) && gbt_longpoll(req, lp)) {
        return NULL;
    }
    if (p->signet_challenge_len && !has_rule(rules, "signet")) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "getblocktemplate must be called with the signet rule set (call with "
                         "{\"rules\": [\"segwit\", \"signet\"]})");
    }
    if (!has_rule(rules, "segwit")) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "getblocktemplate must be called with the segwit rule set (call with "
                         "{\"rules\": [\"segwit\"]})");
    }
    uint64_t seq = 0;
    if (ctx->node->mempool) {
        mempool_read_lock(ctx->node->mempool);
        seq = mempool_transactions_updated(ctx->node->mempool);
        mempool_read_unlock(ctx->node->mempool);
    }
    struct block_template t;
    static const uint8_t op_true[1] = {OP_TRUE};
    if (make_template(ctx, &t, op_true, 1, NULL, 0, 1)) {
        return rpc_error(req, RPC_INTERNAL_ERROR, "Couldn't create new block");
    }
    int segwit = t.height >= p->segwit_height;
    json_t *r = json_object();
    json_t *caps = json_array();
    json_array_append_new(caps, json_string("proposal"));
    json_object_set_new(r, "capabilities", caps);
    json_object_set_new(r, "version", json_integer(t.b.header.version));
    json_t *rl = json_array();
    json_array_append_new(rl, json_string("csv"));
    if (segwit) {
        json_array_append_new(rl, json_string("!segwit"));
        json_array_append_new(rl, json_string("taproot"));
    }
    if (p->signet_challenge_len) {
        json_array_append_new(rl, json_string("!signet"));
    }
    json_object_set_new(r, "rules", rl);
    json_t *vba = json_object();
    for (size_t i = 0; i < CHAIN_DEPLOYMENT_COUNT; i++) {
        const struct chain_bip9_deployment *d = &p->deployments[i];
        if (d->start_time != CHAIN_BIP9_NEVER_ACTIVE && (t.b.header.version & (1 << d->bit)) &&
            d->name) {
            json_object_set_new(vba, d->name, json_integer(d->bit));
        }
    }
    json_object_set_new(r, "vbavailable", vba);
    json_object_set_new(r, "vbrequired", json_integer(0));
    json_object_set_new(r, "previousblockhash", rpc_hash_json(t.b.header.prev_hash));
    json_object_set_new(r, "transactions", gbt_transactions(&t, segwit));
    json_object_set_new(r, "coinbaseaux", json_object());
    json_object_set_new(r, "coinbasevalue", json_integer(t.coinbase_value));
    char lpid[64 + 24];
    hex_encode_rev(lpid, t.b.header.prev_hash, 32);
    snprintf(lpid + 64, sizeof(lpid) - 64, "%llu", (unsigned long long)seq);
    json_object_set_new(r, "longpollid", json_string(lpid));
    char th[65];
    target_hex(th, t.b.header.bits);
    json_object_set_new(r, "target", json_string(th));
    json_object_set_new(r, "mintime", json_integer(t.min_time));
    json_t *mut = json_array();
    json_array_append_new(mut, json_string("time"));
    json_array_append_new(mut, json_string("transactions"));
    json_array_append_new(mut, json_string("prevblock"));
    json_object_set_new(r, "mutable", mut);
    json_object_set_new(r, "noncerange", json_string("00000000ffffffff"));
    json_object_set_new(r, "sigoplimit", json_integer(segwit ? 80000 : 20000));
    json_object_set_new(r, "sizelimit", json_integer(segwit ? 4000000 : 1000000));
    if (segwit) {
        json_object_set_new(r, "weightlimit", json_integer(4000000));
    }
    json_object_set_new(r, "curtime", json_integer(t.b.header.time));
    char bits[9];
    snprintf(bits, sizeof(bits), "%08x", t.b.header.bits);
    json_object_set_new(r, "bits", json_string(bits));
    json_object_set_new(r, "height", json_integer(t.height));
    if (p->signet_challenge_len) {
        char *hx = hex_encode_alloc(p->signet_challenge, p->signet_challenge_len);
        json_object_set_new(r, "signet_challenge", json_string(hx));
        free(hx);
    }
    if (t.commitment_len) {
        char *hx = hex_encode_alloc(t.commitment, t.commitment_len);
        json_object_set_new(r, "default_witness_commitment", json_string(hx));
        free(hx);
    }
    block_template_clear(&t);
    return r;
}

/* Core's GetNetworkHashPS. Chain read lock held. */
static int network_hashps(struct rpc_request *req, struct chainstate *cs, int64_t lookup,
                          int64_t height, double *out)
{
    struct block_index *tip = chainstate_tip(cs);
    *out = 0;
    if (lookup < -1 || lookup == 0) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Invalid nblocks. Must be a positive number or -1.");
        return -1;
    }
    if (height < -1 || height > (tip ? tip->height : -1)) {
        rpc_error(req, RPC_INVALID_PARAMETER, "Block does not exist at specified height");
        return -1;
    }
    struct block_index *pb = height >= 0 ? chainstate_at_height(cs, (int32_t)height) : tip;
    if (!pb || pb->height == 0) {
        return 0;
    }
    if (lookup == -1) {
        lookup = pb->height % chain_params_retarget_interval(chainstate_params(cs)) + 1;
    }
    if (lookup > pb->height) {
        lookup = pb->height;
    }
    struct block_index *pb0 = pb;
    int64_t min_t = pb0->header.time, max_t = min_t;
    for (int64_t i = 0; i < lookup; i++) {
        pb0 = pb0->prev;
        int64_t t = pb0->header.time;
        min_t = t < min_t ? t : min_t;
        max_t = t > max_t ? t : max_t;
    }
    if (min_t == max_t) {
        return 0;
    }
    struct u256 diff;
    u256_sub(&diff, &pb->chain_work, &pb0->chain_work);
    *out = u256_double(&diff) / (double)(max_t - min_t);
    return 0;
}

static json_t *rpc_getnetworkhashps(struct rpc_request *req)
{
    struct chainstate *cs = req->ctx->node->cs;
    double v;
    chainstate_read_lock(cs);
    int rc = network_hashps(req, cs, rpc_arg_int_or(req, 0, 120), rpc_arg_int_or(req, 1, -1), &v);
    chainstate_read_unlock(cs);
    return rc ? NULL : json_real(v);
}

static json_t *rpc_getmininginfo(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    struct chainstate *cs = ctx->node->cs;
    const struct chain_params *p = chainstate_params(cs);
    json_t *r = json_object();
    double hps;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    network_hashps(req, cs, 120, -1, &hps);
    json_object_set_new(r, "blocks", json_integer(tip->height));
    pthread_mutex_lock(&ctx->node->tip.mu);
    if (ctx->have_last_block) {
        json_object_set_new(r, "currentblockweight", json_integer(ctx->last_block_weight));
        json_object_set_new(r, "currentblocktx", json_integer(ctx->last_block_txs));
    }
    pthread_mutex_unlock(&ctx->node->tip.mu);
    char bits[9], th[65];
    snprintf(bits, sizeof(bits), "%08x", tip->header.bits);
    json_object_set_new(r, "bits", json_string(bits));
    json_object_set_new(r, "difficulty", json_real(rpc_difficulty(tip->header.bits)));
    target_hex(th, tip->header.bits);
    json_object_set_new(r, "target", json_string(th));
    json_object_set_new(r, "networkhashps", json_real(hps));
    size_t pooled = 0;
    if (ctx->node->mempool) {
        mempool_read_lock(ctx->node->mempool);
        pooled = mempool_count(ctx->node->mempool);
        mempool_read_unlock(ctx->node->mempool);
    }
    json_object_set_new(r, "pooledtx", json_integer((json_int_t)pooled));
    json_object_set_new(r, "blockmintxfee", rpc_json_amount(ctx->node->miner.block_min_feerate));
    json_object_set_new(r, "chain", json_string(p->name));
    if (p->signet_challenge_len) {
        char *hx = hex_encode_alloc(p->signet_challenge, p->signet_challenge_len);
        json_object_set_new(r, "signet_challenge", json_string(hx));
        free(hx);
    }
    uint32_t nbits = tip->header.bits;
    int64_t t = now_s(ctx);
    int64_t mtp = block_index_median_time_past(tip);
    headers_next_bits(&nbits, tip, t > mtp + 1 ? t : mtp + 1, p);
    json_t *next = json_object();
    json_object_set_new(next, "height", json_integer(tip->height + 1));
    snprintf(bits, sizeof(bits), "%08x", nbits);
    json_object_set_new(next, "bits", json_string(bits));
    json_object_set_new(next, "difficulty", json_real(rpc_difficulty(nbits)));
    target_hex(th, nbits);
    json_object_set_new(next, "target", json_string(th));
    json_object_set_new(r, "next", next);
    json_object_set_new(r, "warnings", rpc_warnings_json(req->ctx->node));
    chainstate_read_unlock(cs);
    return r;
}

#define GENERATE_DESCRIPTION                                                                       \
    "has been replaced by the -generate cli option. Refer to -help for more information."

/* generate (hidden): gone from Core since v0.19; its answer is its own help, as Core's. */
static json_t *rpc_generate(struct rpc_request *req)
{
    return rpc_error(req, RPC_METHOD_NOT_FOUND, "generate\n\n%s\n", GENERATE_DESCRIPTION);
}

/* ---- declarations -------------------------------------------------------------------- */

#define GBT(t, k, d) {.type = t, .key = k, .description = d}

/* Core's getblocktemplate result (help only: the handler's object is not type-checked). */
static const struct rpc_result gbt_tx_fields[] = {
    GBT(RPC_RES_STR_HEX, "data", "transaction data encoded in hexadecimal (byte-for-byte)"),
    GBT(RPC_RES_STR_HEX, "txid",
        "transaction hash excluding witness data, shown in byte-reversed hex"),
    GBT(RPC_RES_STR_HEX, "hash",
        "transaction hash including witness data, shown in byte-reversed hex"),
    {.type = RPC_RES_ARR,
     .key = "depends",
     .description = "array of numbers",
     .inner = RPC_LIST(struct rpc_result,
                       GBT(RPC_RES_NUM, "",
                           "transactions before this one (by 1-based index in 'transactions' "
                           "list) that must be present in the final block if this one is"))},
    GBT(RPC_RES_NUM, "fee",
        "difference in value between transaction inputs and outputs (in satoshis); for coinbase "
        "transactions, this is a negative Number of the total collected block fees (ie, not "
        "including the block subsidy); if key is not present, fee is unknown and clients MUST "
        "NOT assume there isn't one"),
    GBT(RPC_RES_NUM, "sigops",
        "total SigOps cost, as counted for purposes of block limits; if key is not present, "
        "sigop cost is unknown and clients MUST NOT assume it is zero"),
    GBT(RPC_RES_NUM, "weight", "total transaction weight, as counted for purposes of block limits"),
};

static const struct rpc_result gbt_fields[] = {
    GBT(RPC_RES_NUM, "version", "The preferred block version"),
    {.type = RPC_RES_ARR,
     .key = "rules",
     .description = "specific block rules that are to be enforced",
     .inner = RPC_LIST(struct rpc_result,
                       GBT(RPC_RES_STR, "",
                           "name of a rule the client must understand to some extent; see BIP 9 "
                           "for format"))},
    {.type = RPC_RES_OBJ_DYN,
     .key = "vbavailable",
     .description = "set of pending, supported versionbit (BIP 9) softfork deployments",
     .inner = RPC_LIST(struct rpc_result,
                       GBT(RPC_RES_NUM, "rulename",
                           "identifies the bit number as indicating acceptance and readiness for "
                           "the named softfork rule"))},
    {.type = RPC_RES_ARR,
     .key = "capabilities",
     .inner = RPC_LIST(struct rpc_result,
                       GBT(RPC_RES_STR, "", "A supported feature, for example 'proposal'"))},
    GBT(RPC_RES_NUM, "vbrequired", "bit mask of versionbits the server requires set in submissions"),
    GBT(RPC_RES_STR, "previousblockhash", "The hash of current highest block"),
    {.type = RPC_RES_ARR,
     .key = "transactions",
     .description = "contents of non-coinbase transactions that should be included in the next "
                    "block",
     .inner = RPC_LIST(struct rpc_result,
                       {.type = RPC_RES_OBJ,
                        .inner = gbt_tx_fields,
                        .n_inner = sizeof(gbt_tx_fields) / sizeof(gbt_tx_fields[0])})},
    {.type = RPC_RES_OBJ_DYN,
     .key = "coinbaseaux",
     .description = "data that should be included in the coinbase's scriptSig content",
     .inner = RPC_LIST(struct rpc_result,
                       GBT(RPC_RES_STR_HEX, "key",
                           "values must be in the coinbase (keys may be ignored)"))},
    GBT(RPC_RES_NUM, "coinbasevalue",
        "maximum allowable input to coinbase transaction, including the generation award and "
        "transaction fees (in satoshis)"),
    GBT(RPC_RES_STR, "longpollid",
        "an id to include with a request to longpoll on an update to this template"),
    GBT(RPC_RES_STR, "target", "The hash target"),
    GBT(RPC_RES_NUM_TIME, "mintime",
        "The minimum timestamp appropriate for the next block time, expressed in UNIX epoch "
        "time. Adjusted for the proposed BIP94 timewarp rule."),
    {.type = RPC_RES_ARR,
     .key = "mutable",
     .description = "list of ways the block template may be changed",
     .inner = RPC_LIST(struct rpc_result,
                       GBT(RPC_RES_STR, "",
                           "A way the block template may be changed, e.g. 'time', "
                           "'transactions', 'prevblock'"))},
    GBT(RPC_RES_STR_HEX, "noncerange", "A range of valid nonces"),
    GBT(RPC_RES_NUM, "sigoplimit", "limit of sigops in blocks"),
    GBT(RPC_RES_NUM, "sizelimit", "limit of block size"),
    {.type = RPC_RES_NUM, .key = "weightlimit", .optional = true,
     .description = "limit of block weight"},
    GBT(RPC_RES_NUM_TIME, "curtime",
        "current timestamp in UNIX epoch time. Adjusted for the proposed BIP94 timewarp rule."),
    GBT(RPC_RES_STR, "bits", "compressed target of next block"),
    GBT(RPC_RES_NUM, "height", "The height of the next block"),
    {.type = RPC_RES_STR_HEX, .key = "signet_challenge", .optional = true,
     .description = "Only on signet"},
    {.type = RPC_RES_STR_HEX, .key = "default_witness_commitment", .optional = true,
     .description = "a valid witness commitment for the unmodified block template"},
};

static const struct rpc_method methods[] = {
    {.category = "mining",
     .name = "submitblock",
     .handler = rpc_submitblock,
     .description = "Attempts to submit new block to network.\n"
                    "See https://en.bitcoin.it/wiki/BIP_0022 for full specification.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "hexdata",
                       .type = RPC_ARG_STR_HEX,
                       .description = "the hex-encoded block data to submit"},
                      {.names = "dummy",
                       .type = RPC_ARG_STR,
                       .fallback = RPC_ARG_DEFAULT_HINT,
                       .default_value = "ignored",
                       .description = "dummy value, for compatibility with BIP22. This value is "
                                      "ignored.",
                       .placeholder = true}),
     .results =
         RPC_LIST(struct rpc_result, {.cond = "If the block was accepted", .type = RPC_RES_NONE},
                  {.cond = "Otherwise", .type = RPC_RES_STR, .description = "According to BIP22"}),
     .examples = RPC_EXAMPLES("submitblock", "\"mydata\"", "\"mydata\"")},
    {.category = "mining",
     .name = "submitheader",
     .handler = rpc_submitheader,
     .description = "Decode the given hexdata as a header and submit it as a candidate chain tip "
                    "if valid.\nThrows when the header is invalid.\n",
     .args = RPC_LIST(struct rpc_arg, {.names = "hexdata",
                                       .type = RPC_ARG_STR_HEX,
                                       .description = "the hex-encoded block header data"}),
     .results = RPC_LIST(struct rpc_result, {.type = RPC_RES_NONE, .description = "None"}),
     .examples = RPC_EXAMPLES("submitheader", "\"aabbcc\"", "\"aabbcc\"")},
    {.category = "hidden",
     .name = "generate",
     .handler = rpc_generate,
     .description = GENERATE_DESCRIPTION,
     .flags = RPC_METHOD_HIDDEN},
    {.category = "hidden",
     .name = "generatetoaddress",
     .handler = rpc_generatetoaddress,
     .description = "Mine to a specified address and return the block hashes.",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "nblocks",
                       .type = RPC_ARG_NUM,
                       .description = "How many blocks are generated.",
                       .conv = RPC_CONV_INT},
                      {.names = "address",
                       .type = RPC_ARG_STR,
                       .description = "The address to send the newly generated bitcoin to."},
                      {.names = "maxtries",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "1000000",
                       .description = "How many iterations to try.",
                       .conv = RPC_CONV_INT64}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "hashes of blocks generated",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_STR_HEX, .key = "", .description = "blockhash"})}),
     .examples = RPC_EXAMPLE_CLI("generatetoaddress", "11 \"myaddress\"")},
    {.category = "hidden",
     .name = "generatetodescriptor",
     .handler = rpc_generatetodescriptor,
     .description = "Mine to a specified descriptor and return the block hashes.",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "num_blocks",
                       .type = RPC_ARG_NUM,
                       .description = "How many blocks are generated.",
                       .conv = RPC_CONV_INT},
                      {.names = "descriptor",
                       .type = RPC_ARG_STR,
                       .description = "The descriptor to send the newly generated bitcoin to."},
                      {.names = "maxtries",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "1000000",
                       .description = "How many iterations to try.",
                       .conv = RPC_CONV_INT64}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_ARR,
          .key = "",
          .description = "hashes of blocks generated",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_STR_HEX, .key = "", .description = "blockhash"})}),
     .examples = RPC_EXAMPLE_CLI("generatetodescriptor", "11 \"mydesc\"")},
    {.category = "hidden",
     .name = "generateblock",
     .handler = rpc_generateblock,
     .description = "Mine a set of ordered transactions to a specified address or descriptor and "
                    "return the block hash.\n"
                    "Transaction fees are not collected in the block reward.",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "output",
          .type = RPC_ARG_STR,
          .description = "The address or descriptor to send the newly generated bitcoin to."},
         {.names = "transactions",
          .type = RPC_ARG_ARR,
          .description = "An array of hex strings which are either txids or raw transactions.\n"
                         "Txids must reference transactions currently in the mempool.\n"
                         "All transactions must be valid and in valid order, otherwise the block "
                         "will be rejected.",
          .inner = RPC_LIST(struct rpc_arg, {.names = "rawtx/txid",
                                             .type = RPC_ARG_STR_HEX,
                                             .fallback = RPC_ARG_OMITTED,
                                             .description = ""})},
         {.names = "submit",
          .type = RPC_ARG_BOOL,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "true",
          .description = "Whether to submit the block before the RPC call returns or to return it "
                         "as hex."}),
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .key = "",
          .description = "",
          .inner = RPC_LIST(
              struct rpc_result,
              {.type = RPC_RES_STR_HEX, .key = "hash", .description = "hash of generated block"},
              {.type = RPC_RES_STR_HEX,
               .key = "hex",
               .optional = true,
               .description = "hex of generated block, only present when submit=false"})}),
     .examples = "\nGenerate a block to myaddress, with txs rawtx and mempool_txid\n" RPC_EXAMPLE_CLI(
         "generateblock", "\"myaddress\" '[\"rawtx\", \"mempool_txid\"]'")},
    {.category = "mining",
     .name = "getblocktemplate",
     .handler = rpc_getblocktemplate,
     .description =
         "If the request parameters include a 'mode' key, that is used to explicitly select "
         "between the default 'template' request or a 'proposal'.\nIt returns data needed to "
         "construct a block to work on.\nFor full specification, see BIPs 22, 23, 9, and 145:\n"
         "    https://github.com/bitcoin/bips/blob/master/bip-0022.mediawiki\n"
         "    https://github.com/bitcoin/bips/blob/master/bip-0023.mediawiki\n"
         "    "
         "https://github.com/bitcoin/bips/blob/master/bip-0009.mediawiki#getblocktemplate_changes\n"
         "    https://github.com/bitcoin/bips/blob/master/bip-0145.mediawiki\n",
     .args = RPC_LIST(
         struct rpc_arg,
         {.names = "template_request",
          .type = RPC_ARG_OBJ,
          .description = "Format of the template",
          .inner = RPC_LIST(
              struct rpc_arg,
              {.names = "mode",
               .type = RPC_ARG_STR,
               .fallback = RPC_ARG_OMITTED,
               .description = "This must be set to \"template\", \"proposal\" (see BIP 23), or "
                              "omitted"},
              {.names = "capabilities",
               .type = RPC_ARG_ARR,
               .fallback = RPC_ARG_OMITTED,
               .description = "A list of strings",
               .inner = RPC_LIST(struct rpc_arg,
                                 {.names = "str",
                                  .type = RPC_ARG_STR,
                                  .fallback = RPC_ARG_OMITTED,
                                  .description = "client side supported feature, 'longpoll', "
                                                 "'coinbasevalue', 'proposal', 'serverlist', "
                                                 "'workid'"})},
              {.names = "rules",
               .type = RPC_ARG_ARR,
               .description = "A list of strings",
               .inner = RPC_LIST(struct rpc_arg,
                                 {.names = "segwit",
                                  .type = RPC_ARG_STR,
                                  .description = "(literal) indicates client side segwit support"},
                                 {.names = "str",
                                  .type = RPC_ARG_STR,
                                  .fallback = RPC_ARG_OMITTED,
                                  .description = "other client side supported softfork "
                                                 "deployment"})},
              {.names = "longpollid",
               .type = RPC_ARG_STR,
               .fallback = RPC_ARG_OMITTED,
               .description = "delay processing request until the result would vary "
                              "significantly from the \"longpollid\" of a prior template"},
              {.names = "data",
               .type = RPC_ARG_STR_HEX,
               .fallback = RPC_ARG_OMITTED,
               .description = "proposed block data to check, encoded in hexadecimal; valid only "
                              "for mode=\"proposal\""})}),
     .results = RPC_LIST(
         struct rpc_result,
         {.cond = "If the proposal was accepted with mode=='proposal'", .type = RPC_RES_NONE},
         {.cond = "If the proposal was not accepted with mode=='proposal'",
          .type = RPC_RES_STR,
          .description = "According to BIP22"},
         {.cond = "Otherwise",
          .type = RPC_RES_OBJ,
          .description = "",
          .skip_type_check = true,
          .inner = gbt_fields,
          .n_inner = sizeof(gbt_fields) / sizeof(gbt_fields[0])}),
     .examples = RPC_EXAMPLES("getblocktemplate", "'{\"rules\": [\"segwit\"]}'",
                              "{\"rules\": [\"segwit\"]}")},
    {.category = "mining",
     .name = "getmininginfo",
     .handler = rpc_getmininginfo,
     .description = "Returns a json object containing mining-related information.",
     .results = RPC_LIST(
         struct rpc_result,
         {.type = RPC_RES_OBJ,
          .inner = RPC_LIST(
              struct rpc_result, GBT(RPC_RES_NUM, "blocks", "The current block"),
              {.type = RPC_RES_NUM,
               .key = "currentblockweight",
               .optional = true,
               .description = "The block weight (including reserved weight for block header, "
                              "txs count and coinbase tx) of the last assembled block (only "
                              "present if a block was ever assembled)"},
              {.type = RPC_RES_NUM,
               .key = "currentblocktx",
               .optional = true,
               .description = "The number of block transactions (excluding coinbase) of the "
                              "last assembled block (only present if a block was ever "
                              "assembled)"},
              GBT(RPC_RES_STR_HEX, "bits",
                  "The current nBits, compact representation of the block difficulty target"),
              GBT(RPC_RES_NUM, "difficulty", "The current difficulty"),
              GBT(RPC_RES_STR_HEX, "target", "The current target"),
              GBT(RPC_RES_NUM, "networkhashps", "The network hashes per second"),
              GBT(RPC_RES_NUM, "pooledtx", "The size of the mempool"),
              GBT(RPC_RES_STR_AMOUNT, "blockmintxfee",
                  "Minimum feerate of packages selected for block inclusion in BTC/kvB"),
              GBT(RPC_RES_STR, "chain",
                  "current network name (main, test, testnet4, signet, regtest)"),
              {.type = RPC_RES_STR_HEX,
               .key = "signet_challenge",
               .optional = true,
               .description = "The block challenge (aka. block script), in hexadecimal (only "
                              "present if the current network is a signet)"},
              {.type = RPC_RES_OBJ,
               .key = "next",
               .description = "The next block",
               .inner = RPC_LIST(struct rpc_result,
                                 GBT(RPC_RES_NUM, "height", "The next height"),
                                 GBT(RPC_RES_STR_HEX, "bits", "The next target nBits"),
                                 GBT(RPC_RES_NUM, "difficulty", "The next difficulty"),
                                 GBT(RPC_RES_STR_HEX, "target", "The next target"))},
              {.type = RPC_RES_ARR,
               .key = "warnings",
               .description = "any network and blockchain warnings (run with "
                              "`-deprecatedrpc=warnings` to return the latest warning as a "
                              "single string)",
               .inner = RPC_LIST(struct rpc_result, GBT(RPC_RES_STR, "", "warning"))})}),
     .examples = RPC_EXAMPLES("getmininginfo", "", "")},
    {.category = "mining",
     .name = "getnetworkhashps",
     .handler = rpc_getnetworkhashps,
     .description = "Returns the estimated network hashes per second based on the last n "
                    "blocks.\nPass in [blocks] to override # of blocks, -1 specifies since last "
                    "difficulty change.\nPass in [height] to estimate the network speed at the "
                    "time when a certain block was found.\n",
     .args = RPC_LIST(struct rpc_arg,
                      {.names = "nblocks",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "120",
                       .description = "The number of previous blocks to calculate estimate from, "
                                      "or -1 for blocks since last difficulty change.",
                       .conv = RPC_CONV_INT},
                      {.names = "height",
                       .type = RPC_ARG_NUM,
                       .fallback = RPC_ARG_DEFAULT,
                       .default_value = "-1",
                       .description = "To estimate at the time of the given height.",
                       .conv = RPC_CONV_INT}),
     .results =
         RPC_LIST(struct rpc_result,
                  {.type = RPC_RES_NUM, .key = "", .description = "Hashes per second estimated"}),
     .examples = RPC_EXAMPLES("getnetworkhashps", "", "")},
};

void rpc_mining_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
