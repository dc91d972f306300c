/* scantxoutset (Core's rpc/blockchain.cpp): the UTXO set searched for the scripts of output
 * descriptors. The store is flushed and walked on the validation thread (so the chain stands
 * still meanwhile); one scan at a time; "abort" stops a running one between two coins. */
#include "rpc/scan.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coins/coin.h"
#include "coins/undo.h"
#include "index/blockfilter.h"
#include "rpc/blockfilter.h"
#include "index/blockfilterindex.h"
#include "rpc/blockchain.h"
#include "rpc/context.h"
#include "rpc/json.h"
#include "rpc/protocol.h"
#include "rpc/util.h"
#include "sign/descriptor.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

/* One scan at a time, process-wide in Core; here the context's. */
static atomic_int scan_running;
static atomic_int scan_abort;
static atomic_int scan_progress;

struct needle {
    uint8_t *spk;
    size_t len;
    char *desc; /* Core's InferDescriptor of the script */
};

static int needle_cmp(const void *a, const void *b)
{
    const struct needle *x = a, *y = b;
    if (x->len != y->len) {
        return x->len < y->len ? -1 : 1;
    }
    return memcmp(x->spk, y->spk, x->len);
}

struct found {
    struct outpoint op;
    struct coin c;
    const struct needle *n;
};

struct scan_call {
    struct needle *needles;
    size_t n;
    struct found *found;
    size_t nfound, capfound;
    uint64_t count;
    int32_t height;
    uint8_t tip[32];
    int rc;
};

static int on_coin(void *ctx, const struct outpoint *op, const struct coin *c)
{
    struct scan_call *s = ctx;
    struct needle key = {.spk = c->script_pubkey.data, .len = c->script_pubkey.len};
    const struct needle *hit = bsearch(&key, s->needles, s->n, sizeof(key), needle_cmp);
    if (hit) {
        if (s->nfound == s->capfound) {
            s->capfound = s->capfound ? s->capfound * 2 : 16;
            s->found = xrealloc(s->found, s->capfound * sizeof(*s->found));
        }
        struct found *f = &s->found[s->nfound++];
        f->op = *op;
        f->c = *c;
        f->c.script_pubkey.data = xmalloc(c->script_pubkey.len ? c->script_pubkey.len : 1);
        if (c->script_pubkey.len) {
            memcpy(f->c.script_pubkey.data, c->script_pubkey.data, c->script_pubkey.len);
        }
        f->n = hit;
    }
    if ((s->count & 0xfff) == 0) {
        /* Core's progress: from the first byte of the txid, as the store is ordered. */
        atomic_store(&scan_progress, (int)(op->txid[31] * 100 / 256));
    }
    return atomic_load(&scan_abort);
}

static int scan_job(struct chainstate *cs, void *ctx)
{
    struct scan_call *s = ctx;
    struct block_index *tip = chainstate_tip(cs);
    s->height = tip ? tip->height : -1;
    if (tip) {
        memcpy(s->tip, tip->hash, 32);
    }
    s->rc = chainstate_scan_coins(cs, on_coin, s, &s->count);
    return RC_OK;
}

static int found_cmp(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    int c = memcmp(x->op.txid, y->op.txid, 32);
    return c ? c : (x->op.n < y->op.n ? -1 : x->op.n > y->op.n);
}

static void add_needle(struct needle **v, size_t *n, size_t *cap, const struct buf *spk,
                       const struct script_desc_provider *prov, const struct chain_params *p)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *v = xrealloc(*v, *cap * sizeof(**v));
    }
    struct needle *x = &(*v)[(*n)++];
    x->len = spk->len;
    x->spk = xmalloc(spk->len ? spk->len : 1);
    if (spk->len) {
        memcpy(x->spk, spk->data, spk->len);
    }
    struct buf d;
    buf_init(&d);
    script_descriptor_infer_with(&d, spk->data, spk->len, prov, p);
    x->desc = xmalloc(d.len + 1);
    memcpy(x->desc, d.data, d.len);
    x->desc[d.len] = 0;
    buf_clear(&d);
}

