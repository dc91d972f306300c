/* Writing and reading Core's UTXO snapshot format (snapshot.h). */
#include "coins/snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consensus/params.h"
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

/* ---- reading ---- */

/* The window the reader parses from: a coin is at most a few dozen bytes and a script of
 * MAX_SCRIPT_SIZE, so one that does not fit in COIN_ROOM bytes is malformed. */
#define WINDOW_BYTES ((size_t)1 << 20)
#define COIN_ROOM ((size_t)64 << 10)

struct snapshot_reader {
    FILE *f;
    uint8_t *win;
    size_t start, end; /* the unread bytes are win[start, end) */
    int eof;
    uint64_t left;          /* coins the header announced and not read yet */
    uint64_t read;          /* coins read */
    uint64_t group_left;    /* of the current txid */
    uint8_t txid[32];
    struct buf spk;
};

/* Makes at least need bytes readable, unless the file ends first. 0 or RC_IO. */
static int fill(struct snapshot_reader *r, size_t need)
{
    if (r->end - r->start >= need || r->eof) {
        return RC_OK;
    }
    memmove(r->win, r->win + r->start, r->end - r->start);
    r->end -= r->start;
    r->start = 0;
    while (r->end < WINDOW_BYTES && !r->eof) {
        size_t n = fread(r->win + r->end, 1, WINDOW_BYTES - r->end, r->f);
        r->end += n;
        if (n == 0) {
            if (ferror(r->f)) {
                return RC_IO;
            }
            r->eof = 1;
        }
    }
    return RC_OK;
}

static int header_error(char *err, size_t err_len, const char *msg)
{
    snprintf(err, err_len, "%s", msg);
    return RC_CORRUPT;
}

/* Core's SnapshotMetadata::Unserialize checks, with its messages. */
static int check_header(struct reader *rd, const uint8_t magic[4], uint8_t base_hash[32],
                        uint64_t *coins, char *err, size_t err_len)
{
    uint8_t m5[5], net[4];
    uint16_t version;
    if (reader_bytes(rd, m5, 5, "magic")) {
        return header_error(err, err_len, "AutoFile::read: end of file: unspecified iostream_category error");
    }
    if (memcmp(m5, "utxo\xff", 5) != 0) {
        return header_error(err, err_len,
                            "Invalid UTXO set snapshot magic bytes. Please check if this is indeed "
                            "a snapshot file or if you are using an outdated snapshot format.");
    }
    if (reader_u16le(rd, &version, "version") == RC_OK && version != SNAPSHOT_VERSION) {
        snprintf(err, err_len,
                 "Version of snapshot %u does not match any of the supported versions.", version);
        return RC_CORRUPT;
    }
    if (rd->rc == RC_OK && reader_bytes(rd, net, 4, "network") == RC_OK &&
        memcmp(net, magic, 4) != 0) {
        const struct chain_params *theirs = chain_params_by_magic(net),
                                  *ours = chain_params_by_magic(magic);
        if (!theirs || !ours) {
            return header_error(err, err_len,
                                "This snapshot has been created for an unrecognized network. This "
                                "could be a custom signet, a new testnet or possibly caused by "
                                "data corruption.");
        }
        snprintf(err, err_len,
                 "The network of the snapshot (%s) does not match the network of this node (%s).",
                 theirs->name, ours->name);
        return RC_CORRUPT;
    }
    if (rd->rc != RC_OK || reader_bytes(rd, base_hash, 32, "base") ||
        reader_u64le(rd, coins, "coins")) {
        return header_error(err, err_len, "AutoFile::read: end of file: unspecified iostream_category error");
    }
    return RC_OK;
}

int snapshot_reader_new(struct snapshot_reader **out, FILE *f, const uint8_t magic[4],
                        uint8_t base_hash[32], uint64_t *coins, char *err, size_t err_len)
{
    struct snapshot_reader *r = xcalloc(1, sizeof(*r));
    r->f = f;
    r->win = xmalloc(WINDOW_BYTES);
    buf_init(&r->spk);
    int rc = fill(r, SNAPSHOT_HEADER_SIZE);
    struct reader rd;
    if (rc == RC_OK) {
        reader_init(&rd, r->win, r->end);
        rc = check_header(&rd, magic, base_hash, coins, err, err_len);
    }
    if (rc != RC_OK) {
        snapshot_reader_free(r);
        return rc;
    }
    r->start = rd.pos;
    r->left = *coins;
    *out = r;
    return RC_OK;
}

static int truncated(const struct snapshot_reader *r, char *err, size_t err_len)
{
    snprintf(err, err_len, "Bad snapshot format or truncated snapshot after deserializing %llu coins",
             (unsigned long long)r->read);
    return RC_CORRUPT;
}

/* The next txid and its count of coins (Core's checks on the count). */
static int next_group(struct snapshot_reader *r, struct reader *rd, char *err, size_t err_len)
{
    uint64_t n;
    if (reader_bytes(rd, r->txid, 32, "txid") || ser_get_compact(rd, &n, "coins of txid")) {
        return truncated(r, err, err_len);
    }
    if (n > r->left) {
        snprintf(err, err_len,
                 "Mismatch in coins count in snapshot metadata and actual snapshot data");
        return RC_CORRUPT;
    }
    r->group_left = n;
    return RC_OK;
}

/* One coin's record: compact output index, varint code, varint amount, compressed script. */
static int next_coin(struct snapshot_reader *r, struct reader *rd, struct outpoint *op,
                     struct coin *c)
{
    uint64_t n, code, amount;
    buf_reset(&r->spk);
    if (ser_get_compact(rd, &n, "output index") || ser_get_varint(rd, &code, "coin height") ||
        ser_get_varint(rd, &amount, "coin amount") || coin_decompress_script(&r->spk, rd) ||
        n > UINT32_MAX || code >> 1 > UINT32_MAX) {
        return RC_CORRUPT;
    }
    memcpy(op->txid, r->txid, 32);
    op->n = (uint32_t)n;
    memset(c, 0, sizeof(*c));
    c->height = (uint32_t)(code >> 1);
    c->coinbase = (int)(code & 1);
    c->value_sat = (int64_t)coin_decompress_amount(amount);
    c->script_pubkey.data = r->spk.len ? r->spk.data : NULL;
    c->script_pubkey.len = r->spk.len;
    return RC_OK;
}

int snapshot_reader_next(struct snapshot_reader *r, struct outpoint *op, struct coin *c,
                         char *err, size_t err_len)
{
    if (r->left == 0) {
        return RC_NOT_FOUND;
    }
    int rc = fill(r, COIN_ROOM);
    if (rc) {
        return rc;
    }
    struct reader rd;
    reader_init(&rd, r->win + r->start, r->end - r->start);
    while (r->group_left == 0) { /* a txid with no coins is allowed, as Core reads it */
        if ((rc = next_group(r, &rd, err, err_len))) {
            return rc;
        }
        r->start += rd.pos;
        if ((rc = fill(r, COIN_ROOM))) {
            return rc;
        }
        reader_init(&rd, r->win + r->start, r->end - r->start);
    }
    if (next_coin(r, &rd, op, c)) {
        return truncated(r, err, err_len);
    }
    r->start += rd.pos;
    r->group_left--;
    r->left--;
    r->read++;
    return RC_OK;
}

int snapshot_reader_trailing(struct snapshot_reader *r)
{
    return fill(r, 1) == RC_OK && r->end > r->start;
}

void snapshot_reader_free(struct snapshot_reader *r)
{
    if (!r) {
        return;
    }
    buf_clear(&r->spk);
    free(r->win);
    free(r);
}
