/* Bitcoin Core's on-disk address encodings (addrfile.h; the bytes in doc/files.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "net/addrfile.h"
#include "net/protocol.h"
#include "primitives/serialize.h"
#include "util/rc.h"

#define MAX_ADDRV2_SIZE 512
/* CAddress's disk version word: the low bits are ignored, the high ones say the encoding. */
#define DISK_VERSION_INIT 220000u
#define DISK_VERSION_IGNORE_MASK 0x0007ffffu
#define DISK_VERSION_ADDRV2 (1u << 29)

static const uint8_t v4_in_v6[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
static const uint8_t torv2_in_v6[6] = {0xfd, 0x87, 0xd8, 0x7e, 0xeb, 0x43};
static const uint8_t internal_in_v6[6] = {0xfd, 0x6b, 0x88, 0xc0, 0x87, 0x24};

void addrfile_reader_init(struct addrfile_reader *r, const uint8_t *p, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->p = p;
    r->len = len;
}

int addrfile_fail(struct addrfile_reader *r, int rc, const char *fmt, ...)
{
    if (r->rc == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, sizeof(r->err), fmt, ap);
        va_end(ap);
        r->rc = rc;
    }
    return r->rc;
}

int addrfile_read(struct addrfile_reader *r, void *out, size_t n)
{
    if (r->rc) {
        return r->rc;
    }
    if (r->len - r->pos < n) {
        r->pos = r->len;
        return addrfile_fail(r, RC_CORRUPT, "AutoFile::read: end of file" ADDRFILE_IOS_SUFFIX);
    }
    if (out) {
        memcpy(out, r->p + r->pos, n);
    }
    r->pos += n;
    return 0;
}

int addrfile_read_u8(struct addrfile_reader *r, uint8_t *out)
{
    return addrfile_read(r, out, 1);
}

int addrfile_read_u32le(struct addrfile_reader *r, uint32_t *out)
{
    uint8_t b[4] = {0};
    int rc = addrfile_read(r, b, 4);
    *out = rd_u32le(b);
    return rc;
}

int addrfile_read_i32le(struct addrfile_reader *r, int32_t *out)
{
    uint32_t v = 0;
    int rc = addrfile_read_u32le(r, &v);
    *out = (int32_t)v;
    return rc;
}

int addrfile_read_i64le(struct addrfile_reader *r, int64_t *out)
{
    uint8_t b[8] = {0};
    int rc = addrfile_read(r, b, 8);
    *out = (int64_t)rd_u64le(b);
    return rc;
}

int addrfile_read_compact(struct addrfile_reader *r, uint64_t *out, int range_check)
{
    uint8_t first = 0, b[8] = {0};
    *out = 0;
    if (addrfile_read_u8(r, &first)) {
        return r->rc;
    }
    uint64_t v = first, min = 0;
    if (first == 253) {
        addrfile_read(r, b, 2);
        v = rd_u16le(b);
        min = 253;
    } else if (first == 254) {
        addrfile_read(r, b, 4);
        v = rd_u32le(b);
        min = 0x10000;
    } else if (first == 255) {
        addrfile_read(r, b, 8);
        v = rd_u64le(b);
        min = 0x100000000ull;
    }
    if (r->rc) {
        return r->rc;
    }
    if (v < min) {
        return addrfile_fail(r, RC_CORRUPT, "non-canonical ReadCompactSize()" ADDRFILE_IOS_SUFFIX);
    }
    if (range_check && v > SER_MAX_SIZE) {
        return addrfile_fail(r, RC_CORRUPT,
                             "ReadCompactSize(): size too large" ADDRFILE_IOS_SUFFIX);
    }
    *out = v;
    return 0;
}

/* Core's SetLegacyIPv6: a mapped IPv4 is IPv4; Tor v2 and internal names are not kept. */
static void from_legacy(struct net_addr *out, int *valid, const uint8_t ip16[16])
{
    net_addr_from_ip16(ip16, 0, out);
    *valid = memcmp(ip16, torv2_in_v6, 6) != 0 && memcmp(ip16, internal_in_v6, 6) != 0;
}

