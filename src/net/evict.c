/* Inbound eviction (evict.h). */
#include "net/evict.h"

#include <stdlib.h>
#include <string.h>

#include "net/netaddr.h"
#include "util/xmalloc.h"

/* Each step sorts so that the protected ones come last, then drops some of the last k. A
 * comparator gets a context (the network a ratio step favours). */
typedef int (*cmp_fn)(const struct evict_candidate *a, const struct evict_candidate *b,
                      const void *ctx);
typedef int (*pred_fn)(const struct evict_candidate *c, const void *ctx);

/* Newer first: younger peers sort before older ones. */
static int younger_first(const struct evict_candidate *x, const struct evict_candidate *y)
{
    return x->conn_time > y->conn_time ? -1 : x->conn_time < y->conn_time;
}

static int by_netgroup(const struct evict_candidate *x, const struct evict_candidate *y,
                       const void *ctx)
{
    (void)ctx;
    return x->keyed_netgroup < y->keyed_netgroup ? -1 : x->keyed_netgroup > y->keyed_netgroup;
}

/* The lowest pings protected (sorted last); a peer without a ping yet counts as slowest. */
static int by_ping(const struct evict_candidate *x, const struct evict_candidate *y,
                   const void *ctx)
{
    (void)ctx;
    int64_t px = x->min_ping_us < 0 ? INT64_MAX : x->min_ping_us;
    int64_t py = y->min_ping_us < 0 ? INT64_MAX : y->min_ping_us;
    return px > py ? -1 : px < py;
}

static int by_tx(const struct evict_candidate *x, const struct evict_candidate *y, const void *ctx)
{
    (void)ctx;
    if (x->last_tx != y->last_tx) {
        return x->last_tx < y->last_tx ? -1 : 1;
    }
    if (x->relay_txs != y->relay_txs) {
        return x->relay_txs ? 1 : -1;
    }
    if (x->bloom_filter != y->bloom_filter) {
        return x->bloom_filter ? -1 : 1;
    }
    return younger_first(x, y);
}

/* The transaction relayers first, then the block-relay-only peers by their last block. */
static int by_block_relay_only(const struct evict_candidate *x, const struct evict_candidate *y,
                               const void *ctx)
{
    (void)ctx;
    if (x->relay_txs != y->relay_txs) {
        return x->relay_txs ? -1 : 1;
    }
    if (x->last_block != y->last_block) {
        return x->last_block < y->last_block ? -1 : 1;
    }
    if (x->relevant_services != y->relevant_services) {
        return x->relevant_services ? 1 : -1;
    }
    return younger_first(x, y);
}

static int is_block_relay_only(const struct evict_candidate *c, const void *ctx)
{
    (void)ctx;
    return !c->relay_txs && c->relevant_services;
}

static int by_block(const struct evict_candidate *x, const struct evict_candidate *y,
                    const void *ctx)
{
    (void)ctx;
    if (x->last_block != y->last_block) {
        return x->last_block < y->last_block ? -1 : 1;
    }
    if (x->relevant_services != y->relevant_services) {
        return x->relevant_services ? 1 : -1;
    }
    return younger_first(x, y);
}

/* Older connections protected: the youngest first. */
static int by_uptime(const struct evict_candidate *x, const struct evict_candidate *y,
                     const void *ctx)
{
    (void)ctx;
    return younger_first(x, y);
}

/* A disadvantaged network of the ratio step: localhost, or a network by its class. */
struct dis_net {
    int is_local;
    int network; /* -1 for localhost */
    size_t count;
};

static int in_dis_net(const struct evict_candidate *c, const void *ctx)
{
    const struct dis_net *d = ctx;
    return d->is_local ? c->local : c->network == d->network;
}

/* Core's CompareNodeNetworkTime: the peers of the network last, each part by uptime. */
static int by_network_time(const struct evict_candidate *x, const struct evict_candidate *y,
                           const void *ctx)
{
    const struct dis_net *d = ctx;
    if (d->is_local && x->local != y->local) {
        return x->local ? 1 : -1;
    }
    int xin = x->network == d->network, yin = y->network == d->network;
    if (xin != yin) {
        return xin ? 1 : -1;
    }
    return younger_first(x, y);
}

static int always(const struct evict_candidate *c, const void *ctx)
{
    (void)c;
    (void)ctx;
    return 1;
}

/* Stable merge sort of c[0..n) with tmp of n elements. */
static void merge_sort(struct evict_candidate *c, struct evict_candidate *tmp, size_t n, cmp_fn cmp,
                       const void *ctx)
{
    if (n < 2) {
        return;
    }
    size_t h = n / 2;
    merge_sort(c, tmp, h, cmp, ctx);
    merge_sort(c + h, tmp, n - h, cmp, ctx);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        tmp[k++] = cmp(&c[j], &c[i], ctx) < 0 ? c[j++] : c[i++];
    }
    while (i < h) {
        tmp[k++] = c[i++];
    }
    while (j < n) {
        tmp[k++] = c[j++];
    }
    memcpy(c, tmp, n * sizeof(*c));
}

