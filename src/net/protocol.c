/* The v1 wire protocol's frames and payloads (protocol.h). */
#include "net/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "primitives/serialize.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static int fail(char *err, size_t err_len, int rc, const char *what)
{
    if (err && err_len) {
        snprintf(err, err_len, "%s", what);
    }
    return rc;
}

/* A reader's failure, with its message. */
static int reader_err(const struct reader *r, int rc, char *err, size_t err_len)
{
    return fail(err, err_len, rc, r->err[0] ? r->err : rc_str(rc));
}

/* The characters Core's SanitizeString keeps (SAFE_CHARS_DEFAULT). */
static int sanitize_ok(uint8_t ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch != 0 && strchr(" .,;-_/:?@()", ch) != NULL);
}

int net_header_parse(const uint8_t raw[NET_HEADER_SIZE], const uint8_t magic[4],
                     struct net_msg_header *h, char *err, size_t err_len)
{
    memset(h, 0, sizeof(*h));
    if (memcmp(raw, magic, 4) != 0) {
        if (err && err_len) {
            snprintf(err, err_len, "Wrong MessageStart %02x%02x%02x%02x received", raw[0], raw[1],
                     raw[2], raw[3]);
        }
        return RC_INVALID;
    }
    const uint8_t *c = raw + 4;
    size_t n = 0, k = 0;
    h->type_valid = 1;
    for (; n < NET_COMMAND_SIZE && c[n]; n++) {
        if (c[n] < 0x20 || c[n] > 0x7e) {
            h->type_valid = 0;
        }
        h->command[k++] = (char)c[n];
    }
    for (size_t i = n; i < NET_COMMAND_SIZE; i++) {
        if (c[i]) {
            h->type_valid = 0;
        }
    }
    if (!h->type_valid) { /* as Core's SanitizeString shows it */
        k = 0;
        for (size_t i = 0; i < n; i++) {
            if (sanitize_ok(c[i])) {
                h->command[k++] = (char)c[i];
            }
        }
    }
    h->command[k] = 0;
    h->len = rd_u32le(raw + 16);
    memcpy(h->checksum, raw + 20, 4);
    if (h->len > NET_MAX_MESSAGE) {
        if (err && err_len) {
            snprintf(err, err_len, "Size too large (%s, %u bytes)", h->command, h->len);
        }
        return RC_TOO_LARGE;
    }
    return RC_OK;
}

int net_checksum_ok(const struct net_msg_header *h, const uint8_t *payload, size_t len)
{
    uint8_t d[32];
    hash_sha256d(d, payload, len);
    return memcmp(d, h->checksum, 4) == 0;
}

void net_frame_build(struct buf *out, const uint8_t magic[4], const char *command,
                     const uint8_t *payload, size_t len)
{
    uint8_t hdr[NET_HEADER_SIZE] = {0};
    memcpy(hdr, magic, 4);
    size_t n = strlen(command);
    memcpy(hdr + 4, command, n > NET_COMMAND_SIZE ? NET_COMMAND_SIZE : n);
    wr_u32le(hdr + 16, (uint32_t)len);
    uint8_t d[32];
    hash_sha256d(d, payload, len);
    memcpy(hdr + 20, d, 4);
    buf_reserve(out, out->len + sizeof(hdr) + len);
    buf_append(out, hdr, sizeof(hdr));
    buf_append(out, payload, len);
}

static int read_wire_addr(struct reader *r, struct net_wire_addr *a)
{
    uint16_t port_be = 0;
    int rc = reader_u64le(r, &a->services, "services");
    rc = rc ? rc : reader_bytes(r, a->ip, 16, "address");
    rc = rc ? rc : reader_u16le(r, &port_be, "port");
    a->port = (uint16_t)((port_be >> 8) | (port_be << 8));
    return rc;
}

void net_wire_addr_serialize(struct buf *out, const struct net_wire_addr *a)
{
    buf_put_u64le(out, a->services);
    buf_append(out, a->ip, 16);
    buf_put_u8(out, (uint8_t)(a->port >> 8));
    buf_put_u8(out, (uint8_t)a->port);
}

