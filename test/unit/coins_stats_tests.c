/* UTXO set statistics against Bitcoin Core's answers: replays the bundled regtest chain
 * (test/data/regtest-small) through a plain in-memory UTXO map - no script checks, only
 * "spend the inputs, add the spendable outputs" - and at every height where expected.json
 * records gettxoutsetinfo compares hash_serialized_3, muhash, txouts, bogosize,
 * total_amount and transactions. This ties transactions, txids, SHA-256d and MuHash3072 to
 * Core's figures end to end. */
#include "test.h"

#include <jansson.h>
#include <math.h>

#include "blockstore/blockfile.h"
#include "coins/stats.h"
#include "primitives/block.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

struct coin {
    struct outpoint op;
    uint32_t height;
    int coinbase;
    int spent;
    int64_t value;
    uint8_t *spk;
    size_t spk_len;
};

struct utxo_map {
    struct coin *v;
    size_t n, cap;
    size_t *slots; /* index + 1 */
    size_t nslots;
};

static size_t op_hash(const struct outpoint *op)
{
    return (size_t)(rd_u64le(op->txid) ^ ((uint64_t)op->n * 0x9e3779b97f4a7c15ull));
}

static size_t find_slot(const struct utxo_map *m, const struct outpoint *op)
{
    size_t i = op_hash(op) & (m->nslots - 1);
    while (m->slots[i]) {
        const struct coin *c = &m->v[m->slots[i] - 1];
        if (c->op.n == op->n && memcmp(c->op.txid, op->txid, 32) == 0) {
            break;
        }
        i = (i + 1) & (m->nslots - 1);
    }
    return i;
}

static void map_insert(struct utxo_map *m, const struct coin *c)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 4096;
        m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
    }
    m->v[m->n++] = *c;
    if (2 * m->n > m->nslots) {
        free(m->slots);
        m->nslots = m->nslots ? 2 * m->nslots : 8192;
        m->slots = xcalloc(m->nslots, sizeof(size_t));
        for (size_t i = 0; i < m->n; i++) {
            m->slots[find_slot(m, &m->v[i].op)] = i + 1;
        }
    } else {
        m->slots[find_slot(m, &c->op)] = m->n;
    }
}

/* Spent coins stay in the arrays (marked), so lookups keep working; fine for a test. */
static struct coin *map_find_live(struct utxo_map *m, const struct outpoint *op)
{
    size_t s = m->slots[find_slot(m, op)];
    if (!s || m->v[s - 1].spent) {
        return NULL;
    }
    return &m->v[s - 1];
}

static int coin_cmp(const void *a, const void *b)
{
    const struct coin *x = *(const struct coin *const *)a, *y = *(const struct coin *const *)b;
    int c = memcmp(x->op.txid, y->op.txid, 32);
    if (c) {
        return c;
    }
    return x->op.n < y->op.n ? -1 : x->op.n > y->op.n;
}

static void compute(struct utxo_map *m, enum coins_stats_hash kind, struct coins_stats *st,
                    char hashhex[65])
{
    struct coin **live = xmalloc((m->n + 1) * sizeof(*live));
    size_t k = 0;
    uint8_t h[32];
    for (size_t i = 0; i < m->n; i++) {
        if (!m->v[i].spent) {
            live[k++] = &m->v[i];
        }
    }
    qsort(live, k, sizeof(*live), coin_cmp);
    coins_stats_init(st, kind);
    for (size_t i = 0; i < k; i++) {
        coins_stats_add(st, &live[i]->op, live[i]->height, live[i]->coinbase, live[i]->value,
                        live[i]->spk, live[i]->spk_len);
    }
    coins_stats_finish(st, h);
    coins_stats_clear(st);
    hex_encode_rev(hashhex, h, 32);
    free(live);
}

static int64_t json_sat(json_t *v)
{
    return (int64_t)llround(json_number_value(v) * 1e8);
}

/* Compares one gettxoutsetinfo object with the state; field is "hash_serialized_3" or
 * "muhash". */
static void check_against(struct utxo_map *m, json_t *obj, const char *field, int height)
{
    struct coins_stats st;
    char got[65];
    enum coins_stats_hash kind =
        strcmp(field, "muhash") == 0 ? COINS_STATS_MUHASH : COINS_STATS_HASH_SERIALIZED;
    compute(m, kind, &st, got);
    const char *want = json_string_value(json_object_get(obj, field));
    int ok = want && strcmp(want, got) == 0;
    ok &= st.txouts == (uint64_t)json_integer_value(json_object_get(obj, "txouts"));
    ok &= st.bogosize == (uint64_t)json_integer_value(json_object_get(obj, "bogosize"));
    ok &= st.total_amount_sat == json_sat(json_object_get(obj, "total_amount"));
    json_t *tx = json_object_get(obj, "transactions");
    if (tx) {
        ok &= st.transactions == (uint64_t)json_integer_value(tx);
    }
    if (!ok) {
        printf("# height %d %s: got %s txouts %llu bogosize %llu amount %lld tx %llu\n", height,
               field, got, (unsigned long long)st.txouts, (unsigned long long)st.bogosize,
               (long long)st.total_amount_sat, (unsigned long long)st.transactions);
        printf("#   want %s\n", want ? want : "(missing)");
    }
    test_report(ok, "height %d %s and totals equal Core's", height, field);
}