/* Core's EvalDescriptorStringOrObject: the scripts of one scan object. */
static int eval_scan_object(struct rpc_request *req, const json_t *obj, struct needle **v,
                            size_t *n, size_t *cap)
{
    const struct chain_params *p = chainstate_params(req->ctx->node->cs);
    const char *desc;
    int64_t lo = 0, hi = 1000;
    if (json_is_string(obj)) {
        desc = json_string_value(obj);
    } else if (json_is_object(obj)) {
        json_t *d = json_object_get(obj, "desc");
        if (!d || json_is_null(d)) {
            rpc_error(req, RPC_INVALID_PARAMETER, "Descriptor needs to be provided in scan object");
            return -1;
        }
        if (!json_is_string(d)) {
            rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type string",
                      rpc_json_type_name(d));
            return -1;
        }
        desc = json_string_value(d);
        json_t *r = json_object_get(obj, "range");
        if (r && !json_is_null(r) && rpc_parse_descriptor_range(req, r, &lo, &hi)) {
            return -1;
        }
    } else {
        rpc_error(req, RPC_INVALID_PARAMETER,
                  "Scan object needs to be either a string or an object");
        return -1;
    }
    struct script_descriptor *d = NULL;
    char *err = NULL;
    if (script_descriptor_parse(&d, desc, 0, p, &err)) {
        rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY, "%s", err ? err : "");
        free(err);
        return -1;
    }
    if (!script_descriptor_is_range(d)) {
        lo = hi = 0;
    }
    struct buf spks[SCRIPT_DESC_MAX_SCRIPTS];
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_init(&spks[i]);
    }
    int rc = 0;
    for (int64_t i = lo; i <= hi && !rc; i++) {
        for (size_t alt = 0; alt < script_descriptor_multipath_count(d) && !rc; alt++) {
            size_t k = 0;
            for (size_t m = 0; m < SCRIPT_DESC_MAX_SCRIPTS; m++) {
                buf_reset(&spks[m]);
            }
            /* Core infers each script with what the expansion told (its keys' origins):
             * the keys of one position are all a script of that position can use. */
            struct script_desc_provider prov;
            script_desc_provider_init(&prov);
            if (script_descriptor_expand_with(d, alt, (uint32_t)i, spks, &k, &prov)) {
                script_desc_provider_clear(&prov);
                rpc_error(req, RPC_INVALID_ADDRESS_OR_KEY,
                          "Cannot derive script without private keys: '%s'", desc);
                rc = -1;
                break;
            }
            for (size_t m = 0; m < k; m++) {
                add_needle(v, n, cap, &spks[m], &prov, p);
            }
            script_desc_provider_clear(&prov);
        }
    }
    for (size_t i = 0; i < SCRIPT_DESC_MAX_SCRIPTS; i++) {
        buf_clear(&spks[i]);
    }
    script_descriptor_free(d);
    return rc;
}

static int script_cmp(const void *a, const void *b)
{
    const struct buf *x = a, *y = b;
    if (x->len != y->len) {
        return x->len < y->len ? -1 : 1;
    }
    return x->len ? memcmp(x->data, y->data, x->len) : 0;
}

int rpc_scan_scripts(struct rpc_request *req, const json_t *objs, struct buf **spks, size_t *n)
{
    struct needle *v = NULL;
    size_t nv = 0, cap = 0, i;
    json_t *o;
    int rc = 0;
    json_array_foreach(objs, i, o)
    {
        if (eval_scan_object(req, o, &v, &nv, &cap)) {
            rc = -1;
            break;
        }
    }
    struct buf *out = xcalloc(nv ? nv : 1, sizeof(*out));
    size_t k = 0;
    for (i = 0; i < nv; i++) {
        if (rc == 0) {
            buf_init(&out[k]);
            buf_append(&out[k++], v[i].spk, v[i].len);
        }
        free(v[i].spk);
        free(v[i].desc);
    }
    free(v);
    qsort(out, k, sizeof(*out), script_cmp);
    size_t u = 0;
    for (i = 0; i < k; i++) {
        if (u > 0 && script_cmp(&out[u - 1], &out[i]) == 0) {
            buf_clear(&out[i]);
        } else {
            out[u++] = out[i];
        }
    }
    *spks = out;
    *n = u;
    return rc;
}

