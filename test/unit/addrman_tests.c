/* net/addrman: groups, bucket placement, add / good / attempt / select / getaddr, terrible
 * entries, tried collisions, peers.dat round trips and refusals, a fuzz-style loader run
 * over damaged files, and 10000 random operations checked against every invariant. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "net/addrman.h"
#include "net/addrman_impl.h"
#include "net/anchors.h"
#include "net/netaddr.h"
#include "test.h"
#include "util/buf.h"
#include "util/check.h"
#include "util/rc.h"

#define NOW ((int64_t)1700000000)
#define HOUR 3600
#define DAY (24 * 3600)

static const uint8_t magic[4] = {0xfa, 0xbf, 0xb5, 0xda}; /* regtest */
static char tmpdir[64];

static uint64_t test_rng_state = 42;
static uint64_t trand(void)
{
    uint64_t z = (test_rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static struct net_addr ip4(int a, int b, int c, int d, uint16_t port)
{
    struct net_addr n;
    memset(&n, 0, sizeof(n));
    n.net = BIP155_IPV4;
    n.len = 4;
    n.addr[0] = (uint8_t)a;
    n.addr[1] = (uint8_t)b;
    n.addr[2] = (uint8_t)c;
    n.addr[3] = (uint8_t)d;
    n.port = port;
    return n;
}

static struct net_addr parse(const char *s)
{
    struct net_addr n;
    char err[64];
    CHECK_EQ_INT(net_addr_parse(s, 8333, 0, &n, err, sizeof(err)), RC_OK);
    return n;
}

static struct net_addr keyed_addr(uint8_t net, uint8_t first, uint8_t fill)
{
    struct net_addr n;
    memset(&n, 0, sizeof(n));
    n.net = net;
    n.len = net == BIP155_CJDNS ? 16 : 32;
    memset(n.addr, fill, n.len);
    n.addr[0] = first;
    n.port = 8333;
    return n;
}

static struct addrman_addr gossip(struct net_addr a, int64_t time)
{
    struct addrman_addr g;
    g.addr = a;
    g.services = 1 | 8;
    g.time = time;
    return g;
}

/* Adds one address; returns how many were added (0 or 1). */
static size_t add1(struct addrman *am, struct net_addr a, struct net_addr src, int64_t time)
{
    struct addrman_addr g = gossip(a, time);
    size_t n = 99;
    CHECK_EQ_INT(addrman_add(am, &n, &g, 1, &src, 0, NOW), RC_OK);
    return n;
}

static int consistent(const struct addrman *am)
{
    char err[200] = "";
    int rc = addrman_check(am, err, sizeof(err));
    if (rc != RC_OK) {
        printf("# addrman_check: %s\n", err);
    }
    return rc == RC_OK;
}

static void test_netgroup(void)
{
    uint8_t g[ADDRMAN_NETGROUP_MAX];
    struct net_addr a = parse("1.2.3.4");
    CHECK_EQ_INT(addrman_netgroup(&a, g), 3);
    CHECK(g[0] == NETWORK_IPV4 && g[1] == 1 && g[2] == 2);
    a = parse("[2a01:4f8:1:2::1]");
    CHECK_EQ_INT(addrman_netgroup(&a, g), 5);
    const uint8_t v6[5] = {NETWORK_IPV6, 0x2a, 0x01, 0x04, 0xf8};
    CHECK_EQ_MEM(g, v6, 5);
    a = parse("[2001:470:1234:5678::1]"); /* he.net: /36 */
    CHECK_EQ_INT(addrman_netgroup(&a, g), 6);
    CHECK(g[5] == 0x1f);
    a = parse("[2002:102:304::1]"); /* 6to4 of 1.2.3.4 */
    CHECK_EQ_INT(addrman_netgroup(&a, g), 3);
    CHECK(g[0] == NETWORK_IPV4 && g[1] == 1 && g[2] == 2);
    a = parse("[2001:0:1234:5678:0:0:fefd:fcfb]"); /* Teredo: 1.2.3.4 bit-flipped */
    CHECK_EQ_INT(addrman_netgroup(&a, g), 3);
    CHECK(g[0] == NETWORK_IPV4 && g[1] == 1 && g[2] == 2);
    a = keyed_addr(BIP155_TORV3, 0xa5, 7);
    CHECK_EQ_INT(addrman_netgroup(&a, g), 2);
    CHECK(g[0] == NETWORK_ONION && g[1] == 0xaf);
    a = keyed_addr(BIP155_I2P, 0x31, 7);
    CHECK_EQ_INT(addrman_netgroup(&a, g), 2);
    CHECK(g[0] == NETWORK_I2P && g[1] == 0x3f);
    a = keyed_addr(BIP155_CJDNS, 0xfc, 0x42);
    CHECK_EQ_INT(addrman_netgroup(&a, g), 3);
    CHECK(g[0] == NETWORK_CJDNS && g[1] == 0xfc && g[2] == 0x4f);
    const char *one_group[] = {"127.0.0.1", "10.1.2.3", "192.168.1.1", "[::1]", "[fc00::1]"};
    for (size_t i = 0; i < ARRAY_LEN(one_group); i++) {
        a = parse(one_group[i]);
        CHECK_EQ_INT(addrman_netgroup(&a, g), 1);
        CHECK_EQ_INT(g[0], NETWORK_UNROUTABLE);
    }
}

static void test_unroutable_never_added(void)
{
    struct addrman *am = addrman_new(1);
    struct net_addr src = parse("5.6.7.8");
    const char *bad[] = {"127.0.0.1",       "10.1.2.3",      "192.168.1.1",  "172.16.0.1",
                         "169.254.1.1",     "0.0.0.0",       "[::1]",        "[fc00::1]",
                         "[fe80::1]",       "[2001:db8::1]", "[2001:10::1]", "[2001:20::1]",
                         "255.255.255.255", "224.0.0.1"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        CHECK_EQ_INT(add1(am, parse(bad[i]), src, NOW), 0);
    }
    struct net_addr cj = keyed_addr(BIP155_CJDNS, 0xfd, 1); /* CJDNS outside fc00::/8 */
    CHECK_EQ_INT(add1(am, cj, src, NOW), 0);
    struct net_addr v2 = keyed_addr(BIP155_TORV3, 1, 1);
    v2.net = BIP155_TORV2;
    v2.len = 10;
    CHECK_EQ_INT(add1(am, v2, src, NOW), 0);
    struct net_addr shortv4 = ip4(1, 2, 3, 4, 1);
    shortv4.len = 3;
    CHECK_EQ_INT(add1(am, shortv4, src, NOW), 0);
    CHECK_EQ_INT(addrman_size(am, -1, -1), 0);
    /* The routable kinds are accepted. */
    CHECK_EQ_INT(add1(am, keyed_addr(BIP155_TORV3, 1, 2), src, NOW), 1);
    CHECK_EQ_INT(add1(am, keyed_addr(BIP155_I2P, 1, 2), src, NOW), 1);
    CHECK_EQ_INT(add1(am, keyed_addr(BIP155_CJDNS, 0xfc, 2), src, NOW), 1);
    CHECK_EQ_INT(add1(am, parse("[2a01::1]"), src, NOW), 1);
    CHECK_EQ_INT(addrman_size(am, NETWORK_ONION, 1), 1);
    CHECK_EQ_INT(addrman_size(am, NETWORK_I2P, -1), 1);
    CHECK_EQ_INT(addrman_size(am, NETWORK_CJDNS, -1), 1);
    CHECK_EQ_INT(addrman_size(am, NETWORK_IPV6, -1), 1);
    CHECK_EQ_INT(addrman_size(am, -1, 1), 4);
    CHECK_EQ_INT(addrman_size(am, -1, 0), 0);
    CHECK(consistent(am));
    struct addrman_addr g = gossip(parse("1.2.3.4"), NOW);
    CHECK_EQ_INT(addrman_add(am, NULL, NULL, 1, &src, 0, NOW), RC_USAGE);
    CHECK_EQ_INT(addrman_add(am, NULL, &g, 1, &src, -1, NOW), RC_USAGE);
    addrman_free(am);
    addrman_free(NULL);
}

static void test_add_select(void)
{
    struct addrman *am = addrman_new(2);
    struct addrman_addr out;
    int64_t last_try = -1;
    CHECK_EQ_INT(addrman_select(am, &out, &last_try, 0, 0, NOW), RC_NOT_FOUND);
    struct net_addr a = ip4(1, 2, 3, 4, 8333), src = ip4(5, 6, 7, 8, 8333);
    CHECK_EQ_INT(add1(am, a, src, NOW - 100), 1);
    CHECK_EQ_INT(addrman_size(am, -1, -1), 1);
    CHECK_EQ_INT(addrman_size(am, NETWORK_IPV4, 1), 1);
    CHECK_EQ_INT(addrman_select(am, &out, &last_try, 0, 0, NOW), RC_OK);
    CHECK(net_addr_same_ip(&out.addr, &a) && out.addr.port == 8333);
    CHECK_EQ_INT(out.time, NOW - 100);
    CHECK_EQ_U64(out.services, 9);
    CHECK_EQ_INT(last_try, 0);
    CHECK_EQ_INT(addrman_select(am, &out, NULL, 1, 0, NOW), RC_OK);
    CHECK_EQ_INT(addrman_select(am, &out, NULL, 0, ADDRMAN_NET_BIT(NETWORK_IPV4), NOW), RC_OK);
    CHECK_EQ_INT(addrman_select(am, &out, NULL, 0, ADDRMAN_NET_BIT(NETWORK_IPV6), NOW),
                 RC_NOT_FOUND);
    /* The same announcement again adds nothing; another port is another entry. */
    CHECK_EQ_INT(add1(am, a, src, NOW - 100), 0);
    CHECK_EQ_INT(add1(am, ip4(1, 2, 3, 4, 8334), src, NOW - 100), 1);
    CHECK_EQ_INT(addrman_size(am, -1, -1), 2);
    /* Services are OR-ed in by later announcements. */
    struct addrman_addr g = gossip(a, NOW - 50);
    g.services = 1u << 10;
    CHECK_EQ_INT(addrman_add(am, NULL, &g, 1, &src, 0, NOW), RC_OK);
    struct addrman_info info;
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_U64(info.services, 9 | (1u << 10));
    CHECK(net_addr_same_ip(&info.source, &src));
    CHECK_EQ_INT(info.in_tried, 0);
    CHECK_EQ_INT(info.ref_count, 1);
    CHECK_EQ_INT(addrman_set_services(am, &a, 1), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_U64(info.services, 1);
    struct net_addr unknown = ip4(9, 9, 9, 9, 1);
    CHECK_EQ_INT(addrman_find(am, &info, &unknown), RC_NOT_FOUND);
    CHECK_EQ_INT(addrman_set_services(am, &unknown, 1), RC_NOT_FOUND);
    CHECK(consistent(am));
    addrman_free(am);
}

static void test_time_penalty(void)
{
    struct addrman *am = addrman_new(3);
    struct net_addr src = ip4(5, 6, 7, 8, 8333), a = ip4(1, 2, 3, 4, 8333);
    struct addrman_addr g[2] = {gossip(a, NOW - 10), gossip(src, NOW - 10)};
    size_t n = 0;
    CHECK_EQ_INT(addrman_add(am, &n, g, 2, &src, 2 * HOUR, NOW), RC_OK);
    CHECK_EQ_INT(n, 2);
    struct addrman_info info;
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.time, NOW - 10 - 2 * HOUR);
    CHECK_EQ_INT(addrman_find(am, &info, &src), RC_OK);
    CHECK_EQ_INT(info.time, NOW - 10); /* a peer's own address: no penalty */
    /* A fresher announcement moves time forward only past the update interval. */
    struct addrman_addr f = gossip(a, NOW - 10 + 30 * 60);
    CHECK_EQ_INT(addrman_add(am, NULL, &f, 1, &src, 0, NOW + HOUR), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.time, NOW - 10 + 30 * 60);
    struct addrman_addr z = gossip(ip4(1, 2, 3, 5, 1), 100);
    CHECK_EQ_INT(addrman_add(am, NULL, &z, 1, &src, 1000, NOW), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &z.addr), RC_OK);
    CHECK_EQ_INT(info.time, 0); /* clamped, never negative */
    CHECK(consistent(am));
    addrman_free(am);
}

static void test_good_attempt_connected(void)
{
    struct addrman *am = addrman_new(4);
    struct net_addr a = ip4(1, 2, 3, 4, 8333), b = ip4(3, 4, 5, 6, 8333);
    struct net_addr src = ip4(5, 6, 7, 8, 8333);
    int res = -1;
    CHECK_EQ_INT(addrman_good(am, &res, &a, NOW), RC_NOT_FOUND);
    add1(am, a, src, NOW - 100);
    add1(am, b, src, NOW - 100);
    CHECK_EQ_INT(addrman_good(am, &res, &a, 0), RC_USAGE);
    CHECK_EQ_INT(addrman_good(am, &res, &a, NOW), RC_OK);
    CHECK_EQ_INT(res, ADDRMAN_GOOD_MOVED);
    CHECK_EQ_INT(addrman_size(am, -1, 0), 1);
    CHECK_EQ_INT(addrman_size(am, -1, 1), 1);
    CHECK_EQ_INT(addrman_size(am, NETWORK_IPV4, 0), 1);
    struct addrman_info info;
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.in_tried, 1);
    CHECK_EQ_INT(info.last_success, NOW);
    CHECK_EQ_INT(info.last_try, NOW);
    CHECK_EQ_INT(info.time, NOW - 100); /* not revealed by Good */
    CHECK_EQ_INT(addrman_good(am, &res, &a, NOW + 1), RC_OK);
    CHECK_EQ_INT(res, ADDRMAN_GOOD_ALREADY_TRIED);
    /* Tried entries are only re-added as statistics. */
    CHECK_EQ_INT(add1(am, a, ip4(8, 8, 8, 8, 1), NOW + 50), 0);
    CHECK_EQ_INT(addrman_size(am, -1, 0), 1);

    /* Attempts count once per Good of anyone. */
    CHECK_EQ_INT(addrman_attempt(am, &b, 1, NOW + 10), RC_OK);
    CHECK_EQ_INT(addrman_attempt(am, &b, 1, NOW + 20), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &b), RC_OK);
    CHECK_EQ_INT(info.attempts, 1);
    CHECK_EQ_INT(info.last_try, NOW + 20);
    CHECK_EQ_INT(addrman_good(am, NULL, &a, NOW + 30), RC_OK);
    CHECK_EQ_INT(addrman_attempt(am, &b, 1, NOW + 40), RC_OK);
    CHECK_EQ_INT(addrman_attempt(am, &b, 0, NOW + 50), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &b), RC_OK);
    CHECK_EQ_INT(info.attempts, 2);
    CHECK_EQ_INT(info.last_try, NOW + 50);
    CHECK_EQ_INT(addrman_attempt(am, &src, 1, NOW), RC_NOT_FOUND);
    /* Good resets the failure count. */
    CHECK_EQ_INT(addrman_good(am, NULL, &b, NOW + 60), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &b), RC_OK);
    CHECK_EQ_INT(info.attempts, 0);

    /* Connected refreshes time at most every 20 minutes. */
    CHECK_EQ_INT(addrman_connected(am, &a, NOW - 100 + 20 * 60), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.time, NOW - 100);
    CHECK_EQ_INT(addrman_connected(am, &a, NOW - 100 + 20 * 60 + 1), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.time, NOW - 100 + 20 * 60 + 1);
    CHECK_EQ_INT(addrman_connected(am, &src, NOW), RC_NOT_FOUND);
    CHECK(consistent(am));
    addrman_free(am);
}

