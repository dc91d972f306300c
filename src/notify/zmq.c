/* ZMQ notifications (zmq.h). Three parts: the sockets and notifiers (made once, used only by
 * the thread "zmqpub" afterwards), the listeners (the validation thread, which queues), and
 * the thread, which reads what a raw topic needs and sends. */
#include "notify/zmq.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "blockstore/blockindex.h"
#include "mempool/mempool.h"
#include "primitives/serialize.h"
#include "primitives/tx.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/chainstate.h"

enum ev_kind { EV_TX_ADDED, EV_TX_REMOVED, EV_CONNECTED, EV_DISCONNECTED, EV_TIP };

/* One thing to publish, queued in the order it happened. */
struct ev {
    struct ev *next;
    enum ev_kind kind;
    uint8_t hash[32];              /* the txid or the block hash (internal order) */
    uint64_t seq;                  /* the mempool sequence ('A', 'R') */
    const struct block_index *e;   /* a block's entry (the tree keeps it while we run) */
    uint8_t (*txids)[32];          /* a block's transactions */
    size_t ntx;
    uint8_t *raw;                  /* a mempool transaction with its witness (rawtx wanted) */
    size_t raw_len;
};

struct notifier {
    enum notify_zmq_topic topic;
    size_t sock; /* index into socks */
    uint32_t seq;
};

struct notify_zmq {
    struct chainstate *cs;
    void *ctx;
    void **socks;
    char **sock_addr;
    size_t nsocks;
    struct notify_zmq_endpoint *eps;
    struct notifier *nf;
    size_t n;
    int want[NOTIFY_ZMQ_TOPICS];

    /* The validation thread's: connected blocks held until the step ends. */
    struct ev *pend_head, **pend_tail;
    int connected; /* a block was connected since the tip last settled */

    pthread_mutex_t mu; /* a leaf: guards the queue */
    pthread_cond_t cv;
    struct ev *q_head, **q_tail;
    int stop;
    pthread_t thread;
    int started;
};

static const char *const TYPE_NAMES[NOTIFY_ZMQ_TOPICS] = {
    "pubhashblock", "pubhashtx", "pubrawblock", "pubrawtx", "pubsequence"};

const char *notify_zmq_type_name(enum notify_zmq_topic t)
{
    return TYPE_NAMES[t];
}

const char *notify_zmq_topic_name(enum notify_zmq_topic t)
{
    return TYPE_NAMES[t] + 3;
}

/* ---- sockets --------------------------------------------------------------------------- */

/* Core sets ZMQ_IPV6 for "tcp://<IPv6 literal>:<port>" only (no name lookup). */
static int is_ipv6_tcp(const char *addr)
{
    if (strncmp(addr, "tcp://", 6) != 0) {
        return 0;
    }
    const char *host = addr + 6, *colon = strrchr(host, ':');
    if (!colon || colon == host) {
        return 0;
    }
    char ip[64];
    size_t len = (size_t)(colon - host);
    if (host[0] == '[' && len >= 2 && host[len - 1] == ']') {
        host++;
        len -= 2;
    }
    if (len >= sizeof(ip)) {
        return 0;
    }
    memcpy(ip, host, len);
    ip[len] = 0;
    struct in6_addr a;
    return inet_pton(AF_INET6, ip, &a) == 1;
}

/* The socket for ep's address: shared with an earlier notifier on the same string, else new
 * and bound (Core's CZMQAbstractPublishNotifier::Initialize). */