int rpc_scan_scripts_has(const struct buf *spks, size_t n, const uint8_t *s, size_t len)
{
    struct buf key = {.data = (uint8_t *)s, .len = len};
    return n > 0 && bsearch(&key, spks, n, sizeof(*spks), script_cmp) != NULL;
}

void rpc_scan_scripts_free(struct buf *spks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        buf_clear(&spks[i]);
    }
    free(spks);
}

static json_t *rpc_scantxoutset(struct rpc_request *req)
{
    const char *action = json_string_value(rpc_param(req, 0));
    if (strcmp(action, "status") == 0) {
        if (!atomic_load(&scan_running)) {
            return json_null();
        }
        return json_pack("{s:i}", "progress", atomic_load(&scan_progress));
    }
    if (strcmp(action, "abort") == 0) {
        if (!atomic_load(&scan_running)) {
            return json_false();
        }
        atomic_store(&scan_abort, 1);
        return json_true();
    }
    if (strcmp(action, "start") != 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Invalid action '%s'", action);
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&scan_running, &expected, 1)) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Scan already in progress, use action \"abort\" or \"status\"");
    }
    json_t *objs = rpc_param(req, 1);
    json_t *r = NULL;
    struct scan_call s = {0};
    size_t cap = 0;
    if (!objs || json_is_null(objs)) {
        rpc_error(req, RPC_MISC_ERROR, "scanobjects argument is required for the start action");
        goto out;
    }
    if (!json_is_array(objs)) {
        rpc_error(req, RPC_TYPE_ERROR, "JSON value of type %s is not of expected type array",
                  rpc_json_type_name(objs));
        goto out;
    }
    size_t i;
    json_t *o;
    json_array_foreach(objs, i, o)
    {
        if (eval_scan_object(req, o, &s.needles, &s.n, &cap)) {
            goto out;
        }
    }
    qsort(s.needles, s.n, sizeof(*s.needles), needle_cmp);
    atomic_store(&scan_abort, 0);
    atomic_store(&scan_progress, 0);
    struct validator_job j = {.work = VALIDATOR_CALL, .fn = scan_job, .ctx = &s};
    int rc = validator_run(req->ctx->node->val, &j);
    if (rc || (s.rc && s.rc != RC_STOPPED)) {
        rpc_error(req, RPC_INTERNAL_ERROR, "Unable to read UTXO set (%s)", rc_str(rc ? rc : s.rc));
        goto out;
    }
    qsort(s.found, s.nfound, sizeof(*s.found), found_cmp);
    r = json_object();
    json_object_set_new(r, "success", json_boolean(s.rc != RC_STOPPED));
    json_object_set_new(r, "txouts", json_integer((json_int_t)s.count));
    json_object_set_new(r, "height", json_integer(s.height));
    json_object_set_new(r, "bestblock", rpc_hash_json(s.tip));
    json_t *u = json_array();
    int64_t total = 0;
    chainstate_read_lock(req->ctx->node->cs);
    struct block_index *tip = block_tree_find(chainstate_tree(req->ctx->node->cs), s.tip);
    for (size_t k = 0; k < s.nfound; k++) {
        struct found *f = &s.found[k];
        json_t *e = json_object();
        char *hx = hex_encode_alloc(f->c.script_pubkey.data, f->c.script_pubkey.len);
        json_object_set_new(e, "txid", rpc_hash_json(f->op.txid));
        json_object_set_new(e, "vout", json_integer(f->op.n));
        json_object_set_new(e, "scriptPubKey", json_string(hx));
        free(hx);
        json_object_set_new(e, "desc", json_string(f->n->desc));
        json_object_set_new(e, "amount", rpc_json_amount(f->c.value_sat));
        json_object_set_new(e, "coinbase", json_boolean(f->c.coinbase));
        json_object_set_new(e, "height", json_integer(f->c.height));
        struct block_index *b = tip ? block_index_ancestor(tip, (int32_t)f->c.height) : NULL;
        json_object_set_new(e, "blockhash", b ? rpc_hash_json(b->hash) : json_string(""));
        json_object_set_new(e, "confirmations", json_integer(s.height - (int32_t)f->c.height + 1));
        total += f->c.value_sat;
        json_array_append_new(u, e);
    }
    chainstate_read_unlock(req->ctx->node->cs);
    json_object_set_new(r, "unspents", u);
    json_object_set_new(r, "total_amount", rpc_json_amount(total));
