/* Network addresses and subnets (netaddr.h). */
#include "net/netaddr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crypto/hash.h"
#include "util/rc.h"

static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* "what: 's'" into err. */
static int fail(char *err, size_t err_len, const char *what, const char *arg)
{
    if (err && err_len) {
        snprintf(err, err_len, "%s: '%s'", what, arg);
    }
    return RC_INVALID;
}

void net_addr_from_ip16(const uint8_t ip16[16], uint16_t port, struct net_addr *out)
{
    memset(out, 0, sizeof(*out));
    out->port = port;
    if (memcmp(ip16, v4_mapped, 12) == 0) {
        out->net = BIP155_IPV4;
        out->len = 4;
        memcpy(out->addr, ip16 + 12, 4);
    } else {
        out->net = BIP155_IPV6;
        out->len = 16;
        memcpy(out->addr, ip16, 16);
    }
}

void net_addr_to_ip16(const struct net_addr *a, uint8_t ip16[16])
{
    memset(ip16, 0, 16);
    if (a->net == BIP155_IPV4) {
        memcpy(ip16, v4_mapped, 12);
        memcpy(ip16 + 12, a->addr, 4);
    } else if (a->net == BIP155_IPV6) {
        memcpy(ip16, a->addr, 16);
    }
}

int net_addr_from_sockaddr(const struct sockaddr *sa, struct net_addr *out)
{
    memset(out, 0, sizeof(*out));
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
        out->net = BIP155_IPV4;
        out->len = 4;
        memcpy(out->addr, &s4->sin_addr, 4);
        out->port = ntohs(s4->sin_port);
        return RC_OK;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
        net_addr_from_ip16(s6->sin6_addr.s6_addr, ntohs(s6->sin6_port), out);
        return RC_OK;
    }
    return RC_INVALID;
}

int net_addr_to_sockaddr(const struct net_addr *a, struct sockaddr_storage *ss, socklen_t *len)
{
    memset(ss, 0, sizeof(*ss));
    if (a->net == BIP155_IPV4) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
        s4->sin_family = AF_INET;
        memcpy(&s4->sin_addr, a->addr, 4);
        s4->sin_port = htons(a->port);
        *len = sizeof(*s4);
        return RC_OK;
    }
    if (a->net == BIP155_IPV6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        memcpy(&s6->sin6_addr, a->addr, 16);
        s6->sin6_port = htons(a->port);
        *len = sizeof(*s6);
        return RC_OK;
    }
    return RC_INVALID;
}

/* Splits "host:port" / "[v6]:port" / "v6" into host and port text (port_s "" if none). */
static int split_host_port(const char *s, char *host, size_t host_len, char *port_s,
                           size_t port_len)
{
    port_s[0] = 0;
    size_t n = strlen(s);
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || (size_t)(close - s - 1) >= host_len) {
            return RC_INVALID;
        }
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = 0;
        if (close[1] == ':') {
            snprintf(port_s, port_len, "%s", close + 2);
            if (!port_s[0]) {
                return RC_INVALID;
            }
        } else if (close[1]) {
            return RC_INVALID;
        }
        return RC_OK;
    }
    const char *colon = strrchr(s, ':');
    if (colon && strchr(s, ':') == colon) { /* exactly one colon: host:port */
        if ((size_t)(colon - s) >= host_len) {
            return RC_INVALID;
        }
        memcpy(host, s, (size_t)(colon - s));
        host[colon - s] = 0;
        snprintf(port_s, port_len, "%s", colon + 1);
        if (!port_s[0]) {
            return RC_INVALID;
        }
        return RC_OK;
    }
    if (n >= host_len) {
        return RC_INVALID;
    }
    memcpy(host, s, n + 1); /* no port (an IPv6 address has several colons) */
    return RC_OK;
}

static int parse_onion(const char *host, struct net_addr *out);

