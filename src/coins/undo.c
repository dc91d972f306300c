#include "coins/undo.h"

#include <string.h>

#include "primitives/serialize.h"
#include "util/rc.h"
#include "util/xmalloc.h"

void block_undo_init(struct block_undo *u)
{
    u->txs = NULL;
    u->n = 0;
}

void block_undo_clear(struct block_undo *u)
{
    for (size_t i = 0; i < u->n; i++) {
        for (size_t j = 0; j < u->txs[i].n; j++) {
            coin_clear(&u->txs[i].prev[j]);
        }
        free(u->txs[i].prev);
    }
    free(u->txs);
    block_undo_init(u);
}

struct tx_undo *block_undo_resize(struct block_undo *u, size_t n)
{
    block_undo_clear(u);
    u->txs = xcalloc(n ? n : 1, sizeof(struct tx_undo));
    u->n = n;
    return u->txs;
}

void block_undo_serialize(struct buf *out, const struct block_undo *u)
{
    ser_put_compact(out, u->n);
    for (size_t i = 0; i < u->n; i++) {
        ser_put_compact(out, u->txs[i].n);
        for (size_t j = 0; j < u->txs[i].n; j++) {
            const struct coin *c = &u->txs[i].prev[j];
            ser_put_varint(out, (uint64_t)c->height * 2 + (c->coinbase ? 1 : 0));
            if (c->height > 0) {
                ser_put_varint(out, 0); /* the old format's version field */
            }
            ser_put_varint(out, coin_compress_amount((uint64_t)c->value_sat));
            coin_compress_script(out, c->script_pubkey.data, c->script_pubkey.len);
        }
    }
}

static int parse_coin(struct coin *c, struct reader *r)
{
    uint64_t code, version, amount;
    struct buf spk;
    int rc;
    if ((rc = ser_get_varint(r, &code, "undo height")) || code / 2 > UINT32_MAX) {
        return RC_CORRUPT;
    }
    c->height = (uint32_t)(code / 2);
    c->coinbase = (int)(code & 1);
    if (c->height > 0 && ser_get_varint(r, &version, "undo version")) {
        return RC_CORRUPT;
    }
    if (ser_get_varint(r, &amount, "undo amount")) {
        return RC_CORRUPT;
    }
    c->value_sat = (int64_t)coin_decompress_amount(amount);
    buf_init(&spk);
    if (coin_decompress_script(&spk, r)) {
        buf_clear(&spk);
        return RC_CORRUPT;
    }
    c->script_pubkey.data = spk.data;
    c->script_pubkey.len = spk.len;
    return RC_OK;
}

int block_undo_parse(struct block_undo *u, const uint8_t *p, size_t len)
{
    struct reader r;
    uint64_t ntx;
    block_undo_init(u);
    reader_init(&r, p, len);
    /* Each tx_undo takes at least one byte, each coin at least three. */
    if (ser_get_compact(&r, &ntx, "undo tx count") || ntx > reader_left(&r)) {
        return RC_CORRUPT;
    }
    block_undo_resize(u, (size_t)ntx);
    for (size_t i = 0; i < u->n; i++) {
        uint64_t nin;
        if (ser_get_compact(&r, &nin, "undo input count") || nin > reader_left(&r) / 3 + 1) {
            goto corrupt;
        }
        u->txs[i].prev = xcalloc(nin ? nin : 1, sizeof(struct coin));
        for (size_t j = 0; j < nin; j++) {
            if (parse_coin(&u->txs[i].prev[j], &r)) {
                u->txs[i].n = j;
                goto corrupt;
            }
        }
        u->txs[i].n = (size_t)nin;
    }
    if (reader_expect_end(&r, "block undo")) {
        goto corrupt;
    }
    return RC_OK;
corrupt:
    block_undo_clear(u);
    return RC_CORRUPT;
}
