/* The candidate set (candidates.h). */
#include "validation/candidates.h"

#include <stdlib.h>

#include "util/xmalloc.h"

void candidates_init(struct candidates *c)
{
    *c = (struct candidates){.next_sequence = CANDIDATES_SEQ_FIRST};
}

void candidates_clear(struct candidates *c)
{
    free(c->v);
    free(c->unlinked);
    candidates_init(c);
}

int candidates_better(const struct block_index *a, const struct block_index *b)
{
    int c = u256_cmp(&a->chain_work, &b->chain_work);
    if (c) {
        return c > 0;
    }
    if (a->sequence_id != b->sequence_id) {
        return a->sequence_id < b->sequence_id;
    }
    return a < b;
}

void candidates_add(struct candidates *c, struct block_index *e)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i] == e) {
            return;
        }
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
    }
    c->v[c->n++] = e;
    c->stale = 1;
}

void candidates_add_unlinked(struct candidates *c, struct block_index *e)
{
    if (c->nunlinked == c->capunlinked) {
        c->capunlinked = c->capunlinked ? 2 * c->capunlinked : 64;
        c->unlinked = xrealloc(c->unlinked, c->capunlinked * sizeof(*c->unlinked));
    }
    c->unlinked[c->nunlinked].parent = e->prev;
    c->unlinked[c->nunlinked].child = e;
    c->nunlinked++;
}

void candidates_forget(struct candidates *c, struct block_index *e)
{
    for (size_t i = 0; i < c->n;) {
        if (c->v[i] == e) {
            c->v[i] = c->v[--c->n];
            c->stale = 1;
        } else {
            i++;
        }
    }
    for (size_t i = 0; i < c->nunlinked;) {
        if (c->unlinked[i].child == e || c->unlinked[i].parent == e) {
            c->unlinked[i] = c->unlinked[--c->nunlinked];
        } else {
            i++;
        }
    }
}

/* Appends the blocks that waited for x (x has its chain_tx) to queue, in the order they
 * came (Core's m_blocks_unlinked keeps it), and forgets them as waiters. */
static void take_waiters(struct candidates *c, struct block_index *x, struct block_index ***queue,
                         size_t *n, size_t *cap)
{
    size_t kept = 0;
    for (size_t i = 0; i < c->nunlinked; i++) {
        if (c->unlinked[i].parent == x) {
            if (*n == *cap) {
                *cap *= 2;
                *queue = xrealloc(*queue, *cap * sizeof(**queue));
            }
            (*queue)[(*n)++] = c->unlinked[i].child;
        } else {
            c->unlinked[kept++] = c->unlinked[i];
        }
    }
    c->nunlinked = kept;
}

/* Links each block of queue[0..n) and, in turn, those that waited for it, first in first
 * out: each gets the next sequence number as it is linked (Core's ReceivedBlockTransactions),
 * so on equal work the branch whose data was complete first wins. */
static void link_queue(struct candidates *c, struct block_index **queue, size_t n, size_t cap)
{
    for (size_t head = 0; head < n; head++) {
        struct block_index *x = queue[head];
        x->chain_tx = (x->prev ? x->prev->chain_tx : 0) + x->tx_count;
        x->sequence_id = c->next_sequence++;
        if (!block_index_failed(x)) {
            candidates_add(c, x);
        }
        take_waiters(c, x, &queue, &n, &cap);
    }
    free(queue);
}

void candidates_link(struct candidates *c, struct block_index *e)
{
    struct block_index **queue = xmalloc(sizeof(*queue));
    queue[0] = e;
    link_queue(c, queue, 1, 1);
}

void candidates_link_children(struct candidates *c, struct block_index *e)
{
    struct block_index **queue = xmalloc(sizeof(*queue));
    size_t n = 0, cap = 1;
    take_waiters(c, e, &queue, &n, &cap);
    link_queue(c, queue, n, cap);
}

struct rebuild {
    struct candidates *c;
    struct block_index *tip;
};

static int add_if_candidate(void *ctx, struct block_index *e)
{
    struct rebuild *r = ctx;
    if (e->chain_tx && (e->status & BLOCK_HAVE_DATA) && !block_index_failed(e) &&
        (!r->tip || !candidates_better(r->tip, e) || e == r->tip)) {
        candidates_add(r->c, e);
    }
    return 0;
}

void candidates_rebuild(struct candidates *c, struct block_tree *tree, struct block_index *tip)
{
    struct rebuild r = {c, tip};
    c->n = 0;
    c->stale = 1;
    block_tree_foreach(tree, add_if_candidate, &r);
}

/* Drops the failed candidates and those worse than tip. */
static void prune(struct candidates *c, struct block_index *tip)
{
    for (size_t i = 0; i < c->n;) {
        struct block_index *e = c->v[i];
        if (block_index_failed(e) || (tip && e != tip && candidates_better(tip, e))) {
            c->v[i] = c->v[--c->n];
        } else {
            i++;
        }
    }
}

/* The best candidate (under only_under when given); failed ones are dropped on the way. */
static struct block_index *best(struct candidates *c, struct block_index *only_under)
{
    struct block_index *b = NULL;
    for (size_t i = 0; i < c->n;) {
        struct block_index *e = c->v[i];
        if (block_index_failed(e)) {
            c->v[i] = c->v[--c->n];
            continue;
        }
        if (only_under && block_index_ancestor(only_under, e->height) != e) {
            i++; /* off the best header chain: kept for later */
            continue;
        }
        if (!b || candidates_better(e, b)) {
            b = e;
        }
        i++;
    }
    return b;
}

struct block_index *candidates_target(struct candidates *c, struct block_index *tip,
                                      struct block_index *only_under)
{
    if (c->stale || !c->target || block_index_failed(c->target)) {
        prune(c, tip);
        c->target = best(c, only_under);
        c->stale = 0;
    }
    return c->target;
}
