/* Bitcoin's P2P wire protocol, version 1 transport: the 24-byte frame header and the
 * payloads of the messages bitnode speaks. Pure encoding and decoding: no sockets, no state.
 *
 * A frame is magic (4 bytes, the chain's), a command (12 bytes, ASCII, NUL-padded), the
 * payload length (u32 LE, at most NET_MAX_MESSAGE) and a checksum (the first 4 bytes of
 * sha256d(payload)). Every parser bounds every count before it allocates (a peer is never
 * trusted with a size) and says what was wrong in err.
 */
#ifndef BITNODE_NET_PROTOCOL_H
#define BITNODE_NET_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define NET_PROTOCOL_VERSION 70017
#define NET_FEATURE_VERSION 70017   /* BIP434: the feature message between version and verack */
#define NET_MAX_FEATURE_ID 80       /* feature id bytes */
#define NET_MAX_FEATURE_DATA 512    /* feature data bytes */
#define NET_LOCATOR_VERSION 70016   /* the version field of a getheaders / getblocks locator
                                       (Core writes this fixed value) */
#define NET_MIN_PEER_PROTO_VERSION 31800 /* older peers are disconnected (Core's) */
#define NET_SENDHEADERS_VERSION 70012
#define NET_FEEFILTER_VERSION 70013
#define NET_WTXID_RELAY_VERSION 70016
#define NET_HEADER_SIZE 24
#define NET_COMMAND_SIZE 12
#define NET_MAX_MESSAGE 4000000 /* MAX_PROTOCOL_MESSAGE_LENGTH: larger frames disconnect */
#define NET_MAX_HEADERS 2000    /* per headers message */
#define NET_MAX_INV 50000       /* per inv / getdata / notfound */
#define NET_MAX_LOCATOR 101     /* per getheaders / getblocks */
#define NET_MAX_ADDR 1000       /* per addr / addrv2 */
#define NET_MAX_SUBVERSION 256  /* user agent bytes */

/* Service bits. */
#define NODE_NETWORK (1ull << 0)
#define NODE_BLOOM (1ull << 2)
#define NODE_WITNESS (1ull << 3)
#define NODE_COMPACT_FILTERS (1ull << 6)
#define NODE_NETWORK_LIMITED (1ull << 10)
/* What a NODE_NETWORK_LIMITED node serves (BIP159): the last 288 blocks. */
#define NODE_NETWORK_LIMITED_MIN_BLOCKS 288
#define NODE_P2P_V2 (1ull << 11)

/* Inventory types. */
#define INV_ERROR 0u
#define INV_TX 1u
#define INV_BLOCK 2u
#define INV_FILTERED_BLOCK 3u
#define INV_CMPCT_BLOCK 4u
#define INV_WTX 5u
#define INV_WITNESS_FLAG (1u << 30)
#define INV_WITNESS_TX (INV_TX | INV_WITNESS_FLAG)
#define INV_WITNESS_BLOCK (INV_BLOCK | INV_WITNESS_FLAG)

struct net_msg_header {
    char command[NET_COMMAND_SIZE + 1]; /* NUL-terminated */
    uint32_t len;
    uint8_t checksum[4];
    /* 0 when the command field is not printable ASCII followed by NULs only (Core's
     * IsMessageTypeValid): command then holds its part up to the first NUL with what Core's
     * SanitizeString drops left out. The frame is read, and then dropped, as Core does. */
    int type_valid;
};

/** Decodes a frame header. RC_INVALID with err for a wrong magic; RC_TOO_LARGE for a length
 *  over NET_MAX_MESSAGE (h is filled then: the caller logs the size). 0 otherwise, also for
 *  an invalid command (h->type_valid 0). */
int net_header_parse(const uint8_t raw[NET_HEADER_SIZE], const uint8_t magic[4],
                     struct net_msg_header *h, char *err, size_t err_len);
/** 1 if payload (len bytes) matches h's checksum. */
int net_checksum_ok(const struct net_msg_header *h, const uint8_t *payload, size_t len);
/** Appends a whole frame (header and payload) to out. command: at most 12 characters. */
void net_frame_build(struct buf *out, const uint8_t magic[4], const char *command,
                     const uint8_t *payload, size_t len);

/* An address as the version message and legacy addr carry it: 16 bytes (IPv4 mapped into
 * ::ffff:0:0/96), big-endian port, services. */
struct net_wire_addr {
    uint64_t services;
    uint8_t ip[16];
    uint16_t port;
};