out:
    for (size_t k = 0; k < s.n; k++) {
        free(s.needles[k].spk);
        free(s.needles[k].desc);
    }
    free(s.needles);
    for (size_t k = 0; k < s.nfound; k++) {
        coin_clear(&s.found[k].c);
    }
    free(s.found);
    atomic_store(&scan_running, 0);
    return r;
}

/* ---- scanblocks: the block filter index searched for the scripts of descriptors ---- */

static int needle_has(const struct needle *v, size_t n, const struct bytes *spk)
{
    struct needle key = {.spk = spk->data, .len = spk->len};
    return bsearch(&key, v, n, sizeof(*v), needle_cmp) != NULL;
}

/* Core's CheckBlockFilterMatches: whether the block of e really has one of the scripts (an
 * output's, or a spent one's) rather than a false positive of its filter. */
static int block_matches(struct chainstate *cs, const struct block_index *e, const struct needle *v,
                         size_t n)
{
    struct buf raw;
    struct block b;
    struct block_undo u;
    char err[128];
    int hit = 0;
    buf_init(&raw);
    block_init(&b);
    block_undo_init(&u);
    if (chainstate_read_block(cs, e, &raw) == RC_OK &&
        block_parse(&b, raw.data, raw.len, err, sizeof(err)) == RC_OK &&
        (e->height == 0 || chainstate_read_undo(cs, e, &u) == RC_OK)) {
        for (size_t t = 0; t < b.tx_count && !hit; t++) {
            for (size_t o = 0; o < b.txs[t].vout_count && !hit; o++) {
                hit = needle_has(v, n, &b.txs[t].vout[o].script_pubkey);
            }
        }
        for (size_t t = 0; t < u.n && !hit; t++) {
            for (size_t i = 0; i < u.txs[t].n && !hit; i++) {
                hit = needle_has(v, n, &u.txs[t].prev[i].script_pubkey);
            }
        }
    }
    block_undo_clear(&u);
    block_clear(&b);
    buf_clear(&raw);
    return hit;
}

struct block_scan {
    struct needle *needles;
    size_t n;
    struct bytes *q; /* the needles as the filter matcher takes them */
    int false_positives_out;
    int32_t from, to; /* heights */
};

/* Scans the active chain's blocks from..to through the index, in chunks of Core's 10,000
 * read under the chain lock; appends the hex hashes of the matching blocks to out. Returns
 * the last height scanned (below from when aborted at once). */
static int32_t scan_filters(struct rpc_request *req, struct block_scan *sc, json_t *out)
{
    struct rpc_context *ctx = req->ctx;
    struct chainstate *cs = ctx->node->cs;
    struct buf f;
    buf_init(&f);
    int32_t done = sc->from - 1;
    while (done < sc->to && !atomic_load(&ctx->scanblocks_abort)) {
        int32_t end = done + 10000 < sc->to ? done + 10000 : sc->to;
        size_t k = (size_t)(end - done);
        struct block_index *chunk = xmalloc(k * sizeof(*chunk));
        chainstate_read_lock(cs);
        for (size_t i = 0; i < k; i++) {
            chunk[i] = *chainstate_at_height(cs, done + 1 + (int32_t)i);
        }
        chainstate_read_unlock(cs);
        for (size_t i = 0; i < k; i++) {
            uint8_t header[32];
            struct gcs_params p;
            int match = 0;
            buf_reset(&f);
            atomic_store(&ctx->scanblocks_height, chunk[i].height);
            if (blockfilter_index_lookup(ctx->node->blockfilters, chunk[i].hash, &f, header)) {
                continue; /* not indexed (yet): as Core, the block is passed over */
            }
            blockfilter_basic_params(chunk[i].hash, &p);
            if (gcs_match_any(&p, f.data, f.len, sc->q, sc->n, &match) != RC_OK || !match ||
                (sc->false_positives_out && !block_matches(cs, &chunk[i], sc->needles, sc->n))) {
                continue;
            }
            json_array_append_new(out, rpc_hash_json(chunk[i].hash));
        }
        free(chunk);
        done = end;
        int total = sc->to - sc->from;
        atomic_store(&ctx->scanblocks_progress,
                     total > 0 ? (int)(100.0 * (done - sc->from) / total) : 100);
    }
    buf_clear(&f);
    return done;
}

