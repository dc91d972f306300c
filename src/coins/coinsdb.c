/* The base coins view: one record per unspent output in the chainstate kv store, plus the
 * best-block marker. Formats: doc/files.md, "Chainstate". */
#include <string.h>

#include "coins/view.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define BEST_BLOCK_KEY "B"

struct coins_db {
    struct coins_view view; /* first: the view pointer is the db pointer */
    struct kv *kv;
    struct buf val;
    uint64_t reads, writes, deletes, batches;
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
    return coin_deserialize(out, db->val.data, db->val.len) ? RC_CORRUPT : RC_OK;
}

static int db_best_block(struct coins_view *v, uint8_t hash32[32])
{
    struct coins_db *db = db_of(v);
    int rc = kv_get(db->kv, &db->val, BEST_BLOCK_KEY, 1);
    if (rc) {
        return rc;
    }
    if (db->val.len != 32) {
        return RC_CORRUPT;
    }
    memcpy(hash32, db->val.data, 32);
    return RC_OK;
}

static int db_batch_write(struct coins_view *v, struct coins_entry *entries, size_t n,
                          const uint8_t best32[32], int sync)
{
    struct coins_db *db = db_of(v);
    struct kv_batch *b = kv_batch_new();
    struct buf val;
    uint64_t writes = 0, deletes = 0;
    buf_init(&val);
    for (size_t i = 0; i < n; i++) {
        const struct coins_entry *e = &entries[i];
        uint8_t key[COIN_KEY_MAX];
        size_t klen;
        if (!(e->flags & COINS_DIRTY)) {
            continue;
        }
        if (coins_entry_spent(e) && (e->flags & COINS_FRESH)) {
            continue; /* created and spent since the last flush: never stored */
        }
        klen = coin_key(key, &e->op);
        if (coins_entry_spent(e)) {
            kv_batch_delete(b, key, klen);
            deletes++;
        } else {
            buf_reset(&val);
            coin_serialize(&val, &e->coin);
            kv_batch_put(b, key, klen, val.data, val.len);
            writes++;
        }
    }
    /* The marker goes in the same atomic batch: after a crash the store holds either the
     * old coins with the old marker or the new coins with the new one. */
    kv_batch_put(b, BEST_BLOCK_KEY, 1, best32, 32);
    int rc = kv_write(db->kv, b, sync);
    kv_batch_free(b);
    buf_clear(&val);
    if (rc == RC_OK) {
        db->writes += writes;
        db->deletes += deletes;
        db->batches++;
    }
    return rc;
}

static const struct coins_view_ops coins_db_ops = {
    .get = db_get,
    .best_block = db_best_block,
    .batch_write = db_batch_write,
};

struct coins_db *coins_db_new(struct kv *kv)
{
    struct coins_db *db = xcalloc(1, sizeof(*db));
    db->view.ops = &coins_db_ops;
    db->kv = kv;
    buf_init(&db->val);
    return db;
}

void coins_db_free(struct coins_db *db)
{
    if (!db) {
        return;
    }
    buf_clear(&db->val);
    free(db);
}

struct coins_view *coins_db_view(struct coins_db *db)
{
    return &db->view;
}

void coins_db_counters(const struct coins_db *db, uint64_t *reads, uint64_t *writes,
                       uint64_t *deletes, uint64_t *batches)
{
    *reads = db->reads;
    *writes = db->writes;
    *deletes = db->deletes;
    *batches = db->batches;
}
