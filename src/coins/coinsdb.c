/* The base coins view: one record per unspent output in the chainstate kv store, plus the
 * best-block marker, and while a flush is written in parts the head-blocks marker. Formats:
 * doc/files.md, "Chainstate".
 *
 * Threads: batch_write may run on a thread of its own beside db_get on the owner's (a coins
 * cache's frozen generation is written so, coins_cache_freeze): it keeps its buffers to
 * itself, and the counters it moves are atomic. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coins/view.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define BEST_BLOCK_KEY "B"
#define HEAD_BLOCKS_KEY "H"

struct coins_db {
    struct coins_view view; /* first: the view pointer is the db pointer */
    struct kv *kv;
    struct buf val;
    struct buf spk;       /* the script db_get hands out, borrowed */
    size_t batch_bytes;   /* a flush larger than this is written in parts */
    uint32_t crash_ratio; /* tests (-dbcrashratio): 1 in n parts ends the process */
    uint64_t reads;       /* db_get's (the owner's thread) */
    /* Counted by whichever thread writes, read by the owner. */
    _Atomic uint64_t writes, deletes, batches, parts;
    _Atomic uint64_t epoch; /* odd while a batch is being written (coins_db_epoch) */
};

static struct coins_db *db_of(struct coins_view *v)
{
    return (struct coins_db *)v;
}

static int db_get(struct coins_view *v, const struct outpoint *op, struct coin *out)
{
    struct coins_db *db = db_of(v);
    uint8_t key[COIN_KEY_MAX];
    size_t klen = coin_key(key, op);
    int rc = kv_get(db->kv, &db->val, key, klen);
    if (rc) {
        return rc; /* RC_NOT_FOUND, or a store failure */
    }
    db->reads++;
    return coin_deserialize_buf(out, &db->spk, db->val.data, db->val.len) ? RC_CORRUPT : RC_OK;
}

int coins_db_read_buf(struct coins_db *db, const struct outpoint *op, struct coin *out,
                      struct buf *val, struct buf *spk)
{
    uint8_t key[COIN_KEY_MAX];
    size_t klen = coin_key(key, op);
    int rc = kv_get(db->kv, val, key, klen);
    if (rc) {
        return rc;
    }
    return coin_deserialize_buf(out, spk, val->data, val->len) ? RC_CORRUPT : RC_OK;
}

uint64_t coins_db_epoch(const struct coins_db *db)
{
    return atomic_load(&((struct coins_db *)db)->epoch);
}

int coins_db_read(struct coins_db *db, const struct outpoint *op, struct coin *out)
{
    uint8_t key[COIN_KEY_MAX];
    size_t klen = coin_key(key, op);
    struct buf val;
    buf_init(&val);
    int rc = kv_get(db->kv, &val, key, klen);
    if (rc == RC_OK && coin_deserialize(out, val.data, val.len)) {
        rc = RC_CORRUPT;
    }
    buf_clear(&val);
    return rc;
}

static int db_best_block(struct coins_view *v, uint8_t hash32[32])
{
    struct coins_db *db = db_of(v);
    int rc = kv_get(db->kv, &db->val, (const uint8_t *)BEST_BLOCK_KEY, 1);
    if (rc) {
        return rc;
    }
    if (db->val.len != 32) {
        return RC_CORRUPT;
    }
    memcpy(hash32, db->val.data, 32);
    return RC_OK;
}

int coins_db_head_blocks(struct coins_db *db, uint8_t new32[32], uint8_t old32[32])
{
    int rc = kv_get(db->kv, &db->val, (const uint8_t *)HEAD_BLOCKS_KEY, 1);
    if (rc) {
        return rc;
    }
    if (db->val.len != 64) {
        return RC_CORRUPT;
    }
    memcpy(new32, db->val.data, 32);
    memcpy(old32, db->val.data + 32, 32);
    return RC_OK;
}

/* One record of a part being gathered: key then value at off in the part's buffer. */
struct rec {
    const uint8_t *key;
    uint64_t pre; /* the key's first 8 bytes, big-endian (zero-padded) */
    size_t off;
    uint32_t klen, vlen; /* vlen UINT32_MAX: a delete */
};

