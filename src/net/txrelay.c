/* Transaction relay (Bitcoin Core's TxDownloadManager, orphanage and inventory trickle, in
 * the measure a node without bloom filters needs): announcements of transactions by wtxid to
 * peers that sent wtxidrelay (by txid to the others), each requested from one announcer at a
 * time and from the next after a minute; received transactions accepted on the validation
 * thread; orphans held in a bounded pool until a parent arrives; new transactions announced
 * to each peer on a Poisson timer (2 s outbound, 5 s inbound), filtered by its feefilter, and
 * our own feefilter sent as the pool's minimum fee changes. Net thread only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "crypto/siphash.h"
#include "mempool/accept.h"
#include "mempool/mempool.h"
#include "net/net_impl.h"
#include "net/peer_sync.h"
#include "net/txrelay.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#define INBOUND_INV_INTERVAL_US (5 * 1000000LL)
#define OUTBOUND_INV_INTERVAL_US (2 * 1000000LL)
#define GETDATA_TX_INTERVAL_US (60 * 1000000LL)
#define MAX_PEER_TX_REQUEST_IN_FLIGHT 100
#define MAX_PEER_TX_ANNOUNCEMENTS 5000
#define MAX_INV_SZ 50000
#define MAX_ORPHANS 100
#define ORPHAN_EXPIRE_S (20 * 60)
#define KNOWN_GENERATION 25000 /* entries per generation of a rolling set */
#define REJECTS_GENERATION 60000
#define MAX_ANNOUNCERS 8
#define FEEFILTER_INTERVAL_US (10 * 60 * 1000000LL)
#define MAX_FEEFILTER_CHANGE_DELAY_US (5 * 60 * 1000000LL)
#define MAX_MONEY_SAT (21000000LL * 100000000LL)

/* A set of 32-byte hashes that forgets the oldest half when full (Core's
 * CRollingBloomFilter, exact instead of probabilistic): two generations of open-addressing
 * tables of 64-bit keyed hashes. */
struct rolling_set {
    uint64_t *gen[2];
    size_t n[2], cap; /* cap: slots per generation, a power of two */
    size_t limit;     /* entries per generation */
    uint64_t k0, k1;
};

static void rset_init(struct rolling_set *s, size_t limit)
{
    uint8_t salt[16];
    random_bytes(salt, sizeof(salt));
    memcpy(&s->k0, salt, 8);
    memcpy(&s->k1, salt + 8, 8);
    s->limit = limit;
    s->cap = 16;
    while (s->cap < limit * 2) {
        s->cap *= 2;
    }
    s->gen[0] = s->gen[1] = NULL;
    s->n[0] = s->n[1] = 0;
}

static void rset_clear(struct rolling_set *s)
{
    free(s->gen[0]);
    free(s->gen[1]);
    s->gen[0] = s->gen[1] = NULL;
    s->n[0] = s->n[1] = 0;
}

static uint64_t rset_key(const struct rolling_set *s, const uint8_t h[32])
{
    uint64_t k = siphash24_uint256(s->k0, s->k1, h);
    return k ? k : 1; /* 0 marks an empty slot */
}

static int rset_find(const uint64_t *t, size_t cap, uint64_t k)
{
    if (!t) {
        return 0;
    }
    for (size_t i = k & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (t[i] == k) {
            return 1;
        }
        if (t[i] == 0) {
            return 0;
        }
    }
}

static int rset_contains(const struct rolling_set *s, const uint8_t h[32])
{
    uint64_t k = rset_key(s, h);
    return rset_find(s->gen[0], s->cap, k) || rset_find(s->gen[1], s->cap, k);
}

static void rset_insert(struct rolling_set *s, const uint8_t h[32])
{
    uint64_t k = rset_key(s, h);
    if (rset_find(s->gen[0], s->cap, k) || rset_find(s->gen[1], s->cap, k)) {
        return;
    }
    if (s->n[0] >= s->limit) { /* the older generation goes */
        free(s->gen[1]);
        s->gen[1] = s->gen[0];
        s->n[1] = s->n[0];
        s->gen[0] = NULL;
        s->n[0] = 0;
    }
    if (!s->gen[0]) {
        s->gen[0] = xcalloc(s->cap, sizeof(uint64_t));
    }
    size_t i = k & (s->cap - 1);
    while (s->gen[0][i]) {
        i = (i + 1) & (s->cap - 1);
    }
    s->gen[0][i] = k;
    s->n[0]++;
}