static void apply_block(struct utxo_map *m, const struct block *b, uint32_t height, int *bad)
{
    for (size_t t = 0; t < b->tx_count; t++) {
        const struct tx *tx = &b->txs[t];
        int cb = tx_is_coinbase(tx);
        if (!cb) {
            for (size_t i = 0; i < tx->vin_count; i++) {
                struct coin *c = map_find_live(m, &tx->vin[i].prevout);
                if (!c) {
                    (*bad)++;
                    continue;
                }
                c->spent = 1;
            }
        }
        if (height == 0) {
            continue; /* the genesis outputs are never in the UTXO set */
        }
        for (size_t o = 0; o < tx->vout_count; o++) {
            const struct tx_out *out = &tx->vout[o];
            const struct bytes *spk = &out->script_pubkey;
            if ((spk->len > 0 && spk->data[0] == 0x6a) || spk->len > 10000) {
                continue; /* provably unspendable: never added */
            }
            struct coin c = {.height = height, .coinbase = cb, .value = out->value_sat};
            memcpy(c.op.txid, tx->txid, 32);
            c.op.n = (uint32_t)o;
            c.spk_len = spk->len;
            c.spk = xmemdup(spk->data, spk->len);
            map_insert(m, &c);
        }
    }
}

int main(void)
{
    char path[4200], err[256];
    json_error_t jerr;
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    struct utxo_map m = {0};
    static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda};
    int height = 0, bad_spends = 0, bad_blocks = 0;

    snprintf(path, sizeof(path), "%s/regtest-small/expected.json", test_data_dir());
    json_t *exp = json_load_file(path, 0, &jerr);
    if (!exp) {
        printf("Bail out! cannot read %s: %s\n", path, jerr.text);
        return 1;
    }
    json_t *at = json_object_get(exp, "gettxoutsetinfo_at_height");
    json_t *every = json_object_get(exp, "gettxoutsetinfo_muhash_every_100");
    json_t *tipinfo = json_object_get(exp, "gettxoutsetinfo_tip");
    snprintf(path, sizeof(path), "%s/regtest-small/blk00000.dat", test_data_dir());
    if (blockfile_open(&bf, path, magic, err, sizeof(err)) != RC_OK) {
        printf("Bail out! %s\n", err);
        return 1;
    }
    for (; blockfile_next(bf, &rec) == 1; height++) {
        struct block b;
        char key[16], tiphex[65];
        if (block_parse(&b, rec.data, rec.len, err, sizeof(err)) != RC_OK) {
            printf("# block %d: %s\n", height, err);
            bad_blocks++;
            break;
        }
        apply_block(&m, &b, (uint32_t)height, &bad_spends);
        hex_encode_rev(tiphex, b.hash, 32);
        snprintf(key, sizeof(key), "%d", height);
        json_t *e = json_object_get(every, key);
        if (e) {
            const char *best = json_string_value(json_object_get(e, "bestblock"));
            test_report(best && strcmp(best, tiphex) == 0, "height %d block hash equals Core's",
                        height);
            check_against(&m, e, "muhash", height);
        }
        e = json_object_get(at, key);
        if (e) {
            check_against(&m, json_object_get(e, "hash_serialized_3"), "hash_serialized_3",
                          height);
            check_against(&m, json_object_get(e, "muhash"), "muhash", height);
        }
        if (json_integer_value(json_object_get(json_object_get(tipinfo, "muhash"), "height")) ==
            height) {
            check_against(&m, json_object_get(tipinfo, "hash_serialized_3"), "hash_serialized_3",
                          height);
        }
        block_clear(&b);
    }
    test_report(bad_blocks == 0 && height == 1301, "all 1301 blocks parsed (got %d)", height);
    test_report(bad_spends == 0, "every input spends a known unspent output (%d did not)",
                bad_spends);
    blockfile_close(bf);
    for (size_t i = 0; i < m.n; i++) {
        free(m.v[i].spk);
    }
    free(m.v);
    free(m.slots);
    json_decref(exp);
    return test_done();
}
