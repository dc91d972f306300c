/* net/protocol and net/netaddr: frames, payload codecs and their bounds, addresses and
 * subnets as Core prints them, permission strings. */
#include <stdlib.h>
#include <string.h>

#include "consensus/params.h"
#include "consensus/pow.h"
#include "crypto/hash.h"
#include "net/evict.h"
#include "net/headerssync.h"
#include "net/net.h"
#include "net/netaddr.h"
#include "net/protocol.h"
#include "net/socks5.h"
#include "net/timeoffsets.h"
#include "primitives/serialize.h"
#include "test.h"
#include "util/hex.h"
#include "util/rc.h"

static const uint8_t regtest_magic[4] = {0xfa, 0xbf, 0xb5, 0xda};

static void test_frame_roundtrip(void)
{
    struct buf f;
    buf_init(&f);
    const uint8_t payload[] = {1, 2, 3, 4, 5, 6, 7, 8};
    net_frame_build(&f, regtest_magic, "ping", payload, sizeof(payload));
    CHECK_EQ_INT(f.len, 24 + 8);
    struct net_msg_header h;
    char err[160];
    CHECK_EQ_INT(net_header_parse(f.data, regtest_magic, &h, err, sizeof(err)), RC_OK);
    CHECK_EQ_STR(h.command, "ping");
    CHECK_EQ_INT(h.len, 8);
    CHECK(net_checksum_ok(&h, f.data + 24, 8));
    f.data[24] ^= 1;
    CHECK(!net_checksum_ok(&h, f.data + 24, 8));
    /* The empty payload's checksum is sha256d("")'s first bytes: 5df6e0e2. */
    buf_reset(&f);
    net_frame_build(&f, regtest_magic, "verack", NULL, 0);
    CHECK_EQ_INT(f.len, 24);
    const uint8_t want[4] = {0x5d, 0xf6, 0xe0, 0xe2};
    CHECK_EQ_MEM(f.data + 20, want, 4);
    buf_clear(&f);
}

static void test_frame_rejects(void)
{
    uint8_t raw[24] = {0};
    struct net_msg_header h;
    char err[160];
    memcpy(raw, regtest_magic, 4);
    memcpy(raw + 4, "block", 5);
    wr_u32le(raw + 16, 4000000);
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_OK);
    wr_u32le(raw + 16, 4000001);
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_TOO_LARGE);
    CHECK(strstr(err, "Size too large (block, 4000001 bytes)") != NULL);
    wr_u32le(raw + 16, 32u << 20);
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_TOO_LARGE);
    wr_u32le(raw + 16, 0);
    raw[0] = 0xf9; /* mainnet's magic */
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "Wrong MessageStart") != NULL);
    raw[0] = 0xfa;
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_OK);
    CHECK(h.type_valid);
    CHECK_EQ_STR(h.command, "block");
    /* Invalid types are read and then dropped, as Core's: the header still decodes. */
    raw[4 + 6] = 'x'; /* a byte after the NUL padding began */
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_OK);
    CHECK(!h.type_valid);
    CHECK_EQ_STR(h.command, "block");
    raw[4 + 6] = 0;
    raw[4 + 2] = 0x01; /* not printable: left out of the name shown, as SanitizeString */
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_OK);
    CHECK(!h.type_valid);
    CHECK_EQ_STR(h.command, "blck");
}