struct txrelay_peer {
    struct rolling_set known; /* hashes the peer has or was told of */
    uint8_t (*queue)[32];     /* to announce at the next trickle: wtxids (txids for a peer
                                 without wtxidrelay) */
    size_t nq, capq;
    int64_t next_inv_us;
    int in_flight; /* our requests out to it */
    int64_t feefilter_sent;
    int64_t next_feefilter_us;
    uint64_t last_inv_sequence; /* the pool's entry sequence at our last trickle to it */
};

/* A transaction announced and not yet received. */
struct want {
    uint8_t hash[32];
    int by_wtxid;
    int64_t announcers[MAX_ANNOUNCERS];
    size_t n_announcers;
    int64_t asked_peer; /* -1: not asked yet */
    int64_t asked_us;
};

struct orphan {
    uint8_t *raw;
    size_t len;
    uint8_t txid[32], wtxid[32];
    struct outpoint *spends; /* its inputs */
    size_t n_spends;
    /* The peers it may come from (Core's announcers): its sender, then those that announced
     * it by wtxid while it waited. It goes when the last of them disconnects. */
    int64_t from[MAX_ANNOUNCERS];
    size_t n_from;
    int64_t expire;
};
_Static_assert(MAX_ANNOUNCERS <= NET_ORPHAN_MAX_FROM, "getorphantxs lists every announcer");

struct txrelay {
    struct net *net;       /* the transport: peers, sends, the clock, validator jobs */
    struct chainstate *cs; /* borrowed: initial block download, the pool's clock */
    struct mempool *mp;    /* borrowed: NULL without a pool */
    int blocks_only;       /* -blocksonly */
    struct want *wants;
    size_t nwants, capwants;
    struct rolling_set rejects;
    struct orphan orphans[MAX_ORPHANS];
    size_t norphans;
    int64_t next_orphan_sweep;
    int64_t next_rebroadcast_us; /* the next ReattemptInitialBroadcast (0: not scheduled) */
    uint64_t accepted, rejected; /* counters for the log */
};

/* A transaction job: the pool's answer travels back to the net thread with it. */
struct tx_job {
    struct net_job nj; /* first: the net's job list holds it as a net_job */
    struct tx tx;
    struct mempool_submit m;
    uint8_t txid[32], wtxid[32]; /* kept: tx moves into the pool when accepted */
    int is_orphan_retry;
    int64_t from[MAX_ANNOUNCERS]; /* a retried orphan's announcers, kept if it is one again */
    size_t n_from;
};

static int relay_enabled(const struct txrelay *r)
{
    return r->mp && !r->blocks_only;
}

static struct txrelay_peer *peer_state(struct peer *p)
{
    if (!p->ps->txr) {
        p->ps->txr = xcalloc(1, sizeof(*p->ps->txr));
        rset_init(&p->ps->txr->known, KNOWN_GENERATION);
        p->ps->txr->next_inv_us = 0;
        /* Core's m_last_inv_sequence starts at 1: before the first announcement the peer may
         * still fetch what came back from a disconnected block (entry sequence 0). */
        p->ps->txr->last_inv_sequence = 1;
    }
    return p->ps->txr;
}

int txrelay_new(struct txrelay **out, struct net *n, struct chainstate *cs, struct mempool *mp,
                int blocks_only)
{
    struct txrelay *r = xcalloc(1, sizeof(*r));
    r->net = n;
    r->cs = cs;
    r->mp = mp;
    r->blocks_only = blocks_only;
    rset_init(&r->rejects, REJECTS_GENERATION);
    *out = r;
    return RC_OK;
}

static void orphan_free(struct orphan *o)
{
    free(o->raw);
    free(o->spends);
    memset(o, 0, sizeof(*o));
}

void txrelay_free(struct txrelay *r)
{
    if (!r) {
        return;
    }
    for (size_t i = 0; i < r->norphans; i++) {
        orphan_free(&r->orphans[i]);
    }
    rset_clear(&r->rejects);
    free(r->wants);
    free(r);
}

void txrelay_peer_gone(struct txrelay *r, struct peer *p)
{
    if (r) {
        /* Its announcements go; what was asked of it may be asked of another. */
        for (size_t i = 0; i < r->nwants;) {
            struct want *w = &r->wants[i];
            for (size_t k = 0; k < w->n_announcers;) {
                if (w->announcers[k] == p->id) {
                    w->announcers[k] = w->announcers[--w->n_announcers];
                } else {
                    k++;
                }
            }
            if (w->asked_peer == p->id) {
                w->asked_peer = -1;
            }
            if (w->n_announcers == 0) {
                r->wants[i] = r->wants[--r->nwants];
            } else {
                i++;
            }
        }
        for (size_t i = 0; i < r->norphans;) {
            struct orphan *o = &r->orphans[i];
            for (size_t k = 0; k < o->n_from;) {
                if (o->from[k] == p->id) {
                    memmove(&o->from[k], &o->from[k + 1], (o->n_from - k - 1) * sizeof(o->from[0]));
                    o->n_from--;
                } else {
                    k++;
                }
            }
            if (o->n_from == 0) {
                orphan_free(&r->orphans[i]);
                r->orphans[i] = r->orphans[--r->norphans];
                memset(&r->orphans[r->norphans], 0, sizeof(struct orphan));
            } else {
                i++;
            }
        }
    }
    if (p->ps->txr) {
        rset_clear(&p->ps->txr->known);
        free(p->ps->txr->queue);
        free(p->ps->txr);
        p->ps->txr = NULL;
    }
}