/* getrawaddrman's walk: every occupied slot once, in bucket then slot order, with the slot's
 * own bucket and position; an address with two new references shows twice. */
static void test_get_entries(void)
{
    struct addrman *am = addrman_new(9);
    struct addrman_info *v = (struct addrman_info *)1;
    size_t n = 99;
    CHECK_EQ_INT(addrman_get_entries(am, &v, &n, 0), RC_OK);
    CHECK_EQ_INT(n, 0);
    CHECK(v == NULL);
    struct net_addr a = ip4(1, 2, 3, 4, 8333), b = ip4(3, 4, 5, 6, 8333);
    struct net_addr c = ip4(9, 9, 9, 9, 8333);
    add1(am, a, a, NOW - 100);
    add1(am, b, ip4(5, 6, 7, 8, 8333), NOW - 100);
    add1(am, c, c, NOW - 100);
    CHECK_EQ_INT(addrman_good(am, NULL, &c, NOW), RC_OK);
    /* A second reference for b, from another source group, announced later: the chance of
     * the second reference is 1/2, so a few sources are tried until one takes. */
    struct addrman_info info;
    for (int i = 0; i < 64; i++) {
        CHECK_EQ_INT(addrman_find(am, &info, &b), RC_OK);
        if (info.ref_count == 2) {
            break;
        }
        add1(am, b, ip4(60 + i, 1, 1, 1, 8333), NOW - 50 + i);
    }
    CHECK_EQ_INT(info.ref_count, 2);

    CHECK_EQ_INT(addrman_get_entries(am, &v, &n, 0), RC_OK);
    CHECK_EQ_INT(n, 3);
    size_t seen_a = 0, seen_b = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            CHECK(v[i - 1].bucket < v[i].bucket ||
                  (v[i - 1].bucket == v[i].bucket && v[i - 1].position < v[i].position));
        }
        CHECK_EQ_INT(v[i].in_tried, 0);
        if (net_addr_same_ip(&v[i].addr, &a)) {
            CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
            CHECK_EQ_INT(v[i].bucket, info.bucket);
            CHECK_EQ_INT(v[i].position, info.position);
            CHECK(net_addr_same_ip(&v[i].source, &a));
        }
        seen_a += net_addr_same_ip(&v[i].addr, &a);
        seen_b += net_addr_same_ip(&v[i].addr, &b);
    }
    CHECK_EQ_INT(seen_a, 1);
    CHECK_EQ_INT(seen_b, 2);
    free(v);

    CHECK_EQ_INT(addrman_get_entries(am, &v, &n, 1), RC_OK);
    CHECK_EQ_INT(n, 1);
    CHECK(net_addr_same_ip(&v[0].addr, &c));
    CHECK_EQ_INT(addrman_find(am, &info, &c), RC_OK);
    CHECK_EQ_INT(v[0].bucket, info.bucket);
    CHECK_EQ_INT(v[0].position, info.position);
    CHECK(net_addr_same_ip(&v[0].source, &c));
    CHECK_EQ_INT(v[0].services, 1 | 8);
    free(v);
    addrman_free(am);
}

/* Where Core's AddrMan puts these addresses under -test=addrman (key uint256{1}), each added
 * by addpeeraddress (its own source, tried ones moved by Good): the bucket/position pairs of
 * Core's getrawaddrman in its rpc_net.py. */