int net_version_parse(const uint8_t *p, size_t len, struct net_version *v, char *err,
                      size_t err_len)
{
    memset(v, 0, sizeof(*v));
    v->relay = 1;
    struct reader r;
    reader_init(&r, p, len);
    uint32_t ver = 0;
    uint64_t t = 0;
    int rc = reader_u32le(&r, &ver, "version");
    rc = rc ? rc : reader_u64le(&r, &v->services, "services");
    rc = rc ? rc : reader_u64le(&r, &t, "time");
    rc = rc ? rc : read_wire_addr(&r, &v->addr_recv);
    if (rc) {
        return reader_err(&r, rc, err, err_len);
    }
    v->version = (int32_t)ver;
    v->time = (int64_t)t;
    /* Core reads the rest only if present. */
    if (reader_left(&r) == 0) {
        return RC_OK;
    }
    rc = read_wire_addr(&r, &v->addr_from);
    rc = rc ? rc : reader_u64le(&r, &v->nonce, "nonce");
    if (rc) {
        return reader_err(&r, rc, err, err_len);
    }
    if (reader_left(&r) == 0) {
        return RC_OK;
    }
    uint64_t ualen = 0;
    rc = ser_get_compact(&r, &ualen, "user agent length");
    if (rc) {
        return reader_err(&r, rc, err, err_len);
    }
    if (ualen > NET_MAX_SUBVERSION) {
        return fail(err, err_len, RC_TOO_LARGE, "user agent longer than 256 bytes");
    }
    rc = reader_bytes(&r, v->user_agent, (size_t)ualen, "user agent");
    if (rc) {
        return reader_err(&r, rc, err, err_len);
    }
    v->user_agent[ualen] = 0;
    if (reader_left(&r) == 0) {
        return RC_OK;
    }
    uint32_t h = 0;
    rc = reader_u32le(&r, &h, "start height");
    if (rc) {
        return reader_err(&r, rc, err, err_len);
    }
    v->start_height = (int32_t)h;
    if (reader_left(&r) > 0) {
        uint8_t relay = 1;
        reader_u8(&r, &relay, "relay");
        v->relay = relay != 0;
    }
    return RC_OK; /* Core ignores what follows */
}

void net_version_serialize(struct buf *out, const struct net_version *v)
{
    buf_put_u32le(out, (uint32_t)v->version);
    buf_put_u64le(out, v->services);
    buf_put_u64le(out, (uint64_t)v->time);
    net_wire_addr_serialize(out, &v->addr_recv);
    net_wire_addr_serialize(out, &v->addr_from);
    buf_put_u64le(out, v->nonce);
    ser_put_varbytes(out, (const uint8_t *)v->user_agent, strlen(v->user_agent));
    buf_put_u32le(out, (uint32_t)v->start_height);
    buf_put_u8(out, v->relay ? 1 : 0);
}

/* A count that must not pass max, checked against the bytes left (each entry at least
 * min_size bytes) before anything is allocated. */
static int read_count(struct reader *r, uint64_t max, size_t min_size, uint64_t *n, char *err,
                      size_t err_len, const char *what)
{
    int rc = ser_get_compact(r, n, what);
    if (rc) {
        return reader_err(r, rc, err, err_len);
    }
    /* As Core reads a vector: all of it first (a message that ends early is malformed),
     * then its size against the limit. */
    if (*n > reader_left(r) / min_size) {
        if (err && err_len) {
            snprintf(err, err_len, "%s %llu: the message ends early", what, (unsigned long long)*n);
        }
        return RC_TRUNCATED;
    }
    if (*n > max) {
        if (err && err_len) {
            snprintf(err, err_len, "%s %llu over the limit of %llu", what, (unsigned long long)*n,
                     (unsigned long long)max);
        }
        return RC_TOO_LARGE;
    }
    return RC_OK;
}

int net_inv_parse(const uint8_t *p, size_t len, struct net_inv **out, size_t *n, char *err,
                  size_t err_len)
{
    *out = NULL;
    *n = 0;
    struct reader r;
    reader_init(&r, p, len);
    uint64_t count = 0;
    int rc = read_count(&r, NET_MAX_INV, 36, &count, err, err_len, "inventory count");
    if (rc) {
        *n = rc == RC_TOO_LARGE ? (size_t)count : 0; /* the size, for the caller's log */
        return rc;
    }
    struct net_inv *v = xmalloc((count ? count : 1) * sizeof(*v));
    for (uint64_t i = 0; i < count; i++) {
        rc = reader_u32le(&r, &v[i].type, "inventory type");
        rc = rc ? rc : reader_bytes(&r, v[i].hash, 32, "inventory hash");
        if (rc) {
            free(v);
            return reader_err(&r, rc, err, err_len);
        }
    }
    *out = v;
    *n = (size_t)count;
    return RC_OK;
}

