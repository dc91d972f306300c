/* Saving and loading the address manager (addrman.h) in Bitcoin Core's peers.dat format
 * (doc/files.md, "Peer addresses (peers.dat)"), so that Core's file loads here and ours
 * there. Loading follows Core's AddrMan::Unserialize step by step, its failures in its words
 * and order: the entries, then the new table's bucket lists, restored where the bucket count
 * and asmap version match (else each entry re-bucketed by its source, as Core does), tried
 * entries placed by their hash, collisions and addresses this addrman does not take dropped,
 * Core's consistency codes, and last the checksum. It builds a separate state and only then
 * replaces the caller's. A file in bitnode's former format goes to addrman_file_legacy.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "net/addrfile.h"
#include "net/addrman.h"
#include "net/addrman_impl.h"
#include "util/fs.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define FILE_FORMAT 4          /* Core's Format::V4_MULTIPORT, the one written */
#define LOWEST_COMPATIBLE 4    /* formats before it cannot read ours */
#define INCOMPATIBILITY_BASE 32
#define FORMAT_V1_DETERMINISTIC 1 /* the bucket count is XORed with 2^30 */
#define FORMAT_V2_ASMAP 2         /* an asmap version follows the buckets */
#define FORMAT_V3_BIP155 3        /* addresses in BIP155 form */
#define BUCKETS_XOR (1 << 30)
#define FILE_MAX_BYTES (32u << 20)
#define NEW_SLOTS (ADDRMAN_NEW_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE)
#define TRIED_SLOTS (ADDRMAN_TRIED_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE)

/* ---- writing ---- */

static void put_info(struct buf *out, const struct addrman_entry *e)
{
    uint32_t time = e->time > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)e->time;
    addrfile_put_caddr(out, &e->addr, e->services, time);
    addrfile_put_netaddr(out, &e->source);
    buf_put_u64le(out, (uint64_t)e->last_success);
    buf_put_u32le(out, (uint32_t)e->attempts);
}

void addrman_serialize(const struct addrman *am, struct buf *out, const uint8_t magic[4])
{
    static const uint8_t no_asmap[32];
    size_t start = out->len;
    buf_append(out, magic, 4);
    buf_put_u8(out, FILE_FORMAT);
    buf_put_u8(out, INCOMPATIBILITY_BASE + LOWEST_COMPATIBLE);
    buf_append(out, am->key, 32);
    buf_put_u32le(out, (uint32_t)am->n_new);
    buf_put_u32le(out, (uint32_t)am->n_tried);
    buf_put_u32le(out, (uint32_t)(ADDRMAN_NEW_BUCKET_COUNT ^ BUCKETS_XOR));
    /* New entries in the order the table meets them, tried ones in table order: equal
     * states give equal files. */
    int32_t *index = xmalloc((am->entries_len ? am->entries_len : 1) * sizeof(*index));
    for (size_t i = 0; i < am->entries_len; i++) {
        index[i] = -1;
    }
    int32_t k = 0;
    for (int b = 0; b < ADDRMAN_NEW_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            int32_t id = am->new_table[b][i];
            if (id != NO_ID && index[id] < 0) {
                index[id] = k++;
                put_info(out, &am->entries[id]);
            }
        }
    }
    for (int b = 0; b < ADDRMAN_TRIED_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            if (am->tried_table[b][i] != NO_ID) {
                put_info(out, &am->entries[am->tried_table[b][i]]);
            }
        }
    }
    for (int b = 0; b < ADDRMAN_NEW_BUCKET_COUNT; b++) {
        uint32_t n = 0;
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            n += am->new_table[b][i] != NO_ID;
        }
        buf_put_u32le(out, n);
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            if (am->new_table[b][i] != NO_ID) {
                buf_put_u32le(out, (uint32_t)index[am->new_table[b][i]]);
            }
        }
    }
    free(index);
    buf_append(out, no_asmap, 32); /* no asmap: Core's zero version */
    uint8_t sum[32];
    hash_sha256d(sum, out->data + start, out->len - start);
    buf_append(out, sum, 32);
}

/* ---- reading ---- */

/* One AddrInfo as read, and what placing it gave. */
struct file_entry {
    struct net_addr addr, source;
    uint64_t services;
    uint32_t time;
    int64_t last_success;
    int32_t attempts;
    int keep;      /* an address this addrman takes (Core keeps any valid one) */
    int placed;    /* tried: it got its slot */
    uint8_t n_refs; /* new: the buckets it got */
    uint16_t buckets[ADDRMAN_NEW_BUCKETS_PER_ADDRESS];
};