/* The heights of a start: 0 with sc->from / sc->to, or -1 after Core's error. */
static int scan_range(struct rpc_request *req, struct block_scan *sc)
{
    struct chainstate *cs = req->ctx->node->cs;
    chainstate_read_lock(cs);
    struct block_index *tip = chainstate_tip(cs);
    int64_t from = rpc_param(req, 2) ? rpc_arg_int(req, 2) : 0;
    int64_t to = rpc_param(req, 3) ? rpc_arg_int(req, 3) : (tip ? tip->height : -1);
    int top = tip ? tip->height : -1;
    chainstate_read_unlock(cs);
    if (from < 0 || from > top) {
        rpc_error(req, RPC_MISC_ERROR, "Invalid start_height");
        return -1;
    }
    if (to < from || to > top) {
        rpc_error(req, RPC_MISC_ERROR, "Invalid stop_height");
        return -1;
    }
    sc->from = (int32_t)from;
    sc->to = (int32_t)to;
    return 0;
}

static json_t *scanblocks_start(struct rpc_request *req)
{
    json_t *objs = rpc_param(req, 1);
    if (!objs) {
        return rpc_error(req, RPC_MISC_ERROR,
                         "scanobjects argument is required for the start action");
    }
    if (!rpc_blockfilter_index(req, json_string_value(rpc_param(req, 4)))) {
        return NULL;
    }
    json_t *options = rpc_param(req, 5);
    struct block_scan sc = {.false_positives_out =
                                options &&
                                json_is_true(json_object_get(options, "filter_false_positives"))};
    size_t cap = 0, i;
    json_t *o, *r = NULL;
    if (scan_range(req, &sc)) {
        return NULL;
    }
    json_array_foreach(objs, i, o)
    {
        if (eval_scan_object(req, o, &sc.needles, &sc.n, &cap)) {
            goto out;
        }
    }
    qsort(sc.needles, sc.n, sizeof(*sc.needles), needle_cmp);
    sc.q = xmalloc((sc.n ? sc.n : 1) * sizeof(*sc.q));
    for (size_t k = 0; k < sc.n; k++) {
        sc.q[k] = (struct bytes){sc.needles[k].spk, sc.needles[k].len};
    }
    atomic_store(&req->ctx->scanblocks_abort, 0);
    atomic_store(&req->ctx->scanblocks_progress, 0);
    atomic_store(&req->ctx->scanblocks_height, sc.from);
    json_t *blocks = json_array();
    int32_t done = scan_filters(req, &sc, blocks);
    r = json_object();
    json_object_set_new(r, "from_height", json_integer(sc.from));
    json_object_set_new(r, "to_height", json_integer(done < sc.from ? sc.from : done));
    json_object_set_new(r, "relevant_blocks", blocks);
    json_object_set_new(r, "completed", json_boolean(done == sc.to));
out:
    for (size_t k = 0; k < sc.n; k++) {
        free(sc.needles[k].spk);
        free(sc.needles[k].desc);
    }
    free(sc.needles);
    free(sc.q);
    return r;
}

