/* Compact block relay (BIP152 version 2, Core's net_processing side of it): sendcmpct after
 * the handshake, up to three peers asked for high-bandwidth announcements (the last ones that
 * gave us a new tip first), new tips announced as cmpctblock to the peers that asked us,
 * cmpctblock reconstructed from the pool (getblocktxn for what is missing, the full block when
 * reconstruction fails), and getdata(MSG_CMPCT_BLOCK) / getblocktxn served for recent blocks.
 * The codecs and the reconstruction are cmpct.c's. Net thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mempool/mempool.h"
#include "net/cmpct.h"
#include "net/cmpctrelay.h"
#include "net/net_impl.h"
#include "net/peer_sync.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#define SHORT_IDS_BLOCKS_VERSION 70014
#define MAX_CMPCTBLOCK_DEPTH 5
#define MAX_BLOCKTXN_DEPTH 10
#define MAX_HB_PEERS 3

struct cmpct_peer {
    int provides;                  /* it sent sendcmpct version 2: it understands cmpctblock */
    int wants_hb;                  /* it asked us to announce new blocks as cmpctblock */
    int asked_hb;                  /* we asked it to announce to us as cmpctblock */
    struct cmpct_partial *partial; /* a block waiting for its blocktxn */
    uint8_t partial_hash[32];
};

struct cmpctrelay {
    struct net *net;              /* the transport: peers and sends */
    struct chainstate *cs;        /* borrowed: the tree and the block store */
    const struct chain_params *p; /* segwit's height, for a rebuilt block */
    struct mempool *mp;           /* borrowed: the candidates of a rebuild (NULL: none) */
    int blocks_only;              /* -blocksonly: never ask for high-bandwidth announcements */
    struct cmpctrelay_sink sink;  /* where a rebuilt block and an unconnected header go */
    /* The peers asked for high-bandwidth announcements, oldest first. */
    int64_t hb[MAX_HB_PEERS];
    size_t n_hb;
    /* The cmpctblock of the latest block announced. */
    struct buf cache;
    uint8_t cache_hash[32];
    int cache_valid;
};

int cmpctrelay_new(struct cmpctrelay **out, struct net *n, struct chainstate *cs,
                   struct mempool *mp, int blocks_only, const struct cmpctrelay_sink *sink)
{
    struct cmpctrelay *c = xcalloc(1, sizeof(*c));
    c->net = n;
    c->cs = cs;
    c->p = chainstate_params(cs);
    c->mp = mp;
    c->blocks_only = blocks_only;
    c->sink = *sink;
    buf_init(&c->cache);
    *out = c;
    return RC_OK;
}

void cmpctrelay_free(struct cmpctrelay *c)
{
    if (!c) {
        return;
    }
    buf_clear(&c->cache);
    free(c);
}

static struct cmpct_peer *state(struct peer *p)
{
    if (!p->ps->cmpct) {
        p->ps->cmpct = xcalloc(1, sizeof(*p->ps->cmpct));
    }
    return p->ps->cmpct;
}

static void send_sendcmpct(struct peer *p, int announce)
{
    struct buf b;
    buf_init(&b);
    cmpct_sendcmpct_serialize(&b, announce, CMPCT_VERSION);
    net_send(p, "sendcmpct", &b);
    buf_clear(&b);
}

void cmpctrelay_on_verack(struct peer *p)
{
    if (p->ps->ver.version >= SHORT_IDS_BLOCKS_VERSION) {
        send_sendcmpct(p, 0);
    }
}

void cmpctrelay_peer_gone(struct cmpctrelay *c, struct peer *p)
{
    if (p->ps->cmpct) {
        cmpct_partial_free(p->ps->cmpct->partial);
        free(p->ps->cmpct);
        p->ps->cmpct = NULL;
    }
    for (size_t i = 0; i < c->n_hb;) {
        if (c->hb[i] == p->id) {
            memmove(&c->hb[i], &c->hb[i + 1], (c->n_hb - i - 1) * sizeof(c->hb[0]));
            c->n_hb--;
        } else {
            i++;
        }
    }
}