static int open_socket(struct notify_zmq *z, const struct notify_zmq_endpoint *ep, size_t *out,
                       char *err, size_t err_len)
{
    for (size_t i = 0; i < z->nsocks; i++) {
        if (strcmp(z->sock_addr[i], ep->address) == 0) {
            LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Reusing socket for address %s", ep->address);
            *out = i;
            return RC_OK;
        }
    }
    void *s = zmq_socket(z->ctx, ZMQ_PUB);
    int keepalive = 1, ipv6 = is_ipv6_tcp(ep->address);
    const char *what = "Failed to create socket";
    if (s && (what = "Failed to set outbound message high water mark",
              zmq_setsockopt(s, ZMQ_SNDHWM, &ep->hwm, sizeof(ep->hwm)) == 0) &&
        (what = "Failed to set SO_KEEPALIVE",
         zmq_setsockopt(s, ZMQ_TCP_KEEPALIVE, &keepalive, sizeof(keepalive)) == 0) &&
        (what = "Failed to set ZMQ_IPV6",
         zmq_setsockopt(s, ZMQ_IPV6, &ipv6, sizeof(ipv6)) == 0) &&
        (what = "Failed to bind address", zmq_bind(s, ep->address) == 0)) {
        z->socks = xrealloc(z->socks, (z->nsocks + 1) * sizeof(*z->socks));
        z->sock_addr = xrealloc(z->sock_addr, (z->nsocks + 1) * sizeof(*z->sock_addr));
        z->socks[z->nsocks] = s;
        z->sock_addr[z->nsocks] = ep->address;
        *out = z->nsocks++;
        return RC_OK;
    }
    snprintf(err, err_len, "Notifier %s failed (address = %s): %s, msg: %s",
             notify_zmq_type_name(ep->topic), ep->address, what, zmq_strerror(zmq_errno()));
    if (s) {
        int linger = 0;
        zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_close(s);
    }
    return RC_IO;
}

static void close_sockets(struct notify_zmq *z)
{
    for (size_t i = 0; i < z->nsocks; i++) {
        int linger = 0;
        zmq_setsockopt(z->socks[i], ZMQ_LINGER, &linger, sizeof(linger));
        LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Close socket at address %s", z->sock_addr[i]);
        zmq_close(z->socks[i]);
    }
    z->nsocks = 0;
}

/* ---- the thread: sending ---------------------------------------------------------------- */

/* One message of notifier k: topic, body, its counter (Core's SendZmqMessage). */
static void send_msg(struct notify_zmq *z, struct notifier *k, const void *body, size_t len)
{
    const char *topic = notify_zmq_topic_name(k->topic);
    void *s = z->socks[k->sock];
    uint8_t seq[4] = {(uint8_t)k->seq, (uint8_t)(k->seq >> 8), (uint8_t)(k->seq >> 16),
                      (uint8_t)(k->seq >> 24)};
    if (zmq_send(s, topic, strlen(topic), ZMQ_SNDMORE) < 0 ||
        zmq_send(s, body, len, ZMQ_SNDMORE) < 0 || zmq_send(s, seq, 4, 0) < 0) {
        LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Error: Unable to send ZMQ msg, msg: %s",
            zmq_strerror(zmq_errno()));
        return;
    }
    k->seq++;
}

/* Every notifier of topic t gets body. */
static void send_topic(struct notify_zmq *z, enum notify_zmq_topic t, const void *body,
                       size_t len)
{
    for (size_t i = 0; i < z->n; i++) {
        if (z->nf[i].topic == t) {
            send_msg(z, &z->nf[i], body, len);
        }
    }
}

static void send_sequence(struct notify_zmq *z, const uint8_t hash[32], char label,
                          const uint64_t *mempool_seq)
{
    uint8_t body[41];
    for (int i = 0; i < 32; i++) {
        body[i] = hash[31 - i];
    }
    body[32] = (uint8_t)label;
    size_t len = 33;
    if (mempool_seq) {
        for (int i = 0; i < 8; i++) {
            body[33 + i] = (uint8_t)(*mempool_seq >> (8 * i));
        }
        len = 41;
    }
    send_topic(z, NOTIFY_ZMQ_SEQUENCE, body, len);
}

/* A transaction to hashtx and rawtx, notifier by notifier (raw may be NULL when no rawtx
 * notifier listens). */