static json_t *rpc_scanblocks(struct rpc_request *req)
{
    struct rpc_context *ctx = req->ctx;
    const char *action = json_string_value(rpc_param(req, 0));
    if (strcmp(action, "status") == 0) {
        if (!atomic_load(&ctx->scanblocks_running)) {
            return json_null();
        }
        return json_pack("{s:i,s:i}", "progress", atomic_load(&ctx->scanblocks_progress),
                         "current_height", atomic_load(&ctx->scanblocks_height));
    }
    if (strcmp(action, "abort") == 0) {
        if (!atomic_load(&ctx->scanblocks_running)) {
            return json_false();
        }
        atomic_store(&ctx->scanblocks_abort, 1);
        return json_true();
    }
    if (strcmp(action, "start") != 0) {
        return rpc_error(req, RPC_INVALID_PARAMETER, "Invalid action '%s'", action);
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&ctx->scanblocks_running, &expected, 1)) {
        return rpc_error(req, RPC_INVALID_PARAMETER,
                         "Scan already in progress, use action \"abort\" or \"status\"");
    }
    json_t *r = scanblocks_start(req);
    atomic_store(&ctx->scanblocks_running, 0);
    return r;
}

/* The two arguments scantxoutset and scanblocks share (Core's scan_action_arg_desc and
 * scan_objects_arg_desc). */
#define SCAN_ACTION_ARG                                                                            \
    {                                                                                              \
        .names = "action", .type = RPC_ARG_STR,                                                    \
        .description = "The action to execute\n\"start\" for starting a scan\n\"abort\" for "      \
                       "aborting the current scan (returns true when abort was successful)\n"      \
                       "\"status\" for progress report (in %) of the current scan"                 \
    }
#define SCAN_OBJECTS_ARG                                                                           \
    {                                                                                              \
        .names = "scanobjects", .type = RPC_ARG_ARR, .fallback = RPC_ARG_OMITTED,                  \
        .description = "Array of scan objects. Required for \"start\" action\nEvery scan object "  \
                       "is either a string descriptor or an object:",                              \
        .skip_type_check = true, .oneline = "[scanobjects,...]",                                   \
        .inner = RPC_LIST(                                                                         \
            struct rpc_arg,                                                                        \
            {.names = "descriptor",                                                                \
             .type = RPC_ARG_STR,                                                                  \
             .fallback = RPC_ARG_OMITTED,                                                          \
             .description = "An output descriptor"},                                               \
            {.names = "",                                                                          \
             .type = RPC_ARG_OBJ,                                                                  \
             .fallback = RPC_ARG_OMITTED,                                                          \
             .description = "An object with output descriptor and metadata",                       \
             .inner = RPC_LIST(struct rpc_arg,                                                     \
                               {.names = "desc",                                                   \
                                .type = RPC_ARG_STR,                                               \
                                .description = "An output descriptor"},                            \
                               {.names = "range",                                                  \
                                .type = RPC_ARG_RANGE,                                             \
                                .fallback = RPC_ARG_DEFAULT,                                       \
                                .default_value = "1000",                                           \
                                .description = "The range of HD chain indexes to explore (either " \
                                               "end or [begin,end])"})})                           \
    }

#define RES(t, k, d) {.type = t, .key = k, .description = d}
#define ABORT_RESULT                                                                               \
    {.type = RPC_RES_BOOL,                                                                         \
     .cond = "when action=='abort'",                                                               \
     .description = "True if scan will be aborted (not necessarily before this RPC returns), or "  \
                    "false if there is no scan to abort"}
#define IDLE_RESULT                                                                                \
    {.type = RPC_RES_NONE,                                                                         \
     .cond = "when action=='status' and no scan is in progress - possibly already completed"}

/* Core's scantxoutset results. */
static const struct rpc_result unspent_fields[] = {
    RES(RPC_RES_STR_HEX, "txid", "The transaction id"),
    RES(RPC_RES_NUM, "vout", "The vout value"),
    RES(RPC_RES_STR_HEX, "scriptPubKey", "The output script"),
    RES(RPC_RES_STR, "desc", "A specialized descriptor for the matched output script"),
    RES(RPC_RES_STR_AMOUNT, "amount", "The total amount in BTC of the unspent output"),
    RES(RPC_RES_BOOL, "coinbase", "Whether this is a coinbase output"),
    RES(RPC_RES_NUM, "height", "Height of the unspent transaction output"),
    RES(RPC_RES_STR_HEX, "blockhash", "Blockhash of the unspent transaction output"),
    RES(RPC_RES_NUM, "confirmations",
        "Number of confirmations of the unspent transaction output when the scan was done"),
};

