/* The address manager (addrman.h), after Bitcoin Core's addrman. The structures are in
 * addrman_impl.h.
 *
 * Entries live in a growable array indexed by id (freed ids are reused); the tables hold
 * ids (NO_ID for an empty slot). Each entry also lists the new buckets holding it, so that
 * moving it to tried, checking it and saving it never have to search the 1024 buckets.
 * An open-addressing map (keyed hash, linear probing) finds an id from an address, and
 * random[] holds every live id in an order shuffled as GetAddr draws from it. Saving and
 * loading are in addrman_file.c.
 */
#include "net/addrman.h"
#include "net/addrman_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "crypto/hash.h"
#include "crypto/siphash.h"
#include "util/check.h"
#include "util/log.h"
#include "util/random.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define MAP_INITIAL_CAP 1024

/* ---- PRNG ---- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct addrman_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Uniform in [0, n), n > 0, without modulo bias. */
static uint64_t rng_range(struct addrman_rng *r, uint64_t n)
{
    uint64_t threshold = (0 - n) % n;
    for (;;) {
        uint64_t x = rng_next(r);
        if (x >= threshold) {
            return x % n;
        }
    }
}

static double rng_unit(struct addrman_rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static void rng_seed(struct addrman_rng *r, uint64_t seed)
{
    do {
        if (seed == 0) {
            random_bytes((uint8_t *)r->s, sizeof(r->s));
        } else {
            uint64_t x = seed;
            for (int i = 0; i < 4; i++) {
                r->s[i] = splitmix64(&x);
            }
            seed++; /* only reached if the state came out all zero */
        }
    } while ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0);
}

/* ---- addresses, groups, hashes ---- */