static void send_tx(struct notify_zmq *z, const uint8_t txid[32], const uint8_t *raw,
                    size_t raw_len)
{
    uint8_t rev[32];
    for (int i = 0; i < 32; i++) {
        rev[i] = txid[31 - i];
    }
    for (size_t i = 0; i < z->n; i++) {
        if (z->nf[i].topic == NOTIFY_ZMQ_HASHTX) {
            send_msg(z, &z->nf[i], rev, 32);
        } else if (z->nf[i].topic == NOTIFY_ZMQ_RAWTX && raw) {
            send_msg(z, &z->nf[i], raw, raw_len);
        }
    }
}

/* Reads the stored block of e (as getblock reads it: the entry copied under the read lock,
 * the file read without it). */
static int read_block(struct notify_zmq *z, const struct block_index *e, struct buf *raw)
{
    chainstate_read_lock(z->cs);
    struct block_index at = *e;
    chainstate_read_unlock(z->cs);
    int rc = chainstate_read_block(z->cs, &at, raw);
    if (rc) {
        char hx[65];
        hex_encode_rev(hx, e->hash, 32);
        LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Error: Can't read block %s from disk (%s)", hx,
            rc_str(rc));
    }
    return rc;
}

/* A block's transactions: from its bytes on disk when rawtx wants them, else the txids. */
static void send_block_txs(struct notify_zmq *z, const struct ev *v)
{
    struct buf raw;
    buf_init(&raw);
    if (!z->want[NOTIFY_ZMQ_RAWTX] || read_block(z, v->e, &raw) != RC_OK) {
        for (size_t i = 0; i < v->ntx; i++) {
            send_tx(z, v->txids[i], NULL, 0);
        }
        buf_clear(&raw);
        return;
    }
    struct reader r;
    reader_init(&r, raw.data, raw.len);
    uint64_t count = 0;
    reader_skip(&r, 80, "header");
    ser_get_compact(&r, &count, "tx count");
    size_t i = 0;
    for (; i < count && r.rc == RC_OK; i++) {
        size_t start = r.pos;
        struct tx tx;
        if (tx_parse(&tx, &r, 1) != RC_OK) {
            break;
        }
        send_tx(z, tx.txid, raw.data + start, r.pos - start);
        tx_clear(&tx);
    }
    for (; i < v->ntx; i++) { /* the stored block did not parse (cannot happen): hashes */
        send_tx(z, v->txids[i], NULL, 0);
    }
    buf_clear(&raw);
}

static void publish(struct notify_zmq *z, const struct ev *v)
{
    switch (v->kind) {
    case EV_TX_ADDED:
        send_tx(z, v->hash, v->raw, v->raw_len);
        send_sequence(z, v->hash, 'A', &v->seq);
        break;
    case EV_TX_REMOVED:
        send_sequence(z, v->hash, 'R', &v->seq);
        break;
    case EV_CONNECTED:
    case EV_DISCONNECTED:
        send_block_txs(z, v);
        send_sequence(z, v->hash, v->kind == EV_CONNECTED ? 'C' : 'D', NULL);
        break;
    case EV_TIP: {
        uint8_t rev[32];
        for (int i = 0; i < 32; i++) {
            rev[i] = v->hash[31 - i];
        }
        send_topic(z, NOTIFY_ZMQ_HASHBLOCK, rev, 32);
        struct buf raw;
        buf_init(&raw);
        if (z->want[NOTIFY_ZMQ_RAWBLOCK] && read_block(z, v->e, &raw) == RC_OK) {
            send_topic(z, NOTIFY_ZMQ_RAWBLOCK, raw.data, raw.len);
        }
        buf_clear(&raw);
        break;
    }
    }
}

static void ev_free(struct ev *v)
{
    free(v->txids);
    free(v->raw);
    free(v);
}

static void *thread_main(void *arg)
{
    struct notify_zmq *z = arg;
    log_thread_start("zmqpub");
    pthread_mutex_lock(&z->mu);
    for (;;) {
        while (!z->q_head && !z->stop) {
            pthread_cond_wait(&z->cv, &z->mu);
        }
        struct ev *list = z->q_head;
        z->q_head = NULL;
        z->q_tail = &z->q_head;
        if (!list && z->stop) {
            break;
        }
        pthread_mutex_unlock(&z->mu);
        while (list) {
            struct ev *next = list->next;
            publish(z, list);
            ev_free(list);
            list = next;
        }
        pthread_mutex_lock(&z->mu);
    }
    pthread_mutex_unlock(&z->mu);
    return NULL;
}

