#include "blockstore/indexdb.h"

#include <stdio.h>
#include <string.h>

#include "primitives/serialize.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct loaded {
    struct block_index e; /* fields as stored; prev unresolved */
    uint8_t prev[32];
};

static int parse_entry(struct loaded *l, uint64_t *version_out, const uint8_t *key, size_t klen,
                       const uint8_t *p, size_t len)
{
    struct reader r;
    uint64_t version, height, status, ntx, file = 0, dpos = 0, upos = 0;
    if (klen != 33) {
        return RC_CORRUPT;
    }
    memset(l, 0, sizeof(*l));
    reader_init(&r, p, len);
    if (ser_get_varint(&r, &version, "version") || ser_get_varint(&r, &height, "height") ||
        ser_get_varint(&r, &status, "status") || ser_get_varint(&r, &ntx, "tx count")) {
        return RC_CORRUPT;
    }
    if ((status & (BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO)) && ser_get_varint(&r, &file, "file")) {
        return RC_CORRUPT;
    }
    if ((status & BLOCK_HAVE_DATA) && ser_get_varint(&r, &dpos, "data pos")) {
        return RC_CORRUPT;
    }
    if ((status & BLOCK_HAVE_UNDO) && ser_get_varint(&r, &upos, "undo pos")) {
        return RC_CORRUPT;
    }
    if (block_header_parse(&l->e.header, &r) || reader_expect_end(&r, "block index entry") ||
        height > INT32_MAX || file > INT32_MAX || dpos > UINT32_MAX || upos > UINT32_MAX ||
        ntx > UINT32_MAX) {
        return RC_CORRUPT;
    }
    block_header_hash(&l->e.header, l->e.hash);
    if (memcmp(l->e.hash, key + 1, 32) != 0) {
        return RC_CORRUPT;
    }
    *version_out = version;
    l->e.height = (int32_t)height;
    l->e.status = (uint32_t)status;
    l->e.tx_count = (uint32_t)ntx;
    l->e.file = (status & (BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO)) ? (int32_t)file : -1;
    l->e.data_pos = (uint32_t)dpos;
    l->e.undo_pos = (uint32_t)upos;
    memcpy(l->prev, l->e.header.prev_hash, 32);
    return RC_OK;
}

static int by_height(const void *a, const void *b)
{
    const struct loaded *x = a, *y = b;
    return (x->e.height > y->e.height) - (x->e.height < y->e.height);
}

int indexdb_load_tree(struct kv *kv, struct block_tree *t, char *err, size_t err_len)
{
    struct kv_iter *it = NULL;
    struct loaded *v = NULL;
    size_t n = 0, cap = 0;
    int rc = kv_iter_new(kv, &it);
    if (rc) {
        snprintf(err, err_len, "block index: %s", kv_last_error(NULL));
        return rc;
    }
    for (rc = kv_iter_seek(it, "b", 1); rc == RC_OK && kv_iter_valid(it); rc = kv_iter_next(it)) {
        size_t klen, vlen;
        const uint8_t *key = kv_iter_key(it, &klen);
        const uint8_t *val = kv_iter_value(it, &vlen);
        if (klen == 0 || key[0] != 'b') {
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            v = xrealloc(v, cap * sizeof(*v));
        }
        uint64_t version;
        if (parse_entry(&v[n], &version, key, klen, val, vlen)) {
            snprintf(err, err_len, "block index: entry %zu does not decode", n);
            rc = RC_CORRUPT;
            goto out;
        }
        if (version == INDEXDB_VERSION_NO_OPT_WITNESS && (v[n].e.status & BLOCK_HAVE_DATA)) {
            v[n].e.status |= BLOCK_OPT_WITNESS;
        } else if (version != INDEXDB_VERSION && version != INDEXDB_VERSION_NO_OPT_WITNESS) {
            /* Core's records have our layout with its client version (259900 since v26):
             * its block index is not taken for ours. */
            snprintf(err, err_len,
                     "the block index was written by Bitcoin Core (record version %llu, "
                     "bitnode's is %d), whose block index and chainstate bitnode does not use: "
                     "give bitnode another -datadir, or start it with -reindex to rebuild both "
                     "from the block files",
                     (unsigned long long)version, INDEXDB_VERSION);
            rc = RC_FOREIGN;
            goto out;
        }
        n++;
    }
    if (rc) {
        snprintf(err, err_len, "block index: %s", kv_last_error(NULL));
        goto out;
    }
    /* Parents first: by height. */
    if (n > 1) {
        qsort(v, n, sizeof(*v), by_height);
    }
    for (size_t i = 0; i < n; i++) {
        struct block_index *prev = NULL;
        if (v[i].e.height > 0) {
            prev = block_tree_find(t, v[i].prev);
            if (!prev || prev->height != v[i].e.height - 1) {
                snprintf(err, err_len,
                         "block index: entry at height %d has no parent: restart with -reindex",
                         v[i].e.height);
                rc = RC_CORRUPT;
                goto out;
            }
        }
        struct block_index *e = block_tree_add(t, &v[i].e.header, prev, v[i].e.status);
        e->tx_count = v[i].e.tx_count;
        e->file = v[i].e.file;
        e->data_pos = v[i].e.data_pos;
        e->undo_pos = v[i].e.undo_pos;
        e->stored = 1;
    }
    rc = RC_OK;
out:
    kv_iter_free(it);
    free(v);
    return rc;
}