static const uint8_t v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* The right length for its BIP155 network (and Core's further validity rules). */
static int well_formed(const struct net_addr *a)
{
    switch (a->net) {
    case BIP155_IPV4:
        return a->len == 4;
    case BIP155_IPV6:
        /* A mapped IPv4 address in an IPv6 field would be a second name for an IPv4 entry. */
        return a->len == 16 && memcmp(a->addr, v4_mapped_prefix, 12) != 0;
    case BIP155_TORV3:
    case BIP155_I2P:
        return a->len == 32;
    case BIP155_CJDNS:
        return a->len == 16 && a->addr[0] == 0xfc;
    default:
        return 0;
    }
}

int addrman_source_well_formed(const struct net_addr *a)
{
    return (a->net == 0 && a->len == 0) || well_formed(a);
}

int addrman_addr_acceptable(const struct net_addr *a)
{
    if (!well_formed(a) || !net_addr_is_routable(a)) {
        return 0;
    }
    const uint8_t *p = a->addr;
    if (a->net == BIP155_IPV6 && p[0] == 0x20 && p[1] == 0x01 && p[2] == 0x00 &&
        ((p[3] & 0xf0) == 0x10 || (p[3] & 0xf0) == 0x20)) {
        return 0; /* ORCHID (RFC 4843) and ORCHIDv2 (RFC 7343) */
    }
    return 1;
}

/* A copy with the unused address bytes zeroed, so equal addresses are equal bytes. */
static void addr_copy(struct net_addr *dst, const struct net_addr *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->net = src->net;
    dst->len = src->len <= sizeof(dst->addr) ? src->len : (uint8_t)sizeof(dst->addr);
    memcpy(dst->addr, src->addr, dst->len);
    dst->port = src->port;
}

static int addr_equal(const struct net_addr *a, const struct net_addr *b)
{
    return a->net == b->net && a->len == b->len && a->port == b->port &&
           memcmp(a->addr, b->addr, a->len) == 0;
}

/* net, len, the address bytes, the port (LE): what identifies an entry (Core's GetKey). */
static size_t addr_key(const struct net_addr *a, uint8_t out[36])
{
    size_t len = a->len <= 32 ? a->len : 32;
    out[0] = a->net;
    out[1] = (uint8_t)len;
    memcpy(out + 2, a->addr, len);
    wr_u16le(out + 2 + len, a->port);
    return 4 + len;
}

/* The IPv4 address an IPv4 or IPv6 address carries (Core's HasLinkedIPv4/GetLinkedIPv4). */
static int linked_ipv4(const struct net_addr *a, uint32_t *v4)
{
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t siit[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    const uint8_t *p = a->addr;
    if (a->net == BIP155_IPV4) {
        *v4 = rd_u32be(p);
        return 1;
    }
    if (a->net != BIP155_IPV6) {
        return 0;
    }
    if (memcmp(p, nat64, 12) == 0 || memcmp(p, siit, 12) == 0) { /* RFC 6052, RFC 6145 */
        *v4 = rd_u32be(p + 12);
        return 1;
    }
    if (p[0] == 0x20 && p[1] == 0x02) { /* 6to4, RFC 3964 */
        *v4 = rd_u32be(p + 2);
        return 1;
    }
    if (p[0] == 0x20 && p[1] == 0x01 && p[2] == 0 && p[3] == 0) { /* Teredo, RFC 4380 */
        *v4 = ~rd_u32be(p + 12);
        return 1;
    }
    return 0;
}

size_t addrman_netgroup(const struct net_addr *a, uint8_t out[ADDRMAN_NETGROUP_MAX])
{
    const uint8_t *p = a->addr;
    uint32_t v4;
    if (!addrman_addr_acceptable(a)) {
        out[0] = NETWORK_UNROUTABLE; /* local and unroutable: one group */
        return 1;
    }
    if (linked_ipv4(a, &v4)) {
        out[0] = NETWORK_IPV4;
        out[1] = (uint8_t)(v4 >> 24);
        out[2] = (uint8_t)(v4 >> 16);
        return 3;
    }
    switch (a->net) {
    case BIP155_TORV3:
    case BIP155_I2P:
        /* The address is a public key: 4 bits make 16 groups, as in Core. */
        out[0] = a->net == BIP155_TORV3 ? NETWORK_ONION : NETWORK_I2P;
        out[1] = p[0] | 0x0f;
        return 2;
    case BIP155_CJDNS:
        /* A key too, after the constant fc byte. */
        out[0] = NETWORK_CJDNS;
        out[1] = p[0];
        out[2] = p[1] | 0x0f;
        return 3;
    default:
        out[0] = NETWORK_IPV6;
        memcpy(out + 1, p, 4);
        if (p[0] == 0x20 && p[1] == 0x01 && p[2] == 0x04 && p[3] == 0x70) {
            out[5] = p[4] | 0x0f; /* he.net hands out /36s */
            return 6;
        }
        return 5;
    }
}

/* Core's CService::GetKey: the address as Core's GetAddrBytes gives it (IPv4 in its 16-byte
 * IPv6-mapped form, the other networks raw), then the port big-endian. */
static size_t core_key(const struct net_addr *a, uint8_t out[34])
{
    size_t len = a->len <= 32 ? a->len : 32;
    size_t n = 0;
    if (a->net == BIP155_IPV4) {
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        memcpy(out, mapped, 12);
        n = 12;
    }
    memcpy(out + n, a->addr, len);
    n += len;
    out[n++] = (uint8_t)(a->port >> 8);
    out[n++] = (uint8_t)(a->port & 0xff);
    return n;
}

/* Core's HashWriter: the bucket key, then what follows, double SHA-256; GetCheapHash is the
 * first 8 bytes read little-endian. The message m starts with 32 bytes left for the key. */
static uint64_t cheap_hash(const struct addrman *am, uint8_t *m, size_t n)
{
    uint8_t h[32];
    memcpy(m, am->key, 32);
    hash_sha256d(h, m, n);
    return rd_u64le(h);
}

/* A std::vector<unsigned char> as Core serializes it (a one-byte CompactSize: len < 253). */
static void put_vec(uint8_t *m, size_t *n, const uint8_t *v, size_t len)
{
    m[(*n)++] = (uint8_t)len;
    memcpy(m + *n, v, len);
    *n += len;
}

/* Core's GetTriedBucket: the address picks one of 8 buckets of its group. */
int addrman_tried_bucket(const struct addrman *am, const struct net_addr *a)
{
    uint8_t m[96], k[34], g[ADDRMAN_NETGROUP_MAX];
    size_t n = 32;
    put_vec(m, &n, k, core_key(a, k));
    uint64_t h1 = cheap_hash(am, m, n);
    n = 32;
    put_vec(m, &n, g, addrman_netgroup(a, g));
    wr_u64le(m + n, h1 % ADDRMAN_TRIED_BUCKETS_PER_GROUP);
    n += 8;
    return (int)(cheap_hash(am, m, n) % ADDRMAN_TRIED_BUCKET_COUNT);
}

/* Core's GetNewBucket: the (group, source group) pair picks one of 64 buckets of the
 * source group. */
static int new_bucket(const struct addrman *am, const struct net_addr *a,
                      const struct net_addr *src)
{
    uint8_t m[96], g[ADDRMAN_NETGROUP_MAX], sg[ADDRMAN_NETGROUP_MAX];
    size_t gl = addrman_netgroup(a, g), sgl = addrman_netgroup(src, sg);
    size_t n = 32;
    put_vec(m, &n, g, gl);
    put_vec(m, &n, sg, sgl);
    uint64_t h1 = cheap_hash(am, m, n);
    n = 32;
    put_vec(m, &n, sg, sgl);
    wr_u64le(m + n, h1 % ADDRMAN_NEW_BUCKETS_PER_SOURCE_GROUP);
    n += 8;
    return (int)(cheap_hash(am, m, n) % ADDRMAN_NEW_BUCKET_COUNT);
}

int addrman_new_bucket(const struct addrman *am, const struct net_addr *a,
                       const struct net_addr *src)
{
    return new_bucket(am, a, src);
}

/* Core's GetBucketPosition: the slot of a in bucket of the new (is_new) or tried table. */
int addrman_bucket_position(const struct addrman *am, int is_new, int bucket,
                            const struct net_addr *a)
{
    uint8_t m[96], k[34];
    size_t n = 32;
    m[n++] = is_new ? 'N' : 'K';
    wr_u32le(m + n, (uint32_t)bucket);
    n += 4;
    put_vec(m, &n, k, core_key(a, k));
    return (int)(cheap_hash(am, m, n) % ADDRMAN_BUCKET_SIZE);
}

static uint64_t map_hash(const struct addrman *am, const struct net_addr *a)
{
    uint8_t m[40];
    m[0] = 'M';
    size_t n = 1 + addr_key(a, m + 1);
    return siphash24(am->kp[0], am->kp[1], m, n);
}

/* ---- the lookup map ---- */

int32_t addrman_find_id(const struct addrman *am, const struct net_addr *a)
{
    if (!well_formed(a)) {
        return NO_ID;
    }
    size_t mask = am->map_cap - 1;
    for (size_t i = map_hash(am, a) & mask; am->map[i] != NO_ID; i = (i + 1) & mask) {
        if (addr_equal(&am->entries[am->map[i]].addr, a)) {
            return am->map[i];
        }
    }
    return NO_ID;
}

static void map_place(struct addrman *am, int32_t id)
{
    size_t mask = am->map_cap - 1;
    size_t i = map_hash(am, &am->entries[id].addr) & mask;
    while (am->map[i] != NO_ID) {
        i = (i + 1) & mask;
    }
    am->map[i] = id;
}

static void map_insert(struct addrman *am, int32_t id)
{
    if ((am->map_used + 1) * 2 > am->map_cap) {
        int32_t *old = am->map;
        size_t old_cap = am->map_cap;
        am->map_cap *= 2;
        am->map = xmalloc(am->map_cap * sizeof(*am->map));
        for (size_t i = 0; i < am->map_cap; i++) {
            am->map[i] = NO_ID;
        }
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i] != NO_ID) {
                map_place(am, old[i]);
            }
        }
        free(old);
    }
    map_place(am, id);
    am->map_used++;
}