void net_inv_serialize(struct buf *out, const struct net_inv *inv, size_t n)
{
    ser_put_compact(out, n);
    for (size_t i = 0; i < n; i++) {
        buf_put_u32le(out, inv[i].type);
        buf_append(out, inv[i].hash, 32);
    }
}

int net_locator_parse(const uint8_t *p, size_t len, uint8_t (**hashes)[32], size_t *n,
                      uint8_t stop[32], char *err, size_t err_len)
{
    *hashes = NULL;
    *n = 0;
    struct reader r;
    reader_init(&r, p, len);
    uint32_t version = 0;
    uint64_t count = 0;
    int rc = reader_u32le(&r, &version, "version");
    if (rc) {
        return reader_err(&r, rc, err, err_len);
    }
    rc = read_count(&r, NET_MAX_LOCATOR, 32, &count, err, err_len, "locator size");
    if (rc) {
        if (rc == RC_TOO_LARGE) {
            *n = count > SIZE_MAX ? SIZE_MAX : (size_t)count; /* for the caller's message */
        }
        return rc;
    }
    uint8_t(*h)[32] = xmalloc((count ? count : 1) * 32);
    for (uint64_t i = 0; i < count; i++) {
        reader_bytes(&r, h[i], 32, "locator hash");
    }
    rc = reader_bytes(&r, stop, 32, "stop hash");
    if (rc) {
        free(h);
        return reader_err(&r, rc, err, err_len);
    }
    *hashes = h;
    *n = (size_t)count;
    return RC_OK;
}

void net_locator_serialize(struct buf *out, uint32_t version, const uint8_t (*hashes)[32], size_t n,
                           const uint8_t stop[32])
{
    buf_put_u32le(out, version);
    ser_put_compact(out, n);
    for (size_t i = 0; i < n; i++) {
        buf_append(out, hashes[i], 32);
    }
    buf_append(out, stop, 32);
}

int net_headers_parse(const uint8_t *p, size_t len, uint8_t **raw, size_t *n, char *err,
                      size_t err_len)
{
    *raw = NULL;
    *n = 0;
    struct reader r;
    reader_init(&r, p, len);
    uint64_t count = 0;
    int rc = ser_get_compact(&r, &count, "headers count");
    if (rc) {
        return reader_err(&r, rc, err, err_len);
    }
    if (count > NET_MAX_HEADERS) {
        *n = count > SIZE_MAX ? SIZE_MAX : (size_t)count;
        if (err && err_len) {
            snprintf(err, err_len, "headers message size = %llu", (unsigned long long)count);
        }
        return RC_TOO_LARGE;
    }
    if (count * 81 > reader_left(&r)) {
        return fail(err, err_len, RC_TRUNCATED, "headers message ends early");
    }
    uint8_t *h = xmalloc(count ? count * 80 : 1);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t txn = 0;
        rc = reader_bytes(&r, h + i * 80, 80, "header");
        rc = rc ? rc : ser_get_compact(&r, &txn, "transaction count");
        if (rc) {
            free(h);
            return reader_err(&r, rc, err, err_len);
        }
    }
    *raw = h;
    *n = (size_t)count;
    return RC_OK;
}

void net_headers_serialize(struct buf *out, const uint8_t *raw, size_t n)
{
    buf_reserve(out, out->len + 3 + n * 81);
    ser_put_compact(out, n);
    for (size_t i = 0; i < n; i++) {
        buf_append(out, raw + i * 80, 80);
        buf_put_u8(out, 0);
    }
}

static const uint8_t ipv4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

size_t net_bip155_size(uint8_t net, const char **name)
{
    static const struct {
        uint8_t net;
        size_t len;
        const char *name;
    } known[] = {{BIP155_IPV4, 4, "IPv4"},
                 {BIP155_IPV6, 16, "IPv6"},
                 {BIP155_TORV3, 32, "TORv3"},
                 {BIP155_I2P, 32, "I2P"},
                 {BIP155_CJDNS, 16, "CJDNS"}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (known[i].net == net) {
            if (name) {
                *name = known[i].name;
            }
            return known[i].len;
        }
    }
    return 0;
}