static int rec_cmp(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if (x->pre != y->pre) {
        return x->pre < y->pre ? -1 : 1;
    }
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

#define SORT_BUCKETS 65536

/* Sorts recs[0..n) by key into out: the keys are outpoints (uniform transaction hashes), so
 * one pass into buckets by the leading bits that differ leaves a few records per bucket,
 * each bucket then sorted on its own (qsort for a large one: many outputs of one
 * transaction). counts has SORT_BUCKETS + 1 entries. Far cheaper than one qsort of all. */
static void sort_recs(struct rec *recs, size_t n, struct rec *out, size_t *counts)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t b8[8] = {0};
        memcpy(b8, recs[i].key, recs[i].klen < 8 ? recs[i].klen : 8);
        uint64_t p = 0;
        for (int k = 0; k < 8; k++) {
            p = p << 8 | b8[k];
        }
        recs[i].pre = p;
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    unsigned shift = 0;
    while (((hi - lo) >> shift) >= SORT_BUCKETS) {
        shift++;
    }
    memset(counts, 0, (SORT_BUCKETS + 1) * sizeof(*counts));
    for (size_t i = 0; i < n; i++) {
        counts[((recs[i].pre - lo) >> shift) + 1]++;
    }
    for (size_t d = 1; d <= SORT_BUCKETS; d++) {
        counts[d] += counts[d - 1]; /* counts[d]: where bucket d starts */
    }
    for (size_t i = 0; i < n; i++) {
        out[counts[(recs[i].pre - lo) >> shift]++] = recs[i];
    }
    /* counts[d] is now where bucket d ends. */
    size_t start = 0;
    for (size_t d = 0; d < SORT_BUCKETS && start < n; d++) {
        size_t end = counts[d], len = end - start;
        if (len > 16) {
            qsort(out + start, len, sizeof(*out), rec_cmp);
        } else {
            for (size_t i = start + 1; i < end; i++) {
                struct rec r = out[i];
                size_t j = i;
                while (j > start && rec_cmp(&out[j - 1], &r) > 0) {
                    out[j] = out[j - 1];
                    j--;
                }
                out[j] = r;
            }
        }
        start = end;
    }
}

/* Puts the gathered records into b in key order: the store inserts a sorted run into its
 * in-memory table far faster than keys in hash order (each insert's search path is the last
 * one's, in cache). tmp has room for n records. */
static void put_sorted(struct kv_batch *b, struct buf *part, struct rec *recs, size_t n,
                       struct rec *tmp, size_t *counts)
{
    if (n == 0) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        recs[i].key = part->data + recs[i].off;
    }
    sort_recs(recs, n, tmp, counts);
    for (size_t i = 0; i < n; i++) {
        if (tmp[i].vlen == UINT32_MAX) {
            kv_batch_delete(b, tmp[i].key, tmp[i].klen);
        } else {
            kv_batch_put(b, tmp[i].key, tmp[i].klen, tmp[i].key + tmp[i].klen, tmp[i].vlen);
        }
    }
    buf_reset(part);
}

/* After each part but the last of a flush in parts: what -dbcrashratio asks for. */
static void part_written(struct coins_db *db)
{
    kv_release_mapped(KV_MAPPED_RESIDENT_MAX); /* compactions map table files too */
    atomic_fetch_add(&db->parts, 1);
    random_crash_point(db->crash_ratio, "a coins flush");
}

