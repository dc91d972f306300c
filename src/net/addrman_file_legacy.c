/* bitnode's own former peers.dat format (doc/files.md, "bitnode's former peers.dat"), still
 * read so that a datadir written by an older bitnode keeps its addresses; the file is
 * written in Core's format (addrman_file.c) from then on. The writer stays for the tests
 * that make such files. Loading builds a separate state, checks every field and reference
 * against the tables it rebuilds, and only then replaces the caller's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "crypto/hash.h"
#include "net/addrman.h"
#include "net/addrman_impl.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define FILE_VERSION 1u
#define FILE_HEADER_BYTES 48 /* magic, version, key, two counts */
#define NEW_SLOTS (ADDRMAN_NEW_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE)
#define TRIED_SLOTS (ADDRMAN_TRIED_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE)

static void put_addr(struct buf *out, const struct net_addr *a)
{
    buf_put_u8(out, a->net);
    buf_put_u8(out, a->len);
    buf_append(out, a->addr, a->len);
    buf_put_u16le(out, a->port);
}

static void put_entry(struct buf *out, const struct addrman_entry *e, int tried_bucket_no)
{
    buf_put_u8(out, e->in_tried);
    put_addr(out, &e->addr);
    buf_put_u64le(out, e->services);
    buf_put_u64le(out, (uint64_t)e->time);
    buf_put_u64le(out, (uint64_t)e->last_try);
    buf_put_u64le(out, (uint64_t)e->last_success);
    buf_put_u32le(out, (uint32_t)e->attempts);
    put_addr(out, &e->source);
    if (e->in_tried) {
        buf_put_u16le(out, (uint16_t)tried_bucket_no);
    } else {
        buf_put_u8(out, e->ref_count);
        for (int i = 0; i < e->ref_count; i++) {
            buf_put_u16le(out, e->new_buckets[i]);
        }
    }
}

void addrman_legacy_serialize(const struct addrman *am, struct buf *out, const uint8_t magic[4])
{
    size_t start = out->len;
    buf_append(out, magic, 4);
    buf_put_u32le(out, FILE_VERSION);
    buf_append(out, am->key, 32);
    buf_put_u32le(out, (uint32_t)am->n_tried);
    buf_put_u32le(out, (uint32_t)am->n_new);
    /* Table order, not id order, so that equal states give equal files. */
    for (int b = 0; b < ADDRMAN_TRIED_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            if (am->tried_table[b][i] != NO_ID) {
                put_entry(out, &am->entries[am->tried_table[b][i]], b);
            }
        }
    }
    uint8_t *seen = xcalloc(am->entries_len ? am->entries_len : 1, 1);
    for (int b = 0; b < ADDRMAN_NEW_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            int32_t id = am->new_table[b][i];
            if (id != NO_ID && !seen[id]) {
                seen[id] = 1;
                put_entry(out, &am->entries[id], 0);
            }
        }
    }
    free(seen);
    uint8_t sum[32];
    hash_sha256d(sum, out->data + start, out->len - start);
    buf_append(out, sum, 32);
}

