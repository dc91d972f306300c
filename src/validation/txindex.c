#include "validation/txindex.h"

#include <stdio.h>
#include <string.h>

#include "primitives/serialize.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* The entries queued for the next write, found by txid (open addressing on the txid's first
 * 8 bytes, which are random): getrawtransaction sees a block's transactions as soon as it
 * is connected, as Core's, not only after the next write. */
struct pending_tx {
    uint8_t txid[32];
    struct txindex_pos pos;
};

struct txindex {
    struct kv *kv;
    struct kv_batch *pending;
    struct pending_tx *pv; /* the queued entries, in order */
    size_t pn, pcap;
    uint32_t *slot; /* index into pv plus 1, 0: empty; a power of two, at most half full */
    size_t nslots;
};

static size_t slot_of(const struct txindex *ti, const uint8_t txid32[32])
{
    uint64_t h;
    memcpy(&h, txid32, 8);
    return (size_t)h & (ti->nslots - 1);
}

/* The slot holding txid, or the empty one where it would go. */
static size_t pending_probe(const struct txindex *ti, const uint8_t txid32[32])
{
    size_t i = slot_of(ti, txid32);
    while (ti->slot[i] && memcmp(ti->pv[ti->slot[i] - 1].txid, txid32, 32) != 0) {
        i = (i + 1) & (ti->nslots - 1);
    }
    return i;
}

static void pending_grow(struct txindex *ti)
{
    free(ti->slot);
    ti->nslots = ti->nslots ? ti->nslots * 2 : 1024;
    ti->slot = xcalloc(ti->nslots, sizeof(*ti->slot));
    for (size_t k = 0; k < ti->pn; k++) {
        ti->slot[pending_probe(ti, ti->pv[k].txid)] = (uint32_t)(k + 1);
    }
}

/* Records txid at pos (a later entry for the same txid replaces it, as the batch's put). */
static void pending_add(struct txindex *ti, const uint8_t txid32[32], const struct txindex_pos *pos)
{
    if ((ti->pn + 1) * 2 > ti->nslots) {
        pending_grow(ti);
    }
    size_t i = pending_probe(ti, txid32);
    if (ti->slot[i]) {
        ti->pv[ti->slot[i] - 1].pos = *pos;
        return;
    }
    if (ti->pn == ti->pcap) {
        ti->pcap = ti->pcap ? ti->pcap * 2 : 1024;
        ti->pv = xrealloc(ti->pv, ti->pcap * sizeof(*ti->pv));
    }
    memcpy(ti->pv[ti->pn].txid, txid32, 32);
    ti->pv[ti->pn].pos = *pos;
    ti->slot[i] = (uint32_t)++ti->pn;
}

static void pending_clear(struct txindex *ti)
{
    ti->pn = 0;
    if (ti->slot) {
        memset(ti->slot, 0, ti->nslots * sizeof(*ti->slot));
    }
}

int txindex_open(struct txindex **out, const struct kv_ops *ops, const char *path, char *err,
                 size_t err_len)
{
    struct kv_options o;
    struct txindex *ti = xcalloc(1, sizeof(*ti));
    kv_options_init(&o);
    int rc = kv_open(&ti->kv, ops, path, &o);
    if (rc) {
        snprintf(err, err_len, "cannot open the transaction index %s: %s", path,
                 kv_last_error(NULL));
        free(ti);
        return rc;
    }
    ti->pending = kv_batch_new();
    *out = ti;
    return RC_OK;
}

void txindex_close(struct txindex *ti)
{
    if (!ti) {
        return;
    }
    kv_batch_free(ti->pending);
    kv_close(ti->kv);
    free(ti->pv);
    free(ti->slot);
    free(ti);
}

void txindex_add_block(struct txindex *ti, const struct block_index *e, const struct block *b)
{
    uint32_t offset = (uint32_t)ser_compact_len(b->tx_count); /* after the header */
    for (size_t i = 0; i < b->tx_count; i++) {
        uint8_t key[33] = {'t'}, val[32];
        size_t n = 0;
        memcpy(key + 1, b->txs[i].txid, 32);
        n += ser_varint_encode(val + n, (uint64_t)e->file);
        n += ser_varint_encode(val + n, e->data_pos);
        n += ser_varint_encode(val + n, offset);
        kv_batch_put(ti->pending, key, sizeof(key), val, n);
        const struct txindex_pos pos = {.file = e->file, .block_pos = e->data_pos,
                                        .tx_offset = offset};
        pending_add(ti, b->txs[i].txid, &pos);
        offset += (uint32_t)b->txs[i].size_total;
    }
}

size_t txindex_pending(const struct txindex *ti)
{
    return ti->pn;
}

int txindex_write(struct txindex *ti, const uint8_t best32[32])
{
    kv_batch_put(ti->pending, "B", 1, best32, 32);
    int rc = kv_write(ti->kv, ti->pending, 0);
    if (rc == RC_OK) {
        kv_batch_clear(ti->pending);
        pending_clear(ti);
    }
    return rc;
}

int txindex_best(struct txindex *ti, uint8_t best32[32])
{
    struct buf v;
    buf_init(&v);
    int rc = kv_get(ti->kv, &v, "B", 1);
    if (rc == RC_OK) {
        if (v.len == 32) {
            memcpy(best32, v.data, 32);
        } else {
            rc = RC_CORRUPT;
        }
    }
    buf_clear(&v);
    return rc;
}

int txindex_find(struct txindex *ti, const uint8_t txid32[32], struct txindex_pos *pos)
{
    uint8_t key[33] = {'t'};
    struct buf v;
    struct reader r;
    uint64_t f, bp, off;
    if (ti->pn) {
        size_t i = pending_probe(ti, txid32);
        if (ti->slot[i]) {
            *pos = ti->pv[ti->slot[i] - 1].pos;
            return RC_OK;
        }
    }
    memcpy(key + 1, txid32, 32);
    buf_init(&v);
    int rc = kv_get(ti->kv, &v, key, sizeof(key));
    if (rc == RC_OK) {
        reader_init(&r, v.data, v.len);
        if (ser_get_varint(&r, &f, "file") || ser_get_varint(&r, &bp, "pos") ||
            ser_get_varint(&r, &off, "offset") || reader_expect_end(&r, "tx position") ||
            f > INT32_MAX || bp > UINT32_MAX || off > UINT32_MAX) {
            rc = RC_CORRUPT;
        } else {
            pos->file = (int)f;
            pos->block_pos = (uint32_t)bp;
            pos->tx_offset = (uint32_t)off;
        }
    }
    buf_clear(&v);
    return rc;
}