/* Whether the node has the transaction already (in the pool, rejected lately, an orphan). */
static int already_have(struct txrelay *r, const uint8_t h[32], int by_wtxid)
{
    if (rset_contains(&r->rejects, h)) {
        return 1;
    }
    for (size_t i = 0; i < r->norphans; i++) {
        if (memcmp(by_wtxid ? r->orphans[i].wtxid : r->orphans[i].txid, h, 32) == 0) {
            return 1;
        }
    }
    mempool_read_lock(r->mp);
    int have = (by_wtxid ? mempool_get_wtxid(r->mp, h) : mempool_get(r->mp, h)) != NULL;
    mempool_read_unlock(r->mp);
    return have;
}

static struct want *find_want(struct txrelay *r, const uint8_t h[32])
{
    for (size_t i = 0; i < r->nwants; i++) {
        if (memcmp(r->wants[i].hash, h, 32) == 0) {
            return &r->wants[i];
        }
    }
    return NULL;
}

static void drop_want(struct txrelay *r, const uint8_t h[32])
{
    for (size_t i = 0; i < r->nwants; i++) {
        if (memcmp(r->wants[i].hash, h, 32) == 0) {
            struct peer *p =
                r->wants[i].asked_peer >= 0 ? net_find_peer(r->net, r->wants[i].asked_peer) : NULL;
            if (p && p->ps->txr && p->ps->txr->in_flight > 0) {
                p->ps->txr->in_flight--;
            }
            r->wants[i] = r->wants[--r->nwants];
            return;
        }
    }
}

static void send_getdata_tx(struct peer *p, const uint8_t h[32], int by_wtxid)
{
    struct net_inv iv;
    iv.type = by_wtxid ? INV_WTX : (INV_TX | INV_WITNESS_FLAG);
    memcpy(iv.hash, h, 32);
    struct buf b;
    buf_init(&b);
    net_inv_serialize(&b, &iv, 1);
    net_send(p, "getdata", &b);
    buf_clear(&b);
}

/* Asks for every wanted transaction nobody is asked for (or whose request timed out). */
static void request_wants(struct txrelay *r)
{
    int64_t now = net_now_us(r->net);
    for (size_t i = 0; i < r->nwants;) {
        struct want *w = &r->wants[i];
        if (w->asked_peer >= 0 && now - w->asked_us < GETDATA_TX_INTERVAL_US) {
            i++;
            continue;
        }
        if (w->asked_peer >= 0) {
            /* Timed out: that announcer is done with. */
            struct peer *old = net_find_peer(r->net, w->asked_peer);
            if (old && old->ps->txr && old->ps->txr->in_flight > 0) {
                old->ps->txr->in_flight--;
            }
            for (size_t k = 0; k < w->n_announcers; k++) {
                if (w->announcers[k] == w->asked_peer) {
                    w->announcers[k] = w->announcers[--w->n_announcers];
                    break;
                }
            }
            w->asked_peer = -1;
        }
        struct peer *best = NULL;
        for (size_t k = 0; k < w->n_announcers && !best; k++) {
            struct peer *p = net_find_peer(r->net, w->announcers[k]);
            if (p && !p->disconnect && p->ps->txr &&
                p->ps->txr->in_flight < MAX_PEER_TX_REQUEST_IN_FLIGHT) {
                best = p;
            }
        }
        if (!best) {
            if (w->n_announcers == 0) {
                r->wants[i] = r->wants[--r->nwants];
                continue;
            }
            i++;
            continue;
        }
        send_getdata_tx(best, w->hash, w->by_wtxid);
        best->ps->txr->in_flight++;
        w->asked_peer = best->id;
        w->asked_us = now;
        i++;
    }
}

/* Asks p, by txid, for the inputs' parents the node lacks, as if p had announced them;
 * skip_wanted: leaves out the parents already wanted from someone. */