void cmpctrelay_on_sendcmpct(struct peer *p, const uint8_t *d, size_t len)
{
    int announce;
    uint64_t version;
    char err[128];
    if (cmpct_sendcmpct_parse(d, len, &announce, &version, err, sizeof(err)) != RC_OK) {
        if (strstr(err, "announce")) {
            net_misbehaving(p, "invalid sendcmpct announce field");
        }
        return;
    }
    if (version != CMPCT_VERSION) {
        return; /* only version 2 (wtxid short ids) is spoken; others are ignored (Core) */
    }
    struct cmpct_peer *cp = state(p);
    cp->provides = 1;
    cp->wants_hb = announce;
}

void cmpctrelay_peer_hb(const struct peer *p, int *to, int *from)
{
    *to = p->ps->cmpct && p->ps->cmpct->asked_hb;
    *from = p->ps->cmpct && p->ps->cmpct->wants_hb;
}

static int is_outbound_id(struct cmpctrelay *c, int64_t id)
{
    struct peer *q = net_find_peer(c->net, id);
    return q && q->conn_type != CONN_INBOUND;
}

void cmpctrelay_block_from_peer(struct cmpctrelay *c, struct peer *p)
{
    /* With -blocksonly the pool cannot rebuild a cmpctblock: never ask for them. */
    if (c->blocks_only || !p->ps->cmpct || !p->ps->cmpct->provides) {
        return;
    }
    int outbound_hb = 0;
    for (size_t i = 0; i < c->n_hb; i++) {
        if (c->hb[i] == p->id) {
            /* Already one: moved to the back (the most recent). */
            memmove(&c->hb[i], &c->hb[i + 1], (c->n_hb - i - 1) * sizeof(c->hb[0]));
            c->hb[c->n_hb - 1] = p->id;
            return;
        }
        outbound_hb += is_outbound_id(c, c->hb[i]);
    }
    /* An inbound peer coming in does not push out the last outbound one: that one moves
     * to the second slot, and the first goes instead. */
    if (p->conn_type == CONN_INBOUND && c->n_hb >= MAX_HB_PEERS && outbound_hb == 1 &&
        is_outbound_id(c, c->hb[0])) {
        int64_t t = c->hb[0];
        c->hb[0] = c->hb[1];
        c->hb[1] = t;
    }
    if (c->n_hb >= MAX_HB_PEERS) {
        struct peer *old = net_find_peer(c->net, c->hb[0]);
        if (old && old->ps->cmpct) {
            send_sendcmpct(old, 0);
            old->ps->cmpct->asked_hb = 0;
        }
        memmove(&c->hb[0], &c->hb[1], (c->n_hb - 1) * sizeof(c->hb[0]));
        c->n_hb--;
    }
    c->hb[c->n_hb++] = p->id;
    send_sendcmpct(p, 1);
    p->ps->cmpct->asked_hb = 1;
}

/* The cmpctblock of e (its data read from the store), cached for the tip: every
 * high-bandwidth peer gets the same one. Chain read lock held. */
static int cmpct_of(struct cmpctrelay *c, struct block_index *e, struct buf *out)
{
    if (c->cache_valid && memcmp(c->cache_hash, e->hash, 32) == 0) {
        buf_append(out, c->cache.data, c->cache.len);
        return RC_OK;
    }
    struct buf raw;
    struct block b;
    char err[128];
    buf_init(&raw);
    block_init(&b);
    int rc = chainstate_read_block(c->cs, e, &raw);
    if (rc == RC_OK) {
        rc = block_parse(&b, raw.data, raw.len, err, sizeof(err));
    }
    if (rc == RC_OK) {
        struct cmpct_block cb;
        uint8_t rnd[8];
        random_bytes(rnd, sizeof(rnd));
        cmpct_block_init(&cb);
        rc = cmpct_block_from_block(&cb, &b, rd_u64le(rnd));
        if (rc == RC_OK) {
            buf_reset(&c->cache);
            rc = cmpct_block_serialize(&c->cache, &cb);
        }
        cmpct_block_clear(&cb);
        if (rc == RC_OK) {
            memcpy(c->cache_hash, e->hash, 32);
            c->cache_valid = 1;
            buf_append(out, c->cache.data, c->cache.len);
        }
    }
    block_clear(&b);
    buf_clear(&raw);
    return rc;
}