/* Removes id, shifting later members of its probe run back (no tombstones). */
static void map_remove(struct addrman *am, int32_t id)
{
    size_t mask = am->map_cap - 1;
    size_t i = map_hash(am, &am->entries[id].addr) & mask;
    while (am->map[i] != id) {
        CHECK_ALWAYS(am->map[i] != NO_ID);
        i = (i + 1) & mask;
    }
    for (;;) {
        am->map[i] = NO_ID;
        size_t j = i;
        for (;;) {
            j = (j + 1) & mask;
            if (am->map[j] == NO_ID) {
                am->map_used--;
                return;
            }
            size_t k = map_hash(am, &am->entries[am->map[j]].addr) & mask;
            /* The member at j may fill the hole at i unless its home k lies in (i, j]. */
            int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays) {
                break;
            }
        }
        am->map[i] = am->map[j];
        i = j;
    }
}

/* ---- entries ---- */

static void swap_random(struct addrman *am, size_t a, size_t b)
{
    if (a == b) {
        return;
    }
    int32_t ia = am->random[a], ib = am->random[b];
    am->entries[ia].random_pos = (int32_t)b;
    am->entries[ib].random_pos = (int32_t)a;
    am->random[a] = ib;
    am->random[b] = ia;
}

/* A new entry in neither table yet, counted as new (Core's Create). May move entries[]. */
static int32_t entry_create(struct addrman *am, const struct net_addr *addr,
                            const struct net_addr *source)
{
    int32_t id;
    if (am->n_free > 0) {
        id = am->free_ids[--am->n_free];
    } else {
        if (am->entries_len == am->entries_cap) {
            am->entries_cap = am->entries_cap ? am->entries_cap * 2 : 256;
            am->entries = xrealloc(am->entries, am->entries_cap * sizeof(*am->entries));
        }
        id = (int32_t)am->entries_len++;
    }
    struct addrman_entry *e = &am->entries[id];
    memset(e, 0, sizeof(*e));
    addr_copy(&e->addr, addr);
    if (source && addrman_source_well_formed(source)) {
        addr_copy(&e->source, source);
    }
    e->network = (uint8_t)net_addr_network(&e->addr);
    if (am->n_random == am->random_cap) {
        am->random_cap = am->random_cap ? am->random_cap * 2 : 256;
        am->random = xrealloc(am->random, am->random_cap * sizeof(*am->random));
    }
    e->random_pos = (int32_t)am->n_random;
    am->random[am->n_random++] = id;
    map_insert(am, id);
    am->n_new++;
    am->count_new[e->network]++;
    return id;
}

/* Forgets an entry that is in no table (Core's Delete). */
static void entry_delete(struct addrman *am, int32_t id)
{
    struct addrman_entry *e = &am->entries[id];
    CHECK_ALWAYS(!e->in_tried && e->ref_count == 0 && e->random_pos >= 0);
    swap_random(am, (size_t)e->random_pos, am->n_random - 1);
    am->n_random--;
    map_remove(am, id);
    am->n_new--;
    am->count_new[e->network]--;
    e->random_pos = -1;
    if (am->n_free == am->free_cap) {
        am->free_cap = am->free_cap ? am->free_cap * 2 : 256;
        am->free_ids = xrealloc(am->free_ids, am->free_cap * sizeof(*am->free_ids));
    }
    am->free_ids[am->n_free++] = id;
}

static void new_ref_add(struct addrman *am, int32_t id, int bucket, int pos)
{
    struct addrman_entry *e = &am->entries[id];
    CHECK_ALWAYS(am->new_table[bucket][pos] == NO_ID);
    CHECK_ALWAYS(e->ref_count < ADDRMAN_NEW_BUCKETS_PER_ADDRESS && !e->in_tried);
    am->new_table[bucket][pos] = id;
    int i = e->ref_count++;
    while (i > 0 && e->new_buckets[i - 1] > bucket) {
        e->new_buckets[i] = e->new_buckets[i - 1];
        i--;
    }
    e->new_buckets[i] = (uint16_t)bucket;
}

static void new_ref_remove(struct addrman *am, int32_t id, int bucket, int pos)
{
    struct addrman_entry *e = &am->entries[id];
    CHECK_ALWAYS(am->new_table[bucket][pos] == id);
    am->new_table[bucket][pos] = NO_ID;
    int i = 0;
    while (i < e->ref_count && e->new_buckets[i] != bucket) {
        i++;
    }
    CHECK_ALWAYS(i < e->ref_count);
    for (; i + 1 < e->ref_count; i++) {
        e->new_buckets[i] = e->new_buckets[i + 1];
    }
    e->ref_count--;
}