static void ask_parents(struct txrelay *r, struct peer *p, const struct outpoint *spends, size_t n,
                        int skip_wanted)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *parent = spends[i].txid;
        if (already_have(r, parent, 0) || (skip_wanted && find_want(r, parent))) {
            continue;
        }
        struct net_inv iv = {.type = INV_TX};
        memcpy(iv.hash, parent, 32);
        int wtx = p->ps->wtxid_relay;
        p->ps->wtxid_relay = 0; /* parents are asked for by txid */
        txrelay_on_inv(r, p, &iv);
        p->ps->wtxid_relay = wtx;
    }
}

/* An inv by wtxid of a transaction waiting as an orphan: unless all its parents came
 * meanwhile, the peer becomes one more it may come from and is asked for the parents still
 * missing (Core's orphan resolution candidate). 1 if wtxid is an orphan's. */
static int orphan_announced(struct txrelay *r, struct peer *p, const uint8_t wtxid[32])
{
    struct orphan *o = NULL;
    for (size_t i = 0; i < r->norphans && !o; i++) {
        if (memcmp(r->orphans[i].wtxid, wtxid, 32) == 0) {
            o = &r->orphans[i];
        }
    }
    if (!o) {
        return 0;
    }
    for (size_t k = 0; k < o->n_from; k++) {
        if (o->from[k] == p->id) {
            return 1;
        }
    }
    size_t missing = 0;
    for (size_t k = 0; k < o->n_spends; k++) {
        missing += !already_have(r, o->spends[k].txid, 0);
    }
    if (missing == 0 || o->n_from == MAX_ANNOUNCERS) {
        return 1;
    }
    o->from[o->n_from++] = p->id;
    ask_parents(r, p, o->spends, o->n_spends, 0);
    return 1;
}

void txrelay_on_inv(struct txrelay *r, struct peer *p, const struct net_inv *iv)
{
    uint32_t type = iv->type & ~INV_WITNESS_FLAG;
    int by_wtxid = type == INV_WTX;
    if (!relay_enabled(r) || p->conn_type == CONN_BLOCK_RELAY) {
        return;
    }
    /* A wtxidrelay peer announces by wtxid only, the others by txid only (Core). */
    if (by_wtxid != (p->ps->wtxid_relay != 0)) {
        return;
    }
    struct txrelay_peer *tp = peer_state(p);
    rset_insert(&tp->known, iv->hash);
    if (chainstate_in_ibd(r->cs) || (by_wtxid && orphan_announced(r, p, iv->hash)) ||
        already_have(r, iv->hash, by_wtxid)) {
        return;
    }
    struct want *w = find_want(r, iv->hash);
    if (!w) {
        if (r->nwants >= MAX_PEER_TX_ANNOUNCEMENTS * 4) {
            return;
        }
        if (r->nwants == r->capwants) {
            r->capwants = r->capwants ? r->capwants * 2 : 64;
            r->wants = xrealloc(r->wants, r->capwants * sizeof(*r->wants));
        }
        w = &r->wants[r->nwants++];
        memset(w, 0, sizeof(*w));
        memcpy(w->hash, iv->hash, 32);
        w->by_wtxid = by_wtxid;
        w->asked_peer = -1;
    }
    for (size_t k = 0; k < w->n_announcers; k++) {
        if (w->announcers[k] == p->id) {
            return;
        }
    }
    if (w->n_announcers < MAX_ANNOUNCERS) {
        w->announcers[w->n_announcers++] = p->id;
    }
    request_wants(r);
}

int txrelay_serve(struct txrelay *r, struct peer *p, const struct net_inv *iv)
{
    uint32_t type = iv->type & ~INV_WITNESS_FLAG;
    if (!r->mp) {
        return 0;
    }
    int with_witness = type == INV_WTX || (iv->type & INV_WITNESS_FLAG);
    struct buf out;
    buf_init(&out);
    mempool_read_lock(r->mp);
    struct mempool_entry *e =
        type == INV_WTX ? mempool_get_wtxid(r->mp, iv->hash) : mempool_get(r->mp, iv->hash);
    /* Core's info_for_relay: only what entered before our last announcement to the peer
     * (so a peer cannot learn of transactions we have not announced yet), and what came back
     * from a disconnected block. */
    struct txrelay_peer *tp = peer_state(p);
    if (e && e->sequence >= tp->last_inv_sequence) {
        e = NULL;
    }
    if (e) {
        if (with_witness) {
            buf_append(&out, e->raw, e->raw_len);
        } else {
            tx_serialize(&e->tx, &out, 0);
        }
    }
    mempool_read_unlock(r->mp);
    if (e) {
        net_send(p, "tx", &out);
        /* A peer asked for it: it is broadcast (Core's RemoveUnbroadcastTx). */
        mempool_unbroadcast_remove(r->mp, iv->hash);
        if (type == INV_WTX) {
            mempool_read_lock(r->mp);
            struct mempool_entry *w = mempool_get_wtxid(r->mp, iv->hash);
            uint8_t txid[32];
            int have = w != NULL;
            if (have) {
                memcpy(txid, w->tx.txid, 32);
            }
            mempool_read_unlock(r->mp);
            if (have) {
                mempool_unbroadcast_remove(r->mp, txid);
            }
        }
    }
    buf_clear(&out);
    return e != NULL;
}