struct bucket_ref {
    int32_t bucket, index;
};

struct load {
    int format;
    int32_t n_new, n_tried, n_buckets;
    struct file_entry *entries; /* n_new new ones, then n_tried tried ones */
    struct bucket_ref *refs;
    size_t n_refs, refs_cap;
    uint8_t asmap_version[32];
};

static int read_info(struct addrfile_reader *r, struct file_entry *e, int v2)
{
    struct addrfile_caddr ca;
    int source_valid;
    memset(e, 0, sizeof(*e));
    if (addrfile_read_caddr(r, &ca, v2) ||
        addrfile_read_netaddr(r, &e->source, &source_valid, v2) ||
        addrfile_read_i64le(r, &e->last_success) || addrfile_read_i32le(r, &e->attempts)) {
        return r->rc;
    }
    e->addr = ca.addr;
    e->services = ca.services;
    e->time = ca.time;
    e->keep = ca.valid && addrman_addr_acceptable(&e->addr);
    /* Core's empty CNetAddr (::), an internal name (its seeds) or an address it cannot
     * read: the source is unknown here. */
    static const uint8_t zero16[16];
    if (!source_valid || !addrman_source_well_formed(&e->source) ||
        (e->source.net == BIP155_IPV6 && memcmp(e->source.addr, zero16, 16) == 0)) {
        memset(&e->source, 0, sizeof(e->source));
    }
    return 0;
}

/* The header after the magic, through the three counts. */
static int read_header(struct addrfile_reader *r, struct load *L, uint8_t key[32])
{
    uint8_t format = 0, compat = 0;
    if (addrfile_read_u8(r, &format) || addrfile_read_u8(r, &compat)) {
        return r->rc;
    }
    L->format = format;
    if (compat < INCOMPATIBILITY_BASE) {
        return addrfile_fail(r, RC_CORRUPT,
                             "Corrupted addrman database: The compat value (%u) is lower than "
                             "the expected minimum value %u." ADDRFILE_IOS_SUFFIX,
                             compat, INCOMPATIBILITY_BASE);
    }
    if (compat - INCOMPATIBILITY_BASE > FILE_FORMAT) {
        return addrfile_fail(r, RC_INVALID,
                             "Unsupported format of addrman database: %u. It is compatible with "
                             "formats >=%u, but the maximum supported by this version of "
                             "bitnode is %u." ADDRFILE_IOS_SUFFIX,
                             format, compat - INCOMPATIBILITY_BASE, FILE_FORMAT);
    }
    if (addrfile_read(r, key, 32) || addrfile_read_i32le(r, &L->n_new) ||
        addrfile_read_i32le(r, &L->n_tried) || addrfile_read_i32le(r, &L->n_buckets)) {
        return r->rc;
    }
    if (format >= FORMAT_V1_DETERMINISTIC) {
        L->n_buckets ^= BUCKETS_XOR;
    }
    if (L->n_new < 0 || L->n_new > NEW_SLOTS) {
        return addrfile_fail(r, RC_CORRUPT,
                             "Corrupt AddrMan serialization: nNew=%d, should be in [0, %d]"
                             ADDRFILE_IOS_SUFFIX,
                             (int)L->n_new, NEW_SLOTS);
    }
    if (L->n_tried < 0 || L->n_tried > TRIED_SLOTS) {
        return addrfile_fail(r, RC_CORRUPT,
                             "Corrupt AddrMan serialization: nTried=%d, should be in [0, %d]"
                             ADDRFILE_IOS_SUFFIX,
                             (int)L->n_tried, TRIED_SLOTS);
    }
    return 0;
}

/* Everything after the header: the entries, the new buckets' lists, the asmap version. */
static int read_body(struct addrfile_reader *r, struct load *L)
{
    int v2 = L->format >= FORMAT_V3_BIP155;
    size_t total = (size_t)L->n_new + (size_t)L->n_tried;
    L->entries = xcalloc(total ? total : 1, sizeof(*L->entries));
    for (size_t i = 0; i < total; i++) {
        if (read_info(r, &L->entries[i], v2)) {
            return r->rc;
        }
    }
    for (int32_t b = 0; b < L->n_buckets; b++) {
        int32_t n = 0;
        if (addrfile_read_i32le(r, &n)) {
            return r->rc;
        }
        for (int32_t k = 0; k < n; k++) {
            int32_t index = 0;
            if (addrfile_read_i32le(r, &index)) {
                return r->rc;
            }
            if (index < 0 || index >= L->n_new) {
                continue; /* Core skips a reference to no entry */
            }
            if (L->n_refs == L->refs_cap) {
                L->refs_cap = L->refs_cap ? 2 * L->refs_cap : 1024;
                L->refs = xrealloc(L->refs, L->refs_cap * sizeof(*L->refs));
            }
            L->refs[L->n_refs++] = (struct bucket_ref){b, index};
        }
    }
    if (L->format >= FORMAT_V2_ASMAP) {
        addrfile_read(r, L->asmap_version, 32);
    }
    return r->rc;
}

