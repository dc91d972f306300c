/* Inbound eviction (evict.h). */
#include "net/evict.h"

#include <stdlib.h>

/* Sorted so that the protected ones come last, then the last k are dropped. */
typedef int (*cmp_fn)(const void *, const void *);

static int by_netgroup(const void *a, const void *b)
{
    const struct evict_candidate *x = a, *y = b;
    return x->keyed_netgroup < y->keyed_netgroup ? -1 : x->keyed_netgroup > y->keyed_netgroup;
}

/* The lowest pings protected (sorted last); a peer without a ping yet counts as slowest. */
static int by_ping(const void *a, const void *b)
{
    const struct evict_candidate *x = a, *y = b;
    int64_t px = x->min_ping_us < 0 ? INT64_MAX : x->min_ping_us;
    int64_t py = y->min_ping_us < 0 ? INT64_MAX : y->min_ping_us;
    return px > py ? -1 : px < py;
}

static int by_tx(const void *a, const void *b)
{
    const struct evict_candidate *x = a, *y = b;
    if (x->last_tx != y->last_tx) {
        return x->last_tx < y->last_tx ? -1 : 1;
    }
    if (x->relay_txs != y->relay_txs) {
        return x->relay_txs ? 1 : -1;
    }
    if (x->bloom_filter != y->bloom_filter) {
        return x->bloom_filter ? -1 : 1;
    }
    return x->conn_time > y->conn_time ? -1 : x->conn_time < y->conn_time;
}

static int by_block(const void *a, const void *b)
{
    const struct evict_candidate *x = a, *y = b;
    if (x->last_block != y->last_block) {
        return x->last_block < y->last_block ? -1 : 1;
    }
    return x->conn_time > y->conn_time ? -1 : x->conn_time < y->conn_time;
}

/* Older connections protected: the youngest first. */
static int by_uptime(const void *a, const void *b)
{
    const struct evict_candidate *x = a, *y = b;
    return x->conn_time > y->conn_time ? -1 : x->conn_time < y->conn_time;
}

static size_t protect_last(struct evict_candidate *c, size_t n, cmp_fn cmp, size_t k)
{
    qsort(c, n, sizeof(*c), cmp);
    return n > k ? n - k : 0;
}

int64_t evict_select(struct evict_candidate *c, size_t n)
{
    n = protect_last(c, n, by_netgroup, 4);
    n = protect_last(c, n, by_ping, 8);
    n = protect_last(c, n, by_tx, 4);
    n = protect_last(c, n, by_block, 4);
    /* Half of the rest by uptime (Core protects local peers within that half first: they
     * may be onion peers, which look alike; here they are counted with the rest). */
    n = protect_last(c, n, by_uptime, n / 2);
    if (n == 0) {
        return -1;
    }
    /* The network group with the most candidates (ties: the one with the youngest peer),
     * and its youngest. */
    qsort(c, n, sizeof(*c), by_netgroup);
    size_t best_start = 0, best_len = 0;
    int64_t best_young = INT64_MIN;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t young = INT64_MIN;
        while (j < n && c[j].keyed_netgroup == c[i].keyed_netgroup) {
            if (c[j].conn_time > young) {
                young = c[j].conn_time;
            }
            j++;
        }
        if (j - i > best_len || (j - i == best_len && young > best_young)) {
            best_start = i;
            best_len = j - i;
            best_young = young;
        }
        i = j;
    }
    size_t pick = best_start;
    for (size_t i = best_start; i < best_start + best_len; i++) {
        if (c[i].conn_time > c[pick].conn_time ||
            (c[i].conn_time == c[pick].conn_time && c[i].id > c[pick].id)) {
            pick = i;
        }
    }
    return c[pick].id;
}