/* Empties a new slot; an entry losing its last reference is forgotten (Core's ClearNew). */
static void clear_new(struct addrman *am, int bucket, int pos)
{
    int32_t id = am->new_table[bucket][pos];
    if (id == NO_ID) {
        return;
    }
    new_ref_remove(am, id, bucket, pos);
    if (am->entries[id].ref_count == 0) {
        entry_delete(am, id);
    }
}

static int entry_terrible(const struct addrman_entry *e, int64_t now)
{
    if (now - e->last_try <= 60) {
        return 0; /* never drop what was tried in the last minute */
    }
    if (e->time > now + 600) {
        return 1; /* from the future */
    }
    if (now - e->time > ADDRMAN_HORIZON_S) {
        return 1; /* not seen for a month */
    }
    if (e->last_success == 0 && e->attempts >= ADDRMAN_RETRIES) {
        return 1; /* never worked */
    }
    if (now - e->last_success > ADDRMAN_MIN_FAIL_S && e->attempts >= ADDRMAN_MAX_FAILURES) {
        return 1; /* stopped working a week ago */
    }
    return 0;
}

static double entry_chance(const struct addrman_entry *e, int64_t now)
{
    double c = 1.0;
    if (now - e->last_try < 600) {
        c *= 0.01; /* give a recent attempt time before retrying */
    }
    for (int i = 0; i < e->attempts && i < 8; i++) {
        c *= 0.66; /* at most 1/28: an outage of ours must not bury everyone */
    }
    return c;
}

/* Moves a new entry to its tried slot; an occupant goes back to new (Core's MakeTried). */
static void make_tried(struct addrman *am, int32_t id)
{
    struct addrman_entry *e = &am->entries[id];
    while (e->ref_count > 0) {
        int b = e->new_buckets[e->ref_count - 1];
        new_ref_remove(am, id, b, addrman_bucket_position(am, 1, b, &e->addr));
    }
    am->n_new--;
    am->count_new[e->network]--;

    int tb = addrman_tried_bucket(am, &e->addr);
    int tp = addrman_bucket_position(am, 0, tb, &e->addr);
    int32_t old = am->tried_table[tb][tp];
    if (old != NO_ID) {
        struct addrman_entry *o = &am->entries[old];
        o->in_tried = 0;
        am->tried_table[tb][tp] = NO_ID;
        am->n_tried--;
        am->count_tried[o->network]--;
        int ub = new_bucket(am, &o->addr, &o->source);
        int up = addrman_bucket_position(am, 1, ub, &o->addr);
        /* This may forget a third entry, never id or old: neither is in a new slot now. */
        clear_new(am, ub, up);
        new_ref_add(am, old, ub, up);
        am->n_new++;
        am->count_new[o->network]++;
    }
    am->tried_table[tb][tp] = id;
    am->n_tried++;
    am->count_tried[e->network]++;
    e->in_tried = 1;
}

/* ---- lifecycle ---- */

static void set_key(struct addrman *am, const uint8_t key[32])
{
    memcpy(am->key, key, 32);
    am->kp[0] = rd_u64le(key + 16);
    am->kp[1] = rd_u64le(key + 24);
}

/* An empty state with key and no PRNG seeded. */
struct addrman *addrman_state_new(const uint8_t key[32])
{
    struct addrman *am = xcalloc(1, sizeof(*am));
    set_key(am, key);
    for (int b = 0; b < ADDRMAN_NEW_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            am->new_table[b][i] = NO_ID;
        }
    }
    for (int b = 0; b < ADDRMAN_TRIED_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            am->tried_table[b][i] = NO_ID;
        }
    }
    am->map_cap = MAP_INITIAL_CAP;
    am->map = xmalloc(am->map_cap * sizeof(*am->map));
    for (size_t i = 0; i < am->map_cap; i++) {
        am->map[i] = NO_ID;
    }
    am->last_good = 1;
    return am;
}

void addrman_state_free_contents(struct addrman *am)
{
    free(am->entries);
    free(am->free_ids);
    free(am->random);
    free(am->map);
}

void addrman_state_adopt(struct addrman *am, struct addrman *st)
{
    struct addrman_rng keep = am->rng;
    addrman_state_free_contents(am);
    memcpy(am, st, sizeof(*am));
    am->rng = keep;
    free(st);
}

struct addrman *addrman_new(uint64_t seed)
{
    uint8_t key[32] = {0};
    if (seed == 0) {
        random_bytes(key, sizeof(key));
    } else {
        key[0] = 1; /* Core's deterministic nKey, uint256{1} */
    }
    struct addrman *am = addrman_state_new(key);
    rng_seed(&am->rng, seed);
    return am;
}

void addrman_free(struct addrman *am)
{
    if (!am) {
        return;
    }
    addrman_state_free_contents(am);
    memset(am->key, 0, sizeof(am->key));
    free(am);
}

void addrman_set_seed(struct addrman *am, uint64_t seed)
{
    rng_seed(&am->rng, seed);
}

void addrman_get_key(const struct addrman *am, uint8_t key32[32])
{
    memcpy(key32, am->key, 32);
}

/* ---- operations ---- */

static int64_t clamp_time(int64_t t)
{
    return t < 0 ? 0 : t > ADDRMAN_TIME_MAX ? ADDRMAN_TIME_MAX : t;
}

