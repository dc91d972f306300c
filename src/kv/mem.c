/* kv backend "mem": an ordered in-memory B-tree (CLRS-style, minimum degree MEM_T).
 *
 * Why a B-tree: range scans cost O(log n + range) whatever the number of keys, unlike a hash
 * map that must be sorted per scan (the MemDB lesson). Why copy-on-write: iterators see a
 * snapshot, like LevelDB's. An iterator holds a reference on the root it started from; a
 * writer that reaches a node referenced more than once copies it (path copying) instead of
 * changing it, so nodes reachable from a snapshot never change. Without open iterators every
 * node has one reference and writes change nodes in place, with no copying cost.
 *
 * Items (a key and its value) are immutable and reference-counted too, so a copied node
 * shares them with the original.
 *
 * Locking: one rwlock per store. Gets read-lock; writes, and taking or dropping a snapshot
 * reference, write-lock. Iterators walk their snapshot without the lock: nothing in it
 * changes while they hold it (reference counts live in fields iterators never read).
 *
 * Named stores (a non-empty path) stay in a process-wide list after kv_close() so that a
 * reopen sees the same data; kv_destroy() drops them.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kv/backend.h"
#include "kv/kv.h"
#include "util/check.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define MEM_T 16
#define MEM_MAX (2 * MEM_T - 1)
#define MEM_MAX_DEPTH 48

struct item {
    size_t rc;
    uint32_t klen;
    uint32_t vlen;
    uint8_t data[]; /* key then value */
};

struct node {
    size_t rc;
    int n;
    int leaf;
    struct item *items[MEM_MAX];
    struct node *kids[MEM_MAX + 1]; /* unused in leaves */
};

struct tree {
    pthread_rwlock_t lock;
    struct node *root;
    uint64_t entries;
    uint64_t bytes; /* items and nodes allocated */
    char *name;     /* NULL for an anonymous store */
    int open;       /* a handle is open on it */
    struct tree *next_named;
};

struct kv_mem {
    struct kv base; /* first: base.ops */
    struct tree *t;
};

struct mem_iter {
    struct kv_iter base; /* first: base.ops */
    struct kv_mem *db;
    struct node *root; /* the snapshot: one reference held */
    int depth;         /* stack entries in use; 0 = not valid */
    struct {
        struct node *node;
        int idx;
    } stack[MEM_MAX_DEPTH];
};

static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tree *named_trees;

/* ---- items and nodes ---------------------------------------------------------------- */

static struct item *item_new(struct tree *t, const uint8_t *k, size_t klen, const uint8_t *v,
                             size_t vlen)
{
    struct item *it = xmalloc(sizeof(*it) + klen + vlen);
    it->rc = 1;
    it->klen = (uint32_t)klen;
    it->vlen = (uint32_t)vlen;
    if (klen) {
        memcpy(it->data, k, klen);
    }
    if (vlen) {
        memcpy(it->data + klen, v, vlen);
    }
    t->bytes += sizeof(*it) + klen + vlen;
    return it;
}

static void item_unref(struct tree *t, struct item *it)
{
    CHECK_ALWAYS(it->rc > 0);
    if (--it->rc == 0) {
        t->bytes -= sizeof(*it) + it->klen + it->vlen;
        free(it);
    }
}

static int item_cmp(const struct item *it, const uint8_t *k, size_t klen)
{
    return kv_key_cmp(it->data, it->klen, k, klen);
}

static struct node *node_new(struct tree *t, int leaf)
{
    struct node *n = xmalloc(sizeof(*n));
    n->rc = 1;
    n->n = 0;
    n->leaf = leaf;
    t->bytes += sizeof(*n);
    return n;
}

/* Frees a node shell whose contents were moved elsewhere. */
static void node_free_shell(struct tree *t, struct node *n)
{
    t->bytes -= sizeof(*n);
    free(n);
}

static void node_unref(struct tree *t, struct node *n)
{
    CHECK_ALWAYS(n->rc > 0);
    if (--n->rc > 0) {
        return;
    }
    for (int i = 0; i < n->n; i++) {
        item_unref(t, n->items[i]);
    }
    if (!n->leaf) {
        for (int i = 0; i <= n->n; i++) {
            node_unref(t, n->kids[i]);
        }
    }
    node_free_shell(t, n);
}