int net_addr_parse(const char *s, uint16_t default_port, int allow_lookup, struct net_addr *out,
                   char *err, size_t err_len)
{
    char host[256], port_s[16];
    memset(out, 0, sizeof(*out));
    if (split_host_port(s, host, sizeof(host), port_s, sizeof(port_s)) != RC_OK || !host[0]) {
        return fail(err, err_len, "Invalid address", s);
    }
    uint16_t port = default_port;
    if (port_s[0]) {
        char *end = NULL;
        long v = strtol(port_s, &end, 10);
        if (*end || v <= 0 || v > 65535) {
            return fail(err, err_len, "Invalid port specified in", s);
        }
        port = (uint16_t)v;
    }
    uint8_t b[16];
    struct in_addr v4;
    /* Numeric IPv4 as getaddrinfo's AI_NUMERICHOST (Core's LookupHost) reads it: inet_aton's
     * forms too ("127.1" is 127.0.0.1). */
    if (inet_pton(AF_INET, host, b) == 1 || inet_aton(host, &v4) == 1) {
        if (inet_pton(AF_INET, host, b) != 1) {
            memcpy(b, &v4.s_addr, 4);
        }
        out->net = BIP155_IPV4;
        out->len = 4;
        memcpy(out->addr, b, 4);
        out->port = port;
        return RC_OK;
    }
    if (inet_pton(AF_INET6, host, b) == 1) {
        net_addr_from_ip16(b, port, out);
        return RC_OK;
    }
    if (parse_onion(host, out) == RC_OK) {
        out->port = port;
        return RC_OK;
    }
    if (!allow_lookup) {
        return fail(err, err_len, "Invalid address", s);
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res) {
        return fail(err, err_len, "Cannot resolve", s);
    }
    int rc = net_addr_from_sockaddr(res->ai_addr, out);
    freeaddrinfo(res);
    if (rc != RC_OK) {
        return fail(err, err_len, "Cannot resolve", s);
    }
    out->port = port;
    return RC_OK;
}

/* Tor v3 (rend-spec-v3): an onion name is base32(key || checksum || 0x03), the checksum the
 * first 2 bytes of SHA3-256(".onion checksum" || key || 0x03). */
static void onion_checksum(const uint8_t key[32], uint8_t out[2])
{
    uint8_t buf[15 + 32 + 1], h[32];
    memcpy(buf, ".onion checksum", 15);
    memcpy(buf + 15, key, 32);
    buf[47] = 3;
    hash_sha3_256(h, buf, sizeof(buf));
    memcpy(out, h, 2);
}

/* n base32 characters (RFC 4648, any case, no padding) into raw (*k bytes). RC_INVALID for a
 * character outside the alphabet or leftover bits that are not zero. */
static int unbase32(const char *s, size_t n, uint8_t *raw, size_t *k)
{
    uint32_t acc = 0;
    int bits = 0;
    *k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = (char)tolower((unsigned char)s[i]);
        int v = c >= 'a' && c <= 'z' ? c - 'a' : c >= '2' && c <= '7' ? c - '2' + 26 : -1;
        if (v < 0) {
            return RC_INVALID;
        }
        acc = (acc << 5) | (uint32_t)v;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            raw[(*k)++] = (uint8_t)(acc >> bits);
        }
    }
    return (acc & ((1u << bits) - 1)) == 0 ? RC_OK : RC_INVALID;
}

/* A host that is a Tor v3 onion name (56 base32 characters and ".onion", any case) or an I2P
 * one (52 base32 characters and ".b32.i2p") into out (BIP155_TORV3 or BIP155_I2P, the 32-byte
 * key). RC_INVALID for anything else or a bad onion checksum. */
static int parse_onion(const char *host, struct net_addr *out)
{
    size_t n = strlen(host), k = 0;
    uint8_t raw[35];
    if (n == 52 + 8 && strcasecmp(host + 52, ".b32.i2p") == 0) {
        if (unbase32(host, 52, raw, &k) != RC_OK || k != 32) {
            return RC_INVALID;
        }
        memset(out, 0, sizeof(*out));
        out->net = BIP155_I2P;
        out->len = 32;
        memcpy(out->addr, raw, 32);
        return RC_OK;
    }
    if (n != 56 + 6 || strcasecmp(host + 56, ".onion") != 0) {
        return RC_INVALID;
    }
    if (unbase32(host, 56, raw, &k) != RC_OK) {
        return RC_INVALID;
    }
    uint8_t sum[2];
    onion_checksum(raw, sum);
    if (k != 35 || raw[34] != 3 || memcmp(raw + 32, sum, 2) != 0) {
        return RC_INVALID;
    }
    memset(out, 0, sizeof(*out));
    out->net = BIP155_TORV3;
    out->len = 32;
    memcpy(out->addr, raw, 32);
    return RC_OK;
}

/* Base32 of RFC 4648 in lower case, without padding (onion and i2p names). */
static void base32(const uint8_t *p, size_t n, char *out)
{
    static const char a[] = "abcdefghijklmnopqrstuvwxyz234567";
    uint32_t acc = 0;
    int bits = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << 8) | p[i];
        bits += 8;
        while (bits >= 5) {
            out[k++] = a[(acc >> (bits - 5)) & 31];
            bits -= 5;
        }
    }
    if (bits > 0) {
        out[k++] = a[(acc << (5 - bits)) & 31];
    }
    out[k] = 0;
}

