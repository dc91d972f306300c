/* Transaction relay (Bitcoin Core's TxDownloadManager, orphanage and inventory trickle):
 * announcements of transactions by wtxid to peers that sent wtxidrelay (by txid to the
 * others), scheduled by the request tracker
 * (txrequest.h: delays for non-preferred peers, txid announcements and overloaded peers, one
 * request per transaction, the next announcer after a minute, a notfound or a disconnect);
 * received transactions accepted on the validation thread; orphans kept per announcing peer
 * within Core's limits until a parent arrives, their parents asked of each announcer; a
 * parent refused for its fee rate alone tried again with a child from the orphanage as a
 * 1-parent-1-child package (mempool/package.h); new transactions handed to the peers' queues
 * at the rate -txsendrate allows (invbucket.h: Core's backlog and token buckets), announced
 * to each peer on a Poisson timer (2 s outbound, 5 s inbound), filtered by its feefilter and
 * its BIP37 filter (bloomrelay.h), the pool announced at a BIP35 mempool message, and our
 * own feefilter sent as the pool's minimum fee changes (rounded to Core's
 * FeeFilterRounder buckets; its largest while in initial block download, when transactions
 * from peers are ignored). Net thread only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "crypto/siphash.h"
#include "mempool/accept.h"
#include "mempool/mempool.h"
#include "mempool/package.h"
#include "net/bloom.h"
#include "net/bloomrelay.h"
#include "net/invbucket.h"
#include "net/net_impl.h"
#include "net/orphanage.h"
#include "net/peer_sync.h"
#include "net/txrelay.h"
#include "net/txrequest.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

#define INBOUND_INV_INTERVAL_US (5 * 1000000LL)
#define OUTBOUND_INV_INTERVAL_US (2 * 1000000LL)
#define GETDATA_TX_INTERVAL_US (60 * 1000000LL)
#define NONPREF_PEER_TX_DELAY_US (2 * 1000000LL)
#define TXID_RELAY_DELAY_US (2 * 1000000LL)
#define OVERLOADED_PEER_TX_DELAY_US (2 * 1000000LL)
#define MAX_PEER_TX_REQUEST_IN_FLIGHT 100
#define MAX_PEER_TX_ANNOUNCEMENTS 5000
#define MAX_GETDATA_SZ 1000
#define MAX_INV_SZ 50000
#define RECENT_CONFIRMED_GENERATION 24000
#define KNOWN_GENERATION 25000 /* entries per generation of a rolling set */
#define REJECTS_GENERATION 60000
#define MAX_ANNOUNCERS ORPHANAGE_MAX_ANNOUNCERS
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
    int64_t feefilter_sent;
    int64_t next_feefilter_us;
    uint64_t last_inv_sequence; /* the pool's entry sequence at our last trickle to it */
    int send_mempool;           /* a mempool message (BIP35) waits for the next trickle */
};

_Static_assert(MAX_ANNOUNCERS <= NET_ORPHAN_MAX_FROM, "getorphantxs lists every announcer");

struct txrelay {
    struct net *net;       /* the transport: peers, sends, the clock, validator jobs */
    struct chainstate *cs; /* borrowed: initial block download, the pool's clock */
    struct mempool *mp;    /* borrowed: NULL without a pool */
    int blocks_only;       /* -blocksonly */
    struct txrequest *treq; /* announcements and requests (Core's TxRequestTracker) */
    struct invbucket *inv;  /* the announcements' rate limit and backlog (-txsendrate) */
    struct rolling_set rejects;
    struct rolling_set rejects_recon; /* refused alone for their fee rate only; packages
                                         refused (Core's reconsiderable rejects) */
    struct orphanage *orphans;
    struct rolling_set recent_confirmed; /* txids and wtxids of recent blocks' transactions */
    struct block_index *seen_tip;        /* the tip at the last txrelay_check_tip */
    struct block recent_block;           /* the tip's block, its transactions servable */
    int have_recent_block;
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
    /* A 1-parent-1-child package instead (Core's PackageToValidate): the parent is tx's
     * place above, unused; pk judges ptx[0] (the parent) and ptx[1] (a child from the
     * orphanage, announced by the same peer). */
    int is_package;
    struct mempool_package pk;
    struct tx ptx[2];
};

/* Core's RejectIncomingTxs: a block-relay-only or feeler connection may never send us
 * transactions, and under -blocksonly only a peer with the relay permission may. */
static int rejects_from(const struct txrelay *r, const struct peer *p)
{
    return p->conn_type == CONN_BLOCK_RELAY || p->conn_type == CONN_FEELER ||
           (r->blocks_only && (p->perms & NET_PERM_RELAY) != NET_PERM_RELAY);
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
                int blocks_only, unsigned tx_send_rate)
{
    struct txrelay *r = xcalloc(1, sizeof(*r));
    r->net = n;
    r->cs = cs;
    r->mp = mp;
    r->blocks_only = blocks_only;
    rset_init(&r->rejects, REJECTS_GENERATION);
    rset_init(&r->rejects_recon, REJECTS_GENERATION);
    rset_init(&r->recent_confirmed, RECENT_CONFIRMED_GENERATION);
    txrequest_new(&r->treq, 0);
    invbucket_new(&r->inv, tx_send_rate ? tx_send_rate : INVBUCKET_DEFAULT_RATE);
    orphanage_new(&r->orphans);
    *out = r;
    return RC_OK;
}

void txrelay_free(struct txrelay *r)
{
    if (!r) {
        return;
    }
    orphanage_free(r->orphans);
    rset_clear(&r->rejects);
    rset_clear(&r->rejects_recon);
    rset_clear(&r->recent_confirmed);
    txrequest_free(r->treq);
    invbucket_free(r->inv);
    block_clear(&r->recent_block);
    free(r);
}

void txrelay_peer_gone(struct txrelay *r, struct peer *p)
{
    if (r) {
        /* Its announcements go; what was asked of it may be asked of another. */
        txrequest_disconnected_peer(r->treq, p->id);
        orphanage_erase_for_peer(r->orphans, p->id);
    }
    if (p->ps->txr) {
        rset_clear(&p->ps->txr->known);
        free(p->ps->txr->queue);
        free(p->ps->txr);
        p->ps->txr = NULL;
    }
}

/* Looks for a child of the transaction raw (refused alone for its fee rate, from peer_id) in
 * the orphanage to try as a package with it (Core's Find1P1CPackage). tx: raw parsed (moved
 * from, left empty), or NULL to parse raw. */
static void try_1p1c(struct txrelay *r, int64_t peer_id, const uint8_t *raw, size_t len,
                     struct tx *tx);

/* Whether the node has the transaction already (Core's AlreadyHaveTx): an orphan, looked up
 * by wtxid only (a txid stands for the wtxid of a transaction without witness: a malleated
 * orphan must not hide the real one); rejected lately, or with with_recon refused for its
 * fee rate alone; in the pool. */