static const struct rpc_result scantxoutset_results[] = {
    {.type = RPC_RES_OBJ,
     .cond = "when action=='start'; only returns after scan completes",
     .inner = RPC_LIST(
         struct rpc_result, RES(RPC_RES_BOOL, "success", "Whether the scan was completed"),
         RES(RPC_RES_NUM, "txouts", "The number of unspent transaction outputs scanned"),
         RES(RPC_RES_NUM, "height", "The block height at which the scan was done"),
         RES(RPC_RES_STR_HEX, "bestblock", "The hash of the block at the tip of the chain"),
         {.type = RPC_RES_ARR,
          .key = "unspents",
          .inner = RPC_LIST(struct rpc_result,
                            {.type = RPC_RES_OBJ,
                             .inner = unspent_fields,
                             .n_inner = sizeof(unspent_fields) / sizeof(unspent_fields[0])})},
         RES(RPC_RES_STR_AMOUNT, "total_amount",
             "The total amount of all found unspent outputs in BTC"))},
    ABORT_RESULT,
    {.type = RPC_RES_OBJ,
     .cond = "when action=='status' and a scan is currently in progress",
     .inner = RPC_LIST(struct rpc_result,
                       RES(RPC_RES_NUM, "progress", "Approximate percent complete"))},
    IDLE_RESULT,
};

/* Core's scanblocks results. */
static const struct rpc_result scanblocks_results[] = {
    IDLE_RESULT,
    {.type = RPC_RES_OBJ,
     .cond = "When action=='start'; only returns after scan completes",
     .inner = RPC_LIST(
         struct rpc_result, RES(RPC_RES_NUM, "from_height", "The height we started the scan from"),
         RES(RPC_RES_NUM, "to_height", "The height we ended the scan at"),
         {.type = RPC_RES_ARR,
          .key = "relevant_blocks",
          .description = "Blocks that may have matched a scanobject.",
          .inner = RPC_LIST(struct rpc_result,
                            RES(RPC_RES_STR_HEX, "", "A relevant blockhash"))},
         RES(RPC_RES_BOOL, "completed", "true if the scan process was not aborted"))},
    {.type = RPC_RES_OBJ,
     .cond = "when action=='status' and a scan is currently in progress",
     .inner = RPC_LIST(struct rpc_result,
                       RES(RPC_RES_NUM, "progress", "Approximate percent complete"),
                       RES(RPC_RES_NUM, "current_height",
                           "Height of the block currently being scanned"))},
    ABORT_RESULT,
};