int cmpctrelay_announce(struct cmpctrelay *c, struct peer *p, struct block_index *tip)
{
    if (!p->ps->cmpct || !p->ps->cmpct->provides || !p->ps->cmpct->wants_hb) {
        return 0;
    }
    struct buf b;
    buf_init(&b);
    int ok = cmpct_of(c, tip, &b) == RC_OK;
    if (ok) {
        net_send(p, "cmpctblock", &b);
    }
    buf_clear(&b);
    return ok;
}

int cmpctrelay_serve(struct cmpctrelay *c, struct peer *p, const struct net_inv *iv)
{
    struct block_index *tip = chainstate_tip(c->cs);
    struct block_index *e = block_tree_find(chainstate_tree(c->cs), iv->hash);
    /* Recent blocks only (Core: within MAX_CMPCTBLOCK_DEPTH of the tip); others go whole. */
    if (!e || !tip || !chainstate_contains(c->cs, e) ||
        tip->height - e->height >= MAX_CMPCTBLOCK_DEPTH || !p->ps->cmpct || !p->ps->cmpct->provides) {
        return 0;
    }
    struct buf b;
    buf_init(&b);
    int ok = cmpct_of(c, e, &b) == RC_OK;
    if (ok) {
        net_send(p, "cmpctblock", &b);
    }
    buf_clear(&b);
    return ok;
}

/* Hands a reconstructed block to the block path (as if it had come in a block message). */
static void process_block(struct cmpctrelay *c, struct peer *p, const struct block *b)
{
    struct buf raw;
    buf_init(&raw);
    block_serialize(b, &raw, 1);
    c->sink.block(c->sink.ctx, p, raw.data, raw.len);
    buf_clear(&raw);
}

static void request_full_block(struct peer *p, const uint8_t hash[32])
{
    struct net_inv iv = {.type = INV_WITNESS_BLOCK};
    memcpy(iv.hash, hash, 32);
    struct buf b;
    buf_init(&b);
    net_inv_serialize(&b, &iv, 1);
    net_send(p, "getdata", &b);
    buf_clear(&b);
}

static void log_reconstructed(struct peer *p, const uint8_t hash[32],
                              const struct cmpct_partial *pb, size_t requested)
{
    struct cmpct_counts k;
    char hx[65];
    cmpct_partial_counts(pb, &k);
    hex_encode_rev(hx, hash, 32);
    /* Core's line (PartiallyDownloadedBlock::FillBlock), in its category. */
    LOG(LOG_CAT_CMPCTBLOCK, LOG_LVL_DEBUG,
        "Successfully reconstructed block %s with %zu txn prefilled, %zu txn from mempool (incl "
        "at least %zu from extra pool) and %zu txn requested, peer=%lld",
        hx, k.prefilled, k.mempool + k.extra, k.extra, requested, (long long)p->id);
}

/* Fills p's partial block with missing[0..n) and processes the block, or falls back to the
 * full block. */
