/* net/protocol and net/netaddr: frames, payload codecs and their bounds, addresses and
 * subnets as Core prints them, permission strings. */
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "net/net.h"
#include "net/netaddr.h"
#include "net/protocol.h"
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
    CHECK(strstr(err, "Oversized message") != NULL);
    wr_u32le(raw + 16, 32u << 20);
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_TOO_LARGE);
    wr_u32le(raw + 16, 0);
    raw[0] = 0xf9; /* mainnet's magic */
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_INVALID);
    CHECK(strstr(err, "Wrong MessageStart") != NULL);
    raw[0] = 0xfa;
    raw[4 + 6] = 'x'; /* a byte after the NUL padding began */
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_INVALID);
    raw[4 + 6] = 0;
    raw[4] = 0x01; /* not printable */
    CHECK_EQ_INT(net_header_parse(raw, regtest_magic, &h, err, sizeof(err)), RC_INVALID);
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
    /* A count of 50001 is refused before anything is allocated; so is a count the
     * message is too short for. */
    buf_reset(&b);
    ser_put_compact(&b, 50001);
    CHECK_EQ_INT(net_inv_parse(b.data, b.len, &out, &n, err, sizeof(err)), RC_TOO_LARGE);
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
    CHECK_EQ_INT(net_locator_parse(b.data, b.len, &h, &n, stop2, err, sizeof(err)), RC_TOO_LARGE);
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
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 1, &out, &n, err, sizeof(err)), RC_TOO_LARGE);
    buf_reset(&b);
    ser_put_compact(&b, 1001);
    CHECK_EQ_INT(net_addrmsg_parse(b.data, b.len, 0, &out, &n, err, sizeof(err)), RC_TOO_LARGE);
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
    CHECK_EQ_INT(net_subnet_parse("1.2.3.4/255.0.255.0", &sn), RC_OK);
    net_subnet_format(&sn, s);
    CHECK_EQ_STR(s, "1.0.3.0/255.0.255.0");
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
    CHECK_EQ_INT(net_permissions_parse("127.0.0.1", &perms, &rest, err, sizeof(err)), RC_OK);
    CHECK_EQ_INT(perms, NET_PERM_IMPLICIT);
    CHECK_EQ_STR(rest, "127.0.0.1");
    CHECK_EQ_INT(net_permissions_parse("noban,relay@1.2.3.4", &perms, &rest, err, sizeof(err)),
                 RC_OK);
    CHECK_EQ_INT(perms, NET_PERM_NOBAN | NET_PERM_RELAY);
    CHECK_EQ_STR(rest, "1.2.3.4");
    const char *names[8];
    size_t k = net_permission_names(perms, names, 8);
    CHECK_EQ_INT(k, 3);
    CHECK_EQ_STR(names[0], "noban");
    CHECK_EQ_STR(names[1], "relay");
    CHECK_EQ_STR(names[2], "download");
    CHECK_EQ_INT(net_permissions_parse("bogus@1.2.3.4", &perms, &rest, err, sizeof(err)),
                 RC_INVALID);
    CHECK_EQ_STR(err, "Invalid P2P permission: 'bogus'");
}

int main(void)
{
    TEST(test_frame_roundtrip);
    TEST(test_frame_rejects);
    TEST(test_version_roundtrip);
    TEST(test_inv_and_locator);
    TEST(test_headers);
    TEST(test_addr_messages);
    TEST(test_addresses);
    TEST(test_subnets);
    TEST(test_permissions);
    return test_done();
}