/* Hands tx (moved into the job) to the pool; orphan: the orphan it is being retried as, or
 * NULL for a transaction just received. */
static void submit_tx(struct txrelay *r, int64_t peer_id, const uint8_t *raw, size_t len,
                      struct tx *tx, const struct orphan *orphan)
{
    struct tx_job *j = xcalloc(1, sizeof(*j));
    j->nj.peer_id = peer_id;
    j->nj.is_tx = 1;
    j->nj.data = xmalloc(len);
    memcpy(j->nj.data, raw, len);
    j->nj.len = len;
    j->tx = *tx;
    tx_init(tx);
    memcpy(j->nj.hash, j->tx.wtxid, 32);
    memcpy(j->txid, j->tx.txid, 32);
    memcpy(j->wtxid, j->tx.wtxid, 32);
    j->m.mp = r->mp;
    j->m.tx = &j->tx;
    j->m.args.now = chainstate_now(r->cs);
    j->is_orphan_retry = orphan != NULL;
    if (orphan) {
        memcpy(j->from, orphan->from, sizeof(j->from));
        j->n_from = orphan->n_from;
    }
    j->nj.job.work = VALIDATOR_CALL;
    j->nj.job.fn = mempool_accept_job;
    j->nj.job.ctx = &j->m;
    net_submit(r->net, &j->nj);
}

void txrelay_on_tx(struct txrelay *r, struct peer *p, const uint8_t *d, size_t len)
{
    char lid[32];
    if (!relay_enabled(r) || p->conn_type == CONN_BLOCK_RELAY) {
        if ((p->perms & NET_PERM_RELAY) != NET_PERM_RELAY || !r->mp) {
            snprintf(lid, sizeof(lid), "peer=%lld", (long long)p->id);
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
                "transaction sent in violation of protocol, disconnecting %s", lid);
            net_peer_disconnect(p, "transaction sent in violation of protocol");
            return;
        }
    }
    struct tx tx;
    char err[160];
    if (tx_deserialize(&tx, d, len, err, sizeof(err)) != RC_OK) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "malformed tx from peer=%lld: %s", (long long)p->id, err);
        return;
    }
    struct txrelay_peer *tp = peer_state(p);
    rset_insert(&tp->known, tx.txid);
    rset_insert(&tp->known, tx.wtxid);
    p->last_tx = net_now(r->net);
    drop_want(r, tx.wtxid);
    drop_want(r, tx.txid);
    if (already_have(r, tx.wtxid, 1) || already_have(r, tx.txid, 0)) {
        tx_clear(&tx);
        request_wants(r);
        return;
    }
    submit_tx(r, p->id, d, len, &tx, NULL);
    request_wants(r);
}

/* Queues a transaction in the pool for announcement to every peer that takes them, but the
 * one it came from. */
static void announce_to_all(struct txrelay *r, const uint8_t txid[32], const uint8_t wtxid[32],
                            int64_t except)
{
    for (struct peer *p = r->net->peers; p; p = p->next) {
        if (p->id == except || p->disconnect || !p->ps->handshake_done || !p->relay_txs ||
            p->conn_type == CONN_BLOCK_RELAY || p->conn_type == CONN_FEELER ||
            p->conn_type == CONN_ADDR_FETCH) {
            continue;
        }
        struct txrelay_peer *tp = peer_state(p);
        const uint8_t *h = p->ps->wtxid_relay ? wtxid : txid;
        if (rset_contains(&tp->known, h)) {
            continue;
        }
        if (tp->nq == tp->capq) {
            tp->capq = tp->capq ? tp->capq * 2 : 16;
            tp->queue = xrealloc(tp->queue, tp->capq * sizeof(*tp->queue));
        }
        memcpy(tp->queue[tp->nq++], h, 32);
    }
}

struct relay_call {
    struct txrelay *r;
    uint8_t txid[32], wtxid[32];
};

static void relay_call(struct net *n, void *ctx)
{
    (void)n;
    struct relay_call *c = ctx;
    announce_to_all(c->r, c->txid, c->wtxid, -1);
}