static const struct rpc_method methods[] = {
    {.category = "blockchain",
     .name = "scantxoutset",
     .handler = rpc_scantxoutset,
     .description =
         "Scans the unspent transaction output set for entries that match certain output "
         "descriptors.\nExamples of output descriptors are:\n"
         "    addr(<address>)                      Outputs whose output script corresponds to the "
         "specified address (does not include P2PK)\n"
         "    raw(<hex script>)                    Outputs whose output script equals the "
         "specified hex-encoded bytes\n"
         "    combo(<pubkey>)                      P2PK, P2PKH, P2WPKH, and P2SH-P2WPKH outputs "
         "for the given pubkey\n"
         "    pkh(<pubkey>)                        P2PKH outputs for the given pubkey\n"
         "    sh(multi(<n>,<pubkey>,<pubkey>,...)) P2SH-multisig outputs for the given threshold "
         "and pubkeys\n"
         "    tr(<pubkey>)                         P2TR\n"
         "    tr(<pubkey>,{pk(<pubkey>)})          P2TR with single fallback pubkey in tapscript\n"
         "    rawtr(<pubkey>)                      P2TR with the specified key as output key "
         "rather than inner\n"
         "\nIn the above, <pubkey> either refers to a fixed public key in hexadecimal notation, "
         "or to an xpub/xprv optionally followed by one\nor more path elements separated by "
         "\"/\", and optionally ending in \"/*\" (unhardened), or \"/*'\" or \"/*h\" (hardened) "
         "to specify all\nunhardened or hardened child keys.\nIn the latter case, a range needs "
         "to be specified by below if different from 1000.\nFor more information on output "
         "descriptors, see the documentation in the doc/descriptors.md file.\n",
     .args = RPC_LIST(struct rpc_arg, SCAN_ACTION_ARG, SCAN_OBJECTS_ARG),
     .results = scantxoutset_results,
     .n_results = sizeof(scantxoutset_results) / sizeof(scantxoutset_results[0]),
     .examples =
         RPC_EXAMPLE_CLI("scantxoutset",
                         "start '[\"raw(76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac)#fm24fxxy\"]'")
             RPC_EXAMPLE_CLI("scantxoutset", "status") RPC_EXAMPLE_CLI("scantxoutset", "abort")
                 RPC_EXAMPLE_RPC("scantxoutset",
                                 "\"start\", [\"raw(76a91411b366edfc0a8b66feebae5c2e25a7b6a5d1cf3188ac)#fm24fxxy\"]")
                     RPC_EXAMPLE_RPC("scantxoutset", "\"status\"")
                         RPC_EXAMPLE_RPC("scantxoutset", "\"abort\"")},
    {.category = "blockchain",
     .name = "scanblocks",
     .handler = rpc_scanblocks,
     .description = "Return relevant blockhashes for given descriptors (requires "
                    "blockfilterindex).\nThis call may take several minutes. Make sure to use no "
                    "RPC timeout (bitnode-cli -rpcclienttimeout=0)\n",
     .args = RPC_LIST(
         struct rpc_arg, SCAN_ACTION_ARG, SCAN_OBJECTS_ARG,
         {.names = "start_height",
          .type = RPC_ARG_NUM,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "0",
          .description = "Height to start to scan from",
          .conv = RPC_CONV_INT},
         {.names = "stop_height",
          .type = RPC_ARG_NUM,
          .fallback = RPC_ARG_DEFAULT_HINT,
          .default_value = "chain tip",
          .description = "Height to stop to scan",
          .conv = RPC_CONV_INT},
         {.names = "filtertype",
          .type = RPC_ARG_STR,
          .fallback = RPC_ARG_DEFAULT,
          .default_value = "\"basic\"",
          .description = "The type name of the filter"},
         {.names = "options",
          .type = RPC_ARG_OBJ_NAMED_PARAMS,
          .fallback = RPC_ARG_OMITTED,
          .description = "",
          .oneline = "options",
          .inner = RPC_LIST(struct rpc_arg,
                            {.names = "filter_false_positives",
                             .type = RPC_ARG_BOOL,
                             .fallback = RPC_ARG_DEFAULT,
                             .default_value = "false",
                             .description = "Filter false positives (slower and may fail on "
                                            "pruned nodes). Otherwise they may occur at a rate "
                                            "of 1/M"})}),
     .results = scanblocks_results,
     .n_results = sizeof(scanblocks_results) / sizeof(scanblocks_results[0]),
     .examples =
         RPC_EXAMPLE_CLI("scanblocks",
                         "start '[\"addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)\"]' 300000")
             RPC_EXAMPLE_CLI("scanblocks", "start '[\"addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)"
                                           "\"]' 100 150 basic")
                 RPC_EXAMPLE_CLI("scanblocks", "status")
                     RPC_EXAMPLE_RPC("scanblocks",
                                     "\"start\", [\"addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)\"], "
                                     "300000")
                         RPC_EXAMPLE_RPC("scanblocks",
                                         "\"start\", [\"addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)"
                                         "\"], 100, 150, \"basic\"")
                             RPC_EXAMPLE_RPC("scanblocks", "\"status\"")},
};

void rpc_scan_register(struct rpc_context *ctx)
{
    rpc_register(ctx, methods, sizeof(methods) / sizeof(methods[0]));
}