/* Returns a node that only the caller's slot references: n itself if it is not shared,
 * else a copy sharing n's items and children (n loses the caller's reference). */
static struct node *node_mut(struct tree *t, struct node *n)
{
    struct node *c;
    if (n->rc == 1) {
        return n;
    }
    c = node_new(t, n->leaf);
    c->n = n->n;
    memcpy(c->items, n->items, sizeof(n->items[0]) * (size_t)n->n);
    for (int i = 0; i < n->n; i++) {
        n->items[i]->rc++;
    }
    if (!n->leaf) {
        memcpy(c->kids, n->kids, sizeof(n->kids[0]) * (size_t)(n->n + 1));
        for (int i = 0; i <= n->n; i++) {
            n->kids[i]->rc++;
        }
    }
    n->rc--;
    return c;
}

/* The first index i with items[i] >= key; *eq says whether it is equal. */
static int node_find(const struct node *n, const uint8_t *k, size_t klen, int *eq)
{
    int lo = 0, hi = n->n;
    *eq = 0;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = item_cmp(n->items[mid], k, klen);
        if (c < 0) {
            lo = mid + 1;
        } else {
            if (c == 0) {
                *eq = 1;
                return mid;
            }
            hi = mid;
        }
    }
    return lo;
}

/* ---- insert ------------------------------------------------------------------------- */

/* Splits x->kids[i], which is full and unshared; x is unshared and not full. */
static void split_child(struct tree *t, struct node *x, int i)
{
    struct node *y = x->kids[i];
    struct node *z = node_new(t, y->leaf);
    z->n = MEM_T - 1;
    memcpy(z->items, y->items + MEM_T, sizeof(y->items[0]) * (MEM_T - 1));
    if (!y->leaf) {
        memcpy(z->kids, y->kids + MEM_T, sizeof(y->kids[0]) * MEM_T);
    }
    y->n = MEM_T - 1;
    memmove(x->kids + i + 2, x->kids + i + 1, sizeof(x->kids[0]) * (size_t)(x->n - i));
    memmove(x->items + i + 1, x->items + i, sizeof(x->items[0]) * (size_t)(x->n - i));
    x->items[i] = y->items[MEM_T - 1];
    x->kids[i + 1] = z;
    x->n++;
}

/* Inserts or replaces item (ownership passes to the tree). */
static void tree_put(struct tree *t, struct item *item)
{
    struct node *x;
    const uint8_t *k = item->data;
    size_t klen = item->klen;

    x = t->root = node_mut(t, t->root);
    if (x->n == MEM_MAX) {
        struct node *s = node_new(t, 0);
        s->kids[0] = x;
        split_child(t, s, 0);
        t->root = x = s;
    }
    for (;;) {
        int eq;
        int i = node_find(x, k, klen, &eq);
        struct node *c;
        if (eq) {
            item_unref(t, x->items[i]);
            x->items[i] = item;
            return;
        }
        if (x->leaf) {
            memmove(x->items + i + 1, x->items + i, sizeof(x->items[0]) * (size_t)(x->n - i));
            x->items[i] = item;
            x->n++;
            t->entries++;
            return;
        }
        c = x->kids[i] = node_mut(t, x->kids[i]);
        if (c->n == MEM_MAX) {
            int cmp;
            split_child(t, x, i);
            cmp = item_cmp(x->items[i], k, klen);
            if (cmp == 0) {
                item_unref(t, x->items[i]);
                x->items[i] = item;
                return;
            }
            if (cmp < 0) {
                i++;
            }
            c = x->kids[i];
        }
        x = c;
    }
}

/* ---- delete ------------------------------------------------------------------------- */

/* Merges x->kids[i], x->items[i] and x->kids[i+1] into x->kids[i]; both children hold
 * MEM_T - 1 items. x and kids[i] are unshared. */
