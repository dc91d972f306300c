/* Writing Core's UTXO snapshot format (snapshot.h). */
#include <stdlib.h>
#include <string.h>

#include "coins/snapshot.h"
#include "primitives/serialize.h"
#include "util/buf.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct snapshot_writer {
    FILE *f;
    uint8_t txid[32]; /* of the group being collected */
    size_t n_group;   /* its coins, serialized in group */
    struct buf group;
    uint64_t written;
    int failed;
};

int snapshot_writer_new(struct snapshot_writer **out, FILE *f, const uint8_t magic[4],
                        const uint8_t base_hash[32], uint64_t coins)
{
    struct buf h;
    buf_init(&h);
    buf_append(&h, "utxo\xff", 5);
    buf_put_u16le(&h, SNAPSHOT_VERSION);
    buf_append(&h, magic, 4);
    buf_append(&h, base_hash, 32);
    buf_put_u64le(&h, coins);
    int ok = fwrite(h.data, 1, h.len, f) == h.len;
    buf_clear(&h);
    if (!ok) {
        return RC_IO;
    }
    struct snapshot_writer *w = xcalloc(1, sizeof(*w));
    w->f = f;
    buf_init(&w->group);
    *out = w;
    return RC_OK;
}

/* The collected group: txid, its count, then its coins. */
static int write_group(struct snapshot_writer *w)
{
    if (w->n_group == 0) {
        return RC_OK;
    }
    struct buf h;
    buf_init(&h);
    buf_append(&h, w->txid, 32);
    ser_put_compact(&h, w->n_group);
    int ok = fwrite(h.data, 1, h.len, w->f) == h.len &&
             fwrite(w->group.data, 1, w->group.len, w->f) == w->group.len;
    buf_clear(&h);
    w->written += w->n_group;
    w->n_group = 0;
    buf_reset(&w->group);
    if (!ok) {
        w->failed = 1;
        return RC_IO;
    }
    return RC_OK;
}

int snapshot_writer_add(struct snapshot_writer *w, const struct outpoint *op, const struct coin *c)
{
    if (w->failed) {
        return RC_IO;
    }
    if (w->n_group && memcmp(w->txid, op->txid, 32) != 0 && write_group(w) != RC_OK) {
        return RC_IO;
    }
    memcpy(w->txid, op->txid, 32);
    ser_put_compact(&w->group, op->n);
    coin_serialize(&w->group, c);
    w->n_group++;
    return RC_OK;
}

int snapshot_writer_finish(struct snapshot_writer *w, uint64_t *written)
{
    int rc = w->failed ? RC_IO : write_group(w);
    if (rc == RC_OK && fflush(w->f) != 0) {
        rc = RC_IO;
    }
    *written = w->written;
    return rc;
}

void snapshot_writer_free(struct snapshot_writer *w)
{
    if (!w) {
        return;
    }
    buf_clear(&w->group);
    free(w);
}