static int db_batch_write(struct coins_view *v, struct coins_cursor *cur, const uint8_t best32[32],
                          int sync)
{
    struct coins_db *db = db_of(v);
    int rc = RC_OK;
    /* Each part is written as soon as it is full: one part's memory at a time. */
    struct kv_batch *b = kv_batch_new();
    struct buf part; /* the records gathered for the part being built */
    struct rec *recs = NULL, *tmp = NULL;
    size_t nrecs = 0, caprecs = 0;
    size_t *counts = xmalloc((SORT_BUCKETS + 1) * sizeof(*counts));
    uint64_t writes = 0, deletes = 0, dirty = 0, count = 0;
    size_t bytes = 0;
    int parts = 0;
    uint8_t old[32], heads[64];
    struct buf mk; /* the markers, read into a buffer of this call's own: this may run on
                      a thread beside db_get's */
    buf_init(&part);
    buf_init(&mk);
    atomic_fetch_add(&db->epoch, 1); /* odd: the store is changing */
    /* The block the store holds now: the old end of a flush written in parts (zero for the
     * first flush, as Core). */
    int brc = kv_get(db->kv, &mk, (const uint8_t *)BEST_BLOCK_KEY, 1);
    if (brc == RC_OK) {
        if (mk.len == 32) {
            memcpy(old, mk.data, 32);
        } else {
            brc = RC_CORRUPT;
        }
    } else if (brc == RC_NOT_FOUND) {
        /* No best block: a first flush, or the replay of one cut short, which keeps that
         * flush's old end (Core's BatchWrite). */
        brc = kv_get(db->kv, &mk, (const uint8_t *)HEAD_BLOCKS_KEY, 1);
        if (brc == RC_NOT_FOUND) {
            memset(old, 0, 32);
        } else if (brc == RC_OK && mk.len != 64) {
            brc = RC_CORRUPT;
        } else if (brc == RC_OK && memcmp(mk.data, best32, 32) != 0) {
            brc = RC_CORRUPT; /* a flush towards another block than the one cut short */
        } else if (brc == RC_OK) {
            memcpy(old, mk.data + 32, 32);
        }
    }
    if (brc && brc != RC_NOT_FOUND) {
        rc = brc;
        goto out;
    }
    memcpy(heads, best32, 32);
    memcpy(heads + 32, old, 32);
    struct coins_entry ent;
    while (cur->next(cur, &ent)) {
        const struct coins_entry *e = &ent;
        uint8_t key[COIN_KEY_MAX];
        size_t klen;
        count++;
        if (!(e->flags & COINS_DIRTY)) {
            continue;
        }
        dirty++;
        if (coins_entry_spent(e) && (e->flags & COINS_FRESH)) {
            continue; /* created and spent since the last flush: never stored */
        }
        klen = coin_key(key, &e->op);
        if (nrecs == caprecs) {
            caprecs = caprecs ? 2 * caprecs : 4096;
            recs = xrealloc(recs, caprecs * sizeof(*recs));
            free(tmp);
            tmp = xmalloc(caprecs * sizeof(*tmp));
        }
        recs[nrecs].off = part.len;
        recs[nrecs].klen = (uint32_t)klen;
        buf_append(&part, key, klen);
        if (coins_entry_spent(e)) {
            recs[nrecs].vlen = UINT32_MAX;
            deletes++;
            bytes += klen;
        } else {
            size_t at = part.len;
            coin_serialize(&part, &e->coin);
            recs[nrecs].vlen = (uint32_t)(part.len - at);
            writes++;
            bytes += klen + recs[nrecs].vlen;
        }
        nrecs++;
        /* A flush that does not fit one batch goes in parts under the head-blocks marker:
         * a crash between them leaves coins of both ends, which the next open replays to
         * the new end (chainstate_open, validation/replay.c). The first part carries the
         * marker. */
        if (bytes > db->batch_bytes) {
            put_sorted(b, &part, recs, nrecs, tmp, counts);
            nrecs = 0;
            if (parts == 0) {
                kv_batch_delete(b, BEST_BLOCK_KEY, 1);
                kv_batch_put(b, HEAD_BLOCKS_KEY, 1, heads, 64);
            }
            LOG(LOG_CAT_COINDB, LOG_LVL_DEBUG, "Writing partial batch of %.2f MiB",
                (double)bytes / (1 << 20));
            if ((rc = kv_write(db->kv, b, 0))) {
                goto out;
            }
            part_written(db);
            kv_batch_free(b);
            parts++;
            b = kv_batch_new();
            bytes = 0;
        }
    }
    /* The last part (the only one, usually) makes the store whole again: the best block
     * with it, the head-blocks marker gone. One atomic batch: after a crash the store holds
     * either what it held or all of this. */
    put_sorted(b, &part, recs, nrecs, tmp, counts);
    if (parts > 0) {
        kv_batch_delete(b, HEAD_BLOCKS_KEY, 1);
    }
    kv_batch_put(b, BEST_BLOCK_KEY, 1, best32, 32);
    LOG(LOG_CAT_COINDB, LOG_LVL_DEBUG, "Writing final batch of %.2f MiB",
        (double)bytes / (1 << 20));
    rc = kv_write(db->kv, b, sync);
    if (rc == RC_OK) {
        /* Core's words; the end of a coins flush for the tools (and the crash drill) that
         * read the log. */
        LOG(LOG_CAT_COINDB, LOG_LVL_DEBUG,
            "Committed %u changed transaction outputs (out of %u) to coin database...",
            (unsigned)dirty, (unsigned)count);
    }
out:
    atomic_fetch_add(&db->epoch, 1); /* even again (also after a failed write) */
    kv_batch_free(b);
    buf_clear(&part);
    buf_clear(&mk);
    free(recs);
    free(tmp);
    free(counts);
    if (rc == RC_OK) {
        atomic_fetch_add_explicit(&db->writes, writes, memory_order_relaxed);
        atomic_fetch_add_explicit(&db->deletes, deletes, memory_order_relaxed);
        atomic_fetch_add_explicit(&db->batches, 1, memory_order_relaxed);
    }
    return rc;
}