void net_addr_format(const struct net_addr *a, int with_port, char out[NET_ADDR_STR_LEN])
{
    char host[100] = "";
    switch (a->net) {
    case BIP155_IPV4:
        inet_ntop(AF_INET, a->addr, host, sizeof(host));
        break;
    case BIP155_IPV6:
    case BIP155_CJDNS:
        inet_ntop(AF_INET6, a->addr, host, sizeof(host));
        break;
    case BIP155_TORV3: {
        uint8_t raw[35];
        memcpy(raw, a->addr, 32);
        onion_checksum(a->addr, raw + 32);
        raw[34] = 3;
        base32(raw, sizeof(raw), host);
        strcat(host, ".onion");
        break;
    }
    case BIP155_I2P:
        base32(a->addr, 32, host);
        strcat(host, ".b32.i2p");
        break;
    default:
        snprintf(host, sizeof(host), "unknown");
    }
    if (!with_port) {
        snprintf(out, NET_ADDR_STR_LEN, "%s", host);
    } else if (a->net == BIP155_IPV6 || a->net == BIP155_CJDNS) {
        snprintf(out, NET_ADDR_STR_LEN, "[%s]:%u", host, a->port);
    } else {
        snprintf(out, NET_ADDR_STR_LEN, "%s:%u", host, a->port);
    }
}

int net_addr_same_ip(const struct net_addr *a, const struct net_addr *b)
{
    return a->net == b->net && a->len == b->len && memcmp(a->addr, b->addr, a->len) == 0;
}

int net_addr_is_local(const struct net_addr *a)
{
    if (a->net == BIP155_IPV4) {
        return a->addr[0] == 127 ||
               (a->addr[0] == 0 && a->addr[1] == 0 && a->addr[2] == 0 && a->addr[3] == 0);
    }
    if (a->net == BIP155_IPV6) {
        static const uint8_t lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        return memcmp(a->addr, lo, 16) == 0;
    }
    return 0;
}

int net_addr_is_routable(const struct net_addr *a)
{
    const uint8_t *p = a->addr;
    if (net_addr_is_local(a)) {
        return 0;
    }
    if (a->net == BIP155_IPV4) {
        if (p[0] == 10 || (p[0] == 192 && p[1] == 168) || (p[0] == 172 && (p[1] & 0xf0) == 16) ||
            (p[0] == 169 && p[1] == 254) || (p[0] == 100 && (p[1] & 0xc0) == 64) ||
            (p[0] == 198 && (p[1] & 0xfe) == 18) || p[0] == 0 || p[0] >= 224 ||
            (p[0] == 192 && p[1] == 0 && p[2] == 2) || (p[0] == 198 && p[1] == 51 && p[2] == 100) ||
            (p[0] == 203 && p[1] == 0 && p[2] == 113)) {
            return 0;
        }
        return 1;
    }
    if (a->net == BIP155_IPV6) {
        static const uint8_t zero[16] = {0};
        if (memcmp(p, zero, 16) == 0 || (p[0] & 0xfe) == 0xfc ||
            (p[0] == 0xfe && (p[1] & 0xc0) == 0x80) ||
            (p[0] == 0x20 && p[1] == 0x01 && p[2] == 0x0d && p[3] == 0xb8) || p[0] == 0xff) {
            return 0;
        }
        return 1;
    }
    return a->net == BIP155_TORV3 || a->net == BIP155_I2P || a->net == BIP155_CJDNS;
}

int net_addr_network(const struct net_addr *a)
{
    if (!net_addr_is_routable(a)) {
        return NETWORK_UNROUTABLE;
    }
    switch (a->net) {
    case BIP155_IPV4:
        return NETWORK_IPV4;
    case BIP155_IPV6:
        return NETWORK_IPV6;
    case BIP155_TORV3:
        return NETWORK_ONION;
    case BIP155_I2P:
        return NETWORK_I2P;
    case BIP155_CJDNS:
        return NETWORK_CJDNS;
    default:
        return NETWORK_UNROUTABLE;
    }
}

const char *net_network_name(int network)
{
    static const char *names[NETWORK_COUNT] = {
        "not_publicly_routable", "ipv4", "ipv6", "onion", "i2p", "cjdns"};
    return network >= 0 && network < NETWORK_COUNT ? names[network] : "not_publicly_routable";
}

