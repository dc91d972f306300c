#include "validation/txindex.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "primitives/serialize.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* A generation of entries, found by txid (open addressing on the txid's first 8 bytes,
 * which are random): getrawtransaction sees a block's transactions as soon as it is
 * connected, as Core's, not only once they are written. */
struct pending_tx {
    uint8_t txid[32];
    struct txindex_pos pos;
};

struct gen {
    struct kv_batch *batch;
    struct pending_tx *pv; /* the entries, in order */
    size_t pn, pcap;
    uint32_t *slot; /* index into pv plus 1, 0: empty; a power of two, at most half full */
    size_t nslots;
};

/* Two generations: q, queued under the chain lock by the validation thread (and read under
 * it), and w, handed to the index's writer thread, which writes it to the store and then
 * empties it; mu guards w and the writer's state, so a lookup finds an entry in q, w or the
 * store. The chain lock is not held while a batch is written (Core's indexes write on their
 * own thread too): an RPC call waited 1-4 s for each 2^19-entry write of an import. */
struct txindex {
    struct kv *kv;
    struct gen q, w;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int busy;  /* w holds a batch not yet written */
    int stop;  /* txindex_close: the writer ends */
    int error; /* a failed write's rc, returned by the next begin or wait */
    char errmsg[256];
};

static size_t slot_of(const struct gen *g, const uint8_t txid32[32])
{
    uint64_t h;
    memcpy(&h, txid32, 8);
    return (size_t)h & (g->nslots - 1);
}

/* The slot holding txid, or the empty one where it would go. */
static size_t pending_probe(const struct gen *g, const uint8_t txid32[32])
{
    size_t i = slot_of(g, txid32);
    while (g->slot[i] && memcmp(g->pv[g->slot[i] - 1].txid, txid32, 32) != 0) {
        i = (i + 1) & (g->nslots - 1);
    }
    return i;
}

static void pending_grow(struct gen *g)
{
    free(g->slot);
    g->nslots = g->nslots ? g->nslots * 2 : 1024;
    g->slot = xcalloc(g->nslots, sizeof(*g->slot));
    for (size_t k = 0; k < g->pn; k++) {
        g->slot[pending_probe(g, g->pv[k].txid)] = (uint32_t)(k + 1);
    }
}

/* Records txid at pos (a later entry for the same txid replaces it, as the batch's put). */
static void pending_add(struct gen *g, const uint8_t txid32[32], const struct txindex_pos *pos)
{
    if ((g->pn + 1) * 2 > g->nslots) {
        pending_grow(g);
    }
    size_t i = pending_probe(g, txid32);
    if (g->slot[i]) {
        g->pv[g->slot[i] - 1].pos = *pos;
        return;
    }
    if (g->pn == g->pcap) {
        g->pcap = g->pcap ? g->pcap * 2 : 1024;
        g->pv = xrealloc(g->pv, g->pcap * sizeof(*g->pv));
    }
    memcpy(g->pv[g->pn].txid, txid32, 32);
    g->pv[g->pn].pos = *pos;
    g->slot[i] = (uint32_t)++g->pn;
}

static void gen_free(struct gen *g)
{
    kv_batch_free(g->batch);
    free(g->pv);
    free(g->slot);
}

/* txid's entry in g: 1 with *pos, or 0. */
static int gen_find(const struct gen *g, const uint8_t txid32[32], struct txindex_pos *pos)
{
    if (!g->pn) {
        return 0;
    }
    size_t i = pending_probe(g, txid32);
    if (!g->slot[i]) {
        return 0;
    }
    *pos = g->pv[g->slot[i] - 1].pos;
    return 1;
}