static int already_have(struct txrelay *r, const uint8_t h[32], int by_wtxid, int with_recon)
{
    if (orphanage_get(r->orphans, h) || (with_recon && rset_contains(&r->rejects_recon, h)) ||
        rset_contains(&r->recent_confirmed, h) || rset_contains(&r->rejects, h)) {
        return 1;
    }
    mempool_read_lock(r->mp);
    int have = (by_wtxid ? mempool_get_wtxid(r->mp, h) : mempool_get(r->mp, h)) != NULL;
    mempool_read_unlock(r->mp);
    return have;
}

/* Core's fPreferredDownload: outbound or noban, not an address fetch, serving blocks. */
static int preferred_peer(const struct peer *p)
{
    return (p->conn_type != CONN_INBOUND || (p->perms & NET_PERM_NOBAN) == NET_PERM_NOBAN) &&
           p->conn_type != CONN_ADDR_FETCH &&
           (p->ps->ver.services & (NODE_NETWORK | NODE_NETWORK_LIMITED)) != 0;
}

static int relay_permission(const struct peer *p)
{
    return (p->perms & NET_PERM_RELAY) == NET_PERM_RELAY;
}

/* Peers that relay by wtxid: while there is one, txid announcements wait (Core). */
static size_t wtxid_peers(const struct txrelay *r)
{
    size_t n = 0;
    for (struct peer *p = r->net->peers; p; p = p->next) {
        n += p->ps->handshake_done && p->ps->wtxid_relay;
    }
    return n;
}

/* When an announcement by p may be requested (Core's AddTxAnnouncement's delays). */
static int64_t request_time(struct txrelay *r, struct peer *p, int by_wtxid, int64_t now)
{
    int64_t t = now;
    if (!preferred_peer(p)) {
        t += NONPREF_PEER_TX_DELAY_US;
    }
    if (!by_wtxid && wtxid_peers(r) > 0) {
        t += TXID_RELAY_DELAY_US;
    }
    if (!relay_permission(p) &&
        txrequest_count_in_flight(r->treq, p->id) >= MAX_PEER_TX_REQUEST_IN_FLIGHT) {
        t += OVERLOADED_PEER_TX_DELAY_US;
    }
    return t;
}

/* The distinct parents of spends the node lacks (it may have refused one for its fee rate:
 * the orphan may pay for it): *out (caller frees), their count. */
static size_t missing_parents(struct txrelay *r, uint8_t (**out)[32], const struct outpoint *spends,
                              size_t n)
{
    *out = xmalloc((n ? n : 1) * sizeof(**out));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t m = 0; m < k && !dup; m++) {
            dup = memcmp((*out)[m], spends[i].txid, 32) == 0;
        }
        if (!dup && !already_have(r, spends[i].txid, 0, 0)) {
            memcpy((*out)[k++], spends[i].txid, 32);
        }
    }
    return k;
}

/* Core's MaybeAddOrphanResolutionCandidate: p is asked, by txid, for the orphan's missing
 * parents as if it had announced them, unless it announced the orphan already or has too many
 * announcements. 1 if it became a candidate (the caller adds it as an announcer). */
static int add_resolution_candidate(struct txrelay *r, struct peer *p, const struct orphan *o,
                                    const uint8_t wtxid[32], uint8_t (*parents)[32], size_t n,
                                    int64_t now)
{
    if ((o && orphanage_has_announcer(o, p->id)) ||
        (!relay_permission(p) &&
         txrequest_count(r->treq, p->id) + n > MAX_PEER_TX_ANNOUNCEMENTS)) {
        return 0;
    }
    int64_t t = now + (preferred_peer(p) ? 0 : NONPREF_PEER_TX_DELAY_US);
    if (wtxid_peers(r) > 0) {
        t += TXID_RELAY_DELAY_US;
    }
    if (!relay_permission(p) &&
        txrequest_count_in_flight(r->treq, p->id) >= MAX_PEER_TX_REQUEST_IN_FLIGHT) {
        t += OVERLOADED_PEER_TX_DELAY_US;
    }
    for (size_t i = 0; i < n; i++) {
        txrequest_received_inv(r->treq, p->id, parents[i], 0, preferred_peer(p), t);
    }
    char hex[65];
    hex_encode_rev(hex, wtxid, 32);
    LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG, "added peer=%lld as a candidate for resolving orphan %s",
        (long long)p->id, hex);
    return 1;
}

/* An inv by wtxid of a transaction waiting as an orphan: unless all its parents came
 * meanwhile, the peer becomes one more it may come from and is asked for the parents still
 * missing. 1 if wtxid is an orphan's. */
static int orphan_announced(struct txrelay *r, struct peer *p, const uint8_t wtxid[32],
                            int64_t now)
{
    const struct orphan *o = orphanage_get(r->orphans, wtxid);
    if (!o) {
        return 0;
    }
    uint8_t(*parents)[32];
    size_t n = missing_parents(r, &parents, o->spends, o->n_spends);
    if (n > 0 && o->n_from < MAX_ANNOUNCERS &&
        add_resolution_candidate(r, p, o, wtxid, parents, n, now)) {
        orphanage_add_announcer(r->orphans, wtxid, p->id);
    }
    free(parents);
    return 1;
}

/* Core's AddTxAnnouncement: 1 if the node has it already (the inv's "have"). */
static int add_announcement(struct txrelay *r, struct peer *p, const uint8_t h[32], int by_wtxid,
                            int64_t now)
{
    if (by_wtxid && orphan_announced(r, p, h, now)) {
        return 1;
    }
    if (already_have(r, h, by_wtxid, 1)) {
        return 1;
    }
    if (!relay_permission(p) && txrequest_count(r->treq, p->id) >= MAX_PEER_TX_ANNOUNCEMENTS) {
        return 0;
    }
    txrequest_received_inv(r->treq, p->id, h, by_wtxid, preferred_peer(p),
                           request_time(r, p, by_wtxid, now));
    return 0;
}

/* Sends n inventory entries as command messages of at most max entries each. */
static void send_inv_chunks(struct peer *p, const char *command, const struct net_inv *iv,
                            size_t n, size_t max)
{
    for (size_t off = 0; off < n; off += max) {
        size_t m = n - off < max ? n - off : max;
        struct buf b;
        buf_init(&b);
        net_inv_serialize(&b, iv + off, m);
        net_send(p, command, &b);
        buf_clear(&b);
    }
}

static void send_getdata(struct peer *p, const struct net_inv *iv, size_t n)
{
    send_inv_chunks(p, "getdata", iv, n, MAX_GETDATA_SZ);
}

/* Core's GetRequestsToSend for p at now: what it is the one to ask for, in one getdata
 * (requests out too long are logged and go to the next announcer). */
