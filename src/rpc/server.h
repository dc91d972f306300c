/* The RPC server: HTTP connections (http.h) on an event loop of their own thread, a bounded
 * work queue served by -rpcthreads workers (503 when full), -rpcallowip filtering (a refused
 * client is disconnected unanswered), HTTP Basic authentication (401, after a 250 ms delay
 * for wrong credentials), Core's routing ("/" for JSON-RPC, "/rest/" with -rest, else 404;
 * 405 for other methods), and JSON-RPC through rpc_handle_body().
 *
 * Start-up is split in two so that bitnoded can fork into the background after the ports
 * are taken (start-up errors still reach the terminal) but before any thread exists:
 * rpc_server_bind() parses the options and opens the listening sockets; rpc_server_start()
 * (after the fork) creates the event loop and the threads.
 *
 * Lock order: queue_mutex is a leaf; nothing else is held while taking it.
 */
#ifndef BITNODE_RPC_SERVER_H
#define BITNODE_RPC_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc/auth.h"
#include "rpc/jsonrpc.h"

/* Core's DEFAULT_HTTP_THREADS and DEFAULT_HTTP_WORKQUEUE (-rpcthreads, -rpcworkqueue). */
#define RPC_DEFAULT_THREADS 16
#define RPC_DEFAULT_WORK_QUEUE 64

struct rpc_server_options {
    const char *const *bind; /* -rpcbind values ("addr", "addr:port", "[v6]:port"); borrowed */
    size_t n_bind;
    const char *const *allow_ip; /* -rpcallowip values; borrowed */
    size_t n_allow_ip;
    uint16_t port;         /* -rpcport, or the chain's default */
    int threads;           /* -rpcthreads (default 4) */
    int work_queue;        /* -rpcworkqueue (default 16) */
    int timeout_s;         /* -rpcservertimeout (default 30) */
    struct rpc_auth *auth; /* borrowed; must outlive the server */
    struct rpc_context *ctx; /* borrowed: the methods and their state; must outlive the server */
    int rest;                /* -rest: answer /rest/... (rest.h), without credentials */
    int cjdns_reachable;     /* -cjdnsreachable: fc00::/8 is CJDNS, no -rpcallowip subnet */
};

struct rpc_server;

/** Parses the options and binds the listening sockets (no threads yet).
 *  Returns: 0 with *out set; RC_INVALID (bad -rpcallowip / -rpcbind) or RC_IO (no address
 *  could be bound) with err filled. Warnings (ignored -rpcbind, a failed ::1) are logged. */
int rpc_server_bind(const struct rpc_server_options *opt, struct rpc_server **out, char *err,
                    size_t err_len);
/** Starts the event loop thread and the workers. Returns 0 or RC_IO with err filled. */
int rpc_server_start(struct rpc_server *s, char *err, size_t err_len);
/** Stops serving: new requests get 503, queued ones are answered, replies are flushed (up to
 *  a few seconds), then the threads are joined and the listening sockets and the clients'
 *  connections closed. Idempotent. */
void rpc_server_stop(struct rpc_server *s);
/** Frees s (NULL: no-op). Stops it first if needed. */
void rpc_server_free(struct rpc_server *s);
/** Returns the port of the first bound socket (useful when opt->port was 0). */
uint16_t rpc_server_port(const struct rpc_server *s);

/* An IP subnet for -rpcallowip, exposed for unit tests. */
struct rpc_subnet {
    int family;       /* AF_INET or AF_INET6 */
    uint8_t addr[16]; /* network address (4 bytes used for AF_INET) */
    uint8_t mask[16];
};

/** Parses "1.2.3.4", "1.2.3.0/24", "1.2.3.0/255.255.255.0", "::1", "fe80::/10".
 *  Returns 0 or RC_INVALID. */
int rpc_subnet_parse(const char *s, struct rpc_subnet *out);
/** Returns true if the numeric address ip (text) is inside subnet. */
bool rpc_subnet_match(const struct rpc_subnet *subnet, const char *ip);

#endif