static void merge_children(struct tree *t, struct node *x, int i)
{
    struct node *y = x->kids[i];
    struct node *z = x->kids[i + 1] = node_mut(t, x->kids[i + 1]);
    CHECK_ALWAYS(y->n == MEM_T - 1 && z->n == MEM_T - 1);
    y->items[MEM_T - 1] = x->items[i];
    memcpy(y->items + MEM_T, z->items, sizeof(z->items[0]) * (size_t)z->n);
    if (!y->leaf) {
        memcpy(y->kids + MEM_T, z->kids, sizeof(z->kids[0]) * (size_t)(z->n + 1));
    }
    y->n = MEM_MAX;
    memmove(x->items + i, x->items + i + 1, sizeof(x->items[0]) * (size_t)(x->n - i - 1));
    memmove(x->kids + i + 1, x->kids + i + 2, sizeof(x->kids[0]) * (size_t)(x->n - i - 1));
    x->n--;
    /* z's items and children now belong to y: free only the shell. */
    node_free_shell(t, z);
}

/* Makes x->kids[i] (unshared) hold at least MEM_T items by borrowing from a sibling or
 * merging with one. Returns the index of the child that now covers the old kids[i]. */
static int fill_child(struct tree *t, struct node *x, int i)
{
    struct node *c = x->kids[i];
    if (i > 0 && x->kids[i - 1]->n >= MEM_T) {
        struct node *l = x->kids[i - 1] = node_mut(t, x->kids[i - 1]);
        memmove(c->items + 1, c->items, sizeof(c->items[0]) * (size_t)c->n);
        if (!c->leaf) {
            memmove(c->kids + 1, c->kids, sizeof(c->kids[0]) * (size_t)(c->n + 1));
            c->kids[0] = l->kids[l->n];
        }
        c->items[0] = x->items[i - 1];
        x->items[i - 1] = l->items[l->n - 1];
        l->n--;
        c->n++;
        return i;
    }
    if (i < x->n && x->kids[i + 1]->n >= MEM_T) {
        struct node *r = x->kids[i + 1] = node_mut(t, x->kids[i + 1]);
        c->items[c->n] = x->items[i];
        if (!c->leaf) {
            c->kids[c->n + 1] = r->kids[0];
            memmove(r->kids, r->kids + 1, sizeof(r->kids[0]) * (size_t)r->n);
        }
        x->items[i] = r->items[0];
        memmove(r->items, r->items + 1, sizeof(r->items[0]) * (size_t)(r->n - 1));
        r->n--;
        c->n++;
        return i;
    }
    if (i < x->n) {
        merge_children(t, x, i);
        return i;
    }
    x->kids[i - 1] = node_mut(t, x->kids[i - 1]);
    merge_children(t, x, i - 1);
    return i - 1;
}

/* Deletes key from the subtree of x (unshared; holds >= MEM_T items unless it is the root).
 * Returns 1 if the key was there. */
static int node_delete(struct tree *t, struct node *x, const uint8_t *k, size_t klen)
{
    for (;;) {
        int eq;
        int i = node_find(x, k, klen, &eq);
        if (eq && x->leaf) {
            item_unref(t, x->items[i]);
            memmove(x->items + i, x->items + i + 1, sizeof(x->items[0]) * (size_t)(x->n - i - 1));
            x->n--;
            return 1;
        }
        if (eq) {
            struct node *y = x->kids[i], *z = x->kids[i + 1];
            if (y->n >= MEM_T || z->n >= MEM_T) {
                /* Replace the key by its predecessor (or successor), then delete that one
                 * from the child: the item moves up, so it gains a reference first. */
                int left = y->n >= MEM_T;
                struct node *w = left ? y : z;
                struct item *rep;
                while (!w->leaf) {
                    w = left ? w->kids[w->n] : w->kids[0];
                }
                rep = left ? w->items[w->n - 1] : w->items[0];
                rep->rc++;
                item_unref(t, x->items[i]);
                x->items[i] = rep;
                if (left) {
                    x = x->kids[i] = node_mut(t, y);
                } else {
                    x = x->kids[i + 1] = node_mut(t, z);
                }
                k = rep->data;
                klen = rep->klen;
                continue;
            }
            x->kids[i] = node_mut(t, y);
            merge_children(t, x, i);
            x = x->kids[i];
            continue;
        }
        if (x->leaf) {
            return 0;
        }
        x->kids[i] = node_mut(t, x->kids[i]);
        if (x->kids[i]->n < MEM_T) {
            i = fill_child(t, x, i);
        }
        x = x->kids[i];
    }
}

static int tree_delete(struct tree *t, const uint8_t *k, size_t klen)
{
    struct node *r;
    int found;
    r = t->root = node_mut(t, t->root);
    found = node_delete(t, r, k, klen);
    if (r->n == 0 && !r->leaf) {
        t->root = r->kids[0];
        node_free_shell(t, r);
    }
    if (found) {
        t->entries--;
    }
    return found;
}