static void fill_and_process(struct cmpctrelay *c, struct peer *p, const struct tx *missing,
                             size_t n_missing)
{
    struct cmpct_peer *cp = p->ps->cmpct;
    enum cmpct_status st;
    struct block b;
    char err[160];
    uint8_t hash[32];
    memcpy(hash, cp->partial_hash, 32);
    block_init(&b);
    chainstate_read_lock(c->cs);
    const struct block_header *h = cmpct_partial_header(cp->partial, NULL);
    struct block_index *parent = h ? block_tree_find(chainstate_tree(c->cs), h->prev_hash) : NULL;
    int segwit = parent && parent->height + 1 >= c->p->segwit_height;
    chainstate_read_unlock(c->cs);
    struct cmpct_partial *pb = cp->partial;
    cp->partial = NULL;
    int rc = cmpct_partial_fill(pb, &st, &b, missing, n_missing, segwit, err, sizeof(err));
    if (rc == RC_OK && st == CMPCT_OK) {
        log_reconstructed(p, hash, pb, n_missing);
        process_block(c, p, &b);
    } else if (rc == RC_OK && st == CMPCT_INVALID) {
        net_misbehaving(p, "invalid compact block/non-matching block transactions");
    } else {
        LOG(LOG_CAT_CMPCTBLOCK, LOG_LVL_DEBUG,
            "compact block reconstruction failed (%s), asking peer=%lld for the block", err,
            (long long)p->id);
        request_full_block(p, hash);
    }
    block_clear(&b);
    cmpct_partial_free(pb);
}

void cmpctrelay_on_cmpctblock(struct cmpctrelay *c, struct peer *p, const uint8_t *d, size_t len)
{
    struct cmpct_block cb;
    char err[160];
    cmpct_block_init(&cb);
    int rc = cmpct_block_parse(&cb, d, len, err, sizeof(err));
    if (rc == RC_INVALID) {
        cmpct_block_clear(&cb);
        net_misbehaving(p, "invalid compact block");
        return;
    }
    if (rc != RC_OK) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "malformed cmpctblock from peer=%lld: %s", (long long)p->id,
            err);
        cmpct_block_clear(&cb);
        return;
    }
    chainstate_read_lock(c->cs);
    struct block_tree *tree = chainstate_tree(c->cs);
    struct block_index *known = block_tree_find(tree, cb.hash);
    struct block_index *parent = block_tree_find(tree, cb.header.prev_hash);
    struct block_index *tip = chainstate_tip(c->cs);
    int have = known && (known->status & BLOCK_HAVE_DATA);
    int failed = known && block_index_failed(known);
    chainstate_read_unlock(c->cs);
    if (have || failed) {
        cmpct_block_clear(&cb);
        return;
    }
    if (!parent) {
        /* The header does not connect: ask for the headers, as for an unconnecting
         * announcement. */
        c->sink.headers_wanted(c->sink.ctx, p, cb.hash);
        cmpct_block_clear(&cb);
        return;
    }
    /* Not next to the tip (Core reconstructs up to two blocks past it): the whole block. */
    if (!tip || parent->height + 1 > tip->height + 2) {
        request_full_block(p, cb.hash);
        cmpct_block_clear(&cb);
        return;
    }
    struct cmpct_peer *cp = state(p);
    cmpct_partial_free(cp->partial);
    cp->partial = cmpct_partial_new();
    memcpy(cp->partial_hash, cb.hash, 32);
    enum cmpct_status st = CMPCT_FAILED;
    /* The pool's transactions are the candidates (borrowed under its read lock). */
    struct mempool *mp = c->mp;
    struct cmpct_candidate *cand = NULL;
    size_t nc = 0;
    if (mp) {
        mempool_read_lock(mp);
        struct mempool_entry *const *v = mempool_entries(mp, &nc);
        cand = xmalloc((nc ? nc : 1) * sizeof(*cand));
        for (size_t i = 0; i < nc; i++) {
            memcpy(cand[i].wtxid, v[i]->tx.wtxid, 32);
            cand[i].tx = &v[i]->tx;
            cand[i].raw = NULL;
            cand[i].raw_len = 0;
        }
    }
    rc = cmpct_partial_init(cp->partial, &st, &cb, cand, nc, NULL, 0, err, sizeof(err));
    if (mp) {
        mempool_read_unlock(mp);
    }
    free(cand);
    cmpct_block_clear(&cb);
    if (rc != RC_OK || st == CMPCT_FAILED) {
        cmpct_partial_free(cp->partial);
        cp->partial = NULL;
        request_full_block(p, cp->partial_hash);
        return;
    }
    if (st == CMPCT_INVALID) {
        cmpct_partial_free(cp->partial);
        cp->partial = NULL;
        net_misbehaving(p, "invalid compact block");
        return;
    }
    struct cmpct_getblocktxn req;
    cmpct_getblocktxn_init(&req);
    cmpct_partial_getblocktxn(cp->partial, &req);
    if (req.count == 0) {
        cmpct_getblocktxn_clear(&req);
        fill_and_process(c, p, NULL, 0); /* everything was in the pool: no round trip */
        return;
    }
    struct buf b;
    buf_init(&b);
    if (cmpct_getblocktxn_serialize(&b, &req) == RC_OK) {
        net_send(p, "getblocktxn", &b);
    }
    buf_clear(&b);
    cmpct_getblocktxn_clear(&req);
}