static void send_requests(struct txrelay *r, struct peer *p, int64_t now)
{
    struct txrequest_gtxid *req, *exp;
    size_t nreq, nexp;
    char hex[65];
    txrequest_get_requestable(r->treq, &req, &nreq, &exp, &nexp, p->id, now);
    for (size_t i = 0; i < nexp; i++) {
        hex_encode_rev(hex, exp[i].hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "timeout of inflight %s %s from peer=%lld",
            exp[i].is_wtxid ? "wtx" : "tx", hex, (long long)exp[i].peer);
    }
    free(exp);
    struct net_inv *iv = xmalloc((nreq ? nreq : 1) * sizeof(*iv));
    size_t k = 0;
    for (size_t i = 0; i < nreq; i++) {
        if (already_have(r, req[i].hash, req[i].is_wtxid, 0)) {
            txrequest_forget(r->treq, req[i].hash);
            continue;
        }
        hex_encode_rev(hex, req[i].hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "Requesting %s %s peer=%lld",
            req[i].is_wtxid ? "wtx" : "tx", hex, (long long)p->id);
        /* Core's GetFetchFlags: the witness flag only for a peer offering NODE_WITNESS. */
        iv[k].type = req[i].is_wtxid ? INV_WTX
                     : (p->ps->ver.services & NODE_WITNESS) ? (INV_TX | INV_WITNESS_FLAG)
                                                           : INV_TX;
        memcpy(iv[k].hash, req[i].hash, 32);
        k++;
        txrequest_requested(r->treq, p->id, req[i].hash, now + GETDATA_TX_INTERVAL_US);
    }
    free(req);
    if (k) {
        send_getdata(p, iv, k);
    }
    free(iv);
}

/* CInv::ToString's name of a transaction inv type. */
static const char *inv_tx_name(uint32_t type)
{
    return type == INV_WTX ? "wtx" : type == INV_TX ? "tx" : "witness-tx";
}

void txrelay_on_invs(struct txrelay *r, struct peer *p, const struct net_inv *inv, size_t n)
{
    /* A transaction inv from a peer that may not send us transactions is a protocol
     * violation. */
    int reject = rejects_from(r, p);
    for (size_t i = 0; reject && i < n; i++) {
        uint32_t type = inv[i].type;
        int tx = type == INV_TX || type == INV_WTX || type == (INV_TX | INV_WITNESS_FLAG);
        if (!tx || (p->ps->wtxid_relay ? type == INV_TX : type == INV_WTX)) {
            continue;
        }
        char hex[65];
        hex_encode_rev(hex, inv[i].hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG,
            "transaction (%s) inv sent in violation of protocol, disconnecting peer=%lld", hex,
            (long long)p->id);
        net_peer_disconnect(p, "transaction inv in violation of protocol");
        return;
    }
    if (!r->mp || reject) {
        return;
    }
    struct txrelay_peer *tp = peer_state(p);
    int64_t now = net_now_us(r->net);
    int ibd = chainstate_in_ibd(r->cs);
    /* Each hash once per message, txids and wtxids apart (MSG_WITNESS_TX is a txid). */
    struct rolling_set seen[2];
    rset_init(&seen[0], n + 1);
    rset_init(&seen[1], n + 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t type = inv[i].type;
        if (type != INV_TX && type != INV_WTX && type != (INV_TX | INV_WITNESS_FLAG)) {
            continue;
        }
        /* A wtxidrelay peer announces by wtxid, the others by txid (Core). */
        if (p->ps->wtxid_relay ? type == INV_TX : type == INV_WTX) {
            continue;
        }
        int by_wtxid = type == INV_WTX;
        if (rset_contains(&seen[by_wtxid], inv[i].hash)) {
            continue;
        }
        rset_insert(&seen[by_wtxid], inv[i].hash);
        rset_insert(&tp->known, inv[i].hash);
        if (ibd) {
            continue;
        }
        int have = add_announcement(r, p, inv[i].hash, by_wtxid, now);
        char hex[65];
        hex_encode_rev(hex, inv[i].hash, 32);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "got inv: %s %s %s peer=%lld", inv_tx_name(type), hex,
            have ? "have" : "new", (long long)p->id);
    }
    rset_clear(&seen[0]);
    rset_clear(&seen[1]);
    send_requests(r, p, now);
}

void txrelay_on_notfound(struct txrelay *r, struct peer *p, const uint8_t *d, size_t len)
{
    struct net_inv *inv = NULL;
    size_t n = 0;
    if (net_inv_parse(d, len, &inv, &n, NULL, 0) != RC_OK) {
        free(inv);
        return;
    }
    /* Core reads at most MAX_PEER_TX_ANNOUNCEMENTS of them. */
    for (size_t i = 0; i < n && i < MAX_PEER_TX_ANNOUNCEMENTS; i++) {
        uint32_t type = inv[i].type & ~INV_WITNESS_FLAG;
        if (type == INV_TX || type == INV_WTX) {
            txrequest_received_response(r->treq, p->id, inv[i].hash);
        }
    }
    free(inv);
    send_requests(r, p, net_now_us(r->net));
}
static const struct tx *recent_block_tx(const struct txrelay *r, const uint8_t hash[32],
                                        int by_wtxid);

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
    if (!e) {
        const struct tx *t = recent_block_tx(r, iv->hash, type == INV_WTX);
        if (t) {
            tx_serialize(t, &out, with_witness);
            net_send(p, "tx", &out);
            buf_clear(&out);
            return 1;
        }
    }
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

static void broadcast(struct txrelay *r, const uint8_t wtxid[32]);

/* Core's forcerelay: a transaction we already have (or refused), sent again by a peer with
 * the forcerelay permission, is announced to every peer again if it is in the pool, so that
 * the node is a gateway for the nodes behind it. */
static void force_relay(struct txrelay *r, const struct peer *p, const struct tx *tx)
{
    if ((p->perms & NET_PERM_FORCERELAY) != NET_PERM_FORCERELAY) {
        return;
    }
    char txid[65], wtxid[65];
    hex_encode_rev(txid, tx->txid, 32);
    hex_encode_rev(wtxid, tx->wtxid, 32);
    mempool_read_lock(r->mp);
    int in_pool = mempool_get(r->mp, tx->txid) != NULL;
    mempool_read_unlock(r->mp);
    if (!in_pool) {
        LOG_INFO("Not relaying non-mempool transaction %s (wtxid=%s) from forcerelay peer=%lld",
                 txid, wtxid, (long long)p->id);
        return;
    }
    LOG_INFO("Force relaying tx %s (wtxid=%s) from peer=%lld", txid, wtxid, (long long)p->id);
    broadcast(r, tx->wtxid);
}