/* ---- the listeners (validation thread) -------------------------------------------------- */

static struct ev *ev_new(enum ev_kind kind, const uint8_t hash[32])
{
    struct ev *v = xcalloc(1, sizeof(*v));
    v->kind = kind;
    memcpy(v->hash, hash, 32);
    return v;
}

static void enqueue(struct notify_zmq *z, struct ev *v)
{
    pthread_mutex_lock(&z->mu);
    *z->q_tail = v;
    for (; v; v = v->next) {
        z->q_tail = &v->next;
    }
    pthread_cond_signal(&z->cv);
    pthread_mutex_unlock(&z->mu);
}

static struct ev *block_ev(struct notify_zmq *z, enum ev_kind kind, const struct block_index *e,
                           const struct block *b)
{
    struct ev *v = ev_new(kind, e->hash);
    v->e = e;
    if (z->want[NOTIFY_ZMQ_HASHTX] || z->want[NOTIFY_ZMQ_RAWTX]) {
        v->ntx = b->tx_count;
        v->txids = xmalloc((b->tx_count ? b->tx_count : 1) * 32);
        for (size_t i = 0; i < b->tx_count; i++) {
            memcpy(v->txids[i], b->txs[i].txid, 32);
        }
    }
    return v;
}

static void on_connected(void *ctx, struct chainstate *cs, const struct block_index *e,
                         const struct block *b)
{
    struct notify_zmq *z = ctx;
    (void)cs;
    struct ev *v = block_ev(z, EV_CONNECTED, e, b);
    *z->pend_tail = v; /* told when the step ends (on_settled) */
    z->pend_tail = &v->next;
    z->connected = 1;
}

static void on_disconnected(void *ctx, struct chainstate *cs, const struct block_index *e,
                            const struct block *b)
{
    struct notify_zmq *z = ctx;
    (void)cs;
    enqueue(z, block_ev(z, EV_DISCONNECTED, e, b));
}

static void flush_pending(struct notify_zmq *z)
{
    if (z->pend_head) {
        enqueue(z, z->pend_head);
        z->pend_head = NULL;
        z->pend_tail = &z->pend_head;
    }
}

static void on_settled(void *ctx, const struct block_index *tip, int ibd)
{
    struct notify_zmq *z = ctx;
    flush_pending(z);
    /* Core's UpdatedBlockTip: not in initial block download, not after only disconnecting. */
    if (z->connected && !ibd &&
        (z->want[NOTIFY_ZMQ_HASHBLOCK] || z->want[NOTIFY_ZMQ_RAWBLOCK])) {
        struct ev *v = ev_new(EV_TIP, tip->hash);
        v->e = tip;
        enqueue(z, v);
    }
    z->connected = 0;
}

static void on_added(void *ctx, const struct mempool_entry *e, uint64_t seq)
{
    struct notify_zmq *z = ctx;
    struct ev *v = ev_new(EV_TX_ADDED, e->tx.txid);
    v->seq = seq;
    if (z->want[NOTIFY_ZMQ_RAWTX]) {
        v->raw = xmemdup(e->raw, e->raw_len);
        v->raw_len = e->raw_len;
    }
    enqueue(z, v);
}

static void on_removed(void *ctx, const struct mempool_entry *e, enum mempool_removal why,
                       uint64_t seq)
{
    struct notify_zmq *z = ctx;
    if (why == MEMPOOL_REMOVED_BLOCK || !z->want[NOTIFY_ZMQ_SEQUENCE]) {
        return; /* Core tells no removal for a block */
    }
    struct ev *v = ev_new(EV_TX_REMOVED, e->tx.txid);
    v->seq = seq;
    enqueue(z, v);
}