static void test_version_roundtrip(void)
{
    struct net_version v, w;
    memset(&v, 0, sizeof(v));
    v.version = 70016;
    v.services = NODE_NETWORK | NODE_WITNESS;
    v.time = 1700000000;
    v.addr_recv.port = 18444;
    v.addr_recv.ip[10] = v.addr_recv.ip[11] = 0xff;
    v.addr_recv.ip[12] = 127;
    v.addr_recv.ip[15] = 1;
    v.nonce = 0x1122334455667788ull;
    strcpy(v.user_agent, "/bitnode:0.1.0/");
    v.start_height = 438;
    v.relay = 0;
    struct buf b;
    buf_init(&b);
    net_version_serialize(&b, &v);
    CHECK_EQ_INT(b.len, 4 + 8 + 8 + 26 + 26 + 8 + 1 + 15 + 4 + 1);
    char err[160];
    CHECK_EQ_INT(net_version_parse(b.data, b.len, &w, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(w.version, 70016);
    CHECK_EQ_U64(w.nonce, v.nonce);
    CHECK_EQ_STR(w.user_agent, "/bitnode:0.1.0/");
    CHECK_EQ_INT(w.start_height, 438);
    CHECK_EQ_INT(w.relay, 0);
    CHECK_EQ_INT(w.addr_recv.port, 18444);
    /* Without the relay byte: relay is 1 (BIP37). Cut after the nonce: still fine. */
    CHECK_EQ_INT(net_version_parse(b.data, b.len - 1, &w, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(w.relay, 1);
    CHECK_EQ_INT(net_version_parse(b.data, 80, &w, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(net_version_parse(b.data, 50, &w, err, sizeof(err)), RC_TRUNCATED);
    /* A 257-byte user agent. */
    buf_reset(&b);
    char ua[258];
    memset(ua, 'a', 257);
    ua[257] = 0;
    memcpy(v.user_agent, ua, 256);
    v.user_agent[256] = 0;
    net_version_serialize(&b, &v);
    CHECK_EQ_INT(net_version_parse(b.data, b.len, &w, err, sizeof(err)), RC_OK);
    b.data[80] = 0xfd; /* length 257 as a 3-byte compact size */
    uint8_t fix[3] = {0xfd, 0x01, 0x01};
    struct buf c;
    buf_init(&c);
    buf_append(&c, b.data, 80);
    buf_append(&c, fix, 3);
    buf_append(&c, (const uint8_t *)ua, 257);
    buf_put_u32le(&c, 1);
    CHECK_EQ_INT(net_version_parse(c.data, c.len, &w, err, sizeof(err)), RC_TOO_LARGE);
    buf_clear(&b);
    buf_clear(&c);
}

static void test_inv_and_locator(void)
{
    struct net_inv in[3];
    for (int i = 0; i < 3; i++) {
        in[i].type = INV_WITNESS_BLOCK;
        memset(in[i].hash, i + 1, 32);
    }
    struct buf b;
    buf_init(&b);
    net_inv_serialize(&b, in, 3);
    struct net_inv *out = NULL;
    size_t n = 0;
    char err[160];
    CHECK_EQ_INT(net_inv_parse(b.data, b.len, &out, &n, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(out[2].type, INV_WITNESS_BLOCK);
    CHECK_EQ_INT(out[2].hash[0], 3);
    free(out);
    CHECK_EQ_INT(net_inv_parse(b.data, b.len - 1, &out, &n, err, sizeof(err)), RC_TRUNCATED);
    /* A count the message is too short for is malformed; 50001 entries, all there, are too
     * many (read whole first, as Core: its log gives the size), refused before anything is
     * allocated. */
    buf_reset(&b);
    ser_put_compact(&b, 50001);
    CHECK_EQ_INT(net_inv_parse(b.data, b.len, &out, &n, err, sizeof(err)), RC_TRUNCATED);
    buf_append_fill(&b, 0, 50001 * 36);
    CHECK_EQ_INT(net_inv_parse(b.data, b.len, &out, &n, err, sizeof(err)), RC_TOO_LARGE);
    CHECK_EQ_INT(n, 50001);
    CHECK(out == NULL);
    buf_reset(&b);
    ser_put_compact(&b, 50000);
    CHECK_EQ_INT(net_inv_parse(b.data, b.len, &out, &n, err, sizeof(err)), RC_TRUNCATED);

    uint8_t loc[2][32], stop[32], stop2[32];
    memset(loc[0], 0xaa, 32);
    memset(loc[1], 0xbb, 32);
    memset(stop, 0, 32);
    buf_reset(&b);
    net_locator_serialize(&b, 70016, (const uint8_t(*)[32])loc, 2, stop);
    uint8_t(*h)[32] = NULL;
    CHECK_EQ_INT(net_locator_parse(b.data, b.len, &h, &n, stop2, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_MEM(h[1], loc[1], 32);
    free(h);
    buf_reset(&b);
    buf_put_u32le(&b, 70016);
    ser_put_compact(&b, 102);
    CHECK_EQ_INT(net_locator_parse(b.data, b.len, &h, &n, stop2, err, sizeof(err)), RC_TRUNCATED);
    buf_append_fill(&b, 0, 103 * 32);
    CHECK_EQ_INT(net_locator_parse(b.data, b.len, &h, &n, stop2, err, sizeof(err)), RC_TOO_LARGE);
    CHECK_EQ_INT(n, 102);
    buf_clear(&b);
}

static void test_headers(void)
{
    uint8_t raw[3 * 80];
    for (int i = 0; i < 3 * 80; i++) {
        raw[i] = (uint8_t)i;
    }
    struct buf b;
    buf_init(&b);
    net_headers_serialize(&b, raw, 3);
    CHECK_EQ_INT(b.len, 1 + 3 * 81);
    uint8_t *out = NULL;
    size_t n = 0;
    char err[160];
    CHECK_EQ_INT(net_headers_parse(b.data, b.len, &out, &n, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_MEM(out, raw, sizeof(raw));
    free(out);
    CHECK_EQ_INT(net_headers_parse(b.data, b.len - 1, &out, &n, err, sizeof(err)), RC_TRUNCATED);
    buf_reset(&b);
    ser_put_compact(&b, 2001);
    CHECK_EQ_INT(net_headers_parse(b.data, b.len, &out, &n, err, sizeof(err)), RC_TOO_LARGE);
    CHECK_EQ_INT(n, 2001);
    CHECK_EQ_STR(err, "headers message size = 2001");
    buf_clear(&b);
}

static void test_addr_messages(void)
{
    struct net_addr_msg_entry a[2];
    memset(a, 0, sizeof(a));
    a[0].time = 1;
    a[0].services = NODE_NETWORK;
    a[0].net = BIP155_IPV4;
    a[0].len = 4;
    memcpy(a[0].addr, (uint8_t[]){1, 2, 3, 4}, 4);
    a[0].port = 8333;
    a[1].net = BIP155_IPV6;
    a[1].len = 16;
    a[1].addr[0] = 0x20;
    a[1].addr[1] = 0x01;
    a[1].port = 18444;
    for (int v2 = 0; v2 < 2; v2++) {
        struct buf b;
        buf_init(&b);
        net_addrmsg_serialize(&b, v2, a, 2);
        struct net_addr_msg_entry *out = NULL;
        size_t n = 0;
        char err[160];
        CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, v2, &out, &n, err, sizeof(err)), RC_OK);
        CHECK_EQ_INT(n, 2);
        CHECK_EQ_INT(out[0].net, BIP155_IPV4);
        CHECK_EQ_INT(out[0].port, 8333);
        CHECK_EQ_MEM(out[0].addr, a[0].addr, 4);
        CHECK_EQ_INT(out[1].net, BIP155_IPV6);
        free(out);
        buf_clear(&b);
    }
    /* addrv2: an unknown network id is skipped, an address over 512 bytes refused. */
    struct buf b;
    buf_init(&b);
    ser_put_compact(&b, 1);
    buf_put_u32le(&b, 0);
    ser_put_compact(&b, 0);
    buf_put_u8(&b, 99);
    ser_put_compact(&b, 3);
    buf_append(&b, (const uint8_t *)"abc", 3);
    buf_put_u16le(&b, 0);
    struct net_addr_msg_entry *out = NULL;
    size_t n = 9;
    char err[160];
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 1, &out, &n, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(n, 0);
    free(out);
    buf_reset(&b);
    ser_put_compact(&b, 1);
    buf_put_u32le(&b, 0);
    ser_put_compact(&b, 0);
    buf_put_u8(&b, 1);
    ser_put_compact(&b, 513);
    buf_append_fill(&b, 0, 515);
    /* Core's deserializer throws: the message is dropped (no punishment), same words. */
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 1, &out, &n, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Address too long: 513 > 512");
    buf_reset(&b);
    ser_put_compact(&b, 1);
    buf_put_u32le(&b, 0);
    ser_put_compact(&b, 0);
    buf_put_u8(&b, 1);
    ser_put_compact(&b, 5);
    buf_append_fill(&b, 0, 7);
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 1, &out, &n, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "BIP155 IPv4 address with length 5 (should be 4)");
    /* Tor v2 (id 3) is a network Core no longer knows: skipped whatever its length. */
    buf_reset(&b);
    ser_put_compact(&b, 1);
    buf_put_u32le(&b, 0);
    ser_put_compact(&b, 0);
    buf_put_u8(&b, BIP155_TORV2);
    ser_put_compact(&b, 5);
    buf_append_fill(&b, 0, 7);
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 1, &out, &n, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(n, 0);
    free(out);
    buf_reset(&b);
    ser_put_compact(&b, 1001);
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 0, &out, &n, err, sizeof(err)), RC_TRUNCATED);
    buf_append_fill(&b, 0, 1001 * 30);
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 0, &out, &n, err, sizeof(err)), RC_TOO_LARGE);
    CHECK_EQ_INT(n, 1001);
    buf_clear(&b);
}

static void test_addresses(void)
{
    struct net_addr a;
    char s[NET_ADDR_STR_LEN], err[160];
    CHECK_EQ_INT(net_addr_parse("127.0.0.1", 18444, 0, &a, err, sizeof(err)), RC_OK);
    net_addr_format(&a, 1, s);
    CHECK_EQ_STR(s, "127.0.0.1:18444");
    CHECK(net_addr_is_local(&a));
    CHECK(!net_addr_is_routable(&a));
    CHECK_EQ_INT(net_addr_parse("[::1]:1234", 18444, 0, &a, err, sizeof(err)), RC_OK);
    net_addr_format(&a, 1, s);
    CHECK_EQ_STR(s, "[::1]:1234");
    CHECK_EQ_INT(net_addr_parse("::ffff:1.2.3.4", 8333, 0, &a, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(a.net, BIP155_IPV4);
    net_addr_format(&a, 0, s);
    CHECK_EQ_STR(s, "1.2.3.4");
    CHECK(net_addr_is_routable(&a));
    CHECK_EQ_STR(net_network_name(net_addr_network(&a)), "ipv4");
    CHECK_EQ_INT(net_addr_parse("1.2.3.4:0", 8333, 0, &a, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_INT(net_addr_parse("1.2.3.4:70000", 8333, 0, &a, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_INT(net_addr_parse("nonsense", 8333, 0, &a, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_INT(net_addr_parse("10.1.2.3", 8333, 0, &a, err, sizeof(err)), RC_OK);
    CHECK(!net_addr_is_routable(&a));
    struct sockaddr_storage ss;
    socklen_t len;
    struct net_addr b;
    CHECK_EQ_INT(net_addr_parse("[2001:db9::5]:99", 1, 0, &a, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(net_addr_to_sockaddr(&a, &ss, &len), RC_OK);
    CHECK_EQ_INT(net_addr_from_sockaddr((struct sockaddr *)&ss, &b), RC_OK);
    CHECK(net_addr_same_ip(&a, &b));
    CHECK_EQ_INT(b.port, 99);
}

/* Tor v3 names as Core reads and prints them: the key, two checksum bytes (SHA3-256) and the
 * version; a name whose checksum or version is wrong is not one. */
static void test_onion_addresses(void)
{
    const char *name = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion";
    char in[128], text[NET_ADDR_STR_LEN], err[128];
    struct net_addr a;
    snprintf(in, sizeof(in), "%s:8333", name);
    CHECK_EQ_INT(net_addr_parse(in, 18444, 0, &a, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(a.net, BIP155_TORV3);
    CHECK_EQ_INT(a.len, 32);
    CHECK_EQ_INT(a.port, 8333);
    CHECK_EQ_INT(a.addr[0], 0x79); /* 'p' 'g' ... : 01111 00110 */
    net_addr_format(&a, 1, text);
    CHECK_EQ_STR(text, in);
    /* Upper case reads too (Core lower-cases the name). */
    for (size_t i = 0; in[i]; i++) {
        in[i] = (char)(in[i] >= 'a' && in[i] <= 'z' ? in[i] - 32 : in[i]);
    }
    CHECK_EQ_INT(net_addr_parse(in, 18444, 0, &a, err, sizeof(err)), RC_OK);
    /* One character off breaks the checksum; a short name is no onion. */
    snprintf(in, sizeof(in), "%s", name);
    in[3] = in[3] == 'a' ? 'b' : 'a';
    CHECK_EQ_INT(net_addr_parse(in, 18444, 0, &a, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_INT(net_addr_parse("abc.onion", 18444, 0, &a, err, sizeof(err)), RC_INVALID);
}

static void test_subnets(void)
{
    struct net_subnet sn;
    struct net_addr a;
    char s[NET_ADDR_STR_LEN];
    CHECK_EQ_INT(net_subnet_parse("127.0.0.1", &sn), RC_OK);
    net_subnet_format(&sn, s);
    CHECK_EQ_STR(s, "127.0.0.1/32");
    CHECK_EQ_INT(net_subnet_parse("10.1.2.3/8", &sn), RC_OK);
    net_subnet_format(&sn, s);
    CHECK_EQ_STR(s, "10.0.0.0/8");
    net_addr_parse("10.200.0.1", 1, 0, &a, NULL, 0);
    CHECK(net_subnet_match(&sn, &a));
    net_addr_parse("11.0.0.1", 1, 0, &a, NULL, 0);
    CHECK(!net_subnet_match(&sn, &a));
    CHECK_EQ_INT(net_subnet_parse("192.168.0.0/255.255.0.0", &sn), RC_OK);
    net_subnet_format(&sn, s);
    CHECK_EQ_STR(s, "192.168.0.0/16");
    /* Core refuses a mask that is not contiguous, and the unspecified address. */
    CHECK_EQ_INT(net_subnet_parse("1.2.3.4/255.0.255.0", &sn), RC_INVALID);
    CHECK_EQ_INT(net_subnet_parse("0.0.0.0", &sn), RC_INVALID);
    CHECK_EQ_INT(net_subnet_parse("::", &sn), RC_INVALID);
    CHECK_EQ_INT(net_subnet_parse("[::1]", &sn), RC_OK);
    net_subnet_format(&sn, s);
    CHECK_EQ_STR(s, "::1/128");
    CHECK_EQ_INT(net_subnet_parse("::1", &sn), RC_OK);
    net_subnet_format(&sn, s);
    CHECK_EQ_STR(s, "::1/128");
    CHECK_EQ_INT(net_subnet_parse("1.2.3.4/33", &sn), RC_INVALID);
    CHECK_EQ_INT(net_subnet_parse("1.2.3.4/", &sn), RC_INVALID);
    CHECK_EQ_INT(net_subnet_parse("abc", &sn), RC_INVALID);
}

static void test_permissions(void)
{
    uint32_t perms;
    const char *rest;
    char err[160];
    CHECK_EQ_INT(net_permissions_parse("127.0.0.1", &perms, NULL, &rest, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(perms, NET_PERM_IMPLICIT);
    CHECK_EQ_STR(rest, "127.0.0.1");
    CHECK_EQ_INT(net_permissions_parse("noban,relay@1.2.3.4", &perms, NULL, &rest, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(perms, NET_PERM_NOBAN | NET_PERM_RELAY);
    CHECK_EQ_STR(rest, "1.2.3.4");
    const char *names[8];
    size_t k = net_permission_names(perms, names, 8);
    CHECK_EQ_INT(k, 3);
    CHECK_EQ_STR(names[0], "noban");
    CHECK_EQ_STR(names[1], "relay");
    CHECK_EQ_STR(names[2], "download");
    CHECK_EQ_INT(net_permissions_parse("bogus@1.2.3.4", &perms, NULL, &rest, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Invalid P2P permission: 'bogus'");
    /* Directions (-whitelist only). */
    unsigned dirs;
    CHECK_EQ_INT(net_permissions_parse("noban@1.2.3.4", &perms, &dirs, &rest, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(dirs, NET_DIR_IN);
    CHECK_EQ_INT(net_permissions_parse("noban,out@1.2.3.4", &perms, &dirs, &rest, err,
                                       sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(dirs, NET_DIR_OUT);
    CHECK_EQ_INT(perms, NET_PERM_NOBAN);
    CHECK_EQ_INT(net_permissions_parse("in,out@1.2.3.4", &perms, &dirs, &rest, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Only direction was set, no permissions: 'in,out@1.2.3.4'");
    CHECK_EQ_INT(net_permissions_parse("noban,out@1.2.3.4", &perms, NULL, &rest, err,
                                       sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "whitebind may only be used for incoming connections (\"out\" was passed)");
    CHECK_EQ_INT(net_permissions_parse("bloom@1.2.3.4", &perms, NULL, &rest, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(perms, NET_PERM_BLOOMFILTER);
}

/* A chain of n regtest headers on prev (no proof of work: the pre-sync leaves that to its
 * caller); tag makes chains differ. Caller frees. */
static uint8_t *make_chain(const uint8_t prev32[32], size_t n, uint8_t tag)
{
    uint8_t *raw = malloc(n * 80);
    uint8_t prev[32];
    memcpy(prev, prev32, 32);
    for (size_t i = 0; i < n; i++) {
        uint8_t *h = raw + i * 80;
        memset(h, 0, 80);
        wr_u32le(h, 0x20000000);
        memcpy(h + 4, prev, 32);
        h[36] = tag;
        wr_u32le(h + 37, (uint32_t)i);
        wr_u32le(h + 68, 1296688602u + (uint32_t)i);
        wr_u32le(h + 72, 0x207fffff);
        hash_sha256d(prev, h, 80);
    }
    return raw;
}

/* The work of n regtest blocks past genesis, plus genesis'. */
static void regtest_work(struct u256 *w, size_t n)
{
    struct u256 one;
    pow_block_proof(&one, 0x207fffff);
    u256_set_u64(w, 0);
    for (size_t i = 0; i <= n; i++) {
        u256_add(w, w, &one);
    }
}

static struct headerssync_start regtest_start(const struct chain_params *p)
{
    struct headerssync_start st;
    memcpy(st.hash, p->genesis_hash, 32);
    st.height = 0;
    st.bits = 0x207fffff;
    regtest_work(&st.chain_work, 0);
    st.mtp = 1296688602;
    return st;
}

/* Feeds chain (n headers) in messages of 2000 and returns the last result. With rel NULL
 * (the pre-sync pass) it stops once the state turns to redownloading; else the released
 * headers are appended to rel. */
static int feed(struct headerssync *h, const uint8_t *chain, size_t n, struct buf *rel, int *more)
{
    int rc = HSYNC_OK;
    char err[160];
    for (size_t off = 0; off < n; off += 2000) {
        size_t k = n - off < 2000 ? n - off : 2000;
        uint8_t *out = NULL;
        size_t nout = 0;
        rc = headerssync_process(h, chain + off * 80, k, k == 2000, &out, &nout, more, err,
                                 sizeof(err));
        if (rel && nout) {
            buf_append(rel, out, nout * 80);
        }
        free(out);
        if (rc != HSYNC_OK || (!rel && headerssync_state(h) == HSYNC_REDOWNLOAD)) {
            break;
        }
    }
    return rc;
}

static void test_headerssync_presync_then_redownload(void)
{
    const struct chain_params *p = chain_params_get("regtest");
    struct headerssync_start st = regtest_start(p);
    uint8_t *chain = make_chain(st.hash, 5000, 1);
    struct u256 min;
    regtest_work(&min, 4500);
    struct headerssync *h = headerssync_new(p, &st, &min, 1296688602 + 86400 * 365);
    int more = 0;
    CHECK_EQ_INT(feed(h, chain, 5000, NULL, &more), HSYNC_OK);
    CHECK_EQ_INT(headerssync_state(h), HSYNC_REDOWNLOAD);
    CHECK_EQ_INT(more, 1);
    CHECK_EQ_INT(headerssync_presync_height(h), 4500);
    /* The locator restarts at the chain start. */
    uint8_t(*loc)[32];
    size_t k = headerssync_locator(h, &loc);
    CHECK_EQ_INT(k, 1);
    CHECK_EQ_MEM(loc[0], st.hash, 32);
    free(loc);
    /* The same chain again: every header is released, in order, none before the work is
     * shown again. */
    struct buf rel;
    buf_init(&rel);
    char err[160];
    uint8_t *out = NULL;
    size_t nout = 0;
    CHECK_EQ_INT(headerssync_process(h, chain, 2000, 1, &out, &nout, &more, err, sizeof(err)),
                 HSYNC_OK);
    CHECK_EQ_INT(nout, 0);
    CHECK_EQ_INT(more, 1);
    free(out);
    CHECK_EQ_INT(feed(h, chain + 2000 * 80, 3000, &rel, &more), HSYNC_OK);
    CHECK_EQ_INT(rel.len, 3000 * 80 + 2000 * 80);
    CHECK_EQ_MEM(rel.data, chain, 5000 * 80);
    CHECK_EQ_INT(headerssync_state(h), HSYNC_DONE);
    buf_clear(&rel);
    headerssync_free(h);
    free(chain);
}

static void test_headerssync_refusals(void)
{
    const struct chain_params *p = chain_params_get("regtest");
    struct headerssync_start st = regtest_start(p);
    struct u256 min;
    char err[160];
    int more;
    uint8_t *out;
    size_t nout;
    /* A chain that ends before the work: dropped, not a misbehaviour. */
    uint8_t *chain = make_chain(st.hash, 3000, 2);
    regtest_work(&min, 4000);
    struct headerssync *h = headerssync_new(p, &st, &min, 1296688602 + 86400 * 365);
    CHECK_EQ_INT(feed(h, chain, 3000, NULL, &more), HSYNC_LOW_WORK);
    headerssync_free(h);
    /* Headers that do not follow each other. */
    h = headerssync_new(p, &st, &min, 1296688602 + 86400 * 365);
    CHECK_EQ_INT(headerssync_process(h, chain + 80, 2000, 1, &out, &nout, &more, err, sizeof(err)),
                 HSYNC_MISBEHAVED);
    CHECK(strstr(err, "non-continuous") != NULL);
    headerssync_free(h);
    free(chain);
    /* A different chain served the second time: a commitment does not match (one bit per
     * 600 headers, 60 of them here: a miss is a 2^-60 chance). */
    chain = make_chain(st.hash, 36000, 3);
    uint8_t *other = make_chain(st.hash, 36000, 4);
    regtest_work(&min, 36000);
    h = headerssync_new(p, &st, &min, 1296688602 + 86400 * 365);
    CHECK_EQ_INT(feed(h, chain, 36000, NULL, &more), HSYNC_OK);
    CHECK_EQ_INT(headerssync_state(h), HSYNC_REDOWNLOAD);
    struct buf rel;
    buf_init(&rel);
    int rc = feed(h, other, 36000, &rel, &more);
    CHECK_EQ_INT(rc, HSYNC_MISBEHAVED);
    /* What was released before the mismatch was at most what the buffer lets go. */
    CHECK(rel.len / 80 <= 36000 - NET_HSYNC_REDOWNLOAD_BUFFER);
    buf_clear(&rel);
    headerssync_free(h);
    free(other);
    /* More headers than the chain's age allows: now is the start's time, so at most
     * 6 * 7200 s of headers (72 commitments) may come. */
    regtest_work(&min, 60000);
    h = headerssync_new(p, &st, &min, st.mtp);
    rc = feed(h, chain, 36000, NULL, &more);
    if (rc == HSYNC_OK) {
        uint8_t last[32];
        hash_sha256d(last, chain + 35999 * 80, 80);
        uint8_t *rest = make_chain(last, 20000, 5);
        rc = feed(h, rest, 20000, NULL, &more);
        free(rest);
    }
    CHECK_EQ_INT(rc, HSYNC_MISBEHAVED);
    headerssync_free(h);
    free(chain);
}

static void test_socks5(void)
{
    struct socks5 s;
    struct buf out;
    char err[160];
    buf_init(&out);
    /* No credentials: one method; a numeric IPv4 destination. */
    socks5_begin(&s, "127.0.0.1", 18444, NULL, NULL, &out);
    CHECK_EQ_MEM(out.data, ((uint8_t[]){5, 1, 0}), 3);
    buf_reset(&out);
    CHECK_EQ_INT(socks5_read(&s, (const uint8_t *)"\x05", 1, &out, err, sizeof(err)), 0);
    CHECK_EQ_INT(socks5_read(&s, (const uint8_t *)"\x05\x00", 2, &out, err, sizeof(err)), 2);
    CHECK_EQ_INT(s.step, SOCKS5_CONNECT);
    CHECK_EQ_MEM(out.data, ((uint8_t[]){5, 1, 0, 1, 127, 0, 0, 1, 0x48, 0x0c}), 10);
    buf_reset(&out);
    const uint8_t ok[] = {5, 0, 0, 1, 127, 0, 0, 1, 0, 0, 0xf9, 0xbe};
    CHECK_EQ_INT(socks5_read(&s, ok, 9, &out, err, sizeof(err)), 0);
    CHECK_EQ_INT(socks5_read(&s, ok, sizeof(ok), &out, err, sizeof(err)), 10);
    CHECK_EQ_INT(s.step, SOCKS5_DONE);
    /* Credentials (Tor stream isolation), a name resolved by the proxy. */
    buf_reset(&out);
    socks5_begin(&s, "abc.onion", 8333, "u1", "p22", &out);
    CHECK_EQ_MEM(out.data, ((uint8_t[]){5, 2, 0, 2}), 4);
    buf_reset(&out);
    CHECK_EQ_INT(socks5_read(&s, (const uint8_t *)"\x05\x02", 2, &out, err, sizeof(err)), 2);
    CHECK_EQ_MEM(out.data, ((uint8_t[]){1, 2, 'u', '1', 3, 'p', '2', '2'}), 8);
    buf_reset(&out);
    CHECK_EQ_INT(socks5_read(&s, (const uint8_t *)"\x01\x00", 2, &out, err, sizeof(err)), 2);
    CHECK_EQ_MEM(
        out.data,
        ((uint8_t[]){5, 1, 0, 3, 9, 'a', 'b', 'c', '.', 'o', 'n', 'i', 'o', 'n', 0x20, 0x8d}), 16);
    /* Refusals, in Core's words. */
    const uint8_t refused[] = {5, 4, 0, 1, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(socks5_read(&s, refused, sizeof(refused), &out, err, sizeof(err)), RC_INVALID);
    CHECK_EQ_STR(err, "Proxy error: host unreachable");
    socks5_begin(&s, "1.2.3.4", 1, "u", "p", &out);
    CHECK_EQ_INT(socks5_read(&s, (const uint8_t *)"\x01\x00", 2, &out, err, sizeof(err)),
                 RC_INVALID);
    socks5_begin(&s, "1.2.3.4", 1, "u", "p", &out);
    socks5_read(&s, (const uint8_t *)"\x05\x02", 2, &out, err, sizeof(err));
    CHECK_EQ_INT(socks5_read(&s, (const uint8_t *)"\x01\x01", 2, &out, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Proxy authentication unsuccessful");
    socks5_begin(&s, "1.2.3.4", 1, NULL, NULL, &out);
    CHECK_EQ_INT(socks5_read(&s, (const uint8_t *)"\x05\xff", 2, &out, err, sizeof(err)),
                 RC_INVALID);
    buf_clear(&out);
}

static void test_eviction(void)
{
    struct evict_candidate c[40];
    /* Few candidates: every one protected. */
    for (int i = 0; i < 20; i++) {
        c[i] = (struct evict_candidate){
            .id = i, .conn_time = 1000 + i, .min_ping_us = -1, .keyed_netgroup = 7};
    }
    CHECK_EQ_INT(evict_select(c, 20), -1);
    /* 40 peers: 30 of one network group, 10 of ten others. The evicted one is of the big
     * group, the youngest of it left unprotected; never a fast, a block-relaying or a
     * long-connected one. */
    for (int i = 0; i < 40; i++) {
        c[i] = (struct evict_candidate){.id = i,
                                        .conn_time = 1000 + i,
                                        .min_ping_us = 5000 + i,
                                        .keyed_netgroup = i < 30 ? 1 : (uint64_t)(100 + i)};
    }
    c[39 - 10].min_ping_us = 10; /* id 29: the youngest of the big group, but fast */
    c[28].last_block = 5000;     /* id 28: gave us a block lately */
    int64_t id = evict_select(c, 40);
    /* Protected: ids 36-39 (rare groups), 29 and 0-6 (fastest), 28 (block), then the older
     * half of the rest by uptime; the youngest of the big group left is 27. */
    CHECK_EQ_INT(id, 27);
}

/* n candidates without ties where a step protects (Core's sort is not stable, so equal
 * ones could go either way): id i connected at 1000 + i; ids 0-3 in the 4 highest network
 * groups, the others in one; min ping 1000 + i, so the fastest 8 left are ids 4-11; no
 * block nor transaction. The fixed steps then keep 0-3, 4-11, 12-15 (transactions: the
 * oldest) and 16-19 (blocks: the oldest), the ratio step the older half of the rest. */
static void eviction_base(struct evict_candidate *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        c[i] = (struct evict_candidate){.id = (int64_t)i,
                                        .conn_time = 1000 + (int64_t)i,
                                        .min_ping_us = 1000 + (int64_t)i,
                                        .keyed_netgroup = i < 4 ? 100 + i : 7,
                                        .relay_txs = 1,
                                        .relevant_services = 1,
                                        .network = NETWORK_IPV4};
    }
}

/* Core's other protections: the block-relay-only peers that gave us blocks (up to 8, beyond
 * the 4 of any kind), the transaction step's order, the disadvantaged networks in the ratio
 * step, the peers preferred for eviction, the biggest group, and the cap on
 * transaction-relaying inbound peers. */
static void test_eviction_core_rules(void)
{
    struct evict_candidate c[64];
    /* One candidate, or as many as the fixed protections take (4+8+4+4): none to evict. */
    eviction_base(c, 1);
    CHECK_EQ_INT(evict_select(c, 1), -1);
    eviction_base(c, 20);
    CHECK_EQ_INT(evict_select(c, 20), -1);
    eviction_base(c, 21);
    CHECK_EQ_INT(evict_select(c, 21), 20);
    eviction_base(c, 40); /* 20-29 kept by uptime: the youngest goes */
    CHECK_EQ_INT(evict_select(c, 40), 39);

    /* 12 block-relay-only peers (no transactions, every wanted service) that gave us blocks:
     * 8 kept by their own step (44-51), 4 by the block step (40-43); then 16-27 by uptime,
     * and the youngest transaction relayer goes. */
    eviction_base(c, 52);
    for (int i = 40; i < 52; i++) {
        c[i].relay_txs = 0;
        c[i].last_block = 2000 + i;
    }
    CHECK_EQ_INT(evict_select(c, 52), 39);
    /* Without every wanted service they are not block-relay-only: only the block step's 4
     * (48-51) are kept, the youngest of the others goes. */
    eviction_base(c, 52);
    for (int i = 40; i < 52; i++) {
        c[i].relay_txs = 0;
        c[i].relevant_services = 0;
        c[i].last_block = 2000 + i;
    }
    CHECK_EQ_INT(evict_select(c, 52), 47);

    /* The transaction step among ties on the last transaction (35-39): a bloom-filter peer, or
     * one that relays no transactions, is the one left out; then it is the youngest left. */
    eviction_base(c, 40);
    for (int i = 35; i < 40; i++) {
        c[i].last_tx = 5000;
    }
    c[35].bloom_filter = 1;
    CHECK_EQ_INT(evict_select(c, 40), 35);
    eviction_base(c, 40);
    for (int i = 35; i < 40; i++) {
        c[i].last_tx = 5000;
    }
    c[35].relay_txs = 0;
    c[35].relevant_services = 0;
    CHECK_EQ_INT(evict_select(c, 40), 35);
    /* With every wanted service, a peer that relays no transactions is kept by the
     * block-relay-only step even before it gave us a block (Core's order puts it last). */
    eviction_base(c, 40);
    for (int i = 35; i < 40; i++) {
        c[i].last_tx = 5000;
    }
    c[35].relay_txs = 0;
    CHECK_EQ_INT(evict_select(c, 40), 34);

    /* The ratio step: 20 left after the fixed steps, 10 kept, up to 5 of them for
     * disadvantaged networks. The 3 youngest are onion peers: kept, and 7 by uptime; the next
     * youngest goes. Localhost the same (a flag, whatever the network). */
    eviction_base(c, 40);
    for (int i = 37; i < 40; i++) {
        c[i].network = NETWORK_ONION;
    }
    CHECK_EQ_INT(evict_select(c, 40), 36);
    eviction_base(c, 40);
    for (int i = 37; i < 40; i++) {
        c[i].local = 1;
    }
    CHECK_EQ_INT(evict_select(c, 40), 36);
    /* Only half of the kept half: of 12 I2P peers in a group of their own (28-39), the 5
     * oldest are kept (28-32), then 5 by uptime (20-24): 7 I2P peers are left against 3
     * (25-27) of the other group, so the youngest I2P one goes (with all 10 kept for their
     * network it would be 27). */
    eviction_base(c, 40);
    for (int i = 28; i < 40; i++) {
        c[i].network = NETWORK_I2P;
        c[i].keyed_netgroup = 9;
    }
    CHECK_EQ_INT(evict_select(c, 40), 39);

    /* A peer accepted while discouraged goes first, even alone in its group; unless it is
     * protected. */
    eviction_base(c, 40);
    c[30].prefer_evict = 1;
    c[30].keyed_netgroup = 3;
    CHECK_EQ_INT(evict_select(c, 40), 30);
    eviction_base(c, 40);
    c[5].prefer_evict = 1;
    CHECK_EQ_INT(evict_select(c, 40), 39);

    /* Of two groups left (30-39), the bigger one's youngest: 39 is of the smaller. */
    eviction_base(c, 40);
    for (int i = 30; i < 40; i += 3) {
        c[i].keyed_netgroup = 5;
    }
    CHECK_EQ_INT(evict_select(c, 40), 38);

    /* Core's m_max_inbound_full_relay (its double arithmetic: 29% of 100 is 28). */
    CHECK_EQ_INT(evict_max_inbound_tx_relay(42, 50), 21);
    CHECK_EQ_INT(evict_max_inbound_tx_relay(2, 50), 1);
    CHECK_EQ_INT(evict_max_inbound_tx_relay(2, 0), 0);
    CHECK_EQ_INT(evict_max_inbound_tx_relay(2, 100), 2);
    CHECK_EQ_INT(evict_max_inbound_tx_relay(2, 150), 2);
    CHECK_EQ_INT(evict_max_inbound_tx_relay(2, -5), 0);
    CHECK_EQ_INT(evict_max_inbound_tx_relay(100, 29), 28);
    CHECK_EQ_INT(evict_max_inbound_tx_relay(0, 50), 0);
}

/* Tor v3 onion names: parsed with their checksum, printed back the same, a flipped character
 * or a wrong version refused; an onion host is a ban "subnet" of one, printed bare. */
/* IPv4 in inet_aton's short forms, as getaddrinfo's numeric parse (Core's) reads it. */
static void test_ipv4_short_forms(void)
{
    struct net_addr a, b;
    char err[160];
    CHECK_EQ_INT(net_addr_parse("127.1:8333", 1, 0, &a, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(net_addr_parse("127.0.0.1:8333", 1, 0, &b, err, sizeof(err)), RC_OK);
    CHECK(net_addr_same_ip(&a, &b) && a.port == b.port);
    CHECK(net_addr_parse("127.1.2.3.4", 1, 0, &a, err, sizeof(err)) != RC_OK);
}

static void test_onion_names(void)
{
    const char *name = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion";
    struct net_addr a;
    char err[160], out[NET_ADDR_STR_LEN];
    CHECK_EQ_INT(net_addr_parse(name, 8333, 0, &a, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(a.net, BIP155_TORV3);
    CHECK_EQ_INT(a.len, 32);
    CHECK_EQ_INT(a.port, 8333);
    CHECK_EQ_INT(net_addr_network(&a), NETWORK_ONION);
    net_addr_format(&a, 0, out);
    CHECK_EQ_STR(out, name);
    net_addr_format(&a, 1, out);
    CHECK_EQ_STR(out, "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion:8333");
    CHECK_EQ_INT(net_addr_parse("PG6MMJIYJMCRSSLVYKFWNNTLARU7P5SVN6Y2YMMJU6NUBXNDF4PSCRYD.onion:9",
                                8333, 0, &a, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(a.port, 9);
    /* One character changed: the checksum no longer matches. */
    CHECK(net_addr_parse("pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscrye.onion", 8333, 0, &a,
                         err, sizeof(err)) != RC_OK);
    CHECK(net_addr_parse("pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscry.onion", 8333, 0, &a,
                         err, sizeof(err)) != RC_OK);
    struct net_subnet sn;
    CHECK_EQ_INT(net_subnet_parse(name, &sn), RC_OK);
    net_subnet_format(&sn, out);
    CHECK_EQ_STR(out, name);
    CHECK_EQ_INT(net_addr_parse(name, 8333, 0, &a, err, sizeof(err)), RC_OK);
    CHECK(net_subnet_match(&sn, &a));
    struct net_subnet masked;
    CHECK(net_subnet_parse("pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion/8",
                           &masked) != RC_OK);
}

/* Core's timeoffsets_tests: no median below five samples, the upper median, the last 50
 * kept, the warning past 10 minutes either way and cleared when it comes back. */
static void test_time_offsets(void)
{
    struct timeoffsets t = {0};
    for (int i = 0; i < 4; i++) {
        timeoffsets_add(&t, 3600);
    }
    CHECK_EQ_INT((int)timeoffsets_median(&t), 0);
    CHECK(!timeoffsets_out_of_sync(&t));
    timeoffsets_add(&t, 3600);
    CHECK_EQ_INT((int)timeoffsets_median(&t), 3600);
    CHECK(timeoffsets_out_of_sync(&t));
    struct timeoffsets u = {0};
    const int64_t v[] = {-5, 100, 3, -700, 2, 9}; /* sorted: -700 -5 2 3 9 100 */
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        timeoffsets_add(&u, v[i]);
    }
    CHECK_EQ_INT((int)timeoffsets_median(&u), 3);
    CHECK(!timeoffsets_out_of_sync(&u));
    /* Exactly 10 minutes is in sync; a second more is not; behind counts the same. */
    struct timeoffsets w = {0};
    for (int i = 0; i < 5; i++) {
        timeoffsets_add(&w, -600);
    }
    CHECK(!timeoffsets_out_of_sync(&w));
    for (int i = 0; i < 6; i++) { /* the upper median of 11: the sixth, -601 */
        timeoffsets_add(&w, -601);
    }
    CHECK(timeoffsets_out_of_sync(&w));
    /* 50 kept: 50 in-sync samples push out every skewed one. */
    for (int i = 0; i < TIMEOFFSETS_MAX; i++) {
        timeoffsets_add(&t, 1);
    }
    CHECK_EQ_INT((int)t.n, TIMEOFFSETS_MAX);
    CHECK_EQ_INT((int)timeoffsets_median(&t), 1);
    CHECK(!timeoffsets_out_of_sync(&t));
    timeoffsets_add(&w, INT64_MIN);
    CHECK(timeoffsets_out_of_sync(&w));
    char msg[600];
    timeoffsets_warning(msg, sizeof(msg));
    CHECK(strncmp(msg, "Your computer's date and time appear to be more than 10 minutes out of "
                       "sync with the network, this may lead to consensus failure.", 120) == 0);
    CHECK(strstr(msg, "`getnetworkinfo` RPC methods to get more info.") != NULL);
}

int main(void)
{
    TEST(test_time_offsets);
    TEST(test_frame_roundtrip);
    TEST(test_onion_addresses);
    TEST(test_frame_rejects);
    TEST(test_version_roundtrip);
    TEST(test_inv_and_locator);
    TEST(test_headers);
    TEST(test_addr_messages);
    TEST(test_addresses);
    TEST(test_onion_names);
    TEST(test_ipv4_short_forms);
    TEST(test_subnets);
    TEST(test_permissions);
    TEST(test_headerssync_presync_then_redownload);
    TEST(test_headerssync_refusals);
    TEST(test_socks5);
    TEST(test_eviction);
    TEST(test_eviction_core_rules);
    return test_done();
}