/* Core's AddSingle. Returns 1 if the address got a new entry or reference. */
static int add_one(struct addrman *am, const struct addrman_addr *a, const struct net_addr *src,
                   int64_t penalty, int64_t now)
{
    if (!addrman_addr_acceptable(&a->addr)) {
        return 0;
    }
    int64_t atime = clamp_time(a->time);
    if (src->len && net_addr_same_ip(&a->addr, src)) {
        penalty = 0; /* a peer announcing itself */
    }
    int32_t id = addrman_find_id(am, &a->addr);
    if (id != NO_ID) {
        struct addrman_entry *e = &am->entries[id];
        int64_t interval = now - atime < 24 * 3600 ? 3600 : 24 * 3600;
        if (e->time < atime - interval - penalty) {
            e->time = clamp_time(atime - penalty);
        }
        e->services |= a->services;
        if (atime <= e->time || e->in_tried || e->ref_count == ADDRMAN_NEW_BUCKETS_PER_ADDRESS) {
            return 0;
        }
        /* Each further reference is twice as hard to get as the one before. */
        if (e->ref_count > 0 && rng_range(&am->rng, 1u << e->ref_count) != 0) {
            return 0;
        }
    } else {
        id = entry_create(am, &a->addr, src);
        am->entries[id].time = clamp_time(atime - penalty);
        am->entries[id].services = a->services;
    }
    struct addrman_entry *e = &am->entries[id];
    int b = new_bucket(am, &e->addr, src);
    int pos = addrman_bucket_position(am, 1, b, &e->addr);
    int32_t cur = am->new_table[b][pos];
    if (cur == id) {
        return 0;
    }
    int insert = cur == NO_ID;
    if (!insert) {
        const struct addrman_entry *x = &am->entries[cur];
        /* The occupant yields if it is terrible, or if it has other references and the
         * newcomer has none. */
        insert = entry_terrible(x, now) || (x->ref_count > 1 && e->ref_count == 0);
    }
    if (insert) {
        clear_new(am, b, pos);
        new_ref_add(am, id, b, pos);
        if (log_enabled(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG)) {
            char s[NET_ADDR_STR_LEN];
            net_addr_format(&e->addr, 1, s);
            LOG(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG, "Added %s to new[%d][%d]", s, b, pos);
        }
    } else if (e->ref_count == 0) {
        entry_delete(am, id);
    }
    return insert;
}

int addrman_add(struct addrman *am, size_t *n_added, const struct addrman_addr *addrs, size_t n,
                const struct net_addr *source, int64_t time_penalty_s, int64_t now)
{
    if (n_added) {
        *n_added = 0;
    }
    if ((!addrs && n > 0) || time_penalty_s < 0) {
        return RC_USAGE;
    }
    struct net_addr src;
    memset(&src, 0, sizeof(src));
    if (source && addrman_source_well_formed(source)) {
        addr_copy(&src, source);
    }
    int64_t penalty = time_penalty_s > ADDRMAN_TIME_MAX ? ADDRMAN_TIME_MAX : time_penalty_s;
    size_t added = 0;
    for (size_t i = 0; i < n; i++) {
        added += (size_t)add_one(am, &addrs[i], &src, penalty, now);
    }
    if (added > 0 && log_enabled(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG)) {
        char s[NET_ADDR_STR_LEN] = "[unknown]";
        if (src.len) {
            net_addr_format(&src, 0, s);
        }
        LOG(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG, "Added %zu addresses (of %zu) from %s: %zu tried, %zu new",
            added, n, s, am->n_tried, am->n_new);
    }
    if (n_added) {
        *n_added = added;
    }
    return RC_OK;
}

static int good(struct addrman *am, int *result, const struct net_addr *addr, int64_t now,
                int keep_any_occupant)
{
    if (now <= 0) {
        return RC_USAGE; /* a tried entry's last success must be after "never" (0) */
    }
    am->last_good = now;
    int32_t id = addrman_find_id(am, addr);
    if (id == NO_ID) {
        return RC_NOT_FOUND;
    }
    struct addrman_entry *e = &am->entries[id];
    e->last_success = now;
    e->last_try = now;
    e->attempts = 0;
    /* time stays: updating it would tell peers whom we are connected to. */
    if (e->in_tried) {
        if (result) {
            *result = ADDRMAN_GOOD_ALREADY_TRIED;
        }
        return RC_OK;
    }
    CHECK_ALWAYS(e->ref_count > 0);
    int tb = addrman_tried_bucket(am, &e->addr), tpos = addrman_bucket_position(am, 0, tb, &e->addr);
    int32_t occupant = am->tried_table[tb][tpos];
    char s[NET_ADDR_STR_LEN], o[NET_ADDR_STR_LEN];
    if (occupant != NO_ID &&
        (keep_any_occupant || now - am->entries[occupant].last_success < ADDRMAN_REPLACEMENT_S)) {
        if (log_enabled(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG)) {
            net_addr_format(&am->entries[occupant].addr, 1, o);
            net_addr_format(&e->addr, 1, s);
            LOG(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG,
                "Collision with %s while attempting to move %s to tried table", o, s);
        }
        if (result) {
            *result = ADDRMAN_GOOD_KEPT_NEW;
        }
        return RC_OK;
    }
    make_tried(am, id);
    if (log_enabled(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG)) {
        net_addr_format(&e->addr, 1, s);
        LOG(LOG_CAT_ADDRMAN, LOG_LVL_DEBUG, "Moved %s to tried[%d][%d]", s, tb, tpos);
    }
    if (result) {
        *result = ADDRMAN_GOOD_MOVED;
    }
    return RC_OK;
}

int addrman_good(struct addrman *am, int *result, const struct net_addr *addr, int64_t now)
{
    return good(am, result, addr, now, 0);
}

int addrman_good_keep_occupant(struct addrman *am, int *result, const struct net_addr *addr,
                               int64_t now)
{
    return good(am, result, addr, now, 1);
}