void txrelay_on_tx(struct txrelay *r, struct peer *p, const uint8_t *d, size_t len)
{
    char lid[32];
    if (rejects_from(r, p) || !r->mp) {
        snprintf(lid, sizeof(lid), "peer=%lld", (long long)p->id);
        LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "transaction sent in violation of protocol, disconnecting %s",
            lid);
        net_peer_disconnect(p, "transaction sent in violation of protocol");
        return;
    }
    if (chainstate_in_ibd(r->cs)) {
        /* Core: nothing to check it against yet; not the peer's fault. */
        return;
    }
    struct tx tx;
    char err[160];
    if (tx_deserialize(&tx, d, len, err, sizeof(err)) != RC_OK) {
        net_malformed(p, "tx", len, err);
        return;
    }
    struct txrelay_peer *tp = peer_state(p);
    rset_insert(&tp->known, tx.txid);
    rset_insert(&tp->known, tx.wtxid);
    p->last_tx = net_now(r->net);
    /* Core's ReceivedTx: the announcements it answers are completed; then it is dropped if
     * had (looked up by wtxid), or tried with a child if refused alone for its fee rate. */
    txrequest_received_response(r->treq, p->id, tx.txid);
    if (memcmp(tx.txid, tx.wtxid, 32) != 0) {
        txrequest_received_response(r->treq, p->id, tx.wtxid);
    }
    if (already_have(r, tx.wtxid, 1, 0)) {
        force_relay(r, p, &tx);
        tx_clear(&tx);
    } else if (rset_contains(&r->rejects_recon, tx.wtxid)) {
        force_relay(r, p, &tx);
        char txid[65], wtxid[65];
        hex_encode_rev(txid, tx.txid, 32);
        hex_encode_rev(wtxid, tx.wtxid, 32);
        LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG,
            "found tx %s (wtxid=%s) in reconsiderable rejects, looking for child in orphanage",
            txid, wtxid);
        try_1p1c(r, p->id, d, len, &tx);
    } else {
        submit_tx(r, p->id, d, len, &tx, NULL);
    }
    send_requests(r, p, net_now_us(r->net));
}

/* The pool as the announcement backlog looks it up (invbucket.h): entries by wtxid, their
 * serialized size (Core's ComputeTotalSize), the mining order; the read lock around. */
static const void *pool_get(void *ctx, const uint8_t wtxid[32], uint8_t txid[32], double *size)
{
    struct mempool_entry *e = mempool_get_wtxid(ctx, wtxid);
    if (e) {
        memcpy(txid, e->tx.txid, 32);
        *size = (double)e->raw_len;
    }
    return e;
}

static int pool_cmp(const void *a, const void *b)
{
    return mempool_mining_cmp(a, b);
}

static void pool_lock(void *ctx)
{
    mempool_read_lock(ctx);
}

static void pool_unlock(void *ctx)
{
    mempool_read_unlock(ctx);
}

/* A peer we announce transactions to, once its trickle timer runs: Core queues nothing for
 * a peer before its first trickle, so that what came during the handshake is not told
 * apart by its timing. */
static int announces_to(const struct peer *p)
{
    return !p->disconnect && p->ps->handshake_done && p->relay_txs &&
           p->conn_type != CONN_BLOCK_RELAY && p->conn_type != CONN_FEELER &&
           p->conn_type != CONN_ADDR_FETCH && p->ps->txr && p->ps->txr->next_inv_us != 0;
}

static void queue_push(struct txrelay_peer *tp, const uint8_t h[32])
{
    if (tp->nq == tp->capq) {
        tp->capq = tp->capq ? tp->capq * 2 : 16;
        tp->queue = xrealloc(tp->queue, tp->capq * sizeof(*tp->queue));
    }
    memcpy(tp->queue[tp->nq++], h, 32);
}

/* Core's ProcessInvBacklog: what the buckets let go of the backlog (invbucket.h) joins the
 * queues of the peers of its direction that do not know it yet (wtxids, or txids for a
 * peer without wtxidrelay); a direction without such a peer has its backlog emptied. */
static void process_backlog(struct txrelay *r, int64_t now_us, int bumped)
{
    const struct invbucket_pool pool = {pool_get, pool_cmp, pool_lock, pool_unlock, r->mp};
    if (!invbucket_process(r->inv, now_us, bumped, &pool)) {
        return;
    }
    const struct invbucket_tx *d[2];
    size_t nd[2];
    d[INVBUCKET_INBOUND] = invbucket_drained(r->inv, INVBUCKET_INBOUND, &nd[INVBUCKET_INBOUND]);
    d[INVBUCKET_OUTBOUND] = invbucket_drained(r->inv, INVBUCKET_OUTBOUND, &nd[INVBUCKET_OUTBOUND]);
    int any[2] = {0, 0};
    for (struct peer *p = r->net->peers; p; p = p->next) {
        if (!announces_to(p)) {
            continue;
        }
        int dir = p->conn_type == CONN_INBOUND ? INVBUCKET_INBOUND : INVBUCKET_OUTBOUND;
        any[dir] = 1;
        struct txrelay_peer *tp = p->ps->txr;
        for (size_t i = 0; i < nd[dir]; i++) {
            const uint8_t *h = p->ps->wtxid_relay ? d[dir][i].wtxid : d[dir][i].txid;
            if (!rset_contains(&tp->known, h)) {
                queue_push(tp, h);
            }
        }
    }
    if (!any[INVBUCKET_INBOUND]) {
        invbucket_clear(r->inv, INVBUCKET_INBOUND);
    }
    if (!any[INVBUCKET_OUTBOUND]) {
        invbucket_clear(r->inv, INVBUCKET_OUTBOUND);
    }
}

/* Core's InitiateTxBroadcastToAll: a transaction of the pool joins the backlog, and goes to
 * the peers' queues at once while the buckets have tokens. The peer it came from knows it
 * (its known filter), so it is not told. */
static void broadcast(struct txrelay *r, const uint8_t wtxid[32])
{
    invbucket_add(r->inv, wtxid);
    process_backlog(r, net_now_us(r->net), 1);
}

struct relay_call {
    struct txrelay *r;
    uint8_t txid[32], wtxid[32];
};

static void relay_call(struct net *n, void *ctx)
{
    (void)n;
    struct relay_call *c = ctx;
    broadcast(c->r, c->wtxid);
}

void txrelay_relay_transaction(struct txrelay *r, const uint8_t txid[32], const uint8_t wtxid[32])
{
    /* Under -blocksonly too: Core announces what it was given by RPC. */
    if (!r->mp) {
        return;
    }
    struct relay_call c = {.r = r};
    memcpy(c.txid, txid, 32);
    memcpy(c.wtxid, wtxid, 32);
    (void)net_call(r->net, relay_call, &c);
}

/* Core's AddChildrenToWorkSet: the orphans that spend an output of txid are tried again
 * (each leaves the orphanage meanwhile and comes back if still missing inputs). */
