/* mempool.dat (persist.h): Core's DumpMempool / LoadMempool format. */
#include "mempool/persist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mempool/accept.h"
#include "primitives/serialize.h"
#include "util/fs.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define DUMP_VERSION_NO_XOR_KEY 1
#define DUMP_VERSION 2
#define KEY_SIZE 8
#define MAX_MEMPOOL_FILE (1ULL << 32)

/* XORs data at file offsets [pos, pos + n) with the key, as Core's Obfuscation. */
static void xor_at(uint8_t *p, size_t n, size_t pos, const uint8_t key[KEY_SIZE])
{
    for (size_t i = 0; i < n; i++) {
        p[i] ^= key[(pos + i) % KEY_SIZE];
    }
}

static int cmp32(const void *a, const void *b)
{
    return memcmp(a, b, 32);
}

int mempool_dump(struct mempool *mp, const char *path, int version, char *err, size_t err_len)
{
    struct buf f;
    uint8_t key[KEY_SIZE] = {0};
    buf_init(&f);
    buf_put_u64le(&f, version == 1 ? DUMP_VERSION_NO_XOR_KEY : DUMP_VERSION);
    if (version != 1) {
        random_bytes(key, KEY_SIZE);
        ser_put_compact(&f, KEY_SIZE);
        buf_append(&f, key, KEY_SIZE);
    }
    size_t body = f.len;
    mempool_read_lock(mp);
    size_t n;
    struct mempool_entry *const *v = mempool_entries(mp, &n);
    buf_put_u64le(&f, n);
    for (size_t i = 0; i < n; i++) {
        buf_append(&f, v[i]->raw, v[i]->raw_len);
        buf_put_u64le(&f, (uint64_t)v[i]->time);
        buf_put_u64le(&f, (uint64_t)v[i]->delta);
    }
    /* The deltas of transactions not in the pool (Core writes mapDeltas minus the entries',
     * as a map: sorted by txid). */
    size_t nd;
    struct mempool_delta *d = mempool_deltas(mp, &nd);
    size_t keep = 0;
    for (size_t i = 0; i < nd; i++) {
        if (!mempool_get(mp, d[i].txid)) {
            d[keep++] = d[i];
        }
    }
    mempool_read_unlock(mp);
    /* std::map<Txid> orders by the uint256's bytes compared from the last (Core's
     * base_blob comparison is memcmp on the internal bytes). */
    for (size_t i = 1; i < keep; i++) {
        for (size_t j = i; j > 0 && memcmp(d[j - 1].txid, d[j].txid, 32) > 0; j--) {
            struct mempool_delta t = d[j];
            d[j] = d[j - 1];
            d[j - 1] = t;
        }
    }
    ser_put_compact(&f, keep);
    for (size_t i = 0; i < keep; i++) {
        buf_append(&f, d[i].txid, 32);
        buf_put_u64le(&f, (uint64_t)d[i].delta);
    }
    free(d);
    /* The unbroadcast set (std::set<Txid>: sorted by the internal bytes). */
    size_t nu;
    uint8_t(*ub)[32] = mempool_unbroadcast_list(mp, &nu);
    qsort(ub, nu, 32, cmp32);
    ser_put_compact(&f, nu);
    for (size_t i = 0; i < nu; i++) {
        buf_append(&f, ub[i], 32);
    }
    free(ub);
    if (version != 1) {
        xor_at(f.data + body, f.len - body, body, key);
    }
    int rc = fs_write_file_via(path, ".new", f.data, f.len, 0600, err, err_len);
    buf_clear(&f);
    return rc;
}