int addrman_attempt(struct addrman *am, const struct net_addr *addr, int count_failure, int64_t now)
{
    int32_t id = addrman_find_id(am, addr);
    if (id == NO_ID) {
        return RC_NOT_FOUND;
    }
    struct addrman_entry *e = &am->entries[id];
    e->last_try = now;
    if (count_failure && e->last_count_attempt < am->last_good) {
        e->last_count_attempt = now;
        if (e->attempts < INT32_MAX) {
            e->attempts++;
        }
    }
    return RC_OK;
}

int addrman_connected(struct addrman *am, const struct net_addr *addr, int64_t now)
{
    int32_t id = addrman_find_id(am, addr);
    if (id == NO_ID) {
        return RC_NOT_FOUND;
    }
    struct addrman_entry *e = &am->entries[id];
    if (now - e->time > ADDRMAN_CONNECTED_UPDATE_S) {
        e->time = clamp_time(now);
    }
    return RC_OK;
}

int addrman_set_services(struct addrman *am, const struct net_addr *addr, uint64_t services)
{
    int32_t id = addrman_find_id(am, addr);
    if (id == NO_ID) {
        return RC_NOT_FOUND;
    }
    am->entries[id].services = services;
    return RC_OK;
}

static int in_mask(const struct addrman_entry *e, uint32_t networks)
{
    return networks == 0 || (e->network < 32 && (networks >> e->network) & 1);
}

static int32_t table_slot(const struct addrman *am, int tried, int bucket, int pos)
{
    return tried ? am->tried_table[bucket][pos] : am->new_table[bucket][pos];
}

static int candidate(const struct addrman *am, int32_t id, uint32_t networks, int64_t now)
{
    return id != NO_ID && in_mask(&am->entries[id], networks) &&
           !entry_terrible(&am->entries[id], now);
}

/* The whole table, each candidate weighted by its chance: the fallback of select_from. */
static int32_t select_scan(struct addrman *am, int tried, uint32_t networks, int64_t now)
{
    int nb = tried ? ADDRMAN_TRIED_BUCKET_COUNT : ADDRMAN_NEW_BUCKET_COUNT;
    double total = 0;
    for (int b = 0; b < nb; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            int32_t id = table_slot(am, tried, b, i);
            if (candidate(am, id, networks, now)) {
                total += entry_chance(&am->entries[id], now);
            }
        }
    }
    if (total == 0) {
        return NO_ID;
    }
    double target = rng_unit(&am->rng) * total, acc = 0;
    int32_t last = NO_ID;
    for (int b = 0; b < nb; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            int32_t id = table_slot(am, tried, b, i);
            if (candidate(am, id, networks, now)) {
                acc += entry_chance(&am->entries[id], now);
                last = id;
                if (acc > target) {
                    return id;
                }
            }
        }
    }
    return last; /* rounding left the target at the very end */
}

/* Core's Select_ loop over one table: random bucket, random starting slot, the first
 * candidate from there accepted with chance * factor, the factor growing on refusals. */
static int32_t select_from(struct addrman *am, int tried, uint32_t networks, int64_t now)
{
    int nb = tried ? ADDRMAN_TRIED_BUCKET_COUNT : ADDRMAN_NEW_BUCKET_COUNT;
    double factor = 1.0;
    for (int misses = 0; misses < 4 * nb;) {
        int b = (int)rng_range(&am->rng, (uint64_t)nb);
        int start = (int)rng_range(&am->rng, ADDRMAN_BUCKET_SIZE);
        int32_t id = NO_ID;
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE && id == NO_ID; i++) {
            int32_t c = table_slot(am, tried, b, (start + i) % ADDRMAN_BUCKET_SIZE);
            if (candidate(am, c, networks, now)) {
                id = c;
            }
        }
        if (id == NO_ID) {
            misses++;
            continue;
        }
        uint64_t bits30 = rng_next(&am->rng) >> 34;
        if ((double)bits30 < factor * entry_chance(&am->entries[id], now) * (double)(1 << 30)) {
            return id;
        }
        factor *= 1.2;
    }
    return select_scan(am, tried, networks, now);
}

static void entry_to_addr(const struct addrman_entry *e, struct addrman_addr *out)
{
    out->addr = e->addr;
    out->services = e->services;
    out->time = e->time;
}

int addrman_select(struct addrman *am, struct addrman_addr *out, int64_t *last_try, int new_only,
                   uint32_t networks, int64_t now)
{
    size_t nc = 0, tc = 0;
    for (int net = 0; net < NETWORK_COUNT; net++) {
        if (networks == 0 || (networks >> net) & 1) {
            nc += am->count_new[net];
            tc += am->count_tried[net];
        }
    }
    if (nc + tc == 0 || (new_only && nc == 0)) {
        return RC_NOT_FOUND;
    }
    int tried;
    if (new_only || tc == 0) {
        tried = 0;
    } else if (nc == 0) {
        tried = 1;
    } else {
        tried = (int)(rng_next(&am->rng) >> 63);
    }
    int32_t id = select_from(am, tried, networks, now);
    if (id == NO_ID && !new_only && (tried ? nc : tc) > 0) {
        id = select_scan(am, !tried, networks, now);
    }
    if (id == NO_ID) {
        return RC_NOT_FOUND;
    }
    entry_to_addr(&am->entries[id], out);
    if (last_try) {
        *last_try = am->entries[id].last_try;
    }
    return RC_OK;
}