static void retry_orphans_of(struct txrelay *r, const uint8_t txid[32])
{
    struct orphan *kids;
    size_t n = orphanage_take_children(r->orphans, &kids, txid);
    for (size_t i = 0; i < n; i++) {
        struct tx tx;
        if (tx_deserialize(&tx, kids[i].raw, kids[i].len, NULL, 0) == RC_OK) {
            submit_tx(r, kids[i].from[0], kids[i].raw, kids[i].len, &tx, &kids[i]);
        }
        orphanage_orphan_clear(&kids[i]);
    }
    free(kids);
}

/* Whether a parent of tx was refused so that the orphan cannot be accepted (Core): one in the
 * rejects, or more than one refused for its fee rate alone (a 1p1c package takes one). */
static int has_rejected_parents(struct txrelay *r, const struct tx *tx)
{
    const uint8_t *recon = NULL;
    for (size_t i = 0; i < tx->vin_count; i++) {
        const uint8_t *h = tx->vin[i].prevout.txid;
        if (rset_contains(&r->rejects, h)) {
            return 1;
        }
        if (rset_contains(&r->rejects_recon, h) && (!recon || memcmp(recon, h, 32) != 0)) {
            mempool_read_lock(r->mp);
            int in_pool = mempool_get(r->mp, h) != NULL;
            mempool_read_unlock(r->mp);
            if (!in_pool) {
                if (recon) {
                    return 1;
                }
                recon = h;
            }
        }
    }
    return 0;
}

/* Core's MempoolRejectedTx for a transaction missing inputs, the first time: kept as an
 * orphan for each peer that may resolve it (its sender and the other peers that announced
 * it), each of them asked for the missing parents; unless a parent was refused. */
static void orphan_rejected(struct txrelay *r, struct tx_job *j)
{
    const struct tx *tx = &j->tx;
    char txid[65], wtxid[65];
    hex_encode_rev(txid, j->txid, 32);
    hex_encode_rev(wtxid, j->wtxid, 32);
    if (rset_contains(&r->rejects, j->wtxid)) {
        return;
    }
    if (has_rejected_parents(r, tx)) {
        LOG(LOG_CAT_MEMPOOL, LOG_LVL_DEBUG, "not keeping orphan with rejected parents %s (wtxid=%s)",
            txid, wtxid);
        rset_insert(&r->rejects, j->txid);
        rset_insert(&r->rejects, j->wtxid);
        txrequest_forget(r->treq, j->txid);
        txrequest_forget(r->treq, j->wtxid);
        return;
    }
    uint8_t(*parents)[32];
    struct outpoint *spends = xmalloc((tx->vin_count ? tx->vin_count : 1) * sizeof(*spends));
    for (size_t i = 0; i < tx->vin_count; i++) {
        spends[i] = tx->vin[i].prevout;
    }
    size_t n = missing_parents(r, &parents, spends, tx->vin_count);
    free(spends);
    int64_t *cand = xmalloc(sizeof(*cand));
    size_t ncand = 1;
    cand[0] = j->nj.peer_id;
    txrequest_candidate_peers(r->treq, &cand, &ncand, j->txid);
    if (memcmp(j->txid, j->wtxid, 32) != 0) {
        txrequest_candidate_peers(r->treq, &cand, &ncand, j->wtxid);
    }
    int64_t now = net_now_us(r->net);
    int tried_store = orphanage_get(r->orphans, j->wtxid) != NULL;
    for (size_t k = 0; k < ncand; k++) {
        struct peer *p = net_find_peer(r->net, cand[k]);
        if (!p || !add_resolution_candidate(r, p, orphanage_get(r->orphans, j->wtxid), j->wtxid,
                                            parents, n, now)) {
            continue;
        }
        if (!tried_store) {
            (void)orphanage_add(r->orphans, j->nj.data, j->nj.len, &j->tx);
            tried_store = 1;
        }
        orphanage_add_announcer(r->orphans, j->wtxid, cand[k]);
    }
    free(cand);
    free(parents);
    txrequest_forget(r->treq, j->txid);
    txrequest_forget(r->treq, j->wtxid);
    orphanage_limit(r->orphans);
}

/* An orphan retried and still missing inputs: it waits again for the announcers it had that
 * are still connected (Core keeps it in the orphanage). */
static void orphan_again(struct txrelay *r, struct tx_job *j)
{
    size_t n_from = 0;
    int64_t from[MAX_ANNOUNCERS];
    for (size_t k = 0; k < j->n_from; k++) {
        if (net_find_peer(r->net, j->from[k])) {
            from[n_from++] = j->from[k];
        }
    }
    if (n_from == 0 || !orphanage_add(r->orphans, j->nj.data, j->nj.len, &j->tx)) {
        return;
    }
    for (size_t k = 0; k < n_from; k++) {
        orphanage_add_announcer(r->orphans, j->wtxid, from[k]);
    }
    orphanage_limit(r->orphans);
}

/* Core's MempoolRejectedTx for any other reason: the rejects filters, and for a transaction
 * refused alone for its fee rate, a child in the orphanage to try it with. */
static void tx_rejected(struct txrelay *r, struct tx_job *j)
{
    const struct mempool_accept_result *res = &j->m.res;
    if (res->kind == MEMPOOL_TX_WITNESS_STRIPPED) {
        return;
    }
    if (res->kind == MEMPOOL_TX_RECONSIDERABLE) {
        rset_insert(&r->rejects_recon, j->wtxid);
        if (!j->is_orphan_retry) {
            char txid[65], wtxid[65];
            hex_encode_rev(txid, j->txid, 32);
            hex_encode_rev(wtxid, j->wtxid, 32);
            LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG,
                "tx %s (wtxid=%s) failed but reconsiderable, looking for child in orphanage", txid,
                wtxid);
            try_1p1c(r, j->nj.peer_id, j->nj.data, j->nj.len, &j->tx);
        }
    } else {
        rset_insert(&r->rejects, j->wtxid);
    }
    txrequest_forget(r->treq, j->wtxid);
    if (res->kind == MEMPOOL_TX_INPUTS_NOT_STANDARD && memcmp(j->txid, j->wtxid, 32) != 0) {
        rset_insert(&r->rejects, j->txid);
        txrequest_forget(r->treq, j->txid);
    }
}

/* Core's MempoolAcceptedTx: its requests go, peers are told, an orphan of the same wtxid
 * leaves and the orphans that spend it are retried. */
static void tx_accepted(struct txrelay *r, const uint8_t txid[32], const uint8_t wtxid[32])
{
    txrequest_forget(r->treq, txid);
    txrequest_forget(r->treq, wtxid);
    broadcast(r, wtxid);
    orphanage_erase(r->orphans, wtxid);
    retry_orphans_of(r, txid);
}