int net_addrmsg_parse(const uint8_t *p, size_t len, int v2, struct net_addr_msg_entry **out,
                      size_t *n, char *err, size_t err_len)
{
    *out = NULL;
    *n = 0;
    struct reader r;
    reader_init(&r, p, len);
    uint64_t count = 0;
    int rc = read_count(&r, NET_MAX_ADDR, v2 ? 9 : 30, &count, err, err_len, "addr count");
    if (rc) {
        *n = rc == RC_TOO_LARGE ? (size_t)count : 0; /* the size, for the caller's log */
        return rc;
    }
    struct net_addr_msg_entry *a = xcalloc(count ? count : 1, sizeof(*a));
    size_t k = 0;
    for (uint64_t i = 0; i < count; i++) {
        struct net_addr_msg_entry *e = &a[k];
        memset(e, 0, sizeof(*e));
        rc = reader_u32le(&r, &e->time, "time");
        if (rc) {
            break;
        }
        if (v2) {
            uint64_t services = 0, alen = 0;
            rc = ser_get_compact(&r, &services, "services");
            rc = rc ? rc : reader_u8(&r, &e->net, "network id");
            rc = rc ? rc : ser_get_compact(&r, &alen, "address length");
            if (rc) {
                break;
            }
            const char *name = NULL;
            size_t want = net_bip155_size(e->net, &name);
            if (alen > 512 || (want && alen != want)) { /* Core's exceptions, same words */
                free(a);
                if (alen > 512) {
                    snprintf(err, err_len, "Address too long: %llu > 512", (unsigned long long)alen);
                } else {
                    snprintf(err, err_len, "BIP155 %s address with length %llu (should be %zu)",
                             name, (unsigned long long)alen, want);
                }
                return RC_INVALID;
            }
            e->services = services;
            const uint8_t *bytes = NULL;
            rc = reader_ptr(&r, &bytes, (size_t)alen, "address");
            uint16_t port_be = 0;
            rc = rc ? rc : reader_u16le(&r, &port_be, "port");
            if (rc) {
                break;
            }
            e->port = (uint16_t)((port_be >> 8) | (port_be << 8));
            if (want == 0) {
                continue; /* unknown or unsupported: skipped, as BIP155 says */
            }
            e->len = (uint8_t)alen;
            memcpy(e->addr, bytes, (size_t)alen);
        } else {
            struct net_wire_addr w;
            rc = read_wire_addr(&r, &w);
            if (rc) {
                break;
            }
            e->services = w.services;
            e->port = w.port;
            if (memcmp(w.ip, ipv4_mapped, 12) == 0) {
                e->net = BIP155_IPV4;
                e->len = 4;
                memcpy(e->addr, w.ip + 12, 4);
            } else {
                e->net = BIP155_IPV6;
                e->len = 16;
                memcpy(e->addr, w.ip, 16);
            }
        }
        k++;
    }
    if (rc) {
        free(a);
        return reader_err(&r, rc, err, err_len);
    }
    *out = a;
    *n = k;
    return RC_OK;
}

void net_addrmsg_serialize(struct buf *out, int v2, const struct net_addr_msg_entry *a, size_t n)
{
    ser_put_compact(out, n);
    for (size_t i = 0; i < n; i++) {
        buf_put_u32le(out, a[i].time);
        if (v2) {
            ser_put_compact(out, a[i].services);
            buf_put_u8(out, a[i].net);
            ser_put_compact(out, a[i].len);
            buf_append(out, a[i].addr, a[i].len);
        } else {
            struct net_wire_addr w = {.services = a[i].services, .port = a[i].port};
            if (a[i].net == BIP155_IPV4) {
                memcpy(w.ip, ipv4_mapped, 12);
                memcpy(w.ip + 12, a[i].addr, 4);
            } else {
                memcpy(w.ip, a[i].addr, 16);
            }
            net_wire_addr_serialize(out, &w);
            continue;
        }
        buf_put_u8(out, (uint8_t)(a[i].port >> 8));
        buf_put_u8(out, (uint8_t)a[i].port);
    }
}

void net_inv_format(char out[NET_INV_STR_LEN], const struct net_inv *iv)
{
    static const char *const names[] = {NULL, "tx", "block", "merkleblock", "cmpctblock", "wtx"};
    uint32_t base = iv->type & ~INV_WITNESS_FLAG;
    char hex[65];
    hex_encode_rev(hex, iv->hash, 32);
    if (base >= 1 && base <= 5) {
        snprintf(out, NET_INV_STR_LEN, "%s%s %s", (iv->type & INV_WITNESS_FLAG) ? "witness-" : "",
                 names[base], hex);
    } else {
        snprintf(out, NET_INV_STR_LEN, "0x%08x %s", (unsigned)iv->type, hex);
    }
}
