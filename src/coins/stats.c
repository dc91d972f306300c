#include "coins/stats.h"

#include <string.h>

#include "coins/view.h"
#include "primitives/serialize.h"
#include "util/rc.h"

void coins_stats_init(struct coins_stats *s, enum coins_stats_hash kind)
{
    memset(s, 0, sizeof(*s));
    s->kind = kind;
    buf_init(&s->ser);
    if (kind == COINS_STATS_HASH_SERIALIZED) {
        hash_sha256_init(&s->hs);
    } else if (kind == COINS_STATS_MUHASH) {
        s->mh = muhash_new();
    }
}

void coins_stats_clear(struct coins_stats *s)
{
    muhash_free(s->mh);
    s->mh = NULL;
    buf_clear(&s->ser);
}

void coins_txout_ser(struct buf *out, const struct outpoint *op, uint32_t height, int coinbase,
                     int64_t value_sat, const uint8_t *spk, size_t spk_len)
{
    buf_append(out, op->txid, 32);
    buf_put_u32le(out, op->n);
    buf_put_u32le(out, height * 2 + (coinbase ? 1 : 0));
    buf_put_u64le(out, (uint64_t)value_sat);
    ser_put_varbytes(out, spk, spk_len);
}

void coins_stats_add(struct coins_stats *s, const struct outpoint *op, uint32_t height,
                     int coinbase, int64_t value_sat, const uint8_t *spk, size_t spk_len)
{
    s->txouts++;
    s->bogosize += coins_bogosize(spk_len);
    s->total_amount_sat += value_sat;
    if (!s->have_last || memcmp(s->last_txid, op->txid, 32) != 0) {
        s->transactions++;
        memcpy(s->last_txid, op->txid, 32);
        s->have_last = 1;
    }
    if (s->kind == COINS_STATS_HASH_NONE) {
        return;
    }
    buf_reset(&s->ser);
    coins_txout_ser(&s->ser, op, height, coinbase, value_sat, spk, spk_len);
    if (s->kind == COINS_STATS_HASH_SERIALIZED) {
        hash_sha256_write(&s->hs, s->ser.data, s->ser.len);
    } else {
        muhash_insert(s->mh, s->ser.data, s->ser.len);
    }
}

void coins_stats_finish(struct coins_stats *s, uint8_t hash32[32])
{
    if (s->kind == COINS_STATS_HASH_SERIALIZED) {
        uint8_t first[32];
        hash_sha256_final(&s->hs, first);
        hash_sha256(hash32, first, 32);
    } else if (s->kind == COINS_STATS_MUHASH) {
        muhash_finalize(s->mh, hash32);
    } else {
        memset(hash32, 0, 32);
    }
}

static int stats_visit(void *ctx, const struct outpoint *op, const struct coin *c)
{
    coins_stats_add(ctx, op, c->height, c->coinbase, c->value_sat, c->script_pubkey.data,
                    c->script_pubkey.len);
    return 0;
}

int coins_db_stats(struct coins_db *db, enum coins_stats_hash kind, struct coins_stats *s,
                   uint8_t hash32[32])
{
    coins_stats_init(s, kind);
    int rc = coins_db_foreach(db, stats_visit, s);
    if (rc) {
        coins_stats_clear(s);
        return rc;
    }
    coins_stats_finish(s, hash32);
    return RC_OK;
}