/* Core's EraseLastKElements: sorts, then drops those of the last k that pred accepts (the
 * others keep their order). Returns the new count. */
static size_t protect_last_if(struct evict_candidate *c, struct evict_candidate *tmp, size_t n,
                              cmp_fn cmp, const void *ctx, size_t k, pred_fn pred)
{
    merge_sort(c, tmp, n, cmp, ctx);
    size_t start = n > k ? n - k : 0, w = start;
    for (size_t i = start; i < n; i++) {
        if (!pred(&c[i], ctx)) {
            c[w++] = c[i];
        }
    }
    return w;
}

static size_t protect_last(struct evict_candidate *c, struct evict_candidate *tmp, size_t n,
                           cmp_fn cmp, size_t k)
{
    return protect_last_if(c, tmp, n, cmp, NULL, k, always);
}

/* Core's ProtectEvictionCandidatesByRatio: half of the candidates protected, up to half of
 * those for the disadvantaged networks (the one with fewer candidates first to take a slot
 * left over), the rest by uptime. Returns the new count. */
static size_t protect_by_ratio(struct evict_candidate *c, struct evict_candidate *tmp, size_t n)
{
    const size_t total = n / 2, max_by_net = total / 2;
    struct dis_net nets[4] = {
        {0, NETWORK_CJDNS, 0}, {0, NETWORK_I2P, 0}, {1, -1, 0}, {0, NETWORK_ONION, 0}};
    for (size_t i = 0; i < 4; i++) {
        for (size_t j = 0; j < n; j++) {
            nets[i].count += in_dis_net(&c[j], &nets[i]);
        }
    }
    for (size_t i = 1; i < 4; i++) { /* stable, by ascending count */
        for (size_t j = i; j > 0 && nets[j].count < nets[j - 1].count; j--) {
            struct dis_net t = nets[j];
            nets[j] = nets[j - 1];
            nets[j - 1] = t;
        }
    }
    size_t done = 0;
    while (done < max_by_net) {
        size_t with = 0;
        for (size_t i = 0; i < 4; i++) {
            with += nets[i].count > 0;
        }
        if (with == 0) {
            break;
        }
        size_t per = (max_by_net - done) / with;
        per = per ? per : 1;
        int any = 0;
        for (size_t i = 0; i < 4 && done < max_by_net; i++) {
            if (nets[i].count == 0) {
                continue;
            }
            size_t before = n;
            n = protect_last_if(c, tmp, n, by_network_time, &nets[i], per, in_dis_net);
            if (before > n) {
                any = 1;
                done += before - n;
                nets[i].count -= before - n;
            }
        }
        if (!any) {
            break;
        }
    }
    return protect_last(c, tmp, n, by_uptime, total - done);
}

/* The youngest of the network group with the most of the n candidates, which are sorted
 * youngest first (ties: the group whose youngest is youngest, then the later id). tmp has
 * room for 2n. */
static int64_t pick_from_biggest_group(const struct evict_candidate *c, size_t n,
                                       struct evict_candidate *tmp)
{
    struct evict_candidate *g = tmp + n;
    memcpy(g, c, n * sizeof(*g));
    merge_sort(g, tmp, n, by_netgroup, NULL); /* stable: each group youngest first */
    size_t best = 0, best_len = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && g[j].keyed_netgroup == g[i].keyed_netgroup) {
            j++;
        }
        int better = j - i > best_len;
        if (j - i == best_len) {
            int cmp = younger_first(&g[i], &g[best]);
            better = cmp < 0 || (cmp == 0 && g[i].id > g[best].id);
        }
        if (better) {
            best = i;
            best_len = j - i;
        }
        i = j;
    }
    return g[best].id;
}

int64_t evict_select(struct evict_candidate *c, size_t n)
{
    if (n == 0) {
        return -1;
    }
    struct evict_candidate *tmp = xmalloc(2 * n * sizeof(*tmp));
    n = protect_last(c, tmp, n, by_netgroup, 4);
    n = protect_last(c, tmp, n, by_ping, 8);
    n = protect_last(c, tmp, n, by_tx, 4);
    n = protect_last_if(c, tmp, n, by_block_relay_only, NULL, 8, is_block_relay_only);
    n = protect_last(c, tmp, n, by_block, 4);
    n = protect_by_ratio(c, tmp, n);
    int64_t id = -1;
    if (n > 0) {
        /* Only the peers preferred for eviction if there are any (their order kept). */
        size_t w = 0;
        for (size_t i = 0; i < n; i++) {
            if (c[i].prefer_evict) {
                c[w++] = c[i];
            }
        }
        id = pick_from_biggest_group(c, w ? w : n, tmp);
    }
    free(tmp);
    return id;
}

int evict_max_inbound_tx_relay(int max_inbound, int percent)
{
    percent = percent < 0 ? 0 : percent > 100 ? 100 : percent;
    int m = (int)(percent / 100.0 * max_inbound);
    return m < 0 ? 0 : m;
}