void txrelay_relay_transaction(struct txrelay *r, const uint8_t txid[32], const uint8_t wtxid[32])
{
    if (!relay_enabled(r)) {
        return;
    }
    struct relay_call c = {.r = r};
    memcpy(c.txid, txid, 32);
    memcpy(c.wtxid, wtxid, 32);
    (void)net_call(r->net, relay_call, &c);
}

/* The orphan whose transaction spends an output of txid, if any. */
static void retry_orphans_of(struct txrelay *r, const uint8_t txid[32])
{
    for (size_t i = 0; i < r->norphans;) {
        struct orphan *o = &r->orphans[i];
        int spends = 0;
        for (size_t k = 0; k < o->n_spends && !spends; k++) {
            spends = memcmp(o->spends[k].txid, txid, 32) == 0;
        }
        if (!spends) {
            i++;
            continue;
        }
        struct tx tx;
        if (tx_deserialize(&tx, o->raw, o->len, NULL, 0) == RC_OK) {
            submit_tx(r, o->from[0], o->raw, o->len, &tx, o);
        }
        orphan_free(o);
        r->orphans[i] = r->orphans[--r->norphans];
        memset(&r->orphans[r->norphans], 0, sizeof(struct orphan));
    }
}

static void add_orphan(struct txrelay *r, struct peer *p, struct tx_job *j)
{
    const struct tx *tx = &j->tx;
    /* A parent rejected lately: the orphan would be too (Core). */
    for (size_t i = 0; i < tx->vin_count; i++) {
        if (rset_contains(&r->rejects, tx->vin[i].prevout.txid)) {
            rset_insert(&r->rejects, tx->wtxid);
            return;
        }
    }
    if (tx_weight(tx) > 400000) {
        return; /* Core: orphans over the standard weight are not kept */
    }
    /* The peers it may come from: its sender, or the announcers of an orphan retried. Those
     * that left while the pool had it took their announcements along (Core's EraseForPeer);
     * with none left it is not kept. */
    const int64_t *cand = j->n_from ? j->from : &j->nj.peer_id;
    size_t n_cand = j->n_from ? j->n_from : 1, n_from = 0;
    int64_t from[MAX_ANNOUNCERS];
    for (size_t k = 0; k < n_cand; k++) {
        if (net_find_peer(r->net, cand[k])) {
            from[n_from++] = cand[k];
        }
    }
    if (n_from == 0) {
        return;
    }
    if (r->norphans == MAX_ORPHANS) {
        uint8_t rnd[8];
        random_bytes(rnd, sizeof(rnd));
        size_t victim = (size_t)(rd_u64le(rnd) % MAX_ORPHANS);
        orphan_free(&r->orphans[victim]);
        r->orphans[victim] = r->orphans[--r->norphans];
        memset(&r->orphans[r->norphans], 0, sizeof(struct orphan));
    }
    struct orphan *o = &r->orphans[r->norphans++];
    o->raw = xmalloc(j->nj.len);
    memcpy(o->raw, j->nj.data, j->nj.len);
    o->len = j->nj.len;
    memcpy(o->txid, tx->txid, 32);
    memcpy(o->wtxid, tx->wtxid, 32);
    o->n_spends = tx->vin_count;
    o->spends = xmalloc((tx->vin_count ? tx->vin_count : 1) * sizeof(*o->spends));
    for (size_t i = 0; i < tx->vin_count; i++) {
        o->spends[i] = tx->vin[i].prevout;
    }
    memcpy(o->from, from, n_from * sizeof(from[0]));
    o->n_from = n_from;
    o->expire = net_now(r->net) + ORPHAN_EXPIRE_S;
    /* Ask its sender for the parents we lack, by txid. */
    if (p) {
        ask_parents(r, p, o->spends, o->n_spends, 1);
    }
}

void txrelay_job_done(struct txrelay *r, struct net_job *nj)
{
    struct tx_job *j = (struct tx_job *)nj;
    struct peer *p = net_find_peer(r->net, nj->peer_id);
    const struct mempool_accept_result *res = &j->m.res;
    char txid[65];
    hex_encode_rev(txid, j->txid, 32);
    if (nj->job.rc == RC_OK && vstate_is_valid(&res->st)) {
        r->accepted++;
        LOG(LOG_CAT_MEMPOOL, LOG_LVL_DEBUG, "AcceptToMemoryPool: peer=%lld: accepted %s",
            (long long)nj->peer_id, txid);
        announce_to_all(r, j->txid, j->wtxid, nj->peer_id);
        retry_orphans_of(r, j->txid);
    } else if (nj->job.rc == RC_OK && res->kind == MEMPOOL_TX_MISSING_INPUTS) {
        add_orphan(r, p, j);
    } else if (nj->job.rc == RC_OK) {
        r->rejected++;
        LOG(LOG_CAT_MEMPOOL, LOG_LVL_DEBUG, "%s from peer=%lld was not accepted: %s%s%s", txid,
            (long long)nj->peer_id, res->st.reject, res->st.debug[0] ? ", " : "", res->st.debug);
        rset_insert(&r->rejects, j->wtxid);
        if (res->kind != MEMPOOL_TX_WITNESS_STRIPPED && res->kind != MEMPOOL_TX_WITNESS_MUTATED) {
            rset_insert(&r->rejects, j->txid);
        }
    }
    mempool_accept_result_clear(&j->m.res);
    tx_clear(&j->tx);
    free(nj->data);
    free(j);
}