/* Core's package hash: SHA-256 of the wtxids in sorted order. */
static void package_hash(uint8_t out[32], const uint8_t a[32], const uint8_t b[32])
{
    uint8_t both[64];
    int swap = memcmp(a, b, 32) > 0;
    memcpy(both, swap ? b : a, 32);
    memcpy(both + 32, swap ? a : b, 32);
    hash_sha256(out, both, sizeof(both));
}

struct child_check {
    struct txrelay *r;
    const uint8_t *parent_wtxid;
};

/* A child not refused with this parent as a package, nor on its own. */
static int child_untried(void *ctx, const struct orphan *o)
{
    const struct child_check *c = ctx;
    uint8_t ph[32];
    package_hash(ph, c->parent_wtxid, o->wtxid);
    return !rset_contains(&c->r->rejects_recon, ph) && !rset_contains(&c->r->rejects, o->txid);
}

static void try_1p1c(struct txrelay *r, int64_t peer_id, const uint8_t *raw, size_t len,
                     struct tx *tx)
{
    struct tx parsed;
    if (!tx) {
        if (tx_deserialize(&parsed, raw, len, NULL, 0) != RC_OK) {
            return;
        }
        tx = &parsed;
    }
    /* Children announced by the same peer (so that another's fake children cannot crowd out
     * the real one), the newest first. */
    struct child_check cc = {.r = r, .parent_wtxid = tx->wtxid};
    const struct orphan *child =
        orphanage_child_from_peer(r->orphans, tx->txid, peer_id, child_untried, &cc);
    struct tx ctx;
    if (!child || tx_deserialize(&ctx, child->raw, child->len, NULL, 0) != RC_OK) {
        tx_clear(tx);
        return;
    }
    struct tx_job *j = xcalloc(1, sizeof(*j));
    j->nj.peer_id = peer_id;
    j->nj.is_tx = 1;
    j->is_package = 1;
    memcpy(j->nj.hash, tx->wtxid, 32);
    j->ptx[0] = *tx;
    tx_init(tx);
    j->ptx[1] = ctx;
    j->pk.mp = r->mp;
    j->pk.txs = j->ptx;
    j->pk.n = 2;
    j->pk.now = chainstate_now(r->cs);
    j->pk.r = xcalloc(2, sizeof(*j->pk.r));
    for (size_t i = 0; i < 2; i++) {
        memcpy(j->pk.r[i].txid, j->ptx[i].txid, 32);
        memcpy(j->pk.r[i].wtxid, j->ptx[i].wtxid, 32);
    }
    j->nj.job.work = VALIDATOR_CALL;
    j->nj.job.fn = mempool_accept_package;
    j->nj.job.ctx = &j->pk;
    net_submit(r->net, &j->nj);
}

/* Core's ProcessPackageResult: a refused package is remembered (by its hash, with the
 * reconsiderable rejects); then each transaction's answer, the child's first. */
static void package_done(struct txrelay *r, struct tx_job *j)
{
    struct mempool_package *pk = &j->pk;
    char pt[65], pw[65], ct[65], cw[65];
    hex_encode_rev(pt, pk->r[0].txid, 32);
    hex_encode_rev(pw, pk->r[0].wtxid, 32);
    hex_encode_rev(ct, pk->r[1].txid, 32);
    hex_encode_rev(cw, pk->r[1].wtxid, 32);
    int ok = j->nj.job.rc == RC_OK && pk->r[0].state == PKG_VALID && pk->r[1].state == PKG_VALID;
    LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG,
        "package evaluation for parent %s (wtxid=%s, sender=%lld) + child %s (wtxid=%s, "
        "sender=%lld): %s",
        pt, pw, (long long)j->nj.peer_id, ct, cw, (long long)j->nj.peer_id,
        ok ? "package accepted" : "package rejected");
    if (!ok) {
        uint8_t ph[32];
        package_hash(ph, pk->r[0].wtxid, pk->r[1].wtxid);
        rset_insert(&r->rejects_recon, ph);
    }
    for (size_t k = 2; j->nj.job.rc == RC_OK && k-- > 0;) {
        const struct mempool_accept_result *res = &pk->r[k].res;
        char txid[65], wtxid[65];
        hex_encode_rev(txid, pk->r[k].txid, 32);
        hex_encode_rev(wtxid, pk->r[k].wtxid, 32);
        if (pk->r[k].state == PKG_VALID) {
            r->accepted++;
            LOG(LOG_CAT_MEMPOOL, LOG_LVL_DEBUG,
                "AcceptToMemoryPool: peer=%lld: accepted %s (wtxid=%s)", (long long)j->nj.peer_id,
                txid, wtxid);
            tx_accepted(r, pk->r[k].txid, pk->r[k].wtxid);
        } else if (pk->r[k].state == PKG_INVALID && res->kind != MEMPOOL_TX_MISSING_INPUTS) {
            LOG(LOG_CAT_MEMPOOLREJ, LOG_LVL_DEBUG,
                "%s (wtxid=%s) from peer=%lld was not accepted: %s%s%s", txid, wtxid,
                (long long)j->nj.peer_id, res->st.reject, res->st.debug[0] ? ", " : "",
                res->st.debug);
            if (res->kind == MEMPOOL_TX_RECONSIDERABLE) {
                rset_insert(&r->rejects_recon, pk->r[k].wtxid);
            } else if (res->kind != MEMPOOL_TX_WITNESS_STRIPPED) {
                rset_insert(&r->rejects, pk->r[k].wtxid);
            }
            txrequest_forget(r->treq, pk->r[k].wtxid);
            if (orphanage_erase(r->orphans, pk->r[k].wtxid)) {
                LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG, "   removed orphan tx %s (wtxid=%s)", txid,
                    wtxid);
            }
        }
    }
    for (size_t k = 0; k < 2; k++) {
        mempool_accept_result_clear(&pk->r[k].res);
        tx_clear(&j->ptx[k]);
    }
    free(pk->r);
    free(j);
}

void txrelay_job_done(struct txrelay *r, struct net_job *nj)
{
    struct tx_job *j = (struct tx_job *)nj;
    if (j->is_package) {
        package_done(r, j);
        return;
    }
    const struct mempool_accept_result *res = &j->m.res;
    char txid[65], wtxid[65];
    hex_encode_rev(txid, j->txid, 32);
    hex_encode_rev(wtxid, j->wtxid, 32);
    if (nj->job.rc == RC_OK && vstate_is_valid(&res->st)) {
        r->accepted++;
        LOG(LOG_CAT_MEMPOOL, LOG_LVL_DEBUG, "AcceptToMemoryPool: peer=%lld: accepted %s (wtxid=%s)",
            (long long)nj->peer_id, txid, wtxid);
        tx_accepted(r, j->txid, j->wtxid);
    } else if (nj->job.rc == RC_OK) {
        r->rejected++;
        LOG(LOG_CAT_MEMPOOLREJ, LOG_LVL_DEBUG, "%s (wtxid=%s) from peer=%lld was not accepted: %s%s%s",
            txid, wtxid, (long long)nj->peer_id, res->st.reject, res->st.debug[0] ? ", " : "",
            res->st.debug);
        if (res->kind == MEMPOOL_TX_MISSING_INPUTS) {
            if (j->is_orphan_retry) {
                orphan_again(r, j);
            } else {
                orphan_rejected(r, j);
            }
        } else {
            tx_rejected(r, j);
        }
    }
    mempool_accept_result_clear(&j->m.res);
    tx_clear(&j->tx);
    free(nj->data);
    free(j);
}