/* Core's placement of the new entries: each listed (bucket, entry) pair keeps its bucket
 * when bucketing is unchanged and the slot is free, else the entry tries the bucket of its
 * source; at most 8 buckets an entry. occ: the new table by file index. */
static void place_new(struct addrman *st, struct load *L, int32_t (*occ)[ADDRMAN_BUCKET_SIZE])
{
    static const uint8_t no_asmap[32];
    int restore = L->n_buckets == ADDRMAN_NEW_BUCKET_COUNT &&
                  memcmp(L->asmap_version, no_asmap, 32) == 0;
    for (size_t i = 0; i < L->n_refs; i++) {
        struct file_entry *e = &L->entries[L->refs[i].index];
        if (!e->keep || e->n_refs >= ADDRMAN_NEW_BUCKETS_PER_ADDRESS) {
            continue;
        }
        int b = L->refs[i].bucket;
        if (!restore || occ[b][addrman_bucket_position(st, 1, b, &e->addr)] >= 0) {
            b = addrman_new_bucket(st, &e->addr, &e->source);
        }
        int pos = addrman_bucket_position(st, 1, b, &e->addr);
        if (occ[b][pos] < 0) {
            occ[b][pos] = L->refs[i].index;
            e->buckets[e->n_refs++] = (uint16_t)b;
        }
    }
}

static int cmp_addr(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct net_addr));
}

/* Core's CheckAddrman codes a file can reach: an address twice (-5: its map finds one of
 * them), a tried entry that never succeeded (-1), a negative last success (-8), a zero key
 * (-16). 0 when none. */
static int consistency_code(const struct addrman *st, const struct load *L)
{
    size_t total = (size_t)L->n_new + (size_t)L->n_tried, n = 0;
    struct net_addr *seen = xmalloc((total ? total : 1) * sizeof(*seen));
    int code = 0;
    for (size_t i = 0; i < total; i++) {
        const struct file_entry *e = &L->entries[i];
        int tried = i >= (size_t)L->n_new;
        if (!e->keep || (tried && !e->placed)) {
            continue;
        }
        seen[n++] = e->addr; /* zeroed beyond len by the reader: equal addresses, equal bytes */
        int kept = tried || e->n_refs > 0;
        if (!code && kept && tried && e->last_success == 0) {
            code = -1;
        } else if (!code && kept && e->last_success < 0) {
            code = -8;
        }
    }
    qsort(seen, n, sizeof(*seen), cmp_addr);
    for (size_t i = 1; i < n && code == 0; i++) {
        if (cmp_addr(&seen[i - 1], &seen[i]) == 0) {
            code = -5;
        }
    }
    free(seen);
    static const uint8_t zero[32];
    if (code == 0 && memcmp(st->key, zero, 32) == 0) {
        code = -16;
    }
    return code;
}

