/* The SOCKS5 client side (RFC 1928, RFC 1929 username/password), as Core speaks it to Tor
 * and other proxies (-proxy, -onion): pure message building and parsing; net.c drives it
 * over the connection to the proxy.
 *
 * The exchange: greeting (methods: no auth, or username/password when credentials are
 * given: Core's -proxyrandomize sends random ones so Tor isolates streams), the method
 * choice, the credentials and their status (if chosen), the CONNECT request (by domain
 * name, so names resolve at the proxy, or by IPv4/IPv6 address) and its reply. After the
 * reply the connection carries the peer's bytes.
 */
#ifndef BITNODE_NET_SOCKS5_H
#define BITNODE_NET_SOCKS5_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum socks5_step {
    SOCKS5_METHOD = 0, /* waiting for the method choice (2 bytes) */
    SOCKS5_AUTH,       /* waiting for the auth status (2 bytes) */
    SOCKS5_CONNECT,    /* waiting for the CONNECT reply */
    SOCKS5_DONE,       /* the tunnel is up */
};

struct socks5 {
    int step;
    char host[256]; /* the destination: a name or a numeric address */
    uint16_t port;
    char user[64], pass[64]; /* "" and "": no authentication offered */
};

/** Starts an exchange to host:port (user/pass may be NULL): the greeting goes to out. */
void socks5_begin(struct socks5 *s, const char *host, uint16_t port, const char *user,
                  const char *pass, struct buf *out);

/** Reads what the proxy sent (avail bytes at p). Returns the bytes consumed (0: need more;
 *  nothing is consumed until a whole reply is there) and appends any next request to out;
 *  s->step says where it is (SOCKS5_DONE: the tunnel is up; what follows the reply is the
 *  peer's). A refusal or a malformed reply: negative RC_INVALID with err ("Proxy error:
 *  connection refused", Core's texts for the reply codes). */
int socks5_read(struct socks5 *s, const uint8_t *p, size_t avail, struct buf *out, char *err,
                size_t err_len);

#endif