/* Our fee filter for peers before rounding: the pool's minimum fee, or MAX_MONEY
 * while in initial block download (Core). */
static int64_t our_feefilter(struct txrelay *r)
{
    if (chainstate_in_ibd(r->cs)) {
        return MAX_MONEY_SAT;
    }
    /* The pool's own minimum (0 while it is not full), as Core's GetMinFee: the relay
     * minimum is applied after the rounding (a 500 sat/kvB minimum goes out as 500). */
    mempool_read_lock(r->mp);
    int64_t f = mempool_min_fee_at(r->mp, chainstate_now(r->cs));
    mempool_read_unlock(r->mp);
    return f;
}

static int64_t poisson_us(int64_t avg_us)
{
    uint8_t rnd[8];
    random_bytes(rnd, sizeof(rnd));
    double u = ((double)(rd_u64le(rnd) >> 11) + 0.5) / 9007199254740992.0;
    return (int64_t)(-log(u) * (double)avg_us);
}

/* 1 if the entry may be announced to p: its fee rate passes p's feefilter (fee: the base or
 * the modified fee) and its transaction p's bloom filter, which a match updates. */
static int wanted_by(struct peer *p, const struct mempool_entry *e, int64_t fee)
{
    if (p->ps->feefilter > 0 && fee * 1000 < p->ps->feefilter * e->vsize) {
        return 0;
    }
    return !p->ps->bloom || bloom_filter_relevant_and_update(p->ps->bloom, &e->tx);
}

/* Core's answer to a mempool message (BIP35), at the trickle: every transaction of the pool
 * p wants, in mining order (a parent before its child, so that a bloom filter updated by
 * the one matches the other), announced; what was queued goes, being in it. */
static void send_mempool(struct txrelay *r, struct peer *p, struct txrelay_peer *tp)
{
    tp->send_mempool = 0;
    tp->nq = 0;
    mempool_read_lock(r->mp);
    size_t nc, k = 0, cap = 0;
    struct mempool_chunk *ch = mempool_all_chunks(r->mp, &nc);
    tp->last_inv_sequence = mempool_next_entry_sequence(r->mp);
    struct net_inv *inv = NULL;
    for (size_t c = 0; c < nc; c++) {
        for (size_t i = 0; i < ch[c].n; i++) {
            const struct mempool_entry *e = ch[c].txs[i];
            if (!wanted_by(p, e, e->fee)) {
                continue;
            }
            if (k == cap) {
                cap = cap ? cap * 2 : 64;
                inv = xrealloc(inv, cap * sizeof(*inv));
            }
            inv[k].type = p->ps->wtxid_relay ? INV_WTX : INV_TX;
            memcpy(inv[k].hash, p->ps->wtxid_relay ? e->tx.wtxid : e->tx.txid, 32);
            rset_insert(&tp->known, inv[k].hash);
            k++;
        }
    }
    mempool_chunks_free(ch, nc);
    mempool_read_unlock(r->mp);
    send_inv_chunks(p, "inv", inv, k, MAX_INV_SZ);
    free(inv);
}