static int cmp_u16(const void *a, const void *b)
{
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static void fill_fields(struct addrman_entry *f, const struct file_entry *e, int tried)
{
    memset(f, 0, sizeof(*f));
    f->addr = e->addr;
    f->source = e->source;
    f->services = e->services;
    f->time = e->time;
    /* Core takes any value; this addrman's times and counts have ranges. */
    f->last_success = e->last_success > ADDRMAN_TIME_MAX ? ADDRMAN_TIME_MAX : e->last_success;
    f->attempts = e->attempts < 0 ? 0 : e->attempts;
    f->in_tried = (uint8_t)tried;
}

/* Builds st from what was read: the tried entries into their slots, the new ones into
 * their buckets, then Core's checks. Returns 0 or r's failure. */
static int build(struct addrfile_reader *r, struct addrman *st, struct load *L)
{
    struct addrman_entry f;
    for (int32_t i = 0; i < L->n_tried; i++) {
        struct file_entry *e = &L->entries[L->n_new + i];
        if (!e->keep) {
            continue;
        }
        int tb = addrman_tried_bucket(st, &e->addr);
        if (st->tried_table[tb][addrman_bucket_position(st, 0, tb, &e->addr)] != NO_ID) {
            continue; /* Core: lost to a collision */
        }
        e->placed = 1;
        if (e->last_success > 0) {
            uint16_t b = (uint16_t)tb;
            fill_fields(&f, e, 1);
            addrman_insert_checked(st, &f, &b, 1);
        }
    }
    int32_t(*occ)[ADDRMAN_BUCKET_SIZE] = xmalloc(sizeof(int32_t[NEW_SLOTS]));
    for (int b = 0; b < ADDRMAN_NEW_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            occ[b][i] = -1;
        }
    }
    place_new(st, L, occ);
    free(occ);
    int code = consistency_code(st, L);
    if (code != 0) {
        return addrfile_fail(r, RC_CORRUPT,
                             "Corrupt data. Consistency check failed with code %d"
                             ADDRFILE_IOS_SUFFIX,
                             code);
    }
    for (int32_t i = 0; i < L->n_new; i++) {
        struct file_entry *e = &L->entries[i];
        if (e->n_refs > 0) {
            qsort(e->buckets, e->n_refs, sizeof(e->buckets[0]), cmp_u16);
            fill_fields(&f, e, 0);
            addrman_insert_checked(st, &f, e->buckets, e->n_refs);
        }
    }
    char cerr[160];
    if (addrman_check(st, cerr, sizeof(cerr)) != RC_OK) {
        return addrfile_fail(r, RC_CORRUPT, "Corrupt data. Consistency check failed: %s", cerr);
    }
    return 0;
}

/* bitnode's former format: the same magic, then a u32 version of 1 (in Core's terms format
 * 1 with compat 0, which Core refuses), and a checksum over all that precedes it. */
static int is_legacy(const uint8_t *p, size_t len, const uint8_t magic[4])
{
    uint8_t sum[32];
    if (len < 80 || memcmp(p, magic, 4) != 0 || rd_u32le(p + 4) != 1) {
        return 0;
    }
    hash_sha256d(sum, p, len - 32);
    return memcmp(sum, p + len - 32, 32) == 0;
}

int addrman_deserialize(struct addrman *am, int *old_format, const uint8_t *p, size_t len,
                        const uint8_t magic[4], char *err, size_t err_len)
{
    if (old_format) {
        *old_format = 0;
    }
    if (is_legacy(p, len, magic)) {
        if (old_format) {
            *old_format = 1;
        }
        return addrman_legacy_deserialize(am, p, len, magic, err, err_len);
    }
    struct addrfile_reader r;
    addrfile_reader_init(&r, p, len);
    uint8_t m[4], key[32] = {0}, sum[32], want[32];
    struct load L;
    memset(&L, 0, sizeof(L));
    struct addrman *st = NULL;
    if (addrfile_read(&r, m, 4)) {
        goto out;
    }
    if (memcmp(m, magic, 4) != 0) {
        addrfile_fail(&r, RC_CORRUPT, "Invalid network magic number");
        goto out;
    }
    if (read_header(&r, &L, key) || read_body(&r, &L)) {
        goto out;
    }
    st = addrman_state_new(key);
    if (build(&r, st, &L)) {
        goto out;
    }
    size_t hashed = r.pos;
    if (addrfile_read(&r, want, 32) == 0) {
        hash_sha256d(sum, p, hashed);
        if (memcmp(sum, want, 32) != 0) {
            addrfile_fail(&r, RC_CORRUPT, "Checksum mismatch, data corrupted");
        }
    }
out:
    free(L.entries);
    free(L.refs);
    if (r.rc != 0) {
        if (err && err_len) {
            snprintf(err, err_len, "%s", r.err);
        }
        if (st) {
            addrman_state_free_contents(st);
            free(st);
        }
        return r.rc;
    }
    addrman_state_adopt(am, st);
    return RC_OK;
}

int addrman_save(const struct addrman *am, const char *path, const uint8_t magic[4], char *err,
                 size_t err_len)
{
    struct buf b;
    buf_init(&b);
    addrman_serialize(am, &b, magic);
    int rc = fs_write_file_atomic(path, b.data, b.len, 0600, err, err_len);
    buf_clear(&b);
    return rc;
}

int addrman_load(struct addrman *am, int *old_format, const char *path, const uint8_t magic[4],
                 char *err, size_t err_len)
{
    struct buf b;
    buf_init(&b);
    if (old_format) {
        *old_format = 0;
    }
    int rc = fs_read_file(path, &b, FILE_MAX_BYTES, err, err_len);
    if (rc == RC_OK) {
        rc = addrman_deserialize(am, old_format, b.data, b.len, magic, err, err_len);
    }
    buf_clear(&b);
    return rc;
}
