/* Compact block relay (BIP152 version 2, Core's net_processing side of it): sendcmpct after
 * the handshake, up to three peers asked for high-bandwidth announcements (the last ones that
 * gave us a new tip first), new tips announced as cmpctblock to the peers that asked us,
 * cmpctblock reconstructed from the pool (getblocktxn for what is missing, the full block when
 * reconstruction fails), and getdata(MSG_CMPCT_BLOCK) / getblocktxn served for recent blocks.
 * The codecs and the reconstruction are cmpct.c's. Net thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/arith256.h"
#include "consensus/pow.h"
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
#define MAX_CMPCT_PER_BLOCK 3 /* peers rebuilding one block at once */

struct cmpct_peer {
    int provides;                  /* it sent sendcmpct version 2: it understands cmpctblock */
    int wants_hb;                  /* it asked us to announce new blocks as cmpctblock */
    int asked_hb;                  /* we asked it to announce to us as cmpctblock */
    struct cmpct_partial *partial; /* a block waiting for its blocktxn */
    uint8_t partial_hash[32];      /* its hash, kept after it failed */
    int partial_failed;            /* partial_hash's rebuild failed: the full block was asked */
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

int cmpctrelay_provides(const struct cmpctrelay *c, const struct peer *p)
{
    return !c->blocks_only && p->ps->cmpct && p->ps->cmpct->provides;
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
        tip->height - e->height > MAX_CMPCTBLOCK_DEPTH || !p->ps->cmpct || !p->ps->cmpct->provides) {
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
    struct net_inv iv = {.type = (p->ps->ver.services & NODE_WITNESS) ? INV_WITNESS_BLOCK : INV_BLOCK};
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
        c->sink.in_flight(c->sink.ctx, p, hash, 0);
        net_misbehaving(p, "invalid compact block/non-matching block transactions");
    } else {
        LOG(LOG_CAT_CMPCTBLOCK, LOG_LVL_DEBUG,
            "compact block reconstruction failed (%s), asking peer=%lld for the block", err,
            (long long)p->id);
        cp->partial_failed = 1; /* a second blocktxn for it is a protocol violation */
        request_full_block(p, hash);
    }
    block_clear(&b);
    cmpct_partial_free(pb);
}