static void test_placement_core(void)
{
    static const struct {
        const char *addr;
        uint16_t port;
        int tried, bucket, position;
    } want[] = {
        {"2.0.0.0", 8333, 0, 82, 8},
        {"c4gfnttsuwqomiygupdqqqyy5y5emnk5c73hrfvatri67prd7vyq.b32.i2p", 8333, 0, 963, 46},
        {"2803:0:1234:abcd::1", 45324, 0, 613, 6},
        {"1.2.3.4", 8333, 1, 6, 33},
        {"1233:3432:2434:2343:3234:2345:6546:4534", 8333, 1, 197, 34},
        {"pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion", 8333, 1, 72, 61},
        {"nrfj6inpyf73gpkyool35hcmne5zwfmse3jl3aw23vk7chdemalyaqad.onion", 45324, 1, 139, 46},
    };
    struct addrman *am = addrman_new(77), *same = addrman_new(77);
    uint8_t k[32], k2[32], core_key[32] = {1};
    addrman_get_key(am, k);
    addrman_get_key(same, k2);
    CHECK_EQ_MEM(k, core_key, 32);
    CHECK_EQ_MEM(k2, core_key, 32);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct net_addr a = parse(want[i].addr);
        a.port = want[i].port;
        struct addrman_addr aa = {a, 9, NOW};
        size_t added = 0;
        CHECK_EQ_INT(addrman_add(am, &added, &aa, 1, &a, 0, NOW), RC_OK);
        CHECK_EQ_INT((int)added, 1);
        int res = -1;
        if (want[i].tried) {
            CHECK_EQ_INT(addrman_good_keep_occupant(am, &res, &a, NOW), RC_OK);
            CHECK_EQ_INT(res, ADDRMAN_GOOD_MOVED);
        }
        struct addrman_info info;
        CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
        CHECK_EQ_INT(info.in_tried, want[i].tried);
        CHECK_EQ_INT(info.bucket, want[i].bucket);
        CHECK_EQ_INT(info.position, want[i].position);
    }
    /* Core's grinded tried collision with 1.2.3.4 (rpc_net.py): stays in new. */
    struct net_addr c = parse("1.2.5.45");
    struct addrman_addr ca = {c, 9, NOW};
    size_t added = 0;
    int res = -1;
    CHECK_EQ_INT(addrman_add(am, &added, &ca, 1, &c, 0, NOW), RC_OK);
    CHECK_EQ_INT(addrman_good_keep_occupant(am, &res, &c, NOW), RC_OK);
    CHECK_EQ_INT(res, ADDRMAN_GOOD_KEPT_NEW);
    addrman_free(am);
    addrman_free(same);
}

static void test_bucket_spread(void)
{
    /* One source group reaches at most 64 new buckets, however many groups it announces. */
    struct addrman *am = addrman_new(5);
    static uint8_t seen_new[ADDRMAN_NEW_BUCKET_COUNT];
    memset(seen_new, 0, sizeof(seen_new));
    int n_buckets = 0;
    for (int i = 0; i < 2000; i++) {
        struct net_addr a = ip4(1 + i % 200, i / 200 + 1, 1, 1, 8333);
        struct net_addr src = ip4(50, 60, i % 250, 1, 8333); /* one /16 */
        if (add1(am, a, src, NOW) == 1) {
            struct addrman_info info;
            CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
            if (!seen_new[info.bucket]++) {
                n_buckets++;
            }
        }
    }
    CHECK(n_buckets <= ADDRMAN_NEW_BUCKETS_PER_SOURCE_GROUP);
    CHECK(n_buckets >= 50);
    CHECK(consistent(am));
    addrman_free(am);

    /* The addresses of one group reach at most 8 tried buckets. */
    am = addrman_new(6);
    static uint8_t seen_tried[ADDRMAN_TRIED_BUCKET_COUNT];
    memset(seen_tried, 0, sizeof(seen_tried));
    n_buckets = 0;
    for (int i = 0; i < 300; i++) {
        struct net_addr a = ip4(1, 2, i / 250, 1 + i % 250, 8333);
        add1(am, a, ip4(1 + i, 9, 9, 9, 1), NOW);
        int res;
        if (addrman_good(am, &res, &a, NOW) == RC_OK && res == ADDRMAN_GOOD_MOVED) {
            struct addrman_info info;
            CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
            if (!seen_tried[info.bucket]++) {
                n_buckets++;
            }
        }
    }
    CHECK(n_buckets <= ADDRMAN_TRIED_BUCKETS_PER_GROUP);
    CHECK(n_buckets >= 6);
    CHECK(addrman_size(am, -1, 0) <= ADDRMAN_TRIED_BUCKETS_PER_GROUP * ADDRMAN_BUCKET_SIZE);
    CHECK(consistent(am));
    addrman_free(am);
}

static void test_bucket_capacity(void)
{
    /* One group from one source group: a single new bucket, so never more than 64. */
    struct addrman *am = addrman_new(7);
    size_t added = 0;
    for (int i = 0; i < 10000; i++) {
        added += add1(am, ip4(1, 2, i / 250, 1 + i % 250, 8333), ip4(5, 6, 7, 8, 8333), NOW);
    }
    CHECK(added <= ADDRMAN_BUCKET_SIZE);
    CHECK(addrman_size(am, -1, 1) <= ADDRMAN_BUCKET_SIZE);
    CHECK(addrman_size(am, -1, 1) >= 50);
    CHECK(consistent(am));
    addrman_free(am);
}

static void test_terrible(void)
{
    struct addrman *am = addrman_new(8);
    struct net_addr src = ip4(5, 6, 7, 8, 8333);
    struct net_addr future = ip4(1, 2, 3, 4, 1), old = ip4(1, 2, 3, 5, 1),
                    fail = ip4(1, 2, 3, 6, 1);
    add1(am, future, src, NOW + DAY);
    add1(am, old, src, NOW - 31 * DAY);
    add1(am, fail, src, NOW - HOUR);
    /* Three counted failures and no success. */
    struct net_addr nobody = ip4(99, 99, 99, 99, 1);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(addrman_attempt(am, &fail, 1, NOW - 1000 + i), RC_OK);
        CHECK_EQ_INT(addrman_good(am, NULL, &nobody, NOW - 900 + i), RC_NOT_FOUND);
    }
    CHECK_EQ_INT(addrman_size(am, -1, -1), 3);
    struct addrman_info info;
    CHECK_EQ_INT(addrman_find(am, &info, &future), RC_OK);
    CHECK(addrman_is_terrible(&info, NOW));
    CHECK_EQ_INT(addrman_find(am, &info, &old), RC_OK);
    CHECK(addrman_is_terrible(&info, NOW));
    CHECK_EQ_INT(addrman_find(am, &info, &fail), RC_OK);
    CHECK_EQ_INT(info.attempts, 3);
    CHECK(addrman_is_terrible(&info, NOW));
    CHECK(!addrman_is_terrible(&info, NOW - 1000 + 2 + 60)); /* tried in the last minute */
    struct addrman_addr out;
    for (int i = 0; i < 20; i++) {
        CHECK_EQ_INT(addrman_select(am, &out, NULL, 0, 0, NOW), RC_NOT_FOUND);
    }
    struct addrman_addr *list = NULL;
    size_t n = 99;
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 0, 0, -1, NOW), RC_OK);
    CHECK_EQ_INT(n, 0);
    CHECK(list == NULL);
    /* One good entry among them is always the one chosen. */
    struct net_addr fine = ip4(1, 2, 3, 7, 1);
    add1(am, fine, src, NOW - HOUR);
    for (int i = 0; i < 50; i++) {
        CHECK_EQ_INT(addrman_select(am, &out, NULL, 0, 0, NOW), RC_OK);
        CHECK(net_addr_same_ip(&out.addr, &fine));
    }
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 0, 0, -1, NOW), RC_OK);
    CHECK_EQ_INT(n, 1);
    free(list);
    CHECK(consistent(am));
    addrman_free(am);

    /* Only terrible entries in tried: Select falls back to new instead of looping. */
    am = addrman_new(18);
    struct net_addr stale = ip4(7, 7, 7, 7, 1), good = ip4(8, 7, 7, 7, 1);
    add1(am, stale, src, NOW - 40 * DAY);
    CHECK_EQ_INT(addrman_good(am, NULL, &stale, NOW - 20 * DAY), RC_OK);
    add1(am, good, src, NOW - HOUR);
    CHECK_EQ_INT(addrman_size(am, -1, 0), 1);
    for (int i = 0; i < 50; i++) {
        CHECK_EQ_INT(addrman_select(am, &out, NULL, 0, 0, NOW), RC_OK);
        CHECK(net_addr_same_ip(&out.addr, &good));
    }
    addrman_free(am);

    /* A terrible occupant of a new slot yields to a newcomer; a healthy one does not. */
    for (int terrible = 0; terrible < 2; terrible++) {
        am = addrman_new(9);
        struct net_addr t = ip4(1, 2, 250, 250, 8333);
        add1(am, t, src, terrible ? NOW - 40 * DAY : NOW - HOUR);
        struct addrman_info ti, ci;
        CHECK_EQ_INT(addrman_find(am, &ti, &t), RC_OK);
        int hit = 0;
        for (int i = 0; i < 2000 && !hit; i++) {
            struct net_addr c = ip4(1, 2, i / 250, 1 + i % 250, 8333);
            struct addrman_addr g = gossip(c, NOW - 60);
            CHECK_EQ_INT(addrman_add(am, NULL, &g, 1, &src, 0, NOW), RC_OK);
            if (addrman_find(am, &ci, &c) == RC_OK && ci.bucket == ti.bucket &&
                ci.position == ti.position) {
                hit = 1;
            }
        }
        struct addrman_info now_t;
        if (terrible) {
            CHECK(hit);
            CHECK_EQ_INT(addrman_find(am, &now_t, &t), RC_NOT_FOUND);
        } else {
            CHECK(!hit);
            CHECK_EQ_INT(addrman_find(am, &now_t, &t), RC_OK);
        }
        CHECK(consistent(am));
        addrman_free(am);
    }
}