/* Records an inconsistency of entry index (at offset off) and returns RC_CORRUPT. */
static int bad_entry(struct reader *r, size_t index, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_entry(struct reader *r, size_t index, size_t off, const char *fmt, ...)
{
    char what[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return reader_fail(r, RC_CORRUPT, "entry %zu at offset %zu: %s", index, off, what);
}

static int read_addr(struct reader *r, struct net_addr *a, const char *what)
{
    memset(a, 0, sizeof(*a));
    if (reader_u8(r, &a->net, what) || reader_u8(r, &a->len, what)) {
        return r->rc;
    }
    if (a->len > sizeof(a->addr)) {
        return reader_fail(r, RC_CORRUPT, "%s at offset %zu: length %u over 32", what, r->pos - 1,
                           a->len);
    }
    if (reader_bytes(r, a->addr, a->len, what) || reader_u16le(r, &a->port, what)) {
        return r->rc;
    }
    return RC_OK;
}

static int read_time(struct reader *r, int64_t *t, const char *what, size_t index, size_t off)
{
    uint64_t v;
    if (reader_u64le(r, &v, what)) {
        return r->rc;
    }
    if (v > (uint64_t)ADDRMAN_TIME_MAX) {
        return bad_entry(r, index, off, "%s %llu out of range", what, (unsigned long long)v);
    }
    *t = (int64_t)v;
    return RC_OK;
}

/* Reads entry index (expected in tried or new) into st, checking it against st's tables. */
static int read_entry(struct reader *r, struct addrman *st, size_t index, int want_tried)
{
    size_t off = r->pos;
    uint8_t table;
    struct net_addr addr, source;
    uint64_t services;
    int64_t time = 0, last_try = 0, last_success = 0;
    uint32_t attempts;
    if (reader_u8(r, &table, "entry table")) {
        return r->rc;
    }
    if (table != want_tried) {
        return bad_entry(r, index, off, "table %u where %s entries are", table,
                         want_tried ? "tried" : "new");
    }
    if (read_addr(r, &addr, "entry address")) {
        return r->rc;
    }
    char text[NET_ADDR_STR_LEN];
    net_addr_format(&addr, 1, text);
    if (!addrman_addr_acceptable(&addr)) {
        return bad_entry(r, index, off, "address %s (network %u, %u bytes) not acceptable", text,
                         addr.net, addr.len);
    }
    if (addrman_find_id(st, &addr) != NO_ID) {
        return bad_entry(r, index, off, "address %s listed twice", text);
    }
    if (reader_u64le(r, &services, "services") || read_time(r, &time, "time", index, off) ||
        read_time(r, &last_try, "last_try", index, off) ||
        read_time(r, &last_success, "last_success", index, off) ||
        reader_u32le(r, &attempts, "attempts")) {
        return r->rc;
    }
    if (attempts > INT32_MAX) {
        return bad_entry(r, index, off, "attempts %u out of range", attempts);
    }
    if (read_addr(r, &source, "entry source")) {
        return r->rc;
    }
    if (!addrman_source_well_formed(&source)) {
        return bad_entry(r, index, off, "source (network %u, %u bytes) malformed", source.net,
                         source.len);
    }
    uint16_t buckets[ADDRMAN_NEW_BUCKETS_PER_ADDRESS];
    uint8_t n_refs = 1;
    if (want_tried) {
        if (reader_u16le(r, &buckets[0], "tried bucket")) {
            return r->rc;
        }
        int tb = addrman_tried_bucket(st, &addr);
        if (buckets[0] != tb) {
            return bad_entry(r, index, off, "tried bucket %u, but %s belongs in %d", buckets[0],
                             text, tb);
        }
        if (last_success == 0) {
            return bad_entry(r, index, off, "tried but never successful");
        }
        int tp = addrman_bucket_position(st, 0, tb, &addr);
        if (st->tried_table[tb][tp] != NO_ID) {
            return bad_entry(r, index, off, "tried bucket %d position %d already taken", tb, tp);
        }
    } else {
        if (reader_u8(r, &n_refs, "new reference count")) {
            return r->rc;
        }
        if (n_refs < 1 || n_refs > ADDRMAN_NEW_BUCKETS_PER_ADDRESS) {
            return bad_entry(r, index, off, "%u new references (1..%d)", n_refs,
                             ADDRMAN_NEW_BUCKETS_PER_ADDRESS);
        }
        for (int i = 0; i < n_refs; i++) {
            if (reader_u16le(r, &buckets[i], "new bucket")) {
                return r->rc;
            }
            if (buckets[i] >= ADDRMAN_NEW_BUCKET_COUNT || (i > 0 && buckets[i] <= buckets[i - 1])) {
                return bad_entry(r, index, off, "new bucket %u out of range or order", buckets[i]);
            }
            int pos = addrman_bucket_position(st, 1, buckets[i], &addr);
            if (st->new_table[buckets[i]][pos] != NO_ID) {
                return bad_entry(r, index, off, "new bucket %u position %d already taken",
                                 buckets[i], pos);
            }
        }
    }
    struct addrman_entry fields;
    memset(&fields, 0, sizeof(fields));
    fields.addr = addr;
    fields.source = source;
    fields.services = services;
    fields.time = time;
    fields.last_try = last_try;
    fields.last_success = last_success;
    fields.attempts = (int32_t)attempts;
    fields.in_tried = (uint8_t)want_tried;
    addrman_insert_checked(st, &fields, buckets, n_refs);
    return RC_OK;
}

int addrman_legacy_deserialize(struct addrman *am, const uint8_t *p, size_t len,
                               const uint8_t magic[4], char *err, size_t err_len)
{
    static const uint8_t zero[32];
    if (len < 8) {
        return addrman_corrupt(err, err_len, "truncated: %zu bytes, a peers.dat has at least %d",
                               len, FILE_HEADER_BYTES + 32);
    }
    if (memcmp(p, magic, 4) != 0) {
        return addrman_corrupt(err, err_len,
                               "wrong magic %02x%02x%02x%02x, expected %02x%02x%02x%02x (a file of "
                               "another network, or not a peers.dat)",
                               p[0], p[1], p[2], p[3], magic[0], magic[1], magic[2], magic[3]);
    }
    uint32_t version = rd_u32le(p + 4);
    if (version != FILE_VERSION) {
        if (err && err_len) {
            snprintf(err, err_len, "unsupported peers.dat version %u (this version reads %u)",
                     version, FILE_VERSION);
        }
        return RC_INVALID;
    }
    if (len < FILE_HEADER_BYTES + 32) {
        return addrman_corrupt(err, err_len, "truncated: %zu bytes, a peers.dat has at least %d",
                               len, FILE_HEADER_BYTES + 32);
    }
    uint8_t sum[32];
    hash_sha256d(sum, p, len - 32);
    if (memcmp(sum, p + len - 32, 32) != 0) {
        return addrman_corrupt(err, err_len,
                               "checksum mismatch over %zu bytes (truncated or damaged)", len - 32);
    }
    const uint8_t *key = p + 8;
    if (memcmp(key, zero, 32) == 0) {
        return addrman_corrupt(err, err_len, "bucket key is zero");
    }
    struct reader r;
    reader_init(&r, p, len - 32);
    uint32_t n_tried = 0, n_new = 0;
    reader_skip(&r, 40, "header");
    reader_u32le(&r, &n_tried, "tried count");
    reader_u32le(&r, &n_new, "new count");
    if (r.rc == RC_OK && n_tried > TRIED_SLOTS) {
        reader_fail(&r, RC_CORRUPT, "tried count %u over %d", n_tried, TRIED_SLOTS);
    }
    if (r.rc == RC_OK && n_new > NEW_SLOTS) {
        reader_fail(&r, RC_CORRUPT, "new count %u over %d", n_new, NEW_SLOTS);
    }
    struct addrman *st = addrman_state_new(key);
    for (size_t i = 0; r.rc == RC_OK && i < (size_t)n_tried + n_new; i++) {
        read_entry(&r, st, i, i < n_tried);
    }
    if (r.rc == RC_OK) {
        reader_expect_end(&r, "the last entry");
    }
    char cerr[160];
    if (r.rc == RC_OK && addrman_check(st, cerr, sizeof(cerr)) != RC_OK) {
        reader_fail(&r, RC_CORRUPT, "inconsistent after loading: %s", cerr);
    }
    if (r.rc != RC_OK) {
        addrman_corrupt(err, err_len, "%s", r.err);
        addrman_state_free_contents(st);
        free(st);
        return RC_CORRUPT;
    }
    addrman_state_adopt(am, st);
    return RC_OK;
}
