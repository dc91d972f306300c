/* Block headers and blocks (Core's CBlockHeader / CBlock serialization).
 * Wire format: doc/files.md, "Block".
 */
#include "primitives/block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "util/rc.h"
#include "util/xmalloc.h"

/* The smallest transaction serialization: version, an empty vin, the 0x00 that then stands
 * for the flags (or an empty vout), locktime. */
#define MIN_TX_SIZE 10
/* The most transactions allocated for before any is read (about 8 MB). */
#define TX_ALLOC_CHUNK 65536

void block_header_serialize(const struct block_header *h, uint8_t out80[80])
{
    wr_u32le(out80, (uint32_t)h->version);
    memcpy(out80 + 4, h->prev_hash, 32);
    memcpy(out80 + 36, h->merkle_root, 32);
    wr_u32le(out80 + 68, h->time);
    wr_u32le(out80 + 72, h->bits);
    wr_u32le(out80 + 76, h->nonce);
}

int block_header_parse(struct block_header *h, struct reader *r)
{
    const uint8_t *p;
    int rc = reader_ptr(r, &p, BLOCK_HEADER_SIZE, "block header");
    if (rc) {
        return rc;
    }
    h->version = (int32_t)rd_u32le(p);
    memcpy(h->prev_hash, p + 4, 32);
    memcpy(h->merkle_root, p + 36, 32);
    h->time = rd_u32le(p + 68);
    h->bits = rd_u32le(p + 72);
    h->nonce = rd_u32le(p + 76);
    return RC_OK;
}

void block_header_hash(const struct block_header *h, uint8_t out32[32])
{
    uint8_t ser[BLOCK_HEADER_SIZE];
    block_header_serialize(h, ser);
    hash_sha256d(out32, ser, sizeof(ser));
}

void block_init(struct block *b)
{
    memset(b, 0, sizeof(*b));
}

void block_clear(struct block *b)
{
    for (size_t i = 0; i < b->tx_count; i++) {
        tx_clear(&b->txs[i]); /* nothing to free for a pooled one */
    }
    free(b->txs);
    if (b->arena) {
        arena_clear(b->arena);
        free(b->arena);
    }
    block_init(b);
}

/* used: NULL to require that the block fills the input, else where it ends. */
static int parse_block(struct block *b, const uint8_t *p, size_t len, size_t *used, char *err,
                       size_t err_len)
{
    struct reader r;
    uint64_t n;
    size_t i = 0, cap;
    int rc;
    int in_tx = 0;

    block_init(b);
    reader_init(&r, p, len);
    if ((rc = block_header_parse(&b->header, &r))) {
        goto fail;
    }
    if ((rc = ser_get_compact(&r, &n, "tx count"))) {
        goto fail;
    }
    /* A hostile count must not become a huge allocation: start with what the rest of the
     * input could hold (at most a bounded chunk) and grow only as transactions are actually
     * read. A valid block's count always fits, so it gets one allocation. */
    cap = reader_left(&r) / MIN_TX_SIZE + 1;
    cap = cap < TX_ALLOC_CHUNK ? cap : TX_ALLOC_CHUNK;
    cap = (size_t)n < cap ? (size_t)n : cap;
    b->txs = cap ? xmalloc(cap * sizeof(*b->txs)) : NULL;
    /* The transactions' pieces from one arena: a block's worth of scripts and witness
     * items is thousands of small allocations, each freed alone otherwise. Its first
     * chunk is sized for what a typical block's pieces take beside its bytes. */
    b->arena = xmalloc(sizeof(*b->arena));
    arena_init(b->arena, len + len / 2);
    b->size_stripped = BLOCK_HEADER_SIZE + ser_compact_len(n);
    in_tx = 1;
    for (i = 0; i < (size_t)n; i++) {
        if (i == cap) {
            cap = cap * 2 < (size_t)n ? cap * 2 : (size_t)n;
            b->txs = xrealloc(b->txs, cap * sizeof(*b->txs));
        }
        if ((rc = tx_parse_in(&b->txs[i], &r, 1, b->arena))) {
            goto fail;
        }
        b->tx_count = i + 1;
        b->size_stripped += b->txs[i].size_stripped;
    }
    in_tx = 0;
    if (used) {
        *used = r.pos;
    } else if ((rc = reader_expect_end(&r, "block"))) {
        goto fail;
    }
    hash_sha256d(b->hash, p, BLOCK_HEADER_SIZE);
    b->size_total = r.pos;
    if (err && err_len) {
        err[0] = '\0';
    }
    return RC_OK;

fail:
    if (err && err_len) {
        if (in_tx) {
            snprintf(err, err_len, "tx %zu: %s", i, r.err);
        } else {
            snprintf(err, err_len, "%s", r.err);
        }
    }
    block_clear(b);
    return rc;
}

int block_parse(struct block *b, const uint8_t *p, size_t len, char *err, size_t err_len)
{
    return parse_block(b, p, len, NULL, err, err_len);
}

int block_parse_prefix(struct block *b, const uint8_t *p, size_t len, size_t *used, char *err,
                       size_t err_len)
{
    return parse_block(b, p, len, used, err, err_len);
}

void block_serialize(const struct block *b, struct buf *out, int with_witness)
{
    uint8_t hdr[BLOCK_HEADER_SIZE];
    /* The sizes are a hint only (they may be stale if b was edited). */
    buf_reserve(out, with_witness ? b->size_total : b->size_stripped);
    block_header_serialize(&b->header, hdr);
    buf_append(out, hdr, sizeof(hdr));
    ser_put_compact(out, b->tx_count);
    for (size_t i = 0; i < b->tx_count; i++) {
        tx_serialize(&b->txs[i], out, with_witness);
    }
}

static int cmp_txid(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

void block_sorted_txids(const struct block *b, uint8_t (**ids)[32], size_t *cap)
{
    if (*cap < b->tx_count) {
        free(*ids);
        *cap = b->tx_count;
        *ids = xmalloc(*cap * 32);
    }
    for (size_t t = 0; t < b->tx_count; t++) {
        memcpy((*ids)[t], b->txs[t].txid, 32);
    }
    if (b->tx_count > 1) {
        qsort(*ids, b->tx_count, 32, cmp_txid);
    }
}

int block_creates(const uint8_t (*ids)[32], size_t n, const uint8_t txid32[32])
{
    return n > 0 && bsearch(txid32, ids, n, 32, cmp_txid) != NULL;
}