static void test_select_tables(void)
{
    struct addrman *am = addrman_new(10);
    struct net_addr src = ip4(5, 6, 7, 8, 8333);
    struct net_addr t = ip4(1, 2, 3, 4, 8333), n = ip4(9, 8, 7, 6, 8333);
    add1(am, t, src, NOW - HOUR);
    add1(am, n, src, NOW - HOUR);
    CHECK_EQ_INT(addrman_good(am, NULL, &t, NOW - HOUR), RC_OK);
    int from_tried = 0;
    struct addrman_addr out;
    int64_t last_try;
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ_INT(addrman_select(am, &out, &last_try, 0, 0, NOW), RC_OK);
        if (net_addr_same_ip(&out.addr, &t)) {
            from_tried++;
            CHECK_EQ_INT(last_try, NOW - HOUR);
        }
    }
    CHECK(from_tried > 400 && from_tried < 600); /* 50/50 between the tables */
    for (int i = 0; i < 100; i++) {
        CHECK_EQ_INT(addrman_select(am, &out, NULL, 1, 0, NOW), RC_OK);
        CHECK(net_addr_same_ip(&out.addr, &n));
    }
    /* With only tried entries, new_only finds nothing. */
    CHECK_EQ_INT(addrman_good(am, NULL, &n, NOW - HOUR), RC_OK);
    CHECK_EQ_INT(addrman_select(am, &out, NULL, 1, 0, NOW), RC_NOT_FOUND);
    CHECK_EQ_INT(addrman_select(am, &out, NULL, 0, 0, NOW), RC_OK);
    addrman_free(am);

    /* A network filter returns only that network. */
    am = addrman_new(11);
    for (int i = 0; i < 100; i++) {
        add1(am, ip4(1 + i, 2, 3, 4, 8333), ip4(100 + i, 1, 1, 1, 1), NOW);
    }
    struct net_addr onion = keyed_addr(BIP155_TORV3, 0x42, 9);
    add1(am, onion, src, NOW);
    for (int i = 0; i < 50; i++) {
        CHECK_EQ_INT(addrman_select(am, &out, NULL, 0, ADDRMAN_NET_BIT(NETWORK_ONION), NOW), RC_OK);
        CHECK(out.addr.net == BIP155_TORV3);
    }
    addrman_free(am);
}

static void test_get_addr(void)
{
    struct addrman *am = addrman_new(12);
    for (int i = 0; i < 1000; i++) {
        add1(am, ip4(1 + i % 200, 1 + i / 200, 3, 4, 8333), ip4(100 + i % 50, 1, 1, 1, 1),
             NOW - HOUR);
    }
    for (int i = 0; i < 100; i++) {
        struct net_addr a = parse("[2a01::1]");
        a.addr[2] = (uint8_t)i;
        add1(am, a, ip4(100 + i % 50, 1, 1, 1, 1), NOW - HOUR);
    }
    size_t total = addrman_size(am, -1, -1);
    CHECK(total > 900);
    struct addrman_addr *list;
    size_t n;
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 0, 23, -1, NOW), RC_OK);
    CHECK_EQ_INT(n, 23 * total / 100);
    free(list);
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 50, 23, -1, NOW), RC_OK);
    CHECK_EQ_INT(n, 50);
    /* Distinct entries. */
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            CHECK(!(net_addr_same_ip(&list[i].addr, &list[j].addr) &&
                    list[i].addr.port == list[j].addr.port));
        }
    }
    free(list);
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 0, 0, -1, NOW), RC_OK);
    CHECK_EQ_INT(n, total);
    free(list);
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 0, 250, -1, NOW), RC_OK); /* as 100% */
    CHECK_EQ_INT(n, total);
    free(list);
    size_t n6 = addrman_size(am, NETWORK_IPV6, -1);
    CHECK(n6 > 50);
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 0, 0, NETWORK_IPV6, NOW), RC_OK);
    CHECK_EQ_INT(n, n6);
    for (size_t i = 0; i < n; i++) {
        CHECK(list[i].addr.net == BIP155_IPV6);
    }
    free(list);
    /* A month later everything is terrible: nothing is handed out. */
    CHECK_EQ_INT(addrman_get_addr(am, &list, &n, 0, 0, -1, NOW + 31 * DAY), RC_OK);
    CHECK_EQ_INT(n, 0);
    CHECK(consistent(am));
    addrman_free(am);
}

/* Finds two addresses of group 1.2/16 sharing a tried slot under seed's key. */
static int find_tried_collision(uint64_t seed, struct net_addr *first, struct net_addr *second)
{
    struct addrman *oracle = addrman_new(seed);
    static struct net_addr slot_owner[ADDRMAN_TRIED_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE];
    static uint8_t used[ADDRMAN_TRIED_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE];
    memset(used, 0, sizeof(used));
    int found = 0;
    for (int i = 0; i < 600 && !found; i++) {
        struct net_addr a = ip4(1, 2, i / 250, 1 + i % 250, 8333);
        add1(oracle, a, ip4(1 + i % 200, 77, 1, 1, 1), NOW);
        int res = -1;
        /* Five hours apart, so every collision evicts and the newcomer takes its slot. */
        if (addrman_good(oracle, &res, &a, NOW + (int64_t)i * 5 * HOUR) != RC_OK ||
            res != ADDRMAN_GOOD_MOVED) {
            continue;
        }
        struct addrman_info info;
        addrman_find(oracle, &info, &a);
        int slot = info.bucket * ADDRMAN_BUCKET_SIZE + info.position;
        if (used[slot]) {
            *first = slot_owner[slot];
            *second = a;
            found = 1;
        }
        used[slot] = 1;
        slot_owner[slot] = a;
    }
    addrman_free(oracle);
    return found;
}

static void test_tried_collision(void)
{
    struct net_addr a, b;
    if (!find_tried_collision(13, &a, &b)) {
        CHECK(!"no tried collision found");
        return;
    }
    struct addrman *am = addrman_new(13);
    struct net_addr src = ip4(5, 6, 7, 8, 8333);
    CHECK_EQ_INT(add1(am, a, src, NOW), 1);
    CHECK_EQ_INT(add1(am, b, ip4(50, 6, 7, 8, 8333), NOW), 1);
    int res = -1;
    CHECK_EQ_INT(addrman_good(am, &res, &a, NOW), RC_OK);
    CHECK_EQ_INT(res, ADDRMAN_GOOD_MOVED);
    /* a succeeded an hour ago: it keeps the slot, b stays in new with its statistics. */
    CHECK_EQ_INT(addrman_good(am, &res, &b, NOW + HOUR), RC_OK);
    CHECK_EQ_INT(res, ADDRMAN_GOOD_KEPT_NEW);
    struct addrman_info ia, ib;
    CHECK_EQ_INT(addrman_find(am, &ia, &a), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &ib, &b), RC_OK);
    CHECK_EQ_INT(ia.in_tried, 1);
    CHECK_EQ_INT(ib.in_tried, 0);
    CHECK_EQ_INT(ib.last_success, NOW + HOUR);
    CHECK(consistent(am));
    /* Five hours later a is stale: b takes the slot and a goes back to new. */
    CHECK_EQ_INT(addrman_good(am, &res, &b, NOW + 5 * HOUR), RC_OK);
    CHECK_EQ_INT(res, ADDRMAN_GOOD_MOVED);
    CHECK_EQ_INT(addrman_find(am, &ia, &a), RC_OK);
    CHECK_EQ_INT(addrman_find(am, &ib, &b), RC_OK);
    CHECK_EQ_INT(ia.in_tried, 0);
    CHECK_EQ_INT(ia.ref_count, 1);
    CHECK_EQ_INT(ia.last_success, NOW); /* kept: it was good once */
    CHECK_EQ_INT(ib.in_tried, 1);
    CHECK_EQ_INT(ia.bucket == ib.bucket && ia.position == ib.position, 0);
    CHECK_EQ_INT(addrman_size(am, -1, 0), 1);
    CHECK_EQ_INT(addrman_size(am, -1, 1), 1);
    CHECK(consistent(am));
    addrman_free(am);
}

/* A populated addrman: n adds from many sources, some goods, attempts, connects. */
static struct addrman *populated(uint64_t seed, int n)
{
    struct addrman *am = addrman_new(seed);
    for (int i = 0; i < n; i++) {
        struct net_addr a;
        uint64_t r = trand();
        switch (r % 5) {
        case 0:
            a = parse("[2a01::1]");
            wr_u32le(a.addr + 2, (uint32_t)(r >> 8));
            break;
        case 1:
            a = keyed_addr(r & 0x100 ? BIP155_TORV3 : BIP155_I2P, (uint8_t)(r >> 16),
                           (uint8_t)(r >> 24));
            a.addr[5] = (uint8_t)(r >> 32);
            break;
        default:
            a = ip4(1 + (int)((r >> 8) % 200), (int)((r >> 16) % 256), (int)((r >> 24) % 256),
                    1 + (int)((r >> 32) % 250), (uint16_t)(8333 + r % 3));
        }
        struct net_addr src = ip4(1 + (int)((r >> 40) % 100), (int)((r >> 48) % 3), 1, 1, 8333);
        struct addrman_addr g = gossip(a, NOW - (int64_t)((r >> 20) % (40 * DAY)));
        addrman_add(am, NULL, &g, 1, &src, (int64_t)(r % 3) * HOUR, NOW);
        if (r % 7 == 0) {
            addrman_good(am, NULL, &a, NOW - (int64_t)(r % 1000));
        }
        if (r % 11 == 0) {
            addrman_attempt(am, &a, 1, NOW - 5);
        }
        if (r % 13 == 0) {
            addrman_connected(am, &a, NOW);
        }
    }
    return am;
}

static void path_in_tmp(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", tmpdir, name);
}

