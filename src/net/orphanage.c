/* The orphanage (orphanage.h): an array of orphans, searched linearly (its limits keep it to
 * a few thousand entries at most). */
#include <stdlib.h>
#include <string.h>

#include "net/orphanage.h"
#include "primitives/block.h"
#include "util/hex.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define MAX_ORPHANAGE_LATENCY_SCORE 3000
#define RESERVED_ORPHAN_WEIGHT_PER_PEER 404000
#define MAX_STANDARD_TX_WEIGHT 400000

struct orphanage {
    struct orphan *v;
    size_t n, cap;
    uint64_t seq;
};

int orphanage_new(struct orphanage **out)
{
    *out = xcalloc(1, sizeof(**out));
    return RC_OK;
}

void orphanage_orphan_clear(struct orphan *x)
{
    free(x->raw);
    free(x->spends);
    memset(x, 0, sizeof(*x));
}

void orphanage_free(struct orphanage *o)
{
    if (!o) {
        return;
    }
    for (size_t i = 0; i < o->n; i++) {
        orphanage_orphan_clear(&o->v[i]);
    }
    free(o->v);
    free(o);
}

/* Removes the orphan at index i (the last one moves there). */
static void remove_at(struct orphanage *o, size_t i)
{
    orphanage_orphan_clear(&o->v[i]);
    o->v[i] = o->v[--o->n];
    memset(&o->v[o->n], 0, sizeof(o->v[0]));
}

static struct orphan *find(const struct orphanage *o, const uint8_t wtxid[32])
{
    for (size_t i = 0; i < o->n; i++) {
        if (memcmp(o->v[i].wtxid, wtxid, 32) == 0) {
            return &o->v[i];
        }
    }
    return NULL;
}

const struct orphan *orphanage_get(const struct orphanage *o, const uint8_t wtxid[32])
{
    return find(o, wtxid);
}

int orphanage_has_announcer(const struct orphan *x, int64_t peer)
{
    for (size_t k = 0; k < x->n_from; k++) {
        if (x->from[k] == peer) {
            return 1;
        }
    }
    return 0;
}

/* Takes peer out of x's announcers, keeping their order: 1 if it was one. */
static int drop_announcer(struct orphan *x, int64_t peer)
{
    for (size_t k = 0; k < x->n_from; k++) {
        if (x->from[k] == peer) {
            memmove(&x->from[k], &x->from[k + 1], (x->n_from - k - 1) * sizeof(x->from[0]));
            x->n_from--;
            return 1;
        }
    }
    return 0;
}

const struct orphan *orphanage_add(struct orphanage *o, const uint8_t *raw, size_t len,
                                   const struct tx *tx)
{
    char txid[65], wtxid[65];
    hex_encode_rev(txid, tx->txid, 32);
    hex_encode_rev(wtxid, tx->wtxid, 32);
    size_t weight = tx_weight(tx);
    if (weight > MAX_STANDARD_TX_WEIGHT) {
        LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG,
            "ignoring large orphan tx (size: %zu, txid: %s, wtxid: %s)", weight, txid, wtxid);
        return NULL;
    }
    if (find(o, tx->wtxid)) {
        return NULL;
    }
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
    }
    struct orphan *x = &o->v[o->n++];
    memset(x, 0, sizeof(*x));
    x->weight = weight;
    x->raw = xmalloc(len ? len : 1);
    memcpy(x->raw, raw, len);
    x->len = len;
    memcpy(x->txid, tx->txid, 32);
    memcpy(x->wtxid, tx->wtxid, 32);
    x->n_spends = tx->vin_count;
    x->spends = xmalloc((tx->vin_count ? tx->vin_count : 1) * sizeof(*x->spends));
    for (size_t i = 0; i < tx->vin_count; i++) {
        x->spends[i] = tx->vin[i].prevout;
    }
    x->seq = o->seq++;
    LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG, "stored orphan tx %s (wtxid=%s), weight: %zu (mapsz %zu)",
        txid, wtxid, weight, o->n);
    return x;
}

int orphanage_add_announcer(struct orphanage *o, const uint8_t wtxid[32], int64_t peer)
{
    struct orphan *x = find(o, wtxid);
    if (!x || orphanage_has_announcer(x, peer) || x->n_from == ORPHANAGE_MAX_ANNOUNCERS) {
        return 0;
    }
    if (x->n_from > 0) {
        char txid[65], w[65];
        hex_encode_rev(txid, x->txid, 32);
        hex_encode_rev(w, x->wtxid, 32);
        LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG,
            "added peer=%lld as announcer of orphan tx %s (wtxid=%s)", (long long)peer, txid, w);
    }
    x->from[x->n_from++] = peer;
    return 1;
}

int orphanage_erase(struct orphanage *o, const uint8_t wtxid[32])
{
    struct orphan *x = find(o, wtxid);
    if (!x) {
        return 0;
    }
    remove_at(o, (size_t)(x - o->v));
    return 1;
}

void orphanage_erase_for_peer(struct orphanage *o, int64_t peer)
{
    size_t erased = 0;
    for (size_t i = 0; i < o->n;) {
        erased += (size_t)drop_announcer(&o->v[i], peer);
        if (o->v[i].n_from == 0) {
            remove_at(o, i);
        } else {
            i++;
        }
    }
    if (erased) {
        LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG, "Erased %zu orphan transaction(s) from peer=%lld",
            erased, (long long)peer);
    }
}

