/* The SOCKS5 client exchange (socks5.h). */
#include "net/socks5.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "util/rc.h"

static int fail(char *err, size_t err_len, const char *why)
{
    if (err && err_len) {
        snprintf(err, err_len, "%s", why);
    }
    return RC_INVALID;
}

void socks5_begin(struct socks5 *s, const char *host, uint16_t port, const char *user,
                  const char *pass, struct buf *out)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->host, sizeof(s->host), "%s", host);
    s->port = port;
    if (user && pass && (user[0] || pass[0])) {
        snprintf(s->user, sizeof(s->user), "%s", user);
        snprintf(s->pass, sizeof(s->pass), "%s", pass);
        const uint8_t greet[] = {0x05, 0x02, 0x00, 0x02}; /* no auth, username/password */
        buf_append(out, greet, sizeof(greet));
    } else {
        const uint8_t greet[] = {0x05, 0x01, 0x00};
        buf_append(out, greet, sizeof(greet));
    }
    s->step = SOCKS5_METHOD;
}

static void put_connect(const struct socks5 *s, struct buf *out)
{
    uint8_t a[16];
    const uint8_t head[] = {0x05, 0x01, 0x00}; /* CONNECT */
    buf_append(out, head, sizeof(head));
    if (inet_pton(AF_INET, s->host, a) == 1) {
        buf_put_u8(out, 0x01);
        buf_append(out, a, 4);
    } else if (inet_pton(AF_INET6, s->host, a) == 1) {
        buf_put_u8(out, 0x04);
        buf_append(out, a, 16);
    } else {
        size_t n = strlen(s->host);
        buf_put_u8(out, 0x03);
        buf_put_u8(out, (uint8_t)(n > 255 ? 255 : n));
        buf_append(out, s->host, n > 255 ? 255 : n);
    }
    buf_put_u8(out, (uint8_t)(s->port >> 8));
    buf_put_u8(out, (uint8_t)s->port);
}

/* Core's texts for the CONNECT reply codes. */
static const char *reply_text(uint8_t code)
{
    switch (code) {
    case 0x01:
        return "Proxy error: general failure";
    case 0x02:
        return "Proxy error: connection not allowed";
    case 0x03:
        return "Proxy error: network unreachable";
    case 0x04:
        return "Proxy error: host unreachable";
    case 0x05:
        return "Proxy error: connection refused";
    case 0x06:
        return "Proxy error: TTL expired";
    case 0x07:
        return "Proxy error: protocol error";
    case 0x08:
        return "Proxy error: address type not supported";
    default:
        return "Proxy error: unknown";
    }
}

int socks5_read(struct socks5 *s, const uint8_t *p, size_t avail, struct buf *out, char *err,
                size_t err_len)
{
    switch (s->step) {
    case SOCKS5_METHOD:
        if (avail < 2) {
            return 0;
        }
        if (p[0] != 0x05) {
            return fail(err, err_len, "Proxy failed to initialize");
        }
        if (p[1] == 0x02 && s->user[0] + s->pass[0]) {
            size_t ul = strlen(s->user), pl = strlen(s->pass);
            buf_put_u8(out, 0x01);
            buf_put_u8(out, (uint8_t)ul);
            buf_append(out, s->user, ul);
            buf_put_u8(out, (uint8_t)pl);
            buf_append(out, s->pass, pl);
            s->step = SOCKS5_AUTH;
            return 2;
        }
        if (p[1] != 0x00) {
            return fail(err, err_len, "Proxy requested wrong authentication method");
        }
        put_connect(s, out);
        s->step = SOCKS5_CONNECT;
        return 2;
    case SOCKS5_AUTH:
        if (avail < 2) {
            return 0;
        }
        if (p[0] != 0x01 || p[1] != 0x00) {
            return fail(err, err_len, "Proxy authentication unsuccessful");
        }
        put_connect(s, out);
        s->step = SOCKS5_CONNECT;
        return 2;
    case SOCKS5_CONNECT: {
        if (avail < 5) {
            return 0;
        }
        if (p[0] != 0x05) {
            return fail(err, err_len, "Proxy failed to accept request");
        }
        if (p[1] != 0x00) {
            return fail(err, err_len, reply_text(p[1]));
        }
        if (p[2] != 0x00) {
            return fail(err, err_len, "Error: malformed proxy response");
        }
        size_t need;
        switch (p[3]) {
        case 0x01:
            need = 4 + 4 + 2;
            break;
        case 0x04:
            need = 4 + 16 + 2;
            break;
        case 0x03:
            need = 4 + 1 + (size_t)p[4] + 2;
            break;
        default:
            return fail(err, err_len, "Error: malformed proxy response");
        }
        if (avail < need) {
            return 0;
        }
        s->step = SOCKS5_DONE;
        return (int)need;
    }
    default:
        return 0;
    }
}