/* Our fee filter for peers: the pool's minimum fee (the relay minimum at least), or MAX_MONEY
 * while in initial block download (Core). */
static int64_t our_feefilter(struct txrelay *r)
{
    if (chainstate_in_ibd(r->cs)) {
        return MAX_MONEY_SAT;
    }
    const struct mempool_options *o = mempool_options(r->mp);
    mempool_read_lock(r->mp);
    int64_t f = mempool_min_fee_at(r->mp, chainstate_now(r->cs));
    mempool_read_unlock(r->mp);
    return f > o->min_relay_feerate ? f : o->min_relay_feerate;
}

static int64_t poisson_us(int64_t avg_us)
{
    uint8_t rnd[8];
    random_bytes(rnd, sizeof(rnd));
    double u = ((double)(rd_u64le(rnd) >> 11) + 0.5) / 9007199254740992.0;
    return (int64_t)(-log(u) * (double)avg_us);
}

/* Sends the announcements queued for p, if its trickle timer is due. */
static void trickle(struct txrelay *r, struct peer *p, int64_t now)
{
    struct txrelay_peer *tp = peer_state(p);
    if (!(p->perms & NET_PERM_NOBAN) && now < tp->next_inv_us) {
        return;
    }
    if (now >= tp->next_inv_us) {
        tp->next_inv_us = now + poisson_us(p->conn_type == CONN_INBOUND ? INBOUND_INV_INTERVAL_US
                                                                        : OUTBOUND_INV_INTERVAL_US);
    }
    if (tp->nq == 0) {
        return;
    }
    struct net_inv *inv = xmalloc(tp->nq * sizeof(*inv));
    size_t k = 0;
    mempool_read_lock(r->mp);
    for (size_t i = 0; i < tp->nq; i++) {
        struct mempool_entry *e = p->ps->wtxid_relay ? mempool_get_wtxid(r->mp, tp->queue[i])
                                                 : mempool_get(r->mp, tp->queue[i]);
        if (!e || rset_contains(&tp->known, tp->queue[i])) {
            continue;
        }
        /* The peer's fee filter: it would not take it. */
        if (p->ps->feefilter > 0 && mempool_entry_modified_fee(e) * 1000 < p->ps->feefilter * e->vsize) {
            continue;
        }
        inv[k].type = p->ps->wtxid_relay ? INV_WTX : INV_TX;
        memcpy(inv[k].hash, tp->queue[i], 32);
        rset_insert(&tp->known, tp->queue[i]);
        k++;
    }
    mempool_read_unlock(r->mp);
    tp->nq = 0;
    mempool_read_lock(r->mp);
    tp->last_inv_sequence = mempool_next_entry_sequence(r->mp);
    mempool_read_unlock(r->mp);
    for (size_t off = 0; off < k; off += MAX_INV_SZ) {
        size_t m = k - off < MAX_INV_SZ ? k - off : MAX_INV_SZ;
        struct buf b;
        buf_init(&b);
        net_inv_serialize(&b, inv + off, m);
        net_send(p, "inv", &b);
        buf_clear(&b);
    }
    free(inv);
}