int indexdb_load_files(struct kv *kv, struct blockfile_info **infos, int *n)
{
    struct buf val;
    int rc, last = -1;
    buf_init(&val);
    *infos = NULL;
    *n = 0;
    rc = kv_get(kv, &val, "l", 1);
    if (rc == RC_NOT_FOUND) {
        buf_clear(&val);
        return RC_OK;
    }
    if (rc) {
        buf_clear(&val);
        return rc;
    }
    if (val.len != 4 || (last = (int32_t)rd_u32le(val.data)) < 0 || last > 99999) {
        buf_clear(&val);
        return RC_CORRUPT;
    }
    *infos = xcalloc((size_t)last + 1, sizeof(**infos));
    for (int i = 0; i <= last; i++) {
        uint8_t key[5] = {'f'};
        wr_u32le(key + 1, (uint32_t)i);
        rc = kv_get(kv, &val, key, 5);
        if (rc == RC_NOT_FOUND) {
            continue; /* a file with nothing recorded yet */
        }
        if (rc || blockfile_info_parse(&(*infos)[i], val.data, val.len)) {
            free(*infos);
            *infos = NULL;
            buf_clear(&val);
            return rc ? rc : RC_CORRUPT;
        }
    }
    *n = last + 1;
    buf_clear(&val);
    return RC_OK;
}

void indexdb_put_entry(struct kv_batch *b, const struct block_index *e)
{
    struct buf v;
    uint8_t key[33] = {'b'}, hdr[80];
    buf_init(&v);
    memcpy(key + 1, e->hash, 32);
    ser_put_varint(&v, INDEXDB_VERSION);
    ser_put_varint(&v, (uint64_t)e->height);
    ser_put_varint(&v, e->status);
    ser_put_varint(&v, e->tx_count);
    if (e->status & (BLOCK_HAVE_DATA | BLOCK_HAVE_UNDO)) {
        ser_put_varint(&v, (uint64_t)e->file);
    }
    if (e->status & BLOCK_HAVE_DATA) {
        ser_put_varint(&v, e->data_pos);
    }
    if (e->status & BLOCK_HAVE_UNDO) {
        ser_put_varint(&v, e->undo_pos);
    }
    block_header_serialize(&e->header, hdr);
    buf_append(&v, hdr, 80);
    kv_batch_put(b, key, sizeof(key), v.data, v.len);
    buf_clear(&v);
}

void indexdb_put_file(struct kv_batch *b, int n, const struct blockfile_info *info, int last)
{
    struct buf v;
    uint8_t key[5] = {'f'}, l[4];
    buf_init(&v);
    wr_u32le(key + 1, (uint32_t)n);
    blockfile_info_serialize(&v, info);
    kv_batch_put(b, key, sizeof(key), v.data, v.len);
    wr_u32le(l, (uint32_t)last);
    kv_batch_put(b, "l", 1, l, 4);
    buf_clear(&v);
}

int indexdb_get_reindexing(struct kv *kv, int *reindexing)
{
    int rc = kv_get(kv, NULL, "R", 1);
    if (rc == RC_NOT_FOUND) {
        *reindexing = 0;
        return RC_OK;
    }
    if (rc) {
        return rc;
    }
    *reindexing = 1;
    return RC_OK;
}

int indexdb_set_reindexing(struct kv *kv, int reindexing)
{
    struct kv_batch *b = kv_batch_new();
    if (reindexing) {
        kv_batch_put(b, "R", 1, "\x01", 1);
    } else {
        kv_batch_delete(b, "R", 1);
    }
    int rc = kv_write(kv, b, 1);
    kv_batch_free(b);
    return rc;
}

int indexdb_get_pruned(struct kv *kv, int *pruned)
{
    int rc = kv_get(kv, NULL, "P", 1);
    *pruned = rc == RC_OK;
    return rc == RC_NOT_FOUND ? RC_OK : rc;
}

void indexdb_put_pruned(struct kv_batch *b)
{
    kv_batch_put(b, "P", 1, "\x01", 1);
}