int addrfile_read_netaddr(struct addrfile_reader *r, struct net_addr *out, int *valid, int v2)
{
    memset(out, 0, sizeof(*out));
    *valid = 0;
    if (!v2) {
        uint8_t ip16[16] = {0};
        if (addrfile_read(r, ip16, 16) == 0) {
            from_legacy(out, valid, ip16);
        }
        return r->rc;
    }
    uint8_t net = 0;
    uint64_t size = 0;
    if (addrfile_read_u8(r, &net) || addrfile_read_compact(r, &size, 1)) {
        return r->rc;
    }
    if (size > MAX_ADDRV2_SIZE) {
        return addrfile_fail(r, RC_CORRUPT, "Address too long: %llu > %d" ADDRFILE_IOS_SUFFIX,
                             (unsigned long long)size, MAX_ADDRV2_SIZE);
    }
    const char *name = NULL;
    size_t want = net_bip155_size(net, &name);
    if (want == 0) {
        return addrfile_read(r, NULL, (size_t)size); /* a network Core does not know */
    }
    if (size != want) {
        return addrfile_fail(r, RC_CORRUPT,
                             "BIP155 %s address with length %llu (should be %zu)"
                             ADDRFILE_IOS_SUFFIX,
                             name, (unsigned long long)size, want);
    }
    if (addrfile_read(r, out->addr, want)) {
        return r->rc;
    }
    out->net = net;
    out->len = (uint8_t)want;
    *valid = 1;
    if (net == BIP155_IPV6 &&
        (memcmp(out->addr, v4_in_v6, 12) == 0 || memcmp(out->addr, torv2_in_v6, 6) == 0 ||
         memcmp(out->addr, internal_in_v6, 6) == 0)) {
        *valid = 0; /* Core: not to be embedded in a BIP155 IPv6 field; internal: not kept */
    }
    return 0;
}

int addrfile_read_caddr(struct addrfile_reader *r, struct addrfile_caddr *out, int v2)
{
    memset(out, 0, sizeof(*out));
    uint32_t version = 0, time = 0;
    if (addrfile_read_u32le(r, &version)) {
        return r->rc;
    }
    version &= ~DISK_VERSION_IGNORE_MASK;
    int use_v2;
    if (version == 0) {
        use_v2 = 0;
    } else if (version == DISK_VERSION_ADDRV2 && v2) {
        use_v2 = 1;
    } else {
        return addrfile_fail(r, RC_CORRUPT,
                             "Unsupported CAddress disk format version" ADDRFILE_IOS_SUFFIX);
    }
    if (addrfile_read_u32le(r, &time)) {
        return r->rc;
    }
    out->time = time;
    if (use_v2) {
        addrfile_read_compact(r, &out->services, 0);
    } else {
        uint8_t b[8] = {0};
        addrfile_read(r, b, 8);
        out->services = rd_u64le(b);
    }
    uint8_t port[2] = {0};
    if (addrfile_read_netaddr(r, &out->addr, &out->valid, use_v2) || addrfile_read(r, port, 2)) {
        return r->rc;
    }
    out->addr.port = (uint16_t)((port[0] << 8) | port[1]); /* big-endian, as Core's CService */
    return 0;
}

void addrfile_put_netaddr(struct buf *out, const struct net_addr *a)
{
    if (a->net == 0 || a->len == 0) {
        buf_put_u8(out, BIP155_IPV6);
        ser_put_compact(out, 16);
        buf_append_fill(out, 0, 16);
        return;
    }
    buf_put_u8(out, a->net);
    ser_put_compact(out, a->len);
    buf_append(out, a->addr, a->len);
}

void addrfile_put_caddr(struct buf *out, const struct net_addr *a, uint64_t services,
                        uint32_t time)
{
    buf_put_u32le(out, DISK_VERSION_INIT | DISK_VERSION_ADDRV2);
    buf_put_u32le(out, time);
    ser_put_compact(out, services);
    addrfile_put_netaddr(out, a);
    buf_put_u8(out, (uint8_t)(a->port >> 8));
    buf_put_u8(out, (uint8_t)(a->port & 0xff));
}