static const struct item *tree_get(const struct tree *t, const uint8_t *k, size_t klen)
{
    const struct node *x = t->root;
    for (;;) {
        int eq;
        int i = node_find(x, k, klen, &eq);
        if (eq) {
            return x->items[i];
        }
        if (x->leaf) {
            return NULL;
        }
        x = x->kids[i];
    }
}

/* ---- the store ---------------------------------------------------------------------- */

static struct tree *tree_new(const char *name)
{
    struct tree *t = xcalloc(1, sizeof(*t));
    CHECK_ALWAYS(pthread_rwlock_init(&t->lock, NULL) == 0);
    t->root = node_new(t, 1);
    t->name = name ? xstrdup(name) : NULL;
    return t;
}

static void tree_free(struct tree *t)
{
    node_unref(t, t->root);
    pthread_rwlock_destroy(&t->lock);
    free(t->name);
    free(t);
}

static int mem_open(struct kv **out, const char *path, const struct kv_options *opt)
{
    struct kv_mem *db;
    struct tree *t = NULL;
    if (path && path[0]) {
        CHECK_ALWAYS(pthread_mutex_lock(&named_lock) == 0);
        for (t = named_trees; t; t = t->next_named) {
            if (strcmp(t->name, path) == 0) {
                break;
            }
        }
        if (t && t->open) {
            pthread_mutex_unlock(&named_lock);
            kv_set_error("mem store %s is already open", path);
            return RC_BACKEND;
        }
        if (!t && !opt->create_if_missing) {
            pthread_mutex_unlock(&named_lock);
            kv_set_error("mem store %s does not exist (and create_if_missing is off)", path);
            return RC_NOT_FOUND;
        }
        if (!t) {
            t = tree_new(path);
            t->next_named = named_trees;
            named_trees = t;
        }
        t->open = 1;
        pthread_mutex_unlock(&named_lock);
    } else {
        t = tree_new(NULL);
        t->open = 1;
    }
    db = xcalloc(1, sizeof(*db));
    db->base.ops = &kv_mem_ops;
    db->t = t;
    *out = &db->base;
    return 0;
}

static int mem_close(struct kv *kv)
{
    struct kv_mem *db = (struct kv_mem *)kv;
    if (db->t->name) {
        CHECK_ALWAYS(pthread_mutex_lock(&named_lock) == 0);
        db->t->open = 0;
        pthread_mutex_unlock(&named_lock);
    } else {
        tree_free(db->t);
    }
    free(db);
    return 0;
}

static int mem_destroy(const char *path)
{
    struct tree **pp, *t;
    if (!path || !path[0]) {
        return 0;
    }
    CHECK_ALWAYS(pthread_mutex_lock(&named_lock) == 0);
    for (pp = &named_trees; *pp; pp = &(*pp)->next_named) {
        if (strcmp((*pp)->name, path) == 0) {
            break;
        }
    }
    t = *pp;
    if (t && t->open) {
        pthread_mutex_unlock(&named_lock);
        kv_set_error("mem store %s is open: close it before destroying it", path);
        return RC_BACKEND;
    }
    if (t) {
        *pp = t->next_named;
    }
    pthread_mutex_unlock(&named_lock);
    if (t) {
        tree_free(t);
    }
    return 0;
}