static void test_save_load_roundtrip(void)
{
    struct addrman *am1 = populated(21, 3000);
    CHECK(consistent(am1));
    CHECK(addrman_size(am1, -1, 0) > 100);
    CHECK(addrman_size(am1, -1, 1) > 1000);
    char path[128], err[256] = "";
    path_in_tmp(path, sizeof(path), "peers.dat");
    CHECK_EQ_INT(addrman_save(am1, path, magic, err, sizeof(err)), RC_OK);
    struct addrman *am2 = addrman_new(99);
    add1(am2, ip4(77, 7, 7, 7, 7), ip4(5, 5, 5, 5, 5), NOW); /* replaced by the load */
    CHECK_EQ_INT(addrman_load(am2, NULL, path, magic, err, sizeof(err)), RC_OK);
    CHECK(consistent(am2));
    uint8_t k1[32], k2[32];
    addrman_get_key(am1, k1);
    addrman_get_key(am2, k2);
    CHECK_EQ_MEM(k1, k2, 32);
    for (int net = -1; net < NETWORK_COUNT; net++) {
        for (int in_new = -1; in_new <= 1; in_new++) {
            CHECK_EQ_INT(addrman_size(am1, net, in_new), addrman_size(am2, net, in_new));
        }
    }
    struct addrman_info info;
    struct net_addr gone = ip4(77, 7, 7, 7, 7);
    CHECK_EQ_INT(addrman_find(am2, &info, &gone), RC_NOT_FOUND);
    /* Every entry is the same, in the same slots: the images are equal bytes. */
    struct buf b1, b2;
    buf_init(&b1);
    buf_init(&b2);
    addrman_serialize(am1, &b1, magic);
    addrman_serialize(am2, &b2, magic);
    CHECK_EQ_INT(b1.len, b2.len);
    CHECK(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0);
    struct addrman_addr *list;
    size_t n;
    CHECK_EQ_INT(addrman_get_addr(am1, &list, &n, 0, 0, -1, NOW), RC_OK);
    for (size_t i = 0; i < n; i++) {
        struct addrman_info x, y;
        CHECK_EQ_INT(addrman_find(am1, &x, &list[i].addr), RC_OK);
        CHECK_EQ_INT(addrman_find(am2, &y, &list[i].addr), RC_OK);
        CHECK(net_addr_same_ip(&x.addr, &y.addr) && x.addr.port == y.addr.port &&
              net_addr_same_ip(&x.source, &y.source) && x.services == y.services &&
              x.time == y.time && y.last_try == 0 && x.last_success == y.last_success &&
              x.attempts == y.attempts && x.in_tried == y.in_tried &&
              x.ref_count == y.ref_count && x.bucket == y.bucket && x.position == y.position);
    }
    free(list);
    /* Same seed, same Select sequence, between two loads of the file (the last try, which
     * weighs in the choice, is not in the file, as in Core). */
    struct addrman *am3 = addrman_new(98);
    CHECK_EQ_INT(addrman_load(am3, NULL, path, magic, err, sizeof(err)), RC_OK);
    addrman_free(am1);
    am1 = am3;
    addrman_set_seed(am1, 5);
    addrman_set_seed(am2, 5);
    int same = 1;
    for (int i = 0; i < 300; i++) {
        struct addrman_addr o1, o2;
        int r1 = addrman_select(am1, &o1, NULL, i % 3 == 0, 0, NOW);
        int r2 = addrman_select(am2, &o2, NULL, i % 3 == 0, 0, NOW);
        /* Field by field: the structs' padding is not part of the answer. */
        same &= r1 == r2 && r1 == RC_OK && net_addr_same_ip(&o1.addr, &o2.addr) &&
                o1.addr.port == o2.addr.port && o1.services == o2.services && o1.time == o2.time;
    }
    CHECK(same);
    /* An empty addrman round-trips too. */
    struct addrman *e1 = addrman_new(3), *e2 = addrman_new(4);
    CHECK_EQ_INT(addrman_save(e1, path, magic, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(addrman_load(e2, NULL, path, magic, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(addrman_size(e2, -1, -1), 0);
    CHECK(consistent(e2));
    addrman_free(e1);
    addrman_free(e2);
    unlink(path);
    buf_clear(&b1);
    buf_clear(&b2);
    addrman_free(am1);
    addrman_free(am2);
}

static void fix_checksum(uint8_t *p, size_t len)
{
    hash_sha256d(p + len - 32, p, len - 32);
}

/* Loads p (legacy: with the former format's reader) into an addrman holding one entry:
 * expects rc and err containing want. */
static void expect_refusal_in(int legacy, const uint8_t *p, size_t len, int rc, const char *want)
{
    struct addrman *am = addrman_new(31);
    struct net_addr keep = ip4(8, 8, 4, 4, 53);
    add1(am, keep, ip4(1, 1, 1, 1, 1), NOW);
    char err[256] = "";
    int got = legacy ? addrman_legacy_deserialize(am, p, len, magic, err, sizeof(err))
                     : addrman_deserialize(am, NULL, p, len, magic, err, sizeof(err));
    CHECK_EQ_INT(got, rc);
    if (!strstr(err, want)) {
        printf("# error \"%s\" lacks \"%s\"\n", err, want);
        test_case_failed = 1;
    }
    struct addrman_info info;
    CHECK_EQ_INT(addrman_size(am, -1, -1), 1); /* unchanged on failure */
    CHECK_EQ_INT(addrman_find(am, &info, &keep), RC_OK);
    CHECK(consistent(am));
    addrman_free(am);
}

static void expect_refusal(const uint8_t *p, size_t len, int rc, const char *want)
{
    expect_refusal_in(1, p, len, rc, want);
}

/* Offset of the first entry, and of the field after its address. */
#define ENTRY0 48

/* bitnode's former format: every refusal of its reader. */
static void test_legacy_load_refusals(void)
{
    char path[128], err[256] = "";
    path_in_tmp(path, sizeof(path), "absent.dat");
    struct addrman *am = addrman_new(1);
    CHECK_EQ_INT(addrman_load(am, NULL, path, magic, err, sizeof(err)), RC_NOT_FOUND);
    addrman_free(am);

    /* One tried entry (first) and one new entry. */
    am = addrman_new(32);
    struct net_addr t = ip4(1, 2, 3, 4, 8333), n = ip4(9, 8, 7, 6, 8333);
    add1(am, t, ip4(5, 6, 7, 8, 1), NOW);
    add1(am, n, ip4(5, 6, 7, 8, 1), NOW);
    addrman_good(am, NULL, &t, NOW);
    struct buf img;
    buf_init(&img);
    addrman_legacy_serialize(am, &img, magic);
    addrman_free(am);
    /* entry := table(1) addr(1+1+4+2) services(8) 3 times(24) attempts(4) source(8) refs */
    const size_t tried_len = 1 + 8 + 8 + 24 + 4 + 8 + 2;
    const size_t new_len = 1 + 8 + 8 + 24 + 4 + 8 + 1 + 2;
    CHECK_EQ_INT(img.len, ENTRY0 + tried_len + new_len + 32);
    uint8_t *c = malloc(img.len + 64);

    expect_refusal(img.data, 5, RC_CORRUPT, "truncated");
    memcpy(c, img.data, img.len);
    c[0] = 0xf9;
    expect_refusal(c, img.len, RC_CORRUPT, "wrong magic f9bfb5da, expected fabfb5da");
    memcpy(c, img.data, img.len);
    wr_u32le(c + 4, 2);
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_INVALID, "unsupported peers.dat version 2");
    expect_refusal(img.data, 60, RC_CORRUPT, "truncated");
    expect_refusal(img.data, img.len - 1, RC_CORRUPT, "checksum mismatch");
    memcpy(c, img.data, img.len);
    c[ENTRY0 + 20] ^= 0x10;
    expect_refusal(c, img.len, RC_CORRUPT, "checksum mismatch");

    /* Structural damage under a valid checksum. */
    memcpy(c, img.data, img.len);
    memset(c + 8, 0, 32);
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "bucket key is zero");
    memcpy(c, img.data, img.len);
    wr_u32le(c + 40, 20000);
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "tried count 20000 over 16384");
    memcpy(c, img.data, img.len);
    wr_u32le(c + 44, 2); /* one new entry more than there is */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "truncated reading entry table");
    memcpy(c, img.data, img.len);
    wr_u32le(c + 44, 0); /* one entry less: the last is left over */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "the last entry");
    memcpy(c, img.data, img.len);
    c[ENTRY0] = 0; /* the tried entry claims new */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "entry 0 at offset 48: table 0 where tried");
    memcpy(c, img.data, img.len);
    c[ENTRY0 + 3] = 10; /* 10.2.3.4 */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "address 10.2.3.4:8333 (network 1, 4 bytes) not acc");
    memcpy(c, img.data, img.len);
    c[ENTRY0 + 2] = 40; /* address length */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "length 40 over 32");
    memcpy(c, img.data, img.len);
    wr_u16le(c + ENTRY0 + tried_len - 2, 300); /* tried bucket */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "tried bucket 300, but 1.2.3.4:8333 belongs in");
    memcpy(c, img.data, img.len);
    memset(c + ENTRY0 + 1 + 8 + 8 + 16, 0, 8); /* last_success of the tried entry */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "tried but never successful");
    memcpy(c, img.data, img.len);
    c[ENTRY0 + 1 + 8 + 8 + 7] = 0x80; /* time's top byte */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "entry 0 at offset 48: time 92233720");
    memcpy(c, img.data, img.len);
    c[ENTRY0 + 1 + 8 + 8 + 24 + 3] = 0x80; /* attempts */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "attempts 2147483648 out of range");
    const size_t e1 = ENTRY0 + tried_len;
    memcpy(c, img.data, img.len);
    c[e1 + new_len - 3] = 0; /* no new references */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "entry 1 at offset 103: 0 new references");
    memcpy(c, img.data, img.len);
    wr_u16le(c + e1 + new_len - 2, 1024);
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "new bucket 1024 out of range");
    memcpy(c, img.data, img.len);
    memcpy(c + e1 + 1, c + ENTRY0 + 1, 8); /* the new entry repeats the tried address */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "address 1.2.3.4:8333 listed twice");
    memcpy(c, img.data, img.len);
    c[e1 + 1 + 8 + 8 + 24 + 4] = 7; /* source network id 7 */
    fix_checksum(c, img.len);
    expect_refusal(c, img.len, RC_CORRUPT, "source (network 7, 4 bytes) malformed");
    /* Two references to one bucket. */
    memcpy(c, img.data, img.len - 32);
    c[e1 + new_len - 3] = 2;
    memcpy(c + e1 + new_len, c + e1 + new_len - 2, 2);
    fix_checksum(c, img.len + 2);
    expect_refusal(c, img.len + 2, RC_CORRUPT, "out of range or order");
    free(c);

    /* Through the file layer: an intact former file loads (and says so); a damaged one no
     * longer looks like one, and Core's reader refuses it (format 1, compat 0). */
    path_in_tmp(path, sizeof(path), "old.dat");
    FILE *f = fopen(path, "wb");
    fwrite(img.data, 1, img.len, f);
    fclose(f);
    am = addrman_new(1);
    int old = 0;
    CHECK_EQ_INT(addrman_load(am, &old, path, magic, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(old, 1);
    CHECK_EQ_INT(addrman_size(am, -1, -1), 2);
    CHECK_EQ_INT(addrman_size(am, -1, 0), 1);
    addrman_free(am);
    path_in_tmp(path, sizeof(path), "bad.dat");
    f = fopen(path, "wb");
    fwrite(img.data, 1, img.len - 7, f);
    fclose(f);
    am = addrman_new(1);
    CHECK_EQ_INT(addrman_load(am, &old, path, magic, err, sizeof(err)), RC_CORRUPT);
    CHECK_EQ_INT(old, 0);
    CHECK(strstr(err, "The compat value (0) is lower than the expected minimum value 32.") != NULL);
    CHECK_EQ_INT(addrman_size(am, -1, -1), 0);
    addrman_free(am);
    unlink(path);
    buf_clear(&img);
}

/* ---- Core's format ---- */

/* Core's peers.dat header (as feature_addrman.py writes one) up to and including the bucket
 * count, which is XORed with 2^30 from format 1 on. */
static void core_header(struct buf *b, int format, int compat, uint8_t key0, int32_t n_new,
                        int32_t n_tried, int32_t n_buckets)
{
    buf_append(b, magic, 4);
    buf_put_u8(b, (uint8_t)format);
    buf_put_u8(b, (uint8_t)compat);
    buf_put_u8(b, key0); /* ser_uint256(key0): little-endian */
    buf_append_fill(b, 0, 31);
    buf_put_u32le(b, (uint32_t)n_new);
    buf_put_u32le(b, (uint32_t)n_tried);
    buf_put_u32le(b, (uint32_t)(format >= 1 ? n_buckets ^ (1 << 30) : n_buckets));
}

/* One AddrInfo in V2_DISK form, byte by byte: version word 220000 | 2^29, time, services
 * (CompactSize), BIP155 address, big-endian port, source, last success, attempts. */
static void core_info_v2(struct buf *b, uint8_t net, const uint8_t *addr, uint8_t len,
                         uint16_t port, const uint8_t src4[4], int64_t last_success,
                         int32_t attempts)
{
    static const uint8_t version[4] = {0x60, 0x5b, 0x03, 0x20};
    buf_append(b, version, 4);
    buf_put_u32le(b, (uint32_t)NOW);
    buf_put_u8(b, 9); /* NODE_NETWORK | NODE_WITNESS */
    buf_put_u8(b, net);
    buf_put_u8(b, len);
    buf_append(b, addr, len);
    buf_put_u8(b, (uint8_t)(port >> 8));
    buf_put_u8(b, (uint8_t)port);
    buf_put_u8(b, BIP155_IPV4);
    buf_put_u8(b, 4);
    buf_append(b, src4, 4);
    buf_put_u64le(b, (uint64_t)last_success);
    buf_put_u32le(b, (uint32_t)attempts);
}

static void core_finish(struct buf *b, int with_asmap)
{
    if (with_asmap) {
        buf_append_fill(b, 0, 32);
    }
    uint8_t sum[32];
    hash_sha256d(sum, b->data, b->len);
    buf_append(b, sum, 32);
}

/* feature_addrman.py's file: format 1, no entries, 1024 empty buckets. */
static void core_empty(struct buf *b, int format, int compat, uint8_t key0, int32_t n_new,
                       int32_t n_tried)
{
    buf_reset(b);
    core_header(b, format, compat, key0, n_new, n_tried, 1024);
    buf_append_fill(b, 0, 4 * 1024);
    core_finish(b, format >= 2);
}

static void expect_core_refusal(const struct buf *b, int rc, const char *want)
{
    expect_refusal_in(0, b->data, b->len, rc, want);
}

/* Every refusal of Core's reader, in Core's words (feature_addrman.py checks these). */
static void test_core_refusals(void)
{
    struct buf b;
    buf_init(&b);
    core_empty(&b, 1, 32 + 4, 1, 0, 0);
    struct addrman *am = addrman_new(5);
    char err[256] = "";
    CHECK_EQ_INT(addrman_deserialize(am, NULL, b.data, b.len, magic, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(addrman_size(am, -1, -1), 0);
    uint8_t key[32];
    addrman_get_key(am, key);
    CHECK_EQ_INT(key[0], 1);
    addrman_free(am);

    core_empty(&b, 1, 0, 1, 0, 0);
    expect_core_refusal(&b, RC_CORRUPT,
                        "Corrupted addrman database: The compat value (0) is lower than the "
                        "expected minimum value 32.: iostream error");
    core_empty(&b, 1, 32 + 111, 1, 0, 0);
    expect_core_refusal(&b, RC_INVALID, "Unsupported format of addrman database: 1. It is "
                                        "compatible with formats >=111");
    core_empty(&b, 1, 36, 1, 0, 0);
    b.len--;
    expect_core_refusal(&b, RC_CORRUPT, "AutoFile::read: end of file: iostream error");
    core_empty(&b, 1, 36, 1, 0, 0);
    b.data[0] = 0x0a; /* signet's first byte */
    expect_core_refusal(&b, RC_CORRUPT, "Invalid network magic number");
    core_empty(&b, 1, 36, 1, 0, 0);
    b.data[b.len - 1] ^= 1;
    expect_core_refusal(&b, RC_CORRUPT, "Checksum mismatch, data corrupted");
    core_empty(&b, 1, 36, 1, 0, -1);
    expect_core_refusal(&b, RC_CORRUPT, "Corrupt AddrMan serialization: nTried=-1, should be in "
                                        "[0, 16384]: iostream error");
    core_empty(&b, 1, 36, 1, 0, 16385);
    expect_core_refusal(&b, RC_CORRUPT, "nTried=16385, should be in [0, 16384]");
    core_empty(&b, 1, 36, 1, -1, 0);
    expect_core_refusal(&b, RC_CORRUPT, "Corrupt AddrMan serialization: nNew=-1, should be in "
                                        "[0, 65536]: iostream error");
    core_empty(&b, 1, 36, 1, 65537, 0);
    expect_core_refusal(&b, RC_CORRUPT, "nNew=65537, should be in [0, 65536]");
    core_empty(&b, 1, 36, 0, 0, 0);
    expect_core_refusal(&b, RC_CORRUPT,
                        "Corrupt data. Consistency check failed with code -16: iostream error");
    /* The consistency check comes before the checksum, as in Core. */
    b.data[b.len - 1] ^= 1;
    expect_core_refusal(&b, RC_CORRUPT, "code -16");
    core_empty(&b, 4, 36, 1, 0, 0);
    b.len -= 40; /* the asmap version cut */
    core_finish(&b, 0);
    expect_core_refusal(&b, RC_CORRUPT, "AutoFile::read: end of file");
    expect_refusal_in(0, b.data, 3, RC_CORRUPT, "AutoFile::read: end of file");

    /* Entries: one new entry in bucket 5 of a format 4 file, then each damage. */
    static const uint8_t a4[4] = {1, 2, 3, 4}, src4[4] = {5, 6, 7, 8};
    struct {
        uint8_t net, len;
        const char *want;
        int rc;
    } cases[] = {
        {BIP155_IPV4, 5, "BIP155 IPv4 address with length 5 (should be 4): iostream error", 0},
        {BIP155_IPV6, 4, "BIP155 IPv6 address with length 4 (should be 16)", 0},
        {BIP155_TORV3, 4, "BIP155 TORv3 address with length 4 (should be 32)", 0},
        {BIP155_I2P, 4, "BIP155 I2P address with length 4 (should be 32)", 0},
        {BIP155_CJDNS, 4, "BIP155 CJDNS address with length 4 (should be 16)", 0},
    };
    uint8_t addr[64];
    memset(addr, 0x21, sizeof(addr));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        buf_reset(&b);
        core_header(&b, 4, 36, 1, 1, 0, 1024);
        core_info_v2(&b, cases[i].net, addr, cases[i].len, 8333, src4, 0, 0);
        buf_append_fill(&b, 0, 4 * 1024);
        core_finish(&b, 1);
        expect_core_refusal(&b, RC_CORRUPT, cases[i].want);
    }
    /* An address field over 512 bytes; a CompactSize in a longer form than needed. */
    buf_reset(&b);
    core_header(&b, 4, 36, 1, 1, 0, 1024);
    core_info_v2(&b, BIP155_IPV4, a4, 4, 8333, src4, 0, 0);
    size_t net_at = 4 + 2 + 32 + 12 + 4 + 4 + 1;
    b.data[net_at + 1] = 253;
    CHECK_EQ_INT(b.data[net_at], BIP155_IPV4);
    uint8_t big[3] = {253, 0x01, 0x02}; /* 513 */
    struct buf c;
    buf_init(&c);
    buf_append(&c, b.data, net_at + 1);
    buf_append(&c, big, 3);
    core_finish(&c, 0);
    expect_core_refusal(&c, RC_CORRUPT, "Address too long: 513 > 512: iostream error");
    buf_reset(&c);
    buf_append(&c, b.data, net_at + 1);
    uint8_t noncanon[3] = {253, 4, 0};
    buf_append(&c, noncanon, 3);
    core_finish(&c, 0);
    expect_core_refusal(&c, RC_CORRUPT, "non-canonical ReadCompactSize(): iostream error");
    /* A CAddress version word with other high bits. */
    buf_reset(&c);
    buf_append(&c, b.data, 50);
    buf_put_u32le(&c, 0x40000000u);
    core_finish(&c, 0);
    expect_core_refusal(&c, RC_CORRUPT, "Unsupported CAddress disk format version: iostream");
    buf_clear(&c);
    buf_clear(&b);
}

/* A Core image by hand: what loads, where, and what is dropped as Core drops it. */
static void test_core_image(void)
{
    static const uint8_t src4[4] = {5, 6, 7, 8}, zero4[4] = {0, 0, 0, 0};
    static const uint8_t n1[4] = {9, 8, 7, 6}, n2[4] = {10, 0, 0, 1}, t1[4] = {1, 2, 3, 4};
    uint8_t unknown[7] = {1, 2, 3, 4, 5, 6, 7};
    struct buf b;
    buf_init(&b);
    /* new: 9.8.7.6 (buckets 3 and 700, and 3 again), 10.0.0.1 (private: dropped), an
     * address of network 42 (skipped by Core); tried: 1.2.3.4, then 9.8.7.6's twin
     * 1.2.3.4 again (its slot is taken: lost). */
    core_header(&b, 4, 36, 7, 3, 2, 1024);
    core_info_v2(&b, BIP155_IPV4, n1, 4, 8333, src4, 0, 3);
    core_info_v2(&b, BIP155_IPV4, n2, 4, 8333, src4, 0, 0);
    core_info_v2(&b, 42, unknown, 7, 8333, zero4, 0, 0);
    core_info_v2(&b, BIP155_IPV4, t1, 4, 18444, src4, NOW - HOUR, 0);
    core_info_v2(&b, BIP155_IPV4, t1, 4, 18444, src4, NOW - HOUR, 0);
    for (int bucket = 0; bucket < 1024; bucket++) {
        if (bucket == 3) {
            buf_put_u32le(&b, 4);
            buf_put_u32le(&b, 0);
            buf_put_u32le(&b, 1);
            buf_put_u32le(&b, 2);
            buf_put_u32le(&b, 77); /* no such entry: skipped */
        } else if (bucket == 700) {
            buf_put_u32le(&b, 1);
            buf_put_u32le(&b, 0);
        } else {
            buf_put_u32le(&b, 0);
        }
    }
    core_finish(&b, 1);
    struct addrman *am = addrman_new(6);
    char err[256] = "";
    CHECK_EQ_INT(addrman_deserialize(am, NULL, b.data, b.len, magic, err, sizeof(err)), RC_OK);
    CHECK(consistent(am));
    CHECK_EQ_INT(addrman_size(am, -1, -1), 2);
    struct addrman_info info;
    struct net_addr a = ip4(9, 8, 7, 6, 8333);
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.in_tried, 0);
    CHECK_EQ_INT(info.ref_count, 2);
    CHECK_EQ_INT(info.bucket, 3);
    CHECK_EQ_INT(info.attempts, 3);
    CHECK_EQ_INT(info.services, 9);
    CHECK_EQ_INT(info.time, NOW);
    CHECK_EQ_INT(info.last_try, 0);
    CHECK(net_addr_same_ip(&info.source, &(struct net_addr){BIP155_IPV4, 4, {5, 6, 7, 8}, 0}));
    a = ip4(1, 2, 3, 4, 18444);
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.in_tried, 1);
    CHECK_EQ_INT(info.last_success, NOW - HOUR);

    /* Written back and read again: the same state, and format 4's bytes. */
    struct buf out, out2;
    buf_init(&out);
    buf_init(&out2);
    addrman_serialize(am, &out, magic);
    CHECK_EQ_INT(out.data[4], 4);
    CHECK_EQ_INT(out.data[5], 36);
    CHECK_EQ_INT(rd_u32le(out.data + 38), 1);                 /* nNew */
    CHECK_EQ_INT(rd_u32le(out.data + 42), 1);                 /* nTried */
    CHECK_EQ_INT(rd_u32le(out.data + 46), 1024u ^ (1u << 30)); /* buckets */
    struct addrman *back = addrman_new(8);
    CHECK_EQ_INT(addrman_deserialize(back, NULL, out.data, out.len, magic, err, sizeof(err)),
                 RC_OK);
    addrman_serialize(back, &out2, magic);
    CHECK(out.len == out2.len && memcmp(out.data, out2.data, out.len) == 0);
    addrman_free(back);
    addrman_free(am);

    /* Another bucket count (or an asmap): each entry goes to its source's bucket instead. */
    b.data[46] ^= 1; /* 1025 buckets: the loader reads one more list */
    b.len -= 64;
    buf_put_u32le(&b, 0);
    core_finish(&b, 1);
    struct addrman *rb = addrman_new(6);
    CHECK_EQ_INT(addrman_deserialize(rb, NULL, b.data, b.len, magic, err, sizeof(err)), RC_OK);
    a = ip4(9, 8, 7, 6, 8333);
    CHECK_EQ_INT(addrman_find(rb, &info, &a), RC_OK);
    CHECK_EQ_INT(info.ref_count, 1);
    CHECK_EQ_INT(info.bucket, addrman_new_bucket(rb, &a, &(struct net_addr){BIP155_IPV4, 4,
                                                                            {5, 6, 7, 8}, 0}));
    CHECK(consistent(rb));
    addrman_free(rb);

    /* Core's consistency codes a file can reach. */
    struct {
        int32_t tried_success, dup;
        const char *want;
    } bad[] = {
        {0, 0, "Consistency check failed with code -1:"},  /* tried, never successful */
        {-5, 0, "Consistency check failed with code -8:"}, /* negative last success */
        {NOW, 1, "Consistency check failed with code -5:"}, /* a new entry is the tried one */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        buf_reset(&b);
        core_header(&b, 4, 36, 7, 1, 1, 1024);
        core_info_v2(&b, BIP155_IPV4, bad[i].dup ? t1 : n1, 4, 8333, src4, 0, 0);
        core_info_v2(&b, BIP155_IPV4, t1, 4, 8333, src4, bad[i].tried_success, 0);
        buf_put_u32le(&b, 1);
        buf_put_u32le(&b, 0);
        buf_append_fill(&b, 0, 4 * 1023);
        core_finish(&b, 1);
        expect_core_refusal(&b, RC_CORRUPT, bad[i].want);
    }

    /* Format 1: legacy addresses (16 bytes, IPv4 mapped), u64 services, no asmap. */
    buf_reset(&b);
    core_header(&b, 1, 33, 7, 1, 0, 1024);
    buf_put_u32le(&b, 220000); /* no ADDRV2 bit */
    buf_put_u32le(&b, (uint32_t)NOW);
    buf_put_u64le(&b, 1);
    static const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 9, 8, 7, 6};
    buf_append(&b, mapped, 16);
    buf_put_u8(&b, 0x20);
    buf_put_u8(&b, 0x8d); /* 8333 */
    buf_append(&b, mapped, 16); /* source */
    buf_put_u64le(&b, 0);
    buf_put_u32le(&b, 0);
    buf_put_u32le(&b, 1);
    buf_put_u32le(&b, 0);
    buf_append_fill(&b, 0, 4 * 1023);
    core_finish(&b, 0);
    am = addrman_new(6);
    int old = 1;
    CHECK_EQ_INT(addrman_deserialize(am, &old, b.data, b.len, magic, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(old, 0);
    a = ip4(9, 8, 7, 6, 8333);
    CHECK_EQ_INT(addrman_find(am, &info, &a), RC_OK);
    CHECK_EQ_INT(info.bucket, 0);
    CHECK_EQ_INT(info.services, 1);
    addrman_free(am);
    buf_clear(&out);
    buf_clear(&out2);
    buf_clear(&b);
}

/* anchors.dat: the round trip, Core's bytes, and every way a file is refused. */
static void test_anchors(void)
{
    struct addrman_addr v[2];
    memset(v, 0, sizeof(v));
    v[0].addr = ip4(127, 0, 0, 1, 0x3d0e);
    v[0].time = 100000000;
    v[1].addr = keyed_addr(BIP155_TORV3, 0x79, 0x11);
    v[1].services = 9;
    v[1].time = NOW;
    struct buf b;
    buf_init(&b);
    anchors_serialize(&b, magic, v, 2);
    /* magic, count, then the first CAddress: version, time, services, net, length, ip,
     * port (big-endian), as feature_anchors.py reads it. */
    CHECK_EQ_INT(b.data[4], 2);
    CHECK_EQ_INT(rd_u32le(b.data + 5), 220000u | (1u << 29));
    CHECK_EQ_INT(rd_u32le(b.data + 9), 100000000);
    CHECK_EQ_INT(b.data[13], 0);
    static const uint8_t tail[9] = {1, 4, 127, 0, 0, 1, 0x3d, 0x0e, 0x60};
    CHECK_EQ_MEM(b.data + 14, tail, 9);
    CHECK_EQ_INT(b.len, 4 + 1 + (4 + 4 + 1 + 1 + 1 + 4 + 2) + (4 + 4 + 1 + 1 + 1 + 32 + 2) + 32);
    struct addrman_addr *got = NULL;
    size_t n = 0;
    char err[256] = "";
    CHECK_EQ_INT(anchors_deserialize(&got, &n, b.data, b.len, magic, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(n, 2);
    CHECK(n == 2 && net_addr_same_ip(&got[1].addr, &v[1].addr) && got[1].addr.port == 8333 &&
          got[1].services == 9 && got[1].time == NOW && got[0].addr.port == 0x3d0e);
    free(got);

    /* Damage: a byte put in (feature_anchors.py), a flipped bit, another magic, cut short. */
    struct buf c;
    buf_init(&c);
    buf_append(&c, b.data, 20);
    buf_put_u8(&c, '1');
    buf_append(&c, b.data + 20, b.len - 20);
    CHECK(anchors_deserialize(&got, &n, c.data, c.len, magic, err, sizeof(err)) == RC_CORRUPT);
    CHECK(got == NULL && n == 0);
    buf_reset(&c);
    buf_append(&c, b.data, b.len);
    c.data[30] ^= 4;
    CHECK_EQ_INT(anchors_deserialize(&got, &n, c.data, c.len, magic, err, sizeof(err)),
                 RC_CORRUPT);
    CHECK(strstr(err, "Checksum mismatch, data corrupted") != NULL);
    c.data[30] ^= 4;
    c.data[0] ^= 1;
    CHECK_EQ_INT(anchors_deserialize(&got, &n, c.data, c.len, magic, err, sizeof(err)),
                 RC_CORRUPT);
    CHECK(strstr(err, "Invalid network magic number") != NULL);
    CHECK_EQ_INT(anchors_deserialize(&got, &n, b.data, b.len - 1, magic, err, sizeof(err)),
                 RC_CORRUPT);
    CHECK(strstr(err, "end of file") != NULL);

    /* Through the file: read once, then gone; a missing file is no anchors. */
    char path[128];
    path_in_tmp(path, sizeof(path), "anchors.dat");
    CHECK_EQ_INT(anchors_save(path, magic, v, 2, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(anchors_load(&got, &n, path, magic, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(n, 2);
    free(got);
    CHECK(access(path, F_OK) != 0);
    CHECK_EQ_INT(anchors_load(&got, &n, path, magic, err, sizeof(err)), RC_NOT_FOUND);
    FILE *f = fopen(path, "wb");
    fwrite(c.data, 1, c.len, f);
    fclose(f);
    CHECK_EQ_INT(anchors_load(&got, &n, path, magic, err, sizeof(err)), RC_CORRUPT);
    CHECK(got == NULL && n == 0 && access(path, F_OK) != 0);
    /* None to write is a file too (Core writes an empty list). */
    buf_reset(&b);
    anchors_serialize(&b, magic, NULL, 0);
    CHECK_EQ_INT(b.len, 4 + 1 + 32);
    CHECK_EQ_INT(anchors_deserialize(&got, &n, b.data, b.len, magic, err, sizeof(err)), RC_OK);
    CHECK(got == NULL && n == 0);
    buf_clear(&c);
    buf_clear(&b);
}

static void test_load_fuzz(void)
{
    test_rng_state = 4242;
    struct addrman *src = populated(41, 300);
    struct buf img;
    buf_init(&img);
    addrman_serialize(src, &img, magic);
    addrman_free(src);
    struct addrman *am = addrman_new(43);
    add1(am, ip4(8, 8, 4, 4, 53), ip4(1, 1, 1, 1, 1), NOW);
    uint8_t *c = malloc(img.len + 16);
    int accepted = 0, refused = 0, must_refuse = 0, ok = 1;
    for (int iter = 0; iter < 3000; iter++) {
        size_t len = img.len;
        memcpy(c, img.data, len);
        uint64_t r = trand();
        int repaired_flips = r % 4 == 2;
        must_refuse += !repaired_flips;
        switch (r % 4) {
        case 0: /* truncated */
            len = (size_t)(trand() % len);
            break;
        case 1: /* bit flips, checksum left wrong */
            for (int k = 0; k < 1 + (int)((r >> 8) % 4); k++) {
                c[trand() % len] ^= (uint8_t)(1u << (trand() % 8));
            }
            break;
        case 2: /* bit flips with the checksum repaired: the parser must catch them */
            for (int k = 0; k < 1 + (int)((r >> 8) % 3); k++) {
                c[8 + trand() % (len - 40)] ^= (uint8_t)(1u << (trand() % 8));
            }
            fix_checksum(c, len);
            break;
        default: /* truncated entries with a repaired checksum */
            len = 80 + (size_t)(trand() % (len - 80));
            fix_checksum(c, len);
            break;
        }
        size_t before = addrman_size(am, -1, -1);
        char err[256] = "";
        int rc = addrman_deserialize(am, NULL, c, len, magic, err, sizeof(err));
        if (rc == RC_OK) {
            /* Only a repaired flip can pass: of a value (services, a time, an address byte
             * or port) into another consistent one. */
            accepted++;
            ok &= repaired_flips;
            ok &= consistent(am);
        } else {
            refused++;
            ok &= (rc == RC_CORRUPT || rc == RC_INVALID) && err[0] != 0;
            ok &= addrman_size(am, -1, -1) == before;
        }
    }
    CHECK(ok);
    CHECK(refused >= must_refuse);
    CHECK(refused > must_refuse); /* some repaired flips are caught by the checks */
    printf("# fuzz: %d accepted, %d refused (%d without a valid checksum or cut short)\n", accepted,
           refused, must_refuse);
    CHECK(consistent(am));
    free(c);
    buf_clear(&img);
    addrman_free(am);
}

static void test_random_invariants(void)
{
    test_rng_state = 7;
    struct addrman *am = addrman_new(51);
    int ok = 1;
    int64_t now = NOW;
    struct net_addr recent[64];
    memset(recent, 0, sizeof(recent));
    for (int i = 0; i < 10000; i++) {
        uint64_t r = trand();
        /* A small address space, so that repeats, references and collisions happen. */
        struct net_addr a = ip4(1 + (int)(r % 40), (int)((r >> 8) % 4), (int)((r >> 16) % 8),
                                1 + (int)((r >> 24) % 30), 8333);
        struct net_addr src = ip4(100 + (int)((r >> 32) % 20), (int)((r >> 40) % 3), 1, 1, 1);
        struct addrman_addr g = gossip(a, now - (int64_t)((r >> 44) % (35 * DAY)));
        size_t n = 0;
        ok &= addrman_add(am, &n, &g, 1, &src, (int64_t)(r % 2) * 2 * HOUR, now) == RC_OK;
        recent[i % 64] = a;
        struct net_addr pick = recent[(r >> 50) % 64];
        switch ((r >> 56) % 8) {
        case 0:
            addrman_good(am, NULL, &pick, now);
            break;
        case 1:
            addrman_attempt(am, &pick, 1, now);
            break;
        case 2:
            addrman_connected(am, &pick, now);
            break;
        case 3: {
            struct addrman_addr out;
            if (addrman_select(am, &out, NULL, (int)(r & 1), 0, now) == RC_OK) {
                struct addrman_info info;
                ok &= addrman_find(am, &info, &out.addr) == RC_OK;
                ok &= !addrman_is_terrible(&info, now);
            }
            break;
        }
        case 4: {
            struct addrman_addr *list;
            size_t k;
            addrman_get_addr(am, &list, &k, 23, 23, -1, now);
            ok &= k <= 23;
            free(list);
            break;
        }
        default:
            break;
        }
        now += (int64_t)(r % 600);
        if (i % 1000 == 999) {
            ok &= consistent(am);
        }
    }
    ok &= addrman_size(am, -1, 1) <= ADDRMAN_NEW_BUCKET_COUNT * ADDRMAN_BUCKET_SIZE;
    ok &= addrman_size(am, -1, -1) == addrman_size(am, -1, 0) + addrman_size(am, -1, 1);
    ok &= addrman_size(am, -1, 0) > 0 && addrman_size(am, -1, 1) > 0;
    /* Save and load the result too. */
    struct buf b;
    buf_init(&b);
    addrman_serialize(am, &b, magic);
    struct addrman *copy = addrman_new(52);
    char err[256] = "";
    ok &= addrman_deserialize(copy, NULL, b.data, b.len, magic, err, sizeof(err)) == RC_OK;
    ok &= consistent(copy);
    ok &= addrman_size(copy, -1, -1) == addrman_size(am, -1, -1);
    printf("# after 10000 operations: %zu new, %zu tried\n", addrman_size(am, -1, 1),
           addrman_size(am, -1, 0));
    CHECK(ok);
    buf_clear(&b);
    addrman_free(copy);
    addrman_free(am);
}

int main(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/addrman_tests.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory\n");
        return 1;
    }
    TEST(test_netgroup);
    TEST(test_unroutable_never_added);
    TEST(test_add_select);
    TEST(test_time_penalty);
    TEST(test_good_attempt_connected);
    TEST(test_get_entries);
    TEST(test_placement_core);
    TEST(test_bucket_spread);
    TEST(test_bucket_capacity);
    TEST(test_terrible);
    TEST(test_select_tables);
    TEST(test_get_addr);
    TEST(test_tried_collision);
    TEST(test_save_load_roundtrip);
    TEST(test_legacy_load_refusals);
    TEST(test_core_refusals);
    TEST(test_core_image);
    TEST(test_anchors);
    TEST(test_load_fuzz);
    TEST(test_random_invariants);
    rmdir(tmpdir);
    return test_done();
}