static const struct coins_view_ops coins_db_ops = {
    .get = db_get,
    .best_block = db_best_block,
    .batch_write = db_batch_write,
};

int coins_db_foreach(struct coins_db *db,
                     int (*fn)(void *ctx, const struct outpoint *op, const struct coin *c),
                     void *ctx)
{
    struct kv_iter *it = NULL;
    int rc = kv_iter_new(db->kv, &it);
    if (rc) {
        return rc;
    }
    const uint8_t prefix = COIN_KEY_PREFIX;
    for (rc = kv_iter_seek(it, &prefix, 1); rc == RC_OK && kv_iter_valid(it);
         rc = kv_iter_next(it)) {
        size_t klen, vlen;
        const uint8_t *key = kv_iter_key(it, &klen);
        const uint8_t *val = kv_iter_value(it, &vlen);
        struct outpoint op;
        struct coin c;
        if (klen == 0 || key[0] != COIN_KEY_PREFIX) {
            break;
        }
        if (coin_key_parse(&op, key, klen) || coin_deserialize(&c, val, vlen)) {
            rc = RC_CORRUPT;
            break;
        }
        int stop = fn(ctx, &op, &c);
        coin_clear(&c);
        if (stop) {
            rc = RC_STOPPED;
            break;
        }
    }
    kv_iter_free(it);
    return rc;
}

struct coins_db *coins_db_new(struct kv *kv)
{
    struct coins_db *db = xcalloc(1, sizeof(*db));
    db->view.ops = &coins_db_ops;
    db->kv = kv;
    db->batch_bytes = COINS_DB_BATCH_BYTES;
    buf_init(&db->val);
    buf_init(&db->spk);
    return db;
}

void coins_db_set_batch(struct coins_db *db, size_t batch_bytes, uint32_t crash_ratio)
{
    db->batch_bytes = batch_bytes ? batch_bytes : COINS_DB_BATCH_BYTES;
    db->crash_ratio = crash_ratio;
}

void coins_db_free(struct coins_db *db)
{
    if (!db) {
        return;
    }
    buf_clear(&db->val);
    buf_clear(&db->spk);
    free(db);
}

struct coins_view *coins_db_view(struct coins_db *db)
{
    return &db->view;
}

uint64_t coins_db_parts(const struct coins_db *db)
{
    return atomic_load(&((struct coins_db *)db)->parts);
}

void coins_db_counters(const struct coins_db *db, uint64_t *reads, uint64_t *writes,
                       uint64_t *deletes, uint64_t *batches)
{
    *reads = db->reads;
    *writes = atomic_load_explicit(&((struct coins_db *)db)->writes, memory_order_relaxed);
    *deletes = atomic_load_explicit(&((struct coins_db *)db)->deletes, memory_order_relaxed);
    *batches = atomic_load_explicit(&((struct coins_db *)db)->batches, memory_order_relaxed);
}