void cmpctrelay_on_blocktxn(struct cmpctrelay *c, struct peer *p, const uint8_t *d, size_t len)
{
    struct cmpct_blocktxn bt;
    char err[160];
    cmpct_blocktxn_init(&bt);
    if (cmpct_blocktxn_parse(&bt, d, len, err, sizeof(err)) != RC_OK) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "malformed blocktxn from peer=%lld: %s", (long long)p->id,
            err);
        cmpct_blocktxn_clear(&bt);
        return;
    }
    struct cmpct_peer *cp = p->ps->cmpct;
    if (!cp || !cp->partial || memcmp(cp->partial_hash, bt.block_hash, 32) != 0) {
        /* Not asked for (Core ignores it). */
        cmpct_blocktxn_clear(&bt);
        return;
    }
    fill_and_process(c, p, bt.txs, bt.count);
    cmpct_blocktxn_clear(&bt);
}

void cmpctrelay_on_getblocktxn(struct cmpctrelay *c, struct peer *p, const uint8_t *d, size_t len)
{
    struct cmpct_getblocktxn req;
    char err[160];
    cmpct_getblocktxn_init(&req);
    if (cmpct_getblocktxn_parse(&req, d, len, err, sizeof(err)) != RC_OK) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "malformed getblocktxn from peer=%lld: %s",
            (long long)p->id, err);
        cmpct_getblocktxn_clear(&req);
        return;
    }
    chainstate_read_lock(c->cs);
    struct block_index *tip = chainstate_tip(c->cs);
    struct block_index *e = block_tree_find(chainstate_tree(c->cs), req.block_hash);
    if (!e || !(e->status & BLOCK_HAVE_DATA)) {
        chainstate_read_unlock(c->cs);
        cmpct_getblocktxn_clear(&req);
        return;
    }
    int recent =
        tip && chainstate_contains(c->cs, e) && tip->height - e->height < MAX_BLOCKTXN_DEPTH;
    struct buf raw;
    buf_init(&raw);
    int rc = chainstate_read_block(c->cs, e, &raw);
    chainstate_read_unlock(c->cs);
    if (rc != RC_OK) {
        buf_clear(&raw);
        cmpct_getblocktxn_clear(&req);
        return;
    }
    if (!recent) {
        /* Too deep for a blocktxn: the whole block (Core). */
        net_send(p, "block", &raw);
    } else {
        struct block b;
        block_init(&b);
        if (block_parse(&b, raw.data, raw.len, err, sizeof(err)) == RC_OK) {
            struct buf out;
            buf_init(&out);
            if (cmpct_blocktxn_serialize_from_block(&out, &b, &req, err, sizeof(err)) == RC_OK) {
                net_send(p, "blocktxn", &out);
            } else {
                net_misbehaving(p, "getblocktxn with out-of-bounds tx indices");
            }
            buf_clear(&out);
        }
        block_clear(&b);
    }
    buf_clear(&raw);
    cmpct_getblocktxn_clear(&req);
}