static int mem_get(struct kv *kv, struct buf *val, const uint8_t *key, size_t key_len)
{
    struct tree *t = ((struct kv_mem *)kv)->t;
    const struct item *it;
    int rc = RC_NOT_FOUND;
    CHECK_ALWAYS(pthread_rwlock_rdlock(&t->lock) == 0);
    it = tree_get(t, key, key_len);
    if (it) {
        if (val) {
            buf_append(val, it->data + it->klen, it->vlen);
        }
        rc = 0;
    }
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

static int mem_write(struct kv *kv, const struct kv_batch *b, int sync)
{
    struct tree *t = ((struct kv_mem *)kv)->t;
    struct kv_batch_op op;
    size_t pos = 0;
    /* Memory cannot fail to hold a batch (allocation failure aborts), so applying the
     * operations one by one under the write lock is atomic for every observer. */
    CHECK_ALWAYS(pthread_rwlock_wrlock(&t->lock) == 0);
    while (kv_batch_next(b, &pos, &op)) {
        if (op.op == KV_OP_PUT) {
            tree_put(t, item_new(t, op.key, op.key_len, op.val, op.val_len));
        } else {
            tree_delete(t, op.key, op.key_len);
        }
    }
    pthread_rwlock_unlock(&t->lock);
    return 0;
}

/* ---- iterators ---------------------------------------------------------------------- */

static int mem_iter_new(struct kv *kv, struct kv_iter **out)
{
    struct kv_mem *db = (struct kv_mem *)kv;
    struct mem_iter *it = xcalloc(1, sizeof(*it));
    it->base.ops = &kv_mem_ops;
    it->db = db;
    CHECK_ALWAYS(pthread_rwlock_wrlock(&db->t->lock) == 0);
    it->root = db->t->root;
    it->root->rc++;
    pthread_rwlock_unlock(&db->t->lock);
    *out = &it->base;
    return 0;
}

static void mem_iter_free(struct kv_iter *base)
{
    struct mem_iter *it = (struct mem_iter *)base;
    struct tree *t = it->db->t;
    CHECK_ALWAYS(pthread_rwlock_wrlock(&t->lock) == 0);
    node_unref(t, it->root);
    pthread_rwlock_unlock(&t->lock);
    free(it);
}

static void iter_push(struct mem_iter *it, struct node *n, int idx)
{
    CHECK_ALWAYS(it->depth < MEM_MAX_DEPTH);
    it->stack[it->depth].node = n;
    it->stack[it->depth].idx = idx;
    it->depth++;
}

/* Pops finished nodes until the top entry points at an item (or the stack is empty). */
static void iter_settle(struct mem_iter *it)
{
    while (it->depth > 0 && it->stack[it->depth - 1].idx >= it->stack[it->depth - 1].node->n) {
        it->depth--;
    }
}

/* Pushes the leftmost path of the subtree n. */
static void iter_leftmost(struct mem_iter *it, struct node *n)
{
    for (;;) {
        iter_push(it, n, 0);
        if (n->leaf) {
            break;
        }
        n = n->kids[0];
    }
}

static int mem_iter_seek_first(struct kv_iter *base)
{
    struct mem_iter *it = (struct mem_iter *)base;
    it->depth = 0;
    iter_leftmost(it, it->root);
    iter_settle(it);
    return 0;
}

static int mem_iter_seek(struct kv_iter *base, const uint8_t *key, size_t key_len)
{
    struct mem_iter *it = (struct mem_iter *)base;
    struct node *x = it->root;
    it->depth = 0;
    for (;;) {
        int eq;
        int i = node_find(x, key, key_len, &eq);
        iter_push(it, x, i);
        if (eq || x->leaf) {
            break;
        }
        x = x->kids[i];
    }
    iter_settle(it);
    return 0;
}

static int mem_iter_valid(const struct kv_iter *base)
{
    const struct mem_iter *it = (const struct mem_iter *)base;
    return it->depth > 0;
}

static int mem_iter_next(struct kv_iter *base)
{
    struct mem_iter *it = (struct mem_iter *)base;
    int top = it->depth - 1;
    struct node *n = it->stack[top].node;
    it->stack[top].idx++;
    if (!n->leaf) {
        iter_leftmost(it, n->kids[it->stack[top].idx]);
    }
    iter_settle(it);
    return 0;
}

static const struct item *iter_item(const struct mem_iter *it)
{
    int top = it->depth - 1;
    return it->stack[top].node->items[it->stack[top].idx];
}

static const uint8_t *mem_iter_key(const struct kv_iter *base, size_t *len)
{
    const struct item *item = iter_item((const struct mem_iter *)base);
    *len = item->klen;
    return item->data;
}

static const uint8_t *mem_iter_value(const struct kv_iter *base, size_t *len)
{
    const struct item *item = iter_item((const struct mem_iter *)base);
    *len = item->vlen;
    return item->data + item->klen;
}

/* ---- sizes -------------------------------------------------------------------------- */

static int mem_stats(struct kv *kv, struct kv_stats *out)
{
    struct tree *t = ((struct kv_mem *)kv)->t;
    CHECK_ALWAYS(pthread_rwlock_rdlock(&t->lock) == 0);
    out->mem_bytes = t->bytes;
    out->entries = t->entries;
    pthread_rwlock_unlock(&t->lock);
    out->disk_bytes = 0;
    snprintf(out->text, sizeof(out->text), "mem: %llu entries, %llu bytes in the B-tree",
             (unsigned long long)out->entries, (unsigned long long)out->mem_bytes);
    return 0;
}

/* Sums key and value bytes over [begin, end): exact, and linear in the range, which is
 * acceptable for the test and benchmark backend. */
static int mem_approximate_size(struct kv *kv, uint64_t *out, const uint8_t *begin,
                                size_t begin_len, const uint8_t *end, size_t end_len)
{
    struct kv_iter *base;
    uint64_t total = 0;
    mem_iter_new(kv, &base);
    mem_iter_seek(base, begin, begin_len);
    while (mem_iter_valid(base)) {
        const struct item *item = iter_item((const struct mem_iter *)base);
        if (end && item_cmp(item, end, end_len) >= 0) {
            break;
        }
        total += item->klen + item->vlen;
        mem_iter_next(base);
    }
    mem_iter_free(base);
    *out = total;
    return 0;
}

/* ---- invariants (tests) ------------------------------------------------------------- */

struct check_state {
    int leaf_depth;
    uint64_t count;
    const char *err;
};

static void check_node(struct check_state *cs, const struct node *x, int depth, int is_root,
                       const struct item *lo, const struct item *hi)
{
    if (cs->err) {
        return;
    }
    if (x->rc < 1) {
        cs->err = "node with no reference";
        return;
    }
    if (x->n > MEM_MAX || (!is_root && x->n < MEM_T - 1) || (!x->leaf && x->n < 1)) {
        cs->err = "node fill out of bounds";
        return;
    }
    for (int i = 0; i < x->n; i++) {
        const struct item *it = x->items[i];
        if (it->rc < 1) {
            cs->err = "item with no reference";
            return;
        }
        if (i > 0 && item_cmp(x->items[i - 1], it->data, it->klen) >= 0) {
            cs->err = "keys out of order in a node";
            return;
        }
        if ((lo && item_cmp(lo, it->data, it->klen) >= 0) ||
            (hi && item_cmp(hi, it->data, it->klen) <= 0)) {
            cs->err = "key outside its parent's bounds";
            return;
        }
    }
    cs->count += (uint64_t)x->n;
    if (x->leaf) {
        if (cs->leaf_depth < 0) {
            cs->leaf_depth = depth;
        } else if (cs->leaf_depth != depth) {
            cs->err = "leaves at different depths";
        }
        return;
    }
    for (int i = 0; i <= x->n; i++) {
        check_node(cs, x->kids[i], depth + 1, 0, i > 0 ? x->items[i - 1] : lo,
                   i < x->n ? x->items[i] : hi);
    }
}

int kv_mem_check(struct kv *kv)
{
    struct tree *t;
    struct check_state cs = {-1, 0, NULL};
    CHECK_ALWAYS(kv->ops == &kv_mem_ops);
    t = ((struct kv_mem *)kv)->t;
    CHECK_ALWAYS(pthread_rwlock_rdlock(&t->lock) == 0);
    check_node(&cs, t->root, 0, 1, NULL, NULL);
    if (!cs.err && cs.count != t->entries) {
        cs.err = "entry count differs from the items in the tree";
    }
    pthread_rwlock_unlock(&t->lock);
    if (cs.err) {
        kv_set_error("mem B-tree: %s", cs.err);
        return RC_CORRUPT;
    }
    return 0;
}

const struct kv_ops kv_mem_ops = {
    .name = "mem",
    .persistent = 0,
    .open = mem_open,
    .close = mem_close,
    .destroy = mem_destroy,
    .get = mem_get,
    .write = mem_write,
    .iter_new = mem_iter_new,
    .iter_free = mem_iter_free,
    .iter_seek = mem_iter_seek,
    .iter_seek_first = mem_iter_seek_first,
    .iter_next = mem_iter_next,
    .iter_valid = mem_iter_valid,
    .iter_key = mem_iter_key,
    .iter_value = mem_iter_value,
    .stats = mem_stats,
    .approximate_size = mem_approximate_size,
};