int addrman_get_addr(struct addrman *am, struct addrman_addr **out, size_t *n_out, size_t max_count,
                     size_t max_pct, int network, int64_t now)
{
    size_t want = am->n_random;
    if (max_pct != 0) {
        want = (max_pct > 100 ? 100 : max_pct) * want / 100;
    }
    if (max_count != 0 && want > max_count) {
        want = max_count;
    }
    *out = NULL;
    *n_out = 0;
    if (want == 0) {
        return RC_OK;
    }
    struct addrman_addr *res = xmalloc(want * sizeof(*res));
    size_t k = 0;
    /* A partial Fisher-Yates shuffle of random[], as Core's GetAddr. */
    for (size_t n = 0; n < am->n_random && k < want; n++) {
        swap_random(am, n, n + (size_t)rng_range(&am->rng, am->n_random - n));
        const struct addrman_entry *e = &am->entries[am->random[n]];
        if ((network >= 0 && e->network != network) || entry_terrible(e, now)) {
            continue;
        }
        entry_to_addr(e, &res[k++]);
    }
    if (k == 0) {
        free(res);
        return RC_OK;
    }
    *out = res;
    *n_out = k;
    return RC_OK;
}

size_t addrman_size(const struct addrman *am, int network, int in_new)
{
    if (network < 0) {
        return in_new < 0 ? am->n_new + am->n_tried : in_new ? am->n_new : am->n_tried;
    }
    if (network >= NETWORK_COUNT) {
        return 0;
    }
    size_t n = am->count_new[network], t = am->count_tried[network];
    return in_new < 0 ? n + t : in_new ? n : t;
}

/* An entry as the public struct: its tried slot, or the lowest of its new slots. */
static void info_from_entry(const struct addrman *am, int32_t id, struct addrman_info *out)
{
    const struct addrman_entry *e = &am->entries[id];
    memset(out, 0, sizeof(*out));
    out->addr = e->addr;
    out->source = e->source;
    out->services = e->services;
    out->time = e->time;
    out->last_try = e->last_try;
    out->last_success = e->last_success;
    out->attempts = e->attempts;
    out->in_tried = e->in_tried;
    if (e->in_tried) {
        out->ref_count = 1;
        out->bucket = addrman_tried_bucket(am, &e->addr);
        out->position = addrman_bucket_position(am, 0, out->bucket, &e->addr);
    } else {
        out->ref_count = e->ref_count;
        out->bucket = e->new_buckets[0];
        out->position = addrman_bucket_position(am, 1, out->bucket, &e->addr);
    }
}

int addrman_find(const struct addrman *am, struct addrman_info *out, const struct net_addr *addr)
{
    int32_t id = addrman_find_id(am, addr);
    if (id == NO_ID) {
        return RC_NOT_FOUND;
    }
    info_from_entry(am, id, out);
    return RC_OK;
}

int addrman_get_entries(const struct addrman *am, struct addrman_info **out, size_t *n_out,
                        int tried)
{
    int buckets = tried ? ADDRMAN_TRIED_BUCKET_COUNT : ADDRMAN_NEW_BUCKET_COUNT;
    size_t cap = 0, k = 0;
    for (int b = 0; b < buckets; b++) { /* a new entry fills one slot per reference */
        for (int pos = 0; pos < ADDRMAN_BUCKET_SIZE; pos++) {
            cap += (tried ? am->tried_table[b][pos] : am->new_table[b][pos]) != NO_ID;
        }
    }
    struct addrman_info *v = cap ? xmalloc(cap * sizeof(*v)) : NULL;
    for (int b = 0; b < buckets; b++) {
        for (int pos = 0; pos < ADDRMAN_BUCKET_SIZE; pos++) {
            int32_t id = tried ? am->tried_table[b][pos] : am->new_table[b][pos];
            if (id == NO_ID) {
                continue;
            }
            CHECK_ALWAYS(k < cap);
            info_from_entry(am, id, &v[k]);
            v[k].bucket = b;
            v[k].position = pos;
            k++;
        }
    }
    *out = v;
    *n_out = k;
    return RC_OK;
}

int addrman_is_terrible(const struct addrman_info *info, int64_t now)
{
    struct addrman_entry e;
    memset(&e, 0, sizeof(e));
    e.time = info->time;
    e.last_try = info->last_try;
    e.last_success = info->last_success;
    e.attempts = info->attempts;
    return entry_terrible(&e, now);
}

/* ---- consistency ---- */