struct net_version {
    int32_t version;
    uint64_t services;
    int64_t time;
    struct net_wire_addr addr_recv;
    struct net_wire_addr addr_from;
    uint64_t nonce;
    char user_agent[NET_MAX_SUBVERSION + 1]; /* NUL-terminated, as received */
    int32_t start_height;
    int relay; /* absent: 1 */
};

/** Decodes a version payload. Fields after the version number may be missing (old peers),
 *  as Core reads them; a user agent over 256 bytes is RC_TOO_LARGE. 0 or an error with err. */
int net_version_parse(const uint8_t *p, size_t len, struct net_version *v, char *err,
                      size_t err_len);
void net_version_serialize(struct buf *out, const struct net_version *v);

struct net_inv {
    uint32_t type;
    uint8_t hash[32]; /* internal order */
};

/** Decodes inv / getdata / notfound: *out (caller frees) gets *n entries, at most
 *  NET_MAX_INV (more, all there: RC_TOO_LARGE with *n the count, as Core reads the whole
 *  vector before it checks; a count the message cannot hold: RC_TRUNCATED). */
int net_inv_parse(const uint8_t *p, size_t len, struct net_inv **out, size_t *n, char *err,
                  size_t err_len);
void net_inv_serialize(struct buf *out, const struct net_inv *inv, size_t n);
#define NET_INV_STR_LEN 96
/** Core's CInv::ToString into out: the type's name ("tx", "witness-tx", "wtx", "block",
 *  "witness-block", "merkleblock", "cmpctblock"; "0x%08x" for another) and the hash in
 *  RPC order. */
void net_inv_format(char out[NET_INV_STR_LEN], const struct net_inv *iv);

/** Decodes getheaders / getblocks: the locator (*hashes, caller frees, *n of them, at most
 *  NET_MAX_LOCATOR: more is RC_TOO_LARGE, with *n the size announced) and the stop hash. */
int net_locator_parse(const uint8_t *p, size_t len, uint8_t (**hashes)[32], size_t *n,
                      uint8_t stop[32], char *err, size_t err_len);
void net_locator_serialize(struct buf *out, uint32_t version, const uint8_t (*hashes)[32], size_t n,
                           const uint8_t stop[32]);

/** Decodes headers: *raw (caller frees) gets *n headers of 80 bytes each, back to back; the
 *  transaction count after each is read and ignored, as Core does. At most NET_MAX_HEADERS
 *  (more: RC_TOO_LARGE, with *n the count announced). */
int net_headers_parse(const uint8_t *p, size_t len, uint8_t **raw, size_t *n, char *err,
                      size_t err_len);
/** Appends a headers payload of n headers (80 bytes each, back to back in raw). */
void net_headers_serialize(struct buf *out, const uint8_t *raw, size_t n);

/* addrv2 network ids (BIP155). */
enum net_bip155 {
    BIP155_IPV4 = 1,
    BIP155_IPV6 = 2,
    BIP155_TORV2 = 3,
    BIP155_TORV3 = 4,
    BIP155_I2P = 5,
    BIP155_CJDNS = 6,
};

/** The address length BIP155 fixes for a network Core knows (IPv4 4, IPv6 16, TORv3 32, I2P
 *  32, CJDNS 16) with Core's name for it in *name (may be NULL); 0 for any other id (TORv2
 *  too: Core reads it as unknown and skips it). */
size_t net_bip155_size(uint8_t net, const char **name);

/* An address received in addr or addrv2. */
struct net_addr_msg_entry {
    uint32_t time;
    uint64_t services;
    uint8_t net; /* enum net_bip155 */
    uint8_t len; /* bytes of addr used: 4, 16 or 32 */
    uint8_t addr[32];
    uint16_t port;
};

/** Decodes addr (v2 = 0) or addrv2 (v2 = 1): *out (caller frees), *n at most NET_MAX_ADDR
 *  (more, all there: RC_TOO_LARGE with *n the count; a count the message cannot hold:
 *  RC_TRUNCATED). addrv2 entries of unknown networks or wrong lengths for a known
 *  one are skipped (BIP155); an address field over 512 bytes is an error. A legacy IPv6
 *  entry holding a mapped IPv4 address comes out as IPv4. */
int net_addrmsg_parse(const uint8_t *p, size_t len, int v2, struct net_addr_msg_entry **out,
                      size_t *n, char *err, size_t err_len);
void net_addrmsg_serialize(struct buf *out, int v2, const struct net_addr_msg_entry *a, size_t n);

/** Appends the 26 bytes of a legacy network address (services, ip, port). */
void net_wire_addr_serialize(struct buf *out, const struct net_wire_addr *a);

#endif