/* Core's MaybeSendFeefilter (without its FeeFilterRounder's privacy rounding). */
static void send_feefilter(struct txrelay *r, struct peer *p, int64_t now)
{
    struct txrelay_peer *tp = peer_state(p);
    if (p->conn_type == CONN_BLOCK_RELAY ||
        (p->perms & NET_PERM_FORCERELAY) == NET_PERM_FORCERELAY || p->ps->ver.version < 70013) {
        return;
    }
    int ibd = chainstate_in_ibd(r->cs);
    int64_t f = our_feefilter(r);
    if (!ibd && tp->feefilter_sent == MAX_MONEY_SAT) {
        tp->next_feefilter_us = 0; /* out of IBD: the real filter at once */
    }
    if (now > tp->next_feefilter_us) {
        if (f != tp->feefilter_sent) {
            struct buf b;
            buf_init(&b);
            buf_put_u64le(&b, (uint64_t)f);
            net_send(p, "feefilter", &b);
            buf_clear(&b);
            tp->feefilter_sent = f;
        }
        tp->next_feefilter_us = now + poisson_us(FEEFILTER_INTERVAL_US);
    } else if (now + MAX_FEEFILTER_CHANGE_DELAY_US < tp->next_feefilter_us &&
               (f < 3 * tp->feefilter_sent / 4 || f > 4 * tp->feefilter_sent / 3)) {
        /* A large change goes out within five minutes. */
        uint8_t rnd[8];
        random_bytes(rnd, sizeof(rnd));
        tp->next_feefilter_us = now + (int64_t)(rd_u64le(rnd) % MAX_FEEFILTER_CHANGE_DELAY_US);
    }
}

void txrelay_mock_scheduler(struct txrelay *r, int64_t delta_us)
{
    if (r && r->next_rebroadcast_us) {
        r->next_rebroadcast_us -= delta_us;
    }
}

void txrelay_tick(struct txrelay *r)
{
    if (!r->mp) {
        return;
    }
    int64_t now = net_now_us(r->net);
    if (net_now(r->net) >= r->next_orphan_sweep) {
        for (size_t i = 0; i < r->norphans;) {
            if (r->orphans[i].expire <= net_now(r->net)) {
                orphan_free(&r->orphans[i]);
                r->orphans[i] = r->orphans[--r->norphans];
                memset(&r->orphans[r->norphans], 0, sizeof(struct orphan));
            } else {
                i++;
            }
        }
        r->next_orphan_sweep = net_now(r->net) + 60;
    }
    request_wants(r);
    if (relay_enabled(r) && now >= r->next_rebroadcast_us) {
        /* Core's ReattemptInitialBroadcast: what no peer has asked for is announced again. */
        if (r->next_rebroadcast_us) {
            size_t nu;
            uint8_t(*ub)[32] = mempool_unbroadcast_list(r->mp, &nu);
            for (size_t i = 0; i < nu; i++) {
                mempool_read_lock(r->mp);
                struct mempool_entry *e = mempool_get(r->mp, ub[i]);
                uint8_t wtxid[32];
                int have = e != NULL;
                if (have) {
                    memcpy(wtxid, e->tx.wtxid, 32);
                }
                mempool_read_unlock(r->mp);
                if (have) {
                    /* To the peers that do not know it (new ones, mostly), as Core. */
                    announce_to_all(r, ub[i], wtxid, -1);
                } else {
                    mempool_unbroadcast_remove(r->mp, ub[i]);
                }
            }
            free(ub);
        }
        uint8_t rnd[8];
        random_bytes(rnd, sizeof(rnd));
        r->next_rebroadcast_us =
            now + 10 * 60 * 1000000LL + (int64_t)(rd_u64le(rnd) % (5 * 60 * 1000000ULL));
    }
    for (struct peer *p = r->net->peers; p; p = p->next) {
        if (p->disconnect || !p->ps->handshake_done) {
            continue;
        }
        if (relay_enabled(r) && p->relay_txs && p->conn_type != CONN_BLOCK_RELAY) {
            trickle(r, p, now);
        }
        if (relay_enabled(r)) {
            send_feefilter(r, p, now);
        }
    }
}

void txrelay_new_tip(struct txrelay *r)
{
    /* Core resets its recent-rejects filter on every new tip: a rejection may not hold. */
    rset_clear(&r->rejects);
}

void txrelay_on_mempool_msg(struct peer *p)
{
    /* No bloom filters offered: Core disconnects unless the peer has mempool permission
     * (which bitnode does not serve either) or noban. */
    if ((p->perms & NET_PERM_NOBAN) != NET_PERM_NOBAN) {
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "mempool request with bloom filters disabled, disconnecting peer=%lld",
            (long long)p->id);
        net_peer_disconnect(p, "mempool request with bloom filters disabled");
    }
}

void txrelay_orphans(struct txrelay *r, struct net_orphan **out, size_t *count)
{
    size_t n = r ? r->norphans : 0;
    *out = xcalloc(n ? n : 1, sizeof(**out));
    for (size_t i = 0; i < n; i++) {
        const struct orphan *o = &r->orphans[i];
        struct net_orphan *d = &(*out)[i];
        d->raw = xmalloc(o->len ? o->len : 1);
        memcpy(d->raw, o->raw, o->len);
        d->len = o->len;
        memcpy(d->from, o->from, o->n_from * sizeof(o->from[0]));
        d->n_from = o->n_from;
    }
    *count = n;
}