/* The writer thread: writes each generation handed to it, then empties it. */
static void *writer_main(void *arg)
{
    struct txindex *ti = arg;
    log_thread_start("txindex");
    pthread_mutex_lock(&ti->mu);
    for (;;) {
        while (!ti->busy && !ti->stop) {
            pthread_cond_wait(&ti->cv, &ti->mu);
        }
        if (!ti->busy) {
            break;
        }
        pthread_mutex_unlock(&ti->mu);
        int rc = kv_write(ti->kv, ti->w.batch, 0); /* w is the writer's until busy is 0 */
        char msg[sizeof(ti->errmsg)];
        if (rc) {
            snprintf(msg, sizeof(msg), "%s", kv_last_error(ti->kv));
            LOG_ERROR("writing the transaction index: %s", msg);
        }
        pthread_mutex_lock(&ti->mu);
        if (rc && !ti->error) {
            ti->error = rc;
            memcpy(ti->errmsg, msg, sizeof(msg));
        }
        /* On success in the store now (a failure stops the node). Its memory goes too, so
         * that only the generation being queued keeps any between writes (about 60 MiB
         * for 2^19 entries). */
        gen_free(&ti->w);
        memset(&ti->w, 0, sizeof(ti->w));
        ti->w.batch = kv_batch_new();
        ti->busy = 0;
        pthread_cond_broadcast(&ti->cv);
    }
    pthread_mutex_unlock(&ti->mu);
    return NULL;
}

static void txindex_free(struct txindex *ti);

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
    ti->q.batch = kv_batch_new();
    ti->w.batch = kv_batch_new();
    pthread_mutex_init(&ti->mu, NULL);
    pthread_cond_init(&ti->cv, NULL);
    if (pthread_create(&ti->thread, NULL, writer_main, ti) != 0) {
        snprintf(err, err_len, "cannot start the transaction index's writer thread");
        txindex_free(ti);
        return RC_BACKEND;
    }
    *out = ti;
    return RC_OK;
}

static void txindex_free(struct txindex *ti)
{
    pthread_cond_destroy(&ti->cv);
    pthread_mutex_destroy(&ti->mu);
    gen_free(&ti->q);
    gen_free(&ti->w);
    kv_close(ti->kv);
    free(ti);
}

void txindex_close(struct txindex *ti)
{
    if (!ti) {
        return;
    }
    pthread_mutex_lock(&ti->mu);
    ti->stop = 1; /* the writer finishes a batch it has first */
    pthread_cond_broadcast(&ti->cv);
    pthread_mutex_unlock(&ti->mu);
    pthread_join(ti->thread, NULL);
    txindex_free(ti);
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
        kv_batch_put(ti->q.batch, key, sizeof(key), val, n);
        const struct txindex_pos pos = {.file = e->file, .block_pos = e->data_pos,
                                        .tx_offset = offset};
        pending_add(&ti->q, b->txs[i].txid, &pos);
        offset += (uint32_t)b->txs[i].size_total;
    }
}

size_t txindex_pending(const struct txindex *ti)
{
    return ti->q.pn;
}

/* Waits, mu held, until the writer is idle; the error of a failed write (logged by the
 * writer, its message kept), or 0. */
static int wait_idle(struct txindex *ti)
{
    while (ti->busy) {
        pthread_cond_wait(&ti->cv, &ti->mu);
    }
    return ti->error;
}

int txindex_write_begin(struct txindex *ti, const uint8_t best32[32])
{
    pthread_mutex_lock(&ti->mu);
    int rc = wait_idle(ti);
    if (rc == RC_OK) {
        struct gen t = ti->w; /* empty */
        ti->w = ti->q;
        ti->q = t;
        kv_batch_put(ti->w.batch, "B", 1, best32, 32);
        ti->busy = 1;
        pthread_cond_broadcast(&ti->cv);
    }
    pthread_mutex_unlock(&ti->mu);
    return rc;
}

int txindex_wait(struct txindex *ti)
{
    pthread_mutex_lock(&ti->mu);
    int rc = wait_idle(ti);
    pthread_mutex_unlock(&ti->mu);
    return rc;
}

int txindex_write(struct txindex *ti, const uint8_t best32[32])
{
    int rc = txindex_write_begin(ti, best32);
    return rc ? rc : txindex_wait(ti);
}

const char *txindex_error(struct txindex *ti)
{
    pthread_mutex_lock(&ti->mu);
    const char *m = ti->error ? ti->errmsg : "";
    pthread_mutex_unlock(&ti->mu);
    return m;
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
    if (gen_find(&ti->q, txid32, pos)) {
        return RC_OK;
    }
    pthread_mutex_lock(&ti->mu);
    int found = gen_find(&ti->w, txid32, pos);
    pthread_mutex_unlock(&ti->mu);
    if (found) {
        return RC_OK; /* being written; once written, the store has it before w is emptied */
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