int mempool_load(struct mempool *mp, struct chainstate *cs, const char *path, int64_t now,
                 int use_current_time, int apply_deltas, int apply_unbroadcast,
                 struct mempool_load_stats *stats, char *err, size_t err_len)
{
    struct buf f;
    struct reader r;
    uint64_t version, count;
    int rc;
    memset(stats, 0, sizeof(*stats));
    buf_init(&f);
    if ((rc = fs_read_file(path, &f, MAX_MEMPOOL_FILE, err, err_len))) {
        buf_clear(&f);
        return rc;
    }
    reader_init(&r, f.data, f.len);
    if (reader_u64le(&r, &version, "version")) {
        goto corrupt;
    }
    if (version == DUMP_VERSION) {
        uint64_t klen;
        const uint8_t *key;
        if (ser_get_compact(&r, &klen, "obfuscation key size") || klen != KEY_SIZE ||
            reader_ptr(&r, &key, KEY_SIZE, "obfuscation key")) {
            goto corrupt;
        }
        size_t pos = f.len - reader_left(&r);
        uint8_t k[KEY_SIZE];
        memcpy(k, key, KEY_SIZE);
        xor_at(f.data + pos, f.len - pos, pos, k);
    } else if (version != DUMP_VERSION_NO_XOR_KEY) {
        snprintf(err, err_len, "unknown mempool file version %llu", (unsigned long long)version);
        buf_clear(&f);
        return RC_CORRUPT;
    }
    if (reader_u64le(&r, &count, "transaction count")) {
        goto corrupt;
    }
    const struct mempool_options *o = mempool_options(mp);
    for (uint64_t i = 0; i < count; i++) {
        struct tx tx;
        uint64_t t, delta;
        if (tx_parse(&tx, &r, 1)) {
            goto corrupt;
        }
        if (reader_u64le(&r, &t, "time") || reader_u64le(&r, &delta, "fee delta")) {
            tx_clear(&tx);
            goto corrupt;
        }
        int64_t time = use_current_time ? now : (int64_t)t;
        if (time <= now - o->expiry_s) {
            stats->expired++;
            tx_clear(&tx);
            continue;
        }
        struct mempool_accept_args args = {.now = time};
        struct mempool_accept_result res;
        if (apply_deltas && delta) {
            mempool_write_lock(mp);
            mempool_prioritise(mp, tx.txid, (int64_t)delta);
            mempool_write_unlock(mp);
        }
        uint8_t txid[32];
        memcpy(txid, tx.txid, 32);
        if ((rc = mempool_accept_tx(mp, cs, &tx, &args, &res))) {
            tx_clear(&tx);
            buf_clear(&f);
            snprintf(err, err_len, "accepting a transaction: %s", rc_str(rc));
            return rc;
        }
        if (vstate_is_valid(&res.st)) {
            stats->succeeded++;
        } else if (mempool_get(mp, txid)) {
            stats->already_there++;
        } else {
            stats->failed++;
        }
        mempool_accept_result_clear(&res);
        tx_clear(&tx);
    }
    uint64_t nd;
    if (ser_get_compact(&r, &nd, "delta count")) {
        goto corrupt;
    }
    for (uint64_t i = 0; i < nd; i++) {
        const uint8_t *txid;
        uint64_t delta;
        if (reader_ptr(&r, &txid, 32, "delta txid") || reader_u64le(&r, &delta, "delta")) {
            goto corrupt;
        }
        if (apply_deltas) {
            mempool_write_lock(mp);
            mempool_prioritise(mp, txid, (int64_t)delta);
            mempool_write_unlock(mp);
        }
    }
    uint64_t nu;
    if (ser_get_compact(&r, &nu, "unbroadcast count")) {
        goto corrupt;
    }
    for (uint64_t i = 0; i < nu; i++) {
        const uint8_t *txid;
        if (reader_ptr(&r, &txid, 32, "unbroadcast txid")) {
            goto corrupt;
        }
        if (apply_unbroadcast && mempool_get(mp, txid)) {
            mempool_unbroadcast_add(mp, txid);
            stats->unbroadcast++;
        }
    }
    buf_clear(&f);
    return RC_OK;
corrupt:
    snprintf(err, err_len, "%s", r.err[0] ? r.err : "malformed mempool file");
    buf_clear(&f);
    return RC_CORRUPT;
}