static int spends_outpoint(const struct orphan *x, const struct outpoint *op)
{
    for (size_t k = 0; k < x->n_spends; k++) {
        if (x->spends[k].n == op->n && memcmp(x->spends[k].txid, op->txid, 32) == 0) {
            return 1;
        }
    }
    return 0;
}

static int spends_tx(const struct orphan *x, const uint8_t txid[32])
{
    for (size_t k = 0; k < x->n_spends; k++) {
        if (memcmp(x->spends[k].txid, txid, 32) == 0) {
            return 1;
        }
    }
    return 0;
}

void orphanage_erase_for_block(struct orphanage *o, const struct block *b)
{
    size_t erased = 0;
    for (size_t t = 0; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        for (size_t v = 0; v < tx->vin_count; v++) {
            for (size_t i = 0; i < o->n;) {
                if (spends_outpoint(&o->v[i], &tx->vin[v].prevout)) {
                    remove_at(o, i);
                    erased++;
                } else {
                    i++;
                }
            }
        }
    }
    if (erased) {
        LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG,
            "Erased %zu orphan transaction(s) included or conflicted by block", erased);
    }
}

size_t orphanage_take_children(struct orphanage *o, struct orphan **out, const uint8_t txid[32])
{
    size_t k = 0;
    *out = NULL;
    for (size_t i = 0; i < o->n;) {
        if (!spends_tx(&o->v[i], txid)) {
            i++;
            continue;
        }
        *out = xrealloc(*out, (k + 1) * sizeof(**out));
        (*out)[k++] = o->v[i]; /* ownership passes */
        o->v[i] = o->v[--o->n];
        memset(&o->v[o->n], 0, sizeof(o->v[0]));
    }
    return k;
}

const struct orphan *orphanage_child_from_peer(const struct orphanage *o,
                                               const uint8_t parent_txid[32], int64_t peer,
                                               int (*ok)(void *ctx, const struct orphan *x),
                                               void *ctx)
{
    const struct orphan *best = NULL;
    for (size_t i = 0; i < o->n; i++) {
        const struct orphan *x = &o->v[i];
        if ((!best || x->seq > best->seq) && spends_tx(x, parent_txid) &&
            orphanage_has_announcer(x, peer) && ok(ctx, x)) {
            best = x;
        }
    }
    return best;
}

/* A peer's use of the orphanage: its latency score and the weight it announced. */
struct orphan_use {
    int64_t peer;
    size_t score, weight;
};

/* The peers with announcements and their use: *use (caller frees), their count; the totals
 * (each transaction's weight once) in *score and *weight. */
static size_t usage(const struct orphanage *o, struct orphan_use **use, size_t *score,
                    size_t *weight)
{
    size_t n = 0;
    *use = NULL;
    *score = *weight = 0;
    for (size_t i = 0; i < o->n; i++) {
        const struct orphan *x = &o->v[i];
        *score += x->n_spends / 10 + x->n_from;
        *weight += x->weight;
        for (size_t k = 0; k < x->n_from; k++) {
            size_t m = 0;
            while (m < n && (*use)[m].peer != x->from[k]) {
                m++;
            }
            if (m == n) {
                *use = xrealloc(*use, (n + 1) * sizeof(**use));
                (*use)[n++] = (struct orphan_use){.peer = x->from[k]};
            }
            (*use)[m].score += 1 + x->n_spends / 10;
            (*use)[m].weight += x->weight;
        }
    }
    return n;
}

/* The peer to trim next, or -1 when within the limits: the one using the most of its share
 * (of the latency score or of the reserved weight, whichever is more; the newer peer on a
 * tie). */
static int64_t worst_peer(const struct orphanage *o)
{
    struct orphan_use *use;
    size_t score, weight;
    size_t n = usage(o, &use, &score, &weight);
    size_t peers = n ? n : 1;
    int64_t worst = -1;
    if (score > MAX_ORPHANAGE_LATENCY_SCORE ||
        weight > (size_t)RESERVED_ORPHAN_WEIGHT_PER_PEER * peers) {
        double share = (double)MAX_ORPHANAGE_LATENCY_SCORE / (double)peers, worst_dos = -1;
        for (size_t m = 0; m < n; m++) {
            double a = (double)use[m].score / share;
            double b = (double)use[m].weight / RESERVED_ORPHAN_WEIGHT_PER_PEER;
            double dos = a > b ? a : b;
            if (dos > worst_dos || (dos == worst_dos && use[m].peer > worst)) {
                worst_dos = dos;
                worst = use[m].peer;
            }
        }
    }
    free(use);
    return worst;
}

void orphanage_limit(struct orphanage *o)
{
    size_t before = o->n, erased = 0;
    int64_t worst;
    while ((worst = worst_peer(o)) >= 0) {
        struct orphan *oldest = NULL;
        for (size_t i = 0; i < o->n; i++) {
            if (orphanage_has_announcer(&o->v[i], worst) && (!oldest || o->v[i].seq < oldest->seq)) {
                oldest = &o->v[i];
            }
        }
        if (!oldest) {
            break;
        }
        drop_announcer(oldest, worst);
        erased++;
        if (oldest->n_from == 0) {
            remove_at(o, (size_t)(oldest - o->v));
        }
    }
    if (erased) {
        LOG(LOG_CAT_TXPACKAGES, LOG_LVL_DEBUG, "orphanage overflow, removed %zu tx (%zu announcements)",
            before - o->n, erased);
    }
}

size_t orphanage_size(const struct orphanage *o)
{
    return o->n;
}

const struct orphan *orphanage_at(const struct orphanage *o, size_t i)
{
    return &o->v[i];
}