int addrman_corrupt(char *err, size_t err_len, const char *fmt, ...)
{
    if (err && err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return RC_CORRUPT;
}

int addrman_check(const struct addrman *am, char *err, size_t err_len)
{
    size_t n_new = 0, n_tried = 0, n_free = 0, refs = 0;
    size_t cnew[NETWORK_COUNT] = {0}, ctried[NETWORK_COUNT] = {0};
    static const uint8_t zero[32];
    if (memcmp(am->key, zero, 32) == 0) {
        return addrman_corrupt(err, err_len, "bucket key is zero");
    }
    if (am->n_random != am->n_new + am->n_tried || am->map_used != am->n_random) {
        return addrman_corrupt(err, err_len, "%zu in random order, %zu in map, %zu new + %zu tried",
                               am->n_random, am->map_used, am->n_new, am->n_tried);
    }
    for (size_t id = 0; id < am->entries_len; id++) {
        const struct addrman_entry *e = &am->entries[id];
        if (e->random_pos < 0) {
            n_free++;
            continue;
        }
        if ((size_t)e->random_pos >= am->n_random || am->random[e->random_pos] != (int32_t)id) {
            return addrman_corrupt(err, err_len, "entry %zu: random position %d wrong", id,
                                   (int)e->random_pos);
        }
        if (addrman_find_id(am, &e->addr) != (int32_t)id) {
            return addrman_corrupt(err, err_len, "entry %zu: not found by its address", id);
        }
        if (!addrman_addr_acceptable(&e->addr) || !addrman_source_well_formed(&e->source) ||
            e->network != net_addr_network(&e->addr) || e->network >= NETWORK_COUNT) {
            return addrman_corrupt(err, err_len, "entry %zu: address or source not acceptable", id);
        }
        if (e->last_try < 0 || e->last_success < 0 || e->time < 0 || e->attempts < 0) {
            return addrman_corrupt(err, err_len, "entry %zu: negative time or attempts", id);
        }
        if (e->in_tried) {
            if (e->ref_count != 0 || e->last_success == 0) {
                return addrman_corrupt(err, err_len,
                                       "entry %zu: tried with %d new refs, success %lld", id,
                                       e->ref_count, (long long)e->last_success);
            }
            int tb = addrman_tried_bucket(am, &e->addr);
            if (am->tried_table[tb][addrman_bucket_position(am, 0, tb, &e->addr)] != (int32_t)id) {
                return addrman_corrupt(err, err_len, "entry %zu: not in its tried slot", id);
            }
            n_tried++;
            ctried[e->network]++;
        } else {
            if (e->ref_count < 1 || e->ref_count > ADDRMAN_NEW_BUCKETS_PER_ADDRESS) {
                return addrman_corrupt(err, err_len, "entry %zu: %d new refs", id, e->ref_count);
            }
            for (int i = 0; i < e->ref_count; i++) {
                int b = e->new_buckets[i];
                if (b >= ADDRMAN_NEW_BUCKET_COUNT || (i > 0 && e->new_buckets[i - 1] >= b) ||
                    am->new_table[b][addrman_bucket_position(am, 1, b, &e->addr)] != (int32_t)id) {
                    return addrman_corrupt(err, err_len, "entry %zu: new ref %d (bucket %d) wrong",
                                           id, i, b);
                }
            }
            refs += e->ref_count;
            n_new++;
            cnew[e->network]++;
        }
    }
    if (n_free != am->n_free || n_new != am->n_new || n_tried != am->n_tried) {
        return addrman_corrupt(err, err_len,
                               "counts: %zu free (%zu), %zu new (%zu), %zu tried (%zu)", n_free,
                               am->n_free, n_new, am->n_new, n_tried, am->n_tried);
    }
    for (int net = 0; net < NETWORK_COUNT; net++) {
        if (cnew[net] != am->count_new[net] || ctried[net] != am->count_tried[net]) {
            return addrman_corrupt(err, err_len, "network %s: counts disagree",
                                   net_network_name(net));
        }
    }
    size_t slots_new = 0, slots_tried = 0;
    for (int b = 0; b < ADDRMAN_NEW_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            int32_t id = am->new_table[b][i];
            if (id == NO_ID) {
                continue;
            }
            if (id < 0 || (size_t)id >= am->entries_len || am->entries[id].random_pos < 0 ||
                am->entries[id].in_tried) {
                return addrman_corrupt(err, err_len, "new[%d][%d]: bad id %d", b, i, (int)id);
            }
            slots_new++;
        }
    }
    for (int b = 0; b < ADDRMAN_TRIED_BUCKET_COUNT; b++) {
        for (int i = 0; i < ADDRMAN_BUCKET_SIZE; i++) {
            int32_t id = am->tried_table[b][i];
            if (id == NO_ID) {
                continue;
            }
            if (id < 0 || (size_t)id >= am->entries_len || am->entries[id].random_pos < 0 ||
                !am->entries[id].in_tried) {
                return addrman_corrupt(err, err_len, "tried[%d][%d]: bad id %d", b, i, (int)id);
            }
            slots_tried++;
        }
    }
    /* Every reference was found in its slot above; equal totals leave no stray slot. */
    if (slots_new != refs || slots_tried != n_tried) {
        return addrman_corrupt(err, err_len, "slots: %zu new for %zu refs, %zu tried for %zu",
                               slots_new, refs, slots_tried, n_tried);
    }
    return RC_OK;
}

void addrman_insert_checked(struct addrman *am, const struct addrman_entry *fields,
                            const uint16_t *buckets, int n_buckets)
{
    CHECK_ALWAYS(addrman_addr_acceptable(&fields->addr) &&
                 addrman_find_id(am, &fields->addr) == NO_ID);
    int32_t id = entry_create(am, &fields->addr, &fields->source);
    struct addrman_entry *e = &am->entries[id];
    e->services = fields->services;
    e->time = fields->time;
    e->last_try = fields->last_try;
    e->last_success = fields->last_success;
    e->attempts = fields->attempts;
    if (fields->in_tried) {
        CHECK_ALWAYS(n_buckets == 1 && buckets[0] == addrman_tried_bucket(am, &e->addr));
        int tp = addrman_bucket_position(am, 0, buckets[0], &e->addr);
        CHECK_ALWAYS(am->tried_table[buckets[0]][tp] == NO_ID);
        am->tried_table[buckets[0]][tp] = id;
        e->in_tried = 1;
        am->n_new--;
        am->count_new[e->network]--;
        am->n_tried++;
        am->count_tried[e->network]++;
    } else {
        for (int i = 0; i < n_buckets; i++) {
            CHECK_ALWAYS(buckets[i] < ADDRMAN_NEW_BUCKET_COUNT);
            new_ref_add(am, id, buckets[i], addrman_bucket_position(am, 1, buckets[i], &e->addr));
        }
    }
}
