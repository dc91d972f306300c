/* Network addresses and subnets as Bitcoin Core names and prints them: IPv4, IPv6 (and the
 * BIP155 networks addrv2 carries, kept as bytes), "1.2.3.4:8333", "[::1]:8333", subnets
 * "10.0.0.0/8" for -whitelist, setban and listbanned.
 */
#ifndef BITNODE_NET_NETADDR_H
#define BITNODE_NET_NETADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "net/protocol.h"

#define NET_ADDR_STR_LEN 128

/* Network classes, Core's names: "ipv4", "ipv6", "onion", "i2p", "cjdns". */
enum net_network {
    NETWORK_UNROUTABLE = 0,
    NETWORK_IPV4,
    NETWORK_IPV6,
    NETWORK_ONION,
    NETWORK_I2P,
    NETWORK_CJDNS,
    NETWORK_COUNT
};

struct net_addr {
    uint8_t net;      /* enum net_bip155 (BIP155_IPV4, BIP155_IPV6, ...) */
    uint8_t len;      /* bytes of addr used */
    uint8_t addr[32]; /* IPv4: 4 bytes, IPv6: 16 */
    uint16_t port;    /* host order */
};

/** Parses "host", "host:port", "[v6]", "[v6]:port", "v6" (numeric addresses and Tor v3
 *  names, "<56 base32>.onion" with a good checksum; with allow_lookup also names, resolved
 *  with getaddrinfo: the first address). A missing port
 *  is default_port. 0, or RC_INVALID with err ("Invalid port", "Cannot resolve"). */
int net_addr_parse(const char *s, uint16_t default_port, int allow_lookup, struct net_addr *out,
                   char *err, size_t err_len);
/** Writes "1.2.3.4:8333" / "[::1]:8333" (with_port), or "1.2.3.4" / "::1"; a Tor v3
 *  address as its name (with checksum and version, as Core prints it). */
void net_addr_format(const struct net_addr *a, int with_port, char out[NET_ADDR_STR_LEN]);
/** Fills a sockaddr for IPv4 / IPv6; RC_INVALID for other networks. */
int net_addr_to_sockaddr(const struct net_addr *a, struct sockaddr_storage *ss, socklen_t *len);
/** From a sockaddr (IPv4-mapped IPv6 becomes IPv4). RC_INVALID for other families. */
int net_addr_from_sockaddr(const struct sockaddr *sa, struct net_addr *out);
/** The 16-byte legacy form (IPv4 mapped). */
void net_addr_to_ip16(const struct net_addr *a, uint8_t ip16[16]);
void net_addr_from_ip16(const uint8_t ip16[16], uint16_t port, struct net_addr *out);
/** 1 if a and b are the same host (ports aside). */
int net_addr_same_ip(const struct net_addr *a, const struct net_addr *b);
/** 1 for loopback addresses (127.0.0.0/8, ::1). */
int net_addr_is_local(const struct net_addr *a);
/** 1 for addresses a node may be reached at on the internet (not private, local, reserved). */
int net_addr_is_routable(const struct net_addr *a);
/** The network class (enum net_network) and Core's name for it. */
int net_addr_network(const struct net_addr *a);
const char *net_network_name(int network);

struct net_subnet {
    struct net_addr base; /* network address (masked) */
    uint8_t mask[32];     /* over addr's len bytes (an onion host: all of its 32) */
};

/** Parses "1.2.3.4", "1.2.3.4/24", "1.2.3.4/255.255.255.0", "::1", "fe80::/10". 0 or
 *  RC_INVALID. */
int net_subnet_parse(const char *s, struct net_subnet *out);
/** 1 if a is inside sn. */
int net_subnet_match(const struct net_subnet *sn, const struct net_addr *a);
/** Core's form: "1.2.3.4/32", "10.0.0.0/8", "::1/128" (a non-CIDR mask as "/255.0.255.0"). */
void net_subnet_format(const struct net_subnet *sn, char out[NET_ADDR_STR_LEN]);
/** 1 if a and b are the same subnet. */
int net_subnet_equal(const struct net_subnet *a, const struct net_subnet *b);

#endif