static void apply_mask(struct net_subnet *sn)
{
    for (size_t i = 0; i < sn->base.len; i++) {
        sn->base.addr[i] &= sn->mask[i];
    }
}

int net_subnet_parse(const char *s, struct net_subnet *out)
{
    char host[128];
    memset(out, 0, sizeof(*out));
    const char *slash = strchr(s, '/');
    size_t hl = slash ? (size_t)(slash - s) : strlen(s);
    if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') { /* "[::1]", as Core's LookupHost */
        s++;
        hl -= 2;
    }
    if (hl == 0 || hl >= sizeof(host)) {
        return RC_INVALID;
    }
    memcpy(host, s, hl);
    host[hl] = 0;
    uint8_t b[16];
    if (inet_pton(AF_INET, host, b) == 1) {
        out->base.net = BIP155_IPV4;
        out->base.len = 4;
        memcpy(out->base.addr, b, 4);
    } else if (inet_pton(AF_INET6, host, b) == 1) {
        net_addr_from_ip16(b, 0, &out->base);
    } else if (parse_onion(host, &out->base) == RC_OK) {
        if (slash) {
            return RC_INVALID; /* an onion host is a network of one (Core: no mask) */
        }
    } else {
        return RC_INVALID;
    }
    /* The unspecified address is not a valid network (Core's CNetAddr::IsValid). */
    static const uint8_t zero[32];
    if (memcmp(out->base.addr, zero, out->base.len) == 0) {
        return RC_INVALID;
    }
    size_t len = out->base.len;
    memset(out->mask, 0xff, len);
    if (slash) {
        const char *m = slash + 1;
        char *end = NULL;
        long bits = strtol(m, &end, 10);
        if (*m && !*end && m[0] != '-' && m[0] != '+') {
            if (bits < 0 || (size_t)bits > len * 8) {
                return RC_INVALID;
            }
            memset(out->mask, 0, len);
            for (long i = 0; i < bits; i++) {
                out->mask[i / 8] |= (uint8_t)(0x80 >> (i % 8));
            }
        } else {
            uint8_t mb[16];
            if (len == 4 && inet_pton(AF_INET, m, mb) == 1) {
                memcpy(out->mask, mb, 4);
            } else if (len == 16 && inet_pton(AF_INET6, m, mb) == 1) {
                memcpy(out->mask, mb, 16);
            } else {
                return RC_INVALID;
            }
            /* Only contiguous masks, as Core's CSubNet: ones, then zeros. */
            int seen_zero = 0;
            for (size_t i = 0; i < len * 8; i++) {
                int set = (out->mask[i / 8] >> (7 - i % 8)) & 1;
                if (set && seen_zero) {
                    return RC_INVALID;
                }
                seen_zero |= !set;
            }
        }
    }
    apply_mask(out);
    return RC_OK;
}

int net_subnet_match(const struct net_subnet *sn, const struct net_addr *a)
{
    if (a->net != sn->base.net || a->len != sn->base.len) {
        return 0;
    }
    for (size_t i = 0; i < a->len; i++) {
        if ((a->addr[i] & sn->mask[i]) != sn->base.addr[i]) {
            return 0;
        }
    }
    return 1;
}

void net_subnet_format(const struct net_subnet *sn, char out[NET_ADDR_STR_LEN])
{
    char full[NET_ADDR_STR_LEN], host[64];
    net_addr_format(&sn->base, 0, full);
    if (sn->base.net != BIP155_IPV4 && sn->base.net != BIP155_IPV6) {
        snprintf(out, NET_ADDR_STR_LEN, "%s", full); /* Core: a host without a mask */
        return;
    }
    snprintf(host, sizeof(host), "%.60s", full);
    size_t len = sn->base.len;
    int bits = 0, cidr = 1;
    for (size_t i = 0; i < len * 8; i++) {
        int set = (sn->mask[i / 8] >> (7 - i % 8)) & 1;
        if (set && bits != (int)i) {
            cidr = 0;
        }
        bits += set;
    }
    if (cidr) {
        snprintf(out, NET_ADDR_STR_LEN, "%s/%d", host, bits);
    } else {
        char m[64];
        inet_ntop(len == 4 ? AF_INET : AF_INET6, sn->mask, m, sizeof(m));
        snprintf(out, NET_ADDR_STR_LEN, "%s/%s", host, m);
    }
}

int net_subnet_equal(const struct net_subnet *a, const struct net_subnet *b)
{
    return net_addr_same_ip(&a->base, &b->base) && memcmp(a->mask, b->mask, a->base.len) == 0;
}