static struct chainstate_listener listener(struct notify_zmq *z)
{
    struct chainstate_listener l = {.block_connected = on_connected,
                                    .block_disconnected = on_disconnected,
                                    .tip_settled = on_settled,
                                    .ctx = z};
    return l;
}

/* ---- life ------------------------------------------------------------------------------- */

int notify_zmq_new(struct notify_zmq **out, const struct notify_zmq_endpoint *eps, size_t n,
                   struct chainstate *cs, char *err, size_t err_len)
{
    struct notify_zmq *z = xcalloc(1, sizeof(*z));
    int major, minor, patch;
    zmq_version(&major, &minor, &patch);
    LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "version %d.%d.%d", major, minor, patch);
    LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Initialize notification interface");
    z->cs = cs;
    z->pend_tail = &z->pend_head;
    z->q_tail = &z->q_head;
    pthread_mutex_init(&z->mu, NULL);
    pthread_cond_init(&z->cv, NULL);
    z->eps = xcalloc(n ? n : 1, sizeof(*z->eps));
    z->nf = xcalloc(n ? n : 1, sizeof(*z->nf));
    int rc = (z->ctx = zmq_ctx_new()) ? RC_OK : RC_IO;
    if (rc) {
        snprintf(err, err_len, "Unable to initialize context");
    }
    for (size_t i = 0; i < n && rc == RC_OK; i++) {
        z->eps[i] = eps[i];
        z->eps[i].address = xstrdup(eps[i].address);
        z->n = i + 1;
        LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Outbound message high water mark for %s at %s is %d",
            notify_zmq_type_name(eps[i].topic), eps[i].address, eps[i].hwm);
        z->nf[i].topic = eps[i].topic;
        if ((rc = open_socket(z, &z->eps[i], &z->nf[i].sock, err, err_len)) == RC_OK) {
            z->want[eps[i].topic] = 1;
            LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Notifier %s ready (address = %s)",
                notify_zmq_type_name(eps[i].topic), eps[i].address);
        }
    }
    if (rc == RC_OK && pthread_create(&z->thread, NULL, thread_main, z) != 0) {
        snprintf(err, err_len, "cannot start the ZMQ thread");
        rc = RC_IO;
    }
    z->started = rc == RC_OK;
    if (rc) {
        notify_zmq_free(z);
        return rc;
    }
    *out = z;
    return RC_OK;
}

int notify_zmq_attach(struct notify_zmq *z, struct chainstate *cs, struct mempool *mp)
{
    struct chainstate_listener l = listener(z);
    int rc = chainstate_add_listener(cs, &l);
    if (rc == RC_OK && mp) {
        struct mempool_listener m = {.added = on_added, .removed = on_removed, .ctx = z};
        rc = mempool_add_listener(mp, &m);
    }
    return rc;
}

void notify_zmq_detach(struct notify_zmq *z, struct chainstate *cs)
{
    struct chainstate_listener l = listener(z);
    chainstate_remove_listener(cs, &l);
    flush_pending(z);
}

const struct notify_zmq_endpoint *notify_zmq_endpoints(const struct notify_zmq *z, size_t *n)
{
    *n = z->n;
    return z->eps;
}

void notify_zmq_free(struct notify_zmq *z)
{
    if (!z) {
        return;
    }
    LOG(LOG_CAT_ZMQ, LOG_LVL_DEBUG, "Shutdown notification interface");
    if (z->started) {
        pthread_mutex_lock(&z->mu);
        z->stop = 1;
        pthread_cond_signal(&z->cv);
        pthread_mutex_unlock(&z->mu);
        pthread_join(z->thread, NULL);
    }
    close_sockets(z);
    if (z->ctx) {
        zmq_ctx_term(z->ctx);
    }
    for (struct ev *v = z->pend_head, *next; v; v = next) {
        next = v->next;
        ev_free(v);
    }
    for (size_t i = 0; i < z->n; i++) {
        free(z->eps[i].address);
    }
    free(z->eps);
    free(z->nf);
    free(z->socks);
    free(z->sock_addr);
    pthread_mutex_destroy(&z->mu);
    pthread_cond_destroy(&z->cv);
    free(z);
}