/* Sends the announcements queued for p, if its trickle timer is due (and the pool, if it
 * asked). A peer that asked for no transactions is told of none but that. */
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
    if (!p->relay_txs) {
        tp->nq = 0;
    }
    if (tp->send_mempool) {
        send_mempool(r, p, tp);
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
        if (!e || rset_contains(&tp->known, tp->queue[i]) ||
            !wanted_by(p, e, mempool_entry_modified_fee(e))) {
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
    send_inv_chunks(p, "inv", inv, k, MAX_INV_SZ);
    free(inv);
}

void txrelay_on_handshake(struct txrelay *r, struct peer *p)
{
    /* Every peer we keep relay state for, relay=0 ones too (a BIP37 peer turns relay on
     * later): its trickle timer starts now, as Core's first SendMessages. */
    if (r->mp && bloomrelay_has_tx_relay(p)) {
        trickle(r, p, net_now_us(r->net));
    }
}

/* Core's FeeFilterRounder::round: fee (sat/kvB) to one of the buckets 0 and
 * max(1, incremental/2) * 1.1^k up to 1e7 (the doubles as Core computes them): the first at or
 * above it, or two times in three the one below (so that the filter does not tell the pool's
 * exact minimum); above the last, the last. */
static int64_t round_feefilter(const struct mempool_options *o, int64_t fee)
{
    int64_t lo = o->incremental_feerate / 2;
    double below = 0, at = -1;
    for (double b = (double)(lo > 1 ? lo : 1); b <= 1e7; b *= 1.1) {
        if (b >= (double)fee) {
            at = b;
            break;
        }
        below = b;
    }
    if (fee <= 0) {
        return 0; /* the first bucket, 0: nothing below it */
    }
    if (at < 0) {
        return (int64_t)below;
    }
    uint8_t rnd[4];
    random_bytes(rnd, sizeof(rnd));
    return (int64_t)(rd_u32le(rnd) % 3 != 0 ? below : at);
}

/* Core's MaybeSendFeefilter. */
static void send_feefilter(struct txrelay *r, struct peer *p, int64_t now)
{
    struct txrelay_peer *tp = peer_state(p);
    if (p->conn_type == CONN_BLOCK_RELAY ||
        (p->perms & NET_PERM_FORCERELAY) == NET_PERM_FORCERELAY || p->ps->ver.version < 70013) {
        return;
    }
    int ibd = chainstate_in_ibd(r->cs);
    int64_t f = our_feefilter(r);
    const struct mempool_options *o = mempool_options(r->mp);
    int64_t max_filter = round_feefilter(o, MAX_MONEY_SAT);
    if (!ibd && tp->feefilter_sent == max_filter) {
        tp->next_feefilter_us = 0; /* out of IBD: the real filter at once */
    }
    if (now > tp->next_feefilter_us) {
        /* Rounded, and never below the relay minimum. */
        f = round_feefilter(o, f);
        f = f > o->min_relay_feerate ? f : o->min_relay_feerate;
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
    if (now >= r->next_rebroadcast_us) {
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
                    broadcast(r, wtxid);
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
    if (r->net->peers) {
        /* Core's SendMessages runs ProcessInvBacklog for each peer: with none, the buckets
         * stand still. */
        process_backlog(r, now, 0);
    }
    for (struct peer *p = r->net->peers; p; p = p->next) {
        if (p->disconnect || !p->ps->handshake_done) {
            continue;
        }
        if (bloomrelay_has_tx_relay(p)) { /* relay=0 too: its timer runs, a mempool answer */
            trickle(r, p, now);
        }
        send_requests(r, p, now);
        if (!r->blocks_only) {
            /* Core's MaybeSendFeefilter: none under -blocksonly. */
            send_feefilter(r, p, now);
        }
    }
}

/* Core's BlockConnected for one block: its transactions are had (the recent-confirmed filter,
 * their requests forgotten), the orphans it includes or conflicts with go, and those that
 * spend its outputs are retried. */
static void block_connected(struct txrelay *r, const struct block *b)
{
    orphanage_erase_for_block(r->orphans, b);
    for (size_t t = 0; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        retry_orphans_of(r, tx->txid);
        rset_insert(&r->recent_confirmed, tx->txid);
        if (memcmp(tx->txid, tx->wtxid, 32) != 0) {
            rset_insert(&r->recent_confirmed, tx->wtxid);
        }
        txrequest_forget(r->treq, tx->txid);
        txrequest_forget(r->treq, tx->wtxid);
    }
}

void txrelay_check_tip(struct txrelay *r)
{
    chainstate_read_lock(r->cs);
    struct block_index *tip = chainstate_tip(r->cs);
    chainstate_read_unlock(r->cs);
    struct block_index *old_tip = r->seen_tip;
    if (!tip || tip == old_tip) {
        return;
    }
    r->seen_tip = tip;
    if (!old_tip) {
        return; /* the tip at start: nothing to forget */
    }
    /* Core resets its recent-rejects filters on every new tip out of initial block download
     * (ActiveTipChange): a rejection may not hold. */
    int ibd = chainstate_in_ibd(r->cs);
    if (!ibd) {
        rset_clear(&r->rejects);
        rset_clear(&r->rejects_recon);
    }
    /* The blocks connected since the last tip seen (a few: a connected block and the timer
     * call this); a tip that is not a descendant within eight blocks may mean blocks were
     * disconnected, which clears the recent-confirmed filter as Core's BlockDisconnected. */
    struct block_index *path[8];
    size_t n = 0;
    struct block_index *e = tip;
    while (e && e != old_tip && n < 8) {
        path[n++] = e;
        e = e->prev;
    }
    if (e != old_tip) {
        rset_clear(&r->recent_confirmed);
    }
    if (!r->mp) {
        return;
    }
    if (ibd && n > 1) {
        /* Core's BlockConnected skips the transaction download's part in initial block
         * download (no transactions are taken then): only the tip is read, to serve. */
        n = 1;
    }
    /* Read under the chain's lock, handled after it (a retried orphan goes to the
     * validation thread). */
    struct buf raw[8];
    int ok[8];
    chainstate_read_lock(r->cs);
    for (size_t i = 0; i < n; i++) {
        buf_init(&raw[i]);
        ok[i] = chainstate_read_block(r->cs, path[i], &raw[i]) == RC_OK;
    }
    chainstate_read_unlock(r->cs);
    while (n-- > 0) {
        struct block b;
        if (ok[n] && block_parse(&b, raw[n].data, raw[n].len, NULL, 0) == RC_OK) {
            if (!ibd) {
                block_connected(r, &b);
            }
            if (n == 0) {
                /* The tip's transactions stay servable (Core's m_most_recent_block_txs): a
                 * peer rebuilding its compact block asks for them after they left the pool. */
                block_clear(&r->recent_block);
                r->recent_block = b;
                r->have_recent_block = 1;
            } else {
                block_clear(&b);
            }
        }
        buf_clear(&raw[n]);
    }
}

/* A transaction of the tip block by txid or wtxid, or NULL. */
static const struct tx *recent_block_tx(const struct txrelay *r, const uint8_t hash[32],
                                        int by_wtxid)
{
    for (size_t i = 0; r->have_recent_block && i < r->recent_block.tx_count; i++) {
        const struct tx *t = &r->recent_block.txs[i];
        if (memcmp(by_wtxid ? t->wtxid : t->txid, hash, 32) == 0) {
            return t;
        }
    }
    return NULL;
}

uint64_t txrelay_last_inv_sequence(const struct peer *p)
{
    /* Core keeps relay state only for a peer whose version asked for transactions (not a
     * block-relay-only connection): 0 for the others; 1 before the first announcement. */
    if (!p->ps || !bloomrelay_has_tx_relay(p)) {
        return 0;
    }
    return p->ps->txr ? p->ps->txr->last_inv_sequence : 1;
}

size_t txrelay_inv_to_send(const struct peer *p)
{
    return p->ps->txr ? p->ps->txr->nq : 0;
}

void txrelay_on_mempool_msg(struct peer *p)
{
    /* Served with NODE_BLOOM offered or to a peer with the mempool permission, and then,
     * without that permission, only while -maxuploadtarget is not reached; otherwise Core
     * disconnects, unless the peer has noban. */
    int perm = (p->perms & NET_PERM_MEMPOOL) == NET_PERM_MEMPOOL;
    const char *why = !bloomrelay_offered(p) && !perm ? "bloom filters disabled"
                      : !perm && net_upload_target_reached(p->net, 0) ? "bandwidth limit reached"
                                                                      : NULL;
    if (why) {
        if ((p->perms & NET_PERM_NOBAN) != NET_PERM_NOBAN) {
            LOG(LOG_CAT_NET, LOG_LVL_DEBUG, "mempool request with %s, disconnecting peer=%lld",
                why, (long long)p->id);
            net_peer_disconnect(p, "mempool request refused");
        }
        return;
    }
    if (bloomrelay_has_tx_relay(p)) {
        peer_state(p)->send_mempool = 1;
    }
}

void txrelay_orphans(struct txrelay *r, struct net_orphan **out, size_t *count)
{
    size_t n = r ? orphanage_size(r->orphans) : 0;
    *out = xcalloc(n ? n : 1, sizeof(**out));
    for (size_t i = 0; i < n; i++) {
        const struct orphan *o = orphanage_at(r->orphans, i);
        struct net_orphan *d = &(*out)[i];
        d->raw = xmalloc(o->len ? o->len : 1);
        memcpy(d->raw, o->raw, o->len);
        d->len = o->len;
        memcpy(d->from, o->from, o->n_from * sizeof(o->from[0]));
        d->n_from = o->n_from;
    }
    *count = n;
}

void txrelay_inv_buckets(const struct txrelay *r, unsigned *rate, struct invbucket_info *in,
                         struct invbucket_info *out)
{
    *rate = invbucket_rate(r->inv);
    invbucket_info(r->inv, INVBUCKET_INBOUND, in);
    invbucket_info(r->inv, INVBUCKET_OUTBOUND, out);
}