/* 1 if p has hash in flight (we asked it for that block). */
static int requested_from(const struct peer *p, const uint8_t hash[32])
{
    for (const struct inflight *b = p->ps->inflight; b; b = b->next) {
        if (memcmp(b->hash, hash, 32) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Core's first filters of a cmpctblock: 1 if it is to be looked at, else logged. */
static int cmpct_acceptable(struct cmpctrelay *c, struct peer *p)
{
    if (c->blocks_only) {
        LOG(LOG_CAT_CMPCTBLOCK, LOG_LVL_DEBUG,
            "peer=%lld sent us a compact block even though we are blocksonly!", (long long)p->id);
        return 0;
    }
    if (!p->ps->cmpct || !p->ps->cmpct->provides) {
        LOG(LOG_CAT_CMPCTBLOCK, LOG_LVL_DEBUG,
            "peer=%lld sent us a compact block despite never having sent us a SENDCMPCT!",
            (long long)p->id);
        return 0;
    }
    return 1;
}

/* Where p stands among the peers rebuilding one block (Core's parallel compact block
 * downloads: up to three, the last slot kept for an outbound peer). */
struct cmpct_slot {
    int track;      /* counted as in flight from p */
    int first;      /* p was asked first (or nobody was): a failed rebuild asks p for the block */
    int round_trip; /* missing transactions are asked of p */
};

/* Fills *slot for p's cmpctblock of hash; 0 if p is not to rebuild it at all. */
static int slot_of(struct cmpctrelay *c, struct peer *p, const uint8_t hash[32],
                   struct cmpct_slot *slot)
{
    size_t others = 0;
    int outbound = 0, earlier = 0;
    int64_t mine = -1;
    for (const struct inflight *b = p->ps->inflight; b; b = b->next) {
        if (memcmp(b->hash, hash, 32) == 0) {
            mine = b->time_us;
        }
    }
    for (struct peer *q = c->net->peers; q; q = q->next) {
        for (const struct inflight *b = q == p || !q->ps ? NULL : q->ps->inflight; b; b = b->next) {
            if (memcmp(b->hash, hash, 32) == 0) {
                others++;
                outbound |= q->conn_type != CONN_INBOUND;
                earlier |= mine < 0 || b->time_us < mine;
            }
        }
    }
    size_t already = others + (mine >= 0);
    memset(slot, 0, sizeof(*slot));
    if (mine < 0 && (already >= MAX_CMPCT_PER_BLOCK || p->ps->n_inflight >= NET_MAX_BLOCKS_IN_FLIGHT)) {
        return 0; /* only a rebuild without a round trip */
    }
    slot->track = 1;
    slot->first = !earlier;
    slot->round_trip = slot->first ||
                       (p->ps->cmpct->asked_hb && (p->conn_type != CONN_INBOUND || outbound ||
                                                   already < MAX_CMPCT_PER_BLOCK - 1));
    return 1;
}

/* Starts rebuilding cb (a block next to the tip) from the pool: p's partial block, in
 * flight from p; getblocktxn for what is missing, the full block when it cannot be rebuilt. */
static void start_partial(struct cmpctrelay *c, struct peer *p, const struct cmpct_block *cb,
                          const struct cmpct_slot *slot)
{
    char err[160];
    struct cmpct_peer *cp = state(p);
    cmpct_partial_free(cp->partial);
    cp->partial = cmpct_partial_new();
    cp->partial_failed = 0;
    memcpy(cp->partial_hash, cb->hash, 32);
    if (slot->track) {
        c->sink.in_flight(c->sink.ctx, p, cb->hash, 1);
    }
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
    int rc = cmpct_partial_init(cp->partial, &st, cb, cand, nc, NULL, 0, err, sizeof(err));
    if (mp) {
        mempool_read_unlock(mp);
    }
    free(cand);
    if (rc != RC_OK || st == CMPCT_FAILED) {
        /* The first asked: still in flight from p, now as the full block; the others wait
         * for it (Core). */
        cmpct_partial_free(cp->partial);
        cp->partial = NULL;
        if (slot->first) {
            request_full_block(p, cb->hash);
        } else if (slot->track) {
            c->sink.in_flight(c->sink.ctx, p, cb->hash, 0);
        }
        return;
    }
    if (st == CMPCT_INVALID) {
        cmpct_partial_free(cp->partial);
        cp->partial = NULL;
        c->sink.in_flight(c->sink.ctx, p, cb->hash, 0);
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
    if (!slot->round_trip) {
        /* Given up for this peer: the others deliver it. */
        cmpct_getblocktxn_clear(&req);
        cmpct_partial_free(cp->partial);
        cp->partial = NULL;
        if (slot->track) {
            c->sink.in_flight(c->sink.ctx, p, cb->hash, 0);
        }
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

/* What the chain says of a cmpctblock (chain read lock taken here). */
struct cmpct_view {
    int have, failed, known, connects, low_work, not_better, too_far;
};

/* The tip's height as Core would have it when it reads a peer's next cmpctblock: Core
 * connects a block before it reads the next message, so the blocks of a burst come to it
 * each one past its tip. Here they are connected on the validation thread, so the tip counts
 * as far as parent when parent and its ancestors down to the active chain are stored or on
 * their way (at most 1024 looked at). Chain read lock held. */
static int32_t near_tip_height(struct cmpctrelay *c, struct block_index *parent,
                               struct block_index *tip)
{
    struct block_index *w = parent;
    for (int n = 0; w && n < 1024 && !chainstate_contains(c->cs, w); n++) {
        if (!(w->status & BLOCK_HAVE_DATA) && !c->sink.processing(c->sink.ctx, w->hash)) {
            return tip->height;
        }
        w = w->prev;
    }
    return w && chainstate_contains(c->cs, w) && parent->height > tip->height ? parent->height
                                                                              : tip->height;
}

static void view_of(struct cmpctrelay *c, const struct cmpct_block *cb, struct cmpct_view *v)
{
    memset(v, 0, sizeof(*v));
    chainstate_read_lock(c->cs);
    struct block_tree *tree = chainstate_tree(c->cs);
    struct block_index *known = block_tree_find(tree, cb->hash);
    struct block_index *parent = block_tree_find(tree, cb->header.prev_hash);
    struct block_index *tip = chainstate_tip(c->cs);
    v->known = known != NULL;
    v->have = known && (known->status & BLOCK_HAVE_DATA);
    v->failed = known && block_index_failed(known);
    v->connects = parent != NULL;
    if (parent) {
        struct u256 proof, work;
        pow_block_proof(&proof, cb->header.bits);
        u256_add(&work, &parent->chain_work, &proof);
        v->low_work = c->sink.low_work(c->sink.ctx, parent, &cb->header);
        v->not_better = tip && u256_cmp(&work, &tip->chain_work) <= 0;
        /* Core rebuilds up to two blocks past the tip. */
        v->too_far = !tip || parent->height + 1 > near_tip_height(c, parent, tip) + 2;
    }
    chainstate_read_unlock(c->cs);
}

/* Core's handling of a cmpctblock that passed the first filters: its header is taken (as a
 * headers message of one), then it is rebuilt when it was asked of p or p is a
 * high-bandwidth announcer, it has more work than the tip and is near it. */
static void handle_cmpct(struct cmpctrelay *c, struct peer *p, const struct cmpct_block *cb)
{
    struct cmpct_view v;
    view_of(c, cb, &v);
    if (!v.connects) {
        /* The header does not connect: ask for the headers, as for an unconnecting
         * announcement. */
        c->sink.headers_wanted(c->sink.ctx, p, cb->hash);
        return;
    }
    if (v.low_work) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Ignoring low-work compact block from peer %lld",
            (long long)p->id);
        return;
    }
    if (!v.known) {
        uint8_t raw[80];
        block_header_serialize(&cb->header, raw);
        c->sink.header(c->sink.ctx, p, raw);
    }
    if (v.have || v.failed) {
        return;
    }
    int requested = requested_from(p, cb->hash);
    if (!requested && !p->ps->cmpct->asked_hb) {
        LOG(LOG_CAT_CMPCTBLOCK, LOG_LVL_DEBUG,
            "peer=%lld, not marked as high-bandwidth, sent us an unsolicited compact block!",
            (long long)p->id);
        return;
    }
    struct cmpct_peer *cp = p->ps->cmpct;
    if (requested && cp->partial && memcmp(cp->partial_hash, cb->hash, 32) == 0) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Peer sent us compact block we were already syncing!");
        return;
    }
    if (v.not_better || v.too_far) {
        /* The pool will not help: the whole block if we asked p for it; an announcement
         * is left to its header. */
        if (requested) {
            request_full_block(p, cb->hash);
        }
        return;
    }
    struct cmpct_slot slot;
    if (!slot_of(c, p, cb->hash, &slot)) {
        /* Others fetch it: only a rebuild from the pool alone, nothing asked (Core). */
        memset(&slot, 0, sizeof(slot));
    }
    start_partial(c, p, cb, &slot);
}

void cmpctrelay_on_cmpctblock(struct cmpctrelay *c, struct peer *p, const uint8_t *d, size_t len)
{
    struct cmpct_block cb;
    char err[160];
    if (!cmpct_acceptable(c, p)) {
        return;
    }
    cmpct_block_init(&cb);
    int rc = cmpct_block_parse(&cb, d, len, err, sizeof(err));
    if (rc == RC_INVALID) {
        net_misbehaving(p, "invalid compact block");
    } else if (rc != RC_OK) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "malformed cmpctblock from peer=%lld: %s", (long long)p->id,
            err);
    } else {
        handle_cmpct(c, p, &cb);
    }
    cmpct_block_clear(&cb);
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
    if (cp && !cp->partial && cp->partial_failed &&
        memcmp(cp->partial_hash, bt.block_hash, 32) == 0 && requested_from(p, bt.block_hash)) {
        /* Core keeps the failed rebuild to refuse a second try. */
        cp->partial_failed = 0;
        c->sink.in_flight(c->sink.ctx, p, bt.block_hash, 0);
        net_misbehaving(p, "previous compact block reconstruction attempt failed");
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Peer %lld sent compact block transactions multiple times",
            (long long)p->id);
        cmpct_blocktxn_clear(&bt);
        return;
    }
    if (!cp || !cp->partial || memcmp(cp->partial_hash, bt.block_hash, 32) != 0 ||
        !requested_from(p, bt.block_hash)) {
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
    if (req.count == 0) {
        /* No legitimate reason to send none (Core). */
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "getblocktxn received with no transaction indexes, disconnecting peer=%lld",
            (long long)p->id);
        net_peer_disconnect(p, "getblocktxn without indexes");
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
    /* Up to MAX_BLOCKTXN_DEPTH below the tip's height, on any chain (Core). */
    int recent = tip && e->height >= tip->height - MAX_BLOCKTXN_DEPTH;
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
